"""README's "numpy code that runs under frame" block runs as written and reaches its accuracy."""
import contextlib
import io
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_the_numpy_code_example_runs_and_solves_its_problem():
    text = README.read_text()
    section = text.split("## numpy code that runs under frame", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
    error = float(re.search(r"L-infinity error (\S+)", out.getvalue()).group(1))
    claimed = float(re.search(r"# L-infinity error (\S+)", code).group(1))
    assert error < 1e-3, out.getvalue()
    assert abs(error - claimed) <= 0.5 * claimed, f"README claims {claimed}, the run gives {error}"


def test_the_transforms_example_runs_and_its_checks_hold():
    """The block asserts its own results (jacfwd == jacrev, Taylor u_x == jvp's, jet of sin); it also prints."""
    section = README.read_text().split("## Transforms", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme_transforms"})
    assert out.getvalue().split() == ["3", "(64,", "1,", "32)", "[1.]"]


def test_the_tier_example_prints_what_its_comments_say():
    """"How compiled graphs run": the gradient graph reaches the native tier, and so does the forward
    graph (its matmul, numpy's tanh loop, pow and sum make one segment; before tanh and sums ran in
    segments it stayed on numpy with nothing to build)."""
    import frame

    text = README.read_text()
    short = text.split("## A short example", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    tiers = text.split("## How compiled graphs run", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    namespace = {"__name__": "readme_tiers"}
    previous = frame.runtime.set_native()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(short, str(README), "exec"), namespace)
            exec(compile(tiers, str(README), "exec"), namespace)
    finally:
        frame.runtime.set_native(previous["mode"], after_calls=previous["after_calls"])
    assert '("native", "ready")' in tiers and (namespace["exe"].tier, namespace["exe"].native_status) == ("native", "ready")
    forward = frame.runtime.compile(namespace["graph"])
    forward.wait_native()
    assert '"numpy" first, then "native"' in tiers and (forward.tier, forward.native_status) == ("native", "ready")
