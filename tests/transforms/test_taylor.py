"""Taylor mode (`build_taylor_graph`, `jet`, `directional_derivatives`, `laplacian`) against JAX, float64.

- `jet` against `jax.experimental.jet` on compositions of tanh, sin, exp, log, div and an MLP, orders 1-4;
- the registry matrix: every differentiable op with cases (enumerated) either gives the jet of order 3
  that nested `jax.jacfwd` of its independently lowered graph gives along the same path, or raises
  `GradientError` naming the op, and only the ops listed as refused here do (first case of each op by
  default, all under -m slow);
- directional derivatives of a 4x64 tanh MLP of a scalar input against vmapped nested `jax.grad`, and
  the derived graph's size: quadratic in the order, where frame's nested reverse mode is exponential;
- the forward Laplacian against the trace of JAX's Hessian, and the parameter gradient of a Poisson
  residual loss built on it (through `frame.grad`, inside `frame.function`);
- non-analytic ops and bad arguments: `GradientError` naming the op or the argument.
"""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import jet as jax_jet

import frame
import frame.numpy as fnp
from frame.compiler.pipeline import run_pipeline
from frame.compiler.taylor import build_taylor_graph
from frame.errors import GradientError
from frame.frontend.taylor import directional_derivatives, jet, laplacian, taylor_graph
from frame.interop import to_jax
from frame.tracing import bind
from tests.interop.test_oracle_matrix import PUBLIC_CASES

RTOL, ATOL = 1e-10, 1e-11


def assert_close(got, want, scale_tol=1e-11, what=""):
    """Equal to `scale_tol` of the reference's largest entry (high derivatives grow like k!)."""
    want = np.asarray(want)
    atol = scale_tol * max(1.0, float(np.max(np.abs(want), initial=0.0)))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=atol, err_msg=what)


def init_mlp(rng, sizes):
    return [(rng.standard_normal((a, b)) / np.sqrt(a), 0.1 * rng.standard_normal(b)) for a, b in zip(sizes, sizes[1:])]


def mlp(params, x, xp=fnp):
    h = x
    for W, b in params[:-1]:
        h = xp.tanh(h @ W + b)
    W, b = params[-1]
    return h @ W + b


# -- jet against jax.experimental.jet --------------------------------------------------------------
PARAMS = init_mlp(np.random.default_rng(0), [3, 8, 8, 3])
COMPOSITIONS = {
    "tanh": (lambda x: fnp.tanh(2.0 * x), lambda x: jnp.tanh(2.0 * x)),
    "sin_exp": (lambda x: fnp.sin(fnp.exp(x)) * x, lambda x: jnp.sin(jnp.exp(x)) * x),
    "log_div": (lambda x: fnp.log(1.5 + x) / (2.0 + fnp.cos(x)), lambda x: jnp.log(1.5 + x) / (2.0 + jnp.cos(x))),
    "sqrt_sigmoid": (lambda x: fnp.sqrt(1.0 + x * x) * frame.numpy.sigmoid(x),
                     lambda x: jnp.sqrt(1.0 + x * x) * jax.nn.sigmoid(x)),
    "mlp": (lambda x: mlp(PARAMS, x), lambda x: mlp(PARAMS, x, jnp)),
    "mlp_tanh_sum": (lambda x: fnp.sum(fnp.tanh(mlp(PARAMS, x)) ** 2, axis=1),
                     lambda x: jnp.sum(jnp.tanh(mlp(PARAMS, x, jnp)) ** 2, axis=1)),
}


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_jet_matches_jax_jet(name):
    """Orders 1-4: frame's jet of each order against the first terms of JAX's order-4 jet (the terms of
    order k do not depend on the series' higher terms)."""
    f, jf = COMPOSITIONS[name]
    rng = np.random.default_rng(len(name))
    x = rng.uniform(-0.4, 0.4, (5, 3))
    series = [rng.standard_normal(x.shape) for _ in range(4)]
    with jax.enable_x64(True):
        want_primal, want = jax_jet.jet(jf, (x,), (series,))
    for order in (1, 2, 3, 4):
        primal, out = jet(f, (x,), (series[:order],))
        assert_close(primal, want_primal, what=f"{name}: primal")
        assert len(out) == order
        for k, (g, w) in enumerate(zip(out, want)):
            assert_close(g, w, what=f"{name}, order {order}: term {k + 1}")


