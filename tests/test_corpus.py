"""A corpus of realistic NumPy programs, each run by NumPy and by elena_jax at two sizes (passes off, on;
tests/marks.registrar).

Domains: detection post-processing (anchors, box coders, clipping, flips, IoU),
image processing (in-place filters, normalization, padding, color conversion),
stencils and PDE updates, statistics and signal processing. Each program is
written the way users write NumPy (views, in-place writes, helpers, static
loops); its input maker ``make(n, rng)`` gives the arguments at size ``n``.
Programs that need a NumPy function elena_jax does not support yet stay here,
marked ``xfail(strict=True)`` with the missing function as the reason.
"""

import numpy as np
import pytest
from marks import registrar

from elena_jax.testing import check_against_numpy

SIZES = (3, 11)
CORPUS = []


case = registrar(CORPUS, SIZES)


def _boxes(n, rng, width=100.0, height=80.0):
    xy = rng.uniform(0, [width * 0.9, height * 0.9], (n, 2))
    wh = rng.uniform(2, 30, (n, 2))
    return np.concatenate([xy, xy + wh], axis=1)


def _image(n, rng, channels=3):
    return rng.uniform(0, 255, (n + 2, n + 3, channels))


# === detection post-processing ===========================================================
@case(lambda n, rng: (8, np.array([0.5, 1.0, 2.0]), np.linspace(1.0, 4.0, max(1, n // 3))))
def base_anchors(base_size, ratios, scales):
    w = h = float(base_size)
    cx, cy = 0.5 * (w - 1), 0.5 * (h - 1)
    h_ratios = np.sqrt(ratios)
    w_ratios = 1 / h_ratios
    ws = (w * w_ratios[:, None] * scales[None, :]).reshape(-1)
    hs = (h * h_ratios[:, None] * scales[None, :]).reshape(-1)
    anchors = np.empty((ws.size, 4))
    anchors[:, 0] = cx - 0.5 * (ws - 1)
    anchors[:, 1] = cy - 0.5 * (hs - 1)
    anchors[:, 2] = cx + 0.5 * (ws - 1)
    anchors[:, 3] = cy + 0.5 * (hs - 1)
    return np.round(anchors)


@case(lambda n, rng: (_boxes(3, rng), n, n + 2, 16))
def grid_anchors(base, feat_h, feat_w, stride):
    shift_x = np.arange(feat_w) * stride
    shift_y = np.arange(feat_h) * stride
    xx, yy = np.meshgrid(shift_x, shift_y)
    shifts = np.stack([xx.ravel(), yy.ravel(), xx.ravel(), yy.ravel()], axis=1)
    return (base[None, :, :] + shifts[:, None, :]).reshape(-1, 4)


@case(lambda n, rng: (n + 2, n + 4, n, n + 1, 3))
def valid_flags(feat_h, feat_w, valid_h, valid_w, num_anchors):
    valid_x = np.zeros(feat_w, dtype=bool)
    valid_y = np.zeros(feat_h, dtype=bool)
    valid_x[:valid_w] = True
    valid_y[:valid_h] = True
    xx = np.tile(valid_x, feat_h)
    yy = np.repeat(valid_y, feat_w)
    valid = xx & yy
    return np.broadcast_to(valid[:, None], (valid.size, num_anchors)).reshape(-1)


@case(lambda n, rng: (_boxes(n, rng), rng.normal(scale=0.3, size=(n, 8))))
def delta2bbox(rois, deltas, means=(0.0, 0.0, 0.0, 0.0), stds=(0.1, 0.1, 0.2, 0.2), max_shape=(80, 100)):
    deltas = deltas * np.tile(np.array(stds), deltas.shape[1] // 4) + np.tile(np.array(means), deltas.shape[1] // 4)
    dx, dy, dw, dh = deltas[:, 0::4], deltas[:, 1::4], deltas[:, 2::4], deltas[:, 3::4]
    max_ratio = np.abs(np.log(16 / 1000))
    dw = np.clip(dw, -max_ratio, max_ratio)
    dh = np.clip(dh, -max_ratio, max_ratio)
    px = ((rois[:, 0] + rois[:, 2]) * 0.5)[:, None]
    py = ((rois[:, 1] + rois[:, 3]) * 0.5)[:, None]
    pw = (rois[:, 2] - rois[:, 0])[:, None]
    ph = (rois[:, 3] - rois[:, 1])[:, None]
    gw, gh = pw * np.exp(dw), ph * np.exp(dh)
    gx, gy = px + pw * dx, py + ph * dy
    boxes = np.zeros_like(deltas)
    boxes[:, 0::4] = gx - gw * 0.5
    boxes[:, 1::4] = gy - gh * 0.5
    boxes[:, 2::4] = gx + gw * 0.5
    boxes[:, 3::4] = gy + gh * 0.5
    np.clip(boxes[:, 0::2], 0, max_shape[1], out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, max_shape[0], out=boxes[:, 1::2])
    return boxes


@case(lambda n, rng: (_boxes(n, rng), _boxes(n, rng)))
def bbox2delta(proposals, gt, stds=(0.1, 0.1, 0.2, 0.2)):
    p_ctr = (proposals[:, :2] + proposals[:, 2:]) * 0.5
    p_wh = proposals[:, 2:] - proposals[:, :2]
    g_ctr = (gt[:, :2] + gt[:, 2:]) * 0.5
    g_wh = gt[:, 2:] - gt[:, :2]
    deltas = np.empty_like(proposals)
    deltas[:, :2] = (g_ctr - p_ctr) / p_wh
    deltas[:, 2:] = np.log(g_wh / p_wh)
    deltas /= np.array(stds)
    return deltas


@case(lambda n, rng: (_boxes(n, rng), rng.uniform(0, 1, (n, 4))))
def tblr2bbox(priors, tblr, normalizer=4.0, max_shape=(80, 100)):
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
    np.clip(boxes[:, 0::2], 0, max_shape[1], out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, max_shape[0], out=boxes[:, 1::2])
    return boxes


@case(lambda n, rng: (rng.uniform(0, 100, (n, 2)), rng.uniform(0, 20, (n, 4))))
def distance2bbox(points, distance, max_shape=(80, 100)):
    x1 = points[:, 0] - distance[:, 0]
    y1 = points[:, 1] - distance[:, 1]
    x2 = points[:, 0] + distance[:, 2]
    y2 = points[:, 1] + distance[:, 3]
    x1 = np.clip(x1, 0, max_shape[1])
    y1 = np.clip(y1, 0, max_shape[0])
    x2 = np.clip(x2, 0, max_shape[1])
    y2 = np.clip(y2, 0, max_shape[0])
    return np.stack([x1, y1, x2, y2], -1)


@case(lambda n, rng: (rng.uniform(20, 60, (n, 2)), _boxes(n, rng)))
def bbox2distance(points, bbox, max_dis=30.0, eps=0.1):
    out = np.empty((points.shape[0], 4))
    out[:, 0] = points[:, 0] - bbox[:, 0]
    out[:, 1] = points[:, 1] - bbox[:, 1]
    out[:, 2] = bbox[:, 2] - points[:, 0]
    out[:, 3] = bbox[:, 3] - points[:, 1]
    np.clip(out, 0, max_dis - eps, out=out)
    return out


@case(lambda n, rng: (_boxes(n, rng) * 1.3 - 10,))
def clip_boxes_in_place(boxes, img_shape=(80, 100)):
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0, img_shape[1])
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0, img_shape[0])


def _flip(bboxes, img_shape, direction):
    flipped = bboxes.copy()
    h, w = img_shape
    if direction in ("horizontal", "diagonal"):
        flipped[..., 0::4] = w - bboxes[..., 2::4]
        flipped[..., 2::4] = w - bboxes[..., 0::4]
    if direction in ("vertical", "diagonal"):
        flipped[..., 1::4] = h - bboxes[..., 3::4]
        flipped[..., 3::4] = h - bboxes[..., 1::4]
    return flipped


@case(lambda n, rng: (np.concatenate([_boxes(n, rng), _boxes(n, rng)], axis=1),))
def bbox_flip_all_directions(bboxes):
    return [_flip(bboxes, (80, 100), d) for d in ("horizontal", "vertical", "diagonal")]


@case(lambda n, rng: (_boxes(n, rng),))
def xyxy2xywh_in_place(b):
    b[:, 2] -= b[:, 0]
    b[:, 3] -= b[:, 1]
    return b


@case(lambda n, rng: (rng.uniform(10, 50, (n, 4)),))
def cxcywh2xyxy(b):
    out = np.empty_like(b)
    half = b[:, 2:] / 2
    out[:, :2] = b[:, :2] - half
    out[:, 2:] = b[:, :2] + half
    return out


@case(lambda n, rng: (_boxes(n, rng), _boxes(n + 2, rng)))
def bbox_overlaps_iou(a, b, eps=1e-6):
    area1 = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area2 = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    overlap = wh[..., 0] * wh[..., 1]
    union = np.maximum(area1[:, None] + area2[None, :] - overlap, eps)
    return overlap / union


@case(lambda n, rng: (_boxes(n, rng), _boxes(n, rng)))
def aligned_giou(a, b, eps=1e-6):
    area1 = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area2 = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = np.maximum(a[:, :2], b[:, :2])
    rb = np.minimum(a[:, 2:], b[:, 2:])
    wh = (rb - lt).clip(min=0)
    overlap = wh[:, 0] * wh[:, 1]
    union = area1 + area2 - overlap
    ious = overlap / np.maximum(union, eps)
    enclose_lt = np.minimum(a[:, :2], b[:, :2])
    enclose_rb = np.maximum(a[:, 2:], b[:, 2:])
    enclose_wh = np.clip(enclose_rb - enclose_lt, 0, None)
    enclose_area = np.maximum(enclose_wh[:, 0] * enclose_wh[:, 1], eps)
    return ious - (enclose_area - union) / enclose_area


@case(lambda n, rng: (_boxes(n, rng), rng.uniform(size=n)))
def filter_small_boxes(boxes, scores, min_size=8.0, score_thr=0.3):
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    keep = (w >= min_size) & (h >= min_size)
    scores[~keep] = 0.0
    scores[scores < score_thr] = 0.0
    return scores, keep.sum()


@case(lambda n, rng: (_boxes(n, rng), np.array([1.5, 1.25, 1.5, 1.25])))
def rescale_boxes_to_original(boxes, scale_factor):
    boxes /= scale_factor
    boxes[:, 0::2] -= 2.0
    boxes[:, 1::2] -= 1.0
    return boxes


@case(lambda n, rng: (rng.uniform(0, 100, (n + 3, 2)), _boxes(n, rng)))
def points_inside_boxes(points, gt):
    x = points[:, 0][:, None]
    y = points[:, 1][:, None]
    left, top = x - gt[None, :, 0], y - gt[None, :, 1]
    right, bottom = gt[None, :, 2] - x, gt[None, :, 3] - y
    ltrb = np.stack([left, top, right, bottom], -1)
    inside = ltrb.min(axis=-1) > 0
    areas = np.broadcast_to(((gt[:, 2] - gt[:, 0]) * (gt[:, 3] - gt[:, 1]))[None, :], inside.shape).copy()
    areas[~inside] = np.inf
    return inside, areas.argmin(axis=1)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@case(lambda n, rng: (rng.normal(size=(n, n + 1, 3, 6)), np.array([[10.0, 13.0], [16.0, 30.0], [33.0, 23.0]]), 8))
def yolo_decode(pred, anchors, stride):
    h, w = pred.shape[:2]
    pred[..., :2] = _sigmoid(pred[..., :2])
    pred[..., 4:] = _sigmoid(pred[..., 4:])
    pred[..., 2:4] = np.exp(np.clip(pred[..., 2:4], -4, 4)) * anchors
    gy, gx = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    pred[..., 0] += gx[..., None]
    pred[..., 1] += gy[..., None]
    pred[..., :2] *= stride
    return pred.reshape(-1, 6)


@case(lambda n, rng: (n + 1, 100, [0.2, 0.5], [2.0]))
def ssd_priors(fmap, img, min_sizes, ratios):
    priors = []
    for i in range(fmap):
        for j in range(fmap):
            cx, cy = (j + 0.5) / fmap, (i + 0.5) / fmap
            for s in min_sizes:
                priors.append([cx, cy, s, s])
                for r in ratios:
                    priors.append([cx, cy, s * np.sqrt(r), s / np.sqrt(r)])
    out = np.array(priors) * img
    np.clip(out, 0, img, out=out)
    return out


@case(lambda n, rng: (rng.uniform(size=(n + 2, 5)), 4))
def topk_scores(scores, k):
    flat = scores.reshape(-1)
    order = np.argsort(-flat, kind="stable")[:k]
    labels = order % scores.shape[1]
    rows = order // scores.shape[1]
    return flat[order], labels, rows


@case(lambda n, rng: (rng.uniform(0, 100, (n, 5, 3)),))
def flip_keypoints(kpts, width=100.0, flip_pairs=((1, 2), (3, 4))):
    kpts[..., 0] = width - kpts[..., 0]
    for a, b in flip_pairs:
        kpts[:, [a, b]] = kpts[:, [b, a]]
    return kpts


@case(lambda n, rng: (rng.normal(size=(n + 1, 4)), rng.integers(0, 4, n + 1)))
def one_hot_targets_with_smoothing(logits, labels, eps=0.1):
    onehot = np.zeros_like(logits)
    onehot[np.arange(labels.shape[0]), labels] = 1.0
    onehot *= 1 - eps
    onehot += eps / logits.shape[1]
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -(onehot * logp).sum(axis=1).mean()


@case(lambda n, rng: (_boxes(n, rng), rng.uniform(size=n)))
def sort_boxes_by_score_then_area(boxes, scores):
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    order = np.lexsort((area, -scores))
    return boxes[order]


@case(lambda n, rng: ((64, 96), _boxes(n, rng), (48, 80)))
def yolo_scale_coords(img1_shape, coords, img0_shape):
    gain = min(img1_shape[0] / img0_shape[0], img1_shape[1] / img0_shape[1])
    pad = (img1_shape[1] - img0_shape[1] * gain) / 2, (img1_shape[0] - img0_shape[0] * gain) / 2
    coords[:, [0, 2]] -= pad[0]  # NB: augmented assignment through a fancy index
    coords[:, [1, 3]] -= pad[1]
    coords[:, :4] /= gain
    coords[:, 0].clip(0, img0_shape[1], out=coords[:, 0])
    coords[:, 1].clip(0, img0_shape[0], out=coords[:, 1])
    coords[:, 2].clip(0, img0_shape[1], out=coords[:, 2])
    coords[:, 3].clip(0, img0_shape[0], out=coords[:, 3])
    return coords


@case(lambda n, rng: (rng.uniform(size=(n + 2, 4)),))
def yolo_xywhn2xyxy(x, w=640, h=480, padw=3, padh=5):
    y = np.copy(x)
    y[:, 0] = w * (x[:, 0] - x[:, 2] / 2) + padw
    y[:, 1] = h * (x[:, 1] - x[:, 3] / 2) + padh
    y[:, 2] = w * (x[:, 0] + x[:, 2] / 2) + padw
    y[:, 3] = h * (x[:, 1] + x[:, 3] / 2) + padh
    return y


@case(lambda n, rng: (rng.uniform(0, 255, (n + 4, n + 7, 3)), (12, 12)))
def letterbox_nearest(im, new_shape, color=114.0):
    h, w = im.shape[:2]
    r = min(new_shape[0] / h, new_shape[1] / w)
    nh, nw = int(round(h * r)), int(round(w * r))
    ys = (np.arange(nh) / r).astype(np.int64)
    xs = (np.arange(nw) / r).astype(np.int64)
    resized = im[ys][:, xs]
    out = np.full((new_shape[0], new_shape[1], im.shape[2]), color)
    top, left = (new_shape[0] - nh) // 2, (new_shape[1] - nw) // 2
    out[top:top + nh, left:left + nw] = resized
    return out


@case(lambda n, rng: (_boxes(n, rng), _boxes(n + 1, rng)))
def bbox2roi(b0, b1):
    rois = []
    for i, b in enumerate((b0, b1)):
        idx = np.full((b.shape[0], 1), i, dtype=b.dtype)
        rois.append(np.concatenate([idx, b[:, :4]], axis=-1))
    return np.concatenate(rois, 0)


@case(lambda n, rng: (_boxes(3 * n, rng) - 5, rng.random(3 * n) > 0.2, (80, 100), 2))
def anchor_inside_flags(anchors, valid_flags, img_shape, allowed_border):
    h, w = img_shape
    return valid_flags & (anchors[:, 0] >= -allowed_border) & (anchors[:, 1] >= -allowed_border) & \
        (anchors[:, 2] < w + allowed_border) & (anchors[:, 3] < h + allowed_border)


@case(lambda n, rng: (rng.normal(size=(n, 4)), 2 * n + 1, rng.permutation(2 * n + 1)[:n]))
def unmap_to_all_anchors(data, count, inds, fill=0):
    ret = np.full((count,) + data.shape[1:], fill, dtype=data.dtype)
    ret[inds, :] = data
    return ret


# === image processing ===================================================================
@case(lambda n, rng: (_image(n, rng),))
def normalize_bgr_to_rgb(img, mean=(123.675, 116.28, 103.53), std=(58.395, 57.12, 57.375)):
    for c in range(3):
        img[..., c] -= mean[c]
        img[..., c] /= std[c]
    img[...] = img[..., ::-1]
    return img


@case(lambda n, rng: (_image(n, rng).astype(np.float32),))
def normalize_float32_broadcast(img):
    mean = np.array([0.485, 0.456, 0.406], dtype=np.float32) * 255
    std = np.array([0.229, 0.224, 0.225], dtype=np.float32) * 255
    img -= mean
    img /= std
    return img.transpose(2, 0, 1).copy()


@case(lambda n, rng: (rng.uniform(size=(n + 3, n + 4)),))
def box_blur_in_place(img):
    acc = img.copy()
    acc[1:] += img[:-1]
    acc[:-1] += img[1:]
    out = acc.copy()
    out[:, 1:] += acc[:, :-1]
    out[:, :-1] += acc[:, 1:]
    img[...] = out / 9.0


@case(lambda n, rng: (_image(n, rng),))
def rgb_to_gray(img):
    return img[..., 0] * 0.299 + img[..., 1] * 0.587 + img[..., 2] * 0.114


@case(lambda n, rng: (_image(n, rng),))
def rgb_to_ycbcr(img):
    m = np.array([[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]])
    ycc = img @ m.T
    ycc[..., 1:] += 128
    return ycc


@case(lambda n, rng: (rng.uniform(size=(n + 2, n + 3, 3)),))
def rgb_to_hsv_value_saturation(img):
    v = img.max(axis=-1)
    c = v - img.min(axis=-1)
    s = np.zeros_like(v)
    nz = v > 0
    s[nz] = 1.0
    np.divide(c, v, out=s, where=nz)
    return np.stack([s, v], axis=-1)


@case(lambda n, rng: (rng.uniform(size=(n + 1, n + 2)),))
def pad_modes(img):
    return np.pad(img, 2), np.pad(img, ((1, 2), (0, 1)), mode="edge"), np.pad(img, 1, mode="reflect")


@case(lambda n, rng: (rng.uniform(size=(n + 1, n + 2, 3)), 2))
def pad_by_writing_into_canvas(img, border):
    h, w, c = img.shape
    canvas = np.full((h + 2 * border, w + 2 * border, c), 114.0)
    canvas[border:border + h, border:border + w] = img
    return canvas


@case(lambda n, rng: (_image(n, rng),))
def horizontal_flip_in_place(img):
    img[:] = img[:, ::-1]


@case(lambda n, rng: (rng.uniform(size=(n + 2, n + 2)),))
def gamma_and_contrast(img, gamma=0.8, gain=1.3):
    np.power(img, gamma, out=img)
    img *= gain
    np.clip(img, 0.0, 1.0, out=img)
    return img


@case(lambda n, rng: (rng.uniform(size=(n + 3, n + 4)),))
def sobel_magnitude(img):
    gx = np.zeros_like(img)
    gy = np.zeros_like(img)
    gx[1:-1, 1:-1] = img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]
    gx[1:-1, 1:-1] -= img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2]
    gy[1:-1, 1:-1] = img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]
    gy[1:-1, 1:-1] -= img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:]
    return np.hypot(gx, gy)


