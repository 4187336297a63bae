"""Assemble merging: consecutive coalesced updates of one storage become one.

``boxes`` filled by four lane writes and then clipped in place through two
of its lanes is, after coalescing and forwarding, an ``assemble`` A that
fills the storage and an ``assemble`` B that re-places two lanes over A's
result. When nothing reads the storage between A and B, B's pieces replace
A's pieces for the same views and one assemble writes the storage; A is then
dead. The pass also decides, once the program is final, which assembles are
materialized (see the ``assemble`` lowering rule): those that later ops read
only in part.
"""

from __future__ import annotations

from ..ir import Op, Program
from ..view import same_elements
from ._rewrite import copy_program, reshaped


def _merged(a: Op, b: Op) -> Op | None:
    """B placed over A's result as one assemble, or None when B's views are not A's."""
    theirs = a.params["views"]
    pieces = list(a.ins[: len(theirs)])
    for w, u in zip(b.params["views"], b.ins):
        k = next((k for k, v in enumerate(theirs) if same_elements(v, w)), None)
        if k is None:
            return None
        pieces[k] = reshaped(u, theirs[k].shape)
    rest = a.ins[len(theirs) :]  # A's own pass-through, when A does not cover the storage
    return Op("assemble", tuple(pieces) + rest, b.outs, {**a.params, "views": theirs}, b.where)


def merge_assembles(program: Program) -> Program:
    ops = list(program.ops)
    last: dict[int, int] = {}  # storage id -> index of the assemble that wrote it, while unread
    changed = False
    for j, op in enumerate(ops):
        if op.prim == "assemble" and not op.params["covering"]:
            target = op.outs[0].storage
            i = last.get(target.id)
            merged = None if i is None else _merged(ops[i], op)
            if merged is not None:
                ops[j], changed = merged, True
        passthrough = op.ins[-1] if op.prim == "assemble" and not op.params["covering"] else None
        for a in op.reads():
            if a is not passthrough:
                last.pop(a.storage.id, None)
        for a in op.outs:
            last.pop(a.storage.id, None)
        if op.prim == "assemble":
            last[op.outs[0].storage.id] = j
    ops = [_mark_materialized(ops, i) if op.prim == "assemble" else op for i, op in enumerate(ops)]
    if not changed and ops == program.ops:
        return program
    new = copy_program(program)
    new.ops = ops
    return new


def _mark_materialized(ops: list[Op], i: int) -> Op:
    """Materialize an assembled storage that later ops read only in part."""
    op = ops[i]
    target = op.outs[0]
    partial = False
    for later in ops[i + 1 :]:
        partial = partial or any(a.storage is target.storage and a.view != target.view for a in later.reads())
        if any(a.storage is target.storage for a in later.outs):
            break
    if op.params.get("materialize", False) == partial:
        return op
    return Op(op.prim, op.ins, op.outs, {**op.params, "materialize": partial}, op.where)

