"""Reductions: `sum`, `mean`, `prod`, `max`/`min`, `argmax`/`argmin`, `argsort`, `cumsum`/`cumprod`, `logsumexp`,
`all`/`any`, `count_nonzero`.

Reductions over several axes take them sorted and non-negative (`axes`, frame.numpy normalises numpy's
`axis`); the index and running ops take one `axis`. Derivatives follow JAX: `max`/`min` share the
cotangent equally among ties, `prod` and `cumprod` are exact with zeros (no division by the operand),
and the truth tests and indices have none (zero gradients).
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType
from ..tracing import element_count, prim, traced_decomposition, traced_gradient
from . import rows_rules
from ..ir.registry import LINEAR, NodeContext, arity, normalize_axis, register_op, require_float

_AXES_ATTRS = {"axes": ((tuple,), True), "keepdims": ((bool,), False)}


def _check_axes(op: str, axes: tuple, rank: int) -> None:
    if any(not isinstance(a, int) or not 0 <= a < rank for a in axes) or len(set(axes)) != len(axes) \
            or list(axes) != sorted(axes):
        raise ShapeError(f"op '{op}': axes {axes} must be distinct, sorted and in [0, {rank}) for rank {rank}")


def reduced_shape(shape, axes, keepdims) -> tuple[int, ...]:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def sum_dtype(dtype: str) -> str:
    """numpy's accumulator for sums: bool and int32 add up in int64 (np.sum's rule)."""
    return "int64" if dtype in ("bool", "int32") else dtype


def _reduce_shape(operands: str, dtype=sum_dtype):
    """Shape rule of a reduction over `axes`: `operands` "float" or "any"; `dtype(x.dtype)` the result's."""
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 1)
        (x,) = ctx.input_types
        if operands == "float":
            require_float(ctx.op, x)
        axes = ctx.attrs["axes"]
        _check_axes(ctx.op, axes, x.rank)
        return [TensorType(reduced_shape(x.shape, axes, ctx.attrs.get("keepdims", False)), dtype(x.dtype), x.device)]
    return shape


def _expand(gy, x_shape, axes):
    """gy copied along the reduced axes back to x_shape (the gradient of sum): broadcast_to, after a
    reshape putting the reduced axes back as size 1 unless they are leading or kept (keepdims)."""
    if gy.ndim != len(x_shape) and tuple(axes) != tuple(range(len(axes))):
        gy = prim.reshape(gy, shape=reduced_shape(x_shape, axes, True))
    return prim.broadcast_to(gy, shape=tuple(x_shape))


def _sum_kernel(x, axes, keepdims=False):
    if not axes:
        # A sum over no axes is the identity (as `canonicalize` rewrites it); np.sum would add +0
        # and turn -0.0 into +0.0.
        return np.array(x, dtype=sum_dtype(x.dtype.name))
    return np.asarray(np.sum(x, axis=axes, keepdims=keepdims))


def _sum_numpy(e, x):
    if not e.attrs["axes"] and e.in_types[0] == e.out_type:   # the identity, like the kernel
        return f"{e.fn(np.positive)}({x}{e.out})"
    return f"{e.fn(np.add.reduce)}({x}, axis={e.attrs['axes']!r}, keepdims={bool(e.attrs.get('keepdims'))}{e.out})"


register_op(
    "sum", shape=_reduce_shape("any"), num_inputs=1, attrs=_AXES_ATTRS, traits=(LINEAR,), kernel=_sum_kernel,
    gradient=traced_gradient(lambda ctx, xs, ys, gys: [_expand(gys[0], xs[0].shape, ctx.attrs["axes"])]),
    doc="sum over `axes` (sorted, non-negative); keepdims keeps them as size 1", rows=rows_rules.reduce_sum,
    numpy=_sum_numpy, numpy_out=True, jax=lambda J, x, axes, keepdims=False: J.jnp.sum(x, axis=axes, keepdims=keepdims),
    frontend=["sum"])


def _mean_grad(ctx, xs, ys, gys):
    axes = ctx.attrs["axes"]
    count = element_count(xs[0], axes)   # a traced scalar for symbolic sizes
    return [_expand(gys[0], xs[0].shape, axes) * (1.0 / max(count, 1) if isinstance(count, int) else 1.0 / count)]


def _mean_decomposition(ctx, x):
    # sum / count, as np.mean computes it, including 0/0 = nan over empty axes (count is not
    # clamped to 1 here).
    axes = ctx.attrs["axes"]
    count = element_count(x, axes)
    return prim.sum(x, axes=axes, keepdims=bool(ctx.attrs.get("keepdims", False))) / (
        float(count) if isinstance(count, int) else count)


