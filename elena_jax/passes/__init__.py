"""Optimization passes on the recorded program, in pipeline order.

Each pass is a pure function Program -> Program that preserves NumPy's
results (tests/test_passes.py lowers the program before and after each pass
and compares). `optimize` applies `PIPELINE` in order and records which
passes changed the program, for `explain`.
"""

from __future__ import annotations

from ..ir import Program
from .coalesce import coalesce_writes
from .dead import eliminate_dead_writes
from .forward import forward_reads
from .lanes import split_lanes
from .materialize import materialize_chains
from .merge import merge_assembles
from .reassociate import reassociate_chains
from .reciprocal import exact_reciprocals
from .reductions import join_reductions
from .rename import rename_whole_writes
from .vectorize import vectorize_lanes

PIPELINE = [rename_whole_writes, exact_reciprocals, split_lanes, coalesce_writes, join_reductions, forward_reads,
            merge_assembles, eliminate_dead_writes, vectorize_lanes, eliminate_dead_writes, reassociate_chains,
            materialize_chains]


def optimize(program: Program) -> Program:
    fired = []
    for p in PIPELINE:
        new = p(program)
        if new is not program:
            fired.append(p.__name__)
        program = new
    program.fired = fired
    return program


__all__ = [
    "PIPELINE", "optimize", "coalesce_writes", "eliminate_dead_writes", "exact_reciprocals", "forward_reads",
    "join_reductions", "materialize_chains", "merge_assembles", "reassociate_chains", "rename_whole_writes",
    "split_lanes", "vectorize_lanes",
]
