"""Elementwise ops: arithmetic with numpy broadcasting, and unary math.

Each op is one `unary(...)`/`binary(...)` call: its numpy kernel and its gradient rule, written
with the same ops users call. Rules that can reuse the forward output do so (tanh, sigmoid,
exp, sqrt), as Paddle's custom VJPs do for stability.
"""
from __future__ import annotations

import functools
import math
import threading

import numpy as np

from ..ir.types import TensorType
from .. import numpy as fnp
from ..errors import ShapeError
from ..frontend.tracer import bind
from .schema import (ELEMENTWISE, INTERNAL, LINEAR, NodeContext, arity, broadcast_shapes, register_op, require_float,
                     same_dtype, traced_gradient)


def sum_to_shape(g, shape: tuple[int, ...]):
    """Reduce a broadcast gradient back to `shape` (Paddle's `reduce_as`): sum the broadcast axes."""
    if tuple(g.shape) == tuple(shape):
        return g
    lead = len(g.shape) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1)
    if axes:
        g = fnp.sum(g, axis=axes, keepdims=True)
    return fnp.reshape(g, shape)


def _check_operands(op: str, types, operands: str) -> None:
    """`operands`: "float" (float dtypes only), "numeric" (no bool, which numpy refuses too) or "any"."""
    for t in types:
        if operands == "float":
            require_float(op, t)
        elif operands == "numeric" and t.dtype == "bool":
            raise ShapeError(f"op '{op}' does not take bool operands (numpy refuses them too), got {t}")


def _unary_shape(operands: str):
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 1)
        _check_operands(ctx.op, ctx.input_types, operands)
        return [ctx.input_types[0]]
    return shape


def unary(name, kernel, rule, operands="float", traits=(), attrs=None, doc=""):
    """Register a one-input elementwise op; `rule(ctx, x, y, gy) -> gx` (None for zero)."""
    return register_op(
        name, shape=_unary_shape(operands), kernel=kernel, num_inputs=1, attrs=attrs, doc=doc,
        traits=(ELEMENTWISE, *traits),
        gradient=traced_gradient(lambda ctx, xs, ys, gys: [rule(ctx, xs[0], ys[0], gys[0])]))


def _binary_shape(operands: str):
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 2)
        a, b = ctx.input_types
        dtype = same_dtype(ctx.op, [a, b])
        _check_operands(ctx.op, [a], operands)
        return [TensorType(broadcast_shapes(ctx.op, a.shape, b.shape), dtype, a.device)]
    return shape


def binary(name, kernel, rule, operands="any", traits=(), doc=""):
    """Register a two-input broadcasting op; `rule(a, b, y, gy) -> (ga, gb)` before reduction to input shapes."""

    def gradient(ctx, xs, ys, gys):
        a, b = xs
        ga, gb = rule(a, b, ys[0], gys[0])
        return [None if ga is None else sum_to_shape(ga, a.shape), None if gb is None else sum_to_shape(gb, b.shape)]

    return register_op(name, shape=_binary_shape(operands), kernel=kernel, num_inputs=2, doc=doc,
                       traits=(ELEMENTWISE, *traits), gradient=traced_gradient(gradient))


# -- binary arithmetic ------------------------------------------------------------------------
binary("add", np.add, lambda a, b, y, gy: (gy, gy), traits=(LINEAR,), doc="a + b")
binary("sub", np.subtract, lambda a, b, y, gy: (gy, -gy), operands="numeric", traits=(LINEAR,), doc="a - b")
binary("mul", np.multiply, lambda a, b, y, gy: (gy * b, gy * a), doc="a * b")
# numpy's true division of integers gives floats; frame does not promote, so ints are refused.
binary("div", np.divide, lambda a, b, y, gy: (gy / b, -(gy * y) / b), operands="float", doc="a / b (true division)")

