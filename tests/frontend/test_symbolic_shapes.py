"""Symbolic dimensions (issue 17 item 2; seed 003 §6, Paddle's dynamic shapes): `ShapeDtype(("n", 1))` in
traces, shape rules propagating symbols, refusals naming op and symbol, `frame.function(dynamic_axes=)`
serving every size from one trace and one compile, gradients (reverse and Taylor mode) equal to those of
concretely shaped graphs, and a PINN resampled to a new collocation count every 100 steps that compiles once.
"""
from __future__ import annotations

import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import InputError, ShapeError
from frame.frontend.taylor import taylor_graph
from frame.frontend.tracer import ShapeDtype, inline_into_current, trace_function
from frame.ir.graph import Graph
from frame.ir.parser import parse_graph
from frame.ir.types import Dim, TensorType
from frame.ir.verify import verify
from frame.runtime.compile import cache_info, compile as compile_graph
from frame.tracing import prim
from frame.train import Adam
from tests.workloads import flat_mlp, flat_mlp_params

N, M = Dim.symbol("n"), Dim.symbol("m")


def sym(*shape, dtype="float64"):
    return ShapeDtype(shape, dtype)


def out_shape(fn, *examples):
    return frame.trace(fn, *examples).outputs[0].type.shape


# -- the dimension algebra -------------------------------------------------------------------------
def test_dim_arithmetic_comparisons_and_no_concrete_value():
    assert str(2 * N + 1) == "2*n+1" and str(N * M) == "m*n" and (N + N) == 2 * N
    assert (4 * N) // 2 == 2 * N and (4 * N * M).exact_div(N) == 4 * M and (N * 3).exact_div(2) is None
    assert N - N == 0 and type(N - N) is int
    assert N > 0 and N >= 1 and not N < 1 and N != 1 and N != M and hash(N) == hash(Dim.symbol("n"))
    assert Dim.parse("2*n+1") == 2 * N + 1
    with pytest.raises(ShapeError, match="depends on the value of n"):
        N > 1   # noqa: B015 - true for some sizes only
    for conversion in (int, float, lambda d: np.zeros((d,))):
        with pytest.raises(ShapeError, match="symbolic dimension n"):
            conversion(N)
    t = TensorType(("n", 1), "float32")
    assert t.shape == (N, 1) and t.is_symbolic and t.size == N and t.nbytes == 4 * N and str(t) == "f32[n,1]"


# -- printer, parser, verifier ---------------------------------------------------------------------
def test_printer_parser_round_trip_and_verify():
    w = np.linspace(-1, 1, 8).reshape(2, 4)

    def f(x, y):
        h = fnp.tanh(fnp.matmul(x, w)) * y
        return fnp.sum(h, axis=0), fnp.concatenate([h, h]), prim.reshape(h, shape=(-1, 2))

    g = frame.trace(f, sym("n", 2), sym("n", 1))
    text = str(g)
    assert "%0: f64[n,2]" in text and "f64[2*n,4]" in text and "shape=(-1, 2)" in text
    verify(g)
    again = parse_graph(text)
    verify(again)
    assert str(again) == text
    assert [v.type.shape for v in g.outputs] == [(4,), (2 * N, 4), (2 * N, 2)]


def test_parser_reads_symbolic_types_and_expressions():
    g = parse_graph("""graph @f(%0: f32[n,3], %1: f32[m,3]) {
      %2: f32[m+n,3] = concat(%0, %1) {axis=0}
      %3: f32[3*m+3*n] = reshape(%2) {shape=(3*m+3*n,)}
      return (%3)
    }""")
    assert g.outputs[0].type.shape == (3 * N + 3 * M,)
    verify(g)


