"""frame.numpy.fft's n-d transforms (fft2, ifft2, rfft2, irfft2, fftn, ifftn, rfftn, irfftn; issue 19 item 1).

Forward values against numpy for float32/float64/complex64/complex128 operands, odd and even lengths,
`s` cropping and padding, `axes` (negative, reordered, repeated: numpy transforms a repeated axis
again), every norm and numpy's irfftn last-axis rule; numpy's errors as ShapeErrors naming the
function; gradients (the 1-D ops' adjoints composed) against central differences and jax.grad to
second order; and jnp.fft's multi-axis transforms imported by from_jax (lax.fft with several
fft_lengths).

Tolerances: float64 results agree with numpy's pocketfft to ~1e-15 relative (frame runs the same
pocketfft 1-D transforms, composed the same way); float32/complex64 ones to float32's precision, so
5e-6 relative to the array's largest entry.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frame
import frame.numpy as fnp
import frame.runtime
from frame.compiler import build_backward_graph
from frame.interop import from_jax
from tests.numerics import assert_close_first_order, central_difference

RNG = np.random.default_rng(19)
TOL = {"float32": 5e-6, "complex64": 5e-6, "float64": 1e-12, "complex128": 1e-12}
NAMES = ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]
# keyword sets of an n-d call (2-d names take only those with two axes or none)
KWARGS = [
    {},
    {"axes": (0, -1)},
    {"axes": (-1, 0)},                                  # reordered: the last listed axis is transformed first
    {"s": (4, 3), "axes": (0, 1)},                      # crop axis 0 (5 -> 4), axis 1 (7 -> 3)
    {"s": (6, 9), "axes": (1, -1)},                     # pad
    {"s": (-1, 5), "axes": (0, 2)},                     # -1: the operand's length
    {"norm": "ortho", "axes": (1, 2)},
    {"norm": "forward", "axes": (1, 1)},                # a repeated axis: numpy transforms it twice
    {"axes": (0,)},
]


def _operand(shape, dtype):
    x = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def assert_rel_close(got, want, tol, what=""):
    """max |got - want| <= tol * max |want|, shapes and dtypes equal."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        f"{what}: {got.shape} {got.dtype} != {want.shape} {want.dtype}"
    err = float(np.abs(got - want).max()) / max(float(np.abs(want).max()), 1e-300)
    assert err <= tol, f"{what}: max relative difference {err:.3g} > {tol:.3g}"


@pytest.mark.parametrize("name, dtype", [(n, d) for n in NAMES
                                         for d in ("float32", "float64", "complex64", "complex128")
                                         if not (n.startswith("rfft") and d.startswith("complex"))])  # real only
def test_forward_matches_numpy(name, dtype):
    x = _operand((5, 7, 6), dtype)          # odd, odd and even lengths
    checked = 0
    for kw in KWARGS:
        if name.endswith("2") and len(kw.get("axes", (0, 0))) != 2:
            continue
        want = getattr(np.fft, name)(x, **kw)
        got = frame.function(lambda a, kw=kw: getattr(fnp.fft, name)(a, **kw))(x)
        assert_rel_close(got, want, TOL[dtype], f"{name}{kw} of {dtype}")
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("name", ["irfftn", "irfft2"])
def test_irfftn_last_axis_length_rule(name):
    """Without s the last axis gives 2*(m-1) points (an odd length needs s); s[-1] crops/pads the bins to s//2+1."""
    spectrum = _operand((4, 5), "complex128")
    for kw in [{}, {"s": (4, 9)}, {"s": (3, 8)}, {"s": (4, 3)}, {"s": (2, 20)}]:
        want = getattr(np.fft, name)(spectrum, **kw, **({} if name.endswith("2") or not kw else {"axes": (0, 1)}))
        got = frame.function(lambda a, kw=kw: getattr(fnp.fft, name)(
            a, **kw, **({} if name.endswith("2") or not kw else {"axes": (0, 1)})))(spectrum)
        assert_rel_close(got, want, 1e-12, f"{name}{kw}")
    assert frame.function(fnp.fft.irfftn)(spectrum).shape == (4, 8)


