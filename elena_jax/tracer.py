"""The interpreter: tracer arrays that record NumPy code as a Program.

A `Tracer` stands in for an ``ndarray`` while the user's function runs. It is
a (Storage, View) pair plus NumPy's writeable flag; it answers every metadata
question (shape, strides, dtype, flags) from the View, and turns everything
else into recorded ops through three doors: ``__array_ufunc__``,
``__array_function__`` and indexing. What each NumPy function records is not
decided here: the ``numpy/`` package registers the rules into ``FUNCTIONS``,
``UFUNCS`` and ``HOOKS`` (this module knows views, not NumPy's API).

Invariant: all interpreter state of one traced call lives in its `Trace`; the
trace in effect is thread-local, so tracing never changes what NumPy does in
another thread.
"""

from __future__ import annotations

import contextlib
import dis
import operator
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import view as V
from .errors import (
    ConcretizationError,
    UnsupportedError,
    is_user_file,
    located,
    locating,
    raising_fp_errors,
    refuse_raising,
    user_location,
)
from .ir import Access, Const, Op, Operand, Program
from .storage import Storage

# Rule tables, filled by the numpy/ package: NumPy function -> implementation
# on tracers; ufunc name -> implementation; and named hooks for the parts of
# the array protocol this module forwards (advanced indexing).
FUNCTIONS: dict[Callable, Callable] = {}
UFUNCS: dict[str, Callable] = {}
HOOKS: dict[str, Callable] = {}

_local = threading.local()


def current_trace() -> Trace | None:
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


