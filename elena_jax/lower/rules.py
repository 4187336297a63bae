"""Lowering rules: one JAX implementation per recorded primitive.

A rule is ``rule(ins, outs, **params) -> list of values``: ``ins`` are the
JAX values of the op's operands (views already read), ``outs`` the
``(shape, dtype)`` of each written view. Rules compute values only; the
caller (lower/__init__) writes them into storages, broadcasting and casting
to the storage's dtype as NumPy's assignment does.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import operator
from collections.abc import Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import view as V
from . import memory
from .lazy import Lazy, conversion
from .memory import cast, converted
from .opaque import (
    apart_on_cpu,
    broadcast_together,
    computed_once,
    in_64_bits,
    opaque_one,
    per_backend,
    rounded,
    unfolded,
    unfolded_whole,
    unknown_zero,
)
from .summation import down, in_pieces, pairwise_sum, prefix_sum, running, sequential

RULES: dict[str, Callable] = {}


def rule(name: str):
    def register(f: Callable) -> Callable:
        RULES[name] = f
        return f

    return register


# --- values without computation ------------------------------------------------


@rule("copy")
def copy(ins, outs):
    return [ins[0]]


@rule("check")
def check(ins, outs, error, message):
    """Nothing to compute: the op exists for its check (value_check), which checked mode raises."""
    return []


@rule("full")
def full(ins, outs, value):
    (shape, dtype), = outs
    return [jnp.full(shape, value, dtype)]


@rule("reshape")
def reshape(ins, outs):
    return [ins[0].reshape(outs[0][0])]


@rule("select")
def select(ins, outs):
    mask, src, dst = ins
    return [jnp.where(mask, cast(src, dst.dtype), dst)]


# --- ufuncs --------------------------------------------------------------------


def _int_safe(f: Callable) -> Callable:
    """NumPy's integer division by zero gives 0 (XLA's is undefined)."""

    def g(a, b):
        if jnp.issubdtype(a.dtype, jnp.integer) or a.dtype == bool:
            zero = b == 0
            r = f(a, jnp.where(zero, jnp.ones_like(b), b))
            return tuple(jnp.where(zero, 0, x) for x in r) if isinstance(r, tuple) else jnp.where(zero, 0, r)
        return f(a, b)

    return g


def _divide(a, b):
    """NumPy's float ``a / b``: each quotient rounded once.

    NB: XLA divides by a value broadcast along an axis (a scalar, a row, a constant) as a
    multiplication by its reciprocal, computed once: a third of random quotients were one ulp
    off NumPy's, and ``a // (a / 9)`` or an argmin of near-ties could change. Every divisor is
    multiplied by a 1.0 XLA cannot see through (`opaque_one`), so that it cannot tell whether the
    divisor is constant along an axis, and divides element by element. (Constants reach the
    lowering as traced values inside ``jit``, so a divisor cannot be told apart here.) The
    ufunc's own real divisions skip it: their operands are hidden whole (`unfolded_whole`),
    and the 1.0 cost bbox2delta 15-20% of its time at 1e5 boxes."""
    a, b = broadcast_together(a, b)
    if jnp.issubdtype(a.dtype, jnp.complexfloating):
        return _complex_divide(a, b)
    return lax.div(a, b * opaque_one(a))


def _complex_divide(a, b):
    """NumPy's complex division (Smith's algorithm, as its loop computes it), each product rounded
    on its own (`rounded`), each divisor times an opaque 1.0 as in `_divide`."""
    one = opaque_one(a)
    ar, ai, br, bi = lax.real(a), lax.imag(a), lax.real(b), lax.imag(b)

    def mul(x, y):
        return rounded(x * y)

    wide = lax.abs(br) >= lax.abs(bi)
    zero = (br == 0) & (bi == 0)
    rat = lax.div(jnp.where(wide, bi, br), jnp.where(wide, br, bi) * one)
    scl = lax.div(jnp.ones_like(rat), jnp.where(wide, br + mul(bi, rat), bi + mul(br, rat)))
    real = mul(jnp.where(wide, ar + mul(ai, rat), mul(ar, rat) + ai), scl)
    imag = mul(jnp.where(wide, ai - mul(ar, rat), mul(ai, rat) - ar), scl)
    by_zero_r, by_zero_i = lax.div(ar, lax.abs(br) * one), lax.div(ai, lax.abs(br) * one)
    return lax.complex(jnp.where(zero, by_zero_r, real), jnp.where(zero, by_zero_i, imag))


def _float_divmod(a, b):
    """NumPy's float divmod (npy_divmod): the quotient snapped to an integer, zeros signed as
    NumPy's (``-0.5 // -1.25`` is +0.0, ``2.0 % -1.0`` is -0.0; jnp gives the other zero).
    Derivatives as jax.numpy's: none for the floor quotient, a step function (a / b where b
    is 0 had its derivative, inf); 1 for the remainder with respect to ``a`` where it is zero
    (its signed zero was a constant there: ``np.arange(4.0) % 2`` had derivatives 0, 1, 0, 1)."""
    a, b = broadcast_together(a, b)
    mod = lax.rem(a, b)  # C fmod
    quotient = _divide(a, b)
    div = _divide(a - mod, b)
    fix = (mod != 0) & ((b < 0) != (mod < 0))
    still = lax.stop_gradient(a)  # NB: a - still is +0.0 of derivative 1, -(still - a) -0.0
    signed_zero = jnp.where(jnp.signbit(b), -(still - a), a - still)
    mod = jnp.where(mod != 0, jnp.where(fix, mod + b, mod), signed_zero)
    div = jnp.where(fix, div - 1, div)
    floor = jnp.floor(div)
    floor = jnp.where(div - floor > 0.5, floor + 1, floor)
    floor = jnp.where(div != 0, floor, jnp.copysign(jnp.zeros_like(a), quotient))
    by_zero = b == 0  # NB: NumPy returns a / b and fmod's nan there
    return lax.stop_gradient(jnp.where(by_zero, quotient, floor)), jnp.where(by_zero, lax.rem(a, b), mod)


def _numpy_division(f: Callable, part: int | None) -> Callable:
    """``f`` for integers (with NumPy's zero for a zero divisor), NumPy's divmod for floats."""
    ints = _int_safe(f)

    def g(a, b):
        if jnp.issubdtype(a.dtype, jnp.floating):
            r = _float_divmod(a, b)
            return r if part is None else r[part]
        return ints(a, b)

    return g


UFUNC_IMPL: dict[str, Callable] = {
    "floor_divide": _numpy_division(jnp.floor_divide, 0),
    "remainder": _numpy_division(jnp.remainder, 1),
    "fmod": _int_safe(jnp.fmod),
    "divmod": _numpy_division(jnp.divmod, None),
}


def _lax(f: Callable) -> Callable:
    """A lax primitive with NumPy broadcasting (jnp's ufuncs are nested jits, slow to trace)."""
    return lambda *xs: f(*broadcast_together(*xs))


def _by_parts(f: Callable) -> Callable:
    """``f`` of complex operands as ``f`` of the real parts and of the imaginary parts, which it is.
    NB: XLA:CPU's own complex addition of a constant zero kept -0.0 - 0.0j (NumPy's 0.0 + 0.0j)."""

    def g(x, y):
        x, y = broadcast_together(x, y)
        if x.dtype.kind != "c":
            return f(x, y)
        return lax.complex(f(lax.real(x), lax.real(y)), f(lax.imag(x), lax.imag(y)))

    return g


# Loop dtypes are NumPy's, so these lax primitives see operands of one dtype.
UFUNC_IMPL.update({
    "add": _by_parts(lax.add), "subtract": _by_parts(lax.sub),
    "negative": lax.neg, "exp": lax.exp, "absolute": lax.abs,
    "less": _lax(lax.lt), "less_equal": _lax(lax.le), "greater": _lax(lax.gt),
    "greater_equal": _lax(lax.ge), "equal": _lax(lax.eq), "not_equal": _lax(lax.ne),
    "clip": lambda x, lo, hi: lax.min(*broadcast_together(lax.max(*broadcast_together(x, lo)), hi)),
})
_FLOAT_ONLY = {"divide": _divide}


def _through_unsigned(f: Callable, widest: int = 4) -> Callable:
    """``f`` on signed integers of at most ``widest`` bytes computed on the same bits as unsigned.

    NB: jaxlib 0.10.2's XLA:CPU crashes the process (a segfault while compiling) on ``and``
    and ``or`` of a signed integer narrowed by a convert (``a.astype(np.int32) | b`` for an
    int64 ``a``; also int16 and int8, not xor, not unsigned); through the unsigned type the
    same program compiles, and the bitcasts cost nothing. Signed multiplication goes the same
    way at every width (the product's bits are the same): XLA takes a signed square ``x * x``
    for non-negative, which it is not when it wraps, and drops ``abs(x * x)`` and folds
    ``x * x < 0`` to False (dtypes fuzz seed 4274 #539: ``np.abs(a * a)`` of int8)."""

    def g(x, y):
        x, y = broadcast_together(x, y)
        if x.dtype.kind != "i" or x.dtype.itemsize > widest:
            return f(x, y)
        u = np.dtype(f"u{x.dtype.itemsize}")
        return lax.bitcast_convert_type(f(lax.bitcast_convert_type(x, u), lax.bitcast_convert_type(y, u)), x.dtype)

    return g


_signed_multiply = _through_unsigned(lax.mul, widest=8)


_PRODUCTS_ROUNDED = contextvars.ContextVar("products_rounded", default=False)


@contextlib.contextmanager
def products_rounded(on: bool) -> Iterator[None]:
    """Within: every float product is rounded on its own, as NumPy's (`rounded`), instead of
    left to XLA, which contracts a product and the sum it feeds into a fused multiply-add."""
    token = _PRODUCTS_ROUNDED.set(on)
    try:
        yield
    finally:
        _PRODUCTS_ROUNDED.reset(token)


def _multiply(a, b):
    """NumPy's ``a * b``; of floats each product rounded on its own where `products_rounded`."""
    a, b = broadcast_together(a, b)
    if a.dtype.kind not in "fc" or not _PRODUCTS_ROUNDED.get():
        return _signed_multiply(a, b)
    if a.dtype.kind == "c":
        return _complex_multiply(a, b)
    return _float_product(a, b)


def _float_product(a, b):
    """The product of floats ``a * b``, rounded on its own where `products_rounded`."""
    return rounded(lax.mul(a, b)) if _PRODUCTS_ROUNDED.get() else lax.mul(a, b)


def _complex_multiply(a, b):
    """NumPy's complex product where the CPU has fused multiply-adds: its loop (Highway's
    MulComplex) computes ``fma(ar, br, -(ai * bi))`` and ``fma(ar, bi, ai * br)``. XLA's own
    product differed in a third of random values. Written out with the second products
    rounded (`rounded`), the first is the one LLVM contracts into the subtraction or addition,
    as NumPy's loop does (and where the CPU has none, neither contracts: NumPy's plain formula).
    NB: of a square, XLA would take ``ai * br`` for the product ``ar * bi`` it equals, and LLVM
    does not contract ``ar * ar``; with ``br`` kept apart neither happens."""
    ar, ai, bi = lax.real(a), lax.imag(a), lax.imag(b)
    br = rounded(lax.real(b))
    return lax.complex(ar * br - rounded(ai * bi), ar * bi + rounded(ai * br))


def _folded_multiply(a, b):
    """NumPy's product in its reduction and accumulation loops: of complex numbers the plain
    formula, each of the four products rounded (no fused multiply-add, unlike its elementwise
    loop); of floats the product, rounded on its own where `products_rounded` (a product's last
    factor, then added to, was one fused multiply-add with ``fma=False``: a review's find, session 35)."""
    if a.dtype.kind != "c":
        return _float_product(a, b) if a.dtype.kind == "f" else lax.mul(a, b)
    ar, ai, br, bi = lax.real(a), lax.imag(a), lax.real(b), lax.imag(b)
    return lax.complex(rounded(ar * br) - rounded(ai * bi), rounded(ar * bi) + rounded(ai * br))


UFUNC_IMPL.update({"bitwise_and": _through_unsigned(lax.bitwise_and), "bitwise_or": _through_unsigned(lax.bitwise_or),
                   "multiply": _multiply, "square": lambda x: _multiply(x, x)})
_LAX_NUMERIC = {"add", "subtract", "multiply", "negative", "absolute", "maximum", "minimum"}


def _abs(x):
    if x.dtype.kind == "c":
        return _complex_abs(x)
    return x if jnp.issubdtype(x.dtype, jnp.unsignedinteger) else lax.abs(x)


def _complex_abs(z):
    """NumPy's complex ``absolute`` (its vectorized loop): ``larger * sqrt(ratio * ratio + 1)``
    of the parts' magnitudes, the square and sum one fused multiply-add (left to LLVM, which
    contracts it, as in `_complex_multiply`); inf where a part is, else NaN where a part is. NB:
    XLA's was NaN at complex(inf, nan) and an ulp off in 30% of random values (|3+3j|
    4.242640687119285, NumPy's ...286; the C library's hypot is XLA's there: NumPy's loop is not it)."""
    re, im = lax.abs(lax.real(z)), lax.abs(lax.imag(z))
    larger, smaller = lax.max(re, im), lax.min(re, im)
    zero = larger == 0
    ratio = jnp.where(zero, smaller, smaller / jnp.where(zero, jnp.ones_like(larger), larger))
    r = lax.sqrt(ratio * ratio + 1) * larger
    r = jnp.where(jnp.isnan(re) | jnp.isnan(im), jnp.asarray(np.nan, r.dtype), r)
    return jnp.where((re == np.inf) | (im == np.inf), jnp.asarray(np.inf, r.dtype), r)


def _complex_reciprocal(z):
    """NumPy's complex ``1 / z`` (its loop: Smith's division of 1, each product rounded on its own):
    XLA's was inf+nanj at 0j (NumPy nan+nanj), 2+0j at 0.5+0j (NumPy 2-0j), 0j at nan-infj (NumPy nan+nanj)."""
    re, im = lax.real(z), lax.imag(z)
    by_real = lax.abs(im) <= lax.abs(re)
    # NB: each quotient's divisor is 1 where it is not taken: a zero there gave NaN gradients (z = 2+0j)
    ratio = jnp.where(by_real, im / jnp.where(by_real, re, 1), re / jnp.where(by_real, 1, im))
    d = jnp.where(by_real, re + rounded(im * ratio), rounded(re * ratio) + im)
    one = jnp.ones_like(d)
    return lax.complex(jnp.where(by_real, one, ratio) / d, -jnp.where(by_real, ratio, one) / d)


def _complex_sqrt(z):
    """XLA's complex square root with C99's (NumPy's) special values: the imaginary part's sign is
    the operand's (sqrt(1-0j) was 1+0j, NumPy's 1-0j), an infinite imaginary part gives inf with it
    (sqrt(nan-infj) was NaN, NumPy's inf-infj), -inf+nanj gives nan+infj and inf+nanj itself."""
    re, im = lax.real(z), lax.imag(z)
    r = lax.sqrt(z)
    inf, nan = jnp.asarray(np.inf, re.dtype), jnp.asarray(np.nan, re.dtype)
    at_minus_inf = re == -inf
    real = jnp.where(jnp.isinf(im) | (re == inf), inf,
                     jnp.where(at_minus_inf, jnp.where(jnp.isnan(im), nan, 0), lax.real(r)))
    imag = jnp.where(jnp.isinf(im), im, jnp.where(at_minus_inf, jnp.where(jnp.isnan(im), inf, jnp.copysign(inf, im)),
                                                  jnp.copysign(lax.imag(r), im)))
    return lax.complex(real, imag)


def _complex_log(z):
    """XLA's complex log with C99's (NumPy's) inf+nanj where one part is infinite, the other NaN (XLA's NaN)."""
    re, im = lax.real(z), lax.imag(z)
    odd = (jnp.isinf(re) | jnp.isinf(im)) & (jnp.isnan(re) | jnp.isnan(im))
    return jnp.where(odd, lax.complex(jnp.asarray(np.inf, re.dtype), jnp.asarray(np.nan, re.dtype)), lax.log(z))


def _sign(x):
    """NumPy 2's sign: of floats +0.0 at -0.0 (jax.numpy's -0.0); of complex numbers ``z / |z|`` by
    the C library's hypot (NumPy's npy_csign), +-1 or +-1j where one part is infinite (the other not)
    and 0 at zero (jax.numpy's was NaN at infinite parts, -0.0 parts at signed zeros). Its derivative
    is jax.numpy's, none."""
    if x.dtype.kind == "f":
        return jnp.where(x == 0, jnp.zeros_like(x), jnp.sign(x))
    if x.dtype.kind != "c":
        return jnp.sign(x)
    re, im = lax.stop_gradient(lax.real(x)), lax.stop_gradient(lax.imag(x))
    h = _hypot(re, im)
    usable = jnp.isfinite(h) & (h != 0)
    safe = jnp.where(usable, h, jnp.ones_like(h))
    nan, zero = jnp.full_like(h, np.nan), jnp.zeros_like(h)
    big_re, big_im = jnp.isinf(re), jnp.isinf(im)
    real = _select([usable, h == 0, big_re & ~big_im, big_im & ~big_re], [re / safe, zero, jnp.sign(re), zero], nan)
    imag = _select([usable, h == 0, big_re & ~big_im, big_im & ~big_re], [im / safe, zero, zero, jnp.sign(im)], nan)
    return lax.complex(real, imag)


def _by_kind(complex_f: Callable, f: Callable) -> Callable:
    return lambda x: complex_f(x) if x.dtype.kind == "c" else f(x)


def _as_unsigned_abs(x):
    """|x| as the unsigned integer of x's width: the minimum's is 2**(bits - 1) (its lax.abs wraps)."""
    if x.dtype.kind != "i":
        return x
    return lax.bitcast_convert_type(lax.abs(x), np.dtype(f"u{x.dtype.itemsize}"))


def _euclid(x, y):
    """gcd of unsigned integers by Euclid's algorithm, every element until its remainder is 0."""

    def step(state):
        a, b = state
        nonzero = b != 0
        return jnp.where(nonzero, b, a), jnp.where(nonzero, lax.rem(a, jnp.where(nonzero, b, 1)), b)

    return lax.while_loop(lambda state: jnp.any(state[1] != 0), step, (x, y))[0]


def _gcd(x, y):
    """NumPy's gcd: Euclid's on the unsigned absolute values, converted back (npy_gcd), so the
    minimum's is itself (gcd(-128, 0) of int8 is -128). NB: jnp.gcd loops on abs(x), the minimum
    negative there, and its remainders never reach 0: np.gcd([12, -2**63], [18, 6]) never finished."""
    x, y = broadcast_together(x, y)
    return _euclid(_as_unsigned_abs(x), _as_unsigned_abs(y)).astype(x.dtype)


def _lcm(x, y):
    """NumPy's lcm: ``|x| / gcd * |y|`` on the unsigned absolute values, wrapping, converted back
    (npy_lcm; 0 where the gcd is 0)."""
    x, y = broadcast_together(x, y)
    ux, uy = _as_unsigned_abs(x), _as_unsigned_abs(y)
    g = _euclid(ux, uy)
    zero = g == 0
    return jnp.where(zero, 0, lax.div(ux, jnp.where(zero, 1, g)) * uy).astype(x.dtype)


UFUNC_IMPL.update({"gcd": _gcd, "lcm": _lcm})


def _pow2(n, dtype):
    """2.0 ** n of dtype for integers n within its normal exponents, made from its bits."""
    info = jnp.finfo(dtype)
    bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
    biased = (n + (info.maxexp - 1)).astype(bits)
    return lax.bitcast_convert_type(lax.shift_left(biased, jnp.asarray(info.nmant, bits)), dtype)


@jax.custom_jvp
def _exp2(x):
    """libm's exp2, exact at integers: ``2 ** n * exp2(f)`` for the nearest integer n and
    ``f = x - n`` (exact), the power of two applied in two halves so that only the last product
    rounds, at a denormal too. NB: XLA's exp2 is ``exp(x * ln 2)``: np.exp2(6.0) was
    63.99999999999998, 1,977 of 2,000 integers in float64 missed, up to 704 ulps off at 1000."""
    if x.dtype.kind != "f":
        return jnp.exp2(x)
    info = jnp.finfo(x.dtype)
    bound = info.maxexp + info.nmant + 2  # NB: beyond it, inf or 0 whatever the fraction
    n = jnp.where(jnp.isfinite(x), jnp.round(jnp.clip(x, -bound, bound)), 0)
    k = n.astype(np.int32)
    half = k // 2
    return jnp.exp2(x - n) * _pow2(half, x.dtype) * _pow2(k - half, x.dtype)


@_exp2.defjvp
@in_64_bits
def _exp2_jvp(primals, tangents):
    """jax.numpy's derivative."""
    return _exp2(*primals), jax.jvp(jnp.exp2, primals, tangents)[1]


@jax.custom_jvp
def _log2(x):
    """libm's log2, exact at powers of two: ``e + log2(m)`` for ``x = m * 2 ** e``, m in
    [sqrt(1/2), sqrt(2)) (so that near 1 nothing cancels), of a power of two log2(1) = 0.
    NB: XLA's is ``log(x) / ln 2``: np.floor(np.log2([8, 64, 4096])) was [2, 5, 11]."""
    if x.dtype.kind != "f":
        return jnp.log2(x)
    m, e = jnp.frexp(x)  # NB: m in [0.5, 1); frexp(0) is (0, 0), of inf and nan (x, 0)
    low = jnp.abs(m) < np.sqrt(0.5)
    m = jnp.where(low, m * 2, m)
    e = jnp.where(low, e - 1, e)
    # NB: a subnormal is 0 where XLA:CPU flushes it (its -inf, as before); frexp's was -1075
    return jnp.where(x == 0, -jnp.inf, e.astype(x.dtype) + jnp.log2(m))


@_log2.defjvp
@in_64_bits
def _log2_jvp(primals, tangents):
    """jax.numpy's derivative."""
    return _log2(*primals), jax.jvp(jnp.log2, primals, tangents)[1]


UFUNC_IMPL.update({"exp2": _exp2, "log2": _log2})


def _int_reciprocal(x):
    """NumPy's integer ``1 / x``: 1 and -1 are their own reciprocal, other values give 0.

    NB: NumPy computes ``1.0 / x`` and converts: for 0 that is inf converted, the minimum
    value for 32- and 64-bit signed types and 0 otherwise (what x86 conversion gives)."""
    if x.dtype.kind == "c":
        return _complex_reciprocal(x)
    if not jnp.issubdtype(x.dtype, jnp.integer) and x.dtype != bool:
        return jnp.reciprocal(x)
    info = jnp.iinfo(x.dtype) if x.dtype != bool else None
    signed = info is not None and info.min < 0
    r = jnp.where(x == 1, 1, jnp.where(x == -1, -1, 0) if signed else 0).astype(x.dtype)
    zero = info.min if signed and x.dtype.itemsize >= 4 else 0
    return jnp.where(x == 0, jnp.asarray(zero, x.dtype), r)


def _modf(x):
    """NB: NumPy's modf keeps the sign on the fraction (modf(-2.0) = (-0.0, -2.0)) and gives
    (±0, ±inf) for infinities, where x - trunc(x) would be nan."""
    whole = jnp.trunc(x)
    frac = jnp.where(jnp.isinf(x), jnp.zeros_like(x), x - whole)
    return jnp.copysign(frac, x), whole


def _power(x, y):
    """NumPy's ``x ** y``; of integers by squaring over every bit of ``y``, wrapping as NumPy's
    loop does. NB: jax.numpy's integer power looks at the low 6 bits of a traced exponent only
    (``13 ** 99`` was ``13 ** 35`` there, ``2 ** 64`` was 1 where NumPy's is 0)."""
    x, y = broadcast_together(x, y)
    if x.dtype.kind == "f" and _PRODUCTS_ROUNDED.get():
        return rounded(jnp.power(x, y))  # NB: XLA makes x ** 2 a product
    if x.dtype.kind == "c":
        return _complex_power(x, y)
    if x.dtype.kind not in "iu":
        return jnp.power(x, y)

    def square_and_multiply(_, state):
        r, b, e = state
        return jnp.where(e & 1 == 1, _signed_multiply(r, b), r), _signed_multiply(b, b), e >> 1

    one = jnp.ones_like(x)
    return lax.fori_loop(0, y.dtype.itemsize * 8, square_and_multiply, (one, x, y))[0]


@jax.custom_jvp
def _complex_power(x, y):
    """NumPy's complex power (its nc_pow): 1 at a zero exponent; at a zero base 0 where the
    exponent's real part is positive, else NaN; an integer exponent below 100 in magnitude by
    repeated products (``a``, ``a * a``, ``a * (a * a)``, else squaring and multiplying from 1;
    of a negative one the reciprocal, by Smith's division), each product NumPy's plain one
    (`_folded_multiply`); other exponents XLA's power. NB: XLA's 0j ** (1+1j) was nan+nanj
    (NumPy 0j), (-2+0j) ** 3 -8+2.9e-15j (NumPy -8+0j). The derivative is jax.numpy's."""
    yr, yi = lax.real(y), lax.imag(y)
    whole = (yi == 0) & (lax.abs(yr) < 100) & (yr == jnp.round(yr))
    n = jnp.where(whole, yr, 0).astype(np.int32)
    m, square, acc = lax.abs(n), x, jnp.ones_like(x)
    for bit in range(7):  # NB: |n| < 128
        acc = jnp.where(m & (1 << bit) != 0, _folded_multiply(acc, square), acc)
        square = _folded_multiply(square, square)
    x2 = _folded_multiply(x, x)
    r = _select([n == 1, n == 2, n == 3, n < 0], [x, x2, _folded_multiply(x, x2), _one_over(acc)], acc)
    r = jnp.where(whole, r, jnp.power(x, y))
    zero = jnp.where(yr > 0, jnp.zeros_like(x), jnp.full_like(x, complex(np.nan, np.nan)))
    r = jnp.where((lax.real(x) == 0) & (lax.imag(x) == 0), zero, r)
    return jnp.where((yr == 0) & (yi == 0), jnp.ones_like(x), r)


def _one_over(b):
    """``1 / b`` as npymath's complex division of 1 (nc_pow's negative powers): `_complex_divide`
    of 1 + 0j, its zero one XLA cannot fold (``ratio + 0.0`` is +0.0 at -0.0)."""
    re = lax.real(b)
    return _complex_divide(lax.complex(jnp.ones_like(re), lax.abs(unknown_zero(re.dtype))), b)


_complex_power.defjvp(in_64_bits(lambda primals, tangents: (_complex_power(*primals),
                                                              jax.jvp(jnp.power, primals, tangents)[1])))


@jax.custom_jvp
def _power_by_a_scalar(x, y, res):
    """NumPy's float32/float64 power loop computes a scalar exponent's special values apart (its
    stride is 0): ``x ** 0.5`` is ``sqrt(x)``, which is -0.0 at -0.0 and NaN at -inf where
    ``pow`` gives 0.0 and inf (of -1, 0, 1 and 2 the values are pow's). An array of 0.5 is pow's."""
    return jnp.where(y == 0.5, jnp.sqrt(x), res)


@_power_by_a_scalar.defjvp
@in_64_bits
def _power_by_a_scalar_jvp(primals, tangents):
    """The derivative of the power ``res``, at 0.5 too. NB: sqrt's has none with respect to the
    exponent (d/dp of ``x ** p`` at a traced scalar p = 0.5 was 0, jax.numpy's is log(x) sqrt(x)),
    and where the exponent is another, its NaN at a negative x or 0 multiplied a zero cotangent
    (``x ** 3`` had NaN gradients there once)."""
    return _power_by_a_scalar(*primals), tangents[2]


def _fusion_root(shift: Callable) -> Callable:
    """NB: jaxlib 0.10.2's XLA:CPU crashed at run time on a shift fused into the computation of
    another op with several users of it (`b[2:0:-1] <<= 3; b <<= 1` beside `c << 0`, fuzz
    seed 4249; docs/fuzzing.md). Behind an optimization_barrier (on the CPU only: apart_on_cpu) a shift
    is the root of its fusion."""
    return lambda x, y: apart_on_cpu(shift(x, y))


UFUNC_IMPL["left_shift"] = _fusion_root(jnp.left_shift)
UFUNC_IMPL["right_shift"] = _fusion_root(jnp.right_shift)
UFUNC_IMPL["power"] = _power
UFUNC_IMPL["modf"] = _modf
UFUNC_IMPL["absolute"] = _abs
UFUNC_IMPL["reciprocal"] = _int_reciprocal
UFUNC_IMPL["sign"] = _sign
UFUNC_IMPL["sqrt"] = _by_kind(_complex_sqrt, lax.sqrt)
UFUNC_IMPL["log"] = _by_kind(_complex_log, lax.log)


def _by_ratio(numerator, denominator):
    """NumPy's ``x * (numerator / denominator)`` (rad2deg's 180 / pi, deg2rad's pi / 180): the
    factor divided in x's type (float32's 180f / pif is 57.295776, not float32(180 / pi), 57.29578,
    which jax.numpy's multiplies by), the product NumPy's."""
    def times(x):
        kind = np.dtype(x.dtype).type
        return _multiply(*_unfolded("multiply", (x, jnp.asarray(kind(numerator) / kind(denominator), x.dtype))))

    return times


UFUNC_IMPL["rad2deg"] = UFUNC_IMPL["degrees"] = _by_ratio(180, np.pi)
UFUNC_IMPL["deg2rad"] = UFUNC_IMPL["radians"] = _by_ratio(np.pi, 180)


def _hypot(x, y):
    """NumPy's ``hypot``, the C library's (glibc): of float32, ``sqrt(x*x + y*y)`` in double,
    rounded (float16 comes here as float32); of float64, the square root of the sum of squares
    corrected by one step of its rounding error, each product rounded on its own (Borges, "An
    improved algorithm for hypot(a, b)", 2019, glibc's kernel without FMA), the operands scaled by
    a power of two where a square would overflow or underflow. jax.numpy's divides the smaller
    by the larger: up to 2 ulps off, hypot(20, 99) 100.99999999999999 where NumPy's is 101."""
    x, y = broadcast_together(x, y)
    return _hypot_value(x, y) if x.dtype in (np.float32, np.float64) else jnp.hypot(x, y)


@jax.custom_jvp
def _hypot_value(x, y):
    if x.dtype == np.float32:
        xd, yd = x.astype(np.float64), y.astype(np.float64)  # NB: exact squares: no FMA to avoid
        r = converted(lax.sqrt(xd * xd + yd * yd), np.float32)
    else:
        r = _hypot_double(x, y)
    r = jnp.where(jnp.isnan(x) | jnp.isnan(y), x + y, r)  # NB: a NaN operand, as the C library returns it
    return jnp.where(jnp.isinf(x) | jnp.isinf(y), jnp.asarray(np.inf, r.dtype), r)


def _hypot_double(x, y):
    def mul(a, b):
        return rounded(lax.mul(a, b))

    ax, ay = lax.abs(x), lax.abs(y)
    big, small = lax.max(ax, ay), lax.min(ax, ay)
    # NB: glibc's bounds: below 2**-459 the correction's products would be subnormal (XLA:CPU
    # flushes them, glibc keeps them: 15% of values an ulp off just above 2**-500)
    scale = jnp.where(big > 2.0**511, 2.0**-600, jnp.where(small < 2.0**-459, 2.0**600, 1.0))
    b, s = big * scale, small * scale  # NB: exact
    h = lax.sqrt(mul(b, b) + mul(s, s))
    near = h <= 2.0 * s
    delta = h - jnp.where(near, s, b)
    t1 = jnp.where(near, mul(b, 2.0 * delta - b), mul(2.0 * delta, b - 2.0 * s))
    t2 = jnp.where(near, mul(delta - 2.0 * (b - s), delta), mul(4.0 * delta - s, s) + mul(delta, delta))
    h = (h - (t1 + t2) / (2.0 * h)) / scale
    # NB: far apart, the larger (its square may overflow, the other's underflow, at any scale)
    h = jnp.where(big > small * 2.0**60, big + small, h)
    return jnp.where(big == 0, big, h)


@_hypot_value.defjvp
@in_64_bits
def _hypot_jvp(primals, tangents):
    """``(x dx + y dy) / hypot``, taken as 0 at the origin (the corrected value's own derivative
    divides by it twice)."""
    (x, y), (dx, dy) = primals, tangents
    r = _hypot_value(x, y)
    safe = jnp.where(r == 0, jnp.ones_like(r), r)
    return r, jnp.where(r == 0, jnp.zeros_like(r), (x / safe) * dx + (y / safe) * dy)


UFUNC_IMPL["hypot"] = _hypot


def _logaddexp(base2: bool) -> Callable:
    """NumPy's logaddexp (logaddexp2): ``x + log(2)`` (``x + 1``) where the operands are equal, else the
    larger plus ``log1p(exp(-|x - y|))`` (times log2(e), rounded apart, of base 2), NaN where ``x - y``
    is. NB: jax.numpy's logaddexp2(-1.0, -1.0) was -4.8e-17 (NumPy's 0.0), 376 of 5007 float64
    logaddexp2(x, x) off; the derivative is jax.numpy's (its average at equal operands)."""
    exact = jnp.logaddexp2 if base2 else jnp.logaddexp

    @jax.custom_jvp
    def f(x, y):
        d = x - y
        step = rounded(lax.log1p(jnp.exp2(-lax.abs(d))) * np.log2(np.e).astype(d.dtype)) if base2 else (
            lax.log1p(lax.exp(-lax.abs(d))))
        r = jnp.where(d > 0, x, y) + step
        r = jnp.where(jnp.isnan(d), d, r)
        return jnp.where(x == y, x + (1 if base2 else np.log(2).astype(d.dtype)), r)

    f.defjvp(in_64_bits(lambda primals, tangents: (f(*primals), jax.jvp(exact, primals, tangents)[1])))
    return lambda x, y: f(*broadcast_together(x, y))


UFUNC_IMPL["logaddexp"] = _logaddexp(base2=False)
UFUNC_IMPL["logaddexp2"] = _logaddexp(base2=True)


def _spacing(x):
    """NumPy's spacing: +0.0's at either zero (jax.numpy's was negative at -0.0), NaN at infinities
    (of float16 too, where jax.numpy's was inf)."""
    r = jnp.where(x == 0, jnp.spacing(jnp.zeros_like(x)), jnp.spacing(x))
    return jnp.where(jnp.isinf(x), jnp.full_like(x, np.nan), r)


UFUNC_IMPL["spacing"] = _spacing


def ufunc_impl(name: str, dtype=None) -> Callable:
    if name in _FLOAT_ONLY and dtype is not None and jnp.issubdtype(dtype, jnp.inexact):
        return _FLOAT_ONLY[name]
    if dtype == np.bool_ and name in _LAX_NUMERIC:  # NB: NumPy's bool + is `or`, * is `and`
        return getattr(jnp, name)
    return UFUNC_IMPL.get(name) or getattr(jnp, name)


def _compare_int64_uint64(name: str, x, y):
    """NumPy 2 compares int64 with uint64 exactly (its own mixed loops): a negative signed
    operand is below every unsigned one; otherwise both compare as uint64."""
    neg_x = x < 0 if x.dtype == np.int64 else jnp.zeros(x.shape, bool)
    neg_y = y < 0 if y.dtype == np.int64 else jnp.zeros(y.shape, bool)
    xu, yu = x.astype(np.uint64), y.astype(np.uint64)
    less = neg_x & ~neg_y | (neg_x == neg_y) & (xu < yu)
    equal = (neg_x == neg_y) & (xu == yu)
    return {"less": less, "less_equal": less | equal, "greater": ~less & ~equal, "greater_equal": ~less,
            "equal": equal, "not_equal": ~equal}[name]


def _compare_complex(name: str, x, y):
    """NumPy orders complex numbers by real part, then imaginary part (its CLT/CLE/CGT/CGE): a
    real-part decision needs both imaginary parts to be numbers; lax has no complex ordering."""
    xr, xi, yr, yi = lax.real(x), lax.imag(x), lax.real(y), lax.imag(y)
    numbers = ~jnp.isnan(xi) & ~jnp.isnan(yi)
    strict, tie = {"less": (xr < yr, xi < yi), "less_equal": (xr < yr, xi <= yi),
                   "greater": (xr > yr, xi > yi), "greater_equal": (xr > yr, xi >= yi)}[name]
    return strict & numbers | (xr == yr) & tie


def _nan_parts(x):
    """Where a complex ``x`` is NaN: NumPy's complex loops take one NaN part as NaN."""
    return jnp.isnan(lax.real(x)) | jnp.isnan(lax.imag(x))


def _extremum(name: str) -> Callable:
    """NumPy's maximum/minimum/fmax/fmin; of complex numbers by NumPy's order (`_compare_complex`),
    ``x`` kept where it is the greater (lesser) or equal, and where it is NaN (maximum, minimum:
    either NaN propagates) or ``y`` is (fmax, fmin: a NaN only where both are). NB: lax's complex
    max compares otherwise: maximum(3-1j, nan+0j) was 3-1j, NumPy's nan+0j."""
    real = {"maximum": lax.max, "minimum": lax.min, "fmax": jnp.fmax, "fmin": jnp.fmin}[name]
    order = "greater_equal" if name in ("maximum", "fmax") else "less_equal"

    def g(x, y):
        x, y = broadcast_together(x, y)
        if x.dtype.kind != "c":
            return real(x, y)
        keep = _nan_parts(x if name in ("maximum", "minimum") else y) | _compare_complex(order, x, y)
        return jnp.where(keep, x, y)

    return g


UFUNC_IMPL.update({name: _extremum(name) for name in ("maximum", "minimum", "fmax", "fmin")})


def _complex_best(x, axis: int, name: str):
    """Where along ``axis`` NumPy's fold of complex ``x`` by ``name`` (maximum, minimum, fmax, fmin,
    argmax, argmin) finds its result: the NaNs if any (maximum, minimum, argmax, argmin) or if all are
    (fmax, fmin), else the greatest (least) real parts with the greatest (least) imaginary part among
    them; the first of these is the result."""
    best, worst = (jnp.max, -jnp.inf) if name in ("maximum", "fmax", "argmax") else (jnp.min, jnp.inf)
    r, i = lax.real(x), lax.imag(x)
    nan = _nan_parts(x)
    top = ~nan & (r == best(jnp.where(nan, worst, r), axis=axis, keepdims=True))
    top &= i == best(jnp.where(top, i, worst), axis=axis, keepdims=True)
    if name in ("fmax", "fmin"):
        return jnp.where(top.any(axis=axis, keepdims=True), top, nan)
    return jnp.where(nan.any(axis=axis, keepdims=True), nan, top)


def _complex_extreme(x, name: str, axes: tuple[int, ...], keepdims: bool):
    """NumPy's maximum/minimum/fmax/fmin reduction of complex ``x`` over ``axes`` (in C order): the
    element `_complex_best` finds, taken (so with its derivative)."""
    kept = [i for i in range(x.ndim) if i not in axes]
    xs = jnp.transpose(x, (*axes, *kept)).reshape((-1, *(x.shape[i] for i in kept)))
    r = jnp.take_along_axis(xs, _first("argmax", _complex_best(xs, 0, name), 0, True), axis=0)[0]
    return r.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape))) if keepdims else r


