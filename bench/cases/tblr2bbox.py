"""tblr2bbox: decode top/bottom/left/right distances into boxes.

After mmdetection's ``TBLRBBoxCoder.decode`` (FSAF, GFL-style heads): scale the
normalized distances, multiply the top/bottom columns by the prior height and
the left/right columns by its width *in place through column views*, write
the four box columns of a fresh output, and clamp x and y in place.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import IMG_H, IMG_W, centers_sizes, lane, random_boxes, torch

META = {
    "origin": "mmdet TBLRBBoxCoder.decode (FSAF, GFL-style heads)",
    "views": "column-block views [:, 0:2], [:, 2:4], [:, :2], [:, 2:]; column views [:, k]; "
    "stride-2 views [:, 0::2]",
    "inplace": "loc[:, :2] *= h and loc[:, 2:] *= w (scaling of column views); column writes; "
    "np.clip(out=) on strided views",
}


def numpy_fn(priors, tblr, normalizer=4.0, max_h=IMG_H, max_w=IMG_W):
    loc = tblr * normalizer
    centers = (priors[:, 0:2] + priors[:, 2:4]) / 2
    wh = priors[:, 2:4] - priors[:, 0:2]
    loc[:, :2] *= wh[:, 1:2]
    loc[:, 2:] *= wh[:, 0:1]
    top, bottom, left, right = loc[:, 0], loc[:, 1], loc[:, 2], loc[:, 3]
    boxes = np.empty_like(loc)
    boxes[:, 0] = centers[:, 0] - left
    boxes[:, 1] = centers[:, 1] - top
    boxes[:, 2] = centers[:, 0] + right
    boxes[:, 3] = centers[:, 1] + bottom
    np.clip(boxes[:, 0::2], 0, max_w, out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, max_h, out=boxes[:, 1::2])
    return boxes


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    return random_boxes(n, rng), rng.uniform(0, 1, (n, 4))


def jax_at(priors, tblr, normalizer=4.0, max_h=IMG_H, max_w=IMG_W):
    loc = tblr * normalizer
    centers = (priors[:, 0:2] + priors[:, 2:4]) / 2
    wh = priors[:, 2:4] - priors[:, 0:2]
    loc = loc.at[:, :2].multiply(wh[:, 1:2])
    loc = loc.at[:, 2:].multiply(wh[:, 0:1])
    boxes = jnp.empty_like(loc)
    boxes = boxes.at[:, 0].set(centers[:, 0] - loc[:, 2])
    boxes = boxes.at[:, 1].set(centers[:, 1] - loc[:, 0])
    boxes = boxes.at[:, 2].set(centers[:, 0] + loc[:, 3])
    boxes = boxes.at[:, 3].set(centers[:, 1] + loc[:, 1])
    boxes = boxes.at[:, 0::2].set(jnp.clip(boxes[:, 0::2], 0, max_w))
    return boxes.at[:, 1::2].set(jnp.clip(boxes[:, 1::2], 0, max_h))


def tblr2bbox_stack(priors, tblr, normalizer=4.0, max_h=IMG_H, max_w=IMG_W):
    cx, cy, w, h = centers_sizes(priors)
    top, bottom, left, right = (tblr[:, i] * normalizer for i in range(4))
    return jnp.stack([jnp.clip(cx - left * w, 0, max_w), jnp.clip(cy - top * h, 0, max_h),
                      jnp.clip(cx + right * w, 0, max_w), jnp.clip(cy + bottom * h, 0, max_h)],
                     axis=-1)


def tblr2bbox_lanes(priors, tblr, normalizer=4.0, max_h=IMG_H, max_w=IMG_W):
    k = lane(priors.shape)
    cx, cy, w, h = (c[:, None] for c in centers_sizes(priors))
    loc = tblr * normalizer * jnp.where(k < 2, h, w)  # t, b scale with h; l, r with w
    # output lane 0 <- left (2), 1 <- top (0), 2 <- right (3), 3 <- bottom (1)
    dist = jnp.where(k == 0, loc[:, 2:3], jnp.where(k == 1, loc[:, 0:1],
                                                      jnp.where(k == 2, loc[:, 3:4], loc[:, 1:2])))
    centre = jnp.where(k % 2 == 0, cx, cy)
    out = jnp.where(k < 2, centre - dist, centre + dist)
    return jnp.clip(out, 0, jnp.where(k % 2 == 0, max_w, max_h))


jax_restructured = {"stack": tblr2bbox_stack, "lanes": tblr2bbox_lanes}


def torch_fn(priors, tblr, normalizer=4.0, max_h=IMG_H, max_w=IMG_W):
    loc = tblr * normalizer
    centers = (priors[:, 0:2] + priors[:, 2:4]) / 2
    wh = priors[:, 2:4] - priors[:, 0:2]
    loc[:, :2] *= wh[:, 1:2]
    loc[:, 2:] *= wh[:, 0:1]
    top, bottom, left, right = loc[:, 0], loc[:, 1], loc[:, 2], loc[:, 3]
    boxes = torch.empty_like(loc)
    boxes[:, 0] = centers[:, 0] - left
    boxes[:, 1] = centers[:, 1] - top
    boxes[:, 2] = centers[:, 0] + right
    boxes[:, 3] = centers[:, 1] + bottom
    boxes[:, 0::2].clamp_(0, max_w)
    boxes[:, 1::2].clamp_(0, max_h)
    return boxes
