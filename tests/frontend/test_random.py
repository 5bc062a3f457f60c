"""frame.random against jax.random bit for bit (threefry2x32, JAX's default partitionable layout; the hash itself
against Random123's known-answer vectors), eagerly, under frame.function and under vmap over keys; the samplers'
statistics; derivatives in uniform's bounds; frame.nn.dropout on it; bad input refused by name."""
import numpy as np
import pytest

import frame
import frame.nn as nn
import frame.numpy as fnp
import frame.random as fr
from frame.errors import ShapeError
from frame.ops.random import threefry2x32

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

SEEDS = [0, 1, 42, 2 ** 31 - 1, 2 ** 40 + 5, -1]


def jax_words(key) -> np.ndarray:
    return np.asarray(jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key
                      ).astype(np.int64)


def assert_same_bits(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    if theirs.dtype.kind == "u":
        theirs = theirs.astype(np.int64)
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    np.testing.assert_array_equal(ours, theirs)


def test_the_hash_matches_random123s_known_answers():
    m = 0xFFFFFFFF
    for key, counter, want in [((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
                               ((m, m), (m, m), (0x1CB996FC, 0xBB002BE7)),
                               ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))]:
        got = threefry2x32(*(np.uint32(w) for w in key + counter))
        assert tuple(int(w) for w in got) == want


@pytest.mark.parametrize("seed", SEEDS)
def test_keys_split_fold_in_and_bits_equal_jax(seed):
    key, jkey = fr.PRNGKey(seed), jax.random.PRNGKey(seed)
    assert_same_bits(key, jax_words(jkey))
    for num in (2, 5, (2, 3)):
        assert_same_bits(fr.split(key, num), jax_words(jax.random.split(jkey, num)))
    for data in (0, 7, 2 ** 32 + 3, -2):
        assert_same_bits(fr.fold_in(key, data), jax_words(jax.random.fold_in(jkey, np.uint32(data % 2 ** 32))))
    assert_same_bits(fr.bits(key, (3, 4)), jax.random.bits(jkey, (3, 4), "uint32"))
    assert_same_bits(fr.bits(key), jax.random.bits(jkey, (), "uint32"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_samplers_equal_jax(dtype):
    key, jkey = fr.PRNGKey(7), jax.random.PRNGKey(7)
    assert_same_bits(fr.uniform(key, (4, 5), dtype), jax.random.uniform(jkey, (4, 5), dtype))
    lo, hi = np.array([-2.0, 0.0, 1.0], dtype), np.array(3.0, dtype)
    assert_same_bits(fr.uniform(key, (2, 3), dtype, lo, hi), jax.random.uniform(jkey, (2, 3), dtype, lo, hi))
    assert_same_bits(fr.bernoulli(key, np.array(0.3, dtype), (50,)), jax.random.bernoulli(jkey, np.array(0.3, dtype),
                                                                                          (50,)))
    logits = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], dtype))
    for axis, shape in ((-1, None), (-1, (6, 2)), (0, None)):
        assert_same_bits(fr.categorical(key, logits, axis, shape), jax.random.categorical(jkey, logits, axis, shape))
    # through erfinv, log and log1p: frame's kernels are scipy's and numpy's, XLA's its own approximations, so the
    # last bits differ. XLA's float32 erf_inv is off by up to 1.5e-6 relative in the tails (frame's: 2e-7 against
    # float64 erfinv of the same u, checked below), hence rtol 2e-6 there; float64 agrees to a few ulp. Near 0 the
    # values are differences of O(1) terms (gumbel's -log(-log u)): an absolute 8 ulp of 1 there.
    rtol = {"float32": 2e-6, "float64": 1e-13}[dtype]
    for ours, theirs in [(fr.exponential(key, (20,), dtype), jax.random.exponential(jkey, (20,), dtype)),
                         (fr.normal(key, (1000,), dtype), jax.random.normal(jkey, (1000,), dtype)),
                         (fr.gumbel(key, (100,), dtype), jax.random.gumbel(jkey, (100,), dtype)),
                         (fr.truncated_normal(key, -1.0, 2.0, (100,), dtype),
                          jax.random.truncated_normal(jkey, -1.0, 2.0, (100,), dtype))]:
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=8 * np.finfo(dtype).eps)
    from scipy.special import erfinv
    u = fr.uniform(key, (1000,), dtype, np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype)), 1.0)
    np.testing.assert_allclose(fr.normal(key, (1000,), dtype), np.sqrt(2) * erfinv(u.astype(np.float64)),
                               rtol=4 * np.finfo(dtype).eps)


