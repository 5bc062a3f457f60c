"""pinn.geometry's DeepXDE shapes beyond boxes, disks and polygons: Hypersphere, Sphere, Ellipse, Triangle,
PointCloud. Predicates and normals against analytic answers, measures against exact values, every sampler
landing where it should with the right count, uniformity (ball shells, ellipse arc length), seeds, bad
input, and the shapes inside CSG and GeometryXTime."""
import math

import numpy as np
import pytest

from pinn import (SAMPLERS, Box, Ellipse, GeometryError, GeometryXTime, Hypersphere, PointCloud, Polygon, Rectangle,
                  SamplingError, Sphere, TimeDomain, Triangle)

ELLIPSE = Ellipse([1.0, -0.5], 3.0, 1.0, math.pi / 6)     # turned by 30 degrees


def _turn(theta, v):
    c, s = math.cos(theta), math.sin(theta)
    return np.asarray(v, float) @ np.array([[c, -s], [s, c]]).T


def _arclength_fraction(e: Ellipse, p: np.ndarray, nodes: int = 200_000) -> np.ndarray:
    """Each boundary point's arc length from (a, 0) of the ellipse's frame as a fraction of the perimeter,
    from an independent fine polygon of the curve (not the class's table)."""
    y = _turn(-e.angle, p - e.center)
    t = np.mod(np.arctan2(y[:, 1] / e.semiminor, y[:, 0] / e.semimajor), 2 * np.pi)
    tt = np.linspace(0, 2 * np.pi, nodes + 1)
    poly = np.stack([e.semimajor * np.cos(tt), e.semiminor * np.sin(tt)], axis=1)
    s = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(poly, axis=0), axis=1))])
    return np.interp(t, tt, s) / s[-1]


# -- Hypersphere / Sphere

def test_sphere_predicates_normals_and_measures():
    g = Sphere([1, 0, -1], 2)
    d = 2 / math.sqrt(3)   # (1, 0, -1) + (d, d, d) is on the sphere, its normal (1, 1, 1) / sqrt 3
    x = np.array([[1, 0, -1], [3, 0, -1], [1, 2, -1], [1, 0, 1.5], [2, 1, -0.5], [1 + d, d, -1 + d]])
    r = np.linalg.norm(x - [1, 0, -1], axis=1)
    assert g.inside(x).tolist() == (r <= 2 + 1e-12).tolist() == [True, True, True, False, True, True]
    assert g.on_boundary(x).tolist() == [False, True, True, False, False, True]
    s = 1 / math.sqrt(3)
    np.testing.assert_allclose(g.boundary_normal(x), [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 0],
                                                      [s, s, s]], atol=1e-12)
    assert g.on_boundary(np.array([3 + 0.5 * g.tol, 0, -1])) and not g.on_boundary(np.array([3 + 2 * g.tol, 0, -1]))
    assert math.isclose(g.measure, 4 / 3 * math.pi * 8) and math.isclose(g.boundary_measure, 4 * math.pi * 4)
    h4 = Hypersphere([0, 0, 0, 0], 2)     # volume pi^2/2 R^4, surface 2 pi^2 R^3
    assert math.isclose(h4.measure, math.pi ** 2 / 2 * 16) and math.isclose(h4.boundary_measure, 2 * math.pi ** 2 * 8)
    h2 = Hypersphere([0, 0], 3)
    assert math.isclose(h2.measure, 9 * math.pi) and math.isclose(h2.boundary_measure, 6 * math.pi)
    assert isinstance(g, Hypersphere) and g.dim == 3 and h4.dim == 4
    np.testing.assert_array_equal(g.bbox[0], [-1, -2, -3])


@pytest.mark.parametrize("geometry", [Hypersphere([0.5, -1], 1.5), Sphere([0, 0, 1], 1), Hypersphere([0] * 5, 2)],
                         ids=["2d", "3d", "5d"])
