"""frame.numpy's linear algebra: products (`dot`, `vdot`, `vecdot`, `inner`, `outer`, `kron`, `matmul`,
`tensordot`, `einsum`, `trace`), `polyfit` (by `lstsq`) and the `linalg` namespace (`norm`, `solve`, `inv`, `det`, `slogdet`,
`cholesky`, `eigh`, `eigvalsh`, `eig`, `eigvals`, `svd`, `svdvals`, `pinv`, `cond`, `qr`, `lstsq`, `matrix_rank`,
`matrix_power`, `multi_dot`, `tensorinv`, `tensorsolve`, and numpy 2's array-API names `matrix_transpose`,
`vecdot`, `cross`, `outer`, `trace`, `diagonal`, `matmul`, `tensordot`, `vector_norm`, `matrix_norm`).

Every product is lowered to transpose, reshape, one (batched) `matmul` per pair of operands (reading an
operand transposed instead of moving its axes when that is enough), `sum`, and `diagonal` (a reshape and
a strided slice); so they are differentiable to any order like those ops. The `linalg`
functions normalise numpy's arguments (vector right-hand sides, `upper`, `UPLO`, `compute_uv`, `rcond`)
around the ops of frame/ops/linalg.py and return numpy's named result tuples.

Integer and bool matrices are computed in float64, as numpy.linalg does (the ops' `to_float` fact); operands
of two different float dtypes are not promoted (a ShapeError names the op and both dtypes).
"""
from __future__ import annotations

import builtins
import math
import string
import warnings
from collections import namedtuple
from types import SimpleNamespace

import numpy as _np

from ..errors import LinAlgError, ShapeError, TraceError
from ..tracing import Tracer, bind, prim
from .args import _axis, _dtype, _int, _ints, _ndim, _shape
from .numpy_logic import astype
from .numpy_math import _inexact, cross, vander
from .numpy_shape import broadcast_to as _broadcast_to
from .numpy_shape import reshape
from .numpy_shape import diagonal as _diagonal

__all__ = ["linalg", "dot", "vdot", "inner", "outer", "matmul", "tensordot", "einsum", "trace", "kron", "vecdot", "polyfit"]

# numpy.linalg's result types (same names and fields): tuples, so they unpack and flatten as pytrees.
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
QRResult = namedtuple("QRResult", ["Q", "R"])


def _reshape(x, shape):
    shape = tuple(shape)
    return x if _shape(x) == shape else bind("reshape", x, shape=shape)


def _permute(x, perm):
    perm = tuple(perm)
    return x if perm == tuple(range(len(perm))) else bind("transpose", x, perm=perm)


def _sum(x, axes, keepdims=False):
    return bind("sum", x, axes=tuple(sorted(axes)), keepdims=keepdims) if axes or keepdims else x


def _size(shape) -> int:
    return int(_np.prod(shape, dtype=_np.int64))


def _matmul2(a, b, transpose_a=False, transpose_b=False):
    flags = {k: True for k, on in (("transpose_a", transpose_a), ("transpose_b", transpose_b)) if on}
    return bind("matmul", a, b, **flags)


def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """Sum along a diagonal (numpy's `trace`): the diagonal `offset` of the `axis1`/`axis2` planes."""
    return _sum(_diagonal(a, _int(offset, "trace", "offset"), axis1, axis2), (len(_shape(a)) - 2,))


# -- products ------------------------------------------------------------------------------------
def _contract(a, b, ca, cb, batch=((), ())):
    """sum over the paired axes ca of a and cb of b; `batch` pairs axes kept once (leading in the
    result); the result's other axes are a's free axes then b's. One matmul, reading an operand
    transposed when its contracted axes already lie on the side matmul wants them.
    """
    sa, sb = _shape(a), _shape(b)
    ba, bb = batch
    fa = [i for i in range(len(sa)) if i not in ca and i not in ba]
    fb = [i for i in range(len(sb)) if i not in cb and i not in bb]
    for i, j in zip(ca, cb):
        if sa[i] != sb[j]:
            raise ShapeError(f"shape-mismatch for sum: axis {i} of {sa} has size {sa[i]}, axis {j} of {sb} {sb[j]}")
    bsa, bsb = tuple(sa[i] for i in ba), tuple(sb[j] for j in bb)
    k = _size([sa[i] for i in ca])
    m, n = _size([sa[i] for i in fa]), _size([sb[j] for j in fb])
    ta = list(ba) + list(ca) + fa == list(range(len(sa))) and bool(fa) and bool(ca)
    tb = list(bb) + fb + list(cb) == list(range(len(sb))) and bool(fb) and bool(cb)
    a2 = _reshape(_permute(a, list(ba) + (list(ca) + fa if ta else fa + list(ca))), bsa + ((k, m) if ta else (m, k)))
    b2 = _reshape(_permute(b, list(bb) + (fb + list(cb) if tb else list(cb) + fb)), bsb + ((n, k) if tb else (k, n)))
    y = _matmul2(a2, b2, ta, tb)
    batch_shape = tuple(_np.broadcast_shapes(bsa, bsb))
    return _reshape(y, batch_shape + tuple(sa[i] for i in fa) + tuple(sb[j] for j in fb))


def tensordot(a, b, axes=2):
    """numpy's `tensordot`: `axes` an int N (a's last N axes with b's first N) or a pair of axis
    sequences (or ints) contracted pairwise."""
    ra, rb = len(_shape(a)), len(_shape(b))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ShapeError(f"tensordot: axes must be an int or a pair of axis sequences, got {axes!r}")
        ca, cb = (_ints(v, "tensordot", "axes") for v in axes)
        if len(ca) != len(cb):
            raise ShapeError(f"tensordot: shape-mismatch for sum: {len(ca)} axes of a paired with {len(cb)} of b")
    else:
        n = _int(axes, "tensordot", "axes")
        if not 0 <= n <= builtins.min(ra, rb):
            raise ShapeError(f"tensordot: axes={n} does not fit operands of ranks {ra} and {rb}")
        ca, cb = tuple(range(ra - n, ra)), tuple(range(n))
    ca = tuple(_axis(i, ra, "tensordot") for i in ca)
    cb = tuple(_axis(i, rb, "tensordot") for i in cb)
    if len(set(ca)) != len(ca) or len(set(cb)) != len(cb):
        raise ShapeError(f"tensordot: repeated axis in {axes!r}")
    return _contract(a, b, ca, cb)