@case(lambda n, rng: (rng.integers(0, 256, (n + 2, n + 3, 3)).astype(np.uint8),))
def uint8_brightness_saturating(img, delta=40):
    out = img.astype(np.int16) + delta
    np.clip(out, 0, 255, out=out)
    return out.astype(np.uint8), img + np.uint8(delta)  # NB: the second wraps around


@case(lambda n, rng: (rng.uniform(size=(n + 2, n + 1, 3)),))
def min_max_per_channel(img):
    lo = img.min(axis=(0, 1), keepdims=True)
    hi = img.max(axis=(0, 1), keepdims=True)
    img -= lo
    img /= hi - lo
    return img


@case(lambda n, rng: (rng.uniform(size=(n + 4, n + 4)),))
def unsharp_mask(img, amount=0.7):
    blur = img.copy()
    blur[1:-1, 1:-1] = (img[:-2, 1:-1] + img[2:, 1:-1] + img[1:-1, :-2] + img[1:-1, 2:] + img[1:-1, 1:-1]) / 5
    img += amount * (img - blur)
    np.clip(img, 0, 1, out=img)


@case(lambda n, rng: (rng.uniform(size=(n + 6, n + 6)), rng.uniform(size=(3, 4)), 1, 2))
def paste_patch(canvas, patch, y, x):
    h, w = patch.shape
    region = canvas[y:y + h, x:x + w]
    region *= 0.5
    region += 0.5 * patch
    return canvas


