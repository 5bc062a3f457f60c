"""frame.numpy's shape functions, indexing (`getitem`, behind `x[...]`) and functional updates (`x.at[...]`).

Indexing follows numpy: ints, slices (any step), `None`, `...`, integer arrays (numpy constants or
traced ints; numpy's advanced-indexing shape rules, negative indices count from the end) and
boolean masks given as numpy arrays (their `nonzero` positions, so the result shape is static).
Basic indices become `slice`/`rev`/`reshape`; array indices a `gather`.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as _np

from ..errors import ShapeError, TraceError
from ..ir.types import Dim, broadcast_dims
from ..tracing import Tracer, bind
from .args import _axes, _axis, _dtype, _int, _ints, _ndim, _shape
from .numpy_creation import _cast, _has_tracer, _leaves, as_operand, asarray

__all__ = ['reshape', 'transpose', 'swapaxes', 'broadcast_to', 'concatenate', 'concat', 'expand_dims', 'squeeze',
           'slice_axes', 'getitem', 'stack', 'hstack', 'vstack', 'column_stack', 'split', 'array_split', 'tile',
           'repeat', 'flip', 'roll', 'pad', 'take', 'take_along_axis', 'ravel', 'flatten', 'moveaxis', 'tril',
           'triu', 'diag', 'diagonal', 'meshgrid', 'at', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'fliplr', 'flipud',
           'rot90', 'dstack', 'append', 'matrix_transpose', 'permute_dims', 'unstack', 'copy', 'delete', 'ndim', 'shape',
           'size', 'broadcast_shapes', 'broadcast_arrays', 'block', 'hsplit', 'vsplit', 'dsplit', 'rollaxis', 'diagflat',
           'insert', 'trim_zeros', 'resize', 'fill_diagonal', 'put_along_axis', 'apply_over_axes', 'put', 'place']


def reshape(x, shape):
    shape = _ints(shape, "reshape", "the new shape")
    src = _shape(x)
    if any(isinstance(d, Dim) for d in (*src, *shape)):
        # symbolic sizes: the op's shape rule resolves a -1 and checks the element count for every size
        return bind("reshape", x, shape=shape)
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


concat = concatenate   # numpy 2's name


def _sequence(xs, op: str) -> list:
    if isinstance(xs, (Tracer, _np.ndarray)) or not hasattr(xs, "__iter__"):
        raise ShapeError(f"op '{op}': needs a sequence of arrays, got {type(xs).__name__}")
    xs = list(xs)
    if not xs:
        raise ShapeError(f"op '{op}': needs at least one array")
    return xs


def stack(arrays, axis: int = 0):
    """numpy's `stack`: arrays of one shape joined along a new axis `axis`."""
    xs = _sequence(arrays, "stack")
    shapes = {_shape(x) for x in xs}
    if len(shapes) > 1:
        raise ShapeError(f"op 'stack': all input arrays must have the same shape, got {', '.join(map(str, shapes))}")
    axis = _axis(axis, _ndim(xs[0]) + 1, "stack")
    return bind("concat", *(expand_dims(x, axis) for x in xs), axis=axis)


def _at_least(x, rank: int):
    """numpy's atleast_1d/atleast_2d: (n,) -> (1, n), () -> (1,) or (1, 1)."""
    shape = _shape(x)
    return x if len(shape) >= rank else reshape(x, (1,) * (rank - len(shape)) + shape)


def _each(arys, one):
    """numpy 2's atleast_* convention: one array for one argument, else a tuple."""
    out = tuple(one(a) for a in arys)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """numpy's `atleast_1d`: 0-d arrays as shape (1,), the others as they are."""
    return _each(arys, lambda a: _at_least(a, 1))


def atleast_2d(*arys):
    """numpy's `atleast_2d`: () -> (1, 1), (n,) -> (1, n), the others as they are."""
    return _each(arys, lambda a: _at_least(a, 2))


def _at_least_3d(a):
    shape = _shape(a)
    if len(shape) >= 3:
        return a
    return reshape(a, {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)])


def atleast_3d(*arys):
    """numpy's `atleast_3d`: () -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return _each(arys, _at_least_3d)


def dstack(tup):
    """numpy's `dstack`: the arrays (as `atleast_3d`) joined along the third axis."""
    return concatenate([_at_least_3d(x) for x in _sequence(tup, "dstack")], axis=2)


def append(arr, values, axis=None):
    """numpy's `append`: `values` after `arr` along `axis` (None: both flattened)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], axis=0)
    return concatenate([arr, values], axis=axis)


def delete(arr, obj, axis=None):
    """numpy's `delete`: `arr` without the entries `obj` (an int, a slice or ints, concrete) along `axis`
    (None: of the flattened array)."""
    if isinstance(obj, Tracer):
        raise TraceError("op 'delete': which entries to drop fixes the result shape, so obj must be concrete")
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = _axis(axis, _ndim(arr), "delete")
    n = _shape(arr)[axis]
    drop = _np.zeros(n, bool)
    try:
        drop[obj if isinstance(obj, slice) else _np.asarray(obj, dtype=_np.int64)] = True
    except IndexError:
        raise ShapeError(f"op 'delete': index {obj!r} is out of bounds for axis {axis} with size {n}") from None
    return take(arr, _np.flatnonzero(~drop), axis)


def ndim(a) -> int:
    """The number of axes."""
    return _ndim(a)


def shape(a) -> tuple:
    """The shape, a tuple of ints."""
    return _shape(a)


def size(a, axis=None) -> int:
    """The number of elements (along `axis` when given)."""
    dims = _shape(a)
    return math.prod(dims) if axis is None else dims[_axis(axis, len(dims), "size")]


def unstack(x, /, *, axis: int = 0):
    """numpy 2's `unstack`: the slices of `x` along `axis`, as a tuple."""
    rank = _ndim(x)
    if rank == 0:
        raise ShapeError("op 'unstack': needs an array of rank >= 1, got shape ()")
    axis = _axis(axis, rank, "unstack")
    return tuple(getitem(x, _along(axis, i)) for i in range(_shape(x)[axis]))


