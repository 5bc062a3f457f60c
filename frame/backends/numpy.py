"""The numpy backend: an execution plan becomes the source of one straight-line Python function.

As torch.fx's codegen does: one line per instruction, constants and kernels bound once at compile
time, no per-node dictionary lookups at run time. Each op is emitted from its registry facts
(frame/ir/registry.py): a `numpy` function name is called with the operands and the plan's buffer
(`out=`), an `emit(e, *operands)` fact writes its own expression over this module's emitter, and
an op without either calls its kernel. Fresh results are `del`eted right after their last use.
Fused bodies are inlined op by op (the plan flattens them), every op still writing in place.

Matmuls: an instruction whose emission calls `np.matmul` is a BLAS call. Its splat constant
operands are bound contiguous (numpy runs zero-stride operands through its slow non-BLAS loop:
a ones-vector contraction took ~68 us instead of ~10 us), and the largest such product's size
(`Program.blas_macs`) sets the runtime's BLAS thread policy (frame/runtime/blas.py).
"""
from __future__ import annotations

import ctypes
import functools
import math

import numpy as np

from ..compiler.passes.plan import ExecutionPlan, Instr, is_view
from ..errors import ShapeError
from ..ir.graph import Value
from ..ir.registry import get
from ..ir.types import Dim, attr_is_symbolic, evaluate_shape, size_hint
from . import Program

_addressof, _char = ctypes.addressof, ctypes.c_char


def _numpy_name(obj) -> str | None:
    """`np_add`, `np_add_reduce`, `np_broadcast_to`: the generated name of a numpy callable, or None."""
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, np.ufunc):
        return f"np_{owner.__name__}_{obj.__name__}"
    name = getattr(obj, "__name__", None)
    return f"np_{name}" if name and getattr(np, name, None) is obj else None


class Emitter:
    """Collects the generated lines and the objects they refer to; what an op's `numpy` fact sees.

    For the instruction being emitted: `attrs`, `in_types`, `out_type`, and `out` (", out=bN"
    when the plan gives its result a buffer, else "")."""

    def __init__(self):
        self.lines: list[str] = []
        self.namespace: dict = {"np": np, "np_array": np.array}
        self._bound: dict[int, str] = {}
        self.op, self.attrs, self.in_types, self.out_type, self.out = "", {}, [], None, ""
        self.calls_blas = False

    def bind(self, obj, prefix: str) -> str:
        """A global name for `obj` in the generated function (one per distinct object)."""
        name = self._bound.get(id(obj))
        if name is None:
            name = self._bound[id(obj)] = f"{prefix}{len(self._bound)}"
            self.namespace[name] = obj
        return name

    def fn(self, obj) -> str:
        """The name of `obj` (a numpy function, a kernel, an index) in the generated code."""
        if obj is np.matmul:
            self.calls_blas = True
        name = self._bound.get(id(obj))
        if name is not None:
            return name
        name = _numpy_name(obj)
        if name is None or self.namespace.get(name, obj) != obj:
            return self.bind(obj, f"k_{self.op}_" if callable(obj) else "o")
        if name not in self.namespace:   # ids are recorded only for objects the namespace keeps alive:
            self._bound[id(obj)] = name  # np.add.reduce is a new, equal, short-lived object at each access
            self.namespace[name] = obj
        return name

    def scalar(self, value) -> str:
        """A 0-d array of `value` in the output's dtype."""
        return self.bind(np.asarray(value, dtype=self.out_type.dtype), "s")

    def emit(self, ins: Instr, args: list[str], result: str, buffer: str | None) -> None:
        """Append the lines computing `ins` into the name `result` (in `buffer` when given)."""
        schema = get(ins.op)
        self.op, self.attrs = ins.op, ins.attrs
        self.in_types = [v.type for v in ins.inputs]
        self.out_type = ins.outputs[0].type if ins.outputs else None
        self.out = f", out={buffer}" if buffer else ""
        self.calls_blas = False
        if ins.attrs and self.symbolic_attrs(ins):
            # Attributes holding symbolic sizes (a reshape's or broadcast's shape) are evaluated at each
            # call from the symbols' locals (`n = a0.shape[0]` heads the function): the kernel is called
            # with them as keyword source, whatever the op's emission would bind as constants.
            self.symbolic_kernel_call(ins, args, result)
        elif isinstance(schema.numpy, str):
            self.lines.append(f"{result} = {self.fn(getattr(np, schema.numpy))}({', '.join(args)}{self.out})")
        elif schema.numpy is not None:
            self.lines.append(f"{result} = {schema.numpy(self, *args)}")
        elif self.symbolic_attrs(ins):
            self.symbolic_kernel_call(ins, args, result)
        else:
            kernel = schema.kernel
            call = f"{self.fn(functools.partial(kernel, **ins.attrs) if ins.attrs else kernel)}({', '.join(args)})"
            self.lines.append(call if not ins.outputs else f"{result} = {call}" if len(ins.outputs) == 1
                              else f"{result}, = {call}")


    @staticmethod
    def symbolic_attrs(ins: Instr) -> list[str]:
        """The attributes of `ins` that hold symbolic dimensions."""
        return [k for k, v in ins.attrs.items() if attr_is_symbolic(v)]

    def symbolic_kernel_call(self, ins: Instr, args: list[str], result: str) -> None:
        """`result = kernel(args, key=<source of the symbolic attribute>, ...)`, the other attributes bound."""
        schema = get(ins.op)
        symbolic = self.symbolic_attrs(ins)
        fixed = {k: v for k, v in ins.attrs.items() if k not in symbolic}
        kernel = self.fn(functools.partial(schema.kernel, **fixed) if fixed else schema.kernel)
        keywords = ", ".join(f"{k}={ins.attrs[k]!r}" for k in symbolic)   # a Dim's repr is its Python expression
        call = f"{kernel}({', '.join(args + [keywords])})"
        self.lines.append(call if not ins.outputs else f"{result} = {call}" if len(ins.outputs) == 1
                          else f"{result}, = {call}")


