"""Forward mode (`build_forward_graph`, `frame.jvp`, `linearize`, `jacfwd`, `jacrev`, `hessian`).

The registry matrix: every differentiable op (enumerated, as the reverse-mode oracle matrix is)
has its forward mode, forward-over-reverse, reverse-over-forward and forward-over-forward
derivatives checked against JAX differentiating the independently lowered op (orders 1 and 2),
and order 3 through two more compositions. The first case of each op runs by default; the
others are `slow`.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.compiler.forward import build_forward_graph, forward_rule_kind
from frame.compiler.passes.verify import verify
from frame.errors import GradientError
from frame.interop import to_jax
from frame.ir.parser import parse_graph
from frame.ir.printer import print_graph
from frame.ops import all_ops, get, register_op, unregister_op
from frame.runtime.compile import compile as compile_graph
from frame.tracing import bind
from tests.interop.test_oracle_matrix import PUBLIC_CASES, differentiable_ops

RTOL, ATOL = 1e-9, 1e-10
#: Third derivatives are compared against the result's scale (this fraction of its largest entry), not
#: element by element: quotient forms cancel digits. sinc's (sin(pi x) / (pi x), in frame and in JAX alike)
#: k-th derivative loses about eps / |x|^(k+1) relatively; a case point at x = -0.003 gives ~1e-6 at order 3.
ORDER_3_SCALE = {"sinc": 1e-6}


# -- the registry matrix ------------------------------------------------------------------------
def _case_setup(case):
    rng = np.random.default_rng(11)
    inputs = case.make_inputs(rng, "float64")
    wrt = list(case.wrt)

    def op(*xs):
        full = list(inputs)
        for i, x in zip(wrt, xs):
            full[i] = x
        out = bind(case.op, *full, **case.attrs)
        outs = out if isinstance(out, tuple) else (out,)
        return [o for o in outs if o.dtype.kind == "f"]

    graph = frame.trace(lambda *xs: bind(case.op, *xs, **case.attrs), *inputs)
    with jax.enable_x64(True):
        lowered = to_jax(graph)

    def jop(*xs):
        full = list(inputs)
        for i, x in zip(wrt, xs):
            full[i] = x
        return [o for o in lowered(*full) if jnp.issubdtype(o.dtype, jnp.floating)]

    primals = [np.asarray(inputs[i]) for i in wrt]
    # Outputs defined up to a sign (eigenvectors) may come out of JAX's LAPACK call with other signs than
    # numpy's; their derivatives then differ by that sign too, so only outputs whose values agree are compared.
    with jax.enable_x64(True):
        same = [np.allclose(f, j, rtol=1e-9, atol=1e-12) for f, j in zip(op(*primals), jop(*primals))]
    assert any(same), f"{case.id}: no output of the lowered op agrees with frame's"
    op_all, jop_all = op, jop

    def op(*xs):   # noqa: F811 - the agreeing outputs only
        return [o for o, keep in zip(op_all(*xs), same) if keep]

    def jop(*xs):  # noqa: F811
        return [o for o, keep in zip(jop_all(*xs), same) if keep]

    tangents = [rng.standard_normal(np.shape(p)) for p in primals]
    tangents2 = [rng.standard_normal(np.shape(p)) for p in primals]
    weights = [rng.standard_normal(np.shape(o)) for o in op(*primals)]
    return op, jop, primals, tangents, tangents2, weights


def _contract(outs, weights, xp):
    total = 0.0
    for o, w in zip(outs, weights):
        total = total + xp.sum(o * w)
    return total


def compositions(op, jop, tangents, tangents2, weights):
    """(name, frame function, JAX function) of the primals: the derivative each composition gives."""
    def s(*xs):
        return _contract(op(*xs), weights, fnp)

    def js(*xs):
        return _contract(jop(*xs), weights, jnp)

    t, t2 = tuple(tangents), tuple(tangents2)
    return [
        ("F", lambda *x: frame.jvp(op, x, t)[1], lambda *x: jax.jvp(jop, x, t)[1]),
        ("FoR", lambda *x: frame.jvp(frame.grad(s, argnums=tuple(range(len(x)))), x, t)[1],
         lambda *x: jax.jvp(jax.grad(js, argnums=tuple(range(len(x)))), x, t)[1]),
        ("RoF", frame.grad(lambda *x: _contract(frame.jvp(op, x, t)[1], weights, fnp), argnums=tuple(range(len(t)))),
         jax.grad(lambda *x: _contract(jax.jvp(jop, x, t)[1], weights, jnp), argnums=tuple(range(len(t))))),
        ("FoF", lambda *x: frame.jvp(lambda *y: frame.jvp(op, y, t)[1], x, t2)[1],
         lambda *x: jax.jvp(lambda *y: jax.jvp(jop, y, t)[1], x, t2)[1]),
        ("FoFoR", lambda *x: frame.jvp(lambda *y: frame.jvp(frame.grad(s, argnums=tuple(range(len(y)))), y, t)[1],
                                       x, t2)[1],
         lambda *x: jax.jvp(lambda *y: jax.jvp(jax.grad(js, argnums=tuple(range(len(y)))), y, t)[1], x, t2)[1]),
        ("RoFoF", frame.grad(lambda *x: _contract(frame.jvp(lambda *y: frame.jvp(op, y, t)[1], x, t2)[1], weights, fnp),
                             argnums=tuple(range(len(t)))),
         jax.grad(lambda *x: _contract(jax.jvp(lambda *y: jax.jvp(jop, y, t)[1], x, t2)[1], weights, jnp),
                  argnums=tuple(range(len(t))))),
    ]


def check_forward_case(case, orders=(1, 2, 3)):
    op, jop, primals, tangents, tangents2, weights = _case_setup(case)
    chosen = [c for c in compositions(op, jop, tangents, tangents2, weights) if len(c[0].split("o")) in orders]
    with jax.enable_x64(True):   # one jitted program for every composition: one XLA compile per case
        wants = jax.jit(lambda *x: [jf(*x) for _, _, jf in chosen])(*primals)
    for (name, f, _), want in zip(chosen, wants):
        got, want = frame.tree_leaves(f(*primals)), jax.tree_util.tree_leaves(want)
        assert len(got) == len(want), f"{case.id} {name}: {len(got)} results, JAX gives {len(want)}"
        for g, w in zip(got, want):
            atol = ATOL if len(name.split("o")) < 3 else max(ATOL, ORDER_3_SCALE.get(case.op, 1e-9)
                                                             * float(np.max(np.abs(w), initial=0.0)))
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=RTOL, atol=atol,
                                       err_msg=f"{case.id}: {name} differs from JAX")


FIRST_CASES = {}
for _case in PUBLIC_CASES:
    FIRST_CASES.setdefault(_case.op, _case)
MATRIX = [pytest.param(c, id=c.id, marks=() if FIRST_CASES[c.op] is c else pytest.mark.slow) for c in PUBLIC_CASES]


@pytest.mark.parametrize("case", MATRIX)
def test_forward_compositions_match_jax_for_every_differentiable_op(case):
    """Orders 1 and 2 (F, FoR, RoF, FoF) for each op's first case by default; order 3 (FoFoR, RoFoF)
    and every other case are `slow`."""
    check_forward_case(case, orders=(1, 2) if FIRST_CASES[case.op] is case else (1, 2, 3))


#: Order 3 in the default run for one op of each derivation kind and family; every op under `slow`.
ORDER_3_DEFAULT = ["tanh", "div", "mul", "matmul", "sum", "max", "solve", "gather", "softmax", "power", "cumprod"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=() if c.op in ORDER_3_DEFAULT else pytest.mark.slow)
                                  for c in FIRST_CASES.values()])
def test_third_order_compositions_of_each_ops_first_case_match_jax(case):
    check_forward_case(case, orders=(3,))


def test_the_matrix_enumerates_the_registry_and_every_differentiable_op_has_a_forward_rule():
    ops = differentiable_ops(internal=False)
    assert {"add", "matmul", "tanh", "solve", "gather", "fft", "max"} - {"fft"} <= set(ops)
    assert set(FIRST_CASES) == set(ops)
    missing = [s.name for s in all_ops() if s.gradient is not None and forward_rule_kind(s) is None]
    assert not missing, f"ops with a reverse rule but no forward rule: {missing}"


def test_forward_rule_kinds_follow_the_documented_derivations():
    from frame.ir.registry import NodeContext
    from frame.ir.types import TensorType
    f64 = TensorType((3,), "float64")
    assert forward_rule_kind(get("add")) == "linear" and forward_rule_kind(get("reshape")) == "linear"
    assert forward_rule_kind(get("mul")) == "bilinear" and forward_rule_kind(get("matmul")) == "bilinear"
    assert forward_rule_kind(get("tanh"), NodeContext("tanh", [f64])) == "elementwise"
    assert forward_rule_kind(get("tanh"), NodeContext("tanh", [TensorType((3,), "complex128")])) == "transposed"
    assert forward_rule_kind(get("convert"), NodeContext("convert", [f64], {"dtype": "float32"})) == "transposed"
    assert forward_rule_kind(get("solve")) == "transposed"
    assert forward_rule_kind(get("debug_print")) is None


# -- complex operands: JAX's convention, checked with complex tangents --------------------------------
COMPLEX_FUNCTIONS = [
    ("exp*z", lambda z: fnp.exp(z) * z, lambda z: jnp.exp(z) * z),
    ("|z|^2", lambda z: fnp.real(z * fnp.conj(z)), lambda z: jnp.real(z * jnp.conj(z))),
    ("angle", lambda z: fnp.angle(z), lambda z: jnp.angle(z)),
    ("real*conj", lambda z: fnp.real(z) * fnp.conj(z), lambda z: jnp.real(z) * jnp.conj(z)),
    ("fft", lambda z: fnp.fft.fft(z * z), lambda z: jnp.fft.fft(z * z)),
    ("sqrt/log", lambda z: fnp.sqrt(z) / fnp.log(z + 3.0), lambda z: jnp.sqrt(z) / jnp.log(z + 3.0)),
    ("matmul", lambda z: fnp.tanh(z) @ z.T, lambda z: jnp.tanh(z) @ z.T),
]


@pytest.mark.parametrize("name, f, jf", COMPLEX_FUNCTIONS, ids=[c[0] for c in COMPLEX_FUNCTIONS])
def test_complex_tangents_match_jax_jvp(name, f, jf):
    rng = np.random.default_rng(5)
    z = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    t = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    out, tangent = frame.jvp(f, (z,), (t,))
    with jax.enable_x64(True):
        want_out, want_tangent = jax.jvp(jf, (z,), (t,))
    np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tangent, want_tangent, rtol=1e-10, atol=1e-12)


# -- the graph transform ------------------------------------------------------------------------------
def test_layout_appends_tangent_inputs_in_wrt_order_and_one_tangent_per_output():
    def f(a, b, c):
        return fnp.sin(a) * b, fnp.sum(c), fnp.argmax(c)

    graph = frame.trace(f, np.ones(3), np.ones(3), np.ones((2, 2)))
    derived = build_forward_graph(graph, [2, 0])
    assert [v.type for v in derived.inputs] == [v.type for v in graph.inputs] + [graph.inputs[2].type,
                                                                                graph.inputs[0].type]
    assert [v.type for v in derived.outputs] == [v.type for v in graph.outputs] * 2
    verify(derived)
    assert print_graph(parse_graph(print_graph(derived))) == print_graph(derived)
    a, b, c = np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0]), np.array([[1.0, 4.0], [2.0, 3.0]])
    ta, tc = np.array([1.0, 0.0, 2.0]), np.ones((2, 2))
    outs = compile_graph(derived)(a, b, c, tc, ta)
    np.testing.assert_allclose(outs[3], np.cos(a) * ta * b)    # b is not in wrt: its tangent is zero
    assert outs[4] == 4.0 and outs[5] == 0 and outs[5].dtype == np.int64   # argmax: a zero tangent of its type


def test_tangents_of_outputs_off_every_wrt_chain_are_zeros():
    graph = frame.trace(lambda a, b: (a * 2.0, fnp.exp(b)), np.ones(2), np.ones(2))
    outs = compile_graph(build_forward_graph(graph, [0]))(np.ones(2), np.ones(2), np.full(2, 3.0))
    np.testing.assert_array_equal(outs[2], [6.0, 6.0])
    np.testing.assert_array_equal(outs[3], [0.0, 0.0])


def test_bad_wrt_and_ops_without_rules_raise_gradient_errors_naming_them():
    graph = frame.trace(lambda a, i: a * 2.0, np.ones(2), np.ones(2, dtype=np.int64))
    with pytest.raises(GradientError, match="out of range"):
        build_forward_graph(graph, [5])
    with pytest.raises(GradientError, match="duplicates"):
        build_forward_graph(graph, [0, 0])
    with pytest.raises(GradientError, match="float or complex input"):
        build_forward_graph(graph, [1])
    register_op("ruleless_test_op", shape=lambda ctx: [ctx.input_types[0]], kernel=lambda x: x, num_inputs=1)
    try:
        g = frame.trace(lambda x: bind("ruleless_test_op", x), np.ones(2))
        with pytest.raises(GradientError, match="ruleless_test_op"):
            build_forward_graph(g, [0])
    finally:
        unregister_op("ruleless_test_op")


def test_forward_graph_of_an_mlp_is_smaller_than_its_reverse_graph():
    """A JVP of a 4-layer MLP w.r.t. its input is one tangent sweep: fewer nodes than a VJP, which
    also stores the forward pass's intermediates for the backward sweep (both after the pipeline)."""
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((a, b)) for a, b in [(1, 16), (16, 16), (16, 16), (16, 1)]]

    def mlp(x):
        for w in ws[:-1]:
            x = fnp.tanh(x @ w)
        return x @ ws[-1]

    x = np.linspace(-1, 1, 8).reshape(-1, 1)
    forward = compile_graph(build_forward_graph(frame.trace(mlp, x), [0]))
    reverse = compile_graph(frame.frontend.transforms.derived_graph(frame.trace(lambda x: fnp.sum(mlp(x)), x), 0, [0]))
    assert len(forward.graph.nodes) <= len(reverse.graph.nodes)
    np.testing.assert_allclose(forward(x, np.ones_like(x))[1], reverse(x)[1], rtol=1e-12)


