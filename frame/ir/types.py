"""Tensor types of the IR: shape, dtype and device (SPEC §3), and symbolic dimensions (`Dim`).

A dimension is an int or a `Dim`: a polynomial with integer coefficients over named symbols
(`n`, `2*n`, `n*m`, `n+1`), the size of an axis that is only known when a compiled function is
called (issue 17 item 2, after Paddle's dynamic shapes, seed 003 §6, where a dimension of -1 is
resolved at run time). Unlike Paddle's anonymous -1, a symbol has a name, so two axes with the
same symbol are known to be equal while tracing (`n` broadcasts with `n` and contracts with `n`),
and the executable checks at every call that the inputs agree on each symbol's value.

Every symbol stands for a size >= 1. A `Dim` has no concrete value while a graph is built:
`int()`, `float()` and `operator.index` of one raise `ShapeError` naming the symbol, so code that
needs a number refuses instead of computing with a wrong one. Comparisons are decided only when
they hold for every value >= 1 of the symbols (`n > 0` is True, `n == 1` is False, `n > 1`
raises).
"""
from __future__ import annotations

import ast
import keyword
import math
from dataclasses import dataclass

import numpy as np

from ..errors import ShapeError

#: dtypes the IR knows, with their short names in the text form.
DTYPES = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32", "bool": "bool", "float16": "f16",
          "complex64": "c64", "complex128": "c128"}
SHORT_TO_DTYPE = {v: k for k, v in DTYPES.items()}
FLOAT_DTYPES = ("float32", "float64", "float16")
COMPLEX_DTYPES = ("complex64", "complex128")


def canonical_dtype(dtype) -> str:
    """The IR name of a numpy dtype (or dtype-like); `ShapeError` for dtypes the IR does not carry."""
    if type(dtype) is str and dtype in DTYPES:  # the common case, without building a numpy dtype
        return dtype
    try:
        name = np.dtype(dtype).name
    except TypeError:  # not a dtype at all ('abc', object()): numpy's message would not say what was given
        raise ShapeError(f"{dtype!r} is not a dtype frame supports (supported: {', '.join(DTYPES)})") from None
    if name not in DTYPES:
        raise ShapeError(f"dtype {name!r} is not supported by frame (supported: {', '.join(DTYPES)})")
    return name


_RESERVED_SYMBOLS = frozenset({"inf", "nan", "True", "False", "None"})


def _check_symbol(name) -> str:
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii() or keyword.iskeyword(name) \
            or name in _RESERVED_SYMBOLS or name.startswith("_"):
        raise ShapeError(f"a symbolic dimension is named by an ASCII Python identifier (not a keyword, not starting "
                         f"with '_', not {', '.join(sorted(_RESERVED_SYMBOLS))}), got {name!r}")
    return name


