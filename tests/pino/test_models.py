"""SpectralConv1d and FNO1d: numpy references, band limits, parameter pytrees, gradients, bad input."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.interop import check_derivatives
from pino import FNO1d, SpectralConv1d
from tests.numerics import assert_close_first_order, central_difference


def _complex_reference(weight, x, modes):
    """The spectral convolution written with numpy complex arithmetic."""
    w = weight[..., 0] + 1j * weight[..., 1]                 # [in, out, modes]
    spec = np.fft.rfft(x, axis=-1)
    out = np.zeros(x.shape[:1] + (w.shape[1], spec.shape[-1]), complex)
    out[..., :modes] = np.einsum("bik,iok->bok", spec[..., :modes], w)
    return np.fft.irfft(out, n=x.shape[-1], axis=-1)


@pytest.mark.parametrize("transform", ["dft", "fft"])
@pytest.mark.parametrize("n, modes", [(12, 5), (13, 7), (8, 5)])
def test_spectral_conv_matches_complex_numpy_reference(n, modes, transform):
    layer = SpectralConv1d(3, 2, modes, transform=transform)
    params = layer.init(seed=1, dtype="float64")
    assert params["weight"].shape == (3, 2, modes, 2)
    x = np.random.default_rng(0).standard_normal((4, 3, n))
    got = frame.function(layer.apply)(params, x)
    np.testing.assert_allclose(got, _complex_reference(params["weight"], x, modes), atol=1e-12)


def test_spectral_conv_output_is_band_limited_to_the_kept_modes():
    layer = SpectralConv1d(2, 2, 4)
    x = np.random.default_rng(0).standard_normal((3, 2, 32))
    out = layer.apply(layer.init(0, "float64"), x)
    spectrum = np.abs(np.fft.rfft(out, axis=-1))
    assert spectrum[..., 4:].max() < 1e-12 and spectrum[..., :4].max() > 1e-3


@pytest.mark.parametrize("transform", ["dft", "fft"])
def test_spectral_conv_weight_gradient_matches_jax_to_second_order(transform):
    layer = SpectralConv1d(2, 2, 3, transform=transform)
    rng = np.random.default_rng(2)
    params, x = layer.init(rng, "float64"), rng.standard_normal((2, 2, 8))

    def loss(p):
        return fnp.sum(fnp.tanh(layer.apply(p, x)))

    report = check_derivatives(loss, params, orders=(1, 2), full_hessian_max=24, rtol=1e-7, atol=1e-10)
    assert report.passed


def test_fno_shapes_parameter_count_and_float32():
    model = FNO1d(modes=4, width=8, layers=3, in_channels=2, out_channels=3, projection=16)
    params = model.init(seed=0)
    leaves = frame.tree_leaves(params)
    assert all(a.dtype == np.float32 for a in leaves)
    assert sum(a.size for a in leaves) == model.num_parameters()
    assert params["fourier"][0]["spectral"]["weight"].shape == (8, 8, 4, 2)
    assert params["lift"]["w"].shape == (8, 3)       # the grid coordinate is one extra input channel
    x = np.random.default_rng(0).standard_normal((5, 2, 16)).astype(np.float32)
    y = frame.function(model.apply)(params, x)
    assert y.shape == (5, 3, 16) and y.dtype == np.float32
    np.testing.assert_allclose(y, model.apply(params, x), rtol=1e-4, atol=1e-5)


def test_fno_depends_on_position_through_the_grid_channel():
    model = FNO1d(modes=4, width=8, layers=1, projection=8)
    params = model.init(seed=3, dtype="float64")
    y = model.apply(params, np.zeros((1, 1, 16)))
    assert np.ptp(y) > 1e-6   # a constant input gives a non-constant output only via the coordinate


def test_fno_parameter_gradient_matches_central_differences():
    model = FNO1d(modes=3, width=4, layers=2, projection=6)
    rng = np.random.default_rng(0)
    params = model.init(rng, "float64")
    x, target = rng.standard_normal((2, 1, 8)), rng.standard_normal((2, 1, 8))

    def loss(p):
        return fnp.mean((model.apply(p, x) - target) ** 2)

    grads = frame.grad(loss)(params)
    leaves, treedef = frame.tree_flatten(params)
    grad_leaves = frame.tree_leaves(grads)
    for leaf_index in range(len(leaves)):
        picked = rng.choice(leaves[leaf_index].size, size=min(3, leaves[leaf_index].size), replace=False)

        def loss_of_leaf(leaf, leaf_index=leaf_index):
            moved = list(leaves)
            moved[leaf_index] = leaf
            return loss(frame.tree_unflatten(treedef, moved))

        numeric = central_difference(loss_of_leaf, leaves[leaf_index], picked)
        assert_close_first_order(grad_leaves[leaf_index].reshape(-1)[picked], numeric)


@pytest.mark.parametrize("make, shape, match", [
    (lambda: SpectralConv1d(2, 2, 4), (3, 3, 16), r"\[batch, 2, n\].*\(3, 3, 16\)"),
    (lambda: SpectralConv1d(2, 2, 9), (3, 2, 8), r"n=8 has 5 Fourier bins"),
    (lambda: FNO1d(modes=4, width=4), (3, 16), r"\[batch, 1, n\]"),
])
def test_bad_input_shapes_raise_shape_errors(make, shape, match):
    model = make()
    with pytest.raises(frame.ShapeError, match=match):
        model.apply(model.init(0), np.zeros(shape, np.float32))


def test_bad_hyper_parameters_are_refused():
    with pytest.raises(ValueError, match="modes"):
        SpectralConv1d(2, 2, 0)
    with pytest.raises(ValueError, match="width"):
        FNO1d(width=2.5)


def test_gelu_gradient_keeps_only_x_and_tanh_for_the_backward():
    """The FNO's activation is fnp.gelu; its rule (frame/ops/nn.py) spells x*x and 0.5 + 0.5 t unlike the
    forward, so after CSE and fusion the forward kernel exports two activation-sized arrays for the
    backward (the loss term and tanh's t), not four (x**2 and 1 + t as well: the FNO2d step is memory-bound)."""
    from frame.runtime import row_parallel
    from frame.runtime.compile import compile as compile_graph
    from pino.models import gelu

    assert gelu is fnp.gelu
    x = np.linspace(-3.0, 3.0, 64 * 32, dtype=np.float32).reshape(64, 32)
    w = np.cos(x)
    graph = frame.trace(lambda v: frame.value_and_grad(lambda u: fnp.sum(gelu(u) * w))(v), x)
    exe = compile_graph(graph, rows=row_parallel.RowPolicy(1, 0))
    exported = [len(n.outputs) for n in exe.graph.nodes if n.op == "fused_elementwise_internal"]
    assert sum(exported) == 3, exported   # forward: 2 outputs, backward: 1
    loss, grad = exe(x)
    t = np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))
    want = (0.5 * (1 + t) + 0.5 * np.sqrt(2 / np.pi) * x * (1 - t * t) * (1 + 3 * 0.044715 * x * x)) * w
    np.testing.assert_allclose(grad, want, rtol=2e-5, atol=1e-6)
