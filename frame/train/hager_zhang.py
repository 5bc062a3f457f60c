"""The Hager-Zhang line search (CG_DESCENT's: Hager & Zhang, SIAM J. Optim. 16 (2005) and ACM TOMS 32 (2006)).

Why a third line search: a search that asks for a lower loss stops when the loss's rounding hides the
decrease, i.e. once f(x + t d) - f(x) is below eps * |f|. Near a minimum that decrease is of order
|x - x*|^2, so such a search can place x only to about sqrt(eps) of x*: 2.4e-4 in float32. Hager and
Zhang's *approximate Wolfe* conditions accept a step on the directional derivative alone,

    (2 delta - 1) phi'(0) >= phi'(t) >= sigma phi'(0)   and   phi(t) <= phi(0) + epsilon |phi(0)|,

which stays accurate to eps rather than sqrt(eps) (the loss may rise by its rounding, not more). The
bracket is grown by expansion and shrunk by double secant steps on phi', with bisection when a secant
step does not halve it. phi(t) = f(x + t d), phi'(t) = grad f(x + t d) . d.

Non-finite trial losses (frame reports them as +inf) shrink the trial step tenfold.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .strong_wolfe import StrongWolfeResult, two_loop_direction

__all__ = ["hager_zhang_search", "minimize_hager_zhang"]

DELTA, SIGMA = 0.1, 0.9          # Wolfe's sufficient decrease and curvature constants
# How far above phi(0), relative, an approximate-Wolfe step may go: Hager and Zhang's 1e-6 for a float64 loss.
# It must exceed the loss's own noise between neighbouring points, and a float32 loss with cancelling terms
# is far noisier than its 6e-8: pinn's BurgersRaissi residual (u_t + u u_x - nu u_xx, terms up to ~300 near
# the shock, summing to ~4e-3) gives a loss that moves by ~1e-4 relative between points one float32
# rounding apart, so 1e-3 there (there, 1e-6 stops after ~5000 iterations, as a value-based search does).
EPSILON = {"float64": 1e-6, "float32": 1e-3}
THETA, GAMMA, EXPAND = 0.5, 0.66, 5.0


class _Found(Exception):
    """A trial point met the (approximate) Wolfe conditions: the search ends there."""

    def __init__(self, point):
        super().__init__()
        self.point = point


class _Exhausted(Exception):
    """The evaluation budget ran out (or the bracket closed) before a point met the conditions."""


def hager_zhang_search(fun, x, t, d, f, g, gtd, max_evals, epsilon=EPSILON["float64"]):
    """Search along `d` from `x` (loss f, gradient g, slope gtd < 0), first trial step t.
    Returns (f_new, g_new, t, evaluations, accepted); when no step is accepted within `max_evals`
    evaluations, the best point seen with a loss at most phi(0) + epsilon |phi(0)| (t = 0: x itself)."""
    bound = f + epsilon * abs(f)
    evals = 0
    start = (0.0, f, g, gtd)
    best = start

    def phi(step):
        nonlocal evals, best
        evals += 1
        f_t, g_t = fun(x + step * d)
        point = (step, f_t, g_t, float(g_t @ d) if math.isfinite(f_t) else math.nan)
        if math.isfinite(f_t) and f_t <= bound and (f_t < best[1] or (f_t == best[1] and point[3] > best[3])):
            best = point
        return point

    def accepted(p):
        step, f_t, _, s_t = p
        if not math.isfinite(f_t):
            return False
        wolfe = f_t - f <= DELTA * step * gtd and s_t >= SIGMA * gtd
        approximate = (2 * DELTA - 1) * gtd >= s_t >= SIGMA * gtd and f_t <= bound
        return wolfe or approximate

    def evaluate(step):
        p = phi(step)
        while not math.isfinite(p[1]) and evals < max_evals:
            step /= 10.0
            p = phi(step)
        if accepted(p):
            raise _Found(p)
        if evals >= max_evals:
            raise _Exhausted
        return p

    def bisect(a, b):   # U3: phi'(b) < 0 but phi(b) too high: a local maximum lies in [a, b]
        while True:
            c = evaluate((1 - THETA) * a[0] + THETA * b[0])
            if c[3] >= 0:
                return a, c
            if c[1] <= bound:
                a = c
            else:
                b = c

    def update(a, b, c):
        if not a[0] < c[0] < b[0]:
            return a, b
        if c[3] >= 0:
            return a, c
        if c[1] <= bound:
            return c, b
        return bisect(a, c)

    def secant(a, b):
        if b[3] == a[3]:
            return (a[0] + b[0]) / 2
        return (a[0] * b[3] - b[0] * a[3]) / (b[3] - a[3])

    def bracket(c):
        low = start
        while True:
            if c[3] >= 0:
                return low, c
            if c[1] > bound:
                return bisect(start, c)
            low = c
            c = evaluate(c[0] * EXPAND)

    try:
        a, b = bracket(evaluate(t))
        while True:
            width = b[0] - a[0]
            c_step = secant(a, b)
            new_a, new_b = update(a, b, evaluate(c_step)) if a[0] < c_step < b[0] else (a, b)
            if c_step == new_b[0]:
                extra = secant(b, new_b)
            elif c_step == new_a[0]:
                extra = secant(a, new_a)
            else:
                extra = None
            if extra is not None and new_a[0] < extra < new_b[0]:
                new_a, new_b = update(new_a, new_b, evaluate(extra))
            a, b = new_a, new_b
            if b[0] - a[0] > GAMMA * width:
                a, b = update(a, b, evaluate((a[0] + b[0]) / 2))
            if b[0] - a[0] <= 0 or (b[0] - a[0]) * float(np.max(np.abs(d))) < 1e-300:
                raise _Exhausted
    except _Found as found:
        step, f_t, g_t, _ = found.point
        return f_t, g_t, step, evals, True
    except _Exhausted:
        step, f_t, g_t, _ = best
        return f_t, g_t, step, evals, False


def minimize_hager_zhang(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], x0: np.ndarray, *,
                         maxiter: int, maxfev: int, history: int = 50, max_line_search: int = 50,
                         tolerance_grad: float = 0.0, epsilon: float = EPSILON["float64"],
                         callback: Callable[[np.ndarray, float], None] | None = None) -> StrongWolfeResult:
    """L-BFGS (`history` pairs, H0 = s'y / y'y) with `hager_zhang_search`: minimise `fun(x) -> (loss,
    gradient)` from `x0` for at most `maxiter` iterations and `maxfev` evaluations, each line search's loss
    allowed `epsilon` (relative) above its start (`EPSILON` by the loss's dtype). It stops when the
    largest gradient entry is at most `tolerance_grad`, or when a line search accepts no step (the
    gradient's own rounding then hides the descent too); never on an unchanged loss, which is the point."""
    x = np.array(x0, dtype=np.float64)
    f, g = fun(x)
    nfev, nit = 1, 0
    steps, changes, inverse_curvatures = [], [], []
    scale = 1.0
    message, success = f"reached maxiter = {maxiter}", False
    while nit < maxiter:
        if float(np.max(np.abs(g), initial=0.0)) <= tolerance_grad:
            message, success = "the largest gradient entry is within tolerance_grad", True
            break
        d = two_loop_direction(g, steps, changes, inverse_curvatures, scale)
        gtd = float(g @ d)
        if not gtd < 0:     # not a descent direction (rounding in the pairs): restart from steepest descent
            steps.clear(), changes.clear(), inverse_curvatures.clear()
            scale, d = 1.0, -g
            gtd = float(g @ d)
            if not gtd < 0:
                message, success = "the gradient is zero", True
                break
        t = min(1.0, 1.0 / float(np.sum(np.abs(g)))) if not steps else 1.0
        f_new, g_new, t, evals, ok = hager_zhang_search(fun, x, t, d, f, g, gtd, min(max_line_search, maxfev - nfev),
                                                     epsilon)
        nfev += evals
        if t == 0.0:
            if steps:   # retry once from steepest descent before giving up
                steps.clear(), changes.clear(), inverse_curvatures.clear()
                scale = 1.0
                continue
            message, success = "the line search found no acceptable step", ok
            break
        s, y = t * d, g_new - g
        ys = float(y @ s)
        if ys > 1e-12 * math.sqrt(float(s @ s) * float(y @ y)):   # relative: PINN gradients are tiny
            if len(steps) == history:
                steps.pop(0), changes.pop(0), inverse_curvatures.pop(0)
            steps.append(s), changes.append(y), inverse_curvatures.append(1.0 / ys)
            scale = ys / float(y @ y)
        x, f, g = x + s, f_new, g_new
        nit += 1
        if callback is not None:
            callback(x, f)
        if nfev >= maxfev:
            message = f"reached maxfev = {maxfev}"
            break
    return StrongWolfeResult(x, float(f), nit, nfev, success, message)
