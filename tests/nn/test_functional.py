"""frame.nn's torch.nn.functional activations and small layers: values against their formulas (numpy,
scipy) and, when torch is installed, against torch itself and its autograd; derivatives against JAX to
order 2."""
import numpy as np
import pytest
import scipy.special as sp

import frame
import frame.nn as nn
from frame.errors import ShapeError

_SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)

# name -> (frame call, reference formula, torch call)
ACTIVATIONS = {
    "relu": (nn.relu, lambda x: np.maximum(x, 0), lambda F, t: F.relu(t)),
    "relu6": (nn.relu6, lambda x: np.clip(x, 0, 6), lambda F, t: F.relu6(t)),
    "leaky_relu": (lambda x: nn.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x),
                   lambda F, t: F.leaky_relu(t, 0.2)),
    "elu": (lambda x: nn.elu(x, 1.5), lambda x: np.where(x > 0, x, 1.5 * np.expm1(x)), lambda F, t: F.elu(t, 1.5)),
    "selu": (nn.selu, lambda x: _SELU[1] * np.where(x > 0, x, _SELU[0] * np.expm1(x)), lambda F, t: F.selu(t)),
    "celu": (lambda x: nn.celu(x, 0.5), lambda x: np.maximum(0, x) + np.minimum(0, 0.5 * np.expm1(x / 0.5)),
             lambda F, t: F.celu(t, 0.5)),
    "gelu": (nn.gelu, lambda x: 0.5 * x * (1 + sp.erf(x / np.sqrt(2))), lambda F, t: F.gelu(t)),
    "gelu-tanh": (lambda x: nn.gelu(x, approximate="tanh"),
                  lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
                  lambda F, t: F.gelu(t, approximate="tanh")),
    "silu": (nn.silu, lambda x: x * sp.expit(x), lambda F, t: F.silu(t)),
    "mish": (nn.mish, lambda x: x * np.tanh(np.logaddexp(0, x)), lambda F, t: F.mish(t)),
    "softplus": (nn.softplus, lambda x: np.logaddexp(0, x), lambda F, t: F.softplus(t)),
    "softplus-beta": (lambda x: nn.softplus(x, beta=2.0, threshold=3.0),
                      lambda x: np.where(2 * x > 3, x, np.logaddexp(0, 2 * x) / 2),
                      lambda F, t: F.softplus(t, beta=2.0, threshold=3.0)),
    "hardtanh": (lambda x: nn.hardtanh(x, -2.0, 0.5), lambda x: np.clip(x, -2, 0.5),
                 lambda F, t: F.hardtanh(t, -2.0, 0.5)),
    "logsigmoid": (nn.logsigmoid, lambda x: -np.logaddexp(0, -x), lambda F, t: F.logsigmoid(t)),
    "softmax": (lambda x: nn.softmax(x, dim=0), lambda x: sp.softmax(x, axis=0), lambda F, t: F.softmax(t, dim=0)),
    "log_softmax": (lambda x: nn.log_softmax(x, dim=-1), lambda x: sp.log_softmax(x, axis=-1),
                    lambda F, t: F.log_softmax(t, dim=-1)),
    "glu": (nn.glu, lambda x: x[:, :2] * sp.expit(x[:, 2:]), lambda F, t: F.glu(t)),
    "normalize": (nn.normalize, lambda x: x / np.linalg.norm(x, axis=1, keepdims=True), lambda F, t: F.normalize(t)),
    "softsign": (nn.softsign, lambda x: x / (1 + abs(x)), lambda F, t: F.softsign(t)),
    "softmin": (lambda x: nn.softmin(x, dim=1), lambda x: sp.softmax(-x, axis=1), lambda F, t: F.softmin(t, dim=1)),
    "tanhshrink": (nn.tanhshrink, lambda x: x - np.tanh(x), lambda F, t: F.tanhshrink(t)),
    "hardshrink": (nn.hardshrink, lambda x: np.where(abs(x) > 0.5, x, 0), lambda F, t: F.hardshrink(t)),
    "hardshrink-lambd": (lambda x: nn.hardshrink(x, 1.2), lambda x: np.where(abs(x) > 1.2, x, 0),
                         lambda F, t: F.hardshrink(t, 1.2)),
    "softshrink": (nn.softshrink, lambda x: np.sign(x) * np.maximum(abs(x) - 0.5, 0), lambda F, t: F.softshrink(t)),
    "threshold": (lambda x: nn.threshold(x, 0.3, -2.0), lambda x: np.where(x > 0.3, x, -2.0),
                  lambda F, t: F.threshold(t, 0.3, -2.0)),
    "hardsigmoid": (nn.hardsigmoid, lambda x: np.clip(x / 6 + 0.5, 0, 1), lambda F, t: F.hardsigmoid(t)),
    "hardswish": (nn.hardswish, lambda x: x * np.clip(x / 6 + 0.5, 0, 1), lambda F, t: F.hardswish(t)),
    "prelu": (lambda x: nn.prelu(x, np.array([0.1, 0.2, 0.3, 0.4], x.dtype)),
              lambda x: np.where(x > 0, x, np.array([0.1, 0.2, 0.3, 0.4]) * x),
              lambda F, t: F.prelu(t, torch_tensor([0.1, 0.2, 0.3, 0.4]))),
}


