"""Sequence and segment functions built from frame's existing ops (issue 18, items 3 and 4).

- `associative_scan(fn, elems, reverse=False, axis=0)`: `jax.lax.associative_scan`'s semantics.
- `segment_sum/segment_max/segment_min(data, segment_ids, num_segments=None, ...)`:
  `jax.ops.segment_sum/max/min`'s semantics (out-of-range ids are dropped, as JAX's default mode).
  They are `frame.nn.segment_*` (and `frame.segment_*`), not `frame.numpy` functions: numpy has no
  segment reductions, and JAX keeps them in `jax.ops`, outside `jax.numpy`.
- The sequence reverse is `frame.numpy.flip(x, axis)` (the `rev` op, linear, its own adjoint):
  nothing more is needed for it, and `associative_scan(..., reverse=True)` uses it.

Why frontend composites and not registry ops: each function is a fixed composition of ops that
already carry every fact (kernel, gradient, closure, numpy/native emission, JAX lowering, batching,
row rules): `slice`, `concat`, `reshape` and `rev` for the scan, `scatter_add`/`scatter` and
`where` for the segments. Their derivatives are then derivatives of those ops, differentiable to
any order by the existing transforms, and `to_jax` lowers the traced graph as JAX itself would
(`jax.lax.associative_scan` is also a composite of slices, concatenations and pads, not a JAX
primitive). A region op would only add a second, hand-written derivative to keep in agreement.
"""
from __future__ import annotations

import numpy as _np

from ..errors import ShapeError
from ..tracing import Tracer, bind
from .args import _axis, _dtype, _int, _shape
from .numpy_shape import concatenate, flip, reshape, stack
from .pytree import tree_flatten, tree_unflatten

__all__ = ["associative_scan", "segment_sum", "segment_max", "segment_min"]


# -- associative_scan ------------------------------------------------------------------------------
def _slice(x, axis: int, start: int, stop: int, step: int = 1):
    """x[start:stop:step] along `axis` (0 <= start <= stop <= len, positive step)."""
    shape = _shape(x)
    starts = tuple(start if a == axis else 0 for a in range(len(shape)))
    stops = tuple(stop if a == axis else d for a, d in enumerate(shape))
    steps = tuple(step if a == axis else 1 for a in range(len(shape)))
    return bind("slice", x, starts=starts, stops=stops, steps=steps)


def _interleave(even, odd, axis: int):
    """[e0, o0, e1, o1, ...] along `axis`, for len(even) == len(odd) or len(odd) + 1.

    Stacking the pairs on a new axis after `axis` and merging the two is exact for every dtype
    (JAX's pad-and-add form adds zeros, which turns -0.0 into 0.0 and needs `or` for bools)."""
    n_odd = _shape(odd)[axis]
    head = even if _shape(even)[axis] == n_odd else _slice(even, axis, 0, n_odd)
    shape = _shape(odd)
    pairs = reshape(stack([head, odd], axis=axis + 1), shape[:axis] + (2 * n_odd,) + shape[axis + 1:])
    if head is even:
        return pairs
    return concatenate([pairs, _slice(even, axis, n_odd, n_odd + 1)], axis=axis)


