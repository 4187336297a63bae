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

import warnings

import numpy as np

from .. import view as V
from ..errors import ConcretizationError, UnsupportedError, located, user_location
from ..tracer import HOOKS, Tracer, is_basic_index
from ._core import (
    as_operand,
    check_cast_flags,
    fresh,
    has_tracer,
    implements,
    laid_out,
    leaves,
    like_order,
    memory_order,
    raise_where,
    sequence_as_array,
    shape_of,
    shape_text,
    trace_of,
    untraced_target,
)
from .masked import Masked


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
            message = _index_error(k)
            k = sequence_as_array(k)  # NB: a list holding traced scalars (a[[i, j]]) is one index array
            if isinstance(k, Tracer) and trace.known_value(k) is not None:
                k = trace.known_value(k)  # a constant made inside f: index exactly as NumPy
            if not isinstance(k, Tracer):
                k = np.asarray(k)
                if k.dtype == bool and k.ndim == 0:
                    raise located(UnsupportedError, "a boolean scalar index (a[True]) is not supported by elena_jax")
                if k.dtype.kind not in "iub" and (k.size or message is _NOT_INTEGERS):
                    raise located(IndexError, message)  # NB: an empty list is an index, an empty float array not
                k = k.astype(np.intp) if k.size == 0 and k.dtype != bool else k
            elif k.dtype.kind not in "iub":
                raise located(IndexError, message)
            template.append(("arr", len(arrays)))
            arrays.append(k)
    if any(isinstance(k, np.ndarray) and k.dtype == bool for k in arrays):
        _check_mask_lengths(a, tuple(template), arrays)  # NB: NumPy's message, not its indices' bounds
    return _constant_masks_as_indices(tuple(template), arrays)


def _constant_masks_as_indices(template, arrays):
    """The key with each constant boolean mask as its nonzero() indices, one array per axis it covers."""
    new_template, new_arrays = [], []
    for k in template:
        if not (isinstance(k, tuple) and k[0] == "arr"):
            new_template.append(k)
            continue
        arr = arrays[k[1]]
        for idx in np.nonzero(arr) if isinstance(arr, np.ndarray) and arr.dtype == bool else [arr]:
            new_template.append(("arr", len(new_arrays)))
            new_arrays.append(idx)
    return tuple(new_template), new_arrays


_NOT_INTEGERS = "arrays used as indices must be of integer (or boolean) type"
_NOT_AN_INDEX = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean "
                 "arrays are valid indices")


def _index_error(k) -> str:
    """NumPy's message where ``k`` is not an integer index: of an array (a traced one not read
    out as a scalar), its dtype; of anything else (a float, a list of floats, a string), what an
    index may be."""
    return _NOT_INTEGERS if isinstance(k, np.ndarray) or isinstance(k, Tracer) and not k.scalar else _NOT_AN_INDEX


def _has_traced_mask(arrays) -> bool:
    return any(isinstance(k, Tracer) and k.dtype == bool for k in arrays)


def _diagonal_of_one_mask(a: Tracer, template, arrays):
    """``a[..., m, m, ...]``: one traced 1-D boolean mask on two adjacent axes of its length (a
    finite-element matrix's Dirichlet rows, ``K[boundary, boundary] = 1``). NumPy pairs the
    selected indices with themselves: the selection is the diagonal's, so ``a`` becomes its
    diagonal view over those axes (the diagonal's axis in their place) and the key one mask."""
    if len(arrays) != 2 or not all(isinstance(m, Tracer) and m.dtype == bool and m.ndim == 1 for m in arrays):
        return a, template, arrays
    at = template.index(("arr", 0))
    adjacent = template[at + 1 : at + 2] == (("arr", 1),)
    after_slices = all(isinstance(k, tuple) and k[0] == "slice" for k in template[:at])
    square = a.ndim >= at + 2 and a.shape[at] == a.shape[at + 1] == arrays[0].shape[0]
    if not (adjacent and after_slices and square) or not (
            arrays[0] is arrays[1] or a._trace.same_value(arrays[0], arrays[1])):
        return a, template, arrays
    diagonal = a.view_of(V.moveaxis(V.diagonal(a.header, 0, at, at + 1), -1, at))
    return diagonal, template[: at + 1] + template[at + 2 :], arrays[:1]