# -- shape rules ----------------------------------------------------------------------------------------
def test_shape_rules_propagate_symbols():
    x, col, row = sym("n", 3), sym("n", 1), sym(1, 3)
    assert out_shape(lambda a, b: a + b, x, x) == (N, 3)
    assert out_shape(lambda a, b: a * b, col, row) == (N, 3)                  # n with 1
    assert out_shape(lambda a: fnp.matmul(a, np.ones((3, 5))), x) == (N, 5)   # matmul keeps n
    assert out_shape(lambda a, b: fnp.matmul(a.T, b), x, x) == (3, 3)         # contracts n
    assert out_shape(lambda a: fnp.sum(a, axis=0), x) == (3,)                 # a concrete shape
    assert out_shape(lambda a: fnp.sum(a, axis=1, keepdims=True), x) == (N, 1)
    assert out_shape(lambda a: prim.reshape(a, shape=(-1,)), x) == (3 * N,)   # -1 takes the product
    assert out_shape(lambda a: prim.reshape(a, shape=(N, 3, 1)), x) == (N, 3, 1)
    assert out_shape(lambda a, b: fnp.concatenate([a, b]), x, sym("m", 3)) == (N + M, 3)
    assert out_shape(lambda a: fnp.concatenate([a, a], axis=1), x) == (N, 6)
    assert out_shape(lambda a: fnp.transpose(fnp.exp(a)), x) == (3, N)
    assert out_shape(lambda a: fnp.where(a > 0, a, 0.0), x) == (N, 3)


@pytest.mark.parametrize("fn, examples, op, symbol", [
    (lambda a, b: a + b, (sym("n", 3), sym(3, 3)), "add", "n"),                 # n against 3
    (lambda a, b: a - b, (sym("n", 3), sym("m", 3)), "sub", "n"),               # two symbols
    (lambda a: prim.reshape(a, shape=(2, -1)), (sym("n", 3),), "reshape", "n"),  # 3n/2 is no polynomial
    (lambda a: fnp.matmul(a, a), (sym("n", 3),), "matmul", "n"),               # n vs 3 contracted
])
def test_refusals_name_the_op_and_the_symbol(fn, examples, op, symbol):
    with pytest.raises(ShapeError) as info:
        frame.trace(fn, *examples)
    assert f"'{op}'" in str(info.value) and symbol in str(info.value)


def test_means_and_their_gradients_read_the_count_at_run_time():
    """mean's and mse_loss's divisors are traced counts for symbolic sizes (frame.tracing.element_count)."""
    f = frame.function(frame.value_and_grad(lambda x, y: fnp.mean(x * x) + fnp.mse_loss(x, y)),
                       dynamic_axes={0: 0, 1: 0})
    rng = np.random.default_rng(4)
    for n in (3, 8):
        x, y = rng.standard_normal((n, 3)), rng.standard_normal((n, 3))
        value, grad = f(x, y)
        np.testing.assert_allclose(value, np.mean(x * x) + np.mean((x - y) ** 2), rtol=1e-13)
        np.testing.assert_allclose(grad, 2 * x / x.size + 2 * (x - y) / x.size, rtol=1e-12)
    assert f.trace_count == 1


def test_frontend_reshape_slices_and_taylor_seeds_on_symbolic_axes():
    """fnp.reshape with -1, x[1:] and its gradient, and directional_derivatives' all-ones direction."""
    f = frame.function(lambda x: (fnp.reshape(x, (-1,)), frame.grad(lambda z: fnp.sum(z[1:] ** 2))(x),
                                  frame.directional_derivatives(lambda z: fnp.sin(z), order=1)(x)[1],
                                  frame.directional_derivatives(fnp.sin, direction=np.full(1, 2.0), order=1)(x)[1]),
                       dynamic_axes={0: 0})
    for n in (2, 5):
        x = np.linspace(0.1, 0.9, n).reshape(n, 1)
        flat, g, dx, dx2 = f(x)
        np.testing.assert_allclose(dx2, 2 * np.cos(x), rtol=1e-14)   # a numpy direction, broadcast per call
        np.testing.assert_array_equal(flat, x.reshape(-1))
        np.testing.assert_allclose(g, np.concatenate([[[0.0]], 2 * x[1:]]), rtol=1e-14)
        np.testing.assert_allclose(dx, np.cos(x), rtol=1e-14)
    assert f.trace_count == 1


