"""frame.lax's gather/scatter with general dimension numbers against jax.lax: each case runs the same call
on both modules, values eagerly and under frame.function (the indices then traced), and the gradient of
sum(out * w) in the float operands under frame.grad against jax.grad; then the refusals."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax as jlax  # noqa: E402

import frame  # noqa: E402
import frame.lax as flax_  # noqa: E402
import frame.numpy as fnp  # noqa: E402
from frame import ShapeError  # noqa: E402
from tests.frontend.lax_check import assert_same_values, assert_matches_jax  # noqa: E402

pytestmark = pytest.mark.usefixtures("jax_x64")
RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, (5, 4))
X3 = RNG.uniform(-1, 1, (3, 5, 4))
XI = np.arange(20, dtype=np.int32).reshape(5, 4)


def idx(*values, shape=None):
    a = np.array(values, np.int64)
    return a.reshape(shape) if shape else a


def g(m, offset, collapsed, start, batch=(), ibatch=()):
    return m.GatherDimensionNumbers(offset_dims=offset, collapsed_slice_dims=collapsed, start_index_map=start,
                                    operand_batching_dims=batch, start_indices_batching_dims=ibatch)


def s(m, window, inserted, to_operand, batch=(), ibatch=()):
    return m.ScatterDimensionNumbers(update_window_dims=window, inserted_window_dims=inserted,
                                     scatter_dims_to_operand_dims=to_operand, operand_batching_dims=batch,
                                     scatter_indices_batching_dims=ibatch)


ROWS = idx(1, 3, 0, 3, shape=(4, 1))
OOB_ROWS = idx(4, 5, -1, 0, 7, shape=(5, 1))
POINTS = idx(0, 1, 4, 3, 2, 2, 1, 0, 3, 3, 0, 1, shape=(2, 3, 2))
WINDOW_STARTS = idx(0, 0, 2, 3, -1, 1, 1, 4, 3, 2, shape=(5, 2))   # (axis 1, axis 0): some out of bounds
BATCHED = idx(4, 0, 2, 2, 1, 3, shape=(3, 2, 1))
UNIQUE_POINTS = idx(0, 1, 4, 3, 2, 2, shape=(3, 2))
U_ROWS = RNG.uniform(-1, 1, (4, 4))
U_OOB = RNG.uniform(-1, 1, (5, 4))
U_WINDOWS = RNG.uniform(-1, 1, (5, 2, 3))
U_BATCHED = RNG.uniform(-1, 1, (3, 2, 4))
U_COLUMNS = RNG.uniform(0.5, 1.5, (5, 4))
POS = RNG.uniform(0.5, 1.5, (5, 4))

# name: (call(lax module, *arrays), arrays, argnums to differentiate (None: values only))
CASES = {
    # gather
    "row x[i]": (lambda m, x, i: m.gather(x, i, g(m, (1,), (0,), (0,)), (1, 4)), (X, ROWS), (0,)),
    "column x[:, i]": (lambda m, x, i: m.gather(x, i, g(m, (0,), (1,), (1,)), (5, 1)), (X, ROWS), (0,)),
    "points x[i, j]": (lambda m, x, i: m.gather(x, i, g(m, (), (0, 1), (0, 1)), (1, 1)), (X, POINTS), (0,)),
    "rows, offset between batch axes": (lambda m, x, i: m.gather(x, i, g(m, (1,), (0,), (0,)), (1, 4)),
                                        (X, BATCHED[:2]), (0,)),
    "windows clip": (lambda m, x, i: m.gather(x, i, g(m, (1, 2), (), (1, 0)), (2, 3), mode="clip"),
                     (X, WINDOW_STARTS), (0,)),
    # PROMISE_IN_BOUNDS (the default) clamps out-of-bounds starts, JAX's gradient drops them (it documents
    # gradients as incorrect there): the values with out-of-bounds starts, the gradient without
    "windows default (clamped)": (lambda m, x, i: m.gather(x, i, g(m, (0, 1), (), (1, 0)), (2, 3)),
                                  (X, WINDOW_STARTS), None),
    "windows default": (lambda m, x, i: m.gather(x, i, g(m, (0, 1), (), (1, 0)), (2, 3)),
                        (X, np.clip(WINDOW_STARTS, 0, (1, 3))), (0,)),
    "windows fill": (lambda m, x, i: m.gather(x, i, g(m, (0, 2), (), (1, 0)), (2, 3), mode="fill"),
                     (X, WINDOW_STARTS), (0,)),
    "windows fill_value": (lambda m, x, i: m.gather(x, i, g(m, (1, 2), (), (1, 0)), (2, 3),
                                                    mode=m.GatherScatterMode.FILL_OR_DROP, fill_value=-3.0),
                           (X, WINDOW_STARTS), (0,)),
    "rows fill int": (lambda m, x, i: m.gather(x, i, g(m, (1,), (0,), (0,)), (1, 4), mode="fill"),
                      (XI, OOB_ROWS), None),
    "whole window, middle axis": (lambda m, x, i: m.gather(x, i, g(m, (1, 2), (0,), (0,)), (1, 5, 2)),
                                  (X3, idx(2, 0, 1, shape=(3, 1))), (0,)),
    "no index vector": (lambda m, x, i: m.gather(x, i, g(m, (1, 2), (), ()), (5, 4)),
                        (X, np.zeros((3, 0), np.int64)), (0,)),
    "batched": (lambda m, x, i: m.gather(x, i, g(m, (2,), (1,), (1,), (0,), (0,)), (1, 1, 4)),
                (X3, BATCHED), (0,)),
    "batched, indices batch axis second": (
        lambda m, x, i: m.gather(x, i, g(m, (1,), (1,), (1,), (0,), (1,)), (1, 1, 4), mode="fill"),
        (X3, np.transpose(BATCHED, (1, 0, 2))), (0,)),
    # scatters
    "scatter_add rows, duplicates": (lambda m, x, i, u: m.scatter_add(x, i, u, s(m, (1,), (0,), (0,))),
                                     (X, ROWS, U_ROWS), (0, 2)),
    "scatter_sub columns": (lambda m, x, i, u: m.scatter_sub(x, i, u, s(m, (0,), (1,), (1,))),
                            (X, ROWS, U_COLUMNS), (0, 2)),
    "scatter_add windows drop": (lambda m, x, i, u: m.scatter_add(x, i, u, s(m, (1, 2), (), (1, 0))),
                                 (X, WINDOW_STARTS, U_WINDOWS), (0, 2)),
    "scatter_add windows clip": (lambda m, x, i, u: m.scatter_add(x, i, u, s(m, (1, 2), (), (1, 0)), mode="clip"),
                                 (X, WINDOW_STARTS, U_WINDOWS), (0, 2)),
    "scatter_add windows promise (drops)": (   # values only, as the default gather above
        lambda m, x, i, u: m.scatter_add(x, i, u, s(m, (1, 2), (), (1, 0)), mode="promise_in_bounds"),
        (X, WINDOW_STARTS, U_WINDOWS), None),
    "scatter_add rows drop": (lambda m, x, i, u: m.scatter_add(x, i, u, s(m, (1,), (0,), (0,))),
                              (X, OOB_ROWS, U_OOB), (0, 2)),
    "scatter_mul duplicates": (lambda m, x, i, u: m.scatter_mul(x, i, u, s(m, (1,), (0,), (0,))),
                               (X, ROWS, U_ROWS), None),
    "scatter_mul unique": (lambda m, x, i, u: m.scatter_mul(x, i, u, s(m, (), (0, 1), (0, 1)), unique_indices=True),
                           (X, UNIQUE_POINTS, U_ROWS[0, :3]), (0, 2)),
    "scatter_min duplicates": (lambda m, x, i, u: m.scatter_min(x, i, u, s(m, (1,), (0,), (0,))),
                               (X, ROWS, U_ROWS), (0, 2)),
    "scatter_max points drop": (lambda m, x, i, u: m.scatter_max(x, i, u, s(m, (), (0, 1), (0, 1))),
                                (X, np.where(POINTS == 4, 9, POINTS),
                                 RNG.uniform(-1, 1, (2, 3))), (0, 2)),
    "scatter set unique points": (lambda m, x, i, u: m.scatter(x, i, u, s(m, (), (0, 1), (0, 1)), unique_indices=True),
                                  (X, UNIQUE_POINTS, U_ROWS[1, :3]), (0, 2)),
    "scatter set windows": (lambda m, x, i, u: m.scatter(x, i, u, s(m, (1,), (0,), (0,))),
                            (X, idx(4, 0, 2, shape=(3, 1)), U_ROWS[:3]), (0, 2)),
    "scatter batched": (lambda m, x, i, u: m.scatter_add(x, i, u, s(m, (2,), (1,), (1,), (0,), (0,))),
                        (X3, BATCHED, U_BATCHED), (0, 2)),
    "scatter_mul whole operand": (lambda m, x, i, u: m.scatter_mul(x, i, u, s(m, (1, 2), (), ())),
                                  (POS, np.zeros((2, 0), np.int64), np.stack([POS, POS[::-1]])), None),
    # index_take (negative indices wrap)
    "index_take": (lambda m, x, i, j: m.index_take(x, (i, j), (0, 2)), (X3, idx(-1, 0, 2, 1), idx(3, -2, 0, 1)),
                   (0,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gather_scatter_match_jax(name):
    call, args, argnums = CASES[name]
    # a fill value (NaN) gets no gradient: those outputs leave the weighted sum
    assert_matches_jax(name, call, args, argnums, flax_, RNG, nan_to_zero=True)


def test_scatter_apply_matches_jax():
    """func once per hit (duplicates twice), out-of-bounds windows dropped; constant and traced indices."""
    i = idx(1, 1, 4, 6, shape=(4, 1))
    dn = (lambda m: s(m, (), (0,), (0,)))
    want = jlax.scatter_apply(X[:, 0], i, lambda v: v * 2 + 1, dn(jlax), update_shape=(4,))
    call = (lambda v, j: flax_.scatter_apply(v, j, lambda a: a * 2 + 1, dn(flax_), update_shape=(4,)))
    assert_same_values(call(X[:, 0], i), want, "scatter_apply eager")
    assert_same_values(frame.function(call)(X[:, 0], i), want, "scatter_apply traced")


def test_second_derivatives_match_jax():
    """A gather (fill) feeding a scatter_mul differentiates twice: the Hessian-vector product against JAX's."""
    def f(m, x):
        total = jnp.sum if m is jlax else fnp.sum
        rows = m.gather(x, WINDOW_STARTS, g(m, (1, 2), (), (1, 0)), (2, 3), mode="fill", fill_value=0.0)
        return total(m.scatter_mul(x, UNIQUE_POINTS, rows[:3, 0, 0] ** 2, s(m, (), (0, 1), (0, 1)),
                                   unique_indices=True) ** 2)
    got = frame.grad(lambda v: fnp.sum(frame.grad(lambda u: f(flax_, u))(v) * POS))(X)
    want = jax.jit(jax.grad(lambda v: jnp.sum(jax.grad(lambda u: f(jlax, u))(v) * POS)))(X)
    assert_same_values(got, want, "hvp")


