"""`from_jax` of the lax primitives imported as frame.lax's functions (frame/interop/jax_rules_lax.py): clz,
mulhi, nextafter, optimization_barrier, polygamma, reduce_precision, reduce_xor, shift_right_logical, top_k,
tile, empty, stack, unstack, the general reduce and reduce_window, reduce_window_min, tridiagonal_solve and
max/min pooling's derivatives (select_and_scatter_add, select_and_gather_add) compute JAX's values, and
frame's derivatives of the imported graphs are jax.grad's; other computations are refused by name. Also
frame.lax.linalg.tridiagonal_solve itself: eager, traced and differentiated."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg
from jax import lax

import frame
import frame.lax as flax
from frame import FrameError
from frame.compiler import build_backward_graph
from frame.interop import from_jax

RNG = np.random.default_rng(0)
X = RNG.uniform(-1.0, 1.0, (3, 4))
P = RNG.integers(0, 3, (5, 6)).astype(np.float64)     # many ties: the pooling picks are tested
PF = RNG.uniform(-1.0, 1.0, (5, 6))                    # no ties (see test_pooling_picks_among_ties_are_xlas)
I32 = np.array([[0, 1, -1, 7], [1 << 20, -(1 << 30), 123457, 2147483647], [-2147483647 - 1, 3, 255, 65536]],
               np.int32)
SHIFTS = np.array([[0, 1, 31, 3], [4, 5, 6, 7], [8, 1, 2, 0]], np.int32)
DL, D, DU = RNG.uniform(-1.0, 1.0, (3, 2, 5))
D = D + 4.0 * np.sign(D)                               # diagonally dominant: no pivoting needed
B = RNG.uniform(-1.0, 1.0, (2, 5, 3))
W22 = RNG.uniform(0.5, 1.5, (4, 5))


def _pool(prim, init, window, strides, padding):
    return lambda a: lax.reduce_window(a, init, prim, window, strides, padding)


_MAX_SAME = _pool(lax.max, -jnp.inf, (2, 2), (1, 1), "SAME")
_MAX_VALID = _pool(lax.max, -jnp.inf, (2, 3), (1, 2), "VALID")
_MIN_PADDED = _pool(lax.min, jnp.inf, (3, 2), (2, 1), ((1, 2), (0, 1)))

# name: (JAX function, arguments, JAX primitive it binds, rtol of values (1e-15 unless a reason is given))
FUNCTIONS = {
    "clz": (lax.clz, (I32,), "clz", 0),
    "mulhi": (lambda a, b: lax.mulhi(a, b), (I32, I32[::-1]), "mulhi", 0),
    "nextafter": (lambda a: lax.nextafter(a, a + 1.0) * a, (X,), "nextafter", 1e-15),
    "nextafter_down": (lambda a: lax.nextafter(a, jnp.zeros_like(a)), (X,), "nextafter", 0),
    "optimization_barrier": (lambda a: lax.optimization_barrier((a * 2.0, jnp.sin(a))), (X,), "optimization_barrier",
                             1e-15),
    # frame.scipy.special.polygamma's series is not XLA's: they agree to a few ulps
    "polygamma": (lambda a: jax.scipy.special.polygamma(2, a + 2.0), (X,), "polygamma", 2e-14),
    "polygamma_1": (lambda a: jax.scipy.special.polygamma(1, a * a + 0.5), (X,), "polygamma", 2e-14),
    "reduce_precision": (lambda a: lax.reduce_precision(a * 3.0, exponent_bits=5, mantissa_bits=10), (X,),
                         "reduce_precision", 0),
    "reduce_xor": (lambda a: lax.reduce_xor(a, (1,)), (I32,), "reduce_xor", 0),
    "shift_right_logical": (lambda a, s: lax.shift_right_logical(a, s), (I32, SHIFTS), "shift_right_logical", 0),
    "top_k": (lambda a: lax.top_k(a * jnp.array([1.0, -1.0, 1.0, 1.0]), 2), (X,), "top_k", 0),
    "top_k_ties": (lambda a: lax.top_k(a, 4), (P,), "top_k", 0),
    "tile": (lambda a: jnp.tile(a, (2, 3)), (X,), "tile", 0),
    "empty": (lambda a: (lax.empty((2, 3), jnp.float64), a * 2.0), (X,), "empty", 0),
    "stack": (lambda a, b: jnp.stack([a, b * 2.0], axis=1), (X, X[::-1]), "stack", 0),
    "unstack": (lambda a: [u * (k + 1.0) for k, u in enumerate(jnp.unstack(a, axis=1))], (X,), "unstack", 0),
    "reduce_mul": (lambda a: lax.reduce(a, 1.0, lambda p, q: p * q, (1,)), (X,), "reduce", 1e-15),
    "reduce_mul_init": (lambda a: lax.reduce(a, 0.5, lambda p, q: p * q, (1,)), (X,), "reduce", 1e-15),
    "reduce_max_min": (lambda a: lax.reduce((a, -a), (0.25, jnp.inf), lambda p, q: (jnp.maximum(p[0], q[0]),
                                                                                     jnp.minimum(p[1], q[1])), (0,)),
                       (X,), "reduce", 0),
    "reduce_xor_general": (lambda a: lax.reduce(a, np.int32(5), lambda p, q: p ^ q, (0, 1)), (I32,), "reduce", 0),
    "reduce_window_max": (lambda a: lax.reduce_window(a, 0.0, lambda p, q: jnp.maximum(p, q), (2, 2), (1, 1),
                                                      "VALID"), (X,), "reduce_window", 0),
    "reduce_window_add": (lambda a: lax.reduce_window(a, 1.0, lambda p, q: p + q, (2, 2), (1, 2), "SAME"), (X,),
                          "reduce_window", 1e-15),
    "reduce_window_min_dilated": (lambda a: lax.reduce_window(a, 0.5, lambda p, q: jnp.minimum(p, q), (3, 2), (1, 1),
                                                              ((1, 0), (0, 2)), base_dilation=(2, 1)), (X,),
                                  "reduce_window", 0),
    "reduce_window_min": (_MIN_PADDED, (X,), "reduce_window_min", 0),
    # JAX runs LAPACK's gtsv (partial pivoting), frame the Thomas algorithm: equal to rounding only
    "tridiagonal_solve": (lambda dl, d, du, b: lax.linalg.tridiagonal_solve(dl, d, du, b), (DL, D, DU, B),
                          "tridiagonal_solve", 1e-13),
    "max_pool_grad": (lambda a: jax.grad(lambda a: jnp.sum(_MAX_SAME(a) ** 2 * W22[:5, :6].mean()))(a), (PF,),
                      "select_and_scatter_add", 0),
    "max_pool_grad_strided": (lambda a: jax.grad(lambda a: jnp.sum(jnp.sin(_MAX_VALID(a))))(a), (PF,),
                              "select_and_scatter_add", 0),
    "min_pool_grad_padded": (lambda a: jax.grad(lambda a: jnp.sum(_MIN_PADDED(a) ** 2))(a), (PF,),
                             "select_and_scatter_add", 0),
    "max_pool_jvp": (lambda a, t: jax.jvp(_MAX_VALID, (a,), (t * a,))[1], (PF, PF[::-1]),
                     "select_and_gather_add", 0),
}


# JAX has no derivative of these to compare with: nextafter has no rule; the general reduce_window has no
# reverse mode; reduce's derivative assumes the init value is the identity (the 0.5 counted twice)
NO_JAX_DERIVATIVE = {"nextafter", "nextafter_down", "reduce_window_max", "reduce_window_add",
                     "reduce_window_min_dilated", "reduce_mul_init"}


def _weights(tree):
    rng = np.random.default_rng(3)
    return [rng.uniform(0.5, 1.5, np.shape(leaf)) for leaf in jax.tree_util.tree_leaves(tree)]


def _contracted(fn, weights):
    return lambda *xs: sum(jnp.sum(y * w) for y, w in zip(jax.tree_util.tree_leaves(fn(*xs)), weights)
                           if jnp.issubdtype(y.dtype, jnp.floating))


def _primitives(fn, args):
    with jax.enable_x64(True):
        return {e.primitive.name for e in jax.make_jaxpr(fn)(*args).jaxpr.eqns}


def assert_values_equal(got, want, rtol):
    assert got.shape == want.shape and got.dtype == want.dtype
    if rtol == 0:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_imports_compute_jax_values_and_gradients(name):
    fn, args, primitive, rtol = FUNCTIONS[name]
    assert primitive in _primitives(fn, args)
    graph = from_jax(fn, *args)
    with jax.enable_x64(True):
        want = [np.asarray(y) for y in jax.tree_util.tree_leaves(fn(*args))]
    got = frame.runtime.compile(graph)(*args)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert_values_equal(a, b, rtol)
    floats = tuple(i for i, a in enumerate(args) if a.dtype.kind == "f")
    if not floats or not any(y.dtype.kind == "f" for y in want) or name in NO_JAX_DERIVATIVE:
        return   # integer functions have no derivative
    weights = _weights(want)
    with jax.enable_x64(True):
        want_grads = jax.grad(_contracted(fn, weights), argnums=floats)(*args)
    contracted = from_jax(_contracted(fn, weights), *args)
    grads = frame.runtime.compile(build_backward_graph(contracted, 0, list(floats)))(*args)[1:]
    for a, b in zip(grads, want_grads):
        # the derivative chains add a few roundings; tridiagonal_solve's and polygamma's differ as their values
        np.testing.assert_allclose(a, b, rtol=max(rtol, 1e-13), atol=1e-15)


@pytest.mark.parametrize("fn, args, match", [
    (lambda a: lax.reduce(a, 0.0, lambda p, q: p + 2.0 * q, (1,)), (X,), r"'reduce'.*jaxpr="),
    (lambda a: lax.reduce(a, 0.0, lambda p, q: p - q, (1,)), (X,), r"'reduce'.*jaxpr="),
    (lambda a: lax.reduce_window(a, 1.0, lax.mul, (2, 2), (1, 1), "VALID"), (X,), r"'reduce_window'.*mul"),
    (lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID", window_dilation=(2, 1)), (X,),
     "window_dilation"),
    (lambda a, t: jax.jvp(_MAX_SAME, (a,), (t,))[1], (P, P), r"'select_and_gather_add'.*padding"),
    (lambda a: lax.igamma_grad_a(a + 2.0, a + 2.0), (X,), "'igamma_grad_a' has no frame equivalent"),
])
def test_computations_frame_does_not_reproduce_are_refused_by_name(fn, args, match):
    with pytest.raises(FrameError, match=match):
        from_jax(fn, *args)


@pytest.mark.parametrize("name", ["max_pool_grad", "max_pool_grad_strided", "min_pool_grad_padded", "max_pool_jvp"])
def test_pooling_picks_among_ties_are_xlas(name):
    """Among tied elements of a window both primitives pick XLA's (the first in row-major order). Values only:
    with ties in padded windows JAX's own second derivative (select_and_gather_add, padded) picks another tied
    element than its first (select_and_scatter_add), so frame's exact transpose cannot equal it there."""
    fn, args, _, _ = FUNCTIONS[name]
    args = (P,) + tuple(P[::-1] + 0.5 for _ in args[1:])
    with jax.enable_x64(True):
        want = np.asarray(fn(*args))
    assert_values_equal(frame.runtime.compile(from_jax(fn, *args))(*args)[0], want, 0)


