"""`frame.scipy.linalg`: scipy.linalg's dense linear algebra with scipy's names, arguments and results, as
jax.scipy.linalg offers it (real matrices; stacks of them where scipy 1.17 batches).

Solvers and factorisations are frame's linalg ops (frame/ops/linalg.py: numpy's and scipy's LAPACK kernels,
JAX's derivative rules, every order): `solve_triangular`, `cho_factor`/`cho_solve` (the `triangular_solve`
op), `cholesky`, `solve`, `inv`, `det`, `eigh` (generalised problems too), `svd`, `qr`, `lstsq`, `pinv`,
`lu`/`lu_factor`/`lu_solve` (the `lu` op: LAPACK getrf with partial pivoting; lu_solve's permutation is
rebuilt from the pivots, and applied as a 0/1 matrix product so that it traces and differentiates).
`block_diag`, `toeplitz`, `circulant` and `hankel` build their matrices by concatenation and gathers with
static indices, so they differentiate in their (traced) vectors. `expm` is Pade scaling and squaring;
`expm_frechet` is expm of the block matrix [[A, E], [0, A]].
Special matrices: those of a static size (`hilbert`, `invhilbert`, `pascal`, `invpascal`, `hadamard`, `dft`,
`helmert`) are built in numpy from their closed forms (exact integers where scipy's are); those of a vector
(`companion`, `leslie`, `fiedler`, `fiedler_companion`, `convolution_matrix`) by gathers, concatenations and
products with constant matrices, so they trace and differentiate in it. `polar` is the thin SVD's;
`solve_sylvester` solves the Kronecker (vec) form with frame's solve, for small matrices.
Schur forms: `schur` is the `schur` op (LAPACK's gees through scipy, real or complex output; no derivative, as
in JAX); `rsf2csf` turns a real Schur form complex by a static loop of where-selected 2x2 rotations. `sqrtm`
(Bjorck-Hammarling on the complex Schur form, derivative X dX + dX X = dA attached by custom_jvp) and `funm`
(Parlett's recurrence, no derivative) fill the triangular factor one superdiagonal at a time with matmuls.
`hessenberg` is Householder reduction in frame ops (LAPACK's reflectors; it differentiates), `qr_multiply` qr
and a product, `eigh_tridiagonal` eigh of the dense tridiagonal matrix.

As scipy does, operands are taken as arrays of one float dtype (bool and integers as float64, float16 as
float32; the structured matrices keep numpy's result dtype). Complex matrices are refused by the ops, by
name. `overwrite_*`, `check_finite` and `lwork` are accepted and have no effect (frame never writes into
its operands; non-finite values propagate as LAPACK gives them). Where scipy inspects the values to pick
a solver (solve's and inv's `assume_a=None`), frame solves the general problem: the same solution, up to
rounding.
"""
from __future__ import annotations

import math

import numpy as _np

from ..errors import ShapeError, TraceError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _int, _ndim, _shape
from ..frontend.custom import custom_jvp as _custom_jvp
from ..ops.linalg import pivots_to_permutation as _pivots_to_permutation
from ..ops.linalg import triangular_solve as _triangular_solve
from ..tracing import Tracer, bind

__all__ = ["solve_triangular", "cho_factor", "cho_solve", "cholesky", "solve", "inv", "det", "eigh", "svd", "qr",
           "lu", "lu_factor", "lu_solve", "lstsq", "pinv", "block_diag", "toeplitz", "circulant", "hankel", "expm", "expm_frechet",
           "hilbert", "invhilbert", "pascal", "invpascal", "hadamard", "companion", "leslie", "dft", "helmert",
           "fiedler", "fiedler_companion", "convolution_matrix", "polar", "solve_sylvester",
           "schur", "rsf2csf", "hessenberg", "sqrtm", "funm", "qr_multiply", "eigh_tridiagonal"]


# -- operands ------------------------------------------------------------------------------------
def _common(xs, floats: bool):
    """The operands as arrays of numpy's result dtype (with `floats`, scipy's LAPACK dtype)."""
    xs = [fnp.asarray(x) for x in xs]
    dtype = _np.result_type(*[_np.dtype(_dtype(x)) for x in xs])
    if floats and dtype.kind in "biu":
        dtype = _np.dtype("float64")
    elif floats and dtype == _np.float16:
        dtype = _np.dtype("float32")
    return [x if _dtype(x) == dtype.name else fnp.astype(x, dtype.name) for x in xs]


def _floats(*xs):
    return _common(xs, floats=True)


def _square(a, op: str) -> int:
    shape = _shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ShapeError(f"op '{op}': a must be a square matrix or a stack of them, got shape {shape}")
    return shape[-1]


def _rhs(b, a, op: str):
    """b as (..., n, k) matrices, and whether it was one vector: b is a vector only when it is 1-d (scipy's
    rule since 1.15, numpy 2's), and then the solution is too."""
    n, vector = _shape(a)[-1], _ndim(b) == 1
    if vector:
        b = fnp.reshape(b, (-1, 1))
    if _ndim(b) < 2 or _shape(b)[-2] != n:
        raise ShapeError(f"op '{op}': b must be ({n},) or (..., {n}, k) for a of shape {_shape(a)}, "
                         f"got {_shape(b) if not vector else _shape(b)[:1]}")
    return b, vector


def _vector(x, vector: bool):
    return fnp.reshape(x, _shape(x)[:-1]) if vector else x


def _mT(x):
    return fnp.swapaxes(x, -1, -2)


def _symmetric(a, lower: bool):
    """The symmetric matrix that a's lower (upper) triangle stands for: scipy's symmetric solvers read no more."""
    if lower:
        return fnp.tril(a) + _mT(fnp.tril(a, -1))
    return fnp.triu(a) + _mT(fnp.triu(a, 1))


