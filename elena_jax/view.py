"""Views: NumPy's array header as an immutable value, and its exact algebra.

A `View` is ``(shape, strides, offset)`` with strides and offset counted in
elements of one flat storage. Every array the user's code holds is a View of
some storage; every NumPy view operation is a pure function View -> View here.
Functions return ``None`` where NumPy would have to copy (a reshape of a
non-contiguous view), so callers decide view-or-copy exactly as NumPy does.

Invariant: a View is canonical -- dimensions of size 1 carry stride 0 and an
empty view has offset 0 and zero strides -- so two Views that address the
same elements in the same order compare equal and hash alike.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


@dataclass(frozen=True)
class View:
    shape: tuple[int, ...]
    strides: tuple[int, ...]  # in elements; may be negative or zero
    offset: int = 0  # in elements, from the start of the storage

    @staticmethod
    def make(shape: Sequence[int], strides: Sequence[int], offset: int = 0) -> View:
        """The canonical View for this header (see the module invariant)."""
        shape = tuple(int(s) for s in shape)
        if 0 in shape:
            return View(shape, (0,) * len(shape), 0)
        strides = tuple(0 if n == 1 else int(s) for n, s in zip(shape, strides))
        return View(shape, strides, int(offset))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def span(self) -> tuple[int, int]:
        """Lowest and one-past-highest element index the view touches."""
        if self.size == 0:
            return (0, 0)
        lo = self.offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s < 0)
        hi = self.offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s > 0)
        return (lo, hi + 1)


def contiguous(shape: Sequence[int], offset: int = 0) -> View:
    """The C-ordered View of a fresh array of this shape."""
    return _contiguous(tuple(shape), offset)


@functools.lru_cache(maxsize=4096)  # NB: asked of most views an operation reads or writes
def _contiguous(shape: tuple[int, ...], offset: int) -> View:
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return View.make(shape, tuple(reversed(strides)), offset)


def is_c_contiguous(v: View) -> bool:
    # NB: NumPy's C-contiguity flag ignores dimensions of size 1.
    return v.size == 0 or v == contiguous(v.shape, v.offset)


# --- basic indexing ---------------------------------------------------------


def normalize_key(key, ndim: int) -> tuple:
    """Expand ``...`` and pad with full slices; leaves ints, slices and None."""
    if not isinstance(key, tuple):
        key = (key,)
    n_ellipsis = sum(k is Ellipsis for k in key)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(k is not None and k is not Ellipsis for k in key)
    if consumed > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, "
            f"but {consumed} were indexed"
        )
    fill = (slice(None),) * (ndim - consumed)
    if n_ellipsis:
        i = next(i for i, k in enumerate(key) if k is Ellipsis)
        return key[:i] + fill + key[i + 1 :]
    return key + fill


def index(v: View, key) -> View:
    """``a[key]`` for a basic index (ints, slices, None, Ellipsis)."""
    key = normalize_key(key, v.ndim)
    shape, strides, offset, axis = [], [], v.offset, 0
    for k in key:
        if k is None:
            shape.append(1)
            strides.append(0)
            continue
        n, s = v.shape[axis], v.strides[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            shape.append(length)
            strides.append(s * step)
            if length:
                offset += start * s
        else:
            i = operator.index(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            offset += (i % n) * s
        axis += 1
    return View.make(shape, strides, offset)


# --- shape manipulation -----------------------------------------------------


def resolve_shape(shape, size: int) -> tuple[int, ...]:
    """A reshape target with its unknown dimension filled in, as NumPy resolves it: NumPy's
    reshape of a zero-stride probe of ``size`` elements (allocating nothing), its errors and
    messages its own ("cannot reshape array of size 30 into shape (5,7)")."""
    return np.broadcast_to(np.empty((), np.bool_), (size,)).reshape(shape).shape


def reshape(v: View, shape: Sequence[int]) -> View | None:
    """C-order reshape as a view, or None where NumPy must copy."""
    shape = resolve_shape(shape, v.size)
    if v.size == 0:
        return View.make(shape, (0,) * len(shape), 0)
    # NB: like NumPy, size-1 axes are dropped first; then every run of old axes
    # that maps onto a run of new axes must be evenly strided within itself.
    old = [(n, s) for n, s in zip(v.shape, v.strides) if n != 1]
    new_strides = [0] * len(shape)
    i = j = 0
    targets = [k for k, n in enumerate(shape) if n != 1]
    while i < len(old) or j < len(targets):
        i0, j0 = i, j
        p_old, p_new = old[i][0], shape[targets[j]]
        i, j = i + 1, j + 1
        while p_old != p_new:
            if p_old < p_new:
                p_old *= old[i][0]
                i += 1
            else:
                p_new *= shape[targets[j]]
                j += 1
        for k in range(i0, i - 1):
            if old[k][1] != old[k + 1][1] * old[k + 1][0]:
                return None
        acc = old[i - 1][1]
        for k in reversed(targets[j0:j]):
            new_strides[k] = acc
            acc *= shape[k]
    return View.make(shape, new_strides, v.offset)


def transpose(v: View, axes: Sequence[int] | None = None) -> View:
    if axes is None:
        axes = tuple(reversed(range(v.ndim)))
    if len(axes) != v.ndim:
        raise ValueError("axes don't match array")
    axes = tuple(normalize_axis(a, v.ndim) for a in axes)
    if len(set(axes)) != v.ndim:
        raise ValueError("repeated axis in transpose")
    return View.make([v.shape[a] for a in axes], [v.strides[a] for a in axes], v.offset)


def normalize_axis(axis: int, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def swapaxes(v: View, a: int, b: int) -> View:
    axes = list(range(v.ndim))
    a, b = normalize_axis(a, v.ndim), normalize_axis(b, v.ndim)
    axes[a], axes[b] = axes[b], axes[a]
    return transpose(v, axes)


def moveaxis(v: View, source, destination) -> View:
    src = [normalize_axis(a, v.ndim) for a in np.atleast_1d(source)]
    dst = [normalize_axis(a, v.ndim) for a in np.atleast_1d(destination)]
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [a for a in range(v.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(v, order)


def squeeze(v: View, axis=None) -> View:
    if axis is None:
        axes = {i for i, n in enumerate(v.shape) if n == 1}
    else:
        axes = {normalize_axis(a, v.ndim) for a in np.atleast_1d(axis)}
        if any(v.shape[a] != 1 for a in axes):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    keep = [i for i in range(v.ndim) if i not in axes]
    return View.make([v.shape[i] for i in keep], [v.strides[i] for i in keep], v.offset)


def expand_dims(v: View, axis) -> View:
    axes = tuple(np.atleast_1d(axis).tolist())
    ndim = v.ndim + len(axes)
    axes = {normalize_axis(a, ndim) for a in axes}
    if len(axes) != len(np.atleast_1d(axis)):
        raise ValueError("repeated axis")
    dims = iter(zip(v.shape, v.strides))
    pairs = [(1, 0) if i in axes else next(dims) for i in range(ndim)]
    return View.make([p[0] for p in pairs], [p[1] for p in pairs], v.offset)


def diagonal(v: View, offset: int = 0, axis1: int = 0, axis2: int = 1) -> View:
    if v.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1, a2 = normalize_axis(axis1, v.ndim), normalize_axis(axis2, v.ndim)
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    n1, n2 = v.shape[a1], v.shape[a2]
    s1, s2 = v.strides[a1], v.strides[a2]
    start = v.offset
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        start += offset * s2 if length else 0
    else:
        length = max(0, min(n1 + offset, n2))
        start += -offset * s1 if length else 0
    rest = [i for i in range(v.ndim) if i not in (a1, a2)]
    return View.make(
        [v.shape[i] for i in rest] + [length], [v.strides[i] for i in rest] + [s1 + s2], start
    )


def broadcast_to(v: View, shape: Sequence[int]) -> View:
    shape = tuple(int(s) for s in shape)
    if len(shape) < v.ndim:
        raise ValueError(
            "input operand has more dimensions than allowed by the axis remapping"
        )
    lead = len(shape) - v.ndim
    strides = [0] * lead
    for n_old, s_old, n_new in zip(v.shape, v.strides, shape[lead:]):
        if n_old == n_new:
            strides.append(s_old)
        elif n_old == 1:
            strides.append(0)
        else:
            raise ValueError(
                f"operands could not be broadcast together with remapped shapes "
                f"[original->remapped]: {v.shape} and requested shape {shape}"
            )
    return View.make(shape, strides, v.offset)


# --- memory order of new arrays -------------------------------------------------


def _c_ordered(v: View) -> bool:
    steps = [abs(s) for s in v.strides if s]
    return all(a >= b for a, b in zip(steps, steps[1:]))


def keep_order(shape: Sequence[int], views: Sequence[View]) -> tuple[int, ...]:
    """NumPy's memory order (axes, outermost first) of a new array of ``shape``
    computed elementwise from ``views`` (each broadcast to it): ``order='K'``.

    ``a.T + 1`` is laid out like ``a.T`` (Fortran order), and that decides
    whether a later ``ravel`` of it is a view or a copy. NumPy's iterator
    decides by comparing strides pairwise; rather than restate its rules, we
    ask it, with small probes that keep each operand's stride ranks and signs.
    """
    shape = tuple(shape)
    views = [broadcast_to(v, shape) for v in views]
    if 0 in shape or all(_c_ordered(v) for v in views):
        return tuple(range(len(shape)))
    small = tuple(min(n, 2) for n in shape)
    probes = []
    for v in views:
        ranks = sorted({abs(s) for s in v.strides if s})
        strides = [ranks.index(abs(s)) + 1 if s else 0 for s in v.strides]
        buffer = np.zeros(1 + sum((n - 1) * s for n, s in zip(small, strides)), np.uint8)
        x = np.lib.stride_tricks.as_strided(buffer, small, strides)
        probes.append(x[tuple(slice(None, None, -1 if s < 0 else 1) for s in v.strides)])
    it = np.nditer(probes + [None], ["zerosize_ok"], [["readonly"]] * len(probes) + [["writeonly", "allocate"]])
    out = it.operands[-1].strides
    return tuple(sorted(range(len(shape)), key=lambda i: -out[i]))


def summation(v: View, axes: Sequence[int], cast: tuple[bool, bool] = (False, False),
              bufsize: int = 8192, out: Sequence[int] | None = None,
              where: Sequence[int] | None = None) -> tuple | None:
    """How NumPy's iterator adds up a reduction of ``v`` over ``axes`` (its axes of more than
    one element, outermost in the iterator first), where ``cast`` says whether its input and
    its output go through a buffer of ``bufsize`` elements to be cast, and ``out`` gives the
    output's stride along each axis of ``v`` (0 along the reduced ones; by default NumPy's own
    output, allocated C-contiguous in the iterator's order of the kept axes), ``where`` a mask's,
    if any:

    - ``("pairwise", run, block, piece, every)`` when one of them is the iterator's
      innermost: each result's terms, in the order of ``run``, are cut into blocks of
      ``block`` terms (no more than the reduced axes inside the kept ones hold) and each block
      into pieces of ``piece``, the last ones shorter; the inner loop sums each piece pairwise
      into the result, in turn;
    - ``("sequential", run, every)`` when a kept axis is innermost: the inner loop is
      elementwise, so each result element adds its terms one after another, in the
      iterator's order (memory order, unless ``out`` or ``where`` are laid out otherwise);
    - None where ``v`` is empty.

    ``every``: the terms a result adds between two stores of its total in a cast output
    (written back from the buffer and read again), all of them where it is not cast (see
    `_stores`). Axes of equal strides (overlapping windows, ``sliding_window_view``) keep
    their C order, the later one inner, and so do axes along which no operand steps but by
    zero (broadcast ones, ``np.broadcast_to``; see `_iterator_order`).
    """
    if v.size == 0:
        return None
    big = [i for i in range(len(v.shape)) if v.shape[i] > 1]
    masks = (where,) if where is not None else ()
    if out is None:  # NB: NumPy allocates its own output after ordering the axes, C-contiguous in that order
        order, out, step = _iterator_order(big, v.strides, *masks), [0] * len(v.shape), 1
        for i in (i for i in order if i not in axes):
            out[i], step = step, step * v.shape[i]
    else:
        order = _iterator_order(big, v.strides, out, *masks)
    operands = (v.strides, out, *masks)
    run = tuple(i for i in reversed(order) if i in axes)
    if not run:  # NB: one term per result, which NumPy's loop still adds to (multiplies with) the identity
        return "pairwise", (), 1, 1, 1
    dims = _iterator_axes(v.shape, order, *operands)
    setup = _buffering(dims, (*cast, False)[: len(operands)], bufsize)
    if setup.reduce_mode:  # NB: the reduced axes within the outer one, whole
        block = piece = setup.core
    else:
        block = setup.size
        piece = min(bufsize // setup.core * setup.core, setup.size) if setup.cost > 1 else setup.size
    every = _stores(dims, setup, bufsize, piece) if cast[1] else math.prod(v.shape[i] for i in run)
    if dims[0][1 + _OUTPUT]:  # NB: a kept axis innermost
        return "sequential", run, every
    return "pairwise", run, block, piece, every


def _iterator_order(axes: list[int], *strides: Sequence[int]) -> list[int]:
    """``axes`` innermost first, as NumPy's iterator sorts them by the strides of its operands
    (nditer's npyiter_find_best_axis_ordering, re-derived): from C order, the last axis
    innermost, a stable insertion sort that moves an axis inside another only where every
    operand that steps along both steps less along it, each operand with a zero stride along
    either having no say (C order wins a conflict)."""
    order = list(reversed(axes))
    for k in range(1, len(order)):
        axis, place = order[k], k
        for j in range(k - 1, -1, -1):
            say = [abs(s[order[j]]) > abs(s[axis]) for s in strides if s[axis] and s[order[j]]]
            if say:
                if not all(say):
                    break
                place = j
        order.insert(place, order.pop(k))
    return order


def _iterator_axes(shape: Sequence[int], order: list[int], *operands: Sequence[int]) -> list[list[int]]:
    """The axes NumPy's iterator takes a reduction over, innermost first, as [length, input
    stride, output stride, ...] (the ``operands``' strides along each axis of ``shape``): in
    the iterator's ``order``, neighbours joined where the strides of all step over the whole
    of the inner one."""
    dims: list[list[int]] = []
    for i in order:
        n, strides = shape[i], tuple(s[i] for s in operands)
        if dims and all(s * dims[-1][0] == t for s, t in zip(dims[-1][1:], strides)):
            dims[-1][0] *= n
        else:
            dims.append([n, *strides])
    return dims


_OUTPUT = 1  # NB: the operands of a reduction's iterator: its input, its output, a where= mask


class _Buffering(NamedTuple):
    """NumPy's buffering of a reduction (`_buffering`): its outer axis, the elements within it
    (the core) and up to and along it, the cost of that choice, and its reduce axis (0: none)."""

    outer: int
    core: int
    size: int
    cost: int
    flip: int

    @property
    def reduce_mode(self) -> bool:
        """Whether the outer axis is the reduce axis: the iterator's reduce mode."""
        return bool(self.flip) and self.outer == self.flip


def _buffering(dims: list[list[int]], cast: tuple[bool, ...], bufsize: int) -> _Buffering:
    """NumPy 2's choice of buffering for a reduction over the iterator axes ``dims`` (see
    `_iterator_axes`; nditer's npyiter_find_buffering_setup, re-derived): going outwards, the
    cost of each candidate outer axis is (1 + operands buffered) / elements per buffer, an
    operand buffered where it is cast or once its strides stop joining; the search ends at the
    buffer's size and past the first axis where the output's stride turns from zero to not or
    back (the reduce axis)."""
    cost = 1 + sum(cast)
    joined = [1] * len(cast)  # NB: per operand (input, output, mask), the axes its strides join up to
    flip, size = 0, dims[0][0]
    best = (0, 1, size, cost)
    for d in range(1, len(dims)):
        if flip or size >= bufsize and cost > 1:
            break
        (n0, *before), (n1, *now) = dims[d - 1], dims[d]
        for op in range(len(cast)):
            if joined[op] == d:
                if before[op] * n0 == now[op]:
                    joined[op] += 1
                    continue
                cost += not cast[op]
            if op == _OUTPUT and 0 in (before[op], now[op]):
                flip = d
        core, size = size, size * n1
        fill = bufsize if size > bufsize and cost > 1 else size
        if cost * best[2] <= best[3] * fill:
            best = (d, core, size, cost)
    return _Buffering(*best, flip)


def _stores(dims: list[list[int]], setup: _Buffering, bufsize: int, piece: int) -> int:
    """The terms a result adds between two stores of its total in a cast output. NumPy writes
    the output's buffer back after each fill and reads it again before the next, unless in
    reduce mode the next fill starts at the same place of the output, which it then takes from
    the buffer as it is (at full precision): along a reduced outer axis, and past the outer
    axis while the axes beyond are reduced, where one fill holds the whole of a kept one.
    Probed on NumPy 2.4: the float64 column sums of 5 x 8191 into an int32 output are cut to
    integers once, of 5 x 8192 after every row; a sum over axes 0 and 2 of 5 x 2048 x 4 once,
    of 5 x 3000 x 4 after every 4 terms."""
    reduced = [not d[1 + _OUTPUT] for d in dims]
    if not setup.reduce_mode:
        return 1 if not reduced[0] else piece  # NB: a fill holds a term of each result, or a piece of one
    best = setup.outer
    if not reduced[best] and setup.size > bufsize:
        return setup.core  # NB: a kept outer axis the buffer holds part of: each fill at another place
    n = setup.core if reduced[0] else 1  # NB: the core: reduced axes (pairwise) or kept ones
    for d in range(best if reduced[best] else best + 1, len(dims)):
        if not reduced[d]:
            break
        n *= dims[d][0]
    return n


# --- element sets -------------------------------------------------------------


def flat_indices(v: View) -> np.ndarray:
    """The storage index of every element of the view, in the view's shape."""
    if v.size == 0:
        return np.zeros(v.shape, np.int64)
    lo, hi = v.span()
    base = np.arange(lo, hi, dtype=np.int64)
    item = base.itemsize
    return np.lib.stride_tricks.as_strided(
        base[v.offset - lo :], v.shape, [s * item for s in v.strides]
    ).copy()


def _probe(v: View, buffer: np.ndarray) -> np.ndarray:
    return np.lib.stride_tricks.as_strided(buffer[v.offset :], v.shape, v.strides)


def overlap(a: View, b: View) -> bool:
    """Whether two views of one storage share an element (exact, as NumPy)."""
    if a.size == 0 or b.size == 0:
        return False
    (alo, ahi), (blo, bhi) = a.span(), b.span()
    if ahi <= blo or bhi <= alo:
        return False
    if a == b:
        return True
    # NB: np.shares_memory solves the bounded Diophantine problem exactly; we
    # hand it one-byte-per-element probes of an untouched (lazily paged) buffer.
    buffer = np.empty(max(ahi, bhi), np.uint8)
    return bool(np.shares_memory(_probe(a, buffer), _probe(b, buffer)))


def covers(a: View, b: View) -> bool:
    """Whether every element of ``b`` is also an element of ``a``."""
    if b.size == 0 or a == b:
        return True
    if is_c_contiguous(a):  # a dense range: containment of spans decides
        (alo, ahi), (blo, bhi) = a.span(), b.span()
        return alo <= blo and bhi <= ahi
    if a.size < b.size and distinct(b):
        return False
    return bool(np.isin(flat_indices(b), flat_indices(a)).all())


def same_elements(a: View, b: View) -> bool:
    """Whether two views address the same elements in the same order (shapes may differ by unit axes)."""
    return a == b or squeezed(a) == squeezed(b)


def lane_view(views: list[View]) -> View | None:
    """The view W with ``index(W, (..., j)) == views[j]`` for every j, if there is one."""
    first = views[0]
    step = views[1].offset - first.offset if len(views) > 1 else 1
    w = View.make(first.shape + (len(views),), first.strides + (step,), first.offset)
    if all(same_elements(index(w, (..., j)), v) and v.shape == first.shape for j, v in enumerate(views)):
        return w
    return None


def outer_lanes(w: View) -> bool:
    """Whether the lanes of ``w`` (its last axis) lie apart in memory, each a block of its own (a
    loop's rows ``x[i]`` as the lanes of ``x.T``): the lane axis has the largest stride."""
    others = [abs(t) for m, t in zip(w.shape[:-1], w.strides[:-1]) if m > 1]
    return bool(others) and w.shape[-1] > 1 and abs(w.strides[-1]) > max(others)


def lanes_first(v: View, shape: tuple[int, ...]) -> View | None:
    """For ``v`` over a C-ordered storage of ``shape``, the view of the same elements in a
    C-ordered storage of ``shape`` with its last axis moved first (k lanes of n values each: the
    element at s * k + j moves to j * n + s); None if no one view addresses them there (an axis
    that steps across lanes and values at once)."""
    k, n = shape[-1], math.prod(shape[:-1])
    lane, value = v.offset % k, v.offset // k
    strides, low, high = [], lane, lane
    for m, t in zip(v.shape, v.strides):
        if m == 1 or t == 0:
            strides.append(0)
        elif t % k == 0:
            strides.append(t // k)
        elif abs(t) < k:  # NB: along the lanes: every element must stay in its value's k lanes
            strides.append(t * n)
            low, high = low + min(0, (m - 1) * t), high + max(0, (m - 1) * t)
        else:
            return None
    if low < 0 or high >= k:
        return None
    return View.make(v.shape, strides, lane * n + value)


@functools.lru_cache(maxsize=4096)
def squeezed(v: View) -> View:
    """``squeeze(v)``, remembered: the passes compare views by their elements (same_elements)
    again and again, and write coalescing keys a run's writes by them."""
    return squeeze(v)


def dense(v: View) -> bool:
    """Whether the view's elements are exactly a contiguous range of the storage, each once, in
    any order of axes and directions (a transpose or reversal of a C-contiguous block)."""
    if v.size == 0:
        return True
    expected = 1
    for s, n in sorted((abs(s), n) for n, s in zip(v.shape, v.strides) if n > 1):
        if s != expected:
            return False
        expected *= n
    return True


def distinct(v: View) -> bool:
    """Whether the view's elements lie at distinct places of the storage, as its strides prove: in
    order of size, each stride exceeds the span of the axes of smaller strides. Sufficient, not
    necessary: self-overlapping ``as_strided`` and ``sliding_window_view`` results are refused, and
    so would be a rare view whose axes interleave without meeting."""
    span = 0
    for s, n in sorted((abs(s), n) for n, s in zip(v.shape, v.strides) if n > 1):
        if s <= span:
            return False
        span += s * (n - 1)
    return True


# --- boxes: views as strided slices of a reshaped storage -----------------------


@dataclass(frozen=True)
class Box:
    """A view as a strided slice of a window of the storage, reshaped to ``dims``.

    Reading the view is: take the flat window ``[window, window + prod(dims))``;
    reshape it to ``dims``; slice it with ``starts``/``limits``/``steps``; drop
    the unit axes; permute to view order with ``perm``; reverse the
    ``flipped`` view axes; reshape and broadcast to the view's shape. Writing
    applies the inverse, in reverse order.
    """

    window: int
    dims: tuple[int, ...]
    starts: tuple[int, ...]
    limits: tuple[int, ...]
    steps: tuple[int, ...]
    kept: tuple[int, ...]  # the view axes that live on a storage axis, in storage-axis order
    perm: tuple[int, ...]  # position in `kept` of each of those axes, in view order
    flipped: tuple[int, ...]  # view axes read in reverse
    broadcast: tuple[int, ...]  # view axes with stride 0 and size > 1

    @property
    def unit_steps(self) -> bool:
        return all(s == 1 for s in self.steps)

    @property
    def length(self) -> int:
        return math.prod(self.dims)


@functools.lru_cache(maxsize=4096)
def box(v: View, size: int, hints: tuple[int, ...] = ()) -> Box | None:
    """Express ``v`` over a storage of ``size`` elements as a Box, or None.

    ``hints`` are extra strides worth trying as storage axes: the storage's
    own row-major strides, so every basic view of it has a box.
    """
    header = _header(v)
    if header is None:
        return None
    axes, strides = header[0], header[2]
    best = None
    candidates = sorted(({strides[i] for i in axes} | set(hints)) - {0, 1}, reverse=True)
    # Try the richest factorizations first; prefer unit steps, then no window.
    for r in range(len(candidates), -1, -1):
        for chain in itertools.combinations(candidates, r):
            found = _fit(chain + (1,), *header, size)
            if found is not None and (best is None or found[-1] < best[-1]):
                best = found
        if best is not None and best[-1] == (0, False):
            break
    return None if best is None else _boxed(v, best)


@functools.lru_cache(maxsize=4096)
def own_box(v: View, shape: tuple[int, ...]) -> Box | None:
    """``v`` as a Box in the dims of its storage of ``shape`` (its unit axes dropped), or None.

    `box` prefers unit steps to the storage's own dims: the odd rows of a (999, 999) storage,
    ``[1::2, :]``, are the (499, 2, 999) reshape of a flat window of it, not rows in steps of 2.
    """
    header = _header(v)
    if header is None:
        return None
    chain = tuple(s for s in contiguous(shape).strides if s > 1) + (1,)
    found = _fit(chain, *header, math.prod(shape))
    return None if found is None else _boxed(v, found)


def _header(v: View) -> tuple | None:
    """``v``'s axes as `_fit` takes them (axes by falling stride, shape, strides made positive,
    lowest offset, end), or None where the view is empty or overlaps itself."""
    if v.size == 0:
        return None
    offset = v.offset + sum((n - 1) * s for n, s in zip(v.shape, v.strides) if s < 0)
    strides = [abs(s) for s in v.strides]
    axes = sorted((i for i, s in enumerate(strides) if s > 0), key=lambda i: -strides[i])
    if len({strides[i] for i in axes}) != len(axes):
        return None  # two axes with one stride: the view overlaps itself
    end = offset + sum((v.shape[i] - 1) * strides[i] for i in axes) + 1
    return axes, v.shape, strides, offset, end


def _boxed(v: View, found: tuple) -> Box:
    """The Box of ``v`` from what `_fit` found."""
    window, dims, starts, limits, steps, owner, _ = found
    kept = tuple(i for _, i in sorted(owner.items()))
    order = {ax: k for k, ax in enumerate(kept)}
    perm = tuple(order[i] for i in range(v.ndim) if i in order)
    flipped = tuple(i for i, s in enumerate(v.strides) if s < 0)
    broadcast = tuple(i for i, (n, s) in enumerate(zip(v.shape, v.strides)) if s == 0 and n > 1)
    return Box(window, dims, starts, limits, steps, kept, perm, flipped, broadcast)


def diagonal_of_rows(v: View, shape: tuple[int, ...]) -> tuple[int, int, int] | None:
    """For a one-dimensional view whose elements each lie one row further down a storage of
    ``shape`` (rows of its last axis) and ``step`` elements across, never leaving a row -- a
    diagonal (np.fill_diagonal's view, stride c + 1 for rows of c) or an anti-diagonal
    (c - 1) -- ``(row, column, step)`` of its first element in memory order (the view's last
    when its stride is negative); else None."""
    if v.ndim != 1 or len(shape) < 2 or v.shape[0] < 2:
        return None
    c, (n,), (s,) = shape[-1], v.shape, v.strides
    first, s = (v.offset, s) if s > 0 else (v.offset + (n - 1) * s, -s)
    row, column = divmod(first, c)
    step = s - c
    if step == 0 or not -c < step < c or not 0 <= column + (n - 1) * step < c:
        return None
    return row, column, step


def placed(v: View, shape: tuple[int, ...]) -> bool:
    """Whether lower/memory.write lays a value into ``v`` of a storage of ``shape`` by one select
    over the whole storage (its ``place``), which XLA fuses into the storage's readers, rather than
    by an update slice or a scatter of the storage in memory: a box with steps, in dims other than
    the storage's, or of at least half of the storage (a whole view too)."""
    size = math.prod(shape)
    b = box(v, size, contiguous(shape).strides)
    if b is None or b.broadcast:
        return False
    return not (b.unit_steps and b.length == size and b.dims == tuple(shape)) or 2 * v.size >= size


def _fit(chain, axes, shape, strides, offset, end, size):
    """Map each view axis onto one axis of a window reshaped by ``chain``."""
    if any(a % b for a, b in zip(chain, chain[1:])):
        return None
    top = chain[0]
    if size % top == 0:  # the whole storage reshapes; no window needed
        window, rows = 0, size // top
    else:
        window = offset - offset % top
        rows = -(-(end - window) // top)
        if window + rows * top > size:
            window = size - rows * top
        if window < 0 or window > offset:
            return None
    local = offset - window
    dims = (rows,) + tuple(a // b for a, b in zip(chain, chain[1:]))
    starts = [(local // c) % d for c, d in zip(chain, dims)]
    if local // top >= rows:
        return None
    limits = [s + 1 for s in starts]
    steps = [1] * len(dims)
    owner: dict[int, int] = {}
    n_strided = 0
    for i in axes:
        j = next(
            (j for j, c in enumerate(chain) if c <= strides[i] and strides[i] % c == 0 and j not in owner),
            None,
        )
        if j is None:
            return None
        step = strides[i] // chain[j]
        last = starts[j] + (shape[i] - 1) * step
        if last >= dims[j]:
            return None
        owner[j] = i
        limits[j], steps[j] = last + 1, step
        n_strided += step != 1
    whole = window == 0 and rows * top == size
    return window, dims, tuple(starts), tuple(limits), tuple(steps), owner, (n_strided, not whole)