def test_hypersphere_samplers_land_and_count(geometry):
    for method in SAMPLERS:
        p = geometry.random_points(300, method, seed=2)
        assert p.shape == (300, geometry.dim) and geometry.inside(p).all()
        b = geometry.random_boundary_points(150, method, seed=2)
        assert b.shape == (150, geometry.dim) and geometry.on_boundary(b).all()
    ub = geometry.uniform_boundary_points(200)
    assert ub.shape == (200, geometry.dim) and geometry.on_boundary(ub).all()
    for boundary in (True, False):
        u = geometry.uniform_points(1000, boundary=boundary)
        # a grid clipped to the ball: about n (the grid's discreteness in 5-d makes it coarse, hence 30 %)
        assert 700 <= len(u) <= 1300 and geometry.inside(u).all()
        assert geometry.on_boundary(u).any() == boundary
    assert geometry.uniform_points(0).shape == (0, geometry.dim)


@pytest.mark.parametrize("dim", [2, 3, 4])
def test_ball_fills_evenly(dim):
    # The inner ball of half the radius holds 1/2^d of the volume. With pseudo-random points the count inside
    # is binomial: n = 8000 gives a standard deviation sqrt(p (1 - p) / n) <= 0.0056, and 0.025 is 4.5 of them
    # (quasi-random samplers do far better; a radius drawn uniform instead of as u^(1/d) misses by 0.25 and more).
    g = Hypersphere([1.0] * dim, 2.0)
    for method in ("pseudo", "Sobol", "Hammersley"):
        p = g.random_points(8000, method, seed=5)
        r = np.linalg.norm(p - g.center, axis=1)
        assert abs(np.mean(r <= 1.0) - 0.5 ** dim) < 0.025, method
        # the directions: each half-space through the centre holds half, and the mean is the centre
        assert np.all(np.abs(np.mean(p > g.center, axis=0) - 0.5) < 0.025), method
        assert np.all(np.abs(p.mean(axis=0) - g.center) < 0.05), method
    # boundary: a cap z > R/2 of the 3-d sphere has a quarter of its area (Archimedes: (1 - 1/2) / 2);
    # in every dimension each coordinate's sign splits the sphere in half
    b = g.random_boundary_points(8000, "pseudo", seed=7)
    assert np.all(np.abs(np.mean(b > g.center, axis=0) - 0.5) < 0.025)
    if dim == 3:
        for pts in (b, g.uniform_boundary_points(8000)):
            assert abs(np.mean(pts[:, 2] - g.center[2] > 1.0) - 0.25) < 0.02
        # the Fibonacci sphere hits it to a point: its heights are equally spaced
        assert abs(np.mean(g.uniform_boundary_points(8000)[:, 2] - 1 > 1.0) - 0.25) < 1e-3
    grid = g.uniform_points(4000, boundary=False)
    assert abs(np.mean(np.linalg.norm(grid - g.center, axis=1) <= 1.0) - 0.5 ** dim) < 0.03


def test_hypersphere_seeds_and_bad_input():
    g = Sphere([0, 0, 0], 1)
    for method in ("pseudo", "Halton"):
        np.testing.assert_array_equal(g.random_points(50, method, seed=4), g.random_points(50, method, seed=4))
        assert not np.allclose(g.random_points(50, method, seed=4), g.random_points(50, method, seed=5))
        np.testing.assert_array_equal(g.random_boundary_points(20, method, seed=4),
                                      g.random_boundary_points(20, method, seed=4))
    h = Hypersphere([0] * 4, 1)   # the 4-d uniform boundary points are Halton with a fixed seed: the same each call
    np.testing.assert_array_equal(h.uniform_boundary_points(30), h.uniform_boundary_points(30))
    with pytest.raises(GeometryError, match=r"Sphere: center must have 3 entries, got 2"):
        Sphere([0, 0], 1)
    with pytest.raises(GeometryError, match=r"Hypersphere: center must have 2 or more entries"):
        Hypersphere([0], 1)
    with pytest.raises(GeometryError, match=r"Hypersphere: needs a finite center and a radius > 0"):
        Hypersphere([0, 0, 0], 0)
    with pytest.raises(GeometryError, match=r"Sphere: needs a finite center"):
        Sphere([0, np.nan, 0], 1)
    with pytest.raises(GeometryError, match=r"Sphere: x must have shape \(N, 3\)"):
        g.inside(np.zeros((4, 2)))
    with pytest.raises(SamplingError, match="unknown sampler"):
        g.random_points(5, "grid")


