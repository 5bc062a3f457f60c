"""frame.optax's schedules: functions of the step count (a Python int or an int32 array, traced or not) built
from frame.numpy, so they trace and differentiate. Counts divide in float64, as numpy does (JAX divides an int32
count in float32 even with x64 on, so optax's values there are float32-rounded)."""
from __future__ import annotations

from typing import Callable

import numpy as _np

from ..errors import InputError
from ..frontend import numpy as fnp


# -- schedules: callables of the step count (an int or an int32 array, traced or not)

def constant_schedule(value) -> Callable:
    """`value` at every step."""
    return lambda count: value


def polynomial_schedule(init_value, end_value, power, transition_steps: int, transition_begin: int = 0) -> Callable:
    """From init_value to end_value as (1 - t / transition_steps)^power over transition_steps steps after
    transition_begin; constant init_value if transition_steps <= 0."""
    if transition_steps <= 0:
        return lambda count: init_value
    transition_begin = max(transition_begin, 0)

    def schedule(count):
        frac = 1 - fnp.clip(count - transition_begin, 0, transition_steps) / transition_steps
        return (init_value - end_value) * frac ** power + end_value
    return schedule


def linear_schedule(init_value, end_value, transition_steps: int, transition_begin: int = 0) -> Callable:
    """Linear from init_value to end_value over transition_steps steps after transition_begin."""
    return polynomial_schedule(init_value, end_value, 1, transition_steps, transition_begin)


def cosine_decay_schedule(init_value, decay_steps: int, alpha=0.0, exponent=1.0) -> Callable:
    """init_value ((1 - alpha) c^exponent + alpha), c = (1 + cos(pi min(t, decay_steps) / decay_steps)) / 2."""
    if not decay_steps > 0:
        raise InputError(f"frame.optax.cosine_decay_schedule: decay_steps must be positive, got {decay_steps}")
    steps = float(decay_steps)

    def schedule(count):
        t = fnp.minimum(float(count) if isinstance(count, int) else count, steps)
        c = 0.5 * (1 + fnp.cos(_np.pi * t / steps))
        return init_value * ((1 - alpha) * c ** exponent + alpha)
    return schedule


def exponential_decay(init_value, transition_steps: int, decay_rate, transition_begin: int = 0,
                      staircase: bool = False, end_value=None) -> Callable:
    """init_value decay_rate^((t - transition_begin) / transition_steps) (floored exponent with staircase),
    init_value before transition_begin, bounded by end_value when given; constant when transition_steps
    <= 0 or decay_rate == 0."""
    if transition_steps <= 0 or decay_rate == 0:
        return lambda count: init_value
    transition_begin = max(transition_begin, 0)
    bound = fnp.maximum if decay_rate < 1.0 else fnp.minimum

    def schedule(count):
        since = count - transition_begin
        p = since / transition_steps
        if staircase:
            p = fnp.floor(p)
        value = fnp.where(since <= 0, init_value, init_value * fnp.power(decay_rate, p))
        return value if end_value is None else bound(value, end_value)
    return schedule


def piecewise_constant_schedule(init_value, boundaries_and_scales: dict | None = None) -> Callable:
    """init_value, multiplied by `scale` from each step `boundary` on ({boundary: scale}, scales >= 0)."""
    pairs = sorted((boundaries_and_scales or {}).items())
    if any(s < 0 for _, s in pairs):
        raise InputError(f"frame.optax.piecewise_constant_schedule: scales must be non-negative, got "
                         f"{boundaries_and_scales}")

    def schedule(count):
        value = init_value
        for boundary, s in pairs:
            value = fnp.where(count < boundary, value, s * value)
        return value
    return schedule


def join_schedules(schedules, boundaries) -> Callable:
    """schedules[0] before boundaries[0], then schedules[i] (counting from boundaries[i - 1]), ..."""
    if len(schedules) != len(boundaries) + 1:
        raise InputError(f"frame.optax.join_schedules: needs one more schedule than boundaries, got "
                         f"{len(schedules)} schedules and {len(boundaries)} boundaries")

    def schedule(count):
        value = schedules[0](count)
        for boundary, later in zip(boundaries, schedules[1:]):
            value = fnp.where(count < boundary, value, later(count - boundary))
        return value
    return schedule


