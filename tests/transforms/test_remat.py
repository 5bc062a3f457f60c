"""frame.checkpoint (rematerialisation, issue 17 item 4) and frame.runtime.memory.memory_report.

Values of a checkpointed function are the unwrapped function's, bit for bit; its gradients equal the
unwrapped function's (to rounding: the backward's sums run in another order) and JAX's jax.checkpoint's;
the derived graph recomputes the region's forward inside the backward part, and the pipeline (CSE,
fusion, DNE) keeps the recomputation; the memory report's peak is smaller with remat on a deep MLP and
agrees with tracemalloc's measurement of a real run."""
import tracemalloc

import jax
import jax.ad_checkpoint
import jax.numpy as jnp
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.compiler.autograd import build_backward_graph
from frame.errors import FrameError, InputError, ShapeError, TraceError
from frame.frontend.batching import vmap
from frame.frontend.jacobians import jvp
from frame.frontend.remat import checkpoint, checkpoint_name, checkpoint_policies
from frame.interop import check_derivatives, to_jax
from frame.ir import parse_graph, print_graph, verify
from frame.runtime import row_parallel, tiers
from frame.runtime.compile import compile as compile_graph
from frame.runtime.memory import MemoryReport, memory_report
from frame.tracing import bind

pytestmark = pytest.mark.usefixtures("jax_x64")   # x64 for this module only (tests/conftest.py)

RNG = np.random.default_rng(17)
W = [RNG.standard_normal((6, 6)) / 2.5 for _ in range(4)]
B = [RNG.standard_normal(6) / 4 for _ in range(4)]
X = RNG.standard_normal((5, 6))
POLICIES = [pytest.param(None, id="nothing_saveable"),
            pytest.param(checkpoint_policies.everything_saveable, id="everything_saveable"),
            pytest.param(checkpoint_policies.dots_saveable, id="dots_saveable"),
            pytest.param(checkpoint_policies.save_only_these_names("z"), id="save_only_these_names")]
WHOLE = row_parallel.RowPolicy(1, 0)   # one call, no row chunks: the executable's own plan is measured


def layer(w, b, h, np_=fnp, name=checkpoint_name):
    z = name(h @ w + b, "z")
    return np_.tanh(z) * 0.9 + 0.1 * np_.sin(z)


def j_layer(w, b, h):
    return layer(w, b, h, jnp, jax.ad_checkpoint.checkpoint_name)


def net(params, x, ck=False, policy=None, block=1):
    """A 4-layer MLP; with `ck`, each block of `block` layers checkpointed."""
    ws, bs = params
    h = x
    for i in range(0, len(ws), block):
        def run(ws_, bs_, h_):
            for w, b in zip(ws_, bs_):
                h_ = layer(w, b, h_)
            return h_
        h = checkpoint(run, policy=policy)(ws[i:i + block], bs[i:i + block], h) if ck else run(
            ws[i:i + block], bs[i:i + block], h)
    return fnp.sum(h * h)


def j_net(params, x, ck=False, policy=None):
    ws, bs = params
    h = x
    for w, b in zip(ws, bs):
        h = jax.checkpoint(j_layer, policy=policy)(w, b, h) if ck else j_layer(w, b, h)
    return jnp.sum(h * h)


def _jax_policy(policy):
    if policy is None:
        return None
    return {"everything_saveable": jax.checkpoint_policies.everything_saveable,
            "dots_saveable": jax.checkpoint_policies.dots_saveable,
            "save_only_these_names": jax.checkpoint_policies.save_only_these_names(*policy.names)}[policy.name]


def count_ops(graph, op: str) -> int:
    """Nodes of `op` in `graph` and in the regions and fused bodies its nodes hold."""
    n = 0
    for node in graph.nodes:
        n += node.op == op
        for a in node.attrs.values():
            if hasattr(a, "nodes"):
                n += count_ops(a, op)
    return n


