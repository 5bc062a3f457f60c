"""frame.numpy's linear algebra beyond the agreement table: the `@` operator's numpy rules, errors that
name the function and shapes, the derivatives JAX does not define (refused), the norm's gradient at
zero (JAX's nan), invariants of the factorisations differentiated to second order against JAX, and
lstsq's documented residuals."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import GradientError, ShapeError, TraceError
from frame.interop import check_derivatives

RNG = np.random.default_rng(0)
A = RNG.uniform(-1, 1, (3, 4))
V = RNG.uniform(-1, 1, 4)


@pytest.mark.parametrize("f, args", [(lambda x, v: x @ v, (A, V)), (lambda x, v: v @ x.T, (A, V)),
                                     (lambda x, v: v @ v, (A, V)), (lambda x, v: A @ v + 0.0 * fnp.sum(x), (A, V))])
def test_matmul_operator_follows_numpy_rank_rules_traced_and_eager(f, args):
    want = f(*args)
    got = frame.function(f)(*args)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    graph = frame.trace(f, *args)
    assert [n.op for n in graph.nodes].count("matmul") == 1


@pytest.mark.parametrize("call, pattern", [
    (lambda: fnp.matmul(np.float64(2.0), A), r"'matmul'.*operand 0.*enough dimensions"),
    (lambda: fnp.dot(A, A), r"shape-mismatch.*\(3, 4\).*\(3, 4\)"),
    (lambda: fnp.tensordot(A, A, axes=([0], [1])), r"shape-mismatch"),
    (lambda: fnp.tensordot(A, A, axes=3), r"tensordot.*axes=3.*ranks 2 and 2"),
    (lambda: fnp.vdot(A, V), r"vdot.*12 and 4"),
    (lambda: fnp.einsum("ij,jk->ik", A, A), r"einsum.*label j.*4 and 3"),
    (lambda: fnp.einsum("ij->ii", A), r"einsum.*repeated"),
    (lambda: fnp.einsum("ij->k", A), r"einsum.*'k'"),
    (lambda: fnp.einsum("ijk", A), r"einsum.*'ijk'.*\(3, 4\)"),
    (lambda: fnp.einsum("...i->i", np.ones((2, 3))), r"einsum.*no '\.\.\.'"),
    (lambda: fnp.trace(V), r"diagonal.*rank >= 2"),
    (lambda: fnp.linalg.inv(A), r"'inv'.*square.*\(3, 4\)"),
    (lambda: fnp.linalg.solve(np.eye(3), np.ones(4)), r"'solve'.*\(3, 3\)"),
    (lambda: fnp.linalg.eigh(np.eye(2), UPLO="X"), r"'eigh'.*UPLO"),
    (lambda: fnp.linalg.norm(V, "fro"), r"norm.*'fro'.*vectors"),
    (lambda: fnp.linalg.norm(A, 3), r"norm.*3.*matrices"),
    (lambda: fnp.linalg.norm(np.ones((2, 2, 2)), 1), r"norm.*1-D or 2-D"),
    (lambda: fnp.linalg.lstsq(np.ones((2, 2, 2)), np.ones(2)), r"'lstsq'.*\(2, 2, 2\)"),
    (lambda: fnp.linalg.qr(A, mode="raw"), r"qr: mode='raw'"),
    (lambda: fnp.linalg.svd(A, hermitian=True), r"svd.*hermitian"),
])
def test_bad_arguments_raise_errors_naming_the_function(call, pattern):
    with pytest.raises((ShapeError, TraceError), match=pattern):
        call()
    with pytest.raises((ShapeError, TraceError), match=pattern):   # the same when traced
        frame.trace(lambda x: (call(), x)[1], np.ones(1))


def test_derivatives_jax_does_not_define_are_refused():
    tall = RNG.uniform(-1, 1, (4, 2))
    u, s, vh = fnp.linalg.svd(tall)                           # values: numpy's full factors
    for got, want in zip((u, s, vh), np.linalg.svd(tall)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    with pytest.raises(GradientError, match="'svd'.*full_matrices=True.*4x2"):
        frame.grad(lambda a: fnp.sum(fnp.linalg.svd(a).S))(tall)
    # S alone differentiates (compute_uv=False computes the reduced decomposition)
    g = frame.grad(lambda a: fnp.sum(fnp.linalg.svd(a, compute_uv=False)))(tall)
    with jax.enable_x64(True):
        np.testing.assert_allclose(g, jax.grad(lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False)))(tall),
                                   rtol=1e-12)


@pytest.mark.parametrize("ord, shape", [(None, (3,)), (2, (3,)), ("fro", (2, 2)), (None, (2, 2))])
def test_norm_gradient_at_zero_is_nan_as_in_jax(ord, shape):
    zeros = np.zeros(shape)
    g = frame.grad(lambda x: fnp.linalg.norm(x, ord))(zeros)
    with jax.enable_x64(True):
        want = jax.grad(lambda x: jnp.linalg.norm(x, ord))(zeros)
    assert np.all(np.isnan(g)) and np.all(np.isnan(want))


def _sym(rng, n):
    m = 0.3 * rng.uniform(-1, 1, (n, n))
    return m + m.T + np.diag(2.0 * np.arange(n))


@pytest.mark.parametrize("f", [
    lambda a: fnp.sum(fnp.linalg.eigh(a).eigenvalues ** 3.0),
    lambda a: fnp.sum((lambda w, v: (v * v) @ w)(*fnp.linalg.eigh(a)) * fnp.arange(3.0)),
    lambda a: fnp.sum(fnp.abs(fnp.linalg.svd(a, full_matrices=False).U[:, 0]) * fnp.arange(3.0)),
    lambda a: fnp.linalg.norm(a, 2) + fnp.linalg.norm(a, "nuc") + fnp.linalg.norm(a, -2),
    lambda a: fnp.linalg.slogdet(a).logabsdet + fnp.linalg.det(a) + fnp.trace(fnp.linalg.inv(a)),
    lambda a: fnp.einsum("ij,ji->", fnp.linalg.cholesky(a @ a.T + 3.0 * fnp.eye(3)), a),
    lambda a: fnp.sum(fnp.linalg.lstsq(fnp.concatenate([a, a + 1.0]), fnp.ones(6))[0] ** 2.0),
])
def test_invariants_of_factorisations_match_jax_to_second_order(f):
    report = check_derivatives(f, _sym(np.random.default_rng(1), 3), argnums=0)
    assert report.passed and {e.order for e in report.entries} == {0, 1, 2}


def test_lstsq_gives_residuals_whenever_m_exceeds_n():
    # rank 1 < n = 2: numpy's residuals are empty (a value-dependent shape); frame's are the sums of squares
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    b = np.array([1.0, 0.0, 1.0])
    x, residuals, rank, s = fnp.linalg.lstsq(a, b)
    want = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(x, want[0], rtol=1e-12)
    assert want[1].shape == (0,) and rank == want[2] == 1
    np.testing.assert_allclose(residuals, [np.sum((b - a @ x) ** 2)], rtol=1e-12)


@pytest.mark.parametrize("call", [lambda: fnp.linalg.inv(np.zeros((2, 2))), lambda: fnp.linalg.solve(np.zeros((2, 2)), np.ones(2)),
                                  lambda: fnp.linalg.cholesky(-np.eye(2))])
def test_singular_and_indefinite_matrices_raise_numpys_linalgerror_as_a_frame_error(call):
    for run in (call, lambda: frame.function(lambda x: (call(), x)[0] + x)(np.zeros(1))):
        with pytest.raises(np.linalg.LinAlgError, match=r"op '(inv|solve|cholesky)'") as info:
            run()
        assert isinstance(info.value, frame.FrameError)


def test_integer_and_bool_matrices_compute_in_float64_as_numpy_linalg_does():
    a = np.array([[2, 1], [1, 3]])
    b = np.array([[1], [2]], np.int32)
    for name, args in [("inv", (a,)), ("det", (a,)), ("cholesky", (a,)), ("solve", (a, b)), ("eigh", (a,)),
                       ("slogdet", (a,)), ("qr", (a,)), ("svd", (np.eye(2, dtype=bool),))]:
        want = getattr(np.linalg, name)(*args)
        for got in (getattr(fnp.linalg, name)(*args), frame.function(getattr(fnp.linalg, name))(*args)):
            for g, w in zip(np.atleast_1d(got) if not isinstance(want, tuple) else got,
                            np.atleast_1d(want) if not isinstance(want, tuple) else want):
                assert np.asarray(g).dtype == np.asarray(w).dtype == np.float64, name
                np.testing.assert_allclose(np.abs(g), np.abs(w), rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: fnp.linalg.vector_norm(V, ord="fro"), ShapeError, r"op 'vector_norm': invalid norm order 'fro'"),
    (lambda: fnp.linalg.vector_norm(A, axis=(0, -2)), ShapeError, r"op 'vector_norm': repeated axis"),
    (lambda: fnp.linalg.vector_norm(A, axis=2), ShapeError, r"'vector_norm': axis 2 is out of range"),
    (lambda: fnp.linalg.matrix_norm(V), ShapeError, r"op 'matrix_norm': needs \(stacks of\) matrices.*\(4,\)"),
    (lambda: fnp.linalg.matrix_norm(A, ord=3), ShapeError, r"invalid norm order 3 for matrices"),
    (lambda: fnp.linalg.tensorinv(np.ones((2, 2)), ind=0), ShapeError, r"op 'tensorinv': ind must be a positive"),
    (lambda: fnp.linalg.tensorinv(np.ones((2, 8)), ind=1), np.linalg.LinAlgError,
     r"op 'tensorinv': the first 1 dimensions of a \(2, 8\) hold 2 elements, the others 8"),
    (lambda: fnp.linalg.tensorsolve(np.ones((2, 3, 4)), np.ones((2, 3))), np.linalg.LinAlgError,
     r"op 'tensorsolve': a of shape \(2, 3, 4\)"),
    (lambda: fnp.linalg.tensorsolve(np.ones((2, 3, 6)), np.ones((2, 3)), axes=(3,)), ShapeError,
     r"'tensorsolve': axis 3 is out of range"),
])
def test_numpy2_linalg_names_refuse_bad_arguments_by_name(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
    with pytest.raises(error, match=pattern):   # the same when traced
        frame.trace(lambda x: (call(), x)[1], np.ones(1))


def test_tensorsolve_takes_negative_axes_as_numpy_takes_their_positive_spelling():
    # numpy's tensorsolve removes `axes` from a list of the positive axes: a negative one fails there
    a = (np.eye(6) + 0.3 * RNG.uniform(-1, 1, (6, 6))).reshape(2, 3, 2, 3)
    b = RNG.uniform(-1, 1, (2, 3))
    want = np.linalg.tensorsolve(a, b, axes=(0, 1))
    for got in (fnp.linalg.tensorsolve(a, b, axes=(-4, -3)),
                frame.function(lambda a, b: fnp.linalg.tensorsolve(a, b, axes=(-4, 1)))(a, b)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
