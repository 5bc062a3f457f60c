"""Linear algebra: `matmul` (2-D and batched, numpy batch broadcasting, either operand read transposed),
numpy.linalg's solvers and decompositions: `solve`, `inv`, `det`, `slogdet`, `cholesky`, `eigh`,
`eigvals`/`eig` (general square matrices, complex results), `svd`, `qr`, and `lstsq`, and `triangular_solve` (lax.linalg's; scipy.linalg.solve_triangular's kernel),
and `lu` (lax.linalg's: partial pivoting, scipy's getrf kernel).

The decompositions run numpy's LAPACK kernels (triangular_solve scipy's); their gradient rules are
JAX's matrix-calculus rules, written with frame ops so that they differentiate again. Where JAX's
derivative is undefined frame's is too: repeated eigenvalues (eigh) or singular values (svd), zero
singular values of non-square matrices, singular matrices (inv, det, solve) give inf/nan; svd with
full_matrices=True of a non-square matrix has no gradient in JAX and raises GradientError here.
"""
from __future__ import annotations

import numpy as np

from ..errors import GradientError, LinAlgError, ShapeError
from ..ir.types import TensorType, broadcast_dims
from ..tracing import bind, prim, traced_gradient, traced_jvp
from . import rows_rules
from .batching_rules import LEADING, PER_EXAMPLE
from .elementwise import sum_to_shape
from ..ir.registry import BILINEAR, INTERNAL, NodeContext, arity, broadcast_shapes, register_op, require_float, same_dtype


def matmul_type(op: str, a: TensorType, b: TensorType, a_t: bool = False, b_t: bool = False) -> TensorType:
    """Type of `op(a, b)` where a/b are read transposed in their last two axes when a_t/b_t."""
    dtype = same_dtype(op, [a, b])
    if a.rank < 2 or b.rank < 2:
        raise ShapeError(f"op '{op}' needs operands of rank >= 2, got {a.shape} and {b.shape}")
    m, k = (a.shape[-1], a.shape[-2]) if a_t else (a.shape[-2], a.shape[-1])
    k2, n = (b.shape[-1], b.shape[-2]) if b_t else (b.shape[-2], b.shape[-1])
    if k != k2:
        raise ShapeError(f"op '{op}': inner dimensions differ for shapes {a.shape} and {b.shape} ({k} vs {k2})")
    batch = broadcast_dims(op, a.shape[:-2], b.shape[:-2])
    return TensorType(batch + (m, n), dtype, a.device)


def _shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    return [matmul_type(ctx.op, *ctx.input_types, a_t=ctx.attr("transpose_a", False),
                        b_t=ctx.attr("transpose_b", False))]


def _kernel(a, b, transpose_a=False, transpose_b=False):
    return np.matmul(np.swapaxes(a, -1, -2) if transpose_a else a, np.swapaxes(b, -1, -2) if transpose_b else b)


def _numpy(e, a, b):
    t = ".swapaxes(-1, -2)"
    return (f"{e.fn(np.matmul)}({a}{t if e.attrs.get('transpose_a') else ''}, "
            f"{b}{t if e.attrs.get('transpose_b') else ''}{e.out})")


def _jax(J, a, b, transpose_a=False, transpose_b=False):
    return J.jnp.matmul(J.jnp.swapaxes(a, -1, -2) if transpose_a else a, J.jnp.swapaxes(b, -1, -2) if transpose_b else b)


def _matmul(x, y, x_t: bool, y_t: bool):
    """matmul with only the flags that are set (a plain matmul has no attrs, as users bind it)."""
    return bind("matmul", x, y, **{k: True for k, on in (("transpose_a", x_t), ("transpose_b", y_t)) if on})


def _grad(ctx, xs, ys, gys):
    # C = op(A) op(B), op transposing when the flag says so (ARCH-068: the gradients are matmuls
    # again, read transposed, so every order of derivative stays in this one op).
    a, b = xs
    gy = gys[0]
    a_t, b_t = ctx.attr("transpose_a", False), ctx.attr("transpose_b", False)
    ga = _matmul(b, gy, b_t, True) if a_t else _matmul(gy, b, False, not b_t)
    gb = _matmul(gy, a, True, a_t) if b_t else _matmul(a, gy, not a_t, False)
    return [sum_to_shape(ga, a.shape), sum_to_shape(gb, b.shape)]


# Gradients read their operands transposed inside np.matmul (`swapaxes` is a view): no transpose is
# materialised (seed v0 list).
register_op("matmul", shape=_shape, kernel=_kernel, num_inputs=2, traits=(BILINEAR,),
            attrs={"transpose_a": ((bool,), False), "transpose_b": ((bool,), False)},
            gradient=traced_gradient(_grad), batch=LEADING, rows=rows_rules.matmul,
            doc="op(a) @ op(b) over the last two axes, op transposing them when transpose_a/transpose_b; "
                "batch axes broadcast",
            numpy=_numpy, numpy_out=True, jax=_jax, frontend=["matmul"], operators=["__matmul__", "__rmatmul__"],
            ufuncs=["matmul"], zero_operands=[0, 1])


# -- decompositions and solvers (numpy.linalg kernels, JAX's derivative rules) ------------------
# Each op takes stacks of matrices (leading batch axes) of a real float dtype, as numpy.linalg does
# for float32/float64. Gradient rules are the matrix-calculus rules JAX uses, written with frame ops
# (solve, matmul read transposed, masks as constants), so every derivative differentiates again.
# Where a derivative does not exist (repeated eigenvalues or singular values, a singular matrix) the
# rules divide by zero and give inf/nan, as JAX's do.