@case(lambda n, rng: (rng.uniform(size=(n + 1, n + 2, 3)), rng.uniform(size=(n + 1, n + 2, 3)),
                      rng.uniform(size=(n + 1, n + 2))))
def alpha_blend_in_place(dst, src, alpha):
    dst *= 1 - alpha[..., None]
    dst += alpha[..., None] * src


@case(lambda n, rng: (rng.uniform(size=(n + 2, n + 3)),))
def threshold_binarize(img, thr=0.5):
    mask = img > thr
    img[mask] = 1.0
    img[~mask] = 0.0
    return img.astype(np.uint8)


@case(lambda n, rng: (rng.integers(0, 256, (n + 2, n + 3)).astype(np.uint8),))
def integral_image(img):
    ii = np.zeros((img.shape[0] + 1, img.shape[1] + 1), dtype=np.int64)
    ii[1:, 1:] = img.cumsum(axis=0).cumsum(axis=1)
    box = ii[2:, 2:] - ii[:-2, 2:] - ii[2:, :-2] + ii[:-2, :-2]
    return ii, box


@case(lambda n, rng: (rng.uniform(size=(2 * n + 2, 2 * n + 4)),))
def downsample_2x_average(img):
    return (img[0::2, 0::2] + img[1::2, 0::2] + img[0::2, 1::2] + img[1::2, 1::2]) / 4


