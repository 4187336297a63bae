"""The slice of the XLA FFI C ABI (``xla/ffi/api/c_api.h``) that the Numba handlers use.

The structs are mirrored with ``ctypes`` so that every offset the handler
reads or writes comes from one place; ``tests/test_kernels.py`` pins this
mirror against the header text shipped with the installed jaxlib (and, where
a C compiler exists, against ``offsetof`` computed by that compiler).

Also here: small Numba intrinsics for raw memory access and indirect calls,
which is all a handler needs beyond ``numba.carray``.

Invariant: nothing outside this module hard-codes a byte offset into an XLA
struct; the handler code generator reads them from :data:`OFFSETS`.
"""

from __future__ import annotations

import ctypes
from ctypes import POINTER, c_char_p, c_int, c_int64, c_size_t, c_uint32, c_void_p

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

# NB: c_api.h declares these versions; a handler reports them in the metadata extension.
API_MAJOR, API_MINOR = 0, 3
EXTENSION_METADATA = 1  # XLA_FFI_Extension_Metadata
STAGE_EXECUTE = 3  # XLA_FFI_ExecutionStage_EXECUTE
ERROR_INVALID_ARGUMENT = 3
ERROR_INTERNAL = 13
ARG_BUFFER = 1  # XLA_FFI_ArgType_BUFFER


class ExtensionBase(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("type", c_int), ("next", c_void_p)]


class ApiVersion(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p),
                ("major_version", c_int), ("minor_version", c_int)]


class ErrorCreateArgs(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p),
                ("message", c_char_p), ("errc", c_int)]


class Buffer(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("dtype", c_int),
                ("data", c_void_p), ("rank", c_int64), ("dims", POINTER(c_int64))]


class Args(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("size", c_int64),
                ("types", c_void_p), ("args", c_void_p)]


class Rets(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("size", c_int64),
                ("types", c_void_p), ("rets", c_void_p)]


class Attrs(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("size", c_int64),
                ("types", c_void_p), ("names", c_void_p), ("attrs", c_void_p)]


class CallFrame(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("api", c_void_p),
                ("ctx", c_void_p), ("stage", c_int), ("args", Args), ("rets", Rets),
                ("attrs", Attrs), ("future", c_void_p)]


class Api(ctypes.Structure):
    # Only the prefix up to the one function pointer used (XLA_FFI_Error_Create).
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("api_version", ApiVersion),
                ("internal_api", c_void_p), ("XLA_FFI_Error_Create", c_void_p)]


class Metadata(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("api_version", ApiVersion), ("traits", c_uint32),
                ("state_type_id", c_int64)]


class MetadataExtension(ctypes.Structure):
    _fields_ = [("extension_base", ExtensionBase), ("metadata", POINTER(Metadata))]


MIRRORED = (ExtensionBase, ApiVersion, ErrorCreateArgs, Buffer, Args, Rets, Attrs, CallFrame, Api,
            Metadata, MetadataExtension)


def _off(struct: type[ctypes.Structure], *path: str) -> int:
    total = 0
    for name in path:
        field = getattr(struct, name)
        total += field.offset
        struct = dict(struct._fields_)[name]
    return total


def struct_size(struct: type[ctypes.Structure], last_field: str) -> int:
    """As the header's ``XLA_FFI_STRUCT_SIZE(struct, last_field)``."""
    return getattr(struct, last_field).offset + getattr(struct, last_field).size


