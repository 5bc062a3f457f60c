"""How a PINN computes its residual's derivatives: nested reverse mode or Taylor mode, picked by measurement.

Both modes compute the same pointwise derivatives (u_x, u_xx, u_t, ...) of a network applied row
by row (the collocation points never interact):

- "reverse": `frame.grad` of the sum re-applied to its own derived graph
  (`pinn.problems.pointwise_derivative`); each order is one more reverse transform, so the derived
  graph grows exponentially with the order.
- "taylor": one Taylor-mode propagation along each coordinate
  (`frame.directional_derivatives`), whose graph grows quadratically with the order.

Which one is cheaper depends on the network, the orders the residual needs and the batch, and the
training step differentiates the residual once more (w.r.t. the parameters), so "auto" measures
instead of guessing. `select_mode` builds the problem's derivatives with every available mode,
checks that each agrees with reverse mode's (the reference: a mode that disagrees is never
chosen, correctness first), times a few compiled calls of what a training step computes through
them (the parameter gradient of their squared norm) and picks the fastest; another mode replaces
reverse only when it is faster by more than `MARGIN` (a tie, within the measurement's noise, keeps
the reference). The choice is cached per problem, model and input signature, so a training loss
traced later reuses it.

The candidates are timed on the tier training runs on, the native one (each candidate's C kernels
are built before timing: ~0.2 s per candidate the first time, ~0.07 s from the disk cache), on at
most `max_points` rows, taking turns call by call (so load from other processes falls on all of
them alike) for at least three calls each and `min_seconds` in all: about 0.5-0.8 s for the
default problems. The numpy tier is the wrong place to compare them: Taylor mode has more
elementwise work, which the native tier fuses, and there Burgers1D's Taylor mode measured 4% faster
where its native training step is 16% faster (0.84x reverse's, 5 alternating process pairs).
"""
from __future__ import annotations

import statistics
import time
import weakref
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

import frame
import frame.numpy as fnp

#: the derivative modes, in order of preference when timings tie; "auto" selects among them.
MODES = ("reverse", "taylor")
AUTO = "auto"
#: relative tolerance (max |a - b| / max |b| per output) within which a mode agrees with reverse mode.
AGREEMENT_RTOL = {"float64": 1e-8, "float32": 2e-3}
#: another mode is chosen over reverse mode only when it is faster by more than this fraction.
MARGIN = 0.05
#: seconds to wait for a candidate's native build; past it the candidate is timed on the numpy tier.
NATIVE_BUILD_TIMEOUT = 30.0

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # problem -> {signature: ModeChoice}


def _error(message: str):
    # ProblemError lives in pinn.problems, which imports this module: imported when raised.
    from .problems import ProblemError

    return ProblemError(message)


def check_mode(mode) -> str:
    """`mode` if it names a mode or "auto"; a `ProblemError` listing the choices otherwise."""
    if not isinstance(mode, str) or mode not in (AUTO, *MODES):
        raise _error(f"unknown derivative mode {mode!r}; choose one of {', '.join((AUTO, *MODES))}")
    return mode


def candidate_modes(problem) -> list[str]:
    """The modes `problem` implements (its `derivative_modes`) that can run here."""
    implemented = getattr(problem, "derivative_modes", ("reverse",))
    return [m for m in MODES if m in implemented]


def explicit_mode(problem, mode: str) -> str:
    """An explicitly requested mode, checked: known and implemented by the problem."""
    check_mode(mode)
    if mode not in getattr(problem, "derivative_modes", ("reverse",)):
        raise _error(f"{problem.name}: derivative mode {mode!r} is not implemented for this problem "
                     f"(it has {', '.join(problem.derivative_modes)})")
    return mode


@dataclass
class ModeChoice:
    """The mode a problem's residual derivatives use and why.

    timings: seconds per compiled call, per measured mode (empty when the caller chose the mode);
    rejected: mode -> why it was not used (it failed to build, or disagreed with reverse mode);
    points: the rows the modes were timed on; tiers: mode -> the executable tier it was timed on.
    """

    mode: str
    timings: dict = field(default_factory=dict)
    rejected: dict = field(default_factory=dict)
    points: int = 0
    tiers: dict = field(default_factory=dict)

    @property
    def measured(self) -> bool:
        return bool(self.timings)

    def describe(self) -> str:
        """One line: `residual derivatives: <mode> (reverse X ms, taylor Y ms)`."""
        if not self.measured:
            return f"residual derivatives: {self.mode} (set by the caller)"
        times = ", ".join(f"{m} {t * 1e3:.2f} ms" for m, t in self.timings.items())
        line = f"residual derivatives: {self.mode} ({times}"
        line += f" per gradient call on {self.points} points)" if self.points else ")"
        if len(set(self.tiers.values())) > 1:   # a native build failed or timed out: say so
            line += " [tiers: " + ", ".join(f"{m} {t}" for m, t in self.tiers.items()) + "]"
        if self.rejected:
            line += "; not used: " + "; ".join(f"{m}: {why}" for m, why in self.rejected.items())
        return line

    def as_dict(self) -> dict:
        return {"mode": self.mode, "timings_ms": {m: t * 1e3 for m, t in self.timings.items()},
                "rejected": dict(self.rejected), "points": self.points, "tiers": dict(self.tiers)}


