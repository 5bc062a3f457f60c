"""frame.optax's core: `GradientTransformation`, the state namedtuples, tree helpers, the stateless
transformations, learning-rate scaling and the combinators (`chain`, `masked`, `multi_transform`,
`inject_hyperparams`)."""
from __future__ import annotations

import inspect
import numbers
from typing import Any, Callable, NamedTuple

import numpy as _np

from ..errors import InputError
from ..frontend import numpy as fnp
from ..frontend.args import _dtype
from ..frontend.pytree import tree_leaves, tree_map
from ..tracing import Tracer


class GradientTransformation(NamedTuple):
    """`init(params) -> state` and `update(updates, state, params=None) -> (updates, state)`."""
    init: Callable
    update: Callable


class EmptyState(NamedTuple):
    """The state of a stateless transformation."""


class TraceState(NamedTuple):
    trace: Any


class ScaleByAdamState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


class ScaleByAmsgradState(NamedTuple):
    count: Any
    mu: Any
    nu: Any
    nu_max: Any


class ScaleByRmsState(NamedTuple):
    nu: Any


class ScaleByRmsWithCountState(NamedTuple):
    count: Any
    nu: Any


class ScaleByRStdDevState(NamedTuple):
    mu: Any
    nu: Any


class ScaleByRStdDevWithCountState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


class ScaleByRssState(NamedTuple):
    sum_of_squares: Any


class ScaleByBeliefState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


class ScaleByLionState(NamedTuple):
    count: Any
    mu: Any


class ScaleByScheduleState(NamedTuple):
    count: Any


class WeightDecaySchedule(NamedTuple):
    count: Any


class AddNoiseState(NamedTuple):
    count: Any
    rng_key: Any


class MaskedState(NamedTuple):
    inner_state: Any


class MaskedNode(NamedTuple):
    """Stands in for a masked-out subtree: a node with no children, so tree maps pass over it."""


class MultiTransformState(NamedTuple):
    inner_states: Any


class WrappedScheduleState(NamedTuple):
    count: Any


class InjectHyperparamsState(NamedTuple):
    count: Any
    hyperparams: Any
    hyperparams_states: Any
    inner_state: Any


# -- helpers

def _count0():
    return fnp.zeros((), dtype="int32")


def safe_increment(count):
    """`count + 1`, staying at the dtype's maximum instead of wrapping round."""
    dtype = _dtype(count)
    # adds (count < max) rather than selecting count + 1, which would overflow (and warn) at the maximum
    return count + fnp.astype(count < _np.iinfo(_np.dtype(dtype)).max, dtype)


def _is_scalar(x) -> bool:
    if isinstance(x, Tracer):
        return True
    if isinstance(x, bool):
        return False
    if isinstance(x, numbers.Real):
        return True
    return isinstance(x, (_np.ndarray, _np.generic)) and x.dtype.kind in "fiu"


def _check_number(value, fn: str, name: str, schedule: bool = False):
    if schedule and callable(value):
        return value
    if not _is_scalar(value):
        what = "a number or a schedule (a callable of the step count)" if schedule else "a number"
        raise InputError(f"frame.optax.{fn}: {name} must be {what}, got {type(value).__name__} {value!r}")
    return value


def _zeros_like(tree):
    return tree_map(fnp.zeros_like, tree)


def _full_like(tree, value):
    return tree_map(lambda p: fnp.full_like(p, value), tree)


def _ema(updates, moments, decay, square: bool = False):
    # (1 - decay) g^k + decay m: the exponential moving average of the first (or second) moment.
    return tree_map(lambda g, m: (1 - decay) * (g * g if square else g) + decay * m, updates, moments)


def _debias(moments, decay, count):
    # 1 - decay^t at full precision, then cast to the moment's dtype: in float32, decay^t rounds to 1 too early.
    corr = 1 - decay ** count
    return tree_map(lambda m: m / fnp.astype(corr, _dtype(m)), moments)


