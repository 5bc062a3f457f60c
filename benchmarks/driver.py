"""Process-per-framework benchmark driver: each framework alone in its own process, processes alternating.

In one process OpenBLAS's spinning threads and XLA's thread pool disturb each other (issue 16:
jax.jit's PINN step went from ~1.3 ms alone to 1.7-2.3 ms beside frame), so a benchmark runs each
framework as a user does, alone in a fresh process. The driver runs a list of workers (a label and
the argv of a worker process) in alternating processes, A B A B ..., for `pairs` rounds; load from
other jobs on the shared machine then falls on every framework alike. Each worker warms up, times
repeated calls and prints one result line (`emit`); the driver reports per case and label the
median over processes of the per-process medians, the range, and the median of the per-pair
ratios against a baseline label (a ratio taken within one pair compares two processes that ran
back to back, which cancels most of the machine's drift). When a worker reports `flops` (the GEMM
FLOPs of one call) the table also gives the FLOP bound, `flops / peak`, where peak is the GEMM rate
numpy reaches on this machine (measured in a child process, as every worker, on a 2048^3 product,
once per pair, the best kept), and the fraction of that bound a call reaches.

Every child runs with `OPENBLAS_CORETYPE` and `OPENBLAS_L2_SIZE` removed from its environment (a
user's machine has neither and they slow numpy here), for every framework alike; tests and CI
leave them alone, only benchmarks unset them.

Worker side (a script, or a `--worker` mode of the benchmark's own file):

    from driver import emit, time_calls
    stats = time_calls(lambda: step(*args), warmup=5, repeats=30)
    emit({"case": "N=1024", **stats, "flops": 2.0e8, "nodes": 94})   # or a list of such dicts

Driver side:

    from driver import Worker, run_pairs
    report = run_pairs([Worker("frame", [sys.executable, __file__, "--worker", "frame"]),
                        Worker("jax", [sys.executable, __file__, "--worker", "jax"])], pairs=3, baseline="jax")
    print(report.table(fields=["nodes"]))
    report.save("out.json")

From the command line (any worker commands):

    python benchmarks/driver.py --pairs 3 --baseline jax --json out.json \\
        --worker frame="python my_bench.py --frame" --worker jax="python my_bench.py --jax"

Worker protocol: the last stdout line starting with `BENCH-RESULT ` holds a JSON object or a list
of objects, one per case: `time` (median seconds of one call) is required unless `skip` (a reason:
the column is left out with that note) is given; `case` (default ""), `times`, `flops`, `dtype`
(of the GEMM peak, default float32) and any other fields are kept.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

#: the OpenBLAS tuning variables of this machine, removed from every benchmark child's environment.
UNSET_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
RESULT_PREFIX = "BENCH-RESULT "


# -- worker side --------------------------------------------------------------------------------------
def time_calls(call: Callable[[], object], warmup: int = 3, repeats: int = 20, min_seconds: float = 0.0,
               clock: Callable[[], float] = time.perf_counter) -> dict:
    """Median seconds of `call()` after `warmup` untimed calls: {"time", "times", "repeats"}.

    At least `repeats` timed calls, more until `min_seconds` of timed calls have passed (so a fast
    call still gets a stable median). Each call is timed alone: a call that returns before its work
    is done (jax) must block inside `call`."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    for _ in range(warmup):
        call()
    times: list[float] = []
    total = 0.0
    while len(times) < repeats or total < min_seconds:
        t0 = clock()
        call()
        dt = clock() - t0
        times.append(dt)
        total += dt
    return {"time": statistics.median(times), "times": times, "repeats": len(times)}


def time_frame_step(step, problem, args):
    """A `frame.function` step as the benchmarks time it: the first call, its native tier built before
    timing (as jax.jit has compiled), then `time_calls` with the worker's flags. Returns (stats,
    first output, executable)."""
    out = step(*problem)
    exe = step.compiled(*problem)
    for _ in range(4):                 # hot: the native tier is built in the background ...
        step(*problem)
    exe.wait_native(timeout=600)       # ... and waited for
    stats = time_calls(lambda: step(*problem), warmup=args.warmup, repeats=args.repeats, min_seconds=args.min_seconds)
    return stats, out, exe


def warm_trainer(trainer, x, y) -> tuple[float, float]:
    """Run a `frame.train.Trainer`'s step on (x, y) until its native tier is built (in the background,
    once the step is hot) and wait for it, as jax.jit has compiled before its timing: (first step's
    seconds, first loss). The numpy-tier steps run beside that build took ~6x as long at s = 43 under
    load, and a training budget cut from them trained a sixth of the steps it had time for."""
    import frame.runtime

    start = time.perf_counter()
    first_loss = trainer.step(x, y)
    first = time.perf_counter() - start
    for _ in range(frame.runtime.tiers.POLICY["after_calls"]):
        trainer.step(x, y)
    frame.runtime.wait_native_builds()
    return first, float(first_loss)


