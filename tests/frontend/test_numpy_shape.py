"""frame.numpy's indexing (`x[...]` with negative steps, integer arrays, boolean masks), the
functional updates `x.at[...]`, ragged splits, derivatives of the list-taking functions, and the
errors for what numpy or frame refuses."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import ShapeError, TraceError
from frame.interop import check_derivatives

X = np.random.default_rng(0).uniform(-1.0, 1.0, (3, 4, 5))
I = np.array([2, 0, -1, 2])

INDICES = [
    np.s_[::-1], np.s_[5:1:-2], np.s_[..., ::-2], np.s_[1:, ::-1, 4:0:-3], np.s_[:0:-1],
    np.s_[I], np.s_[:, [3, 0]], np.s_[I, I], np.s_[0, :, [1, -1]], np.s_[[[1], [0]], :, [1, 3, 2]],
    np.s_[X > 0.2], np.s_[:, X[0] > 0], np.s_[None, [1], None, 2], np.s_[..., [-1, 0]],
    np.s_[1, [0, -1], ::-1], np.s_[1:2, [0, 2], [3, 1]], np.s_[np.zeros(0, np.int64)], np.s_[[]],
    np.s_[X[:, 0, 0] > 0, ::-1, 2],
]


@pytest.mark.parametrize("index", INDICES, ids=range(len(INDICES)))
def test_indexing_agrees_with_numpy_eagerly_compiled_and_in_derivatives(index):
    want = X[index]
    for got in (fnp.getitem(X, index), frame.function(lambda t: t[index])(X)):
        assert np.shape(got) == want.shape
        np.testing.assert_array_equal(got, want)
    if want.size:
        check_derivatives(lambda t: t[index], X, orders=(1, 2))


def test_traced_integer_indices_gather_and_count_from_the_end():
    f = frame.function(lambda x, i: x[i, :, i])
    i = np.array([1, -1, 0], np.int32)
    np.testing.assert_array_equal(f(X, i), X[i, :, i])
    g = frame.grad(lambda x, i: fnp.sum(x[:, i] ** 2.0))(X, np.array([0, 0, 3]))
    want = np.zeros_like(X)
    np.add.at(want, (slice(None), np.array([0, 0, 3])), 2 * X[:, [0, 0, 3]])
    np.testing.assert_allclose(g, want)


@pytest.mark.parametrize("index, error, pattern", [
    (np.s_[5], ShapeError, "out of bounds for axis 0 with size 3"),
    (np.s_[:, np.array([0, 4])], ShapeError, "index 4 is out of bounds for axis 1 with size 4"),
    (np.s_[np.array([0.5])], ShapeError, "integer"),
    (np.s_[X[0] > 0], ShapeError, r"boolean index of shape \(4, 5\)"),
    (np.s_[True], ShapeError, "scalar boolean"),
    (np.s_[::0], ShapeError, "step 0"),
    (np.s_[..., 0, ...], ShapeError, "single ellipsis"),
    (np.s_[0, 0, 0, 0], ShapeError, "too many indices"),
    (np.s_[np.array([0, 1]), np.array([0, 1, 2])], ShapeError, "do not broadcast"),
    (np.s_["a"], ShapeError, "valid indices"),
])
def test_bad_indices_raise_frame_errors(index, error, pattern):
    for run in (lambda: fnp.getitem(X, index), lambda: frame.trace(lambda t: t[index], X)):
        with pytest.raises(error, match=pattern):
            run()


def test_a_traced_mask_is_refused_pointing_to_where():
    with pytest.raises(TraceError, match="where"):
        frame.trace(lambda x, m: x[m], X, X > 0)


def test_an_index_out_of_range_at_run_time_is_a_frame_error():
    f = frame.function(lambda x, i: x[i])
    with pytest.raises(ShapeError, match="'gather': index 7 is out of bounds for axis 0 with size 3"):
        f(X, np.array([7]))


# -- x.at[...] -----------------------------------------------------------------------------------
DUPLICATES = (np.array([0, 2, 0]), slice(None), np.array([1, 1, 1]))   # position (0, :, 1) twice


def _numpy_update(x, index, v, how):
    out = x.copy()
    if how == "set":
        out[index] = v
    else:
        getattr(np, {"add": "add", "multiply": "multiply", "min": "minimum", "max": "maximum"}[how]).at(out, index, v)
    return out


@pytest.mark.parametrize("how", ["set", "add", "multiply", "min", "max"])
@pytest.mark.parametrize("index", [np.s_[1], np.s_[:, ::-2], np.s_[I, 1:3], DUPLICATES, np.s_[X > 0.5]],
                         ids=["int", "slice", "array", "duplicates", "mask"])
def test_at_updates_agree_with_numpy(how, index):
    v = np.random.default_rng(1).uniform(-1.0, 1.0, X[index].shape)
    want = _numpy_update(X, index, v, how)
    np.testing.assert_array_equal(getattr(fnp.at(X)[index], how)(v), want)
    np.testing.assert_array_equal(frame.function(lambda x, u: getattr(x.at[index], how)(u))(X, v), want)


@pytest.mark.parametrize("how", ["set", "add", "multiply", "min", "max"])
def test_at_update_derivatives_match_jax(how):
    index, v = np.s_[1:, np.array([3, 0])], np.random.default_rng(2).uniform(-1.0, 1.0, (2, 2, 5))

    def f(x, u):
        return getattr(x.at[index], how)(u)
    check_derivatives(f, X, v, argnums=(0, 1), orders=(1, 2))


def test_at_with_duplicates_set_differentiates_only_the_written_value_add_every_one():
    index = (np.array([1, 1, 0]), 2, 3)
    v = np.array([1.0, 2.0, 3.0])
    g_set = frame.grad(lambda u: fnp.sum(fnp.at(X)[index].set(u) ** 2.0))(v)
    np.testing.assert_allclose(g_set, [0.0, 4.0, 6.0])   # the last duplicate is written, as numpy does
    g_add = frame.grad(lambda u: fnp.sum(fnp.at(X)[index].add(u)))(v)
    np.testing.assert_allclose(g_add, [1.0, 1.0, 1.0])
    gx = frame.grad(lambda x: fnp.sum(x.at[index].set(v) * X))(X)
    want = X.copy()
    want[1, 2, 3] = want[0, 2, 3] = 0.0   # overwritten positions get no gradient
    np.testing.assert_allclose(gx, want)


def test_at_values_broadcast_and_get_reads():
    np.testing.assert_array_equal(fnp.at(X)[:, 0].set(7.0), _numpy_update(X, np.s_[:, 0], 7.0, "set"))
    np.testing.assert_array_equal(frame.function(lambda x: x.at[I].get())(X), X[I])
    with pytest.raises(ShapeError, match="broadcast"):
        fnp.at(X)[0].add(np.ones(3))


def test_multiply_with_traced_or_repeated_indices_has_no_derivative_to_the_values():
    with pytest.raises(frame.GradientError, match="unique indices"):
        frame.grad(lambda u: fnp.sum(fnp.at(X)[np.array([0, 0])].multiply(u)))(np.ones((2, 4, 5)))


# -- functions of lists, and ragged splits -----------------------------------------------------------
@pytest.mark.parametrize("name, shapes, kwargs", [
    ("stack", [(2, 3), (2, 3)], {"axis": -1}), ("hstack", [(2, 3), (2, 1)], {}), ("vstack", [(3,), (3,)], {}),
    ("column_stack", [(3,), (3, 2)], {}), ("concatenate", [(2, 3), (1, 3)], {}), ("concatenate", [(2,), (3, 1)], {"axis": None}),
])
def test_list_taking_functions_differentiate_like_jax(name, shapes, kwargs):
    rng = np.random.default_rng(4)
    xs = [rng.uniform(-1.0, 1.0, s) for s in shapes]
    np.testing.assert_array_equal(getattr(fnp, name)(xs, **kwargs), getattr(np, name)(xs, **kwargs))
    check_derivatives(lambda arrays: getattr(fnp, name)(arrays, **kwargs), xs, orders=(1, 2))


@pytest.mark.parametrize("args", [(3,), ([1, 3],), ([-1, 10],), ([3, 1],), (5,)])
def test_array_split_gives_numpy_pieces(args):
    x = np.arange(16.0).reshape(4, 4)
    for axis in (0, -1):
        got, want = fnp.array_split(x, *args, axis=axis), np.array_split(x, *args, axis=axis)
        assert isinstance(got, list) and [p.shape for p in got] == [p.shape for p in want]
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_split_derivatives_match_jax():
    check_derivatives(lambda x: fnp.array_split(x, 3, axis=1), X, orders=(1, 2))


@pytest.mark.parametrize("call, pattern", [
    (lambda: fnp.split(X, 2), "does not split into 2 equal sections"),
    (lambda: fnp.array_split(X, 0), "larger than 0"),
    (lambda: fnp.stack([X, X[0]]), "same shape"),
    (lambda: fnp.stack([]), "at least one"),
    (lambda: fnp.pad(X, 1, mode="median"), "mode 'median' is not supported"),
    (lambda: fnp.pad(X, -1), "non-negative"),
    (lambda: fnp.pad(np.zeros((0, 2)), 1, mode="reflect"), "empty"),
    (lambda: fnp.repeat(X, [1, 2]), "repeats"),
    (lambda: fnp.repeat(X, -1), "non-negative"),
    (lambda: fnp.tile(X, -1), "non-negative"),
    (lambda: fnp.moveaxis(X, (0, 1), 0), "as many"),
    (lambda: fnp.diagonal(X, axis1=1, axis2=-2), "cannot be the same"),
    (lambda: fnp.diag(X), "1-d or 2-d"),
    (lambda: fnp.take_along_axis(X, np.zeros((3, 4), np.int64), 0), "same rank"),
    (lambda: fnp.take(X, 3, axis=0), "out of bounds"),
    (lambda: fnp.meshgrid(X[0, 0], indexing="xz"), "indexing"),
    (lambda: fnp.roll(X, (1, 2, 3), axis=(0, 1)), "broadcast"),
    (lambda: fnp.tril(np.float64(1.0)), "rank >= 1"),
])
def test_bad_arguments_raise_shape_errors(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()


def test_repeat_needs_concrete_counts():
    with pytest.raises(TraceError, match="concrete"):
        frame.trace(lambda x, r: fnp.repeat(x, r), X, np.array([1, 2, 0]))


def test_numpy_functions_on_tracers_run_frame_numpy():
    f = frame.function(lambda x: np.flip(np.roll(np.take(x, [2, 0], axis=1), 1, axis=0), -1))
    np.testing.assert_array_equal(f(X), np.flip(np.roll(np.take(X, [2, 0], axis=1), 1, axis=0), -1))


def test_jax_agrees_on_reversed_slices_and_gathers_of_traced_indices():
    i = np.array([2, 1], np.int32)
    with jax.enable_x64(True):
        want = np.asarray(jnp.asarray(X)[::-1][i, 1:, jnp.asarray([0, -1])])
    np.testing.assert_array_equal(frame.function(lambda x, j: x[::-1][j, 1:, np.array([0, -1])])(X, i), want)


# -- broadcast_*, block, insert, resize, trim_zeros, fill_diagonal, put_along_axis -------------------
def test_block_differentiates_like_jax_and_promotes_like_numpy():
    rng = np.random.default_rng(5)
    blocks = [[rng.uniform(-1, 1, (2, 2)), rng.uniform(-1, 1, (2, 1))], [rng.uniform(-1, 1, (1, 3))]]
    np.testing.assert_array_equal(frame.function(lambda b: fnp.block(b))(blocks), np.block(blocks))
    check_derivatives(lambda b: fnp.block(b), blocks, orders=(1, 2))
    mixed = frame.function(lambda a, b: fnp.block([a, b]))(np.ones(2, np.int32), np.ones(1, np.float32))
    assert mixed.dtype == np.block([np.ones(2, np.int32), np.ones(1, np.float32)]).dtype


def test_broadcast_arrays_of_tracers_and_constants():
    got = frame.function(lambda x: fnp.broadcast_arrays(x, [[1.0], [2.0]], 3))(X[0, 0])
    want = np.broadcast_arrays(X[0, 0], [[1.0], [2.0]], 3)
    assert isinstance(got, tuple) and len(got) == 3
    for a, b in zip(got, want):
        assert (a.shape, a.dtype) == (b.shape, b.dtype)
        np.testing.assert_array_equal(a, b)


def test_insert_traced_values_get_derivatives_and_numpy_runs_frame_insert():
    v = np.random.default_rng(6).uniform(-1, 1, (3, 5))
    w = np.random.default_rng(6).uniform(-1, 1, (4, 2))   # broadcast to (3, 4, 2)
    np.testing.assert_array_equal(frame.function(lambda x, u: np.insert(x, [1, 1], u, axis=2))(X, w),
                                  np.insert(X, [1, 1], w, axis=2))
    check_derivatives(lambda x, u: fnp.insert(x, 2, u, axis=1), X, v, argnums=(0, 1), orders=(1, 2))


def test_trim_zeros_of_concrete_arrays_as_numpy():
    b = np.array([[0, 0, 2, 3, 0, 0], [0, 1, 0, 3, 0, 0], [0, 0, 0, 0, 0, 0]])
    for kwargs in ({}, {"axis": -1}, {"trim": "f", "axis": 0}):
        np.testing.assert_array_equal(fnp.trim_zeros(b, **kwargs), np.trim_zeros(b, **kwargs))


def test_fill_diagonal_and_put_along_axis_return_updated_copies_with_traced_values_and_indices():
    a = X[0]
    got = frame.function(lambda a, v: fnp.fill_diagonal(a, v, inplace=False))(a, np.array([7.0, 8.0]))
    want = a.copy()
    np.fill_diagonal(want, [7.0, 8.0])
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(a, want)   # the argument is left as it was
    i = np.array([[2], [0], [-1], [1]])
    f = frame.function(lambda x, i, u: fnp.put_along_axis(x, i, u, axis=1, inplace=False))
    want = X[:, :, 0].T.copy()
    np.put_along_axis(want, i, -1.0, axis=1)
    np.testing.assert_array_equal(f(X[:, :, 0].T, i, np.asarray(-1.0)), want)
    # traced indices: derivatives reach the values written and the entries left alone
    g_x, g_u = frame.grad(lambda x, u: fnp.sum(fnp.put_along_axis(x, i, u, 1, inplace=False) * X[:, :, 0].T),
                          argnums=(0, 1))(X[:, :, 0].T, np.ones((4, 1)))
    written = np.zeros((4, 3), bool)
    np.put_along_axis(written, i, True, axis=1)
    np.testing.assert_allclose(g_x, np.where(written, 0.0, X[:, :, 0].T))
    np.testing.assert_allclose(g_u, np.take_along_axis(X[:, :, 0].T, i, axis=1))


def test_put_along_axis_with_traced_indices_matches_numpy():
    i = np.array([[2, 0], [1, 1], [-1, 0]])
    u = np.random.default_rng(7).uniform(-1, 1, (3, 2))
    want = X[:, :3, 0].copy()
    np.put_along_axis(want, i, u, axis=1)
    got = frame.function(lambda x, i, u: fnp.put_along_axis(x, i, u, 1, inplace=False))(X[:, :3, 0], i, u)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("call, pattern", [
    (lambda: fnp.fill_diagonal(X[0], 1.0), r"op 'fill_diagonal': .*immutable.*inplace=False"),
    (lambda: fnp.put_along_axis(X, np.zeros((1, 1, 1), int), 1.0, 0), r"op 'put_along_axis': .*immutable.*inplace=False"),
    (lambda: fnp.fill_diagonal(X[0, 0], 1.0, inplace=False), r"op 'fill_diagonal': a must be at least 2-d"),
    (lambda: fnp.fill_diagonal(X, 1.0, inplace=False), r"op 'fill_diagonal': every axis .* same length"),
    (lambda: fnp.put_along_axis(X, np.zeros((1, 1), int), 1.0, 0, inplace=False), r"'put_along_axis': .*same rank"),
    (lambda: fnp.put_along_axis(X, np.full((1, 1, 1), 3), 1.0, 0, inplace=False), r"index 3 is out of bounds for axis 0"),
    (lambda: fnp.put_along_axis(X, np.zeros((2, 2), int), 1.0, None, inplace=False), r"axis=None, indices must be 1-d"),
    (lambda: fnp.put_along_axis(X, np.zeros((2, 1, 1), int), 1.0, 1, inplace=False), r"'put_along_axis': .*broadcast"),
    (lambda: fnp.broadcast_shapes((2, 3), (3, 2)), r"op 'broadcast_shapes': .*do not broadcast"),
    (lambda: fnp.broadcast_shapes((2, -1)), r"op 'broadcast_shapes': negative"),
    (lambda: fnp.broadcast_arrays(X, X[:, 0]), r"op 'broadcast_arrays': .*do not broadcast"),
    (lambda: fnp.block([]), r"op 'block': the list arrays cannot be empty"),
    (lambda: fnp.block([[X], X]), r"op 'block': list depths are mismatched"),
    (lambda: fnp.block((X, X)), r"op 'block': arrays is a tuple"),
    (lambda: fnp.hsplit(X[0, 0, 0], 1), r"op 'hsplit': needs an array of rank >= 1"),
    (lambda: fnp.vsplit(X[0, 0], 1), r"op 'vsplit': needs an array of rank >= 2"),
    (lambda: fnp.dsplit(X[0], 1), r"op 'dsplit': needs an array of rank >= 3"),
    (lambda: fnp.rollaxis(X, 0, 4), r"op 'rollaxis': start 4 is out of range"),
    (lambda: fnp.rollaxis(X, 3), r"op 'rollaxis': axis 3 is out of range"),
    (lambda: fnp.insert(X, 4, 0.0, axis=0), r"op 'insert': .*out of bounds"),
    (lambda: fnp.insert(X, [0.5], 0.0), r"op 'insert': obj must be an int"),
    (lambda: fnp.insert(X, 1, np.ones(3), axis=2), r"op 'insert': cannot insert values of shape"),
    (lambda: fnp.resize(X, (2, -1)), r"op 'resize': .*non-negative"),
    (lambda: fnp.trim_zeros([0, 1], trim="x"), r"op 'trim_zeros': unexpected character"),
    (lambda: fnp.apply_over_axes(lambda a, axis: fnp.sum(a), X, 0), r"op 'apply_over_axes': func returned shape \(1,\) for axis 0"),
])
def test_new_shape_functions_refuse_bad_arguments(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()


@pytest.mark.parametrize("call, error, pattern", [
    (lambda x: fnp.trim_zeros(x), TraceError, r"op 'trim_zeros': .*must be concrete"),
    (lambda x: fnp.insert(X, fnp.astype(x[0, 0] > 0, "int64"), 1.0), TraceError, r"op 'insert': .*obj must be concrete"),
    (lambda x: np.fill_diagonal(x[0], 1.0), ShapeError, r"op 'fill_diagonal': .*inplace=False"),   # numpy's call
])
def test_traced_arguments_that_fix_the_shape_and_in_place_updates_are_refused(call, error, pattern):
    with pytest.raises(error, match=pattern):
        frame.trace(call, X)


# -- put and place --------------------------------------------------------------------------------------------
def test_put_with_traced_indices_wraps_or_clips_and_differentiates():
    a, i, v = X[0], np.array([[-21, 3], [25, 3]]), np.array([7.0, 8.0, 9.0])
    for mode in ("wrap", "clip"):
        want = a.copy()
        np.put(want, i, v, mode=mode)
        got = frame.function(lambda x, j, u: fnp.put(x, j, u, mode=mode, inplace=False))(a, i, v)
        np.testing.assert_array_equal(got, want)
    g_a, g_v = frame.grad(lambda x, u: fnp.sum(fnp.put(x, np.array([1, 6, 1]), u, inplace=False) * X[1]),
                          argnums=(0, 1))(a, v[:2])
    written = np.zeros(a.shape, bool)
    np.put(written, [1, 6], True)
    np.testing.assert_allclose(g_a, np.where(written, 0.0, X[1]))
    np.testing.assert_allclose(g_v, [X[1].flat[1], X[1].flat[6]])   # position 1: its last write, v[0] (v repeats)


def test_place_writes_traced_values_where_a_concrete_mask_holds():
    mask = X[1] > 0
    got = frame.function(lambda x, u: fnp.place(x, mask, u, inplace=False))(X[0], np.array([5.0, 6.0]))
    want = X[0].copy()
    np.place(want, mask, [5.0, 6.0])
    np.testing.assert_array_equal(got, want)
    check_derivatives(lambda x, u: fnp.place(x, mask, u, inplace=False), X[0], np.array([5.0, 6.0]),
                      argnums=(0, 1), orders=(1, 2))


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: fnp.put(X, [0], 1.0), ShapeError, r"op 'put': .*immutable.*inplace=False"),
    (lambda: fnp.place(X, X > 0, 1.0), ShapeError, r"op 'place': .*immutable.*inplace=False"),
    (lambda: fnp.put(X, [60], 1.0, inplace=False), ShapeError, r"op 'put': index 60 is out of bounds for a of size 60"),
    (lambda: fnp.put(X, [-61], 1.0, inplace=False), ShapeError, r"op 'put': index -61 is out of bounds"),
    (lambda: fnp.put(X, [0], 1.0, mode="drop", inplace=False), ShapeError, r"op 'put': mode must be 'raise', 'wrap' or 'clip'"),
    (lambda: fnp.put(X, [0.5], 1.0, inplace=False), ShapeError, r"op 'put': arrays used as indices must be of integer"),
    (lambda: fnp.put(np.zeros(0), [0], 1.0, mode="wrap", inplace=False), ShapeError, r"op 'put': cannot replace elements of an empty"),
    (lambda: fnp.place(X, X[0] > 0, 1.0, inplace=False), ShapeError, r"op 'place': mask of shape \(4, 5\) and arr of shape \(3, 4, 5\)"),
    (lambda: fnp.place(X, X > 0, [], inplace=False), ShapeError, r"op 'place': vals is empty, but mask selects \d+ entries"),
    (lambda: frame.trace(lambda i: fnp.put(X, i, 1.0, inplace=False), np.array([1])), TraceError,
     r"op 'put': mode 'raise' checks the indices.*mode='wrap' or mode='clip'"),
    (lambda: frame.trace(lambda m: fnp.place(X[0], m, 1.0, inplace=False), X[0] > 0), TraceError,
     r"op 'place': .*mask must be concrete"),
    (lambda: frame.trace(lambda x: np.put(x, [1], 2.0), X), ShapeError, r"op 'put': .*inplace=False"),   # numpy's calls
    (lambda: frame.trace(lambda x: np.place(x, X > 0, 2.0), X), ShapeError, r"op 'place': .*inplace=False"),
])
def test_put_and_place_refusals(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
