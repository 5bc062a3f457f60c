"""Seeded, cached 2-D datasets of the FNO and PINO papers: Darcy flow, Navier-Stokes, Burgers in space-time.

Each generator is deterministic by seed and plain numpy/scipy (float64):

- `darcy_data`: `a -> u` for `-div(a grad u) = 1` on the unit square, `u = 0` on the boundary, with
  `a = 12` where a Gaussian random field `N(0, (-Laplacian + 9 I)^-2)` (Neumann, zero mean) is
  `>= 0` and `3` elsewhere (Li et al. 2021, FNO, sec. 5.2), solved by the 5-point finite-difference
  scheme with face-averaged coefficients (`darcy_matrix`, a scipy.sparse matrix; solved by its sparse
  LU in `solve_darcy`, or, the default for datasets, by Laplacian-preconditioned CG on a batch in
  `solve_darcy_batch`: the same discrete solution to ~1e-12, 2.5-10x faster at 421^2) at a fine
  resolution and subsampled (421 -> 85, 141, 211, 421 in the paper; the GRF is drawn on the node grid
  itself, where the FNO code spline-interpolates cell-centre values to the nodes);
- `navier_stokes_data`: 2-D incompressible Navier-Stokes in vorticity form on the unit torus,
  `w_t + u.grad w = nu Lap w + f`, `f = 0.1 (sin 2pi(x+y) + cos 2pi(x+y))`, `w0` from the periodic
  GRF `7^(3/2) (-Laplacian + 49 I)^(-2.5)`, pseudo-spectral with 2/3 de-aliasing, Crank-Nicolson on
  the viscous term and Adams-Bashforth 2 on advection and forcing (`solve_navier_stokes`); inputs are
  the first `t_in` unit-time snapshots, outputs the next `t_out`;
- `burgers_pino_data`: viscous Burgers `u_t + u u_x = nu u_xx`, nu = 0.01, periodic on [0, 1), the
  operator `u(., 0) -> u(x, t)` on `t in [0, 1]` (the PINO paper's Burgers setting), pseudo-spectral
  ETDRK4 (`pino.data.solve_burgers`) at a fine grid, subsampled.

Samples are solved in chunks, `threads` chunks at once (default: the usable cores; the solvers'
FFTs, sparse solves and array passes release the GIL); random fields are drawn in order in the
calling thread, so the data are the same bits for any thread count.

Results are cached as `.npz` files under `cache_dir()` (`$FRAME_CACHE_DIR/pino`, else
`$XDG_CACHE_HOME/frame/pino`, else `~/.cache/frame/pino`); the file name encodes every parameter,
writes are atomic (a temporary file renamed into place), and a file that does not load (with
`allow_pickle=False`) or does not hold the expected arrays is regenerated, never trusted.
"""
from __future__ import annotations

import math
import os
import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from frame.backends.native import cache_root

from .data import gaussian_random_field, solve_burgers

CACHE_FORMAT = 1   # part of every cache file name: bump it when a generator's output changes


# -- data container ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FieldData:
    """Input/output fields of an operator, channel-first: `inputs [num, c_in, *grid]`, `outputs [num, c_out, *grid]`.

    `coords` maps each grid axis' name to its coordinates (e.g. {"x": ..., "y": ...} or {"t": ..., "x": ...}),
    in the order of the grid axes. `meta` holds the generator's parameters.
    """

    inputs: np.ndarray
    outputs: np.ndarray
    coords: dict
    meta: dict = field(default_factory=dict)

    def __len__(self):
        return len(self.inputs)

    def channels(self, dtype="float32") -> tuple[np.ndarray, np.ndarray]:
        """`(inputs, outputs)` in `dtype`, the channel-first layout the FNO models take."""
        return self.inputs.astype(dtype), self.outputs.astype(dtype)

    def take(self, index) -> "FieldData":
        """The samples at `index` (an int array, or a slice)."""
        return FieldData(self.inputs[index], self.outputs[index], self.coords, self.meta)


# -- cache ---------------------------------------------------------------------------------------------------------
def cache_dir() -> Path:
    """Where datasets are kept: `$FRAME_CACHE_DIR/pino`, else `$XDG_CACHE_HOME/frame/pino`, else ~/.cache/frame/pino."""
    return cache_root() / "pino"


def _format_value(value) -> str:
    if isinstance(value, float):
        return repr(value)            # exact: 0.1 and 0.1000001 must not share a file
    return str(value)


def cache_path(name: str, params: dict, directory: str | os.PathLike | None = None) -> Path:
    """The cache file for dataset `name` made with `params`: every parameter, sorted by key, is in the file name."""
    parts = [f"{key}={_format_value(params[key])}" for key in sorted(params)]
    stem = "-".join([name, f"v{CACHE_FORMAT}", *parts])
    stem = re.sub(r"[^A-Za-z0-9=.+_-]", "_", stem)
    return Path(directory if directory is not None else cache_dir()) / f"{stem}.npz"