def associative_scan(fn, elems, reverse: bool = False, axis: int = 0):
    """All prefix combinations of `elems` along `axis` under the associative `fn`, as
    `jax.lax.associative_scan(fn, elems, reverse, axis)`.

    `elems` is a pytree of arrays (numpy arrays or tracers) with one common length `n` along
    `axis`; `fn(a, b)` combines two pytrees of `elems`' structure whose leaves are slices along
    `axis` of equal length (it must work elementwise along `axis`, as JAX requires) and returns
    one of the same structure and shapes. The result has `elems`' structure, and its element `i`
    along `axis` is `fn(... fn(fn(e_0, e_1), e_2) ..., e_i)`. With `reverse` it is JAX's scan of the
    flipped sequence, flipped back: `fn(... fn(fn(e_{n-1}, e_{n-2}), e_{n-3}) ..., e_i)` (the later
    elements on the left).

    The parallel-prefix algorithm (Blelloch's, as JAX's): combine adjacent pairs, scan the half as
    long sequence recursively, then combine each odd prefix with the next even element and
    interleave. That is O(log n) levels, each a constant number of vectorised slices,
    concatenations and calls of `fn`, so the traced graph has O(log n) nodes and its
    derivatives (any order) come from those ops' own rules.
    """
    leaves, tree = tree_flatten(elems)
    if not leaves:
        raise ShapeError("frame.associative_scan: elems must hold at least one array, got an empty pytree")
    leaves = [x if isinstance(x, Tracer) else _np.asarray(x) for x in leaves]
    ranks = {len(_shape(x)) for x in leaves}
    if min(ranks) == 0:
        raise ShapeError("frame.associative_scan: every leaf of elems needs the scanned axis; got a scalar among "
                         f"shapes {[_shape(x) for x in leaves]}")
    axes = [_axis(axis, len(_shape(x)), "associative_scan") for x in leaves]
    lengths = {_shape(x)[a] for x, a in zip(leaves, axes)}
    if len(lengths) != 1:
        raise ShapeError(f"frame.associative_scan: every leaf must have the same length along axis {axis}, got shapes "
                         f"{[_shape(x) for x in leaves]}")
    if reverse:
        leaves = [flip(x, a) for x, a in zip(leaves, axes)]

    def combine(a_leaves, b_leaves):
        out, out_tree = tree_flatten(fn(tree_unflatten(tree, a_leaves), tree_unflatten(tree, b_leaves)))
        if out_tree != tree:
            raise ShapeError(f"frame.associative_scan: fn must return the structure of elems {tree}, got {out_tree}")
        for o, a in zip(out, a_leaves):
            if _shape(o) != _shape(a) or _dtype(o) != _dtype(a):
                raise ShapeError(f"frame.associative_scan: fn must keep its operands' shapes and dtypes (elementwise "
                                 f"along the scanned axis): operands {_dtype(a)}{list(_shape(a))}, result "
                                 f"{_dtype(o)}{list(_shape(o))}")
        return out

    def scan(xs):
        n = _shape(xs[0])[axes[0]]
        if n < 2:
            return xs
        # Pairs (x0, x1), (x2, x3), ...: their prefixes are the results at the odd positions 1, 3, 5, ...
        pairs = n // 2
        odd = scan(combine([_slice(x, a, 0, 2 * pairs - 1, 2) for x, a in zip(xs, axes)],
                           [_slice(x, a, 1, 2 * pairs, 2) for x, a in zip(xs, axes)]))
        # Even positions 2, 4, ...: the odd prefix before each combined with the element itself.
        k = (n - 1) // 2
        if k:
            rest = combine([_slice(o, a, 0, k) for o, a in zip(odd, axes)],
                           [_slice(x, a, 2, 2 * k + 1, 2) for x, a in zip(xs, axes)])
            even = [concatenate([_slice(x, a, 0, 1), r], axis=a) for x, r, a in zip(xs, rest, axes)]
        else:
            even = [_slice(x, a, 0, 1) for x, a in zip(xs, axes)]
        return [_interleave(e, o, a) for e, o, a in zip(even, odd, axes)]

    out = scan(leaves)
    if reverse:
        out = [flip(x, a) for x, a in zip(out, axes)]
    return tree_unflatten(tree, out)


# -- segment reductions ------------------------------------------------------------------------------
def _segment_args(fn: str, data, segment_ids, num_segments):
    """(data, ids, num_segments, dump): the ids as int64/int32 of a leading-axes prefix of data's shape;
    `dump` is True when some id may lie outside [0, num_segments) and must be routed to a spare row."""
    ids = segment_ids if isinstance(segment_ids, Tracer) else _np.asarray(segment_ids)
    id_dtype = _dtype(ids)
    if id_dtype not in ("int32", "int64") and not (isinstance(ids, _np.ndarray) and ids.dtype.kind in "iu"):
        raise ShapeError(f"{fn}: segment_ids must be an integer array, got {id_dtype}")
    if isinstance(ids, _np.ndarray):
        ids = ids.astype(_np.int64)
    ds, ids_shape = _shape(data), _shape(ids)
    if len(ids_shape) == 0 or ds[:len(ids_shape)] != ids_shape:
        raise ShapeError(f"{fn}: segment_ids of shape {ids_shape} must match the leading axes of data {ds} "
                         "(one id per item along them)")
    if num_segments is None:
        if isinstance(ids, Tracer):
            raise ShapeError(f"{fn}: num_segments is needed with traced segment_ids (the result's shape must not "
                             "depend on traced values)")
        num_segments = int(ids.max()) + 1 if ids.size else 0
    num_segments = _int(num_segments, fn, "num_segments")
    if num_segments < 0:
        raise ShapeError(f"{fn}: num_segments must be >= 0, got {num_segments}")
    if isinstance(ids, _np.ndarray):
        dump = bool(_np.any((ids < 0) | (ids >= num_segments)))
        if dump:
            ids = _np.where((ids >= 0) & (ids < num_segments), ids, num_segments)
    else:
        dump = True
        inside = bind("logical_and", ids >= 0, ids < num_segments)
        ids = bind("where", inside, ids, _np.asarray(num_segments, ids.dtype))
    return data, ids, num_segments, dump


