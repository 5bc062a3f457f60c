"""frame.optax's wrappers and less common transformations: gradient accumulation (`MultiSteps`),
`apply_if_finite`, `zero_nans`, `keep_params_nonnegative`, `centralize`, block clipping and scaling, `ema`, and the
scalings behind adadelta, adan, yogi, radam, rprop, sm3, novograd and adafactor. optax's `lax.cond`s become
`where`s over both branches (so everything traces to one graph); a branch that is not taken may hold nan/inf,
which `where` drops from the values."""
from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple

import numpy as _np

from ..errors import InputError, ShapeError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype
from ..frontend.pytree import tree_leaves, tree_map
from ._base import (EmptyState, GradientTransformation, ScaleByAdamState, _check_number, _count0, _debias, _ema,
                    _full_like, _init_empty, _need_params, _nesterov_mu, _rsqrt, _safe_norm, _zeros_like,
                    safe_increment)
from ._scaling import _check_rates

NonNegativeParamsState = EmptyState


class ZeroNansState(NamedTuple):
    found_nan: Any


class EmaState(NamedTuple):
    count: Any
    ema: Any


class ApplyIfFiniteState(NamedTuple):
    notfinite_count: Any
    last_finite: Any
    total_notfinite: Any
    inner_state: Any


class MultiStepsState(NamedTuple):
    mini_step: Any
    gradient_step: Any
    inner_opt_state: Any
    acc_grads: Any
    skip_state: Any = ()


class ScaleByAdaDeltaState(NamedTuple):
    e_g: Any
    e_x: Any


class ScaleByAdanState(NamedTuple):
    m: Any
    v: Any
    n: Any
    g: Any
    t: Any


class ScaleByRpropState(NamedTuple):
    step_sizes: Any
    prev_updates: Any


class ScaleBySM3State(NamedTuple):
    mu: Any
    nu: Any


class ScaleByNovogradState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


class FactoredState(NamedTuple):
    count: Any
    v_row: Any
    v_col: Any
    v: Any


def _select(cond, a, b):
    """Tree-wise where(cond, a, b), each leaf kept in b's dtype."""
    return tree_map(lambda x, y: fnp.astype(fnp.where(cond, x, y), _dtype(y)), a, b)


def _all_finite(tree):
    leaves = tree_leaves(tree)
    if not leaves:
        return fnp.asarray(True)
    return functools.reduce(fnp.logical_and, [fnp.all(fnp.isfinite(x)) for x in leaves])


# -- stateless transformations

def zero_nans() -> GradientTransformation:
    """Replaces nans in the updates by 0; the state records, per leaf, whether it had any."""
    def update(updates, state, params=None):
        return (tree_map(lambda g: fnp.where(fnp.isnan(g), fnp.zeros_like(g), g), updates),
                ZeroNansState(tree_map(lambda g: fnp.any(fnp.isnan(g)), updates)))
    return GradientTransformation(lambda params: ZeroNansState(tree_map(lambda p: fnp.asarray(False), params)), update)


def keep_params_nonnegative() -> GradientTransformation:
    """Changes the updates so that no param goes below 0 (an update taking p + u < 0 becomes -p)."""
    def update(updates, state, params=None):
        _need_params(params, "keep_params_nonnegative")
        return tree_map(lambda u, p: fnp.where(p + u < 0.0, -p, u), updates, params), state
    return GradientTransformation(_init_empty, update)


def centralize() -> GradientTransformation:
    """Gradient centralisation: subtracts from each leaf of rank >= 2 its mean over all axes but the first."""
    def one(g):
        nd = fnp.ndim(g)
        return g - fnp.mean(g, axis=tuple(range(1, nd)), keepdims=True) if nd > 1 else g
    return GradientTransformation(_init_empty,
                                  lambda updates, state, params=None: (tree_map(one, updates), state))


def clip_by_block_rms(threshold) -> GradientTransformation:
    """Scales each leaf down so its root mean square is at most `threshold`."""
    _check_number(threshold, "clip_by_block_rms", "threshold")

    def one(u):
        return u / fnp.maximum(1.0, fnp.sqrt(fnp.mean(u * u)) / threshold)
    return GradientTransformation(_init_empty,
                                  lambda updates, state, params=None: (tree_map(one, updates), state))