def warmup_cosine_decay_schedule(init_value, peak_value, warmup_steps: int, decay_steps: int, end_value=0.0,
                                 exponent=1.0) -> Callable:
    """Linear warm-up from init_value to peak_value, then cosine decay to end_value at decay_steps (the total,
    warm-up included)."""
    if not decay_steps - warmup_steps > 0:
        raise InputError(f"frame.optax.warmup_cosine_decay_schedule: decay_steps ({decay_steps}) must exceed "
                         f"warmup_steps ({warmup_steps})")
    alpha = 0.0 if peak_value == 0.0 else end_value / peak_value
    return join_schedules([linear_schedule(init_value, peak_value, warmup_steps),
                           cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent)],
                          [warmup_steps])


def warmup_exponential_decay_schedule(init_value, peak_value, warmup_steps: int, transition_steps: int, decay_rate,
                                      transition_begin: int = 0, staircase: bool = False, end_value=None) -> Callable:
    """Linear warm-up from init_value to peak_value, then `exponential_decay` from peak_value."""
    return join_schedules([linear_schedule(init_value, peak_value, warmup_steps),
                           exponential_decay(peak_value, transition_steps, decay_rate, transition_begin, staircase,
                                             end_value)],
                          [warmup_steps])


def piecewise_interpolate_schedule(interpolate_type: str, init_value, boundaries_and_scales: dict | None = None
                                   ) -> Callable:
    """Interpolates ('linear' or 'cosine') between init_value and its running products with the scales at the
    boundaries ({boundary: scale}, scales >= 0); the last value from the last boundary on."""
    if interpolate_type not in ("linear", "cosine"):
        raise InputError(f"frame.optax.piecewise_interpolate_schedule: interpolate_type must be 'linear' or "
                         f"'cosine', got {interpolate_type!r}")
    pairs = sorted((boundaries_and_scales or {}).items())
    if any(s < 0 for _, s in pairs):
        raise InputError(f"frame.optax.piecewise_interpolate_schedule: scales must be non-negative, got "
                         f"{boundaries_and_scales}")
    bounds = [0] + [b for b, _ in pairs]
    values = [init_value]
    for _, s in pairs:
        values.append(values[-1] * s)

    def interpolate(start, end, pct):
        if interpolate_type == "linear":
            return start + pct * (end - start)
        return end + (start - end) * 0.5 * (1 + fnp.cos(_np.pi * pct))

    def schedule(count):
        value = fnp.where(bounds[-1] <= count, values[-1], 0.0)
        for lo, hi, start, end in zip(bounds[:-1], bounds[1:], values[:-1], values[1:]):
            # an empty interval (hi <= lo) never holds count; its width is taken as 1, as optax does
            pct = (count - lo) / max(hi - lo, 1)
            value = value + fnp.where((lo <= count) & (count < hi), interpolate(start, end, pct), 0.0)
        return value
    return schedule


def linear_onecycle_schedule(transition_steps: int, peak_value, pct_start=0.3, pct_final=0.85, div_factor=25.0,
                             final_div_factor=1e4) -> Callable:
    """One cycle, linear: peak_value / div_factor up to peak_value at pct_start, back down by pct_final, then to
    peak_value / (div_factor final_div_factor) at transition_steps."""
    if transition_steps <= 0:
        raise InputError(f"frame.optax.linear_onecycle_schedule: transition_steps must be positive, got "
                         f"{transition_steps}")
    return piecewise_interpolate_schedule("linear", peak_value / div_factor,
                                          {int(pct_start * transition_steps): div_factor,
                                           int(pct_final * transition_steps): 1.0 / div_factor,
                                           transition_steps: 1.0 / final_div_factor})


def cosine_onecycle_schedule(transition_steps: int, peak_value, pct_start=0.3, div_factor=25.0,
                             final_div_factor=1e4) -> Callable:
    """One cycle, cosine: peak_value / div_factor up to peak_value at pct_start, then down to
    peak_value / (div_factor final_div_factor) at transition_steps."""
    if transition_steps <= 0:
        raise InputError(f"frame.optax.cosine_onecycle_schedule: transition_steps must be positive, got "
                         f"{transition_steps}")
    return piecewise_interpolate_schedule("cosine", peak_value / div_factor,
                                          {int(pct_start * transition_steps): div_factor,
                                           int(transition_steps): 1.0 / (div_factor * final_div_factor)})


def sgdr_schedule(cosine_kwargs) -> Callable:
    """Warm restarts: the `warmup_cosine_decay_schedule(**kwargs)` of each dict in turn, each for its
    decay_steps."""
    schedules, boundaries, step = [], [], 0
    for kwargs in cosine_kwargs:
        schedules.append(warmup_cosine_decay_schedule(**kwargs))
        step += kwargs["decay_steps"]
        boundaries.append(step)
    if not schedules:
        raise InputError("frame.optax.sgdr_schedule: needs at least one set of cosine_kwargs")
    return join_schedules(schedules, boundaries[:-1])