def assert_trees_close(a, b, rtol, atol=0.0):
    a, b = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(a) == len(b)
    for u, v in zip(a, b):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=rtol, atol=atol)


# -- values -----------------------------------------------------------------------------------------
def test_forward_values_are_bit_identical_eager_traced_and_compiled():
    params = (W, B)
    plain = net(params, X)
    assert np.array_equal(net(params, X, ck=True), plain)                            # eager: the function runs
    assert np.array_equal(frame.function(lambda p, x: net(p, x, ck=True))(params, X),
                          frame.function(lambda p, x: net(p, x))(params, X))          # one region per layer
    value, _ = frame.value_and_grad(lambda p: net(p, X, ck=True, block=2))(params)
    value0, _ = frame.value_and_grad(lambda p: net(p, X))(params)
    assert np.array_equal(value, value0)
    g = frame.trace(lambda p, x: net(p, x, ck=True), params, X)
    assert count_ops(g, "checkpoint") == 4 and sum(n.op == "checkpoint" for n in g.nodes) == 4


# -- gradients --------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy", POLICIES)
def test_gradients_equal_the_unwrapped_functions_and_jax_checkpoints(policy):
    params = (W, B)
    g0 = frame.grad(lambda p: net(p, X))(params)
    g1 = frame.grad(lambda p: net(p, X, ck=True, policy=policy))(params)
    gj = jax.grad(lambda p: j_net(p, X, ck=True, policy=_jax_policy(policy)))(params)
    assert_trees_close(g1, g0, rtol=1e-12, atol=1e-14)   # the same derivative; sums in another order
    assert_trees_close(g1, gj, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("policy", POLICIES[:3])
def test_the_oracle_agrees_to_order_2_and_on_the_lowered_derived_graphs(policy):
    """check_derivatives: first and second derivatives against JAX, every derived graph lowered with
    to_jax (checkpoint as jax.checkpoint, remat_barrier as lax.optimization_barrier)."""
    w, b = W[0], B[0]
    f = checkpoint(lambda w, h: layer(w, b, layer(w, b, h)), policy=policy)
    report = check_derivatives(lambda w, h: fnp.sum(f(w, h) ** 2), w, X[:2], argnums=(0, 1), orders=(1, 2))
    assert {(1, "gradient"), (1, "lowered derived graph"), (2, "lowered derived graph")} <= \
        {(e.order, e.check) for e in report.entries}


def test_second_derivatives_grad_of_grad_equal_the_unwrapped_and_jax():
    params = (W, B)
    v = RNG.standard_normal(X.shape)

    def hvp(f, grad, sum_):
        return lambda x: sum_(grad(f)(x) * v)

    h0 = frame.grad(hvp(lambda x: net(params, x), frame.grad, fnp.sum))(X)
    h1 = frame.grad(hvp(lambda x: net(params, x, ck=True), frame.grad, fnp.sum))(X)
    hj = jax.grad(hvp(lambda x: j_net(params, x, ck=True), jax.grad, jnp.sum))(X)
    np.testing.assert_allclose(h1, h0, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(h1, hj, rtol=1e-10, atol=1e-12)


def test_third_order_through_nested_checkpoints():
    """A checkpoint inside a checkpoint, differentiated three times (a PINN's loss on u_xx, then its
    parameter gradient) agrees with the unwrapped function."""
    w, b = W[0][:1, :1], B[0][:1]
    inner = checkpoint(lambda h: fnp.tanh(h @ w + b))
    outer = checkpoint(lambda h: inner(inner(h)) * 1.5)

    def u_xx(f):
        u_x = frame.grad(lambda x: fnp.sum(f(x)))
        return frame.grad(lambda x: fnp.sum(u_x(x)))

    x = RNG.uniform(-1, 1, (4, 1))
    plain = lambda h: fnp.tanh(fnp.tanh(h @ w + b) @ w + b) * 1.5  # noqa: E731
    loss = lambda f: (lambda x: fnp.sum(u_xx(f)(x) ** 2))           # noqa: E731
    np.testing.assert_allclose(frame.grad(loss(outer))(x), frame.grad(loss(plain))(x), rtol=1e-11, atol=1e-13)
    jf = jax.checkpoint(lambda h: jnp.tanh(jnp.tanh(h @ w + b) @ w + b) * 1.5)
    ju_x = jax.grad(lambda x: jnp.sum(jf(x)))
    ju_xx = jax.grad(lambda x: jnp.sum(ju_x(x)))
    np.testing.assert_allclose(frame.grad(loss(outer))(x), jax.grad(lambda x: jnp.sum(ju_xx(x) ** 2))(x),
                               rtol=1e-10, atol=1e-12)


def test_closures_over_traced_parameters_get_their_gradients():
    w, b = W[1], B[1]

    def f(w, b, x):
        return fnp.sum(checkpoint(lambda h: layer(w, b, h))(x) ** 2)   # w and b reach the region by closure

    g = frame.grad(f, argnums=(0, 1))(w, b, X)
    g0 = frame.grad(lambda w, b, x: fnp.sum(layer(w, b, x) ** 2), argnums=(0, 1))(w, b, X)
    assert_trees_close(g, g0, rtol=1e-12, atol=1e-14)


def test_static_argnums_and_python_numbers():
    def scaled(h, k, c):
        return fnp.tanh(h * c) if k == "tanh" else fnp.sin(h * c)

    f = checkpoint(scaled, static_argnums=(1,))
    for k in ("tanh", "sin"):
        g = frame.grad(lambda x: fnp.sum(f(x, k, 2.0)))(X)
        g0 = frame.grad(lambda x: fnp.sum(scaled(x, k, 2.0)))(X)
        np.testing.assert_allclose(g, g0, rtol=1e-13)
    assert np.array_equal(frame.function(lambda x: f(x, "tanh", 2.0))(X), np.tanh(X * 2.0))


# -- the recomputation is in the derived graph and survives the pipeline ---------------------------------
def _optimised_grad_graph(fn, params):
    return compile_graph(frame.trace(lambda p: frame.grad(fn)(p), params), rows=WHOLE).graph


def test_the_backward_part_recomputes_the_region_and_the_pipeline_keeps_it():
    params = (W, B)
    derived = build_backward_graph(frame.trace(lambda p: net(p, X, ck=True), params), 0, list(range(8)))
    # four forward regions, four backward regions whose bodies hold the layer's forward again
    assert sum(n.op == "checkpoint" for n in derived.nodes) == 8
    # (sin is not needed by its own derivative: the backward bodies compute cos(z), not sin(z))
    assert count_ops(derived, "tanh") == 8 and count_ops(derived, "sin") == 4 and count_ops(derived, "cos") == 4
    plain = _optimised_grad_graph(lambda p: net(p, X), params)
    remat = _optimised_grad_graph(lambda p: net(p, X, ck=True), params)
    assert count_ops(plain, "tanh") == 4 and count_ops(plain, "sin") == 4
    # after decompose, CSE, fusion and DNE: every layer's tanh computed twice, the second behind barriers
    assert count_ops(remat, "tanh") == 8 and count_ops(remat, "sin") == 4
    assert count_ops(remat, "remat_barrier") >= 4 and count_ops(remat, "checkpoint") == 0


def test_prevent_cse_false_and_everything_saveable_let_cse_merge_the_recomputation():
    params = (W, B)
    for kwargs in ({"prevent_cse": False}, {"policy": checkpoint_policies.everything_saveable}):
        def fn(p, kwargs=kwargs):
            ws, bs = p
            h = X
            for w, b in zip(ws, bs):
                h = checkpoint(layer, **kwargs)(w, b, h)
            return fnp.sum(h * h)
        g = _optimised_grad_graph(fn, params)
        assert count_ops(g, "tanh") == 4 and count_ops(g, "remat_barrier") == 0


def test_policies_choose_what_is_recomputed():
    params = (W, B)
    dots = _optimised_grad_graph(lambda p: net(p, X, ck=True, policy=checkpoint_policies.dots_saveable), params)
    names = _optimised_grad_graph(lambda p: net(p, X, ck=True,
                                                policy=checkpoint_policies.save_only_these_names("z")), params)
    plain = _optimised_grad_graph(lambda p: net(p, X), params)
    for g in (dots, names):   # the products are kept (not recomputed), the activations recomputed from them
        assert count_ops(g, "matmul") == count_ops(plain, "matmul")
        assert count_ops(g, "tanh") == 8
    unnamed = _optimised_grad_graph(lambda p: net(p, X, ck=True,
                                                  policy=checkpoint_policies.save_only_these_names("other")), params)
    assert count_ops(unnamed, "matmul") > count_ops(plain, "matmul")


def test_forward_mode_and_vmap_keep_the_region():
    params = (W, B)
    f = lambda x: net(params, x, ck=True)   # noqa: E731
    f0 = lambda x: net(params, x)           # noqa: E731
    t = RNG.standard_normal(X.shape)
    (y, ty), (y0, ty0) = jvp(f, (X,), (t,)), jvp(f0, (X,), (t,))
    assert np.array_equal(y, y0)
    np.testing.assert_allclose(ty, ty0, rtol=1e-12)
    g = frame.trace(lambda x, t: jvp(f, (x,), (t,))[1], X, t)
    assert any(n.op == "checkpoint" and "jvp" in n.attrs["body"].name for n in g.nodes)
    xs = RNG.standard_normal((3, *X.shape))
    np.testing.assert_allclose(vmap(f)(xs), vmap(f0)(xs), rtol=1e-13)
    assert any(n.op == "checkpoint" for n in frame.trace(vmap(f), xs).nodes)
    # reverse over forward: the gradient of a tangent recomputes the tangent region
    gt = frame.grad(lambda x: fnp.sum(jvp(f, (x,), (t,))[1] ** 2))(X)
    gt0 = frame.grad(lambda x: fnp.sum(jvp(f0, (x,), (t,))[1] ** 2))(X)
    np.testing.assert_allclose(gt, gt0, rtol=1e-11, atol=1e-13)
    # vmap of a gradient through checkpoints
    gv = vmap(frame.grad(f))(xs)
    gv0 = vmap(frame.grad(f0))(xs)
    np.testing.assert_allclose(gv, gv0, rtol=1e-12, atol=1e-14)


def test_graphs_holding_checkpoints_print_parse_verify_and_lower():
    params = (W, B)
    derived = build_backward_graph(frame.trace(lambda p: net(p, X, ck=True, policy=checkpoint_policies.dots_saveable),
                                               params), 0, list(range(8)))
    text = print_graph(derived)
    assert "checkpoint(" in text and "remat_barrier(" in text
    again = parse_graph(text)
    verify(again)
    assert print_graph(again) == text
    args = [*W, *B]
    ours = compile_graph(derived)(*args)
    with jax.enable_x64(True):
        lowered = to_jax(derived)(*args)
    assert_trees_close(ours, lowered, rtol=1e-12, atol=1e-14)


# -- memory ---------------------------------------------------------------------------------------------
def _deep_mlp_step(ck: bool, block: int, depth: int = 12, n: int = 256, width: int = 32):
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32) for _ in range(depth)]
    x = rng.standard_normal((n, width)).astype(np.float32)

    def block_fn(ws_, h):
        for w in ws_:
            h = fnp.tanh(h @ w) * 0.5 + h * 0.5
        return h

    def loss(ws_):
        h = x
        for i in range(0, depth, block):
            h = checkpoint(block_fn)(ws_[i:i + block], h) if ck else block_fn(ws_[i:i + block], h)
        return fnp.mean(h * h)

    graph = frame.trace(lambda ws_: frame.value_and_grad(loss)(ws_), ws)
    return compile_graph(graph, rows=WHOLE), ws


