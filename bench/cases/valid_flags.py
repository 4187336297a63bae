"""valid_flags: the valid-flag grid of one level's anchors, and the anchors inside the image.

After mmdetection's ``AnchorGenerator.single_level_valid_flags`` (flags set
by prefix writes into fresh bool vectors, combined on a grid, repeated for
every base anchor) followed by ``anchor_inside_flags`` (flags cleared where an
anchor leaves the image), as every anchor-based head (RetinaNet, RPN, ATSS)
runs them when it assigns targets.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import IMG_H, IMG_W, lane, random_boxes, side, torch

META = {
    "origin": "mmdet AnchorGenerator.single_level_valid_flags + anchor_inside_flags "
    "(RetinaNet, RPN, ATSS)",
    "views": "prefix slices [:valid_w]; newaxis views [:, None]; "
    "broadcast_to (read-only) + reshape; "
    "column views anchors[:, k]",
    "inplace": "valid_x[:valid_w] = True on fresh bool arrays; flags &= ... on the flattened grid",
}


def numpy_fn(anchors, feat_h, feat_w, valid_h, valid_w, num_base_anchors, allowed_border=0):
    valid_x = np.zeros(feat_w, dtype=bool)
    valid_y = np.zeros(feat_h, dtype=bool)
    valid_x[:valid_w] = True
    valid_y[:valid_h] = True
    valid = (valid_y[:, None] & valid_x[None, :]).reshape(-1)
    flags = np.broadcast_to(valid[:, None], (valid.size, num_base_anchors)).reshape(-1)
    flags &= anchors[:, 0] >= -allowed_border
    flags &= anchors[:, 1] >= -allowed_border
    flags &= anchors[:, 2] < IMG_W + allowed_border
    flags &= anchors[:, 3] < IMG_H + allowed_border
    return flags


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    s = side(n, per_cell=9)
    anchors = random_boxes(s * s * 9, rng) * 1.1 - 30  # some anchors leave the image
    return anchors, s, s, int(s * 0.8), int(s * 0.9), 9


def jax_at(anchors, feat_h, feat_w, valid_h, valid_w, num_base_anchors, allowed_border=0):
    valid_x = jnp.zeros(feat_w, dtype=bool).at[:valid_w].set(True)
    valid_y = jnp.zeros(feat_h, dtype=bool).at[:valid_h].set(True)
    valid = (valid_y[:, None] & valid_x[None, :]).reshape(-1)
    flags = jnp.broadcast_to(valid[:, None], (valid.size, num_base_anchors)).reshape(-1)
    return (flags & (anchors[:, 0] >= -allowed_border) & (anchors[:, 1] >= -allowed_border)
            & (anchors[:, 2] < IMG_W + allowed_border) & (anchors[:, 3] < IMG_H + allowed_border))


def _grid(feat_h, feat_w, valid_h, valid_w, num_base_anchors):
    """The repeated valid grid from index comparisons instead of prefix writes."""
    rows = (jnp.arange(feat_h) < valid_h)[:, None, None]
    valid = rows & (jnp.arange(feat_w) < valid_w)[None, :, None]
    return jnp.broadcast_to(valid, (feat_h, feat_w, num_base_anchors)).reshape(-1)


def valid_flags_iota(
    anchors, feat_h, feat_w, valid_h, valid_w, num_base_anchors, allowed_border=0
):
    inside = ((anchors[:, 0] >= -allowed_border) & (anchors[:, 1] >= -allowed_border)
              & (anchors[:, 2] < IMG_W + allowed_border) & (anchors[:, 3] < IMG_H + allowed_border))
    return _grid(feat_h, feat_w, valid_h, valid_w, num_base_anchors) & inside


def valid_flags_lanes(
    anchors, feat_h, feat_w, valid_h, valid_w, num_base_anchors, allowed_border=0
):
    k = lane(anchors.shape)
    limit = jnp.where(k == 2, IMG_W + allowed_border, IMG_H + allowed_border)
    ok = jnp.where(k < 2, anchors >= -allowed_border, anchors < limit)
    return _grid(feat_h, feat_w, valid_h, valid_w, num_base_anchors) & jnp.all(ok, axis=1)


jax_restructured = {"iota": valid_flags_iota, "lanes": valid_flags_lanes}


def torch_fn(anchors, feat_h, feat_w, valid_h, valid_w, num_base_anchors, allowed_border=0):
    valid_x = torch.zeros(feat_w, dtype=torch.bool, device=anchors.device)
    valid_y = torch.zeros(feat_h, dtype=torch.bool, device=anchors.device)
    valid_x[:valid_w] = True
    valid_y[:valid_h] = True
    valid = (valid_y[:, None] & valid_x[None, :]).reshape(-1)
    flags = valid[:, None].expand(valid.numel(), num_base_anchors).reshape(-1)
    flags &= anchors[:, 0] >= -allowed_border
    flags &= anchors[:, 1] >= -allowed_border
    flags &= anchors[:, 2] < IMG_W + allowed_border
    flags &= anchors[:, 3] < IMG_H + allowed_border
    return flags
