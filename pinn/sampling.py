"""Point samplers for PINN training sets: pseudo-random, Latin hypercube, Sobol, Halton, Hammersley.

`sample(n, dim, method, seed)` returns n points in the unit cube [0, 1)^dim, the names being
DeepXDE's `random=` values ("pseudo": independent uniform draws, "LHS", "Halton", "Hammersley",
"Sobol"). Evenly spaced grids are the geometries' `uniform_points`, as in DeepXDE (where
`train_distribution="uniform"` means the grid). The quasi-random ones come from
`scipy.stats.qmc`, scrambled and seeded, so a seed gives the same points on every run and
different seeds give different (equally low-discrepancy) point sets. Geometries scale these
points into their bounding box and reject the ones outside (`rejection_sample`); boundaries
sample a 1-D perimeter parameter with the same samplers (`pinn.geometry`).

scipy is imported on first use (it is a dependency of `frame.train` already).
"""
from __future__ import annotations

import warnings
from typing import Callable

import numpy as np

from frame.errors import FrameError


class SamplingError(FrameError, ValueError):
    """A sampler was asked for something it cannot give (unknown method, bad count or dimension)."""


#: DeepXDE's names of the samplers, and the aliases accepted for them (matched case-insensitively).
METHODS = ("pseudo", "LHS", "Halton", "Hammersley", "Sobol")
_ALIASES = {"pseudo": "pseudo", "random": "pseudo", "lhs": "LHS", "latin": "LHS",
            "latin_hypercube": "LHS", "halton": "Halton", "hammersley": "Hammersley", "sobol": "Sobol"}


def check_method(method) -> str:
    """The canonical name of sampler `method`; a `SamplingError` listing the choices otherwise."""
    if not isinstance(method, str) or method.lower() not in _ALIASES:
        raise SamplingError(f"unknown sampler {method!r}; choose one of {', '.join(METHODS)}")
    return _ALIASES[method.lower()]


def check_count(name: str, n, minimum: int = 0) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < minimum:
        raise SamplingError(f"{name} must be an int >= {minimum}, got {n!r}")
    return int(n)


