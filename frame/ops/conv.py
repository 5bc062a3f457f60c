"""Convolution, pooling and resampling ops (issue 18, seed 000's tier-2 list).

Layout is PyTorch's (and `lax.conv_general_dilated` with dimension numbers NC<spatial>/OI<spatial>):
an operand `x` is (N, C, *spatial), a kernel `w` is (C_out, C_in // groups, *kernel).

`conv` is one general op, JAX's `conv_general_dilated` in that fixed layout: per spatial axis the
operand is dilated by `lhs_dilation` (zeros between its elements), padded by `lo`/`hi` (negative
values crop), and the kernel, dilated by `rhs_dilation`, slides over it in steps of `strides`;
`groups` splits the channels into independent convolutions (`feature_group_count`). One op with
both dilations covers every convolution its derivatives need (ARCH-068):

- the gradient w.r.t. `x` is a `conv` of the cotangent with the kernel flipped in space and its
  channel axes swapped per group, `lhs_dilation` = the forward strides (a transposed convolution);
- the gradient w.r.t. `w` is a `conv` of `x` (its batch and channel axes swapped) with the
  cotangent as the kernel, `strides` and `rhs_dilation` exchanged; groups become the batch-channel
  pairing of `transpose`/`reshape` around it, so no batch_group_count is needed.

Both are JAX's transpose rules (lax's `_conv_general_dilated_transpose_lhs/rhs`, their padding
formulas included), so each derivative is a `conv` again and differentiates to any order.
`frame.nn.conv_transpose` is the same op with `lhs_dilation` = stride, as in lax.conv_transpose.
The op is BILINEAR: forward and Taylor modes derive its rules by the product rule.

Kernel: im2col as a strided view (`sliding_window_view`, no copy) of the dilated, padded operand,
one copy into (N, G, C_g * K, P) columns, and one batched GEMM against the kernel as (G, O_g, C_g * K).

Pooling ops pool the trailing `len(window)` axes of an operand of any rank (so vmap's extra leading
axis needs no rule of its own):

- `avg_pool`: the window sum over the zero-padded (and `lhs_dilation`-dilated) operand divided by
  the window size (PyTorch's count_include_pad=True). LINEAR; its adjoint is `avg_pool` again, with
  the transposed strides, dilation and padding (the window of ones is symmetric, so no flip).
- `max_pool`: the window max over the operand padded with -inf (PyTorch's max_pool). Its gradient
  sends each window's cotangent to the window's first maximum in row-major window order, as the
  gradient of JAX's `lax.reduce_window` max does (select_and_scatter_add with `ge`). Three
  `*_internal` helpers carry it: `max_pool_argmax_internal` (the tap index of that maximum, int32),
  `max_pool_scatter_internal` (cotangents placed at those taps: the gradient) and
  `max_pool_select_internal` (a tensor read at those taps: the tangent map). The last two are
  each other's adjoints in their float operand, and the argmax is piecewise constant (no
  gradient), so every order of derivative stays within the three.

`heaviside_surrogate` (issue 18's spiking-network op, here with the issue's other tier-2 ops): the unit
step forward, the surrogate derivative alpha s (1 - s) with s = sigmoid(alpha x) backward, ARCH-066's
one narrow exception to "the gradient is the forward's derivative".
"""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..errors import ShapeError
from ..ir.registry import (BILINEAR, ELEMENTWISE, INTERNAL, LINEAR, NodeContext, arity, register_op, require_float,
                           same_dtype)
from ..ir.types import TensorType
from ..tracing import bind, prim, traced_gradient
from .batching_rules import materialize, reshape, traced_batch

MAX_SPATIAL = 3   # 1-D, 2-D and 3-D (JAX's dimension-number strings below)


def dilated(n: int, d: int) -> int:
    """Length of a length-n axis with d - 1 zeros between its elements (lax's _dilate_shape)."""
    return 0 if n == 0 else 1 + d * (n - 1)


def _tuple_attr(op: str, attrs: dict, name: str, nd: int, default: int, low: int | None) -> tuple[int, ...]:
    value = attrs.get(name)
    if value is None:
        return (default,) * nd
    if len(value) != nd or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        raise ShapeError(f"op '{op}': {name} must be a tuple of {nd} ints (one per spatial axis), got {value!r}")
    if low is not None and any(v < low for v in value):
        raise ShapeError(f"op '{op}': {name} must be >= {low} on every spatial axis, got {value!r}")
    return tuple(int(v) for v in value)


def window_params(op: str, attrs: dict, nd: int) -> dict:
    """The spatial attributes of a conv/pool node, normalised (defaults: stride 1, no padding or dilation)."""
    return {"strides": _tuple_attr(op, attrs, "strides", nd, 1, 1),
            "lo": _tuple_attr(op, attrs, "lo", nd, 0, None), "hi": _tuple_attr(op, attrs, "hi", nd, 0, None),
            "lhs_dilation": _tuple_attr(op, attrs, "lhs_dilation", nd, 1, 1),
            "rhs_dilation": _tuple_attr(op, attrs, "rhs_dilation", nd, 1, 1)}


