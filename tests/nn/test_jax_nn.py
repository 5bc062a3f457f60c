"""frame.nn's jax.nn names: values against numpy formulas (eagerly, traced, float32) and against jax.nn
itself, first derivatives against jax.grad of jax.nn's functions."""
import numpy as np
import pytest
import scipy.special as sp

import frame
import frame.nn as nn
import frame.numpy as fnp
from frame.errors import ShapeError
from tests.nn.torch_cases import Case, check_reference, ids

rng = np.random.default_rng(3)


def ref_attention(q, k, v, bias=None, mask=None, scale=None, causal=False, window=None, q_len=None, kv_len=None):
    """jax.nn.dot_product_attention's xla path in float64: masked logits set to -0.7 * float32 max."""
    b, t, n, h = q.shape
    g = n // k.shape[2]
    kk, vv = np.repeat(k, g, axis=2), np.repeat(v, g, axis=2)
    logits = np.einsum("btnh,bsnh->bnts", q, kk) * (1 / np.sqrt(h) if scale is None else scale)
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    rows, cols = np.arange(t)[:, None], np.arange(k.shape[1])[None, :]
    if mask is not None:
        keep &= mask
    if causal:
        keep &= rows >= cols
    if window is not None:
        keep &= (rows <= cols + window[0]) & (rows >= cols - window[1])
    if q_len is not None:
        keep &= (np.arange(t)[None, None, :, None] < q_len[:, None, None, None])
    if kv_len is not None:
        keep &= (np.arange(k.shape[1])[None, None, None, :] < kv_len[:, None, None, None])
    logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
    out = np.einsum("bnts,bsnh->btnh", sp.softmax(logits, axis=-1), vv)
    if q_len is not None:
        out = out * (np.arange(t)[None, :, None, None] < q_len[:, None, None, None])
    return out


x = rng.normal(size=(3, 4)) * 2
x[0, :3] = -1.0, 1.0, 0.0                                       # sparse_plus / sparse_sigmoid corners (values only)
smooth = rng.normal(size=(3, 4)) * 2                            # away from every corner, for derivatives
positive = np.abs(rng.normal(size=(3, 4))) + np.array([0.01, 0.3, 0.9, 3.0])
keep = rng.uniform(size=(3, 4)) > 0.3
keep[:, 0] = True
weights = rng.normal(size=(3, 4))

