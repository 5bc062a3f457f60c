"""One FNO2d training step (forward, backward, Adam update): frame vs jax.jit vs neuraloperator (PyTorch).

Default workload (issue 19): batch 20, a 64x64 grid, width 32, n_modes (12, 12) as neuraloperator counts
them (frequencies -6..5 on the first axis, rfft bins 0..6 on the last: 84 modes per channel pair), 4
Fourier blocks of neuraloperator's structure (`pino.FNO2d`: grid embedding, channel-MLP lifting and
projection, spectral conv + linear skip, channel MLP + soft-gating skip), float32, relative-L2 loss,
Adam(1e-3). Every framework starts from the same parameters (`pino.FNO2d.init(seed=0)`) and data:

- frame: `frame.train.Trainer` on `pino.FNO2d` (the kept modes by truncated-DFT GEMMs per axis, the
  channel mixing as one real batched GEMM over modes);
- jax: the same model written in JAX as neuraloperator computes it (jnp.fft.rfftn, fftshift, the
  centre slice, complex einsum, ifftshift, irfftn), loss and Adam under one jax.jit;
- neuralop: `neuralop.models.FNO(n_modes=(12, 12), hidden_channels=32)` with frame's parameters loaded,
  torch.optim.Adam; gelu set to the tanh form everywhere (frame's and the JAX model's), so the three
  compute the same function (the first losses agree). Runs in the interpreter `--torch-python` or
  `$FNO_TORCH_PYTHON` names (torch and neuraloperator need not be in the project's venv; e.g.
  `python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch neuraloperator`); left out
  (a "skip" column) when neither that interpreter nor this one imports neuralop.

Timing: each framework alone in its own process, processes alternating for `--pairs` rounds
(`benchmarks/driver.py`; OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE removed for all alike). A process
makes its first step ("first s"), warms up (frame: until its native tier is built, as jax.jit has
compiled) and times `--steps` steps. The table gives medians over processes and the median of the
per-pair ratios against jax.jit; "loss diff" is the first step's loss relative to jax's.

    .venv/bin/python benchmarks/fno2d_step.py [--pairs 3] [--steps 10] [--torch-python /tmp/torchenv/bin/python]
    .venv/bin/python benchmarks/fno2d_step.py --profile      # frame's step per op kind, in this process

BLAS threads: as benchmarks/fno_step.py, OpenBLAS is pinned to one thread in every worker's process
by default (`--blas-threads 0` keeps the library default); torch gets `--torch-threads` intra-op
threads (default: the same number; 0 keeps torch's default).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import time  # noqa: E402

import numpy as np  # noqa: E402

from driver import Worker, add_loss_agreement, emit, run_pairs, time_calls, time_trainer_step  # noqa: E402

FRAMEWORKS = ("frame", "jax", "neuralop")
TARGET = 1.0   # issue 19: <= 1.0x jax.jit and <= 1.0x neuraloperator


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=20)
    p.add_argument("--s", type=int, default=64, help="grid points per axis")
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--modes", type=int, default=12, help="n_modes per axis, as neuraloperator counts them")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--steps", type=int, default=10, help="least timed steps per process (after warm-up)")
    p.add_argument("--min-seconds", type=float, default=0.0, help="least timed seconds per process")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--blas-threads", type=int, default=1, help="OPENBLAS_NUM_THREADS (0: library default)")
    p.add_argument("--torch-threads", type=int, default=None,
                   help="torch.set_num_threads in the neuralop worker (default: --blas-threads; 0: torch's default)")
    p.add_argument("--torch-python", default=os.environ.get("FNO_TORCH_PYTHON"),
                   help="interpreter with torch and neuraloperator for the neuralop worker (default $FNO_TORCH_PYTHON, "
                        "else this one if it imports neuralop)")
    p.add_argument("--frameworks", default=",".join(FRAMEWORKS),
                   help="comma-separated subset of " + ",".join(FRAMEWORKS))
    p.add_argument("--pairs", type=int, default=3, help="alternating process rounds")
    p.add_argument("--json", default=None, metavar="OUT", help="save every record and the summary")
    p.add_argument("--transform", choices=("auto", "dft", "fft"), default="auto",
                   help="frame's spectral transform (pino.SpectralConv; auto: truncated DFT as GEMMs)")
    p.add_argument("--profile", action="store_true", help="profile frame's step per op kind in this process")
    p.add_argument("--domain-padding", type=float, default=None,
                   help="--profile only: frame's FNO2d with this domain padding (Darcy's setting: 0.1; the JAX and "
                        "neuralop workers have none)")
    p.add_argument("--worker", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    p.add_argument("--problem", default=None, help=argparse.SUPPRESS)   # the .npz the workers load
    return p.parse_args(argv)


def make_model(args):
    from pino import FNO2d

    return FNO2d(args.modes, width=args.width, layers=args.layers, transform=args.transform,
                 domain_padding=getattr(args, "domain_padding", None))


def make_problem(args) -> dict:
    """Parameters (FNO2d.init(seed=0), flattened as 'path' -> array) and the data, float32."""
    model = make_model(args)
    params = model.init(seed=0, dtype="float32")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.batch, 1, args.s, args.s)).astype(np.float32)
    y = (0.5 * x + 0.1 * np.roll(x, 3, axis=-1) - 0.2 * np.roll(x, -2, axis=-2)).astype(np.float32)
    return {"params": params, "x": x, "y": y, "model": model}


def save_problem(args, path: str) -> None:
    problem = make_problem(args)
    arrays = {"x": problem["x"], "y": problem["y"]}
    for name, value in _flat_params(problem["params"]):
        arrays["p:" + name] = value
    np.savez(path, **arrays)


def _flat_params(tree, prefix=""):
    if isinstance(tree, dict):
        for k in sorted(tree):
            yield from _flat_params(tree[k], f"{prefix}{k}.")
    elif isinstance(tree, (list, tuple)):
        for i, v in enumerate(tree):
            yield from _flat_params(v, f"{prefix}{i}.")
    else:
        yield prefix[:-1], np.asarray(tree)


# -- frame ------------------------------------------------------------------------------------------
def frame_trainer(args):
    from frame.train import Adam, Trainer
    from pino import relative_l2_loss

    problem = make_problem(args)
    model = problem["model"]

    def loss_fn(p, a, u):
        return relative_l2_loss(model.apply(p, a), u)

    return Trainer(loss_fn, problem["params"], Adam(1e-3), progress=False), model, problem["x"], problem["y"]


def frame_worker(args) -> dict:
    from fno_step import graph_gemm_flops

    trainer, model, x, y = frame_trainer(args)
    stats = time_trainer_step(trainer, x, y, warmup=args.warmup, repeats=args.steps, min_seconds=args.min_seconds)
    stats["loss"] = stats.pop("first loss")
    return {**stats, "flops": graph_gemm_flops(trainer.training_graph), "parameters": model.num_parameters()}


# -- jax --------------------------------------------------------------------------------------------
def jax_apply(model, params, x):
    """neuraloperator's FNO forward in JAX (the same function as `model.apply`; tanh gelu as frame's)."""
    import jax
    import jax.numpy as jnp

    gelu = lambda v: jax.nn.gelu(v, approximate=True)   # noqa: E731

    def mlp(layers, h):
        for i, layer in enumerate(layers):
            h = jnp.einsum("oi,bixy->boxy", layer["w"], h)
            if "b" in layer:
                h = h + layer["b"][:, None, None]
            if i < len(layers) - 1:
                h = gelu(h)
        return h

    def spectral(p, h):
        m1, k2 = p["weight"].shape[2:4]
        w = p["weight"][..., 0] + 1j * p["weight"][..., 1]
        n1, n2 = h.shape[2:]
        spec = jnp.fft.fftshift(jnp.fft.rfftn(h, axes=(2, 3), norm="forward"), axes=2)
        c = n1 // 2
        block = spec[:, :, c - m1 // 2: c + m1 // 2 + m1 % 2, :k2]
        out = jnp.einsum("bixy,ioxy->boxy", block, w)
        out = jnp.pad(out, ((0, 0), (0, 0), (c - m1 // 2, n1 - c - m1 // 2 - m1 % 2), (0, n2 // 2 + 1 - k2)))
        out = jnp.fft.ifftshift(out, axes=2)
        return jnp.fft.irfftn(out, s=(n1, n2), axes=(2, 3), norm="forward") + p["bias"][:, None, None]

    batch, _, n1, n2 = x.shape
    gx, gy = jnp.meshgrid(jnp.arange(n1, dtype=x.dtype) / n1, jnp.arange(n2, dtype=x.dtype) / n2, indexing="ij")
    h = jnp.concatenate([x, jnp.broadcast_to(gx, (batch, 1, n1, n2)), jnp.broadcast_to(gy, (batch, 1, n1, n2))], axis=1)
    h = mlp(params["lifting"], h)
    for i, block in enumerate(params["blocks"]):
        last = i == len(params["blocks"]) - 1
        out = spectral(block["spectral"], h) + mlp([block["skip"]], h)
        if not last:
            out = gelu(out)
        out = mlp(block["channel_mlp"], out) + h * block["channel_mlp_skip"]["weight"][:, None, None]
        h = out if last else gelu(out)
    return mlp(params["projection"], h)


def jax_step_fn(model, lr: float = 1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """The jitted JAX training step: relative-L2 loss, its gradient and frame's Adam formulas."""
    from fno_step import jax_adam_step
    return jax_adam_step(lambda params, x: jax_apply(model, params, x), lr, b1, b2, eps)