_COMPARISONS = {"less", "less_equal", "greater", "greater_equal", "equal", "not_equal"}
# NB: XLA folds float arithmetic across steps where NumPy rounds each one: it reassociates
# ``(a + 0.1) + 0.7`` into ``a + 0.8``, ``(a * 0.1) * 0.7`` and ``(b / c) / d`` into
# ``b / (c * d)`` (a quarter to a half of random float64 results an ulp off), also of arrays
# made inside (np.full), makes ``x ** 3`` products (NumPy's is pow's), and folds ``0.0 + v``
# into ``v`` (the sign of -0.0 + 0.0). Operands hidden from it (opaque.unfolded) are not folded.
_FOLDED = {"add", "subtract", "multiply", "divide", "power"}


def _unfolded(name: str, operands):
    """``operands`` of ufunc ``name``, hidden from XLA where it would fold them (see _FOLDED)."""
    if name in _FOLDED and operands[0].dtype.kind in "fc":
        return unfolded(operands)
    return operands


@rule("ufunc")
def ufunc(ins, outs, name, loop, masked=False):
    n = len(loop)
    # NB: NumPy's float16 loops take float16 operands (a traced Python float 0.3 is float16's
    # 0.2998), compute in float32 and round the result; XLA's are less exact
    wide = name not in ("nextafter", "spacing")  # these two are about float16's own spacing
    args = [cast(cast(x, d), np.float32) if d == np.float16 and wide else cast(x, d) for x, d in zip(ins[:n], loop)]
    if name in _COMPARISONS and {a.dtype for a in args} == {np.dtype(np.int64), np.dtype(np.uint64)}:
        res = _compare_int64_uint64(name, *args)
    elif name in _COMPARISONS - {"equal", "not_equal"} and args[0].dtype.kind == "c":
        res = _compare_complex(name, *args)
    else:
        if name == "divide" and args[0].dtype.kind == "f":  # NB: hidden whole: no divisor is a broadcast (_divide)
            res = lax.div(*unfolded_whole(args))
        else:
            res = ufunc_impl(name, args[0].dtype if loop else None)(*_unfolded(name, args))
        if name == "power" and loop[0] in (np.float32, np.float64) and np.size(args[1]) == 1:
            res = _power_by_a_scalar(*args, res)
    res = list(res) if isinstance(res, tuple) else [res]
    if wide and np.float16 in loop:  # NB: rounded to the loop's float16 before any cast to out's type
        res = [cast(r, np.float16) if r.dtype == np.float32 else r for r in res]
    res = [cast(r, d) for r, (_, d) in zip(res, outs)]
    if masked:
        mask, old = ins[n], ins[n + 1 :]
        res = [jnp.where(mask, r, o) for r, o in zip(res, old)]
    return res