register_op(
    "mean", shape=_reduce_shape("float"), num_inputs=1, attrs=_AXES_ATTRS, traits=(LINEAR,),
    gradient=traced_gradient(_mean_grad), decomposition=traced_decomposition(_mean_decomposition),
    doc="arithmetic mean over `axes`",
    jax=lambda J, x, axes, keepdims=False: J.jnp.mean(x, axis=axes, keepdims=keepdims), frontend=["mean"])


# -- max and min: gradient split equally among ties (JAX's reduce_max/reduce_min) ---------------
def _nonempty(op: str, shape, axes) -> None:
    """numpy's rule: reducing over an axis of size 0 is an error when the reduction has no identity."""
    if any(shape[a] == 0 for a in axes):
        raise ShapeError(f"op '{op}': cannot reduce shape {shape} over axes {tuple(axes)}, which hold no elements "
                         f"('{op}' of nothing is undefined; numpy raises ValueError)")


def _extremum_grad(ctx, xs, ys, gys):
    """As JAX's reduce_max/reduce_min: gy spread over the positions equal to the result, each getting
    gy / (their count), so ties share it equally; the mask (a comparison) has zero derivative."""
    x, y, gy = xs[0], ys[0], gys[0]
    axes, keepdims = ctx.attrs["axes"], bool(ctx.attrs.get("keepdims", False))
    mask = prim.convert(prim.equal(x, _expand(y, x.shape, axes)), dtype=x.dtype.name)
    return [_expand(gy / prim.sum(mask, axes=axes, keepdims=keepdims), x.shape, axes) * mask]


def _extremum(name: str, fn, word: str):
    def shape(ctx: NodeContext):
        (t,) = _reduce_shape("any", dtype=lambda d: d)(ctx)
        _nonempty(ctx.op, ctx.input_types[0].shape, ctx.attrs["axes"])
        return [t]

    register_op(
        name, shape=shape, num_inputs=1, attrs=_AXES_ATTRS,
        kernel=lambda x, axes, keepdims=False: np.asarray(fn(x, axis=axes, keepdims=keepdims)),
        gradient=traced_gradient(_extremum_grad),
        doc=f"{word} over `axes` (an error over empty axes, as in numpy); the derivative is shared equally by ties",
        jax=lambda J, x, axes, keepdims=False: getattr(J.jnp, name)(x, axis=axes, keepdims=keepdims),
        frontend=[name, "a" + name])


_extremum("max", np.max, "maximum")
_extremum("min", np.min, "minimum")


# -- argmax and argmin: int64 indices along one axis, no derivative ------------------------------
def _along_axis_operand(ctx: NodeContext) -> TensorType:
    """The one operand of an op working along one axis (rank >= 1)."""
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    if x.rank == 0:
        raise ShapeError(f"op '{ctx.op}' needs an operand of rank >= 1 (frame.numpy flattens for axis=None), "
                         f"got shape {x.shape}")
    return x


def _arg_shape(ctx: NodeContext):
    x = _along_axis_operand(ctx)
    axis = normalize_axis(ctx.op, ctx.attrs["axis"], x.rank)
    if x.shape[axis] == 0:
        raise ShapeError(f"op '{ctx.op}': axis {axis} of shape {x.shape} is empty; numpy raises 'attempt to get "
                         f"{ctx.op} of an empty sequence'")
    return [TensorType(reduced_shape(x.shape, (axis,), ctx.attrs.get("keepdims", False)), "int64", x.device)]


for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    register_op(
        _name, shape=_arg_shape, num_inputs=1, attrs={"axis": ((int,), True), "keepdims": ((bool,), False)},
        kernel=lambda x, axis, keepdims=False, fn=_fn: np.asarray(fn(x, axis=axis, keepdims=keepdims), np.int64),
        gradient=traced_gradient(lambda ctx, xs, ys, gys: [None]),  # integer indices: zero derivative
        doc=f"the (first) index of the {_name[3:]}imum along `axis`, int64; not differentiable (zero gradient)",
        jax=lambda J, x, axis, keepdims=False, name=_name: getattr(J.jnp, name)(x, axis=axis, keepdims=keepdims),
        frontend=[_name])


# -- argsort: the stable sorting permutation along one axis, no derivative ------------------------
def _argsort_shape(ctx: NodeContext):
    x = _along_axis_operand(ctx)
    normalize_axis(ctx.op, ctx.attrs["axis"], x.rank)
    return [TensorType(x.shape, "int64", x.device)]