def _nesterov_mu(mu, updates, b1, count):
    # Dozat's Nesterov moment: b1 mu_hat(t+1) + (1 - b1) g_hat(t).
    return tree_map(lambda m, g: b1 * m + (1 - b1) * g, _debias(mu, b1, safe_increment(count)),
                    _debias(updates, b1, count))


def _need_params(params, fn: str):
    if params is None:
        raise InputError(f"frame.optax.{fn}: update needs the params (call update(updates, state, params))")


def _rsqrt(x):
    return 1 / fnp.sqrt(x)


def _sumsq(x):
    return fnp.sum(x * x)


def _safe_norm(x, min_norm):
    # max(|x|, min_norm) whose derivative is 0, not nan, where |x| <= min_norm (x replaced by ones there).
    norm = fnp.sqrt(_sumsq(x))
    small = norm <= min_norm
    return fnp.where(small, min_norm, fnp.sqrt(_sumsq(fnp.where(small, fnp.ones_like(x), x))))


def global_norm(updates):
    """The 2-norm of all leaves of `updates` together."""
    total = 0
    for leaf in tree_leaves(updates):
        total = total + _sumsq(leaf)
    return fnp.sqrt(fnp.asarray(total))


def apply_updates(params, updates):
    """`params + updates`, leaf by leaf, each result in its param's dtype."""
    return tree_map(lambda p, u: fnp.astype(p + u, _dtype(p)), params, updates)


# -- stateless transformations

def _init_empty(params):
    return EmptyState()


def identity() -> GradientTransformation:
    """Passes updates through unchanged."""
    return GradientTransformation(_init_empty, lambda updates, state, params=None: (updates, state))


def set_to_zero() -> GradientTransformation:
    """Replaces every update by zeros (freezes the parameters it is applied to)."""
    return GradientTransformation(_init_empty, lambda updates, state, params=None: (_zeros_like(updates), state))


def scale(step_size) -> GradientTransformation:
    """Multiplies updates by a fixed `step_size`."""
    _check_number(step_size, "scale", "step_size")
    return GradientTransformation(
        _init_empty, lambda updates, state, params=None: (tree_map(lambda g: step_size * g, updates), state))


def clip(max_delta) -> GradientTransformation:
    """Clips every update element to [-max_delta, max_delta]."""
    _check_number(max_delta, "clip", "max_delta")
    return GradientTransformation(
        _init_empty,
        lambda updates, state, params=None: (tree_map(lambda g: fnp.clip(g, -max_delta, max_delta), updates), state))


def clip_by_global_norm(max_norm) -> GradientTransformation:
    """Rescales all updates together so their global 2-norm is at most `max_norm`."""
    _check_number(max_norm, "clip_by_global_norm", "max_norm")

    def update(updates, state, params=None):
        norm = global_norm(updates)
        keep = norm < max_norm
        return tree_map(lambda g: fnp.where(keep, g, g / fnp.astype(norm, _dtype(g)) * max_norm), updates), state
    return GradientTransformation(_init_empty, update)


def scale_by_trust_ratio(min_norm=0.0, trust_coefficient=1.0, eps=0.0) -> GradientTransformation:
    """LARS/LAMB's trust ratio: each leaf's update times |param| / |update| (1 where either norm is 0)."""
    def one(u, p):
        pn, un = _safe_norm(p, min_norm), _safe_norm(u, min_norm)
        ratio = trust_coefficient * pn / (un + eps)
        return u * fnp.where((pn == 0.0) | (un == 0.0), fnp.asarray(1.0, dtype=_dtype(p)), ratio)

    def update(updates, state, params=None):
        _need_params(params, "scale_by_trust_ratio")
        return tree_map(one, updates, params), state
    return GradientTransformation(_init_empty, update)


# -- learning rates and schedules inside transformations

