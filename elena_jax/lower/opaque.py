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

`computed_once` hides nothing: it makes XLA:CPU keep a value in memory instead of
computing it again in each fusion that reads it (passes/materialize.py).

Invariant: `rounded`, `unfolded`, `unfolded_whole` and `apart_on_cpu` return their
operands' exact values (signed zeros, infinities and NaN payloads included; the
`unfolded` ones broadcast together) and their derivatives unchanged; so does
`computed_once`, but for what XLA:CPU arithmetic changes anyway (subnormals flushed,
signaling NaNs made quiet).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.custom_derivatives import SymbolicZero


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


def _plus(x, zero):
    """``x`` with ``zero`` (+-0.0 or 0, as an unsigned integer 0) added to its bits, as a value XLA
    cannot see. NB: not xor, nor or: a value hidden twice with one zero (``rounded(a * b) * 1.0``,
    the product by one dropped, then rounded again) was ``(bits ^ z) ^ z``, which LLVM folds into
    the product itself, contracted again with the sum it feeds (``(a * b) * 1.0 + c`` with
    fma=False: 22% of values an ulp off; a review's find, session 35); LLVM saw through ``bits | z``
    even once, and ``(bits + z) + z`` is ``bits + 2z``, hidden still."""
    bits = np.dtype(f"u{x.dtype.itemsize}")
    zero = lax.convert_element_type(zero, bits)
    return lax.bitcast_convert_type(lax.add(lax.bitcast_convert_type(x, bits), zero), x.dtype)


def unknown_zero(dtype) -> jax.Array:
    """+-0.0 of the real float ``dtype``, a scalar that neither XLA nor LLVM can tell is zero: made
    from bits XLA's random generator gives when the program runs (whatever they are: where they
    are a NaN or an infinity, +0.0)."""
    bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
    _, random = lax.rng_bit_generator(np.zeros(4, np.uint32), (), dtype=bits)
    w = lax.mul(lax.bitcast_convert_type(random, dtype), np.zeros((), dtype))
    return lax.select(lax.eq(w, w), w, np.zeros((), dtype))


def in_64_bits(rule: Callable) -> Callable:
    """A custom derivative rule run with JAX's 64-bit types on. NB: JAX runs it when it transforms
    the program (``jax.grad(jax.jit(f))``, ``jax.jvp`` of a checkpoint, a scan's body), outside
    elena_jax's 64-bit scope, where a NumPy float64 constant is made float32 beside the float64
    values the program computes (``lax.mul requires arguments to have the same dtypes``: a float32
    mean divides in float64; campaign K, session 32)."""

    @functools.wraps(rule)
    def run(*args, **kwargs):
        with jax.enable_x64(True):
            return rule(*args, **kwargs)

    return run


@jax.custom_jvp
def rounded(x):
    """``x`` as it is, through an operation XLA and LLVM cannot see through.

    NB: XLA contracts a product and the addition it feeds into one fused multiply-add,
    rounded once: ``a * b + c`` was one ulp off NumPy's in a quarter of random float64
    values, and ``x ** 2`` is a product there too. A zero the program cannot know, added to
    its bits, keeps it apart (`unknown_zero`, `_plus`). Not a multiplication by an opaque 1.0:
    XLA merges ``(a * 3) * 1.0`` into ``a * (3 * 1.0)``, a product again. Not a zero computed from ``x``
    (`opaque_zero`): LLVM proved it zero where it knew ``x`` finite, a product of integers
    converted to float (uint8 pixels times 0.299 plus ...: 141 of 1000 an ulp off)."""
    zero = lax.broadcast_in_dim(unknown_zero(x.dtype), x.shape, ())
    return _plus(x, zero)


rounded.defjvp(in_64_bits(lambda primals, tangents: (rounded(*primals), *tangents)))