def _probe_key(template, arrays, masks: bool = False) -> tuple:
    """The key of ``template`` for a probe of the indexed array: a traced index array as zeros (in
    range), or with ``masks`` a traced boolean mask as all True (its shape checked as NumPy's)."""
    def stand_in(arr):
        if not isinstance(arr, Tracer):
            return arr
        return np.ones(arr.shape, bool) if masks and arr.dtype == bool else np.zeros(arr.shape, np.intp)

    return tuple(slice(*k[1:]) if isinstance(k, tuple) and k[0] == "slice" else
                 stand_in(arrays[k[1]]) if isinstance(k, tuple) else k for k in template)


def indexed_shape(a: Tracer, template, arrays) -> tuple[int, ...]:
    """Shape of ``a[key]`` by NumPy's own rules, raising NumPy's IndexError."""
    try:
        return _probe(a.shape)[_probe_key(template, arrays)].shape
    except IndexError as e:
        raise located(IndexError, str(e)) from None


# NB: the most elements of an array whose selection by constant index arrays is compared with a view
_VIEWED = 1 << 20


def _selection_view(a: Tracer, template, arrays) -> V.View | None:
    """The view of ``a``'s storage that ``a[key]`` selects, where its index arrays are all constants
    (``d[np.arange(n), np.arange(n)]``, ``a[[0, 2, 4]]``, a constant mask) whose elements are evenly
    spaced along every axis of the selection; else None. Read or written through that view, the
    selection is no gather or scatter."""
    if any(isinstance(k, Tracer) for k in arrays) or a.size > _VIEWED:
        return None
    h = a.header
    places = h.offset + sum(np.arange(n).reshape((-1,) + (1,) * (h.ndim - 1 - k)) * s
                            for k, (n, s) in enumerate(zip(h.shape, h.strides)))
    selected = np.broadcast_to(places, h.shape)[_probe_key(template, arrays)]
    if selected.size == 0:
        return None
    steps = []
    for k, n in enumerate(selected.shape):
        step = np.diff(selected, axis=k)
        if n > 1 and np.any(step != step.flat[0]):
            return None
        steps.append(int(step.flat[0]) if n > 1 else 0)
    return V.View.make(selected.shape, tuple(steps), int(selected.flat[0]))


def getitem(a: Tracer, key) -> Tracer:
    trace = a._trace
    template, arrays = split_index(trace, a, key)
    if _has_traced_mask(arrays):
        a, template, arrays = _diagonal_of_one_mask(a, template, arrays)
        target, at = _masked_target(a, template, arrays)
        if at != 0:
            raise ConcretizationError(
                "boolean-mask indexing with a traced mask has a data-dependent shape; "
                f"use np.where(mask, ...) or write through the mask (a[mask] = v)\n  at {user_location()}")
        return Masked(HOOKS["copy"](target), arrays[0])  # NB: a[mask] is a copy in NumPy
    shape = indexed_shape(a, template, arrays)
    order = _gather_order(a, template, arrays, len(shape))
    view = _selection_view(a, template, arrays)
    if view is not None:  # NB: a copy, as NumPy's advanced indexing makes, laid out as its
        return fresh(trace, "copy", [a.view_of(view)], shape, a.dtype, layout=order)
    return laid_out(fresh(trace, "getitem", [a, *arrays], shape, a.dtype, key=template), order)