def _unitwise_norm(x, axis):
    # per-unit norms: all but the output axis of dense (IO, or multi-head) and conv (HWIO, DHWIO) kernels
    nd = fnp.ndim(x)
    if axis is None:
        squeezed = sum(1 for d in fnp.shape(x) if d != 1)
        if squeezed <= 1:
            axis = None
        elif nd in (2, 3):
            axis = 0
        elif nd in (4, 5):
            axis = tuple(range(nd - 1))
        else:
            raise ShapeError(f"frame.optax.adaptive_grad_clip: expected params of rank 1 to 5, got shape "
                             f"{fnp.shape(x)}; pass axis= to name the reduction axes")
    norm = fnp.sqrt(fnp.sum(x * x, axis=axis, keepdims=True))
    return fnp.broadcast_to(norm, fnp.shape(x))


def adaptive_grad_clip(clipping, eps=1e-3, axis=None) -> GradientTransformation:
    """Adaptive gradient clipping (NFNets): each unit's gradient is scaled down to at most
    clipping * max(|param unit|, eps)."""
    _check_rates("adaptive_grad_clip", clipping=clipping, eps=eps)

    def one(g, p):
        g_norm, max_norm = _unitwise_norm(g, axis), clipping * fnp.maximum(_unitwise_norm(p, axis), eps)
        return fnp.where(g_norm < max_norm, g, g * (max_norm / fnp.maximum(g_norm, 1e-6)))

    def update(updates, state, params=None):
        _need_params(params, "adaptive_grad_clip")
        return tree_map(one, updates, params), state
    return GradientTransformation(_init_empty, update)


def _safe_rms(x, min_rms):
    # max(rms(x), min_rms) with derivative 0 (not nan) where rms(x) <= min_rms
    rms = fnp.sqrt(fnp.mean(x * x))
    small = rms <= min_rms
    safe = fnp.where(small, fnp.ones_like(x), x)
    return fnp.where(small, min_rms, fnp.sqrt(fnp.mean(safe * safe)))


def _scale_by_param_block(name: str, size, min_scale) -> GradientTransformation:
    """Multiplies each leaf's update by size(param leaf, min_scale)."""
    _check_number(min_scale, name, "min_scale")

    def update(updates, state, params=None):
        _need_params(params, name)
        return tree_map(lambda u, p: u * size(p, min_scale), updates, params), state
    return GradientTransformation(_init_empty, update)


def scale_by_param_block_norm(min_scale=1e-3) -> GradientTransformation:
    """Multiplies each leaf's update by max(|param leaf|, min_scale)."""
    return _scale_by_param_block("scale_by_param_block_norm", _safe_norm, min_scale)


def scale_by_param_block_rms(min_scale=1e-3) -> GradientTransformation:
    """Multiplies each leaf's update by max(rms(param leaf), min_scale)."""
    return _scale_by_param_block("scale_by_param_block_rms", _safe_rms, min_scale)


# -- wrappers

def ema(decay, debias: bool = True, accumulator_dtype=None) -> GradientTransformation:
    """Exponential moving average of the updates (bias-corrected with debias=True)."""
    _check_number(decay, "ema", "decay")

    def cast(tree):
        return tree if accumulator_dtype is None else tree_map(lambda x: fnp.astype(x, accumulator_dtype), tree)

    def update(updates, state, params=None):
        new = _ema(updates, state.ema, decay)
        count = safe_increment(state.count)
        return (_debias(new, decay, count) if debias else new), EmaState(count, cast(new))
    return GradientTransformation(lambda params: EmaState(_count0(), cast(_zeros_like(params))), update)


def apply_if_finite(inner: GradientTransformation, max_consecutive_errors: int) -> GradientTransformation:
    """`inner`, except that updates with a nan or inf are replaced by zeros (and `inner`'s state kept) unless
    more than `max_consecutive_errors` have come in a row."""
    def init(params):
        return ApplyIfFiniteState(_count0(), fnp.asarray(True), _count0(), inner.init(params))

    def update(updates, state, params=None):
        finite = _all_finite(updates)
        notfinite = fnp.where(finite, _count0(), safe_increment(state.notfinite_count))
        apply = finite | (notfinite > max_consecutive_errors)
        new, inner_state = inner.update(updates, state.inner_state, params)
        new = _select(apply, new, _zeros_like(updates))
        inner_state = _select(apply, inner_state, state.inner_state)
        total = fnp.where(finite, state.total_notfinite, safe_increment(state.total_notfinite))
        return new, ApplyIfFiniteState(notfinite, finite, total, inner_state)
    return GradientTransformation(init, update)


