"""frame.lax's shape functions: reshapes, pads, static and dynamic slices, iotas (see frame.lax)."""
from __future__ import annotations

import math

import numpy as _np

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _int, _ints, _shape
from ..tracing import Tracer, bind
from ._common import _array, _builtin_max, _builtin_min, _builtin_slice, _is_scalar, _operands_same_dtype, _rank_axes


def reshape(operand, new_sizes, dimensions=None):
    """lax.reshape: operand (first transposed by `dimensions`, if given) in the shape `new_sizes`."""
    x = _array(operand)
    if dimensions is not None:
        x = transpose(x, dimensions)
    new_sizes = _ints(tuple(new_sizes), "reshape", "new_sizes")
    if math.prod(new_sizes) != math.prod(_shape(x)):
        raise ShapeError(f"lax.reshape: cannot reshape {_shape(x)} to {new_sizes}")
    return fnp.reshape(x, new_sizes)


def broadcast(operand, sizes):
    """lax.broadcast: new leading axes of `sizes`."""
    x = _array(operand)
    return fnp.broadcast_to(x, _ints(tuple(sizes), "broadcast", "sizes") + tuple(_shape(x)))


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """lax.broadcast_in_dim: operand axis i becomes result axis broadcast_dimensions[i] (strictly increasing;
    sizes equal or 1), the other result axes are broadcast."""
    x = _array(operand)
    shape, dims = _ints(tuple(shape), "broadcast_in_dim", "shape"), _ints(tuple(broadcast_dimensions),
                                                                         "broadcast_in_dim", "broadcast_dimensions")
    xs = _shape(x)
    if (len(dims) != len(xs) or any(not 0 <= d < len(shape) for d in dims) or list(dims) != sorted(set(dims))
            or any(n not in (1, shape[d]) for n, d in zip(xs, dims))):
        raise ShapeError(f"lax.broadcast_in_dim: cannot put operand of shape {xs} at dimensions {dims} of shape "
                         f"{shape} (one strictly increasing dimension per axis, sizes equal or 1)")
    middle = [1] * len(shape)
    for n, d in zip(xs, dims):
        middle[d] = n
    return fnp.broadcast_to(fnp.reshape(x, tuple(middle)), shape)


def squeeze(array, dimensions):
    """lax.squeeze: the size-1 axes `dimensions` removed."""
    x = _array(array)
    dims = _rank_axes("squeeze", dimensions, len(_shape(x)))
    if any(_shape(x)[d] != 1 for d in dims):
        raise ShapeError(f"lax.squeeze: dimensions {dims} of shape {_shape(x)} must have size 1")
    return fnp.reshape(x, tuple(n for i, n in enumerate(_shape(x)) if i not in dims))


def expand_dims(array, dimensions):
    """lax.expand_dims: size-1 axes inserted at `dimensions` (of the result)."""
    x = _array(array)
    dims = _rank_axes("expand_dims", dimensions, len(_shape(x)) + len(tuple(dimensions)))
    shape, it = [], iter(_shape(x))
    for i in range(len(_shape(x)) + len(dims)):
        shape.append(1 if i in dims else next(it))
    return fnp.reshape(x, tuple(shape))


def transpose(operand, permutation):
    """lax.transpose: axes permuted, result axis i = operand axis permutation[i]."""
    x = _array(operand)
    perm = tuple(int(p) for p in _np.asarray(permutation).ravel())
    if sorted(perm) != list(range(len(_shape(x)))):
        raise ShapeError(f"lax.transpose: permutation {perm} is not one of the {len(_shape(x))} axes of {_shape(x)}")
    return fnp.transpose(x, perm)


def rev(operand, dimensions):
    """lax.rev: the axes `dimensions` reversed."""
    x = _array(operand)
    dims = _rank_axes("rev", dimensions, len(_shape(x)))
    return fnp.flip(x, dims) if dims else x


def concatenate(operands, dimension):
    """lax.concatenate: operands of one dtype joined along `dimension`."""
    xs = _operands_same_dtype("concatenate", operands)
    return fnp.concatenate(xs, axis=_rank_axes("concatenate", (dimension,), len(_shape(xs[0])))[0])


