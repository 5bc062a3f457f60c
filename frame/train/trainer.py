"""Host-driven training: optimisers as update graphs, a `Trainer` loop, atomic checkpoints (ARCH-065).

Each step runs two compiled graphs and rotates arrays on the host:

1. the training graph `[params..., data...] -> [loss, grads...]`, derived once from the traced
   `loss_fn` with `build_backward_graph`;
2. the optimiser's update graph `[params..., grads..., state..., (lr)] -> [new_params..., new_state...]`;
3. the host swaps in the new parameters and state.

Both graphs have constant shapes, and data are graph inputs (not constants), so after the first
step no step compiles anything. A non-finite loss, gradient or updated parameter raises
`TrainingError` naming the step, and the parameters keep their last finite values.

Example::

    def loss_fn(params, x, y):
        pred = fnp.tanh(x @ params["w"] + params["b"])
        return fnp.mean((pred - y) ** 2)

    trainer = Trainer(loss_fn, {"w": w0, "b": b0}, Adam(1e-2))
    losses = trainer.run(1000, x, y)
"""
from __future__ import annotations

import inspect
import io
import json
import math
import os
import re
import secrets
import struct
import zipfile
import zlib
from typing import Any, Callable, Sequence

import numpy as np

from ..compiler.autograd import build_backward_graph
from .update_graphs import build_adam_update_graph, build_sgd_update_graph
from ..errors import CheckpointError, FrameError, GradientError, InputError, TrainingError
from ..frontend.pytree import TreeDef, tree_flatten, tree_unflatten
from ..frontend.tracer import example_type, trace_function
from ..ir.types import TensorType
from ..runtime.compile import compile as compile_graph
from ..runtime.executable import Executable

__all__ = ["SGD", "Adam", "Optimizer", "Trainer", "LossGraph", "CHECKPOINT_FORMAT", "DEFAULT_DIVERGENCE_FACTOR",
           "check_finite_data", "check_divergence_factor"]

CHECKPOINT_FORMAT = "frame.train.checkpoint/1"

#: `Trainer`'s default divergence guard: stop once a loss exceeds the first loss L0 by more than
#: this many times |L0| (a healthy run stays near or below L0; the issue-12 run at lr=1e8 went 51 -> 4e9).
DEFAULT_DIVERGENCE_FACTOR = 1e4

# --------------------------------------------------------------------------------------------
# Optimisers


