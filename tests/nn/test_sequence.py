"""frame.associative_scan against a sequential scan and jax.lax.associative_scan (values, pytrees, axes,
reverse, lengths 1..17), its graph depth (O(log n) nodes), its derivatives (first and second order
against JAX through the oracle, first order against central differences, under frame.function and
vmap), the sequence reverse (frame.numpy.flip) and the errors that name bad operands."""
from __future__ import annotations

import jax
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import ShapeError
from frame.interop.oracle import check_derivatives
from tests.numerics import assert_close_first_order, central_difference


def affine(first, second):
    """The composition of x -> a x + b maps (first, then second): the selective scan's combine."""
    (a1, b1), (a2, b2) = first, second
    return a1 * a2, a2 * b1 + b2


def sequential(fn, leaves, axis, reverse=False):
    """The scan by its definition: one combination per element, in order; with reverse from the end, the
    accumulated later elements on the left (JAX's reverse: scan the flipped sequence, flip back)."""
    n = leaves[0].shape[axis]
    order = range(n - 1, -1, -1) if reverse else range(n)
    out, acc = [np.zeros_like(x) for x in leaves], None
    for i in order:
        elem = [np.take(x, [i], axis=axis) for x in leaves]
        acc = elem if acc is None else list(fn(acc, elem))
        for o, a in zip(out, acc):
            index = [slice(None)] * o.ndim
            index[axis] = slice(i, i + 1)
            o[tuple(index)] = a
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_matches_a_sequential_scan_and_jax(n, reverse):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((3, n))
    got = frame.nn.associative_scan(np.add, x, reverse=reverse, axis=1)
    want = np.flip(np.cumsum(np.flip(x, 1), 1), 1) if reverse else np.cumsum(x, 1)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    a, b = rng.uniform(0.3, 1.2, (n, 2)), rng.standard_normal((n, 2))
    got_a, got_b = frame.nn.associative_scan(affine, (a, b), reverse=reverse)
    seq_a, seq_b = sequential(lambda p, q: affine(tuple(p), tuple(q)), [a, b], 0, reverse)
    np.testing.assert_allclose(got_a, seq_a, rtol=1e-13)
    np.testing.assert_allclose(got_b, seq_b, rtol=1e-12, atol=1e-13)
    with jax.enable_x64(True):
        jax_a, jax_b = jax.lax.associative_scan(affine, (a, b), reverse=reverse)
    np.testing.assert_allclose(got_a, jax_a, rtol=1e-13)
    np.testing.assert_allclose(got_b, jax_b, rtol=1e-12, atol=1e-13)


def test_associative_scan_takes_pytrees_axes_and_non_commutative_operators():
    rng = np.random.default_rng(1)
    # 2x2 matrix products are associative and not commutative: the order of the operands matters.
    m = rng.standard_normal((4, 7, 2, 2))
    got = frame.nn.associative_scan(lambda p, q: {"m": p["m"] @ q["m"]}, {"m": m}, axis=1)
    assert set(got) == {"m"}
    want = m.copy()
    for i in range(1, 7):
        want[:, i] = want[:, i - 1] @ m[:, i]
    np.testing.assert_allclose(got["m"], want, rtol=1e-12, atol=1e-12)
    with jax.enable_x64(True):
        ref = jax.lax.associative_scan(lambda p, q: p @ q, m, axis=1, reverse=True)
    got = frame.nn.associative_scan(lambda p, q: p @ q, m, axis=-3, reverse=True)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    # max and integers: exact.
    k = rng.integers(-50, 50, (9,))
    np.testing.assert_array_equal(frame.nn.associative_scan(np.maximum, k), np.maximum.accumulate(k))


def test_associative_scan_graph_grows_with_log_n():
    def nodes(n):
        return len(frame.trace(lambda a, b: frame.nn.associative_scan(affine, (a, b))[1],
                               np.ones((n, 2)), np.ones((n, 2))).nodes)
    counts = [nodes(2 ** k) for k in range(3, 8)]
    steps = np.diff(counts)
    # Each doubling of n adds one level: the same number of nodes, not twice as many.
    assert len(set(steps.tolist())) == 1 and steps[0] > 0, counts
    assert counts[-1] < 200, counts


