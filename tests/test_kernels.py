"""Numba kernels inside functionalized code and inside JAX (elena_jax/kernels)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import elena_jax
from elena_jax.testing import check_against_numpy


@elena_jax.kernel(outputs=("keep",))
def greedy_nms(boxes, scores, iou_thr, keep):
    """Sequential, data-dependent suppression: what XLA cannot express well."""
    n = boxes.shape[0]
    order = np.argsort(-scores)
    for a in range(n):
        keep[a] = True
    for ia in range(n):
        i = order[ia]
        if not keep[i]:
            continue
        for ib in range(ia + 1, n):
            j = order[ib]
            w = min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0])
            h = min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1])
            inter = max(w, 0.0) * max(h, 0.0)
            area_i = (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
            area_j = (boxes[j, 2] - boxes[j, 0]) * (boxes[j, 3] - boxes[j, 1])
            if inter / (area_i + area_j - inter) > iou_thr:
                keep[j] = False


def postprocess(rois, deltas, scores):
    """Boxes decoded by NumPy code (XLA), suppressed by the kernel, in one program."""
    w = rois[:, 2] - rois[:, 0]
    h = rois[:, 3] - rois[:, 1]
    boxes = rois.copy()
    boxes[:, 0::2] += deltas[:, 0::2] * w[:, None]
    boxes[:, 1::2] += deltas[:, 1::2] * h[:, None]
    keep = np.zeros(rois.shape[0], dtype=bool)
    greedy_nms(boxes, scores, 0.5, keep)
    return boxes, keep


def detections(n=40, seed=0):
    rng = np.random.default_rng(seed)
    rois = rng.uniform(0, 100, (n, 4))
    rois[:, 2:] += rois[:, :2] + 5
    return rois, rng.normal(scale=0.1, size=(n, 4)), rng.uniform(size=n)


def test_nms_kernel_in_functionalized_postprocessing_matches_numpy():
    # Eagerly the kernel runs under Numba on the NumPy arrays, in place: NumPy is the oracle.
    args = detections()
    want_boxes, want_keep = check_against_numpy(postprocess, *args)
    assert 0 < want_keep.sum() < len(want_keep)


def test_kernel_on_numpy_arrays_writes_in_place():
    out = np.zeros(4)
    assert double_even_positions(np.arange(4.0), out) is out
    np.testing.assert_array_equal(out, [0.0, 0.0, 4.0, 0.0])


@elena_jax.kernel(outputs=(1,))
def double_even_positions(x, out):
    for i in range(0, x.shape[0], 2):
        out[i] = 2 * x[i]


def test_partial_writes_keep_previous_contents_and_write_back():
    def f(x, out):
        double_even_positions(x, out)
        return out.sum()

    out = np.full(5, -1.0)
    total = elena_jax.functionalize(f)(np.arange(5.0), out)
    np.testing.assert_array_equal(out, [0.0, -1.0, 4.0, -1.0, 8.0])  # the caller's array, odd entries kept
    assert float(total) == 10.0


def test_kernel_on_jax_arrays_inside_jit_vmap_and_scan():
    x = jnp.arange(6.0)
    direct = double_even_positions(x, jnp.zeros(6))
    np.testing.assert_array_equal(direct, [0, 0, 4, 0, 8, 0])
    jitted = jax.jit(lambda a: double_even_positions(a, jnp.ones_like(a)))(x)
    np.testing.assert_array_equal(jitted, [0, 1, 4, 1, 8, 1])
    batch = jnp.stack([x, x + 1])
    mapped = jax.vmap(lambda a: double_even_positions(a, jnp.zeros_like(a)))(batch)
    np.testing.assert_array_equal(mapped[1], [2, 0, 6, 0, 10, 0])

    def body(carry, _):
        return double_even_positions(carry, carry), None

    scanned, _ = jax.lax.scan(body, x, None, length=3)
    np.testing.assert_array_equal(scanned, [0, 1, 16, 3, 32, 5])


def test_grad_through_a_kernel_is_a_clear_error():
    with pytest.raises(Exception, match="(?i)differentiat|jvp|transpose"):
        jax.grad(lambda a: double_even_positions(a, jnp.zeros_like(a)).sum())(jnp.arange(4.0))


@elena_jax.kernel(outputs=("out",))
def failing(x, out):
    if x[0] < 0:
        raise ValueError("negative input")
    out[0] = x[0]


def test_an_error_inside_a_kernel_is_raised_and_the_process_stays_usable():
    with pytest.raises(Exception, match="negative input"):
        jax.block_until_ready(failing(jnp.array([-1.0]), jnp.zeros(1)))
    np.testing.assert_array_equal(failing(jnp.array([3.0]), jnp.zeros(1)), [3.0])


def test_kernel_outputs_must_be_arrays():
    with pytest.raises(TypeError, match="output"):
        failing(jnp.ones(1), 0.0)
