"""`canonicalize`: operand order of commutative ops, identities removed, shape chains composed."""
from frame.compiler.passes.canonicalize import canonicalize
from frame.compiler.passes.cse import cse
from frame.compiler.passes.dne import dne

from .textcheck import assert_same_results, expect

TEXT = """
graph @g(%0: f32[2,3], %1: f32[2,3]) {
  %2: f32[] = constant() {value=dense<2.0>}
  %3: f32[2,3] = mul(%2, %0)
  %4: f32[2,3] = mul(%1, %0)
  %5: f32[2,3] = add(%4, %3)
  %6: f32[2,3] = reshape(%5) {shape=(2, 3)}
  %7: f32[3,2] = transpose(%6) {perm=(1, 0)}
  %8: f32[2,3] = transpose(%7) {perm=(1, 0)}
  %9: f32[6] = reshape(%8) {shape=(6,)}
  %10: f32[3,2] = reshape(%9) {shape=(3, 2)}
  %11: f32[2,3] = stop_gradient(%8)
  %12: f32[2,3] = pow(%11) {exponent=1.0}
  %13: f32[2,3] = sum(%12) {axes=(), keepdims=False}
  %14: f32[2,3] = slice(%13) {starts=(0, 0), stops=(2, 3), steps=(1, 1)}
  return (%10, %14)
}
"""


def test_constants_second_operands_in_definition_order_identities_gone():
    expect(lambda g, o: dne(canonicalize(g, o)), TEXT, """
graph @g(%0: f32[2,3], %1: f32[2,3]) {
  %2: f32[] = constant() {value=dense<2.0>}
  %3: f32[2,3] = mul(%0, %2)
  %4: f32[2,3] = mul(%0, %1)
  %5: f32[2,3] = add(%3, %4)
  %6: f32[3,2] = reshape(%5) {shape=(3, 2)}
  return (%6, %5)
}""")
    assert_same_results(TEXT, canonicalize)


def test_commuted_products_merge_in_cse():
    text = """
graph @g(%0: f32[3], %1: f32[3]) {
  %2: f32[3] = mul(%0, %1)
  %3: f32[3] = mul(%1, %0)
  %4: f32[3] = add(%2, %3)
  return (%4)
}"""
    expect(lambda g, o: dne(cse(canonicalize(g, o), o)), text, """
graph @g(%0: f32[3], %1: f32[3]) {
  %2: f32[3] = mul(%0, %1)
  %3: f32[3] = add(%2, %2)
  return (%3)
}""")


def test_transpose_chain_composes():
    expect(canonicalize, """
graph @g(%0: f32[2,3,4]) {
  %1: f32[3,4,2] = transpose(%0) {perm=(1, 2, 0)}
  %2: f32[4,3,2] = transpose(%1) {perm=(1, 0, 2)}
  return (%2)
}""", """
graph @g(%0: f32[2,3,4]) {
  %1: f32[3,4,2] = transpose(%0) {perm=(1, 2, 0)}
  %2: f32[4,3,2] = transpose(%0) {perm=(2, 1, 0)}
  return (%2)
}""")


# -- outer products: a matmul-family op contracting a dimension of 1 is a broadcast mul ----------------
def test_outer_product_matmul_becomes_a_broadcast_mul():
    text = """
graph @g(%0: f32[5,1], %1: f32[1,3]) {
  %2: f32[5,3] = matmul(%0, %1)
  return (%2)
}"""
    expect(canonicalize, text, """
graph @g(%0: f32[5,1], %1: f32[1,3]) {
  %2: f32[5,3] = mul(%0, %1)
  return (%2)
}""")
    assert_same_results(text, canonicalize)


def test_outer_product_with_b_transposed_reshapes_b():
    # gy @ b^T with gy (5,1), b (3,1): b^T is b reshaped to (1,3)
    text = """
graph @g(%0: f32[5,1], %1: f32[3,1]) {
  %2: f32[5,3] = matmul(%0, %1) {transpose_b=True}
  return (%2)
}"""
    expect(canonicalize, text, """
graph @g(%0: f32[5,1], %1: f32[3,1]) {
  %2: f32[1,3] = reshape(%1) {shape=(1, 3)}
  %3: f32[5,3] = mul(%0, %2)
  return (%3)
}""")
    assert_same_results(text, canonicalize)