def test_jet_without_factorial_scaling_matches_jax():
    x = np.array([0.2, 0.5])
    series = [np.array([1.0, -0.5]), np.array([0.3, 0.2]), np.array([0.1, 0.4])]
    f = lambda x: fnp.exp(fnp.sin(x)) / (1.0 + x)  # noqa: E731
    _, got = jet(f, (x,), (series,), factorial_scaled=False)
    with jax.enable_x64(True):
        _, want = jax_jet.jet(lambda x: jnp.exp(jnp.sin(x)) / (1.0 + x), (x,), (series,), factorial_scaled=False)
    for g, w in zip(got, want):
        assert_close(g, w)


def test_jet_several_primals_pytrees_and_zero_terms():
    """Two primals (one a dict), a tuple output; zero terms are dropped from the graph, not from the maths."""
    rng = np.random.default_rng(1)
    x, y = rng.uniform(0.5, 1.0, (4,)), {"a": rng.uniform(0.5, 1.0, (4,)), "b": rng.uniform(0.5, 1.0, (4,))}
    sx = [rng.standard_normal(4), np.zeros(4), rng.standard_normal(4)]
    sy = [{"a": rng.standard_normal(4), "b": np.zeros(4)}, {"a": np.zeros(4), "b": rng.standard_normal(4)},
          {"a": np.zeros(4), "b": np.zeros(4)}]

    def f(x, y):
        return fnp.exp(x) * y["a"] / y["b"], fnp.sum(fnp.sin(x * y["b"]))

    def jf(x, a, b):   # JAX's jet takes array primals only: the dict's leaves are its own primals there
        return jnp.exp(x) * a / b, jnp.sum(jnp.sin(x * b))

    (p0, p1), (s0, s1) = jet(f, (x, y), (sx, sy))
    with jax.enable_x64(True):
        (w0, w1), (v0, v1) = jax_jet.jet(jf, (x, y["a"], y["b"]), (sx, [t["a"] for t in sy], [t["b"] for t in sy]))
    assert_close(p0, w0)
    assert_close(p1, w1)
    for g, w in zip(s0 + s1, list(v0) + list(v1)):
        assert_close(g, w)


# -- the registry matrix ---------------------------------------------------------------------------
# Ops whose Taylor mode is refused, with the op the message names (by op name: every case of theirs).
REFUSED = {
    # not analytic: piecewise constant, or a derivative through sign or a comparison-driven where
    "abs": "abs", "fabs": "fabs", "relu": "relu", "sign": "sign", "floor": "floor", "ceil": "ceil",
    "trunc": "trunc", "rint": "rint", "floor_divide": "floor_divide", "mod": "mod", "fmod": "fmod",
    "maximum": "maximum", "minimum": "minimum", "angle": "angle",
    "i0e": "i0e", "i1e": "i1e",   # the exp(-|x|) scaling: not analytic at 0
    # analytic, but their derivative rules guard a special point with a comparison-driven where
    "sinc": "sinc", "power": "power", "spence": "spence",
    # no Taylor rule: reductions that choose, products, linear algebra, fused losses
    "max": "max", "min": "min", "max_pool": "max_pool", "prod": "prod", "cumprod": "cumprod", "logsumexp": "logsumexp",
    "mse_loss": "mse_loss", "scatter": "scatter",
    **{op: op for op in ("cholesky", "det", "eigh", "inv", "lstsq", "lu", "qr", "slogdet", "solve", "svd",
                         "triangular_solve")},
}
FIRST_CASES = {c.op: c for c in reversed(PUBLIC_CASES)}


def _matrix_params():
    first = {id(c) for c in FIRST_CASES.values()}
    return [pytest.param(c, id=c.id, marks=() if id(c) in first else pytest.mark.slow) for c in PUBLIC_CASES]


