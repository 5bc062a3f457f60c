"""General eigenvalues: the `eigvals` and `eig` ops (frame/ops/linalg.py) and fnp.linalg.eig/eigvals, fnp.roots,
fnp.poly of a matrix on them. Values against numpy are in the agreement table (tests/frontend/cases_*.py); here:
the eigenvalues' derivatives against JAX (order 1, reverse and forward) and against central differences of
frame's own lower order (orders 2 and 3, which JAX does not give: its rule needs eigenvector derivatives, which
it refuses), the refusal of eigenvector derivatives in every mode, batching, and the import from JAX.
"""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import GradientError, LinAlgError, ShapeError, TraceError
import tests.ops.cases  # noqa: F401 - loads tests.ops.cases_linalg through its collection first (no cycle)
from tests.ops.cases_linalg import _spread_general  # noqa: E402

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

rng = np.random.default_rng(0)
A = _spread_general(3, 3)(rng, "float64")          # a real eigenvalue and a complex pair
B = rng.standard_normal((4, 4))
STACK = _spread_general(2, 3, 3)(rng, "float64")
REFUSED = r"op 'eig' has no derivative in operand 0 \(the eigenvectors"


def loss(w):
    """A real function of complex eigenvalues that weighs real and imaginary parts differently."""
    return fnp.sum(fnp.real(w) * np.linspace(1.0, -0.5, w.shape[-1])) + fnp.sum(fnp.imag(w) ** 2)


def jloss(w):
    return jnp.sum(jnp.real(w) * np.linspace(1.0, -0.5, w.shape[-1])) + jnp.sum(jnp.imag(w) ** 2)


@pytest.mark.parametrize("a", [A, B], ids=["spread", "random"])
def test_first_order_equals_jax_in_reverse_and_forward_mode(a):
    want = jax.grad(lambda a: jloss(jnp.linalg.eigvals(a)))(a)
    np.testing.assert_allclose(frame.grad(lambda a: loss(fnp.linalg.eigvals(a)))(a), want, rtol=1e-10, atol=1e-12)
    # linalg.eig's eigenvalues are eigvals': differentiable (JAX's eig refuses them with the eigenvectors)
    np.testing.assert_allclose(frame.grad(lambda a: loss(fnp.linalg.eig(a)[0]))(a), want, rtol=1e-10, atol=1e-12)
    t = rng.standard_normal(a.shape)
    np.testing.assert_allclose(frame.jvp(fnp.linalg.eigvals, (a,), (t,))[1],
                               jax.jvp(jnp.linalg.eigvals, (a,), (t,))[1], rtol=1e-10, atol=1e-12)
    compiled = frame.function(frame.grad(lambda a: loss(fnp.linalg.eigvals(a))))(a)
    np.testing.assert_allclose(compiled, want, rtol=1e-10, atol=1e-12)


def _central(f, x, direction, h=1e-5):
    return (f(x + h * direction) - f(x - h * direction)) / (2 * h)


@pytest.mark.parametrize("a", [A, B], ids=["spread", "random"])
def test_second_and_third_order_equal_central_differences_of_the_lower_order(a):
    g = frame.grad(lambda a: loss(fnp.linalg.eigvals(a)))
    d1, d2 = rng.standard_normal(a.shape), rng.standard_normal(a.shape)
    hessians = {"hessian": frame.hessian(lambda a: loss(fnp.linalg.eigvals(a)))(a),
                "jacfwd(grad)": frame.jacfwd(g)(a), "jacrev(grad)": frame.jacrev(g)(a)}
    want = _central(g, a, d1)
    for name, h in hessians.items():
        np.testing.assert_allclose(np.tensordot(h, d1, axes=2), want, rtol=1e-6, atol=1e-7, err_msg=name)
    hvp = lambda a: frame.jvp(g, (a,), (d1,))[1]   # noqa: E731
    np.testing.assert_allclose(frame.jvp(hvp, (a,), (d2,))[1], _central(hvp, a, d2), rtol=1e-6, atol=1e-7)
    third_reverse = frame.grad(lambda a: fnp.sum(hvp(a) * d2))(a)
    np.testing.assert_allclose(np.sum(third_reverse * d1), np.sum(frame.jvp(hvp, (a,), (d2,))[1] * d1), rtol=1e-9)


