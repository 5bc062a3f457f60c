"""`frame.nn`: convolution, pooling and resampling in PyTorch's layout and semantics (issue 18).

Operands are (N, C, *spatial) as in torch.nn.functional; kernels (C_out, C_in // groups, *kernel)
for `conv` and (C_in, C_out // groups, *kernel) for `conv_transpose`, as PyTorch stores them.
Every function works on numpy arrays (eagerly) and on tracers (inside `frame.function`, `grad`,
`vmap`, ...), and is built on the ops of frame/ops/conv.py (`conv`, `avg_pool`, `max_pool`) and
frame.numpy; bad arguments raise `ShapeError` naming the function and the shapes.

- `conv(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1)`: torch.nn.functional.conv1d/2d/3d;
  `padding` an int, one int per spatial axis, one (lo, hi) pair per axis, 'valid' or 'same'
  (PyTorch's: stride 1 only, the odd element of the padding after).
- `conv_transpose(x, w, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1)`:
  torch.nn.functional.conv_transpose1d/2d/3d (the gradient of `conv` w.r.t. its input), one
  `conv` op with lhs_dilation = stride, as lax.conv_transpose.
- `max_pool(x, kernel_size, stride=None, padding=0)`, `avg_pool(..., count_include_pad=True)`:
  torch's max_pool1d/2d and avg_pool1d/2d (floor mode; the stride defaults to the kernel size;
  padding at most half the kernel). The spatial rank is len(kernel_size), or x.ndim - 2 for an int.
- `global_avg_pool(x, keepdims=False)`, `global_max_pool(x, keepdims=False)`: over every spatial axis
  (torch's adaptive_*_pool with output size 1, flattened to (N, C) unless keepdims).
- `upsample(x, scale_factor, mode='nearest'|'linear')`: torch.nn.functional.interpolate with a
  scale factor (align_corners=False; 'linear' is linear/bilinear/trilinear by the spatial rank).
- `heaviside_surrogate(x, alpha=4.0)`: a spiking neuron's unit step with the smooth surrogate
  derivative of sigmoid(alpha x) (SpikingJelly's `surrogate.Sigmoid`).
- `embedding(input, weight, padding_idx=None)`: torch.nn.functional.embedding, `weight[input]`
  (the padding row gets no gradient).
- `selective_scan(u, delta, A, B, C, D=None, z=None, delta_bias=None, delta_softplus=False,
  return_last_state=False)`: Mamba's `selective_scan_ref` (state-spaces/mamba,
  mamba_ssm/ops/selective_scan_interface.py), evaluated in parallel over the sequence with
  `frame.associative_scan`.
- `associative_scan`, `segment_sum`, `segment_prod`, `segment_max`, `segment_min` (frame/frontend/sequence.py) are
  re-exported here; the sequence reverse is `frame.numpy.flip(x, axis)`.
- torch.nn.functional's activations and small layers, with its names, arguments and defaults: `relu`,
  `relu6`, `leaky_relu`, `elu`, `selu`, `celu`, `gelu` (approximate 'none': the erf form, as torch;
  'tanh': `frame.numpy.gelu`), `silu`, `mish`, `softplus` (beta, threshold), `hardtanh`,
  `logsigmoid`, `sigmoid`, `tanh`, `softmax`/`log_softmax` (`dim` required), `glu`, `normalize`,
  `one_hot`, `linear`, `layer_norm` (affine `weight`/`bias` over `normalized_shape`). Compositions of
  frame.numpy, so every transform applies; none is a new op.
- torch's per-rank names, each checking the rank (batched, or unbatched (C, *spatial) as torch takes):
  `conv1d/2d/3d`, `conv_transpose1d/2d/3d`; `max_pool1d/2d/3d` (plus dilation and ceil_mode;
  return_indices refused), `avg_pool1d/2d/3d` (plus ceil_mode, divisor_override);
  `adaptive_avg_pool1d/2d/3d`, `adaptive_max_pool1d/2d/3d` (any output size: torch's windows
  [floor(i L / m), ceil((i + 1) L / m)), by reshapes or one static gather per axis);
  `interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None, ...)`
  (nearest and nearest-exact with torch's float32 index rule, linear/bilinear/bicubic/trilinear with
  align_corners, area; antialias refused); `pad(input, pad, mode, value)` (torch's last-axis-first
  widths, negative widths crop; constant, reflect, replicate, circular); `unfold`/`fold` (im2col /
  col2im of 4-D input, by strided slices and interior-padding `pad` ops).
- torch's losses, with its argument names, defaults and reductions ('none', 'mean', 'sum', and its
  deprecated size_average/reduce): `mse_loss`, `l1_loss` (optional elementwise weight), `smooth_l1_loss`,
  `huber_loss`, `cross_entropy` (class indices with weight/ignore_index/label_smoothing and torch's
  weighted mean, or class probabilities), `nll_loss`, `binary_cross_entropy` (logs clamped at -100),
  `binary_cross_entropy_with_logits` (weight, pos_weight), `kl_div` ('batchmean' too, log_target),
  `poisson_nll_loss`, `gaussian_nll_loss`, `cosine_similarity`, `pairwise_distance`, `pdist`,
  `cosine_embedding_loss`, `margin_ranking_loss`, `hinge_embedding_loss`, `soft_margin_loss`,
  `triplet_margin_loss`, `multilabel_soft_margin_loss`.
- More of torch's activations and layers: `softsign`, `softmin`, `tanhshrink`, `hardshrink`,
  `softshrink`, `threshold`, `hardsigmoid`, `hardswish`, `prelu`, `rms_norm`, `group_norm`,
  `instance_norm`, `batch_norm` (training=True normalises by the batch statistics; running buffers are
  read, never updated: frame has no in-place updates), `local_response_norm`, `pixel_shuffle`,
  `pixel_unshuffle`, `channel_shuffle`, `bilinear`, `scaled_dot_product_attention` (bool or additive
  masks, is_causal, scale, enable_gqa; fully masked rows give 0 as torch; dropout_p > 0 refused).
- jax.nn's names: `log_sigmoid`, `swish`, `hard_sigmoid`, `hard_silu`/`hard_swish`, `soft_sign` (the same
  functions as torch's logsigmoid, silu, hardsigmoid, hardswish, softsign), `hard_tanh`, `squareplus`,
  `sparse_plus`, `sparse_sigmoid`, `standardize` (algorithm 'fast' or 'stable', where=), `identity`,
  `log1mexp`, `logsumexp` (b, return_sign, where), `logmeanexp`, and `dot_product_attention` in JAX's
  (B, T, N, H) layout (bias, mask, scale, is_causal, grouped key/value heads, local_window_size,
  sequence lengths).
"""
from __future__ import annotations

import itertools
import math

import numpy as _np

from .errors import ShapeError
from .frontend import numpy as fnp
from .frontend.args import _axis, _dtype, _int, _ints, _shape
from .frontend.sequence import associative_scan, segment_max, segment_min, segment_prod, segment_sum
from .frontend.transforms import stop_gradient
from . import nn_initializers as initializers  # noqa: F401  (frame.nn.initializers, as jax.nn.initializers)
from . import random
from .tracing import Tracer, bind

__all__ = ["conv", "conv_transpose", "max_pool", "avg_pool", "global_avg_pool", "global_max_pool", "upsample",
           "heaviside_surrogate", "embedding", "selective_scan", "associative_scan", "segment_sum", "segment_max",
           "segment_min", "segment_prod", "relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish",
           "softplus", "hardtanh", "logsigmoid", "sigmoid", "tanh", "softmax", "log_softmax", "glu", "normalize",
           "one_hot", "linear", "layer_norm", "dropout", "dropout1d", "dropout2d", "dropout3d",
           # torch's per-rank convolution, pooling and resampling names
           "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "max_pool1d",
           "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "interpolate", "pad", "unfold", "fold",
           # torch's losses
           "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "gaussian_nll_loss", "cosine_similarity",
           "pairwise_distance", "pdist", "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "soft_margin_loss", "triplet_margin_loss", "multilabel_soft_margin_loss",
           # torch's activations, normalisations, layers and attention
           "softsign", "softmin", "tanhshrink", "hardshrink", "softshrink", "threshold", "hardsigmoid", "hardswish",
           "prelu", "rms_norm", "group_norm", "instance_norm", "batch_norm", "local_response_norm", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "bilinear", "scaled_dot_product_attention",
           # jax.nn's names
           "log_sigmoid", "swish", "hard_tanh", "hard_sigmoid", "hard_silu", "hard_swish", "soft_sign", "squareplus",
           "sparse_plus", "sparse_sigmoid", "standardize", "identity", "log1mexp", "logsumexp", "logmeanexp",
           "dot_product_attention"]


def _per_axis(value, nd: int, fn: str, what: str, low: int = 0) -> tuple[int, ...]:
    """An int or one int per spatial axis, each >= low."""
    values = value if isinstance(value, (tuple, list)) else (value,) * nd
    if len(values) != nd:
        raise ShapeError(f"{fn}: {what} must be an int or {nd} ints (one per spatial axis), got {value!r}")
    out = tuple(_int(v, fn, what) for v in values)
    if any(v < low for v in out):
        raise ShapeError(f"{fn}: {what} must be >= {low}, got {value!r}")
    return out


def _spatial_rank(x, fn: str, kernel_rank: int | None = None) -> int:
    shape = _shape(x)
    nd = len(shape) - 2 if kernel_rank is None else kernel_rank
    if nd < 1 or len(shape) < nd + 1:
        raise ShapeError(f"{fn}: x must be (N, C, *spatial) with at least one spatial axis, got shape {shape}")
    return nd


