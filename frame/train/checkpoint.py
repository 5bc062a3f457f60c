"""Checkpoint files: one .npz holding arrays plus a JSON metadata string, replaced atomically.

A checkpoint is untrusted input: reading one parses the zip archive and the .npy headers here
(never numpy's pickle path), validates the metadata against the arrays, and rebuilds only the
containers frame writes (leaf, None, tuple, list, dict). A namedtuple or a registered pytree node
(`frame.tree_util.register_dataclass`, ...) is stored by name, a node's static data as plain JSON
values, and rebuilt only from classes the caller allows, by their registered function; nothing is ever
imported or called by name.
"""
from __future__ import annotations

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

from ..errors import CheckpointError, FrameError
from ..frontend.pytree import TreeDef, registered_node_type

__all__ = ["CHECKPOINT_FORMAT", "write_checkpoint", "read_checkpoint", "encode_treedef", "decode_treedef",
           "namedtuple_resolver", "with_type_names", "type_name"]

CHECKPOINT_FORMAT = "frame.train.checkpoint/1"

_TREE_KINDS = ("leaf", "none", "tuple", "list", "dict", "custom")


def type_name(cls: type) -> str:
    """The `module:qualname` under which a checkpoint records a namedtuple class."""
    return f"{cls.__module__}:{cls.__qualname__}"


def encode_treedef(td: TreeDef) -> dict:
    if td.kind in ("leaf", "none"):
        return {"kind": td.kind}
    node: dict[str, Any] = {"kind": td.kind, "children": [encode_treedef(c) for c in td.children]}
    if td.kind == "dict":
        if not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in td.meta):
            raise FrameError(f"checkpoint: parameter dict keys must be str or int, got {list(td.meta)}")
        node["keys"] = [[type(k).__name__, k] for k in td.meta]
    elif td.kind == "tuple" and td.meta is not None:  # a namedtuple: its name and fields, for matching on restore
        node["namedtuple"] = type_name(td.meta)
        node["fields"] = list(td.meta._fields)
    elif td.kind == "custom":   # a registered node: its class by name, its static data as plain values
        cls, aux = td.meta
        node["type"] = type_name(cls)
        node["aux"] = _encode_static(aux, node["type"])
    return node


def _encode_static(value, owner: str):
    """A node's static data as JSON: None, bool, int, float and str as themselves, tuples tagged."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        return {"tuple": [_encode_static(v, owner) for v in value]}
    raise FrameError(f"checkpoint: the pytree node {owner} has static data {value!r} of type {type(value).__name__}; "
                     "a checkpoint records only None, bool, int, float, str and tuples of them")


def _decode_static(value, fail):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict) and list(value) == ["tuple"] and isinstance(value["tuple"], list):
        return tuple(_decode_static(v, fail) for v in value["tuple"])
    raise fail(f"has malformed static data {value!r} in a treedef node")


def decode_treedef(node, resolve: Callable[[str, list | None, int], Any], fail: Callable[[str], Exception]) -> TreeDef:
    """Rebuild a TreeDef from its JSON form, validating it; `resolve(name, fields, arity)` supplies namedtuples."""
    if not isinstance(node, dict) or node.get("kind") not in _TREE_KINDS:
        kind = node.get("kind") if isinstance(node, dict) else node
        raise fail(f"has a treedef node of kind {kind!r}; frame writes only {', '.join(_TREE_KINDS)}")
    kind = node["kind"]
    if kind in ("leaf", "none"):
        return TreeDef(kind, None, ())
    if not isinstance(node.get("children"), list):
        raise fail(f"has a treedef {kind} node without a children list")
    children = tuple(decode_treedef(c, resolve, fail) for c in node["children"])
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
    elif kind == "custom":
        name = node.get("type")
        if not isinstance(name, str) or "aux" not in node:
            raise fail(f"has a malformed treedef node of a registered type {name!r}")
        meta = (resolve(name, None, len(children), custom=True), _decode_static(node["aux"], fail))
    return TreeDef(kind, meta, children)


def _namedtuple_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def namedtuple_resolver(allowed_types: Sequence[type], path: str) -> Callable[..., type]:
    """Match stored namedtuple and registered-node names against the caller's allow-list (by module:qualname,
    else by qualname)."""
    allowed = (allowed_types,) if isinstance(allowed_types, type) else tuple(allowed_types)
    for cls in allowed:
        if not (_namedtuple_class(cls) or registered_node_type(cls)):
            raise FrameError(f"Trainer.restore: allowed_types must be namedtuple classes or registered pytree node "
                             f"classes, got {cls!r}")

    def resolve(name: str, fields: list | None, arity: int, custom: bool = False) -> type:
        qualname = name.rpartition(":")[2]
        kind = registered_node_type if custom else _namedtuple_class
        candidates = [c for c in allowed if kind(c)]
        matches = ([c for c in candidates if type_name(c) == name]
                   or [c for c in candidates if c.__qualname__ == qualname])
        if len(matches) != 1:
            what = "pytree node" if custom else "namedtuple"
            raise CheckpointError(
                f"checkpoint {path!r} stores params containing the {what} type {name!r}, which restore does "
                f"not build unless you allow it: pass allowed_types=({qualname.split('.')[-1]},) with that class "
                "(or build a Trainer with such params and call .load(path))")
        cls = matches[0]
        if custom:
            return cls
        stored_fields = list(cls._fields) if fields is None else fields  # older checkpoints stored no fields
        if list(cls._fields) != stored_fields or len(cls._fields) != arity:
            raise CheckpointError(f"checkpoint {path!r} stores {name!r} with fields {fields} ({arity} children), but "
                                  f"the allowed class {type_name(cls)} has fields {list(cls._fields)}")
        return cls

    return resolve


def with_type_names(td: TreeDef) -> TreeDef:
    """`td` with each namedtuple or node class replaced by its `type_name` (how a checkpoint records it)."""
    meta = (type_name(td.meta) if td.kind == "tuple" and td.meta is not None else
            (type_name(td.meta[0]), td.meta[1]) if td.kind == "custom" else td.meta)
    return TreeDef(td.kind, meta, tuple(with_type_names(c) for c in td.children))


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
        treedef = decode_treedef(meta["treedef"], lambda name, fields, arity, custom=False: name, fail)
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
