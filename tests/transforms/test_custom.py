"""frame.custom_vjp / frame.custom_jvp (issue 15, item 4) against JAX's jax.custom_vjp / jax.custom_jvp
with the same rules written in jnp: values, gradients of orders 1 and 2, forward mode, vmap, under
frame.function, the text form of graphs holding the ops, and the errors of bad rules."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import GradientError, TraceError
from frame.frontend.batching import vmap
from frame.frontend.custom import custom_jvp, custom_vjp
from frame.interop import check_derivatives, to_jax
from frame.ir import parse_graph, print_graph, verify
from frame.ops import custom as custom_ops
from frame.runtime import compile as compile_graph
from tests.transforms.custom_functions import hypot_and_ratio, log1pexp, sin_times, two_outputs

pytestmark = pytest.mark.usefixtures("jax_x64")   # x64 for this module only (tests/conftest.py)

RNG = np.random.default_rng(0)
X = RNG.uniform(-1.0, 1.0, (3, 4))
Y = RNG.uniform(-1.0, 1.0, (4,))


def assert_close(a, b, tol=1e-12):
    """Every leaf of `a` equals the matching leaf of `b` to `tol`; both have the same number of leaves."""
    a, b = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(a) == len(b), f"{len(a)} leaves against {len(b)}"
    for u, v in zip(a, b):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=tol, atol=tol)


# -- the same functions and rules in JAX ------------------------------------------------------------
@jax.custom_vjp
def j_sin_times(x, y):
    return jnp.sin(x) * y


j_sin_times.defvjp(lambda x, y: (j_sin_times(x, y), (jnp.cos(x), jnp.sin(x), y)),
                   lambda res, g: (res[0] * g * res[2], jnp.sum(res[1] * g, axis=0)))


@jax.custom_jvp
def j_log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@j_log1pexp.defjvp
def j_log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return j_log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))


@jax.custom_vjp
def j_two_outputs(x):
    return {"e": jnp.exp(x), "s": jnp.sum(x * x)}


j_two_outputs.defvjp(lambda x: (j_two_outputs(x), (jnp.exp(x), x)),
                     lambda res, g: (res[0] * g["e"] + 2.0 * res[1] * g["s"],))


@jax.custom_jvp
def j_hypot_and_ratio(x, y):
    return jnp.sqrt(x * x + y * y), x / y


@j_hypot_and_ratio.defjvp
def j_hypot_and_ratio_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    r = jnp.sqrt(x * x + y * y)
    return (r, x / y), ((x * tx + y * ty) / r, tx / y - x * ty / (y * y))


def _scalarise(fn, sum_fn, weights):
    """A scalar objective of a function with any pytree of outputs: sum(out_i * w_i)."""
    def objective(*args):
        leaves = (jax.tree_util.tree_leaves if sum_fn is jnp.sum else frame.tree_leaves)(fn(*args))
        total = 0.0
        for leaf, w in zip(leaves, weights):
            total = total + sum_fn(leaf * w)
        return total
    return objective


POS = RNG.uniform(0.5, 2.0, (3, 4))
PAIRS = [   # (frame function, JAX function, arguments, argnums)
    pytest.param(sin_times, j_sin_times, (X, Y), (0, 1), id="sin_times"),
    pytest.param(log1pexp, j_log1pexp, (3.0 * X,), (0,), id="log1pexp"),
    pytest.param(two_outputs, j_two_outputs, (X,), (0,), id="two_outputs"),
    pytest.param(hypot_and_ratio, j_hypot_and_ratio, (POS, POS[::-1]), (0, 1), id="hypot_and_ratio"),
]


def _weights(fn, args):
    return [RNG.uniform(0.5, 1.5, np.shape(leaf)) for leaf in jax.tree_util.tree_leaves(fn(*args))]


@pytest.mark.parametrize("f, jf, args, argnums", PAIRS)
def test_values_and_gradients_of_orders_1_and_2_match_jax(f, jf, args, argnums):
    assert_close(f(*args), jf(*args))                                             # eager
    assert_close(frame.function(f)(*args), jf(*args))                             # compiled
    w = _weights(jf, args)
    obj, j_obj = _scalarise(f, fnp.sum, w), _scalarise(jf, jnp.sum, w)
    assert_close(frame.grad(obj, argnums)(*args), jax.grad(j_obj, argnums)(*args))
    # second order: the gradient of <grad, v>, differentiating the user's rules again
    v = [RNG.uniform(-1.0, 1.0, np.shape(args[i])) for i in argnums]

    def contracted(obj, sum_fn, grad):
        return lambda *a: sum(sum_fn(g * d) for g, d in zip(grad(obj, argnums)(*a), v))

    assert_close(frame.grad(contracted(obj, fnp.sum, frame.grad), argnums)(*args),
          jax.grad(contracted(j_obj, jnp.sum, jax.grad), argnums)(*args))


@pytest.mark.parametrize("f, jf, args, argnums", PAIRS)
def test_vjp_matches_jax(f, jf, args, argnums):
    out, f_vjp = frame.vjp(f, *args)
    j_out, j_vjp = jax.vjp(jf, *args)
    assert_close(out, j_out)
    ct = jax.tree_util.tree_map(lambda o: RNG.uniform(-1.0, 1.0, np.shape(o)), j_out)
    assert_close(f_vjp(ct), j_vjp(ct))


@pytest.mark.parametrize("f, jf, args, argnums", PAIRS)
def test_frames_oracle_agrees_on_the_lowered_custom_rules(f, jf, args, argnums):
    """check_derivatives lowers the graph (jax.custom_vjp/custom_jvp over the lowered bodies and rules):
    frame's first and second derivatives, and its derived graphs lowered, agree with JAX's."""
    report = check_derivatives(f, *args, argnums=argnums, orders=(1, 2))
    assert {(1, "gradient"), (1, "lowered derived graph"), (2, "lowered derived graph")} <= \
        {(e.order, e.check) for e in report.entries}


def test_the_custom_rule_is_used_not_the_derivative_of_the_body():
    """JAX's clip_gradient example: the identity whose cotangent is clipped; lo and hi are arguments
    with None cotangents."""
    @custom_vjp
    def clip_gradient(lo, hi, x):
        return x

    clip_gradient.defvjp(lambda lo, hi, x: (x, (lo, hi)),
                         lambda res, g: (None, None, fnp.clip(g, res[0], res[1])))

    @jax.custom_vjp
    def j_clip_gradient(lo, hi, x):
        return x

    j_clip_gradient.defvjp(lambda lo, hi, x: (x, (lo, hi)), lambda res, g: (None, None, jnp.clip(g, res[0], res[1])))
    x, w = np.array([0.3, -2.0, 1.5]), np.array([0.1, -3.0, 2.0])
    got = frame.grad(lambda x: fnp.sum(clip_gradient(-1.0, 1.0, x) * w))(x)
    np.testing.assert_array_equal(got, [0.1, -1.0, 1.0])
    assert_close(got, jax.grad(lambda x: jnp.sum(j_clip_gradient(-1.0, 1.0, x) * w))(x))
    # lo and hi as traced arguments: their cotangents are zeros (None), x's is clipped
    g_lo, g_x = frame.grad(lambda lo, x: fnp.sum(clip_gradient(lo, 1.0, x) * w), argnums=(0, 1))(-1.0, x)
    assert g_lo == 0.0
    np.testing.assert_array_equal(g_x, [0.1, -1.0, 1.0])


def test_nondiff_argnums_pass_static_values_to_the_function_and_rules():
    @functools.partial(custom_vjp, nondiff_argnums=(0,))
    def scaled_sin(k, x):
        return fnp.sin(k * x)

    scaled_sin.defvjp(lambda k, x: (scaled_sin(k, x), fnp.cos(k * x)), lambda k, c, g: (k * c * g,))

    @functools.partial(custom_jvp, nondiff_argnums=(1,))
    def power(x, n):
        return x ** n

    power.defjvp(lambda n, primals, tangents: (power(primals[0], n), n * primals[0] ** (n - 1) * tangents[0]))
    x = np.array([0.2, 0.7])
    assert_close(frame.grad(lambda x: fnp.sum(scaled_sin(3.0, x)))(x), 3.0 * np.cos(3.0 * x))
    assert_close(frame.grad(lambda x: fnp.sum(frame.grad(lambda u: fnp.sum(scaled_sin(3.0, u)))(x)))(x), -9.0 * np.sin(3.0 * x))
    assert_close(frame.grad(lambda x: fnp.sum(power(x, 3)))(x), 3 * x ** 2)
    with pytest.raises(TraceError, match="nondiff_argnums.*traced"):
        frame.grad(lambda k: fnp.sum(scaled_sin(k, x)))(2.0)


def test_log1pexp_gradient_is_stable_where_the_naive_one_is_nan():
    """JAX's custom_jvp example: in float32 the naive derivative of log(1 + exp(x)) at x = 100 is
    inf / inf = nan (exp overflows); the rule's 1 - 1 / (1 + exp(x)) is 1."""
    x = np.float32(100.0)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = frame.grad(lambda x: fnp.log(1.0 + fnp.exp(x)))(x)
        stable = frame.grad(log1pexp)(x)
    assert np.isnan(naive)
    assert stable == 1.0 == jax.grad(j_log1pexp)(x) and stable.dtype == np.float32
    s = 1.0 / (1.0 + np.exp(-0.5))     # orders 2 and 3: sigmoid' = s (1 - s), sigmoid'' = s (1 - s) (1 - 2 s)
    assert_close(frame.grad(frame.grad(log1pexp))(np.float64(0.5)), s * (1.0 - s))
    assert_close(frame.grad(frame.grad(frame.grad(log1pexp)))(np.float64(0.5)), s * (1.0 - s) * (1.0 - 2.0 * s))


