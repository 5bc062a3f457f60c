"""frame.nn.heaviside_surrogate: the unit step forward, the surrogate derivative alpha s (1 - s) with
s = sigmoid(alpha x) (ARCH-066's one narrow exception). The derivatives are checked both against that
closed form and against central differences of the smooth surrogate sigmoid(alpha x) itself, to the
third order (higher derivatives keep transforming the surrogate's micro-graph), in forward mode and
under vmap, and against JAX's custom-JVP lowering."""
import jax
import numpy as np
import pytest

import frame
import frame.nn as nn
import frame.numpy as fnp
from frame import ShapeError
from frame.interop import check_derivatives
from tests.numerics import assert_close_first_order, central_difference

ALPHA = 4.0


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def surrogate_derivatives(x, alpha):
    """d^k/dx^k sigmoid(alpha x) for k = 1, 2, 3 (closed forms)."""
    s = sigmoid(alpha * x)
    d1 = s * (1 - s)
    return alpha * d1, alpha ** 2 * d1 * (1 - 2 * s), alpha ** 3 * d1 * (1 - 6 * s + 6 * s * s)


def test_the_forward_is_the_unit_step():
    x = np.array([-2.0, -1e-300, 0.0, -0.0, 1e-300, 3.0, np.nan, np.inf, -np.inf])
    np.testing.assert_array_equal(nn.heaviside_surrogate(x), [0, 0, 1, 1, 1, 1, 0, 1, 0])
    assert nn.heaviside_surrogate(x.astype("float32")).dtype == np.float32
    np.testing.assert_array_equal(frame.function(nn.heaviside_surrogate)(x), nn.heaviside_surrogate(x))


@pytest.mark.parametrize("alpha", [ALPHA, 1.0, 25.0])
def test_derivatives_are_the_closed_form_surrogate_to_third_order(alpha):
    x = np.random.default_rng(0).uniform(-1.5, 1.5, 12)

    def f(x):
        return fnp.sum(nn.heaviside_surrogate(x, alpha))

    d1 = frame.grad(f)(x)
    d2 = frame.grad(lambda x: fnp.sum(frame.grad(f)(x)))(x)
    d3 = frame.grad(lambda x: fnp.sum(frame.grad(lambda x: fnp.sum(frame.grad(f)(x)))(x)))(x)
    for got, want in zip((d1, d2, d3), surrogate_derivatives(x, alpha)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * alpha ** 3)


def test_derivatives_match_central_differences_of_the_smooth_surrogate():
    """ARCH-066's exception: first order against central differences of sigmoid(alpha x) (the step's own
    central differences are zero away from 0), second order against central differences of frame's
    first derivative."""
    rng = np.random.default_rng(1)
    x = rng.uniform(-1.0, 1.0, (3, 4))
    w = rng.uniform(0.5, 1.5, x.shape)

    def smooth(x):
        return float(np.sum(sigmoid(ALPHA * x) * w))

    def first(x):
        return frame.grad(lambda x: fnp.sum(nn.heaviside_surrogate(x, ALPHA) * w))(x)

    assert_close_first_order(first(x), central_difference(smooth, x), "d/dx vs sigmoid(alpha x)")
    v = rng.uniform(-1, 1, x.shape)
    second = frame.grad(lambda x: fnp.sum(frame.grad(lambda x: fnp.sum(nn.heaviside_surrogate(x, ALPHA) * w))(x)
                                          * v))(x)
    assert_close_first_order(second, central_difference(lambda x: float(np.sum(first(x) * v)), x), "d2/dx2")
    # and the step's own central differences are not the surrogate (the exception is real)
    step_cd = central_difference(lambda x: float(np.sum(nn.heaviside_surrogate(x, ALPHA) * w)), x)
    assert np.all(step_cd == 0) and np.all(first(x) > 0)


def test_forward_mode_vmap_and_jax_oracle():
    rng = np.random.default_rng(2)
    x, t = rng.uniform(-1, 1, (2, 5)), rng.standard_normal((2, 5))
    _, tangent = frame.jvp(lambda x: nn.heaviside_surrogate(x, ALPHA), (x,), (t,))
    np.testing.assert_allclose(tangent, surrogate_derivatives(x, ALPHA)[0] * t, rtol=1e-12)
    g = frame.vmap(frame.grad(lambda r: fnp.sum(nn.heaviside_surrogate(r, ALPHA) ** 2)))(x)
    np.testing.assert_allclose(g, 2 * (x >= 0) * surrogate_derivatives(x, ALPHA)[0], rtol=1e-12)
    # JAX's derivatives of the lowering (a custom JVP with the same surrogate), first and second order
    report = check_derivatives(lambda x: fnp.sum(nn.heaviside_surrogate(fnp.tanh(x), ALPHA) * x), x, orders=(1, 2))
    assert {e.order for e in report.entries} >= {1, 2}
    with jax.enable_x64(True):
        lowered = frame.interop.to_jax(frame.trace(lambda x: nn.heaviside_surrogate(x, ALPHA), x))
        jd2 = jax.grad(lambda x: jax.grad(lambda x: lowered(x)[0].sum())(x).sum())(x)
    np.testing.assert_allclose(np.asarray(jd2), surrogate_derivatives(x, ALPHA)[1], rtol=1e-12, atol=1e-12)


def test_bad_alpha_and_operands_are_refused_by_name():
    with pytest.raises(ShapeError, match=r"alpha must be a finite number > 0, got -1.0"):
        nn.heaviside_surrogate(np.ones(3), -1)
    with pytest.raises(ShapeError, match=r"alpha must be a number"):
        nn.heaviside_surrogate(np.ones(3), "steep")
    with pytest.raises(ShapeError, match=r"'heaviside_surrogate' needs a float operand"):
        nn.heaviside_surrogate(np.ones(3, "int64"))
