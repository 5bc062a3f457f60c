"""pinn.MLP: initialisation, forward pass, activations, input scaling and bad arguments."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from pinn import MLP, ModelError


def test_glorot_init_shapes_and_scale():
    model = MLP([1, 400, 300, 1], seed=3)
    assert [p["W"].shape for p in model.params] == [(1, 400), (400, 300), (300, 1)]
    assert all(np.all(p["b"] == 0) for p in model.params)
    # Glorot-normal: std sqrt(2 / (n_in + n_out)); with 120 000 samples the estimate is within ~0.5%.
    assert model.params[1]["W"].std() == pytest.approx(np.sqrt(2.0 / 700), rel=0.02)
    assert model.num_params == 1 * 400 + 400 + 400 * 300 + 300 + 300 + 1


def test_init_is_seeded():
    a, b, c = MLP([2, 8, 1], seed=1), MLP([2, 8, 1], seed=1), MLP([2, 8, 1], seed=2)
    np.testing.assert_array_equal(a.params[0]["W"], b.params[0]["W"])
    assert not np.array_equal(a.params[0]["W"], c.params[0]["W"])


@pytest.mark.parametrize("activation, fn", [("tanh", np.tanh), ("sin", np.sin),
                                            ("softplus", lambda z: np.logaddexp(0.0, z))])
def test_forward_matches_numpy(activation, fn):
    model = MLP([2, 7, 5, 1], activation=activation, seed=0)
    x = np.random.default_rng(0).uniform(-1, 1, (11, 2))
    h = x
    for i, layer in enumerate(model.params):
        h = h @ layer["W"] + layer["b"]
        if i < 2:
            h = fn(h)
    np.testing.assert_allclose(model(x), h, rtol=1e-13, atol=1e-14)


def test_apply_traces_and_compiles():
    model = MLP([1, 6, 1], seed=0)
    x = np.linspace(-1, 1, 9).reshape(-1, 1)
    compiled = frame.function(model.apply)
    np.testing.assert_allclose(compiled(model.params, x), model(x), rtol=1e-14)


def test_input_bounds_rescale_to_unit_box():
    model = MLP([2, 4, 1], seed=0, input_bounds=((-1.0, 0.0), (1.0, 1.0)))
    plain = MLP([2, 4, 1], seed=0)
    x = np.array([[0.5, 0.25], [-1.0, 1.0]])
    scaled = np.column_stack([x[:, 0], 2 * x[:, 1] - 1])  # t in [0, 1] -> [-1, 1], x unchanged
    np.testing.assert_allclose(model(x), plain(scaled), rtol=1e-14)


def test_float32_model():
    model = MLP([1, 5, 1], dtype="float32")
    assert all(p["W"].dtype == np.float32 for p in model.params)
    assert model(np.zeros((3, 1), np.float32)).dtype == np.float32


@pytest.mark.parametrize("kwargs, match", [
    ({"layer_sizes": [3]}, "layer_sizes"),
    ({"layer_sizes": [1, 0, 1]}, "layer_sizes"),
    ({"layer_sizes": "1,2"}, "layer_sizes"),
    ({"layer_sizes": [1, 4, 1], "activation": "relu6"}, "unknown activation 'relu6'"),
    ({"layer_sizes": [1, 4, 1], "dtype": "int64"}, "dtype"),
    ({"layer_sizes": [2, 4, 1], "input_bounds": ((0, 0), (1, 0))}, "input_bounds"),
])
def test_bad_arguments_raise_model_error(kwargs, match):
    with pytest.raises(ModelError, match=match) as info:
        MLP(**kwargs)
    assert isinstance(info.value, frame.FrameError)


def test_apply_rejects_wrong_input_shape():
    model = MLP([2, 4, 1])
    with pytest.raises(ModelError, match=r"\(N, 2\), got \(5, 3\)"):
        model(np.zeros((5, 3)))


def test_softplus_activation_is_smooth_through_second_derivative():
    # u = softplus(w x) for a 1-1-1 net with identity output: u'' = w^2 sigmoid'(w x), checked analytically.
    model = MLP([1, 1, 1], activation="softplus")
    w = 1.7
    params = [{"W": np.array([[w]]), "b": np.zeros(1)}, {"W": np.array([[1.0]]), "b": np.zeros(1)}]
    x = np.array([[-0.8], [0.0], [0.3], [2.0]])
    u_xx = frame.grad(lambda x: fnp.sum(frame.grad(lambda x: fnp.sum(model.apply(params, x)))(x)))(x)
    s = 1 / (1 + np.exp(-w * x))
    np.testing.assert_allclose(u_xx, w ** 2 * s * (1 - s), rtol=1e-12)


def test_init_takes_a_dtype_as_workbench_model_says():
    import pinn
    from workbench.protocols import Model

    for model in (pinn.MLP([1, 8, 1], seed=0), pinn.FourierFeatureMLP([1, 8, 1], seed=0),
                  pinn.ModifiedMLP([1, 8, 8, 1], seed=0)):
        assert isinstance(model, Model)
        leaves64 = frame.tree_leaves(model.init(3, "float64"))
        leaves = frame.tree_leaves(model.init(3))
        assert {a.dtype for a in leaves64} == {np.dtype("float64")}
        assert {a.dtype for a in leaves} == {np.dtype(model.dtype)}
        for a, b in zip(leaves64, leaves):   # the same draws, only the precision differs
            np.testing.assert_allclose(a, b, rtol=1e-6)
