"""Native segments: runs of consecutive native steps run as one C call.

Each numpy call or ctypes kernel call of a plan releases the GIL and takes it back. That costs
little in one thread, but when row-parallel chunks (frame/runtime/row_parallel.py) run in several
threads every step is a hand-off between them: on the 2-core reference machine 90 numpy calls of
~18 us each ran at 61% parallel efficiency, one long C call at 92%. So the native backend joins
runs of steps into one generated C function:

- fused kernels the plan keeps whole (frame/backends/native.py);
- single elementwise ops with an exact C expression (a one-op kernel: the same bits as numpy);
- 2-D float32/float64 matmuls, called from C through the very BLAS function numpy's `matmul`
  calls (numpy's own OpenBLAS, found by threadpoolctl) with the same arguments. Each matmul shape
  is checked once per process against `np.matmul` on random operands (`blas_call`):
  numpy picks gemv or syrk for some shapes, and only shapes whose bits agree run in C, so the
  native tier keeps the numpy tier's bits;
- unary ops numpy computes with one ufunc and no C expression gives its bits for (tanh, exp, log,
  sin, cos, ...): called from C through numpy's own inner loop for that dtype, read from the
  ufunc object (`numpy_loop`, checked once per process against the ufunc on values that include
  infinities, nans and signed zeros);
- sums over the rows of a 2-D array (a bias gradient: `sum(g, axis=0)`): numpy adds the rows one
  after another into a zeroed row, and so does a C loop (`colsum_shape` checks that order once
  per shape against `np.add.reduce`). numpy takes ~25 us for 512x64 float32, mostly iterator
  overhead per row; the loop ~3 us. Sums over every axis (a loss) call numpy's add loop in its
  reduce mode, which sums pairwise as `np.add.reduce` does (`sum_all_shape`, checked per shape).

A step joins a segment when every operand's address is known when the segment is called: a plan
buffer, a graph input, a constant, a result computed before the segment, or a result of the
segment itself (allocated before the call). A view made inside the segment, or any other op (a
transcendental ufunc, a reduction, an opaque kernel), ends it. Views, constants and `del`s
inside a segment stay Python lines, emitted after the call (they move no data).
"""
from __future__ import annotations

import ctypes
import functools
import math
import os
from dataclasses import dataclass, field

import numpy as np

from ..compiler.passes.plan import ExecutionPlan, is_view
from ..ir.graph import Value
from ..ir.registry import ELEMENTWISE, all_ops, get

_CTYPE = {"float32": "float", "float64": "double"}
ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112


# -- numpy's BLAS -------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def numpy_blas_controllers() -> tuple:
    """threadpoolctl's controllers of the BLAS numpy's matmul calls: the library numpy's wheel ships
    (in `numpy.libs/` or `numpy/.dylibs/`) when there is one, else every BLAS threadpoolctl finds
    (a system numpy's, which other packages share); () without threadpoolctl.

    Not simply the first BLAS listed: scipy's wheel ships an OpenBLAS of its own, and threadpoolctl
    listed the two in an order that followed the process's string-hash seed (PYTHONHASHSEED).
    Taking the first gave scipy's in about half the processes, so numpy's kept two spinning
    threads against the row threads and a KdV training step took 0.16-0.22 s instead of 0.06 s."""
    try:
        from threadpoolctl import ThreadpoolController
        controllers = ThreadpoolController().select(user_api="blas").lib_controllers
    except Exception:   # noqa: BLE001  (no threadpoolctl, or a library it cannot inspect)
        return ()
    package = os.path.dirname(os.path.realpath(np.__file__))
    shipped = (package + os.sep, os.path.join(os.path.dirname(package), "numpy.libs") + os.sep)
    own = [c for c in controllers if os.path.realpath(c.filepath).startswith(shipped)]
    return tuple(own or controllers)


