"""Reduction joining: reductions of the lanes of one strided view become one reduction.

A Python loop over columns (``for j in range(k): lo = x[:, j].min(); ...``) records
one reduction per column, each a pass over the whole storage that reads every
k-th element. When the columns are the lanes of one view W (same shape and
strides, offsets evenly spaced), the reductions alike (same ufunc, dtype,
initial value and NumPy summation order) become one reduction of W along its
run axis, into a vector of one element per lane, and each reduction's result
is its lane of that vector. A float sum keeps NumPy's order for each column: the
reduction's ``ordered`` parameter, the column's pairwise run, applies to every
lane (lower/rules.reduce); NumPy's own ``x.sum(axis=0)`` adds row after row,
and is not what the loop computed.

The joined reduction is placed where the first of them was, so every column
must still hold what its own reduction read: a reduction whose column is
written in between (the loop normalizes column j before reducing column j+1,
which does not touch it) stays on its own if its column is the one written.
Only full reductions of one-dimensional views, without a mask, are joined;
so are argmaxes and argmins (``best[j] = x[:, j].argmax()``), into one
argreduce along the run axis.

An argmax and a max (argmin and min) of one view along one axis become one
reduction of (value, index) pairs that also yields the max (``labels =
scores.argmax(1); conf = scores.max(1)``): XLA:CPU computed the max by a
library call of its own, which read the scores from memory where the argmax's
loop computed them (campaign N's score_threshold, 1.3-2x its hand form; the
hand form's argmax and max XLA merges itself). Joined only where both results
are arrays of their own (no ``out=``), the max has no ``initial=``, ``where=``
or other type, and nothing writes the view between the two.
"""

from __future__ import annotations

import bisect
import math

from ..ir import Access, Op, Program
from ..view import View, contiguous, lane_view, moveaxis, outer_lanes, overlap, reshape
from ._rewrite import copy_program, temporary


def lanewise(op: Op) -> dict | None:
    """For a reduce, argmax or argmin of one operand into one result, the parameters of the
    reduction that computes its value for each lane of that operand with a lane axis appended
    last: its own (an argmax of a 1-d view along no axis: along axis 0); else None (a ``where=``
    mask, a masked selection's sum, an argmax joined with its max, an argmax of an n-d value's
    every axis)."""
    if op.prim not in ("reduce", "argreduce") or len(op.ins) != 1 or not isinstance(op.ins[0], Access) \
            or len(op.outs) != 1:
        return None
    p = op.params
    if op.prim == "reduce":
        return None if p.get("masked") or p.get("compact") else dict(p)
    if p.get("extreme") or p["axis"] is None and op.ins[0].view.ndim != 1:
        return None
    return {**p, "axis": 0 if p["axis"] is None else p["axis"]}


def lanes_first_params(prim: str, params: dict, rank: int) -> dict:
    """The parameters of a reduction over lanes (lane axis last, never reduced: see lanewise) of a
    ``rank``-dimensional operand, for that operand with its lane axis moved first."""
    if prim == "argreduce":
        return {**params, "axis": params["axis"] % rank + 1}
    p = {**params, "axes": tuple(a % rank + 1 for a in params["axes"])}
    if params.get("ordered") is not None:
        order, run, *pieces = params["ordered"]
        p["ordered"] = (order, tuple(a % rank + 1 for a in run), *pieces)
    return p


def comparable(params: dict) -> tuple:
    """A reduction's parameters as a key equal for equal reductions: by repr, so that -0.0 and 0.0
    stay apart and dtypes compare by name."""
    return tuple(sorted((k, repr(x)) for k, x in params.items()))


def _key(op: Op):
    """What reductions that can be joined share, or None for an op that is not one of them."""
    p = lanewise(op)
    if p is None or op.prim == "reduce" and p["axes"] != (0,):
        return None
    v, out = op.ins[0].view, op.outs[0]
    if v.ndim != 1 or v.size < 2 or out.view.size != 1:  # NB: so an argmax's axis is 0
        return None
    # NB: keepdims ignored: the joined result is a vector, of which each member copies its lane in its own shape
    params = comparable({**p, "keepdims": False})
    return op.prim, op.ins[0].storage.id, v.shape, v.strides, params, out.storage.dtype


def _written(ops: list[Op]) -> dict[int, tuple[list[int], list[View]]]:
    """Per storage, the positions of the ops that write it and the views they write."""
    writes: dict[int, tuple[list[int], list[View]]] = {}
    for i, op in enumerate(ops):
        for a in op.outs:
            at, views = writes.setdefault(a.storage.id, ([], []))
            at.append(i)
            views.append(a.view)
    return writes


def _unchanged(members: list[int], ops: list[Op], writes) -> list[int]:
    """The members whose column nothing writes from the first member's own write (its ``out=``,
    after the joined reduction placed before it) up to themselves."""
    first = members[0]
    kept = [first]
    for i in members[1:]:
        a = ops[i].ins[0]
        at, views = writes.get(a.storage.id, ([], []))
        lo, hi = bisect.bisect_left(at, first), bisect.bisect_left(at, i)
        if not any(overlap(v, a.view) for v in views[lo:hi]):
            kept.append(i)
    return kept