def _lapack(op: str, fn):
    """`fn` (a numpy.linalg call) raising frame's LinAlgError, which names the op and the shapes."""
    def kernel(*arrays, **attrs):
        try:
            return fn(*arrays, **attrs)
        except np.linalg.LinAlgError as e:
            shapes = " and ".join(str(a.shape) for a in arrays)
            raise LinAlgError(f"op '{op}': {e} (operand shape {shapes})") from None
    kernel.__name__ = f"{op}_kernel"
    return kernel


def _mT(x):
    """x with its last two axes swapped."""
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return prim.transpose(x, perm=perm)


def _tril_mask(n: int, dtype, k: int = 0) -> np.ndarray:
    return np.tril(np.ones((n, n)), k).astype(dtype)


def _from_triangle(p, lower: bool):
    """The gradient w.r.t. a matrix of which only one triangle is read (as a symmetric S), given the
    gradient `p` w.r.t. S: the off-diagonal entries collect p_ij + p_ji, the diagonal p_ii."""
    n = p.shape[-1]
    mask = _tril_mask(n, p.dtype) - 0.5 * np.eye(n, dtype=p.dtype)
    return (p + _mT(p)) * (mask if lower else np.ascontiguousarray(mask.T))


def _symmetric_from_triangle(jnp, a, lower: bool):
    """S = the symmetric matrix one triangle of `a` stands for (the JAX lowerings read what numpy reads)."""
    t = jnp.tril(a) if lower else jnp.triu(a)
    return t + jnp.swapaxes(jnp.tril(a, -1) if lower else jnp.triu(a, 1), -1, -2)


def _square_type(op: str, t: TensorType) -> TensorType:
    require_float(op, t)
    if t.rank < 2 or t.shape[-1] != t.shape[-2]:
        raise ShapeError(f"op '{op}' needs (stacks of) square matrices, got shape {t.shape}")
    return t


def _like(t: TensorType, shape, dtype=None) -> TensorType:
    return TensorType(tuple(shape), dtype or t.dtype, t.device)


def _rows(x):
    """x (..., n) as (..., 1, n): a row that broadcasts down a matrix's columns."""
    return prim.reshape(x, shape=tuple(x.shape[:-1]) + (1, x.shape[-1]))


def _cols(x):
    """x (..., n) as (..., n, 1)."""
    return prim.reshape(x, shape=tuple(x.shape) + (1,))


def _scalars(x):
    """x (...) as (..., 1, 1): one factor per matrix of a stack."""
    return prim.reshape(x, shape=tuple(x.shape) + (1, 1))


# -- solve ---------------------------------------------------------------------------------------
def _solve_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    a, b = ctx.input_types
    _square_type(ctx.op, a)
    same_dtype(ctx.op, [a, b])
    if b.rank < 2 or b.shape[-2] != a.shape[-1]:
        raise ShapeError(f"op '{ctx.op}': b must be (..., {a.shape[-1]}, k) for a of shape {a.shape}, got {b.shape}")
    return [_like(a, broadcast_dims(ctx.op, a.shape[:-2], b.shape[:-2]) + b.shape[-2:])]


def _solve_grad(ctx, xs, ys, gys):
    # x = a^-1 b: gb = a^-T g, ga = -gb x^T (summed over broadcast batch axes).
    a, b = xs
    gb = prim.solve(_mT(a), gys[0])
    ga = -_matmul(gb, ys[0], False, True)
    return [sum_to_shape(ga, a.shape), sum_to_shape(gb, b.shape)]


def _solve_jax(J, a, b):
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))   # as matrices, never jnp's vector reading
    return J.jnp.linalg.solve(J.jnp.broadcast_to(a, batch + a.shape[-2:]), J.jnp.broadcast_to(b, batch + b.shape[-2:]))


register_op("solve", shape=_solve_shape, kernel=_lapack("solve", np.linalg.solve), num_inputs=2,
            gradient=traced_gradient(_solve_grad), batch=LEADING,
            doc="x with a @ x = b for (stacks of) square a and matrices b (..., n, k); batch axes broadcast",
            jax=_solve_jax, frontend=["linalg.solve"], to_float=[0, 1])


# -- triangular_solve ----------------------------------------------------------------------------
# lax.linalg.triangular_solve with left_side=True, real matrices: op(a) x = b, op(a) = a or a^T,
# reading only a's triangle `lower` names (not its diagonal when unit_diagonal: ones there).
_TRIANGULAR_FLAGS = ("lower", "transpose_a", "unit_diagonal")


def triangular_solve(a, b, lower: bool = False, transpose_a: bool = False, unit_diagonal: bool = False):
    """The op with only the flags that are set (as `_matmul`: one spelling per node)."""
    flags = {k: True for k, on in zip(_TRIANGULAR_FLAGS, (lower, transpose_a, unit_diagonal)) if on}
    return bind("triangular_solve", a, b, **flags)