def _masked_target(a: Tracer, template, arrays) -> tuple[Tracer, int]:
    """For ``a[key]`` with a traced boolean mask: the view of ``a`` the mask selects from, its
    axes first (``a[m, 1:3]`` selects from ``a[:, 1:3]``), and where NumPy's ``a[key]`` puts the
    selection's axis (0 for ``a[m, 1:3]``, 1 for ``a[:, m]``).

    NumPy turns the mask into index arrays, one per axis it covers, and places them, with any
    integers of the key, as it places advanced indices: where they stand if they are adjacent,
    else first. Only keys whose one array is the mask are traced; the rest is basic."""
    if len(arrays) != 1:
        _check_mask_lengths(a, template, arrays)
        raise ConcretizationError(
            "a traced boolean mask beside other index arrays has a data-dependent shape\n"
            f"  at {user_location()}")
    mask = arrays[0]
    at = template.index(("arr", 0))
    consumed = sum(k is not None and k is not Ellipsis for k in template) - 1 + mask.ndim

    def basic(k):
        return slice(*k[1:]) if isinstance(k, tuple) else k

    head = [basic(k) for k in template[:at]]
    key = (*head, *[slice(None)] * mask.ndim, *[basic(k) for k in template[at + 1:]])
    view = a.view_of(a.index_view(key))
    first = sum(1 if k is None or isinstance(k, slice) else a.ndim - consumed if k is Ellipsis else 0
                for k in head)
    axis = sum(k is not None and k is not Ellipsis for k in head) + (a.ndim - consumed) * (Ellipsis in head)
    for i, n in enumerate(mask.shape):
        if view.shape[first + i] != n:
            raise located(IndexError, f"boolean index did not match indexed array along axis {axis + i}; "
                          f"size of axis is {view.shape[first + i]} but size of corresponding boolean "
                          f"axis is {n}")
    masked = range(first, first + mask.ndim)
    target = view.transpose([*masked, *(i for i in range(view.ndim) if i not in masked)])
    # NB: NumPy's placement, from NumPy: a probe whose mask selects more than any other axis holds
    count = max((*a.shape, 1)) + 1
    probe = np.ones((count,) + (1,) * (mask.ndim - 1), bool)
    sides = a.shape[:axis] + probe.shape + a.shape[axis + mask.ndim:]
    shape = _probe(sides)[tuple(probe if k == ("arr", 0) else basic(k) for k in template)].shape
    return target, shape.index(count)


def _check_mask_lengths(a: Tracer, template, arrays) -> None:
    """NumPy's IndexError for a boolean index whose length is not its axis's (a static fact, checked
    before any data-dependent count): from a probe indexed with masks of all True values."""
    try:
        _probe(a.shape)[_probe_key(template, arrays, masks=True)]
    except IndexError as e:
        if "boolean index did not match" in str(e):
            raise located(IndexError, str(e)) from None


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


def setitem(a: Tracer, key, value) -> None:
    trace = a._trace
    a.check_writeable()
    check_elements(value, a.dtype)
    if isinstance(value, Tracer) and value.dtype.kind == "f" and a.dtype.kind in "iu" and (
            value.weak or value.scalar and a.dtype.kind == "i" and is_basic_index(key)):
        # NB: NumPy converts a Python float into integers as int() does, and a NumPy float scalar
        # into signed integers through a basic index (not a 0-d array; unsigned ones and index
        # arrays it casts, warning: a review's find)
        raise_where(np.isnan(value), ValueError, "cannot convert float NaN to integer")
        raise_where(np.isinf(value), OverflowError, "cannot convert float infinity to integer")
    value = sequence_as_array(value)
    if isinstance(value, (Tracer, np.ndarray)):
        check_cast_flags(value.dtype, a.dtype)
    if is_basic_index(key):
        target = a.view_of(a.index_view(key))  # a view even where a[key] would be a scalar
        if isinstance(value, Tracer) and value.storage is a.storage and value.header == target.header:
            return  # `a[k] op= v` ends with a[k] = a[k]: a copy onto itself changes nothing
        if isinstance(value, (list, tuple, np.generic)):
            value = _written_constant(value, a.dtype, target.ndim)
        _check_value_shape(value, target.shape)
        trace.write("copy", [as_operand(trace, value, a.dtype)], [target])
        return
    template, arrays = split_index(trace, a, key)
    if _has_traced_mask(arrays):
        _mask_set(*_diagonal_of_one_mask(a, template, arrays), value)
        return
    shape = indexed_shape(a, template, arrays)
    if isinstance(value, (list, tuple)):
        value = np.array(value, dtype=a.dtype)  # NB: its numbers converted into a's type (check_elements)
    _check_value_shape(value, shape)
    v = as_operand(trace, value, a.dtype)
    if np.ndim(v) > len(shape):  # NB: leading axes of one that the selection lacks (_check_value_shape)
        v = v.reshape(shape_of(v)[np.ndim(v) - len(shape):])
    view = _selection_view(a, template, arrays)
    if view is not None and V.distinct(view):  # NB: a place selected twice is written twice, last wins
        trace.write("copy", [v], [a.view_of(view)])
        return
    trace.write("setitem", [a, *arrays, v], [a], key=template)


