"""Lane splitting: an elementwise op on interleaved columns becomes one op per column.

``np.clip(boxes[:, 0::2], 0, W, out=boxes[:, 0::2])`` on an (N, 4) array is
an elementwise op over columns 0 and 2. Split into one op per column ("lane"),
its reads become single columns -- which read forwarding can take straight
from the values that wrote them -- and its writes become single columns that
write coalescing assembles with the others. After both, no column is read back
out of an assembled buffer.

An op that defines a fresh array (``wh = b[:, 2:] - b[:, :2]``) is split
only when it reads lanes of an array that was itself written lane by lane (its
lanes then come straight from those values): its storage is first defined by
a fill that coalescing and dead-write elimination remove again (an array
last written by an op not split is no longer written lane by lane). So is an op
that rewrites a whole array in place (``a -= np.roll(x, -1, axis=1) * y`` over
the 8 vertices of each polygon): split when nothing was written by lanes, its
lanes were assembled back whole and vectorized, 2.5x the memory traffic of
the op unsplit. Whole copies (``c = b.copy()``) of lane-written arrays count
as lane-written.

Only ufunc ops without a ``where=`` mask are split, when the written
view has at least two axes, a last axis of 2 to LIMIT (8) elements and rows at most
2 LIMIT elements apart (lanes of short rows, not columns of a grid), spans all of
its storage's rows (not a grid's cells shifted along its rows), every array
operand has that shape or broadcasts along the last axis (size 1 there), and
no operand overlaps the written view other than lane for lane and no written lane
overlaps another (so one lane's write never changes what a later lane reads).

A wide op (``np.clip(b[:, 0::2], ...)`` over 84 columns, more than LIMIT) on an
array last written through views of a larger stride (``b[:, k::4]``) splits
into the lane groups of that stride instead (here 2 ops over ``[:, 0::4]`` and
``[:, 2::4]``), under the same conditions. The module also says which covering
assembles place the interleaved lanes of their storage (`interleaved`) and
whether those lanes are wide (`wide`).
"""

from __future__ import annotations

import math

from ..ir import Access, Op, Program
from ..view import View, contiguous, distinct, index, is_c_contiguous, lane_view, overlap, reshape
from ._rewrite import copy_program

# NB: lanes are short interleaved axes (box coordinates, colour channels, landmark pairs); a
# spatial axis of a small image split into 15 lanes made XLA's compile take 10 s (box blur, 14x15).
LIMIT = 8


def splittable(op: Op) -> bool:
    if not _lanes_apart(op):
        return False
    v = op.outs[0].view
    # NB: and the lanes lie in short rows: the red or black points of a 17 x 17 grid, (7, 7) every
    # other column of every other row, split into 7 lanes per update made XLA compile 10 sweeps for 52 s
    if v.ndim < 2 or not 2 <= v.shape[-1] <= LIMIT or abs(v.strides[-2]) > 2 * LIMIT:
        return False
    # NB: and the view spans all of its storage's rows (a table's columns, not a grid's cells shifted
    # along its rows: a heightmap of (20000, 7) updated as ``d[:-1] -= m; d[1:] += m`` beside
    # ``d[:, :-1] -= m``, split, took 11x the flops of its unoptimized program, 6x its time;
    # acceptance campaign E, session 29)
    if math.prod(v.shape[:-1]) * abs(v.strides[-2]) != op.outs[0].storage.size:
        return False
    return all(len(s) == v.ndim and s[:-1] == v.shape[:-1] and s[-1] in (1, v.shape[-1])
               for s in (a.view.shape for a in op.reads()))


