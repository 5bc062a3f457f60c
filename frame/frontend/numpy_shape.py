"""frame.numpy's shape functions and basic indexing (`getitem`, behind `x[...]`)."""
from __future__ import annotations

import builtins
import operator

import numpy as _np

from ..errors import ShapeError, TraceError
from ..tracing import Tracer, bind
from .args import _axes, _axis, _int, _ints, _ndim, _shape

__all__ = ['reshape', 'transpose', 'swapaxes', 'broadcast_to', 'concatenate', 'expand_dims', 'squeeze', 'slice_axes', 'getitem']


def reshape(x, shape):
    shape = _ints(shape, "reshape", "the new shape")
    src = _shape(x)
    size = int(_np.prod(src, dtype=_np.int64))
    if shape.count(-1) > 1 or any(d < -1 for d in shape):
        raise ShapeError(f"op 'reshape': {shape} is not a shape (one -1 at most, other sizes >= 0)")
    if -1 in shape:
        known = int(_np.prod([d for d in shape if d != -1], dtype=_np.int64))
        if known == 0 or size % known:
            raise ShapeError(f"op 'reshape': cannot reshape {src} into {shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    return bind("reshape", x, shape=shape)


def transpose(x, axes=None):
    rank = _ndim(x)
    perm = tuple(range(rank))[::-1] if axes is None else _ints(axes, "transpose", "axes")
    if sorted(a % rank if -rank <= a < rank else a for a in perm) != list(range(rank)):
        raise ShapeError(f"op 'transpose': axes {perm} are not a permutation of the {rank} axes of {_shape(x)}")
    return bind("transpose", x, perm=tuple(a % rank for a in perm))


def swapaxes(x, axis1: int, axis2: int):
    rank = _ndim(x)
    a, b = (_axis(axis, rank, "swapaxes") for axis in (axis1, axis2))
    perm = list(range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


def broadcast_to(x, shape):
    return bind("broadcast_to", x, shape=_ints(shape, "broadcast_to", "the shape"))


def concatenate(xs, axis: int | None = 0):
    """numpy's `concatenate`; `axis=None` flattens every operand first."""
    if isinstance(xs, (Tracer, _np.ndarray)) or not hasattr(xs, "__iter__"):
        raise ShapeError(f"op 'concat': needs a sequence of arrays, got {type(xs).__name__}")
    xs = list(xs)
    if not xs:
        raise ShapeError("op 'concat': needs at least one operand")
    if axis is None:
        return bind("concat", *(reshape(x, (-1,)) for x in xs), axis=0)
    rank = _ndim(xs[0])
    if rank == 0:
        raise ShapeError("op 'concat': zero-dimensional operands cannot be concatenated")
    return bind("concat", *xs, axis=_axis(axis, rank, "concat"))


def expand_dims(x, axis: int):
    shape = list(_shape(x))
    axis = _axis(axis, len(shape) + 1, "expand_dims")
    shape.insert(axis, 1)
    return reshape(x, shape)


def squeeze(x, axis=None):
    shape = _shape(x)
    axes = [i for i, d in enumerate(shape) if d == 1] if axis is None else list(_axes(axis, len(shape), "squeeze"))
    for a in axes:
        if shape[a] != 1:
            raise ShapeError(f"op 'squeeze': axis {a} of {shape} has size {shape[a]}, not 1")
    return reshape(x, [d for i, d in enumerate(shape) if i not in axes])


def slice_axes(x, starts, stops, steps=None):
    """Basic slicing: `x[starts[i]:stops[i]:steps[i]]` along every axis (steps positive)."""
    steps = tuple(steps) if steps is not None else (1,) * len(starts)
    return bind("slice", x, starts=tuple(starts), stops=tuple(stops), steps=steps)


def getitem(x, index):
    """`x[index]` for basic indices: ints, slices with positive steps, `None` and `...`."""
    shape = _shape(x)
    index = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, (Tracer, _np.ndarray, list)) for i in index):
        raise TraceError("only basic indexing (ints, slices, None, ...) is supported on traced values")
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        raise ShapeError(f"an index can only have a single ellipsis, got {index}")
    n_real = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > len(shape):
        raise ShapeError(f"too many indices ({n_real}) for a value of shape {shape}")
    if Ellipsis in index:
        k = index.index(Ellipsis)
        index = index[:k] + (slice(None),) * (len(shape) - n_real) + index[k + 1:]
    else:
        index = index + (slice(None),) * (len(shape) - n_real)
    starts, stops, steps, out_shape = [], [], [], []
    axis = 0
    for i in index:
        if i is None:
            out_shape.append(1)
            continue
        dim = shape[axis]
        if isinstance(i, slice):
            try:
                start, stop, step = slice(*(None if v is None else _int(v, "getitem", "a slice bound")
                                            for v in (i.start, i.stop, i.step))).indices(dim)
            except ValueError:  # a zero step
                raise ShapeError(f"slice {i} has step 0") from None
            if step <= 0:
                raise TraceError(f"slice {i} has a non-positive step; only positive steps are supported")
            n = len(range(start, stop, step))
            starts.append(start), stops.append(max(stop, start)), steps.append(step)
            out_shape.append(n)
        else:
            try:
                k = operator.index(i)
            except TypeError:
                raise ShapeError(f"only integers, slices, None and ... are valid indices, got "
                                 f"{type(i).__name__} {i!r}") from None
            if not -dim <= k < dim:
                raise ShapeError(f"index {k} is out of bounds for axis {axis} with size {dim}")
            k %= dim
            starts.append(k), stops.append(k + 1), steps.append(1)
        axis += 1
    y = x
    if (tuple(starts), tuple(steps)) != ((0,) * len(shape), (1,) * len(shape)) or tuple(stops) != tuple(shape):
        y = slice_axes(x, starts, stops, steps)
    if tuple(out_shape) != tuple(_shape(y)):
        y = reshape(y, out_shape)
    return y
