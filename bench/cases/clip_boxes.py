"""clip_boxes: clamp boxes to the image, in place on the caller's array.

After the border clipping every mmdetection detector runs after decoding
(``bbox_coder.decode(..., max_shape=...)``, ``clip_border=True``): the x
columns and the y columns are clamped through stride-2 views with ``out=``,
so the function mutates its argument.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import IMG_H, IMG_W, lane, random_boxes

META = {
    "origin": "mmdet box clipping to the image shape (every detector's post-processing)",
    "views": "stride-2 column views [:, 0::2], [:, 1::2] of an argument",
    "inplace": "np.clip(..., out=view) on the caller's array (write-back to the input)",
}


def numpy_fn(boxes, max_h=IMG_H, max_w=IMG_W):
    np.clip(boxes[:, 0::2], 0, max_w, out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, max_h, out=boxes[:, 1::2])
    return boxes


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    return (random_boxes(n, rng) * 1.2 - 50,)  # a share of the boxes crosses the border


def jax_at(boxes, max_h=IMG_H, max_w=IMG_W):
    boxes = boxes.at[:, 0::2].set(jnp.clip(boxes[:, 0::2], 0, max_w))
    return boxes.at[:, 1::2].set(jnp.clip(boxes[:, 1::2], 0, max_h))


def clip_boxes_stack(boxes, max_h=IMG_H, max_w=IMG_W):
    limits = (max_w, max_h, max_w, max_h)
    return jnp.stack([jnp.clip(boxes[:, k], 0, limits[k]) for k in range(4)], axis=-1)


def clip_boxes_lanes(boxes, max_h=IMG_H, max_w=IMG_W):
    return jnp.clip(boxes, 0, jnp.where(lane(boxes.shape) % 2 == 0, max_w, max_h))


jax_restructured = {"stack": clip_boxes_stack, "lanes": clip_boxes_lanes}


def torch_fn(boxes, max_h=IMG_H, max_w=IMG_W):
    boxes[:, 0::2].clamp_(0, max_w)
    boxes[:, 1::2].clamp_(0, max_h)
    return boxes
