"""Write coalescing: disjoint writes into one storage become one update.

A *run* is a sequence of single-result ops writing views of one storage S
that are pairwise disjoint or identical, with no read of S in between (or
inside the ops) that overlaps a write of the run other than exactly: such a
read is handed the written value, and a rewrite of the same view replaces it
(``img[..., c] -= m; img[..., c] /= s``). Each op of the run is redirected to a fresh
temporary, and one ``assemble`` op, placed where the last write was, writes
all of them into S: the lowering places every value with a select against a
constant mask, so XLA fuses the run into one pass over S instead of one
dynamic_update_slice per write. When the run covers all of S, ``assemble``
does not read S's old value at all (and dead-write elimination removes its
initialisation): the decode-boxes pattern ``out = np.empty(...);
out[:, 0::4] = x1; ...; out[:, 3::4] = y2``.

Only runs that write at least half of S are coalesced: for a few small
writes, in-place dynamic_update_slices are cheaper than a select over all of
S, while for strided columns one fused select measured up to 8x faster than a
dynamic_update_slice per column (bench: bbox_flip at 1e6 boxes, XLA:CPU).
"""

from __future__ import annotations

import numpy as np

from ..ir import Access, Op, Program
from ..view import View, contiguous, distinct, index, overlap, same_elements, squeezed
from ._rewrite import copy_program, reshaped, temporary
from .lanes import LIMIT


class _Written:
    """The distinct views a run has written, with their spans: a view is compared exactly only
    with those whose span meets its own (a table filled cell by cell has hundreds)."""

    def __init__(self):
        self.views, self.squeezed, self.size = [], set(), 0
        self.lo, self.hi = np.empty(16, np.int64), np.empty(16, np.int64)

    def clashes(self, v: View) -> bool:
        """Whether ``v`` shares an element with a written view without being that view."""
        if not self.views or not v.size:
            return False
        lo, hi = v.span()
        n = len(self.views)
        near = np.flatnonzero((self.lo[:n] < hi) & (lo < self.hi[:n]))
        return any(overlap(v, self.views[k]) and not same_elements(v, self.views[k]) for k in near)

    def add(self, v: View) -> None:
        if squeezed(v) in self.squeezed:
            return
        n = len(self.views)
        if n == len(self.lo):
            self.lo, self.hi = np.resize(self.lo, 2 * n), np.resize(self.hi, 2 * n)
        self.lo[n], self.hi[n] = v.span()
        self.views.append(v)
        self.squeezed.add(squeezed(v))
        self.size += v.size


class _Runs:
    """The runs of one storage, found op after op (see the module docstring): ``runs`` holds
    the indices of each closed run's ops, ``touching`` those of every op that reads or writes
    the storage."""

    def __init__(self, storage):
        self.storage, self.runs, self.touching = storage, [], []
        self.current, self.written = [], _Written()

    def close(self):
        # NB: only runs that write at least half of the storage (see the module docstring)
        if len(self.current) >= 2 and 2 * self.written.size >= self.storage.size:
            self.runs.append(self.current)
        self.current, self.written = [], _Written()

    def see(self, i: int, op: Op, reads: list):
        self.touching.append(i)
        # NB: a read of exactly one earlier write of the run is handed that write's value
        if any(self.written.clashes(r) for r in reads):
            self.close()
        mine = [a for a in op.outs if a.storage is self.storage]
        if not mine:
            return
        v = mine[0].view
        # NB: a write through a view that overlaps itself stays as it is (its elements are not its
        # size: as_strided(x[4:], (3, 4), (16, -8)) "covered" 12 elements and zeroed 3 it misses)
        apart = v == contiguous(self.storage.shape) or not distinct(v)
        # NB: rewriting exactly an earlier write of the run replaces its value
        if len(op.outs) != 1 or apart or self.written.clashes(v):
            self.close()
            if len(op.outs) != 1 or apart:
                return
        self.current.append(i)
        self.written.add(v)


def _runs(ops: list[Op]) -> dict:
    """Every storage's runs, in one pass over the ops (each op seen by the storages it touches
    only: a pass per storage was quadratic, 99 of 121 s compiling a 24 x 24 table filled cell
    by cell)."""
    found = {}
    for i, op in enumerate(ops):
        reads = {}
        for a in op.reads():
            reads.setdefault(a.storage, []).append(a.view)
        for storage in {*reads, *(a.storage for a in op.outs)}:
            if storage not in found:
                found[storage] = _Runs(storage)
            found[storage].see(i, op, reads.get(storage, []))
    for runs in found.values():
        runs.close()
    return found


def coalesce_writes(program: Program) -> Program:
    found = _runs(program.ops)
    if not any(runs.runs for runs in found.values()):
        return program
    new = copy_program(program)
    slots = [[op] for op in program.ops]  # NB: an op, then the assembles placed after it
    for storage in program.storages:
        if storage not in found:
            continue
        touching = found[storage].touching
        for run in found[storage].runs:
            placed = {}  # NB: the run's distinct views (by their elements) -> (view, value written)
            members = set(run)
            for i in touching[touching.index(run[0]):touching.index(run[-1]) + 1]:
                op = _read_run_values(slots[i][0], storage, placed)
                if i in members:
                    view = op.outs[0].view
                    # Always a fresh temporary: forwarding hands it to later readers, so it
                    # must never be a storage that is written afterwards (fuzzer regression).
                    tmp = temporary(new, view.shape, storage.dtype, f"coalesced write into S{storage.id}")
                    op = Op(op.prim, op.ins, (tmp,), op.params, op.where)
                    first = placed.get(squeezed(view), (view,))[0]
                    placed[squeezed(view)] = (first, reshaped(tmp, first.shape))
                slots[i][0] = op
            views, values = zip(*placed.values())
            values, views = _split_lanes(values, views)
            covering = sum(v.size for v in views) == storage.size
            ins = tuple(values) + (() if covering else (Access.whole(storage),))
            slots[run[-1]].append(Op("assemble", ins, (Access.whole(storage),),
                                     dict(views=tuple(views), covering=covering), slots[run[-1]][0].where))
    new.ops = [op for slot in slots for op in slot]
    return new


def _read_run_values(op: Op, storage, placed: dict) -> Op:
    """``op`` reading the run's values (so far) instead of ``storage`` where it reads exactly one."""
    def value(x):
        if isinstance(x, Access) and x.storage is storage and squeezed(x.view) in placed:
            return reshaped(placed[squeezed(x.view)][1], x.view.shape)
        return x

    ins = tuple(value(x) for x in op.ins)
    return op if ins == op.ins else Op(op.prim, ins, op.outs, op.params, op.where)


def _split_lanes(values, views, limit: int = LIMIT):
    """Split writes along a short last axis into one write per lane.

    ``loc[:, :2] *= h`` becomes lanes ``loc[:, 0]`` and ``loc[:, 1]``; a later
    read of exactly a lane (``top = loc[:, 0]``) is then forwarded the lane's
    value instead of reading the assembled storage back.
    """
    out_values, out_views = [], []
    for value, view in zip(values, views):
        n = view.shape[-1] if view.ndim >= 2 else 0  # a 1-d view's only axis is no lane axis
        if 1 < n <= limit:
            for k in range(n):
                out_views.append(index(view, (..., k)))
                out_values.append(Access(value.storage, index(value.view, (..., k))))
        else:
            out_values.append(value)
            out_views.append(view)
    return out_values, out_views