def check_taylor_case(case, K=3):
    rng = np.random.default_rng(3)
    inputs = case.make_inputs(rng, "float64")
    wrt = list(case.wrt)
    series = [[rng.standard_normal(np.shape(inputs[i])) for _ in range(K)] for i in wrt]

    def op(*xs):
        full = list(inputs)
        for i, x in zip(wrt, xs):
            full[i] = x
        out = bind(case.op, *full, **case.attrs)
        return [o for o in (out if isinstance(out, tuple) else (out,)) if o.dtype.kind == "f"]

    if case.op in REFUSED:
        with pytest.raises(GradientError, match=f"op '{REFUSED[case.op]}'"):
            jet(op, tuple(inputs[i] for i in wrt), tuple(series))
        return
    primal, out = jet(op, tuple(inputs[i] for i in wrt), tuple(series))
    with jax.enable_x64(True):
        lowered = to_jax(frame.trace(lambda *xs: bind(case.op, *xs, **case.attrs), *inputs))

        def path(t):
            full = list(inputs)
            for i, s in zip(wrt, series):
                full[i] = inputs[i] + sum(s[k] * t ** (k + 1) / math.factorial(k + 1) for k in range(K))
            return [o for o in lowered(*full) if jnp.issubdtype(o.dtype, jnp.floating)]

        derivatives = [path]
        for _ in range(K):
            derivatives.append(jax.jacfwd(derivatives[-1]))
        want = jax.jit(lambda t: [d(t) for d in derivatives[1:]])(0.0)
    for k in range(K):
        for o, (got, w) in enumerate(zip([s[k] for s in out], want[k])):
            assert_close(got, w, scale_tol=1e-9, what=f"{case.id}: output {o}, term {k + 1}")


@pytest.mark.parametrize("case", _matrix_params())
def test_every_differentiable_op_has_a_taylor_series_or_is_refused_by_name(case):
    check_taylor_case(case)


def test_the_matrix_enumerates_the_registry():
    assert {"tanh", "matmul", "div", "exp", "sum", "where", "gather", "rfft"} <= set(FIRST_CASES)
    assert set(REFUSED) <= set(FIRST_CASES), "a refused op without a case is not checked"


# -- directional derivatives of the PINN MLP ---------------------------------------------------------
MLP_PARAMS = init_mlp(np.random.default_rng(2), [1, 64, 64, 64, 64, 1])


def _jax_nested(order, x):
    def u(xs):
        return mlp(MLP_PARAMS, xs.reshape(1, 1), jnp)[0, 0]

    fs = [u]
    for _ in range(order):
        fs.append(jax.grad(fs[-1]))
    with jax.enable_x64(True):
        return jax.jit(lambda x: [jax.vmap(f)(x) for f in fs])(x[:, 0])


@pytest.mark.parametrize("order", [4, pytest.param(6, marks=pytest.mark.slow)])
def test_directional_derivatives_of_a_tanh_mlp_match_nested_jax_grad(order):
    x = np.random.default_rng(5).uniform(-1.0, 1.0, (32, 1))
    got = directional_derivatives(lambda x, p: mlp(p, x), order=order)(x, MLP_PARAMS)
    want = _jax_nested(order, x)
    assert len(got) == order + 1
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == (32, 1)
        assert_close(g[:, 0], w, what=f"D^{k} u")


def test_directional_derivative_along_a_vector_of_a_pointwise_function_of_rows():
    params = init_mlp(np.random.default_rng(6), [3, 16, 16, 1])
    x = np.random.default_rng(7).uniform(-1.0, 1.0, (6, 3))
    v = np.array([0.5, -1.0, 2.0])
    got = directional_derivatives(lambda x: mlp(params, x), direction=v, order=3)(x)

    def line(t, row):
        return mlp(params, (row + t * v).reshape(1, 3), jnp)[0, 0]

    with jax.enable_x64(True):
        fs = [line]
        for _ in range(3):
            fs.append(jax.grad(fs[-1]))
        want = jax.jit(lambda x: [jax.vmap(lambda r, f=f: f(0.0, r))(x) for f in fs])(x)
    for g, w in zip(got, want):
        assert_close(g[:, 0], w)


def test_taylor_graph_grows_quadratically_where_nested_reverse_grows_exponentially():
    x = np.zeros((16, 1))
    forward = frame.trace(lambda x, p: mlp(p, x), x, MLP_PARAMS)
    sizes = [len(run_pipeline(taylor_graph(forward, [0], k, [(1,)])).nodes) for k in range(1, 9)]
    raw = [len(taylor_graph(forward, [0], k, [(1,)]).nodes) for k in range(1, 9)]
    # Least squares of degree 2 fits the raw sizes to 2% of the largest, and doubling the order at most
    # quadruples the size, raw or optimised (a quadratic's bound; nested reverse mode multiplies it every order).
    ks = np.arange(1, 9)
    fit = np.polyval(np.polyfit(ks, raw, 2), ks)
    assert np.max(np.abs(fit - raw)) <= 0.02 * raw[-1], (raw, fit)
    assert all(raw[2 * k - 1] <= 4.2 * raw[k - 1] for k in (2, 3, 4)), raw
    assert all(sizes[2 * k - 1] <= 4.2 * sizes[k - 1] for k in (2, 3, 4)), sizes

    def u(x, p):
        return fnp.sum(mlp(p, x))

    nested = [u]
    reverse = []
    for k in range(1, 6):
        prev = nested[-1]
        nested.append(lambda x, p, prev=prev: fnp.sum(frame.grad(prev)(x, p)))
        reverse.append(len(frame.trace(nested[-1], x, MLP_PARAMS).nodes))
    ratios = [b / a for a, b in zip(reverse, reverse[1:])]
    assert min(ratios) > 1.5, reverse   # exponential: every order multiplies the size
    assert raw[4] < reverse[4], (raw, reverse)