def test_batched_matrices_and_vmap():
    want = jax.grad(lambda s: jloss(jnp.linalg.eigvals(s).reshape(-1)))(STACK)
    np.testing.assert_allclose(frame.grad(lambda s: loss(fnp.reshape(fnp.linalg.eigvals(s), (-1,))))(STACK), want,
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(frame.vmap(fnp.linalg.eigvals)(STACK), np.linalg.eigvals(STACK), rtol=1e-12)
    per_matrix = frame.vmap(frame.grad(lambda a: loss(fnp.linalg.eigvals(a))))(STACK)
    np.testing.assert_allclose(per_matrix, jax.vmap(jax.grad(lambda a: jloss(jnp.linalg.eigvals(a))))(STACK),
                               rtol=1e-10, atol=1e-12)


def test_eigenvector_derivatives_are_refused_in_every_mode():
    vectors = lambda a: fnp.sum(fnp.abs(fnp.linalg.eig(a).eigenvectors))   # noqa: E731
    for run in (lambda: frame.grad(vectors)(A), lambda: frame.jvp(vectors, (A,), (B[:3, :3],)),
                lambda: frame.jacfwd(lambda a: fnp.abs(fnp.linalg.eig(a)[1]))(A),
                lambda: frame.jet(lambda a: fnp.abs(fnp.linalg.eig(a)[1]), (A,), ((B[:3, :3], B[:3, :3]),))):
        with pytest.raises(GradientError, match=REFUSED):
            run()
    # the eigenvectors' values, and a derivative that does not go through them, are fine
    result = fnp.linalg.eig(A)
    np.testing.assert_allclose(result.eigenvectors, np.linalg.eig(A)[1], rtol=1e-12)
    g = frame.grad(lambda a: loss(fnp.linalg.eig(a)[0]) + fnp.sum(frame.stop_gradient(fnp.abs(fnp.linalg.eig(a)[1]))))
    np.testing.assert_allclose(g(A), jax.grad(lambda a: jloss(jnp.linalg.eigvals(a)))(A), rtol=1e-10)


def test_roots_and_characteristic_polynomial_derivatives():
    p = np.array([1.0, -0.5, 0.75, 2.0])
    fr = lambda p: loss(fnp.roots(p, strip_zeros=False))   # noqa: E731
    np.testing.assert_allclose(frame.grad(fr)(p), jax.grad(lambda p: jloss(jnp.roots(p, strip_zeros=False)))(p),
                               rtol=1e-10)
    # the characteristic polynomial of a real matrix is real, and its coefficients differentiate
    np.testing.assert_allclose(fnp.poly(B), np.poly(B), rtol=1e-12)
    fp = lambda a: fnp.sum(fnp.poly(a) * np.arange(5.0))   # noqa: E731
    d = rng.standard_normal(B.shape)
    np.testing.assert_allclose(np.sum(frame.grad(fp)(B) * d), _central(fp, B, d), rtol=1e-6)


def test_bad_input_is_refused_by_name():
    with pytest.raises(LinAlgError, match="square"):
        fnp.linalg.eigvals(np.ones((2, 3)))
    with pytest.raises(ShapeError, match="real matrices"):
        fnp.linalg.eig(np.eye(2) * (1 + 1j))
    with pytest.raises(TraceError, match="strip_zeros=False"):
        frame.function(fnp.roots)(np.array([1.0, 2.0]))
    with pytest.raises(ShapeError, match="1-d"):
        fnp.roots(np.ones((2, 2)))
    with pytest.raises(LinAlgError, match="op 'eigvals'"):
        fnp.linalg.eigvals(np.array([[np.nan, 1.0], [0.0, 1.0]]))


def test_jax_eig_and_eigvals_import():
    from frame.compiler import build_backward_graph
    from frame.interop import from_jax
    from frame.runtime import compile as compile_graph

    graph = from_jax(lambda a: jloss(jnp.linalg.eigvals(a)), B)
    assert "eigvals" in {node.op for node in graph.nodes}
    value, grad = compile_graph(build_backward_graph(graph, 0, [0]))(B)
    np.testing.assert_allclose(value, jloss(jnp.linalg.eigvals(B)), rtol=1e-12)
    np.testing.assert_allclose(grad, jax.grad(lambda a: jloss(jnp.linalg.eigvals(a)))(B), rtol=1e-10, atol=1e-12)
    pair = from_jax(jnp.linalg.eig, B)
    w, v = compile_graph(pair)(B)
    np.testing.assert_allclose(w, np.linalg.eig(B)[0], rtol=1e-12)
    np.testing.assert_allclose(v, np.linalg.eig(B)[1], rtol=1e-12)
    # JAX refuses the derivative of eig's outputs without enable_eigvec_derivs; so does frame
    with pytest.raises(GradientError, match=REFUSED):
        build_backward_graph(from_jax(lambda a: jloss(jnp.linalg.eig(a)[0]), B), 0, [0])
