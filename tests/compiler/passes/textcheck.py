"""Text-in/text-out pass checks in the printed IR form (FileCheck style, exact match)."""
from __future__ import annotations

import textwrap

import numpy as np

from frame.compiler.pipeline import UNOPTIMIZED
from frame.ir import parse_graph, verify
from frame.runtime import compile as compile_graph


def run_text(pass_fn, text: str, options=None) -> str:
    """Parse `text`, run the pass, verify the result and return its printed form."""
    graph = parse_graph(textwrap.dedent(text))
    before = str(graph)
    out = pass_fn(graph, options)
    assert str(graph) == before, "a pass must not modify its input graph"
    verify(out)
    return str(out)


def expect(pass_fn, before: str, after: str, options=None) -> None:
    """The pass turns `before` into exactly `after` (both in the printed text form)."""
    got = run_text(pass_fn, before, options)
    want = str(parse_graph(textwrap.dedent(after)))  # normalise spacing through a round trip
    assert got == want, f"\n--- got\n{got}\n--- want\n{want}"


def assert_same_results(text: str, pass_fn, rng_seed: int = 0, options=None) -> None:
    """Executing the graph before and after the pass (without other optimisations) gives equal numbers."""
    graph = parse_graph(textwrap.dedent(text))
    rng = np.random.default_rng(rng_seed)
    args = [rng.uniform(-1.0, 1.0, v.type.shape).astype(v.type.dtype) for v in graph.inputs]
    want = compile_graph(graph, UNOPTIMIZED)(*args)
    got = compile_graph(pass_fn(graph, options), UNOPTIMIZED)(*args)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
