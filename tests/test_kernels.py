"""Numba kernels inside functionalized code and inside JAX (elena_jax/kernels)."""

import ctypes
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import jaxlib
import numpy as np
import pytest

import elena_jax
from elena_jax.kernels import _abi, _ffi, kernel
from elena_jax.testing import check_against_numpy

# --- the kernels used below -------------------------------------------------------------------


@kernel(outputs=("keep",))
def greedy_nms(boxes, scores, iou_thr, keep):
    """Sequential, data-dependent suppression: what XLA cannot express well."""
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


@kernel(outputs=(1,))
def double_even_positions(x, out):
    """Writes only the even positions of ``out``: the odd ones keep their values."""
    for i in range(0, x.shape[0], 2):
        out[i] = 2 * x[i]


@kernel(outputs=("out",))
def failing(x, out):
    if x[0] < 0:
        raise ValueError("negative input")
    out[0] = x[0]


@kernel(outputs=("out",), mode="callback")
def failing_debug(x, out):
    if x[0] < 0:
        raise ValueError("negative input")
    out[0] = x[0]


@kernel(outputs=("out",), mode="callback")
def writes_past_the_end(x, out):
    out[x.shape[0]] = 1.0


def nms_reference(boxes, scores, iou_thr):
    """Greedy NMS in vectorized NumPy, written independently of the kernel."""
    x1, y1, x2, y2 = boxes.T
    areas = (x2 - x1) * (y2 - y1)
    keep = np.ones(len(boxes), dtype=bool)
    for i in np.argsort(-scores, kind="stable"):
        if not keep[i]:
            continue
        later = np.argsort(-scores, kind="stable")
        later = later[np.nonzero(later == i)[0][0] + 1:]
        w = np.clip(np.minimum(x2[i], x2[later]) - np.maximum(x1[i], x1[later]), 0, None)
        h = np.clip(np.minimum(y2[i], y2[later]) - np.maximum(y1[i], y1[later]), 0, None)
        inter = w * h
        keep[later[inter / (areas[i] + areas[later] - inter) > iou_thr]] = False
    return keep


def postprocess(rois, deltas, scores):
    """Boxes decoded by NumPy code (XLA), suppressed by the kernel, in one program."""
    w = rois[:, 2] - rois[:, 0]
    h = rois[:, 3] - rois[:, 1]
    boxes = rois.copy()
    boxes[:, 0::2] += deltas[:, 0::2] * w[:, None]
    boxes[:, 1::2] += deltas[:, 1::2] * h[:, None]
    keep = np.ones(rois.shape[0], dtype=bool)
    greedy_nms(boxes, scores, 0.5, keep)
    return boxes, keep


def detections(n=40, seed=0):
    rng = np.random.default_rng(seed)
    rois = rng.uniform(0, 100, (n, 4))
    rois[:, 2:] += rois[:, :2] + 5
    return rois, rng.normal(scale=0.1, size=(n, 4)), rng.permutation(n) / n  # distinct scores


# --- functionalized code -----------------------------------------------------------------------


def test_nms_kernel_in_functionalized_postprocessing_matches_numpy():
    rois, deltas, scores = detections()
    boxes, keep = elena_jax.functionalize(postprocess)(rois, deltas, scores)
    want_boxes = rois.copy()
    want_boxes[:, 0::2] += deltas[:, 0::2] * (rois[:, 2] - rois[:, 0])[:, None]
    want_boxes[:, 1::2] += deltas[:, 1::2] * (rois[:, 3] - rois[:, 1])[:, None]
    np.testing.assert_allclose(boxes, want_boxes, rtol=1e-12)
    np.testing.assert_array_equal(keep, nms_reference(want_boxes, scores, 0.5))
    assert 0 < keep.sum() < len(keep)
    # Eagerly the kernel runs under Numba on the NumPy arrays, in place: the same code is its own oracle.
    check_against_numpy(postprocess, rois, deltas, scores, optimize=(True,))


