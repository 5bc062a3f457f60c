"""Optimisers as separate update graphs (ARCH-065).

Training never updates parameters inside the training graph: the IR has no in-place or
aliasing semantics (every kernel allocates its outputs, values are SSA). Instead an update
graph maps `[params..., grads..., state...]` to `[new_params..., new_state...]` and the host
rotates the arrays after each step. Both graphs keep constant shapes, so after the first step
every run is a compile-cache hit.

The builders compose existing ops only (`constant`, `add`, `mul`, `neg`, `div`, `sqrt`, `exp`);
they register no kernel. A float `lr` is baked in as a `constant` (the seed's v0); `lr=None`
makes the learning rate a trailing rank-0 graph input instead, so a schedule feeds a new value
each step without recompiling.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..errors import ShapeError
from ..ir.graph import Graph, Value
from ..ir.types import TensorType


def as_param_types(param_types: Sequence) -> list[TensorType]:
    """Accept `TensorType`s or anything with a shape and dtype (numpy arrays); require float dtypes."""
    types = []
    for i, t in enumerate(param_types):
        if not isinstance(t, TensorType):
            a = t if hasattr(t, "shape") and hasattr(t, "dtype") else np.asarray(t)
            t = TensorType(a.shape, a.dtype)
        if not t.is_float:
            raise ShapeError(f"update graph: parameter {i} has type {t}; parameters must be float32 or float64")
        types.append(t)
    if not types:
        raise ShapeError("update graph: no parameters given")
    return types


def _single_dtype(types: list[TensorType], why: str) -> str:
    # There is no cast op, so a graph-level scalar (lr input, Adam step) can only meet params of its own dtype.
    dtypes = sorted({t.dtype for t in types})
    if len(dtypes) != 1:
        raise ShapeError(f"update graph: {why} needs all parameters to share one float dtype, got {dtypes}")
    return dtypes[0]


def _check_lr(lr) -> None:
    if lr is not None and (not isinstance(lr, (int, float)) or isinstance(lr, bool) or not math.isfinite(lr)):
        raise ShapeError(f"update graph: lr must be a finite float (or None for an lr graph input), got {lr!r}")


def _neg_lr(graph: Graph, lr_input: Value | None, lr: float | None, dtype: str) -> Value:
    if lr_input is not None:
        return graph.add_node("neg", [lr_input]).output
    return graph.constant(-lr, dtype)


def build_sgd_update_graph(param_types: Sequence[TensorType], lr: float | None) -> Graph:
    """SGD update graph: inputs `[params..., grads...]` (+ `lr` last when `lr is None`), outputs `[new_params...]`.

    `new_param = add(param, mul(constant(-lr), grad))`, exactly the composition ARCH-065 names.
    """
    types = as_param_types(param_types)
    _check_lr(lr)
    graph = Graph("sgd_update")
    params = [graph.add_input(t) for t in types]
    grads = [graph.add_input(t) for t in types]
    lr_input = graph.add_input(TensorType((), _single_dtype(types, "an lr input"))) if lr is None else None
    neg_lr: dict[str, Value] = {}
    for p, g in zip(params, grads):
        dt = p.type.dtype
        if dt not in neg_lr:
            neg_lr[dt] = _neg_lr(graph, lr_input, lr, dt)
        step = graph.add_node("mul", [neg_lr[dt], g]).output
        graph.mark_output(graph.add_node("add", [p, step]).output)
    return graph


def build_adam_update_graph(param_types: Sequence[TensorType], lr: float | None, b1: float = 0.9,
                            b2: float = 0.999, eps: float = 1e-8) -> Graph:
    """Adam update graph with its state as explicit inputs and outputs.

    Inputs `[params..., grads..., m..., v..., step]` (+ `lr` last when `lr is None`), outputs
    `[new_params..., new_m..., new_v..., new_step]`. `step` is a rank-0 float counter of updates
    done so far (start at 0); the formulas are optax's `adam`:

        m' = b1*m + (1-b1)*g          v' = b2*v + (1-b2)*g*g        t = step + 1
        p' = p - lr * (m'/(1-b1**t)) / (sqrt(v'/(1-b2**t)) + eps)

    `b**t` is `exp(t*log(b))` because `pow` takes its exponent as an attribute, and `t` is a
    graph input. All parameters must share one float dtype (the counter has that dtype).
    """
    types = as_param_types(param_types)
    _check_lr(lr)
    for name, b in (("b1", b1), ("b2", b2)):
        if not 0.0 < b < 1.0:
            raise ShapeError(f"adam update graph: {name} must lie in (0, 1), got {b}")
    if not eps >= 0.0:
        raise ShapeError(f"adam update graph: eps must be >= 0, got {eps}")
    dtype = _single_dtype(types, "adam's step counter")
    graph = Graph("adam_update")
    params = [graph.add_input(t) for t in types]
    grads = [graph.add_input(t) for t in types]
    ms = [graph.add_input(t) for t in types]
    vs = [graph.add_input(t) for t in types]
    step = graph.add_input(TensorType((), dtype))
    lr_input = graph.add_input(TensorType((), dtype)) if lr is None else None

    def const(x: float) -> Value:
        return graph.constant(x, dtype)

    def op(name: str, *xs: Value) -> Value:
        return graph.add_node(name, list(xs)).output

    new_step = op("add", step, const(1.0))

    def bias_correction(b: float) -> Value:
        return op("add", const(1.0), op("neg", op("exp", op("mul", new_step, const(math.log(b))))))

    bc1, bc2 = bias_correction(b1), bias_correction(b2)
    neg_lr = _neg_lr(graph, lr_input, lr, dtype)
    c_b1, c_1mb1, c_b2, c_1mb2, c_eps = const(b1), const(1.0 - b1), const(b2), const(1.0 - b2), const(eps)
    new_params, new_ms, new_vs = [], [], []
    for p, g, m, v in zip(params, grads, ms, vs):
        m_new = op("add", op("mul", c_b1, m), op("mul", c_1mb1, g))
        v_new = op("add", op("mul", c_b2, v), op("mul", c_1mb2, op("mul", g, g)))
        m_hat = op("div", m_new, bc1)
        v_hat = op("div", v_new, bc2)
        update = op("div", m_hat, op("add", op("sqrt", v_hat), c_eps))
        new_params.append(op("add", p, op("mul", neg_lr, update)))
        new_ms.append(m_new)
        new_vs.append(v_new)
    for v in (*new_params, *new_ms, *new_vs, new_step):
        graph.mark_output(v)
    return graph
