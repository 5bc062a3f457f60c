"""Op cases for the convolution and pooling family (frame/ops/conv.py).

The references are direct loops over output positions and window taps (the definitions, written
independently of the im2col kernels): a conv case covers 1-D, 2-D and 3-D, groups, strides, both
dilations and padding (negative padding crops, as the gradient convolutions need). Pool inputs are
uniform random floats, so windows have no ties and central differences stay away from max_pool's
kinks; ties are checked against JAX in tests/nn/test_pooling.py.

`STRATEGIES` are the hypothesis strategies of tests/runtime/test_eager_compiled_agree.py for these
ops (merged into tests/ops/strategies.py's EXAMPLES).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.ops.cases import OpCase, _ins, _u


def _spatial(attrs: dict, nd: int):
    get = lambda k, d: tuple(attrs.get(k) or (d,) * nd)   # noqa: E731
    return get("strides", 1), get("lo", 0), get("hi", 0), get("lhs_dilation", 1), get("rhs_dilation", 1)


def _dilate_pad_reference(x, nd, a, lo, hi, fill=0.0):
    """lax.pad semantics in plain numpy: interior zeros, then lo/hi (negative crops)."""
    lead, spatial = x.shape[:-nd], x.shape[-nd:]
    dil = [0 if n == 0 else (n - 1) * ai + 1 for n, ai in zip(spatial, a)]
    spread = np.zeros(lead + tuple(dil), x.dtype)
    spread[(Ellipsis,) + tuple(slice(None, None, ai) for ai in a)] = x
    widths = [(0, 0)] * len(lead) + [(max(l, 0), max(h, 0)) for l, h in zip(lo, hi)]
    padded = np.pad(spread, widths, constant_values=fill)
    return padded[(Ellipsis,) + tuple(slice(max(-l, 0), padded.shape[len(lead) + i] - max(-h, 0))
                                      for i, (l, h) in enumerate(zip(lo, hi)))]


def conv_reference(x, w, groups=1, **attrs):
    nd = x.ndim - 2
    s, lo, hi, a, d = _spatial(attrs, nd)
    xp = _dilate_pad_reference(x.astype(np.float64), nd, a, lo, hi)
    kernel = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - ((kernel[i] - 1) * d[i] + 1)) // s[i] + 1 for i in range(nd)]
    n, c = x.shape[:2]
    c_out = w.shape[0]
    cg, og = c // groups, c_out // groups
    out = np.zeros((n, c_out, *out_sp))
    for pos in itertools.product(*map(range, out_sp)):
        for tap in itertools.product(*map(range, kernel)):
            at = tuple(p * si + t * di for p, si, t, di in zip(pos, s, tap, d))
            for g in range(groups):
                patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + at]           # (N, C_g)
                taps_w = w[(slice(g * og, (g + 1) * og), slice(None)) + tap]                  # (O_g, C_g)
                out[(slice(None), slice(g * og, (g + 1) * og)) + pos] += patch @ taps_w.T
    return out.astype(x.dtype)


def _windows(x, window, attrs, fill):
    nd = len(window)
    s, lo, hi, a, _ = _spatial(attrs, nd)
    xp = _dilate_pad_reference(x.astype(np.float64), nd, a, lo, hi, fill)
    out_sp = [(xp.shape[x.ndim - nd + i] - window[i]) // s[i] + 1 for i in range(nd)]
    for pos in itertools.product(*map(range, out_sp)):
        start = [p * si for p, si in zip(pos, s)]
        patch = xp[(Ellipsis,) + tuple(slice(b, b + k) for b, k in zip(start, window))]
        yield pos, patch.reshape(patch.shape[:x.ndim - nd] + (-1,)), out_sp


def _pool_reference(reduce, fill):
    def reference(x, window, **attrs):
        out = None
        for pos, patch, out_sp in _windows(x, window, attrs, fill):
            if out is None:
                out = np.zeros(x.shape[:x.ndim - len(window)] + tuple(out_sp))
            out[(Ellipsis,) + pos] = reduce(patch)
        return out.astype(x.dtype) if out.dtype != np.int32 else out
    return reference


def _argmax_reference(x, window, **attrs):
    out = None
    for pos, patch, out_sp in _windows(x, window, attrs, -np.inf):
        if out is None:
            out = np.zeros(x.shape[:x.ndim - len(window)] + tuple(out_sp), np.int32)
        out[(Ellipsis,) + pos] = np.argmax(patch, axis=-1)
    return out


def _scatter_reference(index, g, window, shape, **attrs):
    nd = len(window)
    s, lo, hi, _, _ = _spatial(attrs, nd)
    lead = g.shape[:g.ndim - nd]
    padded = np.zeros(lead + tuple(n + l + h for n, l, h in zip(shape, lo, hi)))
    for pos in itertools.product(*map(range, g.shape[g.ndim - nd:])):
        for i, tap in enumerate(itertools.product(*map(range, window))):
            at = (Ellipsis,) + tuple(p * si + t for p, si, t in zip(pos, s, tap))
            padded[at] += np.where(index[(Ellipsis,) + pos] == i, g[(Ellipsis,) + pos], 0.0)
    return padded[(Ellipsis,) + tuple(slice(l, l + n) for l, n in zip(lo, shape))].astype(g.dtype)


def _select_reference(index, t, window, shape, **attrs):
    out = np.zeros(index.shape)
    for pos, patch, _ in _windows(t, window, attrs, 0.0):
        chosen = np.take_along_axis(patch, index[(Ellipsis,) + pos][..., None].astype(np.int64), axis=-1)[..., 0]
        out[(Ellipsis,) + pos] = chosen
    return out.astype(t.dtype)


def _index(window, *pooled_shape):
    k = math.prod(window)
    return lambda rng, dt: rng.integers(0, k, pooled_shape).astype(np.int32)


def _conv(x_shape, w_shape, label, **attrs):
    return OpCase("conv", _ins(_u(*x_shape), _u(*w_shape)), conv_reference, attrs, wrt=(0, 1), label=label)


CONV_CASES = [
    _conv((2, 3, 6), (4, 3, 3), "1d"),
    _conv((2, 2, 7), (2, 2, 2), "1d-stride-pad-dilation", strides=(2,), lo=(1,), hi=(2,), rhs_dilation=(2,)),
    _conv((2, 3, 5, 4), (4, 3, 3, 2), "2d"),
    _conv((2, 4, 5, 5), (6, 2, 3, 3), "2d-groups-stride-pad", strides=(2, 1), lo=(1, 1), hi=(1, 0), groups=2),
    _conv((1, 2, 4, 3), (2, 1, 2, 2), "2d-lhs-dilation-crop", lo=(1, 0), hi=(-1, 1), lhs_dilation=(2, 3), groups=2),
    _conv((1, 2, 3, 4, 3), (2, 2, 2, 2, 2), "3d", strides=(1, 2, 1), lo=(0, 1, 1), hi=(1, 0, 1)),
    # conv_kernel's other schedules (frame/ops/conv.py conv_schedule): one GEMM per tap (8 channels,
    # stride 1), and one GEMM per output position (a batch of 8, a window larger than the output).
    _conv((1, 8, 4, 3), (2, 8, 2, 2), "taps-schedule", lo=(1, 0), hi=(0, 1), rhs_dilation=(1, 2)),
    _conv((8, 1, 4, 4), (2, 1, 3, 3), "positions-schedule", strides=(1, 1)),
]

POOL_CASES = [
    OpCase("avg_pool", _ins(_u(2, 2, 6)), _pool_reference(lambda p: p.mean(-1), 0.0), {"window": (2,)}, label="1d"),
    OpCase("avg_pool", _ins(_u(2, 2, 5, 4)), _pool_reference(lambda p: p.mean(-1), 0.0),
           {"window": (3, 2), "strides": (2, 1), "lo": (1, 0), "hi": (1, 1)}, label="2d-overlap-pad"),
    OpCase("avg_pool", _ins(_u(2, 4, 3)), _pool_reference(lambda p: p.mean(-1), 0.0),
           {"window": (2, 2), "strides": (1, 2), "lo": (1, 1), "hi": (0, 1), "lhs_dilation": (2, 1)},
           label="2d-lhs-dilation"),
    OpCase("max_pool", _ins(_u(2, 2, 6)), _pool_reference(lambda p: p.max(-1), -np.inf), {"window": (2,)},
           label="1d", smooth=False),
    OpCase("max_pool", _ins(_u(2, 2, 4, 4)), _pool_reference(lambda p: p.max(-1), -np.inf),
           {"window": (2, 2), "strides": (2, 2)}, label="2d", smooth=False),
    OpCase("max_pool", _ins(_u(1, 2, 5, 4)), _pool_reference(lambda p: p.max(-1), -np.inf),
           {"window": (3, 2), "strides": (2, 1), "lo": (1, 0), "hi": (1, 1)}, label="2d-overlap-pad", smooth=False),
]

_ROUTE = {"window": (3, 2), "strides": (2, 1), "lo": (1, 0), "hi": (1, 1)}
INTERNAL_CASES = [
    OpCase("max_pool_argmax_internal", _ins(_u(2, 2, 5, 4)), _argmax_reference, _ROUTE, wrt=()),
    OpCase("max_pool_argmax_internal", _ins(_u(2, 6)), _argmax_reference, {"window": (2,), "strides": (2,)},
           wrt=(), label="1d"),
    OpCase("max_pool_scatter_internal", _ins(_index((3, 2), 2, 2, 3, 4), _u(2, 2, 3, 4)), _scatter_reference,
           {**_ROUTE, "shape": (5, 4)}, wrt=(1,)),
    OpCase("max_pool_scatter_internal", _ins(_index((2,), 2, 3), _u(2, 3)), _scatter_reference,
           {"window": (2,), "strides": (2,), "shape": (6,)}, wrt=(1,), label="1d"),
    OpCase("max_pool_select_internal", _ins(_index((3, 2), 2, 2, 3, 4), _u(2, 2, 5, 4)), _select_reference,
           {**_ROUTE, "shape": (5, 4)}, wrt=(1,)),
    OpCase("max_pool_select_internal", _ins(_index((2,), 2, 3), _u(2, 6)), _select_reference,
           {"window": (2,), "strides": (2,), "shape": (6,)}, wrt=(1,), label="1d"),
]

# heaviside_surrogate: its derivative checks are ARCH-066's narrow exception (the surrogate's, not the
# step's: tests/nn/test_heaviside.py checks the closed form and central differences of sigmoid(alpha x)).
HEAVISIDE_CASES = [
    OpCase("heaviside_surrogate", _ins(_u(3, 4)), lambda x, alpha: (x >= 0).astype(x.dtype), {"alpha": 4.0},
           label="2d"),
    OpCase("heaviside_surrogate", _ins(_u()), lambda x, alpha: (x >= 0).astype(x.dtype), {"alpha": 1.5},
           label="rank0"),
]

CASES = CONV_CASES + POOL_CASES + INTERNAL_CASES + HEAVISIDE_CASES


# -- hypothesis strategies (eager vs compiled bit identity) ------------------------------------------
_DTYPES = st.sampled_from(["float32", "float64"])


@st.composite
def _conv_example(draw):
    """Small convolutions with any of the attributes; some draws have mismatched channels or a kernel
    that does not fit (the shape rule must refuse them in both paths)."""
    nd = draw(st.integers(1, 3))
    dtype = draw(_DTYPES)
    groups = draw(st.integers(1, 2))
    n, cg, og = draw(st.integers(0, 2)), draw(st.integers(0, 2)), draw(st.integers(1, 2))
    spatial = draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd))
    kernel = draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd))
    c_w = cg + draw(st.sampled_from([0, 0, 0, 1]))   # sometimes the wrong channel count
    pick = lambda lo, hi: tuple(draw(st.lists(st.integers(lo, hi), min_size=nd, max_size=nd)))   # noqa: E731
    attrs = {"strides": pick(1, 2), "lo": pick(-1, 2), "hi": pick(-1, 2), "lhs_dilation": pick(1, 2),
             "rhs_dilation": pick(1, 2), "groups": groups}
    x = draw(hnp.arrays(dtype, (n, cg * groups, *spatial)))
    w = draw(hnp.arrays(dtype, (og * groups, c_w, *kernel)))
    return [x, w], attrs


@st.composite
def _pool_example(draw, op):
    nd = draw(st.integers(1, 2))
    dtype = draw(_DTYPES)
    lead = tuple(draw(st.lists(st.integers(0, 2), min_size=0, max_size=2)))
    spatial = tuple(draw(st.lists(st.integers(1, 5), min_size=nd, max_size=nd)))
    window = tuple(draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd)))
    pick = lambda lo, hi: tuple(draw(st.lists(st.integers(lo, hi), min_size=nd, max_size=nd)))   # noqa: E731
    attrs = {"window": window, "strides": pick(1, 3), "lo": pick(0, 1), "hi": pick(0, 1)}
    if op == "avg_pool" and draw(st.booleans()):
        attrs["lhs_dilation"] = pick(1, 2)
    x = draw(hnp.arrays(dtype, lead + spatial))
    if op in ("max_pool", "avg_pool", "max_pool_argmax_internal"):
        return [x], attrs
    from frame.ops.conv import output_spatial, window_params   # the pooled shape, to draw a fitting index
    p = window_params(op, attrs, nd)
    try:
        pooled = output_spatial(op, spatial, window, p, "window")
    except Exception:   # noqa: BLE001 - the window does not fit: any index, the shape rule refuses
        pooled = spatial
    index = draw(hnp.arrays("int32", lead + pooled, elements=st.integers(0, math.prod(window) - 1)))
    operand = draw(hnp.arrays(dtype, lead + pooled)) if op == "max_pool_scatter_internal" else x
    return [index, operand], {**attrs, "shape": spatial}


@st.composite
def _heaviside_example(draw):
    dtype = draw(_DTYPES)
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    alpha = draw(st.sampled_from([4.0, 0.5, 25.0, 0.0, -1.0]))    # 0 and -1: refused by the shape rule
    return [draw(hnp.arrays(dtype, shape))], {"alpha": alpha}


STRATEGIES = {
    "conv": _conv_example(),
    "heaviside_surrogate": _heaviside_example(),
    **{op: _pool_example(op) for op in ("avg_pool", "max_pool", "max_pool_argmax_internal",
                                         "max_pool_scatter_internal", "max_pool_select_internal")},
}
