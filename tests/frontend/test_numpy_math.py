"""frame.numpy's elementwise math beyond the agreement table: operators, integer semantics (zero
divisors), nan/inf edge cases, refusals, and the derivatives at the special points of sinc and power."""
import warnings

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import ShapeError, TraceError


def _both(fn, *args):
    """fn eagerly and compiled, each with numpy's warnings silenced (numpy itself warns on these inputs)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args), frame.function(fn)(*args)


def assert_same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_division_by_zero_gives_numpys_zeros(dtype):
    a = np.array([7, -7, 0, 5, np.iinfo(dtype).min], dtype)
    b = np.array([0, 0, 0, -2, -1], dtype)
    with np.errstate(all="ignore"):
        want = [np.floor_divide(a, b), np.remainder(a, b), np.fmod(a, b)]
    for got in _both(lambda x, y: (x // y, x % y, fnp.fmod(x, y)), a, b):
        for g, w in zip(got, want):
            assert_same(g, w)


def test_float_remainders_at_zero_and_infinity_are_numpys():
    a = np.array([5.5, -5.5, 1.0, np.inf, 3.0, -0.0, np.nan, 2.0])
    b = np.array([0.0, 2.0, -np.inf, 2.0, np.inf, 3.0, 1.0, -3.0])
    with np.errstate(all="ignore"):
        want = [np.remainder(a, b), np.floor_divide(a, b), np.fmod(a, b)]
    for got in _both(lambda x, y: (fnp.mod(x, y), fnp.floor_divide(x, y), fnp.fmod(x, y)), a, b):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
            assert np.array_equal(np.signbit(g), np.signbit(w)), (g, w)   # -0.0 where numpy has it


def test_operators_and_ufuncs_reach_the_ops():
    x, y = np.array([5.5, -3.0, 7.0]), np.array([2.0, 2.0, -4.0])
    graph = frame.trace(lambda a, b: (a % b, a // b, 3.0 % b, 3.0 // b, np.remainder(a, b), np.floor_divide(a, b),
                                      np.arctan2(a, b), np.floor(a), a ** b, 2.0 ** b, x ** b), x, y)
    ops = [n.op for n in graph.nodes if n.op != "constant"]
    assert ops == ["mod", "floor_divide", "mod", "floor_divide", "mod", "floor_divide", "arctan2", "floor",
                   "power", "power", "power"]
    outs = frame.runtime.compile(graph)(x, y)
    for got, want in zip(outs, (x % y, x // y, 3.0 % y, 3.0 // y, x % y, x // y, np.arctan2(x, y), np.floor(x),
                                x ** y, 2.0 ** y, x ** y)):   # the reflected forms keep the operand order
        np.testing.assert_array_equal(got, want)


def test_rounding_keeps_integers_and_bools_and_rint_promotes_them():
    i = np.array([-3, 0, 4], np.int32)
    for fn in (fnp.floor, fnp.ceil, fnp.trunc, fnp.fix):
        assert_same(fn(i), np.floor(i))
        assert_same(fn(np.array([True, False])), np.array([True, False]))
    assert_same(fnp.rint(i), np.rint(i))                         # float64, as numpy
    assert_same(fnp.round(i, 1), i)
    assert_same(fnp.round(np.array([15, 25, -35], np.int32), -1), np.round(np.array([15, 25, -35], np.int32), -1))


def test_rounding_of_special_values_keeps_signed_zeros():
    x = np.array([-0.5, -0.0, 0.4, -0.4, np.inf, -np.inf, np.nan, 2.5, -1e300])
    for fn, ref in [(fnp.floor, np.floor), (fnp.ceil, np.ceil), (fnp.trunc, np.trunc), (fnp.rint, np.rint),
                    (lambda v: fnp.round(v, 1), lambda v: np.round(v, 1))]:
        for got in _both(fn, x):
            np.testing.assert_array_equal(got, ref(x))
            assert np.array_equal(np.signbit(got), np.signbit(ref(x)))


def test_refusals_name_the_op():
    with pytest.raises(ShapeError, match="'tan' needs a float"):
        fnp.tan(np.array([1j]))
    with pytest.raises(ShapeError, match="'floor' does not take complex"):
        fnp.floor(np.array([1 + 1j]))
    with pytest.raises(ShapeError, match="'mod'"):    # numpy computes bools in int8, which frame lacks
        fnp.mod(np.array([True]), np.array([True]))
    with pytest.raises(ShapeError, match="'sinc' needs a float"):
        fnp.sinc(np.array([1, 2]))
    with pytest.raises(ShapeError, match="'power' needs a float"):
        fnp.power(np.array([2, 3]), np.array([1, 2]))
    with pytest.raises(ShapeError, match="decimals must be an int"):
        fnp.round(np.array([1.5]), 1.5)
    with pytest.raises(ShapeError, match="'power'.*do not broadcast"):
        fnp.power(np.ones(3), np.ones(4))


def test_special_functions_at_the_infinities():
    x = np.array([-np.inf, -30.0, 0.0, 30.0, np.inf, np.nan])
    from scipy import special
    for fn, ref in [(fnp.erf, special.erf), (fnp.erfc, special.erfc), (fnp.expm1, np.expm1), (fnp.sinc, np.sinc),
                    (fnp.arctan, np.arctan), (fnp.tan, np.tan)]:
        for got in _both(fn, x):
            np.testing.assert_array_equal(got, ref(x))
    a, b = np.array([np.inf, -np.inf, 1000.0, -1000.0]), np.array([1.0, -np.inf, 1000.0, 2.0])
    for got in _both(fnp.logaddexp, a, b):
        np.testing.assert_array_equal(got, np.logaddexp(a, b))
    np.testing.assert_allclose(frame.grad(lambda u: fnp.sum(fnp.logaddexp(u, b[2:])))(a[2:]), [0.5, 0.0],  # no overflow
                               rtol=1e-13)


def test_sinc_derivatives_at_and_near_zero():
    """Exact at 0 as JAX's rule; near 0 the series, where (cos(pi x) - sinc(x)) / x (JAX's off 0) cancels."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    x = np.array([0.0, 0.5, -1.3])
    first = frame.grad(lambda v: fnp.sum(fnp.sinc(v)))
    second = frame.grad(lambda v: fnp.sum(first(v)))
    with jax.enable_x64(True):
        d1 = jax.vmap(jax.grad(jnp.sinc))(x)
        d2 = jax.vmap(jax.grad(jax.grad(jnp.sinc)))(x)
    np.testing.assert_allclose(first(x), d1, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(second(x), d2, rtol=1e-9, atol=1e-12)
    assert first(x)[0] == 0.0 and second(x)[0] == pytest.approx(-np.pi ** 2 / 3, rel=1e-15)
    near = np.array([1e-9, -0.004, 0.0099])
    np.testing.assert_allclose(first(near), -np.pi ** 2 * near / 3 + np.pi ** 4 * near ** 3 / 30
                               - np.pi ** 6 * near ** 5 / 840, rtol=1e-12)


def test_power_derivatives_at_a_zero_base_and_a_zero_exponent_are_jaxs():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    a = np.array([0.0, 0.0, 2.0, 0.0, 1.5])
    b = np.array([2.0, 0.0, 0.0, 0.5, -1.0])
    ours = frame.grad(lambda u, v: fnp.sum(fnp.power(u, v)), argnums=(0, 1))(a, b)
    with jax.enable_x64(True):
        theirs = jax.grad(lambda u, v: jnp.sum(u ** v), argnums=(0, 1))(a, b)
    for g, w in zip(ours, theirs):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12)