def test_mode_parsing_is_laxs():
    mode = flax_.GatherScatterMode
    assert [mode.from_any(v) for v in ("clip", "fill", "drop", None, "promise_in_bounds", mode.CLIP)] == \
        [mode.CLIP, mode.FILL_OR_DROP, mode.FILL_OR_DROP, mode.FILL_OR_DROP, mode.PROMISE_IN_BOUNDS, mode.CLIP]
    with pytest.raises(ShapeError, match="Unknown gather mode"):
        mode.from_any("wrap")


@pytest.mark.parametrize("call, message", [
    (lambda m: m.gather(X, ROWS, g(m, (1,), (0,), (0,)), (1, 5)), r"lax.gather: slice_sizes .*\(5, 4\)"),
    (lambda m: m.gather(X, ROWS, g(m, (1,), (0,), (0,)), (2, 4)), "slice size 1"),
    (lambda m: m.gather(X, ROWS, g(m, (1,), (0,), (0, 1)), (1, 4)), "start_index_map"),
    (lambda m: m.gather(X, POINTS, g(m, (), (1, 0), (0, 1)), (1, 1)), "collapsed_slice_dims .* sorted"),
    (lambda m: m.gather(X, ROWS, g(m, (2,), (0,), (0,)), (1, 4)), r"offset_dims .* \[0, 2\)"),
    (lambda m: m.gather(X, ROWS, g(m, (), (0,), (0,)), (1, 4)), "every operand axis"),
    (lambda m: m.gather(X, ROWS.astype(float), g(m, (1,), (0,), (0,)), (1, 4)), "integers"),
    (lambda m: m.gather(X3, BATCHED[:2], g(m, (2,), (1,), (1,), (0,), (0,)), (1, 1, 4)), "same sizes"),
    (lambda m: m.gather(X3, BATCHED, g(m, (2,), (1,), (1,), (0,), (2,)), (1, 1, 4)), "batching dims"),
    (lambda m: m.scatter_add(X, ROWS, np.ones((4, 5)), s(m, (1,), (0,), (0,))), r"lax.scatter_add: .*fit"),
    (lambda m: m.scatter(X, ROWS, U_ROWS[:3], s(m, (1,), (0,), (0,))), r"lax.scatter: .*batch shape"),
    (lambda m: m.scatter_mul(X, ROWS, U_ROWS, s(m, (0, 1), (), (0,))), "rank 3"),
    (lambda m: m.scatter_min(X3, BATCHED, U_BATCHED, s(m, (2,), (0, 1), (1,), (0,), (0,))), "disjoint"),
    (lambda m: m.scatter_max(X, ROWS, U_ROWS.astype(np.float32), s(m, (1,), (0,), (0,))), "one dtype"),
])
def test_refusals_name_the_function(call, message):
    """What lax refuses (with TypeError), frame refuses with ShapeError naming the function and shapes."""
    with pytest.raises((TypeError, ValueError)):
        call(jlax)
    with pytest.raises(ShapeError, match=message):
        call(flax_)
