"""`build_backward_graph` contract (ARCH-060..063) and the seed's numerical acceptance (ARCH-069)."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import GradientError
from frame.compiler import build_backward_graph
from frame.ir import Graph, TensorType, clone_graph, parse_graph, verify
from frame.ops import register_op, traced_gradient, unregister_op
from frame.runtime import compile as compile_graph
from tests.numerics import assert_close_first_order, central_difference

F64 = "float64"


def run(graph, *args):
    return compile_graph(graph)(*args)


def contract_last(graph: Graph, index: int, direction=None) -> Graph:
    """Add `sum(outputs[index] [* direction])` as the new last output (ARCH-067's scalar contraction)."""
    g = clone_graph(graph)
    v = g.outputs[index]
    if direction is not None:
        v = g.add_node("mul", [v, g.constant(direction)]).output
    g.mark_output(g.add_node("sum", [v], {"axes": tuple(range(v.type.rank)), "keepdims": False}).output)
    return g


# -- contract ---------------------------------------------------------------------------------------

def test_multi_output_forward_keeps_outputs_and_appends_gradients():
    x, w = np.linspace(-1, 1, 6).reshape(2, 3), np.linspace(0.5, 1.5, 3).reshape(3, 1)
    fwd = frame.trace(lambda x, w: (fnp.tanh(x @ w), fnp.sum(fnp.tanh(x @ w) ** 2), x * 2.0), x, w)
    derived = build_backward_graph(fwd, 1, [1, 0])
    assert len(derived.outputs) == 3 + 2
    fwd_out = run(fwd, x, w)
    out = run(derived, x, w)
    for a, b in zip(out[:3], fwd_out):
        np.testing.assert_allclose(a, b)
    assert out[3].shape == w.shape and out[4].shape == x.shape  # in wrt order
    assert_close_first_order(out[3], central_difference(lambda w_: np.sum(np.tanh(x @ w_) ** 2), w))
    assert_close_first_order(out[4], central_difference(lambda x_: np.sum(np.tanh(x_ @ w) ** 2), x))


def test_forward_graph_is_unchanged():
    fwd = frame.trace(lambda x: fnp.sum(fnp.sin(x) * x), np.ones(3))
    before = str(fwd)
    build_backward_graph(fwd, 0, [0])
    assert str(fwd) == before


def test_derived_graph_verifies_round_trips_and_compiles():
    fwd = frame.trace(lambda x, w: fnp.mse_loss(fnp.relu(x @ w), np.ones((4, 2))), np.ones((4, 3)), np.ones((3, 2)))
    derived = build_backward_graph(fwd, 0, [0, 1])
    verify(derived)
    assert str(parse_graph(str(derived))) == str(derived)
    out = run(derived, np.ones((4, 3)), np.ones((3, 2)))
    assert [o.shape for o in out] == [(), (4, 3), (3, 2)]


def test_disconnected_wrt_gets_zero_of_its_type():
    fwd = frame.trace(lambda x, y, k: fnp.sum(x * x), np.ones(3), np.ones((2, 2), "float64"), np.ones(2))
    derived = build_backward_graph(fwd, 0, [1, 0])
    out = run(derived, np.arange(3.0), np.ones((2, 2)), np.ones(2))
    np.testing.assert_array_equal(out[1], np.zeros((2, 2)))
    np.testing.assert_array_equal(out[2], 2 * np.arange(3.0))


def test_inputs_not_listed_get_no_gradient_which_is_stop_gradient():
    fwd = frame.trace(lambda x, y: fnp.sum(x * y), np.ones(3), np.ones(3))
    derived = build_backward_graph(fwd, 0, [0])
    assert len(derived.outputs) == 2
    np.testing.assert_array_equal(run(derived, np.ones(3), np.arange(3.0))[1], np.arange(3.0))


def test_numel_one_loss_is_accepted():
    fwd = frame.trace(lambda x: fnp.sum(x * x, axis=0, keepdims=True), np.ones((3, 1)))
    out = run(build_backward_graph(fwd, 0, [0]), np.arange(3.0).reshape(3, 1))
    np.testing.assert_array_equal(out[1], 2 * np.arange(3.0).reshape(3, 1))


def test_non_scalar_loss_error_contains_the_shape():
    fwd = frame.trace(lambda x: x * 2.0, np.ones((2, 3)))
    with pytest.raises(GradientError, match=r"\(2, 3\)"):
        build_backward_graph(fwd, 0, [0])


@pytest.mark.parametrize("loss_index,wrt,pattern", [(3, [0], "loss_output_index 3"), (0, [2], "wrt input index 2"),
                                                   (0, [0, 0], "duplicates"), (-1, [0], "out of range")])
def test_bad_indices(loss_index, wrt, pattern):
    fwd = frame.trace(lambda x, y: fnp.sum(x * y), np.ones(3), np.ones(3))
    with pytest.raises(GradientError, match=pattern):
        build_backward_graph(fwd, loss_index, wrt)


def test_op_without_gradient_on_the_chain_raises_naming_it():
    from frame.ops.elementwise import _unary_shape
    register_op("test_no_grad_op", shape=_unary_shape(True), kernel=lambda x: x * 3.0)
    try:
        fwd = frame.trace(lambda x: fnp.sum(frame.frontend.tracer.bind("test_no_grad_op", x)), np.ones(2))
        with pytest.raises(GradientError, match="test_no_grad_op"):
            build_backward_graph(fwd, 0, [0])
        # Off the chain (depends on no wrt input) it does not matter.
        fwd2 = frame.trace(lambda x, y: fnp.sum(x) + fnp.sum(frame.frontend.tracer.bind("test_no_grad_op", y)),
                           np.ones(2), np.ones(2))
        assert run(build_backward_graph(fwd2, 0, [0]), np.ones(2), np.ones(2))[1].tolist() == [1.0, 1.0]
    finally:
        unregister_op("test_no_grad_op")


def test_rule_producing_a_wrong_type_is_caught():
    from frame.ops.elementwise import _unary_shape
    register_op("test_bad_rule", shape=_unary_shape(True), kernel=lambda x: x,
                gradient=traced_gradient(lambda ctx, xs, ys, gys: [fnp.sum(gys[0])]))
    try:
        fwd = frame.trace(lambda x: fnp.sum(frame.frontend.tracer.bind("test_bad_rule", x)), np.ones(2))
        with pytest.raises(GradientError, match="test_bad_rule.*type"):
            build_backward_graph(fwd, 0, [0])
    finally:
        unregister_op("test_bad_rule")


def test_multi_consumer_gradients_are_summed_with_add():
    fwd = frame.trace(lambda x: fnp.sum(x * x + fnp.sin(x)), np.ones(3))
    derived = build_backward_graph(fwd, 0, [0])
    assert any(n.op == "add" for n in derived.nodes[len(fwd.nodes):])
    x = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(run(derived, x)[1], 2 * x + np.cos(x))


# -- ARCH-069 numerical acceptance ---------------------------------------------------------------------

def test_second_derivative_of_a_polynomial():
    # p(x) = 3x^4 - 2x^3 + x - 5: p'' = 36x^2 - 12x, by applying build_backward_graph twice.
    x = np.array([-1.3, 0.0, 0.4, 2.0])
    fwd = frame.trace(lambda x: fnp.sum(3.0 * x ** 4 - 2.0 * x ** 3 + x - 5.0), x)
    first = build_backward_graph(fwd, 0, [0])
    second = build_backward_graph(contract_last(first, 1), 2, [0])
    out = run(second, x)
    np.testing.assert_allclose(out[1], 12 * x ** 3 - 6 * x ** 2 + 1, rtol=1e-12)
    np.testing.assert_allclose(out[3], 36 * x ** 2 - 12 * x, rtol=1e-12, atol=1e-12)
    g = lambda x_: np.sum(run(first, x_)[1])  # noqa: E731 - differencing the analytic first-order graph
    assert_close_first_order(out[3], central_difference(g, x))


def _chain(x, w, b, target):
    return fnp.mse_loss(fnp.sum(fnp.tanh(x @ w + b), axis=1, keepdims=True), target)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_matmul_add_activation_sum_mse_chain_first_and_second_order(activation):
    rng = np.random.default_rng(3)
    x, w, b, t = rng.normal(size=(5, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4,)), rng.normal(size=(5, 1))
    act = getattr(fnp, activation)
    f = lambda x, w, b, t: fnp.mse_loss(fnp.sum(act(x @ w + b), axis=1, keepdims=True), t)  # noqa: E731
    fwd = frame.trace(f, x, w, b, t)
    first = build_backward_graph(fwd, 0, [1, 2])
    out = run(first, x, w, b, t)
    assert_close_first_order(out[1], central_difference(lambda w_: run(fwd, x, w_, b, t)[0], w))
    assert_close_first_order(out[2], central_difference(lambda b_: run(fwd, x, w, b_, t)[0], b))
    v = rng.normal(size=w.shape)
    second = build_backward_graph(contract_last(first, 1, v), 3, [1])
    hv = run(second, x, w, b, t)[4]
    assert_close_first_order(hv, central_difference(lambda w_: np.sum(run(first, x, w_, b, t)[1] * v), w))


def test_relu_second_derivative_is_zero_away_from_the_kink():
    x = np.array([-2.0, -0.5, 0.7, 1.5])
    first = build_backward_graph(frame.trace(lambda x: fnp.sum(fnp.relu(x) * x), x), 0, [0])
    np.testing.assert_array_equal(run(first, x)[1], np.where(x > 0, 2 * x, 0))
    second = build_backward_graph(contract_last(first, 1), 2, [0])
    np.testing.assert_array_equal(run(second, x)[3], np.where(x > 0, 2.0, 0.0))
    pure = build_backward_graph(contract_last(build_backward_graph(
        frame.trace(lambda x: fnp.sum(fnp.relu(x)), x), 0, [0]), 1), 2, [0])
    np.testing.assert_array_equal(run(pure, x)[3], np.zeros(4))


def test_disconnected_wrt_path_is_zero_at_second_order():
    x, y = np.array([0.3, 0.6]), np.array([1.0, 2.0])
    first = build_backward_graph(frame.trace(lambda x, y: fnp.sum(fnp.sin(x)) + fnp.sum(y * 0.0 + 1.0), x, y), 0, [0, 1])
    second = build_backward_graph(contract_last(first, 1), 3, [1, 0])
    out = run(second, x, y)
    np.testing.assert_array_equal(out[4], np.zeros(2))
    np.testing.assert_allclose(out[5], -np.sin(x))


def test_third_order_of_a_tanh_mlp_against_differenced_second_order():
    rng = np.random.default_rng(5)
    w1, b1, w2 = rng.normal(size=(1, 8)), rng.normal(size=(8,)), rng.normal(size=(8, 1))
    x = np.linspace(-1, 1, 4).reshape(4, 1)
    mlp = lambda x: fnp.sum(fnp.tanh(x @ w1 + b1) @ w2)  # noqa: E731 - points are independent: sum gives u'
    first = build_backward_graph(frame.trace(mlp, x), 0, [0])
    second = build_backward_graph(contract_last(first, 1), 2, [0])            # u''
    third = build_backward_graph(contract_last(second, 3), 4, [0])            # u'''
    out = run(third, x)
    numeric = central_difference(lambda x_: np.sum(run(second, x_)[3]), x)
    assert_close_first_order(out[5], numeric)
    # and the chain is still closed: one more order runs
    fourth = build_backward_graph(contract_last(third, 5), 6, [0])
    assert run(fourth, x)[7].shape == x.shape


@pytest.mark.parametrize("axes, keepdims, ops", [((0,), False, ["broadcast_to"]), ((1,), False, ["reshape", "broadcast_to"]),
                                                 ((1,), True, ["broadcast_to"]), ((0, 1), False, ["broadcast_to"])])
def test_sum_gradient_is_a_broadcast_of_gy(axes, keepdims, ops):
    """sum's adjoint is broadcast_to (after a reshape when a reduced axis follows a kept one), not a helper op."""
    from frame.ops import find
    from frame.ir.registry import NodeContext
    ctx = NodeContext("sum", [TensorType((4, 3), "float32")], {"axes": axes, "keepdims": keepdims})
    micro = find("sum").gradient(ctx)
    assert [n.op for n in micro.nodes] == ops
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    gy = np.sum(x, axis=axes, keepdims=keepdims) + 1
    (gx,) = compile_graph(micro)(x, gy - 1, gy)
    np.testing.assert_array_equal(gx, np.broadcast_to(np.expand_dims(gy, axes) if not keepdims else gy, (4, 3)))


@pytest.mark.parametrize("index", [np.s_[1:4, ::2], np.s_[2:2, :], np.s_[::3, 1:], np.s_[0, 5:]])
def test_slice_gradient_is_a_pad_of_the_cotangent(index):
    # slice's adjoint is the general `pad` op (lax.pad with zeros), not a gradient-only helper.
    x = np.arange(30.0).reshape(5, 6)
    weights = np.random.default_rng(0).standard_normal(x[index].shape)
    g = frame.grad(lambda v: fnp.sum(v[index] * weights))(x)
    want = np.zeros_like(x)
    want[index] = weights
    np.testing.assert_array_equal(g, want)
    derived = build_backward_graph(frame.trace(lambda v: fnp.sum(v[index] * weights), x), 0, [0])
    assert "pad" in {n.op for n in derived.nodes} and "slice_grad_internal" not in {n.op for n in derived.nodes}