def time_trainer_step(trainer, x, y, *, warmup: int = 1, repeats: int = 2, min_seconds: float = 0.0) -> dict:
    """A `frame.train.Trainer`'s step on (x, y) as the benchmarks time it, on the native tier
    (`warm_trainer`): `time_calls`' stats plus "first s" (the first, compiling step alone) and "first loss"."""
    first, first_loss = warm_trainer(trainer, x, y)
    stats = time_calls(lambda: trainer.step(x, y), warmup=warmup, repeats=repeats, min_seconds=min_seconds)
    return {**stats, "first s": first, "first loss": first_loss}


def add_loss_agreement(report) -> None:
    """Each record's loss relative to jax's in the same pair ("loss diff")."""
    ref = {(r["case"], r["pair"]): r["loss"] for r in report.records if r["label"] == "jax" and "loss" in r}
    for r in report.records:
        if "loss" in r and (r["case"], r["pair"]) in ref:
            b = ref[(r["case"], r["pair"])]
            r["loss diff"] = abs(r["loss"] - b) / max(abs(b), 1e-30)


def emit(results) -> None:
    """Print a worker's result (a dict or a list of dicts, one per case) as the driver reads it."""
    print(RESULT_PREFIX + json.dumps(results, default=_jsonable), flush=True)


def _jsonable(obj):
    if hasattr(obj, "tolist"):  # numpy scalars and arrays
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def parse_results(stdout: str) -> list[dict]:
    """The result records of a worker's stdout (the last `BENCH-RESULT` line)."""
    lines = [line[len(RESULT_PREFIX):] for line in stdout.splitlines() if line.startswith(RESULT_PREFIX)]
    if not lines:
        raise ValueError("the worker printed no BENCH-RESULT line")
    payload = json.loads(lines[-1])
    records = payload if isinstance(payload, list) else [payload]
    for r in records:
        if not isinstance(r, dict) or ("time" not in r and "skip" not in r):
            raise ValueError(f"a result record needs 'time' or 'skip': {r!r}")
        r.setdefault("case", "")
    return records


# -- driver side --------------------------------------------------------------------------------------
def installed_frameworks(frameworks: Iterable[str], modules: dict) -> tuple[list[str], list[str]]:
    """`frameworks` less those whose module (`modules[framework]`, e.g. {"jax-jet": "jax"}) is not
    installed, and a note for each one left out (an optional peer is skipped, not a failure)."""
    kept, notes = [], []
    for fw in frameworks:
        module = modules.get(fw)
        if module is not None and importlib.util.find_spec(module) is None:
            notes.append(f"{fw}: {module} is not installed, left out")
        else:
            kept.append(fw)
    return kept, notes


@dataclass
class Worker:
    """One framework's worker: `label` in the table, `argv` of its process (run in `cwd`)."""

    label: str
    argv: Sequence[str]
    cwd: str | None = None


def child_environment(extra: dict | None = None, base: dict | None = None) -> dict:
    """The environment of a benchmark child: `base` (default os.environ) without the OpenBLAS tuning
    variables, JAX on the CPU, plus `extra`."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in UNSET_VARIABLES}
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.update(extra or {})
    return env


def run_worker(worker: Worker, env: dict, timeout: float) -> tuple[list[dict], float]:
    """Run one worker process; its result records and its wall time. A failed worker raises
    `RuntimeError` with the tail of its stderr."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(list(worker.argv), capture_output=True, text=True, env=env, cwd=worker.cwd,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"worker {worker.label!r} took more than {timeout:.0f} s") from None
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        raise RuntimeError(f"worker {worker.label!r} exited with status {proc.returncode}:\n{tail}")
    try:
        return parse_results(proc.stdout), wall
    except ValueError as e:
        raise RuntimeError(f"worker {worker.label!r}: {e}; stdout tail: {proc.stdout[-500:]!r}") from None


PEAK_SNIPPET = """
import json, sys, time
import numpy as np
dtype, n, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(0)
a, b = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
a @ b
best = float("inf")
for _ in range(repeats):
    t0 = time.perf_counter()
    a @ b
    best = min(best, time.perf_counter() - t0)
print(json.dumps(2.0 * n ** 3 / best))
"""


def measure_gemm_peak(dtype: str = "float32", n: int = 2048, repeats: int = 5, env: dict | None = None) -> float:
    """FLOP/s of numpy's best `n^3` GEMM of `dtype` in a child process with the benchmark environment
    (all threads OpenBLAS chooses, as a user's numpy): the rate the FLOP bound is measured against."""
    proc = subprocess.run([sys.executable, "-c", PEAK_SNIPPET, dtype, str(n), str(repeats)], capture_output=True,
                          text=True, check=True, env=env or child_environment())
    return float(proc.stdout.strip().splitlines()[-1])