def jax_worker(args) -> dict:
    from fno_step import time_jax_adam_step

    problem = make_problem(args)
    step = jax_step_fn(problem["model"])
    return time_jax_adam_step(step, problem["params"], problem["x"], problem["y"], args)


# -- neuraloperator (PyTorch) -------------------------------------------------------------------------
def neuralop_worker(args) -> dict:
    """neuralop's FNO with the problem's parameters loaded (this may run in another interpreter: only
    numpy, torch, neuralop and driver.py are imported)."""
    try:
        import torch
        import torch.nn.functional as F
        from neuralop.models import FNO
    except ImportError as e:
        return {"skip": f"neuraloperator not importable ({e})"}
    threads = args.blas_threads if args.torch_threads is None else args.torch_threads
    if threads > 0:
        torch.set_num_threads(threads)
    data = np.load(args.problem)
    params = {k[2:]: data[k] for k in data.files if k.startswith("p:")}

    def tanh_gelu(v):
        return F.gelu(v, approximate="tanh")

    model = FNO(n_modes=(args.modes, args.modes), in_channels=1, out_channels=1, hidden_channels=args.width,
                n_layers=args.layers, non_linearity=tanh_gelu)
    for mlp in model.fno_blocks.channel_mlp:     # built with ChannelMLP's default F.gelu: the same tanh form
        mlp.non_linearity = tanh_gelu
    state = model.state_dict()

    def put(key, value):
        value = torch.as_tensor(value)
        if value.shape != state[key].shape:
            value = value.reshape(state[key].shape)
        state[key] = value.to(state[key].dtype)

    def mlp_into(prefix, name, count):
        for j in range(count):
            put(f"{prefix}.fcs.{j}.weight", params[f"{name}.{j}.w"])
            put(f"{prefix}.fcs.{j}.bias", params[f"{name}.{j}.b"])

    mlp_into("lifting", "lifting", 2)
    mlp_into("projection", "projection", 2)
    for i in range(args.layers):
        weight = params[f"blocks.{i}.spectral.weight"]
        put(f"fno_blocks.convs.{i}.weight.tensor", torch.complex(torch.as_tensor(weight[..., 0]),
                                                                 torch.as_tensor(weight[..., 1])))
        put(f"fno_blocks.convs.{i}.bias", params[f"blocks.{i}.spectral.bias"])
        put(f"fno_blocks.fno_skips.{i}.conv.weight", params[f"blocks.{i}.skip.w"])
        mlp_into(f"fno_blocks.channel_mlp.{i}", f"blocks.{i}.channel_mlp", 2)
        put(f"fno_blocks.channel_mlp_skips.{i}.weight", params[f"blocks.{i}.channel_mlp_skip.weight"])
    model.load_state_dict(state)
    x, y = torch.as_tensor(data["x"]), torch.as_tensor(data["y"])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        optimizer.zero_grad(set_to_none=True)
        diff = model(x) - y
        loss = torch.mean(torch.sqrt(torch.sum(diff * diff, dim=(1, 2, 3)) / torch.sum(y * y, dim=(1, 2, 3))))
        loss.backward()
        optimizer.step()
        return loss.detach()

    start = time.perf_counter()
    first_loss = float(step())
    first = time.perf_counter() - start
    stats = time_calls(step, warmup=args.warmup, repeats=args.steps, min_seconds=args.min_seconds)
    import neuralop
    from neuralop.utils import count_model_params
    return {**stats, "first s": first, "loss": first_loss, "torch": torch.__version__, "neuralop": neuralop.__version__,
            "parameters": count_model_params(model), "torch threads": torch.get_num_threads()}