def _triangular_solve_kernel(a, b, lower=False, transpose_a=False, unit_diagonal=False):
    from scipy.linalg import solve_triangular   # scipy loads on first use, not with frame

    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
    x = np.empty(b.shape, a.dtype)
    for i in np.ndindex(batch):   # one LAPACK trtrs per matrix, as numpy.linalg's stacks
        try:
            x[i] = solve_triangular(a[i], b[i], trans=int(transpose_a), lower=lower, unit_diagonal=unit_diagonal,
                                    check_finite=False)
        except np.linalg.LinAlgError as e:
            raise LinAlgError(f"op 'triangular_solve': {e} (matrix {i} of a, shape {a.shape})") from None
    return x


def _triangle_mask(n: int, dtype, lower: bool, strict: bool) -> np.ndarray:
    """Ones on the entries of an (n, n) matrix that `triangular_solve` reads."""
    ones = np.ones((n, n), dtype)
    return np.tril(ones, -1) if lower and strict else np.tril(ones) if lower else np.triu(ones, int(strict))


def _triangular_solve_grad(ctx, xs, ys, gys):
    # JAX's rule: x = op(a)^-1 b gives gb = op(a)^-T g (the same triangle, transposed the other way),
    # and with d op(a) = op(da): ga = -gb x^T (op the identity) or -x gb^T (op the transpose),
    # restricted to the entries read (gradient zero on the other triangle and a unit diagonal).
    a, b = xs
    lower, t, unit = (ctx.attr(k, False) for k in _TRIANGULAR_FLAGS)
    x = ys[0]
    gb = triangular_solve(a, gys[0], lower, not t, unit)
    ga = -(_matmul(x, gb, False, True) if t else _matmul(gb, x, False, True))
    ga = sum_to_shape(ga, a.shape) * _triangle_mask(a.shape[-1], a.dtype, lower, unit)
    return [ga, sum_to_shape(gb, b.shape)]


def _triangular_solve_jax(J, a, b, lower=False, transpose_a=False, unit_diagonal=False):
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))   # lax takes equal batch axes only
    return J.lax.linalg.triangular_solve(J.jnp.broadcast_to(a, batch + a.shape[-2:]),
                                         J.jnp.broadcast_to(b, batch + b.shape[-2:]), left_side=True, lower=lower,
                                         transpose_a=transpose_a, unit_diagonal=unit_diagonal)


# No `jax_imports`: the primitive's parameters (left_side, lower, ...) must become attributes, which a
# one-to-one import does not pass; frame/interop/jax_rules_linalg.py translates it.
register_op("triangular_solve", shape=_solve_shape, kernel=_triangular_solve_kernel, num_inputs=2,
            attrs={k: ((bool,), False) for k in _TRIANGULAR_FLAGS},
            gradient=traced_gradient(_triangular_solve_grad), batch=LEADING,
            doc="x with op(a) @ x = b for (stacks of) triangular a and matrices b (..., n, k), op(a) = a^T when "
                "transpose_a; reads only a's lower (lower) or upper triangle, and not its diagonal (taken as "
                "ones) when unit_diagonal; batch axes broadcast. A zero on the diagonal raises LinAlgError",
            jax=_triangular_solve_jax)


# -- inv, det, slogdet ---------------------------------------------------------------------------
def _square_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    return [_square_type(ctx.op, ctx.input_types[0])]


def _batch_scalar_shape(n_out: int):
    def shape(ctx: NodeContext):
        arity(ctx.op, ctx, 1)
        a = _square_type(ctx.op, ctx.input_types[0])
        return [_like(a, a.shape[:-2])] * n_out
    return shape


def _inv_grad(ctx, xs, ys, gys):
    # d(a^-1) = -a^-1 da a^-1, so ga = -y^T g y^T.
    y = ys[0]
    return [-_matmul(_matmul(y, gys[0], True, False), y, False, True)]


def _inv_transposed(a):
    return _mT(prim.inv(a))


register_op("inv", shape=_square_shape, kernel=_lapack("inv", np.linalg.inv), num_inputs=1,
            gradient=traced_gradient(_inv_grad), batch=LEADING,
            doc="matrix inverse of (stacks of) square matrices", jax="jnp.linalg.inv", frontend=["linalg.inv"], to_float=[0])
# d det(a) = det(a) tr(a^-1 da): ga = g det(a) a^-T. Undefined (inf/nan) at singular a; JAX's rule
# there goes through a cofactor expansion instead.
register_op("det", shape=_batch_scalar_shape(1), kernel=np.linalg.det, num_inputs=1,
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [_scalars(gys[0] * ys[0]) * _inv_transposed(xs[0])]),
            batch=LEADING,
            doc="determinant of (stacks of) square matrices", jax="jnp.linalg.det", frontend=["linalg.det"], to_float=[0])
# sign is locally constant (zero gradient); d log|det a| = tr(a^-1 da).
register_op("slogdet", shape=_batch_scalar_shape(2), kernel=lambda a: tuple(np.linalg.slogdet(a)), num_inputs=1,
            gradient=traced_gradient(lambda ctx, xs, ys, gys: [_scalars(gys[1]) * _inv_transposed(xs[0])]),
            batch=LEADING,
            doc="(sign, log|det|) of (stacks of) square matrices; the sign has gradient zero",
            jax=lambda J, a: tuple(J.jnp.linalg.slogdet(a)), frontend=["linalg.slogdet"], to_float=[0])


