"""Every NumPy ufunc, with ``out=``, ``where=``, ``dtype=``, ``casting=``,
and the ufunc methods ``reduce``, ``accumulate``, ``outer`` and ``at``.

The loop dtypes come from ``ufunc.resolve_dtypes`` (NumPy 2's promotion, with
Python scalars weak); constants are cast to them here, at trace time, so that
NumPy raises its own errors (``OverflowError`` for ``int8_array + 1000``). The
op records the loop's input dtypes; the lowering casts to them and applies
the JAX function of the same name, so both sides compute in NumPy's dtypes.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from .. import view as V
from ..errors import UnsupportedError, located, raising_fp_errors, refuse_raising
from ..tracer import UFUNCS, Tracer
from ..view import normalize_axis
from ._core import (
    as_operand,
    as_ufunc_result,
    broadcast_shapes,
    check_out_array,
    dtype_of,
    fresh,
    has_tracer,
    memory_order,
    sequence_as_array,
    shape_of,
    shape_text,
    strong,
    trace_of,
    untraced_target,
)

# NumPy ufuncs without a JAX counterpart, or on types we refuse.
_UNSUPPORTED = {"isnat"}


def _outs(ufunc, args, out):
    positional = args[ufunc.nin :]
    if positional and out is not None:
        raise TypeError("cannot specify 'out' as both a positional and keyword argument")
    if positional:
        out = positional
    if out is None:
        return (None,) * ufunc.nout
    if not isinstance(out, tuple):
        out = (out,)
    if len(out) != ufunc.nout:
        raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
    for o in out:
        check_out_array(o)
    return out


def resolve_loop(ufunc, inputs, dtype=None, signature=None, casting="same_kind"):
    """NumPy's loop dtypes (inputs then outputs) for these operands."""
    if dtype is not None and signature is None:
        signature = (None,) * ufunc.nin + (np.dtype(dtype),) * ufunc.nout
    options = {"casting": casting} if signature is None else {"casting": casting, "signature": signature}
    return ufunc.resolve_dtypes(tuple(dtype_of(x) for x in inputs) + (None,) * ufunc.nout, **options)


_COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


def _widen_comparison(ufunc, inputs, loop):
    """NB: NumPy 2 compares an integer array with any Python int, even one outside the
    array dtype's range (``uint8_array != -7`` is all True): compare in int64 then, or in
    int64 against uint64 (the lowering's exact mixed comparison) beyond int64's range."""
    if ufunc.__name__ not in _COMPARISONS:
        return loop
    i64, u64 = np.dtype(np.int64), np.dtype(np.uint64)
    for k, (x, d) in enumerate(zip(inputs, loop[:2])):
        other = loop[1 - k]
        if isinstance(x, Tracer) and x.weak and x.dtype.kind in "iu" and other.kind in "iu":
            # NB: a traced Python int (int64, or uint64 above int64's range): any value, compared as
            # NumPy compares it (it wrapped into the array's type: uint8 < 300 was False; acceptance
            # campaign E, session 29); int64 against uint64 is the lowering's exact mixed comparison
            pair = [u64 if other == u64 else i64] * 2
            pair[k] = x.dtype
            return tuple(pair) + tuple(loop[2:])
        if type(x) is int and d.kind in "iu" and not np.iinfo(d).min <= x <= np.iinfo(d).max:
            if np.iinfo(i64).min <= x <= np.iinfo(i64).max and np.can_cast(other, i64):
                return (i64, i64) + tuple(loop[2:])
            if np.iinfo(i64).min <= x < 0:  # against uint64
                pair = [u64, u64]
                pair[k] = i64
            elif np.iinfo(i64).max < x <= np.iinfo(u64).max:
                pair = [u64 if other.kind == "u" else i64] * 2
                pair[k] = u64
            else:
                continue
            return tuple(pair) + tuple(loop[2:])
    return loop