def pad(operand, padding_value, padding_config):
    """lax.pad: per axis (lo, hi, interior) elements of `padding_value` before, after and between the
    operand's elements; negative lo/hi crop (after interior padding). Differentiable in both arrays."""
    x = _array(operand)
    shape = _shape(x)
    config = [tuple(_ints(tuple(c), "pad", "padding_config")) for c in padding_config]
    if len(config) != len(shape) or any(len(c) != 3 or c[2] < 0 for c in config):
        raise ShapeError(f"lax.pad: padding_config needs one (lo, hi, interior >= 0) per axis of {shape}, "
                         f"got {padding_config}")
    value = _np.asarray(padding_value, _dtype(x)) if _is_scalar(padding_value) else _array(padding_value)
    if _shape(value) != () or _dtype(value) != _dtype(x):
        raise ShapeError(f"lax.pad: padding_value must be a scalar of the operand's dtype {_dtype(x)}, got "
                         f"{_dtype(value)} of shape {_shape(value)}")
    for n, (lo, hi, interior) in zip(shape, config):
        if n + _builtin_max(n - 1, 0) * interior + lo + hi < 0:
            raise ShapeError(f"lax.pad: padding {padding_config} leaves a negative size for shape {shape}")
    lo = tuple(_builtin_max(c[0], 0) for c in config)
    hi = tuple(_builtin_max(c[1], 0) for c in config)
    interior = tuple(c[2] for c in config)
    out = bind("pad", x, lo=lo, hi=hi, interior=interior)
    if not (isinstance(value, _np.ndarray) and value == 0 and not _np.signbit(value)):
        # the pad op writes zeros; where the operand's elements are not, put padding_value
        inside = bind("pad", _np.ones(shape, bool), lo=lo, hi=hi, interior=interior)
        out = fnp.where(inside, out, value)
    if any(c[0] < 0 or c[1] < 0 for c in config):
        full_shape = _shape(out)
        out = fnp.slice_axes(out, tuple(_builtin_max(-c[0], 0) for c in config),
                             tuple(n - _builtin_max(-c[1], 0) for n, c in zip(full_shape, config)))
    return out


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """lax.slice: operand[start:limit:stride] per axis (0 <= start <= limit <= size, stride >= 1)."""
    x = _array(operand)
    shape = _shape(x)
    starts, limits = _ints(tuple(start_indices), "slice", "start_indices"), _ints(tuple(limit_indices), "slice",
                                                                                    "limit_indices")
    steps = (1,) * len(shape) if strides is None else _ints(tuple(strides), "slice", "strides")
    if (not len(starts) == len(limits) == len(steps) == len(shape)
            or any(not 0 <= a <= b <= n or s < 1 for a, b, n, s in zip(starts, limits, shape, steps))):
        raise ShapeError(f"lax.slice: start_indices {starts}, limit_indices {limits}, strides {steps} do not fit "
                         f"shape {shape} (0 <= start <= limit <= size, stride >= 1)")
    return fnp.slice_axes(x, starts, limits, steps)


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """lax.slice_in_dim: operand[start:limit:stride] along `axis` (None and negative indices as Python's)."""
    x = _array(operand)
    shape = _shape(x)
    axis = _rank_axes("slice_in_dim", (axis,), len(shape))[0]
    n = shape[axis]
    start = 0 if start_index is None else _int(start_index, "slice_in_dim", "start_index")
    limit = n if limit_index is None else _int(limit_index, "slice_in_dim", "limit_index")
    start, limit = start + n if start < 0 else start, limit + n if limit < 0 else limit
    starts, limits, steps = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis], limits[axis], steps[axis] = start, limit, stride
    return slice(x, starts, limits, steps)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """lax.index_in_dim: the entry `index` (negative counts from the end) along `axis`."""
    x = _array(operand)
    axis = _rank_axes("index_in_dim", (axis,), len(_shape(x)))[0]
    index = _int(index, "index_in_dim", "index")
    n = _shape(x)[axis]
    if not -n <= index < n:
        raise ShapeError(f"lax.index_in_dim: index {index} is out of range for axis {axis} of shape {_shape(x)}")
    index %= n
    out = slice_in_dim(x, index, index + 1, 1, axis)
    return out if keepdims else fnp.squeeze(out, axis)


def _starts(name: str, x, start_indices, sizes, allow_negative_indices=True):
    """Start indices clamped into [0, size - slice size] as lax does; Python ints stay Python ints."""
    shape = _shape(x)
    if isinstance(start_indices, (Tracer, _np.ndarray)) and _shape(start_indices) != ():
        start_indices = [start_indices[i] for i in range(_shape(start_indices)[0])]
    start_indices = list(start_indices)
    if len(start_indices) != len(shape) or len(sizes) != len(shape):
        raise ShapeError(f"lax.{name}: needs one start index and size per axis of shape {shape}, got "
                         f"{len(start_indices)} indices and sizes {tuple(sizes)}")
    if any(not 0 <= k <= n for k, n in zip(sizes, shape)):
        raise ShapeError(f"lax.{name}: slice sizes {tuple(sizes)} do not fit shape {shape}")
    negative = allow_negative_indices if isinstance(allow_negative_indices, (list, tuple)) else \
        [allow_negative_indices] * len(shape)
    out = []
    for s, k, n, neg in zip(start_indices, sizes, shape, negative):
        if isinstance(s, Tracer) or (isinstance(s, _np.ndarray) and s.dtype.kind not in "iu"):
            if _np.dtype(_dtype(s)).kind not in "iu" or _shape(s) != ():
                raise ShapeError(f"lax.{name}: start indices must be integer scalars, got {_dtype(s)} {_shape(s)}")
            s = fnp.where(s < 0, s + n, s) if neg else s
            out.append(fnp.clip(s, 0, n - k))
        else:
            s = _int(s, name, "start index")
            s = s + n if neg and s < 0 else s
            out.append(_builtin_min(_builtin_max(s, 0), n - k))
    return out