def hstack(tup):
    xs = [_at_least(x, 1) for x in _sequence(tup, "hstack")]
    return concatenate(xs, axis=0 if _ndim(xs[0]) == 1 else 1)


def vstack(tup):
    return concatenate([_at_least(x, 2) for x in _sequence(tup, "vstack")], axis=0)


def column_stack(tup):
    """1-d (and 0-d) arrays become columns, 2-d ones are joined as they are."""
    xs = [reshape(x, (-1, 1)) if _ndim(x) < 2 else x for x in _sequence(tup, "column_stack")]
    return concatenate(xs, axis=1)


def _along(axis: int, index):
    return (slice(None),) * axis + (index,)


def array_split(ary, indices_or_sections, axis: int = 0):
    """numpy's `array_split`: `n` pieces (the first `len % n` one longer) or pieces between the given indices."""
    axis = _axis(axis, _ndim(ary), "array_split")
    length = _shape(ary)[axis]
    if isinstance(indices_or_sections, (list, tuple, _np.ndarray)):
        bounds = [0, *_ints(list(_np.asarray(indices_or_sections).tolist()), "array_split", "a split index"), length]
    else:
        n = _int(indices_or_sections, "array_split", "the number of sections")
        if n <= 0:
            raise ShapeError(f"op 'array_split': the number of sections must be larger than 0, got {n}")
        each, extra = divmod(length, n)
        bounds = _np.cumsum([0] + extra * [each + 1] + (n - extra) * [each]).tolist()
    return [getitem(ary, _along(axis, slice(a, b))) for a, b in zip(bounds, bounds[1:])]


def split(ary, indices_or_sections, axis: int = 0):
    """numpy's `split`: as `array_split`, but `n` sections must divide the axis evenly."""
    if not isinstance(indices_or_sections, (list, tuple, _np.ndarray)):
        n = _int(indices_or_sections, "split", "the number of sections")
        length = _shape(ary)[_axis(axis, _ndim(ary), "split")]
        if n <= 0 or length % n:
            raise ShapeError(f"op 'split': an axis of length {length} does not split into {n} equal sections")
    return array_split(ary, indices_or_sections, axis)


def tile(A, reps):
    """numpy's `tile`: `A` repeated `reps[i]` times along axis i (`reps` and `A.shape` aligned at the right)."""
    reps, shape = _ints(reps, "tile", "reps"), _shape(A)
    if any(r < 0 for r in reps):
        raise ShapeError(f"op 'tile': reps {reps} must be non-negative")
    n = builtins.max(len(reps), len(shape))
    reps, shape = (1,) * (n - len(reps)) + reps, (1,) * (n - len(shape)) + shape
    spread = reshape(A, [k for d in shape for k in (1, d)])    # a size-1 axis before each axis: the copies
    tiled = broadcast_to(spread, [k for r, d in zip(reps, shape) for k in (r, d)])
    return reshape(tiled, [r * d for r, d in zip(reps, shape)])


def repeat(a, repeats, axis=None):
    """numpy's `repeat`: each element `repeats` times (an int, or one count per element) along `axis`
    (None: of the flattened array)."""
    if isinstance(repeats, Tracer):
        raise TraceError("op 'repeat': the repeat counts fix the result shape, so they must be concrete, not traced")
    if axis is None:
        a, axis = ravel(a), 0
    shape = _shape(a)
    axis = _axis(axis, len(shape), "repeat")
    counts = _np.asarray(repeats)
    if counts.dtype.kind not in "iub" or (counts.ndim and counts.shape != (1,) and counts.shape != (shape[axis],)) \
            or _np.any(counts < 0):
        raise ShapeError(f"op 'repeat': repeats {repeats!r} must be non-negative ints, one or {shape[axis]} of them")
    if counts.size != 1:
        return take(a, _np.repeat(_np.arange(shape[axis]), counts), axis)
    r = int(counts.reshape(()))
    spread = broadcast_to(reshape(a, shape[:axis + 1] + (1,) + shape[axis + 1:]),
                          shape[:axis + 1] + (r,) + shape[axis + 1:])
    return reshape(spread, shape[:axis] + (shape[axis] * r,) + shape[axis + 1:])


def flip(m, axis=None):
    """numpy's `flip`: the elements in reverse order along `axis` (None: every axis; an int or a tuple)."""
    return bind("rev", m, axes=_axes(axis, _ndim(m), "flip"))


def fliplr(m):
    """numpy's `fliplr`: the columns (axis 1) in reverse order."""
    if _ndim(m) < 2:
        raise ShapeError(f"op 'fliplr': needs an array of rank >= 2, got shape {_shape(m)}")
    return flip(m, 1)


def flipud(m):
    """numpy's `flipud`: the rows (axis 0) in reverse order."""
    if _ndim(m) < 1:
        raise ShapeError("op 'flipud': needs an array of rank >= 1, got shape ()")
    return flip(m, 0)


def rot90(m, k: int = 1, axes=(0, 1)):
    """numpy's `rot90`: `m` rotated by 90 degrees `k` times in the plane of `axes`, from the first
    towards the second."""
    rank = _ndim(m)
    axes = _ints(axes, "rot90", "axes")
    if len(axes) != 2:
        raise ShapeError(f"op 'rot90': axes must be two axes, got {axes}")
    a0, a1 = (_axis(a, rank, "rot90") for a in axes)
    if a0 == a1:
        raise ShapeError(f"op 'rot90': axes must be different, got {axes}")
    k = _int(k, "rot90", "k") % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(rank))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return transpose(flip(m, a1), perm) if k == 1 else flip(transpose(m, perm), a1)


