"""`frame.optax`: optax's gradient-transformation API on frame, so an optax training loop runs on frame by
changing its imports:

    opt = frame.optax.adam(1e-3); state = opt.init(params)
    updates, state = opt.update(grads, state, params); params = frame.optax.apply_updates(params, updates)

A `GradientTransformation` is the pair `(init, update)`; states are namedtuples with optax's names and fields
(step counts int32 scalars, saturating at 2^31 - 1), so they are pytrees: `init` and `update` run eagerly on
numpy arrays and traced inside `frame.function` (a whole train step compiles to one graph, the state passed in
and out), and they differentiate, being compositions of frame.numpy functions. Learning rates and weight
decays may be numbers or schedules (callables of the step count), as optax's `ScalarOrSchedule`.

Covered, with optax 0.2.8's formulas and state layouts:
- optimisers: `sgd` (momentum, nesterov), `adam`, `nadam`, `adamw`, `nadamw`, `adamax`, `amsgrad`,
  `adagrad`, `rmsprop` (centered, momentum, nesterov, bias_correction), `adabelief`, `lion`, `lamb`,
  `noisy_sgd` (with an explicit `frame.random` key; its noise is jax.random's, bit for bit);
- transformations: `scale`, `scale_by_adam`, `scale_by_amsgrad`, `scale_by_adamax`, `scale_by_rms`,
  `scale_by_stddev`, `scale_by_rss`, `scale_by_belief`, `scale_by_lion`, `scale_by_trust_ratio`,
  `scale_by_schedule`, `scale_by_learning_rate`, `trace`, `add_decayed_weights`, `add_noise`, `clip`,
  `clip_by_global_norm`, `identity`, `set_to_zero`;
- combinators: `chain`, `masked` (a mask pytree, or a callable of the params), `multi_transform`,
  `inject_hyperparams`; `apply_updates`, `global_norm`;
- schedules: `constant_schedule`, `polynomial_schedule`, `linear_schedule`, `cosine_decay_schedule`,
  `exponential_decay`, `piecewise_constant_schedule`, `join_schedules`, `warmup_cosine_decay_schedule`,
  `warmup_exponential_decay_schedule`.

One difference: a schedule divides an int32 count in float64 (numpy's promotion); JAX divides it in float32
even with x64 on, so optax's linear/polynomial/exponential schedule values are float32-rounded there.

Left out: `MultiSteps`, optax's extra update arguments (`value=` for line searches), `mu_dtype` /
`accumulator_dtype` (accumulators take the params' dtype), complex parameters, the rarer optimisers (adadelta,
adan, yogi, radam, rprop, fromage, lars, sm3, ...).
"""

from ._alias import (adabelief, adagrad, adam, adamax, adamw, amsgrad, lamb, lion, nadam, nadamw, noisy_sgd, rmsprop,
                     sgd)
from ._base import (AddNoiseState, EmptyState, GradientTransformation, InjectHyperparamsState, MaskedNode, MaskedState,
                    MultiTransformState, ScaleByAdamState, ScaleByAmsgradState, ScaleByBeliefState, ScaleByLionState,
                    ScaleByRmsState, ScaleByRmsWithCountState, ScaleByRssState, ScaleByRStdDevState,
                    ScaleByRStdDevWithCountState, ScaleByScheduleState, TraceState, WeightDecaySchedule,
                    WrappedScheduleState, add_decayed_weights, apply_updates, chain, clip, clip_by_global_norm,
                    global_norm, identity, inject_hyperparams, masked, multi_transform, safe_increment, scale,
                    scale_by_learning_rate, scale_by_schedule, scale_by_trust_ratio, set_to_zero)
from ._scaling import (add_noise, scale_by_adam, scale_by_adamax, scale_by_amsgrad, scale_by_belief, scale_by_lion,
                       scale_by_rms, scale_by_rss, scale_by_stddev, trace)
from ._schedules import (constant_schedule, cosine_decay_schedule, exponential_decay, join_schedules, linear_schedule,
                         piecewise_constant_schedule, polynomial_schedule, warmup_cosine_decay_schedule,
                         warmup_exponential_decay_schedule)

__all__ = ["GradientTransformation", "EmptyState", "TraceState", "ScaleByAdamState", "ScaleByAmsgradState",
           "ScaleByRmsState", "ScaleByRmsWithCountState", "ScaleByRStdDevState", "ScaleByRStdDevWithCountState",
           "ScaleByRssState", "ScaleByBeliefState", "ScaleByLionState", "ScaleByScheduleState", "WeightDecaySchedule",
           "AddNoiseState", "MaskedState", "MaskedNode", "MultiTransformState", "InjectHyperparamsState",
           "WrappedScheduleState",
           "identity", "set_to_zero", "scale", "scale_by_schedule", "scale_by_learning_rate", "trace",
           "scale_by_adam", "scale_by_amsgrad", "scale_by_adamax", "scale_by_rms", "scale_by_stddev", "scale_by_rss",
           "scale_by_belief", "scale_by_lion", "scale_by_trust_ratio", "add_decayed_weights", "add_noise", "clip",
           "clip_by_global_norm", "global_norm", "chain", "masked", "multi_transform", "inject_hyperparams",
           "apply_updates", "safe_increment",
           "sgd", "adam", "nadam", "adamw", "nadamw", "adamax", "amsgrad", "adagrad", "rmsprop", "adabelief", "lion",
           "lamb", "noisy_sgd",
           "constant_schedule", "polynomial_schedule", "linear_schedule", "cosine_decay_schedule",
           "exponential_decay", "piecewise_constant_schedule", "join_schedules", "warmup_cosine_decay_schedule",
           "warmup_exponential_decay_schedule"]
