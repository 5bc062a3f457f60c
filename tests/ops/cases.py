"""Per-op test cases shared by the table-driven tests (registry, gradients, closure, JAX oracle).

Every registered op needs at least one `OpCase`. Op families added later put their cases in
their own `tests/ops/cases_<family>.py` module defining `CASES = [...]`; they are collected here.
"""
from __future__ import annotations

import importlib
import pathlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class OpCase:
    op: str
    make_inputs: Callable[[np.random.Generator, str], list]   # (rng, float dtype) -> operands
    reference: Callable[..., object]                           # numpy reference: (*inputs, **attrs) -> output(s)
    attrs: dict = field(default_factory=dict)
    wrt: tuple[int, ...] = (0,)    # operand positions checked by the derivative tests
    label: str = ""
    smooth: bool = True            # False: derivative checks stay away from kinks (inputs already chosen so)

    @property
    def id(self) -> str:
        return f"{self.op}[{self.label}]" if self.label else self.op


def _u(*shape, lo=-1.0, hi=1.0):
    return lambda rng, dt: rng.uniform(lo, hi, shape).astype(dt)


def _ins(*makers):
    return lambda rng, dt: [m(rng, dt) for m in makers]


def _away_from_zero(*shape):
    # |x| in [0.3, 1]: relu and friends are differentiated away from the kink.
    return lambda rng, dt: (rng.uniform(0.3, 1.0, shape) * rng.choice([-1.0, 1.0], shape)).astype(dt)


def _binary(op, fn, lo=-1.0, hi=1.0, b_lo=None, b_hi=None):
    b_lo, b_hi = (lo if b_lo is None else b_lo), (hi if b_hi is None else b_hi)
    shapes = [((3, 4), (3, 4), "same"), ((3, 4), (4,), "bcast-row"), ((2, 1, 4), (3, 1), "bcast-both"),
              ((), (2, 3), "rank0")]
    return [OpCase(op, _ins(_u(*a, lo=lo, hi=hi), _u(*b, lo=b_lo, hi=b_hi)), fn, wrt=(0, 1), label=label)
            for a, b, label in shapes]


def _unary(op, fn, lo=-1.0, hi=1.0, attrs=None, smooth=True):
    return [OpCase(op, _ins(_u(*s, lo=lo, hi=hi)), fn, dict(attrs or {}), label=label, smooth=smooth)
            for s, label in [((3, 4), "2d"), ((), "rank0"), ((2, 3, 2), "3d")]]


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _pad_reference(x, lo, hi, interior):
    """lax.pad with zeros, built with np.pad (edges) after spreading the elements (interior)."""
    spread = np.zeros([d + max(d - 1, 0) * i for d, i in zip(x.shape, interior)], x.dtype)
    spread[tuple(slice(None, None, i + 1) for i in interior)] = x
    return np.pad(spread, list(zip(lo, hi)))


