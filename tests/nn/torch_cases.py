"""Shared checks for frame.nn's torch.nn.functional / jax.nn counterparts (used by test_losses.py,
test_norms_attention.py, test_resampling.py and test_jax_nn.py).

A `Case` holds one call: frame's function, a numpy reference of its formula (so the default suite checks
every function without torch), torch's call (checked only when torch is installed) and the positions of
the float arguments to differentiate. The checks:

- `check_reference`: values against the numpy formula, eagerly and under `frame.function` (every array
  argument traced, integer targets included), and float32 operands giving float32 results;
- `check_torch`: values against torch.nn.functional (skipped without torch);
- `check_torch_grad`: the gradient of sum(out * w) for the `wrt` arguments torch differentiates
  (`torch_wrt`) against torch autograd (skipped without torch);
- `check_jax_derivatives`: first derivatives against JAX through `frame.interop.check_derivatives`.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
import pytest

import frame
import frame.numpy as fnp


@dataclasses.dataclass
class Case:
    id: str
    ours: Callable                      # frame.nn call on the arguments
    reference: Callable                 # numpy formula on the same arguments
    theirs: Callable | None             # (torch.nn.functional, *torch tensors) -> tensor, or None
    args: tuple
    wrt: tuple = (0,)                   # float arguments to differentiate (() for none)
    rtol: float = 1e-12
    atol: float = 1e-13
    float32: bool = True                # float32 operands give a float32 result
    torch_wrt: tuple | None = None      # the part of wrt torch can differentiate (default: all of wrt)

    def __repr__(self):
        return self.id


def ids(cases):
    return [c.id for c in cases]


def _weights(shape, seed=7):
    return np.random.default_rng(seed).normal(size=shape) if shape else np.array(1.0)


def check_reference(case: Case):
    want = np.asarray(case.reference(*case.args))
    got = np.asarray(case.ours(*case.args))
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.atol)
    traced = np.asarray(frame.function(case.ours)(*case.args))
    np.testing.assert_allclose(traced, want, rtol=case.rtol, atol=case.atol)
    if case.float32:
        args32 = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a
                       for a in case.args)
        got32 = np.asarray(case.ours(*args32))
        assert got32.dtype == np.float32, got32.dtype
        np.testing.assert_allclose(got32, want, rtol=2e-4, atol=2e-5)


def _torch_args(torch, args, wrt=()):
    out = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            t = torch.from_numpy(a.copy())
            out.append(t.requires_grad_(True) if i in wrt else t)
        else:
            out.append(a)
    return out


def check_torch(case: Case):
    torch = pytest.importorskip("torch")
    if case.theirs is None:
        pytest.skip("torch has no counterpart with these arguments")
    want = case.theirs(torch.nn.functional, *_torch_args(torch, case.args)).detach().numpy()
    got = np.asarray(case.ours(*case.args))
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=max(case.rtol, 1e-10), atol=max(case.atol, 1e-12))


def check_torch_grad(case: Case):
    torch = pytest.importorskip("torch")
    wrt = case.wrt if case.torch_wrt is None else case.torch_wrt
    if case.theirs is None or not wrt:
        pytest.skip("no torch counterpart or nothing to differentiate")
    targs = _torch_args(torch, case.args, wrt)
    out = case.theirs(torch.nn.functional, *targs)
    w = _weights(tuple(out.shape))
    (out * torch.from_numpy(w)).sum().backward()
    want = [targs[i].grad.numpy() for i in wrt]
    got = frame.grad(lambda *a: fnp.sum(case.ours(*a) * w), argnums=wrt)(*case.args)
    got = got if isinstance(got, tuple) else (got,)
    for g, t in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), t, rtol=1e-9, atol=1e-11)


def check_jax_derivatives(case: Case):
    pytest.importorskip("jax")
    if not case.wrt:
        pytest.skip("nothing to differentiate")
    from frame.interop import check_derivatives
    check_derivatives(case.ours, *case.args, orders=(1,), argnums=case.wrt)