class Dim:
    """A symbolic dimension: `sum(coefficient * product of symbols)` with int coefficients.

    Build one with `Dim.symbol("n")` (or a string in a shape: `TensorType(("n", 1), "float32")`)
    and the arithmetic operators; constant results are plain ints. Equal polynomials are equal and
    hash alike, so shapes compare structurally. `evaluate(env)` gives the value for sizes
    `env[symbol]`."""

    __slots__ = ("terms", "_hash")

    def __init__(self, terms):
        # terms: {monomial (sorted tuple of symbol names, repeated for powers): coefficient}, no zeros
        object.__setattr__(self, "terms", tuple(sorted(terms.items(), key=lambda kv: (-len(kv[0]), kv[0]))))
        object.__setattr__(self, "_hash", hash(self.terms))

    def __setattr__(self, key, value):
        raise AttributeError("Dim is immutable")

    @staticmethod
    def symbol(name: str) -> "Dim":
        return Dim({(_check_symbol(name),): 1})

    @staticmethod
    def _make(terms: dict):
        terms = {m: c for m, c in terms.items() if c}
        if not terms:
            return 0
        if len(terms) == 1 and () in terms:
            return terms[()]
        return Dim(terms)

    @staticmethod
    def _terms(x) -> dict:
        if isinstance(x, Dim):
            return dict(x.terms)
        if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            return {(): int(x)} if x else {}
        raise TypeError(f"cannot combine a symbolic dimension with {type(x).__name__} {x!r}")

    @property
    def symbols(self) -> tuple[str, ...]:
        return tuple(sorted({s for m, _ in self.terms for s in m}))

    # -- arithmetic -------------------------------------------------------------------------------
    def __add__(self, other):
        try:
            b = Dim._terms(other)
        except TypeError:
            return NotImplemented
        a = dict(self.terms)
        for m, c in b.items():
            a[m] = a.get(m, 0) + c
        return Dim._make(a)

    __radd__ = __add__

    def __neg__(self):
        return Dim._make({m: -c for m, c in self.terms})

    def __sub__(self, other):
        try:
            return self + (-other if isinstance(other, Dim) else -int(Dim._check_int(other)))
        except TypeError:
            return NotImplemented

    def __rsub__(self, other):
        return (-self) + other

    def __mul__(self, other):
        try:
            b = Dim._terms(other)
        except TypeError:
            return NotImplemented
        out: dict = {}
        for ma, ca in self.terms:
            for mb, cb in b.items():
                m = tuple(sorted(ma + mb))
                out[m] = out.get(m, 0) + ca * cb
        return Dim._make(out)

    __rmul__ = __mul__

    @staticmethod
    def _check_int(x):
        if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            return int(x)
        raise TypeError

    def exact_div(self, other):
        """`self / other` when it is a polynomial (an int divisor dividing every coefficient, or a
        monomial divisor dividing every term), else None."""
        if isinstance(other, (int, np.integer)):
            other = int(other)
            if other == 0 or any(c % other for _, c in self.terms):
                return None
            return Dim._make({m: c // other for m, c in self.terms})
        if isinstance(other, Dim):
            if len(other.terms) != 1:
                return 1 if other == self else None
            (mo, co), = other.terms
            out = {}
            for m, c in self.terms:
                rest = list(m)
                for s in mo:
                    if s not in rest:
                        return None
                    rest.remove(s)
                if c % co:
                    return None
                out[tuple(rest)] = c // co
            return Dim._make(out)
        return None

    def __floordiv__(self, other):
        q = self.exact_div(other)
        if q is None:
            raise ShapeError(f"symbolic dimension {self} is not known to be divisible by {other}")
        return q

    def __rfloordiv__(self, other):
        raise ShapeError(f"{other} // {self}: an int divided by a symbolic dimension has no symbolic value")

    # -- no concrete values -------------------------------------------------------------------------
    def _no_value(self, what: str):
        raise ShapeError(f"{what} of the symbolic dimension {self} (symbol(s) {', '.join(self.symbols)}): its value "
                         "is only known when the compiled function is called, so this needs a concrete size")

    def __int__(self):
        self._no_value("int()")

    def __index__(self):
        self._no_value("an integer (index, size or shape)")

    def __float__(self):
        self._no_value("float()")

    # -- comparisons, decided for every value >= 1 of the symbols ----------------------------------
    def _compare(self, other, holds, fails) -> bool:
        """Decide `self - other` against 0 for every value >= 1 of the symbols: `holds(lo, hi)` /
        `fails(lo, hi)` over the difference's bounds; ShapeError when neither is certain."""
        try:
            d = self - other
        except TypeError:
            raise ShapeError(f"cannot compare the symbolic dimension {self} with {other!r}") from None
        if not isinstance(d, Dim):
            lo = hi = d
        else:
            coeffs = [c for m, c in d.terms if m]
            at_one = sum(c for _, c in d.terms)   # with every symbol 1: the extreme of a monotone polynomial
            lo = at_one if all(c >= 0 for c in coeffs) else -math.inf
            hi = at_one if all(c <= 0 for c in coeffs) else math.inf
        if holds(lo, hi):
            return True
        if fails(lo, hi):
            return False
        raise ShapeError(f"comparing {self} with {other} depends on the value of {', '.join(self.symbols)}; "
                         "symbolic dimensions are compared only when the answer holds for every size >= 1")

    def __eq__(self, other):
        if isinstance(other, Dim):
            return self.terms == other.terms
        if isinstance(other, (int, np.integer)) and not isinstance(other, (bool, np.bool_)):
            return False   # constants are ints, never Dims: a Dim equals no int structurally
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return self._hash

    def __lt__(self, other):
        return self._compare(other, lambda lo, hi: hi < 0, lambda lo, hi: lo >= 0)

    def __le__(self, other):
        return self._compare(other, lambda lo, hi: hi <= 0, lambda lo, hi: lo > 0)

    def __gt__(self, other):
        return self._compare(other, lambda lo, hi: lo > 0, lambda lo, hi: hi <= 0)

    def __ge__(self, other):
        return self._compare(other, lambda lo, hi: lo >= 0, lambda lo, hi: hi < 0)

    def __bool__(self):
        """Whether it is nonzero, decided like the comparisons (`n` is; `n - m` may be 0: ShapeError)."""
        return self._compare(0, lambda lo, hi: lo > 0 or hi < 0, lambda lo, hi: False)

    # -- values and text ----------------------------------------------------------------------------
    def evaluate(self, env) -> int:
        """The value for sizes `env` (symbol -> int); KeyError names a missing symbol."""
        return sum(c * math.prod(env[s] for s in m) for m, c in self.terms)

    def __str__(self):
        out = []
        for m, c in self.terms:
            body = "*".join(m)
            if not m:
                term = str(abs(c))
            elif abs(c) == 1:
                term = body
            else:
                term = f"{abs(c)}*{body}"
            if not out:
                out.append(term if c > 0 else f"-{term}")
            else:
                out.append(("+" if c > 0 else "-") + term)
        return "".join(out)

    __repr__ = __str__

    def __reduce__(self):
        return (Dim, (dict(self.terms),))

    @staticmethod
    def parse(text: str):
        """A dimension from its text: an int, a symbol, or `+ - *` and `//` of those (`2*n+1`)."""
        try:
            tree = ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            raise ShapeError(f"bad dimension {text!r}") from None
        return dim_of_ast(tree, text)


def dim_of_ast(node, text: str = ""):
    """A dimension from a Python expression tree (the parsers read dimensions through `ast`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and node.id not in _RESERVED_SYMBOLS:
        return Dim.symbol(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -dim_of_ast(node.operand, text)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        a, b = dim_of_ast(node.left, text), dim_of_ast(node.right, text)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        return a // b
    raise ShapeError(f"bad dimension {text or ast.dump(node)!r}: ints, symbols and + - * // of them")


def is_symbolic_shape(shape) -> bool:
    """Whether a shape holds a symbolic dimension."""
    return any(type(d) is Dim for d in shape)


def shape_symbols(shape) -> tuple[str, ...]:
    return tuple(sorted({s for d in shape if type(d) is Dim for s in d.symbols}))


def evaluate_shape(shape, env) -> tuple[int, ...]:
    """A shape with its symbols replaced by their sizes `env`."""
    return tuple(d.evaluate(env) if type(d) is Dim else d for d in shape)


def evaluate_attr(value, env):
    """An attribute value (tuples nested) with its symbolic dimensions evaluated."""
    if type(value) is Dim:
        return value.evaluate(env)
    if isinstance(value, tuple):
        return tuple(evaluate_attr(v, env) for v in value)
    return value


def attr_is_symbolic(value) -> bool:
    if type(value) is Dim:
        return True
    return isinstance(value, tuple) and any(attr_is_symbolic(v) for v in value)


SIZE_HINT = 256
"""The size cost models (the plan's byte counts, BLAS thread policies) assume for a symbol: they need a
number, and no decision that affects results is taken from it."""


def size_hint(d) -> int:
    """A concrete stand-in for a dimension in cost estimates only (`SIZE_HINT` per symbol)."""
    return d.evaluate({s: SIZE_HINT for s in d.symbols}) if type(d) is Dim else d


def broadcast_dims(op: str, *shapes) -> tuple:
    """numpy's broadcasting of shapes that may hold symbolic dimensions: equal dims stay, a 1 takes
    the other; a symbol against a different symbol or an int other than 1 is refused (which size
    wins would depend on the call), naming the op and the symbol."""
    if not any(is_symbolic_shape(s) for s in shapes):
        try:
            return tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            raise ShapeError(f"op '{op}': shapes {' and '.join(map(str, shapes))} do not broadcast") from None
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        result = 1
        for d in dims:
            if d == 1 or d == result:
                continue
            if result == 1:
                result = d
                continue
            sym = d if type(d) is Dim else result
            if type(d) is Dim or type(result) is Dim:
                raise ShapeError(f"op '{op}': shapes {' and '.join(_shape_text(s) for s in shapes)} broadcast only "
                                 f"if the symbolic dimension {sym} equals {result if sym is d else d} at every "
                                 "call; frame does not broadcast a symbol against another size")
            raise ShapeError(f"op '{op}': shapes {' and '.join(_shape_text(s) for s in shapes)} do not broadcast")
        out.append(result)
    return tuple(out)


def _shape_text(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def as_dim(d):
    """A dimension from what a shape may hold: an int, a `Dim` or a symbol's name."""
    if type(d) is int:
        return d
    if type(d) is Dim:
        return d
    if isinstance(d, str):
        return Dim.symbol(d) if d.isidentifier() else Dim.parse(d)
    return int(d)


@dataclass(frozen=True, slots=True)
class TensorType:
    """The static type of a value: a shape (a tuple of ints and symbolic `Dim`s; `()` is a scalar), a
    dtype name and a device. A string in the shape names a symbol (`("n", 1)`)."""

    shape: tuple[int, ...]
    dtype: str
    device: str = "cpu"

    def __post_init__(self):
        shape = tuple(d if type(d) is int else as_dim(d) for d in self.shape)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", canonical_dtype(self.dtype))
        if any(type(d) is int and d < 0 for d in shape):
            raise ShapeError(f"TensorType: negative dimension in shape {self.shape}")

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        """The element count: an int, or a `Dim` for a symbolic shape."""
        if self.is_symbolic:
            return math.prod(self.shape)
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def is_symbolic(self) -> bool:
        """Whether an axis has a symbolic size."""
        return any(type(d) is Dim for d in self.shape)

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOAT_DTYPES

    @property
    def is_complex(self) -> bool:
        return self.dtype in COMPLEX_DTYPES

    @property
    def is_inexact(self) -> bool:
        """Float or complex: the dtypes that have derivatives."""
        return self.dtype in FLOAT_DTYPES or self.dtype in COMPLEX_DTYPES

    @property
    def nbytes(self) -> int:
        return self.size * np.dtype(self.dtype).itemsize

    def __str__(self) -> str:
        dev = "" if self.device == "cpu" else f"@{self.device}"
        return f"{DTYPES[self.dtype]}[{','.join(map(str, self.shape))}]{dev}"

    @staticmethod
    def of(array) -> "TensorType":
        """The type of a concrete numpy array or scalar."""
        a = np.asarray(array)
        return TensorType(a.shape, a.dtype.name)
