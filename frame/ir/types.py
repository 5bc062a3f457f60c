"""Tensor types of the IR: shape, dtype and device (SPEC §3)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ShapeError

#: dtypes the IR knows, with their short names in the text form.
DTYPES = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32", "bool": "bool", "float16": "f16",
          "complex64": "c64", "complex128": "c128"}
SHORT_TO_DTYPE = {v: k for k, v in DTYPES.items()}
FLOAT_DTYPES = ("float32", "float64", "float16")
COMPLEX_DTYPES = ("complex64", "complex128")


def canonical_dtype(dtype) -> str:
    """The IR name of a numpy dtype (or dtype-like); `ShapeError` for dtypes the IR does not carry."""
    if type(dtype) is str and dtype in DTYPES:  # the common case, without building a numpy dtype
        return dtype
    try:
        name = np.dtype(dtype).name
    except TypeError:  # not a dtype at all ('abc', object()): numpy's message would not say what was given
        raise ShapeError(f"{dtype!r} is not a dtype frame supports (supported: {', '.join(DTYPES)})") from None
    if name not in DTYPES:
        raise ShapeError(f"dtype {name!r} is not supported by frame (supported: {', '.join(DTYPES)})")
    return name


@dataclass(frozen=True, slots=True)
class TensorType:
    """The static type of a value: a shape (tuple of ints; `()` is a scalar), a dtype name and a device."""

    shape: tuple[int, ...]
    dtype: str
    device: str = "cpu"

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))
        object.__setattr__(self, "dtype", canonical_dtype(self.dtype))
        if any(d < 0 for d in self.shape):
            raise ShapeError(f"TensorType: negative dimension in shape {self.shape}")

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOAT_DTYPES

    @property
    def is_complex(self) -> bool:
        return self.dtype in COMPLEX_DTYPES

    @property
    def is_inexact(self) -> bool:
        """Float or complex: the dtypes that have derivatives."""
        return self.dtype in FLOAT_DTYPES or self.dtype in COMPLEX_DTYPES

    @property
    def nbytes(self) -> int:
        return self.size * np.dtype(self.dtype).itemsize

    def __str__(self) -> str:
        dev = "" if self.device == "cpu" else f"@{self.device}"
        return f"{DTYPES[self.dtype]}[{','.join(map(str, self.shape))}]{dev}"

    @staticmethod
    def of(array) -> "TensorType":
        """The type of a concrete numpy array or scalar."""
        a = np.asarray(array)
        return TensorType(a.shape, a.dtype.name)
