"""Reads and writes of views as functional operations on a storage value.

A storage's value is a flat JAX array. Reading a View that is a Box (see
view.box) is reshape + strided ``lax.slice`` + transpose + reverse +
broadcast: no gather. Writing a small Box with unit steps is one
``lax.dynamic_update_slice`` of the storage; a Box with steps, or one that
covers most of the storage, is a ``lax.pad`` (or a broadcast, for lanes) and
a ``select`` against a constant mask (no scatter); a scalar needs no pad. Views that are not
boxes (self-overlapping ``as_strided`` and ``sliding_window_view`` results) are read as the boxes
of their slices along a short axis, stacked (a window's W shifted slices), else gathered; they
are written by a scatter. Their indices are computed from iotas in the program, never embedded
as a constant (a million windows of 20 embedded 160 MB of them). ``update_box``, ``align``,
``spread`` and ``select_box`` lay operands over a whole storage for the lowering's in-place updates.

Invariant: ``read(write(x, v, u), v) == broadcast(u)`` and elements outside
``v`` are unchanged, for every View ``v`` of the storage.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import view as V
from .opaque import in_64_bits


def _box(flat, v: V.View, shape):
    return V.box(v, flat.shape[0], V.contiguous(shape).strides)


def read(flat, v: V.View, shape: tuple[int, ...]):
    """The elements of ``v`` from the flat value of a storage of ``shape``."""
    if v.size == 0:
        return jnp.zeros(v.shape, flat.dtype)
    if v.size == flat.shape[0] and V.is_c_contiguous(v):
        return flat.reshape(v.shape)
    b = _box(flat, v, shape)
    if b is None:
        return _overlapping(flat, v, shape)
    x = _window(flat, b).reshape(b.dims)
    if b.starts != (0,) * len(b.dims) or b.limits != b.dims or not b.unit_steps:
        x = lax.slice(x, b.starts, b.limits, b.steps)
    x = x.reshape([v.shape[i] for i in b.kept])
    x = lax.transpose(x, b.perm)
    in_order = [i for i in range(v.ndim) if i in b.kept]
    if b.flipped:
        x = lax.rev(x, [in_order.index(i) for i in b.flipped])
    x = x.reshape([v.shape[i] if i in b.kept else 1 for i in range(v.ndim)])
    return jnp.broadcast_to(x, v.shape)


def write(flat, v: V.View, shape: tuple[int, ...], value):
    """The storage value after writing ``value`` (broadcast to ``v``) into ``v``."""
    given, value = value, fit_value(value, flat.dtype, v.shape)
    if v.size == 0:
        return flat
    if v.size == flat.shape[0] and V.is_c_contiguous(v):
        return value.reshape(-1)
    b = _box(flat, v, shape)
    if b is None or b.broadcast:
        return flat.at[indices(v, flat.shape[0])].set(value, mode="promise_in_bounds", wrap_negative_indices=False)
    # NB: XLA:CPU (jaxlib 0.10.2) miscompiled an in-place dynamic_update_slice of a buffer
    # reshaped to other dims while a pre-update read of it was pending (tests/test_lower.py has
    # the repro); and for most of the buffer, a dynamic_update_slice whose value reads the old
    # buffer makes XLA copy it first, where one select is one fused pass (Jacobi at 1e6: 2.3x).
    if V.placed(v, shape):
        return place(flat, v, shape, given)
    u = _to_box(b, v, value)
    return lax.dynamic_update_slice(flat.reshape(b.dims), u, _starts(b, flat.shape[0])).reshape(-1)


# A view without a box is read as the boxes of its slices along an axis of at most this many
# elements, stacked: sliding_window_view(x, 20) of a million floats as 20 shifted slices, 31 ms
# for its mean and max, where its gather took 198 ms (a performance campaign's find, session 24).
_STACKED = 32


def _overlapping(flat, v: V.View, shape: tuple[int, ...]):
    """The elements of ``v``, a view without a box: its slices along the shortest axis whose
    slices all have one, stacked, else a gather."""
    n = flat.shape[0]
    for k in sorted(range(v.ndim), key=lambda k: v.shape[k]):
        if v.shape[k] > _STACKED:
            break
        slices = [_slice(v, k, j) for j in range(v.shape[k])]
        if all(_box(flat, s, shape) is not None for s in slices):
            return jnp.stack([read(flat, s, shape) for s in slices], axis=k)
    return flat.at[indices(v, n)].get(mode="promise_in_bounds", wrap_negative_indices=False)


def _slice(v: V.View, axis: int, j: int) -> V.View:
    """``v`` at element ``j`` of ``axis`` (the axis dropped)."""
    shape, strides = list(v.shape), list(v.strides)
    del shape[axis], strides[axis]
    return V.View.make(shape, strides, v.offset + j * v.strides[axis])


def indices(v: V.View, size: int):
    """The storage index of every element of ``v`` (of a storage of ``size`` elements), in the
    view's shape: computed from iotas, which XLA fuses into the gather or scatter reading them."""
    dtype = index_dtype(size)
    flat = jnp.full(v.shape, v.offset, dtype)
    for axis, stride in enumerate(v.strides):
        if stride and v.shape[axis] > 1:
            flat = flat + iota(v.shape, axis).astype(dtype) * dtype.type(stride)
    return flat


