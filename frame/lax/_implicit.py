"""frame.lax's implicitly differentiated solvers: `custom_linear_solve` and `custom_root` (see frame.lax).

Both return what the user's `solve` returns, and give JAX's implicit derivatives instead of differentiating
through the solver (which may be a while_loop reverse mode cannot enter). The pattern is frame.scipy.sparse.linalg's:
the solution x* is computed with every input held constant, and returned as x* + R(r), where r is a residual that
is zero at x* (b - A x* for a linear solve, f(x*) for a root) and R a frame.custom_vjp function that is zero in
value and, in reverse mode, the implicit function theorem's solve:

- custom_linear_solve: x = A^-1 b, so dx = A^-1 (db - dA x*), reverse mode one transpose solve
  (`transpose_solve(vecmat, g)`, or `solve(matvec, g)` if `symmetric`);
- custom_root: f(x*, theta) = 0, so dx = -J^-1 df/dtheta with J = df/dx at x*, reverse mode
  `tangent_solve(J^T, g)` (tangent_solve solves a linear function; given the transposed one it gives J^-T g).

`matvec` and `f` may close over traced values (the parameters): they are closure-converted, so gradients reach
them through one application of matvec / f at x*. `b`, the initial guess and the solution are single arrays (not
pytrees). Without `transpose_solve` and not `symmetric`, custom_linear_solve has no reverse rule in lax; here its
derivative is then the solve's own (it must be differentiable). Reverse mode only, as every frame.custom_vjp
(frame.jvp refuses by name); higher orders are not covered.
"""
from __future__ import annotations

from ..errors import ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype, _shape
from ..frontend.custom import custom_vjp
from ..frontend.pytree import tree_leaves
from ..frontend.tracer import ShapeDtype
from ..frontend.transforms import _closure_convert, stop_gradient, vjp
from ..tracing import is_tracing
from ._common import _array, _is_scalar


def _operand(name: str, what: str, x):
    x = fnp.asarray(x) if _is_scalar(x) else _array(x)
    if isinstance(x, (list, tuple, dict)) or _dtype(x) not in ("float32", "float64"):
        raise ShapeError(f"lax.{name}: {what} must be one float32 or float64 array (frame covers no pytrees here), "
                         f"got {type(x).__name__ if isinstance(x, (list, tuple, dict)) else _dtype(x)}")
    return x


def _closed(name: str, fn, x):
    """`fn` (array -> array of x's shape and dtype) traced once and closure-converted: (build, captured) with
    build(values) the function on `values` in place of the traced values it captures."""
    converted, captured, res = _closure_convert(fn, (ShapeDtype(_shape(x), _dtype(x)),), name=name)
    out = res.graph.outputs
    if len(out) != 1 or out[0].type.shape != tuple(_shape(x)) or out[0].type.dtype != _dtype(x):
        got = ", ".join(str(v.type) for v in out) or "nothing"
        raise ShapeError(f"lax.{name}: the function must map {_dtype(x)}{list(_shape(x))} to the same, got {got}")
    return (lambda values: lambda v: tree_leaves(converted(v, *values))[0]), list(captured)


def _split_aux(name: str, out, has_aux: bool):
    if not has_aux:
        return out, None
    if not (isinstance(out, (list, tuple)) and len(out) == 2):
        raise ShapeError(f"lax.{name}: with has_aux=True, solve must return (solution, aux)")
    return out[0], out[1]


def _solved(name: str, fn, like, solve, has_aux: bool, what: str):
    """The user's `solve(fn, like)` with every traced input held fixed: (build, fixed, x, aux), where
    build(fixed) is `fn` on the fixed values it closes over; x must have `like`'s shape and dtype."""
    build, captured = _closed(name, fn, like)
    fixed = [stop_gradient(v) for v in captured]
    x, aux = _split_aux(name, solve(build(fixed), stop_gradient(like)), has_aux)
    x = _array(x)
    if _shape(x) != _shape(like) or _dtype(x) != _dtype(like):
        raise ShapeError(f"lax.{name}: solve must return {what} shape and dtype {_dtype(like)}{list(_shape(like))}, "
                         f"got {_dtype(x)}{list(_shape(x))}")
    return build, fixed, x, aux


def _with_implicit_derivative(name: str, x_star, r, inverse):
    """x* + R(r): R zero in value and, in reverse mode, the cotangent g becomes inverse(g) for r. `inverse` is
    closure-converted (the user's solves close over traced matrices, the root and matvec's values); those values
    come into R as arguments, held fixed. Eagerly no derivative can be asked: x* itself."""
    if not is_tracing():
        return x_star
    converted, captured, _ = _closure_convert(inverse, (ShapeDtype(_shape(x_star), _dtype(x_star)),), name=name)
    fixed = [stop_gradient(v) for v in captured]

    @custom_vjp
    def implicit(r, *values):
        return fnp.zeros_like(r)

    implicit.defvjp(lambda r, *values: (fnp.zeros_like(r), values),
                    lambda values, g: (_array(tree_leaves(converted(g, *values))[0]), *[None] * len(values)))
    return x_star + implicit(r, *fixed)


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False, has_aux=False):
    """lax.custom_linear_solve: `solve(matvec, b)` (x with matvec(x) = b; `(x, aux)` with has_aux), differentiated
    implicitly: gradients in b and in the values matvec closes over, by one `transpose_solve(vecmat, g)` (or
    `solve(matvec, g)` if `symmetric`) backward."""
    b = _operand("custom_linear_solve", "b", b)
    if transpose_solve is None and not symmetric:
        # lax has no reverse rule here; the solve's own derivative (through the live matvec) stands in
        return solve(matvec, b)
    build, fixed, x, aux = _solved("custom_linear_solve", matvec, b, solve, has_aux, "b's")
    a = build(fixed)

    def adjoint(g):
        if symmetric:
            return _split_aux("custom_linear_solve", solve(a, g), has_aux)[0]
        vecmat = lambda v: vjp(a, fnp.zeros_like(g))[1](v)[0]   # A^T v: the VJP of the linear map
        return _split_aux("custom_linear_solve", transpose_solve(vecmat, g), has_aux)[0]

    x_star = stop_gradient(x)
    x = _with_implicit_derivative("custom_linear_solve", x_star, b - matvec(x_star), adjoint)
    return (x, aux) if has_aux else x


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """lax.custom_root: `solve(f, initial_guess)` (a root x of f; `(x, aux)` with has_aux), differentiated
    implicitly: gradients in the values f closes over by one `tangent_solve(J^T, g)` backward, J = df/dx at the
    root; none in the initial guess."""
    guess = _operand("custom_root", "initial_guess", initial_guess)
    build, fixed, x, aux = _solved("custom_root", f, guess, solve, has_aux, "the initial guess's")

    x_star = stop_gradient(x)

    def inverse(g):
        transposed = vjp(build(fixed), x_star)[1]   # v -> J^T v at the root
        return -_array(tangent_solve(lambda v: transposed(v)[0], g))

    x = _with_implicit_derivative("custom_root", x_star, f(x_star), inverse)
    return (x, aux) if has_aux else x
