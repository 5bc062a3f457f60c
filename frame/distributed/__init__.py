"""Data-parallel training on a Dask cluster (issue 21): imported only when used, never by `import frame`.

- `data_parallel`: `DataParallel`, the loss and gradients of a training graph summed over shards of
  the data held by Dask workers, in a fixed order, with lost shards reassigned (`WorkerFailure` when
  retries run out); `shard_bounds`, `reduce_shards`;
- `worker`: what runs on a worker, `evaluate_shard` with its per-process cache of executables
  compiled from the graph's text form (`worker_cache_info`);
- `cli`: `add_cli_arguments` (`--workers N`, `--scheduler ADDRESS`), `cli_problem`, `client_from_args`.

Use it through `frame.train.Trainer(loss_fn, params, opt, client=client, shard=(0, 1))` and
`frame.train.lbfgs(..., client=client, shard=(0, 1))`: `shard` names the data arguments split along
axis 0. Needs `dask[distributed]` (`pip install 'frame[distributed]'`).
"""
from .cli import add_cli_arguments, cli_problem, client_from_args
from .data_parallel import DataParallel, WorkerFailure, reduce_shards, shard_bounds
from .worker import clear_worker_cache, evaluate_shard, wait_native, worker_cache_info

__all__ = ["DataParallel", "WorkerFailure", "shard_bounds", "reduce_shards", "evaluate_shard", "worker_cache_info",
           "clear_worker_cache", "wait_native", "add_cli_arguments", "cli_problem", "client_from_args"]