_REDUCERS = {
    "add": jnp.sum, "multiply": jnp.prod, "maximum": jnp.max, "minimum": jnp.min,
    "fmax": jnp.nanmax, "fmin": jnp.nanmin, "logical_and": jnp.all, "logical_or": jnp.any,
}
_EXTREMA = {"maximum", "minimum", "fmax", "fmin"}
_IDENTITY = {"add": 0, "multiply": 1, "logical_and": True, "logical_or": False,
             "logical_xor": False, "bitwise_or": 0, "bitwise_xor": 0, "bitwise_and": -1}


@rule("reduce")
def reduce(ins, outs, name, axes, keepdims, dtype, initial=None, masked=False, ordered=None, wide=False,
           compact=False):
    lazy = ins[0] if isinstance(ins[0], Lazy) else None  # NB: only NumPy's sums compute one in parts
    source = jnp.asarray(ins[0].value if lazy else ins[0])
    if name not in ("logical_and", "logical_or", "logical_xor"):
        x = cast(source, dtype)
    else:
        x = source.astype(bool)
    if compact:  # NB: the sum of a selection a[mask] (numpy/masked.py): the whole of it, one run
        return [_selection_sum(x, ins[1], 0 if initial is None else initial)]
    if ordered is not None:
        if not masked and name == "add" and source.dtype != x.dtype and not lazy:
            # NB: cast part by part as the sum reads it, as NumPy's buffer casts: cast whole, the mean of
            # int32 rows of 256 (4e6) took 14 ms, NumPy 2.3 (a temporary of 32 MB a call)
            x = conversion(lambda o: cast(o, dtype), source, x)
        elif lazy and not masked and _as_laid_out(name, axes, ordered, x.ndim):
            x = lazy if lazy.dtype == x.dtype else Lazy(lambda o: cast(o, dtype), (lazy,), x, 1 + lazy.ops)
        return [_ordered(x, ins[1] if masked else None, name, axes, keepdims, initial, *ordered, stored=outs[0][1])]
    # NB: masked-out elements contribute the identity; ``initial`` is added once, below
    fill = _IDENTITY[name] if name in _IDENTITY else initial
    if masked:
        x = jnp.where(ins[1], x, cast(fill, x.dtype))
    if name in _EXTREMA and x.dtype.kind == "c" and x.size:
        r = _complex_extreme(x, name, axes, keepdims)
    elif name in _REDUCERS:
        r = _REDUCERS[name](x, axis=axes, keepdims=keepdims)
    elif name == "logical_xor":
        r = jnp.sum(x, axis=axes, keepdims=keepdims) % 2 == 1
    elif name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        r = getattr(jnp, name).reduce(x, axis=axes, keepdims=keepdims)
    else:
        return [_fold(x, ins[1] if masked else None, name, axes, keepdims, dtype, initial, wide)]
    if initial is not None:
        r = ufunc_impl(name)(*_unfolded(name, (r, cast(initial, r.dtype))))
    return [converted(r, dtype)]