def check_elements(value, dtype: np.dtype) -> None:
    """NumPy's errors for the numbers of a list or tuple written into an array of ``dtype``: it converts
    each into it (300 into uint8: OverflowError; 1j into a float: TypeError; NaN into an integer:
    ValueError), beside traced values too."""
    if not isinstance(value, (list, tuple)):
        return
    if not has_tracer(value):
        np.array(value, dtype=dtype)
        return
    for x in leaves(value):
        if not isinstance(x, Tracer):
            np.array([x], dtype=dtype)  # NB: in a list: a NumPy NaN into integers raises (cast alone, it does not)


def _written_constant(value, dtype: np.dtype, ndim: int) -> np.ndarray:
    """A constant written through a basic index, converted as NumPy's setitem converts it: a NumPy
    scalar into a signed integer through Python's int (OverflowError beyond its range, ValueError
    for NaN), into other types by a cast; a list or tuple element by element (a complex into a real:
    TypeError; 300 into uint8: OverflowError), nested no deeper than the target."""
    if isinstance(value, np.generic):
        converted = np.zeros((), dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NB: a cast's overflow, as NumPy's (which warns)
            converted[()] = value
        return converted
    converted = np.array(value, dtype=dtype)
    if converted.ndim > ndim:
        if ndim == 0:
            np.zeros((), dtype)[()] = value  # NB: NumPy's TypeError: an element is no sequence
        raise located(ValueError, "setting an array element with a sequence. The requested array would exceed "
                      f"the maximum number of dimension of {ndim}.")
    return converted


def _mask_set(a: Tracer, template, arrays, value) -> None:
    """``a[key] = value`` with a traced boolean mask in ``key``: a select over the view the mask
    selects from (`_masked_target`), where the value is the same for every count of True
    values: a scalar, one that broadcasts along the selection's axis, or ``b[mask]`` of the same
    mask object."""
    trace = a._trace
    target, at = _masked_target(a, template, arrays)
    mask = arrays[0]
    rest = target.shape[mask.ndim:]
    whole = template == (("arr", 0),) and mask.ndim == a.ndim  # NB: NumPy's boolean assignment
    if isinstance(value, Masked):
        if not value.same_mask(mask) or value.values.shape != target.shape or at != 0:
            raise ConcretizationError(
                "a[mask] = b[mask] needs the same mask (one array, or one computed alike from the same "
                "unchanged operands) and arrays of one shape\n"
                f"  at {user_location()}")
        if whole:  # NB: a mask of fewer axes is turned into indices first
            _refuse_overlapping_mask(mask, mask.header, a, "a[mask] = ...")
        trace.write("select", [value._full_mask(), value.values, target], [target])
        return
    # NB: a[key] has the selection's axis (k) at ``at`` and ``rest`` around it; a value whose axis
    # there is 1 (or missing) fits every k, so the write is a select with the value broadcast.
    vshape = tuple(shape_of(value))
    if whole and len(vshape) > 1:
        raise located(TypeError, "NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                      f"input, input has {len(vshape)} dimensions")
    full = vshape
    while full and full[0] == 1 and len(full) > len(rest) + 1:
        full = full[1:]
    full = (1,) * (len(rest) + 1 - len(full)) + full
    own = full[:at] + full[at + 1:]
    if len(full) > len(rest) + 1 or not _broadcasts_to(own, rest):  # NB: fails for every count k
        result = ",".join([*map(str, rest[:at]), "k", *map(str, rest[at:])])
        raise located(ValueError, f"shape mismatch: value array of shape {vshape} could not be broadcast "
                      f"to indexing result of shape ({result})")
    if full[at] != 1:
        raise ConcretizationError(
            "writing through a traced boolean mask supports a[mask] = v for a scalar v or one that "
            "broadcasts along the selection; this value fits only one count of selected elements, "
            f"a data-dependent shape\n  at {user_location()}")
    v = as_operand(trace, value, a.dtype)
    v = v.reshape(own) if isinstance(v, Tracer) else np.reshape(v, own)
    if whole:  # NB: a mask of fewer axes is turned into indices first
        _refuse_overlapping_mask(mask, mask.header, a, "a[mask] = ...")
    trace.write("mask_set", [target, mask, v], [target])


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
    if not value_fits(shape_of(value), shape):
        raise located(ValueError, f"could not broadcast input array from shape {shape_text(shape_of(value))} "
                      f"into shape {shape_text(shape)}")


def value_fits(vshape, shape) -> bool:
    """Whether a value of ``vshape`` can be written into ``shape``: it broadcasts there once the
    leading axes of one that the target lacks are dropped, as NumPy drops them."""
    trimmed = tuple(vshape)
    while len(trimmed) > len(shape) and trimmed[0] == 1:
        trimmed = trimmed[1:]
    return _broadcasts_to(trimmed, shape)


def _check_mask_shape(mask, shape) -> None:
    """NumPy's error for a ``where=`` mask of np.copyto that does not broadcast to ``shape``
    (its leading axes of one are not dropped)."""
    if not _broadcasts_to(mask, shape):
        raise located(ValueError, f"could not broadcast where mask from shape {shape_text(mask)} "
                      f"into shape {shape_text(shape)}")


def _broadcasts_to(shape_from, shape) -> bool:
    """Whether an array of ``shape_from`` broadcasts to ``shape`` (which it may not outgrow)."""
    return len(shape_from) <= len(shape) and all(m in (1, n) for m, n in zip(shape_from[::-1], shape[::-1]))


def copy(a, order: str = "C") -> Tracer:
    trace = trace_of(a)
    out = fresh(trace, "copy", [a], shape_of(a), a.dtype, layout=like_order(a, order))
    known = trace.known_value(a) if isinstance(a, Tracer) else None
    if known is not None:  # NB: the copy of a constant (a scalar read of np.arange(1, 7)) is known too
        trace.know(out, known)
    return out


HOOKS.update(getitem=getitem, setitem=setitem, copy=copy)


@implements(np.copyto)
def copyto(dst, src, casting="same_kind", where=True):
    if not isinstance(dst, Tracer):
        raise untraced_target("np.copyto")
    if dst.scalar:
        raise located(TypeError, f"copyto() argument 1 must be a numpy.ndarray, not {dst.type_name}")
    if isinstance(src, Tracer) and (src.storage, src.header, src.dtype) == (dst.storage, dst.header, dst.dtype):
        return None  # NB: NumPy returns before any check when src is dst's very memory
    dst.check_writeable()  # NB: then a read-only destination, before the cast and the shapes
    trace = dst._trace
    if isinstance(src, (list, tuple)):  # NB: array_like: an array, not weak (NumPy 2)
        src = sequence_as_array(src) if has_tracer(src) else np.asarray(src)
    # NB: NumPy 2 decides the cast: Python scalars are weak (3 into uint8 is fine, 0.5 into int is
    # not), NumPy scalars are strong (np.float64 subclasses float but casts like an array).
    weak = type(src) in (int, float, complex, bool)
    probe = src if weak else np.empty((), src.dtype if isinstance(src, Tracer) else np.result_type(src))
    np.copyto(np.empty((), dst.dtype), probe, casting=casting)
    if not weak:
        check_cast_flags(probe.dtype, dst.dtype)
    _check_value_shape(src, dst.shape)
    if type(src) in (float, complex):  # NB: NumPy casts its float64/complex128 value (1j into floats: 0.0)
        src = np.asarray(src)
    ins = [as_operand(trace, src, dst.dtype)]
    if where is True:
        trace.write("copy", ins, [dst])
    else:
        _check_mask_shape(shape_of(where), dst.shape)
        if isinstance(where, Tracer):  # NB: NumPy copies an overlapping src first, never the mask
            _refuse_overlapping_mask(where, V.broadcast_to(where.header, dst.shape), dst,
                                     "np.copyto(dst, src, where=mask)")
        trace.write("select", [where, ins[0], dst], [dst])


def fill(a: Tracer, value) -> None:
    if not isinstance(value, Tracer):  # NB: NumPy's own conversion of a constant, and its errors
        converted = np.zeros((), a.dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NB: a cast's overflow, as NumPy's (which warns)
            converted.fill(value)
        value = converted
    if a.scalar:
        return  # NB: as NumPy: a scalar's fill fills a copy of it, and the scalar stays
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
    check_elements(val, a.dtype)
    val = sequence_as_array(val)
    if isinstance(val, Tracer) and np.shares_memory(val, a):
        raise located(UnsupportedError, "np.fill_diagonal from values that overlap the array: NumPy writes one "
                      "element at a time and reads elements it has written; copy the values first")
    if isinstance(val, (bool, int, float, complex)):  # NB: converted as NumPy does (300 into int8: OverflowError)
        target[...] = val
    elif int(np.prod(shape_of(val))):  # NB: NumPy's flat write: the values repeat cyclically (none write nothing)
        target[...] = np.resize(np.ravel(val), target.shape)
