"""`from_jax` imports the lax primitives issue 14 lists, one test row each: the jaxpr holds that primitive,
the imported graph gives JAX's values (bit for bit where frame computes as XLA does on CPU: selections,
comparisons, indexing, casts), and frame's derivative of the imported graph is jax.grad's (for the
differentiable ones). The one-to-one primitives (abs, sign, comparisons, atan2, erf, expm1, log1p, ...) are
also round-tripped from their op blocks in tests/interop/test_registry_coverage.py; here they meet the
dtypes the issue adds (complex abs, integer comparisons) as well. What frame cannot import exactly is
refused naming the primitive (the last tests).
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import frame
from frame import FrameError
from frame.compiler import build_backward_graph
from frame.interop import from_jax

RNG = np.random.default_rng(14)
X = RNG.uniform(-2.0, 2.0, (3, 4))
Y = RNG.uniform(0.5, 2.0, (3, 4))
Z = (RNG.uniform(-1, 1, (3, 4)) + 1j * RNG.uniform(-1, 1, (3, 4))).astype(np.complex128)
I32 = RNG.integers(-3, 4, (3, 4)).astype(np.int32)
IDX = np.array([2, 0, 2, 1])
ORDER = np.argsort(X, axis=1)[:, :2]     # take_along_axis indices (argsort itself is lax.sort, which frame lacks)


def _primitives(fn, *args):
    """Every primitive name in fn's jaxpr, nested calls included."""
    def walk(jaxpr):
        for e in jaxpr.eqns:
            yield e.primitive.name
            for p in e.params.values():
                inner = getattr(p, "jaxpr", None)
                if inner is not None:
                    yield from walk(getattr(inner, "jaxpr", inner))
    with jax.enable_x64(True):
        return set(walk(jax.make_jaxpr(fn)(*args).jaxpr))


# row -> (the primitive, a function whose jaxpr holds it, its arguments, differentiable positions, bit-exact?)
ROWS = {
    "abs": ("abs", lambda x: lax.abs(x) * x, (X,), (0,), True),
    "abs-complex": ("abs", lambda z: lax.abs(z) * 2.0, (Z,), (), True),
    "sign": ("sign", lambda x: lax.sign(x) * x, (X,), (0,), True),
    "select_n": ("select_n", lambda x, y: lax.select_n(x > 0.3, x, y), (X, Y), (0, 1), True),
    "select_n-int-values": ("select_n", lambda i, x: jnp.where(i > 0, i, 2 * i), (I32, X), (), True),
    **{name: (name, lambda x, y, f=f: jnp.where(f(x, y), x, y) * 1.0, (X, Y), (0, 1), True)
       for name, f in [("eq", lax.eq), ("ne", lax.ne), ("lt", lax.lt), ("le", lax.le), ("gt", lax.gt), ("ge", lax.ge)]},
    "lt-int": ("lt", lambda i, x: jnp.where(i < 1, x, -x), (I32, X), (1,), True),
    "reduce_max": ("reduce_max", lambda x: lax.reduce_max(x, (1,)), (X,), (0,), True),
    "reduce_min": ("reduce_min", lambda x: jnp.min(x, axis=0), (X,), (0,), True),
    "argmax": ("argmax", lambda x: jnp.argmax(x, axis=1), (X,), (), True),
    "argmin": ("argmin", lambda x: jnp.argmin(x, axis=0), (X,), (), True),
    "cumsum": ("cumsum", lambda x: jnp.cumsum(x, axis=1), (X,), (0,), False),
    "cumsum-reverse": ("cumsum", lambda x: lax.cumsum(x, axis=0, reverse=True), (X,), (0,), False),
    "convert_element_type": ("convert_element_type",
                             lambda x: x.astype(jnp.float32).astype(jnp.float64) + x.astype(jnp.int32), (X,), (0,), True),
    "atan2": ("atan2", lambda x, y: lax.atan2(x, y), (X, Y), (0, 1), False),
    "erf": ("erf", lambda x: lax.erf(x), (X,), (0,), False),
    "integer_pow": ("integer_pow", lambda x: lax.integer_pow(x, 3) + lax.integer_pow(x, -2), (X,), (0,), False),
    "pow": ("pow", lambda x, y: lax.pow(y, x), (X, Y), (0, 1), False),
    "expm1": ("expm1", lambda x: lax.expm1(x), (X,), (0,), False),
    "log1p": ("log1p", lambda y: lax.log1p(y), (Y,), (0,), False),
    "gather": ("gather", lambda x: x[:, IDX] + x[jnp.array([1, 1, 0])][:, :1], (X,), (0,), True),
    "gather-take_along_axis": ("gather", lambda x: jnp.take_along_axis(x, jnp.asarray(ORDER), axis=1), (X,), (0,), True),
    "scatter": ("scatter", lambda x: jnp.asarray(x).at[IDX[:2], 1].set(7.0), (X,), (0,), True),
    "scatter-add": ("scatter-add", lambda x, y: jnp.asarray(x).at[:, IDX].add(y), (X, Y), (0, 1), True),
    "scatter-mul": ("scatter-mul", lambda x, y: jnp.asarray(x).at[0, IDX[1:]].multiply(y[0, :3], unique_indices=True),
                    (X, Y), (0, 1), True),
    "scatter-min": ("scatter-min", lambda x, y: jnp.asarray(x).at[1].min(y[0]), (X, Y), (), True),
    "scatter-max": ("scatter-max", lambda x, y: jnp.asarray(x).at[1].max(y[0]), (X, Y), (), True),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_each_listed_primitive_imports_with_jaxs_values(name):
    primitive, fn, args, _, exact = ROWS[name]
    assert primitive in _primitives(fn, *args), name
    graph = from_jax(fn, *args)
    with jax.enable_x64(True):
        want = np.asarray(fn(*args))
    (got,) = frame.runtime.compile(graph)(*args)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", sorted(n for n, row in ROWS.items() if row[3]))
def test_each_differentiable_listed_primitive_has_jaxs_gradient(name):
    _, fn, args, wrt, _ = ROWS[name]
    with jax.enable_x64(True):
        w = RNG.standard_normal(jax.eval_shape(fn, *args).shape)

    def scalar(*xs):
        return jnp.sum(fn(*xs) * w)

    graph = from_jax(scalar, *args)
    ours = frame.runtime.compile(build_backward_graph(graph, 0, list(wrt)))(*args)[1:]
    with jax.enable_x64(True):
        theirs = jax.grad(scalar, argnums=wrt)(*args)
    for g, t in zip(ours, theirs):
        np.testing.assert_allclose(g, np.asarray(t), rtol=1e-12, atol=1e-14, err_msg=name)


# dot_general with any dimension numbers: (lhs contracting, rhs contracting), (lhs batch, rhs batch)
DOT_NUMBERS = [
    ((3, 4), (4, 5), (((1,), (0,)), ((), ()))),            # a @ b
    ((4, 3), (4, 5), (((0,), (0,)), ((), ()))),            # a^T @ b
    ((3, 4), (5, 4), (((1,), (1,)), ((), ()))),            # a @ b^T
    ((2, 3, 4), (4, 3, 5), (((1, 2), (1, 0)), ((), ()))),  # two contracted axes, in another order
    ((3,), (4,), (((), ()), ((), ()))),                     # no contraction: the outer product
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),   # batched matmul
    ((3, 2, 4), (4, 5, 2), (((2,), (0,)), ((1,), (2,)))),   # batch axes not leading, nor in the same place
    ((2, 3, 6, 4), (6, 2, 4, 5), (((3, 2), (2, 0)), ((0,), (1,)))),   # batch in the middle, two contracted
]