def output_spatial(op: str, spatial, kernel, p: dict, what: str = "kernel") -> tuple[int, ...]:
    """Output length per axis: floor((dilated(L, a) + lo + hi - dilated(K, d)) / s) + 1; refused when the
    (effective) kernel does not fit in the padded operand (PyTorch refuses it too; lax would give 0)."""
    out = []
    for axis, (n, k, s, lo, hi, a, d) in enumerate(zip(spatial, kernel, p["strides"], p["lo"], p["hi"],
                                                       p["lhs_dilation"], p["rhs_dilation"])):
        padded, eff = dilated(n, a) + lo + hi, dilated(k, d)
        if n < 1 or k < 1 or padded < eff:
            raise ShapeError(f"op '{op}': spatial axis {axis}: the {what} (size {k}, dilated {eff}) does not fit in "
                             f"the operand (size {n}, dilated and padded {padded}); operand spatial shape "
                             f"{tuple(spatial)}, {what} {tuple(kernel)}")
        out.append((padded - eff) // s + 1)
    return tuple(out)


def dilate_pad(x: np.ndarray, nd: int, lhs_dilation, lo, hi, fill=0.0) -> np.ndarray:
    """The trailing `nd` axes of `x` dilated (zeros between elements), padded by lo/hi with `fill`
    (negative lo/hi crop); `x` itself when there is nothing to do."""
    if all(a == 1 for a in lhs_dilation) and not any(lo) and not any(hi):
        return x
    lead = x.shape[:x.ndim - nd]
    spatial = x.shape[x.ndim - nd:]
    grown = [dilated(n, a) + max(l, 0) + max(h, 0) for n, a, l, h in zip(spatial, lhs_dilation, lo, hi)]
    # Only zero-filled operands are dilated (conv, avg_pool); max_pool's -inf fill has no dilation.
    assert fill == 0.0 or all(a == 1 for a in lhs_dilation)
    out = np.full(lead + tuple(grown), fill, x.dtype)
    out[(Ellipsis,) + tuple(slice(max(l, 0), max(l, 0) + dilated(n, a), a)
                            for n, a, l in zip(spatial, lhs_dilation, lo))] = x
    crop = tuple(slice(max(-l, 0), g - max(-h, 0)) for g, l, h in zip(grown, lo, hi))
    return out[(Ellipsis,) + crop]


def taps(xp: np.ndarray, nd: int, window, strides, out_spatial, dilation=None):
    """(tap index, view) for every window position: the strided view of `xp`'s trailing axes that tap
    `t` of every window reads (no copy), in row-major tap order."""
    dilation = dilation or (1,) * nd
    for i, tap in enumerate(np.ndindex(*window)):
        index = tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                      for t, d, o, s in zip(tap, dilation, out_spatial, strides))
        yield i, xp[(Ellipsis,) + index]


# -- conv ------------------------------------------------------------------------------------------
_CONV_ATTRS = {"strides": ((tuple,), False), "lo": ((tuple,), False), "hi": ((tuple,), False),
               "lhs_dilation": ((tuple,), False), "rhs_dilation": ((tuple,), False), "groups": ((int,), False)}


def _conv_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    x, w = ctx.input_types
    require_float(ctx.op, x)
    require_float(ctx.op, w)
    same_dtype(ctx.op, [x, w])
    if x.is_complex or w.is_complex:
        raise ShapeError(f"op 'conv' takes real float operands, got {x} and {w}")
    nd = x.rank - 2
    if not 1 <= nd <= MAX_SPATIAL or w.rank != x.rank:
        raise ShapeError(f"op 'conv' needs x of shape (N, C_in, *spatial) with 1 to {MAX_SPATIAL} spatial axes and "
                         f"w of shape (C_out, C_in // groups, *kernel) of the same rank, got x {x.shape} and "
                         f"w {w.shape}")
    groups = ctx.attr("groups", 1)
    if groups < 1:
        raise ShapeError(f"op 'conv': groups must be >= 1, got {groups}")
    (n, c_in), (c_out, c_w) = x.shape[:2], w.shape[:2]
    if c_in % groups or c_out % groups or c_w * groups != c_in:
        raise ShapeError(f"op 'conv': with groups={groups}, C_in ({c_in}) and C_out ({c_out}) must be multiples of "
                         f"groups and w.shape[1] ({c_w}) must be C_in // groups; x {x.shape}, w {w.shape}")
    p = window_params(ctx.op, ctx.attrs, nd)
    spatial = output_spatial(ctx.op, x.shape[2:], w.shape[2:], p)
    return [TensorType((n, c_out) + spatial, x.dtype, x.device)]


