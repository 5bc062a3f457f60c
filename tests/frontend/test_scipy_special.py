"""frame.scipy.special against scipy.special (values, eagerly and compiled, with scipy's dtypes) and its
derivatives against JAX to order 2; JAX's lgamma/digamma/erf_inv import as frame's ops."""
import numpy as np
import pytest
import scipy.special as S

import frame
import frame.scipy.special as F
from frame.errors import ShapeError

_rng = np.random.default_rng(0)
_POS = _rng.uniform(0.3, 4.0, (3, 4))
_REAL = _rng.normal(size=(3, 4)) * 2
_PROB = _rng.uniform(0.05, 0.95, (3, 4))
_X0 = np.array([0.0, 0.5, 2.0, -1.0, 0.0])   # zeros and negatives: the limiting branches
_Y0 = np.array([0.0, 3.0, 0.0, 2.0, -1.0])

# name -> (argument tuples, differentiable arguments checked against JAX)
CASES = {
    "gammaln": ((_POS,), (_POS,)), "digamma": ((_POS,), (_POS,)), "psi": ((_POS,), None),
    "erfinv": ((2 * _PROB - 1,), (2 * _PROB - 1,)), "erf": ((_REAL,), (_REAL,)), "erfc": ((_REAL,), (_REAL,)),
    "expit": ((_REAL,), (_REAL,)), "logit": ((_PROB,), (_PROB,)),
    "xlogy": ((_X0, _Y0), (_POS, _POS[::-1])), "xlog1py": ((_X0, _Y0), (_POS, _POS[::-1])),
    "entr": ((_X0,), (_POS,)), "rel_entr": ((_X0, _Y0), (_POS, _POS[::-1])), "kl_div": ((_X0, _Y0), (_POS, _POS[::-1])),
    "ndtr": ((np.array([-40.0, -10.0, -1.0, 0.0, 0.3, 1.0, 10.0, 40.0]),), (_REAL,)),
    "betaln": ((_POS, _POS[::-1]), (_POS, _POS[::-1])),
    "logsumexp": ((_REAL,), (_REAL,)), "softmax": ((_REAL,), (_REAL,)), "log_softmax": ((_REAL,), (_REAL,)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_match_scipy(name):
    args, _ = CASES[name]
    want = getattr(S, name)(*args)
    ours = getattr(F, name)
    np.testing.assert_allclose(ours(*args), want, rtol=1e-13, atol=0)
    np.testing.assert_allclose(frame.function(lambda *a: ours(*a))(*args), want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("name", ["gammaln", "digamma", "erfinv", "expit", "ndtr", "xlogy"])
def test_dtypes_follow_scipy(name):
    args = [np.asarray(a, np.float32) for a in CASES[name][0]]
    assert np.asarray(getattr(F, name)(*args)).dtype == np.float32
    ints = [np.arange(1, 4)] * len(args)
    np.testing.assert_allclose(getattr(F, name)(*ints), getattr(S, name)(*ints), rtol=1e-13)
    assert np.asarray(getattr(F, name)(*ints)).dtype == np.float64


def test_polygamma_and_multigammaln():
    for n in (0, 1, 2, 4):
        np.testing.assert_allclose(F.polygamma(n, _POS), S.polygamma(n, _POS), rtol=1e-13)
    np.testing.assert_allclose(F.multigammaln(_POS + 2, 3), S.multigammaln(_POS + 2, 3), rtol=1e-13)
    with pytest.raises(ShapeError, match="n must be >= 0"):
        F.polygamma(-1, _POS)
    with pytest.raises(ShapeError, match="d must be >= 1"):
        F.multigammaln(_POS, 0)
    np.testing.assert_allclose(F.softmax(_REAL, axis=1), S.softmax(_REAL, axis=1), rtol=1e-14)


@pytest.mark.parametrize("name", [n for n, (_, diff) in CASES.items() if diff is not None])
def test_derivatives_match_jax(name):
    pytest.importorskip("jax")
    from frame.interop import check_derivatives
    args = CASES[name][1]
    check_derivatives(getattr(F, name), *args, argnums=tuple(range(len(args))), orders=(1, 2))


def test_polygamma_differentiates_to_any_order():
    pytest.importorskip("jax")
    from frame.interop import check_derivatives
    check_derivatives(lambda x: F.polygamma(1, x) * F.gammaln(x), _POS, orders=(1, 2))
    third = frame.grad(frame.grad(frame.grad(lambda x: F.gammaln(x))))(np.asarray(1.7))
    np.testing.assert_allclose(third, S.polygamma(2, 1.7), rtol=1e-13)   # gammaln''' = polygamma(2, .)


def test_jax_special_functions_import_as_frame_ops():
    jax = pytest.importorskip("jax")
    from frame.interop import from_jax
    special = jax.scipy.special
    graph = from_jax(lambda x: special.gammaln(x) + special.digamma(x) + special.erfinv(x / 5), _POS)
    assert {"gammaln", "digamma", "erfinv"} <= {node.op for node in graph.nodes}
    (got,) = frame.runtime.compile(graph)(_POS)   # a graph's outputs come back as a sequence
    np.testing.assert_allclose(got, S.gammaln(_POS) + S.digamma(_POS) + S.erfinv(_POS / 5), rtol=1e-12)
