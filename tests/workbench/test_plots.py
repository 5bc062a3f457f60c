"""workbench.plots: the loss plot separates loss and error axes and marks the L-BFGS phase; every field,
solution and parity figure labels every axis and colourbar and writes errors in the CLIs' unit (issue 20
items 1 and 6)."""
import numpy as np
import pytest

from frame.errors import InputError
from workbench import plots
from workbench.cli import format_error


def assert_every_axis_labelled(fig):
    """Every axes of `fig` has a y label and an x label (a twin axis shares its panel's x label), and every
    colourbar a label."""
    def x_labelled(ax):
        return any(a.get_xlabel() for a in ax.get_shared_x_axes().get_siblings(ax))

    unlabelled = [(ax.get_xlabel(), ax.get_ylabel(), ax.get_label()) for ax in fig.axes
                  if not ax.get_ylabel() or (ax.get_label() != "<colorbar>" and not x_labelled(ax))]
    assert not unlabelled, unlabelled


def test_loss_figure_separates_loss_and_error_axes_and_shades_and_labels_lbfgs(tmp_path):
    history = np.geomspace(1.0, 1e-6, 50)
    errors = [(10, 0.5), (30, 0.01), (40, 1e-3), (50, 2e-4)]
    fig = plots.loss_figure(history, [("adam", 30), ("lbfgs", 20)], errors, title="poisson1d training")
    loss_ax, error_ax = fig.axes
    assert loss_ax.get_ylabel() == "training loss" and error_ax.get_ylabel().startswith("relative L2 error")
    assert loss_ax.get_yscale() == error_ax.get_yscale() == "log" and "L-BFGS" in loss_ax.get_xlabel()
    assert [t.get_text() for t in loss_ax.get_legend().get_texts()] == ["loss (Adam)", "loss (L-BFGS)",
                                                                      "relative L2 error"]
    (shade,) = loss_ax.patches                        # the L-BFGS phase: steps 31..50
    assert shade.get_x() == pytest.approx(30.5) and shade.get_width() == pytest.approx(20)
    assert [t.get_text() for t in loss_ax.texts] == ["L-BFGS"]
    assert loss_ax.texts[0].get_position()[0] == pytest.approx(40.5)
    adam_line, lbfgs_line = loss_ax.lines
    np.testing.assert_array_equal(lbfgs_line.get_xdata(), np.arange(31, 51))
    np.testing.assert_array_equal(lbfgs_line.get_ydata(), history[30:])
    np.testing.assert_array_equal(error_ax.lines[0].get_ydata(), [e for _, e in errors])
    assert plots.save_figure(fig, tmp_path / "loss.png") == str(tmp_path / "loss.png")
    assert (tmp_path / "loss.png").stat().st_size > 10_000


def test_loss_figure_without_phases_is_all_adam_and_without_errors_has_one_axis():
    fig = plots.loss_figure([3.0, 2.0, 1.0])
    (ax,) = fig.axes
    assert not ax.patches and [t.get_text() for t in ax.get_legend().get_texts()] == ["loss (Adam)"]


def test_loss_figure_refuses_phases_that_do_not_cover_the_history():
    with pytest.raises(InputError, match=r"cover 5 steps, the history has 4"):
        plots.loss_figure([4.0, 3.0, 2.0, 1.0], [("adam", 3), ("lbfgs", 2)])


def test_fields_1d_labels_every_axis_and_titles_each_sample_with_its_error():
    rng = np.random.default_rng(0)
    x = np.linspace(0, 1, 16, endpoint=False)
    inputs, truth = rng.standard_normal((2, 3, 16))
    prediction = truth + 0.01 * rng.standard_normal((3, 16))
    fig = plots.fields_1d(x, inputs, truth, prediction, count=2, input_label="u0", output_label="u(x, 1)")
    assert_every_axis_labelled(fig)
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 2
    error = np.linalg.norm(prediction[1] - truth[1]) / np.linalg.norm(truth[1])
    assert panels[1].get_title() == f"sample 1: rel. L2 {format_error(error)}"


