"""Geometries a PINN is posed on, as DeepXDE has them (`dde.geometry`): where points are and where to sample.

`Interval`, `Rectangle`, `Box` (`Cuboid`) and `Hypercube` (axis-aligned boxes), `Disk`,
`Hypersphere` (a ball in any dimension >= 2) and `Sphere` (its 3-D form), `Ellipse` (turned by an
angle), `Polygon` (simple polygons) and `Triangle`, `PointCloud` (a domain known only by points,
with no measure) and `GeometryXTime(geometry, TimeDomain(t0, t1))` (a space–time product). Every
geometry has

- `dim`, `bbox` (lower, upper), `measure` (length / area / volume), `boundary_measure`;
- predicates on points `x` of shape (N, dim) (or one point of shape (dim,)): `inside(x)` (the
  closed set: boundary points are inside), `on_boundary(x)`, `boundary_normal(x)` (the outward
  unit normal; at a corner the normalised sum of the faces' normals, as DeepXDE does; zero off the
  boundary), `periodic_point(x, component)` for boxes;
- samplers returning (n, dim) float64 arrays: `uniform_points(n, boundary=True)` (a grid; its
  size is close to n, not always n, as in DeepXDE), `random_points(n, random="pseudo", seed=None)`,
  `uniform_boundary_points(n)`, `random_boundary_points(n, random="pseudo", seed=None)`;
  `random=` names a sampler of `pinn.sampling` ("pseudo", "LHS", "Halton", "Hammersley", "Sobol").
  Non-box interiors are filled by rejection from the bounding box (Polygon) or by an
  area-preserving map of the unit square (Disk, Ellipse; Hypersphere maps the unit cube to radius
  and direction); boundaries by a perimeter parameter (arc length for Polygon and Ellipse).

Points count as on the boundary within `tol` (default 1e-6 of the geometry's diameter, so float32
points of a boundary still qualify). Bad input is a `GeometryError` naming the geometry and shapes.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from frame.errors import FrameError

from .sampling import Sampler, as_rng, check_count, rejection_sample, scale_to_box


class GeometryError(FrameError, ValueError):
    """A geometry was built from, or asked about, input it cannot take."""


#: the golden angle, the angular step of the sunflower (Vogel) spiral `Disk.uniform_points` lays out.
GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))


def _seed_pair(seed):
    """Two independent seeds from one (space and time streams of a product geometry)."""
    rng = as_rng(seed)
    return int(rng.integers(2 ** 63 - 1)), int(rng.integers(2 ** 63 - 1))


class Geometry:
    """Base class: the point checking and the predicates' shape conventions; subclasses implement
    `_inside`, `_on_boundary`, `_boundary_normal` on (N, dim) float64 arrays and the samplers."""

    dim: int = 0
    name = "Geometry"

    def __init__(self, dim: int, bbox, tol: float | None = None):
        self.dim = dim
        lower, upper = (np.asarray(b, dtype=np.float64).reshape(-1) for b in bbox)
        self.bbox = (lower, upper)
        self.diam = float(np.linalg.norm(upper - lower))
        self.tol = 1e-6 * self.diam if tol is None else float(tol)

    # -- point checking
    def points(self, x, what: str = "x") -> tuple[np.ndarray, bool]:
        """`x` as an (N, dim) float64 array, and whether it was one point of shape (dim,)."""
        try:
            a = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            raise GeometryError(f"{self.name}: {what} must be numeric points, got {type(x).__name__}") from None
        single = False
        if a.ndim == 0 and self.dim == 1:
            a, single = a.reshape(1, 1), True
        elif a.ndim == 1 and a.shape[0] == self.dim:   # one point (for dim 1: shape (1,))
            a, single = a.reshape(1, -1), True
        elif a.ndim == 1 and self.dim == 1:            # N points of a 1-D geometry
            a = a.reshape(-1, 1)
        if a.ndim != 2 or a.shape[1] != self.dim:
            raise GeometryError(f"{self.name}: {what} must have shape (N, {self.dim}) or ({self.dim},), got {a.shape}")
        if not np.isfinite(a).all():
            raise GeometryError(f"{self.name}: {what} (shape {a.shape}) contains NaN/Inf")
        return a, single

    def _predicate(self, fn, x):
        a, single = self.points(x)
        out = fn(a)
        return out[0] if single else out

    def inside(self, x):
        """True where x lies in the closed geometry (boundary included)."""
        return self._predicate(self._inside, x)

    def on_boundary(self, x):
        """True where x lies on the boundary (within `tol`)."""
        return self._predicate(self._on_boundary, x)

    def boundary_normal(self, x) -> np.ndarray:
        """Outward unit normals at x, shape like x; zero rows for points off the boundary."""
        return self._predicate(self._boundary_normal, x)

    def periodic_point(self, x, component: int) -> np.ndarray:
        raise GeometryError(f"{self.name}: periodic_point is defined for boxes (Interval, Rectangle, Box), "
                            f"not for a {self.name}")

    @property
    def measure(self) -> float:
        raise NotImplementedError

    @property
    def boundary_measure(self) -> float:
        raise NotImplementedError

    def _check_n(self, n) -> int:
        return check_count(f"{self.name}: the number of points", n)

    # constructive solid geometry, as DeepXDE's operators (pinn/csg.py)
    def __or__(self, other):
        from .csg import CSGUnion
        return CSGUnion(self, other)

    def __sub__(self, other):
        from .csg import CSGDifference
        return CSGDifference(self, other)

    def __and__(self, other):
        from .csg import CSGIntersection
        return CSGIntersection(self, other)

    def __repr__(self):
        return f"{self.name}(bbox={self.bbox[0].tolist()}..{self.bbox[1].tolist()})"


class Hypercube(Geometry):
    """The axis-aligned box [xmin, xmax] in any dimension (DeepXDE's `Hypercube`)."""

    name = "Hypercube"

    def __init__(self, xmin, xmax, tol: float | None = None):
        try:
            lower = np.asarray(xmin, dtype=np.float64).reshape(-1)
            upper = np.asarray(xmax, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise GeometryError(f"{self.name}: xmin and xmax must be numbers, got {xmin!r} and {xmax!r}") from None
        if lower.shape != upper.shape or lower.size == 0:
            raise GeometryError(f"{self.name}: xmin {lower.shape} and xmax {upper.shape} must have the same length")
        if not (np.isfinite(lower).all() and np.isfinite(upper).all()) or np.any(upper <= lower):
            raise GeometryError(f"{self.name}: needs finite xmin < xmax in every dimension, got {xmin!r}, {xmax!r}")
        super().__init__(lower.size, (lower, upper), tol)
        self.xmin, self.xmax = lower, upper
        self.side = upper - lower

    @property
    def measure(self) -> float:
        return float(np.prod(self.side))

    @property
    def boundary_measure(self) -> float:
        if self.dim == 1:
            return 2.0
        return float(sum(2 * np.prod(np.delete(self.side, k)) for k in range(self.dim)))

    def _at_low(self, x):
        return np.abs(x - self.xmin) <= self.tol

    def _at_high(self, x):
        return np.abs(x - self.xmax) <= self.tol

    def _inside(self, x):
        return np.all((x >= self.xmin - self.tol) & (x <= self.xmax + self.tol), axis=1)

    def _on_boundary(self, x):
        return self._inside(x) & np.any(self._at_low(x) | self._at_high(x), axis=1)

    def _boundary_normal(self, x):
        n = self._at_high(x).astype(np.float64) - self._at_low(x).astype(np.float64)
        n[~self._inside(x)] = 0.0
        norm = np.linalg.norm(n, axis=1, keepdims=True)
        return np.divide(n, norm, out=np.zeros_like(n), where=norm > 0)

    def periodic_point(self, x, component: int) -> np.ndarray:
        """x with coordinate `component` moved to the opposite face (xmin <-> xmax); others unchanged."""
        a, single = self.points(x)
        if isinstance(component, bool) or not isinstance(component, (int, np.integer)) or \
                not 0 <= component < self.dim:
            raise GeometryError(f"{self.name}.periodic_point: component must be an int in [0, {self.dim}), "
                                f"got {component!r}")
        y = a.copy()
        low, high = self._at_low(a)[:, component], self._at_high(a)[:, component]
        y[low, component] = self.xmax[component]
        y[high, component] = self.xmin[component]
        return y[0] if single else y

    def uniform_points(self, n: int, boundary: bool = True) -> np.ndarray:
        """A grid with about n points, spaced alike along every axis (boundary nodes with `boundary`)."""
        n = self._check_n(n)
        if n == 0:
            return np.zeros((0, self.dim))
        spacing = (self.measure / n) ** (1.0 / self.dim)
        axes = []
        for lo, hi, side in zip(self.xmin, self.xmax, self.side):
            k = max(1, int(math.ceil(side / spacing - 1e-9)))
            axes.append(np.linspace(lo, hi, k) if boundary else np.linspace(lo, hi, k + 1, endpoint=False)[1:])
        if self.dim == 1:  # exactly n in 1-D
            axes = [np.linspace(self.xmin[0], self.xmax[0], n) if boundary
                    else np.linspace(self.xmin[0], self.xmax[0], n + 2)[1:-1]]
        grid = np.meshgrid(*axes, indexing="ij")
        return np.stack([g.reshape(-1) for g in grid], axis=1)

    def random_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points of the box from sampler `random`, scaled from the unit cube."""
        return scale_to_box(Sampler(self.dim, random, seed).draw(self._check_n(n)), self.xmin, self.xmax)

    def _faces(self):
        """(axis, side 0/1, area) of every face, in a fixed order."""
        return [(k, s, float(np.prod(np.delete(self.side, k)))) for k in range(self.dim) for s in (0, 1)]

    def _on_face(self, k: int, s: int, coords: np.ndarray) -> np.ndarray:
        """Unit-cube coordinates (m, dim-1) of the other axes placed on face (k, s)."""
        others = [j for j in range(self.dim) if j != k]
        pts = np.empty((len(coords), self.dim))
        pts[:, others] = self.xmin[others] + coords * self.side[others]
        pts[:, k] = self.xmax[k] if s else self.xmin[k]
        return pts

    def uniform_boundary_points(self, n: int) -> np.ndarray:
        """About n points on the boundary, spaced evenly: 1-D alternates the two ends, 2-D walks the
        perimeter in n equal steps, higher dimensions lay a grid on each face in proportion to its area."""
        n = self._check_n(n)
        if self.dim == 1:
            return np.array([[self.xmin[0]] if i % 2 == 0 else [self.xmax[0]] for i in range(n)]).reshape(n, 1)
        if self.dim == 2:
            return self._perimeter_points(np.arange(n) / max(n, 1))
        pts = []
        for k, s, area in self._faces():
            m = max(1, int(round(n * area / self.boundary_measure)))
            face = Hypercube(np.zeros(self.dim - 1), np.ones(self.dim - 1)).uniform_points(m, boundary=True)
            pts.append(self._on_face(k, s, face))
        pts = np.concatenate(pts)
        # Edges shared by two faces appear twice; keep one copy of each point.
        return np.unique(np.round(pts, 12), axis=0)

    def _perimeter_points(self, u: np.ndarray) -> np.ndarray:
        """Points at fractions u in [0, 1) of the rectangle's perimeter, counter-clockwise from xmin."""
        (x0, y0), (x1, y1) = self.xmin, self.xmax
        w, h = self.side
        s = u * 2 * (w + h)
        pts = np.empty((len(u), 2))
        for lo, hi, fn in ((0, w, lambda t: (x0 + t, y0)), (w, w + h, lambda t: (x1, y0 + t)),
                           (w + h, 2 * w + h, lambda t: (x1 - t, y1)), (2 * w + h, np.inf, lambda t: (x0, y1 - t))):
            m = (s >= lo) & (s < hi)
            px, py = fn(s[m] - lo)
            pts[m, 0], pts[m, 1] = px, py
        return pts

    def random_boundary_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points on the boundary: a face chosen in proportion to its area, then a point on it (1-D:
        random ends, and both ends for n = 2)."""
        n = self._check_n(n)
        if self.dim == 1:
            if n == 2:   # both ends, as DeepXDE's Interval does
                return np.array([[self.xmin[0]], [self.xmax[0]]])
            ends = as_rng(seed).integers(0, 2, n)
            return np.where(ends == 1, self.xmax[0], self.xmin[0]).reshape(n, 1)
        if self.dim == 2:
            return self._perimeter_points(Sampler(1, random, seed).draw(n)[:, 0])
        u = Sampler(self.dim, random, seed).draw(n)
        faces = self._faces()
        edges = np.cumsum([a for _, _, a in faces]) / self.boundary_measure
        which = np.minimum(np.searchsorted(edges, u[:, 0], side="right"), len(faces) - 1)
        pts = np.empty((n, self.dim))
        for i, (k, s, _) in enumerate(faces):
            m = which == i
            pts[m] = self._on_face(k, s, u[m, 1:])
        return pts

    def __repr__(self):
        return f"{self.name}({self.xmin.tolist()}, {self.xmax.tolist()})"


class Interval(Hypercube):
    """[l, r] (DeepXDE's `Interval(l, r)`)."""

    name = "Interval"

    def __init__(self, l: float, r: float, tol: float | None = None):  # noqa: E741 (DeepXDE's names)
        super().__init__([l], [r], tol)
        self.l, self.r = float(self.xmin[0]), float(self.xmax[0])

    def __repr__(self):
        return f"{self.name}({self.l:g}, {self.r:g})"


class Rectangle(Hypercube):
    """[xmin[0], xmax[0]] x [xmin[1], xmax[1]] (DeepXDE's `Rectangle(xmin, xmax)`)."""

    name = "Rectangle"

    def __init__(self, xmin, xmax, tol: float | None = None):
        super().__init__(xmin, xmax, tol)
        if self.dim != 2:
            raise GeometryError(f"Rectangle: xmin and xmax need 2 entries each, got {self.dim}")


class Box(Hypercube):
    """A 3-D axis-aligned box (DeepXDE's `Cuboid(xmin, xmax)`; `pinn.Cuboid` is the same class)."""

    name = "Box"

    def __init__(self, xmin, xmax, tol: float | None = None):
        super().__init__(xmin, xmax, tol)
        if self.dim != 3:
            raise GeometryError(f"Box: xmin and xmax need 3 entries each, got {self.dim}")


Cuboid = Box


class BallPredicates:
    """Membership and normals of the closed ball |x - center| <= radius (Disk, Hypersphere): `center`, `radius`
    and `tol` set by the geometry."""

    def _distance(self, x):
        return np.linalg.norm(x - self.center, axis=1)

    def _inside(self, x):
        return self._distance(x) <= self.radius + self.tol

    def _on_boundary(self, x):
        return np.abs(self._distance(x) - self.radius) <= self.tol

    def _boundary_normal(self, x):
        n = (x - self.center) / np.maximum(self._distance(x), 1e-300)[:, None]
        n[~self._on_boundary(x)] = 0.0
        return n


class Disk(BallPredicates, Geometry):
    """The closed disk |x - center| <= radius (DeepXDE's `Disk(center, radius)`)."""

    name = "Disk"

    def __init__(self, center, radius: float, tol: float | None = None):
        try:
            c = np.asarray(center, dtype=np.float64).reshape(-1)
            r = float(radius)
        except (TypeError, ValueError):
            raise GeometryError(f"Disk: center must be 2 numbers and radius a number, got {center!r}, {radius!r}") \
                from None
        if c.shape != (2,) or not np.isfinite(c).all() or not (math.isfinite(r) and r > 0):
            raise GeometryError(f"Disk: needs a finite 2-D center and a radius > 0, got {center!r}, {radius!r}")
        super().__init__(2, (c - r, c + r), tol)
        self.center, self.radius = c, r

    @property
    def measure(self) -> float:
        return math.pi * self.radius ** 2

    @property
    def boundary_measure(self) -> float:
        return 2 * math.pi * self.radius

    def _polar(self, rho, theta):
        return self.center + np.stack([rho * np.cos(theta), rho * np.sin(theta)], axis=1)

    def uniform_points(self, n: int, boundary: bool = True) -> np.ndarray:
        """Exactly n points on a sunflower (Vogel) spiral: equal area per point, no grid artefacts.
        With `boundary`, the outermost point lies on the circle."""
        n = self._check_n(n)
        k = np.arange(n)
        rho = self.radius * np.sqrt((k + 0.5) / n)
        if boundary and n:
            rho = rho * (self.radius / rho[-1])
        return self._polar(rho, k * GOLDEN_ANGLE)

    def random_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points from sampler `random` through the area-preserving map (u, v) -> (R sqrt(u), 2 pi v)."""
        u = Sampler(2, random, seed).draw(self._check_n(n))
        return self._polar(self.radius * np.sqrt(u[:, 0]), 2 * np.pi * u[:, 1])

    def uniform_boundary_points(self, n: int) -> np.ndarray:
        n = self._check_n(n)
        return self._polar(np.full(n, self.radius), 2 * np.pi * np.arange(n) / max(n, 1))

    def random_boundary_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        u = Sampler(1, random, seed).draw(self._check_n(n))[:, 0]
        return self._polar(np.full(len(u), self.radius), 2 * np.pi * u)

    def __repr__(self):
        return f"Disk({self.center.tolist()}, {self.radius:g})"


def _segments_cross(p1, p2, q1, q2) -> bool:
    """Whether closed segments p1p2 and q1q2 share a point (orientation test, collinear overlaps included)."""
    def orient(a, b, c):
        v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return 0 if abs(v) < 1e-14 else (1 if v > 0 else -1)

    def on_segment(a, b, c):
        return min(a[0], b[0]) - 1e-14 <= c[0] <= max(a[0], b[0]) + 1e-14 and \
            min(a[1], b[1]) - 1e-14 <= c[1] <= max(a[1], b[1]) + 1e-14

    o1, o2, o3, o4 = orient(p1, p2, q1), orient(p1, p2, q2), orient(q1, q2, p1), orient(q1, q2, p2)
    if o1 != o2 and o3 != o4:
        return True
    return any(o == 0 and on_segment(a, b, c) for o, a, b, c in
               ((o1, p1, p2, q1), (o2, p1, p2, q2), (o3, q1, q2, p1), (o4, q1, q2, p2)))


class ArcLengthBoundary:
    """Boundary samplers of a closed 2-D curve parametrised by arc length (`_at_arclength(s)`, s in [0, the
    boundary measure)): Polygon's perimeter from its first vertex, Ellipse's from the end of its major axis."""

    def uniform_boundary_points(self, n: int) -> np.ndarray:
        """n points at equal arc-length steps along the boundary."""
        n = self._check_n(n)
        return self._at_arclength(self.boundary_measure * np.arange(n) / max(n, 1))

    def random_boundary_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points on the boundary at arc lengths drawn from sampler `random`."""
        u = Sampler(1, random, seed).draw(self._check_n(n))[:, 0]
        return self._at_arclength(self.boundary_measure * u)


class Polygon(ArcLengthBoundary, Geometry):
    """A simple polygon (DeepXDE's `Polygon(vertices)`): vertices (V, 2) in either orientation, not
    closed (the last vertex connects to the first), no self-intersections.

    `inside` is the even–odd ray test (boundary points included), `on_boundary` the distance to the
    nearest edge, `boundary_normal` the edge's outward normal (the normalised sum of both at a
    vertex). The interior is sampled by rejection from the bounding box, the boundary by arc
    length along the perimeter."""

    name = "Polygon"

    def __init__(self, vertices, tol: float | None = None):
        try:
            v = np.asarray(vertices, dtype=np.float64)
        except (TypeError, ValueError):
            raise GeometryError(f"Polygon: vertices must be numbers of shape (V, 2), got {vertices!r}") from None
        if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
            raise GeometryError(f"Polygon: vertices must have shape (V, 2) with V >= 3, got {v.shape}")
        if not np.isfinite(v).all():
            raise GeometryError(f"Polygon: vertices (shape {v.shape}) contain NaN/Inf")
        if np.allclose(v[0], v[-1]):
            raise GeometryError("Polygon: do not repeat the first vertex at the end (the polygon closes itself)")
        nxt = np.roll(v, -1, axis=0)
        lengths = np.linalg.norm(nxt - v, axis=1)
        if np.any(lengths == 0):
            raise GeometryError(f"Polygon: vertex {int(np.argmin(lengths))} repeats the next one (zero-length edge)")
        V = len(v)
        for i in range(V):
            for j in range(i + 1, V):
                if j == i + 1 or (i == 0 and j == V - 1):
                    continue   # adjacent edges share a vertex
                if _segments_cross(v[i], v[(i + 1) % V], v[j], v[(j + 1) % V]):
                    raise GeometryError(f"Polygon: edges {i} and {j} intersect; the polygon must be simple")
        # after the simplicity check: a symmetric bow tie has zero signed area too
        signed_area = 0.5 * float(np.sum(v[:, 0] * nxt[:, 1] - nxt[:, 0] * v[:, 1]))
        if abs(signed_area) <= 1e-14 * float(np.max(np.abs(v))) ** 2:
            raise GeometryError("Polygon: the vertices enclose no area (collinear?)")
        if signed_area < 0:   # store counter-clockwise: outward normals are then (dy, -dx)
            v = v[::-1].copy()
        super().__init__(2, (v.min(axis=0), v.max(axis=0)), tol)
        self.vertices = v
        self._start = v
        self._edge = np.roll(v, -1, axis=0) - v
        self._length = np.linalg.norm(self._edge, axis=1)
        self._normal = np.stack([self._edge[:, 1], -self._edge[:, 0]], axis=1) / self._length[:, None]
        self._cumulative = np.concatenate([[0.0], np.cumsum(self._length)])
        self.area = abs(signed_area)

    @property
    def measure(self) -> float:
        return self.area

    @property
    def boundary_measure(self) -> float:
        return float(self._cumulative[-1])

    def _edge_distance(self, x):
        """(N, E) distance of every point to every edge."""
        d = x[:, None, :] - self._start[None, :, :]
        t = np.clip(np.sum(d * self._edge[None], axis=2) / self._length ** 2, 0.0, 1.0)
        return np.linalg.norm(d - t[..., None] * self._edge[None], axis=2)

    def _on_boundary(self, x):
        return np.min(self._edge_distance(x), axis=1) <= self.tol

    def _inside(self, x):
        px, py = x[:, :1], x[:, 1:]
        x1, y1 = self._start[:, 0], self._start[:, 1]
        x2, y2 = x1 + self._edge[:, 0], y1 + self._edge[:, 1]
        straddles = (y1 > py) != (y2 > py)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_cross = x1 + (py - y1) * (x2 - x1) / (y2 - y1)
        crossings = np.sum(straddles & (px < x_cross), axis=1)
        return (crossings % 2 == 1) | self._on_boundary(x)

    def _boundary_normal(self, x):
        near = self._edge_distance(x) <= self.tol
        n = near.astype(np.float64) @ self._normal
        norm = np.linalg.norm(n, axis=1, keepdims=True)
        return np.divide(n, norm, out=np.zeros_like(n), where=norm > 0)

    def uniform_points(self, n: int, boundary: bool = True) -> np.ndarray:
        """A square grid of spacing sqrt(area / n) clipped to the polygon (about n points)."""
        n = self._check_n(n)
        if n == 0:
            return np.zeros((0, 2))
        P = self.boundary_measure
        # Spacing h so that interior (area / h^2) plus boundary (P / h) points come to about n.
        h = (P + math.sqrt(P * P + 4 * n * self.area)) / (2 * n) if boundary else math.sqrt(self.area / n)
        lower, upper = self.bbox
        axes = [np.arange(lo + h / 2, hi, h) for lo, hi in zip(lower, upper)]
        grid = np.stack([g.reshape(-1) for g in np.meshgrid(*axes, indexing="ij")], axis=1)
        pts = grid[self._inside(grid) & ~self._on_boundary(grid)]
        if boundary:
            m = max(1, int(round(P / h)))
            pts = np.concatenate([pts, self.uniform_boundary_points(m)])
        return pts

    def random_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points inside, by rejection of sampler `random`'s points of the bounding box."""
        return rejection_sample(self._check_n(n), *self.bbox, self._inside, random, seed)

    def _at_arclength(self, s: np.ndarray) -> np.ndarray:
        edge = np.clip(np.searchsorted(self._cumulative, s, side="right") - 1, 0, len(self._length) - 1)
        t = (s - self._cumulative[edge]) / self._length[edge]
        return self._start[edge] + t[:, None] * self._edge[edge]

    def __repr__(self):
        return f"Polygon({len(self.vertices)} vertices, area {self.area:.4g})"


class TimeDomain(Interval):
    """The time interval [t0, t1] (DeepXDE's `TimeDomain`)."""

    name = "TimeDomain"

    def __init__(self, t0: float, t1: float, tol: float | None = None):
        super().__init__(t0, t1, tol)
        self.t0, self.t1 = self.l, self.r

    def on_initial(self, t):
        """True where t == t0 (within `tol`)."""
        a, single = self.points(t, "t")
        out = np.abs(a[:, 0] - self.t0) <= self.tol
        return out[0] if single else out


class GeometryXTime(Geometry):
    """The space–time cylinder `geometry x timedomain` (DeepXDE's `GeometryXTime`): points are rows
    (x_1, ..., x_d, t). `on_boundary` is the spatial boundary at any time in the interval,
    `on_initial` the slice t = t0; normals have a zero time component."""

    name = "GeometryXTime"

    def __init__(self, geometry: Geometry, timedomain: TimeDomain):
        if not isinstance(geometry, Geometry) or isinstance(geometry, GeometryXTime):
            raise GeometryError(f"GeometryXTime: geometry must be a spatial pinn geometry, got {geometry!r}")
        if not isinstance(timedomain, Interval):
            raise GeometryError(f"GeometryXTime: timedomain must be a TimeDomain, got {timedomain!r}")
        self.geometry, self.timedomain = geometry, timedomain
        super().__init__(geometry.dim + 1, (np.append(geometry.bbox[0], timedomain.l),
                                            np.append(geometry.bbox[1], timedomain.r)))
        self.tol = geometry.tol

    @property
    def measure(self) -> float:
        return self.geometry.measure * (self.timedomain.r - self.timedomain.l)

    @property
    def boundary_measure(self) -> float:
        return self.geometry.boundary_measure * (self.timedomain.r - self.timedomain.l)

    def _split(self, x):
        return x[:, :-1], x[:, -1:]

    def _inside(self, x):
        s, t = self._split(x)
        return self.geometry._inside(s) & self.timedomain._inside(t)

    def _on_boundary(self, x):
        s, t = self._split(x)
        return self.geometry._on_boundary(s) & self.timedomain._inside(t)

    def _boundary_normal(self, x):
        s, t = self._split(x)
        n = self.geometry._boundary_normal(s)
        n[~self.timedomain._inside(t)] = 0.0
        return np.hstack([n, np.zeros((len(x), 1))])

    def on_initial(self, x):
        """True where t == t0 and the spatial part lies in the geometry."""
        def initial(a):
            s, t = self._split(a)
            return (np.abs(t[:, 0] - self.timedomain.t0) <= self.timedomain.tol) & self.geometry._inside(s)
        return self._predicate(initial, x)

    def periodic_point(self, x, component: int) -> np.ndarray:
        a, single = self.points(x)
        if isinstance(component, bool) or not isinstance(component, (int, np.integer)) or \
                not 0 <= component < self.geometry.dim:
            raise GeometryError(f"GeometryXTime.periodic_point: component must be a spatial axis in "
                                f"[0, {self.geometry.dim}), got {component!r}")
        s, t = self._split(a)
        out = np.hstack([self.geometry.periodic_point(s, component), t])
        return out[0] if single else out

    @staticmethod
    def _product(space: np.ndarray, times: np.ndarray) -> np.ndarray:
        """Every spatial point at every time, time-major."""
        return np.hstack([np.tile(space, (len(times), 1)), np.repeat(times.reshape(-1), len(space))[:, None]])

    def uniform_points(self, n: int, boundary: bool = True) -> np.ndarray:
        """A space grid times a time grid, about n points, spaced alike in space and time."""
        n = self._check_n(n)
        T = self.timedomain.r - self.timedomain.l
        spacing = (self.measure / max(n, 1)) ** (1.0 / self.dim)
        nt = max(1, int(math.ceil(T / spacing - 1e-9)))
        nx = max(1, int(math.ceil(n / nt)))
        times = self.timedomain.uniform_points(nt, boundary)
        return self._product(self.geometry.uniform_points(nx, boundary), times)

    def random_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points of the cylinder. Over a box the sampler draws space and time jointly (an LHS or
        Sobol set of the whole (d+1)-box); otherwise space and time come from independent streams."""
        n = self._check_n(n)
        if isinstance(self.geometry, Hypercube):
            return scale_to_box(Sampler(self.dim, random, seed).draw(n), *self.bbox)
        s_seed, t_seed = _seed_pair(seed)
        space = self.geometry.random_points(n, random, s_seed)
        times = self.timedomain.random_points(n, random, t_seed)
        return np.hstack([space, as_rng(t_seed).permutation(times)])

    def uniform_boundary_points(self, n: int) -> np.ndarray:
        """Spatial boundary points times a time grid, about n points."""
        n = self._check_n(n)
        T = self.timedomain.r - self.timedomain.l
        if self.geometry.dim == 1:
            nt = max(1, int(math.ceil(n / 2)))
            space = self.geometry.uniform_boundary_points(2)
        else:
            spacing = (self.boundary_measure / max(n, 1)) ** (1.0 / (self.dim - 1))
            nt = max(1, int(math.ceil(T / spacing - 1e-9)))
            space = self.geometry.uniform_boundary_points(max(1, int(math.ceil(n / nt))))
        return self._product(space, self.timedomain.uniform_points(nt, True))

    def random_boundary_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points of the spatial boundary at times drawn from sampler `random`."""
        n = self._check_n(n)
        s_seed, t_seed = _seed_pair(seed)
        space = self.geometry.random_boundary_points(n, random, s_seed)
        times = self.timedomain.random_points(n, random, t_seed)
        return np.hstack([space, as_rng(t_seed).permutation(times)])

    def uniform_initial_points(self, n: int) -> np.ndarray:
        """The spatial grid of about n points at t = t0."""
        space = self.geometry.uniform_points(self._check_n(n), True)
        return np.hstack([space, np.full((len(space), 1), self.timedomain.t0)])

    def random_initial_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n spatial points from sampler `random` at t = t0."""
        space = self.geometry.random_points(self._check_n(n), random, seed)
        return np.hstack([space, np.full((len(space), 1), self.timedomain.t0)])

    def __repr__(self):
        return f"GeometryXTime({self.geometry!r}, {self.timedomain!r})"


def _ball_volume(dim: int) -> float:
    """The volume of the unit ball in `dim` dimensions, pi^(d/2) / Gamma(d/2 + 1)."""
    return math.pi ** (dim / 2) / math.gamma(dim / 2 + 1)


def _directions(u: np.ndarray) -> np.ndarray:
    """Unit vectors from unit-cube points (m, d): normal quantiles of every coordinate, normalised.

    The standard normal distribution in d dimensions is rotation invariant, so its directions are
    uniform on the sphere; mapping the sampler's points coordinate-wise through the normal quantile
    (`scipy.special.ndtri`) keeps a quasi-random set's structure (a smooth map of the cube)."""
    from scipy.special import ndtri

    g = ndtri(np.clip(u, 1e-15, 1 - 1e-15))
    norm = np.linalg.norm(g, axis=1, keepdims=True)
    g[norm[:, 0] == 0, 0], norm[norm == 0] = 1.0, 1.0   # the cube's centre exactly: any direction will do
    return g / norm


class Hypersphere(BallPredicates, Geometry):
    """The closed ball |x - center| <= radius in any dimension d >= 2 (DeepXDE's `Hypersphere`).

    Interior samples: d unit-cube coordinates of sampler `random` give the direction (normal quantiles,
    normalised) and one more the radius R u^(1/d) (the ball's volume below radius r grows as r^d), so
    quasi-random samplers keep their structure; boundary samples are the directions alone.
    `uniform_points` is a grid of the bounding box clipped to the ball, `uniform_boundary_points`
    equal angles in 2-D, a Fibonacci sphere in 3-D and, in higher dimensions (no regular point set
    of the sphere there), the scrambled Halton sampler with the fixed seed 0."""

    name = "Hypersphere"

    def __init__(self, center, radius: float, tol: float | None = None):
        try:
            c = np.asarray(center, dtype=np.float64).reshape(-1)
            r = float(radius)
        except (TypeError, ValueError):
            raise GeometryError(f"{self.name}: center must be numbers and radius a number, got {center!r}, "
                                f"{radius!r}") from None
        if c.size < 2:
            raise GeometryError(f"{self.name}: center must have 2 or more entries (use Interval in 1-D), "
                                f"got shape {c.shape}")
        if not np.isfinite(c).all() or not (math.isfinite(r) and r > 0):
            raise GeometryError(f"{self.name}: needs a finite center and a radius > 0, got {center!r}, {radius!r}")
        super().__init__(c.size, (c - r, c + r), tol)
        self.center, self.radius = c, r

    @property
    def measure(self) -> float:
        return _ball_volume(self.dim) * self.radius ** self.dim

    @property
    def boundary_measure(self) -> float:
        """The sphere's area, d V / R (the derivative of the volume in R)."""
        return self.dim * self.measure / self.radius

    def uniform_points(self, n: int, boundary: bool = True) -> np.ndarray:
        """A grid of the bounding box clipped to the ball's interior, about n points; with `boundary`
        the spacing h leaves room for about boundary_measure / h^(d-1) `uniform_boundary_points`."""
        n = self._check_n(n)
        if n == 0:
            return np.zeros((0, self.dim))
        h = (self.measure / n) ** (1.0 / self.dim)
        if boundary:   # interior (V / h^d) plus boundary (S / h^(d-1)) points come to about n
            for _ in range(20):
                h = ((self.measure + self.boundary_measure * h) / n) ** (1.0 / self.dim)
        # a grid symmetric about the centre, half a step from it
        k = np.arange(h / 2, self.radius, h)
        axis = np.concatenate([-k[::-1], k])
        grid = np.stack([g.reshape(-1) for g in np.meshgrid(*[axis] * self.dim, indexing="ij")], axis=1)
        grid = grid + self.center
        pts = grid[self._inside(grid) & ~self._on_boundary(grid)]
        if boundary:
            m = max(1, int(round(self.boundary_measure / h ** (self.dim - 1))))
            pts = np.concatenate([pts, self.uniform_boundary_points(m)])
        return pts

    def random_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points of the ball: sampler `random` in d + 1 dimensions, the first coordinate u giving the
        radius R u^(1/d), the others the direction."""
        u = Sampler(self.dim + 1, random, seed).draw(self._check_n(n))
        rho = self.radius * u[:, :1] ** (1.0 / self.dim)
        return self.center + rho * _directions(u[:, 1:])

    def uniform_boundary_points(self, n: int) -> np.ndarray:
        """n points on the sphere spread evenly: equal angles in 2-D, the Fibonacci sphere in 3-D (equal
        heights z_k = 1 - (2k + 1)/n, equal-area by Archimedes, turned by the golden angle), and in
        higher dimensions `random_boundary_points(n, "Halton", seed=0)` (quasi-random, fixed)."""
        n = self._check_n(n)
        if self.dim == 2:
            t = 2 * np.pi * np.arange(n) / max(n, 1)
            return self.center + self.radius * np.stack([np.cos(t), np.sin(t)], axis=1)
        if self.dim == 3:
            k = np.arange(n)
            z = 1.0 - (2 * k + 1) / max(n, 1)
            s = np.sqrt(np.maximum(1.0 - z * z, 0.0))
            phi = k * GOLDEN_ANGLE
            return self.center + self.radius * np.stack([s * np.cos(phi), s * np.sin(phi), z], axis=1)
        return self.random_boundary_points(n, "Halton", seed=0)

    def random_boundary_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points on the sphere: sampler `random`'s directions (normal quantiles, normalised)."""
        u = Sampler(self.dim, random, seed).draw(self._check_n(n))
        return self.center + self.radius * _directions(u)

    def __repr__(self):
        return f"{self.name}({self.center.tolist()}, {self.radius:g})"


class Sphere(Hypersphere):
    """The closed 3-D ball |x - center| <= radius (DeepXDE's `Sphere(center, radius)`)."""

    name = "Sphere"

    def __init__(self, center, radius: float, tol: float | None = None):
        super().__init__(center, radius, tol)
        if self.dim != 3:
            raise GeometryError(f"Sphere: center must have 3 entries, got {self.dim} (use Disk in 2-D, "
                                f"Hypersphere in other dimensions)")


class Ellipse(ArcLengthBoundary, Geometry):
    """The closed ellipse with semi-axes `semimajor` >= `semiminor` > 0, its major axis turned by `angle`
    radians counter-clockwise from the x-axis (DeepXDE's `Ellipse(center, semimajor, semiminor, angle)`).

    In the ellipse's own frame y = R(-angle)(x - center), rho(y) = sqrt((y1/a)^2 + (y2/b)^2) is the
    normalised radial distance (1 on the curve); a point is on the boundary when the first-order
    distance |rho - 1| / |grad rho| is at most `tol`, and the outward normal is grad rho normalised.
    `boundary_measure` is the perimeter 4 a E(1 - b^2/a^2) (`scipy.special.ellipe`). Interior samples
    are the disk's area-preserving map (sqrt radius) stretched and turned; boundary samples are uniform
    in arc length, through a table of arc length against the parameter angle inverted by interpolation."""

    name = "Ellipse"
    #: nodes of the arc-length table (the inversion's error is about (2 pi / nodes)^2 of the perimeter).
    TABLE_NODES = 2 ** 14

    def __init__(self, center, semimajor: float, semiminor: float, angle: float = 0.0, tol: float | None = None):
        try:
            c = np.asarray(center, dtype=np.float64).reshape(-1)
            a, b, theta = float(semimajor), float(semiminor), float(angle)
        except (TypeError, ValueError):
            raise GeometryError(f"Ellipse: center must be 2 numbers and semimajor, semiminor, angle numbers, got "
                                f"{center!r}, {semimajor!r}, {semiminor!r}, {angle!r}") from None
        if c.shape != (2,) or not np.isfinite(c).all():
            raise GeometryError(f"Ellipse: center must be 2 finite numbers, got shape {c.shape}: {center!r}")
        if not all(math.isfinite(v) for v in (a, b, theta)) or not b > 0:
            raise GeometryError(f"Ellipse: needs finite semi-axes > 0 and a finite angle, got semimajor={semimajor!r}, "
                                f"semiminor={semiminor!r}, angle={angle!r}")
        if b > a:
            raise GeometryError(f"Ellipse: semiminor {b:g} exceeds semimajor {a:g} (swap them, or add pi/2 to angle)")
        cos, sin = math.cos(theta), math.sin(theta)
        half = np.array([math.hypot(a * cos, b * sin), math.hypot(a * sin, b * cos)])   # the turned ellipse's extent
        super().__init__(2, (c - half, c + half), tol)
        self.center, self.semimajor, self.semiminor, self.angle = c, a, b, theta
        self._rotation = np.array([[cos, -sin], [sin, cos]])   # ellipse frame -> world
        # arc length s(t) of (a cos t, b sin t), t in [0, 2 pi]: cumulative Simpson on the table's nodes
        t = np.linspace(0.0, 2 * np.pi, 2 * self.TABLE_NODES + 1)
        speed = np.hypot(a * np.sin(t), b * np.cos(t))
        pieces = (t[2] - t[0]) / 6 * (speed[:-2:2] + 4 * speed[1:-1:2] + speed[2::2])
        self._table_t = t[::2]
        self._table_s = np.concatenate([[0.0], np.cumsum(pieces)])

    @property
    def measure(self) -> float:
        return math.pi * self.semimajor * self.semiminor

    @property
    def boundary_measure(self) -> float:
        from scipy.special import ellipe

        return float(4 * self.semimajor * ellipe(1.0 - (self.semiminor / self.semimajor) ** 2))

    def _local(self, x):
        """Points in the ellipse's frame (centred, major axis along the first coordinate)."""
        return (x - self.center) @ self._rotation

    def _world(self, y):
        return self.center + y @ self._rotation.T

    def _rho_and_gradient(self, x):
        """rho (N,) and grad rho in the ellipse's frame (N, 2) (zero at the centre)."""
        y = self._local(x)
        scaled = y / np.array([self.semimajor, self.semiminor])
        rho = np.linalg.norm(scaled, axis=1)
        g = y / np.array([self.semimajor, self.semiminor]) ** 2
        return rho, np.divide(g, rho[:, None], out=np.zeros_like(g), where=rho[:, None] > 0)

    def _on_boundary(self, x):
        rho, g = self._rho_and_gradient(x)
        return np.abs(rho - 1.0) <= self.tol * np.linalg.norm(g, axis=1)

    def _inside(self, x):
        rho, _ = self._rho_and_gradient(x)
        return (rho <= 1.0) | self._on_boundary(x)

    def _boundary_normal(self, x):
        _, g = self._rho_and_gradient(x)
        n = g @ self._rotation.T
        norm = np.linalg.norm(n, axis=1, keepdims=True)
        n = np.divide(n, norm, out=np.zeros_like(n), where=norm > 0)
        n[~self._on_boundary(x)] = 0.0
        return n

    def _stretched(self, rho, t):
        """World points at normalised radius rho and parameter angle t: (a rho cos t, b rho sin t) turned."""
        return self._world(np.stack([self.semimajor * rho * np.cos(t), self.semiminor * rho * np.sin(t)], axis=1))

    def _at_arclength(self, s):
        """Points at arc lengths s in [0, perimeter) from (a, 0) of the ellipse's frame, counter-clockwise."""
        t = np.interp(s * (self._table_s[-1] / self.boundary_measure), self._table_s, self._table_t)
        return self._stretched(np.ones(len(t)), t)

    def uniform_points(self, n: int, boundary: bool = True) -> np.ndarray:
        """Exactly n points on the disk's sunflower (Vogel) spiral stretched onto the ellipse (equal area
        per point). With `boundary`, the outermost point lies on the curve."""
        n = self._check_n(n)
        k = np.arange(n)
        rho = np.sqrt((k + 0.5) / max(n, 1))
        if boundary and n:
            rho = rho / rho[-1]
        return self._stretched(rho, k * GOLDEN_ANGLE)

    def random_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points from sampler `random` through (u, v) -> (sqrt(u), 2 pi v), stretched and turned."""
        u = Sampler(2, random, seed).draw(self._check_n(n))
        return self._stretched(np.sqrt(u[:, 0]), 2 * np.pi * u[:, 1])

    def __repr__(self):
        return (f"Ellipse({self.center.tolist()}, {self.semimajor:g}, {self.semiminor:g}"
                + (f", angle={self.angle:g})" if self.angle else ")"))


class Triangle(Polygon):
    """The triangle with vertices x1, x2, x3 in either orientation (DeepXDE's `Triangle(x1, x2, x3)`): a
    `Polygon` of three vertices. Coincident or collinear vertices are refused."""

    name = "Triangle"

    def __init__(self, x1, x2, x3, tol: float | None = None):
        try:
            v = np.asarray([x1, x2, x3], dtype=np.float64)
        except (TypeError, ValueError):
            raise GeometryError(f"Triangle: x1, x2, x3 must be 2 numbers each, got {x1!r}, {x2!r}, {x3!r}") from None
        if v.shape != (3, 2):
            raise GeometryError(f"Triangle: x1, x2, x3 must be 2 numbers each (shape (3, 2) together), got {v.shape}")
        if not np.isfinite(v).all():
            raise GeometryError(f"Triangle: the vertices {v.tolist()} contain NaN/Inf")
        e1, e2 = v[1] - v[0], v[2] - v[0]
        twice_area = abs(e1[0] * e2[1] - e1[1] * e2[0])
        longest = max(np.linalg.norm(e1), np.linalg.norm(e2), np.linalg.norm(v[2] - v[1]))
        if longest == 0 or twice_area <= 1e-12 * longest ** 2:
            raise GeometryError(f"Triangle: the vertices {v.tolist()} are coincident or collinear (a degenerate "
                                "triangle with no area)")
        super().__init__(v, tol)

    def __repr__(self):
        return f"Triangle({', '.join(str(p) for p in self.vertices.tolist())})"


class PointCloud(Geometry):
    """A geometry known only by points (DeepXDE's `PointCloud(points, boundary_points, boundary_normals)`):
    `points` (N, d) of the domain, optionally `boundary_points` (M, d) and their outward
    `boundary_normals` (M, d; normalised here), kept as `domain_points` (`points(x)` is every geometry's
    input check), `boundary_points` and `boundary_normals`.

    `inside(x)` is membership (within `tol`) of the given points, the boundary points included (the
    closed set, as for every pinn geometry; DeepXDE counts `points` alone), `on_boundary(x)` membership
    of the boundary points, `boundary_normal(x)` the given normal of the boundary point x is (zero
    elsewhere). `random_points(n)` draws n of the points without replacement when n <= N; for n > N
    every point appears n // N times and the rest are drawn without replacement (DeepXDE's rule); the
    seed fixes the draw, `random=` is checked but there is nothing for a quasi-random sampler to spread.
    `uniform_points(n)` is every point when n >= N, else n evenly spaced (by index) of them; the
    boundary samplers do the same on the boundary points. The cloud has no known `measure` or
    `boundary_measure` (a `GeometryError`): what needs them — `uniform_points` of a `GeometryXTime`
    or of a CSG combination over a point cloud — is not supported."""

    name = "PointCloud"

    def __init__(self, points, boundary_points=None, boundary_normals=None, tol: float | None = None):
        p = self._array(points, "points")
        d = p.shape[1]
        bp = bn = None
        if boundary_points is not None:
            bp = self._array(boundary_points, "boundary_points", d)
        if boundary_normals is not None:
            if bp is None:
                raise GeometryError("PointCloud: boundary_normals need boundary_points to belong to")
            bn = self._array(boundary_normals, "boundary_normals", d)
            if bn.shape != bp.shape:
                raise GeometryError(f"PointCloud: boundary_normals {bn.shape} must match boundary_points {bp.shape}")
            length = np.linalg.norm(bn, axis=1, keepdims=True)
            if np.any(length == 0):
                raise GeometryError(f"PointCloud: boundary normal {int(np.argmin(length))} is zero")
            bn = bn / length
        every = p if bp is None else np.concatenate([p, bp])
        super().__init__(d, (every.min(axis=0), every.max(axis=0)), tol)
        self.domain_points, self.boundary_points, self.boundary_normals = p, bp, bn
        self._every = every

    @staticmethod
    def _array(a, what: str, dim: int | None = None) -> np.ndarray:
        try:
            v = np.asarray(a, dtype=np.float64)
        except (TypeError, ValueError):
            raise GeometryError(f"PointCloud: {what} must be numbers of shape (N, d), got {type(a).__name__}") from None
        if v.ndim != 2 or v.shape[0] < 1 or v.shape[1] < 1 or (dim is not None and v.shape[1] != dim):
            want = "(N, d) with N >= 1" if dim is None else f"(M, {dim}) with M >= 1"
            raise GeometryError(f"PointCloud: {what} must have shape {want}, got {v.shape}")
        if not np.isfinite(v).all():
            raise GeometryError(f"PointCloud: {what} (shape {v.shape}) contain NaN/Inf")
        return v

    @functools.cached_property
    def _trees(self):
        from scipy.spatial import cKDTree

        return cKDTree(self._every), (None if self.boundary_points is None else cKDTree(self.boundary_points))

    def _no_boundary(self, what: str):
        return GeometryError(f"PointCloud: {what} needs boundary_points, and none were given")

    @property
    def measure(self) -> float:
        raise GeometryError("PointCloud: the measure of a point cloud is unknown")

    @property
    def boundary_measure(self) -> float:
        raise GeometryError("PointCloud: the boundary measure of a point cloud is unknown")

    def _inside(self, x):
        dist, _ = self._trees[0].query(x, distance_upper_bound=self.tol * (1 + 1e-12) + 1e-300)
        return np.isfinite(dist)

    def _nearest_boundary(self, x):
        if self._trees[1] is None:
            raise self._no_boundary("on_boundary")
        dist, index = self._trees[1].query(x, distance_upper_bound=self.tol * (1 + 1e-12) + 1e-300)
        return np.isfinite(dist), index

    def _on_boundary(self, x):
        return self._nearest_boundary(x)[0]

    def _boundary_normal(self, x):
        if self.boundary_normals is None:
            raise GeometryError("PointCloud: boundary_normal needs boundary_normals, and none were given")
        on, index = self._nearest_boundary(x)
        n = np.zeros_like(x)
        n[on] = self.boundary_normals[index[on]]
        return n

    @staticmethod
    def _evenly(pool: np.ndarray, n: int) -> np.ndarray:
        if n >= len(pool):
            return pool.copy()
        return pool[((np.arange(n) + 0.5) * len(pool) / n).astype(int)]

    @staticmethod
    def _draw(pool: np.ndarray, n: int, seed) -> np.ndarray:
        rng = as_rng(seed)
        whole, rest = divmod(n, len(pool))
        index = np.concatenate([np.tile(np.arange(len(pool)), whole),
                                rng.choice(len(pool), size=rest, replace=False)])
        return pool[rng.permutation(index)] if whole else pool[index]

    def uniform_points(self, n: int, boundary: bool = True) -> np.ndarray:
        """All the points (and the boundary points with `boundary`) when n reaches their number, else n of
        them evenly spaced by index."""
        n = self._check_n(n)
        return self._evenly(self._every if boundary else self.domain_points, n)

    def random_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n of the points drawn at random (see the class); `random` must name a sampler but is not used."""
        from .sampling import check_method

        check_method(random)
        return self._draw(self.domain_points, self._check_n(n), seed)

    def uniform_boundary_points(self, n: int) -> np.ndarray:
        """All the boundary points when n reaches their number, else n of them evenly spaced by index."""
        n = self._check_n(n)
        if self.boundary_points is None:
            raise self._no_boundary("uniform_boundary_points")
        return self._evenly(self.boundary_points, n)

    def random_boundary_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n of the boundary points drawn at random, as `random_points` draws the points."""
        from .sampling import check_method

        check_method(random)
        n = self._check_n(n)
        if self.boundary_points is None:
            raise self._no_boundary("random_boundary_points")
        return self._draw(self.boundary_points, n, seed)

    def __repr__(self):
        nb = 0 if self.boundary_points is None else len(self.boundary_points)
        return f"PointCloud({len(self.domain_points)} points, {nb} boundary points, dim {self.dim})"