def _load(path: Path, expected: dict) -> dict | None:
    """The arrays of `path` if it loads without pickles and holds every key of `expected` at its shape, else None."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in expected}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    for key, shape in expected.items():
        array = arrays[key]
        if array.shape != tuple(shape) or array.dtype.kind not in "fc" or not np.all(np.isfinite(array)):
            return None
    return arrays


def _save_atomic(path: Path, arrays: dict) -> None:
    """Write `arrays` to `path` through a temporary file in the same directory and a rename (never a torn file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".writing-", suffix=".npz", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def cached_files(name: str, directory: str | os.PathLike | None = None):
    """`(path, params)` of every cache file of dataset `name` (current format), params as the strings in its name."""
    root = Path(directory if directory is not None else cache_dir())
    prefix = f"{name}-v{CACHE_FORMAT}-"
    try:
        paths = sorted(root.glob(prefix + "*.npz"))
    except OSError:
        return []
    found = []
    for path in paths:
        pairs = [part.split("=", 1) for part in path.stem[len(prefix):].split("-")]
        if all(len(pair) == 2 for pair in pairs):
            found.append((path, dict(pairs)))
    return found


def cached(name: str, params: dict, make: Callable[[], dict], expected: dict, *, cache: bool = True,
           directory: str | os.PathLike | None = None, derive: Callable[[], dict | None] | None = None) -> dict:
    """`make()` (a dict of float arrays of the shapes in `expected`), loaded from the cache when a valid copy is there.

    `cache=False` neither reads nor writes. A cache file that fails to load or has other arrays is
    regenerated and overwritten. A cache directory that cannot be written only costs the cache.
    `derive()`, when given, is tried before `make()`: arrays computed from other cache files (e.g. a
    subsample of a finer one), or None; what it returns is checked against `expected` and saved alike.
    """
    if not cache:
        return make()
    path = cache_path(name, params, directory)
    arrays = _load(path, expected) if path.exists() else None
    if arrays is not None:
        return arrays
    arrays = derive() if derive is not None else None
    if arrays is not None and not all(arrays[k].shape == tuple(shape) for k, shape in expected.items()):
        arrays = None
    if arrays is None:
        arrays = make()
    try:
        _save_atomic(path, arrays)
    except OSError:
        pass    # read-only or full disk: the data is still good, only not kept
    return arrays


def _progress(total: int, desc: str, progress: bool):
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, disable=not progress, leave=False)


def _threads(owner: str, threads) -> int:
    """`threads` (None: the usable cores) checked: solver chunks run at most this many at once."""
    if threads is None:
        from frame.runtime.row_parallel import usable_cores
        return usable_cores()
    _check_int(owner, threads=(threads, 1))
    return int(threads)


def _solve_chunks(solve: Callable, chunks, threads: int, bar) -> list:
    """`solve(item)` for every `(count, item)` of the iterable `chunks`, in order, at most `threads` at once.

    `chunks` is drawn in this thread, in order (a generator drawing random fields from one seeded
    generator keeps its sequence), one chunk ahead of the solves; the solvers are numpy/scipy FFTs,
    sparse solves and elementwise passes, which release the GIL, so threads use the cores. Each chunk
    is solved as it would be alone: the results are the same bits whatever `threads` is.
    """
    if threads <= 1:
        results = []
        for count, item in chunks:
            results.append(solve(item))
            bar.update(count)
        return results
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    results, pending = [], deque()

    def finish():
        count, future = pending.popleft()
        results.append(future.result())
        bar.update(count)

    with ThreadPoolExecutor(threads, thread_name_prefix="pino-data") as pool:
        try:
            for count, item in chunks:
                if len(pending) >= threads:
                    finish()
                pending.append((count, pool.submit(solve, item)))
            while pending:
                finish()
        except BaseException:
            for _, future in pending:   # a failed chunk (or Ctrl-C): do not start the queued ones
                future.cancel()
            raise
    return results


def _row_chunks(array: np.ndarray, chunk: int):
    """`(count, array[i:i + chunk])` for consecutive chunks of the leading axis (`_solve_chunks`' input)."""
    for i in range(0, len(array), chunk):
        part = array[i:i + chunk]
        yield len(part), part


def _check_int(owner: str, **values) -> None:
    for name, (value, low) in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{owner}: {name} must be an int >= {low}, got {value!r}")


