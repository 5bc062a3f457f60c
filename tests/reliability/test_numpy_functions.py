"""`frame.numpy` against numpy over generated good and bad operands, eagerly and compiled.

Every call either returns numpy's numbers (same shape and dtype) or raises a FrameError naming the
function or its input. Compiled calls go through `frame.function`, so the tracer, the pipeline and
the executable's input checks are all on the path.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import frame
import frame.numpy as fnp
from frame.frontend import numpy_names

from .checks import OUTCOMES, check_against_reference, property_settings
from .strategies import arrays, axis_args, describe, operands

SETTINGS = property_settings(30)


def _expit(x):
    # scipy computes float16 in float64; frame, like numpy's ufuncs and jax.nn.sigmoid, keeps float16.
    y = scipy.special.expit(x)
    return y.astype(np.float16) if np.asarray(x).dtype == np.float16 else y


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def _softmax(x, axis=-1):
    x = np.asarray(x)
    shifted = x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)  # `initial` lets empty axes through
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis=-1):
    x = np.asarray(x)
    shifted = x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _layer_norm(x, axis=-1, eps=1e-5):
    x = np.asarray(x)
    mean = x.mean(axis=axis, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axis, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


UNARY = {
    "negative": np.negative, "square": np.square, "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos,
    "tanh": np.tanh, "sqrt": np.sqrt, "abs": np.abs, "absolute": np.absolute, "sigmoid": _expit, "relu": lambda x: np.maximum(x, 0),
    "softplus": lambda x: np.logaddexp(0.0, x), "gelu": _gelu, "stop_gradient": lambda x: x,
    "sum": np.sum, "mean": np.mean, "softmax": _softmax, "log_softmax": _log_softmax, "layer_norm": _layer_norm,
}
BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide, "matmul": np.matmul,
    "mse_loss": lambda a, b: np.mean((a - b) ** 2),
}
OPERATORS = {
    "a + b": lambda a, b: a + b, "a - b": lambda a, b: a - b, "a * b": lambda a, b: a * b,
    "a / b": lambda a, b: a / b, "a @ b": lambda a, b: a @ b, "a ** 2": lambda a, b: a ** 2,
    "-a": lambda a, b: -a, "abs(a)": lambda a, b: abs(a), "a[0]": lambda a, b: a[0], "a.T": lambda a, b: a.T, "a.sum()": lambda a, b: a.sum(),
}


def _compiled(fn, arrays_in: list):
    """`fn(*arrays_in)` through `frame.function` (arrays become graph inputs)."""
    return frame.function(lambda *xs: fn(*xs))(*arrays_in)


def _run_both(name, frame_fn, numpy_fn, inputs, names):
    """Eager on any operands; compiled when every operand is an array (others cannot be graph inputs).

    The reference gets lists as arrays (numpy's functions convert them) and Python numbers as they
    are, so numpy applies its weak-scalar rule (NEP 50) to them. Returns each call's outcome.
    """
    context = f"fnp.{name}({', '.join(describe(x) for x in inputs)})"

    def reference():
        return numpy_fn(*(np.asarray(x) if isinstance(x, list) else x for x in inputs))

    outcomes = [check_against_reference(context, lambda: frame_fn(*inputs), reference, names)]
    if all(isinstance(x, np.ndarray) for x in inputs):
        outcomes.append(check_against_reference("compiled " + context, lambda: _compiled(frame_fn, list(inputs)),
                                                lambda: numpy_fn(*inputs), names))
    return outcomes


def _names(name, inputs):
    """What a clear error about this call may name: the function, an operand's shape or dtype, 'operand'."""
    words = [name, "operand", "argument", "input", "dtype", "shape"]
    for x in inputs:
        if isinstance(x, np.ndarray):
            words += [str(x.dtype), str(x.shape)]
    return words


@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(x=operands())
def test_unary_functions_agree_with_numpy(name, x):
    assert set(_run_both(name, getattr(fnp, name), UNARY[name], [x], _names(name, [x]))) <= OUTCOMES


def _operand_pairs():
    broadcastable = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3).flatmap(
        lambda s: st.tuples(arrays(shape=s.input_shapes[0]), arrays(shape=s.input_shapes[1])))
    return st.one_of(broadcastable, st.tuples(operands(), operands()))


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(pair=_operand_pairs())
def test_binary_functions_agree_with_numpy(name, pair):
    assert set(_run_both(name, getattr(fnp, name), BINARY[name], list(pair), _names(name, pair))) <= OUTCOMES


