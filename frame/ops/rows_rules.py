"""Row rules: how an op treats independent rows, read by the row partition (frame/compiler/rows.py).

Collocation points, samples and other batch rows are independent in most training graphs: every
value either has one axis that runs over the rows of the inputs, or does not depend on them, until
a reduction sums over the rows. The row partition computes such a graph on chunks of rows in
parallel and adds the chunks' partial sums. An op's `rows` fact says how the op maps row axes:

    rule(ctx, axes, n) -> Rows | None

- `ctx`: the node's `NodeContext` (its input types for the whole row count, and attrs);
- `axes[i]`: the row axis of operand i, or None for an operand that does not depend on the rows;
- `n`: the row count of one chunk (rules use it only for the chunk's attrs);
- `Rows.out`: per output, its row axis, or `SUM` when the op sums over the rows (the chunks'
  results are partial sums that add up to the whole one);
- `Rows.attrs`: the node's attrs for a chunk of `n` rows (None: unchanged);
- `Rows.needs`: `(operand, axis)` pairs of row-free operands whose `axis` runs over the rows too
  (a constant of ones seeding a gradient has the row count without depending on the inputs); the
  partition slices or resizes them, or gives up when it cannot;
- None: the op mixes rows in a way that is no sum (the partition then leaves the graph whole).

Every rule must be exact: a wrong one would give wrong numbers, where a missing one only gives up
the parallelism. ELEMENTWISE ops take `elementwise` without saying so.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.registry import NodeContext

SUM = "sum"


@dataclass(frozen=True)
class Rows:
    out: tuple
    attrs: dict | None = None
    needs: tuple = ()


def _aligned(ctx: NodeContext, axes, out_rank: int):
    """The one output axis the row-wise operands' row axes align to (numpy broadcasting aligns
    trailing axes), or None when they disagree."""
    found = {a + out_rank - ctx.input_types[i].rank for i, a in enumerate(axes) if a is not None}
    return found.pop() if len(found) == 1 else None


def _row_free_needs(ctx: NodeContext, axes, out_axis: int, out_rank: int, skip=()) -> tuple:
    """Row-free operands that reach the output's row axis with more than one element."""
    needs = []
    for i, t in enumerate(ctx.input_types):
        if axes[i] is None and i not in skip:
            p = out_axis - (out_rank - t.rank)
            if p >= 0 and t.shape[p] != 1:
                needs.append((i, p))
    return tuple(needs)


def elementwise(ctx: NodeContext, axes, n) -> Rows | None:
    """Broadcasting elementwise ops: the row axis passes through, aligned from the right."""
    rank = max(t.rank for t in ctx.input_types)
    axis = _aligned(ctx, axes, rank)
    if axis is None:
        return None
    return Rows((axis,), needs=_row_free_needs(ctx, axes, axis, rank))


def matmul(ctx: NodeContext, axes, n) -> Rows | None:
    """op(a) @ op(b): rows of op(a) stay rows (axis -2), columns of op(b) stay columns (axis -1); rows
    on the contracted axis of both operands make the product a sum over them. Row axes among the
    batch axes pass through as in elementwise ops."""
    a, b = ctx.input_types
    a_t, b_t = ctx.attr("transpose_a", False), ctx.attr("transpose_b", False)
    rank = max(a.rank, b.rank)
    # the roles of each operand's last two axes: a is (m, k) or (k, m); b is (k, n) or (n, k)
    last = [{a.rank - 2: "k" if a_t else "m", a.rank - 1: "m" if a_t else "k"},
            {b.rank - 2: "n" if b_t else "k", b.rank - 1: "k" if b_t else "n"}]
    roles = [None if ax is None else last[i].get(ax, "batch") for i, ax in enumerate(axes)]
    if "k" in roles:
        if any(r not in ("k", None) for r in roles):
            return None
        k_axis = [next(ax for ax, r in last[i].items() if r == "k") for i in (0, 1)]
        return Rows((SUM,), needs=tuple((i, k_axis[i]) for i in (0, 1) if roles[i] is None))
    if roles == ["m", None]:
        return Rows((rank - 2,))
    if roles == [None, "n"]:
        return Rows((rank - 1,))
    if set(roles) <= {"batch", None}:
        axis = _aligned(ctx, axes, rank)
        return None if axis is None else Rows((axis,), needs=_row_free_needs(ctx, axes, axis, rank))
    return None   # rows times rows along m and n: an outer product of rows, not a row-wise value