def test_forward_mode_uses_the_custom_jvp_rule_and_refuses_custom_vjp():
    assert_close(frame.jvp(log1pexp, (3.0 * X,), (Y * np.ones((3, 4)),)),
          jax.jvp(j_log1pexp, (3.0 * X,), (Y * np.ones((3, 4)),)))
    assert_close(frame.jvp(hypot_and_ratio, (POS, POS.T.reshape(3, 4)), (X, X[::-1])),
          jax.jvp(j_hypot_and_ratio, (POS, POS.T.reshape(3, 4)), (X, X[::-1])))
    # forward over reverse and reverse over forward through the user's rule
    assert_close(frame.jvp(frame.grad(log1pexp), (np.float64(0.3),), (np.float64(1.0),)),
          jax.jvp(jax.grad(j_log1pexp), (0.3,), (1.0,)))
    assert_close(frame.grad(lambda x: frame.jvp(log1pexp, (x,), (np.float64(2.0),))[1])(np.float64(0.3)),
          jax.grad(lambda x: jax.jvp(j_log1pexp, (x,), (2.0,))[1])(0.3))
    sigmoid = 1.0 / (1.0 + np.exp(-X[0]))     # the Hessian of sum(log1pexp(x)) is diag(sigmoid'(x))
    assert_close(frame.hessian(lambda x: fnp.sum(log1pexp(x)))(X[0]), np.diag(sigmoid * (1.0 - sigmoid)))

    @custom_jvp
    def f(x):            # a rule that is not the body's derivative shows it is the one used
        return x

    f.defjvp(lambda p, t: (p[0], 2.0 * t[0]))
    assert frame.jvp(f, (np.float64(1.0),), (np.float64(1.0),))[1] == 2.0
    assert frame.grad(f)(np.float64(1.0)) == 2.0     # the transpose of t -> 2 t
    with pytest.raises(GradientError, match="custom_vjp_call.*forward-mode.*custom_jvp"):
        frame.jvp(sin_times, (X, Y), (X, Y))


