"""Differential programs: NumPy code with views and in-place writes, run by
NumPy and by elena_jax (passes on and off); results, dtypes and the caller's
arrays after the call must agree. Each program is a small example of one form.
"""

import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from marks import rotated

import elena_jax
from elena_jax.testing import check_against_numpy

R = np.random.default_rng(0)
F = R.normal(size=(6, 8))
F3 = R.normal(size=(3, 4, 5))
I64 = R.integers(-50, 50, size=(6, 8)).astype(np.int64)
I32 = R.integers(-50, 50, size=(5, 4)).astype(np.int32)
U8 = R.integers(0, 256, size=(4, 6)).astype(np.uint8)
B = R.random((6, 8)) > 0.5
V = R.normal(size=10)
SQ = R.normal(size=(5, 5))
F32 = R.normal(size=(4, 6)).astype(np.float32)


def boxes(n=7, seed=1):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0, 50, (n, 4))
    b[:, 2:] += b[:, :2] + 1
    return b


# --- basic index views: reads -------------------------------------------------------
def read_int(a): return a[2] * 1
def read_negative_int(a): return a[-1, -2] + a[0]
def read_slice_step(a): return a[1:5:2, ::3] + 0
def read_negative_step(a): return a[::-1, -2::-3] * 2
def read_newaxis(a): return a[:, None, 1:3] + a[None, 0, :2]
def read_ellipsis(a): return a[..., 1] - a[0, ..., 1]
def read_3d_mixed(a): return a[1, ::-2, None, 1:4:2].sum(axis=0)
def read_empty_slice(a): return a[3:3] + 1
def read_scalar_copy_semantics(a):
    x = a[0, 0]  # NB: a scalar copy, not a view
    a[0, 0] = 100.0
    return x + a[0, 0]


# --- reshape / ravel: view or copy exactly as NumPy ----------------------------------
def write_through_reshape_view(a):
    r = a.reshape(-1, 4)
    r[:, 0] = -1.0
    return a


def write_through_reshape_copy(a):
    r = a[:, ::2].reshape(-1)  # non-contiguous: NumPy copies
    r[:] = 7.0
    return a, r


def write_through_ravel_view(a):
    a.ravel()[::3] = 0.0
    return a


def write_through_ravel_copy(a):
    r = a.T.ravel()
    r[0] = 99.0
    return a, r


def write_through_flatten_copy(a):
    f = a.flatten()
    f[:] = 1.0
    return a, f


def reshape_3d_view(a):
    v = a.reshape(2, 3, 8)
    v[1, :, ::2] += 10
    return a


def shape_assignment(a):
    b = a[:2]
    b.shape = (4, 4)
    b[0] = 5.0
    return a


# --- transposes and friends ----------------------------------------------------------
def write_through_T(a):
    a.T[1] = 3.0
    return a


def write_through_swapaxes(a):
    np.swapaxes(a, 0, 2)[0, 1] = -2.0
    return a


def write_through_moveaxis(a):
    m = np.moveaxis(a, 0, -1)
    m[..., 1] *= 3
    return a


def squeeze_expand(a):
    s = a[:, :1].squeeze(1)
    s += 1
    e = np.expand_dims(a, 0)
    e[0, 0, :] = 4.0
    return a


def diagonal_read(a): return a.diagonal() + a.diagonal(1) .sum() + np.diagonal(a, -1).sum()
def trace_of_transpose(a): return np.trace(a.T)
def broadcast_to_read(v): return np.broadcast_to(v[:4], (3, 4)) * np.arange(3)[:, None]


def as_strided_windows(v):
    w = np.lib.stride_tricks.as_strided(v, shape=(8, 3), strides=(v.strides[0], v.strides[0]))
    return w.sum(axis=1)


# --- setitem -------------------------------------------------------------------------
def setitem_scalar(a):
    a[1:3, 2:5] = 4.5
    return a


def setitem_broadcast_row(a):
    a[::2] = np.arange(a.shape[1])
    return a


def setitem_broadcast_column(a):
    a[:, 1:3] = a[:, :1]
    return a


def setitem_from_other_view(a):
    a[0] = a[-1]
    a[:, -1] = a[:, 0]
    return a


def setitem_int_into_float(a):
    a[2] = 7
    return a


def setitem_float_into_int(a):
    a[1] = 2.9  # NB: NumPy truncates on assignment
    return a


def setitem_negative_step(a):
    a[::-2, ::-1] = np.arange(a.shape[1], dtype=a.dtype)
    return a


def setitem_ellipsis(a):
    a[...] = 0
    return a


def setitem_newaxis(a):
    a[None, 1] = 9
    return a


# --- every in-place operator, on arrays and views ------------------------------------
def iadd(a): a[1:, ::2] += 1.5; return a          # noqa: E702
def isub(a): a[:, 1] -= a[:, 2]; return a         # noqa: E702
def imul(a): a[::2] *= 3; return a                # noqa: E702
def itruediv(a): a[:, :3] /= 4.0; return a        # noqa: E702
def ifloordiv(a): a[1:3] //= 3; return a          # noqa: E702
def imod(a): a[:, ::3] %= 7; return a             # noqa: E702
def ipow(a): a[:2] **= 2; return a                # noqa: E702
def iand(a): a[1:] &= 12; return a                # noqa: E702
def ior(a): a[:, 2:] |= 5; return a               # noqa: E702
def ixor(a): a[::2, ::2] ^= a[1::2, 1::2]; return a  # noqa: E702
def ilshift(a): a[:, :2] <<= 2; return a          # noqa: E702
def irshift(a): a[2:] >>= 1; return a             # noqa: E702
def ifloordiv_float(a): a //= 0.5; return a       # noqa: E702
def imod_negative(a): a %= -3; return a           # noqa: E702
def ibool_or(b): b[:, 0] |= True; b &= b[::-1]; return b  # noqa: E702
def imatmul_like(a): a[:] = a @ np.eye(a.shape[1]); return a  # noqa: E702


# --- ufunc out= and where= ------------------------------------------------------------
def ufunc_out_view(a):
    np.multiply(a[:, 0], 2, out=a[:, 1])
    return a


def ufunc_out_where(a):
    np.add(a, 10, out=a, where=a > 0)
    return a


def ufunc_out_other_dtype(a):
    out = np.zeros(a.shape, np.float32)
    np.sqrt(np.abs(a), out=out)
    return out


def ufunc_where_view_mask(a):
    np.negative(a[:, ::2], out=a[:, ::2], where=a[:, 1::2] > 0)
    return a


def ufunc_two_outputs(a):
    q, r = np.divmod(a, 7)
    return q, r


def ufunc_modf_out(a):
    frac = np.empty_like(a)
    whole = np.empty_like(a)
    np.modf(a, out=(frac, whole))
    return frac, whole


# --- fill, sort, copyto, clip(out=), fill_diagonal --------------------------------------
def fill_view(a):
    a[1::2].fill(-3.0)
    return a


def sort_rows_in_place(a):
    a[:, 2:].sort(axis=1)
    return a


def sort_columns_in_place(a):
    a.sort(axis=0)
    return a


def copyto_where(a):
    np.copyto(a, a[::-1], where=a < 0)
    return a


def copyto_broadcast(a):
    np.copyto(a[:, 1:4], np.arange(3.0))
    return a


def clip_out_strided(a):
    np.clip(a[:, 0::2], -0.5, 0.5, out=a[:, 0::2])
    return a


def clip_out_same(a):
    np.clip(a, 0, None, out=a)
    return a


def fill_diagonal_square(a):
    np.fill_diagonal(a, 0.0)
    return a


def fill_diagonal_values(a):
    np.fill_diagonal(a, np.arange(5.0))
    return a


def fill_diagonal_tall_wrap(a):
    np.fill_diagonal(a, -1.0, wrap=True)
    return a


# --- fancy and boolean indices ----------------------------------------------------------
def fancy_read(a): return a[[0, 3, 1]] + a[:, [2, 2, 5]].sum()
def fancy_read_mixed(a): return a[1:4, [0, 2]] * a[[1, 2], 3]
def fancy_read_2d_index(a): return a[np.array([[0, 1], [2, 3]]), np.array([[1, 2], [3, 4]])]
def fancy_read_traced_index(a, i): return a[i] * 2


def fancy_write(a):
    a[[0, 2, 4]] = -1.0
    return a


def fancy_write_traced(a, i):
    a[i, 1] = np.arange(len(i), dtype=a.dtype)
    return a


def fancy_augmented(a):
    a[[1, 3], 2:5] += 100
    return a


def constant_mask_read(a):
    return a[np.array([True, False, True, False, True, False])]


def traced_mask_write(a):
    a[a > 0.5] = 0.5
    return a


def traced_mask_rows(a):
    a[a[:, 0] < 0] = 0
    return a


def add_at_repeated(a):
    np.add.at(a, [0, 0, 1, 3, 3, 3], 1.0)
    return a