# -- unary math --------------------------------------------------------------------------------
unary("neg", np.negative, lambda ctx, x, y, gy: -gy, operands="numeric", traits=(LINEAR,), doc="-x")
unary("square", np.square, lambda ctx, x, y, gy: gy * (2.0 * x), doc="x * x")
unary("exp", np.exp, lambda ctx, x, y, gy: gy * y, doc="e ** x")
unary("log", np.log, lambda ctx, x, y, gy: gy / x, doc="natural logarithm")
unary("sin", np.sin, lambda ctx, x, y, gy: gy * fnp.cos(x), doc="sine")
unary("cos", np.cos, lambda ctx, x, y, gy: -(gy * fnp.sin(x)), doc="cosine")
# -- frame's float32 tanh ----------------------------------------------------------------------
# Where this process can build native kernels, float32 tanh is frame's own function, written twice:
# here in numpy and in C for the native tier (`frame_tanhf` in frame/runtime/native.py). Both run
# the same sequence of IEEE float32 operations and give the same bits (tests/ops/test_tanh_f32.py),
# so an executable gives the same results whichever tier runs a call, and the C version fuses into
# its chain as one vectorised loop (~0.1 ms against np.tanh's ~0.2 ms on 1024x64 float32). Without
# a C compiler (or with FRAME_NATIVE=off at start-up) every tier is numpy, and np.tanh is used.
# The numpy twin works in place in scratch arrays kept per shape and thread: fresh temporaries of
# this size cost a page fault per 4 KiB, several times the arithmetic on the reference machine.
_F = np.float32
_TANH_SMALL = tuple(map(_F, (-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1,
                             -3.33332819422e-1)))
_EXP_POLY = tuple(map(_F, (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
                           5.0000001201e-1)))
_SIGN = np.int32(-0x80000000)
_SCRATCH = threading.local()
# Kept for arrays up to 256K elements and 8 shapes a thread (at most ~56 MiB): the numpy twin only
# runs before an executable turns native, in eager calls and in constant folding.
_SCRATCH_MAX_ELEMENTS = 1 << 18
_SCRATCH_MAX_SHAPES = 8


def _scratch(shape: tuple) -> tuple:
    """Four float32 arrays, two int32 and a bool array of `shape`, reused by this thread."""
    pools = getattr(_SCRATCH, "pools", None)
    if pools is None:
        pools = _SCRATCH.pools = {}
    arrays = pools.get(shape)
    if arrays is None:
        arrays = (*(np.empty(shape, np.float32) for _ in range(4)), np.empty(shape, np.int32),
                  np.empty(shape, np.int32), np.empty(shape, bool))
        if math.prod(shape) <= _SCRATCH_MAX_ELEMENTS:
            if len(pools) >= _SCRATCH_MAX_SHAPES:
                pools.clear()
            pools[shape] = arrays
    return arrays