def _positions(start, size: int):
    return start + _np.arange(size)


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """lax.dynamic_slice: the block of `slice_sizes` at (possibly traced) `start_indices`, clamped into range."""
    x = _array(operand)
    sizes = _ints(tuple(slice_sizes), "dynamic_slice", "slice_sizes")
    starts = _starts("dynamic_slice", x, start_indices, sizes, allow_negative_indices)
    static = [s for s in starts if not isinstance(s, Tracer)]
    if len(static) == len(starts):
        return fnp.slice_axes(x, tuple(starts), tuple(s + k for s, k in zip(starts, sizes)))
    for axis, (s, k) in enumerate(zip(starts, sizes)):
        if isinstance(s, Tracer) or k != _shape(x)[axis]:
            x = fnp.take(x, _positions(s, k), axis=axis)
    return x


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """lax.dynamic_update_slice: operand with `update` written at (possibly traced) `start_indices`, clamped
    into range; differentiable in operand and update."""
    x, u = _operands_same_dtype("dynamic_update_slice", (operand, update))
    if len(_shape(u)) != len(_shape(x)):
        raise ShapeError(f"lax.dynamic_update_slice: update {_shape(u)} must have the rank of operand {_shape(x)}")
    starts = _starts("dynamic_update_slice", x, start_indices, _shape(u), allow_negative_indices)
    rank = len(_shape(u))
    coords = []
    for axis, (s, k) in enumerate(zip(starts, _shape(u))):
        c = fnp.reshape(_positions(s, k), tuple(k if i == axis else 1 for i in range(rank)))
        coords.append(fnp.broadcast_to(c, _shape(u)))
    # the positions are distinct, whatever the starts
    return bind("scatter", x, u, *coords, mode="set", unique=True)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0, *, allow_negative_indices=True):
    """lax.dynamic_slice_in_dim: `slice_size` entries from `start_index` along `axis`."""
    x = _array(operand)
    axis = _rank_axes("dynamic_slice_in_dim", (axis,), len(_shape(x)))[0]
    starts = [0] * len(_shape(x))
    starts[axis] = start_index
    sizes = list(_shape(x))
    sizes[axis] = slice_size
    return dynamic_slice(x, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *, allow_negative_indices=True):
    """lax.dynamic_index_in_dim: the entry at (possibly traced) `index` along `axis`."""
    x = _array(operand)
    axis = _rank_axes("dynamic_index_in_dim", (axis,), len(_shape(x)))[0]
    out = dynamic_slice_in_dim(x, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return out if keepdims else fnp.squeeze(out, axis)


def dynamic_update_slice_in_dim(operand, update, start_index, axis, *, allow_negative_indices=True):
    """lax.dynamic_update_slice_in_dim: `update` written from `start_index` along `axis`."""
    x = _array(operand)
    axis = _rank_axes("dynamic_update_slice_in_dim", (axis,), len(_shape(x)))[0]
    starts = [0] * len(_shape(x))
    starts[axis] = start_index
    return dynamic_update_slice(x, update, starts, allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    """lax.dynamic_update_index_in_dim: `update` (with or without the axis) written at `index` along `axis`."""
    x, u = _array(operand), _array(update)
    axis = _rank_axes("dynamic_update_index_in_dim", (axis,), len(_shape(x)))[0]
    if len(_shape(u)) == len(_shape(x)) - 1:
        u = fnp.expand_dims(u, axis)
    return dynamic_update_slice_in_dim(x, u, index, axis, allow_negative_indices=allow_negative_indices)


def collapse(operand, start_dimension, stop_dimension=None):
    """lax.collapse: axes [start_dimension, stop_dimension) merged into one."""
    x = _array(operand)
    shape = _shape(x)
    stop = len(shape) if stop_dimension is None else stop_dimension
    start, stop = _builtin_slice(start_dimension, stop).indices(len(shape))[:2]
    return fnp.reshape(x, shape[:start] + (math.prod(shape[start:stop]),) + shape[stop:])


def iota(dtype, size):
    """lax.iota: 0, 1, ..., size - 1 of `dtype`."""
    return _np.arange(_int(size, "iota", "size"), dtype=_np.dtype(dtype))


def broadcasted_iota(dtype, shape, dimension):
    """lax.broadcasted_iota: each element's index along `dimension`, in an array of `shape`."""
    shape = _ints(tuple(shape), "broadcasted_iota", "shape")
    d = _rank_axes("broadcasted_iota", (dimension,), len(shape))[0]
    return broadcast_in_dim(iota(dtype, shape[d]), shape, (d,))


def _scalar_fill(name: str, fill_value):
    # numpy's full broadcasts an array fill value; lax's takes a scalar only
    if _shape(fill_value) != ():
        raise ShapeError(f"lax.{name}: fill_value must be a scalar, got shape {_shape(fill_value)}")


def full(shape, fill_value, dtype=None):
    """lax.full: an array of `shape` filled with the scalar `fill_value` (which may be traced); fnp.full."""
    _scalar_fill("full", fill_value)
    return fnp.full(shape, fill_value, dtype)


def full_like(x, fill_value, dtype=None, shape=None):
    """lax.full_like: `full` with x's shape and dtype unless given; fnp.full_like."""
    _scalar_fill("full_like", fill_value)
    return fnp.full_like(x, fill_value, dtype, shape)


def zeros_like_array(x):
    """Zeros of x's shape and dtype."""
    return full_like(x, 0)


def split(operand, sizes, axis=0):
    """lax.split: consecutive pieces of `sizes` (summing to the axis length) along `axis`, as a list."""
    x = _array(operand)
    axis = _rank_axes("split", (axis,), len(_shape(x)))[0]
    sizes = _ints(tuple(sizes), "split", "sizes")
    if any(s < 0 for s in sizes) or sum(sizes) != _shape(x)[axis]:
        raise ShapeError(f"lax.split: sizes {sizes} must be >= 0 and sum to {_shape(x)[axis]}, the length of axis "
                         f"{axis} of shape {_shape(x)}")
    out, start = [], 0
    for s in sizes:
        out.append(slice_in_dim(x, start, start + s, 1, axis))
        start += s
    return out


def tile(operand, reps):
    """lax.tile: the operand repeated reps[i] times along axis i (one rep per axis)."""
    x = _array(operand)
    reps = _ints(tuple(reps), "tile", "reps")
    if len(reps) != len(_shape(x)) or any(r < 0 for r in reps):
        raise ShapeError(f"lax.tile: reps {reps} needs one count >= 0 per axis of shape {_shape(x)}")
    return fnp.tile(x, reps) if reps else x


def empty(shape, dtype, *, out_sharding=None):
    """lax.empty: an array of `shape` and `dtype` whose contents are unspecified (zeros here, as JAX's are)."""
    return fnp.zeros(_ints(tuple(shape), "empty", "shape"), _np.dtype(dtype).name)


def broadcast_to_rank(x, rank):
    """lax.broadcast_to_rank: x with leading size-1 axes up to `rank` (rank >= x's rank)."""
    x = _array(x) if not _is_scalar(x) else _np.asarray(x)
    rank = _int(rank, "broadcast_to_rank", "rank")
    if rank < len(_shape(x)):
        raise ShapeError(f"lax.broadcast_to_rank: rank {rank} is below the rank of shape {_shape(x)}")
    return x if rank == len(_shape(x)) else fnp.reshape(x, (1,) * (rank - len(_shape(x))) + tuple(_shape(x)))


def broadcast_shapes(*shapes):
    """lax.broadcast_shapes: the shape numpy's broadcasting gives `shapes` (aligned at the right, sizes equal or
    1), as a tuple."""
    if not shapes:
        raise ShapeError("lax.broadcast_shapes needs at least one shape")
    shapes = [_ints(tuple(s), "broadcast_shapes", "shapes") for s in shapes]
    rank = _builtin_max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        sizes = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0} - {1}
        if len(sizes) > 1:
            raise ShapeError(f"lax.broadcast_shapes: shapes {', '.join(map(str, shapes))} do not broadcast "
                             f"(sizes {sorted(sizes)} at axis {i - rank})")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def stack(operands, axis=0):
    """lax.stack: operands of one shape and dtype along a new axis `axis`."""
    xs = _operands_same_dtype("stack", operands)
    if len({_shape(x) for x in xs}) != 1:
        raise ShapeError(f"lax.stack requires operands of one shape, got {[_shape(x) for x in xs]}")
    return fnp.stack(xs, axis=_rank_axes("stack", (axis,), len(_shape(xs[0])) + 1)[0])


def unstack(x, axis=0):
    """lax.unstack: the slices of x along `axis`, that axis removed, as a tuple."""
    x = _array(x)
    axis = _rank_axes("unstack", (axis,), len(_shape(x)))[0]
    return tuple(index_in_dim(x, i, axis, keepdims=False) for i in range(_shape(x)[axis]))