def test_memory_report_peak_is_smaller_with_remat_on_a_deep_mlp():
    plain, _ = _deep_mlp_step(False, 4)
    remat, _ = _deep_mlp_step(True, 4)
    r0, r1 = memory_report(plain), memory_report(remat)
    assert isinstance(r1, MemoryReport) and r1.n_primal == 1
    assert r1.peak_bytes * 2 < r0.peak_bytes          # three saved block inputs instead of every layer's values
    assert r1.kept_bytes * 4 < r0.kept_bytes
    assert not r0.recomputed and len(r1.recomputed) >= 12 * 3   # tanh, mul, add of each layer, at least
    assert {op for _, op in r1.recomputed} >= {"matmul"}
    text = str(r1)
    for phrase in ("peak bytes alive", "kept from forward to backward", "recomputed in the backward part",
                   "count", "bytes each", "f32[256,32]"):
        assert phrase in text


def test_memory_report_peak_agrees_with_tracemalloc(monkeypatch):
    """numpy reports its allocations to tracemalloc: one call on a fresh arena allocates the arena and
    the fresh results. The report's estimate (arena + fresh results alive at once) is within 15% of
    the measured peak (numpy's small temporaries and the Python objects of the call make the rest)."""
    previous = tiers.set_native("off")   # the numpy tier's plan, and no build thread allocating meanwhile
    try:
        for ck in (False, True):
            exe, ws = _deep_mlp_step(ck, 4)
            exe(*ws)
            exe.release_buffers()
            tracemalloc.start()
            try:
                exe(*ws)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            estimate = memory_report(exe).allocated_peak_bytes
            assert 0.85 * peak <= estimate <= 1.15 * peak, (ck, estimate, peak)
    finally:
        tiers.set_native(previous["mode"], after_calls=previous["after_calls"])