def test_forward_over_reverse_of_custom_vjp_matches_jax():
    """JAX's hessian of a custom_vjp function (forward over reverse) differentiates fwd and bwd as
    ordinary functions; frame's does the same, as long as forward mode skips the dead primal node."""
    @custom_vjp
    def f(x):
        return fnp.sum(fnp.sin(x))

    f.defvjp(lambda x: (fnp.sum(fnp.sin(x)), fnp.cos(x)), lambda c, g: (3.0 * c * g,))

    @jax.custom_vjp
    def jf(x):
        return jnp.sum(jnp.sin(x))

    jf.defvjp(lambda x: (jnp.sum(jnp.sin(x)), jnp.cos(x)), lambda c, g: (3.0 * c * g,))
    x = np.array([0.3, 0.5, -1.0])
    assert_close(frame.hessian(f)(x), jax.hessian(jf)(x))
    assert_close(frame.jvp(frame.grad(f), (x,), (Y[:3],)), jax.jvp(jax.grad(jf), (x,), (Y[:3],)))


def test_vmap_keeps_the_rules():
    xs = RNG.uniform(-1.0, 1.0, (5, 4))
    assert_close(vmap(lambda x: sin_times(x[None], Y))(xs), np.sin(xs)[:, None] * Y)
    assert_close(vmap(frame.grad(lambda x: fnp.sum(log1pexp(x))))(xs), 1.0 / (1.0 + np.exp(-xs)))
    per_example = vmap(frame.grad(lambda y, x: fnp.sum(sin_times(x[None], y))), in_axes=(None, 0))(Y, xs)
    assert_close(per_example, jax.vmap(jax.grad(lambda y, x: jnp.sum(j_sin_times(x[None], y))), in_axes=(None, 0))(Y, xs))
    assert_close(frame.grad(lambda y: fnp.sum(vmap(lambda x: sin_times(x[None], y))(xs)))(Y), np.sum(np.sin(xs), axis=0))

    @custom_vjp
    def tripled_gradient(x):   # the batched function keeps the rule: its gradient is 3, not 1
        return x

    tripled_gradient.defvjp(lambda x: (x, None), lambda res, g: (3.0 * g,))
    np.testing.assert_array_equal(frame.grad(lambda x: fnp.sum(vmap(tripled_gradient)(x)))(xs), np.full(xs.shape, 3.0))


