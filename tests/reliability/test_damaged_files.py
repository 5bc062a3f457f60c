"""Damaged and crafted checkpoint files: loading either restores exactly what was saved or raises a
`CheckpointError` naming the file; it never imports a module, never suggests pickle and never
returns different numbers."""
from __future__ import annotations

import io
import json
import sys
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import frame
import frame.numpy as fnp
from frame.train import Adam, Trainer

from .checks import assert_clear_error, call, property_settings

SETTINGS = property_settings(80)


def _loss(params, x):
    return fnp.sum((x @ params["w"] + params["b"]) ** 2)


PARAMS = {"w": np.linspace(-1, 1, 6).reshape(3, 2), "b": np.array([0.5, -0.25])}
X = np.linspace(0, 1, 12).reshape(4, 3)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "model.ckpt"
    trainer = Trainer(_loss, PARAMS, Adam(1e-2), progress=False)
    trainer.run(3, X)
    trainer.save(path)
    Trainer.restore(path, _loss, progress=False)  # warm every lazy import before counting modules
    return path, path.read_bytes(), trainer


def _restore_and_check(path, original: Trainer, same_structure: bool = True):
    """Restore `path`: a CheckpointError naming it, or the saved arrays exactly. With
    `same_structure=False` (crafted metadata may legitimately rename keys) the parameter leaves
    must be the saved arrays, in whatever structure the metadata describes."""
    modules = set(sys.modules)
    kind, got = call(lambda: Trainer.restore(path, _loss, progress=False))
    new_modules = set(sys.modules) - modules
    assert not new_modules, f"loading {path} imported {sorted(new_modules)}"
    if kind == "error":
        assert isinstance(got, frame.CheckpointError), f"{type(got).__name__}: {got}"
        assert_clear_error(got, "restore", [str(path), path.name])
        return None
    if same_structure:
        for key in PARAMS:
            np.testing.assert_array_equal(got.params[key], original.params[key])
    else:
        def fingerprint(tree):
            return sorted((a.dtype.str, a.shape, a.tobytes()) for a in frame.tree_leaves(tree))
        assert fingerprint(got.params) == fingerprint(original.params), "restored leaves differ from the file's"
    return got


MUTATIONS = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1)),
    st.tuples(st.just("flip"), st.floats(0, 1), st.integers(0, 7)),
    st.tuples(st.just("overwrite"), st.floats(0, 1), st.binary(min_size=1, max_size=64)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.binary(min_size=1, max_size=64)),
    st.tuples(st.just("garbage"), st.binary(max_size=256)),
)


def _mutate(data: bytes, mutation) -> bytes:
    kind, *args = mutation
    if kind == "garbage":
        return args[0]
    at = int(args[0] * (len(data) - 1))
    if kind == "truncate":
        return data[:at]
    if kind == "flip":
        return data[:at] + bytes([data[at] ^ (1 << args[1])]) + data[at + 1:]
    if kind == "overwrite":
        return data[:at] + args[1] + data[at + len(args[1]):]
    return data[:at] + args[1] + data[at:]


@SETTINGS
@given(mutation=MUTATIONS)
def test_damaged_bytes_restore_exactly_or_raise(saved, tmp_path, mutation):
    path, data, original = saved
    damaged = tmp_path / "damaged.ckpt"
    damaged.write_bytes(_mutate(data, mutation))
    restored = _restore_and_check(damaged, original)
    # refused, or (a byte nothing reads was hit) exactly the saved training state
    assert restored is None or (restored.step_count, restored.history) == (original.step_count, original.history)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 10) | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=8)


def _edit(meta, path: tuple, value, delete: bool):
    """Replace (or delete) the item at `path` inside nested dicts/lists `meta`."""
    if not path:
        return value
    node = meta
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return meta


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


def _rewrite(data: bytes, edit_meta=None, edit_arrays=None) -> bytes:
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["__meta__"][()]))
    if edit_meta is not None:
        meta = edit_meta(meta)
    if edit_arrays is not None:
        arrays = edit_arrays(arrays)
    arrays["__meta__"] = np.array(json.dumps(meta))
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


@SETTINGS
@given(data=st.data())
def test_crafted_metadata_restores_consistently_or_raises(saved, tmp_path, data):
    path, raw, original = saved
    with np.load(io.BytesIO(raw), allow_pickle=False) as z:
        meta = json.loads(str(z["__meta__"][()]))
    target = data.draw(st.sampled_from(list(_paths(meta))), label="path")
    delete = bool(target) and data.draw(st.booleans(), label="delete")
    value = data.draw(JSON, label="value")
    crafted = tmp_path / "crafted.ckpt"
    crafted.write_bytes(_rewrite(raw, edit_meta=lambda m: _edit(m, target, value, delete)))
    _restore_and_check(crafted, original, same_structure=False)


@SETTINGS
@given(name=st.sampled_from(["param_0", "param_1", "state_0", "history"]),
       replacement=st.sampled_from(["drop", "wrong shape", "int", "object-free string", "complex"]))
def test_crafted_arrays_restore_exactly_or_raise(saved, tmp_path, name, replacement):
    path, raw, original = saved

    def edit(arrays):
        if replacement == "drop":
            arrays.pop(name)
        elif replacement == "wrong shape":
            arrays[name] = np.zeros((2, 7))
        elif replacement == "int":
            arrays[name] = arrays[name].astype(np.int64)
        elif replacement == "object-free string":
            arrays[name] = np.array(["x"])
        else:
            arrays[name] = arrays[name].astype(np.complex128)
        return arrays

    crafted = tmp_path / "crafted.ckpt"
    crafted.write_bytes(_rewrite(raw, edit_arrays=edit))
    kind, got = call(lambda: Trainer.restore(crafted, _loss, progress=False))
    assert kind == "error", f"{name} -> {replacement} was accepted"
    assert isinstance(got, frame.CheckpointError), f"{type(got).__name__}: {got}"
    assert_clear_error(got, "restore", [crafted.name])


def test_a_pickled_member_is_refused_without_suggesting_pickle(saved, tmp_path):
    path, raw, original = saved
    crafted = tmp_path / "pickled.ckpt"
    with zipfile.ZipFile(io.BytesIO(raw)) as src, zipfile.ZipFile(crafted, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, src.read(item.filename))
        buf = io.BytesIO()
        np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
        dst.writestr("extra.npy", buf.getvalue())
    kind, got = call(lambda: Trainer.restore(crafted, _loss, progress=False))
    assert kind == "error", "a checkpoint with a pickled member was accepted"
    assert isinstance(got, frame.CheckpointError), f"{type(got).__name__}: {got}"
    assert_clear_error(got, "restore", [crafted.name])
