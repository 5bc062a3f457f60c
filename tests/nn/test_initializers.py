"""frame.nn_initializers against jax.nn.initializers: the same numbers for the same keys (uniform-based draws bit
for bit, normal, truncated-normal and orthogonal ones up to the float kernels), eagerly, under frame.function with
a traced key and under vmap over keys; derivatives in the scale against JAX's; bad input refused by name."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
import frame.nn_initializers as fi
import frame.random as fr
from frame.errors import ShapeError

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

pytestmark = pytest.mark.usefixtures("jax_x64")

SEEDS = [0, 42, 2 ** 31 - 1]

# (builder, args, shape, scale of the values): 2-d dense and 4-d HWIO conv kernels, every fan mode and
# distribution, int and tuple axes, a batch axis, orthogonal along other column axes and non-square.
CASES = [("zeros", None, (3, 4), 1.0), ("ones", None, (2, 3), 1.0), ("constant", (-7.5,), (2, 3), 7.5),
         ("uniform", (3.0,), (4, 5), 3.0), ("normal", (0.5,), (4, 5), 0.5),
         ("truncated_normal", (0.5,), (30,), 0.5), ("truncated_normal", (2.0, None, -1.0, 3.0), (4, 5), 2.0),
         ("glorot_uniform", (), (3, 3, 4, 8), 0.2), ("glorot_normal", (), (3, 3, 4, 8), 0.2),
         ("lecun_uniform", (), (7, 3), 0.4), ("lecun_normal", (), (7, 3), 0.4),
         ("he_uniform", (), (5, 5, 3, 16), 0.4), ("he_normal", (), (16, 32), 0.4),
         ("variance_scaling", (0.7, "fan_geo_avg", "normal", (0, 1), -1), (2, 3, 5, 4), 0.4),
         ("variance_scaling", (0.7, "fan_out", "uniform", 1, 0, 2), (6, 3, 5, 4), 0.4),
         ("variance_scaling", (0.3, "fan_geo_avg", "uniform", 0, (1, 2)), (4, 2, 3, 5), 0.2),
         ("variance_scaling", (2.0, "fan_avg", "truncated_normal", -1, -2), (3, 3, 8, 4), 0.3),
         ("variance_scaling", (1.0, "fan_in", "normal", 0, 0), (6,), 0.5),
         ("orthogonal", (), (5, 3), 1.0), ("orthogonal", (2.0, 0), (3, 4, 5), 2.0), ("orthogonal", (), (3, 7), 1.0),
         ("orthogonal", (), (0, 3), 1.0),
         ("delta_orthogonal", (), (3, 3, 4, 6), 1.0), ("delta_orthogonal", (1.5,), (2, 4, 4), 1.5),
         ("delta_orthogonal", (), (3, 3, 3, 2, 2), 1.0)]
UNIFORM_BASED = {"zeros", "ones", "constant", "uniform", "glorot_uniform", "lecun_uniform", "he_uniform"}

# Through erfinv and QR the draws equal JAX's up to the float kernels (frame's are scipy's and LAPACK's, XLA's its
# own): a few ulp in float64, hence rtol 1e-13; XLA's float32 erf_inv is off by up to 1.5e-6 relative in the tails,
# hence rtol 4e-6 there (as in tests/frontend/test_random.py). Near 0 a truncated normal is erfinv of a difference
# of O(1) uniforms, so its error is absolute: an ulp of erf(2 / sqrt 2) from the two erf kernels shows as a few ulp
# of 1 times the scale, hence atol 32 ulp of the values' scale.
RTOL = {"float32": 4e-6, "float64": 1e-13}


def build(module, name, args):
    thing = getattr(module, name)
    return thing if args is None else thing(*args)


def draw_all(module, key, dtype):
    return [build(module, name, args)(key, shape, dtype) for name, args, shape, _ in CASES]


def jax_quick(f, *args):
    """f(*args) through one jit compiled quickly (XLA backend optimization level 0: the same HLO, so the same
    numbers, in one quick compile instead of dozens of optimized ones)."""
    return jax.jit(f).lower(*args).compile(compiler_options={"xla_backend_optimization_level": 0})(*args)


def exact(name, args) -> bool:
    """Whether the draw is uniform-based (no float kernel but rounding), so equal to JAX's bit for bit."""
    return name in UNIFORM_BASED or name == "variance_scaling" and args[2] == "uniform"


def assert_matches_jax(ours, theirs, name, dtype, scale, exact=False):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, (name, ours.shape, ours.dtype, theirs.shape,
                                                                       theirs.dtype)
    if exact:
        np.testing.assert_array_equal(ours, theirs, err_msg=name)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=RTOL[dtype], atol=32 * np.finfo(dtype).eps * scale,
                                   err_msg=name)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_initializers_equal_jax_eagerly_and_traced(dtype):
    jax_draw = jax.jit(lambda k: draw_all(jax.nn.initializers, k, dtype)).lower(jax.random.PRNGKey(0)).compile(
        compiler_options={"xla_backend_optimization_level": 0})
    traced = frame.function(lambda k: draw_all(fi, k, dtype))
    for seed in SEEDS:
        key = fr.PRNGKey(seed)
        theirs = jax_draw(jax.random.PRNGKey(seed))
        eager = draw_all(fi, key, dtype)
        for (name, args, shape, scale), ours, want, compiled in zip(CASES, eager, theirs, traced(key)):
            assert_matches_jax(ours, want, name, dtype, scale, exact(name, args))
            np.testing.assert_array_equal(compiled, ours, err_msg=name)   # a traced key draws the same numbers


