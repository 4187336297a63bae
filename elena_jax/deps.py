"""The data-dependency table: which ops touch which region of which storage.

From the recorded ops come the dependence edges of the operation DAG: RAW (a
read after an overlapping write), WAR (a write after an overlapping read) and
WAW (two overlapping writes). Reads never order each other. Overlap is decided
exactly from the views (view.overlap), so writes to disjoint strided views of
one storage (``[:, 0::4]`` and ``[:, 1::4]``) are independent.

Invariant: for every pair of ops that must not be reordered there is an edge
from the earlier to the later one; there is no other edge.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .ir import Access, Op
from .storage import Storage
from .view import overlap


@dataclass(frozen=True)
class Edge:
    src: int  # index of the earlier op
    dst: int  # index of the later op
    kind: str  # "RAW", "WAR" or "WAW"
    storage: Storage


def table(ops: list[Op]) -> dict[Storage, list[tuple[int, str, Access]]]:
    """Per storage, the ordered accesses ``(op index, "R" or "W", access)``."""
    rows: dict[Storage, list[tuple[int, str, Access]]] = defaultdict(list)
    for i, op in enumerate(ops):
        for a in op.reads():
            rows[a.storage].append((i, "R", a))
        for a in op.outs:
            rows[a.storage].append((i, "W", a))
    return rows


_KIND = {("W", "R"): "RAW", ("R", "W"): "WAR", ("W", "W"): "WAW"}


def edges(ops: list[Op]) -> list[Edge]:
    """All dependence edges between ops, deduplicated, in program order."""
    found: dict[tuple[int, int, str, int], Edge] = {}
    for storage, rows in table(ops).items():
        for k, (j, mode_j, acc_j) in enumerate(rows):
            for i, mode_i, acc_i in rows[:k]:
                kind = _KIND.get((mode_i, mode_j))
                if kind and i != j and overlap(acc_i.view, acc_j.view):
                    found.setdefault((i, j, kind, storage.id), Edge(i, j, kind, storage))
    return sorted(found.values(), key=lambda e: (e.dst, e.src, e.kind))
