"""frame.optax: optimisers, transformations and schedules against optax (params and states after several
steps, float64, 1e-12) and against numpy transcriptions of the formulas written here (so the capability stays
tested without optax); a whole train step compiled with frame.function equals the eager one; derivatives
through optimiser steps agree with JAX's."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
import frame.optax as foptax
from frame.errors import InputError

RTOL, ATOL = 1e-12, 1e-14
STEPS = 6


def _params():
    rng = np.random.default_rng(0)
    return {"w": rng.normal(size=(3, 4)), "b": rng.normal(size=4), "out": {"v": rng.normal(size=(4,))}}


def _grads(params, t):
    """Gradient-like updates that depend on the params and the step (a quadratic's plus a drift)."""
    return {k: _grads(v, t) if isinstance(v, dict)
            else 0.7 * v + np.sin(np.arange(np.size(v)) + t).reshape(np.shape(v)) for k, v in params.items()}


def _run(opt, params, steps=STEPS):
    state = opt.init(params)
    for t in range(steps):
        updates, state = opt.update(_grads(params, t), state, params)
        params = foptax.apply_updates(params, updates)
    return params, state


def assert_trees_close(actual, expected, rtol=RTOL, atol=ATOL):
    a, e = frame.tree_leaves(actual), frame.tree_leaves(expected)
    assert len(a) == len(e), (len(a), len(e))
    for x, y in zip(a, e):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype, (x.dtype, x.shape, y.dtype, y.shape)
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)


def assert_state_matches_optax(state, ostate):
    import jax
    theirs = [np.asarray(jax.random.key_data(x) if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key) else x)
              for x in jax.tree.leaves(ostate)]
    ours = [np.asarray(x) for x in frame.tree_leaves(state)]
    assert len(ours) == len(theirs), (len(ours), len(theirs))
    for x, y in zip(ours, theirs):
        assert x.shape == y.shape, (x.shape, y.shape)
        if y.dtype.kind in "iu":   # counts (int32 both) and keys (frame's int64 words, JAX's uint32)
            assert x.dtype == np.int32 or y.dtype == np.uint32, (x.dtype, y.dtype)
            np.testing.assert_array_equal(x, y)
        else:
            assert x.dtype == y.dtype, (x.dtype, y.dtype)
            np.testing.assert_allclose(x, y, rtol=RTOL, atol=ATOL)


SCHEDULE_NAMES = {"constant_schedule", "linear_schedule", "polynomial_schedule", "cosine_decay_schedule",
                  "exponential_decay", "piecewise_constant_schedule", "warmup_cosine_decay_schedule",
                  "warmup_exponential_decay_schedule", "join_schedules"}


def _int64_counts(schedule):
    """optax's schedule with the count as int64: JAX divides an int32 count in float32 even under x64 (numpy and
    frame in float64), so an int32 count would make the oracle's learning rate float32-rounded."""
    import jax.numpy as jnp
    return lambda count: schedule(jnp.asarray(count).astype(jnp.int64))


# -- against optax: the same call on both libraries; a (name, args, kwargs) triple inside names a schedule

def _cos():
    return ("cosine_decay_schedule", (0.05, 4), {})