def test_default_dtype_is_float64_or_the_builders():
    key = fr.PRNGKey(1)
    assert fi.he_normal()(key, (3, 4)).dtype == np.float64
    assert fi.he_normal(dtype="float32")(key, (3, 4)).dtype == np.float32
    assert fi.zeros(key, (2,)).dtype == np.float64 and fi.constant(3, dtype="int32")(key, (2,)).dtype == np.int32
    np.testing.assert_array_equal(fi.orthogonal(dtype="float32")(key, (4, 3)),
                                  fi.orthogonal()(key, (4, 3), "float32"))
    assert (fi.xavier_uniform, fi.xavier_normal, fi.kaiming_uniform, fi.kaiming_normal) == (
        fi.glorot_uniform, fi.glorot_normal, fi.he_uniform, fi.he_normal)
    assert isinstance(fi.he_normal(), fi.Initializer) and isinstance(fi.zeros, fi.Initializer)


def test_orthogonal_columns_are_orthonormal():
    q = fi.orthogonal(2.0, column_axis=1)(fr.PRNGKey(3), (3, 4, 2))     # 6 rows of 4 columns
    cols = np.moveaxis(q, 1, -1).reshape(6, 4)
    np.testing.assert_allclose(cols.T @ cols, 4 * np.eye(4), atol=1e-14)
    w = fi.delta_orthogonal()(fr.PRNGKey(3), (3, 5, 4, 4))
    assert np.count_nonzero(w[[0, 2]]) == 0 and np.count_nonzero(w[:, [0, 1, 3, 4]]) == 0
    np.testing.assert_allclose(w[1, 2].T @ w[1, 2], np.eye(4), atol=1e-14)


def test_vmap_over_keys():
    keys, jkeys = fr.split(fr.PRNGKey(2), 3), jax.random.split(jax.random.PRNGKey(2), 3)
    inits = [("glorot_uniform", ()), ("he_normal", ()), ("orthogonal", ())]
    draw = lambda module: lambda k: [build(module, n, a)(k, (4, 3), "float64") for n, a in inits]   # noqa: E731
    for ours, theirs, (name, _) in zip(frame.vmap(draw(fi))(keys), jax_quick(jax.vmap(draw(jax.nn.initializers)),
                                                                              jkeys), inits):
        assert_matches_jax(ours, theirs, name, "float64", 1.0, exact(name, ()))


def test_derivatives_in_the_scale_equal_jax():
    key, jkey = fr.PRNGKey(4), jax.random.PRNGKey(4)
    w = np.linspace(-1.0, 2.0, 12).reshape(4, 3)

    def loss(module, k, np_):
        init = module
        return lambda s: (np_.sum(init.normal(s)(k, (4, 3), "float64") * w)
                          + np_.sum(init.variance_scaling(s, "fan_avg", "truncated_normal")(k, (4, 3), "float64") ** 2)
                          + np_.sum(init.orthogonal(s)(k, (4, 3), "float64") * w) * s
                          + np_.sum(init.uniform(s)(k, (4, 3), "float64") * w))

    s = np.float64(1.7)
    ours = frame.grad(loss(fi, key, fnp))(s)
    theirs = jax_quick(jax.grad(loss(jax.nn.initializers, jkey, jnp)), s)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_bad_input_is_refused_by_name():
    key = fr.PRNGKey(0)
    for call, match in [
            (lambda: fi.variance_scaling(1.0, "fan_sideways", "normal"), "variance_scaling: mode must be one of"),
            (lambda: fi.variance_scaling(1.0, "fan_in", "cauchy"), "variance_scaling: distribution must be one of"),
            (lambda: fi.he_normal()(key, (5,)), r"he_normal: needs a weights shape of rank >= 2 .* got shape \(5,\)"),
            (lambda: fi.glorot_uniform()(key, ()), "glorot_uniform: needs a weights shape of rank >= 2"),
            (lambda: fi.lecun_normal(in_axis=3)(key, (2, 3)), r"lecun_normal: in_axis 3 is out of range for shape"),
            (lambda: fi.he_uniform(batch_axis=(0, 5))(key, (2, 3, 4)), "he_uniform: batch_axis"),
            (lambda: fi.glorot_normal()(key, (0, 3)), "glorot_normal: the in, out and batch sizes must be > 0"),
            (lambda: fi.lecun_uniform()(key, (3, 4), "int32"), "lecun_uniform: dtype must be float32 or float64"),
            (lambda: fi.normal()(key, (2,), "float16"), "normal: dtype must be float32 or float64"),
            (lambda: fi.uniform()(key, (2, -1)), r"uniform: shape must have sizes >= 0"),
            (lambda: fi.orthogonal()(key, (4,)), r"orthogonal: needs a shape of rank >= 2, got \(4,\)"),
            (lambda: fi.orthogonal(column_axis=2)(key, (4, 3)), "orthogonal: column_axis 2 is out of range"),
            (lambda: fi.delta_orthogonal()(key, (3, 3)), r"delta_orthogonal: needs a 3-, 4- or 5-d shape"),
            (lambda: fi.delta_orthogonal()(key, (3, 3, 5, 4)), r"delta_orthogonal: needs fan_in <= fan_out")]:
        with pytest.raises(ShapeError, match=match):
            call()
