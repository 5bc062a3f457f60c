"""frame.lax's products and convolutions: dot_general and conv_general_dilated (see frame.lax)."""
from __future__ import annotations

import numpy as _np

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _ints, _shape
from ..frontend.numpy_linalg import _contract
from ..tracing import bind
from ._common import _builtin_max, _operands_same_dtype, _rank_axes
from ._reduce import _pairs, padtype_to_pads


def _result_type(out, preferred_element_type):
    if preferred_element_type is None or _dtype(out) == _np.dtype(preferred_element_type).name:
        return out
    return fnp.astype(out, _np.dtype(preferred_element_type).name)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, **unused):
    """lax.dot_general: contraction of lhs and rhs over `dimension_numbers` = ((lhs_contract, rhs_contract),
    (lhs_batch, rhs_batch)); the result's axes are batch, lhs free, rhs free. One batched matmul (numpy's
    `_contract`)."""
    x, y = _operands_same_dtype("dot_general", (lhs, rhs))
    (lc, rc), (lb, rb) = dimension_numbers
    xs, ys = _shape(x), _shape(y)
    lc, rc = _rank_axes("dot_general", lc, len(xs)), _rank_axes("dot_general", rc, len(ys))
    lb, rb = _rank_axes("dot_general", lb, len(xs)), _rank_axes("dot_general", rb, len(ys))
    if (len(lc) != len(rc) or len(lb) != len(rb) or set(lc) & set(lb) or set(rc) & set(rb)
            or any(xs[a] != ys[b] for a, b in zip(lc + lb, rc + rb))):
        raise ShapeError(f"lax.dot_general: dimension_numbers {dimension_numbers} do not match shapes {xs} and {ys} "
                         f"(paired contracting and batch dimensions of equal sizes)")
    # _contract's result axes are batch, lhs free, rhs free: lax's order
    return _result_type(_contract(x, y, lc, rc, (lb, rb)), preferred_element_type)


def dot(lhs, rhs, precision=None, preferred_element_type=None, *, dimension_numbers=None, **unused):
    """lax.dot: vector/matrix products of rank-1 or rank-2 operands (lhs's last axis with rhs's first), or
    dot_general with `dimension_numbers`."""
    if dimension_numbers is not None:
        return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)
    nl, nr = len(_shape(lhs)), len(_shape(rhs))
    if nl not in (1, 2) or nr not in (1, 2):
        raise ShapeError(f"lax.dot takes rank-1 or rank-2 operands, got shapes {_shape(lhs)} and {_shape(rhs)}")
    return dot_general(lhs, rhs, (((nl - 1,), (0,)), ((), ())), precision, preferred_element_type)