CASES = [
    ("sgd", (0.1,), {}),
    ("sgd", (0.1,), {"momentum": 0.9}),
    ("sgd", (0.1,), {"momentum": 0.9, "nesterov": True}),
    ("sgd", (_cos(),), {"momentum": 0.5}),
    ("adam", (0.05,), {}),
    ("adam", (_cos(),), {"eps_root": 1e-8}),
    ("adam", (0.05,), {"nesterov": True}),
    ("nadam", (0.05,), {}),
    ("adamw", (0.05,), {"weight_decay": 0.1}),
    ("adamw", (0.05,), {"weight_decay": 0.1, "mask": {"w": True, "b": False, "out": True}}),
    ("adamw", (0.05,), {"weight_decay": ("linear_schedule", (0.1, 0.0, 4), {}), "mask": "callable"}),
    ("nadamw", (0.05,), {"weight_decay": 0.1}),
    ("adamax", (0.05,), {}),
    ("amsgrad", (0.05,), {}),
    ("amsgrad", (0.05,), {"bias_correction_mu": False, "bias_correction_nu": False}),
    ("adagrad", (0.1,), {}),
    ("rmsprop", (0.01,), {}),
    ("rmsprop", (0.01,), {"centered": True, "momentum": 0.9}),
    ("rmsprop", (0.01,), {"momentum": 0.9, "nesterov": True, "eps_in_sqrt": False, "bias_correction": True,
                          "initial_scale": 0.1}),
    ("rmsprop", (0.01,), {"centered": True, "bias_correction": True, "initial_scale": 0.5}),  # (1)
    ("adabelief", (0.05,), {}),
    ("adabelief", (0.05,), {"nesterov": True}),
    ("lion", (0.01,), {}),
    ("lion", (0.01,), {"weight_decay": 0.0}),
    ("lamb", (0.05,), {}),
    ("lamb", (0.05,), {"weight_decay": 0.1}),
    ("chain", (("clip_by_global_norm", (1.0,), {}), ("clip", (0.3,), {}), ("scale_by_adam", (), {}),
               ("add_decayed_weights", (0.01,), {}), ("scale", (-0.1,), {})), {}),
    ("chain", (("trace", (0.9,), {}), ("scale_by_schedule", (("exponential_decay", (0.1, 2, 0.5), {}),), {})), {}),
    ("chain", (("scale_by_trust_ratio", (), {}), ("scale_by_learning_rate", (0.1,), {"flip_sign": False})), {}),
    ("chain", (("masked", (("scale_by_lion", (), {"mode": "smooth", "smooth_beta": 2.0}), "callable"), {}),
               ("scale_by_lion", (), {"mode": "refined"}), ("set_to_zero", (), {}), ("identity", (), {})), {}),
    ("multi_transform", ({"a": ("adam", (0.05,), {}), "s": ("sgd", (0.1, 0.9), {})}, {"w": "a", "b": "s", "out": "a"}),
     {}),
]
# (1) without initial_scale, step 1's centered variance is g^2 - g^2 = 0 up to rounding, amplified 1e4-fold by
# 1/sqrt(eps): any two correct implementations then differ in the 9th digit.


def _build(lib, spec):
    if isinstance(spec, tuple) and len(spec) == 3 and isinstance(spec[0], str) and hasattr(lib, spec[0]):
        name, args, kwargs = spec
        made = getattr(lib, name)(*[_build(lib, a) for a in args], **{k: _build(lib, v) for k, v in kwargs.items()})
        return _int64_counts(made) if lib is not foptax and name in SCHEDULE_NAMES else made
    if isinstance(spec, dict):
        return {k: _build(lib, v) for k, v in spec.items()}
    if spec == "callable":
        return lambda p: {k: k != "b" for k in p}
    return spec


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(CASES)])
def test_matches_optax(case, jax_x64):
    optax = pytest.importorskip("optax")
    import jax
    params = _params()
    ours, state = _run(_build(foptax, case), params)
    opt = _build(optax, case)
    theirs = jax.tree.map(jax.numpy.asarray, params)
    ostate = opt.init(theirs)
    for t in range(STEPS):
        grads = jax.tree.map(jax.numpy.asarray, _grads(jax.tree.map(np.asarray, theirs), t))
        updates, ostate = jax.jit(opt.update)(grads, ostate, theirs)
        theirs = optax.apply_updates(theirs, updates)
    assert_trees_close(ours, jax.tree.map(np.asarray, theirs))
    assert_state_matches_optax(state, ostate)