class Trace:
    """The state of one traced call: the program being recorded."""

    def __init__(self) -> None:
        self.program = Program()
        # Storages whose whole value is known when tracing (constants never written
        # since): indexing with them can follow NumPy exactly, data-dependence included.
        self.known: dict[int, np.ndarray] = {}
        # Views in another type (``c.real``, ``a.view(np.int64)``) are storages of their own,
        # kept equal to what NumPy's shared memory would show: storage id -> (base view, kind),
        # and base storage id -> [(reinterpreted storage, base view, kind)].
        self.base_of: dict[int, tuple[Tracer, str]] = {}
        self.reinterpreted: dict[int, list[tuple[Storage, Tracer, str]]] = {}
        # NumPy arrays the user's code handed in from outside f (globals, closures, attributes
        # of self), each with a copy of its value then: id -> (array, copy). The program holds
        # that value as a constant; a later call whose array holds another is traced again.
        self.borrowed: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    @contextlib.contextmanager
    def active(self) -> Iterator[Trace]:
        stack = _local.__dict__.setdefault("stack", [])
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    def borrow(self, values: Any) -> None:
        """Keep the NumPy arrays among ``values`` (nested in tuples, lists and dicts) with a copy
        of their value now: read from outside f, they are the program's constants."""
        if isinstance(values, np.ndarray):
            if id(values) not in self.borrowed:
                self.borrowed[id(values)] = (values, values.copy())
        elif isinstance(values, (tuple, list)):
            for v in values:
                self.borrow(v)
        elif isinstance(values, dict):
            self.borrow(list(values.values()))

    # -- storages and ops ---------------------------------------------------

    def new_storage(self, shape, dtype, origin: str, writeable: bool = True) -> Storage:
        s = Storage(len(self.program.storages), tuple(shape), np.dtype(dtype), origin, writeable)
        self.program.storages.append(s)
        return s

    def operand(self, x: Any) -> Operand:
        if isinstance(x, Tracer):
            if x._trace is not self:
                raise located(UnsupportedError, "an array traced by another elena_jax call was captured")
            return Access(x.storage, x.header)
        if isinstance(x, (bool, int, float, complex)):
            return Const(x, weak=True)
        # NB: a NumPy array too: one of strings or objects must not reach the lowering
        return Const(np.array(constant_value(x)))

    def record(self, prim: str, ins, outs, params: dict | None = None) -> Op:
        op = Op(prim, tuple(ins), tuple(outs), dict(params or {}), user_location())
        self.program.ops.append(op)
        return op

    def define(self, prim: str, ins, shape, dtype, origin: str = "", /, **params) -> Tracer:
        """A fresh array: a new storage written whole by one op."""
        return self.define_many(prim, ins, [(shape, dtype)], origin, **params)[0]

    def define_many(self, prim: str, ins, results, origin: str = "", /, layout: tuple[int, ...] | None = None,
                    **params) -> list[Tracer]:
        """Fresh arrays written whole by one op, in C order or with their axes laid out in memory
        in the order ``layout`` (outermost first). With a layout, the op is elementwise: it
        computes in memory order on operands transposed to it, and the results are views back."""
        if layout is not None and list(layout) != sorted(layout):
            ins = [_transposed(x, layout) for x in ins]
            results = [([shape[i] for i in layout], dtype) for shape, dtype in results]
        outs = []
        for shape, dtype in results:
            s = self.new_storage(shape, dtype, origin or f"{prim} at {user_location()}")
            outs.append(Tracer(self, s, V.contiguous(s.shape)))
        self.record(prim, [self.operand(x) for x in ins], [t.access for t in outs], params)
        if layout is None or list(layout) == sorted(layout):
            return outs
        return [Tracer(self, t.storage, V.transpose(t.header, np.argsort(layout))) for t in outs]

    def known_value(self, t: Tracer, laid_out: bool = False) -> np.ndarray | None:
        """The value of ``t`` if it is known at trace time, else None: a copy, or with
        ``laid_out`` a read-only view in ``t``'s own memory layout (NumPy's loops follow it:
        a sum of an F-ordered array adds in another order than of its C-ordered copy)."""
        base = self.known.get(t.storage.id)
        if base is None:
            return None
        if laid_out:
            view = _strided(base, t)
            view.flags.writeable = False
            return view
        return _strided(base, t).copy()

    def know(self, t: Tracer, value: np.ndarray) -> None:
        """Record the value of ``t``, a view of all of its (fresh) storage, as known."""
        base = np.empty(t.storage.shape, value.dtype)
        _strided(base, t)[...] = value
        self.known[t.storage.id] = base

    def same_value(self, a: Tracer, b: Tracer) -> bool:
        """Whether ``a`` and ``b`` hold equal values for certain: one view of one storage, or
        equal views of storages that one op each defined from equal operands and nothing wrote
        since (``m = ~big`` spelled twice). False where that is not known."""
        if (a.storage, a.header) == (b.storage, b.header):
            return True
        return a.header == b.header and self._same_definition(a.storage, b.storage, depth=4)

    def written_since(self, s: Storage, stamp: int, until: int | None = None) -> bool:
        """Whether an op recorded after the first ``stamp`` ops (and before op ``until``) writes ``s``."""
        return any(o.storage is s for op in self.program.ops[stamp:until] for o in op.outs)

    def _same_definition(self, s: Storage, t: Storage, depth: int) -> bool:
        ops = self.program.ops
        writers = [[i for i, op in enumerate(ops) if any(o.storage is x for o in op.outs)] for x in (s, t)]
        if depth == 0 or any(len(w) != 1 for w in writers):
            return False
        (i,), (j,) = writers
        x, y = ops[i], ops[j]
        whole = [op.outs.index(Access.whole(r)) if Access.whole(r) in op.outs else -1 for op, r in ((x, s), (y, t))]
        if (x.prim, len(x.ins), len(x.outs), s.shape, s.dtype) != (y.prim, len(y.ins), len(y.outs), t.shape, t.dtype) \
                or -1 in whole or whole[0] != whole[1] or not _equal_params(x.params, y.params):
            return False
        for u, v in zip(x.ins, y.ins):
            if isinstance(u, Const) and isinstance(v, Const):
                same = u.weak == v.weak and _identical(np.asarray(u.value), np.asarray(v.value))
            elif isinstance(u, Access) and isinstance(v, Access) and u.view == v.view:
                same = u.storage is v.storage and not self.written_since(u.storage, min(i, j) + 1, max(i, j)) \
                    or u.storage is not v.storage and self._same_definition(u.storage, v.storage, depth - 1)
            else:
                same = False
            if not same:
                return False
        return True

    def write(self, prim: str, ins, dsts, /, **params) -> None:
        """An in-place write: the op's results go into the views ``dsts``."""
        for d in dsts:
            d.check_writeable()
            self.known.pop(d.storage.id, None)
        self.record(prim, [self.operand(x) for x in ins], [d.access for d in dsts], params)
        for s in {d.storage.id: d.storage for d in dsts}.values():
            self._mirror(s)

    def reinterpret(self, base: Tracer, kind: str, dtype, shape: tuple[int, ...] | None = None) -> Tracer:
        """``base`` seen in another type: its ``real`` or ``imag`` part, or its bytes as ``dtype``
        (``bitcast``; of another size, in ``shape``). NumPy's result is a view; here it is a
        storage of its own that writes keep equal to that view, both ways (see `_mirror`)."""
        out = self.define("reinterpret", [base], base.shape if shape is None else shape, dtype, kind=kind)
        out.writeable = base.writeable
        out.base = base if base.base is None else base.base
        self.base_of[out.storage.id] = (base, kind)
        self.reinterpreted.setdefault(base.storage.id, []).append((out.storage, base, kind))
        return out

    def memory(self, t: Tracer) -> tuple[Storage, np.ndarray, int]:
        """The bytes NumPy would give ``t``: (root storage, each element's first byte in C order,
        the element's width). A view in another type lies in its base's bytes."""
        flat = V.flat_indices(t.header).reshape(-1)
        if t.storage.id not in self.base_of:
            return t.storage, flat * t.itemsize, t.itemsize
        base, kind = self.base_of[t.storage.id]
        root, starts, width = self.memory(base)
        size = t.itemsize
        if kind == "imag":
            starts = starts + size
        elif kind == "bitcast" and size < width:  # NB: each element of the base split in several
            starts = (starts[:, None] + np.arange(0, width, size)).reshape(-1)
        elif kind == "bitcast" and size > width:  # NB: consecutive elements of a contiguous last axis joined
            starts = starts[:: size // width]
        return root, starts[flat], size

    def _mirror(self, s: Storage, source: int | None = None) -> None:
        """After ``s`` changed: a reinterpreted storage's value goes back into its base (unless
        the change came from there, ``source == -1``), and the views of ``s`` in other types,
        but the one the change came from (``source``), are read again."""
        if s.id in self.base_of and source != -1:
            base, kind = self.base_of[s.id]
            if not V.distinct(base.header):  # NB: its copies of one element would go back one by one
                raise located(UnsupportedError, "a write through a view in another type (.view(dtype), .real, "
                              ".imag) of a view that holds an element more than once (as_strided, broadcast_to) "
                              "is not supported by elena_jax: write through the view itself")
            self.record("reinterpret_back", [Access.whole(s), base.access], [base.access], {"kind": kind})
            self.known.pop(base.storage.id, None)
            self._mirror(base.storage, source=s.id)
        for t, base, kind in self.reinterpreted.get(s.id, []):
            if t.id != source:
                self.record("reinterpret", [base.access], [Access.whole(t)], {"kind": kind})
                self._mirror(t, source=-1)


def _equal_params(p: dict, q: dict) -> bool:
    return p.keys() == q.keys() and all(_identical(p[k], q[k]) for k in p)


def _identical(x: Any, y: Any) -> bool:
    """Equal to the bit (0.0 is not -0.0), for the parameters and constants ops record."""
    numeric = (np.ndarray, np.generic, float, complex)
    if isinstance(x, numeric) or isinstance(y, numeric):
        return same_bits(np.asarray(x), np.asarray(y))
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        return type(x) is type(y) and len(x) == len(y) and all(map(_identical, x, y))
    if isinstance(x, (int, str, bool, type(None), np.dtype)):
        return type(x) is type(y) and x == y
    return x is y


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` are equal to the bit: dtype, shape and each element's bits (0.0 is not
    -0.0, a NaN equals a NaN of the same bits). NB: compared as unsigned integers, not as bytes:
    no copy (a call compares its borrowed arrays so, `_api.Traced.stale`)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "c":
        return same_bits(a.real, b.real) and same_bits(a.imag, b.imag)
    if a.dtype.kind == "f":
        if a.dtype.itemsize not in (2, 4, 8):  # NB: no unsigned type of its width
            return a.tobytes() == b.tobytes()
        a, b = a.view(f"u{a.dtype.itemsize}"), b.view(f"u{b.dtype.itemsize}")
    return bool(np.array_equal(a, b))


def _strided(base: np.ndarray, t: Tracer) -> np.ndarray:
    """``t``'s view of ``base``, a NumPy array holding its storage."""
    if t.size == 0:
        return np.zeros(t.shape, base.dtype)
    return np.lib.stride_tricks.as_strided(
        base.reshape(-1)[t.header.offset :], t.shape, [st * base.itemsize for st in t.header.strides])


def _transposed(x: Any, axes: tuple[int, ...]) -> Any:
    """Operand ``x`` of an elementwise op, broadcast to ``len(axes)`` dims and transposed."""
    if isinstance(x, Tracer):
        return x.view_of(V.transpose(V.index(x.header, (None,) * (len(axes) - x.ndim)), axes))
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    if isinstance(x, np.ndarray):
        return x[(None,) * (len(axes) - x.ndim)].transpose(axes)
    return x  # a Python scalar


def constant_value(x: Any) -> np.ndarray:
    """A concrete NumPy value for a non-tracer operand, or a clear refusal."""
    try:
        value = np.asarray(x)
    except ConcretizationError:  # a selection a[mask] says itself why it has no shape
        raise
    except Exception as e:  # a JAX tracer of an outer transformation, say
        raise located(
            UnsupportedError,
            f"cannot use {type(x).__name__} inside a functionalized function; "
            "pass it as an argument instead",
        ) from e
    if value.dtype.kind not in "biufc":
        raise located(UnsupportedError, f"values of type {type(x).__name__} (dtype {value.dtype}) "
                      "are not supported by elena_jax")
    return value


def _dense(v: V.View, itemsize: int) -> bool:
    """Whether a View in bytes is C-contiguous for elements of ``itemsize`` (size-1 axes aside)."""
    return v.size == 0 or v.strides == tuple(s * itemsize for s in V.contiguous(v.shape).strides)


class _Flags:
    def __init__(self, t: Tracer) -> None:
        self._t = t

    @property
    def writeable(self) -> bool:
        return self._t.writeable

    @writeable.setter
    @locating
    def writeable(self, value: bool) -> None:
        if value and not self._t.writeable:
            raise ValueError("cannot set WRITEABLE flag to True of this array")
        self._t.writeable = bool(value)

    @property
    def c_contiguous(self) -> bool:
        if self._t.storage.id in self._t._trace.base_of:  # NB: NumPy's memory, not the own storage
            return _dense(self._t.memory_view, self._t.itemsize)
        return V.is_c_contiguous(self._t.header) and self._t.header.offset >= 0

    @property
    def f_contiguous(self) -> bool:
        if self._t.storage.id in self._t._trace.base_of:
            return _dense(V.transpose(self._t.memory_view), self._t.itemsize)
        return V.is_c_contiguous(V.transpose(self._t.header))

    @property
    def owndata(self) -> bool:
        return self._t.base is None

    aligned, writebackifcopy = True, False
    contiguous = c_contiguous
    fortran = f_contiguous

    @property
    def fnc(self) -> bool:
        return self.f_contiguous and not self.c_contiguous

    @property
    def forc(self) -> bool:
        return self.f_contiguous or self.c_contiguous

    @property
    def behaved(self) -> bool:
        return self.writeable

    @property
    def carray(self) -> bool:
        return self.writeable and self.c_contiguous

    @property
    def farray(self) -> bool:  # NB: NumPy's test is "any of aligned, writeable, F" and not C
        return not self.c_contiguous

    _LETTERS = {"C": "c_contiguous", "F": "f_contiguous", "W": "writeable", "O": "owndata", "A": "aligned",
                "X": "writebackifcopy", "B": "behaved", "CA": "carray", "FA": "farray", "FNC": "fnc", "FORC": "forc"}

    def __getitem__(self, name: str) -> bool:
        return getattr(self, self._LETTERS.get(name, name.lower()))


class Tracer:
    """An ndarray stand-in: a View (its ``header``; ``view()`` is NumPy's method) of a Storage in one Trace."""

    __array_priority__ = 1000
    __elena_tracer__ = True
    weak = False  # a traced Python scalar: promoted as NumPy 2 promotes Python scalars
    scalar = False  # an element read out as a NumPy scalar (``a[i, j]``): augmented ops are not in place

    def __init__(self, trace: Trace, storage: Storage, view: V.View, writeable: bool = True,
                 base: Tracer | None = None) -> None:
        self._trace = trace
        self.storage = storage
        self.header = view
        self.writeable = writeable and storage.writeable
        self.base = base

    # -- metadata, answered from the View -------------------------------------

    @property
    def access(self) -> Access:
        return Access(self.storage, self.header)

    @property
    def dtype(self) -> np.dtype:
        return self.storage.dtype

    @dtype.setter
    def dtype(self, dtype) -> None:
        raise UnsupportedError(f"assigning ndarray.dtype (a reinterpreting view) is not supported by elena_jax"
                               f"\n  at {user_location()}")

    @property
    def shape(self) -> tuple[int, ...]:
        return self.header.shape

    @shape.setter
    @locating
    def shape(self, shape) -> None:
        self.check_not_scalar("shape")
        new = self._reshaped(shape)
        if new is None:
            raise AttributeError("Incompatible shape for in-place modification. "
                                 "Use `.reshape()` to make a copy with the desired shape.")
        self.header = new

    @property
    def ndim(self) -> int:
        return self.header.ndim

    @property
    def size(self) -> int:
        return self.header.size

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def memory_view(self) -> V.View:
        """The View NumPy would give this array over its memory, in bytes: the header scaled,
        but for a view in another type (whose header is over a storage of its own) the bytes
        of its base (Trace.memory). Strides, contiguity and whether a reshape can be a view
        are NumPy's questions about this View."""
        if self.storage.id not in self._trace.base_of or self.size == 0:
            return V.View.make(self.shape, [s * self.itemsize for s in self.header.strides],
                               self.header.offset * self.itemsize)
        _, starts, _ = self._trace.memory(self)
        starts = starts.reshape(self.shape)
        strides = [int(np.take(starts, 1, d).flat[0] - starts.flat[0]) if n > 1 else 0
                   for d, n in enumerate(self.shape)]
        return V.View.make(self.shape, strides, int(starts.flat[0]))

    @property
    def strides(self) -> tuple[int, ...]:
        return self.memory_view.strides

    def _reshaped(self, shape) -> V.View | None:
        """The header of ``self`` reshaped as a view, or None where NumPy copies."""
        new = V.reshape(self.header, shape)
        if new is not None and self.storage.id in self._trace.base_of and \
                V.reshape(self.memory_view, shape) is None:
            return None  # NB: the own storage is contiguous; NumPy's memory may not be
        return new

    @property
    def flags(self) -> _Flags:
        return _Flags(self)

    @locating
    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    @locating
    def __iter__(self) -> Iterator[Tracer]:
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __getattr__(self, name: str):
        # Only reached for names Tracer lacks: refuse ndarray's others clearly.
        if not name.startswith("__") and hasattr(np.ndarray, name):
            raise UnsupportedError(f"ndarray.{name} is not supported by elena_jax\n  at {user_location()}")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"Tracer(shape={self.shape}, dtype={self.dtype}, storage=S{self.storage.id})"

    # -- concretization: data-dependent Python ----------------------------------

    def _concrete(self, what: str, advice: str = "data-dependent Python control flow cannot be functionalized "
                                                  "(use np.where, or pass the value as a static argument)",
                  convert: Callable | None = None, numpy_raises: bool = False):
        """``convert`` of the value, where it is known at trace time (a constant made inside f, an
        integer or boolean result of constants: the same at every call), as NumPy converts it; else
        a ConcretizationError saying ``what`` needed the value (``numpy_raises``: NumPy raises for
        this array too, so a try/except around it takes NumPy's path: see errors.UnsupportedError)."""
        asks_for = _numpy_asks_for(sys._getframe(2))
        # NB: not for a write into a NumPy array (``COUNTS[i] += 1``): it would be done once, when tracing
        known = self._trace.known_value(self) if convert is not None and asks_for != "STORE_SUBSCR" else None
        if known is not None:
            return convert(known)
        what, advice = _NUMPY_SUBSCRIPT.get(asks_for, (what, advice))
        e = ConcretizationError(f"{what} needs the value of a traced array {self.shape}:{self.dtype}; {advice}"
                                f"\n  at {user_location()}")
        e.numpy_raises = numpy_raises
        raise e

    def __bool__(self):
        return self._concrete("bool() (an `if`, `while`, `and`/`or`, assert, or Python's min()/max() of traced "
                              "values: np.minimum/np.maximum, np.min/np.max)", convert=bool,
                              numpy_raises=self.size != 1)

    # NB: NumPy converts 0-d arrays only to Python numbers, integer ones only to an index
    def __int__(self):
        return self._concrete("int()", convert=int, numpy_raises=self.ndim != 0)

    def __float__(self):
        return self._concrete("float()", convert=float, numpy_raises=self.ndim != 0)

    def __complex__(self):
        return self._concrete("complex()", convert=complex, numpy_raises=self.ndim != 0)

    def __index__(self):
        return self._concrete("using an array as a Python index", convert=operator.index,
                              numpy_raises=self.ndim != 0 or self.dtype.kind not in "iu")

    @locating
    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        if self.ndim:
            raise TypeError("unsupported format string passed to numpy.ndarray.__format__")
        return self._concrete(f"format() with {spec!r}")

    @locating
    def __round__(self, ndigits=None):
        if not self.scalar:  # NB: as NumPy: only its scalars round
            raise TypeError("type numpy.ndarray doesn't define __round__ method")
        if ndigits is None:
            return self._concrete("round() to a Python int")
        return np.round(self, ndigits)

    def __hash__(self) -> int:
        if not self.scalar:  # NB: like ndarray: arrays are not hashable
            raise located(TypeError, "unhashable type: 'numpy.ndarray'")
        return self._concrete("hash() (a dict key, a set member, dict.get)")

    def __deepcopy__(self, memo) -> Tracer:
        return HOOKS["copy"](self)

    def __copy__(self) -> Tracer:  # NB: as ndarray's, a copy of the data (not of the Python object)
        return HOOKS["copy"](self)

    def __reduce_ex__(self, protocol):
        raise located(UnsupportedError, "pickling a traced array: it has no value while tracing; pickle the "
                      "function's result after the call, or keep the array as it is (a copy: x.copy())")

    def __array__(self, dtype=None, copy=None):
        # NB: NumPy converts by itself a traced index into a NumPy array and the lists given to
        # ufunc methods; a function imported by name never reaches elena_jax's namespace
        converter = _converting_api(sys._getframe(1)) or _scalar_type_called(sys._getframe(1)) or \
            _list_converted(self, sys._getframe(1))
        if converter is not None:
            return self._concrete(*converter)
        return self._concrete(
            "conversion to a NumPy array",
            "where it comes from, and what to write instead: a NumPy array indexed by a traced array, "
            "`table[idx]`: make the table traced first, `np.asarray(table)[idx]`; a list of traced arrays given "
            "to a NumPy function with no traced argument beside it, or to a ufunc method (`np.median([a, b, c], "
            "axis=0)`, `np.minimum.reduce([a, b])`), which NumPy converts itself: `np.stack` them first; "
            "`jnp.asarray(x)` or another JAX function given a traced value: write it with NumPy; a NumPy scalar "
            "type called on a traced value, `np.float32(x)`: `x.astype(np.float32)`; a NumPy function imported "
            "by name at module level (`from numpy import array`), which elena_jax cannot intercept: call it "
            "through np (`np.array`)")

    def item(self, *args):
        return self._concrete("item()")

    def tolist(self):
        return self._concrete("tolist()")

    # -- views ------------------------------------------------------------------

    def view_of(self, new: V.View, writeable: bool | None = None) -> Tracer:
        """A new array header over the same storage (what NumPy calls a view). Of a NumPy scalar,
        over a copy: its methods work on an array of its own (``s.reshape(1)`` is writable, and
        changes no ``s``), a 0-d one a scalar again (``s.T``, ``s.squeeze()``)."""
        if self.scalar:
            out = HOOKS["copy"](self).view_of(new, writeable)
            out.scalar = new.ndim == 0
            return out
        return Tracer(self._trace, self.storage, new,
                      self.writeable if writeable is None else writeable,
                      base=self.base if self.base is not None else self)

    def check_writeable(self) -> None:
        if not self.writeable:
            raise located(ValueError, "assignment destination is read-only")

    @property
    def type_name(self) -> str:
        """NumPy's name of this value's type in its messages: ``numpy.ndarray``, or a scalar's."""
        if self.weak:  # NB: a traced Python number
            return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[self.dtype.kind]
        return f"numpy.{self.dtype.type.__name__}" if self.scalar else "numpy.ndarray"

    def check_not_scalar(self, attribute: str) -> None:
        """NumPy's AttributeError for assigning an attribute of a scalar (``s.shape = (1,)``)."""
        if self.scalar:
            raise located(AttributeError, f"attribute '{attribute}' of 'numpy.generic' objects is not writable")

    def _index_order(self, order: str, allowed: str = "CFA") -> str:
        """``order`` of reshape/ravel as C or F (A: F for Fortran-contiguous arrays only)."""
        if order not in allowed:
            raise located(ValueError, f"order must be one of {', '.join(map(repr, allowed))} (got {order!r})")
        if order == "A":
            return "F" if self.flags.f_contiguous and not self.flags.c_contiguous else "C"
        return order

    @locating
    def reshape(self, *shape, order: str = "C", copy: bool | None = None) -> Tracer:
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        if copy:
            return HOOKS["copy"](self).reshape(shape, order=order)
        if self._index_order(order) == "F":  # NB: Fortran index order is C order of the reversed axes
            shape = V.resolve_shape(shape, self.size)
            return self.T.reshape(shape[::-1], copy=copy).T
        new = self._reshaped(shape)
        if new is None and copy is False:
            raise located(ValueError, "Unable to avoid creating a copy while reshaping.")
        if new is None:  # NB: NumPy copies when no view can express the result
            return HOOKS["copy"](self).reshape(shape)
        return self.view_of(new)

    @locating
    def ravel(self, order: str = "C") -> Tracer:
        """A view exactly where NumPy's ravel in ``order`` is one: F is the C ravel of the reversed
        axes, K the C ravel of the axes by decreasing |stride| (negative strides read forwards)."""
        if order == "K":
            return self.transpose(sorted(range(self.ndim), key=lambda i: -abs(self.header.strides[i]))).ravel()
        if self._index_order(order, "CFAK") == "F":
            return self.T.ravel()
        if self.flags.c_contiguous:
            return self.view_of(V.reshape(self.header, (-1,)))
        return HOOKS["copy"](self).reshape(-1)

    @locating
    def transpose(self, *axes) -> Tracer:
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes
        return self.view_of(V.transpose(self.header, None if axes is None or len(axes) == 0 else axes))

    @property
    def T(self) -> Tracer:
        return self.transpose()

    @property
    def mT(self) -> Tracer:
        return self.swapaxes(-1, -2)

    @locating
    def swapaxes(self, a: int, b: int) -> Tracer:
        return self.view_of(V.swapaxes(self.header, a, b))

    @locating
    def squeeze(self, axis=None) -> Tracer:
        return self.view_of(V.squeeze(self.header, axis))

    @locating
    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tracer:
        # NB: since NumPy 1.9 diagonal() is a read-only view.
        return self.view_of(V.diagonal(self.header, offset, axis1, axis2), writeable=False)

    # -- indexing ---------------------------------------------------------------

    @locating
    def __getitem__(self, key) -> Tracer:
        _borrowed(self, key)
        key = _known_key(key)
        if is_basic_index(key):
            out = self.view_of(self.index_view(key))
            element = out.ndim == 0 and not _has_ellipsis(key)
            if element and not out.scalar:  # NB: NumPy returns a scalar (a copy), not a view
                out = HOOKS["copy"](out)
            out.scalar = element  # NB: s[...] of a scalar is a 0-d array of its own (view_of copied it)
            return out
        return HOOKS["getitem"](self, key)

    def index_view(self, key) -> V.View:
        """The View of ``self[key]`` for a basic index; NumPy's IndexError with the user's line."""
        try:
            return V.index(self.header, key)
        except IndexError as e:
            raise located(IndexError, str(e)) from None

    @locating
    def __setitem__(self, key, value) -> None:
        _borrowed(self, (key, value))
        if self.scalar:
            raise located(TypeError, f"'{self.type_name}' object does not support item assignment")
        HOOKS["setitem"](self, _known_key(key), value)

    # -- the NumPy protocols ------------------------------------------------------

    @locating
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _borrowed(self, (inputs, kwargs))
        rule = UFUNCS.get(method if method != "__call__" else ufunc.__name__)
        if method == "__call__" and isinstance(inputs[0], np.integer) and _an_operator(sys._getframe(2)):
            _scalar_math(ufunc, *inputs)  # NB: ``np.int8(1) + k[0]``: NumPy's scalar operator passes it here
        if method != "__call__" and rule is not None:
            return rule(ufunc, *inputs, **kwargs)
        if rule is None:
            # NB: SciPy's ufuncs and np.frompyfunc's are ufuncs too, of other names
            name = f"np.{ufunc.__name__}" if getattr(np, ufunc.__name__, None) is ufunc else \
                f"the ufunc {ufunc.__name__!r} (not NumPy's)"
            what = name + ("" if method == "__call__" else f".{method}")
            raise located(UnsupportedError, f"{what} is not supported by elena_jax")
        return rule(*inputs, **kwargs)

    @locating
    def __array_function__(self, func, types, args, kwargs):
        _borrowed(self, (args, kwargs))
        rule = FUNCTIONS.get(func)
        if rule is None:
            name = getattr(func, "__module__", "numpy").replace("numpy._core", "numpy")
            raise located(UnsupportedError, f"{name}.{func.__name__} is not supported by elena_jax")
        return rule(*args, **kwargs)


# What NumPy converting a traced value for the user's subscript means, and what to write instead.
UNTRACED_TARGET = ("a NumPy array that is not traced (a global, a closure's, an attribute such as self.state, "
                   "or NumPy's result from one: TABLE.copy(), TABLE * 1)",
                   "elena_jax traces the arguments and the arrays made inside: pass that array as an argument "
                   "(writes into NumPy arguments are copied back), or make it inside the function (np.zeros, "
                   "np.array(TABLE)) and return it")
_NUMPY_SUBSCRIPT = {
    "STORE_SUBSCR": (f"writing into {UNTRACED_TARGET[0]}", UNTRACED_TARGET[1]),
    "BINARY_SUBSCR": ("a NumPy array that is not traced indexed by a traced array (table[idx])",
                      "make the table traced first: np.asarray(table)[idx]"),
}


#: The code of each NumPy function that the NumPy namespace intercepts as a module's attribute (numpy/
#: creation.intercept) -> that attribute's name: called through a name bound to it before the trace
#: (``from numpy.lib.stride_tricks import as_strided``), the function is NumPy's own.
INTERCEPTED_CODE: dict = {}

_WHOLE_ARRAY = ("it is not supported: write it with operations on the whole array (np.where for a branch, "
                "a boolean mask for a masked array)")


def _converting_api(frame) -> tuple[str, str] | None:
    """What converts a traced array to NumPy by itself for the user's code, seen in the frames
    between (elena_jax's, NumPy's), and what to write instead: np.vectorize, np.ma, or an
    intercepted NumPy function called by a name bound before the trace; else None."""
    while frame is not None and not is_user_file(frame.f_code.co_filename):
        if f"{os.sep}numpy{os.sep}ma{os.sep}" in frame.f_code.co_filename:
            return "np.ma (masked arrays), which converts its arguments to NumPy arrays,", _WHOLE_ARRAY
        if isinstance(frame.f_locals.get("self"), np.vectorize):
            return "np.vectorize(f), which converts its arguments to NumPy arrays,", _WHOLE_ARRAY
        if frame.f_code in INTERCEPTED_CODE:
            name = INTERCEPTED_CODE[frame.f_code]
            return (f"NumPy's own {name}, called by a name bound to it before the trace (`from ... import`), "
                    "which elena_jax cannot intercept,", f"call it through its module: `{name}(...)`")
        frame = frame.f_back
    return None


# NumPy's scalar types by name (np.float32, np.int64, ...), but the names of Python's own types
_SCALAR_TYPES = frozenset(n for n, t in vars(np).items() if isinstance(t, type) and issubclass(t, np.generic)) - {
    "bool", "int", "float", "complex", "object", "str", "bytes"}


def _scalar_type_called(frame) -> tuple[str, str] | None:
    """Where the user's ``frame`` calls a NumPy scalar type on its line (``np.float32(x.max())``: it
    converts its argument itself), that conversion and what to write instead; else None."""
    if frame is None or not is_user_file(frame.f_code.co_filename):
        return None
    for ins in dis.get_instructions(frame.f_code):
        if ins.offset > frame.f_lasti:
            break
        if getattr(getattr(ins, "positions", None), "lineno", None) == frame.f_lineno and ins.argval in _SCALAR_TYPES \
                and ins.opname.startswith(("LOAD_ATTR", "LOAD_METHOD", "LOAD_GLOBAL", "LOAD_NAME")):
            return (f"np.{ins.argval}(...) of a traced value (a NumPy scalar type converts its argument itself)",
                    f"write `x.astype(np.{ins.argval})`: a 0-d result of a reduction already is a NumPy scalar")
    return None


def _list_converted(t: Tracer, frame) -> tuple[str, str] | None:
    """Where a NumPy function the user called converts a list or tuple holding ``t`` by itself
    (``np.min([s1, s2])``: its dispatch looks at the list, not into it), that function and what to
    write instead; else None."""
    held = False
    while frame is not None and not is_user_file(frame.f_code.co_filename):
        numpy_own = frame.f_globals.get("__name__", "").startswith("numpy")
        held = held or numpy_own and any(isinstance(v, (list, tuple)) and any(x is t for x in v)
                                         for v in frame.f_locals.values())
        called, frame = frame, frame.f_back
    if not held or frame is None or not called.f_globals.get("__name__", "").startswith("numpy"):
        return None  # NB: not NumPy's function called by the user (elena_jax's own rule converting)
    module = [p for p in called.f_globals.get("__name__", "numpy").split(".") if p in ("linalg", "fft", "polynomial")]
    name = ".".join(["np", *module, called.f_code.co_name])  # NB: numpy.linalg._linalg's norm is np.linalg.norm
    pair = " (of two values, np.minimum/np.maximum say)" if name in ("np.min", "np.max", "np.amin", "np.amax") else ""
    return (f"{name} of a list holding traced values, which NumPy converts itself",
            f"stack them first, `{name}(np.stack([...]))`{pair}")


def _numpy_asks_for(frame) -> str | None:
    """The instruction of the user's code that NumPy converts a traced value for, where NumPy
    itself (no Python frame between) asks from the user's ``frame``: ``STORE_SUBSCR`` for
    ``BUF[0] = x`` into a NumPy array, ``BINARY_SUBSCR`` for ``table[idx]``; else None."""
    if frame is None or not is_user_file(frame.f_code.co_filename) or frame.f_lasti < 0:
        return None
    return dis.opname[frame.f_code.co_code[frame.f_lasti]]


def _an_operator(frame) -> bool:
    """Whether the user's ``frame`` runs a binary operator (``a + b``, ``s += b``), not a call."""
    op = _numpy_asks_for(frame) or ""
    return op.startswith(("BINARY_", "INPLACE_")) and op != "BINARY_SUBSCR"


# Files whose frames only forward a user's call: the operators here, errors.locating's wrapper, the
# ndarray methods (``x.dot(T)``, numpy/methods.py).
_FORWARDING = frozenset({__file__, locating.__code__.co_filename,
                         os.path.join(os.path.dirname(__file__), "numpy", "methods.py")})


def _borrowed(t: Tracer, values: Any) -> None:
    """Borrow (`Trace.borrow`) the NumPy arrays among ``values`` where the user's code handed them
    to a method of ``t``: the caller two frames up, looking through this module's forwarding
    (operators, `locating`); a rule of elena_jax's passes arrays of its own."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename in _FORWARDING:
        frame = frame.f_back
    if frame is not None and is_user_file(frame.f_code.co_filename):
        t._trace.borrow(values)


def is_basic_index(key) -> bool:
    """Whether ``a[key]`` is a view in NumPy (ints, slices, None, Ellipsis)."""
    parts = key if isinstance(key, tuple) else (key,)
    return all(
        k is None or k is Ellipsis or isinstance(k, slice) and _static_slice(k)
        or isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))
        for k in parts
    )


def _known_key(key):
    """``key`` with its traced integer scalars and slice bounds whose values are known at trace
    time (an element of ``np.arange(1, 7)``) as Python ints: a basic index, as NumPy's."""
    def known(k):
        value = k._trace.known_value(k) if isinstance(k, Tracer) and k.ndim == 0 and k.dtype.kind in "iu" else None
        return k if value is None else int(value)

    def part(k):
        return slice(known(k.start), known(k.stop), known(k.step)) if isinstance(k, slice) else known(k)

    return tuple(map(part, key)) if isinstance(key, tuple) else part(key)


def _has_ellipsis(key) -> bool:
    return key is Ellipsis or isinstance(key, tuple) and any(k is Ellipsis for k in key)


def _static_slice(s: slice) -> bool:
    return all(p is None or isinstance(p, (int, np.integer)) for p in (s.start, s.stop, s.step))


def _power(base, exponent, out=None):
    """NumPy's ``**``: ``np.power``, but for a float or complex array and an exact Python ``2``,
    ``-1`` or ``0.5`` the ufunc NumPy's fast_scalar_power takes: square, reciprocal, sqrt, whose
    values are not power's (of complex numbers in the last bits; ``-0.0 ** 0.5`` is -0.0 for
    float16 too). NB: not for ``np.float64(0.5)`` or ``2.0``, nor in ``np.power`` itself."""
    fast = None
    if isinstance(base, Tracer) and base.dtype.kind in "fc":
        if type(exponent) is int and exponent in (2, -1):
            fast = np.square if exponent == 2 else np.reciprocal
        elif type(exponent) is float and exponent == 0.5:
            fast = np.sqrt
    return np.power(base, exponent, out=out) if fast is None else fast(base, out=out)


# Operators are the ufuncs, as for ndarray; in-place operators write via out=.
_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": _power, "matmul": np.matmul,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "lshift": np.left_shift, "rshift": np.right_shift, "divmod": np.divmod,
}