def test_traced_compiled_and_vmapped_draws():
    key = fr.PRNGKey(3)
    draw = lambda k: fr.normal(k, (4,)) + fr.uniform(fr.split(k)[1], (4,))   # noqa: E731
    compiled = frame.function(draw)
    np.testing.assert_array_equal(compiled(key), draw(key))
    np.testing.assert_array_equal(compiled(key), compiled(key))            # a key is a value: the same numbers
    assert not np.array_equal(compiled(fr.split(key)[0]), compiled(key))
    keys, jkeys = fr.split(key, 5), jax.random.split(jax.random.PRNGKey(3), 5)
    assert_same_bits(frame.vmap(lambda k: fr.uniform(k, (3,)))(keys),
                     jax.vmap(lambda k: jax.random.uniform(k, (3,), "float64"))(jkeys))
    assert_same_bits(frame.vmap(lambda i: fr.fold_in(key, i))(np.arange(4)),
                     jax_words(jax.vmap(lambda i: jax.random.fold_in(jax.random.PRNGKey(3), i))(jnp.arange(4))))
    assert_same_bits(fr.uniform(keys, (2,)), jax.vmap(lambda k: jax.random.uniform(k, (2,), "float64"))(jkeys))
    # from_jax-free lowering: the ops' JAX lowerings give the same bits
    from frame.interop import to_jax
    graph = frame.trace(lambda k: fr.uniform(fr.fold_in(fr.split(k, 3), np.arange(3)), (2,)), key)
    np.testing.assert_array_equal(np.asarray(to_jax(graph)(key)[0]), frame.runtime.compile(graph)(key)[0])


def test_statistics():
    key = fr.PRNGKey(0)
    n = 200_000
    u, z = fr.uniform(key, (n,)), fr.normal(fr.fold_in(key, 1), (n,))
    se = 1 / np.sqrt(n)
    assert abs(u.mean() - 0.5) < 5 * se * np.sqrt(1 / 12) and abs(u.var() - 1 / 12) < 0.002
    assert abs(z.mean()) < 5 * se and abs(z.var() - 1) < 0.01
    assert abs(fr.bernoulli(key, 0.3, (n,)).mean() - 0.3) < 5 * se * np.sqrt(0.21)
    counts = np.bincount(fr.categorical(key, np.log([0.2, 0.3, 0.5]), shape=(n,)), minlength=3) / n
    np.testing.assert_allclose(counts, [0.2, 0.3, 0.5], atol=0.005)
    t = fr.truncated_normal(key, -0.5, 1.0, (n,))
    assert t.min() > -0.5 and t.max() < 1.0


def test_uniform_differentiates_in_its_bounds():
    key, jkey = fr.PRNGKey(5), jax.random.PRNGKey(5)
    f = lambda lo, hi: fnp.sum(fr.uniform(key, (6,), "float64", lo, hi) ** 2)   # noqa: E731
    jf = lambda lo, hi: jnp.sum(jax.random.uniform(jkey, (6,), "float64", lo, hi) ** 2)   # noqa: E731
    for g, jg in zip(frame.grad(f, argnums=(0, 1))(-1.0, 2.0), jax.grad(jf, argnums=(0, 1))(-1.0, 2.0)):
        np.testing.assert_allclose(g, jg, rtol=1e-13)


def test_dropout():
    key = fr.PRNGKey(0)
    x = np.ones((8, 2000))
    y = nn.dropout(x, 0.25, key=key)
    assert abs((y == 0).mean() - 0.25) < 0.01 and set(np.unique(y)) == {0.0, 4 / 3}
    np.testing.assert_array_equal(nn.dropout(x, 0.25, key=key), y)             # same key, same mask
    np.testing.assert_array_equal(frame.function(lambda x, k: nn.dropout(x, 0.25, key=k))(x, key), y)
    np.testing.assert_array_equal(nn.dropout(x, 0.25, training=False), x)
    np.testing.assert_array_equal(nn.dropout(x, 1.0, key=key), np.zeros_like(x))
    mask = nn.dropout(np.ones(5), 0.5, key=key) != 0
    np.testing.assert_allclose(frame.grad(lambda x: fnp.sum(nn.dropout(x, 0.5, key=key)))(np.ones(5)), 2.0 * mask)
    channels = nn.dropout2d(np.ones((3, 16, 4, 4)), 0.5, key=key)
    assert (channels == channels[:, :, :1, :1]).all() and 0 < (channels == 0).mean() < 1
    q = k = v = np.random.default_rng(0).standard_normal((2, 5, 4))
    plain = nn.scaled_dot_product_attention(q, k, v)
    assert not np.allclose(nn.scaled_dot_product_attention(q, k, v, dropout_p=0.5, dropout_key=key), plain)
    np.testing.assert_allclose(nn.scaled_dot_product_attention(q, k, v, dropout_p=0.0, dropout_key=key), plain)


