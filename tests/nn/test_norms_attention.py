"""frame.nn's torch.nn.functional normalisations, small layers and scaled_dot_product_attention: values
against numpy formulas (eagerly, traced, float32), against torch when it is installed, and first
derivatives against torch autograd (when installed) and JAX."""
import numpy as np
import pytest
import scipy.special as sp

import frame
import frame.nn as nn
import frame.numpy as fnp
from frame.errors import ShapeError
from tests.nn.torch_cases import (Case, check_jax_derivatives, check_reference, check_torch, check_torch_grad,
                                  ids)

rng = np.random.default_rng(1)


def _normed(x, axes, eps):
    m, v = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


def _per_channel(p, ndim):
    return p.reshape((-1,) + (1,) * (ndim - 2))


def ref_group_norm(x, g, w=None, b=None, eps=1e-5):
    y = _normed(x.reshape(x.shape[0], g, -1), 2, eps).reshape(x.shape)
    y = y if w is None else y * _per_channel(w, x.ndim)
    return y if b is None else y + _per_channel(b, x.ndim)


def ref_lrn(x, size, alpha=1e-4, beta=0.75, k=1.0):
    c = x.shape[1]
    div = np.zeros_like(x)
    for ch in range(c):
        lo, hi = max(ch - size // 2, 0), min(ch + (size - 1) // 2, c - 1)
        div[:, ch] = (x[:, lo:hi + 1] ** 2).sum(1) / size
    return x / (k + alpha * div) ** beta


def ref_pixel_shuffle(x, r):
    *lead, c, h, w = x.shape
    out = np.zeros(tuple(lead) + (c // (r * r), h * r, w * r))
    for ch in range(c):
        i, j = divmod(ch % (r * r), r)
        out[..., ch // (r * r), i::r, j::r] = x[..., ch, :, :]
    return out


def ref_pixel_unshuffle(x, r):
    *lead, c, h, w = x.shape
    out = np.zeros(tuple(lead) + (c * r * r, h // r, w // r))
    for ch in range(c * r * r):
        i, j = divmod(ch % (r * r), r)
        out[..., ch, :, :] = x[..., ch // (r * r), i::r, j::r]
    return out


def ref_channel_shuffle(x, g):
    c = x.shape[1]
    return x[:, [(k % g) * (c // g) + k // g for k in range(c)]]


def ref_sdpa(q, k, v, mask=None, causal=False, scale=None):
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    logits = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        mask = np.tril(np.ones(logits.shape[-2:], bool))
    if mask is not None and mask.dtype == bool:
        logits = np.where(mask, logits, -np.inf)
    elif mask is not None:
        logits = logits + mask
    dead = np.all(logits == -np.inf, axis=-1, keepdims=True)
    p = np.where(dead, 0.0, sp.softmax(np.where(dead, 0.0, logits), axis=-1))
    return p @ v


def _cases():
    x = rng.normal(size=(2, 6, 3, 2))
    w6, b6 = rng.normal(size=6), rng.normal(size=6)
    rm, rv = rng.normal(size=6), rng.uniform(0.5, 2.0, size=6)
    wr = rng.normal(size=(3, 2))
    cases = [
        Case("rms_norm", lambda a, w: nn.rms_norm(a, (3, 2), w),
             lambda a, w: a / np.sqrt((a ** 2).mean(axis=(2, 3), keepdims=True) + np.finfo(a.dtype).eps) * w,
             lambda F, a, w: F.rms_norm(a, (3, 2), w), (x, wr), wrt=(0, 1)),
        Case("rms_norm-eps-no-weight", lambda a: nn.rms_norm(a, [2], eps=0.1),
             lambda a: a / np.sqrt((a ** 2).mean(axis=-1, keepdims=True) + 0.1),
             lambda F, a: F.rms_norm(a, [2], eps=0.1), (x,)),
        Case("group_norm", lambda a, w, b: nn.group_norm(a, 3, w, b), lambda a, w, b: ref_group_norm(a, 3, w, b),
             lambda F, a, w, b: F.group_norm(a, 3, w, b), (x, w6, b6), wrt=(0, 1, 2)),
        Case("group_norm-2d", lambda a: nn.group_norm(a, 2, eps=0.1), lambda a: ref_group_norm(a, 2, eps=0.1),
             lambda F, a: F.group_norm(a, 2, eps=0.1), (x[..., 0, 0],)),
        Case("instance_norm", lambda a, w, b: nn.instance_norm(a, weight=w, bias=b),
             lambda a, w, b: _normed(a, (2, 3), 1e-5) * _per_channel(w, 4) + _per_channel(b, 4),
             lambda F, a, w, b: F.instance_norm(a, weight=w, bias=b), (x, w6, b6), wrt=(0, 1, 2)),
        Case("instance_norm-running-stats", lambda a, m, v: nn.instance_norm(a, m, v, use_input_stats=False),
             lambda a, m, v: (a - _per_channel(m, 4)) / np.sqrt(_per_channel(v, 4) + 1e-5),
             lambda F, a, m, v: F.instance_norm(a, m, v, use_input_stats=False), (x, rm, rv), wrt=(0, 1, 2),
             torch_wrt=(0,)),
        Case("batch_norm-eval", lambda a, m, v, w, b: nn.batch_norm(a, m, v, w, b),
             lambda a, m, v, w, b: (a - _per_channel(m, 4)) / np.sqrt(_per_channel(v, 4) + 1e-5) * _per_channel(w, 4)
             + _per_channel(b, 4),
             lambda F, a, m, v, w, b: F.batch_norm(a, m, v, w, b), (x, rm, rv, w6, b6), wrt=(0, 1, 2, 3, 4),
             torch_wrt=(0, 3, 4)),
        Case("batch_norm-training", lambda a, m, v, w, b: nn.batch_norm(a, m, v, w, b, training=True, eps=0.01),
             lambda a, m, v, w, b: _normed(a, (0, 2, 3), 0.01) * _per_channel(w, 4) + _per_channel(b, 4),
             lambda F, a, m, v, w, b: F.batch_norm(a, m.clone(), v.clone(), w, b, training=True, eps=0.01),
             (x, rm, rv, w6, b6), wrt=(0, 3, 4)),
        Case("batch_norm-training-2d-no-buffers", lambda a: nn.batch_norm(a, None, None, training=True),
             lambda a: _normed(a, 0, 1e-5), lambda F, a: F.batch_norm(a, None, None, training=True), (x[..., 0, 0],)),
        Case("local_response_norm-4d", lambda a: nn.local_response_norm(a, 3, 0.3, 0.6, 1.5),
             lambda a: ref_lrn(a, 3, 0.3, 0.6, 1.5), lambda F, a: F.local_response_norm(a, 3, 0.3, 0.6, 1.5), (x,)),
        Case("local_response_norm-3d-even", lambda a: nn.local_response_norm(a, 4), lambda a: ref_lrn(a, 4),
             lambda F, a: F.local_response_norm(a, 4), (x[..., 0],)),
        Case("local_response_norm-wide", lambda a: nn.local_response_norm(a, 9, 0.5), lambda a: ref_lrn(a, 9, 0.5),
             lambda F, a: F.local_response_norm(a, 9, 0.5), (x,)),
        Case("pixel_shuffle", lambda a: nn.pixel_shuffle(a, 2), lambda a: ref_pixel_shuffle(a, 2),
             lambda F, a: F.pixel_shuffle(a, 2), (rng.normal(size=(2, 1, 8, 3, 4)),)),
        Case("pixel_unshuffle", lambda a: nn.pixel_unshuffle(a, 2), lambda a: ref_pixel_unshuffle(a, 2),
             lambda F, a: F.pixel_unshuffle(a, 2), (rng.normal(size=(2, 3, 4, 6)),)),
        Case("channel_shuffle", lambda a: nn.channel_shuffle(a, 3), lambda a: ref_channel_shuffle(a, 3),
             lambda F, a: F.channel_shuffle(a, 3), (x,)),
        Case("bilinear", nn.bilinear,
             lambda a, b, w, c: np.einsum("nti,oij,ntj->nto", a, w, b) + c,
             lambda F, a, b, w, c: F.bilinear(a, b, w, c),
             (rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 5)), rng.normal(size=(6, 4, 5)), rng.normal(size=6)),
             wrt=(0, 1, 2, 3)),
    ]
    q, k, v = rng.normal(size=(2, 4, 3, 5)), rng.normal(size=(2, 4, 6, 5)), rng.normal(size=(2, 4, 6, 7))
    keep = rng.uniform(size=(3, 6)) > 0.4
    keep[1] = False                                       # a query that attends to nothing: 0, as torch
    keep[0, 0] = True
    additive = rng.normal(size=(4, 3, 6))
    additive[0, 2] = -np.inf
    cases += [
        Case("sdpa", lambda a, b, c: nn.scaled_dot_product_attention(a, b, c), ref_sdpa,
             lambda F, a, b, c: F.scaled_dot_product_attention(a, b, c), (q, k, v), wrt=(0, 1, 2)),
        Case("sdpa-causal-scale", lambda a, b, c: nn.scaled_dot_product_attention(a, b, c, is_causal=True, scale=0.3),
             lambda a, b, c: ref_sdpa(a, b, c, causal=True, scale=0.3),
             lambda F, a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True, scale=0.3), (q, k, v),
             wrt=(0, 1, 2)),
        Case("sdpa-bool-mask", lambda a, b, c, m: nn.scaled_dot_product_attention(a, b, c, m),
             lambda a, b, c, m: ref_sdpa(a, b, c, m),
             lambda F, a, b, c, m: F.scaled_dot_product_attention(a, b, c, m), (q, k, v, keep), wrt=(0, 1, 2)),
        Case("sdpa-additive-mask", lambda a, b, c, m: nn.scaled_dot_product_attention(a, b, c, m),
             lambda a, b, c, m: ref_sdpa(a, b, c, m),
             lambda F, a, b, c, m: F.scaled_dot_product_attention(a, b, c, m), (q, k, v, additive), wrt=(0, 1, 2, 3)),
        Case("sdpa-gqa", lambda a, b, c: nn.scaled_dot_product_attention(a, b, c, enable_gqa=True),
             lambda a, b, c: ref_sdpa(a, np.repeat(b, 2, axis=-3), np.repeat(c, 2, axis=-3)),
             lambda F, a, b, c: F.scaled_dot_product_attention(a, b, c, enable_gqa=True), (q, k[:, :2], v[:, :2]),
             wrt=(0, 1, 2)),
        Case("sdpa-3d-broadcast", lambda a, b, c: nn.scaled_dot_product_attention(a, b, c), ref_sdpa,
             lambda F, a, b, c: F.scaled_dot_product_attention(a, b, c), (q[0], k[0, :1], v[0, :1]), wrt=(0, 1, 2)),
    ]
    return cases


CASES = _cases()
DIFFERENTIABLE = [c for c in CASES if c.wrt]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_values_match_the_formula_eagerly_traced_and_in_float32(case):
    check_reference(case)


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_values_match_torch(case):
    check_torch(case)


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=ids(DIFFERENTIABLE))
def test_gradients_match_torch_autograd(case):
    check_torch_grad(case)


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=ids(DIFFERENTIABLE))
def test_first_derivatives_match_jax(case):
    check_jax_derivatives(case)


def test_pixel_unshuffle_inverts_pixel_shuffle_and_channel_shuffle_permutes():
    x = rng.normal(size=(2, 12, 3, 5))
    np.testing.assert_array_equal(nn.pixel_unshuffle(nn.pixel_shuffle(x, 2), 2), x)
    y = nn.channel_shuffle(x, 4)
    np.testing.assert_array_equal(y[:, :4], x[:, [0, 3, 6, 9]])
    np.testing.assert_array_equal(np.sort(y, axis=1), np.sort(x, axis=1))


def test_batch_norm_training_leaves_the_running_buffers_alone():
    x, rm, rv = rng.normal(size=(4, 3)), np.zeros(3), np.ones(3)
    y = frame.function(lambda a, m, v: nn.batch_norm(a, m, v, training=True))(x, rm, rv)
    np.testing.assert_allclose(y, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-12)
    assert rm.tolist() == [0.0, 0.0, 0.0] and rv.tolist() == [1.0, 1.0, 1.0]


def test_attention_of_a_fully_masked_query_is_zero_with_finite_gradients():
    q, k, v = rng.normal(size=(2, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    mask = np.ones((2, 4), bool)
    mask[1] = False
    out = nn.scaled_dot_product_attention(q, k, v, mask)
    assert out[1].tolist() == [0.0, 0.0]
    g = frame.grad(lambda q: fnp.sum(nn.scaled_dot_product_attention(q, k, v, mask)))(q)
    assert np.isfinite(g).all() and g[1].tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("call, pattern", [
    (lambda: nn.rms_norm(np.ones((2, 3)), (2,)), r"normalized_shape \(2,\) must end the input's shape"),
    (lambda: nn.group_norm(np.ones((2, 6, 3)), 4), r"num_groups \(4\) must divide the channels \(6\)"),
    (lambda: nn.group_norm(np.ones(6), 3), r"rank >= 2"),
    (lambda: nn.group_norm(np.ones((2, 6, 3)), 3, np.ones(3)), r"weight must have shape \(6,\)"),
    (lambda: nn.instance_norm(np.ones((2, 3))), r"rank >= 3"),
    (lambda: nn.instance_norm(np.ones((2, 3, 1))), "more than 1 spatial element"),
    (lambda: nn.instance_norm(np.ones((2, 3, 4)), use_input_stats=False), "running_mean and running_var are needed"),
    (lambda: nn.batch_norm(np.ones((2, 3)), None, None), "must be given in evaluation mode"),
    (lambda: nn.batch_norm(np.ones((1, 3)), None, None, training=True), "more than 1 value per channel"),
    (lambda: nn.batch_norm(np.ones((2, 3)), np.ones(2), np.ones(3)), r"running_mean must have shape \(3,\)"),
    (lambda: nn.batch_norm(np.ones((2, 3)), None, None, training=True, eps=0.0), "eps must be positive"),
    (lambda: nn.local_response_norm(np.ones((2, 3)), 2), r"rank >= 3"),
    (lambda: nn.local_response_norm(np.ones((2, 3, 4)), 0), "size must be >= 1"),
    (lambda: nn.pixel_shuffle(np.ones((2, 6, 3, 3)), 2), r"must be \(\*, C \* 2\^2, H, W\)"),
    (lambda: nn.pixel_unshuffle(np.ones((2, 1, 3, 4)), 2), r"must be \(\*, C, H \* 2, W \* 2\)"),
    (lambda: nn.channel_shuffle(np.ones((2, 6, 3)), 4), r"groups \(4\) must divide the channels \(6\)"),
    (lambda: nn.bilinear(np.ones((2, 3)), np.ones((2, 4)), np.ones((5, 3, 3))), "do not match"),
    (lambda: nn.scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), dropout_p=0.1),
     "dropout_p=0.1 needs dropout_key="),
    (lambda: nn.scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 3))), "do not match"),
    (lambda: nn.scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 2), bool),
                                             is_causal=True), "not both"),
    (lambda: nn.scaled_dot_product_attention(np.ones((3, 2, 3)), np.ones((2, 2, 3)), np.ones((2, 2, 3)),
                                             enable_gqa=True), "multiple of the key/value heads"),
])
def test_bad_arguments_are_refused_by_name(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()
