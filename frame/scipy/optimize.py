"""`frame.scipy.optimize`: unconstrained minimisation as jax.scipy.optimize offers it: `minimize(fun, x0, args,
method='BFGS')` returning `OptimizeResults` (JAX's fields and status codes).

BFGS is Nocedal & Wright's Algorithm 6.1 with JAX's choices, so the iterates follow JAX's: the inverse Hessian
starts at the identity, the first trial step is 1.01 / |g0| long, and each step comes from a line search that
satisfies the strong Wolfe conditions (c1 = 1e-4, c2 = 0.9; Algorithm 3.5, doubling the trial step, with
Algorithm 3.6's zoom by cubic, quadratic or bisection steps). Defaults are JAX's: gtol = 1e-5 on the inf-norm
of the gradient, maxiter = 200 * n, line_search_maxiter = 10.

The loops are `frame.while_loop`s and the gradient is `frame.value_and_grad(fun)`, so `minimize` runs eagerly,
traced inside `frame.function`, and under `frame.vmap` over `x0` (a batched loop runs until every example
stops; stopped examples keep their values). As in JAX, reverse-mode derivatives through `minimize` are refused
(the trip count is dynamic). Where frame differs from JAX, on purpose:
- `tol`, which JAX accepts and ignores, sets `gtol` as in scipy (unless `options` gives `gtol`);
- zoom's interval is measured by its length |a_hi - a_lo| (JAX takes a_hi - a_lo, whose sign makes every
  zoom with a_hi < a_lo fail at once);
- after a failed line search the result keeps the last accepted point (with its value, gradient and inverse
  Hessian) instead of taking a step the line search rejected.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as _np

from ..errors import InputError, ShapeError, TraceError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _ndim, _shape
from ..frontend.control import while_loop
from ..frontend.transforms import value_and_grad

__all__ = ["minimize", "OptimizeResults"]

_C1, _C2 = 1e-4, 0.9           # strong Wolfe constants (sufficient decrease, curvature)
_ZOOM_MAXITER = 30             # JAX's cap on zoom steps


class OptimizeResults(NamedTuple):
    """The result of `minimize` (JAX's fields). `status`: 0 converged, 1 maxiter reached, 3 zoom failed,
    5 line search reached its maxiter, -1 undefined; `hess_inv` is None for L-BFGS."""
    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


# -- line search ---------------------------------------------------------------------------------
def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """The minimiser of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc) (nan if it has none)."""
    db, dc = b - a, c - a
    rb, rc = fb - fa - fpa * db, fc - fa - fpa * dc   # what the cubic and square terms must add at b and c
    denom = (db * dc) ** 2 * (db - dc)
    A = (dc ** 2 * rb - db ** 2 * rc) / denom
    B = (-dc ** 3 * rb + db ** 3 * rc) / denom
    # p'(d) = fpa + 2 B d + 3 A d^2; the root with p'' > 0
    return a + (-B + fnp.sqrt(B * B - 3.0 * A * fpa)) / (3.0 * A)


def _quadmin(a, fa, fpa, b, fb):
    """The minimiser of the parabola through (a, fa) with slope fpa and (b, fb)."""
    db = b - a
    B = (fb - fa - fpa * db) / (db * db)
    return a - fpa / (2.0 * B)


def _pick(mask, new: dict, old: dict) -> dict:
    """`old` with the keys of `new` replaced where `mask` holds (branch-free, so it traces and vmaps)."""
    out = dict(old)
    for k, v in new.items():
        out[k] = fnp.where(mask, v, old[k])
    return out


def _zoom(phi_dphi, wolfe_one, wolfe_two, lo, hi, g0, skip, tiny):
    """Algorithm 3.6: shrink [lo, hi] (lo satisfies sufficient decrease, hi does not or lies past a minimum)
    until a point satisfies both strong Wolfe conditions. `lo`/`hi` are (a, phi, dphi); `skip` stops it
    before the first step. Returns the state dict (done, failed, a/phi/dphi/g_star, nfev)."""
    a_lo, phi_lo, dphi_lo = lo
    a_hi, phi_hi, dphi_hi = hi
    init = dict(done=fnp.asarray(False), failed=fnp.asarray(False), j=0,
                a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo, a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi,
                # the previous hi or lo: the third point of the cubic
                a_rec=(a_lo + a_hi) / 2.0, phi_rec=(phi_lo + phi_hi) / 2.0,
                a_star=fnp.ones_like(a_lo), phi_star=phi_lo, dphi_star=dphi_lo, g_star=g0, nfev=0)

    def body(s):
        width = fnp.abs(s["a_hi"] - s["a_lo"])
        lo_end, hi_end = fnp.minimum(s["a_hi"], s["a_lo"]), fnp.maximum(s["a_hi"], s["a_lo"])
        failed = s["failed"] | (width <= tiny)       # the interval has collapsed: no Wolfe point found
        a_cub = _cubicmin(s["a_lo"], s["phi_lo"], s["dphi_lo"], s["a_hi"], s["phi_hi"], s["a_rec"], s["phi_rec"])
        # interpolants too near an end of the interval are distrusted (0.2 and 0.1 of its width)
        use_cub = (s["j"] > 0) & (a_cub > lo_end + 0.2 * width) & (a_cub < hi_end - 0.2 * width)
        a_quad = _quadmin(s["a_lo"], s["phi_lo"], s["dphi_lo"], s["a_hi"], s["phi_hi"])
        use_quad = ~use_cub & (a_quad > lo_end + 0.1 * width) & (a_quad < hi_end - 0.1 * width)
        a_j = fnp.where(use_cub, a_cub, fnp.where(use_quad, a_quad, (s["a_lo"] + s["a_hi"]) / 2.0))
        phi_j, dphi_j, g_j = phi_dphi(a_j)

        to_hi = wolfe_one(a_j, phi_j) | (phi_j >= s["phi_lo"])
        to_star = wolfe_two(dphi_j) & ~to_hi
        to_lo = ~to_hi & ~to_star
        hi_to_lo = to_lo & (dphi_j * (s["a_hi"] - s["a_lo"]) >= 0.0)   # a_j lies past a minimum: old lo is new hi
        n = dict(s, failed=failed, done=s["done"] | to_star, nfev=s["nfev"] + 1)
        n = _pick(to_hi, dict(a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j, a_rec=s["a_hi"], phi_rec=s["phi_hi"]), n)
        n = _pick(to_star, dict(a_star=a_j, phi_star=phi_j, dphi_star=dphi_j, g_star=g_j), n)
        n = _pick(hi_to_lo, dict(a_hi=s["a_lo"], phi_hi=s["phi_lo"], dphi_hi=s["dphi_lo"],
                                 a_rec=s["a_hi"], phi_rec=s["phi_hi"]), n)
        n = _pick(to_lo & ~hi_to_lo, dict(a_rec=s["a_lo"], phi_rec=s["phi_lo"]), n)
        n = _pick(to_lo, dict(a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j), n)
        n["j"] = s["j"] + 1
        n["failed"] = n["failed"] | (n["j"] >= _ZOOM_MAXITER)
        return n

    return while_loop(lambda s: ~s["done"] & ~skip & ~s["failed"], body, init)


def _line_search(vg, xk, pk, f0, g0, f_prev, maxiter: int):
    """Algorithm 3.5: a step along `pk` from `xk` satisfying the strong Wolfe conditions. Returns
    (failed, status, nfev, a, f, g): status 0 found, 1 zoom failed, 3 maxiter reached."""
    dtype = _dtype(xk)

    def phi_dphi(t):
        f, g = vg(xk + t * pk)
        return f, fnp.dot(g, pk), g

    dphi0 = fnp.dot(g0, pk)
    # the first trial step: 1.01 times the minimiser of the parabola through the last decrease (JAX's and
    # scipy's choice), at most 1
    cand = 1.01 * 2.0 * (f0 - f_prev) / dphi0
    start = fnp.where(cand > 1.0, fnp.ones_like(cand), cand)
    tiny = 1e-10 if _np.dtype(dtype).itemsize >= 8 else 1e-5

    def wolfe_one(a, phi):   # sufficient decrease violated
        return phi > f0 + _C1 * a * dphi0

    def wolfe_two(dphi):     # strong curvature condition holds
        return fnp.abs(dphi) <= -_C2 * dphi0

    zero = fnp.zeros((), dtype)
    init = dict(done=fnp.asarray(False), failed=fnp.asarray(False), i=1, a_prev=zero, phi_prev=f0,
                dphi_prev=dphi0, nfev=0, a_star=zero, phi_star=f0, g_star=g0)

    def body(s):
        a_i = fnp.where(s["i"] == 1, start, 2.0 * s["a_prev"])
        phi_i, dphi_i, g_i = phi_dphi(a_i)
        zoom_up = wolfe_one(a_i, phi_i) | ((phi_i >= s["phi_prev"]) & (s["i"] > 1))   # a minimum in [prev, a_i]
        accept = wolfe_two(dphi_i) & ~zoom_up
        zoom_down = (dphi_i >= 0.0) & ~zoom_up & ~accept                              # a_i overshot a minimum
        # one zoom serves both cases: lo is the end with sufficient decrease
        lo = tuple(fnp.where(zoom_up, u, v) for u, v in ((s["a_prev"], a_i), (s["phi_prev"], phi_i),
                                                          (s["dphi_prev"], dphi_i)))
        hi = tuple(fnp.where(zoom_up, v, u) for u, v in ((s["a_prev"], a_i), (s["phi_prev"], phi_i),
                                                          (s["dphi_prev"], dphi_i)))
        zooming = zoom_up | zoom_down
        z = _zoom(phi_dphi, wolfe_one, wolfe_two, lo, hi, g0, ~zooming, tiny)
        n = dict(s, nfev=s["nfev"] + 1 + z["nfev"], done=s["done"] | zooming | accept,
                 failed=s["failed"] | (zooming & z["failed"]))
        n = _pick(zooming, dict(a_star=z["a_star"], phi_star=z["phi_star"], g_star=z["g_star"]), n)
        n = _pick(accept, dict(a_star=a_i, phi_star=phi_i, g_star=g_i), n)
        n.update(i=s["i"] + 1, a_prev=a_i, phi_prev=phi_i, dphi_prev=dphi_i)
        return n

    s = while_loop(lambda s: ~s["done"] & (s["i"] <= maxiter) & ~s["failed"], body, init)
    status = fnp.where(s["failed"], 1, fnp.where(s["i"] > maxiter, 3, 0))
    a = s["a_star"]
    if _np.dtype(dtype).itemsize < 8:   # JAX's floor on the step in single precision (a zero step sticks)
        a = fnp.where(fnp.abs(a) < 1e-8, fnp.sign(a) * 1e-8, a)
    return s["failed"] | ~s["done"], status, s["nfev"], a, s["phi_star"], s["g_star"]


# -- BFGS ----------------------------------------------------------------------------------------
def _norm(g, ord):
    return fnp.linalg.norm(g, ord=ord)


def _bfgs(fun, x0, maxiter=None, norm=_np.inf, gtol=1e-5, line_search_maxiter=10):
    n = _shape(x0)[0]
    maxiter = 200 * n if maxiter is None else int(maxiter)
    vg = value_and_grad(fun)
    f0, g0 = vg(x0)
    init = dict(converged=_norm(g0, norm) < gtol, failed=fnp.asarray(False), k=0, nfev=1, x=x0, f=f0, g=g0,
                H=fnp.eye(n, dtype=_dtype(x0)),
                # a fictitious previous value that makes the first trial step 1.01 / |g0| long
                f_prev=f0 + _norm(g0, None) / 2.0, ls_status=0)

    def body(s):
        p = -fnp.dot(s["H"], s["g"])
        failed, ls_status, nfev, a, f1, g1 = _line_search(vg, s["x"], p, s["f"], s["g"], s["f_prev"],
                                                          line_search_maxiter)
        step = a * p
        y = g1 - s["g"]
        rho = 1.0 / fnp.dot(y, step)
        # H+ = (I - rho s y^T) H (I - rho y s^T) + rho s s^T; skipped when y^T s = 0 (rho not finite)
        W = fnp.eye(n, dtype=_dtype(x0)) - rho * fnp.outer(step, y)
        H1 = fnp.dot(fnp.dot(W, s["H"]), W.T) + rho * fnp.outer(step, step)
        H1 = fnp.where(fnp.isfinite(rho), H1, s["H"])
        moved = dict(x=s["x"] + step, f=f1, g=g1, H=H1, f_prev=s["f"], converged=_norm(g1, norm) < gtol)
        keep = dict(x=s["x"], f=s["f"], g=s["g"], H=s["H"], f_prev=s["f_prev"], converged=s["converged"])
        out = _pick(failed, keep, moved)
        return dict(out, failed=failed, ls_status=ls_status, k=s["k"] + 1, nfev=s["nfev"] + nfev)

    s = while_loop(lambda s: ~s["converged"] & ~s["failed"] & (s["k"] < maxiter), body, init)
    status = fnp.where(s["converged"], 0, fnp.where(s["k"] == maxiter, 1,
                                                    fnp.where(s["failed"], 2 + s["ls_status"], -1)))
    return OptimizeResults(x=s["x"], success=s["converged"] & ~s["failed"], status=status, fun=s["f"],
                           jac=s["g"], hess_inv=s["H"], nfev=s["nfev"], njev=s["nfev"], nit=s["k"])


_METHODS = {"bfgs": _bfgs}
_OPTIONS = {"bfgs": ("maxiter", "norm", "gtol", "line_search_maxiter")}


def minimize(fun, x0, args=(), *, method: str, tol=None, options=None) -> OptimizeResults:
    """jax.scipy.optimize's `minimize`: minimise `fun(x, *args)` (a scalar) over the 1-d `x` from `x0` with
    `method` 'BFGS'; `options` are the method's (BFGS: maxiter, norm, gtol, line_search_maxiter); `tol` sets
    gtol. The gradient is frame's autodiff of `fun`."""
    if not isinstance(method, str) or method.lower() not in _METHODS:
        raise InputError(f"minimize: method {method!r} is not recognised; frame has "
                         f"{', '.join(repr(m.upper()) for m in _METHODS)}")
    m = method.lower()
    if not isinstance(args, tuple):
        raise TraceError(f"minimize: args must be a tuple, got {type(args).__name__}")
    if not callable(fun):
        raise TraceError(f"minimize: fun must be callable, got {type(fun).__name__}")
    options = dict(options or {})
    unknown = sorted(set(options) - set(_OPTIONS[m]))
    if unknown:
        raise InputError(f"minimize: unknown options {unknown} for method {method!r}; it takes {list(_OPTIONS[m])}")
    if tol is not None:
        options.setdefault("gtol", tol)
    x0 = fnp.asarray(x0)
    if _ndim(x0) != 1:
        raise ShapeError(f"minimize: x0 must be 1-d (shape (n,)), got shape {_shape(x0)}")
    kind = _np.dtype(_dtype(x0)).kind
    if kind == "c":
        raise ShapeError(f"minimize: x0 must be real, got {_dtype(x0)}")
    if kind != "f":
        x0 = fnp.asarray(x0, dtype="float64")

    def f(x):
        v = fnp.asarray(fun(x, *args))
        if _shape(v) != ():
            raise ShapeError(f"minimize: fun must return a scalar, got shape {_shape(v)} for x0 of shape "
                             f"{_shape(x0)}")
        return v
    return _METHODS[m](f, x0, **options)