def _starts(b: V.Box, size: int) -> list:
    """The box's starts as index operands of a storage of ``size`` elements (see `index_dtype`)."""
    index = index_dtype(size)
    return [index.type(s) for s in b.starts]


def index_dtype(size: int) -> np.dtype:
    """int32 for indices into ``size`` elements where it fits, else int64.

    NB: Python ints and NumPy's intp are int64 under the lowering's enable_x64, and JAX
    transposes and batches gathers, scatters and slices outside it (grad, vmap of grad,
    hessian), where int64 indices met int32 bounds: lax.clamp refused them with x64 off."""
    return np.dtype(np.int32 if size < 2**31 else np.int64)


def as_index(i, size: int):
    """The integer index array ``i`` into ``size`` elements, of `index_dtype`: a wider one is
    clipped first, so an index out of range stays out of range (NB: not wrapped into it)."""
    dtype = index_dtype(size)
    if i.dtype.itemsize <= dtype.itemsize:
        return i.astype(dtype)
    return jnp.clip(i, 0 if i.dtype.kind == "u" else -size - 1, size).astype(dtype)


def place(flat, v: V.View, shape: tuple[int, ...], value):
    """As ``write``, as one elementwise select over the whole storage.

    Several placements of disjoint views fuse into one pass over memory,
    where a chain of dynamic_update_slices is one pass per write.
    """
    b = _box(flat, v, shape)
    if v.size == 0 or b is None or b.broadcast:
        return write(flat, v, shape, value)
    # NB: a box over a window of the storage in other dims is padded flat and reshaped back, which
    # XLA:CPU indexes by division per element wherever a reader fuses it: the odd rows of a 2x
    # upsample, out[1::2, :] of (999, 999), took 16 ms as (499, 2, 999) over 997,002 elements.
    if b.length != flat.shape[0] and (own := V.own_box(v, shape)) is not None:
        b = own
    if len(b.dims) == 1 and not b.unit_steps and (d := V.diagonal_of_rows(v, shape)) is not None:
        return _place_diagonal(flat, v, shape, d, value)
    if jnp.ndim(value) == 0:  # NB: one value everywhere needs no padding into place (`valid[:w] = True`)
        every = jnp.broadcast_to(fit_value(value, flat.dtype, ()), flat.shape)
        return select(_mask_flat(b, flat.shape[0]), every, flat)
    u = _to_box(b, v, fit_value(value, flat.dtype, v.shape))
    n = flat.shape[0]
    if b.length == n:  # lanes: no pad, one select per lane, all fused by XLA
        x = flat.reshape(b.dims)
        for piece, lane in _lanes(b, u):
            x = select(_mask(piece), _spread(piece, lane), x)
        return x.reshape(-1)
    outer = [(b.window, n - b.window - b.length, 0)]
    spread = lax.pad(_spread(b, u).reshape(-1), jnp.zeros((), flat.dtype), outer)
    return select(_mask_flat(b, n), spread, flat)


