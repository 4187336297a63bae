"""More of NumPy's library: histograms and counts, sliding windows, FFTs, linear algebra,
index helpers of a shape, ``put``; the Array API's views, ``rollaxis`` and the h/v/d splits,
value and dtype predicates, ``sort_complex``, ``unwrap``, ``gradient``, the coefficient-array
polynomials, packed bits, the in-place ``putmask`` / ``place``, and histograms of several dimensions.

Most are the generic ``jnp`` op of functions.py (NumPy decides the dtype, JAX the
value); the rules here add what NumPy's answer needs beyond that: a static output
length for ``np.bincount``, NumPy's default cut-off for ``np.linalg.pinv``,
NumPy's residuals for ``np.linalg.lstsq``, views for ``np.diag`` of a matrix and
``sliding_window_view``. Where NumPy's algorithm is a few array operations (np.unwrap,
np.polyder, np.histogramdd, np.gradient) it is written with traced NumPy operations, so that
NumPy's dtypes, views and writes follow. Anything whose output shape depends on the data raises
ConcretizationError naming the user's line.
"""

from __future__ import annotations

import builtins
import operator
import warnings
from typing import NamedTuple

import numpy as np

from .. import view as V
from ..errors import ConcretizationError, UnsupportedError, located, user_location
from ..ir import Access, Const
from ..tracer import UFUNCS, Tracer
from ._core import (
    check_cast,
    dtype_of,
    has_tracer,
    implements,
    laid_out,
    raise_where,
    result_dtype,
    sequence_as_array,
    shape_of,
    untraced_target,
)
from .creation import _static, array, asarray, constant, intercept
from .functions import (
    _RESULT_TYPES,
    FLOAT_COMPUTE,
    IN_DOUBLE,
    LIST_AS_ARRAY,
    _arr,
    _check_out_cast,
    _check_range,
    _known,
    _returned,
    jnp_function,
    traced_linspace,
)
from .indexing import value_fits

# NumPy computes these in floating point (float64 for integers, and for float32 where its
# result is float64: np.cov).
FLOAT_COMPUTE.update({"cov", "corrcoef", "polyval", "polyfit", "linalg.pinv", "linalg.lstsq",
                      "linalg.eigvalsh", "linalg.cholesky", "linalg.slogdet", "linalg.svd", "linalg.svdvals",
                      "linalg.eigh", "linalg.qr", "linalg.cond", "linalg.matrix_norm", "linalg.vector_norm",
                      "linalg.tensorinv", "linalg.tensorsolve"})
LIST_AS_ARRAY.update({("percentile", 1), ("quantile", 1), ("nanpercentile", 1), ("nanquantile", 1),
                      ("isin", 1), ("digitize", 1), ("polyval", 0),
                      ("convolve", 0), ("convolve", 1), ("correlate", 0), ("correlate", 1), ("histogram", 1),
                      ("interp", 0), ("interp", 1), ("interp", 2)})

# NumPy's methods (Hyndman and Fan's), by how each finds the virtual index of a quantile q among
# n sorted values: of (n - 1) q; of n q with alpha and beta (the continuous ones); at a boundary
# (the discrete ones: an integer index). jax.numpy has five of them, and rounds otherwise.
_FROM_N_MINUS_1 = {"linear": None, "lower": np.floor, "higher": np.ceil, "nearest": np.around, "midpoint": None}
_CONTINUOUS = {"interpolated_inverted_cdf": (0, 1), "hazen": (0.5, 0.5), "weibull": (0, 0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}
_DISCRETE = {"inverted_cdf": (1.0, lambda gamma, index: gamma == 0),
             "closest_observation": (1.5, lambda gamma, index: (gamma == 0) & (np.floor(index) % 2 == 1))}
_QUANTILE_METHODS = (*_FROM_N_MINUS_1, *_CONTINUOUS, *_DISCRETE, "averaged_inverted_cdf")
_PICKING = ("lower", "higher", "nearest", *_DISCRETE)  # NB: the others interpolate, an integer index too
_JAX_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint")  # NB: of a traced q


def _quantile(func):
    """NumPy's quantiles at a static ``q`` (`_quantiles`), every method; of integers, the
    difference of two neighbours in their own type wraps where it overflows (np.percentile of
    int8 [-100, 100] at 50 is 128.0), where JAX's floats would not; of float32, a float64 ``q``
    interpolates in float64 (jax.numpy's in float32). A traced ``q`` (or a tuple of axes) is
    jax.numpy's (within ulps), for the four methods it has as NumPy's."""
    generic = jnp_function(func)
    percent = "percentile" in func.__name__
    skip_nans = func.__name__.startswith("nan")

    def impl(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, **kwargs):
        method = kwargs.get("interpolation", method)
        if method not in _QUANTILE_METHODS:
            raise located(ValueError, f"{method!r} is not a valid method. Use one of: {_QUANTILE_METHODS}")
        known = _known(q)  # NB: np.array([50.0]) made inside is known
        qs = None if known is None or has_tracer(known) else np.true_divide(known, 100) if percent \
            else np.asanyarray(known)
        weights = kwargs.get("weights")
        if weights is not None:
            weights = _arr(weights)
            if not isinstance(a, Tracer) and (isinstance(weights, Tracer) or has_tracer(a)):
                a = _arr(a)  # NB: NumPy data (a list, an array) sorted with traced weights
            known_weights = _known(weights)
            with np.errstate(all="ignore"):  # NB: NumPy's errors of the method, q, axis, the weights' shape and
                func(np.ones(np.shape(a), getattr(a, "dtype", None)), 0.5 if qs is None else known,  # known values
                     axis=axis, method=method, keepdims=keepdims,
                     weights=np.ones(weights.shape) if known_weights is None else known_weights)
            if skip_nans or not (isinstance(a, Tracer) and a.dtype.kind in "iuf" and qs is not None and qs.dtype.kind
                                 in "biuf" and not isinstance(axis, tuple) and set(kwargs) == {"weights"}):
                raise located(UnsupportedError, f"np.{func.__name__}(weights=) is supported by elena_jax for a traced "
                              "integer or float array, a q known at trace time and one axis (or None); not for "
                              "np.nanquantile or np.nanpercentile")
            if out is not None:  # NB: NumPy's weighted branch writes into out casting unsafely
                _check_out_cast(func, (a, known), {"axis": axis, "keepdims": keepdims, "method": method,
                                                   "weights": np.ones(weights.shape)}, out)
            return _returned(func.__name__, [_weighted_quantiles(a, qs, weights, axis, keepdims)], out, False)
        if not (isinstance(a, Tracer) and a.dtype.kind in "iuf" and a.size and not kwargs and qs is not None
                and qs.dtype.kind in "biuf" and qs.ndim <= 1 and not isinstance(axis, tuple)):
            if method not in _JAX_QUANTILE_METHODS:
                raise located(UnsupportedError, f"np.{func.__name__}(method={method!r}) is not supported by "
                              "elena_jax with a traced q, several axes, weights or data that is not a traced "
                              "integer or float array (jax.numpy's rounds otherwise); these are: "
                              f"{', '.join(_JAX_QUANTILE_METHODS)}")
            if isinstance(q, Tracer):  # NB: NumPy's ValueError from the values (NaN too), in checked mode
                top = 100 if percent else 1
                raise_where(~np.all((q >= 0) & (q <= top)), ValueError,
                            f"{'Percentiles' if percent else 'Quantiles'} must be in the range [0, {top}]")
            return generic(a, q, axis=axis, out=out, overwrite_input=overwrite_input, method=method,
                           keepdims=keepdims, **kwargs)
        func(np.ones((1,) * a.ndim, a.dtype), known, axis=axis, keepdims=keepdims)  # NB: NumPy's errors (q, axis)
        if out is not None:  # NB: and its cast into out (an interpolation into integers is refused)
            _check_out_cast(func, (a, known), {"axis": axis, "keepdims": keepdims, "method": method}, out)
        weak = type(q) in (int, float)
        nans = skip_nans and a.dtype.kind == "f"
        return _returned(func.__name__, [_quantiles(a, qs, weak, axis, keepdims, method, nans)], out, False)

    impl.__name__ = func.__name__
    return impl


def _virtual_index(method: str, n, q: np.ndarray):
    """NumPy's virtual index of each quantile ``q`` among ``n`` sorted values (a Python int, or
    each row's count, traced, in q's type: NumPy's count is a Python int), with its ``method``;
    an integer one for the methods that pick an element."""
    if method in _FROM_N_MINUS_1:
        v = (n - 1) * q
        if method == "midpoint":
            return 0.5 * (np.floor(v) + np.ceil(v))
        return v if method == "linear" else _FROM_N_MINUS_1[method](v).astype(np.intp)
    if method in _CONTINUOUS:
        alpha, beta = _CONTINUOUS[method]
        return n * q + (alpha + q * (1 - alpha - beta)) - 1
    if method == "averaged_inverted_cdf":
        return n * q - 1
    shift, take_previous = _DISCRETE[method]
    index = n * q - shift
    previous = np.floor(index)
    chosen = np.where(take_previous(index - previous, index), previous, previous + 1).astype(np.intp)
    return np.maximum(chosen, 0)  # NB: NumPy clips the negative ones


_TABLE_MAX = 2**16  # NB: counts up to which the virtual indices are a table (a constant of the program)


def _virtual_indices_of_counts(method: str, count: Tracer, qs: np.ndarray, n: int):
    """The virtual indices of ``qs`` among each row's ``count`` values, ``qs``' axes first: NumPy's
    own arithmetic for every count from 0 to ``n`` (a count as a Python int of q's type), a table
    read at each row's count; of longer rows, computed (where XLA may contract a product and
    the sum it feeds, see `fma`)."""
    rows = count.ndim
    if n >= _TABLE_MAX:
        counts = count.astype(qs.dtype).reshape((1,) * qs.ndim + count.shape)
        return _virtual_index(method, counts, qs.reshape(qs.shape + (1,) * rows))
    counts = np.arange(n + 1).astype(qs.dtype if qs.dtype.kind == "f" else np.int64)
    table = _virtual_index(method, counts.reshape((n + 1,) + (1,) * qs.ndim), qs)
    return np.moveaxis(constant(table)[count], tuple(range(rows, rows + qs.ndim)), tuple(range(qs.ndim)))


def _fixed_gamma(method: str, gamma, virtual):
    """NumPy's interpolation weight: the fractional part of the virtual index, but at
    half-way for midpoint (0 on an element) and averaged_inverted_cdf (1 off a boundary)."""
    if method == "midpoint":
        return np.where(virtual % 1 == 0, 0.0, 0.5)
    if method == "averaged_inverted_cdf":
        return np.where(gamma == 0, 0.5, 1.0)
    return gamma


def _quantiles(a: Tracer, qs: np.ndarray, weak: bool, axis, keepdims: bool, method: str,
               skip_nans: bool = False) -> Tracer:
    """NumPy's quantiles ``qs`` along ``axis``: its virtual indices, neighbours, bounds, weights
    and ``_lerp`` formula (or the element picked), on the sorted array. A weight of a Python
    number ``q`` is used as a Python number (weak: float32 data stays float32). A row holding a
    NaN gives NaN; with ``skip_nans`` (np.nanquantile) a row's count is its non-NaN values, which
    sort first, so its virtual indices are traced and its neighbours gathered."""
    ax = 0 if axis is None else V.normalize_axis(axis, a.ndim)
    s = np.moveaxis(np.sort(np.ravel(a) if axis is None else a, axis=ax), ax, 0)
    if skip_nans:
        count = np.sum(~np.isnan(s), axis=0)
        virtual = _virtual_indices_of_counts(method, count, qs, s.shape[0])
    else:
        count = s.shape[0]
        virtual = _virtual_index(method, count, qs)
    last = count - 1 if skip_nans else None  # NB: each row's last value, where the rows differ
    if virtual.dtype.kind in "iu" and (method == "linear" or method in _PICKING):  # NB: an element itself
        return _quantile_result(s, _neighbours(s, virtual, last), a, axis, ax, qs, keepdims, skip_nans)
    below, above, floor = virtual < 0, virtual >= count - 1, np.floor(virtual)
    # NB: NumPy's -1 (the last value) above the bounds: in the weight too (0.0 - -0.0 keeps its sign)
    previous = np.where(above, -1, np.where(below, 0, floor)).astype(np.intp)
    following = np.where(above, -1, np.where(below, 0, floor + 1)).astype(np.intp)
    gamma = _fixed_gamma(method, virtual - previous, virtual).astype(virtual.dtype)  # NB: a float32 q's type kept
    if not skip_nans:
        gamma = float(gamma) if weak else gamma.reshape(qs.shape + (1,) * (s.ndim - 1))
    lo, hi = _neighbours(s, previous, last), _neighbours(s, following, last)
    diff = hi - lo  # NB: in the data's own type: NumPy's integers wrap
    t, rest = gamma, 1 - gamma
    if weak and skip_nans:  # NB: as a Python float's: 1 - gamma in float64, then the data's type
        t, rest = t.astype(s.dtype), rest.astype(s.dtype)
    r = np.where(gamma >= 0.5, hi - diff * rest, lo + diff * t)
    return _quantile_result(s, r, a, axis, ax, qs, keepdims, skip_nans)


def _weighted_quantiles(a: Tracer, qs: np.ndarray, weights, axis, keepdims: bool) -> Tracer:
    """NumPy's quantiles with weights (method inverted_cdf): its steps along ``axis``, the values
    sorted with their weights, the weights' running sum in float64 over their total (in q's type),
    and for each q the first value whose share reaches it. NB: NumPy's zeros of that sum made -1
    where its first one is zero: at any, the same (the sum never decreases); its searchsorted, the
    count of shares below q; equal values sorted stably, where NumPy's quicksort may order them
    otherwise (the value picked is the same, but for a share at q to the last bit). Negative or
    non-finite weights are NumPy's ValueError in checked mode only."""
    ax = 0 if axis is None else V.normalize_axis(axis, a.ndim)
    if axis is None:
        values, w = np.ravel(a), np.ravel(weights)
    else:
        values = np.moveaxis(a, ax, 0)
        w = np.moveaxis(weights, ax, 0) if np.ndim(weights) == a.ndim else weights
    order = np.argsort(values, axis=0, kind="stable")
    s = np.take_along_axis(values, order, axis=0)
    w = np.take_along_axis(w, order, axis=0) if np.shape(w) == s.shape else np.reshape(w, -1)[order]
    cdf = np.cumsum(w, axis=0, dtype=np.float64)
    cdf = cdf / cdf[-1]
    if isinstance(weights, Tracer):  # NB: NumPy's own call raised of known weights
        raise_where(np.any(weights < 0), ValueError, "Weights must be non-negative.")
        raise_where(np.any(np.isnan(cdf[-1])), ValueError, "Weights included NaN, inf or were all zero.")
    if qs.dtype.kind == "f":
        cdf = cdf.astype(qs.dtype)
    cdf = np.where(cdf == 0, -1, cdf)
    below = np.sum(cdf[None] < qs.reshape((-1,) + (1,) * s.ndim), axis=1)  # NB: q's axis first
    picked = np.take_along_axis(s[None], np.minimum(below, s.shape[0] - 1)[:, None], axis=1)[:, 0]
    return _quantile_result(s, picked.reshape(qs.shape + s.shape[1:]), a, axis, ax, qs, keepdims, False)


def _neighbours(s: Tracer, index, last) -> Tracer:
    """``s``'s elements at ``index`` along its first axis: static indices for all rows, or with
    ``last`` (each row's last value, a row's count less one) each row's own, -1 there (NumPy's
    index in the row's values); an all-NaN row's -1 is its first element, a NaN."""
    if last is None:
        return s[index]
    index = np.maximum(np.where(index < 0, last, index), 0)
    one_q = index.ndim < s.ndim
    taken = np.take_along_axis(s, index[None] if one_q else index, axis=0)
    return taken[0] if one_q else taken


def _quantile_result(s: Tracer, r: Tracer, a: Tracer, axis, ax: int, qs: np.ndarray, keepdims: bool,
                     skip_nans: bool) -> Tracer:
    """The quantiles ``r`` of the sorted ``s``, NaN (its last element) where a row holds a NaN
    (unless NaNs are skipped), shaped for ``keepdims``."""
    if a.dtype.kind == "f" and not skip_nans:
        r = np.where(np.isnan(s[-1]), s[-1], r)
    if keepdims:
        r = r.reshape(qs.shape + tuple(1 if axis is None or i == ax else m for i, m in enumerate(a.shape)))
    return r


for _f in (np.percentile, np.quantile, np.nanpercentile, np.nanquantile):
    implements(_f)(_quantile(_f))

EXTRA_GENERIC = ["lexsort", "correlate", "isin", "ediff1d", "block", "diagflat", "polyval", "polyfit"]
for _name in EXTRA_GENERIC:
    if hasattr(np, _name):
        implements(getattr(np, _name))(jnp_function(getattr(np, _name)))
_cov, _corrcoef = jnp_function(np.cov), jnp_function(np.corrcoef)


@implements(np.cov)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """NumPy's steps: the rows less their means, their products, times the reciprocal of the
    degrees of freedom. Of reals, symmetric as NumPy's (its ``X @ X.T`` is BLAS's syrk: one
    triangle, copied; XLA's product differed across the diagonal in the last bit: an acceptance
    campaign's find). The products themselves are XLA's, not BLAS's: the last bits may differ
    (and so ties of a correlation matrix). Weighted, jax.numpy's."""
    if fweights is not None or aweights is not None or (ddof is not None and ddof != int(ddof)) \
            or np.ndim(m) > 2 or np.ndim(y) > 2:
        return _cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype=dtype)  # NB: and NumPy's errors
    m, y = _arr(m), None if y is None else _arr(y)
    if dtype is None:
        dtype = result_dtype(m, np.float64) if y is None else result_dtype(m, y, np.float64)
    X = array(m, ndmin=2, dtype=dtype)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return constant(np.array([]).reshape(0, 0))
    if y is not None:
        y = array(y, copy=None, ndmin=2, dtype=dtype)
        X = np.concatenate((X, y.T if not rowvar and y.shape[0] != 1 else y), axis=0)
    fact = X.shape[1] - (ddof if ddof is not None else 0 if bias else 1)
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
        fact = 0.0
    X = X - np.average(X, axis=1)[:, None]
    c = np.dot(X, X.T.conj())
    if c.dtype.kind != "c":
        c = np.where(np.triu(np.ones(c.shape, bool)), c, c.T)
    c *= np.true_divide(1, fact)
    return c.squeeze()


