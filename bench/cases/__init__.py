"""The benchmark cases, one module each, collected into `CASES`.

Every case module exports the same names:

- ``numpy_fn``: the imperative NumPy code as a user writes it (views, in-place
  writes). This exact function is what elena_jax functionalizes and what
  ``numba.njit`` compiles.
- ``make_inputs(n, rng)``: the arguments for problem size ``n`` (NumPy arrays
  and static Python values, positionally).
- ``jax_at``: idiomatic hand-written JAX with ``.at[].set()`` (or ``None``).
- ``jax_restructured``: hand restructurings by name, e.g. ``stack`` (build the
  result with stack/concatenate) and ``lanes`` (keep the interleaved layout and
  pick per lane with ``jnp.where`` on constant lane masks).
- ``torch_fn``: the same code in PyTorch, views and in-place ops kept (or ``None``).
- ``META``: ``origin`` (network or domain), ``views`` and ``inplace`` (the view
  and in-place operations the NumPy code uses), optionally ``note``.

Optional: ``NAME`` (defaults to the module's name), ``extra_jax`` (further
JAX peers reported on their own, not as hand restructurings) and ``SKIP``
(peer -> the reason it is not run on this case).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

#: Case modules in report order (detection first, then the other domains).
MODULES = (
    "valid_flags",
    "delta2bbox",
    "delta2bbox_cls84",
    "tblr2bbox",
    "gen_base_anchors",
    "bbox2delta",
    "clip_boxes",
    "bbox_flip",
    "xyxy_xywh",
    "grid_anchors",
    "nms",
    "box_blur",
    "jacobi",
    "normalize_channels",
    "wave_1d",
    "standardize",
    "column_loops",
    "row_loops",
)


@dataclass(frozen=True)
class Case:
    """One benchmark case, read from its module."""

    name: str
    numpy_fn: Callable
    make_inputs: Callable[[int, np.random.Generator], tuple]
    jax_at: Callable | None
    jax_restructured: dict[str, Callable]
    torch_fn: Callable | None
    meta: dict[str, str]
    extra_jax: dict[str, Callable] = field(default_factory=dict)
    skip: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_module(cls, module: ModuleType) -> Case:
        return cls(
            name=getattr(module, "NAME", module.__name__.rsplit(".", 1)[-1]),
            numpy_fn=module.numpy_fn,
            make_inputs=module.make_inputs,
            jax_at=module.jax_at,
            jax_restructured=dict(module.jax_restructured),
            torch_fn=getattr(module, "torch_fn", None),
            meta=dict(module.META),
            extra_jax=dict(getattr(module, "extra_jax", {})),
            skip=dict(getattr(module, "SKIP", {})),
        )

    def inputs(self, n: int, seed: int = 0) -> tuple:
        """The case's arguments at size ``n``, from a fixed seed."""
        return tuple(self.make_inputs(n, np.random.default_rng(seed)))


def _load() -> dict[str, Case]:
    cases = {}
    for mod in MODULES:
        case = Case.from_module(importlib.import_module(f"{__name__}.{mod}"))
        cases[case.name] = case
    return cases


CASES: dict[str, Case] = _load()
