"""`frame.scipy.sparse.linalg`: the Krylov solvers `cg`, `bicgstab` and `gmres` as jax.scipy.sparse.linalg
offers them: `A` a square matrix or a function computing A @ v (a linear operator: a stencil, a matrix-free
PDE discretisation), `b` a vector or array of A's input shape, `x0`, scipy's `tol`/`atol` (stop when
||r|| <= max(tol ||b||, atol)), `maxiter` (10 size of b by default), a preconditioner `M` (matrix or function);
each returns `(x, None)` as JAX does (no convergence report inside a graph).

The iterations are frame.while_loop's, which reverse mode cannot go through; the derivatives are implicit,
as jax's `custom_linear_solve` gives them: the loop's solution x* (a constant) is returned as x* + S(b - A x*),
where S is zero in value and the solve in derivative (its VJP the adjoint solve: A itself for cg, symmetric;
A^T v, the derivative of v -> A v, for bicgstab and gmres). So dx = A^-1 (db - dA x*): gradients in `b` and in
whatever `A` depends on (its matrix, or the values an operator function closes over, differentiated through
one application of A), for one more solve backward and none forward. First order in reverse mode: the adjoint
solve is a loop too, and forward mode (`frame.jvp`) is refused by name, as for every frame.custom_vjp. Arrays
only (no pytrees of vectors).
"""
from __future__ import annotations

import numpy as _np

from ...errors import ShapeError
from ...frontend import numpy as fnp
from ...frontend.args import _dtype, _shape
from ...frontend.control import fori_loop, while_loop
from ...frontend.custom import custom_vjp
from ...frontend.pytree import tree_leaves
from ...frontend.tracer import ShapeDtype
from ...frontend.transforms import _closure_convert, stop_gradient, vjp

__all__ = ["cg", "bicgstab", "gmres"]


def _operator(A, b, fn: str, what: str = "A"):
    """A @ v as a function of v, checked on b's shape and dtype."""
    if callable(A):
        return A
    A = fnp.asarray(A)
    n = int(_np.prod(_shape(b), dtype=int))
    if len(_shape(A)) != 2 or _shape(A) != (n, n):
        raise ShapeError(f"frame.scipy.sparse.linalg.{fn}: {what} must be a square matrix of size {n} (b has shape "
                         f"{_shape(b)}) or a function, got shape {_shape(A)}")
    shape = _shape(b)
    return lambda v: fnp.reshape(fnp.matmul(A, fnp.reshape(v, (n,))), shape)


def _closed(f, b, fn: str):
    """`f` as a graph and the values it captures from enclosing traces: `(build, captured)` with `build(values)`
    the operator on `values` in place of the captured ones. The operator is traced once; it must map b's shape
    and dtype to the same."""
    converted, captured, res = _closure_convert(f, (ShapeDtype(_shape(b), _dtype(b)),), name="operator")
    out = res.graph.outputs
    if len(out) != 1 or out[0].type.shape != tuple(_shape(b)) or out[0].type.dtype != _dtype(b):
        got = ", ".join(str(v.type) for v in out) or "nothing"
        raise ShapeError(f"frame.scipy.sparse.linalg.{fn}: the operator must map b's shape and dtype "
                         f"({_dtype(b)}{list(_shape(b))}) to the same, got {got}")
    # the one output leaf (also when f returned it in a 1-tuple)
    return (lambda values: lambda v: tree_leaves(converted(v, *values))[0]), list(captured)


def _dot(x, y):
    return fnp.sum(x * y)


def _thresholds(b, tol, atol):
    return fnp.maximum(tol ** 2 * _dot(b, b), _np.asarray(atol, _dtype(b)) ** 2)


def _cg_loop(A, b, x0, tol, atol, maxiter, M):
    atol2 = _thresholds(b, tol, atol)
    r0 = b - A(x0)
    z0 = M(r0)
    gamma0 = _dot(r0, z0)

    def keep_going(state):
        _, r, gamma, _, k = state
        return (_dot(r, r) > atol2) & (k < maxiter)

    def step(state):
        x, r, gamma, p, k = state
        Ap = A(p)
        alpha = gamma / _dot(p, Ap)
        x, r = x + alpha * p, r - alpha * Ap
        z = M(r)
        gamma_new = _dot(r, z)
        return x, r, gamma_new, z + (gamma_new / gamma) * p, k + 1

    return while_loop(keep_going, step, (x0, r0, gamma0, z0, _np.int64(0)))[0]