def test_under_frame_function_the_op_is_decomposed_and_fwd_merges_with_the_body():
    step = frame.function(lambda x, y: frame.grad(lambda a, b: fnp.sum(sin_times(a, b)), argnums=(0, 1))(x, y))
    assert_close(step(X, Y), jax.grad(lambda a, b: jnp.sum(j_sin_times(a, b)), argnums=(0, 1))(X, Y))
    traced = step.trace(X, Y)
    assert [n.op for n in traced.nodes].count("custom_vjp_call") == 1
    optimised = step.compiled(X, Y).graph
    ops = [n.op for n in optimised.nodes]
    assert not any(op.startswith("custom_") for op in ops)        # decompose expanded it: backends see the body
    assert ops.count("sin") + sum("sin" in str(n.attrs.get("body", "")) for n in optimised.nodes) <= 1  # CSE: one sin


def test_the_text_form_round_trips_nested_custom_ops():
    @custom_vjp
    def outer(x):
        return log1pexp(x) * 2.0

    outer.defvjp(lambda x: (outer(x), x), lambda x, g: (2.0 * g * (1.0 - 1.0 / (1.0 + fnp.exp(x))),))
    graph = frame.trace(lambda x, y: fnp.sum(outer(x) + sin_times(x, y)), X, Y)
    text = print_graph(graph)
    assert "custom_vjp_call" in text and "custom_jvp_call" in text and "graph @outer_fwd" in text
    again = parse_graph(text)
    verify(again)
    assert print_graph(again) == text
    node = next(n for n in again.nodes if n.op == "custom_vjp_call")
    assert isinstance(node.attrs["bwd"], custom_ops.FusedBody) and hash(node.attrs["body"])
    assert_close(compile_graph(again)(X, Y), compile_graph(graph)(X, Y))
    derived = frame.compiler.build_backward_graph(again, 0, [0, 1])
    assert_close(compile_graph(derived)(X, Y)[1:], frame.grad(lambda x, y: fnp.sum(outer(x) + sin_times(x, y)),
                                                      argnums=(0, 1))(X, Y))


