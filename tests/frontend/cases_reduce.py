"""numpy-agreement cases for frame.numpy's reductions."""
import numpy as np

from tests.frontend.numpy_cases import NumpyCase, uniform

CASES = [
    *[NumpyCase(name, lambda rng, s=shape: (uniform(rng, s),), {"axis": axis, "keepdims": keep},
                label=f"{shape}-{axis}-{keep}", wrt=(0,))
      for name in ("sum", "mean")
      for shape, axis, keep in [((3, 4), None, False), ((3, 4), -1, True), ((2, 3, 4), (0, 2), False),
                                ((1, 3), 0, False), ((), None, False)]],
    NumpyCase("sum", lambda rng: (uniform(rng, (0, 3)),), {"axis": 0}, label="empty", wrt=(0,)),
    NumpyCase("sum", lambda rng: (uniform(rng, (3, 4), "int32"),), {"axis": 1}, label="int32"),
    NumpyCase("sum", lambda rng: (uniform(rng, (3, 4), "float32"),), label="float32"),
]
