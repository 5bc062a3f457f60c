"""JAX's top-level helpers that ported programs call around their compiled functions, for frame: one CPU
device, results computed by the time a call returns (so `block_until_ready` has nothing to wait for), shapes
by tracing (`eval_shape`), and the transpose of a linear function from its VJP."""
from __future__ import annotations

import contextlib
from typing import Callable

import numpy as np

from ..errors import InputError
from .jacobians import jacrev
from .pytree import tree_map, tree_unflatten
from .tracer import ShapeDtype, trace_function
from .transforms import vjp

__all__ = ["eval_shape", "jacobian", "linear_transpose", "block_until_ready", "device_get", "device_put",
           "devices", "local_devices", "device_count", "local_device_count", "default_backend", "named_scope",
           "ShapeDtypeStruct", "CpuDevice"]

jacobian = jacrev              # jax.jacobian is jax.jacrev
ShapeDtypeStruct = ShapeDtype  # jax.ShapeDtypeStruct's name


def eval_shape(fn: Callable, *args, **kwargs):
    """The shapes and dtypes of `fn(*args, **kwargs)`, a pytree of `ShapeDtype`, found by tracing: nothing is
    computed. Arguments may be arrays, numbers or `ShapeDtype`s (pytrees of them)."""
    res = trace_function(fn, args, kwargs=kwargs)
    return tree_unflatten(res.out_tree, [ShapeDtype(v.type.shape, v.type.dtype) for v in res.graph.outputs])


def linear_transpose(fn: Callable, *primals):
    """The transpose of the linear function `fn` at arguments shaped like `primals`: a function of a
    cotangent of `fn`'s output returning a tuple with one cotangent per argument. It is `fn`'s VJP, which is
    the transpose when `fn` is linear (as `jax.linear_transpose` requires; frame does not check linearity)."""
    _, pullback = vjp(fn, *tree_map(lambda p: np.zeros(p.shape, p.dtype) if isinstance(p, ShapeDtype) else p,
                                    primals))
    return pullback


def block_until_ready(x):
    """`x`: frame's results are computed by the time a call returns."""
    return x


def device_get(x):
    """`x`'s leaves as numpy arrays (frame's values are already on the host)."""
    return tree_map(np.asarray, x)


class CpuDevice:
    """frame's one device, the host CPU (what `devices()` lists)."""
    platform, device_kind, id = "cpu", "cpu", 0

    def __repr__(self):
        return "CpuDevice(id=0)"


_CPU = CpuDevice()


def devices(backend: str | None = None) -> list:
    if backend not in (None, "cpu"):
        raise InputError(f"devices: frame runs on the cpu backend only, got backend {backend!r}")
    return [_CPU]


local_devices = devices


def device_count(backend: str | None = None) -> int:
    return len(devices(backend))


local_device_count = device_count


def default_backend() -> str:
    return "cpu"


def device_put(x, device=None):
    """`x`'s leaves as numpy arrays on frame's one device (`device` None, "cpu" or `devices()[0]`)."""
    if device not in (None, "cpu", _CPU):
        raise InputError(f"device_put: frame has one device, the cpu (frame.devices()), got {device!r}")
    return tree_map(np.asarray, x)


@contextlib.contextmanager
def named_scope(name: str):
    """A context naming a region of a program, as `jax.named_scope`; frame's graphs keep no scope names."""
    if not isinstance(name, str):
        raise InputError(f"named_scope: the name must be a str, got {type(name).__name__}")
    yield