@dataclass
class Row:
    """One (case, label) of a report: medians over processes and the ratio against the baseline."""

    case: str
    label: str
    times: list[float]                  # per-process median seconds, in pair order
    ratios: list[float] = field(default_factory=list)  # per-pair time / baseline time
    fields: dict = field(default_factory=dict)          # the worker's other fields (from its first process)
    flops: float | None = None
    bound: float | None = None          # seconds: flops / GEMM peak
    skip: str | None = None

    @property
    def time(self) -> float:
        return statistics.median(self.times) if self.times else math.nan

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios) if self.ratios else math.nan

    @property
    def fraction(self) -> float | None:
        """Fraction of the FLOP bound reached (bound / time): 1.0 would run at the GEMM peak."""
        return None if self.bound is None or not self.times else self.bound / self.time


@dataclass
class Report:
    """What `run_pairs` measured: every record, in order, and the summary rows."""

    labels: list[str]
    baseline: str | None
    pairs: int
    records: list[dict]
    peaks: dict = field(default_factory=dict)        # dtype -> GEMM FLOP/s
    machine: str = ""

    def pair_ratios(self, case: str, label: str, against: str) -> list[float]:
        """time(label) / time(against) of `case` within each pair both were timed in."""
        if label == against:
            return [1.0 for r in self.records if r["case"] == case and r["label"] == label and "time" in r]
        times = {}
        for r in self.records:
            if r["case"] == case and "time" in r and r["label"] in (label, against):
                times.setdefault(r["pair"], {})[r["label"]] = r["time"]
        return [t[label] / t[against] for _, t in sorted(times.items()) if len(t) == 2 and t[against] > 0]

    def rows(self) -> list[Row]:
        """One row per (case, label), cases in first-seen order, labels in worker order."""
        cases = list(dict.fromkeys(r["case"] for r in self.records))
        by = {}
        for r in self.records:
            by.setdefault((r["case"], r["label"]), []).append(r)
        rows = []
        for case in cases:
            for label in self.labels:
                recs = by.get((case, label))
                if not recs:
                    continue
                timed = [r for r in recs if "time" in r]
                if not timed:
                    rows.append(Row(case, label, [], skip=recs[0].get("skip", "no result")))
                    continue
                first = timed[0]
                extra = {k: v for k, v in first.items()
                         if k not in ("case", "label", "pair", "time", "times", "repeats", "flops", "skip")}
                row = Row(case, label, [r["time"] for r in timed], fields=extra, flops=first.get("flops"))
                row.ratios = self.pair_ratios(case, label, self.baseline) if self.baseline else []
                peak = self.peaks.get(first.get("dtype", "float32"))
                if row.flops and peak:
                    row.bound = row.flops / peak
                rows.append(row)
        return rows

    def table(self, fields: Iterable[str] = (), unit: str = "ms") -> str:
        """The summary as a text table: median time and range over processes, the median per-pair
        ratio against the baseline, the FLOP bound and the fraction of it reached, then `fields`."""
        scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
        fields = list(fields)
        head = (f"{'case':>10} {'framework':>14} {unit + ' (median)':>13} {'range':>17} "
                f"{'/' + (self.baseline or '-'):>10} {'ratio range':>13} {'bound ' + unit:>10} {'of bound':>8}")
        head += "".join(f" {f:>10}" for f in fields)
        lines = [head]
        for row in self.rows():
            if row.skip:
                lines.append(f"{row.case:>10} {row.label:>14}   skipped: {row.skip}")
                continue
            lo, hi = min(row.times) * scale, max(row.times) * scale
            ratio = f"{row.ratio:10.3f}" if row.ratios else f"{'':>10}"
            ratio_range = f"{min(row.ratios):.2f}-{max(row.ratios):.2f}" if row.ratios else ""
            bound = f"{row.bound * scale:10.3f}" if row.bound else f"{'':>10}"
            frac = f"{row.fraction:8.1%}" if row.bound else f"{'':>8}"
            line = (f"{row.case:>10} {row.label:>14} {row.time * scale:13.3f} {f'{lo:.3f}-{hi:.3f}':>17} "
                    f"{ratio} {ratio_range:>13} {bound} {frac}")
            line += "".join(f" {_fmt_flops(row.flops) if f == 'flops' else _fmt(row.fields.get(f)):>10}"
                            for f in fields)
            lines.append(line)
        notes = [f"{len(self.labels)} workers x {self.pairs} alternating process pairs; time: median over processes "
                 f"of each process's median call; /{self.baseline}: median of the per-pair ratios"]
        if self.peaks:
            notes.append("bound: GEMM FLOPs of one call at numpy's measured GEMM peak ("
                         + ", ".join(f"{d} {p / 1e9:.0f} GFLOP/s" for d, p in self.peaks.items())
                         + "); of bound: bound / time")
        return "\n".join(lines + notes)

    def to_json(self) -> dict:
        return {"machine": self.machine, "labels": self.labels, "baseline": self.baseline, "pairs": self.pairs,
                "peaks": self.peaks, "records": self.records,
                "summary": [{"case": r.case, "label": r.label, "time": r.time if r.times else None,
                             "times": r.times, "ratio": r.ratio if r.ratios else None, "ratios": r.ratios,
                             "flops": r.flops, "bound": r.bound, "fraction": r.fraction, "skip": r.skip,
                             **r.fields} for r in self.rows()]}

    def save(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(self.to_json(), f, indent=1, default=_jsonable)


def _fmt(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def _fmt_flops(flops) -> str:
    return "" if not flops else f"{flops / 1e6:.1f}M"


def machine_line() -> str:
    """CPU, cores, Python and numpy of this machine (the versions the workers report themselves)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        load = " load %.1f %.1f %.1f" % os.getloadavg()
    except OSError:
        load = ""
    return f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()},{load}"


def run_pairs(workers: Sequence[Worker], pairs: int = 3, baseline: str | None = None, *, timeout: float = 1800,
              peak: bool | dict = True, env: dict | None = None, log: Callable[[str], None] | None = None) -> Report:
    """Run `workers` in alternating processes (w1 w2 ... w1 w2 ...) for `pairs` rounds.

    baseline: the label ratios are taken against (default: the last worker's).
    peak: True measures numpy's GEMM peak (for each dtype the workers report) so FLOP bounds can be
        printed; a dict {dtype: FLOP/s} gives it; False leaves the bound out.
    env: extra environment variables for every child (on top of `child_environment`).
    log: called with one line per finished process (default: print to stderr).
    """
    if pairs < 1:
        raise ValueError(f"pairs must be >= 1, got {pairs}")
    labels = [w.label for w in workers]
    if len(set(labels)) != len(labels):
        raise ValueError(f"worker labels must be distinct, got {labels}")
    baseline = labels[-1] if baseline is None else baseline
    if baseline not in labels:
        raise ValueError(f"baseline {baseline!r} is not one of the workers {labels}")
    log = log or (lambda line: print(line, file=sys.stderr, flush=True))
    child_env = child_environment(env)
    peaks = dict(peak) if isinstance(peak, dict) else {}
    records: list[dict] = []
    for p in range(pairs):
        for w in workers:
            results, wall = run_worker(w, child_env, timeout)
            for r in results:
                records.append({**r, "label": w.label, "pair": p})
            timed = [r for r in results if "time" in r]
            summary = ", ".join(f"{r['case'] or w.label} {r['time'] * 1e3:.3f} ms" for r in timed[:4])
            more = f" (+{len(timed) - 4} cases)" if len(timed) > 4 else ""
            log(f"pair {p + 1}/{pairs} {w.label}: {wall:.1f} s in the process; {summary}{more}")
        if peak is True:
            # The peak is measured once per pair and the best kept: one measurement on the shared
            # machine can fall on a busy moment, and a low peak would flatter every fraction.
            for dtype in dict.fromkeys(r.get("dtype", "float32") for r in records if r.get("flops")):
                peaks[dtype] = max(peaks.get(dtype, 0.0), measure_gemm_peak(dtype, env=child_env))
    return Report(labels, baseline, pairs, records, peaks, machine_line())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="append", required=True, metavar="LABEL=COMMAND",
                        help="a worker: its label and its command line (repeat for each framework)")
    parser.add_argument("--pairs", type=int, default=3, help="alternating process rounds (default 3)")
    parser.add_argument("--baseline", default=None, help="label the ratios are against (default: the last)")
    parser.add_argument("--fields", nargs="*", default=[], help="worker fields to print as columns")
    parser.add_argument("--no-peak", action="store_true", help="do not measure the GEMM peak (no FLOP bound)")
    parser.add_argument("--json", default=None, metavar="OUT", help="save every record and the summary")
    args = parser.parse_args(argv)
    workers = []
    for spec in args.worker:
        label, sep, command = spec.partition("=")
        if not sep or not label or not command.strip():
            parser.error(f"--worker must be LABEL=COMMAND, got {spec!r}")
        workers.append(Worker(label, shlex.split(command)))
    report = run_pairs(workers, args.pairs, args.baseline, peak=not args.no_peak)
    print(report.machine)
    print(report.table(fields=args.fields))
    if args.json:
        report.save(args.json)
        print(f"saved: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
