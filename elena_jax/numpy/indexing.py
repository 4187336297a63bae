"""Indexing and writes: ``a[key]``, ``a[key] = v``, copyto, fill, fill_diagonal.

Basic indices are views (tracer.py); here are the copies and the writes.
An advanced index is recorded as a *key template* -- the index tuple with each
array replaced by ``("arr", k)``, the k-th array operand of the op -- so the
lowering rebuilds exactly the index the user wrote and JAX applies NumPy's
placement rules for mixed basic and advanced indices. Result shapes, bounds
errors of constant indices and broadcasting errors come from NumPy itself, by
indexing a zero-stride probe of the array's shape (no data is allocated).
"""

from __future__ import annotations

import numpy as np

from .. import view as V
from ..errors import ConcretizationError, UnsupportedError, located, user_location
from ..tracer import HOOKS, Tracer, is_basic_index
from ._core import (
    as_operand,
    broadcast_shapes,
    fresh,
    implements,
    laid_out,
    like_order,
    memory_order,
    sequence_as_array,
    shape_of,
    trace_of,
)
from .masked import Masked
from .ufuncs import numpy_errors


def _probe(shape) -> np.ndarray:
    return np.broadcast_to(np.empty((), np.uint8), shape)


def split_index(trace, a: Tracer, key):
    """The key template and its array operands (see the module docstring)."""
    parts = key if isinstance(key, tuple) else (key,)
    template, arrays = [], []
    for k in parts:
        if k is None or k is Ellipsis or isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            template.append(k)
        elif isinstance(k, slice):
            if not all(p is None or isinstance(p, (int, np.integer)) for p in (k.start, k.stop, k.step)):
                raise ConcretizationError(
                    f"a slice with traced bounds has a data-dependent shape\n  at {user_location()}")
            template.append(("slice", k.start, k.stop, k.step))
        else:
            k = sequence_as_array(k)  # NB: a list holding traced scalars (a[[i, j]]) is one index array
            if isinstance(k, Tracer) and trace.known_value(k) is not None:
                k = trace.known_value(k)  # a constant made inside f: index exactly as NumPy
            if not isinstance(k, Tracer):
                k = np.asarray(k)
                if k.dtype == bool and k.ndim == 0:
                    raise located(UnsupportedError, "a boolean scalar index (a[True]) is not supported by elena_jax")
                if k.dtype == bool:  # NB: a constant mask is its nonzero() indices
                    for idx in np.nonzero(k):
                        template.append(("arr", len(arrays)))
                        arrays.append(idx)
                    continue
                if k.dtype.kind not in "iu" and k.size:
                    raise located(IndexError, "arrays used as indices must be of integer (or boolean) type")
                k = k.astype(np.intp) if k.size == 0 else k
            elif k.dtype.kind not in "iub":
                raise located(IndexError, "arrays used as indices must be of integer (or boolean) type")
            template.append(("arr", len(arrays)))
            arrays.append(k)
    return tuple(template), arrays


def _has_traced_mask(arrays) -> bool:
    return any(isinstance(k, Tracer) and k.dtype == bool for k in arrays)


def indexed_shape(a: Tracer, template, arrays) -> tuple[int, ...]:
    """Shape of ``a[key]`` by NumPy's own rules, raising NumPy's IndexError."""
    key = []
    for k in template:
        if isinstance(k, tuple) and k[0] == "slice":
            key.append(slice(*k[1:]))
        elif isinstance(k, tuple):
            arr = arrays[k[1]]
            key.append(np.zeros(arr.shape, np.intp) if isinstance(arr, Tracer) else arr)
        else:
            key.append(k)
    try:
        return _probe(a.shape)[tuple(key)].shape
    except IndexError as e:
        raise located(IndexError, str(e)) from None


def getitem(a: Tracer, key) -> Tracer:
    trace = a._trace
    template, arrays = split_index(trace, a, key)
    if _has_traced_mask(arrays):
        mask = arrays[0]
        if len(arrays) != 1 or template[0] != ("arr", 0) or mask.shape != a.shape[: mask.ndim]:
            raise ConcretizationError(
                "boolean-mask indexing with a traced mask has a data-dependent shape; "
                f"use np.where(mask, ...) or write through the mask (a[mask] = v)\n  at {user_location()}")
        return Masked(HOOKS["copy"](a), mask)  # NB: a[mask] is a copy in NumPy
    shape = indexed_shape(a, template, arrays)
    r = fresh(trace, "getitem", [a, *arrays], shape, a.dtype, key=template)
    return laid_out(r, _gather_order(a, template, arrays, len(shape)))