@pytest.mark.parametrize("expr", sorted(OPERATORS))
@SETTINGS
@given(pair=_operand_pairs())
def test_tracer_operators_agree_with_numpy(expr, pair):
    fn = OPERATORS[expr]
    a, b = pair
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return
    context = f"compiled `{expr}` on {describe(a)}, {describe(b)}"
    check_against_reference(context, lambda: _compiled(fn, [a, b]), lambda: fn(a, b), _names(expr, pair) + ["index"])


@pytest.mark.parametrize("name", ["sum", "mean"])
@SETTINGS
@given(x=arrays(), axis=axis_args(), keepdims=st.booleans())
def test_reductions_with_axes_agree_with_numpy(name, x, axis, keepdims):
    outcomes = _run_both(f"{name}(axis={axis!r}, keepdims={keepdims})",
                         lambda v: getattr(fnp, name)(v, axis=axis, keepdims=keepdims),
                         lambda v: getattr(np, name)(v, axis=axis, keepdims=keepdims), [x],
                         _names(name, [x]) + ["axis"])
    assert set(outcomes) <= OUTCOMES


def _int_axis(axis):
    """numpy's rule for a single `axis`: an integer (numpy raises on anything else)."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an integer, got {axis!r}")
    return axis


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@SETTINGS
@given(x=arrays(), axis=st.integers(-4, 3) | st.sampled_from([None, "1", 0.5]))
def test_softmax_axes_agree_with_numpy(name, x, axis):
    ref = {"softmax": _softmax, "log_softmax": _log_softmax}[name]
    outcomes = _run_both(f"{name}(axis={axis!r})", lambda v: getattr(fnp, name)(v, axis=axis),
                         lambda v: ref(v, axis=_int_axis(axis)), [x],
                         _names(name, [x]) + ["axis"])
    assert set(outcomes) <= OUTCOMES


def _shape_args():
    dims = st.integers(-2, 4)
    return st.one_of(st.lists(dims, max_size=4).map(tuple), dims, st.sampled_from([None, "3", (2.5,), [[1]]]))


SHAPE_FUNCTIONS = {
    "reshape": (lambda x, a: fnp.reshape(x, a), lambda x, a: np.reshape(x, a), _shape_args()),
    "transpose": (lambda x, a: fnp.transpose(x, a), lambda x, a: np.transpose(x, a),
                  st.none() | st.permutations([0, 1, 2]) | st.lists(st.integers(-3, 3), max_size=3)),
    "swapaxes": (lambda x, a: fnp.swapaxes(x, *a), lambda x, a: np.swapaxes(x, *a),
                 st.tuples(st.integers(-4, 3), st.integers(-4, 3))),
    "broadcast_to": (lambda x, a: fnp.broadcast_to(x, a), lambda x, a: np.broadcast_to(x, a), _shape_args()),
    "expand_dims": (lambda x, a: fnp.expand_dims(x, a), lambda x, a: np.expand_dims(x, a),
                    st.integers(-5, 4) | st.sampled_from(["0", 1.5])),
    "squeeze": (lambda x, a: fnp.squeeze(x, a), lambda x, a: np.squeeze(x, a), axis_args()),
    "concatenate": (lambda x, a: fnp.concatenate([x, x], axis=a), lambda x, a: np.concatenate([x, x], axis=a),
                    st.integers(-4, 3) | st.sampled_from([None, "0"])),
}


@pytest.mark.parametrize("name", sorted(SHAPE_FUNCTIONS))
@SETTINGS
@given(data=st.data())
def test_shape_functions_agree_with_numpy(name, data):
    frame_fn, numpy_fn, arg_st = SHAPE_FUNCTIONS[name]
    x = data.draw(arrays(dtypes=("float32", "float64", "int64", "bool", "complex128")), label="x")
    a = data.draw(arg_st, label="arg")
    outcomes = _run_both(f"{name}(..., {a!r})", lambda v: frame_fn(v, a), lambda v: numpy_fn(v, a), [x],
                         _names(name, [x]) + ["axis", "axes", "perm", "reshape", "index"])
    assert set(outcomes) <= OUTCOMES


def _indices():
    ints = st.integers(-4, 4)
    slices = st.builds(slice, st.none() | ints, st.none() | ints, st.none() | st.integers(-2, 3))
    item = st.one_of(ints, slices, st.just(None), st.just(Ellipsis), st.sampled_from([1.5, "0", [0, 1]]))
    return st.one_of(item, st.lists(item, max_size=4).map(tuple))


@SETTINGS
@given(x=arrays(dtypes=("float32", "float64")), index=_indices())
def test_basic_indexing_agrees_with_numpy(x, index):
    context = f"x[{index!r}] for {describe(x)}"
    check_against_reference("compiled " + context, lambda: _compiled(lambda v: v[index], [x]), lambda: x[index],
                            ["index", "slice", "indices", "axis", "step", str(x.shape)])


NUMPY_ON_TRACERS = {
    "np.sum": lambda x: np.sum(x), "np.mean": lambda x: np.mean(x, axis=0), "np.sin": lambda x: np.sin(x),
    "np.tanh": lambda x: np.tanh(x), "np.exp": lambda x: np.exp(x), "np.reshape": lambda x: np.reshape(x, (-1,)),
    "np.transpose": lambda x: np.transpose(x), "np.concatenate": lambda x: np.concatenate([x, x]),
    "np.sort": lambda x: np.sort(x), "np.add.reduce": lambda x: np.add.reduce(x),
    "np.cumsum": lambda x: np.cumsum(x), "np.linalg.norm": lambda x: np.linalg.norm(x),
    "np.sum(out=)": lambda x: np.sum(x, out=np.zeros(())), "np.exp(where=)": lambda x: np.exp(x, where=x > 0),
}


@pytest.mark.parametrize("name", sorted(NUMPY_ON_TRACERS))
def test_numpy_functions_on_tracers_dispatch_or_refuse(name):
    fn = NUMPY_ON_TRACERS[name]
    x = np.linspace(0.1, 1.0, 6).reshape(2, 3)
    base = name.split("(")[0].replace("np.", "")
    check_against_reference(f"compiled {name}", lambda: _compiled(fn, [x]), lambda: fn(x),
                            [base, base.split(".")[-1], "numpy", "out", "where"])


OTHER_FUNCTIONS = {
    # name: (frame call, numpy reference, strategy for the extra argument)
    "power": (lambda x, p: fnp.power(x, p), lambda x, p: np.power(x, p),
              st.one_of(st.floats(-3, 3), st.integers(-2, 3), st.sampled_from(["2", None, np.ones(2)]))),
    "zeros_like": (lambda x, _: fnp.zeros_like(x), lambda x, _: np.zeros_like(x), st.none()),
    "ones_like": (lambda x, _: fnp.ones_like(x), lambda x, _: np.ones_like(x), st.none()),
    "asarray": (lambda x, dt: fnp.asarray(x, dt), lambda x, dt: np.asarray(x, dt),
                st.sampled_from([None, "float32", "int64"])),
    "slice_axes": (lambda x, a: fnp.slice_axes(x, *a), lambda x, a: np.asarray(x)[tuple(slice(*t) for t in zip(*a))],
                   st.tuples(st.lists(st.integers(-1, 3), max_size=3), st.lists(st.integers(-1, 4), max_size=3),
                             st.lists(st.integers(1, 2), max_size=3))),
    "fft.rfft": (lambda x, _: fnp.fft.rfft(x), lambda x, _: np.fft.rfft(x), st.none()),
    "fft.irfft": (lambda x, n: fnp.fft.irfft(x, n), lambda x, n: np.fft.irfft(x, n),
                  st.none() | st.integers(-1, 6) | st.just("4")),
}


def _slice_reference_ok(x, a):
    # numpy clips slices silently; frame's slice_axes takes explicit bounds (one per axis, in range)
    starts, stops, steps = a
    return (len(starts) == len(stops) == len(steps) == np.ndim(x)
            and all(0 <= s <= e <= d for s, e, d in zip(starts, stops, np.shape(x))))


@pytest.mark.parametrize("name", sorted(OTHER_FUNCTIONS))
@SETTINGS
@given(data=st.data())
def test_other_functions_agree_with_numpy(name, data):
    frame_fn, numpy_fn, arg_st = OTHER_FUNCTIONS[name]
    x = data.draw(operands(), label="x")
    a = data.draw(arg_st, label="arg")
    reference = numpy_fn
    if name == "slice_axes":
        reference = lambda v, arg: numpy_fn(v, arg) if _slice_reference_ok(v, arg) else _refuse()  # noqa: E731
    outcomes = _run_both(f"{name}(..., {a!r})", lambda v: frame_fn(v, a), lambda v: reference(v, a), [x],
                         _names(name.split(".")[-1], [x])
                         + ["exponent", "axis", "slice", "start", "stop", "bins", "n", "fft"])
    assert set(outcomes) <= OUTCOMES


def _refuse():
    """The reference's answer where frame's documented contract is narrower than numpy's: refuse."""
    raise TypeError("outside frame's contract for this function")


