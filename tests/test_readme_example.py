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