def test_functionalized_kernel_call_under_vmap_of_the_pure_form():
    pure = elena_jax.pure(postprocess)  # (results, updated arguments), a plain JAX function
    batch = [detections(seed=s) for s in range(3)]
    with jax.enable_x64(True):
        (boxes, keep), _ = jax.vmap(pure)(*[jnp.asarray(np.stack(p)) for p in zip(*batch)])
    assert keep.shape == (3, 40)
    for b, (rois, deltas, scores) in enumerate(batch):
        np.testing.assert_array_equal(keep[b], postprocess(rois, deltas, scores)[1])


def test_partial_writes_keep_previous_contents_and_write_back():
    def f(x, out):
        double_even_positions(x, out)
        return out.sum()

    out = np.full(5, -1.0)
    total = elena_jax.functionalize(f)(np.arange(5.0), out)
    np.testing.assert_array_equal(out, [0.0, -1.0, 4.0, -1.0, 8.0])  # the caller's array, odd entries kept
    assert float(total) == 10.0


def test_kernel_writing_into_a_view_inside_functionalized_code():
    def f(x):
        out = np.full((2, 6), 7.0)
        double_even_positions(x, out[1])  # a row view: the write goes back into ``out``
        return out

    check_against_numpy(f, np.arange(6.0), optimize=(True,))


def test_zero_d_threshold_is_a_scalar_in_the_kernel():
    rois, deltas, scores = detections(n=12)
    keep = greedy_nms(jnp.asarray(rois), jnp.asarray(scores), jnp.float32(0.3), jnp.ones(12, bool))
    np.testing.assert_array_equal(keep, nms_reference(rois.astype(np.float32), scores.astype(np.float32), 0.3))


# --- the kernel on NumPy and JAX arrays --------------------------------------------------------


def test_kernel_on_numpy_arrays_writes_in_place():
    out = np.zeros(4)
    assert double_even_positions(np.arange(4.0), out) is out
    np.testing.assert_array_equal(out, [0.0, 0.0, 4.0, 0.0])


def test_kernel_on_jax_arrays_inside_jit_vmap_and_scan():
    x = jnp.arange(6.0)
    np.testing.assert_array_equal(double_even_positions(x, jnp.zeros(6)), [0, 0, 4, 0, 8, 0])
    jitted = jax.jit(lambda a: double_even_positions(a, jnp.ones_like(a)))(x)
    np.testing.assert_array_equal(jitted, [0, 1, 4, 1, 8, 1])
    batch = jnp.stack([x, x + 1])
    mapped = jax.vmap(lambda a: double_even_positions(a, jnp.zeros_like(a)))(batch)
    np.testing.assert_array_equal(mapped[1], [2, 0, 6, 0, 10, 0])

    def body(carry, _):
        return double_even_positions(carry, carry), None

    scanned, _ = jax.lax.scan(body, x, None, length=3)
    np.testing.assert_array_equal(scanned, [0, 1, 16, 3, 32, 5])
    looped = jax.lax.while_loop(lambda a: a[0] < 10, lambda a: double_even_positions(a + 1, a), x)
    np.testing.assert_array_equal(looped, [14, 1, 30, 3, 46, 5])


def test_donated_output_is_updated_in_place():
    step = jax.jit(lambda x, out: double_even_positions(x, out), donate_argnums=1)
    out = jnp.full(6, -1.0)
    pointer = out.unsafe_buffer_pointer()
    new = step(jnp.arange(6.0), out)
    np.testing.assert_array_equal(new, [0, -1, 4, -1, 8, -1])
    assert out.is_deleted() and new.unsafe_buffer_pointer() == pointer  # no copy, XLA reused the buffer


def test_one_compiled_handler_per_dtype_signature():
    before = len(_ffi._HANDLERS)
    for _ in range(3):
        double_even_positions(jnp.arange(4.0), jnp.zeros(4))
    double_even_positions(jnp.arange(4, dtype=jnp.int32), jnp.zeros(4, jnp.int32))
    double_even_positions(jnp.arange(4.0), jnp.zeros(4))
    assert len(_ffi._HANDLERS) - before <= 2


