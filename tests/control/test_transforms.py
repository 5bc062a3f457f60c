"""Forward mode, vmap and while loops through the control-flow ops (issue 17, item 1), against JAX."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import GradientError, ShapeError, TraceError
from frame.frontend.control import cond, fori_loop, scan, while_loop
from frame.interop import to_jax
from frame.runtime import compile as compile_graph
from tests.control.test_cond_scan import (U0, W, XS, assert_close, branchy, j_branchy, j_powers, j_rollout, powers,
                                          rollout)

pytestmark = pytest.mark.usefixtures("jax_x64")   # x64 for this module only (tests/conftest.py)
RNG = np.random.default_rng(1)


def halvings(a, n, np_=fnp, loop=while_loop):
    """A data-dependent trip count: halve while the counter is below n (per example under vmap)."""
    return loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * np_.cos(c[1])), (0, a))[1]


def j_halvings(a, n):
    return halvings(a, n, jnp, jax.lax.while_loop)


# -- forward mode ----------------------------------------------------------------------------------------
def test_jvp_through_scan_cond_fori_and_while_matches_jax():
    t_u, t_w = RNG.normal(size=3), RNG.normal(size=(3, 3))
    assert_close(frame.jvp(lambda u, w: rollout(u, w), (U0, W), (t_u, t_w)),
                 jax.jvp(lambda u, w: j_rollout(u, w), (U0, W), (t_u, t_w)))
    assert_close(frame.jvp(lambda u: rollout(u, W), (U0,), (t_u,)), jax.jvp(lambda u: j_rollout(u, W), (U0,), (t_u,)))
    for p in (1.0, -1.0):
        assert_close(frame.jvp(branchy, (U0, p), (t_u, 1.0)), jax.jvp(j_branchy, (U0, p), (t_u, 1.0)))
    assert_close(frame.jvp(powers, (0.7,), (1.0,)), jax.jvp(j_powers, (0.7,), (1.0,)))
    assert_close(frame.jvp(lambda a: halvings(a, 5), (0.3,), (1.0,)),
                 jax.jvp(lambda a: j_halvings(a, 5), (0.3,), (1.0,)))
    # forward over forward through a scan
    second = frame.jvp(lambda u: frame.jvp(lambda v: rollout(v, W), (u,), (t_u,))[1], (U0,), (t_u,))[1]
    j_second = jax.jvp(lambda u: jax.jvp(lambda v: j_rollout(v, W), (u,), (t_u,))[1], (U0,), (t_u,))[1]
    assert_close(second, j_second)


def test_jacfwd_of_a_scan_matches_jacrev():
    f = lambda u: scan(lambda c, x: (c * fnp.sin(c) + x, c), u, np.ones((4, 3)))[1]   # noqa: E731
    assert_close(frame.jacfwd(f)(U0), frame.jacrev(f)(U0))


# -- while ---------------------------------------------------------------------------------------------------
def test_while_loop_values_eagerly_and_compiled():
    assert halvings(0.3, 5) == j_halvings(0.3, 5)
    f = frame.function(halvings)
    for n in (0, 1, 7):
        np.testing.assert_allclose(f(0.3, n), j_halvings(0.3, n), rtol=1e-14)
    assert while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.5), (0, 1.0))[0] == 10
    assert f.trace(0.3, 2).nodes[-1].op == "while" or "while" in [n.op for n in f.trace(0.3, 2).nodes]


def test_while_loop_refuses_reverse_mode_by_name_as_jax_does():
    with pytest.raises(GradientError, match=r"op 'while'.*reverse-mode.*trip count.*fori_loop with static Python "
                                            r"bounds"):
        frame.grad(lambda a: halvings(a, 5))(0.3)
    with pytest.raises(GradientError, match="op 'while'"):   # fori_loop with a traced bound is a while loop
        frame.grad(lambda a, n: fori_loop(0, n, lambda i, v: v * 2.0, a))(0.5, np.int64(3))


def test_a_while_loop_behind_stop_gradient_needs_no_rule():
    """A differentiated value that reaches the loop only through stop_gradient gives it nothing to differentiate
    (its derivative is zero by definition), as in JAX; the rest of the function differentiates."""
    def f(a):
        held = frame.stop_gradient(a)
        return halvings(held, 4) + a ** 2

    np.testing.assert_allclose(frame.grad(f)(0.3), 0.6)
    np.testing.assert_allclose(jax.grad(lambda a: j_halvings(jax.lax.stop_gradient(a), 4) + a ** 2)(0.3), 0.6)


def test_while_loop_errors_name_the_function():
    with pytest.raises(ShapeError, match="while_loop: cond_fun must return a bool scalar"):
        while_loop(lambda c: c, lambda c: c + 1.0, 1.0)
    with pytest.raises(ShapeError, match=r"while_loop: the body's carry output\[1\] is f32\[\], but the initial carry"
                                         r"\[1\] is f64\[\]"):
        while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1].astype("float32")), (0, np.float64(1.0)))


def test_while_loop_lowers_to_lax_while_loop():
    graph = frame.trace(halvings, 0.3, 4)
    lowered = to_jax(graph)
    assert "while[" in str(jax.make_jaxpr(lowered)(0.3, 4))
    np.testing.assert_allclose(lowered(0.3, 4)[0], j_halvings(0.3, 4), rtol=1e-14)


# -- vmap ------------------------------------------------------------------------------------------------------
def test_vmap_of_scan_over_any_operand_matches_jax():
    us, ws = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3, 3)) * 0.5
    xss = RNG.uniform(0.5, 1.5, (4, 6))
    f = lambda u, w, xs: rollout(u, w, xs)   # noqa: E731
    jf = lambda u, w, xs: j_rollout(u, w, xs)   # noqa: E731
    for axes, args in [((0, None, None), (us, W, XS)), ((None, 0, None), (U0, ws, XS)), ((None, None, 0), (U0, W, xss)),
                       ((0, 0, 0), (us, ws, xss))]:
        assert_close(frame.vmap(f, in_axes=axes)(*args), jax.vmap(jf, in_axes=axes)(*args))
    # per-example gradients through the scan
    assert_close(frame.vmap(frame.grad(f, argnums=1), in_axes=(0, None, None))(us, W, XS),
                 jax.vmap(jax.grad(jf, argnums=1), in_axes=(0, None, None))(us, W, XS))


def test_vmap_of_scan_whose_carry_becomes_batched_inside_the_body():
    # The carry starts shared; the batched xs make it per example after the first step (the fixed point).
    f = lambda xs: scan(lambda c, x: (c * 0.5 + x, c), 1.0, xs)   # noqa: E731
    xss = RNG.normal(size=(3, 5))
    assert_close(frame.vmap(f)(xss), jax.vmap(lambda xs: jax.lax.scan(lambda c, x: (c * 0.5 + x, c), 1.0, xs))(xss))


def test_vmap_of_cond_with_a_batched_predicate_is_a_select():
    xs, ps = RNG.normal(size=(4, 3)), np.array([1.0, -1.0, 2.0, -0.5])
    assert_close(frame.vmap(branchy)(xs, ps), jax.vmap(j_branchy)(xs, ps))
    assert_close(frame.vmap(frame.grad(branchy))(xs, ps), jax.vmap(jax.grad(j_branchy))(xs, ps))
    batched = frame.compiler.build_batched_graph(frame.trace(branchy, U0, 1.0), [0, 0], 4)
    assert "cond" not in [n.op for n in batched.nodes] and "where" in [n.op for n in batched.nodes]
    # an unbatched predicate stays a cond
    assert_close(frame.vmap(branchy, in_axes=(0, None))(xs, -1.0), jax.vmap(j_branchy, in_axes=(0, None))(xs, -1.0))
    kept = frame.compiler.build_batched_graph(frame.trace(branchy, U0, 1.0), [0, None], 4)
    assert "cond" in [n.op for n in kept.nodes]


def test_vmap_of_while_with_a_per_example_trip_count():
    a, n = np.array([0.3, 0.5, 0.9, 0.1]), np.array([1, 3, 6, 0])
    assert_close(frame.vmap(halvings)(a, n), jax.vmap(j_halvings)(a, n))
    assert_close(frame.vmap(halvings, in_axes=(0, None))(a, 4), jax.vmap(j_halvings, in_axes=(0, None))(a, 4))
    assert_close(frame.vmap(powers)(a), jax.vmap(j_powers)(a))


def test_taylor_mode_refuses_control_flow_by_name():
    f = lambda x: scan(lambda c, _: (fnp.sin(c), None), x, None, length=3)[0]   # noqa: E731
    with pytest.raises(GradientError, match="Taylor mode: op 'scan'.*control flow"):
        frame.jet(f, (0.5,), ((1.0, 0.0),))


def test_trace_errors_of_bad_arguments():
    with pytest.raises(TraceError, match="scan: f must be callable"):
        scan(None, 0.0, XS)
    with pytest.raises(TraceError, match="cond: true_fun must be callable"):
        cond(True, 1, lambda: 1)
    with pytest.raises(ShapeError, match="fori_loop: the bounds must be integer scalars"):
        fori_loop(0.0, 3, lambda i, v: v, 1.0)
    assert compile_graph(frame.trace(lambda a: fori_loop(2, 2, lambda i, v: v * 3.0, a), 1.5))(1.5)[0] == 1.5
