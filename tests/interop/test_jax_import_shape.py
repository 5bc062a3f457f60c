"""`from_jax` of the shape and indexing primitives (frame/interop/jax_rules_shape.py): gather and
the scatters in the forms jnp indexing produces, rev, dynamic_slice with constant starts and split
import as frame's ops, compute JAX's values, and frame's derivatives of the imported graphs are
jax.grad's; windowed gathers and computed starts are refused naming the primitive."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import frame
from frame import FrameError
from frame.compiler import build_backward_graph
from frame.interop import check_derivatives, from_jax

X = np.random.default_rng(0).uniform(-1.0, 1.0, (3, 4))
X3 = np.random.default_rng(1).uniform(-1.0, 1.0, (2, 3, 4))
ROWS = np.array([2, 0, -1, 2])
COLS = np.array([[3, 0], [-2, 1]])
V = np.random.default_rng(2).uniform(-1.0, 1.0, (4, 4))

# name: (JAX function, arguments, a frame op the import must contain)
FUNCTIONS = {
    "rows": (lambda x: x[ROWS], (X,), "gather"),
    "columns": (lambda x: x[:, COLS], (X,), "gather"),
    "pairs": (lambda x: x[ROWS[:3], np.array([1, -1, 0])], (X,), "gather"),
    "middle_axis": (lambda x: x[:, np.array([2, 0]), :], (X3,), "gather"),
    "split_axes": (lambda x: x[np.array([1, 0]), :, np.array([3, 3])], (X3,), "gather"),
    "scalar_and_array": (lambda x: x[1, np.array([0, 2])], (X3,), "gather"),
    "take": (lambda x: jnp.take(x, np.array([3, 1, 1]), axis=1), (X,), "gather"),
    "take_along_axis": (lambda x: jnp.take_along_axis(x, np.array([[0, 3], [1, 1], [2, 0]]), axis=1), (X,), "gather"),
    "take_along_axis_0": (lambda x: jnp.take_along_axis(x, np.array([[2, 0, 1, 1]]), axis=0), (X,), "gather"),
    "add": (lambda x, v: x.at[ROWS].add(v), (X, V), "scatter_add"),
    "add_columns": (lambda x, v: x.at[:, np.array([3, 0, 3])].add(v), (X, V[:3, :3]), "scatter_add"),
    "set": (lambda x, v: x.at[np.array([2, 0])].set(v), (X, V[:2]), "scatter"),
    "set_pairs": (lambda x, v: x.at[np.array([0, 2, 1]), np.array([1, 1, 3])].set(v), (X, V[0, :3]), "scatter"),
    "multiply": (lambda x, v: x.at[np.array([1, 2])].multiply(v, unique_indices=True), (X, V[:2]), "scatter"),
    "min": (lambda x, v: x.at[np.array([1, 2, 1])].min(v), (X, V[:3]), "scatter"),
    "max": (lambda x, v: x.at[:, np.array([0, 2])].max(v), (X, V[:3, :2]), "scatter"),
    "flip": (lambda x: jnp.flip(x, (0, 1)), (X,), "rev"),
    "reversed_slice": (lambda x: x[::-1, 3:0:-2], (X,), "rev"),
    "dynamic_slice": (lambda x: lax.dynamic_slice(x, (1, 3), (2, 2)), (X,), "slice"),   # start 3 is clamped to 2
    "split": (lambda x: jnp.split(x, [1, 3], axis=1), (X,), "slice"),
    "dynamic_update_slice": (lambda x, v: lax.dynamic_update_slice(x, v, (2, 1)), (X, V[:2, :2]), "scatter"),
    "subtract": (lambda x, v: x.at[np.array([1, 1])].subtract(v), (X, V[:2]), "scatter_add"),
    # lax's general forms: windows of size 2 at given starts (the second clamped), and computed starts
    "windows": (lambda x: lax.gather(x, np.array([[0], [2]]), lax.GatherDimensionNumbers(
        offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0,)), slice_sizes=(2, 4),
        mode=lax.GatherScatterMode.CLIP), (X,), "gather"),
    "computed_start": (lambda x, s: lax.dynamic_slice(x, (s[0], 0), (2, 2)), (X, np.array([1])), "gather"),
    "computed_update": (lambda x, v, s: lax.dynamic_update_slice(x, v, (s[0], s[0])), (X, V[:2, :2], np.array([5])),
                        "scatter"),
}


def _weights(tree):
    rng = np.random.default_rng(3)
    return [rng.uniform(0.5, 1.5, np.shape(leaf)) for leaf in jax.tree_util.tree_leaves(tree)]


def _contracted(fn, weights):
    return lambda *xs: sum(jnp.sum(y * w) for y, w in zip(jax.tree_util.tree_leaves(fn(*xs)), weights))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_imports_compute_jax_values_and_gradients(name):
    fn, args, op = FUNCTIONS[name]
    graph = from_jax(fn, *args)
    assert op in [n.op for n in graph.nodes]
    floats = tuple(i for i, a in enumerate(args) if a.dtype.kind == "f")   # integer starts get no gradient
    with jax.enable_x64(True):
        want = [np.asarray(y) for y in jax.tree_util.tree_leaves(fn(*map(jnp.asarray, args)))]
        weights = _weights(want)
        want_grads = jax.grad(_contracted(fn, weights), argnums=floats)(*args)
    got = frame.runtime.compile(graph)(*args)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-15, atol=0)
    contracted = from_jax(_contracted(fn, weights), *args)
    grads = frame.runtime.compile(build_backward_graph(contracted, 0, list(floats)))(*args)[1:]
    for a, b in zip(grads, want_grads):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ["columns", "take_along_axis", "add", "set_pairs", "max"])
def test_imported_indexing_passes_the_second_order_oracle(name):
    fn, args, _ = FUNCTIONS[name]
    report = check_derivatives(from_jax(fn, *args), *args, argnums=tuple(range(len(args))))
    assert report.passed and {e.order for e in report.entries} == {0, 1, 2}


def test_traced_indices_import_as_index_operands():
    graph = from_jax(lambda x, i: x[i], X, np.array([2, 0, 1], np.int32))
    gather = next(n for n in graph.nodes if n.op == "gather")
    assert gather.inputs[1].node is None or gather.inputs[1].node.op != "constant"   # from the index input
    got = frame.runtime.compile(graph)(X, np.array([1, 1, 0], np.int32))[0]
    np.testing.assert_array_equal(got, X[[1, 1, 0]])


def test_a_fori_loop_writing_rows_at_its_counter_imports():
    # lax.dynamic_update_slice at a computed start inside a loop: JAX code's usual way to fill an array
    def fill(x):
        return lax.fori_loop(0, 3, lambda i, acc: lax.dynamic_update_slice(acc, x[i][None] * i, (i, 0)), jnp.zeros_like(x))
    got = frame.runtime.compile(from_jax(fill, X))(X)[0]
    np.testing.assert_allclose(got, X * np.arange(3)[:, None], rtol=1e-15)


def test_one_hot_mode_is_refused_by_name():
    if not hasattr(lax.GatherScatterMode, "ONE_HOT"):
        pytest.skip("this jax has no GatherScatterMode.ONE_HOT")
    fn = lambda x: lax.gather(x, np.array([[1]]), lax.GatherDimensionNumbers(   # noqa: E731
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 4), mode=lax.GatherScatterMode.ONE_HOT)
    with pytest.raises(FrameError, match="gather.*ONE_HOT"):
        from_jax(fn, X)


def test_scatter_mul_without_unique_indices_has_no_derivative_as_in_jax():
    fn = lambda x, v: jnp.sum(x.at[np.array([1, 2])].multiply(v))   # noqa: E731
    graph = from_jax(fn, X, V[:2])
    np.testing.assert_allclose(frame.runtime.compile(graph)(X, V[:2])[0], fn(jnp.asarray(X), jnp.asarray(V[:2])))
    with pytest.raises(frame.GradientError, match="unique indices"):
        build_backward_graph(graph, 0, [1])