def subtract_at_2d(a):
    np.subtract.at(a, (np.array([0, 1, 1]), np.array([2, 2, 3])), 5)
    return a


def maximum_at(a):
    np.maximum.at(a, [1, 1, 2], [4.0, 9.0, -3.0])
    return a


def fancy_copies_right_side_first(a):
    a[[1, 2, 3]] = a[[0, 1, 2]]
    return a


# --- overlapping reads and writes ---------------------------------------------------------
def shift_accumulate(v):
    v[1:] += v[:-1]
    return v


def add_transpose_in_place(a):
    a += a.T
    return a


def shift_copy(v):
    v[2:] = v[:-2]
    return v


def shift_copy_backwards(v):
    v[:-2] = v[2:]
    return v


def ufunc_overlapping_out(v):
    np.add(v[:-1], v[1:], out=v[1:])
    return v


def reversed_self_assignment(v):
    v[:] = v[::-1]
    return v


def views_of_views_visible(a):
    b = a[1:]
    c = b[:, ::2]
    c[0] = 42.0
    d = a.T[::2]
    d[-1] += 1
    return a, b.sum(), c * 1, d * 1


def write_visible_through_earlier_view(a):
    col = a[:, 3]
    a[2:4] = -5.0
    return col * 1


# --- dtypes and promotion --------------------------------------------------------------------
def int32_plus_float(a): return a + 1.5
def int32_times_int(a): return a * 3
def float32_times_int(a): return a * 2
def float32_plus_float64_scalar(a): return a + np.float64(1.0)
def float32_plus_0d_float64(a): return a + np.array(1.0)
def uint8_wraps(a): return a + np.uint8(200)
def uint8_in_place_wraps(a): a += 100; return a  # noqa: E702
def int_floor_div_zero(a): return a // np.where(a > 0, 0, 3)
def int_mod_zero(a): return a % np.where(a > 0, 0, 4)
def float_div_zero(a): return a / np.where(a > 0, 0.0, 2.0)
def bool_arithmetic(b): return b + b, b * 3, b & ~b, b.sum(), b.mean()
def true_divide_ints(a): return a / 4
def comparison_mixed(a): return (a > 2.5) & (a < 20)


# --- creation inside f and in helpers ------------------------------------------------------------
def _helper_zeros(n):
    return np.zeros((n, 2))


def creation_zeros_ones_full(a):
    z = np.zeros(a.shape)
    o = np.ones((a.shape[0], 1), dtype=np.int32)
    f = np.full((2, 3), 7)
    z[:, :1] = o
    return z + a, o, f


def creation_in_helper(a):
    h = _helper_zeros(a.shape[0])
    h[:, 1] = a[:, 0]
    return h


def creation_empty_overwritten(a):
    e = np.empty((a.shape[0], 2))
    e[:, 0] = a[:, 1]
    e[:, 1] = a[:, 0]
    return e


def creation_arange_linspace_eye(a):
    n = a.shape[0]
    return a[:, 0] * np.arange(n) + np.linspace(0, 1, n), np.eye(n) @ a


def creation_array_of_traced(a):
    x0, y0 = a[0, 0], a[0, 1]
    return np.array([x0, y0, x0 * y0]), np.array([[x0, 1.0], [2.0, y0]])


def creation_like(a):
    z = np.zeros_like(a)
    z[::2] = 1
    return z + np.ones_like(a, dtype=np.int32) + np.full_like(a, 2.5)


# --- Python control flow on static values ---------------------------------------------------------
def static_loop(a):
    for i in range(a.shape[0] - 1):
        a[i + 1] += a[i] * 0.5
    return a


def static_branch(a, mode):
    if mode == "double":
        a *= 2
    else:
        a[:] = 0
    return a


# --- reductions and joins ----------------------------------------------------------------------------
def reductions(a):
    return a.sum(), a.sum(axis=0), a.mean(axis=1, keepdims=True), a.max(axis=-1), a.min(), a.argmax(axis=0)


def int_reductions(a): return a.sum(), a.prod(axis=0), np.cumsum(a, axis=1), a.max(), a.argmin()
def any_all(b): return b.any(), b.all(axis=0), np.any(b, axis=1, keepdims=True)
def stack_concat(a): return np.stack([a[:, 0], a[:, 1]], axis=-1), np.concatenate([a, a[::-1]], axis=0)
def where_three(a): return np.where(a > 0, a, -a * 0.5)
def where_scalar_branches(a): return np.where(a > 0, 1, 0)
def hstack_vstack(a): return np.hstack([a, a[:, :1]]), np.vstack([a[0], a[1]])
def maximum_minimum(a): return np.maximum(a[:, :3], a[:, 3:6]), np.minimum(a, 0.1)


# --- the research's cases and their neighbours, as imperative NumPy (after mmdetection) ----------------
# NB: own copies of the bench cases (bench/cases is being restructured), small and self-contained.
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


def clip_boxes(boxes, max_h=800, max_w=1333):
    np.clip(boxes[:, 0::2], 0, max_w, out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, max_h, out=boxes[:, 1::2])
    return boxes


def bbox_flip(bboxes, width=1333.0):
    flipped = bboxes.copy()
    flipped[:, 0::4] = width - bboxes[:, 2::4]
    flipped[:, 2::4] = width - bboxes[:, 0::4]
    return flipped


def xyxy_xywh_roundtrip(b):
    b[:, 2:] -= b[:, :2]
    b[:, :2] += b[:, 2:] * 0.5
    c = b.copy()
    c[:, :2] -= c[:, 2:] * 0.5
    c[:, 2:] += c[:, :2]
    return b, c


def grid_anchors(base_anchors, feat_h, feat_w, stride):
    shift_x = np.arange(feat_w) * stride
    shift_y = np.arange(feat_h) * stride
    shifts = np.zeros((feat_h, feat_w, 4))
    shifts[:, :, 0::2] = shift_x[None, :, None]
    shifts[:, :, 1::2] = shift_y[:, None, None]
    anchors = base_anchors[None, None, :, :] + shifts[:, :, None, :]
    return anchors.reshape(-1, 4)


def box_blur_in_place(img):
    """3x3 box blur in place, as sums of shifted views (edges use fewer taps)."""
    acc = img.copy()
    acc[1:] += img[:-1]
    acc[:-1] += img[1:]
    out = acc.copy()
    out[:, 1:] += acc[:, :-1]
    out[:, :-1] += acc[:, 1:]
    img[...] = out / 9.0
    return img


def jacobi(u, steps=4):
    """Laplace smoothing: the interior rewritten from shifted views, in place."""
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def valid_flags(feat_h, feat_w, valid_h, valid_w, num_base_anchors):
    valid_x = np.zeros(feat_w, dtype=bool)
    valid_y = np.zeros(feat_h, dtype=bool)
    valid_x[:valid_w] = True
    valid_y[:valid_h] = True
    vx = np.broadcast_to(valid_x[None, :], (feat_h, feat_w))
    vy = np.broadcast_to(valid_y[:, None], (feat_h, feat_w))
    valid = (vx & vy).reshape(-1)
    return np.broadcast_to(valid[:, None], (valid.size, num_base_anchors)).reshape(-1)


def valid_flags_traced(valid_x_in, valid_y_in):
    valid_x = np.zeros(valid_x_in.shape[0], dtype=bool)
    valid_x[:] = valid_x_in > 0
    valid_y = valid_y_in > 0
    return (valid_x[None, :] & valid_y[:, None]).reshape(-1)


def xyxy_to_xywh_in_place(b):
    b[:, 2:] -= b[:, :2]
    b[:, :2] += b[:, 2:] * 0.5
    return b


def iou_matrix(a, b):
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b[None, :] - inter)


# --- more views, overlaps and writes ---------------------------------------------------------------------
def view_chain_write(a):
    a[1:][::2][:, None][..., 0] = 5.0  # four views deep, then a write
    return a


def reshape_of_strided_view_then_write(a):
    v = a.reshape(4, 12)[:, ::3]  # a view of a reshape view
    v.reshape(-1)[:] = -1.0  # NB: non-contiguous: the reshape copies, a is unchanged
    v[:, 0] = 9.0  # ...but this one is a view
    return a, v * 1


def reshape_split_axis_view(a):
    v = a[:, 2:6].reshape(6, 2, 2)  # splitting one axis of a strided view is a view
    v[:, 1, 0] = 0.0
    return a


def reversed_sort_in_place(v):
    v[::-1].sort()  # sorted ascending along the reversed view: descending in v
    return v


def overlap_reversed_iadd(v):
    v[::-1] += v
    return v


def overlap_2d_shift(a):
    a[1:, 1:] = a[:-1, :-1]
    return a


def overlap_out_transposed(a):
    np.add(a, a.T, out=a)
    return a


def overlap_negative_out_reversed(v):
    np.negative(v, out=v[::-1])
    return v


def overlap_strided_halves(v):
    v[::2] *= v[1::2]
    v[1::2] -= v[::2]
    return v


