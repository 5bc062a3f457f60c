"""pinn's loss plot: loss and error on separate, labelled log axes; the L-BFGS phase marked (issue 20 item 6)."""
import matplotlib

matplotlib.use("Agg")

import pinn  # noqa: E402
from pinn.plots import loss_figure  # noqa: E402


def test_loss_plot_separates_loss_and_error_axes_and_marks_lbfgs():
    problem = pinn.Poisson1D(n_collocation=16)
    result = pinn.train(problem, pinn.MLP([1, 8, 1], seed=0), steps=20, lbfgs_steps=10, progress=False, eval_every=5)
    fig = loss_figure(result)
    loss_ax, error_ax = fig.axes
    assert loss_ax.get_ylabel() == "training loss" and error_ax.get_ylabel().startswith("relative L2 error")
    assert loss_ax.get_yscale() == error_ax.get_yscale() == "log" and "L-BFGS" in loss_ax.get_xlabel()
    labels = [t.get_text() for t in loss_ax.get_legend().get_texts()]
    assert labels == ["loss (Adam)", "loss (L-BFGS)", "relative L2 error"]
    (shade,) = loss_ax.patches                              # the L-BFGS phase, after the 20 Adam steps
    assert abs(shade.get_x() - 20.5) < 1e-9
    error_steps = [int(x) for x in error_ax.lines[0].get_xdata()]
    assert any(step > 20 for step in error_steps[:-1])     # errors measured during L-BFGS too
