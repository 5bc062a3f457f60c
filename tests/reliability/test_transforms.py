"""`frame.grad`, `value_and_grad`, `vjp` and `frame.function` over generated arguments.

Every call returns the analytic answer or raises a FrameError naming what is wrong (the argument,
`argnums`, the output, the cotangent). JAX's rules are the model: gradients of one float scalar,
w.r.t. float arguments, argnums that are ints or tuples of ints in range.
"""
from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

import frame
import frame.numpy as fnp

from .checks import assert_clear_error, assert_same_numbers, call, check_against_reference, property_settings
from .strategies import arrays, describe, finite_arrays, operands

SETTINGS = property_settings(40)


def f2(x, y):
    return fnp.sum(fnp.sin(x) * y)


def analytic_grads(x, y):
    return np.cos(x) * y, np.sin(x) * np.ones_like(y)


def _valid_argnums(argnums, nargs=2):
    """JAX's rule: an int or a sequence (tuple or list) of distinct ints in range."""
    ints = (argnums,) if isinstance(argnums, (int, np.integer)) and not isinstance(argnums, bool) else argnums
    ints = tuple(ints) if isinstance(ints, list) else ints
    return (isinstance(ints, tuple)  # () is allowed, as in JAX: an empty tuple of gradients
            and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) and -nargs <= a < nargs for a in ints)
            and len({a % nargs for a in ints}) == len(ints))


ARGNUMS = st.one_of(st.integers(-3, 2), st.lists(st.integers(-3, 2), min_size=0, max_size=3).map(tuple),
                    st.sampled_from(["1", 1.0, None, [0, 1], True, (0, "a")]))


@SETTINGS
@given(argnums=ARGNUMS)
def test_grad_argnums_are_checked(argnums):
    x, y = np.linspace(0.1, 0.9, 3), np.array([2.0, -1.0, 0.5])
    kind, got = call(lambda: frame.grad(f2, argnums=argnums)(x, y))
    if not _valid_argnums(argnums):
        assert kind == "error", f"argnums={argnums!r} was accepted: {got!r}"
        assert_clear_error(got, f"grad(argnums={argnums!r})", ["argnums"])
        return
    assert kind == "ok", f"argnums={argnums!r}: {got!r}"
    gx, gy = analytic_grads(x, y)
    wanted = {0: gx, 1: gy}
    if isinstance(argnums, (tuple, list)):
        for g, a in zip(got, argnums):
            assert_same_numbers(g, wanted[a % 2], f"grad argnums={argnums}")
    else:
        assert_same_numbers(got, wanted[argnums % 2], f"grad argnums={argnums}")


OUTPUTS = {
    "scalar": lambda x: fnp.sum(x * x),
    "vector": lambda x: x * x,
    "tuple": lambda x: (fnp.sum(x * x), fnp.sum(x)),
    "list": lambda x: [fnp.sum(x * x)],
    "dict": lambda x: {"loss": fnp.sum(x * x)},
    "none": lambda x: None,
    "python float": lambda x: 1.0,
}


@SETTINGS
@given(name=st.sampled_from(sorted(OUTPUTS)), has_aux=st.booleans(), x=finite_arrays(shape=(3,)))
def test_grad_needs_one_float_scalar(name, has_aux, x):
    fn = OUTPUTS[name]
    kind, got = call(lambda: frame.grad(fn, has_aux=has_aux)(x))
    # A Python float output is a constant scalar, as in JAX: its gradient is zero.
    ok = name in ("scalar", "python float") and not has_aux or name == "tuple" and has_aux
    if not ok:
        assert kind == "error", f"grad of a {name} output (has_aux={has_aux}) returned {got!r} instead of raising"
        assert_clear_error(got, f"grad of {name} (has_aux={has_aux})", ["scalar", "output", "has_aux", "pair"])
        return
    assert kind == "ok", got
    g = got[0] if has_aux else got
    assert_same_numbers(g, np.zeros_like(x) if name == "python float" else 2 * x, f"grad of {name}")


@SETTINGS
@given(x=operands(), position=st.sampled_from([0, 1]))
def test_grad_arguments_are_float_arrays(x, position):
    other = np.array([0.5, 1.5, 2.0])
    args = (x, other) if position == 0 else (other, x)
    broadcasts = _broadcasts(np.shape(x), other.shape) if isinstance(x, (float, np.ndarray)) else False
    if broadcasts and (isinstance(x, float) or x.dtype.kind == "f"):
        # a float array of another dtype promotes (numpy's rule); its gradient comes back in its dtype
        kind, got = call(lambda: frame.grad(f2, argnums=position)(*args))
        assert kind == "ok", got
        with np.errstate(all="ignore"):
            gx, gy = analytic_grads(*np.broadcast_arrays(*(np.asarray(a, np.float64) for a in args)))
        want = _sum_to_shape(gx if position == 0 else gy, np.shape(x))
        if isinstance(x, np.ndarray):
            want = np.asarray(want).astype(x.dtype)
        assert_same_numbers(got, want, f"grad w.r.t. {describe(x)}")
        return
    context = f"grad(f2, argnums={position}) w.r.t. {describe(x)}"
    check_against_reference(context, lambda: frame.grad(f2, argnums=position)(*args),
                            lambda: _refuse("not a float array matching the other operand"),
                            ["argument", "operand", "input", "dtype", "float", "shape"])


