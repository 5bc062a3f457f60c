"""frame.nn's pooling and resampling against PyTorch-equivalent references in numpy (torch is not installed:
loops over windows, as torch.nn.functional documents max_pool/avg_pool/interpolate) and against
jax.lax.reduce_window: values, gradients (max_pool's at ties, where the cotangent goes to each window's
first maximum as in JAX), second derivatives, vmap, and the errors."""
from __future__ import annotations

import itertools

import jax
import numpy as np
import pytest
from jax import lax

import frame
import frame.nn as nn
import frame.numpy as fnp
from frame import ShapeError


def torch_pool_reference(x, kernel, stride, padding, kind, count_include_pad=True):
    """torch's max_pool{1,2}d / avg_pool{1,2}d (floor mode): windows over x padded with -inf (max) or 0 (avg)."""
    nd = len(kernel)
    lead = x.shape[:-nd]
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, [(0, 0)] * len(lead) + [(p, p) for p in padding], constant_values=fill)
    inside = np.pad(np.ones(x.shape[-nd:]), [(p, p) for p in padding])
    out_sp = [(L + 2 * p - k) // s + 1 for L, p, k, s in zip(x.shape[-nd:], padding, kernel, stride)]
    out = np.zeros(lead + tuple(out_sp))
    for pos in itertools.product(*map(range, out_sp)):
        window = tuple(slice(p * s, p * s + k) for p, s, k in zip(pos, stride, kernel))
        patch = xp[(Ellipsis,) + window].reshape(lead + (-1,))
        if kind == "max":
            out[(Ellipsis,) + pos] = patch.max(-1)
        else:
            count = np.prod(kernel) if count_include_pad else inside[window].sum()
            out[(Ellipsis,) + pos] = patch.sum(-1) / count
    return out


POOL_CONFIGS = [
    ((2, 3, 9), (3,), None, (1,)),
    ((2, 3, 8), (2,), (1,), (0,)),
    ((2, 2, 7, 6), (2, 2), None, (0, 0)),
    ((1, 2, 7, 6), (3, 2), (2, 1), (1, 1)),
    ((3, 5, 5), (3, 3), (2, 2), (1, 0)),       # unbatched (C, H, W), as torch accepts
]


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("shape,kernel,stride,padding", POOL_CONFIGS)
def test_pooling_matches_the_torch_definition_and_reduce_window(kind, shape, kernel, stride, padding):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    fn = nn.max_pool if kind == "max" else nn.avg_pool
    y = fn(x, kernel if len(kernel) > 1 else kernel[0], stride=stride, padding=padding)
    want = torch_pool_reference(x, kernel, stride or kernel, padding, kind)
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)
    lead = len(shape) - len(kernel)
    pads = [(0, 0)] * lead + [(p, p) for p in padding]
    with jax.enable_x64(True):
        if kind == "max":
            ref = lax.reduce_window(x, -np.inf, lax.max, (1,) * lead + kernel, (1,) * lead + (stride or kernel), pads)
        else:
            ref = lax.reduce_window(x, 0.0, lax.add, (1,) * lead + kernel, (1,) * lead + (stride or kernel), pads)
            ref = ref / np.prod(kernel)
    np.testing.assert_allclose(y, np.asarray(ref), rtol=1e-12, atol=1e-12)


def test_avg_pool_without_the_padding_in_the_count():
    x = np.random.default_rng(1).standard_normal((2, 3, 6, 5))
    y = nn.avg_pool(x, 3, stride=2, padding=1, count_include_pad=False)
    np.testing.assert_allclose(y, torch_pool_reference(x, (3, 3), (2, 2), (1, 1), "avg", False), rtol=1e-12)
    g = frame.grad(lambda x: fnp.sum(nn.avg_pool(x, 3, stride=2, padding=1, count_include_pad=False) ** 2))(x)
    assert g.shape == x.shape and np.isfinite(g).all()


def _reduce_window_max(x, kernel, stride, padding):
    lead = x.ndim - len(kernel)
    return lax.reduce_window(x, -np.inf, lax.max, (1,) * lead + kernel, (1,) * lead + stride,
                             [(0, 0)] * lead + [(p, p) for p in padding])


