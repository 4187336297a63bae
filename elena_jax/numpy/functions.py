"""NumPy functions on tracers: views, joins, reductions, and the rest.

View functions (``np.reshape``, ``np.transpose``, ``np.broadcast_to`` ...)
return views exactly when NumPy does, through the View algebra. Functions
that return fresh arrays record one op. Most record the generic ``jnp`` op --
"apply ``jax.numpy.<name>`` to these operands" -- whose result shape comes
from JAX's abstract evaluation and whose dtype comes from NumPy itself, run on
a one-element stand-in of each operand, so dtypes are NumPy's.
"""

from __future__ import annotations

import contextlib
import inspect
import operator
import string
import warnings

import numpy as np

try:  # NB: NumPy's private steps of np.pad (named so since NumPy 2.0); without them jax.numpy's pad
    import numpy.lib._arraypad_impl as _arraypad
except ImportError:  # pragma: no cover
    _arraypad = None

from .. import view as V
from ..errors import ConcretizationError, UnsupportedError, located, user_location
from ..tracer import HOOKS, UFUNCS, Tracer
from ._core import (
    as_ufunc_result,
    broadcast_shapes,
    check_cast,
    check_cast_flags,
    check_out_array,
    check_sort_kind,
    dtype_of,
    fresh,
    has_tracer,
    implements,
    laid_out,
    leaves,
    like_order,
    memory_order,
    probe,
    promoted_as,
    raise_where,
    result_dtype,
    run_numpy,
    sequence_as_array,
    shape_of,
    trace_of,
    untraced_target,
)
from .creation import arrays_from_lists, asarray, constant, intercept
from .ufuncs import _result, reduce_axes, reduced_shape


def _arr(x) -> Tracer:
    return x if isinstance(x, Tracer) else asarray(x)


# --- views ---------------------------------------------------------------------


@implements(np.reshape)
def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    return _arr(a).reshape(shape if shape is not None else newshape, order=order, copy=copy)


@implements(np.ravel)
def ravel(a, order="C"):
    return _arr(a).ravel(order)


@implements(np.transpose)
def transpose(a, axes=None):
    return _arr(a).transpose(axes)


@implements(np.swapaxes)
def swapaxes(a, axis1, axis2):
    return _arr(a).swapaxes(axis1, axis2)


@implements(np.moveaxis)
def moveaxis(a, source, destination):
    a = _arr(a)
    return a.view_of(V.moveaxis(a.header, source, destination))


@implements(np.squeeze)
def squeeze(a, axis=None):
    return _arr(a).squeeze(axis)


@implements(np.expand_dims)
def expand_dims(a, axis):
    a = _arr(a)
    return a.view_of(V.expand_dims(a.header, axis))


@implements(np.flip)
def flip(m, axis=None):
    """NB: NumPy's flips (and rot90 built from them) are views: negative-step basic indexing."""
    m = _arr(m)
    axes = range(m.ndim) if axis is None else [V.normalize_axis(a, m.ndim) for a in np.atleast_1d(axis)]
    return m[tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(m.ndim))]


@implements(np.fliplr)
def fliplr(m):
    m = _arr(m)
    if m.ndim < 2:
        raise located(ValueError, "Input must be >= 2-d.")
    return m[:, ::-1]


@implements(np.flipud)
def flipud(m):
    m = _arr(m)
    if m.ndim < 1:
        raise located(ValueError, "Input must be >= 1-d.")
    return m[::-1]