def _selection_sum(x, mask, start):
    """NumPy's sum of ``x[mask]``, a fresh array of the selected elements in C order, which it
    adds as one run, pairwise: the selected elements moved to the front, their count traced."""
    x, mask = x.reshape(-1), jnp.broadcast_to(mask, x.shape).reshape(-1)
    index = memory.index_dtype(x.size)
    place = jnp.where(mask, jnp.cumsum(mask, dtype=index) - 1, x.size)
    run = jnp.zeros_like(x).at[place].set(x, mode="drop")
    return prefix_sum(run, jnp.sum(mask, dtype=index), start)


def _as_laid_out(name: str, axes: tuple[int, ...], ordered: tuple, ndim: int) -> bool:
    """Whether NumPy's sum over ``axes`` takes its operand as it is laid out: each run along its
    last axis pairwise, or its first axis term after term (`_ordered`), so that a lazy.Lazy
    operand is computed slice by slice, or block by block, and never whole."""
    order, run = ordered[0], list(ordered[1])
    return name == "add" and list(axes) == run == ([ndim - 1] if order == "pairwise" else [0])


def _ordered(x, mask, name: str, axes: tuple[int, ...], keepdims: bool, initial, order: str,
             run: tuple[int, ...], *pieces: int, stored):
    """NumPy's float sum or product over ``axes``, whose axes ``run`` (in memory order; the others
    have one element) NumPy's loop takes in ``order``: a sum pairwise in blocks and ``pieces``,
    its total kept in the ``stored`` dtype of the output between them, or one term after
    another, stored in the output after each visit of a result (view.summation,
    lower/summation.py); a product always one after another."""
    kept = [i for i in range(x.ndim) if i not in axes]
    shape = tuple(x.shape[i] for i in kept)
    if mask is not None:  # NB: NumPy's loop skips them; adding -0.0, or multiplying a real by 1, changes nothing
        x = jnp.where(mask, x, jnp.asarray(1 if name == "multiply" else -0.0, x.dtype))
    terms = math.prod(x.shape[i] for i in run)
    rest = tuple(i for i in axes if i not in run)
    if order == "pairwise" and name == "add":
        start = 0 if initial is None else initial
        after = max(run, default=x.ndim) < min(kept, default=-1)  # NB: the kept axes after the run in memory
        # NB: summed down, the run is one piece, so its total goes into out once (``every`` is all)
        if after and down((terms, *shape), x.dtype, *pieces[:2]):  # NB: no transpose (a Lazy here is a conversion)
            r = pairwise_sum(_arranged(x, (*run, *rest, *kept), (terms, *shape)), start, stored=stored, down=True)
        else:
            r = pairwise_sum(_arranged(x, (*kept, *run, *rest), (*shape, terms)), start, *pieces, stored)
    else:
        xs = _arranged(x, (*run, *rest, *kept), (terms, *shape))
        if name == "add":
            r = sequential(xs, 0 if initial is None else initial, lax.add, *pieces, stored)
        else:  # NB: where a kept axis is innermost, NumPy's loop is its elementwise product
            r = _product(xs, initial, order, pieces, stored)
    return r.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape))) if keepdims else r