def test_associative_scan_traces_compiles_and_vmaps():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(0.3, 1.2, (4, 11)), rng.standard_normal((4, 11))
    want = frame.nn.associative_scan(affine, (a, b), axis=1)
    compiled = frame.function(lambda a, b: frame.nn.associative_scan(affine, (a, b), axis=1))(a, b)
    batched = frame.vmap(lambda a, b: frame.nn.associative_scan(affine, (a, b)))(a, b)
    for w, c, v in zip(want, compiled, batched):
        np.testing.assert_allclose(c, w, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(v, w, rtol=1e-13, atol=1e-13)


def _weighted_scan_loss(a, b, reverse=False):
    w = np.linspace(-1.0, 1.5, a.size).reshape(a.shape)
    sa, sb = frame.nn.associative_scan(affine, (a, b), reverse=reverse, axis=1)
    return fnp.sum(w * sb) + fnp.sum(sa * sb)


@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_derivatives_match_jax_and_central_differences(reverse):
    # One oracle call per direction: one for both in one loss took longer than the two (JAX's compile of
    # the full Hessian grows faster than the graph).
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.4, 1.1, (2, 9)), rng.standard_normal((2, 9))
    report = check_derivatives(lambda a, b: _weighted_scan_loss(a, b, reverse), a, b, orders=(1, 2), argnums=(0, 1))
    assert report.passed and report.entries
    ga, gb = frame.grad(lambda a, b: _weighted_scan_loss(a, b, reverse), argnums=(0, 1))(a, b)
    assert_close_first_order(ga, central_difference(lambda a: _weighted_scan_loss(a, b, reverse), a), "d/da")
    assert_close_first_order(gb, central_difference(lambda b: _weighted_scan_loss(a, b, reverse), b), "d/db")


def test_flip_is_the_sequence_reverse_and_its_own_adjoint():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 5, 3))
    np.testing.assert_array_equal(fnp.flip(x, 1), x[:, ::-1])
    w = rng.standard_normal(x.shape)
    g = frame.grad(lambda x: fnp.sum(w * fnp.flip(x, 1)))(x)
    np.testing.assert_array_equal(g, w[:, ::-1])


def test_associative_scan_errors_name_the_operands():
    with pytest.raises(ShapeError, match="same length along axis"):
        frame.nn.associative_scan(affine, (np.ones((3, 2)), np.ones((4, 2))))
    with pytest.raises(ShapeError, match="scalar"):
        frame.nn.associative_scan(np.add, np.float64(1.0))
    with pytest.raises(ShapeError, match="out of range"):
        frame.nn.associative_scan(np.add, np.ones(3), axis=1)
    with pytest.raises(ShapeError, match="structure"):
        frame.nn.associative_scan(lambda p, q: p[0] + q[0], (np.ones(3), np.ones(3)))
    with pytest.raises(ShapeError, match="keep its operands' shapes and dtypes"):
        frame.nn.associative_scan(lambda p, q: fnp.sum(p + q, axis=0, keepdims=True), np.ones((4, 2)))
    with pytest.raises(ShapeError, match=r"operands float32\[1, 2\], result float64\[1, 2\]"):
        frame.nn.associative_scan(lambda p, q: p + q + np.float64(1.0) * np.ones(2), np.ones((2, 2), np.float32))
    with pytest.raises(ShapeError, match="at least one array"):
        frame.nn.associative_scan(np.add, ())


# -- from_jax: lax.cummax, cummin and cumlogsumexp import as associative_scan (frame/interop/jax_rules_sequence.py)
RUNNING = [("cummax", False), ("cummin", True), ("cumlogsumexp", True)]   # each primitive, both directions


def test_jax_running_reductions_import_with_jax_values_and_derivatives():
    """Each primitive's values exactly; then one loss over the three, imported and differentiated by frame
    to second order, against JAX's own derivatives of the primitives (the gradient and a Hessian-vector
    product from one jitted jvp-of-grad, with the values: JAX's compile of these scans dominates the time)."""
    from jax import numpy as jnp
    from frame.frontend.tracer import inline_into_current
    from frame.interop import from_jax

    rng = np.random.default_rng(5)
    x, v = rng.standard_normal((2, 7)), rng.standard_normal((2, 7))
    weights = rng.standard_normal((len(RUNNING), 2, 7))

    def loss(x):
        return sum(jnp.sum(w * jnp.sin(getattr(jax.lax, name)(x, axis=1, reverse=reverse)))
                   for w, (name, reverse) in zip(weights, RUNNING))

    graph = from_jax(loss, x)
    imported = lambda x: inline_into_current(graph, [x])[0]   # noqa: E731
    got_grad = frame.grad(imported)(x)
    got_hvp = frame.grad(lambda x: fnp.sum(frame.grad(imported)(x) * v))(x)
    with jax.enable_x64(True):
        reference = jax.jit(lambda x: ([getattr(jax.lax, name)(x, axis=1, reverse=reverse) for name, reverse in RUNNING],
                                       jax.jvp(jax.grad(loss), (x,), (v,))))
        values, (want_grad, want_hvp) = reference.lower(x).compile({"xla_backend_optimization_level": 0})(x)
    for (name, reverse), want in zip(RUNNING, values):
        running = from_jax(lambda x: getattr(jax.lax, name)(x, axis=1, reverse=reverse), x)
        assert name not in {n.op for n in running.nodes}
        # Max and min select elements; logaddexp pairs as XLA's scan does (to the last bit, or one ulp).
        np.testing.assert_allclose(frame.runtime.compile(running)(x)[0], want, rtol=2e-16, atol=0, err_msg=name)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got_hvp, want_hvp, rtol=1e-11, atol=1e-12)
