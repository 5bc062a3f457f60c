"""`frame.numpy.vectorize` and `frame.numpy.apply_along_axis`: numpy's Python-level loops, as `vmap`.

numpy runs the function once per element (or per 1-d slice); here the function is traced once and
batched with `frame.vmap`, as `jax.numpy.vectorize` does, so it must be traceable (no Python branching
on values) and the result is one graph. `signature` gives the core dimensions in numpy's notation
("(n),(n)->()"): those trailing axes go to the function whole, the others broadcast and loop.
"""
from __future__ import annotations

import functools
import math
import re

import numpy as np

from ..errors import ShapeError
from ..tracing import Tracer
from . import numpy as fnp
from .args import _axis, _ndim, _shape
from .batching import vmap
from .pytree import tree_map

__all__ = ["vectorize", "apply_along_axis"]

_CORE = r"\((\w*(?:,\s*\w+)*)\)"


def _parse_signature(signature: str):
    """numpy's gufunc signature "(m,n),(n)->(m)" as ([core names per input], [core names per output])."""
    match = re.fullmatch(rf"\s*({_CORE}(?:\s*,\s*{_CORE})*)?\s*->\s*({_CORE}(?:\s*,\s*{_CORE})*)\s*", signature)
    if match is None:
        raise ShapeError(f"vectorize: not a valid gufunc signature: {signature!r}")
    sides = signature.split("->")
    parse = lambda side: [tuple(d.strip() for d in dims.split(",") if d.strip()) for dims in re.findall(_CORE, side)]  # noqa: E731
    return parse(sides[0]), parse(sides[1])


def _as_array(x):
    return x if isinstance(x, Tracer) else fnp.asarray(x)


def vectorize(pyfunc, *, excluded=frozenset(), signature: str | None = None):
    """numpy's (and jax.numpy's) `vectorize`: `pyfunc` written for scalars, or for the core shapes of
    `signature`, applied over the broadcast leading axes of its arguments. Positional arguments whose
    index is in `excluded`, and keyword arguments, are passed as they are."""
    if any(not isinstance(i, int) for i in excluded):
        raise ShapeError(f"vectorize: excluded must hold positional argument indices (ints), got {set(excluded)}")
    cores_in, _ = _parse_signature(signature) if signature is not None else (None, None)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        mapped = [i for i in range(len(args)) if i not in excluded]
        if cores_in is not None and len(cores_in) != len(mapped):
            raise ShapeError(f"vectorize: the signature {signature!r} has {len(cores_in)} inputs, the call "
                             f"{len(mapped)} vectorized arguments")
        arrays = {i: _as_array(args[i]) for i in mapped}
        core_ranks = {i: len(cores_in[k]) if cores_in is not None else 0 for k, i in enumerate(mapped)}
        sizes: dict[str, int] = {}
        for k, i in enumerate(mapped):
            shape, rank = _shape(arrays[i]), core_ranks[i]
            if len(shape) < rank:
                raise ShapeError(f"vectorize: argument {i} of shape {shape} has fewer than the {rank} core "
                                 f"dimensions of {signature!r}")
            for name, size in zip(cores_in[k] if cores_in is not None else (), shape[len(shape) - rank:]):
                if sizes.setdefault(name, size) != size:
                    raise ShapeError(f"vectorize: core dimension {name!r} is {sizes[name]} in one argument and "
                                     f"{size} in another (signature {signature!r})")
        try:
            loop = np.broadcast_shapes(*(_shape(arrays[i])[:_ndim(arrays[i]) - core_ranks[i]] for i in mapped))
        except ValueError:
            raise ShapeError(f"vectorize: the loop dimensions of the arguments do not broadcast: "
                             f"{[_shape(arrays[i]) for i in mapped]}") from None

        def call(*flat):
            full = list(args)
            for i, x in zip(mapped, flat):
                full[i] = x
            return pyfunc(*full, **kwargs)

        if not loop:
            return call(*(arrays[i] for i in mapped))
        n = math.prod(loop)
        flat = [fnp.reshape(fnp.broadcast_to(arrays[i], loop + _shape(arrays[i])[_ndim(arrays[i]) - core_ranks[i]:]),
                            (n,) + _shape(arrays[i])[_ndim(arrays[i]) - core_ranks[i]:]) for i in mapped]
        out = vmap(call)(*flat)
        return tree_map(lambda y: fnp.reshape(y, loop + _shape(y)[1:]), out)

    return wrapped


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """numpy's `apply_along_axis`: `func1d` of each 1-d slice of `arr` along `axis` (its result's axes
    take that axis' place), batched with `vmap`."""
    arr = _as_array(arr)
    rank = _ndim(arr)
    if rank == 0:
        raise ShapeError("apply_along_axis: arr must have at least one axis, got a scalar")
    axis = _axis(axis, rank, "apply_along_axis")
    moved = fnp.moveaxis(arr, axis, -1)
    loop = _shape(moved)[:-1]
    flat = fnp.reshape(moved, (math.prod(loop), _shape(moved)[-1]))
    out = vmap(lambda row: fnp.asarray(func1d(row, *args, **kwargs)))(flat)
    extra = _ndim(out) - 1
    out = fnp.reshape(out, loop + _shape(out)[1:])
    return fnp.moveaxis(out, tuple(range(len(loop), len(loop) + extra)), tuple(range(axis, axis + extra))) \
        if extra else out
