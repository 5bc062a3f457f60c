"""from_jax of lax.conv_general_dilated, reduce_window_max and reduce_window_sum (frame/interop/jax_rules_conv.py):
each imports as the conv family's op with JAX's values and derivatives, and other layouts or parameters are
refused by name.

The rules are registered by listing the module in jax_import.RULE_FAMILIES; until that line is there, the
`conv_rules` fixture installs them into jax_import's tables for these tests only."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import frame
from frame.compiler import build_backward_graph
from frame.errors import TraceError
from frame.interop import from_jax, jax_import, jax_rules_conv


@pytest.fixture(autouse=True)
def conv_rules(monkeypatch):
    for name, rule in jax_rules_conv.TRANSLATIONS.items():
        monkeypatch.setitem(jax_import.PRIMITIVES, name, rule)
        monkeypatch.setitem(jax_import.PARAMETERS, name, jax_rules_conv.PARAMETERS[name])


def run(graph, *args):
    return frame.runtime.compile(graph)(*args)


@pytest.mark.parametrize("kw", [
    dict(window_strides=(1, 1), padding="SAME"),
    dict(window_strides=(2, 1), padding=[(1, 0), (2, -1)], rhs_dilation=(1, 2), feature_group_count=2,
         dimension_numbers=("NCHW", "OIHW", "NCHW")),
    dict(window_strides=(1, 1), padding=[(1, 1), (0, 1)], lhs_dilation=(2, 2)),
])
def test_conv_general_dilated_imports_as_conv_with_jax_values_and_gradients(kw):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 7, 6)), rng.standard_normal((6, 4 // kw.get("feature_group_count", 1), 3, 2))

    def f(x, w):
        return lax.conv_general_dilated(x, w, **kw)

    graph = from_jax(f, x, w)
    assert [n.op for n in graph.nodes] == ["conv"]
    with jax.enable_x64(True):
        want = np.asarray(f(x, w))
        c = rng.standard_normal(want.shape)
        jgrads = jax.jit(jax.grad(lambda x, w: (f(x, w) * c).sum(), argnums=(0, 1)))(x, w)
    np.testing.assert_allclose(run(graph, x, w)[0], want, rtol=1e-12, atol=1e-12)
    # The imported graph differentiated by frame (sum(conv * c)), against jax.grad.
    loss = frame.ir.clone_graph(graph)
    cc = loss.constant(c)
    prod = loss.add_node("mul", [loss.outputs[0], cc]).output
    loss.mark_output(loss.add_node("sum", [prod], {"axes": (0, 1, 2, 3), "keepdims": False}).output)
    derived = run(build_backward_graph(loss, 1, [0, 1]), x, w)
    for got, want_g in zip(derived[-2:], jgrads):
        np.testing.assert_allclose(got, np.asarray(want_g), rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("spec", [("NCH", "OIH", "NCH"), ("NCDHW", "OIDHW", "NCDHW")])
def test_one_and_three_dimensional_convolutions_import(spec):
    rng = np.random.default_rng(1)
    nd = len(spec[0]) - 2
    x, w = rng.standard_normal((1, 2) + (5,) * nd), rng.standard_normal((3, 2) + (2,) * nd)

    def f(x, w):
        return lax.conv_general_dilated(x, w, (1,) * nd, "VALID", dimension_numbers=spec)

    with jax.enable_x64(True):
        want = np.asarray(f(x, w))
    np.testing.assert_allclose(run(from_jax(f, x, w), x, w)[0], want, rtol=1e-12)


def test_other_layouts_and_batch_groups_are_refused_by_name():
    x, w = np.ones((1, 5, 5, 2)), np.ones((3, 3, 2, 4))
    with pytest.raises(TraceError, match=r"conv_general_dilated.*dimension_numbers.*PyTorch's layout"):
        from_jax(lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                                       dimension_numbers=("NHWC", "HWIO", "NHWC")), x, w)
    with pytest.raises(TraceError, match=r"batch_group_count"):
        from_jax(lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID", batch_group_count=2),
                 np.ones((4, 2, 5, 5)), np.ones((4, 2, 3, 3)))


def test_reduce_window_max_and_sum_import_as_pooling_ops():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 7, 6))

    def pools(x):
        m = lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 3, 2), (1, 1, 2, 1), [(0, 0), (0, 0), (1, 1), (0, 1)])
        s = lax.reduce_window(x, 0.0, lax.add, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        return m, s

    graph = from_jax(pools, x)
    assert [n.op for n in graph.nodes if n.op != "constant"] == ["max_pool", "avg_pool", "mul"]
    with jax.enable_x64(True):
        want = [np.asarray(v) for v in pools(x)]
    got = run(graph, x)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-14)


def test_window_dilation_is_refused_by_name():
    x = np.ones((2, 8))
    with pytest.raises(TraceError, match=r"reduce_window_max.*window_dilation"):
        from_jax(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2), (1, 1), "VALID", window_dilation=(1, 2)), x)