def test_debug_mode_gives_the_same_result():
    debug = kernel(double_even_positions.fn, outputs=(1,), mode="callback")
    x = jnp.arange(5.0)
    np.testing.assert_array_equal(debug(x, jnp.ones(5)), double_even_positions(x, jnp.ones(5)))


# --- sharding ------------------------------------------------------------------------------------


def _plus_local_row(x, k, out):
    """out = k * x + each row's index *within the block the call was given*: shows which rows one call saw."""
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = k * x[i, j] + i


plus_local_row = kernel(outputs=("out",))(_plus_local_row)
plus_local_row_debug = kernel(outputs=("out",), mode="callback")(_plus_local_row)


def plus_local_row_then_sum(x, out):
    plus_local_row(x, 2.0, out)
    return out.sum(axis=1)


def check_kernel_runs_per_shard(n_devices: int) -> None:
    """Under jax.shard_map a kernel call runs once per shard, on that shard's rows only."""
    devices = jax.devices()[:n_devices]
    assert len(devices) == n_devices, f"{n_devices} devices wanted, {len(jax.devices())} exist"
    mesh = jax.sharding.Mesh(np.array(devices), ("rows",))
    rows = jax.sharding.PartitionSpec("rows")
    n, per = 3 * n_devices, 3
    x = np.arange(n * 4.0).reshape(n, 4)
    sharded = jax.device_put(x, jax.sharding.NamedSharding(mesh, rows))
    local = (np.arange(n) % per)[:, None]  # a row's index within its shard
    for k in (plus_local_row, plus_local_row_debug):
        per_shard = jax.jit(jax.shard_map(lambda a, k=k: k(a, 2.0, jnp.zeros_like(a)), mesh=mesh,
                                          in_specs=rows, out_specs=rows))
        got = per_shard(sharded)
        np.testing.assert_array_equal(got, 2.0 * x + local, err_msg=k.__name__)
        assert {s.device for s in got.addressable_shards} == set(devices)
        # vmap inside shard_map: one sequential call per row of each shard
        rowwise = jax.jit(jax.shard_map(jax.vmap(lambda r, k=k: k(r[None], 2.0, jnp.zeros_like(r[None]))[0]),
                                        mesh=mesh, in_specs=rows, out_specs=rows))
        np.testing.assert_array_equal(rowwise(sharded), 2.0 * x, err_msg=k.__name__)
        # without shard_map, XLA cannot split an opaque call: the kernel sees the whole array
        whole = jax.jit(lambda a, k=k: k(a, 2.0, jnp.zeros_like(a)))(sharded)
        np.testing.assert_array_equal(whole, 2.0 * x + np.arange(n)[:, None], err_msg=k.__name__)
    # functionalized NumPy code calling the kernel, in its pure form, per shard
    pure = elena_jax.pure(plus_local_row_then_sum)
    with jax.enable_x64(True):
        total, (_, out) = jax.jit(jax.shard_map(lambda a: pure(a, jnp.zeros_like(a)), mesh=mesh,
                                                in_specs=rows, out_specs=rows))(sharded)
    np.testing.assert_array_equal(out, 2.0 * x + local)
    np.testing.assert_array_equal(total, (2.0 * x + local).sum(axis=1))


def test_kernel_runs_per_shard_under_shard_map():
    check_kernel_runs_per_shard(len(jax.devices()))  # one CPU device by default: a 1-device mesh


def test_kernel_runs_per_shard_on_two_devices():
    # NB: the device count is fixed when JAX starts, and other tests expect the default: a subprocess
    script = ("import sys; sys.path.insert(0, 'tests'); import test_kernels; "
              "test_kernels.check_kernel_runs_per_shard(2); print('per shard on 2 devices')")
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2", "JAX_PLATFORMS": "cpu"}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         cwd=Path(__file__).parents[1], env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip().endswith("per shard on 2 devices")


