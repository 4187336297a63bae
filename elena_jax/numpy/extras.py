"""More of NumPy's library: histograms and counts, sliding windows, FFTs, linear algebra,
index helpers of a shape, and ``put``.

Most are the generic ``jnp`` op of functions.py (NumPy decides the dtype, JAX the
value); the rules here add what NumPy's answer needs beyond that: a static output
length for ``np.bincount``, NumPy's default cut-off for ``np.linalg.pinv``,
NumPy's residuals for ``np.linalg.lstsq``, views for ``np.diag`` of a matrix and
``sliding_window_view``. Anything whose output shape depends on the data raises
ConcretizationError naming the user's line.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import view as V
from ..errors import ConcretizationError, UnsupportedError, located, user_location
from ..tracer import UFUNCS, Tracer
from ._core import implements, shape_of
from .creation import _static, constant, intercept
from .functions import FLOAT_COMPUTE, LIST_AS_ARRAY, _arr, _has_tracer, _returned, jnp_function

# NumPy computes these in floating point (float64 for integers, and for float32 where its
# result is float64: np.cov, np.vander).
FLOAT_COMPUTE.update({"cov", "corrcoef", "vander", "polyval", "polyfit", "gradient", "linalg.pinv", "linalg.lstsq",
                      "linalg.eigvalsh", "linalg.cholesky", "linalg.slogdet"})
LIST_AS_ARRAY.update({("percentile", 1), ("quantile", 1), ("nanpercentile", 1), ("nanquantile", 1),
                      ("isin", 1), ("digitize", 1), ("polyval", 0),
                      ("convolve", 0), ("convolve", 1), ("correlate", 0), ("correlate", 1), ("histogram", 1),
                      ("interp", 1), ("interp", 2)})

def _quantile(func):
    """NB: JAX's method="nearest" rounds half-way virtual indices differently from NumPy (half to
    even): refused rather than a different answer. Integers are interpolated (method "linear")
    as NumPy does, the difference of the two neighbours in their own type: it wraps where it
    overflows (np.percentile of int8 [-100, 100] at 50 is 128.0), where JAX's floats would not."""
    generic = jnp_function(func)
    percent = "percentile" in func.__name__

    def impl(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, **kwargs):
        if method == "nearest" or kwargs.get("interpolation") == "nearest":
            raise located(UnsupportedError, f"np.{func.__name__}(method='nearest') is not supported by elena_jax")
        qs = None if _has_tracer(q) else np.true_divide(q, 100) if percent else np.asanyarray(q)
        if not (isinstance(a, Tracer) and a.dtype.kind in "iu" and a.size and method == "linear" and not kwargs
                and qs is not None and qs.dtype.kind == "f" and qs.ndim <= 1 and not isinstance(axis, tuple)):
            return generic(a, q, axis=axis, out=out, overwrite_input=overwrite_input, method=method,
                           keepdims=keepdims, **kwargs)
        func(np.ones((1,) * a.ndim, a.dtype), q, axis=axis, keepdims=keepdims)  # NB: NumPy's errors (q, axis)
        return _returned(func.__name__, [_integer_lerp(a, qs, axis, keepdims)], out, False)

    impl.__name__ = func.__name__
    return impl


def _integer_lerp(a: Tracer, qs: np.ndarray, axis, keepdims: bool) -> Tracer:
    """NumPy's linear quantiles ``qs`` of integers along ``axis``: its neighbour indices, bounds
    and ``_lerp`` formula, on the sorted array."""
    ax = 0 if axis is None else V.normalize_axis(axis, a.ndim)
    s = np.moveaxis(np.sort(np.ravel(a) if axis is None else a, axis=ax), ax, 0)
    n = s.shape[0]
    virtual = (n - 1) * qs
    below, above = virtual < 0, virtual >= n - 1
    previous = np.where(above, -1, np.where(below, 0, np.floor(virtual))).astype(np.intp)
    following = np.where(above, -1, np.where(below, 0, np.floor(virtual) + 1)).astype(np.intp)
    gamma = np.asarray(virtual - previous).reshape(qs.shape + (1,) * (s.ndim - 1))
    lo, hi = s[previous], s[following]
    diff = hi - lo  # NB: in the integers' own type: NumPy's wraps
    r = np.where(gamma >= 0.5, hi - diff * (1 - gamma), lo + diff * gamma)
    if keepdims:
        r = r.reshape(qs.shape + tuple(1 if axis is None or i == ax else m for i, m in enumerate(a.shape)))
    return r