def _decided_by_value(ufunc, inputs) -> bool | None:
    """The answer of a comparison of an integer array with a Python int beyond int64 and uint64
    (``uint64_hash < 2**64``), the same for every element, which NumPy 2 gives by value; None
    for any other call (acceptance campaign E, session 29: the int's conversion overflowed)."""
    if ufunc.__name__ not in _COMPARISONS:
        return None
    for k, x in enumerate(inputs):
        other = inputs[1 - k]
        if type(x) is int and not np.iinfo(np.int64).min <= x <= np.iinfo(np.uint64).max \
                and isinstance(other, Tracer) and other.dtype.kind in "iu":
            return bool(ufunc(*(x if j == k else 0 for j in range(2))))  # NB: 0 stands for every element
    return None


def _check_casts(ufunc, loop, outs, casting):
    """The given outputs take the loop's results under ``casting`` (NumPy checks this after it
    converts the operands and before it broadcasts them)."""
    for o, d in zip(outs, loop[ufunc.nin :]):
        if o is None:
            continue
        if not isinstance(o, Tracer):
            raise untraced_target(f"np.{ufunc.__name__}(out=...)")
        if not np.can_cast(d, o.dtype, casting):
            dummies = [np.ones((), t) for t in loop[: ufunc.nin]]
            stand_ins = tuple(np.empty((), t if x is None else x.dtype) for x, t in zip(outs, loop[ufunc.nin :]))
            with np.errstate(all="ignore"):  # NumPy raises its own error
                ufunc(*dummies, out=stand_ins, casting=casting)


def _refuse_object_loop(ufunc, inputs):
    """NB: an operand NumPy holds as an object (None, a Fraction) gets NumPy's object loop, whose
    TypeError (``m + None``) is raised here on stand-ins for the traced operands; one NumPy would
    compute is refused: an array of objects has no JAX type."""
    stand_ins = [np.ones((), x.dtype) if isinstance(x, Tracer) else x for x in inputs]
    with np.errstate(all="ignore"):
        ufunc(*stand_ins)
    kinds = ", ".join(type(x).__name__ for x in inputs if not isinstance(x, Tracer))
    raise located(UnsupportedError, f"np.{ufunc.__name__} of {kinds} (NumPy's loop over objects) is not supported")


# Float ufuncs that signal no floating-point error in NumPy (exact, or NaN-quiet).
_SILENT = frozenset({"absolute", "fabs", "negative", "positive", "conjugate", "copysign", "sign", "floor",
                     "ceil", "trunc", "rint", "maximum", "minimum", "fmax", "fmin", "clip"})


# The float ufuncs that divide by zero in NumPy's sense (its divide flag: x / 0, log(0),
# arctanh(1), 0 ** -1): the others cannot raise under np.errstate(divide="raise") alone.
_DIVIDING = frozenset({"divide", "true_divide", "floor_divide", "divmod", "reciprocal", "power", "float_power",
                       "log", "log2", "log10", "log1p", "arctanh", "arctan"})  # NB: complex arctan(1j)


# The integer ufuncs NumPy flags, and what: ``k // 0``, ``k % 0``, ``np.reciprocal(0)`` divide,
# ``MIN // -1`` overflows.
_INTEGER_FLAGS = {"floor_divide": ("divide", "over"), "divmod": ("divide", "over"), "remainder": ("divide",),
                  "fmod": ("divide",), "reciprocal": ("divide",)}


