"""`frame.nn.initializers`: jax.nn.initializers on frame.random, the same numbers for the same key.

Each builder returns `init(key, shape, dtype=...)`, as JAX's do: `zeros`, `ones` (themselves initializers),
`constant`, `uniform`, `normal`, `truncated_normal`, `variance_scaling` (modes fan_in, fan_out, fan_avg, fan_geo_avg;
distributions truncated_normal, normal, uniform; `in_axis`, `out_axis`, `batch_axis` as ints or sequences) and its
specialisations `glorot_*`/`xavier_*`, `lecun_*`, `he_*`/`kaiming_*`, `orthogonal` (frame.random.orthogonal, reshaped
so `column_axis` holds the orthonormal columns) and `delta_orthogonal` (an orthogonal matrix at the centre of a 3-,
4- or 5-d kernel, zeros elsewhere).

They draw with JAX's formulas on frame.random's bits: the scale factors are rounded to `dtype` and combined in
`dtype` as JAX does, so uniform-based draws equal JAX's bit for bit, and normal, truncated-normal and orthogonal ones
up to the float kernels (erfinv, QR: a few ulp in float64; XLA's float32 erf_inv differs by up to ~1.5e-6 relative
in the tails). Keys may be traced (inside `frame.function` or `vmap`); shapes, modes and axes are static.

Differences from JAX: `dtype` defaults to float64 (frame.random's default; JAX's is float32 unless x64 is on), real
float dtypes only for the random ones (JAX's complex variants are left out: frame.random draws real floats), and no
`out_sharding`. A bad mode or distribution raises `ShapeError` when the initializer is built (JAX: when called).
"""
from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

import numpy as _np

from . import random as _random
from .errors import ShapeError
from .frontend import numpy as fnp