def matmul(x1, x2):
    """numpy's `matmul` (`@`): a 1-D operand is a row (left) or column (right) whose axis is removed
    from the result; stacks of matrices broadcast over their leading axes."""
    s1, s2 = _shape(x1), _shape(x2)
    for i, s in enumerate((s1, s2)):
        if not s:
            raise ShapeError(f"op 'matmul': input operand {i} does not have enough dimensions (shape {s}); "
                             "use multiply for scalars")
    a = _reshape(x1, (1,) + s1) if len(s1) == 1 else x1
    b = _reshape(x2, s2 + (1,)) if len(s2) == 1 else x2
    y = bind("matmul", a, b)
    shape = _shape(y)
    if len(s1) == 1 or len(s2) == 1:
        y = _reshape(y, shape[:-2] + (() if len(s1) == 1 else shape[-2:-1]) + (() if len(s2) == 1 else shape[-1:]))
    return y


def dot(a, b):
    """numpy's `dot`: products of scalars; a's last axis against b's only (1-D b) or second-to-last axis."""
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        return bind("mul", a, b)
    return _contract(a, b, (len(sa) - 1,), (builtins.max(len(sb) - 2, 0),))


def inner(a, b):
    """numpy's `inner`: products of scalars, else the sum over both last axes."""
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        return bind("mul", a, b)
    return _contract(a, b, (len(sa) - 1,), (len(sb) - 1,))


def outer(a, b):
    """numpy's `outer`: both operands flattened, out[i, j] = a[i] * b[j]."""
    return bind("mul", _reshape(a, (_size(_shape(a)), 1)), _reshape(b, (1, _size(_shape(b)))))


def vdot(a, b):
    """numpy's `vdot`: the dot product of the flattened operands, the first conjugated."""
    na, nb = _size(_shape(a)), _size(_shape(b))
    if na != nb:
        raise ShapeError(f"vdot: the operands have {na} and {nb} elements (shapes {_shape(a)} and {_shape(b)})")
    if _np.dtype(a.dtype if isinstance(a, Tracer) else _np.asarray(a).dtype).kind == "c":
        a = bind("conj", a)
    return _reshape(_matmul2(_reshape(a, (1, na)), _reshape(b, (na, 1))), ())


def kron(a, b):
    """numpy's `kron`: the Kronecker product, blocks `a[i, j, ...] * b` (shapes aligned at the right)."""
    sa, sb = _shape(a), _shape(b)
    rank = builtins.max(len(sa), len(sb))
    sa, sb = (1,) * (rank - len(sa)) + sa, (1,) * (rank - len(sb)) + sb
    spread_a = _reshape(a, tuple(k for d in sa for k in (d, 1)))     # a's axes interleaved with b's
    spread_b = _reshape(b, tuple(k for d in sb for k in (1, d)))
    return _reshape(bind("mul", spread_a, spread_b), tuple(x * y for x, y in zip(sa, sb)))


def vecdot(x1, x2, /, *, axis: int = -1):
    """numpy 2's `vecdot`: `sum(conj(x1) * x2)` along `axis`, the other axes broadcast."""
    if (_dtype(x1) or "").startswith("complex"):
        x1 = bind("conj", x1)
    product = bind("mul", x1, x2)
    return bind("sum", product, axes=(_axis(axis, len(_shape(product)), "vecdot"),), keepdims=False)


# -- einsum --------------------------------------------------------------------------------------
# numpy's letters for the interleaved form's integer labels (0-25: A-Z, 26-51: a-z), in the order they sort
_SUBLIST_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _sublist_term(sublist, where: str) -> str:
    """One sublist of numpy's interleaved form (ints in [0, 52) and Ellipsis) as a subscripts term."""
    try:
        items = list(sublist)
    except TypeError:
        raise ShapeError(f"einsum: {where} must be a list of ints and Ellipsis, got {sublist!r}") from None
    term = ""
    for item in items:
        if item is Ellipsis:
            term += "..."
            continue
        if isinstance(item, (bool, _np.bool_)) or not isinstance(item, (int, _np.integer)):
            raise ShapeError(f"einsum: each subscript in {where} must be an int or Ellipsis, got {item!r}")
        if not 0 <= item < len(_SUBLIST_LETTERS):
            raise ShapeError(f"einsum: subscript {item} in {where} is not within the valid range [0, 52)")
        term += _SUBLIST_LETTERS[item]
    return term


def _interleaved(args):
    """numpy's interleaved form einsum(op0, sublist0, op1, sublist1, ..., [sublist_out]) as
    (subscripts string, operands)."""
    operands, sublists = args[0:len(args) - len(args) % 2:2], args[1::2]
    terms = [_sublist_term(sub, f"the sublist of operand {i}") for i, sub in enumerate(sublists)]
    spec = ",".join(terms)
    if len(args) % 2:
        spec += "->" + _sublist_term(args[-1], "the output sublist")
    return spec, list(operands)


