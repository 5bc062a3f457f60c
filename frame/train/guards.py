"""Training guards: NaN/Inf in the data, non-finite losses, gradients and updates, and the divergence factor.

Each check names what is wrong and where, so a failed step can stop before it touches the parameters.
"""
from __future__ import annotations

import inspect
import math
from typing import Callable, Sequence

import numpy as np

from ..errors import FrameError, InputError
from ..frontend.pytree import tree_flatten
from .loss_graph import leaf_paths

__all__ = ["DEFAULT_DIVERGENCE_FACTOR", "check_finite_data", "check_divergence_factor", "first_nonfinite"]

#: `Trainer`'s default divergence guard: stop once a loss exceeds the first loss L0 by more than
#: this many times |L0| (a healthy run stays near or below L0; the issue-12 run at lr=1e8 went 51 -> 4e9).
DEFAULT_DIVERGENCE_FACTOR = 1e4


def first_nonfinite(arrays: Sequence[np.ndarray], names: Sequence[str]) -> str | None:
    """Describe the first array holding NaN/Inf (None if all are finite)."""
    # Fast path, one reduction per array: a sum is finite only if every element is (a finite sum
    # that overflows just falls through to the exact check).
    if math.isfinite(sum(float(a.sum()) for a in arrays)):
        return None
    for a, name in zip(arrays, names):
        if not np.isfinite(a).all():
            bad = "nan" if np.isnan(a).any() else "inf"
            return f"{name} {a.dtype.name}{list(a.shape)} contains {bad}"
    return None


def _data_argument_names(loss_fn: Callable, count: int) -> list[str]:
    """The names of `loss_fn`'s data arguments (those after params), e.g. ['x', 'y']; '' where unknown."""
    try:
        parameters = list(inspect.signature(loss_fn).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    names: list[str] = []
    for p in parameters[1:]:
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            names += [f"*{p.name}[{j}]" for j in range(count - len(names))]
        elif p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    return (names + [""] * count)[:count]


def check_finite_data(loss_fn: Callable, data: tuple) -> None:
    """`InputError` naming the first data argument of `loss_fn(params, *data)` that holds NaN/Inf, and where.

    E.g. "data argument 1 (x) float64[48, 2] holds nan at index (3, 0)": argument 0 is params.
    """
    for i, (arg, name) in enumerate(zip(data, _data_argument_names(loss_fn, len(data))), start=1):
        leaves, treedef = tree_flatten(arg)
        paths = leaf_paths(treedef) if treedef.kind != "leaf" else [""]
        for leaf, path in zip(leaves, paths):
            a = np.asarray(leaf)
            if a.dtype.kind not in "fc":
                continue
            with np.errstate(over="ignore", invalid="ignore"):
                if math.isfinite(abs(complex(a.sum()))):  # one reduction when all is well
                    continue
            bad = np.argwhere(~np.isfinite(a))
            if not len(bad):
                continue  # the sum overflowed, the values are finite
            index = tuple(int(j) for j in bad[0])
            kind = "nan" if np.isnan(a[index]) else "inf"
            label = f"{name}{path}" if path != "<root>" else name
            raise InputError(f"data argument {i}{f' ({label})' if label else ''} {a.dtype.name}{list(a.shape)} holds "
                             f"{kind} at index {index}; training data must be finite", i)


def empty_data(loss_fn: Callable, data: tuple) -> str:
    """"; data argument 1 (x) float64[0, 3] is empty" for the first empty data array, else "": the usual
    reason for a nan loss from finite data (a mean over no elements)."""
    for i, (arg, name) in enumerate(zip(data, _data_argument_names(loss_fn, len(data))), start=1):
        for leaf in tree_flatten(arg)[0]:
            a = np.asarray(leaf)
            if a.size == 0:
                return f"; data argument {i}{f' ({name})' if name else ''} {a.dtype.name}{list(a.shape)} is empty"
    return ""


def check_divergence_factor(factor) -> float | None:
    """A validated `divergence_factor`: None (guard off) or a finite number > 0."""
    if factor is None:
        return None
    if isinstance(factor, bool) or not isinstance(factor, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(factor)) or factor <= 0:
        raise FrameError(f"divergence_factor must be a finite number > 0 or None (no guard), got {factor!r}")
    return float(factor)