def test_bad_input_is_refused_by_name():
    key = fr.PRNGKey(0)
    for call, match in [(lambda: fr.PRNGKey(1.5), "seed must be an integer"),
                        (lambda: fr.uniform(np.zeros(3, np.int64), (2,)), r"keys must be integers of shape \(\.\.\., 2\)"),
                        (lambda: fr.uniform(np.array([-1, 0]), (2,)), r"key words must lie in \[0, 2\^32\)"),
                        (lambda: fr.uniform(key, (2,), "int32"), "dtype must be float32 or float64"),
                        (lambda: fr.normal(key, (-1,)), "sizes >= 0"),
                        (lambda: fr.fold_in(key, 1.5), "data must be integers, got float64"),
                        (lambda: frame.function(lambda k, d: fr.fold_in(k, d))(key, np.float64(2.0)),
                         r"data must be integers, got f64\[\]"),
                        (lambda: fr.categorical(key, np.zeros(3), axis=1), "axis 1 is out of range"),
                        (lambda: fr.categorical(key, np.zeros((2, 3)), shape=(4,)), "must end with the logits' batch"),
                        (lambda: nn.dropout(np.ones(3), 0.5), "needs key="),
                        (lambda: nn.dropout(np.ones(3), 1.5, key=key), r"p must be a probability"),
                        (lambda: nn.dropout2d(np.ones((3, 4)), 0.5, key=key), "spatial axes"),
                        (lambda: nn.scaled_dot_product_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)),
                                                                 dropout_p=0.1), "needs dropout_key=")]:
        with pytest.raises(ShapeError, match=match):
            call()


# -- randint, permutation, choice and the transform samplers ------------------------------------------------------
# Through log, tan, sqrt, erfinv, eigh, svd and QR the float samplers equal JAX's up to the float kernels (frame's
# are numpy's, scipy's and LAPACK's, XLA's its own): a few ulp in float64, hence rtol 1e-13 there (the values are
# O(1)-O(100), and a few roundings of O(1) terms: an absolute 32 ulp too); in float32 XLA's erf_inv is off by up to
# 1.5e-6 relative in the tails (as above) and the matrix samplers sum a few such terms: rtol 4e-6, atol 64 ulp.
# JAX's numbers come from one jitted function per test, compiled at XLA's backend optimization level 0 (one quick
# compile instead of dozens of optimized ones: the tests stay fast; the same HLO, so the same numbers).
TRANSFORM_TOL = {"float32": dict(rtol=4e-6, atol=64 * np.finfo(np.float32).eps),
                 "float64": dict(rtol=1e-13, atol=32 * np.finfo(np.float64).eps)}


def assert_close_to_jax(ours, theirs, dtype):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, (ours.shape, ours.dtype, theirs.shape,
                                                                       theirs.dtype)
    np.testing.assert_allclose(ours, theirs, **TRANSFORM_TOL[dtype])


def jax_quick(f, *args):
    """f(*args) through one jit compiled quickly (XLA backend optimization level 0)."""
    return jax.jit(f).lower(*args).compile(compiler_options={"xla_backend_optimization_level": 0})(*args)


def draws(module, key, cases):
    """[module.name(key, *args) for each (name, args)]: frame.random eagerly, or jax.random in one quick jit."""
    draw = lambda k: [getattr(module, name)(k, *args) for name, args in cases]   # noqa: E731
    return draw(key) if module is fr else jax_quick(draw, key)


def _spd(n, dtype, seed=0):
    a = np.random.default_rng(seed).standard_normal((n, n))
    return (a @ a.T + n * np.eye(n)).astype(dtype)


BIG = 2 ** 31
# plain, empty and reversed ranges (minval comes out), bounds past int32's range (clipped; the span wrapping to 0
# is the full range), the full int64 range, float bounds (truncated), array bounds broadcasting against the shape
RANDINT_BOUNDS = [(0, 10), (-7, 2 ** 20 + 3), (3, 3), (5, 2), (-BIG - 5, 2 ** 33), (0, BIG), (-BIG, BIG),
                  (-2 ** 63, 2 ** 63 - 1), (0.0, 9.7), (np.array([-3, 0, 5, 2 ** 20]), 100),
                  (np.array([[0], [10]]), np.array([4, 20, 1 << 30, 11]))]


def test_randint_equals_jax_bit_for_bit():
    cases = [("randint", ((2, 4), lo, hi, dtype)) for lo, hi in RANDINT_BOUNDS for dtype in ("int32", "int64")]
    cases.append(("randint", ((), -4, 4)))                                                  # int64 by default
    for seed in (0, 2 ** 40 + 5):
        for ours, theirs in zip(draws(fr, fr.PRNGKey(seed), cases), draws(jax.random, jax.random.PRNGKey(seed),
                                                                              cases)):
            assert_same_bits(ours, theirs)


def test_randint_traced_vmapped_and_batched():
    keys, jkeys = fr.split(fr.PRNGKey(3), 4), jax.random.split(jax.random.PRNGKey(3), 4)
    lo = np.array([-5, 0, 7])
    draw = lambda k, lo: fr.randint(k, (2, 3), lo, 2 ** 31 + 9, "int32")            # noqa: E731
    jdraw = lambda k, lo: jax.random.randint(k, (2, 3), lo, 2 ** 31 + 9, "int32")    # noqa: E731
    want = jax_quick(jax.vmap(jdraw, in_axes=(0, None)), jkeys, lo)
    assert_same_bits(frame.function(draw)(keys[0], lo), want[0])
    assert_same_bits(frame.vmap(draw, in_axes=(0, None))(keys, lo), want)
    assert_same_bits(draw(keys, lo), want)                                               # a batch of keys
    # the op's JAX lowering gives the same bits
    from frame.interop import to_jax
    graph = frame.trace(draw, keys, lo)
    np.testing.assert_array_equal(np.asarray(to_jax(graph)(keys, lo)[0]), frame.runtime.compile(graph)(keys, lo)[0])