def _segment(fn: str, data, segment_ids, num_segments, mode: str):
    data = data if isinstance(data, Tracer) else _np.asarray(data)
    data, ids, n, dump = _segment_args(fn, data, segment_ids, num_segments)
    ds, k = _shape(data), len(_shape(ids))
    dtype = _np.dtype(_dtype(data))
    rows = n + 1 if dump else n   # out-of-range ids land in one spare last row, sliced off after
    out_shape = (rows,) + ds[k:]
    if mode == "add":
        init = _np.zeros(out_shape, dtype)
    elif mode == "mul":
        if dtype.kind not in "fiu":
            raise ShapeError(f"{fn}: data must be a real float or integer array, got {dtype}")
        init = _np.ones(out_shape, dtype)
    elif dtype.kind == "f":
        init = _np.full(out_shape, -_np.inf if mode == "max" else _np.inf, dtype)
    elif dtype.kind in "iu":
        info = _np.iinfo(dtype)
        init = _np.full(out_shape, info.min if mode == "max" else info.max, dtype)
    else:
        raise ShapeError(f"{fn}: data must be a real float or integer array, got {dtype}")
    if mode == "add":
        out = bind("scatter_add", init, data, ids)
    else:
        out = bind("scatter", init, data, ids, mode=mode, unique=False)
    return _slice(out, 0, 0, n) if dump else out


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted: bool = False, unique_indices: bool = False):
    """The sums of `data` over the items of each segment, as `jax.ops.segment_sum`.

    `segment_ids` (ints, the shape of data's leading axes, usually (num_items,)) names each item's
    segment; the result is (num_segments,) + data.shape[ids.ndim:], with 0 for empty segments.
    (JAX takes 1-D ids only; frame's ids of k axes are the same as those axes of ids and data flattened.)
    Ids outside [0, num_segments) are dropped (they contribute nothing), as in JAX's default mode;
    negative ids do not count from the end. `num_segments` may be left None for constant ids only
    (then max(id) + 1, as JAX outside jit). `indices_are_sorted` and `unique_indices` are JAX's
    hints and change nothing here. Differentiable in `data` (the gradient gathers the cotangent of
    each item's segment); the integer ids get no gradient.
    """
    return _segment("frame.segment_sum", data, segment_ids, num_segments, "add")


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted: bool = False, unique_indices: bool = False):
    """The maxima of `data` over each segment, as `jax.ops.segment_max`: empty segments hold -inf
    (the dtype's minimum for integers); out-of-range ids are dropped. The gradient goes to the items
    equal to their segment's maximum, shared evenly between ties (JAX's scatter-max rule)."""
    return _segment("frame.segment_max", data, segment_ids, num_segments, "max")


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted: bool = False,
                 unique_indices: bool = False):
    """The products of `data` over each segment, as `jax.ops.segment_prod`: empty segments hold 1;
    out-of-range ids are dropped. Not differentiable when a segment holds several items (a
    GradientError, as JAX's scatter_mul raises NotImplementedError there)."""
    return _segment("frame.segment_prod", data, segment_ids, num_segments, "mul")


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted: bool = False, unique_indices: bool = False):
    """The minima of `data` over each segment, as `jax.ops.segment_min`: empty segments hold +inf
    (the dtype's maximum for integers); out-of-range ids are dropped; ties share the gradient."""
    return _segment("frame.segment_min", data, segment_ids, num_segments, "min")
