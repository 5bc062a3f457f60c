"""Row partition: a graph whose rows are independent, computed on chunks of rows.

Collocation points and samples are independent rows: in a PINN step every value either runs over the
rows of the data along one axis, or does not depend on them, until a sum over the rows (a loss mean,
a weight gradient `x^T dy`, a bias gradient) reduces them. Such a graph can run on chunks of rows in
parallel threads, each chunk giving partial sums that add up to the whole one, and then finish on the
sums. `partition_rows(graph)` finds that split, graph to graphs:

- the **chunk graph** (`RowPartition.chunk_graph(n)`): the inputs with `n` rows in place of the row
  inputs' row count, every row-wise node with its attrs for `n` rows (the ops' `rows` facts, see
  frame/ops/rows_rules.py), and as outputs the partial sums the rest needs and the row-wise values
  the graph returns;
- the **combine graph**: the row-free inputs and the summed partials in, the rest of the graph (the
  optimiser update, the loss value) out.

Row inputs are the inputs whose leading axis has the row count N, tried from the largest leading
size down (`row_counts`); they are split along it. A row axis may be merged with its neighbouring
axes by a reshape and split out again (`_State.pre`/`post`: the axis holds pre x N x post elements),
as a batch folded into a GEMM's rows is. A constant that reaches a row axis (a splat of ones seeding a
gradient, a dense array of N values) is resized, or sliced per chunk as an extra chunk input. The
analysis gives up (returns None, and the graph runs whole) when an op has no `rows` fact, mixes
rows other than by a sum (max over the rows, a row permutation), when a row-wise value is needed
after a sum over the rows (normalising by a batch statistic), or when the graph is too small for
threads to pay off. It never changes what is computed, only where sums are split: results differ
from the whole graph's by the reassociation of those sums, and are reproducible for a fixed number
of chunks.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir.graph import Graph, Value
from ..ir.registry import ELEMENTWISE, SIDE_EFFECT, NodeContext, get
from ..ir.types import TensorType
from ..ops import rows_rules
from ..ops.rows_rules import SUM

FREE, ROW, PARTIAL, AFTER = "free", "row", "partial", "after"   # what a value is, see `_classify`
BROADCAST = "broadcast"   # how a row-free broadcast_to is given the rows (`_promote`)


@dataclass
class _State:
    kind: str
    axis: int | None = None      # the row axis of a ROW value
    pre: int = 1                 # that axis holds pre x rows x post elements, row-major: the rows merged
    post: int = 1                # with neighbouring axes by a reshape (a batch axis folded into GEMM rows)


def rows_rule(op: str):
    """The op's `rows` fact, else the generic elementwise rule for ELEMENTWISE ops, else None."""
    schema = get(op)
    if schema.rows is not None:
        return schema.rows
    if schema.has(ELEMENTWISE):
        return rows_rules.elementwise
    return None


class _GiveUp(Exception):
    pass


@dataclass
class RowPartition:
    """The split of `graph` (see the module docstring). `outputs[j]` says where output j comes from:
    ("row", i, axis): chunk output i, concatenated along `axis`; ("sum", i): chunk output i summed
    over the chunks; ("combine", i): combine output i."""
    graph: Graph
    rows: int
    row_inputs: tuple[int, ...]
    sliced_constants: list                  # (constant node, axis): extra chunk inputs, sliced per chunk
    combine: Graph
    combine_sums: list[int]                 # chunk outputs that the combine graph takes, in order
    outputs: list[tuple]
    row_elements: int                       # elements of all row-wise values, a cost estimate
    _states: dict = field(repr=False, default_factory=dict)
    _chunk_values: list = field(repr=False, default_factory=list)   # (value, state) per chunk output
    _promotions: dict = field(repr=False, default_factory=dict)
    _chunks: dict = field(repr=False, default_factory=dict)

    def chunk_graph(self, n: int) -> Graph:
        """The graph of one chunk of `n` rows (memoised per `n`)."""
        if n not in self._chunks:
            self._chunks[n] = _build_chunk(self, n)
        return self._chunks[n]


def row_counts(graph: Graph) -> list[int]:
    """The candidate row counts: the inputs' distinct leading sizes above 1, largest first (a PINN's
    points outnumber its widths; an FNO's parameters can be longer than its batch, so each is tried)."""
    return sorted({v.type.shape[0] for v in graph.inputs if v.type.rank >= 1 and v.type.shape[0] >= 2},
                  reverse=True)


def _row_inputs(graph: Graph, rows: int) -> tuple[int, ...]:
    return tuple(i for i, v in enumerate(graph.inputs) if v.type.rank >= 1 and v.type.shape[0] == rows)