@implements(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    """As NumPy's rot90 (a view): flips and a transpose of the two axes."""
    m = _arr(m)
    if len(axes) != 2 or m.ndim < 2 or axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        np.rot90(np.empty((1,) * m.ndim), k, axes)  # NumPy's own error for bad axes
    a0, a1 = (V.normalize_axis(a, m.ndim) for a in axes)
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return np.transpose(flip(m, a1), perm) if k == 1 else flip(np.transpose(m, perm), a1)


@implements(np.diagonal)
def diagonal(a, offset=0, axis1=0, axis2=1):
    return _arr(a).diagonal(offset, axis1, axis2)


@implements(np.broadcast_to)
def broadcast_to(array, shape, subok=False):
    a = _arr(array)
    try:
        new = V.broadcast_to(a.header, shape if np.iterable(shape) else (shape,))
    except ValueError as e:
        raise located(ValueError, str(e)) from None
    return a.view_of(new, writeable=False)  # NB: NumPy's broadcast views are read-only


@implements(np.broadcast_arrays)
def broadcast_arrays(*args, subok=False):
    """Read-only broadcast views; but as NumPy, the arrays themselves (writable) where every shape
    is the broadcast one."""
    shape = np.broadcast_shapes(*map(shape_of, args))
    if all(shape_of(a) == shape for a in args):
        return tuple(_arr(a) for a in args)
    return tuple(broadcast_to(a, shape) for a in args)


@implements(np.meshgrid)
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """NumPy's steps: each operand raveled (a scalar is one value, a matrix all of its values)
    along an axis of its own, the first two swapped for 'xy'; broadcast against each other
    unless sparse, and copied unless told not to (the views are then read-only)."""
    if indexing not in ("xy", "ij"):
        raise located(ValueError, "Valid values for `indexing` are 'xy' and 'ij'.")
    axes = list(range(len(xi)))
    if indexing == "xy" and len(xi) > 1:
        axes[:2] = 1, 0
    grids = [reshape(a, [-1 if d == axis else 1 for d in range(len(xi))]) for a, axis in zip(xi, axes)]
    if not sparse:
        grids = broadcast_arrays(*grids)
    return tuple(g.copy() for g in grids) if copy else tuple(grids)


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """NumPy's strides are in bytes of its memory; here, steps over ``x``'s storage, whose
    elements lie ``_pitch(x)`` bytes apart in that memory."""
    x = _arr(x)
    shape = x.shape if shape is None else tuple(shape)
    strides = x.strides if strides is None else tuple(strides)
    pitch = _pitch(x)
    if pitch is None:
        raise located(UnsupportedError, "as_strided of a view in another type whose elements are not evenly "
                                        "spaced in memory (a part of a sliced complex array, say)")
    if any(s % pitch for s in strides):
        raise located(UnsupportedError, "as_strided with strides that are not whole elements")
    new = V.View.make(shape, [s // pitch for s in strides], x.header.offset)
    lo, hi = new.span()
    if lo < 0 or hi > x.storage.size:
        raise located(UnsupportedError, "as_strided view outside its storage (NumPy would read arbitrary memory)")
    return x.view_of(new, writeable=writeable and x.writeable)


intercept(np.lib.stride_tricks, "as_strided", as_strided)  # NB: not dispatched by __array_function__


def _pitch(x: Tracer) -> int | None:
    """The bytes between consecutive elements of ``x``'s storage in the memory NumPy would give
    it: the itemsize, but for a view in another type (``c.real``: 16), None if they are uneven."""
    if x.storage.id not in x._trace.base_of:
        return x.itemsize
    _, starts, _ = x._trace.memory(x.view_of(V.contiguous(x.storage.shape)))
    steps = set(np.diff(starts).tolist())
    return x.itemsize if not steps else steps.pop() if len(steps) == 1 else None


def _atleast(n: int, pad):
    """``np.atleast_{n}d``: views with unit axes added where NumPy adds them."""

    def impl(*arys):
        outs = []
        for a in arys:
            a = _arr(a)
            outs.append(a if a.ndim >= n else a.reshape(pad(a)))
        return outs[0] if len(outs) == 1 else tuple(outs)

    return impl


_ATLEAST_3D = {0: lambda a: (1, 1, 1), 1: lambda a: (1, a.size, 1), 2: lambda a: a.shape + (1,)}
implements(np.atleast_1d)(_atleast(1, lambda a: (1,)))
implements(np.atleast_2d)(_atleast(2, lambda a: (1,) * (2 - a.ndim) + a.shape))
implements(np.atleast_3d)(_atleast(3, lambda a: _ATLEAST_3D[a.ndim](a)))
# --- copies ----------------------------------------------------------------------


@implements(np.copy)
def copy(a, order="K", subok=False):
    return HOOKS["copy"](_arr(a), order)


def astype(a: Tracer, dtype, order="K", casting="unsafe", subok=True, copy=True):
    dtype = np.dtype(dtype)
    check_cast(a.dtype, dtype, casting)
    check_cast_flags(a.dtype, dtype)
    if dtype == a.dtype and not copy:
        return a
    r = fresh(a._trace, "copy", [a], a.shape, dtype, layout=like_order(a, order))
    r.scalar = a.scalar  # NB: a NumPy scalar's astype is a scalar (np.mean's quotient, round(a.mean(), 2))
    return r


@implements(np.concatenate)
def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = [_arr(a) for a in arrays]
    if axis is None:
        arrays, axis = [a.ravel() for a in arrays], 0
    nd = arrays[0].ndim
    if nd == 0:
        raise located(ValueError, "zero-dimensional arrays cannot be concatenated")
    axis = V.normalize_axis(axis, nd)
    for k, a in enumerate(arrays):  # NB: NumPy's checks and messages, in its order
        if a.ndim != nd:
            raise located(ValueError, f"all the input arrays must have same number of dimensions, but the array "
                          f"at index 0 has {nd} dimension(s) and the array at index {k} has {a.ndim} dimension(s)")
        for i, (n, m) in enumerate(zip(arrays[0].shape, a.shape)):
            if i != axis and n != m:
                raise located(ValueError, "all the input array dimensions except for the concatenation axis must "
                              f"match exactly, but along dimension {i}, the array at index 0 has size {n} and the "
                              f"array at index {k} has size {m}")
    if out is not None and dtype is not None:
        raise located(TypeError, "concatenate() only takes `out` or `dtype` as an argument, but both were provided.")
    res_dtype = np.dtype(dtype) if dtype is not None else result_dtype(*arrays)
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    if out is not None:
        check_out_array(out, "'out' must be an array")
        if out.shape != tuple(shape):
            raise located(ValueError, "Output array is the wrong shape")
    for a in arrays:  # NB: NumPy casts each array into the result (or out=) under casting=
        check_cast(a.dtype, res_dtype if out is None else out.dtype, casting)
    if isinstance(out, Tracer) and any(isinstance(a, Tracer) and np.shares_memory(out, a) for a in arrays):
        # NB: NumPy assigns the pieces one after another: a later piece reads what an earlier one
        # wrote (``np.concatenate([a[2:4], a[0:2]], out=a[0:4])``; acceptance campaign E, session 29)
        start = 0
        for a in arrays:
            out[(slice(None),) * axis + (slice(start, start + a.shape[axis]),)] = a
            start += a.shape[axis]
        return out
    r = _result(trace_of(*arrays), "concatenate", arrays, tuple(shape), res_dtype, out,
                dict(axis=axis, dtype=res_dtype))
    return r if out is not None else _numpy_layouts(np.concatenate, (arrays, axis), {}, [r])[0]


@implements(np.stack)
def stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = [_arr(a) for a in arrays]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise located(ValueError, "all input arrays must have the same shape")
    axis = V.normalize_axis(axis, arrays[0].ndim + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis, out, dtype, casting)


@implements(np.vstack)
def vstack(tup, *, dtype=None, casting="same_kind"):
    return concatenate([np.atleast_2d(a) for a in tup], 0, dtype=dtype, casting=casting)


@implements(np.hstack)
def hstack(tup, *, dtype=None, casting="same_kind"):
    arrs = [np.atleast_1d(a) for a in tup]
    return concatenate(arrs, 0 if arrs[0].ndim == 1 else 1, dtype=dtype, casting=casting)


@implements(np.dstack)
def dstack(tup):
    return concatenate([np.atleast_3d(a) for a in tup], 2)


@implements(np.column_stack)
def column_stack(tup):
    columns = [_arr(a) for a in tup]
    return concatenate([a.reshape(-1, 1) if a.ndim < 2 else a for a in columns], 1)


@implements(np.where)
def where(condition, x=None, y=None):
    if x is None and y is None:  # NB: np.nonzero's, as static as NumPy's for a condition of constants
        if _known(condition) is None:
            raise ConcretizationError(f"np.where(condition) has a data-dependent output shape\n  at {user_location()}")
        return np.nonzero(condition)
    if x is None or y is None:
        raise located(ValueError, "either both or neither of x and y should be given")
    trace = trace_of(condition, x, y)
    # NB: lists are arrays here (np.where(m, [1., 2.], a)); Python scalars stay weak
    condition, x, y = (np.asarray(v) if isinstance(v, (list, tuple)) else v
                       for v in map(sequence_as_array, (condition, x, y)))
    dtype = np.result_type(*map(promoted_as, (x, y)))
    shape = broadcast_shapes(*map(shape_of, (condition, x, y)))
    return fresh(trace, "where", [condition, x, y], shape, dtype, layout=memory_order(shape, [condition, x, y]))


@implements(np.clip)
def clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue, max=np._NoValue, **kw):
    lo = a_min if a_min is not np._NoValue else min
    hi = a_max if a_max is not np._NoValue else max
    lo = None if lo is np._NoValue else lo
    hi = None if hi is np._NoValue else hi
    dtype = a.dtype if isinstance(a, Tracer) else np.asarray(a).dtype
    if dtype.kind in "iu":  # NB: as NumPy's _clip: Python-int bounds beyond the dtype's range are dropped
        if type(lo) is int and lo <= np.iinfo(dtype).min:
            lo = None
        if type(hi) is int and hi >= np.iinfo(dtype).max:
            hi = None
    if lo is None and hi is None:  # NB: NumPy >= 2.1: no bounds is the identity (it raised ValueError before)
        return np.positive(a, out=out, **kw)
    # NB: NumPy 2 implements clip as the ufunc np._core.umath.clip
    if lo is None:
        return np.minimum(a, hi, out=out, **kw)
    if hi is None:
        return np.maximum(a, lo, out=out, **kw)
    return np._core.umath.clip(a, lo, hi, out=out, **kw)


# --- reductions ------------------------------------------------------------------


def _reduction(ufunc):
    def impl(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        return ufunc.reduce(_arr(a), axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                            initial=initial, where=where)

    return impl


for _f, _u in [(np.sum, np.add), (np.prod, np.multiply), (np.max, np.maximum), (np.amax, np.maximum),
               (np.min, np.minimum), (np.amin, np.minimum)]:
    implements(_f)(_reduction(_u))


def _bool_reduction(ufunc):
    def impl(a, axis=None, out=None, keepdims=False, *, where=True):
        return ufunc.reduce(_arr(a), axis=axis, dtype=bool, out=out, keepdims=keepdims, where=where)

    return impl


implements(np.any)(_bool_reduction(np.logical_or))
implements(np.all)(_bool_reduction(np.logical_and))


def _count(a, axes, keepdims: bool, where):
    """How many elements a reduction over ``axes`` takes, per result element (NumPy's count): an
    intp, so that a division by it is in their common type, as NumPy's (a complex64 sum's in
    complex128: dividing in complex64 was an ulp off in half of the means)."""
    if where is True:
        return np.intp(np.prod([a.shape[i] for i in axes], dtype=np.intp))
    return np.sum(np.broadcast_to(where, a.shape), axis=axes, keepdims=keepdims)


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    a = _arr(a)
    axes = reduce_axes(axis, a.ndim)
    half = dtype is None and a.dtype == np.float16  # NB: NumPy sums float16 in float32
    if dtype is None and (half or a.dtype.kind in "biu"):
        dtype = np.dtype("f8") if a.dtype.kind in "biu" else np.dtype("f4")
    # NB: otherwise NumPy passes no dtype, so a float32 mean into a float64 out= sums in float64
    total = np.add.reduce(a, axis=axes, dtype=dtype, out=out, keepdims=keepdims, where=where)
    count = _count(a, axes, keepdims, where)
    if out is not None:  # NB: NumPy divides the sum in out, in out's type (unsafely: truncating)
        return np.true_divide(out, count, out=out, casting="unsafe")
    # NB: NumPy divides by the count in their common type and casts the quotient back, unsafely
    # (truncating an integer dtype's)
    return np.true_divide(total, count).astype(np.float16 if half else a.dtype if dtype is None else dtype)


@contextlib.contextmanager
def _in_place(x: Tracer):
    """``x``, a NumPy scalar to the user (a 0-d sum), written in place as the 0-d array NumPy's own
    means and variances write before they return it: a scalar is no out= (check_out_array)."""
    scalar, x.scalar = x.scalar, False
    try:
        yield x
    finally:
        x.scalar = scalar


def _divided_in_place(total: Tracer, count) -> Tracer:
    """``total / count`` cast into total (unsafely), as NumPy's means and variances divide."""
    with _in_place(total):
        return np.true_divide(total, count, out=total, casting="unsafe")


def _deviations(a, axes, dtype, ddof, keepdims, where, mean, correction):
    """NumPy's variance, step by step as its ``_var``: the mean (kept dims, divided in place),
    the deviations squared (a complex one as re**2 + im**2), their sum, divided by the count
    less ``ddof``; so its sums are NumPy's too (lower/summation.py)."""
    ddof = _ddof(ddof, correction)
    if not isinstance(ddof, Tracer):
        operator.ge(ddof, np.intp(1))  # NB: NumPy's first use of ddof, raising its UFuncTypeError for ddof="one"
    count = _count(a, axes, keepdims, where)
    if dtype is None and a.dtype.kind in "biu":
        dtype = np.dtype("f8")
    if mean is np._NoValue:
        total = np.add.reduce(a, axis=axes, dtype=dtype, keepdims=True, where=where)
        div = count if where is True else np.reshape(count, total.shape)
        mean = _divided_in_place(total, div)
    x = a - mean
    if a.dtype.kind == "c":
        x = np.add(np.multiply(x.real, x.real), np.multiply(x.imag, x.imag))
    else:
        x = np.multiply(x, x)
    return x, count - ddof, dtype


def _ddof(ddof, correction):
    """The degrees of freedom taken off a variance's count: ``ddof`` or its newer name."""
    if correction is np._NoValue:
        return ddof
    if ddof != 0:
        raise located(ValueError, "ddof and correction can't be provided simultaneously.")
    return correction


@implements(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=np._NoValue,
        correction=np._NoValue):
    a = _arr(a)
    axes = reduce_axes(axis, a.ndim)
    x, count, dtype = _deviations(a, axes, dtype, ddof, keepdims, where, mean, correction)
    total = np.add.reduce(x, axis=axes, dtype=dtype, out=out, keepdims=keepdims, where=where)
    return _divided_in_place(total, np.maximum(count, 0))


@implements(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=np._NoValue,
        correction=np._NoValue):
    return _root(var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction), out)


def _root(v, out):
    """The standard deviation from a variance, in place as NumPy's."""
    if out is None and v.ndim == 0:  # NB: NumPy's scalar: its root cast back to its type, unsafely
        return np.sqrt(v).astype(v.dtype)
    return np.sqrt(v, out=v)


def _without_nans(a, value):
    """NumPy's ``_replace_nan``: an inexact ``a`` copied with its NaNs replaced by ``value`` (laid
    out as ``a``, so its sums are NumPy's), and the mask; any other ``a`` as it is, and None."""
    if a.dtype.kind not in "fc":
        return a, None
    mask = np.isnan(a)
    return np.where(mask, value, a), mask


def _nan_reduction(reduction, value):
    """NumPy's ``nansum`` and ``nanprod``: the reduction of a copy with NaNs replaced by ``value``."""
    def impl(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        a, _ = _without_nans(_arr(a), value)
        return reduction(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where)

    return impl


implements(np.nansum)(_nan_reduction(np.sum, 0))
implements(np.nanprod)(_nan_reduction(np.prod, 1))


@implements(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    a, mask = _without_nans(_arr(a), 0)
    if mask is None:
        return np.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)
    _check_inexact(dtype, out)
    count = np.sum(~mask, axis=axis, dtype=np.intp, keepdims=keepdims, where=where)
    total = np.sum(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)
    return _divided_in_place(total, count)


@implements(np.nanvar)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=np._NoValue,
           correction=np._NoValue):
    """NumPy's ``nanvar`` step by step: NaNs replaced by 0 and counted out, the mean of the rest,
    the deviations (0 where NaN) squared and summed in NumPy's order, divided by the count less
    ``ddof``; NaN where that is not positive (NumPy warns there; a warning from values cannot be
    raised at trace time)."""
    a, mask = _without_nans(_arr(a), 0)
    if mask is None:
        return np.var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, where=where,
                      mean=mean, correction=correction)
    _check_inexact(dtype, out)
    ddof = _ddof(ddof, correction)
    count = np.sum(~mask, axis=axis, dtype=np.intp, keepdims=True, where=where)
    if mean is np._NoValue:
        mean = np.sum(a, axis=axis, dtype=dtype, keepdims=True, where=where)
        mean = _divided_in_place(mean, count)
    x = np.subtract(a, mean, out=a, casting="unsafe", where=where)
    np.copyto(x, 0, where=mask)
    if x.dtype.kind == "c":
        x = np.multiply(x, np.conj(x), where=where).real
    else:
        x = np.multiply(x, x, where=where)
    total = np.sum(x, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)
    dof = (count if keepdims else np.squeeze(count, reduce_axes(axis, a.ndim))) - ddof
    quotient = _divided_in_place(total, dof)
    with _in_place(quotient):
        np.copyto(quotient, np.nan, where=dof <= 0)
    return quotient


@implements(np.nanstd)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=np._NoValue,
           correction=np._NoValue):
    return _root(nanvar(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction), out)


def _check_inexact(dtype, out) -> None:
    """NumPy's nan-functions compute NaN-free copies of an inexact array in an inexact type."""
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        raise located(TypeError, "If a is inexact, then dtype must be inexact")
    if out is not None and out.dtype.kind not in "fc":
        raise located(TypeError, "If a is inexact, then out must be inexact")


