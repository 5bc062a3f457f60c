"""The native backend: fused elementwise chains as generated C, compiled once, called through ctypes.

The numpy backend runs a `fused_elementwise_internal` body one ufunc pass per primitive. This
module turns a body into one C loop over the node's output shape instead: every operand
element is loaded once, the chain is computed in registers and every result stored once.
Measured on the reference machine: a five-op gradient chain on 1024x64 float32 took 19 µs
against 62 µs for the numpy passes (each pass ~10 µs plus its dispatch); the PINN step of
benchmarks/pinn_step.py went from ~5.2 to ~4.9 ms.

`tanh` (and `sigmoid`, built on it) is numpy's on every tier and every machine, with or without a
C compiler: numpy 2's SIMD tanh takes ~25 us on 1024x64 float32 on an AVX-512 Xeon, against ~50 us
for a C polynomial twin fused into its chain and ~470 us for that polynomial in numpy, which is what
machines without a compiler ran before (frame's own float32 tanh was dropped for this).

Numerics: the native tier computes the same bits as the numpy tier. Its kernels hold only
ops that are exact IEEE operations in both (`+ - * /`, negation, square, sqrt, relu and
relu's gradient, identities), all compiled without fast-math and without FMA contraction
(`-ffp-contract=off`), in the order the body states them. Other transcendental ops (exp, log,
sin, cos, pow, tanh) are not exact across libraries, so the native backend's chains stop
at them: they run as numpy ufuncs between two native kernels. An executable can therefore
switch tiers between two calls, at any moment, without changing a single result (a training
run is reproducible bit for bit whichever tier each step ran on). The one exception is the sign
and payload of a nan result: a nan is a nan in the same places on both tiers, but the C compiler
may rewrite `x / -y` as `-x / y` and swap the operands of `+` and `*`, which IEEE allows and
which only changes which nan comes out (numpy makes no promise about nan payloads either).

The backend fuses only ops whose registry block has a `c` expression for their dtype (`supports`);
a body is compiled only when every op in it has one, all its values share one float dtype and all
its outputs have the node's full (iteration) shape; other fused nodes keep running on numpy. The
rest of a plan is emitted as the numpy backend emits it, with one kernel call per fused node kept
whole. Compilation needs a C compiler (`$CC`, else `cc`, `gcc` or `clang`); without one, or when
it fails, executables simply stay on the numpy tier. Built libraries are cached on
disk by a hash of their source, the flags, the compiler and the CPU (`$FRAME_CACHE_DIR`, else
`~/.cache/frame`), so a graph compiled once is not compiled again by later processes.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import math
import os
import platform
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..ir.graph import Graph, Value
from ..ir.types import Dim, broadcast_dims, evaluate_shape, shape_symbols
from ..ops.fused import FusedBody
from ..ir.registry import ELEMENTWISE, get
from . import Program
from . import segments as seg
from .numpy import NumpyBackend, generate_source, run_function

# Runs of native steps as one C call (frame/backends/segments.py); off only to measure what they bring.
SEGMENTS = {"on": True}

# IEEE-preserving optimisation: no fast-math, no FMA contraction. -fno-math-errno lets sqrt
# vectorise; -fno-trapping-math lets the branch-free selects vectorise (frame sets no FP traps).
PORTABLE_FLAGS = ("-O3", "-fno-math-errno", "-fno-trapping-math", "-ffp-contract=off", "-std=c99", "-shared",
                  "-fPIC")
NATIVE_FLAGS = (*PORTABLE_FLAGS, "-march=native")
BUILD_TIMEOUT_S = 300

_CTYPE = {"float32": "float", "float64": "double"}

PRELUDE = r"""
#include <math.h>
#include <stdint.h>
#include <string.h>

