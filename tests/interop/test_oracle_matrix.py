"""The single/double-grad matrix: every differentiable op in the registry (enumerated, not
hand-listed) has its first and second derivatives checked against JAX in float64, on the shared
per-op cases (several shapes, broadcasting included), plus composed functions: a tanh MLP, an
elementwise composite, a matmul/sum/mse_loss chain and a 1-D PINN residual with u_xx.

`check_derivatives` also lowers every derived graph it builds with `to_jax` and compares it with
frame's execution, so the lowerings of the internal gradient ops are checked on real derived graphs.
"""
import jax
import numpy as np
import pytest

import frame
import frame.numpy as fnp
from frame.frontend.tracer import bind
from frame.interop import check_derivatives, to_jax
from frame.ops import INTERNAL, SIDE_EFFECT, all_ops
from tests.ops.cases import CASES_BY_OP


def _outside_the_real_matrix(op: str) -> bool:
    """Ops that never have a real float operand and a real float result on their cases: those whose results
    are never float (comparisons, argmax, all, ...; their zero rules exist for the closure walk, there is no
    derivative to compare), those whose operands are never float (the random draws from integer keys), and the
    complex ops, whose rules tests/frontend/test_complex.py checks against
    jax.vjp with complex cotangents (this matrix differentiates real objectives of real inputs)."""
    cases = CASES_BY_OP.get(op, [])
    return bool(cases) and all("f" not in outs or "f" not in ins or "c" in ins + outs for ins, outs in map(_kinds, cases))


def _kinds(case):
    """The dtype kinds of a case's operands and of its results ("f", "c", "b", "i")."""
    xs = case.make_inputs(np.random.default_rng(0), "float64")
    out = bind(case.op, *xs, **case.attrs)
    outs = out if isinstance(out, tuple) else (out,)
    return "".join(np.asarray(x).dtype.kind for x in xs), "".join(np.asarray(o).dtype.kind for o in outs)


def differentiable_ops(internal: bool) -> list[str]:
    # an op refusing the derivative in every operand (schur) has nothing for the oracle to check
    return sorted(s.name for s in all_ops() if s.gradient is not None and not s.has(SIDE_EFFECT)
                  and s.num_inputs != 0 and s.has(INTERNAL) == internal and not _outside_the_real_matrix(s.name)
                  and len(s.no_derivative) < (s.num_inputs or len(s.no_derivative) + 1))


def derivative_cases(internal: bool):
    return [c for op in differentiable_ops(internal) for c in CASES_BY_OP.get(op, []) if c.wrt]


PUBLIC_CASES = derivative_cases(internal=False)
INTERNAL_CASES = derivative_cases(internal=True)


def test_every_differentiable_public_op_is_in_the_matrix_with_several_shapes():
    ops = differentiable_ops(internal=False)
    assert {"add", "matmul", "tanh", "sum", "mse_loss", "concat"} <= set(ops)   # the enumeration sees the registry
    missing = [op for op in ops if not any(c.op == op for c in PUBLIC_CASES)]
    assert not missing, f"differentiable ops without an OpCase that differentiates something: {missing}"
    broadcasting = [c for c in PUBLIC_CASES if len(c.wrt) == 2 and len({np.shape(x) for x in
                                                                         c.make_inputs(np.random.default_rng(0), "float64")}) == 2]
    assert len(broadcasting) >= 4, "the matrix must include binary cases whose operands broadcast"


def check_case(case):
    rng = np.random.default_rng(7)
    inputs = case.make_inputs(rng, "float64")

    def single_op(*xs):
        return bind(case.op, *xs, **case.attrs)

    single_op.__name__ = case.id
    report = check_derivatives(single_op, *inputs, argnums=case.wrt, orders=(1, 2))
    checks = {(e.order, e.check) for e in report.entries}
    assert {(1, "gradient"), (1, "lowered derived graph"), (2, "lowered derived graph")} <= checks
    assert (2, "hessian") in checks or (2, "hvp") in checks


@pytest.mark.parametrize("case", PUBLIC_CASES, ids=lambda c: c.id)
def test_public_op_first_and_second_derivatives_match_jax(case):
    check_case(case)


@pytest.mark.parametrize("case", INTERNAL_CASES, ids=lambda c: c.id)
def test_internal_op_first_and_second_derivatives_match_jax(case):
    """Gradient helpers are differentiated again by higher orders (ARCH-068): they are in the matrix too."""
    check_case(case)


# -- composed functions ---------------------------------------------------------------------------------
def init_mlp(rng, sizes):
    return [{"w": rng.standard_normal((a, b)) / np.sqrt(a), "b": 0.1 * rng.standard_normal(b)}
            for a, b in zip(sizes[:-1], sizes[1:])]


