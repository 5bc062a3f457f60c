"""`frame.experimental.ode.odeint`: adaptive Dormand-Prince (RK45) integration with adjoint gradients, as
`jax.experimental.ode.odeint` computes it, so a neural-ODE or parameter-fitting program ports by its import.

The same algorithm gives the same numbers: Hairer-Norsett-Wanner's initial step (Solving ODEs I, II.4), the
Dormand-Prince 5(4) pair, an RMS error ratio against atol + rtol max(|y0|, |y1|), the step factor
0.9 r^(-1/5) clipped to [0.2, 10] (no shrinking after an accepted step), and output by the 4th-order
polynomial through the step's ends and Shampine's midpoint. State pytrees are flattened into one vector.
Each output interval is a `frame.while_loop` inside a `frame.scan`, so `odeint` runs eagerly, compiled and
under `vmap`. Reverse mode is the adjoint method (Chen et al. 2018, appendix C): the augmented system
(y, a = dL/dy, dL/dt0, dL/dargs) integrated backwards between output times with the same tolerances, as
a `custom_vjp`, so gradients reach y0, t and every array `func` uses, whether passed in `args` or closed
over (closures over traced values are converted into arguments).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..errors import ShapeError, TraceError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _shape
from ..frontend.control import scan, while_loop
from ..frontend.custom import custom_vjp
from ..frontend.pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten
from ..frontend.transforms import _closure_convert, vjp
from ..tracing import Tracer

__all__ = ["odeint"]

# The Dormand-Prince 5(4) tableau: stage times, stage weights, the 5th-order solution and its error estimate
# (5th minus embedded 4th order), and the dense-output weights of the midpoint (Shampine 1986).
_C = np.array([1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0, 0.0])
_A = np.array([[1 / 5, 0, 0, 0, 0, 0, 0],
               [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
               [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
               [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
               [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
               [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]])
_B = np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0])
_E = np.array([35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
               -2187 / 6784 + 12231 / 42400, 11 / 84 - 649 / 6300, -1 / 60])
_MID = np.array([6025192743 / 30085553152, 0, 51252292925 / 65400821598, -2691868925 / 45128329728,
                 187940372067 / 1594534317056, -1776094331 / 19743644256, 11237099 / 235043384]) / 2


def _rk_step(func, y0, f0, t0, dt):
    """One Dormand-Prince step: (y1, f1, error estimate, the seven stage slopes k (7, n))."""
    dtype = _dtype(y0)
    h = fnp.astype(dt, dtype)   # the step in y's dtype; stage times keep dt's
    zero = fnp.zeros_like(f0)
    slopes = [f0]
    for i in range(1, 7):   # stage i from the slopes so far (the later rows of k are zero, as A's entries)
        k = fnp.stack(slopes + [zero] * (7 - i))
        yi = y0 + h * fnp.dot(_A[i - 1].astype(dtype), k)
        slopes.append(func(yi, t0 + dt * _C[i - 1]))
    k = fnp.stack(slopes)
    return h * fnp.dot(_B.astype(dtype), k) + y0, k[-1], h * fnp.dot(_E.astype(dtype), k), k


def _interp_fit(y0, y1, k, dt):
    """Coefficients (5, n) of the quartic in s in [0, 1] through y0, y1 and the midpoint with y0's and y1's slopes."""
    dtype = _dtype(y0)
    dt = fnp.astype(dt, dtype)
    y_mid = y0 + dt * fnp.dot(_MID.astype(dtype), k)
    dy0, dy1 = k[0], k[-1]
    a = -2.0 * dt * dy0 + 2.0 * dt * dy1 - 8.0 * y0 - 8.0 * y1 + 16.0 * y_mid
    b = 5.0 * dt * dy0 - 3.0 * dt * dy1 + 18.0 * y0 + 14.0 * y1 - 32.0 * y_mid
    c = -4.0 * dt * dy0 + dt * dy1 - 11.0 * y0 - 5.0 * y1 + 16.0 * y_mid
    return fnp.stack([a, b, c, dt * dy0, y0])


def _initial_step(func, t0, y0, order, rtol, atol, f0):
    """Hairer, Norsett and Wanner's starting step (Solving ODEs I, II.4)."""
    scale = atol + fnp.abs(y0) * rtol
    d0, d1 = fnp.linalg.norm(y0 / scale), fnp.linalg.norm(f0 / scale)
    h0 = fnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = func(y0 + fnp.astype(h0, _dtype(y0)) * f0, t0 + h0)
    d2 = fnp.linalg.norm((f1 - f0) / scale) / h0
    h1 = fnp.where((d1 <= 1e-15) & (d2 <= 1e-15), fnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / fnp.maximum(d1, d2)) ** (1.0 / (order + 1.0)))
    return fnp.minimum(100.0 * h0, h1)


