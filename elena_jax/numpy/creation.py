"""Creation functions, and the scoped interception that makes them traced.

``np.zeros((n, 4))`` takes no array argument, so ``__array_function__`` never
sees it. While a trace is active, the creation functions of the ``numpy``
module are replaced by dispatchers that build traced arrays -- but only for
calls made on the tracing thread from outside NumPy, JAX and elena_jax; every
other call (another thread, NumPy's own internals, our rules) reaches the
original function. The originals are restored when the last trace ends.

Design note: rebinding the user function's globals would miss helpers in
other modules and ``np`` passed around as a value; patching the module
attribute covers them. Names bound by ``from numpy import zeros`` before the
call are not intercepted: they return NumPy arrays, and writing a traced value
into one raises a clear error.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading

import numpy as np
import numpy.lib._index_tricks_impl as _index_tricks

from ..errors import ConcretizationError, is_user_file, located, locating, user_location
from ..tracer import FUNCTIONS, INTERCEPTED_CODE, Tracer, current_trace
from ._core import fresh, has_tracer, implements, laid_out, leaves, like_order, memory_order, result_dtype, trace_of
from .indexing import _check_value_shape

CREATION: dict[str, callable] = {}


def creation(name: str):
    def register(impl):
        CREATION[name] = impl
        return impl

    return register


def _shape(shape) -> tuple[int, ...]:
    if isinstance(shape, Tracer):
        raise ConcretizationError(f"an array shape cannot be a traced value\n  at {user_location()}")
    shape = tuple(int(s) for s in shape) if np.iterable(shape) else (int(shape),)
    if any(s < 0 for s in shape):
        raise located(ValueError, "negative dimensions are not allowed")
    return shape


@creation("zeros")
def zeros(shape, dtype=float, order="C", *, like=None):
    return full(shape, 0, dtype, order)


@creation("empty")
def empty(shape, dtype=float, order="C", *, like=None):
    return zeros(shape, dtype, order)


@creation("ones")
def ones(shape, dtype=float, order="C", *, like=None):
    return full(shape, 1, dtype, order)


@creation("full")
def full(shape, fill_value, dtype=None, order="C", *, like=None):
    if order not in ("C", "F"):
        raise ValueError(f"only 'C' or 'F' order is permitted\n  at {user_location()}")
    shape = _shape(shape)
    return _filled(shape, fill_value, dtype, memory_order(shape, [], order))


def _filled(shape, fill_value, dtype, layout):
    _check_value_shape(fill_value, shape)  # NB: NumPy copies the fill value into the new array
    if dtype is None:
        dtype = fill_value.dtype if isinstance(fill_value, Tracer) else np.array(fill_value).dtype
    if isinstance(fill_value, Tracer):
        return fresh(fill_value._trace, "copy", [fill_value], shape, np.dtype(dtype), layout=layout)
    value = _numpy_filled(fill_value, np.dtype(dtype))
    return fresh(trace_of(), "full", [], shape, np.dtype(dtype), layout=layout, value=value)


def _numpy_filled(fill_value, dtype: np.dtype):
    """The fill value as NumPy's ``full`` copies it into its array (``copyto(casting='unsafe')``),
    raising NumPy's errors: a Python int out of ``dtype``'s range, a string that is no number."""
    filled = np.empty(np.shape(fill_value), dtype)
    with np.errstate(all="ignore"):  # NB: NumPy's floating-point warnings are not replicated
        np.copyto(filled, fill_value, casting="unsafe")
    return filled.item() if filled.ndim == 0 else filled


def _like(name, value):
    def impl(a, dtype=None, order="K", subok=True, shape=None, **kw):
        dtype = np.dtype(dtype) if dtype is not None else (a.dtype if isinstance(a, Tracer) else np.asarray(a).dtype)
        like = np.shape(a) if not isinstance(a, Tracer) else a.shape
        shape = _shape(shape) if shape is not None else like
        fill = kw.get("fill_value", value)
        # NB: a new shape of as many dims is laid out as ``a`` is too
        layout = like_order(a, order) if len(shape) == len(like) else memory_order(shape, [], order)
        return _filled(shape, fill, dtype, layout)

    impl.__name__ = name
    return impl


for _name, _value in {"zeros_like": 0, "ones_like": 1, "empty_like": 0, "full_like": None}.items():
    _impl = _like(_name, _value)
    if _name == "full_like":
        _impl = (lambda f: lambda a, fill_value, dtype=None, order="K", subok=True, shape=None:
                 f(a, dtype, order, subok, shape, fill_value=fill_value))(_impl)
    CREATION[_name] = _impl
    implements(getattr(np, _name))(_impl)


def constant(value: np.ndarray) -> Tracer:
    """A traced array holding a value known at trace time."""
    value = np.asarray(value)
    trace = trace_of()
    layout = like_order(value)  # NB: np.asarray(W.T) of a global W is Fortran ordered
    t = fresh(trace, "copy", [value], value.shape, value.dtype, layout=layout)
    trace.know(t, value)
    return t


def _static(*xs):
    if any(isinstance(x, Tracer) for x in xs):
        raise ConcretizationError(f"the arguments of this creation function set the output shape "
                                  f"and cannot be traced\n  at {user_location()}")


@creation("arange")
def arange(*args, dtype=None, like=None, **kw):
    _static(*args, *kw.values())
    return constant(ORIGINALS["arange"](*args, dtype=dtype, **kw))


def _constant_function(name):
    def impl(*args, **kwargs):
        _static(*args, *kwargs.values())
        out = ORIGINALS[name](*args, **kwargs)
        return tuple(map(constant, out)) if isinstance(out, tuple) else constant(out)  # NB: np.indices(sparse=True)

    return impl


for _name in ("eye", "identity", "tri", "indices"):
    CREATION[_name] = _constant_function(_name)


def _constant_or_traced(name):
    """Constant ends: a traced constant; traced ends: the function's traced rule."""
    constant_impl = _constant_function(name)

    def impl(*args, **kwargs):
        if has_tracer(list(args) + list(kwargs.values())):
            return FUNCTIONS[ORIGINALS[name]](*args, **kwargs)
        return constant_impl(*args, **kwargs)

    return impl