# -- one executable for every size -----------------------------------------------------------------------------
def test_one_executable_serves_every_size_and_checks_consistency():
    w = np.arange(6.0).reshape(3, 2) / 7
    g = frame.trace(lambda x, y: (fnp.sum(fnp.tanh(fnp.matmul(x, w)) * y, axis=0), fnp.concatenate([x, x])),
                    sym("n", 3), sym("n", 1))
    exe = compile_graph(g)
    rng = np.random.default_rng(0)
    for n in (1, 5, 17, 5):
        x, y = rng.standard_normal((n, 3)), rng.standard_normal((n, 1))
        s, c = exe(x, y)
        np.testing.assert_allclose(s, np.sum(np.tanh(x @ w) * y, axis=0), rtol=1e-13, atol=1e-15)
        np.testing.assert_array_equal(c, np.concatenate([x, x]))
        assert exe.sizes((x, y)) == {"n": n}
    with pytest.raises(InputError, match=r"input 1 .*symbolic size n = 4.*input 0 has n = 4"):
        exe(np.ones((4, 3)), np.ones((5, 1)))
    with pytest.raises(InputError, match="at least 1"):
        exe(np.ones((0, 3)), np.ones((0, 1)))
    with pytest.raises(InputError, match="input 0"):
        exe(np.ones((4, 2)), np.ones((4, 1)))          # a concrete axis still checked


def test_native_kernels_take_the_sizes_of_each_call():
    from frame.backends import native
    from frame.runtime import tiers
    if native.c_compiler() is None:
        pytest.skip("no C compiler: symbolic graphs stay on the numpy tier like every other")
    b = np.linspace(-1, 1, 4)
    g = frame.trace(lambda x, y: (x * 2.0 + b) * y - x, sym("n", 4), sym("n", 1))
    exe = compile_graph(g)
    previous = tiers.set_native("sync")
    try:
        assert exe.wait_native(timeout=120), exe.native_status
    finally:
        tiers.set_native(previous["mode"])
    assert exe.tier == "native" and "long s_n" in native.kernel_spec(
        next(n for n in exe._tier.plan.graph.nodes if n.op == "fused_elementwise_internal").attrs["body"]).c_body
    rng = np.random.default_rng(3)
    for n in (1, 6, 40, 6):
        x, y = rng.standard_normal((n, 4)), rng.standard_normal((n, 1))
        np.testing.assert_array_equal(exe(x, y)[0], (x * 2.0 + b) * y - x)   # exact ops: numpy's bits
    with pytest.raises(InputError, match="symbolic size n"):
        exe(np.ones((3, 4)), np.ones((2, 1)))


def test_concrete_graphs_generate_the_same_code():
    # No symbol, no change: the generated source of a concrete graph has no size bindings
    g = frame.trace(lambda x: fnp.sum(fnp.tanh(x) * 2.0), np.ones((4, 3)))
    assert ".shape[" not in compile_graph(g).source


# -- frame.function(dynamic_axes=...) -------------------------------------------------------------------
def test_function_dynamic_axes_traces_and_compiles_once():
    w = np.linspace(-1, 1, 6).reshape(3, 2)

    @frame.function(dynamic_axes={0: 0, "y": 0})
    def f(x, y):
        return fnp.matmul(x, w) * y

    rng = np.random.default_rng(1)
    before = cache_info().misses
    for n in (3, 8, 2, 8):
        x, y = rng.standard_normal((n, 3)), rng.standard_normal((n, 1))
        np.testing.assert_allclose(f(x, y=y), (x @ w) * y, rtol=1e-14)
    assert f.trace_count == 1 and cache_info().misses - before == 1
    assert str(f.trace(x, y=y).inputs[0].type) == "f64[n0,3]"
    with pytest.raises(InputError, match="symbolic size n0"):
        f(np.ones((3, 3)), y=np.ones((4, 1)))


