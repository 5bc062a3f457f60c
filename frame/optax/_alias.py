"""frame.optax's optimisers: chains of the transformations, as optax builds them."""
from __future__ import annotations

from ..errors import InputError
from ._base import (GradientTransformation, _check_number, add_decayed_weights, chain, identity, masked, scale,
                    scale_by_learning_rate, scale_by_trust_ratio)
from ._extra import (clip_by_block_rms, ema, scale_by_adadelta, scale_by_adan, scale_by_factored_rms,
                     scale_by_novograd, scale_by_param_block_rms, scale_by_radam, scale_by_rprop, scale_by_sm3,
                     scale_by_yogi)
from ._scaling import (add_noise, scale_by_adam, scale_by_adamax, scale_by_amsgrad, scale_by_belief, scale_by_lion,
                       scale_by_rms, scale_by_rss, scale_by_stddev, trace)


# -- optimisers

def sgd(learning_rate, momentum=None, nesterov: bool = False) -> GradientTransformation:
    """Stochastic gradient descent, with optional (Nesterov) momentum."""
    return chain(identity() if momentum is None else trace(momentum, nesterov), scale_by_learning_rate(learning_rate))


def adam(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, *, nesterov: bool = False) -> GradientTransformation:
    """Adam (Kingma & Ba), with Nesterov momentum (NAdam) when `nesterov=True`."""
    return chain(scale_by_adam(b1, b2, eps, eps_root, nesterov=nesterov), scale_by_learning_rate(learning_rate))


def nadam(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0) -> GradientTransformation:
    """NAdam: Adam with Nesterov momentum."""
    return adam(learning_rate, b1, b2, eps, eps_root, nesterov=True)


def adamw(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, weight_decay=1e-4, mask=None, *,
          nesterov: bool = False) -> GradientTransformation:
    """AdamW: Adam with decoupled weight decay (on the leaves `mask` selects)."""
    return chain(scale_by_adam(b1, b2, eps, eps_root, nesterov=nesterov), add_decayed_weights(weight_decay, mask),
                 scale_by_learning_rate(learning_rate))


def nadamw(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, weight_decay=1e-4,
           mask=None) -> GradientTransformation:
    """NAdamW: AdamW with Nesterov momentum."""
    return adamw(learning_rate, b1, b2, eps, eps_root, weight_decay, mask, nesterov=True)


def adamax(learning_rate, b1=0.9, b2=0.999, eps=1e-8) -> GradientTransformation:
    """Adamax: Adam with the infinity norm in place of the second moment."""
    return chain(scale_by_adamax(b1, b2, eps), scale_by_learning_rate(learning_rate))


def amsgrad(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, bias_correction_mu: bool = True,
            bias_correction_nu: bool = True) -> GradientTransformation:
    """AMSGrad: Adam with a non-decreasing second moment."""
    return chain(scale_by_amsgrad(b1, b2, eps, eps_root, bias_correction_mu, bias_correction_nu),
                 scale_by_learning_rate(learning_rate))


def adagrad(learning_rate, initial_accumulator_value=0.1, eps=1e-7) -> GradientTransformation:
    """Adagrad: steps scaled by the root of the sum of all squared gradients so far."""
    return chain(scale_by_rss(initial_accumulator_value, eps), scale_by_learning_rate(learning_rate))


def rmsprop(learning_rate, decay=0.9, eps=1e-8, initial_scale=0.0, eps_in_sqrt: bool = True, centered: bool = False,
            momentum=None, nesterov: bool = False, bias_correction: bool = False) -> GradientTransformation:
    """RMSProp (centered: divided by the moving standard deviation), with optional momentum after the step."""
    scaling = (scale_by_stddev if centered else scale_by_rms)(decay, eps, initial_scale, eps_in_sqrt, bias_correction)
    return chain(scaling, scale_by_learning_rate(learning_rate),
                 identity() if momentum is None else trace(momentum, nesterov))


def adabelief(learning_rate, b1=0.9, b2=0.999, eps=1e-16, eps_root=1e-16, *,
              nesterov: bool = False) -> GradientTransformation:
    """AdaBelief: Adam scaled by the belief in the gradient (the variance of g - m)."""
    return chain(scale_by_belief(b1, b2, eps, eps_root, nesterov=nesterov), scale_by_learning_rate(learning_rate))


def lion(learning_rate, b1=0.9, b2=0.99, weight_decay=1e-3, mask=None) -> GradientTransformation:
    """Lion (evolved sign momentum) with decoupled weight decay."""
    return chain(scale_by_lion(b1, b2), add_decayed_weights(weight_decay, mask), scale_by_learning_rate(learning_rate))


def lamb(learning_rate, b1=0.9, b2=0.999, eps=1e-6, eps_root=0.0, weight_decay=0.0,
         mask=None) -> GradientTransformation:
    """LAMB: Adam plus weight decay, each leaf's step rescaled by its trust ratio."""
    return chain(scale_by_adam(b1, b2, eps, eps_root), add_decayed_weights(weight_decay, mask),
                 scale_by_trust_ratio(), scale_by_learning_rate(learning_rate))


def noisy_sgd(learning_rate, eta=0.01, gamma=0.55, key=None) -> GradientTransformation:
    """SGD with annealed Gaussian gradient noise (variance eta / t^gamma); `key` is required."""
    if key is None:
        raise InputError("frame.optax.noisy_sgd: give an explicit key (frame.random.PRNGKey(seed))")
    return chain(add_noise(eta, gamma, key), scale_by_learning_rate(learning_rate))