# The generated code's own names: inputs a0.., buffers b0.. and their addresses p0.., results v0..,
# constants c0../cc0.., bound objects s0../o0../d0../k_*, kernels nk0../seg0.., numpy's np_*.
_GENERATED_NAME = __import__("re").compile(r"^(?:(?:[abvcposd]|cc|nk|seg)\d+|np_\w*|k_\w*|t_\w*|p_\w*|"
                                          r"address|arena|run|pa|np|np_array)$")


def symbol_sources(graph) -> dict[str, tuple[int, int]]:
    """Where each symbol of a symbolic graph's inputs is read at a call: symbol -> (input, axis), the
    first input axis whose size is that symbol alone. `ShapeError` for a symbol found only inside
    expressions (`2*n`: its value would need solving for) or named like the generated code's locals."""
    sources: dict[str, tuple[int, int]] = {}
    seen: set[str] = set()
    for i, v in enumerate(graph.inputs):
        for axis, d in enumerate(v.type.shape):
            if type(d) is Dim:
                seen.update(d.symbols)
                if len(d.terms) == 1 and d.terms[0][1] == 1 and len(d.terms[0][0]) == 1:
                    sources.setdefault(d.terms[0][0][0], (i, axis))
    missing = sorted(seen - set(sources))
    if missing:
        raise ShapeError(f"@{graph.name}: the symbol(s) {', '.join(missing)} appear only in expressions of input sizes; "
                         "each symbol must be the whole size of some input axis")
    clash = sorted(s for s in sources if _GENERATED_NAME.match(s))
    if clash:
        raise ShapeError(f"@{graph.name}: the symbol name(s) {', '.join(clash)} clash with the generated code's names; "
                         "name symbols like n, batch or points")
    return sources


def address(array: np.ndarray) -> int:
    """The address of a contiguous array's data, for native calls: through ctypes' buffer view
    (~0.7 us), 3x faster than `array.ctypes.data`, which stays for read-only and empty arrays."""
    try:
        return _addressof(_char.from_buffer(array))
    except (TypeError, ValueError):
        return array.ctypes.data


