"""`fused_elementwise_internal`, the product of the `fuse` pipeline stage.

Its operands are the external inputs of a chain of elementwise ops; its attribute `body` is the
chain as a `FusedBody`, an immutable graph from those operands to the node's outputs, hashed by
its text (equal chains share one native kernel). Types come from the body, so the node verifies
like any other; the printer nests the body in the node and the parser reads it back.

It deliberately has no gradient rule (ARCH-068): fusion runs after autodiff, so a fused node
in a graph handed to `build_backward_graph` is a mistake and fails loudly there (ARCH-062).

The backends inline the body (frame/backends/numpy.py) or compile it to one C loop
(frame/backends/native.py); the kernel here, for eager calls, runs the body op by op.
"""
from __future__ import annotations

from ..errors import ShapeError
from ..ir.clone import copy_nodes
from ..ir.graph import Graph
from ..ir.registry import INTERNAL, NodeContext, register_op, run_graph


class FusedBody(Graph):
    """A fused chain's graph, frozen by `freeze()`: its inputs, nodes and outputs become tuples (no
    node, input or output can be added after it), and it is hashed and compared by its text."""

    _text: str | None = None

    def freeze(self) -> "FusedBody":
        from ..ir.printer import print_graph

        self.inputs, self.nodes, self.outputs = tuple(self.inputs), tuple(self.nodes), tuple(self.outputs)
        self._text = print_graph(self)
        self._hash = hash(self._text)
        return self

    @classmethod
    def of(cls, graph: Graph) -> "FusedBody":
        """A frozen copy of `graph`."""
        body = cls(graph.name)
        values = {v: body.add_input(v.type) for v in graph.inputs}
        copy_nodes(body, graph.nodes, values)
        for v in graph.outputs:
            body.mark_output(values[v])
        return body.freeze()

    def __hash__(self):
        if self._text is None:
            raise TypeError("a fused body is hashable once frozen")
        return self._hash

    def __eq__(self, other):
        return self is other or (isinstance(other, FusedBody) and self._text is not None
                                 and self._text == other._text)


def _shape(ctx: NodeContext):
    body = ctx.attrs["body"]
    want = [v.type for v in body.inputs]
    if list(ctx.input_types) != want:
        raise ShapeError(f"op '{ctx.op}': operands ({', '.join(map(str, ctx.input_types))}) do not match the body's "
                         f"inputs ({', '.join(map(str, want))})")
    return [v.type for v in body.outputs]


register_op("fused_elementwise_internal", shape=_shape, kernel=lambda *operands, body: run_graph(body, *operands),
            attrs={"body": ((FusedBody,), True)}, traits=(INTERNAL,), doc="a fused chain of elementwise ops; `body` is the chain's graph (a FusedBody)")