def test_select_and_scatter_add_follows_xlas_pick_with_nan_and_infinities():
    """The first element of a window is taken and replaced when select(pick, element) is false: with NaNs
    and -inf (a window of padding and -inf picks its first real element, padding never)."""
    a = P.copy()
    a[0, 1], a[4, 0], a[4, 1], a[2, 3] = np.nan, -np.inf, -np.inf, np.nan
    fn = lambda a: jax.grad(lambda a: jnp.sum(_MAX_SAME(a) * W22[:5, :6].sum()))(a)   # noqa: E731
    with jax.enable_x64(True):
        want = np.asarray(fn(a))
    assert_values_equal(frame.runtime.compile(from_jax(fn, a))(a)[0], want, 0)


def _banded(dl, d, du):
    return np.stack([np.concatenate([[0.0], du[:-1]]), d, np.concatenate([dl[1:], [0.0]])])


def assert_matches_scipy(x, dl, d, du, b):
    for k in np.ndindex(*d.shape[:-1]):
        np.testing.assert_allclose(x[k], scipy.linalg.solve_banded((1, 1), _banded(dl[k], d[k], du[k]), b[k]),
                                   rtol=1e-13, atol=1e-15)   # gbsv pivots, Thomas does not: rounding differs


def test_tridiagonal_solve_eager_traced_and_differentiated():
    eager = np.asarray(flax.linalg.tridiagonal_solve(DL, D, DU, B))
    assert_matches_scipy(eager, DL, D, DU, B)
    traced = frame.function(lambda *a: flax.linalg.tridiagonal_solve(*a))(DL, D, DU, B)
    np.testing.assert_array_equal(np.asarray(traced), eager)
    weights = RNG.uniform(0.5, 1.5, B.shape)
    got = frame.grad(lambda *a: frame.numpy.sum(flax.linalg.tridiagonal_solve(*a) * weights),
                     argnums=(0, 1, 2, 3))(DL, D, DU, B)
    with jax.enable_x64(True):
        want = jax.grad(lambda *a: jnp.sum(lax.linalg.tridiagonal_solve(*a) * weights), argnums=(0, 1, 2, 3))(
            DL, D, DU, B)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-12, atol=1e-14)
    assert np.all(np.asarray(got[0])[..., 0] == 0) and np.all(np.asarray(got[2])[..., -1] == 0)   # unused entries


def test_tridiagonal_solve_refuses_mismatched_shapes_naming_them():
    with pytest.raises(frame.errors.ShapeError, match=r"tridiagonal_solve.*\(2, 4\).*\(2, 5\)"):
        flax.linalg.tridiagonal_solve(DL[:, :4], D, DU, B)