def interleaved_medians(calls: dict, repeats: int = 3, min_seconds: float = 0.1,
                        clock: Callable[[], float] = time.perf_counter) -> dict:
    """Median wall seconds per call of each of `calls` (name -> call; their untimed first calls made).

    The calls take turns, one call of each per round, for at least `repeats` rounds and until
    `min_seconds` have been spent timing: a millisecond call gets many samples, a slow one three."""
    times = {name: [] for name in calls}
    spent, rounds = 0.0, 0
    while rounds < repeats or spent < min_seconds:
        for name, call in calls.items():
            t0 = clock()
            call()
            dt = clock() - t0
            times[name].append(dt)
            spent += dt
        rounds += 1
    return {name: statistics.median(ts) for name, ts in times.items()}


def _signature(apply, params, coords) -> tuple:
    leaves, tree = frame.tree_flatten(params)
    return (apply, repr(tree), tuple(_shape_dtype(v) for v in leaves), tuple(_shape_dtype(c) for c in coords))


def _shape_dtype(leaf) -> tuple:
    if isinstance(leaf, (bool, int, float)):
        return ((), type(leaf).__name__)
    return (tuple(leaf.shape), np.dtype(leaf.dtype).name)


def _is_concrete(leaf) -> bool:
    return isinstance(leaf, (np.ndarray, np.generic, bool, int, float))


def _stand_in(leaf, rng: np.random.Generator, coordinate: bool):
    """A concrete array for an abstract leaf (a tracer: the selection runs while a loss is traced).
    Coordinates are drawn in [-1, 1]; parameters scaled like a Glorot init (the values only need to
    exercise every derivative, not to be trained)."""
    if _is_concrete(leaf):
        return leaf
    shape, dtype = tuple(leaf.shape), np.dtype(leaf.dtype)
    if coordinate:
        return rng.uniform(-1.0, 1.0, shape).astype(dtype)
    scale = 1.0 / np.sqrt(shape[0]) if len(shape) == 2 else 0.1
    return (scale * rng.standard_normal(shape)).astype(dtype)


def _program(problem, apply, mode: str, params, coords) -> Callable[[], list]:
    """A compiled call of what a training step computes through the derivatives in `mode`: their
    squared norm's gradient w.r.t. the parameters (with the derivatives as aux outputs), on the
    native tier once it is built (`call.executable` is the executable)."""
    def objective(p, *c):
        # The mode's own method, not `derivatives`: a subclass may override that without a mode.
        d = getattr(problem, f"{mode}_derivatives")(apply, p, *c)
        return sum(fnp.mean(fnp.square(v)) for v in d.values()), d

    has_params = any(isinstance(v, np.ndarray) and v.dtype.kind == "f" or isinstance(v, float)
                     for v in frame.tree_leaves(params))
    fn = frame.value_and_grad(objective, has_aux=True) if has_params else objective
    args = (params, *coords)
    exe = frame.runtime.compile(frame.trace(fn, *args, name=f"{problem.name}_{mode}_derivatives"))
    exe.wait_native(NATIVE_BUILD_TIMEOUT)   # stays on numpy with FRAME_NATIVE=off or without a C compiler
    leaves = frame.tree_leaves(args)
    call = lambda: exe(*leaves)  # noqa: E731
    call.executable = exe
    return call


def _disagreement(outs: Sequence[np.ndarray], reference: Sequence[np.ndarray]) -> float:
    """The largest relative difference, max |a - b| / max |b|, over corresponding outputs.

    An output whose reference is (nearly) zero, e.g. the bias gradient of an odd network on
    symmetric points (~1e-17), is measured against 1e-3 of the largest output instead, or its
    rounding noise would count as disagreement."""
    outs, reference = [np.asarray(a, np.float64) for a in outs], [np.asarray(b, np.float64) for b in reference]
    if len(outs) != len(reference) or any(a.shape != b.shape for a, b in zip(outs, reference)):
        return float("inf")
    floor = 1e-3 * max((float(np.max(np.abs(b), initial=0.0)) for b in reference), default=0.0) or 1e-30
    worst = 0.0
    for a, b in zip(outs, reference):
        if not np.isfinite(a).all():
            return float("inf")
        scale = max(float(np.max(np.abs(b), initial=0.0)), floor)
        worst = max(worst, float(np.max(np.abs(a - b), initial=0.0)) / scale)
    return worst