for _f in (np.percentile, np.quantile, np.nanpercentile, np.nanquantile):
    implements(_f)(_quantile(_f))

EXTRA_GENERIC = ["lexsort", "gradient", "correlate", "corrcoef", "cov", "vander", "isin", "ediff1d", "block",
                 "digitize", "diagflat", "polyval", "polyfit"]
for _name in EXTRA_GENERIC:
    if hasattr(np, _name):
        implements(getattr(np, _name))(jnp_function(getattr(np, _name)))

FFT = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
       "fftshift", "ifftshift"]
for _name in FFT:
    implements(getattr(np.fft, _name))(jnp_function(getattr(np.fft, _name), f"fft.{_name}"))
FLOAT_COMPUTE.update(f"fft.{n}" for n in FFT if "shift" not in n)



def _traced_constant(func):
    """A function of static sizes only, as a traced constant (known at trace time): a traced
    index can then read it (``freqs[np.argmax(spec)]``), which a NumPy array refuses."""

    def impl(*args, **kwargs):
        _static(*args, *kwargs.values())
        value = func(*args, **kwargs)
        return constant(value) if isinstance(value, np.ndarray) else value

    impl.__name__ = func.__name__
    return impl


for _module, _name in [(np.fft, "fftfreq"), (np.fft, "rfftfreq"), (np, "hanning"), (np, "hamming"),
                       (np, "blackman"), (np, "bartlett"), (np, "kaiser")]:
    intercept(_module, _name, _traced_constant(getattr(_module, _name)))

for _name in ("eigvalsh", "cholesky", "slogdet", "matrix_power"):
    implements(getattr(np.linalg, _name))(jnp_function(getattr(np.linalg, _name), f"linalg.{_name}"))


_pinv = jnp_function(np.linalg.pinv, "linalg.pinv")


@implements(np.linalg.pinv)
def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """NumPy's cut-off for small singular values (1e-15 by default; JAX's default is larger)."""
    if rcond is not None and rtol is not np._NoValue:
        raise located(ValueError, "`rtol` and `rcond` can't be both set.")
    if rcond is None:
        dtype = np.result_type(_arr(a).dtype, np.float64) if _arr(a).dtype.kind in "biu" else _arr(a).dtype
        rcond = 1e-15 if rtol is np._NoValue else (max(shape_of(a)[-2:]) * np.finfo(dtype).eps
                                                      if rtol is None else rtol)
    return _pinv(a, rtol=rcond, hermitian=hermitian)


def _numpy_lstsq(a, b, rcond=None, numpy_resid=False):
    return np.linalg.lstsq(a, b, rcond=rcond)


_numpy_lstsq.__name__ = "lstsq"
_lstsq = jnp_function(_numpy_lstsq, "linalg.lstsq")