def _place_diagonal(flat, v: V.View, shape: tuple[int, ...], diagonal: tuple[int, int, int], value):
    """`place` for a (anti-)diagonal ``v`` of the storage's rows (see view.diagonal_of_rows), by a mask
    of the rows' iotas: its flat box's mask, an element's remainder by the stride, was computed
    into memory by XLA (8 MB for np.fill_diagonal of a 1000 x 1000 array), and the readers of
    the written array waited for it (an n-body step 1.5x the hand form)."""
    row, column, step = diagonal
    n, dims = v.shape[0], (flat.shape[0] // shape[-1], shape[-1])
    i, j = iota(dims, 0), iota(dims, 1)
    mask = (j - step * i == column - step * row) & (i >= row) & (i < row + n)
    if jnp.ndim(value) == 0:
        spread = jnp.broadcast_to(fit_value(value, flat.dtype, ()), dims)
    else:
        u = fit_value(value, flat.dtype, v.shape)
        u = lax.rev(u, (0,)) if v.strides[0] < 0 else u
        u = lax.pad(u, jnp.zeros((), flat.dtype), [(row, dims[0] - row - n, 0)])
        spread = jnp.broadcast_to(u[:, None], dims)
    return select(mask, spread, flat.reshape(dims)).reshape(-1)


def _mask_flat(b: V.Box, n: int):
    """The box's mask over a flat storage of ``n`` elements."""
    mask = _mask(b).reshape(-1)
    return mask if b.length == n else lax.pad(mask, False, [(b.window, n - b.window - b.length, 0)])


def update_box(v: V.View, shape: tuple[int, ...]) -> V.Box | None:
    """The box of ``v`` when an elementwise update of ``v`` is best computed over the whole storage.

    That is when ``v`` is at least half of the storage and a `plain_box` of it. The op then
    runs on whole-storage operands (see `align` and `spread`; the updated view itself is the
    storage value as it is) and `select_box` keeps its elements: a chain of in-place updates
    (``acc[1:] += x[:-1]; acc[:-1] += x[1:]``) fuses into one pass, where slicing the
    storage, updating and padding it back was one pass per update (box_blur at 1e6: 2x).
    """
    n = math.prod(shape)
    return plain_box(v, shape) if n <= 2 * v.size < 2 * n else None


def plain_box(v: V.View, shape: tuple[int, ...]) -> V.Box | None:
    """The box of ``v`` if it is a slice of the storage in the storage's own axes and order."""
    b = V.box(v, math.prod(shape), V.contiguous(shape).strides)
    if b is None or b.dims != tuple(shape) or b.broadcast or b.flipped or len(b.kept) != v.ndim:
        return None
    return b if b.perm == tuple(range(v.ndim)) else None


def alignable(src: V.Box, b: V.Box) -> bool:
    """Whether `align` applies: the plain boxes slice the same dims alike, up to a shift."""
    return (src.dims, src.steps, _counts(src)) == (b.dims, b.steps, _counts(b))


def align(flat, src: V.Box, b: V.Box, argument: bool):
    """A storage of ``b.dims`` (``flat``) shifted so that box ``src``'s elements lie on box ``b``'s.

    The other elements are don't-care. An argument's value is padded the same on both
    sides and sliced: its shifts by -k and +k share one padded copy, which XLA materializes
    (the hand-written ``jnp.pad`` stencil). A computed value is sliced and padded back, which
    XLA fuses into its consumer, recomputing the value instead of storing it.
    """
    x = flat.reshape(b.dims)
    shifts = [lo - at for lo, at in zip(src.starts, b.starts)]
    if argument:
        x = lax.pad(x, jnp.zeros((), x.dtype), [(abs(k), abs(k), 0) for k in shifts])
        return lax.slice(x, [abs(k) + k for k in shifts], [abs(k) + k + d for k, d in zip(shifts, b.dims)])
    for axis, (k, d) in enumerate(zip(shifts, b.dims)):
        if k:
            part = lax.slice_in_dim(x, max(k, 0), d + min(k, 0), axis=axis)
            config = [(0, 0, 0)] * len(b.dims)
            config[axis] = (max(-k, 0), max(k, 0), 0)
            x = lax.pad(part, jnp.zeros((), x.dtype), config)
    return x


def spread(b: V.Box, v: V.View, value):
    """``value``, broadcast to the view ``v`` of box ``b``, laid out over the whole storage."""
    return _spread(b, _to_box(b, v, jnp.broadcast_to(value, v.shape)))


def select_box(x, b: V.Box, value):
    """``x`` (the storage, shaped as ``b.dims``) with ``value``'s elements in the box, flat."""
    return select(_mask(b), value, x).reshape(-1)


# Storages smaller than this are written whole, not in lanes: XLA compiles each lane's select on
# its own, and a loop writing the interior of a 15 x 16 grid six times took 2.7 s to compile in
# lanes of its 13 rows (0.2 s whole; an acceptance campaign's find), for no faster run.
_LANES_FROM = 4096


def _lanes(b: V.Box, u, limit: int = 16):
    """Split ``u`` into single lanes along the short axes it covers in part.

    ``[:, 0:2]`` of an (N, 4) storage becomes lanes 0 and 1, each placed by a
    broadcast and an iota mask: XLA fuses those, where a pad is materialized.
    """
    pieces = [(b, u)]
    if b.length < _LANES_FROM:
        return pieces
    for axis, d in enumerate(b.dims):
        n = u.shape[axis]
        if not 1 < n < d or n * len(pieces) > limit:
            continue
        split = []
        for box, piece in pieces:
            for k in range(n):
                lo = box.starts[axis] + k * box.steps[axis]
                one = dataclasses.replace(
                    box, starts=_put(box.starts, axis, lo), limits=_put(box.limits, axis, lo + 1),
                    steps=_put(box.steps, axis, 1))
                split.append((one, lax.slice_in_dim(piece, k, k + 1, axis=axis)))
        pieces = split
    return pieces


def _put(t: tuple, i: int, value) -> tuple:
    return t[:i] + (value,) + t[i + 1 :]


# NB: NumPy's float -> int casts on x86 go through the CPU's truncating conversion to int32 (for
# integers of up to 32 bits, then wrapped to the width) or int64, which gives the minimum integer
# for NaN and out-of-range values; XLA saturates instead (uint8(300.7) is 44 in NumPy, 255 in XLA).
# uint32 goes through int64 (2**32 + 5 is 5, NaN 0), as NumPy's scalar loop: its vectorized loop
# (runs of 4 contiguous elements) gives 0x80000000 for NaN and values below -2**31, 0 from 2**32.
# uint64 is C's cast on x86 (see _unsigned), which both loops compute.
_VIA = {np.dtype(t): np.dtype(np.int64 if t in (np.int64, np.uint32) else np.int32)
        for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64)}