def test_memory_report_of_graphs_plans_and_functions():
    params = (W, B)
    graph = frame.trace(lambda p: frame.value_and_grad(lambda q: net(q, X, ck=True))(p), params)
    r = memory_report(graph)
    assert r.tier == "numpy" and r.peak_bytes > 0 and r.recomputed
    fn = frame.function(lambda p: frame.value_and_grad(lambda q: net(q, X, ck=True))(p))
    assert memory_report(fn, params).peak_bytes > 0
    grad_only = memory_report(frame.trace(lambda p: frame.grad(lambda q: net(q, X, ck=True))(p), params))
    assert grad_only.n_primal == 0   # no loss among the outputs: the forward part ends at the peak


# -- errors ---------------------------------------------------------------------------------------------
def test_bad_arguments_raise_frame_errors_naming_them():
    with pytest.raises(TraceError, match="needs a callable"):
        checkpoint(3)
    with pytest.raises(TraceError, match="policy"):
        checkpoint(layer, policy="keep_some")
    with pytest.raises(TraceError, match="callables on primitives"):
        checkpoint(layer, policy=lambda prim, *a, **k: True)
    with pytest.raises(TraceError, match="static_argnums"):
        checkpoint(layer, static_argnums="0")
    with pytest.raises(TraceError, match="prevent_cse"):
        checkpoint(layer, prevent_cse="yes")
    with pytest.raises(TraceError, match="names must be non-empty strings"):
        checkpoint_policies.save_only_these_names("")
    with pytest.raises(TraceError, match="name must be a non-empty string"):
        checkpoint_name(X, 3)
    f = checkpoint(lambda h, k: h * k, static_argnums=(5,))
    with pytest.raises(TraceError, match="out of range"):
        frame.grad(lambda x: fnp.sum(f(x, 2.0)))(X)
    g = checkpoint(lambda h, k: h, static_argnums=(1,))
    with pytest.raises(TraceError, match="argument 1 is in static_argnums but holds a traced array"):
        frame.grad(lambda x: fnp.sum(g(x, x)))(X)
    h = checkpoint(lambda x, s: x)
    with pytest.raises(TraceError, match="argument leaf 1 is a str"):
        frame.grad(lambda x: fnp.sum(h(x, "label")))(X)
    assert issubclass(TraceError, FrameError)