def test_fields_2d_has_labelled_colourbars_and_a_symmetric_error_map():
    rng = np.random.default_rng(1)
    coords = {"x": np.linspace(0, 1, 8), "y": np.linspace(0, 2, 6)}
    inputs, truth = rng.standard_normal((2, 2, 8, 6))
    prediction = truth + 0.1 * rng.standard_normal((2, 8, 6))
    fig = plots.fields_2d(inputs, truth, prediction, coords, input_label="a", output_label="u")
    assert_every_axis_labelled(fig)
    bars = sorted(ax.get_ylabel() for ax in fig.axes if ax.get_label() == "<colorbar>")
    assert bars == sorted(["a", "true u", "predicted u", "prediction - truth"] * 2)
    error_panel = [ax for ax in fig.axes if ax.get_title().startswith("error")][0]
    (image,) = error_panel.images
    low, high = image.get_clim()
    assert low == -high == pytest.approx(-np.abs(prediction[0] - truth[0]).max())
    np.testing.assert_allclose(image.get_array(), (prediction[0] - truth[0]).T)   # "x" across: field[x, y] shown .T
    assert error_panel.get_xlabel() == "x" and error_panel.get_ylabel() == "y"
    assert error_panel.images[0].get_extent() == [0, 1, 0, 2]


def test_fields_2d_draws_a_1d_input_as_a_curve_and_refuses_other_grids():
    coords = {"t": np.linspace(0, 1, 5), "x": np.linspace(0, 1, 7)}
    truth = np.ones((1, 5, 7))
    fig = plots.fields_2d(np.zeros((1, 7)), truth, truth * 1.1, coords, input_label="u0(x)", output_label="u")
    assert_every_axis_labelled(fig)
    assert fig.axes[0].get_xlabel() == "x" and fig.axes[0].get_ylabel() == "u0(x)"
    with pytest.raises(InputError, match="coords must name two grid axes"):
        plots.fields_2d(truth, truth, truth, {"x": np.arange(5)})


def test_solution_1d_shows_prediction_reference_and_the_pointwise_error():
    x = np.linspace(0, 1, 50)
    reference = np.sin(np.pi * x)
    prediction = reference + 1e-3 * x
    fig = plots.solution_1d(x, prediction, reference, title="poisson1d")
    assert_every_axis_labelled(fig)
    ax_u, ax_err = fig.axes
    assert ax_err.get_yscale() == "log"
    np.testing.assert_allclose(ax_err.lines[0].get_ydata(), np.abs(prediction - reference) + 1e-300)
    assert format_error(np.linalg.norm(prediction - reference) / np.linalg.norm(reference)) in ax_err.get_title()
    (only,) = plots.solution_1d(x, prediction).axes            # without a reference: the prediction alone
    assert only.get_ylabel() == "u(x)"


def test_solution_2d_and_parity_label_everything():
    rng = np.random.default_rng(2)
    points = rng.uniform(size=(200, 2))
    reference = np.sin(points[:, 0]) * points[:, 1]
    prediction = reference + 1e-2
    fig = plots.solution_2d(points, prediction, reference, names=("x", "t"), title="heat")
    assert_every_axis_labelled(fig)
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert [(ax.get_xlabel(), ax.get_ylabel()) for ax in panels] == [("x", "t")] * 3
    error = format_error(np.linalg.norm(prediction - reference) / np.linalg.norm(reference))
    assert panels[2].get_title() == f"heat: error (rel. L2 {error})"
    fig = plots.parity(reference, prediction, title="kdv")
    assert_every_axis_labelled(fig)
    assert format_error(np.linalg.norm(prediction - reference) / np.linalg.norm(reference)) in fig.axes[0].get_title()
    assert_every_axis_labelled(plots.parity(None, prediction))