def cast(x, dtype):
    """``x`` as a JAX value of ``dtype``, converted as NumPy converts (no op when it already is).

    NB: lax converts a complex value to bool by its real part; NumPy's ``bool(1j)`` is True."""
    x = jnp.asarray(x)
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    if x.dtype.kind == "c" and dtype == np.bool_:
        return x != 0
    if dtype == np.float16 and x.dtype in (np.float64, np.complex128):
        return _to_float16(lax.real(x) if x.dtype.kind == "c" else x)
    if x.dtype.kind == "f" and dtype.kind in "iu":
        t = jnp.trunc(x.astype(np.promote_types(x.dtype, np.float32)))  # NB: float16 cannot hold int32's min
        if dtype == np.uint64:
            return _unsigned(t, dtype)
        x = _signed(t, _VIA[dtype])
    return converted(x, dtype)


def converted(x, dtype):
    """``x`` converted to ``dtype``; a value rounded to a float type kept rounded on every backend.

    NB: XLA:GPU (its excess precision, on by default) drops a rounding convert that a widening
    one follows: float64 -> float16 -> float32 became float64 -> float32, int32 2049 -> float16
    -> float32 was 2049.0, never rounded to float16 (float16 loops, float16 sums and rounding to
    odd gave other values than NumPy's on an H200). A ``reduce_precision`` to the float type's own
    format, an identity XLA keeps, stands between."""
    dtype = np.dtype(dtype)
    y = lax.convert_element_type(x, dtype)  # NB: complex to real warns as NumPy does (ComplexWarning)
    if _rounds(x.dtype, dtype):
        info = jnp.finfo(dtype)
        y = lax.reduce_precision(y, exponent_bits=info.nexp, mantissa_bits=info.nmant)
    return y