def scale_by_schedule(step_size_fn) -> GradientTransformation:
    """Multiplies updates by `step_size_fn(count)`, count the number of updates so far."""
    if not callable(step_size_fn):
        raise InputError(f"frame.optax.scale_by_schedule: step_size_fn must be callable, got {step_size_fn!r}")

    def update(updates, state, params=None):
        step = step_size_fn(state.count)
        new = tree_map(lambda g: fnp.astype(fnp.asarray(step), _dtype(g)) * g, updates)
        return new, ScaleByScheduleState(safe_increment(state.count))
    return GradientTransformation(lambda params: ScaleByScheduleState(_count0()), update)


def scale_by_learning_rate(learning_rate, *, flip_sign: bool = True) -> GradientTransformation:
    """Multiplies updates by -learning_rate (by +learning_rate with flip_sign=False); a number or schedule."""
    if learning_rate is None:
        return identity()
    _check_number(learning_rate, "scale_by_learning_rate", "learning_rate", schedule=True)
    sign = -1 if flip_sign else 1
    if callable(learning_rate):
        return scale_by_schedule(lambda count: sign * learning_rate(count))
    return scale(sign * learning_rate)


def add_decayed_weights(weight_decay=0.0, mask=None) -> GradientTransformation:
    """Adds `weight_decay * params` to the updates (decoupled weight decay); `mask` limits it to some leaves."""
    _check_number(weight_decay, "add_decayed_weights", "weight_decay", schedule=True)
    scheduled = callable(weight_decay)

    def init(params):
        return WeightDecaySchedule(_count0()) if scheduled else EmptyState()

    def update(updates, state, params=None):
        _need_params(params, "add_decayed_weights")
        new_state = WeightDecaySchedule(safe_increment(state.count)) if scheduled else state
        if not scheduled and isinstance(weight_decay, (int, float)) and weight_decay == 0.0:
            return updates, new_state
        wd = weight_decay(state.count) if scheduled else weight_decay
        return tree_map(lambda g, p: g + wd * p, updates, params), new_state
    tx = GradientTransformation(init, update)
    return tx if mask is None else masked(tx, mask)


# -- combinators

def chain(*transforms: GradientTransformation) -> GradientTransformation:
    """The transformations applied one after another; the state is the tuple of their states."""
    for i, t in enumerate(transforms):
        if not (isinstance(t, tuple) and len(t) == 2 and callable(t[0]) and callable(t[1])):
            raise InputError(f"frame.optax.chain: argument {i} is not a GradientTransformation: {t!r}")

    def update(updates, state, params=None):
        if not isinstance(state, tuple) or len(state) != len(transforms):
            got = f"a tuple of length {len(state)}" if isinstance(state, tuple) else type(state).__name__
            raise InputError(f"frame.optax.chain: the state must be the tuple of {len(transforms)} states from "
                             f"init, got {got}")
        states = []
        for t, s in zip(transforms, state):
            updates, s = t.update(updates, s, params)
            states.append(s)
        return updates, tuple(states)
    return GradientTransformation(lambda params: tuple(t.init(params) for t in transforms), update)


def _mask_out(tree, mask_tree):
    return tree_map(lambda m, x: x if m else MaskedNode(), mask_tree, tree)


def masked(inner: GradientTransformation, mask) -> GradientTransformation:
    """`inner` applied only to the leaves where `mask` (a pytree of bools, or a prefix of the params', or a
    callable of the params returning one) is True; the other updates pass through unchanged."""
    def mask_of(tree):
        return mask(tree) if callable(mask) else mask

    def init(params):
        return MaskedState(inner.init(_mask_out(params, mask_of(params))))

    def update(updates, state, params=None):
        mask_tree = mask_of(updates)
        new, inner_state = inner.update(_mask_out(updates, mask_tree), state.inner_state,
                                        None if params is None else _mask_out(params, mask_tree))
        return tree_map(lambda m, n, u: n if m else u, mask_tree, new, updates), MaskedState(inner_state)
    return GradientTransformation(init, update)


