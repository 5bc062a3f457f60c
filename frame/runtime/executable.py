"""`Executable`: a compiled graph, run as generated straight-line Python over numpy.

The plan (frame/compiler/passes/plan.py) becomes the source of one function, as torch.fx's
codegen does: one line per instruction, constants and kernels bound once at compile time, no
per-node dictionary lookups at run time. Common ops are written as direct numpy calls that
write into the plan's preallocated buffers (`out=`); other ops call their kernel. Fresh
results are `del`eted right after their last use.

Buffers live in an arena owned by the executable and reused across calls. Each call takes an
arena from a pool and gives it back, so concurrent or re-entrant calls each get their own.
Results returned to the caller never live in an arena (the plan allocates them fresh).

Plans whose matmuls are all small run BLAS single-threaded for the duration of the call (set
through threadpoolctl, restored afterwards). Measured on the 2-core reference machine: a
1024x64 @ 64x64 float32 matmul took ~0.14 ms on one OpenBLAS thread and 12-16 ms on two when
other processes kept the cores busy, and the PINN step went from 108 ms to 33 ms; splitting such
small products over threads gains little even on an idle machine.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..compiler.passes.plan import VIEW_OPS, ExecutionPlan, Instr
from ..errors import InputError
from ..ir.graph import Value
from ..ir.types import TensorType
from ..ops.schema import get

# Largest matmul (in multiply-adds) that still runs best on one BLAS thread.
SMALL_MATMUL_MACS = 1 << 26
_MATMUL_OPS = ("matmul", "matmul_grad_lhs_internal", "matmul_grad_rhs_internal")


@functools.lru_cache(maxsize=1)
def _blas_threads():
    """threadpoolctl's controller of numpy's BLAS, or None when threadpoolctl or a BLAS is missing."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    controllers = ThreadpoolController().select(user_api="blas").lib_controllers
    return controllers[0] if controllers else None


def _inner_dim(ins: Instr) -> int:
    """The contracted dimension of a matmul-family instruction."""
    a = ins.inputs[0].type.shape
    return a[-2] if ins.op == "matmul_grad_rhs_internal" else a[-1]


def _largest_matmul_macs(plan: ExecutionPlan) -> int:
    sizes = [math.prod(ins.outputs[0].type.shape) * _inner_dim(ins) for ins in plan.instrs if ins.op in _MATMUL_OPS]
    return max(sizes, default=0)


_UNARY_UFUNCS = {"neg": "negative", "square": "square", "exp": "exp", "log": "log", "sin": "sin", "cos": "cos",
                 "tanh": "tanh", "sqrt": "sqrt"}
_BINARY_UFUNCS = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide"}


class _Source:
    """Collects generated lines and the objects they refer to."""

    def __init__(self):
        self.lines: list[str] = []
        self.namespace: dict = {"np": np}
        for name in {*_UNARY_UFUNCS.values(), *_BINARY_UFUNCS.values(), "maximum", "power", "matmul",
                     "broadcast_to"}:
            self.namespace[f"np_{name}"] = getattr(np, name)
        self.namespace["np_add_reduce"] = np.add.reduce
        self.namespace["np_array"] = np.array
        self._bound: dict[int, str] = {}

    def bind(self, obj, prefix: str) -> str:
        """A global name for `obj` in the generated function (one per distinct object)."""
        name = self._bound.get(id(obj))
        if name is None:
            name = self._bound[id(obj)] = f"{prefix}{len(self._bound)}"
            self.namespace[name] = obj
        return name

    def scalar(self, value, dtype: str) -> str:
        return self.bind(np.asarray(value, dtype=dtype), "s")


def _out(buffer: str | None) -> str:
    return f", out={buffer}" if buffer else ""