def _hidden(values: tuple) -> tuple:
    """The float and complex ``values`` (broadcast together) through `_plus` with one zero computed
    from all of them, a complex one part by part; others as they are. NB: a zero computed from a
    constant alone would be folded with it (``x ** 3.0`` became a product again)."""
    inexact = [v for v in values if jnp.issubdtype(v.dtype, jnp.inexact)]
    if not inexact or not all(v.size for v in values):  # NB: nothing to hide, or to compute
        return values
    zero = opaque_zero(functools.reduce(jnp.multiply, [jnp.real(v) for v in inexact]))

    def hide(v):
        if not jnp.issubdtype(v.dtype, jnp.inexact):
            return v
        if jnp.issubdtype(v.dtype, jnp.complexfloating):
            return lax.complex(_plus(lax.real(v), zero), _plus(lax.imag(v), zero))
        return _plus(v, zero)

    return tuple(hide(v) for v in values)


_AS_GPU = contextvars.ContextVar("lowered_as_gpu", default=False)


@contextlib.contextmanager
def lowered_as_gpu() -> Iterator[None]:
    """Within: programs are lowered as for a GPU (the hiding, not the CPU's barriers) whatever
    device runs them, so that a test or a fuzz campaign checks the hiding against NumPy on
    XLA:CPU, whose simplifier is XLA:GPU's. JAX's caches are cleared on entry and on exit: a
    trace made on the other side would be reused."""
    token = _AS_GPU.set(True)
    jax.clear_caches()
    try:
        yield
    finally:
        _AS_GPU.reset(token)
        jax.clear_caches()


def per_backend(values, cpu: Callable, other: Callable):
    """``cpu(values)`` in a CPU program, ``other(values)`` elsewhere: chosen when the program is
    lowered for its device; for concrete values (a program run op by op), at once, by their device."""
    if _AS_GPU.get():
        return other(values)
    leaves = jax.tree.leaves(values)
    if any(isinstance(v, jax.core.Tracer) for v in leaves):
        return lax.platform_dependent(values, cpu=cpu, default=other)
    devices = [d for v in leaves if hasattr(v, "devices") for d in v.devices()]
    platform = devices[0].platform if devices else jax.default_backend()
    return cpu(values) if platform == "cpu" else other(values)


def broadcast_together(*xs) -> list:
    """``xs`` (arrays) broadcast to their common shape, as NumPy's operands are."""
    shape = np.broadcast_shapes(*(np.shape(x) for x in xs))
    return [x if np.shape(x) == shape else jnp.broadcast_to(x, shape) for x in xs]


def _identity_derivative(hide: Callable) -> jax.custom_jvp:
    """``hide`` (operands -> the same values hidden, broadcast together) differentiated as the
    identity: tangents broadcast together, a constant operand's left a symbolic zero. NB: JAX's
    own rules make it a zero array (a barrier's, a custom derivative's without symbolic zeros),
    which an operation's derivative multiplies by a NaN of the other side: the exponent's,
    ``0 * log(x) * x ** 3``, made forward derivatives of ``x ** 3`` NaN at x < 0 (jax.jvp,
    jax.hessian; an acceptance campaign's find, session 22). One custom derivative for all the
    operands: tracing one per operand tripled the time to trace a program."""
    hide = jax.custom_jvp(hide)

    def jvp(primals: tuple, tangents: tuple) -> tuple:
        out = hide(*primals)  # NB: so that derivatives of every order are this one
        shape = out[0].shape if out else ()
        return out, tuple(SymbolicZero(t.aval.update(shape=shape)) if type(t) is SymbolicZero
                          else jnp.broadcast_to(t, shape) for t in tangents[0])

    hide.defjvp(in_64_bits(jvp), symbolic_zeros=True)
    return hide


# NB: the branches are module functions, so that JAX reuses their traces for operands of the
# same types (a closure per operation tripled the time to trace a program)
@_identity_derivative
def _apart(values: tuple) -> tuple:
    """The CPU's branch: behind a barrier, then broadcast (the other branch's shapes)."""
    return tuple(broadcast_together(*lax.optimization_barrier(values)))


@jax.custom_batching.custom_vmap
def _barrier_batched(values: tuple) -> tuple:
    """``values`` behind one optimization_barrier; under ``jax.vmap`` every one of them batched.
    NB: JAX's own batching of a barrier leaves an unbatched operand unbatched, to be broadcast
    along the batch after it, where XLA sees it again (`jax.vmap` of ``x / 9.0``: 36% of
    quotients an ulp off, a divisor's reciprocal)."""
    return lax.optimization_barrier(values)


