"""frame.scipy.fft (dct, idct, dctn, idctn) against scipy.fft: values for every type, norm and orthogonalize, shapes,
axes and lengths, eagerly and under frame.function, scipy's dtypes, round trips; first and second derivatives
against jax.scipy.fft where JAX has the setting (type 2), and frame's derivative rules against JAX's
differentiation of the lowered graph for the other types; bad arguments refused by name.

Value tolerances are relative to the largest entry of the result (atol = rtol * max|want|): an FFT's rounding
error is that of its largest terms, so entries that cancel to near zero carry it as an absolute error."""
import numpy as np
import pytest
import scipy.fft as S

import frame
import frame.numpy as fnp
import frame.scipy.fft as F
from frame.errors import ShapeError

_rng = np.random.default_rng(0)
NORMS = [None, "backward", "ortho", "forward"]


def assert_close_to(got, want, rtol):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale)


def assert_matches_scipy(name, x, rtol=1e-13, **kw):
    """Eager and traced results equal scipy.fft's `name` (values, shape and dtype)."""
    want = getattr(S, name)(x, **kw)
    assert_close_to(getattr(F, name)(x, **kw), want, rtol)
    assert_close_to(frame.function(lambda a: getattr(F, name)(a, **kw))(x), want, rtol)


# -- values ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["dct", "idct"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", NORMS)
def test_1d_matches_scipy(name, type, norm):
    for shape, axis, n in [((7,), -1, None), ((3, 8), 1, None), ((5, 4), 0, None), ((2, 3, 6), 1, 5),
                           ((4, 5), -1, 9), ((2,), 0, None), ((6, 2), 0, 2)]:
        x = _rng.normal(size=shape)
        assert_matches_scipy(name, x, type=type, n=n, axis=axis, norm=norm)


@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("orthogonalize", [True, False])
def test_orthogonalize_matches_scipy(type, orthogonalize):
    x = _rng.normal(size=(3, 6))
    for name in ("dct", "idct"):
        for norm in ("backward", "ortho"):
            assert_matches_scipy(name, x, type=type, norm=norm, orthogonalize=orthogonalize)


