"""frame.nn.selective_scan against Mamba's selective_scan_ref written as a plain numpy recurrence (every
B/C variant, D, z, delta_bias, softplus, the last state, float32), and against a jax.lax.scan
implementation of the same recurrence written here: first derivatives w.r.t. every operand and
second derivatives (Hessian-vector products), plus the derivative oracle (frame's graph lowered to
JAX) and central differences; the graph is parallel over L (O(log L) nodes); bad shapes are refused."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import ShapeError
from frame.interop.oracle import check_derivatives
from tests.numerics import assert_close_first_order, central_difference

nn = frame.nn


def reference(u, delta, A, B, C, D=None, z=None, delta_bias=None, delta_softplus=False):
    """selective_scan_ref (state-spaces/mamba, mamba_ssm/ops/selective_scan_interface.py) for real A, as a
    loop over t in numpy: x = exp(delta_t A) x + delta_t B_t u_t, y_t = <x, C_t>, + D u, * silu(z)."""
    if delta_bias is not None:
        delta = delta + delta_bias[:, None]
    if delta_softplus:
        delta = np.logaddexp(0.0, delta)
    batch, d, L = u.shape
    x = np.zeros((batch, d, A.shape[1]), np.result_type(u, A))

    def at(M, t):   # (batch or 1, d or 1, n) at step t
        if M.ndim == 2:
            return M[None]
        if M.ndim == 3:
            return M[:, None, :, t]
        return np.repeat(M[..., t], d // M.shape[1], axis=1)   # "B G N L -> B (G H) N L"
    ys = []
    for t in range(L):
        x = np.exp(delta[:, :, t, None] * A) * x + delta[:, :, t, None] * at(B, t) * u[:, :, t, None]
        ys.append((x * at(C, t)).sum(-1))
    out = np.stack(ys, axis=2)
    if D is not None:
        out = out + u * D[:, None]
    if z is not None:
        out = out * z / (1.0 + np.exp(-z))
    return out, x


def jax_selective_scan(u, delta, A, B, C, D, z, delta_bias):
    """The same recurrence with jax.lax.scan over t (input-dependent B, C (batch, n, L); softplus on)."""
    delta = jax.nn.softplus(delta + delta_bias[:, None])

    def step(x, inputs):
        d_t, u_t, b_t, c_t = inputs                            # (batch, d), (batch, d), (batch, n), (batch, n)
        x = jnp.exp(d_t[..., None] * A) * x + d_t[..., None] * b_t[:, None, :] * u_t[..., None]
        return x, jnp.sum(x * c_t[:, None, :], axis=-1)
    x0 = jnp.zeros((u.shape[0], A.shape[0], A.shape[1]), u.dtype)
    _, ys = jax.lax.scan(step, x0, (jnp.moveaxis(delta, 2, 0), jnp.moveaxis(u, 2, 0), jnp.moveaxis(B, 2, 0),
                                    jnp.moveaxis(C, 2, 0)))
    out = jnp.moveaxis(ys, 0, 2) + u * D[:, None]
    return out * jax.nn.silu(z)


def operands(rng, batch=2, d=4, L=9, n=3, b_shape=None, c_shape=None, dtype=np.float64):
    b_shape = b_shape or (batch, n, L)
    c_shape = c_shape or (batch, n, L)
    ops = dict(u=rng.standard_normal((batch, d, L)), delta=rng.uniform(-1.0, 0.5, (batch, d, L)),
               A=-rng.uniform(0.3, 1.5, (d, n)), B=rng.standard_normal(b_shape), C=rng.standard_normal(c_shape),
               D=rng.standard_normal(d), z=rng.standard_normal((batch, d, L)), delta_bias=rng.uniform(-0.5, 0.5, d))
    return {k: v.astype(dtype) for k, v in ops.items()}


VARIANTS = [((2, 3, 9), (2, 3, 9)), ((4, 3), (4, 3)), ((2, 2, 3, 9), (2, 1, 3, 9)), ((4, 3), (2, 4, 3, 9))]


@pytest.mark.parametrize("b_shape,c_shape", VARIANTS, ids=["variable", "time-invariant", "groups", "mixed"])
@pytest.mark.parametrize("extras", [False, True])
def test_selective_scan_matches_the_reference_recurrence(b_shape, c_shape, extras):
    rng = np.random.default_rng(0)
    ops = operands(rng, b_shape=b_shape, c_shape=c_shape)
    if not extras:
        ops = {k: ops[k] for k in "u delta A B C".split()}
        ops["delta"] = np.abs(ops["delta"])
    out, last = nn.selective_scan(**ops, delta_softplus=extras, return_last_state=True)
    want, want_last = reference(**ops, delta_softplus=extras)
    assert out.shape == (2, 4, 9) and last.shape == (2, 4, 3)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(last, want_last, rtol=1e-12, atol=1e-13)
    compiled = frame.function(lambda ops: nn.selective_scan(**ops, delta_softplus=extras))(ops)
    np.testing.assert_allclose(compiled, want, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("L", [1, 2, 16, 33])
def test_selective_scan_lengths_and_float32(L):
    rng = np.random.default_rng(L)
    ops = operands(rng, L=L)
    want, _ = reference(**ops, delta_softplus=True)
    np.testing.assert_allclose(nn.selective_scan(**ops, delta_softplus=True), want, rtol=1e-12, atol=1e-12)
    ops32 = {k: v.astype(np.float32) for k, v in ops.items()}
    out32 = nn.selective_scan(**ops32, delta_softplus=True)
    assert out32.dtype == np.float32
    # float32 rounding (~6e-8 per operation) over a recurrence of L steps; the scale is the output's.
    np.testing.assert_allclose(out32, want, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(want).max()))


def test_selective_scan_is_parallel_over_the_sequence():
    def nodes(L):
        ops = {k: v for k, v in operands(np.random.default_rng(0), L=L).items()}
        return len(frame.trace(lambda o: nn.selective_scan(**o, delta_softplus=True), ops).nodes)
    counts = [nodes(L) for L in (16, 32, 64, 128)]
    assert len(set(np.diff(counts).tolist())) == 1, counts   # one scan level more per doubling of L


NAMES = ("u", "delta", "A", "B", "C", "D", "z", "delta_bias")


def _frame_loss(w):
    def loss(*args):
        return fnp.sum(w * nn.selective_scan(*args[:5], D=args[5], z=args[6], delta_bias=args[7],
                                             delta_softplus=True))
    return loss


def test_selective_scan_first_and_second_derivatives_match_a_jax_scan():
    rng = np.random.default_rng(1)
    ops = operands(rng, batch=2, d=3, L=7, n=2)
    args = [ops[k] for k in NAMES]
    w = rng.standard_normal((2, 3, 7))
    loss = _frame_loss(w)
    argnums = tuple(range(len(NAMES)))
    grads = frame.grad(loss, argnums=argnums)(*args)
    v = [rng.standard_normal(a.shape) for a in args]
    hvp = frame.grad(lambda *a: sum(fnp.sum(g * t) for g, t in zip(frame.grad(loss, argnums=argnums)(*a), v)),
                     argnums=argnums)(*args)
    with jax.enable_x64(True):
        def jax_loss(*a):
            return jnp.sum(w * jax_selective_scan(*a))
        np.testing.assert_allclose(loss(*args), jax_loss(*args), rtol=1e-12)
        # The gradient and the Hessian-vector product from one jitted jvp-of-grad (one JAX compile).
        want, want_hvp = jax.jit(lambda *a: jax.jvp(lambda *p: jax.grad(jax_loss, argnums=argnums)(*p), a,
                                                    tuple(v)))(*args)
    for name, g, jg, h, jh in zip(NAMES, grads, want, hvp, want_hvp):
        np.testing.assert_allclose(g, jg, rtol=1e-10, atol=1e-11, err_msg=f"d/d{name}")
        np.testing.assert_allclose(h, jh, rtol=1e-9, atol=1e-10, err_msg=f"Hessian-vector product, {name}")
    # First order against central differences too, for the operands the recurrence treats differently.
    for i in (1, 2, 3):
        f = lambda x: loss(*args[:i], x, *args[i + 1:])   # noqa: E731
        assert_close_first_order(grads[i], central_difference(f, args[i]), f"d/d{NAMES[i]}")


def test_selective_scan_derivatives_pass_the_oracle():
    rng = np.random.default_rng(2)
    ops = operands(rng, batch=1, d=2, L=5, n=2, b_shape=(1, 1, 2, 5), c_shape=(2, 2))
    fn = lambda u, delta, A, B, C, D, z, db: nn.selective_scan(u, delta, A, B, C, D, z, db,   # noqa: E731
                                                               delta_softplus=True)
    report = check_derivatives(fn, *[ops[k] for k in NAMES], orders=(1, 2), argnums=tuple(range(8)),
                               rtol=1e-8, atol=1e-10)
    assert report.passed and report.entries


def test_selective_scan_refuses_bad_operands():
    ops = operands(np.random.default_rng(3))
    bad = [
        (dict(delta=ops["delta"][:, :, :5]), "u and delta must both be"),
        (dict(A=ops["A"][:3]), "A must be \\(d, n\\) = \\(4, n\\)"),
        (dict(B=ops["B"][:, :, :4]), "B must be \\(4, 3\\)"),
        (dict(C=np.ones((2, 3, 3, 9))), "C must be .* with G dividing 4"),
        (dict(D=np.ones(3)), "D must be \\(4,\\)"),
        (dict(z=np.ones((2, 4, 8))), "z must be"),
        (dict(delta_bias=np.ones((4, 1))), "delta_bias must be"),
        (dict(A=ops["A"].astype(complex)), "complex-A variant"),
        (dict(u=ops["u"][:, :, :0], delta=ops["delta"][:, :, :0], B=ops["B"][..., :0], C=ops["C"][..., :0],
              z=ops["z"][..., :0]), "at least 1"),
    ]
    for change, message in bad:
        with pytest.raises(ShapeError, match=message):
            nn.selective_scan(**{**ops, **change})


def test_selective_scan_vmaps_and_has_jaxs_forward_mode():
    rng = np.random.default_rng(4)
    ops = operands(rng, batch=2, d=3, L=6, n=2)
    rest = [ops[k] for k in NAMES[1:]]
    us = rng.standard_normal((3,) + ops["u"].shape)
    f = lambda u, *rest: nn.selective_scan(u, *rest[:4], D=rest[4], z=rest[5], delta_bias=rest[6],   # noqa: E731
                                           delta_softplus=True)
    batched = frame.vmap(f, in_axes=(0,) + (None,) * 7)(us, *rest)
    want = np.stack([reference(u, *rest[:4], D=rest[4], z=rest[5], delta_bias=rest[6], delta_softplus=True)[0]
                     for u in us])
    np.testing.assert_allclose(batched, want, rtol=1e-12, atol=1e-13)
    args = [ops[k] for k in NAMES]
    tangents = [rng.standard_normal(a.shape) for a in args]
    y, ty = frame.jvp(f, tuple(args), tuple(tangents))
    with jax.enable_x64(True):
        jy, jty = jax.jit(lambda a, t: jax.jvp(jax_selective_scan, a, t))(tuple(args), tuple(tangents))
    np.testing.assert_allclose(y, jy, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ty, jty, rtol=1e-10, atol=1e-11)


def test_selective_scan_taylor_mode_matches_nested_reverse_mode():
    """Taylor mode goes through the scan too (its ops are linear, bilinear or analytic elementwise): the
    first three derivatives along a step-size scale s agree with grad applied three times."""
    ops = operands(np.random.default_rng(5), batch=1, d=2, L=5, n=2)
    f = lambda s: fnp.sum(nn.selective_scan(ops["u"], ops["delta"] * s, ops["A"], ops["B"], ops["C"],   # noqa: E731
                                            delta_softplus=True) ** 2)
    s = np.float64(0.7)
    series = frame.directional_derivatives(f, order=3)(s)
    nested = [f(s), frame.grad(f)(s), frame.grad(frame.grad(f))(s), frame.grad(frame.grad(frame.grad(f)))(s)]
    np.testing.assert_allclose(np.array(series, dtype=float), np.array(nested, dtype=float), rtol=1e-10)
    assert abs(float(nested[3])) > 1e-3   # a genuinely non-polynomial direction
