"""PDE problems a PINN can be trained on: residual, boundary/initial data and a reference solution.

A problem hands the trainer a loss `loss_fn(params, *data)` whose `data` are numpy arrays
(collocation points, forcing values, boundary data). They enter the compiled training graph as
graph inputs, not constants, so the graph is traced and compiled once and new points of the same
shape never recompile.

Derivatives in the residuals come in two modes (`pinn.derivative_modes`), both transforms of the
traced graph, no tape and no second engine:

- "reverse": `frame.grad` re-applied to its own derived graph (ARCH-067): `u_x` is the gradient of
  `sum(u)` w.r.t. x, `u_xx` the gradient of `sum(u_x)` w.r.t. x, and the trainer then takes the
  gradient of the loss w.r.t. the parameters — three applications of the one backward transform;
- "taylor": one Taylor-mode propagation along each coordinate gives `u, u_x, u_xx`
  (`frame.directional_derivatives`), and the trainer's gradient is reverse mode
  over it.

`derivatives` and `residual` take `mode="auto"` (default): the cheapest mode that agrees with
reverse mode, measured once per problem, model and input shapes (`derivative_modes.choose`).
`loss(apply, mode)` builds the training loss for one mode: "reverse" unless asked (the ARCH-067
structure); `pinn.train` measures the modes on the collocation points and passes the cheapest.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

import frame
import frame.numpy as fnp
from frame.errors import FrameError

from . import derivative_modes
from .models import MLP
from .reference import burgers_cole_hopf, poisson1d_green


class ProblemError(FrameError, ValueError):
    """A problem was posed with bad input (shapes, non-finite data, a non-callable forcing, ...)."""


def pointwise_derivative(fn: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """`coords -> d fn / d coords[argnums]`, pointwise, for a function that treats rows independently.

    It is `frame.grad` of the scalar contraction `sum(fn(*coords))`. That gradient is a
    vector–Jacobian product with a vector of ones: d/dx_i sum_j u(x_j) = sum_j du(x_j)/dx_i. For an
    MLP applied row by row, u(x_j) depends on x_i only when j = i (the collocation points never
    interact: matmul mixes features within a row, never rows), so the Jacobian is diagonal and the
    contraction returns exactly du(x_i)/dx_i at every point. The same holds when re-applied to
    `fn = u_x` for u_xx (ARCH-067). It does NOT hold for a model that mixes points (batch
    normalisation, attention over points, a spectral layer over a grid as in `pino`): there the sum
    adds cross terms du(x_j)/dx_i, and pointwise derivatives need one contraction per direction.
    With a tuple `argnums` it returns one derivative per listed coordinate, from one transform.
    """

    def derivative(*coords):
        return frame.grad(lambda *c: fnp.sum(fn(*c)), argnums=argnums)(*coords)

    return derivative


def as_points(name: str, array, dtype: str, allow_empty: bool = False) -> np.ndarray:
    """`array` as a finite (N, 1) float array of `dtype`; `ProblemError` naming `name` otherwise."""
    try:
        a = np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise ProblemError(f"{name} must be numeric points, got {type(array).__name__}") from None
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2 or a.shape[1] != 1:
        raise ProblemError(f"{name} must have shape (N,) or (N, 1), got {a.shape}")
    if a.shape[0] == 0 and not allow_empty:
        raise ProblemError(f"{name} is empty")
    bad = ~np.isfinite(a)
    if bad.any():
        raise ProblemError(f"{name} (shape {a.shape}) contains {int(bad.sum())} NaN/Inf value(s), first at row "
                           f"{int(np.argwhere(bad)[0][0])}")
    return a.astype(dtype)


def _check_inside(name: str, points: np.ndarray, low: float, high: float) -> None:
    outside = (points < low) | (points > high)
    if outside.any():
        raise ProblemError(f"{name} (shape {points.shape}) has {int(outside.sum())} point(s) outside [{low}, {high}], "
                           f"e.g. {float(points[outside][0])}")


def evaluate_function(name: str, fn: Callable, points: np.ndarray) -> np.ndarray:
    """`fn(points)` as a finite array of the points' shape (a scalar result is broadcast)."""
    try:
        values = np.asarray(fn(points), dtype=np.float64)
    except FrameError:
        raise
    except Exception as e:  # the user's function failed: say which one and on what
        raise ProblemError(f"{name} failed on points of shape {points.shape}: {type(e).__name__}: {e}") from e
    if values.size == 1:
        values = np.full(points.shape, float(values.reshape(())))
    if values.shape != points.shape:
        if values.size == points.size and values.ndim == 1:
            values = values.reshape(points.shape)
        else:
            raise ProblemError(f"{name} returned shape {values.shape} for points of shape {points.shape}")
    bad = ~np.isfinite(values)
    if bad.any():
        raise ProblemError(f"{name} returned {int(bad.sum())} NaN/Inf value(s) on points of shape {points.shape}, "
                           f"e.g. at {float(points.reshape(-1)[np.argmax(bad.reshape(-1))])}")
    return values.astype(points.dtype)