def test_noisy_sgd_and_inject_hyperparams_match_optax(jax_x64):
    optax = pytest.importorskip("optax")
    import jax
    cases = [(foptax.noisy_sgd(0.1, eta=0.3, key=frame.random.PRNGKey(7)),
              optax.noisy_sgd(0.1, eta=0.3, key=jax.random.key(7))),
             (foptax.inject_hyperparams(foptax.adam)(foptax.linear_schedule(0.1, 0.01, 4), b1=0.8),
              optax.inject_hyperparams(optax.adam)(_int64_counts(optax.linear_schedule(0.1, 0.01, 4)), b1=0.8)),
             (foptax.inject_hyperparams(foptax.sgd, static_args="nesterov")(0.1, 0.9, True),
              optax.inject_hyperparams(optax.sgd, static_args="nesterov")(0.1, 0.9, True))]
    for ours_opt, their_opt in cases:
        params = _params()
        ours, state = _run(ours_opt, params)
        theirs = jax.tree.map(jax.numpy.asarray, params)
        ostate = their_opt.init(theirs)
        for t in range(STEPS):
            grads = jax.tree.map(jax.numpy.asarray, _grads(jax.tree.map(np.asarray, theirs), t))
            updates, ostate = their_opt.update(grads, ostate, theirs)
            theirs = optax.apply_updates(theirs, updates)
        assert_trees_close(ours, jax.tree.map(np.asarray, theirs))
        assert_state_matches_optax(state, ostate)


SCHEDULES = [
    ("constant_schedule", (0.3,), {}),
    ("linear_schedule", (1.0, 0.1, 7), {}),
    ("linear_schedule", (1.0, 0.1, 7, 3), {}),
    ("polynomial_schedule", (1.0, 0.1, 2.5, 9, 2), {}),
    ("polynomial_schedule", (1.0, 0.1, 2, 0), {}),
    ("cosine_decay_schedule", (0.5, 11), {}),
    ("cosine_decay_schedule", (0.5, 11, 0.1, 2.0), {}),
    ("exponential_decay", (1.0, 3, 0.7), {}),
    ("exponential_decay", (1.0, 3, 0.7, 2, True, 0.3), {}),
    ("exponential_decay", (1.0, 4, 1.3), {"end_value": 2.0}),
    ("piecewise_constant_schedule", (0.1, {3: 0.5, 8: 0.1, 12: 2.0}), {}),
    ("warmup_cosine_decay_schedule", (0.0, 1.0, 5, 20, 0.05), {}),
    ("warmup_cosine_decay_schedule", (0.1, 1.0, 4, 15), {"exponent": 1.5}),
    ("warmup_exponential_decay_schedule", (0.0, 1.0, 5, 3, 0.8), {}),
    ("warmup_exponential_decay_schedule", (0.0, 1.0, 5, 3, 0.8, 2, True, 0.4), {}),
]


