"""Complex numbers: `real`, `imag`, `conj`, `angle` and `complex` (re + i im) (issue 14 items 1 and 3).

Autodiff follows JAX's convention. A cotangent `g` of a complex value `y` pairs with a tangent `dy`
as `Re(g * dy)` (no conjugation), so the adjoint of a C-linear map is its plain transpose and the
gradient rule of a holomorphic op is `g * f'(z)`, exactly as for reals. For a real-valued `f` of
`z = x + iy` the gradient is therefore

    grad f(z) = df/dx - i df/dy        (jax.grad(lambda z: abs(z)**2)(z) == 2 * conj(z))

the conjugate of the "steepest ascent" direction; gradient descent on complex parameters steps by
`-conj(grad)`. The adjoints of the real-linear maps here follow from that pairing:

    real:    g -> complex(g, 0)          imag:    g -> complex(0, -g)
    conj:    g -> conj(g)                complex: g -> (real(g), -imag(g))
    angle:   g -> g * (-i conj(z) / |z|^2) = complex(-g y, -g x) / |z|^2   (nan at z = 0, as in JAX)
    abs:     g -> g * conj(z) / |z|, with |z| = 0 read as 1: 0 at z = 0, as in JAX
             (its block is in elementwise.py: |z| is real, in the dtype of z's parts)

As numpy does, `real`, `imag`, `conj` and `angle` take real operands too (real(x) = conj(x) = x,
imag(x) = 0, angle(x) = 0 or pi), whose gradients are the real parts of the above (angle's is 0
everywhere, also at x = 0 where JAX's atan2 rule gives nan).
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.types import TensorType, broadcast_dims
from ..tracing import prim, traced_gradient
from ..ir.registry import BROADCASTING, ELEMENTWISE, LINEAR, NodeContext, arity, broadcast_shapes, register_op, same_dtype
from .elementwise import sum_to_shape

REAL_OF = {"complex64": "float32", "complex128": "float64"}
COMPLEX_OF = {v: k for k, v in REAL_OF.items()}


def _inexact(op: str, t: TensorType) -> None:
    if not t.is_inexact:
        raise ShapeError(f"op '{op}' needs a float or complex operand, got {t}")


def _part_shape(ctx: NodeContext):
    """real/imag/angle: the real dtype of the operand's (real numbers give their own dtype)."""
    arity(ctx.op, ctx, 1)
    (x,) = ctx.input_types
    _inexact(ctx.op, x)
    return [TensorType(x.shape, REAL_OF.get(x.dtype, x.dtype), x.device)]


def _same_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    _inexact(ctx.op, ctx.input_types[0])
    return [ctx.input_types[0]]


def zeros_of(x, dtype: str | None = None) -> np.ndarray:
    """A zero constant of `x`'s shape (and `dtype`, default `x`'s)."""
    return np.zeros(x.shape, dtype or x.type.dtype)


def _real_grad(ctx, xs, ys, gys):
    x, g = xs[0], gys[0]
    return [prim.complex(g, zeros_of(g)) if x.type.is_complex else g]


def _imag_grad(ctx, xs, ys, gys):
    x, g = xs[0], gys[0]
    return [prim.complex(zeros_of(g), -g) if x.type.is_complex else None]


def _angle_grad(ctx, xs, ys, gys):
    z, g = xs[0], gys[0]
    if not z.type.is_complex:   # piecewise constant (0 or pi): zero off the kink at 0, taken as zero there
        return [None]
    re, im = prim.real(z), prim.imag(z)
    scale = g / (re * re + im * im)
    return [prim.complex(-(scale * im), -(scale * re))]


def _copy(f):
    # A fresh array: np.real of a real array is the array itself, of a complex one a strided view.
    return lambda x: np.array(f(x))


register_op("real", shape=_part_shape, kernel=_copy(np.real), num_inputs=1, traits=(ELEMENTWISE, LINEAR),
            gradient=traced_gradient(_real_grad), doc="real part (a real operand is returned as is)",
            jax="jnp.real", jax_imports=["real"], frontend=["real"])
register_op("imag", shape=_part_shape, kernel=_copy(np.imag), num_inputs=1, traits=(ELEMENTWISE, LINEAR),
            gradient=traced_gradient(_imag_grad), doc="imaginary part (zeros for a real operand)",
            jax="jnp.imag", jax_imports=["imag"], frontend=["imag"])
register_op("conj", shape=_same_shape, kernel=_copy(np.conjugate), num_inputs=1, traits=(ELEMENTWISE, LINEAR),
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [prim.conj(gys[0])]),
            doc="complex conjugate (a real operand is returned as is)", jax="jnp.conj",
            frontend=["conj", "conjugate"], ufuncs=["conjugate"])
register_op("angle", shape=_part_shape, kernel=lambda x: np.asarray(np.angle(x)).astype(REAL_OF.get(x.dtype.name, x.dtype)),
            num_inputs=1, traits=(ELEMENTWISE,), gradient=traced_gradient(_angle_grad),
            doc="argument atan2(imag, real) in radians (0 or pi for real operands)", jax="jnp.angle",
            frontend=["angle"])


def _complex_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    re, im = ctx.input_types
    dtype = same_dtype(ctx.op, [re, im])
    if dtype not in COMPLEX_OF:
        raise ShapeError(f"op 'complex' builds complex64/complex128 from float32/float64 parts, got {re} and {im}")
    return [TensorType(broadcast_dims(ctx.op, re.shape, im.shape), COMPLEX_OF[dtype], re.device)]


def _complex_kernel(re, im):
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), COMPLEX_OF[re.dtype.name])
    out.real, out.imag = re, im
    return out


def _complex_grad(ctx, xs, ys, gys):
    re, im = xs
    g = gys[0]
    return [sum_to_shape(prim.real(g), re.shape), sum_to_shape(-prim.imag(g), im.shape)]


register_op("complex", shape=_complex_shape, kernel=_complex_kernel, num_inputs=2,
            traits=(ELEMENTWISE, BROADCASTING, LINEAR), gradient=traced_gradient(_complex_grad),
            doc="re + i im from two float operands of one dtype (broadcast together)",
            jax=lambda J, re, im: J.lax.complex(*J.jnp.broadcast_arrays(re, im)), jax_imports=["complex"])