def mlp(params, x):
    h = x
    for layer in params[:-1]:
        h = fnp.tanh(h @ layer["w"] + layer["b"])
    return h @ params[-1]["w"] + params[-1]["b"]


def mlp_loss(params, x):
    return fnp.mean(mlp(params, x) ** 2.0)


def test_three_layer_tanh_mlp_wrt_weights_and_inputs():
    rng = np.random.default_rng(0)
    params, x = init_mlp(rng, [2, 8, 8, 1]), rng.standard_normal((5, 2))
    wrt_weights = check_derivatives(mlp_loss, params, x, argnums=0, num_directions=3)
    assert any(e.check == "hvp" for e in wrt_weights.entries)          # 113 parameters: HVPs, not a full Hessian
    wrt_inputs = check_derivatives(mlp_loss, params, x, argnums=1)
    assert any(e.check == "hessian" for e in wrt_inputs.entries)       # 10 inputs: the full Hessian
    # The MLP's output itself (non-scalar): vector-Jacobian products and contracted Hessians w.r.t. x.
    check_derivatives(mlp, params, x, argnums=1)


def test_sin_exp_log_pow_composite():
    def composite(x, y):
        z = fnp.sin(x) * fnp.exp(-0.5 * y) + fnp.log(x * x + 1.0) * fnp.power(y * y + 1.0, 1.5)
        return fnp.sum(z / fnp.sqrt(x * x + 2.0)) + fnp.sum(fnp.power(fnp.exp(x) + 1.0, -0.5))

    rng = np.random.default_rng(1)
    check_derivatives(composite, rng.standard_normal((3, 2)), rng.standard_normal((1, 2)), argnums=(0, 1))


def test_matmul_sum_mse_loss_chain():
    def chain(w, b, x, target):
        hidden = fnp.relu(x @ w + b)
        pooled = fnp.sum(hidden, axis=1, keepdims=True)
        return fnp.mse_loss(fnp.tanh(pooled), target)

    rng = np.random.default_rng(2)
    w, b = rng.standard_normal((3, 4)), rng.standard_normal(4)
    x, target = rng.standard_normal((6, 3)), rng.standard_normal((6, 1))
    assert np.min(np.abs(x @ w + b)) > 1e-3      # relu away from its kink
    check_derivatives(chain, w, b, x, target, argnums=(0, 1, 2, 3))


def u_xx_of(params, x):
    """u'' at each collocation point, by re-applying frame's backward transform twice (ARCH-067)."""
    def u_sum(x):
        return fnp.sum(mlp(params, x))

    def u_x_sum(x):
        return fnp.sum(frame.grad(u_sum)(x))

    return frame.grad(u_x_sum)(x)


def pinn_residual_loss(params, x):
    """1-D Poisson residual u'' + pi^2 sin(pi x) = 0 (exact solution sin(pi x)), mean squared."""
    return fnp.mean((u_xx_of(params, x) + np.pi ** 2 * fnp.sin(np.pi * x)) ** 2.0)


def test_pinn_u_xx_matches_jax_second_derivative_of_the_lowered_mlp():
    rng = np.random.default_rng(3)
    params, x = init_mlp(rng, [1, 8, 8, 1]), np.linspace(-1.0, 1.0, 7).reshape(-1, 1)
    frame_u_xx = frame.function(u_xx_of)(params, x)
    # Only the forward MLP (at one point) is lowered; JAX derives it twice itself, point by point.
    forward = frame.trace(mlp, params, x[:1])
    leaves = frame.tree_leaves(params)
    with jax.enable_x64(True):
        lowered = to_jax(forward)

        def u(point):
            return lowered(*leaves, point.reshape(1, 1))[0][0, 0]

        jax_u_xx = jax.jit(jax.vmap(jax.grad(jax.grad(u))))(x[:, 0])
    np.testing.assert_allclose(frame_u_xx[:, 0], jax_u_xx, rtol=1e-10, atol=1e-12)


def pinn_setup(seed=4):
    rng = np.random.default_rng(seed)
    return init_mlp(rng, [1, 6, 6, 1]), np.linspace(-1.0, 1.0, 5).reshape(-1, 1)


def test_pinn_residual_loss_parameter_gradient():
    """The PINN loss already holds frame's u_xx; its parameter gradient (a third derivative of the
    network) is checked against JAX differentiating the lowered loss graph."""
    report = check_derivatives(pinn_residual_loss, *pinn_setup(), argnums=0, orders=(1,))
    assert {e.order for e in report.entries} == {0, 1}


@pytest.mark.slow
def test_pinn_residual_loss_parameter_hessian_vector_products():
    """Second order of the PINN loss in the parameters: fourth derivatives of the network."""
    report = check_derivatives(pinn_residual_loss, *pinn_setup(), argnums=0, orders=(1, 2), num_directions=2)
    assert {e.order for e in report.entries} == {0, 1, 2}
