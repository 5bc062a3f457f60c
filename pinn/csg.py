"""Constructive solid geometry, as DeepXDE has it (`dde.geometry.CSGUnion`, `CSGDifference`,
`CSGIntersection`, or `a | b`, `a - b`, `a & b` on any two pinn geometries of one dimension): an
L-shaped domain is `Rectangle(...) - Rectangle(...)`, a plate with a hole `Rectangle(...) - Disk(...)`.

Membership follows from the parts' closed sets and their interiors (inside and not on the boundary):

    union         inside: a or b;   boundary: a's not in b's interior, b's not in a's interior
    difference    inside: a and not b's interior;   boundary: a's not in b's interior, b's inside a
    intersection  inside: a and b;  boundary: a's inside b, b's inside a

`boundary_normal` is the outward normal of the part whose boundary the point is on (negated for
the subtracted part of a difference; the normalised sum where both meet). Interior points come by
rejection from the bounding box, boundary points from the parts' boundary samplers, kept where
they are on the result's boundary, in proportion to the parts' boundary measures. `measure` and
`boundary_measure` are estimates (the fraction of 2^14 Sobol points of the bounding box inside,
and of each part's 2^12 boundary points kept), deterministic, used to size uniform grids.
"""
from __future__ import annotations

import functools

import numpy as np

from .geometry import Geometry, GeometryError, GeometryXTime
from .sampling import Sampler, SamplingError, rejection_sample, scale_to_box, thin

#: points of the estimates of measure and boundary measure.
MEASURE_POINTS, BOUNDARY_MEASURE_POINTS = 2 ** 14, 2 ** 12


class CSG(Geometry):
    """Base of the three combinations of geometries `a` and `b` (same dimension, spatial)."""

    name = "CSG"

    def __init__(self, a: Geometry, b: Geometry, bbox, tol: float | None = None):
        for part in (a, b):
            if not isinstance(part, Geometry) or isinstance(part, GeometryXTime):
                raise GeometryError(f"{self.name}: both parts must be spatial pinn geometries, got {part!r}")
        if a.dim != b.dim:
            raise GeometryError(f"{self.name}: the parts' dimensions differ ({a.dim} and {b.dim})")
        self.a, self.b = a, b
        super().__init__(a.dim, bbox, min(a.tol, b.tol) if tol is None else tol)

    # the parts' interiors: inside and not on the boundary
    @staticmethod
    def _interior(part: Geometry, x):
        return part._inside(x) & ~part._on_boundary(x)

    def _solid(self, x):
        """The result's interior, from the parts' interiors and closed sets."""
        raise NotImplementedError

    b_normal_sign = 1.0

    @functools.cached_property
    def _directions(self) -> np.ndarray:
        """Unit probe directions: every non-zero vector of {-1, 0, 1}^dim (8 in 2-d, 26 in 3-d)."""
        grid = np.stack(np.meshgrid(*[[-1.0, 0.0, 1.0]] * self.dim, indexing="ij"), axis=-1).reshape(-1, self.dim)
        grid = grid[np.any(grid != 0, axis=1)]
        return grid / np.linalg.norm(grid, axis=1, keepdims=True)

    def _on_boundary(self, x):
        # A point of either part's boundary bounds the result when the result's interior and its outside
        # are both within reach (probes just past the tolerance band): not on an interface between the
        # parts, nor on a part's boundary that the other covers or cut away.
        out = np.zeros(len(x), dtype=bool)
        candidates = np.flatnonzero(self.a._on_boundary(x) | self.b._on_boundary(x))
        if candidates.size == 0:
            return out
        p = x[candidates]
        solid = np.zeros(len(p), dtype=bool)
        outside = np.zeros(len(p), dtype=bool)
        for d in self._directions:
            q = p + 10.0 * self.tol * d
            solid |= self._solid(q)
            outside |= ~self._inside(q)
        out[candidates] = solid & outside
        return out

    def _boundary_normal(self, x):
        # the parts' outward normals (b's negated in a difference) that point out of the result
        on = self._on_boundary(x)
        n = np.zeros_like(x)
        for part, sign in ((self.a, 1.0), (self.b, self.b_normal_sign)):
            m = sign * part._boundary_normal(x)
            leaves = part._on_boundary(x) & ~self._inside(x + 10.0 * self.tol * m)
            n += np.where((on & leaves)[:, None], m, 0.0)
        norm = np.linalg.norm(n, axis=1, keepdims=True)
        return np.divide(n, norm, out=np.zeros_like(n), where=norm > 0)

    @functools.cached_property
    def measure(self) -> float:
        lower, upper = self.bbox
        u = Sampler(self.dim, "Sobol", 0).draw(MEASURE_POINTS)
        return float(np.prod(upper - lower) * np.mean(self._inside(scale_to_box(u, lower, upper))))

    @functools.cached_property
    def _kept_fractions(self) -> tuple[float, float]:
        """The fractions of a's and b's boundaries that are this geometry's boundary."""
        return tuple(float(np.mean(self._on_boundary(part.random_boundary_points(BOUNDARY_MEASURE_POINTS, "Sobol", 0)
                                                     if part.dim > 1 else part.uniform_boundary_points(2))))
                     for part in (self.a, self.b))

    @property
    def _kept_measures(self) -> tuple[float, float]:
        """The measures of a's and b's boundaries that are this geometry's boundary."""
        fa, fb = self._kept_fractions
        return self.a.boundary_measure * fa, self.b.boundary_measure * fb

    @property
    def boundary_measure(self) -> float:
        return sum(self._kept_measures)

    def random_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n points inside, by rejection of sampler `random`'s points of the bounding box."""
        return rejection_sample(self._check_n(n), *self.bbox, self._inside, random, seed)

    def uniform_points(self, n: int, boundary: bool = True) -> np.ndarray:
        """A grid of the bounding box clipped to the geometry, about n points (with `boundary`, interior
        grid points and about the boundary's share of n uniform boundary points)."""
        n = self._check_n(n)
        if n == 0:
            return np.zeros((0, self.dim))
        lower, upper = self.bbox
        h = (self.measure / n) ** (1.0 / self.dim)
        if boundary and self.dim > 1:
            # spacing h so that interior (measure / h^d) plus boundary (boundary measure / h^(d-1)) is about n
            for _ in range(20):
                h = ((self.measure + self.boundary_measure * h) / n) ** (1.0 / self.dim)
        axes = [np.arange(lo + h / 2, hi, h) for lo, hi in zip(lower, upper)]
        grid = np.stack([g.reshape(-1) for g in np.meshgrid(*axes, indexing="ij")], axis=1)
        pts = grid[self._inside(grid) & ~self._on_boundary(grid)]
        if boundary:
            m = max(1, int(round(self.boundary_measure / h ** (self.dim - 1)))) if self.dim > 1 else 2
            pts = np.concatenate([pts, self.uniform_boundary_points(m)])
        return pts

    def _boundary_sample(self, n: int, draw, rng: np.random.Generator) -> np.ndarray:
        """n boundary points from `draw(part, m, round)` of both parts, kept where they are this geometry's
        boundary, a's and b's in proportion to their kept boundary measures (the surplus thinned at random
        by `rng`: the parts' quasi-random boundary streams run along the boundary in order)."""
        n = self._check_n(n)
        (fa, fb), (wa, wb) = self._kept_fractions, self._kept_measures
        if wa + wb == 0:
            raise SamplingError(f"{self.name}: the geometry has no boundary to sample")
        na = int(round(n * wa / (wa + wb)))
        parts = []
        for part, want, fraction in ((self.a, na, fa), (self.b, n - na, fb)):
            got, have = [], 0
            for round_ in range(64):
                if have >= want:
                    break
                m = int(np.ceil((want - have) / max(fraction, 1e-3) * 1.1)) + 8
                pts = draw(part, m, round_)
                pts = pts[self._on_boundary(pts)]
                got.append(pts)
                have += len(pts)
            if have < want:
                raise SamplingError(f"{self.name}: found only {have} of {want} boundary points on {part!r}")
            parts.append(thin(np.concatenate(got), want, rng) if got else np.zeros((0, self.dim)))
        return np.concatenate(parts)

    def uniform_boundary_points(self, n: int) -> np.ndarray:
        """About n points from the parts' uniform boundary points, kept where they are this boundary."""
        n = self._check_n(n)
        (fa, fb), (wa, wb) = self._kept_fractions, self._kept_measures
        total = max(wa + wb, 1e-300)
        pts = [part.uniform_boundary_points(int(np.ceil(n * w / total / max(f, 1e-3))))
               for part, w, f in ((self.a, wa, fa), (self.b, wb, fb)) if w > 0]
        kept = [p[self._on_boundary(p)] for p in pts]
        return np.concatenate(kept) if kept else np.zeros((0, self.dim))

    def random_boundary_points(self, n: int, random: str = "pseudo", seed=None) -> np.ndarray:
        """n boundary points: the parts' boundary points from sampler `random`, kept where they are this
        geometry's boundary (each part and round its own stream of `seed`)."""
        rng = np.random.default_rng(seed)
        seeds = rng.integers(2 ** 63 - 1, size=(2, 64))
        index = {id(self.a): 0, id(self.b): 1}
        out = self._boundary_sample(n, lambda part, m, r: part.random_boundary_points(
            m, random if r == 0 else "pseudo", int(seeds[index[id(part)], r])), rng)
        return out[rng.permutation(len(out))]

    def __repr__(self):
        return f"{self.name}({self.a!r}, {self.b!r})"


