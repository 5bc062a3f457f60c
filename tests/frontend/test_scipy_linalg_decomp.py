"""frame.scipy.linalg's Schur and Hessenberg forms and the functions on them (schur, rsf2csf, hessenberg, sqrtm,
funm, qr_multiply, eigh_tridiagonal) against scipy.linalg (eagerly and under frame.function, 1e-12), derivatives
against jax.grad (x64) where JAX has them, else against central differences; the refusals name the function."""
import numpy as np
import pytest
import scipy.linalg as S

import frame
import frame.numpy as fnp
import frame.scipy.linalg as F
from frame import ShapeError
from frame.errors import GradientError, TraceError

jax = pytest.importorskip("jax")
pytestmark = pytest.mark.usefixtures("jax_x64")   # x64 for this module only
JS = pytest.importorskip("jax.scipy.linalg")
jnp = jax.numpy

RNG = np.random.default_rng(7)
GENERAL = RNG.standard_normal((5, 5))                                  # complex eigenvalue pairs among real ones
STACK = RNG.standard_normal((2, 4, 4))
SPD = [m @ m.T + 0.5 * np.eye(4) + 0.2 * RNG.standard_normal((4, 4)) for m in RNG.standard_normal((2, 4, 4))]


def assert_close(got, want, what, tol=1e-12):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape, got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


def assert_eager_and_compiled(f, args, want, what, tol=1e-12):
    """f(*args) eagerly and under frame.function against `want` (a tuple of arrays or one)."""
    for mode, got in (("eager", f(*args)), ("compiled", frame.function(f)(*args))):
        pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
        for i, (g, w) in enumerate(pairs):
            assert_close(g, w, f"{what} {mode} [{i}]", tol)


def stacked(fn, *arrays):
    """scipy's fn matrix by matrix over the arrays' leading axis (tuples of results stacked entry by entry)."""
    results = [fn(*ms) for ms in zip(*arrays)]
    return tuple(np.stack(r) for r in zip(*results)) if isinstance(results[0], tuple) else np.stack(results)


def assert_grad_central(f, x, what, tol=1e-7):
    """frame.grad of the scalar f against central differences of f (h = 1e-5: truncation h^2 |f'''| and
    rounding eps |f| / h, both about 1e-10 here; tol leaves room for the conditioning of the matrix functions)."""
    got = np.asarray(frame.grad(f)(x))
    want = np.zeros_like(x)
    h = 1e-5
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        want[i] = (float(f(x + e)) - float(f(x - e))) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


# -- schur, rsf2csf ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("output", ["real", "complex"])
def test_schur_values(output):
    assert_eager_and_compiled(lambda a: F.schur(a, output), (GENERAL,), S.schur(GENERAL, output), f"schur {output}")
    assert_eager_and_compiled(lambda a: F.schur(a, output[0]), (STACK,), stacked(lambda m: S.schur(m, output), STACK),
                              f"schur {output} batched")


def test_schur_has_no_derivative_and_refuses_by_name():
    with pytest.raises(GradientError, match="schur"):
        frame.grad(lambda a: fnp.sum(F.schur(a)[0]))(GENERAL)
    with pytest.raises(ShapeError, match=r"scipy\.linalg\.schur.*\(3, 4\)"):
        F.schur(np.ones((3, 4)))
    with pytest.raises(ShapeError, match="scipy.linalg.schur"):
        F.schur(GENERAL, "upper")
    with pytest.raises(TraceError, match="scipy.linalg.schur.*sort"):
        F.schur(GENERAL, sort="lhp")
    with pytest.raises(ShapeError, match="scipy.linalg.schur.*complex"):
        F.schur(GENERAL + 1j)


def test_rsf2csf_values_and_derivative():
    t, z = S.schur(GENERAL)
    assert np.count_nonzero(np.abs(np.diagonal(t, -1)) > 1e-12), "the case needs a complex pair"
    assert_eager_and_compiled(F.rsf2csf, (t, z), S.rsf2csf(t, z), "rsf2csf")
    ts, zs = stacked(S.schur, STACK)
    assert_eager_and_compiled(F.rsf2csf, (ts, zs), stacked(S.rsf2csf, ts, zs), "rsf2csf batched")
    # JAX's rsf2csf is a composition too: the same derivative, at a real Schur form
    def objective(lib, t):
        tc, zc = (F.rsf2csf if lib is fnp else JS.rsf2csf)(t, z)
        return lib.sum(lib.real(tc) * lib.imag(tc)) + lib.sum(lib.real(zc) ** 2 * lib.imag(zc))
    assert_close(frame.grad(lambda t: objective(fnp, t))(t), np.asarray(jax.grad(lambda t: objective(jnp, t))(t)),
                 "rsf2csf grad vs jax")
    with pytest.raises(ShapeError, match="scipy.linalg.rsf2csf.*same size"):
        F.rsf2csf(t, np.eye(4))


