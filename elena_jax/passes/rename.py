"""Renaming: a write of all of a temporary starts a storage of its own.

NumPy code updates its temporaries in place: ``t = a * 2; t += 1``, and NumPy's
own ``mean`` along an axis divides its sum in place, its ``var`` squares the
deviations in place. Each such storage is written more than once, and the
passes that follow a value through its storage's single write (vectorize's
definers: a loop's rows centred by ``r.mean(axis=0)`` or scaled by ``r.std()``)
stop there. Here a write that covers a temporary whole, in C order, defines a
new storage (SSA renaming): the ops after it, and the results, use the new
storage in the old one's place. A write defines every element of its view from
the op's operands alone (an op that keeps some old elements, ``where=``, reads
them as an operand), so the new storage holds all the program reads of it.
The arguments keep their storages: what is written to them goes back to the
caller.
"""

from __future__ import annotations

from ..ir import Access, Op, Program
from ..storage import Storage
from ..view import contiguous
from ._rewrite import copy_program, temporary


def rename_whole_writes(program: Program) -> Program:
    """``program`` with each write of all of a temporary after its definition (in C order) into a
    new storage, and the ops after it and the results reading and writing that one."""
    kept = {s.id for s in program.inputs}
    defined: set[int] = set()
    current: dict[int, Storage] = {}  # storage id -> the storage holding its latest value
    new = copy_program(program)

    def now(x):
        found = current.get(x.storage.id) if isinstance(x, Access) else None
        return x if found is None else Access(found, x.view)

    ops = []
    for op in program.ops:
        ins = tuple(now(x) for x in op.ins)
        outs = []
        for a in op.outs:
            s = a.storage
            # NB: not an op writing two views of one storage: its writes would part
            if s.id in defined and s.id not in kept and a.view == contiguous(s.shape) \
                    and sum(b.storage is s for b in op.outs) == 1:
                current[s.id] = temporary(new, s.shape, s.dtype, f"{s.origin}, written whole again").storage
            defined.add(s.id)
            outs.append(now(a))
        ops.append(op if ins == op.ins and tuple(outs) == op.outs else Op(op.prim, ins, tuple(outs), op.params,
                                                                          op.where))
    if not current:
        return program
    new.ops = ops
    new.outputs = [now(x) for x in program.outputs]
    return new
