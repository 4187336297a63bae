"""Read forwarding: a read of exactly what was just written uses that value.

When the latest write overlapping a read of view v of S wrote exactly v (or
was an ``assemble`` that placed a value into exactly v), the reader takes the
written value instead of slicing it back out of S. The writing op is split:
it defines a temporary, and a copy writes the temporary into S. XLA then sees
the value flow directly, with no slice of an updated buffer in between.
"""

from __future__ import annotations

from ..ir import Access, Op, Program
from ..view import contiguous, distinct, overlap, same_elements
from ._rewrite import copy_program, reshaped, temporary

_PASS = object()  # the writer leaves the read region as it was: look further back


def _match(w: Op, a: Access, x: Access):
    """What writer ``w``'s output ``a`` means for a read ``x`` that it overlaps."""
    if w.prim == "assemble":
        hits = [k for k, v in enumerate(w.params["views"]) if overlap(v, x.view)]
        if not hits:  # NB: an assemble passes the rest of its storage through unchanged
            return _PASS
        if len(hits) == 1 and same_elements(w.params["views"][hits[0]], x.view):
            return ("in", hits[0])
        return None
    # NB: nor a view that overlaps itself: its elements at one place read back the last one written
    if w.prim == "arg" or a.view == contiguous(a.storage.shape) or not same_elements(a.view, x.view) \
            or not distinct(a.view):
        return None
    return "out"


def _source(ops: list[Op], writers: dict[int, list[int]], x: Access, before: int):
    """(writer index, out index) or (assemble index, ("in", k)) whose value x reads exactly,
    among the writes before op ``before``; through whole copies (``c = b.copy()``) to b's."""
    for i in reversed([i for i in writers.get(x.storage.id, []) if i < before]):
        w = ops[i]
        for k, a in enumerate(w.outs):
            if a.storage is not x.storage or not overlap(a.view, x.view):
                continue
            if _whole_copy(w):
                return _source(ops, writers, Access(w.ins[0].storage, x.view), i)
            m = _match(w, a, x)
            if m is _PASS:
                break
            return None if m is None else (i, m if m != "out" else k)
    return None


def _whole_copy(w: Op) -> bool:
    """``c = b.copy()``: c's elements are b's, at the same flat positions."""
    if w.prim != "copy" or len(w.outs) != 1 or not isinstance(w.ins[0], Access):
        return False
    (a,), (src,) = w.outs, w.ins
    whole = contiguous(a.storage.shape)
    return a.view == whole and src.view == whole and src.storage.dtype == a.storage.dtype


def _needed(ops: list[Op], sources: dict) -> dict:
    """``sources`` less the writes that other reads need in the storage anyway.

    When a later read overlaps a write without reading exactly it (a stencil's ``u[:-2]`` after
    ``u[1:-1] = ...``), the written storage is built all the same; forwarding the exact reads
    too gives XLA two producers of the same values and it computes both (wave_1d at 1e6: 7.2 ms
    forwarded, 5.2 ms not). Writes placed by an assemble keep their forwarding (lanes)."""
    blocked = set()
    for i, k in set(sources.values()):
        if isinstance(k, tuple):
            continue
        w = ops[i].outs[k]
        for j in range(i + 1, len(ops)):
            if any(isinstance(x, Access) and x.storage is w.storage and overlap(x.view, w.view)
                   and sources.get((j, n)) != (i, k) for n, x in enumerate(ops[j].ins)):
                blocked.add((i, k))
                break
            if any(a.storage is w.storage and overlap(a.view, w.view) for a in ops[j].outs):
                break
    return {r: src for r, src in sources.items() if src not in blocked}


def forward_reads(program: Program) -> Program:
    ops = program.ops
    # Phase 1: which operand reads exactly which write.
    writers: dict[int, list[int]] = {}
    sources: dict[tuple[int, int], tuple] = {}
    for j, op in enumerate(ops):
        for n, x in enumerate(op.ins):
            if isinstance(x, Access):
                src = _source(ops, writers, x, j)
                if src is not None:
                    sources[(j, n)] = src
        for a in op.outs:
            writers.setdefault(a.storage.id, []).append(j)
    sources = _needed(ops, sources)
    if not sources:
        return program
    # Phase 2: split the forwarded writers, substitute the readers' operands.
    new = copy_program(program)
    temps = {}
    for i, k in set(sources.values()):
        if not isinstance(k, tuple):
            target = ops[i].outs[k]
            temps[(i, k)] = temporary(new, target.view.shape, target.storage.dtype,
                                      f"forwarded write into S{target.storage.id}")
    out: list[Op] = []
    for j, op in enumerate(ops):
        ins = list(op.ins)
        for n in range(len(ins)):
            src = sources.get((j, n))
            if src is not None:
                i, k = src
                ins[n] = reshaped(ops[i].ins[k[1]] if isinstance(k, tuple) else temps[(i, k)], ins[n].view.shape)
        outs = [temps.get((j, k), a) for k, a in enumerate(op.outs)]
        out.append(Op(op.prim, tuple(ins), tuple(outs), op.params, op.where))
        out += [Op("copy", (temps[(j, k)],), (a,), {}, op.where)
                for k, a in enumerate(op.outs) if (j, k) in temps]
    new.ops = out
    return new
