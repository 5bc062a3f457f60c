"""Hypothesis strategies of operands and attributes for every registered op (issue 12, item 5).

`EXAMPLES[op]` draws `(inputs, attrs)`: float32 or float64 operands of generated shapes with
0-size and size-1 axes (numpy broadcasting where the op broadcasts), values over the whole float
range (nan, infinities, subnormals included), attributes the op accepts. Most draws are valid for
the op's shape rule; about a third are not (shapes that do not broadcast, bad axes, mismatched
inner dimensions...), so that rejections are exercised too.

`EXCLUDED` names each registered op without a strategy, with the reason.
"""
from __future__ import annotations

import functools

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from frame.ir import parse_graph
from frame.ops import all_ops
from frame.ops.fused import FusedBody
from frame.ops.fft import num_bins
from frame.ir.registry import BROADCASTING, ELEMENTWISE
import tests.ops.cases  # noqa: F401,E402  (collects the case modules first: cases_conv imports it)
from tests.ops.cases_conv import STRATEGIES as CONV_STRATEGIES  # noqa: E402

MAX_SIDE = 4
DTYPES = st.sampled_from(["float32", "float64"])

EXCLUDED = {
    "debug_print": "no outputs: it prints at run time, there is no result to compare",
    "lstsq": "LAPACK's least-squares driver on arbitrary (nan, inf) matrices; tests/frontend/test_numpy_linalg.py "
             "checks it eagerly and compiled on finite ones",
    **{op: "its attributes are the traced graphs of a user's function and rules, which fix the operand types; "
           "tests/transforms/test_custom.py runs it eagerly and compiled (the decompose stage expands it)"
       for op in ("custom_vjp_call", "custom_jvp_call")},
    "checkpoint": "its attribute is a traced region (frame.checkpoint's body) that fixes the operand types; "
                  "tests/transforms/test_remat.py runs it eagerly, compiled and lowered",
    **{op: "its attributes are traced regions (loop and branch bodies) that fix the operand types; "
           "tests/control/ runs it eagerly, compiled and lowered" for op in ("cond", "scan", "while")},
    **{op: "its operands are PRNG keys (int64 words in [0, 2^32)), not arbitrary arrays; tests/frontend/test_random.py "
           "runs it eagerly, compiled, vmapped and lowered, bit for bit against jax.random"
       for op in ("random_split", "random_fold_in", "random_bits", "random_uniform", "random_randint")},
}


def shapes(min_dims=0, max_dims=3):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0, max_side=MAX_SIDE)


def arrays(dtype, shape):
    """Any floats of `dtype` (nan, +-inf, +-0, subnormals included)."""
    return hnp.arrays(dtype, shape)


def mostly_valid(valid, invalid):
    """Two valid draws for each invalid one."""
    return st.one_of(valid, valid, invalid)


@st.composite
def _operands(draw, shape_lists, dtype=None, dtypes=DTYPES):
    dtype = dtype or draw(dtypes)
    return [draw(arrays(dtype, s)) for s in draw(shape_lists)]


def _unary(attrs=st.just({}), dtypes=DTYPES):
    @st.composite
    def draw_example(draw):
        return draw(_operands(shapes().map(lambda s: [s]), dtypes=dtypes)), draw(attrs)
    return draw_example()


# the bitwise ops: integers (any bits) and, where numpy allows them, bools
INTEGRAL = st.sampled_from(["int32", "int64", "bool"])
INTEGER = st.sampled_from(["int32", "int64"])


def _binary(num_shapes=2, dtypes=DTYPES):
    broadcasting = hnp.mutually_broadcastable_shapes(num_shapes=num_shapes, max_dims=3, min_side=0,
                                                     max_side=MAX_SIDE).map(lambda b: list(b.input_shapes))
    independent = st.lists(shapes(), min_size=num_shapes, max_size=num_shapes)

    @st.composite
    def draw_example(draw):
        return draw(_operands(mostly_valid(broadcasting, independent), dtypes=dtypes)), {}
    return draw_example()


@st.composite
def _axes(draw, rank, non_empty=False):
    """Sorted distinct axes in [0, rank) (or, a third of the time, any small tuple of ints)."""
    valid = st.lists(st.sampled_from(range(rank)), unique=True, min_size=int(non_empty),
                     max_size=rank).map(lambda a: tuple(sorted(a))) if rank else st.just(())
    anything = st.lists(st.integers(-1, rank), max_size=rank + 1).map(tuple)
    return draw(mostly_valid(valid, anything))


@st.composite
def _reduction(draw):
    (x,) = draw(_operands(shapes().map(lambda s: [s])))
    return [x], {"axes": draw(_axes(x.ndim)), "keepdims": draw(st.booleans())}