# -- triangular and Cholesky solves ----------------------------------------------------------------
_TRANS = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}   # real matrices: 'C' is 'T'


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    """x with op(a) x = b, op(a) = a (trans 0/'N') or a^T (1/'T', 2/'C'), reading only a's lower (upper)
    triangle, and not its diagonal (taken as ones) with `unit_diagonal`. b is (n,) or (..., n, k); batch
    axes broadcast. A zero on the diagonal raises LinAlgError, as scipy does (JAX gives inf/nan)."""
    if isinstance(trans, bool) or trans not in _TRANS:
        raise ShapeError(f"op 'solve_triangular': trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    a, b = _floats(a, b)
    _square(a, "solve_triangular")
    b, vector = _rhs(b, a, "solve_triangular")
    return _vector(_triangular_solve(a, b, bool(lower), _TRANS[trans], bool(unit_diagonal)), vector)


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of symmetric positive-definite `a`: upper U with a = U^T U read from a's upper
    triangle, or with `lower` the lower L with a = L L^T read from the lower one. Derivatives are those of
    the triangle read (JAX's agree along symmetric directions: jax.scipy.linalg.cholesky differentiates
    both triangles)."""
    (a,) = _floats(a)
    _square(a, "cholesky")
    return fnp.linalg.cholesky(a, upper=not lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower) for `cho_solve`: c is `cholesky(a, lower)` with zeros in the other triangle, as JAX
    gives it (scipy leaves a's entries there; cho_solve reads neither)."""
    return cholesky(a, lower), bool(lower)


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x with a x = b from `cho_factor(a)`'s (c, lower): two triangular solves with c's triangle."""
    c, lower = c_and_lower
    c, b = _floats(c, b)
    _square(c, "cho_solve")
    b, vector = _rhs(b, c, "cho_solve")
    # a = L L^T (lower) or U^T U: solve with the first factor, then the second.
    y = _triangular_solve(c, b, bool(lower), not lower)
    return _vector(_triangular_solve(c, y, bool(lower), bool(lower)), vector)


# -- solve, inv, det ---------------------------------------------------------------------------------
_STRUCTURES = {None: "gen", "gen": "gen", "general": "gen", "banded": "gen", "sym": "sym", "symmetric": "sym",
               "her": "sym", "hermitian": "sym", "pos": "pos", "positive definite": "pos", "diagonal": "diagonal",
               "tridiagonal": "tridiagonal", "upper triangular": "upper", "lower triangular": "lower"}


def _structure(assume_a, op: str) -> str:
    if not isinstance(assume_a, (str, type(None))) or assume_a not in _STRUCTURES:
        raise ShapeError(f"op '{op}': assume_a={assume_a!r} is not a recognized matrix structure "
                         f"(scipy's: {', '.join(repr(k) for k in _STRUCTURES if k)})")
    return _STRUCTURES[assume_a]


def _solve(a, b, kind: str, lower: bool, transposed: bool):
    """x with a x = b (a^T x = b when transposed) for b (..., n, k), reading what scipy's solver for
    `kind` reads."""
    n = _shape(a)[-1]
    if kind == "pos":
        return cho_solve((cholesky(a, lower), lower), b)
    if kind in ("upper", "lower"):
        return _triangular_solve(a, b, kind == "lower", transposed)
    if kind == "diagonal":
        return b / fnp.expand_dims(fnp.diagonal(a, 0, -2, -1), -1)
    if kind == "sym":
        a = _symmetric(a, lower)
    elif kind == "tridiagonal":
        a = a * (_np.abs(_np.subtract.outer(_np.arange(n), _np.arange(n))) <= 1).astype(_dtype(a))
    return fnp.linalg.solve(_mT(a) if transposed and kind != "sym" else a, b)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
          transposed=False):
    """x with a x = b (a^T x = b when `transposed`) for square a (...,n, n), b (n,) or (..., n, k); batch
    axes broadcast. `assume_a` reads what scipy's solver for it reads: 'sym'/'her' the triangle `lower`
    names (solved as the general symmetric matrix it stands for), 'pos' that triangle by Cholesky,
    'lower triangular'/'upper triangular' a triangle, 'diagonal' the diagonal (a zero there gives inf, not
    LinAlgError), 'tridiagonal' three diagonals; 'gen', 'banded' and None the whole matrix."""
    kind = _structure(assume_a, "solve")
    a, b = _floats(a, b)
    _square(a, "solve")
    b, vector = _rhs(b, a, "solve")
    return _vector(_solve(a, b, kind, bool(lower), bool(transposed)), vector)


def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    """The inverse of square `a` (or a stack), reading what `solve` reads for `assume_a`."""
    kind = _structure(assume_a, "inv")
    (a,) = _floats(a)
    n = _square(a, "inv")
    if kind == "gen":
        return fnp.linalg.inv(a)
    return _solve(a, fnp.broadcast_to(_np.eye(n, dtype=_dtype(a)), _shape(a)), kind, bool(lower), False)


def det(a, overwrite_a=False, check_finite=True):
    """The determinant of square `a` (or of each matrix of a stack)."""
    (a,) = _floats(a)
    _square(a, "det")
    return fnp.linalg.det(a)


# -- decompositions ----------------------------------------------------------------------------------
_EIGH_DRIVERS = (None, "ev", "evd", "evr", "evx", "gv", "gvd", "gvx")


def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
         check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """Eigenvalues w (ascending) and eigenvectors v of symmetric `a` read from its lower (upper) triangle:
    (w, v), or w alone with `eigvals_only`. With `b` (symmetric positive definite, the same triangle read)
    the generalised problem of `type` 1 (a v = w b v), 2 (a b v = w v) or 3 (b a v = w v), by b's
    Cholesky factor L as LAPACK's sygvd: the eigenvectors normalised as scipy's (v^T b v = I, v^T b^-1 v = I
    for type 3). `subset_by_index=(lo, hi)` keeps eigenvalues lo..hi; `subset_by_value` is refused (how
    many eigenvalues it keeps depends on their values). `driver` is accepted: frame computes with
    numpy's (syevd). Derivatives are JAX's: undefined (inf/nan) where eigenvalues repeat."""
    if subset_by_value is not None:
        raise TraceError("op 'eigh': subset_by_value is not supported (how many eigenvalues it keeps depends on "
                         "their values); use subset_by_index, or select from all of them")
    if driver not in _EIGH_DRIVERS:
        raise ShapeError(f"op 'eigh': driver must be one of {_EIGH_DRIVERS}, got {driver!r}")
    if type not in (1, 2, 3):
        raise ShapeError(f"op 'eigh': type must be 1, 2 or 3, got {type!r}")
    a, *bs = _floats(a, *(() if b is None else (b,)))
    _square(a, "eigh")
    uplo = "L" if lower else "U"
    if not bs:
        w, v = fnp.linalg.eigh(a, uplo)
    else:
        if _square(bs[0], "eigh") != _shape(a)[-1]:
            raise ShapeError(f"op 'eigh': a and b must have the same size, got shapes {_shape(a)} and {_shape(bs[0])}")
        factor = fnp.linalg.cholesky(bs[0], upper=not lower)
        lo = factor if lower else _mT(factor)   # b = lo lo^T
        s = _symmetric(a, lower)
        if type == 1:   # lo^-1 s lo^-T, its eigenvectors y give v = lo^-T y
            c = _triangular_solve(lo, _mT(_triangular_solve(lo, s, True)), True)
        else:           # lo^T s lo; v = lo^-T y (type 2) or lo y (type 3)
            c = fnp.matmul(_mT(lo), fnp.matmul(s, lo))
        w, y = fnp.linalg.eigh(c, uplo)
        v = fnp.matmul(lo, y) if type == 3 else _triangular_solve(lo, y, True, True)
    if subset_by_index is not None:
        first, last = (_int(i, "eigh", "subset_by_index") for i in subset_by_index)
        n = _shape(a)[-1]
        if not 0 <= first <= last < n:
            raise ShapeError(f"op 'eigh': subset_by_index must be (lo, hi) with 0 <= lo <= hi < {n}, "
                             f"got {subset_by_index!r}")
        w, v = w[..., first:last + 1], v[..., first:last + 1]
    return w if eigvals_only else (w, v)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True, lapack_driver="gesdd"):
    """(U, s, Vh) with a = U diag(s) Vh, s descending; s alone when not `compute_uv`. U is (m, m) and Vh
    (n, n) with `full_matrices`, else (m, k) and (k, n), k = min(m, n). `lapack_driver` 'gesvd' is
    accepted: frame computes with numpy's gesdd. Derivatives are JAX's (see frame.numpy.linalg.svd)."""
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ShapeError(f"op 'svd': lapack_driver must be 'gesdd' or 'gesvd', got {lapack_driver!r}")
    (a,) = _floats(a)
    result = fnp.linalg.svd(a, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    return tuple(result) if compute_uv else result


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """QR decomposition a = Q R, R upper triangular: mode 'full' (Q, R) with Q (m, m) and R (m, n),
    'economic' Q (m, k) and R (k, n), k = min(m, n), 'r' the one-element tuple (R,) with R (m, n).
    'raw' (LAPACK's reflectors) and `pivoting` are refused. Derivatives are JAX's."""
    if pivoting:
        raise TraceError("op 'qr': pivoting=True is not supported (frame's qr has no column pivoting)")
    if mode == "raw":
        raise TraceError("op 'qr': mode='raw' (LAPACK's Householder reflectors and tau) is not supported")
    if mode not in ("full", "economic", "r"):
        raise ShapeError(f"op 'qr': mode must be 'full', 'r', 'economic' or 'raw', got {mode!r}")
    (a,) = _floats(a)
    q, r = fnp.linalg.qr(a, "reduced" if mode == "economic" else "complete")
    return (r,) if mode == "r" else (q, r)


def _lu_op(a, name: str):
    """The `lu` op on float `a` (..., m, n): (lu, pivots, permutation), pivots and permutation int32."""
    (a,) = _floats(a)
    if _ndim(a) < 2:
        raise ShapeError(f"op '{name}': a must be a matrix or a stack of them, got shape {_shape(a)}")
    return tuple(bind("lu", a))


def _permutation(piv, m: int, name: str):
    """The row order (..., m) int32 that LAPACK's pivots make: row i swapped with row piv[i], i = 0, 1, ...
    Concrete pivots are applied in numpy; traced ones by one gather and two selects per pivot (a graph that
    grows with the number of pivots)."""
    piv = fnp.asarray(piv)
    shape = _shape(piv)
    if len(shape) < 1 or shape[-1] > m or _np.dtype(_dtype(piv)).kind not in "iu":
        raise ShapeError(f"op '{name}': pivots must be integers (..., k) with k <= {m}, got {_dtype(piv)} of "
                         f"shape {shape}")
    if not isinstance(piv, Tracer):
        piv = _np.asarray(piv)
        if piv.size and (piv.min() < 0 or piv.max() >= m):
            raise ShapeError(f"op '{name}': pivots must lie in [0, {m}), got values {piv.min()} to {piv.max()}")
        return _pivots_to_permutation(piv, m)
    rows = _np.arange(m, dtype=_np.int32)
    perm = fnp.broadcast_to(rows, shape[:-1] + (m,))
    piv = fnp.astype(piv, "int32")
    for j in range(shape[-1]):
        p = piv[..., j:j + 1]
        at_j, at_p = perm[..., j:j + 1], fnp.take_along_axis(perm, p, axis=-1)
        perm = fnp.where(rows == j, at_p, fnp.where(rows == p, at_j, perm))
    return perm


def _permutation_matrix(perm, m: int, dtype):
    """(..., m, m) with entry (i, j) one where perm[i] == j: its product with b is b[..., perm, :]."""
    return fnp.astype(fnp.expand_dims(perm, -1) == _np.arange(m, dtype=_np.int32), dtype)


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """LU decomposition with partial pivoting of (a stack of) m x n matrices: (P, L, U) with a = P L U, L (m, k)
    unit lower trapezoidal, U (k, n) upper trapezoidal, k = min(m, n); with `permute_l` (P L, U); with
    `p_indices` P as int32 row indices (m,) with a = L[P] U. A singular matrix gives zeros on U's diagonal
    (no error, and no warning). Derivatives in L and U are JAX's (the `lu` op's)."""
    factors, _, perm = _lu_op(a, "lu")
    *_, m, n = _shape(factors)
    k, dtype = min(m, n), _dtype(factors)
    lower = fnp.tril(factors[..., :, :k], -1) + _np.eye(m, k, dtype=dtype)
    upper = fnp.triu(factors[..., :k, :])
    p = _mT(_permutation_matrix(perm, m, dtype))   # a[perm] = L U, so a = p L U with p[perm[i], i] = 1
    if permute_l:
        return fnp.matmul(p, lower), upper
    if p_indices:
        return fnp.astype(fnp.argsort(perm, axis=-1), "int32"), lower, upper
    return p, lower, upper


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) of (a stack of) m x n matrices for `lu_solve`: lu holds L's strict lower part (unit
    diagonal) and U, piv (min(m, n),) int32 LAPACK's 0-based pivots (row i was swapped with row piv[i])."""
    factors, piv, _ = _lu_op(a, "lu_factor")
    return factors, piv


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """x with a x = b (trans 0) or a^T x = b (1, and 2: real matrices) from `lu_factor(a)`'s (lu, piv), a square;
    b (n,) or (..., n, k), batch axes broadcast. Derivatives reach lu (hence a) and b."""
    if isinstance(trans, bool) or trans not in (0, 1, 2):   # scipy's getrs takes the integers only
        raise ShapeError(f"op 'lu_solve': trans must be 0, 1 or 2, got {trans!r}")
    factors, piv = lu_and_piv
    factors, b = _floats(factors, b)
    n = _square(factors, "lu_solve")
    b, vector = _rhs(b, factors, "lu_solve")
    p = _permutation_matrix(_permutation(piv, n, "lu_solve"), n, _dtype(factors))   # p a = L U
    if not _TRANS[trans]:   # L U x = p b
        x = _triangular_solve(factors, _triangular_solve(factors, fnp.matmul(p, b), True, False, True))
    else:                   # a^T = U^T L^T p: x = p^T L^-T U^-T b
        y = _triangular_solve(factors, _triangular_solve(factors, b, False, True), True, True, True)
        x = fnp.matmul(_mT(p), y)
    return _vector(x, vector)


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None):
    """(x, residues, rank, s): the least-squares solution of a x = b (a (m, n), b (m,) or (m, k)), singular
    values up to `cond` (default eps) times the largest taken as zero. residues (sums of squares of
    b - a x per column; a scalar for 1-d b) are given whenever m > n; scipy gives an empty array instead
    when a's rank is below n, which is known only from the values. rank is an int64 array. The
    `lapack_driver` names are accepted: frame computes with gelsd (numpy's). Derivatives: see
    frame.numpy.linalg.lstsq."""
    if lapack_driver not in (None, "gelsd", "gelsy", "gelss"):
        raise ShapeError(f"op 'lstsq': lapack_driver must be 'gelsd', 'gelsy' or 'gelss', got {lapack_driver!r}")
    a, b = _floats(a, b)
    rcond = float(_np.finfo(_dtype(a)).eps) if cond is None else float(cond)
    x, residues, rank, s = fnp.linalg.lstsq(a, b, rcond)
    if _ndim(b) == 1 and _shape(residues) == (1,):
        residues = fnp.reshape(residues, ())
    return x, residues, fnp.astype(rank, "int64"), s