def test_permutation_and_choice_equal_jax_bit_for_bit():
    x = np.arange(24.0).reshape(4, 6)
    p32, p64 = (np.array([0.1, 0.2, 0.3, 0.4, 0.0, 0.0], dt) for dt in ("float32", "float64"))
    cases = [("permutation", (np.arange(5, dtype=np.int32),)),
             # two rounds of sorts; with seed 0 two of the first round's 32-bit sort keys are equal: both sorts
             # are stable, so the tie keeps its order in both
             ("permutation", (100_000,)),
             *[("permutation", (x, axis, independent)) for axis, independent in [(1, False), (-1, True)]],
             ("choice", (10, (2, 3), False)), ("choice", (x, (5,), True, None, 1)),
             ("choice", (x, (2,), False, None, 1)), ("choice", (x, (2, 5), True, p64, 1)),
             ("choice", (6, (4,), False, p32)), ("choice", (x, (3,), False, p64, -1)), ("choice", (x, (0,)))]
    for seed in (0, 7):
        for ours, theirs in zip(draws(fr, fr.PRNGKey(seed), cases), draws(jax.random, jax.random.PRNGKey(seed),
                                                                              cases)):
            assert_same_bits(ours, theirs)


def test_choice_traced_and_vmapped():
    keys, jkeys = fr.split(fr.PRNGKey(1), 3), jax.random.split(jax.random.PRNGKey(1), 3)
    a, p = np.array([1.5, 2.5, 3.5]), np.array([0.5, 0.25, 0.25])
    options = [(True, None), (False, None), (True, p), (False, p)]
    draw = lambda k: [fr.choice(k, a, (2,), r, q) for r, q in options]                 # noqa: E731
    want = jax_quick(jax.vmap(lambda k: [jax.random.choice(k, a, (2,), r, q) for r, q in options]), jkeys)
    for traced, vmapped, theirs in zip(frame.function(draw)(keys[0]), frame.vmap(draw)(keys), want):
        assert_same_bits(traced, theirs[0])
        assert_same_bits(vmapped, theirs)


def test_choice_and_permutation_differentiate_as_gathers():
    key, jkey = fr.PRNGKey(2), jax.random.PRNGKey(2)
    a, w = np.array([0.5, -1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])
    options = [(True, None), (False, None), (True, np.array([0.1, 0.2, 0.3, 0.4]))]
    f = lambda a: sum(fnp.sum(fr.choice(key, a, (3,), r, p) ** 2 * w) * i for i, (r, p) in enumerate(options, 1))
    jf = lambda a: sum(jnp.sum(jax.random.choice(jkey, a, (3,), r, p) ** 2 * w) * i  # noqa: E731
                       for i, (r, p) in enumerate(options, 1))
    np.testing.assert_allclose(frame.grad(f)(a), jax_quick(jax.grad(jf), a), rtol=1e-14)
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(frame.grad(lambda x: fnp.sum(fr.permutation(key, x, 1)[:, 0] * x[:, 0]))(x),
                               jax.grad(lambda x: jnp.sum(jax.random.permutation(jkey, x, 1)[:, 0] * x[:, 0]))(x))


@pytest.mark.parametrize("dtype, seed", [("float32", 11), ("float64", 2 ** 40 + 5)])
def test_transform_samplers_equal_jax(dtype, seed):
    b = np.array([1.0, 2.0, 3.0], dtype)
    mean, cov = np.arange(3.0, dtype=dtype), _spd(3, dtype)
    floats = [("cauchy", ((50,), dtype)), ("laplace", ((50,), dtype)), ("logistic", ((50,), dtype)),
              ("lognormal", (0.5, (50,), dtype)), ("pareto", (b, (4, 3), dtype)),
              ("weibull_min", (2.0, 1.5, (50,), dtype)), ("rayleigh", (2.0, (50,), dtype)), ("maxwell", ((50,), dtype)),
              ("double_sided_maxwell", (b, 2.0, (5,), dtype)), ("triangular", (b - 2, b, b + 1, (4, 3), dtype)),
              ("orthogonal", (4, (2,), dtype)), ("multivariate_normal", (mean, np.stack([cov, 2 * cov]), (5, 2)))]
    if dtype == "float64":       # the other shapes and methods, once (each costs JAX a compile)
        floats += [("double_sided_maxwell", (1.0, 2.0, (), dtype)), ("orthogonal", (2, (), dtype, 5)),
                   ("orthogonal", (5, (), dtype, 2)), ("multivariate_normal", (mean, cov, None, None, "eigh")),
                   ("multivariate_normal", (mean, cov, (4,), None, "svd"))]
    exact = [("rademacher", ((40,), "int32")), ("rademacher", ((40,), dtype)),
             ("geometric", (np.array([0.3, 0.05], dtype), (20, 2), "int32")),
             ("geometric", (np.array([0.3, 0.05], dtype), (20, 2)))]
    key, jkey = fr.PRNGKey(seed), jax.random.PRNGKey(seed)
    ours, theirs = draws(fr, key, floats + exact), draws(jax.random, jkey, floats + exact)
    for o, t in zip(ours[:len(floats)], theirs):
        assert_close_to_jax(o, t, dtype)
    for o, t in zip(ours[len(floats):], theirs[len(floats):]):
        assert_same_bits(o, t)


