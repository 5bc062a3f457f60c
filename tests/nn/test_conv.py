"""frame.nn.conv and conv_transpose against PyTorch-equivalent references written in numpy (torch is not
installed: the references are the definitions in torch.nn.functional's documentation, as loops) and
against jax.lax.conv_general_dilated; their derivatives (reverse to second order, forward, vmap)
against JAX; and the errors that name bad channels, groups and kernel sizes."""
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
import tests.ops.cases  # noqa: F401  (collects the case modules first: tests.ops.cases_conv imports it)

DN = {1: ("NCH", "OIH", "NCH"), 2: ("NCHW", "OIHW", "NCHW"), 3: ("NCDHW", "OIDHW", "NCDHW")}


def torch_conv_reference(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv{1,2,3}d by its definition: out[n, o, p] = bias[o] +
    sum_{c in o's group, k} x_padded[n, c, p * stride + k * dilation] w[o, c, k]."""
    nd = x.ndim - 2
    per = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd   # noqa: E731
    stride, dilation = per(stride), per(dilation)
    kernel = w.shape[2:]
    if padding == "same":
        total = [d * (k - 1) for d, k in zip(dilation, kernel)]
        pads = [(t // 2, t - t // 2) for t in total]
    elif padding == "valid":
        pads = [(0, 0)] * nd
    else:
        pads = [(p, p) for p in per(padding)]
    xp = np.pad(x, [(0, 0), (0, 0)] + pads)
    out_sp = [(xp.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    n, c_in = x.shape[:2]
    c_out = w.shape[0]
    cg, og = c_in // groups, c_out // groups
    out = np.zeros((n, c_out, *out_sp))
    for o in range(c_out):
        g = o // og
        for pos in itertools.product(*map(range, out_sp)):
            acc = np.zeros(n)
            for tap in itertools.product(*map(range, kernel)):
                at = tuple(p * s + t * d for p, s, t, d in zip(pos, stride, tap, dilation))
                acc += xp[(slice(None), slice(g * cg, (g + 1) * cg)) + at] @ w[(o, slice(None)) + tap]
            out[(slice(None), o) + pos] = acc + (0.0 if bias is None else bias[o])
    return out


def torch_conv_transpose_reference(x, w, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """torch.nn.functional.conv_transpose{1,2,3}d by its definition: every input element scatters
    x[n, c, i] * w[c, o, k] to position i * stride - padding + k * dilation of output channel o of c's group."""
    nd = x.ndim - 2
    per = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd   # noqa: E731
    stride, padding, extra, dilation = per(stride), per(padding), per(output_padding), per(dilation)
    kernel = w.shape[2:]
    n, c_in = x.shape[:2]
    cg, og = c_in // groups, w.shape[1]
    out_sp = [(L - 1) * s - 2 * p + d * (k - 1) + e + 1
              for L, s, p, d, k, e in zip(x.shape[2:], stride, padding, dilation, kernel, extra)]
    full = np.zeros((n, og * groups, *[o + 2 * p for o, p in zip(out_sp, padding)]))
    for c in range(c_in):
        g = c // cg
        for pos in itertools.product(*map(range, x.shape[2:])):
            for tap in itertools.product(*map(range, kernel)):
                at = tuple(i * s + t * d for i, s, t, d in zip(pos, stride, tap, dilation))
                full[(slice(None), slice(g * og, (g + 1) * og)) + at] += np.outer(x[(slice(None), c) + pos],
                                                                                  w[(c, slice(None)) + tap])
    out = full[(Ellipsis,) + tuple(slice(p, p + o) for p, o in zip(padding, out_sp))]
    return out + (0.0 if bias is None else bias.reshape((-1,) + (1,) * nd))


CONV_CONFIGS = [
    ((2, 3, 9), (4, 3, 3), dict(stride=2, padding=1)),
    ((2, 4, 8), (4, 1, 3), dict(padding="same", dilation=2, groups=4)),
    ((1, 3, 6, 5), (6, 3, 3, 3), dict(padding=1)),
    ((2, 4, 7, 6), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)),
    ((1, 2, 5, 6), (3, 2, 2, 4), dict(padding="same")),
    ((1, 2, 5, 6), (3, 2, 3, 3), dict(padding="valid", stride=2)),
    ((1, 2, 4, 5, 4), (2, 1, 2, 3, 2), dict(stride=(1, 2, 1), padding=(1, 1, 0), groups=2)),
]


@pytest.mark.parametrize("x_shape,w_shape,kw", CONV_CONFIGS, ids=[f"{len(x) - 2}d-{i}" for i, (x, _, _) in
                                                                  enumerate(CONV_CONFIGS)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_conv_matches_the_torch_definition_and_lax(x_shape, w_shape, kw, dtype):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
    bias = rng.standard_normal(w_shape[0]).astype(dtype)
    y = nn.conv(x, w, bias, **kw)
    want = torch_conv_reference(x.astype(np.float64), w.astype(np.float64), bias.astype(np.float64), **kw)
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert y.dtype == np.dtype(dtype) and y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=tol, atol=tol)
    nd = x.ndim - 2
    padding = kw.get("padding", 0)
    pads = padding.upper() if isinstance(padding, str) else [(p, p) for p in (padding if isinstance(padding, tuple)
                                                                               else (padding,) * nd)]
    per = lambda v: v if isinstance(v, tuple) else (v,) * nd   # noqa: E731
    with jax.enable_x64(dtype == "float64"):
        ref = lax.conv_general_dilated(x, w, per(kw.get("stride", 1)), pads, rhs_dilation=per(kw.get("dilation", 1)),
                                       dimension_numbers=DN[nd], feature_group_count=kw.get("groups", 1),
                                       precision=lax.Precision.HIGHEST)
    np.testing.assert_allclose(y - bias.reshape((-1,) + (1,) * nd), np.asarray(ref), rtol=tol, atol=tol)


TRANSPOSE_CONFIGS = [
    ((2, 3, 5), (3, 2, 3), dict(stride=2, padding=1, output_padding=1)),
    ((1, 4, 4, 3), (4, 1, 3, 2), dict(stride=(2, 3), padding=(1, 0), groups=2, dilation=(1, 2))),
    ((1, 2, 3, 3), (2, 3, 2, 2), dict(stride=2)),
    ((1, 2, 2, 3, 2), (2, 2, 2, 2, 3), dict(stride=(2, 1, 2), padding=(0, 1, 1), output_padding=(1, 0, 0))),
]


@pytest.mark.parametrize("x_shape,w_shape,kw", TRANSPOSE_CONFIGS)
def test_conv_transpose_matches_the_torch_definition_and_the_conv_input_gradient(x_shape, w_shape, kw):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    bias = rng.standard_normal(w_shape[1] * kw.get("groups", 1))
    y = nn.conv_transpose(x, w, bias, **kw)
    want = torch_conv_transpose_reference(x, w, bias, **kw)
    assert y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)
    # It is the VJP of the convolution with the same stride, padding, dilation and groups.
    nd = x.ndim - 2
    per = lambda v: v if isinstance(v, tuple) else (v,) * nd   # noqa: E731
    with jax.enable_x64(True):
        def forward(z):
            return lax.conv_general_dilated(z, w, per(kw.get("stride", 1)), [(p, p) for p in per(kw.get("padding", 0))],
                                            rhs_dilation=per(kw.get("dilation", 1)), dimension_numbers=DN[nd],
                                            feature_group_count=kw.get("groups", 1))
        _, vjp = jax.vjp(forward, np.zeros(want.shape))
        np.testing.assert_allclose(y - bias.reshape((-1,) + (1,) * nd), np.asarray(vjp(x)[0]), rtol=1e-12, atol=1e-12)


def _lax_conv(kw, nd):
    per = lambda v: v if isinstance(v, tuple) else (v,) * nd   # noqa: E731

    def f(x, w):
        padding = kw.get("padding", 0)
        pads = padding.upper() if isinstance(padding, str) else [(p, p) for p in per(padding)]
        return lax.conv_general_dilated(x, w, per(kw.get("stride", 1)), pads, rhs_dilation=per(kw.get("dilation", 1)),
                                        dimension_numbers=DN[nd], feature_group_count=kw.get("groups", 1))
    return f


# Configs 1, 3 and 4 (groups, strides, dilation, 'same') run by default; the plainer 0 and 2 are slow-marked.
HVP_CONFIGS = [pytest.param(*c, marks=() if i in (1, 3, 4) else pytest.mark.slow) for i, c in enumerate(CONV_CONFIGS[:5])]


@pytest.mark.parametrize("x_shape,w_shape,kw", HVP_CONFIGS)
def test_conv_gradients_and_hessian_vector_products_match_jax(x_shape, w_shape, kw):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    weights = rng.standard_normal(nn.conv(x, w, **kw).shape)
    vx, vw = rng.standard_normal(x_shape), rng.standard_normal(w_shape)

    def loss(x, w):
        return fnp.sum(fnp.tanh(nn.conv(x, w, **kw)) * weights)

    def hvp(x, w):
        gx, gw = frame.grad(loss, argnums=(0, 1))(x, w)
        return fnp.sum(gx * vx) + fnp.sum(gw * vw)

    grads = frame.grad(loss, argnums=(0, 1))(x, w)
    second = frame.grad(hvp, argnums=(0, 1))(x, w)
    lax_conv = _lax_conv(kw, x.ndim - 2)
    with jax.enable_x64(True):
        jloss = lambda x, w: (jax.numpy.tanh(lax_conv(x, w)) * weights).sum()   # noqa: E731
        # jitted: eager JAX compiles every conv of the derivatives separately (seconds per test)
        jgrads = jax.jit(jax.grad(jloss, argnums=(0, 1)))(x, w)
        def jhvp(x, w):
            return sum((g * v).sum() for g, v in zip(jax.grad(jloss, argnums=(0, 1))(x, w), (vx, vw)))
        jsecond = jax.jit(jax.grad(jhvp, argnums=(0, 1)))(x, w)
    for got, want in zip(list(grads) + list(second), list(jgrads) + list(jsecond)):
        np.testing.assert_allclose(got, np.asarray(want), rtol=1e-10, atol=1e-12)


def test_conv_forward_mode_and_third_order_match_jax():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 2, 6, 5)), rng.standard_normal((3, 2, 3, 2))
    tx, tw = rng.standard_normal(x.shape), rng.standard_normal(w.shape)
    kw = dict(stride=(2, 1), padding=1)
    _, tangent = frame.jvp(lambda x, w: nn.conv(x, w, **kw), (x, w), (tx, tw))
    lax_conv = _lax_conv(kw, 2)

    def cube(x):   # a third derivative in x of sum(conv(x, w)^3): convolutions of convolutions of convolutions
        return fnp.sum(nn.conv(x, w, **kw) ** 3)

    third = frame.grad(lambda x: fnp.sum(frame.grad(lambda x: fnp.sum(frame.grad(cube)(x) * tx))(x) * tx))(x)
    with jax.enable_x64(True):
        _, jtangent = jax.jvp(lax_conv, (x, w), (tx, tw))
        jcube = lambda x: (lax_conv(x, w) ** 3).sum()   # noqa: E731
        jthird = jax.jit(jax.grad(lambda x: (jax.grad(lambda x: (jax.grad(jcube)(x) * tx).sum())(x) * tx).sum()))(x)
    np.testing.assert_allclose(tangent, np.asarray(jtangent), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(third, np.asarray(jthird), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, 0)])
def test_vmap_of_conv_over_inputs_kernels_or_both_equals_a_loop(in_axes):
    rng = np.random.default_rng(4)
    B = 3
    xs = rng.standard_normal((B, 2, 4, 6, 5))
    ws = rng.standard_normal((B, 6, 2, 3, 2))
    x_arg = xs if in_axes[0] == 0 else (np.moveaxis(xs, 0, 1) if in_axes[0] == 1 else xs[0])
    w_arg = ws if in_axes[1] == 0 else ws[0]

    def f(x, w):
        return nn.conv(x, w, stride=(1, 2), padding=1, groups=2)

    got = frame.vmap(f, in_axes=in_axes)(x_arg, w_arg)
    want = np.stack([f(xs[b] if in_axes[0] is not None else xs[0], ws[b] if in_axes[1] is not None else ws[0])
                     for b in range(B)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    graph = frame.trace(frame.vmap(f, in_axes=in_axes), x_arg, w_arg)
    assert [n.op for n in graph.nodes].count("conv") == 1       # one convolution, not one per example


SCHEDULE_CONFIGS = [   # (x, w, strides, lo, hi, rhs_dilation, groups)
    ((2, 8, 6, 5), (3, 8, 3, 2), (1, 1), (1, 0), (1, 2), (1, 2), 1),
    ((1, 16, 5, 7), (4, 8, 2, 3), (1, 1), (0, 1), (2, 0), (2, 1), 2),
    ((3, 8, 9), (2, 8, 3), (1,), (1,), (1,), (3,), 1),
    ((1, 8, 3, 4, 3), (2, 8, 2, 2, 2), (1, 1, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1), 1),
    ((8, 3, 6, 6), (4, 3, 5, 4), (1, 2), (0, 1), (1, 0), (1, 1), 1),
    ((9, 2, 7), (3, 2, 3), (2,), (1,), (0,), (2,), 1),
    ((8, 1, 4, 5, 4), (2, 1, 3, 4, 3), (1, 1, 1), (0, 0, 1), (0, 0, 0), (1, 1, 1), 1),
]


@pytest.mark.parametrize("x_shape,w_shape,strides,lo,hi,dilation,groups", SCHEDULE_CONFIGS)
def test_every_schedule_of_the_conv_kernel_gives_the_definition(x_shape, w_shape, strides, lo, hi, dilation, groups):
    """conv_kernel picks one of three schedules by shape (conv_schedule); each, where it applies
    (taps: stride 1; positions: one group), computes the same convolution."""
    from frame.ops import conv as conv_ops
    from tests.ops.cases_conv import conv_reference

    rng = np.random.default_rng(6)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    nd = len(strides)
    attrs = dict(strides=strides, lo=lo, hi=hi, rhs_dilation=dilation)
    want = conv_reference(x, w, groups=groups, **attrs)
    p = conv_ops.window_params("conv", attrs, nd)
    xp = conv_ops.dilate_pad(x, nd, (1,) * nd, lo, hi)
    out = want.shape[2:]
    applicable = (["im2col"] + (["taps"] if all(s == 1 for s in strides) else [])
                  + (["positions"] if groups == 1 else []))
    for name in applicable:
        got = conv_ops.SCHEDULES[name](xp, w, p["strides"], p["rhs_dilation"], out, groups)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)
    assert conv_ops.conv_schedule(x.shape, w.shape, strides, out, groups) in applicable
    np.testing.assert_allclose(conv_ops.conv_kernel(x, w, groups=groups, **attrs), want, rtol=1e-12, atol=1e-12)


def test_the_benchmark_network_uses_each_schedule():
    """The CNN step's five convolutions (benchmarks/cnn_step.py) take the schedule measured fastest for them."""
    from frame.ops.conv import conv_schedule

    assert conv_schedule((32, 1, 64, 64), (16, 1, 3, 3), (1, 1), (64, 64), 1) == "im2col"        # layer 1 (C_in = 1)
    assert conv_schedule((32, 16, 32, 32), (32, 16, 3, 3), (1, 1), (32, 32), 1) == "taps"        # layer 2
    assert conv_schedule((32, 32, 32, 32), (16, 32, 3, 3), (1, 1), (32, 32), 1) == "taps"        # its input gradient
    assert conv_schedule((16, 32, 32, 32), (32, 32, 32, 32), (1, 1), (3, 3), 1) == "positions"   # its weight gradient
    assert conv_schedule((1, 32, 64, 64), (16, 32, 64, 64), (1, 1), (3, 3), 1) == "im2col"       # layer 1's


def test_conv_compiled_equals_eager_bit_for_bit():
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((4, 3, 8, 8)).astype("float32"), rng.standard_normal((5, 3, 3, 3)).astype("float32")

    def f(x, w):
        return nn.conv_transpose(nn.conv(x, w, padding=1, stride=2), w, stride=2, output_padding=1)

    np.testing.assert_array_equal(frame.function(f)(x, w), f(x, w))


@pytest.mark.parametrize("call,pattern", [
    (lambda: nn.conv(np.ones((1, 4, 5)), np.ones((2, 3, 3))), r"conv.*groups=1.*w.shape\[1\] \(3\)"),
    (lambda: nn.conv(np.ones((1, 4, 5)), np.ones((3, 2, 3)), groups=2), r"C_out \(3\).*multiples of groups"),
    (lambda: nn.conv(np.ones((1, 4, 5)), np.ones((2, 4, 3)), groups=0), r"groups must be >= 1"),
    (lambda: nn.conv(np.ones((1, 2, 5)), np.ones((2, 2, 7))), r"kernel \(size 7.*does not fit.*\(5,\)"),
    (lambda: nn.conv(np.ones((1, 2, 5, 5)), np.ones((2, 2, 3))), r"same rank"),
    (lambda: nn.conv(np.ones((1, 2, 5)), np.ones((2, 2, 3)), padding="same", stride=2), r"'same' needs stride 1"),
    (lambda: nn.conv(np.ones((1, 2, 5)), np.ones((2, 2, 3)), padding="full"), r"padding must be"),
    (lambda: nn.conv(np.ones((1, 2, 5)), np.ones((2, 2, 3)), stride=0), r"stride must be >= 1"),
    (lambda: nn.conv(np.ones((1, 2, 5, 5)), np.ones((2, 2, 3, 3)), stride=(1, 1, 1)), r"stride must be an int or 2"),
    (lambda: nn.conv(np.ones((1, 2, 5)), np.ones((3, 2, 3)), bias=np.ones(2)), r"bias must have shape \(3,\)"),
    (lambda: nn.conv(np.ones((1, 2, 5), "float32"), np.ones((3, 2, 3))), r"'conv'.*float32.*float64"),
    (lambda: nn.conv(np.ones((1, 2, 5), "int64"), np.ones((3, 2, 3), "int64")), r"'conv' needs a float operand"),
    (lambda: nn.conv_transpose(np.ones((1, 2, 5)), np.ones((3, 2, 3))), r"w.shape\[0\] \(3\) must be x's channels"),
    (lambda: nn.conv_transpose(np.ones((1, 2, 5)), np.ones((2, 2, 3)), stride=2, output_padding=2),
     r"output_padding \(2,\) must be smaller"),
])
def test_bad_arguments_raise_shape_errors_naming_the_problem(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()