def test_eager_numpy_operands_and_the_no_axes_case():
    x = _operand((3, 4), "float64")
    assert_rel_close(fnp.fft.rfft2(x), np.fft.rfft2(x), 1e-12, "eager rfft2")
    # numpy's fftn over no axes returns its operand unchanged (not even made complex)
    got = frame.function(lambda a: fnp.fft.fftn(a, axes=()))(x)
    np.testing.assert_array_equal(got, np.fft.fftn(x, axes=()))
    assert got.dtype == np.float64


def test_s_without_axes_warns_as_numpy_2_does():
    x = _operand((3, 4, 5), "complex128")
    with pytest.warns(DeprecationWarning, match="axes.*should not be .None. if .s. is not .None."):
        got = frame.function(lambda a: fnp.fft.fftn(a, s=(2, 6)))(x)
    with pytest.warns(DeprecationWarning):
        want = np.fft.fftn(x, s=(2, 6))
    assert_rel_close(got, want, 1e-12, "fftn s=(2, 6) over the last two axes")


@pytest.mark.parametrize("call, pattern", [
    (lambda: fnp.fft.fftn(np.ones((2, 3)), axes=(2,)), r"fnp.fft.fftn: axis 2 is out of range .*\(2, 3\)"),
    (lambda: fnp.fft.fftn(np.ones((2, 3)), axes=(-3,)), r"axis -3 is out of range"),
    (lambda: fnp.fft.fft2(np.ones(4)), r"fnp.fft.fft2: axis -2 is out of range"),
    (lambda: fnp.fft.fftn(np.ones((2, 3)), s=(2,), axes=(0, 1)), r"shape and axes have different lengths"),
    (lambda: fnp.fft.ifftn(np.ones((2, 3)), s=(0, 3), axes=(0, 1)), r"invalid number of FFT data points \(0\)"),
    (lambda: fnp.fft.irfftn(np.ones((2, 1))), r"irfftn: invalid number of data points \(0\) for the last axis"),
    (lambda: fnp.fft.rfftn(np.ones((2, 3), complex)), r"fnp.fft.rfftn \(its rfft along axis 1\).*needs a real operand"),
    (lambda: fnp.fft.rfft2(np.ones((2, 3), complex)), r"fnp.fft.rfft2 \(its rfft along axis 1\)"),
    (lambda: fnp.fft.rfftn(np.ones((2, 3)), axes=()), r"rfftn needs at least one axis"),
    (lambda: fnp.fft.fftn(np.ones((2, 3)), axes=1), r"axes must be a sequence of ints"),
    (lambda: fnp.fft.fftn(np.ones((2, 3)), axes=(0.5,)), r"axes must be an integer"),
    (lambda: fnp.fft.fftn(np.ones((2, 3)), s=(2.0,), axes=(0,)), r"s must be an integer"),
    (lambda: fnp.fft.fft2(np.ones((2, 3)), norm="bad"), r"invalid norm value 'bad'"),
])
def test_bad_arguments_raise_shape_errors_naming_the_function(call, pattern):
    with pytest.raises(frame.ShapeError, match=pattern):
        call()


def _objective(module, name, x, w, w2, kw):
    """A real objective of a transform: the real part (complex results also the imaginary part squared) weighted."""
    y = getattr(module.fft, name)(module.sin(x), **kw)
    if np.dtype(y.dtype).kind != "c":
        return module.sum(y * w)
    return module.sum(module.real(y) * w) + module.sum(module.imag(y) ** 2 * w2)


# (name, operand shape, operand dtype, kwargs): odd/even lengths, crops and pads, a reordered axis list
GRAD_CASES = [
    ("fft2", (3, 4), "float64", {}),
    ("ifft2", (5, 4), "complex128", {"s": (4, 6)}),
    ("rfft2", (5, 6), "float64", {"norm": "ortho"}),
    ("irfft2", (3, 4), "complex128", {"s": (3, 7)}),
    ("fftn", (2, 3, 4), "complex128", {"axes": (2, 0)}),
    ("ifftn", (2, 3, 5), "float64", {"norm": "forward"}),
    ("rfftn", (3, 2, 5), "float64", {"axes": (0, 2), "s": (4, 4)}),
    ("irfftn", (2, 3, 4), "float64", {}),
]