def _rounds(src: np.dtype, dtype: np.dtype) -> bool:
    """Whether converting ``src`` values to the float ``dtype`` can round them: from a wider float
    (a complex one's real part too), or from integers with more bits than its significand."""
    if dtype.kind != "f":
        return False
    if src.kind == "c":  # NB: complex to real converts the real part
        src = np.finfo(src).dtype
    if src.kind == "f":
        return dtype.itemsize < src.itemsize
    return src.kind in "iu" and np.iinfo(src).bits - (src.kind == "i") > np.finfo(dtype).nmant + 1


@jax.custom_jvp
def _to_float16(x):
    """float64 ``x`` as float16, rounded once as NumPy rounds."""
    return converted(_float32_rounded_to_odd(x), np.float16)


@_to_float16.defjvp
@in_64_bits
def _to_float16_jvp(primals: tuple, tangents: tuple) -> tuple:
    """The tangent converted, as a conversion's. NB: the bitcasts and integer ops of the rounding
    carry no derivative: grad of ``(x.astype(np.float16) * 3).sum()`` was [0, 0, 0], jax.numpy's
    [3, 3, 3] (an acceptance campaign's find, session 22)."""
    (x,), (t,) = primals, tangents
    return _to_float16(x), lax.convert_element_type(t, np.float16)


def _float32_rounded_to_odd(x):
    """float64 ``x`` as float32 rounded to odd (truncated, the last bit set where inexact), so that
    rounding it to float16 is the one correct rounding of ``x`` (float32 has more than float16's
    11 bits + 2). NB: XLA converts float64 to float16 through float32 rounded to nearest, which
    rounds twice: 0.500244140625 * (1 + 2**-40) became float16's 0.5, NumPy's is 0.50048828125."""
    y = converted(x, np.float32)
    near = y.astype(x.dtype)
    bits = lax.bitcast_convert_type(y, np.uint32)
    bits = jnp.where(jnp.abs(near) > jnp.abs(x), bits - 1, bits)  # NB: sign and magnitude: one step to zero
    return lax.bitcast_convert_type(jnp.where(near != x, bits | 1, bits), np.float32)  # NB: NaN stays NaN


def _signed(t, via: np.dtype):
    """Whole floats ``t`` as the CPU converts them to the signed ``via``: its minimum for NaN and
    values out of its range."""
    lo = float(np.iinfo(via).min)
    return lax.convert_element_type(jnp.where((t >= lo) & (t < -lo), t, lo), via)  # NB: False for NaN


def _unsigned(t, dtype: np.dtype):
    """Whole floats ``t`` as an unsigned type by C's cast on x86: below half the range the signed
    conversion, from there that of ``t - half`` with the top bit set again. So 2**64 and inf
    give 0, -1 gives 2**64 - 1, NaN and -inf 2**63 (as uint64); XLA saturates (2**64 - 1, 0, 0).
    Found by the fuzzer: ``np.add.at`` of a uint64 view adds in float64 and casts back."""
    signed = np.dtype(f"i{dtype.itemsize}")
    half = -float(np.iinfo(signed).min)
    top = t >= half  # NB: False for NaN
    bits = lax.bitcast_convert_type(_signed(jnp.where(top, t - half, t), signed), dtype)
    return jnp.where(top, lax.bitwise_xor(bits, np.array(2 ** (8 * dtype.itemsize - 1), dtype)), bits)


