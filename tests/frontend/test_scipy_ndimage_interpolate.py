"""frame.scipy.ndimage.map_coordinates and frame.scipy.interpolate.RegularGridInterpolator against scipy's
(values, eagerly and under frame.function) and against jax.scipy's (first derivatives by jax.grad, and
JAX's own conventions where scipy has none: order 0's half-way rounding, integer inputs); the refusals
name the function."""
import jax
import jax.numpy as jnp
import jax.scipy.interpolate as JI
import jax.scipy.ndimage as JN
import numpy as np
import pytest
import scipy.interpolate as SI
import scipy.ndimage as SN

import frame
from frame import ShapeError, TraceError
from frame.scipy.interpolate import RegularGridInterpolator
from frame.scipy.ndimage import map_coordinates

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(0)
MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
# JAX's 'constant' and 'wrap' are scipy's 'grid-constant' and 'grid-wrap' (jax.scipy.ndimage's docstring)
SCIPY_MODE = {"constant": "grid-constant", "wrap": "grid-wrap"}
SHAPES = [(7,), (4, 5), (3, 4, 5)]


def assert_close(actual, expected, rtol=1e-12):
    """Equal to float64 rounding: relative to the largest magnitude (NaNs in the same places)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    scale = max(1.0, float(np.nanmax(np.abs(expected))) if np.isfinite(expected).any() else 1.0)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale)


def _coordinates(shape, n=8, integers_away=False):
    """Points inside and up to one input length outside on each side (every mode's wrapping is used)."""
    cs = [RNG.uniform(-s - 1, 2 * s + 1, n) for s in shape]
    if integers_away:   # keep off the nodes (and the half-way points), where the derivative jumps
        cs = [np.floor(c) + RNG.uniform(0.1, 0.4, n) + RNG.integers(0, 2, n) * 0.5 for c in cs]
    return cs


# -- map_coordinates: values --------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates_values_match_scipy(shape, order):
    x = RNG.normal(size=shape)
    cs = _coordinates(shape)
    traced = frame.function(lambda x, c, mode: map_coordinates(x, c, order, mode, cval=-0.75),
                            static_argnums=(2,))
    for mode in MODES:
        expected = SN.map_coordinates(x, np.array(cs), order=order, mode=SCIPY_MODE.get(mode, mode), cval=-0.75)
        assert_close(map_coordinates(x, cs, order, mode, cval=-0.75), expected)
        assert_close(traced(x, cs, mode), expected)


def test_map_coordinates_coordinate_array_and_broadcast_shapes():
    x = RNG.normal(size=(4, 5))
    c = np.stack([RNG.uniform(-1, 4, (2, 3)), RNG.uniform(-1, 5, (2, 3))])   # an (ndim, ...) array
    expected = SN.map_coordinates(x, c, order=1, mode="nearest")
    assert_close(map_coordinates(x, c, 1, "nearest"), expected)
    assert_close(frame.function(lambda x, c: map_coordinates(x, c, 1, "nearest"))(x, c), expected)
    assert_close(map_coordinates(x, [c[0], c[1][0]], 1, "nearest"),
                 SN.map_coordinates(x, np.stack(np.broadcast_arrays(c[0], c[1][0])), order=1, mode="nearest"))


def test_map_coordinates_follows_jax_rounding_and_dtypes():
    # order 0 rounds half away from zero (lax.round); integer inputs are rounded back: JAX's conventions
    x = np.arange(7.0) ** 2
    c = np.array([-0.5, 0.5, 1.5, 2.5, 0.49999999999999994, 5.5, 6.5])
    for mode in MODES:
        np.testing.assert_array_equal(map_coordinates(x, [c], 0, mode), JN.map_coordinates(x, [c], 0, mode))
    xi = np.arange(12).reshape(3, 4) * 3
    ci = [np.array([0.5, 1.25, 1.75]), np.array([0.5, 2.5, 1.1])]
    for order in (0, 1):
        got = map_coordinates(xi, ci, order, "reflect")
        assert got.dtype == xi.dtype
        np.testing.assert_array_equal(got, JN.map_coordinates(xi, ci, order, "reflect"))
    got = map_coordinates(x.astype(np.float32), [c], 1)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, JN.map_coordinates(x.astype(np.float32), [c], 1))
    # integer coordinates at order 1 are nodes
    np.testing.assert_array_equal(map_coordinates(x, [np.array([0, 3, 9])], 1), [0.0, 9.0, 0.0])