def swap_rows_fancy(a):
    a[[0, 1]] = a[[1, 0]]
    return a


def fancy_and_slice_write(a):
    a[1:3, [0, 2]] = np.array([[1.0, 2.0], [3.0, 4.0]])
    return a


def fancy_negative_indices_write(a):
    a[[-1, 0], -2] = [7, 8]
    return a


def fancy_bool_index_constant_write(a):
    a[np.array([True, False, True, False, False, True])] *= -1
    return a


def scale_columns_with_broadcast(b):
    h = (b[:, 3] - b[:, 1])[:, None]
    b[:, :2] *= h
    b[:, 2:] /= h + 1
    return b


def mask_write_from_other_array(a, m):
    a[m > 0] = 3
    return a


def copyto_scalar_where(a):
    np.copyto(a, 3, where=a < 0)
    return a


def copyto_int_into_float(a, i):
    np.copyto(a[:, :4], i[:6, :4])
    return a


def clip_out_array_bounds(a):
    np.clip(a, a[:, :1], a[:, 1:2] + 1, out=a)
    return a


def clip_out_int_view(a):
    np.clip(a[::2], -10, 10, out=a[::2])
    return a


def add_at_2d_with_slice(a):
    np.add.at(a, ([0, 0, 2], slice(None)), 1.0)
    return a


def ufunc_out_where_fresh_out(a):
    out = np.full(a.shape, -1.0)
    np.sqrt(a, out=out, where=a > 0)
    return out


def fill_through_transposed_view(a):
    a.T[::2].fill(0)
    return a


def fill_diagonal_through_view(a):
    np.fill_diagonal(a[1:, 1:], 7.0)
    return a


def writes_through_two_views_of_one_base(a):
    r = a.reshape(-1)
    t = a.T
    r[::5] = 1.0
    t[0] += 10.0
    return a, r[:6] * 1, t[:, 0] * 1


def uint8_subtract_wraps(a): return a - a[::-1], a[:, ::-1] - np.uint8(3)
def int32_plus_int64_scalar(a): return a + np.int64(2), (a + np.int64(2)).dtype == np.int64
def int_mod_negative_divisor(a): return a % -7, a // -7, np.fmod(a, -7)
def float32_reductions_keep_dtype(a): return a.sum(axis=0), a.mean(), a.max(axis=1, keepdims=True)
def int_mean_is_float64(a): return a.mean(axis=0, keepdims=True), np.mean(a)
def bool_argmax_and_sum(b): return b.argmax(axis=1), b.sum(axis=0), np.count_nonzero(b)
def astype_in_range(a): return (a * 10).astype(np.int32), a.astype(np.float32), (a > 0).astype(np.uint8)
def where_mixed_dtypes(a, i): return np.where(a[:5, :4] > 0, i[:5, :4], 0.5)
def compare_out_of_range_python_int(a): return a != -7, a < 300, np.greater(-1, a), a == 256  # NB: no overflow
def python_int_into_uint8(a): a[0] = 255; a[1] += 1; return a  # noqa: E702
def int_true_divide_in_place_out(a): return np.true_divide(a, 3, out=np.zeros(a.shape))


def linspace_arange_variants(a):
    return (np.linspace(0, 1, 5, endpoint=False), np.arange(0.5, 3.0, 0.5), np.arange(10, 0, -3),
            np.eye(4, k=1), np.eye(3, 5, dtype=np.int32), a[:4, 0] * np.linspace(-1, 1, 4))


def _fill_rows(n, m):
    e = np.empty((n, m))
    for i in range(n):
        e[i] = i
    return e


def empty_filled_by_loop_in_helper(a):
    return _fill_rows(*a.shape) * a


def static_loop_of_views(a):
    for k in range(0, a.shape[1], 2):
        a[:, k] = a[:, k + 1] - a[:, k]
    return a


def offset2bbox(points, distances, max_shape=(40, 60)):
    """mmdet distance2bbox: offsets from points to box sides, strided writes into a fresh array."""
    boxes = np.empty((points.shape[0], 4))
    boxes[:, 0::4] = points[:, 0:1] - distances[:, 0:1]
    boxes[:, 1::4] = points[:, 1:2] - distances[:, 1:2]
    boxes[:, 2::4] = points[:, 0:1] + distances[:, 2:3]
    boxes[:, 3::4] = points[:, 1:2] + distances[:, 3:4]
    np.clip(boxes[:, 0::2], 0, max_shape[1], out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, max_shape[0], out=boxes[:, 1::2])
    return boxes


PROGRAMS = [
    (read_int, (F,)), (read_negative_int, (F,)), (read_slice_step, (F,)), (read_negative_step, (F,)),
    (read_newaxis, (F,)), (read_ellipsis, (F3,)), (read_3d_mixed, (F3,)), (read_empty_slice, (F,)),
    (read_scalar_copy_semantics, (F,)),
    (write_through_reshape_view, (F,)), (write_through_reshape_copy, (F,)), (write_through_ravel_view, (F,)),
    (write_through_ravel_copy, (F,)), (write_through_flatten_copy, (F,)), (reshape_3d_view, (F,)),
    (shape_assignment, (F,)),
    (write_through_T, (F,)), (write_through_swapaxes, (F3,)), (write_through_moveaxis, (F3,)),
    (squeeze_expand, (F,)), (diagonal_read, (SQ,)), (trace_of_transpose, (SQ,)), (broadcast_to_read, (V,)),
    (as_strided_windows, (V,)),
    (setitem_scalar, (F,)), (setitem_broadcast_row, (F,)), (setitem_broadcast_column, (F,)),
    (setitem_from_other_view, (F,)), (setitem_int_into_float, (F,)), (setitem_float_into_int, (I64,)),
    (setitem_negative_step, (I64,)), (setitem_ellipsis, (U8,)), (setitem_newaxis, (I32,)),
    (iadd, (F,)), (isub, (I64,)), (imul, (I32,)), (itruediv, (F,)), (ifloordiv, (I64,)), (imod, (I64,)),
    (ipow, (I32,)), (iand, (I64,)), (ior, (U8,)), (ixor, (I64,)), (ilshift, (I32,)), (irshift, (I64,)),
    (ifloordiv_float, (F,)), (imod_negative, (I64,)), (ibool_or, (B,)), (imatmul_like, (F,)),
    (ufunc_out_view, (F,)), (ufunc_out_where, (F,)), (ufunc_out_other_dtype, (F,)),
    (ufunc_where_view_mask, (F,)), (ufunc_two_outputs, (I64,)), (ufunc_modf_out, (F,)),
    (fill_view, (F,)), (sort_rows_in_place, (F,)), (sort_columns_in_place, (I64,)), (copyto_where, (F,)),
    (copyto_broadcast, (F,)), (clip_out_strided, (F,)), (clip_out_same, (I64,)), (fill_diagonal_square, (SQ,)),
    (fill_diagonal_values, (SQ,)), (fill_diagonal_tall_wrap, (np.zeros((7, 3)),)),
    (fancy_read, (F,)), (fancy_read_mixed, (F,)), (fancy_read_2d_index, (F,)),
    (fancy_read_traced_index, (F, np.array([5, 0, 2]))), (fancy_write, (F,)),
    (fancy_write_traced, (F, np.array([4, 1]))), (fancy_augmented, (I64,)), (constant_mask_read, (F,)),
    (traced_mask_write, (F,)), (traced_mask_rows, (F,)), (add_at_repeated, (V.copy(),)),
    (subtract_at_2d, (I64,)), (maximum_at, (V.copy(),)), (fancy_copies_right_side_first, (F,)),
    (shift_accumulate, (V,)), (add_transpose_in_place, (SQ,)), (shift_copy, (V,)),
    (shift_copy_backwards, (V,)), (ufunc_overlapping_out, (V,)), (reversed_self_assignment, (V,)),
    (views_of_views_visible, (F,)), (write_visible_through_earlier_view, (F,)),
    (int32_plus_float, (I32,)), (int32_times_int, (I32,)), (float32_times_int, (F32,)),
    (float32_plus_float64_scalar, (F32,)), (float32_plus_0d_float64, (F32,)), (uint8_wraps, (U8,)),
    (uint8_in_place_wraps, (U8,)), (int_floor_div_zero, (I64,)), (int_mod_zero, (I64,)), (float_div_zero, (F,)),
    (bool_arithmetic, (B,)), (true_divide_ints, (I32,)), (comparison_mixed, (I64,)),
    (creation_zeros_ones_full, (F,)), (creation_in_helper, (F,)), (creation_empty_overwritten, (F,)),
    (creation_arange_linspace_eye, (F,)), (creation_array_of_traced, (F,)), (creation_like, (F32,)),
    (static_loop, (F,)), (static_branch, (F, "double")), (static_branch, (F, "zero")),
    (reductions, (F,)), (int_reductions, (I32,)), (any_all, (B,)), (stack_concat, (F,)), (where_three, (F,)),
    (where_scalar_branches, (F,)), (hstack_vstack, (F,)), (maximum_minimum, (F,)),
    (valid_flags, (5, 7, 3, 4, 3)), (valid_flags_traced, (R.normal(size=7), R.normal(size=5))),
    (delta2bbox, (boxes(9), R.normal(size=(9, 8)))), (tblr2bbox, (boxes(9), R.uniform(size=(9, 4)))),
    (gen_base_anchors, (16, np.array([0.5, 1.0, 2.0]), np.array([8.0, 16.0, 32.0]))),
    (bbox_flip, (boxes(6), 80.0)), (xyxy_to_xywh_in_place, (boxes(6),)),
    (iou_matrix, (boxes(5, 2), boxes(4, 3))), (jacobi, (R.normal(size=(6, 7)), 3)),
    (box_blur_in_place, (R.uniform(size=(6, 5)),)),
    (view_chain_write, (F,)), (reshape_of_strided_view_then_write, (F,)), (reshape_split_axis_view, (F,)),
    (reversed_sort_in_place, (V,)), (overlap_reversed_iadd, (V,)), (overlap_2d_shift, (F,)),
    (overlap_out_transposed, (SQ,)), (overlap_negative_out_reversed, (V,)), (overlap_strided_halves, (V,)),
    (swap_rows_fancy, (F,)), (fancy_and_slice_write, (F,)), (fancy_negative_indices_write, (I64,)),
    (fancy_bool_index_constant_write, (F,)), (scale_columns_with_broadcast, (boxes(6),)),
    (mask_write_from_other_array, (F, R.normal(size=(6, 8)))), (copyto_scalar_where, (F,)),
    (copyto_int_into_float, (F, I64)), (clip_out_array_bounds, (F,)), (clip_out_int_view, (I64,)),
    (add_at_2d_with_slice, (F,)), (ufunc_out_where_fresh_out, (F,)), (fill_through_transposed_view, (I32,)),
    (fill_diagonal_through_view, (SQ,)), (writes_through_two_views_of_one_base, (F,)),
    (uint8_subtract_wraps, (U8,)), (int32_plus_int64_scalar, (I32,)), (int_mod_negative_divisor, (I64,)),
    (float32_reductions_keep_dtype, (F32,)), (int_mean_is_float64, (I32,)), (bool_argmax_and_sum, (B,)),
    (astype_in_range, (F,)), (where_mixed_dtypes, (F, I32)), (python_int_into_uint8, (U8,)),
    (compare_out_of_range_python_int, (U8,)),
    (int_true_divide_in_place_out, (I32,)), (linspace_arange_variants, (F,)),
    (empty_filled_by_loop_in_helper, (F,)), (static_loop_of_views, (F,)),
    (offset2bbox, (R.uniform(0, 60, (7, 2)), R.uniform(0, 10, (7, 4)))),
    (bbox2delta, (boxes(6, 4), boxes(6, 5))), (clip_boxes, (boxes(8, 6) * 1.5 - 20,)),
    (grid_anchors, (R.uniform(-8, 8, (3, 4)), 3, 5, 8)), (xyxy_xywh_roundtrip, (boxes(5, 7),)),
]