def _parse_einsum(subscripts: str, shapes):
    """Labels per operand and for the output; '...' becomes integer labels (right-aligned, shared)."""
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ShapeError(f"einsum: '{subscripts}' names {len(terms)} operands, got {len(shapes)}")

    def letters(term, where):
        bad = [c for c in term.replace("...", "") if not c.isalpha()]
        if bad or term.count("...") > 1:
            raise ShapeError(f"einsum: invalid subscripts '{term}' in {where} of '{subscripts}'")
        return term

    n_ellipsis = 0
    labels = []
    for term, shape in zip(terms, shapes):
        letters(term, "an operand")
        n_named = len(term.replace("...", ""))
        extra = len(shape) - n_named
        if extra < 0 or (extra and "..." not in term):
            raise ShapeError(f"einsum: subscripts '{term}' do not match an operand of shape {shape}")
        n_ellipsis = builtins.max(n_ellipsis, extra)
        head, _, tail = term.partition("...")
        labels.append(list(head) + ([("...", i) for i in range(extra, 0, -1)] if "..." in term else [])
                      + list(tail))
    ellipsis = [("...", i) for i in range(n_ellipsis, 0, -1)]
    if arrow:
        letters(rhs, "the output")
        head, dots, tail = rhs.partition("...")
        if n_ellipsis and not dots:
            raise ShapeError(f"einsum: the operands of '{subscripts}' have '...' axes, the output has no '...'")
        out = list(head) + (ellipsis if dots else []) + list(tail)
        named = [c for c in out if isinstance(c, str)]
        if len(set(named)) != len(named):
            raise ShapeError(f"einsum: output subscript repeated in '{subscripts}'")
        unknown = [c for c in named if not any(c in ls for ls in labels)]
        if unknown:
            raise ShapeError(f"einsum: output subscript '{unknown[0]}' does not appear in the operands of '{subscripts}'")
    else:   # numpy's implicit output: the letters used once, in alphabetical order, after the '...' axes
        counts = {}
        for ls in labels:
            for c in ls:
                if isinstance(c, str):
                    counts[c] = counts.get(c, 0) + 1
        out = ellipsis + sorted(c for c, n in counts.items() if n == 1)
    return labels, out


def _drop_repeats(x, labels):
    """Take diagonals until every label appears once on this operand (einsum's 'ii')."""
    while True:
        seen = {}
        for i, c in enumerate(labels):
            if c in seen:
                p, q = seen[c], i
                if _shape(x)[p] != _shape(x)[q]:
                    raise ShapeError(f"einsum: label '{c}' repeats with sizes {_shape(x)[p]} and {_shape(x)[q]}")
                x = _diagonal(x, 0, p, q)
                labels = [l for j, l in enumerate(labels) if j not in (p, q)] + [c]
                break
            seen[c] = i
        else:
            return x, labels


def einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    """numpy's `einsum`: a subscripts string, explicit ('ij,jk->ik') or implicit output, or numpy's
    interleaved form einsum(a, [0, 1], b, [1, 2], [0, 2]) (int labels, Ellipsis for '...');
    '...' broadcasting, repeated labels on one operand (diagonals, traces), any number of operands.

    Lowered left to right: labels no later operand or the output needs are summed away as early as
    possible, and each pair of operands becomes one batched matmul over their shared labels.
    `optimize` (numpy's contraction-path choice: a bool, 'greedy', 'optimal' or an 'einsum_path'
    list) is accepted and not used, as `order` (memory layout); `out=` and `dtype=` are refused.
    """
    if out is not None:
        raise TraceError("einsum: out= is not supported (frame's arrays are values); use the result")
    if dtype is not None:
        raise TraceError("einsum: dtype= is not supported; cast the operands (astype) or the result")
    path = isinstance(optimize, (list, tuple)) and bool(optimize) and optimize[0] == "einsum_path"
    if not (isinstance(optimize, (bool, _np.bool_)) or optimize in ("greedy", "optimal") or path):
        raise ShapeError(f"einsum: optimize must be a bool, 'greedy', 'optimal' or an einsum_path list, got {optimize!r}")
    if not operands:
        raise ShapeError("einsum: no subscripts or operands given")
    if isinstance(operands[0], str):
        subscripts, operands = operands[0], list(operands[1:])
    else:
        subscripts, operands = _interleaved(operands)
    shapes = [_shape(x) for x in operands]
    labels, out = _parse_einsum(subscripts, shapes)
    sizes = {}
    for shape, ls in zip(shapes, labels):
        for d, c in zip(shape, ls):
            if sizes.get(c, 1) not in (1, d) and d != 1:
                raise ShapeError(f"einsum: label {c if isinstance(c, str) else '...'} has sizes {sizes[c]} and {d} "
                                 f"in '{subscripts}' (shapes {', '.join(map(str, shapes))})")
            sizes[c] = builtins.max(sizes.get(c, 1), d)
    terms = [_drop_repeats(x, ls) for x, ls in zip(operands, labels)]

    def reduce_unneeded(x, ls, needed):
        axes = [i for i, c in enumerate(ls) if c not in needed]
        return _sum(x, axes), [c for c in ls if c in needed]

    x, ls = terms[0]
    for i, (y, ly) in enumerate(terms[1:], start=1):
        later = set(out).union(*[set(t[1]) for t in terms[i + 1:]])
        x, ls = reduce_unneeded(x, ls, later | set(ly))
        y, ly = reduce_unneeded(y, ly, later | set(ls))
        shared = [c for c in ls if c in ly]
        contracted = [c for c in shared if c not in later]
        for c in contracted:   # a size-1 label against a longer one broadcasts before it is summed
            if _shape(x)[ls.index(c)] != _shape(y)[ly.index(c)]:
                x, y = (_broadcast_label(t, lt, c, sizes[c]) for t, lt in ((x, ls), (y, ly)))
        kept = [c for c in shared if c in later]
        fa, fb = [c for c in ls if c not in ly], [c for c in ly if c not in ls]
        x = _contract(x, y, tuple(ls.index(c) for c in contracted), tuple(ly.index(c) for c in contracted),
                      (tuple(ls.index(c) for c in kept), tuple(ly.index(c) for c in kept)))
        ls = kept + fa + fb
    x, ls = reduce_unneeded(x, ls, set(out))
    x = _permute(x, [ls.index(c) for c in out])
    want = tuple(sizes[c] for c in out)
    x = x if _shape(x) == want else bind("broadcast_to", x, shape=want)
    dtype = str(_dtype(operands[0]))
    # frame's sum accumulates bools and int32 in int64 (np.sum's rule); einsum keeps the operands' dtype.
    return x if str(_dtype(x)) == dtype else bind("convert", x, dtype=dtype)