__all__ = ["Initializer", "zeros", "ones", "constant", "uniform", "normal", "truncated_normal", "variance_scaling",
           "glorot_uniform", "glorot_normal", "xavier_uniform", "xavier_normal", "lecun_uniform", "lecun_normal",
           "he_uniform", "he_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "delta_orthogonal"]

_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")
# the standard deviation of a standard normal truncated to (-2, 2): sqrt(1 - 4 phi(2) / (2 Phi(2) - 1))
_TRUNC_STD = 0.87962566103423978


@runtime_checkable
class Initializer(Protocol):
    """What the builders return: `init(key, shape, dtype=None) -> array`."""

    def __call__(self, key, shape, dtype=None): ...


def _shape(shape, name: str) -> tuple:
    return _random._sample_shape(shape, name, "frame.nn.initializers")


def _float(dtype, name: str) -> str:
    return _random._float_dtype(dtype, name, "frame.nn.initializers")


# Scale factors are fnp.asarray(value, dtype): rounded to dtype as JAX's jnp.array(value, dtype), traced or not.


def zeros(key, shape, dtype=None):
    """Zeros of `shape` (the key is ignored), as jax.nn.initializers.zeros."""
    return fnp.zeros(_shape(shape, "zeros"), "float64" if dtype is None else dtype)


def ones(key, shape, dtype=None):
    """Ones of `shape` (the key is ignored), as jax.nn.initializers.ones."""
    return fnp.ones(_shape(shape, "ones"), "float64" if dtype is None else dtype)


def constant(value, dtype=None):
    """An initializer filling `shape` with `value`, as jax.nn.initializers.constant."""
    def init(key, shape, dtype=dtype):
        return fnp.full(_shape(shape, "constant"), value, "float64" if dtype is None else dtype)
    return init


def uniform(scale=1e-2, dtype=None):
    """An initializer drawing uniformly from [0, scale), as jax.nn.initializers.uniform."""
    def init(key, shape, dtype=dtype):
        dtype = _float(dtype, "uniform")
        return _random.uniform(key, _shape(shape, "uniform"), dtype) * fnp.asarray(scale, dtype)
    return init


def normal(stddev=1e-2, dtype=None):
    """An initializer drawing normals of mean 0 and standard deviation `stddev`, as jax.nn.initializers.normal."""
    def init(key, shape, dtype=dtype):
        dtype = _float(dtype, "normal")
        return _random.normal(key, _shape(shape, "normal"), dtype) * fnp.asarray(stddev, dtype)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """An initializer drawing standard normals truncated to (lower, upper), times `stddev` (no correction for the
    truncation's smaller spread), as jax.nn.initializers.truncated_normal."""
    def init(key, shape, dtype=dtype):
        dtype = _float(dtype, "truncated_normal")
        z = _random.truncated_normal(key, lower, upper, _shape(shape, "truncated_normal"), dtype)
        return z * fnp.asarray(stddev, dtype)
    return init


def _axes_size(shape: tuple, axes, what: str, name: str) -> int:
    rank = len(shape)
    for a in ((axes,) if isinstance(axes, (int, _np.integer)) else tuple(axes)):
        if not -rank <= int(a) < rank:
            raise ShapeError(f"frame.nn.initializers.{name}: {what} {axes} is out of range for shape {shape}")
    if isinstance(axes, (int, _np.integer)):
        return shape[int(axes)]
    return math.prod(shape[int(a)] for a in axes)


def _compute_fans(shape: tuple, in_axis, out_axis, batch_axis, name: str) -> tuple:
    """(fan_in, fan_out): the in and out sizes, each times the receptive field (the product of the axes that are
    none of in, out and batch), with JAX's float arithmetic."""
    if isinstance(in_axis, (int, _np.integer)) and in_axis == -2 and len(shape) <= 1:
        raise ShapeError(f"frame.nn.initializers.{name}: needs a weights shape of rank >= 2 to find the fans with "
                         f"the default in_axis=-2, got shape {shape}; pass in_axis explicitly")
    in_size = _axes_size(shape, in_axis, "in_axis", name)
    out_size = _axes_size(shape, out_axis, "out_axis", name)
    batch_size = _axes_size(shape, batch_axis, "batch_axis", name)
    if 0 in (in_size, out_size, batch_size):
        raise ShapeError(f"frame.nn.initializers.{name}: the in, out and batch sizes must be > 0 (the scale divides "
                         f"by them), got shape {shape}")
    receptive = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive, out_size * receptive


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(), dtype=None, *,
                     _name="variance_scaling"):
    """An initializer of variance scale / n, n the fan per `mode` ("fan_in", "fan_out", "fan_avg": their mean,
    "fan_geo_avg": their geometric mean), drawn from `distribution`: "truncated_normal" (standard normal truncated
    to (-2, 2), rescaled to unit variance), "normal" or "uniform" (on [-sqrt(3 var), sqrt(3 var))); as
    jax.nn.initializers.variance_scaling. Axes not in in_axis, out_axis or batch_axis form the receptive field."""
    if mode not in _MODES:
        raise ShapeError(f"frame.nn.initializers.{_name}: mode must be one of {', '.join(_MODES)}; got {mode!r}")
    if distribution not in _DISTRIBUTIONS:
        raise ShapeError(f"frame.nn.initializers.{_name}: distribution must be one of {', '.join(_DISTRIBUTIONS)}; "
                         f"got {distribution!r}")

    def init(key, shape, dtype=dtype):
        dtype = _float(dtype, _name)
        shape = _shape(shape, _name)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis, _name)
        denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                       "fan_geo_avg": (fan_in * fan_out) ** 0.5}[mode]
        # the variance is rounded to dtype first, and everything after is dtype arithmetic, as in JAX
        variance = fnp.asarray(scale / denominator, dtype)
        if distribution == "truncated_normal":
            stddev = fnp.sqrt(variance) / _np.array(_TRUNC_STD, dtype)
            return _random.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "normal":
            return _random.normal(key, shape, dtype) * fnp.sqrt(variance)
        return _random.uniform(key, shape, dtype, -1) * fnp.sqrt(_np.array(3, dtype) * variance)
    return init


