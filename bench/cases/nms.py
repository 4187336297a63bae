"""nms: greedy non-maximum suppression, the sequential last step of every detector.

The NumPy loop users write (as mmcv's CPU reference and many repositories do):
sort by score, then for each box still alive suppress the later boxes whose
IoU with it exceeds the threshold. The loop's ``if suppressed[i]: continue``
depends on data, so elena_jax refuses the function with a clear error; the
JAX peers restructure it as a ``fori_loop``, and ``elena_jax_kernel`` runs
the loop as a Numba kernel inside the XLA program (``elena_jax.kernels``).
"""

from __future__ import annotations

import functools
import warnings

import jax.numpy as jnp
import numpy as np
from jax import lax

from ._common import random_boxes, torch

META = {
    "origin": "greedy NMS (mmcv.ops.nms CPU reference; every detector's final step)",
    "views": "fancy-index gather boxes[order]; row and tail views b[i, :2], b[i + 1:, 2:]",
    "inplace": "suppressed[i + 1:] |= ... on a slice; keep[order] = ... (fancy scatter)",
    "note": "data-dependent control flow (if suppressed[i]) in a Python loop; boxes = 4 * sqrt(n)",
}


def numpy_fn(boxes, scores, iou_thr=0.5):
    order = np.argsort(-scores, kind="mergesort")
    b = boxes[order]
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    suppressed = np.zeros(b.shape[0], dtype=np.bool_)
    for i in range(b.shape[0]):
        if suppressed[i]:
            continue
        lt = np.maximum(b[i, :2], b[i + 1 :, :2])
        rb = np.minimum(b[i, 2:], b[i + 1 :, 2:])
        wh = np.maximum(rb - lt, 0.0)
        inter = wh[:, 0] * wh[:, 1]
        iou = inter / (area[i] + area[i + 1 :] - inter)
        suppressed[i + 1 :] |= iou > iou_thr
    keep = np.zeros(b.shape[0], dtype=np.bool_)
    keep[order] = ~suppressed
    return keep


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    count = 4 * int(np.sqrt(n))  # the loop is quadratic: 400, 1264, 4000 boxes
    extent = 300.0 * np.sqrt(count / 400)  # about the same overlap density at every size
    return random_boxes(count, rng, extent, extent), rng.uniform(size=count)


def _iou_matrix(b):
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = jnp.maximum(b[:, None, :2], b[None, :, :2])
    rb = jnp.minimum(b[:, None, 2:], b[None, :, 2:])
    wh = jnp.maximum(rb - lt, 0.0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area[:, None] + area[None, :] - inter)


def jax_at(boxes, scores, iou_thr=0.5):
    """The IoU matrix, a fori_loop over its rows, and a scatter back to input order."""
    order = jnp.argsort(-scores, stable=True)
    over = _iou_matrix(boxes[order]) > iou_thr
    n = boxes.shape[0]
    idx = jnp.arange(n)

    def step(i, suppressed):
        return suppressed | (over[i] & (idx > i) & ~suppressed[i])

    suppressed = lax.fori_loop(0, n, step, jnp.zeros(n, bool))
    return jnp.zeros(n, bool).at[order].set(~suppressed)


def nms_rows(boxes, scores, iou_thr=0.5):
    """One IoU row per step (O(n) memory), inverse permutation by a gather."""
    order = jnp.argsort(-scores, stable=True)
    b = boxes[order]
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    n = boxes.shape[0]
    idx = jnp.arange(n)

    def step(i, suppressed):
        lt = jnp.maximum(b[i, :2], b[:, :2])
        rb = jnp.minimum(b[i, 2:], b[:, 2:])
        wh = jnp.maximum(rb - lt, 0.0)
        inter = wh[:, 0] * wh[:, 1]
        iou = inter / (area[i] + area - inter)
        return suppressed | ((iou > iou_thr) & (idx > i) & ~suppressed[i])

    suppressed = lax.fori_loop(0, n, step, jnp.zeros(n, bool))
    return ~suppressed[jnp.argsort(order)]


jax_restructured = {"rows": nms_rows}


@functools.cache
def _nms_kernel():
    from elena_jax.kernels import kernel

    def greedy_nms(boxes, order, iou_thr, keep):
        for ia in range(boxes.shape[0]):
            i = order[ia]
            if not keep[i]:
                continue
            area_i = (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
            for ib in range(ia + 1, boxes.shape[0]):
                j = order[ib]
                w = max(min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0]), 0.0)
                h = max(min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1]), 0.0)
                area_j = (boxes[j, 2] - boxes[j, 0]) * (boxes[j, 3] - boxes[j, 1])
                if w * h / (area_i + area_j - w * h) > iou_thr:
                    keep[j] = False

    k = kernel(greedy_nms, outputs=("keep",))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NB: numba's built-in CUDA target warns that it moved to numba-cuda
        try:
            from . import _nms_cuda
        except ImportError:  # no CUDA target for numba: the kernel runs on the CPU only
            return k
    k.cuda(launch=(1, _nms_cuda.THREADS))(_nms_cuda.greedy_nms_gpu)
    return k


def nms_elena_kernel(boxes, scores, iou_thr=0.5):
    """The loop as a Numba kernel called on JAX arrays (one custom call in the XLA program; on a
    GPU a numba.cuda body, bench/cases/_nms_cuda.py), the boxes sorted by score before it."""
    order = jnp.argsort(-scores, stable=True)
    return _nms_kernel()(boxes, order, iou_thr, jnp.ones(boxes.shape[0], bool))


extra_jax = {"elena_jax_kernel": nms_elena_kernel}
SKIP = {
    "torch_compile": "the Python loop over up to 4000 boxes with a data-dependent "
    "`if` would be unrolled by Dynamo with a graph break per iteration",
}


def torch_fn(boxes, scores, iou_thr=0.5):
    order = torch.argsort(-scores, stable=True)
    b = boxes[order]
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    suppressed = torch.zeros(b.shape[0], dtype=torch.bool, device=b.device)
    for i in range(b.shape[0]):
        if suppressed[i]:
            continue
        lt = torch.maximum(b[i, :2], b[i + 1 :, :2])
        rb = torch.minimum(b[i, 2:], b[i + 1 :, 2:])
        wh = (rb - lt).clamp_(min=0.0)
        inter = wh[:, 0] * wh[:, 1]
        iou = inter / (area[i] + area[i + 1 :] - inter)
        suppressed[i + 1 :] |= iou > iou_thr
    keep = torch.zeros(b.shape[0], dtype=torch.bool, device=b.device)
    keep[order] = ~suppressed
    return keep