def _matmul(a_t=False, b_t=False):
    """Operands of op(a, b) = a' @ b' where a' (b') is a (b) transposed in its last two axes when a_t (b_t)."""
    @st.composite
    def draw_example(draw):
        batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, min_side=0, max_side=3))
        side = st.integers(0, MAX_SIDE)
        m, k, n = draw(side), draw(side), draw(side)
        k_b = draw(mostly_valid(st.just(k), side))          # a mismatched inner dimension now and then
        a = (k, m) if a_t else (m, k)
        b = (n, k_b) if b_t else (k_b, n)
        lhs, rhs = batch.input_shapes[0] + a, batch.input_shapes[1] + b
        if draw(st.integers(0, 9)) == 0:                    # rank 1 is refused
            lhs = lhs[-1:]
        flags = {k: True for k, on in (("transpose_a", a_t), ("transpose_b", b_t)) if on}
        return draw(_operands(st.just([lhs, rhs]))), flags
    return draw_example()


@st.composite
def _reshape(draw):
    (x,) = draw(_operands(shapes().map(lambda s: [s])))
    same_size = st.permutations(list(x.shape) + [1] * draw(st.integers(0, 2))).map(tuple)
    if x.size == 0:
        same_size = shapes(min_dims=1).filter(lambda s: 0 in s)
    return [x], {"shape": draw(mostly_valid(same_size, shapes()))}


@st.composite
def _transpose(draw):
    (x,) = draw(_operands(shapes().map(lambda s: [s])))
    perm = st.permutations(range(x.ndim)).map(tuple)
    return [x], {"perm": draw(mostly_valid(perm, st.lists(st.integers(0, x.ndim), max_size=x.ndim + 1).map(tuple)))}


@st.composite
def _broadcast_to(draw):
    target = draw(shapes())
    source = tuple(d if draw(st.booleans()) else 1 for d in target)[draw(st.integers(0, len(target))):]
    source = draw(mostly_valid(st.just(source), shapes()))
    return draw(_operands(st.just([source]))), {"shape": target}


@st.composite
def _concat(draw):
    base = list(draw(shapes(min_dims=1)))
    axis = draw(st.integers(-len(base), len(base) - 1))
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        s = list(base)
        s[axis] = draw(st.integers(0, MAX_SIDE))
        parts.append(tuple(s))
    shape_lists = mostly_valid(st.just(parts), st.lists(shapes(), min_size=1, max_size=3))
    return draw(_operands(shape_lists)), {"axis": draw(mostly_valid(st.just(axis), st.integers(-4, 4)))}


@st.composite
def _slice_attrs(draw, shape):
    starts, stops, steps = [], [], []
    for d in shape:
        a = draw(st.integers(0, d))
        starts.append(a)
        stops.append(draw(st.integers(a, d)))
        steps.append(draw(st.integers(1, 3)))
    valid = st.just((tuple(starts), tuple(stops), tuple(steps)))
    small = st.lists(st.integers(-1, MAX_SIDE + 1), min_size=len(shape), max_size=len(shape)).map(tuple)
    starts, stops, steps = draw(mostly_valid(valid, st.tuples(small, small, small)))
    return {"starts": starts, "stops": stops, "steps": steps}


@st.composite
def _slice(draw):
    (x,) = draw(_operands(shapes().map(lambda s: [s])))
    return [x], draw(_slice_attrs(x.shape))


@st.composite
def _pad(draw):
    (x,) = draw(_operands(shapes().map(lambda s: [s])))
    widths = st.lists(st.integers(0, 2), min_size=x.ndim, max_size=x.ndim).map(tuple)
    bad = st.lists(st.integers(-1, 2), max_size=3).map(tuple)   # wrong length or a negative width
    attrs = {k: draw(mostly_valid(widths, bad)) for k in ("lo", "hi", "interior")}
    return [x], attrs


@st.composite
def _axis_attr(draw, extra=None):
    (x,) = draw(_operands(shapes(min_dims=1).map(lambda s: [s])))
    axis = draw(mostly_valid(st.integers(0, x.ndim - 1), st.integers(-2, x.ndim)))
    return [x], {"axis": axis, **({extra: draw(st.booleans())} if extra else {})}


@st.composite
def _rev(draw):
    (x,) = draw(_operands(shapes().map(lambda s: [s])))
    return [x], {"axes": draw(_axes(x.ndim))}


