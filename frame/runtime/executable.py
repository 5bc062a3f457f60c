"""`Executable`: a compiled graph, run as generated straight-line Python over numpy.

The plan (frame/compiler/passes/plan.py) becomes the source of one function, as torch.fx's
codegen does: one line per instruction, constants and kernels bound once at compile time, no
per-node dictionary lookups at run time. Common ops are written as direct numpy calls that
write into the plan's preallocated buffers (`out=`); other ops call their kernel. Fresh
results are `del`eted right after their last use.

Buffers live in an arena owned by the executable and reused across calls. Each call takes an
arena from a pool and gives it back, so concurrent or re-entrant calls each get their own.
Results returned to the caller never live in an arena (the plan allocates them fresh).

Tiers. An executable starts on the numpy tier above. Once it is hot (called `after_calls`
times, default 3) it builds its native tier in a background thread: the plan is made again with
the fused nodes that frame/runtime/native.py can compile kept whole, and each of them runs as one
generated C loop called through ctypes; the rest of the source is unchanged. When the library is
loaded the executable switches over between two calls. Without a C compiler, or with
`FRAME_NATIVE=off`, it stays on numpy. `set_native` changes the policy; `wait_native` blocks
until the switch (benchmarks, tests).

BLAS threads. Plans whose matmuls are all small run BLAS single-threaded. Measured on the 2-core
reference machine: a 1024x64 @ 64x64 float32 matmul took ~0.14 ms on one OpenBLAS thread and
12-16 ms on two when other processes kept the cores busy, and the PINN step went from 108 ms to
33 ms; splitting such small products over threads gains little even on an idle machine.
The thread count is process-wide (OpenBLAS has one pool), so frame keeps one record of it
(`BlasThreads`): the first call of such an executable sets it to 1 through threadpoolctl and it
stays so; an executable with a large matmul puts the library's own count back, once. Repeated
calls never touch threadpoolctl: switching the count on every call (as frame once did, set and
restored around each call) made one executable called from 4 threads ~90x slower per call.
numpy's own matmuls in the same process then run on one thread too; `restore_blas_threads()`
gives the library its count back.
"""
from __future__ import annotations

import functools
import math
import os
import queue
import threading
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..compiler.passes.plan import VIEW_OPS, ExecutionPlan, Instr
from ..errors import InputError
from ..ir.graph import Value
from ..ir.types import TensorType
from ..ops.schema import get
from . import native

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


class BlasThreads:
    """What frame last set the process's BLAS thread count to: set only when it has to change.

    `single()` and `default()` are called on every executable call; once the count is what they
    want they return after one attribute read, without a lock or a call into threadpoolctl."""

    def __init__(self):
        self._lock = threading.Lock()
        self._set = None       # the count frame last set, None while frame has not set one
        self._default = None   # the library's own count, read before frame first changed it

    def single(self) -> None:
        """One BLAS thread (plans whose matmuls are all small)."""
        if self._set != 1:
            self._change(lambda default: 1)

    def default(self) -> None:
        """The library's own count again (plans with a large matmul), if frame had changed it."""
        if self._set is not None and self._set != self._default:
            self._change(lambda default: default)

    def restore(self) -> None:
        """Give the library its own count back and forget frame's setting."""
        with self._lock:
            blas = _blas_threads()
            if blas is not None and self._set is not None and self._set != self._default:
                blas.set_num_threads(self._default)
            self._set = self._default = None

    def _change(self, want) -> None:
        with self._lock:
            blas = _blas_threads()
            if blas is None:
                self._set = self._default = 1   # nothing to control: never look again
                return
            if self._default is None:
                self._default = blas.num_threads
            threads = want(self._default)
            if threads != (self._default if self._set is None else self._set):
                blas.set_num_threads(threads)
            self._set = threads


_BLAS = BlasThreads()


def restore_blas_threads() -> None:
    """Give numpy's BLAS back the thread count it had before frame set it (see the module doc)."""
    _BLAS.restore()


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
                     "broadcast_to", "positive"}:
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
        # (An inner dimension of 1 never gets here from the full pipeline: `canonicalize` makes
        # outer products broadcast multiplies, which fuse.)
        line(f"{result} = np_matmul({a}, {b}{_out(buffer)})")
    elif op == "sum" and not attrs["axes"] and ins.inputs[0].type == out_type:
        # The identity, like the kernel (np.add.reduce would give -0.0 + 0).
        line(f"{result} = np_positive({args[0]}{_out(buffer)})")
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


