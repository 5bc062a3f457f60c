"""`fused_elementwise_internal`, the product of the `fuse` pipeline stage.

Its operands are the external inputs of a chain of elementwise ops; its attribute `body` is the
printed IR text (`str(graph)`) of the chain as a graph whose inputs are those operands and whose
outputs are the node's outputs. Types come from the body, so the node verifies like any other.

It deliberately has no gradient rule (ARCH-068): fusion runs after autodiff, so a fused node
in a graph handed to `build_backward_graph` is a mistake and fails loudly there (ARCH-062).

The numpy executor inlines the body with in-place `out=` buffers (see frame/runtime/executable.py);
the kernel here, used for eager calls and by other executors, runs the body op by op.
"""
from __future__ import annotations

from functools import lru_cache

from ..errors import ShapeError
from .schema import INTERNAL, NodeContext, get, register_op


@lru_cache(maxsize=1024)
def body_graph(text: str):
    """The body graph of a fused node, parsed once per distinct body text."""
    from ..ir.parser import ParseError, parse_graph

    try:
        return parse_graph(text)
    except ParseError as e:
        raise ShapeError(f"op 'fused_elementwise_internal': its body does not parse: {e}") from None


def _shape(ctx: NodeContext):
    body = body_graph(ctx.attrs["body"])
    want = [v.type for v in body.inputs]
    if list(ctx.input_types) != want:
        raise ShapeError(f"op '{ctx.op}': operands ({', '.join(map(str, ctx.input_types))}) do not match the body's "
                         f"inputs ({', '.join(map(str, want))})")
    return [v.type for v in body.outputs]


@lru_cache(maxsize=1024)
def _program(text: str):
    """The body as a list of (kernel, attrs, operand slots, result slots) over a flat slot list."""
    body = body_graph(text)
    slot = {v: i for i, v in enumerate(body.inputs)}
    steps = []
    for node in body.nodes:
        for v in node.outputs:
            slot[v] = len(slot)
        steps.append((get(node.op).kernel, node.attrs, [slot[v] for v in node.inputs],
                      [slot[v] for v in node.outputs]))
    return steps, len(slot), [slot[v] for v in body.outputs]


def _kernel(*operands, body: str):
    steps, n_slots, outputs = _program(body)
    env = list(operands) + [None] * (n_slots - len(operands))
    for kernel, attrs, ins, outs in steps:
        result = kernel(*[env[i] for i in ins], **attrs)
        if len(outs) == 1:
            env[outs[0]] = result
        else:
            for i, r in zip(outs, result):
                env[i] = r
    results = [env[i] for i in outputs]
    return results[0] if len(results) == 1 else tuple(results)


register_op("fused_elementwise_internal", shape=_shape, kernel=_kernel, attrs={"body": ((str,), True)},
            traits=(INTERNAL,), doc="a fused chain of elementwise ops; `body` is the chain's graph in text form")
