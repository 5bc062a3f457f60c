"""The JAX side reads the op registry: every op lowers from its block's `jax` fact (or is a pipeline
product with its lowering in interop), every primitive a block lists in `jax_imports` imports as that
op and gives JAX's numbers, and the oracle matrix enumerates the registry's differentiable ops."""
import jax
import numpy as np
import pytest
from jax import lax

import frame
from frame.interop import from_jax, jax_import, missing_lowerings
from frame.interop.jax_lowering import PIPELINE_LOWERINGS, lowering_for
from frame.ops import INTERNAL, all_ops
from tests.interop.test_oracle_matrix import INTERNAL_CASES, PUBLIC_CASES, differentiable_ops
from tests.ops.cases import CASES_BY_OP

ONE_TO_ONE = sorted((primitive, s.name) for s in all_ops() for primitive in s.jax_imports)


@pytest.mark.parametrize("op", sorted(s.name for s in all_ops()))
def test_every_registered_op_lowers_from_its_block_or_is_a_pipeline_product(op):
    lowering_for(op)   # a name must exist in this JAX, not only be spelled in the block
    assert op not in missing_lowerings()


def test_pipeline_products_are_internal_ops_without_a_block_lowering():
    """A lowering lives in one place: the block, or interop's table for what the pipeline makes."""
    for op in PIPELINE_LOWERINGS:
        schema = frame.ops.get(op)
        assert schema.has(INTERNAL) and schema.jax is None, op


def test_each_imported_primitive_is_claimed_by_one_op_and_is_not_also_translated():
    primitives = [p for p, _ in ONE_TO_ONE]
    assert len(primitives) == len(set(primitives)), f"a JAX primitive imports as two ops: {ONE_TO_ONE}"
    assert not set(primitives) & set(jax_import.TRANSLATIONS)
    assert dict(ONE_TO_ONE) == jax_import.ONE_TO_ONE
    assert set(primitives) <= set(jax_import.PRIMITIVES) & set(jax_import.PARAMETERS)


def primitive_inputs(op: str) -> list[np.ndarray]:
    """The op's first shared case's float64 operands, broadcast to one shape (lax does not broadcast)."""
    inputs = CASES_BY_OP[op][0].make_inputs(np.random.default_rng(11), "float64")
    return [np.array(x) for x in np.broadcast_arrays(*inputs)]


@pytest.mark.parametrize("primitive, op", ONE_TO_ONE, ids=[p for p, _ in ONE_TO_ONE])
def test_every_jax_imports_primitive_round_trips_with_jax_numbers(primitive, op):
    """`lax.<primitive>` binds exactly that primitive; from_jax makes it the op, and frame computes JAX's values."""
    fn = getattr(lax, {"regularized_incomplete_beta": "betainc", **{w: f"bitwise_{w}" for w in ("and", "or", "xor", "not")}}
                  .get(primitive, primitive))   # lax.betainc binds it, lax.bitwise_and binds and, ...
    inputs = primitive_inputs(op)
    with jax.enable_x64(True):
        eqns = jax.make_jaxpr(fn)(*inputs).jaxpr.eqns
        expected = np.asarray(fn(*inputs))
    assert [e.primitive.name for e in eqns] == [primitive]
    graph = from_jax(fn, *inputs)
    assert [n.op for n in graph.nodes] == [op]
    np.testing.assert_allclose(frame.runtime.compile(graph)(*inputs)[0], expected, rtol=1e-12, atol=1e-14)


def test_an_integer_operand_is_refused_by_the_ops_own_shape_rule():
    """JAX's div of integers rounds to zero, frame's div is true division of floats (frame.numpy promotes ints
    first, the importer does not): the op's shape rule refuses, and the error names both."""
    ints = np.arange(1, 4, dtype=np.int32)
    with pytest.raises(frame.errors.TraceError, match=r"primitive 'div'.*op 'div' needs a float or complex operand"):
        from_jax(lax.div, ints, ints)


def test_the_oracle_matrix_enumerates_the_registrys_differentiable_ops():
    """Every differentiable op with a shared case that differentiates something is checked against JAX."""
    in_matrix = {c.op for c in PUBLIC_CASES + INTERNAL_CASES}
    differentiable = differentiable_ops(internal=False) + differentiable_ops(internal=True)
    with_cases = {op for op in differentiable if any(c.wrt for c in CASES_BY_OP.get(op, []))}
    assert set(differentiable_ops(internal=False)) <= in_matrix
    assert with_cases == in_matrix