def _padding(padding, nd: int, fn: str, kernel=None, dilation=None, stride=None):
    """(lo, hi) per spatial axis from PyTorch's padding argument (ints, pairs, 'valid', 'same')."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * nd, (0,) * nd
        if padding == "same" and kernel is not None:
            if any(s != 1 for s in stride):
                raise ShapeError(f"{fn}: padding='same' needs stride 1 (as in PyTorch), got stride {stride}")
            total = [d * (k - 1) for d, k in zip(dilation, kernel)]
            return tuple(t // 2 for t in total), tuple(t - t // 2 for t in total)
        raise ShapeError(f"{fn}: padding must be an int, a tuple, 'valid'" + (" or 'same'" if kernel else "")
                         + f", got {padding!r}")
    if isinstance(padding, (tuple, list)) and padding and all(isinstance(p, (tuple, list)) for p in padding):
        if len(padding) != nd or any(len(p) != 2 for p in padding):
            raise ShapeError(f"{fn}: padding pairs must be {nd} (lo, hi) pairs, got {padding!r}")
        lo = tuple(_int(p[0], fn, "padding") for p in padding)
        hi = tuple(_int(p[1], fn, "padding") for p in padding)
        if any(v < 0 for v in lo + hi):
            raise ShapeError(f"{fn}: padding must be >= 0, got {padding!r}")
        return lo, hi
    pad = _per_axis(padding, nd, fn, "padding")
    return pad, pad


def _add_bias(y, bias, nd: int, fn: str):
    if bias is None:
        return y
    c = _shape(y)[1]
    if _shape(bias) != (c,):
        raise ShapeError(f"{fn}: bias must have shape ({c},) (one per output channel), got {_shape(bias)}")
    return y + fnp.reshape(bias, (c,) + (1,) * nd)


def _check_operands(x, w, fn: str) -> int:
    xs, ws = _shape(x), _shape(w)
    nd = len(xs) - 2
    if nd < 1 or len(ws) != len(xs):
        raise ShapeError(f"{fn}: x must be (N, C_in, *spatial) and w (channels, channels, *kernel) of the same rank "
                         f"(at least 3), got x {xs} and w {ws}")
    return nd


def conv(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """N-d convolution (cross-correlation) as torch.nn.functional.conv1d/conv2d/conv3d.

    x: (N, C_in, *spatial); w: (C_out, C_in // groups, *kernel); bias: (C_out,) or None.
    stride, dilation: an int or one per spatial axis; padding: an int, one per axis, (lo, hi) pairs,
    'valid' or 'same' (stride 1; as PyTorch, the odd element after). Returns (N, C_out, *out) with
    out = floor((L + lo + hi - dilation * (k - 1) - 1) / stride) + 1.
    """
    fn = "frame.nn.conv"
    nd = _check_operands(x, w, fn)
    stride = _per_axis(stride, nd, fn, "stride", 1)
    dilation = _per_axis(dilation, nd, fn, "dilation", 1)
    groups = _int(groups, fn, "groups")
    lo, hi = _padding(padding, nd, fn, _shape(w)[2:], dilation, stride)
    y = bind("conv", x, w, strides=stride, lo=lo, hi=hi, lhs_dilation=(1,) * nd, rhs_dilation=dilation, groups=groups)
    return _add_bias(y, bias, nd, fn)


def conv_transpose(x, w, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed convolution as torch.nn.functional.conv_transpose1d/2d/3d: the gradient of `conv`
    w.r.t. its input.

    x: (N, C_in, *spatial); w: (C_in, C_out // groups, *kernel) (PyTorch's layout); bias: (C_out,).
    Output length (L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1;
    output_padding must be smaller than stride or dilation (PyTorch's rule).
    """
    fn = "frame.nn.conv_transpose"
    nd = _check_operands(x, w, fn)
    stride = _per_axis(stride, nd, fn, "stride", 1)
    dilation = _per_axis(dilation, nd, fn, "dilation", 1)
    pad = _per_axis(padding, nd, fn, "padding")
    extra = _per_axis(output_padding, nd, fn, "output_padding")
    groups = _int(groups, fn, "groups")
    if any(e >= max(s, d) for e, s, d in zip(extra, stride, dilation)):
        raise ShapeError(f"{fn}: output_padding {extra} must be smaller than stride {stride} or dilation {dilation}")
    ws = _shape(w)
    c_in, c_og, kernel = ws[0], ws[1], ws[2:]
    if groups < 1 or c_in % groups or _shape(x)[1] != c_in:
        raise ShapeError(f"{fn}: w.shape[0] ({c_in}) must be x's channels ({_shape(x)[1]}) and a multiple of groups "
                         f"({groups}); x {_shape(x)}, w {ws}")
    # w (G*Ci_g, Co_g, *k) -> (G, Ci_g, Co_g, *k) -> (G, Co_g, Ci_g, *k) -> (G*Co_g, Ci_g, *k), flipped in space:
    # the kernel of the convolution whose input gradient this is.
    cg = c_in // groups
    wt = fnp.reshape(w, (groups, cg, c_og) + kernel)
    wt = fnp.transpose(wt, (0, 2, 1) + tuple(range(3, 3 + nd)))
    wt = bind("rev", fnp.reshape(wt, (groups * c_og, cg) + kernel), axes=tuple(range(2, 2 + nd)))
    lo = tuple(d * (k - 1) - p for d, k, p in zip(dilation, kernel, pad))
    hi = tuple(low + e for low, e in zip(lo, extra))
    y = bind("conv", x, wt, strides=(1,) * nd, lo=lo, hi=hi, lhs_dilation=stride, rhs_dilation=dilation,
             groups=groups)
    return _add_bias(y, bias, nd, fn)


def _pool_args(x, kernel_size, stride, padding, fn: str):
    nd = len(kernel_size) if isinstance(kernel_size, (tuple, list)) else None
    nd = _spatial_rank(x, fn, nd)
    window = _per_axis(kernel_size, nd, fn, "kernel_size", 1)
    strides = window if stride is None else _per_axis(stride, nd, fn, "stride", 1)
    pad = _per_axis(padding, nd, fn, "padding")
    if any(2 * p > k for p, k in zip(pad, window)):
        raise ShapeError(f"{fn}: padding {pad} must be at most half the kernel size {window} (PyTorch's rule)")
    return nd, {"window": window, "strides": strides, "lo": pad, "hi": pad}


def max_pool(x, kernel_size, stride=None, padding=0):
    """Max pooling as torch.nn.functional.max_pool1d/max_pool2d (floor mode, padding with -inf).

    The spatial rank is len(kernel_size), or x.ndim - 2 for an int; the stride defaults to the kernel
    size. The gradient goes to each window's first maximum (row-major), as JAX's reduce_window max.
    """
    _, attrs = _pool_args(x, kernel_size, stride, padding, "frame.nn.max_pool")
    return bind("max_pool", x, **attrs)


def avg_pool(x, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Average pooling as torch.nn.functional.avg_pool1d/avg_pool2d (floor mode).

    count_include_pad=True (PyTorch's default) divides every window by the kernel size; False divides
    by the number of non-padding elements of the window.
    """
    fn = "frame.nn.avg_pool"
    nd, attrs = _pool_args(x, kernel_size, stride, padding, fn)
    y = bind("avg_pool", x, **attrs)
    if count_include_pad or not any(attrs["lo"]):
        return y
    # Each window's share of non-padding elements, computed once in numpy on the spatial shape (a constant).
    share = bind("avg_pool", _np.ones(_shape(x)[len(_shape(x)) - nd:], _np.float64), **attrs)
    return y * _np.asarray(1.0 / share, _dtype(x))


def global_avg_pool(x, keepdims: bool = False):
    """The mean over every spatial axis of x (N, C, *spatial): (N, C), or (N, C, 1, ...) with keepdims."""
    nd = _spatial_rank(x, "frame.nn.global_avg_pool")
    return fnp.mean(x, axis=tuple(range(2, 2 + nd)), keepdims=keepdims)


def global_max_pool(x, keepdims: bool = False):
    """The max over every spatial axis of x (N, C, *spatial): (N, C), or (N, C, 1, ...) with keepdims."""
    nd = _spatial_rank(x, "frame.nn.global_max_pool")
    return fnp.max(x, axis=tuple(range(2, 2 + nd)), keepdims=keepdims)


def _linear_weights(n: int, scale: float, dtype) -> _np.ndarray:
    """(n_out, n) interpolation matrix of torch's linear mode, align_corners=False, for a scale factor:
    source = (i + 0.5) / scale - 0.5, clamped at 0, between floor(source) and the next (clamped) index."""
    n_out = int(math.floor(n * scale))
    src = _np.maximum((_np.arange(n_out) + 0.5) / scale - 0.5, 0.0)
    i0 = _np.minimum(_np.floor(src).astype(_np.int64), n - 1)
    i1 = _np.minimum(i0 + 1, n - 1)
    lam = src - i0
    m = _np.zeros((n_out, n))
    _np.add.at(m, (_np.arange(n_out), i0), 1.0 - lam)
    _np.add.at(m, (_np.arange(n_out), i1), lam)
    return m.astype(dtype)


def upsample(x, scale_factor, mode: str = "nearest"):
    """torch.nn.functional.interpolate(x, scale_factor=..., mode=...) for x (N, C, *spatial).

    scale_factor: a number or one per spatial axis (> 0); the output length is floor(L * scale).
    mode 'nearest' reads source index floor(i / scale) (an integer scale repeats each element);
    'linear' (torch's linear, bilinear, trilinear by the spatial rank) interpolates with
    align_corners=False, as a product with one constant interpolation matrix per axis.
    """
    fn = "frame.nn.upsample"
    nd = _spatial_rank(x, fn)
    scales = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * nd
    if len(scales) != nd or not all(isinstance(s, (int, float, _np.integer, _np.floating)) and s > 0 for s in scales):
        raise ShapeError(f"{fn}: scale_factor must be a positive number or {nd} of them, got {scale_factor!r}")
    if mode not in ("nearest", "linear"):
        raise ShapeError(f"{fn}: mode must be 'nearest' or 'linear', got {mode!r}")
    shape = _shape(x)
    lead, spatial = shape[:2], shape[2:]
    if mode == "nearest" and all(float(s).is_integer() for s in scales):
        # Each element repeated s times per axis: a broadcast over new axes, then one reshape.
        s = [int(v) for v in scales]
        expanded = fnp.reshape(x, lead + tuple(d for n in spatial for d in (n, 1)))
        target = lead + tuple(d for n, k in zip(spatial, s) for d in (n, k))
        return fnp.reshape(fnp.broadcast_to(expanded, target), lead + tuple(n * k for n, k in zip(spatial, s)))
    y = x
    dtype = _dtype(x)
    for axis, (n, scale) in enumerate(zip(spatial, scales)):
        if mode == "nearest":
            n_out = int(math.floor(n * scale))
            index = _np.minimum(_np.floor(_np.arange(n_out) / scale).astype(_np.int64), n - 1)
            y = fnp.take(y, index, axis=2 + axis)
        else:
            m = _linear_weights(n, float(scale), dtype)
            y = fnp.moveaxis(fnp.matmul(fnp.moveaxis(y, 2 + axis, -1), _np.ascontiguousarray(m.T)), -1, 2 + axis)
    return y


def heaviside_surrogate(x, alpha: float = 4.0):
    """The unit step, 1 where x >= 0 and 0 elsewhere (a spike), with a surrogate derivative.

    Its derivative is not the step's (zero almost everywhere) but that of the smooth sigmoid(alpha x):
    alpha * s * (1 - s) with s = sigmoid(alpha x), and every higher derivative is the surrogate's too
    (ARCH-066's one narrow exception). alpha > 0 sets the surrogate's steepness (SpikingJelly's
    surrogate.Sigmoid default, 4.0).
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, _np.integer, _np.floating)):
        raise ShapeError(f"frame.nn.heaviside_surrogate: alpha must be a number, got {type(alpha).__name__} {alpha!r}")
    return bind("heaviside_surrogate", x, alpha=float(alpha))


def embedding(input, weight, padding_idx=None, max_norm=None, scale_grad_by_freq: bool = False,  # noqa: A002
              sparse: bool = False):
    """torch.nn.functional.embedding: the rows of `weight` (num_embeddings, embedding_dim) named by the
    integer `input` (any shape), of shape input.shape + (embedding_dim,).

    With `padding_idx` (an int in [-num_embeddings, num_embeddings), negative counting from the end as
    in PyTorch) the entries equal to it read their row as usual but send it no gradient, as PyTorch's
    (so that row stays at its initial value in training). Constant ids outside [0, num_embeddings)
    raise ShapeError (PyTorch's IndexError); traced ids are checked when the graph runs, where gather
    refuses ids outside [-num_embeddings, num_embeddings) (a negative traced id counts from the end,
    as in numpy). The ids get no gradient. PyTorch's max_norm, scale_grad_by_freq and sparse are
    refused (frame's gradients are dense and its ops never modify `weight` in place).
    """
    fn = "frame.nn.embedding"
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise ShapeError(f"{fn}: max_norm, scale_grad_by_freq and sparse are not supported (got max_norm={max_norm!r}, "
                         f"scale_grad_by_freq={scale_grad_by_freq!r}, sparse={sparse!r})")
    ws = _shape(weight)
    if len(ws) != 2:
        raise ShapeError(f"{fn}: weight must be (num_embeddings, embedding_dim), got shape {ws}")
    ids = input if isinstance(input, Tracer) else _np.asarray(input)
    if _dtype(ids) not in ("int32", "int64") and not (isinstance(ids, _np.ndarray) and ids.dtype.kind in "iu"):
        raise ShapeError(f"{fn}: input must hold integer ids, got {_dtype(ids)} of shape {_shape(ids)}")
    n = ws[0]
    if isinstance(ids, _np.ndarray):
        ids = ids.astype(_np.int64)
        bad = ids[(ids < 0) | (ids >= n)]
        if bad.size:
            raise ShapeError(f"{fn}: id {bad.flat[0]} is out of range for a weight of {n} rows (shape {ws})")
    y = fnp.take(weight, ids, axis=0)
    if padding_idx is None:
        return y
    pad = _int(padding_idx, fn, "padding_idx")
    if not -n <= pad < n:
        raise ShapeError(f"{fn}: padding_idx {padding_idx} must be within [-{n}, {n}) for a weight of shape {ws}")
    pad %= n
    # The padding entries' rows, cut off from the gradient: the value is the same either way.
    mask = fnp.reshape(ids == pad, _shape(ids) + (1,))
    return fnp.where(mask, stop_gradient(y), y)


def _state_input(M, name: str, batch: int, d: int, n: int, L: int, fn: str):
    """B or C of selective_scan as an (L or 1, batch or 1, d or 1, n) operand of the (L, batch, d, n) state
    layout: (d, n) time-invariant, (batch, n, L) shared by all channels, or (batch, G, n, L) per group of
    d // G channels."""
    shape = _shape(M)
    if shape == (d, n):
        return fnp.reshape(M, (1, 1, d, n))
    if shape == (batch, n, L):
        return fnp.reshape(fnp.transpose(M, (2, 0, 1)), (L, batch, 1, n))
    if len(shape) == 4 and shape[0] == batch and shape[2:] == (n, L) and shape[1] >= 1 and d % shape[1] == 0:
        g = shape[1]
        # Mamba's repeat "B G N L -> B (G H) N L": channel c reads group c // H.
        m = fnp.reshape(fnp.transpose(M, (3, 0, 1, 2)), (L, batch, g, 1, n))
        return fnp.reshape(fnp.broadcast_to(m, (L, batch, g, d // g, n)), (L, batch, d, n))
    raise ShapeError(f"{fn}: {name} must be ({d}, {n}) (time-invariant), ({batch}, {n}, {L}) or ({batch}, G, {n}, {L}) "
                     f"with G dividing {d}; got {shape}")


def _scan_combine(first, second):
    """The linear recurrence's composition: x -> a1 x + b1 then x -> a2 x + b2 is x -> a1 a2 x + (a2 b1 + b2)."""
    (a1, b1), (a2, b2) = first, second
    return a1 * a2, a2 * b1 + b2


def selective_scan(u, delta, A, B, C, D=None, z=None, delta_bias=None, delta_softplus: bool = False,
                   return_last_state: bool = False):
    """Mamba's selective scan with the shapes and semantics of its reference `selective_scan_ref`.

    u, delta: (batch, d, L); A: (d, n), real; B, C: (batch, n, L) (input-dependent), (batch, G, n, L)
    (per group of d // G channels) or (d, n) (time-invariant); D: (d,); z: (batch, d, L);
    delta_bias: (d,). With delta' = delta + delta_bias (then softplus(delta') if delta_softplus),
    the state x (batch, d, n) starts at 0 and for t = 0 .. L-1

        x_t = exp(delta'_t A) * x_{t-1} + delta'_t B_t u_t,    y_t = sum_n x_t C_t,

    out = y + D u, then out * silu(z) (z * sigmoid(z)); returns out (batch, d, L), and with
    return_last_state also x_{L-1} (batch, d, n). Computed in the operands' own dtype (the
    reference computes in float32 and casts back); complex A (the reference's other variant) is refused.
    softplus is log(1 + e^x) everywhere (PyTorch's F.softplus returns x itself above 20, a difference
    below 2.1e-9), and every operand, the last state included, is differentiable to any order.

    Evaluated in parallel over L: the pairs (exp(delta' A), delta' B u), shaped (L, batch, d, n), go
    through `associative_scan` with the composition of affine maps, (a1, b1), (a2, b2) ->
    (a1 a2, a2 b1 + b2), exact in any order (no division or log-space rescaling, so long sequences
    neither overflow nor lose precision). It is a frontend composite, not a registry op: every step
    is an existing differentiable op (exp, mul, add, slice, concat, reshape, sum), so first and
    higher derivatives, vmap and the JAX lowering come from those ops' rules; a dedicated op would
    need its own hand-written, itself differentiable, reverse-scan gradient to say the same.
    """
    fn = "frame.nn.selective_scan"
    us, ds_ = _shape(u), _shape(delta)
    if len(us) != 3 or ds_ != us:
        raise ShapeError(f"{fn}: u and delta must both be (batch, d, L), got u {us} and delta {ds_}")
    batch, d, L = us
    if L < 1:
        raise ShapeError(f"{fn}: the sequence length L (u's last axis) must be at least 1, got u {us}")
    As = _shape(A)
    if len(As) != 2 or As[0] != d:
        raise ShapeError(f"{fn}: A must be (d, n) = ({d}, n), got {As}")
    for name, value in (("u", u), ("delta", delta), ("A", A), ("B", B), ("C", C), ("D", D), ("z", z),
                        ("delta_bias", delta_bias)):
        dtype = _dtype(value) if value is not None else "float64"
        if dtype not in ("float16", "float32", "float64"):
            raise ShapeError(f"{fn}: {name} must be a real float array, got {dtype}"
                             + (" (the complex-A variant of selective_scan_ref is not supported)"
                                if dtype and dtype.startswith("complex") else ""))
    n = As[1]
    for name, value, want in (("D", D, (d,)), ("delta_bias", delta_bias, (d,)), ("z", z, us)):
        if value is not None and _shape(value) != want:
            raise ShapeError(f"{fn}: {name} must be {want}, got {_shape(value)}")
    if delta_bias is not None:
        delta = delta + fnp.reshape(delta_bias, (d, 1))
    if delta_softplus:
        delta = fnp.softplus(delta)
    Bm = _state_input(B, "B", batch, d, n, L, fn)
    Cm = _state_input(C, "C", batch, d, n, L, fn)
    # The sequence axis first: each step's slice of the (L, batch, d, n) pairs is one contiguous block, so
    # the scan's strided slices, concatenations and their gradients move whole blocks.
    delta4 = fnp.reshape(fnp.transpose(delta, (2, 0, 1)), (L, batch, d, 1))
    decay = fnp.exp(delta4 * fnp.reshape(A, (1, 1, d, n)))            # (L, batch, d, n)
    drive = delta4 * Bm * fnp.reshape(fnp.transpose(u, (2, 0, 1)), (L, batch, d, 1))
    _, states = associative_scan(_scan_combine, (decay, drive), axis=0)
    out = fnp.transpose(fnp.sum(states * Cm, axis=-1), (1, 2, 0))    # (batch, d, L)
    if D is not None:
        out = out + u * fnp.reshape(D, (d, 1))
    if z is not None:
        out = out * (z * fnp.sigmoid(z))
    if not return_last_state:
        return out
    return out, fnp.reshape(states[L - 1:L], (batch, d, n))



# -- torch.nn.functional's activations and small layers ------------------------------------------------
def relu(x):
    """max(x, 0)."""
    return fnp.relu(x)


def relu6(x):
    """min(max(x, 0), 6)."""
    return fnp.clip(x, 0.0, 6.0)


def leaky_relu(x, negative_slope: float = 0.01):
    """x where x > 0, else `negative_slope` x."""
    return fnp.where(x > 0, x, x * negative_slope)


def elu(x, alpha: float = 1.0):
    """x where x > 0, else `alpha` (e^x - 1)."""
    return fnp.where(x > 0, x, alpha * fnp.expm1(fnp.minimum(x, 0.0)))


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(x):
    """scale * elu(x, alpha) with the self-normalising constants of Klambauer et al. (torch's)."""
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def celu(x, alpha: float = 1.0):
    """max(0, x) + min(0, alpha (e^(x / alpha) - 1))."""
    if alpha == 0:
        raise ShapeError("celu: alpha must not be 0")
    return fnp.maximum(x, 0.0) + fnp.minimum(alpha * fnp.expm1(fnp.minimum(x, 0.0) / alpha), 0.0)


def gelu(x, approximate: str = "none"):
    """torch's gelu: `x Phi(x)` with the normal CDF through erf ('none', torch's default), or the tanh form
    ('tanh', JAX's default and `frame.numpy.gelu`)."""
    if approximate == "tanh":
        return fnp.gelu(x)
    if approximate != "none":
        raise ShapeError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return 0.5 * x * (1.0 + fnp.erf(x * (1.0 / math.sqrt(2.0))))


def sigmoid(x):
    """1 / (1 + e^-x)."""
    return fnp.sigmoid(x)


def tanh(x):
    """The hyperbolic tangent."""
    return fnp.tanh(x)


def silu(x):
    """x sigmoid(x) (swish)."""
    return x * fnp.sigmoid(x)


def softplus(x, beta: float = 1.0, threshold: float = 20.0):
    """log(1 + e^(beta x)) / beta, and x itself where beta x > threshold (torch's linear region)."""
    if beta == 1.0:
        smooth = fnp.softplus(x)
    else:
        smooth = fnp.softplus(x * beta) / beta
    return fnp.where(x * beta > threshold, x, smooth)


def mish(x):
    """x tanh(softplus(x))."""
    return x * fnp.tanh(fnp.softplus(x))


def hardtanh(x, min_val: float = -1.0, max_val: float = 1.0):
    """x clipped to [min_val, max_val]."""
    if min_val > max_val:
        raise ShapeError(f"hardtanh: min_val {min_val} must not exceed max_val {max_val}")
    return fnp.clip(x, min_val, max_val)


def logsigmoid(x):
    """log sigmoid(x) = -softplus(-x), without overflow."""
    return -fnp.softplus(-x)


def softmax(x, dim: int):
    """exp(x) / sum(exp(x)) along `dim` (which torch asks for; so does frame)."""
    return fnp.softmax(x, axis=dim)


def log_softmax(x, dim: int):
    """x - logsumexp(x) along `dim`."""
    return fnp.log_softmax(x, axis=dim)


def glu(x, dim: int = -1):
    """The gated linear unit: the first half of `dim` times the sigmoid of the second half."""
    n = _shape(x)[dim] if _shape(x) else 0
    if n % 2:
        raise ShapeError(f"glu: dimension {dim} of shape {_shape(x)} must have an even size")
    first, second = fnp.split(x, 2, axis=dim)
    return first * fnp.sigmoid(second)


def normalize(x, p: float = 2.0, dim: int = 1, eps: float = 1e-12):
    """x / max(||x||_p along `dim`, eps)."""
    size = fnp.linalg.norm(x, ord=p, axis=dim, keepdims=True)
    return x / fnp.maximum(size, eps)


def one_hot(tensor, num_classes: int = -1):
    """int64 one-hot rows of the class indices in `tensor` (num_classes -1: the largest index + 1, which
    needs concrete indices)."""
    if _dtype(tensor) not in ("int32", "int64"):
        raise ShapeError(f"one_hot: class indices must be integers, got {_dtype(tensor)}")
    if num_classes == -1:
        if isinstance(tensor, Tracer):
            raise ShapeError("one_hot: num_classes fixes the result's shape; give it for traced indices")
        num_classes = int(_np.max(tensor)) + 1 if _np.size(tensor) else 0
    num_classes = _int(num_classes, "one_hot", "num_classes")
    if not isinstance(tensor, Tracer) and _np.size(tensor) and (_np.min(tensor) < 0 or _np.max(tensor) >= num_classes):
        raise ShapeError(f"one_hot: class values must be in [0, {num_classes}), got {_np.min(tensor)}..{_np.max(tensor)}")
    classes = _np.arange(num_classes).reshape((1,) * len(_shape(tensor)) + (num_classes,))
    return fnp.astype(fnp.expand_dims(tensor, -1) == classes, "int64")


def linear(input, weight, bias=None):  # noqa: A002  (torch's name)
    """input @ weight.T + bias, weight (out_features, in_features) as torch stores it."""
    if len(_shape(weight)) != 2 or _shape(input)[-1:] != _shape(weight)[1:]:
        raise ShapeError(f"linear: weight must be (out_features, {(_shape(input) or (None,))[-1]}), got {_shape(weight)}")
    y = fnp.matmul(input, fnp.transpose(weight))
    return y if bias is None else y + bias


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):  # noqa: A002
    """torch's layer_norm: normalised over the trailing `normalized_shape` axes (biased variance), then
    times `weight` plus `bias` (of that shape) when given."""
    shape = tuple(_int(d, "layer_norm", "normalized_shape") for d in
                  ((normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape))
    if _shape(input)[len(_shape(input)) - len(shape):] != shape:
        raise ShapeError(f"layer_norm: normalized_shape {shape} must end the input's shape {_shape(input)}")
    y = fnp.layer_norm(input, axis=tuple(range(-len(shape), 0)), eps=eps)
    if weight is not None:
        y = y * weight
    return y if bias is None else y + bias


# -- torch.nn.functional's per-rank convolution, pooling and resampling names ---------------------------
def _unbatched(x, nd: int, fn: str) -> bool:
    """Whether x is torch's unbatched (C, *spatial) form rather than (N, C, *spatial), with nd spatial axes;
    ShapeError for any other rank."""
    shape = _shape(x)
    if len(shape) not in (nd + 1, nd + 2):
        raise ShapeError(f"{fn}: input must be (N, C, *spatial) or (C, *spatial) with {nd} spatial "
                         f"{'axes' if nd > 1 else 'axis'} (rank {nd + 2} or {nd + 1}), got shape {shape}")
    return len(shape) == nd + 1


def _batched(fn_body, x, nd: int, fn: str):
    """fn_body on x with a batch axis, which is added for an unbatched x and removed again."""
    if not _unbatched(x, nd, fn):
        return fn_body(x)
    y = fn_body(fnp.expand_dims(x, 0))
    return fnp.reshape(y, _shape(y)[1:])


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """torch.nn.functional.conv1d: `conv` on (N, C_in, L) or unbatched (C_in, L) input."""
    return _batched(lambda x: conv(x, weight, bias, stride, padding, dilation, groups), input, 1, "frame.nn.conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """torch.nn.functional.conv2d: `conv` on (N, C_in, H, W) or unbatched (C_in, H, W) input."""
    return _batched(lambda x: conv(x, weight, bias, stride, padding, dilation, groups), input, 2, "frame.nn.conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """torch.nn.functional.conv3d: `conv` on (N, C_in, D, H, W) or unbatched (C_in, D, H, W) input."""
    return _batched(lambda x: conv(x, weight, bias, stride, padding, dilation, groups), input, 3, "frame.nn.conv3d")


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    """torch.nn.functional.conv_transpose1d: `conv_transpose` on (N, C_in, L) or (C_in, L) input."""
    return _batched(lambda x: conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation),
                    input, 1, "frame.nn.conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    """torch.nn.functional.conv_transpose2d: `conv_transpose` on (N, C_in, H, W) or (C_in, H, W) input."""
    return _batched(lambda x: conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation),
                    input, 2, "frame.nn.conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    """torch.nn.functional.conv_transpose3d: `conv_transpose` on (N, C_in, D, H, W) or (C_in, D, H, W) input."""
    return _batched(lambda x: conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation),
                    input, 3, "frame.nn.conv_transpose3d")


def _window_args(x, nd: int, fn: str, kernel_size, stride, padding, dilation=1, ceil_mode=False):
    """Kernel, strides, padding, dilation, output size and the extra high padding ceil_mode's last
    windows need, per spatial axis, by torch's pooling rules (padding at most half the kernel; with
    ceil_mode a window may run past the padding but must start inside the input or its left padding)."""
    _unbatched(x, nd, fn)
    kernel = _per_axis(kernel_size, nd, fn, "kernel_size", 1)
    strides = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _per_axis(stride, nd, fn, "stride", 1)
    pad = _per_axis(padding, nd, fn, "padding")
    dil = _per_axis(dilation, nd, fn, "dilation", 1)
    if any(2 * p > k for p, k in zip(pad, kernel)):
        raise ShapeError(f"{fn}: padding {pad} must be at most half the kernel size {kernel} (PyTorch's rule)")
    spatial = _shape(x)[-nd:]
    out, extra = [], []
    for n, k, s, p, d in zip(spatial, kernel, strides, pad, dil):
        room = n + 2 * p - d * (k - 1) - 1
        if room < 0:
            raise ShapeError(f"{fn}: kernel {kernel} (dilation {dil}) is larger than the padded input {spatial} "
                             f"(padding {pad})")
        o = (-(-room // s) if ceil_mode else room // s) + 1
        if ceil_mode and (o - 1) * s >= n + p:
            o -= 1
        out.append(o)
        extra.append(max((o - 1) * s - room, 0))
    return kernel, strides, pad, dil, tuple(out), tuple(p + e for p, e in zip(pad, extra))


def _taps(xp, kernel, dilation, strides, out):
    """The strided views of xp's trailing len(kernel) axes read by each kernel tap, in row-major order over
    the kernel: tap (i, j, ..) is xp[..., i*d0 : i*d0 + (o0-1)*s0 + 1 : s0, ...], of shape lead + out."""
    nd = len(kernel)
    lead = _shape(xp)[:len(_shape(xp)) - nd]
    views = []
    for offsets in itertools.product(*(range(k) for k in kernel)):
        starts = tuple(i * d for i, d in zip(offsets, dilation))
        stops = tuple(b + (o - 1) * s + 1 for b, o, s in zip(starts, out, strides))
        views.append(fnp.slice_axes(xp, (0,) * len(lead) + starts, lead + stops, (1,) * len(lead) + tuple(strides)))
    return views


def _max_pool_nd(nd, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):  # noqa: A002
    fn = f"frame.nn.max_pool{nd}d"
    if return_indices:
        raise ShapeError(f"{fn}: return_indices=True is not supported (frame's max pooling returns the values only)")
    kernel, strides, pad, dil, out, hi = _window_args(input, nd, fn, kernel_size, stride, padding, dilation, ceil_mode)
    if all(d == 1 for d in dil):
        return bind("max_pool", input, window=kernel, strides=strides, lo=pad, hi=hi)
    # Dilated windows: the max over the kernel's strided taps of the input padded with -inf.
    lead = len(_shape(input)) - nd
    xp = fnp.pad(input, [(0, 0)] * lead + list(zip(pad, hi)), constant_values=-_np.inf)
    return fnp.max(fnp.stack(_taps(xp, kernel, dil, strides, out), axis=-1), axis=-1)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """torch.nn.functional.max_pool1d on (N, C, L) or (C, L): `max_pool` plus dilation (the max of
    strided taps) and ceil_mode (windows may run past the right padding, which is -inf). The gradient
    goes to each window's first maximum (JAX's rule; torch's too); with dilation > 1 ties share it.
    return_indices is refused."""
    return _max_pool_nd(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """torch.nn.functional.max_pool2d on (N, C, H, W) or (C, H, W); see `max_pool1d`."""
    return _max_pool_nd(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """torch.nn.functional.max_pool3d on (N, C, D, H, W) or (C, D, H, W); see `max_pool1d`."""
    return _max_pool_nd(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _avg_pool_nd(nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):  # noqa: A002
    fn = f"frame.nn.avg_pool{nd}d"
    kernel, strides, pad, _, out, hi = _window_args(input, nd, fn, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None:
        divisor_override = _int(divisor_override, fn, "divisor_override")
        if divisor_override == 0:
            raise ShapeError(f"{fn}: divisor_override must not be 0")
    elif not ceil_mode:
        return avg_pool(input, kernel, strides, pad, count_include_pad)
    # Window sums (the op's average times the kernel size) over the zero-padded input, divided by torch's
    # divisor: divisor_override, or per axis the window's length inside the padded (count_include_pad)
    # or the unpadded input, a constant made in numpy.
    y = bind("avg_pool", input, window=kernel, strides=strides, lo=pad, hi=hi)
    size = math.prod(kernel)
    if divisor_override is not None:
        return y * (size / divisor_override)
    share = _np.ones(())
    for n, k, s, p, o in zip(_shape(input)[-nd:], kernel, strides, pad, out):
        start = _np.arange(o) * s - p
        stop = _np.minimum(start + k, n + p)
        length = stop - start if count_include_pad else _np.minimum(stop, n) - _np.maximum(start, 0)
        share = _np.multiply.outer(share, length)
    return y * _np.asarray(size / share, _dtype(input))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):  # noqa: A002
    """torch.nn.functional.avg_pool1d on (N, C, L) or (C, L): `avg_pool` plus ceil_mode (windows may run
    past the right padding; torch's divisor counts only the part inside the padded input)."""
    return _avg_pool_nd(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    """torch.nn.functional.avg_pool2d on (N, C, H, W) or (C, H, W); see `avg_pool1d`. divisor_override
    divides every window sum by that number instead."""
    return _avg_pool_nd(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    """torch.nn.functional.avg_pool3d on (N, C, D, H, W) or (C, D, H, W); see `avg_pool2d`."""
    return _avg_pool_nd(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _adaptive_pool(x, output_size, nd: int, fn: str, kind: str):
    """torch's adaptive pooling: output index i of an axis of length n reduces the input window
    [floor(i n / m), ceil((i + 1) n / m)), one axis at a time (the windows are products of per-axis
    ranges). m dividing n is a reshape; otherwise one static gather reads every window, padded to the
    longest by repeating its last element (which leaves a max alone and is masked out of a mean)."""
    _unbatched(x, nd, fn)
    shape = _shape(x)
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * nd
    if len(sizes) != nd:
        raise ShapeError(f"{fn}: output_size must be an int or {nd} of them (None keeps an axis), got {output_size!r}")
    sizes = tuple(n if m is None else _int(m, fn, "output_size") for n, m in zip(shape[-nd:], sizes))
    if any(m < 1 for m in sizes) or any(n < 1 for n in shape[-nd:]):
        raise ShapeError(f"{fn}: output_size {sizes} and the spatial shape {shape[-nd:]} must be positive")
    rank = len(shape)
    y = x
    for axis, n, m in zip(range(rank - nd, rank), shape[-nd:], sizes):
        cur = _shape(y)
        if n % m == 0:
            blocks = fnp.reshape(y, cur[:axis] + (m, n // m) + cur[axis + 1:])
            y = fnp.max(blocks, axis=axis + 1) if kind == "max" else fnp.mean(blocks, axis=axis + 1)
            continue
        start = _np.arange(m) * n // m
        stop = -(-(_np.arange(m) + 1) * n // m)
        index = start[:, None] + _np.arange(int((stop - start).max()))
        inside = index < stop[:, None]
        windows = fnp.take(y, _np.minimum(index, stop[:, None] - 1), axis=axis)
        if kind == "max":
            y = fnp.max(windows, axis=axis + 1)
        else:
            trail = (1,) * (rank - axis - 1)
            total = fnp.sum(fnp.where(inside.reshape(inside.shape + trail), windows, 0), axis=axis + 1)
            y = total / _np.asarray((stop - start).reshape((m,) + trail), _dtype(x))
    return y


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """torch.nn.functional.adaptive_avg_pool1d on (N, C, L) or (C, L): the mean of each of output_size
    windows [floor(i L / m), ceil((i + 1) L / m))."""
    return _adaptive_pool(input, output_size, 1, "frame.nn.adaptive_avg_pool1d", "avg")


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """torch.nn.functional.adaptive_avg_pool2d on (N, C, H, W) or (C, H, W); output_size an int or a pair
    (None keeps that axis); see `adaptive_avg_pool1d`."""
    return _adaptive_pool(input, output_size, 2, "frame.nn.adaptive_avg_pool2d", "avg")


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """torch.nn.functional.adaptive_avg_pool3d on (N, C, D, H, W) or (C, D, H, W); see `adaptive_avg_pool2d`."""
    return _adaptive_pool(input, output_size, 3, "frame.nn.adaptive_avg_pool3d", "avg")


def _adaptive_max(nd, input, output_size, return_indices):  # noqa: A002
    fn = f"frame.nn.adaptive_max_pool{nd}d"
    if return_indices:
        raise ShapeError(f"{fn}: return_indices=True is not supported (frame's max pooling returns the values only)")
    return _adaptive_pool(input, output_size, nd, fn, "max")


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    """torch.nn.functional.adaptive_max_pool1d on (N, C, L) or (C, L): the max of each window
    [floor(i L / m), ceil((i + 1) L / m)). Ties share the gradient (JAX's max rule; torch gives it to
    the first); return_indices is refused."""
    return _adaptive_max(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """torch.nn.functional.adaptive_max_pool2d on (N, C, H, W) or (C, H, W); see `adaptive_max_pool1d`."""
    return _adaptive_max(2, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    """torch.nn.functional.adaptive_max_pool3d on (N, C, D, H, W) or (C, D, H, W); see `adaptive_max_pool1d`."""
    return _adaptive_max(3, input, output_size, return_indices)


_INTERP_RANK = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _nearest_index(n: int, m: int, scale, exact: bool) -> _np.ndarray:
    """torch's nearest source indices (UpSample.h), in its float32 arithmetic: floor(i * r) ('nearest')
    or floor((i + 0.5) r) ('nearest-exact'), at most n - 1, with r = 1 / scale_factor or n / m."""
    i = _np.arange(m)
    r = _np.float32(1.0 / scale) if scale else _np.float32(n) / _np.float32(m)
    src = _np.float32((i + 0.5) * _np.float64(r)) if exact else i.astype(_np.float32) * r
    return _np.minimum(_np.floor(src).astype(_np.int64), n - 1)


def _interp_taps(n: int, m: int, scale, align_corners: bool, cubic: bool):
    """(indices, weights) per tap of torch's linear (2 taps) or cubic (4 taps, A = -0.75) interpolation
    of an axis of length n to m: source x = i (n-1)/(m-1) with align_corners, else (i + 0.5) r - 0.5
    (clamped at 0 for linear), r = 1 / scale_factor or n / m; taps clamped to [0, n)."""
    i = _np.arange(m, dtype=_np.float64)
    if align_corners:
        src = i * ((n - 1) / (m - 1) if m > 1 else 0.0)
    else:
        src = (i + 0.5) * (1.0 / scale if scale else n / m) - 0.5
        src = src if cubic else _np.maximum(src, 0.0)
    base = _np.minimum(_np.floor(src).astype(_np.int64), n - 1)
    t = _np.clip(src - base, 0.0, 1.0)
    if not cubic:
        return [(base, 1.0 - t), (_np.minimum(base + 1, n - 1), t)]
    a = -0.75
    near = lambda d: ((a + 2) * d - (a + 3)) * d * d + 1          # noqa: E731  |d| <= 1
    far = lambda d: ((a * d - 5 * a) * d + 8 * a) * d - 4 * a     # noqa: E731  1 < |d| < 2
    weights = (far(t + 1), near(t), near(1 - t), far(2 - t))
    return [(_np.clip(base - 1 + j, 0, n - 1), w) for j, w in enumerate(weights)]


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate on (N, C, *spatial) with 1 to 3 spatial axes.

    Give `size` (an int or one per axis) or `scale_factor` (a number or one per axis; the output length
    is floor(L * scale), and torch's kernels read 1 / scale_factor unless recompute_scale_factor).
    Modes: 'nearest' (source floor(i * L / out) in torch's float32 arithmetic, so non-integer ratios
    pick torch's elements), 'nearest-exact', 'linear' (3-D input), 'bilinear' and 'bicubic' (4-D),
    'trilinear' (5-D), with align_corners for those four, and 'area' (`adaptive_avg_pool`). Each axis
    is resampled in turn by static gathers of its source elements times constant weights. antialias
    is refused.
    """
    fn = "frame.nn.interpolate"
    shape = _shape(input)
    nd = len(shape) - 2
    if not 1 <= nd <= 3:
        raise ShapeError(f"{fn}: input must be (N, C, *spatial) with 1 to 3 spatial axes, got shape {shape}")
    if mode not in ("nearest", "nearest-exact", "area") + tuple(_INTERP_RANK):
        raise ShapeError(f"{fn}: mode must be 'nearest', 'nearest-exact', 'linear', 'bilinear', 'bicubic', "
                         f"'trilinear' or 'area', got {mode!r}")
    if mode in _INTERP_RANK and _INTERP_RANK[mode] != nd:
        raise ShapeError(f"{fn}: mode {mode!r} needs {_INTERP_RANK[mode] + 2}-D input, got shape {shape}")
    if align_corners is not None and mode not in _INTERP_RANK:
        raise ShapeError(f"{fn}: align_corners can only be set with the interpolating modes "
                         f"(linear, bilinear, bicubic, trilinear), got mode {mode!r}")
    if antialias:
        raise ShapeError(f"{fn}: antialias=True is not supported")
    if not mode.startswith("nearest") and _np.dtype(_dtype(input)).kind != "f":
        raise ShapeError(f"{fn}: mode {mode!r} needs a float input, got {_dtype(input)}")
    if (size is None) == (scale_factor is None):
        raise ShapeError(f"{fn}: give exactly one of size and scale_factor, got size={size!r}, "
                         f"scale_factor={scale_factor!r}")
    spatial = shape[2:]
    if size is not None:
        out = _per_axis(size, nd, fn, "size", 1)
        scales = (None,) * nd
    else:
        scales = tuple(scale_factor) if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * nd
        if len(scales) != nd or not all(isinstance(s, (int, float, _np.integer, _np.floating))
                                        and not isinstance(s, bool) and s > 0 for s in scales):
            raise ShapeError(f"{fn}: scale_factor must be a positive number or {nd} of them, got {scale_factor!r}")
        out = tuple(int(math.floor(float(n) * float(s))) for n, s in zip(spatial, scales))
        if any(o < 1 for o in out):
            raise ShapeError(f"{fn}: scale_factor {scale_factor!r} gives an empty output {out} from {spatial}")
        scales = (None,) * nd if recompute_scale_factor else tuple(float(s) for s in scales)
    if mode == "area":
        return _adaptive_pool(input, out, nd, fn, "avg")
    y = input
    dtype = _dtype(input)
    for axis, n, m, scale in zip(range(2, 2 + nd), spatial, out, scales):
        if mode.startswith("nearest"):
            index = _nearest_index(n, m, scale, mode == "nearest-exact")
            if m != n or (index != _np.arange(n)).any():
                y = fnp.take(y, index, axis=axis)
            continue
        # torch copies an axis whose length does not change (bicubic only when no axis changes).
        if m == n and (mode != "bicubic" or out == spatial):
            continue
        trail = (1,) * (nd + 1 - axis)
        taps = _interp_taps(n, m, scale, bool(align_corners), mode == "bicubic")
        parts = [fnp.take(y, index, axis=axis) * _np.asarray(w.reshape((m,) + trail), dtype) for index, w in taps]
        y = parts[0]
        for part in parts[1:]:
            y = y + part
    return y


_PAD_NUMPY_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(input, pad, mode="constant", value=None):  # noqa: A002
    """torch.nn.functional.pad: `pad` = (left, right) widths for the last axis first, then the one before
    it, ...; negative widths crop. mode 'constant' fills with `value` (0 by default) and pads any number
    of axes; 'reflect' (widths below the axis length), 'replicate' and 'circular' (widths at most the
    length) pad the last 1 to 3 axes of a (C, *spatial) or (N, C, *spatial) input, as torch, and take no
    value. A composition of `frame.numpy.pad` (modes constant, reflect, edge, wrap) and slices."""
    fn = "frame.nn.pad"
    shape = _shape(input)
    widths = _ints(pad, fn, "pad") if isinstance(pad, (tuple, list)) else None
    if widths is None or len(widths) % 2 or len(widths) // 2 > len(shape):
        raise ShapeError(f"{fn}: pad must be a sequence of (left, right) pairs, at most one per axis of shape "
                         f"{shape}, got {pad!r}")
    k = len(widths) // 2
    pairs = [(0, 0)] * (len(shape) - k) + [(widths[2 * i], widths[2 * i + 1]) for i in reversed(range(k))]
    if mode != "constant":
        if mode not in _PAD_NUMPY_MODES:
            raise ShapeError(f"{fn}: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}")
        if value is not None and value != 0:
            raise ShapeError(f"{fn}: padding mode {mode!r} doesn't take a value, got value={value!r}")
        if not 1 <= k <= 3 or len(shape) not in (k + 1, k + 2):
            raise ShapeError(f"{fn}: mode {mode!r} pads the last 1 to 3 axes of a (C, *spatial) or (N, C, *spatial) "
                             f"input: {len(widths)} pad values need rank {k + 1} or {k + 2}, got shape {shape}")
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(shape, pairs))
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    if any(c.stop - c.start < 0 for c in crop):
        raise ShapeError(f"{fn}: pad {pad!r} crops more than the input's shape {shape}")
    if mode == "constant":
        return fnp.pad(fnp.getitem(input, crop), grow, constant_values=0 if value is None else value)
    if mode == "circular":
        # torch crops first and wraps the cropped axis (at most once).
        cropped = fnp.getitem(input, crop)
        if any(max(g) > c for g, c in zip(grow, _shape(cropped))):
            raise ShapeError(f"{fn}: circular padding {pad!r} wraps around more than once for shape {shape}")
        return fnp.pad(cropped, grow, mode="wrap")
    # reflect and replicate read the uncropped input, then crop (as torch).
    if mode == "reflect" and any(max(g) >= n for g, n in zip(grow, shape)):
        raise ShapeError(f"{fn}: reflect padding {pad!r} must be smaller than the padded axes of shape {shape}")
    padded = fnp.pad(input, grow, mode=_PAD_NUMPY_MODES[mode])
    return fnp.getitem(padded, tuple(slice(c.start, c.stop + g[0] + g[1]) for c, g in zip(crop, grow)))


def _fold_args(fn: str, kernel_size, dilation, padding, stride):
    return (_per_axis(kernel_size, 2, fn, "kernel_size", 1), _per_axis(dilation, 2, fn, "dilation", 1),
            _per_axis(padding, 2, fn, "padding"), _per_axis(stride, 2, fn, "stride", 1))


def _blocks(fn: str, spatial, kernel, dilation, padding, stride):
    out = tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, k, d, p, s in zip(spatial, kernel, dilation, padding, stride))
    if any(o < 1 for o in out):
        raise ShapeError(f"{fn}: kernel {kernel} (dilation {dilation}) does not fit the spatial size {spatial} "
                         f"padded by {padding}")
    return out


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """torch.nn.functional.unfold (im2col): (N, C, H, W) or (C, H, W) to (N, C * kh * kw, L), column l
    holding the zero-padded block at block position l (row-major), its rows ordered (c, i, j). Each of the
    kh * kw kernel taps is one strided slice of the padded input."""
    fn = "frame.nn.unfold"

    def body(x):
        n, c, *spatial = _shape(x)
        kernel, dil, pad_, strides = _fold_args(fn, kernel_size, dilation, padding, stride)
        out = _blocks(fn, spatial, kernel, dil, pad_, strides)
        xp = fnp.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad_])
        cols = fnp.stack(_taps(xp, kernel, dil, strides, out), axis=2)     # (N, C, kh * kw, oh, ow)
        return fnp.reshape(cols, (n, c * math.prod(kernel), math.prod(out)))
    return _batched(body, input, 2, fn)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """torch.nn.functional.fold (col2im), the adjoint of `unfold`: (N, C * kh * kw, L) or (C * kh * kw, L) to
    (N, C, *output_size), overlapping blocks summed. Each kernel tap's (N, C, *blocks) columns are spread
    over the padded output by one interior-padding `pad` op; the sum is cropped to output_size."""
    fn = "frame.nn.fold"
    shape = _shape(input)
    if len(shape) not in (2, 3):
        raise ShapeError(f"{fn}: input must be (N, C * kh * kw, L) or (C * kh * kw, L), got shape {shape}")
    kernel, dil, pad_, strides = _fold_args(fn, kernel_size, dilation, padding, stride)
    size = _per_axis(output_size, 2, fn, "output_size", 1)
    out = _blocks(fn, size, kernel, dil, pad_, strides)
    taps = math.prod(kernel)
    if shape[-2] % taps or shape[-1] != math.prod(out):
        raise ShapeError(f"{fn}: input {shape} must be (N, C * {taps}, {math.prod(out)}) for kernel {kernel} and "
                         f"output_size {size} ({out} blocks)")

    def body(x):
        n, ck, _ = _shape(x)
        c = ck // taps
        cols = fnp.reshape(x, (n, c, taps) + out)
        canvas = tuple(m + 2 * p for m, p in zip(size, pad_))
        total = None
        for t, offsets in enumerate(itertools.product(*(range(k) for k in kernel))):
            block = fnp.reshape(fnp.slice_axes(cols, (0, 0, t, 0, 0), (n, c, t + 1) + out), (n, c) + out)
            lo = tuple(i * d for i, d in zip(offsets, dil))
            hi = tuple(m - b - (o - 1) * s - 1 for m, b, o, s in zip(canvas, lo, out, strides))
            placed = bind("pad", block, lo=(0, 0) + lo, hi=(0, 0) + hi, interior=(0, 0) + tuple(s - 1 for s in strides))
            total = placed if total is None else total + placed
        return fnp.slice_axes(total, (0, 0) + pad_, (n, c) + tuple(p + m for p, m in zip(pad_, size)))
    if len(shape) == 3:
        return body(input)
    y = body(fnp.expand_dims(input, 0))
    return fnp.reshape(y, _shape(y)[1:])


# -- torch.nn.functional's losses -----------------------------------------------------------------------
def _reduction(size_average, reduce, reduction, fn: str, extra=()) -> str:
    """torch's reduction: 'none', 'mean' or 'sum' (and `extra` ones), or its deprecated size_average/reduce
    pair when either is given (reduce=False: 'none'; size_average=False: 'sum')."""
    if size_average is not None or reduce is not None:
        if reduce is False:
            reduction = "none"
        else:
            reduction = "sum" if size_average is False else "mean"
    if reduction not in ("none", "mean", "sum") + tuple(extra):
        raise ShapeError(f"{fn}: reduction must be one of {('none', 'mean', 'sum') + tuple(extra)}, got {reduction!r}")
    return reduction


def _reduce(loss, reduction: str):
    if reduction == "none":
        return loss
    return fnp.sum(loss) if reduction == "sum" else fnp.mean(loss)


def _same_shape(a, b, fn: str, what: str = "target", of: str = "input"):
    if _shape(a) != _shape(b):
        raise ShapeError(f"{fn}: {what} must have the {of}'s shape {_shape(b)}, got {_shape(a)}")


def _weighted_loss(loss, input, weight, reduction: str, fn: str, normalised_mean: bool):  # noqa: A002
    """torch's optional elementwise `weight` (of the input's shape): the mean is sum(w l) / sum(w)
    (mse_loss, l1_loss) or the plain mean of w l (huber_loss)."""
    if weight is None:
        return _reduce(loss, reduction)
    _same_shape(weight, input, fn, "weight")
    loss = loss * weight
    if reduction == "mean" and normalised_mean:
        return fnp.sum(loss) / fnp.sum(weight)
    return _reduce(loss, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    """torch.nn.functional.mse_loss: (input - target)^2 (the two broadcast), reduced; with `weight` (the
    input's shape) w (input - target)^2, whose mean is divided by sum(w)."""
    fn = "frame.nn.mse_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    return _weighted_loss(fnp.square(input - target), input, weight, reduction, fn, True)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    """torch.nn.functional.l1_loss: |input - target|, reduced; `weight` as in `mse_loss`."""
    fn = "frame.nn.l1_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    return _weighted_loss(fnp.abs(input - target), input, weight, reduction, fn, True)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):  # noqa: A002
    """torch.nn.functional.smooth_l1_loss: with d = |input - target|, 0.5 d^2 / beta where d < beta and
    d - 0.5 beta elsewhere (beta = 0: the l1 loss)."""
    fn = "frame.nn.smooth_l1_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    if beta < 0:
        raise ShapeError(f"{fn}: beta must be >= 0, got {beta!r}")
    d = fnp.abs(input - target)
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce(fnp.where(d < beta, 0.5 * fnp.square(d) / beta, d - 0.5 * beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):  # noqa: A002
    """torch.nn.functional.huber_loss: with d = |input - target|, 0.5 d^2 where d < delta and
    delta (d - 0.5 delta) elsewhere; `weight` (the input's shape) multiplies it before the plain reduction."""
    fn = "frame.nn.huber_loss"
    reduction = _reduction(None, None, reduction, fn)
    if not delta > 0:
        raise ShapeError(f"{fn}: delta must be positive, got {delta!r}")
    d = fnp.abs(input - target)
    loss = fnp.where(d < delta, 0.5 * fnp.square(d), delta * (d - 0.5 * delta))
    return _weighted_loss(loss, input, weight, reduction, fn, False)


def _class_layout(input, fn: str):  # noqa: A002
    """(class axis, number of classes) of torch's (C,), (N, C) or (N, C, d1, ...) scores."""
    shape = _shape(input)
    if not shape:
        raise ShapeError(f"{fn}: input must be (C,), (N, C) or (N, C, d1, ...), got a scalar")
    axis = 0 if len(shape) == 1 else 1
    return axis, shape[axis]


def _class_weight(weight, axis: int, c: int, rank: int, fn: str):
    """weight (C,) shaped to broadcast along the class axis."""
    if _shape(weight) != (c,):
        raise ShapeError(f"{fn}: weight must have shape ({c},) (one per class), got {_shape(weight)}")
    return fnp.reshape(weight, tuple(c if i == axis else 1 for i in range(rank)))


def _nll(logp, target, weight, ignore_index: int, reduction: str, fn: str, label_smoothing: float = 0.0):
    """torch's nll_loss of log-probabilities `logp` at class indices `target`, with cross_entropy's
    label smoothing: -w[t] logp[t] per position (0 where t == ignore_index); 'mean' divides the sum by
    sum(w[t]) over the positions not ignored. The class is picked by comparison with every class index
    (a one-hot mask), so traced targets work; out-of-range concrete targets are refused."""
    shape = _shape(logp)
    axis, c = _class_layout(logp, fn)
    want = shape[:axis] + shape[axis + 1:]
    if _shape(target) != want:
        raise ShapeError(f"{fn}: class-index target must have shape {want} for input {shape}, got {_shape(target)}")
    ignore_index = _int(ignore_index, fn, "ignore_index")
    if not isinstance(target, Tracer):
        t = _np.asarray(target)
        bad = t[(t != ignore_index) & ((t < 0) | (t >= c))]
        if bad.size:
            raise ShapeError(f"{fn}: target {bad.flat[0]} is out of bounds for {c} classes")
    hit = fnp.expand_dims(target, axis) == _np.arange(c).reshape(tuple(c if i == axis else 1 for i in range(len(shape))))
    keep = target != ignore_index
    picked = fnp.sum(fnp.where(hit, logp, 0.0), axis=axis)
    if weight is None:
        w, wc = fnp.astype(keep, _dtype(logp)), None
    else:
        wc = _class_weight(weight, axis, c, len(shape), fn)
        w = fnp.where(keep, fnp.sum(fnp.where(hit, wc, 0.0), axis=axis), 0.0)
    loss = fnp.where(keep, -picked * w, 0.0)
    total = fnp.sum(w)
    out = fnp.sum(loss) / total if reduction == "mean" else _reduce(loss, reduction)
    if not label_smoothing:
        return out
    smooth = fnp.where(keep, -fnp.sum(logp if wc is None else logp * wc, axis=axis), 0.0)
    smooth = fnp.sum(smooth) / total if reduction == "mean" else _reduce(smooth, reduction)
    return (1.0 - label_smoothing) * out + smooth * (label_smoothing / c)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
             reduction="mean"):
    """torch.nn.functional.nll_loss: input (C,), (N, C) or (N, C, d1, ...) log-probabilities, integer
    target () / (N,) / (N, d1, ...); -weight[t] input[t] per position, none where t == ignore_index,
    'mean' dividing by the sum of the weights of the positions kept (nan when all are ignored, as torch).
    Traced targets outside [0, C) other than ignore_index give 0 (torch raises)."""
    fn = "frame.nn.nll_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    if _np.dtype(_dtype(target)).kind not in "iu":
        raise ShapeError(f"{fn}: target must hold integer class indices, got {_dtype(target)}")
    return _nll(input, target, weight, ignore_index, reduction, fn)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
                  reduction="mean", label_smoothing=0.0):
    """torch.nn.functional.cross_entropy: log_softmax over the class axis of input (C,), (N, C) or
    (N, C, d1, ...), then

    - integer target (class indices, the input's shape without the class axis): `nll_loss` with
      `weight` and `ignore_index`; label_smoothing e mixes in e / C times -sum_c w_c logp_c, so 'mean'
      divides both by the kept positions' weight sum (torch's weighted mean);
    - float target (class probabilities, the input's shape): -sum_c w_c p_c logp_c with
      p = (1 - e) target + e / C; 'mean' averages over the positions (not the weights).
    """
    fn = "frame.nn.cross_entropy"
    reduction = _reduction(size_average, reduce, reduction, fn)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ShapeError(f"{fn}: label_smoothing must be in [0, 1], got {label_smoothing!r}")
    axis, c = _class_layout(input, fn)
    logp = fnp.log_softmax(input, axis=axis)
    kind = _np.dtype(_dtype(target)).kind
    if kind in "iu":
        return _nll(logp, target, weight, ignore_index, reduction, fn, label_smoothing)
    if kind != "f":
        raise ShapeError(f"{fn}: target must be class indices (integers) or class probabilities (floats), "
                         f"got {_dtype(target)}")
    _same_shape(target, input, fn, "a class-probability target")
    if ignore_index >= 0:
        raise ShapeError(f"{fn}: ignore_index is not supported for class-probability targets, got {ignore_index}")
    if label_smoothing:
        target = target * (1.0 - label_smoothing) + label_smoothing / c
    if weight is not None:
        logp = logp * _class_weight(weight, axis, c, len(_shape(input)), fn)
    return _reduce(-fnp.sum(logp * target, axis=axis), reduction)


def _log_clamped(x):
    """torch's binary_cross_entropy log, clamped at -100 (also where x = 0, without a nan derivative)."""
    tiny = math.exp(-100.0)
    return fnp.where(x > tiny, fnp.log(fnp.where(x > tiny, x, 1.0)), -100.0)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    """torch.nn.functional.binary_cross_entropy: -w (t log(x) + (1 - t) log(1 - x)) with each log clamped
    at -100, as torch; weight broadcasts to the input. Concrete inputs outside [0, 1] are refused. The
    derivative is that of this formula (0 where a log is clamped; torch's own is (x - t) / max(x (1 - x), 1e-12))."""
    fn = "frame.nn.binary_cross_entropy"
    reduction = _reduction(size_average, reduce, reduction, fn)
    _same_shape(target, input, fn)
    if not isinstance(input, Tracer) and _np.any((_np.asarray(input) < 0) | (_np.asarray(input) > 1)):
        raise ShapeError(f"{fn}: all elements of input should be between 0 and 1")
    loss = -(target * _log_clamped(input) + (1.0 - target) * _log_clamped(1.0 - input))
    return _reduce(loss if weight is None else loss * weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                     reduction="mean", pos_weight=None):
    """torch.nn.functional.binary_cross_entropy_with_logits: w ((1 - t) x + (1 + (p - 1) t) softplus(-x)),
    i.e. -w (p t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))) computed stably; weight broadcasts to
    the input, pos_weight p along its last (class) axis."""
    fn = "frame.nn.binary_cross_entropy_with_logits"
    reduction = _reduction(size_average, reduce, reduction, fn)
    _same_shape(target, input, fn)
    scale = 1.0 if pos_weight is None else (pos_weight - 1.0) * target + 1.0
    loss = (1.0 - target) * input + scale * fnp.softplus(-input)
    return _reduce(loss if weight is None else loss * weight, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):  # noqa: A002
    """torch.nn.functional.kl_div with input log-probabilities: target (log(target) - input), 0 where
    target = 0 (xlogy), or exp(target) (target - input) with log_target. reduction 'batchmean' divides
    the sum by input.shape[0] (the KL divergence per sample); 'mean' averages over every element."""
    fn = "frame.nn.kl_div"
    reduction = _reduction(size_average, reduce, reduction, fn, ("batchmean",))
    if log_target:
        loss = fnp.exp(target) * (target - input)
    else:
        zero = target == 0
        loss = fnp.where(zero, 0.0, target * fnp.log(fnp.where(zero, 1.0, target))) - target * input
    if reduction == "batchmean":
        return fnp.sum(loss) / (_shape(input)[0] if _shape(input) else 1)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,  # noqa: A002
                     reduce=None, reduction="mean"):
    """torch.nn.functional.poisson_nll_loss: exp(input) - target input (log_input), or
    input - target log(input + eps); `full` adds Stirling's target log(target) - target +
    0.5 log(2 pi target) where target > 1."""
    fn = "frame.nn.poisson_nll_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    if log_input:
        loss = fnp.exp(input) - target * input
    else:
        loss = input - target * fnp.log(input + eps)
    if full:
        big = target > 1
        t = fnp.where(big, target, 2.0)
        loss = loss + fnp.where(big, t * fnp.log(t) - t + 0.5 * fnp.log(2.0 * math.pi * t), 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):  # noqa: A002
    """torch.nn.functional.gaussian_nll_loss: 0.5 (log(v) + (input - target)^2 / v) (+ 0.5 log(2 pi) with
    `full`), v = var clamped below at eps with the clamp left out of the derivative (as torch's no_grad
    clamp). var: a float, the input's shape, that shape without its last axis, or the input's shape with
    one axis of size 1 (homoscedastic). Concrete negative variances are refused."""
    fn = "frame.nn.gaussian_nll_loss"
    reduction = _reduction(None, None, reduction, fn)
    shape = _shape(input)
    if isinstance(var, (int, float)):
        if var < 0:
            raise ShapeError(f"{fn}: var has negative entry/entries")
        var = fnp.full_like(input, float(var))
    elif not isinstance(var, Tracer) and _np.any(_np.asarray(var) < 0):
        raise ShapeError(f"{fn}: var has negative entry/entries")
    vs = _shape(var)
    if vs != shape:
        if vs == shape[:-1]:
            var = fnp.expand_dims(var, -1)
        elif not (len(vs) == len(shape) and sum(b for a, b in zip(shape, vs) if a != b) == 1):
            raise ShapeError(f"{fn}: var of shape {vs} is of incorrect size for input {shape}")
    var = var + stop_gradient(fnp.maximum(var, eps) - var)
    loss = 0.5 * (fnp.log(var) + fnp.square(input - target) / var)
    if full:
        loss = loss + 0.5 * math.log(2.0 * math.pi)
    return _reduce(loss, reduction)


def _clamped_norm(x, axis: int, eps: float):
    """||x||_2 along axis (kept), clamped below at eps outside the derivative (torch's no_grad clamp_min_)."""
    size = fnp.linalg.norm(x, axis=axis, keepdims=True)
    return size + stop_gradient(fnp.maximum(size, eps) - size)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """torch.nn.functional.cosine_similarity: sum((x1 / max(||x1||, eps)) (x2 / max(||x2||, eps))) along
    `dim` of the broadcast operands (torch's form, each normalised first; the clamp is not differentiated)."""
    shape = fnp.broadcast_shapes(_shape(x1), _shape(x2))
    x1, x2 = fnp.broadcast_to(x1, shape), fnp.broadcast_to(x2, shape)
    axis = _axis(dim, len(shape), "frame.nn.cosine_similarity")
    return fnp.sum((x1 / _clamped_norm(x1, axis, eps)) * (x2 / _clamped_norm(x2, axis, eps)), axis=axis)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """torch.nn.functional.pairwise_distance: the p-norm of x1 - x2 + eps along the last axis of the
    broadcast operands (p = 0 counts the nonzeros, p = inf takes the largest magnitude)."""
    rank = len(fnp.broadcast_shapes(_shape(x1), _shape(x2)))
    return fnp.linalg.norm(x1 - x2 + eps, ord=p, axis=rank - 1, keepdims=keepdim)


def pdist(input, p=2):  # noqa: A002
    """torch.nn.functional.pdist: the p-norm distances between the rows i < j of input (N, M), in
    row-major order of (i, j): shape (N (N - 1) / 2,). At equal rows the 2-norm's derivative is nan
    (JAX's norm rule; torch's is 0)."""
    fn = "frame.nn.pdist"
    shape = _shape(input)
    if len(shape) != 2:
        raise ShapeError(f"{fn}: input must be (N, M), got shape {shape}")
    if p < 0:
        raise ShapeError(f"{fn}: p must be >= 0, got {p!r}")
    i, j = _np.triu_indices(shape[0], 1)
    return fnp.linalg.norm(fnp.take(input, i, axis=0) - fnp.take(input, j, axis=0), ord=p, axis=1)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """torch.nn.functional.cosine_embedding_loss: with cos = x1.x2 / sqrt((|x1|^2 + 1e-12)(|x2|^2 + 1e-12))
    over the last axis of (N, D) or (D,) inputs, 1 - cos where target = 1 and max(0, cos - margin)
    where target = -1 (0 for other targets)."""
    fn = "frame.nn.cosine_embedding_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    s1, s2 = _shape(input1), _shape(input2)
    if s1 != s2 or len(s1) not in (1, 2) or _shape(target) != s1[:-1]:
        raise ShapeError(f"{fn}: input1 and input2 must both be (N, D) or (D,) with target (N,) or (), got "
                         f"{s1}, {s2} and target {_shape(target)}")
    axis = len(s1) - 1
    dot = fnp.sum(input1 * input2, axis=axis)
    cos = dot / fnp.sqrt((fnp.sum(fnp.square(input1), axis=axis) + 1e-12) * (fnp.sum(fnp.square(input2), axis=axis) + 1e-12))
    loss = fnp.where(target == 1, 1.0 - cos, 0.0) + fnp.where(target == -1, fnp.maximum(cos - margin, 0.0), 0.0)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """torch.nn.functional.margin_ranking_loss: max(0, -target (input1 - input2) + margin)."""
    fn = "frame.nn.margin_ranking_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    if not (_shape(input1) == _shape(input2) == _shape(target)):
        raise ShapeError(f"{fn}: input1, input2 and target must have one shape, got {_shape(input1)}, "
                         f"{_shape(input2)} and {_shape(target)}")
    return _reduce(fnp.maximum(-target * (input1 - input2) + margin, 0.0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    """torch.nn.functional.hinge_embedding_loss: input where target != -1, plus max(0, margin - input)
    where target != 1 (so target 1: input; -1: max(0, margin - input))."""
    fn = "frame.nn.hinge_embedding_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    loss = fnp.where(target != 1, fnp.maximum(margin - input, 0.0), 0.0) + fnp.where(target != -1, input, 0.0)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    """torch.nn.functional.soft_margin_loss: log(1 + exp(-target input)), as a stable softplus."""
    fn = "frame.nn.soft_margin_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    return _reduce(fnp.softplus(-target * input), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """torch.nn.functional.triplet_margin_loss: max(0, margin + d(a, p) - d(a, n)) with d
    `pairwise_distance` (p, eps) over (N, D) or (D,) inputs; `swap` uses min(d(a, n), d(p, n))."""
    fn = "frame.nn.triplet_margin_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    ranks = {len(_shape(t)) for t in (anchor, positive, negative)}
    if len(ranks) != 1 or ranks.pop() not in (1, 2):
        raise ShapeError(f"{fn}: anchor, positive and negative must all be (N, D) or (D,), got "
                         f"{_shape(anchor)}, {_shape(positive)} and {_shape(negative)}")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = fnp.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(fnp.maximum(margin + d_pos - d_neg, 0.0), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                reduction="mean"):
    """torch.nn.functional.multilabel_soft_margin_loss: the mean over the last (class) axis of
    -w (t log sigmoid(x) + (1 - t) log sigmoid(-x)), one value per sample, then reduced."""
    fn = "frame.nn.multilabel_soft_margin_loss"
    reduction = _reduction(size_average, reduce, reduction, fn)
    loss = -(target * logsigmoid(input) + (1.0 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    shape = _shape(input)
    return _reduce(fnp.sum(loss, axis=-1) / (shape[-1] if shape else 1), reduction)


# -- more of torch.nn.functional's activations, normalisations and layers ----------------------------------
def softsign(x):
    """x / (1 + |x|)."""
    return x / (1.0 + fnp.abs(x))


def softmin(x, dim: int):
    """softmax(-x) along `dim` (required, as for `softmax`)."""
    return fnp.softmax(-x, axis=dim)


def tanhshrink(x):
    """x - tanh(x)."""
    return x - fnp.tanh(x)


def hardshrink(x, lambd: float = 0.5):
    """x where |x| > lambd, else 0."""
    return fnp.where(fnp.abs(x) > lambd, x, 0.0)


def softshrink(x, lambd: float = 0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between (lambd >= 0)."""
    if lambd < 0:
        raise ShapeError(f"frame.nn.softshrink: lambd must be >= 0, got {lambd!r}")
    return fnp.where(x > lambd, x - lambd, fnp.where(x < -lambd, x + lambd, 0.0))


def threshold(x, threshold: float, value: float):
    """x where x > threshold, else value (torch's in-place variant has no counterpart)."""
    return fnp.where(x > threshold, x, value)


def hardsigmoid(x):
    """relu6(x + 3) / 6: 0 below -3, 1 above 3, x / 6 + 1 / 2 between (jax.nn.hard_sigmoid too)."""
    return relu6(x + 3.0) / 6.0


def hardswish(x):
    """x hardsigmoid(x) (jax.nn.hard_silu / hard_swish too)."""
    return x * hardsigmoid(x)


def prelu(input, weight):  # noqa: A002
    """torch.nn.functional.prelu: x where x > 0, else weight x; weight holds one slope, or one per
    channel (axis 1 of an input of rank >= 2)."""
    ws, shape = _shape(weight), _shape(input)
    channels = shape[1] if len(shape) >= 2 else 1
    size = math.prod(ws)
    if len(ws) > 1 or size not in (1, channels):
        raise ShapeError(f"frame.nn.prelu: weight must be a scalar or 1-D with 1 or {channels} (the channels of "
                         f"input {shape}) elements, got shape {ws}")
    slope = fnp.reshape(weight, () if size == 1 else (channels,) + (1,) * (len(shape) - 2))
    return fnp.where(input > 0, input, slope * input)


def _normalized_axes(input, normalized_shape, fn: str) -> tuple[int, ...]:  # noqa: A002
    shape = tuple(_ints(normalized_shape, fn, "normalized_shape"))
    full = _shape(input)
    if not shape or full[len(full) - len(shape):] != shape or len(shape) > len(full):
        raise ShapeError(f"{fn}: normalized_shape {shape} must end the input's shape {full}")
    return tuple(range(len(full) - len(shape), len(full)))


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    """torch.nn.functional.rms_norm: x / sqrt(mean(x^2) + eps) over the trailing `normalized_shape` axes,
    times `weight` (of that shape); eps None is the dtype's machine epsilon, as torch."""
    axes = _normalized_axes(input, normalized_shape, "frame.nn.rms_norm")
    if eps is None:
        eps = float(_np.finfo(_dtype(input)).eps)
    y = input / fnp.sqrt(fnp.mean(fnp.square(input), axis=axes, keepdims=True) + eps)
    return y if weight is None else y * weight


def _channel_affine(y, weight, bias, fn: str):
    """y * weight + bias with both (C,), broadcast along axis 1 of y (N, C, *)."""
    shape = _shape(y)
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and _shape(value) != (shape[1],):
            raise ShapeError(f"{fn}: {name} must have shape ({shape[1]},) (one per channel), got {_shape(value)}")
    per_channel = (shape[1],) + (1,) * (len(shape) - 2)
    if weight is not None:
        y = y * fnp.reshape(weight, per_channel)
    return y if bias is None else y + fnp.reshape(bias, per_channel)


def _channels_first(input, fn: str, least: int = 2):  # noqa: A002
    shape = _shape(input)
    if len(shape) < least:
        raise ShapeError(f"{fn}: input must be (N, C{', *spatial' if least > 2 else ', ...'}) with rank >= {least}, "
                         f"got shape {shape}")
    return shape


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """torch.nn.functional.group_norm: input (N, C, *) normalised (biased variance) over each group of
    C / num_groups channels and all its positions, then the per-channel affine weight, bias (C,)."""
    fn = "frame.nn.group_norm"
    shape = _channels_first(input, fn)
    g = _int(num_groups, fn, "num_groups")
    if g < 1 or shape[1] % g:
        raise ShapeError(f"{fn}: num_groups ({num_groups}) must divide the channels ({shape[1]}) of input {shape}")
    grouped = fnp.reshape(input, (shape[0], g, -1))
    y = fnp.reshape(fnp.layer_norm(grouped, axis=-1, eps=eps), shape)
    return _channel_affine(y, weight, bias, fn)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,  # noqa: A002
                  momentum=0.1, eps=1e-5):
    """torch.nn.functional.instance_norm: input (N, C, *spatial) normalised over the spatial axes of each
    (sample, channel) (biased variance), or by running_mean / running_var (C,) with use_input_stats=False;
    then the per-channel affine weight, bias. torch also updates given running buffers in place when
    use_input_stats; frame's values are never modified, so here they are only read (use_input_stats=False)."""
    fn = "frame.nn.instance_norm"
    shape = _channels_first(input, fn, 3)
    if use_input_stats:
        if math.prod(shape[2:]) == 1:
            raise ShapeError(f"{fn}: expected more than 1 spatial element when training, got input size {shape}")
        y = fnp.layer_norm(input, axis=tuple(range(2, len(shape))), eps=eps)
    else:
        if running_mean is None or running_var is None:
            raise ShapeError(f"{fn}: running_mean and running_var are needed when use_input_stats is False")
        y = _by_running_stats(input, running_mean, running_var, eps, fn)
    return _channel_affine(y, weight, bias, fn)


def _by_running_stats(input, mean, var, eps, fn: str):  # noqa: A002
    shape = _shape(input)
    for name, value in (("running_mean", mean), ("running_var", var)):
        if _shape(value) != (shape[1],):
            raise ShapeError(f"{fn}: {name} must have shape ({shape[1]},) (one per channel), got {_shape(value)}")
    per_channel = (shape[1],) + (1,) * (len(shape) - 2)
    return (input - fnp.reshape(mean, per_channel)) / fnp.sqrt(fnp.reshape(var, per_channel) + eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,  # noqa: A002
               eps=1e-5):
    """torch.nn.functional.batch_norm on input (N, C, *): normalised per channel by running_mean /
    running_var (C,) (training=False), or with training=True by the batch's own mean and biased variance
    over every axis but 1; then the per-channel affine weight, bias.

    torch's training mode also updates running_mean / running_var in place (momentum); frame cannot
    modify arrays in place, so the buffers are left unchanged here: compute the batch statistics and
    the new running averages yourself (running = (1 - momentum) running + momentum batch, with the
    unbiased batch variance) if you keep them.
    """
    fn = "frame.nn.batch_norm"
    shape = _channels_first(input, fn)
    if training:
        if shape[0] * math.prod(shape[2:]) == 1:
            raise ShapeError(f"{fn}: expected more than 1 value per channel when training, got input size {shape}")
        if eps <= 0:
            raise ShapeError(f"{fn}: eps must be positive during training, got {eps}")
        y = fnp.layer_norm(input, axis=(0,) + tuple(range(2, len(shape))), eps=eps)
    else:
        if running_mean is None or running_var is None:
            raise ShapeError(f"{fn}: running_mean and running_var must be given in evaluation mode (training=False)")
        y = _by_running_stats(input, running_mean, running_var, eps, fn)
    return _channel_affine(y, weight, bias, fn)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):  # noqa: A002
    """torch.nn.functional.local_response_norm: x / (k + alpha * a)^beta, a the mean of x^2 over a window
    of `size` channels (axis 1) around each, zero-padded by size // 2 before and (size - 1) // 2 after
    (torch's avg_pool over channels, which counts the padding)."""
    fn = "frame.nn.local_response_norm"
    shape = _channels_first(input, fn, 3)
    size = _int(size, fn, "size")
    if size < 1:
        raise ShapeError(f"{fn}: size must be >= 1, got {size}")
    if math.prod(shape) == 0:
        return input
    # The channel axis last: one avg_pool op over it.
    sq = fnp.moveaxis(fnp.square(input), 1, -1)
    div = bind("avg_pool", sq, window=(size,), strides=(1,), lo=(size // 2,), hi=((size - 1) // 2,))
    return input / (fnp.moveaxis(div, -1, 1) * alpha + k) ** beta


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """torch.nn.functional.pixel_shuffle: (*, C r^2, H, W) to (*, C, H r, W r), channel c r^2 + i r + j
    going to position (h r + i, w r + j) of channel c."""
    fn = "frame.nn.pixel_shuffle"
    shape = _shape(input)
    r = _int(upscale_factor, fn, "upscale_factor")
    if len(shape) < 3 or r < 1 or shape[-3] % (r * r):
        raise ShapeError(f"{fn}: input must be (*, C * {r}^2, H, W) for upscale_factor {r}, got shape {shape}")
    lead, (c, h, w) = shape[:-3], shape[-3:]
    c //= r * r
    y = fnp.reshape(input, lead + (c, r, r, h, w))
    n = len(lead)
    y = fnp.transpose(y, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return fnp.reshape(y, lead + (c, h * r, w * r))


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """torch.nn.functional.pixel_unshuffle, the inverse of `pixel_shuffle`: (*, C, H r, W r) to (*, C r^2, H, W)."""
    fn = "frame.nn.pixel_unshuffle"
    shape = _shape(input)
    r = _int(downscale_factor, fn, "downscale_factor")
    if len(shape) < 3 or r < 1 or shape[-2] % r or shape[-1] % r:
        raise ShapeError(f"{fn}: input must be (*, C, H * {r}, W * {r}) for downscale_factor {r}, got shape {shape}")
    lead, (c, h, w) = shape[:-3], shape[-3:]
    n = len(lead)
    y = fnp.reshape(input, lead + (c, h // r, r, w // r, r))
    y = fnp.transpose(y, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return fnp.reshape(y, lead + (c * r * r, h // r, w // r))


def channel_shuffle(input, groups):  # noqa: A002
    """torch.nn.functional.channel_shuffle: the channels (axis 1) of (N, C, *) read as (groups, C / groups)
    and transposed, so output channel i g' + j is input channel j (C / groups) + i."""
    fn = "frame.nn.channel_shuffle"
    shape = _channels_first(input, fn, 3)
    g = _int(groups, fn, "groups")
    if g < 1 or shape[1] % g:
        raise ShapeError(f"{fn}: groups ({groups}) must divide the channels ({shape[1]}) of input {shape}")
    y = fnp.reshape(input, (shape[0], g, shape[1] // g) + shape[2:])
    return fnp.reshape(fnp.swapaxes(y, 1, 2), shape)


def bilinear(input1, input2, weight, bias=None):
    """torch.nn.functional.bilinear: y_o = sum_ij x1_i weight[o, i, j] x2_j + bias_o for input1 (*, in1),
    input2 (*, in2), weight (out, in1, in2), bias (out,)."""
    s1, s2, ws = _shape(input1), _shape(input2), _shape(weight)
    if not s1 or s1[:-1] != s2[:-1] or len(ws) != 3 or ws[1:] != (s1[-1], s2[-1]):
        raise ShapeError(f"frame.nn.bilinear: input1 (*, in1), input2 (*, in2) and weight (out, in1, in2) do not "
                         f"match: {s1}, {s2}, {ws}")
    y = fnp.einsum("...i,oij,...j->...o", input1, weight, input2)
    return y if bias is None else y + bias


def _attention_weights(logits):
    """softmax over the last axis, 0 on rows that are entirely -inf (torch's _safe_softmax: a query
    every key is masked from attends to nothing) instead of nan."""
    live = fnp.any(logits != -_np.inf, axis=-1, keepdims=True)
    return fnp.where(live, fnp.softmax(fnp.where(live, logits, 0.0), axis=-1), 0.0)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False, *, dropout_key=None):
    """torch.nn.functional.scaled_dot_product_attention: softmax(q k^T * scale + mask) v for query
    (..., L, E), key (..., S, E), value (..., S, Ev) (leading axes broadcast), scale 1/sqrt(E) by
    default. attn_mask: bool (True attends) or float (added), broadcastable to (..., L, S); is_causal
    masks key j > query i (top-left aligned). Fully masked rows give 0, as torch. enable_gqa repeats
    each key/value head (axis -3) for its group of query heads. dropout_p > 0 drops attention weights
    (`dropout`) with the frame.random key `dropout_key`, which it then needs: frame's functions carry no
    hidden random state.
    """
    fn = "frame.nn.scaled_dot_product_attention"
    if dropout_p and dropout_key is None:
        raise ShapeError(f"{fn}: dropout_p={dropout_p!r} needs dropout_key= (a frame.random key): frame's functions "
                         "carry no hidden random state")
    qs, ks, vs = _shape(query), _shape(key), _shape(value)
    if min(len(qs), len(ks), len(vs)) < 2 or qs[-1] != ks[-1] or ks[-2] != vs[-2]:
        raise ShapeError(f"{fn}: query (..., L, E), key (..., S, E) and value (..., S, Ev) do not match: "
                         f"{qs}, {ks}, {vs}")
    if is_causal and attn_mask is not None:
        raise ShapeError(f"{fn}: give attn_mask or is_causal, not both")
    if enable_gqa:
        if min(len(qs), len(ks)) < 3 or qs[-3] % ks[-3] or ks[-3] != vs[-3]:
            raise ShapeError(f"{fn}: enable_gqa needs query heads (axis -3) a multiple of the key/value heads, "
                             f"got {qs}, {ks}, {vs}")
        key = fnp.repeat(key, qs[-3] // ks[-3], axis=-3)
        value = fnp.repeat(value, qs[-3] // ks[-3], axis=-3)
    scale = 1.0 / math.sqrt(qs[-1]) if scale is None else scale
    logits = fnp.matmul(query, fnp.swapaxes(key, -1, -2)) * scale
    keep = _np.tril(_np.ones((qs[-2], ks[-2]), bool)) if is_causal else None
    if attn_mask is not None:
        if _dtype(attn_mask) == "bool":
            keep = attn_mask
        else:
            logits = logits + fnp.astype(attn_mask, _dtype(logits))
    if keep is not None:
        logits = fnp.where(keep, logits, -_np.inf)
    weights = _attention_weights(logits)
    if dropout_p:
        weights = dropout(weights, dropout_p, key=dropout_key)
    return fnp.matmul(weights, value)


# -- dropout: random masks from an explicit frame.random key ------------------------------------------------
def _dropout(x, p, training: bool, key, mask_shape, fn: str):
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ShapeError(f"frame.nn.{fn}: p must be a probability in [0, 1], got {p!r}")
    x = fnp.asarray(x)
    if not training or p == 0.0:
        return x
    if key is None:
        raise ShapeError(f"frame.nn.{fn}: training with p={p} needs key= (a frame.random key, e.g. "
                         "frame.random.split(key)[1] per step): frame's functions carry no hidden random state")
    if p == 1.0:
        return fnp.zeros_like(x)
    dtype = _dtype(x) if _dtype(x) in ("float32", "float64") else "float64"
    keep = random.bernoulli(key, _np.array(1.0 - p, dtype), mask_shape)
    return fnp.where(keep, x / _np.array(1.0 - p, dtype), fnp.zeros_like(x))


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False, *, key=None):
    """torch.nn.functional.dropout with an explicit key: while `training`, each element is zeroed with probability
    `p` (a frame.random.bernoulli mask drawn from `key`, so the same key gives the same mask, traced or not) and
    the rest scaled by 1 / (1 - p); the identity otherwise. `inplace` is accepted and changes nothing."""
    return _dropout(input, p, training, key, _shape(fnp.asarray(input)), "dropout")


def _feature_dropout(rank: int):
    def feature_dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False, *, key=None):
        shape = _shape(fnp.asarray(input))
        if len(shape) not in (rank + 1, rank + 2):
            raise ShapeError(f"frame.nn.dropout{rank}d: input must be (N, C, ...) or (C, ...) with {rank} spatial "
                             f"axes, got shape {shape}")
        channels = len(shape) - rank
        return _dropout(input, p, training, key, shape[:channels] + (1,) * rank, f"dropout{rank}d")
    feature_dropout.__name__ = f"dropout{rank}d"
    feature_dropout.__doc__ = (f"torch.nn.functional.dropout{rank}d with an explicit key: whole channels of (N, C, "
                               f"...) or (C, ...) input ({rank} spatial axes) zeroed with probability p, the rest "
                               "scaled by 1 / (1 - p), while `training`.")
    return feature_dropout


dropout1d, dropout2d, dropout3d = (_feature_dropout(r) for r in (1, 2, 3))


# -- jax.nn's names ------------------------------------------------------------------------------------------
log_sigmoid = logsigmoid
swish = silu
hard_sigmoid = hardsigmoid
hard_silu = hard_swish = hardswish
soft_sign = softsign


def hard_tanh(x):
    """jax.nn.hard_tanh: x clipped to [-1, 1]."""
    return hardtanh(x)


def identity(x):
    """jax.nn.identity: x itself (as an array)."""
    return fnp.asarray(x)


def squareplus(x, b=4):
    """jax.nn.squareplus: (x + sqrt(x^2 + b)) / 2."""
    return (x + fnp.sqrt(fnp.square(x) + b)) / 2


def sparse_plus(x):
    """jax.nn.sparse_plus: 0 for x <= -1, (x + 1)^2 / 4 for -1 < x < 1, x for x >= 1."""
    return fnp.where(x <= -1.0, 0.0, fnp.where(x >= 1.0, x, fnp.square(x + 1.0) / 4))


def sparse_sigmoid(x):
    """jax.nn.sparse_sigmoid, the derivative of sparse_plus: clip((x + 1) / 2, 0, 1)."""
    return 0.5 * fnp.clip(x + 1.0, 0.0, 2.0)


def log1mexp(x):
    """jax.nn.log1mexp: log(1 - exp(-x)) for x >= 0, by log(-expm1(-x)) below log 2 and log1p(-exp(-x))
    above (Maechler's split)."""
    return fnp.where(x < math.log(2.0), fnp.log(-fnp.expm1(-x)), fnp.log1p(-fnp.exp(-x)))


def _count(x, axis, where, keepdims: bool, dtype):
    """The number of elements each reduction over `axis` sees: a number, or with `where` an array."""
    if where is None:
        shape = _shape(x)
        axes = range(len(shape)) if axis is None else [_axis(a, len(shape), "count") for a in _ints(axis, "count", "axis")]
        return float(math.prod(shape[a] for a in axes))
    return fnp.sum(fnp.astype(fnp.broadcast_to(where, _shape(x)), dtype), axis=axis, keepdims=keepdims)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """jax.nn.logsumexp (jax.scipy.special.logsumexp): log(sum(b exp(a))) over `axis`, computed stably
    (shifted by the max, held out of the derivative); `b` weights (broadcast to a), `where` a mask of
    the elements included; return_sign gives (log|sum|, sign(sum)), otherwise a negative sum is nan."""
    if b is None and where is None and not return_sign:
        return fnp.logsumexp(a, axis=axis, keepdims=keepdims)
    if where is not None:
        a = fnp.where(where, a, -_np.inf)
    top = stop_gradient(fnp.max(a, axis=axis, keepdims=True))
    top = fnp.where(fnp.isfinite(top), top, 0.0)
    terms = fnp.exp(a - top)
    total = fnp.sum(terms if b is None else terms * b, axis=axis, keepdims=True)
    out = (fnp.log(fnp.abs(total)) if return_sign else fnp.log(total)) + top
    if not keepdims:
        axes = tuple(range(len(_shape(out)))) if axis is None else axis
        out, total = fnp.squeeze(out, axes), fnp.squeeze(total, axes)
    return (out, fnp.sign(total)) if return_sign else out


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """jax.nn.logmeanexp: logsumexp(x) - log(n), n the number of elements reduced (those in `where`)."""
    lse = logsumexp(x, axis=axis, keepdims=keepdims, where=where)
    count = _count(x, axis, where, keepdims, _dtype(lse))
    return lse - (math.log(count) if isinstance(count, float) else fnp.log(count))


def _masked_mean(x, axis, where):
    if where is None:
        return fnp.mean(x, axis=axis, keepdims=True)
    return fnp.sum(fnp.where(where, x, 0.0), axis=axis, keepdims=True) / _count(x, axis, where, True, _dtype(x))


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *, algorithm="fast"):
    """jax.nn.standardize: (x - mean) / sqrt(variance + epsilon) over `axis` (None: all), the mean and
    variance of x (over the `where` elements) unless given. algorithm 'fast' (jax's default) takes the
    variance as mean(x^2) - mean^2 clipped at 0; 'stable' as mean((x - mean)^2)."""
    if algorithm not in ("fast", "stable"):
        raise ShapeError(f"frame.nn.standardize: algorithm must be 'fast' or 'stable', got {algorithm!r}")
    if mean is None:
        mean = _masked_mean(x, axis, where)
    if variance is None:
        if algorithm == "stable":
            variance = _masked_mean(fnp.square(x - mean), axis, where)
        else:
            variance = fnp.maximum(_masked_mean(fnp.square(x), axis, where) - fnp.square(mean), 0.0)
    return (x - mean) / fnp.sqrt(variance + epsilon)


def _as_4d(t):
    return None if t is None else fnp.reshape(t, (1,) * (4 - len(_shape(t))) + _shape(t))


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None, is_causal=False,
                          query_seq_lengths=None, key_value_seq_lengths=None, local_window_size=None,
                          implementation=None):
    """jax.nn.dot_product_attention in JAX's layout: query (B, T, N, H) or (T, N, H), key and value
    (B, S, K, H) with N a multiple of K (grouped-query attention: query head n reads key head n // (N/K)).
    softmax(q k^T * scale + bias) v with scale 1/sqrt(H) by default; bias and the boolean mask (True
    attends) broadcast to (B, N, T, S); is_causal, local_window_size (left, right) and the per-batch
    query/key_value_seq_lengths mask further, masked logits being set to JAX's large negative number
    (so a fully masked row averages every value, as JAX), and outputs past a query length are 0.
    The softmax runs in the operands' dtype (JAX computes it in float32). implementation must be None
    or 'xla'; return_residual is not offered.
    """
    fn = "frame.nn.dot_product_attention"
    if implementation not in (None, "xla"):
        raise ShapeError(f"{fn}: implementation must be None or 'xla', got {implementation!r}")
    qs = _shape(query)
    unbatched = len(qs) == 3
    if len(qs) not in (3, 4) or len(_shape(key)) != len(qs) or _shape(value) != _shape(key):
        raise ShapeError(f"{fn}: query must be (B, T, N, H) or (T, N, H) and key, value (B, S, K, H) or (S, K, H) "
                         f"alike, got {qs}, {_shape(key)}, {_shape(value)}")
    q, k, v = (fnp.reshape(t, (1,) + _shape(t)) if unbatched else t for t in (query, key, value))
    (b, t_len, n, h), (_, s_len, kh, _) = _shape(q), _shape(k)
    if _shape(k)[0] != b or _shape(k)[3] != h or kh < 1 or n % kh:
        raise ShapeError(f"{fn}: query {qs} and key {_shape(key)} must share batch and head size, with the query "
                         "heads a multiple of the key heads")
    g = n // kh
    scale = 1.0 / math.sqrt(h) if scale is None else scale
    logits = fnp.einsum("btkgh,bskh->bkgts", fnp.reshape(q, (b, t_len, kh, g, h)), k) * scale
    logits = fnp.reshape(logits, (b, n, t_len, s_len))
    if bias is not None:
        logits = logits + _as_4d(bias)
    keep = None if mask is None else _as_4d(mask)
    rows, cols = _np.arange(t_len)[:, None], _np.arange(s_len)[None, :]
    if is_causal:
        keep = _and(keep, rows >= cols)
    if local_window_size is not None:
        left, right = (local_window_size,) * 2 if isinstance(local_window_size, int) else local_window_size
        keep = _and(keep, (rows <= cols + left) & (rows >= cols - right))
    if query_seq_lengths is not None:
        q_live = _np.arange(t_len)[None, :] < fnp.reshape(query_seq_lengths, (-1, 1))
        keep = _and(keep, fnp.reshape(q_live, (b, 1, t_len, 1)))
    if key_value_seq_lengths is not None:
        kv_live = _np.arange(s_len)[None, :] < fnp.reshape(key_value_seq_lengths, (-1, 1))
        keep = _and(keep, fnp.reshape(kv_live, (b, 1, 1, s_len)))
    if keep is not None:
        dtype = _np.dtype(_dtype(logits))
        large = -0.7 * min(float(_np.finfo(dtype).max), float(_np.finfo(_np.float32).max))
        logits = fnp.where(keep, logits, _np.asarray(large, dtype))
    probs = fnp.reshape(fnp.softmax(logits, axis=-1), (b, kh, g, t_len, s_len))
    out = fnp.reshape(fnp.einsum("bkgts,bskh->btkgh", probs, v), (b, t_len, n, h))
    if query_seq_lengths is not None:
        out = fnp.where(fnp.reshape(q_live, (b, t_len, 1, 1)), out, 0.0)
    return fnp.reshape(out, qs) if unbatched else out


def _and(a, b):
    return b if a is None else fnp.logical_and(a, b)
