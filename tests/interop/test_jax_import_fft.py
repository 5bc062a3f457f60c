"""from_jax of lax.fft (every jnp.fft function) and lax.conj/real/imag/complex: the graph computes JAX's
values, its derivatives are jax.grad's, and what frame cannot import exactly is refused.

Registered in from_jax by frame/interop/jax_rules_fft.py (jax_import.RULE_FAMILIES); until it is, the
tests skip.
"""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import frame  # noqa: E402
from frame.interop import from_jax, jax_import, jax_rules_fft  # noqa: E402

pytestmark = pytest.mark.skipif(jax_rules_fft not in jax_import.RULE_FAMILIES,
                                reason="jax_rules_fft is not registered in jax_import.RULE_FAMILIES yet")
RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 8))
Z = X + 1j * RNG.standard_normal((3, 8))
S = RNG.standard_normal((3, 5)) + 1j * RNG.standard_normal((3, 5))


def _import(fn, *args):
    # x64 on around from_jax: it switches it on for 8-byte arguments only, which leaves complex128 out
    with jax.enable_x64(True):
        return from_jax(fn, *args)


@pytest.mark.parametrize("fn, arg, kind", [
    (lambda z: jnp.fft.fft(z), Z, "fft"), (lambda z: jnp.fft.ifft(z), Z, "ifft"),
    (lambda x: jnp.fft.rfft(x), X, "rfft"), (lambda s: jnp.fft.irfft(s), S, "irfft"),
    (lambda s: lax.fft(s, "irfft", (9,)), S, "irfft"), (lambda x: lax.fft(x, "rfft", (8,)), X.astype(np.float32), "rfft"),
])
def test_one_dimensional_ffts_import_as_the_fft_op_with_jaxs_values(fn, arg, kind):
    graph = _import(fn, arg)
    assert [n.attrs["kind"] for n in graph.nodes if n.op == "fft"] == [kind]
    with jax.enable_x64(True):
        want = np.asarray(fn(arg))
    got = frame.runtime.compile(graph)(arg)[0]
    assert got.dtype == want.dtype
    tol = 1e-10 if want.dtype == np.complex128 or want.dtype == np.float64 else 1e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_conj_real_imag_complex_import():
    def fn(z):
        w = jnp.conj(z) * z
        return lax.complex(jnp.real(w), jnp.imag(z))

    with jax.enable_x64(True):
        want = np.asarray(fn(Z))
    graph = _import(fn, Z)
    assert {"conj", "real", "imag", "complex"} <= {n.op for n in graph.nodes}
    np.testing.assert_allclose(frame.runtime.compile(graph)(Z)[0], want, rtol=1e-12)


def test_derivatives_of_an_imported_fft_chain_are_jaxs():
    """real -> rfft -> a complex filter -> irfft -> tanh: the imported graph's derivative == jax.grad."""
    w = RNG.standard_normal(8)
    h = RNG.standard_normal(5) + 1j * RNG.standard_normal(5)

    def fn(x):
        return jnp.sum(jnp.tanh(lax.fft(lax.fft(x, "rfft", (8,)) * h, "irfft", (8,))) * w)

    x = RNG.standard_normal(8)
    graph = _import(fn, x)
    with jax.enable_x64(True):
        value, want = np.asarray(fn(x)), np.asarray(jax.grad(fn)(x))
    backward = frame.compiler.build_backward_graph(graph, 0, [0])
    got = frame.runtime.compile(backward)(x)
    np.testing.assert_allclose(got[0], value, rtol=1e-12)
    np.testing.assert_allclose(got[1], want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn, arg", [
    (lambda s: jnp.fft.irfft(s, n=10), S), (lambda x: jnp.fft.rfft(x, n=12), X),
    (lambda s: jnp.fft.irfft2(s, s=(4, 10)), S), (lambda s: jnp.fft.irfftn(s, s=(3, 7)), S),
    (lambda z: jnp.fft.fft(z, n=5), Z), (lambda x: jnp.fft.rfftn(x, s=(5, 6)), X),
], ids=["irfft-n", "rfft-n", "irfft2-s", "irfftn-s", "fft-n-crop", "rfftn-s"])
def test_jnp_fft_lengths_import_and_differentiate(fn, arg):
    """jnp.fft's n/s pad (with a converted int 0) or crop before lax.fft: imported, values and
    derivatives JAX's."""
    graph = _import(fn, arg)
    with jax.enable_x64(True):
        want = np.asarray(fn(arg))
    np.testing.assert_allclose(frame.runtime.compile(graph)(arg)[0], want, rtol=1e-12, atol=1e-12)
    w = RNG.standard_normal(want.shape)

    def loss(a):
        return jnp.sum(jnp.real(fn(a)) * w)

    loss_graph = _import(loss, arg)
    with jax.enable_x64(True):
        grad = np.asarray(jax.grad(loss)(arg))
    got = frame.runtime.compile(frame.compiler.build_backward_graph(loss_graph, 0, [0]))(arg)[1]
    np.testing.assert_allclose(got, grad, rtol=1e-10, atol=1e-10)   # complex inputs: JAX's convention


@pytest.mark.parametrize("fn, arg, pattern", [
    (lambda x: lax.conj(x), X, r"input_dtype=float64 is not supported.*only complex operands"),
])
def test_what_frame_cannot_import_is_refused_by_name(fn, arg, pattern):
    with pytest.raises(frame.errors.TraceError, match=pattern):
        _import(fn, arg)
