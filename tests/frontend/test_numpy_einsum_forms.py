"""`fnp.einsum`'s two call forms (issue 14 item 6): the subscripts string and numpy's interleaved form
einsum(a, [0, 1], b, [1, 2], [0, 2]), whose int labels map to numpy's letters (0-25: A-Z, 26-51: a-z, so an
implicit output lists them in increasing order); and numpy's keyword arguments (`optimize` accepted and
unused, `out=`/`dtype=` refused by name). The numpy-agreement table (tests/frontend/cases_linalg.py) holds
both forms to numpy's values.
"""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import ShapeError, TraceError

RNG = np.random.default_rng(0)
A, B, C = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4)), RNG.standard_normal((5, 2, 3))


def _ops(fn, *args):
    return [(n.op, tuple(sorted(n.attrs.items()))) for n in frame.trace(fn, *args).nodes]


@pytest.mark.parametrize("interleaved, string", [
    ((A, [0, 1], B, [1, 2], [0, 2]), ("AB,BC->AC", A, B)),
    ((A, [0, 1], B, [1, 2]), ("AB,BC", A, B)),
    ((A, [26, 0]), ("aA", A)),
    ((C, [Ellipsis, 0, 1], B, [1, 2], [Ellipsis, 0, 2]), ("...AB,BC->...AC", C, B)),
    ((np.eye(3), [7, 7], []), ("HH->", np.eye(3))),
])
def test_the_interleaved_form_is_the_string_form(interleaved, string):
    want = np.einsum(*interleaved)
    got = fnp.einsum(*interleaved)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)
    np.testing.assert_array_equal(got, fnp.einsum(*string))
    # traced, both forms lower to the same graph
    arrays = [i for i, a in enumerate(interleaved) if isinstance(a, np.ndarray)]

    def with_tracers(args, positions):
        def fn(*xs):
            full = list(args)
            for i, x in zip(positions, xs):
                full[i] = x
            return fnp.einsum(*full)
        return fn

    string_arrays = [i for i, a in enumerate(string) if isinstance(a, np.ndarray)]
    xs = [interleaved[i] for i in arrays]
    assert _ops(with_tracers(interleaved, arrays), *xs) == _ops(with_tracers(string, string_arrays), *xs)


def test_gradients_through_the_interleaved_form():
    g_a, g_b = frame.grad(lambda a, b: fnp.sum(fnp.einsum(a, [0, 1], b, [1, 2], [0, 2]) ** 2), argnums=(0, 1))(A, B)
    y = A @ B
    np.testing.assert_allclose(g_a, 2 * y @ B.T, rtol=1e-12)
    np.testing.assert_allclose(g_b, 2 * A.T @ y, rtol=1e-12)


@pytest.mark.parametrize("optimize", [False, True, "greedy", "optimal", ["einsum_path", (0, 1), (0, 1)]])
def test_optimize_is_accepted_and_changes_nothing(optimize):
    got = fnp.einsum("ab,bc,cd->ad", A, B, B.T, optimize=optimize)
    np.testing.assert_array_equal(got, fnp.einsum("ab,bc,cd->ad", A, B, B.T))
    np.testing.assert_allclose(got, np.einsum("ab,bc,cd->ad", A, B, B.T, optimize=optimize), rtol=1e-13)


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: fnp.einsum(A, [0, 52]), ShapeError, r"einsum: subscript 52 in the sublist of operand 0 .*\[0, 52\)"),
    (lambda: fnp.einsum(A, [0, -1]), ShapeError, r"subscript -1 .* not within the valid range"),
    (lambda: fnp.einsum(A, [0, 1.0]), ShapeError, r"each subscript in the sublist of operand 0 must be an int"),
    (lambda: fnp.einsum(A, [0, True]), ShapeError, r"must be an int or Ellipsis, got True"),
    (lambda: fnp.einsum(A, [0, 1], B, [1, 2], [0, "c"]), ShapeError, r"in the output sublist must be an int"),
    (lambda: fnp.einsum(A, 3), ShapeError, r"the sublist of operand 0 must be a list of ints and Ellipsis, got 3"),
    (lambda: fnp.einsum(A, [0]), ShapeError, r"einsum: subscripts 'A' do not match an operand of shape \(2, 3\)"),
    (lambda: fnp.einsum(), ShapeError, r"einsum: no subscripts or operands given"),
    (lambda: fnp.einsum("ij", A, optimize="fastest"), ShapeError, r"optimize must be a bool, 'greedy', 'optimal'"),
    (lambda: fnp.einsum("ij", A, out=np.empty((2, 3))), TraceError, r"einsum: out= is not supported"),
    (lambda: fnp.einsum("ij", A, dtype="float32"), TraceError, r"einsum: dtype= is not supported"),
])
def test_bad_arguments_are_refused_naming_einsum(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