def skip_not_finite(updates, gradient_step, params):
    """A `MultiSteps` skip test: skip when any update is nan or inf."""
    count = 0
    for x in tree_leaves(updates):
        count = count + fnp.sum(fnp.logical_not(fnp.isfinite(x)))
    count = fnp.asarray(count)
    return count > 0, {"should_skip": count > 0, "num_not_finite": count}


def skip_large_updates(updates, gradient_step, params, max_squared_norm):
    """A `MultiSteps` skip test (bind max_squared_norm with functools.partial): skip when the squared global
    norm of the updates is not below max_squared_norm (nan included)."""
    sq = 0
    for x in tree_leaves(updates):
        sq = sq + fnp.sum(x * x)
    sq = fnp.asarray(sq)
    skip = fnp.logical_not(sq < max_squared_norm)
    return skip, {"should_skip": skip, "norm_squared": sq}


class MultiSteps:
    """Gradient accumulation: `opt` is applied once every k calls (k = every_k_schedule, a number or a
    callable of the gradient step) to the mean (or, use_grad_mean=False, the sum) of the k gradients; the other
    calls return zero updates. `should_skip_update_fn(updates, gradient_step, params) -> (bool, state)` may
    drop a call entirely."""

    def __init__(self, opt: GradientTransformation, every_k_schedule, use_grad_mean: bool = True,
                 should_skip_update_fn: Callable | None = None, accumulator_dtype="float32"):
        if not (isinstance(opt, tuple) and len(opt) == 2 and callable(opt[0]) and callable(opt[1])):
            raise InputError(f"frame.optax.MultiSteps: opt must be a GradientTransformation, got {opt!r}")
        if not callable(every_k_schedule):
            _check_number(every_k_schedule, "MultiSteps", "every_k_schedule", schedule=True)
        self._opt = opt
        self._every_k = every_k_schedule if callable(every_k_schedule) else (lambda step: every_k_schedule)
        self._use_grad_mean = use_grad_mean
        self._skip = should_skip_update_fn
        self._acc_dtype = _np.dtype(accumulator_dtype).name

    @property
    def inner_opt(self) -> GradientTransformation:
        return self._opt

    def _should_skip(self, updates, step, params):
        if self._skip is None:
            return fnp.asarray(False), ()
        skip, skip_state = self._skip(updates, step, params)
        if _dtype(skip) != "bool" or fnp.shape(skip) != ():
            raise InputError(f"frame.optax.MultiSteps: should_skip_update_fn must return a boolean scalar, got "
                             f"dtype {_dtype(skip)} shape {fnp.shape(skip)}")
        return skip, skip_state

    def init(self, params) -> MultiStepsState:
        step = _count0()
        _, skip_state = self._should_skip(_zeros_like(params), step, params)
        acc = tree_map(lambda p: fnp.zeros(fnp.shape(p), dtype=self._acc_dtype), params)
        return MultiStepsState(_count0(), step, self._opt.init(params), acc, skip_state)

    def update(self, updates, state: MultiStepsState, params=None):
        k = self._every_k(state.gradient_step)
        skip, skip_state = self._should_skip(updates, state.gradient_step, params)
        n = state.mini_step
        if self._use_grad_mean:   # running mean: acc + (g - acc) / (n + 1)
            acc = tree_map(lambda g, a: a + (g - a) / (n + 1), updates, state.acc_grads)
        else:
            acc = tree_map(lambda g, a: g + a, updates, state.acc_grads)
        new, inner_state = self._opt.update(tree_map(lambda a, g: fnp.astype(a, _dtype(g)), acc, updates),
                                            state.inner_opt_state, params)
        emit = n == k - 1
        done = MultiStepsState(
            fnp.astype(fnp.remainder(safe_increment(n), k), "int32"),
            fnp.where(emit, safe_increment(state.gradient_step), state.gradient_step),
            _select(emit, inner_state, state.inner_opt_state),
            tree_map(lambda a: fnp.astype(fnp.where(emit, fnp.zeros_like(a), a), self._acc_dtype), acc),
            skip_state)
        new = tree_map(lambda u: fnp.where(emit, u, fnp.zeros_like(u)), new)
        if self._skip is None:
            return new, done
        kept = MultiStepsState(state.mini_step, state.gradient_step, state.inner_opt_state, state.acc_grads,
                               skip_state)
        return _select(skip, _zeros_like(new), new), _select(skip, kept, done)

    def has_updated(self, state):
        """Whether the last call applied the inner optimiser."""
        return (state.mini_step == 0) & (state.gradient_step > 0)

    def gradient_transformation(self) -> GradientTransformation:
        return GradientTransformation(self.init, self.update)


