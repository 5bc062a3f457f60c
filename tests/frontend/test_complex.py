"""Complex values: the complex family and the complex FFTs against numpy and JAX, by JAX's gradient convention.

The shared per-op harness differences and compares real numbers only, so the cases it cannot take
(complex operands or results: `COMPLEX_CASES` and the wrt=() complex cases of tests/ops/cases_complex.py
and cases_fft.py) are checked here: kernels against numpy, traced against eager, and every gradient
rule (its micro-graph, run directly) against `jax.vjp` with complex cotangents.

End to end, `frame.grad` of real objectives through complex spectra is checked against jax.grad to
second order.
"""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.ir import TensorType
from frame.ir.registry import NodeContext, get, run_graph
from frame.tracing import bind
import tests.ops.cases  # noqa: F401  (collects the case modules; importing one first would be circular)
from tests.ops import cases_complex, cases_fft

jax = pytest.importorskip("jax")
jnp = jax.numpy

JAX_FUNCTIONS = {"real": jnp.real, "imag": jnp.imag, "conj": jnp.conj, "angle": jnp.angle,
                 "complex": lambda re, im: jax.lax.complex(*jnp.broadcast_arrays(re, im)),
                 "fft": lambda x, kind, n=None: getattr(jnp.fft, kind)(x, n=n if kind == "irfft" else None)}
COMPLEX_CASES = [c for c in cases_complex.CASES + cases_fft.CASES + cases_complex.COMPLEX_CASES + cases_fft.COMPLEX_CASES
                 if c.op in JAX_FUNCTIONS]


def _cotangent(rng, like):
    like = np.asarray(like)
    g = rng.standard_normal(like.shape)
    return (g + 1j * rng.standard_normal(like.shape)).astype(like.dtype) if like.dtype.kind == "c" else g.astype(like.dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", cases_complex.COMPLEX_CASES + cases_fft.COMPLEX_CASES, ids=lambda c: c.id)
def test_complex_results_match_numpy_eagerly_and_compiled(case, dtype):
    xs = case.make_inputs(np.random.default_rng(0), dtype)
    want = np.asarray(case.reference(*xs, **case.attrs))
    eager = bind(case.op, *xs, **case.attrs)
    assert (eager.shape, eager.dtype) == (want.shape, want.dtype)
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(eager, want, rtol=tol, atol=tol)
    compiled = frame.function(lambda *v: bind(case.op, *v, **case.attrs))(*xs)
    np.testing.assert_array_equal(compiled, eager)


@pytest.mark.parametrize("case", COMPLEX_CASES, ids=lambda c: c.id)
def test_gradient_rules_are_jaxs_vjps(case):
    """Each rule's micro-graph, fed a random (complex where the result is) cotangent, gives jax.vjp's cotangents."""
    rng = np.random.default_rng(5)
    xs = case.make_inputs(rng, "float64")
    schema = get(case.op)
    y = schema.kernel(*xs, **case.attrs)
    g = _cotangent(rng, y)
    micro = schema.gradient(NodeContext(case.op, [TensorType.of(x) for x in xs], dict(case.attrs)))
    ours = run_graph(micro, *xs, y, g)
    ours = ours if isinstance(ours, tuple) else (ours,)
    with jax.enable_x64(True):
        theirs = jax.vjp(lambda *v: JAX_FUNCTIONS[case.op](*v, **case.attrs), *xs)[1](g)
    for a, b in zip(ours, theirs):
        assert np.asarray(a).dtype == np.asarray(b).dtype, case.id
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=case.id)


def test_jaxs_convention_for_a_real_function_of_z():
    """|z|^2 = z conj(z): d/dx - i d/dy = 2 conj(z), composed from the rules of mul and conj."""
    z = np.array([1.0 + 2.0j, -0.5 + 0.25j])
    rule = get("conj").gradient(NodeContext("conj", [TensorType.of(z)], {}))
    # f = sum(real(z * conj(z))): cotangent 1 on the product, so z gets conj(z) directly and z * 1 through conj
    through_conj = run_graph(rule, z, np.conj(z), z)
    np.testing.assert_allclose(np.conj(z) + through_conj, 2 * np.conj(z))
    with jax.enable_x64(True):
        np.testing.assert_allclose(jax.vmap(jax.grad(lambda v: jnp.abs(v) ** 2))(z), 2 * np.conj(z))


