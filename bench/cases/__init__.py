"""The benchmark cases: each imperative NumPy code as users write it, with peers.

A `Case` holds the NumPy function (views and in-place writes; this exact
function is what elena_jax functionalizes and numba.njit tries to compile),
an input maker, hand-written JAX peers (idiomatic ``.at[].set()`` and
restructured forms), and where the code comes from and which view and
in-place operations it uses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    name: str
    numpy_fn: Callable
    make_inputs: Callable  # (n, rng) -> tuple of arguments (NumPy arrays and static values)
    jax_at: Callable | None  # idiomatic JAX with .at[].set()
    jax_restructured: dict[str, Callable] = field(default_factory=dict)
    origin: str = ""
    view_ops: str = ""
    static: tuple[int, ...] = ()  # positions of non-array arguments


CASES: dict[str, Case] = {}


def register(case: Case) -> Case:
    CASES[case.name] = case
    return case


from . import detection, image, stencil  # noqa: E402,F401 (registration)
