"""`frame.numpy`: frame's ops under numpy names. They trace on tracers and run eagerly on numpy data.

Functions that are one op applied to its operands (`add`, `exp`, `matmul`, `mse_loss`, `fft.rfft`,
...) are generated from the registry's `frontend` facts, with the op's doc as docstring; those
that normalise their arguments (axes, shapes, indices, exponents) are written by family in
`numpy_<family>.py` (shape, reduce, sort, sets, math, logic, linalg, fft, creation, names) and gathered here. When this
module loads it registers its functions with the tracing core, which routes `Tracer` operators,
numpy ufuncs and numpy functions on tracers to them.
"""
from __future__ import annotations

import builtins
import inspect
import math

import numpy as _np

from ..errors import ShapeError, TraceError
from ..ops import all_ops
from ..tracing import Tracer, attach_frontend, bind
from . import (numpy_creation, numpy_fft, numpy_linalg, numpy_logic, numpy_math, numpy_names, numpy_reduce, numpy_sets,
               numpy_shape, numpy_sort)
from .args import _axes, _axis, _ndim
from .numpy_creation import *  # noqa: F401,F403
from .numpy_fft import *  # noqa: F401,F403
from .numpy_fft import fft
from .numpy_linalg import *  # noqa: F401,F403
from .numpy_linalg import linalg
from .numpy_logic import *  # noqa: F401,F403
from .numpy_math import *  # noqa: F401,F403
from .numpy_math import _rpow
from .numpy_names import *  # noqa: F401,F403
from .numpy_reduce import *  # noqa: F401,F403
from .numpy_sets import *  # noqa: F401,F403
from .numpy_shape import *  # noqa: F401,F403
from .numpy_shape import reshape, transpose
from .numpy_sort import *  # noqa: F401,F403

pi = math.pi
e = math.e
float16, float32, float64, int32, int64 = _np.float16, _np.float32, _np.float64, _np.int32, _np.int64
complex64, complex128, bool_ = _np.complex64, _np.complex128, _np.bool_
finfo, iinfo = _np.finfo, _np.iinfo   # machine limits of a dtype: numpy's own
# numpy's own dtype functions: their arguments are dtypes (and type codes), never arrays
promote_types, issubdtype, isdtype, typename = _np.promote_types, _np.issubdtype, _np.isdtype, _np.typename


def _dtype_of(x):
    """A traced value as its dtype (all that numpy's dtype functions read of an array); anything else as is."""
    return _np.dtype(x.dtype) if isinstance(x, Tracer) else x


def result_type(*arrays_and_dtypes):
    """numpy's `result_type` (numpy 2's promotion, Python numbers weak) of arrays, traced values and dtypes."""
    return _np.result_type(*map(_dtype_of, arrays_and_dtypes))


def can_cast(from_, to, casting="safe"):
    """numpy's `can_cast` of a dtype, an array or a traced value (by its dtype) to `to` under `casting`."""
    return _np.can_cast(_dtype_of(from_), to, casting)


def min_scalar_type(a):
    """numpy's `min_scalar_type`. A traced array of rank >= 1 (or of bools) gives its dtype, as numpy's arrays do;
    for a traced scalar numpy's answer depends on its value, so that raises TraceError."""
    if isinstance(a, Tracer):
        if a.ndim == 0 and a.dtype != _np.bool_:
            raise TraceError(f"op 'min_scalar_type': the smallest dtype of a traced scalar {a.type} depends on its "
                             "value; pass a concrete value")
        return _np.dtype(a.dtype)
    return _np.min_scalar_type(a)


def common_type(*arrays):
    """numpy's `common_type` (the float or complex type of the arrays' dtypes) of arrays and traced values."""
    return _np.common_type(*(_np.empty(0, x.dtype) if isinstance(x, Tracer) else x for x in arrays))