def test_function_dynamic_axes_named_symbols_and_bad_arguments():
    @frame.function(dynamic_axes={0: {0: "a"}, 1: {0: "b"}})
    def f(x, y):
        return fnp.concatenate([x, y])

    np.testing.assert_array_equal(f(np.ones((2, 3)), np.zeros((5, 3))), np.concatenate([np.ones((2, 3)), np.zeros((5, 3))]))
    np.testing.assert_array_equal(f(np.ones((4, 3)), np.zeros((1, 3))), np.concatenate([np.ones((4, 3)), np.zeros((1, 3))]))
    assert f.trace_count == 1
    with pytest.raises(frame.errors.TraceError, match="out of range"):
        frame.function(lambda x: x, dynamic_axes={0: 2})(np.ones(3))
    with pytest.raises(frame.errors.TraceError, match="static"):
        frame.function(lambda x, k: x, static_argnums=1, dynamic_axes={1: 0})


# -- gradients ------------------------------------------------------------------------------------------
def _u_xx_reverse(p, x):
    u_x = frame.grad(lambda x: fnp.sum(flat_mlp(p, x)))
    return frame.grad(lambda x: fnp.sum(u_x(x)))(x)


def _u_xx_taylor(p, x):
    """u'' of the MLP at points x from one order-2 Taylor propagation along x, the direction all ones
    (made from x, so it has x's symbolic size)."""
    res = trace_function(lambda x: flat_mlp(p, x), (x,))
    outs = inline_into_current(taylor_graph(res.graph, [0], 2, [(1,)]), [x, *res.captures, x * 0.0 + 1.0])
    return outs[2]


def _pinn_loss(u_xx):
    def loss(p, x, f):
        r = -u_xx(p, x) - f
        return fnp.mean(r * r)   # its divisor is read at run time (element_count)
    return loss


@pytest.mark.parametrize("u_xx", [_u_xx_reverse, _u_xx_taylor], ids=["reverse", "taylor"])
def test_pinn_gradients_agree_with_concrete_shapes(u_xx):
    loss = _pinn_loss(u_xx)
    params = flat_mlp_params()
    symbolic = frame.function(frame.value_and_grad(loss), dynamic_axes={1: 0, 2: 0})
    rng = np.random.default_rng(2)
    for n in (9, 4):
        x = rng.uniform(-1, 1, (n, 1))
        f = np.pi ** 2 * np.sin(np.pi * x)
        value, grads = symbolic(params, x, f)
        want_value, want_grads = frame.value_and_grad(loss)(params, x, f)   # traced with concrete shapes
        # equal to rounding: the concrete graph's pipeline may order a sum or a fused product differently
        np.testing.assert_allclose(value, want_value, rtol=1e-12)
        for g, w in zip(grads, want_grads):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    assert symbolic.trace_count == 1


def test_symbolic_taylor_matches_reverse_mode():
    params = flat_mlp_params(3)
    f = frame.function(lambda p, x: (_u_xx_taylor(p, x), _u_xx_reverse(p, x)), dynamic_axes={1: 0})
    x = np.linspace(-0.9, 0.9, 11).reshape(-1, 1)
    taylor, reverse = f(params, x)
    np.testing.assert_allclose(taylor, reverse, rtol=1e-10, atol=1e-12)


