"""`from_jax` of the lax.linalg primitives (frame/interop/jax_rules_linalg.py): cholesky and eigh of
symmetrised operands, svd, qr and triangular_solve import as frame's ops with JAX's values, and frame's
derivatives of the imported graphs are jax.grad's (second order through check_derivatives). lu,
lu_pivots_to_permutation and jnp.linalg.solve's custom_linear_solve import too (jnp.linalg.solve/inv,
jax.scipy.linalg.lu_factor/lu_solve/lu, lax.linalg.lu: values to 1e-12, gradients to 1e-10); what frame
cannot import exactly (det/slogdet of 4x4 and larger: a custom_jvp, importing only when inlined; other custom_linear_solves; an
unsymmetrised cholesky) is refused by name."""
import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
from jax import lax

import frame
from frame import TraceError
from frame.compiler import build_backward_graph
from frame.interop import check_derivatives, from_jax

RNG = np.random.default_rng(0)
M = RNG.uniform(-1, 1, (3, 3))
SPD = M @ M.T + 3 * np.eye(3)
SPREAD = 0.3 * (M + M.T) + np.diag([0.0, 2.0, 4.0])
TALL = np.linalg.qr(RNG.standard_normal((4, 3)))[0] @ np.diag([3.0, 2.0, 1.0]) @ np.linalg.qr(RNG.standard_normal((3, 3)))[0]
B = RNG.uniform(-1, 1, (3, 2))
SPD4 = np.eye(4) * 2 + 0.1

# name: (JAX function, operands, the frame op the linalg primitive becomes)
FUNCTIONS = {
    "cholesky": (jnp.linalg.cholesky, (SPD,), "cholesky"),
    "det_3x3": (jnp.linalg.det, (SPD,), "mul"),   # written out by JAX: ordinary arithmetic
    "cholesky_batched": (jnp.linalg.cholesky, (np.stack([SPD, SPD + np.eye(3)]),), "cholesky"),
    "eigh": (jnp.linalg.eigh, (SPREAD,), "eigh"),
    "eigh_upper": (lambda a: jnp.linalg.eigh(a, UPLO="U"), (SPREAD,), "eigh"),
    "eigvalsh": (jnp.linalg.eigvalsh, (SPREAD,), "eigh"),
    "svd": (lambda a: jnp.linalg.svd(a, full_matrices=False), (TALL,), "svd"),
    "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), (TALL,), "svd"),
    "qr": (jnp.linalg.qr, (TALL,), "qr"),
    "solve_triangular": (lambda a, b: jsl.solve_triangular(a, b, lower=True), (SPD, B), "triangular_solve"),
    "solve_triangular_upper_t": (lambda a, b: jsl.solve_triangular(a, b, trans=1, unit_diagonal=True), (SPD, B),
                                 "triangular_solve"),
    "triangular_solve_right": (lambda a, b: lax.linalg.triangular_solve(a, b.T, left_side=False, lower=True), (SPD, B),
                               "triangular_solve"),
    "triangular_solve_right_t_batched": (lambda a, b: lax.linalg.triangular_solve(
        a, b, left_side=False, transpose_a=True, unit_diagonal=True), (np.stack([SPD, M]), np.stack([B.T, 2 * B.T])),
        "triangular_solve"),
    "cho_solve": (lambda a, b: jsl.cho_solve((jnp.linalg.cholesky(a), True), b), (SPD, B), "cholesky"),
}