# -- cholesky ------------------------------------------------------------------------------------
def _cholesky_grad(ctx, xs, ys, gys):
    # JAX's rule (Murray 2016): dL = L phi(L^-1 dS L^-T), phi = lower triangle with half its diagonal,
    # for symmetric dS; its adjoint is P = L^-T phi(L^T gL) L^-1, and the lower triangle read gives
    # _from_triangle(P).
    l, gl = ys[0], gys[0]
    n = l.shape[-1]
    phi = _tril_mask(n, l.dtype) - 0.5 * np.eye(n, dtype=l.dtype)
    x = _matmul(l, gl, True, False) * phi
    lt = _mT(l)
    p = prim.solve(lt, _mT(prim.solve(lt, _mT(x))))
    return [_from_triangle(p, lower=True)]


register_op("cholesky", shape=_square_shape, kernel=_lapack("cholesky", np.linalg.cholesky), num_inputs=1,
            gradient=traced_gradient(_cholesky_grad), batch=LEADING,
            doc="lower Cholesky factor L (a = L L^T) of (stacks of) symmetric positive-definite matrices; reads "
                "the lower triangle only, as numpy does",
            jax=lambda J, a: J.jnp.linalg.cholesky(_symmetric_from_triangle(J.jnp, a, True)),
            frontend=["linalg.cholesky"], to_float=[0])


# -- eigh ----------------------------------------------------------------------------------------
def _eigh_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    a = _square_type(ctx.op, ctx.input_types[0])
    if ctx.attr("UPLO", "L") not in ("L", "U"):
        raise ShapeError(f"op 'eigh': UPLO must be 'L' or 'U', got {ctx.attr('UPLO')!r}")
    return [_like(a, a.shape[:-1]), a]