@pytest.mark.parametrize("spec", SCHEDULES, ids=[s[0] + str(i) for i, s in enumerate(SCHEDULES)])
def test_schedules_match_optax(spec, jax_x64):
    optax = pytest.importorskip("optax")
    import jax
    ours, theirs = _build(foptax, spec), _build(optax, spec)
    counts = np.arange(0, 30, dtype=np.int32)
    got = frame.vmap(ours)(counts) if spec[0] != "constant_schedule" else np.full(30, ours(counts[0]))
    for c in counts:
        expected = np.asarray(theirs(jax.numpy.asarray(c)))
        np.testing.assert_allclose(np.asarray(ours(c)), expected, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(got[c], expected, rtol=RTOL, atol=ATOL)
    traced = frame.function(lambda c: fnp.asarray(ours(c)))
    np.testing.assert_allclose(traced(np.int32(13)), np.asarray(theirs(jax.numpy.asarray(13, "int32"))), rtol=RTOL)


def test_grad_through_steps_matches_jax(jax_x64):
    """Meta-gradient: d(loss after 3 optimiser steps)/d(initial params, learning rate), through Adam's and
    momentum's updates and the learning rate held in inject_hyperparams' state."""
    optax = pytest.importorskip("optax")
    import jax
    a = np.array([[2.0, 0.3], [0.3, 1.0]])

    def unrolled(lib, total, params, lr):
        opt = lib.chain(lib.inject_hyperparams(lib.adam)(learning_rate=lr, eps_root=1e-10), lib.trace(0.5))
        state = opt.init(params)
        for _ in range(3):
            updates, state = opt.update({"x": a @ params["x"] + 0.1}, state, params)
            params = lib.apply_updates(params, updates)
        return total(params["x"] ** 3)

    p0, lr = {"x": np.array([0.4, -0.7])}, 0.05
    ours = frame.grad(lambda p, r: unrolled(foptax, fnp.sum, p, r), argnums=(0, 1))(p0, lr)
    theirs = jax.grad(lambda p, r: unrolled(optax, jax.numpy.sum, p, r), argnums=(0, 1))(
        jax.tree.map(jax.numpy.asarray, p0), lr)
    np.testing.assert_allclose(ours[0]["x"], np.asarray(theirs[0]["x"]), rtol=RTOL)
    np.testing.assert_allclose(ours[1], np.asarray(theirs[1]), rtol=RTOL)


# -- against numpy transcriptions of the formulas (no optax needed). Each reference is one leaf's step:
# (g, p, state dict, t from 1) -> (update, state dict), everything numpy.

def _ref_sgd(lr, momentum=None, nesterov=False):
    def step(g, p, s, t):
        if momentum is None:
            return -lr * g, s
        tr = g + momentum * s.get("tr", 0.0)
        return -lr * (g + momentum * tr if nesterov else tr), {"tr": tr}
    return step


def _ref_adam(lr, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, nesterov=False, wd=0.0, trust=False, amsgrad=False):
    def step(g, p, s, t):
        m = (1 - b1) * g + b1 * s.get("m", 0.0)
        v = (1 - b2) * g * g + b2 * s.get("v", 0.0)
        mh = b1 * m / (1 - b1 ** (t + 1)) + (1 - b1) * g / (1 - b1 ** t) if nesterov else m / (1 - b1 ** t)
        vh = v / (1 - b2 ** t)
        if amsgrad:
            vh = np.maximum(s.get("vmax", 0.0), vh)
        u = mh / (np.sqrt(vh + eps_root) + eps) + wd * p
        if trust:
            pn, un = np.linalg.norm(p), np.linalg.norm(u)
            u = u * (pn / un if pn > 0 and un > 0 else 1.0)
        return -(lr(t - 1) if callable(lr) else lr) * u, {"m": m, "v": v, "vmax": vh}
    return step


def _ref_adamax(lr, b1=0.9, b2=0.999, eps=1e-8):
    def step(g, p, s, t):
        m = (1 - b1) * g + b1 * s.get("m", 0.0)
        u = np.maximum(np.abs(g) + eps, b2 * s.get("u", 0.0))
        return -lr * m / (1 - b1 ** t) / u, {"m": m, "u": u}
    return step


def _ref_adagrad(lr, init=0.1, eps=1e-7):
    def step(g, p, s, t):
        acc = s.get("acc", init) + g * g
        return -lr * g / np.sqrt(acc + eps), {"acc": acc}
    return step


def _ref_rmsprop(lr, decay=0.9, eps=1e-8, centered=False, momentum=None, bias_correction=False, eps_in_sqrt=True,
                 init=0.0):
    def step(g, p, s, t):
        nu = (1 - decay) * g * g + decay * s.get("nu", init)
        mu = (1 - decay) * g + decay * s.get("mu", 0.0)
        corr = 1 - decay ** t if bias_correction else 1.0
        var = nu / corr - ((mu / corr) ** 2 if centered else 0.0)
        u = -lr * g / (np.sqrt(var + eps) if eps_in_sqrt else np.sqrt(var) + eps)
        tr = u + (momentum or 0.0) * s.get("tr", 0.0)
        return (u if momentum is None else tr), {"nu": nu, "mu": mu, "tr": tr}
    return step


def _ref_adabelief(lr, b1=0.9, b2=0.999, eps=1e-16, eps_root=1e-16):
    def step(g, p, s, t):
        m = (1 - b1) * g + b1 * s.get("m", 0.0)
        v = (1 - b2) * (g - m) ** 2 + b2 * s.get("v", 0.0) + eps_root
        return -lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps), {"m": m, "v": v}
    return step


def _ref_lion(lr, b1=0.9, b2=0.99, wd=1e-3, shape=np.sign):
    def step(g, p, s, t):
        m = s.get("m", 0.0)
        return -lr * (shape((1 - b1) * g + b1 * m) + wd * p), {"m": (1 - b2) * g + b2 * m}
    return step


