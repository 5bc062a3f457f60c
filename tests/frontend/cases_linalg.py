"""numpy-agreement cases for frame.numpy's linear algebra (products, einsum, trace, fnp.linalg).

Matrices for the decompositions are built well conditioned (see tests/ops/cases_linalg.py); the
derivative checks (wrt) use inputs where the functions are smooth (norms away from zero, distinct
eigen/singular values).
"""
import math

import numpy as np

from tests.frontend.numpy_cases import NumpyCase, uniform
import tests.ops.cases  # noqa: F401,E402 - loads tests.ops.cases_linalg through its collection first (no cycle)
from tests.ops.cases_linalg import _complex_eig, _dominant, _spd, _spread_general, _spread_singular, _spread_symmetric


def _args(*shapes, dtype="float64"):
    return lambda rng: tuple(uniform(rng, s, dtype) for s in shapes)


def _made(*makers, dtype="float64"):
    return lambda rng: tuple(m(rng, dtype) for m in makers)


_PRODUCT_SHAPES = {   # name -> [(shape a, shape b, label)]
    "dot": [((3, 4), (4, 2), "2d"), ((4,), (4,), "1d"), ((2, 3, 4), (4,), "nd-1d"), ((4,), (2, 4, 3), "1d-nd"),
            ((2, 3, 4), (5, 4, 2), "nd-md"), ((), (2, 3), "scalar"), ((0, 3), (3, 2), "empty"), ((1, 1), (1,), "size1")],
    "matmul": [((3, 4), (4, 2), "2d"), ((4,), (4,), "1d"), ((2, 3, 4), (4,), "nd-1d"), ((4,), (2, 4, 3), "1d-nd"),
               ((5, 1, 3, 4), (2, 4, 6), "bcast"), ((0, 3), (3, 2), "empty"), ((1, 1, 1), (1, 1), "size1")],
    "inner": [((3, 4), (2, 4), "2d"), ((4,), (4,), "1d"), ((2, 3, 4), (4,), "nd-1d"), ((), (2, 3), "scalar"),
              ((0, 3), (3,), "empty")],
    "outer": [((3,), (4,), "1d"), ((2, 3), (2, 2), "flattened"), ((), (3,), "scalar"), ((0,), (3,), "empty")],
    "vdot": [((3,), (3,), "1d"), ((2, 3), (3, 2), "flattened"), ((1,), (1,), "size1")],
}