def mintypecode(typechars, typeset="GDFgdf", default="d"):
    """numpy's `mintypecode` of type characters, arrays and traced values (by their dtype's character)."""
    return _np.mintypecode([_np.dtype(t.dtype).char if isinstance(t, Tracer) else t for t in typechars],
                           typeset, default)

# The hand-written names: here, and in the family modules; the generated ones are appended below.
__all__ = ["pi", "e", "float16", "float32", "float64", "int32", "int64", "complex64", "complex128", "bool_",
           "finfo", "iinfo", "result_type", "promote_types", "can_cast", "issubdtype", "isdtype", "min_scalar_type",
           "common_type", "mintypecode", "typename", "debug_print", "softmax", "log_softmax", "layer_norm"]
for _family in (numpy_creation, numpy_fft, numpy_linalg, numpy_logic, numpy_math, numpy_names, numpy_reduce,
                numpy_sets, numpy_shape, numpy_sort):
    __all__ += _family.__all__
# Namespaces for dotted frontend names ("fft.rfft", "linalg.norm").
NAMESPACES = {"fft": fft, "linalg": linalg}


# -- neural-network composites (frame.ops.nn) ----------------------------------------------------
def softmax(x, axis: int = -1):
    """`exp(x) / sum(exp(x))` along `axis` (stable: shifted by the max)."""
    return bind("softmax", x, axis=_axis(axis, _ndim(x), "softmax"))


def log_softmax(x, axis: int = -1):
    """`x - log(sum(exp(x)))` along `axis`, computed stably."""
    return bind("log_softmax", x, axis=_axis(axis, _ndim(x), "log_softmax"))


def layer_norm(x, axis=-1, eps: float = 1e-5):
    """`(x - mean) / sqrt(var + eps)` over `axis` (an int or a tuple); no affine parameters."""
    return bind("layer_norm", x, axes=_axes(axis, _ndim(x), "layer_norm"), eps=float(eps))


# -- side effects ------------------------------------------------------------------------------
def debug_print(fmt: str, x):
    """Print `fmt.format(value)` when the compiled graph runs (like `jax.debug.print`)."""
    if not isinstance(fmt, str):
        raise ShapeError(f"op 'debug_print': the format must be a str, got {type(fmt).__name__} {fmt!r}")
    bind("debug_print", x, fmt=fmt)


def _numpy_name(func) -> str:
    module = getattr(func, "__module__", None) or "numpy"
    return f"{module}.{func.__name__}"


def _numpy_counterparts() -> dict:
    """numpy's (non-ufunc) functions that frame.numpy implements under the same name."""
    table = {}
    for name in __all__:
        ours, theirs = globals().get(name), getattr(_np, name, None)
        if callable(ours) and callable(theirs) and not isinstance(theirs, _np.ufunc):
            table[theirs] = ours
    return table


def _is_default(value, default) -> bool:
    if value is default:
        return True
    # Only plain Python values are compared: `==` on an array or tracer is no yes/no answer.
    return type(value) in (builtins.bool, int, float, str) and type(value) is type(default) and value == default


def apply_numpy_function(func, args, kwargs):
    """`Tracer.__array_function__`: `np.f(...)` on traced values runs `frame.numpy.f` when it exists.

    numpy's arguments are bound to numpy's signature; after the array argument, each one must be
    a parameter of frame.numpy's function too (passed by name) or be left at numpy's default.
    """
    name = _numpy_name(func)
    ours = _COUNTERPARTS.get(func)
    if ours is None:
        raise TraceError(f"{name} is not supported on traced values; frame.numpy has no {func.__name__}")
    try:
        bound = inspect.signature(func).bind(*args, **kwargs).arguments
    except TypeError as e:
        raise TraceError(f"{name}: {e}") from None
    (first, array), *rest = bound.items()
    numpy_params, ours_params = inspect.signature(func).parameters, inspect.signature(ours).parameters
    passed, unsupported = {}, []
    for param, value in rest:
        if param in ours_params:
            passed[param] = value
        elif not _is_default(value, numpy_params[param].default):
            unsupported.append(param)
    if unsupported:
        supported = ", ".join(list(ours_params)[1:]) or "no other arguments"
        raise TraceError(f"{name} on traced values does not support the argument(s) {', '.join(unsupported)} "
                         f"(frame.numpy.{ours.__name__} takes {supported})")
    if numpy_params[first].kind is inspect.Parameter.VAR_POSITIONAL:   # np.einsum(*operands), np.meshgrid(*xi)
        return ours(*array, **passed)
    return ours(array, **passed)


