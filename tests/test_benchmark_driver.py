"""The process-per-framework benchmark driver (benchmarks/driver.py) on tiny scripted workers.

The workers print fixed times, so the medians, per-pair ratios and FLOP bounds are checked exactly;
nothing here measures or asserts wall-clock time.
"""
import json
import os
import sys

import pytest

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCHMARKS)

import driver  # noqa: E402


def scripted(label: str, body: str) -> driver.Worker:
    """A worker running `body` with `emit` imported; `body` sees `os` and `json`."""
    code = f"import os, json, sys\nsys.path.insert(0, {BENCHMARKS!r})\nfrom driver import emit\n{body}"
    return driver.Worker(label, [sys.executable, "-c", code])


def env_report(time_s: float, flops=None) -> str:
    extra = f', "flops": {flops}' if flops else ""
    return ('emit([{"case": "small", "time": %r, "nodes": 7, '
            '"saw_openblas": [v for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if v in os.environ]%s}, '
            '{"case": "large", "time": %r}])' % (time_s, extra, 10 * time_s))


def test_workers_alternate_in_their_own_processes_and_ratios_are_per_pair(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    monkeypatch.setenv("OPENBLAS_L2_SIZE", "1048576")
    lines = []
    workers = [scripted("a", env_report(0.002, flops=1e6)), scripted("b", env_report(0.001))]
    report = driver.run_pairs(workers, pairs=3, baseline="b", peak={"float32": 1e9}, log=lines.append)

    assert [(r["pair"], r["label"]) for r in report.records if r["case"] == "small"] == \
        [(0, "a"), (0, "b"), (1, "a"), (1, "b"), (2, "a"), (2, "b")]
    assert len(lines) == 6 and lines[0].startswith("pair 1/3 a:")
    # The tuning variables are removed for every child alike; the parent's environment keeps them.
    assert all(r["saw_openblas"] == [] for r in report.records if r["case"] == "small")
    assert os.environ["OPENBLAS_CORETYPE"] == "Haswell"

    rows = {(r.case, r.label): r for r in report.rows()}
    a, b = rows[("small", "a")], rows[("small", "b")]
    assert a.times == [0.002] * 3 and a.ratios == pytest.approx([2.0] * 3) and a.ratio == pytest.approx(2.0)
    assert b.ratio == pytest.approx(1.0)
    assert rows[("large", "a")].time == pytest.approx(0.02)
    assert a.fields["nodes"] == 7
    assert a.bound == pytest.approx(1e-3) and a.fraction == pytest.approx(0.5)
    assert b.bound is None and b.fraction is None
    assert report.pair_ratios("large", "b", "a") == pytest.approx([0.5] * 3)

    table = report.table(fields=["nodes"])
    assert "2.000" in table and "50.0%" in table and "float32 1 GFLOP/s" in table

    out = tmp_path / "r.json"
    report.save(str(out))
    saved = json.loads(out.read_text())
    assert saved["baseline"] == "b" and len(saved["records"]) == 12
    assert {(s["case"], s["label"]): s["ratio"] for s in saved["summary"]}[("small", "a")] == pytest.approx(2.0)


def test_a_skipped_worker_is_reported_with_its_reason():
    workers = [scripted("taylor", 'emit([{"case": "k=1", "skip": "no taylor module"}])'),
               scripted("jax", 'emit([{"case": "k=1", "time": 0.5}])')]
    report = driver.run_pairs(workers, pairs=2, peak=False, log=lambda line: None)
    rows = {r.label: r for r in report.rows()}
    assert rows["taylor"].skip == "no taylor module" and rows["jax"].ratio == pytest.approx(1.0)
    assert "skipped: no taylor module" in report.table()


def test_a_failing_worker_names_itself_and_shows_its_stderr():
    workers = [scripted("broken", 'raise SystemExit("the model did not build")')]
    with pytest.raises(RuntimeError, match="worker 'broken' exited with status 1:\nthe model did not build"):
        driver.run_pairs(workers, pairs=1, peak=False, log=lambda line: None)
    with pytest.raises(RuntimeError, match="printed no BENCH-RESULT line"):
        driver.run_pairs([scripted("silent", "print('hello')")], pairs=1, peak=False, log=lambda line: None)


def test_bad_driver_arguments_are_refused():
    w = scripted("a", 'emit({"time": 1.0})')
    with pytest.raises(ValueError, match="baseline 'c' is not one of the workers"):
        driver.run_pairs([w], baseline="c")
    with pytest.raises(ValueError, match="labels must be distinct"):
        driver.run_pairs([w, w])
    with pytest.raises(ValueError, match="pairs must be >= 1"):
        driver.run_pairs([w], pairs=0)


def test_result_lines_are_parsed_from_noisy_stdout():
    out = ('progress 10%\nBENCH-RESULT {"time": 1.0}\nwarning: something\n'
           'BENCH-RESULT [{"time": 2.0, "case": "x"}]\n')
    assert driver.parse_results(out) == [{"time": 2.0, "case": "x"}]
    with pytest.raises(ValueError, match="needs 'time' or 'skip'"):
        driver.parse_results('BENCH-RESULT {"nodes": 3}')


def test_time_calls_takes_the_median_of_the_timed_calls_after_warm_up():
    ticks = iter([0.0, 1.0, 1.0, 4.0, 4.0, 6.0])    # timed calls of 1, 3 and 2 "seconds"
    calls = []
    stats = driver.time_calls(lambda: calls.append(1), warmup=2, repeats=3, clock=lambda: next(ticks))
    assert len(calls) == 5 and stats["times"] == [1.0, 3.0, 2.0] and stats["time"] == 2.0
    with pytest.raises(ValueError, match="repeats must be >= 1"):
        driver.time_calls(lambda: None, repeats=0)


def test_time_trainer_step_times_the_native_tier_after_the_first_step():
    """The training budgets of fno_navier_stokes.py and pino_darcy.py come from this time: steps run
    beside the background native build, not on it, cut a budget to a sixth of what it had time for."""
    import numpy as np

    import frame.numpy as fnp
    import frame.runtime
    from frame.train import SGD, Trainer

    x = np.linspace(-1.0, 1.0, 64, dtype=np.float32)[:, None]
    trainer = Trainer(lambda p, a, b: fnp.mean((fnp.tanh(a * p["w"]) - b) ** 2), {"w": np.ones((1, 8), np.float32)},
                      SGD(0.1), progress=False)
    losses = []
    step = trainer.step
    trainer.step = lambda a, b: losses.append(step(a, b)) or losses[-1]
    stats = driver.time_trainer_step(trainer, x, 0.5 * x, warmup=2, repeats=3)
    exe, _ = trainer._loss_graph.compiled((x, 0.5 * x))
    assert (exe.tier, exe.native_status) == ("native", "ready")
    assert stats["first loss"] == float(losses[0]) and stats["first s"] > 0 and stats["repeats"] == 3
    assert len(losses) == 1 + frame.runtime.tiers.POLICY["after_calls"] + 2 + 3


def test_installed_frameworks_leaves_out_those_whose_module_is_missing():
    kept, notes = driver.installed_frameworks(["frame", "jax", "jax-jet", "torch"],
                                              {"jax": "json", "jax-jet": "no_such_module_here", "torch": "os"})
    assert kept == ["frame", "jax", "torch"] and notes == ["jax-jet: no_such_module_here is not installed, left out"]


def test_child_environment_drops_only_the_openblas_tuning_variables():
    env = driver.child_environment({"EXTRA": "1"}, base={"OPENBLAS_CORETYPE": "x", "OPENBLAS_L2_SIZE": "y",
                                                        "OPENBLAS_NUM_THREADS": "2", "PATH": "/bin"})
    assert env == {"OPENBLAS_NUM_THREADS": "2", "PATH": "/bin", "JAX_PLATFORMS": "cpu", "EXTRA": "1"}


def test_the_derivatives_benchmark_runs_tiny_and_its_methods_agree(tmp_path, capsys):
    pytest.importorskip("jax")
    import derivatives

    out = tmp_path / "d.json"
    derivatives.main(["--orders", "1", "3", "--n", "8", "--pairs", "1", "--warmup", "0", "--repeats", "1",
                      "--min-seconds", "0", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "order-k derivative of a tanh MLP" in printed and "graph size frame-reverse" in printed
    saved = json.loads(out.read_text())
    timed = [s for s in saved["summary"] if not s["skip"]]
    assert {s["label"] for s in timed} >= {"frame-reverse", "jax-grad", "jax-jet"}
    assert len(timed) == 2 * len({s["label"] for s in timed})
    assert all(s["rel diff"] < 1e-4 and s["ops"] > 0 for s in timed)


@pytest.mark.slow
def test_the_poisson2d_benchmark_runs_tiny_and_its_variants_agree(tmp_path, capsys):
    pytest.importorskip("jax")
    import poisson2d_step

    out = tmp_path / "p.json"
    poisson2d_step.main(["--n", "16", "--pairs", "1", "--warmup", "0", "--repeats", "1", "--min-seconds", "0",
                         "--json", str(out)])
    assert "2-D Poisson PINN training step" in capsys.readouterr().out
    timed = [s for s in json.loads(out.read_text())["summary"] if not s["skip"]]
    assert {s["label"] for s in timed} >= {"frame-reverse", "jax"}
    assert all(s["rel diff"] < 1e-4 for s in timed)