# -- Darcy flow ----------------------------------------------------------------------------------------------------
def darcy_grf(num: int, n: int, *, alpha: float = 2.0, tau: float = 3.0, seed=0) -> np.ndarray:
    """`num` samples `(num, n, n)` of the FNO paper's Darcy random field `N(0, (-Laplacian + tau^2)^(-alpha))`.

    The Laplacian has zero Neumann conditions on [0, 1]^2: a cosine (Karhunen-Loeve) expansion with
    coefficients `n tau^(alpha-1) (pi^2 (k1^2 + k2^2) + tau^2)^(-alpha/2) xi`, `xi ~ N(0, 1)`, the
    constant mode dropped, summed by the orthonormal inverse DCT (MATLAB's `idct2`), as in the FNO
    repository's data_generation/darcy/GRF.m with alpha = 2, tau = 3. Only the sign of the field is
    used to make `a`, so the `tau^(alpha-1)` normalisation does not change the data.
    """
    from scipy.fft import idctn

    _check_int("darcy_grf", num=(num, 0), n=(n, 2))
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    k1, k2 = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    coef = tau ** (alpha - 1) * (math.pi ** 2 * (k1 ** 2 + k2 ** 2) + tau ** 2) ** (-alpha / 2)
    coefficients = n * coef * rng.standard_normal((num, n, n))
    coefficients[:, 0, 0] = 0.0
    return idctn(coefficients, type=2, norm="ortho", axes=(-2, -1))


def darcy_coefficient(field: np.ndarray, high: float = 12.0, low: float = 3.0) -> np.ndarray:
    """The thresholded permeability: `high` where `field >= 0`, `low` elsewhere (the FNO paper's 12 and 3)."""
    return np.where(np.asarray(field) >= 0, high, low).astype(np.float64)


def darcy_matrix(a: np.ndarray):
    """The 5-point matrix of `-div(a grad u)` on the interior nodes of the grid `x_i = i/(n-1)` (u = 0 on the boundary).

    `a: (n, n)` at the nodes (axis 0 is x, axis 1 is y); the coefficient on the face between two
    neighbours is their arithmetic mean (as the FNO repository's solve_gwf.m), so the scheme is
    conservative and second-order for smooth `a`. Returns a CSC matrix of order `(n-2)^2`, unknowns
    ordered row-major over `(i, j)`, `i, j = 1..n-2`.
    """
    import scipy.sparse as sp

    a = np.asarray(a, dtype=np.float64)
    n = a.shape[0]
    h2 = (n - 1) ** 2
    m = n - 2
    fx = 0.5 * (a[1:, :] + a[:-1, :])     # face between (i, j) and (i+1, j): fx[i, j]
    fy = 0.5 * (a[:, 1:] + a[:, :-1])     # face between (i, j) and (i, j+1): fy[i, j]
    west, east = fx[:-1, 1:-1], fx[1:, 1:-1]          # (m, m): faces of interior node (i, j), i, j >= 1
    south, north = fy[1:-1, :-1], fy[1:-1, 1:]
    idx = np.arange(m * m).reshape(m, m)
    rows = [idx.ravel(), idx[1:, :].ravel(), idx[:-1, :].ravel(), idx[:, 1:].ravel(), idx[:, :-1].ravel()]
    cols = [idx.ravel(), idx[:-1, :].ravel(), idx[1:, :].ravel(), idx[:, :-1].ravel(), idx[:, 1:].ravel()]
    vals = [(west + east + south + north).ravel(), -west[1:, :].ravel(), -east[:-1, :].ravel(),
            -south[:, 1:].ravel(), -north[:, :-1].ravel()]
    return sp.csc_matrix((np.concatenate(vals) * h2, (np.concatenate(rows), np.concatenate(cols))),
                         shape=(m * m, m * m))


def solve_darcy(a: np.ndarray, f=1.0) -> np.ndarray:
    """Solve `-div(a grad u) = f` on [0, 1]^2 with `u = 0` on the boundary, on the node grid of `a: (n, n)`.

    Second-order finite differences (`darcy_matrix`) and a sparse LU (scipy's SuperLU, minimum-degree
    ordering of A^T + A, which is ~1.5x faster than the default COLAMD on this 5-point matrix).
    `f` a scalar or an `(n, n)` array (its boundary values are not used). Returns `u: (n, n)`, float64.
    """
    import scipy.sparse.linalg as spla

    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] < 3:
        raise ValueError(f"solve_darcy: a must be a square (n, n) array with n >= 3, got shape {a.shape}")
    if not np.all(a > 0):
        raise ValueError("solve_darcy: the coefficient a must be positive everywhere")
    n = a.shape[0]
    rhs = np.broadcast_to(np.asarray(f, dtype=np.float64), (n, n))[1:-1, 1:-1].ravel()
    u = np.zeros((n, n))
    u[1:-1, 1:-1] = spla.spsolve(darcy_matrix(a), rhs, permc_spec="MMD_AT_PLUS_A").reshape(n - 2, n - 2)
    return u