def test_transform_samplers_traced_and_vmapped():
    keys, jkeys = fr.split(fr.PRNGKey(4), 3), jax.random.split(jax.random.PRNGKey(4), 3)
    cases = [("geometric", (0.2, (5,))), ("multivariate_normal", (np.zeros(2), _spd(2, "float64"), (3,))),
             ("orthogonal", (3,)), ("double_sided_maxwell", (0.0, 1.0, (4,)))]
    draw = lambda k: draws(fr, k, cases)                                              # noqa: E731
    want = jax_quick(jax.vmap(lambda k: [getattr(jax.random, n)(k, *a) for n, a in cases]), jkeys)
    for traced, eager, vmapped, theirs in zip(frame.function(draw)(keys[0]), draw(keys[0]), frame.vmap(draw)(keys),
                                              want):
        np.testing.assert_array_equal(traced, eager)
        assert_close_to_jax(vmapped, theirs, "float64")


def test_transform_samplers_differentiate_in_their_parameters():
    key, jkey = fr.PRNGKey(9), jax.random.PRNGKey(9)
    mean, cov = np.array([0.5, -1.0, 2.0]), _spd(3, "float64", seed=1)
    methods = ("cholesky", "eigh", "svd")
    jgrads = jax_quick(lambda m, c: [jax.grad(lambda m, c: jnp.sum(jax.random.multivariate_normal(
        jkey, m, c, (4,), method=method) ** 2), argnums=(0, 1))(m, c) for method in methods], mean, cov)
    for method, (jgm, jgc) in zip(methods, jgrads):
        gm, gc = frame.grad(lambda m, c: fnp.sum(fr.multivariate_normal(key, m, c, (4,), method=method) ** 2),
                            argnums=(0, 1))(mean, cov)
        np.testing.assert_allclose(gm, jgm, rtol=1e-12)
        # cov is symmetric, so only its symmetric part's gradient is defined: frame's cholesky reads the lower
        # triangle (as numpy's), JAX's symmetrizes; eigh's and svd's rules leave a few 1e-12 of rounding
        np.testing.assert_allclose((gc + gc.T) / 2, (jgc + jgc.T) / 2, rtol=1e-11, atol=1e-12)
    cases = [("lognormal", (0.7,), (6,)), ("pareto", (2.5,), (6,)), ("rayleigh", (1.5,), (6,)),
             ("weibull_min", (1.5, 2.0), (6,)), ("double_sided_maxwell", (0.5, 1.5), (6,)),
             ("triangular", (-1.0, 0.25, 2.0), (6,))]

    def loss(module, np_, params, name, shape):
        return np_.sum(getattr(module, name)(key if module is fr else jkey, *params, shape) ** 2)

    jgrads = jax_quick(lambda ps: [jax.grad(lambda p: loss(jax.random, jnp, p, name, shape))(p)
                                   for p, (name, _, shape) in zip(ps, cases)], [c[1] for c in cases])
    for (name, params, shape), jg in zip(cases, jgrads):
        g = frame.grad(lambda *p: loss(fr, fnp, p, name, shape), argnums=tuple(range(len(params))))(*params)
        np.testing.assert_allclose(g, jg, rtol=1e-12)


def test_new_samplers_statistics():
    key = fr.PRNGKey(0)
    n = 100_000
    r = fr.randint(key, (n,), 2, 7)
    assert r.min() == 2 and r.max() == 6
    np.testing.assert_allclose(np.bincount(r - 2) / n, [0.2] * 5, atol=0.006)
    assert sorted(fr.permutation(key, 50)) == list(range(50))
    assert sorted(fr.choice(key, 5, (5,), replace=False)) == list(range(5))
    counts = np.bincount(fr.choice(key, 3, (n,), p=np.array([0.2, 0.3, 0.5])), minlength=3) / n
    np.testing.assert_allclose(counts, [0.2, 0.3, 0.5], atol=0.006)
    assert abs(fr.geometric(key, 0.25, (n,)).mean() - 4) < 0.06
    assert abs(np.median(fr.laplace(key, (n,)))) < 0.02 and abs(fr.laplace(key, (n,)).var() - 2) < 0.05
    q = fr.orthogonal(key, 4, (3,))
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(4), (3, 4, 4)), atol=1e-13)
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    np.testing.assert_allclose(np.cov(fr.multivariate_normal(key, np.zeros(2), cov, (n,)).T), cov, atol=0.03)


