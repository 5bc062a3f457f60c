"""numpy-agreement cases for frame.numpy's neural-network composites (softmax, log_softmax, layer_norm),
against scipy.special and numpy written out."""
import numpy as np
import scipy.special

from tests.frontend.numpy_cases import NumpyCase, uniform


def _layer_norm(x, axis=-1, eps=1e-5):
    mean = np.mean(x, axis=axis, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=axis, keepdims=True)
    return (x - mean) / np.sqrt(var + np.asarray(eps, x.dtype))


SHAPES = [((3, 4), -1, "last"), ((2, 3, 4), 1, "middle"), ((2, 3, 4), -3, "neg-first"), ((1, 5), 0, "size1"),
          ((0, 3), -1, "empty")]

CASES = [
    *[NumpyCase(name, lambda rng, s=s: (uniform(rng, s, lo=-3, hi=3),), {"axis": axis}, label=label,
                reference=getattr(scipy.special, name), wrt=(0,), rtol=1e-11, atol=1e-12)
      for name in ("softmax", "log_softmax") for s, axis, label in SHAPES],
    *[NumpyCase(name, lambda rng: (uniform(rng, (3, 4), "float32", lo=-3, hi=3),), label="float32",
                reference=lambda x, name=name: getattr(scipy.special, name)(x, axis=-1).astype(np.float32))
      for name in ("softmax", "log_softmax")],
    *[NumpyCase("layer_norm", lambda rng, s=s: (uniform(rng, s, lo=-3, hi=3),), {"axis": axis}, label=label,
                reference=_layer_norm, wrt=(0,), rtol=1e-10, atol=1e-12) for s, axis, label in SHAPES[:4]],
    NumpyCase("layer_norm", lambda rng: (uniform(rng, (2, 3, 4)),), {"axis": (1, 2), "eps": 1e-3}, label="two-axes",
              reference=_layer_norm, wrt=(0,), rtol=1e-10, atol=1e-12),
]
