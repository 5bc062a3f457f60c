"""pinn: physics-informed neural networks on frame.

Pose a PDE problem (`Poisson1D`, `Burgers1D`), pick a model (`MLP`), `train` it (Adam through
`frame.train.Trainer`, then L-BFGS through `frame.train.lbfgs`) and read the relative L2
error against the reference solution. `train` returns a `PINNResult`, a `workbench.Result` (the
result type pinn and pino share). `save`/`load` keep a trained PINN in frame's safe checkpoint
format (`workbench.persistence`) and `train(..., resume=path)` continues it (`pinn.persistence`). Residual derivatives come from nested `frame.grad`
(ARCH-067) or Taylor mode; `train` measures both and uses the cheaper correct one
(`pinn.derivative_modes`). `python -m pinn` does it all from the command line.

New problems are posed as in DeepXDE: a geometry (`Interval`, `Rectangle`, `Box`, `Disk`,
`Hypersphere`, `Sphere`, `Ellipse`, `Polygon`, `Triangle`, `PointCloud`, their unions, differences and intersections `a | b`, `a - b`, `a & b`, `GeometryXTime`), a residual `residual_fn(x, u, d)` on u and its derivatives, conditions
(`DirichletBC`, `NeumannBC`, `RobinBC`, `PeriodicBC`, `IC`, `PointSetBC`; hard constraints through
`model.apply_output_transform`) and `PDE`/`TimePDE`; unknown coefficients are `Variable`s; training
callbacks (`RAR`, `GradientNormBalancing`, `PDEPointResampler`) adapt points and loss weights.
"""
from .models import ACTIVATIONS, MLP, MODELS, FourierFeatureMLP, ModelError, ModifiedMLP, Network
from .problems import PROBLEMS, Burgers1D, Poisson1D, Problem, ProblemError, pointwise_derivative
from .training import PINNResult, train
from .persistence import MODEL_CLASSES, SavedPINN, load, save, write_history
from .sampling import METHODS as SAMPLERS, SamplingError, sample
from .geometry import (Box, Cuboid, Disk, Ellipse, Geometry, GeometryError, GeometryXTime, Hypercube, Hypersphere,
                       Interval, PointCloud, Polygon, Rectangle, Sphere, TimeDomain, Triangle)
from .csg import CSGDifference, CSGIntersection, CSGUnion
from .conditions import IC, BC, DirichletBC, NeumannBC, OperatorBC, PeriodicBC, PointSetBC, RobinBC, boundary, initial
from .causal import CausalWeighting
from .pde import PDE, Derivatives, TimePDE, Variable
from .adaptive import RAR, GradientNormBalancing, PDEPointResampler
# importing pinn.zoo registers its problems in PROBLEMS
from .zoo import ZOO, AllenCahn, BurgersInverse, BurgersRaissi, Heat, Helmholtz2D, KdV, Poisson2D, Wave

__all__ = ["CausalWeighting", "MLP", "FourierFeatureMLP", "ModifiedMLP", "Network", "MODELS", "ACTIVATIONS", "ModelError", "Problem",
           "Poisson1D", "Burgers1D", "PROBLEMS", "ProblemError", "pointwise_derivative", "train", "PINNResult",
           "SAMPLERS", "SamplingError", "sample", "Geometry", "GeometryError", "Interval", "Rectangle", "Box",
           "Cuboid", "Hypercube", "Disk", "Hypersphere", "Sphere", "Ellipse", "Polygon", "Triangle", "PointCloud", "CSGUnion", "CSGDifference", "CSGIntersection", "TimeDomain", "GeometryXTime", "BC", "DirichletBC",
           "NeumannBC", "RobinBC", "PeriodicBC", "IC", "PointSetBC", "boundary", "initial", "PDE", "TimePDE",
           "Derivatives", "Variable", "RAR", "GradientNormBalancing", "PDEPointResampler", "OperatorBC", "ZOO",
           "Poisson2D", "Helmholtz2D", "Heat", "Wave", "AllenCahn", "KdV", "BurgersInverse", "BurgersRaissi",
           "save", "load", "SavedPINN", "MODEL_CLASSES", "write_history"]
