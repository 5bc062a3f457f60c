"""Compiling graphs to executables and running them on numpy."""
from .compile import CacheInfo, cache_info, clear_cache, compile  # noqa: A004
from .executable import Executable, restore_blas_threads, set_native, wait_native_builds

__all__ = ["compile", "cache_info", "clear_cache", "CacheInfo", "Executable", "set_native", "wait_native_builds",
           "restore_blas_threads"]