def _error_ratio(error, rtol, atol, y0, y1):
    tolerance = atol + rtol * fnp.maximum(fnp.abs(y0), fnp.abs(y1))
    return fnp.sqrt(fnp.mean((error / tolerance) ** 2))


def _next_step(last, ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=5.0):
    dfactor = fnp.where(ratio < 1, 1.0, dfactor)     # an accepted step never shrinks the next
    factor = fnp.minimum(ifactor, fnp.maximum(ratio ** (-1.0 / order) * safety, dfactor))
    return fnp.where(ratio == 0, last * ifactor, last * factor)


def _solve(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    """y at each of `ts` (len(ts), n) for the flat system y' = func(y, t, *args)."""
    def f(y, t):
        return func(y, t, *args)

    def to_target(carry, target):
        def running(state):
            i, _, _, t, dt, _, _ = state
            return (t < target) & (i < mxstep) & (dt > 0)

        def step(state):
            i, y, fy, t, dt, last_t, coeff = state
            y1, f1, error, k = _rk_step(f, y, fy, t, dt)
            ratio = _error_ratio(error, rtol, atol, y, y1)
            coeff1 = _interp_fit(y, y1, k, dt)
            dt1 = fnp.clip(_next_step(dt, ratio), 0.0, hmax)
            accept = ratio <= 1.0
            new = (y1, f1, t + dt, dt1, t, coeff1)
            old = (y, fy, t, dt1, last_t, coeff)
            return (i + 1, *(fnp.where(accept, a, b) for a, b in zip(new, old)))

        _, *carry = while_loop(running, step, (np.int32(0), *carry))
        _, _, t, _, last_t, coeff = carry
        s = (target - last_t) / (t - last_t)
        return tuple(carry), fnp.polyval(coeff, fnp.astype(s, _dtype(coeff)))

    f0 = f(y0, ts[0])
    dt = fnp.clip(_initial_step(f, ts[0], y0, 4, rtol, atol, f0), 0.0, hmax)
    coeff = fnp.stack([y0] * 5)
    _, ys = scan(to_target, (y0, f0, ts[0], dt, ts[0], coeff), ts[1:])
    return fnp.concatenate([y0[None], ys])


def _make_solver(func, rtol, atol, mxstep, hmax):
    """`solve(y0, ts, *args)` with the adjoint method as its VJP (func, tolerances fixed)."""
    solve = custom_vjp(lambda y0, ts, *args: _solve(func, rtol, atol, mxstep, hmax, y0, ts, *args))

    def fwd(y0, ts, *args):
        ys = solve(y0, ts, *args)
        return ys, (ys, ts, args)

    def bwd(res, g):
        ys, ts, args = res

        def augmented(state, minus_t, *args):   # integrated in reversed time s = -t
            y, a = state[0], state[1]
            y_dot, pullback = vjp(func, y, -minus_t, *args)
            y_bar, t_bar, *args_bar = pullback(a)
            return -y_dot, y_bar, t_bar, tuple(args_bar)

        def back_one(carry, i):
            a, t0_bar, args_bar = carry
            t_bar = fnp.dot(func(ys[i], ts[i], *args), g[i])   # moving output time i moves y there
            t0_bar = t0_bar - t_bar
            start = (ys[i], a, t0_bar, args_bar)
            # the plain solver: frame traces a custom_vjp's rules when it is bound, so a differentiable solve
            # here would trace its own rule again, without end (a second derivative would meet while_loop anyway)
            _, a, t0_bar, args_bar = _odeint(augmented, start, fnp.stack([-ts[i], -ts[i - 1]]), args,
                                             rtol, atol, mxstep, hmax, differentiable=False)
            a, t0_bar, args_bar = tree_map(lambda v: v[1], (a, t0_bar, args_bar))
            return (a + g[i - 1], t0_bar, args_bar), t_bar

        zero_t = fnp.zeros((), _dtype(ts))
        init = (g[-1], zero_t, tree_map(fnp.zeros_like, args))
        (a, t0_bar, args_bar), ts_bar = scan(back_one, init, fnp.arange(_shape(ts)[0] - 1, 0, -1))
        return (a, fnp.concatenate([t0_bar[None], ts_bar[::-1]]), *args_bar)

    solve.defvjp(fwd, bwd)
    return solve


def _ravel(leaves):
    return fnp.concatenate([fnp.ravel(fnp.asarray(leaf)) for leaf in leaves])


def _unraveller(treedef, shapes):
    """The inverse of `_ravel` for leaves of these shapes in this structure (any leading axes kept)."""
    sizes = [math.prod(s) for s in shapes]
    offsets = np.cumsum([0] + sizes)

    def unravel(flat):
        lead = _shape(flat)[:-1]
        parts = [fnp.reshape(flat[..., o:o + n], lead + s) for o, n, s in zip(offsets, sizes, shapes)]
        return tree_unflatten(treedef, parts)
    return unravel


def odeint(func: Callable, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=np.inf, hmax=np.inf):
    """Integrate y' = func(y, t, *args) from y(t[0]) = y0, returning y at every time of `t` (a leading axis
    of len(t) on each leaf of y0's pytree), by adaptive Dormand-Prince steps as `jax.experimental.ode.odeint`.

    `t` must be a 1-d float array of increasing times; `args` arrays or numbers (pytrees of them) that
    `func` takes after `t`; `rtol`/`atol` the local error tolerances, `mxstep` the most steps per output
    interval, `hmax` the largest step. Differentiable in y0, t, args and whatever `func` closes over, by the
    adjoint method."""
    t = fnp.asarray(t)
    if np.dtype(_dtype(t)).kind != "f" or len(_shape(t)) != 1 or _shape(t)[0] < 1:
        raise ShapeError(f"odeint: t must be a 1-d float array of output times, got {_dtype(t)} of shape "
                         f"{_shape(t)}")
    for leaf in tree_leaves(args):
        if not isinstance(leaf, (Tracer, np.ndarray, np.generic, int, float, complex, bool)):
            raise TraceError(f"odeint: args must be arrays or numbers (pytrees of them), got a "
                             f"{type(leaf).__name__}")
    return _odeint(func, y0, t, args, rtol, atol, mxstep, hmax)


def _odeint(func, y0, t, args, rtol, atol, mxstep, hmax, differentiable: bool = True):
    leaves, structure = tree_flatten(y0)
    leaves = [fnp.asarray(leaf) for leaf in leaves]
    if not leaves:
        raise ShapeError("odeint: y0 holds no arrays")
    unravel = _unraveller(structure, [_shape(leaf) for leaf in leaves])
    flat_y0 = _ravel(leaves)
    if np.dtype(_dtype(flat_y0)).kind != "f":
        flat_y0 = fnp.astype(flat_y0, "float64")

    def flat_func(y, t_, *a):
        dy, dy_structure = tree_flatten(func(unravel(y), t_, *a))
        if dy_structure != structure:
            raise ShapeError(f"odeint: func must return y's structure {structure}, got {dy_structure}")
        return fnp.astype(_ravel(dy), _dtype(y))

    if not differentiable:
        return unravel(_solve(flat_func, rtol, atol, mxstep, hmax, flat_y0, t, *args))
    # flat_func's traced closed-over values as arguments, so that the adjoint rule, which sees only
    # arguments, reaches them too (nothing captured: flat_func itself)
    converted, consts, _ = _closure_convert(flat_func, (flat_y0, t[0], *args))
    if not consts:
        converted = flat_func
    solve = _make_solver(converted, rtol, atol, mxstep, hmax)
    return unravel(solve(flat_y0, t, *args, *consts))