def _broadcast_label(x, labels, label, size):
    shape = list(_shape(x))
    shape[labels.index(label)] = size
    return x if tuple(shape) == _shape(x) else bind("broadcast_to", x, shape=tuple(shape))


# -- numpy.linalg --------------------------------------------------------------------------------
def _matrices(x, op: str):
    shape = _shape(x)
    if len(shape) < 2:
        raise ShapeError(f"op '{op}': needs (stacks of) matrices, got shape {shape}")
    return shape


def _swap_last(x):
    r = len(_shape(x))
    return bind("transpose", x, perm=tuple(range(r - 2)) + (r - 1, r - 2))


def solve(a, b):
    """x with a @ x = b. numpy 2's rule: b is a vector (n,) only when 1-D, else a stack of (n, k)
    matrices; batch axes broadcast."""
    if len(_shape(b)) == 1:
        return _reshape(bind("solve", a, _reshape(b, _shape(b) + (1,))), _shape(a)[:-2] + _shape(b))
    return bind("solve", a, b)


def slogdet(a):
    """(sign, log|det a|) as numpy's SlogdetResult; the sign's derivative is zero."""
    return SlogdetResult(*bind("slogdet", a))


def cholesky(a, upper: bool = False):
    """The lower factor L with a = L L^T, read from a's lower triangle (numpy's rule); with
    `upper`, the upper factor U = L^T read from the upper triangle."""
    if not upper:
        return bind("cholesky", a)
    return _swap_last(bind("cholesky", _swap_last(a)))


def eigh(a, UPLO: str = "L"):
    """Eigenvalues (ascending) and eigenvectors of symmetric `a` read from triangle UPLO ('L'/'U'), as
    numpy's EighResult. Derivatives are JAX's: undefined (inf/nan) where eigenvalues repeat."""
    if UPLO not in ("L", "U"):
        raise ShapeError(f"op 'eigh': UPLO must be 'L' or 'U', got {UPLO!r}")
    return EighResult(*bind("eigh", a, UPLO=UPLO))


def eigvalsh(a, UPLO: str = "L"):
    """The eigenvalues (ascending) of symmetric `a`: `eigh(a, UPLO).eigenvalues`."""
    return eigh(a, UPLO).eigenvalues


EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])


def _general_square(a, op: str):
    a = _inexact(a)
    shape = _matrices(a, f"linalg.{op}")
    if shape[-1] != shape[-2]:
        raise LinAlgError(f"frame.numpy.linalg.{op}: the last 2 dimensions must be square, got {shape}")
    if (_dtype(a) or "").startswith("complex"):
        raise ShapeError(f"op '{op}': frame's eigen-decompositions take real matrices, got {_dtype(a)}")
    return a


def eig(a):
    """numpy's EigResult of (stacks of) real square `a`: eigenvalues and unit right eigenvectors in LAPACK's
    order, always complex (as jax.numpy: numpy's real result when every eigenvalue is real would make the
    dtype depend on the values). The eigenvalues are differentiable (they are `eigvals(a)`); the eigenvectors
    are refused by every derivative (their phase is arbitrary; JAX refuses them too)."""
    a = _general_square(a, "eig")
    return EigResult(bind("eigvals", a), bind("eig", a)[1])


def eigvals(a):
    """The eigenvalues of (stacks of) real square `a`, complex, in LAPACK's order (numpy's, always complex as
    jax.numpy's). Derivatives are JAX's, diag(V^-1 da V), to any order; undefined (inf/nan) where eigenvalues
    repeat."""
    return bind("eigvals", _general_square(a, "eigvals"))


