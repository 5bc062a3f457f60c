"""from_jax of lax.cond, lax.switch, lax.scan, lax.map, lax.fori_loop and lax.while_loop (issue 17, item 1):
each imports as one region op (never inlined once), computes JAX's values, and its derivatives are
JAX's; an imported graph lowers back with to_jax."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import frame
from frame.compiler import build_backward_graph
from frame.errors import GradientError, TraceError
from frame.interop import from_jax, jax_import, to_jax
from frame.ir import parse_graph, print_graph, verify
from frame.frontend.transforms import evaluate
from frame.runtime import compile as compile_graph

pytestmark = pytest.mark.usefixtures("jax_x64")   # x64 for this module only (tests/conftest.py)

X = np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def run(graph, *args):
    return compile_graph(graph)(*args)


FUNCTIONS = {
    "fori_loop": (lambda x: lax.fori_loop(0, 3, lambda i, v: v * 2.0 + jnp.sin(v) * i, x), "scan"),
    "scan": (lambda x: lax.scan(lambda c, v: (c * jnp.cos(v) + v, c ** 2), jnp.ones(3), x), "scan"),
    "scan_reverse": (lambda x: lax.scan(lambda c, v: (c * v + 1.0, c), jnp.ones(3), x, reverse=True), "scan"),
    "map": (lambda x: lax.map(jnp.sin, x), "scan"),
    "while": (lambda x: lax.while_loop(lambda v: jnp.sum(v) < 100.0, lambda v: v * 2.0 + 1.0, x), "while"),
    "cond": (lambda x: lax.cond(jnp.sum(x) > 0, jnp.sin, jnp.cos, x), "cond"),
    "switch": (lambda x: lax.switch(jnp.sum(x).astype(int), [jnp.sin, jnp.cos, jnp.tanh, jnp.exp], x), "cond"),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_control_flow_imports_as_one_region_op_with_jaxs_values(name):
    fn, op = FUNCTIONS[name]
    graph = from_jax(fn, X)
    assert [n.op for n in graph.nodes].count(op) == 1
    for x in (X, X + 0.2, X + 0.45, X + 1.2, -3.0 * X):
        got = run(graph, x)
        want = jax.tree_util.tree_leaves(fn(x))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-14, atol=1e-14)
    again = verify(parse_graph(print_graph(graph)))   # the text form holds the imported regions
    assert print_graph(again) == print_graph(graph)
    for g, w in zip(to_jax(graph)(X), jax.tree_util.tree_leaves(fn(X))):   # and lowers back
        np.testing.assert_allclose(g, w, rtol=1e-14)


def test_fori_loop_imports_exactly_not_inlined_once():
    """The issue-12 case: inlining the scan body once gave 2x where JAX gives 8x."""
    graph = from_jax(lambda x: jnp.sum(lax.fori_loop(0, 3, lambda i, v: v * 2.0, x)), X)
    np.testing.assert_allclose(run(graph, X)[0], 8.0 * X.sum(), rtol=1e-14)
    dynamic = from_jax(lambda x, n: lax.fori_loop(0, n, lambda i, v: v * 2.0, x), X, np.int64(3))
    assert "while" in [n.op for n in dynamic.nodes]
    np.testing.assert_allclose(run(dynamic, X, np.int64(4))[0], 16.0 * X, rtol=1e-14)


@pytest.mark.parametrize("name", ["fori_loop", "scan", "scan_reverse", "map", "cond", "switch"])
def test_imported_control_flow_has_jaxs_derivatives(name):
    fn, _ = FUNCTIONS[name]
    loss = lambda x: sum(jnp.sum(jnp.sin(leaf)) for leaf in jax.tree_util.tree_leaves(fn(x)))   # noqa: E731
    graph = from_jax(loss, X)
    for x in (X, X + 0.45):
        np.testing.assert_allclose(run(build_backward_graph(graph, 0, [0]), x)[1], jax.grad(loss)(x),
                                   rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(frame.hessian(lambda v: evaluate(graph, [v])[0])(X), jax.hessian(loss)(X),
                               rtol=1e-11, atol=1e-12)


def test_an_imported_while_loop_refuses_reverse_mode_by_name():
    graph = from_jax(lambda x: jnp.sum(lax.while_loop(lambda v: jnp.sum(v) < 100.0, lambda v: v * 2.0 + 1.0, x)), X)
    with pytest.raises(GradientError, match="op 'while'.*reverse-mode"):
        build_backward_graph(graph, 0, [0])


@pytest.mark.parametrize("fn", [
    lambda a: jnp.sum(lax.clamp(-0.5, a, 0.5) ** 3),                    # constant bounds, values on them
    lambda a: jnp.sum(lax.clamp(a * 0.5, a, a * 0 + 0.5) * a),            # traced bounds
    lambda a: jnp.sum(lax.clamp(a * 0 + 1.0, a, a * 0 - 1.0) ** 2),       # lo > hi: hi, no derivative
    lambda a: jnp.sum(jnp.quantile(a, jnp.array([0.2, 0.7]), axis=1) ** 2),   # jnp.quantile clamps its index
])
def test_a_float_clamp_imports_with_jax_values_and_derivatives(fn):
    x = np.array([[-0.5, 0.2, 0.5, 0.9, -0.8, 1.0], [0.5, -0.1, -0.5, 0.3, 0.7, -0.9]])   # on and off the bounds
    graph = from_jax(fn, x)
    np.testing.assert_allclose(run(graph, x)[0], fn(x), rtol=1e-15)
    (_, grad) = run(build_backward_graph(graph, 0, [0]), x)
    np.testing.assert_allclose(grad, jax.grad(fn)(x), rtol=1e-14, atol=1e-15)   # JAX's rule: none at a bound
    hess = frame.hessian(lambda a: evaluate(graph, [a])[0])(x)
    np.testing.assert_allclose(hess, jax.hessian(fn)(x), rtol=1e-13, atol=1e-14)


def test_the_audit_covers_the_control_primitives():
    for primitive in ("cond", "scan", "while", "clamp"):
        assert primitive in jax_import.PRIMITIVES and primitive in jax_import.PARAMETERS
    # an unaudited parameter of a control-flow primitive is refused like any other
    closed = jax.make_jaxpr(FUNCTIONS["scan"][0])(X)
    eqn = closed.jaxpr.eqns[-1]
    edited = eqn.replace(params={**eqn.params, "new_option": 1})
    closed = jax.extend.core.ClosedJaxpr(closed.jaxpr.replace(eqns=list(closed.jaxpr.eqns[:-1]) + [edited]),
                                         closed.consts)
    with pytest.raises(TraceError, match=r"'scan'.*new_option=1.*not been audited"):
        jax_import.import_jaxpr(closed)


def test_a_refusal_inside_a_region_names_where_it_is():
    # igamma_grad_a (the derivative of igamma in a) has no frame equivalent
    with pytest.raises(TraceError, match=r"primitive 'igamma_grad_a'.*inside scan|inside scan.*igamma_grad_a"):
        from_jax(lambda x: lax.scan(lambda c, v: (c + lax.igamma_grad_a(v * v + 1.0, v * v + 2.0), None), jnp.zeros(3),
                                    x)[0], X)


@pytest.mark.parametrize("fn", [lambda a: jnp.diagonal(a), lambda a: jnp.corrcoef(a), lambda a: jnp.trace(a @ a.T)])
def test_platform_dependent_code_imports_its_cpu_branch(fn):
    # jnp.diagonal chooses a kernel per platform (lax.platform_index feeding a cond): cpu's, or the default
    x = np.random.default_rng(4).normal(size=(3, 4))
    np.testing.assert_allclose(run(from_jax(fn, x), x)[0], fn(x), rtol=1e-13)
