"""The ndarray methods of tracers that mirror NumPy functions.

``a.sum(axis=0)`` is ``np.sum(a, axis=0)``, as in NumPy; methods with their
own meaning (``astype``, ``copy``, ``fill``, in-place ``sort``, ``flatten``,
``view``) are defined here too.
"""

from __future__ import annotations

import numpy as np

from .. import view as V
from ..errors import located, locating
from ..tracer import HOOKS, Tracer
from ._core import check_dtype_supported, check_sort_kind
from .functions import astype
from .indexing import fill


def _mirror(func):
    def method(self, *args, **kwargs):
        return func(self, *args, **kwargs)

    method.__name__ = func.__name__
    return method


# NB: NumPy 2 removed ndarray.ptp; np.ptp remains.
MIRRORED = ["sum", "prod", "mean", "max", "min", "any", "all", "argmax", "argmin", "cumsum",
            "cumprod", "clip", "round", "std", "var", "dot", "repeat", "take", "trace",
            "nonzero", "argsort", "searchsorted"]

for _name in MIRRORED:
    setattr(Tracer, _name, _mirror(getattr(np, _name)))


def compress(self, condition, axis=None, out=None):
    """NB: ``a.compress(condition)`` is ``np.compress(condition, a)``: the array comes second there."""
    return np.compress(condition, self, axis, out)


def conj(self):
    """NB: ``ndarray.conj()`` of a real array is the array itself (no copy), unlike ``np.conj``."""
    return np.conjugate(self) if self.dtype.kind == "c" else self


def conjugate(self):
    return conj(self)


def copy(self, order="C"):
    out = HOOKS["copy"](self, order)
    out.scalar = self.scalar  # NB: a NumPy scalar's copy is a scalar (np.copy's is a 0-d array)
    return out


def sort(self, axis=-1, kind=None, order=None):
    """In-place sort, as ``ndarray.sort``. NB: its axis is an int (NumPy's TypeError for None; the
    sort's own broadcast raised ValueError), in range (AxisError)."""
    check_sort_kind(kind)
    self._trace.write("sort", [self], [self], axis=V.normalize_axis(axis, self.ndim))


def flatten(self, order="C"):
    return HOOKS["copy"](self.ravel(order))


def view(self, dtype=None, type=None):
    """The same bytes as ``dtype``; of another size, the last axis is rescaled, as in NumPy. Of a
    NumPy scalar, a scalar of its own (its bytes copied, as `Tracer.view_of`)."""
    if dtype is None or np.dtype(dtype) == self.dtype:
        return self.view_of(self.header)
    if self.scalar:
        out = view(HOOKS["copy"](self), dtype, type)
        out.scalar = True
        return out
    dtype = np.dtype(dtype)
    check_dtype_supported(dtype)
    shape = self.shape
    if dtype.itemsize != self.itemsize:
        if self.ndim == 0:
            raise located(ValueError, "Changing the dtype of a 0d array is only supported if the itemsize is unchanged")
        if shape[-1] != 1 and self.header.strides[-1] != 1 and self.size:  # NB: empty views have no strides here
            raise located(ValueError, "To change to a dtype of a different size, the last axis must be contiguous")
        if shape[-1] * self.itemsize % dtype.itemsize:
            raise located(ValueError, "When changing to a larger dtype, its size must be a divisor of the total "
                                      "size in bytes of the last axis of the array.")
        shape = (*shape[:-1], shape[-1] * self.itemsize // dtype.itemsize)
    return self._trace.reinterpret(self, "bitcast", dtype, shape)


def real(self):
    return np.real(self)


def imag(self):
    return np.imag(self)


def set_real(self, value):
    self.check_not_scalar("real")
    np.real(self)[...] = value


def set_imag(self, value):
    self.check_not_scalar("imag")
    if self.dtype.kind != "c":
        raise located(TypeError, "array does not have imaginary part to set")
    np.imag(self)[...] = value


for _f in (astype, compress, conj, conjugate, copy, fill, sort, flatten, view):
    setattr(Tracer, _f.__name__, locating(_f))
Tracer.real = property(real, locating(set_real))
Tracer.imag = property(imag, locating(set_imag))