def _of_python_scalars(result, *operands):
    """``result`` of a Python operator on traced Python scalars and Python numbers only (``1 - eps``):
    a Python number in turn, weak in NumPy 2's promotion. Not of NumPy's functions (``np.sqrt(eps)``
    is a NumPy scalar), nor a comparison's bool (a weak bool has no dtype to promote with)."""
    if any(isinstance(x, Tracer) and x.weak for x in operands) and all(
            x.weak if isinstance(x, Tracer) else type(x) in (int, float, complex) for x in operands):
        for r in result if isinstance(result, tuple) else (result,):
            if isinstance(r, Tracer) and r.dtype.kind != "b":
                r.weak = True
    return result


# NumPy's scalar math (operators on its integer scalars, not its ufuncs' loops) checks overflow.
_CHECKED = frozenset({np.add, np.subtract, np.multiply, np.negative, np.absolute})


def _scalar_math(ufunc, *operands) -> None:
    """NB: ``k[0] + 1`` of int8 raises FloatingPointError under np.errstate(over="raise"), where NumPy
    integer scalars meet scalars in an operator (Python ints alone never do): refuse, as compiled
    code cannot raise."""
    if ufunc not in _CHECKED or "over" not in raising_fp_errors():
        return
    tracers = [x for x in operands if isinstance(x, Tracer)]
    scalars = all(x.scalar if isinstance(x, Tracer) else isinstance(x, (int, float, complex, np.generic))
                  for x in operands)
    numpy_integer = any(not x.weak for x in tracers) or any(isinstance(x, np.integer) for x in operands)
    if scalars and numpy_integer and all(x.dtype.kind in "iu" for x in tracers):
        refuse_raising(f"the operator np.{ufunc.__name__} on NumPy integer scalars", ("over",),
                       "check the operands' range instead")