def _scalar(fn, ws):
    def f(*xs):
        outs = jax.tree_util.tree_leaves(fn(*xs))
        return sum(jnp.sum(o * w) for o, w in zip(outs, ws))
    return f


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_linalg_primitives_import_with_jax_values_and_derivatives(name):
    fn, xs, op = FUNCTIONS[name]
    graph = from_jax(fn, *xs)
    assert op in [n.op for n in graph.nodes]
    with jax.enable_x64(True):
        want = [np.asarray(o) for o in jax.tree_util.tree_leaves(fn(*xs))]
        ws = [np.random.default_rng(1).uniform(0.5, 1.5, o.shape) for o in want]
        want_grads = jax.grad(_scalar(fn, ws), argnums=tuple(range(len(xs))))(*xs)
    got = frame.runtime.compile(graph)(*xs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    contracted = from_jax(_scalar(fn, ws), *xs)
    grads = frame.runtime.compile(build_backward_graph(contracted, 0, list(range(len(xs)))))(*xs)[1:]
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name", ["cholesky", "eigh", "svd", "qr", "solve_triangular"])
def test_imported_linalg_passes_the_second_order_oracle(name):
    fn, xs, _ = FUNCTIONS[name]
    report = check_derivatives(from_jax(_scalar(fn, [1.0, 1.0, 1.0]), *xs), *xs, argnums=0)
    assert report.passed and {e.order for e in report.entries} == {0, 1, 2}


# -- LU: lu, lu_pivots_to_permutation, custom_linear_solve ------------------------------------------
A4 = RNG.uniform(-1, 1, (4, 4)) + 3 * np.eye(4)          # well conditioned: derivatives are not amplified
A4B = RNG.uniform(-1, 1, (3, 4, 4)) + 3 * np.eye(4)
B4 = RNG.uniform(-1, 1, (4, 2))
B4B = RNG.uniform(-1, 1, (3, 4, 2))
WIDE = RNG.uniform(-1, 1, (3, 5))

LU_FUNCTIONS = {
    "solve_vector": (jnp.linalg.solve, (A4, B4[:, 0])),
    "solve_matrix": (jnp.linalg.solve, (A4, B4)),
    "solve_batched": (jnp.linalg.solve, (A4B, B4B)),
    "inv": (jnp.linalg.inv, (A4,)),
    "inv_batched": (jnp.linalg.inv, (A4B,)),
    "lu_factor_lu_solve": (lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b), (A4, B4)),
    "lu_solve_transposed": (lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b, trans=1), (A4, B4)),
    "lu_factor": (lambda a: jsl.lu_factor(a)[0], (A4,)),
    "scipy_lu": (jsl.lu, (A4,)),
    "lax_lu": (lambda a: lax.linalg.lu(a)[0], (A4,)),
    "lax_lu_wide": (lambda a: lax.linalg.lu(a)[0], (WIDE,)),
}


def assert_lu_import_matches_jax(fn, xs, **options):
    """Values of the imported graph to 1e-12 and frame's gradient of a weighted sum of its outputs to 1e-10."""
    graph = from_jax(fn, *xs, **options)
    assert "lu" in [n.op for n in graph.nodes]
    with jax.enable_x64(True):
        want = [np.asarray(o) for o in jax.tree_util.tree_leaves(fn(*xs))]
        ws = [np.random.default_rng(1).uniform(0.5, 1.5, o.shape) for o in want]
        want_grads = jax.grad(_scalar(fn, ws), argnums=tuple(range(len(xs))))(*xs)
    got = frame.runtime.compile(graph)(*xs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    contracted = from_jax(_scalar(fn, ws), *xs, **options)
    grads = frame.runtime.compile(build_backward_graph(contracted, 0, list(range(len(xs)))))(*xs)[1:]
    assert len(grads) == len(xs)
    for g, w in zip(grads, want_grads):
        assert np.any(np.asarray(w) != 0)
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", sorted(LU_FUNCTIONS))
def test_lu_based_linear_algebra_imports_with_jax_values_and_gradients(name):
    assert_lu_import_matches_jax(*LU_FUNCTIONS[name])


@pytest.mark.parametrize("fn", [jnp.linalg.det, lambda a: jnp.linalg.slogdet(a)[1]], ids=["det", "logabsdet"])
def test_det_and_slogdet_import_when_their_custom_jvp_is_inlined(fn):
    """JAX's 4x4-and-larger det/slogdet: lu, the pivots' parity by an integer rem, and a custom_jvp; with
    inline_custom_derivatives the body imports and frame's own rules give the derivative."""
    assert_lu_import_matches_jax(fn, (np.random.default_rng(3).normal(size=(2, 5, 5)),), inline_custom_derivatives=True)


def test_lu_primitive_gives_its_three_outputs_from_one_node():
    graph = from_jax(lax.linalg.lu, A4B)
    assert [n.op for n in graph.nodes].count("lu") == 1
    got = frame.runtime.compile(graph)(A4B)
    with jax.enable_x64(True):
        want = lax.linalg.lu(A4B)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_solve_factors_once_and_lu_solve_reuses_the_lu_permutation():
    # jnp.linalg.solve factors lu(stop_gradient(a)); the rule differentiates lu(a) instead, so the graph holds
    # two lu nodes of which one is dead: the compiled graph factors once.
    import scipy.linalg
    calls = []
    original = scipy.linalg.lu_factor

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)
    scipy.linalg.lu_factor = counting
    try:
        frame.runtime.compile(from_jax(jnp.linalg.solve, A4, B4))(A4, B4)
    finally:
        scipy.linalg.lu_factor = original
    assert len(calls) == 1
    graph = from_jax(lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b), A4, B4)
    ops = [n.op for n in graph.nodes]
    assert ops.count("lu") == 1 and "max" not in ops   # the pivots' permutation is the lu's perm output