def _broadcasts(a, b) -> bool:
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def _sum_to_shape(g, shape):
    """A broadcast argument's gradient: summed over the axes it was broadcast along."""
    g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    return g.sum(axis=tuple(i for i, d in enumerate(shape) if d == 1 and g.shape[i] != 1), keepdims=True)


def _refuse(why):
    raise TypeError(why)


@SETTINGS
@given(ct=operands(), wrap=st.sampled_from(["leaf", "tuple", "list"]))
def test_vjp_cotangents_are_checked(ct, wrap):
    x = np.linspace(0.1, 0.7, 3)
    out, vjp_fn = frame.vjp(lambda v: fnp.sin(v) * 2.0, x)
    cotangent = ct if wrap == "leaf" else (ct,) if wrap == "tuple" else [ct]
    kind, got = call(lambda: vjp_fn(cotangent))
    good = wrap == "leaf" and isinstance(ct, np.ndarray) and ct.shape == (3,) and ct.dtype == np.float64
    if not good:
        assert kind == "error", f"cotangent {describe(ct)} ({wrap}) was accepted: {got!r}"
        assert_clear_error(got, f"vjp cotangent {describe(ct)}", ["cotangent"])
        return
    assert kind == "ok", got
    assert_same_numbers(got[0], 2.0 * np.cos(x) * ct, "vjp")


def _user_fn(x, scale=2.0, *, shift=None):
    y = fnp.tanh(x) * scale
    return y if shift is None else y + shift


@SETTINGS
@given(x=arrays(shape=(2, 3)), scale=st.one_of(st.floats(-2, 2), arrays(shape=(3,))),
       shift=st.one_of(st.none(), arrays(shape=(2, 3)), st.sampled_from(["a", [1.0]])),
       use_kwargs=st.booleans())
# Found by hypothesis in CI: the compiled tanh(x) * scale is 1 ulp off numpy's in an imaginary part
# beside an infinite real part, which numpy's assert_allclose compares exactly.
@example(x=np.full((2, 3), 0.125 + 1j), scale=np.array([3 + 1j, 0, 0]), shift=np.full((2, 3), np.inf, np.float32),
         use_kwargs=False)
def test_function_matches_eager_with_keyword_arguments(x, scale, shift, use_kwargs):
    """A compiled call equals the same Python function run eagerly on numpy, or both refuse it."""
    compiled = frame.function(_user_fn)
    if use_kwargs:
        eager, jit = (lambda: _user_fn(x, scale=scale, shift=shift)), (lambda: compiled(x, scale=scale, shift=shift))
    else:
        eager, jit = (lambda: _user_fn(x, scale, shift=shift)), (lambda: compiled(x, scale, shift=shift))
    ref_kind, expected = call(eager)
    kind, got = call(jit)
    context = f"frame.function(f)({describe(x)}, scale={describe(scale)}, shift={describe(shift)})"
    if kind == "error":
        assert_clear_error(got, context)
        return
    assert ref_kind == "ok", f"{context}: eager raises {expected!r} but compiled returned {got!r}"
    assert_same_numbers(got, expected, context)


@SETTINGS
@given(args=st.lists(operands(), max_size=4))
def test_function_argument_counts(args):
    compiled = frame.function(lambda a, b: a * b + 1.0)
    kind, got = call(lambda: compiled(*args))
    if len(args) != 2:
        # The user's own signature refuses it, as with jax.jit (Python's TypeError naming the
        # arguments), unless frame refuses an argument first.
        assert kind == "error", got
        if not isinstance(got, frame.FrameError):
            assert isinstance(got, TypeError) and "argument" in str(got), repr(got)
        return
    context = f"frame.function(a*b+1)({', '.join(map(describe, args))})"
    if any(isinstance(a, (list, dict)) or a is None for a in args):
        # Containers are pytrees: the function sees a list of tracers, as under jax.jit, so frame
        # must do what the plain function does with them (numbers, or the same exception).
        ref_kind, expected = call(lambda: args[0] * args[1] + 1.0)
        if kind == "error" and not isinstance(got, frame.FrameError):
            assert ref_kind == "error" and type(got) is type(expected), f"{context}: {got!r} vs {expected!r}"
            return
    check_against_reference(context, lambda: got if kind == "ok" else _reraise(got),
                            lambda: _numpy_value(args[0]) * _numpy_value(args[1]) + 1.0)


def _numpy_value(a):
    # Python numbers stay Python numbers: weak, as numpy 2 treats them and frame.function traces them.
    return a if type(a) in (bool, int, float, complex) else np.asarray(a)


def _reraise(e):
    raise e
