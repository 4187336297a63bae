"""Exact reciprocals: a float division by a constant power of two becomes a multiplication.

``x / 2**k`` and ``x * 2**-k`` are one correctly rounded number for every ``x``
(the exact quotient is the exact product), infinities, NaN and signed zeros
included, so the rewrite keeps NumPy's results bit for bit. The lowering would
otherwise divide element by element (lower/rules.py `_divide`, which keeps XLA
from multiplying by an inexact reciprocal): a hardware division per element,
several times a multiplication's cost (tblr2bbox's ``(p[:, 0:2] + p[:, 2:4]) /
2`` at 1e6 boxes: 11-13 ms, 6-10 ms as ``* 0.5``, on an AVX2 EPYC). Divisors
whose reciprocal is subnormal or infinite stay divisions (XLA:CPU flushes
subnormals to zero).
"""

from __future__ import annotations

import numpy as np

from ..ir import Const, Op, Program


def _reciprocal(divisor, dtype: np.dtype) -> Const | None:
    """The constant ``1 / divisor`` in float ``dtype`` where it is exact and normal, else None."""
    if not isinstance(divisor, Const) or dtype.kind != "f":
        return None
    with np.errstate(all="ignore"):
        value = np.asarray(divisor.value).astype(dtype)
        mantissa, _ = np.frexp(value)
        inverse = np.ones((), dtype) / value
    if not (np.all(np.abs(mantissa) == 0.5) and np.all(np.isfinite(inverse))
            and np.all(np.abs(inverse) >= np.finfo(dtype).tiny)):
        return None
    return Const(inverse, divisor.weak)


def exact_reciprocals(program: Program) -> Program:
    ops, changed = [], False
    for op in program.ops:
        p = op.params
        if op.prim == "ufunc" and p["name"] == "divide":
            if (inverse := _reciprocal(op.ins[1], np.dtype(p["loop"][1]))) is not None:
                op = Op(op.prim, (op.ins[0], inverse, *op.ins[2:]), op.outs, {**p, "name": "multiply"}, op.where)
                changed = True
        ops.append(op)
    return program.replace_ops(ops) if changed else program