for _name in ("logspace", "geomspace"):
    CREATION[_name] = _constant_or_traced(_name)


@creation("copy")
def copy(a, order="K", subok=False):
    """``np.copy(TABLE)`` of a NumPy array is traced, as ``np.array(TABLE)``, so that it can be
    written with traced values; a copy of strings, dates or objects stays NumPy's (static logic)."""
    if has_tracer(a):
        return FUNCTIONS[ORIGINALS["copy"]](a, order, subok)
    if np.asarray(a).dtype.kind in "biufc":
        return array(a, copy=True, order=order)
    return ORIGINALS["copy"](a, order=order, subok=subok)


@creation("linspace")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, **kw):
    if isinstance(start, Tracer) or isinstance(stop, Tracer):
        from .functions import traced_linspace  # traced ends: computed, not constant

        return traced_linspace(start, stop, num, endpoint, retstep, dtype, axis)
    out = ORIGINALS["linspace"](start, stop, num, endpoint, retstep, dtype, axis)
    return (constant(out[0]), out[1]) if retstep else constant(out)


def _assemble(obj, dtype, order="K"):
    if isinstance(obj, (list, tuple)):  # NB: a new array from a nested sequence is C-ordered
        r = np.stack([_assemble(x, dtype) for x in obj])
        return laid_out(r, tuple(range(r.ndim)))
    if isinstance(obj, Tracer):
        return obj.astype(dtype, order=order)
    return constant(np.array(obj, dtype=dtype))