BASE_CASES: list[OpCase] = [
    OpCase("constant", lambda rng, dt: [], lambda value: value, {"value": np.arange(6.0).reshape(2, 3)}, wrt=()),
    *_binary("add", np.add), *_binary("sub", np.subtract), *_binary("mul", np.multiply),
    *_binary("div", np.divide, b_lo=0.5, b_hi=2.0),
    *_unary("neg", np.negative), *_unary("square", np.square), *_unary("exp", np.exp),
    *_unary("log", np.log, lo=0.2, hi=2.0), *_unary("sin", np.sin), *_unary("cos", np.cos),
    *_unary("tanh", np.tanh), *_unary("sqrt", np.sqrt, lo=0.2, hi=2.0), *_unary("sigmoid", _sigmoid),
    *[OpCase("relu", _ins(_away_from_zero(*s)), lambda x: np.maximum(x, 0), label=lb, smooth=False)
      for s, lb in [((3, 4), "2d"), ((), "rank0")]],
    *[OpCase("abs", _ins(_away_from_zero(*s)), np.abs, label=lb, smooth=False) for s, lb in [((3, 4), "2d"), ((), "rank0")]],
    *_unary("pow", lambda x, exponent: x ** exponent, lo=0.3, hi=1.5, attrs={"exponent": 3.0}),
    OpCase("pow", _ins(_u(4, lo=0.3, hi=1.5)), lambda x, exponent: x ** exponent, {"exponent": -1.5},
           label="neg-frac"),
    OpCase("pow", _ins(_u(4)), lambda x, exponent: x ** exponent, {"exponent": 2.0}, label="square"),
    *_unary("stop_gradient", lambda x: x),
    OpCase("matmul", _ins(_u(3, 4), _u(4, 5)), np.matmul, wrt=(0, 1), label="2d"),
    OpCase("matmul", _ins(_u(2, 3, 4), _u(2, 4, 5)), np.matmul, wrt=(0, 1), label="batched"),
    OpCase("matmul", _ins(_u(2, 3, 4), _u(4, 2)), np.matmul, wrt=(0, 1), label="bcast-rhs"),
    OpCase("matmul", _ins(_u(3, 5), _u(4, 5)), lambda a, b, transpose_b: a @ b.T, {"transpose_b": True},
           wrt=(0, 1), label="b-transposed"),
    OpCase("matmul", _ins(_u(2, 3, 5), _u(2, 4, 5)), lambda a, b, transpose_b: a @ np.swapaxes(b, -1, -2),
           {"transpose_b": True}, wrt=(0, 1), label="batched-b-transposed"),
    OpCase("matmul", _ins(_u(3, 4), _u(3, 5)), lambda a, b, transpose_a: a.T @ b, {"transpose_a": True},
           wrt=(0, 1), label="a-transposed"),
    OpCase("matmul", _ins(_u(5, 3), _u(4, 5)), lambda a, b, transpose_a, transpose_b: a.T @ b.T,
           {"transpose_a": True, "transpose_b": True}, wrt=(0, 1), label="both-transposed"),
    OpCase("sum", _ins(_u(3, 4)), lambda x, axes, keepdims: np.sum(x, axes, keepdims=keepdims),
           {"axes": (1,), "keepdims": False}, label="axis1"),
    OpCase("sum", _ins(_u(2, 3, 4)), lambda x, axes, keepdims: np.sum(x, axes, keepdims=keepdims),
           {"axes": (0, 2), "keepdims": True}, label="keepdims"),
    OpCase("sum", _ins(_u(3, 3)), lambda x, axes, keepdims: np.sum(x, axes, keepdims=keepdims),
           {"axes": (0, 1), "keepdims": False}, label="all"),
    OpCase("sum", _ins(_u()), lambda x, axes, keepdims: np.sum(x, axes, keepdims=keepdims),
           {"axes": (), "keepdims": False}, label="rank0"),
    OpCase("mean", _ins(_u(3, 4)), lambda x, axes, keepdims: np.mean(x, axes, keepdims=keepdims),
           {"axes": (0,), "keepdims": False}, label="axis0"),
    OpCase("mean", _ins(_u(2, 3, 4)), lambda x, axes, keepdims: np.mean(x, axes, keepdims=keepdims),
           {"axes": (1, 2), "keepdims": True}, label="keepdims"),
    OpCase("reshape", _ins(_u(3, 4)), lambda x, shape: x.reshape(shape), {"shape": (2, 6)}),
    OpCase("reshape", _ins(_u()), lambda x, shape: x.reshape(shape), {"shape": (1, 1)}, label="rank0"),
    OpCase("transpose", _ins(_u(2, 3, 4)), lambda x, perm: x.transpose(perm), {"perm": (2, 0, 1)}),
    OpCase("broadcast_to", _ins(_u(3, 1)), lambda x, shape: np.broadcast_to(x, shape), {"shape": (2, 3, 4)}),
    OpCase("concat", _ins(_u(2, 3), _u(4, 3), _u(1, 3)), lambda *xs, axis: np.concatenate(xs, axis),
           {"axis": 0}, wrt=(0, 1, 2)),
    OpCase("concat", _ins(_u(2, 3), _u(2, 2)), lambda *xs, axis: np.concatenate(xs, axis), {"axis": -1},
           wrt=(0, 1), label="neg-axis"),
    OpCase("slice", _ins(_u(5, 6)), lambda x, starts, stops, steps: x[starts[0]:stops[0]:steps[0], starts[1]:stops[1]:steps[1]],
           {"starts": (1, 0), "stops": (4, 6), "steps": (1, 2)}),
    OpCase("mse_loss", _ins(_u(3, 4), _u(3, 4)), lambda p, t: np.mean((p - t) ** 2), wrt=(0, 1)),
    OpCase("pad", _ins(_u(3, 3)), _pad_reference, {"lo": (1, 0), "hi": (1, 1), "interior": (0, 1)}),
    OpCase("pad", _ins(_u(2, 1, 3)), _pad_reference, {"lo": (0, 2, 1), "hi": (1, 0, 0), "interior": (2, 1, 0)},
           label="3d"),
]



def _bool(*shape):
    return lambda rng, dt: rng.random(shape) < 0.5


def _with_specials(*shape):
    # nan, +-inf and finite values: the predicates' interesting inputs.
    return lambda rng, dt: rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -1.5, 2.0], dt), shape)


def _ties(*shape):
    # values from a small set, so that maximum/minimum meet ties; not differentiated (the kink)
    return lambda rng, dt: rng.choice(np.array([-1.0, 0.0, 1.0], dt), shape)