def roll(a, shift, axis=None):
    """numpy's `roll`: elements shifted by `shift` along `axis` (ints or matching tuples; None: flattened),
    those leaving one end coming back at the other."""
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), _shape(a))
    shape = _shape(a)
    shifts, axes = _ints(shift, "roll", "shift"), [_axis(ax, len(shape), "roll") for ax in _ints(axis, "roll", "axis")]
    try:
        pairs = _np.broadcast(_np.array(shifts), _np.array(axes))
    except ValueError:
        raise ShapeError(f"op 'roll': shift {shift} and axis {axis} do not broadcast") from None
    total = dict.fromkeys(range(len(shape)), 0)
    for s, ax in pairs:
        total[int(ax)] += int(s)
    y = a
    for ax, s in total.items():
        if shape[ax] and s % shape[ax]:
            s %= shape[ax]
            y = bind("concat", getitem(y, _along(ax, slice(-s, None))), getitem(y, _along(ax, slice(None, -s))), axis=ax)
    return y


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def pad(array, pad_width, mode="constant", constant_values=0):
    """numpy's `pad` in modes constant (any `constant_values`), edge, reflect, symmetric and wrap.

    Constant mode is frame's zero `pad` plus numpy's own padding of zeros with the constants; the
    other modes take, per axis, the positions numpy's padding of `arange(n)` names.
    """
    shape = _shape(array)
    widths = _np.asarray(pad_width)
    try:
        if widths.dtype.kind not in "iu" or _np.any(widths < 0):
            raise ValueError
        widths = _np.broadcast_to(widths, (len(shape), 2)).astype(_np.int64)
    except ValueError:
        raise ShapeError(f"op 'pad': pad_width {pad_width!r} must be non-negative ints broadcastable to "
                         f"({len(shape)}, 2) for shape {shape}") from None
    if mode not in _PAD_MODES:
        raise ShapeError(f"op 'pad': mode {mode!r} is not supported (frame supports {', '.join(_PAD_MODES)})")
    if mode == "constant":
        dtype = array.dtype if isinstance(array, (Tracer, _np.ndarray)) else _np.asarray(array).dtype
        y = array if not _np.any(widths) else bind("pad", array, lo=tuple(widths[:, 0].tolist()),
                                                  hi=tuple(widths[:, 1].tolist()), interior=(0,) * len(shape))
        fill = _np.pad(_np.zeros(shape, dtype), widths, constant_values=constant_values)
        return y + fill if _np.any(fill) else y
    y = array
    for axis, (d, (lo, hi)) in enumerate(zip(shape, widths.tolist())):
        if lo or hi:
            try:
                positions = _np.pad(_np.arange(d), (lo, hi), mode=mode)
            except ValueError as e:   # an empty axis cannot be extended
                raise ShapeError(f"op 'pad': mode {mode!r} on axis {axis} of shape {shape}: {e}") from None
            y = take(y, positions, axis)
    return y


def _index_array(i, op: str):
    """An index array as numpy int64 or an integer tracer; traced masks are refused."""
    if isinstance(i, Tracer):
        if i.dtype == _np.bool_:
            raise TraceError(f"op '{op}': a traced boolean mask gives a result whose shape depends on traced values; "
                             "use fnp.where(mask, x, other) to select elementwise instead")
        if i.dtype.kind not in "iu":
            raise ShapeError(f"op '{op}': index arrays must be integers, got a traced {i.type}")
        return i
    arr = _np.asarray(i)
    if arr.dtype.kind not in "iu" and not (arr.size == 0 and arr.dtype.kind == "f"):   # [] is an empty int index
        raise ShapeError(f"op '{op}': arrays used as indices must be of integer (or boolean) type, got {arr.dtype}")
    return arr.astype(_np.int64)


def _gather(x, arrays, op: str, names=None):
    """`x[arrays...]` for index arrays of the leading axes: broadcast to one shape, bounds-checked when
    constant (errors call the axes `names`, the caller's axis numbers)."""
    shape = _shape(x)
    try:
        batch = tuple(_np.broadcast_shapes(*(_shape(i) for i in arrays)))
    except ValueError:
        raise ShapeError(f"op '{op}': index arrays of shapes {', '.join(str(_shape(i)) for i in arrays)} "
                         "do not broadcast") from None
    out = []
    for axis, i in enumerate(arrays):
        if isinstance(i, _np.ndarray):
            bad = i[(i < -shape[axis]) | (i >= shape[axis])]
            if bad.size:
                raise ShapeError(f"op '{op}': index {bad.flat[0]} is out of bounds for axis "
                                 f"{axis if names is None else names[axis]} with size {shape[axis]}")
            out.append(_np.array(_np.broadcast_to(i, batch)))
        else:
            out.append(i if i.shape == batch else broadcast_to(i, batch))
    return bind("gather", x, *out)


def take(a, indices, axis=None):
    """numpy's `take`: the elements at `indices` (an int, an int array or an int tracer) along `axis`
    (None: of the flattened array); the index dimensions replace the axis."""
    if axis is None:
        a, axis = ravel(a), 0
    rank = _ndim(a)
    axis = _axis(axis, rank, "take")
    index = _index_array(indices, "take")
    y = _gather(moveaxis(a, axis, 0), [index], "take", [axis])
    n = len(_shape(index))
    return _permute(y, [*range(n, n + axis), *range(n), *range(n + axis, rank - 1 + n)])


def take_along_axis(arr, indices, axis):
    """numpy's `take_along_axis`: `indices` (of arr's rank) pick along `axis`; the other axes broadcast."""
    if axis is None:
        arr, axis = ravel(arr), 0
    shape = _shape(arr)
    axis = _axis(axis, len(shape), "take_along_axis")
    return _gather(arr, _along_axis(indices, shape, axis, "take_along_axis"), "take_along_axis")


def _along_axis(indices, shape, axis: int, op: str) -> list:
    """numpy's index of take/put_along_axis: `indices` (of the array's rank) along `axis`, every other
    axis's positions (broadcast against them)."""
    index = _index_array(indices, op)
    if len(_shape(index)) != len(shape):
        raise ShapeError(f"op '{op}': indices {_shape(index)} and arr {shape} must have the same rank")
    return [index if k == axis else _np.arange(d).reshape([-1 if j == k else 1 for j in range(len(shape))])
            for k, d in enumerate(shape)]


def ravel(a):
    """The elements as one axis, in row-major order."""
    return reshape(a, (-1,))


