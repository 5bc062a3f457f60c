"""README's "JAX code that runs under frame" block: the same program with frame's imports and with JAX's
(JAX as the oracle) trains the same parameters, loss and rollout."""
import pathlib
import re

import numpy as np
import pytest

import frame

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
JAX_IMPORTS = {   # each frame import line of the block -> what its comment says it replaces
    "import frame as jax": "import jax",
    "import frame.numpy as jnp": "import jax.numpy as jnp",
    "from frame import lax, optax, random": "from jax import lax, random; import optax",
    "from frame.tree_util import register_dataclass": "from jax.tree_util import register_dataclass",
}


def _block() -> str:
    section = README.read_text().split("## JAX code that runs under frame", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def _run(code: str) -> dict:
    namespace = {"__name__": "readme_jax_port", "print": lambda *a, **k: None}
    exec(compile(code, str(README), "exec"), namespace)
    return namespace


def test_the_blocks_imports_are_frames_and_say_what_they_replace():
    code = _block()
    for ours, theirs in JAX_IMPORTS.items():
        assert re.search(rf"^{re.escape(ours)} +# {re.escape(theirs)}$", code, re.M), ours


@pytest.mark.usefixtures("jax_x64")
def test_the_same_program_under_frame_and_under_jax_trains_the_same_model():
    pytest.importorskip("optax")
    code = _block()
    ours = _run(code)
    theirs = _run(re.sub(r"^(.*?) +# (.*)$", lambda m: JAX_IMPORTS.get(m.group(1), m.group(0)), code, flags=re.M))
    import jax

    assert ours["jnp"] is frame.numpy and theirs["jnp"] is jax.numpy and theirs["optax"].__name__ == "optax"
    got, want = frame.tree_leaves(ours["model"]), jax.tree_util.tree_leaves(theirs["model"])
    assert len(got) == len(want) == 6
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-10, atol=1e-12)
    loss = [float(ns["loss"](ns["model"], ns["x"], ns["y"])) for ns in (ours, theirs)]
    assert loss[0] < 1e-3 and abs(loss[0] - loss[1]) <= 1e-10 * loss[1]
    roll = [np.asarray(ns["rollout"](np.ones((1, 1)))) for ns in (ours, theirs)]
    np.testing.assert_allclose(roll[0], roll[1], rtol=1e-10)