def _emit_native(src: _Source, ins: Instr, args: list[str], outs: list[str], plan: ExecutionPlan, kernel,
                 pointer_of: dict[str, str]) -> None:
    """Lines calling the native kernel of a fused node kept whole: operand and result addresses in,
    results written in place (into their buffers, or fresh arrays when they leave the call)."""
    line = src.lines.append
    pointers = []
    for v, name in zip(ins.inputs, args):
        if v in plan.buffer_of:
            pointers.append(f"p{plan.buffer_of[v]}")
        elif name in pointer_of:   # a graph input or a constant, contiguous, its address known
            pointers.append(pointer_of[name])
        else:                      # a view or a fresh result: a contiguous copy when it is not one
            tmp = f"{name}_c"
            line(f"{tmp} = np_ascontiguousarray({name})")
            pointers.append(f"{tmp}.ctypes.data")
    for v, name in zip(ins.outputs, outs):
        if v in plan.buffer_of:
            line(f"{name} = b{plan.buffer_of[v]}")
            pointers.append(f"p{plan.buffer_of[v]}")
        else:
            line(f"{name} = np_empty({v.type.shape!r}, {src.bind(np.dtype(v.type.dtype), 'd')})")
            pointers.append(f"{name}.ctypes.data")
    line(f"{src.bind(kernel, 'nk')}({', '.join(pointers)})")


def generate_source(plan: ExecutionPlan, kernels: dict | None = None) -> tuple[str, dict]:
    """Python source of `run(*inputs, arena) -> list` for `plan`, and the namespace it needs.

    kernels: native kernels (ctypes functions) of the fused nodes the plan keeps whole; the arena
    is then (buffers, their addresses)."""
    src = _Source()
    names: dict[Value, str] = {}
    for i, v in enumerate(plan.graph.inputs):
        names[v] = f"a{i}"
    params = [names[v] for v in plan.graph.inputs] + ["arena"]
    body = src.lines
    pointer_of: dict[str, str] = {}
    if kernels:
        src.namespace.update(np_ascontiguousarray=np.ascontiguousarray, np_empty=np.empty)
        if plan.buffers:
            body.append(f"{', '.join(f'b{i}' for i in range(len(plan.buffers)))}, = arena[0]")
            body.append(f"{', '.join(f'p{i}' for i in range(len(plan.buffers)))}, = arena[1]")
        read = {v for ins in plan.instrs if ins.node in kernels for v in ins.inputs}
        for v in plan.graph.inputs:
            if v in read:   # inputs read by kernels: a contiguous view or copy, its address taken once
                name = names[v]
                body.append(f"{name}_c = np_ascontiguousarray({name}); p_{name} = {name}_c.ctypes.data")
                pointer_of[name] = f"p_{name}"
    elif plan.buffers:
        body.append(f"{', '.join(f'b{i}' for i in range(len(plan.buffers)))}, = arena")
    counter = 0
    produced_by: dict[Value, str] = {}
    matmul_operands = {v for ins in plan.instrs if ins.op in _MATMUL_OPS for v in ins.inputs}
    for ins in plan.instrs:
        produced_by.update((v, ins.op) for v in ins.outputs)
        if ins.op == "constant":
            value = ins.attrs["value"]
            if ins.outputs[0] in matmul_operands and not value.flags.c_contiguous:
                # A splat is stored as a zero-stride view; numpy's matmul runs those through its slow
                # non-BLAS loop (a ones-vector contraction took ~68 us instead of ~10 us).
                value = np.ascontiguousarray(value)
            names[ins.outputs[0]] = name = src.bind(value, "c")
            if kernels:  # kernels read a contiguous copy (a splat is a zero-stride view); numpy ops the original
                dense = np.ascontiguousarray(value)
                pointer_of[name] = str(dense.ctypes.data)
                src.bind(dense, "cc")   # the namespace keeps it alive
            continue
        outs = []
        for v in ins.outputs:
            names[v] = f"v{counter}"
            counter += 1
            outs.append(names[v])
        if kernels and ins.node in kernels:
            _emit_native(src, ins, [names[v] for v in ins.inputs], outs, plan, kernels[ins.node], pointer_of)
        else:
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


# -- tiers ----------------------------------------------------------------------------------------
_MODES = native.MODES
_POLICY = {"mode": native.mode_from_environment(), "after_calls": 3}


def set_native(mode: str | None = None, *, after_calls: int | None = None) -> dict:
    """When executables move to native kernels for their fused chains; returns the previous settings.

    mode: "auto" (default; build in a background thread once an executable is hot), "sync" (build
        in the calling thread, at that call) or "off" (numpy only). The environment variable
        `FRAME_NATIVE` sets the default.
    after_calls: how many calls make an executable hot (default 3).
    """
    if mode is not None and mode not in _MODES:
        raise ValueError(f"native mode must be one of {_MODES}, got {mode!r}")
    if after_calls is not None and after_calls < 1:
        raise ValueError(f"after_calls must be >= 1, got {after_calls}")
    previous = dict(_POLICY)
    if mode is not None:
        _POLICY["mode"] = mode
    if after_calls is not None:
        _POLICY["after_calls"] = int(after_calls)
    return previous


