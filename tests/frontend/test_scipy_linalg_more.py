"""frame.scipy.linalg's special matrices, polar and solve_sylvester against scipy.linalg (values and dtypes,
exactly for the integer-valued constructors, eagerly and compiled) and their derivatives against
jax.scipy.linalg's (jax.grad, x64); the refusals name the function."""
import numpy as np
import pytest
import scipy.linalg as S

import frame
import frame.scipy.linalg as F
from frame import ShapeError

jax = pytest.importorskip("jax")
JS = pytest.importorskip("jax.scipy.linalg")
jnp = jax.numpy

RNG = np.random.default_rng(3)
POLY = np.array([2.0, -3.0, 0.5, 4.0, -1.5, 2.5, 0.7])      # coefficients; a[0] != 0
SIZES = list(range(0, 9)) + [14, 15, 34, 35]                  # edges of scipy's int64/uint64/object dtypes


def assert_exact(got, want, what):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype, got.shape, want.shape)
    assert np.array_equal(got, want), what


def assert_eager_and_compiled(f, args, want, what):
    """f(*args) eagerly and under frame.function equal scipy's `want` exactly (entries copied or negated)."""
    assert_exact(f(*args), want, f"{what} (eager)")
    assert_exact(frame.function(f)(*args), want, f"{what} (compiled)")


@pytest.mark.parametrize("n", SIZES)
def test_integer_constructors_exact(n):
    # float64 only up to n = 15 (integers below 2^53); beyond, frame's entries are the exact integers rounded
    # once and scipy's accumulate rounding (test_float_constructors_close)
    for exact in (True, False) if n <= 15 else (True,):
        assert_exact(F.invhilbert(n, exact=exact), S.invhilbert(n, exact=exact), f"invhilbert({n}, {exact})")
        for kind in ("symmetric", "lower", "upper"):
            assert_exact(F.pascal(n, kind, exact), S.pascal(n, kind, exact), f"pascal({n}, {kind}, {exact})")
            assert_exact(F.invpascal(n, kind, exact), S.invpascal(n, kind, exact), f"invpascal({n}, {kind})")
    assert_exact(F.hilbert(n), S.hilbert(n), f"hilbert({n})")


def test_float_constructors_close():
    # beyond 2^53 scipy's float64 pascal/invhilbert accumulate rounding; frame rounds the exact integer once
    for n in (20, 34):
        for got, want in ((F.invhilbert(n), S.invhilbert(n)), (F.pascal(n, exact=False), S.pascal(n, exact=False)),
                          (F.invpascal(n, exact=False), S.invpascal(n, exact=False))):
            np.testing.assert_allclose(got, want, rtol=2e-15, atol=0)
    for n in (1, 2, 4, 16):
        assert_exact(F.hadamard(n), S.hadamard(n), f"hadamard({n})")
        assert_exact(F.hadamard(n, dtype=np.float32), S.hadamard(n, dtype=np.float32), "hadamard float32")
    for n in range(0, 9):
        for scale in (None, "n", "sqrtn"):
            got, want = F.dft(n, scale), S.dft(n, scale)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)   # scipy's powers: a few ulp
        if n:
            for full in (False, True):
                got, want = F.helmert(n, full), S.helmert(n, full)
                assert got.shape == want.shape
                np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


@pytest.mark.parametrize("m", range(2, 8))
def test_vector_constructors(m):
    a = POLY[:m]
    assert_eager_and_compiled(F.companion, (a,), S.companion(a), "companion")
    assert_eager_and_compiled(F.fiedler, (a,), S.fiedler(a), "fiedler")
    assert_eager_and_compiled(F.fiedler_companion, (a,), S.fiedler_companion(a), "fiedler_companion")
    assert_eager_and_compiled(F.leslie, (a, a[1:]), S.leslie(a, a[1:]), "leslie")
    for n in range(1, 6):
        for mode in ("full", "same", "valid"):
            assert_eager_and_compiled(lambda x: F.convolution_matrix(x, n, mode), (a,),
                                      S.convolution_matrix(a, n, mode), f"convolution_matrix({m}, {n}, {mode})")


def test_vector_constructors_dtypes_and_stacks():
    ints, stack = np.array([2, 3, 4]), RNG.uniform(-1, 1, (2, 3, 4)) + 2.0
    for f, args in ((F.companion, (ints,)), (F.leslie, (ints, ints[1:])), (F.fiedler, (ints,)),
                    (F.fiedler_companion, (ints,)), (F.companion, (stack,)), (F.fiedler, (stack,)),
                    (F.leslie, (stack, stack[..., 1:])), (F.leslie, (stack, np.ones(3)))):
        assert_exact(np.asarray(f(*args)), getattr(S, f.__name__)(*args), f.__name__)
    assert F.fiedler_companion([2.0]).shape == (0, 0)   # scipy: shape (0,)