def conv_kernel(x, w, strides=None, lo=None, hi=None, lhs_dilation=None, rhs_dilation=None, groups=1):
    """The reference kernel: GEMMs over the dilated, padded operand, by one of three schedules (`conv_schedule`).

    - stride 1 with enough channels per group for a GEMM (>= 8) and fewer taps than output positions:
      one GEMM per kernel tap on the operand flattened over its padded spatial grid, where every tap
      reads a contiguous slice (the "flattened padded grid": output position q reads q + offset(tap));
      no im2col copy, then the valid positions are cut out of the padded grid.
    - a window larger than the output (a weight gradient's: the whole cotangent), one group, a batch
      of at least 8 and not too many output channels for it: one GEMM per output position, the
      operand flattened over (C, *padded grid) and the kernel placed on that grid (zeros between its
      rows), so that every position's window is one contiguous slice of each operand row.
    - otherwise im2col: a strided view (no copy) of the windows, one copy into columns, one batched
      GEMM; columns (C_g*K, P) when there are at least as many output positions P as window elements,
      else (P, C_g*K), so that the copy's inner loop runs over the longer axis (a weight gradient's
      window is the whole cotangent, its output the few kernel taps).
    """
    nd = x.ndim - 2
    p = window_params("conv", {"strides": strides, "lo": lo, "hi": hi, "lhs_dilation": lhs_dilation,
                               "rhs_dilation": rhs_dilation}, nd)
    out_spatial = output_spatial("conv", x.shape[2:], w.shape[2:], p)
    xp = dilate_pad(x, nd, p["lhs_dilation"], p["lo"], p["hi"])
    schedule = conv_schedule(x.shape, w.shape, p["strides"], out_spatial, groups)
    return SCHEDULES[schedule](xp, w, p["strides"], p["rhs_dilation"], out_spatial, groups)


def conv_schedule(x_shape, w_shape, strides, out_spatial, groups: int) -> str:
    """Which of conv_kernel's schedules computes a convolution: "taps", "positions" or "im2col"."""
    (n, c), c_out, kernel = x_shape[:2], w_shape[0], w_shape[2:]
    k, positions = math.prod(kernel), math.prod(out_spatial)
    if all(s == 1 for s in strides) and c // groups >= 8 and k <= positions and n * c_out:
        return "taps"
    if groups == 1 and positions < k and n >= 8 and c_out <= 4 * n and c:
        return "positions"
    return "im2col"


def _conv_by_im2col(xp, w, strides, dilation, out_spatial, groups):
    """im2col (see conv_kernel): windows as a strided view, one copy into columns, one batched GEMM."""
    nd = xp.ndim - 2
    n, c = xp.shape[:2]
    kernel, c_out = w.shape[2:], w.shape[0]
    cg, og = c // groups, c_out // groups
    k, positions = math.prod(kernel), math.prod(out_spatial)
    eff = tuple(dilated(kk, d) for kk, d in zip(kernel, dilation))
    view = sliding_window_view(xp, eff, axis=tuple(range(2, 2 + nd)))   # (N, C, *positions, *eff)
    view = view[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)
                + tuple(slice(None, None, d) for d in dilation)]         # (N, C, *out, *kernel)
    wm = w.reshape(groups, og, cg * k)
    if positions >= cg * k:
        view = view.transpose((0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd)))  # (N, C, *k, *out)
        cols = view.reshape(n, groups, cg * k, positions)
        out = np.matmul(wm, cols)                                         # (N, G, O_g, P)
    else:
        view = view.reshape((n, groups, cg) + view.shape[2:])             # (N, G, C_g, *out, *k)
        view = view.transpose((0, 1) + tuple(range(3, 3 + nd)) + (2,) + tuple(range(3 + nd, 3 + 2 * nd)))
        cols = view.reshape(n, groups, positions, cg * k)                # (N, G, P, C_g*K)
        out = np.matmul(cols, wm.swapaxes(-1, -2)).swapaxes(-1, -2)      # (N, G, O_g, P)
    return np.ascontiguousarray(out).reshape((n, c_out) + tuple(out_spatial))


def _conv_by_positions(xp, w, strides, dilation, out_spatial, groups=1):
    """One GEMM per output position over the flattened (C, *padded) grid (see conv_kernel); groups == 1."""
    n, c = xp.shape[:2]
    nd = xp.ndim - 2
    padded, kernel, c_out = xp.shape[2:], w.shape[2:], w.shape[0]
    step = [math.prod(padded[i + 1:]) for i in range(nd)]
    span = (c - 1) * math.prod(padded) + sum((dilated(k, d) - 1) * s for k, d, s in zip(kernel, dilation, step)) + 1
    flat = np.ascontiguousarray(xp).reshape(n, -1)
    grid = np.zeros((c_out, c) + padded, xp.dtype)
    grid[(slice(None), slice(None)) + tuple(slice(0, dilated(k, d), d) for k, d in zip(kernel, dilation))] = w
    kernel_rows = grid.reshape(c_out, -1)[:, :span].T                 # (span, C_out), a transposed view
    out = np.empty((math.prod(out_spatial), n, c_out), xp.dtype)
    for q, pos in enumerate(np.ndindex(*out_spatial)):
        offset = sum(i * s * st for i, s, st in zip(pos, strides, step))
        np.matmul(flat[:, offset:offset + span], kernel_rows, out=out[q])
    return np.ascontiguousarray(np.moveaxis(out, 0, -1)).reshape((n, c_out) + tuple(out_spatial))