def _emit(src: _Source, ins: Instr, args: list[str], result: str, buffer: str | None) -> None:
    """Append the lines computing `ins` into the name `result` (in `buffer` when given)."""
    op, attrs = ins.op, ins.attrs
    line = src.lines.append
    out_type = ins.outputs[0].type if ins.outputs else None
    if op in _BINARY_UFUNCS:
        line(f"{result} = np_{_BINARY_UFUNCS[op]}({args[0]}, {args[1]}{_out(buffer)})")
    elif op in _UNARY_UFUNCS:
        line(f"{result} = np_{_UNARY_UFUNCS[op]}({args[0]}{_out(buffer)})")
    elif op == "relu":
        line(f"{result} = np_maximum({args[0]}, {src.scalar(0, out_type.dtype)}{_out(buffer)})")
    elif op == "pow":
        line(f"{result} = np_power({args[0]}, {src.scalar(attrs['exponent'], out_type.dtype)}{_out(buffer)})")
    elif op == "sigmoid" and (buffer or out_type.rank):
        # The kernel's 0.5 + 0.5 tanh(0.5 x), step by step in one buffer.
        half = src.scalar(0.5, out_type.dtype)
        line(f"{result} = np_multiply({half}, {args[0]}{_out(buffer)})")
        line(f"np_tanh({result}, out={result}); np_multiply({half}, {result}, out={result}); "
             f"np_add({half}, {result}, out={result})")
    elif op in _MATMUL_OPS:
        a, b = args
        if op == "matmul_grad_lhs_internal":
            b = f"{b}.swapaxes(-1, -2)"
        elif op == "matmul_grad_rhs_internal":
            a = f"{a}.swapaxes(-1, -2)"
        # An inner dimension of 1 is an outer product: one rounding per element either way, and a
        # broadcast multiply is ~3x faster than OpenBLAS's gemm with k = 1 (benchmarks/README.md).
        ufunc = "np_multiply" if _inner_dim(ins) == 1 else "np_matmul"
        line(f"{result} = {ufunc}({a}, {b}{_out(buffer)})")
    elif op == "sum":
        line(f"{result} = np_add_reduce({args[0]}, axis={attrs['axes']!r}, "
             f"keepdims={bool(attrs.get('keepdims', False))}{_out(buffer)})")
    elif op == "reshape":
        line(f"{result} = {args[0]}.reshape({attrs['shape']!r})")
    elif op == "transpose":
        line(f"{result} = {args[0]}.transpose({attrs['perm']!r})")
    elif op == "broadcast_to":
        line(f"{result} = np_broadcast_to({args[0]}, {attrs['shape']!r})")
    elif op == "sum_grad_internal":
        shape, axes = tuple(attrs["input_shape"]), tuple(attrs["axes"])
        x = args[0]
        if len(ins.inputs[0].type.shape) != len(shape):
            kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
            x = f"{x}.reshape({kept!r})"
        line(f"{result} = np_broadcast_to({x}, {shape!r})")
    elif op == "slice":
        index = tuple(slice(a, b, c) for a, b, c in zip(attrs["starts"], attrs["stops"], attrs["steps"]))
        line(f"{result} = {args[0]}[{src.bind(index, 'i')}]")
    elif op == "stop_gradient":
        line(f"{result} = {args[0]}")
    else:
        kernel = get(op).kernel
        fn = src.bind(functools.partial(kernel, **attrs) if attrs else kernel, f"k_{op}_")
        call = f"{fn}({', '.join(args)})"
        if not ins.outputs:
            line(call)
        elif len(ins.outputs) == 1:
            line(f"{result} = {call}")
        else:
            line(f"{result}, = {call}")


def generate_source(plan: ExecutionPlan) -> tuple[str, dict]:
    """Python source of `run(*inputs, arena) -> list` for `plan`, and the namespace it needs."""
    src = _Source()
    names: dict[Value, str] = {}
    for i, v in enumerate(plan.graph.inputs):
        names[v] = f"a{i}"
    params = [names[v] for v in plan.graph.inputs] + ["arena"]
    body = src.lines
    if plan.buffers:
        body.append(f"{', '.join(f'b{i}' for i in range(len(plan.buffers)))}, = arena")
    counter = 0
    produced_by: dict[Value, str] = {}
    for ins in plan.instrs:
        produced_by.update((v, ins.op) for v in ins.outputs)
        if ins.op == "constant":
            names[ins.outputs[0]] = src.bind(ins.attrs["value"], "c")
            continue
        outs = []
        for v in ins.outputs:
            names[v] = f"v{counter}"
            counter += 1
            outs.append(names[v])
        buffer = None
        if ins.outputs and ins.outputs[0] in plan.buffer_of:
            buffer = f"b{plan.buffer_of[ins.outputs[0]]}"
        _emit(src, ins, [names[v] for v in ins.inputs], ", ".join(outs), buffer)
        if ins.free_after:  # names die at their last use: fresh results are released at once
            body.append(f"del {', '.join(names[v] for v in ins.free_after)}")
    results = []
    for v in plan.graph.outputs:
        # A returned view, input or constant is copied: the caller owns what it gets.
        if v.node is None or produced_by.get(v) in VIEW_OPS or produced_by.get(v) == "constant":
            results.append(f"np_array({names[v]})")
        else:
            results.append(names[v])
    body.append(f"return [{', '.join(results)}]")
    text = f"def run({', '.join(params)}):\n" + "".join(f"    {ln}\n" for ln in body)
    return text, src.namespace


