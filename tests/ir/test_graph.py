"""IR building API, clone, verify rules V1..V7 (one negative test each), printer/parser round trip."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from frame import ShapeError, VerifyError
from frame.ir import Graph, Node, TensorType, Value, clone_graph, parse_graph, verify
from frame.ir.parser import ParseError

F32 = TensorType((3,), "float32")


def small_graph() -> Graph:
    g = Graph("small")
    x, y = g.add_input(F32), g.add_input(F32)
    s = g.add_node("add", [x, y]).output
    t = g.add_node("sum", [s], {"axes": (0,), "keepdims": False}).output
    g.mark_output(t)
    g.mark_output(s)
    return g


def test_add_node_infers_types_and_builds_ssa():
    g = small_graph()
    assert [v.type for v in g.outputs] == [TensorType((), "float32"), F32]
    assert [n.op for n in g.nodes] == ["add", "sum"]
    assert g.nodes[1].inputs[0] is g.nodes[0].outputs[0]
    assert verify(g) is g


def test_mark_output_twice_is_allowed():
    g = Graph()
    x = g.add_input(F32)
    g.mark_output(x)
    g.mark_output(x)
    verify(g)
    assert str(parse_graph(str(g))) == str(g)


def test_clone_graph_fills_value_map_and_is_independent():
    g = small_graph()
    vm = {}
    c = clone_graph(g, vm)
    assert str(c) == str(g)
    assert all(vm[v].graph is c for v in g.inputs)
    assert vm[g.outputs[0]] is c.outputs[0]
    c.add_node("neg", [c.outputs[1]])
    assert len(g.nodes) == 2  # the source is untouched


def test_add_node_rejects_bad_operands_naming_the_op():
    g = Graph()
    x = g.add_input(TensorType((2, 3), "float32"))
    y = g.add_input(TensorType((4, 5), "float32"))
    with pytest.raises(ShapeError, match=r"matmul.*\(2, 3\).*\(4, 5\)"):
        g.add_node("matmul", [x, y])


# -- one negative test per verify rule ------------------------------------------------------------

def test_v1_value_defined_twice():
    g = Graph()
    x = g.add_input(F32)
    a = g.add_node("neg", [x]).output
    second = g.add_node("neg", [x])
    second.outputs = [a]  # the same SSA value defined by two nodes
    g.mark_output(a)
    with pytest.raises(VerifyError, match="^V1"):
        verify(g)


def test_v2_use_before_definition():
    g = small_graph()
    g.nodes.reverse()
    with pytest.raises(VerifyError, match="^V2"):
        verify(g)


def test_v3_unregistered_op():
    g = small_graph()
    g.nodes[0].op = "no_such_op"
    with pytest.raises(VerifyError, match="^V3.*no_such_op"):
        verify(g)


def test_v4_output_type_disagrees_with_shape_rule():
    g = small_graph()
    g.nodes[0].outputs[0].type = TensorType((4,), "float32")
    with pytest.raises(VerifyError, match="^V4"):
        verify(g)


def test_v5_invalid_attrs():
    g = small_graph()
    g.nodes[1].attrs = {"axes": (0,), "keepdims": False, "bogus": 1}
    with pytest.raises(VerifyError, match="^V5.*bogus"):
        verify(g)


def test_v6_output_not_in_graph():
    g = small_graph()
    other = small_graph()
    g.outputs.append(other.outputs[0])
    with pytest.raises(VerifyError, match="^V6"):
        verify(g)


def test_v7_node_owned_by_another_graph():
    g = small_graph()
    other = Graph("other")
    g.nodes[0].graph = other
    with pytest.raises(VerifyError, match="^V7"):
        verify(g)


# -- text form ------------------------------------------------------------------------------------

def test_printed_form_is_readable():
    text = str(small_graph())
    assert text.splitlines()[0] == "graph @small(%0: f32[3], %1: f32[3]) {"
    assert "%2: f32[3] = add(%0, %1)" in text
    assert "%3: f32[] = sum(%2) {axes=(0,), keepdims=False}" in text
    assert text.splitlines()[-2].strip() == "return (%3, %2)"


def test_constants_round_trip_exactly_including_special_values():
    g = Graph("consts")
    vals = [np.array([0.1, -2.5e-300, np.inf, -np.inf, np.nan]), np.float32(1 / 3) * np.ones((2, 2), "float32"),
            np.array([[1, 2], [3, 4]], "int64"), np.array([True, False]), np.zeros((0, 3)), np.array(7.25)]
    for v in vals:
        g.mark_output(g.constant(v))
    text = str(g)
    assert "dense<0.3333333432674408>" in text  # splat form for uniform constants
    back = parse_graph(text)
    assert str(back) == text
    for a, b in zip(vals, back.outputs):
        np.testing.assert_array_equal(b.node.attrs["value"], a)
        assert b.node.attrs["value"].dtype == a.dtype


def test_parser_reports_bad_text():
    with pytest.raises(ParseError, match="undefined"):
        parse_graph("graph @g(%0: f32[3]) {\n  %1: f32[3] = neg(%9)\n  return (%1)\n}")
    with pytest.raises(ParseError, match="infers"):
        parse_graph("graph @g(%0: f32[3]) {\n  %1: f32[4] = neg(%0)\n  return (%1)\n}")


# -- property: random graphs round-trip through the text form --------------------------------------

UNARY = ["neg", "exp", "sin", "cos", "tanh", "sigmoid", "relu", "square", "stop_gradient"]
BINARY = ["add", "sub", "mul", "div"]


@st.composite
def random_graphs(draw):
    dtype = draw(st.sampled_from(["float32", "float64"]))
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=3)))
    g = Graph(draw(st.sampled_from(["f", "main", "g_1"])))
    values = [g.add_input(TensorType(shape, dtype)) for _ in range(draw(st.integers(1, 3)))]
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["unary", "binary", "const", "pow", "sum", "reshape"]))
        if kind == "unary":
            values.append(g.add_node(draw(st.sampled_from(UNARY)), [draw(st.sampled_from(values))]).output)
        elif kind == "binary":
            a, b = draw(st.sampled_from(values)), draw(st.sampled_from(values))
            if a.type == b.type:
                values.append(g.add_node(draw(st.sampled_from(BINARY)), [a, b]).output)
        elif kind == "const":
            data = draw(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=1, max_size=1))
            arr = np.full(shape, data[0], dtype) if draw(st.booleans()) else \
                np.asarray(np.random.default_rng(len(values)).normal(size=shape), dtype)
            values.append(g.constant(arr))
        elif kind == "pow":
            values.append(g.add_node("pow", [draw(st.sampled_from(values))],
                                     {"exponent": draw(st.sampled_from([2.0, -1.5, 0.5, 3]))}).output)
        elif kind == "sum":
            v = draw(st.sampled_from(values))
            axes = tuple(i for i in range(v.type.rank) if draw(st.booleans()))
            g.mark_output(g.add_node("sum", [v], {"axes": axes, "keepdims": draw(st.booleans())}).output)
        else:
            v = draw(st.sampled_from(values))
            g.mark_output(g.add_node("reshape", [v], {"shape": (v.type.size,)}).output)
    for v in draw(st.lists(st.sampled_from(values), min_size=1, max_size=3)):
        g.mark_output(v)
    return g


@settings(max_examples=60, deadline=None)
@given(random_graphs())
def test_print_parse_round_trip(g):
    verify(g)
    text = str(g)
    back = parse_graph(text)
    verify(back)
    assert str(back) == text