def test_new_samplers_refuse_bad_input_by_name():
    from frame.errors import TraceError
    key = fr.PRNGKey(0)
    for call, error, match in [
            (lambda: fr.randint(key, (3,), 0, 5, "float64"), ShapeError, r"randint: dtype must be int32 or int64"),
            (lambda: fr.randint(key, (3,), np.zeros(4, np.int64), 5), ShapeError,
             r"randint: the parameters' shapes \[\(4,\), \(\)\] do not broadcast to shape \(3,\)"),
            (lambda: fr.permutation(key, 2.5), ShapeError, "permutation: x must be an integer or at least 1-d"),
            (lambda: fr.permutation(key, np.ones(3), axis=1), ShapeError, "permutation: axis 1 is out of range"),
            (lambda: fr.permutation(fr.split(key, 2), 4), ShapeError, r"permutation: takes one key of shape \(2,\)"),
            (lambda: frame.function(lambda k, n: fr.permutation(k, n))(key, np.int64(4)), TraceError,
             "permutation: x must be a concrete integer"),
            (lambda: fr.choice(key, 3, (4,), replace=False), ShapeError,
             r"choice: cannot take a larger sample \(size 4\) than the population \(size 3\)"),
            (lambda: fr.choice(key, 3, (2,), p=np.ones(4) / 4), ShapeError, r"choice: p must be None or 1-D .*\(3,\)"),
            (lambda: fr.choice(key, 0, (2,)), ShapeError, "choice: a must be greater than 0"),
            (lambda: fr.choice(key, np.ones((2, 3)), (2,), axis=2), ShapeError, "choice: axis 2 is out of range"),
            (lambda: frame.function(lambda k, a: fr.choice(k, a, (2,)))(key, np.int64(4)), TraceError,
             "choice: a must be a concrete integer"),
            (lambda: fr.multivariate_normal(key, np.zeros(3), np.eye(2)), ShapeError,
             r"multivariate_normal: needs mean \(\.\.\., n\) and cov \(\.\.\., n, n\), got mean \(3,\) and cov "
             r"\(2, 2\)"),
            (lambda: fr.multivariate_normal(key, np.zeros(2), np.eye(2), method="qr"), ShapeError,
             "multivariate_normal: method must be"),
            (lambda: fr.multivariate_normal(key, np.zeros((3, 2)), np.eye(2), (4,)), ShapeError,
             r"multivariate_normal: the batch shapes .* do not broadcast to shape \(4,\)"),
            (lambda: fr.orthogonal(key, -1), ShapeError, "orthogonal: n and m must be >= 0"),
            (lambda: frame.function(lambda k, n: fr.orthogonal(k, n))(key, np.int64(3)), TraceError,
             "orthogonal: n must be a concrete integer"),
            (lambda: fr.pareto(key, np.ones(3), (2,)), ShapeError, r"pareto: the parameters' shapes"),
            (lambda: fr.pareto(key, np.ones(3), None, "float32"), ShapeError,
             "pareto: cannot safely cast a parameter of dtype float64 to float32"),
            (lambda: fr.geometric(key, 0.5, (2,), "float64"), ShapeError, "geometric: dtype must be int32 or int64"),
            (lambda: fr.rademacher(key, (2,), "bool"), ShapeError, "rademacher: dtype must be"),
            (lambda: fr.cauchy(key, (2,), "int64"), ShapeError, "cauchy: dtype must be float32 or float64")]:
        with pytest.raises(error, match=match):
            call()


# --- gamma and what is drawn through it; poisson and binomial --------------------------------------------------
# frame runs JAX's rejection loops on the same keys, so the accept/reject decisions are JAX's and the draws agree
# to the float kernels' last bits (TRANSFORM_TOL: in float32 XLA's erf_inv, feeding the gamma loop's normal, is off
# by up to 1.5e-6 relative). Exponentials of log-space draws (chisquare, dirichlet, beta) carry the log's absolute
# rounding, |log x| ulp, as relative error, so their parameters keep |log x| below ~40, where rtol 1e-13 holds.
# JAX's side is one quick compile per test, vmapped over the keys (JAX's batched loops are its per-key loops).
GAMMA_ALPHAS = np.array([0.05, 0.3, 0.9, 1.0, 2.5, 7.0, 100.0, 1000.0])