def test_power_dispatch_keeps_pows_exponent_checks():
    x = np.array([1.0, 2.0], "float32")
    assert [n.op for n in frame.trace(lambda t: t ** 2.0, x).nodes] == ["pow"]
    assert "power" in [n.op for n in frame.trace(lambda t: fnp.power(t, t), x).nodes]
    widened = fnp.power(x, np.float64(2.0))          # a numpy scalar is strong: float64, as numpy
    assert widened.dtype == np.power(x, np.float64(2.0)).dtype == np.float64
    ints = np.arange(-3, 4)
    for p in (0, 1, 2, 5):
        assert_same(frame.function(lambda t: t ** p)(ints), ints ** p)
    assert_same(frame.function(lambda t: t ** 0.5)(np.arange(4)), np.arange(4) ** 0.5)
    with pytest.raises(ShapeError, match="negative integer powers"):
        frame.function(lambda t: t ** -1)(ints)
    with pytest.raises(ShapeError, match="must be a number or an array"):
        fnp.power(x, "2")
    assert_same(fnp.power(x, np.array([2.0, 0.5], "float32")), np.power(x, np.array([2.0, 0.5], "float32")))


# -- divmod, modf, ldexp, frexp: numpy's bits, signed zeros included -----------------------------------------
def assert_same_bits(got, want):
    """assert_same, and the signs agree too (signed zeros, the sign of a nan)."""
    assert_same(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want)), (got, want)