NAMED_PROGRAMS = [(f"{f.__name__}-{i}", f, args) for i, (f, args) in enumerate(PROGRAMS)]


@pytest.mark.parametrize("program, optimize", rotated(NAMED_PROGRAMS, [True, False], name=lambda program: program[0],
                                                    dtype_first=False))
def test_program_matches_numpy(program, optimize):
    """Each program with the passes on or off (in turn; both with ``pytest -m slow``)."""
    _, f, args = program
    check_against_numpy(f, *args, optimize=(optimize,))


def test_program_count():
    assert len(PROGRAMS) >= 100


def complex_parts_read(a):
    c = a.astype(np.complex128) * (1 + 2j)
    return c.real + 1, np.imag(c), a.real * 1, a.imag, np.real(a), np.angle(c)


def test_complex_parts_read():
    check_against_numpy(complex_parts_read, F)


def write_through_real_of_complex(a):
    c = a.astype(np.complex128)
    c.real[:, ::2] = 0
    c.imag[1] = 5
    return c


def test_write_through_real_of_complex():
    check_against_numpy(write_through_real_of_complex, F)


def views_in_another_type_follow_their_array(c, a):
    """``.real``, ``.imag`` and ``.view(dtype)`` share memory with their array: a write to either
    side is seen through the other, through views of views, and in the caller's arrays."""
    r, i = c.real, c[:, ::-1].imag
    c[0] *= 2
    r[:, ::2] += 1
    i[1] = r[0, ::-1]
    np.negative(c.imag[:, 1], out=c.imag[:, 1])
    first = r.copy()
    bits = a.view(np.int64)
    bits[::2] &= ~1
    a[1] += 0.5
    u = a.T.view(np.uint64)
    u[0, -1] = 0
    c.real.view(np.int64)[2, 0] = 1  # NB: a view in another type of a view in another type
    return first, i.sum(), bits.copy(), np.real(c.T)[::-1], np.imag(c)[1:3] * 2


def test_views_in_another_type_follow_their_array():
    check_against_numpy(views_in_another_type_follow_their_array, F + 1j * F[::-1], F.copy())


def layout_of_views_in_another_type(c, a):
    """Strides and flags of a view in another type are those of NumPy's memory, and so is
    whether a reshape, a ravel or np.ascontiguousarray of it is a view (writes reach c) or a copy."""
    r = c.real
    meta = (r.strides, r.flags.c_contiguous, r.flags.f_contiguous, r.flags.owndata, c.T.imag.flags.f_contiguous,
            c.view(np.float64).strides, c.view(np.float64).flags.c_contiguous, a[:, ::2].view(np.int64).strides,
            a.view(np.int16).strides, c[:, :2].real.strides, (c.T.real + 1).strides, c.T.imag.copy(order="K").strides)
    r.reshape(-1)[0] = 7.0  # NB: a uniform stride of 16 bytes: a view
    c[:, :2].real.reshape(-1)[1] = 8.0  # NB: 0, 16, 48, 64: no single stride, a copy
    c[:, :2].imag.ravel()[2] = 9.0  # NB: a copy too
    np.ascontiguousarray(r)[1, 1] = 10.0  # NB: r is not contiguous: a copy
    c.view(np.float64).ravel()[3] = 11.0  # NB: contiguous: a view
    b = a.view(np.int64)
    b.shape = (-1,)  # NB: in place: a's view in another type is contiguous
    b[-1] = 0
    return meta, c.copy(), b.copy()


def test_layout_of_views_in_another_type():
    check_against_numpy(layout_of_views_in_another_type, np.arange(12.0).reshape(4, 3) + 1j,
                        np.arange(8.0).reshape(2, 4))


def strided_windows_of_a_part(c):
    r = c.real
    w = np.lib.stride_tricks.as_strided(r, (4, 2, 2), r.strides + r.strides[-1:])
    return w * 1, np.lib.stride_tricks.sliding_window_view(c.imag, 2, axis=0).sum(-1)


def test_strided_windows_of_a_part():
    check_against_numpy(strided_windows_of_a_part, np.arange(12.0).reshape(4, 3) - 1j * np.arange(12.0).reshape(4, 3))


def test_as_strided_of_an_unevenly_spaced_part_is_refused():
    def f(c):
        return np.lib.stride_tricks.as_strided(c[:, :2].real, (2, 2), (48, 16))

    with pytest.raises(elena_jax.UnsupportedError, match=r"evenly[\s\S]*test_programs.py"):
        elena_jax.functionalize(f)(np.arange(12.0).reshape(4, 3) + 1j)


def set_parts_by_attribute(a, c, i):
    c.imag = a[::-1]
    c[1:].real = c[:-1].imag
    a.real = 2.5
    i.real = a
    return c.imag.copy()


def test_parts_set_by_attribute():
    check_against_numpy(set_parts_by_attribute, np.arange(8.0), np.arange(8.0) + 1j, np.arange(8))


def test_imag_of_a_real_array_cannot_be_set():
    def f(a):
        a.imag = 1

    with pytest.raises(TypeError, match=r"imaginary part[\s\S]*test_programs.py"):
        elena_jax.functionalize(f)(np.arange(3.0))


def memory_questions(a, c):
    """np.shares_memory is exact and np.may_share_memory compares bounds, as NumPy's, views in
    another type included (the real and the imaginary parts share no byte)."""
    r, i = c.real, c.imag
    return (np.may_share_memory(a[::2], a[1::2]), np.shares_memory(a[::2], a[1::2]), np.shares_memory(r, i),
            np.may_share_memory(r, i), np.shares_memory(r, c), np.shares_memory(c[1:].imag, c[:1]),
            np.shares_memory(c[1:].imag, c[:2]), np.shares_memory(r.view(np.int64)[::2], c[1::2]),
            np.may_share_memory(a[:2], a[2:]), np.shares_memory(a, c.real), np.may_share_memory(r[::3], i[1:2]),
            np.shares_memory(a[:2], a[2:], max_work=0), np.may_share_memory(r, i, max_work=1000))


