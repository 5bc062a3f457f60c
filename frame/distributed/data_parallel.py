"""`DataParallel`: the loss and gradient of a training graph, computed on a Dask cluster shard by shard.

The data arguments named by `shard` are split along axis 0 into a fixed number of contiguous
shards (`numpy.array_split` boundaries, fixed when the first step runs: one shard per worker then).
Shard `k` is computed by one worker. Data seen for the first time travel inside the step's tasks;
the same arrays passed again are scattered to the workers and stay there (`client.scatter`: the
split arguments to the shard's worker, the others to every worker), so full-batch training ships
its data once and minibatches cost no extra round trip. Each step sends the parameters (one flat
buffer per dtype) with one task per shard; the worker runs the
training graph `[params..., data...] -> [loss, grads...]` for its shard's data signature, compiled
once per worker from the graph's text form (`frame.distributed.worker`).

Reduction. The client adds the shards' losses and gradients in shard order (0, 1, ...), each
weighted by its share `n_k / N` of the rows, accumulating in float64. For a loss that is a mean
over the rows of the split arguments (plus terms that do not depend on them), `sum_k n_k/N *
mean_k` is the full mean, so N-worker training equals single-process training to rounding. The
order and the shard boundaries do not depend on which worker computed which shard or when, so a
run is reproducible bit for bit for a fixed shard count, including a run in which a worker died and
its shard was recomputed elsewhere.

Faults. The step's result exists only once every shard has reported; the caller (`Trainer`,
`lbfgs`) applies the update after that, on the client, so a worker that dies mid-step can never
leave parameters or optimiser state half-updated. A shard whose task was lost (its worker died, or
its data went with the worker) is reassigned to the least-loaded live worker, its data is scattered
again from the client's copy, and only that shard is recomputed, up to `retries` times per step.
"""
from __future__ import annotations

import time
import uuid
from typing import Callable, Sequence

import numpy as np

from ..errors import FrameError, InputError
from ..frontend.pytree import tree_flatten, tree_unflatten
from ..ir.printer import fingerprint, print_graph
from .worker import evaluate_shard, pack, unpack

__all__ = ["DataParallel", "WorkerFailure", "shard_bounds", "reduce_shards"]


class WorkerFailure(FrameError):
    """Workers kept failing (or none was left) after `retries` reassignments within one step."""


def _dask():
    try:
        import distributed
    except ImportError:  # pragma: no cover - depends on the environment
        raise FrameError("frame.distributed needs Dask distributed: pip install 'frame[distributed]' "
                         "(or pip install 'dask[distributed]')") from None
    return distributed


class _ClusterChanged(Exception):
    """A scatter named a worker that has left (Dask raises KeyError with its address)."""