# -- Ellipse

def test_ellipse_predicates_and_normals_turned():
    e, a, b, th = ELLIPSE, 3.0, 1.0, math.pi / 6
    c = e.center
    ends = c + _turn(th, [[a, 0], [-a, 0], [0, b], [0, -b]])
    assert e.on_boundary(ends).all() and e.inside(ends).all()
    np.testing.assert_allclose(e.boundary_normal(ends), _turn(th, [[1, 0], [-1, 0], [0, 1], [0, -1]]), atol=1e-12)
    # a general point: the normal is the gradient (cos t / a, sin t / b), normalised, turned
    t = np.linspace(0.1, 6.2, 25)
    p = c + _turn(th, np.stack([a * np.cos(t), b * np.sin(t)], axis=1))
    grad = np.stack([np.cos(t) / a, np.sin(t) / b], axis=1)
    want = _turn(th, grad / np.linalg.norm(grad, axis=1, keepdims=True))
    assert e.on_boundary(p).all()
    np.testing.assert_allclose(e.boundary_normal(p), want, atol=1e-12)
    # just inside / outside along the normal: tol is a distance (half of it counts, twice it does not)
    assert e.on_boundary(p + 0.5 * e.tol * want).all() and e.on_boundary(p - 0.5 * e.tol * want).all()
    assert not e.on_boundary(p + 2 * e.tol * want).any() and not e.on_boundary(p - 2 * e.tol * want).any()
    assert not e.inside(p + 2 * e.tol * want).any() and e.inside(p - 2 * e.tol * want).all()
    # the unturned axis-aligned point (a, 0) from the centre is outside the turned ellipse; the centre inside
    assert not e.inside(c + np.array([a, 0])) and e.inside(c) and not e.on_boundary(c)
    assert e.inside(c + _turn(th, [2.9, 0])) and not e.inside(c + _turn(th, [0, 1.05]))
    np.testing.assert_allclose(e.boundary_normal(np.array([c, c + 0.5])), 0)
    # bounding box of the turned ellipse: half-widths sqrt(a^2 cos^2 + b^2 sin^2), sqrt(a^2 sin^2 + b^2 cos^2)
    hx, hy = math.sqrt(9 * 0.75 + 0.25), math.sqrt(9 * 0.25 + 0.75)
    np.testing.assert_allclose(e.bbox[1] - c, [hx, hy])


def test_ellipse_measures():
    e = ELLIPSE
    assert math.isclose(e.measure, math.pi * 3)
    t = np.linspace(0, 2 * np.pi, 400_001)
    poly = np.stack([3 * np.cos(t), np.sin(t)], axis=1)
    perimeter = np.sum(np.linalg.norm(np.diff(poly, axis=0), axis=1))   # 13.3648932...
    assert abs(e.boundary_measure - perimeter) < 1e-9 * perimeter
    circle = Ellipse([0, 0], 2, 2)
    assert math.isclose(circle.boundary_measure, 4 * math.pi) and math.isclose(circle.measure, 4 * math.pi)