# -- user API -----------------------------------------------------------------------------------------
def test_jvp_of_pytrees_and_linearize():
    params = {"w": np.arange(6.0).reshape(2, 3) / 10, "b": np.ones(3)}
    tangent = {"w": np.ones((2, 3)), "b": np.full(3, 0.5)}
    x = np.array([[1.0, 2.0]])

    def f(p):
        return {"y": fnp.tanh(x @ p["w"] + p["b"]), "n": fnp.sum(p["w"] ** 2.0)}

    out, t = frame.jvp(f, (params,), (tangent,))
    with jax.enable_x64(True):
        jout, jt = jax.jvp(lambda p: {"y": jnp.tanh(x @ p["w"] + p["b"]), "n": jnp.sum(p["w"] ** 2.0)},
                           (params,), (tangent,))
    for k in ("y", "n"):
        np.testing.assert_allclose(out[k], jout[k], rtol=1e-12)
        np.testing.assert_allclose(t[k], jt[k], rtol=1e-12)
    primal, f_jvp = frame.linearize(f, params)
    np.testing.assert_allclose(f_jvp(tangent)["y"], jt["y"], rtol=1e-12)
    np.testing.assert_allclose(primal["n"], jout["n"], rtol=1e-12)


def test_jacfwd_jacrev_and_hessian_match_jax_on_pytrees():
    rng = np.random.default_rng(3)
    p = {"a": rng.standard_normal((2, 2)), "b": rng.standard_normal(3)}

    def f(p, x):
        return fnp.sin(p["a"] @ x[:2]) * fnp.sum(p["b"] * x)

    def jf(p, x):
        return jnp.sin(p["a"] @ x[:2]) * jnp.sum(p["b"] * x)

    x = rng.standard_normal(3)
    with jax.enable_x64(True):
        want = jax.jacfwd(jf, argnums=(0, 1))(p, x)
        want_h = jax.hessian(lambda p: jnp.sum(jf(p, x) ** 2))(p)
    for jac in (frame.jacfwd, frame.jacrev):
        got = jac(f, argnums=(0, 1))(p, x)
        for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(g, w, rtol=1e-11, atol=1e-12)
        assert got[0]["a"].shape == (2, 2, 2) and got[1].shape == (2, 3)
    got_h = frame.hessian(lambda p: fnp.sum(f(p, x) ** 2.0))(p)
    assert got_h["a"]["b"].shape == (2, 2, 3)
    for g, w in zip(jax.tree_util.tree_leaves(got_h), jax.tree_util.tree_leaves(want_h)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_forward_mode_nests_inside_function_and_grad():
    f = lambda x: fnp.sum(fnp.tanh(x) ** 3.0)   # noqa: E731
    x = np.linspace(-1.0, 1.0, 5)
    third = frame.function(lambda x: frame.jvp(lambda y: frame.jvp(frame.grad(f), (y,), (np.ones(5),))[1],
                                                (x,), (np.ones(5),))[1])
    with jax.enable_x64(True):
        jf = lambda x: jnp.sum(jnp.tanh(x) ** 3.0)   # noqa: E731
        want = jax.jvp(lambda y: jax.jvp(jax.grad(jf), (y,), (jnp.ones(5),))[1], (x,), (jnp.ones(5),))[1]
    np.testing.assert_allclose(third(x), want, rtol=1e-11)


def test_jvp_argument_errors_name_the_problem():
    f = lambda x: x * 2.0   # noqa: E731
    with pytest.raises(GradientError, match="tuple"):
        frame.jvp(f, np.ones(2), np.ones(2))
    with pytest.raises(GradientError, match="1 primal"):
        frame.jvp(f, (np.ones(2),), (np.ones(2), np.ones(2)))
    with pytest.raises(GradientError, match=r"shape \(2,\)"):
        frame.jvp(f, (np.ones(2),), (np.ones(3),))
    with pytest.raises(GradientError, match="float or complex primals"):
        frame.jvp(f, (np.ones(2, dtype=np.int64),), (np.ones(2, dtype=np.int64),))
    with pytest.raises(GradientError, match="structure"):
        frame.jvp(lambda p: p["a"], ({"a": np.ones(2)},), ({"b": np.ones(2)},))