def test_modf_keeps_the_sign_of_zeros_and_infinities():
    x = np.array([-0.0, 0.0, -2.0, 2.0, -2.5, np.inf, -np.inf, np.nan, -1e-310, 1e308])
    for dtype in ("float64", "float32", "float16"):
        with np.errstate(over="ignore"):
            v = x.astype(dtype)
        want = np.modf(v)
        for got in _both(fnp.modf, v):
            for g, w in zip(got, want):
                assert_same_bits(g, w)


def test_ldexp_and_frexp_are_bit_exact_at_the_ends_of_the_range():
    rng = np.random.default_rng(1)
    powers = np.ldexp(1.0, np.arange(-1074, 1024))
    x = np.concatenate([powers, np.nextafter(powers, 0), -np.nextafter(powers, np.inf)[:-1],
                        rng.standard_normal(500) * 2.0 ** rng.integers(-1074, 1024, 500),
                        [0.0, -0.0, np.inf, -np.inf, np.nan]])
    with np.errstate(over="ignore"):
        for got in _both(fnp.frexp, x):
            for g, w in zip(got, np.frexp(x)):
                assert_same_bits(g, w)
        e = rng.integers(-2300, 2300, x.size)
        for got in _both(fnp.ldexp, x, e):
            assert_same_bits(got, np.ldexp(x, e))
        x32 = (rng.standard_normal(300) * 2.0 ** rng.integers(-149, 128, 300)).astype(np.float32)
        e32 = rng.integers(-300, 300, 300).astype(np.int32)
        for got in _both(fnp.ldexp, x32, e32):
            assert_same_bits(got, np.ldexp(x32, e32))
        for got in _both(fnp.frexp, x32):
            for g, w in zip(got, np.frexp(x32)):
                assert_same_bits(g, w)


def test_ldexp_derivative_is_the_power_of_two():
    e = np.array([-3, 0, 5])
    g = frame.grad(lambda v: fnp.sum(fnp.ldexp(v, e)))(np.array([0.3, -1.5, 2.0]))
    np.testing.assert_array_equal(g, np.ldexp(1.0, e))


def test_float_decompositions_refuse_what_numpy_refuses():
    with pytest.raises(ShapeError, match="op 'ldexp': the exponent x2 must be integers"):
        fnp.ldexp(np.ones(2), np.array([1.0, 2.0]))
    for fn in (fnp.modf, fnp.frexp, lambda z: fnp.ldexp(z, 1)):
        with pytest.raises(ShapeError, match="needs real numbers, got complex128"):
            fn(np.array([1j]))
    with pytest.raises(ShapeError, match="op 'positive'.*bool"):
        fnp.positive(np.array([True]))


# -- ediff1d, real_if_close ----------------------------------------------------------------------------
def test_ediff1d_refusals():
    with pytest.raises(ShapeError, match="op 'ediff1d': to_begin of dtype float64 cannot be cast to ary's int64"):
        fnp.ediff1d(np.arange(3), to_begin=0.5)
    with pytest.raises(ShapeError, match="op 'ediff1d': numpy does not subtract bools"):
        fnp.ediff1d(np.array([True, False]))


def test_real_if_close_decides_only_on_concrete_complex_values():
    z = np.array([1.5 + 1e-15j, 2.0])
    assert_same(fnp.real_if_close(z), np.real_if_close(z))
    x = np.array([1.0, 2.0])
    assert_same(frame.function(fnp.real_if_close)(x), x)
    with pytest.raises(TraceError, match=r"op 'real_if_close': whether a traced c128\[2\]"):
        frame.function(fnp.real_if_close)(z)


# -- polynomials -----------------------------------------------------------------------------------------
def test_poly_refusals():
    with pytest.raises(ShapeError, match="op 'poly': frame's eigenvalues take real matrices, got a complex128"):
        fnp.poly(np.eye(2) * 1j)
    with pytest.raises(ShapeError, match="op 'poly': seq_of_zeros must be 1-d"):
        fnp.poly(np.ones((2, 3)))
    with pytest.raises(TraceError, match=r"op 'poly': whether the coefficients of traced c128\[2\] roots"):
        frame.function(fnp.poly)(np.array([1j, -1j]))
    assert_same(fnp.poly(np.array([1j, -1j])), np.poly(np.array([1j, -1j])))   # concrete: real, as numpy