# name -> (frame call, numpy formula, jax call, arguments, positions to differentiate)
FUNCTIONS = {
    "log_sigmoid": (nn.log_sigmoid, lambda a: -np.logaddexp(0, -a), lambda J, a: J.nn.log_sigmoid(a), (x,), (0,)),
    "swish": (nn.swish, lambda a: a * sp.expit(a), lambda J, a: J.nn.swish(a), (x,), (0,)),
    "hard_tanh": (nn.hard_tanh, lambda a: np.clip(a, -1, 1), lambda J, a: J.nn.hard_tanh(a), (x,), (0,)),
    "hard_sigmoid": (nn.hard_sigmoid, lambda a: np.clip(a + 3, 0, 6) / 6, lambda J, a: J.nn.hard_sigmoid(a), (x,), (0,)),
    "hard_silu": (nn.hard_silu, lambda a: a * np.clip(a + 3, 0, 6) / 6, lambda J, a: J.nn.hard_silu(a), (x,), (0,)),
    "hard_swish": (nn.hard_swish, lambda a: a * np.clip(a + 3, 0, 6) / 6, lambda J, a: J.nn.hard_swish(a), (x,), (0,)),
    "soft_sign": (nn.soft_sign, lambda a: a / (1 + abs(a)), lambda J, a: J.nn.soft_sign(a), (x,), (0,)),
    "squareplus": (nn.squareplus, lambda a: (a + np.sqrt(a * a + 4)) / 2, lambda J, a: J.nn.squareplus(a), (x,), (0,)),
    "squareplus-b": (lambda a: nn.squareplus(a, 0.5), lambda a: (a + np.sqrt(a * a + 0.5)) / 2,
                     lambda J, a: J.nn.squareplus(a, 0.5), (x,), (0,)),
    "sparse_plus": (nn.sparse_plus, lambda a: np.where(a <= -1, 0, np.where(a >= 1, a, (a + 1) ** 2 / 4)),
                    lambda J, a: J.nn.sparse_plus(a), (x,), (0,)),
    "sparse_sigmoid": (nn.sparse_sigmoid, lambda a: np.clip((a + 1) / 2, 0, 1), lambda J, a: J.nn.sparse_sigmoid(a),
                       (x,), (0,)),
    "identity": (nn.identity, lambda a: a, lambda J, a: J.nn.identity(a), (x,), (0,)),
    "log1mexp": (nn.log1mexp, lambda a: np.log(-np.expm1(-a)), lambda J, a: J.nn.log1mexp(a), (positive,), (0,)),
    "logsumexp": (nn.logsumexp, lambda a: sp.logsumexp(a), lambda J, a: J.nn.logsumexp(a), (x,), (0,)),
    "logsumexp-axis-keepdims": (lambda a: nn.logsumexp(a, 0, keepdims=True), lambda a: sp.logsumexp(a, 0, keepdims=True),
                                lambda J, a: J.nn.logsumexp(a, 0, keepdims=True), (x,), (0,)),
    "logsumexp-b-sign": (lambda a, b: nn.logsumexp(a, -1, b=b, return_sign=True)[0] *
                         nn.logsumexp(a, -1, b=b, return_sign=True)[1],
                         lambda a, b: np.prod(sp.logsumexp(a, -1, b=b, return_sign=True), axis=0),
                         lambda J, a, b: (lambda r: r[0] * r[1])(J.nn.logsumexp(a, -1, b=b, return_sign=True)),
                         (x, weights), (0, 1)),
    "logsumexp-b-positive": (lambda a, b: nn.logsumexp(a, (0, 1), b=b), lambda a, b: sp.logsumexp(a, (0, 1), b=b),
                             lambda J, a, b: J.nn.logsumexp(a, (0, 1), b=b), (x, abs(weights)), (0, 1)),
    "logsumexp-where": (lambda a: nn.logsumexp(a, 1, where=keep), lambda a: sp.logsumexp(a, 1, b=keep),
                        lambda J, a: J.nn.logsumexp(a, 1, where=keep), (x,), (0,)),
    "logmeanexp": (lambda a: nn.logmeanexp(a, 1), lambda a: sp.logsumexp(a, 1) - np.log(4),
                   lambda J, a: J.nn.logmeanexp(a, 1), (x,), (0,)),
    "logmeanexp-all-keepdims": (lambda a: nn.logmeanexp(a, keepdims=True),
                                lambda a: sp.logsumexp(a, keepdims=True) - np.log(12),
                                lambda J, a: J.nn.logmeanexp(a, keepdims=True), (x,), (0,)),
    "logmeanexp-where": (lambda a: nn.logmeanexp(a, 0, where=keep),
                         lambda a: sp.logsumexp(a, 0, b=keep) - np.log(keep.sum(0)),
                         lambda J, a: J.nn.logmeanexp(a, 0, where=keep), (x,), (0,)),
    "standardize": (nn.standardize, lambda a: (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5),
                    lambda J, a: J.nn.standardize(a), (x,), (0,)),
    "standardize-stable-axes": (lambda a: nn.standardize(a, (0, 1), epsilon=0.1, algorithm="stable"),
                                lambda a: (a - a.mean()) / np.sqrt(a.var() + 0.1),
                                lambda J, a: J.nn.standardize(a, (0, 1), epsilon=0.1, algorithm="stable"), (x,), (0,)),
    "standardize-given": (lambda a, m, v: nn.standardize(a, 0, m, v), lambda a, m, v: (a - m) / np.sqrt(v + 1e-5),
                          lambda J, a, m, v: J.nn.standardize(a, 0, m, v), (x, x[:1] * 0.1, positive[:1]), (0, 1, 2)),
    "standardize-where": (lambda a: nn.standardize(a, 1, where=keep),
                          lambda a: (a - (a * keep).sum(1, keepdims=True) / keep.sum(1, keepdims=True))
                          / np.sqrt(((a - (a * keep).sum(1, keepdims=True) / keep.sum(1, keepdims=True)) ** 2 * keep)
                                    .sum(1, keepdims=True) / keep.sum(1, keepdims=True) + 1e-5),
                          lambda J, a: J.nn.standardize(a, 1, where=keep), (x,), (0,)),
}