def test_gamma_family_equals_jax_eager_traced_and_vmapped(jax_x64):
    a, a32 = GAMMA_ALPHAS, GAMMA_ALPHAS.astype("float32")
    # ball draws through generalized_normal, beta through loggamma: each of JAX's gamma loops costs its compile
    cases = [("gamma", (a[:, None], (8, 3))), ("loggamma", (a32, (2, 8), "float32")), ("beta", (a[1:], a[:0:-1])),
             ("dirichlet", (np.stack([a[2:5], a[4:7]]),)), ("chisquare", (a[1:] * 2,)), ("t", (a, (3, 8))),
             ("ball", (3, 1.5, (4,))), ("gamma", (a32, None, "float32"))]
    keys, jkeys = fr.split(fr.PRNGKey(2 ** 40 + 5), 2), jax.random.split(jax.random.PRNGKey(2 ** 40 + 5), 2)
    want = jax_quick(jax.vmap(lambda k: [getattr(jax.random, n)(k, *args) for n, args in cases]), jkeys)
    draw = lambda k: draws(fr, k, cases)                                              # noqa: E731
    eager = [draw(k) for k in keys]
    traced = frame.function(draw)(keys[1])
    for i, ((name, args), vmapped, batched, theirs) in enumerate(zip(cases, frame.vmap(draw)(keys), draw(keys),
                                                                       want)):
        dtype = "float32" if any(isinstance(v, str) and v == "float32" for v in args) else "float64"
        for k in range(2):
            assert_close_to_jax(eager[k][i], theirs[k], dtype)
        np.testing.assert_array_equal(traced[i], eager[1][i])
        assert_close_to_jax(vmapped, theirs, dtype)
        if name in ("gamma", "loggamma"):                                           # keys (..., 2) as a batch
            assert_close_to_jax(batched, theirs, dtype)
    # loggamma draws are the logs of gamma's; where a << 1 gamma's underflow (float32) and loggamma's do not
    g, lg = fr.gamma(keys[0], a32, None, "float32"), fr.loggamma(keys[0], a32, None, "float32")
    np.testing.assert_allclose(np.exp(lg), g, rtol=2e-6)


def test_gamma_family_differentiates_in_its_parameters(jax_x64):
    key, jkey = fr.PRNGKey(9), jax.random.PRNGKey(9)
    a = np.array([0.05, 0.7, 1.0, 2.5, 40.0, 1000.0])
    w = np.arange(1.0, 7.0)
    # gamma's rule and loggamma's (through beta); ball's p enters generalized_normal's gamma and its exponents.
    # (t, chisquare and dirichlet differentiate by the same rules and the chain rule; each case costs JAX a compile)
    cases = [("gamma", lambda m, k, a: m.gamma(k, a)), ("beta", lambda m, k, a: m.beta(k, a[1:5], a[4:0:-1])),
             ("ball", lambda m, k, a: m.ball(k, 3, a[3], (2,)))]

    def loss(module, np_, k, a, draw):
        x = draw(module, k, a)
        return np_.sum(np_.sin(x) * w[:x.shape[-1]])

    jgrads = jax_quick(lambda a: [jax.grad(lambda a: loss(jax.random, jnp, jkey, a, draw))(a) for _, draw in cases], a)
    # JAX's own sampler gradient (TF's igamma derivative) is off by ~2e-14 relative at a = 1000 against mpmath
    # (frame's by ~4e-15): within the 1e-12 here
    for (name, draw), jg in zip(cases, jgrads):
        np.testing.assert_allclose(frame.grad(lambda a: loss(fr, fnp, key, a, draw))(a), jg, rtol=1e-12, err_msg=name)
    # forward mode, per-key gradients under vmap and traced gradients use the same rule
    x, tangent = fr.gamma(key, a), np.linspace(0.5, 1.5, 6)
    _, jv = frame.jvp(lambda a: fr.gamma(key, a), (a,), (tangent,))
    np.testing.assert_allclose(jv, tangent * jgrads[0] / (np.cos(x) * w), rtol=1e-12)
    keys = fr.split(key, 2)
    per_key = frame.grad(lambda k, a: fnp.sum(fr.gamma(k, a)), argnums=1)
    np.testing.assert_array_equal(frame.vmap(per_key, in_axes=(0, None))(keys, a), [per_key(k, a) for k in keys])
    np.testing.assert_array_equal(frame.function(per_key)(keys[0], a), per_key(keys[0], a))


def test_gamma_gradient_is_the_implicit_reparameterisation():
    # against -(dP/da) / (dP/dx) at (a, x) in 40-digit arithmetic (P the regularised incomplete gamma function):
    # the series (x <= max(1, a)) and the continued fraction (beyond) both to a few ulp
    mp = pytest.importorskip("mpmath")
    from frame.random import _gamma_log_grad
    a = np.array([0.3, 0.3, 2.5, 2.5, 7.0, 100.0, 100.0, 1.0])
    x = np.array([0.5, 3.0, 1.2, 9.0, 15.0, 90.0, 112.0, 30.0])
    ours = np.asarray(_gamma_log_grad(a, np.log(x))) * x
    with mp.workdps(40):
        for ai, xi, o in zip(a, x, ours):
            ai, xi = mp.mpf(ai), mp.mpf(xi)
            d_da = mp.diff(lambda s: mp.gammainc(s, 0, xi, regularized=True), ai)
            want = -d_da / (mp.exp(-xi) * xi ** (ai - 1) / mp.gamma(ai))
            assert abs(o / float(want) - 1) < 1e-14, (ai, xi, o, want)