def batch_matmul(lhs, rhs, precision=None):
    """lax.batch_matmul: matrix products over equal leading (batch) axes."""
    nl, nr = len(_shape(lhs)), len(_shape(rhs))
    if nl < 2 or nl != nr or _shape(lhs)[:-2] != _shape(rhs)[:-2]:
        raise ShapeError(f"lax.batch_matmul needs operands of one rank >= 2 and equal batch axes, got "
                         f"{_shape(lhs)} and {_shape(rhs)}")
    return dot_general(lhs, rhs, (((nl - 1,), (nl - 2,)), (tuple(range(nl - 2)), tuple(range(nl - 2)))), precision)


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """lax.conv_dimension_numbers: (lhs, rhs, out) permutations to (N, C, spatial), (O, I, spatial) and
    (N, C, spatial), from strings like ('NHWC', 'HWIO', 'NHWC'), permutations, or None (NC..., OI..., NC...).
    Spatial axes follow the order of their letters in the rhs string."""
    rank = len(lhs_shape)
    if dimension_numbers is None:
        return (tuple(range(rank)),) * 3
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if not all(isinstance(s, str) for s in dimension_numbers):
        return tuple(tuple(int(i) for i in s) for s in dimension_numbers)
    if not (len(lhs_spec) == len(rhs_spec) == len(out_spec) == rank) or \
            set(lhs_spec) - set("NC") != set(rhs_spec) - set("OI") or set(out_spec) - set("NC") != set(
                rhs_spec) - set("OI"):
        raise ShapeError(f"lax: dimension_numbers {dimension_numbers} do not name the {rank} axes of lhs "
                         f"{tuple(lhs_shape)} and rhs {tuple(rhs_shape)}")

    def perm(spec, pair):
        spatial = sorted((i for i, c in enumerate(spec) if c not in pair), key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)
    return perm(lhs_spec, "NC"), perm(rhs_spec, "OI"), perm(out_spec, "NC")


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count=1, batch_group_count=1, precision=None,
                         preferred_element_type=None, **unused):
    """lax.conv_general_dilated on frame's `conv` op: layouts by `dimension_numbers`, padding 'VALID', 'SAME',
    'SAME_LOWER' or (lo, hi) pairs (negative crops), both dilations, `feature_group_count` groups."""
    x, w = _operands_same_dtype("conv_general_dilated", (lhs, rhs))
    if batch_group_count != 1:
        raise ShapeError("lax.conv_general_dilated: frame's conv has no batch_group_count (it must be 1)")
    lp, rp, op = conv_dimension_numbers(_shape(x), _shape(w), dimension_numbers)
    x, w = fnp.transpose(x, lp), fnp.transpose(w, rp)
    nd = len(_shape(x)) - 2
    strides = _ints(tuple(window_strides), "conv_general_dilated", "window_strides")
    ld = (1,) * nd if lhs_dilation is None else _ints(tuple(lhs_dilation), "conv_general_dilated", "lhs_dilation")
    rd = (1,) * nd if rhs_dilation is None else _ints(tuple(rhs_dilation), "conv_general_dilated", "rhs_dilation")
    if not len(strides) == len(ld) == len(rd) == nd:
        raise ShapeError(f"lax.conv_general_dilated: window_strides {strides}, lhs_dilation {ld}, rhs_dilation {rd} "
                         f"need {nd} entries (the spatial axes) for lhs {_shape(lhs)}")
    if isinstance(padding, str):
        if any(d != 1 for d in ld):
            raise ShapeError("lax.conv_general_dilated: string padding with lhs_dilation is not defined (as in lax); "
                             "give (lo, hi) pairs")
        kernel = tuple((k - 1) * d + 1 for k, d in zip(_shape(w)[2:], rd))
        pairs = padtype_to_pads(_shape(x)[2:], kernel, strides, padding)
    else:
        pairs = _pairs("conv_general_dilated", padding, nd)
    out = bind("conv", x, w, strides=strides, lo=tuple(p[0] for p in pairs), hi=tuple(p[1] for p in pairs),
               lhs_dilation=ld, rhs_dilation=rd, groups=int(feature_group_count))
    return _result_type(fnp.transpose(out, tuple(_np.argsort(op).tolist())), preferred_element_type)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """lax.conv: conv_general_dilated in layouts (N, C, spatial) and (O, I, spatial), no dilation."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, precision=None,
                              preferred_element_type=None):
    """lax.conv_with_general_padding: conv_general_dilated in the default layouts."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _transpose_pads(k: int, s: int, padding):
    """(lo, hi) padding of the s-dilated input for the transposed convolution of an effective kernel size k, from
    the forward convolution's padding: 'SAME' gives in * s outputs, 'VALID' in * s + max(k - s, 0) (Keras's
    Conv2DTranspose sizes), a forward pair (p_lo, p_hi) the k - 1 - p on each side that make it the gradient."""
    if padding == "SAME":
        total = k + s - 2
        lo = k - 1 if s > k - 1 else -(-total // 2)
        return lo, total - lo
    if padding == "VALID":
        return k - 1, s - 1 + _builtin_max(k - s, 0)
    return k - 1 - padding[0], k - 1 - padding[1]


def _default_layout(rank: int):
    # lax's conv_transpose defaults to TensorFlow's channels-last layouts
    spatial = "HWD"[:rank - 2]
    if rank < 2 or rank > 5:
        raise ShapeError(f"lax.conv_transpose: no default dimension_numbers for rank {rank}; give them")
    return "N" + spatial + "C", spatial + "IO", "N" + spatial + "C"


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None, transpose_kernel=False,
                   precision=None, preferred_element_type=None, use_consistent_padding=False):
    """lax.conv_transpose: the fractionally strided convolution, conv_general_dilated of lhs dilated by `strides`
    with unit window strides. 'SAME'/'VALID' padding names the forward convolution's (outputs in * s, or
    in * s + max(k - s, 0)); (lo, hi) pairs are the transposed convolution's own padding unless
    `use_consistent_padding`, when they are the forward's. `transpose_kernel` flips the kernel's spatial axes and
    swaps its channel axes (the gradient of conv_general_dilated). Layouts default to NHWC, HWIO, NHWC."""
    x, w = _operands_same_dtype("conv_transpose", (lhs, rhs))
    if len(_shape(x)) != len(_shape(w)):
        raise ShapeError(f"lax.conv_transpose: lhs {_shape(x)} and rhs {_shape(w)} must have one rank")
    rank = len(_shape(x))
    dn = conv_dimension_numbers(_shape(x), _shape(w), dimension_numbers or _default_layout(rank))
    strides = _ints(tuple(strides), "conv_transpose", "strides")
    rd = (1,) * (rank - 2) if rhs_dilation is None else _ints(tuple(rhs_dilation), "conv_transpose", "rhs_dilation")
    if len(strides) != rank - 2 or len(rd) != rank - 2:
        raise ShapeError(f"lax.conv_transpose: strides {strides} and rhs_dilation {rd} need {rank - 2} entries (the "
                         f"spatial axes) for lhs {_shape(x)}")
    kernel = tuple(_shape(w)[a] for a in dn[1][2:])
    named = isinstance(padding, str)
    if named and padding not in ("SAME", "VALID"):
        raise ShapeError(f"lax.conv_transpose: padding must be 'SAME', 'VALID' or (lo, hi) pairs, got {padding!r}")
    if named or use_consistent_padding:
        forward = [padding] * (rank - 2) if named else _pairs("conv_transpose", padding, rank - 2)
        pads = [_transpose_pads((k - 1) * d + 1, s, p) for k, d, s, p in zip(kernel, rd, strides, forward)]
    else:
        pads = _pairs("conv_transpose", padding, rank - 2)
    if transpose_kernel:
        w = fnp.flip(w, tuple(dn[1][2:]))
        perm = list(range(rank))
        perm[dn[1][0]], perm[dn[1][1]] = dn[1][1], dn[1][0]
        w = fnp.transpose(w, tuple(perm))
    return conv_general_dilated(x, w, (1,) * (rank - 2), pads, strides, rd, dn, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                                 dimension_numbers=None, precision=None, preferred_element_type=None):
    """lax.conv_general_dilated_patches: each output position's patch of `filter_shape` (all input channels) in the
    output's channel axis, channel-major (c * prod(filter_shape) + patch offset): conv_general_dilated with an
    identity kernel per channel (feature_group_count = channels), so strides, padding and dilations are its."""
    x = _operands_same_dtype("conv_general_dilated_patches", (lhs,))[0]
    filter_shape = _ints(tuple(filter_shape), "conv_general_dilated_patches", "filter_shape")
    if len(filter_shape) != len(_shape(x)) - 2:
        raise ShapeError(f"lax.conv_general_dilated_patches: filter_shape {filter_shape} needs one size per spatial "
                         f"axis of lhs {_shape(x)}")
    lp, rp, op = conv_dimension_numbers(_shape(x), (1, 1) + filter_shape, dimension_numbers)
    size, channels = int(_np.prod(filter_shape)), _shape(x)[lp[1]]
    # kernel (channels * size, 1, *filter_shape): output channel c * size + j picks patch offset j of channel c
    eye = _np.broadcast_to(_np.eye(size, dtype=_dtype(x)), (channels, size, size))
    kernel = _np.moveaxis(eye.reshape((channels * size, 1) + filter_shape), (0, 1), (rp[0], rp[1]))
    return conv_general_dilated(x, kernel, window_strides, padding, lhs_dilation, rhs_dilation, (lp, rp, op),
                                feature_group_count=channels, precision=precision,
                                preferred_element_type=preferred_element_type)
