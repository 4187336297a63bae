"""NumPy's summation order: a float sum added up as NumPy's add loop adds it.

NumPy's reduction loop sees one of two things. Where the reduced axes are
innermost in memory, a run of elements per result, which it sums pairwise (its
``pairwise_sum``): fewer than 8 elements one after another from -0.0; up to 128
in 8 running lanes, then the lanes as ``((l0 + l1) + (l2 + l3)) + ((l4 + l5) +
(l6 + l7))``, then the remainder one by one; more than 128 as the sums of two
halves, split at half the length rounded down to a multiple of 8. A run its
iterator passes through a buffer comes in pieces, each summed pairwise and
added to the total in turn (view.summation says which). A complex run is
summed as its interleaved (real, imaginary) values, whose lanes meet per part;
float16 in float32. Where a kept axis is innermost, the loop is elementwise:
each result element adds its terms one after another, as NumPy's product loop
multiplies them everywhere (`sequential`). XLA's reduce adds in an order of its
own in both cases, so a sum of a thousand floats differed from NumPy's in its
last bits nearly always.

Invariant: every addition (multiplication) here is one of NumPy's, on the same
two operands, in the same precision; a pairwise tree's shape depends on the
run's length only, so it is built once per length at trace time and applied to
every row at once.
"""

from __future__ import annotations

import functools
import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from .lazy import MAX_SLICED, Lazy
from .memory import cast, converted
from .opaque import computed_once

_LANES = 8
_BLOCK = 128  # NumPy's PW_BLOCKSIZE: the longest run summed in lanes
# Runs of several leaves of one height (rows of 256, 512, 1024, ...: `_Plan.regular`) are summed a
# slab at a time: row t of every leaf at once (`_slab`), a Lazy's recipe computed on the slab, and
# the lanes of all leaves kept in memory before they meet where the sum has _MANY terms or more
# (`computed_once`: XLA:CPU fused them into the meet, each result reading its leaves' rows apart;
# on small sums its operations cost 10% more compile time for nothing). 15625 rows of 256:
# x.sum(axis=1) 2.4 -> 1.7 ms, (x * x).sum 2.8 -> 2.2, standardize 15.6 -> 11.3 (rows of 1024:
# 16 -> 11); computed from a product's whole value, seen as (rows, 2, 16, 8), it took 15.8 ms
# (session 29).
# Other runs are summed as the recursion reads, each leaf's rows sliced one by one (`_recursion`),
# where they have at most _FEW leaves (1,024 elements) and the sum at least _MANY terms in all: the
# gathers below took 0.195 ms where the recursion took 0.135 (1,000 rows of 1,000; a loop over the
# leaves, before them, 3.8 ms against 1.5). But XLA:CPU compiles the slices as one block of
# straight-line code, in a time that grows faster than the run: 1.3 s for 1,000 elements, 5-10 s
# for 1,808, 18-25 s for rows of 4,096 (an acceptance campaign's find, session 24); a small sum
# compiles fast rather than runs fast.
# Other irregular runs read row t of every leaf at a time, a gather of 8 elements per leaf from the
# run itself (`_leaf_rows`), fused into the lanes' additions: 2e6 floats in rows of 1,500 to
# 200,000 0.4-0.8 ms, NumPy's 0.6-0.9 (a busy machine). They were gathered from the run's rows of
# 8, a reshape of a slice where the run's length is not a multiple of 8, which XLA:CPU wrote out
# whole where more than 15 reads shared it (rows of 12,500: 3.2 ms), or looped over up to 32
# leaves (rows of 1,500: 3.3 ms). Their lanes are kept in memory too where the sum has _MANY terms
# or more: fused into the meet and the rest, rows of 12,500 stayed at 2.3 ms (rows of 20,000 went
# 0.30 -> 0.41 ms with it, the one length measured slower).
_FEW = 8
_MANY = 1 << 16
_SHARED = 32  # terms per result from which a sum is computed once for all its users (see _in_turn)