# --- errors --------------------------------------------------------------------------------------


def test_an_error_inside_an_ffi_kernel_is_an_xla_error_and_the_process_stays_usable():
    with pytest.raises(Exception, match="kernel 'failing' raised an exception.*mode='callback'"):
        jax.block_until_ready(failing(jnp.array([-1.0]), jnp.zeros(1)))
    np.testing.assert_array_equal(failing(jnp.array([3.0]), jnp.zeros(1)), [3.0])


def test_debug_mode_reports_the_kernels_own_message():
    with pytest.raises(Exception, match="negative input"):
        jax.block_until_ready(failing_debug(jnp.array([-1.0]), jnp.zeros(1)))
    np.testing.assert_array_equal(failing_debug(jnp.array([3.0]), jnp.zeros(1)), [3.0])


def test_debug_mode_checks_bounds():
    with pytest.raises(Exception, match="(?i)index.*out of bounds"):
        jax.block_until_ready(writes_past_the_end(jnp.zeros(3), jnp.zeros(3)))


def test_grad_through_a_kernel_without_vjp_is_a_clear_error():
    with pytest.raises(TypeError, match="differentiate through the Numba kernel 'double_even_positions'.*defvjp"):
        jax.grad(lambda a: double_even_positions(a, jnp.zeros_like(a)).sum())(jnp.arange(4.0))


def test_grad_through_a_user_vjp():
    @kernel(outputs=("out",))
    def scale(x, factor, out):
        for i in range(x.shape[0]):
            out[i] = factor * x[i]

    @scale.defvjp
    def scale_vjp(args, outputs, cotangents):
        x, factor, out = args
        return cotangents[0] * factor, None, None

    g = jax.grad(lambda x: scale(x, 3.0, jnp.zeros_like(x)).sum())(jnp.arange(4.0))
    np.testing.assert_array_equal(g, [3.0, 3.0, 3.0, 3.0])
    same = kernel(scale.fn, outputs=("out",), vjp=scale_vjp)  # the VJP given to the decorator
    np.testing.assert_array_equal(jax.grad(lambda x: same(x, 3.0, jnp.zeros_like(x)).sum())(jnp.ones(2)), [3, 3])


def test_bad_arguments_are_refused_when_called():
    with pytest.raises(TypeError, match="output argument 1 must be an array"):
        failing(jnp.ones(1), 0.0)
    with pytest.raises(TypeError, match="argument 0 must be an array or a Python/NumPy scalar"):
        failing("x", jnp.ones(1))
    with pytest.raises(ValueError, match="not all parameters"):
        kernel(lambda x: None, outputs=("y",))
    with pytest.raises(TypeError, match="argument 0 has dtype bfloat16, which Numba kernels do not support"):
        failing(jnp.ones(1, jnp.bfloat16), jnp.ones(1))


def test_two_outputs_come_back_as_a_tuple_and_inputs_are_untouched():
    @kernel(outputs=("lo", "hi"))
    def split_at(x, pivot, lo, hi):
        for i in range(x.shape[0]):
            if x[i] < pivot:
                lo[i] = x[i]
            else:
                hi[i] = x[i]

    x = jnp.arange(5.0)
    lo, hi = jax.jit(lambda a: split_at(a, 2.0, jnp.zeros_like(a), jnp.full_like(a, -1.0)))(x)
    np.testing.assert_array_equal(lo, [0, 1, 0, 0, 0])
    np.testing.assert_array_equal(hi, [-1, -1, 2, 3, 4])
    np.testing.assert_array_equal(x, np.arange(5.0))
    assert split_at.output_indices == (2, 3)


def test_ffi_mode_with_boundscheck_turns_an_index_error_into_an_xla_error():
    checked = kernel(writes_past_the_end.fn, outputs=("out",), mode="ffi", boundscheck=True)
    with pytest.raises(Exception, match="kernel 'writes_past_the_end' raised an exception"):
        jax.block_until_ready(checked(jnp.zeros(3), jnp.zeros(3)))
    np.testing.assert_array_equal(double_even_positions(jnp.ones(2), jnp.zeros(2)), [2, 0])  # still usable