REFERENCES = [
    (lambda: foptax.sgd(0.1), _ref_sgd(0.1)),
    (lambda: foptax.sgd(0.1, 0.9), _ref_sgd(0.1, 0.9)),
    (lambda: foptax.sgd(0.1, 0.9, nesterov=True), _ref_sgd(0.1, 0.9, True)),
    (lambda: foptax.adam(0.05), _ref_adam(0.05)),
    (lambda: foptax.adam(0.05, eps_root=1e-6), _ref_adam(0.05, eps_root=1e-6)),
    (lambda: foptax.nadam(0.05), _ref_adam(0.05, nesterov=True)),
    (lambda: foptax.adamw(0.05, weight_decay=0.1), _ref_adam(0.05, wd=0.1)),
    (lambda: foptax.nadamw(0.05, weight_decay=0.1), _ref_adam(0.05, wd=0.1, nesterov=True)),
    (lambda: foptax.amsgrad(0.05), _ref_adam(0.05, amsgrad=True)),
    (lambda: foptax.lamb(0.05, weight_decay=0.1), _ref_adam(0.05, eps=1e-6, wd=0.1, trust=True)),
    (lambda: foptax.adamax(0.05), _ref_adamax(0.05)),
    (lambda: foptax.adagrad(0.1), _ref_adagrad(0.1)),
    (lambda: foptax.rmsprop(0.01), _ref_rmsprop(0.01)),
    (lambda: foptax.rmsprop(0.01, centered=True, momentum=0.9), _ref_rmsprop(0.01, centered=True, momentum=0.9)),
    (lambda: foptax.adabelief(0.05), _ref_adabelief(0.05)),
    (lambda: foptax.lion(0.01), _ref_lion(0.01)),
    (lambda: foptax.lion(0.01, weight_decay=0.3), _ref_lion(0.01, wd=0.3)),
    (lambda: foptax.chain(foptax.scale_by_lion(mode="smooth", smooth_beta=2.0), foptax.scale(-0.01)),
     _ref_lion(0.01, wd=0.0, shape=lambda x: np.tanh(2.0 * x))),
    (lambda: foptax.chain(foptax.scale_by_lion(mode="refined"), foptax.scale(-0.01)),
     _ref_lion(0.01, wd=0.0, shape=lambda x: np.where(np.abs(x) < 1, x, np.sign(x)))),
    (lambda: foptax.rmsprop(0.01, bias_correction=True, eps_in_sqrt=False, centered=True, initial_scale=0.5),
     _ref_rmsprop(0.01, centered=True, bias_correction=True, eps_in_sqrt=False, init=0.5)),   # (1) above
    (lambda: foptax.adam(foptax.exponential_decay(0.05, 2, 0.5)), _ref_adam(lambda c: 0.05 * 0.5 ** (c / 2))),
    (lambda: foptax.chain(foptax.scale_by_adam(), foptax.scale_by_schedule(lambda c: -0.01 * (c + 1))),
     _ref_adam(lambda c: 0.01 * (c + 1))),
]


def _ref_run(step, params):
    leaves = [np.array(x) for x in frame.tree_leaves(params)]
    states = [{} for _ in leaves]
    for t in range(STEPS):
        grads = frame.tree_leaves(_grads(frame.tree_unflatten(frame.tree_flatten(params)[1], leaves), t))
        for i, (g, p) in enumerate(zip(grads, leaves)):
            u, states[i] = step(g, p, states[i], t + 1)
            leaves[i] = p + u
    return frame.tree_unflatten(frame.tree_flatten(params)[1], leaves)


@pytest.mark.parametrize("k", range(len(REFERENCES)))
def test_matches_numpy_formula(k):
    make, step = REFERENCES[k]
    params = _params()
    ours, state = _run(make(), params)
    assert_trees_close(ours, _ref_run(step, params))
    counts = [x for x in frame.tree_leaves(state) if np.asarray(x).dtype.kind == "i"]
    assert all(np.asarray(c).dtype == np.int32 and c == STEPS for c in counts)