# -- hessenberg --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_hessenberg_values(n):
    a = RNG.standard_normal((n, n))
    assert_eager_and_compiled(F.hessenberg, (a,), S.hessenberg(a), f"hessenberg {n}")
    assert_eager_and_compiled(lambda a: F.hessenberg(a, calc_q=True), (a,), S.hessenberg(a, calc_q=True),
                              f"hessenberg calc_q {n}")


def test_hessenberg_batched_and_derivative():
    assert_eager_and_compiled(lambda a: F.hessenberg(a, calc_q=True), (STACK,),
                              stacked(lambda m: S.hessenberg(m, calc_q=True), STACK), "hessenberg batched")
    # JAX's hessenberg has no derivative: central differences, for H and Q
    w = RNG.standard_normal((2, 5, 5))
    assert_grad_central(lambda a: fnp.sum(F.hessenberg(a, calc_q=True)[0] * w[0])
                        + fnp.sum(F.hessenberg(a, calc_q=True)[1] * w[1]), GENERAL, "hessenberg grad")
    with pytest.raises(ShapeError, match="scipy.linalg.hessenberg"):
        F.hessenberg(np.ones(3))


# -- sqrtm ---------------------------------------------------------------------------------------------------------
def test_sqrtm_values():
    for a in SPD + [GENERAL @ GENERAL]:   # no negative real eigenvalue: real roots
        assert_eager_and_compiled(F.sqrtm, (a,), S.sqrtm(a), "sqrtm", tol=1e-11)   # cond(a) up to ~1e3: 1e-12 relative
    assert_eager_and_compiled(F.sqrtm, (np.stack(SPD),), np.stack([S.sqrtm(a) for a in SPD]), "sqrtm batched", 1e-11)
    assert np.isnan(F.sqrtm(np.diag([-4.0, 9.0]))).all()    # no real principal root: nan (scipy's is complex)
    with pytest.raises(ShapeError, match="scipy.linalg.sqrtm"):
        F.sqrtm(np.ones((2, 3)))


def test_sqrtm_derivatives():
    # jax.scipy.linalg.sqrtm has no derivative (JAX's schur has none): central differences, orders 1 and 2
    a, w = SPD[0], RNG.standard_normal((4, 4))
    assert_grad_central(lambda a: fnp.sum(F.sqrtm(a) * w), a, "sqrtm grad")
    second = frame.grad(lambda a: fnp.sum(frame.grad(lambda b: fnp.sum(F.sqrtm(b) * w))(a) * w))
    h, want = 1e-5, 0.0
    g = frame.grad(lambda b: fnp.sum(F.sqrtm(b) * w))
    want = (np.sum(np.asarray(g(a + h * w)) * w) - np.sum(np.asarray(g(a - h * w)) * w)) / (2 * h)
    np.testing.assert_allclose(np.sum(np.asarray(second(a)) * w), want, rtol=1e-7)
    # the rule itself: X dX + dX X = dA
    x, dx = frame.jvp(F.sqrtm, (a,), (w,))
    assert_close(np.asarray(x) @ np.asarray(dx) + np.asarray(dx) @ np.asarray(x), w, "sylvester rule", 1e-11)


# -- funm ----------------------------------------------------------------------------------------------------------
def test_funm_values():
    assert_close(F.funm(GENERAL, np.exp), S.funm(GENERAL, np.exp), "funm exp eager")
    assert_close(frame.function(lambda a: F.funm(a, fnp.exp))(GENERAL), S.funm(GENERAL, np.exp), "funm exp compiled")
    assert_close(F.funm(GENERAL, fnp.cos), S.funm(GENERAL, np.cos), "funm cos")
    got, err = F.funm(GENERAL, np.sin, disp=False)
    want, want_err = S.funm(GENERAL, np.sin, disp=False)
    assert_close(got, want, "funm sin")
    np.testing.assert_allclose(float(err), want_err, rtol=1e-10)
    assert_close(F.funm(STACK, np.exp), np.stack([S.funm(m, np.exp) for m in STACK]), "funm batched")