@dataclass
class _Tier:
    """One way of running the plan: its source, function and pool of arenas."""

    name: str                    # "numpy" or "native"
    plan: ExecutionPlan
    source: str
    run: object
    new_arena: object
    arenas: list = field(default_factory=list)
    kernels: int = 0             # fused nodes run by native kernels


def _numpy_tier(plan: ExecutionPlan) -> _Tier:
    source, namespace = generate_source(plan)
    exec(compile(source, f"<frame plan @{plan.graph.name}>", "exec"), namespace)
    return _Tier("numpy", plan, source, namespace["run"],
                 lambda: tuple(np.empty(t.shape, t.dtype) for t in plan.buffers))


def _native_tier(graph) -> _Tier | None:
    """The native tier of an optimised graph, or None when none of its chains can be compiled.

    The chains are fused again with only the ops native kernels compute exactly (so results stay
    bit-identical to the numpy tier); fused nodes that still cannot be compiled are run by numpy."""
    from ..compiler.passes.fuse import fuse, unfuse
    from ..compiler.passes.plan import plan as make_plan

    def compilable(node) -> bool:
        return native.kernel_spec(node.attrs["body"]) is not None

    graph = fuse(unfuse(graph), can_fuse=native.supports)
    if not any(n.op == "fused_elementwise_internal" and compilable(n) for n in graph.nodes):
        return None
    native_plan = make_plan(graph, keep_whole=compilable)
    whole = [ins.node for ins in native_plan.instrs if ins.op == "fused_elementwise_internal"]
    specs = list(dict.fromkeys(native.kernel_spec(n.attrs["body"]) for n in whole))
    functions = dict(zip(specs, native.load_kernels(specs)))
    kernels = {n: functions[native.kernel_spec(n.attrs["body"])] for n in whole}
    source, namespace = generate_source(native_plan, kernels)
    exec(compile(source, f"<frame native plan @{graph.name}>", "exec"), namespace)

    def new_arena():
        buffers = tuple(np.empty(t.shape, t.dtype) for t in native_plan.buffers)
        return buffers, tuple(b.ctypes.data for b in buffers)

    return _Tier("native", native_plan, source, namespace["run"], new_arena, kernels=len(kernels))


_BUILDS: "queue.Queue" = queue.Queue()


def _build_worker(builds: "queue.Queue") -> None:
    while True:
        builds.get()._build_native()


_WORKER: list = []          # [pid of the process whose builder thread runs]
_WORKER_LOCK = threading.Lock()


def _submit_build(exe: "Executable") -> None:
    """Queue a native build on the one background builder thread (a daemon: exit does not wait for it).

    A forked child inherits the record of its parent's thread but not the thread: it starts its own
    (see `_after_fork_in_child`)."""
    global _BUILDS
    with _WORKER_LOCK:
        if not _WORKER or _WORKER[0] != os.getpid():
            _BUILDS = queue.Queue()
            threading.Thread(target=_build_worker, args=(_BUILDS,), name="frame-native-builder", daemon=True).start()
            _WORKER[:] = [os.getpid()]
    _QUEUED.add(exe)
    _BUILDS.put(exe)


_QUEUED: set = set()          # executables whose background build has not finished


