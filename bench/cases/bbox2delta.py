"""bbox2delta: encode ground-truth boxes as regression targets against proposals.

After mmdetection's ``DeltaXYWHBBoxCoder.encode`` (the training-time twin of
`delta2bbox`): centres and sizes from column views, a fresh output filled
column by column, then normalized in place by broadcasting subtraction and
division.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import centers_sizes, lane, random_boxes, torch

META = {
    "origin": "mmdet DeltaXYWHBBoxCoder.encode (training targets of Faster R-CNN, RetinaNet, RPN)",
    "views": "column views [:, k]",
    "inplace": "deltas[:, k] = ... into a fresh array; deltas -= means and deltas /= stds "
    "(broadcast over rows)",
}

MEANS, STDS = (0.0, 0.0, 0.0, 0.0), (0.1, 0.1, 0.2, 0.2)


def numpy_fn(proposals, gt, means=MEANS, stds=STDS):
    px = (proposals[:, 0] + proposals[:, 2]) * 0.5
    py = (proposals[:, 1] + proposals[:, 3]) * 0.5
    pw = proposals[:, 2] - proposals[:, 0]
    ph = proposals[:, 3] - proposals[:, 1]
    gx = (gt[:, 0] + gt[:, 2]) * 0.5
    gy = (gt[:, 1] + gt[:, 3]) * 0.5
    gw = gt[:, 2] - gt[:, 0]
    gh = gt[:, 3] - gt[:, 1]
    deltas = np.empty_like(proposals)
    deltas[:, 0] = (gx - px) / pw
    deltas[:, 1] = (gy - py) / ph
    deltas[:, 2] = np.log(gw / pw)
    deltas[:, 3] = np.log(gh / ph)
    deltas -= np.array(means)
    deltas /= np.array(stds)
    return deltas


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    return random_boxes(n, rng), random_boxes(n, rng)


def _columns(proposals, gt):
    px, py, pw, ph = centers_sizes(proposals)
    gx, gy, gw, gh = centers_sizes(gt)
    return [(gx - px) / pw, (gy - py) / ph, jnp.log(gw / pw), jnp.log(gh / ph)]


def jax_at(proposals, gt, means=MEANS, stds=STDS):
    deltas = jnp.empty_like(proposals)
    for k, column in enumerate(_columns(proposals, gt)):
        deltas = deltas.at[:, k].set(column)
    return (deltas - jnp.array(means)) / jnp.array(stds)


def bbox2delta_stack(proposals, gt, means=MEANS, stds=STDS):
    return (jnp.stack(_columns(proposals, gt), axis=-1) - jnp.array(means)) / jnp.array(stds)


def bbox2delta_lanes(proposals, gt, means=MEANS, stds=STDS):
    k = lane(proposals.shape)
    even = k % 2 == 0
    px, py, pw, ph = (c[:, None] for c in centers_sizes(proposals))
    gx, gy, gw, gh = (c[:, None] for c in centers_sizes(gt))
    psize = jnp.where(even, pw, ph)
    shift = (jnp.where(even, gx, gy) - jnp.where(even, px, py)) / psize
    deltas = jnp.where(k < 2, shift, jnp.log(jnp.where(even, gw, gh) / psize))
    return (deltas - jnp.array(means)) / jnp.array(stds)


jax_restructured = {"stack": bbox2delta_stack, "lanes": bbox2delta_lanes}


def torch_fn(proposals, gt, means=MEANS, stds=STDS):
    px = (proposals[:, 0] + proposals[:, 2]) * 0.5
    py = (proposals[:, 1] + proposals[:, 3]) * 0.5
    pw = proposals[:, 2] - proposals[:, 0]
    ph = proposals[:, 3] - proposals[:, 1]
    gx = (gt[:, 0] + gt[:, 2]) * 0.5
    gy = (gt[:, 1] + gt[:, 3]) * 0.5
    gw = gt[:, 2] - gt[:, 0]
    gh = gt[:, 3] - gt[:, 1]
    deltas = torch.empty_like(proposals)
    deltas[:, 0] = (gx - px) / pw
    deltas[:, 1] = (gy - py) / ph
    deltas[:, 2] = torch.log(gw / pw)
    deltas[:, 3] = torch.log(gh / ph)
    deltas -= torch.tensor(means, dtype=deltas.dtype, device=deltas.device)
    deltas /= torch.tensor(stds, dtype=deltas.dtype, device=deltas.device)
    return deltas
