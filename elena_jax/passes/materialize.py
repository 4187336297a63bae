"""Chain materialization: a value at the end of a long chain of ops is computed once.

XLA:CPU fuses a cheap elementwise value into every fusion that reads it and
computes it there again: it keeps in memory only what it cannot fuse (an
update slice of a buffer, an expensive op read twice). A loop's state handed
from step to step as values -- which forwarding and coalescing do, as they
take the written value instead of reading the storage back -- is then
recomputed from the loop's start in each step's fusions: the compiled program
is quadratic in the steps (cart-pole, 100 Euler steps: 109,000 HLO lines and
15-30 s of XLA compile, against 21,500 lines and 3 s unoptimized, where every
``state[k] += ...`` is an update slice of the state in memory).

This pass, the pipeline's last, measures each value's depth: the ops on the
longest path to it from a value in memory. Arguments and materialized values
are at depth 0; an op's results lie one op deeper than the deepest value it
reads. A partial write that the lowering does as an update slice (or a
scatter) puts the storage in memory (depth 0), as the unoptimized program does;
one it does as a select over the whole storage (view.placed: at least half of
it, or with steps) continues the chain of the storage's value and the written
one, as XLA fuses that select into the storage's readers. A value DEPTH ops deep that two or
more ops (or the caller) read is materialized in place: a ``materialize`` op
follows its writer, and the lowering computes it through an operation XLA
does not duplicate (lower/opaque.computed_once).

Invariant: every value read twice lies less than DEPTH ops from a value in
memory, so the program XLA compiles is linear in a loop's steps; values are
unchanged (``materialize`` is the identity).
"""

from __future__ import annotations

from ..ir import Access, Op, Program
from ..view import contiguous, placed
from ._rewrite import copy_program, final_reads

#: Deepest a value read twice may lie. The benchmark cases' deepest value is 12 ops deep (standardize's
#: division): they stay as they are. Cart-pole at 100 steps: 4.0 s of XLA compile at 8, 3.9 at 16, 5.1 at 32.
DEPTH = 16


def in_memory(a: Access) -> bool:
    """Whether the write ``a`` leaves its storage in memory: an update slice or a scatter, not a
    whole value nor a select over the whole storage (see the module's docstring)."""
    return a.view != contiguous(a.storage.shape) and not placed(a.view, a.storage.shape)


def readers(ops: list[Op], finals: list[Access]) -> list[int]:
    """Per op, how many later ops read the storages it wrote as values (not `in_memory`), until
    another op writes them; the caller counts as one (``finals``: what it reads after the last
    op). NB: values in memory (depth 0) are never materialized: their readers do not matter."""
    count = [0] * len(ops)
    writer: dict[int, int] = {}  # storage id -> the op that last wrote it as a value
    for j, op in enumerate(ops):
        for i in {writer[a.storage.id] for a in op.reads() if a.storage.id in writer}:
            count[i] += 1
        for a in op.outs:
            if in_memory(a):
                writer.pop(a.storage.id, None)
            else:
                writer[a.storage.id] = j
    for i in {writer[a.storage.id] for a in finals if a.storage.id in writer}:
        count[i] += 1
    return count


def written_depth(a: Access, d: int, depth: dict[int, int]) -> int:
    """The depth of ``a``'s storage after an op ``d`` deep writes ``a`` (``depth``: before)."""
    if a.view == contiguous(a.storage.shape):
        return d
    return 0 if in_memory(a) else max(d, depth.get(a.storage.id, 0))


def materialize_chains(program: Program) -> Program:
    ops = program.ops
    shared = [n >= 2 for n in readers(ops, final_reads(program))]
    depth: dict[int, int] = {}  # storage id -> depth of its value
    out: list[Op] = []
    for j, op in enumerate(ops):
        d = 0 if op.prim == "arg" else 1 + max((depth.get(a.storage.id, 0) for a in op.reads()), default=0)
        out.append(op)
        for a in op.outs:
            depth[a.storage.id] = written_depth(a, d, depth)
            if depth[a.storage.id] >= DEPTH and shared[j]:
                whole = Access.whole(a.storage)
                out.append(Op("materialize", (whole,), (whole,), {}, op.where))
                depth[a.storage.id] = 0
    if len(out) == len(ops):
        return program
    new = copy_program(program)
    new.ops = out
    return new