def _gather_order(a: Tracer, template, arrays, ndim: int) -> tuple[int, ...]:
    """NumPy's memory order of ``a[key]`` with advanced indices: the broadcast index dims outermost,
    the other dims (``a`` sliced, with the indexed axes taken out) as they lie in memory."""
    def kind(k):
        return k[0] if isinstance(k, tuple) else "int" if isinstance(k, (int, np.integer)) else None

    if a.size == 0:  # NB: then so is the result, whose layout nothing can tell
        return tuple(range(ndim))
    advanced = [i for i, k in enumerate(template) if kind(k) in ("arr", "int")]
    # NB: integers join the advanced indices; the index dims stay in place only if those are adjacent
    index_shape = np.broadcast_shapes(*[np.shape(arrays[k[1]]) for k in template if kind(k) == "arr"])
    index_ndim = len(index_shape)
    rest = tuple(0 if i in advanced else slice(*k[1:]) if kind(k) == "slice" else k for i, k in enumerate(template))
    others = V.index(a.header, rest)
    if others.ndim == 0:  # NB: only index dims: laid out as the index arrays are
        return memory_order(index_shape, arrays)
    if advanced == list(range(advanced[0], advanced[-1] + 1)):
        consumed = sum(k is not None and k is not Ellipsis for k in template)
        at = sum(a.ndim - consumed if k is Ellipsis else 1 for k in template[: advanced[0]])
    else:
        at = 0
    inner = [i if i < at else i + index_ndim for i in V.keep_order(others.shape, [others])]
    return tuple(range(at, at + index_ndim)) + tuple(inner)


def _broadcasts_to(shape, target) -> bool:
    return len(shape) <= len(target) and all(n in (1, m) for n, m in zip(shape[::-1], target[::-1]))