def _fan_based(scale, mode, distribution, name, doc):
    def builder(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype, _name=name)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = (f"{doc}: variance_scaling({scale}, {mode!r}, {distribution!r}), as "
                       f"jax.nn.initializers.{name}.")
    return builder


glorot_uniform = _fan_based(1.0, "fan_avg", "uniform", "glorot_uniform", "The Glorot (Xavier) uniform initializer")
glorot_normal = _fan_based(1.0, "fan_avg", "truncated_normal", "glorot_normal",
                           "The Glorot (Xavier) normal initializer")
lecun_uniform = _fan_based(1.0, "fan_in", "uniform", "lecun_uniform", "The LeCun uniform initializer")
lecun_normal = _fan_based(1.0, "fan_in", "truncated_normal", "lecun_normal", "The LeCun normal initializer")
he_uniform = _fan_based(2.0, "fan_in", "uniform", "he_uniform", "The He (Kaiming) uniform initializer")
he_normal = _fan_based(2.0, "fan_in", "truncated_normal", "he_normal", "The He (Kaiming) normal initializer")
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def _orthogonal(key, shape: tuple, dtype: str, scale, column_axis: int, name: str):
    if len(shape) < 2:
        raise ShapeError(f"frame.nn.initializers.{name}: needs a shape of rank >= 2, got {shape}")
    if not -len(shape) <= column_axis < len(shape):
        raise ShapeError(f"frame.nn.initializers.{name}: column_axis {column_axis} is out of range for shape {shape}")
    if 0 in shape:
        return _np.zeros(shape, dtype)
    n_cols = shape[column_axis]
    rest = shape[:column_axis % len(shape)] + shape[column_axis % len(shape) + 1:]
    # the other axes flattened into rows: orthonormal columns (or rows, when there are fewer rows than columns)
    q = _random.orthogonal(key, math.prod(rest), (), dtype, n_cols)
    q = fnp.moveaxis(fnp.reshape(q, rest + (n_cols,)), -1, column_axis)
    return fnp.asarray(scale, dtype) * q


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer of `scale` times a Haar-random matrix with orthonormal columns along `column_axis` (the other
    axes flattened into rows; orthonormal rows if there are fewer rows than columns), as
    jax.nn.initializers.orthogonal. Needs a shape of rank >= 2."""
    def init(key, shape, dtype=dtype):
        return _orthogonal(key, _shape(shape, "orthogonal"), _float(dtype, "orthogonal"), scale, column_axis,
                           "orthogonal")
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer of 3-, 4- or 5-d convolution kernels (spatial..., in, out), in <= out: zeros except at the
    spatial centre ((k - 1) // 2 on each spatial axis), which holds `orthogonal(scale, column_axis)` of shape
    (in, out); as jax.nn.initializers.delta_orthogonal (Xiao et al. 2018)."""
    def init(key, shape, dtype=dtype):
        dtype = _float(dtype, "delta_orthogonal")
        shape = _shape(shape, "delta_orthogonal")
        if len(shape) not in (3, 4, 5):
            raise ShapeError(f"frame.nn.initializers.delta_orthogonal: needs a 3-, 4- or 5-d shape, got {shape}")
        if shape[-1] < shape[-2]:
            raise ShapeError(f"frame.nn.initializers.delta_orthogonal: needs fan_in <= fan_out (shape[-2] <= "
                             f"shape[-1]), got shape {shape}")
        ortho = _orthogonal(key, shape[-2:], dtype, scale, column_axis, "delta_orthogonal")
        if 0 in shape[:-2]:
            return _np.zeros(shape, dtype)   # no centre to write (JAX drops the out-of-bounds update)
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return fnp.at(_np.zeros(shape, dtype))[centre].set(ortho)
    return init