def test_noisy_sgd_formula():
    key, params = frame.random.PRNGKey(3), {"a": np.zeros(3), "b": np.zeros((2, 2))}
    opt = foptax.noisy_sgd(0.5, eta=0.2, gamma=0.55, key=key)
    state, rng = opt.init(params), key
    for t in range(1, 4):
        grads = {"a": np.ones(3), "b": np.full((2, 2), 2.0)}
        updates, state = opt.update(grads, state, params)
        rng, sub = frame.random.split(rng)
        ka, kb = frame.random.split(sub, 2)   # one subkey per leaf, in flattening order (a, b)
        std = np.sqrt(0.2 / t ** 0.55)
        np.testing.assert_allclose(updates["a"], -0.5 * (1 + std * frame.random.normal(ka, (3,))), rtol=RTOL)
        np.testing.assert_allclose(updates["b"], -0.5 * (2 + std * frame.random.normal(kb, (2, 2))), rtol=RTOL)
    np.testing.assert_array_equal(state[0].rng_key, rng)
    assert state[0].count == 3 and state[0].count.dtype == np.int32


def test_clipping_and_stateless_transforms():
    g = {"a": np.array([3.0, -4.0]), "b": np.array([[0.5, -0.2]])}
    norm = np.sqrt(9 + 16 + 0.25 + 0.04)
    np.testing.assert_allclose(foptax.global_norm(g), norm, rtol=RTOL)
    out, _ = foptax.clip_by_global_norm(1.0).update(g, foptax.EmptyState())
    assert_trees_close(out, {k: v / norm for k, v in g.items()})
    out, _ = foptax.clip_by_global_norm(10.0).update(g, foptax.EmptyState())
    assert_trees_close(out, g)
    out, _ = foptax.clip(0.3).update(g, foptax.EmptyState())
    assert_trees_close(out, {"a": np.array([0.3, -0.3]), "b": np.array([[0.3, -0.2]])})
    assert_trees_close(foptax.set_to_zero().update(g, ())[0], {k: np.zeros_like(v) for k, v in g.items()})
    assert_trees_close(foptax.identity().update(g, ())[0], g)
    assert_trees_close(foptax.scale(-2.0).update(g, ())[0], {k: -2 * v for k, v in g.items()})
    p = {"a": np.array([1.0, 2.0]), "b": np.array([[1.0, 1.0]])}
    out, _ = foptax.add_decayed_weights(0.5).update(g, foptax.EmptyState(), p)
    assert_trees_close(out, {k: g[k] + 0.5 * p[k] for k in g})
    out, _ = foptax.scale_by_trust_ratio().update(g, foptax.EmptyState(), p)
    assert_trees_close(out, {k: g[k] * np.linalg.norm(p[k]) / np.linalg.norm(g[k]) for k in g})


def test_masked_and_multi_transform():
    params = {"w": np.array([1.0, -2.0]), "b": np.array([0.5]), "n": {"x": np.array([3.0]), "y": np.array([4.0])}}
    g = {"w": np.array([0.1, 0.2]), "b": np.array([0.3]), "n": {"x": np.array([0.4]), "y": np.array([0.5])}}
    for mask in ({"w": True, "b": False, "n": True}, lambda p: {"w": True, "b": False, "n": {"x": True, "y": True}}):
        opt = foptax.masked(foptax.sgd(0.1, momentum=0.9), mask)
        state = opt.init(params)
        assert isinstance(state.inner_state[0].trace["b"], foptax.MaskedNode)
        for _ in range(2):
            out, state = opt.update(g, state, params)
        assert_trees_close(out, {"w": -0.1 * 1.9 * g["w"], "b": g["b"], "n": {k: -0.19 * v for k, v in g["n"].items()}})
    opt = foptax.multi_transform({"fast": foptax.sgd(1.0), "frozen": foptax.set_to_zero()},
                                 lambda p: {"w": "fast", "b": "frozen", "n": {"x": "fast", "y": "frozen"}})
    out, state = opt.update(g, opt.init(params), params)
    assert_trees_close(out, {"w": -g["w"], "b": np.zeros(1), "n": {"x": -g["n"]["x"], "y": np.zeros(1)}})
    assert set(state.inner_states) == {"fast", "frozen"}