def _conv_by_taps(xp, w, strides, dilation, out_spatial, groups):
    """Stride-1 convolution as one GEMM per tap over the flattened padded grid (see conv_kernel)."""
    kernel = w.shape[2:]
    n, c = xp.shape[:2]
    nd = len(kernel)
    padded = xp.shape[2:]
    c_out = w.shape[0]
    cg, og = c // groups, c_out // groups
    step = [math.prod(padded[i + 1:]) for i in range(nd)]              # flat distance of one step per axis
    span = sum((o - 1) * s for o, s in zip(out_spatial, step)) + 1     # flat positions, first to last output
    flat = np.ascontiguousarray(xp).reshape(n, groups, cg, -1)
    wt = np.ascontiguousarray(np.moveaxis(w.reshape(groups, og, cg, -1), -1, 0))   # (K, G, O_g, C_g)
    acc = np.empty((n, groups, og, out_spatial[0] * step[0]), xp.dtype)
    total, tmp = acc[..., :span], None
    for t, tap in enumerate(np.ndindex(*kernel)):
        offset = sum(i * d * s for i, d, s in zip(tap, dilation, step))
        part = flat[..., offset:offset + span]
        if tmp is None:
            np.matmul(wt[t], part, out=total)
            tmp = np.empty_like(total)
        else:
            np.matmul(wt[t], part, out=tmp)
            total += tmp
    grid = acc.reshape((n, c_out, out_spatial[0]) + padded[1:])        # rows of the padded grid ...
    return np.ascontiguousarray(grid[(Ellipsis,) + tuple(slice(0, o) for o in out_spatial[1:])])   # ... cut


SCHEDULES = {"taps": _conv_by_taps, "positions": _conv_by_positions, "im2col": _conv_by_im2col}


def _conv_attrs(strides, lo, hi, lhs_dilation, rhs_dilation, groups) -> dict:
    return {"strides": tuple(strides), "lo": tuple(lo), "hi": tuple(hi), "lhs_dilation": tuple(lhs_dilation),
            "rhs_dilation": tuple(rhs_dilation), "groups": int(groups)}


def conv(x, w, strides, lo, hi, lhs_dilation, rhs_dilation, groups):
    """Bind `conv` with every attribute spelled out (what the rules below emit)."""
    return bind("conv", x, w, **_conv_attrs(strides, lo, hi, lhs_dilation, rhs_dilation, groups))


