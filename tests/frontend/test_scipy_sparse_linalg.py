"""frame.scipy.sparse.linalg (cg, bicgstab, gmres): solutions against numpy's solve and JAX's solvers (same
iterations for cg and bicgstab), eagerly and compiled, with matrices, operator functions and preconditioners;
implicit gradients in b, in A and in values an operator closes over, against the closed form and JAX; bad
input by name."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
import frame.scipy.sparse.linalg as SL
from frame.errors import ShapeError

rng = np.random.default_rng(0)
N = 8
_Q = rng.standard_normal((N, N))
SPD = _Q @ _Q.T + N * np.eye(N)
GENERAL = rng.standard_normal((N, N)) + 4 * np.eye(N)
B = rng.standard_normal(N)
SOLVERS = [("cg", SPD), ("bicgstab", GENERAL), ("gmres", GENERAL)]


def operator(v, c, xp, symmetric: bool):
    """A matrix-free operator closing over c: c v + 0.3 (v rolled one way, and the other when symmetric)."""
    return c * v + 0.3 * (xp.roll(v, 1) + (xp.roll(v, -1) if symmetric else 0.0))


@pytest.mark.parametrize("name,A", SOLVERS, ids=[s[0] for s in SOLVERS])
def test_solutions(name, A):
    solver = getattr(SL, name)
    want = np.linalg.solve(A, B)
    x, info = solver(A, B, tol=1e-12)
    assert info is None and x.shape == B.shape and x.dtype == np.float64
    np.testing.assert_allclose(x, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(frame.function(lambda A, b: solver(A, b, tol=1e-12)[0])(A, B), want, rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(solver(lambda v: fnp.matmul(A, v), B, tol=1e-12)[0], want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(solver(A, B, tol=1e-12, M=np.diag(1 / np.diag(A)))[0], want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(solver(A, B, x0=want + 0.1, tol=1e-12)[0], want, rtol=1e-10, atol=1e-12)
    grid = B.reshape(2, 4)   # b of any shape, A acting on its flattening
    np.testing.assert_allclose(solver(A, grid, tol=1e-12)[0], want.reshape(2, 4), rtol=1e-10, atol=1e-12)
    loose = np.linalg.norm(solver(A, B, tol=1e-2)[0] - want) / np.linalg.norm(want)
    assert loose < 0.05   # stops early, near the tolerance


@pytest.mark.parametrize("name,A", [SOLVERS[0], SOLVERS[1]], ids=["cg", "bicgstab"])
def test_the_iterations_are_jaxs(name, A):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.scipy.sparse.linalg as JL
    for tol in (1e-3, 1e-8):
        ours = getattr(SL, name)(A, B, tol=tol, maxiter=7)[0]
        theirs = np.asarray(getattr(JL, name)(A, B, tol=tol, maxiter=7)[0])
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,A", SOLVERS, ids=[s[0] for s in SOLVERS])
def test_implicit_gradients(name, A):
    solver = getattr(SL, name)
    x = np.linalg.solve(A, B)
    lam = np.linalg.solve(A.T, 2 * x)          # d/db sum(x^2) = A^-T 2x, d/dA = -lam x^T
    gb = frame.grad(lambda b: fnp.sum(solver(A, b, tol=1e-12)[0] ** 2))(B)
    np.testing.assert_allclose(gb, lam, rtol=1e-9, atol=1e-12)
    ga = frame.grad(lambda a: fnp.sum(solver(a, B, tol=1e-12)[0] ** 2))(A)
    np.testing.assert_allclose(ga, -np.outer(lam, x), rtol=1e-9, atol=1e-12)
    compiled = frame.function(frame.grad(lambda a, b: fnp.sum(solver(a, b, tol=1e-12)[0] ** 2), argnums=(0, 1)))
    for got, want in zip(compiled(A, B), (-np.outer(lam, x), lam)):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["cg", "bicgstab", "gmres"])
def test_gradient_in_a_value_the_operator_closes_over(name):
    solver, symmetric = getattr(SL, name), name == "cg"   # cg needs a symmetric operator

    def f(c):
        return fnp.sum(solver(lambda v: operator(v, c, fnp, symmetric), B, tol=1e-12)[0] ** 2)

    c, h = 3.0, 1e-6
    np.testing.assert_allclose(frame.grad(f)(c), (f(c + h) - f(c - h)) / (2 * h), rtol=1e-7)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.sparse.linalg as JL
    want = jax.grad(lambda c: jnp.sum(getattr(JL, name)(lambda v: operator(v, c, jnp, symmetric), B,
                                                         tol=1e-12)[0] ** 2))(c)
    np.testing.assert_allclose(frame.grad(f)(c), want, rtol=1e-8)


def test_bad_input_is_refused_by_name():
    for call, match in [(lambda: SL.cg(np.ones((3, 4)), np.ones(3)), "cg: A must be a square matrix of size 3"),
                        (lambda: SL.cg(SPD, np.ones(N, int)), "b must be a float32 or float64"),
                        (lambda: SL.bicgstab(GENERAL, B, x0=np.ones(3)), "x0 must have b's shape"),
                        (lambda: SL.gmres(lambda v: fnp.sum(v), B), "the operator must map b's shape"),
                        (lambda: SL.cg(SPD, B, M=np.ones((2, 2))), "M must be a square matrix"),
                        (lambda: SL.gmres(GENERAL, B, solve_method="qr"), "solve_method")]:
        with pytest.raises(ShapeError, match=match):
            call()
