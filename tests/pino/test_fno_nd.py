"""FNO1d (structure="neuralop"), FNO2d, FNO3d with neuraloperator's layer structure (issue 19 item 2).

neuraloperator is not a dependency. Its structure is checked three ways: parameter counts against the
formula read off its source (neuraloperator 2.0.0: neuralop/models/fno.py, neuralop/layers/fno_block.py,
spectral_convolution.py, channel_mlp.py, skip_connections.py; `count_model_params` in neuralop/utils.py
counts a complex entry twice), against a real neuralop model when one can be built (in this
interpreter, or in the one `NEURALOP_PYTHON` names; skipped otherwise), and the forward map against
a JAX transcription of neuralop's forward (rfftn, fftshift, the centre slice, ifftshift, irfftn: the
ifftshift of neuralop after 2.0.0, which fixed the double fftshift that shifts odd-length axes).

Tolerances: float64 models agree with the JAX reference to ~1e-14 relative (measured <= 3e-15); 1e-11
allows for the different summation orders (GEMM DFTs against FFTs). Gradients: central differences at
RTOL 1e-5 (tests/numerics.py).
"""
import json
import math
import os
import subprocess

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from pino import FNO1d, FNO2d, FNO3d
from pino.models import FNO, SpectralConv
from pino.spectral import kept_frequencies, separable_dft_bases, separable_irfftn, separable_rfftn
from tests.numerics import assert_close_first_order, central_difference

RNG = np.random.default_rng(19)