def test_the_ops_refuse_bad_operands_and_attributes_by_name():
    body = frame.trace(lambda x: checkpoint(fnp.sin)(x), X).nodes[0].attrs["body"]
    with pytest.raises(ShapeError, match=r"op 'checkpoint' \(@sin\): the operands"):
        frame.trace(lambda x: bind("checkpoint", x[:2], body=body, policy="nothing_saveable"), X)
    with pytest.raises(ShapeError, match="unknown policy"):
        frame.trace(lambda x: bind("checkpoint", x, body=body, policy="some"), X)
    with pytest.raises(ShapeError, match="op 'remat_barrier'"):
        frame.trace(lambda x: bind("remat_barrier", x, region=3), X)
    with pytest.raises(InputError, match="memory_report takes"):
        memory_report(42)
    with pytest.raises(InputError, match="needs the arguments"):
        memory_report(frame.function(lambda x: x * 2))
    exe, _ = _deep_mlp_step(True, 4, depth=4, n=8, width=4)
    with pytest.raises(InputError, match="n_primal"):
        memory_report(exe, n_primal=7)


def test_a_checkpoint_traced_body_is_hashable_and_shared():
    """Equal layers give equal bodies: one VJP body is derived for all of them (memoised by text)."""
    g = frame.trace(lambda p, x: net(p, x, ck=True), (W, B), X)
    bodies = {n.attrs["body"] for n in g.nodes if n.op == "checkpoint"}
    assert len(bodies) == 1


