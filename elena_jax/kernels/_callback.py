"""``jax.experimental.buffer_callback`` mechanisms: the CPU debug mode and the Numba CUDA path.

CPU debug mode (``mode="callback"``): XLA calls back into Python with its
own buffers; the kernel (njit, bounds checks on unless the kernel says
otherwise) runs on zero-copy NumPy views of them -- non-outputs read-only,
so a stray write is a Numba typing error -- and an exception it raises
reaches the caller with its own message and Python traceback.

GPU: the kernel's ``.cuda`` body, compiled with ``numba.cuda.jit``, is
launched on XLA's own stream (``cuda.external_stream(ctx.stream)``) over
device arrays made from the buffers' ``__cuda_array_interface__`` without
copies or synchronisation; XLA orders the launch with the rest of the
program through that stream.

Invariant: outputs are the result buffers, aliased to their operands
(``input_output_aliases``), so they start with the operands' values.
"""

from __future__ import annotations

import numpy as np
from jax.experimental.buffer_callback import buffer_callback

from ._kernel import Kernel


def _types(kernel: Kernel, template: tuple, values):
    from ._jax import result_types

    return result_types(kernel, template, values)


def cpu(kernel: Kernel, template: tuple, values) -> tuple:
    """The debug mode: the njit kernel called from Python on NumPy views of XLA's buffers."""
    njit = kernel.njit(True if kernel.boundscheck is None else kernel.boundscheck)
    outputs = kernel.outputs

    def callback(ctx, outs, *ins):
        call = []
        for kind, x in template:
            if kind == "static":
                call.append(x)
                continue
            view = np.asarray(ins[x])
            view.flags.writeable = False
            call.append(view[()] if view.ndim == 0 else view)
        for n, o in enumerate(outputs):
            call[o] = np.asarray(outs[n])  # aliased to the operand: holds its values
        njit(*call)

    types, aliases = _types(kernel, template, values)
    run = buffer_callback(callback, types, input_output_aliases=aliases, vmap_method="sequential")
    return tuple(run(*values))


def numba_cuda():
    """The ``numba.cuda`` module (from the optional numba-cuda package), or a clear ImportError."""
    try:
        from numba import cuda
    except ImportError as e:  # pragma: no cover - depends on the optional numba-cuda package
        raise ImportError("GPU kernels need the numba-cuda package: pip install numba-cuda") from e
    return cuda


def device_array(cuda_module, buf):
    """A Numba device array over an XLA buffer: no copy, and no synchronisation (XLA's stream orders it)."""
    return cuda_module.from_cuda_array_interface(buf.__cuda_array_interface__, owner=buf, sync=False)


def xla_stream(cuda_module, ctx):
    """XLA's compute stream for this call, as a Numba stream (Numba does not own or sync it)."""
    return cuda_module.external_stream(ctx.stream)


def _cuda_body(kernel: Kernel):
    if kernel._cuda is None:
        raise NotImplementedError(
            f"kernel {kernel.__name__!r} has no GPU body: add one with @{kernel.__name__}.cuda(grid=...) "
            "(a numba.cuda kernel with the same parameters), or run on the CPU backend")
    module = numba_cuda()
    body, grid = kernel._cuda
    if kernel._cuda_compiled is None:
        kernel._cuda_compiled = module.jit(body)
    return module, kernel._cuda_compiled, grid


def cuda(kernel: Kernel, template: tuple, values) -> tuple:
    """The GPU path: the ``.cuda`` body launched on XLA's stream over XLA's device buffers."""
    module, compiled, grid = _cuda_body(kernel)
    outputs = kernel.outputs

    def device(buf):
        return device_array(module, buf)

    def callback(ctx, outs, *ins):
        stream = xla_stream(module, ctx)
        call = []
        for kind, x in template:
            if kind == "static":
                call.append(x)
                continue
            arr = device(ins[x])
            if arr.ndim == 0:
                # NB: 0-d operands are scalars in every mode; reading one waits for the stream.
                call.append(arr.copy_to_host(stream=stream)[()])
                stream.synchronize()
            else:
                call.append(arr)
        for n, o in enumerate(outputs):
            call[o] = device(outs[n])
        blocks, threads = grid(*call) if callable(grid) else grid
        compiled[blocks, threads, stream](*call)

    types, aliases = _types(kernel, template, values)
    run = buffer_callback(callback, types, input_output_aliases=aliases, vmap_method="sequential")
    return tuple(run(*values))
