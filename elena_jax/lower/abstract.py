"""Abstract evaluation of the generic ``jnp`` op: result shapes from JAX.

Registered as ``HOOKS["eval_shape"]`` so the NumPy namespace can ask for the
shape of ``jax.numpy.<name>(...)`` without importing JAX itself.
"""

from __future__ import annotations

import jax
import numpy as np

from ..tracer import HOOKS, Tracer
from .rules import rebuild, resolve


def eval_shape(name: str, template, operands) -> list[tuple[tuple[int, ...], np.dtype]]:
    avals = [jax.ShapeDtypeStruct(x.shape, x.dtype) if isinstance(x, Tracer) else np.asarray(x)
             for x in operands]

    def call(*xs):
        args, kwargs = rebuild(template, list(xs))
        return resolve(name)(*args, **kwargs)

    with jax.enable_x64(True):
        out = jax.eval_shape(call, *avals)
    leaves = jax.tree_util.tree_leaves(out)
    return [(tuple(x.shape), np.dtype(x.dtype)) for x in leaves]


HOOKS["eval_shape"] = eval_shape