def torch_tensor(values):
    import torch
    return torch.tensor(values, dtype=torch.float64)


def _points(seed=0):
    # |x| >= 0.05 and away from the hardtanh/relu6/softplus-threshold corners: the derivative checks stay off kinks
    x = np.random.default_rng(seed).uniform(0.05, 4.0, (3, 4)) * np.random.default_rng(seed + 1).choice([-1, 1], (3, 4))
    return np.where(np.isin(np.round(x, 1), [0.5, -0.5, 0.3, 1.2, -1.2, 1.5, -2.0, 3.0, -3.0, 6.0]), x + 0.13, x)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_values_match_the_formula_eagerly_and_compiled(name):
    ours, reference, _ = ACTIVATIONS[name]
    x = _points()
    np.testing.assert_allclose(ours(x), reference(x), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(frame.function(ours)(x), reference(x), rtol=1e-13, atol=1e-15)
    assert np.asarray(ours(x.astype(np.float32))).dtype == np.float32


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_values_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, _, theirs = ACTIVATIONS[name]
    x = _points()
    np.testing.assert_allclose(ours(x), theirs(torch.nn.functional, torch.from_numpy(x)).numpy(), rtol=1e-12, atol=1e-14)


# torch's hardsigmoid backward multiplies by 1/6 rounded to float32, also in float64.
TORCH_GRAD_RTOL = {"hardsigmoid": 1e-7}


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_gradients_match_torch_autograd(name):
    torch = pytest.importorskip("torch")
    ours, _, theirs = ACTIVATIONS[name]
    x = _points(4)
    t = torch.from_numpy(x).requires_grad_(True)
    y = theirs(torch.nn.functional, t)
    w = np.random.default_rng(5).normal(size=tuple(y.shape))
    (y * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(frame.grad(lambda x: frame.numpy.sum(ours(x) * w))(x), t.grad.numpy(),
                               rtol=TORCH_GRAD_RTOL.get(name, 1e-12), atol=1e-14)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_derivatives_match_jax(name):
    pytest.importorskip("jax")
    from frame.interop import check_derivatives
    check_derivatives(ACTIVATIONS[name][0], _points(2), orders=(1, 2))


def test_layers_match_their_definitions_and_torch():
    rng = np.random.default_rng(3)
    x, w, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(5, 4)), rng.normal(size=5)
    np.testing.assert_allclose(nn.linear(x, w, b), x @ w.T + b, rtol=1e-14)
    gamma, beta = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    mean, var = x.mean(axis=(1, 2), keepdims=True), x.var(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(nn.layer_norm(x, (3, 4), gamma, beta), (x - mean) / np.sqrt(var + 1e-5) * gamma + beta,
                               rtol=1e-12)
    assert nn.one_hot(np.array([[0, 2], [1, 1]])).tolist() == [[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [0, 1, 0]]]
    traced = frame.function(lambda i: nn.one_hot(i, 4))(np.array([3, 0]))
    assert traced.dtype == np.int64 and traced.tolist() == [[0, 0, 0, 1], [1, 0, 0, 0]]
    try:
        import torch
    except ImportError:
        return
    F = torch.nn.functional
    np.testing.assert_allclose(nn.linear(x, w, b), F.linear(*map(torch.from_numpy, (x, w, b))).numpy(), rtol=1e-12)
    np.testing.assert_allclose(nn.layer_norm(x, (3, 4), gamma, beta),
                               F.layer_norm(torch.from_numpy(x), (3, 4), *map(torch.from_numpy, (gamma, beta))).numpy(),
                               rtol=1e-10)
    np.testing.assert_array_equal(nn.one_hot(np.array([2, 0]), 3), F.one_hot(torch.tensor([2, 0]), 3).numpy())


@pytest.mark.parametrize("call, pattern", [
    (lambda: nn.gelu(np.ones(2), approximate="erf"), "approximate must be 'none' or 'tanh'"),
    (lambda: nn.glu(np.ones((2, 3))), r"glu: dimension -1 of shape \(2, 3\) must have an even size"),
    (lambda: nn.one_hot(np.array([0.5])), "class indices must be integers"),
    (lambda: nn.one_hot(np.array([3]), 2), r"class values must be in \[0, 2\)"),
    (lambda: frame.function(lambda i: nn.one_hot(i))(np.array([1])), "give it for traced indices"),
    (lambda: nn.linear(np.ones((2, 3)), np.ones((4, 2))), r"weight must be \(out_features, 3\)"),
    (lambda: nn.layer_norm(np.ones((2, 3)), (2,)), r"normalized_shape \(2,\) must end the input's shape"),
    (lambda: nn.hardtanh(np.ones(2), 1.0, -1.0), "must not exceed"),
    (lambda: nn.softshrink(np.ones(2), -0.5), "lambd must be >= 0"),
    (lambda: nn.prelu(np.ones((2, 3)), np.ones(2)), r"weight must be a scalar or 1-D with 1 or 3"),
])
def test_bad_arguments_are_refused_by_name(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()
