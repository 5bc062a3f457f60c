"""User-registered pytree nodes (frame.tree_util, as jax.tree_util): flattening, key paths and every
transform, optimiser and checkpoint that takes pytrees; jax.tree_util as the oracle for structure."""
from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import CheckpointError, FrameError, InputError, TraceError
from frame.train import SGD, Adam, Trainer
from frame.tree_util import (DictKey, GetAttrKey, Partial, SequenceKey, keystr, register_dataclass,
                             register_pytree_node, register_pytree_node_class, register_pytree_with_keys,
                             register_static, tree_all, tree_flatten, tree_flatten_with_path, tree_leaves,
                             tree_map, tree_map_with_path, tree_reduce, tree_structure, tree_transpose,
                             tree_unflatten)


@register_dataclass
@dataclasses.dataclass
class Dense:
    w: Any
    b: Any
    activation: str = dataclasses.field(default="tanh", metadata=dict(static=True))


class Pair:
    """Registered by explicit functions; static data is the label."""

    def __init__(self, first, second, label="pair"):
        self.first, self.second, self.label = first, second, label


register_pytree_node(Pair, lambda p: ((p.first, p.second), p.label), lambda label, ch: Pair(*ch, label))


@register_pytree_node_class
class Scaled:
    def __init__(self, value, scale: float):
        self.value, self.scale = value, scale

    def tree_flatten(self):
        return (self.value,), self.scale

    @classmethod
    def tree_unflatten(cls, scale, children):
        return cls(children[0], scale)


class Named:
    def __init__(self, a, b):
        self.a, self.b = a, b


register_pytree_with_keys(Named, lambda n: (((GetAttrKey("a"), n.a), (GetAttrKey("b"), n.b)), None),
                          lambda _, ch: Named(*ch))


@register_static
@dataclasses.dataclass(frozen=True)
class Config:
    depth: int


def _rng(seed=0):
    return np.random.default_rng(seed)


def _dense(rng, n_in=3, n_out=2, activation="tanh"):
    return Dense(rng.normal(size=(n_in, n_out)), rng.normal(size=n_out), activation)


def _apply(layer: Dense, x):
    h = x @ layer.w + layer.b
    return fnp.tanh(h) if layer.activation == "tanh" else fnp.sin(h)


def _loss(layers, x):
    for layer in layers:
        x = _apply(layer, x)
    return fnp.sum(x ** 2)


def _dict_loss(params, x, activations):   # the same network on plain dicts: the reference for gradients
    for p, act in zip(params, activations):
        h = x @ p["w"] + p["b"]
        x = fnp.tanh(h) if act == "tanh" else fnp.sin(h)
    return fnp.sum(x ** 2)


# -- structure ----------------------------------------------------------------------------------------

def test_registered_nodes_flatten_and_rebuild():
    rng = _rng()
    tree = {"dense": _dense(rng), "pair": Pair(1.0, [2.0, 3.0], "p"), "scaled": Scaled(4.0, 0.5),
            "named": Named(5.0, (6.0,)), "config": Config(3), "none": None}
    leaves, td = tree_flatten(tree)
    assert td.num_leaves == len(leaves) == 8
    assert leaves[2:] == [5.0, 6.0, 1.0, 2.0, 3.0, 4.0]    # sorted dict keys, children in registered order
    back = tree_unflatten(td, leaves)
    assert isinstance(back["dense"], Dense) and back["dense"].activation == "tanh"
    assert back["pair"].label == "p" and back["pair"].second == [2.0, 3.0]
    assert back["scaled"].scale == 0.5 and back["config"] == Config(3) and back["none"] is None
    assert td == tree_structure(tree_map(lambda v: v, tree)) and hash(td) == hash(tree_structure(back))
    # static data is structure: another activation or label is another tree
    other = dict(tree, dense=_dense(rng, activation="sin"))
    assert tree_structure(other) != td
    assert td.unflatten(leaves)["named"].b == (6.0,)


def test_key_paths_name_fields():
    rng = _rng()
    tree = {"layers": [_dense(rng)], "named": Named(1.0, 2.0), "pair": Pair(3.0, 4.0)}
    paths = [keystr(p) for p, _ in tree_flatten_with_path(tree)[0]]
    assert paths == ["['layers'][0].w", "['layers'][0].b", "['named'].a", "['named'].b",
                     "['pair'][<flat index 0>]", "['pair'][<flat index 1>]"]
    path0 = tree_flatten_with_path(tree)[0][0][0]
    assert path0 == (DictKey("layers"), SequenceKey(0), GetAttrKey("w"))
    assert keystr(path0, simple=True, separator="/") == "layers/0/w"
    doubled = tree_map_with_path(lambda p, v: (keystr(p), 2 * v), {"a": Named(1.0, 2.0)})
    assert doubled["a"].a == ("['a'].a", 2.0) and doubled["a"].b == ("['a'].b", 4.0)


