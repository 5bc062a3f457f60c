"""grad / value_and_grad / vjp refuse what they cannot differentiate, naming the argument or output (issue 12)."""
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame import GradientError


@pytest.mark.parametrize("body, shown", [
    (lambda x: (fnp.sum(x), fnp.sum(x * 2.0)), r"\(\*, \*\)"),
    (lambda x: [fnp.sum(x)], r"\[\*\]"),
    (lambda x: {"loss": fnp.sum(x), "other": fnp.mean(x)}, "'loss'"),
    (lambda x: None, "None"),
])
def test_grad_of_a_structured_output_raises_instead_of_using_the_first_leaf(body, shown):
    for transform in (frame.grad, frame.value_and_grad):
        with pytest.raises(GradientError, match=f"one scalar.*{shown}.*has_aux"):
            transform(body)(np.ones(3))


def test_has_aux_needs_a_scalar_loss_first():
    with pytest.raises(GradientError, match=r"one scalar.*\(\*, \*\)"):
        frame.grad(lambda x: ((fnp.sum(x), fnp.sum(x)), x), has_aux=True)(np.ones(3))
    with pytest.raises(GradientError, match=r"scalar.*shape \(3,\)"):
        frame.grad(lambda x: (x * 2.0, x), has_aux=True)(np.ones(3))
    g, aux = frame.grad(lambda x: (fnp.sum(x ** 2), {"x": x}), has_aux=True)(np.arange(3.0))
    np.testing.assert_allclose(g, 2 * np.arange(3.0))
    np.testing.assert_allclose(aux["x"], np.arange(3.0))


def test_non_scalar_output_names_the_shape():
    with pytest.raises(GradientError, match=r"scalar.*shape \(3,\).*vjp"):
        frame.value_and_grad(lambda x: x * 2.0)(np.ones(3))


@pytest.mark.parametrize("body, dtype", [
    (lambda x, n: fnp.sum(n), "int64"),
    (lambda x, n: np.asarray(True), "bool"),
])
def test_integer_or_bool_output_raises(body, dtype):
    with pytest.raises(GradientError, match=f"float.*{dtype}"):
        frame.grad(body)(np.ones(3), np.arange(3))


def test_integer_input_names_argument_and_dtype():
    with pytest.raises(GradientError, match="grad w.r.t. argument 0 needs float or complex arrays, got int64"):
        frame.grad(lambda x: fnp.sum(x))(np.arange(3))
    with pytest.raises(GradientError, match=r"argument 1\['b'\] needs float or complex arrays, got bool"):
        frame.grad(lambda x, p: fnp.sum(x) + fnp.sum(p["a"]), argnums=(0, 1))(
            np.ones(2), {"a": np.ones(2), "b": np.array([True])})
    with pytest.raises(GradientError, match="argument 0 needs float or complex arrays, got int64"):
        frame.grad(lambda x: x * 1.0)(3)
    # a non-float argument that is not differentiated is fine
    np.testing.assert_allclose(frame.grad(lambda x, n: fnp.sum(x * 2.0))(np.ones(2), np.arange(2)), [2.0, 2.0])


@pytest.mark.parametrize("argnums", ["1", 1.0, (0, "1"), True, [0, None]])
def test_bad_argnums_type_is_a_gradient_error_naming_it(argnums):
    with pytest.raises(GradientError, match=f"argnums.*{argnums!r}".replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        frame.grad(lambda x, y: fnp.sum(x * y), argnums=argnums)(np.ones(2), np.ones(2))


def test_argnums_accepts_numpy_integers_and_lists():
    gx, gy = frame.grad(lambda x, y: fnp.sum(x * y), argnums=[np.int64(0), 1])(np.ones(2), np.full(2, 3.0))
    np.testing.assert_allclose(gx, [3.0, 3.0])
    np.testing.assert_allclose(gy, [1.0, 1.0])


def test_vjp_cotangent_of_the_wrong_shape_or_dtype_names_the_leaf():
    out, vjp_fn = frame.vjp(lambda x: (x * 2.0, fnp.sum(x)), np.ones(3))
    with pytest.raises(GradientError, match=r"cotangent leaf 0.*shape \(3,\).*float64.*got shape \(4,\)"):
        vjp_fn((np.ones(4), np.array(1.0)))
    with pytest.raises(GradientError, match=r"cotangent leaf 1.*float64.*got.*float32"):
        vjp_fn((np.ones(3), np.array(1.0, np.float32)))
    # a Python number is a valid cotangent of a scalar output
    (g,) = vjp_fn((np.ones(3), 1.0))
    np.testing.assert_allclose(g, np.full(3, 3.0))