def test_outer_product_with_a_transposed_reshapes_a():
    # a^T @ gy with a (1,5), gy (1,3): a^T is a reshaped to (5,1). The product's operands are in
    # canonical order (the input before the reshape defined after it), as for any other `mul`.
    text = """
graph @g(%0: f32[1,5], %1: f32[1,3]) {
  %2: f32[5,3] = matmul(%0, %1) {transpose_a=True}
  return (%2)
}"""
    expect(canonicalize, text, """
graph @g(%0: f32[1,5], %1: f32[1,3]) {
  %2: f32[5,1] = reshape(%0) {shape=(5, 1)}
  %3: f32[5,3] = mul(%1, %2)
  return (%3)
}""")
    assert_same_results(text, canonicalize)


def test_batched_outer_products_become_broadcast_muls():
    text = """
graph @g(%0: f64[2,5,1], %1: f64[1,3], %2: f64[2,1,5], %3: f64[2,1,3], %4: f64[3,1]) {
  %5: f64[2,5,3] = matmul(%0, %1)
  %6: f64[2,5,3] = matmul(%2, %3) {transpose_a=True}
  %7: f64[2,5,3] = matmul(%0, %4) {transpose_b=True}
  return (%5, %6, %7)
}"""
    expect(lambda g, o: dne(canonicalize(g, o)), text, """
graph @g(%0: f64[2,5,1], %1: f64[1,3], %2: f64[2,1,5], %3: f64[2,1,3], %4: f64[3,1]) {
  %5: f64[2,5,3] = mul(%0, %1)
  %6: f64[2,5,1] = reshape(%2) {shape=(2, 5, 1)}
  %7: f64[2,5,3] = mul(%3, %6)
  %8: f64[1,3] = reshape(%4) {shape=(1, 3)}
  %9: f64[2,5,3] = mul(%0, %8)
  return (%5, %7, %9)
}""")
    assert_same_results(text, canonicalize)


def test_matmuls_contracting_more_than_one_element_stay():
    text = """
graph @g(%0: f32[5,2], %1: f32[2,3], %2: f32[3,2], %3: f32[2,5], %4: f32[2,1], %5: f32[2,2,1], %6: f32[2,2,3]) {
  %7: f32[5,3] = matmul(%0, %1)
  %8: f32[5,3] = matmul(%0, %2) {transpose_b=True}
  %9: f32[5,3] = matmul(%3, %1) {transpose_a=True}
  %10: f32[5,1] = matmul(%0, %4)
  %11: f32[2,1,3] = matmul(%5, %6) {transpose_a=True}
  return (%7, %8, %9, %10, %11)
}"""
    expect(canonicalize, text, text)


def test_outer_products_keep_every_bit_but_the_sign_of_a_zero_product():
    # mul((N,1), (1,M)) equals the matmul it replaces bit for bit, except a zero product's sign
    # (BLAS accumulates from +0: its (-1) @ 0 is +0.0, the product -0.0), as the module says.
    import numpy as np

    from frame.compiler.pipeline import UNOPTIMIZED
    from frame.ir import parse_graph
    from frame.runtime import compile as compile_graph

    text = """
graph @g(%0: f64[4,1], %1: f64[1,3], %2: f64[3,1]) {
  %3: f64[4,3] = matmul(%0, %1)
  %4: f64[4,3] = matmul(%0, %2) {transpose_b=True}
  return (%3, %4)
}"""
    graph = parse_graph(text)
    a = np.array([[-1.0], [0.0], [2.5], [-0.0]])
    b = np.array([[0.0, -3.0, -0.0]])
    args = (a, b, b.T.copy())
    before = compile_graph(graph, UNOPTIMIZED)(*args)
    after = compile_graph(canonicalize(graph), UNOPTIMIZED)(*args)
    for x, y in zip(after, before):
        np.testing.assert_array_equal(x, y)
        nonzero = y != 0
        assert x[nonzero].view(np.uint64).tolist() == y[nonzero].view(np.uint64).tolist()
        assert np.signbit(x[~nonzero]).any()   # the documented difference does occur here


def test_an_outer_product_and_the_equal_mul_merge_in_cse():
    text = """
graph @g(%0: f32[1,3], %1: f32[5,1]) {
  %2: f32[5,1] = neg(%1)
  %3: f32[5,3] = matmul(%2, %0)
  %4: f32[5,3] = mul(%0, %2)
  %5: f32[5,3] = add(%3, %4)
  return (%5)
}"""
    expect(lambda g, o: dne(cse(canonicalize(g, o), o)), text, """
graph @g(%0: f32[1,3], %1: f32[5,1]) {
  %2: f32[5,1] = neg(%1)
  %3: f32[5,3] = mul(%0, %2)
  %4: f32[5,3] = add(%3, %3)
  return (%4)
}""")
