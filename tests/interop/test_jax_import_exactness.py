"""`from_jax` imports exactly or refuses (issue 12): control flow, custom derivative rules and every
primitive parameter frame does not reproduce raise `TraceError` at import time naming the primitive
and the parameter, instead of giving a graph with wrong values or wrong derivatives."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.extend.core import ClosedJaxpr

import frame
from frame.compiler import build_backward_graph
from frame.errors import TraceError
from frame.interop import from_jax
from frame.interop import jax_import

X = np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def grad_at(graph, *args):
    return frame.runtime.compile(build_backward_graph(graph, 0, list(range(len(args)))))(*args)[1:]


# -- control flow imports as frame's region ops (issue 17) ----------------------------------------
@pytest.mark.parametrize("fn, primitive", [
    (lambda x: lax.fori_loop(0, 3, lambda i, v: v * 2.0, x), "scan"),
    (lambda x: lax.scan(lambda c, v: (c + v, c), jnp.zeros(3), x)[0], "scan"),
    (lambda x: lax.scan(lambda c, v: (c + v, c), jnp.zeros(3), x[:1])[0], "scan"),   # length 1 too
    (lambda x: lax.map(jnp.sin, x), "scan"),
    (lambda x: lax.while_loop(lambda v: jnp.sum(v) < 100.0, lambda v: v * 2.0 + 1.0, x), "while"),
    (lambda x: lax.cond(jnp.sum(x) > 0, jnp.sin, jnp.cos, x), "cond"),
    (lambda x: lax.switch(1, [jnp.sin, jnp.cos], x), "cond"),
])
def test_control_flow_imports_as_one_region_op(fn, primitive):
    # (tests/control/test_from_jax.py: fori_loop with static and traced bounds, 8x as JAX gives, not
    # the 2x of a body inlined once)
    with jax.enable_x64(True):
        graph = from_jax(fn, X)
        want = np.asarray(jax.tree_util.tree_leaves(fn(X))[0])
    assert [n.op for n in graph.nodes].count(primitive) == 1
    np.testing.assert_allclose(frame.runtime.compile(graph)(X)[0], want, rtol=1e-14)


# -- custom derivative rules --------------------------------------------------------------------------
@jax.custom_jvp
def stable_log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


stable_log1pexp.defjvp(lambda p, t: (stable_log1pexp(p[0]), t[0] * jax.nn.sigmoid(p[0])))


@jax.custom_vjp
def clipped_identity(x):
    return x


clipped_identity.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))


def test_custom_jvp_and_custom_vjp_are_refused_naming_the_function():
    with pytest.raises(TraceError, match=r"'custom_jvp_call'.*stable_log1pexp.*inline_custom_derivatives=True"):
        from_jax(lambda x: jnp.sum(stable_log1pexp(x)), X)
    with pytest.raises(TraceError, match=r"'custom_vjp_call'.*clipped_identity.*custom derivative rule"):
        from_jax(lambda x: jnp.sum(clipped_identity(x) ** 2), X)


def test_inlining_custom_rules_is_an_explicit_choice():
    """With inline_custom_derivatives=True the primal body is imported and frame differentiates it."""
    x = np.array([-2.0, 0.3, 3.0])
    graph = from_jax(lambda v: jnp.sum(clipped_identity(v) ** 2), x, inline_custom_derivatives=True)
    (grad,) = grad_at(graph, x)
    np.testing.assert_allclose(grad, 2 * x)   # the body's derivative; JAX's rule would give clip(2x, -1, 1)


def test_jax_nn_relu_is_imported_as_frames_relu_with_the_same_derivative_at_the_kink():
    """jax.nn.relu's custom rule is select(x > 0, g, 0), the rule of frame's relu: it imports without
    opting in, and the derivative at x == 0 (zero-initialised layers hit it) is JAX's."""
    x = np.array([-1.0, 0.0, 0.0, 2.0])
    fn = lambda v: jnp.sum(jax.nn.relu(v) * jnp.arange(1.0, 5.0))   # noqa: E731
    graph = from_jax(fn, x)
    assert "relu" in {n.op for n in graph.nodes}
    with jax.enable_x64(True):
        want = jax.grad(fn)(x)
    np.testing.assert_array_equal(grad_at(graph, x)[0], want)


def test_bare_maximum_imports_as_maximum_with_jaxs_derivative_at_ties():
    """jnp.maximum(x, 0) has JAX derivative 0.5 at x == 0, and so does frame's maximum (relu keeps 0)."""
    x = np.array([-1.0, 0.0, 2.0])
    with jax.enable_x64(True):
        want = jax.grad(lambda v: jnp.sum(jnp.maximum(v, 0.0)))(x)
    graph = from_jax(lambda v: jnp.sum(jnp.maximum(v, 0.0)), x)
    assert "maximum" in {n.op for n in graph.nodes}
    got = frame.runtime.compile(frame.compiler.build_backward_graph(graph, 0, [0]))(x)[1]
    np.testing.assert_array_equal(got, np.asarray(want))
    assert got[1] == 0.5


# -- parameter refusals ---------------------------------------------------------------------------------
def test_accuracy_hint_on_a_transcendental_is_refused():
    with pytest.raises(TraceError, match=r"'tanh'.*parameter accuracy="):
        from_jax(lambda x: lax.tanh(x, accuracy=lax.Tolerance(atol=1e-3, rtol=0.0, ulps=0)), X)


def test_mul_with_an_output_dtype_is_refused():
    with pytest.raises(TraceError, match=r"'mul'.*parameter out_dtype="):
        from_jax(lambda x: lax.mul(x, x, out_dtype=jnp.float32), X)