def test_debug_print_prints_when_the_graph_runs_and_checks_its_format(capsys):
    frame.function(lambda v: (fnp.debug_print("v = {}", v), v * 2.0)[1])(np.array([1.0, 2.0]))
    assert "v = [1. 2.]" in capsys.readouterr().out
    check_against_reference("debug_print with a non-str format",
                            lambda: frame.function(lambda v: (fnp.debug_print(None, v), v)[1])(np.ones(2)),
                            _refuse, ["debug_print", "fmt", "format"])


COVERED = set(UNARY) | set(BINARY) | set(SHAPE_FUNCTIONS) | {n.split(".")[0] for n in OTHER_FUNCTIONS} | {
    "getitem", "debug_print", "true_divide", "pi", "e", "float32", "float64", "int64",
    "float16", "int32", "complex64", "complex128", "bool_",   # test_dtype_names_are_numpys
    "at",   # an accessor (x.at[i].set(v)), covered by tests/frontend/test_numpy_shape.py
    "finfo", "iinfo", "result_type",   # dtype information: tests/frontend/test_numpy_sort_and_statistics.py
    "promote_types", "min_scalar_type", "common_type", "mintypecode", "typename",   # tests/frontend/test_numpy_math.py
    "vectorize", "apply_along_axis"}   # take functions: tests/frontend/test_vectorize.py