def _arranged(x, axes: tuple[int, ...], shape: tuple[int, ...]):
    """``x`` transposed to ``axes`` and reshaped to ``shape``: of a conversion, the conversion of its
    operand so arranged; another Lazy is laid out so already (`_as_laid_out`)."""
    if isinstance(x, Lazy):
        return x.map(lambda a: jnp.transpose(a, axes).reshape(shape)) if x.conversion else x
    return jnp.transpose(x, axes).reshape(shape)


def _product(xs, initial, order: str, pieces: tuple, stored):
    """NumPy's product of the terms ``xs`` (first axis) from ``initial`` or its identity (1, of
    complex numbers 1 + 0j: the product of [inf + 0j] is inf + nanj): its elementwise loop
    (``order`` sequential: a kept axis innermost), float16 rounded at every step; else its
    reduction loop, float16 in float32 rounded where each of its calls ends, and the total cast
    back into an ``out=`` of another type after each (`summation.in_pieces`)."""
    start = jnp.asarray(1 if initial is None else initial, xs.dtype)
    if order != "sequential":
        return in_pieces(xs, start, _folded_multiply, *pieces, stored)
    if xs.dtype == np.float16:
        wide = np.dtype(np.float32)
        return sequential(xs, start, lambda t, v: converted(_multiply(t.astype(wide), v.astype(wide)), t.dtype),
                          *pieces, stored)
    # NB: of complex numbers NumPy's elementwise product in every mode (with fma=True XLA's product
    # was NumPy's in 44 of 200 columns' a.prod(axis=0))
    return sequential(xs, start, _complex_multiply if xs.dtype.kind == "c" else _multiply, *pieces, stored)


def _fold(x, mask, name: str, axes: tuple[int, ...], keepdims: bool, dtype, initial, wide: bool = False):
    """NumPy's reduction by any other binary ufunc: the elements of ``axes`` (in C order) folded
    left to right into ``initial`` (else the first), as NumPy's loop does: ``x0 - x1 - x2 ...``;
    masked-out elements leave the running value as it is. ``wide``: folded in float32 and
    rounded once, as NumPy's float16 subtract and divide loops fold a reduction's inner loop."""
    kept = [i for i in range(x.ndim) if i not in axes]
    shape = tuple(x.shape[i] for i in kept)

    terms = math.prod(x.shape[i] for i in axes)

    def lined_up(v):  # the reduced axes first, as one (NB: counted: -1 is no size where another is 0)
        return jnp.transpose(jnp.broadcast_to(v, x.shape), (*axes, *kept)).reshape((terms, *shape))

    xs = lined_up(x)
    ms = jnp.ones(xs.shape[:1], bool) if mask is None else lined_up(mask)
    if initial is None:
        start, xs, ms = xs[0], xs[1:], ms[1:]
    else:
        start = jnp.full(shape, initial, dtype)
    compute = np.dtype(np.float32) if wide else dtype
    r = converted(_running(name, compute, start.astype(compute), xs.astype(compute), ms)[0], dtype)
    return r.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape)) if keepdims else shape)


def _running(name: str, dtype, start, xs, ms):
    """``ufunc(... ufunc(ufunc(start, xs[0]), xs[1]) ..., xs[-1])`` where ``ms`` holds, by NumPy's
    loop for ``name``: the final value and every running one."""

    def step(acc, item):
        value, m = item
        new = jnp.where(m, ufunc([acc, value], [(acc.shape, dtype)], name, (dtype, dtype))[0], acc)
        return new, new

    return lax.scan(step, start, (xs, ms))


_ASSOCIATIVE = {"bitwise_and": lax.bitwise_and, "bitwise_or": lax.bitwise_or, "bitwise_xor": lax.bitwise_xor,
                "logical_xor": lax.bitwise_xor, "fmax": jnp.fmax, "fmin": jnp.fmin}


@rule("accumulate")
def accumulate(ins, outs, name, axis, dtype):
    src = jnp.asarray(ins[0])
    x = src.astype(bool) if name.startswith("logical") else cast(src, dtype)
    if x.dtype != src.dtype:
        # NB: jaxlib 0.10.2's XLA:CPU aborts the process compiling a cumulative sum of a converted
        # gather from a constant array (docs/fuzzing.md, dtypes seed 4274 #139); converted apart, it
        # compiles. The conversion is then written out once: small beside XLA's cumulative sum.
        # (On every backend: the abort is in XLA's compiler, whose HLO passes GPUs share.)
        x = lax.optimization_barrier(x)
    if not x.shape[axis]:
        return [x.astype(dtype)]
    if name == "subtract":  # x0 - x1 - x2 ... = x0 + (-x1) + (-x2) ..., exactly
        first = lax.slice_in_dim(x, 0, 1, axis=axis)
        x = jnp.concatenate([first, -lax.slice_in_dim(x, 1, x.shape[axis], axis=axis)], axis=axis)
        name = "add"
    fn = {"add": jnp.cumsum, "multiply": jnp.cumprod}.get(name)
    # NB: any other binary ufunc, folded left to right as NumPy does; and float16 sums and products,
    # which NumPy rounds to float16 at every step (XLA's cumsum of 125 float16 values was 0.08 off)
    if name not in _ACCUMULATORS or fn is not None and x.dtype == np.float16:
        return [_stepwise(name, x, axis)]
    if fn is not None and x.dtype.kind in "fc":
        # NB: NumPy's loop adds (multiplies) one element after another; XLA's cumulative sum
        # associates otherwise (88% of the running sums of 1,000 float64 were off in the last bits)
        r = jnp.moveaxis(running(lax.add if name == "add" else _folded_multiply, jnp.moveaxis(x, axis, 0)), 0, axis)
    elif fn is not None:
        r = fn(x, axis=axis)
    elif name in _EXTREMA and x.dtype.kind == "c":  # NB: NumPy's order, NaNs as its loop (`_extremum`)
        r = lax.associative_scan(_extremum(name), x, axis=axis)
    elif name in _ASSOCIATIVE:
        r = lax.associative_scan(_ASSOCIATIVE[name], x, axis=axis)
    else:
        op = {"maximum": lax.cummax, "minimum": lax.cummin, "logical_and": lax.cummin,
              "logical_or": lax.cummax}[name]
        wide = x.dtype == bool  # NB: lax's cumulative min/max take numbers, not bools
        r = op(x.astype(np.int8) if wide else x, axis=axis)
        r = r.astype(bool) if wide else r
    return [r.astype(dtype)]


