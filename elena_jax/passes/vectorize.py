"""Lane vectorization: lanes computed alike become one computation over all lanes.

After lane splitting, coalescing and forwarding, the decode-boxes pattern is
K column expressions (``x1 = cx - w / 2``, ``y1 = cy - h / 2``, ...) that one
covering ``assemble`` places into the lanes of an interleaved (N, K) array.
Lowered as it stands, every element of the result evaluates the expressions
of all K lanes and selects one: K times the arithmetic, and K exponentials
where NumPy computes one. This pass rebuilds the K expressions as one
expression over (N, K) arrays, lane axis last (SLP vectorization), as the
fastest hand-written JAX does (the per-lane-select form of the benchmark):

- lanes computed by the same ufunc become that ufunc over all lanes;
- lanes computed by different cheap ufuncs of alike operands (``cx - w / 2``
  and ``cx + w / 2``) become each ufunc over all lanes and a select by lane;
- per-lane scalars become one constant vector; one value used by all lanes
  is broadcast; reads of lane j of one strided view become one read of it
  (a lane that is a whole copy of part of an array, each column's min copied
  out of a joined reduction, is read as that part);
- lanes each reduced alike from their lane's values (``col /= col.max()``
  after the column's own write; argmax, argmin) become that reduction over
  all lanes, the lane axis kept (a float sum in each column's own NumPy
  order, ``ordered``);
- lanes each written through a mask of their own (``r[r < t] = 0.0``) become one
  masked write, and lanes each a copy into another type one copy;
- anything else is a leaf: its K values selected by lane (``select_lanes``),
  which is what the assemble did, now only for the leaves.

Where the lanes lie apart in memory (a loop's rows, the lane axis of the largest
stride: view.outer_lanes), the ops built lane axis last are rebuilt lane axis first
(`_lanes_first`), so that rows are computed as rows.

Covering assembles whose lanes interleave a storage (lane axis last, its
stride 1, the whole storage C-ordered) are rewritten whole. In any other
assemble, each group of pieces that are the lanes of one view (a loop over
columns writing ``col[1:]`` and ``col[0]``: the lanes of ``P[1:, :]`` and of
``P[0, :]``; pieces of one shape and strides at evenly spaced offsets, `_runs`:
a loop's rows ``x[i]`` are the lanes of ``x.T``) is
rewritten on its own, the assemble then placing the groups' values (each a
computation over its lanes, or one constant) and the other pieces. Either only
when more than the leaves is vectorized; wide lanes (several elements per row,
see lanes.wide) only when no lane is selected, as their stacked assemble is
faster.
The vectorized ops are placed where the assemble was, so every value they
read must still be what the lane ops read: a leaf whose storage is written in
between stays unvectorized. The lane ops themselves are left for dead-write
elimination; so a vectorization whose leaves read a lane value it recomputes
(or a value computed from one) is not made: those lane ops would stay live
beside their vectorized copies (`duplicates`).

Lanes already vectorized for an earlier assemble are reused, not rebuilt: a
state vector updated lane by lane and copied out at every step of a loop
(``y[0] -= f; y[1] += f; hist[t + 1] = y``) has one assemble per step, whose
lanes are computed from the previous step's. Rebuilt from the scalar ops, the
k-th step's vectorization was its whole history, a program quadratic in the
steps (80 steps of a 2-lane update: 53,000 jaxpr lines, 10x the unoptimized
program). Lane values are compared looking through whole copies, which the
passes before leave between one step's values and the next step's reads.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..ir import Access, Const, Op, Program
from ..view import (
    View,
    contiguous,
    expand_dims,
    index,
    lane_view,
    lanes_first,
    moveaxis,
    outer_lanes,
    reshape,
    same_elements,
)
from ._rewrite import copy_program, temporary
from .lanes import interleaved, lane, splittable, wide
from .merge import marked
from .reductions import comparable, lanes_first_params, lanewise

# Ufuncs cheap enough to compute over every lane and select from (a different one per lane).
CHEAP = {"add", "subtract", "multiply", "maximum", "minimum", "fmax", "fmin", "negative", "positive",
         "absolute", "clip"}
MAX_OPS = 256  # vectorized ops per assemble: keeps XLA's compile time in check
# NB: how deep operands are followed back: a lane's temporary updated in place 250 times (`r *= 0.99`,
# each update a storage of its own since rename_whole_writes) was a chain of 250 definers, followed
# depth first past Python's recursion limit (a review's find, session 36)
MAX_DEPTH = 64
MAX_GROUPS = 3  # differently computed lane groups: each is computed over all lanes


# NB: more lanes than a split makes (lanes.LIMIT): the columns a loop writes one by one (20 columns
# normalized by their minimum and maximum), each its own strided computation and write otherwise
COLUMNS = 64


def _interleaved(op: Op) -> View | None:
    """The lane view of ``op`` if it is a covering assemble of the interleaved lanes of its
    storage (see lanes.interleaved; up to COLUMNS of them) and not materialized."""
    return None if op.params.get("materialize") else interleaved(op, COLUMNS)


class _Vectorizer:
    """Builds the vectorized ops for one assemble at ``position`` of ``program``."""

    def __init__(self, program: Program, position: int, writes: dict[int, list[int]], definers: dict,
                 built: dict):
        self.program, self.position = program, position
        self.writes, self.definers = writes, definers
        self.ops: list[Op] = []
        self.memo: dict = {}
        self.earlier = built  # lanes built for earlier assembles (see built)
        self.where = program.ops[position].where
        self.replicas: dict[int, set[int]] = {}  # storage of a vectorized op -> the lane values it recomputes
        self.depth = 0  # operands followed back from the assemble's lanes (see MAX_DEPTH)

    def lanes(self, items, dtype):
        """One operand over all lanes (lane axis last) for ``items``: per lane, (operand,
        position of the op that read it); or None (also beyond MAX_DEPTH operands back). ``dtype``
        is what its reader computes in."""
        key = self.key(items, dtype)
        if key not in self.memo:
            if self.depth >= MAX_DEPTH:
                return None
            self.depth += 1
            try:
                self.memo[key] = self.earlier.get(key) or self._lanes(items, np.dtype(dtype))
            finally:
                self.depth -= 1
        return self.memo[key]

    def key(self, items, dtype) -> tuple:
        """What ``items`` hold, lane by lane, as a memo key: each read's view with the write it
        saw (the same view read before and after a write of it differs), looked through whole
        copies (a copy holds what its source held when copied)."""
        return tuple(self._source(x, p) for x, p in items), np.dtype(dtype)

    def _source(self, x, p: int) -> tuple:
        while isinstance(x, Access) and x.storage.id in self.definers:
            op, q = self.definers[x.storage.id]
            src = op.ins[0] if op.prim == "copy" else None
            if (not isinstance(src, Access) or src.view != contiguous(src.storage.shape)
                    or src.storage.size != x.storage.size or src.storage.dtype != x.storage.dtype):
                break
            x, p = Access(src.storage, x.view), q
        return _key(x), self._version(x, p)

    def built(self) -> dict:
        """The memo's lanes computed by this vectorizer's ops: written once, before any later
        assemble, so valid there too (other entries depend on what is written where)."""
        made = {out.storage for op in self.ops for out in op.outs}
        return {k: v for k, v in self.memo.items() if isinstance(v, Access) and v.storage in made}

    def _lanes(self, items, dtype):
        parts = tuple(self._part(x, p) for x, p in items)
        if parts != items and self._unchanged([(x, p) for x, p in parts if isinstance(x, Access)]):
            items = parts
        xs = [x for x, _ in items]
        if all(isinstance(x, Const) for x in xs):
            return _constants(xs, dtype)
        accesses = [x for x in xs if isinstance(x, Access)]
        if len({x.view.shape for x in accesses}) != 1 or any(np.ndim(x.value) for x in xs if isinstance(x, Const)):
            return None
        if len(accesses) < len(xs):  # scalars mixed with arrays: a leaf
            return self._leaf(items, dtype)
        if len({_key(x) for x in xs}) == 1:
            return _lane_axis(xs[0]) if self._unchanged(items) else None
        if len({x.storage.id for x in xs}) == 1 and self._unchanged(items):
            w = lane_view([x.view for x in xs])
            if w is not None:
                return Access(xs[0].storage, w)
        return self._computed(items, dtype) or self._leaf(items, dtype)

    def _part(self, x, p: int) -> tuple:
        """(the part of an array, position of the copy that read it) for ``x``, a whole copy of
        that part (each column's ``col.min()``, a copy of its lane of the joined reduction), or
        a copy of such a copy; else (x, p). NB: three walks through copies: this one replaces a
        whole read of a copy by the part copied (to read lanes of one view); `_source` looks
        through whole copies of whole arrays at any view (memo keys only); `_definer` finds the
        op computing a value behind such whole copies."""
        while isinstance(x, Access) and x.storage.id in self.definers:
            op, q = self.definers[x.storage.id]
            if op.prim != "copy":
                break
            (src,), (out,) = op.ins, op.outs
            if (not isinstance(src, Access) or src.storage.dtype != x.storage.dtype or x.view != out.view
                    or out.view != contiguous(x.storage.shape) or src.view.shape != out.view.shape):
                break
            x, p = src, q
        return x, p

    def _version(self, x, p: int) -> int:
        """Which value of x's storage the op at ``p`` read: the position of the last write before it."""
        return max((i for i in self.writes.get(x.storage.id, ()) if i < p), default=-1) if isinstance(x, Access) else -1

    def _unchanged(self, items) -> bool:
        """Whether each read storage still holds, at the assemble, what its lane op read (a
        write by that op itself, after its read, counts)."""
        return all(not any(p <= i < self.position for i in self.writes.get(x.storage.id, ())) for x, p in items)

    def _computed(self, items, dtype):
        """Lanes computed by ufuncs, or all by reductions (`_reduced`), masked writes (`_masked`)
        or casts (`_cast`), vectorized; or None.
        Lanes computed differently form groups, each computed over all lanes (other lanes
        filled with copies of its own) and selected by lane; lanes no ufunc computes are leaves
        of that select. The select is in ``dtype``, the type the reader computes in, so each
        value is cast as it was."""
        defs = [self._definer(x) if isinstance(x, Access) else None for x, _ in items]
        if len(self.ops) >= MAX_OPS:
            return None
        reduced = [d is not None and d[0].prim in ("reduce", "argreduce") for d in defs]
        if all(reduced):
            return self._reduced(items, defs)
        masked = [d is not None and d[0].prim == "mask_set" for d in defs]
        if all(masked):
            return self._masked(items, defs)
        cast = [d is not None and d[0].prim == "copy" for d in defs]
        if all(cast):
            return self._cast(items, defs)
        # NB: reductions, masked writes and casts beside ufuncs: leaves
        defs = [None if r or m or c else d for d, r, m, c in zip(defs, reduced, masked, cast)]
        if all(d is None for d in defs):
            return None
        if all(defs) and _alike([op for op, _ in defs]):
            return self._uniform(items, defs)
        groups: dict = {}
        for j, d in enumerate(defs):
            groups.setdefault(_signature(d[0]) if d else ("leaf", _key(items[j][0])), []).append(j)
        if len(groups) > MAX_GROUPS or not self._unchanged(
                [items[j] for j, d in enumerate(defs) if d is None and isinstance(items[j][0], Access)]):
            return None
        k = len(items)
        ins, lanes = [], [0] * k
        for signature, members in groups.items():
            if signature[0] == "leaf":
                value = _lane_axis(items[members[0]][0])
            else:
                if not _alike([defs[j][0] for j in members]):
                    return None
                filled = [j if j in members else members[j % len(members)] for j in range(k)]
                value = self._uniform(tuple(items[j] for j in filled), [defs[j] for j in filled])
                if value is None:
                    return None
            for j in members:
                lanes[j] = len(ins)
            ins.append(value)
        shape = next(x.view.shape for x, _ in items if isinstance(x, Access)) + (k,)
        return self._select(ins, lanes, shape, dtype)

    def _uniform(self, items, defs):
        """Lanes computed by the same ufunc, or by cheap ufuncs of one arity: those ufuncs
        over the vectorized operands (selected by lane where they differ)."""
        ops = [op for op, _ in defs]
        first = ops[0]
        operands = self._operands(defs, first.params["loop"])
        if operands is None:
            return None
        out = first.outs[0].storage
        shape = first.outs[0].view.shape + (len(items),)
        names = [op.params["name"] for op in ops]
        results = {}
        for name in dict.fromkeys(names):
            r = temporary(self.program, shape, out.dtype, f"lanes of {name}")
            self.ops.append(Op("ufunc", tuple(operands), (r,), {**first.params, "name": name}, self.where))
            self.replicas[r.storage.id] = {op.outs[0].storage.id for op in ops if op.params["name"] == name}
            results[name] = r
        if len(results) == 1:
            value = results[names[0]]
        else:
            value = self._select(list(results.values()), [list(results).index(n) for n in names], shape, out.dtype)
        return Access(value.storage, reshape(value.view, items[0][0].view.shape + (len(items),)))

    def _reduced(self, items, defs):
        """Lanes each reduced alike (one ufunc, axes, type, initial value and NumPy order, none
        of them along the lane axis) from its lane's values: that reduction over the vectorized
        values (``col /= col.max()`` in a loop over columns: one max along the rows); or None."""
        ops = [op for op, _ in defs]
        first = ops[0]
        k = len(items)
        kind = _reduction(first)
        # NB: lanes reading one reduction (an image's W x C columns, each shifted by its channel's row
        # maxima) would reduce its operand once per lane: they are leaves
        if len({id(op) for op in ops}) < k or any(_reduction(op) != kind for op in ops[1:]):
            return None
        operands = self._operands(defs, (first.ins[0].storage.dtype,))
        # NB: one value reduced for every lane: not its lanes
        if operands is None or not isinstance(operands[0], Access) or operands[0].view.shape[-1] != k:
            return None
        return self._over_lanes(first.prim, operands, lanewise(first), ops, items,
                                f"lanes of {first.params['name']} reduced")

    def _masked(self, items, defs):
        """Lanes each written through a mask of its own (``r[r < t] = 0.0`` in a loop over rows):
        one masked write of the vectorized values, masks and values; or None."""
        ops = [op for op, _ in defs]
        kinds = {np.asarray(op.ins[2].value).dtype if isinstance(op.ins[2], Const) else op.ins[2].storage.dtype
                 for op in ops}
        if len({id(op) for op in ops}) < len(items) or len(kinds) != 1:
            return None
        operands = self._operands(defs, (ops[0].ins[0].storage.dtype, np.bool_, kinds.pop()))
        return None if operands is None else self._over_lanes("mask_set", operands, {}, ops, items,
                                                               "lanes written through masks")

    def _cast(self, items, defs):
        """Lanes each a copy of its lane's values into another type (NumPy's float32 mean, divided
        in float64 and cast back): one copy of the vectorized values; or None."""
        ops = [op for op, _ in defs]
        if len({(op.ins[0].storage.dtype, op.outs[0].storage.dtype) for op in ops}) != 1:
            return None
        operands = self._operands(defs, (ops[0].ins[0].storage.dtype,))
        return None if operands is None else self._over_lanes("copy", operands, {}, ops, items, "lanes cast")

    def _operands(self, defs, dtypes) -> list | None:
        """The lane ops' operands, each over all lanes in its dtype of ``dtypes``; or None."""
        operands = []
        for j, dtype in enumerate(dtypes):
            arg = self.lanes(tuple((op.ins[j], p) for op, p in defs), dtype)
            if arg is None:
                return None
            operands.append(arg)
        return operands

    def _over_lanes(self, prim: str, operands: list, params: dict, ops: list[Op], items, origin: str) -> Access:
        """One ``prim`` op over all lanes, computing what each of ``ops`` computed for its lane; its
        value as the lanes read it (``m[:, None]`` of a row's maxima is the op's elements, not its shape)."""
        out, k = ops[0].outs[0], len(items)
        r = temporary(self.program, out.view.shape + (k,), out.storage.dtype, origin)
        self.ops.append(Op(prim, tuple(operands), (r,), params, self.where))
        self.replicas[r.storage.id] = {op.outs[0].storage.id for op in ops}
        return Access(r.storage, reshape(r.view, items[0][0].view.shape + (k,)))

    def _definer(self, x: Access):
        """(ufunc or reduction op, position) that computes ``x``: the op that wrote all of ``x``'s
        storage, its only write, or a ufunc's lane c if ``x`` is lane c of it; looking through
        copies."""
        found = self.definers.get(x.storage.id)
        if found is None:
            return None
        op, p = found
        whole = contiguous(x.storage.shape)
        if op.prim == "copy":
            src = op.ins[0]
            if (not isinstance(src, Access) or src.view != whole or src.storage.size != x.storage.size
                    or not self._unchanged([(src, p)])):
                return None
            if src.storage.dtype != x.storage.dtype:  # NB: a cast of all of x, vectorized as a copy (_cast)
                return found if same_elements(x.view, whole) and src.storage.shape == x.storage.shape else None
            # NB: a whole copy of a whole array of the same type: x's view means the same in it
            return self._definer(Access(src.storage, x.view))
        if op.prim in ("reduce", "argreduce") and _reduction(op) is not None and same_elements(x.view, whole):
            return found
        if op.prim == "mask_set" and _elementwise_mask(op) and same_elements(x.view, whole):
            return found
        if op.prim != "ufunc" or op.params.get("masked") or len(op.outs) != 1:
            return None
        if same_elements(x.view, whole):
            return found
        c = next((c for c in range(whole.shape[-1]) if same_elements(x.view, index(whole, (..., c)))), None)
        if whole.ndim < 2 or c is None or not splittable(op):
            return None
        return Op(op.prim, tuple(lane(y, c) for y in op.ins), (lane(op.outs[0], c),), op.params, op.where), p

    def duplicates(self, value: Access) -> bool:
        """Whether the ops that compute ``value`` read a lane value they also recompute, or
        one computed from such a value: the lane ops then stay live beside their vectorized
        copies. (Alternating strided updates, ``a[:, ::2] += 0.1 * a[:, 1::2]; a[:, 1::2] -=
        a[:, ::2] ** 2``: the odd lanes read the new even lanes, which one select-by-lane
        computed again over all lanes; 3x the time of the unoptimized program.) Or whether two
        of those ops recompute one lane value: at 4 lanes the odd lanes' ``a[:, ::2] ** 2`` was
        vectorized too, the new even lanes computed over all lanes inside it and again for
        themselves (4-6x the unoptimized program's elements; a review's find, session 27)."""
        live, replicated, twice = {value.storage.id}, set(), False
        for op in reversed(self.ops):
            if op.outs[0].storage.id in live:
                again = self.replicas.get(op.outs[0].storage.id, set())
                twice |= bool(again & replicated)
                replicated |= again
                live |= {a.storage.id for a in op.reads()}
        made = {op.outs[0].storage.id for op in self.ops}
        return twice or bool(replicated) and bool(self._ancestors(live - made, replicated) & replicated)

    def _ancestors(self, storages: set[int], replicated: set[int]) -> set[int]:
        """``storages`` and the storages their values were computed from (through single
        writes), back to the earliest of ``replicated``."""
        earliest = min(self.definers[s][1] for s in replicated)
        seen, todo = set(), list(storages)
        while todo:
            s = todo.pop()
            found = self.definers.get(s)
            if s not in seen:
                seen.add(s)
                if found and found[1] > earliest:
                    todo += [a.storage.id for a in found[0].reads()]
        return seen

    def _leaf(self, items, dtype):
        """The lanes' own values, selected by lane (scalars among them broadcast)."""
        if not self._unchanged([(x, p) for x, p in items if isinstance(x, Access)]):
            return None
        xs = [x for x, _ in items]
        distinct = list(dict.fromkeys(_key(x) for x in xs))
        ins = [next(_lane_axis(x) for x in xs if _key(x) == k) for k in distinct]
        shape = next(x.view.shape for x in xs if isinstance(x, Access)) + (len(xs),)
        return self._select(ins, [distinct.index(_key(x)) for x in xs], shape, dtype)

    def _select(self, ins, lanes, shape, dtype) -> Access:
        r = temporary(self.program, shape, dtype, "lanes selected")
        stored = all(self._argument(x) for x in ins)  # NB: lowered by selects on every backend then
        self.ops.append(Op("select_lanes", tuple(ins), (r,), {"lanes": tuple(lanes), "stored": stored}, self.where))
        return r

    def _argument(self, x) -> bool:
        """Whether ``x`` reads an argument's elements (not a computed value)."""
        found = self.definers.get(x.storage.id) if isinstance(x, Access) else None
        return found is not None and found[0].prim == "arg"


def _lane_axis(x):
    """``x`` with a unit lane axis last (a scalar broadcasts as it is)."""
    return Access(x.storage, expand_dims(x.view, -1)) if isinstance(x, Access) else x


def _key(x):
    return ("A", x.storage.id, x.view) if isinstance(x, Access) else ("C", id(x))


def _signature(op: Op) -> tuple:
    return (op.params["name"], op.params["loop"], len(op.ins), op.outs[0].view.shape, op.outs[0].storage.dtype)


def _reduction(op: Op) -> tuple | None:
    """What reductions vectorized together share (`_Vectorizer._reduced`): their parameters over
    lanes (reductions.lanewise), the shapes and types in and out; None for a reduction that is not
    vectorized (see lanewise; a result written into part of an array)."""
    p, out = lanewise(op), op.outs[0]
    if p is None or not same_elements(out.view, contiguous(out.storage.shape)):
        return None
    return op.prim, comparable(p), op.ins[0].view.shape, op.ins[0].storage.dtype, out.view.shape, out.storage.dtype


def _elementwise_mask(op: Op) -> bool:
    """Whether a masked write sets each element from its own place of the mask and the values (a
    mask of the array's shape, one value or one per element), so that lanes of it line up."""
    x, mask, value = op.ins
    shape = op.outs[0].view.shape
    return (isinstance(x, Access) and isinstance(mask, Access) and x.view.shape == mask.view.shape == shape
            and (np.ndim(value.value) == 0 if isinstance(value, Const) else value.view.shape == shape))


def _alike(ops: list[Op]) -> bool:
    """Whether ``ops`` are one ufunc, or cheap ufuncs of one arity (they can share operands)."""
    first = _signature(ops[0])[1:]
    names = {op.params["name"] for op in ops}
    return (all(_signature(op)[1:] == first and op.params == {**ops[0].params, "name": op.params["name"]}
                for op in ops) and (len(names) == 1 or names <= CHEAP))


def _constants(xs: list[Const], dtype):
    """Per-lane scalars as one constant vector of the loop's type (each lane's value cast to it,
    as the lowering casts a scalar operand)."""
    values = [np.asarray(x.value) for x in xs]
    if any(v.ndim for v in values):
        return xs[0] if all(x is xs[0] for x in xs) else None
    # NB: equal bit for bit: -0.0 == 0.0, and a lane of -0.0 took lane 0's 0.0 (a review's find, session 34)
    if all(v.dtype == values[0].dtype and x.weak == xs[0].weak and v.tobytes() == values[0].tobytes()
           for x, v in zip(xs, values)):
        return xs[0]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # NB: the copy's own cast warned
            vector = np.array([v.astype(dtype) for v in values], dtype=dtype)
    except (TypeError, ValueError, OverflowError):  # NB: e.g. a Python int beyond int64 (object)
        return None
    # NB: a float loop rounds each scalar to its type as the lowering does; an integer value the loop's
    # type cannot hold exactly is left to the lane ops (NumPy's own rules for it)
    if vector.dtype.kind not in "fc" and not all(vector[j] == v for j, v in enumerate(values)):
        return None
    return Const(vector)


def vectorize_lanes(program: Program) -> Program:
    writes: dict[int, list[int]] = {}
    for i, op in enumerate(program.ops):
        for a in op.outs:
            writes.setdefault(a.storage.id, []).append(i)
    definers = {s: (program.ops[i[0]], i[0]) for s, i in writes.items()
                if len(i) == 1 and len(program.ops[i[0]].outs) == 1}
    new = copy_program(program)
    ops, changed = [], False
    built: dict = {}  # lanes vectorized for the assembles rewritten so far (see the module's docstring)

    def vectorized(i: int, items: tuple, w: View, dtype):
        """The ops computing ``items``, the lanes of view ``w`` placed by the assemble at ``i``,
        over all lanes, their value and the view to place it in (``w``, or its lane axis first
        where the lanes are rows, see _lanes_first); or None."""
        vec = _Vectorizer(new, i, writes, definers, built)
        value = vec._computed(items, dtype)
        selects = any(o.prim == "select_lanes" for o in vec.ops)
        # NB: wide lanes only when no lane is selected: the stacked assemble is faster there; more than
        # COLUMNS lanes (a loop's rows) only then too: a select is a pass per lane
        if value is None or (wide(w) or len(items) > COLUMNS) and selects or vec.duplicates(value):
            return None
        vec.memo[vec.key(items, dtype)] = value
        if outer_lanes(w) and not selects:
            moved = _lanes_first(new, vec.ops, vec.memo)
            if moved is not None:
                vec.ops, value, w = moved[0], moved[1](value), moveaxis(w, -1, 0)
        built.update(vec.built())
        return vec.ops, value, w

    for i, op in enumerate(program.ops):
        w = _interleaved(op)
        if w is not None:
            order = sorted(range(len(op.params["views"])), key=lambda k: op.params["views"][k].offset)
            target = op.outs[0].storage
            done = vectorized(i, tuple((op.ins[k], i) for k in order), w, target.dtype)
            if done is not None:
                made, value, _ = done  # NB: interleaved lanes are innermost: never moved first
                flat = Access(value.storage, reshape(contiguous(value.storage.shape), target.shape))
                ops += made + [Op("copy", (flat,), (Access.whole(target),), {}, op.where)]
                changed = True
                continue
        # NB: of a materialized assemble, groups of a part of its storage (a loop's col[1:] and col[0],
        # read column by column after it), the assemble kept and materialized (column_loops at 1e5: 2.5 -> 1.7 ms)
        elif op.prim == "assemble" and (not op.params.get("materialize") or interleaved(op, COLUMNS) is None):
            grouped = _grouped(op, i, vectorized, definers)
            if grouped is not None:
                made, op = grouped
                ops += made
                later = [op] + list(program.ops[i + 1:])
                op = marked(ops + later, len(ops))
                changed = True
        ops.append(op)
    if not changed:
        return program
    new.ops = ops
    return new


def _grouped(op: Op, i: int, vectorized, definers: dict):
    """For an assemble of pieces that include the lanes of views (a loop's column writes
    ``col[1:] = ...; col[0] = 0.0``: the lanes of ``P[1:, :]`` and of ``P[0, :]``), the ops
    computing each such group over its lanes and the assemble placing the groups' values in
    their place; or None."""
    views = op.params["views"]
    pieces = list(zip(op.ins, views))
    made, placed, grouped = [], [], set()
    for members in _runs(views):
        w = lane_view([views[k] for k in members]) if len(members) >= 2 else None
        if w is None:
            continue
        items = tuple((op.ins[k], i) for k in members)
        if _chained(items, definers):
            continue
        value = _copied_constant(items, op.outs[0].storage.dtype, definers)
        if value is None:
            done = vectorized(i, items, w, op.outs[0].storage.dtype)
            if done is None:
                continue
            made += done[0]
            value, w = done[1], done[2]
        placed.append((value, w))
        grouped.update(members)
    if not grouped:
        return None
    placed += [pieces[k] for k in range(len(views)) if k not in grouped]
    rest = op.ins[len(views):]  # NB: a partial assemble's old value
    params = {**op.params, "views": tuple(v for _, v in placed)}
    return made, Op("assemble", tuple(u for u, _ in placed) + rest, op.outs, params, op.where)


def _lanes_first(program: Program, ops: list[Op], memo: dict):
    """``ops``, a vectorization (lane axis last), rebuilt with the lane axis first: rows computed
    as rows. Lane-last ops over a loop's rows read them transposed (``x.T``), and XLA:CPU
    transposed them into copies, its reductions going across memory (1000 rows of 256 centered
    and scaled: 2.8x the whole-array form's time). Each temporary becomes one of the lanes-first
    shape (view.lanes_first), every operand gets the op's rank and the lane axis moved first,
    reduction axes shift by one; ``memo``'s values are rewritten to their new places, still lane
    last. Returns (the ops, a function mapping a value of the old ops to its new place, lane axis
    first) or None where a view has no such form. The ops are the vectorizer's (one output each)
    without a ``select_lanes``, whose ``lanes`` parameter counts along the last axis."""
    olds = {op.outs[0].storage.id: op.outs[0].storage for op in ops}

    def moved(x: Access):
        s = olds.get(x.storage.id)
        return x.view if s is None else lanes_first(x.view, s.shape)

    if any(moved(x) is None for op in ops for x in (*op.reads(), *op.outs)) \
            or any(moved(v) is None for v in memo.values() if isinstance(v, Access)):
        return None
    news = {sid: temporary(program, (s.shape[-1],) + s.shape[:-1], s.dtype, s.origin).storage
            for sid, s in olds.items()}

    def placed(x: Access) -> Access:  # still lane last
        return Access(news.get(x.storage.id, x.storage), moved(x))

    def first(x, rank: int):
        if isinstance(x, Const):
            v = np.asarray(x.value)
            return x if v.ndim == 0 else Const(np.moveaxis(v.reshape((1,) * (rank - v.ndim) + v.shape), -1, 0), x.weak)
        x = placed(x)
        return Access(x.storage, moveaxis(expand_dims(x.view, tuple(range(rank - x.view.ndim))), -1, 0))

    rebuilt = []
    for op in ops:
        rank = op.ins[0].view.ndim if op.prim in ("reduce", "argreduce") else op.outs[0].view.ndim
        params = lanes_first_params(op.prim, op.params, rank) if op.prim in ("reduce", "argreduce") else op.params
        rebuilt.append(Op(op.prim, tuple(first(x, rank) for x in op.ins), (first(op.outs[0], op.outs[0].view.ndim),),
                          params, op.where))
    for key, v in memo.items():
        if isinstance(v, Access):
            memo[key] = placed(v)
    return rebuilt, lambda value: first(value, value.view.ndim)


def _runs(views) -> list[list[int]]:
    """The views' indices in runs that may be lanes: of one shape and strides, their offsets evenly
    spaced (the lanes of row 0 and those of the last row, ``col[0]`` and ``col[-1]``, are two runs;
    a loop's rows ``x[i]``, one row apart, one)."""
    by_kind: dict[tuple, list[int]] = {}
    for k, v in enumerate(views):
        by_kind.setdefault((v.shape, v.strides), []).append(k)
    runs = []
    for members in by_kind.values():
        members.sort(key=lambda k: views[k].offset)
        runs.append(members[:1])
        for k in members[1:]:
            run = runs[-1]
            gap = views[k].offset - views[run[-1]].offset
            if len(run) == 1 or gap == views[run[1]].offset - views[run[0]].offset:
                run.append(k)
            else:
                runs.append([k])
    return runs


def _chained(items, definers: dict) -> bool:
    """Whether a lane's value is computed from another lane's (a recurrence over a loop's rows,
    ``out[t] = a * x[t] + b * out[t - 1]``): not computed over all lanes at once (`duplicates`
    would refuse it, after building it: 64 steps of an EWMA took 0.3 s of tracing so)."""
    lanes = {x.storage.id for x, _ in items if isinstance(x, Access)}
    # NB: a value written before the earliest lane depends on none (a long history all lanes share
    # was walked once per lane: 1000 rows after 2000 ops, 11.7 s; a review's find, session 35)
    earliest = min((definers[s][1] for s in lanes if s in definers), default=None)
    if earliest is None:
        return False
    for x, _ in items:
        todo, seen = [x.storage.id] if isinstance(x, Access) else [], set()
        others = lanes - set(todo)
        while todo:
            s = todo.pop()
            if s in seen or s not in definers or definers[s][1] < earliest:
                continue
            seen.add(s)
            reads = {a.storage.id for a in definers[s][0].reads()}
            if reads & others:
                return True
            todo += reads
    return False


def _copied_constant(items, dtype, definers: dict):
    """One constant for lanes that are each a scalar's copy (``col[0] = 0.0`` in a loop over
    columns), or None."""
    values = []
    for x, _ in items:
        found = definers.get(x.storage.id) if isinstance(x, Access) else None
        # NB: the storage's only write, so all of it
        if found is None or found[0].prim != "copy" or not isinstance(found[0].ins[0], Const) \
                or np.ndim(found[0].ins[0].value):
            return None
        values.append(found[0].ins[0])
    return _constants(values, dtype)
