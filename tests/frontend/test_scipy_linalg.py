"""frame.scipy.linalg against scipy.linalg (values, shapes and dtypes, eagerly and compiled) and its
derivatives against jax.scipy.linalg's (order 1, jax.grad) and against JAX's derivatives of frame's
lowered graphs (orders 1 and 2, check_derivatives); the refusals name the function."""
import jax
import jax.numpy as jnp
import jax.scipy.linalg as JS
import numpy as np
import pytest
import scipy.linalg as S

import frame
import frame.numpy as fnp
import frame.scipy.linalg as F
from frame import ShapeError, TraceError
from frame.interop import check_derivatives

RNG = np.random.default_rng(0)
A = RNG.uniform(-1, 1, (4, 4)) + 3 * np.eye(4)          # far from singular; not symmetric, not triangular
SPD = A @ A.T
SYM = 0.3 * (A + A.T) + np.diag(3.0 * np.arange(4))       # well separated eigenvalues
B, BV = RNG.uniform(-1, 1, (4, 2)), RNG.uniform(-1, 1, 4)
TALL, WIDE = RNG.uniform(-1, 1, (5, 3)), RNG.uniform(-1, 1, (2, 4))
C, R = RNG.uniform(-1, 1, 4), RNG.uniform(-1, 1, 3)
STACK = RNG.uniform(-1, 1, (2, 4, 4)) + 3 * np.eye(4)


def _call(f, args, kwargs):
    return lambda *xs: f(*xs, **kwargs)


