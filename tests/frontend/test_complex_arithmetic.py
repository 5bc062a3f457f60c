"""Complex arithmetic and holomorphic functions differentiate by JAX's convention (issue 14 item 1):
the derivative rules are transposes of the (complex-linear) tangent maps, so `frame.grad` of a real
loss of complex inputs equals `jax.grad`'s (for |z|^2 that is 2 conj(z))."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp

Z = np.array([0.3 + 0.4j, -1.2 + 0.5j, 0.8 - 0.6j])
W = np.array([0.7 - 0.2j, 0.1 + 0.9j, -0.4 + 0.3j])


def _loss(np_, z, w):
    y = np_.exp(z) * w + np_.sin(z) / (w + 2.0) - np_.sqrt(z) * np_.tanh(w) + np_.log(z) * np_.cos(w)
    return np_.sum(np_.real(y * np_.conj(z)) + 0.5 * np_.imag(np_.square(y)))


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_holomorphic_ops_of_complex_values_match_numpy_and_jax(dtype):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    z, w = Z.astype(dtype), W.astype(dtype)
    rtol = 1e-12 if dtype == "complex128" else 2e-5
    np.testing.assert_allclose(frame.function(lambda a, b: _loss(fnp, a, b))(z, w), _loss(np, z, w), rtol=rtol)
    with jax.enable_x64(True):
        want = jax.grad(lambda a, b: _loss(jnp, a, b), argnums=(0, 1))(z, w)
    got = frame.grad(lambda a, b: _loss(fnp, a, b), argnums=(0, 1))(z, w)
    for g, j in zip(got, want):
        assert g.dtype == np.dtype(dtype)
        np.testing.assert_allclose(g, np.asarray(j), rtol=rtol, atol=rtol)


def test_the_gradient_of_the_squared_modulus_is_twice_the_conjugate():
    np.testing.assert_allclose(frame.grad(lambda z: fnp.sum(fnp.real(z * fnp.conj(z))))(Z), 2 * np.conj(Z), rtol=1e-15)


def test_mixed_real_and_complex_operands_promote_as_numpy():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    for got in (fnp.multiply(x, Z.astype("complex64")), frame.function(lambda a, b: a * b)(x, Z.astype("complex64"))):
        assert got.dtype == np.complex64
    assert frame.function(lambda a: a * 1j)(x).dtype == np.complex64   # a Python complex is weak
    assert frame.function(lambda a: a + np.complex128(1j))(x).dtype == np.complex128