# -- map_coordinates: derivatives ---------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(7,), (3, 4, 5)], ids=str)
def test_map_coordinates_derivatives_match_jax(shape):
    x = RNG.normal(size=shape)
    cs = _coordinates(shape, integers_away=True)
    w = RNG.normal(size=cs[0].shape)
    for mode in MODES:
        for order in (0, 1):
            def f(x, *cs, m=mode, o=order):
                return (map_coordinates(x, list(cs), o, m, cval=0.3) * w).sum()

            def g(x, *cs, m=mode, o=order):
                return (JN.map_coordinates(x, list(cs), o, m, cval=0.3) * w).sum()

            # in the input and every coordinate (zero at order 0)
            args = tuple(range(1 + len(shape)))
            got, want = frame.grad(f, argnums=args)(x, *cs), jax.grad(g, argnums=args)(x, *cs)
            assert len(got) == len(want) == len(args)
            for a, b in zip(got, want):
                assert_close(a, b)


def test_map_coordinates_derivative_in_cval():
    # JAX's cval is a static argument (no jax.grad); the result is affine in cval, so its derivative is
    # the difference of scipy's values at cval = 1 and cval = 0
    x, cs = RNG.normal(size=(4, 5)), _coordinates((4, 5))
    f = lambda cv: map_coordinates(x, cs, 1, "constant", cv).sum()
    at = lambda cv: SN.map_coordinates(x, np.array(cs), order=1, mode="grid-constant", cval=cv).sum()
    assert_close(frame.grad(f)(0.5), at(1.0) - at(0.0))


# -- RegularGridInterpolator: values ----------------------------------------------------------------
def _grid(shape):
    return tuple(np.sort(RNG.uniform(0, 3, n)) for n in shape)


GRIDS = [((7,), 1), ((4, 5), 2), ((3, 4, 5), 3), ((4, 5, 2), 2)]   # (values' shape, grid dimension)


@pytest.mark.parametrize("shape,nd", GRIDS, ids=str)
@pytest.mark.parametrize("method", ["linear", "nearest"])
def test_regular_grid_values_match_scipy(shape, nd, method):
    points, v = _grid(shape[:nd]), RNG.normal(size=shape)
    xi = RNG.uniform(-0.5, 3.5, (3, 4, nd))     # some points outside the grid
    for fill in (np.nan, 2.5, None):
        expected = SI.RegularGridInterpolator(points, v, method, bounds_error=False, fill_value=fill)(xi)
        assert_close(RegularGridInterpolator(points, v, method, fill_value=fill)(xi), expected)
        traced = frame.function(lambda v, xi: RegularGridInterpolator(points, v, method, fill_value=fill)(xi))
        assert_close(traced(v, xi), expected)
    # the grids traced too (searchsorted on a traced grid)
    traced = frame.function(lambda p, v, xi: RegularGridInterpolator(p, v, method, fill_value=-1.0)(xi))
    assert_close(traced(points, v, xi), SI.RegularGridInterpolator(points, v, method, False, -1.0)(xi))


def test_regular_grid_point_forms_method_override_and_descending_grid():
    points, v = _grid((4, 5)), RNG.normal(size=(4, 5))
    x0, x1 = RNG.uniform(0, 3, (2, 3)), RNG.uniform(0, 3, (3,))
    ours, theirs = RegularGridInterpolator(points, v), SI.RegularGridInterpolator(points, v, bounds_error=False)
    assert_close(ours((x0, x1)), theirs((x0, x1)))                          # a tuple of coordinate arrays
    assert_close(ours(np.array([1.0, 2.0])), theirs(np.array([1.0, 2.0])))  # one point
    assert_close(ours(np.stack(np.broadcast_arrays(x0, x1), -1), method="nearest"),
                 theirs(np.stack(np.broadcast_arrays(x0, x1), -1), method="nearest"))
    g1 = np.sort(RNG.uniform(0, 3, 6))
    y = RNG.normal(size=6)
    xs = RNG.uniform(-1, 4, 9)
    assert_close(RegularGridInterpolator((g1,), y)(xs), SI.RegularGridInterpolator((g1,), y, bounds_error=False)(xs))
    desc = (points[0][::-1], points[1])                                     # scipy flips a descending axis
    assert_close(RegularGridInterpolator(desc, v[::-1])((x0, x1)), theirs((x0, x1)))