# name: (frame.scipy.linalg call, scipy's (the reference) call, arguments, keyword arguments)
VALUES = {
    "solve_triangular": ("solve_triangular", None, (A, B), {}),
    "solve_triangular-lower-vector": ("solve_triangular", None, (A, BV), {"lower": True}),
    "solve_triangular-trans": ("solve_triangular", None, (A, B), {"trans": "T", "unit_diagonal": True}),
    "solve_triangular-trans2-lower": ("solve_triangular", None, (A, B), {"trans": 2, "lower": True}),
    "solve_triangular-batched": ("solve_triangular", None, (STACK, B), {"lower": True, "trans": 1}),
    "solve_triangular-float32": ("solve_triangular", None, (A.astype(np.float32), B.astype(np.float32)), {}),
    "solve_triangular-int": ("solve_triangular", None, (np.array([[2, 1], [0, 4]]), np.array([1, 2])), {}),
    "cholesky": ("cholesky", None, (SPD,), {}),
    "cholesky-lower": ("cholesky", None, (SPD,), {"lower": True}),
    "cholesky-float32": ("cholesky", None, (SPD.astype(np.float32),), {}),
    "solve-gen": ("solve", None, (A, B), {}),
    "solve-vector-transposed": ("solve", None, (A, BV), {"transposed": True}),
    "solve-batched": ("solve", None, (STACK, RNG.uniform(-1, 1, (3, 1, 4, 2))), {"assume_a": "gen"}),
    "solve-int": ("solve", None, (np.array([[3, 1], [1, 2]]), np.array([1, 0])), {}),
    "inv": ("inv", None, (A,), {}),
    "inv-pos": ("inv", None, (SPD,), {"assume_a": "pos", "lower": True}),
    "inv-upper": ("inv", None, (A,), {"assume_a": "upper triangular"}),
    "inv-diagonal": ("inv", None, (np.diag([2.0, -4.0, 0.5]),), {"assume_a": "diagonal"}),
    "inv-batched-float32": ("inv", None, (STACK.astype(np.float32),), {}),
    "det": ("det", None, (A,), {}),
    "det-batched": ("det", None, (STACK,), {}),
    "det-int": ("det", None, (np.array([[2, 1], [1, 3]]),), {}),
    "det-empty": ("det", None, (np.zeros((0, 0)),), {}),
    # scipy's default driver (evr) may give eigenvectors of the other sign; frame computes numpy's syevd
    "eigh": ("eigh", lambda a, **k: S.eigh(a, driver="evd", **k), (A + np.diag(3.0 * np.arange(4)),), {}),
    "eigh-upper": ("eigh", lambda a, **k: S.eigh(a, driver="evd", **k), (A + np.diag(3.0 * np.arange(4)),),
                   {"lower": False}),
    "eigh-values": ("eigh", None, (SYM,), {"eigvals_only": True}),
    "eigh-subset": ("eigh", lambda a, **k: S.eigh(a, driver="evr", **k), (SYM,), {"subset_by_index": (1, 2)}),
    "eigh-batched": ("eigh", lambda a: tuple(map(np.stack, zip(*[S.eigh(m, driver="evd") for m in a]))),
                     (np.stack([SYM, SYM + np.eye(4)]),), {}),
    **{f"eigh-general-{t}-{'lower' if lo else 'upper'}": ("eigh", None, (A + np.diag(3.0 * np.arange(4)), SPD),
                                                          {"type": t, "lower": lo})
       for t in (1, 2, 3) for lo in (True, False)},
    "svd": ("svd", None, (TALL,), {}),
    "svd-reduced": ("svd", None, (WIDE,), {"full_matrices": False}),
    "svd-values": ("svd", None, (TALL,), {"compute_uv": False}),
    "qr-full": ("qr", None, (TALL,), {}),
    "qr-economic": ("qr", None, (TALL,), {"mode": "economic"}),
    "qr-r": ("qr", None, (TALL,), {"mode": "r"}),
    "qr-wide": ("qr", None, (WIDE,), {"mode": "full"}),
    "pinv": ("pinv", None, (TALL,), {}),
    "pinv-atol-rank": ("pinv", None, (np.outer([1.0, 2.0, 3.0], [1.0, 0.0, 1.0]) + 1e-3 * TALL[:3],),
                       {"atol": 0.01, "return_rank": True}),
    "pinv-rtol": ("pinv", None, (WIDE,), {"rtol": 0.5}),
    "pinv-empty": ("pinv", None, (np.zeros((0, 3)),), {}),
    "block_diag": ("block_diag", None, (np.ones((2, 2)), np.arange(3.0), np.float64(5), np.zeros((0, 2))), {}),
    "block_diag-none": ("block_diag", None, (), {}),
    "block_diag-int-bool": ("block_diag", None, ([1, 2], [[True]]), {}),
    "block_diag-float32-int": ("block_diag", None, (np.ones((2, 2), np.float32), np.int64(3)), {}),
    "block_diag-batched": ("block_diag", None, (RNG.uniform(size=(2, 2, 3)), RNG.uniform(size=(1, 1))), {}),
    "toeplitz": ("toeplitz", None, (C, R), {}),
    "toeplitz-c": ("toeplitz", None, (C,), {}),
    "toeplitz-int": ("toeplitz", None, ([1, 2, 3], [4, 5]), {}),
    "toeplitz-complex": ("toeplitz", None, (C + 1j * C[::-1],), {}),
    "toeplitz-batched": ("toeplitz", None, (RNG.uniform(size=(2, 4)), RNG.uniform(size=3)), {}),
    "toeplitz-scalar": ("toeplitz", None, (3.0,), {}),
    "toeplitz-empty": ("toeplitz", None, (np.zeros(0), np.zeros(2)), {}),
    "hankel": ("hankel", None, (C, R), {}),
    "hankel-c": ("hankel", None, (C,), {}),
    "hankel-float32": ("hankel", None, (C.astype(np.float32), R.astype(np.float32)), {}),
    "circulant": ("circulant", None, (C,), {}),
    "circulant-batched-int": ("circulant", None, (np.arange(6).reshape(2, 3),), {}),
    "expm": ("expm", None, (RNG.uniform(-1, 1, (4, 4)),), {}),
    "expm-small": ("expm", None, (0.01 * RNG.uniform(-1, 1, (4, 4)),), {}),
    "expm-large": ("expm", None, (20 * RNG.uniform(-1, 1, (3, 3)),), {}),
    "expm-batched": ("expm", None, (RNG.uniform(-1, 1, (2, 3, 3)),), {}),
    "expm-diagonal": ("expm", None, (np.diag([1.0, 2.0, -3.0]),), {}),
    "expm-upper": ("expm", None, (np.triu(3 * RNG.uniform(-1, 1, (3, 3))),), {}),
    "expm-1x1": ("expm", None, (np.array([[2.0]]),), {}),
    "expm-float32": ("expm", None, (RNG.uniform(-1, 1, (3, 3)).astype(np.float32),), {}),
    "expm-int": ("expm", None, (np.array([[1, 2], [0, 1]]),), {}),
    "expm-empty": ("expm", None, (np.zeros((0, 0)),), {}),
    "expm_frechet": ("expm_frechet", None, (RNG.uniform(-1, 1, (3, 3)), RNG.uniform(-1, 1, (3, 3))), {}),
    "expm_frechet-only": ("expm_frechet", None, (RNG.uniform(-1, 1, (3, 3)), RNG.uniform(-1, 1, (3, 3))),
                          {"compute_expm": False}),
}
VALUES.update({f"solve-{assume.replace(' ', '_')}-{'lower' if lower else 'upper'}{'-T' if tr else ''}":
               ("solve", None, (SPD if assume == "pos" else A, B),
                {"assume_a": assume, "lower": lower, "transposed": tr})
               for assume in ("sym", "her", "pos", "diagonal", "tridiagonal", "banded", "upper triangular",
                              "lower triangular", "general") for lower in (False, True) for tr in (False, True)})