@pytest.mark.parametrize("name", ["dctn", "idctn"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_nd_matches_scipy(name, type):
    x = _rng.normal(size=(3, 4, 5))
    for kw in [{}, {"axes": (0, 2)}, {"axes": -1}, {"s": (4, 6)}, {"s": (2, -1), "axes": (2, 0)},
               {"s": 7, "axes": 1}, {"axes": ()}, {"norm": "ortho"}, {"norm": "forward", "axes": (1, 0)}]:
        assert_matches_scipy(name, x, type=type, **kw)


@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_float32_computes_in_float32(type):
    x = _rng.normal(size=(4, 6)).astype(np.float32)
    # single precision: scipy's pocketfft and the 2N-point FFT route round differently, by a few float32 ulps
    assert_matches_scipy("dct", x, rtol=1e-6, type=type)
    assert_matches_scipy("idct", x, rtol=1e-6, type=type, norm="ortho", axis=0)
    assert_matches_scipy("dctn", x, rtol=1e-6, type=type, s=(5, 3))
    assert_matches_scipy("idctn", x, rtol=1e-6, type=type)


def test_dtypes_follow_scipy():
    ints = np.arange(6).reshape(2, 3)
    for x in (ints, ints.astype(bool), ints.astype(np.int32)):
        assert_matches_scipy("dct", x)
        assert_matches_scipy("idctn", x, type=3)
    assert_matches_scipy("dct", ints.astype(np.float16), rtol=1e-6)   # float16 computes in float32, as scipy's
    assert_matches_scipy("dct", [1.0, 2.0, 4.0], type=4)               # lists are arrays


@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_complex_operands_transform_real_and_imaginary_parts(type):
    z = _rng.normal(size=(3, 5)) + 1j * _rng.normal(size=(3, 5))
    assert_matches_scipy("dct", z, type=type, norm="ortho")
    assert_matches_scipy("idctn", z, type=type, s=(4, 6))
    assert_matches_scipy("dct", z.astype(np.complex64), rtol=1e-6, type=type)   # single precision, as above


@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", NORMS)
def test_round_trips(type, norm):
    x = _rng.normal(size=(4, 5))
    assert_close_to(F.idct(F.dct(x, type=type, norm=norm), type=type, norm=norm), x, 1e-13)
    assert_close_to(F.dct(F.idct(x, type=type, norm=norm, axis=0), type=type, norm=norm, axis=0), x, 1e-13)
    assert_close_to(frame.function(lambda a: F.idctn(F.dctn(a, type=type, norm=norm), type=type, norm=norm))(x),
                    x, 1e-13)


def test_ortho_transforms_are_orthogonal():
    eye = np.eye(6)
    for type in (1, 2, 3, 4):
        m = np.asarray(F.dct(eye, type=type, norm="ortho", axis=0))
        assert_close_to(m.T @ m, eye, 1e-14)


# -- derivatives ------------------------------------------------------------------------------------------
_W = _rng.normal(size=(8, 8))

# settings jax.scipy.fft has (type 2, norm None/"ortho"): (function name, kwargs, operand shape)
JAX_CASES = [
    ("dct", {}, (3, 5)), ("dct", {"norm": "ortho", "axis": 0}, (4, 3)), ("dct", {"n": 7}, (3, 5)),
    ("dct", {"n": 3, "norm": "ortho"}, (2, 6)), ("idct", {}, (3, 5)), ("idct", {"norm": "ortho", "axis": 0}, (5, 2)),
    ("idct", {"n": 7}, (3, 4)), ("dctn", {}, (3, 4)), ("dctn", {"norm": "ortho", "s": (4, 2)}, (3, 4)),
    ("dctn", {"axes": (2, 0)}, (2, 3, 2)), ("idctn", {"norm": "ortho"}, (3, 4)), ("idctn", {"s": (2, 5)}, (3, 4)),
]


def _nonlinear(module, sin, total, name, kw):
    """A scalar function of x through the transform, so the Hessian is not zero: sum(w * sin(T(x)))."""
    def f(x):
        y = getattr(module, name)(x, **kw)
        return total(sin(y) * _W[tuple(slice(0, d) for d in y.shape)] if y.ndim == 2 else sin(y))
    return f


@pytest.mark.parametrize("name,kw,shape", JAX_CASES)
def test_derivatives_match_jax_scipy_fft(name, kw, shape):
    jax = pytest.importorskip("jax")
    x = _rng.normal(size=shape)
    ours = _nonlinear(F, fnp.sin, fnp.sum, name, kw)
    with jax.enable_x64(True):
        theirs = _nonlinear(jax.scipy.fft, jax.numpy.sin, jax.numpy.sum, name, kw)
        v = _rng.normal(size=shape)
        # one jit for all four (op-by-op JAX takes seconds per case)
        oracle = jax.jit(lambda a, b: (theirs(a), jax.grad(theirs)(a), jax.hessian(theirs)(a),
                                       jax.jvp(jax.grad(theirs), (a,), (b,))[1]))
        want_value, want_grad, want_hess, want_hvp = (np.asarray(t) for t in oracle(x, v))
    np.testing.assert_allclose(float(ours(x)), want_value, rtol=1e-13)
    assert_close_to(frame.grad(ours)(x), want_grad, 1e-12)
    assert_close_to(frame.function(frame.grad(ours))(x), want_grad, 1e-12)
    assert_close_to(frame.hessian(ours)(x), want_hess, 1e-12)
    assert_close_to(frame.jvp(frame.grad(ours), (x,), (v,))[1], want_hvp, 1e-12)


@pytest.mark.parametrize("type", [1, 3, 4])
def test_derivatives_of_other_types_match_jax(type):
    """JAX has no DCT of types 1, 3, 4: frame's rules against JAX's differentiation of frame's lowered graph."""
    pytest.importorskip("jax")
    from frame.interop import check_derivatives
    x = _rng.normal(size=(3, 4))
    for name, kw in [("dct", {"norm": "ortho", "n": 5}), ("idct", {"axis": 0}), ("dctn", {"s": (4, 3)}),
                     ("idctn", {"norm": "forward"})]:
        check_derivatives(lambda a: fnp.sin(getattr(F, name)(a, type=type, **kw)), x, orders=(1, 2),
                          rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_gradient_is_the_transpose(type):
    """The transform is linear: the gradient of sum(w * dct(x)) is dct's matrix transposed times w."""
    x, w = _rng.normal(size=6), _rng.normal(size=8)
    matrix = S.dct(np.eye(6), type=type, n=8, norm="ortho", axis=0)   # column j: the transform of e_j
    got = frame.grad(lambda a: fnp.sum(w * F.dct(a, type=type, n=8, norm="ortho")))(x)
    assert_close_to(got, matrix.T @ w, 1e-13)


# -- bad arguments ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["dct", "idct", "dctn", "idctn"])
def test_bad_arguments_raise_shape_error_by_name(name):
    x = np.ones((3, 4))
    fn = getattr(F, name)
    one = name in ("dct", "idct")
    for kw, match in [({"type": 5}, "type must be 1, 2, 3 or 4"), ({"type": True}, "type must be"),
                      ({"norm": "unitary"}, "invalid norm"), ({"orthogonalize": "yes"}, "orthogonalize"),
                      ({"axis": 2} if one else {"axes": (0, 2)}, "axis 2 is out of range"),
                      ({"axis": 1.0} if one else {"axes": 1.5}, "must be an integer"),
                      ({"n": 0} if one else {"s": (0, 4)}, r"invalid number of data points \(0\)"),
                      ({"type": 1, "n": 1} if one else {"type": 1, "s": (3, 1)}, "at least 2 points")]:
        with pytest.raises(ShapeError, match=rf"frame\.scipy\.fft\.{name}\b.*{match}"):
            fn(x, **kw)
        with pytest.raises(ShapeError, match=rf"frame\.scipy\.fft\.{name}\b"):
            frame.function(lambda a: fn(a, **kw))(x)
    if one:
        with pytest.raises(ShapeError, match=rf"frame\.scipy\.fft\.{name} needs an operand of rank >= 1"):
            fn(np.float64(2.0))
    else:
        with pytest.raises(ShapeError, match=rf"frame\.scipy\.fft\.{name}: all axes must be unique"):
            fn(x, axes=(1, -1))
        with pytest.raises(ShapeError, match=rf"frame\.scipy\.fft\.{name}: s=\(3,\) and axes=\(0, 1\)"):
            fn(x, s=(3,), axes=(0, 1))
        with pytest.raises(ShapeError, match=rf"frame\.scipy\.fft\.{name}: s=\(2, 2, 2\) has more entries"):
            fn(x, s=(2, 2, 2))