"""


def _literal(value: float, ctype: str) -> str:
    """An exact C literal of `value` (hexadecimal floats round-trip every bit)."""
    value = float(value)
    if math.isnan(value):
        return f"(({ctype})NAN)"
    if math.isinf(value):
        return f"(({ctype})({'-' if value < 0 else ''}INFINITY))"
    return value.hex() + ("f" if ctype == "float" else "")


def _c_expression(op: str, dtype: str) -> str | None:
    """The op's C expression for one element of `dtype` (its `c` fact), or None: not compiled natively.
    Only ops whose C expression gives numpy's bits for every input, inf included, have one (see
    the module doc on nan)."""
    schema = get(op)
    return schema.c if schema.c is not None and dtype in schema.c_dtypes and dtype in _CTYPE else None


def supports(node) -> bool:
    """Whether a (non-fused) node can be part of a native kernel: an op computed exactly as numpy does."""
    dtypes = {v.type.dtype for v in (*node.inputs, *node.outputs)}
    return len(dtypes) == 1 and _c_expression(node.op, next(iter(dtypes))) is not None


# -- one fused body -> one C function -----------------------------------------------------------------
def _loop_dims(shapes: list[tuple[int, ...]], full: tuple[int, ...]):
    """Collapse the iteration space `full` for operands of `shapes` (each broadcast to `full`).

    Returns (extents, strides): the loop extents, and per operand the element stride of each loop
    (0 where the operand is broadcast). Size-1 dimensions are dropped and neighbouring dimensions
    merged wherever every operand is either full or broadcast in both, so a (N, 64) chain with
    (64,) and (N, 1) operands keeps two loops while an all-full chain becomes one flat loop.
    """
    rank = len(full)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    dims = []   # (extent, per-operand "full?" flags)
    for d in range(rank):
        if full[d] == 1:
            continue
        flags = tuple(p[d] == full[d] for p in padded)
        if dims and dims[-1][1] == flags:
            dims[-1] = (dims[-1][0] * full[d], flags)
        else:
            dims.append((full[d], flags))
    extents = [e for e, _ in dims]
    strides = []
    for k in range(len(shapes)):
        stride, per_loop = 1, [0] * len(dims)
        for j in range(len(dims) - 1, -1, -1):
            if dims[j][1][k]:
                per_loop[j] = stride
                stride *= dims[j][0]
        strides.append(per_loop)
    return extents, strides


@dataclass(frozen=True)
class KernelSpec:
    """A fused body compiled natively: its C function (without a name yet) and its signature size.

    A body over symbolic sizes (frame.ir.types.Dim) takes each symbol's value first, as a `long`:
    its loop extents and strides are C expressions over them, so one kernel serves every size."""

    body: FusedBody
    c_body: str          # the function's text after `void NAME(`
    num_operands: int
    num_results: int
    symbols: tuple[str, ...] = ()


def _c_size(d) -> str:
    """A dimension as C: an int, or a Dim's polynomial over its symbols' parameters (`s_n`)."""
    if type(d) is not Dim:
        return str(d)
    terms = []
    for monomial, coefficient in d.terms:
        factors = [f"{coefficient}L"] + [f"s_{s}" for s in monomial]
        terms.append("(" + " * ".join(factors) + ")")
    return "(" + " + ".join(terms) + ")"


@functools.lru_cache(maxsize=4096)
def kernel_spec(body: FusedBody) -> KernelSpec | None:
    """The C kernel of a fused node's body, or None when the body has to stay on numpy (see module doc)."""
    values = [*body.inputs, *(v for n in body.nodes for v in n.outputs)]
    dtypes = {v.type.dtype for v in values}
    if len(dtypes) != 1 or not body.outputs:
        return None
    dtype = dtypes.pop()
    ctype = _CTYPE.get(dtype)
    full = body.outputs[0].type.shape
    if ctype is None or any(v.type.shape != full for v in body.outputs):
        return None
    symbols = tuple(sorted({s for v in values for s in shape_symbols(v.type.shape)}))
    try:
        if any((broadcast_dims("fused", v.type.shape, full) if symbols else np.broadcast_shapes(v.type.shape, full))
               != full for v in body.inputs):
            return None
    except ValueError:   # ShapeError is one
        return None
    from ..compiler.passes.rewrite import splat_value

    names: dict[Value, str] = {}
    lines: list[str] = []
    extents, strides = _loop_dims([v.type.shape for v in body.inputs], full)
    index_vars = [f"i{j}" for j in range(len(extents))]

    def index(per_loop) -> str:
        terms = [f"{i}" if s == 1 else f"{i} * {_c_size(s)}" for i, s in zip(index_vars, per_loop) if s]
        return " + ".join(terms) or "0"

    for k, v in enumerate(body.inputs):
        names[v] = f"x{k}"
        lines.append(f"const {ctype} x{k} = in{k}[{index(strides[k])}];")
    for j, node in enumerate(body.nodes):
        if node.op == "constant":
            value = splat_value(node.outputs[0])
            if value is None:
                return None
            expr = _literal(value, ctype)
        else:
            template = _c_expression(node.op, dtype)
            if template is None or len(node.outputs) != 1:
                return None
            expr = template.format(*[names[v] for v in node.inputs], t=ctype, f="f" if ctype == "float" else "")
        names[node.outputs[0]] = f"t{j}"
        lines.append(f"const {ctype} t{j} = {expr};")
    stride, out_strides = 1, [0] * len(extents)   # row-major strides of the results over the loops
    for j in range(len(extents) - 1, -1, -1):
        out_strides[j] = stride
        stride *= extents[j]
    out_index = index(out_strides)
    for m, v in enumerate(body.outputs):
        lines.append(f"out{m}[{out_index}] = {names[v]};")

    params = [f"long s_{s}" for s in symbols]
    params += [f"const {ctype} *in{k}" for k in range(len(body.inputs))]
    params += [f"{ctype} *out{m}" for m in range(len(body.outputs))]
    indent = "    " * (len(extents) + 1)
    text = [", ".join(params) + ") {"]
    for depth, (var, extent) in enumerate(zip(index_vars, extents)):
        pad = "    " * (depth + 1)
        if depth == len(extents) - 1:
            text.append(f"{pad}#pragma GCC ivdep")   # operands and results never overlap partially
        text.append(f"{pad}for (long {var} = 0; {var} < {_c_size(extent)}; ++{var}) {{")
    text += [indent + ln for ln in lines]
    text += ["    " * (depth + 1) + "}" for depth in range(len(extents) - 1, -1, -1)]
    text.append("}")
    return KernelSpec(body, "\n".join(text), len(body.inputs), len(body.outputs), symbols)


