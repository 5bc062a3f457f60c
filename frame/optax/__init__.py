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

Also covered: optimisers `adadelta`, `adan`, `yogi`, `radam`, `rprop`, `novograd`, `sm3`, `fromage`, `lars`,
`adafactor` (factored second moments included); transformations `scale_by_adadelta`, `scale_by_adan`,
`scale_by_yogi`, `scale_by_radam`, `scale_by_rprop`, `scale_by_sm3`, `scale_by_novograd`, `scale_by_factored_rms`,
`scale_by_param_block_norm`, `scale_by_param_block_rms`, `centralize`, `clip_by_block_rms`, `adaptive_grad_clip`,
`zero_nans`, `keep_params_nonnegative`, `ema`; wrappers `MultiSteps` (gradient accumulation; `has_updated`,
`skip_not_finite`, `skip_large_updates`) and `apply_if_finite`, whose `lax.cond`s are `where`s over both
branches (the values are optax's; a derivative taken through a rejected non-finite step can be nan);
schedules `piecewise_interpolate_schedule`, `linear_onecycle_schedule`, `cosine_onecycle_schedule`,
`sgdr_schedule`. As optax 0.2.8, `rprop`'s update is the previous call's step, and adafactor's decay rate is
float32 (correctly rounded here; XLA's float32 pow can be an ulp off, so optax's adafactor agrees to ~1e-8).

Left out: optax's extra update arguments (`value=` for line searches, so `polyak_sgd`), `mu_dtype`
(accumulators take the params' dtype; `ema` and `MultiSteps` do take `accumulator_dtype`), complex parameters.
"""

from ._alias import (adabelief, adadelta, adafactor, adagrad, adam, adamax, adamw, adan, amsgrad, fromage, lamb, lars,
                     lion, nadam, nadamw, noisy_sgd, novograd, radam, rmsprop, rprop, sgd, sm3, yogi)
from ._extra import (ApplyIfFiniteState, EmaState, FactoredState, MultiSteps, MultiStepsState, NonNegativeParamsState,
                     ScaleByAdaDeltaState, ScaleByAdanState, ScaleByNovogradState, ScaleByRpropState, ScaleBySM3State,
                     ZeroNansState, adaptive_grad_clip, apply_if_finite, centralize, clip_by_block_rms, ema,
                     keep_params_nonnegative, scale_by_adadelta, scale_by_adan, scale_by_factored_rms,
                     scale_by_novograd, scale_by_param_block_norm, scale_by_param_block_rms, scale_by_radam,
                     scale_by_rprop, scale_by_sm3, scale_by_yogi, skip_large_updates, skip_not_finite, zero_nans)
from ._base import (AddNoiseState, EmptyState, GradientTransformation, InjectHyperparamsState, MaskedNode, MaskedState,
                    MultiTransformState, ScaleByAdamState, ScaleByAmsgradState, ScaleByBeliefState, ScaleByLionState,
                    ScaleByRmsState, ScaleByRmsWithCountState, ScaleByRssState, ScaleByRStdDevState,
                    ScaleByRStdDevWithCountState, ScaleByScheduleState, TraceState, WeightDecaySchedule,
                    WrappedScheduleState, add_decayed_weights, apply_updates, chain, clip, clip_by_global_norm,
                    global_norm, identity, inject_hyperparams, masked, multi_transform, safe_increment, scale,
                    scale_by_learning_rate, scale_by_schedule, scale_by_trust_ratio, set_to_zero)
from ._scaling import (add_noise, scale_by_adam, scale_by_adamax, scale_by_amsgrad, scale_by_belief, scale_by_lion,
                       scale_by_rms, scale_by_rss, scale_by_stddev, trace)
from ._schedules import (constant_schedule, cosine_decay_schedule, cosine_onecycle_schedule, exponential_decay,
                         join_schedules, linear_onecycle_schedule, linear_schedule, piecewise_constant_schedule,
                         piecewise_interpolate_schedule, polynomial_schedule, sgdr_schedule,
                         warmup_cosine_decay_schedule, warmup_exponential_decay_schedule)

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
           "warmup_exponential_decay_schedule",
           "piecewise_interpolate_schedule", "linear_onecycle_schedule", "cosine_onecycle_schedule", "sgdr_schedule",
           "MultiSteps", "MultiStepsState", "ApplyIfFiniteState", "EmaState", "ZeroNansState", "NonNegativeParamsState",
           "ScaleByAdaDeltaState", "ScaleByAdanState", "ScaleByRpropState", "ScaleBySM3State", "ScaleByNovogradState",
           "FactoredState", "apply_if_finite", "skip_not_finite", "skip_large_updates", "zero_nans",
           "keep_params_nonnegative", "centralize", "clip_by_block_rms", "adaptive_grad_clip", "ema",
           "scale_by_param_block_norm", "scale_by_param_block_rms", "scale_by_adadelta", "scale_by_adan",
           "scale_by_yogi", "scale_by_radam", "scale_by_rprop", "scale_by_sm3", "scale_by_novograd",
           "scale_by_factored_rms",
           "adadelta", "adan", "yogi", "radam", "rprop", "novograd", "sm3", "fromage", "lars", "adafactor"]