def _bicgstab_loop(A, b, x0, tol, atol, maxiter, M):
    atol2 = _thresholds(b, tol, atol)
    r0 = b - A(x0)
    one = _np.ones((), _dtype(b))

    def keep_going(state):
        x, r, *_, k = state
        return (_dot(r, r) > atol2) & (k < maxiter) & (k >= 0)   # k < 0: breakdown

    def step(state):
        x, r, rhat, alpha, omega, rho, p, q, k = state
        rho_new = _dot(rhat, r)
        p = r + (rho_new / rho * alpha / omega) * (p - omega * q)
        phat = M(p)
        q = A(phat)
        alpha = rho_new / _dot(rhat, q)
        s = r - alpha * q
        done = _dot(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega = _dot(t, s) / _dot(t, t)
        x = fnp.where(done, x + alpha * phat, x + alpha * phat + omega * shat)
        r = fnp.where(done, s, s - omega * t)
        k = fnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = fnp.where(rho_new == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_new, p, q, k

    state = (x0, r0, r0, one, one, one, r0, r0, _np.int64(0))
    return while_loop(keep_going, step, state)[0]


def _gmres_loop(A, b, x0, tol, atol, maxiter, M, restart: int):
    """Restarted GMRES: `restart` Arnoldi steps on the preconditioned operator (modified Gram-Schmidt, applied
    twice), the small least-squares problem solved by lstsq, until the true residual meets the tolerance."""
    atol2 = _thresholds(b, tol, atol)
    shape, n = _shape(b), int(_np.prod(_shape(b), dtype=int))
    tiny = _np.finfo(_dtype(b)).tiny

    def keep_going(state):
        x, r, k = state
        return (_dot(r, r) > atol2) & (k < maxiter)

    def cycle(state):
        x, r, k = state
        z = fnp.reshape(M(r), (n,))
        beta = fnp.sqrt(_dot(z, z))
        basis = [z / fnp.maximum(beta, tiny)]
        zero = _np.zeros((), _dtype(b))
        columns = []
        for j in range(restart):
            w = fnp.reshape(M(A(fnp.reshape(basis[j], shape))), (n,))
            coefficients = [zero] * (j + 1)
            for _ in range(2):
                for i in range(j + 1):
                    c = _dot(basis[i], w)
                    coefficients[i] = coefficients[i] + c
                    w = w - c * basis[i]
            norm = fnp.sqrt(_dot(w, w))
            columns.append(fnp.stack(coefficients + [norm] + [zero] * (restart - 1 - j)))
            basis.append(w / fnp.maximum(norm, tiny))
        h = fnp.stack(columns, axis=1)   # the (restart + 1, restart) Hessenberg matrix
        rhs = fnp.concatenate([fnp.reshape(beta, (1,)), _np.zeros(restart, _dtype(b))])
        y = fnp.linalg.lstsq(h, rhs, rcond=None)[0]
        x = x + fnp.reshape(fnp.matmul(fnp.stack(basis[:restart], axis=1), y), shape)
        return x, b - A(x), k + 1

    return while_loop(keep_going, cycle, (x0, b - A(x0), _np.int64(0)))[0]


def _adjoint(A, b):
    """v -> A^T v, the derivative of the linear v -> A v (its VJP at any point)."""
    return lambda v: vjp(A, fnp.zeros_like(b))[1](v)[0]


def _isolve(name: str, loop, A, b, x0, tol, atol, maxiter, M, symmetric: bool, **options):
    b = fnp.asarray(b)
    if (_dtype(b) or "") not in ("float32", "float64"):
        raise ShapeError(f"frame.scipy.sparse.linalg.{name}: b must be a float32 or float64 array (frame's solvers "
                         f"are real), got {_dtype(b)}")
    if x0 is not None:
        x0 = fnp.astype(fnp.asarray(x0), _dtype(b))
        if _shape(x0) != _shape(b):
            raise ShapeError(f"frame.scipy.sparse.linalg.{name}: x0 must have b's shape {_shape(b)}, got "
                             f"{_shape(x0)}")
    size = int(_np.prod(_shape(b), dtype=int))
    maxiter = 10 * size if maxiter is None else int(maxiter)
    matvec = _operator(A, b, name)
    build_a, captured_a = _closed(matvec, b, name)
    if M is None:
        build_m, captured_m = (lambda values: lambda v: v), []
    else:
        build_m, captured_m = _closed(_operator(M, b, name, "M"), b, name)
    na = len(captured_a)

    fixed = [stop_gradient(v) for v in captured_a + captured_m]
    start = fnp.zeros_like(b) if x0 is None else stop_gradient(x0)
    x_star = stop_gradient(loop(build_a(fixed[:na]), stop_gradient(b), start, tol, atol, maxiter,
                                build_m(fixed[na:]), **options))

    def adjoint_solve(g, values):
        a, m = build_a(values[:na]), build_m(values[na:])
        if not symmetric:
            a, m = _adjoint(a, b), m if M is None else _adjoint(m, b)
        return loop(a, g, fnp.zeros_like(g), tol, atol, maxiter, m, **options)

    # Zero in value, the solve A^-1 in derivative (its VJP the adjoint solve): x* + implicit(b - A x*) is x* with
    # the implicit function's derivative, for one solve forward. The operator's captured values come in as
    # arguments (held fixed here: their derivative flows through matvec below).
    @custom_vjp
    def implicit(r, *values):
        return fnp.zeros_like(r)

    implicit.defvjp(lambda r, *values: (fnp.zeros_like(r), values),
                    lambda values, g: (adjoint_solve(g, values), *[None] * len(values)))
    return x_star + implicit(b - matvec(x_star), *fixed), None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Conjugate gradients for symmetric positive-definite A (and M): jax.scipy.sparse.linalg.cg. Returns
    `(x, None)`; derivatives in b and A by the implicit rule (module docstring)."""
    return _isolve("cg", _cg_loop, A, b, x0, tol, atol, maxiter, M, symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """BiCGSTAB for general square A: jax.scipy.sparse.linalg.bicgstab. Returns `(x, None)`."""
    return _isolve("bicgstab", _bicgstab_loop, A, b, x0, tol, atol, maxiter, M, symmetric=False)


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None, solve_method="batched"):
    """Restarted GMRES for general square A: jax.scipy.sparse.linalg.gmres (`restart` Krylov vectors per cycle,
    at most `maxiter` cycles; `solve_method` is accepted for JAX's signature: frame orthogonalises by modified
    Gram-Schmidt twice and solves the small problem by lstsq either way). Returns `(x, None)`."""
    if solve_method not in ("batched", "incremental"):
        raise ShapeError(f"frame.scipy.sparse.linalg.gmres: solve_method must be 'batched' or 'incremental', got "
                         f"{solve_method!r}")
    b_size = int(_np.prod(_shape(fnp.asarray(b)), dtype=int))
    restart = max(1, min(int(restart), b_size))
    return _isolve("gmres", _gmres_loop, A, b, x0, tol, atol, maxiter, M, symmetric=False, restart=restart)