def _blas_macs(ins: Instr) -> int:
    """Multiply-adds of one GEMM of a matmul-shaped instruction: its three matrices are M x K, K x N
    and M x N in some order (read transposed or not), so M*N*K is the square root of their sizes'
    product. Batch axes do not count: numpy runs a stacked matmul as one GEMM per matrix, and the
    BLAS thread policy is about one GEMM's size (the FNO's [128, 64] @ [20, 64, 1024] counted 20x
    and got two BLAS threads for 8.4M multiply-adds per GEMM)."""
    a, b = (tuple(map(size_hint, v.type.shape)) for v in ins.inputs)   # symbols: a cost model's stand-in size
    out = tuple(map(size_hint, ins.outputs[0].type.shape))
    return math.isqrt(math.prod(a[-2:]) * math.prod(b[-2:]) * math.prod(out[-2:]))


def blas_macs_at(plan: ExecutionPlan, env: dict) -> int:
    """The multiply-adds of the largest matmul of a symbolic plan for the sizes `env` of a call (the BLAS
    thread policy of that call: a size hint would pick threads for 8 rows as for 8000)."""
    macs = 0
    for ins in plan.instrs:
        if ins.op == "matmul":
            a, b = (evaluate_shape(v.type.shape, env) for v in ins.inputs)
            out = evaluate_shape(ins.outputs[0].type.shape, env)
            macs = max(macs, math.isqrt(math.prod(a[-2:]) * math.prod(b[-2:]) * math.prod(out[-2:])))
    return macs


def _emit_native_call(e: Emitter, ins: Instr, args: list[str], outs: list[str], plan: ExecutionPlan, kernel,
                      pointer_of: dict[str, str], symbols=()) -> None:
    """Lines calling the native kernel of a fused node kept whole: operand and result addresses in,
    results written in place (into their buffers, or fresh arrays when they leave the call). A kernel
    over symbolic sizes takes the sizes of this call first (`symbols`, the locals the function binds)."""
    line = e.lines.append
    pointers = list(symbols)
    for v, name in zip(ins.inputs, args):
        if v in plan.buffer_of:
            pointers.append(f"p{plan.buffer_of[v]}")
        elif name in pointer_of:   # a graph input or a constant, contiguous, its address known
            pointers.append(pointer_of[name])
        else:                      # a view or a fresh result: a contiguous copy when it is not one
            tmp = f"{name}_c"
            line(f"{tmp} = np_ascontiguousarray({name})")
            pointers.append(f"address({tmp})")
    for v, name in zip(ins.outputs, outs):
        if v in plan.buffer_of:
            line(f"{name} = b{plan.buffer_of[v]}")
            pointers.append(f"p{plan.buffer_of[v]}")
        else:
            line(f"{name} = np_empty({v.type.shape!r}, {e.bind(np.dtype(v.type.dtype), 'd')})")
            pointers.append(f"address({name})")
    line(f"{e.bind(kernel, 'nk')}({', '.join(pointers)})")


def _emit_view(e: Emitter, view: Instr, names: dict, counter: int) -> int:
    """The line of a view step outside a segment's call (views move no data); returns the next name number."""
    outs = []
    for v in view.outputs:
        names[v] = f"v{counter}"
        counter += 1
        outs.append(names[v])
    e.emit(view, [names[v] for v in view.inputs], ", ".join(outs), None)
    return counter


def _emit_segment(e: Emitter, plan: ExecutionPlan, seg, fn, names: dict, pointer_of: dict, counter: int,
                  constants: dict) -> tuple[int, int]:
    """Lines calling segment `seg` (C function `fn`): its constants bound, its results named (plan
    buffers, or fresh arrays allocated before the call), the addresses of its slots passed."""
    line = e.lines.append
    macs = 0
    for k in seg.indices:
        ins = plan.instrs[k]
        if ins.op == "constant":
            names[ins.outputs[0]] = name = f"c{len(constants)}"
            constants[name] = ins.attrs["value"]
            dense = np.ascontiguousarray(ins.attrs["value"])
            pointer_of[name] = str(dense.ctypes.data)
            e.bind(dense, "cc")
    for k in seg.early:   # views of inputs and constants: named before the call, which reads them
        counter = _emit_view(e, plan.instrs[k], names, counter)
    produced_inside = set()
    for _, ins, detail in seg.steps:
        if ins.op == "matmul":
            macs = max(macs, _blas_macs(ins))
        for v in ins.outputs:
            names[v] = name = f"v{counter}"
            counter += 1
            produced_inside.add(v)
            if v in plan.buffer_of:
                line(f"{name} = b{plan.buffer_of[v]}")
            else:
                line(f"{name} = np_empty({v.type.shape!r}, {e.bind(np.dtype(v.type.dtype), 'd')})")
    pointers = []
    for j, v in enumerate(seg.slots):
        name = names[v]
        if name in pointer_of:                 # a graph input or a constant
            pointers.append(pointer_of[name])
        elif v in produced_inside:
            pointers.append(f"address({name})")
        else:                                  # a fresh result made before: contiguous, kept alive by a name
            line(f"t_{seg.name}_{j} = np_ascontiguousarray({name})")
            pointers.append(f"address(t_{seg.name}_{j})")
    line(f"{e.bind(fn, 'seg')}(pa, {', '.join(pointers)})" if pointers else f"{e.bind(fn, 'seg')}(pa)")
    return counter, macs