@functools.lru_cache(maxsize=1)
def blas_functions() -> dict:
    """numpy's BLAS gemm and gemv per float dtype as ctypes functions ({"gemm": {"float32": ...}, ...,
    "index": the C type of its integer arguments}); {} when it cannot be found (segments then hold no
    matmuls)."""
    for controller in numpy_blas_controllers():
        try:
            lib = ctypes.CDLL(controller.filepath)
        except OSError:
            continue
        for prefix, suffix, index in (("scipy_cblas_", "64_", ctypes.c_int64), ("cblas_", "64_", ctypes.c_int64),
                                      ("cblas_", "", ctypes.c_int)):
            try:
                found = {routine: {dtype: getattr(lib, f"{prefix}{letter}{routine}{suffix}")
                                   for dtype, letter in (("float32", "s"), ("float64", "d"))}
                         for routine in ("gemm", "gemv")}
            except AttributeError:
                continue
            for routine, by_dtype in found.items():
                for dtype, fn in by_dtype.items():
                    real = ctypes.c_float if dtype == "float32" else ctypes.c_double
                    ints = [ctypes.c_int] * (3 if routine == "gemm" else 2) + [index] * (3 if routine == "gemm" else 2)
                    tail = ([real, ctypes.c_void_p, index, ctypes.c_void_p, index, real, ctypes.c_void_p, index]
                            if routine == "gemm" else
                            [real, ctypes.c_void_p, index, ctypes.c_void_p, index, real, ctypes.c_void_p, index])
                    fn.argtypes = ints + tail
                    fn.restype = None
            return {**found, "index": "int64_t" if index is ctypes.c_int64 else "int"}
    return {}


def blas_calls(m: int, n: int, k: int, ta: bool, tb: bool) -> list[tuple[str, tuple]]:
    """The BLAS calls that compute op(A) @ op(B) (A stored (m, k), or (k, m) read transposed; B
    (k, n), or (n, k)) into row-major C (m, n), as (routine, arguments) with "A", "B", "C" for the
    operands' addresses: gemv first when the product is a matrix times a vector (numpy's matmul
    calls gemv there, whose sums are in another order than gemm's), then gemm."""
    calls = []
    if n == 1 and m > 1:     # y(m) = op(A) x
        calls.append(("gemv", (ROW_MAJOR, TRANS if ta else NO_TRANS, k if ta else m, m if ta else k, 1, "A",
                               m if ta else k, "B", 1, 0, "C", 1)))
    if m == 1 and n > 1:     # y(n) = op(B)^T x
        calls.append(("gemv", (ROW_MAJOR, NO_TRANS, n, k, 1, "B", k, "A", 1, 0, "C", 1) if tb else
                      (ROW_MAJOR, TRANS, k, n, 1, "B", n, "A", 1, 0, "C", 1)))
    calls.append(("gemm", (ROW_MAJOR, TRANS if ta else NO_TRANS, TRANS if tb else NO_TRANS, m, n, k, 1, "A",
                           m if ta else k, "B", k if tb else n, 0, "C", n)))
    return calls


@functools.lru_cache(maxsize=4096)
def blas_call(dtype: str, m: int, n: int, k: int, ta: bool, tb: bool) -> tuple | None:
    """The call of `blas_calls` that gives `np.matmul`'s bits for this shape (checked on three random
    draws of spread-out magnitudes), or None (the matmul then stays a numpy call)."""
    blas = blas_functions()
    if not blas or min(m, n, k) < 1:
        return None
    rng = np.random.default_rng(m * 1_000_003 + n * 1009 + k)
    draws = []
    for _ in range(3):
        scale = lambda shape: np.exp(rng.uniform(-6.0, 6.0, shape))  # noqa: E731  (sums in another order show)
        a = (rng.standard_normal((k, m) if ta else (m, k)) * scale((k, m) if ta else (m, k))).astype(dtype)
        b = (rng.standard_normal((n, k) if tb else (k, n)) * scale((n, k) if tb else (k, n))).astype(dtype)
        want = np.empty((m, n), dtype)
        np.matmul(a.swapaxes(-1, -2) if ta else a, b.swapaxes(-1, -2) if tb else b, out=want)
        draws.append((a, b, want))
    for routine, args in blas_calls(m, n, k, ta, tb):
        fn = blas[routine][dtype]
        for a, b, want in draws:
            got = np.empty((m, n), dtype)
            fn(*[{"A": a.ctypes.data, "B": b.ctypes.data, "C": got.ctypes.data}.get(x, x) if isinstance(x, str) else x
                 for x in args])
            if not np.array_equal(want.view(np.uint8), got.view(np.uint8)):
                break
        else:
            return routine, args
    return None