def test_tree_map_takes_prefix_trees_and_refuses_mismatches():
    a = {"x": Pair(1.0, 2.0), "y": [3.0, 4.0]}
    b = {"x": Pair(10.0, 20.0), "y": [30.0, 40.0]}
    assert tree_leaves(tree_map(lambda u, v: u + v, a, b)) == [11.0, 22.0, 33.0, 44.0]
    # a prefix: each leaf of the first tree meets a whole subtree of the second
    counts = tree_map(lambda u, sub: len(tree_leaves(sub)), {"x": 0, "y": 0}, a)
    assert counts == {"x": 2, "y": 2}
    with pytest.raises(InputError, match=r"mismatch at \['y'\]"):
        tree_map(lambda u, v: u, a, {"x": Pair(1.0, 2.0), "y": (3.0, 4.0)})
    with pytest.raises(InputError, match=r"mismatch at \['x'\]"):
        tree_map(lambda u, v: u, a, {"x": Pair(1.0, 2.0, "other"), "y": [3.0, 4.0]})
    with pytest.raises(InputError, match="has 4 leaves, got 3"):
        tree_unflatten(tree_structure(a), [1, 2, 3])


def test_reduce_all_and_transpose():
    tree = [Pair(1.0, 2.0), {"k": 3.0}]
    assert tree_reduce(lambda u, v: u + v, tree) == 6.0 and tree_reduce(max, tree, 10.0) == 10.0
    assert tree_all([True, Pair(True, 1)]) and not tree_all([True, Pair(True, 0)])
    outer, inner = tree_structure([0, 0, 0]), tree_structure(Pair(0, 0))
    swapped = tree_transpose(outer, inner, [Pair(1, 2), Pair(3, 4), Pair(5, 6)])
    assert isinstance(swapped, Pair) and swapped.first == [1, 3, 5] and swapped.second == [2, 4, 6]
    assert frame.tree.map(lambda v: v + 1, [1, (2,)]) == [2, (3,)] and frame.tree.leaves(Pair(1, 2)) == [1, 2]


def test_is_leaf_stops_the_walk():
    tree = {"a": Pair(1.0, 2.0), "b": [3.0]}
    leaves, td = tree_flatten(tree, is_leaf=lambda n: isinstance(n, Pair))
    assert len(leaves) == 2 and isinstance(leaves[0], Pair)
    assert tree_unflatten(td, leaves)["a"] is leaves[0]


def test_structure_agrees_with_jax_tree_util():
    jtu = pytest.importorskip("jax.tree_util")

    @dataclasses.dataclass
    class Twin:
        w: Any
        b: Any
        activation: str = dataclasses.field(default="tanh", metadata=dict(static=True))

    jtu.register_dataclass(Twin)
    rng = _rng()
    layer = _dense(rng)
    ours = {"z": [layer, None, (1.0, {"q": 2.0, "a": 3.0})], "a": Scaled(4.0, 0.5)}
    theirs = {"z": [Twin(layer.w, layer.b), None, (1.0, {"q": 2.0, "a": 3.0})], "a": [4.0]}
    ours_paths = [keystr(p) for p, _ in tree_flatten_with_path(ours)[0]]
    theirs_paths = [jtu.keystr(p) for p, _ in jtu.tree_flatten_with_path(theirs)[0]]
    assert ours_paths[1:] == theirs_paths[1:] == ["['z'][0].w", "['z'][0].b", "['z'][2][0]", "['z'][2][1]['a']",
                                                  "['z'][2][1]['q']"]
    assert ours_paths[0] == "['a'][<flat index 0>]"     # a node registered without keys, as JAX prints it
    for x, y in zip(tree_leaves(ours), jtu.tree_leaves(theirs)):
        np.testing.assert_array_equal(x, y)


# -- transforms -----------------------------------------------------------------------------------------

def test_grad_returns_the_registered_class_and_equals_the_dict_form():
    rng = _rng(1)
    layers = [_dense(rng, 3, 4), _dense(rng, 4, 2, "sin")]
    x = rng.normal(size=(5, 3))
    grads = frame.grad(_loss)(layers, x)
    assert [type(g) for g in grads] == [Dense, Dense] and grads[1].activation == "sin"
    plain, activations = [{"w": l.w, "b": l.b} for l in layers], [l.activation for l in layers]
    ref = frame.grad(lambda p, x: _dict_loss(p, x, activations))(plain, x)
    for g, r in zip(grads, ref):
        np.testing.assert_allclose(g.w, r["w"], rtol=1e-13)
        np.testing.assert_allclose(g.b, r["b"], rtol=1e-13)
    value, grads2 = frame.value_and_grad(_loss)(layers, x)
    np.testing.assert_allclose(value, _dict_loss(plain, x, activations), rtol=1e-14)
    np.testing.assert_array_equal(grads2[0].w, grads[0].w)


