"""Detection post-processing cases (mmdetection's heads and anchor generators).

Written for this benchmark after the structure of mmdetection's functions:
strided column views (``[:, 0::4]``), in-place scaling of column views,
in-place clamps with ``out=``, and fresh outputs filled view by view.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from . import Case, register


def _boxes(n, rng, width=1333.0, height=800.0):
    xy = rng.uniform(0, [width * 0.9, height * 0.9], (n, 2))
    wh = rng.uniform(4, 200, (n, 2))
    return np.concatenate([xy, xy + wh], axis=1)


def _lane(shape):
    return lax.broadcasted_iota(jnp.int32, shape, len(shape) - 1)


# --- delta2bbox (offset2bbox) ----------------------------------------------------------------
def delta2bbox(rois, deltas, max_h=800, max_w=1333):
    px = (rois[:, 0] + rois[:, 2]) * 0.5
    py = (rois[:, 1] + rois[:, 3]) * 0.5
    pw = rois[:, 2] - rois[:, 0]
    ph = rois[:, 3] - rois[:, 1]
    dw = np.clip(deltas[:, 2::4], -4.135, 4.135)
    dh = np.clip(deltas[:, 3::4], -4.135, 4.135)
    gw = pw[:, None] * np.exp(dw)
    gh = ph[:, None] * np.exp(dh)
    gx = px[:, None] + pw[:, None] * deltas[:, 0::4]
    gy = py[:, None] + ph[:, None] * deltas[:, 1::4]
    boxes = np.empty_like(deltas)
    boxes[:, 0::4] = gx - gw * 0.5
    boxes[:, 1::4] = gy - gh * 0.5
    boxes[:, 2::4] = gx + gw * 0.5
    boxes[:, 3::4] = gy + gh * 0.5
    np.clip(boxes[:, 0::2], 0, max_w, out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, max_h, out=boxes[:, 1::2])
    return boxes


def _decode_parts(rois, deltas):
    px = (rois[:, 0] + rois[:, 2]) * 0.5
    py = (rois[:, 1] + rois[:, 3]) * 0.5
    pw = rois[:, 2] - rois[:, 0]
    ph = rois[:, 3] - rois[:, 1]
    gw = pw[:, None] * jnp.exp(jnp.clip(deltas[:, 2::4], -4.135, 4.135))
    gh = ph[:, None] * jnp.exp(jnp.clip(deltas[:, 3::4], -4.135, 4.135))
    gx = px[:, None] + pw[:, None] * deltas[:, 0::4]
    gy = py[:, None] + ph[:, None] * deltas[:, 1::4]
    return gx, gy, gw, gh


def delta2bbox_at(rois, deltas, max_h=800, max_w=1333):
    gx, gy, gw, gh = _decode_parts(rois, deltas)
    boxes = jnp.empty_like(deltas)
    boxes = boxes.at[:, 0::4].set(gx - gw * 0.5)
    boxes = boxes.at[:, 1::4].set(gy - gh * 0.5)
    boxes = boxes.at[:, 2::4].set(gx + gw * 0.5)
    boxes = boxes.at[:, 3::4].set(gy + gh * 0.5)
    boxes = boxes.at[:, 0::2].set(jnp.clip(boxes[:, 0::2], 0, max_w))
    return boxes.at[:, 1::2].set(jnp.clip(boxes[:, 1::2], 0, max_h))


def delta2bbox_stack(rois, deltas, max_h=800, max_w=1333):
    gx, gy, gw, gh = _decode_parts(rois, deltas)
    parts = [jnp.clip(gx - gw * 0.5, 0, max_w), jnp.clip(gy - gh * 0.5, 0, max_h),
             jnp.clip(gx + gw * 0.5, 0, max_w), jnp.clip(gy + gh * 0.5, 0, max_h)]
    return jnp.stack(parts, axis=-1).reshape(deltas.shape)


def delta2bbox_lanes(rois, deltas, max_h=800, max_w=1333):
    k = deltas.shape[1] // 4
    lane = _lane(deltas.shape) % 4
    px = (rois[:, 0] + rois[:, 2]) * 0.5
    py = (rois[:, 1] + rois[:, 3]) * 0.5
    pw = rois[:, 2] - rois[:, 0]
    ph = rois[:, 3] - rois[:, 1]
    d = deltas.reshape(-1, k, 4)
    gw = (pw[:, None] * jnp.exp(jnp.clip(d[..., 2], -4.135, 4.135)))[..., None]
    gh = (ph[:, None] * jnp.exp(jnp.clip(d[..., 3], -4.135, 4.135)))[..., None]
    gx = (px[:, None] + pw[:, None] * d[..., 0])[..., None]
    gy = (py[:, None] + ph[:, None] * d[..., 1])[..., None]
    lane = lane.reshape(d.shape)
    centre = jnp.where(lane % 2 == 0, gx, gy)
    half = jnp.where(lane % 2 == 0, gw, gh) * 0.5
    out = jnp.where(lane < 2, centre - half, centre + half)
    return jnp.clip(out, 0, jnp.where(lane % 2 == 0, max_w, max_h)).reshape(deltas.shape)


def _delta_inputs(classes):
    def make(n, rng):
        n = max(1, n // classes)  # n boxes of one class; n / classes rows of class-specific boxes
        rois = _boxes(n, rng)
        return rois, rng.normal(scale=0.5, size=(n, 4 * classes))

    return make


register(Case("delta2bbox", delta2bbox, _delta_inputs(1), delta2bbox_at,
              {"stack": delta2bbox_stack, "lanes": delta2bbox_lanes},
              "mmdet DeltaXYWHBBoxCoder (Faster/Mask R-CNN, RetinaNet)",
              "strided column views [:, k::4]; fresh output filled by strided writes; np.clip(out=) on views"))
register(Case("delta2bbox_cls84", delta2bbox, _delta_inputs(21), delta2bbox_at,
              {"stack": delta2bbox_stack, "lanes": delta2bbox_lanes},
              "class-specific deltas (n/21 x 84) of a Faster R-CNN bbox head (21 classes)",
              "stride-4 column views over 84 columns; strided writes; np.clip(out=) on views"))


# --- tblr2bbox ------------------------------------------------------------------------------------
def tblr2bbox(priors, tblr, normalizer=4.0, max_h=800, max_w=1333):
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


def tblr2bbox_at(priors, tblr, normalizer=4.0, max_h=800, max_w=1333):
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


def tblr2bbox_stack(priors, tblr, normalizer=4.0, max_h=800, max_w=1333):
    cx = (priors[:, 0] + priors[:, 2]) / 2
    cy = (priors[:, 1] + priors[:, 3]) / 2
    w = priors[:, 2] - priors[:, 0]
    h = priors[:, 3] - priors[:, 1]
    t, b, left, r = (tblr[:, i] * normalizer for i in range(4))
    return jnp.stack([jnp.clip(cx - left * w, 0, max_w), jnp.clip(cy - t * h, 0, max_h),
                      jnp.clip(cx + r * w, 0, max_w), jnp.clip(cy + b * h, 0, max_h)], axis=-1)


def tblr2bbox_lanes(priors, tblr, normalizer=4.0, max_h=800, max_w=1333):
    lane = _lane(priors.shape)
    cx = ((priors[:, 0] + priors[:, 2]) / 2)[:, None]
    cy = ((priors[:, 1] + priors[:, 3]) / 2)[:, None]
    w = (priors[:, 2] - priors[:, 0])[:, None]
    h = (priors[:, 3] - priors[:, 1])[:, None]
    loc = tblr * normalizer * jnp.where(lane < 2, h, w)
    top, bottom, left, right = (loc[:, i : i + 1] for i in range(4))
    out = jnp.where(lane == 0, cx - left, jnp.where(lane == 1, cy - top, jnp.where(lane == 2, cx + right,
                                                                                 cy + bottom)))
    return jnp.clip(out, 0, jnp.where(lane % 2 == 0, max_w, max_h))


register(Case("tblr2bbox", tblr2bbox, lambda n, rng: (_boxes(n, rng), rng.uniform(0, 1, (n, 4))),
              tblr2bbox_at, {"stack": tblr2bbox_stack, "lanes": tblr2bbox_lanes},
              "mmdet TBLRBBoxCoder (FSAF, GFL heads)",
              "in-place scaling of column views loc[:, :2] *= h; column writes; np.clip(out=) on strided views"))


# --- bbox2delta ---------------------------------------------------------------------------------------
def bbox2delta(proposals, gt, means=(0.0, 0.0, 0.0, 0.0), stds=(0.1, 0.1, 0.2, 0.2)):
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


def _b2d_parts(p, g):
    px, py = (p[:, 0] + p[:, 2]) * 0.5, (p[:, 1] + p[:, 3]) * 0.5
    pw, ph = p[:, 2] - p[:, 0], p[:, 3] - p[:, 1]
    gx, gy = (g[:, 0] + g[:, 2]) * 0.5, (g[:, 1] + g[:, 3]) * 0.5
    gw, gh = g[:, 2] - g[:, 0], g[:, 3] - g[:, 1]
    return [(gx - px) / pw, (gy - py) / ph, jnp.log(gw / pw), jnp.log(gh / ph)]


def bbox2delta_at(p, g, means=(0.0, 0.0, 0.0, 0.0), stds=(0.1, 0.1, 0.2, 0.2)):
    d = jnp.empty_like(p)
    for i, part in enumerate(_b2d_parts(p, g)):
        d = d.at[:, i].set(part)
    return (d - jnp.array(means)) / jnp.array(stds)


def bbox2delta_stack(p, g, means=(0.0, 0.0, 0.0, 0.0), stds=(0.1, 0.1, 0.2, 0.2)):
    return (jnp.stack(_b2d_parts(p, g), axis=-1) - jnp.array(means)) / jnp.array(stds)


register(Case("bbox2delta", bbox2delta, lambda n, rng: (_boxes(n, rng), _boxes(n, rng)), bbox2delta_at,
              {"stack": bbox2delta_stack}, "mmdet DeltaXYWHBBoxCoder.encode (training targets)",
              "column views; fresh output filled column by column; in-place -= and /= with broadcasting"))


# --- clip, flip, xywh <-> xyxy -----------------------------------------------------------------------------
def clip_boxes(boxes, max_h=800, max_w=1333):
    np.clip(boxes[:, 0::2], 0, max_w, out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, max_h, out=boxes[:, 1::2])
    return boxes


def clip_boxes_at(boxes, max_h=800, max_w=1333):
    boxes = boxes.at[:, 0::2].set(jnp.clip(boxes[:, 0::2], 0, max_w))
    return boxes.at[:, 1::2].set(jnp.clip(boxes[:, 1::2], 0, max_h))


def clip_boxes_lanes(boxes, max_h=800, max_w=1333):
    return jnp.clip(boxes, 0, jnp.where(_lane(boxes.shape) % 2 == 0, max_w, max_h))


def _shifted_boxes(n, rng):
    return (_boxes(n, rng) * 1.2 - 50,)


register(Case("clip_boxes", clip_boxes, _shifted_boxes, clip_boxes_at, {"lanes": clip_boxes_lanes},
              "mmdet bbox clipping to the image (every detector's post-processing)",
              "in-place np.clip(out=) on strided views [:, 0::2], [:, 1::2] of an argument"))


def bbox_flip(bboxes, width=1333.0):
    flipped = bboxes.copy()
    flipped[:, 0::4] = width - bboxes[:, 2::4]
    flipped[:, 2::4] = width - bboxes[:, 0::4]
    return flipped


def bbox_flip_at(bboxes, width=1333.0):
    flipped = bboxes.at[:, 0::4].set(width - bboxes[:, 2::4])
    return flipped.at[:, 2::4].set(width - bboxes[:, 0::4])


def bbox_flip_lanes(bboxes, width=1333.0):
    lane = _lane(bboxes.shape)
    swapped = jnp.where(lane == 0, width - bboxes[:, 2:3], jnp.where(lane == 2, width - bboxes[:, 0:1], bboxes))
    return swapped


register(Case("bbox_flip", bbox_flip, lambda n, rng: (_boxes(n, rng),), bbox_flip_at, {"lanes": bbox_flip_lanes},
              "mmdet bbox_flip (test-time augmentation)",
              "copy, then strided writes [:, 0::4] / [:, 2::4] from other strided views"))


def xyxy_xywh_roundtrip(b):
    b[:, 2:] -= b[:, :2]
    b[:, :2] += b[:, 2:] * 0.5
    c = b.copy()
    c[:, :2] -= c[:, 2:] * 0.5
    c[:, 2:] += c[:, :2]
    return b, c


def xyxy_xywh_at(b):
    b = b.at[:, 2:].add(-b[:, :2])
    b = b.at[:, :2].add(b[:, 2:] * 0.5)
    c = b.at[:, :2].add(-b[:, 2:] * 0.5)
    return b, c.at[:, 2:].add(c[:, :2])


def xyxy_xywh_stack(b):
    wh = b[:, 2:] - b[:, :2]
    cxy = b[:, :2] + wh * 0.5
    xy = cxy - wh * 0.5
    return jnp.concatenate([cxy, wh], axis=1), jnp.concatenate([xy, wh + xy], axis=1)


register(Case("xyxy_xywh", xyxy_xywh_roundtrip, lambda n, rng: (_boxes(n, rng),), xyxy_xywh_at,
              {"stack": xyxy_xywh_stack}, "box format conversions (YOLO/DETR heads, COCO export)",
              "in-place -= / += between overlapping halves b[:, 2:], b[:, :2] of an argument; copy"))


# --- anchors --------------------------------------------------------------------------------------------------
def grid_anchors(base_anchors, feat_h, feat_w, stride):
    shift_x = np.arange(feat_w) * stride
    shift_y = np.arange(feat_h) * stride
    shifts = np.zeros((feat_h, feat_w, 4))
    shifts[:, :, 0::2] = shift_x[None, :, None]
    shifts[:, :, 1::2] = shift_y[:, None, None]
    anchors = base_anchors[None, None, :, :] + shifts[:, :, None, :]
    return anchors.reshape(-1, 4)


def grid_anchors_at(base_anchors, feat_h, feat_w, stride):
    shift_x = jnp.arange(feat_w) * stride
    shift_y = jnp.arange(feat_h) * stride
    shifts = jnp.zeros((feat_h, feat_w, 4))
    shifts = shifts.at[:, :, 0::2].set(jnp.broadcast_to(shift_x[None, :, None], (feat_h, feat_w, 2)))
    shifts = shifts.at[:, :, 1::2].set(jnp.broadcast_to(shift_y[:, None, None], (feat_h, feat_w, 2)))
    return (base_anchors[None, None] + shifts[:, :, None, :]).reshape(-1, 4)


def grid_anchors_lanes(base_anchors, feat_h, feat_w, stride):
    lane = lax.broadcasted_iota(jnp.int32, (feat_h, feat_w, 4), 2)
    sx = (jnp.arange(feat_w) * stride)[None, :, None]
    sy = (jnp.arange(feat_h) * stride)[:, None, None]
    shifts = jnp.where(lane % 2 == 0, sx, sy).astype(base_anchors.dtype)
    return (base_anchors[None, None] + shifts[:, :, None, :]).reshape(-1, 4)


def gen_base_anchors(base_size, ratios, scales):
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


def gen_base_anchors_at(base_size, ratios, scales):
    w = h = float(base_size)
    x_c, y_c = 0.5 * (w - 1), 0.5 * (h - 1)
    h_ratios = jnp.sqrt(ratios)
    ws = (w / h_ratios[:, None] * scales[None, :]).reshape(-1)
    hs = (h * h_ratios[:, None] * scales[None, :]).reshape(-1)
    a = jnp.empty((ws.size, 4))
    a = a.at[:, 0].set(x_c - 0.5 * (ws - 1))
    a = a.at[:, 1].set(y_c - 0.5 * (hs - 1))
    a = a.at[:, 2].set(x_c + 0.5 * (ws - 1))
    return jnp.round(a.at[:, 3].set(y_c + 0.5 * (hs - 1)))


def gen_base_anchors_stack(base_size, ratios, scales):
    w = h = float(base_size)
    x_c, y_c = 0.5 * (w - 1), 0.5 * (h - 1)
    h_ratios = jnp.sqrt(ratios)
    ws = (w / h_ratios[:, None] * scales[None, :]).reshape(-1)
    hs = (h * h_ratios[:, None] * scales[None, :]).reshape(-1)
    return jnp.round(jnp.stack([x_c - 0.5 * (ws - 1), y_c - 0.5 * (hs - 1), x_c + 0.5 * (ws - 1),
                                y_c + 0.5 * (hs - 1)], axis=-1))


def _anchor_params(n, rng):
    k = max(1, int(np.sqrt(n / 9)))  # n anchors: k ratios x k scales
    return 16, np.linspace(0.5, 2.0, k), np.linspace(4.0, 32.0, k)


def _grid_inputs(n, rng):
    side = max(1, int(np.sqrt(n / 9)))
    ratios, scales = np.array([0.5, 1.0, 2.0]), np.array([8.0, 16.0, 32.0])
    return gen_base_anchors(16, ratios, scales), side, side, 16


register(Case("gen_base_anchors", gen_base_anchors, _anchor_params, gen_base_anchors_at,
              {"stack": gen_base_anchors_stack}, "mmdet AnchorGenerator.gen_single_level_base_anchors",
              "fresh output filled column by column; broadcasting views [:, None], [None, :]; reshape views",
              static=(0,)))
register(Case("grid_anchors", grid_anchors, _grid_inputs, grid_anchors_at, {"lanes": grid_anchors_lanes},
              "mmdet AnchorGenerator.single_level_grid_priors (anchors over a feature map)",
              "strided writes shifts[:, :, 0::2] with broadcasting; newaxis views; reshape view of the result",
              static=(1, 2, 3)))


def valid_flags(valid_x_in, valid_y_in, num_base_anchors):
    valid_x = np.zeros(valid_x_in.shape[0], dtype=bool)
    valid_y = np.zeros(valid_y_in.shape[0], dtype=bool)
    valid_x[:] = valid_x_in > 0
    valid_y[:] = valid_y_in > 0
    valid = (valid_x[None, :] & valid_y[:, None]).reshape(-1)
    return np.broadcast_to(valid[:, None], (valid.size, num_base_anchors)).reshape(-1)


def valid_flags_at(valid_x_in, valid_y_in, num_base_anchors):
    valid_x = jnp.zeros(valid_x_in.shape[0], dtype=bool).at[:].set(valid_x_in > 0)
    valid_y = jnp.zeros(valid_y_in.shape[0], dtype=bool).at[:].set(valid_y_in > 0)
    valid = (valid_x[None, :] & valid_y[:, None]).reshape(-1)
    return jnp.broadcast_to(valid[:, None], (valid.size, num_base_anchors)).reshape(-1)


def _valid_inputs(n, rng):
    side = max(1, int(np.sqrt(n / 9)))
    return rng.normal(size=side) + 1, rng.normal(size=side) + 1, 9


register(Case("valid_flags", valid_flags, _valid_inputs, valid_flags_at, {},
              "mmdet AnchorGenerator.single_level_valid_flags",
              "fresh bool arrays written through [:]; newaxis views; broadcast_to (read-only) + reshape",
              static=(2,)))


# --- greedy NMS: sequential, data-dependent ------------------------------------------------------------------
def nms(boxes, scores, iou_thr=0.5):
    """Greedy non-maximum suppression; returns the keep mask in input order."""
    order = np.argsort(-scores, kind="stable")
    b = boxes[order]
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    suppressed = np.zeros(b.shape[0], dtype=bool)
    for i in range(b.shape[0]):
        if suppressed[i]:
            continue
        lt = np.maximum(b[i, :2], b[i + 1 :, :2])
        rb = np.minimum(b[i, 2:], b[i + 1 :, 2:])
        wh = np.clip(rb - lt, 0, None)
        inter = wh[:, 0] * wh[:, 1]
        iou = inter / (area[i] + area[i + 1 :] - inter)
        suppressed[i + 1 :] |= iou > iou_thr
    keep = np.zeros(b.shape[0], dtype=bool)
    keep[order] = ~suppressed
    return keep


def nms_xla(boxes, scores, iou_thr=0.5):
    """A pure-XLA formulation: the IoU matrix, then a sequential scan of it."""
    order = jnp.argsort(-scores, stable=True)
    b = boxes[order]
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = jnp.maximum(b[:, None, :2], b[None, :, :2])
    rb = jnp.minimum(b[:, None, 2:], b[None, :, 2:])
    wh = jnp.clip(rb - lt, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    over = inter / (area[:, None] + area[None, :] - inter) > iou_thr
    n = b.shape[0]
    later = jnp.arange(n)[None, :] > jnp.arange(n)[:, None]

    def step(i, suppressed):
        return suppressed | (over[i] & later[i] & ~suppressed[i])

    suppressed = lax.fori_loop(0, n, step, jnp.zeros(n, bool))
    return jnp.zeros(n, bool).at[order].set(~suppressed)


def _nms_inputs(n, rng):
    n = min(n, 2000)  # quadratic: the IoU matrix
    return _boxes(n, rng, 300.0, 300.0), rng.uniform(size=n)


register(Case("nms", nms, _nms_inputs, None, {"xla_scan": nms_xla},
              "greedy NMS (every detector's final step; mmcv.ops.nms)",
              "fancy-index gather/scatter; in-place |= on a slice; data-dependent control flow (skip)"))