def _binary(ufunc):
    def forward(self, other):
        _scalar_math(ufunc, self, other)
        return _of_python_scalars(ufunc(self, other), self, other)

    def reflected(self, other):
        _scalar_math(ufunc, other, self)
        return _of_python_scalars(ufunc(other, self), other, self)

    def inplace(self, other):
        if self.scalar:  # NB: NumPy scalars are immutable: ``a[i] += v`` stores ``a[i] + v`` back
            _scalar_math(ufunc, self, other)
            return _of_python_scalars(ufunc(self, other), self, other)
        ufunc(self, other, out=(self,))
        return self

    return forward, reflected, inplace


for _name, _ufunc in _BINARY.items():
    _f, _r, _i = _binary(_ufunc)
    setattr(Tracer, f"__{_name}__", _f)
    setattr(Tracer, f"__r{_name}__", _r)
    if _name != "divmod":
        setattr(Tracer, f"__i{_name}__", _i)


def _unary(ufunc):
    def apply(self):
        _scalar_math(ufunc, self)
        return _of_python_scalars(ufunc(self), self)

    return apply


for _name, _ufunc in {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}.items():
    setattr(Tracer, f"__{_name}__", _unary(_ufunc))


def _compare(ufunc):
    def compare(self, other):
        if ufunc in (np.equal, np.not_equal) and (other is None or isinstance(other, (str, bytes))):
            # NB: NumPy's operator compares with no element equal (its ufunc has no such loop)
            none_equal = np.full(self.shape, ufunc is np.not_equal)
            return none_equal[()] if self.scalar else none_equal
        return ufunc(self, other)

    return compare


for _name, _ufunc in {"lt": np.less, "le": np.less_equal, "gt": np.greater,
                      "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal}.items():
    setattr(Tracer, f"__{_name}__", _compare(_ufunc))

