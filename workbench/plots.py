"""The one plots module of pinn and pino: loss curves, fields, solutions, parity plots (matplotlib).

Every function returns a bare `matplotlib.figure.Figure` (not pyplot: no GUI backend is touched,
the CLIs and tests only write files, nothing needs closing; a notebook shows one with
`display(fig)` or as a cell's last value). Every axis is labelled and every colour map has a
labelled colourbar. Relative errors are written in the unit the CLIs print (`workbench.cli.
format_error`: percent with three significant digits, then the fraction).

- `loss_figure(history, phases, errors)`: the loss per step and the error measured along the
  way on separate log axes; the L-BFGS phase shaded and labelled.
- `fields_1d` / `fields_2d`: an operator's input, true output, prediction (and, 2-D, the error map).
- `solution_1d` / `solution_2d`: a PINN's solution against its reference and the pointwise error.
- `parity`: prediction against reference (any number of inputs).
- `heat_map`: one labelled image with its colourbar (the building block of the 2-D figures).
- `save_figure(fig, path)`: write it (the directory must exist), returns the path.
"""
from __future__ import annotations

import os

import numpy as np

from frame.errors import InputError

from .cli import format_error

__all__ = ["figure", "loss_figure", "fields_1d", "fields_2d", "solution_1d", "solution_2d", "parity", "heat_map",
           "save_figure", "PHASE_LABELS"]

#: how a phase name of `Result.phases` is written in legends.
PHASE_LABELS = {"adam": "Adam", "sgd": "SGD", "lbfgs": "L-BFGS"}
_PHASE_COLOURS = {"adam": "C0", "sgd": "C0", "lbfgs": "C1"}


def figure(**kwargs):
    """A bare `matplotlib.figure.Figure` (see the module docstring for why not pyplot)."""
    from matplotlib.figure import Figure
    return Figure(**kwargs)


def save_figure(fig, path, dpi: int = 110) -> str:
    """Write `fig` to `path` (format by suffix); returns the path as a string."""
    path = os.fspath(path)
    fig.savefig(path, dpi=dpi)
    return path


def _phases(history_length: int, phases) -> list[tuple[str, int]]:
    """`phases` checked against the history; None or empty: the whole history is one Adam phase."""
    if not phases:
        return [("adam", history_length)] if history_length else []
    phases = [(str(name), int(count)) for name, count in phases]
    total = sum(count for _, count in phases)
    if total != history_length:
        raise InputError(f"loss_figure: the phases {phases} cover {total} steps, the history has {history_length}")
    return phases


def loss_figure(history, phases=None, errors=(), *, title: str = "training",
                error_label: str = "relative L2 error (test)"):
    """The loss per step on a log axis (left), the errors on their own log axis (right).

    - `history`: the loss per step, the phases' steps one after another (Adam, then L-BFGS).
    - `phases`: `[(name, count), ...]` as `Result.phases` ("adam", "sgd", "lbfgs"); each is drawn in
      its colour, an L-BFGS phase is shaded and labelled "L-BFGS" above the frame. None: all Adam.
    - `errors`: `[(step, relative L2 error as a fraction), ...]`, steps counted from 1 along `history`.
    """
    fig = figure(figsize=(7, 4))
    ax = fig.subplots()
    history = np.asarray(history, dtype=np.float64)
    steps = np.arange(1, len(history) + 1)
    start, labelled = 0, set()
    for name, count in _phases(len(history), phases):
        if count <= 0:
            continue
        part = slice(start, start + count)
        label = None if name in labelled else f"loss ({PHASE_LABELS.get(name, name)})"
        labelled.add(name)
        ax.semilogy(steps[part], history[part], "-", color=_PHASE_COLOURS.get(name, "C2"), lw=1, label=label)
        if name == "lbfgs":
            ax.axvspan(start + 0.5, start + count + 0.5, color="C1", alpha=0.08, lw=0)
            # the label sits just above the frame over the shaded span (y in axes coordinates), where
            # neither the legend nor the curves can cover it; the title moves left to make room
            ax.text(start + 0.5 + count / 2, 1.01, "L-BFGS", transform=ax.get_xaxis_transform(), ha="center",
                    va="bottom", color="C1", fontsize=9)
        start += count
    ax.set(xlabel="step (Adam) / iteration (L-BFGS)", ylabel="training loss")
    ax.set_title(title, loc="left")
    handles, labels = ax.get_legend_handles_labels()
    if len(errors):
        err_ax = ax.twinx()
        at, values = zip(*errors)
        err_ax.semilogy(at, values, "ko", ms=4, label="relative L2 error")
        err_ax.set_ylabel(error_label)
        more_handles, more_labels = err_ax.get_legend_handles_labels()
        handles, labels = handles + more_handles, labels + more_labels
    if handles:
        ax.legend(handles, labels, loc="best")
    fig.tight_layout()
    return fig