def _darcy_apply(faces, u):
    """`-div(a grad u)` on the interior nodes for `u: (batch, m, m)` (zero outside): the stencil of `darcy_matrix`."""
    west, east, south, north, h2 = faces
    p = np.pad(u, ((0, 0), (1, 1), (1, 1)))
    return h2 * ((west + east + south + north) * u - west * p[:, :-2, 1:-1] - east * p[:, 2:, 1:-1]
                 - south * p[:, 1:-1, :-2] - north * p[:, 1:-1, 2:])


def solve_darcy_batch(a: np.ndarray, f=1.0, *, rtol: float = 1e-11, max_iterations: int = 500) -> np.ndarray:
    """`solve_darcy` for a batch `a: (batch, n, n)` by conjugate gradients preconditioned with the Laplacian.

    The same discrete system as `solve_darcy` (the 5-point scheme of `darcy_matrix`), solved
    iteratively: the preconditioner is the constant-coefficient Dirichlet Laplacian, inverted exactly
    by a type-I DST. Its condition number against the variable-coefficient operator is at most
    max(a) / min(a) (4 for the 12/3 field), so CG reaches `rtol` (relative residual, every sample)
    in ~30 iterations whatever n is: ~10x faster than the sparse LU at n = 421 on this machine.
    Raises `RuntimeError` if `max_iterations` is not enough.
    """
    from scipy.fft import dstn

    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 3 or a.shape[1] != a.shape[2] or a.shape[1] < 3:
        raise ValueError(f"solve_darcy_batch: a must be (batch, n, n) with n >= 3, got shape {a.shape}")
    if not np.all(a > 0):
        raise ValueError("solve_darcy_batch: the coefficient a must be positive everywhere")
    batch, n = a.shape[0], a.shape[1]
    m = n - 2
    fx = 0.5 * (a[:, 1:, :] + a[:, :-1, :])
    fy = 0.5 * (a[:, :, 1:] + a[:, :, :-1])
    faces = (fx[:, :-1, 1:-1], fx[:, 1:, 1:-1], fy[:, 1:-1, :-1], fy[:, 1:-1, 1:], float((n - 1) ** 2))
    theta = np.pi * np.arange(1, m + 1) / (n - 1)
    eig1 = (n - 1) ** 2 * (2 - 2 * np.cos(theta))
    inv_eig = 1.0 / (eig1[:, None] + eig1[None, :])

    def precondition(r):
        return dstn(dstn(r, type=1, axes=(1, 2), norm="ortho") * inv_eig, type=1, axes=(1, 2), norm="ortho")

    b = np.broadcast_to(np.broadcast_to(np.asarray(f, dtype=np.float64), a.shape)[:, 1:-1, 1:-1], (batch, m, m))
    x = np.zeros((batch, m, m))
    r = b.copy()
    z = precondition(r)
    p = z.copy()
    rz = np.sum(r * z, axis=(1, 2))
    b_norm = np.sqrt(np.sum(b * b, axis=(1, 2)))
    b_norm[b_norm == 0] = 1.0
    for _ in range(max_iterations):
        q = _darcy_apply(faces, p)
        step = rz / np.sum(p * q, axis=(1, 2))
        x += step[:, None, None] * p
        r -= step[:, None, None] * q
        if np.max(np.sqrt(np.sum(r * r, axis=(1, 2))) / b_norm) < rtol:
            break
        z = precondition(r)
        rz_new = np.sum(r * z, axis=(1, 2))
        p = z + (rz_new / rz)[:, None, None] * p
        rz = rz_new
    else:
        raise RuntimeError(f"solve_darcy_batch: CG did not reach rtol={rtol} in {max_iterations} iterations")
    u = np.zeros((batch, n, n))
    u[:, 1:-1, 1:-1] = x
    return u


def subsample_stride(fine: int, coarse: int) -> int:
    """The stride taking a node grid of `fine` points (endpoints included) to `coarse` points: `(fine-1)/(coarse-1)`."""
    if coarse < 2 or fine < coarse or (fine - 1) % (coarse - 1):
        raise ValueError(f"a node grid of {fine} points cannot be subsampled to {coarse} points: (fine - 1) / "
                         f"(coarse - 1) = {(fine - 1)}/{max(coarse - 1, 1)} must be a whole number")
    return (fine - 1) // (coarse - 1)


