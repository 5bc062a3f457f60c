"""L-BFGS with a strong-Wolfe line search (bracketing, then cubic zoom), in numpy.

The iteration `torch.optim.LBFGS(line_search_fn="strong_wolfe")` runs (after minFunc): the
two-loop recursion over at most `history` pairs (a pair is kept only when y's = s'y > 1e-10),
H0 = s'y / y'y, a first step of min(1, 1/|g|_1) and then 1, the Wolfe constants c1 = 1e-4 and
c2 = 0.9, and torch's stopping tests (all absolute: the largest gradient entry, the largest step
entry, the loss change, the directional derivative). DeepXDE's PyTorch backend trains with it;
`frame.train.lbfgs(method="strong-wolfe")` uses it so that a comparison with DeepXDE differs in the
framework and not in the optimiser (scipy's L-BFGS-B takes other steps: a Moré-Thuente search and
a relative loss tolerance). Arithmetic is float64 whatever the loss's dtype.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["minimize_strong_wolfe", "StrongWolfeResult", "two_loop_direction"]

C1, C2 = 1e-4, 0.9
PAIR_CURVATURE = 1e-10      # torch keeps a pair (s, y) only when s'y exceeds this
BRACKET_TOLERANCE = 1e-9    # the zoom stops when the bracket times max|d| is below this (torch's default)


@dataclass
class StrongWolfeResult:
    """`x` and `fun` at the end, iterations `nit`, evaluations `nfev`, `success` and why it stopped."""

    x: np.ndarray
    fun: float
    nit: int
    nfev: int
    success: bool
    message: str


def _cubic_minimum(t1, f1, g1, t2, f2, g2, bounds=None) -> float:
    """The minimiser of the cubic through (t1, f1, slope g1) and (t2, f2, slope g2), clipped to `bounds`
    (default: between t1 and t2); their midpoint when the cubic has none (or a value is not finite)."""
    low, high = bounds if bounds is not None else (min(t1, t2), max(t1, t2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (t1 - t2)
    square = d1 * d1 - g1 * g2
    if square >= 0:
        d2 = math.sqrt(square)
        if t1 <= t2:
            t = t2 - (t2 - t1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            t = t1 - (t1 - t2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        if math.isfinite(t):    # a non-finite loss on a trial point (frame reports it as +inf) bisects instead
            return min(max(t, low), high)
    return (low + high) / 2.0


def _line_search(fun, x, t, d, f, g, gtd, max_evals):
    """Strong-Wolfe search along `d` from `x` (loss f, gradient g, slope gtd < 0) starting at step t.
    Returns (f_new, g_new, t, evaluations)."""
    d_norm = float(np.max(np.abs(d)))
    f_new, g_new = fun(x + t * d)
    evals = 1
    gtd_new = float(g_new @ d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    # Phase 1: step out until a bracket holds a point meeting the strong Wolfe conditions.
    while True:
        if evals >= max_evals:      # budget spent: the better of the start and the last trial
            bracket = [[0.0, f, g, gtd], [t, f_new, g_new, gtd_new]]
            break
        if f_new > f + C1 * t * gtd or (evals > 2 and f_new >= f_prev):
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        if abs(gtd_new) <= -C2 * gtd:
            bracket, done = [[t, f_new, g_new, gtd_new]], True
            break
        if gtd_new >= 0:
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        t_next = _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = fun(x + t * d)
        evals += 1
        gtd_new = float(g_new @ d)
    # Phase 2: zoom into the bracket; `low` is its end with the lower loss.
    insufficient = False
    low, high = (0, 1) if bracket[0][1] <= bracket[-1][1] else (1, 0)
    while not done and evals < max_evals:
        (t_a, f_a, _, s_a), (t_b, f_b, _, s_b) = bracket
        if abs(t_b - t_a) * d_norm < BRACKET_TOLERANCE:
            break
        t = _cubic_minimum(t_a, f_a, s_a, t_b, f_b, s_b)
        lo, hi = min(t_a, t_b), max(t_a, t_b)
        eps = 0.1 * (hi - lo)
        if min(hi - t, t - lo) < eps:   # too near an end: move in unless the last step was also near one
            if insufficient or t >= hi or t <= lo:
                t = hi - eps if abs(t - hi) < abs(t - lo) else lo + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = fun(x + t * d)
        evals += 1
        gtd_new = float(g_new @ d)
        if f_new > f + C1 * t * gtd or f_new >= bracket[low][1]:
            bracket[high] = [t, f_new, g_new, gtd_new]
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
        else:
            if abs(gtd_new) <= -C2 * gtd:
                done = True
            elif gtd_new * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = [t, f_new, g_new, gtd_new]
    t, f_new, g_new, _ = bracket[low]
    return f_new, g_new, t, evals


def two_loop_direction(g, steps, changes, inverse_curvatures, scale):
    """-H g for the L-BFGS inverse Hessian H of the pairs (s, y, 1 / s'y), oldest first, and H0 = scale."""
    q = -g
    alphas = []
    for s_i, y_i, rho in zip(reversed(steps), reversed(changes), reversed(inverse_curvatures)):
        alphas.append(rho * float(s_i @ q))
        q = q - alphas[-1] * y_i
    d = q * scale
    for s_i, y_i, rho, alpha in zip(steps, changes, inverse_curvatures, reversed(alphas)):
        d = d + (alpha - rho * float(y_i @ d)) * s_i
    return d


def minimize_strong_wolfe(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], x0: np.ndarray, *,
                          maxiter: int, maxfev: int, history: int = 100, max_line_search: int = 25,
                          tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                          callback: Callable[[np.ndarray, float], None] | None = None) -> StrongWolfeResult:
    """Minimise `fun(x) -> (loss, gradient)` from `x0` (float64 vectors) for at most `maxiter` iterations
    and `maxfev` evaluations, each line search at most `max_line_search` of them; `callback(x, loss)`
    after each iteration."""
    x = np.array(x0, dtype=np.float64)
    f, g = fun(x)
    nfev, nit = 1, 0
    if float(np.max(np.abs(g), initial=0.0)) <= tolerance_grad:
        return StrongWolfeResult(x, float(f), 0, nfev, True, "the largest gradient entry is within tolerance_grad")
    steps, changes, inverse_curvatures = [], [], []
    scale, d, t, g_prev = 1.0, -g, 0.0, g
    message, success = f"reached maxiter = {maxiter}", False
    while nit < maxiter:
        if nit > 0:
            y, s = g - g_prev, t * d
            ys = float(y @ s)
            if ys > PAIR_CURVATURE:
                if len(steps) == history:
                    steps.pop(0), changes.pop(0), inverse_curvatures.pop(0)
                steps.append(s), changes.append(y), inverse_curvatures.append(1.0 / ys)
                scale = ys / float(y @ y)
            d = two_loop_direction(g, steps, changes, inverse_curvatures, scale)
        nit += 1
        g_prev, f_prev = g, f
        t = min(1.0, 1.0 / float(np.sum(np.abs(g)))) if nit == 1 else 1.0
        gtd = float(g @ d)
        if gtd > -tolerance_change:
            nit -= 1    # no step taken
            message, success = "the directional derivative is within tolerance_change", True
            break
        f, g, t, evals = _line_search(fun, x, t, d, f, g, gtd, min(max_line_search, maxfev - nfev))
        x = x + t * d
        nfev += evals
        if callback is not None:
            callback(x, f)
        if nfev >= maxfev:
            message = f"reached maxfev = {maxfev}"
            break
        if float(np.max(np.abs(g))) <= tolerance_grad:
            message, success = "the largest gradient entry is within tolerance_grad", True
            break
        if float(np.max(np.abs(t * d))) <= tolerance_change:
            message, success = "the largest step entry is within tolerance_change", True
            break
        if abs(f - f_prev) < tolerance_change:
            message, success = "the loss change is within tolerance_change", True
            break
    return StrongWolfeResult(x, float(f), nit, nfev, success, message)
