"""Compiling graphs to executables and running them: `compile` (cache), `Executable`, its tiers
(`set_native`, `wait_native_builds`), row-parallel executables (`RowPolicy`, `set_row_policy`) and
the BLAS thread policy (`restore_blas_threads`)."""
from .blas import restore_blas_threads
from .compile import CacheInfo, cache_info, clear_cache, compile  # noqa: A004
from .executable import Executable
from .row_parallel import RowParallelExecutable, RowPolicy, reset_row_policy, set_row_policy
from .tiers import set_native, wait_native_builds

__all__ = ["compile", "cache_info", "clear_cache", "CacheInfo", "Executable", "RowParallelExecutable", "RowPolicy",
           "set_row_policy", "reset_row_policy", "set_native", "wait_native_builds", "restore_blas_threads"]