def setitem(a: Tracer, key, value) -> None:
    trace = a._trace
    a.check_writeable()
    value = sequence_as_array(value)
    if is_basic_index(key):
        target = a.view_of(a.index_view(key))  # a view even where a[key] would be a scalar
        if isinstance(value, Tracer) and value.storage is a.storage and value.header == target.header:
            return  # `a[k] op= v` ends with a[k] = a[k]: a copy onto itself changes nothing
        _check_value_shape(value, target.shape)
        with numpy_errors():
            trace.write("copy", [as_operand(trace, value, a.dtype)], [target])
        return
    template, arrays = split_index(trace, a, key)
    if _has_traced_mask(arrays) and isinstance(value, Masked):
        if len(arrays) != 1 or value.mask is not arrays[0] or value.values.shape != a.shape:
            raise ConcretizationError(
                "a[mask] = b[mask] needs the same mask object and arrays of one shape\n"
                f"  at {user_location()}")
        if arrays[0].ndim == a.ndim:  # NB: a mask of fewer axes is turned into indices first
            _refuse_overlapping_mask(arrays[0], arrays[0].header, a, "a[mask] = ...")
        trace.write("select", [value._full_mask(), value.values, a], [a])
        return
    if _has_traced_mask(arrays):
        mask = arrays[0]
        # NB: a[mask] has shape (k,) + rest; a value of shape () or broadcasting to ``rest`` fits
        # every k (leading length-1 axes aside), so the write is a select with the value broadcast.
        rest = a.shape[mask.ndim:]
        vshape = tuple(shape_of(value))
        if not rest and len(vshape) > 1:
            raise located(TypeError, "NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                          f"input, input has {len(vshape)} dimensions")
        while vshape and vshape[0] == 1 and len(vshape) > len(rest):
            vshape = vshape[1:]
        tail = vshape[len(vshape) - min(len(vshape), len(rest)):]
        if not _broadcasts_to(tail, rest):  # NB: fails for every count of selected elements
            raise located(ValueError, f"shape mismatch: value array of shape {tuple(shape_of(value))} could not "
                          f"be broadcast to indexing result of shape (k,{','.join(map(str, rest))})")
        if len(arrays) != 1 or template[0] != ("arr", 0) or mask.ndim > a.ndim \
                or mask.shape != a.shape[: mask.ndim] or not _broadcasts_to(vshape, rest):
            raise ConcretizationError(
                "writing through a traced boolean mask supports a[mask] = v for a scalar v or one that "
                "broadcasts to a row of the selection, with the mask covering the leading axes; "
                f"this form has a data-dependent shape\n  at {user_location()}")
        with numpy_errors():
            v = as_operand(trace, value, a.dtype)
        v = v.reshape(vshape) if isinstance(v, Tracer) else np.reshape(v, vshape)
        if mask.ndim == a.ndim:  # NB: a mask of fewer axes is turned into indices first
            _refuse_overlapping_mask(mask, mask.header, a, "a[mask] = ...")
        trace.write("mask_set", [a, mask, v], [a])
        return
    shape = indexed_shape(a, template, arrays)
    _check_value_shape(value, shape)
    with numpy_errors():
        v = as_operand(trace, value, a.dtype)
    trace.write("setitem", [a, *arrays, v], [a], key=template)


def _refuse_overlapping_mask(mask: Tracer, aligned: V.View, dst: Tracer, construct: str) -> None:
    """Refuse a boolean mask that overlaps the array it selects writes into at other elements
    (``aligned``: the mask's view over dst's elements).

    NumPy reads a mask of dst's shape element by element while it writes and never copies it, so
    it reads mask elements it has already overwritten, in its own iteration order (fuzz seed 4252,
    #10220). A mask that is dst itself, element for element, is read before each element is
    written; a mask of fewer axes than a[mask] = v's array is turned into indices first."""
    if mask.storage is dst.storage and V.overlap(mask.header, dst.header) and aligned != dst.header:
        raise located(UnsupportedError, f"{construct} with a mask that overlaps the array written at other "
                      "elements: NumPy's result depends on the order it writes in")


def _check_value_shape(value, shape) -> None:
    vshape = shape_of(value)
    try:
        # NB: NumPy drops leading unit axes of the value that the target lacks
        trimmed = tuple(vshape)
        while len(trimmed) > len(shape) and trimmed[0] == 1:
            trimmed = trimmed[1:]
        if np.broadcast_shapes(trimmed, shape) != tuple(shape):
            raise ValueError
    except ValueError:
        raise located(ValueError, f"could not broadcast input array from shape {vshape} "
                      f"into shape {tuple(shape)}") from None


def copy(a, order: str = "C") -> Tracer:
    return fresh(trace_of(a), "copy", [a], shape_of(a), a.dtype, layout=like_order(a, order))


HOOKS.update(getitem=getitem, setitem=setitem, copy=copy)


@implements(np.copyto)
def copyto(dst, src, casting="same_kind", where=True):
    if not isinstance(dst, Tracer):
        raise located(UnsupportedError, "np.copyto into an array that is not traced")
    if isinstance(src, Tracer) and (src.storage, src.header, src.dtype) == (dst.storage, dst.header, dst.dtype):
        return None  # NB: NumPy returns before any check when src is dst's very memory
    dst.check_writeable()  # NB: then a read-only destination, before the cast and the shapes
    trace = dst._trace
    # NB: NumPy 2 decides the cast: Python scalars are weak (3 into uint8 is fine, 0.5 into int is
    # not), NumPy scalars are strong (np.float64 subclasses float but casts like an array).
    weak = type(src) in (int, float, complex, bool)
    probe = src if weak else np.empty((), src.dtype if isinstance(src, Tracer) else np.result_type(src))
    with numpy_errors():
        np.copyto(np.empty((), dst.dtype), probe, casting=casting)
    _check_value_shape(src, dst.shape)
    with numpy_errors():
        ins = [as_operand(trace, src, dst.dtype)]
    if where is True:
        trace.write("copy", ins, [dst])
    else:
        broadcast_shapes(shape_of(where), dst.shape)
        if isinstance(where, Tracer):  # NB: NumPy copies an overlapping src first, never the mask
            _refuse_overlapping_mask(where, V.broadcast_to(where.header, dst.shape), dst,
                                     "np.copyto(dst, src, where=mask)")
        trace.write("select", [where, ins[0], dst], [dst])


def fill(a: Tracer, value) -> None:
    with numpy_errors():
        a._trace.write("copy", [as_operand(a._trace, value, a.dtype)], [a])


@implements(np.fill_diagonal)
def fill_diagonal(a, val, wrap=False):
    if a.ndim < 2:
        raise located(ValueError, "array must be at least 2-d")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise located(ValueError, "All dimensions of input must be of equal length")
    step = sum(a.header.strides)
    n = min(a.shape)
    if wrap and a.ndim == 2 and a.shape[0] > a.shape[1] + 1:
        if not a.flags.c_contiguous:
            raise located(UnsupportedError, "np.fill_diagonal(wrap=True) of a non-contiguous view")
        # NB: NumPy walks the flat array with step m+1, wrapping past the square
        target = a.reshape(-1)[:: a.shape[1] + 1]
    else:
        target = a.view_of(V.View.make((n,), (step,), a.header.offset))
    val_size = int(np.prod(shape_of(val)))
    if val_size not in (1, target.size):
        raise located(UnsupportedError, "np.fill_diagonal with a value that repeats cyclically")
    target[...] = np.reshape(val, target.shape if val_size == target.size else ())