def _inverse_gaps(w):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it (JAX's Fmat): inf where values repeat."""
    n = w.shape[-1]
    eye = np.eye(n, dtype=w.dtype)
    return 1.0 / (_rows(w) - _cols(w) + eye) - eye


def _eigh_grad(ctx, xs, ys, gys):
    # JAX's rule for symmetric da: dw = diag(V^T da V), dV = V (F * (V^T da V)); its adjoint is
    # P = V (diag(gw) + F * (V^T gV)) V^T. Undefined (inf) for repeated eigenvalues.
    w, v = ys
    gw, gv = gys
    n = w.shape[-1]
    inner = _inverse_gaps(w) * _matmul(v, gv, True, False) + _rows(gw) * np.eye(n, dtype=w.dtype)
    p = _matmul(_matmul(v, inner, False, False), v, False, True)
    return [_from_triangle(p, lower=ctx.attr("UPLO", "L") == "L")]


def _eigh_jax(J, a, UPLO="L"):
    return tuple(J.jnp.linalg.eigh(_symmetric_from_triangle(J.jnp, a, UPLO == "L")))


register_op("eigh", shape=_eigh_shape, num_inputs=1,
            kernel=_lapack("eigh", lambda a, UPLO="L": tuple(np.linalg.eigh(a, UPLO))),
            attrs={"UPLO": ((str,), False)}, gradient=traced_gradient(_eigh_grad), batch=LEADING,
            doc="eigenvalues (ascending) and eigenvectors of (stacks of) symmetric matrices, reading the "
                "triangle UPLO ('L' or 'U')", jax=_eigh_jax, frontend=["linalg.eigh"], to_float=[0])


# -- eig, eigvals (general square matrices) -----------------------------------------------------
_COMPLEX = {"float32": "complex64", "float64": "complex128"}


def _eig_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    a = _square_type(ctx.op, ctx.input_types[0])
    w = _like(a, a.shape[:-1], _COMPLEX[a.dtype])
    return [w] if ctx.op == "eigvals" else [w, _like(a, a.shape, w.dtype)]


def _eig_kernel(a):
    """numpy.linalg.eig, always complex (as JAX's): numpy's real result when every eigenvalue is real would
    make the type depend on the values."""
    w, v = np.linalg.eig(a)
    return w.astype(_COMPLEX[a.dtype.name]), v.astype(_COMPLEX[a.dtype.name])


def _eigvals_kernel(a):
    return np.linalg.eigvals(a).astype(_COMPLEX[a.dtype.name])


def _complex_solve(a, b):
    """x with a x = b for complex (stacks of) a and complex or real b, by real `solve` on [[re a, -im a], [im a,
    re a]]: frame's solvers are real, and this stays differentiable to any order."""
    ar, ai = prim.real(a), prim.imag(a)
    br, bi = (prim.real(b), prim.imag(b)) if np.dtype(b.dtype).kind == "c" else (b, np.zeros(b.shape, b.dtype))
    big = prim.concat(prim.concat(ar, -ai, axis=-1), prim.concat(ai, ar, axis=-1), axis=-2)
    x = prim.solve(big, prim.concat(br, bi, axis=-2))
    n, r = a.shape[-1], x.ndim

    def half(lo):
        return prim.slice(x, starts=(0,) * (r - 2) + (lo, 0), stops=tuple(x.shape[:-2]) + (lo + n, x.shape[-1]),
                          steps=(1,) * r)
    return prim.complex(half(0), half(n))


def _eigen_adjoint(v, inner):
    """Re(V^-T inner V^T): the gradient of a real matrix whose eigen-decomposition moved by M = V^-1 da V, for the
    cotangent `inner` that pairs with M."""
    vt = _mT(v)
    return prim.real(_complex_solve(vt, _matmul(inner, vt, False, False)))


def _eigvals_grad(ctx, xs, ys, gys):
    # JAX's rule (eq. 4.60 of arXiv 1701.00392): dw = diag(M), M = V^-1 da V; its adjoint under the pairing
    # Re(g dw) is Re(V^-T diag(g) V^T) for real a. Undefined (inf) where eigenvalues repeat (V singular).
    v = bind("eigenbasis_internal", xs[0])
    n = v.shape[-1]
    return [_eigen_adjoint(v, _rows(gys[0]) * np.eye(n, dtype=v.dtype))]


def _eigvals_jvp(ctx, xs, ys, txs):
    (a,), (da,) = xs, txs
    v = bind("eigenbasis_internal", a)
    y = _complex_solve(v, da) * _mT(v)
    return [prim.sum(y, axes=(y.ndim - 1,))]


def _eigenbasis_grad(ctx, xs, ys, gys):
    # dV = V (F * M) (F: the inverse gaps of the eigenvalues), so the adjoint's inner matrix is F * (V^T gV).
    v, w = ys[0], bind("eigvals", xs[0])
    return [_eigen_adjoint(v, _inverse_gaps(w) * _matmul(v, gys[0], True, False))]


def _eigenbasis_jvp(ctx, xs, ys, txs):
    (a,), (da,), v = xs, txs, ys[0]
    m = _matmul(_complex_solve(v, da), v, False, False)
    return [_matmul(v, _inverse_gaps(bind("eigvals", a)) * m, False, False)]


def _eig_no_vectors(ctx, xs, ys, gys):
    return [None]


register_op("eigvals", shape=_eig_shape, kernel=_lapack("eigvals", _eigvals_kernel), num_inputs=1,
            gradient=traced_gradient(_eigvals_grad), jvp=traced_jvp(_eigvals_jvp), batch=LEADING,
            doc="eigenvalues (complex, in LAPACK's order) of (stacks of) real square matrices",
            jax=lambda J, a: J.jnp.linalg.eigvals(a), to_float=[0])
register_op("eigenbasis_internal", shape=lambda ctx: _eig_shape(ctx)[1:], kernel=_lapack("eig", lambda a: _eig_kernel(a)[1]),
            num_inputs=1, gradient=traced_gradient(_eigenbasis_grad), jvp=traced_jvp(_eigenbasis_jvp), batch=LEADING,
            traits=(INTERNAL,),
            doc="eig's eigenvectors for the eigenvalues' derivative rules: differentiated in the gauge where "
                "V^-1 dV has a zero diagonal (not the unit columns of the values), which is right for "
                "results that do not depend on the eigenvectors' scale or phase, as eigvals' derivatives",
            jax=lambda J, a: J.jnp.linalg.eig(a)[1], to_float=[0])
register_op("eig", shape=_eig_shape, kernel=_lapack("eig", _eig_kernel), num_inputs=1,
            gradient=traced_gradient(_eig_no_vectors), batch=LEADING,
            no_derivative={0: "the eigenvectors of a non-symmetric matrix: their phase is arbitrary, and JAX "
                              "refuses them too; the eigenvalues differentiate through linalg.eigvals (and "
                              "linalg.eig's eigenvalues do), symmetric matrices through linalg.eigh"},
            doc="eigenvalues and unit right eigenvectors (complex, numpy's) of (stacks of) real square matrices",
            jax=lambda J, a: tuple(J.jnp.linalg.eig(a)), to_float=[0])


def _matrices_operand(ctx: NodeContext) -> TensorType:
    """The one float operand of a factorisation: a matrix or a stack of them."""
    arity(ctx.op, ctx, 1)
    (a,) = ctx.input_types
    require_float(ctx.op, a)
    if a.rank < 2:
        raise ShapeError(f"op '{ctx.op}' needs (stacks of) matrices, got shape {a.shape}")
    return a


# -- svd -----------------------------------------------------------------------------------------
def _svd_shape(ctx: NodeContext):
    a = _matrices_operand(ctx)
    *batch, m, n = a.shape
    k = min(m, n)
    full = ctx.attr("full_matrices", True)
    return [_like(a, (*batch, m, m if full else k)), _like(a, (*batch, k)), _like(a, (*batch, n if full else k, n))]


def _svd_grad(ctx, xs, ys, gys):
    # JAX's rule for the reduced SVD a = U diag(s) Vt (real case). With dS = U^T da V,
    # F_ij = 1/(s_j^2 - s_i^2) off the diagonal: ds = diag(dS), dU = U (F * (dS S + S dS^T)) plus
    # (I - U U^T) da V / s when m > n, dV likewise with n > m. The adjoint, term by term:
    # ga = U G Vt with G = diag(gs) + (A1 + A1^T) s_j + (A2 + A2^T) s_i, A1 = F * (U^T gU),
    # A2 = F * (Vt gVt^T), plus the projections' terms.
    u, s, vt = ys
    gu, gs, gvt = gys
    m, n = xs[0].shape[-2:]
    if ctx.attr("full_matrices", True) and m != n:
        raise GradientError(f"op 'svd': no gradient with full_matrices=True for a non-square {m}x{n} matrix "
                            "(JAX defines none); use full_matrices=False")
    k = min(m, n)
    eye = np.eye(k, dtype=s.dtype)
    f = 1.0 / (_rows(s * s) - _cols(s * s) + eye) - eye
    a1 = f * _matmul(u, gu, True, False)
    a2 = f * _matmul(vt, gvt, False, True)
    g = _rows(gs) * eye + (a1 + _mT(a1)) * _rows(s) + (a2 + _mT(a2)) * _cols(s)
    ga = _matmul(_matmul(u, g, False, False), vt, False, False)
    if m > n:
        ga = ga + _matmul((gu - _matmul(u, _matmul(u, gu, True, False), False, False)) / _rows(s), vt, False, False)
    if n > m:
        ga = ga + _matmul(u, (gvt - _matmul(_matmul(gvt, vt, False, True), vt, False, False)) / _cols(s), False, False)
    return [ga]


register_op("svd", shape=_svd_shape,
            kernel=_lapack("svd", lambda a, full_matrices=True: tuple(np.linalg.svd(a, full_matrices))),
            num_inputs=1, attrs={"full_matrices": ((bool,), False)}, gradient=traced_gradient(_svd_grad),
            batch=LEADING,
            doc="singular value decomposition a = u diag(s) vh of (stacks of) matrices, s descending; "
                "(m, m)/(n, n) factors when full_matrices, else (m, k)/(k, n)",
            jax=lambda J, a, full_matrices=True: tuple(J.jnp.linalg.svd(a, full_matrices=full_matrices)),
            frontend=["linalg.svd"], to_float=[0])


# -- qr ------------------------------------------------------------------------------------------
def _qr_shape(ctx: NodeContext):
    a = _matrices_operand(ctx)
    *batch, m, n = a.shape
    k = m if ctx.attr("full_matrices", False) else min(m, n)
    return [_like(a, (*batch, m, k)), _like(a, (*batch, k, n))]


def _part(x, axis: int, lo: int, hi: int):
    """x[..., lo:hi] along `axis` (-1: columns, -2: rows)."""
    r = x.ndim
    starts, stops = [0] * r, list(x.shape)
    starts[axis], stops[axis] = lo, hi
    return prim.slice(x, starts=tuple(starts), stops=tuple(stops), steps=(1,) * r)


def _thin_qr_adjoint(q, r, gq, gr):
    # JAX's thin rule (Townsend, "Differentiating the QR decomposition"), m >= n: with C = Q^T da R^-1,
    # do = tril(C, -1) - tril(C, -1)^T, dQ = Q (do - C) + da R^-1 and dR = (C - do) R. Its adjoint:
    # ga = (gQ + Q N) R^-T with M = gR R^T - Q^T gQ and N = M - tril(M - M^T, -1).
    n = r.shape[-1]
    mm = _matmul(gr, r, False, True) - _matmul(q, gq, True, False)
    nn = mm - (mm - _mT(mm)) * _tril_mask(n, r.dtype, -1)
    return _mT(prim.solve(r, _mT(gq + _matmul(q, nn, False, False))))


def _qr_grad(ctx, xs, ys, gys):
    # The adjoints of JAX's three cases (lax.linalg.qr_jvp_rule):
    # - wide (m < n), a = [a1 a2]: q r1 = a1 is a square QR and r2 = q^T a2, so dr2 = dq^T a2 + q^T da2:
    #   ga2 = q gr2, and a1 gets the thin adjoint with gq + a2 gr2^T;
    # - complete and tall (m > n): q = [q1 q2] (q1 the reduced factor, r's last m - n rows zero), and
    #   dq2 = dq1 Z^T - W (dq1_p - Z dq1_n)^T with Z = q1_p (q1_n - I)^-1, W = q1 + q2 Z (arXiv 2409.13374,
    #   eqs. 32-33; q1_n, q1_p: q1's first n and last m - n rows): its cotangent G = gq2 adds
    #   G Z + [Z^T G^T W; -G^T W] to q1's, then the thin adjoint;
    # - otherwise the thin adjoint itself.
    (a,), (q, r), (gq, gr) = xs, ys, gys
    m, n = a.shape[-2:]
    if m < n:
        gr2 = _part(gr, -1, m, n)
        g1 = _thin_qr_adjoint(q, _part(r, -1, 0, m), gq + _matmul(_part(a, -1, m, n), gr2, False, True),
                              _part(gr, -1, 0, m))
        return [prim.concat(g1, _matmul(q, gr2, False, False), axis=-1)]
    if ctx.attr("full_matrices", False) and m > n:
        q1, q2, g = _part(q, -1, 0, n), _part(q, -1, n, m), _part(gq, -1, n, m)
        q1_n, q1_p = _part(q1, -2, 0, n), _part(q1, -2, n, m)
        z_t = prim.solve(_mT(q1_n - np.eye(n, dtype=q.dtype)), _mT(q1_p))
        gtw = _matmul(g, q1 + _matmul(q2, z_t, False, True), True, False)
        g1 = _part(gq, -1, 0, n) + _matmul(g, z_t, False, True) + prim.concat(_matmul(z_t, gtw, False, False), -gtw,
                                                                               axis=-2)
        return [_thin_qr_adjoint(q1, _part(r, -2, 0, n), g1, _part(gr, -2, 0, n))]
    return [_thin_qr_adjoint(q, r, gq, gr)]


def _qr_kernel(a, full_matrices=False):
    return tuple(np.linalg.qr(a, mode="complete" if full_matrices else "reduced"))


register_op("qr", shape=_qr_shape, kernel=_lapack("qr", _qr_kernel), num_inputs=1,
            attrs={"full_matrices": ((bool,), False)}, gradient=traced_gradient(_qr_grad), batch=LEADING,
            doc="QR decomposition a = q r of (stacks of) matrices, r upper triangular: the reduced q (m, k), "
                "r (k, n), k = min(m, n); with full_matrices the complete q (m, m), r (m, n) (numpy's modes)",
            jax=lambda J, a, full_matrices=False: tuple(J.jnp.linalg.qr(a, mode="complete" if full_matrices
                                                                        else "reduced")),
            frontend=["linalg.qr"], to_float=[0])


# -- lstsq -----------------------------------------------------------------------------------
def _lstsq_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 2)
    a, b = ctx.input_types
    require_float(ctx.op, a)
    same_dtype(ctx.op, [a, b])
    if a.rank != 2 or b.rank != 2 or a.shape[0] != b.shape[0]:
        raise ShapeError(f"op 'lstsq' needs a (m, n) and b (m, k) with the same m, got {a.shape} and {b.shape}")
    return [_like(a, (a.shape[1], b.shape[1]))]


