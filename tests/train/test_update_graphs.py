"""Update graphs (ARCH-065): composed of pre-existing ops only, and equal to numpy references of the rules."""
import math

import numpy as np
import pytest

import frame
from frame.compiler.pipeline import UNOPTIMIZED
from frame.errors import ShapeError
from frame.ir import TensorType
from frame.ir.verify import verify
from frame.ir.registry import INTERNAL
from frame.train import build_adam_update_graph, build_sgd_update_graph

# The ops the builders may use: plain user-facing arithmetic that existed before training did.
ALLOWED_OPS = {"constant", "add", "mul", "neg", "div", "sqrt", "exp"}


def _types(*shapes, dtype="float64"):
    return [TensorType(s, dtype) for s in shapes]


def _registry_names():
    return sorted(s.name for s in frame.ops.all_ops())


@pytest.mark.parametrize("build", [
    lambda ts: build_sgd_update_graph(ts, 0.1),
    lambda ts: build_sgd_update_graph(ts, None),
    lambda ts: build_adam_update_graph(ts, 1e-3),
    lambda ts: build_adam_update_graph(ts, None),
], ids=["sgd", "sgd-lr-input", "adam", "adam-lr-input"])
def test_update_graphs_use_only_existing_ops_and_register_nothing(build):
    before = _registry_names()
    graph = build(_types((3, 4), (4,), ()))
    verify(graph)
    assert _registry_names() == before  # no kernel registered by building an update graph
    used = {node.op for node in graph.nodes}
    assert used <= ALLOWED_OPS, used - ALLOWED_OPS
    assert not any(INTERNAL in frame.ops.find(op).traits for op in used)


def test_sgd_graph_is_the_seed_composition():
    # ARCH-065: new_param = add(param, mul(constant(-lr), grad)) and nothing else.
    graph = build_sgd_update_graph(_types((2, 2)), 0.25)
    assert [n.op for n in graph.nodes] == ["constant", "mul", "add"]
    assert float(graph.nodes[0].attrs["value"]) == -0.25
    assert len(graph.inputs) == 2 and len(graph.outputs) == 1


def _run_both(graph, args):
    """Run with the full pipeline and unoptimised; they must agree (the pipeline preserves numerics)."""
    optimised = frame.runtime.compile(graph)(*args)
    plain = frame.runtime.compile(graph, UNOPTIMIZED)(*args)
    for a, b in zip(optimised, plain):
        np.testing.assert_allclose(a, b, rtol=1e-15, atol=0)
    return optimised


def test_sgd_matches_numpy_step_by_step_with_mixed_dtypes():
    rng = np.random.default_rng(0)
    params = [rng.normal(size=(3, 4)), rng.normal(size=(4,)).astype(np.float32)]
    graph = build_sgd_update_graph([TensorType.of(p) for p in params], 0.05)
    ref = [p.copy() for p in params]
    for _ in range(5):
        grads = [rng.normal(size=p.shape).astype(p.dtype) for p in params]
        params = _run_both(graph, [*params, *grads])
        ref = [r - r.dtype.type(0.05) * g for r, g in zip(ref, grads)]
        for p, r in zip(params, ref):
            assert p.dtype == r.dtype
            np.testing.assert_array_equal(p, r)  # one multiply and one add: exactly numpy's result


def test_sgd_lr_as_input_equals_baked_constant():
    rng = np.random.default_rng(1)
    types = _types((5,), (2, 3))
    params = [rng.normal(size=t.shape) for t in types]
    grads = [rng.normal(size=t.shape) for t in types]
    baked = frame.runtime.compile(build_sgd_update_graph(types, 0.3))(*params, *grads)
    fed_graph = build_sgd_update_graph(types, None)
    assert fed_graph.inputs[-1].type == TensorType((), "float64")
    fed = frame.runtime.compile(fed_graph)(*params, *grads, np.float64(0.3))
    for a, b in zip(baked, fed):
        np.testing.assert_array_equal(a, b)


def _adam_reference(params, grads_per_step, lr, b1=0.9, b2=0.999, eps=1e-8):
    """optax.adam's formulas (scale_by_adam then scale by -lr), written out in numpy."""
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    out = []
    for t, grads in enumerate(grads_per_step, start=1):
        m = [b1 * mi + (1 - b1) * g for mi, g in zip(m, grads)]
        v = [b2 * vi + (1 - b2) * g * g for vi, g in zip(v, grads)]
        m_hat = [mi / (1 - b1 ** t) for mi in m]
        v_hat = [vi / (1 - b2 ** t) for vi in v]
        params = [p - lr * mh / (np.sqrt(vh) + eps) for p, mh, vh in zip(params, m_hat, v_hat)]
        out.append((params, m, v))
    return out


