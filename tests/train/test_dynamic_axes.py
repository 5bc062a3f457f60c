"""`Trainer(..., dynamic_axes=)` and `lbfgs(..., dynamic_axes=)` (issue 17 item 2 in frame.train): a PINN
whose collocation set is resampled with a new count every 100 steps traces and compiles its training graph
once, and each step's loss equals that of a concretely shaped Trainer at that size; refusals of mismatched
sizes, malformed dynamic_axes and dynamic_axes with client=.
"""
from __future__ import annotations

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import FrameError, InputError, TraceError
from frame.ir.types import TensorType
from frame.runtime.compile import cache_info
from frame.train import Adam, LossGraph, Trainer, as_param_leaves, lbfgs
from tests.workloads import flat_mlp, flat_mlp_params


def poisson_loss(p, x, f):
    """-u'' = f on the points x, u'' by nested reverse mode; the mean's divisor is the run-time count."""
    u_x = frame.grad(lambda x: fnp.sum(flat_mlp(p, x)))
    u_xx = frame.grad(lambda x: fnp.sum(u_x(x)))(x)
    r = -u_xx - f
    return fnp.mean(r * r)


def _collocation(rng, count):
    x = rng.uniform(-1, 1, (count, 1))
    return x, np.pi ** 2 * np.sin(np.pi * x)


def test_pinn_resampled_every_100_steps_traces_and_compiles_once():
    params = flat_mlp_params(width=16)
    symbolic = Trainer(poisson_loss, params, Adam(5e-3), progress=False, dynamic_axes={0: 0, 1: 0})
    rng = np.random.default_rng(7)
    before = cache_info().misses
    losses, concrete_losses = [], []
    for count in (128, 200, 77):
        x, f = _collocation(rng, count)
        # a concretely shaped Trainer at this size, from the same params and optimiser state
        concrete = Trainer(poisson_loss, symbolic.params, Adam(5e-3), progress=False)
        concrete._state = symbolic.opt_state
        concrete.step_count = symbolic.step_count
        for _ in range(100):
            losses.append(symbolic.step(x, f))
            concrete_losses.append(concrete.step(x, f))
        assert concrete.loss_graph.compile_count == 1
    assert symbolic.loss_graph.trace_count == 1 and symbolic.loss_graph.compile_count == 1
    # the symbolic run compiled its training graph once; each concrete Trainer compiled its own (3)
    # and shares the update graph with the symbolic one (one compile, cached by fingerprint)
    assert cache_info().misses - before == 1 + 3
    assert str(symbolic.training_graph.inputs[-1].type) == "f64[n0,1]"
    assert len(symbolic.history) == 300 and losses[99] < 0.5 * losses[0]
    # Equal to rounding: the symbolic and concrete pipelines may order a reduction differently (measured:
    # 68% of steps bit-equal, the largest difference 5e-16 relative, over the 300 steps).
    np.testing.assert_allclose(losses, concrete_losses, rtol=1e-12)


def test_mismatched_sizes_of_two_dynamic_arguments_are_refused():
    trainer = Trainer(poisson_loss, flat_mlp_params(1, width=16), Adam(1e-3), progress=False, dynamic_axes={0: 0, 1: 0})
    x, f = _collocation(np.random.default_rng(0), 12)
    trainer.step(x, f)
    with pytest.raises(InputError, match="symbolic size n0"):
        trainer.step(x, f[:7])
    assert trainer.step_count == 1   # the refused step changed nothing
    # named apart, the two arguments may differ in size
    split = Trainer(lambda p, x, y: fnp.mean(flat_mlp(p, x)) + fnp.mean(flat_mlp(p, y) ** 2), flat_mlp_params(1, width=16), Adam(1e-3),
                    progress=False, dynamic_axes={0: {0: "a"}, 1: {0: "b"}})
    split.step(x, f[:7])
    split.step(x[:5], f)
    assert split.loss_graph.compile_count == 1


@pytest.mark.parametrize("dynamic_axes, match", [
    ([0, 0], "must be a dict"),
    ({-1: 0}, "data argument numbers >= 0"),
    ({"x": 0}, "data argument numbers >= 0"),
    ({0: "rows"}, "must be an axis"),
    ({0: ()}, "must be an axis"),
    ({0: -1}, "negative"),
    ({0: {0: "2n"}}, "identifier"),
])
def test_bad_dynamic_axes_are_refused_at_construction(dynamic_axes, match):
    with pytest.raises(TraceError, match=match):
        Trainer(poisson_loss, flat_mlp_params(width=16), Adam(1e-3), progress=False, dynamic_axes=dynamic_axes)


def test_dynamic_axes_out_of_range_are_refused_at_the_first_step():
    x, f = _collocation(np.random.default_rng(0), 6)
    # {1: 0, 2: 0} counts params as argument 0: there is no data argument 2
    trainer = Trainer(poisson_loss, flat_mlp_params(width=16), Adam(1e-3), progress=False, dynamic_axes={1: 0, 2: 0})
    with pytest.raises(TraceError, match="data argument 2.*2 data argument"):
        trainer.step(x, f)
    trainer = Trainer(poisson_loss, flat_mlp_params(width=16), Adam(1e-3), progress=False, dynamic_axes={0: 2})
    with pytest.raises(TraceError, match=r"axis 2 of data argument 0.*\(6, 1\)"):
        trainer.step(x, f)
    assert isinstance(TraceError("x"), FrameError)


def test_dynamic_axes_with_a_client_are_refused():
    with pytest.raises(FrameError, match="dynamic_axes= is not supported with client="):
        Trainer(poisson_loss, flat_mlp_params(width=16), Adam(1e-3), progress=False, client=object(), shard=(0, 1),
                dynamic_axes={0: 0, 1: 0})
    x, f = _collocation(np.random.default_rng(0), 6)
    with pytest.raises(FrameError, match="dynamic_axes= is not supported with client="):
        lbfgs(poisson_loss, flat_mlp_params(width=16), x, f, maxiter=1, progress=False, client=object(), shard=(0, 1),
              dynamic_axes={0: 0, 1: 0})


def test_lbfgs_on_resampled_data_compiles_once():
    rng = np.random.default_rng(3)
    params, before = flat_mlp_params(2, width=8), cache_info().misses
    for count in (40, 23):
        x, f = _collocation(rng, count)
        result = lbfgs(poisson_loss, params, x, f, maxiter=5, progress=False, dynamic_axes={0: 0, 1: 0})
        leaves, treedef = as_param_leaves(params)
        want = LossGraph(poisson_loss, treedef, [TensorType.of(p) for p in leaves]).value_and_grad(leaves, (x, f))[0]
        np.testing.assert_allclose(result.history[0], float(want), rtol=1e-12)   # the same loss at the start
        assert result.loss < result.history[0]
        params = result.params
    # one compile of the symbolic graph serves both sizes; the two concrete references compile once each
    assert cache_info().misses - before == 1 + 2
