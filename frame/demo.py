"""`python -m frame.demo`: trace a function, print its IR, derive it twice, compile and run it."""
from __future__ import annotations

import numpy as np

import frame
import frame.numpy as fnp
from frame.compiler import build_backward_graph, run_pipeline


def main() -> None:
    def f(x, w):
        return fnp.sum(fnp.tanh(x @ w) ** 2)

    x = np.linspace(-1.0, 1.0, 6).reshape(3, 2)
    w = np.array([[0.5, -1.0], [1.5, 0.25]])

    graph = frame.trace(f, x, w)
    print("== traced IR ==")
    print(graph)

    derived = build_backward_graph(graph, 0, [1])
    print(f"\n== derived graph [loss, dloss/dw]: {len(derived.nodes)} nodes; after the pipeline: "
          f"{len(run_pipeline(derived).nodes)} nodes ==")
    loss, grad_w = frame.runtime.compile(derived)(x, w)
    print(f"loss      = {float(loss):.10f}   (numpy: {np.sum(np.tanh(x @ w) ** 2):.10f})")
    print(f"dloss/dw  =\n{grad_w}")

    u = lambda s: fnp.sin(3.0 * s) * s  # noqa: E731
    s = np.array(0.4)
    d2 = frame.grad(frame.grad(u))(s)
    print(f"\n(sin(3s)*s)'' at s=0.4 by grad(grad(.)): {float(d2):.12f}   "
          f"analytic: {6 * np.cos(1.2) - 9 * 0.4 * np.sin(1.2):.12f}")


if __name__ == "__main__":
    main()