def single_op_body(ins):
    """The one-op fused body of an exact elementwise step (its C kernel computes numpy's bits), else None."""
    node = ins.node
    if not get(ins.op).has(ELEMENTWISE) or len(ins.outputs) != 1 or not supports(node):
        return None
    graph = Graph(f"{ins.op}_step")
    operands = [graph.add_input(v.type) for v in ins.inputs]
    graph.mark_output(graph.add_node(ins.op, operands, ins.attrs).outputs[0])
    body = FusedBody.of(graph)
    return body if kernel_spec(body) is not None else None


def library_source(specs: list[KernelSpec], extra: str = "") -> str:
    """One C translation unit holding `specs` as functions k0, k1, ..., then `extra` (segments)."""
    parts = [PRELUDE]
    for i, spec in enumerate(specs):
        parts.append(f"void k{i}({spec.c_body}\n")
    if extra:
        parts.append(extra)
    return "\n".join(parts)


# -- compiler, build and disk cache ---------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def c_compiler() -> str | None:
    """Path of the C compiler used for native kernels (`$CC`, else cc/gcc/clang), or None."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name:
            path = shutil.which(name)
            if path:
                return path
    return None


@functools.lru_cache(maxsize=4)
def _toolchain_id(compiler: str) -> str:
    """Compiler version and CPU identity: a library built for one must not be loaded by another."""
    try:
        version = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        version = ""
    cpu = platform.machine() + platform.processor()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu += "".join(line for line in fh if line.startswith(("model name", "flags")))
    except OSError:
        pass
    return f"{compiler}\n{version}\n{cpu}"


def cache_root() -> Path:
    """frame's cache directory: `$FRAME_CACHE_DIR`, else `$XDG_CACHE_HOME/frame`, else ~/.cache/frame
    (built libraries go under `native/`, pino's datasets under `pino/`)."""
    root = os.environ.get("FRAME_CACHE_DIR")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                            "frame")
    return Path(root)