# Stable, as numpy's kind="stable" and jnp.argsort: ties keep their order, NaNs go last; `sort` is
# take_along_axis by these indices (frame.numpy), so its derivative is the gather's.
register_op(
    "argsort", shape=_argsort_shape, num_inputs=1, attrs={"axis": ((int,), True)},
    kernel=lambda x, axis: np.argsort(x, axis=axis, kind="stable").astype(np.int64, copy=False),
    gradient=traced_gradient(lambda ctx, xs, ys, gys: [None]),  # integer indices: zero derivative
    doc="the indices that sort `axis` ascending (stable: ties in order of appearance, NaNs last), int64; "
        "not differentiable (zero gradient)",
    jax=lambda J, x, axis: J.jnp.argsort(x, axis=axis, stable=True).astype("int64"))


# -- cumsum and cumprod along one axis, optionally from the end (lax.cumsum's `reverse`) ---------
def _cumulative_shape(ctx: NodeContext):
    x = _along_axis_operand(ctx)
    normalize_axis(ctx.op, ctx.attrs["axis"], x.rank)
    return [TensorType(x.shape, sum_dtype(x.dtype), x.device)]


def _cumulative(fn):
    def kernel(x, axis, reverse=False):
        dtype = sum_dtype(x.dtype.name)
        if reverse:
            return np.ascontiguousarray(np.flip(fn(np.flip(x, axis), axis=axis, dtype=dtype), axis))
        return fn(x, axis=axis, dtype=dtype)
    return kernel


def _shift(t, axis: int, d: int):
    """`out[i] = t[i - d]` along `axis`, zeros where `i - d` is outside (slice, then pad with zeros); |d| < n."""
    r, n = t.ndim, t.shape[axis]
    starts, stops, lo, hi = [0] * r, list(t.shape), [0] * r, [0] * r
    if d > 0:
        stops[axis], lo[axis] = n - d, d
    else:
        starts[axis], hi[axis] = -d, -d
    part = prim.slice(t, starts=tuple(starts), stops=tuple(stops), steps=(1,) * r)
    return prim.pad(part, lo=tuple(lo), hi=tuple(hi), interior=(0,) * r)


def _exclusive(y, axis: int, step: int):
    """The exclusive product from an inclusive cumprod `y` (accumulating in direction `step`): y shifted
    one place along, with 1 where nothing precedes."""
    n = y.shape[axis]
    first = np.zeros([n if i == axis else 1 for i in range(y.ndim)], y.dtype.name)
    first[(0,) * y.ndim if step == 1 else tuple(n - 1 if i == axis else 0 for i in range(y.ndim))] = 1
    return _shift(y, axis, step) + first if n > 1 else np.ones(y.shape, y.dtype.name)


def _cumprod_grad(ctx, xs, ys, gys):
    """Exact with zeros (no division by x). For y_j = prod_{k <= j} x_k (reverse: k >= j):
    gx_i = E_i S_i with E_i the product of the x_k before i (exclusive cumprod) and
    S_i = sum_{j >= i} gy_j prod_{i < k <= j} x_k, the linear recurrence S_i = gy_i + x_{i+1} S_{i+1}.
    It runs as a doubling (Hillis-Steele) scan: log2(n) rounds of shifts, products and sums, all ops
    with gradients, so the rule differentiates again."""
    x, y, gy = xs[0], ys[0], gys[0]
    axis, step = ctx.attrs["axis"] % x.ndim, -1 if ctx.attrs.get("reverse", False) else 1
    n = x.shape[axis]
    if n == 0:
        return [None]
    s, d = gy, 1
    a = _shift(x, axis, -step) if n > 1 else None      # a_i = x_{i+1}: the factor linking S_i to S_{i+1}
    while d < n:
        s = s + a * _shift(s, axis, -step * d)
        if 2 * d < n:
            a = a * _shift(a, axis, -step * d)
        d *= 2
    return [_exclusive(y, axis, step) * s]


def _cumulative_jax(name: str):
    def lower(J, x, axis, reverse=False):
        return getattr(J.lax, name)(x.astype(sum_dtype(np.dtype(x.dtype).name)), axis=axis % x.ndim, reverse=reverse)
    return lower


_CUMULATIVE_ATTRS = {"axis": ((int,), True), "reverse": ((bool,), False)}
register_op(
    "cumsum", shape=_cumulative_shape, num_inputs=1, attrs=_CUMULATIVE_ATTRS, traits=(LINEAR,),
    kernel=_cumulative(np.cumsum),
    gradient=traced_gradient(lambda ctx, xs, ys, gys: [prim.cumsum(gys[0], axis=ctx.attrs["axis"],
                                                                   reverse=not ctx.attrs.get("reverse", False))]),
    doc="running sums along `axis` (from the end when `reverse`); bool and int32 accumulate in int64",
    jax=_cumulative_jax("cumsum"), frontend=["cumsum"])