def generate_source(plan: ExecutionPlan, kernels: dict | None = None, segments=(),
                    kernel_symbols: dict | None = None) -> tuple[str, dict, int]:
    """Python source of `run(*inputs, arena) -> list` for `plan`, the namespace it needs and the
    multiply-adds of its largest BLAS matmul.

    kernels: native kernels (ctypes functions) of the fused nodes the plan keeps whole; the arena
    is then (buffers, their addresses, those addresses as a C array).
    segments: (Segment, ctypes function) pairs, runs of steps called as one C function
    (frame/backends/segments.py); their steps are not emitted one by one."""
    e = Emitter()
    names: dict[Value, str] = {}
    for i, v in enumerate(plan.graph.inputs):
        names[v] = f"a{i}"
    params = [names[v] for v in plan.graph.inputs] + ["arena"]
    body = e.lines
    if any(v.type.is_symbolic for v in plan.graph.inputs):
        # The sizes of this call: each symbol read from an input axis (the executable has checked that the
        # inputs agree on them), named as the symbol, so a Dim's repr is its value's expression here.
        for symbol, (i, axis) in symbol_sources(plan.graph).items():
            body.append(f"{symbol} = a{i}.shape[{axis}]")
    pointer_of: dict[str, str] = {}
    buffers = ", ".join(f"b{i}" for i in range(len(plan.buffers)))
    if kernels or segments:
        e.namespace.update(np_ascontiguousarray=np.ascontiguousarray, np_empty=np.empty, address=address)
        if plan.buffers:
            body.append(f"{buffers}, = arena[0]")
            body.append(f"{', '.join(f'p{i}' for i in range(len(plan.buffers)))}, = arena[1]")
        read = {v for ins in plan.instrs if ins.node in kernels for v in ins.inputs}
        read |= {v for seg, _ in segments for v in seg.slots}
        if segments:
            body.append("pa = arena[2]")
        for v in plan.graph.inputs:
            if v in read:   # inputs read by kernels: a contiguous view or copy, its address taken once
                name = names[v]
                body.append(f"{name}_c = np_ascontiguousarray({name}); p_{name} = address({name}_c)")
                pointer_of[name] = f"p_{name}"
    elif plan.buffers:
        body.append(f"{buffers}, = arena")
    # numpy's matmul picks its BLAS call by the operands' strides: inputs it reads are made contiguous
    # (no copy when they are), so a strided input gives the bits of a contiguous one on every tier
    # (the native tier's segments call BLAS on contiguous operands).
    matmul_inputs = {v for ins in plan.instrs if ins.op == "matmul" for v in ins.inputs} & set(plan.graph.inputs)
    if matmul_inputs:
        e.namespace["np_ascontiguousarray"] = np.ascontiguousarray
        for v in plan.graph.inputs:
            if v in matmul_inputs:
                body.append(f"{names[v]} = np_ascontiguousarray({names[v]})")
    counter = 0
    produced_by: dict[Value, str] = {}
    constants: dict[str, np.ndarray] = {}   # bound once the matmuls reading them are known
    blas_operands: set[str] = set()
    blas_macs = 0
    segment_at = {seg.indices[0]: (seg, fn) for seg, fn in segments}
    in_segment = {i for seg, _ in segments for i in seg.indices}
    for i, ins in enumerate(plan.instrs):
        if i in segment_at:
            seg, fn = segment_at[i]
            counter, macs = _emit_segment(e, plan, seg, fn, names, pointer_of, counter, constants)
            blas_macs = max(blas_macs, macs)
            produced_by.update((v, j.op) for k in seg.indices for j in [plan.instrs[k]] for v in j.outputs)
            deferred = [k for k in seg.indices if is_view(plan.instrs[k].op) and k not in seg.early]
            freed = [v for k in seg.indices for v in plan.instrs[k].free_after]
            for k in deferred:   # views move no data: their Python lines follow the call
                counter = _emit_view(e, plan.instrs[k], names, counter)
            if freed:
                body.append(f"del {', '.join(names[v] for v in freed)}")
            continue
        if i in in_segment:
            continue
        produced_by.update((v, ins.op) for v in ins.outputs)
        if ins.op == "constant":
            value = ins.attrs["value"]
            names[ins.outputs[0]] = name = f"c{len(constants)}"
            constants[name] = value
            if kernels or segments:  # kernels read a contiguous copy (a splat is a zero-stride view); numpy ops the original
                dense = np.ascontiguousarray(value)
                pointer_of[name] = str(dense.ctypes.data)
                e.bind(dense, "cc")   # the namespace keeps it alive
            continue
        outs = []
        for v in ins.outputs:
            names[v] = f"v{counter}"
            counter += 1
            outs.append(names[v])
        args = [names[v] for v in ins.inputs]
        if kernels and ins.node in kernels:
            _emit_native_call(e, ins, args, outs, plan, kernels[ins.node], pointer_of,
                              kernel_symbols.get(ins.node, ()) if kernel_symbols else ())
        else:
            buffer = None
            if ins.outputs and ins.outputs[0] in plan.buffer_of:
                buffer = f"b{plan.buffer_of[ins.outputs[0]]}"
            e.emit(ins, args, ", ".join(outs), buffer)
            if e.calls_blas:
                blas_operands.update(args)
                blas_macs = max(blas_macs, _blas_macs(ins))
        if ins.free_after:  # names die at their last use: fresh results are released at once
            body.append(f"del {', '.join(names[v] for v in ins.free_after)}")
    for name, value in constants.items():
        e.namespace[name] = np.ascontiguousarray(value) if name in blas_operands else value
    results = []
    for v in plan.graph.outputs:
        # A returned view, input or constant is copied: the caller owns what it gets.
        if v.node is None or produced_by.get(v) == "constant" or is_view(produced_by.get(v, "")):
            results.append(f"np_array({names[v]})")
        else:
            results.append(names[v])
    body.append(f"return [{', '.join(results)}]")
    text = f"def run({', '.join(params)}):\n" + "".join(f"    {ln}\n" for ln in body)
    return text, e.namespace, blas_macs


