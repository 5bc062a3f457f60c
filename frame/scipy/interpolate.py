"""`frame.scipy.interpolate`: `RegularGridInterpolator` as jax.scipy.interpolate offers it.

Methods "linear" (multilinear over the 2**N corners of the cell holding the point) and "nearest". The
cell along each axis is found with `fnp.searchsorted` (side 'left', minus one, clipped to the first and
last cells, so points outside use the end cells: that is the extrapolation `fill_value=None` gives), the
value is a gather of `values` by advanced indexing times weights, and points outside the grid become
`fill_value` through `where`. So it traces and differentiates in `values` (and a traced `fill_value`),
and for "linear" in the points `xi` (piecewise: within a cell; "nearest" has derivative zero in `xi`);
the grids may be concrete or traced.

As in JAX, `values` are taken as floats (bool and integers as float64). Unlike JAX, which refuses
`bounds_error=True`, frame raises scipy's error (a ShapeError, a ValueError) for points outside the grid
when the points and grids are concrete; with traced ones the check would need their values, so that
raises TraceError. Concrete grids are checked as scipy does (one axis a point array, its length that axis
of `values`, strictly monotonic); a strictly descending concrete grid is flipped, with `values`, as
scipy does. Traced grids cannot be checked and must be strictly ascending (JAX's requirement).
"""
from __future__ import annotations

import itertools
import math

import numpy as _np

from ..errors import ShapeError, TraceError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _shape
from ..frontend.numpy_math import _inexact
from ..tracing import Tracer

__all__ = ["RegularGridInterpolator"]

_OP = "frame.scipy.interpolate.RegularGridInterpolator"
_METHODS = ("linear", "nearest")


def _method(method):
    if not isinstance(method, str) or method not in _METHODS:
        raise ShapeError(f"{_OP}: method must be one of {_METHODS} (as in jax.scipy.interpolate), "
                         f"got {method!r}")
    return method