VALUES.update({f"cho_solve-{lower}{'-vector' if v else ''}": (
    lambda a, b, lower=lower: F.cho_solve(F.cho_factor(a, lower=lower), b),
    lambda a, b, lower=lower: S.cho_solve(S.cho_factor(a, lower=lower), b), (SPD, BV if v else B), {})
    for lower in (False, True) for v in (False, True)})


def assert_matches(ours, ref, name, tol):
    ours, ref = (ours, ref) if isinstance(ref, tuple) else ((ours,), (ref,))
    assert isinstance(ours, tuple) and len(ours) == len(ref), name
    for o, r in zip(ours, ref):
        o, r = np.asarray(o), np.asarray(r)
        assert (o.shape, o.dtype) == (r.shape, r.dtype), f"{name}: {o.dtype}{o.shape} vs scipy's {r.dtype}{r.shape}"
        t = tol if r.dtype in (np.float64, np.complex128) else 1e-5
        np.testing.assert_allclose(o, r, rtol=t, atol=t, err_msg=name)


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_match_scipy_eagerly_and_compiled(name):
    ours, ref, args, kwargs = VALUES[name]
    ours = getattr(F, ours) if isinstance(ours, str) else ours
    ref = ref or getattr(S, VALUES[name][0])
    want = ref(*args, **kwargs)
    if isinstance(want, tuple) and name.startswith("pinv"):   # scipy's rank: a Python int
        want = (want[0], np.int64(want[1]))
    tol = 1e-10 if name == "expm-large" else 1e-11   # |A| about 20: differences of about 1e-12 relative
    assert_matches(ours(*args, **kwargs), want, f"{name} (eager)", tol)
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    def traced(*xs):
        full = list(args)
        for i, x in zip(arrays, xs):
            full[i] = x
        return ours(*full, **kwargs)

    assert_matches(frame.function(traced)(*[args[i] for i in arrays]), want, f"{name} (compiled)", tol)


@pytest.mark.parametrize("a, b", [(TALL, RNG.uniform(-1, 1, 5)), (TALL, RNG.uniform(-1, 1, (5, 2))),
                                  (WIDE, RNG.uniform(-1, 1, (2, 3))),
                                  (TALL.astype(np.float32), np.ones(5, np.float32))])
