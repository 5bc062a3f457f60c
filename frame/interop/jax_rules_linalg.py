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
- `lu` imports as frame's `lu` op (one node, its three outputs); `lu_pivots_to_permutation` reuses the perm
  output of the `lu` whose pivots it reads (when permutation_size is its row count), else builds the
  permutation from the pivots with a static loop of swaps (where/equal/max), one per pivot.
- `custom_linear_solve` (jnp.linalg.solve, and inv through it) imports its `solve` jaxpr applied to the
  right-hand side. JAX differentiates it through `matvec` and treats the solve's constants as having no
  derivative: jnp.linalg.solve factors `lu(stop_gradient(a))` and its matvec is `a @ x`. The rule imports
  that pattern only, with the solve's constants taken from `lu(a)` instead (the same values), so frame's
  derivatives of the LU solve (lu's and triangular_solve's rules) are those of a^-1 b, as JAX's are, to
  any order; any other custom_linear_solve is refused by name. jnp.linalg.det/slogdet of 4x4 and larger
  go through a custom_jvp over lu and are refused as custom rules are; with inline_custom_derivatives=True
  their body (lu, and an integer `rem` for the sign's parity) imports.
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
    return list(_outputs(imp, "lu", [x]))


def _lu_pivots_to_permutation(imp, eqn, pivots):
    size = int(eqn.params["permutation_size"])
    node = pivots.node
    if node is not None and node.op == "lu" and pivots is node.outputs[1] and node.outputs[2].type.shape[-1] == size:
        return node.outputs[2]   # the lu op computed this very permutation
    # perm starts as 0..size-1; pivot i swaps perm[i] with perm[pivots[i]], in order (LAPACK's row swaps).
    # Each swap is where/equal over the last axis, so batched pivots need no per-matrix indexing.
    k = pivots.type.shape[-1]
    if k > size:
        raise FrameError(f"{k} pivots for a permutation of size {size}")
    ramp = imp.constant(np.arange(size, dtype=pivots.type.dtype))
    perm = imp.node("broadcast_to", [ramp], shape=(*pivots.type.shape[:-1], size))
    zero = imp.constant(np.zeros((), pivots.type.dtype))
    for i in range(k):
        p = imp.node("slice", [pivots], starts=(0,) * (pivots.type.rank - 1) + (i,),
                     stops=pivots.type.shape[:-1] + (i + 1,), steps=(1,) * pivots.type.rank)
        at_p = imp.node("equal", [ramp, p])
        perm_p = imp.node("max", [imp.node("where", [at_p, perm, zero])], axes=(pivots.type.rank - 1,), keepdims=True)
        perm_i = imp.node("slice", [perm], starts=(0,) * (perm.type.rank - 1) + (i,),
                          stops=perm.type.shape[:-1] + (i + 1,), steps=(1,) * perm.type.rank)
        at_i = imp.constant(np.arange(size) == i)
        perm = imp.node("where", [at_i, perm_p, imp.node("where", [at_p, perm_i, perm])])
    return perm


def _is_matrix_product(closed, matrix_shape) -> bool:
    """Whether a matvec jaxpr (one constant, the matrix, then x) is `matrix @ x`: one dot_general contracting the
    matrix's last axis with x's, batched over its leading axes, then layout only (transpose/reshape)."""
    jaxpr = getattr(closed, "jaxpr", closed)
    if len(jaxpr.invars) != 2:
        return False
    a, x = jaxpr.invars
    dots = [e for e in jaxpr.eqns if e.primitive.name == "dot_general"]
    if len(dots) != 1 or any(e.primitive.name not in ("dot_general", "transpose", "reshape", "squeeze", "copy")
                             for e in jaxpr.eqns):
        return False
    dot = dots[0]
    (lc, rc), (lb, rb) = dot.params["dimension_numbers"]
    rank = len(matrix_shape)
    batch = tuple(range(rank - 2))
    # a's rows contract with x's last axis (x holds the right-hand sides as rows), batched over a's leading axes
    return (list(dot.invars) == [a, x] and tuple(int(d) for d in lc) == (rank - 1,)
            and tuple(int(d) for d in rc) == (len(x.aval.shape) - 1,)
            and tuple(int(d) for d in lb) == batch and tuple(int(d) for d in rb) == batch)


def _custom_linear_solve(imp, eqn, *operands):
    lengths, jaxprs = eqn.params["const_lengths"], eqn.params["jaxprs"]
    counts = [int(lengths.matvec), int(lengths.vecmat), int(lengths.solve), int(lengths.transpose_solve)]
    starts = np.cumsum([0] + counts)
    matvec_consts = operands[starts[0]:starts[1]]
    solve_consts = operands[starts[2]:starts[3]]
    rhs = operands[starts[4]:]
    refuse = ("only jnp.linalg.solve's form imports (solve constants from lu(stop_gradient(a)), matvec a @ x): JAX "
              "differentiates custom_linear_solve through its matvec, not its solve, so frame differentiating the "
              "imported solve agrees with JAX only when the solve's constants can be taken from lu(a)")
    if len(matvec_consts) != 1 or not _is_matrix_product(jaxprs.matvec, matvec_consts[0].type.shape):
        raise FrameError(f"its matvec is not a @ x; {refuse}")
    (a,) = matvec_consts
    factored = None
    consts = []
    for c in solve_consts:
        lu = c.node
        if lu is None or lu.op != "lu":
            raise FrameError(f"a solve constant is not an lu output; {refuse}")
        stopped = lu.inputs[0].node
        if stopped is None or stopped.op != "stop_gradient" or stopped.inputs[0] is not a:
            raise FrameError(f"a solve constant is not lu(stop_gradient(a)) of the matvec's a; {refuse}")
        # lu(a): the same values as lu(stop_gradient(a)), and derivatives (JAX's rule differentiates a @ x)
        factored = factored or imp.graph.add_node("lu", [a], {})
        consts.append(factored.outputs[lu.outputs.index(c)])
    solve = jaxprs.solve
    jaxpr, closed_consts = (solve.jaxpr, solve.consts) if hasattr(solve, "consts") else (solve, ())
    if len(consts) + len(rhs) != len(jaxpr.invars):
        raise FrameError(f"{len(consts) + len(rhs)} operands for a solve jaxpr of {len(jaxpr.invars)} inputs")
    return imp.run(jaxpr, closed_consts, [*consts, *rhs], " inside custom_linear_solve's solve")


TRANSLATIONS: dict[str, Callable] = {"cholesky": _cholesky, "eigh": _eigh, "eig": _eig, "svd": _svd, "qr": _qr,
                                     "triangular_solve": _triangular_solve, "lu": _lu,
                                     "lu_pivots_to_permutation": _lu_pivots_to_permutation,
                                     "custom_linear_solve": _custom_linear_solve}

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
    "lu_pivots_to_permutation": {"permutation_size": implemented("the permutation's length (the lu's row count "
                                                                 "reuses its perm output)")},
    "custom_linear_solve": {
        "const_lengths": implemented("how the operands split into matvec, vecmat, solve and transpose_solve "
                                     "constants; the right-hand side follows"),
        "jaxprs": implemented("solve is imported on the right-hand side; matvec must be a @ x with the solve's "
                              "constants lu(stop_gradient(a)) (checked by the rule); vecmat and transpose_solve "
                              "serve JAX's transposition, which frame derives from the imported solve")},
    "eig": {"compute_left_eigenvectors": checked("left eigenvectors; frame's eig gives the right ones only",
                                                 lambda value, eqn: not value),
            "compute_right_eigenvectors": implemented("frame's eig (values and vectors), else its eigvals"),
            "enable_eigvec_derivs": checked("eigenvector derivatives, which frame refuses (their phase is arbitrary)",
                                            lambda value, eqn: not value),
            "implementation": _DEFAULT_ALGORITHM, "use_magma": irrelevant("a GPU library choice; the values are the "
                                                                          "same")},
}
