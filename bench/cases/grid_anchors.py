"""grid_anchors: the anchors of one feature-map level, base anchors shifted over the grid.

After mmdetection's ``AnchorGenerator.single_level_grid_priors``: x and y
shifts of every cell, written into the interleaved x/y lanes of a fresh
shift array by stride-2 writes, added to the base anchors by broadcasting,
and flattened to (H * W * A, 4).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import lane, side, torch
from .gen_base_anchors import numpy_fn as base_anchors_of

META = {
    "origin": "mmdet AnchorGenerator.single_level_grid_priors (RPN, RetinaNet, FCOS-style priors)",
    "views": "stride-2 lane views shifts[:, :, 0::2]; newaxis views [None, :, None]; "
    "reshape(-1, 4) of the result",
    "inplace": "shifts[:, :, 0::2] = shift_x[None, :, None] "
    "(broadcasting strided writes) into np.zeros",
}


def numpy_fn(base_anchors, feat_h, feat_w, stride):
    shift_x = np.arange(feat_w) * stride
    shift_y = np.arange(feat_h) * stride
    shifts = np.zeros((feat_h, feat_w, 4))
    shifts[:, :, 0::2] = shift_x[None, :, None]
    shifts[:, :, 1::2] = shift_y[:, None, None]
    anchors = base_anchors[None, None, :, :] + shifts[:, :, None, :]
    return anchors.reshape(-1, 4)


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    s = side(n, per_cell=9)
    base = base_anchors_of(16, np.array([0.5, 1.0, 2.0]), np.array([8.0, 16.0, 32.0]))
    return base, s, s, 16


def jax_at(base_anchors, feat_h, feat_w, stride):
    shift_x = jnp.arange(feat_w) * stride
    shift_y = jnp.arange(feat_h) * stride
    shifts = jnp.zeros((feat_h, feat_w, 4))
    shape = (feat_h, feat_w, 2)
    shifts = shifts.at[:, :, 0::2].set(jnp.broadcast_to(shift_x[None, :, None], shape))
    shifts = shifts.at[:, :, 1::2].set(jnp.broadcast_to(shift_y[:, None, None], shape))
    return (base_anchors[None, None] + shifts[:, :, None, :]).reshape(-1, 4)


def grid_anchors_stack(base_anchors, feat_h, feat_w, stride):
    xx, yy = jnp.meshgrid(jnp.arange(feat_w) * stride, jnp.arange(feat_h) * stride)
    shifts = jnp.stack([xx, yy, xx, yy], axis=-1).astype(base_anchors.dtype)
    return (base_anchors[None, None] + shifts[:, :, None, :]).reshape(-1, 4)


def grid_anchors_lanes(base_anchors, feat_h, feat_w, stride):
    k = lane((feat_h, feat_w, 4))
    sx = (jnp.arange(feat_w) * stride)[None, :, None]
    sy = (jnp.arange(feat_h) * stride)[:, None, None]
    shifts = jnp.where(k % 2 == 0, sx, sy).astype(base_anchors.dtype)
    return (base_anchors[None, None] + shifts[:, :, None, :]).reshape(-1, 4)


jax_restructured = {"stack": grid_anchors_stack, "lanes": grid_anchors_lanes}


def torch_fn(base_anchors, feat_h, feat_w, stride):
    dev = base_anchors.device
    shift_x = torch.arange(feat_w, device=dev) * stride
    shift_y = torch.arange(feat_h, device=dev) * stride
    shifts = torch.zeros((feat_h, feat_w, 4), dtype=base_anchors.dtype, device=dev)
    shifts[:, :, 0::2] = shift_x[None, :, None]
    shifts[:, :, 1::2] = shift_y[:, None, None]
    anchors = base_anchors[None, None, :, :] + shifts[:, :, None, :]
    return anchors.reshape(-1, 4)