# -- neuraloperator's parameter count, from its source -----------------------------------------------
def neuralop_parameter_count(n_modes, hidden, in_channels=1, out_channels=1, n_layers=4, lifting_ratio=2,
                             projection_ratio=2, channel_mlp_expansion=0.5, positional_embedding=True,
                             use_channel_mlp=True):
    """`count_model_params(FNO(...))` of neuraloperator 2.0.0 with its defaults (dense weights, linear fno
    skip, soft-gating channel-MLP skip, no norm), written from its source:

    - fno.py: lifting = ChannelMLP(in + n_dim [grid embedding], hidden=int(lifting_ratio * hidden), out=hidden,
      n_layers=2); projection = ChannelMLP(hidden, hidden=int(projection_ratio * hidden), out, n_layers=2);
    - channel_mlp.py: each layer an nn.Conv1d(c_in, c_out, 1) with bias: c_in * c_out + c_out;
    - spectral_convolution.py: weight (in, out, *max_n_modes) complex with the last n_modes halved
      (`n_modes[-1] // 2 + 1`), bias (out, 1, ..., 1); counted twice per complex entry (utils.py);
    - skip_connections.py: 'linear' is Flattened1dConv(bias=False): hidden^2; 'soft-gating' a
      (1, hidden, 1, ...) weight of ones, bias=False: hidden;
    - fno_block.py: ChannelMLP(hidden, hidden=round(hidden * channel_mlp_expansion)), n_layers=2.
    """
    def mlp(*sizes):
        return sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:]))

    kept = math.prod(n_modes[:-1]) * (n_modes[-1] // 2 + 1)
    lifting_in = in_channels + (len(n_modes) if positional_embedding else 0)
    block = 2 * hidden * hidden * kept + hidden + hidden * hidden
    if use_channel_mlp:
        block += mlp(hidden, round(hidden * channel_mlp_expansion), hidden) + hidden
    return (mlp(lifting_in, int(lifting_ratio * hidden), hidden) + n_layers * block
            + mlp(hidden, int(projection_ratio * hidden), out_channels))


# (model constructor, neuralop FNO keyword arguments)
CONFIGS = [
    (lambda: FNO1d(16, width=64, layers=4, structure="neuralop"), dict(n_modes=(16,), hidden_channels=64)),
    (lambda: FNO1d(7, width=12, layers=2, in_channels=2, out_channels=3, structure="neuralop"),
     dict(n_modes=(7,), hidden_channels=12, in_channels=2, out_channels=3, n_layers=2)),
    (lambda: FNO2d(12, width=32, layers=4), dict(n_modes=(12, 12), hidden_channels=32)),
    (lambda: FNO2d((16, 9), width=20, layers=3, in_channels=3, lifting_channel_ratio=1.5),
     dict(n_modes=(16, 9), hidden_channels=20, in_channels=3, n_layers=3, lifting_channel_ratio=1.5)),
    (lambda: FNO2d(8, width=6, layers=1, channel_mlp_expansion=1.0, use_channel_mlp=True),
     dict(n_modes=(8, 8), hidden_channels=6, n_layers=1, channel_mlp_expansion=1.0)),
    (lambda: FNO2d(8, width=8, layers=2, use_channel_mlp=False),
     dict(n_modes=(8, 8), hidden_channels=8, n_layers=2, use_channel_mlp=False)),
    (lambda: FNO3d((8, 8, 6), width=16, layers=4, out_channels=2),
     dict(n_modes=(8, 8, 6), hidden_channels=16, out_channels=2)),
    (lambda: FNO3d(5, width=7, layers=2, projection_channel_ratio=3),
     dict(n_modes=(5, 5, 5), hidden_channels=7, n_layers=2, projection_channel_ratio=3)),
]


def _formula(kw):
    kw = dict(kw)
    return neuralop_parameter_count(kw.pop("n_modes"), kw.pop("hidden_channels"),
                                    in_channels=kw.pop("in_channels", 1), out_channels=kw.pop("out_channels", 1),
                                    n_layers=kw.pop("n_layers", 4), lifting_ratio=kw.pop("lifting_channel_ratio", 2),
                                    projection_ratio=kw.pop("projection_channel_ratio", 2),
                                    channel_mlp_expansion=kw.pop("channel_mlp_expansion", 0.5),
                                    use_channel_mlp=kw.pop("use_channel_mlp", True))


@pytest.mark.parametrize("make, kw", CONFIGS,
                         ids=[str(c[1]["n_modes"]) + f"-w{c[1]['hidden_channels']}" for c in CONFIGS])
def test_parameter_counts_equal_neuraloperators(make, kw):
    model = make()
    params = model.init(seed=0)
    assert sum(a.size for a in frame.tree_leaves(params)) == model.num_parameters() == _formula(kw)


def test_the_benchmark_models_count():
    # FNO(n_modes=(12, 12), hidden_channels=32, in/out 1): the 2-D benchmark's model; by hand:
    # lifting 3*64+64 + 64*32+32 = 2336; per block 2*32*32*12*7 + 32 + 32*32 + (32*16+16 + 16*32+32) + 32
    # = 172032 + 32 + 1024 + 1072 + 32 = 174192; projection 32*64+64 + 64+1 = 2177.
    assert FNO2d(12, width=32, layers=4).num_parameters() == 2336 + 4 * 174192 + 2177


def _neuralop_counts(configs):
    """count_model_params of real neuralop FNOs, in this interpreter or in $NEURALOP_PYTHON; None if neither has it."""
    script = ("import json, sys\nfrom neuralop.models import FNO\nfrom neuralop.utils import count_model_params\n"
              "print(json.dumps([count_model_params(FNO(**{**kw, 'n_modes': tuple(kw['n_modes'])}))"
              " for kw in json.loads(sys.argv[1])]))")
    configs = [{"in_channels": 1, "out_channels": 1, **kw} for kw in configs]
    try:
        from neuralop.models import FNO as NeuralopFNO
        from neuralop.utils import count_model_params
    except ImportError:
        python = os.environ.get("NEURALOP_PYTHON")
        if not python:
            return None
        run = subprocess.run([python, "-c", script, json.dumps(configs)], capture_output=True, text=True, timeout=300)
        if run.returncode:
            pytest.fail(f"$NEURALOP_PYTHON={python} could not count neuralop's parameters:\n{run.stderr[-2000:]}")
        return json.loads(run.stdout.strip().splitlines()[-1])
    return [count_model_params(NeuralopFNO(**kw)) for kw in configs]


def test_parameter_counts_equal_a_real_neuraloperator_model():
    counts = _neuralop_counts([kw for _, kw in CONFIGS])
    if counts is None:
        pytest.skip("neuraloperator is not importable here and NEURALOP_PYTHON is not set")
    assert [make().num_parameters() for make, _ in CONFIGS] == counts


# -- the forward map against a JAX transcription of neuralop's forward ----------------------------------
def _jax_gelu(x):
    return jax.nn.gelu(x, approximate=True)   # frame's gelu is the tanh form


def _jax_mlp(layers, h):
    for i, layer in enumerate(layers):
        h = jnp.einsum("oi,bi...->bo...", layer["w"], h)
        if "b" in layer:
            h = h + layer["b"].reshape((-1,) + (1,) * (h.ndim - 2))
        if i < len(layers) - 1:
            h = _jax_gelu(h)
    return h


def _jax_spectral(p, x, n_modes):
    """neuralop's SpectralConv.forward (dense, real data): rfftn, fftshift, centre slice, contract, ifftshift,
    irfftn."""
    d = len(n_modes)
    dims = tuple(range(-d, 0))
    w = p["weight"][..., 0] + 1j * p["weight"][..., 1]
    sizes = x.shape[2:]
    fft_size = list(sizes)
    fft_size[-1] = fft_size[-1] // 2 + 1
    spectrum = jnp.fft.rfftn(x, axes=dims, norm="forward")
    if d > 1:
        spectrum = jnp.fft.fftshift(spectrum, axes=dims[:-1])
    index = [slice(None), slice(None)]
    for size, kept in zip(fft_size, w.shape[2:]):
        index.append(slice(size // 2 - kept // 2, size // 2 + kept // 2 + kept % 2))
    index[-1] = slice(None, w.shape[-1])
    index = tuple(index)
    out = jnp.zeros((x.shape[0], w.shape[1], *fft_size), spectrum.dtype)
    out = out.at[index].set(jnp.einsum("bi...,io...->bo...", spectrum[index], w))
    if d > 1:
        out = jnp.fft.ifftshift(out, axes=dims[:-1])
    return jnp.fft.irfftn(out, s=sizes, axes=dims, norm="forward") + p["bias"].reshape((-1,) + (1,) * d)


def jax_fno_apply(model: FNO, params, x):
    """neuralop's FNO.forward with the defaults `FNO` implements (grid embedding, one-sided/symmetric padding)."""
    d = model.dims
    sizes = x.shape[2:]
    coords = jnp.meshgrid(*[jnp.arange(n, dtype=x.dtype) / n for n in sizes], indexing="ij")
    h = jnp.concatenate([x] + [jnp.broadcast_to(c, (x.shape[0], 1) + sizes) for c in coords], axis=1)
    h = _jax_mlp(params["lifting"], h)
    pads = model.padding(sizes)
    h = jnp.pad(h, [(0, 0), (0, 0)] + list(pads))
    for i, block in enumerate(params["blocks"]):
        last = i == model.layers - 1
        skip = _jax_mlp([block["skip"]], h)
        gate = h * block["channel_mlp_skip"]["weight"].reshape((-1,) + (1,) * d)
        out = _jax_spectral(block["spectral"], h, model.n_modes) + skip
        if not last:
            out = _jax_gelu(out)
        out = _jax_mlp(block["channel_mlp"], out) + gate
        h = out if last else _jax_gelu(out)
    h = h[(slice(None), slice(None)) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(sizes, pads))]
    return _jax_mlp(params["projection"], h)


def assert_rel_close(got, want, tol, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    err = float(np.abs(got - want).max()) / max(float(np.abs(want).max()), 1e-300)
    assert err <= tol, f"{what}: max relative difference {err:.3g} > {tol:.3g}"


@pytest.mark.parametrize("transform", ["dft", "fft"])
@pytest.mark.parametrize("sizes, n_modes", [((12, 10), (6, 6)), ((7, 9), (5, 4)), ((8, 8), (8, 8)),
                                            ((5, 6, 7), (3, 4, 5)), ((16,), (8,)), ((9,), (5,))])
def test_spectral_conv_matches_neuralops_forward(sizes, n_modes, transform):
    layer = SpectralConv(3, 2, n_modes, transform=transform)
    params = layer.init(seed=1, dtype="float64")
    assert params["weight"].shape == (3, 2) + tuple(n_modes[:-1]) + (n_modes[-1] // 2 + 1, 2)
    x = RNG.standard_normal((2, 3) + sizes)
    got = frame.function(layer.apply)(params, x)
    with jax.enable_x64(True):
        want = jax.jit(lambda p, v: _jax_spectral(p, v, n_modes))(params, x)
    assert_rel_close(got, want, 1e-11, f"SpectralConv{n_modes} on {sizes}")


@pytest.mark.parametrize("transform", ["dft", "fft"])
def test_spectral_conv_apply_is_the_unbiased_map_plus_its_bias(transform):
    # FNO adds the bias itself, with the skip path (apply_unbiased); apply must stay the whole layer
    layer = SpectralConv(3, 2, (4, 5), transform=transform)
    params = layer.init(seed=3, dtype="float64")
    x = RNG.standard_normal((2, 3, 7, 8))
    whole = frame.function(layer.apply)(params, x)
    unbiased = frame.function(layer.apply_unbiased)(params, x)
    np.testing.assert_allclose(whole, unbiased + params["bias"].reshape(-1, 1, 1), rtol=1e-13, atol=1e-13)
    assert np.abs(params["bias"]).min() > 0     # (a zero bias would make the check vacuous)


@pytest.mark.parametrize("make, shape", [
    (lambda: FNO2d((6, 5), width=5, layers=2, in_channels=2, out_channels=3), (2, 2, 9, 8)),
    (lambda: FNO2d(4, width=4, layers=2, domain_padding=0.25), (1, 1, 7, 10)),
    (lambda: FNO2d(4, width=4, layers=3, domain_padding=(0.2, 0.0), padding_mode="symmetric"), (2, 1, 10, 6)),
    (lambda: FNO3d((3, 4, 3), width=3, layers=2), (1, 1, 5, 6, 4)),
    (lambda: FNO1d(6, width=4, layers=2, structure="neuralop", domain_padding=0.5), (2, 1, 12)),
])
def test_fno_apply_matches_the_jax_transcription_of_neuralop(make, shape):
    model = make()
    nd = getattr(model, "_nd", model)
    params = model.init(seed=2, dtype="float64")
    x = RNG.standard_normal(shape)
    got = frame.function(model.apply)(params, x)
    assert got.shape == shape[:1] + (nd.out_channels,) + shape[2:] and got.dtype == np.float64
    with jax.enable_x64(True):   # jitted: eager JAX compiles each op of the reference separately (~9 s)
        want = jax.jit(lambda p, v: jax_fno_apply(nd, p, v))(params, x)
    assert_rel_close(got, want, 1e-11, repr(model))


def test_domain_padding_amounts_are_neuralops():
    model = FNO2d(4, width=4, layers=1, domain_padding=(0.25, 0.1))
    assert model.padding((8, 13)) == ((0, 2), (0, 1))                 # round(p * n) on the right
    symmetric = FNO2d(4, width=4, layers=1, domain_padding=0.25, padding_mode="symmetric")
    assert symmetric.padding((8, 6)) == ((2, 2), (2, 2))              # round(1.5) = 2, as Python rounds
    assert FNO2d(4, width=4, layers=1, domain_padding=0).domain_padding is None
    # a padded grid is the one the spectral convolution sees: 6 points padded to 9 hold the 7 modes
    padded = FNO2d((7, 4), width=3, layers=1, domain_padding=(0.5, 0.0))
    y = frame.function(padded.apply)(padded.init(0, "float64"), RNG.standard_normal((1, 1, 6, 6)))
    assert y.shape == (1, 1, 6, 6)


def test_float32_model_and_the_transforms_agree():
    model = FNO2d(6, width=8, layers=2)
    params = model.init(seed=0)
    assert all(a.dtype == np.float32 for a in frame.tree_leaves(params))
    x = RNG.standard_normal((3, 1, 16, 12)).astype(np.float32)
    y = frame.function(model.apply)(params, x)
    assert y.shape == (3, 1, 16, 12) and y.dtype == np.float32
    fft = FNO2d(6, width=8, layers=2, transform="fft")
    assert model.spectral.uses_dft((16, 12)) and not fft.spectral.uses_dft((16, 12))
    assert_rel_close(frame.function(fft.apply)(params, x), y, 5e-6, "dft vs fft in float32")
    y64 = frame.function(model.apply)(frame.tree_map(lambda a: a.astype(np.float64), params), x.astype(np.float64))
    assert_rel_close(y, y64, 5e-6, "float32 vs float64")


def test_parameter_gradients_match_central_differences():
    model = FNO2d((4, 4), width=3, layers=2, domain_padding=0.2)
    params = model.init(seed=3, dtype="float64")
    x, target = RNG.standard_normal((2, 1, 6, 5)), RNG.standard_normal((2, 1, 6, 5))

    def loss(p):
        return fnp.mean((model.apply(p, x) - target) ** 2)

    grads = frame.grad(loss)(params)
    leaves, treedef = frame.tree_flatten(params)
    grad_leaves = frame.tree_leaves(grads)
    loss_fn = frame.function(loss)
    for index, leaf in enumerate(leaves):
        picked = RNG.choice(leaf.size, size=min(3, leaf.size), replace=False)

        def loss_of_leaf(value, index=index):
            moved = list(leaves)
            moved[index] = value
            return loss_fn(frame.tree_unflatten(treedef, moved))

        assert_close_first_order(grad_leaves[index].reshape(-1)[picked], central_difference(loss_of_leaf, leaf, picked),
                                 f"leaf {index} {leaf.shape}")


def test_input_gradient_matches_jax():
    model = FNO3d((3, 3, 4), width=3, layers=2)
    params = model.init(seed=4, dtype="float64")
    x = RNG.standard_normal((1, 1, 4, 5, 6))
    w = RNG.standard_normal((1, 1, 4, 5, 6))
    got = frame.grad(lambda v: fnp.sum(fnp.tanh(model.apply(params, v)) * w))(x)
    with jax.enable_x64(True):
        want = jax.jit(jax.grad(lambda v: jnp.sum(jnp.tanh(jax_fno_apply(model, params, v)) * w)))(x)
    assert_rel_close(got, want, 1e-10, "d loss / d x")


def test_separable_bases_are_the_dft_at_the_kept_frequencies():
    assert list(kept_frequencies(10, 6)) == [-3, -2, -1, 0, 1, 2] and list(kept_frequencies(9, 5)) == [-2, -1, 0, 1, 2]
    forward, inverse = separable_dft_bases(7, 5, last=False)
    u = RNG.standard_normal(7)
    parts = (forward @ u).reshape(5, 2)                          # rows (k, re/im) of a real column's DFT
    np.testing.assert_allclose(parts @ [1, 1j], np.fft.fft(u)[kept_frequencies(7, 5) % 7], atol=1e-13)
    spectrum = np.zeros(7, complex)
    coefficients = RNG.standard_normal(5) + 1j * RNG.standard_normal(5)
    spectrum[kept_frequencies(7, 5) % 7] = coefficients
    back = inverse @ np.concatenate([coefficients.real, coefficients.imag])   # columns (re/im, k)
    np.testing.assert_allclose(back.reshape(7, 2) @ [1, 1j], np.fft.ifft(spectrum), atol=1e-14)
    forward, inverse = separable_dft_bases(8, 5, last=True)      # the last axis: rfft bins, Nyquist kept
    u = RNG.standard_normal(8)
    np.testing.assert_allclose((u @ forward).reshape(2, 5).T @ [1, 1j], np.fft.rfft(u), atol=1e-13)
    bins = RNG.standard_normal(5) + 1j * RNG.standard_normal(5)
    np.testing.assert_allclose(np.concatenate([bins.real, bins.imag]) @ inverse, np.fft.irfft(bins, 8), atol=1e-14)


def test_separable_rfftn_components_sum_to_the_kept_block():
    x = RNG.standard_normal((2, 6, 7, 8))
    kept = (3, 4, 5)
    parts = np.asarray(separable_rfftn(x, kept)).reshape(2, 3, 2, 4, 2, 2, 5)   # (m1, r1, m2, r2, r3, k3)
    block = sum(1j ** (r1 + r2 + r3) * parts[:, :, r1, :, r2, r3, :] for r1 in (0, 1) for r2 in (0, 1) for r3 in (0, 1))
    full = np.fft.rfftn(x, axes=(1, 2, 3))
    want = full[:, kept_frequencies(6, 3) % 6][:, :, kept_frequencies(7, 4) % 7][..., :5]
    np.testing.assert_allclose(block, want, atol=1e-12)
    spectrum = RNG.standard_normal((2, 2, 3, 4, 5))                # (re/im, m1, m2, k3)
    padded = np.zeros(full.shape, complex)
    padded[np.ix_(range(2), kept_frequencies(6, 3) % 6, kept_frequencies(7, 4) % 7, range(5))] = \
        spectrum[:, 0] + 1j * spectrum[:, 1]
    np.testing.assert_allclose(separable_irfftn(spectrum, (6, 7, 8)),
                               np.fft.irfftn(padded, s=(6, 7, 8), axes=(1, 2, 3)), atol=1e-14)


@pytest.mark.parametrize("make, shape, match", [
    (lambda: FNO2d(4, width=4, layers=1), (2, 1, 8), r"\[batch, 1, 2 grid axes\], got \(2, 1, 8\)"),
    (lambda: FNO2d(4, width=4, layers=1, in_channels=2), (2, 1, 8, 8), r"\[batch, 2, 2 grid axes\]"),
    (lambda: FNO2d(9, width=4, layers=1), (1, 1, 8, 16), r"grid axis 0 of \(8, 16\) has 8 points, fewer than its 9"),
    (lambda: FNO2d(12, width=4, layers=1), (1, 1, 16, 8), r"has 5 rfft bins, fewer than the 7 kept"),
    (lambda: FNO3d(4, width=4, layers=1), (1, 1, 4, 4), r"3 grid axes"),
])
def test_bad_input_shapes_raise_shape_errors(make, shape, match):
    model = make()
    with pytest.raises(frame.ShapeError, match=match):
        model.apply(model.init(0), np.zeros(shape, np.float32))


@pytest.mark.parametrize("make, match", [
    (lambda: FNO2d((4, 4, 4)), r"n_modes needs 2 counts"),
    (lambda: FNO2d(0), r"n_modes must be a positive int"),
    (lambda: FNO2d(4, width=0), r"width must be a positive int"),
    (lambda: FNO2d(4, fno_skip="gated"), r"fno_skip must be one of"),
    (lambda: FNO2d(4, domain_padding=(0.1,)), r"domain_padding must be a fraction >= 0 or 2"),
    (lambda: FNO2d(4, padding_mode="both"), r"padding_mode must be one of"),
    (lambda: FNO2d(4, transform="fast"), r"transform must be one of"),
    (lambda: FNO1d(4, domain_padding=0.1), r"domain_padding configure structure='neuralop' only"),
    (lambda: FNO1d(4, structure="paper"), r"structure must be one of"),
])
def test_bad_hyper_parameters_are_refused(make, match):
    with pytest.raises(ValueError, match=match):
        make()
