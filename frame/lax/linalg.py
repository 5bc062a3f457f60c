"""`frame.lax.linalg`: jax.lax.linalg's factorisations with lax's signatures and result orders, on frame's
linalg ops (through frame.numpy.linalg and frame.scipy.linalg), real matrices and stacks of them.

`eigh` returns (eigenvectors, eigenvalues), lax's order; `qr` and `svd` default to full matrices, as lax.
`lu` is frame's `lu` op (LAPACK getrf, JAX's derivative rule); `lu_pivots_to_permutation` applies the
pivots' row swaps in order. `tridiagonal_solve` is the Thomas algorithm (no pivoting) as two frame scans, so
it traces and differentiates in all four operands.
"""
from __future__ import annotations

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _shape
from ..frontend.control import scan
from ..scipy import linalg as _slinalg

__all__ = ["cholesky", "eigh", "lu", "lu_pivots_to_permutation", "qr", "svd", "triangular_solve", "tridiagonal_solve"]


def _mT(x):
    return fnp.swapaxes(x, -1, -2)


def _square(name, x):
    shape = _shape(x)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ShapeError(f"lax.linalg.{name}: needs square matrices (..., n, n), got shape {shape}")


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor of x ((x + x^T) / 2 with `symmetrize_input`, else x's lower triangle)."""
    x = fnp.asarray(x)
    _square("cholesky", x)
    if symmetrize_input:
        x = (x + _mT(x)) / 2
    return fnp.linalg.cholesky(x)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True, **unused):
    """(v, w): eigenvectors (columns) and ascending eigenvalues of the symmetric x (symmetrised, or read from
    its lower/upper triangle)."""
    x = fnp.asarray(x)
    _square("eigh", x)
    if symmetrize_input:
        x = (x + _mT(x)) / 2
    w, v = fnp.linalg.eigh(x, UPLO="L" if lower else "U")
    return v, w


def lu(x):
    """(lu, pivots, permutation) of (stacks of) m x n matrices with partial pivoting: x[..., permutation, :] =
    L U, lu holding L's strict lower part (unit diagonal) and U; pivots (min(m, n),) and permutation (m,) int32.
    Derivatives in lu are JAX's; a singular matrix gives zeros on U's diagonal, no error."""
    x = fnp.asarray(x)
    if len(_shape(x)) < 2:
        raise ShapeError(f"lax.linalg.lu: needs matrices (..., m, n), got shape {_shape(x)}")
    return _slinalg._lu_op(x, "lax.linalg.lu")


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation (..., permutation_size) int32 that applying pivots' swaps (row i with row pivots[i], in
    order) makes of the identity."""
    return _slinalg._permutation(pivots, int(permutation_size), "lax.linalg.lu_pivots_to_permutation")


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, **unused):
    """(q, r) with q orthonormal columns and r upper triangular (complete or reduced with `full_matrices`)."""
    if pivoting:
        raise ShapeError("lax.linalg.qr: pivoting is not supported by frame")
    x = fnp.asarray(x)
    if len(_shape(x)) < 2:
        raise ShapeError(f"lax.linalg.qr: needs matrices (..., m, n), got shape {_shape(x)}")
    return fnp.linalg.qr(x, mode="complete" if full_matrices else "reduced")


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, **unused):
    """(u, s, vh), or s alone without `compute_uv`: x = u diag(s) vh, s descending."""
    x = fnp.asarray(x)
    if len(_shape(x)) < 2:
        raise ShapeError(f"lax.linalg.svd: needs matrices (..., m, n), got shape {_shape(x)}")
    out = fnp.linalg.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False, transpose_a: bool = False,
                     conjugate_a: bool = False, unit_diagonal: bool = False):
    """x with op(a) x = b (`left_side`) or x op(a) = b, op(a) = a or a^T (`transpose_a`), reading one triangle
    of a. Real matrices, so `conjugate_a` changes nothing."""
    a, b = fnp.asarray(a), fnp.asarray(b)
    _square("triangular_solve", a)
    if len(_shape(b)) < 2:
        raise ShapeError(f"lax.linalg.triangular_solve: b must be (..., m, n), got shape {_shape(b)}")
    if left_side:
        return _slinalg.solve_triangular(a, b, trans=1 if transpose_a else 0, lower=lower,
                                         unit_diagonal=unit_diagonal)
    # x op(a) = b  <=>  op(a)^T x^T = b^T
    return _mT(_slinalg.solve_triangular(a, _mT(b), trans=0 if transpose_a else 1, lower=lower,
                                         unit_diagonal=unit_diagonal))


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """x with A x = b for the tridiagonal A of sub-diagonal `dl` (dl[..., 0] unused), diagonal `d` and
    super-diagonal `du` (du[..., -1] unused), each (..., m), and b (..., m, n): the Thomas algorithm, a forward
    elimination scan and a back-substitution scan along m. No pivoting: A must not need it (diagonally dominant
    or positive definite). `perturb_singular` (LAPACK's perturbation of zero pivots) is not supported."""
    dl, d, du, b = (fnp.asarray(v) for v in (dl, d, du, b))
    shape = _shape(d)
    if perturb_singular:
        raise ShapeError("lax.linalg.tridiagonal_solve: perturb_singular=True is not supported by frame")
    if len(shape) < 1 or _shape(dl) != shape or _shape(du) != shape or _shape(b)[:-1] != shape or \
            len(_shape(b)) != len(shape) + 1 or len({_dtype(v) for v in (dl, d, du, b)}) != 1:
        raise ShapeError(f"lax.linalg.tridiagonal_solve: dl, d and du must share a shape (..., m) and b be "
                         f"(..., m, n), all of one dtype; got {_shape(dl)}, {shape}, {_shape(du)} and {_shape(b)} "
                         f"({_dtype(dl)}, {_dtype(d)}, {_dtype(du)}, {_dtype(b)})")
    if shape[-1] == 0:
        return b
    # scan over the leading axis: put m first
    dl, d, du = (fnp.moveaxis(v, -1, 0) for v in (dl, d, du))
    rhs = fnp.moveaxis(b, -2, 0)

    def eliminate(carry, row):
        # c_i = du_i / w_i and y_i = (b_i - dl_i y_{i-1}) / w_i with w_i = d_i - dl_i c_{i-1}; the zero initial
        # carry makes row 0 ignore dl[0]
        c, y = carry
        lo, diag, up, r = row
        w = diag - lo * c
        c, y = up / w, (r - lo[..., None] * y) / w[..., None]
        return (c, y), (c, y)

    zero_c, zero_y = fnp.zeros_like(d[0]), fnp.zeros_like(rhs[0])
    _, (c, y) = scan(eliminate, (zero_c, zero_y), (dl, d, du, rhs))

    def substitute(x_next, row):
        # x_i = y_i - c_i x_{i+1}; the zero initial carry makes the last row x = y (du[-1] unused)
        ci, yi = row
        x = yi - ci[..., None] * x_next
        return x, x

    _, x = scan(substitute, zero_y, (c, y), reverse=True)
    return fnp.moveaxis(x, 0, -2)