def test_polymul_trims_only_concrete_leading_zeros():
    a, b = np.array([0.0, 0.0, 1.0, 2.0]), np.array([3.0, 4.0])
    assert_same(fnp.polymul(a, b), np.polymul(a, b))
    traced = frame.function(fnp.polymul)(a, b)   # traced: the length stays, the product has the leading zeros
    assert traced.shape == (5,)
    assert_same(traced[2:], np.polymul(a, b))
    assert_same(traced[:2], np.zeros(2))


def test_polynomial_argument_refusals():
    with pytest.raises(ShapeError, match="op 'polyder': the order m must be >= 0"):
        fnp.polyder(np.ones(3), -1)
    with pytest.raises(ShapeError, match="op 'polyint': the order m must be >= 0"):
        fnp.polyint(np.ones(3), -1)
    with pytest.raises(ShapeError, match="op 'polyint': k must be a scalar or hold at least m = 3"):
        fnp.polyint(np.ones(3), 3, k=[1.0, 2.0])
    with pytest.raises(ShapeError, match="op 'polyder': p must be a 1-d array"):
        fnp.polyder(np.ones((2, 2)))
    with pytest.raises(ShapeError, match="op 'polymul': a polynomial must be 1-d"):
        fnp.polymul(np.ones((2, 2)), np.ones(2))
    with pytest.raises(ShapeError, match="op 'polyadd': only a 1-d polynomial can be padded"):
        fnp.polyadd(np.ones((2, 2)), np.ones(3))


def test_polyfit_refusals_and_rank_warning():
    x, y = np.linspace(-1, 1, 5), np.arange(5.0)
    with pytest.raises(ShapeError, match="op 'polyfit': expected deg >= 0"):
        fnp.polyfit(x, y, -1)
    with pytest.raises(ShapeError, match=r"op 'polyfit': y must be 1-d or 2-d with x's length, got shapes \(5,\) and \(4,\)"):
        fnp.polyfit(x, y[:4], 1)
    with pytest.raises(ShapeError, match="op 'polyfit': x must be a non-empty 1-d array"):
        fnp.polyfit(np.ones((5, 1)), y, 1)
    with pytest.raises(ShapeError, match="op 'polyfit': w must be 1-d with y's length"):
        fnp.polyfit(x, y, 1, w=np.ones(3))
    with pytest.raises(ShapeError, match="op 'polyfit': the number of data points .5. must exceed order .5."):
        fnp.polyfit(x, y, 4, cov=True)
    with pytest.raises(TraceError, match="op 'polyfit': deg must be a concrete int"):
        frame.function(lambda u, v, d: fnp.polyfit(u, v, d))(x, y, np.array(2))
    with pytest.warns(np.exceptions.RankWarning, match="poorly conditioned"):
        fnp.polyfit(np.ones(4), np.arange(4.0), 2)


def test_windows_take_a_static_length():
    assert_same(frame.function(lambda: fnp.hanning(6))(), np.hanning(6))
    with pytest.raises(TraceError, match="fnp.hamming: argument 0 must be static"):
        frame.function(fnp.hamming)(np.array(5))


def test_matvec_and_vecmat_shape_refusals():
    with pytest.raises(ShapeError, match=r"op 'matvec': needs x1 \(..., m, n\) and x2 \(..., n\).*\(3, 4\) and \(3,\)"):
        fnp.matvec(np.ones((3, 4)), np.ones(3))
    with pytest.raises(ShapeError, match=r"op 'vecmat': needs x1 \(..., n\) and x2 \(..., n, m\).*\(2, 3\) and \(4, 3, 2\)"):
        fnp.vecmat(np.ones((2, 3)), np.ones((4, 3, 2)))
    with pytest.raises(ShapeError, match="op 'matvec'"):
        fnp.matvec(np.ones(3), np.ones(3))


# -- dtype functions, gcd/lcm, spacing/nextafter, polydiv -----------------------------------------------------------
def test_dtype_functions_are_numpys_and_read_traced_values_by_their_dtype():
    assert fnp.promote_types("float32", "int64") == np.float64 and fnp.typename("d") == np.typename("d")
    assert fnp.issubdtype(np.float32, np.floating) and fnp.isdtype(np.dtype("int32"), "integral")
    assert fnp.min_scalar_type(300) == np.uint16 and fnp.min_scalar_type(np.ones(2, np.float32)) == np.float32
    assert fnp.common_type(np.ones(2, np.int32), np.ones(2, np.float16)) is np.float64
    seen = {}

    def f(x, s, b):
        seen.update(can_cast=fnp.can_cast(x, "float64"), can_cast_numpy=np.can_cast(x, "float16"),
                    min_scalar_type=fnp.min_scalar_type(x), min_bool=fnp.min_scalar_type(b),
                    common_type=fnp.common_type(x, np.ones(1, np.float16)), common_numpy=np.common_type(x, s),
                    mintypecode=fnp.mintypecode([x, "D"]), result_type=fnp.result_type(x, s, 1.0))
        return x

    frame.function(f)(np.ones(3, np.float32), np.array(2, np.int32), np.array(True))
    assert seen == dict(can_cast=True, can_cast_numpy=False, min_scalar_type=np.float32, min_bool=np.bool_,
                        common_type=np.float32, common_numpy=np.float64, mintypecode="D", result_type=np.float64)
    for call in (fnp.min_scalar_type, np.min_scalar_type):   # numpy's answer for a scalar depends on its value
        with pytest.raises(TraceError, match=r"op 'min_scalar_type': .*traced scalar i32\[\] depends on its value"):
            frame.trace(call, np.array(2, np.int32))