# -- qr_multiply -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_qr_multiply(shape):
    a = RNG.standard_normal(shape)
    m, n = shape
    k = min(m, n)
    for mode, c in (("right", RNG.standard_normal((2, m))), ("left", RNG.standard_normal((k, 3))),
                    ("right", RNG.standard_normal(m)), ("left", RNG.standard_normal(k))):
        assert_eager_and_compiled(lambda a, c: F.qr_multiply(a, c, mode), (a, c), S.qr_multiply(a, c, mode),
                                  f"qr_multiply {mode} {c.shape}")
        # jax.scipy.linalg.qr_multiply has no derivative (geqrf): JAX's qr and the product
        wt = RNG.standard_normal(S.qr_multiply(a, c, mode)[0].shape)

        def jax_qr_multiply(a, c):
            q, r = jnp.linalg.qr(a)
            c2 = c.reshape((-1, 1) if mode == "left" else (1, -1)) if c.ndim == 1 else c
            return (q @ c2 if mode == "left" else c2 @ q).reshape(wt.shape), r
        got = frame.grad(lambda a, c: fnp.sum(F.qr_multiply(a, c, mode)[0] * wt) + fnp.sum(F.qr_multiply(a, c, mode)[1]),
                         argnums=(0, 1))(a, c)
        want = jax.grad(lambda a, c: jnp.sum(jax_qr_multiply(a, c)[0] * wt) + jnp.sum(jax_qr_multiply(a, c)[1]),
                        argnums=(0, 1))(a, c)
        if True:
            for g, w in zip(got, want):
                assert_close(g, np.asarray(w), f"qr_multiply grad {mode} {c.shape}")
    with pytest.raises(ShapeError, match="scipy.linalg.qr_multiply"):
        F.qr_multiply(a, np.ones((2, m + 1)))
    with pytest.raises(TraceError, match="scipy.linalg.qr_multiply.*pivoting"):
        F.qr_multiply(a, np.ones((2, m)), pivoting=True)


# -- eigh_tridiagonal ------------------------------------------------------------------------------------------------
def test_eigh_tridiagonal():
    d, e = RNG.standard_normal(6), RNG.standard_normal(5)
    assert_eager_and_compiled(lambda d, e: F.eigh_tridiagonal(d, e, eigvals_only=True), (d, e),
                              S.eigh_tridiagonal(d, e, eigvals_only=True), "eigvals")
    w, v = F.eigh_tridiagonal(d, e)
    w2, v2 = S.eigh_tridiagonal(d, e)
    assert_close(w, w2, "eigenvalues")
    assert_close(v * np.sign(v[0]), v2 * np.sign(v2[0]), "eigenvectors up to sign")   # LAPACK drivers' signs differ
    assert_eager_and_compiled(lambda d, e: F.eigh_tridiagonal(d, e, eigvals_only=True, select="i",
                                                              select_range=(1, 3)), (d, e),
                              S.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(1, 3)), "select i")
    # JAX's eigh_tridiagonal (bisection in a while loop) has no reverse derivative: JAX's eigvalsh of the matrix
    wt = RNG.standard_normal(6)
    got = frame.grad(lambda d, e: fnp.sum(F.eigh_tridiagonal(d, e, eigvals_only=True) * wt), argnums=(0, 1))(d, e)
    want = jax.grad(lambda d, e: jnp.sum(jnp.linalg.eigvalsh(jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(e, -1)) * wt),
                    argnums=(0, 1))(d, e)
    for g, w_ in zip(got, want):
        assert_close(g, np.asarray(w_), "eigh_tridiagonal grad")
    with pytest.raises(ShapeError, match="scipy.linalg.eigh_tridiagonal"):
        F.eigh_tridiagonal(d, e[:3])
    with pytest.raises(TraceError, match="scipy.linalg.eigh_tridiagonal.*select='v'"):
        F.eigh_tridiagonal(d, e, select="v", select_range=(0.0, 1.0))