def matrix_power(a, n):
    """numpy.linalg's `matrix_power`: `a` (a square matrix or a stack) to the integer power `n`, by numpy's
    sequence of squarings and products (n < 0: of the inverse; n = 0: the identity)."""
    n = _int(n, "matrix_power", "the exponent")
    shape = _matrices(a, "matrix_power")
    if shape[-1] != shape[-2]:
        raise LinAlgError(f"frame.numpy.linalg.matrix_power: the last 2 dimensions must be square, got {shape}")
    if n == 0:
        return _broadcast_to(_np.eye(shape[-1], dtype=_dtype(a)), shape)   # not a * 0 + eye: a may hold inf
    if n < 0:
        a, n = bind("inv", a), -n
    if n == 1:
        return a
    if n <= 3:
        return _matmul2(a, a) if n == 2 else _matmul2(_matmul2(a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else _matmul2(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _matmul2(result, z)
    return result


def multi_dot(arrays, *, out=None):
    """numpy.linalg's `multi_dot`: the product of the matrices in the cheapest order (numpy's choice, so
    its rounding); the first and last may be 1-d (a row and a column vector)."""
    if out is not None:
        raise TraceError("frame.numpy.linalg.multi_dot: out= is not supported (frame's functions return new arrays)")
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ShapeError("frame.numpy.linalg.multi_dot: needs at least two arrays")
    if len(arrays) == 2:
        return dot(arrays[0], arrays[1])
    first, last = _shape(arrays[0]), _shape(arrays[-1])
    if len(first) == 1:
        arrays[0] = _reshape(arrays[0], (1, first[0]))
    if len(last) == 1:
        arrays[-1] = _reshape(arrays[-1], (last[0], 1))
    for i, x in enumerate(arrays):
        if len(_shape(x)) != 2:
            raise ShapeError(f"frame.numpy.linalg.multi_dot: array {i} has shape {_shape(x)}; only the first and "
                             "last may be 1-d, the others must be 2-d")
    dims = [_shape(x)[0] for x in arrays] + [_shape(arrays[-1])[1]]
    result = _chain(arrays, _chain_order(dims), 0, len(arrays) - 1)
    shape = _shape(result)
    if len(first) == 1 and len(last) == 1:
        return _reshape(result, ())
    if len(first) == 1 or len(last) == 1:
        return _reshape(result, (shape[1],) if len(first) == 1 else (shape[0],))
    return result


def _chain_order(p):
    """numpy's matrix-chain order (its `_multi_dot_matrix_chain_order`; three matrices by its direct cost
    comparison, which picks the same): split[i][j] is where the product of i..j splits."""
    n = len(p) - 1
    if n == 3:
        cost1 = p[0] * p[1] * p[2] + p[0] * p[2] * p[3]     # (AB)C
        cost2 = p[1] * p[2] * p[3] + p[0] * p[1] * p[3]     # A(BC)
        return {(0, 2): 1 if cost1 < cost2 else 0, (0, 1): 0, (1, 2): 1}
    m = [[0] * n for _ in range(n)]
    split = {}
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = math.inf
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < m[i][j]:
                    m[i][j], split[(i, j)] = q, k
    return split


def _chain(arrays, split, i: int, j: int):
    if i == j:
        return arrays[i]
    k = split[(i, j)]
    return _matmul2(_chain(arrays, split, i, k), _chain(arrays, split, k + 1, j))


def _last_two(x, op: str):
    if len(_shape(x)) < 2:
        raise ShapeError(f"frame.numpy.linalg.{op}: needs an array of rank >= 2, got shape {_shape(x)}")


def _linalg_matrix_transpose(x, /):
    """numpy.linalg's `matrix_transpose`: the last two axes swapped."""
    _last_two(x, "matrix_transpose")
    rank = len(_shape(x))
    return _permute(x, tuple(range(rank - 2)) + (rank - 1, rank - 2))


def _linalg_trace(x, /, *, offset: int = 0, dtype=None):
    """numpy.linalg's `trace`: the sums of the diagonals over the last two axes."""
    _last_two(x, "trace")
    if dtype is not None:
        raise TraceError("frame.numpy.linalg.trace: dtype= is not supported")
    return trace(x, offset, -2, -1)


def _linalg_diagonal(x, /, *, offset: int = 0):
    """numpy.linalg's `diagonal`: the diagonals over the last two axes."""
    _last_two(x, "diagonal")
    return _diagonal(x, offset, -2, -1)


def _linalg_outer(x1, x2, /):
    """numpy.linalg's `outer`: of two 1-d arrays only."""
    if len(_shape(x1)) != 1 or len(_shape(x2)) != 1:
        raise ShapeError(f"frame.numpy.linalg.outer: needs two 1-d arrays, got shapes {_shape(x1)} and {_shape(x2)}")
    return outer(x1, x2)


def _linalg_cross(x1, x2, /, *, axis: int = -1):
    """numpy.linalg's `cross`: of 3-vectors only, along `axis`."""
    for x in (x1, x2):
        if _shape(x) and _shape(x)[_axis(axis, len(_shape(x)), "cross")] != 3:
            raise ShapeError(f"frame.numpy.linalg.cross: both operands need 3 elements along axis {axis}, got shapes "
                             f"{_shape(x1)} and {_shape(x2)}")
    return cross(x1, x2, axis=axis)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False):
    """numpy's `svd`: SVDResult(U, S, Vh) with S descending, or S alone when not compute_uv.

    Derivatives are JAX's: undefined (inf/nan) at repeated or (non-square a) zero singular values;
    with full_matrices of a non-square matrix there is none (GradientError, as JAX raises): use
    full_matrices=False, or compute_uv=False for S alone.
    `hermitian=True` is refused (frame computes the general decomposition only).
    """
    if hermitian:
        raise TraceError("fnp.linalg.svd: hermitian=True is not supported; use eigh for symmetric matrices")
    _matrices(a, "svd")
    if not compute_uv:
        return bind("svd", a, full_matrices=False)[1]
    return SVDResult(*bind("svd", a, full_matrices=bool(full_matrices)))


def qr(a, mode: str = "reduced"):
    """numpy's QR by mode: 'reduced' QRResult(Q, R) with Q (m, k) orthonormal columns and R (k, n)
    upper triangular, k = min(m, n); 'complete' Q (m, m) and R (m, n); 'r' R (k, n) alone.

    'raw' (LAPACK's Householder reflectors and tau) is refused by name, as are numpy's deprecated
    'full' and 'economic'. Derivatives are JAX's in every mode, wide matrices (m < n) and complete
    tall ones included; undefined (inf/nan) where R's diagonal has a zero (a is rank deficient)."""
    if mode == "raw":
        raise TraceError("fnp.linalg.qr: mode='raw' (LAPACK's Householder reflectors and tau) is not supported; "
                         "use 'reduced', 'complete' or 'r'")
    if mode in ("full", "economic"):
        raise TraceError(f"fnp.linalg.qr: mode={mode!r} is deprecated in numpy and not supported; use 'reduced'")
    if mode not in ("reduced", "complete", "r"):
        raise ShapeError(f"fnp.linalg.qr: unrecognized mode {mode!r} (numpy's modes: 'reduced', 'complete', 'r', "
                         "'raw')")
    _matrices(a, "qr")
    if mode == "r":
        return bind("qr", a)[1]
    return QRResult(*bind("qr", a, **({"full_matrices": True} if mode == "complete" else {})))


def _singular_values(a):
    return bind("svd", a, full_matrices=False)[1]


def _largest(s):
    """s[..., :1]: the largest singular value (they are descending), kept as an axis."""
    k = len(_shape(s))
    return bind("slice", s, starts=(0,) * k, stops=_shape(s)[:-1] + (1,), steps=(1,) * k)


def _smallest(s):
    k, shape = len(_shape(s)), _shape(s)
    return bind("slice", s, starts=(0,) * (k - 1) + (shape[-1] - 1,), stops=shape, steps=(1,) * k)


def _count_above(s, tol):
    """How many singular values (descending along the last axis) exceed tol, as int64."""
    return bind("sum", prim.greater(s, tol), axes=(len(_shape(s)) - 1,), keepdims=False)


def _default_rtol(shape, dtype) -> float:
    return float(builtins.max(shape[-2:]) * _np.finfo(dtype).eps)


def pinv(a, rcond=None, hermitian: bool = False, *, rtol=None):
    """numpy.linalg's `pinv`: the Moore-Penrose pseudo-inverse from the SVD, singular values at or below
    `rcond` (default 1e-15, numpy's; `rtol=` as numpy 2 takes it) times the largest dropped. Derivatives
    are the SVD's: undefined where singular values repeat."""
    if hermitian:
        raise TraceError("fnp.linalg.pinv: hermitian=True is not supported")
    if rcond is not None and rtol is not None:
        raise ShapeError("fnp.linalg.pinv: rtol and rcond can't be both set")
    shape = _matrices(a, "pinv")
    cutoff = rcond if rcond is not None else rtol if rtol is not None else 1e-15
    if 0 in shape[-2:]:
        return _swap_last(bind("mul", a, 0))
    u, s, vt = bind("svd", a, full_matrices=False)   # real matrices: the svd op refuses complex ones by name
    large = prim.greater(s, bind("mul", _largest(s), cutoff))
    inverse = bind("where", large, bind("div", 1.0, bind("where", large, s, 1.0)), 0.0)
    return _matmul2(_swap_last(vt), bind("mul", bind("reshape", inverse, shape=_shape(inverse) + (1,)), _swap_last(u)))


def svdvals(x, /):
    """numpy 2's `linalg.svdvals`: the singular values, descending."""
    _matrices(x, "svdvals")
    return _singular_values(x)


def cond(x, p=None):
    """numpy.linalg's `cond` for p = None or 2 (largest / smallest singular value) and -2 (the inverse);
    other orders `norm(x, p) * norm(inv(x), p)`."""
    _matrices(x, "cond")
    if p in (None, 2, -2):
        s = _singular_values(x)
        ratio = bind("div", _largest(s), _smallest(s)) if p != -2 else bind("div", _smallest(s), _largest(s))
        return bind("reshape", ratio, shape=_shape(ratio)[:-1])
    return bind("mul", norm(x, p, axis=(-2, -1)), norm(bind("inv", x), p, axis=(-2, -1)))


def matrix_rank(A, tol=None, hermitian: bool = False, *, rtol=None):
    """numpy's `matrix_rank`: the number of singular values above `tol`, or above `rtol` times the
    largest (rtol defaulting to max(m, n) * eps), as int64."""
    if hermitian:
        raise TraceError("fnp.linalg.matrix_rank: hermitian=True is not supported")
    shape = _shape(A)
    if len(shape) < 2:   # numpy: a vector's rank is 1 unless it is all zeros
        nonzero = bind("sum", prim.not_equal(A, 0), axes=tuple(range(len(shape))), keepdims=False)
        return prim.minimum(nonzero, _np.int64(1))
    s = _singular_values(A)
    if tol is None:
        r = _default_rtol(shape, _dtype(A)) if rtol is None else float(rtol)
        tol = bind("mul", _largest(s), r)
    elif rtol is not None:
        raise ShapeError("op 'matrix_rank': give tol or rtol, not both")
    return _count_above(s, tol)


def lstsq(a, b, rcond=None):
    """numpy's `lstsq`: (x, residuals, rank, s) for a (m, n) and b (m,) or (m, k).

    `rcond=None` is numpy's default max(m, n) * eps. The residuals (sums of squares of b - a x per
    column, shape (k,) or (1,)) are given whenever m > n; numpy gives an empty array instead when
    a's rank is below n, which is known only from the values. Only the solution x is differentiated
    as least squares: its derivative is that of the full-rank solution (also at lower rank); the
    residuals' and s's derivatives follow from x's and svd's.
    """
    sa, sb = _shape(a), _shape(b)
    if len(sa) != 2 or len(sb) not in (1, 2):
        raise ShapeError(f"op 'lstsq': needs a (m, n) and b (m,) or (m, k), got shapes {sa} and {sb}")
    m, n = sa
    rcond = _default_rtol(sa, _dtype(a)) if rcond is None else float(rcond)
    b2 = _reshape(b, (sb[0], 1)) if len(sb) == 1 else b
    x = bind("lstsq", a, b2, rcond=rcond)
    s = _singular_values(a)
    rank = bind("convert", _count_above(s, bind("mul", _largest(s), rcond)), dtype="int32")   # numpy's int32
    r = bind("sub", b2, bind("matmul", a, x))
    residuals = _sum(bind("mul", r, r), (0,))
    if m <= n:
        residuals = bind("slice", residuals, starts=(0,), stops=(0,), steps=(1,))
    return (_reshape(x, (n,)) if len(sb) == 1 else x), residuals, rank, s


# -- norm ----------------------------------------------------------------------------------------
def _abs(x):
    return bind("abs", x)


def _squares(x):
    """|x|^2 elementwise: x * x, or real(conj(x) x) for complex x (numpy's norm), so the norm is real."""
    if _np.dtype(_dtype(x)).kind == "c":
        return bind("real", bind("mul", bind("conj", x), x))
    return bind("mul", x, x)


def _vector_norm(x, ord, axis: int, keepdims: bool):
    axes = (axis,)
    if ord is None or ord == 2:
        return bind("sqrt", _sum(_squares(x), axes, keepdims))
    if ord == math.inf:
        return bind("max", _abs(x), axes=axes, keepdims=keepdims)
    if ord == -math.inf:
        return bind("min", _abs(x), axes=axes, keepdims=keepdims)
    if ord == 0:
        return bind("convert", _sum(prim.not_equal(x, 0), axes, keepdims), dtype=str(_dtype(x)))
    if ord == 1:
        return _sum(_abs(x), axes, keepdims)
    if isinstance(ord, str):
        raise ShapeError(f"fnp.linalg.norm: invalid norm order {ord!r} for vectors")
    p = float(ord)
    return bind("pow", _sum(bind("pow", _abs(x), exponent=p), axes, keepdims), exponent=1.0 / p)


def _matrix_norm(x, ord, axes, keepdims: bool):
    row, col = axes
    rank = len(_shape(x))
    if ord in (None, "fro"):
        return bind("sqrt", _sum(_squares(x), axes, keepdims))
    if ord in (2, -2, "nuc"):
        # The singular values of the matrices in the two axes (moved last).
        rest = [i for i in range(rank) if i not in axes]
        s = _singular_values(_permute(x, rest + [row, col]))
        last = len(_shape(s)) - 1
        # s descends: ord 2 is its first element, -2 its last.
        y = _sum(s, (last,)) if ord == "nuc" else _reshape(_largest(s) if ord == 2 else _smallest(s), _shape(s)[:-1])
        if keepdims:
            shape = list(_shape(x))
            shape[row] = shape[col] = 1
            y = _reshape(y, shape)
        return y
    if ord in (1, -1, math.inf, -math.inf):
        # 1: the largest column sum of |x| (summed over rows); inf: the largest row sum.
        summed, other = (row, col) if ord in (1, -1) else (col, row)
        sums = _sum(_abs(x), (summed,), True)
        y = bind("max" if ord > 0 else "min", sums, axes=(other,), keepdims=True)
        return y if keepdims else _reshape(y, [d for i, d in enumerate(_shape(x)) if i not in axes])
    raise ShapeError(f"fnp.linalg.norm: invalid norm order {ord!r} for matrices")


def norm(x, ord=None, axis=None, keepdims: bool = False):
    """numpy's `norm`. Vectors (an int axis, or 1-D x): ord None/2 (Euclidean), 1, inf, -inf, 0 (the
    count of non-zeros) and any other number p (sum |x|^p)^(1/p). Matrices (a pair of axes, or 2-D x):
    None/'fro', 'nuc', 1, -1, 2, -2 (the extreme singular values, via svd), inf, -inf. With ord and
    axis None, x is flattened (the Euclidean norm of all elements).

    Derivatives are JAX's: the Euclidean and Frobenius norms have nan gradients at zero (as
    jax.grad(jnp.linalg.norm) does), the max/min norms share the derivative among ties.
    """
    shape = _shape(x)
    if axis is None:
        if ord is None:
            flat = _reshape(x, (_size(shape),))
            y = _vector_norm(flat, None, 0, False)
            return _reshape(y, (1,) * len(shape)) if keepdims else y
        if len(shape) not in (1, 2):
            raise ShapeError(f"fnp.linalg.norm: an order needs 1-D or 2-D x or an axis, got shape {shape}")
        axis = tuple(range(len(shape)))
    axes = _ints(axis, "norm", "axis")
    normalized = tuple(_axis(a, len(shape), "norm") for a in axes)
    if len(normalized) == 1:
        return _vector_norm(x, ord, normalized[0], bool(keepdims))
    if len(normalized) == 2 and normalized[0] != normalized[1]:
        return _matrix_norm(x, ord, normalized, bool(keepdims))
    raise ShapeError(f"fnp.linalg.norm: axis must be one axis or two distinct ones, got {axis!r}")


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    """numpy 2's `linalg.vector_norm`: the vector norm of order `ord` (2, 1, inf, -inf, 0: the count of
    non-zeros, or any number p: (sum |x|^p)^(1/p)) over `axis`: all of x (None), one axis, or a tuple of
    axes taken together as one vector. Bool and integer x in float64, as numpy."""
    if isinstance(ord, str):
        raise ShapeError(f"op 'vector_norm': invalid norm order {ord!r} for vectors")
    x = _inexact(x)
    shape = _shape(x)
    axes = tuple(range(len(shape))) if axis is None else tuple(_axis(a, len(shape), "vector_norm")
                                                                for a in _ints(axis, "vector_norm", "axis"))
    if len(set(axes)) != len(axes):
        raise ShapeError(f"op 'vector_norm': repeated axis in {axis!r}")
    rest = [i for i in range(len(shape)) if i not in axes]
    # the axes moved last and flattened into one (a rank-0 x as one element)
    flat = _reshape(_permute(x, rest + list(axes)), [shape[i] for i in rest] + [_size([shape[i] for i in axes])])
    y = _vector_norm(flat, ord, len(rest), False)
    return _reshape(y, [1 if i in axes else d for i, d in enumerate(shape)]) if keepdims else y


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    """numpy 2's `linalg.matrix_norm`: `norm(x, ord, axis=(-2, -1))` of each matrix of x (rank >= 2):
    'fro', 'nuc', 1, -1, 2, -2, inf, -inf. Bool and integer x in float64, as numpy."""
    _matrices(x, "matrix_norm")
    return _matrix_norm(_inexact(x), ord, (len(_shape(x)) - 2, len(_shape(x)) - 1), bool(keepdims))


def _linalg_matmul(x1, x2, /):
    """numpy 2's `linalg.matmul`: `matmul` (`@`)."""
    return matmul(x1, x2)


def _linalg_tensordot(x1, x2, /, *, axes=2):
    """numpy 2's `linalg.tensordot`: `tensordot` with `axes` a keyword."""
    return tensordot(x1, x2, axes)


def tensorinv(a, ind: int = 2):
    """numpy's `tensorinv`: the inverse of `a` read as a linear map from its dimensions after the first
    `ind` to those, of shape a.shape[ind:] + a.shape[:ind]; both groups must hold as many elements."""
    ind = _int(ind, "tensorinv", "ind")
    if ind <= 0:
        raise ShapeError(f"op 'tensorinv': ind must be a positive integer, got {ind}")
    shape = _shape(a)
    rows, cols = _size(shape[:ind]), _size(shape[ind:])
    if rows != cols:
        raise LinAlgError(f"op 'tensorinv': the first {ind} dimensions of a {shape} hold {rows} elements, the "
                          f"others {cols}; they must be equal")
    return _reshape(bind("inv", _reshape(a, (rows, cols))), shape[ind:] + shape[:ind])


def tensorsolve(a, b, axes=None):
    """numpy's `tensorsolve`: x with `tensordot(a, x, x.ndim) == b`, x of shape a.shape[b.ndim:] (after
    moving the `axes` of a to the end, in order); its size squared must be a's."""
    if axes is not None:
        rank = len(_shape(a))
        moved = [_axis(k, rank, "tensorsolve") for k in _ints(axes, "tensorsolve", "axes")]
        a = _permute(a, [i for i in range(rank) if i not in moved] + moved)
    shape, nb = _shape(a), len(_shape(b))
    solution_shape = shape[-(len(shape) - nb):]   # numpy's slice: all of shape when the ranks are equal
    n = _size(solution_shape)
    if _size(shape) != n * n:
        raise LinAlgError(f"op 'tensorsolve': a of shape {shape} is no square map onto b's {_shape(b)}: "
                          f"prod(a.shape[b.ndim:]) must equal prod(a.shape[:b.ndim])")
    return _reshape(solve(_reshape(a, (n, n)), _reshape(b, (_size(_shape(b)),))), solution_shape)


# -- least squares on numpy's main namespace ---------------------------------------------------
def polyfit(x, y, deg, rcond=None, full: bool = False, w=None, cov=False):
    """numpy's `polyfit`: the least-squares polynomial of degree `deg` through the points (x, y) (y 1-d, or 2-d for
    one fit per column), numpy's way: the Vandermonde matrix (weighted by `w`) with its columns scaled to unit
    norm, solved by `linalg.lstsq` with numpy's default `rcond`, the coefficients scaled back. `full` adds
    (residuals, rank, singular values, rcond), `cov` the coefficients' covariance (`"unscaled"`: without the
    residual factor). `deg` must be a concrete int; differentiable in x, y and w.

    Differences: numpy warns (RankWarning) when the matrix is rank-deficient and `full` is false, which is known
    only from the values: frame warns eagerly, not when traced. The residuals are given whenever there are more
    points than coefficients (numpy gives none at a deficient rank, see `linalg.lstsq`)."""
    if isinstance(deg, Tracer):
        raise TraceError("op 'polyfit': deg must be a concrete int (the number of coefficients), got a traced value")
    order = int(deg) + 1
    x, y = _inexact(x), _inexact(y)
    if deg < 0:
        raise ShapeError(f"op 'polyfit': expected deg >= 0, got {deg}")
    if _ndim(x) != 1 or _shape(x)[0] == 0:
        raise ShapeError(f"op 'polyfit': x must be a non-empty 1-d array, got shape {_shape(x)}")
    if _ndim(y) not in (1, 2) or _shape(y)[0] != _shape(x)[0]:
        raise ShapeError(f"op 'polyfit': y must be 1-d or 2-d with x's length, got shapes {_shape(x)} and {_shape(y)}")
    if rcond is None:
        rcond = _shape(x)[0] * _np.finfo(_dtype(x)).eps
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = _inexact(w)
        if _ndim(w) != 1 or _shape(w)[0] != _shape(y)[0]:
            raise ShapeError(f"op 'polyfit': w must be 1-d with y's length, got shapes {_shape(w)} and {_shape(y)}")
        column = reshape(w, (-1, 1))
        lhs = astype(lhs * column, _dtype(lhs))   # numpy scales in place: lhs and rhs keep their dtypes
        rhs = astype(rhs * (column if _ndim(rhs) == 2 else w), _dtype(rhs))
    scale = bind("sqrt", bind("sum", lhs * lhs, axes=(0,), keepdims=False))
    lhs = lhs / scale
    dtype = _np.result_type(_dtype(lhs), _dtype(rhs)).name
    c, resids, rank, s = linalg.lstsq(astype(lhs, dtype), astype(rhs, dtype), rcond)
    c = c / (scale if _ndim(c) == 1 else reshape(scale, (-1, 1)))
    if not full and not isinstance(rank, Tracer) and rank != order:
        warnings.warn("Polyfit may be poorly conditioned", _np.exceptions.RankWarning, stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    v = linalg.inv(dot(bind("transpose", lhs, perm=(1, 0)), lhs)) / outer(scale, scale)
    if cov == "unscaled":
        fac = 1
    elif _shape(x)[0] <= order:
        raise ShapeError(f"op 'polyfit': the number of data points ({_shape(x)[0]}) must exceed order ({order}) to "
                         "scale the covariance matrix")
    else:
        fac = resids / (_shape(x)[0] - order)
    return c, (v * fac if _ndim(y) == 1 else reshape(v, _shape(v) + (1,)) * fac)


linalg = SimpleNamespace(norm=norm, solve=solve, slogdet=slogdet, cholesky=cholesky, eigh=eigh, svd=svd, qr=qr,
                         lstsq=lstsq, matrix_rank=matrix_rank, eigvalsh=eigvalsh, eig=eig, eigvals=eigvals,
                         matrix_power=matrix_power,
                         multi_dot=multi_dot, matrix_transpose=_linalg_matrix_transpose, vecdot=vecdot,
                         cross=_linalg_cross, outer=_linalg_outer, trace=_linalg_trace, diagonal=_linalg_diagonal,
                         pinv=pinv, svdvals=svdvals, cond=cond, vector_norm=vector_norm, matrix_norm=matrix_norm,
                         matmul=_linalg_matmul, tensordot=_linalg_tensordot, tensorinv=tensorinv,
                         tensorsolve=tensorsolve,
                         LinAlgError=LinAlgError)   # inv, det: generated from their ops
