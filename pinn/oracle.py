"""Cross-checking a PINN's residual derivatives with frame's JAX oracle (needs JAX installed).

Two checks, both in float64:

1. `frame.interop.check_derivatives` on the network `u(coords)`: frame's first- and
   second-order derivative graphs (the backward transform applied once and twice) against
   `jax.grad`/`jax.hessian` of the independently lowered forward graph.
2. Pointwise: every derivative the problem's residual uses (`problem.derivatives`, computed by
   the sum-contraction trick) against JAX differentiating the network at each point separately
   (`jax.vmap` of nested `jax.grad` on a single-point graph). This is what shows that the
   contraction really yields pointwise derivatives for the MLP.

JAX is imported only when `check_pinn_derivatives` runs, so `import pinn` never needs it.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import frame
from frame.errors import OracleMismatch

from .problems import Problem, ProblemError, as_points


def _derivative_path(name: str, coordinates: tuple[str, ...]) -> list[int]:
    """'u_xt' -> [index of x, index of t]; 'u' -> []."""
    if name == "u":
        return []
    if not name.startswith("u_") or any(c not in coordinates for c in name[2:]):
        raise ProblemError(f"cannot interpret derivative name {name!r} over coordinates {coordinates}")
    return [coordinates.index(c) for c in name[2:]]


def check_pinn_derivatives(problem: Problem, apply: Callable, params, *coords, rtol: float = 1e-7,
                           atol: float = 1e-10, raise_on_mismatch: bool = True):
    """Check `problem.derivatives(apply, params, *coords)` and the network's derivative graphs against JAX.

    `coords` are one (N, 1) numpy array per coordinate of the problem (keep N small: the
    second-order graph check builds a full Hessian for up to 64 inputs, else random
    Hessian-vector products). Returns the `frame.interop.OracleReport`, whose entries include one
    `pointwise u_x`, `pointwise u_xx`, ... row per derivative; raises `frame.OracleMismatch` when
    any comparison is out of tolerance (unless `raise_on_mismatch=False`).
    """
    import jax

    from frame.interop import check_derivatives, to_jax
    from frame.interop.oracle import compare

    if len(coords) != len(problem.coordinates):
        raise ProblemError(f"{problem.name}: expected {len(problem.coordinates)} coordinate arrays "
                           f"({', '.join(problem.coordinates)}), got {len(coords)}")
    coords = tuple(as_points(name, c, problem.dtype) for name, c in zip(problem.coordinates, coords))
    if len({c.shape for c in coords}) != 1:
        raise ProblemError(f"{problem.name}: coordinate arrays must have one shape, got {[c.shape for c in coords]}")

    def network(*c):
        return problem.u(apply, params, *c)

    report = check_derivatives(network, *coords, orders=(1, 2), argnums=tuple(range(len(coords))), rtol=rtol,
                               atol=atol, raise_on_mismatch=False)

    computed = problem.derivatives(apply, params, *coords)
    u_point_graph = frame.trace(network, *[c[:1] for c in coords])
    with jax.enable_x64(True):
        u_point_jax = to_jax(u_point_graph)

        def u_point(z):  # one point z of shape (n_coords,) -> scalar u
            return u_point_jax(*[z[i].reshape(1, 1) for i in range(len(coords))])[0].reshape(())

        points = np.concatenate(coords, axis=1).astype(np.float64)
        for name, value in computed.items():
            fn = u_point
            for i in _derivative_path(name, problem.coordinates):
                fn = (lambda f, i: (lambda z: jax.grad(f)(z)[i]))(fn, i)
            # jit: one XLA compilation per derivative instead of one per primitive under vmap.
            expected = np.asarray(jax.jit(jax.vmap(fn))(points)).reshape(-1, 1)
            entry = compare(0, len(_derivative_path(name, problem.coordinates)), f"pointwise {name}",
                            np.asarray(value), expected, rtol, atol)
            report.entries.append(entry)
    if raise_on_mismatch and not report.passed:
        bad = [e.describe() for e in report.worst(len(report.entries)) if not e.ok][:5]
        raise OracleMismatch(f"{problem.name}: PINN derivatives disagree with JAX (rtol={rtol:g}, atol={atol:g}):\n  "
                             + "\n  ".join(bad) + f"\n{report}")
    return report