_ACCUMULATORS = {"add", "multiply", "maximum", "minimum", "logical_and", "logical_or", *_ASSOCIATIVE}


def _stepwise(name: str, x, axis: int):
    """``ufunc.accumulate`` of ``x`` (non-empty along ``axis``) one element at a time, as NumPy's loop."""
    xs = jnp.moveaxis(x, axis, 0)
    _, ys = _running(name, x.dtype, xs[0], xs[1:], jnp.ones(xs.shape[0] - 1, bool))
    return jnp.moveaxis(jnp.concatenate([xs[:1], ys]), 0, axis)


# --- indexing -------------------------------------------------------------------


def build_key(template, arrays, size: int):
    """The JAX index of ``template`` (its arrays from ``arrays``) into an array of ``size`` elements."""
    key = []
    for k in template:
        if isinstance(k, tuple) and k[0] == "slice":
            key.append(slice(*k[1:]))
        elif isinstance(k, tuple):
            a = jnp.asarray(arrays[k[1]])
            key.append(a if a.dtype == bool else memory.as_index(a, size))
        else:
            key.append(k)
    return tuple(key)


_INDEXED = {"getitem", "setitem", "ufunc_at"}
# np.linalg functions that raise LinAlgError where XLA returns infinities or NaNs
_LINALG_ERRORS = {"linalg.inv": "Singular matrix", "linalg.solve": "Singular matrix",
                  "linalg.tensorinv": "Singular matrix", "linalg.tensorsolve": "Singular matrix",
                  "linalg.cholesky": "Matrix is not positive definite"}


def value_check(op) -> tuple[BaseException, Callable] | None:
    """Checked mode: the error NumPy raises from ``op``'s values, and its condition
    ``flag(ins, results)`` (a traced bool); None where NumPy's errors do not depend on them."""
    if op.prim in _INDEXED:
        n = op.params.get("n_key", len(op.ins) - (2 if op.prim == "setitem" else 1))
        shape = op.ins[0].view.shape

        def flag(ins, results):
            bad = out_of_bounds(op.params["key"], ins[1 : 1 + n], shape)
            return jnp.any(jnp.stack(bad)) if bad else jnp.zeros((), bool)

        return IndexError("index out of bounds in a traced index array"), flag
    if op.prim == "check":  # NB: its operand is true where NumPy raises
        return op.params["error"](op.params["message"]), lambda ins, results: jnp.any(jnp.asarray(ins[0]))
    name = op.params.get("name")
    if op.prim == "jnp" and name in _LINALG_ERRORS:  # NB: a finite matrix whose result is not: LAPACK's info > 0
        return np.linalg.LinAlgError(_LINALG_ERRORS[name]), lambda ins, results: (
            jnp.all(jnp.stack([jnp.isfinite(x).all() for x in ins])) & ~jnp.isfinite(results[0]).all())
    if op.prim == "jnp" and name in ("nanargmin", "nanargmax"):  # NB: jax.numpy's answer there is -1
        return ValueError("All-NaN slice encountered"), lambda ins, results: jnp.any(results[0] < 0)
    if op.prim == "ufunc" and name == "power" and np.dtype(op.params["loop"][1]).kind == "i":
        def negative(ins, results):  # NB: where= elements left alone are not computed
            bad = jnp.asarray(ins[1]) < 0
            return jnp.any(bad & ins[2] if op.params.get("masked") else bad)

        return ValueError("Integers to negative integer powers are not allowed."), negative
    return None


def out_of_bounds(template, arrays, shape):
    """Whether any traced index array of ``x[key]`` is out of range (NumPy raises)."""
    consumed = sum(1 for k in template if k is not None and k is not Ellipsis)
    axis, flags = 0, []
    for k in template:
        if k is Ellipsis:
            axis += len(shape) - consumed
        elif k is not None:
            if isinstance(k, tuple) and k[0] == "arr":
                idx = jnp.asarray(arrays[k[1]])
                if idx.dtype != bool and idx.size:
                    n = shape[axis]
                    flags.append(jnp.any((idx < -n) | (idx >= n)))
            axis += 1
    return flags


@rule("getitem")
def getitem(ins, outs, key):
    x, *arrays = ins
    x = jnp.asarray(x)
    return [x[build_key(key, arrays, x.size)]]


@rule("setitem")
def setitem(ins, outs, key):
    x, *arrays, value = ins
    x = jnp.asarray(x)
    return [x.at[build_key(key, arrays, x.size)].set(cast(value, x.dtype))]


@rule("mask_set")
def mask_set(ins, outs):
    x, mask, value = ins
    mask = jnp.asarray(mask).reshape(mask.shape + (1,) * (x.ndim - mask.ndim))
    return [jnp.where(mask, cast(value, x.dtype), x)]  # NB: value fits x's trailing axes


_AT = {"add": "add", "multiply": "multiply", "minimum": "min", "maximum": "max"}
_BOOL_AT = {"add": "max", "multiply": "min", "minimum": "min", "maximum": "max"}  # NB: or, and


@rule("ufunc_at")
def ufunc_at(ins, outs, name, key, loop, n_key):
    x = jnp.asarray(ins[0])
    arrays = ins[1 : 1 + n_key]
    k = build_key(key, arrays, x.size)
    # NB: NumPy casts back into x after every update; one scatter, cast once, agrees where the loop
    # is x's own type or both are integers (wrapping is modular); else x[0] += 1.5 twice on uint16
    # is 12, not 13, and the updates go one at a time
    one_scatter = np.dtype(loop[0]) == x.dtype or x.dtype.kind in "iu" and np.dtype(loop[0]).kind in "iu"
    # NB: NumPy multiplies a repeated element once per occurrence, in turn; XLA's scatter in an order
    # of its own (a float product then rounds otherwise), and JAX differentiates it only if unique
    unique = name != "multiply" or x.dtype.kind not in "fc" or _distinct(x.shape, k)
    if name in _AT and len(ins) > 1 + n_key and one_scatter and unique:
        value = cast(ins[1 + n_key], loop[1])
        ref = x.astype(loop[0]).at[k]
        method = _AT[name] if np.dtype(loop[0]) != np.bool_ else _BOOL_AT[name]
        return [converted(getattr(ref, method)(value, unique_indices=name == "multiply"), x.dtype)]
    if name == "subtract" and one_scatter:
        value = cast(ins[1 + n_key], loop[1])
        return [converted(x.astype(loop[0]).at[k].add(-value), x.dtype)]
    return [_sequential_at(x, k, name, loop, ins[1 + n_key :])]


def _distinct(shape, key) -> bool:
    """Whether the index ``key`` of an array of ``shape`` is static and selects no element twice."""
    if any(isinstance(k, jax.core.Tracer) for k in key):
        return False
    flat = np.arange(math.prod(shape)).reshape(shape)[tuple(np.asarray(k) if isinstance(k, jax.Array) else k
                                                              for k in key)]
    return np.unique(flat).size == flat.size


def _sequential_at(x, k, name, loop, value):
    """``np.<ufunc>.at`` for any ufunc: the selected elements updated one at a time, in
    NumPy's order, so repeated indices apply the ufunc repeatedly (unbuffered)."""
    flat = jnp.arange(x.size).reshape(x.shape)[k]  # the flat position of every selected element
    positions = flat.reshape(-1)
    if not positions.size:  # NB: nothing selected (of an empty array): JAX cannot trace the body
        return x
    values = [jnp.broadcast_to(cast(v, loop[1]), flat.shape).reshape(-1) for v in value]
    f = ufunc_impl(name, loop[0])

    def body(i, xs):
        old = cast(xs[positions[i]], loop[0])
        new = f(old, *(v[i] for v in values))
        new = new[0] if isinstance(new, tuple) else new
        return xs.at[positions[i]].set(cast(new, xs.dtype))

    return lax.fori_loop(0, positions.size, body, x.reshape(-1)).reshape(x.shape)


_LANE_VECTOR = 16  # NB: the longest constant vector made of selects on lane indices (see to_value)


def to_value(x):
    """A JAX value for a constant operand (its NumPy dtype kept exactly).

    A short vector that repeats values (the per-lane limits ``[w, h, w, h]`` vectorize_lanes
    makes of ``np.clip`` through ``[:, 0::2]`` and ``[:, 1::2]``) is made of selects on the lane
    index: XLA:CPU folds those into the loop, where a vector constant is loaded per element
    (clip_boxes at 1e4-1e5 ran 1.4x slower with it on an AVX2 CPU than with the passes off).
    """
    a = np.asarray(x)
    if a.size >= _PROGRESSION and a.dtype.kind in "iuf" and (ramp := _ramp(a)) is not None:
        return ramp
    if a.ndim != 1 or not 2 <= a.size <= _LANE_VECTOR or a.dtype.kind not in "biuf":
        return jnp.asarray(a)
    lanes_of: dict[bytes, list[int]] = {}  # NB: by bits: -0.0 and NaNs kept apart
    for j, v in enumerate(a):
        lanes_of.setdefault(v.tobytes(), []).append(j)
    if len(lanes_of) == a.size:
        return jnp.asarray(a)
    lane = memory.iota(a.shape, 0)
    result = jnp.full(a.shape, a[-1], a.dtype)  # NB: the last lane's value, then each other value's lanes
    for same in lanes_of.values():
        if same[-1] != a.size - 1:
            mask = functools.reduce(operator.or_, [lane == j for j in same])
            result = memory.select(mask, jnp.full(a.shape, a[same[0]], a.dtype), result)
    return result


_PROGRESSION = 1024  # NB: a constant of this many elements or more, a ramp, is computed