@pytest.mark.parametrize("kernel,stride,padding", [((2, 2), (2, 2), (0, 0)), ((3, 3), (1, 1), (1, 1)),
                                                   ((3, 2), (2, 1), (1, 0))])
def test_max_pool_gradient_at_ties_goes_where_jax_sends_it(kernel, stride, padding):
    """Values from {0, 1}: most windows hold several maxima, and overlapping windows share them."""
    rng = np.random.default_rng(2)
    x = rng.choice([0.0, 1.0], (2, 2, 6, 5))
    # Integer cotangents: sums of overlapping windows' shares are exact in any order, so equality is bitwise.
    w = rng.integers(-4, 5, nn.max_pool(x, kernel, stride, padding).shape).astype(np.float64)
    g = frame.grad(lambda x: fnp.sum(nn.max_pool(x, kernel, stride, padding) * w))(x)
    with jax.enable_x64(True):
        jg = jax.grad(lambda x: (_reduce_window_max(x, kernel, stride, padding) * w).sum())(x)
    np.testing.assert_array_equal(g, np.asarray(jg))
    # The first maximum of each window in row-major order gets it: for 2x2 windows of all ones, the top left.
    if kernel == stride == (2, 2):
        ones = frame.grad(lambda x: fnp.sum(nn.max_pool(x, 2)))(np.ones((1, 1, 4, 4)))
        np.testing.assert_array_equal(ones[0, 0], np.tile([[1.0, 0.0], [0.0, 0.0]], (2, 2)))