# -- the forward Laplacian ----------------------------------------------------------------------------
def _jax_laplacian(params, x):
    def u(row):
        return mlp(params, row.reshape(1, -1), jnp)[0, 0]

    return jax.vmap(lambda row: jnp.trace(jax.hessian(u)(row)))(x)


@pytest.mark.parametrize("d", [2, 3])
def test_laplacian_of_an_mlp_matches_the_trace_of_the_jax_hessian(d):
    params = init_mlp(np.random.default_rng(d), [d, 32, 32, 1])
    x = np.random.default_rng(10 + d).uniform(-1.0, 1.0, (20, d))
    u, lap = laplacian(lambda x, p: mlp(p, x))(x, params)
    with jax.enable_x64(True):
        want = jax.jit(_jax_laplacian)(params, x)
    assert_close(u, mlp(params, x, np))
    assert lap.shape == (20, 1)
    assert_close(lap[:, 0], want)


def test_laplacian_over_several_coordinate_arguments():
    """u(x, params, y) with x and y (N, 1): argnums=(0, 2) sums over both, as the one-array form does."""
    params = init_mlp(np.random.default_rng(4), [2, 16, 16, 1])
    rng = np.random.default_rng(9)
    x, y = rng.uniform(-1.0, 1.0, (7, 1)), rng.uniform(-1.0, 1.0, (7, 1))

    def u(x, p, y):
        return mlp(p, fnp.concatenate([x, y], axis=1))

    value, lap = laplacian(u, argnums=(0, 2))(x, params, y)
    with jax.enable_x64(True):
        want = jax.jit(_jax_laplacian)(params, np.concatenate([x, y], axis=1))
    assert_close(value, mlp(params, np.concatenate([x, y], axis=1), np))
    assert_close(lap[:, 0], want)
    with pytest.raises(GradientError, match="equal shapes but for the last axis"):
        laplacian(u, argnums=(0, 2))(x, params, y[:3])


def test_laplacian_is_one_collapsed_propagation():
    """One primal pass: the derived graph holds the MLP's tanh nodes once, and about d first-order and one
    second-order matmul per layer, not d second-order propagations."""
    d = 3
    params = init_mlp(np.random.default_rng(0), [d, 16, 16, 1])
    forward = frame.trace(lambda x, p: mlp(p, x), np.zeros((4, d)), params)
    graph = taylor_graph(forward, [0], 2, [(1,)], directions=d)
    ops = [n.op for n in graph.nodes]
    assert ops.count("tanh") == 2
    assert ops.count("matmul") <= 3 * (d + 2)
    assert len(graph.outputs) == 1 + d + 1


def test_collapsed_mode_sums_the_top_order_over_the_directions():
    """directions=d at order 3: the summed third term equals the sum of d separate jets' third terms."""
    rng = np.random.default_rng(8)
    x = rng.uniform(-0.5, 0.5, (5, 2))
    vs = [rng.standard_normal(x.shape) for _ in range(2)]

    def f(x):
        return fnp.tanh(fnp.sin(x) @ np.array([[1.0, 0.5], [0.3, -0.7]])) / (2.0 + x)

    forward = frame.trace(f, x)
    out = frame.runtime.compile(build_taylor_graph(forward, [0], 3, [(1,)], directions=2))(x, *vs)
    singles = [jet(f, (x,), ([v, np.zeros_like(x), np.zeros_like(x)],))[1] for v in vs]
    # outputs: primal, order 1 per direction (2), order 2 per direction (2), order 3 summed (1)
    assert len(out) == 6
    for i in range(2):
        assert_close(out[1 + i], singles[i][0])
        assert_close(out[3 + i], singles[i][1])
    assert_close(out[5], singles[0][2] + singles[1][2])