def pinv(a, *, atol=None, rtol=None, return_rank=False, check_finite=True):
    """The Moore-Penrose pseudo-inverse of `a` (or a stack) by its SVD: singular values above
    atol + rtol * (the largest) are inverted, the others dropped (atol default 0, rtol max(m, n) * eps).
    With `return_rank`, (pinv, rank) with rank an int64 array. Derivatives are the SVD's: undefined where
    singular values repeat or cross the cut-off."""
    (a,) = _floats(a)
    shape = _shape(a)
    if len(shape) < 2:
        raise ShapeError(f"op 'pinv': a must be a matrix or a stack of them, got shape {shape}")
    atol = 0.0 if atol is None else atol
    rtol = max(shape[-2:]) * float(_np.finfo(_dtype(a)).eps) if rtol is None else rtol
    if not isinstance(atol, Tracer) and not isinstance(rtol, Tracer) and (atol < 0 or rtol < 0):
        raise ShapeError(f"op 'pinv': atol and rtol must be >= 0, got {atol} and {rtol}")
    if 0 in shape[-2:]:
        result = fnp.zeros(shape[:-2] + shape[-1:] + shape[-2:-1], _dtype(a))
        return (result, fnp.zeros(shape[:-2], "int64")) if return_rank else result
    u, s, vh = fnp.linalg.svd(a, full_matrices=False)
    kept = s > atol + s[..., :1] * rtol
    inverse = fnp.where(kept, 1 / fnp.where(kept, s, 1), 0)
    result = fnp.matmul(_mT(vh) * fnp.expand_dims(inverse, -2), _mT(u))
    return (result, fnp.astype(fnp.sum(kept, axis=-1), "int64")) if return_rank else result


# -- structured matrices -------------------------------------------------------------------------------
def block_diag(*arrs):
    """The block-diagonal matrix of the arrays (0-d and 1-d as one row; no arrays: shape (1, 0)), of
    numpy's result dtype; arrays with more than 2 axes are stacks of blocks whose batch axes broadcast
    (scipy 1.17's batching)."""
    arrs = _common(arrs or ([],), floats=False)
    blocks = [fnp.reshape(x, (1,) * (2 - _ndim(x)) + _shape(x)) if _ndim(x) < 2 else x for x in arrs]
    batch = tuple(_np.broadcast_shapes(*[_shape(x)[:-2] for x in blocks]))
    blocks = [fnp.broadcast_to(x, batch + _shape(x)[-2:]) for x in blocks]
    widths = [_shape(x)[-1] for x in blocks]
    total, dtype, rows, before = sum(widths), _dtype(blocks[0]), [], 0
    for x, width in zip(blocks, widths):
        height = _shape(x)[-2]
        parts = [fnp.zeros(batch + (height, before), dtype), x, fnp.zeros(batch + (height, total - before - width),
                                                                           dtype)]
        rows.append(fnp.concatenate(parts, axis=-1))
        before += width
    return fnp.concatenate(rows, axis=-2)


