"""bbox_flip: mirror boxes horizontally, for test-time augmentation.

After mmdetection's ``bbox_flip``: copy the boxes, then write the new x1
column from the old x2 column and the new x2 from the old x1, each through
stride-4 views, so results of flipped images can be merged with the others.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import IMG_W, lane, random_boxes

META = {
    "origin": "mmdet bbox_flip (test-time augmentation of any detector)",
    "views": "stride-4 column views [:, 0::4], [:, 2::4]",
    "inplace": "flipped[:, 0::4] = width - boxes[:, 2::4] (and back) on a copy",
}


def numpy_fn(bboxes, width=float(IMG_W)):
    flipped = bboxes.copy()
    flipped[:, 0::4] = width - bboxes[:, 2::4]
    flipped[:, 2::4] = width - bboxes[:, 0::4]
    return flipped


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    return (random_boxes(n, rng),)


def jax_at(bboxes, width=float(IMG_W)):
    flipped = bboxes.at[:, 0::4].set(width - bboxes[:, 2::4])
    return flipped.at[:, 2::4].set(width - bboxes[:, 0::4])


def bbox_flip_stack(bboxes, width=float(IMG_W)):
    b = bboxes.reshape(bboxes.shape[0], -1, 4)
    out = jnp.stack([width - b[..., 2], b[..., 1], width - b[..., 0], b[..., 3]], axis=-1)
    return out.reshape(bboxes.shape)


def bbox_flip_lanes(bboxes, width=float(IMG_W)):
    k = lane(bboxes.shape) % 4
    partner = jnp.roll(bboxes, 2, axis=1)  # lane 0 sees x2, lane 2 sees x1 (one box per row)
    return jnp.where(k % 2 == 0, width - partner, bboxes)


jax_restructured = {"stack": bbox_flip_stack, "lanes": bbox_flip_lanes}


def torch_fn(bboxes, width=float(IMG_W)):
    flipped = bboxes.clone()
    flipped[:, 0::4] = width - bboxes[:, 2::4]
    flipped[:, 2::4] = width - bboxes[:, 0::4]
    return flipped