def poisson_loss(params, x, f_rhs):
    u, lap = laplacian(lambda x: mlp(params, x))(x)
    return fnp.mean((lap - f_rhs) ** 2) + 0.1 * fnp.mean(u ** 2)


def test_parameter_gradient_of_a_laplacian_loss_matches_jax():
    params = init_mlp(np.random.default_rng(12), [2, 16, 16, 1])
    x = np.random.default_rng(13).uniform(-1.0, 1.0, (24, 2))
    f_rhs = np.sin(x[:, :1]) * np.cos(x[:, 1:])
    grads = frame.grad(poisson_loss)(params, x, f_rhs)
    compiled = frame.function(frame.value_and_grad(poisson_loss))(params, x, f_rhs)

    def jloss(params):
        lap = _jax_laplacian(params, x)[:, None]
        u = mlp(params, x, jnp)
        return jnp.mean((lap - f_rhs) ** 2) + 0.1 * jnp.mean(u ** 2)

    with jax.enable_x64(True):
        value, want = jax.jit(jax.value_and_grad(jloss))(params)
    assert_close(compiled[0], value)
    for got_layer, cg, want_layer in zip(grads, compiled[1], want):
        for g, c, w in zip(got_layer, cg, want_layer):
            assert_close(g, w)
            assert_close(c, w)


def test_directional_derivatives_nest_with_grad_and_jit():
    params = init_mlp(np.random.default_rng(14), [1, 16, 16, 1])
    x = np.random.default_rng(15).uniform(-1.0, 1.0, (10, 1))

    def kdv_like(params):
        u, ux, uxx, uxxx = directional_derivatives(lambda x: mlp(params, x), order=3)(x)
        return fnp.mean((uxxx + 6.0 * u * ux) ** 2)

    got = frame.function(frame.grad(kdv_like))(params)

    def jloss(params):
        def u(xs):
            return mlp(params, xs.reshape(1, 1), jnp)[0, 0]
        d1, d3 = jax.grad(u), jax.grad(jax.grad(jax.grad(u)))
        xs = x[:, 0]
        return jnp.mean((jax.vmap(d3)(xs) + 6.0 * jax.vmap(u)(xs) * jax.vmap(d1)(xs)) ** 2)

    with jax.enable_x64(True):
        want = jax.jit(jax.grad(jloss))(params)
    for got_layer, want_layer in zip(got, want):
        for g, w in zip(got_layer, want_layer):
            assert_close(g, w)


# -- refusals and bad arguments --------------------------------------------------------------------------
@pytest.mark.parametrize("fn, op", [
    (fnp.abs, "abs"), (lambda x: frame.numpy.relu(x), "relu"), (fnp.sign, "sign"), (fnp.floor, "floor"),
    (lambda x: fnp.maximum(x, 0.1), "maximum"), (lambda x: fnp.where(x > 0.0, x, 2.0 * x), "where"),
    (lambda x: fnp.sin(x) * fnp.asarray(x > 0.0, dtype="float64"), "convert"),
])
def test_non_analytic_ops_raise_naming_the_op(fn, op):
    x = np.array([0.3, -0.7, 1.2])
    with pytest.raises(GradientError, match=f"op '{op}'.*not analytic"):
        jet(fn, (x,), ([np.ones(3), np.ones(3)],))


def test_where_on_a_fixed_condition_and_stop_gradient_are_fine():
    x = np.array([0.3, -0.7, 1.2])
    mask = np.array([True, False, True])
    f = lambda x: fnp.where(mask, fnp.sin(x), x * x) + x * frame.stop_gradient(x)  # noqa: E731
    jf = lambda x: jnp.where(mask, jnp.sin(x), x * x) + x * jax.lax.stop_gradient(x)  # noqa: E731
    series = [np.ones(3), np.full(3, 0.5)]
    _, got = jet(f, (x,), (series,))
    with jax.enable_x64(True):
        _, want = jax_jet.jet(jf, (x,), (series,))
    for g, w in zip(got, want):
        assert_close(g, w)


