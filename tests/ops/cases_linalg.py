"""Op cases for linear algebra (frame/ops/linalg.py): numpy.linalg is the reference.

Inputs are built well conditioned inside `make_inputs`, so that central differences (orders 1 and 2)
and the JAX oracle see smooth functions: diagonally dominant matrices for solve/inv/det, symmetric
positive-definite ones for cholesky, symmetric matrices with well separated eigenvalues for eigh,
and matrices with separated, non-zero singular values for svd/qr/lstsq. The factorisations' signs
(eigenvectors, singular vectors, q's columns) are LAPACK's, continuous around these inputs, and the
same in numpy and JAX on CPU (checked by the oracle's order-0 comparison).
"""
from __future__ import annotations

import numpy as np

from tests.ops.cases import OpCase, _ins, _u


def _dominant(*shape):
    """Random matrices plus 3 I: far from singular."""
    return lambda rng, dt: (rng.uniform(-1, 1, shape) + 3 * np.eye(shape[-1])).astype(dt)


def _spd(*shape):
    def make(rng, dt):
        m = rng.uniform(-1, 1, shape)
        return (m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dt)
    return make


def _spread_symmetric(*shape):
    """Symmetric, eigenvalues about 0, 2, 4, ... apart (small symmetric noise on a spread diagonal)."""
    def make(rng, dt):
        m = 0.3 * rng.uniform(-1, 1, shape)
        return (m + np.swapaxes(m, -1, -2) + np.diag(2.0 * np.arange(shape[-1]))).astype(dt)
    return make


def _spread_singular(*shape):
    """u diag(s) vt with s = k, k-1, ..., 1 scaled, u and v orthonormal: separated singular values."""
    def make(rng, dt):
        *batch, m, n = shape
        k = min(m, n)
        u = np.linalg.qr(rng.standard_normal((*batch, m, k)))[0]
        v = np.linalg.qr(rng.standard_normal((*batch, n, k)))[0]
        s = 0.5 + np.arange(k, 0, -1, dtype=float)
        return ((u * s[..., None, :]) @ np.swapaxes(v, -1, -2)).astype(dt)
    return make


def _unpacked(fn):
    return lambda *xs, **attrs: tuple(fn(*xs, **attrs))


_RCOND = float(np.finfo(np.float64).eps * 4)

CASES = [
    OpCase("solve", _ins(_dominant(3, 3), _u(3, 2)), np.linalg.solve, wrt=(0, 1), label="2d"),
    OpCase("solve", _ins(_dominant(2, 3, 3), _u(3, 1)), np.linalg.solve, wrt=(0, 1), label="bcast-b"),
    OpCase("solve", _ins(_dominant(3, 3), _u(2, 3, 2)), np.linalg.solve, wrt=(0, 1), label="bcast-a"),
    OpCase("inv", _ins(_dominant(3, 3)), np.linalg.inv, label="2d"),
    OpCase("inv", _ins(_dominant(2, 2, 2)), np.linalg.inv, label="batched"),
    OpCase("det", _ins(_dominant(3, 3)), np.linalg.det, label="2d"),
    OpCase("det", _ins(_dominant(2, 2, 2)), np.linalg.det, label="batched"),
    OpCase("slogdet", _ins(_u(3, 3, lo=-2.0, hi=2.0)), _unpacked(np.linalg.slogdet), label="2d"),
    OpCase("slogdet", _ins(_dominant(2, 2, 2)), _unpacked(np.linalg.slogdet), label="batched"),
    OpCase("cholesky", _ins(_spd(3, 3)), np.linalg.cholesky, label="2d"),
    OpCase("cholesky", _ins(_spd(2, 2, 2)), np.linalg.cholesky, label="batched"),
    OpCase("eigh", _ins(_spread_symmetric(3, 3)), _unpacked(np.linalg.eigh), label="lower"),
    OpCase("eigh", _ins(_spread_symmetric(3, 3)), lambda a, UPLO: tuple(np.linalg.eigh(a, UPLO)), {"UPLO": "U"},
           label="upper"),
    OpCase("eigh", _ins(_spread_symmetric(2, 2, 2)), _unpacked(np.linalg.eigh), label="batched"),
    OpCase("svd", _ins(_spread_singular(4, 3)), lambda a, full_matrices: tuple(np.linalg.svd(a, full_matrices)),
           {"full_matrices": False}, label="tall"),
    OpCase("svd", _ins(_spread_singular(2, 3)), lambda a, full_matrices: tuple(np.linalg.svd(a, full_matrices)),
           {"full_matrices": False}, label="wide"),
    OpCase("svd", _ins(_spread_singular(3, 3)), _unpacked(np.linalg.svd), label="square-full"),
    OpCase("svd", _ins(_spread_singular(2, 3, 2)), lambda a, full_matrices: tuple(np.linalg.svd(a, full_matrices)),
           {"full_matrices": False}, label="batched"),
    OpCase("qr", _ins(_spread_singular(4, 3)), _unpacked(np.linalg.qr), label="tall"),
    OpCase("qr", _ins(_spread_singular(2, 3, 3)), _unpacked(np.linalg.qr), label="batched-square"),
    OpCase("qr", _ins(_spread_singular(2, 4)), _unpacked(np.linalg.qr), label="wide"),
    OpCase("qr", _ins(_spread_singular(4, 2)), lambda a, full_matrices: tuple(np.linalg.qr(a, mode="complete")),
           {"full_matrices": True}, label="complete-tall"),
    OpCase("lstsq", _ins(_spread_singular(5, 3), _u(5, 2)), lambda a, b, rcond: np.linalg.lstsq(a, b, rcond)[0],
           {"rcond": _RCOND}, wrt=(0, 1), label="tall"),
    OpCase("lstsq", _ins(_spread_singular(2, 4), _u(2, 1)), lambda a, b, rcond: np.linalg.lstsq(a, b, rcond)[0],
           {"rcond": _RCOND}, wrt=(0, 1), label="wide"),
]


