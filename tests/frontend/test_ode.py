"""frame.experimental.ode.odeint against jax.experimental.ode.odeint (the oracle): values, gradients by the
adjoint method in y0, t, args and closed-over parameters, pytree states, compiled and vmapped."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import ShapeError, TraceError
from frame.experimental.ode import odeint

pytestmark = pytest.mark.usefixtures("jax_x64")
Y0, T, A = np.array([1.0, 0.0]), np.linspace(0.0, 5.0, 11), 2.0


def pendulum(y, t, a, m=fnp):
    return m.stack([y[1], -a * m.sin(y[0])])


def _jax():
    import jax
    import jax.numpy as jnp
    from jax.experimental.ode import odeint as jodeint
    return jax, jnp, jodeint


def test_values_equal_jax_eager_and_compiled():
    jax, jnp, jodeint = _jax()
    want = np.asarray(jodeint(lambda y, t, a: pendulum(y, t, a, jnp), jnp.array(Y0), jnp.array(T), A))
    np.testing.assert_allclose(odeint(pendulum, Y0, T, A), want, rtol=1e-12, atol=1e-13)
    compiled = frame.jit(lambda y0, t, a: odeint(pendulum, y0, t, a))
    np.testing.assert_allclose(compiled(Y0, T, A), want, rtol=1e-12, atol=1e-13)
    # a looser tolerance takes other (fewer) steps, and still JAX's
    loose = np.asarray(jodeint(lambda y, t, a: pendulum(y, t, a, jnp), jnp.array(Y0), jnp.array(T), A, rtol=1e-4,
                               atol=1e-4))
    np.testing.assert_allclose(odeint(pendulum, Y0, T, A, rtol=1e-4, atol=1e-4), loose, rtol=1e-12, atol=1e-13)
    assert np.max(np.abs(loose - want)) > 1e-7


def test_gradients_in_y0_t_and_args_equal_jaxs_adjoint():
    jax, jnp, jodeint = _jax()

    def loss(m, solve):
        def value(y0, t, a):
            ys = solve(lambda y, t, a: pendulum(y, t, a, m), y0, t, a)
            return m.sum(ys[-1] ** 2) + m.sum(ys[3] * m.array([1.0, -0.5]))
        return value

    ours = frame.jit(frame.grad(loss(fnp, odeint), argnums=(0, 1, 2)))(Y0, T, A)
    theirs = jax.grad(loss(jnp, jodeint), argnums=(0, 1, 2))(jnp.array(Y0), jnp.array(T), A)
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(got, np.asarray(want), rtol=1e-11, atol=1e-13)


def test_closed_over_parameters_get_gradients_as_in_jax():
    jax, jnp, jodeint = _jax()
    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(2, 8)), "v": 0.3 * rng.normal(size=(8, 2))}

    def loss(m, solve):
        def value(p):   # a neural ODE: the vector field closes over the parameters
            return m.sum(solve(lambda y, t: m.tanh(y @ p["w"]) @ p["v"], m.asarray(Y0), m.asarray(T))[-1] ** 2)
        return value

    ours = frame.jit(frame.grad(loss(fnp, odeint)))(params)
    theirs = jax.grad(loss(jnp, jodeint))(params)
    for k in params:
        np.testing.assert_allclose(ours[k], np.asarray(theirs[k]), rtol=1e-11, atol=1e-13)


def test_pytree_states_and_vmap_over_initial_values():
    def field(state, t):
        return {"x": state["v"], "v": -state["x"]}   # harmonic oscillator: x = cos t for x0 = 1, v0 = 0

    out = odeint(field, {"x": np.array(1.0), "v": np.array(0.0)}, T)
    assert set(out) == {"x", "v"} and out["x"].shape == T.shape
    np.testing.assert_allclose(out["x"], np.cos(T), atol=1e-7)
    starts = np.array([[1.0, 0.0], [0.5, 0.2], [-1.0, 0.3]])
    batched = frame.vmap(lambda y0: odeint(pendulum, y0, T, A))(starts)
    for y0, got in zip(starts, batched):
        np.testing.assert_allclose(got, odeint(pendulum, y0, T, A), rtol=1e-12, atol=1e-14)


def test_bad_input_is_named():
    with pytest.raises(ShapeError, match="odeint: t must be a 1-d float array"):
        odeint(pendulum, Y0, np.arange(3), A)
    with pytest.raises(ShapeError, match="func must return y's structure"):
        odeint(lambda y, t: (y, y), Y0, T)
    with pytest.raises(TraceError, match="args must be arrays or numbers"):
        odeint(lambda y, t, s: y, Y0, T, "slow")
