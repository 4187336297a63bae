"""Storage: the identity of one underlying buffer (NumPy's base array).

A Storage is metadata only: an id, the number of elements, the dtype, the
shape it was created with and where it came from. Its *value* is not here: the
recorded program says how each write replaces it, and the lowering threads the
successive values through JAX. Invariant: storages are immutable and compared
by id; every View of the program is interpreted relative to exactly one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Storage:
    id: int
    shape: tuple[int, ...]  # the shape of the array that created it
    dtype: np.dtype
    origin: str  # "argument x", "np.zeros at f.py:3", "result of add" ...
    writeable: bool = True

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __repr__(self) -> str:
        return f"S{self.id}"

    def describe(self) -> str:
        flag = "" if self.writeable else ", read-only"
        return f"S{self.id}: {self.dtype}[{self.size}] shape={self.shape} ({self.origin}{flag})"
