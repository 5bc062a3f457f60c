"""`from_jax` rules for convolution and pooling: JAX primitives that carry their geometry as parameters.

- `conv_general_dilated` imports as frame's `conv` when its dimension numbers are frame's (and
  PyTorch's) layout: operand (N, C, *spatial), kernel (O, I, *spatial), result (N, C, *spatial), i.e.
  every spec the identity permutation (lax's default for `dimension_numbers=None`, and the strings
  'NCH'/'OIH', 'NCHW'/'OIHW', 'NCDHW'/'OIDHW'). Other layouts (NHWC, HWIO, ...) are refused by name
  rather than transposed silently; `batch_group_count` > 1 is refused (frame's conv has feature
  groups only). Strides, padding (negative crops, as in lax), both dilations and
  `feature_group_count` are the op's attributes.
- `reduce_window_max` imports as `max_pool` over the trailing axes whose window is not trivial
  (leading axes need window 1, stride 1, no padding), padding >= 0, no base or window dilation: the
  same max over the same -inf-padded windows, and JAX's derivative (the first maximum of a window).
- `reduce_window_sum` imports as `avg_pool` times the window size, with the same padding, strides and
  base dilation (lax's `base_dilation` is the op's lhs_dilation); window dilation is refused. The
  window sum is then the mean's rounding times the size: equal to the last bit for power-of-two
  windows, within one rounding otherwise (as dot_general's summation order differs from XLA's).

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> Value; `PARAMETERS`: the audit of
each parameter (jax_audit's vocabulary). Both are merged into jax_import's tables.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..errors import FrameError
from .jax_audit import _SHARDING, _operand_dtype, _precision_level, checked, implemented


def _identity_specs(value, eqn) -> bool:
    """Dimension numbers in frame's layout: lhs, rhs and out specs all (0, 1, 2, ...)."""
    if value is None:
        return True
    rank = len(eqn.invars[0].aval.shape)
    return all(tuple(spec) == tuple(range(rank)) for spec in (value.lhs_spec, value.rhs_spec, value.out_spec))


def _conv_general_dilated(imp, eqn, lhs, rhs):
    params = eqn.params
    if not _identity_specs(params["dimension_numbers"], eqn):   # the audit checks it; a direct call too
        raise FrameError("frame's conv takes the NC<spatial>/OI<spatial> layout only")
    padding = tuple((int(lo), int(hi)) for lo, hi in params["padding"])
    return imp.node("conv", [lhs, rhs], strides=tuple(int(s) for s in params["window_strides"]),
                    lo=tuple(lo for lo, _ in padding), hi=tuple(hi for _, hi in padding),
                    lhs_dilation=tuple(int(d) for d in params["lhs_dilation"]),
                    rhs_dilation=tuple(int(d) for d in params["rhs_dilation"]),
                    groups=int(params["feature_group_count"]))


def _pooled_axes(eqn) -> int:
    """The first axis of the pooled trailing block: every axis before it has window 1, stride 1, no
    padding and no dilation. At least the last axis is pooled."""
    p = eqn.params
    rank = len(p["window_dimensions"])
    first = rank - 1
    for axis in range(rank):
        trivial = (int(p["window_dimensions"][axis]) == 1 and int(p["window_strides"][axis]) == 1
                   and tuple(p["padding"][axis]) == (0, 0) and int(p["base_dilation"][axis]) == 1)
        if not trivial:
            first = axis
            break
    return first


def _window_attrs(eqn, first: int) -> dict:
    p = eqn.params
    pads = [tuple(int(v) for v in pair) for pair in p["padding"][first:]]
    return {"window": tuple(int(k) for k in p["window_dimensions"][first:]),
            "strides": tuple(int(s) for s in p["window_strides"][first:]),
            "lo": tuple(lo for lo, _ in pads), "hi": tuple(hi for _, hi in pads)}


def _reduce_window_max(imp, eqn, x):
    if any(int(d) != 1 for d in eqn.params["base_dilation"]):
        raise FrameError("frame's max_pool has no base (input) dilation")
    return imp.node("max_pool", [x], **_window_attrs(eqn, _pooled_axes(eqn)))


def _reduce_window_sum(imp, eqn, x):
    first = _pooled_axes(eqn)
    attrs = _window_attrs(eqn, first)
    dilation = tuple(int(d) for d in eqn.params["base_dilation"][first:])
    if any(d != 1 for d in dilation):
        attrs["lhs_dilation"] = dilation
    mean = imp.node("avg_pool", [x], **attrs)
    size = imp.constant(np.asarray(math.prod(attrs["window"]), x.type.dtype))
    return imp.node("mul", [mean, size])


def _no_window_dilation(value, eqn) -> bool:
    return all(int(d) == 1 for d in value)


def _non_negative_padding(value, eqn) -> bool:
    return all(int(lo) >= 0 and int(hi) >= 0 for lo, hi in value)


TRANSLATIONS: dict[str, Callable] = {"conv_general_dilated": _conv_general_dilated,
                                     "reduce_window_max": _reduce_window_max,
                                     "reduce_window_sum": _reduce_window_sum}

_WINDOW = {
    "window_dimensions": implemented("the pooling op's window over the trailing block of axes from the first "
                                     "windowed, strided, padded or dilated one (frame's pooling ops pool the last "
                                     "len(window) axes; the axes before it are untouched)"),
    "window_strides": implemented("the pooling op's strides over the pooled axes"),
    "window_dilation": checked("frame's pooling windows are dense: only window_dilation 1 imports",
                               _no_window_dilation),
}
PARAMETERS: dict[str, dict] = {
    "conv_general_dilated": {
        "dimension_numbers": checked("frame's conv takes PyTorch's layout, NC<spatial> operand, OI<spatial> kernel, "
                                     "NC<spatial> result (lax's default; 'NCHW'/'OIHW'/'NCHW' and their 1-D and 3-D "
                                     "forms); other layouts (NHWC, HWIO, ...) are refused, transpose them in the "
                                     "JAX function", _identity_specs),
        "window_strides": implemented("the conv's strides"),
        "padding": implemented("the conv's lo/hi per spatial axis (negative values crop, as in lax)"),
        "lhs_dilation": implemented("the conv's lhs_dilation (a transposed convolution's stride)"),
        "rhs_dilation": implemented("the conv's rhs_dilation (the kernel's dilation)"),
        "feature_group_count": implemented("the conv's groups"),
        "batch_group_count": checked("frame's conv groups features only; batch_group_count > 1 (what lax's "
                                     "grouped weight gradients use) is refused", lambda value, eqn: int(value) == 1),
        "precision": checked("a dot algorithm preset prescribes input and accumulation types frame does not use; "
                             "the Precision levels are accepted: frame computes at the operands' full precision",
                             _precision_level),
        "preferred_element_type": checked("an accumulation/output type other than the operands' dtype",
                                          _operand_dtype),
        "out_sharding": _SHARDING},
    "reduce_window_max": {**_WINDOW,
                          "padding": checked("max_pool pads with -inf, as reduce_window_max; negative padding "
                                             "(cropping) is refused", _non_negative_padding),
                          "base_dilation": checked("frame's max_pool has no base dilation",
                                                   _no_window_dilation)},
    "reduce_window_sum": {**_WINDOW,
                          "padding": implemented("avg_pool's lo/hi (zeros; negative values crop)"),
                          "base_dilation": implemented("avg_pool's lhs_dilation")},
}
