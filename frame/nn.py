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
"""
from __future__ import annotations

import math

import numpy as _np

from .errors import ShapeError
from .frontend import numpy as fnp
from .frontend.args import _dtype, _int, _shape
from .frontend.sequence import associative_scan, segment_max, segment_min, segment_prod, segment_sum
from .frontend.transforms import stop_gradient
from .tracing import Tracer, bind

__all__ = ["conv", "conv_transpose", "max_pool", "avg_pool", "global_avg_pool", "global_max_pool", "upsample",
           "heaviside_surrogate", "embedding", "selective_scan", "associative_scan", "segment_sum", "segment_max",
           "segment_min", "segment_prod", "relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish",
           "softplus", "hardtanh", "logsigmoid", "sigmoid", "tanh", "softmax", "log_softmax", "glu", "normalize",
           "one_hot", "linear", "layer_norm"]


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