def test_ellipse_samplers_land_and_count():
    e = ELLIPSE
    for method in SAMPLERS:
        p = e.random_points(300, method, seed=1)
        assert p.shape == (300, 2) and e.inside(p).all()
        b = e.random_boundary_points(150, method, seed=1)
        assert b.shape == (150, 2) and e.on_boundary(b).all()
    for boundary in (True, False):
        u = e.uniform_points(500, boundary)
        assert u.shape == (500, 2) and e.inside(u).all() and e.on_boundary(u[-1]) == boundary
    ub = e.uniform_boundary_points(100)
    assert ub.shape == (100, 2) and e.on_boundary(ub).all()
    # equal arc-length steps: chords between neighbours nearly equal (a chord falls short of its arc s by
    # s^3 k^2 / 24, at most 0.6 % here where the curvature k = a / b^2 = 3; exact arc lengths are checked below)
    chords = np.linalg.norm(np.diff(np.vstack([ub, ub[:1]]), axis=0), axis=1)
    assert chords.max() / chords.min() - 1 < 1e-2
    np.testing.assert_array_equal(e.random_points(40, "LHS", seed=9), e.random_points(40, "LHS", seed=9))
    assert not np.allclose(e.random_boundary_points(40, seed=9), e.random_boundary_points(40, seed=10))


def test_ellipse_uniform_in_area_and_arc_length():
    e = ELLIPSE
    n = 8000
    # interior: the inner similar ellipse of half the size holds a quarter, each quadrant of its frame a quarter
    # (binomial sd <= 0.0056 at n = 8000: 0.025 is 4.5 of them)
    for method in ("pseudo", "Halton"):
        p = e.random_points(n, method, seed=3)
        y = _turn(-e.angle, p - e.center)
        rho = np.hypot(y[:, 0] / 3, y[:, 1] / 1)
        assert abs(np.mean(rho <= 0.5) - 0.25) < 0.025
        assert abs(np.mean((y[:, 0] > 0) & (y[:, 1] > 0)) - 0.25) < 0.025
    # boundary: uniform in arc length. Each quarter of the perimeter, starting an eighth in (so that the quarters
    # are not the four symmetric quarter-ellipses, which a parameter-uniform sampler would fill evenly too),
    # holds a quarter of the points; sd sqrt(3/16 / 8000) = 0.0048, tolerance 0.025.

    def quarters(f):
        g = np.mod(f - 0.125, 1.0)
        return np.array([np.mean((g >= k / 4) & (g < (k + 1) / 4)) for k in range(4)])
    for method in ("pseudo", "Sobol"):
        f = _arclength_fraction(e, e.random_boundary_points(n, method, seed=4))
        assert np.all(np.abs(quarters(f) - 0.25) < 0.025), (method, quarters(f))
    # the check has power: points uniform in the parameter angle miss by about 0.07
    t = np.random.default_rng(0).random(n) * 2 * np.pi
    naive = e.center + _turn(e.angle, np.stack([3 * np.cos(t), np.sin(t)], axis=1))
    assert np.max(np.abs(quarters(_arclength_fraction(e, naive)) - 0.25)) > 0.05
    # the evenly spaced boundary points sit at arc-length fractions k / n
    m = 64
    f = _arclength_fraction(e, e.uniform_boundary_points(m))
    np.testing.assert_allclose(f, np.arange(m) / m, atol=1e-6)


def test_ellipse_bad_input():
    with pytest.raises(GeometryError, match=r"Ellipse: semiminor 2 exceeds semimajor 1"):
        Ellipse([0, 0], 1, 2)
    with pytest.raises(GeometryError, match=r"Ellipse: needs finite semi-axes > 0"):
        Ellipse([0, 0], 1, 0)
    with pytest.raises(GeometryError, match=r"Ellipse: needs finite semi-axes > 0 and a finite angle"):
        Ellipse([0, 0], 2, 1, math.inf)
    with pytest.raises(GeometryError, match=r"Ellipse: center must be 2 finite numbers, got shape \(3,\)"):
        Ellipse([0, 0, 0], 2, 1)
    with pytest.raises(GeometryError, match=r"Ellipse: center must be 2 numbers"):
        Ellipse("middle", 2, 1)
    with pytest.raises(GeometryError, match=r"Ellipse: x must have shape \(N, 2\)"):
        ELLIPSE.on_boundary(np.zeros((3, 3)))
    with pytest.raises(SamplingError, match="number of points"):
        ELLIPSE.random_points(-1)