def test_static_fields_key_the_compilation_cache():
    traces = []

    @frame.function
    def f(layer, x):
        traces.append(layer.activation)
        return fnp.sum(_apply(layer, x))

    rng, x = _rng(2), np.ones((2, 3))
    layer = _dense(rng)
    f(layer, x)
    f(Dense(layer.w + 1, layer.b, "tanh"), x)   # new values, same structure: no retrace
    y = f(Dense(layer.w, layer.b, "sin"), x)    # other static data: a new trace
    assert traces == ["tanh", "sin"]
    np.testing.assert_allclose(y, np.sum(np.sin(x @ layer.w + layer.b)), rtol=1e-14)


def test_unhashable_static_data_is_named():
    @frame.function
    def f(p, x):
        return p.first * x

    with pytest.raises(TraceError, match="Pair.*not hashable"):
        f(Pair(np.ones(2), np.ones(2), ["a", "list"]), np.ones(2))


def test_vmap_in_axes_as_a_registered_prefix():
    rng = _rng(3)
    batch = Dense(rng.normal(size=(3, 2)), rng.normal(size=(6, 2)))    # six biases, one weight
    x = rng.normal(size=(4, 3))
    out = frame.vmap(lambda layer, x: fnp.sum(_apply(layer, x)), in_axes=(Dense(None, 0), None))(batch, x)
    want = [np.sum(np.tanh(x @ batch.w + b)) for b in batch.b]
    np.testing.assert_allclose(out, want, rtol=1e-13)
    with pytest.raises(TraceError, match="does not match the structure of argument 0"):
        frame.vmap(lambda layer, x: fnp.sum(_apply(layer, x)), in_axes=(Pair(None, 0), None))(batch, x)


def test_jvp_and_scan_carry_registered_nodes():
    rng = _rng(4)
    layer, x = _dense(rng), rng.normal(size=(2, 3))
    tangent = Dense(rng.normal(size=layer.w.shape), rng.normal(size=layer.b.shape))
    _, dy = frame.jvp(lambda l: _loss([l], x), (layer,), (tangent,))
    g = frame.grad(lambda l: _loss([l], x))(layer)
    np.testing.assert_allclose(dy, np.sum(g.w * tangent.w) + np.sum(g.b * tangent.b), rtol=1e-12)

    def step(carry, xs):
        return Scaled(carry.value * carry.scale + xs, carry.scale), fnp.sum(carry.value)

    final, ys = frame.scan(step, Scaled(np.ones(3), 0.5), np.arange(12.0).reshape(4, 3))
    ref = np.ones(3)
    for row in np.arange(12.0).reshape(4, 3):
        ref = ref * 0.5 + row
    assert isinstance(final, Scaled) and final.scale == 0.5
    np.testing.assert_allclose(final.value, ref)
    assert ys.shape == (4,)


def test_custom_vjp_cotangents_as_registered_nodes():
    @frame.custom_vjp
    def f(p, x):
        return p.first * fnp.sin(x) + p.second

    def fwd(p, x):
        return f(p, x), (p, x)

    def bwd(res, ct):
        p, x = res
        return Pair(ct * fnp.sin(x), ct, p.label), ct * p.first * fnp.cos(x)

    f.defvjp(fwd, bwd)
    p, x = Pair(np.array([2.0, 3.0]), np.array([0.5, -1.0]), "p"), np.array([0.3, 0.7])
    gp, gx = frame.grad(lambda p, x: fnp.sum(f(p, x)), argnums=(0, 1))(p, x)
    assert isinstance(gp, Pair) and gp.label == "p"
    np.testing.assert_allclose(gp.first, np.sin(x))
    np.testing.assert_allclose(gx, p.first * np.cos(x))


def test_partial_passes_a_bound_function_into_compiled_code():
    @frame.function
    def apply(fn, x):
        return fn(x)

    scale = Partial(lambda a, x: a * x, np.array([2.0, 3.0]))
    np.testing.assert_array_equal(apply(scale, np.ones(2)), [2.0, 3.0])
    np.testing.assert_array_equal(apply(Partial(scale, ), np.full(2, 2.0)), [4.0, 6.0])
    assert tree_leaves(scale)[0].tolist() == [2.0, 3.0]