def test_global_debug_switch_reports_the_kernels_own_message():
    with elena_jax.kernels.debug(), pytest.raises(Exception, match="negative input"):
        jax.block_until_ready(failing(jnp.array([-1.0]), jnp.zeros(1)))


def test_static_scalars_are_compiled_once_per_value_even_nan():
    @kernel(outputs=("out",))
    def fill(value, out):
        for i in range(out.shape[0]):
            out[i] = value

    before = len(_ffi._HANDLERS)
    for _ in range(2):
        assert np.isnan(fill(float("nan"), jnp.zeros(2))).all()
    np.testing.assert_array_equal(fill(1, jnp.zeros(2)), [1, 1])
    np.testing.assert_array_equal(fill(1.5, jnp.zeros(2)), [1.5, 1.5])
    assert len(_ffi._HANDLERS) - before == 3


def test_tracer_arguments_go_to_the_cores_hook(monkeypatch):
    import elena_jax.tracer

    class FakeTracer:
        __elena_tracer__ = True
        ndim = 1

    seen = []
    monkeypatch.setattr(elena_jax.tracer, "call_kernel", lambda k, args: seen.append((k, args)) or "recorded",
                        raising=False)
    x, out = FakeTracer(), FakeTracer()
    assert double_even_positions(x, out) == "recorded"
    assert seen == [(double_even_positions, (x, out))]


def test_a_cuda_style_kernel_has_no_cpu_body():
    @kernel(outputs=("out",), grid=lambda x, out: (1, 32))
    def gpu_only(x, out):
        out[0] = x[0]

    with pytest.raises(NotImplementedError, match="'gpu_only' is a Numba CUDA kernel.*no CPU body"):
        gpu_only(jnp.ones(1), jnp.zeros(1))


CUDA_PLUMBING = """
import os
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba.cuda is imported: its simulator runs on the CPU
import jax, jax.numpy as jnp, numpy as np
from numba import cuda
from elena_jax.kernels import _callback, _jax, kernel

# What the simulator lacks -- XLA's stream and device buffers -- stood in by host ones.
class NumbaStandIn:
    jit = staticmethod(cuda.jit)
_callback.numba_cuda = lambda: NumbaStandIn
_callback.device_array = lambda module, buf: np.asarray(buf)
_callback.xla_stream = lambda module, ctx: cuda.stream()
_jax.backend = lambda: "gpu"

@kernel(outputs=(1,))
def double_even(x, out):
    raise NotImplementedError  # the CPU body: not used on the GPU

@double_even.cuda(grid=lambda x, out: ((x.shape[0] + 31) // 32, 32))
def double_even_gpu(x, out):
    i = cuda.grid(1)
    if i < x.shape[0] and i % 2 == 0:
        out[i] = 2 * x[i]

@kernel(outputs=("out",), grid=(2, 4))
def scaled(x, scale, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = scale * x[i]

x = jnp.arange(6.0)
print(jax.jit(lambda a: double_even(a, jnp.full_like(a, -1.0)))(x).tolist())
print(scaled(x, 3.0, jnp.zeros(6)).tolist())
print(jax.vmap(lambda a: double_even(a, jnp.zeros_like(a)))(jnp.stack([x, x + 1])).tolist())
"""


def test_gpu_path_plumbing_under_numbas_cuda_simulator():
    """The GPU mechanism's argument handling, grids and aliasing, without a GPU (real GPUs: test_kernels_gpu.py)."""
    run = subprocess.run([sys.executable, "-c", CUDA_PLUMBING], capture_output=True, text=True, timeout=300,
                         cwd=Path(__file__).parents[1])
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split("\n")[:3] == [
        "[0.0, -1.0, 4.0, -1.0, 8.0, -1.0]",  # partial writes keep the aliased operand's values
        "[0.0, 3.0, 6.0, 9.0, 12.0, 15.0]",  # a CUDA-style kernel made with grid=, a static scalar
        "[[0.0, 0.0, 4.0, 0.0, 8.0, 0.0], [2.0, 0.0, 6.0, 0.0, 10.0, 0.0]]",  # sequential vmap
    ]