def _after_fork_in_child() -> None:
    """A forked child has no builder thread: builds its parent had queued start again on next use."""
    _WORKER.clear()
    for exe in list(_QUEUED):
        exe._native_state = "cold"
        exe._native_done = threading.Event()
        exe._calls_to_hot = 1
    _QUEUED.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def wait_native_builds(timeout: float | None = None) -> bool:
    """Wait until every queued background build has finished (benchmarks call it after warm-up).

    Returns False when `timeout` seconds passed first."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for exe in list(_QUEUED):
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not exe._native_done.wait(left):
            return False
    return True


class Executable:
    """A compiled graph. Call it with numpy arrays; it returns a list of numpy arrays."""

    def __init__(self, plan: ExecutionPlan, source_graph=None):
        self.plan = plan
        self.graph = plan.graph                 # the optimised graph
        self.source_graph = source_graph        # the graph handed to compile
        self.input_types: list[TensorType] = [v.type for v in plan.graph.inputs]
        self._tier = _numpy_tier(plan)
        self.source = self._tier.source         # the numpy tier's source
        self._n = len(self.input_types)
        self._expected = [(t.shape, np.dtype(t.dtype)) for t in self.input_types]
        macs = _largest_matmul_macs(plan)
        # Looked up at call time (module globals), so tests can replace the process-wide state.
        self._blas_policy = None if macs == 0 else "single" if macs <= SMALL_MATMUL_MACS else "default"
        self._calls_to_hot = _POLICY["after_calls"]
        self._native_state = "cold"             # cold -> queued -> building -> ready | none | failed | off
        self._native_done = threading.Event()
        self._native_lock = threading.Lock()

    # -- tiers --------------------------------------------------------------------------------------
    @property
    def tier(self) -> str:
        """The tier the next call runs on: "numpy" or "native"."""
        return self._tier.name

    @property
    def native_status(self) -> str:
        """cold (not hot yet), queued, building, ready, none (nothing to compile), failed: <why>, or off."""
        return self._native_state

    @property
    def active_source(self) -> str:
        """The generated Python source of the tier in use."""
        return self._tier.source

    def _start_native(self, mode: str) -> None:
        with self._native_lock:
            if self._native_state != "cold":
                return
            if mode == "off":
                self._native_state = "off"
                self._native_done.set()
                return
            self._native_state = "queued"
        if mode == "sync":
            self._build_native()
        else:
            _submit_build(self)

    def _build_native(self) -> None:
        self._native_state = "building"
        try:
            if native.c_compiler() is None:
                self._native_state = "none: no C compiler"
                return
            tier = _native_tier(self.graph)
            if tier is None:
                self._native_state = "none"
                return
            self._tier = tier          # one attribute store: the next call takes the whole new tier
            self._native_state = "ready"
        except Exception as e:  # noqa: BLE001 - the numpy tier keeps running; say why once
            self._native_state = f"failed: {type(e).__name__}: {e}"
            warnings.warn(f"frame: @{self.graph.name} stays on the numpy tier, its native kernels failed to build "
                          f"({type(e).__name__}: {e})", RuntimeWarning, stacklevel=2)
        finally:
            self._native_done.set()
            _QUEUED.discard(self)

    def wait_native(self, timeout: float | None = None) -> bool:
        """Start the native build now if it has not started (unless the mode is "off") and wait for it.

        Returns True when the executable runs native kernels afterwards."""
        self._start_native(_POLICY["mode"])
        self._native_done.wait(timeout)
        return self._tier.name == "native"

    # -- calls ---------------------------------------------------------------------------------------
    def _new_arena(self) -> tuple:
        return self._tier.new_arena()

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
            if not a.dtype.isnative:  # byte-swapped data: native kernels read raw memory in machine order
                a = a.astype(a.dtype.newbyteorder("="))
            arrays.append(a)
        return arrays

    def __call__(self, *args) -> list[np.ndarray]:
        arrays = self._check(args)
        countdown = self._calls_to_hot
        if countdown > 0:
            # Concurrent calls may lose a decrement (hot one call later) but never pass zero
            # without one of them seeing 1 and starting the build (which runs once, under its lock).
            self._calls_to_hot = countdown - 1
            if countdown == 1:
                self._start_native(_POLICY["mode"])
        if self._blas_policy == "single":
            _BLAS.single()
        elif self._blas_policy == "default":
            _BLAS.default()
        tier = self._tier   # read once: a switch between calls never mixes two tiers' arenas
        arenas = tier.arenas
        try:
            arena = arenas.pop()   # list.pop/append are atomic: each concurrent call gets its own arena
        except IndexError:
            arena = tier.new_arena()
        try:
            outs = tier.run(*arrays, arena)
        finally:
            arenas.append(arena)
        # Rank-0 results of numpy ops are numpy scalars, and opaque kernels may return read-only views:
        # the caller gets arrays it owns.
        return [o if isinstance(o, np.ndarray) and o.flags.writeable else np.array(o) for o in outs]

    def release_buffers(self) -> None:
        """Drop the arenas kept between calls (the next call allocates a fresh one)."""
        self._tier.arenas.clear()

    @property
    def _arenas(self) -> list:
        return self._tier.arenas

    def report(self) -> str:
        """The plan's report (buffers kept alive between calls, with bytes, and the peak bytes of a
        call) for the tier in use, and the tier."""
        tier = self._tier
        head = f"tier: {tier.name}"
        if tier.name == "native":
            head += f" ({tier.kernels} fused nodes run as native kernels)"
        elif self._native_state != "cold":
            head += f" (native: {self._native_state})"
        return head + "\n" + tier.plan.report()

    def __repr__(self):
        plan = self._tier.plan
        return (f"<Executable @{self.graph.name}: {len(plan.instrs)} steps, {len(plan.buffers)} buffers "
                f"({plan.arena_bytes} B), peak {plan.peak_bytes} B, {self._tier.name} tier>")
