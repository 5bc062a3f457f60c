"""`frame.lax`: the commonly used part of `jax.lax`, so code written against `from jax import lax` runs on
frame by changing the import (`import frame.lax as lax`).

Every function composes frame.numpy functions or existing ops, so it runs eagerly on numpy arrays, traces
under `frame.function` and differentiates to any order. Signatures and semantics are lax's, not numpy's:

- binary elementwise functions take operands of one dtype and one shape (a rank-0 operand broadcasts;
  a Python scalar takes the other operand's dtype); anything else raises ShapeError, where lax raises
  TypeError. `div` of integers rounds towards zero and `rem` has the dividend's sign (C's rules);
  `round` rounds half away from zero unless `rounding_method=RoundingMethod.TO_NEAREST_EVEN`.
- `pad` takes `(lo, hi, interior)` per axis, negative `lo`/`hi` cropping; `dynamic_slice` and friends clamp
  their (possibly traced) start indices into range as lax does; `dot_general`/`conv_general_dilated` take
  lax's dimension numbers; `precision=` is accepted and changes nothing, `preferred_element_type=` casts
  the result.
- control flow (`cond`, `switch`, `while_loop`, `fori_loop`, `scan`, `associative_scan`, `stop_gradient`)
  is frame's own; `map` is a `scan`.
- `reduce_window` covers add/max/min reducers (`add`/`max`/`min` here, frame.numpy's or `operator.add`)
  with string or explicit padding and base dilation, on frame's pooling ops; `reduce` takes the
  add/mul/max/min/bitwise computations.
- `gather`, the scatters and `index_take` take lax's general dimension numbers (batching dimensions
  included) and `GatherScatterMode`s, spelled out as integer index arrays on frame's gather/scatter ops.
- `custom_root` and `custom_linear_solve` differentiate implicitly (reverse mode, first order, one array
  operand), so the solver inside may be a `while_loop` that reverse mode cannot enter.

Not covered (they would need new ops): `batch_group_count`, `reduce_window`'s `window_dilation` and
arbitrary reducers; `GatherScatterMode.ONE_HOT`.

Layout: `_elementwise`, `_shape`, `_reduce` (reductions, sorts, reduce_window), `_dot` (dot_general,
convolutions), `_gather` (gather, scatters) and `_implicit` (custom_root, custom_linear_solve) hold the
functions, `_common` lax's operand rules, `linalg` jax.lax.linalg's functions.
"""
from __future__ import annotations

from ..frontend.control import cond, fori_loop, scan, switch, while_loop
from ..frontend.sequence import associative_scan
from ..frontend.transforms import stop_gradient
from . import linalg
from ._elementwise import (  # noqa: A004  (lax's names shadow builtins)
    add, sub, mul, div, rem, pow, integer_pow, neg, sign, abs, exp, exp2, log, log1p, expm1, sqrt, rsqrt,
    cbrt, tanh, logistic, sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, asinh, acosh, atanh, erf, erfc,
    erf_inv, lgamma, digamma, igamma, igammac, square, reciprocal, max, min, clamp, select, nextafter, floor,
    ceil, round, RoundingMethod, is_finite, eq, ne, lt, le, gt, ge, bitwise_not, bitwise_and, bitwise_or,
    bitwise_xor, shift_left, shift_right_arithmetic, shift_right_logical, population_count, convert_element_type, real, imag, conj, complex,
    select_n, polygamma, zeta, betainc, bessel_i0e, bessel_i1e, clz, mulhi, reduce_precision, optimization_barrier)
from ._shape import (  # noqa: A004  (lax's names shadow builtins)
    reshape, broadcast, broadcast_in_dim, squeeze, expand_dims, transpose, rev, concatenate, pad, slice,
    slice_in_dim, index_in_dim, dynamic_slice, dynamic_update_slice, dynamic_slice_in_dim,
    dynamic_update_slice_in_dim, dynamic_index_in_dim, dynamic_update_index_in_dim, collapse, iota,
    broadcasted_iota, full, full_like, zeros_like_array, split, tile, empty, broadcast_to_rank, broadcast_shapes,
    stack, unstack)
from ._reduce import (  # noqa: A004  (lax's names shadow builtins)
    reduce_sum, reduce_max, reduce_min, reduce_prod, reduce_and, reduce_or, argmax, argmin, cumsum, cumprod,
    cummax, cummin, cumlogsumexp, sort, sort_key_val, top_k, reduce_window, padtype_to_pads, reduce, reduce_xor)
from ._gather import (
    GatherDimensionNumbers, ScatterDimensionNumbers, GatherScatterMode, gather, scatter, scatter_add, scatter_sub,
    scatter_mul, scatter_min, scatter_max, scatter_apply, index_take)
from ._dot import (  # noqa: A004  (lax's names shadow builtins)
    dot, dot_general, batch_matmul, conv_general_dilated, conv, conv_with_general_padding,
    conv_dimension_numbers, conv_transpose, conv_general_dilated_patches)
from ._implicit import custom_linear_solve, custom_root

__all__ = [
    # control
    "cond", "switch", "while_loop", "fori_loop", "scan", "map", "associative_scan", "stop_gradient",
    # elementwise
    "add", "sub", "mul", "div", "rem", "pow", "integer_pow", "neg", "sign", "abs", "exp", "exp2", "log", "log1p",
    "expm1", "sqrt", "rsqrt", "cbrt", "tanh", "logistic", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erf_inv", "lgamma", "digamma", "igamma", "igammac",
    "square", "reciprocal", "max", "min", "clamp", "select", "nextafter", "floor", "ceil", "round", "RoundingMethod",
    "is_finite", "eq", "ne", "lt", "le", "gt", "ge", "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "population_count",
    "convert_element_type", "real", "imag", "conj", "complex", "select_n", "polygamma", "zeta", "betainc",
    "bessel_i0e", "bessel_i1e", "clz", "mulhi", "reduce_precision", "optimization_barrier",
    # shape
    "reshape", "broadcast", "broadcast_in_dim", "squeeze", "expand_dims", "transpose", "rev", "concatenate", "pad",
    "slice", "slice_in_dim", "index_in_dim", "dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim",
    "dynamic_update_slice_in_dim", "dynamic_index_in_dim", "dynamic_update_index_in_dim", "collapse", "iota",
    "broadcasted_iota", "full", "full_like", "zeros_like_array", "split", "tile", "empty", "broadcast_to_rank",
    "broadcast_shapes", "stack", "unstack",
    # reductions and scans
    "reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_and", "reduce_or", "argmax", "argmin",
    "cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp", "sort", "sort_key_val", "top_k", "reduce_window",
    "reduce", "reduce_xor",
    # gather and scatter
    "GatherDimensionNumbers", "ScatterDimensionNumbers", "GatherScatterMode", "gather", "scatter", "scatter_add",
    "scatter_sub", "scatter_mul", "scatter_min", "scatter_max", "scatter_apply", "index_take",
    # linear algebra
    "dot", "dot_general", "batch_matmul", "conv_general_dilated", "conv", "conv_with_general_padding",
    "conv_dimension_numbers", "conv_transpose", "conv_general_dilated_patches", "padtype_to_pads", "linalg",
    # implicit differentiation
    "custom_linear_solve", "custom_root",
]


def map(f, xs, *, batch_size=None):  # noqa: A001  (lax's name)
    """lax.map: `f` over the leading axis of the pytree `xs`, results stacked (a scan without carry).
    `batch_size` changes no value and is accepted for lax's signature."""
    return scan(lambda carry, x: (carry, f(x)), (), xs)[1]