# -- numpy's own inner loops ----------------------------------------------------------------------
def _loop_ufunc(schema):
    """The numpy ufunc of a unary elementwise op without an exact C expression, else None."""
    if not schema.has(ELEMENTWISE) or schema.num_inputs != 1 or schema.c is not None or not isinstance(schema.numpy, str):
        return None
    ufunc = getattr(np, schema.numpy, None)
    return ufunc if isinstance(ufunc, np.ufunc) and ufunc.nin == 1 and ufunc.nout == 1 else None


#: numpy's add loop called in its reduce mode (output = first operand, strides 0) sums a contiguous
#: array pairwise, as `np.add.reduce` over all axes does: segments call it for a "sum" over every axis.
SUM_ALL = "sum"


@functools.lru_cache(maxsize=1)
def loop_table() -> tuple[tuple[str, str], ...]:
    """(op, dtype) pairs whose numpy loops segments can call, in a fixed order: the C source names
    a loop by its index here (its address is set when the library loads, `frame_set_loops`)."""
    ops = sorted(s.name for s in all_ops() if _loop_ufunc(s) is not None) + [SUM_ALL]
    return tuple((op, dtype) for op in ops for dtype in _CTYPE)


# PyUFuncObject (numpy/ufuncobject.h): PyObject_HEAD, then int nin, nout, nargs, identity, then the
# loops `functions`, their `data` and int `ntypes`; read at these offsets only when the ints read
# back as the ufunc's own nin, nout and ntypes.
_HEAD = ctypes.sizeof(ctypes.c_ssize_t) + ctypes.sizeof(ctypes.c_void_p)
_LOOP_TYPE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_ssize_t),
                              ctypes.POINTER(ctypes.c_ssize_t), ctypes.c_void_p)