def pairwise_sum(x, start, block: int | None = None, piece: int | None = None, every: int | None = None,
                 stored=None, down: bool = False):
    """``start + x`` summed over its last axis (per row of the others) in NumPy's order; with
    ``down``, over its first axis (real, its run one piece: see `down`).

    With ``block`` and ``piece``, as NumPy's iterator hands the run to its loop through a
    buffer (view.summation): cut into blocks of ``block`` elements and each block into
    pieces of ``piece``, the last ones shorter, each piece summed pairwise and added to the
    running total in turn. Between pieces the total is kept in the ``stored`` dtype (see
    `_keeping`): float16 runs are summed in float32 and the total rounded to float16 after
    each piece, as NumPy's half loop does; into a cast ``out=``, after every ``every`` terms
    where NumPy's iterator keeps it in its buffer longer (view.summation).
    """
    n = x.shape[0 if down else -1]
    if isinstance(x, Lazy) and not _in_parts(x, n, block, piece):
        x = x.value
    dtype, stored = x.dtype, _stored(x.dtype, stored)
    start, x = jnp.asarray(start, dtype), _widened(x)  # NB: the start in x's own type first, as NumPy's out
    if down:
        pieces = _pairwise_down(x)[None]
    else:
        pieces = _chunked(lambda b: _chunked(lambda p: _pairwise(p)[..., None], b, piece), x, block)
        pieces = jnp.moveaxis(pieces, -1, 0)
    # NB: XLA folds 0.0 + v into v, which is -0.0 for v = -0.0 where NumPy's is 0.0
    total = _start(start, x.dtype, pieces.shape[1:], stored)
    call = _keeping(jnp.add, dtype)  # NB: a float16 total rounded where each call of the loop ends
    if every and piece and every > piece and stored != dtype:  # NB: the iterator's reduce mode
        return converted(_stored_every(call, total, pieces, every // piece, stored), dtype)
    step = call if stored == dtype else _keeping(call, stored)  # NB: in turn, as NumPy's loop meets each buffer
    return converted(_in_turn(step, total, pieces, shared=n >= _SHARED), dtype)


def _in_parts(x: Lazy, n: int, block: int | None, piece: int | None) -> bool:
    """Whether a Lazy summed along a run of ``n`` elements (its last axis, or its first summed
    down) is computed part by part
    as the sum reads it, not whole: a float sum of _MANY terms or more; a conversion always (each
    part cast, as NumPy's buffer casts them), other recipes where the run is one piece whose leaves
    are alike or few, in at most MAX_SLICED parts times ufuncs. NB: gathered, two sums of one
    operand (a mean and a variance) shared their gathers, which XLA:CPU then wrote out: the
    standardization of 32 rows of 125,000 took 26 ms, 9.8 with the recipe's value gathered."""
    if x.dtype.kind != "f" or x.dtype == np.float16 or math.prod(x.shape) < _MANY:
        return False
    if x.conversion:
        return True
    plan = _plan(n)
    return min(block or n, piece or n) >= n and (plan.regular or _recursive(n) or _narrow(x)) \
        and _parts(n) * x.ops <= MAX_SLICED


def _narrow(x: Lazy) -> bool:
    """Whether every array a recipe reads along its run is of a narrower type than its value (the
    deviations of uint8 values from their float64 mean): gathered parts of those, which XLA:CPU
    writes out where two sums share them, cost less than the value written out (the std of
    2000 x 2000 uint8 rows 11-13 ms -> 1.3-2.2, NumPy 7.6; of float64 rows of 125,000 the shared
    gathers took 21-25 ms, the value 7-16)."""
    return all(np.dtype(a.dtype).itemsize < x.dtype.itemsize for a in x.leaves() if np.ndim(a) and np.shape(a)[-1] > 1)


def down(shape: tuple[int, ...], dtype, block: int | None = None, piece: int | None = None) -> bool:
    """Whether a sum over the first axis of a real array of ``shape`` is summed ``down`` (see
    pairwise_sum): its run one piece, and enough other elements beside each term (at least 8,
    a cache line of float64) that a slab of them beats reading the transpose."""
    n = shape[0] if shape else 0
    return (np.dtype(dtype).kind == "f" and len(shape) > 1 and math.prod(shape[1:]) >= _LANES
            and min(block or n, piece or n) >= n)


def _chunked(f, x, size: int | None):
    """``f`` of each run of ``size`` elements (the last shorter) along the last axis of ``x``,
    its results in order along a last axis (``f`` maps ``(..., k)`` to ``(..., m)``): the full
    runs at once, as rows of their own. Without ``size``, ``f`` of x's whole last axis."""
    n, lead = x.shape[-1], x.shape[:-1]
    whole = n - n % size if size and n > size else 0

    def part(take):  # NB: of a Lazy (a conversion's), a Lazy of its operand's part
        return x.map(take) if isinstance(x, Lazy) else take(x)

    results = []
    if whole:
        results.append(f(part(lambda a: a[..., :whole].reshape(*lead, -1, size))).reshape(*lead, -1))
    if n > whole or not whole:
        results.append(f(part(lambda a: a[..., whole:]) if whole else x))
    return jnp.concatenate(results, -1)


def _stored(dtype, stored) -> np.dtype:
    """The dtype NumPy's loop keeps a running total in between its calls: that of an ``out=``
    (cast back after each buffer: a float64 sum into a float32 ``out``, into an int64 one cut to an
    integer each time), else the operand's (float16, though each call computes in float32). NB:
    only an ``out=`` of the same kind until session 37: into integers, off by a few (a review's
    find: 52 of 240 sums of rows over 8,192 into integer outs)."""
    if stored is None:
        return np.dtype(dtype)
    stored = np.dtype(stored)  # NB: a real total in a complex out keeps its real part's precision
    return np.finfo(stored).dtype if stored.kind == "c" and np.dtype(dtype).kind != "c" else stored


def _widened(x):
    """``x`` in the type NumPy's loop computes in: float16 in float32."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _keeping(step, stored: np.dtype):
    """``step``, its total then rounded to ``stored`` (where that is narrower than its own)."""
    def kept(total, term):
        total = step(total, term)
        return cast(total, stored).astype(total.dtype) if stored != total.dtype else total

    return kept


def _start(start, dtype, shape, stored=None):
    """A chain's start, broadcast to its results, as the output holds it: NumPy writes it to an
    ``out=`` of the ``stored`` type first (``initial=0.7`` into an int32 ``out`` starts a float64 sum
    at 0.0); NB: apart, so that XLA cannot fold it away."""
    start = jnp.asarray(start, dtype)
    if stored is not None and stored != dtype:
        start = cast(start, stored).astype(dtype)
    return lax.optimization_barrier(jnp.broadcast_to(start, shape))


def sequential(x, start, op=lax.add, every: int | None = None, stored=None):
    """``start op x[0] op x[1] ...``, one after another, over the first axis of ``x`` (per
    element of the others): NumPy's elementwise reduction loop, where a kept axis is innermost,
    and its product loop everywhere (``op``: the multiplication). With ``every`` and ``stored``:
    the total stored in an ``out=`` of the ``stored`` type after every ``every`` terms
    (view.summation), and read back from it."""
    stored = _stored(x.dtype, stored)
    total = _start(start, x.dtype, x.shape[1:], stored)
    if every and every < x.shape[0] and stored != x.dtype:
        return _stored_every(op, total, x.value if isinstance(x, Lazy) and every > 1 else x, every, stored)
    return _in_turn(op, total, x, shared=x.shape[0] >= _SHARED)


def in_pieces(x, start, op, block: int, piece: int, every: int | None = None, stored=None):
    """``start op x[0] op x[1] ...`` over the first axis of ``x`` (per element of the others) as
    NumPy's loop takes it through its buffer: in blocks of ``block`` terms, each cut into pieces
    of ``piece`` (the last ones shorter), one call of the loop each (a float16 total rounded
    where it ends), the total kept in the ``stored`` dtype after each piece (see `_stored`), or
    after every ``every`` terms where NumPy's iterator keeps it in its buffer longer; where that
    changes nothing, `sequential`."""
    dtype, stored = x.dtype, _stored(x.dtype, stored)
    start, x = jnp.asarray(start, dtype), _widened(x)
    if stored == dtype == x.dtype:
        return sequential(x, start, op)
    total = _start(start, x.dtype, x.shape[1:], stored)
    call = _keeping(lambda total, terms: _chain(op, total, terms)[0], dtype)
    if every and every > piece and stored != dtype:  # NB: the iterator's reduce mode, whose pieces are whole blocks
        return converted(_stored_every(call, total, x.reshape(-1, block, *x.shape[1:]), every // block, stored), dtype)

    def one_block(total, terms):
        whole = terms.shape[0] - terms.shape[0] % piece
        if whole:
            total = _stored_every(call, total, terms[:whole].reshape(-1, piece, *terms.shape[1:]), 1, stored)
        return _keeping(call, stored)(total, terms[whole:]) if terms.shape[0] > whole else total

    n = x.shape[0]
    full = n - n % block
    if full:
        total = lax.scan(lambda t, b: (one_block(t, b), None), total, x[:full].reshape(-1, block, *x.shape[1:]))[0]
    return converted(one_block(total, x[full:]) if n > full else total, dtype)


def _stored_every(call, total, parts, every: int, stored: np.dtype):
    """``call`` of ``total`` and each of ``parts`` in turn (a term, or the terms one call of
    NumPy's loop takes), the total stored in (rounded to) an ``out=`` of the ``stored`` type after
    every ``every`` parts and after the last."""
    if every == 1:  # NB: a chain of rounded steps, looped over blocks of 8, not a loop of one step each
        return _chain(_keeping(call, stored), total, parts)[0]
    finish = _keeping(lambda total, group: _chain(call, total, group)[0], stored)
    n = parts.shape[0]
    whole = n - n % every
    if whole:
        groups = parts[:whole].reshape(-1, every, *parts.shape[1:])
        total = lax.scan(lambda t, g: (finish(t, g), None), total, groups)[0]
    return finish(total, parts[whole:]) if n > whole else total


def _in_turn(step, total, terms, shared: bool):
    """``step`` of ``total`` and each term in turn. A sum is many cheap-looking additions, which
    XLA fuses into each of its users and so repeats: a row's mean recomputed for every element
    it is subtracted from (std of 15625 x 256 rows: 24 ms, 6.9 ms without). With ``shared``,
    the last two steps are therefore a loop, whose result XLA computes once, unless the chain
    is a loop already (a lone step is the second of two, the first leaving the total as it is:
    XLA unrolls a loop of one); it costs a pass over the result, so sums of fewer than _SHARED
    terms, cheap to repeat, go without."""
    n = terms.shape[0]
    if not shared or not n or n > 8 * _LANES:
        return _chain(step, total, terms)[0]
    total = _chain(step, total, terms, max(n - 2, 0))[0]
    if n > 1:
        last = _rows(terms, n - 2, n)
    else:  # NB: a lone term goes second, after the total itself: repeated, XLA computed it twice
        last = jnp.concatenate([total[None], _rows(terms, 0, n)])
    apply = np.arange(2) >= 2 - n  # NB: by the loop's counter, so XLA cannot fold the loop away
    return lax.scan(lambda total, item: (jnp.where(item[1], step(total, item[0]), total), None),
                    total, (last, apply))[0]


def running(op, x):
    """``x[0], op(x[0], x[1]), op(op(x[0], x[1]), x[2]), ...`` along the first axis of ``x``:
    NumPy's accumulate loop (``np.cumsum``, ``np.cumprod``), every partial result kept."""
    if x.shape[0] < 2:
        return x
    return jnp.concatenate([x[:1], _chain(op, x[0], x[1:], keep=True)[1]])


def _chain(op, total, terms, count: int | None = None, keep: bool = False):
    """``op`` applied to ``total`` and each of the first ``count`` terms (all) in turn: the final
    value and, with ``keep``, every one. A chain of dependent steps, which XLA cannot reorder:
    unrolled when short, else a loop over blocks of 8 terms, and the rest unrolled. Terms that
    are a Lazy (lazy.py) are computed a block at a time in the loop, from its arrays' blocks:
    as the loop's input, XLA wrote them to memory first (a pass over the terms each)."""

    def unrolled(total, terms):
        steps = []
        for term in terms:
            total = op(total, term)
            steps.append(total)
        return total, jnp.stack(steps) if keep else None

    n = terms.shape[0] if count is None else count
    # NB: a kept chain unrolled is a fusion per step (each step read twice), slow to compile: an
    # integral image of 32 x 32 (two np.cumsum) compiled in 2.4 s, looped 1.0; of many terms it
    # runs faster unrolled (np.cumsum of 64 x 20000 along its first axis: 3.8 ms, 7.2 looped)
    if n <= (8 * _LANES if not keep or math.prod(terms.shape) >= _MANY else _LANES):
        return unrolled(total, _rows(terms, 0, n))
    body = n - n % _LANES
    if isinstance(terms, Lazy):
        xs, rows_of = terms.blocks(body, _LANES)
        total, steps = lax.scan(lambda t, block: unrolled(t, rows_of(block)), total, xs, length=body // _LANES)
    else:
        total, steps = lax.scan(unrolled, total, terms[:body].reshape(-1, _LANES, *terms.shape[1:]))
    steps = steps.reshape(-1, *terms.shape[1:]) if keep else None
    if body < n:
        total, rest = unrolled(total, _rows(terms, body, n))
        steps = jnp.concatenate([steps, rest]) if keep else None
    return total, steps


def _rows(terms, start: int, stop: int):
    """``terms[start:stop]``, of a Lazy computed there."""
    return terms.rows(start, stop) if isinstance(terms, Lazy) else terms[start:stop]


def _pairwise(x):
    """NumPy's pairwise sum over the last axis of a float or complex array."""
    if x.dtype.kind == "c":
        parts = jnp.stack([x.real, x.imag], -1).reshape(*x.shape[:-1], 2 * x.shape[-1])
        re, im = _pairwise_run(parts, 2)
        return lax.complex(re, im)
    return _pairwise_run(x, 1)[0]


def _pairwise_run(x, parts: int) -> list:
    """The pairwise sum of each row of ``x``, whose last axis interleaves ``parts`` sums."""
    n = x.shape[-1]
    if n < _LANES:
        acc = [jnp.full(x.shape[:-1], -0.0, x.dtype)] * parts
        for i in range(n):
            acc[i % parts] = acc[i % parts] + x[..., i]
        return acc
    if _sliced(x.shape):
        return _recursion(x, 0, n, parts)
    plan = _plan(n)
    values = _tree(_leaves(x, plan, parts), plan)
    return [values[..., p, 0] for p in range(parts)]


def _tree(leaves, plan: _Plan, axis: int = -1):
    """The recursion's sums over its leaves' sums along ``axis`` of ``leaves`` (in the order of
    their starts), a level at a time from the deepest; that axis left with one element."""
    axis %= leaves.ndim
    values = None
    for depth in reversed(range(len(plan.leaf))):
        count = int(plan.leaf[depth].sum())
        own = _take(leaves, plan.leaf_rank[depth], axis) if count else None
        if values is not None:
            pairs = values.reshape(*values.shape[:axis], -1, 2, *values.shape[axis + 1:])
            split = lax.index_in_dim(pairs, 0, axis + 1, False) + lax.index_in_dim(pairs, 1, axis + 1, False)
            values = split if own is None else _take(jnp.concatenate([own, split], axis), plan.merge[depth], axis)
        else:
            values = own
    return values


def _pairwise_down(x):
    """NumPy's pairwise sum over the first axis of a real array (per element of the others): the
    same additions as `_pairwise` of its transpose, each leaf's rows read as slabs of all the
    other elements, which lie after them in memory (a loop's columns summed as ``x[:, j].sum()``,
    vectorized: XLA:CPU read the transpose a column at a time, a pass over all of ``x`` per
    column; 100,000 x 20: 3.3 ms, 0.9 so). Of a Lazy, each part from its operands' parts: a
    conversion's (rules.reduce hands no other here), whose one operand has the value's shape."""
    n = x.shape[0]

    def row(i: int):
        return x.rows(i, i + 1)[0] if isinstance(x, Lazy) else x[i]

    if n < _LANES:
        acc = jnp.full(x.shape[1:], -0.0, x.dtype)
        for i in range(n):
            acc = acc + row(i)
        return acc
    plan = _plan(n)
    rows = n // _LANES

    def slab(t: int):  # NB: row t of every leaf
        return x.evaluate(lambda a: _leaf_slab(a, plan, t, 0)) if isinstance(x, Lazy) else _leaf_slab(x, plan, t, 0)

    lanes = _down_the_rows(slab, plan, lambda present: present.reshape(-1, *(1,) * (x.ndim)))
    (sums,) = _meet([lanes[:, k] for k in range(_LANES)], 1)  # NB: (leaves, ...), the others last throughout
    last = (np.arange(len(sums)) == len(sums) - 1).reshape(-1, *(1,) * (sums.ndim - 1))
    for i in range(rows * _LANES, n):  # NB: the rest, which only the last leaf has, one by one
        sums = sums + jnp.where(last, row(i), -0.0)  # NB: v + -0.0 is v, bit for bit
    return _tree(sums, plan, 0)[0]


def _sliced(shape: tuple[int, ...]) -> bool:
    """Whether runs along the last axis of ``shape`` are summed by `_recursion` (see _FEW, _MANY)."""
    return math.prod(shape) >= _MANY and _recursive(shape[-1])


def _recursive(n: int) -> bool:
    """Whether a run of ``n`` elements in a sum of _MANY terms or more is summed by `_recursion`:
    one leaf, or a few (see _FEW) not all of one height."""
    plan = _plan(n)
    return len(plan.present) <= _FEW and not (plan.regular and len(plan.present) > 1)


def _parts(n: int) -> int:
    """The parts a run of ``n`` elements is read in (in a sum of _MANY terms or more): slabs, or
    slices of 8 and single elements."""
    return n // _LANES + n % _LANES if _recursive(n) else _plan(n).depth_rows


def _slab(o, plan: _Plan, t: int):
    """Row ``t`` of every leaf of a run along the last axis (its first row where a leaf has
    fewer), ``(..., leaves, 8)``: of a Lazy, its recipe on its operands' slabs; an operand of one
    element along the run is broadcast (`_leaf_slab`)."""
    if isinstance(o, Lazy):
        return o.evaluate(lambda a: _slab(a, plan, t))
    if np.ndim(o) == 0:
        return o
    if np.shape(o)[-1] == 1:
        return o[..., None]
    return _leaf_slab(o, plan, t, -1)


def _leaf_slab(a, plan: _Plan, t: int, axis: int):
    """Row ``t`` of every leaf of a run along ``axis`` of the array ``a``, the leaves' axis and
    their 8 elements there: of leaves all of one height a reshape, else a gather (see the comment
    above _FEW)."""
    axis %= a.ndim
    if not plan.regular:
        return _leaf_rows(a, plan, t, axis)
    rows = a.shape[axis] // _LANES
    blocks = lax.slice_in_dim(a, 0, rows * _LANES, axis=axis)
    blocks = blocks.reshape(*a.shape[:axis], -1, plan.depth_rows, _LANES, *a.shape[axis + 1 :])
    return lax.index_in_dim(blocks, t, axis + 1, keepdims=False)


def _recursion(x, start: int, n: int, parts: int) -> list:
    """NumPy's pairwise sum of ``x[..., start:start + n]`` (n >= 8) as its recursion reads, each
    leaf's rows sliced one by one: for runs of a few leaves (see _FEW)."""
    if n > _BLOCK:
        h = n // 2 - (n // 2) % _LANES
        return [a + b for a, b in zip(_recursion(x, start, h, parts), _recursion(x, start + h, n - h, parts))]
    end = start + n - n % _LANES
    if n == x.shape[-1]:  # NB: a run of one leaf, added up column by column (see _columns)
        return _columns(x, end, parts)
    lanes = x[..., start : start + _LANES]
    for i in range(start + _LANES, end, _LANES):
        lanes = lanes + x[..., i : i + _LANES]
    sums = _meet(lanes, parts)
    for i in range(end, start + n):  # NB: the rest, one by one
        sums[i % parts] = sums[i % parts] + x[..., i]
    return sums


def _columns(x, end: int, parts: int) -> list:
    """NumPy's pairwise sum of each row of ``x``, a run of at most 128 elements (one leaf), from
    its columns: its lanes as 8 values, not one array of 8. NB: XLA:CPU fused the slices of an
    array of 8 lanes badly where ``x`` is a stack of slices (`memory.read` of a window view):
    the mean of a rolling window of 20 over 1e6 floats took 190 ms, 6.3 ms so; rows of 16 to 128
    1.3-2.7 ms, were 2.1-3.3. (Not for runs of several leaves: rows of 1,000 x 1,000 took 2.7 ms
    so, 0.5 by `_recursion`.)"""
    column = [x[..., i] for i in range(x.shape[-1])]
    lanes = column[:_LANES]
    for i in range(_LANES, end, _LANES):
        lanes = [lane + c for lane, c in zip(lanes, column[i : i + _LANES])]
    sums = _meet(lanes, parts)
    for i in range(end, x.shape[-1]):  # NB: the rest, one by one
        sums[i % parts] = sums[i % parts] + column[i]
    return sums


def _meet(lanes, parts: int) -> list:
    """The 8 lanes' sums (an array of them along its last axis, or a list) as one per part:
    ``((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))``, or of a complex run, per part:
    ``(l0 + l2) + (l4 + l6)`` and ``(l1 + l3) + (l5 + l7)``."""
    ln = lanes if isinstance(lanes, list) else [lanes[..., k] for k in range(_LANES)]
    if parts == 1:
        return [((ln[0] + ln[1]) + (ln[2] + ln[3])) + ((ln[4] + ln[5]) + (ln[6] + ln[7]))]
    return [(ln[p] + ln[p + 2]) + (ln[p + 4] + ln[p + 6]) for p in range(parts)]


def _take(values, index: np.ndarray, axis: int = -1):
    """``values`` at a static ``index`` along ``axis``: a slice where it is a range (no gather)."""
    start, before = int(index[0]), (slice(None),) * (axis % values.ndim)
    if np.array_equal(index, np.arange(start, start + len(index))):
        return values[(*before, slice(start, start + len(index)))]
    return values[(*before, index)]


def _leaves(x, plan: _Plan, parts: int):
    """Every leaf's sum, ``(..., parts, leaves)``: its 8 lanes run down its rows, then meet."""
    n = x.shape[-1]
    rows = n // _LANES
    lanes = _down_the_rows(lambda t: _slab(x, plan, t), plan, lambda present: present[:, None])
    if len(plan.present) > 1 and math.prod(x.shape) >= _MANY:  # NB: see _BLOCK
        lanes = computed_once(lanes)
    sums = _meet(lanes, parts)
    if n % _LANES:  # NB: the rest, which only the last leaf has, one by one
        last = [s[..., -1] for s in sums]
        for i in range(rows * _LANES, n):
            last[i % parts] = last[i % parts] + x[..., i]
        sums = [jnp.concatenate([s[..., :-1], v[..., None]], -1) for s, v in zip(sums, last)]
    return jnp.stack(sums, -2)


def _down_the_rows(row, plan: _Plan, placed):
    """Every leaf's 8 lanes: ``row(t)``, row t of every leaf, added in turn; a short leaf's missing
    rows count as -0.0 (``placed`` lines a mask over the leaves up with a row's axes)."""
    lanes = row(0)
    for t in range(1, plan.depth_rows):
        present = plan.present[:, t]
        lanes = lanes + (row(t) if present.all() else jnp.where(placed(present), row(t), -0.0))
    return lanes


def _leaf_rows(x, plan: _Plan, t: int, axis: int):
    """Row ``t`` of every leaf of a run along ``axis`` of ``x`` (its first row where it has fewer),
    8 elements per leaf there, the leaves' axis before them: a gather from the run itself (see
    the comment above _FEW)."""
    axis %= x.ndim
    dims = lax.GatherDimensionNumbers(offset_dims=tuple(d + (d >= axis) for d in range(x.ndim)),
                                      collapsed_slice_dims=(), start_index_map=(axis,))
    sizes = (*x.shape[:axis], _LANES, *x.shape[axis + 1 :])
    starts = jnp.asarray(plan.rows[:, t] * _LANES)[:, None]
    return lax.gather(x, starts, dims, sizes, mode="promise_in_bounds", indices_are_sorted=True)


class _Plan:
    """The shape of NumPy's pairwise recursion over a run of ``n`` elements: per depth, which of
    its segments are leaves, where its leaves' values are, and how they interleave with the
    sums of the segments it splits; the rows of every leaf, in the order of their starts."""

    def __init__(self, n: int):
        starts, sizes = np.array([0]), np.array([n])
        self.leaf, seg_starts, seg_sizes = [], [], []
        while len(sizes):
            is_leaf = sizes <= _BLOCK
            self.leaf.append(is_leaf)
            seg_starts.append(starts)
            seg_sizes.append(sizes)
            s, z = starts[~is_leaf], sizes[~is_leaf]
            h = z // 2 - (z // 2) % _LANES
            starts, sizes = np.stack([s, s + h], 1).ravel(), np.stack([h, z - h], 1).ravel()
        leaf_starts = np.concatenate([st[lf] for st, lf in zip(seg_starts, self.leaf)])
        leaf_sizes = np.concatenate([z[lf] for z, lf in zip(seg_sizes, self.leaf)])
        order = np.argsort(leaf_starts)
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        counts = np.cumsum([0] + [int(lf.sum()) for lf in self.leaf])
        self.leaf_rank = [rank[counts[d] : counts[d + 1]] for d in range(len(self.leaf))]
        self.merge = []
        for lf in self.leaf:  # NB: [own leaves, split sums] -> the depth's order
            where = np.empty(len(lf), int)
            where[lf] = np.arange(lf.sum())
            where[~lf] = lf.sum() + np.arange((~lf).sum())
            self.merge.append(where)
        first, height = leaf_starts[order] // _LANES, leaf_sizes[order] // _LANES
        self.depth_rows = int(height.max())
        self.regular = bool((height == self.depth_rows).all() and len(self.leaf_rank[-1]) == len(order))
        t = np.arange(self.depth_rows)
        self.present = t < height[:, None]
        self.rows = np.where(self.present, first[:, None] + t, first[:, None])


@functools.lru_cache(maxsize=128)
def _plan(n: int) -> _Plan:
    return _Plan(n)


def prefix_sum(x, count, start):
    """``start`` plus NumPy's pairwise sum of ``x[:count]``, a float or complex run whose length
    ``count`` is traced (the elements ``a[mask]`` selects, moved to the front of ``x``).

    The recursion's shape depends on the length, so it is followed for every length at once:
    its segments level by level (a segment of more than 128 elements splits where NumPy's
    does), every segment's leaf sum computed as NumPy's from its own start and length, and the
    levels' values combined from the deepest, each segment taking its leaf sum or the sum of its
    two halves. A left half's length is a multiple of 8, so every segment starts on a row of 8
    and only the last of a level (on the run's right edge) has a rest, or (the run itself)
    fewer than 8 elements. A complex run is its interleaved (real, imaginary) values, twice as
    long, each part summed in its own lanes (as `_pairwise`)."""
    parts = 2 if x.dtype.kind == "c" else 1
    if parts == 2:
        x, count = jnp.stack([x.real, x.imag], -1).reshape(-1), 2 * jnp.asarray(count)
    n = x.shape[0]
    count = jnp.asarray(count)
    # NB: rows of 8, padded past the run: reads there are never used
    x = jnp.concatenate([x, jnp.zeros(-n % _LANES + _BLOCK, x.dtype)])
    rows = x.reshape(-1, _LANES)
    starts, sizes = [jnp.zeros(1, count.dtype)], [count[None]]
    # NB: a segment of z elements splits into at most z / 2 + 8: below 128 within this many levels
    for _ in range(max(0, math.ceil(math.log2(n / (_BLOCK - 2 * _LANES)))) if n else 0):
        s, z = starts[-1], sizes[-1]
        h = jnp.where(z > _BLOCK, z // 2 - (z // 2) % _LANES, z)  # NB: a leaf's halves are never read
        starts.append(jnp.stack([s, s + h], 1).ravel())
        sizes.append(jnp.stack([h, z - h], 1).ravel())
    # NB: every level's leaf sums at once (one gather), then the levels combined from the deepest
    ends = np.cumsum([0] + [2**d for d in range(len(sizes))])  # NB: level d has 2**d segments
    own = _leaf_sums(x, rows, jnp.concatenate(starts), jnp.concatenate(sizes), ends[1:] - 1, parts)
    values = None
    for d in reversed(range(len(sizes))):
        leaf = own[ends[d] : ends[d + 1]]
        values = leaf if values is None else jnp.where((sizes[d] <= _BLOCK)[:, None], leaf,
                                                       values[0::2] + values[1::2])
    total = values[0, 0] if parts == 1 else lax.complex(values[0, 0], values[0, 1])
    return _start(start, total.dtype, ()) + total  # NB: 0.0 + -0.0 is 0.0, which XLA would fold away


def _leaf_sums(x, rows, starts, sizes, lasts, parts: int):
    """NumPy's pairwise sum of each segment ``x[start:start + size]`` of at most 128 elements,
    ``(segments, parts)``: 8 lanes down its rows, meeting per part; the rest of the segments at
    ``lasts`` (a level's last) then one by one (of fewer than 8 elements, all of them, from -0.0)."""
    full = sizes // _LANES
    block = rows[(starts // _LANES)[:, None] + jnp.arange(_BLOCK // _LANES)]  # (segments, 16, 8)
    lanes = block[:, 0]
    for t in range(1, _BLOCK // _LANES):
        lanes = jnp.where((t < full)[:, None], lanes + block[:, t], lanes)
    total = jnp.stack(_meet(lanes, parts), -1)
    last, size = total[lasts], sizes[lasts][:, None]
    last = jnp.where(size < _LANES, jnp.asarray(-0.0, x.dtype), last)
    rest = starts[lasts] + full[lasts] * _LANES
    for i in range(_LANES - 1):  # NB: a rest starts on a row of 8: its parts alternate from the first
        p = i % parts
        last = last.at[:, p].set(jnp.where(i < size[:, 0] % _LANES, last[:, p] + x[rest + i], last[:, p]))
    return total.at[lasts].set(last)
