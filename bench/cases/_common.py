"""Helpers shared by the case modules: input makers, lane masks, box arithmetic.

The NumPy functions of the cases do not use these (they are written
self-contained, as users write them); the hand-written peers and the input
makers do.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

try:  # PyTorch is an optional peer
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None

#: The image the detection cases decode into (a COCO-style 1333 x 800 input).
IMG_H, IMG_W = 800, 1333


def random_boxes(
    n: int, rng: np.random.Generator, width: float = IMG_W, height: float = IMG_H
) -> np.ndarray:
    """``n`` valid (x1, y1, x2, y2) boxes, mostly inside a ``width`` x ``height`` image."""
    xy = rng.uniform(0, [width * 0.9, height * 0.9], (n, 2))
    wh = rng.uniform(4, 200, (n, 2))
    return np.concatenate([xy, xy + wh], axis=1)


def side(n: int, per_cell: int = 1, least: int = 1) -> int:
    """The side of a square grid of about ``n / per_cell`` cells."""
    return max(least, int(np.sqrt(n / per_cell)))


def lane(shape: tuple[int, ...]) -> jnp.ndarray:
    """Constant lane index along the last axis (XLA folds it into the masks)."""
    return lax.broadcasted_iota(jnp.int32, shape, len(shape) - 1)


def centers_sizes(boxes):
    """(cx, cy, w, h) columns of (x1, y1, x2, y2) boxes; works for NumPy, JAX and torch."""
    return (
        (boxes[:, 0] + boxes[:, 2]) * 0.5,
        (boxes[:, 1] + boxes[:, 3]) * 0.5,
        boxes[:, 2] - boxes[:, 0],
        boxes[:, 3] - boxes[:, 1],
    )
