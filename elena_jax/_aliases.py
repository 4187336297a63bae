"""Arguments that share memory: one storage for all of them, as NumPy sees it.

NumPy arguments whose memory overlaps (``f(a, a)``, ``f(x[:, :2], x[:, 1:])``,
``f(x, x.T)``) are one buffer to NumPy: a write through one is seen by reads
through the others. elena_jax traces such a group of arguments as views of one
storage -- the bytes from the group's lowest to its highest address, each
argument addressed by its byte offset and strides relative to that start --
and writes the storage's final value back through the group's writable
members.

This module is host-side NumPy only: which arguments alias (``groups``), how
they lie in their common memory (``layout``), that memory as an array
(``memory``) and copies of argument trees that keep the sharing (``copy_tree``,
for the NumPy oracle of the differential tests).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from .view import View, contiguous


def groups(arrays: list[np.ndarray], writeable_only: bool = True) -> list[list[int]]:
    """The indices of arrays that share memory, by connected groups of two or more.

    With ``writeable_only``, groups without a writable member are left out
    (nothing can write their memory, so separate copies read the same values),
    and so are pairs of read-only arrays (a read-only array joins a group
    through a writable array it overlaps).
    """
    pairs = [(i, j) for i, j in _candidates(arrays)
             if not writeable_only or arrays[i].flags.writeable or arrays[j].flags.writeable]
    if not pairs:
        return []
    parent = list(range(len(arrays)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs:
        a, b = arrays[i], arrays[j]
        # NB: may_share_memory compares bounds only (cheap); shares_memory is exact.
        if a.size and b.size and (a is b or np.may_share_memory(a, b) and np.shares_memory(a, b)):
            parent[root(i)] = root(j)
    found: dict[int, list[int]] = {}
    for i in range(len(arrays)):
        found.setdefault(root(i), []).append(i)
    return [g for g in found.values() if len(g) > 1
            and (not writeable_only or any(arrays[i].flags.writeable for i in g))]


def _candidates(arrays: list[np.ndarray]) -> list[tuple[int, int]]:
    """The pairs of arrays that may share memory, found in linear time for the usual case.

    NumPy collapses a view's ``base`` to the array owning the data, and two
    arrays owning their data are distinct allocations; so arrays whose owners
    differ cannot share memory. Arrays over memory of some other object (a
    memoryview, an ``as_strided`` result, a memmap) are paired with all.
    """
    owners: dict[int, list[int]] = {}
    other = []
    for i, a in enumerate(arrays):
        owner = a if a.base is None else a.base
        if isinstance(owner, np.ndarray) and owner.flags.owndata:
            owners.setdefault(id(owner), []).append(i)
        else:
            other.append(i)
    pairs = [(i, j) for same in owners.values() if len(same) > 1 for k, j in enumerate(same) for i in same[:k]]
    pairs += [(i, j) for j in other for i in range(len(arrays)) if i != j and (i not in other or i < j)]
    return pairs


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _byte_span(a: np.ndarray) -> tuple[int, int]:
    """Lowest and one-past-highest byte address of a non-empty array."""
    lo = hi = _address(a)
    for n, s in zip(a.shape, a.strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi + a.itemsize


def bounds(arrays: list[np.ndarray]) -> tuple[int, int]:
    """The byte range spanned by all of the (non-empty) arrays."""
    spans = [_byte_span(a) for a in arrays]
    return min(lo for lo, _ in spans), max(hi for _, hi in spans)


@dataclass(frozen=True)
class Layout:
    """A group as views of one storage of ``shape``: its members' memory from byte ``lo``.

    Members that are all the same C-contiguous array (``f(a, a)``, or equal
    views) are the storage themselves (``lo`` is None). Other layouts are
    passed as their memory from lowest to highest address, gaps included, so
    that their Views have NumPy's strides (``a.T.ravel()`` is a copy).
    """

    dtype: np.dtype
    shape: tuple[int, ...]
    views: tuple[View, ...]  # one per member, in elements of the storage
    lo: int | None

    def value(self, arrays: list[np.ndarray]) -> np.ndarray:
        """The storage's input for these members (no copy)."""
        if self.lo is None:
            return arrays[0]
        return memory(arrays, self.lo, self.lo + self.shape[0] * self.dtype.itemsize).view(self.dtype)


def layout(arrays: list[np.ndarray]) -> Layout | str:
    """How the group lies in its memory, or why it cannot be views of one storage."""
    dtype = arrays[0].dtype
    if any(a.dtype != dtype for a in arrays):
        return "with different dtypes (" + ", ".join(sorted({str(a.dtype) for a in arrays})) + ")"
    first = arrays[0]
    if first.flags.c_contiguous and all(a is first or a.shape == first.shape and a.strides == first.strides
                                        and _address(a) == _address(first) for a in arrays):
        return Layout(dtype, first.shape, (contiguous(first.shape),) * len(arrays), None)
    item = dtype.itemsize
    lo, hi = bounds(arrays)
    views = []
    for a in arrays:
        offset = _address(a) - lo
        if offset % item or any(s % item for s in a.strides):
            return f"at byte offsets or strides that are not multiples of the itemsize ({item})"
        views.append(View.make(a.shape, [s // item for s in a.strides], offset // item))
    return Layout(dtype, ((hi - lo) // item,), tuple(views), lo)


class _Memory:
    """An ``__array_interface__`` over raw bytes, keeping ``owner`` (their array) alive."""

    def __init__(self, lo: int, nbytes: int, owner: np.ndarray) -> None:
        self.__array_interface__ = {"data": (lo, True), "shape": (nbytes,), "typestr": "|u1", "version": 3}
        self.owner = owner


def memory(arrays: list[np.ndarray], lo: int, hi: int) -> np.ndarray:
    """The bytes ``lo:hi`` of the arrays' common buffer, as a read-only uint8 array (no copy).

    The range must lie in one allocation, which holds for arrays that share
    memory: it is between addresses of that allocation.
    """
    return np.asarray(_Memory(lo, hi - lo, arrays[0]))


def copy_tree(tree: Any) -> Any:
    """``copy.deepcopy`` of ``tree`` whose NumPy leaves share memory as the originals do.

    Each group of leaves sharing memory, and each leaf that is not
    C-contiguous, is copied as one block of bytes and every leaf rebuilt over
    it with its own byte offset, strides, dtype and writeable flag; everything
    else is deep-copied as usual.
    """
    arrays = [x for x in jax.tree_util.tree_leaves(tree) if isinstance(x, np.ndarray)]
    memo: dict[int, Any] = {}
    found = groups(arrays, writeable_only=False)
    grouped = {i for g in found for i in g}
    # NB: a strided or reversed array alone keeps its strides too (deepcopy would compact it)
    found += [[i] for i, a in enumerate(arrays) if i not in grouped and a.size and not a.flags.c_contiguous]
    for g in found:
        members = [arrays[i] for i in g]
        lo, hi = bounds(members)
        block = memory(members, lo, hi).copy()
        for a in members:
            b = np.ndarray(a.shape, a.dtype, buffer=block, offset=_address(a) - lo, strides=a.strides)
            b.flags.writeable = a.flags.writeable
            memo[id(a)] = b
    return copy.deepcopy(tree, memo)