def test_lstsq_matches_scipy(a, b):
    x, residues, rank, s = S.lstsq(a, b)
    for got in (F.lstsq(a, b), frame.function(F.lstsq)(a, b)):
        assert_matches(tuple(got), (x, residues, np.int64(rank), s), "lstsq", 1e-11)


def test_lstsq_gives_residues_whenever_m_exceeds_n():
    # rank 1 < n = 2: scipy's residues are empty (a value-dependent shape); frame's are the sum of squares
    a, b = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.array([1.0, 0.0, 1.0])
    x, residues, rank, _ = F.lstsq(a, b)
    assert S.lstsq(a, b)[1].shape == (0,) and rank == 1
    np.testing.assert_allclose(residues, np.sum((b - a @ x) ** 2), rtol=1e-12)


def test_documented_differences_from_scipy():
    # cho_factor's other triangle: zeros (JAX's), where scipy leaves a's entries; cho_solve reads neither
    c, lower = F.cho_factor(SPD)
    np.testing.assert_array_equal(np.tril(c, -1), 0)
    np.testing.assert_allclose(np.triu(c), np.triu(S.cho_factor(SPD)[0]), rtol=1e-12)
    # inv(assume_a='diagonal') of a matrix that is not: the inverse of its diagonal (scipy keeps a's other entries)
    np.testing.assert_allclose(F.inv(A, assume_a="diagonal"), np.diag(1 / np.diag(A)), rtol=1e-14)
    # hankel of stacks: a stack of matrices (JAX's reading, scipy's from 1.19; 1.17 flattens them)
    c = RNG.uniform(size=(2, 3))
    with jax.enable_x64(True):
        np.testing.assert_allclose(F.hankel(c, c[::-1]), JS.hankel(c, c[::-1]), rtol=1e-15)
    # solve's 'sym' reads one triangle: equal to scipy's for a matrix that is not symmetric
    np.testing.assert_allclose(F.solve(A, B, assume_a="sym"), S.solve(A, B, assume_a="sym"), rtol=1e-11)


@pytest.mark.parametrize("scale", [0.01, 0.5, 3.0, 40.0])
def test_traced_expm_agrees_with_scipy_and_eager(scale):
    """Traced A: Pade-13 and ceil(log2(|A|_1 / theta_13)) squarings in the graph; concrete: scipy's choice."""
    rng = np.random.default_rng(int(scale * 100))
    for _ in range(5):
        a = scale * rng.uniform(-1, 1, (4, 4))
        want = S.expm(a)
        for got in (F.expm(a), frame.function(F.expm)(a)):
            np.testing.assert_allclose(got, want, rtol=1e-10 if scale > 1 else 1e-13, atol=1e-14 * np.abs(want).max())


def test_traced_expm_is_nan_beyond_max_squarings_as_jax():
    a = np.array([[0.0, 1e3], [0.0, 0.0]])   # |A|_1 = 1000: 8 squarings (expm is exact: I + A)
    np.testing.assert_allclose(frame.function(F.expm)(a), S.expm(a), rtol=1e-12)
    capped = frame.function(lambda x: F.expm(x, max_squarings=4))(a)
    assert np.all(np.isnan(capped))
    with jax.enable_x64(True):
        assert np.all(np.isnan(JS.expm(a, max_squarings=4)))


# -- derivatives ----------------------------------------------------------------------------------
def _sym(x):
    return (x + x.T) / 2