# --- the FFI ABI ----------------------------------------------------------------------------------

HEADER = Path(jaxlib.__file__).parent / "include/xla/ffi/api/c_api.h"
C_STRUCT = {"frame": "XLA_FFI_CallFrame", "ext": "XLA_FFI_Extension_Base", "mdext": "XLA_FFI_Metadata_Extension",
            "md": "XLA_FFI_Metadata", "buffer": "XLA_FFI_Buffer", "api": "XLA_FFI_Api",
            "error": "XLA_FFI_Error_Create_Args"}
C_MEMBER = {"api.error_create": "XLA_FFI_Error_Create"}


def header_fields(text, name):
    body = re.search(rf"struct {name} \{{(.*?)\}}\s*\w*;", text, re.S).group(1)
    body = re.sub(r"//[^\n]*", "", body)
    body = re.sub(r"_XLA_FFI_API_STRUCT_FIELD\((\w+)\)", r"\1 \1", body)
    return [re.findall(r"(\w+)(?:\[\w*\])?\s*$", decl.strip())[0] for decl in body.split(";") if decl.strip()]


def test_ffi_struct_mirror_matches_the_jaxlib_header_text():
    text = HEADER.read_text()
    assert re.search(rf"#define XLA_FFI_API_MAJOR {_abi.API_MAJOR}\b", text)
    assert re.search(rf"#define XLA_FFI_API_MINOR {_abi.API_MINOR}\b", text)
    assert re.search(f"XLA_FFI_Extension_Metadata = {_abi.EXTENSION_METADATA},", text)
    assert re.search(f"XLA_FFI_ExecutionStage_EXECUTE = {_abi.STAGE_EXECUTE},", text)
    for dtype, code in _abi.FFI_DTYPES.items():
        name = {"b": "PRED", "i": "S", "u": "U", "f": "F", "c": "C"}[dtype.kind]
        name += "" if dtype.kind == "b" else str(dtype.itemsize * 8)
        assert re.search(f"XLA_FFI_DataType_{name} = {code},", text), dtype
    for struct in _abi.MIRRORED:
        c_name = "XLA_FFI_" + {"ExtensionBase": "Extension_Base", "ErrorCreateArgs": "Error_Create_Args",
                               "MetadataExtension": "Metadata_Extension", "ApiVersion": "Api_Version"}.get(
                                   struct.__name__, struct.__name__)
        mirrored = [f for f, _ in struct._fields_]
        # The Api mirror stops at the one function pointer it uses: a prefix of the header's fields.
        assert header_fields(text, c_name)[:len(mirrored)] == mirrored, c_name


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_ffi_offsets_match_the_c_compiler(tmp_path):
    lines = ["#include <stdio.h>", "#include <stddef.h>", f'#include "{HEADER}"', "int main(void) {"]
    for key in _abi.OFFSETS:
        prefix, member = key.split(".", 1)
        member = C_MEMBER.get(key, member)
        lines.append(f'  printf("%zu\\n", offsetof({C_STRUCT[prefix]}, {member}));')
    for name in _abi.SIZES:
        c = {"ApiVersion": "XLA_FFI_Api_Version", "ErrorCreateArgs": "XLA_FFI_Error_Create_Args",
             "Metadata": "XLA_FFI_Metadata", "MetadataExtension": "XLA_FFI_Metadata_Extension"}[name]
        lines.append(f'  printf("%d\\n", (int){c}_STRUCT_SIZE);')
    (tmp_path / "pin.c").write_text("\n".join(lines + ["  return 0;", "}"]))
    subprocess.run(["cc", "-o", str(tmp_path / "pin"), str(tmp_path / "pin.c")], check=True)
    got = [int(v) for v in subprocess.run([str(tmp_path / "pin")], capture_output=True, check=True,
                                          text=True).stdout.split()]
    assert got == list(_abi.OFFSETS.values()) + list(_abi.SIZES.values())