def test_inject_hyperparams_state_can_be_changed():
    params, g = {"x": np.array([1.0, 2.0])}, {"x": np.array([0.5, -1.0])}
    opt = foptax.inject_hyperparams(foptax.sgd)(learning_rate=0.1, momentum=0.5)
    state = opt.init(params)
    assert state.hyperparams["learning_rate"].dtype == np.float64 and state.hyperparams["learning_rate"] == 0.1
    state = state._replace(hyperparams={**state.hyperparams, "learning_rate": np.asarray(0.01)})
    out, state = opt.update(g, state, params)
    assert_trees_close(out, {"x": -0.01 * g["x"]})
    sched = foptax.inject_hyperparams(foptax.adam)(learning_rate=foptax.linear_schedule(1.0, 0.0, 4))
    state = sched.init(params)
    for t in range(3):
        _, state = sched.update(g, state, params)
        np.testing.assert_allclose(state.hyperparams["learning_rate"], 1.0 - t / 4, rtol=RTOL)
    assert state.count == 3 and state.hyperparams_states["learning_rate"].count == 3


SCHEDULE_FORMULAS = [
    (foptax.constant_schedule(0.3), lambda t: 0.3),
    (foptax.linear_schedule(1.0, 0.1, 7, 3), lambda t: 1.0 + (0.1 - 1.0) * min(max(t - 3, 0), 7) / 7),
    (foptax.polynomial_schedule(1.0, 0.1, 2.5, 9), lambda t: 0.9 * (1 - min(t, 9) / 9) ** 2.5 + 0.1),
    (foptax.cosine_decay_schedule(0.5, 11, 0.1, 2.0),
     lambda t: 0.5 * (0.9 * (0.5 * (1 + np.cos(np.pi * min(t, 11) / 11))) ** 2 + 0.1)),
    (foptax.exponential_decay(1.0, 3, 0.7, 2), lambda t: 0.7 ** max((t - 2) / 3, 0)),
    (foptax.exponential_decay(1.0, 3, 0.7, 2, True, 0.3), lambda t: max(0.7 ** max(np.floor((t - 2) / 3), 0), 0.3)),
    (foptax.piecewise_constant_schedule(0.1, {3: 0.5, 8: 0.1}),
     lambda t: 0.1 * (0.5 if t >= 3 else 1) * (0.1 if t >= 8 else 1)),
    (foptax.warmup_cosine_decay_schedule(0.0, 1.0, 5, 20, 0.05),
     lambda t: t / 5 if t < 5 else 0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * min(t - 5, 15) / 15))),
    (foptax.warmup_exponential_decay_schedule(0.0, 1.0, 5, 3, 0.8, end_value=0.4),
     lambda t: t / 5 if t < 5 else max(0.8 ** ((t - 5) / 3), 0.4)),
    (foptax.join_schedules([foptax.constant_schedule(1.0), foptax.linear_schedule(2.0, 0.0, 4)], [3]),
     lambda t: 1.0 if t < 3 else 2.0 - 2.0 * min(t - 3, 4) / 4),
]


@pytest.mark.parametrize("k", range(len(SCHEDULE_FORMULAS)))
def test_schedule_formulas(k):
    schedule, formula = SCHEDULE_FORMULAS[k]
    for t in range(25):
        for count in (t, np.int32(t)):
            np.testing.assert_allclose(schedule(count), formula(t), rtol=RTOL, atol=ATOL, err_msg=f"t={t}")


def _loss(p, x, y):
    h = fnp.tanh(x @ p["w1"] + p["b1"])
    return fnp.mean((h @ p["w2"] - y) ** 2)