CASES = [
    *[NumpyCase(name, _args(a, b), label=label, wrt=(0, 1)) for name, rows in _PRODUCT_SHAPES.items()
      for a, b, label in rows],
    *[NumpyCase(name, _args((3, 4), (4, 2), dtype=dt), label=dt) for name in ("dot", "matmul")
      for dt in ("float32", "int64", "int32")],
    NumpyCase("inner", _args((3, 4), (2, 4), dtype="float32"), label="float32"),
    NumpyCase("vdot", _args((2, 3), (6,), dtype="int64"), label="int64"),
    *[NumpyCase("tensordot", _args(a, b), {"axes": axes}, label=label, wrt=(0, 1)) for a, b, axes, label in [
        ((2, 3, 4), (3, 4, 5), 2, "int2"), ((3, 4), (4, 5), 1, "int1"), ((2, 3), (4,), 0, "outer"),
        ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0]), "pairs"), ((2, 3, 4), (5, 2), ([-3], [-1]), "negative"),
        ((3, 4), (4, 3), (1, 0), "ints"), ((0, 4), (4, 2), 1, "empty")]],
    NumpyCase("tensordot", _args((2, 3), (3, 2), dtype="float32"), {"axes": 1}, label="float32"),
    *[NumpyCase("einsum", (lambda shapes: lambda rng, spec=spec: (spec, *(uniform(rng, s) for s in shapes)))(shapes),
                label=spec, wrt=tuple(range(1, len(shapes) + 1)))
      for spec, shapes in [
          ("ij,jk->ik", [(3, 4), (4, 2)]), ("ij,jk", [(3, 4), (4, 2)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
          ("iij->j", [(2, 2, 3)]), ("iji->j", [(3, 2, 3)]), ("ji", [(2, 3)]), ("ij->", [(2, 3)]),
          ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]), ("...ij,...jk", [(2, 3, 4), (1, 4, 2)]),
          ("...i,...i->...", [(3, 1, 4), (2, 4)]), ("i,i", [(4,), (4,)]), ("i,j", [(3,), (2,)]),
          ("i,i->i", [(4,), (4,)]), ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 2)]), ("ijk,kji->", [(2, 3, 4), (4, 3, 2)]),
          ("ij,ij->j", [(0, 3), (0, 3)]), ("i,i", [(1,), (3,)]), (",ij->ij", [(), (2, 3)]),
          ("ab,cd,bc->", [(2, 3), (4, 2), (3, 4)])]],
    NumpyCase("einsum", lambda rng: ("ij,jk->ik", uniform(rng, (2, 3), "float32"), uniform(rng, (3, 2), "float32")),
              label="float32"),
    NumpyCase("einsum", lambda rng: ("ij->i", uniform(rng, (2, 3), "int32")), label="int32-sum"),
    # numpy's interleaved form: (operand, sublist of int labels / Ellipsis) pairs, then the output sublist
    NumpyCase("einsum", lambda rng: (uniform(rng, (2, 3)), [0, 1], uniform(rng, (3, 4)), [1, 2], [0, 2]),
              label="interleaved", wrt=(0, 2)),
    NumpyCase("einsum", lambda rng: (uniform(rng, (2, 3)), [0, 1], uniform(rng, (3, 4)), [1, 2]),
              label="interleaved-implicit"),
    NumpyCase("einsum", lambda rng: (uniform(rng, (2, 3)), [26, 0]), label="interleaved-label-order"),
    NumpyCase("einsum", lambda rng: (uniform(rng, (3, 3)), [5, 5]), label="interleaved-trace"),
    NumpyCase("einsum", lambda rng: (uniform(rng, (5, 2, 3)), [Ellipsis, 0, 51], uniform(rng, (3, 4)), (51, 2),
                                     [Ellipsis, 2, 0]), label="interleaved-ellipsis"),
    # optimize= chooses numpy's contraction path: accepted, the values are the same
    *[NumpyCase("einsum", lambda rng: ("ab,bc,cd->ad", uniform(rng, (2, 3)), uniform(rng, (3, 4)), uniform(rng, (4, 2))),
                {"optimize": optimize}, label=f"optimize-{label}")
      for optimize, label in [(True, "true"), ("greedy", "greedy"), ("optimal", "optimal"),
                              (["einsum_path", (0, 1), (0, 1)], "path")]],
    *[NumpyCase("trace", _args(shape), kwargs, label=label, wrt=(0,)) for shape, kwargs, label in [
        ((3, 3), {}, "square"), ((3, 5), {"offset": 1}, "offset"), ((5, 3), {"offset": -2}, "negative-offset"),
        ((2, 3, 4), {"axis1": -1, "axis2": 0}, "axes"), ((3, 3), {"offset": 4}, "beyond"), ((0, 2), {}, "empty"),
        ((1, 1), {}, "size1")]],
    NumpyCase("trace", _args((3, 3), dtype="int32"), label="int32"),
    NumpyCase("trace", _args((3, 3), dtype="float32"), label="float32"),
    # -- fnp.linalg
    *[NumpyCase("linalg.norm", _args(shape, dtype=dt), kwargs, label=label, wrt=(0,) if dt == "float64" else ())
      for shape, kwargs, label, dt in [
          ((3, 4), {}, "flat", "float64"), ((2, 3, 4), {"keepdims": True}, "flat-keepdims", "float64"),
          ((4,), {"ord": 1}, "vec-1", "float64"), ((4,), {"ord": np.inf}, "vec-inf", "float64"),
          ((4,), {"ord": -np.inf}, "vec-neg-inf", "float64"), ((4,), {"ord": 3}, "vec-3", "float64"),
          ((4,), {"ord": 0}, "vec-0", "float64"), ((4,), {"ord": 2}, "vec-2", "float64"),
          ((2, 3, 4), {"axis": -1}, "axis", "float64"), ((2, 3, 4), {"ord": 1, "axis": 1, "keepdims": True},
                                                          "axis-1-keepdims", "float64"),
          ((3, 4), {"ord": "fro"}, "fro", "float64"), ((3, 4), {"ord": "nuc"}, "nuc", "float64"),
          ((3, 4), {"ord": 2}, "mat-2", "float64"), ((3, 4), {"ord": -2}, "mat-neg2", "float64"),
          ((3, 4), {"ord": 1}, "mat-1", "float64"), ((3, 4), {"ord": -1}, "mat-neg1", "float64"),
          ((3, 4), {"ord": np.inf}, "mat-inf", "float64"), ((3, 4), {"ord": -np.inf}, "mat-neg-inf", "float64"),
          ((2, 3, 4), {"ord": "fro", "axis": (2, 0), "keepdims": True}, "axes-keepdims", "float64"),
          ((2, 3, 4), {"ord": 2, "axis": (-1, -2)}, "batched-2", "float64"),
          ((0, 3), {}, "empty", "float64"), ((1, 1), {"ord": 2}, "size1", "float64"),
          ((3, 4), {}, "float32", "float32"), ((3, 4), {"ord": "nuc"}, "nuc-float32", "float32")]],
    # complex values: |x| (real norms of the moduli), in the parts' real dtype
    *[NumpyCase("linalg.norm", _args(shape, dtype=dt), kwargs, label=label) for shape, kwargs, label, dt in [
        ((3, 4), {}, "complex-flat", "complex128"), ((4,), {"ord": 1}, "complex-vec-1", "complex128"),
        ((4,), {"ord": 3}, "complex-vec-3", "complex128"), ((2, 3, 4), {"axis": 1}, "complex-axis", "complex128"),
        ((3, 4), {"ord": "fro"}, "complex-fro", "complex128"), ((3, 4), {"ord": np.inf}, "complex-mat-inf", "complex128"),
        ((3, 4), {"ord": -np.inf, "axis": 0}, "complex-vec-neg-inf", "complex64")]],
    *[NumpyCase("linalg.solve", _made(_dominant(*a), lambda rng, dt, b=b: uniform(rng, b, dt), dtype=dt),
                label=label, wrt=(0, 1) if dt == "float64" else (), rtol=1e-10, atol=1e-12)
      for a, b, label, dt in [((3, 3), (3,), "vector", "float64"), ((3, 3), (3, 2), "matrix", "float64"),
                              ((2, 3, 3), (3, 1), "bcast", "float64"), ((2, 3, 3), (4, 1, 3, 2), "bcast-both", "float64"),
                              ((1, 1), (1,), "size1", "float64"), ((3, 3), (3, 0), "empty", "float64"),
                              ((3, 3), (3,), "float32", "float32")]],
    *[NumpyCase("linalg.slogdet", _made(maker, dtype=dt), label=label, wrt=(0,) if dt == "float64" else ())
      for maker, label, dt in [(_dominant(3, 3), "2d", "float64"), (_dominant(2, 2, 2), "batched", "float64"),
                               (lambda rng, dt: -np.eye(3, dtype=dt) * 2, "negative", "float64"),
                               (_dominant(1, 1), "size1", "float64"), (_dominant(3, 3), "float32", "float32")]],
    *[NumpyCase("linalg.cholesky", _made(_spd(*shape), dtype=dt), kwargs, label=label,
                wrt=(0,) if dt == "float64" else ())
      for shape, kwargs, label, dt in [((3, 3), {}, "lower", "float64"), ((3, 3), {"upper": True}, "upper", "float64"),
                                       ((2, 3, 3), {}, "batched", "float64"), ((1, 1), {}, "size1", "float64"),
                                       ((3, 3), {}, "float32", "float32")]],
    # eigenvectors and singular vectors are LAPACK's (numpy's and JAX's signs agree on CPU)
    *[NumpyCase("linalg.eigh", _made(_spread_symmetric(*shape), dtype=dt), kwargs, label=label,
                wrt=(0,) if dt == "float64" else (), rtol=1e-10, atol=1e-12)
      for shape, kwargs, label, dt in [((3, 3), {}, "lower", "float64"), ((3, 3), {"UPLO": "U"}, "upper", "float64"),
                                       ((2, 3, 3), {}, "batched", "float64"), ((1, 1), {}, "size1", "float64"),
                                       ((3, 3), {}, "float32", "float32")]],
    *[NumpyCase("linalg.svd", _made(_spread_singular(*shape), dtype=dt), kwargs, label=label,
                wrt=(0,) if dt == "float64" and kwargs.get("full_matrices", True) in (False, shape[-1] == shape[-2])
                else (), rtol=1e-10, atol=1e-12)
      for shape, kwargs, label, dt in [
          ((4, 3), {"full_matrices": False}, "tall", "float64"), ((2, 4), {"full_matrices": False}, "wide", "float64"),
          ((3, 3), {}, "square", "float64"), ((4, 2), {}, "tall-full", "float64"),
          ((2, 3, 2), {"compute_uv": False}, "values", "float64"), ((1, 1), {}, "size1", "float64"),
          ((3, 2), {"full_matrices": False}, "float32", "float32")]],
    *[NumpyCase("linalg.qr", _made(_spread_singular(*shape), dtype=dt), {} if mode is None else {"mode": mode},
                label=label, wrt=(0,) if dt == "float64" and 0 not in shape else (), rtol=1e-10, atol=1e-12)
      for shape, mode, label, dt in [((4, 3), None, "tall", "float64"), ((2, 3, 3), None, "batched", "float64"),
                                     ((2, 3), None, "wide", "float64"), ((1, 1), None, "size1", "float64"),
                                     ((4, 3), None, "float32", "float32"), ((4, 2), "complete", "complete-tall", "float64"),
                                     ((2, 4), "complete", "complete-wide", "float64"),
                                     ((2, 4, 3), "complete", "complete-batched", "float64"),
                                     ((4, 3), "r", "r-tall", "float64"), ((2, 4), "r", "r-wide", "float64"),
                                     ((0, 3), "complete", "complete-empty", "float64"),
                                     ((4, 2), "complete", "complete-float32", "float32")]],
    *[NumpyCase("linalg.lstsq", _made(_spread_singular(*a), lambda rng, dt, b=b: uniform(rng, b, dt), dtype=dt),
                {"rcond": None}, label=label, wrt=(0, 1) if dt == "float64" else (), rtol=1e-10, atol=1e-12)
      for a, b, label, dt in [((5, 3), (5, 2), "tall", "float64"), ((5, 3), (5,), "vector", "float64"),
                              ((2, 4), (2, 1), "wide", "float64"), ((3, 3), (3,), "square", "float64"),
                              ((5, 3), (5, 2), "float32", "float32")]],
    *[NumpyCase("linalg.matrix_rank", make, kwargs, label=label) for make, kwargs, label in [
        (_made(_spread_singular(3, 3)), {}, "full"),
        (lambda rng: (uniform(rng, (2, 4, 1)) * uniform(rng, (2, 1, 3)),), {}, "rank1-batched"),
        (lambda rng: (uniform(rng, (4, 3)),), {"tol": 0.5}, "tol"), (lambda rng: (uniform(rng, (4, 3)),), {"rtol": 0.3}, "rtol"),
        (lambda rng: (uniform(rng, (4,)),), {}, "vector"), (lambda rng: (np.zeros(3),), {}, "zero-vector"),
        (lambda rng: (uniform(rng, (3, 3), "float32"),), {}, "float32")]],
]
def _square_stack(rng, shape):
    """Matrices near the identity: well conditioned, so powers and inverses stay tame."""
    return np.eye(shape[-1]) + 0.3 * uniform(rng, shape)


