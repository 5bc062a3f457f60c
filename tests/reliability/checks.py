"""The one contract every reliability test checks: a public call either returns what numpy (or the
analytic answer) returns, or raises a `frame.FrameError` subclass whose message names the call's
op or input. Never a raw exception from inside numpy or Python, never different numbers."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import frame

#: Per-dtype tolerance for comparing frame with a numpy reference: frame's eager kernels are numpy's,
#: but compiled graphs may decompose composites and float32 tanh is frame's own (<= 1.5 ulp).
TOLERANCE = {"float64": (1e-12, 1e-13), "float32": (2e-6, 1e-6)}


def property_settings(examples: int) -> settings:
    """`examples` per test at the default profile, scaled with the loaded profile's max_examples
    (`--hypothesis-profile=deep` runs 6x as many, for bug hunts)."""
    return settings(max_examples=max(1, examples * settings.default.max_examples // 100), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def call(fn):
    """Run `fn()`; return ("ok", value) or ("error", exception), with numpy's warnings silenced."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn()
        except Exception as e:  # noqa: BLE001 - the point is to see every kind
            return "error", e


def assert_clear_error(err: Exception, context: str, names=()) -> None:
    """`err` is a FrameError whose message names one of `names` (op, function or input words)."""
    if not isinstance(err, frame.FrameError):
        pytest.fail(f"{context}: raw {type(err).__module__}.{type(err).__name__}: {err}")
    message = str(err)
    assert message, f"{context}: {type(err).__name__} with an empty message"
    assert "allow_pickle" not in message, f"{context}: the message suggests pickle: {message}"
    if names:
        lowered = message.lower()
        assert any(str(n).lower() in lowered for n in names), \
            f"{context}: message names none of {list(names)}: {message}"


def assert_same_numbers(got, expected, context: str) -> None:
    """Same shape, same dtype, same values (nan where numpy has nan) within the dtype's tolerance."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape, f"{context}: shape {got.shape}, numpy gives {expected.shape}"
    assert got.dtype == expected.dtype, f"{context}: dtype {got.dtype}, numpy gives {expected.dtype}"
    if got.dtype.kind in "fc":
        rtol, atol = TOLERANCE.get(str(got.dtype), (1e-3, 1e-3))
        # numpy's assert_allclose asks a complex number with an infinite part to match exactly, so
        # inf+4.844251627160703j against inf+4.844251627160702j (1 ulp) fails: with infinities, compare
        # the parts apart (elsewhere the complex difference, so a tiny part is not held to its own rtol).
        infinite = got.dtype.kind == "c" and (np.isinf(got).any() or np.isinf(expected).any())
        parts = (np.real, np.imag) if infinite else (np.asarray,)
        for part in parts:
            np.testing.assert_allclose(part(got), part(expected), rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=context)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=context)


#: What a call under the contract may end in: the reference's numbers, or a clear refusal.
OUTCOMES = {"agrees", "refused"}


def check_against_reference(context: str, frame_fn, reference_fn, names=()) -> str:
    """The contract: frame agrees with the reference, or raises a clear FrameError; returns which
    ("agrees" or "refused"), failing the test otherwise.

    Where the reference raises (numpy refuses the input), frame must raise a FrameError too.
    """
    ref_kind, expected = call(reference_fn)
    kind, got = call(frame_fn)
    if kind == "error":
        assert_clear_error(got, context, names)
        return "refused"
    if ref_kind == "error":
        pytest.fail(f"{context}: numpy raises {type(expected).__name__}({expected}) but frame returned {got!r}")
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected), f"{context}: {got!r} vs {expected!r}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same_numbers(g, e, f"{context}[{i}]")
    else:
        assert_same_numbers(got, expected, context)
    return "agrees"