def _vectors(op: str, *xs):
    """The arrays as stacks of vectors (0-d as one element) of one dtype, their batch axes broadcast."""
    xs = [fnp.reshape(x, (1,)) if _ndim(x) == 0 else x for x in _common(xs, floats=False)]
    try:
        batch = tuple(_np.broadcast_shapes(*[_shape(x)[:-1] for x in xs]))
    except ValueError:
        raise ShapeError(f"op '{op}': the batch axes of c and r do not broadcast, got shapes "
                         f"{' and '.join(str(_shape(x)) for x in xs)}") from None
    return [fnp.broadcast_to(x, batch + _shape(x)[-1:]) for x in xs]


def _gathered(values, index):
    """values[..., index] for a static (m, n) index array: the matrices of a stack of vectors."""
    if 0 in index.shape:
        return fnp.zeros(_shape(values)[:-1] + index.shape, _dtype(values))
    return fnp.take(values, index, axis=-1)


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column c and first row r (r[0] ignored; default conj(c)): entry
    (i, j) is c[i - j] for i >= j, else r[j - i]. Stacks of vectors give stacks of matrices (scipy 1.17)."""
    c = fnp.asarray(c)
    if r is None:
        r = fnp.conj(c) if _np.dtype(_dtype(c)).kind == "c" else c
    c, r = _vectors("toeplitz", c, r)
    m, n = _shape(c)[-1], _shape(r)[-1]
    i, j = _np.arange(m)[:, None], _np.arange(n)[None, :]
    return _gathered(fnp.concatenate([c, r[..., 1:]], axis=-1), _np.where(i >= j, i - j, m - 1 + j - i))


def hankel(c, r=None):
    """The Hankel matrix with first column c and last row r (r[0] ignored; default zeros): entry (i, j)
    is c[i + j] for i + j < m, else r[i + j - m + 1]. Stacks of vectors give stacks of matrices, as JAX
    and scipy 1.19 read them (scipy 1.17 flattens them, with a FutureWarning)."""
    c = fnp.asarray(c)
    c, r = _vectors("hankel", c, fnp.zeros_like(c) if r is None else r)
    m, n = _shape(c)[-1], _shape(r)[-1]
    return _gathered(fnp.concatenate([c, r[..., 1:]], axis=-1), _np.arange(m)[:, None] + _np.arange(n)[None, :])


def circulant(c):
    """The circulant matrix with first column c: entry (i, j) is c[(i - j) mod n]. Stacks of vectors give
    stacks of matrices."""
    (c,) = _vectors("circulant", fnp.asarray(c))
    n = _shape(c)[-1]
    return _gathered(c, (_np.arange(n)[:, None] - _np.arange(n)[None, :]) % max(n, 1))


# -- the matrix exponential --------------------------------------------------------------------------
# Pade approximants r_m(A) = q_m(A)^-1 p_m(A), p_m = V + U, q_m = V - U, with U the odd and V the even
# part (Higham 2005, "The scaling and squaring method for the matrix exponential revisited").
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880., 3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
         10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.),
}
_THETA_13 = 5.371920351148152   # the largest 1-norm Pade-13 meets to unit roundoff in float64


def _pade(a, m: int):
    """r_m(a) for (a stack of) matrices a of 1-norm about theta_m or less."""
    b, eye = _PADE[m], _np.eye(_shape(a)[-1], dtype=_dtype(a))
    powers = [eye, fnp.matmul(a, a)]                      # a^0, a^2, a^4, ... up to a^(m - 1) (a^6 for m = 13)
    while len(powers) < (4 if m == 13 else (m + 1) // 2):
        powers.append(fnp.matmul(powers[-1], powers[1]))
    if m == 13:   # Higham's evaluation: a^6 (b13 a^6 + b11 a^4 + b9 a^2) + ..., six products in all
        a2, a4, a6 = powers[1:]
        u = fnp.matmul(a, fnp.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
                       + b[1] * eye)
        v = fnp.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    else:
        u = fnp.matmul(a, sum(b[2 * k + 1] * p for k, p in enumerate(powers)))
        v = sum(b[2 * k] * p for k, p in enumerate(powers))
    return fnp.linalg.solve(v - u, v + u)


def _squared(r, times: int):
    for _ in range(times):
        r = fnp.matmul(r, r)
    return r


def _scipy_structure(a: _np.ndarray) -> tuple[int, int]:
    """(degree m, squarings s) as scipy.linalg.expm picks them for the concrete matrix `a` (Al-Mohy and
    Higham 2009: 1-norms of powers of a), by scipy's own picker."""
    from scipy.linalg._matfuncs_expm import pick_pade_structure

    work = _np.empty((5,) + a.shape, a.dtype)
    work[0] = a
    return pick_pade_structure(work)


def _expm_concrete(a: _np.ndarray):
    """expm of one concrete matrix with scipy's choices: exp of a diagonal matrix's diagonal, else Pade-m
    of a / 2^s squared s times, (m, s) scipy's."""
    if not _np.any(a - _np.diag(_np.diagonal(a))):
        return _np.diag(_np.exp(_np.diagonal(a)))
    m, s = _scipy_structure(a)
    return _squared(_pade(a / 2.0 ** s, m), s)


def expm(A, *, max_squarings: int = 16):
    """The matrix exponential of square `A` (or of each matrix of a stack), by scaling and squaring.

    Concrete A is computed as scipy.linalg.expm does it: the Pade degree m and the number s of squarings
    from the 1-norms of A's powers (scipy's own choice), r_m(A / 2^s)^(2^s), and exp of the diagonal of a
    diagonal matrix (scipy recomputes the diagonal of a triangular A after squaring; frame squares it as
    any other). Traced A (under frame.function, grad, ...) needs a static graph, so it takes JAX's
    approach: always Pade-13, s = ceil(log2(|A|_1 / theta_13)) computed in the graph (Higham 2005; JAX
    rounds down), and `max_squarings` (JAX's keyword, default 16) squarings in the graph of which the
    first s are kept (`where`): the result is nan where s would exceed max_squarings (|A|_1 above about
    3.5e5), as JAX's (concrete A has no such cap). Both are backward stable to unit roundoff, as scipy's:
    they differ from scipy's values by rounding amplified by expm's conditioning, as JAX's do (relative
    1e-15 for |A|_1 about 1, up to 1e-12 at 10 to 100 in the tests). Derivatives are those of the traced
    composition (r_13 and the squarings; the choice of s has none): JAX's to rounding."""
    (a,) = _floats(A)
    n = _square(a, "expm")
    max_squarings = _int(max_squarings, "expm", "max_squarings")
    if n <= 1:   # exp of the one entry: exact, as scipy
        return fnp.exp(a)
    if not isinstance(a, Tracer):
        stack = a.reshape((-1, n, n))
        return _np.stack([_expm_concrete(m) for m in stack]).reshape(a.shape) if stack.shape[0] else a
    norm = fnp.stop_gradient(fnp.max(fnp.sum(fnp.abs(a), axis=-2), axis=-1))
    s = fnp.reshape(fnp.ceil(fnp.log2(fnp.maximum(norm / _THETA_13, 1.0))), _shape(norm) + (1, 1))
    r = _pade(a / fnp.exp2(s), 13)   # scaling by a power of two is exact
    for k in range(max_squarings):
        r = fnp.where(s > k, fnp.matmul(r, r), r)
    return fnp.where(s > max_squarings, math.nan, r)


def expm_frechet(A, E, method=None, compute_expm=True, check_finite=True):
    """(expm(A), L(A, E)) with L the Frechet derivative of expm at A in direction E (L alone when not
    `compute_expm`), from the block-triangular identity expm([[A, E], [0, A]]) = [[expm(A), L], [0, expm(A)]]
    (scipy computes L by Al-Mohy and Higham's algorithm: the same values to rounding). `method` is accepted
    and not used, as in JAX."""
    a, e = _floats(A, E)
    n = _square(a, "expm_frechet")
    if _shape(e) != _shape(a):
        raise ShapeError(f"op 'expm_frechet': A and E must have the same shape, got {_shape(a)} and {_shape(e)}")
    zeros = fnp.zeros_like(a)
    block = fnp.concatenate([fnp.concatenate([a, e], axis=-1), fnp.concatenate([zeros, a], axis=-1)], axis=-2)
    x = expm(block)
    expm_a, frechet = x[..., :n, :n], x[..., :n, n:]
    return (expm_a, frechet) if compute_expm else frechet