def cache_dir() -> Path:
    """Where built libraries are kept: `cache_root() / "native"`."""
    return cache_root() / "native"


class BuildError(RuntimeError):
    """The C compiler failed on generated source (a frame bug: the message has the compiler's output)."""


_TMP_PREFIX = "building-"
STALE_BUILD_S = 3600


def _remove_stale_builds(directory: Path) -> None:
    """Delete the sources and objects of builds that a process exiting mid-build left behind."""
    now = time.time()
    for path in directory.glob(f"{_TMP_PREFIX}*"):
        try:
            if now - path.stat().st_mtime > STALE_BUILD_S:
                path.unlink()
        except OSError:
            pass


def build_library(source: str) -> ctypes.CDLL:
    """Compile `source` to a shared library (or take it from the disk cache) and load it."""
    compiler = c_compiler()
    if compiler is None:
        raise BuildError("no C compiler found (set $CC)")
    toolchain = _toolchain_id(compiler)
    last_error = ""
    for flags in (NATIVE_FLAGS, PORTABLE_FLAGS):
        key = hashlib.sha256("\0".join([toolchain, " ".join(flags), source]).encode()).hexdigest()[:32]
        directory = cache_dir()
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            directory = Path(tempfile.gettempdir()) / f"frame-native-{os.getuid() if hasattr(os, 'getuid') else 0}"
            directory.mkdir(parents=True, exist_ok=True)
        target = directory / f"{key}.so"
        _remove_stale_builds(directory)
        if not target.exists():
            # Build under a unique name, then rename: concurrent builders and readers never see a partial file.
            fd, tmp_c = tempfile.mkstemp(prefix=_TMP_PREFIX, suffix=".c", dir=directory)
            with os.fdopen(fd, "w") as fh:
                fh.write(source)
            tmp_so = tmp_c[:-2] + ".so"
            try:
                done = subprocess.run([compiler, *flags, "-o", tmp_so, tmp_c, "-lm"], capture_output=True, text=True,
                                      timeout=BUILD_TIMEOUT_S)
                if done.returncode != 0:
                    last_error = done.stderr.strip()[-2000:]
                    continue
                os.replace(tmp_so, target)
            except (OSError, subprocess.SubprocessError) as e:
                last_error = str(e)
                continue
            finally:
                for path in (tmp_c, tmp_so):
                    if os.path.exists(path):
                        os.unlink(path)
        return ctypes.CDLL(str(target))
    raise BuildError(f"{compiler} failed on the generated kernels:\n{last_error}")


def load_kernels(specs: list[KernelSpec]) -> list:
    """The ctypes functions of `specs`, in order (built as one library)."""
    return load_library(specs)[0]


def load_library(specs: list[KernelSpec], segments=(), plan=None) -> tuple[list, list]:
    """The ctypes functions of `specs` and of `plan`'s `segments` (frame/backends/segments.py), in
    order, built as one library."""
    blas = seg.blas_functions() if segments else {}
    extra = ""
    if segments:   # (without numpy's BLAS, segments hold no matmuls and the prelude's pointers stay unset)
        index = blas.get("index", "int64_t")
        extra = seg.blas_prelude(index) + "\n".join(seg.segment_source(s, plan) for s in segments)
    lib = build_library(library_source(specs, extra))
    functions = []
    for i, spec in enumerate(specs):
        fn = getattr(lib, f"k{i}")
        fn.argtypes = [ctypes.c_long] * len(spec.symbols) + [ctypes.c_void_p] * (spec.num_operands + spec.num_results)
        fn.restype = None
        functions.append(fn)
    segment_functions = []
    if segments and blas:
        lib.frame_set_blas(*(ctypes.cast(blas[routine][dtype], ctypes.c_void_p)
                             for routine in ("gemm", "gemv") for dtype in ("float32", "float64")))
    if segments:
        lib.frame_set_loops(*seg.loop_pointers())
        for s in segments:
            fn = getattr(lib, s.name)
            fn.argtypes = [ctypes.c_void_p] * (1 + len(s.slots))
            fn.restype = None
            segment_functions.append(fn)
    return functions, segment_functions