def _split(x, axis: int, parts: int):
    """`x` with axis `axis` split into (parts, size // parts) (no node when parts == 1)."""
    shape = tuple(x.shape)
    if parts == 1:
        return x
    return reshape(x, shape[:axis] + (parts, shape[axis] // parts) + shape[axis + 1:])


def _transpose(x, perm):
    return x if tuple(perm) == tuple(range(len(perm))) else prim.transpose(x, perm=tuple(perm))


def _conv_grad(ctx, xs, ys, gys):
    x, w = xs
    g = gys[0]
    nd = x.ndim - 2
    groups = ctx.attr("groups", 1)
    p = window_params(ctx.op, ctx.attrs, nd)
    s, lo, a, d = p["strides"], p["lo"], p["lhs_dilation"], p["rhs_dilation"]
    spatial, kernel, out_spatial = tuple(x.shape[2:]), tuple(w.shape[2:]), tuple(g.shape[2:])
    n, c_in, c_out = x.shape[0], x.shape[1], w.shape[0]
    cg, og = c_in // groups, c_out // groups
    sp = tuple(range(2, 2 + nd))
    lhs_d = [dilated(L, ai) for L, ai in zip(spatial, a)]
    rhs_d = [dilated(K, di) for K, di in zip(kernel, d)]
    out_d = [dilated(O, si) for O, si in zip(out_spatial, s)]

    # d/dx: the cotangent convolved with the flipped kernel whose (out, in) channels are swapped within
    # each group: w (G*O_g, C_g, *k) -> (G, O_g, C_g, *k) -> (G, C_g, O_g, *k) -> (C_in, O_g, *k).
    wt = reshape(w, (groups, og, cg) + kernel)
    wt = reshape(_transpose(wt, (0, 2, 1) + tuple(range(3, 3 + nd))), (c_in, og) + kernel)
    wt = prim.rev(wt, axes=sp)
    pad_lo = [rd - l - 1 for rd, l in zip(rhs_d, lo)]
    pad_hi = [ld + rd - 1 - od - pl for ld, rd, od, pl in zip(lhs_d, rhs_d, out_d, pad_lo)]
    gx = conv(g, wt, a, pad_lo, pad_hi, s, d, groups)

    # d/dw: batch and channel axes exchanged, the cotangent as the kernel; per group g,
    # gw[g*O_g + o, c] = sum_n,p x[n, g*C_g + c] g[n, g*O_g + o]. x -> (C_g, G*N, *L), g -> (G*O_g, N, *O).
    xt = _split(x, 1, groups)                                   # (N, G, C_g, *L)
    xt = _transpose(xt, (2, 1, 0) + tuple(range(3, 3 + nd))) if groups > 1 else _transpose(xt, (1, 0) + sp)
    xt = reshape(xt, (cg, groups * n) + spatial)
    gt = _split(g, 1, groups)                                   # (N, G, O_g, *O)
    gt = _transpose(gt, (1, 2, 0) + tuple(range(3, 3 + nd))) if groups > 1 else _transpose(gt, (1, 0) + sp)
    gt = reshape(gt, (c_out, n) + out_spatial)
    hi_w = [(od - ld) + (rd - l - 1) for od, ld, rd, l in zip(out_d, lhs_d, rhs_d, lo)]
    gw = conv(xt, gt, d, lo, hi_w, a, s, groups)                # (C_g, C_out, *k)
    return [gx, _transpose(gw, (1, 0) + sp)]


def _conv_batch(ctx, xs, batched, size):
    """vmap folds the mapped axis into N (a batched operand, a shared kernel) or, for per-example
    kernels, into the groups: example b's channels become groups b*G .. b*G + G - 1."""
    x, w = xs
    bx, bw = batched
    t_x, t_w = ctx.input_types
    nd = t_x.rank - 2
    attrs = {**ctx.attrs, **window_params(ctx.op, ctx.attrs, nd)}
    groups = ctx.attr("groups", 1)
    (n, c), c_out = t_x.shape[:2], t_w.shape[0]
    out = ctx.output_types[0].shape
    if not bw:
        y = bind("conv", reshape(x, (size * n,) + t_x.shape[1:]), w, **attrs)
        return [reshape(y, (size,) + out)]
    x = materialize(x, bx, size)                                                    # (B, N, C, *L)
    xg = reshape(_transpose(x, (1, 0) + tuple(range(2, 3 + nd))), (n, size * c) + t_x.shape[2:])
    wg = reshape(w, (size * c_out,) + t_w.shape[1:])
    y = bind("conv", xg, wg, **{**attrs, "groups": groups * size})                  # (N, B*C_out, *O)
    y = reshape(y, (n, size, c_out) + out[2:])
    return [_transpose(y, (1, 0) + tuple(range(2, 3 + nd)))]


_DIMENSION_NUMBERS = {1: ("NCH", "OIH", "NCH"), 2: ("NCHW", "OIHW", "NCHW"), 3: ("NCDHW", "OIDHW", "NCDHW")}


def _conv_jax(J, x, w, groups=1, **attrs):
    nd = x.ndim - 2
    p = window_params("conv", attrs, nd)
    return J.lax.conv_general_dilated(x, w, window_strides=p["strides"], padding=list(zip(p["lo"], p["hi"])),
                                      lhs_dilation=p["lhs_dilation"], rhs_dilation=p["rhs_dilation"],
                                      dimension_numbers=_DIMENSION_NUMBERS[nd], feature_group_count=groups,
                                      precision=J.lax.Precision.HIGHEST)


register_op("conv", shape=_conv_shape, kernel=conv_kernel, num_inputs=2, attrs=_CONV_ATTRS, traits=(BILINEAR,),
            gradient=traced_gradient(_conv_grad), batch=traced_batch(_conv_batch), zero_operands=[0, 1],
            doc="N-d convolution (cross-correlation, as PyTorch and lax) of x (N, C_in, *spatial) with w "
                "(C_out, C_in // groups, *kernel): per spatial axis x dilated by lhs_dilation and padded by lo/hi "
                "(negative crops), w dilated by rhs_dilation, steps of strides; lax.conv_general_dilated",
            jax=_conv_jax)


# -- pooling -----------------------------------------------------------------------------------------
_POOL_ATTRS = {"window": ((tuple,), True), "strides": ((tuple,), False), "lo": ((tuple,), False),
               "hi": ((tuple,), False)}


def _window(op: str, attrs: dict, x: TensorType) -> tuple[int, ...]:
    window = attrs["window"]
    nd = len(window)
    if not 1 <= nd <= x.rank or not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= 1
                                        for k in window):
        raise ShapeError(f"op '{op}': window must be 1 to rank(x) ({x.rank}) ints >= 1 (the pooled trailing "
                         f"axes), got {window!r} for an operand of shape {x.shape}")
    return tuple(int(k) for k in window)


def _pool_type(ctx: NodeContext, x: TensorType) -> tuple[tuple[int, ...], dict, tuple[int, ...]]:
    """(window, spatial params, pooled shape) of a pooling node over x's trailing axes."""
    window = _window(ctx.op, ctx.attrs, x)
    nd = len(window)
    p = window_params(ctx.op, ctx.attrs, nd)
    spatial = output_spatial(ctx.op, x.shape[x.rank - nd:], window, p, "window")
    return window, p, x.shape[:x.rank - nd] + spatial


def _pool_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    require_float(ctx.op, x)
    if x.is_complex:
        raise ShapeError(f"op '{ctx.op}' takes a real float operand, got {x}")
    _, p, shape = _pool_type(ctx, x)
    if ctx.op == "max_pool" and (any(v < 0 for v in p["lo"] + p["hi"])):
        raise ShapeError(f"op 'max_pool': padding must be >= 0, got lo {p['lo']}, hi {p['hi']}")
    return [TensorType(shape, x.dtype, x.device)]


def _pool_setup(x, window, strides, lo, hi, lhs_dilation=None, fill=0.0):
    nd = len(window)
    p = window_params("pool", {"strides": strides, "lo": lo, "hi": hi, "lhs_dilation": lhs_dilation}, nd)
    out = output_spatial("pool", x.shape[x.ndim - nd:], window, p, "window")
    return nd, p, out, dilate_pad(x, nd, p["lhs_dilation"], p["lo"], p["hi"], fill)


def avg_pool_kernel(x, window, strides=None, lo=None, hi=None, lhs_dilation=None):
    """Window sums as one strided add per tap (K adds over the output), divided by the window size."""
    nd, p, out, xp = _pool_setup(x, window, strides, lo, hi, lhs_dilation)
    acc = np.zeros(x.shape[:x.ndim - nd] + out, x.dtype)
    for _, part in taps(xp, nd, window, p["strides"], out):
        acc += part
    acc /= x.dtype.type(math.prod(window))
    return acc


def _avg_pool_grad(ctx, xs, ys, gys):
    x, g = xs[0], gys[0]
    window = tuple(ctx.attrs["window"])
    nd = len(window)
    p = window_params(ctx.op, ctx.attrs, nd)
    spatial, out_spatial = tuple(x.shape[x.ndim - nd:]), tuple(g.shape[g.ndim - nd:])
    pad_lo = [k - l - 1 for k, l in zip(window, p["lo"])]
    pad_hi = [dilated(L, a) + k - 1 - dilated(O, s) - pl
              for L, a, k, O, s, pl in zip(spatial, p["lhs_dilation"], window, out_spatial, p["strides"], pad_lo)]
    return [bind("avg_pool", g, window=window, strides=p["lhs_dilation"], lo=tuple(pad_lo), hi=tuple(pad_hi),
                 lhs_dilation=p["strides"])]


def _pool_batch(ctx, xs, batched, size):
    """Pooling reads the trailing axes only: the batch axis is one more leading axis (a shared operand of
    the two-operand helpers is broadcast to it, as both operands have the same leading axes)."""
    return [bind(ctx.op, *[materialize(x, b, size) for x, b in zip(xs, batched)], **ctx.attrs)]


POOL_BATCH = traced_batch(_pool_batch)


def _reduce_window_jax(J, x, init, reducer, window, strides=None, lo=None, hi=None, lhs_dilation=None):
    nd = len(window)
    lead = x.ndim - nd
    p = window_params("pool", {"strides": strides, "lo": lo, "hi": hi, "lhs_dilation": lhs_dilation}, nd)
    # A numpy init stays concrete under jit, so lax picks its differentiable monoid reducer (a jnp one does not).
    return J.lax.reduce_window(x, np.asarray(init, x.dtype), reducer, (1,) * lead + tuple(window),
                               (1,) * lead + p["strides"], [(0, 0)] * lead + list(zip(p["lo"], p["hi"])),
                               base_dilation=(1,) * lead + p["lhs_dilation"])


def _avg_pool_jax(J, x, window, **attrs):
    return _reduce_window_jax(J, x, 0.0, J.lax.add, window, **attrs) / J.jnp.asarray(math.prod(window), x.dtype)


register_op("avg_pool", shape=_pool_shape, kernel=avg_pool_kernel, num_inputs=1,
            attrs={**_POOL_ATTRS, "lhs_dilation": ((tuple,), False)}, traits=(LINEAR,),
            gradient=traced_gradient(_avg_pool_grad), batch=POOL_BATCH,
            doc="mean over windows of the trailing len(window) axes, zero padding counted (PyTorch's "
                "count_include_pad=True): window sums of x dilated by lhs_dilation and padded by lo/hi, in steps "
                "of strides, divided by prod(window); its adjoint is avg_pool again",
            jax=_avg_pool_jax)


def max_pool_kernel(x, window, strides=None, lo=None, hi=None):
    nd, p, out, xp = _pool_setup(x, window, strides, lo, hi, fill=-np.inf)
    acc = None
    for _, part in taps(xp, nd, window, p["strides"], out):
        acc = part.copy() if acc is None else np.maximum(acc, part, out=acc)
    return acc


def _pool_attrs(ctx) -> dict:
    return {k: ctx.attrs[k] for k in ("window", "strides", "lo", "hi") if k in ctx.attrs}


def _max_pool_grad(ctx, xs, ys, gys):
    x = xs[0]
    nd = len(ctx.attrs["window"])
    index = bind("max_pool_argmax_internal", x, **_pool_attrs(ctx))
    return [bind("max_pool_scatter_internal", index, gys[0], shape=tuple(x.shape[x.ndim - nd:]), **_pool_attrs(ctx))]


register_op("max_pool", shape=_pool_shape, kernel=max_pool_kernel, num_inputs=1, attrs=_POOL_ATTRS,
            gradient=traced_gradient(_max_pool_grad), batch=POOL_BATCH,
            doc="max over windows of the trailing len(window) axes of x padded by lo/hi with -inf, in steps of "
                "strides (PyTorch's max_pool); the gradient goes to each window's first maximum (JAX's)",
            jax=lambda J, x, **attrs: _reduce_window_jax(J, x, -np.inf, J.lax.max, **attrs))


def _argmax_shape(ctx: NodeContext):
    (t,) = _pool_shape(ctx)
    return [TensorType(t.shape, "int32", t.device)]


def max_pool_argmax_kernel(x, window, strides=None, lo=None, hi=None):
    """The tap (row-major index within the window) of each window's first maximum; a nan wins, as in max.

    Branch-free per tap (index += better * (tap - index)): numpy's masked selects (np.where, copyto
    with where=) cost ~10 ns an element on the random masks pooling makes, the arithmetic ~0.5 ns."""
    nd, p, out, xp = _pool_setup(x, window, strides, lo, hi, fill=-np.inf)
    with_nan = bool(np.isnan(x).any())
    best, index = None, None
    for i, part in taps(xp, nd, window, p["strides"], out):
        if best is None:
            best, index = part.copy(), np.zeros(part.shape, np.int32)
            continue
        better = np.greater(part, best)              # strictly greater: the first maximum stays
        if with_nan:
            better |= np.isnan(part) & ~np.isnan(best)
            np.copyto(best, part, where=better)
        else:
            np.maximum(best, part, out=best)
        index += better * (np.int32(i) - index)
    return index


def _argmax_jax(J, x, window, strides=None, lo=None, hi=None):
    nd = len(window)
    p = window_params("pool", {"strides": strides, "lo": lo, "hi": hi}, nd)
    out = output_spatial("pool", x.shape[x.ndim - nd:], window, p, "window")
    xp = J.jnp.pad(x, [(0, 0)] * (x.ndim - nd) + list(zip(p["lo"], p["hi"])), constant_values=-np.inf)
    stacked = J.jnp.stack([part for _, part in taps(xp, nd, window, p["strides"], out)], axis=-1)
    # jnp.argmax returns the first maximum (and the first nan), as the kernel does.
    return J.jnp.argmax(stacked, axis=-1).astype("int32")


register_op("max_pool_argmax_internal", shape=_argmax_shape, kernel=max_pool_argmax_kernel, num_inputs=1,
            attrs=_POOL_ATTRS, traits=(INTERNAL,), gradient=traced_gradient(lambda ctx, xs, ys, gys: [None]),
            batch=POOL_BATCH,
            doc="int32 tap index (row-major within the window) of each max_pool window's first maximum",
            jax=_argmax_jax, taylor="zero")


_ROUTE_ATTRS = {**_POOL_ATTRS, "shape": ((tuple,), True)}


def _routed_shape(ctx: NodeContext, pooled: TensorType, index: TensorType) -> tuple[int, ...]:
    """The unpooled shape of a scatter/select node's operands (its `shape` attr is the pooled axes' sizes)."""
    if index.dtype != "int32" or index.shape != pooled.shape:
        raise ShapeError(f"op '{ctx.op}' needs an int32 index of the cotangent's shape, got {index} and {pooled}")
    require_float(ctx.op, pooled)
    window = _window(ctx.op, ctx.attrs, pooled)
    nd = len(window)
    spatial = tuple(ctx.attrs["shape"])
    if len(spatial) != nd:
        raise ShapeError(f"op '{ctx.op}': shape {spatial} must give one size per pooled axis ({nd})")
    full = pooled.shape[:pooled.rank - nd] + spatial
    p = window_params(ctx.op, ctx.attrs, nd)
    if output_spatial(ctx.op, spatial, window, p, "window") != pooled.shape[pooled.rank - nd:]:
        raise ShapeError(f"op '{ctx.op}': pooling shape {full} with window {window} does not give {pooled.shape}")
    return full


def _scatter_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    index, g = ctx.input_types
    return [TensorType(_routed_shape(ctx, g, index), g.dtype, g.device)]


def _select_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    index, t = ctx.input_types
    require_float(ctx.op, t)
    window = _window(ctx.op, ctx.attrs, t)
    nd = len(window)
    p = window_params(ctx.op, ctx.attrs, nd)
    if tuple(ctx.attrs["shape"]) != t.shape[t.rank - nd:]:
        raise ShapeError(f"op '{ctx.op}': shape {ctx.attrs['shape']} must be the operand's pooled axes "
                         f"{t.shape[t.rank - nd:]}")
    pooled = TensorType(t.shape[:t.rank - nd] + output_spatial(ctx.op, t.shape[t.rank - nd:], window, p, "window"),
                        t.dtype, t.device)
    _routed_shape(ctx, pooled, index)
    return [pooled]


def _finite(a: np.ndarray) -> bool:
    return a.dtype.kind != "f" or bool(np.isfinite(a).all())


def max_pool_scatter_kernel(index, g, window, shape, strides=None, lo=None, hi=None):
    """Each window's cotangent added at its selected tap: one masked strided write (windows apart) or add
    (overlapping windows) per tap, into the padded operand's shape, then cropped (taps in the padding
    receive nothing). The mask multiplies (branch-free) unless g holds an inf or nan, where 0 * inf
    would make a nan: then it selects."""
    nd = len(window)
    p = window_params("pool", {"strides": strides, "lo": lo, "hi": hi}, nd)
    out = g.shape[g.ndim - nd:]
    lead = g.shape[:g.ndim - nd]
    padded = np.zeros(lead + tuple(n + l + h for n, l, h in zip(shape, p["lo"], p["hi"])), g.dtype)
    apart = all(s >= k for s, k in zip(p["strides"], window))    # every position in one window at most
    finite = _finite(g)
    zero = g.dtype.type(0)
    for i, part in taps(padded, nd, window, p["strides"], out):
        hit = index == i
        if apart and finite:
            np.multiply(g, hit, out=part)
        else:
            part += g * hit if finite else np.where(hit, g, zero)
    if not any(p["lo"]) and not any(p["hi"]):
        return padded
    return np.ascontiguousarray(padded[(Ellipsis,) + tuple(slice(l, l + n) for l, n in zip(p["lo"], shape))])


def max_pool_select_kernel(index, t, window, shape, strides=None, lo=None, hi=None):
    """`t` read at each window's selected tap (zero where that tap is padding); branch-free as the scatter."""
    nd, p, out, tp = _pool_setup(t, window, strides, lo, hi)
    acc = np.zeros(t.shape[:t.ndim - nd] + out, t.dtype)
    finite = _finite(t)
    for i, part in taps(tp, nd, window, p["strides"], out):
        if finite:
            acc += part * (index == i)
        else:
            np.copyto(acc, part, where=index == i)
    return acc


def _scatter_jax(J, index, g, window, shape, strides=None, lo=None, hi=None):
    nd = len(window)
    p = window_params("pool", {"strides": strides, "lo": lo, "hi": hi}, nd)
    out = g.shape[g.ndim - nd:]
    lead = g.shape[:g.ndim - nd]
    padded = J.jnp.zeros(lead + tuple(n + l + h for n, l, h in zip(shape, p["lo"], p["hi"])), g.dtype)
    for i, tap in enumerate(np.ndindex(*window)):
        index_i = (Ellipsis,) + tuple(slice(t, t + (o - 1) * s + 1, s) for t, o, s in zip(tap, out, p["strides"]))
        padded = padded.at[index_i].add(J.jnp.where(index == i, g, J.jnp.zeros((), g.dtype)))
    return padded[(Ellipsis,) + tuple(slice(l, l + n) for l, n in zip(p["lo"], shape))]


def _select_jax(J, index, t, window, shape, strides=None, lo=None, hi=None):
    nd = len(window)
    p = window_params("pool", {"strides": strides, "lo": lo, "hi": hi}, nd)
    out = output_spatial("pool", shape, window, p, "window")
    tp = J.jnp.pad(t, [(0, 0)] * (t.ndim - nd) + list(zip(p["lo"], p["hi"])))
    acc = J.jnp.zeros(t.shape[:t.ndim - nd] + out, t.dtype)
    for i, part in taps(tp, nd, window, p["strides"], out):
        acc = J.jnp.where(index == i, part, acc)
    return acc


def _route_attrs(ctx) -> dict:
    return {k: ctx.attrs[k] for k in ("window", "strides", "lo", "hi", "shape") if k in ctx.attrs}


register_op("max_pool_scatter_internal", shape=_scatter_shape, kernel=max_pool_scatter_kernel, num_inputs=2,
            attrs=_ROUTE_ATTRS, traits=(INTERNAL, LINEAR),
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [
                None, bind("max_pool_select_internal", xs[0], gys[0], **_route_attrs(ctx))]),
            batch=POOL_BATCH, zero_operands=[1],
            doc="max_pool's gradient: each window's cotangent added at the tap `index` selects, in an operand of "
                "pooled-axes shape `shape`",
            jax=_scatter_jax)