@creation("array")
def array(obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    if isinstance(obj, Tracer) and not copy and not obj.scalar and (dtype is None or np.dtype(dtype) == obj.dtype):
        out = obj  # NB: NumPy 2's copy=False / copy=None return the array itself when they can (not of a scalar)
    elif copy is False and has_tracer(obj):
        raise ValueError(f"Unable to avoid copy while creating an array as requested.\n  at {user_location()}")
    elif has_tracer(obj):
        if dtype is None:  # NB: in array coercion Python scalars are not weak
            dtype = result_dtype(*[x if isinstance(x, Tracer) else np.asarray(x).dtype
                                   for x in leaves(obj)])
        out = _assemble(obj, np.dtype(dtype), order)
        out.scalar = False  # NB: an array, also of a NumPy scalar (np.asarray(a.sum()))
    else:
        out = constant(ORIGINALS["array"](obj, dtype=dtype, copy=True, order=order))
    while out.ndim < ndmin:
        out = out[None]
    return out


@creation("asarray")
def asarray(a, dtype=None, order=None, *, copy=None, device=None, like=None):
    if isinstance(a, Tracer) and (dtype is None or np.dtype(dtype) == a.dtype) and not copy and not a.scalar:
        return a
    return array(a, dtype=dtype, copy=True if copy is None else copy)  # NB: None: copy where needed


CREATION["asanyarray"] = asarray


@creation("ascontiguousarray")
def ascontiguousarray(a, dtype=None, *, like=None):
    a = asarray(a, dtype)
    a = a if a.ndim else a[None]  # NB: at least 1-d, as NumPy's
    return a if a.flags.c_contiguous else a.copy()


@creation("asfortranarray")
def asfortranarray(a, dtype=None, *, like=None):
    a = asarray(a, dtype)
    a = a if a.ndim else a[None]
    return a if a.flags.f_contiguous else a.copy(order="F")


# --- the scoped interception -------------------------------------------------------

ORIGINALS: dict[str, callable] = {name: getattr(np, name) for name in CREATION}
# (module, attribute) -> (original, dispatcher): everything the interception swaps.
_TARGETS: dict[tuple, tuple] = {}
INTERCEPTED: list[str] = []  # the names of traced functions intercepted so (``numpy.require``)
_lock = threading.Lock()
_depth = 0


def traced_user_call(depth: int = 1) -> bool:
    """Whether a trace is active on this thread and the Python frame ``depth`` levels up (the
    caller's, or the Python caller of compiled code in between) is user code, but for code an
    ``__array__`` method runs (its own or a helper's), whose NumPy array NumPy asks for (a pandas
    Series' ``np.asarray(self._values)``)."""
    if current_trace() is None:
        return False
    frame = sys._getframe(depth + 1)
    if not is_user_file(frame.f_code.co_filename):
        return False
    while frame is not None and is_user_file(frame.f_code.co_filename):
        if frame.f_code.co_name == "__array__":
            return False
        frame = frame.f_back
    return True


def _dispatcher(original, impl):
    impl = locating(impl)

    def call(args, kwargs):  # NB: for dispatch or __new__, called from the frame 2 levels up
        if traced_user_call(2):
            current_trace().borrow((args, kwargs))  # NB: np.asarray(TABLE) of a global TABLE
            return impl(*args, **kwargs)
        return original(*args, **kwargs)

    if isinstance(original, type):  # NB: np.nditer, np.ndenumerate: still a class to isinstance()
        return _StandIn(original.__name__, (), {"__new__": lambda cls, *args, **kwargs: call(args, kwargs),
                                                "original": original, "__doc__": original.__doc__,
                                                "__module__": original.__module__})

    @functools.wraps(original)
    def dispatch(*args, **kwargs):
        return call(args, kwargs)

    return dispatch


class _StandIn(type):
    """The type of a NumPy class's stand-in while tracing (its calls dispatched as a function's):
    its instances and subclasses are the NumPy class's (``isinstance(it, np.ndenumerate)``), and a
    class derived from it while tracing derives from the NumPy class."""

    def __new__(mcls, name: str, bases: tuple, namespace: dict):
        if any(isinstance(b, _StandIn) for b in bases):
            return type(name, tuple(b.original if isinstance(b, _StandIn) else b for b in bases), namespace)
        return super().__new__(mcls, name, bases, namespace)

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, cls.original)

    def __subclasscheck__(cls, sub) -> bool:
        return sub is cls or issubclass(sub, cls.original)


def intercept(module, name: str, impl, traced: bool = True) -> None:
    """While tracing, route ``module.name`` (called from user code) to ``impl`` (``traced``: it
    traces the function, rather than refuse it: `supported()` lists it)."""
    original = getattr(module, name)
    replace(module, name, _dispatcher(original, impl))
    if traced:
        INTERCEPTED.append(f"{module.__name__}.{name}")
        if hasattr(original, "__code__"):  # NB: a Python function: its frame names it (tracer.__array__)
            INTERCEPTED_CODE[original.__code__] = f"{module.__name__.replace('numpy', 'np', 1)}.{name}"