# -- scalings of the rarer optimisers

def scale_by_adadelta(rho=0.9, eps=1e-6) -> GradientTransformation:
    """Adadelta: g sqrt(E[dx^2] + eps) / sqrt(E[g^2] + eps), both running averages with rate rho."""
    _check_rates("scale_by_adadelta", rho=rho, eps=eps)

    def update(updates, state, params=None):
        e_g = _ema(updates, state.e_g, rho, square=True)
        new = tree_map(lambda g, eg, ex: fnp.sqrt(ex + eps) / fnp.sqrt(eg + eps) * g, updates, e_g, state.e_x)
        return new, ScaleByAdaDeltaState(e_g, _ema(new, state.e_x, rho, square=True))
    return GradientTransformation(lambda params: ScaleByAdaDeltaState(_zeros_like(params), _zeros_like(params)),
                                  update)


def scale_by_adan(b1=0.98, b2=0.92, b3=0.99, eps=1e-8, eps_root=0.0) -> GradientTransformation:
    """Adan: (m_hat + (1 - b2) v_hat) / (sqrt(n_hat + eps_root) + eps), m, v, n moving averages of g, of the
    gradient difference and of (g + (1 - b2) difference)^2 (the difference 0 at the first step)."""
    _check_rates("scale_by_adan", b1=b1, b2=b2, b3=b3, eps=eps, eps_root=eps_root)

    def init(params):
        z = _zeros_like
        return ScaleByAdanState(z(params), z(params), z(params), z(params), _count0())

    def update(updates, state, params=None):
        first = state.t == 0
        diff = tree_map(lambda g, prev: fnp.where(first, fnp.zeros_like(g), g - prev), updates, state.g)
        m, v = _ema(updates, state.m, b1), _ema(diff, state.v, b2)
        n = _ema(tree_map(lambda g, d: g + (1 - b2) * d, updates, diff), state.n, b3, square=True)
        t = safe_increment(state.t)
        new = tree_map(lambda mh, vh, nh: (mh + (1 - b2) * vh) / (fnp.sqrt(nh + eps_root) + eps),
                       _debias(m, b1, t), _debias(v, b2, t), _debias(n, b3, t))
        return new, ScaleByAdanState(m, v, n, updates, t)
    return GradientTransformation(init, update)


def scale_by_yogi(b1=0.9, b2=0.999, eps=1e-3, eps_root=0.0, initial_accumulator_value=1e-6) -> GradientTransformation:
    """Yogi: Adam whose second moment moves additively, v <- v - (1 - b2) sign(v - g^2) g^2."""
    _check_rates("scale_by_yogi", b1=b1, b2=b2, eps=eps, eps_root=eps_root,
                 initial_accumulator_value=initial_accumulator_value)

    def init(params):
        return ScaleByAdamState(_count0(), _full_like(params, initial_accumulator_value),
                                _full_like(params, initial_accumulator_value))

    def update(updates, state, params=None):
        mu = _ema(updates, state.mu, b1)
        nu = tree_map(lambda g, v: v - (1 - b2) * fnp.sign(v - g * g) * (g * g), updates, state.nu)
        count = safe_increment(state.count)
        new = tree_map(lambda m, v: m / (fnp.sqrt(v + eps_root) + eps), _debias(mu, b1, count),
                       _debias(nu, b2, count))
        return new, ScaleByAdamState(count, mu, nu)
    return GradientTransformation(init, update)


def scale_by_radam(b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, threshold=5.0, *,
                   nesterov: bool = False) -> GradientTransformation:
    """Rectified Adam: Adam times the variance rectification r(rho_t) once rho_t >= threshold, plain
    (bias-corrected) momentum before."""
    _check_rates("scale_by_radam", b1=b1, b2=b2, eps=eps, eps_root=eps_root, threshold=threshold)
    ro_inf = 2.0 / (1.0 - b2) - 1.0

    def init(params):
        return ScaleByAdamState(_count0(), _zeros_like(params), _zeros_like(params))

    def update(updates, state, params=None):
        mu, nu = _ema(updates, state.mu, b1), _ema(updates, state.nu, b2, square=True)
        count = safe_increment(state.count)
        b2t = b2 ** count
        ro = ro_inf - 2 * count * b2t / (1 - b2t)
        rectify = ro >= threshold
        # r from a safe ro where it is not used, so the untaken branch has no sqrt of a negative (nor nan grads)
        ro_s = fnp.where(rectify, ro, ro_inf)
        r = fnp.sqrt((ro_s - 4.0) * (ro_s - 2.0) * ro_inf / ((ro_inf - 4.0) * (ro_inf - 2.0) * ro_s))
        mu_hat = _nesterov_mu(mu, updates, b1, count) if nesterov else _debias(mu, b1, count)
        nu_hat = _debias(nu, b2, count)
        new = tree_map(lambda m, v: fnp.where(rectify, fnp.astype(r, _dtype(m)) * m / (fnp.sqrt(v + eps_root) + eps),
                                              m), mu_hat, nu_hat)
        return new, ScaleByAdamState(count, mu, nu)
    return GradientTransformation(init, update)


