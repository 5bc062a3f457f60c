"""`from_jax` of the lax.linalg primitives (frame/interop/jax_rules_linalg.py): cholesky and eigh of
symmetrised operands, svd, qr and triangular_solve import as frame's ops with JAX's values, and frame's
derivatives of the imported graphs are jax.grad's (second order through check_derivatives); what frame
cannot import exactly (lu, and so jnp.linalg.solve/inv/det; an unsymmetrised cholesky) is refused by name."""
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


@pytest.mark.parametrize("fn, args, pattern", [
    (jnp.linalg.solve, (SPD, B), "'lu'.*no LU"),
    (jnp.linalg.inv, (SPD,), "'lu'.*no LU"),
    # 4x4 (JAX writes out 2x2 and 3x3 determinants): a custom_jvp over lu, refused first
    (jnp.linalg.det, (SPD4,), "custom_jvp_call"),
    (lambda a: jsl.cho_factor(a, lower=True)[0], (SPD,), "'cholesky'.*not symmetrised"),
    (lambda a: lax.linalg.cholesky(a, symmetrize_input=False), (SPD,), "'cholesky'.*not symmetrised"),
    (lambda a: lax.linalg.eigh(a, symmetrize_input=False), (SPREAD,), "'eigh'.*not symmetrised"),
])
def test_what_frame_cannot_import_exactly_is_refused_by_name(fn, args, pattern):
    with pytest.raises(TraceError, match=pattern):
        from_jax(fn, *args)