def _triangular_reference(a, b, lower=False, transpose_a=False, unit_diagonal=False):
    """numpy's general solve of the triangle triangular_solve reads (ones on a unit diagonal)."""
    t = np.tril(a, -int(unit_diagonal)) if lower else np.triu(a, int(unit_diagonal))
    t = t + np.eye(a.shape[-1], dtype=a.dtype) if unit_diagonal else t
    return np.linalg.solve(np.swapaxes(t, -1, -2) if transpose_a else t, b)


CASES += [
    OpCase("triangular_solve", _ins(_dominant(3, 3), _u(3, 2)), _triangular_reference, {"lower": True}, wrt=(0, 1),
           label="lower"),
    OpCase("triangular_solve", _ins(_dominant(3, 3), _u(3, 2)), _triangular_reference, wrt=(0, 1), label="upper"),
    OpCase("triangular_solve", _ins(_dominant(2, 3, 3), _u(3, 1)), _triangular_reference, {"transpose_a": True},
           wrt=(0, 1), label="upper-transposed-bcast-b"),
    OpCase("triangular_solve", _ins(_u(3, 3), _u(2, 3, 2)), _triangular_reference,
           {"lower": True, "transpose_a": True, "unit_diagonal": True}, wrt=(0, 1),
           label="unit-lower-transposed-bcast-a"),
    OpCase("triangular_solve", _ins(_dominant(2, 1, 3, 3), _u(4, 3, 2)), _triangular_reference,
           {"lower": True, "unit_diagonal": True}, wrt=(0, 1), label="unit-bcast-both"),
]


def _spread_general(*shape):
    """Non-symmetric, eigenvalues near 3 and +-1.5i (a real one and a complex pair, well apart), plus noise."""
    def make(rng, dt):
        base = np.array([[0.0, -1.5, 0.0], [1.5, 0.0, 0.0], [0.0, 0.0, 3.0]])
        return (base + 0.3 * rng.uniform(-1, 1, shape)).astype(dt)
    return make


def _complex_eig(a):
    """numpy's eig, always complex as the op (numpy's real result for real eigenvalues depends on the values)."""
    w, v = np.linalg.eig(a)
    c = {"float32": np.complex64, "float64": np.complex128}[a.dtype.name]
    return w.astype(c), v.astype(c)


# Complex results: values here (wrt=()); derivatives in tests/frontend/test_eig.py (JAX to order 1, central
# differences to order 3; eig's and eigenbasis_internal's eigenvectors are not differentiated through by users).
CASES += [
    *[OpCase(op, _ins(_spread_general(*s)), ref, wrt=(), label=label)
      for s, label in (((3, 3), "2d"), ((2, 3, 3), "batched"))
      for op, ref in (("eigvals", lambda a: _complex_eig(a)[0]), ("eig", _complex_eig),
                      ("eigenbasis_internal", lambda a: _complex_eig(a)[1]))],
]


def _pivoted(*shape, order=(2, 0, 3, 1)):
    """Rows of (random + 3 I) (with extra random rows when tall) in a fixed shuffled order: LAPACK's partial
    pivoting picks rows by clear margins (no ties nearby), so the pivots stay put under small perturbations
    and lu is smooth there."""
    def make(rng, dt):
        *batch, m, n = shape
        a = rng.uniform(-1, 1, shape) + 3 * np.eye(m, n)
        return a[..., [i for i in order if i < m], :].astype(dt)
    return make


def _lu_reference(a):
    """(lu, pivots, perm) as lax.linalg.lu, from scipy's (P, L, U) with row indices and scipy's pivots."""
    from scipy.linalg import lu, lu_factor
    *batch, m, n = a.shape
    k = min(m, n)
    p, low, up = lu(a, p_indices=True)
    packed = np.zeros(a.shape, a.dtype)
    packed[..., :, :k] = np.tril(low, -1)
    packed[..., :k, :] += up
    return packed, lu_factor(a)[1].astype(np.int32), np.argsort(p, axis=-1).astype(np.int32)


CASES += [
    OpCase("lu", _ins(_dominant(3, 3)), _lu_reference, label="unpivoted"),
    OpCase("lu", _ins(_pivoted(4, 4)), _lu_reference, label="pivoted"),
    OpCase("lu", _ins(_pivoted(2, 3, 3)), _lu_reference, label="batched"),
    OpCase("lu", _ins(_pivoted(4, 3)), _lu_reference, label="tall"),
    OpCase("lu", _ins(_pivoted(3, 5)), _lu_reference, label="wide"),
]


def _schur_reference(a, output="real"):
    """scipy.linalg.schur matrix by matrix."""
    from scipy.linalg import schur
    pairs = [schur(m, output=output) for m in a.reshape((-1,) + a.shape[-2:])]
    return tuple(np.stack([p[i] for p in pairs]).reshape(a.shape[:-2] + pairs[0][i].shape) for i in range(2))


# No derivative (no_derivative): values only; tests/frontend/test_scipy_linalg_decomp.py checks the refusal.
CASES += [
    OpCase("schur", _ins(_spread_general(3, 3)), _schur_reference, wrt=(), label="real"),
    OpCase("schur", _ins(_spread_general(2, 3, 3)), _schur_reference, wrt=(), label="real-batched"),
    OpCase("schur", _ins(_spread_general(3, 3)), _schur_reference, {"output": "complex"}, wrt=(), label="complex"),
]
