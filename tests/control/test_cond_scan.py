"""cond, scan and fori_loop (issue 17, item 1) against numpy and JAX's lax.cond / lax.scan /
lax.fori_loop of the same functions: values, reverse mode to order 2 (reverse over reverse and
forward over reverse), the text form, the verifier's region rule, to_jax, the passes, and the errors
of mismatched branches and carries."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import ShapeError, TraceError, VerifyError
from frame.frontend.control import cond, fori_loop, scan, switch
from frame.interop import check_derivatives, to_jax
from frame.ir import parse_graph, print_graph, verify
from frame.ir.graph import Node, Value
from frame.ops.fused import FusedBody
from frame.runtime import compile as compile_graph

pytestmark = pytest.mark.usefixtures("jax_x64")   # x64 for this module only (tests/conftest.py)

RNG = np.random.default_rng(0)
U0 = RNG.normal(size=3)
W = RNG.normal(size=(3, 3)) * 0.5
XS = np.linspace(0.5, 1.5, 6)


def assert_close(a, b, tol=1e-12):
    """Every leaf of `a` equals the matching leaf of `b` to `tol`; both have the same number of leaves."""
    a, b = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(a) == len(b), f"{len(a)} leaves against {len(b)}"
    for u, v in zip(a, b):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=tol, atol=tol)


# -- the same functions in frame and in JAX ----------------------------------------------------------
def rollout(u0, w, xs=XS, np_=fnp, scan_=scan, reverse=False):
    def step(u, x):
        u = u + 0.1 * np_.tanh(u @ w) * x
        return u, np_.sum(u ** 2)
    u, energies = scan_(step, u0, xs, reverse=reverse)
    return np_.sum(u) + np_.sum(energies * xs)


def j_rollout(u0, w, xs=XS, reverse=False):
    return rollout(u0, w, xs, jnp, jax.lax.scan, reverse)


def branchy(x, p, np_=fnp, cond_=cond):
    return np_.sum(cond_(p > 0, lambda a: np_.sin(a) * x, lambda a: a ** 2 * p, x))


def j_branchy(x, p):
    return branchy(x, p, jnp, jax.lax.cond)


def powers(a, np_=fnp, fori=fori_loop):
    return fori(0, 4, lambda i, v: v * np_.sin(v) + i, a)


def j_powers(a):
    return powers(a, jnp, jax.lax.fori_loop)


# -- values ------------------------------------------------------------------------------------------
def test_cond_picks_a_branch_eagerly_traced_and_compiled():
    x = np.arange(3.0)
    assert_close(cond(True, lambda a: a * 2, lambda a: a + 1, x), x * 2)
    assert_close(cond(np.int64(0), lambda a: a * 2, lambda a: a + 1, x), x + 1)   # an int predicate: nonzero
    f = frame.function(lambda x, p: cond(p, lambda a: (a * 2, a.sum()), lambda a: (a + 1, a.max()), x))
    assert_close(f(x, True), (x * 2, 3.0))
    assert_close(f(x, False), (x + 1, 2.0))
    graph = f.trace(x, True)
    assert [n.op for n in graph.nodes].count("cond") == 1


def test_switch_is_nested_conds_with_a_clamped_index():
    branches = [lambda a: a, lambda a: a * 2, lambda a: a + 1]
    f = frame.function(lambda i, a: switch(i, branches, a))
    for i in range(-1, 4):
        assert f(np.int64(i), 3.0) == jax.lax.switch(i, [lambda a: a, lambda a: a * 2, lambda a: a + 1], 3.0)


def test_scan_matches_jax_forward_and_reverse_and_is_one_node():
    for reverse in (False, True):
        assert_close(rollout(U0, W, reverse=reverse), j_rollout(U0, W, reverse=reverse))
    graph = frame.trace(lambda u, w: rollout(u, w), U0, W)
    assert [n.op for n in graph.nodes].count("scan") == 1
    # A 1000-step scan is the same one node: the loop is not unrolled.
    long = frame.trace(lambda u: scan(lambda c, _: (c * 0.999, None), u, None, length=1000)[0], U0)
    assert len(long.nodes) == 1
    np.testing.assert_allclose(compile_graph(long)(U0)[0], U0 * 0.999 ** 1000, rtol=1e-12)


def test_scan_pytrees_none_ys_and_empty_scan():
    init = {"u": U0, "n": 0}
    xs = (XS, np.arange(6.0)[:, None] * np.ones((6, 2)))
    carry, ys = scan(lambda c, x: ({"u": c["u"] * x[0], "n": c["n"] + 1}, [x[1] * 2, None]), init, xs)
    assert carry["n"] == 6 and ys[1] is None
    assert_close(carry["u"], U0 * np.prod(XS))
    assert_close(ys[0], xs[1] * 2)
    carry, ys = scan(lambda c, x: (c + x, c), 1.5, np.zeros((0,)))
    assert carry == 1.5 and ys.shape == (0,)


def test_a_python_number_in_the_carry_takes_the_bodys_dtype():
    xs = np.ones(4, "float32")
    carry, ys = scan(lambda c, x: (c + x, c), 0.0, xs)
    assert carry.dtype == np.float32 and ys.dtype == np.float32 and carry == 4.0


def test_fori_loop_with_static_bounds_is_a_scan_and_traced_bounds_a_while():
    assert_close(powers(0.7), j_powers(0.7))
    static = frame.trace(lambda a: powers(a), 0.7)
    assert [n.op for n in static.nodes if n.op != "constant"] == ["scan"]
    dynamic = frame.trace(lambda a, n: fori_loop(0, n, lambda i, v: v * 2.0, a), 0.5, np.int64(3))
    assert "while" in [n.op for n in dynamic.nodes]
    assert compile_graph(dynamic)(0.5, np.int64(3))[0] == 4.0


# -- reverse mode against JAX, orders 1 and 2 ------------------------------------------------------------
def test_scan_gradients_match_jax_to_second_order():
    for reverse in (False, True):
        f = lambda u, w: rollout(u, w, reverse=reverse)                       # noqa: E731
        jf = lambda u, w: j_rollout(u, w, reverse=reverse)                    # noqa: E731
        assert_close(frame.grad(f, argnums=(0, 1))(U0, W), jax.grad(jf, argnums=(0, 1))(U0, W))
        if reverse:
            assert_close(frame.hessian(f)(U0, W), jax.hessian(jf)(U0, W))     # forward over reverse
            continue
        rr = frame.grad(lambda u, w: fnp.sum(frame.grad(f, argnums=1)(u, w) ** 2))(U0, W)
        jrr = jax.grad(lambda u, w: jnp.sum(jax.grad(jf, argnums=1)(u, w) ** 2))(U0, W)
        assert_close(rr, jrr)                                                 # reverse over reverse
    # the gradient with respect to the scanned xs
    assert_close(frame.grad(lambda xs: rollout(U0, W, xs))(XS), jax.grad(lambda xs: j_rollout(U0, W, xs))(XS))


def test_cond_gradients_match_jax_in_both_branches():
    x = RNG.normal(size=3)
    for p in (1.0, -1.0):
        assert_close(frame.grad(branchy, argnums=(0, 1))(x, p), jax.grad(j_branchy, argnums=(0, 1))(x, p))
        assert_close(frame.hessian(branchy)(x, p), jax.hessian(j_branchy)(x, p))


def test_fori_loop_gradient_matches_jax():
    assert_close(frame.grad(powers)(0.7), jax.grad(j_powers)(0.7))
    assert_close(frame.grad(frame.grad(powers))(0.7), jax.grad(jax.grad(j_powers))(0.7))


def test_the_oracle_checks_scan_and_cond_derivatives_and_their_lowered_derived_graphs():
    report = check_derivatives(lambda u, w: rollout(u, w), U0, W, argnums=(0, 1), orders=(1, 2))
    checks = {(e.order, e.check) for e in report.entries}
    assert {(1, "gradient"), (1, "lowered derived graph"), (2, "lowered derived graph")} <= checks
    report = check_derivatives(lambda x: branchy(x, 1.0), RNG.normal(size=3), orders=(1, 2))
    assert (1, "gradient") in {(e.order, e.check) for e in report.entries}


# -- IR: text form, verifier, lowering -------------------------------------------------------------------
def _round_trip(graph):
    text = print_graph(graph)
    again = verify(parse_graph(text))
    assert print_graph(again) == text
    return again


def test_graphs_with_regions_print_and_parse_back_also_derived_and_nested():
    graph = frame.trace(lambda u, w: rollout(u, w), U0, W)
    again = _round_trip(graph)
    assert_close(compile_graph(again)(U0, W), compile_graph(graph)(U0, W))
    derived = frame.compiler.build_backward_graph(graph, 0, [0, 1])   # scans of scans' VJP bodies
    assert_close(compile_graph(_round_trip(derived))(U0, W), compile_graph(derived)(U0, W))

    def nested(x, p):   # a cond inside a scan body
        return scan(lambda c, xi: (cond(xi > 1.0, lambda a: a * xi, lambda a: a - xi, c), c), x, XS)[0]
    graph = frame.trace(nested, 0.3, 1.0)
    assert "cond(" in print_graph(graph)
    _round_trip(graph)


def test_the_verifier_checks_regions():
    graph = frame.trace(lambda x: scan(lambda c, xi: (c + xi, c * 2), 0.0, x), np.arange(3.0))
    node = next(n for n in graph.nodes if n.op == "scan")
    body = node.attrs["body"]
    bad = FusedBody("bad")
    a, _ = bad.add_input(body.inputs[0].type), bad.add_input(body.inputs[1].type)
    leak = Node("neg", [graph.inputs[0]], {}, bad)             # reads a value of the enclosing graph
    leak.outputs = [Value(graph.inputs[0].type, leak, 0, bad)]
    bad.nodes.append(leak)
    bad.mark_output(a)
    bad.mark_output(a)
    node.attrs = dict(node.attrs, body=bad.freeze())
    with pytest.raises(VerifyError, match=r"V8: node 1 \('scan'\): region 'body' \(@bad\) breaks V2"):
        verify(graph)


def test_to_jax_lowers_to_lax_control_flow():
    graph = frame.trace(lambda u, w: rollout(u, w), U0, W)
    lowered = to_jax(graph)
    np.testing.assert_allclose(lowered(U0, W)[0], j_rollout(U0, W), rtol=1e-13)
    jaxpr = str(jax.make_jaxpr(lowered)(U0, W))
    assert "scan[" in jaxpr
    c = frame.trace(lambda x, p: branchy(x, p), U0, 1.0)
    assert "cond[" in str(jax.make_jaxpr(to_jax(c))(U0, 1.0))
    np.testing.assert_allclose(to_jax(c)(U0, -1.0)[0], j_branchy(U0, -1.0), rtol=1e-13)


# -- passes ----------------------------------------------------------------------------------------------
def test_passes_keep_region_ops_correct():
    from frame.compiler.passes.fold import fold
    from frame.compiler.pipeline import run_pipeline
    from frame.ir.graph import Graph

    def f(u, w):   # two equal scans (CSE merges them), one unused (DNE drops it)
        a = rollout(u, w)
        b = rollout(u, w)
        rollout(u * 2.0, w)
        return a + b
    graph = frame.trace(f, U0, W)
    assert [n.op for n in graph.nodes].count("scan") == 3
    optimised = run_pipeline(graph)
    assert [n.op for n in optimised.nodes].count("scan") == 1
    assert_close(compile_graph(optimised)(U0, W)[0], 2 * j_rollout(U0, W))
    # A scan of constants folds into its result (the kernel runs at compile time).
    traced = frame.trace(lambda xs: scan(lambda k, x: (k + x, k * x), 0.5, xs), np.arange(4.0))
    node = next(n for n in traced.nodes if n.op == "scan")
    constant = Graph("constant_scan")
    operands = [constant.constant(np.asarray(0.5)), constant.constant(np.arange(4.0))]
    for v in constant.add_node("scan", operands, node.attrs).outputs:
        constant.mark_output(v)
    folded = fold(constant)
    assert {n.op for n in folded.nodes} == {"constant"}
    assert_close(compile_graph(folded)(), compile_graph(constant)())
    assert_close(compile_graph(constant)(), [6.5, np.array([0.0, 0.5, 3.0, 10.5])])


def test_a_region_with_a_print_is_kept_and_runs_once_per_step(capsys):
    def f(x):
        def step(c, xi):
            fnp.debug_print("c={}", c)
            return c + xi, c
        scan(step, 0.0, x)   # its result is unused: it stays for its print
        return fnp.sum(x)
    assert frame.function(f)(np.arange(3.0)) == 3.0
    assert capsys.readouterr().out.split() == ["c=0.0", "c=0.0", "c=1.0"]


# -- errors ----------------------------------------------------------------------------------------------
def test_mismatched_branches_and_carries_are_refused_by_name():
    x = np.ones(3)
    with pytest.raises(ShapeError, match=r"cond: false_fun's output\[1\] is f32\[3\], but true_fun's output\[1\] is "
                                         r"f64\[3\]"):
        cond(True, lambda a: (a, a), lambda a: (a, a.astype("float32")), x)
    with pytest.raises(TraceError, match="cond: false_fun's output has structure"):
        cond(True, lambda a: (a, a), lambda a: a, x)
    with pytest.raises(ShapeError, match=r"scan: the body's carry output is f64\[2\], but the initial carry is "
                                         r"f64\[3\].*keeps its type"):
        scan(lambda c, _: (c[:2], None), x, None, length=2)
    with pytest.raises(TraceError, match="scan: the body must return a pair"):
        scan(lambda c, _: c, x, None, length=2)
    with pytest.raises(ShapeError, match="different leading axis lengths"):
        scan(lambda c, xs: (c, None), x, (np.ones(3), np.ones(4)))
    with pytest.raises(ShapeError, match="no xs to scan over and length is not given"):
        scan(lambda c, _: (c, None), x, None)
    with pytest.raises(ShapeError, match="cond: the predicate must be a bool or integer scalar, got float64"):
        cond(1.0, lambda a: a, lambda a: a, x)
    with pytest.raises(ShapeError, match="cond: the predicate must be a scalar"):
        frame.trace(lambda p: cond(p > 0, lambda: 1.0, lambda: 2.0), np.ones(2))


def test_the_ops_shape_rules_name_the_mismatch():
    graph = frame.trace(lambda x: scan(lambda c, xi: (c + xi, c), 0.0, x), np.arange(3.0))
    node = next(n for n in graph.nodes if n.op == "scan")
    with pytest.raises(ShapeError, match=r"'scan': xs operand 0 is f64\[4\], which has no leading axis of the scan's "
                                         r"length 3"):
        frame.ops.get("scan").infer([frame.ir.TensorType((), "float64"), frame.ir.TensorType((4,), "float64")],
                                    node.attrs)