def test_regular_grid_bounds_error():
    points, v = _grid((4, 5)), RNG.normal(size=(4, 5))
    inside = np.array([[points[0][1], points[1][2]]])
    outside = np.array([[points[0][1], 3.5]])
    interp = RegularGridInterpolator(points, v, bounds_error=True)
    assert_close(interp(inside), SI.RegularGridInterpolator(points, v, bounds_error=True)(inside))
    with pytest.raises(ValueError):
        SI.RegularGridInterpolator(points, v, bounds_error=True)(outside)
    with pytest.raises(ShapeError, match="RegularGridInterpolator.*out of bounds in dimension 1"):
        interp(outside)
    with pytest.raises(TraceError, match="RegularGridInterpolator.*bounds_error"):
        frame.function(lambda xi: interp(xi))(inside)


# -- RegularGridInterpolator: derivatives -------------------------------------------------------------
@pytest.mark.parametrize("shape,nd", GRIDS[:3], ids=str)
def test_regular_grid_derivatives_match_jax(shape, nd):
    points, v = _grid(shape[:nd]), RNG.normal(size=shape)
    xi = RNG.uniform(-0.3, 3.3, (6, nd))    # random: off the nodes; some outside (filled or extrapolated)
    w = RNG.normal(size=6)
    for method in ("linear", "nearest"):
        for fill in (np.nan, None):
            def f(v, xi, m=method, fv=fill):
                r = RegularGridInterpolator(points, v, m, fill_value=fv)(xi)
                return (frame.numpy.where(frame.numpy.isnan(r), 0.0, r) * w).sum()

            def g(v, xi, m=method, fv=fill):
                r = JI.RegularGridInterpolator(tuple(map(jnp.asarray, points)), v, m, fill_value=fv)(xi)
                return (jnp.where(jnp.isnan(r), 0.0, r) * w).sum()

            got, want = frame.grad(f, argnums=(0, 1))(v, xi), jax.grad(g, argnums=(0, 1))(v, xi)
            assert_close(got[0], want[0])
            assert_close(got[1], want[1])


# -- refusals -------------------------------------------------------------------------------------------
def test_bad_input_names_the_function():
    x = np.zeros((3, 4))
    with pytest.raises(ShapeError, match="map_coordinates.*2 arrays, got 1"):
        map_coordinates(x, [np.zeros(3)], 1)
    with pytest.raises(ShapeError, match="map_coordinates.*order must be 0 or 1"):
        map_coordinates(x, [np.zeros(3)] * 2, 3)
    with pytest.raises(ShapeError, match="map_coordinates.*mode"):
        map_coordinates(x, [np.zeros(3)] * 2, 1, mode="grid-wrap")
    with pytest.raises(ShapeError, match="map_coordinates.*broadcast"):
        map_coordinates(x, [np.zeros(3), np.zeros(2)], 1)
    points = (np.arange(3.0), np.arange(4.0))
    with pytest.raises(ShapeError, match="RegularGridInterpolator.*method"):
        RegularGridInterpolator(points, x, method="cubic")
    with pytest.raises(ShapeError, match="RegularGridInterpolator.*method"):
        RegularGridInterpolator(points, x)(np.zeros((1, 2)), method="slinear")
    with pytest.raises(ShapeError, match="RegularGridInterpolator.*dimension 3.*dimension 2"):
        RegularGridInterpolator(points, x)(np.zeros((5, 3)))
    with pytest.raises(ShapeError, match="RegularGridInterpolator.*3 point arrays"):
        RegularGridInterpolator(points + (np.arange(2.0),), x)
    with pytest.raises(ShapeError, match="RegularGridInterpolator.*5 points in dimension 1"):
        RegularGridInterpolator((np.arange(3.0), np.arange(5.0)), x)
    with pytest.raises(ShapeError, match="RegularGridInterpolator.*strictly ascending"):
        RegularGridInterpolator((np.array([0.0, 2.0, 1.0]), np.arange(4.0)), x)
    with pytest.raises(ShapeError, match="RegularGridInterpolator.*fill_value"):
        RegularGridInterpolator(points, x, fill_value=1j)
