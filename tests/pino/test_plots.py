"""pino's field plots label every axis, and the colourbars of the 2-D ones (issue 20 item 6)."""
import matplotlib
import numpy as np

matplotlib.use("Agg")

from pino.plots import plot_fields, plot_fields_2d  # noqa: E402


def test_every_axis_of_the_field_plots_is_labelled():
    rng = np.random.default_rng(0)
    x = np.linspace(0, 1, 16, endpoint=False)
    one_d = plot_fields(x, rng.standard_normal((2, 16)), rng.standard_normal((2, 16)), rng.standard_normal((2, 16)),
                        input_label="u0", output_label="u(x, 1)")
    coords = {"x": np.linspace(0, 1, 8), "y": np.linspace(0, 1, 6)}
    fields = [rng.standard_normal((2, 1, 8, 6)) for _ in range(3)]
    two_d = plot_fields_2d(*fields, coords, input_label="a", output_label="u")
    for fig in (one_d, two_d):
        def x_labelled(ax):   # a twin axis shares its x axis (and label) with the panel it overlays
            siblings = ax.get_shared_x_axes().get_siblings(ax)
            return ax.get_label() == "<colorbar>" or any(a.get_xlabel() for a in siblings)
        unlabelled = [ax for ax in fig.axes if not ax.get_ylabel() or not x_labelled(ax)]
        assert not unlabelled, [(ax.get_xlabel(), ax.get_ylabel(), ax.get_label()) for ax in unlabelled]
