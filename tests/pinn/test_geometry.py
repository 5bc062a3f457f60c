"""pinn.geometry: predicates against analytic answers, normals, samplers landing where they should, bad input."""
import math

import numpy as np
import pytest

from pinn import (Box, Disk, GeometryError, GeometryXTime, Hypercube, Interval, Polygon, Rectangle, SamplingError,
                  TimeDomain)

L_SHAPE = [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]]   # area 3, perimeter 8, reflex corner at (1, 1)


def in_l_shape(p):
    x, y = p[:, 0], p[:, 1]
    return (x >= 0) & (y >= 0) & (x <= 2) & (y <= 2) & ~((x > 1) & (y > 1))


def test_interval_predicates_and_normals():
    g = Interval(-1, 2)
    x = np.array([[-1.0], [0.5], [2.0], [3.0], [-1.5]])
    assert g.inside(x).tolist() == [True, True, True, False, False]
    assert g.on_boundary(x).tolist() == [True, False, True, False, False]
    np.testing.assert_array_equal(g.boundary_normal(x), [[-1], [0], [1], [0], [0]])
    assert g.on_boundary(np.array([2.0])) is np.True_          # one point of shape (dim,) gives one bool
    np.testing.assert_array_equal(g.periodic_point(np.array([[-1.0], [2.0]]), 0), [[2.0], [-1.0]])
    np.testing.assert_allclose(g.uniform_points(4), [[-1], [0], [1], [2]])
    np.testing.assert_allclose(g.uniform_points(2, boundary=False), [[0], [1]])
    np.testing.assert_array_equal(g.random_boundary_points(2), [[-1], [2]])
    assert g.measure == 3 and g.dim == 1


def test_rectangle_predicates_normals_and_corners():
    g = Rectangle([0, 0], [2, 1])
    x = np.array([[1, 0.5], [0, 0.5], [2, 0.2], [1, 1], [0, 0], [2.5, 0.5]])
    assert g.inside(x).tolist() == [True, True, True, True, True, False]
    assert g.on_boundary(x).tolist() == [False, True, True, True, True, False]
    s = 1 / math.sqrt(2)
    np.testing.assert_allclose(g.boundary_normal(x), [[0, 0], [-1, 0], [1, 0], [0, 1], [-s, -s], [0, 0]])
    assert g.measure == 2 and g.boundary_measure == 6
    np.testing.assert_allclose(g.periodic_point(np.array([0.0, 0.3]), 0), [2.0, 0.3])


def test_rectangle_samplers():
    g = Rectangle([0, -1], [2, 1])
    for method in ("pseudo", "LHS", "Halton", "Hammersley", "Sobol"):
        p = g.random_points(200, method, seed=3)
        assert p.shape == (200, 2) and g.inside(p).all()
        b = g.random_boundary_points(100, method, seed=3)
        assert b.shape == (100, 2) and g.on_boundary(b).all()
    grid = g.uniform_points(200)
    assert 180 <= len(grid) <= 260 and g.inside(grid).all()
    # the perimeter walk: 12 points of a 2 x 2 square's perimeter 8 are 2/3 apart along it
    ub = g.uniform_boundary_points(12)
    assert g.on_boundary(ub).all() and len(np.unique(ub, axis=0)) == 12
    # points on each side in proportion to its length (2 : 2 : 2 : 2 here)
    b = g.random_boundary_points(4000, "Sobol", seed=0)
    bottom = np.isclose(b[:, 1], -1).mean()
    assert abs(bottom - 0.25) < 0.02


def test_box_faces_in_proportion_to_area():
    g = Box([0, 0, 0], [1, 2, 4])
    p = g.random_boundary_points(6000, "pseudo", seed=1)
    assert g.on_boundary(p).all()
    # faces z = 0 and z = 4 have area 2 each, out of 2 (2 + 4 + 8) = 28
    frac = np.mean(np.isclose(p[:, 2], 0) | np.isclose(p[:, 2], 4))
    assert abs(frac - 4 / 28) < 0.02
    n = g.boundary_normal(np.array([[0.5, 1.0, 4.0], [0.0, 1.0, 2.0]]))
    np.testing.assert_allclose(n, [[0, 0, 1], [-1, 0, 0]])
    u = g.uniform_boundary_points(200)
    assert g.on_boundary(u).all() and len(np.unique(u, axis=0)) == len(u)
    assert g.measure == 8 and Hypercube([0] * 4, [1] * 4).random_points(5, seed=0).shape == (5, 4)


def test_disk_predicates_normals_and_samplers():
    g = Disk([1, -1], 2)
    x = np.array([[1, -1], [3, -1], [1, 1], [2.5, 0.5], [3.5, -1]])
    r = np.linalg.norm(x - [1, -1], axis=1)
    assert g.inside(x).tolist() == (r <= 2).tolist()
    assert g.on_boundary(x).tolist() == np.isclose(r, 2).tolist()
    np.testing.assert_allclose(g.boundary_normal(x)[1:3], [[1, 0], [0, 1]])
    p = g.random_points(4000, "Halton", seed=0)
    assert g.inside(p).all()
    # area-preserving: the inner disk of radius 1 holds a quarter of the points
    assert abs(np.mean(np.linalg.norm(p - [1, -1], axis=1) <= 1) - 0.25) < 0.01
    u = g.uniform_points(500)
    assert len(u) == 500 and g.inside(u).all()
    b = g.random_boundary_points(50, "LHS", seed=2)
    assert g.on_boundary(b).all()
    np.testing.assert_allclose(np.linalg.norm(g.boundary_normal(b), axis=1), 1.0)