def test_memory_questions():
    check_against_numpy(memory_questions, np.arange(8.0), np.arange(8.0) + 1j)
    with pytest.raises(np.exceptions.TooHardError):  # NB: as NumPy's, where the bounds overlap
        elena_jax.functionalize(lambda a: np.shares_memory(a[::2], a[1::2], max_work=0))(np.arange(8.0))


def test_imag_of_a_real_array_is_read_only_as_in_numpy():
    def f(a):
        a.imag[0] = 5

    with pytest.raises(ValueError, match="read-only"):
        f(F.copy())
    with pytest.raises(ValueError, match="read-only"):
        elena_jax.functionalize(f)(F.copy())


# --- the harness itself ---------------------------------------------------------------------------
def test_assert_same_checks_dtype_shape_values_and_nans():
    from elena_jax.testing import assert_same

    assert_same(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    assert_same(np.float64(1.0 + 1e-13), np.float64(1.0))  # an FMA's worth of difference
    for got, want in [(np.zeros(2, np.float32), np.zeros(2)), (np.zeros(2), np.zeros(3)),
                      (np.array([1.0, 2.0]), np.array([1.0, np.nan])), (np.array([1, 2]), np.array([1, 3])),
                      (np.float32(1.0001), np.float32(1.0))]:
        with pytest.raises(AssertionError):
            assert_same(got, want)


def keyword_array_written(a, *, out):
    out[1:] = a[:-1] * 2
    return a.sum()


def test_keyword_arrays_are_compared_after_the_call():
    check_against_numpy(keyword_array_written, V, out=np.zeros(10))


# --- boolean-mask writes whose value broadcasts to a row of the selection -----------------------------
def mask_rows_get_a_row_value(a):
    a[a[:, 0] > 0] = np.arange(8.0)
    return a


def mask_rows_get_a_row_of_a_first(a):
    a[a[:, 0] > 0] = a[0]  # NB: the value is read before any row is written
    return a


def mask_rows_value_with_leading_ones(a):
    a[a[:, 0] > 0] = np.arange(8)[None, None, :] * 1.5
    return a


def mask_2d_on_3d_value_broadcasts(a):
    a[a[:, :, 0] > 0] = np.linspace(0, 1, 5)
    return a


def mask_full_with_one_element_array(a):
    a[a > 0] = np.array([2.0])
    return a


@pytest.mark.parametrize("f,arg", [(mask_rows_get_a_row_value, F), (mask_rows_get_a_row_of_a_first, F),
                                   (mask_rows_value_with_leading_ones, F), (mask_2d_on_3d_value_broadcasts, F3),
                                   (mask_full_with_one_element_array, F)], ids=lambda x: getattr(x, "__name__", ""))
def test_mask_write_value_broadcasts(f, arg):
    check_against_numpy(f, arg)


# --- Python sequences holding traced values -------------------------------------------------------
def setitem_nested_list_of_traced(a): a[:2, :2] = [[a[0, 0], 1], [2, a[1, 1]]]; return a  # noqa: E702
def setitem_tuple_of_traced(a): a[0, :3] = (a[1, 1], a[2, 2] * 2, 7); return a  # noqa: E702
def fancy_setitem_list_of_traced(a): a[[1, 2], 0] = [a[0, 0], a[0, 1]]; return a  # noqa: E702
def ufunc_with_list_of_traced(a): return np.add(a[:, :2], [a[0, 0], 1.5]), np.maximum(a[0], [a[1, 0]] * 4)
def float_list_of_traced_into_int(a): a[1] = [a[0, 0] * 0.6, 1, 2, 3]; return a  # noqa: E702


@pytest.mark.parametrize("f,arg", [(setitem_nested_list_of_traced, F), (setitem_tuple_of_traced, F),
                                   (fancy_setitem_list_of_traced, F), (ufunc_with_list_of_traced, I32),
                                   (float_list_of_traced_into_int, I32)], ids=lambda x: getattr(x, "__name__", ""))
def test_sequences_of_traced_values(f, arg):
    check_against_numpy(f, arg)


# --- flips and rot90 are views ------------------------------------------------------------------------
def flip_views_write(v):
    np.flip(v)[0] = 9
    np.flipud(v[:4])[1] = 8
    return v


def fliplr_view_write(a):
    np.fliplr(a)[:, 0] = 0
    return a


def rot90_every_k_writes_through(a):
    outs = []
    for k in range(-1, 6):
        r = np.rot90(a, k)
        r[0, 1] = k
        outs.append(r * 1)
    return a, outs


def rot90_and_flip_other_axes(a):
    r = np.rot90(a, 1, axes=(2, 0))
    r[1] = -1
    f = np.flip(a, (0, 2))
    f[0, 0] += 10
    return a, np.rot90(a, 3, (1, 2)) + 0, np.flip(a) + 0


@pytest.mark.parametrize("f,arg", [(flip_views_write, V), (fliplr_view_write, F), (rot90_every_k_writes_through, F),
                                   (rot90_every_k_writes_through, F3), (rot90_and_flip_other_axes, F3)],
                         ids=lambda x: getattr(x, "__name__", ""))
def test_flips_are_views(f, arg):
    check_against_numpy(f, arg)


# --- ravel orders and np.array(copy=...) -----------------------------------------------------------
def ravel_every_order_of_every_layout(a):
    outs = []
    for v in (a, a.T, a[::-1], a[:, ::-1].transpose(2, 0, 1), a[:, ::2], np.swapaxes(a, 0, 1), a[0].T):
        for order in "CFAK":
            x = np.ravel(v, order=order)
            x[0] = -1  # through a view exactly when NumPy's ravel is one
            outs.append(x * 1)
    return a, outs


def array_copy_false_or_none_is_the_array(a):
    np.array(a, copy=False)[0] = 7
    np.array(a, copy=None)[1] = 8
    np.array(a[:, ::2], copy=None, dtype=np.float64)[2] = 9
    c = np.array(a, copy=None, dtype=np.float32)
    c[3] = 10
    d = np.array(a)
    d[4] = 11
    return a, c, d, np.array(a, ndmin=3, copy=None).shape


def test_ravel_orders():
    check_against_numpy(ravel_every_order_of_every_layout, F3)


def test_array_copy_keyword():
    check_against_numpy(array_copy_false_or_none_is_the_array, F)


def test_ravel_method_order():
    check_against_numpy(lambda a: (a.T.ravel("K").__setitem__(1, 6.0), a)[1], F)


def test_view_method_writes_through():
    def f(a):
        a.view()[0] = 1
        return a

    check_against_numpy(f, F)


# --- pass stress: reads and writes placed to trip coalescing, forwarding and dead-write elimination --------
D12 = R.normal(size=(5, 12))
V12 = R.normal(size=12)


def coalesce_then_read_partial(d):
    out = np.empty_like(d)
    out[:, 0::4] = d[:, 1::4]
    x = out[:, 0] * 1  # read between the tile writes
    out[:, 1::4] = d[:, 0::4]
    out[:, 2::4] = x[:, None]
    out[:, 3::4] = out[:, 1::4] + out[:, 0::4]
    return out
def coalesce_with_overwrite_of_one_lane(d):
    out = np.zeros_like(d)
    out[:, 0::4] = 1
    out[:, 1::4] = 2
    out[:, 2::4] = 3
    out[:, 3::4] = 4
    out[:, 1::4] = d[:, 1::4]
    out[:, 0::2] *= 2
    return out
def dead_write_read_through_other_view(d):
    out = np.zeros_like(d)
    out[:, 0] = 5
    y = out.T[0] * 1  # reads the write through a transposed view
    out[:, 0] = 6
    return out, y
def dead_write_read_through_reshape(d):
    out = np.zeros(60)
    out[::12] = 1
    r = out.reshape(5, 12)
    y = r[:, 0].sum()
    out[:] = 2
    return out, y
def forward_read_of_reshaped_region(d):
    out = np.zeros((5, 12))
    out[:, :4] = d[:, :4]
    z = out.reshape(5, 3, 4)[:, 0]  # exactly what was just written, through a reshape
    return z * 2
def forward_after_partial_overlap(d):
    out = d.copy()
    out[1:4] = -1
    out[2] = out[1] + 1  # reads a row just written
    out[:, 2:] = out[:, :-2]  # overlapping shift
    return out
def writes_to_input_and_copy_interleaved(d):
    c = d.copy()
    d[:, ::3] = c[:, 1::3]
    c[:, ::3] = d[:, 2::3]
    d[...] = d + c
    return c
def lanes_pattern_with_clip(d):
    b = np.empty_like(d)
    b[:, 0::4] = d[:, 0::4] - 1
    b[:, 1::4] = d[:, 1::4] - 1
    b[:, 2::4] = d[:, 2::4] + 1
    b[:, 3::4] = d[:, 3::4] + 1
    np.clip(b[:, 0::2], -0.5, 0.5, out=b[:, 0::2])
    np.clip(b[:, 1::2], -0.2, 0.2, out=b[:, 1::2])
    b[:, 0::4] += b[:, 2::4]
    return b
def many_overlapping_windows(v):
    for k in range(1, 4):
        v[k:] += v[:-k] * 0.5
        v[:-k] -= v[k:] * 0.25
    return v
def write_read_write_same_region_views(a):
    r = a.reshape(-1)
    r[::2] = 0
    s = a[:, ::2].sum()
    a[:, ::2] = 1
    t = r[::2].sum()
    return s, t, a
def transpose_roundtrip_write(a):
    a.T[::2, 1::2] = a[1::2, ::2].T * 3
    return a
def write_then_copy_then_overwrite(a):
    a[2] = 7
    b = a.copy()
    a[2] = 8
    return b[2], a[2]
def write_via_alias_held_in_list(a):
    views = [a[i] for i in range(3)]
    for i, v in enumerate(views):
        v += i
    return a, [v * 1 for v in views]
def empty_never_written_but_unused(a):
    e = np.empty((3, 3))
    e[:] = 1
    e[1] = a[0, :3]
    return e
def coalesce_interleaved_with_input_write(d):
    out = np.empty((5, 12))
    out[:, 0::3] = d[:, 0::3]
    d[:, 1::3] = 0  # write the source between tile writes
    out[:, 1::3] = d[:, 1::3]
    out[:, 2::3] = d[:, 2::3]
    return out
def coalesce_copy_source_overwritten(d):
    out = np.empty((5, 12))
    out[:, 0::2] = d[:, 1::2]
    out[:, 1::2] = d[:, 0::2]
    d[:, 0::2] = out[:, 0::2] * 10
    d[:, 1::2] = out[:, 1::2] * 100
    return out


PASS_STRESS = [
    (coalesce_then_read_partial, D12), (coalesce_with_overwrite_of_one_lane, D12),
    (dead_write_read_through_other_view, D12), (dead_write_read_through_reshape, D12),
    (forward_read_of_reshaped_region, D12), (forward_after_partial_overlap, D12),
    (writes_to_input_and_copy_interleaved, D12), (lanes_pattern_with_clip, D12), (many_overlapping_windows, V12),
    (write_read_write_same_region_views, F), (transpose_roundtrip_write, F), (write_then_copy_then_overwrite, F),
    (write_via_alias_held_in_list, F), (empty_never_written_but_unused, F),
    (coalesce_interleaved_with_input_write, D12), (coalesce_copy_source_overwritten, D12),
]


@pytest.mark.parametrize("f,arg", PASS_STRESS, ids=lambda x: getattr(x, "__name__", ""))
def test_pass_stress(f, arg):
    check_against_numpy(f, arg)


def clip_int_with_out_of_range_python_bounds(a, u):
    np.clip(a, -1000, 10, out=a)
    return (np.clip(a, -300, 300), np.clip(a, -300, 50), np.clip(a, 0, 2**70), np.clip(u, -5, 100),
            np.clip(a, -1.5, 300), np.clip(a, np.int16(-300), 50), a.clip(-128, 127), np.clip(u, 0, None))


def test_clip_int_with_out_of_range_python_bounds():
    check_against_numpy(clip_int_with_out_of_range_python_bounds, np.array([-100, 5, 100], np.int8),
                        np.array([1, 200], np.uint8))


# --- arguments that share memory --------------------------------------------------------------------
# NumPy arguments that overlap are one buffer: a write through one is read through the others. The
# harness copies such arguments as one block, so NumPy and elena_jax see the same sharing.
def add_then_read_other_argument(a, b):
    a += 1
    return b * 1  # NB: b shares memory with a: NumPy sees the write


def write_both_alternately(a, b):
    a *= 2
    b += a[:, -1:].sum()  # reads a after its write, writes the overlap again
    a[0] = b[-1, :a.shape[1]] - 1
    return a + 0, b.sum(axis=0)


def assign_transposed_other(a, b):
    a += 1
    a[...] = b.T  # NumPy copies an overlapping source first
    return a


def chain_of_three(a, b, c):
    a += 1  # a overlaps b, b overlaps c, a and c are disjoint
    c *= 10
    b -= a.sum()
    return a * 1, c * 1


def write_each_disjoint(a, b, c):
    a += 1
    b *= 2
    c -= 3
    return a.sum(), b.sum(), c.sum()


def write_returns_other(a, b):
    a[1:] = a[:-1] + b[:1]
    return b


def write_tree_of_aliases(t):
    t["a"][...] = t["b"][0] * 2
    t["b"][1] += 1
    return t["a"].sum(), t["b"][0] + 0


X34 = np.arange(12.0).reshape(3, 4)
X34F = np.asfortranarray(X34)
X6 = np.arange(6.0)


def _read_only(a):
    a = a.view()
    a.flags.writeable = False
    return a


ALIASED = [
    ("same_object_twice", add_then_read_other_argument, (X6, X6)),
    ("equal_strided_views", add_then_read_other_argument, (X34[:, 1], X34[:, 1])),
    ("base_and_strided_view", add_then_read_other_argument, (X6, X6[::2])),
    ("strided_view_and_base", add_then_read_other_argument, (X6[::2], X6)),
    ("view_and_0d_view", add_then_read_other_argument, (X6, X6[2, ...])),
    ("overlapping_column_windows", write_both_alternately, (X34[:, :2], X34[:, 1:])),
    ("offset_windows_reversed", write_both_alternately, (X34[:, 1:3], X34[::-1, 2:])),
    ("offset_windows_fortran", write_both_alternately, (X34F[:, :3], X34F[:, 1:])),
    ("same_square_twice_transposed", assign_transposed_other, (SQ, SQ)),
    ("square_and_its_transpose", assign_transposed_other, (F[:5, :5], F[:5, :5].T)),
    ("read_only_view_of_written", add_then_read_other_argument, (X34, _read_only(X34[::-1]))),
    ("chain_of_three", chain_of_three, (X6[0:3], X6[2:5], X6[4:6])),
    ("disjoint_views_and_a_gap", write_each_disjoint, (X34[::2, :2], X34[::2, 1:], X34[1])),
    ("write_returns_other", write_returns_other, (X6[1:], X6[:-1])),
    ("pytree", write_tree_of_aliases, ({"a": X34[1:, ::2], "b": [X34[:2, 1::2], X34[:, 3]]},)),
]


@pytest.mark.parametrize("case, jit", rotated(ALIASED, [True, False], name=lambda case: case[0], dtype_first=False))
def test_arguments_that_share_memory(case, jit):
    _, f, args = case
    check_against_numpy(f, *args, jit=jit)


def test_arguments_that_share_memory_by_keyword():
    x = np.arange(6.0)
    check_against_numpy(add_then_read_other_argument, a=x[1:], b=x[:-1])


def test_arguments_that_share_memory_unexpressibly_are_refused_when_written():
    buf = np.arange(16, dtype=np.uint8)
    words, floats = buf[:8].view(np.int32), buf[:8].view(np.float32)
    f = elena_jax.functionalize(add_then_read_other_argument)
    with pytest.raises(elena_jax.UnsupportedError, match="arguments a, b share memory with different dtypes"):
        f(words, floats)
    shifted = np.ndarray((1,), np.int32, buffer=buf, offset=2)
    with pytest.raises(elena_jax.UnsupportedError, match="not multiples of the itemsize"):
        f(words, shifted)
    np.testing.assert_array_equal(buf, np.arange(16, dtype=np.uint8))  # refused: nothing written
    # NB: only reading them is exact with separate buffers
    np.testing.assert_array_equal(elena_jax.functionalize(lambda a, b: a + b)(words, shifted), words + shifted)

# --- index helpers ---------------------------------------------------------------------------------
def ix_mgrid_ogrid_indices(a):
    a[np.ix_([0, 2], [1, 3, 5])] = -1
    yy, xx = np.mgrid[0:6, 0:8]
    oy, ox = np.ogrid[0:6, 0:8]
    ii, jj = np.indices(a.shape)
    a[(ii + jj) % 3 == 0] *= 2
    a[np.triu_indices(6, 1, 8)] += 0.5
    a[np.diag_indices(6)] += 100
    return a, a[np.ix_([1, 4], [0, 7])] * 1, a * yy + xx, a[oy, ox] + 0


def test_index_helpers():
    check_against_numpy(ix_mgrid_ogrid_indices, F)


def test_r_and_c_of_traced_arrays():
    check_against_numpy(lambda v: (np.r_[v, 0.0, v[::-1]], np.c_[v, v * 2], np.r_["0,2", v, v > 0],
                                   np.r_["1,2,0", v[:4], v[4:8]], np.c_[np.float32(1), v[:1]], np.r_[v[:2], 1:3],
                                   np.r_[-1, v.astype(np.int8)]), V)


def test_nonzero_of_a_constant_built_inside():
    """Integer and boolean arithmetic on constants made inside f is known at trace time, so
    functions whose output shape depends on the data answer as NumPy does."""
    def f(a):
        lanes = np.arange(8)
        a[:, np.nonzero(lanes % 3 == 0)[0]] = 1
        keep = (lanes > 2) & ~((lanes == 4) | (lanes == 5))
        picked = np.unique(lanes[::-1] // 2, return_counts=True)
        return a, np.flatnonzero(keep), np.argwhere(keep.reshape(2, 4)), picked, a.compress(keep, axis=1)

    check_against_numpy(f, F)


def lagged_differences(traj):
    """Python values of constants made inside f: loop bounds, slice bounds, a branch, a float."""
    out = []
    for lag in np.arange(1, 4):
        dd = traj[lag:] - traj[:-lag]
        out.append(np.abs(dd).sum(axis=1))
    k = np.arange(5)[2]
    if k > 1 and bool(np.arange(3)[1] == 1):
        traj[k, :: np.arange(4)[1]] = -1.0
    for i in range(np.arange(4)[3]):
        out.append(traj[i] * float(np.linspace(0, 1, 5)[1]))
    return out, traj


def test_python_values_of_constants_made_inside():
    """A scalar of a constant made inside f (an element of ``np.arange(1, 7)``, a comparison of
    one) is known at trace time, the same at every call: ``int``/``bool``/``float``/``__index__``
    and slice bounds take its value, as NumPy's (they were refused as data-dependent; an
    acceptance campaign's find, session 21). A write through ``traj[k, ::s]`` stays a view's."""
    check_against_numpy(lagged_differences, np.random.default_rng(0).normal(size=(10, 2)), rtol=0, atol=0)
    with pytest.raises(elena_jax.ConcretizationError, match="slice with traced bounds"):
        elena_jax.functionalize(lambda t, i: t[i:])(np.ones(4), np.asarray(1))  # NB: traced (np.int64(1) is static)
    counts = np.zeros(5)

    def count_into_a_numpy_array(x):
        counts[np.arange(5)[2]] += 1  # NB: NumPy's write, which would happen once, when tracing
        return x

    with pytest.raises(elena_jax.ConcretizationError, match="writing into a NumPy array that is not traced"):
        elena_jax.functionalize(count_into_a_numpy_array)(np.ones(2))
    np.testing.assert_array_equal(counts, 0.0)


def test_a_written_or_float_computed_constant_is_not_known():
    """Once written, or computed in floating point (where XLA may round otherwise), a constant
    made inside f is traced like any array: a data-dependent shape of it is refused."""
    def written(a):
        m = np.arange(8) > 3
        m[0] = a[0, 0] > 0
        return np.nonzero(m)

    def float_computed(a):
        return np.nonzero(np.sin(np.arange(8.0)) > 0)

    for f in (written, float_computed):
        with pytest.raises(elena_jax.ConcretizationError, match="depends on the data"):
            elena_jax.functionalize(f)(F.copy())


# --- `a[i] op= v` where a[i] is a NumPy scalar: Python's tmp = a[i]; tmp = tmp op v; a[i] = tmp -----------
def augmented_scalar_element_promotes_then_casts(b, i):
    b[-2] |= 9  # NB: np.True_ | 9 is int64 10; stored back into the bool array as True
    i[0, 1] += 1.5  # NB: an int32 scalar + 1.5 is 2.5 (float64); stored back truncated
    x = i[1, 0]
    x *= 100  # a scalar: i itself is untouched
    v = i.diagonal()
    np.copyto(v, v)  # NB: src is dst: NumPy returns before refusing the read-only view
    return b, i, x


def ravel_of_a_result_computed_from_a_transpose(a):
    c = a.T + 1  # NB: NumPy lays c out as a.T is (F order): c.ravel() is a copy
    r = c.ravel()
    r[0] = 100
    return c, r


def test_ravel_of_a_result_follows_numpys_layout():
    check_against_numpy(ravel_of_a_result_computed_from_a_transpose, np.arange(6.0).reshape(2, 3))


# --- results laid out in memory as NumPy lays them out (order 'K'), so later views are views exactly there --
def _three_d(a):
    return a.reshape(2, 3, 2).transpose(2, 1, 0)  # NB: neither C nor Fortran ordered


LAID_OUT = {
    "ufunc": lambda t: np.sin(t), "binary_operator": lambda t: t * t + 1, "comparison": lambda t: t > 3,
    "divmod": lambda t: np.divmod(t, 3)[1], "ufunc_where": lambda t: np.add(t, 1, out=np.zeros_like(t), where=t > 3),
    "where": lambda t: np.where(t > 3, t, 0), "clip": lambda t: np.clip(t, 2, 5),
    "astype": lambda t: t.astype(np.float32), "astype_to_int": lambda t: t.astype(np.int16),
    "np_copy": lambda t: np.copy(t), "np_array": lambda t: np.array(t), "zeros_like": lambda t: np.zeros_like(t),
    "full_like": lambda t: np.full_like(t, 3), "sum": lambda t: _three_d(t).sum(axis=1),
    "max_keepdims": lambda t: _three_d(t).max(axis=1, keepdims=True), "mean": lambda t: _three_d(t).mean(axis=1),
    "std": lambda t: np.std(_three_d(t), axis=1), "median": lambda t: np.median(_three_d(t), axis=1),
    "cumsum": lambda t: np.cumsum(t, axis=0), "maximum_accumulate": lambda t: np.maximum.accumulate(t, axis=1),
    "sort": lambda t: np.sort(t, axis=0), "nan_to_num": lambda t: np.nan_to_num(t),
    "diff": lambda t: np.diff(t, axis=0),
    "concatenate": lambda t: np.concatenate([t, t]), "stack": lambda t: np.stack([t, t]), "pad": lambda t: np.pad(t, 1),
    "fix": lambda t: np.fix(t / 2), "fancy_middle": lambda t: t[:, [0, 2]], "fancy_first": lambda t: t[[1, 0]],
    "round_decimals": lambda t: np.round(_three_d(t), 1), "round_int": lambda t: np.round(_three_d(t).astype(int), -1),
    "einsum_sum": lambda t: np.einsum("ij->i", t),
    # a C-ordered where= mask or list operand keeps an elementwise result in C order
    "sum_where": lambda t: _three_d(t).sum(axis=1, where=np.ones((2, 3, 2), bool)),
    "where_list": lambda t: np.where(t > 3, [1.0, 2.0, 3.0], t), "array_of_list": lambda t: np.array([t, t]),
    # copies and *_like sort the axes by stride: a broadcast axis is innermost
    "copy_of_broadcast": lambda t: np.copy(np.broadcast_to(t[0], (2, 3))),
    "astype_of_broadcast": lambda t: np.broadcast_to(t[:, :1], (4, 3)).astype(np.float32),
    "ones_like_new_shape": lambda t: np.ones_like(t, shape=(5, 6)),
    "pad_of_gapped": lambda t: np.pad(t[::2], 1),  # NB: np.pad looks at the contiguity flags
    "fancy_by_fortran_index": lambda t: t[0][np.zeros((3, 4), int).T + 1],
    "order_A": lambda t: np.add(t, np.arange(3.0), order="A"),
    # C-ordered whatever the input: ndarray.copy(), argmax, matmul, ones_like(order='C')
    "copy_method": lambda t: t.copy(), "argmax": lambda t: np.argmax(_three_d(t), axis=1), "matmul": lambda t: t @ t.T,
    "ones_like_c": lambda t: np.ones_like(t, order="C"),
}


@pytest.mark.parametrize("name", LAID_OUT)
def test_a_result_is_laid_out_as_numpy_lays_it_out(name):
    """A write through ravel/reshape of the result changes it exactly where NumPy's does (there the
    ravel is a view, not a copy); the transpose of a C-ordered input is Fortran ordered."""
    def f(a):
        r = LAID_OUT[name](a.T)
        r.ravel()[0] = 77
        r.reshape(-1)[-1] = 55
        return r, np.asarray([s for s, n in zip(r.strides, r.shape) if n > 1])  # NB: unit axes' strides vary

    check_against_numpy(f, np.arange(1.0, 13.0).reshape(3, 4))


def test_index_arrays_into_empty_arrays():
    # NB: library fuzz seed 4341 #467: laying out the result indexed the empty axis at 0 (IndexError)
    def f(a):
        empty = np.nonzero(np.arange(0) % 3 == 0)[0]
        return a[:, :, 2:2][..., empty], a[:0][[]], a[:, :0][:, [], :], a[:, :0][0, []]

    check_against_numpy(f, np.ones((2, 3, 4)))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_advanced_indexing_lays_out_its_result_as_numpy(data):
    """``a[key]`` with index arrays: NumPy puts the index dims outermost in memory and the other dims
    as they lie in ``a`` (``a[:, [0, 1]]`` of a C-ordered ``a`` is not C-ordered)."""
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    order = data.draw(st.permutations(range(len(shape))))
    flips = tuple(slice(None, None, data.draw(st.sampled_from([1, -1]))) for _ in shape)

    def laid_out(base):  # the array in a random memory order, made inside the traced function
        return base.reshape([shape[i] for i in order]).transpose(np.argsort(order))[flips]

    base = np.arange(float(np.prod(shape)))
    key = []
    for n in shape:
        kind = data.draw(st.sampled_from(["slice", "int", "array", "column"]))
        if kind == "slice":
            key.append(slice(None, None, data.draw(st.sampled_from([1, 2, -1]))))
        elif kind == "int":
            key.append(data.draw(st.integers(0, n - 1)))
        else:
            idx = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2)))
            key.append(idx[:, None] if kind == "column" else idx)
    if data.draw(st.booleans()):
        key.insert(data.draw(st.integers(0, len(key))), None)
    key = tuple(key)
    want = laid_out(base)[key]
    seen = []

    def f(x):
        r = laid_out(x)[key]
        seen.append([st for st, n in zip(r.strides, r.shape) if n > 1])
        return r

    elena_jax.make_jaxpr(f)(base)
    assert seen[0] == [st for st, n in zip(want.strides, want.shape) if n > 1], key