# -- special matrices ----------------------------------------------------------------------------------
# Matrices of a static size are built in numpy (exact integers, or the closed forms in float64): constants
# in a traced graph. Those of a (traced) vector are gathers, products with constant 0/1 matrices and
# concatenations, so they differentiate in the vector.
def _size(n, op: str, what: str = "n") -> int:
    n = _int(n, op, what)
    if n < 0:
        raise ShapeError(f"op '{op}': {what} must be >= 0, got {n}")
    return n


def hilbert(n):
    """The n x n Hilbert matrix, 1 / (i + j + 1) (float64)."""
    n = _size(n, "hilbert")
    i = _np.arange(n, dtype=_np.float64)
    return 1.0 / (i[:, None] + i[None, :] + 1.0)


def invhilbert(n, exact=False):
    """The inverse of the n x n Hilbert matrix from its closed form (-1)^(i+j) (i+j+1) C(n+i, n-j-1)
    C(n+j, n-i-1) C(i+j, i)^2, in exact integers: float64 (each entry rounded once), or with `exact`
    int64 (an object array of Python ints for n > 14, where int64 overflows), as scipy."""
    n = _size(n, "invhilbert")
    c = math.comb
    rows = [[(-1) ** (i + j) * (i + j + 1) * c(n + i, n - j - 1) * c(n + j, n - i - 1) * c(i + j, i) ** 2
             for j in range(n)] for i in range(n)]
    if not exact:
        return _np.array(rows, dtype=_np.float64).reshape(n, n)
    return _np.array(rows, dtype=_np.int64 if n <= 14 else object).reshape(n, n)


def _pascal_lower(n: int):
    return [[math.comb(i, j) for j in range(n)] for i in range(n)]


def _kind(kind, op: str) -> str:
    if kind not in ("symmetric", "lower", "upper"):
        raise ShapeError(f"op '{op}': kind must be 'symmetric', 'lower' or 'upper', got {kind!r}")
    return kind


def pascal(n, kind="symmetric", exact=True):
    """The n x n Pascal matrix: symmetric C(i + j, i), lower C(i, j), upper its transpose; with `exact`
    uint64 (object for n > 34, as scipy), else float64 (exact integers while they fit 2^53)."""
    n, kind = _size(n, "pascal"), _kind(kind, "pascal")
    if kind == "symmetric":
        rows = [[math.comb(i + j, i) for j in range(n)] for i in range(n)]
    else:
        rows = _pascal_lower(n)
    m = _np.array(rows, dtype=(_np.uint64 if n <= 34 else object) if exact else _np.float64).reshape(n, n)
    return m.T.copy() if kind == "upper" else m


def invpascal(n, kind="symmetric", exact=True):
    """The inverse of pascal(n, kind): the lower one's is (-1)^(i+j) C(i, j), and the symmetric one is
    L L^T, so its inverse is L^-T L^-1 (computed in Python integers); int64 with `exact` (object for
    n > 34), else float64."""
    n, kind = _size(n, "invpascal"), _kind(kind, "invpascal")
    inv_lower = [[(-1) ** (i + j) * v for j, v in enumerate(row)] for i, row in enumerate(_pascal_lower(n))]
    if kind == "symmetric":
        rows = [[sum(inv_lower[k][i] * inv_lower[k][j] for k in range(n)) for j in range(n)] for i in range(n)]
    else:
        rows = inv_lower
    m = _np.array(rows, dtype=(_np.int64 if n <= 34 else object) if exact else _np.float64).reshape(n, n)
    return m.T.copy() if kind == "upper" else m


def hadamard(n, dtype=int):
    """The n x n Hadamard matrix of Sylvester's construction, H_2n = [[H, H], [H, -H]] (n a power of 2)."""
    n = _int(n, "hadamard", "n")
    if n < 1 or n & (n - 1):
        raise ShapeError(f"op 'hadamard': n must be a positive power of 2, got {n}")
    h = _np.ones((1, 1), dtype=dtype)
    while h.shape[0] < n:
        h = _np.block([[h, h], [h, -h]])
    return h


def dft(n, scale=None):
    """The n x n discrete Fourier transform matrix, exp(-2 pi i j k / n) (complex128), divided by n for
    scale 'n' and by sqrt(n) for 'sqrtn'. j k is reduced mod n first, so each entry is exp of an angle in
    [0, 2 pi): correctly rounded cos and sin (scipy takes powers, within a few ulp)."""
    n = _size(n, "dft")
    if scale not in (None, "n", "sqrtn"):
        raise ShapeError(f"op 'dft': scale must be None, 'n' or 'sqrtn', got {scale!r}")
    k = _np.arange(n)
    m = _np.exp(-2j * _np.pi * ((k[:, None] * k[None, :]) % max(n, 1)) / max(n, 1))
    return m / {None: 1, "n": n, "sqrtn": math.sqrt(n)}[scale]


def helmert(n, full=False):
    """The n x n Helmert matrix (orthogonal): row 0 is 1/sqrt(n), row i > 0 is (1, ..., 1, -i, 0, ...) /
    sqrt(i (i + 1)) with i ones; without `full`, rows 1 to n - 1 only."""
    n = _size(n, "helmert")
    m = _np.tril(_np.ones((n, n)), -1) - _np.diag(_np.arange(n, dtype=_np.float64))
    norms = _np.sqrt(_np.arange(n) * _np.arange(1, n + 1, dtype=_np.float64))
    if n:
        m[0], norms[0] = 1.0, math.sqrt(n)
    m = m / norms[:, None]
    return m if full else m[1:]


def _traced_vector(a, op: str, least: int, name: str = "a"):
    """`a` as (a stack of) vectors of at least `least` entries, or a ShapeError naming op."""
    a = fnp.asarray(a)
    if _ndim(a) < 1 or _shape(a)[-1] < least:
        raise ShapeError(f"op '{op}': {name} must have at least {least} entries on its last axis, got shape "
                         f"{_shape(a)}")
    return a


def companion(a):
    """The companion matrix of the polynomial with coefficients `a` (highest first, at least two; stacks of
    them on the leading axes): first row -a[1:] / a[0], ones on the subdiagonal; float (a[0] = 0 gives
    inf/nan where scipy raises)."""
    a = _traced_vector(a, "companion", 2)
    (a,) = _floats(a)
    n, batch = _shape(a)[-1] - 1, _shape(a)[:-1]
    first = -a[..., 1:] / a[..., :1]
    below = fnp.broadcast_to(_np.eye(n - 1, n, dtype=_dtype(a)), batch + (n - 1, n))
    return fnp.concatenate([fnp.expand_dims(first, -2), below], axis=-2)


def leslie(f, s):
    """The Leslie matrix of fecundities f (n,) and survival rates s (n - 1,), n >= 2: first row f, s on the
    subdiagonal; numpy's result dtype. Stacks broadcast on the leading axes."""
    f, s = fnp.asarray(f), fnp.asarray(s)
    if _ndim(f) < 1 or _ndim(s) < 1 or _shape(f)[-1] < 2 or _shape(s)[-1] != _shape(f)[-1] - 1:
        raise ShapeError(f"op 'leslie': f must have n >= 2 entries and s n - 1 on their last axes, got shapes "
                         f"{_shape(f)} and {_shape(s)}")
    batch = tuple(_np.broadcast_shapes(_shape(f)[:-1], _shape(s)[:-1]))
    f, s = _common((f, s), floats=False)
    n = _shape(f)[-1]
    below = fnp.broadcast_to(fnp.expand_dims(s, -1) * _np.eye(n - 1, n, dtype=_dtype(s)), batch + (n - 1, n))
    return fnp.concatenate([fnp.broadcast_to(fnp.expand_dims(f, -2), batch + (1, n)), below], axis=-2)


def fiedler(a):
    """The Fiedler matrix of the vector a: |a_i - a_j| (stacks of vectors on the leading axes)."""
    a = _traced_vector(a, "fiedler", 0)
    return fnp.abs(fnp.expand_dims(a, -1) - fnp.expand_dims(a, -2))