register_op(
    "cumprod", shape=_cumulative_shape, num_inputs=1, attrs=_CUMULATIVE_ATTRS, kernel=_cumulative(np.cumprod),
    gradient=traced_gradient(_cumprod_grad),
    doc="running products along `axis` (from the end when `reverse`); the derivative is exact with zeros",
    jax=_cumulative_jax("cumprod"), frontend=["cumprod"])


# -- prod: the derivative is the product of the other elements, exact with zeros -----------------
def _prod_grad(ctx, xs, ys, gys):
    """d prod / d x_i = prod_{k != i} x_k, as the exclusive cumprods from both ends multiplied (no
    division, so exact with zeros), over the reduced axes flattened into one last axis."""
    x, gy = xs[0], gys[0]
    axes = ctx.attrs["axes"]
    if not axes:
        return [gy]
    kept = [i for i in range(x.ndim) if i not in axes]
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    if n == 0:
        return [None]
    perm = tuple(kept) + tuple(axes)
    moved = prim.transpose(x, perm=perm) if perm != tuple(range(x.ndim)) else x
    flat = prim.reshape(moved, shape=tuple(x.shape[i] for i in kept) + (n,))
    others = _exclusive(prim.cumprod(flat, axis=-1), -1 % flat.ndim, 1) * \
        _exclusive(prim.cumprod(flat, axis=-1, reverse=True), -1 % flat.ndim, -1)
    g = prim.reshape(gy, shape=tuple(flat.shape[:-1]) + (1,)) * others
    g = prim.reshape(g, shape=tuple(moved.shape))
    return [prim.transpose(g, perm=tuple(np.argsort(perm).tolist())) if perm != tuple(range(x.ndim)) else g]


register_op(
    "prod", shape=_reduce_shape("any"), num_inputs=1, attrs=_AXES_ATTRS,
    kernel=lambda x, axes, keepdims=False: np.asarray(np.prod(x, axis=axes, keepdims=keepdims,
                                                              dtype=sum_dtype(x.dtype.name))),
    gradient=traced_gradient(_prod_grad),
    doc="product over `axes` (1 over empty axes); bool and int32 multiply in int64; the derivative is exact with zeros",
    jax=lambda J, x, axes, keepdims=False: J.jnp.prod(x, axis=axes, keepdims=keepdims,
                                                      dtype=sum_dtype(np.dtype(x.dtype).name)),
    frontend=["prod"])


# -- logsumexp (scipy.special's) -----------------------------------------------------------------
def _logsumexp_kernel(x, axes, keepdims=False):
    # scipy's shift: the max, or 0 where the max is not finite (all -inf, or an inf or nan present), so
    # exp never overflows and the infinities come out as scipy gives them. log(0) = -inf over empty axes.
    m = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m
    return out if keepdims else out.reshape(reduced_shape(x.shape, axes, False))


register_op(
    "logsumexp", shape=_reduce_shape("float"), num_inputs=1, attrs=_AXES_ATTRS, kernel=_logsumexp_kernel,
    # d/dx log sum exp x = exp(x - y) (the softmax), reusing the output y: stable, and differentiable again
    gradient=traced_gradient(lambda ctx, xs, ys, gys: [
        _expand(gys[0], xs[0].shape, ctx.attrs["axes"]) * prim.exp(xs[0] - _expand(ys[0], xs[0].shape, ctx.attrs["axes"]))]),
    doc="log(sum(exp(x))) over `axes`, computed stably (scipy.special.logsumexp)",
    jax=lambda J, x, axes, keepdims=False: J.nn.logsumexp(x, axis=axes, keepdims=keepdims), frontend=["logsumexp"])


# -- all, any, count_nonzero: truth tests of any dtype, no derivative ----------------------------
def _truth(name: str, fn, dtype: str, doc: str):
    register_op(
        name, shape=_reduce_shape("any", dtype=lambda d: dtype), num_inputs=1, attrs=_AXES_ATTRS,
        kernel=lambda x, axes, keepdims=False: np.asarray(fn(x, axis=axes, keepdims=keepdims), dtype),
        gradient=traced_gradient(lambda ctx, xs, ys, gys: [None]),  # a bool or integer result: zero derivative
        doc=doc + " over `axes`; not differentiable (zero gradient)",
        jax=lambda J, x, axes, keepdims=False: getattr(J.jnp, name)(x, axis=axes, keepdims=keepdims),
        frontend=[name])


_truth("all", np.all, "bool", "whether every element is nonzero (True over empty axes)")
_truth("any", np.any, "bool", "whether some element is nonzero (False over empty axes)")
_truth("count_nonzero", np.count_nonzero, "int64", "the number of nonzero elements, int64")
