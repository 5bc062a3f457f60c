"""grad, value_and_grad, vjp, hessian, stop_gradient: pytrees, nesting to any depth, memoisation."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import GradientError
from frame.frontend import transforms
from tests.numerics import assert_close_first_order, central_difference


def test_grad_nested_equals_analytic_second_and_third_derivative():
    f = lambda x: fnp.sin(x) * x ** 3  # noqa: E731
    x = np.array(0.8)
    d2 = frame.grad(frame.grad(f))(x)
    d3 = frame.grad(frame.grad(frame.grad(f)))(x)
    s, c = np.sin(0.8), np.cos(0.8)
    np.testing.assert_allclose(d2, -s * 0.8 ** 3 + 6 * c * 0.8 ** 2 + 6 * s * 0.8, rtol=1e-12)
    np.testing.assert_allclose(d3, -c * 0.512 - 9 * s * 0.64 + 18 * c * 0.8 + 6 * s, rtol=1e-12)


def test_grad_with_pytrees_argnums_and_aux():
    def loss(params, x):
        pred = fnp.tanh(x @ params["w"] + params["b"])
        return fnp.mean(pred ** 2), {"pred": pred}

    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=(2,))}
    x = rng.normal(size=(5, 3))
    (value, aux), grads = frame.value_and_grad(loss, has_aux=True)(params, x)
    assert set(grads) == {"w", "b"} and aux["pred"].shape == (5, 2)
    assert_close_first_order(grads["w"], central_difference(lambda w: loss({"w": w, "b": params["b"]}, x)[0], params["w"]))
    gw, gx = frame.grad(lambda p, x: loss(p, x)[0], argnums=(0, 1))(params, x)
    assert_close_first_order(gx, central_difference(lambda x_: loss(params, x_)[0], x))
    np.testing.assert_allclose(gw["b"], grads["b"])


def test_grad_of_a_function_that_calls_grad_inside_for_mlp_parameters():
    """The PINN pattern: a loss on u_xx (grad of grad w.r.t. x) differentiated w.r.t. the MLP weights."""
    rng = np.random.default_rng(1)
    params = [rng.normal(size=(1, 6)), rng.normal(size=(6,)), rng.normal(size=(6, 1))]
    x = np.linspace(-1, 1, 7).reshape(7, 1)

    def u(p, x):
        return fnp.tanh(x @ p[0] + p[1]) @ p[2]

    def loss(p):
        u_x = lambda x: frame.grad(lambda x: fnp.sum(u(p, x)))(x)  # noqa: E731
        u_xx = frame.grad(lambda x: fnp.sum(u_x(x)))(x)
        return fnp.mean((u_xx + fnp.sin(x)) ** 2)

    grads = frame.grad(loss)(params)
    for i in range(3):
        def li(pi, i=i):
            q = list(params)
            q[i] = pi
            return loss(q)
        assert_close_first_order(grads[i], central_difference(li, params[i]), f"param {i}")


def test_grad_errors():
    with pytest.raises(GradientError, match=r"\(3,\)"):
        frame.grad(lambda x: x * 2.0)(np.ones(3))
    with pytest.raises(GradientError, match="argnums"):
        frame.grad(lambda x: fnp.sum(x), argnums=2)(np.ones(3))
    with pytest.raises(GradientError, match="pair"):
        frame.grad(lambda x: fnp.sum(x), has_aux=True)(np.ones(3))


def test_vjp_matches_transpose_jacobian_product():
    a = np.random.default_rng(2).normal(size=(3, 4))
    f = lambda x, y: (fnp.tanh(x @ y), fnp.sum(x))  # noqa: E731
    x, y = np.random.default_rng(3).normal(size=(2, 3)), a
    out, vjp_fn = frame.vjp(f, x, y)
    np.testing.assert_allclose(out[0], np.tanh(x @ y))
    ct = (np.random.default_rng(4).normal(size=(2, 4)), np.array(0.5))
    gx, gy = vjp_fn(ct)
    scal = lambda x_, y_: np.sum(np.tanh(x_ @ y_) * ct[0]) + 0.5 * np.sum(x_)  # noqa: E731
    assert_close_first_order(gx, central_difference(lambda x_: scal(x_, y), x))
    assert_close_first_order(gy, central_difference(lambda y_: scal(x, y_), y))
    with pytest.raises(GradientError, match="structure"):
        vjp_fn([ct[0]])


def test_hessian_of_a_coupled_function_equals_central_difference_hessian():
    f = lambda v: fnp.sum(fnp.sin(v[0:2] * v[1:3])) + fnp.sum(v ** 3) * v[0]  # noqa: E731
    x = np.array([0.3, -0.7, 1.1])
    h = frame.hessian(f)(x)
    assert h.shape == (3, 3)
    g = frame.grad(f)
    numeric = np.stack([central_difference(lambda x_, i=i: g(x_)[i], x) for i in range(3)])
    assert_close_first_order(h, numeric)
    np.testing.assert_allclose(h, h.T, rtol=1e-12)


def test_hessian_of_a_pointwise_function_has_the_pointwise_second_derivative_on_its_diagonal():
    x = np.array([[0.1, -0.4], [0.9, 1.3]])
    h = frame.hessian(lambda x: fnp.sum(fnp.tanh(x)))(x)
    assert h.shape == (2, 2, 2, 2)
    t = np.tanh(x)
    np.testing.assert_allclose(np.einsum("ijij->ij", h), -2 * t * (1 - t ** 2), rtol=1e-12)
    off = h.reshape(4, 4) - np.diag(np.diag(h.reshape(4, 4)))
    assert np.all(off == 0)


def test_hessian_of_a_pytree_argument_gives_blocks():
    f = lambda p: fnp.sum(p["a"] ** 2 * p["b"][0])  # noqa: E731
    p = {"a": np.array([1.0, 2.0]), "b": np.array([3.0])}
    h = frame.hessian(f)(p)
    np.testing.assert_allclose(h["a"]["a"], 6.0 * np.eye(2))
    np.testing.assert_allclose(h["a"]["b"], np.array([[2.0], [4.0]]))
    np.testing.assert_allclose(h["b"]["b"], np.zeros((1, 1)))


def test_stop_gradient_blocks_flow_through_pytrees():
    f = lambda x: fnp.sum(x * frame.stop_gradient({"v": x})["v"])  # noqa: E731
    np.testing.assert_allclose(frame.grad(f)(np.array([1.0, 2.0])), [1.0, 2.0])


def test_transforms_inside_function_compile_once():
    @frame.function
    def step(x):
        return frame.grad(lambda x: fnp.sum(fnp.sin(x) ** 2))(x)

    x = np.linspace(0, 1, 4)
    np.testing.assert_allclose(step(x), 2 * np.sin(x) * np.cos(x), rtol=1e-12)
    step(x + 1.0)
    assert step.trace_count == 1


def test_derived_graphs_are_memoised():
    f = lambda x: fnp.sum(fnp.exp(x) * x)  # noqa: E731
    frame.grad(f)(np.ones(5))
    before = transforms.derived_cache_size()
    for _ in range(3):
        frame.grad(f)(np.ones(5))
    assert transforms.derived_cache_size() == before
