"""LU decomposition: the `lu` op (frame/ops/linalg.py) through frame.scipy.linalg.lu/lu_factor/lu_solve and
frame.lax.linalg.lu. Values against scipy.linalg and jax.lax.linalg.lu (square, tall, wide, batched, singular);
derivatives of functions of L and U, and of lu_solve's x in a and b, against JAX to 1e-10 (first order, reverse
and forward) and Hessian-vector products (second order); eager and under frame.function; errors by name.

Inputs are random matrices whose pivot choices hold by clear margins nearby, so lu is smooth at them (pivots
change only where two candidate rows tie).
"""
import numpy as np
import pytest
import scipy.linalg as sl

import frame
import frame.numpy as fnp
import frame.lax.linalg as flax
import frame.scipy.linalg as fsl
from frame.errors import ShapeError

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402

pytestmark = pytest.mark.usefixtures("jax_x64")

rng = np.random.default_rng(7)
SHAPES = {"square": (4, 4), "tall": (5, 3), "wide": (3, 5), "batched": (2, 3, 3)}
MATRICES = {k: rng.standard_normal(s) for k, s in SHAPES.items()}
TOL = dict(rtol=1e-10, atol=1e-12)


def assert_same(got, want, exact=False):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def assert_all_same(gots, wants, exact_ints=True):
    assert len(gots) == len(wants)
    for g, w in zip(gots, wants):
        assert_same(g, w, exact=exact_ints and np.asarray(w).dtype.kind in "iu")


# -- values ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SHAPES)
def test_values_equal_scipy_and_jax_eagerly_and_traced(name):
    a = MATRICES[name]
    for run in (lambda f, *xs: f(*xs), lambda f, *xs: frame.function(f)(*xs)):
        assert_all_same(run(fsl.lu, a), sl.lu(a))
        assert_all_same(run(lambda a: fsl.lu(a, permute_l=True), a), sl.lu(a, permute_l=True))
        assert_all_same(run(lambda a: fsl.lu(a, p_indices=True), a), sl.lu(a, p_indices=True))
        assert_all_same(run(fsl.lu_factor, a), sl.lu_factor(a))
        assert_all_same(run(flax.lu, a), [np.asarray(x) for x in jax.lax.linalg.lu(jnp.asarray(a))])


@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("b_shape", [(4,), (4, 2), (3, 4, 2)], ids=["vector", "matrix", "stack"])
def test_lu_solve_equals_scipy(trans, b_shape):
    a, b = MATRICES["square"], rng.standard_normal(b_shape)
    want = sl.lu_solve(sl.lu_factor(a), b, trans=trans)
    assert_same(fsl.lu_solve(fsl.lu_factor(a), b, trans=trans), want)
    assert_same(frame.function(lambda a, b: fsl.lu_solve(fsl.lu_factor(a), b, trans=trans))(a, b), want)
    # scipy's own factors work too (pivots given as numpy)
    assert_same(fsl.lu_solve(sl.lu_factor(a), b, trans=trans), want)


def test_lu_solve_batched_factors_and_traced_pivots():
    a, b = MATRICES["batched"], rng.standard_normal((2, 3, 2))
    for trans in (0, 1):
        want = sl.lu_solve(sl.lu_factor(a), b, trans=trans)
        assert_same(fsl.lu_solve(fsl.lu_factor(a), b, trans=trans), want)
        # pivots as a traced operand of their own: the permutation is rebuilt in the graph
        f = frame.function(lambda lu, piv, b: fsl.lu_solve((lu, piv), b, trans=trans))
        assert_same(f(*sl.lu_factor(a), b), want)
    assert_same(frame.function(lambda p: flax.lu_pivots_to_permutation(p, 5))(np.array([2, 2, 4], np.int32)),
                np.asarray(jax.lax.linalg.lu_pivots_to_permutation(jnp.array([2, 2, 4], jnp.int32), 5)), exact=True)


