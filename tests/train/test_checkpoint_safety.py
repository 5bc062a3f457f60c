"""Checkpoints are untrusted input (issue 12): restore never imports or runs anything named in the file,
every damaged or foreign file is one `CheckpointError` naming the file, and saves clean up after killed saves."""
import io
import json
import os
import stat
import subprocess
import sys
import zipfile
from collections import namedtuple

import numpy as np
import pytest

import frame.numpy as fnp
from frame.errors import CheckpointError, FrameError
from frame.train import SGD, Adam, Trainer

Pair = namedtuple("Pair", ["w", "b"])
MARKER = {}


def touch_marker(*args):
    """What a malicious checkpoint would have restore call: proof that it ran."""
    open(MARKER["path"], "w").close()


def loss_fn(params, x):
    return fnp.mean((x @ params["w"] + params["b"]) ** 2)


def _x():
    return np.linspace(-1, 1, 12).reshape(4, 3)


def _trainer(optimizer=None):
    params = {"w": np.full((3, 1), 0.5), "b": np.zeros(1)}
    return Trainer(loss_fn, params, optimizer or Adam(1e-2), progress=False)


@pytest.fixture
def saved(tmp_path):
    trainer = _trainer()
    trainer.run(3, _x())
    path = tmp_path / "ckpt.npz"
    trainer.save(path)
    return path


def _members(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def _rewrite(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)


def _npy(array, allow_pickle=False) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asanyarray(array), allow_pickle=allow_pickle)
    return buf.getvalue()


def _meta(path) -> dict:
    return json.loads(str(np.lib.format.read_array(io.BytesIO(_members(path)["__meta__.npy"]))[()]))


def _with_meta(path, meta):
    members = _members(path)
    members["__meta__.npy"] = _npy(np.array(meta if isinstance(meta, str) else json.dumps(meta)))
    _rewrite(path, members)


def _refusal(path, load_fails=True) -> str:
    """The CheckpointError message restoring `path` gives (it must name the path, never pickle)."""
    with pytest.raises(CheckpointError) as info:
        Trainer.restore(path, loss_fn, progress=False)
    message = str(info.value)
    assert str(path) in message and "pickle" not in message.lower()
    if load_fails:  # load() reads the same file (it ignores only the optimiser's configuration)
        with pytest.raises(CheckpointError):
            _trainer().load(path)
    return message


# -- nothing named in a file is imported or called ------------------------------------------------------


@pytest.mark.parametrize("target", ["subprocess:call", "os:system", f"{__name__}:touch_marker"])
def test_a_checkpoint_naming_a_callable_runs_nothing(tmp_path, saved, target):
    marker = MARKER["path"] = tmp_path / "pwned"
    meta = _meta(saved)
    # The params tree becomes one "namedtuple" whose single leaf is a shell command string array.
    meta["treedef"] = {"kind": "tuple", "namedtuple": target, "children": [{"kind": "leaf"}]}
    meta["n_params"] = 1
    members = _members(saved)
    del members["param_1.npy"]
    members["param_0.npy"] = _npy(np.array(f"touch {marker}"))
    _rewrite(saved, members)
    _with_meta(saved, meta)
    with pytest.raises(CheckpointError, match=str(saved)):
        Trainer.restore(saved, loss_fn, progress=False)
    # Even with a well-typed leaf, an un-allowed type name is refused by name, not imported.
    members["param_0.npy"] = _npy(np.zeros(3))
    _rewrite(saved, members)
    _with_meta(saved, meta)
    with pytest.raises(CheckpointError, match=rf"{target}.*allowed_types"):
        Trainer.restore(saved, loss_fn, progress=False)
    assert not marker.exists()


def test_namedtuple_params_restore_only_from_the_allow_list(tmp_path):
    def pair_loss(p, x):
        return fnp.mean((x @ p.w + p.b) ** 2)

    trainer = Trainer(pair_loss, Pair(np.ones((3, 1)), np.zeros(1)), SGD(0.1), progress=False)
    trainer.run(2, _x())
    path = tmp_path / "pair.npz"
    trainer.save(path)
    with pytest.raises(CheckpointError, match=r"Pair.*allowed_types=") as info:
        Trainer.restore(path, pair_loss, progress=False)
    assert str(path) in str(info.value)
    restored = Trainer.restore(path, pair_loss, allowed_types=(Pair,), progress=False)
    assert isinstance(restored.params, Pair) and restored.step_count == 2
    np.testing.assert_array_equal(restored.params.w, trainer.params.w)
    Other = namedtuple("Pair", ["a", "b", "c"])  # same name, other fields: not the stored type
    with pytest.raises(CheckpointError, match="fields"):
        Trainer.restore(path, pair_loss, allowed_types=(Other,), progress=False)
    with pytest.raises(FrameError, match="allowed_types"):
        Trainer.restore(path, pair_loss, allowed_types=(dict,), progress=False)


# -- damaged or foreign files ------------------------------------------------------------------------