def _lanes_apart(op: Op) -> bool:
    """Whether ``op`` is an elementwise ufunc (no ``where=``, one output) whose split into lanes
    keeps its meaning: one lane's write never changes what a later lane reads (no operand
    overlaps the written view other than lane for lane), and every constant is a scalar."""
    if op.prim != "ufunc" or op.params.get("masked") or len(op.outs) != 1:
        return False
    v = op.outs[0].view
    if any(a.storage is op.outs[0].storage and a.view != v and overlap(a.view, v) for a in op.reads()):
        return False
    # NB: nor do the written lanes overlap one another (``as_strided(x, (3, 3), (8, 8)) += 1``: the
    # second lane read what the first wrote, adding twice)
    if not distinct(v):
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
    period: dict[int, int | None] = {}  # storage id -> last-axis stride of its latest write, if strided
    ops: list[Op] = []
    changed = False
    for op in program.ops:
        fresh = [a for a in op.outs if a.storage.id not in defined]
        defined.update(a.storage.id for a in op.outs)
        if op.prim == "copy" and any(a.storage.id in by_lanes for a in op.reads()):
            by_lanes.update(a.storage.id for a in op.outs)
        groups = None if fresh else _wide_groups(op, period)
        # NB: a definition is split only after a fill defines it whole (the program's invariant)
        if groups is None and (not splittable(op) or _whole(op, fresh)
                               and not any(a.storage.id in by_lanes for a in op.reads())):
            ops.append(op)
            for a in op.outs:
                period[a.storage.id] = a.view.strides[-1] if _strided(a) else None
                if op.prim != "copy":  # NB: written since by an op not split: no longer by lanes
                    by_lanes.discard(a.storage.id)
            continue
        changed = True
        out = op.outs[0]
        if groups is not None:  # wide: one op per lane group, each over every g-th element
            ops.extend(Op(op.prim, tuple(_group(x, out, groups, j) for x in op.ins), (_group(out, out, groups, j),),
                          op.params, op.where) for j in range(groups))
            continue
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


def _whole(op: Op, fresh: list[Access]) -> bool:
    """Whether the one-output ``op`` defines its storage or rewrites all of it."""
    return bool(fresh) or op.outs[0].view == contiguous(op.outs[0].storage.shape)


def _strided(a: Access) -> bool:
    return a.view.ndim >= 1 and 1 < a.view.strides[-1] <= LIMIT


def _full(x, out: Access) -> bool:
    return isinstance(x, Access) and x.view.shape == out.view.shape


def _group(x, out: Access, groups: int, j: int):
    """Lane group j of an operand of an op over ``out`` split into ``groups`` (see _wide_groups)."""
    if not _full(x, out):
        return x
    v = x.view
    return lane(Access(x.storage, reshape(v, v.shape[:-1] + (v.shape[-1] // groups, groups))), j)


def _wide_groups(op: Op, period: dict[int, int | None]) -> int | None:
    """For an op over a wide view of a storage last written in lanes of stride P (class-specific
    boxes: ``np.clip(b[:, 0::2], ...)`` over 84 columns written as ``b[:, k::4]``), the number
    g of those lanes the view interleaves; the op then splits into g ops over the lanes, which
    coalescing and merging fold into the lane values. None where it does not apply."""
    if not _lanes_apart(op):
        return None
    out = op.outs[0]
    v, p = out.view, period.get(out.storage.id)
    if p is None or v.ndim < 2 or v.strides[-1] <= 0 or p % v.strides[-1]:
        return None
    g = p // v.strides[-1]
    if not 1 < g < v.shape[-1] or v.shape[-1] % g:
        return None
    if any(len(a.view.shape) != v.ndim or not _full(a, out) and a.view.shape[-1] != 1 for a in op.reads()):
        return None
    return g


def placed_lanes(op: Op, limit: int = LIMIT) -> View | None:
    """For an assemble of the interleaved lanes of a view W (lane axis last, its stride 1, at most
    ``limit`` lanes), W."""
    if op.prim != "assemble":
        return None
    views = op.params["views"]
    if not 2 <= len(views) <= limit or any(not isinstance(x, Access) for x in op.ins):
        return None
    w = lane_view(sorted(views, key=lambda v: v.offset))
    return w if w is not None and w.strides[-1] == 1 else None


def interleaved(op: Op, limit: int = LIMIT) -> View | None:
    """For a covering assemble of the interleaved lanes of its storage (lane axis last, its
    stride 1, the whole storage C-ordered), the lane view of the storage; else None."""
    w = placed_lanes(op, limit)
    if w is None or not op.params["covering"]:
        return None
    return w if w.size == op.outs[0].storage.size and is_c_contiguous(w) else None


def wide(w: View) -> bool:
    """Whether the lanes of lane view ``w`` hold several elements per row: (R, 21, 4) for the
    four coordinates of 21 class boxes per row, against (N, 4) for one box per row."""
    return w.ndim >= 3 and w.shape[-2] > 1