class NativeBackend(NumpyBackend):
    """The numpy backend with each compilable fused chain run as one C loop: it fuses only the ops
    with an exact C expression (`supports`) and keeps whole the fused nodes it can compile."""

    name = "native"

    def supports(self, node) -> bool:
        return supports(node)

    def runs_whole(self, node) -> bool:
        return node.op == "fused_elementwise_internal" and kernel_spec(node.attrs["body"]) is not None

    def program(self, plan) -> Program | None:
        """The plan with its kept-whole fused nodes as native kernels and its runs of native steps as
        segments (frame/backends/segments.py); None when it has neither."""
        whole = [ins.node for ins in plan.instrs if self.runs_whole(ins.node)]
        body_of = {n: n.attrs["body"] for n in whole}
        symbolic = any(v.type.is_symbolic for v in plan.graph.inputs)
        if symbolic:
            # Segments address their slots at offsets fixed when compiling: a symbolic plan runs its fused
            # nodes as kernels taking the sizes of each call, its other steps as the numpy tier does.
            return self._symbolic_program(plan, whole)
        if SEGMENTS["on"]:
            for ins in plan.instrs:
                if ins.node not in body_of:
                    one = single_op_body(ins)
                    if one is not None:
                        body_of[ins.node] = one
        specs = list(dict.fromkeys(kernel_spec(b) for b in body_of.values()))
        index = {spec: i for i, spec in enumerate(specs)}
        segments = seg.find_segments(plan, {n: index[kernel_spec(b)] for n, b in body_of.items()}) \
            if SEGMENTS["on"] else []
        in_segments = {ins.node for s in segments for _, ins, _ in s.steps}
        if not whole and not segments:
            return None
        functions, segment_functions = load_library(specs, segments, plan)
        by_spec = dict(zip(specs, functions))
        kernels = {n: by_spec[kernel_spec(n.attrs["body"])] for n in whole if n not in in_segments}
        source, namespace, macs = generate_source(plan, kernels, list(zip(segments, segment_functions)))

        def new_arena():
            buffers = tuple(np.empty(t.shape, t.dtype) for t in plan.buffers)
            addresses = tuple(b.ctypes.data for b in buffers)
            return buffers, addresses, (ctypes.c_void_p * max(len(addresses), 1))(*addresses)

        run = run_function(source, namespace, f"<frame native plan @{plan.graph.name}>")
        return Program(self.name, plan, source, run, new_arena, kernels=len(whole), blas_macs=macs)

    def _symbolic_program(self, plan, whole) -> Program | None:
        """The native program of a plan with symbolic sizes: its kept-whole fused nodes as kernels whose
        first parameters are the symbols' values (the locals its function reads from the inputs), and
        arenas made per binding of the symbols (`new_arena(env)`)."""
        if not whole:
            return None
        specs = list(dict.fromkeys(kernel_spec(n.attrs["body"]) for n in whole))
        functions, _ = load_library(specs)
        by_spec = dict(zip(specs, functions))
        kernels = {n: by_spec[kernel_spec(n.attrs["body"])] for n in whole}
        symbols = {n: kernel_spec(n.attrs["body"]).symbols for n in whole}
        source, namespace, macs = generate_source(plan, kernels, (), kernel_symbols=symbols)

        def new_arena(env):
            buffers = tuple(np.empty(evaluate_shape(t.shape, env), t.dtype) for t in plan.buffers)
            addresses = tuple(b.ctypes.data for b in buffers)
            return buffers, addresses, (ctypes.c_void_p * max(len(addresses), 1))(*addresses)

        run = run_function(source, namespace, f"<frame native plan @{plan.graph.name}>")
        program = Program(self.name, plan, source, run, new_arena, kernels=len(whole), blas_macs=macs)
        program.symbolic = True   # new_arena takes the binding {symbol: size}
        return program


NATIVE = NativeBackend()