def _fiedler_pattern(n: int):
    """(C0, Cs): Fiedler's companion matrix of the monic x^n + c_1 x^(n-1) + ... + c_n is C0 + sum_k c_k
    Cs[k], affine in c. Fiedler (2003): C = (M_1 M_3 ...)(M_2 M_4 ...) with M_k = I except the block
    [[-c_k, 1], [1, 0]] at rows k-1, k (M_n: the entry -c_n). Each entry holds one c_k at most, so
    evaluating the product at c = 0 and at unit vectors gives the constant and the coefficient matrices."""
    def matrix(c):
        odd, even = _np.eye(n), _np.eye(n)
        for k in range(1, n + 1):
            m = odd if k % 2 else even
            m[k - 1, k - 1] = -c[k - 1]
            if k < n:
                m[k - 1, k], m[k, k - 1], m[k, k] = 1.0, 1.0, 0.0
        return odd @ even
    c0 = matrix(_np.zeros(n))
    return c0, _np.stack([matrix(e) - c0 for e in _np.eye(n)]) if n else _np.zeros((0, 0, 0))


def fiedler_companion(a):
    """Fiedler's pentadiagonal companion matrix of the polynomial with coefficients `a` (highest first):
    its eigenvalues are the roots. Built as a constant plus a static combination of a[1:] / a[0], so it
    differentiates in a; a of one entry gives a (0, 0) matrix (scipy: shape (0,))."""
    a = _traced_vector(a, "fiedler_companion", 1)
    (a,) = _floats(a)
    n = _shape(a)[-1] - 1
    c0, cs = _fiedler_pattern(n)
    if n == 0:
        return fnp.zeros(_shape(a)[:-1] + (0, 0), _dtype(a))
    c = a[..., 1:] / a[..., :1]
    return fnp.tensordot(c, cs.astype(_dtype(a)), axes=1) + c0.astype(_dtype(a))