q, k, v = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 6, 2, 5)), rng.normal(size=(2, 6, 2, 5))
bias = rng.normal(size=(1, 4, 3, 6))
mask = rng.uniform(size=(2, 1, 3, 6)) > 0.3
mask[0, 0, 1] = False                                           # a fully masked query: jax averages every value
q_len, kv_len = np.array([2, 3], np.int32), np.array([4, 6], np.int32)
ATTENTION = {
    "plain": ((q, k, v), {}),
    "bias-mask-scale": ((q, k, v, bias, mask), {"scale": 0.7}),
    "causal": ((q, k, v), {"is_causal": True}),
    "window": ((q, k, v), {"local_window_size": (1, 2)}),
    "lengths": ((q, k, v), {"query_seq_lengths": q_len, "key_value_seq_lengths": kv_len}),
}
for name, (args, kw) in ATTENTION.items():
    ref_kw = {"scale": kw.get("scale"), "causal": kw.get("is_causal", False), "window": kw.get("local_window_size"),
              "q_len": kw.get("query_seq_lengths"), "kv_len": kw.get("key_value_seq_lengths")}
    FUNCTIONS[f"dot_product_attention-{name}"] = (
        lambda a, b, c, *rest, kw=kw: nn.dot_product_attention(a, b, c, *rest, **kw),
        lambda a, b, c, *rest, r=ref_kw: ref_attention(a, b, c, *rest, **r),
        lambda J, a, b, c, *rest, kw=kw: J.nn.dot_product_attention(a, b, c, *rest, **kw),
        args, (0, 1, 2) + ((3,) if len(args) > 3 else ()))
FUNCTIONS["dot_product_attention-unbatched"] = (
    lambda a, b, c: nn.dot_product_attention(a, b, c, is_causal=True),
    lambda a, b, c: ref_attention(a[None], b[None], c[None], causal=True)[0],
    lambda J, a, b, c: J.nn.dot_product_attention(a, b, c, is_causal=True), (q[0], k[0], v[0]), (0, 1, 2))

CASES = [Case(name, ours, ref, None, args, wrt, rtol=1e-11, atol=1e-12)
         for name, (ours, ref, _, args, wrt) in FUNCTIONS.items()]


def _derivative_args(name, args):
    # Kinked functions are differentiated away from their corners.
    return (smooth,) + args[1:] if args[0] is x else args


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_values_match_the_formula_eagerly_traced_and_in_float32(case):
    check_reference(case)


def _jax_tolerance(name):
    # jax.nn.dot_product_attention computes its softmax in float32, also for float64 operands.
    return (1e-5, 1e-6) if name.startswith("dot_product_attention") else (1e-11, 1e-12)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_values_match_jax_nn(name):
    jax = pytest.importorskip("jax")
    ours, _, theirs, args, _ = FUNCTIONS[name]
    with jax.enable_x64(True):
        want = np.asarray(theirs(jax, *args))
    rtol, atol = _jax_tolerance(name)
    np.testing.assert_allclose(np.asarray(ours(*args)), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_first_derivatives_match_jax_grad(name):
    jax = pytest.importorskip("jax")
    ours, _, theirs, args, wrt = FUNCTIONS[name]
    args = _derivative_args(name, args)
    w = rng.normal(size=np.shape(ours(*args)))
    with jax.enable_x64(True):
        import jax.numpy as jnp
        want = jax.grad(lambda *a: jnp.sum(jnp.asarray(theirs(jax, *a)) * w), argnums=wrt)(*args)
    got = frame.grad(lambda *a: fnp.sum(ours(*a) * w), argnums=wrt)(*args)
    got = got if isinstance(got, tuple) else (got,)
    rtol, atol = _jax_tolerance(name)
    for g, t in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(t), rtol=rtol * 10, atol=atol * 10)


def test_shared_functions_are_the_torch_ones():
    assert nn.log_sigmoid is nn.logsigmoid and nn.swish is nn.silu and nn.soft_sign is nn.softsign
    assert nn.hard_sigmoid is nn.hardsigmoid and nn.hard_silu is nn.hard_swish is nn.hardswish


def test_logsumexp_sign_and_masked_rows():
    a = np.array([[0.0, np.log(2.0)], [1.0, 2.0]])
    with np.errstate(divide="ignore"):
        out, sign = nn.logsumexp(a, 1, b=np.array([[1.0, -1.0], [0.0, 0.0]]), return_sign=True)
        masked = nn.logsumexp(a, 1, where=np.array([[True, True], [False, False]]))
    np.testing.assert_allclose(out[0], 0.0, atol=1e-15)
    assert sign.tolist() == [-1.0, 0.0] and out[1] == -np.inf and masked[1] == -np.inf


def test_refusals():
    with pytest.raises(ShapeError, match="algorithm must be 'fast' or 'stable'"):
        nn.standardize(x, algorithm="exact")
    with pytest.raises(ShapeError, match="implementation must be None or 'xla'"):
        nn.dot_product_attention(q, k, v, implementation="cudnn")
    with pytest.raises(ShapeError, match=r"query must be \(B, T, N, H\)"):
        nn.dot_product_attention(q, k, v[..., :3])
    with pytest.raises(ShapeError, match="multiple of the key heads"):
        nn.dot_product_attention(q[:, :, :3], k, v)