def as_rng(seed) -> np.random.Generator:
    """A numpy Generator from an int seed, a Generator (used as is) or None (fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise SamplingError(f"seed must be an int, a numpy Generator or None, got {seed!r}")


class Sampler:
    """A stream of points in [0, 1)^dim: `draw(n)` continues the sequence (quasi-random engines keep
    their low discrepancy across draws, which rejection sampling relies on)."""

    def __init__(self, dim: int, method: str = "pseudo", seed=None):
        self.dim = check_count("sampler dim", dim, 1)
        self.method = check_method(method)
        self.rng = as_rng(seed)
        self._drawn = 0
        from scipy.stats import qmc

        # Each engine gets its own seed drawn from the generator, so one seed fixes the whole stream.
        engine_seed = int(self.rng.integers(2 ** 63 - 1))
        if self.method == "LHS":
            self._engine = qmc.LatinHypercube(d=self.dim, seed=engine_seed)
        elif self.method == "Halton":
            self._engine = qmc.Halton(d=self.dim, scramble=True, seed=engine_seed)
        elif self.method == "Sobol":
            self._engine = qmc.Sobol(d=self.dim, scramble=True, seed=engine_seed)
        elif self.method == "Hammersley" and self.dim > 1:
            # Hammersley is Halton in dim - 1 dimensions plus the evenly spaced coordinate (i + 1/2)/n,
            # which needs n in advance: the first draw fixes it (see `draw`).
            self._engine = qmc.Halton(d=self.dim - 1, scramble=True, seed=engine_seed)
        else:
            self._engine = None

    def draw(self, n: int) -> np.ndarray:
        """The next `n` points, shape (n, dim), float64 in [0, 1)."""
        n = check_count("number of points", n)
        if n == 0:
            return np.zeros((0, self.dim))
        if self.method == "pseudo" or (self.method == "Hammersley" and self.dim == 1 and self._drawn):
            points = self.rng.random((n, self.dim))
        elif self.method == "Hammersley":
            # (i + 1/2) / n for the first coordinate; a later draw (rejection sampling asking for
            # more) is shifted randomly so it does not repeat the first draw's coordinates.
            offset = 0.5 if not self._drawn else self.rng.random()
            first = ((np.arange(n) + offset) / n).reshape(-1, 1)
            points = first if self.dim == 1 else np.hstack([first, self._engine.random(n)])
        else:
            with warnings.catch_warnings():
                # Sobol's balance properties want powers of two; any n is still a valid low-discrepancy set.
                warnings.filterwarnings("ignore", message=".*balance properties.*")
                points = self._engine.random(n)
        self._drawn += n
        return np.asarray(points, dtype=np.float64)


def sample(n: int, dim: int, method: str = "pseudo", seed=None) -> np.ndarray:
    """`n` points in the unit cube [0, 1)^dim from sampler `method` (see `METHODS`), seeded."""
    return Sampler(dim, method, seed).draw(n)


def scale_to_box(points: np.ndarray, lower, upper) -> np.ndarray:
    """Unit-cube points mapped affinely onto the box [lower, upper]."""
    lower, upper = np.asarray(lower, np.float64), np.asarray(upper, np.float64)
    return lower + points * (upper - lower)


def rejection_sample(n: int, lower, upper, inside: Callable[[np.ndarray], np.ndarray], method: str = "pseudo",
                     seed=None, max_rounds: int = 64) -> np.ndarray:
    """`n` points of the box [lower, upper] for which `inside(points)` is True, drawn from `method`.

    Points come from one sampler stream scaled into the box, and the ones outside are dropped; each
    round draws about the number still missing divided by the acceptance rate seen so far. The surplus
    of the accepted points is thinned at random (`thin`), never cut from the end: a quasi-random stream
    is ordered (Hammersley's first coordinate rises with the index), so its first n accepted points
    would leave out the region's far side. A region so thin that `max_rounds` rounds do not fill it is
    a `SamplingError` (not an endless loop)."""
    n = check_count("number of points", n)
    lower, upper = np.asarray(lower, np.float64).reshape(-1), np.asarray(upper, np.float64).reshape(-1)
    sampler = Sampler(len(lower), method, seed)
    kept, have, drawn, accepted = [], 0, 0, 0
    for _ in range(max_rounds):
        if have >= n:
            break
        rate = accepted / drawn if drawn else 0.5
        m = int(np.ceil((n - have) / max(rate, 1e-3) * 1.1)) + 8
        batch = scale_to_box(sampler.draw(m), lower, upper)
        ok = np.asarray(inside(batch), dtype=bool).reshape(-1)
        drawn, accepted = drawn + m, accepted + int(ok.sum())
        kept.append(batch[ok])
        have += int(ok.sum())
    if have < n:
        raise SamplingError(f"rejection sampling found only {have} of {n} points inside the region after "
                            f"{drawn} draws from its bounding box {lower.tolist()}..{upper.tolist()} "
                            "(is the region empty or very thin?)")
    return thin(np.concatenate(kept), n, sampler.rng)


def thin(points: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """`n` of `points` (rows) chosen uniformly at random, in their order: an unbiased subset of a sampled
    set, which taking the first n of an ordered (quasi-random) sequence is not."""
    if len(points) <= n:
        return points
    return points[np.sort(rng.choice(len(points), size=n, replace=False))]


def discrepancy(points: np.ndarray, lower=None, upper=None) -> float:
    """The centred L2 discrepancy (`scipy.stats.qmc.discrepancy`) of points in a box (default: the unit cube)."""
    from scipy.stats import qmc

    points = np.asarray(points, np.float64)
    if lower is not None:
        points = (points - np.asarray(lower, np.float64)) / (np.asarray(upper, np.float64) - np.asarray(lower))
    return float(qmc.discrepancy(np.clip(points, 0.0, 1.0)))