def assert_grad_matches(ours, theirs, args, argnums=0, tol=1e-12):
    """frame.grad of sum(weights * ours(*args)) equals jax.grad of the same with jax.scipy's function."""
    out = jax.eval_shape(theirs, *map(jnp.asarray, args))
    weights = np.random.default_rng(1).uniform(-1, 1, out.shape)
    got = frame.grad(lambda *xs: (weights * ours(*xs)).sum(), argnums=argnums)(*args)
    # jit: one compilation instead of JAX's op-by-op dispatch (seconds for these small graphs)
    want = jax.jit(jax.grad(lambda *xs: jnp.sum(weights * theirs(*xs)), argnums=argnums))(*map(jnp.asarray, args))
    for g, w in zip(got if isinstance(argnums, tuple) else (got,), want if isinstance(argnums, tuple) else (want,)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


def test_vector_constructor_derivatives(jax_x64):
    a = POLY[:6]
    assert_grad_matches(F.companion, JS.companion, (a,))
    assert_grad_matches(F.fiedler, JS.fiedler, (a,))
    assert_grad_matches(F.fiedler_companion, JS.fiedler_companion, (a,))
    assert_grad_matches(F.leslie, JS.leslie, (a, a[1:]), argnums=(0, 1))
    for mode, n in (("full", 2), ("same", 9), ("valid", 3)):
        assert_grad_matches(lambda x: F.convolution_matrix(x, n, mode),
                            lambda x: JS.convolution_matrix(x, n, mode), (a,))


@pytest.mark.parametrize("shape, side", [((4, 4), "right"), ((5, 3), "left"), ((3, 5), "right")])
def test_polar(shape, side, jax_x64):
    a = RNG.uniform(-1, 1, shape)
    want_u, want_p = S.polar(a, side)
    for u, p in (F.polar(a, side), frame.function(lambda x: F.polar(x, side))(a)):
        np.testing.assert_allclose(u, want_u, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(p, want_p, rtol=1e-12, atol=1e-12)
    for k in (0, 1):
        assert_grad_matches(lambda x: F.polar(x, side)[k], lambda x: JS.polar(x, side, method="svd")[k], (a,))


def test_solve_sylvester(jax_x64):
    a, b = RNG.uniform(-1, 1, (3, 3)) + 2 * np.eye(3), RNG.uniform(-1, 1, (2, 2)) + np.eye(2)
    q = RNG.uniform(-1, 1, (3, 2))
    want = S.solve_sylvester(a, b, q)
    for got in (F.solve_sylvester(a, b, q), frame.function(F.solve_sylvester)(a, b, q)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
    # JAX's solve_sylvester goes through its Schur form, which it does not differentiate; the derivative
    # follows from differentiating a X + X b = q: a dX + dX b = dq - da X - X db, solved by scipy
    w = RNG.uniform(-1, 1, (3, 2))
    ga, gb, gq = frame.grad(lambda *xs: (w * F.solve_sylvester(*xs)).sum(), argnums=(0, 1, 2))(a, b, q)
    adj = S.solve_sylvester(a.T, b.T, w)   # the adjoint equation: a^T Y + Y b^T = w
    np.testing.assert_allclose(gq, adj, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ga, -adj @ want.T, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gb, -want.T @ adj, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("call, words", [
    (lambda: F.hadamard(3), "'hadamard'"), (lambda: F.hilbert(-1), "'hilbert'"),
    (lambda: F.pascal(3, kind="diag"), "'pascal'"), (lambda: F.dft(3, scale="x"), "'dft'"),
    (lambda: F.companion([1.0]), "'companion'"), (lambda: F.leslie([1.0, 2.0], [1.0, 2.0]), "'leslie'"),
    (lambda: F.fiedler_companion(np.zeros(0)), "'fiedler_companion'"),
    (lambda: F.convolution_matrix([1.0, 2.0], 0), "'convolution_matrix'"),
    (lambda: F.convolution_matrix([1.0, 2.0], 2, "wrap"), "'convolution_matrix'"),
    (lambda: F.polar(np.eye(2), side="up"), "'polar'"), (lambda: F.polar(np.ones((2, 2, 2))), "'polar'"),
    (lambda: F.solve_sylvester(np.eye(2), np.eye(3), np.ones((3, 2))), "'solve_sylvester'"),
])
def test_errors_are_named(call, words):
    with pytest.raises(ShapeError, match=words):
        call()
