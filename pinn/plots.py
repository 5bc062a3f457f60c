"""Figures for a trained PINN: the solution against its reference, and the loss curve."""
from __future__ import annotations

import os

import numpy as np

from .problems import Burgers1D
from .training import PINNResult

#: times at which Burgers solution slices are drawn.
BURGERS_SLICE_TIMES = (0.25, 0.5, 0.75)


def _figure(**kwargs):
    # A bare Figure, not pyplot: no GUI backend is touched (the CLI and tests only write files), and
    # notebooks still display it. It is freed like any object, so nothing needs closing.
    from matplotlib.figure import Figure
    return Figure(**kwargs)


def solution_figure(result: PINNResult):
    """A figure of the prediction against the reference and the pointwise error.

    1-D problems: u and u_ref over x, and |u - u_ref| on a log axis. Burgers: space–time heat maps
    of the prediction and of the error, and slices at t = 0.25, 0.5, 0.75 against the reference.
    """
    problem = result.problem
    if isinstance(problem, Burgers1D):
        return _burgers_figure(result)
    (x,) = problem.test_points()
    if x.shape[1] == 2:
        return _field_figure(result, x)
    if x.shape[1] > 2:
        return _parity_figure(result, x)
    reference = problem.test_reference()
    prediction = result.predict(x)
    fig = _figure(figsize=(11, 4))
    ax_u, ax_err = fig.subplots(1, 2)
    ax_u.plot(x[:, 0], reference[:, 0], "k-", lw=3, alpha=0.35, label="reference")
    ax_u.plot(x[:, 0], prediction[:, 0], "C0--", lw=1.5, label="PINN")
    ax_u.set(xlabel="x", ylabel="u(x)", title=f"{problem.name}: prediction vs reference")
    ax_u.legend()
    ax_err.semilogy(x[:, 0], np.abs(prediction - reference)[:, 0] + 1e-300, "C3-")
    ax_err.set(xlabel="x", ylabel="|u - u_ref|",
               title=f"pointwise error (relative L2 {result.relative_l2_error:.2e})")
    fig.tight_layout()
    return fig


def _burgers_figure(result: PINNResult):
    problem = result.problem
    xs, ts = problem.test_grid()
    shape = (len(ts), len(xs))
    reference = problem.test_reference().reshape(shape)
    prediction = result.predict(*problem.test_points()).reshape(shape)
    fig = _figure(figsize=(13, 7))
    grid = fig.add_gridspec(2, 3, height_ratios=(1.1, 1.0))
    extent = (ts[0], ts[-1], xs[0], xs[-1])
    ax_u = fig.add_subplot(grid[0, :2])
    image = ax_u.imshow(prediction.T, origin="lower", aspect="auto", extent=extent, cmap="RdBu_r", vmin=-1, vmax=1)
    fig.colorbar(image, ax=ax_u, label="u(x, t)")
    for t in BURGERS_SLICE_TIMES:
        ax_u.axvline(t, color="k", lw=0.8, ls=":")
    ax_u.set(xlabel="t", ylabel="x", title="PINN prediction u(x, t)")
    ax_e = fig.add_subplot(grid[0, 2])
    err = ax_e.imshow(np.abs(prediction - reference).T, origin="lower", aspect="auto", extent=extent, cmap="magma")
    fig.colorbar(err, ax=ax_e, label="|u - u_ref|")
    ax_e.set(xlabel="t", ylabel="x", title=f"error (relative L2 {result.relative_l2_error:.2e})")
    for k, t in enumerate(BURGERS_SLICE_TIMES):
        ax = fig.add_subplot(grid[1, k])
        x = xs.reshape(-1, 1)
        ax.plot(xs, problem.reference(x, np.full_like(x, t))[:, 0], "k-", lw=3, alpha=0.35, label="Cole–Hopf")
        ax.plot(xs, result.predict(x, np.full_like(x, t))[:, 0], "C0--", lw=1.5, label="PINN")
        ax.set(xlabel="x", ylabel="u", title=f"t = {t}", ylim=(-1.1, 1.1))
        if k == 0:
            ax.legend()
    fig.tight_layout()
    return fig


def _axis_names(problem) -> tuple:
    return tuple(getattr(problem, "coordinates", ("x", "y")))


