"""Numba CUDA kernels on XLA's device buffers and stream (needs a GPU and numba-cuda; skips otherwise)."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import elena_jax
from elena_jax.kernels import kernel

pytestmark = pytest.mark.gpu


def _cuda():
    try:
        if not jax.devices("gpu"):
            return None
    except RuntimeError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's built-in CUDA target warns that it moved to numba-cuda
        try:
            from numba import cuda
        except ImportError:
            return None
    return cuda if cuda.is_available() else None


cuda = _cuda()
if cuda is None:
    pytest.skip("needs a GPU, a CUDA jaxlib and numba-cuda", allow_module_level=True)


@kernel(outputs=(1,))
def double_even_positions(x, out):
    for i in range(0, x.shape[0], 2):
        out[i] = 2 * x[i]


@double_even_positions.cuda(launch=lambda x, out: ((x.shape[0] + 127) // 128, 128))
def double_even_positions_gpu(x, out):
    i = cuda.grid(1)
    if i < x.shape[0] and i % 2 == 0:
        out[i] = 2 * x[i]


@kernel(outputs=("keep",))
def greedy_nms(boxes, scores, iou_thr, keep):
    raise NotImplementedError  # the CPU body is not used on the GPU


@greedy_nms.cuda(launch=(1, 1))  # greedy suppression is sequential: one thread
def greedy_nms_gpu(boxes, scores, iou_thr, keep):
    n = boxes.shape[0]
    for i in range(n):  # boxes arrive sorted by score
        if not keep[i]:
            continue
        for j in range(i + 1, n):
            w = min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0])
            h = min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1])
            inter = max(w, 0.0) * max(h, 0.0)
            area_i = (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
            area_j = (boxes[j, 2] - boxes[j, 0]) * (boxes[j, 3] - boxes[j, 1])
            if inter / (area_i + area_j - inter) > iou_thr:
                keep[j] = False


def nms_reference(boxes, iou_thr):
    keep = np.ones(len(boxes), bool)
    for i in range(len(boxes)):
        if keep[i]:
            for j in range(i + 1, len(boxes)):
                w = max(min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0]), 0)
                h = max(min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1]), 0)
                a = (boxes[i, 2:] - boxes[i, :2]).prod() + (boxes[j, 2:] - boxes[j, :2]).prod()
                keep[j] &= not w * h / (a - w * h) > iou_thr
    return keep


def test_cuda_kernel_partial_writes_on_device_inside_jit():
    x = jnp.arange(300.0)
    got = jax.jit(lambda a: double_even_positions(a, jnp.full_like(a, -1.0)))(x)
    want = np.where(np.arange(300) % 2 == 0, 2 * np.arange(300.0), -1.0)
    np.testing.assert_array_equal(got, want)
    assert got.devices() == x.devices()


def test_cuda_kernels_are_ordered_on_xlas_stream():
    def chain(a):
        for _ in range(4):  # each launch reads what XLA and the previous launch wrote on the same stream
            a = double_even_positions(a + 1.0, a)
        return a

    x = np.arange(1000.0)
    want = x.copy()
    for _ in range(4):
        want[0::2] = 2 * (want[0::2] + 1.0)
    np.testing.assert_array_equal(jax.jit(chain)(jnp.asarray(x)), want)


def test_cuda_kernel_under_vmap_and_in_functionalized_code():
    batch = jnp.stack([jnp.arange(8.0), jnp.arange(8.0) + 1])
    mapped = jax.vmap(lambda a: double_even_positions(a, jnp.zeros_like(a)))(batch)
    np.testing.assert_array_equal(mapped[1], [2, 0, 6, 0, 10, 0, 14, 0])

    def f(x):
        out = np.zeros_like(x)
        double_even_positions(x, out)
        return out

    np.testing.assert_array_equal(elena_jax.functionalize(f)(np.arange(6.0)), [0, 0, 4, 0, 8, 0])


def test_single_thread_nms_on_the_gpu_matches_numpy():
    rng = np.random.default_rng(0)
    boxes = rng.uniform(0, 50, (64, 4)).astype(np.float32)
    boxes[:, 2:] += boxes[:, :2] + 5
    keep = greedy_nms(jnp.asarray(boxes), jnp.zeros(64, jnp.float32), 0.4, jnp.ones(64, bool))
    np.testing.assert_array_equal(keep, nms_reference(boxes, 0.4))


@kernel(outputs=("out",), grid=lambda x, scale, out: ((x.shape[0] + 63) // 64, 64))
def scaled(x, scale, out):
    """A GPU-only kernel: the body itself is Numba CUDA style."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = scale * x[i]


def test_cuda_style_kernel_made_with_grid_and_a_static_scalar():
    x = jnp.arange(200.0)
    np.testing.assert_array_equal(jax.jit(lambda a: scaled(a, 3.0, jnp.zeros_like(a)))(x), 3.0 * np.arange(200.0))


def test_cuda_kernel_inside_scan_and_with_a_donated_output():
    def body(carry, _):
        return double_even_positions(carry, carry), None

    got, _ = jax.jit(lambda a: jax.lax.scan(body, a, None, length=3))(jnp.arange(6.0))
    np.testing.assert_array_equal(got, [0, 1, 16, 3, 32, 5])
    step = jax.jit(lambda x, out: double_even_positions(x, out), donate_argnums=1)
    out = jnp.full(6, -1.0)
    np.testing.assert_array_equal(step(jnp.arange(6.0), out), [0, -1, 4, -1, 8, -1])
    assert out.is_deleted()