def _ramp(a: np.ndarray):
    """``a`` computed where it is a ramp (`_integer_ramp`, `_float_ramp`), else None."""
    ramp = _integer_ramp(a)
    return _float_ramp(a) if ramp is None and a.dtype.kind == "f" else ramp


def _float_ramp(a: np.ndarray):
    """``a`` computed where it is, bit for bit, NumPy's ``np.linspace(start, stop, n)`` (``i * step +
    start``, the last element ``stop``; in float64, then rounded to a narrower type asked for) or
    float ``np.arange`` (``start + i * delta``) along its flat C order: XLA embedded such a constant
    whole (8 MB of np.linspace(0, 1, 10**6), campaign N). The product is rounded on its own
    (`rounded`), as NumPy's; subnormal values, which XLA:CPU flushes, are left embedded. Else None."""
    flat = a.reshape(-1)
    n = flat.size
    if not np.isfinite(flat).all() or ((flat != 0) & (abs(flat) < np.finfo(a.dtype).tiny)).any():
        return None
    if not flat[0] < flat[1] < flat[2] and not flat[0] > flat[1] > flat[2]:
        return None  # NB: no ramp: the whole candidates not built
    for wide in dict.fromkeys((a.dtype, np.dtype(np.float64))):
        info, first, end = np.finfo(wide), wide.type(flat[0]), wide.type(flat[-1])
        if n > 2 ** (info.nmant + 1):  # NB: an index not exact in the type
            continue
        with np.errstate(all="ignore"):
            steps = [((end - first) / wide.type(n - 1), True)]  # NB: np.linspace's
            if wide == a.dtype:
                steps.append((flat[1] - first, False))  # NB: np.arange's fill: its second value
            for step, last in steps:
                if not np.isfinite(step) or 0 < abs(step) < info.tiny:
                    continue
                want = np.arange(n, dtype=wide) * step + first
                if last:
                    want[-1] = end
                if np.array_equal(want.astype(a.dtype).view(f"u{a.itemsize}"), flat.view(f"u{a.itemsize}")):
                    index = memory.iota((n,), 0)
                    # NB: the start hidden too: XLA folds ``v + 0.0`` into v, -0.0 where v is (i = 0 of a
                    # ramp down from 0.0)
                    x = rounded(index.astype(wide) * step) + rounded(jnp.full((n,), first, wide))
                    if last:
                        x = memory.select(index == n - 1, jnp.full((n,), end, wide), x)
                    return cast(x, a.dtype).reshape(a.shape)  # NB: float16 from float64 rounded once
    return None


def _integer_ramp(a: np.ndarray):
    """``a`` computed, where it is ``start + step * i`` of integers along its flat C order (np.arange(n),
    of ints or integral floats, exactly): XLA embedded such a constant whole in the program (8 MB of
    np.arange(1e6), the compile twice as long; campaign N). Else None."""
    flat = a.reshape(-1)
    if a.dtype.kind == "f" and not (np.all(np.abs(flat) <= 2.0 ** min(np.finfo(a.dtype).nmant, 52))
                                    and np.array_equal(flat, np.round(flat))):
        return None
    start, step = int(flat[0]), int(flat[1]) - int(flat[0])
    ramp = start + step * np.arange(flat.size, dtype=np.int64)
    if not np.array_equal(ramp.astype(a.dtype), flat) or np.signbit(flat).any() != (ramp < 0).any():
        return None  # NB: -0.0 too
    return (lax.iota(np.int64, flat.size) * step + start).astype(a.dtype).reshape(a.shape)


# --- joins and selections -------------------------------------------------------------


@rule("where")
def where(ins, outs):
    cond, x, y = ins
    (_, dtype), = outs
    return [jnp.where(cond, cast(x, dtype), cast(y, dtype))]


@rule("concatenate")
def concatenate(ins, outs, axis, dtype):
    return [jnp.concatenate([cast(x, dtype) for x in ins], axis=axis)]


@rule("argreduce")
def argreduce(ins, outs, name, axis, keepdims, extreme=False):
    """NumPy's argmax/argmin; with ``extreme``, also its max/min along the axis (passes/reductions:
    one reduction for both), as the reduce rule computes it."""
    x = jnp.asarray(ins[0])
    if x.dtype.kind == "c":
        return [_complex_argreduce(x, name, axis, keepdims)]
    if not extreme:
        return [_first(name, x, axis, keepdims)]
    value, index = _extreme_and_first(x, axis % x.ndim, name == "argmax")
    value, index = cast(value, outs[1][1]), index.astype(np.int64)
    return [jnp.expand_dims(index, axis), jnp.expand_dims(value, axis)] if keepdims else [index, value]


def _first(name: str, x, axis, keepdims: bool):
    """NumPy's argmax/argmin (the first greatest or least element, or the first NaN) as int64: one
    reduction of (value, index) pairs. Not lax's argmax primitive: JAX lowers it by tracing it in
    the caller's 64-bit mode, and inside a 32-bit ``jax.jit`` of this (64-bit) program its
    float64 start value and int64 index type became float32 and int32 (refused by JAX and by
    XLA's verifier); this reduction is traced with the program. The indices are int32 (then
    converted), which XLA reduces faster."""
    if axis is None:
        r = _first(name, x.reshape(-1), 0, False)
        return r.reshape((1,) * x.ndim) if keepdims else r
    axis = axis % x.ndim
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    # NB: an index has no derivative, and JAX differentiates no reduction of several operands
    r = _reduce_first(lax.stop_gradient(x), axis, name == "argmax")[1].astype(np.int64)
    return jnp.expand_dims(r, axis) if keepdims else r


def _reduce_first(x, axis: int, greatest: bool, extreme: bool = False):
    """(value, index) of the first greatest (least) element along ``axis``, or of the first NaN;
    with ``extreme``, and lax's max (min) of the values, the reduce rule's (its zeros' signs)."""
    index = memory.index_dtype(x.shape[axis])
    if x.dtype.kind == "f":
        start = -np.inf if greatest else np.inf
    else:
        start = np.iinfo(x.dtype).min if greatest else np.iinfo(x.dtype).max

    def first_of(a, b):  # NB: a total order (NaN above all, then earlier first): any reduction order agrees
        (av, ai, *am), (bv, bi, *bm) = a, b
        a_nan, b_nan = av != av, bv != bv
        beats = lax.select(a_nan, ~b_nan, av > bv if greatest else av < bv)
        ties = lax.select(a_nan, b_nan, av == bv)
        take_a = beats | ties & (ai < bi)
        both = (lax.select(take_a, av, bv), lax.select(take_a, ai, bi))
        return both + ((lax.max if greatest else lax.min)(am[0], bm[0]),) if extreme else both

    positions = lax.broadcasted_iota(index, x.shape, axis)
    starts = (np.array(start, x.dtype), np.array(x.shape[axis], index))
    if extreme:
        return lax.reduce((lax.stop_gradient(x), positions, x), starts + starts[:1], first_of, (axis,))
    return lax.reduce((x, positions), starts, first_of, (axis,))


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2))
def _extreme_and_first(x, axis: int, greatest: bool):
    """The max (min) along ``axis`` and the index of its first greatest (least) element, in one
    reduction: XLA:CPU otherwise computed the max on its own (a library call), reading a computed
    array from memory (campaign N's score_threshold: 1.3-2x the hand form, whose argmax and max
    XLA merged)."""
    _, index, value = _reduce_first(x, axis, greatest, extreme=True)
    return value, index


@_extreme_and_first.defjvp
@in_64_bits
def _extreme_and_first_jvp(axis, greatest, primals, tangents):
    """jax.numpy's derivative of the max (min); none of the index."""
    value, index = _extreme_and_first(*primals, axis, greatest)
    reduced = jax.jvp(functools.partial(jnp.max if greatest else jnp.min, axis=axis), primals, tangents)[1]
    return (value, index), (reduced, np.zeros(index.shape, jax.dtypes.float0))