def test_to_jax_lowers_to_jaxs_custom_rules():
    graph = frame.trace(lambda x: fnp.sum(log1pexp(x)), np.array([100.0, 0.0]))
    lowered = to_jax(graph)
    assert jax.grad(lambda x: lowered(x)[0])(jnp.array([100.0, 0.0]))[0] == 1.0   # JAX applies the rule
    graph = frame.trace(lambda x, y: sin_times(x, y), X, Y)
    assert_close(jax.grad(lambda x, y: jnp.sum(to_jax(graph)(x, y)[0]), argnums=(0, 1))(X, Y),
          jax.grad(lambda x, y: jnp.sum(j_sin_times(x, y)), argnums=(0, 1))(X, Y))


def test_pytrees_in_out_and_residuals_and_none_cotangents():
    @custom_vjp
    def f(params, x):
        return {"y": params["w"] * x + params["b"], "n": fnp.sum(x * x)}

    def f_fwd(params, x):
        return f(params, x), {"x": x, "w": [params["w"]]}

    def f_bwd(res, g):
        x, w = res["x"], res["w"][0]
        return {"w": fnp.sum(g["y"] * x), "b": None}, g["y"] * w + 2.0 * g["n"] * x

    f.defvjp(f_fwd, f_bwd)
    params, x = {"w": np.float64(1.5), "b": np.float64(-0.5)}, np.array([0.2, 0.4, 0.9])
    out = f(params, x)
    assert set(out) == {"y", "n"}
    g_params, g_x = frame.grad(lambda p, x: fnp.sum(f(p, x)["y"]) + f(p, x)["n"], argnums=(0, 1))(params, x)
    assert_close(g_params["w"], np.sum(x))
    assert g_params["b"] == 0.0                                    # None: a zero, whatever the true derivative
    assert_close(g_x, params["w"] + 2.0 * x)


def test_an_integer_argument_gets_no_cotangent():
    @custom_vjp
    def take_scaled(x, n):
        return x * n

    take_scaled.defvjp(lambda x, n: (take_scaled(x, n), n), lambda n, g: (g * n, None))
    n = np.array([1, 2, 3])
    assert_close(frame.grad(lambda x: fnp.sum(take_scaled(x, n)))(np.ones(3)), np.array([1.0, 2.0, 3.0]))


def test_calling_without_tracers_just_runs_the_function():
    calls = []

    @custom_vjp
    def f(x):
        calls.append(type(x))
        return np.sin(x)

    f.defvjp(lambda x: (f(x), None), lambda res, g: (g,))
    assert f(0.5) == np.sin(0.5) and calls == [float]


# -- bad use ----------------------------------------------------------------------------------------
def _vjp_with(fwd=None, bwd=None):
    @custom_vjp
    def f(x, y):
        return fnp.sin(x) * y

    f.defvjp(fwd or (lambda x, y: (f(x, y), (x, y))), bwd or (lambda res, g: (g, g)))
    return f


