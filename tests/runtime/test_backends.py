"""The backends read the op registry (issue 13): every op's `numpy` fact is how the numpy backend
emits it, every `c` fact is what the native backend fuses (for its `c_dtypes`, and nothing else),
and the runtime lowers the source graph once per backend instead of undoing and redoing passes."""
import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import frame
import frame.numpy as fnp
from frame.backends import native
from frame.backends.native import NATIVE
from frame.backends.numpy import NUMPY, Emitter
from frame.compiler import pipeline
from frame.compiler.passes.plan import Instr
from frame.ir import Graph
from frame.ir.printer import fingerprint
from frame.ir.types import TensorType
from frame.ops.fused import FusedBody
from frame.ir.registry import all_ops
from tests.ops.strategies import EXAMPLES

NUMPY_OPS = sorted(s.name for s in all_ops() if s.numpy is not None)
C_OPS = sorted(s.name for s in all_ops() if s.c is not None)
FEW = settings(max_examples=20, deadline=None, database=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])


def one_node(op, inputs, attrs):
    """A graph holding one `op` node on inputs of the given arrays' types, or None when the shape rule refuses."""
    g = Graph("g")
    xs = [g.add_input(TensorType(tuple(a.shape), a.dtype.name)) for a in inputs]
    try:
        return g.add_node(op, xs, attrs)
    except frame.FrameError:
        return None


@pytest.mark.parametrize("op", NUMPY_OPS)
def test_every_numpy_fact_is_what_the_numpy_backend_emits(op, monkeypatch):
    schema = frame.ops.find(op)
    fact, calls, emitted_lines = schema.numpy, [], []
    if callable(fact):
        monkeypatch.setattr(schema, "numpy", lambda e, *args: calls.append(args) or fact(e, *args))

    @FEW
    @given(EXAMPLES[op])
    def emitted(example):
        node = one_node(op, *example)
        if node is None:
            return
        e = Emitter()
        args = [f"a{i}" for i in range(len(node.inputs))]
        e.emit(Instr(node, list(node.inputs), list(node.outputs)), args, "r", "b0")
        line, = e.lines
        if isinstance(fact, str):
            assert f"= np_{fact}({', '.join(args)}" in line and e.namespace[f"np_{fact}"] is getattr(np, fact)
        else:
            assert calls and calls[-1] == tuple(args)
        assert ("out=b0" in line) == schema.numpy_out == NUMPY.writes_out(op), line
        emitted_lines.append(line)

    emitted()
    assert emitted_lines, f"no example of {op} passed its shape rule"


def test_ops_without_a_numpy_fact_call_their_kernel():
    g = Graph("g")
    x = g.add_input(TensorType((2, 3), "float32"))
    node = g.add_node("concat", [x, x], {"axis": 0})
    e = Emitter()
    e.emit(Instr(node, [x, x], list(node.outputs)), ["a0", "a0"], "r", "b0")
    assert e.lines == ["r = k_concat_0(a0, a0)"] and not NUMPY.writes_out("concat")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize("op", C_OPS)
def test_native_fuses_exactly_the_ops_with_a_c_fact_for_their_dtypes(op, dtype):
    schema = frame.ops.find(op)
    node = one_node(op, [np.zeros(3, dtype)] * schema.num_inputs, {})
    if node is None:
        pytest.skip(f"{op} refuses {dtype} operands")
    assert NATIVE.supports(node) == (dtype in schema.c_dtypes and dtype in ("float32", "float64"))
    if NATIVE.supports(node):   # and its C expression is the fact's
        body = FusedBody("fused")
        xs = [body.add_input(v.type) for v in node.inputs]
        body.mark_output(body.add_node(op, xs).outputs[0])
        spec = native.kernel_spec(body.freeze())
        ctype = {"float32": "float", "float64": "double"}[dtype]
        want = schema.c.format(*(f"x{i}" for i in range(len(xs))), t=ctype, f="f" if ctype == "float" else "")
        assert f"const {ctype} t0 = {want};" in spec.c_body


@pytest.mark.parametrize("op", sorted(set(EXAMPLES) - set(C_OPS)))
def test_native_fuses_no_op_without_a_c_fact(op):
    @FEW
    @given(EXAMPLES[op])
    def refused(example):
        node = one_node(op, *example)
        assert node is None or not NATIVE.supports(node)

    refused()


@pytest.mark.skipif(native.c_compiler() is None, reason="no C compiler: the native tier cannot be built")
def test_the_native_tier_lowers_the_source_graph_instead_of_refusing_an_optimised_one(monkeypatch, native_on_demand):
    fused_inputs = []
    stages = [(name, stage) for name, stage in pipeline.STAGES]
    fuse = dict(stages)["fuse"]

    def watched_fuse(graph, options=None, **capabilities):
        fused_inputs.append(any(n.op == "fused_elementwise_internal" for n in graph.nodes))
        return fuse(graph, options, **capabilities)

    monkeypatch.setattr(pipeline, "STAGES", [(n, watched_fuse if n == "fuse" else s) for n, s in stages])
    x = np.linspace(-1.0, 1.0, 64).reshape(8, 8)
    graph = frame.trace(lambda x: fnp.sum(fnp.tanh(x * 2.0 + 1.0) * x - x * x), x)
    frame.runtime.clear_cache()
    exe = frame.runtime.compile(graph)
    assert exe.wait_native(timeout=120) and exe.tier == "native"
    assert fused_inputs == [False, False]   # once per backend, each time on an unfused graph
    native_graph = exe._tier.plan.graph
    assert fingerprint(native_graph) == fingerprint(pipeline.run_pipeline(graph, None, NATIVE))
    assert fingerprint(exe.graph) == fingerprint(pipeline.run_pipeline(graph, None, NUMPY))
    assert fingerprint(native_graph) != fingerprint(exe.graph)   # tanh stays outside the native chains
    assert not hasattr(frame.compiler.passes.fuse, "unfuse")


def test_numpy_functions_keep_their_numpy_names():
    # np.add.reduce is a new bound method object at each access: every sum still calls np_add_reduce
    g = Graph("g")
    x = g.add_input(TensorType((2, 3), "float32"))
    e = Emitter()
    for axes in ((0,), (1,)):
        node = g.add_node("sum", [x], {"axes": axes})
        e.emit(Instr(node, [x], list(node.outputs)), ["a0"], "r", None)
    assert all(line.startswith("r = np_add_reduce(a0") for line in e.lines), e.lines


def test_a_short_lived_numpy_method_never_lends_its_name_to_another_object():
    # np.add.reduce dies right after the call; an object later allocated at its address is not it
    e = Emitter()
    for _ in range(50):
        assert e.fn(np.add.reduce) == "np_add_reduce"
        assert e.fn(functools.partial(np.negative)) != "np_add_reduce"