def test_poisson_and_binomial_equal_jax_bit_for_bit(jax_x64):
    # lam up to 400: above, XLA's float32 lgamma in the rejection test (off by ~2e-2 near lam = 1e4, numpy's by
    # ~4e-3) flips some decisions (module docstring)
    lam = np.array([0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 400.0])
    n, p = np.array([0.0, 5.0, 20.0, 100.0, 1000.0, 7.5, 50.0]), np.array([0.3, 0.9, 0.5, 0.05, 0.4, 0.2, 0.999])
    cases = [("poisson", (lam, (3, 7), "int32")), ("binomial", (n, p, (2, 7))),
             ("binomial", (n, p.astype("float32"), None, "float32"))]
    keys, jkeys = fr.split(fr.PRNGKey(42), 3), jax.random.split(jax.random.PRNGKey(42), 3)
    want = jax_quick(jax.vmap(lambda k: [getattr(jax.random, n)(k, *args) for n, args in cases]), jkeys)
    draw = lambda k: draws(fr, k, cases)                                              # noqa: E731
    traced = frame.function(draw)(keys[2])
    for i, (vmapped, batched, theirs) in enumerate(zip(frame.vmap(draw)(keys), draw(keys), want)):
        for k in range(3):
            assert_same_bits(draw(keys[k])[i], theirs[k])
        assert_same_bits(traced[i], theirs[2])
        assert_same_bits(vmapped, theirs)
        assert_same_bits(batched, theirs)


def test_rejection_samplers_statistics():
    key = fr.PRNGKey(0)
    m = 20_000
    for a in (0.3, 4.0):
        g = fr.gamma(key, a, (m,))
        assert abs(g.mean() - a) < 5 * np.sqrt(a / m) and abs(g.var() / a - 1) < 0.1
    assert abs(fr.beta(key, 2.0, 3.0, (m,)).mean() - 0.4) < 0.005
    np.testing.assert_allclose(fr.dirichlet(key, np.array([1.0, 2.0, 5.0]), (m,)).mean(0), [0.125, 0.25, 0.625],
                               atol=0.006)
    assert abs(fr.chisquare(key, 3.0, (m,)).mean() - 3) < 0.1 and abs(fr.t(key, 5.0, (m,)).var() - 5 / 3) < 0.15
    assert abs(fr.poisson(key, 30.0, (m,)).mean() - 30) < 0.2 and abs(fr.binomial(key, 40, 0.3, (m,)).mean() - 12) < 0.1
    assert np.all(np.sum(np.abs(fr.ball(key, 3, 1.5, (1000,))) ** 1.5, -1) <= 1)


def test_rejection_samplers_refuse_bad_input_by_name():
    from frame.errors import TraceError
    key = fr.PRNGKey(0)
    for call, error, match in [
            (lambda: fr.gamma(key, np.ones(3), (2,)), ShapeError,
             r"gamma: the parameters' shapes \[\(3,\)\] do not broadcast to shape \(2,\)"),
            (lambda: fr.loggamma(key, 1.0, (2,), "int32"), ShapeError, "loggamma: dtype must be float32 or float64"),
            (lambda: fr.beta(key, np.ones(2), np.ones(3)), ShapeError, "beta: the parameters' shapes"),
            (lambda: fr.beta(key, np.ones(2), 1.0, None, "float32"), ShapeError,
             "beta: cannot safely cast a parameter of dtype float64 to float32"),
            (lambda: fr.dirichlet(key, 1.0), ShapeError, r"dirichlet: alpha must be at least 1-d"),
            (lambda: fr.dirichlet(key, np.ones((2, 3)), (4,)), ShapeError,
             r"dirichlet: alpha's batch shape \(2,\) does not broadcast to shape \(4,\)"),
            (lambda: fr.chisquare(key, np.ones(2), None, "float32"), ShapeError, "chisquare: cannot safely cast"),
            (lambda: fr.t(key, np.ones(3), (5,)), ShapeError, "t: the parameters' shapes"),
            (lambda: fr.generalized_normal(key, np.ones(2)), ShapeError, "generalized_normal: p must be a scalar"),
            (lambda: fr.ball(key, -1), ShapeError, "ball: d must be >= 0"),
            (lambda: frame.function(lambda k, d: fr.ball(k, d))(key, np.int64(3)), TraceError,
             "ball: d must be a concrete integer"),
            (lambda: fr.poisson(key, 1.0, (2,), "float64"), ShapeError, "poisson: dtype must be int32 or int64"),
            (lambda: fr.binomial(key, np.ones(2), np.ones(3) / 2), ShapeError, "binomial: the parameters' shapes"),
            (lambda: fr.gamma(np.zeros(3, np.int64), 1.0), ShapeError, r"gamma: keys must be integers of shape")]:
        with pytest.raises(error, match=match):
            call()
    # empty draws keep their shapes
    assert fr.gamma(key, np.ones((2, 0))).shape == (2, 0) and fr.poisson(fr.split(key, 0), 1.0, (3,)).shape == (0, 3)
    assert fr.binomial(fr.split(key, 0), 3, 0.5, (2,), "float32").dtype == np.float32