# -- the demonstration: a PINN resampled to a new count every 100 steps compiles once ---------------------------
def test_pinn_resampled_every_100_steps_compiles_once():
    """Taylor-mode u'' residual, reverse-mode parameter gradients and frame.train's Adam update graph
    (concrete: it sees only parameters) inlined into one training step over symbolic collocation points."""
    loss = _pinn_loss(_u_xx_taylor)
    params = flat_mlp_params(5, width=10)
    adam = Adam(5e-3)
    update = adam.update_graph([TensorType.of(p) for p in params])

    @frame.function(dynamic_axes={2: 0, 3: 0})
    def step(params, state, x, f):
        value, grads = frame.value_and_grad(loss)(params, x, f)
        out = inline_into_current(update, [*params, *grads, *state])
        return value, grads, out[:len(params)], out[len(params):]

    rng = np.random.default_rng(4)
    state = adam.init_state(params)
    before, recorded, losses = cache_info().misses, [], []
    for count in (128, 200, 77):
        x = rng.uniform(-1, 1, (count, 1))
        f = np.pi ** 2 * np.sin(np.pi * x)
        for k in range(100):
            value, grads, new, state = step(params, state, x, f)
            if k in (0, 99):
                recorded.append((params, x, f, value, grads))
            losses.append(float(value))
            params = new
    assert step.trace_count == 1 and cache_info().misses - before == 1   # one trace, one compile, 300 steps
    assert str(step.trace(params, state, x, f).inputs[-1].type) == "f64[n0,1]"
    assert losses[99] < 0.5 * losses[0] and losses[-1] < losses[200]
    reference = frame.value_and_grad(loss)
    for params, x, f, value, grads in recorded:   # each size against its concretely shaped graph
        want_value, want_grads = reference(params, x, f)
        np.testing.assert_allclose(value, want_value, rtol=1e-12)
        for g, w in zip(grads, want_grads):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_zeros_of_a_symbolic_type_are_broadcast_scalars():
    g = Graph("z")
    x = g.add_input(TensorType(("n", 2), "float32"))
    z = g.full(x.type, 0.0)
    g.mark_output(g.add_node("add", [x, z]).output)
    assert z.node.op == "broadcast_to" and z.type == x.type
    np.testing.assert_array_equal(compile_graph(g)(np.ones((3, 2), np.float32))[0], np.ones((3, 2), np.float32))


def test_forward_mode_and_vmap_inside_a_dynamic_function():
    jvp = frame.function(lambda x, v: frame.jvp(lambda x: fnp.sin(x) * x, (x,), (v,))[1], dynamic_axes={0: 0, 1: 0})
    per_column = frame.function(lambda x: frame.vmap(lambda r: fnp.sum(r * r), in_axes=1)(x), dynamic_axes={0: 0})
    for k in (3, 6):
        x = np.linspace(0.1, 1, k)
        np.testing.assert_allclose(jvp(x, np.ones(k)), np.cos(x) * x + np.sin(x), rtol=1e-14)
        m = np.arange(3.0 * k).reshape(k, 3)
        np.testing.assert_array_equal(per_column(m), np.sum(m * m, axis=0))
    assert jvp.trace_count == 1 and per_column.trace_count == 1
    with pytest.raises(ShapeError, match="depends on the value of m, n"):
        bool(N - M)


def test_full_is_numpy_for_concrete_types_and_traced_for_symbolic_ones():
    from frame.tracing import full
    np.testing.assert_array_equal(full(TensorType((2, 3), "float32"), 1), np.ones((2, 3), np.float32))
    onehot = np.array([0.0, 1.0])
    g = frame.trace(lambda x: x * full(TensorType((x.shape[0], 2), "float64"), onehot), sym("n", 2))
    assert g.outputs[0].type.shape == (N, 2)
    np.testing.assert_array_equal(compile_graph(g)(np.full((3, 2), 5.0))[0], np.tile([0.0, 5.0], (3, 1)))
    with pytest.raises(frame.errors.TraceError, match="only while tracing"):
        full(TensorType(("n", 2), "float64"), 1.0)


def test_concat_along_symbols_and_its_gradient():
    loss = lambda x, y: fnp.sum(fnp.concatenate([x, y]) ** 2 * np.arange(1.0, 4.0))  # noqa: E731
    g = frame.trace(frame.grad(loss, argnums=(0, 1)), sym("n", 3), sym("m", 3))
    assert [v.type.shape for v in g.outputs] == [(N, 3), (M, 3)]
    exe = compile_graph(g)
    rng = np.random.default_rng(5)
    for n, m in ((2, 5), (4, 1)):
        x, y = rng.standard_normal((n, 3)), rng.standard_normal((m, 3))
        for got, want in zip(exe(x, y), frame.grad(loss, argnums=(0, 1))(x, y)):
            np.testing.assert_array_equal(got, want)


def test_concurrent_calls_with_different_sizes():
    import threading
    g = frame.trace(lambda x: fnp.tanh(x) * 2.0 + x, sym("n", 3))
    exe = compile_graph(g)
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(30):
            x = rng.standard_normal((int(rng.integers(1, 12)), 3))
            if not np.array_equal(exe(x)[0], np.tanh(x) * 2.0 + x):
                errors.append(x.shape)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