def _refuse_raising_error_state(ufunc, loop, inputs) -> None:
    """NB: compiled code cannot raise FloatingPointError: where NumPy would, refuse rather than
    answer inf or nan silently. Boolean and exact ops are not affected, nor integer ops but
    divisions, nor an op that cannot divide under a state raising for division only (``x - 2`` in
    ``x / (x - 2)``), nor a division by a constant that is never 0 (nor -1, for integers: ``k // 2``)."""
    name = ufunc.__name__
    if any(d.kind in "fc" for d in loop[ufunc.nin :]):
        raising = [] if name in _SILENT else [k for k in raising_fp_errors() if k != "divide" or name in _DIVIDING]
        cleared = {"divide": 0}
    else:
        raising = [k for k in raising_fp_errors() if k in _INTEGER_FLAGS.get(name, ())]
        cleared = {"divide": 0, "over": -1}
    divisor = inputs[ufunc.nin - 1] if name in _INTEGER_FLAGS or name in ("divide", "true_divide") else None
    divisor = divisor._trace.known_value(divisor) if isinstance(divisor, Tracer) else divisor
    if divisor is not None:
        raising = [k for k in raising if k not in cleared or np.any(np.asarray(divisor) == cleared[k])]
    refuse_raising(f"np.{name}", raising, "check the divisor instead (np.any(d == 0))" if loop[-1].kind in "iu" else
                   "check the result instead (np.isfinite)")


def _check_out_shape(shape, o):
    whole = broadcast_shapes(shape, o.shape)
    if whole != o.shape:
        raise located(ValueError, f"non-broadcastable output operand with shape {shape_text(o.shape)} "
                      f"doesn't match the broadcast shape {shape_text(whole)}")


def ufunc_rule(ufunc):
    def rule(*args, out=None, where=True, casting="same_kind", dtype=None, order="K",
             subok=True, signature=None):
        inputs = [sequence_as_array(x) for x in args[: ufunc.nin]]
        outs = _outs(ufunc, args, out)
        trace = trace_of(*inputs, *outs, where)
        if any(isinstance(o, Tracer) and not o.writeable for o in outs):
            # NB: NumPy refuses a read-only output before it converts the operands (uint8 += -4)
            raise located(ValueError, "output array is read-only")
        if ufunc.nout == 2 and all(isinstance(o, Tracer) for o in outs) and np.shares_memory(*outs):
            raise located(UnsupportedError, f"np.{ufunc.__name__} into two outputs that share memory: which value "
                          "NumPy leaves there follows the order of its loop's writes; write into separate arrays")
        decided = _decided_by_value(ufunc, inputs)
        if decided is not None:  # NB: v == v is all True for integers
            v = next(x for x in inputs if isinstance(x, Tracer))
            return (np.equal if decided else np.not_equal)(v, v, out=out, where=where, casting=casting, order=order)
        loop = _widen_comparison(ufunc, inputs, resolve_loop(ufunc, inputs, dtype, signature, casting))
        if any(d.kind not in "biufc" for d in loop):
            _refuse_object_loop(ufunc, inputs)
        _refuse_raising_error_state(ufunc, loop, inputs)
        ins = [as_operand(trace, x, d) for x, d in zip(inputs, loop)]
        _check_casts(ufunc, loop, outs, casting)
        given = [o for o in outs if o is not None] + ([] if where is True else [where])
        broadcast_shapes(*map(shape_of, inputs + given))  # NB: NumPy's error names every operand's shape
        shape = np.broadcast_shapes(*map(shape_of, inputs))
        if ufunc is np.power and loop[1].kind in "iu" and not isinstance(ins[1], Tracer) and np.any(ins[1] < 0):
            # NB: NumPy refuses negative integer exponents; a traced one cannot be checked here
            raise located(ValueError, "Integers to negative integer powers are not allowed.")
        params = dict(name=ufunc.__name__, loop=tuple(loop[: ufunc.nin]))
        # NB: a where= mask broadcasts with the operands (it can make the output larger)
        full = shape if where is True else broadcast_shapes(shape, shape_of(where))
        layout = memory_order(full, inputs + ([] if where is True else [where]), order)
        if all(o is None for o in outs) and where is True:
            results = trace.define_many("ufunc", ins, [(shape, d) for d in loop[ufunc.nin :]], layout=layout,
                                        **params)
            _fold(trace, ufunc, inputs, loop, results, dtype=dtype, signature=signature, casting=casting)
            results = [as_ufunc_result(r) for r in results]
            return results[0] if ufunc.nout == 1 else tuple(results)
        targets = []
        for o, d in zip(outs, loop[ufunc.nin :]):
            if o is None:  # NB: NumPy leaves masked-out elements uninitialised
                o = fresh(trace, "full", [], full, d, layout=layout, value=0)
            _check_out_shape(full, o)
            targets.append(o)
        if where is not True:
            ins += [where, *targets]
            params["masked"] = True
        trace.write("ufunc", ins, targets, **params)
        return targets[0] if ufunc.nout == 1 else tuple(targets)

    return rule