def test_pooling_second_derivatives_and_forward_mode_match_jax():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 2, 7, 6))
    w = rng.standard_normal((2, 2, 4, 6))
    v = rng.standard_normal(x.shape)

    def loss(x):
        return fnp.sum(nn.max_pool(x, 3, stride=(2, 1), padding=1) ** 2 * w[..., :6]) + \
            fnp.sum(nn.avg_pool(x, (3, 2), stride=(2, 1), padding=(1, 0)) ** 3)

    def jloss(x):
        m = _reduce_window_max(x, (3, 3), (2, 1), (1, 1))
        a = lax.reduce_window(x, 0.0, lax.add, (1, 1, 3, 2), (1, 1, 2, 1), [(0, 0), (0, 0), (1, 1), (0, 0)]) / 6.0
        return (m ** 2 * w[..., :6]).sum() + (a ** 3).sum()

    hvp = frame.grad(lambda x: fnp.sum(frame.grad(loss)(x) * v))(x)
    _, tangent = frame.jvp(loss, (x,), (v,))
    with jax.enable_x64(True):
        jhvp = jax.jit(jax.grad(lambda x: (jax.grad(jloss)(x) * v).sum()))(x)
        _, jtangent = jax.jvp(jloss, (x,), (v,))
    np.testing.assert_allclose(hvp, np.asarray(jhvp), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(tangent, float(jtangent), rtol=1e-11)


def test_vmap_and_compiled_pooling():
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((3, 2, 2, 6, 6)).astype("float32")

    def f(x):
        return nn.max_pool(x, 2) + nn.avg_pool(x, 2)

    np.testing.assert_array_equal(frame.vmap(f)(xs), np.stack([f(x) for x in xs]))
    np.testing.assert_array_equal(frame.function(f)(xs[0]), f(xs[0]))
    g = frame.vmap(frame.grad(lambda x: fnp.sum(nn.max_pool(x, 2) ** 2)))(xs)
    np.testing.assert_array_equal(g, np.stack([frame.grad(lambda x: fnp.sum(nn.max_pool(x, 2) ** 2))(x) for x in xs]))


def test_global_pools():
    x = np.random.default_rng(5).standard_normal((2, 3, 4, 5))
    np.testing.assert_allclose(nn.global_avg_pool(x), x.mean(axis=(2, 3)))
    np.testing.assert_array_equal(nn.global_max_pool(x), x.max(axis=(2, 3)))
    assert nn.global_avg_pool(x, keepdims=True).shape == (2, 3, 1, 1)
    g = frame.grad(lambda x: fnp.sum(nn.global_avg_pool(x[:, :, :, :, None][..., 0])))(x)
    np.testing.assert_allclose(g, np.full(x.shape, 1 / 20))


def torch_interpolate_reference(x, scale, mode):
    """torch.nn.functional.interpolate(x, scale_factor=scale, mode, align_corners=False), per axis."""
    nd = x.ndim - 2
    scales = scale if isinstance(scale, tuple) else (scale,) * nd
    y = x
    for axis, s in enumerate(scales):
        ax = 2 + axis
        n = y.shape[ax]
        n_out = int(np.floor(n * s))
        out = []
        for i in range(n_out):
            if mode == "nearest":
                out.append(np.take(y, min(int(np.floor(i / s)), n - 1), axis=ax))
            else:
                src = max((i + 0.5) / s - 0.5, 0.0)
                i0 = min(int(np.floor(src)), n - 1)
                i1 = min(i0 + 1, n - 1)
                lam = src - i0
                out.append((1 - lam) * np.take(y, i0, axis=ax) + lam * np.take(y, i1, axis=ax))
        y = np.stack(out, axis=ax)
    return y


@pytest.mark.parametrize("shape,scale,mode", [
    ((2, 3, 5), 2, "nearest"), ((2, 3, 5), 3, "linear"), ((1, 2, 4, 3), 2, "nearest"), ((1, 2, 4, 3), 2, "linear"),
    ((1, 2, 4, 3), (2, 3), "linear"), ((1, 2, 5), 1.5, "nearest"), ((1, 2, 5), 2.5, "linear"),
    ((1, 1, 2, 3, 2), 2, "linear")])
def test_upsample_matches_the_torch_definition(shape, scale, mode):
    x = np.random.default_rng(6).standard_normal(shape)
    y = nn.upsample(x, scale, mode)
    np.testing.assert_allclose(y, torch_interpolate_reference(x, scale, mode), rtol=1e-12, atol=1e-12)


def test_upsample_linear_known_values_and_gradient():
    # torch.nn.functional.interpolate(torch.tensor([[[1., 2., 3., 4.]]]), scale_factor=2, mode='linear')
    y = nn.upsample(np.array([[[1.0, 2.0, 3.0, 4.0]]]), 2, "linear")
    np.testing.assert_allclose(y[0, 0], [1.0, 1.25, 1.75, 2.25, 2.75, 3.25, 3.75, 4.0])
    # jax.image.resize's linear upsampling uses the same half-pixel centres (edges clamped).
    x = np.random.default_rng(7).standard_normal((1, 2, 4, 3))
    with jax.enable_x64(True):
        ref = jax.image.resize(x, (1, 2, 8, 6), "linear")
    np.testing.assert_allclose(nn.upsample(x, 2, "linear"), np.asarray(ref), rtol=1e-12, atol=1e-12)
    g = frame.grad(lambda x: fnp.sum(nn.upsample(x, 2, "nearest")))(x)
    np.testing.assert_array_equal(g, np.full(x.shape, 4.0))


@pytest.mark.parametrize("call,pattern", [
    (lambda: nn.max_pool(np.ones((1, 2, 5)), 7), r"window \(size 7.*does not fit"),
    (lambda: nn.max_pool(np.ones((1, 2, 5)), 2, padding=2), r"at most half the kernel size"),
    (lambda: nn.avg_pool(np.ones((1, 2, 5, 5)), (2, 2, 2, 2, 2)), r"at least one spatial axis|rank"),
    (lambda: nn.avg_pool(np.ones((1, 2, 5)), 0), r"kernel_size must be >= 1"),
    (lambda: nn.max_pool(np.ones((1, 2, 5), "int64"), 2), r"'max_pool' needs a float operand"),
    (lambda: nn.upsample(np.ones((1, 2, 5)), 0), r"scale_factor must be a positive number"),
    (lambda: nn.upsample(np.ones((1, 2, 5)), 2, "cubic"), r"mode must be 'nearest' or 'linear'"),
    (lambda: nn.global_avg_pool(np.ones((3, 4))), r"at least one spatial axis"),
])
def test_pooling_errors_name_the_problem(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()