def _field_figure(result: PINNResult, x: np.ndarray):
    """Two-input problems (x, y) or (x, t): maps of the prediction, the reference and the error."""
    problem = result.problem
    prediction = result.predict(x)[:, 0]
    reference = problem.test_reference()[:, 0] if np.isfinite(result.relative_l2_error) else None
    names = _axis_names(problem)
    panels = [("PINN prediction u", prediction, "RdBu_r")]
    if reference is not None:
        panels += [("reference u", reference, "RdBu_r"),
                   (f"|u - u_ref| (relative L2 {result.relative_l2_error:.2e})", np.abs(prediction - reference),
                    "magma")]
    fig = _figure(figsize=(5 * len(panels), 4))
    axes = np.atleast_1d(fig.subplots(1, len(panels)))
    lim = float(np.max(np.abs(prediction if reference is None else reference))) or 1.0
    for ax, (title, values, cmap) in zip(axes, panels):
        kw = {"vmin": -lim, "vmax": lim} if cmap == "RdBu_r" else {}
        image = ax.tricontourf(x[:, 0], x[:, 1], values, levels=64, cmap=cmap, **kw)
        fig.colorbar(image, ax=ax, label=title.split(" (")[0])
        ax.set(xlabel=names[0], ylabel=names[1], title=f"{problem.name}: {title}")
    fig.tight_layout()
    return fig


def _parity_figure(result: PINNResult, x: np.ndarray):
    """Three or more inputs: prediction against reference at the test points."""
    problem = result.problem
    prediction = result.predict(x)[:, 0]
    fig = _figure(figsize=(5, 5))
    ax = fig.subplots()
    if np.isfinite(result.relative_l2_error):
        reference = problem.test_reference()[:, 0]
        ax.plot(reference, prediction, "C0.", ms=2)
        lo, hi = float(reference.min()), float(reference.max())
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
        ax.set(xlabel="reference u", ylabel="PINN u",
               title=f"{problem.name} (relative L2 {result.relative_l2_error:.2e})")
    else:
        ax.hist(prediction, bins=50)
        ax.set(xlabel="PINN u", ylabel="test points", title=f"{problem.name}: no reference")
    fig.tight_layout()
    return fig


def loss_figure(result: PINNResult):
    """The loss per step on a log axis (left) and the test error measured along the way on its own log
    axis (right); each optimiser phase (`result.phases`: Adam, then L-BFGS iterations, also across a
    resumed run) is drawn in its own colour and the L-BFGS phases are shaded."""
    fig = _figure(figsize=(7, 4))
    ax = fig.subplots()
    history = np.asarray(result.history)
    steps = np.arange(1, len(history) + 1)
    phases = list(result.phases) or [("adam", min(result.adam_steps, len(history))),
                                     ("lbfgs", max(len(history) - result.adam_steps, 0))]
    colours, start, labelled = {"adam": "C0", "sgd": "C0", "lbfgs": "C1"}, 0, set()
    for name, count in phases:
        if count <= 0:
            continue
        part = slice(start, start + count)
        label = None if name in labelled else f"loss ({'L-BFGS' if name == 'lbfgs' else name.capitalize()})"
        labelled.add(name)
        ax.semilogy(steps[part], history[part], "-", color=colours.get(name, "C2"), lw=1, label=label)
        if name == "lbfgs":
            ax.axvspan(start + 0.5, start + count + 0.5, color="C1", alpha=0.08, lw=0)
        start += count
    ax.set(xlabel="step (Adam) / iteration (L-BFGS)", ylabel="training loss", title=f"{result.problem.name} training")
    handles, labels = ax.get_legend_handles_labels()
    if result.errors:
        err_ax = ax.twinx()
        at, errs = zip(*result.errors)
        err_ax.semilogy(at, errs, "ko", ms=4, label="relative L2 error")
        err_ax.set_ylabel("relative L2 error (test points)")
        more_handles, more_labels = err_ax.get_legend_handles_labels()
        handles, labels = handles + more_handles, labels + more_labels
    ax.legend(handles, labels, loc="upper right")
    fig.tight_layout()
    return fig


def save_plots(result: PINNResult, out_dir: str | os.PathLike) -> dict[str, str]:
    """Write `solution.png` and `loss.png` into `out_dir` (created if needed); return their paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    for name, make in (("solution", solution_figure), ("loss", loss_figure)):
        fig = make(result)
        paths[name] = os.path.join(os.fspath(out_dir), f"{name}.png")
        fig.savefig(paths[name], dpi=110)
    return paths
