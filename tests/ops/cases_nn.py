"""OpCases of the neural-network composites (frame/ops/nn.py), with independent numpy references."""
from __future__ import annotations

import math

import numpy as np

from frame.ir import parse_graph
from frame.ops.fused import FusedBody
from tests.ops.cases import OpCase, _ins, _u


def _softplus(x):
    return np.logaddexp(0.0, x)


def _gelu(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def _softmax(x, axis):
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis):
    return np.log(_softmax(x, axis))


def _layer_norm(x, axes, eps):
    mu = x.mean(axis=axes, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


CASES = [
    OpCase("softplus", _ins(_u(3, 4, lo=-4.0, hi=4.0)), _softplus, label="2d"),
    OpCase("softplus", _ins(_u(lo=-2.0, hi=2.0)), _softplus, label="rank0"),
    OpCase("gelu", _ins(_u(3, 4, lo=-3.0, hi=3.0)), _gelu, label="2d"),
    OpCase("gelu", _ins(_u(2, 3, 2, lo=-3.0, hi=3.0)), _gelu, label="3d"),
    OpCase("softmax", _ins(_u(3, 5, lo=-2.0, hi=2.0)), _softmax, {"axis": 1}, label="last"),
    OpCase("softmax", _ins(_u(4, 3, 2, lo=-2.0, hi=2.0)), _softmax, {"axis": 0}, label="axis0"),
    OpCase("log_softmax", _ins(_u(3, 5, lo=-2.0, hi=2.0)), _log_softmax, {"axis": 1}, label="last"),
    OpCase("log_softmax", _ins(_u(4, 3, 2, lo=-2.0, hi=2.0)), _log_softmax, {"axis": -2}, label="neg-axis"),
    OpCase("layer_norm", _ins(_u(3, 6)), _layer_norm, {"axes": (1,), "eps": 1e-5}, label="last"),
    OpCase("layer_norm", _ins(_u(2, 3, 4)), _layer_norm, {"axes": (1, 2), "eps": 1e-3}, label="two-axes"),
]

# A fused node's operand types are fixed by its body, so its inputs are float64 whatever dtype a
# table-driven test asks for. It has no gradient by design (ARCH-068): no derivative checks.
_FUSED_BODY = """graph @fused(%0: f64[3,4], %1: f64[4]) {
  %2: f64[3,4] = tanh(%0)
  %3: f64[3,4] = mul(%2, %1)
  %4: f64[] = constant() {value=dense<1.0>}
  %5: f64[3,4] = add(%3, %4)
  return (%5, %2)
}"""


def _fused_inputs(rng, dtype):
    return [rng.uniform(-1.0, 1.0, (3, 4)), rng.uniform(-1.0, 1.0, (4,))]


CASES.append(OpCase("fused_elementwise_internal", _fused_inputs,
                    lambda x, y, body: (np.tanh(x) * y + 1.0, np.tanh(x)),
                    {"body": FusedBody.of(parse_graph(_FUSED_BODY))}, wrt=()))