def select_mode(problem, apply: Callable, params, coords: Sequence, *, modes: Sequence[str] | None = None,
                repeats: int = 3, min_seconds: float = 0.1, max_points: int = 2048, margin: float = MARGIN,
                measure: Callable[[dict], dict] | None = None, clock: Callable[[], float] = time.perf_counter,
                seed: int = 0) -> ModeChoice:
    """Measure the candidate modes for `problem`'s derivatives and return the fastest correct one.

    coords: the residual's coordinate arrays (one (N, 1) array per coordinate); at most
    `max_points` rows are used. Abstract leaves (tracers) get concrete stand-ins of their shape.
    Every mode's outputs (derivatives and parameter gradient) are compared with reverse mode's;
    a mode that disagrees beyond `AGREEMENT_RTOL` is rejected. The remaining modes' calls (after
    one untimed call each) are timed by `measure({mode: call}) -> {mode: seconds}`, by default
    `interleaved_medians` with `repeats`, `min_seconds` and `clock`. The fastest mode wins if it
    beats reverse mode's time by more than `margin` (a fraction); otherwise reverse mode does.
    """
    candidates = list(candidate_modes(problem) if modes is None else modes)
    for m in candidates:
        if m not in MODES:
            raise _error(f"unknown derivative mode {m!r}; choose one of {', '.join(MODES)}")
    if not candidates:
        raise _error(f"{problem.name}: it implements no derivative mode")
    rejected = {}
    rng = np.random.default_rng(seed)
    coords = tuple(_stand_in(c, rng, True)[:max_points] for c in coords)
    params = frame.tree_map(lambda v: _stand_in(v, rng, False), params)
    measure = measure or (lambda calls: interleaved_medians(calls, repeats, min_seconds, clock))
    reference_mode = "reverse" if "reverse" in candidates else candidates[0]
    ordered = [reference_mode] + [m for m in candidates if m != reference_mode]
    tol = AGREEMENT_RTOL.get(np.dtype(coords[0].dtype).name, AGREEMENT_RTOL["float32"])
    reference, programs = None, {}
    for mode in ordered:
        try:
            call = _program(problem, apply, mode, params, coords)
            outs = call()
        except frame.FrameError as e:   # e.g. an op without a Taylor rule: this mode cannot serve the problem
            rejected[mode] = f"{type(e).__name__}: {e}"
            continue
        if reference is None:
            reference = outs
        else:
            diff = _disagreement(outs, reference)
            if not diff <= tol:
                rejected[mode] = f"disagrees with {reference_mode} mode (max relative difference {diff:.1e})"
                continue
        programs[mode] = call
    if not programs:
        raise _error(f"{problem.name}: no derivative mode could be built: {rejected}")
    measured = measure(programs)
    timings = {m: float(measured[m]) for m in programs}
    best = min(timings, key=lambda m: (timings[m], MODES.index(m)))
    if reference_mode in timings and timings[best] >= (1.0 - margin) * timings[reference_mode]:
        best = reference_mode
    return ModeChoice(best, timings, {m: why for m, why in rejected.items() if m not in timings},
                      points=len(coords[0]),
                      tiers={m: getattr(c, "executable", None) and c.executable.tier for m, c in programs.items()})


def choose(problem, apply: Callable, params, coords: Sequence, mode: str = AUTO, **select_kwargs) -> ModeChoice:
    """The `ModeChoice` for `mode`: an explicit mode as asked (checked), "auto" selected once per
    problem, model (`apply`) and input signature and then cached."""
    check_mode(mode)
    if mode != AUTO:
        return ModeChoice(explicit_mode(problem, mode))
    key = _signature(apply, params, coords)
    try:
        cached = _CACHE.get(problem, {}).get(key)
    except TypeError:       # an unhashable apply: nothing to cache it under
        key, cached = None, None
    if cached is not None:
        return cached
    choice = select_mode(problem, apply, params, coords, **select_kwargs)
    if key is not None:
        _CACHE.setdefault(problem, {})[key] = choice
    return choice


def resolve(problem, apply: Callable, params, coords: Sequence, mode: str = AUTO) -> str:
    """The mode name `problem.derivatives(..., mode=mode)` computes with."""
    if mode != AUTO:
        return explicit_mode(problem, mode)
    return choose(problem, apply, params, coords).mode


def cached_choices(problem) -> dict:
    """The choices cached for `problem`: signature -> `ModeChoice`."""
    return dict(_CACHE.get(problem, {}))


def clear_cache() -> None:
    """Forget every cached choice (the next "auto" call measures again)."""
    _CACHE.clear()