PREDICATE_CASES: list[OpCase] = [
    *[OpCase(op, _ins(_with_specials(3, 4)), getattr(np, op), wrt=()) for op in ("isnan", "isinf", "isfinite")],
    *[OpCase(op, _ins(_ties(3, 4), _ties(4)), getattr(np, op), wrt=(), label="bcast")
      for op in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")],
    *[OpCase(op, _ins(_bool(3, 4), _bool(3, 1)), getattr(np, op), wrt=(), label="bool")
      for op in ("logical_and", "logical_or", "logical_xor")],
    OpCase("logical_and", _ins(_ties(2, 3), _ties(3)), np.logical_and, wrt=(), label="float"),
    OpCase("logical_not", _ins(_ties(2, 3)), np.logical_not, wrt=()),
    OpCase("sign", _ins(_with_specials(3, 4)), np.sign, wrt=()),
    OpCase("sign", _ins(_away_from_zero(3, 4)), np.sign, label="smooth", smooth=False),
    *_binary("maximum", np.maximum), *_binary("minimum", np.minimum),
    OpCase("maximum", _ins(_ties(3, 4), _ties(3, 4)), np.maximum, wrt=(), label="ties"),
    OpCase("heaviside", _ins(_ties(3, 4), _u(4)), np.heaviside, wrt=(1,), smooth=False),
    OpCase("where", _ins(_bool(3, 4), _u(3, 4), _u(3, 4)), np.where, wrt=(1, 2)),
    OpCase("where", _ins(_bool(3, 1), _u(4), _u(2, 1, 1)), np.where, wrt=(1, 2), label="bcast"),
    OpCase("convert", _ins(_u(3, 4)), lambda x, dtype: x.astype(dtype), {"dtype": "float64"}, label="to-f64"),
    OpCase("convert", _ins(_u(3, 4, lo=-3, hi=3)), lambda x, dtype: x.astype(dtype), {"dtype": "int32"}, wrt=(),
           label="to-int"),
    OpCase("convert", _ins(_u(3, 4)), lambda x, dtype: x.astype(dtype), {"dtype": "bool"}, wrt=(), label="to-bool"),
]
BASE_CASES += PREDICATE_CASES


def _int(*shape, lo=-100, hi=100, dtype="int64"):
    return lambda rng, dt: rng.integers(lo, hi, shape).astype(dtype)


BITWISE_CASES: list[OpCase] = [
    *[OpCase(op, _ins(_int(3, 4), _int(4)), getattr(np, op), wrt=(), label="int-bcast")
      for op in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    *[OpCase(op, _ins(_bool(3, 4), _bool(3, 1)), getattr(np, op), wrt=(), label="bool")
      for op in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    OpCase("bitwise_and", _ins(_int(5, dtype="int32"), _int(5, dtype="int32")), np.bitwise_and, wrt=(), label="int32"),
    OpCase("bitwise_not", _ins(_int(3, 4)), np.invert, wrt=()),
    OpCase("bitwise_not", _ins(_bool(3, 4)), np.invert, wrt=(), label="bool"),
    # counts past the width and negative ones: numpy's and lax's results (0, or -1 shifting a negative right)
    *[OpCase(op, _ins(_int(3, 4, lo=-2**40, hi=2**40), _int(4, lo=-3, hi=70)), getattr(np, op), wrt=())
      for op in ("left_shift", "right_shift")],
    *[OpCase(op, _ins(_int(6, dtype="int32"), _int(6, lo=0, hi=40, dtype="int32")), getattr(np, op), wrt=(),
             label="int32") for op in ("left_shift", "right_shift")],
    OpCase("population_count", _ins(_int(3, 4, lo=-2**62, hi=2**62)),
           lambda x: np.bitwise_count(x.view(np.uint64)).astype(x.dtype), wrt=()),
    OpCase("population_count", _ins(_int(5, lo=-2**31, hi=2**31 - 1, dtype="int32")),
           lambda x: np.bitwise_count(x.view(np.uint32)).astype(x.dtype), wrt=(), label="int32"),
]
BASE_CASES += BITWISE_CASES

# Ops that are checked elsewhere (no numeric output to compare, or not differentiable by design).
NO_CASES_NEEDED = {"debug_print"}


def _collect() -> dict[str, list[OpCase]]:
    cases = list(BASE_CASES)
    here = pathlib.Path(__file__).parent
    for path in sorted(here.glob("cases_*.py")):
        module = importlib.import_module(f"tests.ops.{path.stem}")
        cases.extend(module.CASES)
    table: dict[str, list[OpCase]] = {}
    for case in cases:
        table.setdefault(case.op, []).append(case)
    return table


CASES_BY_OP = _collect()
ALL_CASES = [c for cs in CASES_BY_OP.values() for c in cs]
