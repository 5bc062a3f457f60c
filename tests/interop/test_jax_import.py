"""`from_jax`: JAX functions imported through their jaxprs give the same values as JAX, frame's
derivatives of the imported graphs match `jax.grad` of the originals, and primitives frame cannot
express fail naming the primitive and the equation."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import frame
from frame import FrameError
from frame.compiler import build_backward_graph
from frame.interop import check_derivatives, from_jax
from frame.ir import parse_graph, verify


@jax.custom_vjp
def clipped_identity(x):
    return x


clipped_identity.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))


@jax.custom_jvp
def cube(x):
    return x * x * x


cube.defjvp(lambda primals, tangents: (cube(primals[0]), 3.0 * primals[0] ** 2 * tangents[0]))


def mlp(params, x):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    return jnp.sum((h @ w + b) ** 2) / x.shape[0]


def elementwise_zoo(x, y):
    z = jnp.sin(x) * jnp.exp(-y) + jnp.log(x * x + 1.0) * jnp.cos(y) - jnp.sqrt(y * y + 2.0)
    z = z + x ** 3 - jnp.power(y * y + 1.0, 1.5) + lax.rsqrt(x * x + 1.0) + jnp.square(y) / (x * x + 2.0)
    return jnp.sum(jax.nn.sigmoid(z) + jnp.tanh(-z))


def relu_net(w, x):
    return jnp.mean(jax.nn.relu(x @ w) + jax.nn.relu(x @ w - 0.3))


def contractions(a, b, c):
    two_d = a @ b                                   # dot_general ((1,), (0,))
    batched = jnp.einsum("bij,bjk->bik", c, jnp.broadcast_to(b, (2,) + b.shape))
    transposed = jnp.einsum("ij,kj->ik", a, a)      # contracts both operands' last axis
    broadcast_rhs = c @ b                           # (2, 3, 4) @ (4, 5) as one dot_general
    vector = a @ b[:, 0]
    return jnp.sum(two_d ** 2) + jnp.sum(jnp.sin(batched)) + jnp.sum(transposed) + jnp.sum(broadcast_rhs * 0.5) \
        + jnp.sum(vector)


def shapes(x):
    y = jnp.concatenate([x, 2.0 * x], axis=0)                                # (6, 4)
    y = y[1:5, ::2]                                                         # slice with a stride
    y = jnp.transpose(jnp.reshape(y, (2, 2, 2)), (2, 0, 1))
    y = jnp.expand_dims(y, 0) + jnp.ones((3, 1, 1, 1))                     # broadcast_in_dim
    y = jnp.squeeze(y[:1], axis=0)
    return jnp.sum(jnp.mean(y, axis=(0, 2)) * jnp.arange(2.0))              # iota


def nested_calls(x):
    inner = jax.jit(lambda v: jnp.tanh(v) * 2.0)
    return jnp.sum(inner(x) + jax.nn.relu(x) + jax.checkpoint(jnp.sin)(x) + lax.stop_gradient(x) * x)


def custom_cube(x):
    return jnp.sum(cube(x) + x)   # cube's custom rule is its true derivative: inlining it is exact


def rng_args(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, s) for s in shapes]


def mlp_args():
    rng = np.random.default_rng(1)
    sizes = [1, 8, 8, 1]
    params = [(rng.standard_normal((a, b)) / np.sqrt(a), rng.standard_normal(b) * 0.1)
              for a, b in zip(sizes[:-1], sizes[1:])]
    return [params, rng.uniform(-1.0, 1.0, (6, 1))]


ROUND_TRIPS = {
    "mlp": (mlp, mlp_args),
    "elementwise_zoo": (elementwise_zoo, lambda: rng_args((3, 4), (3, 4))),
    "relu_net": (relu_net, lambda: rng_args((3, 5), (4, 3))),
    "contractions": (contractions, lambda: rng_args((3, 4), (4, 5), (2, 3, 4))),
    "shapes": (shapes, lambda: rng_args((3, 4))),
    "nested_calls": (nested_calls, lambda: rng_args((2, 3))),
    "custom_cube": (custom_cube, lambda: rng_args((2, 3))),
}
INLINE_CUSTOM_DERIVATIVES = {"custom_cube"}


@pytest.mark.parametrize("name", sorted(ROUND_TRIPS))
def test_imported_function_matches_jax_values_and_gradients(name):
    fn, make_args = ROUND_TRIPS[name]
    args = make_args()
    graph = from_jax(fn, *args, inline_custom_derivatives=name in INLINE_CUSTOM_DERIVATIVES)
    verify(graph)
    leaves = jax.tree_util.tree_leaves(args)
    assert [v.type.shape for v in graph.inputs] == [np.shape(a) for a in leaves]
    with jax.enable_x64(True):
        value = jax.jit(fn)(*args)
        grads = jax.tree_util.tree_leaves(jax.jit(jax.grad(fn, argnums=tuple(range(len(args)))))(*args))
    np.testing.assert_allclose(frame.runtime.compile(graph)(*leaves)[0], value, rtol=1e-12)
    derived = build_backward_graph(graph, 0, list(range(len(leaves))))
    frame_grads = frame.runtime.compile(derived)(*leaves)[1:]
    for i, (f, j) in enumerate(zip(frame_grads, grads)):
        np.testing.assert_allclose(f, j, rtol=1e-10, atol=1e-12, err_msg=f"{name}: gradient of input {i}")


@pytest.mark.parametrize("name", ["elementwise_zoo", "contractions", "mlp"])
def test_imported_graph_passes_the_second_order_oracle(name):
    """Imported graphs are ordinary graphs: frame differentiates them twice (checked by the oracle)."""
    fn, make_args = ROUND_TRIPS[name]
    leaves = jax.tree_util.tree_leaves(make_args())
    report = check_derivatives(from_jax(fn, *make_args()), *leaves, argnums=tuple(range(len(leaves))))
    assert report.passed and {e.order for e in report.entries} == {0, 1, 2}


def test_imported_graph_prints_parses_and_runs_through_the_pipeline():
    graph = from_jax(elementwise_zoo, *rng_args((3, 4), (3, 4)))
    again = parse_graph(str(graph))
    args = rng_args((3, 4), (3, 4), seed=5)
    np.testing.assert_allclose(frame.runtime.compile(again)(*args)[0], frame.runtime.compile(graph)(*args)[0])
    optimised = frame.compiler.run_pipeline(graph)
    verify(optimised)


def test_inlined_custom_rules_are_differentiated_by_frame():
    """With inline_custom_derivatives=True, custom_jvp/custom_vjp bodies are inlined: frame
    differentiates them with its own rules, so a custom rule that is not the body's true derivative
    (here a clipped gradient) is not imported. Without it the import is refused."""
    x = np.array([-2.0, 0.3, 3.0])
    with pytest.raises(FrameError, match="custom_vjp_call.*clipped_identity"):
        from_jax(lambda v: jnp.sum(clipped_identity(v) ** 2), x)
    graph = from_jax(lambda v: jnp.sum(clipped_identity(v) ** 2), x, inline_custom_derivatives=True)
    assert {n.op for n in graph.nodes} <= {"pow", "sum", "constant"}
    (grad,) = frame.runtime.compile(build_backward_graph(graph, 0, [0]))(x)[1:]
    np.testing.assert_allclose(grad, 2 * x)   # JAX's custom rule would give clip(2x, -1, 1)


def test_import_keeps_float32_and_multiple_outputs():
    x = np.linspace(-1.0, 1.0, 4, dtype=np.float32)
    graph = from_jax(lambda v: (jnp.sin(v), jnp.sum(v * v), v), x)
    assert [v.type.dtype for v in graph.outputs] == ["float32"] * 3
    assert [v.type.shape for v in graph.outputs] == [(4,), (), (4,)]
    sin, total, same = frame.runtime.compile(graph)(x)
    np.testing.assert_allclose(sin, np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(total, np.sum(x * x), rtol=1e-6)
    np.testing.assert_array_equal(same, x)


def test_unsupported_primitive_raises_naming_it_and_the_equation():
    with pytest.raises(FrameError, match=r"JAX primitive 'bitcast_convert_type' has no frame equivalent inside "
                                         r"jit\[signbit\]") as info:
        from_jax(lambda x: jnp.sum(jnp.signbit(x)), np.ones(4))
    assert "bitcast_convert_type[" in str(info.value)         # the equation itself is shown
    with pytest.raises(FrameError, match="'igamma_grad_a'"):
        from_jax(lambda x: jax.lax.igamma_grad_a(x, x + 1.0), np.ones(4))


def test_primitives_outside_frames_ops_are_refused_with_the_reason():
    with pytest.raises(FrameError, match="'select_n'.*int32 predicate and 3 cases"):
        from_jax(lambda i, x: jax.lax.select_n(i, x, 2 * x, 3 * x), np.zeros(3, np.int32), np.ones(3))


def test_bitwise_primitives_on_integers_import_as_frames_bitwise_ops():
    fn = lambda i, s: ((i & 3) | (i ^ 5)) + (~i) + (i << s) + (i >> s) + jax.lax.population_count(i)
    i, s = np.array([-7, 0, 5, 1 << 20], np.int32), np.array([1, 0, 3, 31], np.int32)
    graph = from_jax(fn, i, s)
    assert {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "left_shift", "right_shift",
            "population_count"} <= {n.op for n in graph.nodes}
    np.testing.assert_array_equal(frame.runtime.compile(graph)(i, s)[0], np.asarray(jax.jit(fn)(i, s)))