def _check_callable(name: str, fn) -> None:
    if not callable(fn):
        raise ProblemError(f"{name} must be callable (numpy array -> numpy array), got {type(fn).__name__}: {fn!r}")


def _check_interval(name: str, interval) -> tuple[float, float]:
    try:
        low, high = (float(v) for v in interval)
    except (TypeError, ValueError):
        raise ProblemError(f"{name} must be a pair of numbers (low, high), got {interval!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ProblemError(f"{name} must be finite with low < high, got {interval!r}")
    return low, high


def _check_count(name: str, n) -> int:
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ProblemError(f"{name} must be a positive int, got {n!r}")
    return int(n)


class Problem:
    """What a PDE problem provides to `pinn.train` (subclasses: `Poisson1D`, `Burgers1D`).

    - `coordinates`: names of the independent variables, e.g. ("x",) or ("x", "t");
    - `training_data(seed) -> tuple` of numpy arrays: the loss's data (graph inputs);
    - `loss(apply, mode) -> loss_fn(params, *data)`: the scalar PINN loss for a model's `apply`;
    - `derivatives(apply, params, *coords, mode) -> dict`: u and the derivatives its residual uses;
    - `residual(apply, params, *coords, mode)`: the PDE residual at points (zero for the solution);
    - `residual_points(data) -> tuple`: the coordinate arrays of the residual among the training data;
    - `test_points() -> tuple` of (M, 1) coordinate arrays, `reference(*coords)` the solution there.

    - `data(seed, dtype)`, `metrics(result)`: the `workbench.protocols.Problem` members (training data in
      the problem's dtype; the trained result's relative L2 error, final loss and coefficients).

    `mode` is a derivative mode of `pinn.derivative_modes` ("reverse", "taylor") or "auto"
    (measured, cached; the default of `derivatives` and `residual`). A subclass computes its derivatives per mode in
    `<mode>_derivatives(apply, params, *coords)`, and lists the modes it has in `derivative_modes`.
    """

    name = "problem"
    coordinates: tuple[str, ...] = ()
    default_layers: list[int] = []
    dtype = "float64"
    input_bounds = None  # (lower, upper) per coordinate: the default model rescales inputs to [-1, 1]
    derivative_modes: tuple[str, ...] = ("reverse", "taylor")
    lbfgs_method = "L-BFGS-B"   # `pinn.train`'s default `lbfgs_method` for this problem (frame.train.lbfgs's `method`)
    # The training-data arguments split along axis 0 for data-parallel training (`pinn.train(client=)`):
    # those whose rows the loss averages over; None: the problem cannot be sharded.
    sharded_arguments: tuple[int, ...] | None = None

    def default_model(self, seed: int = 0, layers: Sequence[int] | None = None, activation: str = "tanh") -> MLP:
        """The MLP this problem is meant to be trained with."""
        return MLP(list(layers or self.default_layers), activation=activation, seed=seed, dtype=self.dtype,
                   input_bounds=self.input_bounds)

    def check_model(self, model: MLP) -> None:
        """`ProblemError` unless the model maps this problem's coordinates to one value in its dtype."""
        if model.in_dim != len(self.coordinates) or model.out_dim != 1:
            raise ProblemError(f"{self.name}: the model must map {len(self.coordinates)} input(s) "
                               f"({', '.join(self.coordinates)}) to 1 output, got layer sizes {model.layer_sizes}")
        if model.dtype != self.dtype:
            raise ProblemError(f"{self.name}: the model's dtype {model.dtype} differs from the problem's {self.dtype}")

    def u(self, apply: Callable, params, *coords):
        """The network's solution at points given as one (N, 1) array per coordinate."""
        x = coords[0] if len(coords) == 1 else fnp.concatenate(list(coords), axis=1)
        return apply(params, x)

    def predict(self, apply: Callable, params, *coords) -> np.ndarray:
        """`u` on numpy points (runs eagerly)."""
        return np.asarray(self.u(apply, params, *coords))

    def relative_l2_error(self, apply: Callable, params) -> float:
        """||u - u_ref|| / ||u_ref|| on the problem's test points."""
        coords = self.test_points()
        reference = self.test_reference()
        prediction = self.predict(apply, params, *coords)
        return float(np.linalg.norm(prediction - reference) / np.linalg.norm(reference))

    def test_reference(self) -> np.ndarray:
        """The reference solution on `test_points()` (computed once and cached)."""
        if getattr(self, "_test_reference", None) is None:
            self._test_reference = self.reference(*self.test_points())
        return self._test_reference

    def derivatives(self, apply: Callable, params, *coords, mode: str = "auto") -> dict:
        """u and the derivatives the residual uses at points (one (N, 1) array per coordinate), in
        `mode` ("auto": the cheapest correct mode for this model and these shapes, measured once)."""
        mode = derivative_modes.resolve(self, apply, params, coords, mode)
        return getattr(self, f"{mode}_derivatives")(apply, params, *coords)

    def residual_points(self, data: tuple) -> tuple:
        """The residual's coordinate arrays among `training_data()`: its first ones, one per coordinate."""
        return tuple(data[:len(self.coordinates)])

    def initial_params(self, model):
        """The parameters training starts from: the model's (a problem with unknown coefficients adds them)."""
        return model.params

    def network_params(self, params):
        """The network's part of the trained parameters (all of them unless the problem adds its own)."""
        return params

    def variable_values(self, params) -> dict:
        """Trained unknown coefficients by name (none for a forward problem)."""
        return {}

    # -- the workbench protocol (`workbench.protocols.Problem`)
    def data(self, seed: int = 0, dtype: str | None = None) -> tuple:
        """`training_data(seed)`, in the problem's dtype (fixed when it was posed: `dtype`, if given, must be it)."""
        if dtype is not None and np.dtype(dtype).name != self.dtype:
            raise ProblemError(f"{self.name}: the problem was posed in {self.dtype}, not {np.dtype(dtype).name}; "
                               f"pose it with dtype={np.dtype(dtype).name!r}")
        return tuple(self.training_data(seed))

    def metrics(self, result) -> dict:
        """Figures of a trained result (`pinn.PINNResult`): relative L2 error on the test points (a fraction),
        the final loss, and an inverse problem's trained coefficients."""
        params = self.network_params(result.params)
        metrics = {"relative_l2_error": self.relative_l2_error(result.model.apply, params),
                   "final_loss": float(result.history[-1]) if result.history else float("nan")}
        metrics.update(self.variable_values(result.params))
        return metrics

    # -- to be provided by subclasses
    def training_data(self, seed: int = 0) -> tuple:
        raise NotImplementedError

    def loss(self, apply: Callable, mode: str = "reverse") -> Callable:
        raise NotImplementedError

    def reverse_derivatives(self, apply: Callable, params, *coords) -> dict:
        raise NotImplementedError

    def taylor_derivatives(self, apply: Callable, params, *coords) -> dict:
        raise NotImplementedError

    def residual(self, apply: Callable, params, *coords, mode: str = "auto"):
        raise NotImplementedError

    def test_points(self) -> tuple:
        raise NotImplementedError

    def reference(self, *coords) -> np.ndarray:
        raise NotImplementedError


def _default_forcing(x):
    return np.pi ** 2 * np.sin(np.pi * x)


def _default_exact(x):
    return np.sin(np.pi * x)


class Poisson1D(Problem):
    """`-u''(x) = f(x)` on [a, b] with `u(a) = ua`, `u(b) = ub`.

    Defaults: f = pi^2 sin(pi x) on [-1, 1] with u(±1) = 0, whose solution is sin(pi x).
    `forcing` and `exact` are callables on numpy arrays; without `exact` (and whenever the forcing,
    domain or boundary values differ from the defaults) the reference is the Green's-function
    solution by quadrature (`pinn.reference.poisson1d_green`). Collocation points are
    `n_collocation` evenly spaced interior points unless `collocation` gives them. Forcing values
    are evaluated once in numpy and fed to the loss as data.
    """

    sharded_arguments = (0, 1)   # collocation x and f(x) together; the boundary terms go to every worker

    name = "poisson1d"
    coordinates = ("x",)
    default_layers = [1, 50, 50, 50, 1]

    def __init__(self, forcing: Callable | None = None, domain=(-1.0, 1.0), boundary_values=(0.0, 0.0),
                 exact: Callable | None = None, n_collocation: int = 128, collocation=None, n_test: int = 1001,
                 dtype: str = "float64"):
        self.dtype = np.dtype(dtype).name
        default = forcing is None
        self.forcing = _default_forcing if forcing is None else forcing
        _check_callable("Poisson1D forcing", self.forcing)
        if exact is not None:
            _check_callable("Poisson1D exact", exact)
        self.domain = _check_interval("Poisson1D domain", domain)
        try:
            self.boundary_values = tuple(float(v) for v in boundary_values)
        except (TypeError, ValueError):
            raise ProblemError(f"Poisson1D boundary_values must be two numbers, got {boundary_values!r}") from None
        if len(self.boundary_values) != 2 or not all(map(math.isfinite, self.boundary_values)):
            raise ProblemError(f"Poisson1D boundary_values must be two finite numbers, got {boundary_values!r}")
        default = default and self.domain == (-1.0, 1.0) and self.boundary_values == (0.0, 0.0)
        self.exact = exact if exact is not None else (_default_exact if default else None)
        self.n_test = _check_count("Poisson1D n_test", n_test)
        low, high = self.domain
        if self.domain != (-1.0, 1.0):  # the default model sees x rescaled to [-1, 1]
            self.input_bounds = ((low,), (high,))
        if collocation is None:
            n = _check_count("Poisson1D n_collocation", n_collocation)
            collocation = np.linspace(low, high, n + 2)[1:-1]
        self.collocation = as_points("Poisson1D collocation", collocation, self.dtype)
        _check_inside("Poisson1D collocation", self.collocation, low, high)
        self.forcing_values = evaluate_function("Poisson1D forcing", self.forcing, self.collocation)
        self.boundary_points = np.array([[low], [high]], dtype=self.dtype)
        self.boundary_targets = np.array([[v] for v in self.boundary_values], dtype=self.dtype)
        self._test_reference = None

    def training_data(self, seed: int = 0) -> tuple:
        """(collocation x (N,1), f(x) (N,1), boundary x (2,1), boundary u (2,1)); the grid ignores `seed`."""
        return self.collocation, self.forcing_values, self.boundary_points, self.boundary_targets

    def reverse_derivatives(self, apply: Callable, params, x) -> dict:
        """u, u_x and u_xx at points x (N, 1); u_xx is the transform applied to the transform's output."""
        u_fn = lambda x: apply(params, x)  # noqa: E731
        u_x_fn = pointwise_derivative(u_fn)
        u_xx_fn = pointwise_derivative(u_x_fn)
        return {"u": u_fn(x), "u_x": u_x_fn(x), "u_xx": u_xx_fn(x)}

    def taylor_derivatives(self, apply: Callable, params, x) -> dict:
        """u, u_x and u_xx at points x (N, 1) from one order-2 Taylor propagation along x."""
        u, u_x, u_xx = frame.directional_derivatives(lambda x: apply(params, x), order=2)(x)
        return {"u": u, "u_x": u_x, "u_xx": u_xx}

    def residual(self, apply: Callable, params, x, f=None, mode: str = "auto"):
        """-u'' - f at x; `f` defaults to the forcing evaluated at x (numpy points only)."""
        if f is None:
            f = evaluate_function("Poisson1D forcing", self.forcing, as_points("x", x, self.dtype))
        return -self.derivatives(apply, params, x, mode=mode)["u_xx"] - f

    def loss(self, apply: Callable, mode: str = "reverse") -> Callable:
        """mean((-u'' - f)^2) over collocation points + mean((u - g)^2) over the two boundary points;
        u'' in derivative `mode` ("auto": measured when the loss is first traced)."""
        derivative_modes.check_mode(mode)

        def poisson_loss(params, x, f, x_boundary, u_boundary):
            # Only u_xx is used: the u and u_x outputs of `derivatives` are dead nodes the pipeline removes.
            u_xx = self.derivatives(apply, params, x, mode=mode)["u_xx"]
            return fnp.mse_loss(-u_xx, f) + fnp.mse_loss(apply(params, x_boundary), u_boundary)

        return poisson_loss

    def test_points(self) -> tuple:
        low, high = self.domain
        return (np.linspace(low, high, self.n_test, dtype=self.dtype).reshape(-1, 1),)

    def reference(self, x) -> np.ndarray:
        """The exact solution when known, else the Green's-function quadrature solution."""
        x = as_points("x", x, self.dtype)
        if self.exact is not None:
            return evaluate_function("Poisson1D exact", self.exact, x)
        return poisson1d_green(self.forcing, x, self.domain, self.boundary_values).astype(self.dtype)

    def __repr__(self):
        return (f"Poisson1D(domain={self.domain}, boundary_values={self.boundary_values}, "
                f"{len(self.collocation)} collocation points)")


class Burgers1D(Problem):
    """Viscous Burgers `u_t + u u_x = nu u_xx` on x in [-1, 1], t in [0, 1] (Raissi et al.'s benchmark).

    u(x, 0) = -sin(pi x), u(±1, t) = 0, nu = 0.01/pi by default; the reference is the Cole–Hopf
    solution (`pinn.reference.burgers_cole_hopf`). Training data: `n_collocation` residual points
    drawn uniformly in the domain (or given as `collocation=(x, t)`), `n_initial` points on t = 0
    and `n_boundary` on each of x = ±1. The test grid is Raissi's 256 x 100 (x, t) grid.
    """

    sharded_arguments = (0, 1)   # the residual points x_f, t_f; initial/boundary data go to every worker

    name = "burgers1d"
    coordinates = ("x", "t")
    default_layers = [2, 20, 20, 20, 20, 20, 20, 20, 20, 1]
    input_bounds = ((-1.0, 0.0), (1.0, 1.0))

    def __init__(self, nu: float = 0.01 / math.pi, n_collocation: int = 10000, n_initial: int = 100,
                 n_boundary: int = 50, collocation=None, test_shape=(256, 100), dtype: str = "float64"):
        self.dtype = np.dtype(dtype).name
        try:
            self.nu = float(nu)
        except (TypeError, ValueError):
            raise ProblemError(f"Burgers1D nu must be a positive number, got {nu!r}") from None
        if not (math.isfinite(self.nu) and self.nu > 0):
            raise ProblemError(f"Burgers1D nu must be a positive number, got {nu!r}")
        self.n_collocation = _check_count("Burgers1D n_collocation", n_collocation)
        self.n_initial = _check_count("Burgers1D n_initial", n_initial)
        self.n_boundary = _check_count("Burgers1D n_boundary", n_boundary)
        if collocation is not None:
            if not isinstance(collocation, (tuple, list)) or len(collocation) != 2:
                raise ProblemError("Burgers1D collocation must be a pair (x, t) of point arrays")
            x, t = (as_points(f"Burgers1D collocation {n}", c, self.dtype) for n, c in zip("xt", collocation))
            if x.shape != t.shape:
                raise ProblemError(f"Burgers1D collocation x and t must have the same shape, got x {x.shape} and "
                                   f"t {t.shape}")
            _check_inside("Burgers1D collocation x", x, -1.0, 1.0)
            _check_inside("Burgers1D collocation t", t, 0.0, 1.0)
            collocation = (x, t)
        self.collocation = collocation
        try:
            self.test_shape = tuple(_check_count("Burgers1D test_shape", int(n)) for n in test_shape)
        except TypeError:
            raise ProblemError(f"Burgers1D test_shape must be (n_x, n_t), got {test_shape!r}") from None
        self._test_reference = None

    def initial_condition(self, x):
        """u(x, 0) = -sin(pi x) (numpy)."""
        return -np.sin(np.pi * x)

    def training_data(self, seed: int = 0) -> tuple:
        """(x_f, t_f) residual points, then (x_u, t_u, u_u) initial/boundary data; all (N, 1)."""
        rng = np.random.default_rng(seed)
        if self.collocation is not None:
            x_f, t_f = self.collocation
        else:
            x_f = rng.uniform(-1.0, 1.0, (self.n_collocation, 1))
            t_f = rng.uniform(0.0, 1.0, (self.n_collocation, 1))
        x0 = rng.uniform(-1.0, 1.0, (self.n_initial, 1))
        tb = rng.uniform(0.0, 1.0, (2 * self.n_boundary, 1))
        xb = np.repeat([[-1.0], [1.0]], self.n_boundary, axis=0)
        x_u = np.concatenate([x0, xb])
        t_u = np.concatenate([np.zeros_like(x0), tb])
        u_u = np.concatenate([self.initial_condition(x0), np.zeros_like(xb)])
        return tuple(a.astype(self.dtype) for a in (x_f, t_f, x_u, t_u, u_u))

    def reverse_derivatives(self, apply: Callable, params, x, t) -> dict:
        """u, u_x, u_t and u_xx at points (x, t); u_x and u_t come from one transform (argnums=(0, 1))."""
        u_fn = lambda x, t: self.u(apply, params, x, t)  # noqa: E731

        def first_order(x, t):
            u_x, u_t = pointwise_derivative(u_fn, argnums=(0, 1))(x, t)
            return fnp.sum(u_x), (u_fn(x, t), u_x, u_t)

        # The transform again, on the derived graph of `first_order`: u_xx = d sum(u_x) / dx. u, u_x
        # and u_t ride along as aux outputs of that same graph, so the training graph holds one copy
        # of the network and of its first derivatives (~16% fewer nodes than re-deriving them).
        u_xx, (u, u_x, u_t) = frame.grad(first_order, has_aux=True)(x, t)
        return {"u": u, "u_x": u_x, "u_t": u_t, "u_xx": u_xx}

    def taylor_derivatives(self, apply: Callable, params, x, t) -> dict:
        """u, u_x, u_t and u_xx at points (x, t): an order-2 Taylor propagation along x and an order-1
        one along t (their common forward pass is merged by the pipeline's CSE)."""
        u_fn = lambda x, t: self.u(apply, params, x, t)  # noqa: E731
        u, u_x, u_xx = frame.directional_derivatives(u_fn, order=2, argnums=0)(x, t)
        u_t = frame.directional_derivatives(u_fn, order=1, argnums=1)(x, t)[1]
        return {"u": u, "u_x": u_x, "u_t": u_t, "u_xx": u_xx}

    def residual(self, apply: Callable, params, x, t, mode: str = "auto"):
        """u_t + u u_x - nu u_xx at (x, t)."""
        d = self.derivatives(apply, params, x, t, mode=mode)
        return d["u_t"] + d["u"] * d["u_x"] - self.nu * d["u_xx"]

    def loss(self, apply: Callable, mode: str = "reverse") -> Callable:
        """mean(residual^2) over collocation points + mean((u - u_data)^2) over initial/boundary points;
        the residual's derivatives in derivative `mode` ("auto": measured when the loss is first traced)."""
        derivative_modes.check_mode(mode)

        def burgers_loss(params, x_f, t_f, x_u, t_u, u_u):
            f = self.residual(apply, params, x_f, t_f, mode=mode)
            return fnp.mean(fnp.square(f)) + fnp.mse_loss(self.u(apply, params, x_u, t_u), u_u)

        return burgers_loss

    def test_grid(self) -> tuple[np.ndarray, np.ndarray]:
        """The 1-D x and t axes of the test grid (x has n_x points on [-1, 1], t n_t points on [0, 0.99])."""
        n_x, n_t = self.test_shape
        return np.linspace(-1.0, 1.0, n_x), np.linspace(0.0, 0.99, n_t)

    def test_points(self) -> tuple:
        """Flattened (x, t) of the test grid, t-major: reshape values to (n_t, n_x) for a space-time map."""
        xs, ts = self.test_grid()
        tt, xx = np.meshgrid(ts, xs, indexing="ij")
        return xx.reshape(-1, 1).astype(self.dtype), tt.reshape(-1, 1).astype(self.dtype)

    def reference(self, x, t) -> np.ndarray:
        """The Cole–Hopf solution at points (x, t)."""
        x = as_points("x", x, self.dtype, allow_empty=True)
        t = as_points("t", t, self.dtype, allow_empty=True)
        if x.shape != t.shape:
            raise ProblemError(f"Burgers1D.reference: x {x.shape} and t {t.shape} must have the same shape")
        return burgers_cole_hopf(x, t, self.nu).astype(self.dtype)

    def __repr__(self):
        n = self.n_collocation if self.collocation is None else len(self.collocation[0])
        return f"Burgers1D(nu={self.nu:.6g}, {n} collocation points)"


PROBLEMS = {"poisson1d": Poisson1D, "burgers1d": Burgers1D}