def scale_by_rprop(learning_rate, eta_minus=0.5, eta_plus=1.2, min_step_size=1e-6,
                   max_step_size=50.0) -> GradientTransformation:
    """Rprop's per-element step sizes: grown by eta_plus while the gradient keeps its sign, shrunk by eta_minus
    when it flips (and that step skipped), clipped to [min_step_size, max_step_size]. As optax 0.2.8: the
    update returned is the previous call's step (step_size sign(g)), zero where the sign flipped."""
    _check_rates("scale_by_rprop", learning_rate=learning_rate, eta_minus=eta_minus, eta_plus=eta_plus,
                 min_step_size=min_step_size, max_step_size=max_step_size)

    def update(updates, state, params=None):
        prod = tree_map(lambda g, prev: g * prev, updates, state.prev_updates)
        steps = tree_map(lambda s, size: fnp.where(s == 0, size, fnp.clip(
            size * fnp.where(s > 0, eta_plus, eta_minus), min_step_size, max_step_size)), prod, state.step_sizes)
        prev = tree_map(lambda s, g, size: fnp.where(s < 0, fnp.zeros_like(g), size * fnp.sign(g)),
                        prod, updates, steps)
        new = tree_map(lambda s, old: fnp.where(s < 0, fnp.zeros_like(old), old), prod, state.prev_updates)
        return new, ScaleByRpropState(steps, prev)
    return GradientTransformation(
        lambda params: ScaleByRpropState(_full_like(params, learning_rate), _zeros_like(params)), update)


def scale_by_sm3(b1=0.9, b2=1.0, eps=1e-8) -> GradientTransformation:
    """SM3: g / sqrt(nu), nu the min over axes of per-axis accumulators of the maxima of the squared gradients
    (the full accumulator for vectors), then momentum b1 on the result."""
    _check_rates("scale_by_sm3", b1=b1, b2=b2, eps=eps)
    c0 = 1.0 if b2 == 1.0 else 1.0 - b2

    def init(params):
        def per_axis(p):
            return [fnp.zeros((fnp.shape(p)[i],), dtype=_dtype(p)) for i in range(fnp.ndim(p))]
        return ScaleBySM3State(tree_map(per_axis, params), _zeros_like(params))

    def accum(g, vs):
        nd = fnp.ndim(g)
        if nd == 0:
            return c0 * g * g
        if nd == 1:
            return c0 * g * g + b2 * vs[0]
        shapes = [[1] * i + [fnp.shape(g)[i]] + [1] * (nd - i - 1) for i in range(nd)]
        return c0 * g * g + b2 * functools.reduce(fnp.minimum, [fnp.reshape(v, s) for v, s in zip(vs, shapes)])

    def new_mu(a):
        nd = fnp.ndim(a)
        if nd < 2:
            return [a for _ in range(nd)]
        return [fnp.max(a, axis=tuple(j for j in range(nd) if j != i)) for i in range(nd)]

    def update(updates, state, params=None):
        acc = tree_map(accum, updates, state.mu)
        scaled = tree_map(lambda g, a: g * fnp.where(a > 0, _rsqrt(a + eps), 0.0), updates, acc)
        nu = _ema(scaled, state.nu, b1)
        return nu, ScaleBySM3State(tree_map(new_mu, acc), nu)
    return GradientTransformation(init, update)


