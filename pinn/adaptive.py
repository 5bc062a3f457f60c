"""What changes during PINN training: adaptive loss weights, residual-based refinement, resampling.

Callbacks for `pinn.train(..., callbacks=[...])` on a `pinn.PDE` problem, each run every `period`
Adam steps (DeepXDE's `model.train(callbacks=...)`):

- `GradientNormBalancing(period, alpha)`: Wang, Teng & Perdikaris (2021), "Understanding and
  mitigating gradient pathologies in PINNs", Algorithm 1 (learning-rate annealing): for each
  condition term i, lambda_hat_i = max |grad_theta L_r| / mean |grad_theta (lambda_i L_i)| (L_r
  the first residual term, the gradients over the network's parameters) and
  lambda_i <- (1 - alpha) lambda_i + alpha lambda_hat_i with alpha = 0.1. As in the authors' code
  (GradientPathologiesPINNs, Helmholtz2D_model_tf.py: the gradient of the *weighted* boundary loss,
  and the running average keeping 0.9 of the old value) the weight settles where
  lambda^2 = max|grad L_r| / mean|grad L_i|; with the unweighted gradient instead it grows without
  bound once the condition is met (measured: 5e6 after 600 steps of a 2-D Poisson problem, which
  then collapsed to u = 0). The residual weights stay as given.
- `RAR(period, num_candidates, top_k, rounds, threshold)`: residual-based adaptive refinement
  (Lu et al., DeepXDE's RAR examples): draw a dense candidate set, evaluate |residual| there and
  add the `top_k` worst points to the domain points; stop after `rounds` rounds or once the
  candidates' mean |residual| is below `threshold`.
- `PDEPointResampler(period)`: DeepXDE's callback of that name: new domain points (same count,
  anchors kept) every `period` steps.

The loss weights are a data input of the training graph, so reweighting never recompiles;
refinement changes the number of points and so compiles the step once per round.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import frame
import frame.numpy as fnp

from .problems import ProblemError
from .sampling import as_rng, check_method


@dataclass
class TrainingContext:
    """What a callback sees and may change: `data` (the training data tuple) is replaced in place."""

    problem: Any
    model: Any
    trainer: Any
    data: tuple
    mode: str
    rng: np.random.Generator
    log: list = field(default_factory=list)

    @property
    def params(self):
        return self.trainer.params

    @property
    def step(self) -> int:
        return self.trainer.step_count


class Callback:
    """A periodic action during training: `begin(ctx)` once, `__call__(ctx)` after every `period` steps."""

    def __init__(self, period: int):
        if isinstance(period, bool) or not isinstance(period, (int, np.integer)) or period < 1:
            raise ProblemError(f"{type(self).__name__}: period must be a positive int, got {period!r}")
        self.period = int(period)
        self.history: list = []

    def check(self, problem) -> None:
        if not hasattr(problem, "with_domain_points"):
            raise ProblemError(f"{type(self).__name__} needs a pinn.PDE problem, got {type(problem).__name__}")

    def begin(self, ctx: TrainingContext) -> None:
        pass

    def __call__(self, ctx: TrainingContext) -> None:
        raise NotImplementedError


def _abs_max_and_mean(tree):
    """(max |leaf entries|, mean |leaf entries|) over every leaf of a pytree of tracers."""
    leaves = frame.tree_leaves(tree)
    top, total, count = None, None, 0
    for leaf in leaves:
        a = fnp.abs(leaf)
        m, s = fnp.max(a), fnp.sum(a)
        top = m if top is None else fnp.maximum(top, m)
        total = s if total is None else total + s
        count += int(np.prod(leaf.shape))
    return top, total / count


class GradientNormBalancing(Callback):
    """Adaptive condition weights from gradient norms (Wang, Teng & Perdikaris 2021; see the module doc).

    `history` holds (step, weights) after each update."""

    def __init__(self, period: int = 100, alpha: float = 0.1):
        super().__init__(period)
        if not (isinstance(alpha, (int, float)) and 0 < alpha <= 1):
            raise ProblemError(f"GradientNormBalancing: alpha must be in (0, 1], got {alpha!r}")
        self.alpha = float(alpha)
        self._stats = None

    def begin(self, ctx):
        problem, apply, mode = ctx.problem, ctx.model.apply, ctx.mode
        n = problem.num_terms

        def stats(params, x, *arrays):
            out = []
            for i in range(n):
                grads = frame.grad(lambda p, i=i: problem.terms(apply, p, x, arrays, mode)[i])(params)
                top, mean = _abs_max_and_mean(problem.network_params(grads))
                out += [top, mean]
            return fnp.stack(out)

        self._stats = frame.function(stats)

    def gradient_statistics(self, ctx) -> np.ndarray:
        """(num_terms, 2): max and mean |d term / d theta| per loss term at the current parameters."""
        data = ctx.data
        return np.asarray(self._stats(ctx.params, data[0], *data[2:]), dtype=np.float64).reshape(-1, 2)

    def __call__(self, ctx):
        problem = ctx.problem
        s = self.gradient_statistics(ctx)
        weights = np.asarray(ctx.data[1], dtype=np.float64).copy()
        reference = s[0, 0]
        for i in range(problem.n_residuals, problem.num_terms):
            weighted_mean = weights[i] * s[i, 1]     # mean |grad (lambda_i L_i)|
            if weighted_mean > 0 and np.isfinite(weighted_mean):
                weights[i] = (1 - self.alpha) * weights[i] + self.alpha * reference / weighted_mean
        ctx.data = problem.with_weights(ctx.data, weights)
        self.history.append((ctx.step, weights.tolist()))


class RAR(Callback):
    """Residual-based adaptive refinement: every `period` steps add the `top_k` candidates (of
    `num_candidates` drawn with `random`) with the largest |residual| to the domain points.

    `history` holds (step, mean |residual| over the candidates, domain points after the round)."""

    def __init__(self, period: int = 1000, num_candidates: int = 10000, top_k: int = 10, rounds: int | None = None,
                 threshold: float | None = None, random: str = "pseudo"):
        super().__init__(period)
        for name, v in (("num_candidates", num_candidates), ("top_k", top_k)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ProblemError(f"RAR: {name} must be a positive int, got {v!r}")
        if top_k > num_candidates:
            raise ProblemError(f"RAR: top_k ({top_k}) exceeds num_candidates ({num_candidates})")
        if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 0):
            raise ProblemError(f"RAR: rounds must be a non-negative int or None, got {rounds!r}")
        self.num_candidates, self.top_k = int(num_candidates), int(top_k)
        self.rounds, self.threshold = rounds, threshold
        self.random = check_method(random)
        self.done = 0
        self.stopped = False
        self._residual = None

    def begin(self, ctx):
        problem, apply, mode = ctx.problem, ctx.model.apply, ctx.mode
        self._residual = frame.function(lambda params, x: problem.pointwise_residual(apply, params, x, mode))

    def residual_at(self, ctx, x: np.ndarray) -> np.ndarray:
        """sum_i |residual_i| at points x (N,) (compiled once for the candidates' shape)."""
        x = np.asarray(x, dtype=ctx.problem.dtype)
        return np.asarray(self._residual(ctx.params, x), dtype=np.float64).reshape(-1)

    def __call__(self, ctx):
        if self.stopped or (self.rounds is not None and self.done >= self.rounds):
            return
        problem = ctx.problem
        candidates = problem.geometry.random_points(self.num_candidates, self.random, ctx.rng)
        r = self.residual_at(ctx, candidates)
        mean = float(np.mean(r))
        if self.threshold is not None and mean < self.threshold:
            self.stopped = True
            self.history.append((ctx.step, mean, len(ctx.data[0])))
            return
        worst = np.argsort(r)[-self.top_k:]
        x = np.concatenate([ctx.data[0], candidates[worst].astype(problem.dtype)])
        ctx.data = problem.with_domain_points(ctx.data, x)
        self.done += 1
        self.history.append((ctx.step, mean, len(x)))


class PDEPointResampler(Callback):
    """Fresh domain points every `period` steps (DeepXDE's `PDEPointResampler`; anchors kept)."""

    def __call__(self, ctx):
        x = ctx.problem.domain_points(seed=ctx.rng)
        ctx.data = ctx.problem.with_domain_points(ctx.data, x)
        self.history.append(ctx.step)


class TrainerCallbacks:
    """pinn's callbacks as one `frame.train.Trainer.run` callback, and the batches they change.

    `Trainer.run(adapter.batches(), steps, callbacks=[adapter])`: after every step, each pinn
    callback whose `period` divides the steps this run has taken runs on the context (`begin(ctx)`
    ran once, here). None runs after the run's last step: L-BFGS then trains on the data, weights
    and points they left. `batches()` yields `ctx.data` afresh before every step, so what a
    callback put there trains from the next step on.
    """

    def __init__(self, ctx: TrainingContext, callbacks, steps: int):
        self.ctx, self.callbacks, self.steps = ctx, list(callbacks), int(steps)
        self.start = ctx.trainer.step_count
        for cb in self.callbacks:
            cb.begin(ctx)

    def batches(self):
        """The training data for every step: whatever `ctx.data` is when the step starts."""
        while True:
            yield self.ctx.data

    def __call__(self, step, loss, trainer):
        done = step - self.start
        if done >= self.steps:
            return None
        for cb in self.callbacks:
            if done % cb.period == 0:
                cb(self.ctx)
        return None


def run_with_callbacks(ctx: TrainingContext, steps: int, callbacks, *, measure=None, extra=(),
                       **run_options) -> None:
    """Take `steps` Adam steps of `ctx.trainer` on `ctx.data` with pinn's `callbacks` running every
    `period` steps (`TrainerCallbacks`); `measure(step, loss, trainer)` (with a `period`) runs before
    them at its own period, the plain `Trainer.run` callbacks `extra` after them; `run_options` go to
    `Trainer.run` (progress, checkpoint, ...)."""
    adapter = TrainerCallbacks(ctx, callbacks, steps)
    ctx.trainer.run(adapter.batches(), steps,
                    callbacks=([measure] if measure is not None else []) + [adapter, *extra], **run_options)


def as_rng_for(seed) -> np.random.Generator:
    """The generator callbacks draw from: seeded from the training seed, apart from the data's stream."""
    return as_rng(np.random.SeedSequence([int(seed), 4242]).generate_state(1)[0])
