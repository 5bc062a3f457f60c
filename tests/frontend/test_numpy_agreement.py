"""The numpy-agreement table: every `frame.numpy` function against numpy on generated cases
(tests/frontend/cases_*.py), eagerly and compiled under `frame.function`, with values, shapes and
dtypes equal; derivatives of the differentiable cases against the JAX oracle at orders 1 and 2.

`test_every_function_has_a_case` enumerates frame.numpy: a name is covered by a NumpyCase, or,
when it is a generated one-op function, by its op's OpCases (tests/ops/cases*.py), which the
registry tests hold to numpy the same way.
"""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from tests.frontend.numpy_cases import ALL_CASES, resolve
from tests.ops.cases import CASES_BY_OP

# Names that are not functions of arrays (constants, dtypes, namespaces) or are checked elsewhere.
NOT_FUNCTIONS = {"pi", "e", "inf", "nan", "newaxis", "float16", "float32", "float64", "int32", "int64", "bool_",
                 "complex64", "complex128", "ndarray", "fft", "linalg", "linalg.LinAlgError", "at", "debug_print", "slice_axes", "getitem",
                 "finfo", "iinfo", "result_type",   # dtype information: tests/frontend/test_numpy_sort_and_statistics.py
                 "promote_types", "min_scalar_type", "common_type", "mintypecode", "typename",   # dtype answers: tests/frontend/test_numpy_math.py
                 "vectorize", "apply_along_axis",   # take functions: tests/frontend/test_vectorize.py
                 # constants, numpy's dtype classes, index objects and printing: tests/frontend/test_numpy_names.py
                 *"""euler_gamma dtype generic number integer signedinteger unsignedinteger inexact floating
                 complexfloating character flexible object_ bool float_ complex_ double single cdouble csingle int_
                 int8 int16 uint8 uint16 uint32 uint64 uint index_exp s_ mgrid ogrid r_ c_ einsum_path array_repr
                 array_str printoptions get_printoptions set_printoptions""".split()}


def _public_functions() -> list[str]:
    names = [n for n in fnp.__all__ if n not in NOT_FUNCTIONS]
    for space in ("fft", "linalg"):
        namespace = getattr(fnp, space, None)
        names += [f"{space}.{n}" for n in vars(namespace) if not n.startswith("_")] if namespace is not None else []
    return [n for n in names if n not in NOT_FUNCTIONS]


def _covered_by_op_cases() -> set[str]:
    """Generated one-op functions (they carry `.op`) whose op has OpCases."""
    return {name for name in _public_functions() if getattr(resolve(fnp, name), "op", None) in CASES_BY_OP}


def test_every_function_has_a_case():
    covered = {c.name for c in ALL_CASES} | _covered_by_op_cases()
    missing = sorted(set(_public_functions()) - covered)
    assert not missing, f"frame.numpy functions without a NumpyCase in tests/frontend/cases_*.py: {missing}"


def _reference(case):
    return case.reference or resolve(np, case.name)


def _check_equal(case, ours, ref, where):
    ours_t = ours if isinstance(ours, tuple) else (ours,)
    ref_t = ref if isinstance(ref, tuple) else (ref,)
    assert len(ours_t) == len(ref_t), f"{case.id} ({where}): {len(ours_t)} results, numpy gives {len(ref_t)}"
    for a, b in zip(ours_t, ref_t):
        a, b = np.asarray(a), np.asarray(b)
        assert (a.shape, a.dtype) == (b.shape, b.dtype), \
            f"{case.id} ({where}): frame gives {a.dtype}{a.shape}, numpy {b.dtype}{b.shape}"
        tight = b.dtype in (np.float64, np.complex128)
        rtol, atol = (case.rtol, case.atol) if tight else (max(case.rtol, 1e-5), max(case.atol, 1e-5))
        if b.dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{case.id} ({where})")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"{case.id} ({where})")


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_eager_and_compiled_agree_with_numpy(case):
    args = case.make_args(np.random.default_rng(0))
    ref = _reference(case)(*args, **case.kwargs)
    ours = resolve(fnp, case.name)
    _check_equal(case, ours(*args, **case.kwargs), ref, "eager")
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    def traced(*xs):
        full = list(args)
        for i, x in zip(arrays, xs):
            full[i] = x
        return ours(*full, **case.kwargs)

    traced.__name__ = case.id.replace("[", "_").replace("]", "").replace(".", "_").replace("-", "_")
    compiled = frame.function(traced)(*[args[i] for i in arrays])
    _check_equal(case, compiled, ref, "compiled")


def _derivative_params():
    """Every differentiable case; the first of each function runs by default, the others are `slow`
    (each is a JAX compile of orders 1 and 2: together they took most of the default suite's time)."""
    seen, params = set(), []
    for case in (c for c in ALL_CASES if c.wrt):
        params.append(pytest.param(case, id=case.id, marks=() if case.name not in seen else pytest.mark.slow))
        seen.add(case.name)
    return params


@pytest.mark.parametrize("case", _derivative_params())
def test_derivatives_match_jax_at_orders_1_and_2(case):
    pytest.importorskip("jax")
    from frame.interop import check_derivatives
    args = case.make_args(np.random.default_rng(3))
    ours = resolve(fnp, case.name)
    static = {i: a for i, a in enumerate(args) if i not in case.wrt}
    order = list(case.wrt)

    def f(*xs):
        full = [static.get(i) for i in range(len(args))]
        for i, x in zip(order, xs):
            full[i] = x
        return ours(*full, **case.kwargs)

    f.__name__ = "numpy_case"
    xs = [args[i] for i in order]
    if any(np.size(x) == 0 for x in xs):   # nothing to compare with JAX: the gradient is empty, of the right shape
        grads = frame.grad(lambda *xs: fnp.sum(f(*xs)), argnums=tuple(range(len(xs))))(*xs)
        assert [np.shape(g) for g in grads] == [np.shape(x) for x in xs]
        return
    check_derivatives(f, *[args[i] for i in order], argnums=tuple(range(len(order))), orders=(1, 2))
