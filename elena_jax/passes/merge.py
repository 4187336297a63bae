"""Assemble merging: consecutive coalesced updates of one storage become one.

``boxes`` filled by four lane writes and then clipped in place through two
of its lanes is, after coalescing and forwarding, an ``assemble`` A that
fills the storage and an ``assemble`` B that re-places two lanes over A's
result. When nothing reads the storage between A and B, B's pieces replace
A's pieces for the same views and one assemble writes the storage; A is then
dead. The pass also decides, once the program is final, how each assemble is
lowered (see the ``assemble`` rule): materialized when later ops read it only
in part, and by update slices instead of one select when every piece is an
expensive computation of its own. A select evaluates every piece at every
element, so XLA refuses to fuse expensive pieces into it and writes each one
to memory first (bbox2delta's four log/divide columns: 3x slower at 1e6 rows);
update slices compute each piece only over its own elements, in one fusion.
"""

from __future__ import annotations

from collections import Counter

from ..ir import Access, Op, Program
from ..view import View, dense, overlap, same_elements
from ._rewrite import copy_program, reshaped
from .lanes import interleaved, placed_lanes, wide


def _merged(a: Op, b: Op, size: int) -> Op | None:
    """B placed over A's result as one assemble: B's pieces replace A's for the same views and
    add the views A did not place; None when a view of B overlaps one of A's only in part."""
    views, pieces = list(a.params["views"]), list(a.ins[: len(a.params["views"])])
    for w, u in zip(b.params["views"], b.ins):
        k = next((k for k, v in enumerate(a.params["views"]) if overlap(v, w)), None)
        if k is None:
            views.append(w)
            pieces.append(u)
        elif same_elements(a.params["views"][k], w):
            pieces[k] = reshaped(u, views[k].shape)
        else:
            return None
    covering = sum(v.size for v in views) == size
    rest = () if covering else (b.ins[-1],)  # NB: A's result outside the views: B's pass-through
    return Op("assemble", tuple(pieces) + rest, b.outs,
              {**a.params, "views": tuple(views), "covering": covering}, b.where)


def merge_assembles(program: Program) -> Program:
    ops = list(program.ops)
    last: dict[int, int] = {}  # storage id -> index of the assemble that wrote it, while unread
    for j, op in enumerate(ops):
        if op.prim == "assemble" and not op.params["covering"]:
            target = op.outs[0].storage
            i = last.get(target.id)
            merged = None if i is None else _merged(ops[i], op, target.size)
            if merged is not None:
                ops[j] = merged
        passthrough = op.ins[-1] if op.prim == "assemble" and not op.params["covering"] else None
        for a in op.reads():
            if a is not passthrough:
                last.pop(a.storage.id, None)
        for a in op.outs:
            last.pop(a.storage.id, None)
        if op.prim == "assemble":
            last[op.outs[0].storage.id] = j
    ops = _lowerings(ops)
    if ops == program.ops:  # NB: ops compare by identity; a merged or re-marked op is a new one
        return program
    new = copy_program(program)
    new.ops = ops
    return new


# Elementwise functions XLA will not duplicate into every element of a select.
EXPENSIVE = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "divide", "power",
             "float_power", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
             "arcsinh", "arccosh", "arctanh", "hypot", "floor_divide", "remainder", "fmod", "logaddexp"}


_SELECTS = 16  # the most pieces an assemble places by selects over the whole storage


def _lowerings(ops: list[Op]) -> list[Op]:
    """Every assemble marked with how it is lowered, in one pass over the program."""
    writer: dict[int, Op] = {}  # storage id -> its latest writer so far
    uses: Counter[int] = Counter()  # storage id -> reads so far
    out = []
    for i, op in enumerate(ops):
        op = _marked(ops, i, writer, uses)
        out.append(op)
        uses.update(a.storage.id for a in op.reads())
        writer.update((a.storage.id, op) for a in op.outs)
    return out


def marked(ops: list[Op], i: int) -> Op:
    """The assemble ``ops[i]`` marked with how it is lowered (for a pass that makes one after
    this pass ran: vectorize's lane groups)."""
    writer: dict[int, Op] = {}
    uses: Counter[int] = Counter()
    for op in ops[:i]:
        uses.update(a.storage.id for a in op.reads())
        writer.update((a.storage.id, op) for a in op.outs)
    return _marked(ops, i, writer, uses)


def _marked(ops: list[Op], i: int, writer: dict[int, Op], uses: Counter[int]) -> Op:
    op = ops[i]
    if op.prim != "assemble":
        return op
    lanes = interleaved(op) if op.params["covering"] else placed_lanes(op)
    # NB: a select per piece costs a pass over the storage each: many pieces (a loop's 200 row
    # writes) are update slices, one piece's size each (an EWMA of 200 steps: 16 ms, then 3)
    many = len(op.params["views"]) > _SELECTS
    params = {**op.params, "materialize": _read_in_part(ops, i),
              "slices": many or _all_expensive(op, writer, uses),
              "stack": stack_form(lanes)}
    return op if params == op.params else Op(op.prim, op.ins, op.outs, params, op.where)


def stack_form(lanes: View | None) -> bool | str:
    """How an assemble of the lanes of view ``lanes`` (None: not lanes) stacks them: wide lanes
    everywhere (faster than selects on the CPU too), one value per lane ((N, 4) boxes) off the CPU
    only (see lower.rules.STACKED_OFF_CPU)."""
    if lanes is None:
        return False
    return True if wide(lanes) else "off_cpu"


def _read_in_part(ops: list[Op], i: int) -> bool:
    """Whether ops after ``i`` read its storage only in part before it is written again (a read of
    all of its elements in another order, `img[..., ::-1]`, is a whole read: XLA fuses it once)."""
    target = ops[i].outs[0]
    for later in ops[i + 1 :]:
        if any(a.storage is target.storage and not _same_block(a.view, target.view) for a in later.reads()):
            return True
        if any(a.storage is target.storage for a in later.outs):
            return False
    return False


def _same_block(a: View, b: View) -> bool:
    """Whether two views read the same elements, each once (in any order)."""
    return a == b or a.size == b.size and a.span() == b.span() and dense(a) and dense(b)


def _all_expensive(assemble: Op, writer: dict[int, Op], uses: Counter[int]) -> bool:
    """Whether every piece of ``assemble`` is computed by an expensive ufunc of its own: one
    reached through values read only once before it (shared values XLA computes once anyway)."""

    def expensive(storage_id: int, depth: int = 0) -> bool:
        op = writer.get(storage_id)
        if op is None or depth > 8 or op.prim not in ("ufunc", "copy"):
            return False
        if op.prim == "ufunc" and op.params.get("name") in EXPENSIVE:
            return True
        return any(uses.get(a.storage.id) == 1 and expensive(a.storage.id, depth + 1) for a in op.reads())

    pieces = assemble.ins[: len(assemble.params["views"])]
    return all(isinstance(u, Access) and expensive(u.storage.id) for u in pieces)
