"""frame.numpy's remaining jax.numpy names (frame/frontend/numpy_names.py): constants and dtype objects are numpy's,
`ndarray` covers numpy arrays and traced values, the index helpers and bit packing agree with numpy eagerly and
traced (and r_/c_ differentiate as JAX does), einsum_path answers from shapes, printing refuses traced values."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import ShapeError, TraceError

X = np.arange(6.0).reshape(2, 3) - 2.5
DTYPE_NAMES = ("dtype generic number integer signedinteger unsignedinteger inexact floating complexfloating bool "
               "double single cdouble csingle int_ int8 int16 uint8 uint16 uint32 uint64 uint character flexible "
               "object_").split()
UNSUPPORTED = ("int8", "int16", "uint8", "uint16", "uint32", "uint64", "uint", "object_")


def assert_same_arrays(got, want):
    """Equal values, shapes and dtypes, element by element for tuples (ogrid)."""
    got_t, want_t = (got, want) if isinstance(want, (tuple, list)) else ((got,), (want,))
    assert len(got_t) == len(want_t)
    for g, w in zip(got_t, want_t):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), f"{g.dtype}{g.shape} != {w.dtype}{w.shape}"
        np.testing.assert_array_equal(g, w)


def test_constants_are_numpys():
    assert fnp.inf == np.inf and np.isnan(fnp.nan) and fnp.newaxis is None
    assert fnp.pi == np.pi and fnp.e == np.e and fnp.euler_gamma == np.euler_gamma
    assert fnp.ones(3)[:, fnp.newaxis].shape == (3, 1)


def test_dtype_names_are_numpys_objects_as_in_jax_numpy():
    jnp = pytest.importorskip("jax.numpy")
    for name in DTYPE_NAMES:
        assert getattr(fnp, name) is getattr(np, name), name
        if isinstance(getattr(jnp, name), type) and getattr(jnp, name).__module__ == "numpy":
            assert getattr(fnp, name) is getattr(jnp, name), name   # jax re-exports numpy's abstract classes
    assert fnp.float_ is np.float64 and fnp.complex_ is np.complex128 and fnp.bool_ is np.bool_
    assert fnp.dtype is jnp.dtype and fnp.floating is jnp.floating and fnp.integer is jnp.integer


@pytest.mark.parametrize("x, floating, integer, inexact", [
    (X, True, False, True), (X.astype("float32"), True, False, True), (np.arange(3), False, True, False),
    (np.arange(3, dtype="int32"), False, True, False), (X + 1j, False, False, True), (X > 0, False, False, False)])
def test_issubdtype_of_abstract_classes_on_arrays_and_traced_values(x, floating, integer, inexact):
    def kinds(y):
        return (fnp.issubdtype(y.dtype, fnp.floating), fnp.issubdtype(y.dtype, fnp.integer),
                fnp.issubdtype(y.dtype, fnp.inexact), fnp.issubdtype(y.dtype, fnp.number) or y.dtype == fnp.bool)
    seen = []
    frame.trace(lambda y: seen.append(kinds(y)) or fnp.sum(y), x)
    assert kinds(x) == seen[0] == (floating, integer, inexact, True)


@pytest.mark.parametrize("name", UNSUPPORTED)
def test_arrays_of_dtypes_frame_does_not_carry_are_refused_by_name(name):
    dt = getattr(fnp, name)
    want = np.dtype(dt).name
    with pytest.raises(ShapeError, match=f"dtype '{want}' is not supported by frame"):
        fnp.asarray(X, dt)
    with pytest.raises(ShapeError, match=f"dtype '{want}' is not supported by frame"):
        frame.trace(lambda y: fnp.asarray(y, dt), X)


def test_ndarray_covers_numpy_arrays_and_traced_values():
    assert isinstance(X, fnp.ndarray) and isinstance(np.asarray(1.0), fnp.ndarray)
    assert issubclass(np.ndarray, fnp.ndarray)
    assert not isinstance([1.0], fnp.ndarray) and not isinstance(1.0, fnp.ndarray)
    assert not isinstance(np.float64(1.0), fnp.ndarray)   # numpy scalars are no arrays, in numpy either
    seen = []

    def f(x):
        seen.append(isinstance(x, fnp.ndarray))
        return fnp.sum(x * x)
    frame.function(f)(X)
    frame.grad(f)(X)
    frame.grad(frame.grad(lambda x: f(x) * x))(1.5)   # nested: a tracer of a tracer
    assert seen and all(seen)
    with pytest.raises(TypeError, match="fnp.ndarray is an abstract type"):
        fnp.ndarray((2, 3))


def test_index_expressions_and_grids_are_numpys():
    assert fnp.s_[1:3, ::2] == np.s_[1:3, ::2] and fnp.index_exp[2] == np.index_exp[2] == (2,)
    for key in [np.s_[0:5], np.s_[0:4, 1:3], np.s_[-1:1:5j], np.s_[0:1:3j, 0:6:2], np.s_[3:0:-1, 0:1:0.25]]:
        assert_same_arrays(fnp.mgrid[key], np.mgrid[key])
        assert_same_arrays(fnp.ogrid[key], np.ogrid[key])
    assert_same_arrays(fnp.mgrid[0:2, 0:3][0] + X, np.mgrid[0:2, 0:3][0] + X)


def test_grids_of_traced_bounds_raise_trace_error_by_name():
    for grid in ("mgrid", "ogrid"):
        with pytest.raises(TraceError, match=f"fnp.{grid}: the grid's bounds .* must be concrete"):
            frame.trace(lambda n: getattr(fnp, grid)[0:n], np.float64(3.0))


R_FORMS = [   # (label, key builder over the three operands a (3,), b (2, 3), s ())
    ("arrays", lambda a, b, s: np.s_[a, a]), ("slices", lambda a, b, s: np.s_[a, 0:3, 5, 7.5:8.5:0.5, -2:2:5j]),
    ("scalar-traced", lambda a, b, s: np.s_[s, a, s]), ("2d-axis0", lambda a, b, s: np.s_[b, b]),
    ("axis1", lambda a, b, s: np.s_["1", b, b]), ("ndmin2", lambda a, b, s: np.s_["0,2", a, b]),
    ("ndmin2-trans0", lambda a, b, s: np.s_["1,2,0", a, np.ones((3, 1))]),
    ("ndmin3", lambda a, b, s: np.s_["0,3", b, b]),
    ("ndmin3-trans0", lambda a, b, s: np.s_["2,3,0", a, a]), ("int-float", lambda a, b, s: np.s_[np.arange(2), a]),
    ("float32-weak", lambda a, b, s: np.s_[a.astype("float32"), 1.5, 2]), ("list", lambda a, b, s: np.s_[[1, 2], a])]
C_FORMS = [("vectors", lambda a, b, s: np.s_[a, a]), ("matrix-vector", lambda a, b, s: np.s_[b.T, a, 0:3]),
           ("scalars", lambda a, b, s: np.s_[s, 2.0, s])]


def _operands():
    return np.array([0.5, -1.0, 2.0]), X, np.float64(0.25)


@pytest.mark.parametrize("which, label, key", [("r_", *f) for f in R_FORMS] + [("c_", *f) for f in C_FORMS],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_r_and_c_agree_with_numpy_eagerly_and_traced(which, label, key):
    ours, theirs = getattr(fnp, which), getattr(np, which)
    want = theirs[key(*_operands())]
    assert_same_arrays(ours[key(*_operands())], want)
    assert_same_arrays(frame.function(lambda a, b, s: ours[key(a, b, s)])(*_operands()), want)


@pytest.mark.parametrize("which, label, key", [("r_", *R_FORMS[2]), ("r_", *R_FORMS[5]), ("r_", *R_FORMS[8]),
                                                ("c_", *C_FORMS[1])], ids=lambda v: v if isinstance(v, str) else "")
def test_r_and_c_derivatives_match_jax(which, label, key):
    pytest.importorskip("jax")
    from frame.interop import check_derivatives
    check_derivatives(lambda a, b, s: fnp.sin(getattr(fnp, which)[key(a, b, s)]) ** 2, *_operands(),
                      argnums=(0, 1, 2), orders=(1, 2), rtol=1e-12, atol=1e-12)


def test_r_and_c_refuse_what_they_do_not_do_by_name():
    a = np.ones(3)
    with pytest.raises(ShapeError, match="fnp.r_: the matrix directives 'r' and 'c'"):
        fnp.r_["r", a, a]
    with pytest.raises(ShapeError, match="fnp.r_: unknown directive 'x,1'"):
        fnp.r_["x,1", a]
    with pytest.raises(ShapeError, match="fnp.c_: a directive string must come first, got '0' later"):
        fnp.c_[a, "0"]
    with pytest.raises(ShapeError, match=r"fnp.r_\[...\] needs at least one"):
        fnp.r_[()]
    with pytest.raises(TraceError, match="fnp.r_: a slice's bounds and step must be concrete"):
        frame.trace(lambda n: fnp.r_[0:n], np.float64(3.0))


def test_packbits_and_unpackbits_refuse_by_name_and_round_trip_traced():
    with pytest.raises(ShapeError, match=r"fnp.packbits takes bool or integer arrays, got float64\(2, 3\)"):
        fnp.packbits(X)
    with pytest.raises(ShapeError, match="fnp.unpackbits: bitorder must be 'big' or 'little', got 'middle'"):
        fnp.unpackbits(np.arange(3), bitorder="middle")
    with pytest.raises(ShapeError, match="fnp.unpackbits: count must be an int or None"):
        fnp.unpackbits(np.arange(3), count=2.0)
    bits = np.random.default_rng(0).random((4, 13)) < 0.5
    round_trip = frame.function(lambda b: fnp.unpackbits(fnp.packbits(b, axis=1), axis=1, count=13))(bits)
    assert_same_arrays(round_trip, bits.astype("int32"))
    assert_same_arrays(np.packbits(frame.function(lambda b: b)(bits)).astype("int32"), fnp.packbits(bits))


def test_packbits_traces_under_grad_as_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = np.array([0.5, -1.0, 2.0, 0.25, -3.0, 1.0, 1.5, -0.5, 2.5])

    def f(x, np_):   # packbits of a traced mask weights the first two elements
        return np_.sum(x[:2] ** 2 * np_.packbits(x > 0).astype(x.dtype))
    np.testing.assert_allclose(frame.grad(lambda x: f(x, fnp))(x), jax.grad(lambda x: f(x, jnp))(x),
                               rtol=1e-15, atol=0)


def test_einsum_path_answers_from_shapes_also_for_traced_operands():
    a, b, c = np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5))
    for args, kw in [(("ij,jk,kl->il", a, b, c), {}), (("ij,jk,kl->il", a, b, c), {"optimize": "optimal"}),
                     ((a, [0, 1], b, [1, 2], [0, 2]), {}), (("ij,jk", a, b), {"optimize": ["einsum_path", (0, 1)]})]:
        want = np.einsum_path(*args, **kw)
        assert fnp.einsum_path(*args, **kw) == want
        seen = []
        arrays = [i for i, x in enumerate(args) if isinstance(x, np.ndarray)]

        def f(*xs, args=args, kw=kw, arrays=arrays):
            full = list(args)
            for i, x in zip(arrays, xs):
                full[i] = x
            seen.append(fnp.einsum_path(*full, **kw))
            seen.append(np.einsum_path(*full, **kw))   # numpy's, routed to frame's for traced operands
            return fnp.sum(xs[0])
        frame.trace(f, *[args[i] for i in arrays])
        assert seen == [want, want]


def test_printing_is_numpys_for_concrete_values_and_refused_for_traced_ones():
    y = np.array([1.0 / 3.0, 2e-9, 5.0])
    assert fnp.array_repr(y) == np.array_repr(y) and fnp.array_str(y, precision=2) == np.array_str(y, precision=2)
    assert fnp.array_repr(y, 20, 3, True) == np.array_repr(y, 20, 3, True)
    before = fnp.get_printoptions()
    with fnp.printoptions(precision=3, suppress=True):
        assert fnp.get_printoptions()["precision"] == 3 and fnp.array_str(y) == np.array_str(y) == "[0.333 0.    5.   ]"
    assert fnp.get_printoptions() == before == np.get_printoptions()
    fnp.set_printoptions(precision=4)
    try:
        assert np.get_printoptions()["precision"] == 4
    finally:
        fnp.set_printoptions(**before)
    for call in (fnp.array_repr, fnp.array_str, np.array_repr, np.array_str):
        with pytest.raises(TraceError, match=f"fnp.{call.__name__} needs concrete values"):
            frame.trace(lambda t: call(t) and t, y)