class RegularGridInterpolator:
    """Interpolation on the rectangular grid `points` (N 1-d arrays) of `values` (shape (len(points[0]),
    ..., len(points[N-1]), ...): trailing axes are carried along). `method` is "linear" or "nearest";
    points outside the grid give `fill_value` (None: extrapolate from the end cells), or with
    `bounds_error` raise (concrete points only)."""

    def __init__(self, points, values, method="linear", bounds_error=False, fill_value=_np.nan):
        self.method = _method(method)
        self.bounds_error = bool(bounds_error)
        values = _inexact(fnp.asarray(values))
        vshape = _shape(values)
        if not isinstance(points, (list, tuple)):
            points = [points[j] for j in range(_shape(points)[0])] if len(_shape(points)) == 2 else [points]
        if len(points) > len(vshape):
            raise ShapeError(f"{_OP}: there are {len(points)} point arrays, but values has {len(vshape)} "
                             f"dimensions (shape {vshape})")
        grid = []
        for j, p in enumerate(points):
            p = fnp.asarray(p)
            if len(_shape(p)) != 1:
                raise ShapeError(f"{_OP}: the points in dimension {j} must be 1-dimensional, got shape {_shape(p)}")
            if _shape(p)[0] != vshape[j]:
                raise ShapeError(f"{_OP}: there are {_shape(p)[0]} points in dimension {j}, but values has "
                                 f"{vshape[j]} values in that dimension (shape {vshape})")
            if _shape(p)[0] < 2:
                # one point makes no cell: the index arithmetic needs two (JAX's gives garbage)
                raise ShapeError(f"{_OP}: dimension {j} needs at least 2 points, got {_shape(p)[0]}")
            if not isinstance(p, Tracer):
                d = _np.diff(_np.asarray(p))
                if _np.all(d < 0):   # scipy's rule: a descending grid is the ascending one, reversed
                    p = p[::-1]
                    values = fnp.flip(values, axis=j)
                elif not _np.all(d > 0):
                    raise ShapeError(f"{_OP}: the points in dimension {j} must be strictly ascending or "
                                     "descending")
            grid.append(p)
        if fill_value is not None:
            fill_value = fnp.asarray(fill_value)
            if not _np.can_cast(_np.dtype(_dtype(fill_value)), _np.dtype(_dtype(values)), "same_kind"):
                raise ShapeError(f"{_OP}: fill_value must be None or of a dtype compatible with values' "
                                 f"{_dtype(values)}, got {_dtype(fill_value)}")
            fill_value = fnp.astype(fill_value, _dtype(values))   # a float64 nan keeps float32 values float32
        self.grid = tuple(grid)
        self.values = values
        self.fill_value = fill_value

    def _points(self, xi):
        """xi as (M, N) points and the leading shape of the result."""
        ndim = len(self.grid)
        if isinstance(xi, tuple) and len(xi) == 1:
            xi = xi[0]
        if isinstance(xi, tuple):    # one array of coordinates per axis
            try:
                parts = fnp.broadcast_arrays(*[fnp.asarray(x) for x in xi])
            except ShapeError:
                raise ShapeError(f"{_OP}: the coordinate arrays of xi must broadcast together, got shapes "
                                 f"{[_shape(x) for x in xi]}") from None
            xi = fnp.stack([_inexact(x) for x in parts], axis=-1)
        else:
            xi = fnp.asarray(xi)
            if len(_shape(xi)) == 1:
                if _shape(xi)[0] % ndim:
                    raise ShapeError(f"{_OP}: the requested sample points xi (shape {_shape(xi)}) cannot be "
                                     f"split into points of dimension {ndim}")
                xi = fnp.reshape(xi, (-1, ndim))
        shape = _shape(xi)
        if len(shape) == 0 or shape[-1] != ndim:
            raise ShapeError(f"{_OP}: the requested sample points xi have dimension "
                             f"{shape[-1] if shape else 0} (shape {shape}), but this interpolator has dimension {ndim}")
        return fnp.reshape(xi, (math.prod(shape[:-1]), ndim)), shape[:-1]

    def _check_bounds(self, xi):
        if isinstance(xi, Tracer) or any(isinstance(g, Tracer) for g in self.grid):
            raise TraceError(f"{_OP}: bounds_error=True needs the values of the points and grids to find points "
                             "outside the grid, but they are traced; use bounds_error=False (JAX refuses "
                             "bounds_error=True altogether)")
        x = _np.asarray(xi)
        for j, g in enumerate(self.grid):
            g = _np.asarray(g)
            if not _np.logical_and(g[0] <= x[:, j], x[:, j] <= g[-1]).all():
                raise ShapeError(f"{_OP}: one of the requested xi is out of bounds in dimension {j}")

    def __call__(self, xi, method=None):
        """The interpolated values at the points xi: an array (..., N) of points, or a tuple of N arrays of
        coordinates; the result has xi's leading shape and values' trailing axes."""
        method = self.method if method is None else _method(method)
        xi, lead = self._points(xi)
        if self.bounds_error:
            self._check_bounds(xi)
        ndim = len(self.grid)
        rest = _shape(self.values)[ndim:]
        lower, frac, outside = [], [], None
        for j, g in enumerate(self.grid):
            x = xi[:, j]
            n = _shape(g)[0]
            # the cell [g[i], g[i+1]] holding x; the end cells for points outside (extrapolation)
            i = fnp.clip(fnp.searchsorted(g, x) - 1, 0, n - 2)
            gi = fnp.getitem(g, i)   # g may be a numpy array and i traced
            lower.append(i)
            frac.append((x - gi) / (fnp.getitem(g, i + 1) - gi))
            out = (x < g[0]) | (x > g[n - 1])
            outside = out if outside is None else outside | out

        def gather(indices):
            return fnp.getitem(self.values, tuple(indices))

        def trailing(w):             # weights per point, broadcast over values' trailing axes
            return fnp.reshape(w, _shape(w) + (1,) * len(rest))

        if method == "linear":
            result = None
            for corner in itertools.product((0, 1), repeat=ndim):
                weight = None
                for up, t in zip(corner, frac):
                    w = t if up else 1 - t
                    weight = w if weight is None else weight * w
                term = gather([i + up for i, up in zip(lower, corner)]) * trailing(weight)
                result = term if result is None else result + term
        else:
            # ties (a point midway) go to the lower node, as in scipy and JAX
            result = gather([fnp.where(t <= 0.5, i, i + 1) for i, t in zip(lower, frac)])
        if self.fill_value is not None and not self.bounds_error:
            result = fnp.where(trailing(outside), self.fill_value, result)
        return fnp.reshape(result, tuple(lead) + tuple(rest))