def _lstsq_grad(ctx, xs, ys, gys):
    # The least-squares solution's derivative at full rank: x = (a^T a)^-1 a^T b when m >= n, the
    # minimum-norm x = a^T (a a^T)^-1 b when m < n. (At lower rank x is that of a truncated
    # pseudo-inverse, whose derivative this is not.)
    a, b = xs
    x, gx = ys[0], gys[0]
    m, n = a.shape
    if m >= n:
        z = prim.solve(_matmul(a, a, True, False), gx)
        az = prim.matmul(a, z)
        return [_matmul(b - prim.matmul(a, x), z, False, True) - _matmul(az, x, False, True), az]
    gram = _matmul(a, a, False, True)
    y = prim.solve(gram, b)
    z = prim.solve(gram, prim.matmul(a, gx))
    return [_matmul(y, gx, False, True) - _matmul(z, x, False, True) - _matmul(y, _matmul(a, z, True, False), False, True), z]


register_op("lstsq", shape=_lstsq_shape, num_inputs=2, attrs={"rcond": ((float,), True)},
            kernel=_lapack("lstsq", lambda a, b, rcond: np.linalg.lstsq(a, b, rcond=rcond)[0]),
            gradient=traced_gradient(_lstsq_grad), batch=PER_EXAMPLE,  # numpy's lstsq takes one matrix
            doc="least-squares solution x of a @ x = b (a (m, n), b (m, k)), singular values below rcond * max "
                "cut off; the gradient is that of the full-rank solution",
            jax=lambda J, a, b, rcond: J.jnp.linalg.lstsq(a, b, rcond=rcond)[0], frontend=["linalg.lstsq"], to_float=[0, 1])