# -- Triangle

def test_triangle_is_a_polygon_of_three_vertices():
    g = Triangle([0, 0], [0, 1], [2, 0])     # clockwise as given; area 1, perimeter 3 + sqrt 5
    assert isinstance(g, Polygon) and g.name == "Triangle" and len(g.vertices) == 3
    assert math.isclose(g.measure, 1.0) and math.isclose(g.boundary_measure, 3 + math.sqrt(5))
    x = np.array([[0.5, 0.25], [1, 0.5], [1, 1], [0, 0], [1, 0], [-0.1, 0.5]])
    assert g.inside(x).tolist() == [True, True, False, True, True, False]
    assert g.on_boundary(x).tolist() == [False, True, False, True, True, False]
    s5 = math.sqrt(5)
    n = g.boundary_normal(x)
    np.testing.assert_allclose(n[[1, 4, 2]], [[1 / s5, 2 / s5], [0, -1], [0, 0]], atol=1e-12)
    np.testing.assert_allclose(n[3], [-1 / math.sqrt(2), -1 / math.sqrt(2)], atol=1e-12)   # the corner
    for method in SAMPLERS:
        p = g.random_points(200, method, seed=0)
        assert p.shape == (200, 2) and g.inside(p).all()
        b = g.random_boundary_points(90, method, seed=0)
        assert b.shape == (90, 2) and g.on_boundary(b).all()
    # interior uniformity: the sub-triangle of the midpoints' corner (0,0),(1,0),(0,0.5) holds a quarter
    p = g.random_points(8000, "pseudo", seed=1)
    assert abs(np.mean(p[:, 0] + 2 * p[:, 1] <= 1) - 0.25) < 0.025
    np.testing.assert_array_equal(g.random_points(30, seed=2), g.random_points(30, seed=2))


def test_triangle_refuses_degenerate():
    for args in (([0, 0], [1, 1], [2, 2]), ([0, 0], [0, 0], [1, 0]), ([1, 1], [1, 1], [1, 1])):
        with pytest.raises(GeometryError, match=r"Triangle: the vertices .* coincident or collinear"):
            Triangle(*args)
    with pytest.raises(GeometryError, match=r"Triangle: x1, x2, x3 must be 2 numbers each"):
        Triangle([0, 0, 0], [1, 0, 0], [0, 1, 0])
    with pytest.raises(GeometryError, match=r"Triangle: the vertices .* contain NaN"):
        Triangle([0, 0], [1, np.nan], [0, 1])


# -- PointCloud

def _cloud():
    g = np.stack(np.meshgrid(np.linspace(0.1, 0.9, 9), np.linspace(0.1, 0.9, 9), indexing="ij"), -1).reshape(-1, 2)
    s = np.linspace(0, 1, 5)[:-1]
    boundary = np.concatenate([np.stack([s, 0 * s], 1), np.stack([1 + 0 * s, s], 1),
                               np.stack([1 - s, 1 + 0 * s], 1), np.stack([0 * s, 1 - s], 1)])
    normals = np.concatenate([np.tile([0, -1.0], (4, 1)), np.tile([2.0, 0], (4, 1)),   # (2, 0): normalised here
                              np.tile([0, 1.0], (4, 1)), np.tile([-1.0, 0], (4, 1))])
    return g, boundary, normals