@case(lambda n, rng: (rng.uniform(size=(n + 1, n + 2)),))
def upsample_2x_nearest_strided_writes(img):
    out = np.empty((2 * img.shape[0], 2 * img.shape[1]))
    out[0::2, 0::2] = img
    out[1::2, 0::2] = img
    out[:, 1::2] = out[:, 0::2]
    return out


@case(lambda n, rng: (rng.uniform(size=(n + 3, n + 3)),))
def median_3x3(img):
    stack = np.stack([img[i:img.shape[0] - 2 + i, j:img.shape[1] - 2 + j] for i in range(3) for j in range(3)])
    out = img.copy()
    out[1:-1, 1:-1] = np.median(stack, axis=0)
    return out


@case(lambda n, rng: (rng.uniform(size=(2 * n + 2, 2 * n + 2)),))
def bayer_rggb_demosaic_nearest(raw):
    h, w = raw.shape
    rgb = np.zeros((h, w, 3))
    rgb[0::2, 0::2, 0] = raw[0::2, 0::2]
    rgb[0::2, 1::2, 0] = raw[0::2, 0::2]
    rgb[1::2, :, 0] = rgb[0::2, :, 0]
    rgb[0::2, 1::2, 1] = raw[0::2, 1::2]
    rgb[0::2, 0::2, 1] = raw[0::2, 1::2]
    rgb[1::2, 0::2, 1] = raw[1::2, 0::2]
    rgb[1::2, 1::2, 1] = raw[1::2, 0::2]
    rgb[1::2, 1::2, 2] = raw[1::2, 1::2]
    rgb[1::2, 0::2, 2] = raw[1::2, 1::2]
    rgb[0::2, :, 2] = rgb[1::2, :, 2]
    return rgb


