"""`PDE`: a PINN problem from a geometry, a residual written on u and its derivatives, and conditions.

DeepXDE's `dde.data.PDE` / `dde.data.TimePDE`, on frame's transforms:

    geom = pinn.Interval(-1, 1)
    def residual(x, u, d):                     # d: derivatives of u at x, like dde.grad
        return -d.hessian(i=0, j=0) - np.pi ** 2 * fnp.sin(np.pi * x)
    bc = pinn.DirichletBC(geom, lambda x: 0.0, pinn.boundary)
    problem = pinn.PDE(geom, residual, [bc], num_domain=128, num_boundary=2,
                       solution=lambda x: np.sin(np.pi * x))
    result = pinn.train(problem, steps=1000, lbfgs_steps=500)

`residual_fn(x, u, d)` gets the traced points x (N, dim), the network's output u (N, out_dim)
and `d`, a `Derivatives` accessor: `d(0)` = du/dx_0, `d(0, 0)` = d2u/dx_0^2, `d(0, 0, 0)`, mixed
`d(0, 1)`, a coordinate name instead of an index (`d("x", "x")`, `d("t")`, `d("xxx")`), `component=`
for a system; and DeepXDE's `d.jacobian(i, j)` = du_i/dx_j, `d.hessian(component, i, j)`,
`d.laplacian()` and `d.grad()`. It may return one residual or a list (a system: one loss term
each). Derivatives are computed once each and shared (u_xx reuses the u_x graph, mixed partials in
any order are one), by frame's graph transforms in the problem's derivative mode:

- "reverse": `frame.grad` of the summed output re-applied per order (pointwise: the network treats
  rows independently), the ARCH-067 structure of `pinn.Poisson1D`;
- "taylor": one Taylor-mode propagation per coordinate axis up to the highest order the residual
  asks along it (`frame.directional_derivatives`), second-order mixed partials by polarisation
  (D^2 along e_i + e_j, minus the pure ones, halved); mixed partials of higher order fall back
  to reverse mode.

`pinn.train` measures both on the collocation points and uses the cheaper one that agrees
(`pinn.derivative_modes`). Which derivatives the residual needs is found once, by calling it on
stand-in numpy values (no differentiation).

Training data (graph inputs, so new points of the same shape never recompile): the domain points
(`num_domain` drawn with `train_distribution`, plus `anchors`), the loss weights, and per
condition its arrays, built from one pool of `num_boundary` boundary and `num_initial` initial
points that each condition filters with its predicate (as DeepXDE does). The loss is
sum_i w_i * mean(term_i^2) over the residual terms then the conditions, in order.

Unknown coefficients (inverse problems) are `Variable`s the residual reads (`nu.value`, or
`nu * expr` with the Variable on the left: a traced array does not know a Variable); list them in
`variables=` and they are trained with the network (the parameters become {"net": ..., "variables":
{name: value}}; `PINNResult.variables` reads them back).
"""
from __future__ import annotations

import contextlib
import math
from typing import Callable, Sequence

import numpy as np

import frame
import frame.numpy as fnp

from . import derivative_modes
from .causal import CausalWeighting
from .conditions import Condition
from .geometry import Geometry, GeometryXTime
from .models import MODELS, Network
from .problems import Problem, ProblemError
from .sampling import as_rng, check_method


class Variable:
    """An unknown scalar coefficient trained with the network (DeepXDE's `dde.Variable`).

    In a residual, read it as `v.value` (a traced scalar while the loss is traced, the current
    numpy value otherwise); `v * expr`, `v + expr`, `-v`, `v ** k` also work with the Variable on
    the left."""

    def __init__(self, value: float, name: str | None = None):
        try:
            self.initial = float(value)
        except (TypeError, ValueError):
            raise ProblemError(f"Variable: value must be a number, got {value!r}") from None
        if not math.isfinite(self.initial):
            raise ProblemError(f"Variable: value must be finite, got {value!r}")
        self.name = name
        self._bound = None

    @property
    def value(self):
        return np.asarray(self.initial) if self._bound is None else self._bound

    def __mul__(self, other):
        return self.value * other

    def __add__(self, other):
        return self.value + other

    def __sub__(self, other):
        return self.value - other

    def __truediv__(self, other):
        return self.value / other

    def __pow__(self, other):
        return self.value ** other

    def __neg__(self):
        return -self.value

    def __float__(self):
        return float(np.asarray(self._bound if isinstance(self._bound, np.ndarray) else self.initial))

    def __repr__(self):
        return f"Variable({self.initial:g}, name={self.name!r})"