def test_gcd_and_lcm_trace_and_refuse_what_numpy_refuses():
    a, b = np.array([12, -18, 0, 7], np.int32), np.array([[8], [0]], np.int64)
    for name in ("gcd", "lcm"):
        for got in _both(lambda x, y: getattr(np, name)(x, y), a, b):   # numpy's ufunc on tracers runs frame's
            assert_same(got, getattr(np, name)(a, b))
        with pytest.raises(ShapeError, match=f"op '{name}': numpy has no {name} of operands of dtypes float64, int32"):
            getattr(fnp, name)(np.ones(2), a[:2])
        with pytest.raises(ShapeError, match=f"op '{name}': numpy has no {name} of operands of dtypes bool, bool"):
            getattr(fnp, name)(np.ones(2, bool), True)
        with pytest.raises(ShapeError, match=f"op '{name}': numpy has no {name} .*out of bounds for int32"):
            getattr(fnp, name)(a, 2 ** 40)
    graph = frame.trace(fnp.gcd, a, a)   # Euclid unrolled, one fmod a step: 44 for int32, 90 for int64
    assert sum(n.op == "fmod" for n in graph.nodes) == 44
    assert sum(n.op == "fmod" for n in frame.trace(fnp.gcd, b, b).nodes) == 90


def test_spacing_and_nextafter_have_zero_derivatives_and_refuse_complex():
    x = np.array([0.5, -1.0, 3.0])
    g_spacing = frame.grad(lambda t: fnp.sum(fnp.spacing(t)))(x)
    g_next = frame.grad(lambda s, t: fnp.sum(fnp.nextafter(s, t)), argnums=(0, 1))(x, -x)
    for g in (g_spacing, *g_next):
        assert_same(g, np.zeros(3))
    with pytest.raises(ShapeError, match="op 'spacing': needs real numbers, got complex128"):
        fnp.spacing(np.ones(2, complex))
    with pytest.raises(ShapeError, match="op 'nextafter': numpy has no nextafter of operands of dtypes complex128"):
        fnp.nextafter(np.ones(2, complex), 1.0)
    for got in _both(lambda s, t: np.nextafter(s, t), x, -x):   # numpy's ufunc on tracers runs frame's
        assert_same(got, np.nextafter(x, -x))


def test_polydiv_trims_a_concrete_remainder_by_value_and_a_traced_one_by_length():
    u, v = np.array([1.0, 0.0, 1e-9, 1.0]), np.array([1.0, 0.0, 0.0])   # remainder [0, 0, 1e-9, 1]
    q, r = fnp.polydiv(u, v)
    want_q, want_r = np.polydiv(u, v)
    assert_same(q, want_q)
    assert_same(r, want_r)                                    # numpy drops the 1e-9 as zero too: [1.]
    q, r = frame.function(fnp.polydiv)(u, v)
    assert_same(q, want_q)
    assert_same(r, np.array([1e-9, 1.0]))                     # traced: the len(u) - len(v) + 1 leading ones go
    short = frame.function(fnp.polydiv)(np.array([0.0, 2.0]), np.array([1.0, 1.0, 1.0]))
    assert_same(short[0], np.zeros(1))
    assert_same(short[1], np.array([0.0, 2.0]))               # u itself (numpy: [2.])
    with pytest.raises(ShapeError, match=r"op 'polydiv': u and v must be non-empty 1-d .* shapes \(0,\) and \(2,\)"):
        fnp.polydiv(np.zeros(0), np.ones(2))
    with pytest.raises(ShapeError, match=r"op 'polydiv': .* shapes \(2, 2\) and \(2,\)"):
        fnp.polydiv(np.ones((2, 2)), np.ones(2))