def constant_selections(d):
    n = d.shape[0]
    d[np.arange(n), np.arange(n)] = np.inf  # NB: campaign N's pairwise_dist: a scatter before
    diagonal = d[np.arange(n), np.arange(n)]
    rows = d[[4, 2, 0], 1:]
    d[::-1][[1, 3], [0, 2]] = [-1.0, -2.0]
    columns = d[:, [True, False, True, False, True]]
    d[np.array([[0, 1], [2, 3]]), 2] *= 10  # NB: a 2-D constant index, read and written
    repeated = d[[1, 1, 1]]
    return d.min(axis=1), d.argmin(axis=1), diagonal, rows, columns, repeated


def _primitives(f, *args) -> str:
    return str(elena_jax.make_jaxpr(f)(*args))


def test_constant_index_arrays_selecting_evenly_spaced_elements_are_views():
    """Index arrays known at trace time whose selection is evenly spaced along each of its axes
    (a diagonal, every other row, a reversed run, a constant mask, one row thrice) are read as
    copies of that view and written through it: no gather or scatter."""
    x = np.random.default_rng(0).normal(size=(5, 5))
    check_against_numpy(constant_selections, x, rtol=0, atol=0)
    assert not re.search(r"\b(gather|scatter)", _primitives(constant_selections, x))