def test_dot_general_with_another_accumulation_type_or_algorithm_is_refused():
    a = np.ones((2, 2), np.float32)
    with pytest.raises(TraceError, match=r"'dot_general'.*parameter preferred_element_type=float64"):
        # the float64 scalar turns on x64 so that JAX keeps the float64 accumulation type
        from_jax(lambda v, s: jnp.matmul(v, v, preferred_element_type=jnp.float64) + s, a, np.float64(0.0))
    with pytest.raises(TraceError, match=r"'dot_general'.*parameter precision=.*BF16"):
        from_jax(lambda v: jnp.matmul(v, v, precision=lax.DotAlgorithmPreset.BF16_BF16_F32), a)


def test_dot_general_precision_enums_are_accepted_frame_computes_at_full_precision():
    a, b = np.random.default_rng(0).standard_normal((2, 3, 4))
    graph = from_jax(lambda u, v: jnp.matmul(u, v.T, precision=lax.Precision.HIGHEST), a, b)
    np.testing.assert_allclose(frame.runtime.compile(graph)(a, b)[0], a @ b.T, rtol=1e-14)


def test_transposing_reshape_is_refused():
    with pytest.raises(TraceError, match=r"'reshape'.*parameter dimensions=\(1, 0\)"):
        from_jax(lambda x: lax.reshape(x, (3, 2), dimensions=(1, 0)), X)


def edited(fn, arg, primitive, **params):
    """The jaxpr of `fn` with `params` overriding those of its first `primitive` equation."""
    closed = jax.make_jaxpr(fn)(arg)
    eqns = list(closed.jaxpr.eqns)
    i = next(i for i, e in enumerate(eqns) if e.primitive.name == primitive)
    eqns[i] = eqns[i].replace(params={**eqns[i].params, **params})
    return ClosedJaxpr(closed.jaxpr.replace(eqns=eqns), closed.consts)


def test_broadcast_in_dim_with_reordered_dimensions_is_refused():
    closed = edited(lambda x: jnp.broadcast_to(x, (4, 2, 3)), X, "broadcast_in_dim", broadcast_dimensions=(2, 1))
    with pytest.raises(TraceError, match=r"'broadcast_in_dim'.*parameter broadcast_dimensions=\(2, 1\)"):
        jax_import.import_jaxpr(closed)


def test_a_parameter_nobody_audited_is_refused():
    closed = edited(jnp.sin, X, "sin", new_jax_option=True)
    with pytest.raises(TraceError, match=r"'sin'.*parameter new_jax_option=True.*not been audited"):
        jax_import.import_jaxpr(closed)


def test_a_nested_jaxpr_primitive_outside_the_call_table_is_refused():
    """Only the call primitives in the table are inlined; anything else with a body is refused."""
    closed = jax.make_jaxpr(lambda x: lax.scan(lambda c, v: (c + v, None), jnp.zeros(3), x)[0])(X)
    eqn = closed.jaxpr.eqns[-1]
    renamed = eqn.replace(primitive=jax.extend.core.Primitive("my_loop"))
    closed = ClosedJaxpr(closed.jaxpr.replace(eqns=list(closed.jaxpr.eqns[:-1]) + [renamed]), closed.consts)
    with pytest.raises(TraceError, match=r"JAX primitive 'my_loop' has no frame equivalent"):
        jax_import.import_jaxpr(closed)


# -- the audit table covers everything the importer accepts -------------------------------------------
def test_every_imported_primitive_has_an_audited_parameter_table():
    accepted = set(jax_import.PRIMITIVES) | set(jax_import.CALLS)
    assert accepted == set(jax_import.PARAMETERS), (
        f"unaudited: {sorted(accepted - set(jax_import.PARAMETERS))}, "
        f"audited but not imported: {sorted(set(jax_import.PARAMETERS) - accepted)}")
    for primitive, params in jax_import.PARAMETERS.items():
        for param, decision in params.items():
            assert decision.kind in {"implemented", "irrelevant", "checked"}, (primitive, param)
            assert decision.why, f"{primitive}.{param}: the decision needs its reason"


def test_calls_are_inlined_exactly():
    """jit and checkpoint (remat) bodies inline without changing values; their parameters are placement,
    compilation and memory policy only."""
    fn = lambda x: jnp.sum(jax.jit(jnp.sin)(x) * jax.checkpoint(jnp.cos)(x))   # noqa: E731
    x = X + 0.7                                                                 # a sum well away from 0
    graph = from_jax(fn, x)
    with jax.enable_x64(True):
        value, grad = jax.value_and_grad(fn)(x)
    np.testing.assert_allclose(frame.runtime.compile(graph)(x)[0], value, rtol=1e-14)
    np.testing.assert_allclose(grad_at(graph, x)[0], grad, rtol=1e-14)


def test_lax_pad_imports_as_frames_pad_and_refuses_what_it_cannot_do():
    x = np.arange(6.0).reshape(2, 3)
    config = [(1, 0, 1), (0, 2, 0)]
    graph = from_jax(lambda v: lax.pad(v, 0.0, config) * 2.0, x)
    assert "pad" in [n.op for n in graph.nodes]
    with jax.enable_x64(True):
        want = np.asarray(lax.pad(x, 0.0, config) * 2.0)
    np.testing.assert_array_equal(frame.runtime.compile(graph)(x)[0], want)
    with pytest.raises(TraceError, match="padding value is not a constant zero"):
        from_jax(lambda v: lax.pad(v, 1.0, config), x)
    with pytest.raises(TraceError, match="negative lo or hi"):
        from_jax(lambda v: lax.pad(v, 0.0, [(-1, 0, 0), (0, 0, 0)]), x)