def replace(module, name: str, value) -> None:
    """While tracing, bind ``module.name`` to ``value`` (which decides itself who sees what)."""
    _TARGETS[(module, name)] = (getattr(module, name), value)


for _name, _impl in CREATION.items():
    intercept(np, _name, _impl)


def _array_of_tracers(obj, *args, **kwargs):
    """np.r_ and np.c_ convert each item with NumPy's internal ``array``: traced items are ours."""
    return (array if isinstance(obj, Tracer) else ORIGINALS["array"])(obj, *args, **kwargs)


replace(_index_tricks, "array", _array_of_tracers)
INTERCEPTED += ["numpy.r_", "numpy.c_"]


# --- lists given for array_like arguments -------------------------------------------------------


class _Probe:
    """Stands for an argument while NumPy's dispatcher of a function says which are array_like."""

    def __array_function__(self, func, types, args, kwargs):
        raise _Relevant(types)


class _Relevant(Exception):  # noqa: N818 (not an error: the answer of the dispatcher)
    def __init__(self, types) -> None:
        self.types = types


def array_like_arguments(func, args, kwargs) -> set:
    """The positions and keywords of the list and tuple arguments that NumPy's dispatcher of
    ``func`` hands to ``__array_function__`` (its array_like ones): each stood for by a probe, a
    list (tuple) of a type of its own holding the same items, traced ones stood for too; the
    types NumPy passes name them. A dispatcher that yields a sequence's items
    (``np.concatenate``, ``np.histogram2d``'s pair of bins) yields no probe of that argument."""
    keys = {}

    def probe(key, v):
        if isinstance(v, (list, tuple)):
            kind = tuple if isinstance(v, tuple) else list
            cls = type("_Probe", (kind, _Probe), {})
            keys[cls] = key
            return cls(_item(x) for x in v)
        return _item(v)

    try:
        func(*[probe(i, v) for i, v in enumerate(args)], **{k: probe(k, v) for k, v in kwargs.items()})
    except _Relevant as found:
        return {keys[t] for t in found.types if t in keys}
    except Exception:  # noqa: BLE001 (a dispatcher that cannot take probes)
        pass
    return set()


def _item(x):
    """``x`` with every traced array in it stood for by a plain probe (no rule of elena_jax runs)."""
    if isinstance(x, Tracer):
        return _Probe()
    if isinstance(x, (list, tuple)):
        return type(x)(_item(v) for v in x) if type(x) in (list, tuple) else x
    return x


def arrays_from_lists(func, args, kwargs):
    """The arguments with each list or tuple that NumPy takes as array_like converted as NumPy
    would (JAX refuses lists): one holding traced arrays to a traced array, one of numbers to a
    NumPy array; None where nothing changes. NB: NumPy's lexsort takes its keys one by one."""
    if func is np.lexsort:
        return None
    lists = [k for k, v in [*enumerate(args), *kwargs.items()] if isinstance(v, (list, tuple))]
    wanted = set(lists) & array_like_arguments(func, args, kwargs) if lists else set()
    if not wanted:
        return None

    def converted(key, v):
        if key not in wanted:
            return v
        if has_tracer(v):
            return asarray(v)
        try:
            a = ORIGINALS["asarray"](v)
        except ValueError:  # NB: ragged: NumPy's own error comes from the call itself
            return v
        return v if a.dtype == object else a

    new = [converted(i, v) for i, v in enumerate(args)], {k: converted(k, v) for k, v in kwargs.items()}
    changed = any(x is not y for x, y in zip([*new[0], *new[1].values()], [*args, *kwargs.values()]))
    return new if changed else None


@contextlib.contextmanager
def intercepting():
    """Route the intercepted NumPy functions to their traced versions."""
    global _depth
    with _lock:
        if _depth == 0:
            for (module, name), (_, dispatch) in _TARGETS.items():
                setattr(module, name, dispatch)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                for (module, name), (original, _) in _TARGETS.items():
                    setattr(module, name, original)
