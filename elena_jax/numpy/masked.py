"""Boolean-mask selections with a traced mask: ``a[mask]`` without its shape.

``a[mask]`` has as many elements as the mask has True values, which is not
known when tracing. What code does with such a selection is usually shape-free
all the same: ``a[mask] *= 2`` (Python reads, updates and writes it back),
``a[mask] = b[mask]``, ``a[mask].sum()``, ``a[mask].mean()``. A `Masked`
stands for the selection as the full-shape values plus the mask: elementwise
ufuncs apply to the values, assignment through the same mask is a select, and
sums, means, products, any/all and (with ``initial=``) maxima and minima are
masked reductions. Anything that needs the selection's shape raises
ConcretizationError naming the user's line.

Invariant: ``values`` has the shape of the indexed array, so the elements the
mask selects are exactly NumPy's ``a[mask]``, in the same order.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from ..errors import ConcretizationError, UnsupportedError, located, locating, user_location
from ..tracer import Tracer
from ._core import as_ufunc_result, raise_where


class Masked:
    __array_priority__ = 2000

    def __init__(self, values: Tracer, mask: Tracer, stamp: int | None = None, origin: str | None = None) -> None:
        self.values = values
        self.mask = mask  # bool, covering the leading axes of values
        # NB: the line of the selection a[mask], kept by values computed from it: the shape may be
        # needed far away (a return, say)
        self.origin = user_location() if origin is None else origin
        # NB: the selection is of the mask's value when it was taken: the count of ops recorded then
        self.stamp = len(mask._trace.program.ops) if stamp is None else stamp

    def _like(self, values: Tracer) -> Masked:
        """Other values of the same selection."""
        return Masked(values, self.mask, self.stamp, self.origin)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    def _mask_changed(self) -> bool:
        return self.mask._trace.written_since(self.mask.storage, self.stamp)

    def same_mask(self, mask: Tracer) -> bool:
        """Whether ``mask`` selects what this selection's mask did (``~m`` spelled twice too)."""
        return not self._mask_changed() and (mask is self.mask or self.mask._trace.same_value(mask, self.mask))

    def _full_mask(self) -> Tracer:
        if self._mask_changed():
            raise located(UnsupportedError, "the mask of a selection a[mask] was written after the selection "
                          f"was taken (at {self.origin}); select again, or copy the mask first")
        extra = self.values.ndim - self.mask.ndim
        return np.broadcast_to(self.mask.reshape(self.mask.shape + (1,) * extra), self.values.shape)

    def _shape_needed(self, what: str, needed_at: str | None = None):
        needed_at = user_location() if needed_at is None else needed_at
        raise ConcretizationError(
            f"{what} of a boolean-mask selection a[mask] with a traced mask has a data-dependent "
            f"shape; use np.where(mask, ...) or reduce it (sum, mean, count)\n  at {self.origin}"
            + ("" if needed_at == self.origin else f"\n  (needed at {needed_at})"))

    def returned(self, by: str):
        """Refuse the selection (or values computed from it) as a result of function ``by``."""
        return self._shape_needed("returning it", f"the return of {by}")

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._shape_needed(f".{name}")

    @property
    def shape(self):
        return self._shape_needed("the shape")

    @property
    def size(self):
        return self._shape_needed("the size")

    def __len__(self):
        return self._shape_needed("len()")

    def __iter__(self):
        return self._shape_needed("iteration")

    def __bool__(self):
        return self._shape_needed("bool()")

    def __array__(self, dtype=None, copy=None):
        return self._shape_needed("using it as an array")

    def _inner_key(self, key):
        """The index into ``values`` of ``selection[key]`` when ``key`` keeps every selected
        element (``k[:, 0]``: whole slices over the masked axes); else the shape is needed."""
        key = key if isinstance(key, tuple) else (key,)
        head, rest = key[: self.mask.ndim], key[self.mask.ndim:]
        if len(head) < self.mask.ndim or any(k != slice(None) for k in head if isinstance(k, slice)) \
                or not all(isinstance(k, slice) for k in head) or any(k is Ellipsis or k is None for k in rest):
            return self._shape_needed("indexing")
        return head + rest

    def __getitem__(self, key):
        return self._like(self.values[self._inner_key(key)])

    def __setitem__(self, key, value) -> None:
        inner = self._inner_key(key)
        if isinstance(value, Masked):  # NB: k[:, 0] += 1 ends with k[:, 0] = (k[:, 0] + 1)
            if not self.same_mask(value.mask) or value.values.shape != self.values[inner].shape:
                return self._shape_needed("combining selections of different masks")
            value = value.values
        elif np.ndim(value) > 0 and not (isinstance(value, Tracer) and value.size == 1):
            return self._shape_needed("assigning an array to part of it")
        self.values[inner] = value

    @locating
    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        if method != "__call__" or kwargs.get("where", True) is not True:
            return self._shape_needed(f"np.{ufunc.__name__}.{method}")
        values = []
        for x in inputs:
            if isinstance(x, Masked):
                if not self.same_mask(x.mask) or x.values.shape != self.values.shape:
                    return self._shape_needed("combining selections of different masks")
                values.append(x.values)
            elif np.ndim(x) == 0 or isinstance(x, Tracer) and x.size == 1:
                values.append(x.reshape(()) if isinstance(x, Tracer) else x)
            else:
                return self._shape_needed(f"np.{ufunc.__name__} with an array operand")
        target = out[0] if isinstance(out, tuple) else out
        if isinstance(target, Masked):  # NB: in place on the selection, a temporary in NumPy too
            ufunc(*values, out=target.values, **kwargs)  # NB: with NumPy's casting rules
            return target
        result = ufunc(*values, **kwargs)
        if isinstance(result, tuple):
            return tuple(self._like(r) for r in result)
        return self._like(result)

    @locating
    def __array_function__(self, func, types, args, kwargs):
        rule = _FUNCTIONS.get(func)
        if rule is None or args[0] is not self:
            return self._shape_needed(f"np.{func.__name__}")
        return rule(self, *args[1:], **kwargs)

    def _axes(self, axis, what: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The axes of ``values`` a reduction of the selection along ``axis`` reduces, and the
        selection's shape after it with ``keepdims``: the selection's first axis (the selected
        elements) must be among them, or the result's shape is the count's."""
        ndim = 1 + self.values.ndim - self.mask.ndim
        axes = tuple(range(ndim)) if axis is None else normalize_axis_tuple(axis, ndim)  # NB: NumPy's errors
        if 0 not in axes:
            raise ConcretizationError(
                f"{what} along axes {axes} of a boolean-mask selection a[mask] with a traced mask has as many "
                f"results as the mask selects elements, a data-dependent shape; reduce along axis 0 (the "
                f"selected elements), or use np.where(mask, ...)\n  at {self.origin}")
        inner = self.values.shape[self.mask.ndim:]
        reduced = tuple(range(self.mask.ndim)) + tuple(self.mask.ndim + a - 1 for a in axes if a)
        return reduced, tuple(1 if a in axes else inner[a - 1] for a in range(ndim))

    def _reduced(self, func, axis, kwargs: dict):
        """``func`` of the selected elements along ``axis`` (the selected elements' axis among
        them): a reduction of the values over the masked axes with the mask as ``where=``.
        Maxima and minima need ``initial=`` (of an empty selection NumPy raises, which depends on
        the data); ``where=`` or ``out=`` would need the selection's shape."""
        if "where" in kwargs or "out" in kwargs:
            return self._shape_needed(f"np.{func.__name__} with where= or out=")
        name = func.__name__
        if name in ("max", "min") and "initial" not in kwargs:
            return self._shape_needed(f"np.{func.__name__} without initial= (NumPy raises where nothing is selected)")
        reduced, kept = self._axes(axis, f"np.{func.__name__}")
        keepdims = kwargs.pop("keepdims", False)
        if name in ("sum", "mean") and len(reduced) == self.values.ndim and self._sums_as_one_run(name, kwargs):
            r = self._sum(kwargs.get("initial"))
            if name == "mean":  # NB: NumPy's _mean: the sum over the count, an intp, in float64
                r = (r / np.count_nonzero(self._full_mask())).astype(self.dtype)
        else:
            r = func(self.values, axis=reduced, where=self._full_mask(), **kwargs)
        return r.reshape(kept) if keepdims else as_ufunc_result(r)  # NB: a 0-d sum is a NumPy scalar

    def _sums_as_one_run(self, name: str, kwargs: dict) -> bool:
        """Whether NumPy sums the whole selection, a fresh C-ordered array, as one run pairwise,
        in its own type: float32, float64 and their complex types (masked sums of others are exact,
        or not modelled);
        np.mean takes no ``initial`` (NumPy's TypeError comes from the masked reduction)."""
        return self.dtype in (np.float32, np.float64, np.complex64, np.complex128) \
            and kwargs.get("dtype") in (None, self.dtype) \
            and set(kwargs) <= ({"dtype", "initial"} if name == "sum" else {"dtype"})

    def _sum(self, initial):
        """The sum of all selected elements in NumPy's order (lower/rules.py, ``compact``)."""
        return self.values._trace.define(
            "reduce", [self.values, self._full_mask()], (), self.dtype, name="add",
            axes=tuple(range(self.values.ndim)), keepdims=False, dtype=self.dtype, initial=initial, masked=True,
            compact=True)

    def astype(self, dtype, **kwargs):
        return self._like(self.values.astype(dtype, **kwargs))

    def copy(self):
        return self._like(self.values.copy())


def _count_nonzero(m: Masked, axis=None, *, keepdims=False):
    reduced, kept = m._axes(axis, "np.count_nonzero")
    r = np.sum((m.values != 0) & m._full_mask(), axis=reduced)
    return r.reshape(kept) if keepdims else r


def _average(m: Masked, axis=None, weights=None, returned=False, *, keepdims=False):
    """np.average of a selection: NumPy's steps, its mean, or weighted by a selection of the same
    mask the sum of the products over the sum of the weights (each sum of a selection in NumPy's
    order); NumPy's ZeroDivisionError where the weights sum to zero in checked mode."""
    if weights is None:
        avg = m.mean(axis, keepdims=keepdims)
        reduced, _ = m._axes(axis, "np.average")
        per_row = int(np.prod([m.values.shape[d] for d in reduced if d >= m.mask.ndim]))
        scale = (np.count_nonzero(m.mask) * per_row).astype(avg.dtype)  # NB: NumPy's a.size / avg.size
    elif not isinstance(weights, Masked) or not m.same_mask(weights.mask) or weights.values.shape != m.values.shape:
        return m._shape_needed("np.average with weights that are not a selection by the same mask")
    else:
        floats = ("f8",) if m.dtype.kind in "biu" else ()
        dtype = np.result_type(m.dtype, weights.dtype, *floats)
        scale = weights.sum(axis, dtype=dtype, keepdims=keepdims)
        raise_where(scale == 0, ZeroDivisionError, "Weights sum to zero, can't be normalized")
        avg = np.multiply(m, weights, dtype=dtype).sum(axis, keepdims=keepdims) / scale
    return (avg, np.broadcast_to(scale, np.shape(avg)).copy()) if returned else avg


_FUNCTIONS = {np.count_nonzero: _count_nonzero, np.average: _average}
for _f in (np.sum, np.mean, np.max, np.min, np.prod, np.any, np.all):  # NB: the methods, and np.<name> of a selection
    setattr(Masked, _f.__name__, locating(lambda self, axis=None, *, _f=_f, **kwargs: self._reduced(_f, axis, kwargs)))
    _FUNCTIONS[_f] = getattr(Masked, _f.__name__)
_FUNCTIONS.update({np.amax: Masked.max, np.amin: Masked.min})
for _name, _u in {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
                  "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "and": np.bitwise_and,
                  "or": np.bitwise_or, "xor": np.bitwise_xor, "lshift": np.left_shift,
                  "rshift": np.right_shift}.items():
    setattr(Masked, f"__{_name}__", lambda self, o, _u=_u: _u(self, o))
    setattr(Masked, f"__r{_name}__", lambda self, o, _u=_u: _u(o, self))
    setattr(Masked, f"__i{_name}__", lambda self, o, _u=_u: _u(self, o, out=(self,)))
Masked.__neg__ = lambda self: np.negative(self)
Masked.__invert__ = lambda self: np.invert(self)
for _name, _u in {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
                  "eq": np.equal, "ne": np.not_equal}.items():
    setattr(Masked, f"__{_name}__", lambda self, o, _u=_u: _u(self, o))