class CSGUnion(CSG):
    """a | b: the points of either."""

    name = "CSGUnion"

    def __init__(self, a: Geometry, b: Geometry, tol: float | None = None):
        super().__init__(a, b, (np.minimum(a.bbox[0], b.bbox[0]), np.maximum(a.bbox[1], b.bbox[1])), tol)

    def _inside(self, x):
        return self.a._inside(x) | self.b._inside(x)

    def _solid(self, x):
        return self._interior(self.a, x) | self._interior(self.b, x)


class CSGDifference(CSG):
    """a - b: the points of a not in b's interior (b's boundary inside a bounds the result)."""

    name = "CSGDifference"
    b_normal_sign = -1.0

    def __init__(self, a: Geometry, b: Geometry, tol: float | None = None):
        super().__init__(a, b, a.bbox, tol)

    def _inside(self, x):
        return self.a._inside(x) & ~self._interior(self.b, x)

    def _solid(self, x):
        return self._interior(self.a, x) & ~self.b._inside(x)


class CSGIntersection(CSG):
    """a & b: the points of both."""

    name = "CSGIntersection"

    def __init__(self, a: Geometry, b: Geometry, tol: float | None = None):
        lower, upper = np.maximum(a.bbox[0], b.bbox[0]), np.minimum(a.bbox[1], b.bbox[1])
        if np.any(lower > upper):
            raise GeometryError(f"CSGIntersection: {a!r} and {b!r} do not overlap (their bounding boxes are apart)")
        super().__init__(a, b, (lower, upper), tol)

    def _inside(self, x):
        return self.a._inside(x) & self.b._inside(x)

    def _solid(self, x):
        return self._interior(self.a, x) & self._interior(self.b, x)