def convolution_matrix(a, n, mode="full"):
    """The Toeplitz matrix A with A @ v == numpy.convolve(a, v, mode) for v of length n: column j is a
    shifted down by j (full: m + n - 1 rows; same: max(m, n) rows centred as numpy's; valid: max(m, n) -
    min(m, n) + 1 rows). Stacks of vectors a give stacks of matrices."""
    a = _traced_vector(a, "convolution_matrix", 1)
    n = _int(n, "convolution_matrix", "n")
    if n < 1:
        raise ShapeError(f"op 'convolution_matrix': n must be a positive integer, got {n}")
    if mode not in ("full", "same", "valid"):
        raise ShapeError(f"op 'convolution_matrix': mode must be 'full', 'same' or 'valid', got {mode!r}")
    m = _shape(a)[-1]
    start, rows = {"full": (0, m + n - 1), "same": ((min(m, n) - 1) // 2, max(m, n)),
                   "valid": (min(m, n) - 1, max(m, n) - min(m, n) + 1)}[mode]
    k = start + _np.arange(rows)[:, None] - _np.arange(n)[None, :]       # a's index at (i, j)
    padded = fnp.concatenate([a, fnp.zeros(_shape(a)[:-1] + (1,), _dtype(a))], axis=-1)
    return _gathered(padded, _np.where((k >= 0) & (k < m), k, m))


# -- matrix functions ----------------------------------------------------------------------------------
def polar(a, side="right", *, method=None, eps=None, max_iterations=None):
    """The polar decomposition (u, p) of the (m, n) matrix a: a = u p (side 'right', p (n, n)) or a = p u
    ('left', p (m, m)), u with orthonormal columns (rows) and p positive semidefinite, from the thin SVD
    a = W S V^T: u = W V^T, p = V S V^T (right) or W S W^T (left). Derivatives are the SVD's (they need
    distinct nonzero singular values). `method`, `eps` and `max_iterations` (JAX's QDWH controls) are
    accepted and unused."""
    if side not in ("right", "left"):
        raise ShapeError(f"op 'polar': side must be 'right' or 'left', got {side!r}")
    (a,) = _floats(a)
    if _ndim(a) != 2:
        raise ShapeError(f"op 'polar': a must be a matrix, got shape {_shape(a)}")
    w, s, vh = fnp.linalg.svd(a, full_matrices=False)
    u = fnp.matmul(w, vh)
    if side == "right":
        p = fnp.matmul(_mT(vh) * s, vh)
    else:
        p = fnp.matmul(w * s, _mT(w))
    return u, p


def solve_sylvester(a, b, q):
    """X with a X + X b = q (a (n, n), b (m, m), q (n, m)). Row-major vec(a X + X b) = (a kron I_m +
    I_n kron b^T) vec(X), an (nm, nm) system solved by frame's solve: O(n^3 m^3) work, for the small sizes
    it is used at (scipy uses Bartels-Stewart's Schur method, O(n^3 + m^3)). Singular when a and -b share
    an eigenvalue."""
    a, b, q = _floats(a, b, q)
    n, m = _square(a, "solve_sylvester"), _square(b, "solve_sylvester")
    if _ndim(a) != 2 or _ndim(b) != 2 or _shape(q) != (n, m):
        raise ShapeError(f"op 'solve_sylvester': a (n, n), b (m, m) and q (n, m) expected, got shapes "
                         f"{_shape(a)}, {_shape(b)} and {_shape(q)}")
    system = fnp.kron(a, _np.eye(m, dtype=_dtype(a))) + fnp.kron(_np.eye(n, dtype=_dtype(a)), _mT(b))
    return fnp.reshape(fnp.linalg.solve(system, fnp.reshape(q, (n * m,))), (n, m))


# -- Schur and Hessenberg forms, matrix functions on them ---------------------------------------------------
def _real_square(a, op: str):
    """a as (a stack of) real float square matrices; complex ones are refused by name (the Schur op is real)."""
    (a,) = _floats(a)
    if _np.dtype(_dtype(a)).kind == "c":
        raise ShapeError(f"op 'scipy.linalg.{op}': complex matrices are not supported, got dtype {_dtype(a)}")
    shape = _shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ShapeError(f"op 'scipy.linalg.{op}': a must be a square matrix or a stack of them, got shape {shape}")
    return a, shape[-1]


def _mH(x):
    return fnp.conj(_mT(x))


def _unit(n: int, i: int, j: int, dtype):
    """The (n, n) matrix with one 1 at (i, j)."""
    e = _np.zeros((n, n), dtype)
    e[i, j] = 1
    return e


def schur(a, output="real", lwork=None, overwrite_a=False, sort=None, check_finite=True):
    """(T, Z) with a = Z T Z^H (the `schur` op: LAPACK's gees): output 'real' ('r') gives T quasi upper
    triangular (2x2 blocks for complex eigenvalue pairs) and Z orthogonal, 'complex' ('c') complex T upper
    triangular and Z unitary. Stacks of matrices are decomposed one by one. `sort` (which reorders and counts
    selected eigenvalues, a number that depends on the values) is refused. No derivative (as in JAX): the Schur
    vectors are not unique."""
    if output not in ("real", "complex", "r", "c"):
        raise ShapeError(f"op 'scipy.linalg.schur': output must be 'real' or 'complex', got {output!r}")
    if sort is not None:
        raise TraceError("op 'scipy.linalg.schur': sort is not supported (how many eigenvalues it selects depends on "
                         "their values)")
    a, _ = _real_square(a, "schur")
    return bind("schur", a, output="complex" if output in ("complex", "c") else "real")


def hessenberg(a, calc_q=False, overwrite_a=False, check_finite=True):
    """The Hessenberg form H = Q^T a Q (zero below the first subdiagonal), and (H, Q) with `calc_q`, by
    Householder reflections as LAPACK's gehrd: step k reflects rows and columns k+1.. so that column k's
    entries below k+1 vanish, with the reflector mapping x = H[k+1:, k] to beta e_1, beta = -sign(x_0) |x|
    (LAPACK's choice, so that H and Q are scipy's to rounding; no reflection where x's tail is already zero).
    A composition of frame ops: it traces, takes stacks, and differentiates (where no x_0 is zero)."""
    a, n = _real_square(a, "hessenberg")
    dtype = _dtype(a)
    h = a
    q = fnp.broadcast_to(_np.eye(n, dtype=dtype), _shape(a))
    for k in range(n - 2):
        x = h[..., k + 1:, k]
        alpha, tail = x[..., :1], fnp.sum(x[..., 1:] * x[..., 1:], axis=-1, keepdims=True)
        act = tail > 0
        norm = fnp.sqrt(alpha * alpha + fnp.where(act, tail, 1.0))
        beta = fnp.where(alpha >= 0, -norm, norm)
        u = fnp.concatenate([fnp.zeros(_shape(x)[:-1] + (k + 1,), dtype), alpha - beta, x[..., 1:]], axis=-1)
        # u^T u = (alpha - beta)^2 + |tail|^2 = 2 |x| (|x| + |alpha|); no reflection (a zero factor) without a tail.
        scale = fnp.where(act, 2.0 / ((alpha - beta) ** 2 + fnp.where(act, tail, 1.0)), 0.0)
        col, row = fnp.expand_dims(u, -1), fnp.expand_dims(u, -2)
        h = h - fnp.expand_dims(scale, -1) * fnp.matmul(col, fnp.matmul(row, h))     # P h
        h = h - fnp.expand_dims(scale, -1) * fnp.matmul(fnp.matmul(h, col), row)     # (P h) P
        q = q - fnp.expand_dims(scale, -1) * fnp.matmul(fnp.matmul(q, col), row)     # q P
    if n > 2:   # exact zeros below the subdiagonal, as LAPACK leaves them
        h = h * _np.triu(_np.ones((n, n), dtype), -1)
    return (h, q) if calc_q else h


def rsf2csf(T, Z, check_finite=True):
    """The complex Schur form (T, Z) from a real one (quasi upper triangular T, orthogonal Z, a = Z T Z^T),
    from the bottom up: each 2x2 block [[a, b], [c, d]] with a non-negligible c (|c| > eps (|a| + |d|), as
    scipy's test) is triangularised by the unitary rotation G = [[conj(m), c], [-c, m]] / r, m = lambda - d
    for its eigenvalue lambda of positive imaginary part (LAPACK's first of the pair), r = |(m, c)|:
    T <- G T G^H on rows and columns k-1, k, Z <- Z G^H. A static loop of where-selected rotations, so it
    traces and takes stacks (batch axes broadcast); complex results."""
    t, z = _floats(T, Z)
    for x, name in ((t, "T"), (z, "Z")):
        if _np.dtype(_dtype(x)).kind == "c":
            raise ShapeError(f"op 'scipy.linalg.rsf2csf': {name} must be real, got dtype {_dtype(x)}")
        if _ndim(x) < 2 or _shape(x)[-1] != _shape(x)[-2]:
            raise ShapeError(f"op 'scipy.linalg.rsf2csf': {name} must be a square matrix or a stack of them, got "
                             f"shape {_shape(x)}")
    n = _shape(t)[-1]
    if _shape(z)[-1] != n:
        raise ShapeError(f"op 'scipy.linalg.rsf2csf': T and Z must have the same size, got shapes {_shape(t)} and "
                         f"{_shape(z)}")
    batch = tuple(_np.broadcast_shapes(_shape(t)[:-2], _shape(z)[:-2]))
    cdtype = {"float32": "complex64", "float64": "complex128"}[_dtype(t)]
    eps = float(_np.finfo(_dtype(t)).eps)
    t = fnp.broadcast_to(fnp.astype(t, cdtype), batch + (n, n))
    z = fnp.broadcast_to(fnp.astype(z, cdtype), batch + (n, n))
    eye = _np.eye(n, dtype=cdtype)
    for k in range(n - 1, 0, -1):
        a, b, c, d = t[..., k - 1, k - 1], t[..., k - 1, k], t[..., k, k - 1], t[..., k, k]
        act = fnp.abs(c) > eps * (fnp.abs(a) + fnp.abs(d))
        p = 0.5 * (a - d)
        # lambda - d, lambda = (a + d) / 2 + sqrt(p^2 + b c) on the + imag side; the where()s keep the unused
        # branch (no rotation) away from sqrt(0), whose infinite derivative would reach the gradient as nan
        m = p + 1j * fnp.sqrt(fnp.where(act, -(p * p + b * c), 1.0))
        r = fnp.sqrt(fnp.where(act, fnp.real(m * fnp.conj(m)) + fnp.real(c * fnp.conj(c)), 1.0))
        cm, s = fnp.where(act, m / r, 1.0), fnp.where(act, c / r, 0.0)
        cm, s = cm[..., None, None], s[..., None, None]
        g = (eye + (fnp.conj(cm) - 1.0) * _unit(n, k - 1, k - 1, cdtype) + s * _unit(n, k - 1, k, cdtype)
             - s * _unit(n, k, k - 1, cdtype) + (cm - 1.0) * _unit(n, k, k, cdtype))
        t = fnp.matmul(fnp.matmul(g, t), _mH(g))
        z = fnp.matmul(z, _mH(g))
        t = t * (1.0 - _unit(n, k, k - 1, cdtype))   # exactly triangular there, as scipy sets it
    return t, z


def _triangular_by_diagonals(t, diagonal, step):
    """An upper triangular F from its `diagonal`, filled one superdiagonal at a time: entry (i, i + d) is
    step(F, i, j) read at (i, j) with F known on the diagonals below d, all entries of diagonal d at once."""
    n = _shape(t)[-1]
    f = fnp.expand_dims(diagonal, -1) * _np.eye(n, dtype=_dtype(t))
    for d in range(1, n):
        f = f + step(f) * _np.eye(n, k=d, dtype=_dtype(t))
    return f


def _real_or_nan(x):
    """The real part of a result a real matrix has (scipy returns it real when its imaginary part is
    negligible); nan where it is not (no real result: scipy's is complex, and frame's dtype is static)."""
    re, im = fnp.real(x), fnp.imag(x)
    big = fnp.max(fnp.abs(im), axis=(-2, -1), keepdims=True) > 1e-8 * fnp.maximum(
        fnp.max(fnp.abs(re), axis=(-2, -1), keepdims=True), 1.0)
    return fnp.where(big, _np.nan, re)


def _sqrtm_value(a):
    """Z U Z^H with T = Z^H a Z the complex Schur form and U the upper triangular square root of T (Bjorck and
    Hammarling): U_ii = sqrt(T_ii), and from U^2 = T, U_ij (U_ii + U_jj) = T_ij - sum_{i<k<j} U_ik U_kj,
    which is (T - U U)_ij while U_ij is still zero."""
    t, z = bind("schur", a, output="complex")
    u = _triangular_by_diagonals(
        t, fnp.sqrt(fnp.diagonal(t, 0, -2, -1)),
        lambda u: (t - fnp.matmul(u, u)) / (fnp.expand_dims(fnp.diagonal(u, 0, -2, -1), -1)
                                           + fnp.expand_dims(fnp.diagonal(u, 0, -2, -1), -2)))
    return _real_or_nan(fnp.matmul(fnp.matmul(z, u), _mH(z)))


def _sylvester_xx(x, q):
    """dX with X dX + dX X = Q for (stacks of) real X: the (n^2, n^2) Kronecker system (row-major vec:
    entry ((i, j), (k, l)) is X_ik delta_jl + delta_ik X_lj), solved by frame's solve."""
    n = _shape(x)[-1]
    eye = _np.eye(n, dtype=_dtype(x))
    system = (fnp.expand_dims(fnp.expand_dims(x, -2), -1) * eye[:, None, :]
              + eye[:, None, :, None] * fnp.expand_dims(fnp.expand_dims(_mT(x), -2), -4))
    batch = _shape(x)[:-2]
    system = fnp.reshape(system, batch + (n * n, n * n))
    return fnp.reshape(fnp.linalg.solve(system, fnp.reshape(q, _shape(q)[:-2] + (n * n, 1))), _shape(q))


def _sqrtm_rule(other):
    """The jvp rule X dX + dX X = dA, with X computed by `other`: inside its own rule a custom_jvp function
    stands for its body (schur, no derivative), so two twins call each other and X differentiates again."""
    def jvp(primals, tangents):
        (a,), (da,) = primals, tangents
        x = other(a)
        return x, _sylvester_xx(x, da)
    return jvp


_sqrtm, _sqrtm_twin = _custom_jvp(_sqrtm_value), _custom_jvp(_sqrtm_value)
_sqrtm.defjvp(_sqrtm_rule(_sqrtm_twin))
_sqrtm_twin.defjvp(_sqrtm_rule(_sqrtm))


def sqrtm(A, disp=True, blocksize=64):
    """The principal square root X (X @ X = A, eigenvalues in the right half plane) of real square `A` or a
    stack: the complex Schur form and Bjorck and Hammarling's triangular recurrence (scipy computes on the real
    Schur form; the same values to rounding). Real results; a matrix with a negative real eigenvalue has no real
    principal root (scipy returns a complex one), and gives nan. Derivatives by the rule X dX + dX X = dA
    (attached with custom_jvp, so every order), solved as an (n^2, n^2) Kronecker system: for small matrices.
    JAX's sqrtm (complex results) has no derivative. `disp` and `blocksize` are accepted and unused."""
    a, _ = _real_square(A, "sqrtm")
    return _sqrtm(a)


def funm(A, func, disp=True):
    """func(A) for real square `A` by Parlett's recurrence on the complex Schur form (scipy's: the real Schur
    form made complex by rsf2csf, so that the error estimate is scipy's too): F = func(T) is upper triangular
    with F_ii = func(T_ii), and FT = TF gives F_ij (T_jj - T_ii) = (T F - F T)_ij while F_ij is still zero.
    `func` must take a complex array and apply elementwise (frame.numpy functions, or numpy's when not traced).
    Real results (as scipy's for func real on the reals; nan where the result is not real); repeated
    eigenvalues divide by zero, as scipy's do. With `disp=False`, (F, errest), errest scipy's estimate
    min(1, max(eps, eps / minden |triu(T, 1)|_1)), minden the smallest of |T_00| and the |T_jj - T_ii| used.
    No derivative (the Schur form has none)."""
    a, n = _real_square(A, "funm")
    t, z = rsf2csf(*bind("schur", a, output="real"))
    diag = fnp.diagonal(t, 0, -2, -1)
    fdiag = fnp.astype(fnp.asarray(func(diag)), _dtype(t))
    gaps = fnp.expand_dims(diag, -2) - fnp.expand_dims(diag, -1)      # T_jj - T_ii at (i, j)
    f = _triangular_by_diagonals(t, fdiag, lambda f: (fnp.matmul(t, f) - fnp.matmul(f, t))
                                 / (gaps + _np.eye(n, dtype=_dtype(t))))
    result = _real_or_nan(fnp.matmul(fnp.matmul(z, f), _mH(z)))
    if disp:
        return result
    eps = float(_np.finfo(_dtype(a)).eps)
    upper = _np.triu(_np.ones((n, n)), 1).astype(bool)
    minden = fnp.minimum(fnp.abs(t[..., 0, 0]),
                         fnp.min(fnp.where(upper, fnp.abs(gaps), _np.inf), axis=(-2, -1))) if n > 1 else fnp.abs(t[..., 0, 0])
    minden = fnp.where(minden == 0, eps, minden)
    norm1 = fnp.max(fnp.sum(fnp.abs(t * upper), axis=-2), axis=-1)
    err = fnp.minimum(1.0, fnp.maximum(eps, eps / minden * norm1))
    err = fnp.where(fnp.all(fnp.isfinite(result), axis=(-2, -1)), err, _np.inf)
    return result, err


# -- QR products and tridiagonal eigenproblems ----------------------------------------------------------------
def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False, overwrite_c=False):
    """(Q @ c, R) (mode 'left', c (K, P)) or (c @ Q, R) (mode 'right', c (P, M)) with a = Q R the economic QR
    decomposition (Q (M, K), R (K, N), K = min(M, N)); a 1-d c is a column (left) or a row (right), and the
    product is 1-d again. `conjugate` has no effect on real matrices; `pivoting` is refused (frame's qr has no
    column pivoting). A composition of qr and matmul: derivatives are qr's (JAX's)."""
    if mode not in ("left", "right"):
        raise ShapeError(f"op 'scipy.linalg.qr_multiply': mode must be 'left' or 'right', got {mode!r}")
    if pivoting:
        raise TraceError("op 'scipy.linalg.qr_multiply': pivoting=True is not supported (frame's qr has no column "
                         "pivoting)")
    a, c = _floats(a, c)
    if _ndim(a) < 2 or _ndim(c) < 1:
        raise ShapeError(f"op 'scipy.linalg.qr_multiply': a must be a matrix (or a stack) and c an array of at least "
                         f"1 dimension, got shapes {_shape(a)} and {_shape(c)}")
    m, n = _shape(a)[-2:]
    k = min(m, n)
    vector = _ndim(c) == 1
    if vector:
        c = fnp.reshape(c, (-1, 1) if mode == "left" else (1, -1))
    need, axis = (k, -2) if mode == "left" else (m, -1)
    if _shape(c)[axis] != need:
        raise ShapeError(f"op 'scipy.linalg.qr_multiply': c must have {need} {'rows' if mode == 'left' else 'columns'} "
                         f"for mode={mode!r} and a of shape {_shape(a)}, got shape {_shape(c)}")
    q, r = fnp.linalg.qr(a, "reduced")
    product = fnp.matmul(q, c) if mode == "left" else fnp.matmul(c, q)
    return (fnp.ravel(product) if vector else product), r