def test_polygon_inside_matches_the_l_shape():
    g = Polygon(L_SHAPE)
    assert g.area == pytest.approx(3.0) and g.boundary_measure == pytest.approx(8.0)
    rng = np.random.default_rng(0)
    x = rng.uniform(-0.5, 2.5, (5000, 2))
    np.testing.assert_array_equal(g.inside(x), in_l_shape(x))
    # the reflex corner and edge midpoints are on the boundary, with outward normals
    edges = np.array([[1.5, 1.0], [1.0, 1.5], [1.0, 1.0], [0.0, 1.0], [0.5, 0.5]])
    assert g.on_boundary(edges).tolist() == [True, True, True, True, False]
    s = 1 / math.sqrt(2)
    np.testing.assert_allclose(g.boundary_normal(edges), [[0, 1], [1, 0], [s, s], [-1, 0], [0, 0]], atol=1e-12)
    # clockwise vertices give the same polygon
    np.testing.assert_array_equal(Polygon(L_SHAPE[::-1]).inside(x), in_l_shape(x))


def test_polygon_samplers():
    g = Polygon(L_SHAPE)
    for method in ("pseudo", "LHS", "Sobol"):
        p = g.random_points(300, method, seed=1)
        assert p.shape == (300, 2) and in_l_shape(p).all()
    # uniform area density: the square [1, 2] x [0, 1] is a third of the area
    p = g.random_points(6000, "Halton", seed=0)
    assert abs(np.mean((p[:, 0] > 1)) - 1 / 3) < 0.02
    b = g.random_boundary_points(800, "pseudo", seed=0)
    assert g.on_boundary(b).all()
    ub = g.uniform_boundary_points(16)   # 8 / 16: every half unit from the first vertex
    np.testing.assert_allclose(ub[:5], [[0, 0], [0.5, 0], [1, 0], [1.5, 0], [2, 0]])
    grid = g.uniform_points(300)
    assert 250 <= len(grid) <= 350 and g.inside(grid).all()


@pytest.mark.parametrize("vertices, match", [
    ([[0, 0], [1, 1], [1, 0], [0, 1]], "intersect"),        # a bow tie
    ([[0, 0], [1, 0]], "V >= 3"),
    ([[0, 0], [1, 0], [2, 0]], "no area"),
    ([[0, 0], [1, 0], [1, 1], [0, 0]], "repeat the first vertex"),
    ([[0, 0], [1, 0], [1, 0], [0, 1]], "zero-length"),
])
def test_polygon_rejects_bad_vertices(vertices, match):
    with pytest.raises(GeometryError, match=match):
        Polygon(vertices)


def test_geometry_x_time():
    g = GeometryXTime(Rectangle([0, 0], [1, 1]), TimeDomain(0, 2))
    assert g.dim == 3
    x = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 1.0], [0.5, 0.5, 1.0], [0.5, 0.5, 2.5], [1.0, 1.0, 0.0]])
    assert g.inside(x).tolist() == [True, True, True, False, True]
    assert g.on_boundary(x).tolist() == [False, True, False, False, True]
    assert g.on_initial(x).tolist() == [True, False, False, False, True]
    np.testing.assert_allclose(g.boundary_normal(x[1]), [-1, 0, 0])
    for method in ("pseudo", "LHS", "Sobol"):
        assert g.inside(g.random_points(100, method, seed=0)).all()
        assert g.on_boundary(g.random_boundary_points(100, method, seed=0)).all()
        assert g.on_initial(g.random_initial_points(50, method, seed=0)).all()
    u = g.uniform_points(500)
    assert 400 <= len(u) <= 700 and g.inside(u).all()
    assert g.on_boundary(g.uniform_boundary_points(100)).all()
    assert g.on_initial(g.uniform_initial_points(30)).all()
    np.testing.assert_allclose(g.periodic_point(np.array([1.0, 0.3, 0.7]), 0), [0.0, 0.3, 0.7])
    # a non-box space: independent space and time streams, still inside
    gd = GeometryXTime(Disk([0, 0], 1), TimeDomain(0, 1))
    p = gd.random_points(200, "Halton", seed=0)
    assert gd.inside(p).all() and abs(np.corrcoef(np.linalg.norm(p[:, :2], axis=1), p[:, 2])[0, 1]) < 0.2


def test_bad_input_is_a_geometry_error():
    with pytest.raises(GeometryError, match=r"xmin < xmax"):
        Rectangle([0, 1], [1, 1])
    with pytest.raises(GeometryError, match="2 entries"):
        Rectangle([0, 0, 0], [1, 1, 1])
    with pytest.raises(GeometryError, match="radius > 0"):
        Disk([0, 0], -1)
    with pytest.raises(GeometryError, match=r"shape \(N, 2\)"):
        Rectangle([0, 0], [1, 1]).inside(np.zeros((3, 3)))
    with pytest.raises(GeometryError, match="NaN"):
        Disk([0, 0], 1).on_boundary(np.array([[np.nan, 0.0]]))
    with pytest.raises(GeometryError, match="periodic_point"):
        Disk([0, 0], 1).periodic_point(np.zeros((1, 2)), 0)
    with pytest.raises(SamplingError, match="unknown sampler"):
        Interval(0, 1).random_points(3, random="gaussian")
    with pytest.raises(SamplingError, match="int >= 0"):
        Interval(0, 1).random_points(-1)