@implements(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, *args, dtype=None, **kwargs):
    """NumPy's steps on `cov`: divided by the standard deviations of the rows, then of the
    columns, clipped to [-1, 1] part by part (bias and ddof, deprecated: jax.numpy's)."""
    if args or kwargs:
        return _corrcoef(x, y, rowvar, *args, dtype=dtype, **kwargs)
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim != 2:
        return c / c  # NB: NumPy's scalar covariance: NaN where it is NaN, inf or 0, else 1
    stddev = np.sqrt(np.diag(c).real)
    c /= stddev[:, None]
    c /= stddev[None, :]
    np.clip(c.real, -1, 1, out=c.real)
    if c.dtype.kind == "c":
        np.clip(c.imag, -1, 1, out=c.imag)
    return c


@implements(np.digitize)
def digitize(x, bins, right=False):
    """NumPy's steps: the bins' direction as NumPy finds it (`_ascending`), then np.searchsorted
    in the bins, reversed where they descend. NumPy's ValueError for bins neither increasing nor
    decreasing: at once for bins known at trace time, in checked mode for traced ones. (jax.numpy's
    answered such bins, and took the direction from the ends: [0, 1, nan] descended.)"""
    known = _known(bins)
    traced = known is None or has_tracer(known)
    bins = _arr(bins) if traced else np.asarray(known)
    probe = np.zeros(bins.shape, bins.dtype) if traced else bins  # NB: all equal: its shape and dtype checked
    np.digitize(np.zeros(0, dtype_of(x)), probe, right)  # NB: NumPy's own errors (x, the bins)
    b = bins.astype(np.float64)  # NB: NumPy compares the bins in float64 for their order
    ascending = _ascending(b)
    if traced:
        raise_where(np.where(ascending, np.any(b[:-1] > b[1:]), np.any(b[:-1] < b[1:])), ValueError,
                    "bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"

    def up():
        return np.searchsorted(bins, x, side)

    def down():
        return len(bins) - np.searchsorted(bins[::-1], x, side)

    return np.where(ascending, up(), down()) if isinstance(ascending, Tracer) else up() if ascending else down()


def _ascending(bins):
    """Whether NumPy takes ``bins`` (float64) as ascending: its first value is less than the
    first one unequal to it (a NaN is unequal to all), or all are equal. Then NumPy raises
    where one value is greater than the next; else where one is less than the next."""
    if bins.size < 2:
        return True
    rest = bins[1:]
    same = rest == bins[0]
    return np.all(same) | (bins[0] < rest[np.argmin(same)])


FFT = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
       "fftshift", "ifftshift"]


def _fft_nd(name: str):
    """np.fft's fftn, ifftn, fft2, ifft2; with an axis repeated, which jax.numpy refuses, NumPy's own
    steps: a 1-D transform along each axis in turn, the last first, each of the length asked for it."""
    func = getattr(np.fft, name)
    generic = jnp_function(func, f"fft.{name}")
    one = np.fft.ifft if name.startswith("i") else np.fft.fft
    default = (-2, -1) if name.endswith("2") else None

    def impl(a, s=None, axes=default, norm=None, out=None):
        ndim = np.ndim(a)
        if isinstance(axes, Tracer) and (known := _known(axes)) is not None:  # NB: made inside (np.arange(2))
            axes = [int(x) for x in np.ravel(known)]
        if axes is not None and (s is None or len(s) == len(axes)) and all(-ndim <= x < ndim for x in axes) \
                and len({x % ndim for x in axes}) < len(axes):
            # NB: -1 (or no s) is the axis' length before the first step; out= is every step's, as NumPy's
            lengths = [np.shape(a)[x] if s is None or s[k] == -1 else s[k] for k, x in enumerate(axes)]
            for k in reversed(range(len(axes))):
                a = one(a, n=lengths[k], axis=axes[k], norm=norm, out=out)
            return a
        return generic(a, s=s, axes=axes, norm=norm, out=out)

    impl.__name__ = name
    return impl


for _name in FFT:
    _impl = _fft_nd(_name) if _name in ("fftn", "ifftn", "fft2", "ifft2") else \
        jnp_function(getattr(np.fft, _name), f"fft.{_name}")
    implements(getattr(np.fft, _name))(_impl)
FLOAT_COMPUTE.update(f"fft.{n}" for n in FFT if "shift" not in n)
IN_DOUBLE.update({"fft.fft", "fft.rfft"})  # NB: not the inverse ones, nor fft2 (rounded between axes)



def _traced_constant(func):
    """A function of static sizes only, as a traced constant (known at trace time): a traced
    index can then read it (``freqs[np.argmax(spec)]``), which a NumPy array refuses."""

    def impl(*args, **kwargs):
        _static(*args, *kwargs.values())
        value = func(*args, **kwargs)
        return constant(value) if isinstance(value, np.ndarray) else value

    impl.__name__ = func.__name__
    return impl