def _first_partition(graph: Graph, min_row_elements: int) -> tuple[RowPartition | None, list[str]]:
    """The partition along the first row count of `row_counts` that has one (None when none has, or
    when its row-wise values hold fewer than `min_row_elements` elements in all), and why each row
    count tried before it has none."""
    reasons = []
    for rows in row_counts(graph):
        row_inputs = _row_inputs(graph, rows)
        try:
            states, promotions = _classify(graph, rows, row_inputs)
            row_elements = sum(v.type.size for v, s in states.items() if s.kind == ROW)
            if row_elements < min_row_elements:
                return None, reasons + [f"{rows} rows: {row_elements} row-wise elements, fewer than {min_row_elements}"]
            return _split(graph, rows, row_inputs, states, promotions, row_elements), reasons
        except _GiveUp as e:
            reasons.append(f"{rows} rows: {e}")
    return None, reasons


def partition_rows(graph: Graph, min_row_elements: int = 0) -> RowPartition | None:
    """The row partition of `graph` along the first row count of `row_counts` that has one, or None
    when none has (see the module docstring) or its row-wise values hold fewer than
    `min_row_elements` elements in all."""
    return _first_partition(graph, min_row_elements)[0]


def why_not_partitioned(graph: Graph) -> str | None:
    """Why `graph` has no row partition (for each candidate row count, the op or value that stops it),
    or None when it has one."""
    partition, reasons = _first_partition(graph, 0)
    return None if partition is not None else "; ".join(reasons) or "no input has more than one row"


# -- analysis -------------------------------------------------------------------------------------
def _classify(graph: Graph, rows: int, row_inputs) -> tuple[dict, dict]:
    """Each value's state: FREE (no row dependence), ROW (runs over the rows along `axis`), PARTIAL (a
    sum over the rows: chunks give partial sums) or AFTER (computed from partial sums); and the
    promotions: row-free values that must run over the rows for a row-wise consumer."""
    states: dict[Value, _State] = {}
    promotions: dict = {}    # (value, axis) -> None for a constant, BROADCAST, else its producer's operand axes
    for i, v in enumerate(graph.inputs):
        states[v] = _State(ROW, 0) if i in row_inputs else _State(FREE)
    for node in graph.nodes:
        if get(node.op).has(SIDE_EFFECT):
            raise _GiveUp(f"op '{node.op}' has side effects: it would run once per chunk")
        ins = [states[v] for v in node.inputs]
        kinds = {s.kind for s in ins}
        if kinds & {PARTIAL, AFTER}:
            if ROW in kinds:
                raise _GiveUp(f"{node.op} needs a row-wise value after a sum over the rows")
            out = [_State(AFTER)] * len(node.outputs)
        elif ROW in kinds:
            out = _row_node(node, ins, rows, promotions)
        else:
            out = [_State(FREE)] * len(node.outputs)
        for v, s in zip(node.outputs, out):
            states[v] = s
    return states, promotions


def _apply_rule(node, axes, n):
    rule = rows_rule(node.op)
    if rule is None:
        raise _GiveUp(f"op '{node.op}' has no rows rule")
    got = rule(NodeContext(node.op, [v.type for v in node.inputs], dict(node.attrs)), axes, n)
    if got is None:
        raise _GiveUp(f"op '{node.op}' mixes rows")
    out = got.out * len(node.outputs) if len(got.out) == 1 else got.out
    if len(out) != len(node.outputs):
        raise _GiveUp(f"the rows rule of '{node.op}' gives {len(got.out)} results for {len(node.outputs)} outputs")
    return got, out


def _layout(node, ins) -> tuple[int, int]:
    """(pre, post) shared by the node's row-wise operands (see `_State`); gives up when they differ."""
    layouts = {(s.pre, s.post) for s in ins if s.kind == ROW}
    if len(layouts) != 1:
        raise _GiveUp(f"the row-wise operands of '{node.op}' hold their rows merged with different axes")
    return layouts.pop()


