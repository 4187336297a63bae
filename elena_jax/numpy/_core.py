"""Shared helpers of the NumPy namespace: registration, operands, casting.

Rules here turn NumPy calls on tracers into recorded ops. They decide result
shapes and dtypes with NumPy's own machinery (``ufunc.resolve_dtypes``,
``np.result_type``, ``np.broadcast_shapes``) so that NumPy stays the oracle.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import view as V
from ..errors import UnsupportedError, located, raising_fp_errors, refuse_raising
from ..tracer import FUNCTIONS, UNTRACED_TARGET, Trace, Tracer, current_trace


def implements(*funcs: Callable) -> Callable:
    """Register a rule for NumPy functions reached through ``__array_function__``: that door
    (`errors.locating`) names the user's line in whatever the rule raises without it. Its 0-d
    results are scalars or arrays as NumPy's (`returning_as_numpy`)."""

    def register(rule: Callable) -> Callable:
        for f in funcs:
            FUNCTIONS[f] = returning_as_numpy(f, rule)
        return rule

    return register


def returning_as_numpy(func: Callable, rule: Callable) -> Callable:
    """``rule``, whose new 0-d results are NumPy scalars where NumPy's ``func`` returns scalars
    (np.median, np.dot of vectors, np.linalg.det: ``round(m, 2)`` takes one, ``t = m; m += 1``
    leaves ``t``) and 0-d arrays where it returns arrays (np.where, np.copy), as NumPy's own call
    on one-element stand-ins of the operands says. (Where NumPy's scalar is a copy, the rules make
    one too: np.flip of a 0-d array, np.real of a scalar.)"""

    @functools.wraps(rule)  # NB: with the rule's marks (``data_dependent``)
    def call(*args, **kwargs):
        result = rule(*args, **kwargs)
        outs = list(result) if isinstance(result, (tuple, list)) else [result]
        if not any(isinstance(r, Tracer) and r.ndim == 0 for r in outs):
            return result
        operands = list(leaves([list(args), list(kwargs.values())]))
        zero_d = [i for i, r in enumerate(outs) if isinstance(r, Tracer) and r.ndim == 0
                  and all(r is not x for x in operands)]  # NB: an argument returned as it is keeps its kind
        if not zero_d or any(callable(x) and not isinstance(x, type) for x in operands):
            return result  # NB: a user's function (np.apply_along_axis's) must not run again
        probed = probe(func, args, kwargs)
        if probed is None:  # NB: NumPy refused the stand-ins: it cannot tell
            return result
        probed = list(probed) if isinstance(probed, (tuple, list)) else [probed]
        if len(probed) != len(outs):
            return result
        for i in zero_d:  # NB: a Python bool (np.allclose's) is a scalar too: ``ok += 1`` is 2
            outs[i].scalar = isinstance(probed[i], (np.generic, bool))
        return result

    return call


def strong(x: Any) -> Any:
    """``x``, where it is a traced Python number, as the array NumPy makes of it: strongly typed in
    its type (`Tracer.view_of` of a scalar is a copy, not weak); anything else unchanged."""
    return x.view_of(x.header) if isinstance(x, Tracer) and x.weak else x


def as_ufunc_result(r: Tracer) -> Tracer:
    """``r``, a ufunc's result made without out=: NumPy returns a 0-d one as a NumPy scalar
    (``round(a.sum(), 2)`` takes it, ``t = s; s += 1`` leaves ``t``)."""
    r.scalar = r.ndim == 0
    return r


def probe(func: Callable, args, kwargs):
    """NumPy's result on one-element stand-ins of ones, else of zeros (ones are indices out of range
    in take_along_axis on an axis of 1), else on zero-stride stand-ins of the full shapes (np.take(a,
    5)), or None where it refuses all."""
    singular = False
    for fill, full in ((1, False), (0, False), (1, True)):
        if fill == 0 and singular:
            continue  # NB: zeros are singular too (and np.polyfit's LAPACK prints to stderr of them)
        try:
            return run_numpy(func, args, kwargs, full=full, fill=fill)
        except np.linalg.LinAlgError:
            singular = True
        except Exception:  # noqa: BLE001 (NumPy may refuse a stand-in that the real values pass)
            continue
    return None