@contextlib.contextmanager
def bound(variables: Sequence[Variable], values: dict):
    """Variables read `values[name]` inside the block (the traced or current parameters)."""
    previous = [v._bound for v in variables]
    try:
        for v in variables:
            v._bound = values[v.name]
        yield
    finally:
        for v, p in zip(variables, previous):
            v._bound = p


class Derivatives:
    """Derivatives of u = u_fn(x) at the points x, computed on request and shared (see the module doc).

    `mode` is "reverse" or "taylor"; `taylor_orders[(component, axis)]` is the highest pure order
    the residual needs along an axis (so one propagation serves them all); `requests` records
    every derivative asked for, as (component, sorted axes)."""

    def __init__(self, u_fn: Callable, x, mode: str = "reverse", coordinates: Sequence[str] = (),
                 taylor_orders: dict | None = None):
        self.u_fn, self.x, self.mode = u_fn, x, mode
        self.dim = int(x.shape[1])
        self.coordinates = tuple(coordinates)
        self.taylor_orders = dict(taylor_orders or {})
        self.requests: list[tuple[int, tuple]] = []
        self._u = None
        self._values: dict = {}
        self._grads: dict = {}
        self._fns: dict = {}
        self._series: dict = {}

    # -- the user's API
    @property
    def u(self):
        if self._u is None:
            self._u = self.u_fn(self.x)
        return self._u

    def __call__(self, *axes, component: int = 0):
        """d^k u_component / dx_{axes[0]} ... dx_{axes[k-1]} at the points, (N, 1)."""
        return self.derivative(self._axes(axes), component)

    def jacobian(self, i: int = 0, j: int = 0):
        """du_i / dx_j (DeepXDE's `dde.grad.jacobian(y, x, i, j)`)."""
        return self.derivative(self._axes((j,)), i)

    def hessian(self, component: int = 0, i: int = 0, j: int = 0):
        """d2u_component / dx_i dx_j (DeepXDE's `dde.grad.hessian(y, x, component, i, j)`)."""
        return self.derivative(self._axes((i, j)), component)

    def laplacian(self, component: int = 0, axes: Sequence | None = None):
        """sum_j d2u/dx_j^2 over `axes` (default: every coordinate; pass the spatial ones for a time PDE)."""
        axes = range(self.dim) if axes is None else self._axes(tuple(axes))
        terms = [self.derivative((j, j), component) for j in axes]
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        return total

    def grad(self, component: int = 0):
        """(du/dx_0, ..., du/dx_{dim-1}) at the points, (N, dim)."""
        return fnp.concatenate([self.derivative((j,), component) for j in range(self.dim)], axis=1)

    # -- resolution
    def _axis(self, a) -> int:
        if isinstance(a, str) and a in self.coordinates:
            return self.coordinates.index(a)
        if isinstance(a, (int, np.integer)) and not isinstance(a, bool) and 0 <= a < self.dim:
            return int(a)
        names = f" or a name in {self.coordinates}" if self.coordinates else ""
        raise ProblemError(f"derivative: axis {a!r} is not an index in [0, {self.dim}){names}")

    def _axes(self, axes) -> tuple:
        out = []
        for a in axes:
            if isinstance(a, str) and a not in self.coordinates and len(a) > 1 and \
                    all(c in self.coordinates for c in a):
                out += [self._axis(c) for c in a]     # "xxt" spells three axes
            else:
                out.append(self._axis(a))
        return tuple(out)

    def derivative(self, axes: tuple, component: int = 0):
        if isinstance(component, bool) or not isinstance(component, (int, np.integer)) or component < 0:
            raise ProblemError(f"derivative: component must be a non-negative int, got {component!r}")
        key = (int(component), tuple(sorted(axes)))
        self.requests.append(key)
        if key not in self._values:
            if not key[1]:
                n_out = int(self.u.shape[1])
                if component >= n_out:
                    raise ProblemError(f"derivative: component {component} but u has {n_out} output(s)")
                self._values[key] = self.u[:, component:component + 1]
            elif self.mode == "taylor":
                self._values[key] = self._taylor(*key)
            else:
                self._values[key] = self._reverse(*key)
        return self._values[key]

    # reverse mode: f_() = u_c, G_p = grad(sum f_p) (N, dim), f_{p + (j,)} = G_p[:, j]
    def _fn(self, c: int, key: tuple) -> Callable:
        if (c, key) not in self._fns:
            if not key:
                self._fns[(c, key)] = lambda x, c=c: self.u_fn(x)[:, c:c + 1]
            else:
                g, j = self._grad_fn(c, key[:-1]), key[-1]
                self._fns[(c, key)] = lambda x, g=g, j=j: g(x)[:, j:j + 1]
        return self._fns[(c, key)]

    def _grad_fn(self, c: int, prefix: tuple) -> Callable:
        f = self._fn(c, prefix)
        return lambda x: frame.grad(lambda y: fnp.sum(f(y)))(x)

    def _reverse(self, c: int, key: tuple):
        prefix, j = key[:-1], key[-1]
        if (c, prefix) not in self._grads:
            self._grads[(c, prefix)] = self._grad_fn(c, prefix)(self.x)
        return self._grads[(c, prefix)][:, j:j + 1]

    # Taylor mode
    def _series_along(self, c: int, direction: tuple, order: int) -> list:
        """[u_c, D u_c, ..., D^order u_c] along `direction` (a tuple of axes, summed unit vectors)."""
        have = self._series.get((c, direction))
        if have is None or len(have) <= order:
            v = np.zeros(self.dim, dtype=np.dtype(self.x.dtype).name)
            for a in direction:
                v[a] += 1.0
            fn = lambda x: self.u_fn(x)[:, c:c + 1]  # noqa: E731
            have = frame.directional_derivatives(fn, direction=v, order=order)(self.x)
            self._series[(c, direction)] = have
        return have

    def _taylor(self, c: int, key: tuple):
        axes = set(key)
        if len(axes) == 1:
            (j,) = axes
            order = max(len(key), self.taylor_orders.get((c, j), 0))
            return self._series_along(c, (j,), order)[len(key)]
        if len(key) == 2:
            i, j = key
            both = self._series_along(c, (i, j), 2)[2]
            return 0.5 * (both - self.derivative((i, i), c) - self.derivative((j, j), c))
        return self._reverse(c, key)    # mixed partials of order >= 3: reverse mode