def run_function(source: str, namespace: dict, label: str):
    """The `run` function that `source` defines."""
    exec(compile(source, label, "exec"), namespace)
    return namespace["run"]


class NumpyBackend:
    """Every op, on numpy; fused bodies inlined op by op, results written in place where facts allow."""

    name = "numpy"

    def supports(self, node) -> bool:
        return True   # every op has a kernel, and every elementwise op runs inside a body as outside

    def runs_whole(self, node) -> bool:
        return False

    def writes_out(self, op: str) -> bool:
        return get(op).numpy_out   # the fact says whether its emission writes into `e.out`

    def program(self, plan: ExecutionPlan) -> Program:
        source, namespace, macs = generate_source(plan)
        run = run_function(source, namespace, f"<frame plan @{plan.graph.name}>")
        if any(t.is_symbolic for t in plan.buffers):
            # Buffers of symbolic size are made per binding of the symbols (the executable keeps arenas per binding).
            program = Program(self.name, plan, source, run,
                              lambda env: tuple(np.empty(evaluate_shape(t.shape, env), t.dtype) for t in plan.buffers),
                              blas_macs=macs)
            program.symbolic = True   # new_arena takes the binding {symbol: size}
            return program
        return Program(self.name, plan, source, run,
                       lambda: tuple(np.empty(t.shape, t.dtype) for t in plan.buffers), blas_macs=macs)


NUMPY = NumpyBackend()