def _call_unary(fn: int, data: int | None, x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    _LOOP_TYPE(fn)((ctypes.c_void_p * 2)(x.ctypes.data, out.ctypes.data), (ctypes.c_ssize_t * 1)(x.size),
                   (ctypes.c_ssize_t * 2)(x.itemsize, x.itemsize), data)
    return out


def _call_sum(fn: int, data: int | None, x: np.ndarray) -> np.ndarray:
    """What the C side's `frame_sum_all` does: +0.0, then the add loop in reduce mode over every element."""
    out = np.zeros(1, x.dtype)
    _LOOP_TYPE(fn)((ctypes.c_void_p * 3)(out.ctypes.data, x.ctypes.data, out.ctypes.data),
                   (ctypes.c_ssize_t * 1)(x.size), (ctypes.c_ssize_t * 3)(0, x.itemsize, 0), data)
    return out


def _spread(rng, size: int, dtype: str) -> np.ndarray:
    return (rng.standard_normal(size) * np.exp(rng.uniform(-8.0, 8.0, size))).astype(dtype)


@functools.lru_cache(maxsize=64)
def numpy_loop(op: str, dtype: str) -> tuple[int, int] | None:
    """(address, data pointer) of numpy's inner loop that computes op (a unary ufunc, or SUM_ALL)
    on `dtype` with numpy's bits, or None. Checked on spread-out values (and, for unary ops,
    infinities, nans and signed zeros) against the ufunc itself."""
    ufunc = np.add if op == SUM_ALL else _loop_ufunc(get(op))
    if ufunc is None or dtype not in _CTYPE or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    base = id(ufunc)
    nin, nout = (ctypes.c_int * 2).from_address(base + _HEAD)
    ptr = ctypes.sizeof(ctypes.c_void_p)
    functions = ctypes.c_void_p.from_address(base + _HEAD + 16).value
    data = ctypes.c_void_p.from_address(base + _HEAD + 16 + ptr).value
    ntypes = ctypes.c_int.from_address(base + _HEAD + 16 + 2 * ptr).value
    if (nin, nout, ntypes) != (ufunc.nin, ufunc.nout, ufunc.ntypes) or not functions:
        return None
    rng = np.random.default_rng(7)
    char = np.dtype(dtype).char
    if op == SUM_ALL:
        draws = [_spread(rng, n, dtype) for n in (1, 7, 129, 4099, 20011)]
        signature, call = f"{char}{char}->{char}", _call_sum
        want = [np.add.reduce(x).reshape(1) for x in draws]
    else:
        signature = f"{char}->{char}"
        if signature not in ufunc.types:   # e.g. invert, which has integer and bool loops only
            return None
        x = _spread(rng, 4099, dtype)
        x[:8] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, 0.5]
        draws, call = [x], _call_unary
        with np.errstate(all="ignore"):
            want = [ufunc(x)]
    with np.errstate(all="ignore"):
        for i, types in enumerate(ufunc.types):
            if types != signature:
                continue
            fn = ctypes.c_void_p.from_address(functions + i * ptr).value
            fn_data = ctypes.c_void_p.from_address(data + i * ptr).value if data else None
            if fn and all(np.array_equal(w.view(np.uint8), call(fn, fn_data, x).view(np.uint8))
                          for w, x in zip(want, draws)):
                return fn, fn_data or 0
    return None


@functools.lru_cache(maxsize=4096)
def sum_all_shape(dtype: str, shape: tuple, axes: tuple) -> bool:
    """Whether `np.add.reduce(x, axis=axes)` of a contiguous `x` of `shape`, axes covering every axis
    longer than 1, gives the bits of numpy's add loop in reduce mode over all its elements (one
    pairwise sum; checked on three draws)."""
    loop = numpy_loop(SUM_ALL, dtype)
    size = math.prod(shape)
    if loop is None or size < 1:
        return False
    rng = np.random.default_rng(size)
    with np.errstate(all="ignore"):
        return all(np.array_equal(np.add.reduce(x.reshape(shape), axis=axes).reshape(1).view(np.uint8),
                                  _call_sum(*loop, x).view(np.uint8))
                   for x in (_spread(rng, size, dtype) for _ in range(3)))


@functools.lru_cache(maxsize=4096)
def colsum_shape(dtype: str, m: int, n: int) -> bool:
    """Whether numpy's `add.reduce(a, axis=0)` of a C-contiguous (m, n) array adds the rows in order
    into a zeroed row (what the segments' C loop does): checked on three draws of spread-out
    magnitudes, signed zeros included. n = 1 is a contiguous sum, which numpy adds pairwise."""
    if dtype not in _CTYPE or m < 1 or n < 2:
        return False
    rng = np.random.default_rng(m * 1009 + n)
    for _ in range(3):
        a = (rng.standard_normal((m, n)) * np.exp(rng.uniform(-6.0, 6.0, (m, n)))).astype(dtype)
        a[:, 0] = -0.0
        rows = np.concatenate([np.zeros((1, n), dtype), a])
        if not np.array_equal(np.add.reduce(a, axis=0).view(np.uint8),
                              np.add.accumulate(rows, axis=0)[-1].view(np.uint8)):
            return False
    return True


# -- which steps run in C -----------------------------------------------------------------------
def loop_step(ins) -> tuple | None:
    """(index in `loop_table`, elements, itemsize) of a unary step that runs through numpy's loop, else None."""
    if len(ins.inputs) != 1 or len(ins.outputs) != 1:
        return None
    x, y = ins.inputs[0].type, ins.outputs[0].type
    if x.dtype != y.dtype or x.shape != y.shape or (ins.op, y.dtype) not in loop_table() \
            or numpy_loop(ins.op, y.dtype) is None:
        return None
    return loop_table().index((ins.op, y.dtype)), math.prod(y.shape), np.dtype(y.dtype).itemsize