# -- lu ------------------------------------------------------------------------------------------
# lax.linalg.lu: a[..., perm, :] = L U with partial pivoting, for (stacks of) m x n matrices, k = min(m, n).
# Results as JAX's: lu (m, n) holding L's strict lower part (unit diagonal implied, m x k) and U (k x n),
# pivots (k,) int32 (row i was swapped with row pivots[i], LAPACK's order, 0-based) and perm (m,) int32.
def _lu_shape(ctx: NodeContext):
    a = _matrices_operand(ctx)
    *batch, m, n = a.shape
    return [a, _like(a, (*batch, min(m, n)), "int32"), _like(a, (*batch, m), "int32")]


def _lu_kernel(a):
    import warnings

    from scipy.linalg import lu_factor   # scipy loads on first use, not with frame

    *batch, m, n = a.shape
    k = min(m, n)
    lu = np.array(a, copy=True)
    pivots = np.broadcast_to(np.arange(k, dtype=np.int32), (*batch, k)).copy()
    if k:   # an empty matrix has no pivots
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # scipy warns on an exactly singular matrix; JAX does not, nor frame
            for i in np.ndindex(tuple(batch)):   # one LAPACK getrf per matrix
                lu[i], pivots[i] = lu_factor(a[i], check_finite=False)
    return lu, pivots, pivots_to_permutation(pivots, m)


def pivots_to_permutation(pivots, m: int) -> np.ndarray:
    """The row order (..., m) int32 that LAPACK's 0-based pivots (..., k) make, k <= m: starting from
    0..m-1, row j swapped with row pivots[..., j], for j = 0, 1, ... in order. Numpy, on concrete pivots
    (scipy.linalg's lu_solve uses it too)."""
    pivots = np.asarray(pivots)
    perm = np.broadcast_to(np.arange(m, dtype=np.int32), pivots.shape[:-1] + (m,)).copy()
    for i in np.ndindex(pivots.shape[:-1]):
        for j, p in enumerate(pivots[i]):
            perm[i][[j, p]] = perm[i][[p, j]]
    return perm


def _lu_factors(lu):
    """The square factors JAX's rule uses: L (m, m), unit lower (lu's strict lower part, identity beyond
    its k columns), and U (n, n), upper (lu's first k rows, identity below them)."""
    *batch, m, n = lu.shape
    k = min(m, n)
    lower, upper = _part(lu, -1, 0, k), _part(lu, -2, 0, k)
    if m > k:
        lower = prim.concat(lower, np.zeros((*batch, m, m - k), lu.dtype), axis=-1)
    if n > k:
        upper = prim.concat(upper, np.zeros((*batch, n - k, n), lu.dtype), axis=-2)
    tail = np.diag((np.arange(n) >= k).astype(lu.dtype))   # ones on U's diagonal below its k rows
    return (lower * _tril_mask(m, lu.dtype, -1) + np.eye(m, dtype=lu.dtype),
            upper * np.triu(np.ones((n, n), lu.dtype)) + tail)