class DataDependent:
    """A result whose shape depends on the data: any use of it raises ConcretizationError
    naming the line that made it (the caller may well never use it)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.origin = user_location()

    def _refuse(self, *args, **kwargs):
        raise ConcretizationError(f"{self.what} has a data-dependent shape\n  at {self.origin}")

    __array__ = __len__ = __iter__ = __bool__ = __getitem__ = __float__ = __int__ = _refuse
    __array_ufunc__ = __array_function__ = _refuse

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._refuse()


@implements(np.linalg.lstsq)
def lstsq(a, b, rcond=None):
    """NB: NumPy's residuals are empty unless the system is overdetermined and of full rank, a
    rank known only from the data; they are returned as a value refusing to be used, and the
    solution, rank and singular values are computed as NumPy does."""
    x, residuals, rank, sv = _lstsq(a, b, rcond=rcond)
    m, n = shape_of(a)[-2:]
    if m <= n:
        residuals = np.zeros((0,), residuals.dtype)
    else:
        residuals = DataDependent("the residuals of np.linalg.lstsq (empty when the rank is short)")
    return x, residuals, rank, sv


# --- counts and histograms -----------------------------------------------------------


def _numpy_bincount(x, weights=None, minlength=0, length=None):
    return np.bincount(x, weights, minlength)


_numpy_bincount.__name__ = "bincount"
_bincount = jnp_function(_numpy_bincount, "bincount")


@implements(np.bincount)
def bincount(x, weights=None, minlength=0):
    """Of a traced array, NumPy's length is ``max(x.max() + 1, minlength)``: static only where the
    dtype bounds the values below ``minlength`` (uint8 pixels with ``minlength=256``)."""
    if minlength is None or minlength < 0:
        raise located(ValueError, "'minlength' must not be negative")
    x = _arr(x)
    if x.dtype.kind not in "bu":
        bound = None
    else:
        bound = 2 if x.dtype.kind == "b" else 1 << (8 * x.dtype.itemsize)
    if bound is None or minlength < bound:
        raise ConcretizationError(
            "np.bincount's output length is max(x.max() + 1, minlength), which depends on the data; "
            "it is static only for an unsigned or bool array whose dtype bounds its values below "
            "minlength (np.bincount(uint8_array, minlength=256)); use np.histogram with bins and range, "
            f"or np.add.at into np.zeros(n)\n  at {user_location()}")
    return _bincount(x, weights, minlength, length=minlength)


def _numpy_histogram(a, bins=10, range=None, density=None, weights=None):
    return np.histogram(a, bins, range, density, weights)


_numpy_histogram.__name__ = "histogram"
_histogram = jnp_function(_numpy_histogram, "histogram")


@implements(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):
    """Counts and edges, the edges computed as NumPy computes them and the density in float64;
    the number of bins must be static."""
    if isinstance(bins, str):
        raise ConcretizationError(f"np.histogram(bins={bins!r}) chooses the number of bins from the data\n"
                                  f"  at {user_location()}")
    a = _arr(a)
    if a.dtype.kind == "c":
        raise located(UnsupportedError, "np.histogram of complex values is not supported by elena_jax (NumPy bins "
                      "them by the real part of a complex bin estimate, corrected by complex comparisons)")
    if a.dtype.kind in "biu":  # NB: NumPy compares integer data with its float64 edges
        a = a.astype(np.float64)
    if np.ndim(bins) == 0:
        edges = _uniform_edges(a, int(bins), range)
    else:
        edges = bins
    counts = _histogram(a, edges, weights=weights)[0]
    if density:
        counts = counts / np.diff(edges).astype(np.float64) / counts.sum()
    return counts, edges


def _uniform_edges(a: Tracer, bins: int, range) -> Tracer:
    """NumPy's ``linspace(first, last, bins + 1)``: of a static range, NumPy's own (in float64,
    cast to the data's type); of the data's min and max, computed in the data's float type.
    NB: jitted, XLA may fuse ``i * step + first`` (an FMA, or float32 kept in excess precision):
    float32 edges can then differ from NumPy's in the last bit."""
    probe = np.zeros(1, a.dtype)
    if range is not None or a.size == 0:  # NB: static edges: NumPy computes them itself
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return constant(np.histogram_bin_edges(probe if range is not None else probe[:0], bins, range))
    if bins < 1:
        raise located(ValueError, "`bins` must be positive, when an integer")
    first, last = a.min(), a.max()
    same = first == last
    first = np.where(same, first - 0.5, first)
    last = np.where(same, last + 0.5, last)
    edges = np.arange(bins + 1, dtype=a.dtype) * ((last - first) / bins) + first
    edges[-1] = last
    return edges


# --- views ----------------------------------------------------------------------------


@implements(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """A view, read-only unless ``writeable=True``, exactly as NumPy builds it."""
    x = _arr(x)
    window_shape = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    if any(w < 0 for w in window_shape):
        raise located(ValueError, "`window_shape` cannot contain negative values")
    if axis is None:
        if len(window_shape) != x.ndim:
            raise located(ValueError, f"Since axis is `None`, must provide window_shape for all dimensions of "
                          f"`x`; got {len(window_shape)} window_shape elements and `x.ndim` is {x.ndim}.")
        axis = tuple(range(x.ndim))
    else:
        axis = tuple(V.normalize_axis(a, x.ndim) for a in (axis if np.iterable(axis) else (axis,)))
        if len(window_shape) != len(axis):
            raise located(ValueError, f"Must provide matching length window_shape and axis; got "
                          f"{len(window_shape)} window_shape elements and {len(axis)} axes elements.")
    shape = list(x.shape)
    for ax, w in zip(axis, window_shape):
        if shape[ax] < w:
            raise located(ValueError, "window shape cannot be larger than input array shape")
        shape[ax] -= w - 1
    strides = list(x.header.strides) + [x.header.strides[ax] for ax in axis]
    new = V.View.make(tuple(shape) + window_shape, strides, x.header.offset)
    return x.view_of(new, writeable=writeable and x.writeable)


@implements(np.diag)
def diag(v, k=0):
    """Of a matrix, NumPy's read-only view of the k-th diagonal; of a vector, a new matrix."""
    v = _arr(v)
    if v.ndim == 2:
        return v.diagonal(k)
    if v.ndim != 1:
        raise located(ValueError, "Input must be 1- or 2-d.")
    return _diag(v, k)


_diag = jnp_function(np.diag)


# --- index helpers of a shape: NumPy's own constants -------------------------------------


def _from_shape(func):
    def impl(arr, *args, **kwargs):
        probe = np.broadcast_to(np.empty((), np.uint8), shape_of(arr))
        return func(probe, *args, **kwargs)

    impl.__name__ = func.__name__
    return impl


for _f in (np.triu_indices_from, np.tril_indices_from, np.diag_indices_from):
    implements(_f)(_from_shape(_f))


# --- put --------------------------------------------------------------------------------


@implements(np.put)
def put(a, ind, v, mode="raise"):
    """``a.flat[ind] = v`` with NumPy's cyclic repetition of ``v``: a write into the flat view, or
    (where ``a`` is not contiguous, so its flat view would be a copy) into ``a`` at the unravelled
    indices."""
    if not isinstance(a, Tracer):
        raise located(UnsupportedError, "np.put into an array that is not traced")
    size = a.size
    if isinstance(ind, Tracer):
        if mode != "raise":
            raise located(UnsupportedError, f"np.put(mode={mode!r}) with traced indices")
        index = ind.reshape(-1)
    else:
        index = np.asarray(ind).reshape(-1)
        if index.dtype.kind not in "iu":
            raise located(TypeError, "Cannot cast array data from dtype('float64') to dtype('int64') "
                          "according to the rule 'safe'")
        if mode == "wrap":
            index = index % max(size, 1)
        elif mode == "clip":
            index = np.clip(index, 0, size - 1)
        elif index.size and (index.max() >= size or index.min() < -size):
            bad = index[(index >= size) | (index < -size)][0]
            raise located(IndexError, f"index {bad} is out of bounds for axis 0 with size {size}")
    n = int(np.prod(shape_of(index)))
    if n == 0:
        return
    values = v if isinstance(v, Tracer) else np.asarray(v, dtype=a.dtype)
    if int(np.prod(shape_of(values))) == 0:
        return
    values = np.reshape(values, -1)
    if values.size != n:  # NB: NumPy repeats the values cyclically
        values = np.resize(values, n)
    if a.flags.c_contiguous:
        a.reshape(-1)[index] = values
    else:
        a[np.unravel_index(index % size, a.shape)] = values


def put_method(self, indices, values, mode="raise"):
    return put(self, indices, values, mode)


put_method.__name__ = "put"
Tracer.put = put_method


# --- writes and loops NumPy does in Python ---------------------------------------------

_nan_to_num = jnp_function(np.nan_to_num)


@implements(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``copy=False`` replaces in place (a write into ``x``), as NumPy does."""
    x = _arr(x)
    if x.dtype.kind not in "fc":
        return x if not copy else x.copy()
    result = _nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)
    if copy:
        return result
    x[...] = result
    return x


@implements(np.apply_along_axis)
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """NumPy's Python loop over the 1-d slices, run on traced slices; the results are stacked
    in the first result's dtype and their axes put at ``axis``, as NumPy places them."""
    arr = _arr(arr)
    axis = V.normalize_axis(axis, arr.ndim)
    moved = np.moveaxis(arr, axis, -1)
    outer = moved.shape[:-1]
    if not all(outer):
        raise located(ValueError, "Cannot apply_along_axis when any iteration dimensions are 0")
    results = [_arr(func1d(moved[idx], *args, **kwargs)) for idx in np.ndindex(*outer)]
    first = results[0]
    out = np.stack([r.astype(first.dtype) for r in results]).reshape(outer + first.shape)
    # NB: the result's own axes replace the iterated axis
    return np.moveaxis(out, list(range(len(outer), out.ndim)), list(range(axis, axis + first.ndim)))


_choose = jnp_function(np.choose)


@implements(np.choose)
def choose(a, choices, out=None, mode="raise"):
    """NB: traced indices out of range are clamped (NumPy raises), as for other traced indices."""
    return _choose(a, choices, out=out, mode="clip" if mode == "raise" else mode)


class _Flat:
    """``a.flat``: reads index the C-order ravel; writes go through the flat view of a
    contiguous array."""

    def __init__(self, base: Tracer) -> None:
        self.base = base

    def _view(self, writing: bool) -> Tracer:
        if self.base.flags.c_contiguous:
            return self.base.reshape(-1)
        if writing:
            raise located(UnsupportedError, "writing through .flat of a non-contiguous view")
        return self.base.ravel()

    def __getitem__(self, key):
        return self._view(False)[key]

    def __setitem__(self, key, value) -> None:
        self._view(True)[key] = value

    def __len__(self) -> int:
        return self.base.size


Tracer.flat = property(_Flat)


def ufunc_reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """``ufunc.reduceat`` with static indices: each segment ``[i, j)`` reduced, ``a[i]`` itself
    where ``j <= i``, as NumPy defines it; the segments joined along ``axis``."""
    if isinstance(indices, Tracer):  # NB: a constant made inside f (np.array([...])) is known
        known = indices.trace.known_value(indices)
        if known is None:
            raise ConcretizationError(f"np.{ufunc.__name__}.reduceat with traced indices has a "
                                      f"data-dependent meaning\n  at {user_location()}")
        indices = known
    a = _arr(array)
    axis = V.normalize_axis(axis, a.ndim)
    idx = np.asarray(indices)
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise located(TypeError, "index must be a 1-d array of integers")
    n = a.shape[axis]
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise located(IndexError, f"index {bad[0]} out-of-bounds in {ufunc.__name__}.reduceat [0, {n})")
    ends = list(idx[1:]) + [n]
    parts = []
    for i, j in zip(idx, ends):
        seg = np.take(a, [int(i)], axis=axis) if j <= i else \
            ufunc.reduce(np.take(a, np.arange(i, j), axis=axis), axis=axis, dtype=dtype, keepdims=True)
        parts.append(seg if dtype is None else seg.astype(dtype))
    result = np.concatenate(parts, axis=axis)
    if out is not None:
        (target,) = out if isinstance(out, tuple) else (out,)
        target[...] = result
        return target
    return result


UFUNCS["reduceat"] = ufunc_reduceat


@implements(np.trapezoid)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """NumPy's own formula on traced operands, so its dtypes follow: ``y[1:] + y[:-1]`` is summed
    in the data's type (uint8 wraps) before the float multiply."""
    y = _arr(y)
    axis = V.normalize_axis(axis, y.ndim)
    if x is None:
        d = dx
    else:
        x = x if isinstance(x, Tracer) else np.asarray(x)
        if x.ndim == 1:
            d = np.diff(x)
            d = d.reshape([d.shape[0] if i == axis else 1 for i in range(y.ndim)])
        else:
            d = np.diff(x, axis=axis)
    hi = tuple(slice(1, None) if i == axis else slice(None) for i in range(y.ndim))
    lo = tuple(slice(None, -1) if i == axis else slice(None) for i in range(y.ndim))
    return (d * (y[hi] + y[lo]) / 2.0).sum(axis)
