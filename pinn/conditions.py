"""Initial and boundary conditions as DeepXDE has them (`dde.icbc`), as loss terms of a frame graph.

`DirichletBC(geom, func, on_boundary, component=0)`, `NeumannBC`, `RobinBC`,
`PeriodicBC(geom, component_x, on_boundary, derivative_order=0, component=0)`,
`IC(geom, func, on_initial, component=0)` and `PointSetBC(points, values, component=0)`.

`on_boundary(x, on)` is DeepXDE's per-point predicate: x one point (dim,), `on` whether the
geometry counts it as on its boundary, e.g. `lambda x, on: on and np.isclose(x[0], 1)`.
`func(x)` takes numpy points (M, dim) and returns their target values (M, 1), (M,) or a scalar;
it runs once in numpy when the training data are drawn. RobinBC's `func(x, u)` instead runs on the
traced points and outputs (write it with `frame.numpy`): `du/dn = func(x, u)`.

A condition turns a pool of candidate points (the problem's boundary and initial samples) into
numpy arrays, `arrays(pool, dtype)`, that enter the training graph as data, and `error(u_fn,
*arrays)` is its pointwise error on them (a traced (M, 1) array; the loss term is its mean
square). Normal derivatives are `n . grad u` with grad u from one `frame.grad` of the summed
output over the points (pointwise: the network treats rows independently) and the normals computed
by the geometry in numpy.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import frame
import frame.numpy as fnp

from .problems import ProblemError


def _check_component(cls: str, component) -> int:
    if isinstance(component, bool) or not isinstance(component, (int, np.integer)) or component < 0:
        raise ProblemError(f"{cls}: component must be a non-negative int, got {component!r}")
    return int(component)


def _values(cls: str, func: Callable, x: np.ndarray) -> np.ndarray:
    """func(x) as finite (M, 1) float64 values."""
    try:
        v = np.asarray(func(x), dtype=np.float64)
    except Exception as e:   # the user's function failed: say which one and on what
        raise ProblemError(f"{cls}: func failed on points of shape {x.shape}: {type(e).__name__}: {e}") from e
    if v.size == 1:
        v = np.full((len(x), 1), float(v.reshape(())))
    if v.ndim == 1 and v.shape[0] == len(x):
        v = v.reshape(-1, 1)
    if v.shape != (len(x), 1):
        raise ProblemError(f"{cls}: func must return one value per point, shape ({len(x)}, 1), got {v.shape} "
                           f"for points of shape {x.shape}")
    if not np.isfinite(v).all():
        raise ProblemError(f"{cls}: func returned NaN/Inf on points of shape {x.shape}")
    return v


def _as_func(cls: str, func) -> Callable:
    """A callable target: `func` itself, or a constant function for a number."""
    if callable(func):
        return func
    try:
        c = float(func)
    except (TypeError, ValueError):
        raise ProblemError(f"{cls}: func must be a callable x -> values or a number, got {func!r}") from None
    return lambda x: np.full((len(x), 1), c)


def gradient(u_fn: Callable, x, component: int = 0):
    """d u_component / dx at every row of x, shape (M, dim): one reverse transform of the sum."""
    return frame.grad(lambda x: fnp.sum(u_fn(x)[:, component:component + 1]))(x)


class Condition:
    """Base class of the conditions: `arrays(pool, dtype)` -> numpy data, `error(u_fn, *arrays)` -> (M, 1)."""

    component = 0
    name = "condition"

    def arrays(self, pool: np.ndarray, dtype: str) -> tuple:
        raise NotImplementedError

    def error(self, u_fn: Callable, *arrays):
        raise NotImplementedError

    @property
    def num_arrays(self) -> int:
        raise NotImplementedError

    def _u(self, u_fn, x):
        return u_fn(x)[:, self.component:self.component + 1]

    def check_output_dim(self, out_dim: int) -> None:
        if self.component >= out_dim:
            raise ProblemError(f"{self.name}: component {self.component} but the model has {out_dim} output(s)")


class BC(Condition):
    """A boundary condition on the points of a pool that `on_boundary(x, geom.on_boundary(x))` accepts."""

    name = "BC"

    def __init__(self, geom, on_boundary: Callable, component: int = 0):
        from .geometry import Geometry

        if not isinstance(geom, Geometry):
            raise ProblemError(f"{type(self).__name__}: geom must be a pinn geometry, got {geom!r}")
        if not callable(on_boundary):
            raise ProblemError(f"{type(self).__name__}: on_boundary must be a callable (x, on_boundary) -> bool, "
                               f"got {on_boundary!r}")
        self.geom, self.on_boundary = geom, on_boundary
        self.component = _check_component(type(self).__name__, component)
        self.name = type(self).__name__

    def _predicate(self, x: np.ndarray) -> np.ndarray:
        return self.geom.on_boundary(x)

    def filter(self, X) -> np.ndarray:
        """The points of X this condition applies to (DeepXDE's `BC.filter`)."""
        X = np.asarray(X, dtype=np.float64)
        if len(X) == 0:
            return X.reshape(0, self.geom.dim)
        on = self._predicate(X)
        keep = np.array([bool(self.on_boundary(X[i], bool(on[i]))) for i in range(len(X))], dtype=bool)
        return X[keep]

    collocation_points = filter

    def _points(self, pool: np.ndarray) -> np.ndarray:
        x = self.filter(pool)
        if len(x) == 0:
            raise ProblemError(f"{self.name} (component {self.component}): none of the {len(pool)} boundary/initial "
                               "points satisfies its on_boundary predicate; raise num_boundary (num_initial) or check "
                               "the predicate")
        return x


class DirichletBC(BC):
    """u_component(x) = func(x) on the selected boundary."""

    def __init__(self, geom, func: Callable, on_boundary: Callable, component: int = 0):
        super().__init__(geom, on_boundary, component)
        self.func = _as_func(type(self).__name__, func)

    num_arrays = 2

    def arrays(self, pool, dtype):
        x = self._points(pool)
        return x.astype(dtype), _values(self.name, self.func, x).astype(dtype)

    def error(self, u_fn, x, target):
        return self._u(u_fn, x) - target


class NeumannBC(BC):
    """du_component/dn(x) = func(x) on the selected boundary (n the outward unit normal)."""

    def __init__(self, geom, func: Callable, on_boundary: Callable, component: int = 0):
        super().__init__(geom, on_boundary, component)
        self.func = _as_func(type(self).__name__, func)

    num_arrays = 3

    def arrays(self, pool, dtype):
        x = self._points(pool)
        return (x.astype(dtype), self.geom.boundary_normal(x).astype(dtype),
                _values(self.name, self.func, x).astype(dtype))

    def normal_derivative(self, u_fn, x, normals):
        """n . grad u_component at the points (M, 1)."""
        return fnp.sum(gradient(u_fn, x, self.component) * normals, axis=1, keepdims=True)

    def error(self, u_fn, x, normals, target):
        return self.normal_derivative(u_fn, x, normals) - target


class RobinBC(NeumannBC):
    """du_component/dn(x) = func(x, u) on the selected boundary; func runs traced (frame.numpy)."""

    num_arrays = 2

    def __init__(self, geom, func: Callable, on_boundary: Callable, component: int = 0):
        if not callable(func):
            raise ProblemError(f"RobinBC: func must be a callable (x, u) -> du/dn, got {func!r}")
        BC.__init__(self, geom, on_boundary, component)
        self.func = func

    def arrays(self, pool, dtype):
        x = self._points(pool)
        return x.astype(dtype), self.geom.boundary_normal(x).astype(dtype)

    def error(self, u_fn, x, normals):
        return self.normal_derivative(u_fn, x, normals) - self.func(x, self._u(u_fn, x))


class PeriodicBC(BC):
    """u (or its derivative of `derivative_order` 1 along `component_x`) equal at each selected boundary
    point and its image on the opposite face (`geom.periodic_point`)."""

    num_arrays = 2

    def __init__(self, geom, component_x: int, on_boundary: Callable, derivative_order: int = 0, component: int = 0):
        super().__init__(geom, on_boundary, component)
        if derivative_order not in (0, 1):
            raise ProblemError(f"PeriodicBC: derivative_order must be 0 or 1, got {derivative_order!r}")
        if isinstance(component_x, bool) or not isinstance(component_x, (int, np.integer)) or \
                not 0 <= component_x < geom.dim:
            raise ProblemError(f"PeriodicBC: component_x must be an axis in [0, {geom.dim}), got {component_x!r}")
        self.component_x, self.derivative_order = int(component_x), derivative_order

    def arrays(self, pool, dtype):
        x = self._points(pool)
        return x.astype(dtype), self.geom.periodic_point(x, self.component_x).astype(dtype)

    def _value(self, u_fn, x):
        if self.derivative_order == 0:
            return self._u(u_fn, x)
        j = self.component_x
        return gradient(u_fn, x, self.component)[:, j:j + 1]

    def error(self, u_fn, x, x_image):
        return self._value(u_fn, x) - self._value(u_fn, x_image)


class IC(BC):
    """u_component(x, t0) = func(x) on the points `on_initial(x, geom.on_initial(x))` accepts."""

    num_arrays = 2

    def __init__(self, geom, func: Callable, on_initial: Callable, component: int = 0):
        if not hasattr(geom, "on_initial"):
            raise ProblemError(f"IC: geom must be a GeometryXTime (it has no initial slice), got {geom!r}")
        super().__init__(geom, on_initial, component)
        self.func = _as_func(type(self).__name__, func)

    def _predicate(self, x):
        return self.geom.on_initial(x)

    def arrays(self, pool, dtype):
        x = self._points(pool)
        return x.astype(dtype), _values(self.name, self.func, x).astype(dtype)

    def error(self, u_fn, x, target):
        return self._u(u_fn, x) - target


class OperatorBC(BC):
    """A general condition `func(x, u, d) = 0` on the selected points (DeepXDE's `OperatorBC`), written
    like a PDE residual: `d` is the derivative accessor of `pinn.PDE` (reverse mode), e.g. the wave
    equation's initial velocity `lambda x, u, d: d("t")` with `on_initial`-style selection."""

    num_arrays = 1

    def __init__(self, geom, func: Callable, on_boundary: Callable, component: int = 0):
        if not callable(func):
            raise ProblemError(f"OperatorBC: func must be a callable (x, u, d) -> error, got {func!r}")
        super().__init__(geom, on_boundary, component)
        self.func = func

    def _predicate(self, x):
        # on the boundary, or on the initial slice of a space-time geometry
        on = self.geom.on_boundary(x)
        return on | self.geom.on_initial(x) if hasattr(self.geom, "on_initial") else on

    def arrays(self, pool, dtype):
        return (self._points(pool).astype(dtype),)

    def error(self, u_fn, x):
        from .pde import Derivatives   # pde imports this module

        names = getattr(self.geom, "coordinates", None) or _names(self.geom)
        d = Derivatives(u_fn, x, "reverse", names)
        return self.func(x, d.u, d)


def _names(geom) -> tuple:
    from .pde import _coordinate_names

    return _coordinate_names(geom)


class PointSetBC(Condition):
    """u_component(points) = values: observations (inverse problems) or any point data."""

    num_arrays = 2
    name = "PointSetBC"

    def __init__(self, points, values, component: int = 0):
        try:
            p = np.asarray(points, dtype=np.float64)
            v = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ProblemError("PointSetBC: points and values must be numeric arrays") from None
        if p.ndim == 1:
            p = p.reshape(-1, 1)
        if v.ndim == 1:
            v = v.reshape(-1, 1)
        if p.ndim != 2 or len(p) == 0 or v.shape != (len(p), 1):
            raise ProblemError(f"PointSetBC: points must be (M, dim) and values (M, 1) with M >= 1, got points "
                               f"{p.shape} and values {v.shape}")
        if not (np.isfinite(p).all() and np.isfinite(v).all()):
            raise ProblemError(f"PointSetBC: points {p.shape} or values {v.shape} contain NaN/Inf")
        self.points, self.values = p, v
        self.component = _check_component("PointSetBC", component)

    def arrays(self, pool, dtype):
        return self.points.astype(dtype), self.values.astype(dtype)

    def error(self, u_fn, x, values):
        return self._u(u_fn, x) - values


def boundary(x, on_boundary):
    """The whole boundary: DeepXDE's common `lambda x, on_boundary: on_boundary`."""
    return on_boundary


def initial(x, on_initial):
    """The whole initial slice."""
    return on_initial