def sum_step(ins) -> tuple | None:
    """("colsum", dtype, m, n) of a sum over the rows of a 2-D float array (the C loop), ("all",
    loop index, size, itemsize) of a sum over every axis (numpy's pairwise add loop), else None."""
    if ins.op != "sum" or len(ins.inputs) != 1:
        return None
    x, y = ins.inputs[0].type, ins.outputs[0].type
    axes = tuple(sorted(a % x.rank for a in ins.attrs.get("axes", ()))) if x.rank else ()
    if x.dtype == y.dtype and axes and all(d == 1 or k in axes for k, d in enumerate(x.shape)) \
            and (SUM_ALL, x.dtype) in loop_table() and sum_all_shape(x.dtype, tuple(x.shape), axes):
        return "all", loop_table().index((SUM_ALL, x.dtype)), math.prod(x.shape), np.dtype(x.dtype).itemsize
    axes = tuple(a % 2 for a in ins.attrs.get("axes", ())) if x.rank == 2 else ()
    if axes != (0,) or x.dtype != y.dtype or math.prod(y.shape) != x.shape[1]:
        return None
    m, n = x.shape
    return ("colsum", x.dtype, m, n) if colsum_shape(x.dtype, m, n) else None


def matmul_shape(ins) -> tuple | None:
    """(dtype, routine, arguments) of a 2-D float matmul step that runs in C with numpy's bits, else None."""
    if ins.op != "matmul" or len(ins.inputs) != 2:
        return None
    a, b = (v.type for v in ins.inputs)
    out = ins.outputs[0].type
    if a.rank != 2 or b.rank != 2 or not a.dtype == b.dtype == out.dtype or out.dtype not in _CTYPE:
        return None
    ta, tb = bool(ins.attrs.get("transpose_a")), bool(ins.attrs.get("transpose_b"))
    m, n = out.shape
    k = a.shape[0] if ta else a.shape[1]
    call = blas_call(out.dtype, m, n, k, ta, tb)
    return None if call is None else (out.dtype, *call)


@dataclass
class Segment:
    """Steps `indices` of a plan run as C function `name`: `steps` are (kind, instr, detail) with kind
    "kernel" (detail: kernel index in the library), "gemm" (`matmul_shape`), "loop" (`loop_step`)
    or "sum" (`sum_step`); `slots` the non-buffer values whose addresses the call passes, in order."""
    name: str
    indices: list[int]
    steps: list = field(default_factory=list)
    slots: list = field(default_factory=list)
    early: list = field(default_factory=list)   # plan indices of views of inputs/constants, emitted before the call


