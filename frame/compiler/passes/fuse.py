"""Stage `fuse`: maximal chains of elementwise ops become one `fused_elementwise_internal` node.

One forward sweep. An elementwise node joins (and merges) the open groups that produce its
operands, or opens a new group. A group closes when a node outside it reads one of its values;
it is then emitted, right before that reader, as one fused node whose operands are the group's
external inputs and whose outputs are the member values read outside the group or returned.
Because a group only grows while nothing outside has read it, emitting it at its closing point
never breaks the topological order. Splat constants read by members are copied into the body,
so a fused node carries its scalars with it. Single-node groups stay as they are. The body is
a frozen `FusedBody` graph (frame/ops/fused.py).

Which nodes may join a chain is the backend's to say (`can_fuse`, its `supports`): the numpy
backend runs a body op by op with `out=` buffers reused in place (numexpr 2.14 was 5x slower on
these 64K-element float32 chains, so it is not used); the native backend fuses only the ops its
C loops compute exactly and runs each chain as one generated loop (frame/backends/native.py).
The runtime lowers the source graph once per backend, so no pass is ever undone.
"""
from __future__ import annotations

import itertools

from ...ir.clone import copy_nodes
from ...ir.graph import Graph, Node, Value
from ...ops.fused import FusedBody
from ...ir.registry import ELEMENTWISE, SIDE_EFFECT, get
from .dne import dne
from .rewrite import splat_value

FUSED_OP = "fused_elementwise_internal"


def _fusible(node: Node) -> bool:
    schema = get(node.op)
    return (schema.has(ELEMENTWISE) and not schema.has(SIDE_EFFECT) and len(node.outputs) == 1
            and node.op != FUSED_OP)


class _Group:
    """An open chain: its member nodes (in graph order once `ordered` ran) and the values they define."""

    __slots__ = ("members", "values", "opened", "sorted")

    def __init__(self, opened: int):
        self.members: list[Node] = []
        self.values: set[Value] = set()
        self.opened = opened  # rank among the open groups, for emitting those left open at the end in order
        self.sorted = True    # members are in graph order (false after a merge, until `ordered`)

    def add(self, node: Node) -> None:
        self.members.append(node)  # the node being swept comes after every member: order is kept
        self.values.update(node.outputs)

    def absorb(self, other: "_Group") -> None:
        self.members.extend(other.members)
        self.values.update(other.values)
        self.sorted = False

    def ordered(self, position: dict) -> list[Node]:
        """The members in graph order (sorted once, when the group is emitted)."""
        if not self.sorted:
            self.members.sort(key=position.__getitem__)
            self.sorted = True
        return self.members


def fuse(graph: Graph, options=None, can_fuse=None) -> Graph:
    """Fuse elementwise chains; `graph` is not modified (returned as is when there is nothing to fuse).

    can_fuse: an extra condition on the nodes that may join a chain (a backend's `supports`: the
    native backend passes the ops its kernels compute exactly)."""
    fusible = [_fusible(n) and (can_fuse is None or can_fuse(n)) for n in graph.nodes]
    if sum(fusible) < 2:
        return graph
    users: dict[Value, list[Node]] = {}
    for node in graph.nodes:
        for v in node.inputs:
            users.setdefault(v, []).append(node)
    returned = set(graph.outputs)
    position = {n: i for i, n in enumerate(graph.nodes)}

    out = Graph(graph.name)
    vmap: dict[Value, Value] = {v: out.add_input(v.type) for v in graph.inputs}
    group_of: dict[Value, _Group] = {}   # value -> the open group producing it
    open_groups: dict[_Group, None] = {}  # a dict so that closing one is O(1)
    opening = itertools.count()
    member_of: dict[Node, _Group] = {}

    def emit(group: _Group) -> None:
        del open_groups[group]
        for v in group.values:
            group_of.pop(v, None)
        group.ordered(position)
        if len(group.members) == 1:
            copy_nodes(out, group.members, vmap)
            return
        _emit_fused(out, group, vmap, users, returned, member_of)

    for node, can_fuse in zip(graph.nodes, fusible):
        producers = []
        for v in node.inputs:
            g = group_of.get(v)
            if g is not None and g not in producers:
                producers.append(g)
        if can_fuse:
            if producers:
                # Open groups read by one node merge. The largest absorbs the others, so a node
                # changes groups O(log N) times over the sweep (linear-time merging); the merged
                # group takes the first producer's place among the open groups.
                group = max(producers, key=lambda g: len(g.members))
                group.opened = producers[0].opened
                for other in producers:
                    if other is group:
                        continue
                    group.absorb(other)
                    for m in other.members:
                        member_of[m] = group
                    for v in other.values:
                        group_of[v] = group
                    del open_groups[other]
            else:
                group = _Group(next(opening))
                open_groups[group] = None
            group.add(node)
            member_of[node] = group
            for v in node.outputs:
                group_of[v] = group
            continue
        for g in producers:
            emit(g)
        copy_nodes(out, [node], vmap)
    for g in sorted(open_groups, key=lambda g: g.opened):
        emit(g)
    for v in graph.outputs:
        out.mark_output(vmap[v])
    return dne(out)  # constants now read only inside bodies are dead


def _emit_fused(out: Graph, group: _Group, vmap: dict, users: dict, returned: set, member_of: dict) -> None:
    body = FusedBody("fused")
    bmap: dict[Value, Value] = {}
    operands: list[Value] = []
    for node in group.members:
        for v in node.inputs:
            if v in bmap or v in group.values:
                continue
            if v.node is not None and v.node.op == "constant" and splat_value(v) is not None:
                copy_nodes(body, [v.node], bmap)  # scalars travel inside the body
            else:
                bmap[v] = body.add_input(v.type)
                operands.append(v)
        copy_nodes(body, [node], bmap)
    results = [v for node in group.members for v in node.outputs
               if v in returned or any(member_of.get(u) is not group for u in users.get(v, ()))]
    for v in results:
        body.mark_output(bmap[v])
    fused = out.add_node(FUSED_OP, [vmap[v] for v in operands], {"body": body.freeze()})
    for v, r in zip(results, fused.outputs):
        vmap[v] = r