class Executable:
    """A compiled graph. Call it with numpy arrays; it returns a list of numpy arrays."""

    def __init__(self, plan: ExecutionPlan, source_graph=None):
        self.plan = plan
        self.graph = plan.graph                 # the optimised graph
        self.source_graph = source_graph        # the graph handed to compile
        self.input_types: list[TensorType] = [v.type for v in plan.graph.inputs]
        self.source, namespace = generate_source(plan)
        exec(compile(self.source, f"<frame plan @{plan.graph.name}>", "exec"), namespace)
        self._run = namespace["run"]
        self._n = len(self.input_types)
        self._expected = [(t.shape, np.dtype(t.dtype)) for t in self.input_types]
        self._arenas: list[tuple] = []
        macs = _largest_matmul_macs(plan)
        self._blas = _blas_threads() if 0 < macs <= SMALL_MATMUL_MACS else None

    def _new_arena(self) -> tuple:
        return tuple(np.empty(t.shape, t.dtype) for t in self.plan.buffers)

    def _check(self, args) -> "list[np.ndarray] | tuple":
        if len(args) != self._n:
            raise InputError(f"@{self.graph.name} takes {self._n} input(s), got {len(args)}",
                             expected=self._n, actual=len(args))
        expected = self._expected
        if all(type(a) is np.ndarray and a.shape == shape and a.dtype == dtype
               for a, (shape, dtype) in zip(args, expected)):
            return args  # the common case, checked without building messages
        arrays = []
        for i, (a, t) in enumerate(zip(args, self.input_types)):
            if not isinstance(a, np.ndarray):
                if isinstance(a, (bool, int, float, np.generic)):
                    a = np.asarray(a, dtype=t.dtype)
                else:
                    raise InputError(f"input {i} of @{self.graph.name}: expected a numpy array of type {t}, got "
                                     f"{type(a).__name__}", i, t, type(a).__name__)
            if a.shape != t.shape or a.dtype.name != t.dtype:
                actual = f"{a.dtype.name}{list(a.shape)}"
                raise InputError(f"input {i} of @{self.graph.name}: expected {t.dtype}{list(t.shape)}, got {actual}",
                                 i, t, actual)
            arrays.append(a)
        return arrays

    def __call__(self, *args) -> list[np.ndarray]:
        arrays = self._check(args)
        try:
            arena = self._arenas.pop()   # list.pop/append are atomic: each concurrent call gets its own arena
        except IndexError:
            arena = self._new_arena()
        blas = self._blas
        threads = blas.num_threads if blas is not None else 1
        try:
            if threads != 1:
                blas.set_num_threads(1)
            outs = self._run(*arrays, arena)
        finally:
            if threads != 1:
                blas.set_num_threads(threads)
            self._arenas.append(arena)
        # Rank-0 results of numpy ops are numpy scalars, and opaque kernels may return read-only views:
        # the caller gets arrays it owns.
        return [o if isinstance(o, np.ndarray) and o.flags.writeable else np.array(o) for o in outs]

    def release_buffers(self) -> None:
        """Drop the arenas kept between calls (the next call allocates a fresh one)."""
        self._arenas.clear()

    def report(self) -> str:
        """The plan's report: buffers kept alive between calls (with bytes) and the peak bytes of a call."""
        return self.plan.report()

    def __repr__(self):
        return (f"<Executable @{self.graph.name}: {len(self.plan.instrs)} steps, {len(self.plan.buffers)} buffers "
                f"({self.plan.arena_bytes} B), peak {self.plan.peak_bytes} B>")