def test_point_cloud_predicates_and_normals():
    pts, bpts, normals = _cloud()
    c = PointCloud(pts, bpts, normals)
    assert c.dim == 2 and len(c.domain_points) == 81 and len(c.boundary_points) == 16
    np.testing.assert_array_equal(c.bbox[0], [0, 0])
    np.testing.assert_array_equal(c.bbox[1], [1, 1])
    x = np.array([[0.5, 0.5], [0.55, 0.5], [1.0, 0.5], [0.0, 0.25], [2.0, 2.0], [0.5, 0.5 + 0.5 * c.tol]])
    assert c.inside(x).tolist() == [True, False, True, True, False, True]       # boundary points are inside
    assert c.on_boundary(x).tolist() == [False, False, True, True, False, False]
    np.testing.assert_allclose(c.boundary_normal(x), [[0, 0], [0, 0], [1, 0], [-1, 0], [0, 0], [0, 0]])
    # float32 round trip of the given points still counts
    assert c.inside(pts.astype(np.float32)).all() and c.on_boundary(bpts.astype(np.float32)).all()
    with pytest.raises(GeometryError, match="PointCloud: the measure of a point cloud is unknown"):
        c.measure
    with pytest.raises(GeometryError, match="PointCloud: the boundary measure"):
        c.boundary_measure


def test_point_cloud_samplers():
    pts, bpts, normals = _cloud()
    c = PointCloud(pts, bpts, normals)
    for method in SAMPLERS:
        p = c.random_points(50, method, seed=1)
        assert p.shape == (50, 2) and len(np.unique(p, axis=0)) == 50 and c.inside(p).all()
        assert not c.on_boundary(p).any()
        b = c.random_boundary_points(10, method, seed=1)
        assert b.shape == (10, 2) and len(np.unique(b, axis=0)) == 10 and c.on_boundary(b).all()
    np.testing.assert_array_equal(c.random_points(30, seed=3), c.random_points(30, seed=3))
    assert not np.array_equal(c.random_points(30, seed=3), c.random_points(30, seed=4))
    # more than there are: every point twice, then 38 distinct others
    big = c.random_points(200, seed=0)
    _, counts = np.unique(big, axis=0, return_counts=True)
    assert big.shape == (200, 2) and len(counts) == 81 and counts.min() == 2 and counts.max() == 3
    assert (counts == 3).sum() == 200 - 2 * 81
    assert c.random_boundary_points(40, seed=0).shape == (40, 2)
    # uniform: everything when n reaches the count, else an evenly spaced subset
    np.testing.assert_array_equal(c.uniform_points(500, boundary=False), pts)
    assert len(c.uniform_points(500)) == 81 + 16
    sub = c.uniform_points(27, boundary=False)
    np.testing.assert_array_equal(sub, pts[1::3])
    np.testing.assert_array_equal(c.uniform_boundary_points(4), bpts[[2, 6, 10, 14]])
    np.testing.assert_array_equal(c.uniform_boundary_points(99), bpts)


def test_point_cloud_without_boundary_and_bad_input():
    pts, bpts, normals = _cloud()
    c = PointCloud(pts)
    assert c.inside(pts).all()
    for call in (lambda: c.on_boundary(pts), lambda: c.random_boundary_points(3), lambda: c.uniform_boundary_points(3)):
        with pytest.raises(GeometryError, match="PointCloud: .* needs boundary_points"):
            call()
    with pytest.raises(GeometryError, match="PointCloud: boundary_normal needs boundary_normals"):
        PointCloud(pts, bpts).boundary_normal(bpts)
    with pytest.raises(GeometryError, match=r"PointCloud: points must have shape \(N, d\) with N >= 1, got \(5,\)"):
        PointCloud(np.zeros(5))
    with pytest.raises(GeometryError, match=r"PointCloud: boundary_points must have shape \(M, 2\) .* got \(3, 3\)"):
        PointCloud(pts, np.zeros((3, 3)))
    with pytest.raises(GeometryError, match=r"boundary_normals \(15, 2\) must match boundary_points \(16, 2\)"):
        PointCloud(pts, bpts, normals[:15])
    with pytest.raises(GeometryError, match="boundary_normals need boundary_points"):
        PointCloud(pts, None, normals)
    with pytest.raises(GeometryError, match="boundary normal 0 is zero"):
        PointCloud(pts, bpts, 0 * normals)
    with pytest.raises(GeometryError, match="points .* contain NaN"):
        PointCloud(np.array([[0.0, np.nan]]))
    with pytest.raises(SamplingError, match="unknown sampler"):
        c.random_points(3, "grid")


