"""pinn: physics-informed neural networks on frame.

Pose a PDE problem (`Poisson1D`, `Burgers1D`), pick a model (`MLP`), `train` it (Adam through
`frame.train.Trainer`, then L-BFGS through `frame.train.lbfgs`) and read the relative L2
error against the reference solution. Residual derivatives come from nested `frame.grad`
(ARCH-067) or Taylor mode; `train` measures both and uses the cheaper correct one
(`pinn.derivative_modes`). `python -m pinn` does it all from the command line.
"""
from .models import ACTIVATIONS, MLP, ModelError
from .problems import PROBLEMS, Burgers1D, Poisson1D, Problem, ProblemError, pointwise_derivative
from .training import PINNResult, train

__all__ = ["MLP", "ACTIVATIONS", "ModelError", "Problem", "Poisson1D", "Burgers1D", "PROBLEMS", "ProblemError",
           "pointwise_derivative", "train", "PINNResult"]