# -- optimisers and checkpoints -----------------------------------------------------------------------

def _fit_loss(params, x):
    return fnp.mean((_apply(params["layer"], x) - 0.3) ** 2)


def test_trainer_and_lbfgs_take_registered_params_and_checkpoints_restore_them(tmp_path):
    rng = _rng(5)
    x = rng.normal(size=(8, 3))
    trainer = Trainer(_fit_loss, {"layer": _dense(rng)}, Adam(1e-2), progress=False)
    trainer.run(5, x)
    path = tmp_path / "dense.npz"
    trainer.save(path)
    with pytest.raises(CheckpointError, match=r"pytree node type .*Dense.*allowed_types="):
        Trainer.restore(path, _fit_loss, progress=False)
    restored = Trainer.restore(path, _fit_loss, allowed_types=(Dense,), progress=False)
    assert isinstance(restored.params["layer"], Dense) and restored.params["layer"].activation == "tanh"
    trainer.run(3, x)
    restored.run(3, x)
    np.testing.assert_array_equal(restored.params["layer"].w, trainer.params["layer"].w)   # resumes bit for bit
    fresh = Trainer(_fit_loss, {"layer": _dense(rng)}, Adam(1e-2), progress=False).load(path)
    assert fresh.step_count == 5
    with pytest.raises(CheckpointError, match="structure"):
        Trainer(_fit_loss, {"layer": _dense(rng, activation="sin")}, Adam(1e-2), progress=False).load(path)

    result = frame.train.lbfgs(_fit_loss, {"layer": _dense(rng)}, x, maxiter=20, progress=False)
    assert isinstance(result.params["layer"], Dense) and result.loss < _fit_loss({"layer": _dense(_rng(5))}, x)


def test_checkpoints_refuse_static_data_they_cannot_record(tmp_path):
    trainer = Trainer(lambda p, x: fnp.sum(p.value * x), Scaled(np.ones(2), np.float32(0.5)), SGD(0.1),
                      progress=False)
    with pytest.raises(FrameError, match="Scaled has static data"):
        trainer.save(tmp_path / "scaled.npz")
    assert not (tmp_path / "scaled.npz").exists()


def test_restore_builds_a_node_only_through_its_registered_function(tmp_path):
    calls = []

    @register_dataclass
    @dataclasses.dataclass
    class Logged:
        w: Any

        def __post_init__(self):
            calls.append("built")

    def loss(p, x):
        return fnp.sum(p.w * x)

    trainer = Trainer(loss, Logged(np.ones(2)), SGD(0.1), progress=False)
    trainer.run(1, np.ones(2))
    trainer.save(tmp_path / "logged.npz")
    calls.clear()
    restored = Trainer.restore(tmp_path / "logged.npz", loss, allowed_types=(Logged,), progress=False)
    assert isinstance(restored.params, Logged) and calls and set(calls) == {"built"}   # the constructor rebuilt it

    @register_dataclass
    @dataclasses.dataclass
    class Wider:   # the stored name, other fields: the stored children do not fit its constructor
        w: Any
        v: Any

    Wider.__qualname__, Wider.__module__ = Logged.__qualname__, "elsewhere"
    with pytest.raises(CheckpointError, match="does not rebuild"):
        Trainer.restore(tmp_path / "logged.npz", loss, allowed_types=(Wider,), progress=False)


# -- registration errors --------------------------------------------------------------------------------

def test_registration_errors_are_named():
    with pytest.raises(InputError, match="already a pytree node"):
        register_pytree_node(Pair, lambda p: ((), None), lambda a, c: None)
    with pytest.raises(InputError, match="already a pytree node"):
        register_pytree_node(dict, lambda p: ((), None), lambda a, c: None)

    @dataclasses.dataclass
    class Partly:
        a: Any
        b: Any

    with pytest.raises(InputError, match=r"missing \['b'\]"):
        register_dataclass(Partly, data_fields=["a"], meta_fields=[])
    with pytest.raises(InputError, match="must be a dataclass"):
        register_dataclass(type("Plain", (), {}))
    with pytest.raises(InputError, match="expected a class"):
        register_pytree_node(functools.partial(print), lambda p: ((), None), lambda a, c: None)


def test_an_unregistered_class_is_a_leaf_and_the_error_says_how_to_register_it():
    @dataclasses.dataclass
    class Loose:
        w: Any

    assert tree_leaves(Loose(1.0))[0] == Loose(1.0)
    with pytest.raises(TraceError, match="cannot trace an argument of type Loose.*register_dataclass"):
        frame.function(lambda p: p.w)(Loose(np.ones(2)))