def _region_nodes(graph):
    found = []
    for n in graph.nodes:
        if n.op == "checkpoint":
            found.append(n)
            found += _region_nodes(n.attrs["body"])   # a FusedBody is a (frozen) Graph
    return found


def test_from_jax_imports_checkpoint_names_and_jax_checkpoint_regions():
    """`name` imports as checkpoint_name; jax.checkpoint as frame's checkpoint region with its policy."""
    from frame.interop import from_jax

    f = jax.checkpoint(lambda x: jnp.sin(jax.ad_checkpoint.checkpoint_name(x * 2.0, "z")),
                       policy=jax.checkpoint_policies.save_only_these_names("z"))
    g = from_jax(f, X)
    (region,) = _region_nodes(g)
    assert region.attrs["policy"] == "save_only_these_names" and region.attrs["names"] == ("z",)
    assert [n.attrs["name"] for n in region.attrs["body"].nodes if n.op == "checkpoint_name"] == ["z"]
    np.testing.assert_allclose(compile_graph(g)(X)[0], np.asarray(f(X)), rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("policy", POLICIES)
def test_from_jax_checkpointed_mlp_has_jaxs_gradients_and_recomputes(policy):
    from frame.interop import from_jax

    params = (W, B)
    jax_policy = _jax_policy(policy)
    fn = lambda p, x: j_net(p, x, ck=True, policy=jax_policy)   # noqa: E731
    g = from_jax(fn, params, X)
    regions = _region_nodes(g)
    assert len(regions) == 4 and {r.attrs["policy"] for r in regions} == {policy.name if policy else "nothing_saveable"}
    grads = compile_graph(build_backward_graph(g, 0, list(range(8))))(*W, *B, X)[1:]
    want = jax.grad(fn)(params, X)
    for got, w in zip(grads, [*want[0], *want[1]]):
        np.testing.assert_allclose(got, np.asarray(w), rtol=1e-11, atol=1e-13)


def test_from_jax_inlines_checkpoint_policies_frame_does_not_have():
    from frame.interop import from_jax

    f = jax.checkpoint(lambda x: jnp.tanh(x @ x.T), policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    g = from_jax(f, X)
    assert not _region_nodes(g)
    np.testing.assert_allclose(compile_graph(g)(X)[0], np.asarray(f(X)), rtol=1e-14)