@implements(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=np._NoValue):
    """NumPy's ``average`` step by step: the mean, or the sum of the weighted values over the sum
    of the weights, each in NumPy's order. NumPy raises ZeroDivisionError where the weights sum
    to zero, a fact of the values: checked mode raises it too (`raise_where`), else the
    quotient is inf or NaN."""
    a = _arr(a)
    axes = None if axis is None else reduce_axes(axis, a.ndim)
    kw = {} if keepdims is np._NoValue else {"keepdims": keepdims}
    if weights is None:
        avg = np.mean(a, axis=axes, **kw)
        scale = avg.dtype.type(a.size / avg.size)
    else:
        w = _arr(weights)
        if a.shape != w.shape:
            if axes is None:
                raise located(TypeError, "Axis must be specified when shapes of a and weights differ.")
            if w.shape != tuple(a.shape[i] for i in axes):
                raise located(ValueError, "Shape of weights must be consistent with shape of a along "
                                          "specified axis.")
            w = w.transpose(np.argsort(axes)).reshape([n if i in axes else 1 for i, n in enumerate(a.shape)])
        floats = ("f8",) if a.dtype.kind in "biu" else ()
        dtype = np.result_type(a.dtype, w.dtype, *floats)
        scale = np.sum(w, axis=axes, dtype=dtype, **kw)
        known = w._trace.known_value(w, laid_out=True) if isinstance(w, Tracer) else None
        # NB: weights known now: NumPy's own sum of them says whether NumPy raises
        raise_where((scale if known is None else np.sum(known, axis=axes, dtype=dtype, **kw)) == 0,
                    ZeroDivisionError, "Weights sum to zero, can't be normalized")
        avg = np.true_divide(np.sum(np.multiply(a, w, dtype=dtype), axis=axes, **kw), scale)
    if not returned:
        return avg
    if np.shape(scale) != avg.shape:
        scale = np.broadcast_to(scale, avg.shape).copy()
    return avg, scale


@implements(np.fix)
def fix(x, out=None):
    """Rounding towards zero: NumPy's np.fix is np.trunc, dtypes included (JAX 0.10 has no jnp.fix)."""
    return np.trunc(x, out=out)


@implements(np.round, np.around)
def round_(a, decimals=0, out=None):
    """As NumPy's ``PyArray_Round``: ``rint(a * 10**d) / 10**d`` (``rint(a / 10**-d) * 10**-d``
    for negative ``d``), with the factor a Python float; integers with ``d >= 0`` are copied,
    with ``d < 0`` computed in float64 and cast back; complex numbers part by part. Half-way cases
    round to even."""
    a = _arr(a)
    dtype = _numpy_dtypes(np.round, (a, decimals), {})[0]  # NumPy's own errors and dtype
    if a.dtype.kind == "c":  # NB: NumPy rounds each part as a float (its complex product was an ulp off)
        r = np.empty_like(a)
        r.real, r.imag = round_(a.real, decimals), round_(a.imag, decimals)
    elif decimals == 0 and a.dtype.kind not in "iu":
        r = np.rint(a)
    elif a.dtype.kind in "iu" and decimals >= 0:
        r = np.copy(a)
    else:
        x = a.astype(np.float64) if a.dtype.kind in "iub" else a
        if decimals > 0:
            f = 10.0 ** decimals
            r = np.true_divide(np.rint(np.multiply(x, f)), f)
        else:
            f = 10.0 ** -decimals
            r = np.multiply(np.rint(np.true_divide(x, f)), f)
        r = laid_out(r, memory_order(a.shape, [a], "A"))  # NB: NumPy's result here is in order 'A'
    if out is not None and a.dtype.kind in "iu" and decimals >= 0 and isinstance(out, Tracer) \
            and out.storage is a.storage and out.header == a.header and out.dtype == a.dtype:
        return out  # NB: NumPy copies integers into out, and not at all into the same memory: even read-only
    if out is not None:
        _check_round_out(a, decimals, out)
        out[...] = r
        return out
    return r if r.dtype == dtype else r.astype(dtype)


def _check_round_out(a, decimals: int, out) -> None:
    """NumPy rounds into ``out`` with ufuncs (``multiply``, ``rint``, ``true_divide``) whose outputs
    are cast as ufuncs cast: its errors come from a one-element probe of the same dtypes."""
    check_out_array(out, "output must be an array")
    if out.size != a.size:
        raise located(ValueError, "invalid output shape")
    if out.shape != a.shape:
        raise located(ValueError, f"operands could not be broadcast together with shapes {a.shape} () {out.shape}")
    with np.errstate(all="ignore"):
        np.round(np.ones(1, a.dtype), decimals, out=np.empty(1, out.dtype))


def _along_axis_key(shape, indices, axis: int) -> tuple:
    """NumPy's index of an array of ``shape`` for take/put_along_axis: ``indices`` along ``axis``,
    every other axis's positions broadcast against them (NumPy's errors of the indices)."""
    if not isinstance(indices, Tracer):
        indices = np.asarray(indices)
    if indices.dtype.kind not in "iu":
        raise located(IndexError, "`indices` must be an integer array")
    if indices.ndim != len(shape):
        raise located(ValueError, "`indices` and `arr` must have the same number of dimensions")
    return tuple(indices if dim == axis else np.arange(n).reshape([n if d == dim else 1 for d in range(len(shape))])
                 for dim, n in enumerate(shape))


@implements(np.take_along_axis)
def take_along_axis(arr, indices, axis=-1):
    """``arr[index grid with indices along axis]``, as NumPy builds it: traced indices are read as
    any index array's (jax.numpy's take_along_axis filled those out of range with NaN or garbage)."""
    arr = arr if isinstance(arr, Tracer) else constant(np.asarray(arr))
    if axis is None:
        if len(shape_of(indices)) != 1:
            raise located(ValueError, "when axis=None, `indices` must have a single dimension.")
        arr, axis = arr.ravel(), 0
    return arr[_along_axis_key(arr.shape, indices, V.normalize_axis(axis, arr.ndim))]


@implements(np.put_along_axis)
def put_along_axis(arr, indices, values, axis):
    """A write: ``arr[index grid with indices along axis] = values``, as NumPy builds it."""
    if not isinstance(arr, Tracer):
        raise untraced_target("np.put_along_axis")
    if axis is None:
        if not arr.flags.c_contiguous:
            raise located(UnsupportedError, "np.put_along_axis(axis=None) of a non-contiguous view")
        arr, axis = arr.reshape(-1), 0
    arr[_along_axis_key(arr.shape, indices, V.normalize_axis(axis, arr.ndim))] = values


def _arg_reduction(name):
    def impl(a, axis=None, out=None, *, keepdims=False):
        a = _arr(a)
        axes = reduce_axes(axis, a.ndim)
        if a.size == 0 and (axis is None or a.shape[axes[0]] == 0):  # NB: NumPy minds only that axis
            raise located(ValueError, f"attempt to get {name} of an empty sequence")
        shape = reduced_shape(a.shape, axes, keepdims) if axis is not None else \
            ((1,) * a.ndim if keepdims else ())
        if out is not None and hasattr(out, "dtype"):
            # NB: NumPy checks the cast from out to its index type (out of uint64 or float is refused)
            check_cast(out.dtype, np.intp, "safe")
        return _result(a._trace, "argreduce", [a], shape, np.dtype(np.intp), out,
                       dict(name=name, axis=None if axis is None else axes[0], keepdims=keepdims))

    return impl


implements(np.argmax)(_arg_reduction("argmax"))
implements(np.argmin)(_arg_reduction("argmin"))


def _scan(ufunc):
    def impl(a, axis=None, dtype=None, out=None):
        a = _arr(a)
        if axis is None:
            a, axis = a.ravel(), 0
        if dtype is None and a.dtype.kind in "biu" and a.dtype.itemsize < 8:
            dtype = np.dtype("u8" if a.dtype.kind == "u" else "i8")
        return ufunc.accumulate(a, axis=axis, dtype=dtype, out=out)

    return impl


implements(np.cumsum)(_scan(np.add))
implements(np.cumprod)(_scan(np.multiply))


def _nan_scan(scan, fill):
    """``np.nancumsum`` / ``np.nancumprod``: NaNs replaced by ``fill``, then the running scan."""
    def impl(a, axis=None, dtype=None, out=None):
        a = _arr(a)
        if a.dtype.kind in "fc":
            a = np.where(np.isnan(a), fill, a)
        return scan(a, axis=axis, dtype=dtype, out=out)

    return impl


implements(np.nancumsum)(_nan_scan(np.cumsum, 0))
implements(np.nancumprod)(_nan_scan(np.cumprod, 1))


