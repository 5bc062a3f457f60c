"""Plots: predicted vs true fields (1-D curves, 2-D maps with their error), and training-loss curves (matplotlib)."""
from __future__ import annotations

import numpy as np


def _pyplot():
    import matplotlib.pyplot as plt  # imported lazily: `import pino` stays light
    return plt


def plot_fields(x, inputs, truth, prediction, *, count: int = 3, title: str = "", input_label: str = "input",
                output_label: str = "output u", path: str | None = None):
    """One panel per sample: the true output and the model's prediction on grid `x`, the input field on a right axis.

    Returns the matplotlib figure; saves it to `path` when given.
    """
    plt = _pyplot()
    count = min(count, len(truth))
    fig, axes = plt.subplots(1, count, figsize=(4.2 * count, 3.2), squeeze=False)
    for i, ax in enumerate(axes[0]):
        # The input gets its own (right) axis: outputs can be much smaller (Burgers at t = 1 is damped).
        side = ax.twinx()
        side.plot(x, inputs[i], color="0.7", lw=1, label=input_label)
        side.tick_params(axis="y", colors="0.5", labelsize=8)
        ax.set_zorder(side.get_zorder() + 1)
        ax.patch.set_visible(False)
        ax.plot(x, truth[i], color="C0", lw=2, label="true")
        ax.plot(x, prediction[i], color="C3", lw=1.5, ls="--", label="predicted")
        err = np.linalg.norm(prediction[i] - truth[i]) / np.linalg.norm(truth[i])
        ax.set_title(f"sample {i}: rel. L2 {err:.2%}", fontsize=10)
        ax.set_xlabel("x")
        ax.set_ylabel(output_label)
        side.set_ylabel(f"{input_label} (grey)", color="0.5", fontsize=8)
        if i == 0:
            lines = ax.get_lines() + side.get_lines()
            ax.legend(lines, [line.get_label() for line in lines], fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    if path:
        fig.savefig(path, dpi=120)
    return fig


def _image_axes(coords: dict):
    """(horizontal name, vertical name, transpose?) for a field indexed `[axis0, axis1]` with `coords` in that order.

    The axis named "x" goes across (Darcy's and Navier-Stokes' first axis, Burgers' second), the other up.
    """
    names = list(coords)
    if len(names) != 2:
        raise ValueError(f"plot_fields_2d: coords must name two grid axes, got {names}")
    across = "x" if "x" in names else names[0]
    up = names[1] if names[0] == across else names[0]
    return across, up, names[0] == across


def plot_fields_2d(inputs, truth, prediction, coords: dict, *, count: int = 3, title: str = "",
                   input_label: str = "input", output_label: str = "output", path: str | None = None):
    """One row per sample: the input field, the true output, the prediction and the pointwise error prediction - truth.

    `truth`, `prediction`: `[num, n0, n1]` on the grid `coords` (an ordered dict of the two axes' coordinates).
    `inputs`: `[num, n0, n1]` (a map, drawn like the outputs) or `[num, n]` (a curve over the "x" axis, e.g.
    Burgers' initial condition). Every map has a colourbar labelled with its quantity, and labelled axes;
    truth and prediction share one colour scale. Returns the figure; saves it to `path` when given.
    """
    plt = _pyplot()
    across, up, transpose = _image_axes(coords)
    extent = [coords[across][0], coords[across][-1], coords[up][0], coords[up][-1]]
    count = min(count, len(truth))
    fig, axes = plt.subplots(count, 4, figsize=(15, 3.3 * count), squeeze=False)

    def show(ax, field, label, cmap="viridis", vmin=None, vmax=None):
        image = ax.imshow(field.T if transpose else field, origin="lower", extent=extent, aspect="auto", cmap=cmap,
                          vmin=vmin, vmax=vmax)
        bar = fig.colorbar(image, ax=ax)
        bar.set_label(label)
        ax.set_xlabel(across)
        ax.set_ylabel(up)

    for i in range(count):
        row = axes[i]
        if np.ndim(inputs[i]) == 1:
            row[0].plot(coords[across], inputs[i], color="C0")
            row[0].set_xlabel(across)
            row[0].set_ylabel(input_label)
        else:
            show(row[0], inputs[i], input_label, cmap="cividis")
        low = float(min(truth[i].min(), prediction[i].min()))
        high = float(max(truth[i].max(), prediction[i].max()))
        show(row[1], truth[i], f"true {output_label}", vmin=low, vmax=high)
        show(row[2], prediction[i], f"predicted {output_label}", vmin=low, vmax=high)
        error = prediction[i] - truth[i]
        bound = float(np.abs(error).max()) or 1.0
        show(row[3], error, "prediction - truth", cmap="RdBu_r", vmin=-bound, vmax=bound)
        rel = np.linalg.norm(error) / np.linalg.norm(truth[i])
        row[0].set_title(f"sample {i}: {input_label}", fontsize=10)
        row[1].set_title("truth", fontsize=10)
        row[2].set_title("prediction", fontsize=10)
        row[3].set_title(f"error (rel. L2 {rel:.2%})", fontsize=10)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    if path:
        fig.savefig(path, dpi=110)
    return fig


def plot_history(history, *, title: str = "training loss", path: str | None = None):
    """The loss per step on a log scale; returns the figure, saved to `path` when given."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.semilogy(np.arange(1, len(history) + 1), history)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_title(title)
    fig.tight_layout()
    if path:
        fig.savefig(path, dpi=120)
    return fig