def leaves(obj):
    """The leaves of nested lists and tuples."""
    if isinstance(obj, (list, tuple)):
        for x in obj:
            yield from leaves(x)
    else:
        yield obj


def stand_in(x, full: bool = False, fill: int | str = 1, constants: bool = False):
    """A NumPy value standing in for ``x``: one element per non-empty axis, or (``full``) a zero-stride
    probe of its whole shape, allocating nothing, for NumPy's shape errors; every element is
    ``fill`` (ones by default: zeros are singular and sum to 0), or with ``fill="random"`` values of
    its whole shape drawn from a normal distribution; a NumPy scalar for a traced scalar.
    With ``constants``, NumPy arrays are cut to their first element per axis too, beside the traced ones."""
    if isinstance(x, Tracer):  # NB: empty axes stay empty (np.polyval of no coefficients is x's zeros)
        if fill == "random":  # NB: values in general position: no matrix of them is singular
            rng = np.random.default_rng(x.storage.id)  # NB: operands of one size apart too
            values = rng.integers(-1000, 1000, x.shape) if x.dtype.kind in "iu" else rng.standard_normal(x.shape)
            return values.astype(x.dtype)
        if x.scalar:  # NB: a traced Python number stands in as one (weak: np.percentile(f32, q) is float32)
            value = np.full((), fill, x.dtype)[()]
            return value.item() if x.weak else value
        shape = x.shape if full else tuple(min(n, 1) for n in x.shape)
        return np.broadcast_to(np.full((), fill, x.dtype), shape)
    if constants and isinstance(x, np.ndarray):
        return x[tuple(slice(0, 1) for _ in x.shape)]
    if isinstance(x, (list, tuple)):
        return type(x)(stand_in(v, full, fill, constants) for v in x)
    return x


def run_numpy(func: Callable, args, kwargs, full: bool = False, fill: int | str = 1, constants: bool = False):
    """NumPy's ``func`` on stand-ins of the operands (`stand_in`), quietly."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NB: "Mean of empty slice" and the like, on stand-ins
        return func(*stand_in(list(args), full, fill, constants),
                    **{k: stand_in(v, full, fill, constants) for k, v in kwargs.items()})


def trace_of(*values: Any) -> Trace:
    """The trace of the first tracer among ``values`` (or the current one)."""
    for v in values:
        if isinstance(v, Tracer):
            return v._trace
        if isinstance(v, (list, tuple)):
            for w in v:
                if isinstance(w, Tracer):
                    return w._trace
    trace = current_trace()
    if trace is None:
        raise located(UnsupportedError, "elena_jax rule called outside a traced call")
    return trace


def shape_of(x: Any) -> tuple[int, ...]:
    return x.shape if isinstance(x, Tracer) else np.shape(x)


def dtype_of(x: Any) -> Any:
    """The dtype for promotion: Python scalars stay "weak" (their type)."""
    if isinstance(x, Tracer):
        return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[x.dtype.kind] if x.weak else x.dtype
    if isinstance(x, (bool, np.generic)):  # NB: np.float64 subclasses float but is not weak
        return np.asarray(x).dtype
    if isinstance(x, (int, float, complex)):
        return type(x)
    return np.asarray(x).dtype


def promoted_as(x: Any) -> Any:
    """What ``np.result_type`` takes for ``x``: a traced Python scalar as a Python scalar of its
    kind (weak), a traced array as its dtype, anything else as it is."""
    if isinstance(x, Tracer):
        return dtype_of(x)() if x.weak else x.dtype  # NB: float() is 0.0: a Python number of its kind
    return x


def result_dtype(*xs: Any) -> np.dtype:
    """NumPy 2's promotion of the operands (Python scalars weak)."""
    return np.result_type(*[x if not isinstance(x, Tracer) else x.dtype for x in xs])