def eigh_tridiagonal(d, e, eigvals_only=False, select="a", select_range=None, check_finite=True, tol=0.0,
                     lapack_driver="auto"):
    """Eigenvalues (ascending), and eigenvectors unless `eigvals_only`, of the symmetric tridiagonal matrix with
    diagonal d (n,) and off-diagonal e (n - 1,) (stacks on the leading axes): `eigh` of the dense matrix
    (O(n^3), scipy's stemr is O(n^2)); the eigenvectors' signs are LAPACK syevd's, which may differ from scipy's
    column by column. select 'a' keeps all, 'i' those of indices select_range = (lo, hi); 'v' (how many it
    keeps depends on the values) is refused. `tol` and `lapack_driver` are accepted and unused. Derivatives are
    eigh's (JAX's eigh_tridiagonal, bisection, gives eigenvalues only and no derivative)."""
    if select not in ("a", "i", "v", "all", "index", "value", 0, 1, 2):
        raise ShapeError(f"op 'scipy.linalg.eigh_tridiagonal': select must be 'a', 'v' or 'i', got {select!r}")
    kind = {"all": "a", "index": "i", "value": "v", 0: "a", 1: "v", 2: "i"}.get(select, select)
    if kind == "v":
        raise TraceError("op 'scipy.linalg.eigh_tridiagonal': select='v' is not supported (how many eigenvalues it "
                         "keeps depends on their values); use select='i', or select from all of them")
    d, e = _floats(d, e)
    if _ndim(d) < 1 or _ndim(e) < 1 or _shape(e)[-1] != max(_shape(d)[-1] - 1, 0):
        raise ShapeError(f"op 'scipy.linalg.eigh_tridiagonal': d must be (..., n) and e (..., n - 1), got shapes "
                         f"{_shape(d)} and {_shape(e)}")
    n = _shape(d)[-1]
    dtype = _dtype(d)
    # e padded to n entries, e_i at (i, i + 1): rows of the shifted identity scaled by e.
    padded = fnp.concatenate([e, fnp.zeros(_shape(e)[:-1] + (1,), dtype)], axis=-1)
    upper = fnp.expand_dims(padded, -1) * _np.eye(n, k=1, dtype=dtype)
    matrix = fnp.expand_dims(d, -1) * _np.eye(n, dtype=dtype) + upper + _mT(upper)
    subset = None
    if kind == "i":
        if select_range is None or len(select_range) != 2:
            raise ShapeError(f"op 'scipy.linalg.eigh_tridiagonal': select='i' needs select_range=(lo, hi), got "
                             f"{select_range!r}")
        subset = tuple(select_range)
    return eigh(matrix, eigvals_only=bool(eigvals_only), subset_by_index=subset)
