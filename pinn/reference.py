"""Reference solutions in plain numpy: what a trained PINN is measured against.

- `poisson1d_green`: `-u'' = f` on [a, b] with Dirichlet values, by the Green's function and
  Gauss–Legendre quadrature (used when a Poisson problem has no closed-form solution).
- `burgers_cole_hopf`: viscous Burgers with `u(x, 0) = -sin(pi x)` via the Cole–Hopf transform,
  integrals by Gauss–Hermite quadrature (Basdevant et al., 1986).
- `burgers_finite_difference`: an independent method-of-lines solver, used by the tests to
  cross-check the Cole–Hopf reference.
- `etdrk4_periodic`: Fourier collocation with ETDRK4 time stepping for stiff periodic problems;
  `allen_cahn_spectral` and `kdv_spectral` are the zoo's Allen–Cahn and KdV references.
"""
from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from workbench.reference import etdrk4_coefficients, etdrk4_step

#: Gauss–Hermite nodes for the Cole–Hopf integrals. At nu = 0.01/pi the 200-node rule agrees with
#: 150/250/300 nodes to ~1e-15 for t <= 1 (100 nodes is only ~2e-7 at t = 1); numpy's weights
#: underflow beyond ~350 nodes.
HERMITE_NODES = 200


@functools.lru_cache(maxsize=8)
def _hermgauss(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.hermite.hermgauss(n)


def burgers_cole_hopf(x, t, nu: float = 0.01 / np.pi, n_nodes: int = HERMITE_NODES) -> np.ndarray:
    """Exact solution of `u_t + u u_x = nu u_xx`, `u(x, 0) = -sin(pi x)`, `u(±1, t) = 0` at (x, t).

    Cole–Hopf turns Burgers into the heat equation; for this initial condition (extended
    periodically, whose odd symmetry makes u(±1, t) = 0 hold automatically)

        u(x, t) = -∫ sin(pi (x - s z)) F(x - s z) e^{-z^2} dz / ∫ F(x - s z) e^{-z^2} dz,
        F(y) = exp(-cos(pi y) / (2 pi nu)),  s = sqrt(4 nu t),

    and both integrals are Gauss–Hermite sums. F spans e^{±1/(2 pi nu)}, so the weights are
    combined in log space with the maximum factored out (no overflow for small nu).
    `x` and `t` broadcast against each other; t = 0 returns the initial condition.
    """
    x, t = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(t, dtype=np.float64))
    if np.any(t < 0):
        raise ValueError("burgers_cole_hopf: t must be >= 0")
    z, w = _hermgauss(int(n_nodes))
    log_w = np.log(w)
    flat_x, flat_t = x.reshape(-1), t.reshape(-1)
    out = np.empty(flat_x.shape)
    chunk = 4096  # points per block: keeps the (points x nodes) temporaries cache-sized
    for lo in range(0, flat_x.size, chunk):
        s = np.sqrt(4.0 * nu * flat_t[lo:lo + chunk])[:, None]
        angle = np.pi * (flat_x[lo:lo + chunk, None] - s * z)
        log_weight = log_w - np.cos(angle) / (2.0 * np.pi * nu)
        weight = np.exp(log_weight - log_weight.max(axis=1, keepdims=True))
        out[lo:lo + chunk] = -(np.sin(angle) * weight).sum(axis=1) / weight.sum(axis=1)
    return out.reshape(x.shape)


def burgers_finite_difference(n_x: int, times: Sequence[float], nu: float = 0.01 / np.pi,
                              cfl: float = 0.4) -> tuple[np.ndarray, list[np.ndarray]]:
    """Burgers (same problem as `burgers_cole_hopf`) by finite differences; returns `(x, [u(x, t) per t])`.

    Conservative central differences for `(u^2/2)_x` and `nu u_xx` on `n_x` evenly spaced points
    of [-1, 1] (second order in space; stable without upwinding while the cell Péclet number
    `|u| dx / nu` stays below 2, i.e. n_x >= ~320 for nu = 0.01/pi), three-stage SSP Runge–Kutta in
    time with the diffusive/advective step limit times `cfl`. The error falls ~4x per grid doubling.
    """
    x = np.linspace(-1.0, 1.0, int(n_x))
    dx = x[1] - x[0]
    dt_max = cfl * min(dx * dx / (2.0 * nu), dx)
    u = -np.sin(np.pi * x)
    u[0] = u[-1] = 0.0

    def rhs(u):
        r = np.zeros_like(u)
        flux = 0.5 * u * u
        r[1:-1] = -(flux[2:] - flux[:-2]) / (2 * dx) + nu * (u[2:] - 2 * u[1:-1] + u[:-2]) / (dx * dx)
        return r

    out, t = [], 0.0
    for target in times:
        if target < t:
            raise ValueError("burgers_finite_difference: times must be increasing")
        while t < target - 1e-14:
            h = min(dt_max, target - t)
            u1 = u + h * rhs(u)
            u2 = 0.75 * u + 0.25 * (u1 + h * rhs(u1))
            u = u / 3.0 + (2.0 / 3.0) * (u2 + h * rhs(u2))
            t += h
        out.append(u.copy())
    return x, out


