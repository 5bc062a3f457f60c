"""frame.optax's stateful scalings: momentum (`trace`), Adam and its relatives, RMSProp, Adagrad, AdaBelief,
Lion, and gradient noise."""
from __future__ import annotations

import numpy as _np

from .. import random as _random
from ..errors import InputError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype
from ..frontend.pytree import tree_leaves, tree_map
from ._base import (AddNoiseState, GradientTransformation, ScaleByAdamState, ScaleByAmsgradState, ScaleByBeliefState,
                    ScaleByLionState, ScaleByRmsState, ScaleByRmsWithCountState, ScaleByRssState, ScaleByRStdDevState,
                    ScaleByRStdDevWithCountState, TraceState, _check_number, _count0, _debias, _ema, _full_like,
                    _nesterov_mu, _rsqrt, _zeros_like, safe_increment)


# -- momentum and adaptive scalings

def trace(decay, nesterov: bool = False) -> GradientTransformation:
    """Momentum: t <- g + decay t; the update is t (or g + decay t with Nesterov)."""
    _check_number(decay, "trace", "decay")

    def update(updates, state, params=None):
        new = tree_map(lambda g, t: g + decay * t, updates, state.trace)
        out = tree_map(lambda g, t: g + decay * t, updates, new) if nesterov else new
        return out, TraceState(new)
    return GradientTransformation(lambda params: TraceState(_zeros_like(params)), update)


def _check_rates(fn: str, **rates):
    for name, value in rates.items():
        _check_number(value, fn, name)


def scale_by_adam(b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, *, nesterov: bool = False) -> GradientTransformation:
    """Adam's scaling: bias-corrected m_hat / (sqrt(v_hat + eps_root) + eps)."""
    _check_rates("scale_by_adam", b1=b1, b2=b2, eps=eps, eps_root=eps_root)

    def init(params):
        return ScaleByAdamState(_count0(), _zeros_like(params), _zeros_like(params))

    def update(updates, state, params=None):
        mu, nu = _ema(updates, state.mu, b1), _ema(updates, state.nu, b2, square=True)
        count = safe_increment(state.count)
        mu_hat = _nesterov_mu(mu, updates, b1, count) if nesterov else _debias(mu, b1, count)
        nu_hat = _debias(nu, b2, count)
        new = tree_map(lambda m, v: m / (fnp.sqrt(v + eps_root) + eps), mu_hat, nu_hat)
        return new, ScaleByAdamState(count, mu, nu)
    return GradientTransformation(init, update)


def scale_by_amsgrad(b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, bias_correction_mu: bool = True,
                     bias_correction_nu: bool = True) -> GradientTransformation:
    """AMSGrad: Adam with the running maximum of the (bias-corrected) second moment."""
    _check_rates("scale_by_amsgrad", b1=b1, b2=b2, eps=eps, eps_root=eps_root)

    def init(params):
        return ScaleByAmsgradState(_count0(), _zeros_like(params), _zeros_like(params), _zeros_like(params))

    def update(updates, state, params=None):
        mu, nu = _ema(updates, state.mu, b1), _ema(updates, state.nu, b2, square=True)
        count = safe_increment(state.count)
        mu_hat = _debias(mu, b1, count) if bias_correction_mu else mu
        nu_eff = _debias(nu, b2, count) if bias_correction_nu else nu
        nu_max = tree_map(fnp.maximum, state.nu_max, nu_eff)
        new = tree_map(lambda m, v: m / (fnp.sqrt(v + eps_root) + eps), mu_hat, nu_max)
        return new, ScaleByAmsgradState(count, mu, nu, nu_max)
    return GradientTransformation(init, update)


def scale_by_adamax(b1=0.9, b2=0.999, eps=1e-8) -> GradientTransformation:
    """Adamax: m_hat / u with u <- max(|g| + eps, b2 u), the infinity-norm moment."""
    _check_rates("scale_by_adamax", b1=b1, b2=b2, eps=eps)

    def init(params):
        return ScaleByAdamState(_count0(), _zeros_like(params), _zeros_like(params))

    def update(updates, state, params=None):
        count = safe_increment(state.count)
        mu = _ema(updates, state.mu, b1)
        nu = tree_map(lambda g, u: fnp.maximum(fnp.abs(g) + eps, b2 * u), updates, state.nu)
        new = tree_map(lambda m, u: m / u, _debias(mu, b1, count), nu)
        return new, ScaleByAdamState(count, mu, nu)
    return GradientTransformation(init, update)


def scale_by_rss(initial_accumulator_value=0.1, eps=1e-7) -> GradientTransformation:
    """Adagrad's scaling: g / sqrt(sum of g^2 + eps), 0 where the sum is 0."""
    _check_rates("scale_by_rss", initial_accumulator_value=initial_accumulator_value, eps=eps)

    def update(updates, state, params=None):
        acc = tree_map(lambda g, s: g * g + s, updates, state.sum_of_squares)
        new = tree_map(lambda s, g: fnp.where(s > 0, _rsqrt(s + eps), 0.0) * g, acc, updates)
        return new, ScaleByRssState(acc)
    return GradientTransformation(lambda params: ScaleByRssState(_full_like(params, initial_accumulator_value)),
                                  update)


def _rms_scaling(eps, eps_in_sqrt):
    if eps_in_sqrt:
        return lambda var: _rsqrt(var + eps)
    return lambda var: 1 / (fnp.sqrt(var) + eps)


