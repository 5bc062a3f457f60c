"""frame.nn's torch.nn.functional per-rank names (conv1d.., max_pool1d.., avg_pool1d..), adaptive pooling,
interpolate, pad, unfold and fold: values against loop references of torch's documented definitions
(eagerly, traced, float32) and hand-worked values, against torch when it is installed, and first
derivatives against torch autograd (when installed) and JAX."""
import itertools

import numpy as np
import pytest

import frame
import frame.nn as nn
from frame.errors import ShapeError
from tests.nn.torch_cases import (Case, check_jax_derivatives, check_reference, check_torch, check_torch_grad,
                                  ids)

rng = np.random.default_rng(2)


def _out_size(n, k, s, p, d, ceil):
    room = n + 2 * p - d * (k - 1) - 1
    o = (-(-room // s) if ceil else room // s) + 1
    return o - 1 if ceil and (o - 1) * s >= n + p else o


def ref_pool(x, nd, k, s, p, d=1, ceil=False, kind="max", count_include_pad=True, divisor=None):
    """torch's max_poolNd / avg_poolNd, window by window."""
    k, s, p, d = ((v,) * nd if np.isscalar(v) else tuple(v) for v in (k, s or k, p, d))
    spatial = x.shape[-nd:]
    out = [_out_size(*a, ceil) for a in zip(spatial, k, s, p, d)]
    y = np.empty(x.shape[:-nd] + tuple(out))
    for pos in itertools.product(*map(range, out)):
        taps = [[o * ss - pp + j * dd for j in range(kk)] for o, ss, pp, dd, kk in zip(pos, s, p, d, k)]
        taps = [[i for i in t if 0 <= i < n] for t, n in zip(taps, spatial)]
        window = x[(Ellipsis,) + np.ix_(*taps)].reshape(x.shape[:-nd] + (-1,))
        if kind == "max":
            y[(Ellipsis,) + pos] = window.max(-1)
            continue
        count = 1
        for o, ss, pp, kk, n in zip(pos, s, p, k, spatial):
            start = o * ss - pp
            stop = min(start + kk, n + pp)
            count *= (stop - start) if count_include_pad else (min(stop, n) - max(start, 0))
        y[(Ellipsis,) + pos] = window.sum(-1) / (divisor or count)
    return y


def ref_adaptive(x, nd, size, kind):
    sizes = (size,) * nd if np.isscalar(size) else tuple(n if m is None else m for n, m in zip(x.shape[-nd:], size))
    y = np.empty(x.shape[:-nd] + sizes)
    for pos in itertools.product(*map(range, sizes)):
        window = tuple(slice(i * n // m, -(-(i + 1) * n // m)) for i, n, m in zip(pos, x.shape[-nd:], sizes))
        part = x[(Ellipsis,) + window].reshape(x.shape[:-nd] + (-1,))
        y[(Ellipsis,) + pos] = part.max(-1) if kind == "max" else part.mean(-1)
    return y


def _cubic(d, a=-0.75):
    d = abs(d)
    return ((a + 2) * d - (a + 3)) * d * d + 1 if d <= 1 else ((a * d - 5 * a) * d + 8 * a) * d - 4 * a


def ref_resample_axis(x, axis, m, mode, align_corners=False, scale=None):
    """One axis of torch's interpolate, output element by output element."""
    xs = np.moveaxis(x, axis, -1)
    n = xs.shape[-1]
    y = np.empty(xs.shape[:-1] + (m,))
    for i in range(m):
        if mode in ("nearest", "nearest-exact"):
            r = np.float32(1 / scale) if scale else np.float32(n) / np.float32(m)
            src = np.float32((i + 0.5) * np.float64(r)) if mode == "nearest-exact" else np.float32(i) * r
            y[..., i] = xs[..., min(int(np.floor(src)), n - 1)]
            continue
        if align_corners:
            src = i * (n - 1) / (m - 1) if m > 1 else 0.0
        else:
            src = (i + 0.5) * (1 / scale if scale else n / m) - 0.5
        if mode == "linear":
            src = max(src, 0.0)
            i0 = min(int(np.floor(src)), n - 1)
            t = min(src - i0, 1.0)
            y[..., i] = (1 - t) * xs[..., i0] + t * xs[..., min(i0 + 1, n - 1)]
        else:
            i0 = int(np.floor(src))
            t = src - i0
            y[..., i] = sum(_cubic(t - j) * xs[..., min(max(i0 + j, 0), n - 1)] for j in (-1, 0, 1, 2))
    return np.moveaxis(y, -1, axis)


def ref_interpolate(x, size, mode, align_corners=False, scales=None):
    """torch's interpolate axis by axis; an axis keeping its length is copied (by the linear modes; by
    bicubic only when no axis changes) unless a scale factor is given."""
    one = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    scales = (None,) * len(size) if scales is None else scales
    for axis, m, scale in zip(range(2, x.ndim), size, scales):
        if m != x.shape[axis] or one.startswith("nearest") or scale:
            x = ref_resample_axis(x, axis, m, one, align_corners, scale)
    return x


def ref_unfold(x, k, d=1, p=0, s=1):
    k, d, p, s = ((v, v) if np.isscalar(v) else v for v in (k, d, p, s))
    n, c, h, w = x.shape
    xp = np.pad(x, [(0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])])
    oh, ow = ((h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1, (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1)
    cols = np.zeros((n, c, k[0], k[1], oh, ow))
    for i, j, a, b in itertools.product(range(k[0]), range(k[1]), range(oh), range(ow)):
        cols[:, :, i, j, a, b] = xp[:, :, a * s[0] + i * d[0], b * s[1] + j * d[1]]
    return cols.reshape(n, c * k[0] * k[1], oh * ow)


def ref_fold(cols, size, k, d=1, p=0, s=1):
    k, d, p, s = ((v, v) if np.isscalar(v) else v for v in (k, d, p, s))
    n, ck, _ = cols.shape
    c = ck // (k[0] * k[1])
    oh, ow = ((size[0] + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1,
              (size[1] + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1)
    blocks = cols.reshape(n, c, k[0], k[1], oh, ow)
    out = np.zeros((n, c, size[0] + 2 * p[0], size[1] + 2 * p[1]))
    for i, j, a, b in itertools.product(range(k[0]), range(k[1]), range(oh), range(ow)):
        out[:, :, a * s[0] + i * d[0], b * s[1] + j * d[1]] += blocks[:, :, i, j, a, b]
    return out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]


def _cases():
    cases = []
    x1, x2, x3 = rng.normal(size=(2, 3, 9)), rng.normal(size=(2, 3, 7, 8)), rng.normal(size=(1, 2, 5, 6, 7))
    # conv aliases: `conv` itself on the batched input, with the batch axis added for unbatched input
    w1, b1 = rng.normal(size=(4, 3, 3)), rng.normal(size=4)
    w2 = rng.normal(size=(6, 1, 2, 3))
    w3 = rng.normal(size=(2, 2, 2, 2, 2))
    cases += [
        Case("conv1d", lambda a, w, b: nn.conv1d(a, w, b, 2, 1), lambda a, w, b: nn.conv(a, w, b, 2, 1),
             lambda F, a, w, b: F.conv1d(a, w, b, 2, 1), (x1, w1, b1), wrt=(0, 1, 2)),
        Case("conv1d-unbatched-same", lambda a, w: nn.conv1d(a, w, padding="same"),
             lambda a, w: np.asarray(nn.conv(a[None], w, padding="same"))[0],
             lambda F, a, w: F.conv1d(a, w, padding="same"), (x1[0], w1), wrt=(0, 1)),
        Case("conv2d-groups", lambda a, w: nn.conv2d(a, w, None, 1, 1, 1, 3), lambda a, w: nn.conv(a, w, None, 1, 1, 1, 3),
             lambda F, a, w: F.conv2d(a, w, None, 1, 1, 1, 3), (x2, w2), wrt=(0, 1)),
        Case("conv3d-unbatched", lambda a, w: nn.conv3d(a, w, stride=2),
             lambda a, w: np.asarray(nn.conv(a[None], w, stride=2))[0], lambda F, a, w: F.conv3d(a, w, stride=2),
             (x3[0], w3), wrt=(0, 1)),
        Case("conv_transpose1d", lambda a, w: nn.conv_transpose1d(a, w, None, 2, 1, 1),
             lambda a, w: nn.conv_transpose(a, w, None, 2, 1, 1), lambda F, a, w: F.conv_transpose1d(a, w, None, 2, 1, 1),
             (x1, rng.normal(size=(3, 2, 3))), wrt=(0, 1)),
        Case("conv_transpose2d-unbatched", lambda a, w: nn.conv_transpose2d(a, w, stride=(2, 1)),
             lambda a, w: np.asarray(nn.conv_transpose(a[None], w, stride=(2, 1)))[0],
             lambda F, a, w: F.conv_transpose2d(a, w, stride=(2, 1)), (x2[0], rng.normal(size=(3, 2, 2, 2))),
             wrt=(0, 1)),
        Case("conv_transpose3d", lambda a, w: nn.conv_transpose3d(a, w, stride=2, output_padding=1),
             lambda a, w: nn.conv_transpose(a, w, stride=2, output_padding=1),
             lambda F, a, w: F.conv_transpose3d(a, w, stride=2, output_padding=1), (x3, rng.normal(size=(2, 1, 2, 2, 2))),
             wrt=(0, 1)),
    ]
    # pools: every combination torch allows on one 1-D input, a few 2-D and 3-D ones
    for k, s, p, d, ceil in [(3, 2, 1, 1, True), (2, 3, 1, 1, True), (3, 1, 0, 2, False), (3, 2, 1, 2, True),
                             (2, None, 0, 1, False), (1, 2, 0, 1, True)]:
        tag = f"k{k}s{s}p{p}d{d}{'-ceil' if ceil else ''}"
        cases.append(Case(f"max_pool1d-{tag}", lambda a, k=k, s=s, p=p, d=d, c=ceil: nn.max_pool1d(a, k, s, p, d, c),
                          lambda a, k=k, s=s, p=p, d=d, c=ceil: ref_pool(a, 1, k, s, p, d, c),
                          lambda F, a, k=k, s=s, p=p, d=d, c=ceil: F.max_pool1d(a, k, s, p, d, c), (x1,)))
        if d == 1:
            for cip in (True, False):
                cases.append(Case(f"avg_pool1d-{tag}-cip{cip}",
                                  lambda a, k=k, s=s, p=p, c=ceil, i=cip: nn.avg_pool1d(a, k, s, p, c, i),
                                  lambda a, k=k, s=s, p=p, c=ceil, i=cip: ref_pool(a, 1, k, s, p, 1, c, "avg", i),
                                  lambda F, a, k=k, s=s, p=p, c=ceil, i=cip: F.avg_pool1d(a, k, s, p, c, i), (x1,)))
    cases += [
        Case("max_pool2d-dilated-ceil", lambda a: nn.max_pool2d(a, (3, 2), (2, 1), (1, 1), (2, 3), True),
             lambda a: ref_pool(a, 2, (3, 2), (2, 1), (1, 1), (2, 3), True),
             lambda F, a: F.max_pool2d(a, (3, 2), (2, 1), (1, 1), (2, 3), True), (x2,)),
        Case("max_pool2d-unbatched", lambda a: nn.max_pool2d(a, 2), lambda a: ref_pool(a, 2, 2, 2, 0),
             lambda F, a: F.max_pool2d(a, 2), (x2[0],)),
        Case("max_pool3d-ceil", lambda a: nn.max_pool3d(a, 2, 2, 1, 1, True), lambda a: ref_pool(a, 3, 2, 2, 1, 1, True),
             lambda F, a: F.max_pool3d(a, 2, 2, 1, 1, True), (x3,)),
        Case("avg_pool2d-divisor_override", lambda a: nn.avg_pool2d(a, (3, 2), 2, (1, 0), True, True, 5),
             lambda a: ref_pool(a, 2, (3, 2), 2, (1, 0), 1, True, "avg", divisor=5),
             lambda F, a: F.avg_pool2d(a, (3, 2), 2, (1, 0), True, True, 5), (x2,)),
        Case("avg_pool2d-ceil-excl", lambda a: nn.avg_pool2d(a, 3, 2, 1, True, False),
             lambda a: ref_pool(a, 2, 3, 2, 1, 1, True, "avg", False),
             lambda F, a: F.avg_pool2d(a, 3, 2, 1, True, False), (x2,)),
        Case("avg_pool3d-unbatched", lambda a: nn.avg_pool3d(a, (2, 3, 2), 1, (1, 1, 0)),
             lambda a: ref_pool(a, 3, (2, 3, 2), 1, (1, 1, 0), kind="avg"),
             lambda F, a: F.avg_pool3d(a, (2, 3, 2), 1, (1, 1, 0)), (x3[0],)),
    ]
    # adaptive pools: dividing and non-dividing sizes, None axes, unbatched input
    for name, nd, x, size in [("1d", 1, x1, 4), ("1d-up", 1, x1, 11), ("1d-divides", 1, x1, 3), ("2d", 2, x2, (3, 5)),
                              ("2d-None", 2, x2, (None, 3)), ("2d-unbatched", 2, x2[0], 5), ("3d", 3, x3, (2, 4, 3))]:
        for kind in ("avg", "max"):
            f = getattr(nn, f"adaptive_{kind}_pool{nd}d")
            cases.append(Case(f"adaptive_{kind}_pool{name}", lambda a, f=f, s=size: f(a, s),
                              lambda a, nd=nd, s=size, k=kind: ref_adaptive(a, nd, s, k),
                              lambda F, a, n=f.__name__, s=size: getattr(F, n)(a, s), (x,)))
    # interpolate
    for mode, x, size in [("nearest", x1, (5,)), ("nearest", x1, (13,)), ("nearest-exact", x1, (7,)),
                          ("nearest", x2, (5, 13)), ("nearest-exact", x3, (3, 7, 9)), ("linear", x1, (4,)),
                          ("linear", x1, (17,)), ("bilinear", x2, (5, 13)), ("bicubic", x2, (9, 5)),
                          ("bicubic", x2, (7, 11)), ("trilinear", x3, (3, 8, 7))]:
        for ac in ([None] if mode.startswith("nearest") else [False, True]):
            cases.append(Case(f"interpolate-{mode}-{'x'.join(map(str, size))}-ac{ac}",
                              lambda a, s=size, m=mode, c=ac: nn.interpolate(a, size=s, mode=m, align_corners=c),
                              lambda a, s=size, m=mode, c=ac: ref_interpolate(a, s, m, bool(c)),
                              lambda F, a, s=size, m=mode, c=ac: F.interpolate(a, size=s, mode=m, align_corners=c),
                              (x,)))
    for mode, x, sf in [("nearest", x1, 1.2), ("nearest", x1, 2.5), ("nearest-exact", x1, 0.7), ("linear", x1, 1.7),
                        ("bilinear", x2, (1.5, 0.6)), ("bicubic", x2, 1.3)]:
        sizes = [int(np.floor(n * s)) for n, s in zip(x.shape[2:], np.broadcast_to(sf, len(x.shape) - 2))]
        cases.append(Case(f"interpolate-{mode}-scale{sf}", lambda a, s=sf, m=mode: nn.interpolate(a, scale_factor=s, mode=m),
                          lambda a, s=sizes, m=mode, f=sf: ref_interpolate(a, s, m, False, np.broadcast_to(f, len(s))),
                          lambda F, a, s=sf, m=mode: F.interpolate(a, scale_factor=s, mode=m), (x,)))
    cases += [
        Case("interpolate-area", lambda a: nn.interpolate(a, size=(3, 5), mode="area"),
             lambda a: ref_adaptive(a, 2, (3, 5), "avg"), lambda F, a: F.interpolate(a, size=(3, 5), mode="area"), (x2,)),
        Case("interpolate-recompute", lambda a: nn.interpolate(a, scale_factor=1.7, mode="linear",
                                                               recompute_scale_factor=True),
             lambda a: ref_interpolate(a, (15,), "linear"),
             lambda F, a: F.interpolate(a, scale_factor=1.7, mode="linear", recompute_scale_factor=True), (x1,)),
    ]
    # pad: torch's last-axis-first widths, crops, every mode
    a4 = rng.normal(size=(2, 3, 5, 6))
    for p, mode in [((1, 2, 2, 1), "reflect"), ((-1, 2, 3, -2), "reflect"), ((2, 3, 1, 0), "replicate"),
                    ((-2, 3, 4, -1), "replicate"), ((1, 2, 3, 4), "circular"), ((-1, 3, 2, -2), "circular"),
                    ((1, 2, 3, 4, 1, 1, 0, 2), "constant"), ((-1, 2), "constant")]:
        cases.append(Case(f"pad-{mode}-{p}", lambda a, p=p, m=mode: nn.pad(a, p, m), lambda a, p=p, m=mode: ref_pad(a, p, m),
                          lambda F, a, p=p, m=mode: F.pad(a, p, m), (a4,)))
    cases += [
        Case("pad-value", lambda a: nn.pad(a, (1, 1), value=2.5), lambda a: ref_pad(a, (1, 1), "constant", 2.5),
             lambda F, a: F.pad(a, (1, 1), value=2.5), (a4,)),
        Case("pad-reflect-1d", lambda a: nn.pad(a, (2, 3), "reflect"), lambda a: ref_pad(a, (2, 3), "reflect"),
             lambda F, a: F.pad(a, (2, 3), "reflect"), (x1,)),
        Case("pad-circular-3d", lambda a: nn.pad(a, (1, 1, 2, 0, 1, 2), "circular"),
             lambda a: ref_pad(a, (1, 1, 2, 0, 1, 2), "circular"), lambda F, a: F.pad(a, (1, 1, 2, 0, 1, 2), "circular"),
             (x3,)),
    ]
    # unfold / fold
    for k, d, p, s in [((2, 3), 1, 0, 1), (3, (2, 1), 1, 2), ((2, 2), 2, (1, 2), (3, 2))]:
        cols = ref_unfold(x2, k, d, p, s)
        tag = f"k{k}d{d}p{p}s{s}".replace(" ", "")
        cases += [
            Case(f"unfold-{tag}", lambda a, k=k, d=d, p=p, s=s: nn.unfold(a, k, d, p, s),
                 lambda a, k=k, d=d, p=p, s=s: ref_unfold(a, k, d, p, s),
                 lambda F, a, k=k, d=d, p=p, s=s: F.unfold(a, k, d, p, s), (x2,)),
            Case(f"fold-{tag}", lambda a, k=k, d=d, p=p, s=s: nn.fold(a, (7, 8), k, d, p, s),
                 lambda a, k=k, d=d, p=p, s=s: ref_fold(a, (7, 8), k, d, p, s),
                 lambda F, a, k=k, d=d, p=p, s=s: F.fold(a, (7, 8), k, d, p, s), (rng.normal(size=cols.shape),)),
        ]
    cases += [
        Case("unfold-unbatched", lambda a: nn.unfold(a, 2), lambda a: ref_unfold(a[None], 2)[0],
             lambda F, a: F.unfold(a, 2), (x2[0],)),
        Case("fold-unbatched", lambda a: nn.fold(a, (7, 8), 2), lambda a: ref_fold(a[None], (7, 8), 2)[0],
             lambda F, a: F.fold(a, (7, 8), 2), (rng.normal(size=(12, 42)),)),
    ]
    return cases


def ref_pad(x, pad, mode, value=0.0):
    """torch's pad: reflect and replicate pad the input and then crop, circular crops and then wraps."""
    k = len(pad) // 2
    pairs = [(0, 0)] * (x.ndim - k) + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(k))]
    grow = [(max(a, 0), max(b, 0)) for a, b in pairs]
    crop = lambda y, off: y[tuple(slice(max(-a, 0), y.shape[i] - max(-b, 0)) for i, (a, b) in enumerate(pairs))]  # noqa: E731
    if mode == "circular":
        return np.pad(crop(x, 0), grow, mode="wrap")
    if mode == "constant":
        return np.pad(crop(x, 0), grow, constant_values=value)
    return crop(np.pad(x, grow, mode={"reflect": "reflect", "replicate": "edge"}[mode]), 0)


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_values_match_the_reference_eagerly_traced_and_in_float32(case):
    check_reference(case)


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_values_match_torch(case):
    check_torch(case)


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_gradients_match_torch_autograd(case):
    check_torch_grad(case)


# First derivatives against JAX: one case per function and mode.
JAX_CASES = [c for c in CASES if c.id in {
    "conv1d", "conv2d-groups", "conv_transpose3d", "max_pool1d-k3s2p1d1-ceil", "max_pool1d-k3s1p0d2",
    "max_pool2d-dilated-ceil", "avg_pool1d-k3s2p1d1-ceil-cipFalse", "avg_pool2d-divisor_override",
    "adaptive_avg_pool1d", "adaptive_max_pool2d", "adaptive_avg_pool3d", "interpolate-nearest-5x13-acNone",
    "interpolate-bilinear-5x13-acTrue", "interpolate-bicubic-9x5-acFalse", "interpolate-area",
    "pad-reflect-(-1, 2, 3, -2)", "pad-circular-(-1, 3, 2, -2)", "pad-replicate-(2, 3, 1, 0)",
    "unfold-k3d(2,1)p1s2", "fold-k(2,2)d2p(1,2)s(3,2)"}]


def test_every_jax_case_exists():
    assert len(JAX_CASES) == 20


@pytest.mark.parametrize("case", JAX_CASES, ids=ids(JAX_CASES))
def test_first_derivatives_match_jax(case):
    check_jax_derivatives(case)


def test_hand_worked_values():
    a = np.arange(6.0).reshape(1, 1, 6)
    # torch's pads of arange(6): reflect reads the uncropped input, circular wraps the cropped one
    assert nn.pad(a, (4, -3), "reflect").ravel().tolist() == [4, 3, 2, 1, 0, 1, 2]
    assert nn.pad(a, (-1, 3), "circular").ravel().tolist() == [1, 2, 3, 4, 5, 1, 2, 3]
    assert nn.pad(a, (3, -2), "replicate").ravel().tolist() == [0, 0, 0, 0, 1, 2, 3]
    assert nn.pad(a, (-2, 1), value=9.0).ravel().tolist() == [2, 3, 4, 5, 9]
    b = np.arange(3.0).reshape(1, 1, 3)
    np.testing.assert_allclose(nn.interpolate(b, size=5, mode="linear", align_corners=True).ravel(), [0, .5, 1, 1.5, 2])
    np.testing.assert_allclose(nn.interpolate(b, size=4, mode="linear").ravel(), [0, 0.625, 1.375, 2])
    # torch's nearest reads floor(i / 1.2) with scale_factor=1.2, though the length stays 3
    assert nn.interpolate(b, scale_factor=1.2).ravel().tolist() == [0, 0, 1]
    assert nn.interpolate(b, size=7).ravel().tolist() == [0, 0, 0, 1, 1, 2, 2]
    ints = nn.interpolate(np.arange(3).reshape(1, 1, 3), size=5)       # nearest takes any dtype
    assert ints.dtype == np.int64 and ints.ravel().tolist() == [0, 0, 1, 1, 2]
    assert nn.adaptive_avg_pool1d(np.arange(5.0).reshape(1, 1, 5), 3).ravel().tolist() == [0.5, 2.0, 3.5]
    assert nn.adaptive_max_pool1d(np.arange(5.0).reshape(1, 1, 5), 3).ravel().tolist() == [1, 3, 4]
    # ceil_mode adds a last window over [4, 6) of arange(5): max 4, avg 4 / 1 (the overflow is not counted)
    assert nn.max_pool1d(np.arange(5.0).reshape(1, 1, 5), 2, ceil_mode=True).ravel().tolist() == [1, 3, 4]
    assert nn.avg_pool1d(np.arange(5.0).reshape(1, 1, 5), 2, ceil_mode=True).ravel().tolist() == [0.5, 2.5, 4]


def test_fold_is_the_adjoint_of_unfold():
    x = rng.normal(size=(2, 3, 7, 8))
    args = ((3, 2), (1, 2), (1, 0), (2, 3))
    cols = nn.unfold(x, *args)
    y = rng.normal(size=cols.shape)
    np.testing.assert_allclose(np.sum(cols * y), np.sum(x * nn.fold(y, (7, 8), *args)), rtol=1e-12)
    g = frame.grad(lambda x: frame.numpy.sum(nn.unfold(x, *args) * y))(x)
    np.testing.assert_allclose(g, nn.fold(y, (7, 8), *args), rtol=1e-12)


@pytest.mark.parametrize("call, pattern", [
    (lambda: nn.conv2d(np.ones((1, 1, 2, 3, 3)), np.ones((1, 1, 1, 1, 1))), r"2 spatial axes \(rank 4 or 3\), got"),
    (lambda: nn.max_pool2d(np.ones((1, 1, 1, 4, 4)), 2), r"rank 4 or 3"),
    (lambda: nn.max_pool1d(np.ones((1, 1, 4)), 2, return_indices=True), "return_indices=True is not supported"),
    (lambda: nn.max_pool1d(np.ones((1, 1, 4)), 2, padding=2), "at most half the kernel size"),
    (lambda: nn.max_pool1d(np.ones((1, 1, 4)), 3, dilation=3), r"larger than the padded input"),
    (lambda: nn.avg_pool2d(np.ones((1, 1, 4, 4)), 2, divisor_override=0), "divisor_override must not be 0"),
    (lambda: nn.adaptive_avg_pool2d(np.ones((1, 1, 4, 4)), (2, 2, 2)), "output_size must be an int or 2"),
    (lambda: nn.adaptive_max_pool1d(np.ones((1, 1, 4)), 0), "must be positive"),
    (lambda: nn.adaptive_max_pool1d(np.ones((1, 1, 4)), 2, True), "return_indices=True is not supported"),
    (lambda: nn.interpolate(np.ones((1, 1, 4)), size=3, scale_factor=2), "exactly one of size and scale_factor"),
    (lambda: nn.interpolate(np.ones((1, 1, 4)), size=3, mode="bilinear"), r"mode 'bilinear' needs 4-D input"),
    (lambda: nn.interpolate(np.ones((1, 1, 4)), size=3, align_corners=True), "align_corners can only be set"),
    (lambda: nn.interpolate(np.ones((1, 1, 4)), size=3, mode="cubic"), "mode must be"),
    (lambda: nn.interpolate(np.ones((1, 1, 4, 4)), size=3, mode="bilinear", antialias=True), "antialias"),
    (lambda: nn.interpolate(np.ones((1, 1, 4)), scale_factor=0.1), "empty output"),
    (lambda: nn.interpolate(np.ones((1, 1, 4)), scale_factor=-1.0), "positive number"),
    (lambda: nn.interpolate(np.ones(4), size=2), "1 to 3 spatial axes"),
    (lambda: nn.interpolate(np.ones((1, 1, 4), np.int64), size=2, mode="linear"), "needs a float input"),
    (lambda: nn.pad(np.ones((2, 3)), (1, 2, 3)), "pairs"),
    (lambda: nn.pad(np.ones((2, 3)), (1, 1, 1, 1, 1, 1)), "at most one per axis"),
    (lambda: nn.pad(np.ones((1, 2, 3)), (1, 1), mode="symmetric"), "mode must be"),
    (lambda: nn.pad(np.ones((1, 2, 3)), (1, 1), mode="reflect", value=1.0), "doesn't take a value"),
    (lambda: nn.pad(np.ones((1, 1, 2, 3)), (1, 1), mode="reflect"), "need rank 2 or 3"),
    (lambda: nn.pad(np.ones((1, 2, 3)), (3, 0), mode="reflect"), "must be smaller than the padded axes"),
    (lambda: nn.pad(np.ones((1, 2, 3)), (4, 0), mode="circular"), "wraps around more than once"),
    (lambda: nn.pad(np.ones((1, 2, 3)), (-2, -2)), "crops more than the input"),
    (lambda: nn.unfold(np.ones((1, 1, 1, 2, 2)), 2), r"rank 4 or 3"),
    (lambda: nn.unfold(np.ones((1, 1, 2, 2)), 3), "does not fit"),
    (lambda: nn.fold(np.ones((1, 4, 5)), (3, 3), 2), r"must be \(N, C \* 4, 4\)"),
    (lambda: nn.fold(np.ones(4), (3, 3), 2), r"must be \(N, C \* kh \* kw, L\)"),
])
def test_bad_arguments_are_refused_by_name(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()