CASES += [
    *[NumpyCase("kron", make, label=lb, wrt=(0, 1) if diff else ()) for make, lb, diff in [
        (lambda rng: (uniform(rng, (2, 3)), uniform(rng, (3, 2))), "2d", True),
        (lambda rng: (uniform(rng, (3,)), uniform(rng, (2,))), "1d", True),
        (lambda rng: (uniform(rng, (2, 2, 3)), uniform(rng, (2, 2))), "mixed-rank", True),
        (lambda rng: (uniform(rng, (2,), "int32"), uniform(rng, (2, 2), "int32")), "int32", False)]],
    *[NumpyCase("vecdot", make, kw, label=lb, wrt=(0, 1) if diff else ()) for make, kw, lb, diff in [
        (lambda rng: (uniform(rng, (3, 4)), uniform(rng, (4,))), {}, "broadcast", True),
        (lambda rng: (uniform(rng, (3, 2)), uniform(rng, (3, 2))), {"axis": 0}, "axis0", True),
        (lambda rng: (uniform(rng, (2, 3), "complex128"), uniform(rng, (2, 3), "complex128")), {}, "complex", False)]],
    *[NumpyCase(f"linalg.{name}", lambda rng: (uniform(rng, (3, 4)), uniform(rng, (4,))), label="broadcast", wrt=(0, 1))
      for name in ("vecdot",)],
    NumpyCase("linalg.eigvalsh", lambda rng: ((lambda m: m + m.T)(uniform(rng, (3, 3))),), label="L", wrt=(0,)),
    NumpyCase("linalg.eigvalsh", lambda rng: (uniform(rng, (2, 3, 3)),), {"UPLO": "U"}, label="U-batched"),
    *[NumpyCase("linalg.matrix_power", lambda rng, n=n: (_square_stack(rng, (2, 3, 3)), n), label=f"n{n}", wrt=(0,),
                rtol=1e-10, atol=1e-12) for n in (-2, 0, 1, 2, 3, 5, 6)],
    *[NumpyCase("linalg.multi_dot", lambda rng, shapes=shapes: ([uniform(rng, s) for s in shapes],), label=lb)
      for shapes, lb in [([(2, 5), (5, 3), (3, 4)], "three"), ([(6,), (6, 2), (2, 7), (7, 3)], "vector-first"),
                         ([(4, 3), (3, 5), (5, 2), (2, 6), (6,)], "vector-last"), ([(3,), (3, 4), (4,)], "vectors"),
                         ([(3, 4), (4,)], "two")]],
    NumpyCase("linalg.matrix_transpose", lambda rng: (uniform(rng, (2, 3, 4)),), label="3d", wrt=(0,)),
    NumpyCase("linalg.cross", lambda rng: (uniform(rng, (4, 3)), uniform(rng, (4, 3))), label="3d", wrt=(0, 1)),
    NumpyCase("linalg.outer", lambda rng: (uniform(rng, (3,)), uniform(rng, (2,))), label="1d", wrt=(0, 1)),
    NumpyCase("linalg.trace", lambda rng: (uniform(rng, (2, 3, 4)),), {"offset": 1}, label="offset", wrt=(0,)),
    NumpyCase("linalg.diagonal", lambda rng: (uniform(rng, (2, 3, 4)),), {"offset": -1}, label="offset", wrt=(0,)),
]
CASES += [
    *[NumpyCase("linalg.pinv", _made(_spread_singular(*shape)), kw, label=lb, wrt=(0,) if diff else (), rtol=1e-10,
                atol=1e-12)
      for shape, kw, lb, diff in [((4, 3), {}, "tall", True), ((2, 3, 5), {}, "wide-batched", True),
                                  ((3, 3), {"rcond": 0.3}, "rcond", False), ((0, 3), {}, "empty", False)]],
    NumpyCase("linalg.pinv", lambda rng: (np.outer([1.0, 2.0, 3.0], [1.0, 0.0, 1.0]),), label="rank1"),
    NumpyCase("linalg.svdvals", _made(_spread_singular(2, 4, 3)), label="batched", wrt=(0,), rtol=1e-10, atol=1e-12),
    *[NumpyCase("linalg.cond", _made(_spread_singular(*shape)), {} if p == "none" else {"p": p}, label=f"{p}",
                wrt=(0,) if p in ("none", "fro") else (), rtol=1e-10, atol=1e-12)
      for shape, p in [((4, 3), "none"), ((2, 3, 3), -2), ((3, 3), "fro"), ((3, 3), 1), ((3, 3), np.inf)]],
]



