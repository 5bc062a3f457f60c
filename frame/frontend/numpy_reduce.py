"""frame.numpy's reductions."""
from __future__ import annotations

from ..tracing import bind
from .args import _axes, _ndim

__all__ = ['sum', 'mean']


def sum(x, axis=None, keepdims: bool = False):  # noqa: A001 - numpy name
    return bind("sum", x, axes=_axes(axis, _ndim(x), "sum"), keepdims=bool(keepdims))


def mean(x, axis=None, keepdims: bool = False):
    return bind("mean", x, axes=_axes(axis, _ndim(x), "mean"), keepdims=bool(keepdims))
