"""Dead-write elimination: writes that nothing reads disappear.

A write W of op i is dead when, looking forward from i, a later write covers
W completely before any read overlaps W, or nothing reads W at all (the
results and the mutated arguments are read after the last op). An op all of
whose writes are dead is dropped (one with no writes, a check, stays); its reads then no longer count, so walking
backwards removes whole dead chains. Dropping a storage's defining op while
later partial writes survive would break the program's invariant (defined
before use), so such a definition becomes an all-zero fill whose values are
never read; so does a dropped definition whose storage is still read through
an empty view.
"""

from __future__ import annotations

from ..ir import Access, Op, Program
from ..view import contiguous, covers, overlap
from ._rewrite import copy_program, final_reads


def _live(w: Access, later: dict[int, list[tuple[str, Access]]]) -> bool:
    for kind, a in reversed(later.get(w.storage.id, ())):
        if kind == "R" and overlap(a.view, w.view):
            return True
        if kind == "W" and covers(a.view, w.view):
            return False
    return False


def eliminate_dead_writes(program: Program) -> Program:
    # Per storage, its accesses after the current point, latest first (an op's reads come before
    # its writes). NB: one list for all storages made every dead write scan the rest of the
    # program: quadratic, 2.6 of 4.5 s of passes on a 200-step loop.
    later: dict[int, list[tuple[str, Access]]] = {}
    for a in final_reads(program):
        later.setdefault(a.storage.id, []).append(("R", a))
    keep = [False] * len(program.ops)
    for i in range(len(program.ops) - 1, -1, -1):
        op = program.ops[i]
        empty = any(w.view.size == 0 for w in op.outs)  # nothing to overwrite; keep it defined
        # NB: an op without writes is there for its check (rules.value_check): kept
        if op.prim != "arg" and op.outs and not empty and not any(_live(w, later) for w in op.outs):
            continue
        keep[i] = True
        for kind, a in [("W", a) for a in op.outs] + [("R", a) for a in op.reads()]:
            later.setdefault(a.storage.id, []).append((kind, a))
    if all(keep):
        return program
    new = copy_program(program)
    ops, defined = [], set()

    def define(accesses, where, writes: bool = False):
        """An all-zero fill first for storages used before a kept op defines them whole."""
        for a in accesses:
            if a.storage.id not in defined:
                defined.add(a.storage.id)
                if not (writes and a.view == contiguous(a.storage.shape)):
                    ops.append(Op("full", (), (Access.whole(a.storage),), {"value": 0}, where))

    for i, op in enumerate(program.ops):
        if keep[i]:
            define(op.reads(), op.where)  # NB: only empty views of a dropped definition are read
            define(op.outs, op.where, writes=True)
            ops.append(op)
    define(final_reads(program), program.ops[-1].where if program.ops else None)
    new.ops = ops
    return new