def selections_apart(a):
    b = a[[0, 1, 3]]  # NB: not evenly spaced: a gather
    a[[2, 2]] = [[7.0], [8.0]]  # NB: one place twice, the last value wins: a scatter
    c = a[[0, 2]]
    a[0] = -1.0  # NB: c copied its rows before
    return b, c, a


def test_selections_not_a_view_or_written_twice_keep_their_gather_and_scatter():
    x = np.random.default_rng(1).normal(size=(4, 3))
    check_against_numpy(selections_apart, x, rtol=0, atol=0)
    jaxpr = _primitives(selections_apart, x)
    assert "gather" in jaxpr and "scatter" in jaxpr


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_constant_index_arrays_read_and_write_as_numpy(data):
    """Constant index arrays (runs of any step, lists, masks) beside slices and integers, read,
    written and updated in place, from a view of any layout."""
    shape = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    view = data.draw(st.sampled_from([(), (slice(None, None, -1),), (slice(None, None, 2),)]))
    key = []
    for n in np.empty(shape)[view].shape:
        kind = data.draw(st.sampled_from(["slice", "int", "run", "list", "mask"]))
        if kind == "slice":
            key.append(slice(None, None, data.draw(st.sampled_from([1, -1]))))
        elif kind == "int":
            key.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "run":
            start, step = data.draw(st.integers(0, n - 1)), data.draw(st.sampled_from([1, 2, -1]))
            key.append(np.arange(start, -1 if step < 0 else n, step))
        elif kind == "list":
            key.append(np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3))))
        else:
            key.append(np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool))
    key = tuple(key)
    written = data.draw(st.sampled_from(["set", "add", "none"]))

    def f(x):
        v = x[view]
        got = v[key] * 1
        if written == "set":
            v[key] = -np.arange(np.size(v[key]), dtype=float).reshape(np.shape(v[key]))
        elif written == "add":
            v[key] += 100.0
        return got, x

    x = np.arange(float(np.prod(shape))).reshape(shape)
    try:
        x[view][key]
    except IndexError:  # NB: index arrays that do not broadcast together
        assume(False)
    if written != "none" and x[view][key].size:
        probe = np.zeros_like(x[view], int)
        np.add.at(probe, key, 1)
        if probe.max() > 1:  # NB: a place written twice: NumPy's result is the last write, not compared
            written = "none"
    check_against_numpy(f, x, rtol=0, atol=0)