def test_bad_arguments_raise_clear_errors():
    x = np.ones(3)
    with pytest.raises(GradientError, match="1 primal.*2 series"):
        jet(fnp.sin, (x,), ([x], [x]))
    with pytest.raises(GradientError, match="same number of terms"):
        jet(lambda a, b: a * b, (x, x), ([x], [x, x]))
    with pytest.raises(GradientError, match=r"series\[0\]\[1\] must have the primal's shape \(3,\)"):
        jet(fnp.sin, (x,), ([x, np.ones(4)],))
    with pytest.raises(GradientError, match="at least one term"):
        jet(fnp.sin, (x,), ([],))
    with pytest.raises(GradientError, match="must be float"):
        jet(lambda i: i * 1.0, (np.arange(3),), ([np.arange(3)],))
    with pytest.raises(GradientError, match="order must be a positive int"):
        directional_derivatives(fnp.sin, order=0)
    with pytest.raises(GradientError, match="pass direction="):
        directional_derivatives(fnp.sin)(np.ones((4, 2)))
    with pytest.raises(GradientError, match="does not broadcast"):
        directional_derivatives(fnp.sin, direction=np.ones(3))(np.ones((4, 2)))
    with pytest.raises(GradientError, match="argnums"):
        laplacian(fnp.sin, argnums=(0, 1))(np.ones((4, 2)))
    with pytest.raises(GradientError, match="scalar"):
        laplacian(fnp.sin)(np.float64(1.0))
    forward = frame.trace(fnp.sin, x)
    with pytest.raises(GradientError, match="out of range"):
        build_taylor_graph(forward, [1], 2)
    with pytest.raises(GradientError, match="input_orders"):
        build_taylor_graph(forward, [0], 2, input_orders=[(3,)])


def test_taylor_mode_composes_with_the_other_transforms():
    """jet of a gradient, the gradient and jvp of a jet's term, jet of a jet, vmap of directional derivatives."""
    x = np.array([0.3, -0.7, 1.2])
    s = [np.array([1.0, 0.5, 2.0]), np.array([0.1, 0.2, 0.3]), np.array([0.4, -0.2, 0.1])]

    def f(x, xp):
        return xp.sum(xp.tanh(x) ** 2 * xp.sin(x))

    def references(x):
        return (jax_jet.jet(jax.grad(lambda x: f(x, jnp)), (x,), (s,))[1],
                jax.grad(lambda x: jnp.sum(jax_jet.jet(jnp.tanh, (x,), (s,))[1][2]))(x),
                jax.jvp(lambda x: jax_jet.jet(jnp.tanh, (x,), (s,))[1][1], (x,), (np.ones(3),))[1],
                jax_jet.jet(lambda x: jax_jet.jet(jnp.sin, (x,), ([jnp.cos(x)],))[1][0], (x,), (s,))[1],
                jax.vmap(jax.grad(jax.grad(jax.grad(jnp.tanh))))(x))

    with jax.enable_x64(True):
        want_jet_grad, want_grad_jet, want_jvp_jet, want_jet_jet, want_vmap = jax.jit(references)(x)
    for g, w in zip(jet(frame.grad(lambda x: f(x, fnp)), (x,), (s,))[1], want_jet_grad):
        assert_close(g, w)
    assert_close(frame.grad(lambda x: fnp.sum(jet(fnp.tanh, (x,), (s,))[1][2]))(x), want_grad_jet)
    assert_close(frame.jvp(lambda x: jet(fnp.tanh, (x,), (s,))[1][1], (x,), (np.ones(3),))[1], want_jvp_jet)
    inner = lambda x: jet(fnp.sin, (x,), ([fnp.cos(x)],))[1][0]  # noqa: E731
    for g, w in zip(jet(inner, (x,), (s,))[1], want_jet_jet):
        assert_close(g, w)
    assert_close(frame.vmap(lambda x: directional_derivatives(fnp.tanh, order=3)(x)[3])(x), want_vmap)


def test_a_traced_direction_is_differentiable():
    """d/dv of D_v^2 u = 2 H v: the direction itself may be a traced (differentiated) value."""
    x = np.array([[0.3, -0.4]])
    v = np.array([0.7, 0.2])
    u = lambda x: fnp.sin(x[:, :1] * x[:, 1:]) + x[:, :1] ** 3  # noqa: E731
    got = frame.grad(lambda v: fnp.sum(directional_derivatives(u, direction=v, order=2)(x)[2]))(v)
    with jax.enable_x64(True):
        want = jax.jit(lambda r: 2.0 * jax.hessian(lambda r: jnp.sin(r[0] * r[1]) + r[0] ** 3)(r) @ v)(x[0])
    assert_close(got, want)