@pytest.mark.parametrize("pivots, size", [
    (np.array([2, 2, 3, 3], np.int32), 4),
    (np.array([[1, 0, 2], [2, 4, 2]], np.int32), 5),   # batched, fewer pivots than the permutation's size
])
def test_pivots_to_permutation_from_other_pivots_builds_the_swaps(pivots, size):
    fn = lambda p: lax.linalg.lu_pivots_to_permutation(p, size)
    graph = from_jax(fn, pivots)
    got = frame.runtime.compile(graph)(pivots)[0]
    want = np.asarray(fn(pivots))
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["solve_matrix", "lu_factor_lu_solve"])
def test_imported_lu_linalg_passes_the_second_order_oracle(name):
    fn, xs = LU_FUNCTIONS[name]
    ws = [np.random.default_rng(2).uniform(0.5, 1.5, np.shape(o)) for o in jax.tree_util.tree_leaves(
        jax.eval_shape(fn, *xs))]
    report = check_derivatives(from_jax(_scalar(fn, ws), *xs), *xs, argnums=0)
    assert report.passed and {e.order for e in report.entries} == {0, 1, 2}


@pytest.mark.parametrize("fn, args, pattern", [
    # 4x4 (JAX writes out 2x2 and 3x3 determinants): a custom_jvp over lu, refused first
    (jnp.linalg.det, (SPD4,), "custom_jvp_call"),
    (jnp.linalg.slogdet, (SPD4,), "custom_jvp_call"),
    # custom_linear_solves other than jnp.linalg.solve's: JAX differentiates through the matvec
    (lambda a, b: lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, r: jsl.solve_triangular(a, r, lower=True)),
     (np.tril(SPD), B[:, 0]), "'custom_linear_solve'.*not an lu output"),
    (lambda b: lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda mv, r: r / 2.0), (B[:, 0],),
     "'custom_linear_solve'.*matvec is not a @ x"),
    (lambda a, b: jsl.cho_solve(jsl.cho_factor(a, lower=True), b), (SPD, B), "'cholesky'.*not symmetrised"),
    (lambda a: jsl.cho_factor(a, lower=True)[0], (SPD,), "'cholesky'.*not symmetrised"),
    (lambda a: lax.linalg.cholesky(a, symmetrize_input=False), (SPD,), "'cholesky'.*not symmetrised"),
    (lambda a: lax.linalg.eigh(a, symmetrize_input=False), (SPREAD,), "'eigh'.*not symmetrised"),
])
def test_what_frame_cannot_import_exactly_is_refused_by_name(fn, args, pattern):
    with pytest.raises(TraceError, match=pattern):
        from_jax(fn, *args)
