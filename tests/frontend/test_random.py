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