def orders(a):
    z = np.zeros((2, 3), order="F")
    z.ravel()[1] = 1  # a copy: z stays zero
    f = a.copy(order="F")
    f.reshape(-1, order="F")[1] = 9  # a view in Fortran order: f[1, 0]
    k = a.T.ravel("K")  # memory order: a view of a
    k[1] = 5
    c = np.asfortranarray(a)
    c.T.ravel()[0] = 3
    return z, f, a, a.ravel("F"), a.T.reshape(2, 6, order="A"), a.flatten("F"), c, np.array(a, order="F").strides


def test_order_arguments_lay_out_and_read_as_numpy():
    check_against_numpy(orders, np.arange(12.0).reshape(3, 4))


def ravel_writes(x):
    x.ravel()[0] = 5  # NB: a copy unless x is C-contiguous
    x.reshape(-1)[-1] = 9
    return x + 1


@pytest.mark.parametrize("view", ["transpose", "fortran", "steps", "reversed", "columns", "broadcast"])
def test_an_argument_keeps_its_strides(view):
    """A NumPy argument that is not C-contiguous is traced with its own strides: ravel/reshape of it
    copy exactly where NumPy's do, so the caller's array changes exactly as in NumPy."""
    a = np.arange(24.0).reshape(4, 6)
    x = {"transpose": a.T, "fortran": np.asfortranarray(a), "steps": a[:, ::2], "reversed": a[::-1, ::-2],
         "columns": a[:, 1:3], "broadcast": np.broadcast_to(a[0], (3, 6))}[view]
    check_against_numpy(ravel_writes if x.flags.writeable else lambda x: x.ravel().copy() + x.T.ravel(), x)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_an_argument_of_any_layout_is_written_as_in_numpy(data):
    """Random transposes, steps and reversals of the caller's array: ravel/reshape inside ``f`` copy or
    view exactly as NumPy's, so the caller's memory (gaps included) ends as NumPy leaves it."""
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    base = np.arange(float(np.prod(shape) * 4)).reshape([n * 2 if k == 0 else n for k, n in enumerate(shape)] +
                                                         [2])[..., 0]
    order = data.draw(st.permutations(range(len(shape))))
    steps = tuple(slice(None, None, data.draw(st.sampled_from([1, -1, 2]))) for _ in shape)
    x = base.transpose(order)[steps]
    check_against_numpy(ravel_writes, x)


def einsum_views(a, s):
    v = np.einsum("ij->ji", a)  # NB: NumPy returns a writeable view for a relabelling
    v[0, 1] = 50
    d = np.einsum("ii->i", s)  # and for a diagonal
    d += 100
    specs = [("ij", a), ("ji", a), ("...j->j...", a), ("i...->...i", a), ("ij->i", a), ("ii", s)]
    return [np.einsum(spec, x) * 1 for spec, x in specs] + [np.einsum("ij,jk->ik", a, a.T), a, s]


def test_einsum_of_one_operand_without_sums_is_a_view():
    check_against_numpy(einsum_views, np.arange(12.0).reshape(3, 4), np.arange(9.0).reshape(3, 3))


def test_a_constant_keeps_its_layout():
    w = np.arange(6.0).reshape(2, 3).T  # a global NumPy array, Fortran ordered

    def f(a):
        c = np.asarray(w) + 0 * a[0]  # NB: computed from w's layout, so Fortran ordered too
        c.ravel()[0] = 100
        return c

    check_against_numpy(f, np.ones(2))


def test_augmented_assignment_of_a_scalar_element():
    check_against_numpy(augmented_scalar_element_promotes_then_casts, np.array([True, False, True]), I32)


def test_contiguous_arrays_of_a_scalar_are_one_dimensional():
    check_against_numpy(lambda a: (np.ascontiguousarray(a[0, 0]) + 0, np.asfortranarray(a[0, 1]) + 0), F)