# -- profile and driver ---------------------------------------------------------------------------------
def profile(args, repeats: int = 10) -> None:
    """In this process: frame's step split into the training-graph executable (per op kind), the Adam
    update executable and the Trainer's own work."""
    from fno_step import graph_gemm_flops, profile_trainer

    trainer, model, x, y = frame_trainer(args)
    profile_trainer(trainer, x, y, args.warmup, repeats, lambda exe: (
        f"{model!r}, batch {args.batch}, {args.s}x{args.s}, float32; OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}; tier {exe.tier}; {len(exe.graph.nodes)} nodes; "
        f"GEMM FLOPs {graph_gemm_flops(trainer.training_graph) / 1e9:.2f} G"))
    exe, _ = trainer._loss_graph.compiled((x, y))
    traffic = graph_traffic(exe.graph)
    print(f"bytes read + written by the training graph's steps (its nodes' operands and results; views free; the "
          f"native tier also writes and reads the operand and result of each tanh between two kernels): "
          f"{sum(traffic.values()) / 1e9:.2f} GB = "
          + ", ".join(f"{kind} {b / 1e9:.2f}" for kind, b in sorted(traffic.items(), key=lambda kv: -kv[1])[:6]))


def graph_traffic(graph) -> dict:
    """Bytes of every non-view node's operands plus results, per op: the memory traffic of a step whose
    operands do not stay in cache (FNO2d at 85^2: a [20, 32, 85, 85] float32 activation is 18.5 MB)."""
    from frame.compiler.passes.plan import is_view

    per_op: dict = {}
    for node in graph.nodes:
        if node.op == "constant" or is_view(node.op):
            continue
        nbytes = sum(math.prod(v.type.shape) * np.dtype(v.type.dtype).itemsize
                     for v in [*node.inputs, *node.outputs])
        per_op[node.op] = per_op.get(node.op, 0) + nbytes
    return per_op


