"""Full-batch quasi-Newton optimisation: L-BFGS through `scipy.optimize.minimize(method="L-BFGS-B")`,
torch's L-BFGS iteration with a strong-Wolfe line search (`strong_wolfe.py`, `method="strong-wolfe"`), or
L-BFGS with Hager and Zhang's line search (`hager_zhang.py`, `method="hager-zhang"`).

frame supplies the compiled value-and-gradient of `loss_fn(params, *data)` (the same training
graph `frame.train.Trainer` runs); scipy sees one float64 vector made of all parameter leaves.
This is the second phase PINN practice uses after Adam (Raissi et al.; DeepXDE) to reach
accuracies first-order methods do not.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import FrameError, TrainingError
from ..frontend.pytree import tree_unflatten
from ..ir.types import TensorType
from .guards import check_finite_data, first_nonfinite
from .loss_graph import LossGraph, as_param_leaves, leaf_paths, scalar
from .hager_zhang import EPSILON, minimize_hager_zhang
from .strong_wolfe import minimize_strong_wolfe

__all__ = ["lbfgs", "LBFGSResult", "LBFGS_METHODS"]

LBFGS_METHODS = ("L-BFGS-B", "strong-wolfe", "hager-zhang")


@dataclass
class LBFGSResult:
    """What `lbfgs` returns: final `params` (same structure and dtypes as given), final `loss`,
    `history` (loss after each iteration, starting with the initial loss), `nit` (iterations),
    `nfev` (loss/gradient evaluations), `success`, scipy's `message`, and `metrics`: the
    `(iteration, record)` pairs the `callback` returned (non-None ones)."""

    params: Any
    loss: float
    history: list[float] = field(default_factory=list)
    nit: int = 0
    nfev: int = 0
    success: bool = False
    message: str = ""
    metrics: list = field(default_factory=list)


def lbfgs_b_options(maxiter: int, maxcor: int = 50, maxls: int = 50, options: dict | None = None) -> dict:
    """scipy L-BFGS-B's `options` as `lbfgs` passes them (`options` override the others); benchmarks
    that run scipy on another framework's loss use the same."""
    return {"maxiter": int(maxiter), "maxcor": maxcor, "maxls": maxls, "maxfun": max(15000, 4 * int(maxiter)),
            **(options or {})}