def _invertible_tensor(shape, dtype="float64"):
    """An array of `shape` (of n^2 elements) whose (n, n) matrix is the identity plus small noise."""
    def make(rng):
        n = math.isqrt(int(np.prod(shape)))
        return ((np.eye(n) + 0.3 * uniform(rng, (n, n))).reshape(shape).astype(dtype),)
    return make


CASES += [
    # numpy 2's vector_norm / matrix_norm
    *[NumpyCase("linalg.vector_norm", _args(shape, dtype=dt), kw, label=label, wrt=(0,) if diff else ())
      for shape, kw, label, dt, diff in [
          ((3, 4), {}, "all", "float64", True), ((2, 3, 4), {"axis": -1}, "negative-axis", "float64", True),
          ((2, 3, 4), {"axis": (0, 2), "keepdims": True}, "axes-keepdims", "float64", True),
          ((2, 3, 4), {"axis": (2, -3)}, "axes-unordered", "float64", True),
          ((3, 4), {"keepdims": True, "ord": 1}, "all-keepdims-1", "float64", False),
          ((3, 4), {"axis": 0, "ord": np.inf}, "inf", "float64", False),
          ((3, 4), {"axis": 1, "ord": -np.inf}, "neg-inf", "float64", False),
          ((3, 4), {"axis": 1, "ord": 0}, "zero", "float64", False),
          ((3, 4), {"axis": 0, "ord": 3}, "p3", "float64", True),
          ((3, 4), {"axis": 0, "ord": -1}, "p-neg1", "float64", False),
          ((3, 4), {"axis": 1}, "int32", "int32", False), ((2, 5), {}, "bool", "bool", False),
          ((3, 4), {"ord": np.inf}, "int64-inf", "int64", False),
          ((3, 4), {"axis": 1}, "float32", "float32", False), ((0,), {}, "empty", "float64", False),
          ((0, 3), {"axis": 0}, "empty-axis", "float64", False), ((), {}, "rank0", "float64", False),
          ((1, 1), {"axis": (0, 1)}, "size1", "float64", True)]],
    *[NumpyCase("linalg.matrix_norm", _args(shape, dtype=dt), kw, label=label, wrt=(0,) if diff else (),
                rtol=1e-10, atol=1e-12)
      for shape, kw, label, dt, diff in [
          ((3, 4), {}, "fro", "float64", True),
          ((2, 3, 4), {"keepdims": True}, "fro-batched-keepdims", "float64", True),
          ((2, 3, 4), {"ord": 2}, "2-batched", "float64", True), ((3, 4), {"ord": "nuc"}, "nuc", "float64", True),
          ((3, 4), {"ord": -2}, "neg2", "float64", False), ((2, 3, 4), {"ord": 1, "keepdims": True}, "1-keepdims",
                                                              "float64", False),
          ((3, 4), {"ord": -1}, "neg1", "float64", False), ((3, 4), {"ord": np.inf}, "inf", "float64", False),
          ((3, 4), {"ord": -np.inf}, "neg-inf", "float64", False), ((3, 4), {}, "int32", "int32", False),
          ((3, 4), {"ord": np.inf}, "int64-inf", "int64", False), ((3, 4), {"ord": 2}, "float32", "float32", False),
          ((0, 3), {}, "empty", "float64", False), ((1, 1), {"ord": 2}, "size1", "float64", False)]],
    # numpy 2's array-API spellings of matmul and tensordot
    *[NumpyCase("linalg.matmul", _args(a, b, dtype=dt), label=label, wrt=(0, 1) if dt == "float64" else ())
      for a, b, label, dt in [((3, 4), (4, 2), "2d", "float64"), ((4,), (2, 4, 3), "1d-nd", "float64"),
                              ((5, 1, 3, 4), (2, 4, 6), "bcast", "float64"), ((0, 3), (3, 2), "empty", "float64"),
                              ((3, 4), (4, 2), "int32", "int32")]],
    *[NumpyCase("linalg.tensordot", _args(a, b, dtype=dt), kw, label=label, wrt=(0, 1) if dt == "float64" else ())
      for a, b, kw, label, dt in [((2, 3, 4), (3, 4, 5), {}, "default", "float64"),
                                  ((3, 4), (4, 5), {"axes": 1}, "int1", "float64"),
                                  ((2, 3, 4), (4, 3, 5), {"axes": ([1, 2], [1, 0])}, "pairs", "float64"),
                                  ((2, 3), (3, 2), {"axes": 1}, "int64", "int64")]],
    # tensorinv / tensorsolve: reshaped square matrices near the identity
    *[NumpyCase("linalg.tensorinv", _invertible_tensor(shape, dt), {"ind": ind} if ind != 2 else {},
                label=label, wrt=(0,) if dt == "float64" else (), rtol=1e-10, atol=1e-12)
      for shape, ind, label, dt in [((4, 6, 8, 3), 2, "ind2", "float64"), ((6, 2, 3), 1, "ind1", "float64"),
                                    ((2, 3, 6), 2, "float32", "float32"), ((1, 1), 1, "size1", "float64")]],
    NumpyCase("linalg.tensorinv", lambda rng: (np.array([[2, 1], [1, 3]]).reshape(2, 1, 2),), {"ind": 2},
              label="int64"),
    *[NumpyCase("linalg.tensorsolve", (lambda shape, b, dt: lambda rng: (
        _invertible_tensor(shape, dt)(rng)[0], uniform(rng, b, dt)))(shape, b, dt), kw, label=label,
        wrt=(0, 1) if dt == "float64" else (), rtol=1e-10, atol=1e-12)
      for shape, b, kw, label, dt in [((2, 3, 6), (2, 3), {}, "2d-rhs", "float64"),
                                      ((6, 2, 3), (6,), {}, "1d-rhs", "float64"),
                                      ((6, 2, 3), (2, 3), {"axes": (0,)}, "axes", "float64"),
                                      ((2, 3, 2, 3), (2, 3), {"axes": (1, 0)}, "axes-two", "float64"),
                                      ((3, 3), (3,), {}, "float32", "float32")]],
    NumpyCase("linalg.tensorsolve", lambda rng: (np.array([[2, 1], [1, 3]]), np.array([1, 2])), label="int64"),
]


# General eigenvalues: always complex (as jax.numpy); their derivatives in tests/frontend/test_eig.py.
CASES += [
    *[NumpyCase(f"linalg.{name}", make, label=lb, reference=lambda a, name=name: (
        _complex_eig(np.asarray(a, float) if np.asarray(a).dtype.kind in "iub" else np.asarray(a))
        if name == "eig" else _complex_eig(np.asarray(a, float) if np.asarray(a).dtype.kind in "iub"
                                           else np.asarray(a))[0]), rtol=1e-10, atol=1e-12)
      for name in ("eig", "eigvals") for make, lb in [
          (lambda rng: (_spread_general(3, 3)(rng, "float64"),), "2d"),
          (lambda rng: (_spread_general(2, 3, 3)(rng, "float64"),), "batched"),
          (lambda rng: (_spread_general(3, 3)(rng, "float32"),), "float32"),
          (lambda rng: (np.array([[2, 1], [0, 3]]),), "int"),
          (lambda rng: (uniform(rng, (5, 5)),), "random")]],
]