@case(lambda n, rng: (rng.integers(0, 256, (n + 2, n + 3)).astype(np.uint8),),
      xfail="Python's max() of a traced value is data-dependent control flow (ConcretizationError)")
def histogram_equalize(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = hist.cumsum()
    lut = np.round(255 * (cdf - cdf.min()) / max(cdf.max() - cdf.min(), 1)).astype(np.uint8)
    return lut[img]


# === stencils and PDE updates ===========================================================
@case(lambda n, rng: (rng.normal(size=(n + 3, n + 4)), 3))
def jacobi_laplace(u, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


@case(lambda n, rng: (rng.normal(size=3 * n + 4), 4))
def heat_1d_explicit(u, steps, r=0.4):
    for _ in range(steps):
        u[1:-1] += r * (u[:-2] - 2 * u[1:-1] + u[2:])
        u[0] = u[-1] = 0.0
    return u


@case(lambda n, rng: (rng.normal(size=3 * n + 4), rng.normal(size=3 * n + 4)))
def wave_1d_leapfrog(u, u_prev, c2=0.2, steps=3):
    for _ in range(steps):
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        new = u.copy()
        new[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c2 * lap
        u_prev[...] = u
        u[...] = new
    return u


@case(lambda n, rng: (rng.normal(size=(n + 3, n + 3)),))
def heat_2d_with_dirichlet_boundary(u, alpha=0.2, steps=2):
    for _ in range(steps):
        u[0, :] = 1.0
        u[-1, :] = 0.0
        u[:, 0] = u[:, 1]
        u[:, -1] = u[:, -2]
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += alpha * lap
    return u


@case(lambda n, rng: (rng.normal(size=(2 * n + 3, 2 * n + 3)),))
def red_black_gauss_seidel(u, sweeps=2):
    for _ in range(sweeps):
        for oy, ox in ((1, 1), (2, 2), (1, 2), (2, 1)):  # red then black points
            c = u[oy:-1:2, ox:-1:2]
            c[...] = 0.25 * (u[oy - 1:-2:2, ox:-1:2][:c.shape[0], :c.shape[1]]
                             + u[oy + 1::2, ox:-1:2][:c.shape[0], :c.shape[1]]
                             + u[oy:-1:2, ox - 1:-2:2][:c.shape[0], :c.shape[1]]
                             + u[oy:-1:2, ox + 1::2][:c.shape[0], :c.shape[1]])
    return u


@case(lambda n, rng: ((rng.random((n + 4, n + 5)) < 0.4).astype(np.uint8),))
def game_of_life_step(board):
    neighbors = np.zeros(board.shape, dtype=np.int64)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy or dx:
                neighbors += np.roll(np.roll(board, dy, axis=0), dx, axis=1)
    alive = board == 1
    board[...] = ((neighbors == 3) | (alive & (neighbors == 2))).astype(np.uint8)
    return neighbors


@case(lambda n, rng: (rng.uniform(size=4 * n + 3), 3))
def upwind_advection(q, steps, c=0.5):
    for _ in range(steps):
        q[1:] -= c * (q[1:] - q[:-1])  # NB: the right side is computed before the write
    return q


@case(lambda n, rng: (np.sin(np.linspace(0, 2 * np.pi, 4 * n + 3)),))
def burgers_conservative(u, dt=0.01, dx=0.1, steps=3):
    for _ in range(steps):
        f = 0.5 * u * u
        flux = np.where(u[:-1] + u[1:] > 0, f[:-1], f[1:])
        u[1:-1] -= dt / dx * (flux[1:] - flux[:-1])
    return u


@case(lambda n, rng: (rng.normal(size=(n + 2, n + 3)),))
def periodic_laplacian(u, nu=0.1):
    lap = np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u
    u += nu * lap
    return lap


@case(lambda n, rng: (rng.normal(size=(n + 3, n + 2)),))
def gauss_seidel_row_sweep(u, omega=1.5):
    for i in range(1, u.shape[0] - 1):  # NB: each row reads the row just updated
        new = 0.5 * (u[i - 1, 1:-1] + u[i + 1, 1:-1])
        u[i, 1:-1] += omega * (new - u[i, 1:-1])
    return u


@case(lambda n, rng: (rng.normal(size=(n + 3, n + 3)), rng.normal(size=(n + 3, n + 3))))
def diffusion_two_buffers_swap(a, b, steps=3):
    src, dst = a, b
    for _ in range(steps):
        dst[1:-1, 1:-1] = src[1:-1, 1:-1] + 0.1 * (src[:-2, 1:-1] + src[2:, 1:-1] - 2 * src[1:-1, 1:-1])
        src, dst = dst, src
    return src


@case(lambda n, rng: (rng.normal(size=(n + 2, n + 4)),))
def sor_checkerboard_mask(u, omega=1.2):
    ii, jj = np.indices(u.shape)
    red = ((ii + jj) % 2 == 0)
    red[0] = red[-1] = False
    red[:, 0] = red[:, -1] = False
    avg = np.zeros_like(u)
    avg[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    np.copyto(u, (1 - omega) * u + omega * avg, where=red)
    return u


# === statistics and signal processing ===================================================
@case(lambda n, rng: (rng.normal(3, 2, size=(n + 4, 3)),))
def standardize_columns_in_place(x):
    x -= x.mean(axis=0)
    x /= x.std(axis=0, ddof=1)
    return x


@case(lambda n, rng: (rng.normal(size=4 * n + 5), 3))
def moving_average_cumsum(x, w):
    c = np.cumsum(x)
    c[w:] = c[w:] - c[:-w]
    return c[w - 1:] / w


@case(lambda n, rng: (rng.normal(size=2 * n + 3),))
def exponential_moving_average(x, alpha=0.3):
    out = np.empty_like(x)
    out[0] = x[0]
    for t in range(1, x.shape[0]):
        out[t] = alpha * x[t] + (1 - alpha) * out[t - 1]
    return out


@case(lambda n, rng: (rng.normal(size=(3, 2 * n + 3)),))
def running_max_drawdown(prices):
    peak = np.maximum.accumulate(prices, axis=1)
    return (prices - peak) / np.abs(peak), peak.argmax(axis=1)


@case(lambda n, rng: (rng.normal(size=4 * n + 5),))
def fir_filter_convolve(x):
    taps = np.array([0.25, 0.5, 0.25])
    y = np.convolve(x, taps, mode="same")
    y[0] = x[0]
    y[-1] = x[-1]
    return y, np.convolve(x, taps, mode="valid")


@case(lambda n, rng: (rng.normal(size=(n + 2, 4)),))
def finite_differences(x):
    d = np.diff(x, axis=0)
    d[:, 1:] -= d[:, :-1]
    return d, np.diff(x, n=2, axis=1)


@case(lambda n, rng: (rng.normal(size=(n + 2, 4)),))
def gradient_of_signal(x):
    return np.gradient(x[:, 0]), np.gradient(x, axis=0)


@case(lambda n, rng: (rng.standard_t(3, size=(n + 5, 2)),))
def winsorize_outliers(x, k=1.5):
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    np.clip(x, mu - k * sd, mu + k * sd, out=x)
    return x


@case(lambda n, rng: (rng.normal(size=(n + 4, 3)),))
def covariance_and_correlation(x):
    xc = x - x.mean(axis=0)
    cov = xc.T @ xc / (x.shape[0] - 1)
    d = np.sqrt(np.diagonal(cov))
    corr = cov / d[:, None] / d[None, :]
    np.fill_diagonal(corr, 1.0)
    return cov, corr


@case(lambda n, rng: (rng.normal(size=(n + 4, 3)),))
def covariance_numpy_builtins(x):
    cov = np.cov(x, rowvar=False)
    return cov, np.diag(np.diag(cov))


@case(lambda n, rng: (rng.normal(size=(n + 1, 5)),))
def softmax_in_place(z):
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


@case(lambda n, rng: (rng.normal(size=(n + 1, 5)) * 30,))
def logsumexp_stable(a):
    m = a.max(axis=-1, keepdims=True)
    return (m + np.log(np.sum(np.exp(a - m), axis=-1, keepdims=True)))[..., 0]


@case(lambda n, rng: (rng.normal(size=(n + 5, 2)), rng.normal(size=n + 5)))
def least_squares_normal_equations(x, y):
    design = np.ones((x.shape[0], x.shape[1] + 1))
    design[:, 1:] = x
    beta = np.linalg.solve(design.T @ design, design.T @ y)
    resid = y - design @ beta
    return beta, (resid ** 2).mean()


@case(lambda n, rng: (rng.integers(-9, 9, size=4 * n + 1),))
def hillis_steele_scan_in_place(v):
    step = 1
    while step < v.shape[0]:
        v[step:] += v[:-step].copy()
        step *= 2
    return v


@case(lambda n, rng: (rng.uniform(-1.2, 1.2, size=(n + 2, 3)),))
def quantize_to_uint8(x):
    q = np.clip(np.round((x + 1) * 127.5), 0, 255).astype(np.uint8)
    deq = q.astype(np.float32) / np.float32(127.5) - 1
    return q, deq


@case(lambda n, rng: (rng.integers(0, 4, 3 * n), rng.integers(0, 4, 3 * n)))
def confusion_matrix_add_at(y_true, y_pred):
    cm = np.zeros((4, 4), dtype=np.int64)
    np.add.at(cm, (y_true, y_pred), 1)
    precision = np.diagonal(cm) / np.maximum(cm.sum(axis=0), 1)
    return cm, precision


@case(lambda n, rng: (rng.normal(size=4 * n + 4),))
def welford_running_variance(x):
    mean = np.zeros(())
    m2 = np.zeros(())
    for k in range(x.shape[0]):
        delta = x[k] - mean
        mean += delta / (k + 1)
        m2 += delta * (x[k] - mean)
    return mean, m2 / (x.shape[0] - 1)


@case(lambda n, rng: (rng.normal(size=(n + 3, 4)), np.array([0.1, 0.2, 0.3, 0.4])))
def weighted_stats(x, w):
    avg = np.average(x, axis=1, weights=w)
    var = np.average((x - avg[:, None]) ** 2, axis=1, weights=w)
    return avg, var, np.median(x, axis=0), np.ptp(x, axis=1)


@case(lambda n, rng: (rng.normal(size=4 * n + 4),))
def dft_by_matrix(x):
    n = x.shape[0]
    k = np.arange(n)
    w = np.exp(-2j * np.pi * np.outer(k, k) / n)
    spec = w @ x
    return np.abs(spec), np.angle(spec[1:3])


@case(lambda n, rng: (rng.normal(size=4 * n + 4),))
def power_spectrum_fft(x):
    spec = np.fft.rfft(x - x.mean())
    return np.abs(spec) ** 2


@case(lambda n, rng: (rng.normal(size=(n + 4, 2)),))
def robust_scale_percentiles(x):
    q1, q3 = np.percentile(x, [25, 75], axis=0)
    x -= np.median(x, axis=0)
    x /= q3 - q1
    return x


@case(lambda n, rng: (rng.normal(size=4 * n + 4),))
def windowed_energy(x):
    x *= np.hanning(x.shape[0])  # NB: np.hanning of a static length runs in NumPy: a constant
    np.square(x, out=x)
    return x.sum()


@case(lambda n, rng: (rng.normal(size=(2 * n + 2, 3)), 2))
def frames_by_as_strided(x, hop):
    col = x[:, 0]
    step = col.strides[0]
    frames = np.lib.stride_tricks.as_strided(col, shape=(col.shape[0] - 2, 3), strides=(step, step))[::hop]
    energy = (frames ** 2).sum(axis=1)
    x[:, 1] = np.interp(np.arange(x.shape[0]), np.arange(energy.shape[0]) * hop, energy)
    return x


@case(lambda n, rng: (rng.normal(size=(2 * n + 2, 3)), 2))
def frames_by_sliding_window_view(x, hop):
    frames = np.lib.stride_tricks.sliding_window_view(x[:, 0], 3)[::hop]
    energy = (frames ** 2).sum(axis=1)
    x[:, 1] = np.interp(np.arange(x.shape[0]), np.arange(energy.shape[0]) * hop, energy)
    return x


@case(lambda n, rng: (rng.normal(size=(n + 3, 3)), rng.integers(0, 3, n + 3)))
def class_means_by_mask(x, labels):
    means = np.zeros((3, x.shape[1]))
    for c in range(3):
        m = labels == c
        means[c] = np.where(m[:, None], x, 0).sum(axis=0) / np.maximum(m.sum(), 1)
    return means


def test_corpus_size():
    assert len(CORPUS) >= 2 * 60


@pytest.mark.parametrize("f,make,n,optimize", CORPUS)
def test_corpus_program_matches_numpy(f, make, n, optimize):
    check_against_numpy(f, *make(n, np.random.default_rng(n)), optimize=optimize)