def scale_by_rms(decay=0.9, eps=1e-8, initial_scale=0.0, eps_in_sqrt: bool = True,
                 bias_correction: bool = False) -> GradientTransformation:
    """RMSProp's scaling: g / sqrt(nu + eps), nu the moving average of g^2."""
    _check_rates("scale_by_rms", decay=decay, eps=eps, initial_scale=initial_scale)
    scaling = _rms_scaling(eps, eps_in_sqrt)

    def init(params):
        nu = _full_like(params, initial_scale)
        return ScaleByRmsWithCountState(_count0(), nu) if bias_correction else ScaleByRmsState(nu)

    def update(updates, state, params=None):
        nu = _ema(updates, state.nu, decay, square=True)
        if bias_correction:
            count = safe_increment(state.count)
            nu_hat = _debias(nu, decay, count)
        else:
            nu_hat = nu
        new = tree_map(lambda n, g: scaling(n) * g, nu_hat, updates)
        return new, (ScaleByRmsWithCountState(count, nu) if bias_correction else ScaleByRmsState(nu))
    return GradientTransformation(init, update)


def scale_by_stddev(decay=0.9, eps=1e-8, initial_scale=0.0, eps_in_sqrt: bool = True,
                    bias_correction: bool = False) -> GradientTransformation:
    """Centered RMSProp's scaling: g / sqrt(nu - mu^2 + eps), mu and nu moving averages of g and g^2."""
    _check_rates("scale_by_stddev", decay=decay, eps=eps, initial_scale=initial_scale)
    scaling = _rms_scaling(eps, eps_in_sqrt)

    def init(params):
        mu, nu = _zeros_like(params), _full_like(params, initial_scale)
        return ScaleByRStdDevWithCountState(_count0(), mu, nu) if bias_correction else ScaleByRStdDevState(mu, nu)

    def update(updates, state, params=None):
        mu, nu = _ema(updates, state.mu, decay), _ema(updates, state.nu, decay, square=True)
        if bias_correction:
            count = safe_increment(state.count)
            mu_hat, nu_hat = _debias(mu, decay, count), _debias(nu, decay, count)
        else:
            mu_hat, nu_hat = mu, nu
        new = tree_map(lambda m, n, g: scaling(n - m * m) * g, mu_hat, nu_hat, updates)
        return new, (ScaleByRStdDevWithCountState(count, mu, nu) if bias_correction else ScaleByRStdDevState(mu, nu))
    return GradientTransformation(init, update)


def scale_by_belief(b1=0.9, b2=0.999, eps=1e-16, eps_root=1e-16, *, nesterov: bool = False) -> GradientTransformation:
    """AdaBelief: Adam with the moving variance of the prediction error g - m in place of g^2."""
    _check_rates("scale_by_belief", b1=b1, b2=b2, eps=eps, eps_root=eps_root)

    def init(params):
        return ScaleByBeliefState(_count0(), _zeros_like(params), _zeros_like(params))

    def update(updates, state, params=None):
        mu = _ema(updates, state.mu, b1)
        err = tree_map(lambda g, m: g - m, updates, mu)
        nu = tree_map(lambda s: s + eps_root, _ema(err, state.nu, b2, square=True))
        count = safe_increment(state.count)
        mu_hat = _nesterov_mu(mu, updates, b1, count) if nesterov else _debias(mu, b1, count)
        new = tree_map(lambda m, v: m / (fnp.sqrt(v) + eps), mu_hat, _debias(nu, b2, count))
        return new, ScaleByBeliefState(count, mu, nu)
    return GradientTransformation(init, update)


def scale_by_lion(b1=0.9, b2=0.99, *, mode: str = "hard", smooth_beta: float = 1.0) -> GradientTransformation:
    """Lion: sign((1 - b1) g + b1 m) (tanh-smoothed with mode="smooth", linear inside [-1, 1] with
    mode="refined"); m <- moving average of g with rate b2."""
    _check_rates("scale_by_lion", b1=b1, b2=b2, smooth_beta=smooth_beta)
    shapes = {"hard": fnp.sign, "smooth": lambda x: fnp.tanh(smooth_beta * x),
              "refined": lambda x: fnp.where(fnp.abs(x) < 1.0, x, fnp.sign(x))}
    if mode not in shapes:
        raise InputError(f"frame.optax.scale_by_lion: mode must be 'hard', 'smooth' or 'refined', got {mode!r}")

    def update(updates, state, params=None):
        new = tree_map(lambda g, m: shapes[mode]((1.0 - b1) * g + b1 * m), updates, state.mu)
        return new, ScaleByLionState(safe_increment(state.count), _ema(updates, state.mu, b2))
    return GradientTransformation(lambda params: ScaleByLionState(_count0(), _zeros_like(params)), update)


def add_noise(eta, gamma, key) -> GradientTransformation:
    """Adds Gaussian noise of variance eta / t^gamma (t the step, from 1) drawn from `key` (a frame.random
    key); the key in the state is split once per step, one subkey per leaf, as optax does."""
    _check_rates("add_noise", eta=eta, gamma=gamma)
    if key is None:
        raise InputError("frame.optax.add_noise: give an explicit key (frame.random.PRNGKey(seed))")
    key = _random.PRNGKey(key) if isinstance(key, (int, _np.integer)) and not isinstance(key, bool) else key
    key = _random.key_data(key)

    def update(updates, state, params=None):
        count = safe_increment(state.count)
        std = fnp.sqrt(eta / count ** gamma)
        pair = _random.split(state.rng_key)
        leaves = tree_leaves(updates)
        keys = _random.split(pair[1], len(leaves))
        noise = iter([_random.normal(keys[i], fnp.shape(g), _dtype(g)) for i, g in enumerate(leaves)])
        return tree_map(lambda g: g + std * next(noise), updates), AddNoiseState(count, pair[0])
    return GradientTransformation(lambda params: AddNoiseState(_count0(), key), update)