def tanh_f32(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """frame's float32 tanh: within 1.5 ulp of the correctly rounded result, inf and nan included.

    Cephes' odd polynomial w for |x| < 0.625; else (1 - e) / (1 + e) with e = exp(-2|x|) <= 0.29
    (no cancellation), where |x| is capped at 10 (tanh rounds to 1 beyond 9.01) so that exp's
    argument t lies in [-20, 0]: t = n ln2 + r with ln2 in two parts (n*ln2 exact), e^r by Cephes'
    degree-6 polynomial, 2^n (n >= -29) from its exponent bits. The sign bit of x is or-ed in last.
    """
    x = np.asarray(x, np.float32)
    if out is None:
        out = np.empty(x.shape, np.float32)
    with np.errstate(all="ignore"):   # the branch not taken may overflow (x*x) or meet inf - inf
        return _tanh_f32_into(x, out)


def _tanh_f32_into(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    w, t, n, r, k, sign, small_x = _scratch(x.shape)
    np.bitwise_and(x.view(np.int32), _SIGN, out=sign)  # x is not read after `out` is written: out=x works
    np.abs(x, out=t)
    np.less(t, _F(0.625), out=small_x)
    np.multiply(x, x, out=r)                            # w = ((((c0 s + c1) s + c2) s + c3) s + c4) s x + x
    np.multiply(r, _TANH_SMALL[0], out=w)
    for c in _TANH_SMALL[1:]:
        w += c
        w *= r
    w *= x
    w += x
    np.minimum(t, _F(10.0), out=t)                      # nan stays nan
    t *= _F(-2.0)
    np.multiply(t, _F(1.44269504088896341), out=n)
    n += _F(0.5)
    np.floor(n, out=n)                                  # n in [-29, 0], or nan
    np.multiply(n, _F(0.693359375), out=r)
    np.subtract(t, r, out=r)
    np.multiply(n, _F(-2.12194440e-4), out=t)
    r -= t                                              # r = (t - n C1) - n C2
    np.multiply(r, _EXP_POLY[0], out=out)
    for c in _EXP_POLY[1:]:
        out += c
        if c is not _EXP_POLY[-1]:
            out *= r
    np.multiply(r, r, out=t)
    out *= t
    out += r
    out += _F(1.0)                                      # e^r = p(r) r^2 + r + 1
    np.copyto(k, n, casting="unsafe")                   # nan -> int is undefined: the result is nan anyway
    k += 127
    k <<= 23
    out *= k.view(np.float32)                           # e = e^r 2^n
    np.subtract(_F(1.0), out, out=t)
    out += _F(1.0)
    np.divide(t, out, out=out)                          # (1 - e) / (1 + e)
    bits, w_bits = out.view(np.int32), w.view(np.int32)
    np.subtract(0, small_x, out=k, dtype=np.int32)      # all ones where |x| < 0.625
    np.bitwise_xor(bits, w_bits, out=w_bits)
    w_bits &= k
    bits ^= w_bits                                      # select w where |x| < 0.625
    bits |= sign                                        # the sign of x (tanh(-0) = -0)
    return out


@functools.lru_cache(maxsize=1)
def own_tanh() -> bool:
    """Whether float32 tanh is frame's own function in this process (decided once, see above)."""
    from ..runtime import native

    return native.available()


def _tanh_kernel(x, out=None):
    x = np.asarray(x)
    if x.dtype == np.float32 and own_tanh():
        return tanh_f32(x, out)
    return np.tanh(x, out=out)


# square(y), not y*y: its own derivative is one term, so re-derived graphs grow slower (graph_growth.py).
unary("tanh", _tanh_kernel, lambda ctx, x, y, gy: gy * (1.0 - fnp.square(y)),
      doc="hyperbolic tangent (float32 where native kernels can be built: frame's own, within 1.5 ulp)")
unary("sqrt", np.sqrt, lambda ctx, x, y, gy: (0.5 * gy) / y, doc="square root")


def _sigmoid_kernel(x):
    # 0.5 * (1 + tanh(x/2)) is the logistic function without overflow in exp(-x) for large |x|.
    return (0.5 + 0.5 * _tanh_kernel(0.5 * x)).astype(x.dtype, copy=False)


unary("sigmoid", _sigmoid_kernel, lambda ctx, x, y, gy: gy * (y * (1.0 - y)), doc="logistic 1 / (1 + e^-x)")
unary("relu", lambda x: np.maximum(x, np.zeros((), x.dtype)),
      lambda ctx, x, y, gy: bind("relu_grad_internal", x, gy), doc="max(x, 0)")


def _pow_grad(ctx, x, y, gy):
    p = ctx.attrs["exponent"]
    if p == 0.0:
        return None
    if p == 1.0:
        return gy
    if p == 2.0:
        return gy * (2.0 * x)
    return gy * (p * fnp.power(x, p - 1.0))


unary("pow", lambda x, exponent: np.power(x, np.asarray(exponent, x.dtype)), _pow_grad,
      attrs={"exponent": ((float, int), True)}, doc="x ** exponent (a Python-number attribute)")
unary("stop_gradient", lambda x: x, lambda ctx, x, y, gy: None, operands="any",
      doc="identity whose gradient is zero")


# -- gradient helper --------------------------------------------------------------------------
def _relu_grad_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    x, gy = ctx.input_types
    same_dtype(ctx.op, [x, gy])
    if x.shape != gy.shape:
        raise ShapeError(f"op '{ctx.op}': x {x.shape} and gy {gy.shape} must have the same shape")
    return [gy]


# ARCH-068: g_x = 0 (relu'' is zero off the kink and taken as zero on it); g_gy = relu_grad(x, ggx).
register_op("relu_grad_internal", shape=_relu_grad_shape, num_inputs=2,
            kernel=lambda x, gy: np.where(x > 0, gy, np.zeros((), gy.dtype)),
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [None, bind("relu_grad_internal", xs[0], gys[0])]),
            traits=(INTERNAL, ELEMENTWISE, LINEAR), doc="gy where x > 0 else 0")
