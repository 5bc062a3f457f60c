"""frame.numpy.vectorize and apply_along_axis (vmap underneath) against numpy's loops, derivatives through
them against JAX, and their refusals by name."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.errors import ShapeError

rng = np.random.default_rng(0)
X, Y, A = rng.normal(size=(3, 4)), rng.normal(size=(4,)), rng.normal(size=(2, 3, 4))


@pytest.mark.parametrize("ours, theirs, args", [
    (fnp.vectorize(lambda a, b: fnp.sin(a) * b + a ** 2), np.vectorize(lambda a, b: np.sin(a) * b + a ** 2), (X, Y)),
    (fnp.vectorize(lambda u, v: fnp.sum(u * v), signature="(n),(n)->()"),
     np.vectorize(lambda u, v: np.sum(u * v), signature="(n),(n)->()"), (X, Y)),
    (fnp.vectorize(lambda m, v: m @ v, signature="(m,n),(n)->(m)"),
     np.vectorize(lambda m, v: m @ v, signature="(m,n),(n)->(m)"), (A, Y)),
    (fnp.vectorize(lambda a, p: a ** p, excluded={1}), np.vectorize(lambda a, p: a ** p, excluded={1}), (X, 3)),
    (fnp.vectorize(lambda a, b: a - b), np.vectorize(lambda a, b: a - b), (1.5, [1.0, 2.0])),
    (lambda x: fnp.apply_along_axis(lambda r: fnp.sum(r ** 2), 1, x),
     lambda x: np.apply_along_axis(lambda r: np.sum(r ** 2), 1, x), (X,)),
    (lambda x: fnp.apply_along_axis(lambda r: fnp.stack([r.max(), r.min()]), 0, x),
     lambda x: np.apply_along_axis(lambda r: np.stack([r.max(), r.min()]), 0, x), (X,)),
    (lambda x: fnp.apply_along_axis(lambda r: fnp.outer(r, r), 1, x),
     lambda x: np.apply_along_axis(lambda r: np.outer(r, r), 1, x), (A,)),
])
def test_matches_numpy_eagerly_and_compiled(ours, theirs, args):
    want = theirs(*args)
    np.testing.assert_allclose(ours(*args), want, rtol=1e-14)
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    def traced(*xs):
        full = list(args)
        for i, x in zip(arrays, xs):
            full[i] = x
        return ours(*full)

    np.testing.assert_allclose(frame.function(traced)(*[args[i] for i in arrays]), want, rtol=1e-14)


def test_tuple_outputs_and_derivatives():
    pair = fnp.vectorize(lambda a: (a, 2 * a))
    assert [np.shape(t) for t in pair(X)] == [(3, 4), (3, 4)]
    pytest.importorskip("jax")
    from frame.interop import check_derivatives
    check_derivatives(fnp.vectorize(lambda u, v: fnp.sum(fnp.tanh(u) * v), signature="(n),(n)->()"), X, Y,
                      argnums=(0, 1), orders=(1, 2))
    check_derivatives(lambda x: fnp.apply_along_axis(lambda r: fnp.cumsum(r) * r, 1, x), X, orders=(1, 2))


@pytest.mark.parametrize("call, pattern", [
    (lambda: fnp.vectorize(lambda a: a, signature="(n)->(")(X), "not a valid gufunc signature"),
    (lambda: fnp.vectorize(lambda a, b: a, signature="(n)->()")(X, Y), "has 1 inputs, the call 2"),
    (lambda: fnp.vectorize(lambda a, b: a + b, signature="(n),(n)->(n)")(X, np.ones(3)), "core dimension 'n' is 4"),
    (lambda: fnp.vectorize(lambda a, b: a + b)(X, np.ones(3)), "loop dimensions of the arguments do not broadcast"),
    (lambda: fnp.vectorize(lambda a: a, signature="(m,n)->()")(Y), "fewer than the 2 core dimensions"),
    (lambda: fnp.apply_along_axis(fnp.sum, 0, 1.0), "at least one axis"),
])
def test_bad_arguments_are_refused_by_name(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()