def poisson1d_green(forcing: Callable, x, domain=(-1.0, 1.0), boundary_values=(0.0, 0.0),
                    n_nodes: int = 64) -> np.ndarray:
    """Solution of `-u'' = f` on [a, b], `u(a) = ua`, `u(b) = ub`, at the points `x`.

    With the Green's function of `-d²/dx²`, u(x) = ua (b-x)/L + ub (x-a)/L
        + (b-x)/L ∫_a^x (s-a) f(s) ds + (x-a)/L ∫_x^b (b-s) f(s) ds,   L = b - a.
    Each integral uses `n_nodes`-point Gauss–Legendre on its own piece, so the kink of the
    Green's function at s = x never sits inside a quadrature interval (spectral accuracy for
    smooth f). `forcing` takes and returns numpy arrays.
    """
    a, b = map(float, domain)
    ua, ub = map(float, boundary_values)
    x = np.asarray(x, dtype=np.float64)
    flat = x.reshape(-1)
    nodes, weights = np.polynomial.legendre.leggauss(int(n_nodes))

    def integral(lo, hi, kernel):
        half = 0.5 * (hi - lo)[:, None]
        s = 0.5 * (hi + lo)[:, None] + half * nodes
        values = np.asarray(forcing(s), dtype=np.float64).reshape(s.shape)
        return (half * weights * kernel(s) * values).sum(axis=1)

    length = b - a
    left = integral(np.full_like(flat, a), flat, lambda s: s - a)
    right = integral(flat, np.full_like(flat, b), lambda s: b - s)
    u = (ua * (b - flat) + ub * (flat - a) + (b - flat) * left + (flat - a) * right) / length
    return u.reshape(x.shape)


def etdrk4_periodic(u0: Callable, linear_symbol: Callable, nonlinear_hat: Callable, domain=(-1.0, 1.0),
                    n: int = 512, t_end: float = 1.0, dt: float = 1e-4, save_every: float = 0.01,
                    contour_points: int = 32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`u_t = L u + N(u)` on a periodic interval by Fourier collocation and ETDRK4 (Cox & Matthews 2002,
    with Kassam & Trefethen's 2005 contour integrals for the phi functions).

    `linear_symbol(k)` is L's Fourier symbol (e.g. -nu k^2), `nonlinear_hat(u, k)` the Fourier
    coefficients of N(u) for the grid values u; `u0(x)` the initial values. Returns (x (n,), t (m,),
    U (m, n)) with snapshots every `save_every` from 0 to `t_end`. The linear part is integrated
    exactly, so stiff diffusion and dispersion (Allen–Cahn's, KdV's third derivative) cost no
    step-size restriction; the explicit nonlinear part sets dt.
    """
    a, b = (float(v) for v in domain)
    length = b - a
    x = a + length * np.arange(n) / n
    k = 2 * np.pi / length * np.fft.fftfreq(n, d=1.0 / n)
    L = np.asarray(linear_symbol(k), dtype=np.complex128)
    coefficients = etdrk4_coefficients(L, dt, contour_points)   # shared with pino's solver (workbench.reference)
    g = lambda v: nonlinear_hat(np.real(np.fft.ifft(v)), k)  # noqa: E731
    v = np.fft.fft(np.asarray(u0(x), dtype=np.float64))
    steps = int(round(t_end / dt))
    every = int(round(save_every / dt))
    if abs(steps * dt - t_end) > 1e-9 * t_end or abs(every * dt - save_every) > 1e-9 * save_every:
        raise ValueError(f"etdrk4_periodic: t_end {t_end} and save_every {save_every} must be multiples of dt {dt}")
    snapshots, times = [np.real(np.fft.ifft(v))], [0.0]
    for step in range(1, steps + 1):
        v = etdrk4_step(v, g, coefficients)
        if step % every == 0:
            snapshots.append(np.real(np.fft.ifft(v)))
            times.append(step * dt)
    return x, np.array(times), np.array(snapshots)


@functools.lru_cache(maxsize=4)
def allen_cahn_spectral(n: int = 512, dt: float = 1e-3, diffusion: float = 1e-4, reaction: float = 5.0,
                        t_end: float = 1.0, save_every: float = 0.01):
    """Allen–Cahn `u_t = d u_xx + r (u - u^3)`, u(x, 0) = x^2 cos(pi x), periodic on [-1, 1] (the PINN
    benchmark of Raissi et al. and of Wang et al.'s "expert's guide"): (x, t, U), cached.

    Measured: dt 1e-3 agrees with dt 1e-4 to 1e-11 (max abs); n = 256 differs from 512 by 8e-4, so
    512 it is (the interfaces sharpen to width ~sqrt(d / r) = 4.5e-3)."""
    return etdrk4_periodic(lambda x: x ** 2 * np.cos(np.pi * x), lambda k: -diffusion * k ** 2,
                           lambda u, k: np.fft.fft(reaction * (u - u ** 3)), (-1.0, 1.0), n, t_end, dt, save_every)


@functools.lru_cache(maxsize=4)
def kdv_spectral(n: int = 256, dt: float = 5e-4, dispersion: float = 0.0025, t_end: float = 1.0,
                 save_every: float = 0.01):
    """KdV `u_t + u u_x + d u_xxx = 0`, u(x, 0) = cos(pi x), periodic on [-1, 1] (Raissi et al.'s KdV
    data): (x, t, U), cached. L = -d (ik)^3 = i d k^3; N(u) = -(u^2 / 2)_x.

    Measured: dt 5e-4 agrees with dt 1e-4 to 5e-9 (max abs, |u| <= 2.3), n = 256 with 512 to 1e-15."""
    return etdrk4_periodic(lambda x: np.cos(np.pi * x), lambda k: 1j * dispersion * k ** 3,
                           lambda u, k: -0.5j * k * np.fft.fft(u * u), (-1.0, 1.0), n, t_end, dt, save_every)
