"""The recorded program: operations that read and write views of storages.

Every operation reads operands -- an ``Access`` (a View of a Storage) or a
``Const`` (a NumPy value known at trace time) -- computes a value with its
primitive, and writes each result into an ``Access``. A fresh array is an op
writing the whole of a new storage; an in-place write is an op writing a view
of an existing one. So memory effects are explicit in every op and the
dependence analysis (deps.py) needs nothing else.

Invariant: ops are kept in the order the user's program executed them, which
is always a valid order to lower; every storage is defined (written whole) by
its first op before anything reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .storage import Storage
from .view import View, contiguous


@dataclass(frozen=True)
class Access:
    """A View of a Storage, as one op reads or writes it."""

    storage: Storage
    view: View

    @staticmethod
    def whole(storage: Storage) -> Access:
        return Access(storage, contiguous(storage.shape))

    def __str__(self) -> str:
        v = self.view
        return f"S{self.storage.id}[shape={v.shape} strides={v.strides} offset={v.offset}]"


@dataclass(frozen=True, eq=False)
class Const:
    """A value known when tracing (a Python scalar or a NumPy array)."""

    value: Any
    weak: bool = False  # a Python scalar: NumPy 2 promotes it as a "weak" type

    def __str__(self) -> str:
        v = np.asarray(self.value)
        if v.ndim == 0:
            return f"{v.item()!r}:{v.dtype}"
        return f"{v.tolist()}:{v.dtype}" if v.size <= 4 else f"const{v.shape}:{v.dtype}"


Operand = Access | Const


@dataclass(frozen=True, eq=False)
class Op:
    prim: str  # the lowering rule's name
    ins: tuple[Operand, ...]
    outs: tuple[Access, ...]
    params: dict = field(default_factory=dict)  # static, never mutated
    where: str = ""  # the user's source line that recorded it

    def reads(self) -> list[Access]:
        return [a for a in self.ins if isinstance(a, Access)]

    def __str__(self) -> str:
        outs = ", ".join(map(str, self.outs))
        ins = ", ".join(map(str, self.ins))
        params = "".join(f" {k}={_short(v)}" for k, v in self.params.items())
        return f"{outs} <- {self.prim}({ins}){params}"


def _short(value) -> str:
    if isinstance(value, np.ndarray) and value.size > 4:
        return f"array{value.shape}:{value.dtype}"
    return str(value)


@dataclass
class Program:
    storages: list[Storage] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    inputs: list[Storage] = field(default_factory=list)  # one per array argument leaf
    outputs: list[Operand] = field(default_factory=list)  # one per result leaf

    def replace_ops(self, ops: list[Op]) -> Program:
        return Program(self.storages, ops, self.inputs, self.outputs)

    def written(self) -> set[Storage]:
        """Storages written after their definition (the mutated ones)."""
        defined, mutated = set(), set()
        for op in self.ops:
            for out in op.outs:
                (mutated if out.storage in defined else defined).add(out.storage)
        return mutated

    def verify(self) -> None:
        """Check the invariant: each storage is defined whole before use."""
        defined: set[Storage] = set()
        for op in self.ops:
            for a in op.reads():
                if a.storage not in defined:
                    raise AssertionError(f"{op}: reads S{a.storage.id} before it is defined")
            for out in op.outs:
                if out.storage not in defined:
                    if out.view != contiguous(out.storage.shape):
                        raise AssertionError(f"{op}: first write of S{out.storage.id} is partial")
                    defined.add(out.storage)

    def used(self) -> list[Storage]:
        """The storages its ops and outputs refer to, in the order they were made: a pass keeps
        those of the ops it replaces in ``storages``, which its listing leaves out."""
        refs = {a.storage for op in self.ops for a in (*op.reads(), *op.outs)}
        refs |= {o.storage for o in self.outputs if isinstance(o, Access)}
        return [s for s in self.storages if s in refs]

    def __str__(self) -> str:
        lines = ["storages:"]
        lines += [f"  {s.describe()}" for s in self.used()]
        lines.append("ops:")
        for i, op in enumerate(self.ops):
            lines.append(f"  #{i} {op}")
            if op.where:
                lines.append(f"       at {op.where}")
        outs = ", ".join(map(str, self.outputs))
        lines.append(f"outputs: {outs}")
        return "\n".join(lines)