@_barrier_batched.def_vmap
def _barrier_batched_vmap(axis_size: int, in_batched: list, values: tuple):
    values = tuple(v if b else jnp.broadcast_to(v, (axis_size, *v.shape)) for v, b in zip(values, in_batched[0]))
    return _barrier_batched(values), tuple(True for _ in values)


@_identity_derivative
def _apart_whole(values: tuple) -> tuple:
    """The CPU's branch of `unfolded_whole`: broadcast, then behind a barrier that keeps them
    whole under ``jax.vmap`` too (a custom batching rule has no derivative of its own: this one's
    is the identity's)."""
    return _barrier_batched(tuple(broadcast_together(*values)))


@_identity_derivative
def _hidden_together(values: tuple) -> tuple:
    """The other backends' branch: broadcast, then hidden (a zero sliced to a smaller operand's
    shape made kernels of its own on a GPU)."""
    return _hidden(tuple(broadcast_together(*values)))


def _as_is(x):
    """Another backend's branch of `apart_on_cpu` and `computed_once`: nothing to do."""
    return x


_CONSTANTS = contextvars.ContextVar("constant_operands", default=False)


@contextlib.contextmanager
def constant_operands() -> Iterator[None]:
    """Within: the operands of an operation are all constants of the program (made inside it, from
    no argument), and `unfolded` keeps them behind a barrier on every backend. NB: `_hidden`'s zero,
    computed from constants, is folded with them, and XLA then divides a constant by another
    constant's reciprocal (as for a GPU, ``np.full(3, 1.1) / 1.3`` was an ulp off NumPy's; an
    acceptance campaign's find, session 29); a barrier around constants costs a GPU no kernel of
    an argument's size."""
    token = _CONSTANTS.set(True)
    try:
        yield
    finally:
        _CONSTANTS.reset(token)


def unfolded(values: tuple) -> tuple:
    """``values`` (the operands of one operation) as they are, broadcast together, hidden from
    XLA's simplifier: behind an optimization_barrier on the CPU (and of constants, everywhere),
    through `_hidden` elsewhere."""
    if _CONSTANTS.get():
        return _apart(tuple(values))
    return per_backend(tuple(values), _apart, _hidden_together)


def unfolded_whole(values: tuple) -> tuple:
    """As `unfolded`, but broadcast before they are hidden on the CPU too, so that XLA cannot
    tell that one of them is constant along an axis either: it divides by such a divisor's
    reciprocal (see rules._divide)."""
    if _CONSTANTS.get():
        return _apart_whole(tuple(values))
    return per_backend(tuple(values), _apart_whole, _hidden_together)


def apart_on_cpu(x):
    """``x`` behind an optimization_barrier in a CPU program, as it is elsewhere: a CPU-only
    measure (a fusion root for XLA:CPU, a value computed once) that would cost a kernel
    boundary on a GPU."""
    return per_backend(x, lax.optimization_barrier, _as_is)


def computed_once(x):
    """``x`` as it is, computed once: XLA:CPU would compute it again in every fusion that reads it
    (see passes/materialize.py); there it is divided by a 1 XLA cannot fold away (`_divided_by_one`).
    Elsewhere it is left as it is: XLA:GPU computed each state of a 30-step pendulum once without
    (60 additions, an H200), and its division changed NaNs' bits (0x7fffffff)."""
    return per_backend(jnp.asarray(x), _divided_by_one, _as_is)


def _divided_by_one(x):
    """``x / 1``: a division is an expensive op to XLA, which it never fuses into two readers, so
    it computes ``x`` once and keeps it in memory.

    NB: an optimization_barrier does not: XLA:CPU drops it before fusion. Integers divide by an
    integer 1 (a division by a variable is expensive too), bools as int8, complex numbers part by
    part. ``x / 1.0`` is ``x`` for every float but the two XLA:CPU arithmetic changes anyway:
    subnormals (flushed to zero) and signaling NaNs (made quiet)."""
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        return lax.complex(_divided_by_one(lax.real(x)), _divided_by_one(lax.imag(x)))
    if x.dtype == np.bool_:
        return _divided_by_one(x.astype(np.int8)) != 0
    if jnp.issubdtype(x.dtype, jnp.floating):
        return lax.div(x, opaque_one(x))
    return lax.div(x, opaque_one(x.astype(np.float32)).astype(x.dtype))