def test_singular_matrices_give_zeros_on_us_diagonal_without_a_warning(recwarn):
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])   # rank 2
    lu, piv, perm = flax.lu(a)
    assert_all_same((lu, piv, perm), [np.asarray(x) for x in jax.lax.linalg.lu(jnp.asarray(a))])
    assert np.diagonal(lu)[-1] == 0.0
    assert_all_same(fsl.lu(np.zeros((3, 3))), (np.eye(3), np.eye(3), np.zeros((3, 3))))
    assert not [w for w in recwarn.list if "singular" in str(w.message).lower()]


def test_float32_and_integer_operands():
    a = MATRICES["square"]
    lu32 = flax.lu(a.astype(np.float32))[0]
    assert lu32.dtype == np.float32
    np.testing.assert_allclose(lu32, sl.lu_factor(a.astype(np.float32))[0], rtol=1e-5, atol=1e-6)  # float32 LAPACK
    ints = np.array([[1, 2], [3, 4]])
    assert_all_same(fsl.lu_factor(ints), sl.lu_factor(ints))


# -- derivatives against JAX -------------------------------------------------------------------------
# JAX's references are jitted, one compilation per case (JAX's op-by-op dispatch would take seconds).
W = {k: rng.standard_normal(s) for k, s in SHAPES.items()}


def _factors_loss(np_, lu_fn, w):
    """A non-linear function of both L and U (and of P, which has no derivative)."""
    def loss(a):
        p, l, u = lu_fn(a)
        k = min(a.shape[-2:])
        return np_.sum(np_.sin(l) * w[..., :, :k]) + np_.sum((u * w[..., :k, :]) ** 2) + np_.sum(p[..., 0, :])
    return loss


def _jax_lu(a):
    """jax.scipy.linalg.lu over a stack (it takes one matrix)."""
    return jax.vmap(jsl.lu)(a) if a.ndim > 2 else jsl.lu(a)


@pytest.mark.parametrize("name", SHAPES)
def test_first_and_second_order_in_l_and_u_equal_jax(name):
    a, w = MATRICES[name], W[name]
    floss, jloss = _factors_loss(fnp, fsl.lu, w), _factors_loss(jnp, _jax_lu, w)
    packed = lambda np_, lu: lambda a: np_.sum(np_.cos(lu(a)[0]) * w)   # noqa: E731 - lax's packed result
    t, d = rng.standard_normal(a.shape), rng.standard_normal(a.shape)

    @jax.jit
    def reference(a, t, d):
        return (jax.grad(jloss)(a), jax.jvp(jloss, (a,), (t,))[1], jax.jvp(jax.grad(jloss), (a,), (d,))[1],
                jax.grad(packed(jnp, jax.lax.linalg.lu))(a))
    grad, tangent, hvp, packed_grad = (np.asarray(x) for x in reference(a, t, d))
    np.testing.assert_allclose(frame.grad(floss)(a), grad, **TOL)
    np.testing.assert_allclose(frame.function(frame.grad(floss))(a), grad, **TOL)
    np.testing.assert_allclose(frame.jvp(floss, (a,), (t,))[1], tangent, **TOL)
    np.testing.assert_allclose(frame.grad(packed(fnp, flax.lu))(a), packed_grad, **TOL)
    # second order: forward over reverse, and reverse over reverse (the gradient of <grad, d>)
    np.testing.assert_allclose(frame.jvp(frame.grad(floss), (a,), (d,))[1], hvp, **TOL)
    np.testing.assert_allclose(frame.grad(lambda a: fnp.sum(frame.grad(floss)(a) * d))(a), hvp, **TOL)