def darcy_data(num: int, resolution: int = 85, *, solver_resolution: int = 421, seed: int = 0,
               high: float = 12.0, low: float = 3.0, alpha: float = 2.0, tau: float = 3.0,
               method: str = "cg", chunk: int = 16, threads: int | None = None, progress: bool = True,
               cache: bool = True, cache_directory=None) -> FieldData:
    """`num` Darcy pairs `(a, u)` solved at `solver_resolution` and subsampled to `resolution` (node grids on [0, 1]^2).

    The FNO paper solves at 421 and subsamples to s = 85, 141, 211, 421 (stride (421-1)/(s-1)).
    `method`: "cg" (`solve_darcy_batch`, `chunk` samples at a time) or "lu" (`solve_darcy`, scipy's
    sparse LU, one sample at a time); both solve the same discrete system (they agree to ~1e-12,
    tests/pino/test_datasets.py). Sample i's field comes from one generator seeded with `seed`, in order.
    Returns `FieldData` with `inputs a: [num, 1, s, s]`, `outputs u: [num, 1, s, s]`, coords x, y.
    `threads` chunks are solved at once (default: the usable cores; the same data whatever it is).
    With the cache on, a cached run of the same solves at a resolution this one subsamples (and at least
    `num` samples: sample i is the same in every run) is subsampled instead of solving again (s = 43 and 29
    from a cached 85; the first 200 samples of a cached 1000).
    """
    _check_int("darcy_data", num=(num, 0), resolution=(resolution, 3), solver_resolution=(solver_resolution, 3),
               chunk=(chunk, 1))
    if method not in ("cg", "lu"):
        raise ValueError(f"darcy_data: method must be 'cg' or 'lu', got {method!r}")
    threads = _threads("darcy_data", threads)
    stride = subsample_stride(solver_resolution, resolution)
    params = dict(num=num, s=resolution, solver=solver_resolution, seed=seed, high=float(high), low=float(low),
                  alpha=float(alpha), tau=float(tau), method=method)

    def make():
        rng = np.random.default_rng(seed)

        def fields():   # chunk by chunk, from the one generator in sample order
            for i in range(0, num, chunk):
                count = min(chunk, num - i)
                yield count, darcy_coefficient(np.stack([darcy_grf(1, solver_resolution, alpha=alpha, tau=tau,
                                                                   seed=rng)[0] for _ in range(count)]), high, low)

        def solve(a):
            u = solve_darcy_batch(a) if method == "cg" else np.stack([solve_darcy(one) for one in a])
            # copies: a view of the subsample would keep the whole fine-grid chunk alive until the end
            return a[:, ::stride, ::stride].copy(), u[:, ::stride, ::stride].copy()

        with _progress(num, f"Darcy {solver_resolution}^2 solves", progress) as bar:
            solved = _solve_chunks(solve, fields(), threads, bar)
        if not solved:
            return {"a": np.empty((0, resolution, resolution)), "u": np.empty((0, resolution, resolution))}
        return {"a": np.concatenate([a for a, _ in solved]), "u": np.concatenate([u for _, u in solved])}

    def derive():
        # A cached run of the same solves with at least `num` samples at a resolution this one subsamples: the
        # same a and u (sample i comes from the i-th draw of the seeded generator; u to the solver's tolerance,
        # CG's batches being other groupings of the same samples), without solving again.
        for path, found in cached_files("darcy", cache_directory):
            other = {k: found.get(k) for k in params}
            try:
                fine, count = int(other.pop("s")), int(other.pop("num"))
            except (TypeError, ValueError):
                continue
            same = all(other[k] == _format_value(v) for k, v in params.items() if k not in ("s", "num"))
            if not same or count < num or fine < resolution or (fine - 1) % (resolution - 1):
                continue
            full = _load(path, {"a": (count, fine, fine), "u": (count, fine, fine)})
            if full is not None:
                k = (fine - 1) // (resolution - 1)
                return {key: np.ascontiguousarray(full[key][:num, ::k, ::k]) for key in ("a", "u")}
        return None

    shape = (num, resolution, resolution)
    arrays = cached("darcy", params, make, {"a": shape, "u": shape}, cache=cache, directory=cache_directory,
                    derive=derive)
    x = np.linspace(0.0, 1.0, resolution)
    return FieldData(arrays["a"][:, None], arrays["u"][:, None], {"x": x, "y": x}, params)


