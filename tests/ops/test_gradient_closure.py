"""Gradient closure of the whole registry (ARCH-068).

For every registered op, build its gradient micro-graph for each OpCase signature and walk it:
every node that depends on a micro-graph input (a "non-zero input" node) must itself be
differentiable, and so, recursively, must the nodes of *its* micro-graph. Then any derived
graph can be transformed again, to any order. The walk is mechanical over `all_ops()`.
"""
import numpy as np
import pytest

from frame.ir import TensorType, verify
from frame.ir.printer import format_attr
from frame.ops import SIDE_EFFECT, all_ops, find
from frame.ir.registry import NodeContext
from tests.ops.cases import CASES_BY_OP

# Not differentiable by design: side-effect ops (ARCH-062) and the pipeline's fusion product (ARCH-068).
NOT_DIFFERENTIABLE = {"fused_elementwise_internal"}


# Int attrs that, like float ones, select a number rather than structure: polygamma's rule emits polygamma
# with order n + 1, whose rule is the same rule again.
NUMERIC_INT_ATTRS = {("polygamma", "n")}


def _signature(op, types, attrs):
    # Float attrs (pow's exponent, scales) select numbers, not structure: pow's rule emits pow with
    # exponent p-1, whose rule is the same rule again, so keying on them would walk forever.
    return op, tuple(types), tuple(sorted((k, format_attr(v)) for k, v in attrs.items()
                                          if not isinstance(v, float) and (op, k) not in NUMERIC_INT_ATTRS))


def check_closure(op: str, types: list[TensorType], attrs: dict, seen: set, path: tuple = ()) -> None:
    key = _signature(op, types, attrs)
    if key in seen:
        return
    seen.add(key)
    schema = find(op)
    if schema.gradient is None:
        assert schema.decomposition is not None, \
            f"op '{op}' is reached through {' -> '.join(path + (op,))} but has no gradient rule"
        micro = schema.decomposition(NodeContext(op, list(types), attrs))
        inputs_are_forward = True
    else:
        micro = schema.gradient(NodeContext(op, list(types), attrs))
        inputs_are_forward = False
    verify(micro)
    depends = set(micro.inputs)
    for node in micro.nodes:
        if any(v in depends for v in node.inputs):
            depends.update(node.outputs)
            check_closure(node.op, [v.type for v in node.inputs], node.attrs, seen, path + (op,))
    assert inputs_are_forward or len(micro.outputs) == len(types)


def differentiable_ops():
    return [op for op in all_ops() if not op.has(SIDE_EFFECT) and op.name not in NOT_DIFFERENTIABLE]


def test_every_non_side_effect_op_can_be_differentiated():
    missing = [op.name for op in differentiable_ops() if op.gradient is None and op.decomposition is None]
    assert not missing, f"ops without a gradient rule or decomposition: {missing}"


@pytest.mark.parametrize("op", [op.name for op in differentiable_ops()])
def test_gradient_closure(op):
    seen: set = set()
    for case in CASES_BY_OP[op]:
        inputs = case.make_inputs(np.random.default_rng(0), "float64")
        check_closure(op, [TensorType.of(x) for x in inputs], dict(case.attrs), seen)
    assert seen, f"no signature of '{op}' was walked"
