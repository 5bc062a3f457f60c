"""Plots: predicted vs true fields, and training-loss curves (matplotlib)."""
from __future__ import annotations

import numpy as np


def _pyplot():
    import matplotlib.pyplot as plt  # imported lazily: `import pino` stays light
    return plt


def plot_fields(x, inputs, truth, prediction, *, count: int = 3, title: str = "", input_label: str = "input",
                path: str | None = None):
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
        if i == 0:
            lines = ax.get_lines() + side.get_lines()
            ax.legend(lines, [line.get_label() for line in lines], fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    if path:
        fig.savefig(path, dpi=120)
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
