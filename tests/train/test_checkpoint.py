"""Checkpoints: resume reproduces the uninterrupted run bit for bit; a failed save never corrupts the old file."""
import os
from collections import namedtuple

import numpy as np
import pytest

import frame
import frame.numpy as fnp
import frame.train.trainer as trainer_module  # where Trainer looks write_checkpoint up
from frame.errors import CheckpointError, FrameError
from frame.train import SGD, Adam, Trainer

Dense = namedtuple("Dense", ["w", "b"])


def _data():
    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, size=(32, 3)).astype(np.float32)
    return x, np.cos(x.sum(axis=1, keepdims=True)).astype(np.float32)


def _init():
    rng = np.random.default_rng(12)
    return {"layers": [Dense(rng.normal(size=(3, 8)).astype(np.float32), np.zeros(8, np.float32)),
                       Dense((rng.normal(size=(8, 1)) / 3).astype(np.float32), np.zeros(1, np.float32))],
            "scale": {7: np.ones((), np.float32)}}  # an int dict key and a rank-0 leaf


def loss_fn(params, x, y):
    (l1, l2), scale = params["layers"], params["scale"][7]
    return fnp.mean((scale * (fnp.tanh(x @ l1.w + l1.b) @ l2.w + l2.b) - y) ** 2)


def _metrics(step, params):
    return {"scale": float(params["scale"][7]), "step": step}


def _assert_same(a: Trainer, b: Trainer):
    assert a.history == b.history and a.step_count == b.step_count and a.metrics == b.metrics
    for x, y in zip(frame.tree_leaves(a.params), frame.tree_leaves(b.params)):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)
    for x, y in zip(a.opt_state, b.opt_state):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("make_optimizer", [lambda: Adam(1e-2), lambda: Adam(lambda s: 1e-2 / (1 + 0.01 * s)),
                                            lambda: SGD(0.2)], ids=["adam", "adam-schedule", "sgd"])
def test_resume_equals_uninterrupted_run_bit_for_bit(tmp_path, make_optimizer):
    x, y = _data()
    full = Trainer(loss_fn, _init(), make_optimizer(), progress=False)
    full.run(60, x, y, callback=_metrics, every=10)

    first = Trainer(loss_fn, _init(), make_optimizer(), progress=False)
    path = tmp_path / "ckpt.npz"
    first.run(25, x, y, callback=_metrics, every=10, checkpoint=path)
    del first
    resumed = Trainer.restore(path, loss_fn, make_optimizer(), allowed_types=(Dense,), progress=False)
    assert resumed.step_count == 25
    resumed.run(35, x, y, callback=_metrics, every=10)
    _assert_same(resumed, full)
    assert isinstance(resumed.params["layers"][0], Dense) and 7 in resumed.params["scale"]


def test_restore_rebuilds_the_optimizer_and_load_into_existing_trainer(tmp_path):
    x, y = _data()
    trainer = Trainer(loss_fn, _init(), Adam(3e-3, b1=0.8, b2=0.95, eps=1e-6), progress=False)
    trainer.run(5, x, y)
    path = tmp_path / "a.ckpt"  # any file name works; the format is .npz content
    trainer.save(path)
    restored = Trainer.restore(path, loss_fn, allowed_types=[Dense], progress=False)
    assert restored.optimizer.config() == trainer.optimizer.config()
    _assert_same(restored, trainer)
    other = Trainer(loss_fn, _init(), Adam(3e-3, b1=0.8, b2=0.95, eps=1e-6), progress=False)
    assert other.load(path) is other
    _assert_same(other, trainer)


def test_checkpoint_every_saves_during_the_run(tmp_path):
    x, y = _data()
    path = tmp_path / "run.npz"
    saved_steps = []
    real_write = trainer_module.write_checkpoint

    def spy(p, arrays, meta):
        saved_steps.append(meta["step_count"])
        real_write(p, arrays, meta)

    trainer_module.write_checkpoint = spy
    try:
        Trainer(loss_fn, _init(), SGD(0.1), progress=False).run(25, x, y, checkpoint=path, checkpoint_every=10)
    finally:
        trainer_module.write_checkpoint = real_write
    assert saved_steps == [10, 20, 25]
    assert Trainer.restore(path, loss_fn, allowed_types=(Dense,), progress=False).step_count == 25


def test_a_save_killed_midway_leaves_the_old_checkpoint_loadable(tmp_path, monkeypatch):
    x, y = _data()
    trainer = Trainer(loss_fn, _init(), Adam(1e-2), progress=False)
    trainer.run(5, x, y)
    path = tmp_path / "ckpt.npz"
    trainer.save(path)
    old_bytes = path.read_bytes()
    trainer.run(5, x, y)

    def dying_savez(file, **arrays):
        file.write(b"PK\x03\x04 half a zip archive")  # some bytes reach the disk, then the writer dies
        raise KeyboardInterrupt("killed during save")

    monkeypatch.setattr(np, "savez", dying_savez)
    with pytest.raises(KeyboardInterrupt):
        trainer.save(path)
    monkeypatch.undo()
    assert path.read_bytes() == old_bytes
    assert os.listdir(tmp_path) == ["ckpt.npz"]  # the temp file was cleaned up
    restored = Trainer.restore(path, loss_fn, allowed_types=(Dense,), progress=False)
    assert restored.step_count == 5 and restored.history == trainer.history[:5]


def test_checkpoint_errors(tmp_path):
    x, y = _data()
    scheduled = Trainer(loss_fn, _init(), SGD(lambda s: 0.1), progress=False)
    scheduled.step(x, y)
    path = tmp_path / "s.npz"
    scheduled.save(path)
    with pytest.raises(CheckpointError, match="learning-rate schedule"):
        Trainer.restore(path, loss_fn, allowed_types=(Dense,))
    with pytest.raises(CheckpointError, match="does not fit"):
        Trainer(loss_fn, _init(), Adam(0.1), progress=False).load(path)  # SGD checkpoint, Adam trainer
    other = {"w": np.zeros((3, 1), np.float32)}
    with pytest.raises(CheckpointError, match="holds params"):
        Trainer(lambda p, x, y: fnp.mean((x @ p["w"] - y) ** 2), other, SGD(0.1), progress=False).load(path)
    not_a_checkpoint = tmp_path / "junk.npz"
    not_a_checkpoint.write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="cannot read checkpoint"):
        Trainer.restore(not_a_checkpoint, loss_fn)
    np.savez(tmp_path / "plain.npz", a=np.ones(2))
    with pytest.raises(CheckpointError, match="not a frame checkpoint"):
        Trainer.restore(tmp_path / "plain.npz", loss_fn)


def test_local_namedtuple_params_restore_when_allowed_or_load(tmp_path):
    Local = namedtuple("Local", ["w"])  # not importable by name from this module: it never needs to be

    def loss(p):
        return fnp.sum((p.w - 1.0) ** 2)

    trainer = Trainer(loss, Local(np.zeros(3)), SGD(0.1), progress=False)
    trainer.run(3)
    path = tmp_path / "local.npz"
    trainer.save(path)
    with pytest.raises(CheckpointError, match=r"Local.*allowed_types=\(Local,\)"):
        Trainer.restore(path, loss, progress=False)
    _assert_same(Trainer.restore(path, loss, allowed_types=(Local,), progress=False), trainer)
    fresh = Trainer(loss, Local(np.zeros(3)), SGD(0.1), progress=False).load(path)
    _assert_same(fresh, trainer)
    assert isinstance(fresh.params, Local)