def reduce_sum(ctx: NodeContext, axes, n) -> Rows | None:
    """A sum over the row axis is a partial sum; otherwise the row axis moves left past the axes
    summed before it (without keepdims)."""
    (a,) = axes
    summed = ctx.attrs["axes"]
    if a in summed:
        return Rows((SUM,))
    if ctx.attr("keepdims", False):
        return Rows((a,))
    return Rows((a - sum(1 for s in summed if s < a),))


def reshape_rows(in_shape, axis: int, pre: int, post: int, rows: int, shape) -> tuple[int, int, int] | None:
    """Where a reshape puts the rows of its operand, whose axis `axis` holds pre x rows x post
    elements in row-major order (a row axis merged with its neighbours, as a batch axis folded into
    a GEMM's rows): (b, pre', post') when they land in output axis b as pre' x rows x post', else None.

    The row index has the flat stride S = post * prod(in_shape[axis+1:]); it is one digit of output
    axis b (stride T, extent E) exactly when T divides S and rows * S divides T * E. The same holds
    with any other row count, so a chunk's reshape is this one with pre' x n x post' at b."""
    stride = post * _prod(in_shape[axis + 1:])
    for b in range(len(shape)):
        t = _prod(shape[b + 1:])
        if stride % t == 0 and (t * shape[b]) % (rows * stride) == 0:
            return b, t * shape[b] // (rows * stride), stride // t
    return None


def reshape(ctx: NodeContext, axes, n) -> Rows | None:
    """The row axis survives a reshape that keeps it as one axis, with the same elements before and
    after it; the chunk's shape holds `n` there. (The row partition also follows rows merged with
    other axes and split out again: `reshape_rows`.)"""
    (a,) = axes
    x = ctx.input_types[0]
    shape = ctx.attrs["shape"]
    found = reshape_rows(x.shape, a, 1, 1, x.shape[a], shape)
    if found is None or found[1:] != (1, 1):
        return None
    b = found[0]
    return Rows((b,), {**ctx.attrs, "shape": (*shape[:b], n, *shape[b + 1:])})


def transpose(ctx: NodeContext, axes, n) -> Rows | None:
    (a,) = axes
    return Rows((list(ctx.attrs["perm"]).index(a),))


def broadcast_to(ctx: NodeContext, axes, n) -> Rows | None:
    """The row axis of the operand (aligned from the right) keeps running over the rows."""
    (a,) = axes
    shape = ctx.attrs["shape"]
    b = a + len(shape) - ctx.input_types[0].rank
    return Rows((b,), {**ctx.attrs, "shape": (*shape[:b], n, *shape[b + 1:])})


def _prod(dims) -> int:
    out = 1
    for d in dims:
        out *= d
    return out


def concat(ctx: NodeContext, axes, n) -> Rows | None:
    """Joining along another axis keeps the rows; joining along the row axis (interior points with
    boundary points) mixes them."""
    rank = ctx.input_types[0].rank
    axis = ctx.attrs["axis"] % rank
    found = {a for a in axes if a is not None}
    if len(found) != 1 or axis in found:
        return None
    (a,) = found
    needs = tuple((i, a) for i, t in enumerate(ctx.input_types) if axes[i] is None)
    return Rows((a,), needs=needs)


def slice_(ctx: NodeContext, axes, n) -> Rows | None:
    """A slice that keeps every row (x[:, 0:1]) keeps the row axis; one that drops rows does not."""
    (a,) = axes
    starts, stops, steps = (ctx.attrs[k] for k in ("starts", "stops", "steps"))
    if (starts[a], stops[a], steps[a]) != (0, ctx.input_types[0].shape[a], 1):
        return None
    return Rows((a,), {**ctx.attrs, "stops": (*stops[:a], n, *stops[a + 1:])})


def pad(ctx: NodeContext, axes, n) -> Rows | None:
    """Padding other axes (the adjoint of such a slice) keeps the row axis."""
    (a,) = axes
    if any(ctx.attrs[k][a] for k in ("lo", "hi", "interior")):
        return None
    return Rows((a,))