def scale_by_novograd(b1=0.9, b2=0.25, eps=1e-8, eps_root=0.0, weight_decay=0.0) -> GradientTransformation:
    """NovoGrad: per-leaf second moment nu (moving average of |g|^2, |g|^2 itself at the first step) and
    momentum m <- b1 m + g / (sqrt(nu + eps_root) + eps) + weight_decay p."""
    _check_rates("scale_by_novograd", b1=b1, b2=b2, eps=eps, eps_root=eps_root, weight_decay=weight_decay)

    def init(params):
        return ScaleByNovogradState(_count0(), _zeros_like(params),
                                    tree_map(lambda p: fnp.zeros((), dtype=_dtype(p)), params))

    def update(updates, state, params=None):
        _need_params(params, "scale_by_novograd")
        count = safe_increment(state.count)
        first = count == 1
        nu = tree_map(lambda g, n: fnp.astype(fnp.where(first, fnp.sum(g * g), (1 - b2) * fnp.sum(g * g) + b2 * n),
                                              _dtype(n)), updates, state.nu)
        step = tree_map(lambda g, p, n: g / (fnp.sqrt(n + eps_root) + eps) + weight_decay * p, updates, params, nu)
        mu = tree_map(lambda s, m: fnp.where(first, s, b1 * m + s), step, state.mu)
        return mu, ScaleByNovogradState(count, mu, nu)
    return GradientTransformation(init, update)


def _factored_dims(shape, factored, min_dim):
    # the two largest axes (second largest first), if the second largest is at least min_dim
    if not factored or len(shape) < 2:
        return None
    order = _np.argsort(shape)
    if shape[order[-2]] < min_dim:
        return None
    return int(order[-2]), int(order[-1])


def scale_by_factored_rms(factored: bool = True, decay_rate=0.8, step_offset: int = 0,
                          min_dim_size_to_factor: int = 128, epsilon=1e-30) -> GradientTransformation:
    """Adafactor's scaling: g / sqrt(v), v the moving average of g^2 + epsilon with rate 1 - (t + 1)^-decay_rate,
    kept for leaves with two axes >= min_dim_size_to_factor as row and column means (v ~ row col / mean(row)).
    The rate is computed in float32, as optax does."""
    _check_rates("scale_by_factored_rms", decay_rate=decay_rate, epsilon=epsilon)

    def init(params):
        def one(p):
            dims, dt = _factored_dims(fnp.shape(p), factored, min_dim_size_to_factor), _dtype(p)
            small = fnp.zeros((1,), dtype=dt)
            if dims is None:
                return (small, small, fnp.zeros_like(p))
            d1, d0 = dims
            shape = fnp.shape(p)
            return (fnp.zeros(tuple(s for i, s in enumerate(shape) if i != d0), dtype=dt),
                    fnp.zeros(tuple(s for i, s in enumerate(shape) if i != d1), dtype=dt), small)
        parts = tree_map(one, params)
        return FactoredState(_count0(), *(tree_map(lambda p, t, i=i: t[i], params, parts) for i in range(3)))

    def update(updates, state, params=None):
        _need_params(params, "scale_by_factored_rms")
        # optax's float32 rate 1 - t^-decay_rate, with the pow taken in float64 and rounded once (a correctly
        # rounded float32 pow, as XLA's is here; numpy's float32 array pow can be an ulp off)
        t = fnp.astype(state.count - step_offset + 1, "float64")
        rate = 1.0 - fnp.astype(t ** (-decay_rate), "float32")

        def one(g, vr, vc, v, p):
            dt = _dtype(p)
            dims = _factored_dims(fnp.shape(p), factored, min_dim_size_to_factor)
            small = fnp.zeros((1,), dtype=dt)
            sq = g * g + epsilon
            if dims is None:
                nv = fnp.astype(rate * v + (1.0 - rate) * sq, dt)
                return (g * nv ** -0.5, small, small, nv)
            d1, d0 = dims
            nr = fnp.astype(rate * vr + (1.0 - rate) * fnp.mean(sq, axis=d0), dt)
            nc = fnp.astype(rate * vc + (1.0 - rate) * fnp.mean(sq, axis=d1), dt)
            row = (nr / fnp.mean(nr, axis=d1 - 1 if d1 > d0 else d1, keepdims=True)) ** -0.5
            return (g * fnp.expand_dims(row, d0) * fnp.expand_dims(nc ** -0.5, d1), nr, nc, small)
        out = tree_map(one, updates, state.v_row, state.v_col, state.v, params)
        pick = [tree_map(lambda u, o, i=i: o[i], updates, out) for i in range(4)]
        return pick[0], FactoredState(safe_increment(state.count), pick[1], pick[2], pick[3])
    return GradientTransformation(init, update)