@st.composite
def _indices(draw, shape):
    """1..rank int64 index arrays of one batch shape for the leading axes of `shape`; now and then out of range."""
    k = draw(st.integers(1, max(len(shape), 1)))
    batch = draw(shapes(max_dims=2))
    n = int(np.prod(batch))
    out = []
    for d in (shape + (1,) * k)[:k]:
        a, b = draw(mostly_valid(st.just((-d, d - 1) if d else (0, 0)), st.just((-MAX_SIDE - 1, MAX_SIDE + 1))))
        out.append(np.asarray(draw(st.lists(st.integers(a, b), min_size=n, max_size=n)), np.int64).reshape(batch))
    return out


@st.composite
def _gather(draw):
    (x,) = draw(_operands(shapes(min_dims=1).map(lambda s: [s])))
    return [x, *draw(_indices(x.shape))], {}


def _scatter(modes):
    @st.composite
    def draw_example(draw):
        (x,) = draw(_operands(shapes(min_dims=1).map(lambda s: [s])))
        idx = draw(_indices(x.shape))
        (u,) = draw(_operands(st.just([idx[0].shape + x.shape[len(idx):]]), x.dtype.name))
        return [x, u, *idx], ({} if modes is None else {"mode": draw(st.sampled_from(modes))})
    return draw_example()


def _matrices(num=1, attrs=st.just({})):
    """Stacks of square matrices (side 0..3) with finite entries; `num` operands sharing the batch and side
    (the second of two is (..., n, k): a right-hand side)."""
    @st.composite
    def draw_example(draw):
        batch, n = draw(shapes(max_dims=1)), draw(st.integers(0, 3))
        dtype = draw(DTYPES)
        finite = st.floats(-2, 2, width=32)
        sides = [(n, n), (n, draw(st.integers(1, 2)))][:num]
        return [draw(hnp.arrays(dtype, batch + side, elements=finite)) for side in sides], draw(attrs)
    return draw_example()


@st.composite
def _fft(draw):
    kind = draw(st.sampled_from(["fft", "ifft", "rfft", "irfft"]))
    dtype = draw(DTYPES)
    shape = draw(shapes(min_dims=1))
    x = draw(arrays(dtype, shape))
    if kind in ("fft", "ifft"):
        x = x.astype("complex64" if dtype == "float32" else "complex128")
    if kind == "irfft":
        x = (x + 0j).astype("complex64" if dtype == "float32" else "complex128")
        return [x], {"kind": kind, "n": max(2 * (shape[-1] - 1), 1)}
    return [x], {"kind": kind}


def _same_shapes():
    @st.composite
    def draw_example(draw):
        shape = draw(shapes())
        pair = mostly_valid(st.just([shape, shape]), st.lists(shapes(), min_size=2, max_size=2))
        return draw(_operands(pair)), {}
    return draw_example()


@st.composite
def _softmax(draw):
    (x,) = draw(_operands(mostly_valid(shapes(min_dims=1), shapes()).map(lambda s: [s])))
    rank = max(x.ndim, 1)
    return [x], {"axis": draw(mostly_valid(st.integers(-rank, rank - 1), st.integers(-4, 4)))}


@st.composite
def _layer_norm(draw):
    (x,) = draw(_operands(shapes(min_dims=1).map(lambda s: [s])))
    return [x], {"axes": draw(_axes(x.ndim, non_empty=True)), "eps": draw(st.sampled_from([0.0, 1e-5, 0.5]))}


@st.composite
def _irfft(draw):
    n = draw(st.integers(1, 7))
    batch = draw(shapes(max_dims=2))
    bins = draw(mostly_valid(st.just(num_bins(n)), st.integers(0, MAX_SIDE)))
    return draw(_operands(st.just([batch + (bins, 2)]))), {"n": n}


@st.composite
def _constant(draw):
    return [], {"value": draw(arrays(draw(DTYPES), draw(shapes())))}


# Fused bodies: one of exact ops only (a native kernel in both dtypes) and one with float32 tanh and exp.
_FUSED_BODIES = [
    """graph @fused(%0: {t}[{s}], %1: {t}[{r}]) {{
  %2: {t}[{s}] = sub(%0, %1)
  %3: {t}[{s}] = relu(%2)
  %4: {t}[] = constant() {{value=dense<0.5>}}
  %5: {t}[{s}] = mul(%3, %4)
  %6: {t}[{s}] = div(%5, %0)
  %7: {t}[{s}] = sqrt(%6)
  return (%7, %3)
}}""",
    """graph @fused(%0: {t}[{s}], %1: {t}[{r}]) {{
  %2: {t}[{s}] = tanh(%0)
  %3: {t}[{s}] = mul(%2, %1)
  %4: {t}[{s}] = exp(%3)
  %5: {t}[{s}] = sigmoid(%4)
  return (%5, %2)
}}""",
]


