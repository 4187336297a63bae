"""Optimization passes on the recorded program, in pipeline order.

Each pass is a pure function Program -> Program that preserves NumPy's
results; `optimize` applies them in the order of `PIPELINE`.
"""

from __future__ import annotations

from ..ir import Program

PIPELINE: list = []


def optimize(program: Program) -> Program:
    for p in PIPELINE:
        program = p(program)
    return program