# name: (frame function, jax.scipy.linalg function, arguments); operands read by one triangle are
# symmetrised first on both sides (JAX differentiates both triangles, scipy reads one).
DERIVATIVES = {
    "solve_triangular": (lambda a, b: F.solve_triangular(a, b, lower=True),
                         lambda a, b: JS.solve_triangular(a, b, lower=True), (A, B)),
    "solve_triangular-trans-unit": (lambda a, b: F.solve_triangular(a, b, trans=1, unit_diagonal=True),
                                    lambda a, b: JS.solve_triangular(a, b, trans=1, unit_diagonal=True), (A, BV)),
    "cho_solve": (lambda a, b: F.cho_solve(F.cho_factor(_sym(a)), b),
                  lambda a, b: JS.cho_solve(JS.cho_factor(_sym(a)), b), (SPD, B)),
    "cholesky-lower": (lambda a: F.cholesky(_sym(a), lower=True), lambda a: JS.cholesky(_sym(a), lower=True), (SPD,)),
    "solve-gen": (F.solve, JS.solve, (A, B)),
    "solve-pos": (lambda a, b: F.solve(_sym(a), b, assume_a="pos"), lambda a, b: JS.solve(_sym(a), b, assume_a="pos"),
                  (SPD, BV)),
    "inv": (F.inv, JS.inv, (A,)),
    "det": (F.det, JS.det, (A,)),
    "eigh": (lambda a: F.eigh(_sym(a)), lambda a: JS.eigh(_sym(a)), (SYM,)),
    "svd": (lambda a: F.svd(a, full_matrices=False), lambda a: JS.svd(a, full_matrices=False), (TALL,)),
    "qr-economic": (lambda a: F.qr(a, mode="economic"), lambda a: JS.qr(a, mode="economic"), (TALL,)),
    "qr-full-square": (F.qr, JS.qr, (A,)),
    "pinv": (F.pinv, jnp.linalg.pinv, (TALL,)),
    "lstsq": (lambda a, b: F.lstsq(a, b)[0], lambda a, b: jnp.linalg.lstsq(a, b)[0], (TALL, RNG.uniform(-1, 1, 5))),
    "block_diag": (F.block_diag, JS.block_diag, (TALL, np.arange(2.0), WIDE)),
    "toeplitz": (F.toeplitz, JS.toeplitz, (C, R)),
    "hankel": (F.hankel, JS.hankel, (C, R)),
    "circulant": (F.circulant, JS.circulant, (C,)),
    "expm": (F.expm, JS.expm, (RNG.uniform(-1, 1, (3, 3)),)),
    "expm-scaled": (F.expm, JS.expm, (8 * RNG.uniform(-1, 1, (3, 3)),)),
    "expm_frechet": (F.expm_frechet, JS.expm_frechet, (RNG.uniform(-1, 1, (3, 3)), RNG.uniform(-1, 1, (3, 3)))),
}


def _contracted(f, weights, np_):
    def scalar(*xs):
        out = f(*xs)
        leaves = out if isinstance(out, tuple) else (out,)
        return sum(np_.sum(leaf * w) for leaf, w in zip(leaves, weights))
    return scalar


@pytest.mark.parametrize("name", sorted(DERIVATIVES))
def test_first_derivatives_match_jax_scipy_linalg(name):
    ours, theirs, args = DERIVATIVES[name]
    out = ours(*args)
    rng = np.random.default_rng(1)
    weights = [rng.uniform(0.5, 1.5, np.shape(o)) for o in (out if isinstance(out, tuple) else (out,))]
    argnums = tuple(range(len(args)))
    got = frame.grad(_contracted(ours, weights, fnp), argnums=argnums)(*args)
    with jax.enable_x64(True):
        want = jax.grad(_contracted(theirs, weights, jnp), argnums=argnums)(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-8, atol=1e-10, err_msg=name)


SECOND_ORDER = ["solve_triangular", "cho_solve", "solve-pos", "inv", "eigh", "qr-economic", "toeplitz", "hankel",
                "circulant", "block_diag", "expm", "pinv",
                *[pytest.param(n, marks=pytest.mark.slow) for n in ("expm-scaled", "expm_frechet")]]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_derivatives_to_second_order_match_jax_on_the_lowered_graph(name):
    ours, _, args = DERIVATIVES[name]
    report = check_derivatives(ours, *args, argnums=tuple(range(len(args))), orders=(1, 2))
    assert report.passed and {e.order for e in report.entries} == {0, 1, 2}