@pytest.mark.parametrize("sa, sb, numbers", DOT_NUMBERS, ids=[str(n) for _, _, n in DOT_NUMBERS])
def test_dot_general_with_any_dimension_numbers(sa, sb, numbers):
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)

    def fn(x, y):
        return lax.dot_general(x, y, numbers)

    assert "dot_general" in _primitives(fn, a, b)
    graph = from_jax(fn, a, b)
    with jax.enable_x64(True):
        want = np.asarray(fn(a, b))
        w = RNG.standard_normal(want.shape)
        theirs = jax.grad(lambda x, y: jnp.sum(fn(x, y) * w), argnums=(0, 1))(a, b)
    (got,) = frame.runtime.compile(graph)(a, b)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
    ours = frame.runtime.compile(build_backward_graph(from_jax(lambda x, y: jnp.sum(fn(x, y) * w), a, b), 0, [0, 1]))(a, b)
    for g, t in zip(ours[1:], theirs):
        np.testing.assert_allclose(g, np.asarray(t), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("fn, args, pattern", [
    (lambda i, x: lax.select_n(i, x, 2 * x, 3 * x), (np.zeros((3, 4), np.int32), X), r"'select_n'.*int32 predicate"),
    (lambda x: jnp.signbit(x), (X,),
     r"'bitcast_convert_type'"),   # signbit reads the bits; frame has no bitcast
    (lambda x: lax.igamma_grad_a(x * x + 1.0, x * x + 2.0), (X,), r"'igamma_grad_a'"),
    (lambda x: lax.exp(x, accuracy=lax.Tolerance(atol=1e-3, rtol=1e-3)), (X,), r"'exp'.*accuracy"),
])
def test_what_cannot_be_imported_exactly_is_refused_naming_the_primitive(fn, args, pattern):
    with pytest.raises(FrameError, match=pattern):
        from_jax(fn, *args)


def test_scatter_mul_with_repeated_indices_has_no_derivative_as_in_jax():
    def scalar(x, y):
        return jnp.sum(jnp.asarray(x).at[0, IDX].multiply(y[0]))

    with jax.enable_x64(True), pytest.raises(NotImplementedError, match="unique_indices"):
        jax.grad(scalar, argnums=(0, 1))(X, Y)
    graph = from_jax(scalar, X, Y)          # the values import; the derivative is refused by name, like JAX's
    with pytest.raises(frame.GradientError, match=r"op 'scatter' \(mode 'mul'\).*unique indices"):
        build_backward_graph(graph, 0, [0, 1])