class _Recorder:
    """A stand-in accessor that records which derivatives a residual asks for and returns ones."""

    def __init__(self, n: int, dim: int, out_dim: int, coordinates):
        self._d = Derivatives(lambda x: x, np.zeros((n, dim)), coordinates=coordinates)
        self.n, self.dim, self.out_dim = n, dim, out_dim
        self.requests = self._d.requests
        self.u = np.ones((n, out_dim))

    def derivative(self, axes, component=0):
        self.requests.append((int(component), tuple(sorted(axes))))
        return np.ones((self.n, 1))

    def __call__(self, *axes, component=0):
        return self.derivative(self._d._axes(axes), component)

    def jacobian(self, i=0, j=0):
        return self.derivative(self._d._axes((j,)), i)

    def hessian(self, component=0, i=0, j=0):
        return self.derivative(self._d._axes((i, j)), component)

    def laplacian(self, component=0, axes=None):
        axes = range(self.dim) if axes is None else self._d._axes(tuple(axes))
        return sum(self.derivative((j, j), component) for j in axes)

    def grad(self, component=0):
        return np.hstack([self.derivative((j,), component) for j in range(self.dim)])


def _coordinate_names(geometry: Geometry) -> tuple:
    if isinstance(geometry, GeometryXTime):
        return _coordinate_names(geometry.geometry) + ("t",)
    return ("x", "y", "z", "w")[:geometry.dim] if geometry.dim <= 4 else tuple(f"x{i}" for i in range(geometry.dim))