COVERED |= set(numpy_names.__all__)   # constants, dtype classes, index helpers: tests/frontend/test_numpy_names.py


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "int32", "int64", "complex64", "complex128", "bool_"])
def test_dtype_names_are_numpys(name):
    assert getattr(fnp, name) is getattr(np, name)
    x = np.array([0.0, 1.5, -2.0])
    got = frame.function(lambda v: v.astype(getattr(fnp, name)))(x)
    assert got.dtype == np.dtype(getattr(np, name)) and np.array_equal(got, x.astype(getattr(np, name)))


def test_every_public_name_of_frame_numpy_is_covered():
    """Here, or by the numpy-agreement table (tests/frontend/test_numpy_agreement.py), which later names join."""
    from tests.frontend.numpy_cases import ALL_CASES
    from tests.frontend.test_numpy_agreement import _covered_by_op_cases
    elsewhere = {c.name.split(".")[0] for c in ALL_CASES} | {n.split(".")[0] for n in _covered_by_op_cases()}
    assert set(fnp.__all__) - COVERED - elsewhere == set(), "frame.numpy names no test exercises"


@pytest.mark.parametrize("exponent", [0.0, 2, np.float64(2.0)])
def test_power_of_a_ragged_list_is_refused_by_name(exponent):
    """A ragged base used to reach numpy's asarray inside `power`'s dtype check (found by CI's draw)."""
    outcome = check_against_reference(f"power([1.0, [2.0, 3.0]], {exponent!r})",
                                      lambda: fnp.power([1.0, [2.0, 3.0]], exponent),
                                      lambda: np.power(np.asarray([1.0, [2.0, 3.0]]), exponent),
                                      ["power", "pow", "list", "ragged"])
    assert outcome == "refused"