def multi_transform(transforms: dict, param_labels) -> GradientTransformation:
    """A different transformation per group of leaves: `param_labels` (a pytree of labels like the params',
    or a callable of the params returning one) names each leaf's key in `transforms`."""
    def labels_of(tree):
        labels = param_labels(tree) if callable(param_labels) else param_labels
        missing = set(tree_leaves(labels)) - set(transforms)
        if missing:
            raise InputError(f"frame.optax.multi_transform: labels {sorted(map(str, missing))} have no transformation"
                             f" (transforms has {sorted(map(str, transforms))})")
        return labels

    def txs(labels):
        return {k: masked(tx, tree_map(lambda l, k=k: l == k, labels)) for k, tx in transforms.items()}

    def init(params):
        return MultiTransformState({k: tx.init(params) for k, tx in txs(labels_of(params)).items()})

    def update(updates, state, params=None):
        inner = {}
        for k, tx in txs(labels_of(updates)).items():
            updates, inner[k] = tx.update(updates, state.inner_states[k], params)
        return updates, MultiTransformState(inner)
    return GradientTransformation(init, update)


def _highest_float(params) -> str:
    floats = [d for d in (_dtype(p) for p in tree_leaves(params)) if d in ("float32", "float64", "float16")]
    return max(floats, key=lambda d: _np.dtype(d).itemsize) if floats else "float64"


def inject_hyperparams(inner_factory: Callable, static_args=(), hyperparam_dtype=None) -> Callable:
    """`inner_factory` (e.g. `adam`) with its numeric hyperparameters moved into the state
    (`state.hyperparams`, changeable between steps) and its schedules evaluated there at every step."""
    static = {static_args} if isinstance(static_args, str) else set(static_args)
    signature = inspect.signature(inner_factory)
    if not static <= set(signature.parameters):
        raise InputError(f"frame.optax.inject_hyperparams: static_args {sorted(static)} must be parameters of "
                         f"{getattr(inner_factory, '__name__', inner_factory)}: {sorted(signature.parameters)}")

    def wrapped(*args, **kwargs) -> GradientTransformation:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        scheds, numeric, other = {}, {}, {}
        for name, value in bound.arguments.items():
            if name in static or isinstance(value, bool):
                other[name] = value
            elif callable(value):
                scheds[name] = value
            elif _is_scalar(value):
                numeric[name] = value
            else:
                other[name] = value

        def cast(value, params):
            # float hyperparameters in the params' widest float dtype (or hyperparam_dtype); ints stay ints
            if _dtype(value) not in ("float16", "float32", "float64"):
                return fnp.asarray(value)
            dtype = _np.dtype(hyperparam_dtype).name if hyperparam_dtype is not None else _highest_float(params)
            return fnp.astype(fnp.asarray(value), dtype)

        def init(params):
            hp = {k: cast(v, params) for k, v in numeric.items()}
            hp.update({k: cast(f(_count0()), params) for k, f in scheds.items()})
            return InjectHyperparamsState(_count0(), hp, {k: WrappedScheduleState(_count0()) for k in scheds},
                                          inner_factory(**other, **hp).init(params))

        def update(updates, state, params=None):
            hp = {k: cast(v, params if params is not None else updates) for k, v in state.hyperparams.items()}
            hp.update({k: cast(f(state.hyperparams_states[k].count), params if params is not None else updates)
                       for k, f in scheds.items()})
            new, inner_state = inner_factory(**other, **hp).update(updates, state.inner_state, params)
            counts = {k: WrappedScheduleState(safe_increment(s.count)) for k, s in state.hyperparams_states.items()}
            return new, InjectHyperparamsState(safe_increment(state.count), hp, counts, inner_state)
        return GradientTransformation(init, update)
    wrapped.__name__ = getattr(inner_factory, "__name__", "inject_hyperparams")
    wrapped.__doc__ = inner_factory.__doc__
    return wrapped