OFFSETS = {
    "frame.extension_start": _off(CallFrame, "extension_start"),
    "frame.api": _off(CallFrame, "api"),
    "frame.stage": _off(CallFrame, "stage"),
    "frame.args.size": _off(CallFrame, "args", "size"),
    "frame.args.types": _off(CallFrame, "args", "types"),
    "frame.args.args": _off(CallFrame, "args", "args"),
    "frame.rets.size": _off(CallFrame, "rets", "size"),
    "frame.rets.rets": _off(CallFrame, "rets", "rets"),
    "ext.type": _off(ExtensionBase, "type"),
    "ext.struct_size": _off(ExtensionBase, "struct_size"),
    "mdext.metadata": _off(MetadataExtension, "metadata"),
    "md.struct_size": _off(Metadata, "struct_size"),
    "md.api_version.struct_size": _off(Metadata, "api_version", "struct_size"),
    "md.api_version.extension_start": _off(Metadata, "api_version", "extension_start"),
    "md.api_version.major_version": _off(Metadata, "api_version", "major_version"),
    "md.api_version.minor_version": _off(Metadata, "api_version", "minor_version"),
    "md.traits": _off(Metadata, "traits"),
    "md.state_type_id": _off(Metadata, "state_type_id"),
    "buffer.dtype": _off(Buffer, "dtype"),
    "buffer.data": _off(Buffer, "data"),
    "buffer.rank": _off(Buffer, "rank"),
    "buffer.dims": _off(Buffer, "dims"),
    "api.error_create": _off(Api, "XLA_FFI_Error_Create"),
    "error.struct_size": _off(ErrorCreateArgs, "struct_size"),
    "error.message": _off(ErrorCreateArgs, "message"),
    "error.errc": _off(ErrorCreateArgs, "errc"),
}
SIZES = {
    "ApiVersion": struct_size(ApiVersion, "minor_version"),
    "ErrorCreateArgs": struct_size(ErrorCreateArgs, "errc"),
    "Metadata": struct_size(Metadata, "traits"),
    "MetadataExtension": struct_size(MetadataExtension, "metadata"),
}

# NumPy dtype -> XLA_FFI_DataType (the codes c_api.h assigns).
FFI_DTYPES = {
    np.dtype(np.bool_): 1, np.dtype(np.int8): 2, np.dtype(np.int16): 3, np.dtype(np.int32): 4,
    np.dtype(np.int64): 5, np.dtype(np.uint8): 6, np.dtype(np.uint16): 7, np.dtype(np.uint32): 8,
    np.dtype(np.uint64): 9, np.dtype(np.float16): 10, np.dtype(np.float32): 11,
    np.dtype(np.float64): 12, np.dtype(np.complex64): 15, np.dtype(np.complex128): 18,
}


# --- Numba intrinsics: raw loads/stores at an address, and a call through a pointer ------------


def _address(builder, value, pointee):
    return builder.inttoptr(value, pointee.as_pointer())


@intrinsic
def load_i64(typingctx, addr):
    """The int64 at address ``addr``."""
    def codegen(context, builder, sig, args):
        return builder.load(_address(builder, args[0], ir.IntType(64)))
    return types.int64(types.int64), codegen


@intrinsic
def load_i32(typingctx, addr):
    """The int32 at address ``addr`` (C ``int`` and enums)."""
    def codegen(context, builder, sig, args):
        return builder.load(_address(builder, args[0], ir.IntType(32)))
    return types.int32(types.int64), codegen


@intrinsic
def store_i64(typingctx, addr, value):
    def codegen(context, builder, sig, args):
        builder.store(builder.sext(args[1], ir.IntType(64)) if args[1].type.width < 64 else args[1],
                      _address(builder, args[0], ir.IntType(64)))
        return context.get_dummy_value()
    return types.void(types.int64, types.int64), codegen


@intrinsic
def store_i32(typingctx, addr, value):
    def codegen(context, builder, sig, args):
        v = args[1]
        v = builder.trunc(v, ir.IntType(32)) if v.type.width > 32 else v
        builder.store(v, _address(builder, args[0], ir.IntType(32)))
        return context.get_dummy_value()
    return types.void(types.int64, types.int32), codegen


@intrinsic
def as_voidptr(typingctx, addr):
    """The address as a ``void*`` (what ``numba.carray`` takes with an explicit dtype)."""
    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], ir.IntType(8).as_pointer())
    return types.voidptr(types.int64), codegen


@intrinsic
def call_ptr(typingctx, fn, arg):
    """Call the C function ``void* fn(void*)`` at address ``fn`` with the pointer ``arg``."""
    def codegen(context, builder, sig, args):
        vp = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(vp, [vp])
        result = builder.call(builder.inttoptr(args[0], fnty.as_pointer()), [builder.inttoptr(args[1], vp)])
        return builder.ptrtoint(result, ir.IntType(64))
    return types.int64(types.int64, types.int64), codegen