def _cumulative(ufunc):
    """``np.cumulative_sum`` / ``np.cumulative_prod``: the ufunc's accumulate along ``axis``
    (needed beyond one dimension), with ``include_initial`` its identity first."""
    def impl(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        x = np.atleast_1d(_arr(x))
        if axis is None:
            if x.ndim >= 2:
                raise located(ValueError, "For arrays which have more than one dimension ``axis`` argument "
                              "is required.")
            axis = 0
        if not include_initial:
            return ufunc.accumulate(x, axis=axis, dtype=dtype, out=out)
        axis = V.normalize_axis(axis, x.ndim)
        if out is not None:
            ufunc.accumulate(x, axis=axis, dtype=dtype, out=out[(slice(None),) * axis + (slice(1, None),)])
            out[(slice(None),) * axis + (0,)] = ufunc.identity
            return out
        res = ufunc.accumulate(x, axis=axis, dtype=dtype)
        first = np.full(res.shape[:axis] + (1,) + res.shape[axis + 1 :], ufunc.identity, res.dtype)
        return np.concatenate([first, res], axis=axis)

    return impl


if hasattr(np, "cumulative_sum"):  # NB: NumPy 2.1
    implements(np.cumulative_sum)(_cumulative(np.add))
    implements(np.cumulative_prod)(_cumulative(np.multiply))


# --- everything else: apply jax.numpy.<name> -----------------------------------------


def _layout_probe(x):
    """``x`` as a small NumPy array laid out in memory as ``x`` is (see `_numpy_layouts`): at most
    3 elements per axis, axes in the same stride order and direction, and a gap wherever ``x`` has
    one (so its contiguity flags are ``x``'s: np.pad, for one, looks at them)."""
    if isinstance(x, Tracer):
        v = x.header
        small = [min(n, 3) for n in v.shape]
        strides, whole, probe_whole = [0] * v.ndim, 1, 1  # whole: the stride of a gapless next axis
        for i in sorted((i for i in range(v.ndim) if v.strides[i] and v.shape[i] > 1), key=lambda i: abs(v.strides[i])):
            strides[i] = probe_whole if abs(v.strides[i]) == whole else probe_whole + 1
            whole, probe_whole = abs(v.strides[i]) * v.shape[i], strides[i] * small[i]
        buffer = np.ones(probe_whole + 1, x.dtype)
        p = np.lib.stride_tricks.as_strided(buffer, small, [s * x.itemsize for s in strides])
        return p[tuple(slice(None, None, -1 if s < 0 else 1) for s in v.strides)]
    if isinstance(x, (list, tuple)):
        return type(x)(_layout_probe(v) for v in x)
    return x


def _numpy_layouts(func, args, kwargs, results: list[Tracer]) -> list[Tracer]:
    """``results`` laid out in memory as NumPy lays out its results when an operand is not in C
    order (np.sort of a.T is Fortran ordered): NumPy is run on small probes laid out as the
    operands, and a result it orders otherwise is copied into that order. Where the probes cannot
    tell (NumPy refuses them, or an axis shrinks to one element), the result stays in C order."""
    tracers = [x for x in leaves([list(args), list(kwargs.values())]) if isinstance(x, Tracer)]
    if all(memory_order(x.shape, [x]) == tuple(range(x.ndim)) for x in tracers):
        return results
    try:
        probed = run_numpy(func, _layout_probe(list(args)), {k: _layout_probe(v) for k, v in kwargs.items()})
    except Exception:  # noqa: BLE001 (a probe NumPy refuses tells nothing)
        return results
    probed = probed if isinstance(probed, (tuple, list)) else [probed]
    out = []
    for r, p in zip(results, probed):
        p = np.asarray(p)
        if p.ndim != r.ndim or any(n > 1 and m == 1 for n, m in zip(r.shape, p.shape)):
            out.append(r)
            continue
        out.append(laid_out(r, tuple(sorted(range(r.ndim), key=lambda i: -p.strides[i] if p.shape[i] > 1 else 0))))
    return out


def _numpy_dtypes(func, args, kwargs):
    """NumPy's result dtype(s), from running ``func`` on one-element stand-ins (or, where
    NumPy refuses those, on probes of the full shapes, raising NumPy's error if it refuses)."""
    r = probe(func, args, kwargs)
    if r is None:
        try:
            r = run_numpy(func, args, kwargs, full=True)
        except np.linalg.LinAlgError as e:  # NB: a matrix of ones is singular: NumPy arrays cut beside traced ones
            _raise_of_shapes(e)  # (np.linalg.solve(np.diag(traced), np.ones(3))), else values in general
            r = _of_values_apart(func, args, kwargs)  # position (np.polyfit(x, y, 1, cov=True))
            if r is None:
                return None
        except (TypeError, ValueError, IndexError) as e:
            raise e from None
        except Exception:
            return None
    return [np.asarray(x).dtype for x in r] if isinstance(r, (tuple, list)) else [np.asarray(r).dtype]


RANDOM_STAND_INS = 1 << 20  # NB: np.linalg.solve of 1024 x 1024 random values: about 30 ms at trace time


def _of_values_apart(func, args, kwargs):
    """NumPy's result on stand-ins whose matrices are not singular: NumPy arrays cut beside traced
    stand-ins of one element, else (operands of at most `RANDOM_STAND_INS` elements) random values
    of the full shapes; None where NumPy refuses both."""
    with contextlib.suppress(Exception):  # NB: the cut arrays' values or shapes, not the user's
        return run_numpy(func, args, kwargs, constants=True)
    if any(x.size > RANDOM_STAND_INS for x in leaves([list(args), list(kwargs.values())]) if isinstance(x, Tracer)):
        raise located(UnsupportedError, f"np.{func.__name__} of these shapes: NumPy refuses stand-ins of ones "
                      "(a singular matrix), and random stand-ins, which it takes, are made for operands of at "
                      f"most {RANDOM_STAND_INS:,} elements (NumPy's own call on them, at trace time, would cost "
                      "as much as the user's)")
    try:
        return run_numpy(func, args, kwargs, full=True, fill="random")
    except np.linalg.LinAlgError:  # NB: a ValueError, of the values still
        return None
    except (TypeError, ValueError, IndexError) as e:  # NB: of values in general position: of the shapes
        raise e from None  # (np.polyfit(cov=True) of too few points)
    except Exception:  # noqa: BLE001
        return None


def _raise_of_shapes(e: np.linalg.LinAlgError) -> None:
    """NumPy's LinAlgError about the shapes, the user's ("Last 2 dimensions of the array must be
    square", "1-dimensional array given"): its errors of values (a singular matrix) never name dimensions."""
    if "dimension" in str(e):
        raise e from None


def _sort_kind(kwargs: dict) -> dict:
    """NumPy's ``kind=`` as JAX's ``stable=``: stable sorts order ties as NumPy's stable kinds do."""
    kind = kwargs.pop("kind", None)
    check_sort_kind(kind)
    if kind is not None:
        kwargs["stable"] = True
    return kwargs


# Functions NumPy computes in floating point when given integers or bools (std of int32 is
# computed in float64): their integer operands are cast to NumPy's result dtype first, as
# JAX would otherwise compute in its own default float.
FLOAT_COMPUTE = {"median", "nanmedian", "linalg.norm",
                 "linalg.det", "linalg.inv", "linalg.solve", "percentile",
                 "quantile", "nanpercentile", "nanquantile", "interp", "sinc"}
# Of these, the ones NumPy computes in double precision whatever the float type, the result
# rounded to it (its 1-D forward FFTs of float32 and complex64, unnormalized: bit for bit the
# complex128 transform, rounded; with norm='ortho' or 'forward' they are not).
IN_DOUBLE: set[str] = set()
# Sums NumPy accumulates in a widened integer type (int32 -> int64).
WIDENED = {"trace"}
# Functions whose bool operands JAX refuses but NumPy computes as logical arithmetic (a sum
# of products is True exactly when some product is): computed in int32, cast back to bool.
BOOL_AS_INT = {"dot", "matmul", "vdot", "inner", "kron", "outer", "einsum", "tensordot", "vecdot",
               "matvec", "vecmat", "convolve", "correlate"}
# Products and contractions: NumPy multiplies in its result type (int32 x float32 in float64), JAX
# in its own (float32): operands are cast to it first.
PROMOTING = {"dot", "matmul", "vdot", "inner", "kron", "outer", "einsum", "tensordot", "vecdot", "matvec",
             "vecmat", "convolve", "correlate", "diff"}  # NB: np.diff concatenates prepend/append first
# Functions jax.numpy computes in floating point for integer operands unless given the type
# to compute in: NumPy's np.convolve of uint8 wraps in uint8 (a float result would saturate).
INTEGER_EXACT = {"convolve", "correlate"}
# Sums of products NumPy accumulates in float32 for float16 operands (its half loops convert each
# element); jax.numpy's einsum reduces float16 in float16 unless told the type to accumulate in.
HALF_IN_SINGLE = {"dot", "matmul", "vdot", "inner", "einsum", "tensordot", "vecdot", "convolve", "correlate"}
# Static list arguments that JAX wants as arrays: (function, position or keyword) pairs.
LIST_AS_ARRAY = {("take", 1), ("take_along_axis", 1), ("searchsorted", 1), ("choose", 0),
                 ("insert", 1), ("insert", 2)}
# Python scalar arguments NumPy makes arrays of (np.asarray: int64, float64), where jax.numpy keeps
# them weak, in the other operand's type: np.append(uint8_array, 300) appended 44, np.searchsorted
# of it placed 300 as 44, and np.geomspace(float32_value, 1e40) overflowed float32 (acceptance
# campaign E, session 29); the products' two operands too (np.dot's scalars are not weak).
SCALAR_AS_ARRAY = {(name, key) for name, keys in {"append": (0, 1, "arr", "values"),
                                                  "geomspace": (0, 1, "start", "stop"),
                                                  "searchsorted": (1, "v"), "polyval": (1, "x"),
                                                  **dict.fromkeys(BOOL_AS_INT, (0, 1))}.items()
                   for key in keys}


def _prepare(name, args, kwargs, dtypes):
    """Operands as JAX must see them for NumPy's answer (see the tables above)."""
    def as_numpy(key, a):
        if (name, key) in LIST_AS_ARRAY and isinstance(a, (list, tuple)) and not has_tracer(a):
            return np.asarray(a)
        if (name, key) in SCALAR_AS_ARRAY and isinstance(a, (int, float, complex)):
            return np.asarray(a)
        return a

    args = [as_numpy(i, a) for i, a in enumerate(args)]
    kwargs = {k: as_numpy(k, v) for k, v in kwargs.items()}
    if name == "convolve":  # NB: NumPy's operands are arrays of at least one dimension (np.correlate's are not)
        args[:2] = [a.reshape(1) if shape_of(a) == () else a for a in args[:2]]
    if name == "repeat":  # NB: static repeats: JAX needs the total length to trace it
        kwargs = _static_repeats(args, kwargs)
    if name == "interp":  # NB: NumPy interpolates booleans as float64 (jax.numpy refuses them)
        args = [a.astype(np.float64) if getattr(a, "dtype", None) == np.bool_ else a for a in args]
    if name == "argsort" and shape_of(args[0]) == ():  # NB: NumPy sorts a 0-d array as one of one element
        args[0] = args[0].reshape(1)
    if name == "isin":  # NB: NumPy's choice of algorithm (its errors from stand-ins), not of the answer
        kwargs.pop("kind", None)
    if name in ("linalg.eigh", "linalg.eigvalsh", "linalg.cholesky"):  # NB: NumPy reads one triangle only
        kwargs["symmetrize_input"] = False
    target = None
    if dtypes and name in FLOAT_COMPUTE and dtypes[0].kind in "fc":
        target = dtypes[0]
        if name in IN_DOUBLE and kwargs.get("norm", args[3] if len(args) > 3 else None) in (None, "backward"):
            target = np.promote_types(target, np.float64)
    elif dtypes and name in WIDENED and dtypes[0].kind in "iu":
        target = dtypes[0]
    elif dtypes and name in BOOL_AS_INT and dtypes[0] == np.bool_:
        target = np.dtype(np.int32)
    elif dtypes and name in PROMOTING:
        target = dtypes[0]
    if name in INTEGER_EXACT and dtypes and (target or dtypes[0]).kind in "iu":
        kwargs["preferred_element_type"] = target or dtypes[0]
    elif name in HALF_IN_SINGLE and dtypes and dtypes[0] == np.float16:
        kwargs["preferred_element_type"] = np.dtype(np.float32)

    def convert(x):
        if isinstance(x, Tracer) and target is not None:
            # NB: real operands of a complex result stay real (np.fft.rfft of integers)
            to = np.finfo(target).dtype if target.kind == "c" and x.dtype.kind != "c" else target
            if _widens(x.dtype, to, name) or name in PROMOTING and x.dtype != to:
                return x.astype(to)
        if isinstance(x, list) and has_tracer(x):
            return [convert(v) for v in x]
        return x

    # NB: a mask, and np.cov's frequency weights, which must stay integers (jax.numpy's check)
    kept = {"where", "fweights", *((5,) if name == "cov" else ())}
    return ([a if i in kept else convert(a) for i, a in enumerate(args)],
            {k: v if k in kept else convert(v) for k, v in kwargs.items()})


def _widens(dtype: np.dtype, target: np.dtype, name: str) -> bool:
    """Whether NumPy computes on ``dtype`` operands in the wider ``target``: integers in
    FLOAT_COMPUTE and WIDENED functions, and there also narrower floats (np.cov of float32
    data is computed, not only returned, in float64)."""
    if dtype.kind in "biu":
        return True
    return name in FLOAT_COMPUTE and dtype.kind == target.kind and dtype.itemsize < target.itemsize


def _static_repeats(args, kwargs):
    repeats = kwargs.get("repeats", args[1] if len(args) > 1 else None)
    if isinstance(repeats, Tracer):
        raise ConcretizationError(f"np.repeat with traced repeats has a data-dependent shape\n  at {user_location()}")
    a, axis = args[0], kwargs.get("axis", args[2] if len(args) > 2 else None)
    n = int(np.prod(shape_of(a))) if axis is None else shape_of(a)[V.normalize_axis(axis, len(shape_of(a)))]
    total = int(np.broadcast_to(np.asarray(repeats), (n,)).sum())
    if len(args) > 1:
        args[1] = np.asarray(repeats)
    else:
        kwargs = {**kwargs, "repeats": np.asarray(repeats)}
    return {**kwargs, "total_repeat_length": total}


def jnp_function(func, name: str | None = None):
    """Record ``func`` as the generic op: ``jax.numpy.<name>`` on these operands.

    ``out=`` is honoured by writing the result into ``out`` (NumPy's shape check, an
    unsafe cast as NumPy's functions do); when JAX cannot express the call, NumPy is run on
    probes of the operands' shapes so that NumPy's own error is raised, and otherwise an
    UnsupportedError names the function and the user's line.
    """
    name = name or func.__name__

    def refuse(args, kwargs, out, error):
        """Refused as they are: called again with the lists NumPy takes as arrays converted
        (JAX refuses lists, and stand-ins of a list do not shrink with the traced operands;
        converted first, ``np.tile``'s reps would be traced), else NumPy's error, or refused."""
        converted = arrays_from_lists(func, args, kwargs)
        if converted is not None:
            return impl(*converted[0], out=out, **converted[1])
        _refuse(func, name, args, kwargs, error)

    def impl(*args, **kwargs):
        out = kwargs.pop("out", None)
        if name in ("sort", "argsort"):
            kwargs = _sort_kind(dict(kwargs))
        trace = trace_of(*args, *kwargs.values())
        dtypes = _numpy_dtypes(func, args, kwargs)
        if dtypes is None:  # NumPy refuses even one-element stand-ins: its own error, or refuse
            return refuse(args, kwargs, out, None)
        if out is not None:
            _check_out_cast(func, args, kwargs, out)
        if all(x.size == 0 for x in leaves([list(args), list(kwargs.values())]) if isinstance(x, Tracer)):
            return _of_nothing(func, args, kwargs, out)
        jargs, jkwargs = _prepare(name, args, kwargs, dtypes)
        operands = []

        def mark(x):
            if isinstance(x, Tracer) or isinstance(x, np.ndarray):
                operands.append(x)
                return ("arr", len(operands) - 1)
            if isinstance(x, (list, tuple)) and has_tracer(x):  # NB: nested, as np.block's
                return ("seq", type(x).__name__, [mark(v) for v in x])
            return ("static", x)

        template = (tuple(mark(a) for a in jargs), tuple((k, mark(v)) for k, v in jkwargs.items()))
        try:
            avals = HOOKS["eval_shape"](name, template, operands)
        except Exception as e:
            return refuse(args, kwargs, out, e)
        if len(dtypes) != len(avals):
            dtypes = [d for _, d in avals]
        results = trace.define_many("jnp", operands, [(s, d) for (s, _), d in zip(avals, dtypes)],
                                    name=name, template=template, multiple=len(avals) > 1 or None)
        return _returned(name, _numpy_layouts(func, args, kwargs, results), out, len(avals) > 1)

    impl.__name__ = name
    return impl


def _check_out_cast(func, args, kwargs, out) -> None:
    """NumPy's own error for writing the result into ``out`` (np.std of bools into a bool array
    is a UFuncTypeError: its last ufunc casts same_kind), from stand-ins and an ``out`` of its dtype."""
    check_out_array(out, "output must be an array")
    if func is np.dot and isinstance(out, Tracer) and not out.flags.c_contiguous:
        # NB: NumPy's dot writes into out= as a C array only (acceptance campaign E, session 29)
        raise located(ValueError, "output array is not acceptable (must have the right datatype, number of "
                                  "dimensions, and be a C-Array)")
    try:
        r = run_numpy(func, args, kwargs)
    except Exception:  # noqa: BLE001 (refusals are raised, with NumPy's errors, by the call itself)
        return
    if not isinstance(r, (tuple, list)):
        run_numpy(func, args, {**kwargs, "out": np.empty(np.shape(r), out.dtype)})


def _returned(name: str, results: list[Tracer], out, multiple: bool):
    """The results as NumPy returns them, or the one result written into ``out``."""
    check_out_array(out, "output must be an array")
    if out is not None:
        if len(results) != 1 or not isinstance(out, Tracer):
            raise untraced_target(f"np.{name}(out=...)")
        from .indexing import _check_value_shape

        _check_value_shape(results[0], out.shape)
        out[...] = results[0]
        return out
    kind = _RESULT_TYPES.get(name)
    if kind is tuple:
        return tuple(results)
    if kind is not None and multiple:
        return kind._make(results)
    return tuple(results) if multiple else results[0]


def _of_nothing(func, args, kwargs, out):
    """A function of empty arrays only: NumPy's own result on empty stand-ins is the answer,
    values included (the median of nothing is NaN), where JAX may refuse the shapes."""
    r = run_numpy(func, args, kwargs, full=True)
    multiple = isinstance(r, (tuple, list))
    results = [constant(np.array(x)) for x in (r if multiple else [r])]
    if multiple and out is None:  # NB: in NumPy's own container (np.linalg.eigh's EighResult)
        return type(r)._make(results) if hasattr(r, "_make") else type(r)(results)
    return _returned(func.__name__, results, out, multiple)


# NB: NumPy returns np.linalg's results as named tuples (``np.linalg.eigh(a).eigenvectors``),
# read from NumPy itself.
_RESULT_TYPES = {f"linalg.{n}": type(getattr(np.linalg, n)(np.eye(2))) for n in ("slogdet", "svd", "eigh", "qr")}
_RESULT_TYPES["unravel_index"] = tuple  # NB: of one axis too


def _refuse(func, name, args, kwargs, error):
    try:
        run_numpy(func, args, kwargs, full=True)
    except np.linalg.LinAlgError as e:  # NB: of the stand-ins' values (a matrix of ones is singular), not the user's
        _raise_of_shapes(e)
    except (TypeError, ValueError, IndexError, OverflowError) as e:  # NumPy raises on these shapes and dtypes
        raise e from None
    except Exception:
        pass
    detail = "" if error is None else f" ({type(error).__name__}: {str(error).splitlines()[0]})"
    raise located(UnsupportedError, f"np.{name} with these arguments is not supported by elena_jax{detail}") from None


GENERIC = [
    "tile", "repeat", "roll", "pad",
    "sort", "argsort", "searchsorted", "isclose", "allclose", "nan_to_num", "diff",
    "dot", "matmul", "vdot", "inner", "tensordot", "trace",
    "ptp", "nanmedian",
    "percentile", "quantile", "count_nonzero",
    "kron", "convolve", "select", "array_equal",
    "logspace", "geomspace", "append", "resize",
    "trapezoid", "angle", "conj", "sinc",
]

for _name in GENERIC:
    if hasattr(np, _name):
        implements(getattr(np, _name))(jnp_function(getattr(np, _name)))


def _nan_extreme(func, ufunc) -> None:
    """``np.nanmax``/``np.nanmin`` of a traced array as NumPy computes them: ``np.fmax.reduce`` /
    ``np.fmin.reduce`` with the arguments given (jax.numpy's was nan+0j at an all-NaN complex
    slice, NumPy's nan+nanj); of lists, constants and scalars, jax.numpy's."""
    generic = jnp_function(func)
    signature = inspect.signature(func)

    @implements(func)
    def impl(*args, **kwargs):
        given = signature.bind(*args, **kwargs).arguments  # NB: NumPy's dispatcher checked them
        a = given.pop("a")
        if not isinstance(a, Tracer) or a.ndim == 0:  # NB: of a scalar NumPy's is not the reduction (nan of nan+0.5j)
            return generic(*args, **kwargs)
        return ufunc.reduce(a, **{"axis": None, **given})


_nan_extreme(np.nanmax, np.fmax)
_nan_extreme(np.nanmin, np.fmin)


_take = jnp_function(np.take)


@implements(np.take)
def take(a, indices, axis=None, out=None, mode="raise"):
    """``a[..., indices]`` along ``axis`` (C-ordered, as NumPy's take is), so that traced indices
    are read as any index array's: checked mode raises NumPy's IndexError, else they are clamped
    (jax.numpy's take filled them with NaN or garbage); ``mode`` 'wrap' and 'clip' map them into
    range first, as NumPy does. NumPy's errors of the shapes, of constant indices and of ``mode``
    come from NumPy, run on a probe."""
    indices = sequence_as_array(indices)
    if isinstance(indices, (list, tuple)):  # NB: NumPy reads a sequence as intp, element by element (int())
        try:
            indices = np.asarray(indices, np.intp)
        except (TypeError, ValueError, OverflowError) as e:
            raise located(type(e), str(e)) from None
    indices = indices if isinstance(indices, Tracer) else np.asarray(indices)
    if indices.dtype.kind not in "iub":
        return _take(a, indices, axis=axis, out=out, mode=mode)  # NB: NumPy's casting errors
    a = a if isinstance(a, Tracer) else constant(np.asarray(a))
    check_out_array(out, "output must be an array")
    # NB: traced indices stand in as zeros, an out= as a writable array of its shape and dtype
    probe = {"axis": axis, "mode": mode} | ({} if out is None else {"out": np.empty(out.shape, out.dtype)})
    try:
        run_numpy(np.take, [a, indices], probe, full=True, fill=0)
    except (IndexError, ValueError, TypeError) as e:
        raise located(type(e), str(e)) from None
    if axis is None:
        a, axis = a.ravel(), 0
    axis = V.normalize_axis(axis, a.ndim)
    indices = _into_range(indices.astype(np.intp) if indices.dtype == bool else indices, a.shape[axis], mode)
    r = HOOKS["getitem"](a, (slice(None),) * axis + (indices,))
    return _returned("take", [laid_out(r, tuple(range(r.ndim)))], out, False)


def _into_range(indices, n: int, mode):
    """Indices along an axis of ``n`` mapped into range as NumPy's clip ``mode`` maps them: 'wrap'
    modulo ``n``, 'clip' clipped (NumPy takes the modes as numbers too: NPY_CLIP 0, NPY_WRAP 1);
    'raise' leaves them."""
    if mode in ("wrap", 1):
        return indices % max(n, 1)
    if mode in ("clip", 0):
        return np.clip(indices, 0, n - 1)
    return indices


def _check_range(indices, low: int, high: int, error: type[BaseException], message: str) -> None:
    """NumPy's ``error`` where ``indices`` lie outside ``[low, high)``: at once where they are known
    at trace time (``message``'s ``{}`` the first such index), else in checked mode (`raise_where`)."""
    known = _known(indices)
    values = indices if known is None else np.asarray(known)
    bad = (values < low) | (values >= high)
    first = f" {np.asarray(values)[bad].flat[0]}" if known is not None and np.any(bad) else ""
    raise_where(bad, error, message.format(first))


_ravel_multi_index = jnp_function(np.ravel_multi_index)


@implements(np.ravel_multi_index)
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """jax.numpy's (whose 'raise' refuses traced indices) of the indices mapped into range by their
    dimension's ``mode``: 'raise' checks them (`_check_range`: NumPy's ValueError) and clamps them
    as other traced indices are, 'wrap' and 'clip' as NumPy maps them. NumPy's other errors come
    from NumPy, run on stand-ins."""
    run_numpy(np.ravel_multi_index, [multi_index, dims], {"mode": mode, "order": order}, full=True, fill=0)
    dims = tuple(np.atleast_1d(dims))
    modes = (mode,) * len(dims) if isinstance(mode, (str, int)) else tuple(mode)
    mapped = []
    for index, n, m in zip(multi_index, dims, modes):
        if m in ("raise", 2):
            _check_range(index, 0, n, ValueError, "invalid entry in coordinates array")
        mapped.append(_into_range(index, n, "clip" if m in ("raise", 2) else m))
    return _ravel_multi_index(tuple(mapped), dims, mode="clip", order=order)


_unravel_index = jnp_function(np.unravel_index)


@implements(np.unravel_index)
def unravel_index(indices, shape, order="C"):
    """jax.numpy's (which clamps indices out of range), after NumPy's ValueError for them (`_check_range`).
    Fortran order is C order of the reversed shape, the coordinates reversed."""
    order = order.upper() if isinstance(order, str) else order
    if order not in ("C", "F"):
        raise located(ValueError, "only 'C' or 'F' order is permitted")
    dims = _known(shape)  # NB: np.array([3, 4]) made inside f is as static as NumPy's
    if dims is None:
        raise located(UnsupportedError, "np.unravel_index of a traced shape: pass the shape as a static argument")
    shape = tuple(operator.index(n) for n in np.ravel(dims))  # NB: NumPy's TypeError for (3.0, 4)
    result = _unravel_index(indices, shape) if order == "C" else _unravel_index(indices, shape[::-1])[::-1]
    size = int(np.prod(shape))
    _check_range(indices, 0, size, ValueError, f"index{{}} is out of bounds for array with size {size}")
    return result


_generic_pad = jnp_function(np.pad)


@implements(np.pad)
def pad(array, pad_width, mode="constant", **kwargs):
    """jax.numpy's, but for ``mean`` of a traced array NumPy's own steps (numpy.lib._arraypad_impl's,
    axis by axis on the array padded so far) run on it, so that its means are elena_jax's NumPy-ordered
    np.mean. NB: jax.numpy's differed in 300 of 2,376 values. linear_ramp stays jax.numpy's (3 of 2,376
    an ulp off): NumPy's ramps are float64 linspaces, whose reverse-mode derivative with x64 off fails."""
    if callable(mode) and _arraypad is not None:
        return _padded_by(mode, _arr(array), _arraypad._as_pairs(pad_width, np.ndim(array), as_index=True), kwargs)
    own = mode == "mean" and isinstance(array, Tracer) and array.size and _arraypad is not None
    if not own or isinstance(pad_width, dict) or has_tracer((pad_width, kwargs)):
        return _generic_pad(array, pad_width, mode, **kwargs)
    if set(kwargs) - {"stat_length"}:
        raise located(ValueError, f"unsupported keyword arguments for mode 'mean': {set(kwargs) - {'stat_length'}}")
    widths = _arraypad._as_pairs(pad_width, array.ndim, as_index=True)
    padded = _generic_pad(array, widths, "constant")
    original = tuple(slice(before, before + n) for (before, _), n in zip(widths, array.shape))
    lengths = _arraypad._as_pairs(kwargs.get("stat_length"), array.ndim, as_index=True)
    for axis, width_pair in enumerate(widths):
        roi = _arraypad._view_roi(padded, original, axis)
        values = _arraypad._get_stats(roi, axis, width_pair, lengths[axis], np.mean)
        _arraypad._set_pad_area(roi, axis, width_pair, values)
    return padded


def _padded_by(function, array: Tracer, widths, kwargs: dict) -> Tracer:
    """NumPy's protocol of a callable mode: the array padded with zeros, then ``function(vector,
    widths, axis, kwargs)`` called on every line along every axis in turn, writing the line in place
    (its return value ignored; jax.numpy's takes it as the new line)."""
    padded = _generic_pad(array, widths, "constant")
    for axis in range(padded.ndim):
        lines = np.moveaxis(padded, axis, -1)
        for index in np.ndindex(lines.shape[:-1]):
            function(lines[index + (Ellipsis,)], widths[axis], axis, kwargs)
    return padded


def _triangle(func):
    """``np.tril`` / ``np.triu``. NB: of a vector NumPy gives the square matrix with the vector in
    every row, masked (jax.numpy refuses fewer than two axes)."""
    generic = jnp_function(func)

    def impl(m, k=0):
        if isinstance(m, Tracer) and m.ndim == 1:
            m = np.broadcast_to(m, (m.shape[0], m.shape[0]))
        return generic(m, k)

    impl.__name__ = func.__name__
    return impl


for _f in (np.tril, np.triu):
    implements(_f)(_triangle(_f))


_interp = jnp_function(np.interp)


@implements(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    """jax.numpy's, after NumPy's errors of the sample points at their whole length, which the
    generic op's one-element stand-ins do not show: xp and fp of different lengths (jax.numpy
    answered)."""
    run_numpy(np.interp, [np.zeros(0), xp, fp], {"period": period}, full=True)
    return _interp(x, xp, fp, left, right, period)


def _take_positions(select, a, axis):
    """``a`` (flattened where ``axis`` is None) at the positions along the axis that NumPy's
    ``select(positions, axis)`` keeps: it runs on the positions laid along the axis of an array of
    ``a``'s rank, so its errors and messages are NumPy's own."""
    a = a if isinstance(a, Tracer) else np.asarray(a)
    a = np.ravel(a) if axis is None else a
    axis = 0 if axis is None else V.normalize_axis(axis, a.ndim)
    if a.size == 0:  # NB: NumPy "takes" even from an empty axis when the result is empty
        return constant(np.zeros(select(np.zeros(a.shape, np.int8), axis).shape, a.dtype))
    line = [1] * a.ndim
    line[axis] = -1
    return np.take(a, select(np.arange(a.shape[axis]).reshape(line), axis).reshape(-1), axis=axis)


@implements(np.delete)
def delete(arr, obj, axis=None):
    """The elements kept, taken: NumPy decides which from the length alone (jax.numpy.delete wants
    its indices concrete, and an operand's are traced). Indices made inside f from constants are
    NumPy's (their values known: np.delete(a, np.array([0, 2])))."""
    known = _known(obj) if isinstance(obj, Tracer) else None
    obj = obj if known is None else known
    if isinstance(obj, Tracer) and obj.ndim == 0 and obj.dtype.kind in "iu":
        return _delete_one(arr, obj, axis)
    if has_tracer(obj):
        raise ConcretizationError(f"np.delete with traced indices has a data-dependent shape\n  at {user_location()}")
    return _take_positions(lambda positions, ax: np.delete(positions, obj, ax), arr, axis)


def _delete_one(arr, index: Tracer, axis):
    """``np.delete`` of one traced index: the other n - 1 positions, those from ``index`` on shifted
    by one; NumPy's IndexError out of range (`_check_range`), else clamped as other traced indices."""
    a = arr if isinstance(arr, Tracer) else constant(np.asarray(arr))
    a = a.ravel() if axis is None else a
    axis = 0 if axis is None else V.normalize_axis(axis, a.ndim)
    n = a.shape[axis]
    _check_range(index, -n, n, IndexError, f"index{{}} is out of bounds for axis {axis} with size {n}")
    kept = np.arange(max(n - 1, 0))
    return np.take(a, kept + (kept >= np.clip(np.where(index < 0, index + n, index), 0, n - 1)), axis=axis)


def _nan_arg(func, fill: float, base):
    """``np.nanargmin`` / ``nanargmax``; of complex numbers (which jax.numpy's refuses) NumPy's way:
    a NaN in either part replaced by ``fill`` (+inf, -inf), then the complex arg-reduction."""
    generic = jnp_function(func)

    def impl(a, axis=None, out=None, *, keepdims=False):
        if isinstance(a, Tracer) and a.dtype.kind == "c":
            return base(np.where(np.isnan(a), fill, a), axis=axis, out=out, keepdims=keepdims)
        return generic(a, axis=axis, out=out, keepdims=keepdims)

    impl.__name__ = func.__name__
    return impl


implements(np.nanargmin)(_nan_arg(np.nanargmin, np.inf, np.argmin))
implements(np.nanargmax)(_nan_arg(np.nanargmax, -np.inf, np.argmax))

_median = jnp_function(np.median)


@implements(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """NumPy's steps: sorted (complex numbers real part first, which jax.numpy refuses), the mean
    of the middle one or two (np.mean's sum from +0.0: two -0.0 give +0.0; jax.numpy interpolates),
    and a NaN among them is the median."""
    if not isinstance(a, Tracer) or not a.size:
        return _median(a, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims)
    axes = reduce_axes(axis, a.ndim)
    kept = [i for i in range(a.ndim) if i not in axes]
    lined = np.sort(a.transpose(kept + list(axes)).reshape([a.shape[i] for i in kept] + [-1]), axis=-1)
    n = lined.shape[-1]
    m = np.mean(lined[..., (n - 1) // 2 : n // 2 + 1], axis=-1)
    m = np.where(np.isnan(lined[..., -1]), lined[..., -1], m)
    m = m.reshape(reduced_shape(a.shape, axes, True)) if keepdims else m
    return _returned("median", [m], out, False)


_insert = jnp_function(np.insert)


@implements(np.insert)
def insert(arr, obj, values, axis=None):
    """Several static positions: placed as NumPy places them (each shifted by the values before
    it; a negative one counted from the end, and one still negative from the end of the result,
    where NumPy's own placement overlaps), then the values and the array taken into place."""
    a = arr if isinstance(arr, Tracer) else np.asarray(arr)
    # NB: NumPy converts constant values into the array's type first (OverflowError for uint8 and 300)
    values = values if has_tracer(values) else np.asarray(values, a.dtype)
    positions = None if has_tracer(obj) or isinstance(obj, slice) else np.asarray(obj)
    if positions is None or positions.dtype.kind not in "iu" or positions.size < 2:
        result = _insert(a, obj, values, axis=axis)  # NB: one position inserts a block (NumPy's other case)
        if isinstance(obj, Tracer) and obj.dtype.kind in "iu":
            ax = 0 if axis is None else V.normalize_axis(axis, len(shape_of(a)))
            n = np.size(a) if axis is None else shape_of(a)[ax]
            _check_range(obj, -n, n + 1, IndexError, f"index{{}} is out of bounds for axis {ax} with size {n}")
        return result
    a = np.ravel(a) if axis is None else a
    axis = 0 if axis is None else V.normalize_axis(axis, a.ndim)
    n, k = a.shape[axis], positions.size
    source = np.insert(np.arange(n), positions, n + np.arange(k))  # NB: NumPy's placement (and errors)
    values = values.astype(a.dtype).reshape((1,) * (a.ndim - np.ndim(values)) + np.shape(values))
    slots = np.broadcast_to(values, a.shape[:axis] + (k,) + a.shape[axis + 1 :])
    return np.take(np.concatenate([a, slots], axis=axis), source, axis=axis)


_einsum = jnp_function(np.einsum)


@implements(np.einsum)
def einsum(*operands, **kwargs):
    """One operand relabelled without summing (``'ij->ji'``, the diagonal ``'ii->i'``) is a
    writeable view in NumPy, whatever its ``dtype=`` and ``casting=``: a view here too. One float
    operand summed over some of its labels (``'ijk->ik'``) is ``np.add.reduce`` over them, which
    adds in NumPy's order: NumPy's einsum adds a label that is not innermost row after row, as
    add.reduce does, and float16 in float32.
    Everything else is computed by jax.numpy."""
    operands = _einsum_spelled(operands)
    if len(operands) == 2 and isinstance(operands[0], str) and isinstance(operands[1], Tracer) \
            and kwargs.get("out") is None:
        x = operands[1]
        labels = _einsum_labels(x.ndim, operands[0])
        if labels is not None and set(labels[1]) == set(labels[0]):
            view = _einsum_view(x.header, *labels)
            if view is not None:
                return x.view_of(view)
        elif labels is not None and x.dtype.kind == "f" and set(kwargs) <= {"optimize"} \
                and len(set(labels[0])) == x.ndim:
            return _einsum_sum(x, *labels)
    if "dtype" in kwargs or "casting" in kwargs:  # NB: after the views: NumPy's ignore both
        return _einsum_in(operands, **kwargs)
    return _einsum(*operands, **kwargs)


_EINSUM_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # NB: NumPy's, for labels 0..51


def _einsum_spelled(operands: tuple) -> tuple:
    """NumPy's sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` in its string form
    (``'AB,BC->AC'``); as it is where a label is not one NumPy takes (its error to raise)."""
    if not operands or isinstance(operands[0], str):
        return operands
    n = len(operands) // 2
    sublists = [*operands[1 : 2 * n : 2], *operands[2 * n :]]
    if not all(isinstance(sub, (list, tuple)) and all(k is Ellipsis or isinstance(k, (int, np.integer))
                                                      and 0 <= k < 52 for k in sub) for sub in sublists):
        return operands
    spelled = ["".join("..." if k is Ellipsis else _EINSUM_LETTERS[k] for k in sub) for sub in sublists]
    spec = ",".join(spelled[:n]) + ("->" + spelled[n] if len(spelled) > n else "")
    return (spec, *operands[0 : 2 * n : 2])


def _einsum_in(operands, out=None, dtype=None, casting="safe", **kwargs):
    """``np.einsum(dtype=, casting=)``: NumPy casts the operands to ``dtype`` as ``casting`` allows,
    computes in it, and casts the result into ``out`` so too (its errors come from stand-ins)."""
    check_out_array(out, "output must be an array")
    # NB: not NumPy's optimize=, whose path on stand-ins of one element casts otherwise
    numpy_kwargs = {**{k: v for k, v in kwargs.items() if k != "optimize"}, "dtype": dtype, "casting": casting}
    result = run_numpy(np.einsum, operands, numpy_kwargs)
    if out is not None:
        run_numpy(np.einsum, operands, {**numpy_kwargs, "out": np.empty(np.shape(result), out.dtype)})
    if dtype is not None:
        operands = [x.astype(dtype) if isinstance(x, (Tracer, np.ndarray)) else x for x in operands]
    return _returned("einsum", [einsum(*operands, **kwargs)], out, False)


def _einsum_labels(ndim: int, spec: str) -> tuple[str, str] | None:
    """The labels of one operand's ``einsum(spec)`` and of its output, ``...`` spelled out; None
    where the spec does not fit one operand of ``ndim`` axes (NumPy's error to raise) or sums
    repeated labels in implicit mode."""
    spec = spec.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    if "," in inputs or not spec.replace("...", "").replace("->", "").isalpha() and spec.replace("->", ""):
        return None  # NB: NumPy's errors for other characters (jax.numpy's call raises them)
    dots = [chr(0x100 + k) for k in range(ndim - len(inputs.replace("...", "")))]
    labels = inputs.replace("...", "".join(dots))
    if len(labels) != ndim or not arrow and len(set(labels)) != len(labels):
        return None
    if arrow and dots and "..." not in output:
        return None  # NB: NumPy refuses to drop the axes of an ellipsis
    output = output.replace("...", "".join(dots)) if arrow else "".join(dots) + "".join(sorted(set(labels) - set(dots)))
    if not set(output) <= set(labels) or len(set(output)) != len(output):
        return None
    return labels, output


def _einsum_view(v: V.View, labels: str, output: str) -> V.View | None:
    """The View of one operand's einsum that sums nothing, else None."""
    shape, strides = [], []
    for label in output:
        axes = [i for i, x in enumerate(labels) if x == label]
        if len({v.shape[i] for i in axes}) != 1:
            return None
        shape.append(v.shape[axes[0]])
        strides.append(sum(v.strides[i] for i in axes))
    return V.View.make(shape, strides, v.offset)


def _einsum_sum(x: Tracer, labels: str, output: str) -> Tracer:
    """One operand's einsum that sums the labels missing from ``output``."""
    total = np.add.reduce(x, axis=tuple(i for i, label in enumerate(labels) if label not in output))
    kept = [label for label in labels if label in output]
    order = [kept.index(label) for label in output]
    return total if order == sorted(order) else np.transpose(total, order)  # NB: NumPy's layout: the input's


def _complex_part(func):
    """``np.real`` / ``np.imag``: of a complex array, the part as a view (writes through it reach
    the array: Trace.reinterpret). Of a real array, ``real`` is the array itself and ``imag``
    NumPy's read-only zeros."""

    def part(val):
        val = _arr(val)
        if val.dtype.kind == "c":
            return val._trace.reinterpret(val, func.__name__, np.finfo(val.dtype).dtype)
        if func is np.real:
            return val
        out = np.zeros_like(val)
        out.writeable = False
        return out

    part.__name__ = func.__name__
    return part


implements(np.real)(_complex_part(np.real))
implements(np.imag)(_complex_part(np.imag))


# How many core axes each generalized ufunc's output has: matmul's (n?,k),(k,m?)->(n?,m?) drops n
# for a vector first operand and m for a vector second one.
_OUTPUT_CORE = {"matmul": lambda a, b: (np.ndim(a) > 1) + (np.ndim(b) > 1), "vecdot": lambda a, b: 0,
                "matvec": lambda a, b: 1, "vecmat": lambda a, b: 1}


def _gufunc(func):
    """A generalized ufunc (``@`` is np.matmul): its call through ``__array_ufunc__``. ``dtype=``
    computes in that type (the operands cast as ``casting`` allows), ``axes=`` / ``axis=`` name
    the core axes (moved last, as views); NumPy's errors for them come from stand-ins."""
    generic = jnp_function(func)

    def rule(*args, out=None, dtype=None, casting="same_kind", axes=None, axis=None, keepdims=None, **kwargs):
        if kwargs:
            raise located(UnsupportedError, f"np.{func.__name__} with {sorted(kwargs)}")
        # NB: as any ufunc's, a list operand is an array (a @ [1.0, 2.0, 3.0])
        args = tuple(np.asarray(x) if isinstance(x, (list, tuple)) else x for x in map(sequence_as_array, args))
        (target,) = out if isinstance(out, tuple) else (out,)
        if target is not None:
            check_out_array(target)
        # NB: NumPy checks the casts and the axes before the shapes: stand-ins of the operands' ranks
        options = {"dtype": dtype, "casting": casting, "axes": axes, "axis": axis, "keepdims": keepdims}
        func(*(np.ones((1,) * np.ndim(x), dtype_of(x)) for x in args),
             out=None if target is None else np.empty((1,) * target.ndim, target.dtype),
             **{k: v for k, v in options.items() if v is not None})
        if dtype is not None:
            args = tuple(x.astype(dtype) for x in map(_arr, args))
        core = _OUTPUT_CORE[func.__name__](*args)
        if axis is not None:
            axes = [axis] * (3 if keepdims else 2)
        if axes is None and not keepdims:
            return _gufunc_call(func, generic, args, target, core)
        # NB: keepdims (vecdot's) keeps the summed axis, last unless axes= or axis= place it
        moved = [(ax,) if isinstance(ax, (int, np.integer)) else tuple(ax) for ax in axes or [-1, -1]]
        moved += [(-1,) if keepdims else ()] * (3 - len(moved))
        args = tuple(np.moveaxis(x, ax, range(-len(ax), 0)) for x, ax in zip(map(_arr, args), moved))
        last = tuple(range(-len(moved[2]), 0))
        if target is None:
            result = _gufunc_call(func, generic, args, None, core)
            return as_ufunc_result(np.moveaxis(np.expand_dims(result, -1) if keepdims else result, last, moved[2]))
        moved_target = np.moveaxis(target, moved[2], last)
        _gufunc_call(func, generic, args, moved_target[..., 0] if keepdims else moved_target, core)
        return target

    return rule


def _gufunc_call(func, generic, args, target, core: int):
    """``func`` of ``args`` whose core axes are last, written into ``target`` where given."""
    result = generic(*args)
    if target is None:
        return as_ufunc_result(result)  # NB: a @ b of vectors is a scalar
    # NB: loop axes may broadcast, and out may lack the result's leading loop axes of one element
    # (np.matmul of (3,) and (1, 3, 3) into a (3,) out is NumPy's); its core axes are the result's
    whole = broadcast_shapes(result.shape, target.shape)
    if whole[len(whole) - target.ndim :] != target.shape or any(n != 1 for n in whole[: len(whole) - target.ndim]) \
            or target.ndim < core or target.shape[target.ndim - core :] != result.shape[result.ndim - core :]:
        raise located(ValueError, f"{func.__name__}: output operand has shape {target.shape}, "
                      f"the result's is {result.shape}")
    target[...] = result
    return target


for _name in ("matmul", "vecdot", "matvec", "vecmat"):
    if hasattr(np, _name):
        UFUNCS[_name] = _gufunc(getattr(np, _name))


def _singular_raised(func):
    """``np.linalg.inv``/``solve``, which NumPy refuses with LinAlgError for a singular matrix: at
    trace time where the matrix is known then (made inside f from numbers, ``np.array([[1., 2.],
    [2., 4.]])``, or a list of them), else in checked mode only (the generic op's flag)."""
    generic = jnp_function(func, f"linalg.{func.__name__}")

    def impl(*args, **kwargs):
        given = dict(zip(("a", "b"), args), **kwargs)
        a = given.get("a")
        known = _known(a) if isinstance(a, Tracer) else (
            a if isinstance(a, (list, tuple, np.ndarray)) and not has_tracer(a) else None)
        if known is not None:
            stand_ins = {k: np.zeros(np.shape(v), dtype_of(v)) for k, v in given.items() if k != "a"}
            try:  # NB: only the matrix decides, with stand-ins of the others' shapes and types
                with np.errstate(all="ignore"):
                    func(np.asarray(known), **stand_ins)
            except np.linalg.LinAlgError as e:
                raise located(np.linalg.LinAlgError, str(e)) from None
            except (TypeError, ValueError):  # NB: NumPy's errors of the arguments come from the generic op
                pass
        return generic(*args, **kwargs)

    impl.__name__ = func.__name__
    return impl


implements(np.linalg.det)(jnp_function(np.linalg.det, "linalg.det"))
for _name in ("inv", "solve"):
    implements(getattr(np.linalg, _name))(_singular_raised(getattr(np.linalg, _name)))


def _split(indices_fn):
    def impl(ary, indices_or_sections, axis=0):
        a = _arr(ary)
        axis = V.normalize_axis(axis, a.ndim)
        n = a.shape[axis]
        if isinstance(indices_or_sections, (int, np.integer)):
            cuts = indices_fn(n, int(indices_or_sections))
        else:
            cuts = list(indices_or_sections)
        bounds = [0, *cuts, n]
        idx = [slice(None)] * a.ndim
        out = []
        for lo, hi in zip(bounds, bounds[1:]):
            idx[axis] = slice(lo, hi)
            out.append(a[tuple(idx)])  # NB: np.split returns views
        return out

    return impl


def _equal_sections(n, k):
    if n % k:  # NB: as NumPy: 0 sections is its ZeroDivisionError, negative ones array_split's error
        raise located(ValueError, "array split does not result in an equal division")
    return _array_sections(n, k)


def _array_sections(n, k):
    if k <= 0:
        raise located(ValueError, "number sections must be larger than 0.")
    size, extra = divmod(n, k)
    sizes = [size + 1] * extra + [size] * (k - extra)
    return list(np.cumsum(sizes)[:-1])


implements(np.split)(_split(_equal_sections))
implements(np.array_split)(_split(_array_sections))


def traced_linspace(start, stop, num, endpoint=True, retstep=False, dtype=None, axis=0):
    """NumPy's linspace of traced ends, rounded as NumPy rounds it: ``step = (stop - start) / div``,
    then ``i * step``, then ``+ start``, each rounded once, and the last point ``stop``.

    Jitted, XLA would contract ``i * step + start`` into one fused multiply-add (the division is
    NumPy's: design.md, "Arithmetic rounded as NumPy's"); histogram edges one ulp off move a
    sample lying on an edge into the next bin. So the products are sorted, which XLA cannot fuse
    into the add (they are in order already: ascending, or descending where the step is
    negative). NB: NumPy multiplies by a subnormal step otherwise; XLA:CPU flushes those
    (design.md, Known limits)."""
    num = operator.index(num)
    if num < 0:
        raise located(ValueError, f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    dt = result_dtype(start, stop, 1.0)  # NB: inexact; Python scalars weak, as in NumPy 2
    start, stop = asarray(start).astype(dt), asarray(stop).astype(dt)
    delta = stop - start
    i = constant(np.arange(num, dtype=dt).reshape(num, *(1,) * delta.ndim))
    if div > 0:
        step = delta / div
        # NB: where any step is 0 (a subnormal delta / div, or delta 0), NumPy computes every
        # point as (i / div) * delta (gh-5437), one rounding apart from i * step
        fractions = np.arange(num, dtype=dt).reshape(i.shape)
        fractions /= div
        y = np.where(np.any(step == 0), constant(fractions) * delta, i * step)
        if dt.kind == "f" and num > 1:  # NB: an infinite or NaN step has a NaN product first: kept there
            ordered = np.where(delta < 0, -np.sort(-y, axis=0), np.sort(y, axis=0))
            y = np.where(np.isfinite(step), ordered, y)
    else:
        step, y = np.nan, i * delta
    y = y + start
    if endpoint and num > 1:
        y[-1, ...] = stop
    y = np.moveaxis(y, 0, axis)
    if dtype is not None and np.dtype(dtype).kind in "iu":
        y = np.floor(y)
    y = y.astype(dtype if dtype is not None else dt)
    return (y, step) if retstep else y


def data_dependent(name: str):
    raise ConcretizationError(f"np.{name}'s output shape depends on the data\n  at {user_location()}")


def _known(x):
    """``x`` with its value where it is a tracer whose value is known at trace time, else None."""
    return x._trace.known_value(x) if isinstance(x, Tracer) else x


def _shaped_by_the_data(func):
    """A function whose output shape depends on the data: NumPy's answer, as constants, when
    every traced argument is known at trace time (made inside f from constants); else refused."""
    def rule(*args, **kwargs):
        values, named = [_known(a) for a in args], {k: _known(v) for k, v in kwargs.items()}
        if any(v is None and a is not None for v, a in zip([*values, *named.values()], [*args, *kwargs.values()])):
            data_dependent(func.__name__)
        result = func(*values, **named)
        if isinstance(result, tuple):
            return type(result)(*map(constant, result)) if hasattr(result, "_fields") else tuple(map(constant, result))
        return constant(result)

    rule.data_dependent = True
    return rule


for _f in (np.nonzero, np.argwhere, np.flatnonzero, np.unique, np.extract):
    implements(_f)(_shaped_by_the_data(_f))


def _refused(name: str, why: str):
    """A NumPy function recognised and refused, with why and what to write instead."""
    def rule(*args, **kwargs):
        raise located(UnsupportedError, f"np.{name} is not supported by elena_jax: {why}")

    rule.refused = why
    return rule


_ORDER_OF_INTROSELECT = ("the order NumPy leaves on each side of kth is its introselect's, no specified one; "
                         "np.sort / np.argsort give a valid partition in sorted order (np.argsort(a)[..., :k]: "
                         "the k smallest)")
implements(np.partition)(_refused("partition", _ORDER_OF_INTROSELECT))
implements(np.argpartition)(_refused("argpartition", _ORDER_OF_INTROSELECT))


@implements(np.cross)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """NumPy's own arithmetic: each component one product less another (a missing third
    component of 2-vectors leaves a product, or its negative), so that with ``fma=False`` it is
    NumPy's bit for bit: ``np.cross(d, d)`` is 0 exactly (jax.numpy's was not)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = asarray(a), asarray(b)
    if a.ndim < 1 or b.ndim < 1:
        raise located(ValueError, "At least one array has zero dimension")
    a, b = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise located(ValueError, "incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if 2 in (a.shape[-1], b.shape[-1]):
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of 3-dimensional vectors "
                      "instead. (deprecated in NumPy 2.0)", DeprecationWarning, stacklevel=3)
    dtype = np.promote_types(a.dtype, b.dtype)
    a, b = a.astype(dtype), b.astype(dtype)

    def product(i, j):
        return a[..., i] * b[..., j] if i < a.shape[-1] and j < b.shape[-1] else None

    def component(i, j):  # NB: a_i b_j - a_j b_i
        x, y = product(i, j), product(j, i)
        return -y if x is None else x if y is None else x - y

    if a.shape[-1] == b.shape[-1] == 2:
        return component(0, 1)
    return np.moveaxis(np.stack([component(1, 2), component(2, 0), component(0, 1)], axis=-1), -1, axisc)


@implements(np.ix_)
def ix_(*args):
    """Each 1-D sequence reshaped to stand along an axis of its own, as NumPy's (views of traced
    arrays); a boolean one is its nonzero() positions, of a traced mask a data-dependent shape."""
    out = []
    for k, a in enumerate(args):
        shape = (1,) * k + (-1,) + (1,) * (len(args) - k - 1)
        if isinstance(a, Tracer) and a.ndim != 1:
            raise located(ValueError, "Cross index must be 1 dimensional")
        if isinstance(a, Tracer) and a.dtype == bool:
            a = _known(a)
            if a is None:
                data_dependent("ix_")
        out.append(a.reshape(shape) if isinstance(a, Tracer) else np.ix_(a)[0].reshape(shape))
    return tuple(out)


@implements(np.compress)
def compress(condition, a, axis=None, out=None):
    """A condition known at trace time picks known positions: a take (NumPy decides which, and
    raises its errors, on the positions along the axis). A traced condition depends on the data."""
    condition = _known(condition)
    if condition is None or has_tracer(condition):
        data_dependent("compress")
    kept = _take_positions(lambda positions, ax: np.compress(condition, positions, ax), a, axis)
    return _returned("compress", [kept], out, False)


@implements(np.shape)
def shape(a):
    return shape_of(a)


@implements(np.ndim)
def ndim(a):
    return len(shape_of(a))


@implements(np.size)
def size(a, axis=None):
    s = shape_of(a)
    return int(np.prod(s)) if axis is None else s[axis]


@implements(np.shares_memory)
def shares_memory(a, b, max_work=None):
    """Exact, as NumPy's: whether some byte belongs to both. With ``max_work=0`` NumPy only
    compares bounds, and gives up where they overlap."""
    if max_work == 0 and may_share_memory(a, b):
        raise located(np.exceptions.TooHardError, "Exceeded max_work")
    if not (isinstance(a, Tracer) and isinstance(b, Tracer)):
        return False
    if a.storage is b.storage:
        return V.overlap(a.header, b.header)
    (root, starts, width), (other, theirs, their_width) = a._trace.memory(a), b._trace.memory(b)
    if root is not other or not starts.size or not theirs.size:
        return False
    starts = np.sort(starts)
    before = np.searchsorted(starts, theirs + their_width) - 1  # NB: the last of a's elements starting before
    return bool(np.any((before >= 0) & (starts[np.maximum(before, 0)] + width > theirs)))


@implements(np.may_share_memory)
def may_share_memory(a, b, max_work=None):
    """NumPy's default answer (``max_work`` None or 0): whether the bytes the two arrays span overlap."""
    if max_work:
        return shares_memory(a, b)
    if not (isinstance(a, Tracer) and isinstance(b, Tracer)):
        return False
    (root, starts, width), (other, theirs, their_width) = a._trace.memory(a), b._trace.memory(b)
    if root is not other or not starts.size or not theirs.size:
        return False
    return bool(starts.min() < theirs.max() + their_width and theirs.min() < starts.max() + width)


@implements(np.result_type)
def result_type(*arrays_and_dtypes):
    return result_dtype(*arrays_and_dtypes)