def _torch_python(args) -> str | None:
    if args.torch_python:
        return args.torch_python
    import importlib.util
    return sys.executable if importlib.util.find_spec("neuralop") else None


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.profile:
        from fno_step import limit_blas_for_profile
        limit_blas_for_profile(args)
        profile(args)
        return
    if args.worker:
        record = {"frame": frame_worker, "jax": jax_worker, "neuralop": neuralop_worker}[args.worker](args)
        emit({"case": f"b{args.batch} {args.s}x{args.s}", **record, "dtype": "float32",
              "blas threads": os.environ.get("OPENBLAS_NUM_THREADS", "default")})
        return
    frameworks = [f for f in args.frameworks.split(",") if f]
    if args.domain_padding is not None:
        raise SystemExit("--domain-padding: only with --profile (the JAX and neuralop workers have no padding)")
    unknown = set(frameworks) - set(FRAMEWORKS)
    if unknown:
        raise SystemExit(f"--frameworks: unknown {sorted(unknown)}; choose from {FRAMEWORKS}")
    with tempfile.TemporaryDirectory() as tmp:
        problem = os.path.join(tmp, "problem.npz")
        save_problem(args, problem)
        common = ["--batch", str(args.batch), "--s", str(args.s), "--width", str(args.width), "--modes",
                  str(args.modes), "--layers", str(args.layers), "--steps", str(args.steps), "--min-seconds",
                  str(args.min_seconds), "--warmup", str(args.warmup), "--transform", args.transform,
                  "--blas-threads", str(args.blas_threads), "--problem", problem]
        if args.torch_threads is not None:
            common += ["--torch-threads", str(args.torch_threads)]
        workers = []
        for fw in frameworks:
            python = sys.executable
            if fw == "neuralop":
                python = _torch_python(args)
                if python is None:
                    print("neuralop: left out (no interpreter with neuraloperator: pass --torch-python or set "
                          "FNO_TORCH_PYTHON)")
                    continue
            workers.append(Worker(fw, [python, os.path.abspath(__file__), "--worker", fw, *common]))
        extra = {}
        if args.blas_threads > 0:
            extra["OPENBLAS_NUM_THREADS"] = os.environ.get("OPENBLAS_NUM_THREADS", str(args.blas_threads))
        baseline = "jax" if "jax" in [w.label for w in workers] else None
        report = run_pairs(workers, args.pairs, baseline=baseline, env=extra, peak=False)
    add_loss_agreement(report)
    first = report.records[0]
    print(report.machine)
    print(f"FNO2d training step: batch {args.batch}, {args.s}x{args.s}, width {args.width}, n_modes "
          f"({args.modes}, {args.modes}), {args.layers} layers, float32, Adam; {first.get('parameters')} parameters; "
          f"frame transform {args.transform}; OPENBLAS_NUM_THREADS={first.get('blas threads')}; "
          f"each framework alone in its own process")
    print(report.table(fields=["first s", "flops", "loss diff"]))
    times = {}
    for row in report.rows():
        times[row.label] = row
    if "frame" in times:
        for other in ("jax", "neuralop"):
            if other not in times:
                continue
            ratios = [f["time"] / o["time"] for f in report.records if f["label"] == "frame" and "time" in f
                      for o in report.records if o["label"] == other and o["pair"] == f["pair"] and "time" in o]
            if ratios:
                ratio = float(np.median(ratios))
                print(f"frame: {ratio:.3f}x {other}'s step (median of per-pair ratios; target <= {TARGET}: "
                      f"{'met' if ratio <= TARGET else 'not met'})")
    if args.json:
        report.save(args.json)
        print(f"saved: {args.json}")


if __name__ == "__main__":
    main()
