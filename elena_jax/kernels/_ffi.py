"""The CPU path: a typed XLA FFI handler compiled by Numba, one per kernel signature.

For a kernel and one *signature* (each argument's dtype and rank, or the value
of a static Python scalar) this module generates a small Python function, has
Numba compile it as a ``cfunc`` with the FFI C ABI
(``XLA_FFI_Error* handler(XLA_FFI_CallFrame*)``), registers it as an XLA FFI
target on the CPU, and returns the target's name for ``jax.ffi.ffi_call``.
At run time nothing but machine code runs: the handler

1. answers the *metadata* query (``extension_start`` of type
   ``XLA_FFI_Extension_Metadata``: XLA asks which FFI API version the handler
   was built against; it must fill in the version and traits and succeed),
2. does nothing in any stage other than EXECUTE,
3. checks the number of buffers and each buffer's dtype code, then wraps each
   buffer in an array with ``numba.carray`` (no copy) and calls the njit
   kernel on them -- outputs are the *result* buffers, which XLA aliases to
   the corresponding operands, so they start with the operands' values,
4. turns any exception raised by the kernel (including ``IndexError`` when
   compiled with ``boundscheck``) into an ``XLA_FFI_Error`` created through
   the call frame's API table; XLA then raises it in Python and the process
   stays usable.

Invariant: a registered target's name is never reused for another signature,
and every compiled handler (and the message buffers its machine code points
at) stays referenced from :data:`_HANDLERS` for the life of the process.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import jax
import numba
import numpy as np

from . import _abi
from ._abi import OFFSETS, SIZES

_HANDLERS: dict[tuple, Handler] = {}
_counter = itertools.count()


@dataclass(frozen=True)
class Handler:
    """One registered FFI target (field comments say what keeps what alive)."""

    target: str  # the name given to jax.ffi.register_ffi_target
    cfunc: object  # the numba cfunc whose address XLA calls; must stay alive
    messages: tuple  # NUL-terminated byte buffers the machine code points at
    source: str  # the generated handler's Python source, for debugging


def _message(text: str) -> np.ndarray:
    return np.frombuffer(text.encode() + b"\0", dtype=np.uint8).copy()


# Numba reads module globals as compile-time constants; dicts it cannot, hence one name each.
_MDEXT_METADATA = OFFSETS["mdext.metadata"]
_MD_VERSION_SIZE = OFFSETS["md.api_version.struct_size"]
_MD_VERSION_EXT = OFFSETS["md.api_version.extension_start"]
_MD_MAJOR = OFFSETS["md.api_version.major_version"]
_MD_MINOR = OFFSETS["md.api_version.minor_version"]
_MD_TRAITS = OFFSETS["md.traits"]
_MD_STATE = OFFSETS["md.state_type_id"]
_API_VERSION_SIZE = SIZES["ApiVersion"]
_FRAME_API = OFFSETS["frame.api"]
_API_ERROR_CREATE = OFFSETS["api.error_create"]
_ERR_SIZE_AT = OFFSETS["error.struct_size"]
_ERR_MESSAGE_AT = OFFSETS["error.message"]
_ERR_CODE_AT = OFFSETS["error.errc"]
_ERR_SIZE = SIZES["ErrorCreateArgs"]
_MAJOR, _MINOR = _abi.API_MAJOR, _abi.API_MINOR


@numba.njit
def _metadata(ext):
    """Answer XLA's metadata query: the FFI API version this handler speaks, no traits, no state."""
    md = _abi.load_i64(ext + _MDEXT_METADATA)
    _abi.store_i64(md + _MD_VERSION_SIZE, _API_VERSION_SIZE)
    _abi.store_i64(md + _MD_VERSION_EXT, 0)
    _abi.store_i32(md + _MD_MAJOR, np.int32(_MAJOR))
    _abi.store_i32(md + _MD_MINOR, np.int32(_MINOR))
    _abi.store_i32(md + _MD_TRAITS, np.int32(0))
    _abi.store_i64(md + _MD_STATE, 0)
    return 0


@numba.njit
def _error(frame, message, code):
    """A new XLA_FFI_Error made by XLA's own ``XLA_FFI_Error_Create`` (XLA owns and frees it)."""
    create = _abi.load_i64(_abi.load_i64(frame + _FRAME_API) + _API_ERROR_CREATE)
    args = np.zeros(4, np.int64)  # XLA_FFI_Error_Create_Args; XLA copies the message
    p = args.ctypes.data
    _abi.store_i64(p + _ERR_SIZE_AT, _ERR_SIZE)
    _abi.store_i64(p + _ERR_MESSAGE_AT, message)
    _abi.store_i32(p + _ERR_CODE_AT, np.int32(code))
    return _abi.call_ptr(create, p)