def find_segments(plan: ExecutionPlan, kernel_of: dict) -> list[Segment]:
    """Maximal runs of C steps (see the module docstring) holding at least two of them.

    kernel_of: instruction node -> index of its kernel in the library, for fused nodes kept whole and
    for single elementwise steps that run as one-op kernels."""
    inputs = set(plan.graph.inputs)
    produced_at: dict[Value, int] = {}
    view_values: set[Value] = set()
    for i, ins in enumerate(plan.instrs):
        for v in ins.outputs:
            produced_at[v] = i
            if is_view(ins.op):
                view_values.add(v)
    segments, current = [], None

    def stable(v: Value) -> bool:
        """A graph input or constant, or a view of one: unchanged while a segment runs."""
        while v in view_values:
            v = plan.instrs[produced_at[v]].inputs[0]
        return v in inputs or plan.instrs[produced_at[v]].op == "constant" if v in produced_at else v in inputs

    def known(v: Value, start: int) -> bool:
        if v in inputs or v in plan.buffer_of:
            return True
        if v in view_values:   # a view's address is taken before the call: only of what the call keeps
            return stable(v)   # (one made inside the run is emitted before the call: `Segment.early`)
        return v in produced_at   # constants, fresh results before or inside the segment

    def contiguous(v: Value) -> bool:
        """Laid out as the BLAS call assumes, as numpy's matmul sees it: numpy picks its BLAS call
        by the operands' strides, so a strided view would give other bits (inputs read by matmuls
        are made contiguous on every tier, see numpy.generate_source)."""
        if v in inputs or v in plan.buffer_of:
            return True
        producer = plan.instrs[produced_at[v]] if v in produced_at else None
        return producer is not None and (producer.op == "constant" or get(producer.op).numpy_out)

    def close():
        nonlocal current
        if current is not None and len(current.steps) >= 2:
            segments.append(current)
        current = None

    for i, ins in enumerate(plan.instrs):
        if ins.op == "constant" or is_view(ins.op):
            if current is not None:
                current.indices.append(i)
            continue
        if ins.node in kernel_of:
            kind, detail = "kernel", kernel_of[ins.node]
        elif ins.op == "matmul":
            kind, detail = "gemm", matmul_shape(ins)
        elif ins.op == "sum":
            kind, detail = "sum", sum_step(ins)
        else:
            kind, detail = "loop", loop_step(ins)
        start = current.indices[0] if current is not None else i
        if detail is None or not all(known(v, start) for v in ins.inputs) or any(v in view_values for v in ins.outputs) \
                or (kind != "kernel" and not all(contiguous(v) for v in ins.inputs)):
            close()
            continue
        if current is None:
            current = Segment(f"s{len(segments)}", [])
        current.indices.append(i)
        current.steps.append((kind, ins, detail))
    close()
    for seg in segments:   # trailing views/constants after the last C step belong to the Python lines
        last = plan.instrs.index(seg.steps[-1][1])
        seg.indices = [i for i in seg.indices if i <= last]
        seg.early = [i for i in seg.indices if is_view(plan.instrs[i].op) and all(stable(v) for v in plan.instrs[i].outputs)]
        seen = set()
        for _, ins, _ in seg.steps:
            for v in (*ins.inputs, *ins.outputs):
                if v not in plan.buffer_of and v not in seen:
                    seen.add(v)
                    seg.slots.append(v)
    return segments


def segment_source(seg: Segment, plan: ExecutionPlan) -> str:
    """The C function of a segment: `void NAME(void **buf, void *x0, ...)`."""
    slot = {v: f"x{j}" for j, v in enumerate(seg.slots)}

    def ptr(v: Value) -> str:
        return f"buf[{plan.buffer_of[v]}]" if v in plan.buffer_of else slot[v]

    params = ", ".join(["void **buf", *(f"void *x{j}" for j in range(len(seg.slots)))])
    lines = [f"void {seg.name}({params}) {{"]
    for kind, ins, detail in seg.steps:
        if kind == "kernel":
            lines.append(f"    k{detail}({', '.join(ptr(v) for v in (*ins.inputs, *ins.outputs))});")
        elif kind == "loop":
            index, size, itemsize = detail
            lines.append(f"    frame_loop({index}, {ptr(ins.inputs[0])}, {ptr(ins.outputs[0])}, {size}, {itemsize});")
        elif kind == "sum" and detail[0] == "colsum":
            _, dtype, m, n = detail
            lines.append(f"    frame_colsum_{_CTYPE[dtype]}({ptr(ins.inputs[0])}, {ptr(ins.outputs[0])}, {m}, {n});")
        elif kind == "sum":
            _, index, size, itemsize = detail
            lines.append(f"    frame_sum_all({index}, {ptr(ins.inputs[0])}, {ptr(ins.outputs[0])}, {size}, {itemsize});")
        else:
            dtype, routine, args = detail
            operands = {"A": ptr(ins.inputs[0]), "B": ptr(ins.inputs[1]), "C": ptr(ins.outputs[0])}
            text = ", ".join(operands[x] if isinstance(x, str) else str(x) for x in args)
            lines.append(f"    frame_{'s' if dtype == 'float32' else 'd'}{routine}({text});")
    lines.append("}")
    return "\n".join(lines)