@pytest.mark.parametrize("fwd, bwd, error, match", [
    (None, lambda res, g: (g,), GradientError, r"custom_vjp 'f': bwd must return a tuple of 2 cotangent\(s\).*length 1"),
    (None, lambda res, g: g, GradientError, r"bwd must return a tuple of 2.*got a Tracer"),
    (None, lambda res, g: (g, fnp.sum(g)), GradientError,
     r"bwd's cotangent of argument 1 has shape \(\) and dtype float64, expected shape \(3,\)"),
    (None, lambda res, g: (g, g.astype("float32")), GradientError, r"argument 1 .*dtype float32, expected .*float64"),
    (None, lambda res, g: ((g,), g), GradientError, r"argument 0 has structure \(\*\), expected \*"),
    (lambda x, y: fnp.sin(x) * y, None, GradientError, r"fwd must return a pair \(output, residuals\), got a Tracer"),
    (lambda x, y: (x, y, x), None, GradientError, r"fwd must return a pair.*tuple of length 3"),
    (lambda x, y: ((x, y), None), None, GradientError, r"fwd's output has structure \(\*, \*\), but the function returns \*"),
    (lambda x, y: (fnp.sum(x), None), None, GradientError, r"fwd's output is f64\[\], but the function's output is f64\[3\]"),
])
def test_bad_rules_raise_a_clear_error(fwd, bwd, error, match):
    f = _vjp_with(fwd, bwd)
    x = np.array([0.1, 0.2, 0.3])
    with pytest.raises(error, match=match):
        frame.grad(lambda x, y: fnp.sum(f(x, y)), argnums=(0, 1))(x, x)


def test_missing_rules_and_closures_raise_a_clear_error():
    @custom_vjp
    def f(x):
        return x

    with pytest.raises(GradientError, match=r"custom_vjp 'f' has no rule: call f.defvjp\(fwd, bwd\)"):
        f(1.0)

    @custom_jvp
    def g(x):
        return x

    with pytest.raises(GradientError, match=r"custom_jvp 'g' has no rule: call g.defjvp"):
        frame.grad(g)(1.0)
    with pytest.raises(GradientError, match="defvjp needs two callables"):
        f.defvjp(lambda x: (x, None), None)

    def outer(w):
        @custom_vjp
        def scaled(x):
            return x * w          # closes over w, a tracer of frame.grad's trace

        scaled.defvjp(lambda x: (x * w, None), lambda res, g: (g,))
        return scaled(2.0 * w)

    with pytest.raises(TraceError, match=r"custom_vjp 'scaled': the function uses traced value\(s\) of an enclosing "
                                         r"trace through a closure \(f64\[\]\)"):
        frame.grad(outer)(np.float64(1.0))


def test_bad_jvp_rules_raise_a_clear_error():
    @custom_jvp
    def f(x):
        return fnp.sin(x)

    f.defjvp(lambda p, t: fnp.cos(p[0]) * t[0])
    with pytest.raises(GradientError, match=r"the jvp rule must return a pair \(output, tangent_out\)"):
        frame.grad(lambda x: fnp.sum(f(x)))(X)

    f.defjvp(lambda p, t: (f(p[0]), fnp.sum(t[0])))
    with pytest.raises(GradientError, match=r"tangent_out has shape \(\) .* expected shape \(3, 4\)"):
        frame.grad(lambda x: fnp.sum(f(x)))(X)

    f.defjvp(lambda p, t: (fnp.sum(p[0]), t[0]))
    with pytest.raises(GradientError, match=r"the jvp rule's output is f64\[\], but the function's output is f64\[3,4\]"):
        frame.jvp(f, (X,), (X,))


