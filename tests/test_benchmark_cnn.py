"""benchmarks/cnn_step.py runs through the process-per-framework driver, tiny: each framework's worker in
its own process, one pair; checks what it saves (the losses agree, five convolutions in frame's step),
never wall-clock figures."""
import json
import os
import sys

import pytest

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCHMARKS)


def test_the_cnn_step_benchmark_runs_tiny_and_frame_agrees_with_jax(tmp_path, capsys):
    pytest.importorskip("jax")
    import cnn_step

    out = tmp_path / "c.json"
    cnn_step.main(["--batch", "2", "--size", "8", "--pairs", "1", "--warmup", "0", "--repeats", "1",
                   "--min-seconds", "0", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "CNN training step" in printed and "target <= 1.0" in printed
    saved = json.loads(out.read_text())
    rows = {s["label"]: s for s in saved["summary"] if not s["skip"]}
    assert {"frame", "jax"} <= set(rows)
    assert rows["frame"]["case"] == "B=2 8x8"
    assert rows["frame"]["loss diff"] < 1e-5
    assert rows["frame"]["convs"] == 5      # two forward, two weight gradients, one input gradient


def test_the_cnn_step_is_one_sgd_step_of_the_network_in_both_frameworks():
    """In this process: frame's and jax's steps give the same loss and updated parameters."""
    pytest.importorskip("jax")
    import cnn_step
    import frame
    import numpy as np

    problem = cnn_step.make_problem(batch=3, size=8)
    loss, params = frame.function(cnn_step.frame_step_fn())(*problem)
    jloss, jparams = cnn_step.jax_step_fn()(*problem)
    assert abs(float(loss) - float(jloss)) <= 1e-5 * abs(float(jloss))
    for p, q in zip(params, jparams):
        np.testing.assert_allclose(p, np.asarray(q), rtol=1e-4, atol=1e-6)