def blas_prelude(index_type: str) -> str:
    """Pointers to numpy's gemm/gemv, set once after the library loads (`frame_set_blas`)."""
    i = index_type
    out = []
    for letter, real in (("s", "float"), ("d", "double")):
        out.append(f"typedef void (*frame_{letter}gemm_f)(int, int, int, {i}, {i}, {i}, {real}, const void *, {i}, "
                   f"const void *, {i}, {real}, void *, {i});")
        out.append(f"typedef void (*frame_{letter}gemv_f)(int, int, {i}, {i}, {real}, const void *, {i}, "
                   f"const void *, {i}, {real}, void *, {i});")
        out.append(f"static frame_{letter}gemm_f frame_{letter}gemm;")
        out.append(f"static frame_{letter}gemv_f frame_{letter}gemv;")
    out.append("void frame_set_blas(void *sgemm, void *dgemm, void *sgemv, void *dgemv) {")
    out.append("    frame_sgemm = (frame_sgemm_f)sgemm; frame_dgemm = (frame_dgemm_f)dgemm;")
    out.append("    frame_sgemv = (frame_sgemv_f)sgemv; frame_dgemv = (frame_dgemv_f)dgemv;")
    out.append("}")
    return "\n" + "\n".join(out) + "\n" + LOOPS_PRELUDE.replace("NLOOPS", str(max(len(loop_table()), 1)))


# numpy's inner loops (set by `frame_set_loops` when the library loads) and the row-sum loops.
LOOPS_PRELUDE = r"""
typedef void (*frame_loop_f)(char **, const intptr_t *, const intptr_t *, void *);
static frame_loop_f frame_loops[NLOOPS];
static void *frame_loop_data[NLOOPS];
void frame_set_loops(void **fns, void **data) {
    for (int k = 0; k < NLOOPS; ++k) { frame_loops[k] = (frame_loop_f)fns[k]; frame_loop_data[k] = data[k]; }
}
static void frame_loop(int k, void *in, void *out, intptr_t n, intptr_t itemsize) {
    char *args[2] = {(char *)in, (char *)out};
    intptr_t dims[1] = {n};
    intptr_t steps[2] = {itemsize, itemsize};
    frame_loops[k](args, dims, steps, frame_loop_data[k]);
}
static void frame_sum_all(int k, void *in, void *out, intptr_t n, intptr_t itemsize) {
    char *args[3] = {(char *)out, (char *)in, (char *)out};
    intptr_t dims[1] = {n};
    intptr_t steps[3] = {0, itemsize, 0};
    memset(out, 0, (size_t)itemsize);   /* +0.0, numpy's start for add.reduce */
    frame_loops[k](args, dims, steps, frame_loop_data[k]);
}
#define FRAME_COLSUM(T) \
static void frame_colsum_##T(const void *in, void *out, long m, long n) { \
    const T *a = (const T *)in; T *s = (T *)out; \
    for (long j = 0; j < n; ++j) s[j] = (T)0; \
    for (long i = 0; i < m; ++i) { \
        const T *row = a + i * n; \
        for (long j = 0; j < n; ++j) s[j] += row[j]; \
    } \
}
FRAME_COLSUM(float)
FRAME_COLSUM(double)
"""


def loop_pointers() -> tuple:
    """The (functions, data) C arrays `frame_set_loops` takes: numpy's loops in `loop_table` order
    (NULL where `numpy_loop` found none: no segment calls those)."""
    table = loop_table()
    found = [numpy_loop(op, dtype) or (0, 0) for op, dtype in table]
    n = max(len(table), 1)
    return ((ctypes.c_void_p * n)(*[f for f, _ in found]), (ctypes.c_void_p * n)(*[d for _, d in found]))