def fit_value(value, dtype, shape):
    """``value`` cast and broadcast as NumPy's assignment does."""
    value = cast(value, dtype)
    if value.ndim > len(shape):  # NB: NumPy drops the value's extra leading unit axes
        value = value.reshape(value.shape[value.ndim - len(shape) :])
    return value if value.shape == shape else jnp.broadcast_to(value, shape)


def _to_box(b: V.Box, v: V.View, value):
    """``value`` (in the view's shape) laid out as the box's slice."""
    in_order = [i for i in range(v.ndim) if i in b.kept]
    u = value.reshape([v.shape[i] for i in in_order])
    if b.flipped:
        u = lax.rev(u, [in_order.index(i) for i in b.flipped])
    u = lax.transpose(u, np.argsort(b.perm))
    return u.reshape(_counts(b))


def _counts(b: V.Box) -> list[int]:
    """The box's slice shape: elements along each of its dims."""
    return [(hi - lo + st - 1) // st for lo, hi, st in zip(b.starts, b.limits, b.steps)]


def iota(shape: tuple[int, ...], axis: int):
    """Indices along ``axis``, as wide as XLA:CPU's loop indices (int64 under x64): an int32
    iota compares after a conversion per element (valid_flags' loop ran 12-15% slower)."""
    return lax.broadcasted_iota(jax.dtypes.canonicalize_dtype(np.int64), shape, axis)


def select(mask, on_true, on_false):
    """``lax.select(mask, on_true, on_false)``; of 1- and 2-byte integers, as bits.

    NB: XLA:CPU (jaxlib 0.10.2) runs a select of uint8/int16 against a mask varying along the
    last axis 3-6x slower than the same blend in bits, ``f ^ ((f ^ t) & -mask)``: a 3x3 erosion of
    a 1000 x 1000 uint8 image by in-place ``np.minimum(..., out=view)`` took 3.6 ms, now 0.5
    (hand ``jnp.pad`` form 1.2, NumPy 0.8); the iotas' width was not it (int32: the same).
    4- and 8-byte types and bool run no faster in bits (float32, float64, bool: within noise).
    """
    dtype = on_false.dtype
    if dtype.kind not in "iu" or dtype.itemsize > 2:
        return lax.select(mask, on_true, on_false)
    return on_false ^ ((on_false ^ on_true) & lax.neg(mask.astype(dtype)))


def _mask(b: V.Box):
    """Where the box's elements lie in its dims: comparisons of iotas, which XLA fuses into
    the select, so no mask array is materialized."""
    mask = None
    for axis, (lo, hi, st, d, n) in enumerate(zip(b.starts, b.limits, b.steps, b.dims, _counts(b))):
        if n == d:
            continue
        i = iota(b.dims, axis)
        if n == 1:
            cond = i == lo
        else:
            cond = (i >= lo) & (i < hi) & ((i - lo) % st == 0) if st > 1 else (i >= lo) & (i < hi)
        mask = cond if mask is None else mask & cond
    return jnp.ones(b.dims, bool) if mask is None else mask


def _spread(b: V.Box, u):
    """``u`` (the box's slice) laid out over the box's dims; what lies outside is don't-care.

    Axes the slice covers whole stay as they are; axes it touches once (a
    "lane", like column k of ``[:, k::4]``) are broadcast, other axes padded:
    the interleaved layout is kept.
    """
    config = [(0, 0, 0) if n in (1, d) else (lo, d - hi, st - 1)
              for lo, hi, st, d, n in zip(b.starts, b.limits, b.steps, b.dims, _counts(b))]
    if any(c != (0, 0, 0) for c in config):
        u = lax.pad(u, jnp.zeros((), u.dtype), config)
    return jnp.broadcast_to(u, b.dims)


def _window(flat, b: V.Box):
    if b.length == flat.shape[0]:
        return flat
    return lax.slice(flat, (b.window,), (b.window + b.length,))
