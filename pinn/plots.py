"""Figures for a trained PINN: the solution against its reference, and the loss curve.

The figures come from `workbench.plots` (the plots module pinn and pino share); this module only
chooses, per problem, which one fits and what its axes are called. Burgers gets its own
space-time figure (heat maps and slices against the Cole–Hopf solution).
"""
from __future__ import annotations

import os

import numpy as np

from workbench import plots
from workbench.cli import format_error

from .problems import Burgers1D

#: times at which Burgers solution slices are drawn.
BURGERS_SLICE_TIMES = (0.25, 0.5, 0.75)


def _reference(result):
    """The problem's reference on its test points, or None when it has none (relative error NaN)."""
    return result.problem.test_reference() if np.isfinite(result.relative_l2_error) else None


def solution_figure(result):
    """The prediction against the reference and the pointwise error, by the problem's input count.

    One input: u and u_ref over x, and |u - u_ref| on a log axis (`workbench.plots.solution_1d`).
    Two inputs (x, y) or (x, t): maps of the prediction, the reference and the error
    (`solution_2d`). More: a parity plot. Burgers: space–time heat maps of the prediction and of
    the error, and slices at t = 0.25, 0.5, 0.75 against the reference.
    """
    problem = result.problem
    if isinstance(problem, Burgers1D):
        return _burgers_figure(result)
    (x,) = problem.test_points()
    prediction = result.predict(x)[:, 0]
    reference = _reference(result)
    reference = None if reference is None else reference[:, 0]
    names = tuple(getattr(problem, "coordinates", ("x", "y", "z", "t")))
    if x.shape[1] == 1:
        return plots.solution_1d(x[:, 0], prediction, reference, title=problem.name, x_label=names[0],
                                 u_label=f"u({names[0]})")
    if x.shape[1] == 2:
        return plots.solution_2d(x, prediction, reference, names=names[:2], title=problem.name)
    return plots.parity(reference, prediction, title=problem.name, prediction_label="PINN u")


def _burgers_figure(result):
    problem = result.problem
    xs, ts = problem.test_grid()
    shape = (len(ts), len(xs))
    reference = problem.test_reference().reshape(shape)
    prediction = result.predict(*problem.test_points()).reshape(shape)
    fig = plots.figure(figsize=(13, 7))
    grid = fig.add_gridspec(2, 3, height_ratios=(1.1, 1.0))
    extent = (ts[0], ts[-1], xs[0], xs[-1])
    ax_u = fig.add_subplot(grid[0, :2])
    plots.heat_map(fig, ax_u, prediction, extent, label="u(x, t)", x_label="t", y_label="x", cmap="RdBu_r",
                   vmin=-1, vmax=1, transpose=True)
    for t in BURGERS_SLICE_TIMES:
        ax_u.axvline(t, color="k", lw=0.8, ls=":")
    ax_u.set_title("PINN prediction u(x, t)")
    ax_e = fig.add_subplot(grid[0, 2])
    plots.heat_map(fig, ax_e, np.abs(prediction - reference), extent, label="|u - u_ref|", x_label="t",
                   y_label="x", cmap="magma", transpose=True)
    ax_e.set_title(f"error (rel. L2 {format_error(result.relative_l2_error)})", fontsize=9)
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


def _phases(result) -> list:
    """`result.phases`, or for a result without them, Adam's steps then the L-BFGS iterations."""
    if result.phases:
        return list(result.phases)
    adam = min(result.adam_steps, len(result.history))
    return [(name, n) for name, n in (("adam", adam), ("lbfgs", len(result.history) - adam)) if n > 0]


def loss_figure(result):
    """The loss per step and the test error measured along the way, on separate log axes, each
    optimiser phase (`result.phases`: Adam, then L-BFGS, also across a resumed run) in its own
    colour and the L-BFGS phases shaded and labelled (`workbench.plots.loss_figure`)."""
    return plots.loss_figure(result.history, _phases(result), result.errors, title=f"{result.problem.name} training",
                             error_label="relative L2 error (test points)")


def save_plots(result, out_dir: str | os.PathLike) -> dict[str, str]:
    """Write `solution.png` and `loss.png` into `out_dir` (created if needed); return their paths."""
    os.makedirs(out_dir, exist_ok=True)
    return {name: plots.save_figure(make(result), os.path.join(os.fspath(out_dir), f"{name}.png"))
            for name, make in (("solution", solution_figure), ("loss", loss_figure))}
