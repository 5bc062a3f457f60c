"""`from_jax` rules for linear algebra: JAX's `lax.linalg` primitives that are frame ops (dot_general,
the general contraction, is jax_import's own rule).

`TRANSLATIONS`: primitive -> rule(importer, eqn, *operands) -> Value or [Value] (see jax_import);
`PARAMETERS`: primitive -> the audit of each of its parameters (jax_audit's vocabulary). Both are
merged into jax_import's tables.

- `cholesky`, `eigh`: JAX's derivative rules for these primitives hold for symmetric tangents only
  (frame's, like numpy, read one triangle), so they import when their operand is symmetrised in the
  jaxpr ((x + x^T) / 2, which jnp.linalg.cholesky/eigh and `symmetrize_input=True` do); then values and
  derivatives agree. Otherwise they are refused.
- `svd`, `qr` (reduced or complete, unpivoted) and `triangular_solve` (either side) import as frame's ops.
- `eig` imports as frame's `eig` (right eigenvectors asked) or `eigvals` (not): jnp.linalg.eig/eigvals;
  left eigenvectors and `enable_eigvec_derivs` are refused.
- `lu` is refused by name: frame has no LU op, so jnp.linalg.solve/inv/det (which go through lu, and
  custom_linear_solve or a custom derivative) do not import; call frame.numpy.linalg's instead.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import FrameError
from .jax_audit import _is_none, checked, implemented, irrelevant


def _outputs(imp, op: str, inputs, **attrs):
    return imp.graph.add_node(op, list(inputs), attrs).outputs


def _swap_perm(rank: int) -> tuple[int, ...]:
    return tuple(range(rank - 2)) + (rank - 1, rank - 2)


def _is_symmetrized(imp, v) -> bool:
    """Whether `v` is (x + x^T) / 2 in the graph being built (lax.linalg.symmetrize's pattern)."""
    node = v.node
    if node is None or node.op != "div":
        return False
    two = imp.known(node.inputs[1])
    total = node.inputs[0].node
    if two is None or not np.all(two == 2) or total is None or total.op != "add":
        return False
    p, q = total.inputs
    return any(t.node is not None and t.node.op == "transpose" and t.node.inputs[0] is x
               and t.node.attrs["perm"] == _swap_perm(v.type.rank) for x, t in ((p, q), (q, p)))


def _symmetric_operand(imp, eqn, x, name: str):
    if not _is_symmetrized(imp, x):
        raise FrameError(f"the operand of {name} is not symmetrised ((x + x^T) / 2) in the jaxpr: JAX's derivative "
                         f"of {name} then differs from frame's (which, like numpy, reads one triangle); use "
                         f"jnp.linalg.{name} or symmetrize_input=True")
    return x


def _mask(imp, x, lower: bool, k: int):
    n = x.type.shape[-1]
    m = np.tril(np.ones((n, n)), k) if lower else np.triu(np.ones((n, n)), k)
    return imp.node("mul", [x, imp.constant(m.astype(x.type.dtype))])


def _cholesky(imp, eqn, x):
    x = _symmetric_operand(imp, eqn, x, "cholesky")
    # LAPACK's potrf leaves the strictly upper triangle as the input's; JAX masks it off afterwards
    # and gives it no derivative.
    upper = imp.node("stop_gradient", [_mask(imp, x, False, 1)])
    return imp.node("add", [imp.node("cholesky", [x]), upper])


def _eigh(imp, eqn, x):
    x = _symmetric_operand(imp, eqn, x, "eigh")
    w, v = _outputs(imp, "eigh", [x], UPLO="L" if eqn.params["lower"] else "U")
    return [v, w]


def _svd(imp, eqn, x):
    compute_uv = eqn.params["compute_uv"]
    u, s, vt = _outputs(imp, "svd", [x], full_matrices=bool(eqn.params["full_matrices"]) and compute_uv)
    return [s, u, vt] if compute_uv else [s]


def _qr(imp, eqn, x):
    return list(_outputs(imp, "qr", [x], **({"full_matrices": True} if eqn.params["full_matrices"] else {})))


def _triangular_solve(imp, eqn, a, b):
    p = eqn.params
    # left: op(a) x = b; right: x op(a) = b, i.e. op(a)^T x^T = b^T: the same triangle, read transposed the
    # other way.
    transpose = p["transpose_a"] if p["left_side"] else not p["transpose_a"]
    flags = {k: True for k, on in (("lower", p["lower"]), ("transpose_a", transpose),
                                   ("unit_diagonal", p["unit_diagonal"])) if on}
    if p["left_side"]:
        return imp.node("triangular_solve", [a, b], **flags)
    swap = _swap_perm(b.type.rank)
    x_t = imp.node("triangular_solve", [a, imp.node("transpose", [b], perm=swap)], **flags)
    return imp.node("transpose", [x_t], perm=swap)


def _eig(imp, eqn, x):
    # right eigenvectors asked: frame's eig, whose derivatives are refused as JAX's are (without
    # enable_eigvec_derivs); eigenvalues alone: frame's eigvals, differentiable as JAX's
    if eqn.params["compute_right_eigenvectors"]:
        return list(_outputs(imp, "eig", [x]))
    return [imp.node("eigvals", [x])]


def _lu(imp, eqn, x):
    raise FrameError("frame has no LU factorisation op (jnp.linalg.solve, inv and det compute with lu, pivots and "
                     "custom_linear_solve); use frame.numpy.linalg.solve/inv/det, or jnp.linalg.cholesky with "
                     "jax.scipy.linalg.solve_triangular for symmetric positive-definite systems")


TRANSLATIONS: dict[str, Callable] = {"cholesky": _cholesky, "eigh": _eigh, "eig": _eig, "svd": _svd, "qr": _qr,
                                     "triangular_solve": _triangular_solve, "lu": _lu}

_REAL = "frame computes real matrices only; a complex operand is refused by the op"
_DEFAULT_ALGORITHM = checked("a specific LAPACK/XLA algorithm; frame runs numpy's (LAPACK's default driver)",
                             _is_none)
_ALL_VALUES = checked("a subset of eigen/singular values (subset_by_index); frame computes them all", _is_none)
PARAMETERS: dict[str, dict] = {
    "cholesky": {},
    "eigh": {"lower": implemented("frame's UPLO ('L' or 'U')"),
             "sort_eigenvalues": checked("unsorted eigenvalues; numpy (and frame) sort them ascending",
                                         lambda value, eqn: bool(value)),
             "subset_by_index": _ALL_VALUES, "algorithm": _DEFAULT_ALGORITHM},
    "svd": {"full_matrices": implemented("frame's full_matrices"),
            "compute_uv": implemented("without u and vt the rule keeps s only"),
            "subset_by_index": _ALL_VALUES, "algorithm": _DEFAULT_ALGORITHM},
    "qr": {"pivoting": checked("column pivoting; frame's qr has none", lambda value, eqn: not value),
           "full_matrices": implemented("frame's full_matrices: the complete (m, m) q (numpy's mode='complete')"),
           "use_magma": irrelevant("a GPU library choice; the values are the same")},
    "triangular_solve": {"left_side": implemented("op(a) x = b, else x op(a) = b"),
                         "lower": implemented("frame's lower: which triangle of a is read"),
                         "transpose_a": implemented("op(a) = a^T"),
                         "conjugate_a": irrelevant(f"conjugation of a real matrix is the identity ({_REAL})"),
                         "unit_diagonal": implemented("frame's unit_diagonal: the diagonal is taken as ones")},
    "lu": {},
    "eig": {"compute_left_eigenvectors": checked("left eigenvectors; frame's eig gives the right ones only",
                                                 lambda value, eqn: not value),
            "compute_right_eigenvectors": implemented("frame's eig (values and vectors), else its eigvals"),
            "enable_eigvec_derivs": checked("eigenvector derivatives, which frame refuses (their phase is arbitrary)",
                                            lambda value, eqn: not value),
            "implementation": _DEFAULT_ALGORITHM, "use_magma": irrelevant("a GPU library choice; the values are the "
                                                                          "same")},
}