@pytest.mark.parametrize("name, shape, dtype, kw", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_central_differences_and_jax_to_second_order(name, shape, dtype, kw):
    x = _operand(shape, dtype)
    out_shape = getattr(np.fft, name)(np.sin(x), **kw).shape
    w, w2 = RNG.standard_normal(out_shape), RNG.standard_normal(out_shape)
    grad = frame.grad(lambda v: _objective(fnp, name, v, w, w2, kw))
    got = grad(x)
    with jax.enable_x64(True):
        # jitted: eager JAX would compile every transform of the references separately
        jgrad = jax.grad(lambda v: _objective(jnp, name, v, w, w2, kw))
        np.testing.assert_allclose(got, jax.jit(jgrad)(x), rtol=1e-10, atol=1e-12,
                                   err_msg=f"{name}: first order vs jax")
        # second order: the gradient's gradient (the adjoints' adjoints, gradient closure)
        u = RNG.standard_normal(shape)
        second = frame.grad(lambda v: fnp.sum(fnp.real(grad(v)) * u))(x)
        jsecond = jax.jit(jax.grad(lambda v: jnp.sum(jnp.real(jgrad(v)) * u)))(x)
        np.testing.assert_allclose(second, jsecond, rtol=1e-9, atol=1e-11, err_msg=f"{name}: second order vs jax")
    if dtype == "float64":       # a real operand: also the plain difference quotient
        objective = frame.function(lambda a: _objective(fnp, name, a, w, w2, kw))   # one trace, reused
        numeric = central_difference(objective, x)
        assert_close_first_order(got, numeric, f"{name}: first order vs central differences")


def test_float32_gradient_agrees_with_float64():
    x = _operand((4, 6), "float64")
    w = RNG.standard_normal((4, 4))

    def loss(v):
        return fnp.sum(fnp.real(fnp.fft.rfft2(v)) * w) + fnp.sum(fnp.fft.irfft2(fnp.fft.rfft2(v) * w, s=(4, 6)) ** 2)

    g64, g32 = frame.grad(loss)(x), frame.grad(loss)(x.astype(np.float32))
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, g64, rtol=1e-4, atol=1e-4 * np.abs(g64).max())


@pytest.mark.parametrize("label, fn, arg, axes", [
    ("fft2", jnp.fft.fft2, _operand((3, 4, 6), "complex128"), 2),
    ("rfft2", jnp.fft.rfft2, _operand((3, 4, 6), "float64"), 2),
    ("irfftn", lambda v: jnp.fft.irfftn(v, axes=(1, 2)), _operand((3, 4, 4), "complex128"), 2),
    ("ifftn", jnp.fft.ifftn, _operand((2, 3, 5), "complex128"), 3),
    ("rfftn axes (0, 2)", lambda v: jnp.fft.rfftn(v, axes=(0, 2)), _operand((3, 4, 5), "float64"), 2),
    ("fft2 float32", jnp.fft.fft2, _operand((4, 5), "complex64"), 2),
])
def test_jax_multi_axis_ffts_import(label, fn, arg, axes):
    """lax.fft with several fft_lengths imports as frame's fft op along each axis, with numpy's values."""
    graph = from_jax(fn, arg)
    assert sum(node.op == "fft" for node in graph.nodes) == axes
    with jax.enable_x64(arg.dtype.itemsize >= 8 and arg.dtype != np.complex64):
        want = np.asarray(fn(arg))
    got = frame.runtime.compile(graph)(arg)[0]
    assert_rel_close(got, want, TOL[arg.dtype.name], label)


def test_imported_multi_axis_fft_differentiates_as_jax():
    w = RNG.standard_normal((4, 5))

    def fn(x):
        spectrum = jnp.fft.rfft2(x)
        # (no s: jnp.fft.irfft2 with s pads with a zero from_jax does not see as a constant yet)
        return jnp.sum(jnp.tanh(jnp.fft.irfft2(spectrum * w)) * jnp.cos(x))

    x = RNG.standard_normal((4, 8))
    graph = from_jax(fn, x)
    with jax.enable_x64(True):
        value, want = np.asarray(fn(x)), np.asarray(jax.grad(fn)(x))
    got = frame.runtime.compile(build_backward_graph(graph, 0, [0]))(x)
    np.testing.assert_allclose(got[0], value, rtol=1e-12)
    np.testing.assert_allclose(got[1], want, rtol=1e-10, atol=1e-12)