def flatten(a):
    """`a.flatten()`: the elements as one axis, in row-major order."""
    return ravel(a)


def moveaxis(a, source, destination):
    """numpy's `moveaxis`: axes `source` moved to positions `destination`, the others keeping their order."""
    rank = _ndim(a)
    src = [_axis(s, rank, "moveaxis") for s in _ints(source, "moveaxis", "source")]
    dst = [_axis(d, rank, "moveaxis") for d in _ints(destination, "moveaxis", "destination")]
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ShapeError(f"op 'moveaxis': source {source} and destination {destination} must be distinct axes, "
                         "as many of each")
    order = [k for k in range(rank) if k not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _permute(a, order)


def matrix_transpose(x, /):
    """numpy 2's `matrix_transpose`: the last two axes swapped (a stack of matrices transposed)."""
    if _ndim(x) < 2:
        raise ShapeError(f"op 'matrix_transpose': needs an array of rank >= 2, got shape {_shape(x)}")
    return swapaxes(x, -1, -2)


def permute_dims(a, /, axes=None):
    """numpy 2's `permute_dims`: `transpose`."""
    return transpose(a, axes)


def copy(a, order="K", subok=False):
    """numpy's `copy`. frame's values are never written in place, so the copy is the value itself."""
    return a if isinstance(a, Tracer) else _np.array(a, copy=True)


def _permute(x, perm):
    """`transpose(x, perm)`, or `x` itself for the identity."""
    return x if list(perm) == list(range(len(perm))) else transpose(x, perm)


def _triangle(m, k, op: str, lower: bool):
    shape = _shape(m)
    if not shape:
        raise ShapeError(f"op '{op}': needs an array of rank >= 1, got shape ()")
    keep = _np.tri(*shape[-2:], k=_int(k, op, "k"), dtype=bool)
    keep = keep if lower else ~_np.tri(*shape[-2:], k=_int(k, op, "k") - 1, dtype=bool)
    dtype = m.dtype if isinstance(m, (Tracer, _np.ndarray)) else _np.asarray(m).dtype
    return bind("where", keep, m, _np.zeros((), dtype))


def tril(m, k: int = 0):
    """numpy's `tril`: zeros above the k-th diagonal of the last two axes."""
    return _triangle(m, k, "tril", lower=True)


def triu(m, k: int = 0):
    """numpy's `triu`: zeros below the k-th diagonal of the last two axes."""
    return _triangle(m, k, "triu", lower=False)


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """numpy's `diagonal`: the `offset` diagonal of axes `axis1`/`axis2`, as the last axis."""
    rank = _ndim(a)
    if rank < 2:
        raise ShapeError(f"op 'diagonal': needs an array of rank >= 2, got shape {_shape(a)}")
    a1, a2, k = _axis(axis1, rank, "diagonal"), _axis(axis2, rank, "diagonal"), _int(offset, "diagonal", "offset")
    if a1 == a2:
        raise ShapeError(f"op 'diagonal': axis1 and axis2 cannot be the same ({a1})")
    y = moveaxis(a, (a1, a2), (-2, -1))
    *batch, n, m = _shape(y)
    length = builtins.max(0, builtins.min(n, m - k) if k >= 0 else builtins.min(n + k, m))
    start = k if k >= 0 else -k * m     # the diagonal, flattened: every (m + 1)-th element from `start`
    flat = reshape(y, (*batch, n * m))
    return getitem(flat, (Ellipsis, slice(start, start + (length - 1) * (m + 1) + 1 if length else start, m + 1)))


def diag(v, k: int = 0):
    """numpy's `diag`: the k-th diagonal of a 2-d array, or a 2-d array with 1-d `v` on its k-th diagonal."""
    shape, k = _shape(v), _int(k, "diag", "k")
    if len(shape) == 2:
        return diagonal(v, k)
    if len(shape) != 1:
        raise ShapeError(f"op 'diag': input must be 1-d or 2-d, got shape {shape}")
    n = shape[0]
    size = n + abs(k)
    start = k if k >= 0 else -k * size
    # v spread with `size` zeros between elements lands on the diagonal of the flattened square.
    lo = start if n else size * size
    spread = bind("pad", v, lo=(lo,), hi=(size * size - lo - (n - 1) * (size + 1) - 1 if n else 0,),
                  interior=(size,))
    return reshape(spread, (size, size))


def meshgrid(*xi, indexing: str = "xy", sparse: bool = False, copy: bool = True):
    """numpy's `meshgrid`: coordinate arrays of the (flattened) vectors `xi`; 'xy' swaps the first two axes."""
    if indexing not in ("xy", "ij"):
        raise ShapeError(f"op 'meshgrid': indexing must be 'xy' or 'ij', got {indexing!r}")
    n = len(xi)
    out = [reshape(x, [-1 if j == i else 1 for j in range(n)]) for i, x in enumerate(xi)]
    if indexing == "xy" and n > 1:
        out[0], out[1] = (reshape(x, [_shape(x)[1 - j] if j < 2 else 1 for j in range(n)]) for x in out[:2])
    if sparse:
        return tuple(out)
    full = tuple(_np.broadcast_shapes(*(_shape(x) for x in out)))
    return tuple(broadcast_to(x, full) for x in out)


def slice_axes(x, starts, stops, steps=None):
    """Basic slicing: `x[starts[i]:stops[i]:steps[i]]` along every axis (steps positive)."""
    steps = tuple(steps) if steps is not None else (1,) * len(starts)
    return bind("slice", x, starts=tuple(starts), stops=tuple(stops), steps=steps)


def _is_array_index(i) -> bool:
    return isinstance(i, Tracer) or (isinstance(i, _np.ndarray) and (i.ndim > 0 or i.dtype == _np.bool_))


def _expand(index, shape):
    """`index` as a tuple (lists as arrays) with `...` spelled out and a slice for every unindexed trailing axis."""
    index = tuple(_np.asarray(i) if isinstance(i, list) else i for i in (index if isinstance(index, tuple) else (index,)))
    if builtins.any(isinstance(i, (bool, _np.bool_)) or isinstance(i, _np.ndarray) and i.dtype == _np.bool_ and
                    i.ndim == 0 for i in index):
        raise ShapeError(f"scalar boolean indices are not supported, got {index}")
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        raise ShapeError(f"an index can only have a single ellipsis, got {index}")
    n_real = builtins.sum(_np.ndim(i) if isinstance(i, _np.ndarray) and i.dtype == _np.bool_ else 1
                          for i in index if i is not None and i is not Ellipsis)
    rank = len(shape)
    if n_real > rank:
        raise ShapeError(f"too many indices ({n_real}) for a value of shape {shape}")
    k = next((n for n, i in enumerate(index) if i is Ellipsis), None)
    if k is not None:
        return index[:k] + (slice(None),) * (rank - n_real) + index[k + 1:]
    return index + (slice(None),) * (rank - n_real)


def _symbolic_slice(i: slice, dim, axis: int):
    """(start, stop) of slice `i` of an axis of symbolic size `dim` (step 1 only; a negative bound counts
    from the end). numpy clamps bounds past the end, which cannot be decided for every size: the slice
    op's shape rule refuses a bound not known to lie in [0, dim]."""
    if i.step is not None and _int(i.step, "getitem", "a slice step") != 1:
        raise ShapeError(f"getitem: slice {i} of axis {axis}, whose size {dim} is symbolic, needs step 1")

    def bound(v, default):
        if v is None:
            return default
        v = _int(v, "getitem", "a slice bound")
        return v if isinstance(v, Dim) or v >= 0 else dim + v
    return bound(i.start, 0), bound(i.stop, dim)


def _basic(x, index):
    """`x[index]` for ints, slices (any step) and None, as rev + slice + reshape."""
    shape = _shape(x)
    starts, stops, steps, flipped, out_shape, axis = [], [], [], [], [], 0
    for i in index:
        if i is None:
            out_shape.append(1)
            continue
        dim = shape[axis]
        if isinstance(i, slice) and isinstance(dim, Dim):
            start, stop = _symbolic_slice(i, dim, axis)
            starts.append(start), stops.append(stop), steps.append(1)
            out_shape.append(stop - start)
        elif isinstance(i, slice):
            try:
                start, stop, step = slice(*(None if v is None else _int(v, "getitem", "a slice bound")
                                            for v in (i.start, i.stop, i.step))).indices(dim)
            except ValueError:  # a zero step
                raise ShapeError(f"slice {i} has step 0") from None
            n = len(range(start, stop, step))
            if step < 0:   # the same elements of the reversed axis, in its (positive) order
                flipped.append(axis)
                start, step = dim - 1 - start if n else 0, -step
            starts.append(start), stops.append(start + (n - 1) * step + 1 if n else start), steps.append(step)
            out_shape.append(n)
        else:
            try:
                k = operator.index(i)
            except TypeError:
                raise ShapeError(f"only integers, slices, None, ..., integer arrays and boolean masks are valid "
                                 f"indices, got {type(i).__name__} {i!r}") from None
            if not -dim <= k < dim:
                raise ShapeError(f"index {k} is out of bounds for axis {axis} with size {dim}")
            k %= dim
            starts.append(k), stops.append(k + 1), steps.append(1)
        axis += 1
    y = bind("rev", x, axes=tuple(flipped)) if flipped else x
    if (tuple(starts), tuple(steps)) != ((0,) * len(shape), (1,) * len(shape)) or tuple(stops) != tuple(shape):
        y = slice_axes(y, starts, stops, steps)
    if tuple(out_shape) != tuple(_shape(y)):
        y = reshape(y, out_shape)
    return y


def getitem(x, index):
    """`x[index]`: numpy's basic and advanced indexing (see the module docstring)."""
    shape = _shape(x)
    index = _expand(index, shape)
    if not builtins.any(_is_array_index(i) for i in index):
        return _basic(x, index)
    # Advanced: slices and None first, keeping an axis for every array (ints count as 0-d arrays here),
    # then one gather over those axes, moved to the front.
    basic, arrays, axis, y_axis = [], [], 0, 0
    for i in index:
        if i is None or isinstance(i, slice):
            basic.append(i)
            y_axis += 1
            axis += i is not None
            continue
        if isinstance(i, _np.ndarray) and i.dtype == _np.bool_:
            if i.shape != shape[axis:axis + i.ndim]:
                raise ShapeError(f"boolean index of shape {i.shape} does not match the indexed axes "
                                 f"{shape[axis:axis + i.ndim]} of shape {shape}")
            parts = list(_np.nonzero(i))
        else:
            parts = [_index_array(i, "getitem")]
        for part in parts:
            arrays.append((y_axis, axis, part))
            basic.append(slice(None))
            y_axis, axis = y_axis + 1, axis + 1
    y = _basic(x, basic)
    adv = [a for a, _, _ in arrays]
    rest = [a for a in range(len(_shape(y))) if a not in adv]
    g = _gather(_permute(y, adv + rest), [i for _, _, i in arrays], "getitem", [a for _, a, _ in arrays])
    nb = len(_shape(g)) - len(rest)
    if adv != list(range(adv[0], adv[0] + len(adv))) or adv[0] == 0:   # not adjacent: the index axes lead
        return g
    first = len([a for a in rest if a < adv[0]])
    return _permute(g, [*range(nb, nb + first), *range(nb), *range(nb + first, len(_shape(g)))])


# -- more of numpy's shape functions, compositions of the ones above ----------------------------
def broadcast_shapes(*shapes) -> tuple:
    """numpy's `broadcast_shapes`: the shape that arrays of `shapes` (ints or tuples) broadcast to."""
    shapes = [_ints(s, "broadcast_shapes", "a shape") for s in shapes]
    for s in shapes:
        if any(type(d) is not Dim and d < 0 for d in s):
            raise ShapeError(f"op 'broadcast_shapes': negative dimensions are not allowed, got shape {s}")
    return broadcast_dims("broadcast_shapes", *shapes)


def broadcast_arrays(*args) -> tuple:
    """numpy's `broadcast_arrays`: the arrays broadcast to their common shape, as a tuple (numpy 2)."""
    arrays = [asarray(a) for a in args]
    shape = broadcast_dims("broadcast_arrays", *(_shape(a) for a in arrays))
    return tuple(a if _shape(a) == shape else broadcast_to(a, shape) for a in arrays)


def _block_depth(x, where: str) -> int:
    """How deep the lists of `block`'s argument nest, the same for every block (numpy's rules)."""
    if isinstance(x, tuple):
        raise ShapeError(f"op 'block': {where} is a tuple; only lists arrange blocks")
    if not isinstance(x, list):
        return 0
    if not x:
        raise ShapeError(f"op 'block': the list {where} cannot be empty")
    depths = [_block_depth(e, f"{where}[{i}]") for i, e in enumerate(x)]
    for i, d in enumerate(depths):
        if d != depths[0]:
            raise ShapeError(f"op 'block': list depths are mismatched: {where}[0] holds lists {depths[0]} deep, "
                             f"{where}[{i}] {d} deep")
    return depths[0] + 1


def block(arrays):
    """numpy's `block`: one array assembled from nested lists of blocks. The innermost lists join
    along the last axis, the lists holding them along the one before, and so on; every block gets
    leading size-1 axes up to the result's rank and numpy's result dtype of all blocks."""
    depth = _block_depth(arrays, "arrays")
    leaves = [asarray(x) for x in _leaves(arrays)]
    rank = builtins.max(depth, *(_ndim(x) for x in leaves))
    dtype = _np.result_type(*(_dtype(x) for x in leaves)).name

    def assemble(x, level: int):
        if level == depth:
            x = _cast(asarray(x), dtype)
            return reshape(x, (1,) * (rank - _ndim(x)) + _shape(x))
        return concatenate([assemble(e, level + 1) for e in x], axis=level - depth)
    return assemble(arrays, 0)


def _split_along(ary, indices_or_sections, axis: int, rank: int, op: str) -> list:
    if _ndim(ary) < rank:
        raise ShapeError(f"op '{op}': needs an array of rank >= {rank}, got shape {_shape(ary)}")
    return split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections) -> list:
    """numpy's `hsplit`: `split` along axis 1 (axis 0 of a 1-d array)."""
    return _split_along(ary, indices_or_sections, 1 if _ndim(ary) > 1 else 0, 1, "hsplit")