def _fold(trace, ufunc, inputs, loop, results, **options) -> None:
    """Results over values known at trace time are known too, where NumPy and XLA compute
    them exactly alike: integer and boolean loops, and boolean results (comparisons, isnan):
    a mask or index built inside f from constants is then as static as NumPy's."""
    exact = all(d.kind in "biu" for d in loop) or all(d.kind == "b" for d in loop[ufunc.nin :])
    if not exact or any(isinstance(x, Tracer) and x.weak for x in inputs):
        return
    values = [trace.known_value(x) if isinstance(x, Tracer) else x for x in inputs]
    if any(v is None for v in values):
        return
    with np.errstate(all="ignore"):
        folded = ufunc(*values, **{k: v for k, v in options.items() if v is not None})
    for r, value in zip(results, folded if ufunc.nout > 1 else [folded]):
        trace.know(r, np.asarray(value, r.dtype))


for _name in dir(np):
    _u = getattr(np, _name)
    if isinstance(_u, np.ufunc) and _u.__name__ not in _UNSUPPORTED and _u.signature is None:
        UFUNCS[_u.__name__] = ufunc_rule(_u)
UFUNCS["clip"] = ufunc_rule(np._core.umath.clip)  # NB: NumPy 2's np.clip calls this ufunc
# Generalized ufuncs (matmul, vecdot, ...) are registered with the functions (functions.py).


# --- methods -----------------------------------------------------------------

_IDENTITY_FREE = {"maximum", "minimum", "fmax", "fmin"}


def reduce_axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(normalize_axis(a, ndim) for a in (axis if isinstance(axis, tuple) else (axis,)))
    if len(set(axes)) != len(axes):
        raise located(ValueError, "duplicate value in 'axis'")
    return axes


def reduced_shape(shape, axes, keepdims: bool) -> tuple[int, ...]:
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def reduce_dtype(ufunc, a, dtype, out=None):
    """NumPy's loop dtype of ``ufunc.reduce``: ``dtype``; else, given an ``out``, the ufunc's type
    for ``a`` and ``out`` where it is inexact (float32 summed into a float64 ``out`` adds in
    float64, float64 into float32 too, float32 into int32 in float64); else ``a``'s, small
    integers and bools summed in int64."""
    loop = _loop_into(ufunc, a, dtype, out)
    if loop is not None and loop.kind in "fc":  # NB: integer results are the same in any width
        return loop
    with np.errstate(all="ignore"):
        return ufunc.reduce(np.ones((1,), a.dtype), dtype=dtype).dtype


def _loop_into(ufunc, a, dtype, out) -> np.dtype | None:
    """NumPy's loop dtype of ``ufunc.reduce`` of ``a`` into ``out``, where no ``dtype`` is given."""
    if dtype is not None or out is None or not hasattr(out, "dtype"):
        return None
    try:
        return ufunc.resolve_dtypes((out.dtype, a.dtype, None), reduction=True)[2]
    except TypeError:  # NB: a float sum into an int out: the promoted loop, its result cast unsafely
        try:
            return ufunc.resolve_dtypes((out.dtype, a.dtype, None))[2]
        except TypeError:
            return None


