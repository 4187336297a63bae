"""Greedy NMS as a Numba kernel inside functionalized post-processing, and the mechanisms' overhead.

Run: ``python examples/nms_kernel.py`` -- prints the kept boxes of a random
detection batch, then the per-call overhead of a kernel call through the
Numba-compiled XLA FFI handler, ``buffer_callback`` (the debug mode) and
``jax.pure_callback``, measured on many calls inside one ``lax.scan`` (so
dispatch of the jitted function is not counted) and on single jitted calls.
A no-op FFI handler (it only answers XLA's metadata query) gives the floor:
what XLA's custom call costs by itself.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

import elena_jax
from elena_jax.kernels import kernel


@kernel(outputs=("keep",))
def greedy_nms(boxes, scores, iou_thr, keep):
    """Suppress boxes overlapping a higher-scoring kept box by more than ``iou_thr``."""
    n = boxes.shape[0]
    order = np.argsort(-scores)
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


@elena_jax.functionalize
def detect(rois, deltas, scores, min_score):
    """Decode deltas into boxes with strided in-place writes, drop low scores, suppress overlaps."""
    w = rois[:, 2] - rois[:, 0]
    h = rois[:, 3] - rois[:, 1]
    boxes = rois.copy()
    boxes[:, 0::2] += deltas[:, 0::2] * w[:, None]
    boxes[:, 1::2] += deltas[:, 1::2] * h[:, None]
    keep = scores > min_score
    greedy_nms(boxes, scores, 0.5, keep)
    return boxes, keep


def _copy_first(x, out):
    out[0] = x[0]


copy_ffi = kernel(_copy_first, outputs=("out",))
copy_callback = kernel(_copy_first, outputs=("out",), mode="callback")


def _per_call(f, *args, repeat: int = 200) -> float:
    jax.block_until_ready(f(*args))
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(repeat):
            jax.block_until_ready(f(*args))
        best = min(best, (time.perf_counter() - t) / repeat)
    return best


def _noop_ffi():
    """An FFI call of a handler that does nothing: the cost of XLA's custom call alone."""
    import numba

    from elena_jax.kernels import _abi, _ffi

    ext_at = _abi.OFFSETS["frame.extension_start"]

    @numba.cfunc(numba.types.int64(numba.types.int64))
    def noop(frame):
        ext = _abi.load_i64(frame + ext_at)
        return _ffi._metadata(ext) if ext != 0 else 0  # XLA refuses a handler that ignores the query

    jax.ffi.register_ffi_target("elena_jax_example_noop", jax.ffi.pycapsule(noop.address), platform="cpu",
                                api_version=1)
    _noop_ffi.keep = noop  # XLA holds the bare address

    def call(x, out):
        return jax.ffi.ffi_call("elena_jax_example_noop", jax.ShapeDtypeStruct(out.shape, out.dtype),
                                input_output_aliases={1: 0})(x, out)
    return call


def overhead(n: int = 16, calls: int = 20000, slow_calls: int = 1000) -> dict[str, tuple[float, float]]:
    """Microseconds per call: (inside one scan of ``calls`` calls -- ``slow_calls`` for
    pure_callback -- , one jitted call)."""
    njit = copy_ffi.compiled

    def host(x, out):
        out = np.array(out)
        njit(np.asarray(x), out)
        return out

    def pure(x, out):
        return jax.pure_callback(host, jax.ShapeDtypeStruct(out.shape, out.dtype), x, out)

    mechanisms = {"xla (no kernel, x.at[0].set)": lambda x, out: out.at[0].set(x[0]),
                  "ffi, no-op handler (floor)": _noop_ffi(),
                  "ffi (numba cfunc)": copy_ffi, "buffer_callback": copy_callback, "pure_callback": pure}
    x = jnp.arange(float(n))
    result = {}
    for name, op in mechanisms.items():
        length = slow_calls if name == "pure_callback" else calls
        scan = jax.jit(lambda x, out, op=op, length=length: jax.lax.scan(
            lambda c, _: (op(x + c[1], c), None), out, None, length=length)[0])
        one = jax.jit(op)
        result[name] = (_per_call(scan, x, jnp.zeros(n), repeat=3) / length * 1e6,
                        _per_call(one, x, jnp.zeros(n)) * 1e6)
    return result


def main() -> None:
    rng = np.random.default_rng(0)
    rois = rng.uniform(0, 100, (200, 4))
    rois[:, 2:] += rois[:, :2] + 10
    deltas, scores = rng.normal(scale=0.1, size=(200, 4)), rng.uniform(size=200)
    boxes, keep = detect(rois, deltas, scores, 0.2)
    print(f"kept {int(keep.sum())} of {len(keep)} boxes; first kept: {boxes[keep][0].round(1)}")
    print(f"{'mechanism':32s} {'us/call in scan':>16s} {'us/jitted call':>16s}")
    for name, (in_scan, single) in overhead().items():
        print(f"{name:32s} {in_scan:16.2f} {single:16.2f}")


if __name__ == "__main__":
    main()
