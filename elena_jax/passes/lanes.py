"""Lane splitting: an elementwise op on interleaved columns becomes one op per column.

``np.clip(boxes[:, 0::2], 0, W, out=boxes[:, 0::2])`` on an (N, 4) array is
an elementwise op over columns 0 and 2. Split into one op per column ("lane"),
its reads become single columns -- which read forwarding can take straight
from the values that wrote them -- and its writes become single columns that
write coalescing assembles with the others. After both, no column is read back
out of an assembled buffer.

An op that defines a fresh array (``wh = b[:, 2:] - b[:, :2]``) is split too
when it reads lanes of an array that was itself written lane by lane (its
lanes then come straight from those values): its storage is first defined by
a fill that coalescing and dead-write elimination remove again. Whole copies
(``c = b.copy()``) of lane-written arrays count as lane-written.

Only ufunc ops without a ``where=`` mask are split, when the written
view has at least two axes and a last axis of 2 to LIMIT (8) elements, every array
operand has that shape or broadcasts along the last axis (size 1 there), and
no operand overlaps the written view other than lane for lane (so one lane's
write never changes what a later lane reads).
"""

from __future__ import annotations

from ..ir import Access, Op, Program
from ..view import index, overlap
from ._rewrite import copy_program

# NB: lanes are short interleaved axes (box coordinates, colour channels, landmark pairs); a
# spatial axis of a small image split into 15 lanes made XLA's compile take 10 s (box blur, 14x15).
LIMIT = 8


def splittable(op: Op) -> bool:
    if op.prim != "ufunc" or op.params.get("masked") or len(op.outs) != 1:
        return False
    v = op.outs[0].view
    if v.ndim < 2 or not 2 <= v.shape[-1] <= LIMIT:
        return False
    for a in op.reads():
        s = a.view.shape
        if len(s) != v.ndim or s[:-1] != v.shape[:-1] or s[-1] not in (1, v.shape[-1]):
            return False
        # One lane's write must not change what a later lane reads.
        if a.storage is op.outs[0].storage and a.view != v and overlap(a.view, v):
            return False
    return all(isinstance(x, Access) or getattr(x.value, "ndim", 0) == 0 for x in op.ins)


def lane(x, j: int):
    if not isinstance(x, Access):
        return x
    if x.view.shape[-1] == 1:
        return Access(x.storage, index(x.view, (..., 0)))
    return Access(x.storage, index(x.view, (..., j)))


def split_lanes(program: Program) -> Program:
    defined: set[int] = set()
    by_lanes: set[int] = set()  # storages written lane by lane so far
    ops: list[Op] = []
    changed = False
    for op in program.ops:
        fresh = [a for a in op.outs if a.storage.id not in defined]
        defined.update(a.storage.id for a in op.outs)
        if op.prim == "copy" and any(a.storage.id in by_lanes for a in op.reads()):
            by_lanes.update(a.storage.id for a in op.outs)
        # NB: a definition is split only after a fill defines it whole (the program's invariant)
        if not splittable(op) or fresh and not any(a.storage.id in by_lanes for a in op.reads()):
            ops.append(op)
            continue
        changed = True
        out = op.outs[0]
        by_lanes.add(out.storage.id)
        if fresh:
            ops.append(Op("full", (), (Access.whole(out.storage),), {"value": 0}, op.where))
        for j in range(out.view.shape[-1]):
            ops.append(Op(op.prim, tuple(lane(x, j) for x in op.ins), (lane(out, j),), op.params, op.where))
    if not changed:
        return program
    new = copy_program(program)
    new.ops = ops
    return new