def _lu_grad(ctx, xs, ys, gys):
    # JAX's jvp (lax.linalg's _lu_jvp_rule): with X = L^-1 da[perm] U^-1 (L, U the square factors of
    # `_lu_factors`), d lu = L tril(X, -1) + triu(X) U. Its adjoint for a cotangent G (m, n):
    # GX = tril(L^T G, -1) + triu(G U^T), G_perm = L^-T GX U^-T, and ga = P^T G_perm with P the (m, m)
    # permutation matrix, P_ij = [perm_i == j] (a matmul, so the rule stays in ops with rules). The
    # pivots and perm are integers: no derivative.
    lu, perm = ys[0], ys[2]
    m, n = lu.shape[-2:]
    lower, upper = _lu_factors(lu)
    g = gys[0]
    gx = (_matmul(lower, g, True, False) * np.tril(np.ones((m, n), lu.dtype), -1)
          + _matmul(g, upper, False, True) * np.triu(np.ones((m, n), lu.dtype)))
    z = _mT(triangular_solve(upper, _mT(gx)))              # z U^T = gx
    gp = triangular_solve(lower, z, lower=True, transpose_a=True, unit_diagonal=True)
    p = prim.convert(prim.equal(_cols(perm), np.arange(m, dtype=np.int32)), dtype=lu.dtype.name)
    return [_matmul(p, gp, True, False)]


def _lu_jax(J, a):
    # `a * 1.0` (exact) makes a numpy tangent a JAX array: JAX's lu jvp rule indexes the tangent with the
    # traced permutation, which raises TracerArrayConversionError for a numpy tangent (jax.jvp(f, x, (np_t,)))
    # under jit.
    return tuple(J.lax.linalg.lu(a * 1.0))


register_op("lu", shape=_lu_shape, kernel=_lu_kernel, num_inputs=1, gradient=traced_gradient(_lu_grad),
            batch=LEADING,
            doc="LU decomposition with partial pivoting of (stacks of) m x n matrices, as lax.linalg.lu: (lu, "
                "pivots, perm) with a[..., perm, :] = L U, lu holding L's strict lower part (unit diagonal) and "
                "U, pivots (k,) and perm (m,) int32, k = min(m, n); a singular matrix gives zeros on U's "
                "diagonal, no error. Derivatives are JAX's (pivots and perm have none)",
            jax=_lu_jax, to_float=[0])


# -- schur ---------------------------------------------------------------------------------------
# scipy.linalg.schur of real (stacks of) square matrices: a = Z T Z^H with Z orthogonal (unitary) and T
# quasi upper triangular (output 'real': 2x2 blocks for complex pairs) or upper triangular ('complex', complex
# results). LAPACK's gees, one matrix at a time. No derivative, as in JAX: the Schur vectors of a matrix are not
# unique (each column's sign or phase, and any rotation within repeated eigenvalues), so a rule would pick one
# smooth branch arbitrarily; matrix functions built on it (sqrtm) attach their own derivatives.
def _schur_shape(ctx: NodeContext):
    arity(ctx.op, ctx, 1)
    a = _square_type(ctx.op, ctx.input_types[0])
    output = ctx.attr("output", "real")
    if output not in ("real", "complex"):
        raise ShapeError(f"op 'schur': output must be 'real' or 'complex', got {output!r}")
    t = a if output == "real" else _like(a, a.shape, _COMPLEX[a.dtype])
    return [t, t]


def _schur_kernel(a, output="real"):
    from scipy.linalg import schur   # scipy loads on first use, not with frame

    dtype = a.dtype if output == "real" else np.dtype(_COMPLEX[a.dtype.name])
    t, z = np.empty(a.shape, dtype), np.empty(a.shape, dtype)
    for i in np.ndindex(a.shape[:-2]):   # one LAPACK gees per matrix
        try:
            t[i], z[i] = schur(a[i], output=output, check_finite=False)
        except (np.linalg.LinAlgError, ValueError) as e:
            raise LinAlgError(f"op 'schur': {e} (matrix {i} of a, shape {a.shape})") from None
    return t, z


def _schur_jax(J, a, output="real"):
    return tuple(J.lax.linalg.schur(a if output == "real" else a.astype(_COMPLEX[a.dtype.name])))


# No `jax_imports`: lax's schur primitive carries compute_schur_vectors/sort_eig_vals/select_callable, which a
# one-to-one import does not translate.
register_op("schur", shape=_schur_shape, kernel=_schur_kernel, num_inputs=1,
            attrs={"output": ((str,), False)}, gradient=traced_gradient(lambda ctx, xs, ys, gys: [None]),
            batch=LEADING,
            no_derivative={0: "the Schur vectors are unique only up to signs (phases) and rotations within repeated "
                              "eigenvalues, and JAX defines no derivative either; sqrtm differentiates by its own rule"},
            doc="Schur decomposition a = z t z^H of (stacks of) real square matrices (scipy.linalg.schur): t quasi "
                "upper triangular and z orthogonal (output 'real'), or complex t upper triangular and z unitary "
                "(output 'complex')",
            jax=_schur_jax, to_float=[0])
