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
follows its writer, and the lowering computes it through an operation XLA:CPU
does not duplicate (lower/opaque.computed_once; XLA:GPU did not duplicate a
30-step pendulum's states without one, where it is the identity).

Except where XLA computes it once anyway: a value that only cheap elementwise
ops read (`aligned`: no exp, sin, division, ... where XLA ends a fusion), all
through one view, whose values are read only so in turn up to the caller or
to values in memory (`readers`' ``fused``), is computed once per element in
the one loop XLA fuses them into. Such a value is materialized
only FUSED_DEPTH ops deep, where the fused loop itself grows slow.
(Particles reflected at the walls through boolean masks, 500,000 x 2, four
steps: materialized at depth 16, XLA's compiled program accessed 104 MB
against 48 and ran 16 ms against 6; forty steps, 82 ms materialized at 16,
37 at 64, 136 never; session 27.)

Invariant: every value read twice lies less than DEPTH ops (FUSED_DEPTH where
fused) from a value in memory, so the program XLA compiles is linear in a
loop's steps; values are unchanged (``materialize`` is the identity).
"""

from __future__ import annotations

from ..ir import Access, Op, Program
from ..view import contiguous, placed
from . import vectorize
from ._rewrite import copy_program, final_reads
from .lanes import placed_lanes

#: Deepest a value read twice may lie. The benchmark cases' deepest value is 12 ops deep (standardize's
#: division): they stay as they are. Cart-pole at 100 steps: 4.0 s of XLA compile at 8, 3.9 at 16, 5.1 at 32.
DEPTH = 16
#: Deepest a fused value read twice may lie. 20,000 reflected particles, 20 steps: 0.74 ms at 32,
#: 0.89 at 48, 0.79 at 64, 2.3 at 96, 2.9 never (0.9 at 16).
FUSED_DEPTH = 64
#: Ufuncs XLA fuses into one loop with their readers, computing each element once. NB: not an expensive
#: one (exp, sin, tanh, a division: merge.EXPENSIVE): XLA ends a fusion there and computes the cheap
#: values it reads again in each fusion (``x, y = x + 0.01 * sin(y), y - 0.01 * exp(-x * x)``, 64 steps
#: of 300,000: 1.1 s materialized at FUSED_DEPTH, 0.38 at DEPTH; a review's find, session 27).
CHEAP = vectorize.CHEAP | {"less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "logical_and",
                           "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
                           "invert", "copysign", "sign", "square"}


def in_memory(a: Access) -> bool:
    """Whether the write ``a`` leaves its storage in memory: an update slice or a scatter, not a
    whole value nor a select over the whole storage (see the module's docstring)."""
    return a.view != contiguous(a.storage.shape) and not placed(a.view, a.storage.shape)


def readers(ops: list[Op], finals: list[Access]) -> tuple[list[int], list[bool]]:
    """Per op, how many later ops read the storages it wrote as values (not `in_memory`), until
    another op writes them, the caller counting as one (``finals``: what it reads after the last
    op); and whether those values are fused: read by ops only, all `aligned` through one view,
    whose own values are fused in turn. NB: values in memory (depth 0) are never materialized:
    their readers do not matter."""
    reads: list[list[tuple[int, Access]]] = [[] for _ in ops]
    writer: dict[int, int] = {}  # storage id -> the op that last wrote it as a value
    for j, op in enumerate(ops):
        for a in op.reads():
            if a.storage.id in writer:
                reads[writer[a.storage.id]].append((j, a))
        for a in op.outs:
            if in_memory(a):
                writer.pop(a.storage.id, None)
            else:
                writer[a.storage.id] = j
    called = {writer[a.storage.id] for a in finals if a.storage.id in writer}
    fused = [False] * len(ops)  # op j's values are read only by one fused loop of elementwise ops
    for j in reversed(range(len(ops))):
        views = {(a.storage.id, a.view) for _, a in reads[j]}
        fused[j] = (not (j in called and reads[j]) and len(views) <= 1
                    and all(aligned(ops[k], a) and fused[k] for k, a in reads[j]))
    count = [len({k for k, _ in reads[i]}) + (i in called) for i in range(len(ops))]
    return count, fused


def aligned(op: Op, a: Access) -> bool:
    """Whether ``op`` reads ``a`` elementwise (each element of its result from the element at the
    same place) by a CHEAP computation, into values it does not write to memory. So does an
    assemble of interleaved lanes lowered as a select (each element from its lane's value in its
    row). NB: an assemble of rows (a recurrence's ``y[t] = a * y[t - 1] + ...``) counted so too
    gave the same bytes accessed and timings within noise, 50 rows 15.5 against 12.2 ms once."""
    if any(in_memory(o) for o in op.outs):
        return False
    if op.prim == "assemble":
        p = op.params  # NB: stacked off the CPU only is a select on the CPU, where this counts
        return placed_lanes(op) is not None and not (p.get("slices") or p.get("stack") is True or p.get("materialize"))
    cheap = op.prim in ("copy", "select", "where") or op.prim == "ufunc" and op.params["name"] in CHEAP
    return cheap and a.view.shape == op.outs[0].view.shape


def written_depth(a: Access, d: int, depth: dict[int, int]) -> int:
    """The depth of ``a``'s storage after an op ``d`` deep writes ``a`` (``depth``: before)."""
    if a.view == contiguous(a.storage.shape):
        return d
    return 0 if in_memory(a) else max(d, depth.get(a.storage.id, 0))


def materialize_chains(program: Program) -> Program:
    ops = program.ops
    count, fused = readers(ops, final_reads(program))
    depth: dict[int, int] = {}  # storage id -> depth of its value
    out: list[Op] = []
    for j, op in enumerate(ops):
        d = 0 if op.prim == "arg" else 1 + max((depth.get(a.storage.id, 0) for a in op.reads()), default=0)
        out.append(op)
        for a in op.outs:
            depth[a.storage.id] = written_depth(a, d, depth)
            if count[j] >= 2 and depth[a.storage.id] >= (FUSED_DEPTH if fused[j] else DEPTH):
                whole = Access.whole(a.storage)
                out.append(Op("materialize", (whole,), (whole,), {}, op.where))
                depth[a.storage.id] = 0
    if len(out) == len(ops):
        return program
    new = copy_program(program)
    new.ops = out
    return new