for _module, _name in [(np, "hanning"), (np, "hamming"), (np, "blackman"), (np, "bartlett"), (np, "kaiser")]:
    intercept(_module, _name, _traced_constant(getattr(_module, _name)))


def _frequencies(func):
    """``np.fft.fftfreq``/``rfftfreq``: a constant, or of a traced spacing ``d`` (``x[1] - x[0]``)
    NumPy's own steps, the sample frequencies' integers times ``1.0 / (n * d)``."""
    constant_of = _traced_constant(func)

    def impl(n, d=1.0, device=None):
        if not isinstance(d, Tracer):
            return constant_of(n, d, device=device)
        _static(n)
        func(n, 1.0)  # NB: NumPy's errors (n not an integer, negative)
        k = np.arange(n // 2 + 1) if func.__name__ == "rfftfreq" else \
            np.concatenate([np.arange((n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
        return constant(k) * (1.0 / (n * d))

    impl.__name__ = func.__name__
    return impl


for _name in ("fftfreq", "rfftfreq"):
    intercept(np.fft, _name, _frequencies(getattr(np.fft, _name)))

for _name in ("eigvalsh", "slogdet", "matrix_power", "svd", "svdvals", "eigh", "qr", "cond", "matrix_rank",
              "multi_dot", "vecdot", "matrix_norm", "trace", "diagonal", "matmul",
              "matrix_transpose", "tensorsolve", "tensorinv"):
    implements(getattr(np.linalg, _name))(jnp_function(getattr(np.linalg, _name), f"linalg.{_name}"))

_cholesky = jnp_function(np.linalg.cholesky, "linalg.cholesky")


@implements(np.linalg.cholesky)
def cholesky(a, /, *, upper=False):
    """NumPy's factor of the lower triangle, or with ``upper`` of the upper one: the conjugate
    transpose of the lower factor of the conjugate transpose (jax.numpy's reads the lower one)."""
    if not upper:
        return _cholesky(a)
    flipped = np.conj(np.swapaxes(_arr(a), -1, -2))
    return np.conj(np.swapaxes(_cholesky(flipped), -1, -2))


_NORM = np.linalg.norm
_jax_norm = jnp_function(np.linalg.norm, "linalg.norm")


@implements(np.linalg.norm)
def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's steps, whose sums are then NumPy's bit for bit: every norm along given axes and
    every ``ord`` but these, which are jax.numpy's: the whole array's 2-norm (NumPy's is a dot
    product, BLAS's order) and the matrix 2-, -2- and nuclear norms (singular values)."""
    x = _arr(x)
    with np.errstate(all="ignore"):
        _NORM(np.zeros((1,) * x.ndim, x.dtype), ord, axis, keepdims)  # NB: NumPy's errors (ord, axis)
    if x.dtype.kind not in "fc":
        x = x.astype(float)
    if axis is None and (ord is None or ord in ("f", "fro") and x.ndim == 2 or ord == 2 and x.ndim == 1) \
            or isinstance(axis, tuple) and len(axis) == 2 and ord in (2, -2, "nuc") \
            or axis is None and x.ndim == 2 and ord in (2, -2, "nuc"):
        return _jax_norm(x, ord, axis, keepdims)
    axis = tuple(range(x.ndim)) if axis is None else axis if isinstance(axis, tuple) else (int(axis),)  # NB: as NumPy
    if len(axis) == 1:
        return _vector_norm(x, ord, axis, keepdims)
    rows, cols = (V.normalize_axis(a, x.ndim) for a in axis)
    if ord in (None, "fro", "f"):
        r = np.sqrt(np.add.reduce((x.conj() * x).real, axis=axis))
    else:  # NB: 1, -1 sum down columns; inf, -inf along rows
        summed, then = (rows, cols - (cols > rows)) if ord in (1, -1) else (cols, rows - (rows > cols))
        sums = np.add.reduce(abs(x), axis=summed)
        r = sums.max(axis=then, initial=0) if ord in (1, np.inf) else sums.min(axis=then)
    if keepdims:
        r = r.reshape([1 if i in (rows, cols) else n for i, n in enumerate(x.shape)])
    return r


def _vector_norm(x, ord, axis: tuple, keepdims: bool):
    """NumPy's vector norms along one axis."""
    if ord == np.inf:
        return abs(x).max(axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return abs(x).min(axis=axis, keepdims=keepdims)
    if ord == 0:
        return (x != 0).astype(x.real.dtype).sum(axis=axis, keepdims=keepdims)
    if ord == 1:
        return np.add.reduce(abs(x), axis=axis, keepdims=keepdims)
    if ord is None or ord == 2:
        return np.sqrt(np.add.reduce((x.conj() * x).real, axis=axis, keepdims=keepdims))
    powers = abs(x)
    powers **= ord
    r = np.add.reduce(powers, axis=axis, keepdims=keepdims)
    r **= np.reciprocal(ord, dtype=r.dtype)
    return r


@implements(np.linalg.vector_norm)
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """NumPy's steps: the axes moved first and made one, then `norm` along it."""
    x = _arr(x)
    with np.errstate(all="ignore"):
        np.linalg.vector_norm(np.zeros((1,) * x.ndim, x.dtype), axis=axis, keepdims=keepdims, ord=ord)  # NB: errors
    shape = list(x.shape)
    if axis is None:
        y, along = x.ravel(), 0
    elif isinstance(axis, tuple):
        axes = [V.normalize_axis(a, x.ndim) for a in axis]
        rest = [i for i in range(x.ndim) if i not in axes]
        lead = int(np.prod([x.shape[i] for i in axes]))
        y = x.transpose(list(axis) + rest).reshape(lead, *[x.shape[i] for i in rest])
        along = 0
    else:
        y, along = x, axis
    r = norm(y, axis=along, ord=ord)
    if keepdims:
        reduced = range(len(shape)) if axis is None else np.atleast_1d(axis)
        for i in reduced:
            shape[V.normalize_axis(int(i), len(shape))] = 1
        r = r.reshape(shape)
    return r


@implements(np.outer)
def outer(a, b, out=None):
    """NumPy's own step, ``np.multiply`` of the raveled operands as a column and a row (its
    errors name these shapes): each product NumPy's (rounded on its own with ``fma=False``;
    jax.numpy's were contracted, 743 of 3000 values of ``c - np.outer(a, b)`` an ulp off)."""
    return np.multiply(np.ravel(a)[:, None], np.ravel(b)[None, :], out=out)


@implements(np.linalg.outer)
def linalg_outer(x1, x2, /):
    """``np.outer`` of two vectors (NumPy's ValueError for others, from probes)."""
    np.linalg.outer(np.zeros((1,) * np.ndim(x1)), np.zeros((1,) * np.ndim(x2)))
    return outer(x1, x2)


@implements(np.vander)
def vander(x, N=None, increasing=False):
    """NumPy's own steps: each row a running product of x (np.multiply.accumulate), so that x
    itself and its powers are NumPy's bit for bit (jax.numpy's complex powers were not: fuzz
    seed 9302, #75, np.isin(b, np.vander(b.ravel())) was False where NumPy's is True)."""
    x = _arr(x)
    if x.ndim != 1:
        raise located(ValueError, "x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else N
    v = np.empty_like(x, np.promote_types(x.dtype, int), shape=(x.shape[0], n))
    powers = v if increasing else v[:, ::-1]
    if n > 0:
        powers[:, 0] = 1
    if n > 1:
        powers[:, 1:] = x[:, None]
        np.multiply.accumulate(powers[:, 1:], out=powers[:, 1:], axis=1)
    return v


@implements(np.linalg.cross)
def linalg_cross(x1, x2, /, *, axis=-1):
    x1, x2 = _arr(x1), _arr(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise located(ValueError, "Both input arrays must be (arrays of) 3-dimensional vectors, but they are "
                      f"{x1.shape[axis]} and {x2.shape[axis]} dimensional instead.")
    return np.cross(x1, x2, axis=axis)


def _check_square(a) -> None:
    """NumPy's LinAlgError for an operand that is no stack of square matrices (before its dtype)."""
    if a.ndim < 2:
        raise located(np.linalg.LinAlgError,
                      f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise located(np.linalg.LinAlgError, "Last 2 dimensions of the array must be square")


def _complex_eig(name: str):
    """``np.linalg.eig``/``eigvals`` of a complex matrix; of a real one NumPy's result is real or
    complex depending on the values (real where every eigenvalue is), which a trace cannot know."""
    generic = jnp_function(getattr(np.linalg, name), f"linalg.{name}")

    def impl(a):
        _check_square(_arr(a))
        if _arr(a).dtype.kind != "c":
            raise located(ConcretizationError, f"np.linalg.{name} of a real matrix is real or complex depending on "
                                               "its values; pass a complex one (a.astype(complex)), or use "
                                               "np.linalg.eigh/eigvalsh for a symmetric one")
        return generic(a)

    return impl


implements(np.linalg.eig)(_complex_eig("eig"))
implements(np.linalg.eigvals)(_complex_eig("eigvals"))
_RESULT_TYPES["linalg.eig"] = type(np.linalg.eig(np.eye(2)))

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
    """Of a traced array, NumPy's length is ``max(x.max() + 1, minlength)``: static where x's
    value is known at trace time (made inside f from constants, as np.nonzero's) or where the
    dtype bounds the values below ``minlength`` (uint8 pixels with ``minlength=256``)."""
    x = _arr(x)
    if x.dtype.kind not in "biu":  # NB: NumPy takes the integers as intp, before it reads minlength
        check_cast(x.dtype, np.intp, "safe")
    if minlength is None or minlength < 0:
        raise located(ValueError, "'minlength' must not be negative")
    known = _known(x)
    if x.dtype.kind not in "bu":
        bound = None
    else:
        bound = 2 if x.dtype.kind == "b" else 1 << (8 * x.dtype.itemsize)
    if known is not None:  # NB: NumPy's length, and its errors (negative values, floats), at trace time
        minlength = len(np.bincount(known, minlength=minlength))
    elif bound is None or minlength < bound:
        raise ConcretizationError(
            "np.bincount's output length is max(x.max() + 1, minlength), which depends on the data; "
            "it is static only for an unsigned or bool array whose dtype bounds its values below "
            "minlength (np.bincount(uint8_array, minlength=256)); use np.histogram with bins and range, "
            f"or np.add.at into np.zeros(n)\n  at {user_location()}")
    if weights is not None:  # NB: NumPy adds the weights in float64, whatever their type
        weights = _arr(weights)
        check_cast(weights.dtype, np.float64, "safe")
        weights = weights.astype(np.float64)
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
    if np.ndim(bins) == 0:
        edges = _uniform_edges(a, _bin_count(bins), range)
    else:
        edges = _arr(bins)  # NB: NumPy returns its own array of the edges, never bins
    a = _as_binned(a)
    common = np.result_type(a.dtype, edges.dtype)
    if common.kind == "f" and common != a.dtype:  # NB: NumPy compares the data in the edges' wider type
        a = a.astype(common)
    weights = None if weights is None else _arr(weights)
    if weights is not None and weights.dtype.kind != "c":
        counts = _weighted_counts(a, edges, weights, equal=np.ndim(bins) == 0)
    else:
        counts = _histogram(a, edges, weights=weights)[0]
    if density:
        counts = counts / np.diff(edges).astype(np.float64) / counts.sum()
    return counts, edges


_histogram_bin_edges = jnp_function(np.histogram_bin_edges)


@implements(np.histogram_bin_edges)
def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """`histogram`'s edges of a number of bins over real data: NumPy's rounding (jax.numpy's
    float32 edges were an ulp off) and its ValueError, in checked mode, for an automatic range
    that is not finite (jax.numpy's edges were NaN). Else jax.numpy's."""
    a = _arr(a)
    if weights is not None and shape_of(weights) != a.shape:
        raise located(ValueError, "weights should have the same shape as a.")
    if isinstance(bins, str) or np.ndim(bins) != 0 or a.dtype.kind == "c":
        return _histogram_bin_edges(a, bins, range)
    return _uniform_edges(a, _bin_count(bins), range)


def _as_binned(a: Tracer) -> Tracer:
    """``a`` as NumPy bins it: integers and booleans as float64 (exact, where a float32 range
    makes small integers' edges float32)."""
    return a.astype(np.float64) if a.dtype.kind in "biu" else a


def _bin_count(bins) -> int:
    """A number of bins as NumPy takes it: an integer (a float is refused)."""
    try:
        return operator.index(bins)
    except TypeError:
        raise located(TypeError, "`bins` must be an integer, a string, or an array") from None


_BLOCK = 65536  # NB: NumPy's histogram takes its data in blocks of this many values


def _weighted_counts(a: Tracer, edges: Tracer, weights: Tracer, equal: bool) -> Tracer:
    """NumPy's weighted counts, block after block of the raveled data, in the weights' type: of
    equal bins, the weights of each bin added in float64 in the data's order (its np.bincount);
    of given edges, differences at the edges of the running sum of the weights sorted by value."""
    if weights.shape != a.shape:
        raise located(ValueError, "weights should have the same shape as a.")
    a, weights, bins = a.ravel(), weights.ravel(), edges.shape[0] - 1
    n = _arr(np.zeros(bins if equal else bins + 1, weights.dtype))
    for i in builtins.range(0, a.shape[0], _BLOCK):
        block, w = a[i : i + _BLOCK], weights[i : i + _BLOCK]
        if equal:
            index = np.minimum(np.searchsorted(edges, block, side="right") - 1, bins - 1)
            kept = (block >= edges[0]) & (block <= edges[-1])
            sums = _arr(np.zeros(bins))
            np.add.at(sums, np.where(kept, index, 0), np.where(kept, w.astype(np.float64), 0.0))
            n += sums.astype(weights.dtype)
        else:
            order = np.argsort(block, kind="stable")  # NB: NumPy's own sort may order ties otherwise (Known limits)
            running = np.concatenate((np.zeros(1, weights.dtype), np.cumsum(w[order])))
            sa = block[order]
            n += running[np.concatenate((np.searchsorted(sa, edges[:-1], "left"),
                                         np.searchsorted(sa, edges[-1:], "right")))]
    return n if equal else np.diff(n)


def _uniform_edges(a: Tracer, bins: int, range) -> Tracer:
    """NumPy's ``linspace(first, last, bins + 1)``: of a static range, NumPy's own (in float64,
    cast to the type of the range and the data, float64 of integers); of the data's min and
    max, computed in the data's float type, rounded as NumPy rounds it (`traced_linspace`),
    NumPy's ValueError in checked mode where they are not finite.

    NB: the data's own type: of uint8 data and a float32 range NumPy's edges are float32
    (float64 once the data was float64; an acceptance campaign's find, session 22)."""
    probe = np.zeros(1, a.dtype)
    if range is not None and has_tracer(list(range)):
        return _edges_of_traced_range(a, bins, *range)
    if range is not None or a.size == 0:  # NB: static edges: NumPy computes them itself
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return constant(np.histogram_bin_edges(probe if range is not None else probe[:0], bins, range))
    if bins < 1:
        raise located(ValueError, "`bins` must be positive, when an integer")
    a = _as_binned(a)
    first, last = a.min(), a.max()
    raise_where(~(np.isfinite(first) & np.isfinite(last)), ValueError,
                "autodetected range of the data (its min and max) is not finite")
    same = first == last
    return traced_linspace(np.where(same, first - 0.5, first), np.where(same, last + 0.5, last), bins + 1)


def _edges_of_traced_range(a: Tracer, bins: int, first, last) -> Tracer:
    """NumPy's edges of a ``range`` with traced ends: its ValueErrors (in checked mode), the ends
    moved 0.5 apart where equal (in their own types), and its linspace in the type of the ends
    (Python numbers weak), cast to the type of the ends and the data (float64 for integers)."""
    if bins < 1:
        raise located(ValueError, "`bins` must be positive, when an integer")
    raise_where(first > last, ValueError, "max must be larger than min in range parameter.")
    raise_where(~(np.isfinite(first) & np.isfinite(last)), ValueError, "supplied range is not finite")
    same = first == last
    computed = result_dtype(first, last, 1.0)
    edge_type = result_dtype(first, last, a.dtype)
    lo, hi = (np.where(same, asarray(end + by).astype(computed), asarray(end).astype(computed))
              for end, by in ((first, -0.5), (last, 0.5)))
    return traced_linspace(lo, hi, bins + 1, dtype=edge_type if edge_type.kind == "f" else np.float64)


@implements(np.piecewise)
def piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's steps: ``y[cond] = func(x[cond])`` condition after condition over zeros, the
    conditions (one made a list of one, the "otherwise" one added) as NumPy reads them.

    ``x[cond]`` has a data-dependent length, so each function runs on all of the selection's
    elements at once, in NumPy's rank (one axis for the selected elements), which gives NumPy's
    values where it computes each element from that element alone (`_elementwise`)."""
    x = _arr(x)
    if _one_condition(x, condlist):
        condlist = [condlist]
    conditions = asarray(condlist).astype(bool)
    if len(conditions) == len(funclist) - 1:
        conditions = np.concatenate([conditions, ~np.any(conditions, axis=0, keepdims=True)], axis=0)
    elif len(conditions) != len(funclist):
        raise located(ValueError, f"with {len(conditions)} condition(s), either {len(conditions)} or "
                      f"{len(conditions) + 1} functions are expected")
    y = np.zeros_like(x)
    for cond, func in zip(conditions, funclist):
        if callable(func) and x.size == 0:
            continue  # NB: NumPy calls a function on selected elements only
        # NB: a condition of fewer axes than x selects along x's leading ones, as a boolean index
        values = _elementwise(func, x, cond.ndim, args, kw) if callable(func) else _selection_value(
            func, y.dtype, x.shape[cond.ndim:])
        np.copyto(y, values, casting="unsafe", where=cond.reshape(cond.shape + (1,) * (x.ndim - cond.ndim)))
    return y


def _selection_value(value, dtype: np.dtype, each: tuple[int, ...]):
    """A value written at a data-dependent selection of elements of shape ``each``, ``y[cond] = value``,
    as NumPy converts it: a Python number or a list into ``dtype`` itself (NaN into integers:
    ValueError; 1j into floats: TypeError), an array by a cast; one that broadcasts to ``each``
    (more values fit one count of selected elements only)."""
    if isinstance(value, (int, float, complex, str, bytes, list, tuple)) and not has_tracer(value):
        value = np.array(value, dtype=dtype)
    if not value_fits(shape_of(value), each):
        raise ConcretizationError(f"np.piecewise with a value of shape {shape_of(value)}: NumPy writes it at the "
                                  "selected elements, so it fits one count of them only, a data-dependent shape\n"
                                  f"  at {user_location()}")
    return value


@implements(np.i0)
def i0(x):
    """NumPy's own steps (its Chebyshev series on each side of 8, through np.piecewise), run on
    the tracer: NumPy's rounding, and no JAX code traced in elena_jax's 64-bit scope (jax.numpy's
    i0 of integers failed to lower under an outer jax.jit with x64 off: campaign J)."""
    x = _arr(x)
    if x.dtype.kind == "c":
        raise located(TypeError, "i0 not supported for complex values")
    if x.dtype.kind != "f":
        x = x.astype(float)
    x = np.abs(x)
    from numpy.lib import _function_base_impl as steps  # NB: NumPy's private ones (NumPy 2): only np.i0 needs them

    return np.piecewise(x, [x <= 8.0], [steps._i0_1, steps._i0_2])


def _one_condition(x: Tracer, condlist) -> bool:
    """Whether np.piecewise takes ``condlist`` as one condition (``np.piecewise(x, x > 0, [f])``):
    NumPy's test, a traced array standing for a NumPy array and a traced scalar for a scalar."""
    if np.isscalar(condlist) or isinstance(condlist, Tracer) and condlist.ndim == 0:
        return True
    first = condlist[0]
    return not (isinstance(first, (list, np.ndarray)) or isinstance(first, Tracer) and not first.scalar) \
        and x.ndim != 0


# What a function of np.piecewise may record and still compute each element from that element alone.
_ELEMENTWISE_PRIMS = {"ufunc", "copy", "where", "full", "check"}
# Of jax.numpy's functions, those elementwise in their operands, but those at the indices listed
# (a polynomial's coefficients, interp's table), which may be any value read whole.
_ELEMENTWISE_JNP = {"sinc": (), "nan_to_num": (), "fix": (), "isclose": (), "angle": (), "select": (),
                    "polyval": (0,), "interp": (1, 2)}


def _elementwise(func, x: Tracer, lead: int, args, kw):
    """``func(x[cond])`` for every ``cond`` selecting along x's ``lead`` axes at once: ``func`` of a
    copy of all of x with those axes made one (NumPy's rank), reshaped back, where each of its values
    depends on the element of x at its own position alone (ufuncs, casts, np.where, of x as it is and
    of values the same everywhere) and not on the number of elements (``v / len(v)``); refused
    otherwise: a sum, a sort, a reversal, a position (``np.arange(len(v))``).

    The ops ``func`` records are followed: storages ``aligned`` with the selection (each element from
    the one at its position) and storages holding one value everywhere (``same``); then ``func`` runs
    again on one element, and must record the same ops with the same constants."""
    trace = x._trace
    selection = x.reshape((-1, *x.shape[lead:]))
    each = selection.shape[1:]
    result, ops = _recorded(trace, func, selection.copy(), args, kw)
    if selection.shape[0] == 1:  # NB: NumPy's one call, on the one element (or none)
        return _selection_value(result, x.dtype, each)
    reason = _not_elementwise(ops, selection.shape, result)
    if reason is None:
        try:
            one, ones = _recorded(trace, func, selection[:1].copy(), args, kw)
        except Exception:  # noqa: BLE001 (the function itself fails on one element: it depends on their number)
            one = ones = None
        if ones is None or _signature(ones) != _signature(ops) or (
                isinstance(one, Tracer) and not value_fits(one.shape, (1, *each))):
            reason = "depends on the number of elements (len(v), v.size, v.shape)"
    if reason is not None:
        name = getattr(func, "__name__", type(func).__name__)
        raise located(UnsupportedError, f"np.piecewise with {name}, which {reason}: NumPy calls it on the selected "
                      "elements only, elena_jax on all of them at once; write the cases with np.where or np.select")
    if not isinstance(result, Tracer):
        return _selection_value(result, x.dtype, each)
    return result.reshape(x.shape) if result.shape == selection.shape else result


def _recorded(trace, func, v: Tracer, args, kw) -> tuple:
    """``func(v)``, and the ops it records with ``v``."""
    start = len(trace.program.ops)
    result = func(v, *args, **kw)
    return result, (trace.program.ops[start:], v)


def _signature(recorded) -> list:
    """The ops of a call as they would be at any number of elements: prims, parameters, constants
    (not the copies that lay values out, which the shapes decide)."""
    ops, _ = recorded
    return [(op.prim, repr(sorted(op.params.items())), [(np.asarray(c.value).dtype.str, np.asarray(c.value).tobytes())
                                                        for c in constants])
            for op in ops for constants in [[a for a in op.ins if isinstance(a, Const)]]
            if op.prim != "copy" or constants]


def _not_elementwise(recorded, shape: tuple, result) -> str | None:
    """Why the recorded call does not compute each element from the one at its position, or None."""
    ops, v = recorded
    storages = v.storage.id  # NB: storages made before the call's copy of x are the caller's
    aligned, same = {v.storage}, set()

    def uniform(operand) -> bool:
        if isinstance(operand, Const):
            value = np.asarray(operand.value)
            return value.size <= 1 or np.array_equal(value, np.broadcast_to(value.flat[0], value.shape),
                                                     equal_nan=value.dtype.kind in "fc")
        return operand.storage in same or operand.storage not in aligned and all(
            s == 0 for s, n in zip(operand.view.strides, operand.view.shape) if n > 1)

    def reads_aligned(a) -> bool:
        return isinstance(a, Access) and a.storage in aligned

    def along(a) -> bool:
        return reads_aligned(a) and a.storage.shape == shape and a.view == V.contiguous(shape)

    for op in ops:
        tables = _ELEMENTWISE_JNP.get(op.params.get("name"), ()) if op.prim == "jnp" else ()
        elementwise = op.prim in _ELEMENTWISE_PRIMS or op.prim == "jnp" and op.params.get("name") in _ELEMENTWISE_JNP
        whole = all(o.view == V.contiguous(o.storage.shape) for o in op.outs)
        if any(o.storage.id <= storages and o.storage not in aligned for o in op.outs):
            return "writes into an array made outside it"
        same.difference_update(o.storage for o in op.outs)
        if not any(map(reads_aligned, [*op.ins, *op.outs])):
            if elementwise and whole and all(map(uniform, op.ins)):
                same.update(o.storage for o in op.outs)
            continue
        aligned.update(o.storage for o in op.outs)
        if not (elementwise and whole and all(o.storage.shape == shape for o in op.outs)
                and all(not reads_aligned(a) if k in tables else uniform(a) or along(a)
                        for k, a in enumerate(op.ins))):
            return _NOT_OWN_ELEMENT
    if isinstance(result, Tracer) and not (along(result.access) or uniform(result.access)) \
            or not isinstance(result, Tracer) and np.size(result) > 1:
        return _NOT_OWN_ELEMENT
    return None


_NOT_OWN_ELEMENT = "does not compute each element from that element alone (a sum, a sort, a reversal, a position)"


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
        raise untraced_target("np.put")
    if not a.writeable:
        raise located(ValueError, "put: output array is read-only")
    size = a.size
    if isinstance(ind, Tracer):
        index = ind.reshape(-1)
    else:
        index = np.asarray(ind).reshape(-1)
        if index.dtype.kind in "fb" and not isinstance(ind, np.ndarray):
            index = index.astype(np.intp)  # NB: NumPy converts a sequence's numbers as int() does
    if index.dtype.kind not in "iu":
        raise located(TypeError, f"Cannot cast array data from {index.dtype!r} to dtype('int64') "
                      "according to the rule 'safe'")
    n = int(np.prod(shape_of(index)))
    if size == 0 and n:
        raise located(IndexError, "cannot replace elements of an empty array")
    # NB: NumPy converts the values before it checks any index, and with none
    values = v if isinstance(v, Tracer) else np.asarray(v, dtype=a.dtype)
    if int(np.prod(shape_of(values))) == 0:
        return
    if mode == "wrap":
        index = index % max(size, 1)
    elif mode == "clip":
        index = np.clip(index, 0, size - 1)
    elif not isinstance(index, Tracer) and index.size and (index.max() >= size or index.min() < -size):
        bad = index[(index >= size) | (index < -size)][0]
        raise located(IndexError, f"index {bad} is out of bounds for axis 0 with size {size}")
    if n == 0:
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

def _nan_to_num(x, nan, posinf, neginf):
    """NumPy's replacements in a real array, each where ``x`` itself holds NaN or an infinity
    (jax.numpy's replaces an infinite ``nan`` value again by ``posinf``)."""
    info = np.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    return np.where(np.isnan(x), nan, np.where(np.isposinf(x), posinf, np.where(np.isneginf(x), neginf, x)))


@implements(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``copy=False`` replaces in place (a write into ``x``), as NumPy does; of a scalar NumPy's
    ``np.array(x, copy=False)`` refuses first."""
    if not copy and (x.scalar if isinstance(x, Tracer) else not isinstance(x, np.ndarray)):
        raise located(ValueError, "Unable to avoid copy while creating an array as requested.")
    x = _arr(x)
    if x.dtype.kind not in "fc":
        return x if not copy else x.copy()
    with np.errstate(over="ignore"):  # NB: the values in x's type, as NumPy's: 1e6 is float16's inf
        nan, posinf, neginf = (v if v is None else np.asarray(v, np.finfo(x.dtype).dtype)
                               for v in (nan, posinf, neginf))
    if x.dtype.kind == "c":  # NB: as NumPy's, of the real and imaginary parts apart
        result = np.empty_like(x)
        result.real = _nan_to_num(x.real, nan, posinf, neginf)
        result.imag = _nan_to_num(x.imag, nan, posinf, neginf)
    else:
        result = _nan_to_num(x, nan, posinf, neginf)
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
    """jax.numpy's, whose 'raise' clamps: NumPy's ValueError for choices out of range (`_check_range`:
    at once for known ones, in checked mode for traced ones), else clamped as other traced indices."""
    result = _choose(a, choices, out=out, mode="clip" if mode == "raise" else mode)
    a = sequence_as_array(a)
    if mode == "raise" and (a.dtype if isinstance(a, Tracer) else np.asarray(a).dtype).kind in "iu":
        n = len(choices) if isinstance(choices, (list, tuple)) else shape_of(choices)[0]
        _check_range(a, 0, n, ValueError, "invalid entry in choice array")
    return result


class _Flat:
    """``a.flat``: reads index the C-order ravel (copies, as NumPy's); writes go through the
    flat view of a contiguous array, or to the C-order positions of another."""

    def __init__(self, base: Tracer) -> None:
        self.base = base

    def _view(self, writing: bool) -> Tracer:
        if self.base.flags.c_contiguous:
            return self.base.reshape(-1)
        if writing:
            raise located(UnsupportedError, "writing through .flat of a non-contiguous view")
        return self.base.ravel()

    def __getitem__(self, key):
        return self._view(False)[key].copy()  # NB: NumPy's a.flat[...] is a copy, never a view

    def __setitem__(self, key, value) -> None:
        # NB: NumPy takes the values flat and repeats them cyclically over the selection, as np.put
        # does, copying one element at a time: a value overlapping the array reads what it wrote
        value = sequence_as_array(value)
        if isinstance(value, Tracer) and value.storage is self.base.storage \
                and V.overlap(value.header, self.base.header):
            raise located(UnsupportedError, "assigning a.flat from values that overlap a: NumPy copies one "
                          "element at a time and reads elements it has written; copy the values first")
        key = slice(None) if key is Ellipsis else sequence_as_array(key)
        if isinstance(key, slice):
            indices = np.arange(self.base.size)[key]
        elif isinstance(key, Tracer) and key.dtype.kind in "iu" or isinstance(key, (list, np.ndarray)) \
                and np.asarray(key).dtype.kind in "iu":
            indices = key
        else:
            self._view(True)[key] = value
            return
        if int(np.prod(shape_of(value))) == 0:
            return  # NB: nothing to repeat: NumPy writes nothing
        if isinstance(key, slice) and self.base.flags.c_contiguous:
            values = value if shape_of(value) == () else np.resize(np.reshape(value, -1), len(indices))
            self.base.reshape(-1)[key] = values
        else:  # NB: positions in C order, where a's flat view would be a copy, or an index array
            put(self.base, indices, value)

    def __len__(self) -> int:
        return self.base.size


def _assign_flat(a: Tracer, value) -> None:
    """``a.flat = value``: every element, in C order, from the values repeated cyclically."""
    a.check_not_scalar("flat")
    _Flat(a)[:] = value


Tracer.flat = property(_Flat, _assign_flat)


def ufunc_reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """``ufunc.reduceat`` with indices known at trace time: each segment ``[i, j)`` reduced, ``a[i]``
    itself where ``j <= i + 1``, as NumPy computes it (a lone element is copied: no identity applied,
    so ``np.hypot.reduceat`` keeps its sign); the segments joined along ``axis``. Traced indices:
    `_traced_reduceat`."""
    a = _arr(array)
    axis = V.normalize_axis(axis, a.ndim)
    if isinstance(indices, (Tracer, np.ndarray)):  # NB: an array's type must cast to intp safely, a list's not
        _check_index_array(np.ndim(indices), dtype_of(indices))
    if isinstance(indices, Tracer):  # NB: a constant made inside f (np.array([...])) is known
        known = _known(indices)
        if known is None:
            return _into(np.moveaxis(_traced_reduceat(ufunc, np.moveaxis(a, axis, -1), indices, dtype), -1, axis),
                         out)
        indices = known
    idx = np.asarray(indices)
    _check_index_array(idx.ndim, np.dtype(np.intp))
    idx = idx.astype(np.intp)  # NB: [0, 2.5] is [0, 2] to NumPy, [] no index
    n = a.shape[axis]
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise located(IndexError, f"index {bad[0]} out-of-bounds in {ufunc.__name__}.reduceat [0, {n})")
    kind = _reduceat_type(ufunc, a.dtype, dtype)
    runs = np.moveaxis(a, axis, -1)
    if not idx.size:
        return _into(np.moveaxis(np.zeros(runs.shape[:-1] + (0,), kind), -1, axis), out)
    ends = np.append(idx[1:], n)
    sizes = np.where(ends > idx + 1, ends - idx, 1)  # NB: j <= i + 1: the element a[i] alone
    parts, order = [], []
    for size in np.unique(sizes):  # NB: the segments of one size at once (one op each per size, not per segment)
        which = np.flatnonzero(sizes == size)
        # NB: gathered, then copied in C order (NumPy lays out a[..., index] otherwise): each run last, whole
        segments = runs[..., idx[which][:, None] + np.arange(size)].copy()
        parts.append((segments[..., 0] if size == 1 else _segments(ufunc, segments, dtype, kind)).astype(kind))
        order.append(which)
    result = np.concatenate(parts, axis=-1)
    placed = np.argsort(np.concatenate(order))
    if not np.array_equal(placed, np.arange(len(placed))):
        result = result[..., placed]
    return _into(np.moveaxis(result, -1, axis), out)


#: ufuncs whose reduction of a segment is the same in any order and grouping, by dtype kinds: the
#: integers' wrapping sums and products, the bitwise and logical ones, extrema (NaN propagates
#: either way; of equal zeros the sign kept is any one's, as for np.max), gcd (of absolute values)
_ORDER_FREE = {"add": "biu", "multiply": "biu", "bitwise_and": "biu", "bitwise_or": "biu", "bitwise_xor": "biu",
               "logical_and": "biufc", "logical_or": "biufc", "logical_xor": "biufc", "maximum": "biuf",
               "minimum": "biuf", "fmax": "biuf", "fmin": "biuf", "gcd": "iu"}


def _reduceat_type(ufunc, operand: np.dtype, dtype) -> np.dtype:
    """The type of ``ufunc.reduceat``'s result, NumPy's own answer: a lone element's copy is in it too."""
    return ufunc.reduceat(np.ones(1, operand), [0], dtype=dtype).dtype


def _check_index_array(ndim: int, dtype: np.dtype) -> None:
    """NumPy's errors for reduceat's indices of other than one axis, or an array of them of a type
    that does not cast to intp safely (float, uint64)."""
    if ndim != 1:
        raise located(ValueError, f"object {'too deep' if ndim else 'of too small depth'} for desired array")
    if not np.can_cast(dtype, np.intp, "safe"):
        raise located(TypeError, f"Cannot cast array data from {dtype!r} to {np.dtype(np.intp)!r} according to the "
                      "rule 'safe'")


def _traced_reduceat(ufunc, runs, indices, dtype):
    """``ufunc.reduceat`` of traced ``indices`` along the last axis of ``runs``, for a ufunc whose
    segments reduce alike in any order (`_ORDER_FREE`): each segment as the parts of lengths 2**k
    its length is made of (binary lifting), each part gathered from a table of the reductions of
    every run of 2**k elements. Elsewhere refused: NumPy's order of adding a float segment follows
    its length, which is data."""
    kind = _reduceat_type(ufunc, runs.dtype, dtype)
    if kind.kind not in _ORDER_FREE.get(ufunc.__name__, "") or runs.dtype.kind not in "biufc":
        raise ConcretizationError(
            f"np.{ufunc.__name__}.reduceat of {runs.dtype} with traced indices: its segments' lengths depend on "
            f"the data, and NumPy's order of reducing a segment ({ufunc.__name__} of {kind} is not exact in "
            f"every order) follows its length; pass the indices as a static argument (a tuple, with "
            f"static_argnums) or build them inside the function from known values\n  at {user_location()}")
    n = runs.shape[-1]
    if not indices.shape[0]:
        return np.zeros(runs.shape[:-1] + (0,), kind)
    indices = indices.astype(np.intp)  # NB: int8 indices of 200 elements: the end, 200, is no int8
    _check_range(indices, 0, n, IndexError, f"index{{}} out-of-bounds in {ufunc.__name__}.reduceat [0, {n})")
    start = np.clip(indices, 0, n - 1)
    ends = np.concatenate([start[1:], np.full(1, n, start.dtype)])
    remaining = np.where(ends > start + 1, ends - start, 1)  # NB: j <= i + 1: the element a[i] alone
    table, total, begun = runs.astype(kind), None, None
    for k in range(max(n.bit_length(), 1)):
        if k:  # NB: table k reduces each run of 2**k elements that fits
            half = 1 << (k - 1)
            table = ufunc(table[..., :-half], table[..., half:], dtype=kind)
        take = (remaining >> k) & 1 != 0
        part = table[..., np.minimum(start, table.shape[-1] - 1)]
        if total is None:
            total, begun = part, take
        else:
            both = ufunc(total, part, dtype=kind)
            total = np.where(take & begun, both, np.where(take, part, total))
            begun = begun | take
        start = start + np.where(take, 1 << k, 0)
    return total


def _into(result, out):
    """``result``, or written into the one ``out=`` array."""
    if out is not None:
        (target,) = out if isinstance(out, tuple) else (out,)
        target[...] = result
        return target
    return result


UFUNCS["reduceat"] = ufunc_reduceat


def _segments(ufunc, segments, dtype, kind: np.dtype):
    """Segments of reduceat (along the last axis of a fresh array) as NumPy's loop reduces each:
    its first element, then the rest as one run whatever the axis (a float sum pairwise),
    combined with the first last. float16 runs are summed in float32, rounded once."""
    if ufunc is not np.add or kind.kind not in "fc":
        return ufunc.reduce(segments, axis=-1, dtype=dtype)
    wide = np.dtype(np.float32) if kind == np.float16 else kind
    return (segments[..., 0].astype(wide) + np.add.reduce(segments[..., 1:], axis=-1, dtype=wide)).astype(kind)


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


@implements(np.gradient)
def gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's steps on traced operands, so that its values are NumPy's to the bit (with
    ``fma=False``) and its dtypes follow: ``(f[2:] - f[:-2]) / (2. * dx)`` inside for a scalar
    spacing, its a/b/c coefficients of the coordinate differences for non-uniform ones, one-
    or second-order edges; integers as float64. NumPy takes coordinates that are evenly spaced
    (every difference equal) as the scalar spacing of their first difference: a test of the
    values, so of traced coordinates both are computed and the test selects. NB: bool data
    with traced coordinates raises NumPy's TypeError of the uniform ``f[2:] - f[:-2]`` even
    where NumPy, on uneven coordinates, would not subtract."""
    f = _arr(f)
    axes = tuple(range(f.ndim)) if axis is None else np.lib.array_utils.normalize_axis_tuple(axis, f.ndim)
    if not varargs:
        dx = [1.0] * len(axes)
    elif len(varargs) == 1 and _ndim(varargs[0]) == 0:
        dx = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        dx = [_spacing(d, f.shape[i]) for d, i in zip(varargs, axes)]
    else:
        raise located(TypeError, "invalid number of arguments")
    if edge_order > 2:
        raise located(ValueError, "'edge_order' greater than 2 not supported")
    if f.dtype.kind in "iu":
        f = f.astype(np.float64)
    otype = f.dtype if f.dtype.kind in "fc" else np.dtype(np.float64)  # NB: bool data stays bool, as NumPy's
    outvals = []
    for i, ax_dx in zip(axes, dx):
        if f.shape[i] < edge_order + 1:
            raise located(ValueError, "Shape of array too small to calculate a numerical gradient, "
                                      "at least (edge_order + 1) elements are required.")
        if isinstance(ax_dx, _TracedCoordinates):
            along = [_gradient_along(f, i, d, edge_order, otype) for d in (ax_dx.first, ax_dx.differences)]
            outvals.append(np.where(ax_dx.even, *along))
        else:
            outvals.append(_gradient_along(f, i, ax_dx, edge_order, otype))
    return outvals[0] if len(axes) == 1 else tuple(outvals)


class _TracedCoordinates(NamedTuple):
    """The spacing of traced coordinates along one axis: their differences, the first of them,
    and whether all are equal to it (then NumPy's spacing is ``first``, a scalar)."""

    differences: Tracer
    first: Tracer
    even: Tracer


def _ndim(x) -> int:
    return len(shape_of(sequence_as_array(x)))


def _spacing(distances, n: int):
    """NumPy's spacing along an axis of length ``n`` from one of ``np.gradient``'s varargs: a
    scalar as given; coordinates as their differences (float64 for integers), or, where all
    are equal, the first of them."""
    d = sequence_as_array(distances)
    known = _known(d)  # NB: coordinates known at trace time (or constants) are NumPy's to test
    d = d if known is None else np.asanyarray(known)
    if d.ndim == 0:
        return distances
    if d.ndim != 1:
        raise located(ValueError, "distances must be either scalars or 1d")
    if len(d) != n:
        raise located(ValueError, "when 1d, distances must match the length of the corresponding dimension")
    if d.dtype.kind in "iu":  # NB: NumPy's integer coordinates in float64, lest np.diff wrap
        d = d.astype(np.float64)
    diffx = np.diff(d)
    if isinstance(diffx, Tracer):
        return _TracedCoordinates(diffx, diffx[0], np.all(diffx == diffx[0]))
    return diffx[0] if (diffx == diffx[0]).all() else diffx


def _gradient_along(f: Tracer, axis: int, ax_dx, edge_order: int, otype: np.dtype) -> Tracer:
    """``np.gradient`` of ``f`` along one axis with the spacing ``ax_dx`` (a scalar, or the
    differences of coordinates): NumPy's formulas in its order, written into an array of
    ``otype`` as NumPy writes them."""

    def at(index) -> tuple:
        return tuple(index if k == axis else slice(None) for k in range(f.ndim))

    out = np.empty_like(f, dtype=otype)
    uniform = _ndim(ax_dx) == 0
    if uniform:
        out[at(slice(1, -1))] = (f[at(slice(2, None))] - f[at(slice(None, -2))]) / (2. * ax_dx)
    else:
        dx1, dx2 = ax_dx[0:-1], ax_dx[1:]
        shape = [-1 if k == axis else 1 for k in range(f.ndim)]
        a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
        b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
        c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
        out[at(slice(1, -1))] = a * f[at(slice(None, -2))] + b * f[at(slice(1, -1))] + c * f[at(slice(2, None))]
    if edge_order == 1:
        out[at(0)] = (f[at(1)] - f[at(0)]) / (ax_dx if uniform else ax_dx[0])
        out[at(-1)] = (f[at(-1)] - f[at(-2)]) / (ax_dx if uniform else ax_dx[-1])
        return out
    if uniform:
        a, b, c = -1.5 / ax_dx, 2. / ax_dx, -0.5 / ax_dx
    else:
        dx1, dx2 = ax_dx[0], ax_dx[1]
        a = -(2. * dx1 + dx2) / (dx1 * (dx1 + dx2))
        b = (dx1 + dx2) / (dx1 * dx2)
        c = -dx1 / (dx2 * (dx1 + dx2))
    out[at(0)] = a * f[at(0)] + b * f[at(1)] + c * f[at(2)]
    if uniform:
        a, b, c = 0.5 / ax_dx, -2. / ax_dx, 1.5 / ax_dx
    else:
        dx1, dx2 = ax_dx[-2], ax_dx[-1]
        a = dx2 / (dx1 * (dx1 + dx2))
        b = -(dx2 + dx1) / (dx1 * dx2)
        c = (2. * dx2 + dx1) / (dx2 * (dx1 + dx2))
    out[at(-1)] = a * f[at(-3)] + b * f[at(-2)] + c * f[at(-1)]
    return out


# --- the Array API's views, and views NumPy builds from them ----------------------------
# (np.permute_dims is np.transpose itself, whose rule is functions.py's.)


@implements(np.matrix_transpose)
def matrix_transpose(x) -> Tracer:
    """A view with the last two axes swapped, as NumPy's."""
    x = _arr(x)
    if x.ndim < 2:
        raise located(ValueError, f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return x.swapaxes(-1, -2)


@implements(np.unstack)
def unstack(x, *, axis: int = 0) -> tuple:
    """The views ``x[..., i, ...]`` along ``axis``, as NumPy's iteration over the moved axis
    gives them (elements of a vector are scalars)."""
    x = _arr(x)
    if x.ndim == 0:
        raise located(ValueError, "Input array must be at least 1-d.")
    moved = np.moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


@implements(np.rollaxis)
def rollaxis(a, axis: int, start: int = 0) -> Tracer:
    """A view: ``axis`` moved to lie before ``start``, the others keeping their order."""
    a = _arr(a)
    n = a.ndim
    axis = V.normalize_axis(axis, n)
    if start < 0:
        start += n
    if not 0 <= start <= n:
        raise located(np.exceptions.AxisError, f"'start' arg requires {-n} <= start < {n + 1}, "
                      f"but {start} was passed in")
    if axis < start:  # NB: start counts the axes before the axis is taken out
        start -= 1
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return a.transpose(order)


def _split_along(name: str, min_ndim: int, axis_of):
    """``np.hsplit`` / ``vsplit`` / ``dsplit``: ``np.split`` along a fixed axis, so views."""

    def impl(ary, indices_or_sections):
        a = _arr(ary)
        if a.ndim < min_ndim:
            raise located(ValueError, f"{name} only works on arrays of {min_ndim} or more dimensions")
        return np.split(a, indices_or_sections, axis=axis_of(a.ndim))

    impl.__name__ = name
    return impl


implements(np.hsplit)(_split_along("hsplit", 1, lambda ndim: 1 if ndim > 1 else 0))
implements(np.vsplit)(_split_along("vsplit", 2, lambda ndim: 0))
implements(np.dsplit)(_split_along("dsplit", 3, lambda ndim: 2))


# --- predicates of values and of dtypes --------------------------------------------------


def _dtype(x) -> np.dtype:
    return x.dtype if isinstance(x, Tracer) else np.asarray(x).dtype


@implements(np.iscomplexobj)
def iscomplexobj(x) -> bool:
    """A question about the dtype, answered at trace time (a Python bool, as NumPy's)."""
    return _dtype(x).kind == "c"


@implements(np.isrealobj)
def isrealobj(x) -> bool:
    return _dtype(x).kind != "c"


@implements(np.common_type)
def common_type(*arrays):
    return np.common_type(*[np.empty(0, _dtype(x)) for x in arrays])  # NB: dtypes only: NumPy answers


# --- conversions: np.astype, np.require, np.apply_over_axes ---------------------------------


@implements(np.astype)
def astype(x, dtype, /, *, copy=True, device=None):
    if not isinstance(x, Tracer):
        raise located(TypeError, f"Input should be a NumPy array. It is a {type(x)} instead.")
    return x.astype(dtype, copy=copy)


_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
                 "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E",
                 "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None, *, like=None):
    """As NumPy's: the array itself where it meets the requirements, else a copy that does."""
    a = asarray(a) if dtype is None else asarray(a).astype(dtype, copy=False)  # NB: of a scalar, an array
    wanted = {_REQUIREMENTS[r.upper()] for r in requirements or ()} - {"A", "E"}
    if {"C", "F"} <= wanted:
        raise located(ValueError, 'Cannot specify both "C" and "F" order')
    order = "C" if "C" in wanted else "F" if "F" in wanted else "A"
    if any(not a.flags[r] for r in wanted):
        return a.copy("F" if order == "F" or order == "A" and a.flags.fnc else "C")
    return a


intercept(np, "require", require)  # NB: not dispatched by __array_function__ (only like= is)

_LEXSORT = np.lexsort


def _lexsort(keys, axis=-1):
    """np.lexsort: NumPy dispatches a tuple of keys only; a list it converts itself, which would ask a
    traced key for its values (``np.lexsort([a, b])``). Each key keeps its own type, as NumPy sorts it
    (a key given as a list too: JAX's lexsort refuses lists)."""
    if isinstance(keys, (list, tuple)) and has_tracer(keys):
        keys = tuple(k if isinstance(k, Tracer) else asarray(k) for k in keys)
    return _LEXSORT(keys, axis)


intercept(np, "lexsort", _lexsort, traced=False)  # NB: listed as supported already (dispatched)

_NDITER = np.nditer


def _nditer(op, *args, **kwargs):
    """np.nditer of NumPy arrays; of a traced one, a refusal (NumPy's own error was of writeback)."""
    if any(isinstance(x, Tracer) for x in (op if isinstance(op, (list, tuple)) else (op,))):
        raise located(UnsupportedError, "np.nditer over a traced array is not supported by elena_jax: iterate "
                      "with indices (for i in range(x.size): x.flat[i]), or better write it with whole-array "
                      "operations")
    return _NDITER(op, *args, **kwargs)


intercept(np, "nditer", _nditer, traced=False)  # NB: a class, not dispatched by __array_function__

_NDENUMERATE = np.ndenumerate


class _TracedEnumerate(_NDENUMERATE):
    """np.ndenumerate of a traced array: each index in C order with the element there (a 0-d
    traced value, as NumPy's scalar); NumPy's own asked for the array's values."""

    def __init__(self, arr) -> None:
        self.arr = _arr(arr)  # NB: a list holding traced values too
        self.indices = np.ndindex(self.arr.shape)

    def __next__(self):
        index = next(self.indices)
        return index, self.arr[index]


def _ndenumerate(arr):
    return _TracedEnumerate(arr) if has_tracer(arr) else _NDENUMERATE(arr)


intercept(np, "ndenumerate", _ndenumerate)  # NB: a class, not dispatched by __array_function__


@implements(np.apply_over_axes)
def apply_over_axes(func, a, axes):
    """As NumPy's: ``func(a, axis)`` for each axis in turn, a dropped axis put back as one."""
    a = _arr(a)
    for axis in np.atleast_1d(axes).tolist():
        res = func(a, axis + a.ndim if axis < 0 else axis)
        if res.ndim != a.ndim:
            res = np.expand_dims(res, axis)
            if res.ndim != a.ndim:
                raise located(ValueError, "function is not returning an array of the correct shape")
        a = res
    return a


@implements(np.iscomplex)
def iscomplex(x) -> Tracer:
    """A non-zero imaginary part; of a real dtype, NumPy's all-False array."""
    x = _arr(x)
    if x.dtype.kind == "c":
        return np.imag(x) != 0
    return constant(np.zeros(x.shape, bool))


@implements(np.isreal)
def isreal(x) -> Tracer:
    return np.imag(_arr(x)) == 0


def _signed_infinity(name: str, negative: bool):
    """``np.isneginf`` / ``np.isposinf``: infinite and of that sign bit; complex values are
    NumPy's TypeError (the sign of a complex infinity is ambiguous)."""

    def impl(x, out=None):
        x = _arr(x)
        if x.dtype.kind == "c":
            raise located(TypeError, f"This operation is not supported for {x.dtype} values "
                          "because it would be ambiguous.")
        sign = np.signbit(x)
        return np.logical_and(np.isinf(x), sign if negative else ~sign, out=out)

    impl.__name__ = name
    return impl


implements(np.isneginf)(_signed_infinity("isneginf", True))
implements(np.isposinf)(_signed_infinity("isposinf", False))


@implements(np.array_equiv)
def array_equiv(a1, a2):
    """Shapes that do not broadcast together: ``False``, known at trace time. Otherwise the
    answer depends on the values: a traced 0-d bool where NumPy returns a Python bool."""
    a1, a2 = sequence_as_array(a1), sequence_as_array(a2)
    try:
        np.broadcast_shapes(shape_of(a1), shape_of(a2))
    except ValueError:
        return False
    return np.all(np.equal(_arr(a1), _arr(a2)))


# --- sorting, scans, unwrapping ------------------------------------------------------------


@implements(np.sort_complex)
def sort_complex(a) -> Tracer:
    """Sorted along the last axis (complex NaNs in NumPy's order, see the sort rule), in NumPy's
    complex type for the input (complex64 for 8- and 16-bit integers, else complex128)."""
    a = _arr(a)
    if a.dtype.kind != "c":
        return np.sort(a).astype(np.complex64 if a.dtype.char in "bhBH" else np.complex128)
    return np.sort(a)


@implements(np.unwrap)
def unwrap(p, discont=None, axis: int = -1, *, period=2 * np.pi) -> Tracer:
    """NumPy's unwrapping, written with traced NumPy operations so that its dtypes follow:
    differences folded into ``[-period/2, period/2)`` (a difference of exactly half a period
    keeps its sign), the corrections summed along ``axis`` onto all but the first element.
    Integer data with an integer period stays integer, as in NumPy."""
    p = _arr(p)
    dd = np.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = result_dtype(dd, period)
    if dtype.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    folded = np.mod(dd - low, period) + low
    if ambiguous:
        np.copyto(folded, high, where=(folded == low) & (dd > 0))
    correction = folded - dd
    np.copyto(correction, 0, where=np.abs(dd) < discont)
    out = p.astype(dtype)
    tail = [slice(None)] * p.ndim
    tail[axis] = slice(1, None)
    out[tuple(tail)] = p[tuple(tail)] + np.cumsum(correction, axis=axis)
    return out


# --- polynomials as coefficient arrays ----------------------------------------------------


def _refuse_poly1d(*polys) -> None:
    if any(isinstance(p, np.poly1d) for p in polys):
        raise located(UnsupportedError, "np.poly1d objects with traced coefficients are not supported "
                      "by elena_jax (pass the coefficient arrays)")


def _padded_op(op):
    """``np.polyadd`` / ``np.polysub``: the shorter operand padded with leading zeros of its own
    dtype, then added or subtracted (NumPy's dtypes and errors, bool subtraction included)."""

    def impl(a1, a2):
        _refuse_poly1d(a1, a2)
        a1, a2 = np.atleast_1d(_arr(a1)), np.atleast_1d(_arr(a2))
        diff = len(a2) - len(a1)
        if diff > 0:
            a1 = np.concatenate((constant(np.zeros(diff, a1.dtype)), a1))
        elif diff < 0:
            a2 = np.concatenate((constant(np.zeros(-diff, a2.dtype)), a2))
        return op(a1, a2)

    impl.__name__ = f"poly{op.__name__[:3]}"
    return impl


implements(np.polyadd)(_padded_op(np.add))
implements(np.polysub)(_padded_op(np.subtract))


def _poly1d_coefficients(c):
    """``np.poly1d(c).coeffs``: leading zeros trimmed, which only a constant or a single
    coefficient leaves of a known length."""
    if isinstance(c, Tracer):
        known = c._trace.known_value(c)
        if known is None:
            if c.ndim > 1:
                raise located(ValueError, "Polynomial must be 1d only.")
            if c.size == 1:
                return c.reshape(1)
            if c.size == 0:  # NB: poly1d of nothing is the zero polynomial, in the same dtype
                return np.zeros(1, c.dtype)
            raise ConcretizationError(
                "np.polymul trims the leading zero coefficients of its operands (as np.poly1d does), "
                "so the length of its result depends on the data; np.convolve(a1, a2) is the untrimmed "
                f"product\n  at {user_location()}")
        c = known
    return np.poly1d(c).coeffs


@implements(np.polymul)
def polymul(a1, a2):
    """The convolution of the operands' ``np.poly1d`` coefficients."""
    _refuse_poly1d(a1, a2)
    c1, c2 = _poly1d_coefficients(a1), _poly1d_coefficients(a2)
    if not isinstance(c1, Tracer) and not isinstance(c2, Tracer):
        return constant(np.convolve(c1, c2))
    return np.convolve(_arr(c1), _arr(c2))


@implements(np.polyder)
def polyder(p, m: int = 1):
    """``p[:-1] * [n, ..., 1]``, ``m`` times (NumPy's dtypes: integers times its int64 powers);
    ``m=0`` returns ``p`` itself."""
    m = int(m)
    if m < 0:
        raise located(ValueError, "Order of derivative must be positive (see polyint)")
    _refuse_poly1d(p)
    p = _arr(p)
    n = len(p) - 1
    derivative = p[:-1] * constant(np.arange(n, 0, -1))  # NB: NumPy's errors even for m=0
    return p if m == 0 else polyder(derivative, m - 1)


@implements(np.polyint)
def polyint(p, m: int = 1, k=None):
    """``p / [n, ..., 1]`` followed by the next integration constant, ``m`` times (float64, or
    complex for complex coefficients or constants); ``m=0`` returns ``p`` itself."""
    m = int(m)
    if m < 0:
        raise located(ValueError, "Order of integral must be positive (see polyder)")
    _refuse_poly1d(p)
    k = np.zeros(m, float) if k is None else k
    k = k if isinstance(k, Tracer) else np.asarray(k)
    k = np.atleast_1d(k)
    if len(k) == 1 and m > 1:
        k = k[0] * np.ones(m, float)
    if len(k) < m:
        raise located(ValueError, "k must be a scalar or a rank-1 array of length 1 or >m.")
    p = _arr(p)
    for i in range(m):
        constant_term = k[i : i + 1] if isinstance(k, Tracer) else constant(np.asarray([k[i]]))
        p = np.concatenate((p / constant(np.arange(len(p), 0, -1)), constant_term))
    return p


# --- bits -------------------------------------------------------------------------------


def _little_endian(func, dtype, bitorder) -> bool:
    """NumPy's reading of ``bitorder`` (and its errors for one it refuses), from NumPy itself on
    one element: a first bit set packs to 1 little-endian, to 128 big-endian."""
    probe = func(np.ones(1, dtype), bitorder=bitorder)
    return int(probe[0]) == 1


def _bits_axis(a: Tracer, axis) -> tuple[Tracer, int]:
    """The array and axis NumPy packs along: the C-order ravel for ``axis=None``; a scalar is a
    vector of one."""
    if axis is None:
        return a.ravel(), 0
    a = a.reshape(1) if a.ndim == 0 else a
    return a, V.normalize_axis(axis, a.ndim)


def _c_ordered(r: Tracer) -> Tracer:
    return laid_out(r, tuple(range(r.ndim)))


@implements(np.packbits)
def packbits(a, axis=None, bitorder: str = "big") -> Tracer:
    """Each run of 8 elements along the axis (zero-padded at the end) as the bits of a uint8,
    set where the element is non-zero (negative integers too)."""
    a = _arr(a)
    if a.dtype.kind not in "biu":
        raise located(TypeError, "Expected an input array of integer or boolean data type")
    little = _little_endian(np.packbits, bool, bitorder)
    a, axis = _bits_axis(a, axis)
    bits = np.moveaxis(a != 0, axis, -1)
    lead, n = bits.shape[:-1], bits.shape[-1]
    if n % 8:
        bits = np.concatenate((bits, constant(np.zeros(lead + (-n % 8,), bool))), axis=-1)
    groups = bits.reshape(lead + (bits.shape[-1] // 8, 8))
    weights = constant((1 << np.arange(8) if little else 1 << np.arange(7, -1, -1)).astype(np.uint8))
    packed = np.sum(groups * weights, axis=-1, dtype=np.uint8)
    return _c_ordered(np.moveaxis(packed, -1, axis))


@implements(np.unpackbits)
def unpackbits(a, axis=None, count=None, bitorder: str = "big") -> Tracer:
    """The 8 bits of each uint8 along the axis, then the first ``count`` of them (zeros past the
    end; a negative count drops bits from the end)."""
    a = _arr(a)
    if a.dtype != np.uint8:
        raise located(TypeError, "Expected an input array of unsigned byte data type")
    little = _little_endian(np.unpackbits, np.uint8, bitorder)
    a, axis = _bits_axis(a, axis)
    moved = np.moveaxis(a, axis, -1)
    lead, total = moved.shape[:-1], 8 * moved.shape[-1]
    shifts = constant((np.arange(8) if little else np.arange(7, -1, -1)).astype(np.uint8))
    bits = ((moved[..., None] >> shifts) & 1).reshape(lead + (total,))
    if count is not None:
        count = operator.index(count)
        if count < 0 and -count > total:
            raise located(ValueError, "-count larger than number of elements")
        keep = total + count if count < 0 else count
        if keep <= total:
            bits = bits[..., :keep]
        else:
            bits = np.concatenate((bits, constant(np.zeros(lead + (keep - total,), np.uint8))), axis=-1)
    return _c_ordered(np.moveaxis(bits, -1, axis))


# --- masked writes in place ----------------------------------------------------------------


def _written_array(a, name: str, not_array: str) -> Tracer:
    if isinstance(a, Tracer) and not a.scalar:
        a.check_writeable()
        return a
    if isinstance(a, np.ndarray):
        raise untraced_target(f"np.{name}")
    raise located(TypeError, not_array)


def _mask_of(mask, a: Tracer, name: str):
    """The mask as NumPy reads it for ``np.putmask`` / ``np.place``: any dtype, non-zero is set,
    of ``a``'s size and taken in C order over ``a``'s shape; a traced one is copied (the write
    must not change the mask it reads)."""
    if isinstance(mask, Tracer) and mask._trace.known_value(mask) is not None:
        mask = mask._trace.known_value(mask)  # NB: a constant made inside f is as static as NumPy's
    mask = mask if isinstance(mask, Tracer) else np.asarray(sequence_as_array(mask))
    if int(np.prod(shape_of(mask))) != a.size:
        raise located(ValueError, f"{name}: mask and data must be the same size")
    if isinstance(mask, Tracer):
        mask = mask.astype(bool) if mask.dtype == bool else mask != 0
    else:
        mask = np.array(mask, dtype=bool)
    return mask.reshape(a.shape)


def _values_of(values, a: Tracer, func) -> Tracer:
    """``values`` flat, cast into ``a``'s dtype as NumPy casts them: Python and NumPy scalars and
    lists by value (NumPy itself converts them, raising its errors), arrays only safely. A traced
    0-d value is taken as the NumPy scalar a reduction or an element read gives."""
    if isinstance(values, (list, tuple)) and has_tracer(values):  # NB: NumPy converts a list by value
        return sequence_as_array(values).astype(a.dtype).reshape(-1)
    if isinstance(values, Tracer):
        if values.dtype != a.dtype and values.ndim:
            check_cast(values.dtype, a.dtype, "safe")
        return values.astype(a.dtype).reshape(-1)
    n = int(np.size(values))
    converted = np.zeros(n, a.dtype)
    func(converted, np.ones(n, bool), values)  # NB: NumPy's own conversion, into a probe
    return constant(converted)


@implements(np.putmask)
def putmask(a, mask, values) -> None:
    """``a[mask] = values`` where the value at each position is ``values.flat[i % len]``, ``i``
    its C-order index in ``a``: a write through ``a`` (a view included). NumPy reads the mask
    and the values before it writes, overlapping or not."""
    a = _written_array(a, "putmask", "putmask: first argument must be an array")
    mask = _mask_of(mask, a, "putmask")
    values = _values_of(values, a, np.putmask)
    if values.size == 0 or a.size == 0:
        return
    if values.size != a.size:  # NB: repeated cyclically, in a's C order
        values = values[np.arange(a.size) % values.size]
    np.copyto(a, values.reshape(a.shape), where=mask)


def _reads_live(x, a: Tracer, dtype) -> bool:
    """Whether NumPy's np.place reads ``x`` from ``a``'s memory while writing it: it writes a
    C-contiguous ``a`` directly and reads a C-contiguous ``x`` of the dtype it wants directly."""
    return (isinstance(x, Tracer) and x.storage is a.storage and x.dtype == dtype and x.flags.c_contiguous
            and a.flags.c_contiguous and V.overlap(x.header, a.header))


@implements(np.place)
def place(arr, mask, vals) -> None:
    """The k-th set position of the mask (in ``arr``'s C order) gets ``vals.flat[k % len]``: a
    write through ``arr``. The positions are a running count of the mask, so a traced mask
    keeps the write's shape static."""
    what = arr.type_name if isinstance(arr, Tracer) else type(arr).__name__
    a = _written_array(arr, "place", f"place() argument 1 must be numpy.ndarray, not {what}")
    if _reads_live(vals, a, a.dtype) or \
            _reads_live(mask, a, np.dtype(bool)) and (mask.header.offset, mask.size) != (a.header.offset, a.size):
        raise located(UnsupportedError, "np.place with a mask or values overlapping the array it writes: "
                      "NumPy reads them while it writes, so its result depends on its order")
    mask = _mask_of(mask, a, "place")
    values = _values_of(vals, a, np.place)
    if a.size == 0:
        return
    if values.size == 0:
        known = _known(mask)
        if known is None:
            raise ConcretizationError("np.place with no values raises exactly when the traced mask selects "
                                      f"something, which depends on the data\n  at {user_location()}")
        if known.any():
            raise located(ValueError, "Cannot insert from an empty array!")
        return
    rank = np.cumsum(mask.reshape(-1)) - 1  # NB: the k-th set position takes value k
    picked = values[rank % values.size]
    np.copyto(a, picked.reshape(a.shape), where=mask)


# --- histograms of several dimensions ----------------------------------------------------


def _outer_edges(column: Tracer, limits):
    """The first and last edge of one dimension, as NumPy chooses them: the range given (checked
    as NumPy checks it), (0, 1) for no data, else the data's min and max (traced); equal ends
    are moved half a unit apart. NB: NumPy raises where the data's range is not finite, which
    only the data can tell: checked mode raises (`_uniform_edges`), else the edges come out NaN
    or infinite."""
    if limits is not None:
        first, last = limits
        if first > last:
            raise located(ValueError, "max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise located(ValueError, f"supplied range of [{first}, {last}] is not finite")
    elif column.size == 0:
        first, last = 0, 1
    else:
        return None
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _dimension_edges(column: Tracer, bins, limits, i: int):
    """NumPy's edges along dimension ``i``: ``bins + 1`` evenly spaced (NumPy's own linspace of
    static ends; of the data's min and max, computed in the data's float type as NumPy's
    linspace does), or the array given."""
    if np.ndim(bins) == 0:
        if bins < 1:
            raise located(ValueError, f"`bins[{i}]` must be positive, when an integer")
        ends = _outer_edges(column, limits)
        try:
            n = operator.index(bins)
        except TypeError:
            raise located(TypeError, f"`bins[{i}]` must be an integer, when a scalar") from None
        if ends is not None:
            return constant(np.linspace(*ends, n + 1))
        inexact = result_dtype(column, 1.0)  # NB: integer and bool data have float64 edges
        return _uniform_edges(column.astype(inexact), n, None)
    if np.ndim(bins) != 1:
        raise located(ValueError, f"`bins[{i}]` must be a scalar or 1d array")
    if isinstance(bins, Tracer):
        return bins  # NB: NumPy's check that traced edges increase depends on the data: not made
    edges = np.asarray(bins)
    if np.any(edges[:-1] > edges[1:]):
        raise located(ValueError, f"`bins[{i}]` must be monotonically increasing, when an array")
    return constant(edges)


@implements(np.histogramdd)
def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """Counts (float64) over the grid of each dimension's edges, and the edges, as NumPy's:
    a sample lands in the bin its value sorts into from the right, the last edge counting in
    the last bin and anything outside or NaN in none. The number of bins must be static."""
    if isinstance(sample, (Tracer, np.ndarray)) and np.ndim(sample) == 2:
        s = _arr(sample)
    else:  # NB: a sequence of D coordinate arrays, or one array of a single dimension
        s = np.atleast_2d(_arr(sample)).T
    if s.ndim != 2:
        raise located(ValueError, "too many values to unpack (expected 2)")
    if s.dtype.kind == "c":
        raise located(UnsupportedError, "np.histogramdd of complex values is not supported by elena_jax "
                      "(NumPy compares them with its complex ordering)")
    n, d = s.shape
    try:
        if len(bins) != d:
            raise located(ValueError, "The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = d * [bins]
    if range is None:
        range = (None,) * d
    elif len(range) != d:
        raise located(ValueError, "range argument must have one entry per dimension")
    edges = [_dimension_edges(s[:, i], bins[i], range[i], i) for i in builtins.range(d)]
    nbin = [e.shape[0] + 1 for e in edges]  # NB: an outlier bin at each end
    flat = None
    for i, e in enumerate(edges):
        column = s[:, i]
        k = np.searchsorted(e, column, side="right")
        k = np.where(column == e[-1], k - 1, k)  # NB: the last edge belongs to the last bin
        flat = k if flat is None else flat * nbin[i] + k
    if weights is not None:
        weights = weights if isinstance(weights, Tracer) else np.asarray(weights)
        if np.ndim(weights) != 1:
            raise located(ValueError, "object too deep for desired array" if np.ndim(weights) > 1
                          else "object of too small depth for desired array")
        if len(weights) != n:
            raise located(ValueError, "The weights and list don't have the same length.")
        check_cast(weights.dtype, np.float64, "safe")
        weights = _arr(weights).astype(np.float64)  # NB: NumPy sums weights in float64
    size = int(np.prod(nbin))
    counts = _bincount(flat, weights, size, length=size).astype(np.float64)
    hist = counts.reshape(nbin)[(slice(1, -1),) * d]
    if density:
        total = hist.sum()
        for i, e in enumerate(edges):
            shape = [1] * d
            shape[i] = nbin[i] - 2
            hist = hist / np.diff(e).reshape(shape)
        hist = hist / total
    return hist, edges



@implements(np.histogram2d)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """``np.histogramdd`` of the points ``(x, y)``, its edges returned apart."""
    if len(x) != len(y):
        raise located(ValueError, "x and y must have the same length.")
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):  # NB: one array of edges for both dimensions
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]
