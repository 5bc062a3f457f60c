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
  native tier keeps the numpy tier's bits.

A step joins a segment when every operand's address is known when the segment is called: a plan
buffer, a graph input, a constant, a result computed before the segment, or a result of the
segment itself (allocated before the call). A view made inside the segment, or any other op (a
transcendental ufunc, a reduction, an opaque kernel), ends it. Views, constants and `del`s
inside a segment stay Python lines, emitted after the call (they move no data).
"""
from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass, field

import numpy as np

from ..compiler.passes.plan import ExecutionPlan, is_view
from ..ir.graph import Value
from ..ir.registry import get

_CTYPE = {"float32": "float", "float64": "double"}
ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112


# -- numpy's BLAS -------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def blas_functions() -> dict:
    """numpy's BLAS gemm and gemv per float dtype as ctypes functions ({"gemm": {"float32": ...}, ...,
    "index": the C type of its integer arguments}); {} when it cannot be found (segments then hold no
    matmuls)."""
    try:
        from threadpoolctl import ThreadpoolController
        controllers = ThreadpoolController().select(user_api="blas").lib_controllers
    except Exception:   # noqa: BLE001  (no threadpoolctl, or a library it cannot inspect)
        return {}
    for controller in controllers:
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


# -- which steps run in C -----------------------------------------------------------------------
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
    "kernel" (detail: kernel index in the library), "gemm" (detail: matmul_shape); `slots` the
    non-buffer values whose addresses the call passes, in order."""
    name: str
    indices: list[int]
    steps: list = field(default_factory=list)
    slots: list = field(default_factory=list)


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
            return stable(v) and produced_at[v] < start
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
        detail = None
        if ins.node in kernel_of:
            kind, detail = "kernel", kernel_of[ins.node]
        else:
            kind, detail = "gemm", matmul_shape(ins)
        start = current.indices[0] if current is not None else i
        if detail is None or not all(known(v, start) for v in ins.inputs) or any(v in view_values for v in ins.outputs) \
                or (kind == "gemm" and not all(contiguous(v) for v in ins.inputs)):
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
    return "\n" + "\n".join(out) + "\n"