# -- Navier-Stokes on the unit torus -------------------------------------------------------------------------------
def periodic_grf_2d(num: int, n: int, *, alpha: float = 2.5, tau: float = 7.0, sigma: float | None = None,
                    seed=0) -> np.ndarray:
    """`num` samples `(num, n, n)` of the periodic GRF `N(0, sigma^2 (-Laplacian + tau^2)^(-alpha))` on the unit torus.

    As the FNO repository's GaussianRF(2, n, alpha, tau) (random_fields.py, used by ns_2d.py with
    alpha = 2.5, tau = 7): `sigma = tau^(alpha - 1)` by default, Fourier coefficients
    `n^2 sqrt(2) sigma (4 pi^2 |k|^2 + tau^2)^(-alpha/2) (xi + i eta)` with the mean mode zero, and
    the real part of the inverse FFT.
    """
    _check_int("periodic_grf_2d", num=(num, 0), n=(n, 2))
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    sigma = tau ** (0.5 * (2 * alpha - 2)) if sigma is None else sigma
    k = np.fft.fftfreq(n, 1.0 / n)
    kx, ky = np.meshgrid(k, k, indexing="ij")
    sqrt_eig = n ** 2 * math.sqrt(2.0) * sigma * (4 * math.pi ** 2 * (kx ** 2 + ky ** 2) + tau ** 2) ** (-alpha / 2)
    sqrt_eig[0, 0] = 0.0
    xi = rng.standard_normal((2, num, n, n))
    return np.fft.ifft2(sqrt_eig * (xi[0] + 1j * xi[1]), axes=(-2, -1)).real


def torus_grid(n: int) -> np.ndarray:
    """The n points `j/n` of a periodic grid on [0, 1)."""
    return np.arange(n, dtype=np.float64) / n


def ns_forcing(n: int) -> np.ndarray:
    """The FNO paper's forcing `0.1 (sin 2pi(x+y) + cos 2pi(x+y))` on the n x n torus grid (axis 0 is x)."""
    x = torus_grid(n)
    s = x[:, None] + x[None, :]
    return 0.1 * (np.sin(2 * math.pi * s) + np.cos(2 * math.pi * s))