@pytest.mark.parametrize("lr_as_input", [False, True])
def test_adam_matches_optax_formulas_step_by_step(lr_as_input):
    rng = np.random.default_rng(2)
    types = _types((3, 2), (2,))
    params = [rng.normal(size=t.shape) for t in types]
    grads_per_step = [[rng.normal(size=t.shape) for t in types] for _ in range(6)]
    lr, b1, b2, eps = 0.01, 0.8, 0.99, 1e-7
    graph = build_adam_update_graph(types, None if lr_as_input else lr, b1, b2, eps)
    n = len(types)
    m = [np.zeros(t.shape) for t in types]
    v = [np.zeros(t.shape) for t in types]
    step = np.float64(0.0)
    current = params
    for k, (grads, (ref_p, ref_m, ref_v)) in enumerate(zip(grads_per_step,
                                                           _adam_reference(params, grads_per_step, lr, b1, b2, eps))):
        extra = [np.float64(lr)] if lr_as_input else []
        outs = _run_both(graph, [*current, *grads, *m, *v, step, *extra])
        current, m, v, step = outs[:n], outs[n:2 * n], outs[2 * n:3 * n], outs[3 * n]
        assert float(step) == k + 1
        # b**t is exp(t*log b) in the graph (pow's exponent is an attr, t is an input): a few ulps apart.
        for got, want in zip([*current, *m, *v], [*ref_p, *ref_m, *ref_v]):
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_adam_first_step_is_lr_times_sign():
    # With zero moments, bias correction makes the first update -lr*g/(|g|+eps): a hand-checkable value.
    g = np.array([2.0, -0.5, 1e-3])
    graph = build_adam_update_graph(_types((3,)), 0.1)
    new_p, m, v, step = frame.runtime.compile(graph)(np.zeros(3), g, np.zeros(3), np.zeros(3), np.float64(0))
    np.testing.assert_allclose(new_p, -0.1 * g / (np.abs(g) + 1e-8), rtol=1e-12)
    np.testing.assert_allclose(m, 0.1 * g, rtol=1e-15)
    np.testing.assert_allclose(v, 0.001 * g * g, rtol=1e-12)
    assert float(step) == 1.0


def test_adam_float32():
    rng = np.random.default_rng(3)
    types = _types((4, 3), dtype="float32")
    p = rng.normal(size=(4, 3)).astype(np.float32)
    grads = [[rng.normal(size=(4, 3)).astype(np.float32)] for _ in range(3)]
    ref = _adam_reference([p.astype(np.float64)], [[g[0].astype(np.float64)] for g in grads], 1e-2)
    exe = frame.runtime.compile(build_adam_update_graph(types, 1e-2))
    state = [p, np.zeros_like(p), np.zeros_like(p), np.float32(0)]
    for g, (ref_p, _, _) in zip(grads, ref):
        state = exe(state[0], g[0], *state[1:])
        assert all(a.dtype == np.float32 for a in state)
        # float32 arithmetic against the float64 reference (SPEC §11's float32 tolerance).
        np.testing.assert_allclose(state[0], ref_p[0], rtol=1e-3, atol=1e-6)


def test_update_graph_bad_input():
    with pytest.raises(ShapeError, match="parameter 0 has type i64"):
        build_sgd_update_graph([TensorType((2,), "int64")], 0.1)
    with pytest.raises(ShapeError, match="no parameters"):
        build_sgd_update_graph([], 0.1)
    with pytest.raises(ShapeError, match="lr must be a finite float"):
        build_sgd_update_graph(_types((2,)), math.nan)
    with pytest.raises(ShapeError, match=r"one float dtype, got \['float32', 'float64'\]"):
        build_adam_update_graph([TensorType((2,), "float32"), TensorType((2,), "float64")], 0.1)
    with pytest.raises(ShapeError, match="an lr input"):
        build_sgd_update_graph([TensorType((2,), "float32"), TensorType((2,), "float64")], None)
    with pytest.raises(ShapeError, match="b2 must lie in"):
        build_adam_update_graph(_types((2,)), 0.1, b2=1.0)


def test_param_types_from_arrays():
    graph = build_sgd_update_graph([np.zeros((2, 3), np.float32)], 0.1)
    assert graph.inputs[0].type == TensorType((2, 3), "float32")
