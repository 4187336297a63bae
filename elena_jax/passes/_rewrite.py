"""Small tools the passes share: copying a program, fresh temporaries."""

from __future__ import annotations

from ..ir import Access, Program
from ..storage import Storage
from ..view import contiguous, reshape


def copy_program(program: Program) -> Program:
    return Program(list(program.storages), list(program.ops), list(program.inputs), list(program.outputs))


def temporary(program: Program, shape, dtype, origin: str) -> Access:
    """A new storage of the program, as a whole-array Access."""
    s = Storage(len(program.storages), tuple(shape), dtype, origin)
    program.storages.append(s)
    return Access(s, contiguous(s.shape))


def final_reads(program: Program) -> list[Access]:
    """What the caller reads after the last op: results and mutated arguments."""
    reads = [x for x in program.outputs if isinstance(x, Access)]
    written = program.written()
    return reads + [Access.whole(s) for s in program.inputs if s in written]


def reshaped(value: Access, shape: tuple[int, ...]) -> Access:
    """``value`` in ``shape``, which differs from its own at most by unit axes (see
    view.same_elements): what a read of that shape sees."""
    return value if value.view.shape == shape else Access(value.storage, reshape(value.view, shape))