@pytest.mark.parametrize("trans", [0, 1])
def test_lu_solve_derivatives_in_a_and_b_equal_jax(trans):
    a, b = MATRICES["square"], rng.standard_normal((4, 2))
    w = rng.standard_normal(b.shape)

    def make(np_, linalg):
        return lambda a, b: np_.sum(np_.tanh(linalg.lu_solve(linalg.lu_factor(a), b, trans=trans)) * w)
    floss, jloss = make(fnp, fsl), make(jnp, jsl)
    da, db = rng.standard_normal(a.shape), rng.standard_normal(b.shape)

    @jax.jit
    def reference(a, b, da, db):
        grads = jax.grad(jloss, argnums=(0, 1))
        return grads(a, b), jax.jvp(grads, (a, b), (da, db))[1]
    want, want_hvp = reference(a, b, da, db)
    for got in (frame.grad(floss, argnums=(0, 1))(a, b), frame.function(frame.grad(floss, argnums=(0, 1)))(a, b)):
        for g, w_ in zip(got, want):
            np.testing.assert_allclose(g, w_, **TOL)
    hvp = frame.jvp(frame.grad(floss, argnums=(0, 1)), (a, b), (da, db))[1]
    for g, w_ in zip(hvp, want_hvp):
        np.testing.assert_allclose(g, w_, **TOL)


def test_batched_lu_solve_gradient_and_vmap_equal_jax():
    a, b, w = MATRICES["batched"], rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 3, 2))
    floss = lambda a, b: fnp.sum(fsl.lu_solve(fsl.lu_factor(a), b) * w)   # noqa: E731
    jloss = lambda a, b: jnp.sum(jax.vmap(lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b))(a, b) * w)   # noqa: E731
    for g, w_ in zip(frame.grad(floss, argnums=(0, 1))(a, b), jax.jit(jax.grad(jloss, argnums=(0, 1)))(a, b)):
        np.testing.assert_allclose(g, w_, **TOL)
    one = lambda np_, lu: lambda a: np_.sum(np_.sin(lu(a)[0]) * W["square"])   # noqa: E731
    stack = rng.standard_normal((3, 4, 4))
    np.testing.assert_allclose(frame.vmap(frame.grad(one(fnp, flax.lu)))(stack),
                               jax.jit(jax.vmap(jax.grad(one(jnp, jax.lax.linalg.lu))))(stack), **TOL)


# -- errors ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, pattern", [
    (lambda: fsl.lu(np.ones(3)), r"op 'lu': a must be a matrix"),
    (lambda: fsl.lu_factor(np.ones(3)), r"op 'lu_factor': a must be a matrix"),
    (lambda: flax.lu(np.ones(3)), r"lax.linalg.lu: needs matrices \(\.\.\., m, n\), got shape \(3,\)"),
    (lambda: fsl.lu_solve((np.ones((3, 4)), np.arange(3)), np.ones(3)), r"op 'lu_solve': a must be a square"),
    (lambda: fsl.lu_solve(sl.lu_factor(np.eye(3)), np.ones(4)), r"op 'lu_solve': b must be \(3,\)"),
    (lambda: fsl.lu_solve(sl.lu_factor(np.eye(3)), np.ones(3), trans="T"), r"op 'lu_solve': trans must be 0, 1"),
    (lambda: fsl.lu_solve((np.eye(3), np.array([0, 5, 2])), np.ones(3)), r"op 'lu_solve': pivots must lie in"),
    (lambda: fsl.lu_solve((np.eye(3), np.array([0.0, 1.0, 2.0])), np.ones(3)), r"op 'lu_solve': pivots must be "
                                                                               r"integers"),
])
def test_bad_operands_are_refused_by_name(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()


def test_the_integer_results_carry_no_derivative():
    a = MATRICES["square"]
    # a loss of the pivots alone (through a float cast) has a zero gradient, as JAX's
    g = frame.grad(lambda a: fnp.sum(fnp.astype(flax.lu(a)[1], "float64") * a[0, 0]))(a)
    want = jax.jit(jax.grad(lambda a: jnp.sum(jax.lax.linalg.lu(a)[1].astype("float64") * a[0, 0])))(a)
    np.testing.assert_allclose(g, want, **TOL)