def test_real_imag_complex_round_trip():
    rng = np.random.default_rng(1)
    re, im = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    z = frame.function(lambda a, b: bind("complex", a, b))(re, im)
    assert z.dtype == np.complex128
    np.testing.assert_array_equal(fnp.real(z), re)
    np.testing.assert_array_equal(fnp.imag(z), im)
    np.testing.assert_array_equal(frame.function(lambda v: fnp.conj(v))(z), np.conj(re + 1j * im))
    np.testing.assert_array_equal(frame.function(lambda v: np.conj(v))(z), np.conj(z))    # the ufunc on a tracer
    assert fnp.real(np.ones(2, np.float32)).dtype == np.float32
    assert fnp.angle(np.array([1.0, -1.0])).tolist() == [0.0, np.pi]


@pytest.mark.parametrize("call, pattern", [
    (lambda: fnp.real(np.arange(3)), r"'real' needs a float or complex operand.*i64"),
    (lambda: bind("complex", np.ones(2, np.float32), np.ones(2)), r"'complex'.*float32.*float64"),
    (lambda: bind("complex", np.ones(2), np.ones(3)), r"'complex'.*do not broadcast"),
    (lambda: bind("fft", np.ones(4), kind="fft"), r"'fft' \(fft\) needs a complex64/complex128 operand"),
    (lambda: bind("fft", np.ones(4, complex), kind="rfft"), r"'fft' \(rfft\) needs a float32/float64 operand"),
    (lambda: bind("fft", np.ones(4, complex), kind="irfft", n=8), r"n//2\+1 bins, got n=8 for c128\[4\]"),
    (lambda: bind("fft", np.ones(4, complex), kind="dct"), r"kind must be one of"),
    (lambda: fnp.fft.fft(np.ones(4), n=0), r"invalid number of FFT data points \(0\)"),
    (lambda: fnp.fft.fft(np.ones(4), norm="bad"), r"invalid norm value 'bad'"),
    (lambda: fnp.fft.fft(np.ones((2, 3)), axis=2), r"axis 2 is out of range for rank 2"),
    (lambda: fnp.fft.rfft(np.ones(3, complex)), r"fnp.fft.rfft needs a real operand"),
    (lambda: fnp.fft.irfft(np.ones(1, complex)), r"invalid number of data points \(0\)"),
    (lambda: fnp.fft.fft(np.float64(1.0)), r"rank >= 1"),
    (lambda: fnp.fft.fftfreq(0), r"n must be a positive integer"),
])
def test_bad_operands_are_refused_naming_the_op(call, pattern):
    with pytest.raises(frame.ShapeError, match=pattern):
        call()


def test_fftfreq_with_a_traced_spacing():
    d = np.asarray(0.25)
    np.testing.assert_allclose(frame.function(lambda s: fnp.fft.fftfreq(8, s))(d), np.fft.fftfreq(8, 0.25))
    np.testing.assert_allclose(frame.function(lambda s: fnp.fft.rfftfreq(7, s))(d), np.fft.rfftfreq(7, 0.25))


def _objective(module, name, x, w, w2, norm):
    """A real objective of a complex spectrum: its real and imaginary parts weighted (and one squared)."""
    spectrum = getattr(module.fft, name)(module.sin(x), norm=norm)
    return module.sum(module.real(spectrum) * w) + module.sum(module.imag(spectrum) ** 2 * w2)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft"])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_grad_through_complex_spectra_matches_jax_to_second_order(name, norm):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(8)
    m = 5 if name == "rfft" else 8
    w, w2 = rng.standard_normal(m), rng.standard_normal(m)
    ours = frame.grad(lambda v: _objective(fnp, name, v, w, w2, norm))
    with jax.enable_x64(True):
        theirs = jax.grad(lambda v: _objective(jnp, name, v, w, w2, norm))
        np.testing.assert_allclose(ours(x), theirs(x), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(frame.grad(lambda v: fnp.sum(ours(v) * w[:1]))(x),
                                   jax.grad(lambda v: jnp.sum(theirs(v) * w[:1]))(x), rtol=1e-9, atol=1e-11)
