"""Command-line flags for data-parallel training: `--workers N` (a local cluster) and `--scheduler ADDRESS`.

`add_cli_arguments(parser)` adds both to an `argparse` parser (mutually exclusive);
`cli_problem(args)` says what is wrong with them (or None), before any work;
`client_from_args(workers, scheduler)` returns a `dask.distributed.Client` (None when neither is
given: single-process training). A client made for `--workers` owns its `LocalCluster`, so
`client.close()` stops the worker processes too. Dask is imported only when a client is made.
"""
from __future__ import annotations

from ..errors import FrameError

__all__ = ["add_cli_arguments", "cli_problem", "client_from_args"]


def add_cli_arguments(parser) -> None:
    """Add `--workers N` and `--scheduler ADDRESS` (mutually exclusive) to an argparse parser."""
    group = parser.add_argument_group("data-parallel training (Dask; pip install 'frame[distributed]')")
    flags = group.add_mutually_exclusive_group()
    flags.add_argument("--workers", type=int, default=None, metavar="N",
                       help="train data-parallel on a local Dask cluster of N worker processes (1 thread each)")
    flags.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="train data-parallel on the running Dask cluster whose scheduler is at ADDRESS "
                            "(e.g. tcp://10.0.0.5:8786)")


def cli_problem(args) -> str | None:
    """What is wrong with `args.workers` / `args.scheduler`, or None (checked before any work)."""
    workers, scheduler = getattr(args, "workers", None), getattr(args, "scheduler", None)
    if workers is not None and workers < 1:
        return f"--workers must be >= 1, got {workers}"
    if scheduler is not None and not str(scheduler).strip():
        return "--scheduler needs an address, e.g. tcp://host:8786"
    if workers is not None or scheduler is not None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            return "--workers/--scheduler need Dask distributed: pip install 'frame[distributed]'"
    return None


def client_from_args(workers: int | None = None, scheduler: str | None = None, *, timeout: float = 60.0):
    """A Dask client for `--workers N` (a new local cluster) or `--scheduler ADDRESS`; None for neither.

    The local cluster runs N worker processes with one thread each (frame's executables use their
    own row threads), without dashboards. Close the client when done (`with client:` does it).
    """
    if workers is not None and scheduler is not None:
        raise FrameError("client_from_args: give workers or scheduler, not both")
    if workers is None and scheduler is None:
        return None
    try:
        from distributed import Client
    except ImportError:
        raise FrameError("data-parallel training needs Dask distributed: pip install 'frame[distributed]'") from None
    if scheduler is not None:
        return Client(str(scheduler), timeout=timeout)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise FrameError(f"client_from_args: workers must be an int >= 1, got {workers!r}")
    # Keyword arguments make the client start (and own) its LocalCluster: closing the client ends
    # the worker processes too.
    return Client(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",  # any free port
                  worker_dashboard_address=None, timeout=timeout)