def _lanes(members: list[int], ops: list[Op]) -> View | None:
    """The view whose lanes are the members' columns (offsets evenly spaced), or None."""
    offsets = sorted({ops[i].ins[0].view.offset for i in members})
    if len(offsets) < 2:
        return None
    step = math.gcd(*(b - a for a, b in zip(offsets, offsets[1:])))
    if (offsets[-1] - offsets[0]) // step + 1 != len(offsets):  # NB: columns 0, 1, 3: not one lane view
        return None
    v = ops[members[0]].ins[0].view
    return lane_view([View.make(v.shape, v.strides, o) for o in offsets])


def join_reductions(program: Program) -> Program:
    """``program`` with each group of joinable reductions (`_key`, `_unchanged`, `_lanes`) one
    reduction of their lane view, placed before the first of them, and each of them a copy of
    its lane; and each argmax (argmin) with a max (min) of its view one reduction (`_extremes`)."""
    return _extremes(_lanes_joined(program))


_PAIRS = {"argmax": "maximum", "argmin": "minimum"}


def _extremes(program: Program) -> Program:
    """``program`` with each argmax (argmin) and max (min) of one view along one axis (`_pairs`)
    one argreduce with two results, where the first of them was, and the max a copy of its
    second result."""
    pairs = _pairs(program)
    if not pairs:
        return program
    new = copy_program(program)
    ops = program.ops
    joined: dict[int, Op] = {}
    replaced: dict[int, Op | None] = {}
    for a, r in pairs:
        arg, red = ops[a], ops[r]
        value = temporary(new, arg.outs[0].view.shape, red.outs[0].storage.dtype, "extremes joined")
        joined[min(a, r)] = Op("argreduce", arg.ins, arg.outs + (value,), {**arg.params, "extreme": True}, arg.where)
        replaced[a] = None
        replaced[r] = Op("copy", (Access(value.storage, reshape(value.view, red.outs[0].view.shape)),), red.outs, {},
                         red.where)
    new.ops = [x for i, op in enumerate(ops)
               for x in ((joined[i],) if i in joined else ()) + ((replaced[i],) if i in replaced else (op,))
               if x is not None]
    return new


def _pairs(program: Program) -> list[tuple[int, int]]:
    """(argreduce position, reduce position) of each argmax and max (argmin and min) of one view
    along one axis, both written into arrays of their own, nothing writing the view in between."""
    ops = program.ops
    writes = _written(ops)
    fresh = {s for s, (at, views) in writes.items() if len(at) == 1}
    found: dict[tuple, int] = {}
    pairs = []
    for i, op in enumerate(ops):
        if op.prim not in ("argreduce", "reduce"):
            continue
        x = op.ins[0]
        if not isinstance(x, Access) or x.storage.dtype.kind not in "fiu" or op.outs[0].storage.id not in fresh \
                or op.outs[0].view != contiguous(op.outs[0].storage.shape):
            continue
        p = op.params
        if op.prim == "argreduce" and p["axis"] is not None and len(op.outs) == 1:
            key = (x.storage.id, x.view, (p["axis"],), _PAIRS[p["name"]])
        elif (op.prim == "reduce" and p["name"] in _PAIRS.values() and len(op.ins) == 1 and p.get("initial") is None
              and not p.get("masked") and p["dtype"] == x.storage.dtype == op.outs[0].storage.dtype):
            key = (x.storage.id, x.view, tuple(p["axes"]), p["name"])
        else:
            continue
        other = found.pop(key + (op.prim != "argreduce",), None)
        if other is None:
            found[key + (op.prim == "argreduce",)] = i
            continue
        at, views = writes.get(x.storage.id, ([], []))
        lo, hi = bisect.bisect_left(at, other), bisect.bisect_left(at, i)
        if not any(overlap(v, x.view) for v in views[lo:hi]):
            pairs.append((other, i) if op.prim == "reduce" else (i, other))
    return pairs


def _lanes_joined(program: Program) -> Program:
    ops = program.ops
    groups: dict[tuple, list[int]] = {}
    for i, op in enumerate(ops):
        key = _key(op)
        if key is not None:
            groups.setdefault(key, []).append(i)
    writes = _written(ops)
    plans = []
    for members in groups.values():
        members = _unchanged(members, ops, writes) if len(members) > 1 else members
        w = _lanes(members, ops) if len(members) > 1 else None
        if w is not None:
            plans.append((members, w))
    if not plans:
        return program
    new = copy_program(program)
    before: dict[int, Op] = {}  # position -> the joined reduction placed before the op there
    replaced: dict[int, Op] = {}
    for members, w in plans:
        first = ops[members[0]]
        step = w.strides[-1]  # NB: the lanes' spacing, read before the lane axis may move first
        joined = temporary(new, (w.shape[-1],), first.outs[0].storage.dtype, "reductions of lanes joined")
        storage = first.ins[0].storage
        params = {**lanewise(first), "keepdims": False}
        if outer_lanes(w):  # NB: a loop's rows: read as laid out (vectorize._lanes_first)
            # NB: w is 2-d: the joined views are 1-d (_key)
            w, params = moveaxis(w, -1, 0), lanes_first_params(first.prim, params, 2)
        before[members[0]] = Op(first.prim, (Access(storage, w),), (joined,), params, first.where)
        for i in members:
            op = ops[i]
            out = op.outs[0]
            lane = (op.ins[0].view.offset - w.offset) // step
            value = Access(joined.storage, View.make(out.view.shape, (0,) * out.view.ndim, lane))
            replaced[i] = Op("copy", (value,), op.outs, {}, op.where)
    new.ops = [x for i, op in enumerate(ops) for x in ((before[i],) if i in before else ()) + (replaced.get(i, op),)]
    return new