def _relative_l2(prediction, truth) -> float:
    prediction, truth = np.asarray(prediction, np.float64), np.asarray(truth, np.float64)
    return float(np.linalg.norm(prediction - truth) / np.linalg.norm(truth))


def fields_1d(x, inputs, truth, prediction, *, count: int = 3, title: str = "", input_label: str = "input",
              output_label: str = "output u", x_label: str = "x"):
    """One panel per sample (at most `count`): the true output and the prediction over grid `x`,
    the input on a right-hand axis of its own (outputs can be much smaller: Burgers at t = 1 is damped).

    `inputs`, `truth`, `prediction`: `[num, n]`. Each panel's title gives its relative L2 error.
    """
    count = min(count, len(truth))
    fig = figure(figsize=(4.2 * count, 3.2))
    axes = np.atleast_1d(fig.subplots(1, count, squeeze=False)[0])
    for i, ax in enumerate(axes):
        side = ax.twinx()
        side.plot(x, inputs[i], color="0.7", lw=1, label=input_label)
        side.tick_params(axis="y", colors="0.5", labelsize=8)
        ax.set_zorder(side.get_zorder() + 1)   # the outputs drawn over the input
        ax.patch.set_visible(False)
        ax.plot(x, truth[i], color="C0", lw=2, label="true")
        ax.plot(x, prediction[i], color="C3", lw=1.5, ls="--", label="predicted")
        ax.set_title(f"sample {i}: rel. L2 {format_error(_relative_l2(prediction[i], truth[i]))}", fontsize=9)
        ax.set_xlabel(x_label)
        ax.set_ylabel(output_label)
        side.set_ylabel(f"{input_label} (grey)", color="0.5", fontsize=8)
        if i == 0:
            lines = ax.get_lines() + side.get_lines()
            ax.legend(lines, [line.get_label() for line in lines], fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def heat_map(fig, ax, field, extent, *, label: str, x_label: str, y_label: str, cmap: str = "viridis",
             vmin=None, vmax=None, transpose: bool = False):
    """`field` (`[rows (up), columns (across)]`, or transposed with `transpose`) as an image on `ax`
    spanning `extent` (left, right, bottom, top), with labelled axes and a colourbar labelled `label`."""
    image = ax.imshow(np.asarray(field).T if transpose else field, origin="lower", extent=extent, aspect="auto",
                      cmap=cmap, vmin=vmin, vmax=vmax)
    fig.colorbar(image, ax=ax, label=label)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    return image


def _image_axes(coords: dict):
    """(horizontal name, vertical name, transpose?) for a field indexed `[axis0, axis1]` with `coords` in that order.

    The axis named "x" goes across (Darcy's and Navier-Stokes' first axis, Burgers' second), the other up.
    """
    names = list(coords)
    if len(names) != 2:
        raise InputError(f"fields_2d: coords must name two grid axes, got {names}")
    across = "x" if "x" in names else names[0]
    up = names[1] if names[0] == across else names[0]
    return across, up, names[0] == across


def fields_2d(inputs, truth, prediction, coords: dict, *, count: int = 3, title: str = "", input_label: str = "input",
              output_label: str = "output"):
    """One row per sample (at most `count`): the input, the true output, the prediction, the error map.

    `truth`, `prediction`: `[num, n0, n1]` on the grid `coords` (an ordered dict of the two axes'
    coordinates). `inputs`: `[num, n0, n1]` (a map) or `[num, n]` (a curve over the "x" axis, e.g.
    Burgers' initial condition). Truth and prediction share one colour scale; the error map
    (prediction - truth) is symmetric about 0 and its title gives the relative L2 error.
    """
    across, up, transpose = _image_axes(coords)
    extent = [coords[across][0], coords[across][-1], coords[up][0], coords[up][-1]]
    count = min(count, len(truth))
    fig = figure(figsize=(15, 3.3 * count))
    axes = fig.subplots(count, 4, squeeze=False)
    names = dict(x_label=across, y_label=up, transpose=transpose)
    for i in range(count):
        row = axes[i]
        if np.ndim(inputs[i]) == 1:
            row[0].plot(coords[across], inputs[i], color="C0")
            row[0].set_xlabel(across)
            row[0].set_ylabel(input_label)
        else:
            heat_map(fig, row[0], inputs[i], extent, label=input_label, cmap="cividis", **names)
        low = float(min(np.min(truth[i]), np.min(prediction[i])))
        high = float(max(np.max(truth[i]), np.max(prediction[i])))
        heat_map(fig, row[1], truth[i], extent, label=f"true {output_label}", vmin=low, vmax=high, **names)
        heat_map(fig, row[2], prediction[i], extent, label=f"predicted {output_label}", vmin=low, vmax=high, **names)
        error = np.asarray(prediction[i], np.float64) - np.asarray(truth[i], np.float64)
        bound = float(np.abs(error).max()) or 1.0
        heat_map(fig, row[3], error, extent, label="prediction - truth", cmap="RdBu_r", vmin=-bound, vmax=bound,
                 **names)
        row[0].set_title(f"sample {i}: {input_label}", fontsize=10)
        row[1].set_title("truth", fontsize=10)
        row[2].set_title("prediction", fontsize=10)
        row[3].set_title(f"error (rel. L2 {format_error(_relative_l2(prediction[i], truth[i]))})", fontsize=9)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def solution_1d(x, prediction, reference=None, *, title: str = "", x_label: str = "x", u_label: str = "u(x)",
                model_label: str = "PINN", reference_label: str = "reference"):
    """A 1-D solution: the prediction (and the reference) over `x`, and with a reference the pointwise
    error |u - u_ref| on a log axis, titled with the relative L2 error."""
    x = np.asarray(x).reshape(-1)
    prediction = np.asarray(prediction, np.float64).reshape(-1)
    panels = 1 if reference is None else 2
    fig = figure(figsize=(5.5 * panels, 4))
    axes = np.atleast_1d(fig.subplots(1, panels))
    ax_u = axes[0]
    if reference is not None:
        reference = np.asarray(reference, np.float64).reshape(-1)
        ax_u.plot(x, reference, "k-", lw=3, alpha=0.35, label=reference_label)
    ax_u.plot(x, prediction, "C0--", lw=1.5, label=model_label)
    ax_u.set(xlabel=x_label, ylabel=u_label, title=f"{title}: prediction vs {reference_label}" if title else "")
    ax_u.legend()
    if reference is not None:
        ax_err = axes[1]
        # + the smallest positive double: an exact zero would vanish from the log axis
        ax_err.semilogy(x, np.abs(prediction - reference) + 1e-300, "C3-")
        ax_err.set(xlabel=x_label, ylabel="|u - u_ref|",
                   title=f"pointwise error (rel. L2 {format_error(_relative_l2(prediction, reference))})")
    fig.tight_layout()
    return fig


def solution_2d(points, prediction, reference=None, *, names=("x", "y"), title: str = "", u_label: str = "u"):
    """A solution over scattered 2-D `points` (`[N, 2]`: (x, y) or (x, t)) as filled contour maps:
    the prediction, and with a reference the reference and |u - u_ref| (titled with the relative L2
    error); prediction and reference share a colour scale symmetric about 0."""
    points = np.asarray(points)
    prediction = np.asarray(prediction, np.float64).reshape(-1)
    panels = [(f"predicted {u_label}", prediction, "RdBu_r")]
    if reference is not None:
        reference = np.asarray(reference, np.float64).reshape(-1)
        error = format_error(_relative_l2(prediction, reference))
        panels += [(f"reference {u_label}", reference, "RdBu_r"),
                    (f"|{u_label} - {u_label}_ref|", np.abs(prediction - reference), "magma")]
    fig = figure(figsize=(5 * len(panels), 4))
    axes = np.atleast_1d(fig.subplots(1, len(panels)))
    lim = float(np.max(np.abs(prediction if reference is None else reference))) or 1.0
    for k, (ax, (label, values, cmap)) in enumerate(zip(axes, panels)):
        kw = {"vmin": -lim, "vmax": lim} if cmap == "RdBu_r" else {}
        image = ax.tricontourf(points[:, 0], points[:, 1], values, levels=64, cmap=cmap, **kw)
        fig.colorbar(image, ax=ax, label=label)
        panel_title = label if k < 2 else f"error (rel. L2 {error})"
        ax.set(xlabel=names[0], ylabel=names[1], title=f"{title}: {panel_title}" if title else panel_title)
    fig.tight_layout()
    return fig


def parity(reference, prediction, *, title: str = "", reference_label: str = "reference u",
           prediction_label: str = "predicted u"):
    """Prediction against reference, one dot per point, with the identity line; without a reference
    (None), a histogram of the predictions."""
    prediction = np.asarray(prediction, np.float64).reshape(-1)
    fig = figure(figsize=(5, 5))
    ax = fig.subplots()
    if reference is not None:
        reference = np.asarray(reference, np.float64).reshape(-1)
        ax.plot(reference, prediction, "C0.", ms=2)
        lo, hi = float(reference.min()), float(reference.max())
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
        error = format_error(_relative_l2(prediction, reference))
        ax.set(xlabel=reference_label, ylabel=prediction_label,
               title=f"{title} (rel. L2 {error})" if title else f"rel. L2 {error}")
    else:
        ax.hist(prediction, bins=50)
        ax.set(xlabel=prediction_label, ylabel="points", title=f"{title}: no reference" if title else "no reference")
    fig.tight_layout()
    return fig
