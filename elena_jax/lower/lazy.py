"""Elementwise values a sum computes in parts, from their recipes.

NumPy's pairwise sum (summation.py) reads each run in parts: slices of 8
elements (32 for rows of 256), or slabs of every leaf's row at once (16 for
rows of 256). XLA:CPU fuses a producer into at most 15 of its uses, so an
elementwise chain summed over such rows (standardize's deviations ``x - mean``
and their squares) was written to memory and read back: a pass over 32 MB
each for 1e6 values; a sum down columns, a loop over blocks of rows, took the
chain as the loop's input, written to memory first too. A `Lazy` is such a
value with its recipe, the ufunc and its operands (arrays, or Lazy values
themselves), so that a part of it (a slice along the last axis,
`__getitem__`; a block of its rows, `rows` and `blocks`; any other part of
its arrays, `evaluate`) is the ufunc of its operands' parts, and a sum reads
only the chain's inputs. Other users take its ``value``, computed as before.
A `conversion` is the cast of an array a sum of another type reads (the mean
of integers, ``dtype=np.float64`` of float32): cast whole, it was a float64
copy of the operand written every call (12 ms for the mean of 2000 x 2000
uint8, NumPy 1.3); NumPy casts a part at a time through its buffer, and so
does a sum of a conversion, however it reads the run (`map`: its operand
transposed, reshaped into NumPy's buffer pieces, sliced).

Invariant: a part of a Lazy is bit for bit that part of its ``value``: the
same operations on the same elements.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

MAX_OPS = 16  # ufuncs in a recipe
# Parts times ufuncs a sum may compute a recipe in, each traced and compiled anew. Unlimited, the
# first call of standardize of 4e6 float64 in rows of 1024 took 0.56 -> 1.5 s, in rows of 4096
# 2.9 -> 11 s in slices of 8 (runs no faster); with this limit 0.56 -> 0.78 s and unchanged, rows
# of 256 0.30 -> 0.54 s (runs 7.6 -> 4.4 ms). Slabs are 16 for rows of 128 x 2^k elements.
MAX_SLICED = 512
# Ufuncs cheaper to compute again for a sum than to read back from memory
UFUNCS = frozenset({"add", "subtract", "multiply", "square", "negative", "positive", "absolute",
                    "maximum", "minimum", "fmax", "fmin"})


@dataclasses.dataclass(frozen=True, eq=False)
class Lazy:
    """``f(*operands)``, an elementwise function of arrays (and Lazy values) that broadcast
    together to ``value``'s shape; ``value`` is that, computed whole."""

    f: Callable
    operands: tuple
    value: object
    ops: int
    conversion: bool = False  # NB: ``f`` casts its one operand, an array of the value's shape
    _slices: dict = dataclasses.field(default_factory=dict)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.value.shape

    @property
    def ndim(self) -> int:
        return len(self.value.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.value.dtype

    def __getitem__(self, key: tuple):
        """``value[..., i]`` or ``value[..., i:j]`` (``key`` is ``(Ellipsis, i)`` or
        ``(Ellipsis, slice(i, j))``), from the operands' elements there."""
        cached = self._slices.get(_hashable(key))
        if cached is None:
            cached = self._slices[_hashable(key)] = self.f(*(_part(o, key) for o in self.operands))
        return cached

    def leaves(self) -> list:
        """The arrays the recipe computes from, in the order `evaluate` takes them."""
        return [v for o in self.operands for v in (o.leaves() if isinstance(o, Lazy) else [o])]

    def evaluate(self, take: Callable):
        """The recipe computed from ``take(a)`` in place of each of its arrays ``a``, in turn."""
        return self.f(*(o.evaluate(take) if isinstance(o, Lazy) else take(o) for o in self.operands))

    def map(self, take: Callable) -> Lazy:
        """The Lazy of ``take`` of its arrays and of its value: ``take`` a slice or reshape of
        arrays of the value's shape (a conversion's), with which the recipe commutes."""
        operands = tuple(o.map(take) if isinstance(o, Lazy) else take(o) for o in self.operands)
        return Lazy(self.f, operands, take(self.value), self.ops, self.conversion)

    def rows(self, start: int, stop: int):
        """``value[start:stop]``, from the operands' rows there (along the first axis)."""
        return self.evaluate(lambda o: o[start:stop] if _varies(o, self.ndim) else o)

    def blocks(self, stop: int, size: int) -> tuple[list, Callable]:
        """The arrays that vary along the first axis, their first ``stop`` rows cut into blocks of
        ``size`` (a new first axis), and a function of one block of each that computes the
        value's rows there: the terms of a loop over the first axis (summation._chain)."""
        leaves = self.leaves()
        varying = [k for k, o in enumerate(leaves) if _varies(o, self.ndim)]
        xs = [leaves[k][:stop].reshape(-1, size, *np.shape(leaves[k])[1:]) for k in varying]

        def rows_of(block: list):
            given, order = dict(zip(varying, block)), iter(range(len(leaves)))
            return self.evaluate(lambda o: given.get(next(order), o))

        return xs, rows_of


def conversion(f: Callable, operand, value) -> Lazy:
    """``value``, ``f(operand)`` a cast of an array of its shape: NumPy's sum casts its operand
    through its buffer a part at a time, and a sum here computes the cast part by part too."""
    return Lazy(f, (operand,), value, 1, conversion=True)


def recipe(f: Callable, operands: tuple, value) -> Lazy | None:
    """``value`` as ``f(*operands)`` (operands that broadcast together to its shape), or None
    where it has no axis to slice or its recipe would be too long (see MAX_OPS)."""
    ops = 1 + sum(o.ops for o in operands if isinstance(o, Lazy))
    return Lazy(f, tuple(operands), value, ops) if value.shape and ops <= MAX_OPS else None


def _part(o, key: tuple):
    """The elements of operand ``o`` that the elements ``key`` of the value use."""
    if isinstance(o, Lazy):
        return o[key]
    if np.ndim(o) == 0:
        return o
    if np.shape(o)[-1] == 1:
        return o[..., 0] if isinstance(key[-1], int) else o
    return o[key]


def _varies(o, ndim: int) -> bool:
    """Whether array operand ``o`` of a value of ``ndim`` axes varies along the value's first."""
    return np.ndim(o) == ndim and np.shape(o)[0] != 1


def _hashable(key: tuple) -> tuple:
    last = key[-1]
    return (last.start, last.stop) if isinstance(last, slice) else last
