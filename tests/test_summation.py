"""NumPy's summation order (elena_jax/lower/summation.py): float sums bit for bit.

NumPy adds a run of elements pairwise, in 8 lanes per block of up to 128, and the terms of
a reduction over an outer axis one after another; XLA's reduce adds in an order of its own,
and a sum of a thousand floats then differed from NumPy's in its last bits in most cases.
Every sum here is compared with NumPy's bit for bit.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import elena_jax
from elena_jax import view as V

LENGTHS = [1, 7, 8, 9, 127, 128, 129, 136, 255, 1000, 1001, 4096, 8193, 100003]


def data(shape, dtype, seed=0):
    """Values over many magnitudes, so that the order of additions shows in the last bits."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape) * 10.0 ** rng.integers(-4, 5, size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape) * 10.0 ** rng.integers(-4, 5, size=shape)
    return x.astype(dtype)


def assert_same_bits(got, want, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, what
    assert got.shape == want.shape, what
    assert got.tobytes() == want.tobytes(), f"{what}: {got} != {want}"


def check(f, *args, what="", **options):
    with np.errstate(over="ignore"):  # NB: float16 sums may overflow, to NumPy's inf
        want = f(*(np.copy(a) for a in args))
    got = elena_jax.functionalize(f, **options)(*(np.copy(a) for a in args))
    assert_same_bits(got, want, what)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.complex128, np.complex64])
@pytest.mark.parametrize("n", LENGTHS)
def test_a_run_sums_as_numpys(dtype, n):
    check(np.sum, data((n,), dtype), what="sum")
    check(lambda a: a.sum(), data((3, n), dtype, 1), what="whole 2-d")
    check(lambda a: np.add.reduce(a, axis=-1), data((3, n), dtype, 2), what="rows")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.complex128])
def test_sums_of_views_and_axes_as_numpys(dtype):
    a = data((60, 70, 9), dtype)
    forms = {
        "last_two_axes": lambda a: a.sum(axis=(1, 2)),
        "keepdims": lambda a: a.sum(axis=(1, 2), keepdims=True),
        "all_axes": lambda a: a.sum(),
        "transposed": lambda a: a.T.sum(axis=(0, 1)),
        "strided_run": lambda a: a[:, :, ::2].sum(axis=2),
        "reversed_run": lambda a: a[:, :, ::-1].sum(axis=2),
        "rows_of_a_slice": lambda a: a[5:50, 3:60].sum(axis=(1, 2)),
        "mean": lambda a: a.mean(axis=(1, 2)),
        "initial": lambda a: np.add.reduce(a, axis=2, initial=1.5),
        "of_a_result": lambda a: (a + 3).sum(axis=-1),
        "in_place_then_summed": lambda a: (np.multiply(a[:, :, 1:], 0.5, out=a[:, :, 1:]), a.sum(axis=(1, 2)))[1],
        "outer_axis": lambda a: a.sum(axis=0),
        "outer_axes": lambda a: np.add.reduce(a, axis=(0, 1), initial=-0.0),
        "middle_axis": lambda a: a.mean(axis=1, keepdims=True),
        "outer_of_transposed": lambda a: a.transpose(1, 0, 2).sum(axis=(0, 1)),
        "outer_masked": lambda a: np.sum(a, axis=0, where=a > 0),
        "outer_strided": lambda a: a[::-3, 1::2].sum(axis=(0, 1)),
    }
    for name, f in forms.items():
        check(f, a, what=name)
    # NB: XLA contracts a product into the sum it feeds (an FMA) unless fma=False
    check(lambda a: (a * 3).sum(axis=-1), a, what="products", fma=False)


def test_sums_through_numpys_cast_buffer_as_numpys():
    # NB: a sum in another type than its operand's is cast through NumPy's buffer of
    # np.getbufsize() elements, summed pairwise each and added up in turn
    big = data((3, 30001), np.float32)
    check(lambda a: a.sum(axis=1, dtype=np.float64), big, what="float32 in float64")
    check(lambda a: a.sum(dtype=np.float64), big, what="whole, float32 in float64")
    ints = np.random.default_rng(4).integers(-(2**62), 2**62, size=(2, 20000))
    check(lambda a: a.mean(axis=1), ints, what="mean of int64")
    check(lambda a: np.mean(a), data((20000,), np.float16), what="mean of float16")