def lbfgs(loss_fn: Callable, params, *data, maxiter: int = 500, tol: float = 1e-12, progress: bool = True,
          desc: str | None = "L-BFGS", dtype: str | None = None, maxcor: int = 50, maxls: int = 50,
          options: dict | None = None, client=None, shard: Sequence[int] | None = None,
          dynamic_axes=None, callback: Callable | None = None, every: int = 1,
          method: str = "L-BFGS-B") -> LBFGSResult:
    """Minimise `loss_fn(params, *data)` over `params` (a pytree of float arrays) with L-BFGS.

    - `maxiter`: iteration budget; `tol`: scipy's `tol` (sets L-BFGS-B's `ftol` and `gtol`).
    - `dtype`: evaluate the loss in this float dtype (e.g. `"float64"`, recommended: the line
      search needs an accurate loss); float params and float data are cast for the run and the
      result is cast back to the params' own dtypes. Default: the params' own dtypes.
    - `maxcor`, `maxls`, `options`: passed to L-BFGS-B (options override the others).
    - `method`: "L-BFGS-B" (scipy's, the default) or "strong-wolfe": the iteration of
      `torch.optim.LBFGS(line_search_fn="strong_wolfe")`, which DeepXDE's PyTorch backend runs
      (`frame.train.strong_wolfe`): history `maxcor`, at most `maxls` evaluations per line search
      and `maxfun` in all, its tolerances absolute (`ftol` / `gtol` in `options`, else `tol`: on
      the loss change and the step, and on the largest gradient entry). Or "hager-zhang": the same
      L-BFGS direction with Hager and Zhang's line search (`frame.train.hager_zhang`), whose approximate
      Wolfe conditions accept a step on slopes when the loss's rounding hides its decrease, so a float32
      loss goes on where the other two stop (pinn's BurgersRaissi); it stops on `gtol` in `options`
      (default 0), on a line search that finds no step, or on the budgets; `options["epsilon"]` is how far
      (relative) a step's loss may rise by rounding (default 1e-6, float32 1e-3).
    - `client`, `shard`: evaluate every loss and gradient data-parallel on a Dask cluster, the data
      arguments numbered in `shard` split along axis 0 (`frame.distributed.DataParallel`; the sums
      over shards are weighted by size, in shard order); scipy runs here, on the client.
    - `dynamic_axes`: as `Trainer`'s (key i is data argument i of `loss_fn(params, *data)`,
      counted from 0 after `params`): the training graph has symbolic sizes on those axes, so
      repeated `lbfgs` calls on data of different sizes (a resampled collocation set) trace once
      each but compile once in all (the compile cache is keyed by the graph). Not with `client=`.

    - `callback(iteration, params)`, every `every` iterations (counted from 1; iteration i's
      loss is `history[i]`): e.g. a metric on the current parameters (same structure and dtypes
      as given); a non-None return is kept in the result's `metrics`.

    A float32 loss that stops changing before `maxiter` (scipy then stops: a zero change meets any
    tolerance) gives a `RuntimeWarning` that says so and how to go on.

    NaN/Inf in `data` is an `InputError` naming the argument and index. The initial loss and
    gradient must be finite (else `TrainingError`). If scipy ends on a non-finite point, the best
    finite iterate is returned. No divergence guard is needed: L-BFGS-B's line search accepts only
    points that decrease the loss, and on a failed search it returns to the last accepted iterate.
    """
    from scipy.optimize import minimize
    from tqdm.auto import tqdm

    if not isinstance(maxiter, (int, np.integer)) or maxiter < 0:
        raise FrameError(f"lbfgs: maxiter must be a non-negative int, got {maxiter!r}")
    if callback is not None and not callable(callback):
        raise FrameError(f"lbfgs: callback must be callable(iteration, params), got {type(callback).__name__}")
    if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 1:
        raise FrameError(f"lbfgs: every must be an int >= 1, got {every!r}")
    if method not in LBFGS_METHODS:
        raise FrameError(f"lbfgs: method must be one of {', '.join(map(repr, LBFGS_METHODS))}, got {method!r}")
    check_finite_data(loss_fn, data)
    leaves, treedef = as_param_leaves(params)
    original_dtypes = [a.dtype for a in leaves]
    if dtype is not None:
        leaves = [a.astype(dtype) for a in leaves]
        data = tuple(_cast_floats(d, dtype) for d in data)
    names = [f"the gradient of parameter {p}" for p in leaf_paths(treedef)]
    types = [TensorType.of(a) for a in leaves]
    loss_graph = LossGraph(loss_fn, treedef, types, dynamic_axes, owner="lbfgs")
    if loss_graph.dynamic_axes and (client is not None or shard is not None):
        raise FrameError("lbfgs: dynamic_axes= is not supported with client=/shard= (data-parallel evaluation "
                         "traces one concrete graph per shard shape); drop one of them")
    if client is None and shard is None:
        exe, data_arrays = loss_graph.compiled(data)
        evaluate = lambda leaves: exe(*leaves, *data_arrays)  # noqa: E731
    else:
        if client is None:
            raise FrameError(f"lbfgs: shard={shard!r} needs client= (a dask.distributed.Client)")
        from ..distributed import DataParallel  # imported only when used: Dask is an optional extra

        parallel = DataParallel(client, shard)

        def evaluate(leaves):
            loss, grads = parallel.value_and_grad(loss_graph.graph_for, leaves, data)
            return [loss, *grads]
    sizes = [a.size for a in leaves]
    splits = np.cumsum(sizes)[:-1]

    def unflatten(x: np.ndarray) -> list[np.ndarray]:
        return [part.reshape(t.shape).astype(t.dtype) for part, t in zip(np.split(x, splits), types)]

    best = {"loss": math.inf, "x": None}
    last_problem: list[str] = []

    def value_and_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
        # Line-search trial points may overflow; that is handled below, so numpy's warnings are noise.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            outs = evaluate(unflatten(x))
        loss, grads = scalar(outs[0]), outs[1:]
        problem = f"the loss is {loss}" if not math.isfinite(loss) else first_nonfinite(grads, names)
        if problem:
            # Tell the line search this point is unacceptable; it will shorten the step.
            last_problem[:] = [problem]
            return math.inf, np.zeros_like(x)
        if loss < best["loss"]:
            best["loss"], best["x"] = loss, x.copy()
        return loss, np.concatenate([g.reshape(-1) for g in grads]).astype(np.float64)

    x0 = np.concatenate([a.reshape(-1) for a in leaves]).astype(np.float64)
    loss0, _ = value_and_grad(x0)
    if not math.isfinite(loss0):
        raise TrainingError(f"lbfgs: at the initial parameters {last_problem[0]}")
    history = [loss0]
    opts = lbfgs_b_options(maxiter, maxcor, maxls, options)
    metrics: list = []
    with tqdm(total=int(maxiter), desc=desc, disable=not progress) as bar:
        def after_iteration(intermediate_result):
            history.append(float(intermediate_result.fun))
            iteration = len(history) - 1
            if callback is not None and iteration % every == 0:
                current = [a.astype(dt) for a, dt in zip(unflatten(intermediate_result.x), original_dtypes)]
                record = callback(iteration, tree_unflatten(treedef, current))
                if record is not None:
                    metrics.append((iteration, record))
            if not bar.disable:
                bar.set_postfix(loss=f"{history[-1]:.4e}", refresh=False)
                bar.update(1)

        if method == "L-BFGS-B":
            result = minimize(value_and_grad, x0, jac=True, method="L-BFGS-B", tol=tol, callback=after_iteration,
                              options=opts)
        elif method == "hager-zhang":
            result = minimize_hager_zhang(
                value_and_grad, x0, maxiter=opts["maxiter"], maxfev=opts["maxfun"], history=opts["maxcor"],
                max_line_search=opts["maxls"], tolerance_grad=opts.get("gtol", 0.0),
                epsilon=opts.get("epsilon", max(EPSILON.get(np.dtype(t.dtype).name, EPSILON["float64"]) for t in types)),
                callback=lambda x, loss: after_iteration(SimpleNamespace(x=x, fun=loss)))
        else:
            result = minimize_strong_wolfe(
                value_and_grad, x0, maxiter=opts["maxiter"], maxfev=opts["maxfun"], history=opts["maxcor"],
                max_line_search=opts["maxls"], tolerance_grad=opts.get("gtol", tol),
                tolerance_change=opts.get("ftol", tol),
                callback=lambda x, loss: after_iteration(SimpleNamespace(x=x, fun=loss)))
    # scipy's relative-reduction test passes on a zero change, which a float32 loss reaches long before a
    # float64 one (pinn's BurgersRaissi: 1.8e-3 in float32, 3.3e-4 in float64); Hager-Zhang's search goes on
    # past that and stops, unsuccessfully, only when the slopes' rounding hides the descent too
    stalled = (not result.success) if method == "hager-zhang" else len(history) > 1 and history[-1] == history[-2]
    if int(result.nit) < int(maxiter) and stalled and any(np.dtype(t.dtype) == np.float32 for t in types):
        what = "its slopes no longer showed a descent" if method == "hager-zhang" else "the float32 loss stopped changing"
        warnings.warn(f"lbfgs: stopped after {int(result.nit)} of {int(maxiter)} iterations because {what} "
                      f"({result.message}); if the fit is not done, dtype='float64' evaluates the loss in float64 "
                      f"and goes on (pinn.train: lbfgs_dtype='float64')", RuntimeWarning, stacklevel=2)
    x = result.x
    final_loss = float(result.fun)
    if not math.isfinite(final_loss) and best["x"] is not None:
        x, final_loss = best["x"], best["loss"]
    out_leaves = [a.astype(dt) for a, dt in zip(unflatten(x), original_dtypes)]
    return LBFGSResult(params=tree_unflatten(treedef, out_leaves), loss=final_loss, history=history,
                       nit=int(result.nit), nfev=int(result.nfev), success=bool(result.success),
                       message=str(result.message), metrics=metrics)


def _cast_floats(tree, dtype: str):
    from ..frontend.pytree import tree_map

    def cast(leaf):
        a = np.asarray(leaf)
        return a.astype(dtype) if a.dtype.kind == "f" else leaf

    return tree_map(cast, tree)