def _array_source(name: str, table: str, index: int, ndim: int, dtype_name: str) -> list[str]:
    lines = [
        f"    b = load_i64({table} + {8 * index})",
        f"    if load_i32(b + {OFFSETS['buffer.dtype']}) != {_abi.FFI_DTYPES[np.dtype(dtype_name)]}:",
        "        return error(frame, BAD_DTYPE, 3)",
        f"    d = load_i64(b + {OFFSETS['buffer.dims']})",
    ]
    shape = ", ".join(f"load_i64(d + {8 * k})" for k in range(ndim))
    ptr = f"as_voidptr(load_i64(b + {OFFSETS['buffer.data']}))"
    if ndim == 0:  # 0-d operands arrive as scalars
        lines.append(f"    {name} = carray({ptr}, (1,), np.{dtype_name})[0]")
    else:
        lines.append(f"    {name} = carray({ptr}, ({shape},), np.{dtype_name})")
    return lines


def handler(kernel, signature: tuple) -> Handler:
    """The registered FFI target for ``kernel`` called with ``signature`` (compiled once).

    ``signature`` has one entry per kernel argument: ``("array", dtype_name,
    ndim, ret)`` (``ret`` the result index for an output, else None) or
    ``("static", value)`` for a Python scalar baked into the handler.
    """
    # Static values keyed by type and repr: NaN != NaN would miss the cache on every call, 1 == 1.0 == True.
    key = (kernel.key, tuple(s if s[0] == "array" else ("static", type(s[1]).__name__, repr(s[1]))
                             for s in signature))
    if key in _HANDLERS:
        return _HANDLERS[key]
    name = f"elena_jax_{kernel.__name__}_{next(_counter)}"
    failed = _message(f"elena_jax kernel {kernel.__name__!r} raised an exception (its message is only "
                      f"available in debug mode: @kernel(..., mode='callback'))")
    bad_dtype = _message(f"elena_jax kernel {kernel.__name__!r}: buffer dtype does not match the signature")
    bad_count = _message(f"elena_jax kernel {kernel.__name__!r}: wrong number of buffers")
    env = {
        "np": np, "carray": numba.carray, "load_i64": _abi.load_i64, "load_i32": _abi.load_i32,
        "as_voidptr": _abi.as_voidptr, "error": _error, "metadata": _metadata, "KERNEL": kernel.compiled,
        "FAILED": failed.ctypes.data, "BAD_DTYPE": bad_dtype.ctypes.data, "BAD_COUNT": bad_count.ctypes.data,
    }
    n_args = sum(1 for s in signature if s[0] == "array")
    n_rets = sum(1 for s in signature if s[0] == "array" and s[3] is not None)
    lines = [
        "def handler(frame):",
        f"    ext = load_i64(frame + {OFFSETS['frame.extension_start']})",
        f"    if ext != 0 and load_i32(ext + {OFFSETS['ext.type']}) == {_abi.EXTENSION_METADATA}:",
        "        return metadata(ext)",
        f"    if load_i32(frame + {OFFSETS['frame.stage']}) != {_abi.STAGE_EXECUTE}:",
        "        return 0",
        f"    if load_i64(frame + {OFFSETS['frame.args.size']}) != {n_args} "
        f"or load_i64(frame + {OFFSETS['frame.rets.size']}) != {n_rets}:",
        "        return error(frame, BAD_COUNT, 3)",
        f"    args = load_i64(frame + {OFFSETS['frame.args.args']})",
        f"    rets = load_i64(frame + {OFFSETS['frame.rets.rets']})",
    ]
    call, operand = [], 0
    for k, s in enumerate(signature):
        if s[0] == "static":
            env[f"S{k}"] = s[1]
            call.append(f"S{k}")
            continue
        _, dtype_name, ndim, ret = s
        if ret is None:
            lines += _array_source(f"x{k}", "args", operand, ndim, dtype_name)
        else:  # the result buffer, aliased to operand ``operand``: it holds the operand's values
            lines += _array_source(f"x{k}", "rets", ret, ndim, dtype_name)
        operand += 1
        call.append(f"x{k}")
    lines += [
        "    try:",
        f"        KERNEL({', '.join(call)})",
        "    except Exception:",
        f"        return error(frame, FAILED, {_abi.ERROR_INTERNAL})",
        "    return 0",
    ]
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<elena_jax handler {name}>", "exec"), env)
    compiled = numba.cfunc(numba.types.int64(numba.types.int64))(env["handler"])
    jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(compiled.address), platform="cpu", api_version=1)
    result = Handler(name, compiled, (failed, bad_dtype, bad_count), source)
    _HANDLERS[key] = result
    return result