def _node_rule(node, ins, n: int):
    """(Rows, output states) of a node with row-wise operands `ins` for `n` rows a chunk. A reshape
    follows rows merged with other axes (`rows_rules.reshape_rows`); every other rule keeps the row
    axis' length, so it runs with that length in place of the row count and keeps the layout."""
    pre, post = _layout(node, ins)
    if node.op == "reshape":
        (state,) = ins
        shape = node.attrs["shape"]
        found = rows_rules.reshape_rows(node.inputs[0].type.shape, state.axis, pre, post,
                                        node.inputs[0].type.shape[state.axis] // (pre * post), shape)
        if found is None:
            raise _GiveUp("op 'reshape' mixes rows")
        b, pre2, post2 = found
        return rows_rules.Rows((b,), {**node.attrs, "shape": (*shape[:b], pre2 * n * post2, *shape[b + 1:])}), \
            [_State(ROW, b, pre2, post2)]
    axes = [s.axis if s.kind == ROW else None for s in ins]
    got, out = _apply_rule(node, axes, pre * n * post)
    if got.needs and (pre, post) != (1, 1):   # promotions resize or slice whole rows only
        raise _GiveUp(f"'{node.op}' needs a row-free operand over rows merged with other axes")
    return got, [_State(PARTIAL) if a == SUM else _State(ROW, a, pre, post) for a in out]


def _row_node(node, ins, rows: int, promotions) -> list:
    got, out = _node_rule(node, ins, rows)
    for i, axis in got.needs:
        if not _promote(node.inputs[i], axis, rows, promotions):
            producer = node.inputs[i].node.op if node.inputs[i].node is not None else "an input"
            raise _GiveUp(f"operand {i} of '{node.op}' ({producer}, {node.inputs[i].type}) has the row count "
                          f"without depending on the rows")
    return out


def _promote(value: Value, axis: int, rows: int, promotions, depth: int = 0) -> bool:
    """Whether a row-free value can be given the rows along `axis`, recording how in `promotions`:
    a constant of that length there (a splat is resized, a dense one sliced per chunk), a broadcast
    that creates that axis (of a loss weight, say: it is broadcast to the chunk's length instead), or
    a value computed from such values by ops with rows rules (a seed of ones times a weight row)."""
    if (value, axis) in promotions:
        return True
    node = value.node
    if node is None or value.type.rank <= axis or value.type.shape[axis] != rows or depth > 64:
        return False
    if node.op == "constant":
        promotions[(value, axis)] = None
        return True
    if node.op == "broadcast_to":
        source = node.inputs[0].type
        p = axis - (value.type.rank - source.rank)
        if p < 0 or source.shape[p] == 1:
            promotions[(value, axis)] = BROADCAST
            return True
    if rows_rule(node.op) is None:
        return False
    for j, operand in enumerate(node.inputs):
        for q, size in enumerate(operand.type.shape):
            if size != rows:
                continue
            axes = [None] * len(node.inputs)
            axes[j] = q
            try:
                got, out = _apply_rule(node, axes, rows)
            except _GiveUp:
                continue
            if out[value.index] != axis:
                continue
            trial = dict(promotions)
            if _promote(operand, q, rows, trial, depth + 1) and all(
                    _promote(node.inputs[i], a, rows, trial, depth + 1) for i, a in got.needs):
                trial[(value, axis)] = tuple(axes)
                promotions.update(trial)
                return True
    return False


# -- the two graphs -------------------------------------------------------------------------------
def _split(graph: Graph, rows: int, row_inputs, states, promotions, row_elements) -> RowPartition:
    chunk_values: list = []       # what the chunk graph returns: (value, state)
    index: dict[Value, int] = {}

    def chunk_output(v) -> int:
        if v not in index:
            index[v] = len(chunk_values)
            chunk_values.append((v, states[v]))
        return index[v]

    # partial sums the combine graph reads
    combine_sums: list[int] = []
    for node in graph.nodes:
        if states[node.outputs[0]].kind == AFTER:
            for v in node.inputs:
                if states[v].kind == PARTIAL and index.get(v) not in combine_sums:
                    combine_sums.append(chunk_output(v))
    outputs = []
    for v in graph.outputs:
        s = states[v]
        if s.kind == ROW and s.pre != 1:
            raise _GiveUp("a row-wise output holds its rows interleaved with another axis")
        if s.kind == ROW:
            outputs.append(("row", chunk_output(v), s.axis))
        elif s.kind == PARTIAL:
            outputs.append(("sum", chunk_output(v)))
        else:
            outputs.append(("combine", None))
    combine, combine_outputs = _build_combine(graph, states, [chunk_values[i][0] for i in combine_sums])
    outputs = [("combine", combine_outputs.pop(0)) if o[0] == "combine" else o for o in outputs]
    sliced = [(v.node, axis) for (v, axis), how in promotions.items()
              if how is None and not _is_splat(np.asarray(v.node.attrs["value"]))]
    return RowPartition(graph, rows, tuple(row_inputs), sliced, combine, combine_sums, outputs, row_elements,
                        states, chunk_values, promotions)


def _is_splat(value: np.ndarray) -> bool:
    return value.size == 0 or all(s == 0 for s in value.strides) or bool(np.all(value == value.flat[0]))


def _build_chunk(part: RowPartition, n: int) -> Graph:
    graph, states = part.graph, part._states
    chunk = Graph(f"{graph.name}_rows")
    env: dict = {}     # (original value, row axis or None) -> chunk value
    for i, v in enumerate(graph.inputs):
        t = v.type
        if i in part.row_inputs:
            t = TensorType((n, *t.shape[1:]), t.dtype, t.device)
        env[(v, states[v].axis if states[v].kind == ROW else None)] = chunk.add_input(t)
    for const, axis in part.sliced_constants:
        t = const.outputs[0].type
        shape = list(t.shape)
        shape[axis] = n
        env[(const.outputs[0], axis)] = chunk.add_input(TensorType(tuple(shape), t.dtype, t.device))
    needed = _needed(graph, [v for v, _ in part._chunk_values], states)

    def row_free(v):
        if (v, None) not in env:     # a row-free value only a promotion needed: copy it
            node = v.node
            new = chunk.add_node(node.op, [row_free(u) for u in node.inputs], node.attrs)
            for u, w in zip(node.outputs, new.outputs):
                env[(u, None)] = w
        return env[(v, None)]

    def promoted(v, axis):
        key = (v, axis)
        if key not in env:
            how = part._promotions[key]
            if how == BROADCAST:   # broadcast to the chunk's length
                shape = list(v.node.attrs["shape"])
                shape[axis] = n
                env[key] = chunk.add_node("broadcast_to", [row_free(v.node.inputs[0])],
                                          {**v.node.attrs, "shape": tuple(shape)}).output
            elif how is None:   # a splat constant, resized (dense ones are chunk inputs)
                value = np.asarray(v.node.attrs["value"])
                shape = list(value.shape)
                shape[axis] = n
                fill = np.asarray(value.flat[0] if value.size else 0, value.dtype)
                env[key] = chunk.add_node("constant", [], {"value": np.broadcast_to(fill, tuple(shape))}).output
            else:
                emit(v.node, list(how))
        return env[key]

    def emit(node, axes):
        if any(a is not None and states[u].kind == ROW for u, a in zip(node.inputs, axes)):
            got, out_states = _node_rule(node, [states[u] if a is not None else _State(FREE)
                                                for u, a in zip(node.inputs, axes)], n)
            out = [s.axis if s.kind == ROW else SUM for s in out_states]
        else:   # a promotion: row-free operands given the rows (never merged with other axes)
            got, out = _apply_rule(node, axes, n)
        need = dict(got.needs)
        operands = [promoted(u, need[i]) if i in need else (promoted(u, a) if (u, a) in part._promotions
                                                              and states[u].kind == FREE else env_row(u, a))
                    for i, (u, a) in enumerate(zip(node.inputs, axes))]
        new = chunk.add_node(node.op, operands, got.attrs if got.attrs is not None else node.attrs)
        for u, w, a in zip(node.outputs, new.outputs, out):
            env[(u, None if a == SUM else a)] = w

    def env_row(u, a):
        return row_free(u) if a is None else env[(u, a)]

    for node in graph.nodes:
        if node not in needed:
            continue
        kind = states[node.outputs[0]].kind
        if kind == FREE:
            row_free(node.outputs[0])
        else:
            emit(node, [states[u].axis if states[u].kind == ROW else None for u in node.inputs])
    for v, s in part._chunk_values:
        chunk.mark_output(env[(v, s.axis if s.kind == ROW else None)])
    return chunk


def _needed(graph: Graph, values, states) -> set:
    """The nodes of the chunk graph: those the chunk outputs depend on."""
    needed, stack = set(), [v.node for v in values if v.node is not None]
    while stack:
        node = stack.pop()
        if node in needed:
            continue
        needed.add(node)
        stack.extend(v.node for v in node.inputs if v.node is not None)
    return needed


def _build_combine(graph: Graph, states, sums: list) -> tuple[Graph, list]:
    """The combine graph: row-free inputs and the summed partials in; the outputs that are neither
    row-wise nor partial sums out (their indices, in order)."""
    combine = Graph(f"{graph.name}_combine")
    env: dict = {}
    for v in graph.inputs:
        if states[v].kind == FREE:
            env[v] = combine.add_input(v.type)
    for v in sums:
        env[v] = combine.add_input(v.type)
    wanted = [v for v in graph.outputs if states[v].kind in (FREE, AFTER)]
    needed = _needed(graph, wanted, states)
    for node in graph.nodes:
        if node in needed and states[node.outputs[0]].kind in (FREE, AFTER):
            new = combine.add_node(node.op, [env[v] for v in node.inputs], node.attrs)
            for v, w in zip(node.outputs, new.outputs):
                env[v] = w
    for v in wanted:
        combine.mark_output(env[v])
    return combine, list(range(len(wanted)))