def test_signs_of_zero_are_numpys():
    zeros = np.full((2, 200), -0.0)
    check(lambda a: a.sum(axis=1), zeros, what="0.0 + -0.0")
    check(lambda a: np.add.reduce(a, axis=1, initial=-0.0), zeros, what="initial -0.0")
    check(lambda a: a[:, :3].sum(axis=1), zeros, what="short run")
    check(lambda a: np.sum(a), np.array([-0.0, np.inf, np.nan, 1.0]), what="inf and nan")
    negative = np.full((3, 100), complex(-0.0, -0.0))
    for axis in (0, 1):  # NB: the steps that add -0.0 (padding, the last pair) keep both signs
        check(lambda a, axis=axis: np.add.reduce(a, axis=axis, initial=complex(-0.0, -0.0)), negative,
              what=f"complex {axis}")
        check(lambda a, axis=axis: np.add.reduce(a.T, axis=axis, initial=-0.0), negative.real.copy(),
              what=f"real {axis}")


RUNS = st.sampled_from([((0,), None), ((1,), None), ((0, 1), None), ((1, 2), None), ((2,), None), ((0, 2), None),
                        (None, None), ((1,), np.float64), ((2,), np.float32), ((0,), np.float64)])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(shape=st.tuples(*[st.integers(1, 40)] * 2, st.integers(1, 300)), run=RUNS,
       step=st.sampled_from([1, 2, -1, 3]), transpose=st.booleans(), dtype=st.sampled_from([np.float64, np.float32]))
def test_random_sums_are_numpys_where_numpys_order_is_known(shape, run, step, transpose, dtype):
    axes, sum_dtype = run
    a = data(shape, dtype, seed=sum(shape))
    view = a[:, ::step] if not transpose else a.transpose(2, 0, 1)[::step]

    def f(a):
        v = a[:, ::step] if not transpose else a.transpose(2, 0, 1)[::step]
        return v.sum(axis=axes, dtype=sum_dtype)

    want = f(a.copy())
    got = np.asarray(elena_jax.functionalize(f)(a.copy()))
    numpy_view = V.View.make(view.shape, view.strides)
    if V.summation(numpy_view, range(view.ndim) if axes is None else axes) is not None:
        assert_same_bits(got, want)
    else:  # NB: NumPy's iterator buffers or loops otherwise: XLA's order (design.md Known limits)
        scale = np.abs(view).sum(axis=axes, dtype=np.float64)  # NB: rounding grows with the magnitudes summed
        np.testing.assert_array_less(np.abs(got - want), (1e-5 if dtype == np.float32 else 1e-13) * scale + 1e-30)


def test_ordered_sums_under_grad_jit_and_vmap():
    a = data((5, 300), np.float32)  # NB: float32, as JAX's jit and vmap take NumPy's float64 without x64
    f = elena_jax.functionalize(lambda a: a.sum(axis=1))
    assert_same_bits(jax.jit(f)(a), a.sum(axis=1))
    assert_same_bits(jax.vmap(f)(np.stack([a, a[::-1]])), np.stack([a.sum(axis=1), a[::-1].sum(axis=1)]))
    g = jax.grad(lambda x: jnp.sum(elena_jax.functionalize(lambda a: (a * a).sum())(x)))(a)
    np.testing.assert_allclose(g, 2 * a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.bool_, np.complex128])
