"""The check the frame.lax test files share: one case (a function of the lax module, its arguments, the
arguments to differentiate) against jax.lax, eagerly, traced and its gradient (x64)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax as jlax

import frame
import frame.numpy as fnp

TOL = dict(rtol=1e-12, atol=1e-12)


def assert_same_values(got, want, what, tol=TOL):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    np.testing.assert_allclose(got, want, **tol, err_msg=what)


def assert_matches_jax(name, call, args, argnums, flax, rng, tol=TOL, nan_to_zero=False):
    """`call(flax, *args)` equals `call(jax.lax, *args)` eagerly and under frame.function, and (argnums not None)
    the gradient of a weighted sum of it equals jax.grad's; `nan_to_zero` drops NaN outputs (fill values) from
    the sum."""
    w = rng.uniform(0.5, 1.5, jax.eval_shape(lambda *xs: call(jlax, *xs), *args).shape)

    def weighted(np_, out):
        return np_.sum((np_.where(np_.isnan(out), 0.0, out) if nan_to_zero else out) * w)

    def reference(*xs):   # JAX's value and gradient under one jit (op-by-op dispatch would make the files slow)
        grads = jax.grad(lambda *ys: weighted(jnp, call(jlax, *ys)), argnums)(*xs) if argnums else None
        return call(jlax, *xs), grads
    want, ref = jax.jit(reference)(*args)
    assert_same_values(call(flax, *args), want, f"{name} eager", tol)
    assert_same_values(frame.function(lambda *xs: call(flax, *xs))(*args), want, f"{name} traced", tol)
    if argnums is None:
        return
    got = frame.grad(lambda *xs: weighted(fnp, call(flax, *xs)), argnums)(*args)
    for i, g, r in zip(argnums, got, ref):
        assert_same_values(g, r, f"{name} gradient in argument {i}", tol)