def ufunc_reduce(ufunc, a, axis=0, dtype=None, out=None, keepdims=False, initial=np._NoValue,
                 where=True):
    if isinstance(out, tuple):
        (out,) = out
    trace = trace_of(a, out, where)
    if not isinstance(a, Tracer):
        a = fresh(trace, "copy", [np.asarray(a)], np.shape(a), np.asarray(a).dtype)
    if a.ndim == 0 and axis in (0, -1):  # NB: NumPy reduces a 0-d array along axis 0 or -1 to its value
        axis = None
    axes = reduce_axes(axis, a.ndim)
    order = memory_order(a.shape, [a] + ([] if where is True else [where]))
    if out is None and list(order) != sorted(order):
        # NB: NumPy lays the result out as the kept axes lie in memory (a.T.sum(0) is Fortran
        # ordered): reduce the array seen in memory order, and return the result's view back
        where = where if where is True else np.broadcast_to(where, a.shape).transpose(order)
        r = ufunc_reduce(ufunc, a.transpose(order), tuple(order.index(i) for i in axes), dtype, None,
                         keepdims, initial, where)
        return in_order(r, [i for i in order if keepdims or i not in axes])
    res_dtype = reduce_dtype(ufunc, a, dtype, out)
    _refuse_raising_error_state(ufunc, (res_dtype,) * 3, [a, None])  # NB: a sum overflows, x // 0 divides
    if initial is not np._NoValue:
        # NB: NumPy's own conversion of it, and its errors (``initial=300`` of uint8 wrapped to 44):
        # an empty reduction is its initial value, in the loop's type where an out= chose it (1.3
        # into a float64 out of float32 values is float64's 1.3)
        loop = _loop_into(ufunc, a, dtype, out)
        try:
            initial = ufunc.reduce(np.empty(0, a.dtype), dtype=dtype if loop is None else loop, initial=initial)
        except (OverflowError, ValueError, TypeError) as e:
            raise located(type(e), str(e)) from None
    empty = any(a.shape[i] == 0 for i in axes) or (where is not True)
    if ufunc.identity is None and initial is np._NoValue and empty and ufunc.__name__ in _IDENTITY_FREE:
        if where is not True:
            raise located(ValueError, f"reduction operation '{ufunc.__name__}' does not have an identity, "
                          "so to use a where mask one has to specify 'initial'")
        raise located(ValueError, f"zero-size array to reduction operation {ufunc.__name__} "
                      "which has no identity")
    if ufunc.__name__ not in REDUCIBLE:  # NB: folded left to right (subtract, divide, power, hypot, ...)
        if ufunc.nin != 2 or ufunc.nout != 1 or ufunc.signature is not None:
            raise located(UnsupportedError, f"np.{ufunc.__name__}.reduce is not supported by elena_jax")
        _probe_reduce(ufunc, a, axis, dtype, keepdims, initial, where)
        _check_folds(ufunc, "reduce", a.dtype, dtype)
        if initial is np._NoValue and ufunc.identity is not None:
            initial = ufunc.identity  # NB: NumPy starts from the identity (gcd.reduce([-4]) is 4)
    shape = reduced_shape(a.shape, axes, keepdims)
    if initial is not np._NoValue and any(a.shape[i] == 0 for i in axes):
        # NB: an empty reduction is its initial value (JAX refuses max/min of nothing)
        a = np.broadcast_to(np.asarray(initial, res_dtype), shape)
        axes, where, keepdims, initial = (), True, True, np._NoValue
    ins = [a] + ([where] if where is not True else [])
    params = dict(name=ufunc.__name__, axes=axes, keepdims=keepdims, dtype=res_dtype,
                  initial=None if initial is np._NoValue else initial, masked=where is not True)
    if ufunc.__name__ in ("add", "multiply") and res_dtype.kind in "fc" and isinstance(a, Tracer):
        cast = (res_dtype != a.dtype, out is not None and out.dtype != res_dtype)
        mask = None if where is True else _strides_as(where, a.shape)
        order = V.summation(a.memory_view, axes, cast, np.getbufsize(), _out_strides(out, axes, keepdims), mask)
        if ufunc.__name__ == "add":  # NB: a pairwise sum of each unmasked stretch is not modelled
            ordered = where is True or order is not None and order[0] == "sequential"
        else:  # NB: a masked float16 loop rounds where each unmasked stretch ends; 1 * x is not x of complex inf
            ordered = where is True or res_dtype.kind == "f" and res_dtype.itemsize > 2
        if order is not None and ordered:
            params["ordered"] = order  # NB: NumPy's order of additions and multiplications
    elif ufunc.__name__ in ("subtract", "divide") and a.dtype == res_dtype == np.float16 and where is True \
            and (out is None or out.dtype == res_dtype):
        # NB: NumPy's float16 loops of these two fold a reduction's inner loop in float32 (its rows,
        # where the reduced axis is innermost and nothing is buffered), rounded where it ends
        order = V.summation(a.memory_view, axes, (False, False), np.getbufsize())
        params["wide"] = order is not None and order[0] == "pairwise"
    return _result(trace, "reduce", ins, shape, res_dtype, out, params)