register_op("max_pool_select_internal", shape=_select_shape, kernel=max_pool_select_kernel, num_inputs=2,
            attrs=_ROUTE_ATTRS, traits=(INTERNAL, LINEAR),
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [
                None, bind("max_pool_scatter_internal", xs[0], gys[0], **_route_attrs(ctx))]),
            batch=POOL_BATCH, zero_operands=[1],
            doc="max_pool's tangent map: `t` read at the tap `index` selects in each window",
            jax=_select_jax)


# -- heaviside_surrogate (issue 18 item 6; with the other tier-2 ops) -------------------------
def _heaviside_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    require_float(ctx.op, x)
    if x.is_complex:
        raise ShapeError(f"op 'heaviside_surrogate' takes a real float operand, got {x}")
    alpha = ctx.attrs["alpha"]
    if not (math.isfinite(alpha) and alpha > 0):
        raise ShapeError(f"op 'heaviside_surrogate': alpha must be a finite number > 0, got {alpha}")
    return [x]


def _heaviside_kernel(x, alpha):
    return np.greater_equal(x, 0).astype(x.dtype)


def _heaviside_grad(ctx, xs, ys, gys):
    # ARCH-066's one narrow exception (seed 000, M27): not the step's derivative (zero almost everywhere)
    # but the smooth surrogate d/dx sigmoid(alpha x) = alpha s (1 - s), s = sigmoid(alpha x), written with
    # differentiable ops, so higher derivatives keep transforming the surrogate's micro-graph.
    alpha = ctx.attrs["alpha"]
    s = prim.sigmoid(xs[0] * alpha)
    return [gys[0] * (alpha * (s * (1.0 - s)))]


def _heaviside_jax(J, x, alpha):
    """The step with the same surrogate as a custom JVP, so JAX's derivatives of every order are the
    surrogate's (JAX differentiates the JVP rule for the higher ones, as frame its gradient rule)."""
    jnp = J.jnp

    @J.jax.custom_jvp
    def step(x):
        return jnp.where(x >= 0, jnp.ones((), x.dtype), jnp.zeros((), x.dtype))

    @step.defjvp
    def step_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        s = J.nn.sigmoid(x * alpha)
        return step(x), t * (alpha * (s * (1.0 - s)))

    return step(x)


register_op("heaviside_surrogate", shape=_heaviside_shape, kernel=_heaviside_kernel, num_inputs=1,
            attrs={"alpha": ((float,), True)}, traits=(ELEMENTWISE,), gradient=traced_gradient(_heaviside_grad),
            doc="the unit step (1 where x >= 0, else 0; nan gives 0) whose derivative is the surrogate "
                "alpha s (1 - s), s = sigmoid(alpha x) (spiking networks; ARCH-066's one narrow exception)",
            jax=_heaviside_jax)
