"""Plots of a trained neural operator: predicted vs true fields (1-D curves, 2-D maps with their
error) and the training-loss curve.

The figures come from `workbench.plots` (the plots module pinn and pino share); these are the
names pino has always offered, each returning the figure and saving it to `path` when given.
"""
from __future__ import annotations

from workbench import plots


def _saved(fig, path):
    if path:
        plots.save_figure(fig, path)
    return fig


def plot_fields(x, inputs, truth, prediction, *, count: int = 3, title: str = "", input_label: str = "input",
                output_label: str = "output u", path: str | None = None):
    """One panel per sample: the true output and the prediction on grid `x`, the input on a right axis
    (`workbench.plots.fields_1d`)."""
    return _saved(plots.fields_1d(x, inputs, truth, prediction, count=count, title=title, input_label=input_label,
                                  output_label=output_label), path)


def plot_fields_2d(inputs, truth, prediction, coords: dict, *, count: int = 3, title: str = "",
                   input_label: str = "input", output_label: str = "output", path: str | None = None):
    """One row per sample: the input field, the true output, the prediction and the error map
    (`workbench.plots.fields_2d`; `truth`, `prediction` `[num, n0, n1]` on the grid `coords`)."""
    return _saved(plots.fields_2d(inputs, truth, prediction, coords, count=count, title=title,
                                  input_label=input_label, output_label=output_label), path)


def plot_history(history, *, phases=None, errors=(), title: str = "training loss", path: str | None = None):
    """The loss per step (and the test errors measured along the way, `[(step, fraction)]`) on separate
    log axes, an L-BFGS phase shaded (`workbench.plots.loss_figure`)."""
    return _saved(plots.loss_figure(history, phases, errors, title=title), path)