def _out_strides(out, axes: tuple[int, ...], keepdims: bool) -> list[int] | None:
    """A reduction's ``out=`` strides along each axis of its operand (0 along the reduced ones),
    which NumPy's iterator orders its axes by too; None where NumPy makes the output itself, or
    it is not traced."""
    if not isinstance(out, Tracer):
        return None
    strides = list(out.memory_view.strides)
    for i in sorted(axes):
        if keepdims:
            strides[i] = 0
        else:
            strides.insert(i, 0)
    return strides


def _strides_as(x, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The strides, in elements, of operand ``x`` broadcast to ``shape`` (a reduction's mask)."""
    if isinstance(x, Tracer):
        return V.broadcast_to(x.memory_view, shape).strides
    x = np.asarray(x)
    return tuple(s // x.itemsize for s in np.broadcast_to(x, shape).strides)


def _probe_reduce(ufunc, a, axis, dtype, keepdims, initial, where) -> None:
    """Raise NumPy's error for this reduction, if any, from a probe of at most two elements per
    axis: a type without a loop, several axes of a ufunc that is not reorderable, an empty
    reduction without identity or initial value, a where= mask without one."""
    shape = tuple(min(n, 2) for n in a.shape)
    probe = np.broadcast_to(np.ones((), a.dtype), shape)
    mask = True if where is True else np.broadcast_to(np.ones((), bool), shape)
    with np.errstate(all="ignore"):
        ufunc.reduce(probe, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=mask)


def _check_folds(ufunc, method: str, dtype: np.dtype, loop) -> None:
    if not numpy_folds(ufunc, method, np.dtype(dtype), None if loop is None else np.dtype(loop)):
        raise located(UnsupportedError, f"np.{ufunc.__name__}.{method} of {np.dtype(dtype)}: this NumPy's own "
                      "loop does not fold left to right (its SIMD loop gives another value), so its answer is "
                      "not reproduced")


@functools.cache
def numpy_folds(ufunc, method: str, dtype: np.dtype, loop: np.dtype | None) -> bool:
    """Whether NumPy's ``ufunc.<method>`` (reduce, accumulate) over ``dtype`` is the left-to-right
    fold of its loop, as elena_jax computes it: checked on a probe (within rounding).

    NB: NumPy 2.4's SIMD loops of float ``power`` and ``arctan2`` on an AVX-512 CPU reduce a
    contiguous axis to another value (``np.power.reduce([2., 3., 2.])`` is 4.0, where
    ``(2 ** 3) ** 2`` is 64); which loops do depends on the NumPy build and the CPU."""
    steps = np.array([2, 1, 3, 1, 2, 3, 1, 1, 2, 3, 2, 1, 3, 2, 1, 1, 3, 2, 2])
    probe = (steps % 2 == 0 if dtype.kind == "b" else steps * 0.625 if dtype.kind in "fc" else steps).astype(dtype)
    with np.errstate(all="ignore"):
        try:
            got = getattr(ufunc, method)(probe, dtype=loop)
        except TypeError:
            return True  # NB: NumPy refuses the types: its own error is raised before this matters
        folded = list(itertools.accumulate(probe.astype(got.dtype), lambda p, q: ufunc(p, q, dtype=got.dtype)))
    # NB: a tolerance: a SIMD loop's own rounding (power's last bit) is not what this is about
    return bool(np.allclose(folded if method == "accumulate" else folded[-1], got, rtol=1e-3, atol=0, equal_nan=True))


def in_order(r: Tracer, axes: list[int]) -> Tracer:
    """The array whose axes ``axes`` (in any numbering) are ``r``'s axes in memory order: a
    transposed header over ``r``'s storage that, like a fresh result, is no view (no base)."""
    return Tracer(r._trace, r.storage, V.transpose(r.header, np.argsort(axes)), r.writeable)


def _result(trace, prim, ins, shape, dtype, out, params):
    """Define a fresh result, or write it into ``out`` (NumPy's casting check)."""
    if isinstance(out, tuple):
        (out,) = out
    if out is None:
        return as_ufunc_result(fresh(trace, prim, ins, shape, dtype, **params))
    check_out_array(out)
    if not isinstance(out, Tracer):
        raise untraced_target("out=")
    if broadcast_shapes(shape, out.shape) != out.shape:
        raise located(ValueError, f"output parameter has shape {out.shape}, expected {shape}")
    trace.write(prim, ins, [out], **params)
    return out


# Reductions the lowering implements (JAX ufuncs' reduce, or jnp's named reductions).
REDUCIBLE = {"add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and",
             "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"}


def ufunc_accumulate(ufunc, a, axis=0, dtype=None, out=None):
    if isinstance(out, tuple):
        (out,) = out
    trace = trace_of(a, out)
    if ufunc.nin != 2 or ufunc.nout != 1 or ufunc.signature is not None:
        raise located(UnsupportedError, f"np.{ufunc.__name__}.accumulate is not supported by elena_jax")
    if a.ndim == 0:  # NB: NumPy's errors, in its order
        raise located(TypeError, "cannot accumulate on a scalar")
    if axis is None or isinstance(axis, tuple) and len(axis) != 1:
        raise located(ValueError, "accumulate does not allow multiple axes")
    axis = normalize_axis(axis[0] if isinstance(axis, tuple) else axis, a.ndim)
    order = memory_order(a.shape, [a])
    if out is None and list(order) != sorted(order):  # NB: the result is laid out as a is (see reduce)
        return in_order(ufunc_accumulate(ufunc, a.transpose(order), order.index(axis), dtype), order)
    with np.errstate(all="ignore"):  # NB: NumPy 2 widens small integers, as in reduce
        res_dtype = ufunc.accumulate(np.ones((2,), a.dtype), dtype=dtype).dtype
        if dtype is None and out is not None:  # NB: as a reduction, in the ufunc's type for a and out
            wide = reduce_dtype(ufunc, a, None, out)  # (float32 into float64 in float64)
            if wide != res_dtype:
                res_dtype = dtype = wide
    _check_folds(ufunc, "accumulate", a.dtype, dtype)
    _refuse_raising_error_state(ufunc, (res_dtype,) * 3, [a, None])
    if out is not None and shape_of(out) != a.shape:
        check_out_array(out)
        _refuse_accumulating_into(ufunc, a, axis, dtype, out)
    return _result(trace, "accumulate", [a], a.shape, res_dtype, out,
                   dict(name=ufunc.__name__, axis=axis, dtype=res_dtype))


def _refuse_accumulating_into(ufunc, a: Tracer, axis: int, dtype, out) -> None:
    """An out= of another shape than the accumulation's: NumPy's ValueError where it refuses it
    (run on zeros of small shapes that keep which lengths are equal, and which are 0 or 1), else
    refused: NumPy's iterator then broadcasts ``a`` and writes part of ``out`` only (an axis of
    one element, extra axes of out)."""
    if not shape_of(out):  # NB: NumPy 2.4 crashes (a segmentation fault) on a 0-d out
        raise located(ValueError, "provided out is the wrong size for the accumulation.")
    lengths = {n: k + 2 for k, n in enumerate(sorted({n for n in (*a.shape, *shape_of(out)) if n > 1}))}
    with np.errstate(all="ignore"):
        ufunc.accumulate(np.zeros([lengths.get(n, n) for n in a.shape], a.dtype), axis=axis, dtype=dtype,
                         out=np.zeros([lengths.get(n, n) for n in shape_of(out)], dtype_of(out)))
    raise located(UnsupportedError, f"np.{ufunc.__name__}.accumulate of shape {a.shape} into an out= of shape "
                  f"{shape_of(out)}: give out the result's shape")


def ufunc_outer(ufunc, a, b, **kwargs):
    """NB: as NumPy's, each operand an array first: a Python number is a strong 0-d array of its
    default type (``np.add.outer(int8, 100)`` is int64), as is a traced one."""
    a, b = (strong(x) if isinstance(x, Tracer) else np.asarray(x) for x in (a, b))
    return ufunc(a[(...,) + (None,) * b.ndim], b, **kwargs)


# Ufuncs whose float64 result, rounded to a narrower float type, is that type's own result (the
# float64 significand is more than twice as wide plus two bits: double rounding is harmless)
_ROUNDED_ONCE = {"add", "subtract", "multiply", "divide", "minimum", "maximum", "fmin", "fmax"}


def ufunc_at(ufunc, a, indices, b=None):
    """``np.add.at``: unbuffered, so repeated indices accumulate."""
    trace = trace_of(a, indices, b)
    if not isinstance(a, Tracer):
        raise located(UnsupportedError, f"np.{ufunc.__name__}.at on an array that is not traced")
    if a.scalar:
        raise located(TypeError, "first operand must be array")
    a.check_writeable()
    from .indexing import indexed_shape, split_index  # the index normaliser lives with indexing

    b = strong(b)  # NB: as NumPy's at(): a traced Python number is an array, not weak
    key, key_ins = split_index(trace, a, indices)
    if any(isinstance(k, Tracer) and k.dtype == bool for k in key_ins):
        # NB: a traced mask selects each element once: a[mask] = op(a[mask], b), cast back as at() casts
        a[indices] = ufunc(a[indices]) if b is None else ufunc(a[indices], b if has_tracer(b) else np.asarray(b))
        return
    indexed_shape(a, key, key_ins)  # NB: NumPy's IndexError for static indices out of range
    if b is not None and not has_tracer(b):
        b = np.asarray(b)  # NB: as NumPy's at(): a Python number is an array (np.add.at(uint16, i, -2) wraps)
        if b.dtype == object:  # NB: Python ints beyond int64: NumPy's OverflowError
            raise located(OverflowError, "Python int too large to convert to C long")
        if a.dtype.kind == b.dtype.kind == "f" and ufunc.__name__ in _ROUNDED_ONCE and np.array_equal(
                b.astype(a.dtype), b):
            b = b.astype(a.dtype)  # NB: a's type holds it: float64 then cast rounds as a's type does
    loop = resolve_loop(ufunc, [a] if b is None else [a, b])
    _refuse_raising_error_state(ufunc, loop, [a, b])
    ins = [a, *key_ins] + ([] if b is None else [as_operand(trace, b, loop[1])])
    trace.write("ufunc_at", ins, [a], name=ufunc.__name__, key=key, loop=tuple(loop[: ufunc.nin]),
                n_key=len(key_ins))


UFUNCS.update(reduce=ufunc_reduce, accumulate=ufunc_accumulate, outer=ufunc_outer, at=ufunc_at)