# -- the rarer optimisers

def adadelta(learning_rate=None, rho=0.9, eps=1e-6, weight_decay=0.0, weight_decay_mask=None) -> GradientTransformation:
    """Adadelta: steps scaled by the ratio of the RMS of past updates to the RMS of the gradients."""
    return chain(add_decayed_weights(weight_decay, weight_decay_mask), scale_by_adadelta(rho, eps),
                 scale_by_learning_rate(learning_rate))


def adan(learning_rate, b1=0.98, b2=0.92, b3=0.99, eps=1e-8, eps_root=1e-8, weight_decay=0.0,
         mask=None) -> GradientTransformation:
    """Adan (adaptive Nesterov momentum) with decoupled weight decay."""
    return chain(scale_by_adan(b1, b2, b3, eps, eps_root), add_decayed_weights(weight_decay, mask),
                 scale_by_learning_rate(learning_rate))


def yogi(learning_rate, b1=0.9, b2=0.999, eps=1e-3) -> GradientTransformation:
    """Yogi: Adam with an additive, sign-controlled second-moment update."""
    return chain(scale_by_yogi(b1, b2, eps), scale_by_learning_rate(learning_rate))


def radam(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, threshold=5.0, *,
          nesterov: bool = False) -> GradientTransformation:
    """Rectified Adam."""
    return chain(scale_by_radam(b1, b2, eps, eps_root, threshold, nesterov=nesterov),
                 scale_by_learning_rate(learning_rate))


def rprop(learning_rate, eta_minus=0.5, eta_plus=1.2, min_step_size=1e-6, max_step_size=50.0) -> GradientTransformation:
    """Rprop: sign steps of per-element adaptive sizes, learning_rate the initial size."""
    return chain(scale_by_rprop(learning_rate, eta_minus, eta_plus, min_step_size, max_step_size),
                 scale(-1.0))


def novograd(learning_rate, b1=0.9, b2=0.25, eps=1e-6, eps_root=0.0, weight_decay=0.0) -> GradientTransformation:
    """NovoGrad: layer-wise normalised momentum."""
    return chain(scale_by_novograd(b1, b2, eps, eps_root, weight_decay),
                 scale_by_learning_rate(learning_rate))


def sm3(learning_rate, momentum=0.9) -> GradientTransformation:
    """SM3: memory-efficient Adagrad with per-axis accumulators, plus momentum (a number only)."""
    _check_number(learning_rate, "sm3", "learning_rate")
    return chain(scale_by_sm3(momentum), scale(-learning_rate))


def fromage(learning_rate, min_norm=1e-6) -> GradientTransformation:
    """Fromage (Frobenius matched gradient descent): trust-ratio steps, params shrunk by 1/sqrt(1 + lr^2)."""
    if callable(learning_rate):
        mult = lambda c: 1 / (1 + learning_rate(c) ** 2) ** 0.5
        return chain(scale_by_trust_ratio(min_norm), scale_by_learning_rate(lambda c: mult(c) * learning_rate(c)),
                     add_decayed_weights(lambda c: mult(c) - 1))
    _check_number(learning_rate, "fromage", "learning_rate")
    mult = 1 / (1 + learning_rate ** 2) ** 0.5
    return chain(scale_by_trust_ratio(min_norm), scale_by_learning_rate(learning_rate * mult),
                 add_decayed_weights(mult - 1))


def lars(learning_rate, weight_decay=0.0, weight_decay_mask=True, trust_coefficient=0.001, eps=0.0,
         trust_ratio_mask=True, momentum=0.9, nesterov: bool = False) -> GradientTransformation:
    """LARS: weight decay, the layer-wise trust ratio (on the leaves trust_ratio_mask selects), then momentum."""
    return chain(add_decayed_weights(weight_decay, mask=weight_decay_mask),
                 masked(scale_by_trust_ratio(trust_coefficient=trust_coefficient, eps=eps), trust_ratio_mask),
                 scale_by_learning_rate(learning_rate), trace(momentum, nesterov))


def adafactor(learning_rate=None, min_dim_size_to_factor: int = 128, decay_rate=0.8, decay_offset: int = 0,
              multiply_by_parameter_scale: bool = True, clipping_threshold=1.0, momentum=None,
              dtype_momentum="float32", weight_decay_rate=None, eps=1e-30, factored: bool = True,
              weight_decay_mask=None) -> GradientTransformation:
    """Adafactor: factored second moments, block-RMS clipping, steps relative to the params' RMS."""
    tx = [scale_by_factored_rms(factored, decay_rate, decay_offset, min_dim_size_to_factor, eps)]
    if clipping_threshold is not None:
        tx.append(clip_by_block_rms(clipping_threshold))
    if learning_rate is not None:
        tx.append(scale_by_learning_rate(learning_rate, flip_sign=False))
    if multiply_by_parameter_scale:
        tx.append(scale_by_param_block_rms())
    if momentum is not None:
        tx.append(ema(momentum, debias=False, accumulator_dtype=dtype_momentum))
    if weight_decay_rate is not None:
        tx.append(add_decayed_weights(weight_decay_rate, mask=weight_decay_mask))
    tx.append(scale(-1))
    return chain(*tx)