def vsplit(ary, indices_or_sections) -> list:
    """numpy's `vsplit`: `split` along axis 0 of an array of rank >= 2."""
    return _split_along(ary, indices_or_sections, 0, 2, "vsplit")


def dsplit(ary, indices_or_sections) -> list:
    """numpy's `dsplit`: `split` along axis 2 of an array of rank >= 3."""
    return _split_along(ary, indices_or_sections, 2, 3, "dsplit")


def rollaxis(a, axis: int, start: int = 0):
    """numpy's `rollaxis`: axis `axis` moved to stand before axis `start` (in [-ndim, ndim])."""
    rank = _ndim(a)
    axis, first = _axis(axis, rank, "rollaxis"), _int(start, "rollaxis", "start")
    start = first + rank if first < 0 else first
    if not 0 <= start <= rank:
        raise ShapeError(f"op 'rollaxis': start {first} is out of range for rank {rank} (it must be in "
                         f"[{-rank}, {rank}])")
    order = [k for k in range(rank) if k != axis]
    order.insert(start - (axis < start), axis)
    return _permute(a, order)


def diagflat(v, k: int = 0):
    """numpy's `diagflat`: a 2-d array with the flattened `v` on its k-th diagonal."""
    return diag(ravel(as_operand(v)), k)


def insert(arr, obj, values, axis=None):
    """numpy's `insert`: `values` (cast to arr's dtype, broadcast) put before the entries `obj` of
    axis `axis` (None: of the flattened array). `obj` is an int, a slice, ints or a boolean mask and
    must be concrete, as the result shape depends on it; `values` may be traced. As numpy: one index
    inserts every value there (an int index first moves values' leading axis to `axis`), several
    insert one slice each."""
    if _has_tracer(obj):
        raise TraceError("op 'insert': where to insert fixes the result shape, so obj must be concrete, not traced")
    arr = as_operand(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    shape = _shape(arr)
    axis = _axis(axis, len(shape), "insert")
    n = shape[axis]
    where = _np.arange(n)[obj] if isinstance(obj, slice) else _np.asarray(obj)
    if where.size == 0:
        where = where.astype(_np.int64)
    if where.dtype.kind not in "iub" or where.ndim > 1 or (where.dtype == _np.bool_ and where.ndim == 0):
        raise ShapeError(f"op 'insert': obj must be an int, a slice, 1-d ints or a 1-d boolean mask, got {obj!r}")
    points = _np.flatnonzero(where) if where.dtype == _np.bool_ else where
    values = _cast(asarray(values), _dtype(arr))
    if points.size == 1:   # one insertion point: every value goes there
        values = reshape(values, (1,) * (len(shape) - _ndim(values)) + _shape(values))
        if points.ndim == 0:
            values = moveaxis(values, 0, axis)
        count = _shape(values)[axis]
    else:
        count = points.size
    target = shape[:axis] + (count,) + shape[axis + 1:]
    extra = _ndim(values) - len(target)     # numpy's assignment drops leading size-1 axes
    if extra > 0 and _shape(values)[:extra] == (1,) * extra:
        values = reshape(values, _shape(values)[extra:])
    try:
        values = broadcast_to(values, target)
        # numpy's own insertion on positions: old entries are 0..n-1, the new ones n, n+1, ...
        positions = _np.insert(_np.arange(n), points, _np.arange(n, n + count))
    except (IndexError, ValueError) as e:
        raise ShapeError(f"op 'insert': cannot insert values of shape {_shape(values)} at {obj!r} along axis "
                         f"{axis} of shape {shape}: {e}") from None
    return take(concatenate([arr, values], axis), positions, axis)


def trim_zeros(filt, trim="fb", axis=None):
    """numpy's `trim_zeros`: `filt` without its leading ('f') and/or trailing ('b') zeros (along
    `axis`, None: every axis). The result's shape depends on the values, so `filt` must be concrete:
    a traced `filt` raises TraceError."""
    if _has_tracer(filt):
        raise TraceError("op 'trim_zeros': the result's shape depends on where the zeros are, so filt must be "
                         "concrete, not traced")
    try:
        return _np.trim_zeros(filt, trim, axis)
    except (ValueError, TypeError, AttributeError) as e:
        raise ShapeError(f"op 'trim_zeros': {e} (trim={trim!r}, axis={axis!r}, shape {_shape(filt)})") from None


def resize(a, new_shape):
    """numpy's `resize`: the elements of `a`, flattened and repeated from the start as often as needed,
    in `new_shape`; zeros (in a's dtype) when `a` or `new_shape` is empty."""
    new_shape = _ints(new_shape, "resize", "new_shape")
    if any(d < 0 for d in new_shape):
        raise ShapeError(f"op 'resize': all elements of new_shape must be non-negative, got {new_shape}")
    flat = ravel(as_operand(a))
    n, size = _shape(flat)[0], math.prod(new_shape)
    if n == 0 or size == 0:
        return _np.zeros(new_shape, _dtype(flat))
    return reshape(getitem(tile(flat, -(-size // n)), slice(0, size)), new_shape)


def _not_in_place(inplace, op: str, what: str) -> None:
    if inplace:
        raise ShapeError(f"op '{op}': frame's arrays are immutable, so {op} cannot change {what} in place; call "
                         f"fnp.{op}(..., inplace=False) for the updated copy (as in jax.numpy)")


def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
    """numpy's `fill_diagonal` as jax.numpy's: arrays are immutable, so it needs `inplace=False` and
    returns the filled copy (the default inplace=True raises ShapeError). The diagonal is numpy's
    (every axis of equal length beyond 2-d; `wrap` continues a tall matrix's diagonal); the flattened
    `val`, cast to a's dtype, fills it repeated as needed. `val` may be traced; derivatives reach `a`
    off the diagonal and `val`."""
    _not_in_place(inplace, "fill_diagonal", "a")
    a = as_operand(a)
    shape = _shape(a)
    if len(shape) < 2:
        raise ShapeError(f"op 'fill_diagonal': a must be at least 2-d, got shape {shape}")
    if len(shape) > 2 and len(set(shape)) > 1:
        raise ShapeError(f"op 'fill_diagonal': every axis of a must have the same length, got shape {shape}")
    # numpy's positions in the flattened array: every `step`-th one (to the end of the square unless wrapping)
    step = shape[1] + 1 if len(shape) == 2 else 1 + int(_np.cumprod(shape[:-1]).sum())
    end = shape[1] * shape[1] if len(shape) == 2 and not wrap else None
    positions = _np.arange(math.prod(shape))[:end:step]
    val = ravel(as_operand(val))
    if positions.size == 0 or _shape(val)[0] == 0:   # numpy writes nothing
        return copy(a)
    filled = at(ravel(a))[positions].set(_cast(resize(val, positions.size), _dtype(a)))
    return reshape(filled, shape)


def put_along_axis(arr, indices, values, axis, *, inplace: bool = True):
    """numpy's `put_along_axis` as jax.numpy's: arrays are immutable, so it needs `inplace=False` and
    returns the updated copy (the default inplace=True raises ShapeError). `indices` (ints of arr's
    rank, concrete or traced; negative ones count from the end) pick positions along `axis` as in
    `take_along_axis`; `values`, cast to arr's dtype and broadcast to the indices, are written there
    (of repeated positions the last one). axis=None: along the flattened arr, the result in arr's
    shape. Derivatives reach `arr` where nothing is written, and `values`."""
    _not_in_place(inplace, "put_along_axis", "arr")
    arr = as_operand(arr)
    shape = _shape(arr)
    if axis is None and len(_shape(indices)) != 1:
        raise ShapeError(f"op 'put_along_axis': with axis=None, indices must be 1-d, got shape {_shape(indices)}")
    target = arr if axis is not None else ravel(arr)
    along = _axis(0 if axis is None else axis, len(_shape(target)), "put_along_axis")
    grids = _along_axis(indices, _shape(target), along, "put_along_axis")
    index, n = grids[along], _shape(target)[along]
    if isinstance(index, _np.ndarray) and index.size and not -n <= index.min() <= index.max() < n:
        bad = index[(index < -n) | (index >= n)].flat[0]
        raise ShapeError(f"op 'put_along_axis': index {bad} is out of bounds for axis {along} with size {n}")
    batch = broadcast_dims("put_along_axis", *(_shape(g) for g in grids))
    updated = at(target)[tuple(grids)].set(broadcast_to(_cast(asarray(values), _dtype(arr)), batch))
    return updated if axis is not None else reshape(updated, shape)


def _written(a, positions, values):
    """A copy of `a` whose flattened entries at `positions` (ints of a's size) are the 1-d, non-empty `values`, cast
    to a's dtype and repeated as needed (as numpy's put and place repeat them; the last of repeated positions wins)."""
    values = _cast(resize(values, _shape(positions)[0]), _dtype(a))
    return reshape(at(ravel(a))[positions].set(values), _shape(a))


def put(a, ind, v, mode="raise", *, inplace: bool = True):
    """numpy's `put` as jax.numpy's: arrays are immutable, so it needs `inplace=False` and returns the updated copy
    (the default inplace=True raises ShapeError). The flattened `a` gets the flattened `v` (cast to a's dtype, repeated
    as needed) at the flattened `ind` (ints; of repeated ones the last wins). mode 'raise' refuses indices out of
    [-size, size), which only a concrete `ind` can be checked for, so a traced one needs mode 'wrap' (indices modulo
    the size) or 'clip' (into [0, size - 1]). Derivatives reach `a` where nothing is written, and `v`."""
    _not_in_place(inplace, "put", "a")
    if mode not in ("raise", "wrap", "clip"):
        raise ShapeError(f"op 'put': mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    a, ind, v = as_operand(a), as_operand(ind), ravel(asarray(v))
    if not isinstance(ind, Tracer):
        ind = _np.asarray(ind)
        ind = ind.astype(_np.int64) if ind.size == 0 or ind.dtype == _np.bool_ else ind   # numpy: bools are 0 and 1
    elif ind.dtype == _np.bool_:
        ind = bind("convert", ind, dtype="int64")
    ind = ravel(_index_array(ind, "put"))
    n = math.prod(_shape(a))
    if _shape(ind)[0] == 0 or _shape(v)[0] == 0:   # numpy writes nothing
        return copy(a)
    if n == 0:
        raise ShapeError(f"op 'put': cannot replace elements of an empty array a of shape {_shape(a)}")
    if mode == "raise":
        if isinstance(ind, Tracer):
            raise TraceError("op 'put': mode 'raise' checks the indices, which a traced ind does not have (as jax.numpy "
                             "under jit); pass mode='wrap' or mode='clip'")
        bad = ind[(ind < -n) | (ind >= n)]
        if bad.size:
            raise ShapeError(f"op 'put': index {bad[0]} is out of bounds for a of size {n}")
        ind = ind % n
    else:
        ind = ind % n if mode == "wrap" else bind("minimum", bind("maximum", ind, 0), n - 1)
    return _written(a, ind, v)


def place(arr, mask, vals, *, inplace: bool = True):
    """numpy's `place` as jax.numpy's: arrays are immutable, so it needs `inplace=False` and returns the updated
    copy (the default inplace=True raises ShapeError). Where the flattened `mask` (truth values, arr's size) holds,
    the flattened `arr` takes the flattened `vals` in turn (cast to arr's dtype, repeated as needed). Which entries
    change fixes the scatter, so `mask` must be concrete (a traced one raises TraceError); `vals` may be traced.
    Derivatives reach `arr` where nothing is written, and `vals`."""
    _not_in_place(inplace, "place", "arr")
    if _has_tracer(mask):
        raise TraceError("op 'place': the entries to change must be known when tracing, so mask must be concrete, not "
                         "traced; use fnp.where(mask, values, arr) for a traced mask")
    arr, mask = as_operand(arr), _np.asarray(mask).astype(bool)
    if mask.size != math.prod(_shape(arr)):
        raise ShapeError(f"op 'place': mask of shape {mask.shape} and arr of shape {_shape(arr)} must have the same size")
    positions, vals = _np.flatnonzero(mask), ravel(asarray(vals))
    if positions.size == 0:
        return copy(arr)
    if _shape(vals)[0] == 0:
        raise ShapeError(f"op 'place': vals is empty, but mask selects {positions.size} entries to write")
    return _written(arr, positions, vals)


def apply_over_axes(func, a, axes):
    """numpy's `apply_over_axes`: `a = func(a, axis)` for each axis of `axes` in turn; a result one
    axis short gets that axis back with size 1, so the rank stays."""
    a = asarray(a)
    rank = _ndim(a)
    for axis in _ints(axes.tolist() if isinstance(axes, _np.ndarray) else axes, "apply_over_axes", "axes"):
        axis = axis + rank if axis < 0 else axis
        result = func(a, axis)
        if _ndim(result) != rank:
            result = expand_dims(result, axis)
            if _ndim(result) != rank:
                raise ShapeError(f"op 'apply_over_axes': func returned shape {_shape(result)} for axis {axis} of "
                                 f"shape {_shape(a)}; it must keep the rank or drop that axis")
        a = result
    return a


# -- functional updates: x.at[index].set(v) and friends (JAX's API) -----------------------------
class _Updates:
    """`x.at[index]`: `get()`, and `set/add/multiply/min/max(values)` returning the updated copy of `x`.

    `values` broadcast to the shape of `x[index]`. With duplicate positions `add` accumulates,
    `multiply`/`min`/`max` combine every duplicate, and `set` writes the last one (JAX leaves that
    choice unspecified; frame's derivative, like JAX's, reaches only the value written).
    """

    def __init__(self, x, index):
        self.x, rank = x, _ndim(x)
        if rank == 0:
            raise ShapeError("x.at[...] needs an array of rank >= 1, got a scalar")
        # The coordinates of x[index]: numpy's own indexing applied to each axis's grid of positions.
        self.coordinates = [getitem(g, index) for g in _np.indices(_shape(x), dtype=_np.int64)]

    def _values(self, values):
        dtype = self.x.dtype if isinstance(self.x, (Tracer, _np.ndarray)) else _np.asarray(self.x).dtype
        values = values if isinstance(values, Tracer) else _np.asarray(values, dtype=dtype)
        target = _shape(self.coordinates[0])
        return values if _shape(values) == target else broadcast_to(values, target)

    def _unique(self) -> bool:
        """Whether the positions are known to be distinct (all constant, no duplicates)."""
        if any(isinstance(c, Tracer) for c in self.coordinates):
            return False
        flat = _np.ravel_multi_index(self.coordinates, _shape(self.x))
        return _np.unique(flat).size == flat.size

    def get(self):
        return bind("gather", self.x, *self.coordinates)

    def add(self, values):
        return bind("scatter_add", self.x, self._values(values), *self.coordinates)

    def _scatter(self, values, mode):
        return bind("scatter", self.x, self._values(values), *self.coordinates, mode=mode, unique=self._unique())

    def set(self, values):
        return self._scatter(values, "set")

    def multiply(self, values):
        return self._scatter(values, "mul")

    def min(self, values):
        return self._scatter(values, "min")

    def max(self, values):
        return self._scatter(values, "max")


class _At:
    __slots__ = ("x",)

    def __init__(self, x):
        self.x = x

    def __getitem__(self, index):
        return _Updates(self.x, index)


def at(x):
    """JAX's `x.at` for any array: `fnp.at(x)[index].set(v)`; tracers have it as `x.at[index]`."""
    return _At(x)


Tracer.at = property(at)