class PDE(Problem):
    """A PDE on a geometry with conditions (DeepXDE's `dde.data.PDE`; see the module docstring).

    - `geometry`: a `pinn.geometry` geometry; `residual_fn(x, u, d)` the residual(s);
    - `conditions`: `pinn.conditions` instances (DeepXDE's `bcs`);
    - `num_domain`, `num_boundary`, `num_initial` points drawn with `train_distribution`
      ("Hammersley" default as in DeepXDE, "pseudo", "LHS", "Halton", "Sobol", or "uniform": the
      geometry's grid), per `seed` of `training_data`; `anchors` (M, dim) are added to the domain;
    - `solution(x) -> (M, out_dim)`: the reference for the error on `num_test` grid points (or
      `test_x`); without it the error is NaN;
    - `loss_weights`: one per term (residuals first, then conditions), default all 1;
    - `variables`: `Variable`s trained with the network (inverse problems);
    - `output_dim`, `layers` (the default model's hidden widths, or a full layer list), `name`,
      `dtype`;
    - `causal`: a `pinn.causal.CausalWeighting` (a time-dependent problem): each residual term is
      the causally weighted mean over time slices instead of the plain mean square.
    """

    derivative_modes = ("reverse", "taylor")

    def __init__(self, geometry: Geometry, residual_fn: Callable, conditions: Sequence[Condition] = (),
                 num_domain: int = 0, num_boundary: int = 0, train_distribution: str = "Hammersley",
                 anchors=None, solution: Callable | None = None, num_test: int | None = None, *,
                 num_initial: int = 0, test_x=None, loss_weights=None, variables: Sequence[Variable] = (),
                 output_dim: int = 1, layers: Sequence[int] = (32, 32, 32), name: str = "pde",
                 dtype: str = "float64", input_bounds="auto", causal=None):
        if not isinstance(geometry, Geometry):
            raise ProblemError(f"PDE: geometry must be a pinn geometry (Interval, Rectangle, ...), got {geometry!r}")
        if not callable(residual_fn):
            raise ProblemError(f"PDE: residual_fn must be a callable (x, u, d) -> residual, got {residual_fn!r}")
        self.geometry, self.residual_fn = geometry, residual_fn
        if isinstance(conditions, Condition):
            conditions = [conditions]
        self.conditions = list(conditions)
        for c in self.conditions:
            if not isinstance(c, Condition):
                raise ProblemError(f"PDE: conditions must be pinn conditions (DirichletBC, IC, ...), got {c!r}")
        self.output_dim = self._count("output_dim", output_dim, 1)
        for c in self.conditions:
            c.check_output_dim(self.output_dim)
            dim = c.points.shape[1] if hasattr(c, "points") else c.geom.dim
            if dim != geometry.dim:
                raise ProblemError(f"PDE: {c.name} lives in {dim} dimension(s), the geometry in {geometry.dim}")
        self.num_domain = self._count("num_domain", num_domain)
        self.num_boundary = self._count("num_boundary", num_boundary)
        self.num_initial = self._count("num_initial", num_initial)
        if self.num_initial and not isinstance(geometry, GeometryXTime):
            raise ProblemError("PDE: num_initial needs a GeometryXTime (a space-time geometry)")
        self.train_distribution = "uniform" if train_distribution == "uniform" else check_method(train_distribution)
        self.anchors = None if anchors is None else self._points("anchors", anchors)
        if self.num_domain == 0 and self.anchors is None:
            raise ProblemError("PDE: give num_domain > 0 or anchors: the residual needs points")
        if solution is not None and not callable(solution):
            raise ProblemError(f"PDE: solution must be a callable x -> u, got {solution!r}")
        self.solution = solution
        self.num_test = self._count("num_test", 1000 if num_test is None else num_test, 1)
        self.test_x = None if test_x is None else self._points("test_x", test_x)
        self.variables = list(variables)
        names = set()
        for i, v in enumerate(self.variables):
            if not isinstance(v, Variable):
                raise ProblemError(f"PDE: variables must be pinn.Variable, got {v!r}")
            if v.name is None:
                v.name = f"v{i}"
            if v.name in names:
                raise ProblemError(f"PDE: two variables are named {v.name!r}")
            names.add(v.name)
        self.dtype = np.dtype(dtype).name
        if self.dtype not in ("float32", "float64"):
            raise ProblemError(f"PDE: dtype must be float32 or float64, got {dtype!r}")
        self.name = name
        self.coordinates = _coordinate_names(geometry)
        self.layers = list(layers)
        lower, upper = geometry.bbox
        if input_bounds == "auto":
            # The default model sees the bounding box rescaled to [-1, 1] (none needed when it is that already).
            input_bounds = None if (np.all(lower == -1) and np.all(upper == 1)) else (lower, upper)
        self.input_bounds = input_bounds
        self._requested = None
        self._test_reference = None
        self.n_residuals = len(self._requested_derivatives()[1])
        self.loss_weights = self.check_weights(loss_weights)
        if causal is not None and not isinstance(causal, CausalWeighting):
            raise ProblemError(f"PDE: causal must be a pinn.causal.CausalWeighting, got {causal!r}")
        self.causal = None if causal is None else causal.bind(geometry)

    # -- checks
    @staticmethod
    def _count(name, n, minimum=0) -> int:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < minimum:
            raise ProblemError(f"PDE: {name} must be an int >= {minimum}, got {n!r}")
        return int(n)

    def _points(self, name, x) -> np.ndarray:
        try:
            a = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            raise ProblemError(f"PDE: {name} must be numeric points") from None
        if a.ndim == 1 and self.geometry.dim == 1:
            a = a.reshape(-1, 1)
        if a.ndim != 2 or a.shape[1] != self.geometry.dim or not np.isfinite(a).all():
            raise ProblemError(f"PDE: {name} must be finite points of shape (M, {self.geometry.dim}), got {a.shape}")
        return a

    @property
    def num_terms(self) -> int:
        return self.n_residuals + len(self.conditions)

    @property
    def term_names(self) -> list[str]:
        res = ["residual"] if self.n_residuals == 1 else [f"residual {i}" for i in range(self.n_residuals)]
        names = [c.name for c in self.conditions]
        seen: dict = {}
        for c in names:   # a repeated kind is numbered within its kind: DirichletBC 0, DirichletBC 1
            seen[c] = seen.get(c, -1) + 1
            res.append(f"{c} {seen[c]}" if names.count(c) > 1 else c)
        return res

    def check_weights(self, weights) -> np.ndarray:
        """Loss weights as a (num_terms,) array (default ones); a `ProblemError` for a wrong count or sign."""
        if weights is None:
            return np.ones(self.num_terms)
        try:
            w = np.asarray(weights, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise ProblemError(f"{self.name}: loss_weights must be numbers, got {weights!r}") from None
        if w.shape != (self.num_terms,) or not np.isfinite(w).all() or np.any(w < 0):
            raise ProblemError(f"{self.name}: loss_weights needs {self.num_terms} finite non-negative numbers "
                               f"({', '.join(self.term_names)}), got {weights!r}")
        return w

    def _requested_derivatives(self):
        """(requests, residuals) from one call of the residual on stand-in numpy values."""
        if self._requested is None:
            n = 4
            x = self.geometry.random_points(n, "pseudo", seed=0)
            rec = _Recorder(n, self.geometry.dim, self.output_dim, self.coordinates)
            try:
                with np.errstate(all="ignore"):
                    out = self.residual_fn(x, rec.u, rec)
            except ProblemError:
                raise
            except Exception as e:  # the user's residual failed on plain values: report it now, not mid-trace
                raise ProblemError(f"{self.name}: residual_fn(x, u, d) failed on numpy points of shape {x.shape}: "
                                   f"{type(e).__name__}: {e}") from e
            residuals = list(out) if isinstance(out, (list, tuple)) else [out]
            if not residuals:
                raise ProblemError(f"{self.name}: residual_fn returned no residual")
            self._requested = (sorted(set(rec.requests)), residuals)
        return self._requested

    def taylor_orders(self) -> dict:
        orders = {}
        for c, key in self._requested_derivatives()[0]:
            if key and len(set(key)) == 1:
                orders[(c, key[0])] = max(orders.get((c, key[0]), 0), len(key))
        return orders

    def default_callbacks(self) -> list:
        """Callbacks `python -m pinn` trains this problem with (none unless a zoo problem says so)."""
        return []

    # -- model and parameters
    def default_model(self, seed: int = 0, layers: Sequence[int] | None = None, activation: str = "tanh",
                      kind: str = "mlp", **kwargs) -> Network:
        """The network this problem trains by default: `kind` ("mlp", "fourier", "modified") with hidden
        widths `layers` (or a full layer list starting with the input dimension)."""
        widths = list(self.layers if layers is None else layers)
        full = len(widths) >= 3 and widths[0] == self.geometry.dim and widths[-1] == self.output_dim
        sizes = widths if (layers is not None and full) else [self.geometry.dim] + widths + [self.output_dim]
        if kind not in MODELS:
            raise ProblemError(f"{self.name}: unknown model kind {kind!r}; choose one of {', '.join(MODELS)}")
        return MODELS[kind](sizes, activation=activation, seed=seed, dtype=self.dtype,
                            input_bounds=self.input_bounds, **kwargs)

    def check_model(self, model) -> None:
        if model.in_dim != self.geometry.dim or model.out_dim != self.output_dim:
            raise ProblemError(f"{self.name}: the model must map {self.geometry.dim} input(s) "
                               f"({', '.join(self.coordinates)}) to {self.output_dim} output(s), got layer sizes "
                               f"{model.layer_sizes}")
        if model.dtype != self.dtype:
            raise ProblemError(f"{self.name}: the model's dtype {model.dtype} differs from the problem's {self.dtype}")

    def initial_params(self, model):
        if not self.variables:
            return model.params
        return {"net": model.params,
                "variables": {v.name: np.asarray(v.initial, dtype=self.dtype) for v in self.variables}}

    def network_params(self, params):
        return params["net"] if self.variables else params

    def variable_values(self, params) -> dict:
        return {name: float(v) for name, v in params["variables"].items()} if self.variables else {}

    # -- data
    def _seeds(self, seed):
        rng = as_rng(seed)
        return [int(rng.integers(2 ** 63 - 1)) for _ in range(3)]

    def domain_points(self, seed=0) -> np.ndarray:
        """The residual's points: `num_domain` drawn from the geometry, then the anchors."""
        s = self._seeds(seed)[0]
        parts = []
        if self.num_domain:
            if self.train_distribution == "uniform":
                parts.append(self.geometry.uniform_points(self.num_domain, boundary=False))
            else:
                parts.append(self.geometry.random_points(self.num_domain, self.train_distribution, s))
        if self.anchors is not None:
            parts.append(self.anchors)
        return np.concatenate(parts)

    def condition_pool(self, seed=0) -> np.ndarray:
        """The boundary and initial points the conditions filter."""
        _, sb, si = self._seeds(seed)
        parts = [np.zeros((0, self.geometry.dim))]
        uniform = self.train_distribution == "uniform"
        if self.num_boundary:
            parts.append(self.geometry.uniform_boundary_points(self.num_boundary) if uniform else
                         self.geometry.random_boundary_points(self.num_boundary, self.train_distribution, sb))
        if self.num_initial:
            parts.append(self.geometry.uniform_initial_points(self.num_initial) if uniform else
                         self.geometry.random_initial_points(self.num_initial, self.train_distribution, si))
        return np.concatenate(parts)

    def training_data(self, seed: int = 0) -> tuple:
        """(domain points (N, dim), loss weights (num_terms,), then each condition's arrays)."""
        pool = self.condition_pool(seed)
        data = [self.domain_points(seed).astype(self.dtype), self.loss_weights.astype(self.dtype)]
        for c in self.conditions:
            data += list(c.arrays(pool, self.dtype))
        return tuple(data)

    def residual_points(self, data: tuple) -> tuple:
        return (data[0],)

    def with_domain_points(self, data: tuple, x: np.ndarray) -> tuple:
        return (np.asarray(x, dtype=self.dtype),) + tuple(data[1:])

    def with_weights(self, data: tuple, weights) -> tuple:
        return (data[0], self.check_weights(weights).astype(self.dtype)) + tuple(data[2:])

    def _split(self, arrays: tuple) -> list[tuple]:
        out, i = [], 0
        for c in self.conditions:
            out.append(tuple(arrays[i:i + c.num_arrays]))
            i += c.num_arrays
        return out

    # -- derivatives, residual, loss
    def accessor(self, apply: Callable, params, x, mode: str) -> Derivatives:
        return Derivatives(lambda y: apply(params, y), x, mode, self.coordinates, self.taylor_orders())

    def _derivatives_in(self, mode, apply, params, x) -> dict:
        d = self.accessor(apply, params, x, mode)
        return {f"u{c}_" + "".join(self.coordinates[a] for a in key): d.derivative(key, c)
                for c, key in self._requested_derivatives()[0]}

    def reverse_derivatives(self, apply: Callable, params, x) -> dict:
        """Every derivative the residual uses (named like "u0_xx"), by nested reverse mode."""
        return self._derivatives_in("reverse", apply, params, x)

    def taylor_derivatives(self, apply: Callable, params, x) -> dict:
        """The same derivatives by Taylor mode (pure ones per axis, polarised mixed second order)."""
        return self._derivatives_in("taylor", apply, params, x)

    def residuals(self, apply: Callable, params, x, mode: str = "auto") -> list:
        """The residual(s) at points x (N, dim) as a list, for the network parameters `params`."""
        mode = derivative_modes.resolve(self, apply, params, (x,), mode)
        d = self.accessor(apply, params, x, mode)
        out = self.residual_fn(x, d.u, d)
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        if len(out) != self.n_residuals:
            raise ProblemError(f"{self.name}: residual_fn returned {len(out)} residuals, earlier {self.n_residuals}")
        return out

    def pointwise_residual(self, apply: Callable, params, x, mode: str = "reverse"):
        """sum_i |residual_i| at x (N, 1), for the full parameters (variables bound): what RAR ranks."""
        with bound(self.variables, params["variables"] if self.variables else {}):
            res = self.residuals(apply, self.network_params(params), x, mode)
        total = fnp.abs(res[0])
        for r in res[1:]:
            total = total + fnp.abs(r)
        return total

    def residual(self, apply: Callable, params, x, mode: str = "auto"):
        """The first (or only) residual at x; `residuals` gives all of a system's."""
        return self.residuals(apply, params, x, mode)[0]

    def terms(self, apply: Callable, params, x, condition_arrays: tuple, mode: str = "reverse") -> list:
        """The loss terms mean(e^2), residuals first then conditions (traced or eager); `params` are the
        full parameters (with the variables of an inverse problem)."""
        net = self.network_params(params)
        values = params["variables"] if self.variables else {}
        with bound(self.variables, values):
            res = self.residuals(apply, net, x, mode)
            if self.causal is None:
                terms = [fnp.mean(fnp.square(r)) for r in res]
            else:
                terms = [self.causal.term(r, x) for r in res]
            u_fn = lambda y: apply(net, y)  # noqa: E731
            for c, arrays in zip(self.conditions, self._split(condition_arrays)):
                terms.append(fnp.mean(fnp.square(c.error(u_fn, *arrays))))
        return terms

    def loss(self, apply: Callable, mode: str = "reverse") -> Callable:
        """sum_i weights[i] * term_i, the weights being a data input (changing them never recompiles)."""
        derivative_modes.check_mode(mode)

        def pde_loss(params, x, weights, *condition_arrays):
            terms = self.terms(apply, params, x, condition_arrays, mode)
            total = weights[0] * terms[0]
            for i, t in enumerate(terms[1:], start=1):
                total = total + weights[i] * t
            return total

        return pde_loss

    def causal_weights(self, apply: Callable, params, data: tuple, mode: str = "reverse") -> np.ndarray:
        """The causal weights (n_residuals, chunks) at `params` (full parameters) on `data` (eager)."""
        if self.causal is None:
            raise ProblemError(f"{self.name}: no causal weighting (pass causal=CausalWeighting(...))")
        x = data[0]
        with bound(self.variables, params["variables"] if self.variables else {}):
            res = self.residuals(apply, self.network_params(params), x, mode)
        return np.stack([self.causal.weights(np.asarray(r), x) for r in res])

    def term_losses(self, apply: Callable, params, data: tuple, mode: str = "reverse") -> list[float]:
        """The unweighted loss terms at `params` on `data`, as floats (eager)."""
        return [float(t) for t in self.terms(apply, params, data[0], tuple(data[2:]), mode)]

    # -- reference
    def test_points(self) -> tuple:
        if self.test_x is not None:
            return (self.test_x.astype(self.dtype),)
        return (self.geometry.uniform_points(self.num_test, boundary=True).astype(self.dtype),)

    def reference(self, x) -> np.ndarray:
        if self.solution is None:
            raise ProblemError(f"{self.name}: no solution was given, so there is no reference")
        x = np.asarray(x)
        v = np.asarray(self.solution(x), dtype=np.float64)
        if v.ndim == 1:
            v = v.reshape(-1, 1)
        if v.shape != (len(x), self.output_dim):
            raise ProblemError(f"{self.name}: solution returned shape {v.shape} for points {x.shape}, expected "
                               f"({len(x)}, {self.output_dim})")
        return v.astype(self.dtype)

    def relative_l2_error(self, apply: Callable, params) -> float:
        """||u - u_ref|| / ||u_ref|| on the test points (NaN without a solution)."""
        if self.solution is None:
            return float("nan")
        return super().relative_l2_error(apply, params)

    def __repr__(self):
        n = self.num_domain + (0 if self.anchors is None else len(self.anchors))
        return (f"PDE({self.name}: {self.geometry!r}, {n} domain points, "
                f"{len(self.conditions)} condition(s), {self.n_residuals} residual(s))")


class TimePDE(PDE):
    """DeepXDE's `dde.data.TimePDE(geometryxtime, pde, ic_bcs, num_domain, num_boundary, num_initial, ...)`."""

    def __init__(self, geometryxtime: GeometryXTime, residual_fn: Callable, ic_bcs: Sequence[Condition] = (),
                 num_domain: int = 0, num_boundary: int = 0, num_initial: int = 0,
                 train_distribution: str = "Hammersley", anchors=None, solution: Callable | None = None,
                 num_test: int | None = None, **kwargs):
        if not isinstance(geometryxtime, GeometryXTime):
            raise ProblemError(f"TimePDE: the geometry must be a GeometryXTime, got {geometryxtime!r}")
        super().__init__(geometryxtime, residual_fn, ic_bcs, num_domain, num_boundary, train_distribution, anchors,
                         solution, num_test, num_initial=num_initial, **kwargs)