def _infrastructure_errors() -> tuple[type, ...]:
    """The exceptions that mean "the cluster lost this task", as opposed to an error in the task."""
    import asyncio
    import concurrent.futures

    distributed = _dask()
    errors = [_ClusterChanged, concurrent.futures.CancelledError, asyncio.CancelledError, distributed.KilledWorker, OSError,
              distributed.TimeoutError, TimeoutError]
    try:
        from distributed.comm.core import CommClosedError
        errors.append(CommClosedError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(errors)


def shard_bounds(rows: int, shards: int) -> list[tuple[int, int]]:
    """Contiguous `[lo, hi)` row ranges of `shards` shards of `rows` rows (numpy.array_split's sizes)."""
    base, extra = divmod(rows, shards)
    bounds, lo = [], 0
    for k in range(shards):
        hi = lo + base + (1 if k < extra else 0)
        bounds.append((lo, hi))
        lo = hi
    return bounds


def reduce_shards(outputs: Sequence[Sequence[np.ndarray]], weights: Sequence[float]) -> list[np.ndarray]:
    """`sum_k weights[k] * outputs[k][i]` for every output i, in shard order, accumulated in float64.

    Each result keeps the dtype and shape of shard 0's output. The fixed order makes the sum the
    same bits whichever worker computed each shard.
    """
    reduced = []
    for i, first in enumerate(outputs[0]):
        first = np.asarray(first)
        # Two buffers per output, written in place: the temporaries of `acc += w * x` cost ~10x
        # more on this VM (fresh pages for each 4 MB temporary of an FNO's gradient).
        acc = np.asarray(np.multiply(first, np.float64(weights[0]), dtype=np.float64))
        tmp = np.empty_like(acc) if len(outputs) > 1 else None
        for out, w in zip(outputs[1:], weights[1:]):
            np.multiply(np.asarray(out[i]), np.float64(w), out=tmp, dtype=np.float64)
            acc += tmp
        reduced.append(acc if first.dtype == np.float64 else acc.astype(first.dtype))
    return reduced


class DataParallel:
    """Evaluate training graphs data-parallel on `client` (a `dask.distributed.Client`).

    - `shard`: indices of the data arguments split along axis 0 (every array leaf of those
      arguments must have the same length along axis 0); the other data arguments go to every worker.
    - `shards`: the shard count; default: the number of workers at the first step (at most the rows).
    - `retries`: reassignments allowed within one step before `WorkerFailure`.
    - `poll`: seconds between checks that the workers holding pending shards are still alive.
    - `worker_wait`: seconds to wait for a live worker when none is left.

    Attributes: `events` (one dict per lost shard: step, shard, worker, new worker, error),
    `last_timing` (seconds of the last step: `wall`, `scatter`, `compute_max`, `compute_sum`,
    `reduce`, and `bytes_params`/`bytes_grads` moved per shard), `assignment` (shard -> worker).
    Data arrays are recognised by identity: mutate an array in place and pass it again, and the
    workers keep the old values (pass a new array instead).
    """

    def __init__(self, client, shard: Sequence[int], *, shards: int | None = None, retries: int = 3,
                 poll: float = 0.5, worker_wait: float = 60.0):
        if client is None or not hasattr(client, "submit") or not hasattr(client, "scatter"):
            raise FrameError(f"DataParallel: client must be a dask.distributed.Client, got {type(client).__name__}")
        if isinstance(shard, (int, np.integer)) and not isinstance(shard, bool):
            shard = (int(shard),)
        if not isinstance(shard, (tuple, list)) or not shard or not all(
                isinstance(i, (int, np.integer)) and not isinstance(i, bool) and i >= 0 for i in shard):
            raise FrameError(f"DataParallel: shard must be a non-empty tuple of data-argument indices (ints >= 0), "
                             f"got {shard!r}")
        if len(set(shard)) != len(shard):
            raise FrameError(f"DataParallel: shard names an argument twice: {tuple(shard)}")
        if shards is not None and (isinstance(shards, bool) or not isinstance(shards, (int, np.integer))
                                   or shards < 1):
            raise FrameError(f"DataParallel: shards must be an int >= 1, got {shards!r}")
        if not isinstance(retries, (int, np.integer)) or isinstance(retries, bool) or retries < 0:
            raise FrameError(f"DataParallel: retries must be an int >= 0, got {retries!r}")
        self.client = client
        self.shard = tuple(int(i) for i in shard)
        self.n_shards = None if shards is None else int(shards)
        self.retries, self.poll, self.worker_wait = int(retries), float(poll), float(worker_wait)
        self.assignment: list[str] | None = None
        self.events: list[dict] = []
        self.last_timing: dict = {}
        self.steps = 0
        self._held: list = []                 # the data leaves of the last step (kept, so ids are not reused)
        self._resident = False                # whether the workers hold them (scattered) or tasks carry them
        self._inline: list = []               # per shard: its data leaves, when tasks carry them
        self._layout = None                   # (treedef, split mask, rows, bounds) of the held data
        self._shard_futures: list[dict] = []  # per shard: leaf index -> future, for split leaves
        self._replicated: dict = {}           # leaf index -> future (broadcast)
        self._texts: dict = {}                # graph fingerprint -> future of its text (broadcast)
        self._graph_text: dict = {}           # graph fingerprint -> its text (kept, to scatter again)
        self._graphs: list = []               # per shard: the fingerprint of its training graph

    # -- the cluster
    def _alive(self) -> list[str]:
        return sorted(self.client.scheduler_info().get("workers", {}))

    def _wait_for_workers(self) -> list[str]:
        deadline = time.monotonic() + self.worker_wait
        while True:
            alive = self._alive()
            if alive:
                return alive
            if time.monotonic() > deadline:
                raise WorkerFailure(f"frame.distributed: no live Dask worker after {self.worker_wait:g} s")
            time.sleep(min(self.poll, 0.2))

    def _least_loaded(self, alive: list[str], exclude: str | None) -> str:
        load = {w: 0 for w in alive}
        for w in self.assignment or []:
            if w in load:
                load[w] += 1
        candidates = [w for w in alive if w != exclude] or alive
        return min(candidates, key=lambda w: (load[w], w))

    # -- data
    def _split_layout(self, data: tuple):
        if max(self.shard) >= len(data):
            raise InputError(f"DataParallel: shard={self.shard} names data argument {max(self.shard)}, but the step "
                             f"has {len(data)} data argument(s)")
        leaves, treedef = tree_flatten(tuple(data))
        arrays = [a if isinstance(a, np.ndarray) else np.asarray(a) for a in leaves]
        split, rows = [], None
        for i, arg in enumerate(data):
            n = len(tree_flatten(arg)[0])
            split += [i in self.shard] * n
        shapes = {}
        for j, (a, s) in enumerate(zip(arrays, split)):
            if not s:
                continue
            if a.ndim == 0:
                raise InputError(f"DataParallel: data leaf {j} of a sharded argument is a scalar; sharded arguments "
                                 "are split along axis 0 and need arrays of rank >= 1")
            shapes[j] = a.shape
        if not shapes:
            raise InputError(f"DataParallel: the sharded arguments {self.shard} hold no arrays")
        lengths = {s[0] for s in shapes.values()}
        if len(lengths) != 1:
            raise InputError(f"DataParallel: the sharded data leaves must share their length along axis 0, got "
                             f"shapes {', '.join(f'leaf {j}: {list(s)}' for j, s in shapes.items())}")
        rows = lengths.pop()
        return arrays, treedef, split, rows

    def _shard_data(self, arrays, treedef, split, lo, hi) -> tuple:
        return tree_unflatten(treedef, [a[lo:hi] if s else a for a, s in zip(arrays, split)])

    def _scatter(self, data, **kwargs):
        try:
            return self.client.scatter(data, hash=False, **kwargs)
        except KeyError as err:  # Dask's way of saying a named worker has left
            raise _ClusterChanged(f"scatter to a departed worker {err}") from err

    def _scatter_shard(self, k: int, arrays, split) -> None:
        lo, hi = self._layout[3][k]
        idx = [j for j, s in enumerate(split) if s]
        parts = [np.ascontiguousarray(arrays[j][lo:hi]) for j in idx]
        self._shard_futures[k] = dict(zip(idx, self._scatter(parts, workers=[self.assignment[k]])))

    def _scatter_replicated(self, arrays, split) -> None:
        idx = [j for j, s in enumerate(split) if not s]
        futures = self._scatter([arrays[j] for j in idx], broadcast=True) if idx else []
        self._replicated = dict(zip(idx, futures))

    def _text_future(self, graph_fp: str):
        fut = self._texts.get(graph_fp)
        if fut is None:
            fut = self._texts[graph_fp] = self._scatter(self._graph_text[graph_fp], broadcast=True)
        return fut

    def _place(self, graph_for: Callable, data: tuple) -> None:
        """Find each shard's graph and where its data come from.

        New data travel inside the step's tasks (one message per shard). The same arrays passed a
        second time are scattered to the workers and stay there (full-batch training ships its data
        once); arrays that change every step (minibatches) are never scattered, which would cost a
        round trip more than sending them with the task.
        """
        arrays, treedef, split, rows = self._split_layout(data)
        same = len(arrays) == len(self._held) and all(a is b for a, b in zip(arrays, self._held))
        if same:
            if not self._resident:
                for k in range(self.n_shards):
                    self._scatter_shard(k, arrays, split)
                self._scatter_replicated(arrays, split)
                self._resident = True
            return
        if self.assignment is not None:  # a step that failed may have left shards on departed workers
            alive = self._alive()
            for k, w in enumerate(self.assignment):
                if alive and w not in alive:
                    self.assignment[k] = self._least_loaded(alive, exclude=w)
        if self.assignment is None:
            alive = self._wait_for_workers()
            n = self.n_shards or min(len(alive), rows)
            if n > rows:
                raise InputError(f"DataParallel: {n} shards need at least {n} rows, the sharded data have {rows}")
            self.n_shards = n
            self.assignment = [alive[k % len(alive)] for k in range(n)]
        if rows < self.n_shards:
            raise InputError(f"DataParallel: {self.n_shards} shards need at least {self.n_shards} rows, the sharded "
                             f"data have {rows}")
        bounds = shard_bounds(rows, self.n_shards)
        self._layout = (treedef, split, rows, bounds)
        self._graphs = []
        for lo, hi in bounds:
            graph = graph_for(self._shard_data(arrays, treedef, split, lo, hi))
            graph_fp = fingerprint(graph)
            if graph_fp not in self._graph_text:
                self._graph_text[graph_fp] = print_graph(graph)
            self._graphs.append(graph_fp)
        self._shard_futures = [{} for _ in bounds]
        self._replicated = {}
        self._inline = [[np.ascontiguousarray(a[lo:hi]) if s else a for a, s in zip(arrays, split)]
                        for lo, hi in bounds]
        self._held, self._resident = arrays, False

    def _submit(self, k: int, params: tuple):
        graph_fp = self._graphs[k]
        text_future = self._text_future(graph_fp)
        split = self._layout[1]
        if self._resident:
            leaves = [self._shard_futures[k][j] if s else self._replicated[j] for j, s in enumerate(split)]
        else:
            leaves = self._inline[k]
        flats, layout = params
        return self.client.submit(evaluate_shard, graph_fp, text_future, flats, layout, *leaves,
                                  workers=[self.assignment[k]], allow_other_workers=False, pure=False,
                                  key=f"frame-shard-{k}-{uuid.uuid4().hex}")

    def _recover(self, lost: dict[int, BaseException]) -> None:
        """Move each lost shard to a live worker and scatter its data (and the replicated data) again."""
        alive = self._wait_for_workers()
        for k, err in sorted(lost.items()):
            old = self.assignment[k]
            new = old if old in alive else self._least_loaded(alive, exclude=old)
            self.assignment[k] = new
            self.events.append({"step": self.steps + 1, "shard": k, "worker": old, "new_worker": new,
                                "error": f"{type(err).__name__}: {err}"})
        if self._resident:
            arrays, split = self._held, self._layout[1]
            for k in sorted(lost):
                self._scatter_shard(k, arrays, split)
            # A replica may have lived only on the dead worker: scatter them again too (faults are
            # rare; the cost is one more broadcast of the replicated data).
            self._scatter_replicated(arrays, split)
        self._texts = {}  # the graph texts too, by the next _submit

    # -- a step
    def value_and_grad(self, graph_for: Callable[[tuple], object], params: Sequence[np.ndarray],
                       data: tuple) -> tuple[np.ndarray, list[np.ndarray]]:
        """The loss and gradients of the training graph `graph_for(shard data)` over all shards.

        `graph_for(data) -> Graph` returns the training graph `[params..., data leaves...] ->
        [loss, grads...]` for a data signature (`frame.train.LossGraph.graph_for`). Returns the
        weighted sums in shard order, as `LossGraph.value_and_grad` returns them.
        """
        distributed = _dask()
        infra = _infrastructure_errors()
        start = time.perf_counter()
        params = [np.asarray(p) for p in params]
        packed = pack(params)
        failures = 0
        while True:  # place the data and submit every shard; a worker leaving meanwhile means: again
            try:
                self._place(graph_for, tuple(data))
                pending = {k: self._submit(k, packed) for k in range(self.n_shards)}
                break
            except infra as err:
                self._held = []  # scatter everything again, to the workers alive then
                failures += 1
                if failures > self.retries:
                    raise WorkerFailure(f"frame.distributed: step {self.steps + 1}: placing the data failed "
                                        f"{failures} times (last: {err!r}); retries={self.retries} exhausted; "
                                        "parameters keep their values from before the step") from err
                time.sleep(self.poll)
        scattered = time.perf_counter()
        results: dict[int, tuple] = {}
        while pending:
            lost: dict[int, BaseException] = {}
            try:
                distributed.wait(list(pending.values()), timeout=self.poll, return_when="ALL_COMPLETED")
            except infra:
                pass  # a timeout: check the workers below
            finished = [k for k, fut in pending.items() if fut.status == "finished"]
            if finished:
                try:  # one round trip for all of them
                    values = self.client.gather([pending[k] for k in finished])
                except infra:
                    values = None  # lost between wait and gather: the loop below sees their status
                if values is not None:
                    for k, value in zip(finished, values):
                        results[k] = value
                        del pending[k]
            for k, fut in list(pending.items()):
                if fut.status in ("error", "cancelled", "lost"):
                    try:
                        fut.result()
                    except infra as err:
                        lost[k] = err
                    # anything else (a FrameError from the graph, a bug) propagates from fut.result()
                    else:  # pragma: no cover - a finished-late future
                        results[k] = fut.result()
                    del pending[k]
            if pending:
                alive = set(self._alive())
                for k, fut in list(pending.items()):
                    if self.assignment[k] not in alive:
                        fut.cancel()
                        lost[k] = distributed.CancelledError(f"worker {self.assignment[k]} left the cluster")
                        del pending[k]
            if lost:
                failures += 1
                if failures > self.retries:
                    self._held = []  # the next call scatters the data again, to live workers
                    raise WorkerFailure(f"frame.distributed: step {self.steps + 1}: shards {sorted(lost)} were lost "
                                        f"{failures} times (last: {next(iter(lost.values()))!r}); retries="
                                        f"{self.retries} exhausted; parameters keep their values from before the step")
                while True:
                    try:
                        self._recover(lost)
                        break
                    except infra as err:  # the cluster changed under the recovery itself
                        failures += 1
                        if failures > self.retries:
                            raise WorkerFailure(f"frame.distributed: step {self.steps + 1}: recovery failed "
                                                f"{failures} times ({err!r})") from err
                        time.sleep(self.poll)
                for k in lost:
                    pending[k] = self._submit(k, packed)
        gathered = time.perf_counter()
        rows, bounds = self._layout[2], self._layout[3]
        weights = [(hi - lo) / rows for lo, hi in bounds]
        layout = results[0][1]
        outs = unpack(reduce_shards([results[k][0] for k in range(self.n_shards)], weights), layout)
        done = time.perf_counter()
        compute = [results[k][2] for k in range(self.n_shards)]
        nbytes = sum(p.nbytes for p in params)
        self.last_timing = {"wall": done - start, "scatter": scattered - start, "gather": gathered - scattered,
                            "compute_max": max(compute), "compute_sum": sum(compute), "reduce": done - gathered,
                            "bytes_params": nbytes, "bytes_grads": sum(np.asarray(o).nbytes for o in outs[1:]),
                            "shards": self.n_shards}
        self.steps += 1
        return outs[0], outs[1:]

    def close(self) -> None:
        """Release the data and graph texts held on the workers (the client stays open)."""
        self._held, self._layout, self._shard_futures, self._replicated, self._texts = [], None, [], {}, {}
        self._inline, self._resident = [], False

    def __repr__(self):
        return f"<DataParallel shard={self.shard} shards={self.n_shards} assignment={self.assignment}>"
