"""`check_derivatives`: the report's contents, and that the oracle catches wrong first- and
second-order gradient rules (test-only ops with deliberately wrong rules)."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import GradientError, OracleMismatch
from frame.frontend.tracer import bind
from frame.interop import OracleReport, check_derivatives
from frame.ops import ELEMENTWISE, INTERNAL, register_op, traced_gradient, unregister_op


def poly(x, y):
    return fnp.sum(x * x * y + fnp.sin(x) * y ** 3.0)


def test_report_has_values_gradients_hessians_and_lowered_derived_graphs():
    rng = np.random.default_rng(0)
    report = check_derivatives(poly, rng.standard_normal(3), rng.standard_normal(3), argnums=(0, 1))
    assert isinstance(report, OracleReport) and report.passed
    assert report.wrt == (0, 1)
    kinds = {(e.order, e.check) for e in report.entries}
    assert kinds == {(0, "value"), (1, "gradient"), (1, "lowered derived graph"), (2, "hessian"),
                     (2, "lowered derived graph")}
    hessian = next(e for e in report.entries if e.check == "hessian")
    assert hessian.size == 36                     # 6 x 6: both arguments, cross terms included
    assert report.max_abs_err() < 1e-12
    text = str(report)
    assert "passed" in text and "hessian" in text and "max abs err" in text
    assert {row["check"] for row in report.rows()} >= {"gradient", "hessian"}


def test_non_scalar_and_multiple_outputs_are_checked_per_output():
    def two_outputs(x, w):
        h = fnp.tanh(x @ w)
        return h, fnp.sum(h * h)

    rng = np.random.default_rng(1)
    report = check_derivatives(two_outputs, rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), argnums=1)
    assert {e.output for e in report.entries} == {0, 1}
    assert report.wrt == (1,)
    assert all(e.ok for e in report.entries)


def test_pytree_arguments_large_inputs_use_hessian_vector_products():
    def net(params, x):
        return fnp.sum(fnp.tanh(x @ params["w"] + params["b"]) ** 2.0)

    rng = np.random.default_rng(2)
    params = {"w": rng.standard_normal((3, 6)), "b": rng.standard_normal(6)}
    report = check_derivatives(net, params, rng.standard_normal((5, 3)), full_hessian_max=10, num_directions=2)
    second = [e for e in report.entries if e.order == 2 and e.check != "lowered derived graph"]
    assert [e.check for e in second] == ["hvp"] and second[0].size == 2 * 24
    assert report.passed


def test_float32_arguments_are_checked_in_float64():
    x = np.linspace(0.5, 1.5, 4, dtype=np.float32)
    report = check_derivatives(lambda v: fnp.sum(fnp.log(v) * fnp.sqrt(v)), x, rtol=1e-12, atol=1e-14)
    assert report.passed


def test_a_graph_can_be_checked_directly():
    x = np.linspace(-1.0, 1.0, 5)
    graph = frame.trace(lambda v, s: fnp.sum(fnp.sigmoid(v * s)), x, np.array(2.0))
    report = check_derivatives(graph, x, np.array(2.0), argnums=(0, 1))
    assert report.name == graph.name and report.wrt == (0, 1) and report.passed


def test_bad_requests_raise_gradient_errors():
    x = np.ones(3)
    with pytest.raises(GradientError, match="orders must be drawn from"):
        check_derivatives(lambda v: fnp.sum(v), x, orders=(3,))
    with pytest.raises(GradientError, match="only float inputs"):
        check_derivatives(lambda v, n: fnp.sum(v), x, np.arange(3), argnums=1)
    with pytest.raises(GradientError, match="out of range"):
        check_derivatives(lambda v: fnp.sum(v), x, argnums=2)


# -- test-only ops with wrong rules: the oracle must notice ----------------------------------------
@pytest.fixture
def wrong_rules():
    """`sin_bad_grad_test`: sin with a 1% wrong first derivative.
    `sin_bad_hess_test`: sin whose first derivative is right (cos, as `cos_bad_test_internal`) but
    whose second derivative has the wrong sign (the helper's rule returns +sin instead of -sin)."""
    unary = dict(shape=lambda ctx: [ctx.input_types[0]], num_inputs=1)
    register_op("sin_bad_grad_test", kernel=np.sin, traits=(ELEMENTWISE,), jax="jnp.sin", **unary,
                gradient=traced_gradient(lambda ctx, xs, ys, gys: [gys[0] * fnp.cos(xs[0]) * 1.01]))
    register_op("cos_bad_test_internal", kernel=np.cos, traits=(ELEMENTWISE, INTERNAL), jax="jnp.cos", **unary,
                gradient=traced_gradient(lambda ctx, xs, ys, gys: [gys[0] * fnp.sin(xs[0])]))
    register_op("sin_bad_hess_test", kernel=np.sin, traits=(ELEMENTWISE,), jax="jnp.sin", **unary,
                gradient=traced_gradient(lambda ctx, xs, ys, gys: [gys[0] * bind("cos_bad_test_internal", xs[0])]))
    yield
    for name in ("sin_bad_grad_test", "cos_bad_test_internal", "sin_bad_hess_test"):
        unregister_op(name)


def test_wrong_first_derivative_raises_oracle_mismatch_naming_order_1(wrong_rules):
    x = np.linspace(-1.0, 1.0, 4)
    with pytest.raises(OracleMismatch, match=r"order 1 \(gradient\)") as info:
        check_derivatives(lambda v: fnp.sum(bind("sin_bad_grad_test", v)), x)
    assert isinstance(info.value, frame.FrameError)
    assert "worst entries" in str(info.value)


def test_wrong_second_derivative_is_caught_while_first_order_passes(wrong_rules):
    x = np.linspace(-1.0, 1.0, 4)
    report = check_derivatives(lambda v: fnp.sum(bind("sin_bad_hess_test", v) ** 2.0), x, raise_on_mismatch=False)
    by_kind = {(e.order, e.check): e for e in report.entries}
    assert by_kind[0, "value"].ok and by_kind[1, "gradient"].ok
    assert not by_kind[2, "hessian"].ok and not report.passed
    assert report.worst(1)[0].check == "hessian"
    # the worst element is reported with both values
    worst = report.worst(1)[0]
    assert worst.frame_value != pytest.approx(worst.jax_value)
    with pytest.raises(OracleMismatch, match=r"order 2 \(hessian\)"):
        check_derivatives(lambda v: fnp.sum(bind("sin_bad_hess_test", v) ** 2.0), x)