def test_variances_are_numpys_bit_for_bit_with_fma_off(dtype):
    # NB: NumPy's var is its mean, the deviations squared and their sum; the squares feed the
    # sum, which XLA contracts into FMAs unless fma=False (design.md "Sums in NumPy's order")
    a = data((40, 300), np.float64, seed=3)
    a = (a / 1000).astype(dtype) if dtype == np.float16 else a > 0 if dtype == np.bool_ else a.astype(dtype)
    forms = {
        "whole": lambda a: np.var(a),
        "rows": lambda a: a.var(axis=1),
        "columns": lambda a: a.var(axis=0),
        "std_ddof": lambda a: np.std(a, axis=1, ddof=1),
        "correction": lambda a: np.var(a, axis=-1, correction=2, keepdims=True),
        "given_mean": lambda a: np.var(a, axis=1, mean=np.mean(a, axis=1, keepdims=True)),
    }
    if dtype != np.complex128:  # NB: NumPy warns that a complex sum in float64 drops the imaginary part
        forms["in_float64"] = lambda a: np.std(a, axis=1, dtype=np.float64)
    for name, f in forms.items():
        check(f, a, what=name, fma=False)


def test_variances_elsewhere_and_their_errors():
    a = data((40, 300), np.float64, seed=5)
    for f in (lambda a: np.var(a[:, ::2]), lambda a: np.std(a, axis=1, where=a > 0), lambda a: a.std()):
        np.testing.assert_allclose(elena_jax.functionalize(f)(a.copy()), f(a.copy()), rtol=1e-12)
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously"):
        elena_jax.functionalize(lambda a: np.var(a, ddof=1, correction=1))(a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_running_sums_and_products_are_numpys(dtype):
    # NB: NumPy's accumulate loop adds one element after another; XLA's cumulative sum associated
    # otherwise (88% of the running sums of 1,000 float64 off in the last bits)
    a = data((6, 1000), dtype, seed=6)
    forms = {
        "cumsum_rows": lambda a: np.cumsum(a, axis=1),
        "cumsum_columns": lambda a: a.cumsum(axis=0),
        "cumsum_flat": lambda a: np.cumsum(a[:, ::3]),
        "short": lambda a: np.cumsum(a[:, :7], axis=1),
        "accumulate_reversed": lambda a: np.add.accumulate(a.T[::-1], axis=0),
        "subtract_accumulate": lambda a: np.subtract.accumulate(a, axis=1),
        "in_float64": lambda a: np.cumsum(a.real.astype(np.float32), axis=1, dtype=np.float64),
        "in_place": lambda a: np.cumsum(a[:, 1:], axis=1, out=a[:, :-1]),
        "negative_zeros": lambda a: np.cumsum(-np.zeros(3, a.dtype)),
        "a_negative_zero": lambda a: np.cumsum(-np.zeros(1, a.dtype)),
    }
    if dtype != np.complex128:  # NB: NumPy's complex accumulate multiplies without FMAs (Known limits)
        forms["cumprod"] = lambda a: np.cumprod(1 + a / 1e5, axis=1)
    for name, f in forms.items():
        check(f, a, what=name)


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int32])
def test_nan_sums_and_means_are_numpys(dtype):
    # NB: NumPy's nansum and nanmean sum a copy with the NaNs replaced by 0 (its _replace_nan)
    a = data((40, 300), np.float64, seed=7) / (1000 if dtype == np.float16 else 1)
    a[np.random.default_rng(8).random(a.shape) < 0.1] = np.nan
    a[3] = np.nan
    a = np.nan_to_num(a).astype(dtype) if dtype == np.int32 else a.astype(dtype)
    forms = {
        "whole": lambda a: np.nansum(a),
        "rows": lambda a: np.nansum(a, axis=1),
        "columns": lambda a: np.nansum(a, axis=0, keepdims=True),
        "strided": lambda a: np.nanmean(a[:, ::2]),
        "mean_rows": lambda a: np.nanmean(a, axis=1),
        "mean_columns": lambda a: np.nanmean(a, axis=0),
    }
    for name, f in forms.items():
        with np.errstate(invalid="ignore"):
            want = f(a.copy())
        got = elena_jax.functionalize(f)(a.copy())
        assert_same_bits(got, want, name)


def test_nanmean_refuses_exact_types_as_numpy():
    a = np.array([1.0, np.nan])
    for f in (lambda a: np.nanmean(a, dtype=np.int64), lambda a: np.nanmean(a, out=np.zeros((), np.int64))):
        with pytest.raises(TypeError, match="If a is inexact"):
            f(a)
        with pytest.raises(TypeError, match="If a is inexact"):
            elena_jax.functionalize(f)(a)