def _complex_argreduce(x, name: str, axis, keepdims: bool):
    """NumPy's argmax/argmin of complex numbers: the first NaN (in either part) if any, else the
    first of the greatest (least) real parts with the greatest (least) imaginary part among them."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    return _first("argmax", _complex_best(x, axis, name), axis, keepdims)


@rule("sort")
def sort(ins, outs, axis, kind=None):
    return [_sort(jnp.asarray(ins[0]), axis=axis)]


def _sort(a, axis=-1, **kwargs):
    """NumPy's sort; of complex numbers NumPy's order, NaNs last as
    ``[R + Rj, R + nanj, nan + Rj, nan + nanj]`` (JAX's puts ``R + nanj`` among the numbers)."""
    if a.dtype.kind != "c":
        return jnp.sort(a, axis=axis, **kwargs)
    return _complex_sorted(a, axis, a)


def _argsort(a, axis=-1, **kwargs):
    if a.dtype.kind != "c":
        return jnp.argsort(a, axis=axis, **kwargs)
    return _complex_sorted(a, axis, None)


def _complex_sorted(a, axis, values):
    """``values`` (else the positions along ``axis``) ordered as NumPy orders complex ``a``: by
    a NaN real part, a NaN imaginary part, then real and imaginary parts (stable)."""
    if axis is None:
        a, values, axis = a.reshape(-1), None if values is None else values.reshape(-1), 0
    axis = axis % a.ndim
    re, im = lax.real(a), lax.imag(a)
    re_nan, im_nan = jnp.isnan(re), jnp.isnan(im)
    keys = (re_nan, im_nan, jnp.where(re_nan, 0, re), jnp.where(im_nan, 0, im))
    carried = lax.broadcasted_iota(np.int64, a.shape, axis) if values is None else values
    return lax.sort((*keys, carried), dimension=axis, is_stable=True, num_keys=4)[-1]


# --- the generic op: jax.numpy.<name> ----------------------------------------------------


def _interp(x, xp, fp, left=None, right=None, period=None):
    """NumPy's ``interp``, which jax.numpy's differs from where ``xp`` repeats a value (NumPy takes
    the last of equal points, and ``fp[-1]`` at the end) and in rounding: NumPy's slope times
    the offset from the left point, with its fallbacks where that is NaN; complex ``fp`` by parts."""
    x, xp, fp = jnp.asarray(x, np.float64), jnp.asarray(xp, np.float64), jnp.asarray(fp)  # NB: a number x too
    if period is not None:
        period = jnp.abs(period)
        x, xp = x % period, xp % period
        order = jnp.argsort(xp, stable=True)
        xp, fp = xp[order], fp[order]
        xp = jnp.concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = jnp.concatenate([fp[-1:], fp, fp[:1]])
        left = right = None
    n = xp.shape[0]
    if n == 1:  # NB: NumPy's own case: a NaN x gets fp[0]
        v = jnp.broadcast_to(fp[0], x.shape)
    elif fp.dtype.kind == "c":
        v = lax.complex(*(_interp_between(x, xp, part(fp), by_inverse=True) for part in (lax.real, lax.imag)))
    else:
        v = _interp_between(x, xp, fp)
    v = jnp.where(x < xp[0], fp[0] if left is None else left, v)
    v = jnp.where(x > xp[-1], fp[-1] if right is None else right, v)
    return v if n == 1 else jnp.where(jnp.isnan(x), x.astype(v.dtype), v)


def _interp_between(x, xp, fp, by_inverse: bool = False):
    """``fp`` at ``x`` between its points; ``by_inverse``: the slope a product with the inverse
    of the step, as NumPy's complex loop computes both parts' slopes (its real loop divides)."""
    j = jnp.searchsorted(xp, x, side="right") - 1  # NB: the last point at or below x
    k = jnp.clip(j, 0, xp.shape[0] - 2)
    x0, x1, y0, y1 = xp[k], xp[k + 1], fp[k], fp[k + 1]
    slope = (y1 - y0) * (1.0 / (x1 - x0)) if by_inverse else (y1 - y0) / (x1 - x0)
    # NB: NumPy's C loop rounds the product (XLA contracted it with the sum: an ulp off, fma or not)
    v = rounded(slope * (x - x0)) + y0
    v = jnp.where(jnp.isnan(v), rounded(slope * (x - x1)) + y1, v)
    v = jnp.where(jnp.isnan(v) & (y0 == y1), y0, v)
    hit = jnp.clip(j, 0, xp.shape[0] - 1)
    return jnp.where((j == xp.shape[0] - 1) | (xp[hit] == x), fp[hit], v)


def _vander(x, N=None, increasing=False):
    """NumPy's ``vander``: of integers the powers as a running product, wrapping as NumPy's do
    (jax.numpy's integer powers look at the exponent's low 6 bits only, see `_power`)."""
    if x.dtype.kind not in "iu":
        return jnp.vander(x, N, increasing)
    n = x.shape[0]
    N = n if N is None else N
    powers = jnp.concatenate([jnp.ones((n, min(N, 1)), x.dtype), jnp.broadcast_to(x[:, None], (n, max(N - 1, 0)))],
                             axis=1)
    v = lax.cumprod(powers, axis=1)
    return v if increasing else v[:, ::-1]


def _select(condlist, choicelist, default=0):
    """np.select as a chain of selects, the first true condition's choice winning: jax.numpy's
    finds it with an argmax whose int64 index, traced under elena_jax's 64-bit scope, an outer
    jax.jit with 64-bit mode off then lowered as int32 (a verifier error)."""
    out = default
    for condition, choice in reversed(list(zip(condlist, choicelist))):
        out = jnp.where(condition, choice, out)
    return jnp.asarray(out)


# Functions computed here by NumPy's algorithm where jax.numpy's gives other answers (or fails).
NUMPY_ALGORITHMS = {"interp": _interp, "vander": _vander, "sort": _sort, "argsort": _argsort, "select": _select}


def resolve(name: str):
    if name in NUMPY_ALGORITHMS:
        return NUMPY_ALGORITHMS[name]
    fn = jnp
    for part in name.split("."):
        fn = getattr(fn, part)
    return fn


def rebuild(template, operands):
    """The call's arguments with the marked operands filled in."""

    def fill(t):
        if t[0] == "arr":
            return operands[t[1]]
        if t[0] == "seq":
            seq = [fill(x) for x in t[2]]
            return tuple(seq) if t[1] == "tuple" else seq
        return t[1]

    args, kwargs = template
    return [fill(a) for a in args], {k: fill(v) for k, v in kwargs}


@rule("jnp")
def jnp_call(ins, outs, name, template, multiple=None):
    args, kwargs = rebuild(template, [jnp.asarray(x) for x in ins])
    if name in ("nanargmax", "nanargmin"):  # NB: jax.numpy's use lax's argmax (see `_first`)
        x, axis, keepdims = args[0], kwargs.get("axis"), kwargs.get("keepdims", False)
        nan = jnp.isnan(x)
        r = _first(name[3:], jnp.where(nan, -jnp.inf if name == "nanargmax" else jnp.inf, x), axis, keepdims)
        return [jnp.where(jnp.all(nan, axis=axis, keepdims=keepdims), -1, r)]  # NB: jax.numpy's -1 there
    res = resolve(name)(*args, **kwargs)
    res = list(res) if isinstance(res, (tuple, list)) else [res]
    return [cast(r, d) for r, (_, d) in zip(res, outs)]


@rule("reinterpret")
def reinterpret(ins, outs, kind):
    """A view in another type (Trace.reinterpret): a complex value's part, or its bytes."""
    (shape, dtype), = outs
    if kind == "real":
        return [jnp.real(ins[0])]
    if kind == "imag":
        return [jnp.imag(ins[0])]
    return [_bytes_as(ins[0], dtype).reshape(shape)]


@rule("reinterpret_back")
def reinterpret_back(ins, outs, kind):
    """The base value after a write to its view in another type (``ins``: that view's value,
    then the base's)."""
    x, base = ins
    if kind == "real":
        return [lax.complex(x, jnp.imag(base))]
    if kind == "imag":
        return [lax.complex(jnp.real(base), x)]
    (shape, dtype), = outs
    return [_bytes_as(x, dtype).reshape(shape)]


def _bytes_as(x, dtype: np.dtype):
    """The bytes of ``x`` read as ``dtype``, the last axis rescaled (NumPy's ``view(dtype)``).
    NB: XLA bitcasts neither bools (a NumPy bool is the byte 0 or 1) nor complex numbers
    (here pairs of floats)."""
    x = jnp.asarray(x)
    lead = x.shape[:-1]

    def row(y, *group):  # NB: explicit sizes: the lead axes may be empty
        n = math.prod(y.shape[len(lead):])
        return y.reshape(*lead, n // math.prod(group), *group)

    if x.dtype.kind == "c":
        x = jnp.stack([x.real, x.imag], -1)
    x = row(x.astype(np.uint8) if x.dtype == np.bool_ else x)
    to = np.dtype(np.uint8) if dtype == np.bool_ else np.finfo(dtype).dtype if dtype.kind == "c" else dtype
    ratio = to.itemsize // x.dtype.itemsize
    y = row(lax.bitcast_convert_type(row(x, ratio) if ratio > 1 else x, to))
    if dtype.kind == "c":
        y = row(y, 2)
        return lax.complex(y[..., 0], y[..., 1])
    return y != 0 if dtype == np.bool_ else y


# --- ops made by the passes ---------------------------------------------------------------

# The ops whose lanes are stacked off the CPU rather than selected: an assemble of one value per
# lane, a select_lanes of computed columns (every input one lane wide), a select_lanes of values
# (an input as wide as the result). XLA:CPU fuses a select of every lane at every element into one
# loop, where stacking was 1.3-1.7x slower for the box programs (session 27). XLA:GPU evaluates a
# select's computed lanes everywhere, so it wrote them out first (xyxy_xywh: 46 MiB of temporaries
# at 1e6 rows, gen_base_anchors 8.6); stacked, each is computed where it is placed. But a stack is
# a kernel's root there, which no later operation fuses with: lanes read from an argument stay
# selected (delta2bbox: 5 kernels and 0.151 ms stacked, 7 and 0.122 selected; docs/design.md, "On
# a GPU"). bench.hiding measures the selects on a GPU by taking kinds out.
STACKED_OFF_CPU = {"assemble", "computed_columns", "lanes_of_values"}


@rule("assemble")
def assemble(ins, outs, views, covering, materialize=False, slices=False, stack=False):
    """Coalesced writes: every value placed into its view, one fused select
    (or, with ``slices``, update slices where memory.write can use them; with
    ``stack``, the interleaved lanes of the storage stacked in lane order: on every
    backend with ``True``, off the CPU only with ``"off_cpu"``).

    With ``materialize``, the result is computed once into memory on the CPU:
    later partial reads would otherwise re-evaluate the select chain per element
    (a GPU program fuses as XLA decides: a barrier there ends a kernel).
    """
    (shape, dtype), = outs
    order = sorted(range(len(views)), key=lambda k: views[k].offset)

    def stacked(ins: tuple):
        x = jnp.stack([memory.fit_value(ins[k], dtype, views[k].shape) for k in order], axis=-1)
        if not covering:  # NB: one placement of all lanes: each lane placed on its own was padded apart
            x = memory.place(jnp.asarray(ins[-1]).reshape(-1), V.lane_view([views[k] for k in order]), shape, x)
        return x.reshape(shape)

    def placed(ins: tuple):
        x = jnp.zeros(int(np.prod(shape)), dtype) if covering else jnp.asarray(ins[-1]).reshape(-1)
        put = memory.write if slices else memory.place
        for u, v in zip(ins, views):
            x = put(x, v, shape, u)
        return x.reshape(shape)

    ins = tuple(ins)
    if stack == "off_cpu":
        x = per_backend(ins, placed, stacked) if "assemble" in STACKED_OFF_CPU else placed(ins)
    else:
        x = stacked(ins) if stack else placed(ins)
    return [apart_on_cpu(x) if materialize else x]


@rule("materialize")
def materialize(ins, outs):
    """The value as it is, computed once into memory (see passes/materialize.py)."""
    return [computed_once(ins[0])]


@rule("select_lanes")
def select_lanes(ins, outs, lanes, stored=False):
    """Lane k of the result is lane k of ``ins[lanes[k]]`` (an input of one lane is
    broadcast): on the CPU selects against lane masks made of iota comparisons, which XLA
    fuses; elsewhere the lanes stacked in order, unless all are ``stored`` (read from
    arguments; see `STACKED_OFF_CPU`).

    NB: masks as constant lane vectors compile to the same single fusion but run 1.8x slower
    on an AVX-512 CPU (bbox2delta at 1e6: 15.1 ms against 8.5 ms): XLA loads a vector
    constant per element where it folds an iota comparison into the loop.
    """
    (shape, dtype), = outs

    def selected(ins: tuple):
        lane = memory.iota(shape, len(shape) - 1)
        x = jnp.broadcast_to(cast(ins[lanes[-1]], dtype), shape)
        for g in dict.fromkeys(lanes):
            if g != lanes[-1]:
                mask = functools.reduce(operator.or_, [lane == k for k, h in enumerate(lanes) if h == g])
                x = memory.select(mask, jnp.broadcast_to(cast(ins[g], dtype), shape), x)
        return x

    def stacked(ins: tuple):
        return jnp.stack([jnp.broadcast_to(cast(ins[g], dtype), shape)[..., k] for k, g in enumerate(lanes)], axis=-1)

    ins = tuple(ins)
    kind = "computed_columns" if all(np.shape(x)[-1:] in ((), (1,)) for x in ins) else "lanes_of_values"
    return [per_backend(ins, selected, stacked) if not stored and kind in STACKED_OFF_CPU else selected(ins)]