def test_handler_answers_the_metadata_query_and_ignores_other_stages():
    h = _ffi.handler(double_even_positions, (("array", "float64", 1, None), ("array", "float64", 1, 0)))
    call = h.cfunc.ctypes
    metadata = _abi.Metadata(struct_size=_abi.SIZES["Metadata"])
    ext = _abi.MetadataExtension(
        _abi.ExtensionBase(_abi.SIZES["MetadataExtension"], _abi.EXTENSION_METADATA, None),
        ctypes.pointer(metadata))
    frame = _abi.CallFrame(struct_size=ctypes.sizeof(_abi.CallFrame), extension_start=ctypes.addressof(ext))
    assert call(ctypes.addressof(frame)) == 0  # success: no XLA_FFI_Error
    version = metadata.api_version
    assert (version.struct_size, version.major_version, version.minor_version) == (
        _abi.SIZES["ApiVersion"], _abi.API_MAJOR, _abi.API_MINOR)
    assert metadata.traits == 0 and metadata.state_type_id == 0
    # INSTANTIATE stage, no buffers at all: the handler must succeed without touching them.
    frame = _abi.CallFrame(struct_size=ctypes.sizeof(_abi.CallFrame), stage=0)
    assert call(ctypes.addressof(frame)) == 0


def test_handler_round_trip_on_hand_built_call_frames():
    """EXECUTE on buffers laid out by the ctypes mirror; errors through a stand-in XLA_FFI_Error_Create."""
    h = _ffi.handler(failing, (("array", "float64", 1, None), ("array", "float64", 1, 0)))
    x, out = np.array([3.0]), np.zeros(1)
    dims = (ctypes.c_int64 * 1)(1)

    def buffer(a):
        return _abi.Buffer(struct_size=ctypes.sizeof(_abi.Buffer), dtype=_abi.FFI_DTYPES[a.dtype],
                           data=a.ctypes.data, rank=1, dims=dims)

    bx, bout = buffer(x), buffer(out)
    args = (ctypes.c_void_p * 2)(ctypes.addressof(bx), ctypes.addressof(bout))
    rets = (ctypes.c_void_p * 1)(ctypes.addressof(bout))  # the result aliases the operand, as XLA does
    created = []

    @ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
    def error_create(address):
        a = _abi.ErrorCreateArgs.from_address(address)
        created.append((a.struct_size, a.message.decode(), a.errc))
        return 0xE0

    api = _abi.Api(struct_size=ctypes.sizeof(_abi.Api),
                   XLA_FFI_Error_Create=ctypes.cast(error_create, ctypes.c_void_p).value)
    frame = _abi.CallFrame(struct_size=ctypes.sizeof(_abi.CallFrame), api=ctypes.addressof(api),
                           stage=_abi.STAGE_EXECUTE, args=_abi.Args(size=2, args=ctypes.addressof(args)),
                           rets=_abi.Rets(size=1, rets=ctypes.addressof(rets)))
    call = h.cfunc.ctypes
    assert call(ctypes.addressof(frame)) == 0 and out[0] == 3.0 and not created
    x[0] = -1.0  # the kernel raises: the handler returns the error XLA_FFI_Error_Create made
    assert call(ctypes.addressof(frame)) == 0xE0
    assert created[-1][0] == _abi.SIZES["ErrorCreateArgs"] and created[-1][2] == _abi.ERROR_INTERNAL
    assert "kernel 'failing' raised an exception" in created[-1][1]
    bx.dtype = _abi.FFI_DTYPES[np.dtype(np.float32)]  # a buffer of another dtype is refused, not misread
    assert call(ctypes.addressof(frame)) == 0xE0
    assert created[-1][2] == _abi.ERROR_INVALID_ARGUMENT and "dtype does not match" in created[-1][1]
