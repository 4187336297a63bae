"""delta2bbox (offset2bbox): decode regression deltas into boxes with strided writes.

After mmdetection's ``DeltaXYWHBBoxCoder.decode`` (Faster/Mask R-CNN, RetinaNet,
RPN): de-normalize the deltas per coordinate, clamp the log-size deltas, decode
centres and sizes from stride-4 column views, fill a fresh output through
stride-4 column writes, and clamp x and y columns in place with ``out=``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import IMG_H, IMG_W, centers_sizes, lane, random_boxes, torch

META = {
    "origin": "mmdet DeltaXYWHBBoxCoder.decode (Faster/Mask R-CNN, RetinaNet, RPN)",
    "views": "stride-4 column views [:, k::4]; stride-2 views [:, 0::2]; newaxis views [:, None]",
    "inplace": "d[:, k::4] = ... and boxes[:, k::4] = ... into fresh arrays; "
    "np.clip(out=) on strided views",
}

MEANS, STDS = (0.0, 0.0, 0.0, 0.0), (0.1, 0.1, 0.2, 0.2)
MAX_RATIO = 4.135  # |log(16 / 1000)|: the largest log size change allowed


def numpy_fn(rois, deltas, means=MEANS, stds=STDS, max_h=IMG_H, max_w=IMG_W):
    d = np.empty_like(deltas)
    for k in range(4):
        d[:, k::4] = deltas[:, k::4] * stds[k] + means[k]
    np.clip(d[:, 2::4], -MAX_RATIO, MAX_RATIO, out=d[:, 2::4])
    np.clip(d[:, 3::4], -MAX_RATIO, MAX_RATIO, out=d[:, 3::4])
    px = ((rois[:, 0] + rois[:, 2]) * 0.5)[:, None]
    py = ((rois[:, 1] + rois[:, 3]) * 0.5)[:, None]
    pw = (rois[:, 2] - rois[:, 0])[:, None]
    ph = (rois[:, 3] - rois[:, 1])[:, None]
    gw = pw * np.exp(d[:, 2::4])
    gh = ph * np.exp(d[:, 3::4])
    gx = px + pw * d[:, 0::4]
    gy = py + ph * d[:, 1::4]
    boxes = np.empty_like(deltas)
    boxes[:, 0::4] = gx - gw * 0.5
    boxes[:, 1::4] = gy - gh * 0.5
    boxes[:, 2::4] = gx + gw * 0.5
    boxes[:, 3::4] = gy + gh * 0.5
    np.clip(boxes[:, 0::2], 0, max_w, out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, max_h, out=boxes[:, 1::2])
    return boxes


def inputs_for(classes: int):
    """Input maker: ``n`` decoded boxes, as ``n / classes`` rows of ``4 * classes`` deltas."""

    def make_inputs(n: int, rng: np.random.Generator) -> tuple:
        rows = max(1, n // classes)
        return random_boxes(rows, rng), rng.normal(scale=2.0, size=(rows, 4 * classes))

    return make_inputs


make_inputs = inputs_for(1)


def jax_at(rois, deltas, means=MEANS, stds=STDS, max_h=IMG_H, max_w=IMG_W):
    d = jnp.empty_like(deltas)
    for k in range(4):
        d = d.at[:, k::4].set(deltas[:, k::4] * stds[k] + means[k])
    d = d.at[:, 2::4].set(jnp.clip(d[:, 2::4], -MAX_RATIO, MAX_RATIO))
    d = d.at[:, 3::4].set(jnp.clip(d[:, 3::4], -MAX_RATIO, MAX_RATIO))
    px, py, pw, ph = (c[:, None] for c in centers_sizes(rois))
    gw = pw * jnp.exp(d[:, 2::4])
    gh = ph * jnp.exp(d[:, 3::4])
    gx = px + pw * d[:, 0::4]
    gy = py + ph * d[:, 1::4]
    boxes = jnp.empty_like(deltas)
    boxes = boxes.at[:, 0::4].set(gx - gw * 0.5)
    boxes = boxes.at[:, 1::4].set(gy - gh * 0.5)
    boxes = boxes.at[:, 2::4].set(gx + gw * 0.5)
    boxes = boxes.at[:, 3::4].set(gy + gh * 0.5)
    boxes = boxes.at[:, 0::2].set(jnp.clip(boxes[:, 0::2], 0, max_w))
    return boxes.at[:, 1::2].set(jnp.clip(boxes[:, 1::2], 0, max_h))


def _decoded(rois, deltas, means, stds):
    """gx, gy, gw, gh as (R, K) arrays: the decode without any write."""
    dx, dy, dw, dh = (deltas[:, k::4] * stds[k] + means[k] for k in range(4))
    px, py, pw, ph = (c[:, None] for c in centers_sizes(rois))
    gw = pw * jnp.exp(jnp.clip(dw, -MAX_RATIO, MAX_RATIO))
    gh = ph * jnp.exp(jnp.clip(dh, -MAX_RATIO, MAX_RATIO))
    return px + pw * dx, py + ph * dy, gw, gh


def delta2bbox_stack(rois, deltas, means=MEANS, stds=STDS, max_h=IMG_H, max_w=IMG_W):
    gx, gy, gw, gh = _decoded(rois, deltas, means, stds)
    parts = [jnp.clip(gx - gw * 0.5, 0, max_w), jnp.clip(gy - gh * 0.5, 0, max_h),
             jnp.clip(gx + gw * 0.5, 0, max_w), jnp.clip(gy + gh * 0.5, 0, max_h)]
    return jnp.stack(parts, axis=-1).reshape(deltas.shape)


def delta2bbox_lanes(rois, deltas, means=MEANS, stds=STDS, max_h=IMG_H, max_w=IMG_W):
    d = deltas.reshape(deltas.shape[0], -1, 4)  # (R, K, 4): lane k of every class
    k = lane(d.shape)
    d = d * jnp.asarray(stds) + jnp.asarray(means)
    d = jnp.where(k >= 2, jnp.clip(d, -MAX_RATIO, MAX_RATIO), d)
    px, py, pw, ph = (c[:, None, None] for c in centers_sizes(rois))
    size = jnp.where(k % 2 == 0, pw, ph)
    centre = jnp.where(k % 2 == 0, px, py) + size * jnp.where(k % 2 == 0, d[..., 0:1], d[..., 1:2])
    half = size * jnp.exp(jnp.where(k % 2 == 0, d[..., 2:3], d[..., 3:4])) * 0.5
    out = jnp.where(k < 2, centre - half, centre + half)
    return jnp.clip(out, 0, jnp.where(k % 2 == 0, max_w, max_h)).reshape(deltas.shape)


jax_restructured = {"stack": delta2bbox_stack, "lanes": delta2bbox_lanes}


def torch_fn(rois, deltas, means=MEANS, stds=STDS, max_h=IMG_H, max_w=IMG_W):
    d = torch.empty_like(deltas)
    for k in range(4):
        d[:, k::4] = deltas[:, k::4] * stds[k] + means[k]
    d[:, 2::4].clamp_(-MAX_RATIO, MAX_RATIO)
    d[:, 3::4].clamp_(-MAX_RATIO, MAX_RATIO)
    px = ((rois[:, 0] + rois[:, 2]) * 0.5)[:, None]
    py = ((rois[:, 1] + rois[:, 3]) * 0.5)[:, None]
    pw = (rois[:, 2] - rois[:, 0])[:, None]
    ph = (rois[:, 3] - rois[:, 1])[:, None]
    gw = pw * torch.exp(d[:, 2::4])
    gh = ph * torch.exp(d[:, 3::4])
    gx = px + pw * d[:, 0::4]
    gy = py + ph * d[:, 1::4]
    boxes = torch.empty_like(deltas)
    boxes[:, 0::4] = gx - gw * 0.5
    boxes[:, 1::4] = gy - gh * 0.5
    boxes[:, 2::4] = gx + gw * 0.5
    boxes[:, 3::4] = gy + gh * 0.5
    boxes[:, 0::2].clamp_(0, max_w)
    boxes[:, 1::2].clamp_(0, max_h)
    return boxes