# -- generated from the registry: one-op functions, frame.numpy's part of the Tracer -----------
def _op_function(schema, name: str):
    """`name(*operands)`: op `schema` applied to its operands, documented by the op's doc."""

    def function(*operands):
        return bind(schema.name, *operands)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = schema.doc
    function.op = schema.name   # generated: tests find the op's cases through it
    params = ("x",) if schema.num_inputs == 1 else tuple("abc"[:schema.num_inputs or 0])
    function.__signature__ = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in params] if params else
        [inspect.Parameter("operands", inspect.Parameter.VAR_POSITIONAL)])
    return function


def _frontend_functions() -> dict:
    """Every `frontend` name of every op -> its function here ("fft.rfft" dotted), generating the missing ones."""
    functions = {}
    for schema in all_ops():
        for dotted in schema.frontend:
            space, _, name = dotted.rpartition(".")
            namespace = vars(NAMESPACES[space]) if space else globals()
            if name not in namespace:
                namespace[name] = _op_function(schema, name)
                if not space:
                    __all__.append(name)
            functions[dotted] = namespace[name]
    return functions


attach_frontend(_frontend_functions(), apply_numpy_function,
                # numpy ufuncs that no op claims but a composition here implements (np.modf, np.divmod, ...)
                {name: globals()[name] for name in __all__ if isinstance(getattr(_np, name, None), _np.ufunc)})
Tracer.__rpow__ = _rpow
Tracer.T = property(lambda self: transpose(self))
Tracer.reshape = lambda self, *shape: reshape(self, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape)
Tracer.transpose = lambda self, *axes: transpose(self, axes[0] if len(axes) == 1 and not isinstance(axes[0], int)
                                                 else axes if axes else None)

# ndarray methods on tracers: each calls frame.numpy's function of the same name with the tracer first.
# `sort` returns the sorted copy, as a JAX array's does (numpy's sorts in place, which a traced value cannot).
METHODS = ("sum", "mean", "max", "min", "prod", "astype", "ravel", "flatten", "squeeze", "dot", "clip", "conj",
           "conjugate", "var", "std", "argmax", "argmin", "cumsum", "cumprod", "all", "any", "round", "trace",
           "diagonal", "repeat", "swapaxes", "take", "sort", "argsort", "searchsorted", "copy", "ptp", "nonzero",
           "argpartition", "choose")


def _method(function):
    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = function.__name__
    method.__doc__ = function.__doc__
    return method


for _name in METHODS:
    if callable(globals().get(_name)):
        setattr(Tracer, _name, _method(globals()[_name]))
for _name in ("real", "imag"):
    if callable(globals().get(_name)):
        setattr(Tracer, _name, property(globals()[_name]))
Tracer.mT = property(lambda self: matrix_transpose(self))
Tracer.itemsize = property(lambda self: self.dtype.itemsize)
Tracer.nbytes = property(lambda self: self.size * self.dtype.itemsize)


def _no_concrete_value(what: str):
    def method(self, *args, **kwargs):
        raise TraceError(f"{what} needs the concrete value of a traced {self.type}, which does not exist while "
                         "tracing; return the array from the traced function and convert it outside")
    return method


Tracer.item, Tracer.tolist = _no_concrete_value("item()"), _no_concrete_value("tolist()")
_COUNTERPARTS = _numpy_counterparts()