def test_generalised_eigh_differentiates_to_second_order():
    f = lambda a, b: F.eigh(_sym(a), _sym(b), type=2)  # noqa: E731
    check_derivatives(f, A + np.diag(3.0 * np.arange(4)), SPD, argnums=(0, 1), orders=(1, 2))


# -- refusals ------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, error, pattern", [
    (lambda: F.solve_triangular(A, B, trans=3), ShapeError, r"op 'solve_triangular': trans must be"),
    (lambda: F.solve_triangular(A[:3], B), ShapeError, r"op 'solve_triangular': a must be a square.*\(3, 4\)"),
    (lambda: F.solve_triangular(A, np.ones(3)), ShapeError, r"op 'solve_triangular': b must be \(4,\).*got \(3,\)"),
    (lambda: F.solve_triangular(np.eye(2) * 1j, np.ones(2)), ShapeError, r"op 'triangular_solve' needs a float"),
    (lambda: F.solve(A, B, assume_a="lu"), ShapeError, r"op 'solve': assume_a='lu' is not a recognized"),
    (lambda: F.inv(A, assume_a="tri"), ShapeError, r"op 'inv': assume_a='tri'"),
    (lambda: F.cho_solve((SPD, True), np.ones((3, 2))), ShapeError, r"op 'cho_solve': b must be"),
    (lambda: F.det(np.ones(3)), ShapeError, r"op 'det': a must be a square"),
    (lambda: F.eigh(SYM, subset_by_value=(0, 1)), TraceError, r"op 'eigh': subset_by_value"),
    (lambda: F.eigh(SYM, subset_by_index=(2, 5)), ShapeError, r"op 'eigh': subset_by_index"),
    (lambda: F.eigh(SYM, type=4), ShapeError, r"op 'eigh': type must be"),
    (lambda: F.eigh(SYM, np.eye(3)), ShapeError, r"op 'eigh': a and b must have the same size"),
    (lambda: F.eigh(SYM, driver="xyz"), ShapeError, r"op 'eigh': driver"),
    (lambda: F.svd(TALL, lapack_driver="x"), ShapeError, r"op 'svd': lapack_driver"),
    (lambda: F.qr(TALL, pivoting=True), TraceError, r"op 'qr': pivoting"),
    (lambda: F.qr(TALL, mode="raw"), TraceError, r"op 'qr': mode='raw'"),
    (lambda: F.qr(TALL, mode="complete"), ShapeError, r"op 'qr': mode must be"),
    (lambda: F.lstsq(TALL, np.ones(5), lapack_driver="x"), ShapeError, r"op 'lstsq': lapack_driver"),
    (lambda: F.pinv(np.ones(3)), ShapeError, r"op 'pinv': a must be a matrix"),
    (lambda: F.pinv(TALL, atol=-1.0), ShapeError, r"op 'pinv': atol and rtol must be >= 0"),
    (lambda: F.toeplitz(np.ones((2, 3)), np.ones((3, 2))), ShapeError, r"op 'toeplitz': the batch axes"),
    (lambda: F.expm(np.ones((2, 3))), ShapeError, r"op 'expm': a must be a square"),
    (lambda: F.expm_frechet(A, np.ones((3, 3))), ShapeError, r"op 'expm_frechet': A and E must have the same shape"),
])
def test_bad_arguments_are_refused_by_name(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
    with pytest.raises(error, match=pattern):   # the same when traced
        frame.trace(lambda x: (call(), x)[1], np.ones(1))


@pytest.mark.parametrize("call", [lambda: F.solve_triangular(np.triu(A) - np.diag(np.diag(A)), B),
                                  lambda: F.cholesky(-SPD)])
def test_singular_triangles_and_indefinite_matrices_raise_linalgerror_naming_the_op(call):
    for run in (call, lambda: frame.function(lambda x: call() + x)(np.zeros(1))):
        with pytest.raises(np.linalg.LinAlgError, match=r"op '(triangular_solve|cholesky)'") as info:
            run()
        assert isinstance(info.value, frame.FrameError)