def test_point_cloud_in_time():
    # random sampling of a point cloud x time needs no measure; the uniform grid does (it sizes the time axis)
    pts, bpts, normals = _cloud()
    gt = GeometryXTime(PointCloud(pts, bpts, normals), TimeDomain(0, 1))
    p = gt.random_points(100, seed=0)
    assert p.shape == (100, 3) and gt.inside(p).all()
    b = gt.random_boundary_points(20, seed=0)
    assert gt.on_boundary(b).all()
    np.testing.assert_allclose(gt.boundary_normal(b)[:, 2], 0)
    assert gt.random_initial_points(10, seed=0).shape == (10, 3)
    with pytest.raises(GeometryError, match="measure of a point cloud is unknown"):
        gt.uniform_points(100)


# -- combinations

def test_csg_with_an_ellipse_and_a_sphere():
    hole = Ellipse([0, 0], 1, 0.5, math.pi / 4)
    plate = Rectangle([-2, -2], [2, 2]) - hole          # area 16 - pi/2, boundary 16 + the ellipse's perimeter
    p = plate.random_points(2000, "Sobol", seed=0)
    assert p.shape == (2000, 2) and plate.inside(p).all()
    assert not (hole.inside(p) & ~hole.on_boundary(p)).any()
    b = plate.random_boundary_points(400, "pseudo", seed=0)
    assert b.shape == (400, 2) and plate.on_boundary(b).all()
    on_hole = hole.on_boundary(b)
    # the hole's share of the boundary points is its share of the perimeter (2.42 / 18.42); binomial sd 0.017
    assert abs(on_hole.mean() - hole.boundary_measure / (16 + hole.boundary_measure)) < 0.06
    # normals on the hole point into it (out of the plate)
    np.testing.assert_allclose(plate.boundary_normal(b[on_hole]), -hole.boundary_normal(b[on_hole]), atol=1e-12)
    assert abs(plate.measure - (16 - math.pi / 2)) < 0.01 * 16
    assert abs(plate.boundary_measure - (16 + hole.boundary_measure)) < 0.02 * 18
    u = plate.uniform_points(500)
    assert plate.inside(u).all() and 350 <= len(u) <= 650
    # 3-d: a box with a spherical hole, and a triangle-minus-disk style 2-d intersection
    cube = Box([0, 0, 0], [2, 2, 2]) - Sphere([1, 1, 1], 0.5)
    q = cube.random_points(300, "Halton", seed=1)
    assert (np.linalg.norm(q - 1, axis=1) >= 0.5 - 1e-9).all()
    assert cube.on_boundary(cube.random_boundary_points(100, seed=1)).all()
    both = Triangle([-2, -2], [2, -2], [0, 2]) & Ellipse([0, 0], 1.5, 1)
    assert both.on_boundary(both.random_boundary_points(100, seed=2)).all()


def test_shapes_in_time():
    gt = GeometryXTime(Ellipse([0, 0], 2, 1, 0.3), TimeDomain(0, 2))
    assert math.isclose(gt.measure, 4 * math.pi)
    for sampler in (gt.random_points(100, "LHS", seed=0), gt.uniform_points(300)):
        assert gt.inside(sampler).all()
    assert gt.on_boundary(gt.random_boundary_points(50, seed=0)).all()
    assert gt.on_boundary(gt.uniform_boundary_points(60)).all()
    st = GeometryXTime(Sphere([0, 0, 0], 1), TimeDomain(0, 1))
    assert st.on_initial(st.random_initial_points(20, seed=0)).all()
