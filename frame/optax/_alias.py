"""frame.optax's optimisers: chains of the transformations, as optax builds them."""
from __future__ import annotations

from ..errors import InputError
from ._base import GradientTransformation, add_decayed_weights, chain, identity, scale_by_learning_rate, \
    scale_by_trust_ratio
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
