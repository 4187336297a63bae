"""xyxy_xywh: box format conversion in place, corner -> centre-size -> corner.

The conversions YOLO- and DETR-style heads and COCO export run
(``bbox_xyxy_to_cxcywh`` and back in mmdetection), written the in-place way:
the halves ``b[:, :2]`` and ``b[:, 2:]`` of the caller's array update each
other, then a copy is converted back.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import lane, random_boxes

META = {
    "origin": "box format conversions xyxy <-> cxcywh (YOLO/DETR heads, COCO export)",
    "views": "column-half views b[:, :2], b[:, 2:]",
    "inplace": "b[:, 2:] -= b[:, :2]; b[:, :2] += b[:, 2:] * 0.5 on the caller's array; "
    "the reverse on a copy",
}


def numpy_fn(b):
    b[:, 2:] -= b[:, :2]
    b[:, :2] += b[:, 2:] * 0.5
    c = b.copy()
    c[:, :2] -= c[:, 2:] * 0.5
    c[:, 2:] += c[:, :2]
    return b, c


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    return (random_boxes(n, rng),)


def jax_at(b):
    b = b.at[:, 2:].add(-b[:, :2])
    b = b.at[:, :2].add(b[:, 2:] * 0.5)
    c = b.at[:, :2].add(-b[:, 2:] * 0.5)
    return b, c.at[:, 2:].add(c[:, :2])


def xyxy_xywh_stack(b):
    wh = b[:, 2:] - b[:, :2]
    cxy = b[:, :2] + wh * 0.5
    xy = cxy - wh * 0.5
    return jnp.concatenate([cxy, wh], axis=1), jnp.concatenate([xy, wh + xy], axis=1)


def xyxy_xywh_lanes(b):
    low = lane(b.shape) < 2
    partner = jnp.roll(b, 2, axis=1)  # lanes 0, 1 see 2, 3 and the other way round
    cwh = jnp.where(low, b + (partner - b) * 0.5, b - partner)
    partner = jnp.roll(cwh, 2, axis=1)
    return cwh, jnp.where(low, cwh - partner * 0.5, cwh + (partner - cwh * 0.5))


jax_restructured = {"stack": xyxy_xywh_stack, "lanes": xyxy_xywh_lanes}


def torch_fn(b):
    b[:, 2:] -= b[:, :2]
    b[:, :2] += b[:, 2:] * 0.5
    c = b.clone()
    c[:, :2] -= c[:, 2:] * 0.5
    c[:, 2:] += c[:, :2]
    return b, c