def has_tracer(x: Any) -> bool:
    """Whether ``x`` is traced or a (nested) list or tuple holding a traced value."""
    return isinstance(x, Tracer) or isinstance(x, (list, tuple)) and any(has_tracer(v) for v in x)


def sequence_as_array(x: Any) -> Any:
    """A (nested) list or tuple holding traced values as one traced array, as NumPy's
    ``np.asarray`` of it; anything else unchanged."""
    if isinstance(x, (list, tuple)) and has_tracer(x):
        from .creation import array  # NB: creation imports this module

        return array(x)
    return x


def as_operand(trace: Trace, x: Any, dtype: np.dtype) -> Any:
    """A tracer unchanged; a constant cast as NumPy casts it (raising like NumPy): a Python
    number, a string or None NumPy converts into ``dtype`` itself (``a[0] = "3"`` is 3)."""
    if isinstance(x, Tracer):
        return x
    if isinstance(x, (int, float, complex)):
        return np.array(x, dtype=dtype)
    a = np.asarray(x)
    return np.array(x, dtype=dtype) if a.dtype.kind in "OSUV" else a


def check_cast_flags(source: np.dtype, target: np.dtype) -> None:
    """NumPy's casts flag NaN, inf and values out of range into integers (invalid), and values beyond
    a narrower float's range (over; integers into float16 too): refused under an error state that
    raises for them (astype, a write into an array of another type, np.copyto)."""
    if source.kind in "fc" and target.kind in "iu":
        flag = "invalid"
    elif target.kind in "fc" and (source.kind in "fc" and np.finfo(target).max < np.finfo(source).max
                                  or source.kind in "iu" and np.iinfo(source).max > np.finfo(target).max):
        flag = "over"
    else:
        return
    refuse_raising(f"a cast from {source} to {target}", [k for k in raising_fp_errors() if k == flag],
                   "check the values' range instead")


def check_cast(source: np.dtype, target: np.dtype, casting: str) -> None:
    """NumPy's TypeError where an array of ``source`` may not be cast to ``target`` under ``casting``
    (and its ValueError for an unknown ``casting``)."""
    if not np.can_cast(source, target, casting):
        raise located(TypeError, f"Cannot cast array data from {np.dtype(source)!r} to {np.dtype(target)!r} "
                      f"according to the rule {casting!r}")


def check_sort_kind(kind: Any) -> None:
    """NumPy's own error for a sort ``kind=`` it does not know (it reads the first letter)."""
    np.sort(np.zeros(1), kind=kind)


def untraced_target(what: str) -> UnsupportedError:
    """The refusal of ``what`` (``np.add(out=...)``) writing into a NumPy array that is not traced."""
    return located(UnsupportedError, f"{what} into {UNTRACED_TARGET[0]}: {UNTRACED_TARGET[1]}")


def check_out_array(out: Any, message: str = "return arrays must be of ArrayType") -> None:
    """NumPy refuses a scalar as ``out=`` (``b[0]`` of a vector is one) with a TypeError; its
    ufuncs say ``message``'s default, its other functions "output must be an array"."""
    if out is not None and (isinstance(out, Tracer) and out.scalar or not isinstance(out, (Tracer, np.ndarray))):
        raise located(TypeError, message)


