"""`abs` of complex values (issue 14 item 2): |z| in the real dtype of z's parts, as numpy gives it, with
JAX's derivative (the convention of frame/ops/complex.py: g conj(z) / |z|, and 0 at z = 0).

The shared harness differentiates real inputs only, so the complex derivative is checked here: the
rule's micro-graph against jax.vjp with real cotangents, and the JAX oracle (`check_derivatives`,
orders 1 and 2, z = 0 included) on real objectives of z = re + i im. The value cases are also in
tests/ops/cases_complex.py (registry, lowering and from_jax tables) and tests/frontend/cases_logic.py
(the numpy-agreement table).
"""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.backends import native
from frame.interop import check_derivatives, from_jax, to_jax
from frame.ir import TensorType
from frame.ir.registry import NodeContext, get, run_graph

jax = pytest.importorskip("jax")
jnp = jax.numpy

SPECIALS = np.array([3 + 4j, 0j, -0.0 - 0.0j, 1e300 + 1e300j, 1e-310 + 1e-310j, complex(np.inf, np.nan),
                     complex(np.nan, 1.0), complex(-np.inf, 2.0), -2.5 + 0.0j, 0.0 - 1.5j])


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_every_spelling_gives_numpys_modulus_eagerly_and_compiled(dtype):
    with np.errstate(over="ignore"):    # 1e300 overflows complex64's parts to inf: a special value too
        z = SPECIALS.astype(dtype)
    want = np.abs(z)
    assert want.dtype == {"complex64": np.float32, "complex128": np.float64}[dtype]
    with np.errstate(all="ignore"):
        results = [fnp.abs(z), fnp.absolute(z), frame.function(lambda v: fnp.abs(v))(z),
                   frame.function(lambda v: abs(v))(z), frame.function(lambda v: np.absolute(v))(z),
                   frame.function(lambda v: np.abs(v) * 2.0)(z) / 2.0]    # inside a chain (doubling is exact)
    for got in results:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)        # np.absolute's own bits (hypot: no overflow at 1e300)


def test_the_c_expression_is_for_real_operands_only():
    """fabs of a complex value is not |z|: the native tier keeps complex abs a numpy call."""
    for dtype, fused in (("float32", True), ("float64", True), ("complex64", False), ("complex128", False)):
        graph = frame.trace(lambda v: abs(v), np.ones(3, dtype))
        (node,) = [n for n in graph.nodes if n.op == "abs"]
        assert native.supports(node) == fused, dtype


def _rule(z):
    """abs's gradient micro-graph run at z with a real cotangent g: (g, frame's cotangent of z)."""
    g = np.random.default_rng(1).standard_normal(z.shape)
    micro = get("abs").gradient(NodeContext("abs", [TensorType.of(z)], {}))
    return g, run_graph(micro, z, np.abs(z), g)


def test_the_rule_is_jaxs_vjp_including_zero():
    z = np.array([1 + 2j, 0j, -3 - 0.5j, 1e-8j, -0.0 + 0j])
    g, ours = _rule(z)
    with jax.enable_x64(True):
        theirs = jax.vjp(jnp.abs, z)[1](g)[0]
    assert ours.dtype == np.asarray(theirs).dtype == np.complex128
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=0)
    np.testing.assert_allclose(ours, g * np.conj(z) / np.where(z == 0, 1, np.abs(z)), rtol=1e-14)
    assert ours[1] == 0 and ours[4] == 0


def test_complex64_rule_keeps_complex64():
    z = np.array([1 + 2j, 0j], np.complex64)
    _, ours = _rule(z)
    assert ours.dtype == np.complex64


def _objectives():
    def modulus(a, b):
        return fnp.abs(a + 1j * b)

    def composed(a, b):
        z = a + 1j * b
        return fnp.sum(fnp.abs(z * z + 0.5) * fnp.real(z)) + fnp.max(fnp.abs(fnp.sin(z)))

    def norms(a, b):   # linalg.norm of complex values: the Euclidean one (real(conj(z) z)) and the 1-norm (abs)
        z = a + 1j * b + 0.25
        return fnp.linalg.norm(z) + fnp.linalg.norm(z, 1, axis=1)

    return [modulus, composed, norms]


@pytest.mark.parametrize("objective", _objectives(), ids=lambda f: f.__name__)
def test_oracle_orders_1_and_2_through_complex_abs(objective):
    """Real objectives of z = re + i im: frame's first and second derivatives against JAX's, z = 0 included
    (JAX's rule reads |z| = 0 as 1 there, so its second derivative is finite; frame's rule does the same)."""
    rng = np.random.default_rng(0)
    re, im = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    re[0, 0] = im[0, 0] = 0.0
    report = check_derivatives(objective, re, im, argnums=(0, 1), orders=(1, 2))
    assert {(1, "gradient"), (2, "hessian")} <= {(e.order, e.check) for e in report.entries}


def test_forward_mode_and_vmap_of_complex_abs():
    z = np.array([1 + 2j, 0j, -3 - 0.5j])
    dz = np.array([0.5 - 1j, 2 + 1j, 1j])
    y, ty = frame.jvp(lambda v: fnp.abs(v), (z,), (dz,))
    with jax.enable_x64(True):
        jy, jty = jax.jvp(jnp.abs, (z,), (dz,))
    np.testing.assert_array_equal(y, np.abs(z))
    assert np.asarray(ty).dtype == np.float64
    np.testing.assert_allclose(ty, jty, rtol=1e-14, atol=0)
    batched = frame.vmap(lambda v: fnp.abs(v) * 2.0)(np.stack([z, 2 * z]))
    np.testing.assert_array_equal(batched, 2.0 * np.abs(np.stack([z, 2 * z])))


def test_to_jax_and_from_jax_round_trip_a_complex_abs():
    z = np.array([1 + 2j, 0j, -3 - 0.5j], np.complex64)
    graph = from_jax(lambda v: jnp.abs(v) * 2.0, z)
    assert [n.op for n in graph.nodes if n.op == "abs"] == ["abs"]
    (got,) = frame.runtime.compile(graph)(z)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.abs(z) * np.float32(2.0))
    with jax.enable_x64(True):    # to_jax's up-front check counts complex64 (8 bytes) as a 64-bit type
        lowered = to_jax(frame.trace(lambda v: abs(v), z))(z)[0]
    np.testing.assert_array_equal(np.asarray(lowered), np.abs(z))


def test_taylor_mode_still_refuses_abs_by_name():
    with pytest.raises(frame.GradientError, match="abs"):
        frame.jet(lambda v: fnp.abs(v), (np.array([1.0, 2.0]),), ((np.ones(2), np.zeros(2)),))
