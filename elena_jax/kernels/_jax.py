"""A kernel call on JAX values: signature, differentiation rule, and choice of mechanism.

``apply(kernel, args)`` is what a call on JAX arrays (and the lowering of a
recorded kernel op) runs. It splits the arguments into array operands and
static scalars, wraps the mechanism in ``jax.custom_vjp`` (so ``jax.grad``
either uses the user's VJP or stops with an error naming the fix), and picks
the mechanism: the Numba FFI handler on CPU (``_ffi``), the buffer_callback
debug mode (``_callback.cpu``), or the Numba CUDA body on GPU
(``_callback.cuda``).

Invariant: output ``n`` is result ``n`` of the underlying call and is aliased
to the operand it came from, so its initial contents are that operand's.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from . import _callback, _ffi
from ._kernel import Kernel, is_array


def split(args) -> tuple[tuple, list]:
    """``(template, values)``: per argument ``("arr", operand index)`` or ``("static", value)``."""
    template, values = [], []
    for a in args:
        if is_array(a):
            template.append(("arr", len(values)))
            values.append(a if isinstance(a, (jax.Array, jax.core.Tracer)) else jnp.asarray(a))
        else:
            template.append(("static", a))
    return tuple(template), values


def apply(kernel: Kernel, args) -> list:
    template, values = split(args)
    if any(isinstance(v, jax.core.Tracer) for v in values):
        return apply_template(kernel, template, values)
    # An eager call: through a jitted function cached per template, mechanism and backend, as
    # re-tracing the custom_vjp and the call on every eager call would cost milliseconds.
    key = (tuple(t if t[0] == "arr" else ("static", type(t[1]).__name__, repr(t[1])) for t in template),
           kernel.effective_mode(), backend())
    if key not in kernel._eager:
        kernel._eager[key] = jax.jit(lambda *vs: apply_template(kernel, template, list(vs)))
    return list(kernel._eager[key](*values))


# NB: what Numba compiles array code for; float16 and bfloat16 (and XLA's narrow types) it does not.
SUPPORTED_DTYPES = tuple(np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                                np.uint16, np.uint32, np.uint64, np.float32, np.float64,
                                                np.complex64, np.complex128))


def apply_template(kernel: Kernel, template: tuple, values: list) -> list:
    """The outputs' new values for operands ``values`` placed into the arguments by ``template``."""
    for k, (kind, x) in enumerate(template):
        if kind == "arr" and np.dtype(values[x].dtype) not in SUPPORTED_DTYPES:
            raise TypeError(f"{kernel.__name__}: argument {k} has dtype {values[x].dtype}, which Numba kernels "
                            f"do not support; use one of {', '.join(d.name for d in SUPPORTED_DTYPES)}")
    fun = jax.custom_vjp(partial(_run, kernel, template))
    fun.defvjp(partial(_fwd, kernel, template), partial(_bwd, kernel, template))
    return list(fun(*values))


def backend() -> str:
    """The platform a call traced now runs on: JAX's default backend (see docs/kernels.md, Limits)."""
    return jax.default_backend()


def _run(kernel: Kernel, template: tuple, *values) -> tuple:
    if backend() in ("gpu", "cuda", "rocm"):
        return _callback.cuda(kernel, template, values)
    if kernel.effective_mode() == "callback":
        return _callback.cpu(kernel, template, values)
    return _ffi_call(kernel, template, values)


def result_types(kernel: Kernel, template: tuple, values) -> tuple[list, dict]:
    """The outputs' ShapeDtypeStructs and the operand -> result aliasing."""
    types, aliases = [], {}
    for n, o in enumerate(kernel.outputs):
        p = template[o][1]
        types.append(jax.ShapeDtypeStruct(values[p].shape, values[p].dtype))
        aliases[p] = n
    return types, aliases


def _ffi_call(kernel: Kernel, template: tuple, values) -> tuple:
    ret = {o: n for n, o in enumerate(kernel.outputs)}
    signature = []
    for k, (kind, x) in enumerate(template):
        if kind == "static":
            signature.append(("static", x, type(x).__name__))
        else:
            v = values[x]
            signature.append(("array", v.dtype.name, v.ndim, ret.get(k)))
    target = _ffi.handler(kernel, tuple(signature)).target
    types, aliases = result_types(kernel, template, values)
    call = jax.ffi.ffi_call(target, types, input_output_aliases=aliases, vmap_method="sequential")
    return tuple(call(*values))


def _fwd(kernel: Kernel, template: tuple, *values):
    outs = _run(kernel, template, *values)
    return outs, (values, outs)


def _bwd(kernel: Kernel, template: tuple, residuals, cotangents):
    values, outs = residuals
    if kernel._vjp is None:
        raise TypeError(
            f"cannot differentiate through the Numba kernel {kernel.__name__!r}: JAX has no derivative of "
            f"compiled Numba code. Give it a VJP: @{kernel.__name__}.defvjp def bwd(args, outputs, "
            "cotangents): ... (see docs/kernels.md), or wrap the call in jax.lax.stop_gradient")
    args = [values[x] if kind == "arr" else x for kind, x in template]
    grads = kernel._vjp(tuple(args), tuple(outs), tuple(cotangents))
    if len(grads) != len(template):
        raise ValueError(f"{kernel.__name__}: the VJP must return one cotangent per kernel argument "
                         f"({len(template)}), got {len(grads)}")
    by_operand = [None] * len(values)
    for (kind, x), g in zip(template, grads):
        if kind == "arr":
            by_operand[x] = g
    return tuple(by_operand)