@st.composite
def _fused(draw):
    dtype = draw(DTYPES)
    shape = draw(shapes(min_dims=1))
    row = shape[-1:] if draw(st.booleans()) else shape
    text = draw(st.sampled_from(_FUSED_BODIES)).format(
        t={"float32": "f32", "float64": "f64"}[dtype], s=", ".join(map(str, shape)), r=", ".join(map(str, row)))
    operand_shapes = mostly_valid(st.just([shape, row]), st.lists(shapes(min_dims=1), min_size=2, max_size=2))
    return draw(_operands(operand_shapes, dtype)), {"body": _body(text)}


def _where():
    @st.composite
    def draw_example(draw):
        cond_shape, a_shape, b_shape = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, min_side=0,
                                                                               max_side=MAX_SIDE)).input_shapes
        dtype = draw(DTYPES)
        return [draw(hnp.arrays("bool", cond_shape)), draw(arrays(dtype, a_shape)), draw(arrays(dtype, b_shape))], {}
    return draw_example()


@functools.lru_cache(maxsize=None)
def _body(text: str) -> FusedBody:
    return FusedBody.of(parse_graph(text))


# Elementwise ops of one operand and no attributes, and the broadcasting binary ops, get the generic
# strategies from their traits: a new op of that kind needs no entry here.
_UNARY_OPS = [s.name for s in all_ops() if s.has(ELEMENTWISE) and s.num_inputs == 1 and not s.attrs]
_BINARY_OPS = [s.name for s in all_ops() if s.has(BROADCASTING)]

EXAMPLES = {
    **CONV_STRATEGIES,   # the conv family's own, next to its cases
    **{op: _unary() for op in _UNARY_OPS},
    **{op: _binary() for op in _BINARY_OPS},
    "pow": _unary(st.fixed_dictionaries({"exponent": st.sampled_from([2.0, 3.0, -1.5, 0.5, 0.0, 2, -1])})),
    "polygamma": _unary(st.fixed_dictionaries({"n": st.sampled_from([0, 1, 2])})),
    "betainc": _binary(num_shapes=3),   # three broadcasting operands (gammainc, gammaincc, zeta: _BINARY_OPS)
    "checkpoint_name": _unary(st.just({"name": "h"})), "remat_barrier": _unary(st.just({"region": "r0"})),
    "sum": _reduction(), "mean": _reduction(),
    "matmul": st.one_of(*[_matmul(a_t, b_t) for a_t in (False, True) for b_t in (False, True)]),
    "reshape": _reshape(), "transpose": _transpose(), "broadcast_to": _broadcast_to(), "concat": _concat(),
    "slice": _slice(), "pad": _pad(),
    "mse_loss": _same_shapes(),
    "softmax": _softmax(), "log_softmax": _softmax(), "layer_norm": _layer_norm(),
    "rfft": _unary(), "irfft": _irfft(),
    "constant": _constant(),
    "fused_elementwise_internal": _fused(),
    "where": _where(),
    **{op: _reduction() for op in ("max", "min", "prod", "logsumexp", "all", "any", "count_nonzero")},
    "argmax": _axis_attr("keepdims"), "argmin": _axis_attr("keepdims"), "argsort": _axis_attr(),
    "cumsum": _axis_attr("reverse"), "cumprod": _axis_attr("reverse"), "rev": _rev(),
    **{op: _matrices() for op in ("inv", "det", "slogdet", "cholesky", "qr", "eigvals", "eig", "eigenbasis_internal",
                                  "lu")},
    "solve": _matrices(2), "eigh": _matrices(attrs=st.sampled_from([{}, {"UPLO": "U"}])),
    "schur": _matrices(attrs=st.sampled_from([{}, {"output": "complex"}])),
    "triangular_solve": _matrices(2, attrs=st.fixed_dictionaries(
        {k: st.booleans() for k in ("lower", "transpose_a", "unit_diagonal")})),
    "svd": _matrices(attrs=st.fixed_dictionaries({"full_matrices": st.booleans()})),
    "fft": _fft(),
    "gather": _gather(), "scatter_add": _scatter(None), "scatter": _scatter(["set", "mul", "min", "max"]),
    "convert": _unary(st.fixed_dictionaries({"dtype": st.sampled_from(["float32", "float64", "float16", "bool"])})),
    **{op: _binary(dtypes=INTEGRAL) for op in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    "bitwise_not": _unary(dtypes=INTEGRAL), "population_count": _unary(dtypes=INTEGER),
    **{op: _binary(dtypes=INTEGER) for op in ("left_shift", "right_shift")},
}
