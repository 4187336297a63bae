"""gen_base_anchors: the base anchors of one level, for every ratio and scale.

After mmdetection's ``AnchorGenerator.gen_single_level_base_anchors`` (the
v1 form with the ``- 1`` pixel convention and rounding, as in the Elena
paper): widths and heights from an outer product of ratios and scales, then a
fresh (A, 4) output filled column by column. A real level has 3 x 3 anchors;
the benchmark sweeps ``k`` ratios x ``k`` scales so that the sizes scale.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import lane, side, torch

META = {
    "origin": "mmdet AnchorGenerator.gen_single_level_base_anchors "
    "(RPN, RetinaNet, SSD anchor heads)",
    "views": "newaxis views ratios[:, None], scales[None, :]; reshape(-1) views; "
    "column views [:, k]",
    "inplace": "anchors[:, k] = ... into a fresh np.empty((A, 4))",
}


def numpy_fn(base_size, ratios, scales):
    w = h = float(base_size)
    x_c, y_c = 0.5 * (w - 1), 0.5 * (h - 1)
    h_ratios = np.sqrt(ratios)
    w_ratios = 1 / h_ratios
    ws = (w * w_ratios[:, None] * scales[None, :]).reshape(-1)
    hs = (h * h_ratios[:, None] * scales[None, :]).reshape(-1)
    anchors = np.empty((ws.size, 4))
    anchors[:, 0] = x_c - 0.5 * (ws - 1)
    anchors[:, 1] = y_c - 0.5 * (hs - 1)
    anchors[:, 2] = x_c + 0.5 * (ws - 1)
    anchors[:, 3] = y_c + 0.5 * (hs - 1)
    return np.round(anchors)


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    k = side(n)  # k ratios x k scales = n anchors
    return 16, rng.uniform(0.5, 2.0, k), rng.uniform(4.0, 32.0, k)


def _sizes(base_size, ratios, scales):
    w = h = float(base_size)
    h_ratios = jnp.sqrt(ratios)
    ws = (w * (1 / h_ratios)[:, None] * scales[None, :]).reshape(-1)
    hs = (h * h_ratios[:, None] * scales[None, :]).reshape(-1)
    return 0.5 * (w - 1), 0.5 * (h - 1), ws, hs


def jax_at(base_size, ratios, scales):
    x_c, y_c, ws, hs = _sizes(base_size, ratios, scales)
    a = jnp.empty((ws.size, 4))
    a = a.at[:, 0].set(x_c - 0.5 * (ws - 1))
    a = a.at[:, 1].set(y_c - 0.5 * (hs - 1))
    a = a.at[:, 2].set(x_c + 0.5 * (ws - 1))
    return jnp.round(a.at[:, 3].set(y_c + 0.5 * (hs - 1)))


def gen_base_anchors_stack(base_size, ratios, scales):
    x_c, y_c, ws, hs = _sizes(base_size, ratios, scales)
    return jnp.round(jnp.stack([x_c - 0.5 * (ws - 1), y_c - 0.5 * (hs - 1),
                                x_c + 0.5 * (ws - 1), y_c + 0.5 * (hs - 1)], axis=-1))


def gen_base_anchors_lanes(base_size, ratios, scales):
    x_c, y_c, ws, hs = _sizes(base_size, ratios, scales)
    k = lane((ws.size, 4))
    half = 0.5 * (jnp.where(k % 2 == 0, ws[:, None], hs[:, None]) - 1)
    centre = jnp.where(k % 2 == 0, x_c, y_c)
    return jnp.round(jnp.where(k < 2, centre - half, centre + half))


jax_restructured = {"stack": gen_base_anchors_stack, "lanes": gen_base_anchors_lanes}


def torch_fn(base_size, ratios, scales):
    w = h = float(base_size)
    x_c, y_c = 0.5 * (w - 1), 0.5 * (h - 1)
    h_ratios = torch.sqrt(ratios)
    w_ratios = 1 / h_ratios
    ws = (w * w_ratios[:, None] * scales[None, :]).reshape(-1)
    hs = (h * h_ratios[:, None] * scales[None, :]).reshape(-1)
    anchors = torch.empty((ws.numel(), 4), dtype=ws.dtype, device=ws.device)
    anchors[:, 0] = x_c - 0.5 * (ws - 1)
    anchors[:, 1] = y_c - 0.5 * (hs - 1)
    anchors[:, 2] = x_c + 0.5 * (ws - 1)
    anchors[:, 3] = y_c + 0.5 * (hs - 1)
    return torch.round(anchors)