class Optimizer:
    """An optimiser is a recipe for an update graph plus its flat state.

    The update graph has inputs `[params..., grads..., state..., (lr if scheduled)]` and outputs
    `[new_params..., new_state...]`. A float `lr` is baked into the graph; a callable
    `lr(step) -> float` (step = number of updates done before this one, from 0) is fed as a
    rank-0 graph input each step, so a schedule never recompiles.
    """

    name = "optimizer"

    def __init__(self, lr):
        if callable(lr):
            self.lr = lr
        else:
            if isinstance(lr, bool) or not isinstance(lr, (int, float, np.floating, np.integer)) \
                    or not math.isfinite(float(lr)):
                raise FrameError(f"{type(self).__name__}: lr must be a finite float or a callable step -> lr, "
                                 f"got {lr!r}")
            self.lr = float(lr)

    @property
    def scheduled(self) -> bool:
        """True when the learning rate is a callable fed as a graph input."""
        return callable(self.lr)

    def update_graph(self, param_types: Sequence[TensorType]):
        raise NotImplementedError

    def init_state(self, params: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The initial optimiser state as a flat list of arrays (empty for SGD)."""
        return []

    def lr_input(self, step: int, dtype: str) -> list[np.ndarray]:
        """The trailing `lr` graph input for update number `step` (empty for a baked-in lr)."""
        if not self.scheduled:
            return []
        value = float(self.lr(step))
        if not math.isfinite(value):
            raise TrainingError(f"step {step + 1}: the learning-rate schedule returned {value}")
        return [np.asarray(value, dtype=dtype)]

    def config(self) -> dict:
        """JSON-able hyper-parameters (a scheduled lr is stored as None: pass the optimiser on restore)."""
        return {"type": type(self).__name__, "lr": None if self.scheduled else self.lr}

    def __repr__(self):
        args = [f"lr={'<schedule>' if self.scheduled else repr(self.lr)}"]
        args += [f"{k}={v!r}" for k, v in self.config().items() if k not in ("type", "lr")]
        return f"{type(self).__name__}({', '.join(args)})"


class SGD(Optimizer):
    """Plain gradient descent: `p <- p - lr * g` (update graph from `build_sgd_update_graph`)."""

    def __init__(self, lr: float | Callable[[int], float]):
        super().__init__(lr)

    def update_graph(self, param_types):
        return build_sgd_update_graph(param_types, None if self.scheduled else self.lr)


class Adam(Optimizer):
    """Adam with optax's bias-corrected formulas; state `[m..., v..., step]` lives in host arrays.

    The update graph comes from `build_adam_update_graph`; all parameters must share one float dtype.
    """

    def __init__(self, lr: float | Callable[[int], float] = 1e-3, b1: float = 0.9, b2: float = 0.999,
                 eps: float = 1e-8):
        super().__init__(lr)
        for name, value in (("b1", b1), ("b2", b2), ("eps", eps)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
                raise FrameError(f"Adam: {name} must be a number, got {type(value).__name__} {value!r}")
        self.b1, self.b2, self.eps = float(b1), float(b2), float(eps)
        if not (0.0 < self.b1 < 1.0 and 0.0 < self.b2 < 1.0 and self.eps >= 0.0):
            raise FrameError(f"Adam: needs 0 < b1 < 1, 0 < b2 < 1 and eps >= 0, got b1={b1}, b2={b2}, eps={eps}")

    def update_graph(self, param_types):
        return build_adam_update_graph(param_types, None if self.scheduled else self.lr, self.b1, self.b2, self.eps)

    def init_state(self, params):
        zeros = [np.zeros_like(p) for p in params]
        return [*zeros, *[np.zeros_like(p) for p in params], np.zeros((), params[0].dtype)]

    def config(self):
        return {**super().config(), "b1": self.b1, "b2": self.b2, "eps": self.eps}


_OPTIMIZERS = {"SGD": SGD, "Adam": Adam}


def optimizer_from_config(config: dict, path: str = "<checkpoint>") -> Optimizer:
    """Rebuild an optimiser from `Optimizer.config()` as stored in checkpoint `path` (else `CheckpointError`).

    A scheduled lr (a callable) is not stored, so such a checkpoint needs `optimizer=` on restore.
    """
    kind = config.get("type")
    if kind not in _OPTIMIZERS:
        raise CheckpointError(f"checkpoint {path!r} names optimiser {kind!r}, which frame.train does not know; "
                              "pass optimizer=")
    if config.get("lr") is None:
        raise CheckpointError(f"checkpoint {path!r}: its {kind} used a learning-rate schedule (a callable, not "
                              "stored); pass optimizer= with the same schedule to restore it")
    kwargs = {k: v for k, v in config.items() if k != "type"}
    try:
        return _OPTIMIZERS[kind](**kwargs)
    except (FrameError, TypeError, ValueError) as e:
        raise CheckpointError(f"checkpoint {path!r} has optimizer metadata {config!r} that does not build a "
                              f"{kind} ({e}); pass optimizer=") from None


# --------------------------------------------------------------------------------------------
# The compiled value-and-gradient of a loss function


def leaf_paths(treedef: TreeDef) -> list[str]:
    """Readable names of a pytree's leaves, e.g. `['layers'][0]['w']`, in flattening order."""
    paths: list[str] = []

    def walk(td: TreeDef, prefix: str):
        if td.kind == "leaf":
            paths.append(prefix or "<root>")
        elif td.kind == "dict":
            for k, c in zip(td.meta, td.children):
                walk(c, f"{prefix}[{k!r}]")
        else:
            for i, c in enumerate(td.children):
                walk(c, f"{prefix}[{i}]")

    walk(treedef, "")
    return paths


def as_param_leaves(params) -> tuple[list[np.ndarray], TreeDef]:
    """Flatten a parameter pytree into fresh float numpy arrays; `InputError` for non-float leaves."""
    leaves, treedef = tree_flatten(params)
    if not leaves:
        raise InputError("params has no leaves: there is nothing to train")
    paths = leaf_paths(treedef)
    arrays = []
    for i, (leaf, path) in enumerate(zip(leaves, paths)):
        a = np.array(leaf)  # a copy: the caller's arrays are never touched
        if a.dtype.name not in ("float32", "float64"):
            raise InputError(f"parameter {path} has dtype {a.dtype.name} and shape {list(a.shape)}; parameters "
                             "must be float32 or float64 arrays", i, "float32|float64", a.dtype.name)
        arrays.append(a)
    return arrays, treedef


def first_nonfinite(arrays: Sequence[np.ndarray], names: Sequence[str]) -> str | None:
    """Describe the first array holding NaN/Inf (None if all are finite)."""
    # Fast path, one reduction per array: a sum is finite only if every element is (a finite sum
    # that overflows just falls through to the exact check).
    if math.isfinite(sum(float(a.sum()) for a in arrays)):
        return None
    for a, name in zip(arrays, names):
        if not np.isfinite(a).all():
            bad = "nan" if np.isnan(a).any() else "inf"
            return f"{name} {a.dtype.name}{list(a.shape)} contains {bad}"
    return None


def _data_argument_names(loss_fn: Callable, count: int) -> list[str]:
    """The names of `loss_fn`'s data arguments (those after params), e.g. ['x', 'y']; '' where unknown."""
    try:
        parameters = list(inspect.signature(loss_fn).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    names: list[str] = []
    for p in parameters[1:]:
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            names += [f"*{p.name}[{j}]" for j in range(count - len(names))]
        elif p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    return (names + [""] * count)[:count]


def check_finite_data(loss_fn: Callable, data: tuple) -> None:
    """`InputError` naming the first data argument of `loss_fn(params, *data)` that holds NaN/Inf, and where.

    E.g. "data argument 1 (x) float64[48, 2] holds nan at index (3, 0)": argument 0 is params.
    """
    for i, (arg, name) in enumerate(zip(data, _data_argument_names(loss_fn, len(data))), start=1):
        leaves, treedef = tree_flatten(arg)
        paths = leaf_paths(treedef) if treedef.kind != "leaf" else [""]
        for leaf, path in zip(leaves, paths):
            a = np.asarray(leaf)
            if a.dtype.kind not in "fc":
                continue
            with np.errstate(over="ignore", invalid="ignore"):
                if math.isfinite(abs(complex(a.sum()))):  # one reduction when all is well
                    continue
            bad = np.argwhere(~np.isfinite(a))
            if not len(bad):
                continue  # the sum overflowed, the values are finite
            index = tuple(int(j) for j in bad[0])
            kind = "nan" if np.isnan(a[index]) else "inf"
            label = f"{name}{path}" if path != "<root>" else name
            raise InputError(f"data argument {i}{f' ({label})' if label else ''} {a.dtype.name}{list(a.shape)} holds "
                             f"{kind} at index {index}; training data must be finite", i)


def check_divergence_factor(factor) -> float | None:
    """A validated `divergence_factor`: None (guard off) or a finite number > 0."""
    if factor is None:
        return None
    if isinstance(factor, bool) or not isinstance(factor, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(factor)) or factor <= 0:
        raise FrameError(f"divergence_factor must be a finite number > 0 or None (no guard), got {factor!r}")
    return float(factor)


class LossGraph:
    """`loss_fn(params, *data)` compiled into its training graph `[params..., data...] -> [loss, grads...]`.

    One executable per data signature (pytree structure, shapes, dtypes): a new batch of the same
    shape reuses it. `.compiled(data)` returns the executable and the flat data arrays;
    `.value_and_grad(param_leaves, data)` runs it.
    """

    def __init__(self, loss_fn: Callable, param_treedef: TreeDef, param_types: Sequence[TensorType]):
        self.loss_fn, self.param_treedef = loss_fn, param_treedef
        self.param_types = list(param_types)
        self._executables: dict[tuple, Executable] = {}
        self.graph = None  # the latest training graph (for inspection)

    def _trace(self, data: tuple):
        params_example = tree_unflatten(self.param_treedef, self.param_types)
        res = trace_function(lambda p, *d: self.loss_fn(p, *d), (params_example, *data),
                             name=getattr(self.loss_fn, "__name__", "loss_fn").replace("<", "").replace(">", ""))
        if len(res.graph.outputs) != 1:
            raise GradientError(f"loss_fn must return one scalar, got {len(res.graph.outputs)} outputs "
                                f"(structure {res.out_tree})")
        n = len(self.param_types)
        return build_backward_graph(res.graph, 0, list(range(n)))

    def compiled(self, data: tuple) -> tuple[Executable, list]:
        """The executable for this data signature and the flat data arrays to feed it."""
        leaves, treedef = tree_flatten(data)
        arrays = [a if isinstance(a, np.ndarray) else np.asarray(a) for a in leaves]
        key = (treedef, tuple((a.shape, a.dtype) for a in arrays))
        exe = self._executables.get(key)
        if exe is None:
            self.graph = self._trace(tree_unflatten(treedef, [example_type(a) for a in arrays]))
            exe = self._executables[key] = compile_graph(self.graph)
        return exe, arrays

    def value_and_grad(self, params: Sequence[np.ndarray], data: tuple) -> tuple[np.ndarray, list[np.ndarray]]:
        exe, arrays = self.compiled(data)
        outs = exe(*params, *arrays)
        return outs[0], outs[1:]


def scalar(loss: np.ndarray) -> float:
    """The loss (rank 0 or one element) as a Python float."""
    return float(np.asarray(loss).reshape(-1)[0])


# --------------------------------------------------------------------------------------------
# Checkpoint files: one .npz holding arrays plus a JSON metadata string, replaced atomically.
#
# A checkpoint is untrusted input: reading one parses the zip archive and the .npy headers here
# (never numpy's pickle path), validates the metadata against the arrays, and rebuilds only the
# containers frame writes (leaf, None, tuple, list, dict). A namedtuple is stored by name and
# rebuilt only from classes the caller allows; nothing is ever imported or called by name.

_TREE_KINDS = ("leaf", "none", "tuple", "list", "dict")


def type_name(cls: type) -> str:
    """The `module:qualname` under which a checkpoint records a namedtuple class."""
    return f"{cls.__module__}:{cls.__qualname__}"


def _encode_treedef(td: TreeDef) -> dict:
    if td.kind in ("leaf", "none"):
        return {"kind": td.kind}
    node: dict[str, Any] = {"kind": td.kind, "children": [_encode_treedef(c) for c in td.children]}
    if td.kind == "dict":
        if not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in td.meta):
            raise FrameError(f"checkpoint: parameter dict keys must be str or int, got {list(td.meta)}")
        node["keys"] = [[type(k).__name__, k] for k in td.meta]
    elif td.kind == "tuple" and td.meta is not None:  # a namedtuple: its name and fields, for matching on restore
        node["namedtuple"] = type_name(td.meta)
        node["fields"] = list(td.meta._fields)
    return node


def _decode_treedef(node, resolve: Callable[[str, list | None, int], Any], fail: Callable[[str], Exception]) -> TreeDef:
    """Rebuild a TreeDef from its JSON form, validating it; `resolve(name, fields, arity)` supplies namedtuples."""
    if not isinstance(node, dict) or node.get("kind") not in _TREE_KINDS:
        kind = node.get("kind") if isinstance(node, dict) else node
        raise fail(f"has a treedef node of kind {kind!r}; frame writes only {', '.join(_TREE_KINDS)}")
    kind = node["kind"]
    if kind in ("leaf", "none"):
        return TreeDef(kind, None, ())
    if not isinstance(node.get("children"), list):
        raise fail(f"has a treedef {kind} node without a children list")
    children = tuple(_decode_treedef(c, resolve, fail) for c in node["children"])
    meta = None
    if kind == "dict":
        keys = node.get("keys")
        if not isinstance(keys, list) or len(keys) != len(children) or not all(
                isinstance(k, list) and len(k) == 2 and (k[0], type(k[1])) in (("str", str), ("int", int))
                for k in keys):
            raise fail(f"has a treedef dict node whose keys {keys!r} are not {len(children)} [type, key] pairs")
        meta = tuple(k for _, k in keys)
    elif kind == "tuple" and "namedtuple" in node:
        name, fields = node["namedtuple"], node.get("fields")
        if not isinstance(name, str) or not (fields is None or (isinstance(fields, list)
                                                               and all(isinstance(f, str) for f in fields))):
            raise fail(f"has a malformed treedef namedtuple node {name!r} (fields {fields!r})")
        meta = resolve(name, fields, len(children))
    return TreeDef(kind, meta, children)


def _namedtuple_resolver(allowed_types: Sequence[type], path: str) -> Callable[[str, list | None, int], type]:
    """Match stored namedtuple names against the caller's allow-list (by module:qualname, else by qualname)."""
    allowed = (allowed_types,) if isinstance(allowed_types, type) else tuple(allowed_types)
    for cls in allowed:
        if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
            raise FrameError(f"Trainer.restore: allowed_types must be namedtuple classes, got {cls!r}")

    def resolve(name: str, fields: list | None, arity: int) -> type:
        qualname = name.rpartition(":")[2]
        matches = [c for c in allowed if type_name(c) == name] or [c for c in allowed if c.__qualname__ == qualname]
        if len(matches) != 1:
            raise CheckpointError(
                f"checkpoint {path!r} stores params containing the namedtuple type {name!r}, which restore does "
                f"not build unless you allow it: pass allowed_types=({qualname.split('.')[-1]},) with that class "
                "(or build a Trainer with such params and call .load(path))")
        cls = matches[0]
        stored_fields = list(cls._fields) if fields is None else fields  # older checkpoints stored no fields
        if list(cls._fields) != stored_fields or len(cls._fields) != arity:
            raise CheckpointError(f"checkpoint {path!r} stores {name!r} with fields {fields} ({arity} children), but "
                                  f"the allowed class {type_name(cls)} has fields {list(cls._fields)}")
        return cls

    return resolve


def _with_type_names(td: TreeDef) -> TreeDef:
    """`td` with each namedtuple class replaced by its `type_name` (how a checkpoint records it)."""
    meta = type_name(td.meta) if td.kind == "tuple" and td.meta is not None else td.meta
    return TreeDef(td.kind, meta, tuple(_with_type_names(c) for c in td.children))


def _json_default(x):
    if isinstance(x, (np.generic, np.ndarray)):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON-serialisable")


def _temp_name_pattern(basename: str) -> re.Pattern:
    # `.NAME.PID-HEX.tmp` as written below, or `.NAME.XXXXXXXX.tmp` from tempfile.mkstemp (older saves).
    return re.compile(rf"\.{re.escape(basename)}\.(?:(\d+)-)?[A-Za-z0-9_]+\.tmp")


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # another thread of this process may be writing it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: the process exists but is not ours
        return True
    return True


def _remove_stale_temp_files(directory: str, basename: str) -> None:
    """Delete temp files that killed saves to this path left behind (not those of a live process)."""
    pattern = _temp_name_pattern(basename)
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        match = pattern.fullmatch(name)
        if match is None or (match.group(1) is not None and _process_alive(int(match.group(1)))):
            continue
        try:
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass


def write_checkpoint(path: str | os.PathLike, arrays: dict[str, np.ndarray], meta: dict) -> None:
    """Write `arrays` and JSON `meta` to `path` atomically: a temp file in the same directory, then `os.replace`.

    If anything fails midway, the temp file is removed and a previous checkpoint at `path` is untouched;
    temp files that killed saves to `path` left behind are removed first. The file gets the permissions
    a plain `open()` would (0666 minus the umask). A failure is a `CheckpointError` naming `path`.
    """
    path = os.fspath(path)
    directory, basename = os.path.split(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise CheckpointError(f"cannot save checkpoint {path!r}: the directory {directory!r} does not exist")
    payload = {**arrays, "__meta__": np.array(json.dumps(meta, default=_json_default))}
    _remove_stale_temp_files(directory, basename)
    tmp = os.path.join(directory, f".{basename}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as e:
        raise CheckpointError(f"cannot save checkpoint {path!r}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError):
            raise CheckpointError(f"cannot save checkpoint {path!r}: {e.strerror or e}") from None
        raise


def _parse_npy(name: str, data: bytes, fail: Callable[[str], Exception]) -> np.ndarray:
    """One .npy member, parsed without numpy's pickle path; object dtypes and size mismatches are refused."""
    f = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(f)
        read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                       (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read_header is None:
            raise ValueError(f"unsupported .npy version {version}")
        shape, fortran_order, dtype = read_header(f)
    except (ValueError, SyntaxError, EOFError, TypeError) as e:
        raise fail(f"has a damaged array {name!r} ({e})") from None
    if dtype.hasobject or dtype.kind not in "biufcU" or dtype.fields is not None:
        raise fail(f"has array {name!r} of dtype {dtype} (Python objects or records), which frame never writes")
    count = math.prod(shape)
    if len(data) - f.tell() != count * dtype.itemsize:
        raise fail(f"has a damaged array {name!r}: its header says {dtype}{list(shape)} "
                   f"({count * dtype.itemsize} bytes) but {len(data) - f.tell()} bytes follow")
    flat = np.frombuffer(data, dtype=dtype, count=count, offset=f.tell())
    return flat.reshape(shape, order="F" if fortran_order else "C").copy()


def _read_members(path: str, fail: Callable[[str], Exception]) -> dict[str, np.ndarray]:
    try:
        size = os.path.getsize(path)
        if os.path.isdir(path):
            raise fail("is a directory")
        if size == 0:
            raise fail("is empty (0 bytes; a save may have been killed before it wrote anything)")
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            arrays = {}
            for info in infos:
                name = info.filename
                if not name.endswith(".npy") or name[:-4] in arrays:
                    raise fail(f"has an unexpected member {name!r}; a frame checkpoint holds only .npy arrays")
                if info.compress_type != zipfile.ZIP_STORED or info.file_size > size:
                    raise fail(f"has a member {name!r} that frame does not write (compressed or larger than the file)")
                arrays[name[:-4]] = _parse_npy(name, z.read(info), fail)
            return arrays
    except FileNotFoundError:
        raise fail("does not exist") from None
    except CheckpointError:
        raise
    except OSError as e:
        raise fail(e.strerror or str(e)) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, KeyError, NotImplementedError, RuntimeError,
            UnicodeDecodeError, OverflowError, struct.error) as e:  # RuntimeError: a flipped "encrypted" flag
        detail = str(e) if isinstance(e, zipfile.BadZipFile) else f"{type(e).__name__}: {e}"
        if detail == "File is not a zip file":
            with open(path, "rb") as f:
                zip_start = f.read(4) == b"PK\x03\x04"
            raise fail("is truncated or damaged (an incomplete zip archive)" if zip_start else
                       "is not a zip archive, so not a frame checkpoint (or it is damaged)") from None
        raise fail(f"is damaged ({detail})") from None


def _is_int(x, minimum: int = 0) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= minimum


def _check_checkpoint(arrays: dict[str, np.ndarray], meta, fail: Callable[[str], Exception]) -> None:
    """Validate the metadata's structure and that the arrays are exactly the ones it implies."""
    if not isinstance(meta, dict):
        raise fail(f"has metadata of type {type(meta).__name__}, expected a JSON object")
    if meta.get("format") != CHECKPOINT_FORMAT:
        raise fail(f"has checkpoint format {meta.get('format')!r}, expected {CHECKPOINT_FORMAT!r}")
    missing = [k for k in ("step_count", "treedef", "n_params", "n_state", "optimizer", "metrics") if k not in meta]
    if missing:
        raise fail(f"has metadata without {', '.join(missing)}")
    for key, minimum in (("step_count", 0), ("n_params", 1), ("n_state", 0)):
        if not _is_int(meta[key], minimum):
            raise fail(f"has metadata {key}={meta[key]!r}, expected an int >= {minimum}")
    optimizer = meta["optimizer"]
    if not (isinstance(optimizer, dict) and isinstance(optimizer.get("type"), str)):
        raise fail(f"has malformed optimizer metadata {optimizer!r}")
    metrics = meta["metrics"]
    if not (isinstance(metrics, list) and all(isinstance(m, list) and len(m) == 2 and _is_int(m[0])
                                              and isinstance(m[1], dict) for m in metrics)):
        raise fail("has malformed metrics metadata (expected a list of [step, dict] pairs)")
    try:
        treedef = _decode_treedef(meta["treedef"], lambda name, fields, arity: name, fail)
    except RecursionError:
        raise fail("has a treedef nested too deeply") from None
    if treedef.num_leaves != meta["n_params"]:
        raise fail(f"has metadata n_params={meta['n_params']}, but its treedef has {treedef.num_leaves} leaves")
    expected = {f"param_{i}" for i in range(meta["n_params"])} | {f"state_{i}" for i in range(meta["n_state"])}
    expected.add("history")
    if set(arrays) != expected:
        missing, extra = sorted(expected - set(arrays)), sorted(set(arrays) - expected)
        raise fail("does not hold the arrays its metadata implies" + (f"; missing {missing}" if missing else "")
                   + (f"; unexpected {extra}" if extra else ""))
    for name, a in arrays.items():
        if name.startswith("param_") and a.dtype.name not in ("float32", "float64"):
            raise fail(f"has {name} of dtype {a.dtype.name}; parameters are float32 or float64")
        if name.startswith("state_") and a.dtype.kind != "f":
            raise fail(f"has optimiser state {name} of dtype {a.dtype.name}; optimiser state is float")
    history = arrays["history"]
    if history.ndim != 1 or history.dtype != np.float64:
        raise fail(f"has history of dtype {history.dtype.name} and shape {list(history.shape)}, "
                   "expected a 1-D float64 array")


def read_checkpoint(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict]:
    """The validated arrays and metadata of a checkpoint written by `write_checkpoint`.

    Any problem (missing, empty, truncated or damaged file, foreign content, metadata that does not
    fit the arrays) is one `CheckpointError` naming the file and what is wrong.
    """
    path = os.fspath(path)

    def fail(what: str) -> CheckpointError:
        return CheckpointError(f"cannot read checkpoint {path!r}: the file {what}")

    arrays = _read_members(path, fail)
    raw = arrays.pop("__meta__", None)
    if raw is None:
        raise fail("is not a frame checkpoint (it has no metadata)")
    if raw.dtype.kind != "U" or raw.ndim != 0:
        raise fail(f"has metadata of dtype {raw.dtype} and shape {list(raw.shape)}, expected one JSON string")
    try:
        meta = json.loads(str(raw[()]))
    except (ValueError, RecursionError) as e:
        raise fail(f"has unreadable metadata (not JSON: {e})") from None
    _check_checkpoint(arrays, meta, fail)
    return arrays, meta


# --------------------------------------------------------------------------------------------
# The training loop


class Trainer:
    """Train `params` (a pytree of float arrays) to minimise `loss_fn(params, *data)` with `optimizer`.

    `loss_fn` is written with `frame.numpy` and returns one scalar. The training graph is built
    with `build_backward_graph` and compiled once per data signature; the optimiser's update graph
    is compiled once. Attributes: `params` (current pytree), `history` (every loss, in step
    order; the loss of a step is evaluated before its update), `metrics` (list of `(step, dict)`
    from the `run` callback), `step_count` (updates done).

    Guards, each raising before the step's update so params keep their values from the step before:

    - data: a NaN/Inf in a data argument is an `InputError` naming the argument and the index
      (checked whenever new data arrays are passed, once for data passed again);
    - non-finite: a NaN/Inf loss, gradient or updated parameter is a `TrainingError`;
    - divergence: a loss above `L0 + divergence_factor * |L0|`, where L0 is the first loss in
      `history`, is a `TrainingError` naming the step and both losses. The default factor
      `DEFAULT_DIVERGENCE_FACTOR` (1e4) is far above any spike of a healthy run; `None` turns the
      guard off (as does L0 == 0).
    """

    def __init__(self, loss_fn: Callable, params, optimizer: Optimizer, *, progress: bool = True,
                 desc: str | None = None, divergence_factor: float | None = DEFAULT_DIVERGENCE_FACTOR):
        if not isinstance(optimizer, Optimizer):
            raise FrameError(f"Trainer: optimizer must be a frame.train optimiser (SGD, Adam), "
                             f"got {type(optimizer).__name__}")
        self.loss_fn, self.optimizer = loss_fn, optimizer
        self.progress, self.desc = progress, desc
        self.divergence_factor = check_divergence_factor(divergence_factor)
        self._checked_data: list = []  # the data leaves last checked for NaN/Inf (held, so ids are not reused)
        self._leaves, self._treedef = as_param_leaves(params)
        self._names = [f"parameter {p}" for p in leaf_paths(self._treedef)]
        self._types = [TensorType.of(a) for a in self._leaves]
        self._state = optimizer.init_state(self._leaves)
        self._loss_graph = LossGraph(loss_fn, self._treedef, self._types)
        self._update_exe = compile_graph(optimizer.update_graph(self._types))
        self._lr_dtype = self._types[0].dtype
        self.history: list[float] = []
        self.metrics: list[tuple[int, dict]] = []
        self.step_count = 0

    # -- parameters
    @property
    def params(self):
        """The current parameters, in the structure they were given."""
        return tree_unflatten(self._treedef, list(self._leaves))

    @params.setter
    def params(self, params):
        leaves, treedef = as_param_leaves(params)
        types = [TensorType.of(a) for a in leaves]
        if treedef != self._treedef or types != self._types:
            raise InputError(f"new params must match the trainer's structure {self._treedef} and types "
                             f"{[str(t) for t in self._types]}, got {treedef} and {[str(t) for t in types]}")
        self._leaves = leaves

    @property
    def opt_state(self) -> list[np.ndarray]:
        """The optimiser's flat state arrays (Adam: m..., v..., step)."""
        return list(self._state)

    @property
    def training_graph(self):
        """The most recently derived training graph `[params..., data...] -> [loss, grads...]`."""
        return self._loss_graph.graph

    # -- stepping
    def step(self, *data) -> float:
        """One update on `data`; returns the loss at the parameters before the update."""
        step_no = self.step_count + 1
        # The checks below report non-finite values precisely, so numpy's overflow warnings are only noise.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self._step(step_no, data)

    def _step(self, step_no: int, data: tuple) -> float:
        self._check_data(data)
        loss, grads = self._loss_graph.value_and_grad(self._leaves, data)
        value = scalar(loss)
        if not math.isfinite(value):
            raise self._error(step_no, f"the loss is {value}")
        self._check_divergence(step_no, value)
        bad = first_nonfinite(grads, [f"the gradient of {n}" for n in self._names])
        if bad:
            raise self._error(step_no, bad + f" (loss {value:.6g})")
        n = len(self._leaves)
        lr = self.optimizer.lr_input(self.step_count, self._lr_dtype)
        outs = self._update_exe(*self._leaves, *grads, *self._state, *lr)
        new_params, new_state = outs[:n], outs[n:]
        bad = first_nonfinite(new_params, [f"the updated {n}" for n in self._names])
        if bad:
            raise self._error(step_no, bad + " (the update overflowed; lower the learning rate)")
        # Rotate only after every check passed: a failed step leaves params and state untouched.
        self._leaves, self._state = new_params, new_state
        self.step_count = step_no
        self.history.append(value)
        return value

    def _check_data(self, data: tuple) -> None:
        leaves = tree_flatten(data)[0]
        if len(leaves) == len(self._checked_data) and all(a is b for a, b in zip(leaves, self._checked_data)):
            return  # the same arrays as last step (full-batch training): already checked
        check_finite_data(self.loss_fn, data)
        self._checked_data = leaves

    def _check_divergence(self, step_no: int, value: float) -> None:
        if self.divergence_factor is None or not self.history:
            return
        first = self.history[0]
        limit = first + self.divergence_factor * abs(first)
        if first != 0 and value > limit:
            raise self._error(step_no, f"the loss {value:.6g} exceeds the first loss {first:.6g} by more than "
                                       f"divergence_factor={self.divergence_factor:g} x |{first:.6g}| (limit "
                                       f"{limit:.6g}): training diverged; lower the learning rate, or pass "
                                       "divergence_factor=None to turn this guard off")

    def _error(self, step_no: int, what: str) -> TrainingError:
        err = TrainingError(f"step {step_no}: {what}; training stopped, params keep their values from "
                            f"after step {step_no - 1}")
        err.step = step_no
        return err

    def run(self, steps: int, *data, callback: Callable | None = None, every: int = 100,
            checkpoint: str | os.PathLike | None = None, checkpoint_every: int | None = None) -> list[float]:
        """Take `steps` steps on `data`; return this run's losses (also appended to `history`).

        `callback(step, params) -> dict | None` runs after every `every`-th step (counted by
        `step_count`); returned dicts are recorded in `metrics` as `(step, dict)` and shown in the
        progress bar. With `checkpoint`, the trainer saves there every `checkpoint_every` steps
        (if given) and at the end of the run.
        """
        if not isinstance(steps, (int, np.integer)) or steps < 0:
            raise FrameError(f"Trainer.run: steps must be a non-negative int, got {steps!r}")
        if every < 1 or (checkpoint_every is not None and checkpoint_every < 1):
            raise FrameError(f"Trainer.run: every and checkpoint_every must be >= 1, got {every}, {checkpoint_every}")
        from tqdm.auto import tqdm

        losses: list[float] = []
        postfix: dict[str, str] = {}
        saved_at = None
        with tqdm(total=steps, desc=self.desc, disable=not self.progress, leave=True) as bar:
            for _ in range(steps):
                loss = self.step(*data)
                losses.append(loss)
                if callback is not None and self.step_count % every == 0:
                    record = callback(self.step_count, self.params)
                    if record is not None:
                        record = dict(record)
                        self.metrics.append((self.step_count, record))
                        postfix.update({k: _short(v) for k, v in record.items()})
                if checkpoint is not None and checkpoint_every and self.step_count % checkpoint_every == 0:
                    self.save(checkpoint)
                    saved_at = self.step_count
                if not bar.disable:
                    postfix["loss"] = f"{loss:.4e}"
                    bar.set_postfix(postfix, refresh=False)
                    bar.update(1)
        if checkpoint is not None and saved_at != self.step_count:
            self.save(checkpoint)
        return losses

    # -- checkpoints
    def _checkpoint_payload(self) -> tuple[dict[str, np.ndarray], dict]:
        arrays = {f"param_{i}": a for i, a in enumerate(self._leaves)}
        arrays.update({f"state_{i}": a for i, a in enumerate(self._state)})
        arrays["history"] = np.asarray(self.history, dtype=np.float64)
        meta = {"format": CHECKPOINT_FORMAT, "step_count": self.step_count, "treedef": _encode_treedef(self._treedef),
                "n_params": len(self._leaves), "n_state": len(self._state), "optimizer": self.optimizer.config(),
                "metrics": [[s, m] for s, m in self.metrics]}
        return arrays, meta

    def save(self, path: str | os.PathLike) -> None:
        """Save params, optimiser state, step count, history and metrics to one file, atomically."""
        arrays, meta = self._checkpoint_payload()
        write_checkpoint(path, arrays, meta)

    def load(self, path: str | os.PathLike) -> "Trainer":
        """Load a checkpoint into this trainer (same parameter structure and types); returns self."""
        arrays, meta = read_checkpoint(path)
        return self._apply_checkpoint(arrays, meta, os.fspath(path))

    def _apply_checkpoint(self, arrays: dict, meta: dict, path: str) -> "Trainer":
        leaves = [arrays[f"param_{i}"] for i in range(meta["n_params"])]
        state = [arrays[f"state_{i}"] for i in range(meta["n_state"])]
        types = [TensorType.of(a) for a in leaves]
        # Compare structures with namedtuples by name, so loading never needs the stored classes.
        stored = _decode_treedef(meta["treedef"], lambda name, fields, arity: name, CheckpointError)
        if stored != _with_type_names(self._treedef) or types != self._types:
            raise CheckpointError(f"checkpoint {path!r} holds params of types {[str(t) for t in types]} (structure "
                                  f"{stored}), but this trainer has {self._treedef} {[str(t) for t in self._types]}")
        if [TensorType.of(a) for a in state] != [TensorType.of(a) for a in self._state]:
            raise CheckpointError(f"checkpoint {path!r} holds optimiser state for {meta['optimizer'].get('type')}, "
                                  f"which does not fit this trainer's {self.optimizer!r}")
        self._leaves, self._state = leaves, state
        self.step_count = int(meta["step_count"])
        self.history = [float(x) for x in arrays["history"]]
        self.metrics = [(int(s), dict(m)) for s, m in meta["metrics"]]
        return self

    @classmethod
    def restore(cls, path: str | os.PathLike, loss_fn: Callable, optimizer: Optimizer | None = None, *,
                allowed_types: Sequence[type] = (), progress: bool = True, desc: str | None = None,
                divergence_factor: float | None = DEFAULT_DIVERGENCE_FACTOR) -> "Trainer":
        """A new trainer continuing from a checkpoint; the optimiser is rebuilt from it unless given.

        The parameter structure is rebuilt from the file's plain containers (dict, list, tuple,
        None); a namedtuple in it is built only from a class in `allowed_types` with the same
        `module:qualname` (or, failing that, the same qualname) and the same fields. Nothing named
        in the file is imported or called: an unknown type name is a `CheckpointError`, as is any
        damaged or foreign file. A resumed run continues exactly (bit for bit) the trajectory of an
        uninterrupted one.
        """
        path = os.fspath(path)
        resolve = _namedtuple_resolver(allowed_types, path)
        arrays, meta = read_checkpoint(path)
        treedef = _decode_treedef(meta["treedef"], resolve, CheckpointError)  # validated by read_checkpoint
        params = tree_unflatten(treedef, [arrays[f"param_{i}"] for i in range(meta["n_params"])])
        optimizer = optimizer if optimizer is not None else optimizer_from_config(meta["optimizer"], path)
        trainer = cls(loss_fn, params, optimizer, progress=progress, desc=desc, divergence_factor=divergence_factor)
        return trainer._apply_checkpoint(arrays, meta, path)

    def __repr__(self):
        last = f", loss {self.history[-1]:.4e}" if self.history else ""
        return f"<Trainer {self.optimizer!r}: {len(self._leaves)} param arrays, step {self.step_count}{last}>"


def _short(v) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.4e}"
    return str(v)