@pytest.mark.parametrize("make", [
    lambda: foptax.adamw(foptax.warmup_cosine_decay_schedule(0.0, 0.05, 2, 10), weight_decay=0.01,
                         mask=lambda p: {k: k.startswith("w") for k in p}),
    lambda: foptax.chain(foptax.clip_by_global_norm(0.5), foptax.lamb(0.02)),
    lambda: foptax.inject_hyperparams(foptax.rmsprop)(0.01, centered=True, momentum=0.5),
    lambda: foptax.noisy_sgd(0.05, key=frame.random.PRNGKey(1)),
], ids=["adamw-schedule-mask", "clip-lamb", "inject-rmsprop", "noisy_sgd"])
def test_compiled_train_step_equals_eager(make):
    rng = np.random.default_rng(1)
    params = {"w1": rng.normal(size=(3, 5)), "b1": np.zeros(5), "w2": rng.normal(size=(5, 1))}
    x, y = rng.normal(size=(8, 3)), rng.normal(size=(8, 1))
    opt = make()

    def step(p, state, x, y):
        loss, grads = frame.value_and_grad(_loss)(p, x, y)
        updates, state = opt.update(grads, state, p)
        return foptax.apply_updates(p, updates), state, loss

    compiled = frame.function(step)
    pe, se = params, opt.init(params)
    pc, sc = params, opt.init(params)
    for _ in range(4):
        pe, se, le = step(pe, se, x, y)
        pc, sc, lc = compiled(pc, sc, x, y)
        np.testing.assert_allclose(lc, le, rtol=RTOL)
    assert_trees_close(pc, pe)
    assert_trees_close(sc, se)
    assert frame.tree_util.tree_structure(sc) == frame.tree_util.tree_structure(se)


def test_float32_params_keep_their_dtype():
    params = {"w": np.array([1.0, -2.0], np.float32)}
    opt = foptax.adamw(foptax.linear_schedule(0.1, 0.0, 5), weight_decay=0.1)
    state = opt.init(params)
    updates, state = opt.update({"w": np.array([0.5, 0.25], np.float32)}, state, params)
    new = foptax.apply_updates(params, updates)
    assert new["w"].dtype == np.float32 and updates["w"].dtype == np.float32
    assert state[0].mu["w"].dtype == np.float32 and state[0].count.dtype == np.int32
    # step 1 of Adam is lr * sign(g) (up to eps), plus the decay
    np.testing.assert_allclose(new["w"], params["w"] - 0.1 * (np.sign([0.5, 0.25]) + 0.1 * params["w"]), rtol=1e-6)


def test_counts_saturate():
    assert foptax.safe_increment(np.int32(2 ** 31 - 1)) == 2 ** 31 - 1
    assert foptax.safe_increment(np.int32(5)).dtype == np.int32


def test_errors_name_the_function():
    with pytest.raises(InputError, match="cosine_decay_schedule.*decay_steps"):
        foptax.cosine_decay_schedule(1.0, 0)
    with pytest.raises(InputError, match="warmup_cosine_decay_schedule"):
        foptax.warmup_cosine_decay_schedule(0.0, 1.0, 10, 10)
    with pytest.raises(InputError, match="piecewise_constant_schedule.*non-negative"):
        foptax.piecewise_constant_schedule(1.0, {3: -0.5})
    with pytest.raises(InputError, match="scale_by_lion.*mode"):
        foptax.scale_by_lion(mode="soft")
    with pytest.raises(InputError, match="scale_by_learning_rate.*learning_rate"):
        foptax.adam("0.001")
    with pytest.raises(InputError, match="noisy_sgd.*key"):
        foptax.noisy_sgd(0.1)
    params = {"x": np.ones(2)}
    opt = foptax.lamb(0.1)
    with pytest.raises(InputError, match="add_decayed_weights.*params"):
        opt.update(params, opt.init(params))
    with pytest.raises(InputError, match="chain.*2 states.*tuple of length 3"):
        foptax.sgd(0.1, 0.9).update(params, foptax.adam(0.1).init(params) + ((),), params)
    with pytest.raises(InputError, match="multi_transform.*'c'"):
        foptax.multi_transform({"a": foptax.sgd(0.1)}, {"x": "c"}).init(params)
    # optax allows a negative learning rate (gradient ascent), and so does frame
    out, _ = foptax.sgd(-1.0).update(params, foptax.sgd(-1.0).init(params))
    assert_trees_close(out, params)