def test_truncated_checkpoints(saved):
    data = saved.read_bytes()
    for size in (len(data) // 2, len(data) - 10, 30):
        saved.write_bytes(data[:size])
        assert "cannot read checkpoint" in _refusal(saved)


def test_bit_flipped_checkpoints(saved):
    """Every single-bit flip either is refused with a CheckpointError or (in fields nothing reads, such as
    a timestamp) loads exactly the saved state; nothing else escapes."""
    original = _trainer().load(saved)
    data = saved.read_bytes()
    refused = 0
    trainer = _trainer()  # a refused load leaves it untouched, so one trainer serves every flip
    for offset in range(len(data)):
        flipped = bytearray(data)
        flipped[offset] ^= 0x01
        saved.write_bytes(bytes(flipped))
        try:
            trainer.load(saved)
        except CheckpointError as e:
            assert str(saved) in str(e) and "pickle" not in str(e).lower()
            refused += 1
            continue
        assert trainer.history == original.history and trainer.step_count == original.step_count
        for a, b in zip(trainer.opt_state + list(trainer.params.values()),
                        original.opt_state + list(original.params.values())):
            np.testing.assert_array_equal(a, b)
    assert refused > len(data) // 2
    for offset in (40, len(data) // 2, len(data) - 30):  # restore takes the same path
        flipped = bytearray(data)
        flipped[offset] ^= 0x10
        saved.write_bytes(bytes(flipped))
        assert "cannot read checkpoint" in _refusal(saved)


def test_empty_and_garbage_files(saved):
    saved.write_bytes(b"")
    assert "empty" in _refusal(saved)
    saved.write_bytes(b"\x80\x04garbage that numpy would try to unpickle" * 10)
    assert "not a zip archive" in _refusal(saved)
    saved.write_bytes(b"\x93NUMPY this is not an archive")
    assert "not a zip archive" in _refusal(saved)


def test_missing_file_and_directory_paths(tmp_path):
    assert "does not exist" in _refusal(tmp_path / "nothing.npz")
    with pytest.raises(CheckpointError, match="directory"):
        Trainer.restore(tmp_path, loss_fn, progress=False)


def test_bad_and_missing_metadata(saved):
    good = _meta(saved)
    _with_meta(saved, "{not json")
    assert "metadata" in _refusal(saved)
    members = _members(saved)
    del members["__meta__.npy"]
    _rewrite(saved, members)
    assert "no metadata" in _refusal(saved)
    _with_meta(saved, good)
    _with_meta(saved, {**good, "optimizer": {"type": "Adam", "lr": "fast"}})
    assert "optimizer" in _refusal(saved, load_fails=False)
    for meta, match in [([1, 2], "metadata"),
                        ({k: v for k, v in good.items() if k != "treedef"}, "treedef"),
                        ({**good, "step_count": "3"}, "step_count"),
                        ({**good, "n_params": 5}, "n_params"),
                        ({**good, "treedef": {"kind": "exec"}}, "exec"),
                        ({**good, "treedef": {"kind": "dict", "children": [{"kind": "leaf"}]}}, "keys"),
                        ({**good, "metrics": {"a": 1}}, "metrics"),
                        ({**good, "optimizer": "Adam"}, "optimizer"),
                        ({**good, "format": "other/9"}, "format")]:
        _with_meta(saved, meta)
        assert match in _refusal(saved)


def test_arrays_that_do_not_fit_the_metadata(saved):
    original = _members(saved)
    cases = [
        ({k: v for k, v in original.items() if k != "param_1.npy"}, "param_1"),
        ({**original, "extra.npy": _npy(np.zeros(2))}, "extra"),
        ({**original, "param_0.npy": _npy(np.zeros(3, np.int64))}, "param_0"),
        ({**original, "history.npy": _npy(np.zeros((2, 2)))}, "history"),
        ({**original, "param_0.npy": _npy(np.array([{"a": 1}], dtype=object), allow_pickle=True)}, "object"),
    ]
    for members, match in cases:
        _rewrite(saved, members)
        assert match in _refusal(saved)


# -- saving ------------------------------------------------------------------------------------------


def test_saving_into_a_missing_directory_names_the_users_path(tmp_path):
    path = tmp_path / "no" / "such" / "ckpt.npz"
    with pytest.raises(CheckpointError) as info:
        _trainer().save(path)
    message = str(info.value)
    assert str(path) in message and ".tmp" not in message


def test_a_save_removes_temp_files_that_killed_saves_left(tmp_path):
    path = tmp_path / "ckpt.npz"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    stale = [".ckpt.npz.k2j_9xq1.tmp", f".ckpt.npz.{dead_pid}-0a1b2c3d.tmp"]  # old-style and dead-pid temps
    kept = [f".ckpt.npz.{os.getpid()}-0a1b2c3d.tmp",  # a live process may still be writing it
            ".other.npz.k2j_9xq1.tmp", ".ckpt.npz.v2.k2j_9xq1.tmp", "ckpt.npz.k2j_9xq1.tmp", ".ckpt.npz.tmp.bak"]
    for name in stale + kept:
        (tmp_path / name).write_bytes(b"x" * 1000)
    _trainer().save(path)
    assert sorted(os.listdir(tmp_path)) == sorted(["ckpt.npz", *kept])
    assert Trainer.restore(path, loss_fn, progress=False).step_count == 0


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_checkpoint_permissions_follow_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        path = tmp_path / "ckpt.npz"
        _trainer().save(path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~umask