def _torus_wavenumbers(n: int):
    k = np.fft.fftfreq(n, 1.0 / n)
    kx = k[:, None] * np.ones((1, n // 2 + 1))       # rfft2 layout: full axis 0, half axis 1
    ky = np.ones((n, 1)) * np.arange(n // 2 + 1)[None, :]
    return kx, ky


def solve_navier_stokes(w0: np.ndarray, forcing: np.ndarray | None, *, viscosity: float = 1e-3,
                        final_time: float = 1.0, dt: float = 5e-3, record_steps: int = 1,
                        progress: bool = False) -> np.ndarray:
    """Vorticity `w(t)` of 2-D incompressible Navier-Stokes on the unit torus from `w0: (..., n, n)`.

    `w_t + u . grad w = viscosity Lap w + forcing`, `u = (psi_y, -psi_x)`, `-Lap psi = w`. Pseudo-
    spectral as the FNO repository's ns_2d.py: the velocity and grad w by rfft2, the product in
    physical space, the 2/3 rule (`|k_x|, |k_y| <= 2/3 k_max`) on the nonlinear term, Crank-Nicolson
    on the viscous term. ns_2d.py advances the nonlinear term and the forcing by forward Euler;
    here it is Adams-Bashforth 2 (one Heun step to start): the same one evaluation per step, and
    second order in time. At 64^2 the default dt = 5e-3 differs from dt = 5e-4 by < 2e-6 relative L2
    at t = 1..20 (8 fields of the FNO paper's distribution; 1e-2 by < 8e-6); ns_2d.py uses 1e-4 at
    256^2. Returns `(..., record_steps, n, n)`: w at `t = j final_time / record_steps`,
    j = 1..record_steps; raises `ValueError` if the fields blow up (dt too large for the flow).
    """
    w0 = np.asarray(w0, dtype=np.float64)
    if w0.ndim < 2 or w0.shape[-1] != w0.shape[-2] or w0.shape[-1] < 4:
        raise ValueError(f"solve_navier_stokes: w0 must be (..., n, n) with n >= 4, got shape {w0.shape}")
    _check_int("solve_navier_stokes", record_steps=(record_steps, 1))
    if not (dt > 0 and final_time > 0 and viscosity >= 0):
        raise ValueError(f"solve_navier_stokes: need dt > 0, final_time > 0, viscosity >= 0; got dt={dt}, "
                         f"final_time={final_time}, viscosity={viscosity}")
    n = w0.shape[-1]
    steps_per_record = max(1, math.ceil(final_time / record_steps / dt - 1e-9))
    h = final_time / record_steps / steps_per_record
    kx, ky = _torus_wavenumbers(n)
    lap = 4 * math.pi ** 2 * (kx ** 2 + ky ** 2)
    inv_lap = np.where(lap > 0, 1.0 / np.where(lap > 0, lap, 1.0), 0.0)
    k_max = n // 2
    dealias = ((np.abs(kx) <= 2.0 / 3.0 * k_max) & (np.abs(ky) <= 2.0 / 3.0 * k_max)).astype(np.float64)
    dx, dy = 2j * math.pi * kx, 2j * math.pi * ky
    f_h = np.zeros_like(lap, dtype=complex) if forcing is None else np.fft.rfft2(np.asarray(forcing, np.float64))

    def tendency(w_h):
        """`-u . grad w + f` in Fourier space (de-aliased)."""
        psi_h = w_h * inv_lap
        u = np.fft.irfft2(dy * psi_h, s=(n, n))
        v = np.fft.irfft2(-dx * psi_h, s=(n, n))
        w_x = np.fft.irfft2(dx * w_h, s=(n, n))
        w_y = np.fft.irfft2(dy * w_h, s=(n, n))
        return -dealias * np.fft.rfft2(u * w_x + v * w_y) + f_h

    half = 0.5 * h * viscosity * lap
    implicit, explicit = 1.0 / (1.0 + half), 1.0 - half
    w_h = np.fft.rfft2(w0)
    out = np.empty(w0.shape[:-2] + (record_steps, n, n))
    previous = None
    # a blow-up (dt too large) is reported once, below, not by numpy's overflow warnings on the way
    with _progress(record_steps * steps_per_record, "Navier-Stokes steps", progress) as bar, \
            np.errstate(over="ignore", invalid="ignore"):
        for r in range(record_steps):
            for _ in range(steps_per_record):
                current = tendency(w_h)
                if previous is None:   # Heun: predictor with Euler, corrector with the mean tendency
                    predicted = (explicit * w_h + h * current) * implicit
                    increment = 0.5 * (current + tendency(predicted))
                else:
                    increment = 1.5 * current - 0.5 * previous
                w_h = (explicit * w_h + h * increment) * implicit
                previous = current
                bar.update(1)
            out[..., r, :, :] = np.fft.irfft2(w_h, s=(n, n))
            if not np.isfinite(out[..., r, :, :]).all():
                raise ValueError(f"solve_navier_stokes: the vorticity is no longer finite at t = "
                                 f"{(r + 1) * final_time / record_steps:g} with dt = {dt:g}: take a smaller dt")
    return out


def navier_stokes_data(num: int, resolution: int = 64, *, t_in: int = 10, t_out: int = 10, viscosity: float = 1e-3,
                       dt: float = 5e-3, solver_resolution: int | None = None, alpha: float = 2.5, tau: float = 7.0,
                       seed: int = 0, chunk: int = 25, threads: int | None = None, progress: bool = True,
                       cache: bool = True, cache_directory=None) -> FieldData:
    """`num` Navier-Stokes trajectories: inputs `w(t = 1..t_in)`, outputs `w(t = t_in+1 .. t_in+t_out)`, unit steps.

    The FNO paper's nu = 1e-3 task maps `w` on t in [0, 10) to [10, 50) (t_in = 10, t_out = 40,
    recorded at t = 1..50, solved at 256^2 with dt = 1e-4, subsampled to 64^2); the defaults here
    shorten the horizon to t_out = 10 and solve at the 64^2 of the data (`solver_resolution` may be
    a multiple of `resolution`, subsampled by striding). `chunk` trajectories are solved together,
    `threads` chunks at once (default: the usable cores); the data are the same bits whatever either
    is (each trajectory's transforms are computed alone). 25 keeps a chunk's spectra in cache: 200
    trajectories at 64^2 took 18.5 ms a trajectory and unit time on 2 threads, against 27-29 ms with
    chunks of 100 (41-49 ms on one thread, the earlier default). Returns
    `FieldData` with inputs `[num, t_in, s, s]`, outputs `[num, t_out, s, s]`, coords x, y (torus
    grids `j/s`).
    """
    _check_int("navier_stokes_data", num=(num, 0), resolution=(resolution, 4), t_in=(t_in, 1), t_out=(t_out, 1),
               chunk=(chunk, 1))
    threads = _threads("navier_stokes_data", threads)
    solver_resolution = resolution if solver_resolution is None else solver_resolution
    if solver_resolution % resolution:
        raise ValueError(f"navier_stokes_data: solver_resolution {solver_resolution} is not a multiple of "
                         f"resolution {resolution}")
    stride = solver_resolution // resolution
    total = t_in + t_out
    params = dict(num=num, s=resolution, solver=solver_resolution, t_in=t_in, t_out=t_out, nu=float(viscosity),
                  dt=float(dt), alpha=float(alpha), tau=float(tau), seed=seed)

    def make():
        w0 = periodic_grf_2d(num, solver_resolution, alpha=alpha, tau=tau, seed=seed)
        f = ns_forcing(solver_resolution)

        def solve(w_start):
            w = solve_navier_stokes(w_start, f, viscosity=viscosity, final_time=float(total), dt=dt,
                                    record_steps=total)
            return np.ascontiguousarray(w[..., ::stride, ::stride])

        with _progress(num, "Navier-Stokes trajectories", progress) as bar:
            parts = _solve_chunks(solve, _row_chunks(w0, chunk), threads, bar)
        w = np.concatenate(parts) if parts else np.zeros((0, total, resolution, resolution))
        return {"w": w}

    arrays = cached("navier_stokes", params, make, {"w": (num, total, resolution, resolution)}, cache=cache,
                    directory=cache_directory)
    w = arrays["w"]
    x = torus_grid(resolution)
    return FieldData(w[:, :t_in], w[:, t_in:], {"x": x, "y": x},
                     dict(params, times_in=list(range(1, t_in + 1)), times_out=list(range(t_in + 1, total + 1))))


# -- Burgers in space-time -----------------------------------------------------------------------------------------
def solve_burgers_spacetime(u0: np.ndarray, *, viscosity: float = 0.01, nt: int = 101, final_time: float = 1.0,
                            dt: float = 1e-3) -> np.ndarray:
    """`u(x, t_j)` at `t_j = j final_time / (nt - 1)`, j = 0..nt-1, from `u0: (..., n)` (periodic on [0, 1)).

    The ETDRK4 pseudo-spectral solver `pino.data.solve_burgers` advanced record to record (each
    interval with a whole number of steps of at most `dt`). Returns `(..., nt, n)`, float64.
    """
    u = np.asarray(u0, dtype=np.float64)
    _check_int("solve_burgers_spacetime", nt=(nt, 2))
    out = np.empty(u.shape[:-1] + (nt, u.shape[-1]))
    out[..., 0, :] = u
    interval = final_time / (nt - 1)
    for j in range(1, nt):
        u = solve_burgers(u, viscosity=viscosity, final_time=interval, dt=dt)
        out[..., j, :] = u
    return out


def burgers_pino_data(num: int, resolution: int = 128, *, nt: int = 101, viscosity: float = 0.01,
                      solver_resolution: int = 512, sigma: float = 25.0, tau: float = 5.0, alpha: float = 2.0,
                      dt: float = 5e-4, seed: int = 0, chunk: int = 100, threads: int | None = None,
                      progress: bool = True, cache: bool = True, cache_directory=None) -> FieldData:
    """`num` pairs `u0 -> u(x, t)` of Burgers with viscosity 0.01 on [0, 1) x [0, 1] (the PINO paper's Burgers task).

    Initial conditions from `N(0, 625 (-Laplacian + 25 I)^-2)` (sigma 25, tau 5, alpha 2, periodic, zero
    mean) drawn on the solver grid; solved there (`solve_burgers_spacetime`) and subsampled to
    `resolution` points (the PINO paper's data is 128 x 101). Returns `FieldData` with inputs
    `[num, 1, nt, s]` (u0 repeated along t, the layout a space-time FNO2d takes) and outputs
    `[num, 1, nt, s]`; coords t (nt points on [0, 1]), x (s points j/s). `chunk` samples are solved
    together, `threads` chunks at once (default: the usable cores; the same data whatever it is).
    """
    _check_int("burgers_pino_data", num=(num, 0), resolution=(resolution, 4), nt=(nt, 2), chunk=(chunk, 1))
    threads = _threads("burgers_pino_data", threads)
    if solver_resolution % resolution:
        raise ValueError(f"burgers_pino_data: solver_resolution {solver_resolution} is not a multiple of "
                         f"resolution {resolution}")
    stride = solver_resolution // resolution
    params = dict(num=num, s=resolution, nt=nt, nu=float(viscosity), solver=solver_resolution, sigma=float(sigma),
                  tau=float(tau), alpha=float(alpha), dt=float(dt), seed=seed)

    def make():
        u0 = gaussian_random_field(num, solver_resolution, sigma=sigma, tau=tau, alpha=alpha, seed=seed)
        with _progress(num, "Burgers trajectories", progress) as bar:
            parts = _solve_chunks(lambda u: np.ascontiguousarray(
                solve_burgers_spacetime(u, viscosity=viscosity, nt=nt, dt=dt)[..., ::stride]),
                _row_chunks(u0, chunk), threads, bar)
        return {"u": np.concatenate(parts) if parts else np.zeros((0, nt, resolution))}

    arrays = cached("burgers_pino", params, make, {"u": (num, nt, resolution)}, cache=cache,
                    directory=cache_directory)
    u = arrays["u"]
    inputs = np.broadcast_to(u[:, None, :1, :], (num, 1, nt, resolution)).copy()
    return FieldData(inputs, u[:, None], {"t": np.linspace(0.0, 1.0, nt), "x": torus_grid(resolution)}, params)
