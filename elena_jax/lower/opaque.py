"""Values XLA cannot see through: what keeps NumPy's rounding in a compiled program.

XLA rewrites float arithmetic that NumPy rounds step by step: it contracts a
product and the sum it feeds into one fused multiply-add, reassociates constant
chains (``(a + 0.1) + 0.7`` into ``a + 0.8``), folds ``(b / c) / d`` into
``b / (c * d)`` and ``0.0 + v`` into ``v``. Each function here hides from XLA
what a value is, without changing a bit of it, so that it cannot rewrite.

Two ways to hide, chosen per backend when the program is lowered
(``lax.platform_dependent``): on the CPU an ``optimization_barrier``, which
XLA:CPU drops after simplification and fuses across (no cost measured in
bench/); elsewhere an identity computed from the values (`_hidden`), because
XLA:GPU keeps every barrier until code generation and ends a kernel at each
one (delta2bbox of 1e6 boxes on an H100: 13 kernels and 153 MiB of temporaries
with barriers, 2 kernels and none without;
bench/results/20261126_gpu.md).

Invariant: every function returns its operands' exact values (signed zeros,
infinities and NaN payloads included) and their derivatives unchanged.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def opaque_zero(x):
    """+-0.0 in x's shape and real type, computed from ``x`` so that XLA cannot fold it away."""
    x = lax.stop_gradient(lax.real(x) if jnp.issubdtype(x.dtype, jnp.complexfloating) else x)
    w = lax.mul(x, np.zeros((), x.dtype))  # NB: +-0, or NaN where x is infinite or NaN
    return lax.select(lax.eq(w, w), w, lax.full_like(w, 0))


def opaque_one(x):
    """1.0 in x's shape and real type that XLA cannot fold away: ``y * 1.0`` is ``y`` for every
    y (signed zeros, infinities and NaN included), but XLA must compute it. NB: not an added
    -0.0: XLA folds ``0.0 + v`` into ``v``, which is -0.0 there."""
    zero = opaque_zero(x)
    return lax.add(lax.abs(zero), np.ones((), zero.dtype))


def _xor(x, zero):
    """``x`` with its bits xor those of ``zero`` (+-0.0 or 0: no bit), as a value XLA cannot see."""
    bits = np.dtype(f"u{x.dtype.itemsize}")
    zero = lax.convert_element_type(zero, bits)
    return lax.bitcast_convert_type(lax.bitwise_xor(lax.bitcast_convert_type(x, bits), zero), x.dtype)


@jax.custom_jvp
def rounded(x):
    """``x`` as it is, through an operation XLA and LLVM cannot see through.

    NB: XLA contracts a product and the addition it feeds into one fused multiply-add,
    rounded once: ``a * b + c`` was one ulp off NumPy's in a quarter of random float64
    values, and ``x ** 2`` is a product there too. Its bits xor a zero computed from it
    keep it apart. Not a multiplication by an opaque 1.0: XLA merges ``(a * 3) * 1.0`` into
    ``a * (3 * 1.0)``, a product again. (A zero from the first element only, or the bits
    of ``|zero|``, were slower in bench/ cases.)"""
    return _xor(x, opaque_zero(x))


rounded.defjvp(lambda primals, tangents: (rounded(*primals), *tangents))


@jax.custom_jvp
def _hidden(values: tuple) -> tuple:
    """The float and complex ``values`` (broadcast together) through `_xor` with one zero computed
    from all of them, a complex one part by part; others as they are. NB: a zero computed from a
    constant alone would be folded with it (``x ** 3.0`` became a product again). One custom
    derivative for all of them: tracing one per operand tripled the time to trace a program."""
    inexact = [v for v in values if jnp.issubdtype(v.dtype, jnp.inexact)]
    if not inexact or not all(v.size for v in values):  # NB: nothing to compute
        return values
    zero = opaque_zero(functools.reduce(jnp.multiply, [lax.real(v) if jnp.iscomplexobj(v) else v
                                                       for v in inexact]))

    def hide(v):
        if not jnp.issubdtype(v.dtype, jnp.inexact):
            return v
        if jnp.iscomplexobj(v):
            return lax.complex(_xor(lax.real(v), zero), _xor(lax.imag(v), zero))
        return _xor(v, zero)

    return tuple(hide(v) for v in values)


_hidden.defjvp(lambda primals, tangents: (_hidden(*primals), *tangents))


def _together(values: tuple) -> tuple:
    shape = jnp.broadcast_shapes(*(jnp.shape(v) for v in values))
    return tuple(jnp.broadcast_to(v, shape) for v in values)


def _apart(values: tuple) -> tuple:
    return _together(lax.optimization_barrier(values))


def _hidden_together(values: tuple) -> tuple:
    return _hidden(_together(values))


def unfolded(values: tuple) -> tuple:
    """``values`` (the operands of one operation) as they are, broadcast together, hidden from
    XLA's simplifier: behind an optimization_barrier on the CPU, through `_hidden` elsewhere.
    NB: broadcast before they are hidden, so that a GPU fuses the hiding into each element's
    computation (a zero sliced to a smaller operand's shape made its own kernel). The branches
    are module functions, so that JAX reuses their traces for operands of the same types."""
    return lax.platform_dependent(tuple(values), cpu=_apart, default=_hidden_together)


def _as_is(x):
    return x


def apart_on_cpu(x):
    """``x`` behind an optimization_barrier in a CPU program, as it is elsewhere: a CPU-only
    measure (a fusion root for XLA:CPU, a value computed once) that would cost a kernel
    boundary on a GPU."""
    return lax.platform_dependent(x, cpu=lax.optimization_barrier, default=_as_is)