def shape_text(shape) -> str:
    """A shape as NumPy's messages write it: ``(2,3)``, ``(2,)``."""
    return f"({','.join(map(str, shape))}{',' if len(shape) == 1 else ''})"


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """NumPy's broadcast of ``shapes``, or its ufuncs' ValueError, which names every operand's shape."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        listed = "".join(f"{shape_text(s)} " for s in shapes)
        raise located(ValueError, f"operands could not be broadcast together with shapes {listed}") from None


def check_dtype_supported(dtype: np.dtype, what: str = "arrays") -> None:
    """UnsupportedError for ``what`` of a type elena_jax does not trace: no NumPy number (strings,
    objects; JAX's bfloat16 and PRNG keys, of no NumPy rules), long double, another byte order."""
    if not isinstance(dtype, np.dtype) or dtype.kind not in "biufc":  # NB: bfloat16 is ml_dtypes' kind "V"
        jax_own = not isinstance(dtype, np.dtype) or dtype.name == "bfloat16"
        raise located(UnsupportedError, f"{what} of dtype {dtype}: not supported by elena_jax"
                      + (" (JAX's own type, with no NumPy rules)" if jax_own else ""))
    if dtype.itemsize > {"f": 8, "c": 16}.get(dtype.kind, 8):
        raise located(UnsupportedError, f"{what} of dtype {dtype} (long double): not supported by elena_jax, "
                                        "JAX has no such type")
    if not dtype.isnative:
        raise located(UnsupportedError, f"{what} of dtype {dtype.str} (not the machine's byte order): not "
                                        "supported by elena_jax; pass x.astype(x.dtype.newbyteorder('='))")


def memory_order(shape, operands, order: str | None = "K") -> tuple[int, ...]:
    """The order of axes in memory (outermost first) NumPy gives a new array of ``shape`` made
    from ``operands`` with its ``order=`` argument: C, F, or following the operands (K, A).
    An elementwise op's operands (a list is a C-ordered array; a ``where=`` mask counts)."""
    arrays = [np.asarray(x) if isinstance(x, (list, tuple)) else x for x in operands]
    arrays = [x for x in arrays if isinstance(x, (Tracer, np.ndarray))]
    c_order = tuple(range(len(shape)))
    if order in (None, "C") or not arrays and order != "F":
        return c_order
    if order == "F":
        return c_order[::-1]
    if order == "A":  # NB: Fortran order only when every operand is Fortran contiguous (1-d ones are)
        return c_order[::-1] if all(x.flags.f_contiguous for x in arrays) else c_order
    if order != "K":
        raise located(ValueError, f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return V.keep_order(shape, [x.memory_view if isinstance(x, Tracer) else _view_of(x) for x in arrays])


def like_order(a, order: str = "K") -> tuple[int, ...]:
    """NumPy's memory order of a new array like ``a`` (copy, astype, ``*_like``, ``np.array``):
    for K, ``a``'s axes by decreasing |stride|, so broadcast (zero-stride) axes are innermost,
    where an elementwise op's iterator ignores them."""
    v = a.memory_view if isinstance(a, Tracer) else _view_of(np.asarray(a))
    if order != "K" or all(n == 1 or s for n, s in zip(v.shape, v.strides)):
        return memory_order(v.shape, [a], order)
    return tuple(sorted(range(v.ndim), key=lambda i: -abs(v.strides[i])))


def laid_out(r: Tracer, order: tuple[int, ...]) -> Tracer:
    """``r``, or a copy of it with its axes in memory in ``order`` where it lies otherwise."""
    if memory_order(r.shape, [r]) == tuple(order):
        return r
    return fresh(r._trace, "copy", [r], r.shape, r.dtype, layout=tuple(order))


def _view_of(x: np.ndarray) -> V.View:
    return V.View.make(x.shape, [s // x.itemsize for s in x.strides]) if x.itemsize else V.contiguous(x.shape)


def fresh(trace: Trace, prim: str, ins, shape, dtype, /, **params) -> Tracer:
    dtype = np.dtype(dtype)
    check_dtype_supported(dtype)  # NB: a string or object array made inside the function
    return trace.define(prim, ins, shape, dtype, **params)


def raise_where(flags, error: type[BaseException], message: str) -> None:
    """NumPy's ``error`` where any of ``flags`` is true, a fact of the values: at once for a value
    known now, else an op with no result that checked mode turns into the error (rules.value_check)."""
    if not isinstance(flags, Tracer):
        if np.any(flags):
            raise located(error, message)
        return
    flags._trace.record("check", [flags._trace.operand(flags)], [], {"error": error, "message": message})