def test_python_numbers_take_the_dtype_of_the_array_arguments():
    """A Python number argument is weak (NEP 50): next to float32 arrays it traces, and its cotangent is
    expected, in float32, so a rule written for float32 arrays works for it too."""
    @custom_vjp
    def scaled_sin(x, k):
        return fnp.sin(x) * k

    scaled_sin.defvjp(lambda x, k: (scaled_sin(x, k), (x, k)),
                      lambda res, g: (fnp.cos(res[0]) * g * res[1], fnp.sum(fnp.sin(res[0]) * g)))
    x = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    g_x, g_k = frame.grad(lambda x, k: fnp.sum(scaled_sin(x, k)), argnums=(0, 1))(x, 2.0)
    assert g_x.dtype == np.float32
    np.testing.assert_allclose(g_x, 2.0 * np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(g_k, np.sum(np.sin(x)), rtol=1e-6)
    assert frame.grad(lambda x: fnp.sum(scaled_sin(x, 2.0)))(x).dtype == np.float32


def test_taylor_mode_propagates_through_the_body():
    """jet expands the function's body, as jax.experimental.jet does (it calls a custom_jvp function's
    primal): log1pexp's Taylor terms along x are the derivatives of softplus."""
    from frame.frontend.taylor import jet

    x = np.array([0.3, -0.7])
    s = 1.0 / (1.0 + np.exp(-x))
    value, terms = jet(log1pexp, (x,), ((np.ones(2), np.zeros(2), np.zeros(2)),))
    assert_close(value, np.log1p(np.exp(x)))
    assert_close(terms, [s, s * (1.0 - s), s * (1.0 - s) * (1.0 - 2.0 * s)])


def test_defjvps_gives_one_rule_per_argument_as_in_jax():
    @custom_jvp
    def f(x, y):
        return fnp.sin(x) * y

    f.defjvps(lambda tx, out, x, y: fnp.cos(x) * tx * y, lambda ty, out, x, y: fnp.sin(x) * ty)

    @jax.custom_jvp
    def jf(x, y):
        return jnp.sin(x) * y

    jf.defjvps(lambda tx, out, x, y: jnp.cos(x) * tx * y, lambda ty, out, x, y: jnp.sin(x) * ty)
    assert_close(frame.jvp(f, (X, Y), (Y * X, 2.0 * Y)), jax.jvp(jf, (X, Y), (Y * X, 2.0 * Y)))
    assert_close(frame.grad(lambda x, y: fnp.sum(f(x, y)), argnums=(0, 1))(X, X),
          jax.grad(lambda x, y: jnp.sum(jf(x, y)), argnums=(0, 1))(X, X))
    with pytest.raises(GradientError, match="symbolic_zeros=True is not supported"):
        f.defjvp(lambda p, t: (f(*p), t[0]), symbolic_zeros=True)


def test_complex_custom_jvp_works_forward_and_is_refused_in_reverse_by_name():
    @custom_jvp
    def square(z):
        return z * z

    square.defjvp(lambda p, t: (square(p[0]), 2.0 * p[0] * t[0]))
    z = np.array([1 + 2j, 0.5j])
    assert_close(frame.jvp(square, (z,), (np.ones(2, complex),))[1], 2.0 * z)
    with pytest.raises(GradientError, match=r"custom_jvp_call' \(@square\): reverse mode .* complex"):
        frame.grad(lambda z: fnp.sum(fnp.real(square(z))))(z)


def test_jacobians_and_linearize_use_the_rules():
    x, y = np.array([0.3, -0.7, 1.2]), np.array([1.0, 2.0, 0.5])
    assert_close(frame.jacfwd(log1pexp)(x), jax.jacfwd(j_log1pexp)(x))
    assert_close(frame.jacrev(lambda x: sin_times(x[None], y))(x), jax.jacrev(lambda x: j_sin_times(x[None], y))(x))
    assert_close(frame.jacfwd(hypot_and_ratio, argnums=1)(x, y), jax.jacfwd(j_hypot_and_ratio, argnums=1)(x, y))
    _, f_jvp = frame.linearize(log1pexp, x)
    assert_close(f_jvp(y), jax.jvp(j_log1pexp, (x,), (y,))[1])
