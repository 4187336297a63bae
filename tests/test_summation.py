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
from marks import rotated, slow_beyond

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


def check_forms(forms: dict, *args, **options):
    """`check` of every form, all in one program (one compile, not one per form), each form on its
    own copies of the first of ``args`` it takes (a form may write into them)."""
    taken = [args[: f.__code__.co_argcount] for f in forms.values()]

    def every(*copies):
        it = iter(copies)
        return tuple(f(*(next(it) for _ in xs)) for f, xs in zip(forms.values(), taken))

    with np.errstate(over="ignore"):
        want = [f(*(np.copy(a) for a in xs)) for f, xs in zip(forms.values(), taken)]
    got = elena_jax.functionalize(every, **options)(*(np.copy(a) for xs in taken for a in xs))
    for name, g, w in zip(forms, got, want, strict=True):
        assert_same_bits(g, w, name)


@pytest.mark.parametrize("n, dtype",
                         rotated(LENGTHS, [np.float64, np.float32, np.complex128, np.float16, np.complex64]))
def test_a_run_sums_as_numpys(dtype, n):
    check(np.sum, data((n,), dtype), what="sum")
    check(lambda a: a.sum(), data((3, n), dtype, 1), what="whole 2-d")
    check(lambda a: np.add.reduce(a, axis=-1), data((3, n), dtype, 2), what="rows")


@pytest.mark.parametrize("n, dtype", rotated([1, 7, 9, 128, 129, 1000, 1024, 8193, 100003],
                                              [np.float64, np.float32, np.float16]))
def test_columns_summed_down_are_numpys(n, dtype):
    """A loop's column sums (``x[:, j].sum()``, joined into one reduction along the rows) are each
    column's pairwise sum, added down the rows a slab of all columns at a time (summation.down):
    the same additions as the transpose's rows, without reading the transpose a column at a
    time (100,000 x 20: 3.3 -> 0.9 ms)."""
    from elena_jax.lower import summation

    x = data((n, 20), dtype, seed=n)
    check(lambda a: np.array([a[:, j].sum() for j in range(a.shape[1])]), x, what="columns")
    with jax.enable_x64(True):
        for start, stored in [(0.0, None), (2.5, None), (0.0, np.float16)]:
            down = summation.pairwise_sum(jnp.asarray(x), start, stored=stored, down=True)
            across = summation.pairwise_sum(jnp.asarray(x.T), start, stored=stored)
            assert_same_bits(down, across, f"start {start}, stored {stored}")


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 3000), k=st.integers(8, 40), dtype=st.sampled_from([np.float64, np.float32, np.float16]),
       start=st.sampled_from([0.0, -0.0, 1.5]), seed=st.integers(0, 2**16))
def test_random_runs_summed_down_are_the_transposes_rows_bit_for_bit(n, k, dtype, start, seed):
    from elena_jax.lower import summation

    with jax.enable_x64(True):
        x = jnp.asarray(data((n, k), dtype, seed))
        down = jax.jit(lambda a: summation.pairwise_sum(a, start, down=True))(x)
        across = jax.jit(lambda a: summation.pairwise_sum(a.T, start))(x)
    assert_same_bits(down, across)
    if start == 0.0:  # NB: NumPy's own sums of the columns, from its 0.0
        with np.errstate(over="ignore"):
            assert_same_bits(down, np.array([np.asarray(x)[:, j].sum() for j in range(k)], dtype))


@pytest.mark.parametrize("shape, down", [((9, 120_003), False), ((40, 1_808), False), ((12_500, 9), True)])
def test_irregular_runs_gather_row_t_of_every_leaf_from_the_run_itself(shape, down):
    """Runs whose leaves differ in height read row t of every leaf at a time: a gather of 8
    elements per leaf from the run itself, not from its rows of 8 (a reshape of a slice where the
    length is not a multiple of 8, which XLA:CPU wrote out whole where more than 15 reads shared
    it: 32 rows of 12,500 2.2 ms, 0.5 so), nor a loop over up to 32 leaves (rows of 1,808: 1.9 ms,
    0.4 so); the same additions."""
    from elena_jax.lower import summation

    x = data(shape, np.float64, seed=7)
    with jax.enable_x64(True):
        jaxpr = jax.make_jaxpr(lambda a: summation.pairwise_sum(a, 0.0, down=down))(jnp.asarray(x)).jaxpr
    gathers = [e for e in jaxpr.eqns if e.primitive.name == "gather"]
    assert len(gathers) == summation._plan(shape[0 if down else 1]).depth_rows
    assert all(e.invars[0] is jaxpr.invars[0] for e in gathers)
    if down:
        check(lambda a: np.array([a[:, j].sum() for j in range(a.shape[1])]), x, what="columns", fma=False)
    else:
        check(lambda a: a.sum(axis=1), x, what="rows", fma=False)


@pytest.mark.parametrize("dtype, shape", [(np.uint8, (300, 1000)), (np.int32, (260, 256)), (np.int64, (3, 30_001)),
                                          (np.bool_, (70, 1808)), (np.float32, (9, 10_000))])
def test_sums_of_another_type_cast_each_part_as_numpys_buffer_does(dtype, shape):
    """A sum whose loop type is not its operand's (the mean of integers, ``dtype=np.float64`` of
    float32) casts the operand part by part as the sum reads it, as NumPy's buffer casts it: cast
    whole first, the mean of 2000 x 2000 uint8 wrote a float64 copy of 32 MB each call and took
    12 ms (NumPy 1.3), 0.7 so. Rows, the whole array in NumPy's pieces of 8192, columns; and the
    deviations of narrower values from their float64 mean, which a std sums (11-13 ms, 1.3 so)."""
    rng = np.random.default_rng(5)
    x = (rng.integers(0, 2, shape) if dtype == np.bool_ else rng.integers(0, 250, shape)).astype(dtype)
    if dtype == np.float32:
        x = rng.standard_normal(shape).astype(dtype)
    check_forms({"rows": lambda a: a.mean(axis=1), "whole": lambda a: a.mean(),
                 "sum": lambda a: a.sum(axis=1, dtype=np.float64), "columns": lambda a: a.mean(axis=0),
                 "std": lambda a: a.std(axis=1), "column_loop": lambda a: np.array([a[:, j].mean() for j in range(8)])},
                x, fma=False)
    narrow = x.dtype.itemsize < 8  # NB: so a std's deviations are computed part by part too (summation._narrow)
    f = elena_jax.functionalize(lambda a: (a.mean(axis=1), a.mean(), a.std(axis=1) if narrow else None))
    with jax.enable_x64(True):
        text = jax.jit(f).lower(jnp.asarray(x)).compile().as_text()
    assert f"f64[{shape[0]},{shape[1]}]" not in text  # NB: no float64 copy of the operand


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # NB: NumPy's own, reading a complex out
@pytest.mark.parametrize("out", [np.int64, np.int16, np.uint8, np.bool_, np.float32, np.float16, np.complex128,
                                 np.complex64])
def test_a_total_through_numpys_buffer_is_kept_in_outs_type(out):
    """A float64 sum into an ``out=`` of another type, through NumPy's buffer (runs longer than
    8,192 elements): NumPy casts the running total to ``out``'s type after each buffer and back,
    an integer ``out`` cutting it to an integer each time (it was kept in float64 where ``out``
    was of another kind: off by a few, a review's find, session 37)."""
    x = (np.random.default_rng(3).standard_normal((3, 20_003)) * 50).astype(np.float32)
    with np.errstate(all="ignore"):
        check_forms({"rows": lambda a: np.sum(a, axis=1, dtype=np.float64, out=np.zeros(3, out)),
                     "whole": lambda a: np.sum(a, dtype=np.float64, out=np.zeros((), out))}, x, fma=False)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("out", [np.int32, np.bool_, np.float16, np.float32])
def test_a_total_down_the_columns_is_stored_in_outs_type_after_each_visit(out):
    """Where a kept axis is innermost, NumPy adds a result's terms in visits and stores the total
    in its ``out=`` in between (view.summation): after every row where the columns fill NumPy's
    buffer (8,192 or more), once where they do not, after each run of a reduced axis within a
    kept one; and ``initial=`` goes into ``out`` first, cast to its type (elena_jax rounded once
    at the end and started from ``initial`` as given: 138 of 190 such sums and products wrong).
    Float32 summed into an int32 ``out`` adds in float64, NumPy's loop for the two types."""
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((6, 9000)) * 50).astype(np.float32)
    near_one = 1 + rng.standard_normal((6, 9000)) / 500

    def into(shape):
        return np.zeros(shape, out)

    with np.errstate(all="ignore"):
        check_forms({
            "columns": lambda a: np.sum(a, axis=0, dtype=np.float64, out=into(9000)),
            "narrow_columns": lambda a: np.sum(a[:, :5000], axis=0, dtype=np.float64, out=into(5000)),
            "between": lambda a: np.sum(a.reshape(4, 3, 5, 900), axis=(0, 2), dtype=np.float64, out=into((3, 900))),
            "initial": lambda a: np.add.reduce(a, axis=0, dtype=np.float64, out=into(9000), initial=0.7),
            "initial_rows": lambda a: np.add.reduce(a, axis=1, dtype=np.float64, out=into(6), initial=0.7),
            # NB: rows of 4 beyond a kept axis: once where a buffer holds the kept axis, else after each row
            "blocks_once": lambda a: np.sum(a.reshape(27, 500, 4), axis=(0, 2), out=into(500)),
            "blocks": lambda a: np.sum(a.reshape(6, 2250, 4), axis=(0, 2), dtype=np.float64, out=into(2250)),
            # NB: the output's own strides order the axes too: a run of 8 (stride 3), pairwise
            "out_layout": lambda a: np.sum(a[:2, :24].reshape(2, 8, 3).transpose(2, 0, 1), axis=2, out=into((3, 2))),
        }, x, fma=False)
        check_forms({
            "product": lambda p: np.prod(p, axis=0, out=into(9000)),
            "narrow_product": lambda p: np.prod(p[:, :5000], axis=0, out=into(5000), initial=1.3),
        }, near_one, fma=False)


def test_initial_is_converted_in_the_loop_the_out_chooses():
    """With an ``out=`` and no ``dtype=``, NumPy's loop is its type for the operand and the out,
    and ``initial=`` is converted to that loop's type: 1.3 into a float64 out of float32 values
    is float64's 1.3 (it was float32's, 5e-8 off), -1.3 into an int32 out of uint32 values is
    int64's -1 (elena_jax raised OverflowError, converting it to the operand's unsigned type)."""
    x = np.random.default_rng(4).normal(size=(10, 13)).astype(np.float32)
    check_forms({
        "float64_out": lambda a: np.add.reduce(a, axis=None, out=np.zeros((), np.float64), initial=1.3),
        "product": lambda a: np.multiply.reduce(a, axis=1, out=np.zeros(10, np.float64), initial=1.3),
        "unsigned_into_signed": lambda a: np.add.reduce(np.arange(12, dtype=np.uint32).reshape(3, 4), axis=None,
                                                        out=np.zeros((), np.int32), initial=-1.3),
    }, x, fma=False)


def test_only_wide_columns_of_a_sum_in_one_piece_are_summed_down():
    from elena_jax.lower import summation

    assert summation.down((1000, 8), np.float64) and summation.down((1000, 2, 4), np.float32)
    assert not summation.down((1000, 7), np.float64)  # NB: less than a cache line beside each term
    assert not summation.down((1000, 8), np.complex128) and not summation.down((1000,), np.float64)
    assert not summation.down((1000, 8), np.float64, 512, 8192)  # NB: through NumPy's buffer: in blocks


@pytest.mark.parametrize("dtype", slow_beyond([np.float64, np.complex128, np.float32, np.float16], 2))
def test_sums_of_overlapping_windows_are_numpys(dtype):
    """Axes of equal strides (``sliding_window_view``) keep their C order in NumPy's iterator, so
    each window's sum is the pairwise sum of its run: XLA's order was 1 ulp off in 43% of a rolling
    mean of 20 (a performance campaign's find, session 24), in all of the windows' sum over axis 0."""
    windows = np.lib.stride_tricks.sliding_window_view
    x, grid = data((3000,), dtype), data((60, 50), dtype, 1)
    forms = {
        "rolling_sum": lambda x, g: windows(x, 20).sum(axis=-1),
        "rolling_mean": lambda x, g: windows(x, 20).mean(axis=-1),
        "long_windows": lambda x, g: windows(x, 200).sum(axis=-1),
        "across_windows": lambda x, g: windows(x, 20).sum(axis=0),
        "transposed_across": lambda x, g: windows(x, 20).T.sum(axis=0),
        "transposed_along": lambda x, g: windows(x, 20).T.sum(axis=1),
        "reversed": lambda x, g: windows(x[::-1], 20).sum(axis=-1),
        "hops": lambda x, g: windows(x, 64)[::16].sum(axis=-1),
        "all": lambda x, g: windows(x, 20).sum(),
        "patches": lambda x, g: windows(g, (5, 5)).sum(axis=(-1, -2)),
        "patch_rows": lambda x, g: windows(g, (3, 4)).mean(axis=-1),
        "product": lambda x, g: windows(x, 7).prod(axis=-1),
    }
    check_forms(forms, x, grid)


@pytest.mark.parametrize("dtype", slow_beyond([np.float64, np.float32, np.complex128, np.float16], 2))
def test_sums_of_broadcast_views_are_numpys(dtype):
    """Zero strides (``np.broadcast_to``, ``as_strided``) have no say in the order of NumPy's
    iterator, which keeps C order there: a column's sum of a row broadcast down adds the same
    value row after row, a row's of a column broadcast across pairwise. They were XLA's sums
    (19 of 30 such sums, means and products an ulp off in most values, session 38)."""
    x, grid = data((257,), dtype), data((20, 30), dtype, 1)
    forms = {
        "columns_of_a_row": lambda x, g: np.broadcast_to(x, (300, x.size)).sum(axis=0),
        "rows_of_a_column": lambda x, g: np.broadcast_to(x[:64, None], (64, 1000)).sum(axis=1),
        "whole": lambda x, g: np.broadcast_to(x, (50, x.size)).sum(),
        "row_means": lambda x, g: np.broadcast_to(x, (40, x.size)).mean(axis=1),
        "transposed": lambda x, g: np.broadcast_to(x, (30, x.size)).T.sum(axis=1),
        "middle": lambda x, g: np.broadcast_to(g[:, None, :], (20, 9, 30)).sum(axis=(0, 1)),
        "middle_rows": lambda x, g: np.broadcast_to(g[:, None, :], (20, 9, 30)).sum(axis=(1, 2)),
        "as_strided": lambda x, g: np.lib.stride_tricks.as_strided(x, (100, 40), (0, x.strides[0])).sum(axis=1),
        "product": lambda x, g: np.broadcast_to(1 + x[:33] / 1e4, (300, 33)).prod(axis=0),  # NB: 1e5 is inf in float16
    }
    check_forms(forms, x, grid, fma=False)


@pytest.mark.parametrize("dtype", slow_beyond([np.complex128, np.float32, np.float64, np.float16], 1))
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
    check_forms(forms, a)
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
    # NB: a single term is still added to the identity by NumPy's loop (it was returned as it is)
    check(lambda a: a[:, :1].sum(axis=1), zeros, what="one term")
    check(lambda a: a[0, :1].sum(), zeros, what="one term of all")
    check(lambda a: np.sum(a, axis=()), zeros, what="no axes")
    negative = np.full((3, 100), complex(-0.0, -0.0))
    for axis in (0, 1):  # NB: the steps that add -0.0 (padding, the last pair) keep both signs
        check(lambda a, axis=axis: np.add.reduce(a, axis=axis, initial=complex(-0.0, -0.0)), negative,
              what=f"complex {axis}")
        check(lambda a, axis=axis: np.add.reduce(a.T, axis=axis, initial=-0.0), negative.real.copy(),
              what=f"real {axis}")


RUNS = st.sampled_from([((0,), None), ((1,), None), ((0, 1), None), ((1, 2), None), ((2,), None), ((0, 2), None),
                        (None, None), ((1,), np.float64), ((2,), np.float32), ((0,), np.float64),
                        ((0, 2), np.float16)])


@settings(max_examples=25, deadline=None)
@given(shape=st.tuples(*[st.integers(1, 40)] * 2, st.integers(1, 300)), run=RUNS,
       step=st.sampled_from([1, 2, -1, 3]), transpose=st.booleans(), dtype=st.sampled_from([np.float64, np.float32]),
       reduction=st.sampled_from(["sum", "sum", "prod"]),
       into=st.sampled_from([None, None, np.int32, np.float32, np.float16]), initial=st.sampled_from([None, 0.7]),
       out_transposed=st.booleans())
def test_random_sums_and_products_are_numpys_where_numpys_order_is_known(shape, run, step, transpose, dtype,
                                                                        reduction, into, initial, out_transposed):
    """Also into an ``out=`` of another type, which NumPy's iterator stores the total in between
    its buffers and visits (view.summation), and from an ``initial=`` it writes there first; an
    ``out=`` laid out transposed orders the iterator's axes too."""
    axes, loop_dtype = run
    rng = np.random.default_rng(sum(shape))
    a = data(shape, dtype, seed=sum(shape)) if reduction == "sum" else (1 + rng.normal(size=shape) / 1000).astype(dtype)
    if loop_dtype == np.float16 and reduction == "sum":  # NB: within float16's range, so never cast from inf
        a = (a / np.abs(a).max() * 10).astype(dtype)
    view = a[:, ::step] if not transpose else a.transpose(2, 0, 1)[::step]
    options = {"initial": initial} if initial is not None else {}

    def f(a):
        v = a[:, ::step] if not transpose else a.transpose(2, 0, 1)[::step]
        if into is None:
            return getattr(v, reduction)(axis=axes, dtype=loop_dtype, **options)
        shape = getattr(np, reduction)(view, axis=axes).shape
        out = np.zeros(shape[::-1], into).T if out_transposed else np.zeros(shape, into)
        getattr(np, reduction)(v, axis=axes, dtype=loop_dtype, out=out, **options)
        return out

    with np.errstate(over="ignore"):
        want = f(a.copy())
    got = np.asarray(elena_jax.functionalize(f)(a.copy()))
    if V.summation(V.View.make(view.shape, view.strides), range(view.ndim) if axes is None else axes) is not None:
        assert_same_bits(got, want)
    elif reduction == "prod":  # NB: NumPy's iterator loops otherwise: XLA's order (design.md Known limits)
        np.testing.assert_allclose(got, want, rtol=1e-4 if np.float32 in (dtype, loop_dtype) else 1e-12)
    else:
        scale = np.abs(view).sum(axis=axes, dtype=np.float64)  # NB: rounding grows with the magnitudes summed
        np.testing.assert_array_less(np.abs(got - want), (1e-5 if dtype == np.float32 else 1e-13) * scale + 1e-30)


@pytest.mark.parametrize("dtype", slow_beyond([np.float32, np.float64, np.complex128, np.float16], 1))
def test_sums_through_numpys_buffer_as_numpys(dtype):
    # NB: reduced axes that do not coalesce: NumPy's iterator copies them through its buffer of
    # np.getbufsize() elements, as many runs of the inner axes as its cost estimate chooses, or
    # hands over the runs within a kept axis one at a time
    a = data((40, 20, 300), dtype, seed=14) / (1000 if dtype == np.float16 else 1)
    forms = {
        "whole": lambda a: a[:, :, 1:].sum(),  # runs of 299: 27 to a buffer
        "rows_of_blocks": lambda a: a[:, :, 1:].sum(axis=(1, 2), keepdims=True),
        "coalesced_core": lambda a: a[::2].sum(axis=(0, 1, 2)),  # core of 20 * 300 elements
        "transposed": lambda a: a[1:, :, 1:].transpose(2, 1, 0).sum(axis=(0, 1, 2)),
        "reversed": lambda a: a[:, ::-1, 1:].sum(),  # a core of 20 x 299: in the view's order
        "reversed_rows": lambda a: a[:, :, ::-1][:, :, 1:].sum(axis=(1, 2)),
        "long_runs": lambda a: a.reshape(4, 60000)[:, 1:].sum(),  # longer than the buffer: whole
        "mean": lambda a: np.mean(a[:, ::2, 1:]),
        "var": lambda a: np.var(a[:, :, ::-1][:, :, 1:], axis=(1, 2)),
    }
    # NB: reduced axes on both sides of a kept one: the inner ones' blocks, added in turn
    forms["split_by_a_kept_axis"] = lambda a: a.sum(axis=(0, 2))
    forms["split_and_strided"] = lambda a: a[:, ::2, ::-1].transpose(1, 0, 2).sum(axis=(1, 2), keepdims=True)
    if dtype != np.complex128:  # NB: NumPy warns that a complex sum into a float drops the imaginary part
        forms["split_through_a_cast"] = lambda a: a.sum(axis=(0, 2), dtype=np.float64 if a.dtype != np.float64
                                                        else np.float32)
        forms["through_a_cast"] = lambda a: a[:, :, 1:].sum(dtype=np.float64 if a.dtype != np.float64 else np.float32)
    check_forms(forms, a, fma=False)


def test_ordered_sums_under_grad_jit_and_vmap():
    a = data((5, 300), np.float32)  # NB: float32, as JAX's jit and vmap take NumPy's float64 without x64
    f = elena_jax.functionalize(lambda a: a.sum(axis=1))
    assert_same_bits(jax.jit(f)(a), a.sum(axis=1))
    assert_same_bits(jax.vmap(f)(np.stack([a, a[::-1]])), np.stack([a.sum(axis=1), a[::-1].sum(axis=1)]))
    g = jax.grad(lambda x: jnp.sum(elena_jax.functionalize(lambda a: (a * a).sum())(x)))(a)
    np.testing.assert_allclose(g, 2 * a)


VARIANCE_TYPES = [np.float64, np.float32, np.complex128, np.float16, np.int64, np.bool_]


@pytest.mark.parametrize("dtype", slow_beyond(VARIANCE_TYPES, 1))
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
    check_forms(forms, a, fma=False)


def test_variances_elsewhere_and_their_errors():
    a = data((40, 300), np.float64, seed=5)
    for f in (lambda a: np.var(a[:, ::2]), lambda a: np.std(a, axis=1, where=a > 0), lambda a: a.std()):
        np.testing.assert_allclose(elena_jax.functionalize(f)(a.copy()), f(a.copy()), rtol=1e-12)
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously"):
        elena_jax.functionalize(lambda a: np.var(a, ddof=1, correction=1))(a)


@pytest.mark.parametrize("dtype", slow_beyond([np.complex128, np.float32, np.float64], 1))
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
    forms["cumprod"] = lambda a: np.cumprod(1 + a / 1e5, axis=1)  # NB: of complex, without FMAs as NumPy's
    check_forms(forms, a)


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
@pytest.mark.parametrize("dtype", slow_beyond([np.float16, np.float64, np.float32, np.int32], 2))
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


@pytest.mark.parametrize("name", ["nanmean", "nanvar", "nanstd"])
def test_nan_means_and_variances_refuse_exact_types_as_numpy(name):
    a, g = np.array([1.0, np.nan]), getattr(np, name)
    for f in (lambda a: g(a, dtype=np.int64), lambda a: g(a, out=np.zeros((), np.int64))):
        with pytest.raises(TypeError, match="If a is inexact"):
            f(a)
        with pytest.raises(TypeError, match="If a is inexact"):
            elena_jax.functionalize(f)(a)


@pytest.mark.filterwarnings("ignore:Degrees of freedom", "ignore:Mean of empty slice")
@pytest.mark.parametrize("dtype", slow_beyond([np.float32, np.complex128, np.float64, np.float16, np.int32], 1))
def test_nan_variances_are_numpys_bit_for_bit_with_fma_off(dtype):
    # NB: NumPy's nanvar: NaNs replaced by 0 and counted out, the mean of the rest, the
    # deviations (0 where NaN) squared and summed; NaN where fewer than ddof + 1 values remain
    a = data((40, 300), dtype, seed=9) / (1000 if dtype == np.float16 else 1)
    if dtype != np.int32:
        a[np.random.default_rng(10).random(a.shape) < 0.1] = np.nan
        a[3] = np.nan
        a[5, 2:] = np.nan
    forms = {
        "whole": lambda a: np.nanvar(a),
        "rows": lambda a: np.nanvar(a, axis=1),
        "columns": lambda a: np.nanstd(a, axis=0, keepdims=True),
        "ddof": lambda a: np.nanvar(a, axis=1, ddof=2),
        "correction": lambda a: np.nanstd(a[:, ::-1], axis=-1, correction=1),
        "given_mean": lambda a: np.nanvar(a, axis=1, mean=np.nanmean(a, axis=1, keepdims=True)),
        "where_columns": lambda a: np.nanvar(a, axis=0, where=np.arange(300) % 3 > 0),
        "out": lambda a: np.nanstd(a, axis=1, out=np.zeros(40, np.result_type(a.dtype, np.float16))),
        "scalar_std": lambda a: np.nanstd(a[5]),
    }
    if dtype not in (np.complex128, np.int32):
        forms["in_float64"] = lambda a: np.nanvar(a, axis=1, dtype=np.float64)
    check_forms(forms, a, fma=False)


def test_a_complex64_mean_divides_in_complex128_as_numpys():
    """NumPy divides a mean's sum by its count, an intp, in their common type (complex128 for a
    complex64 sum, with its complex division) and casts back: dividing in complex64 was an ulp off in
    32-100% of the means (found by a review, session 24); a variance's mean likewise."""
    x = data((23, 41), np.complex64, seed=21)
    forms = {"whole": lambda a: a.mean(), "columns": lambda a: a.mean(axis=0),
             "rows_kept": lambda a: a.mean(axis=1, keepdims=True), "strided": lambda a: np.mean(a[:, ::3], axis=1),
             "into_out": lambda a: np.mean(a, axis=0, out=np.zeros(41, np.complex64)),
             "variance": lambda a: a.var(axis=1), "deviation": lambda a: a.std(axis=0, ddof=1)}
    check_forms(forms, x, fma=False)


@pytest.mark.parametrize("dtype", slow_beyond([np.complex128, np.float64, np.float32, np.int64], 1))
def test_averages_are_numpys_bit_for_bit(dtype):
    # NB: NumPy's average is its mean, or the sum of the weighted values over the sum of the weights
    a = data((40, 300), dtype, seed=11)
    a = (a * 100).astype(dtype) if dtype == np.int64 else a
    w = np.random.default_rng(12).random(300)
    forms = {
        "mean": lambda a: np.average(a),
        "rows_returned": lambda a: np.average(a, axis=1, returned=True),
        "weighted_rows": lambda a, w: np.average(a, axis=1, weights=w),
        "weighted_returned": lambda a, w: np.average(a, axis=-1, weights=w, returned=True, keepdims=True),
        "same_shape": lambda a, w: np.average(a, weights=np.broadcast_to(w, a.shape) + 1, returned=True),
        "axes": lambda a, w: np.average(a, axis=(1, 0), weights=np.outer(w[:40], w)),
        "list_weights": lambda a, w: np.average(a[:3], axis=0, weights=[1, 2, 3]),
        "float32_weights": lambda a, w: np.average(a, axis=1, weights=w.astype(np.float32)),
    }
    check_forms(forms, a, w, fma=False)


def test_average_errors_are_numpys():
    a, w = np.ones((3, 4)), np.ones(4)
    for f, error in [(lambda a, w: np.average(a, weights=w), TypeError),
                     (lambda a, w: np.average(a, axis=0, weights=w), ValueError)]:
        with pytest.raises(error, match="Axis must be specified|Shape of weights must be consistent"):
            f(a, w)
        with pytest.raises(error, match="Axis must be specified|Shape of weights must be consistent"):
            elena_jax.functionalize(f)(a, w)


def test_reductions_into_out_compute_in_numpys_type():
    # NB: without dtype=, NumPy reduces in the ufunc's type for the operand and out=: float32
    # summed into a float64 out adds in float64 (and float64 into float32 too), then casts
    x32 = np.array([1e8, 1, 1, 1, -1e8], np.float32)
    rows = data((40, 300), np.float64, seed=13)
    for name, f, a in [
        ("float32_into_float64", lambda a: np.add.reduce(a, out=np.zeros((), np.float64)), x32),
        ("float64_into_float32", lambda a: np.sum(a.astype(np.float64), out=np.zeros((), np.float32)), x32),
        ("mean_into_float64", lambda a: np.mean(a, out=np.zeros((), np.float64)), x32),
        ("var_into_float64", lambda a: np.var(a, out=np.zeros((), np.float64)), x32),
        ("product_into_float64", lambda a: np.multiply.reduce(a * 1e30, out=np.zeros((), np.float64)), x32),
        ("ints_into_float32", lambda a: np.sum(a, out=np.zeros((), np.float32)), np.array([2 ** 24, 1, 1, 1])),
        ("rows_into_complex", lambda a: np.sum(a, axis=1, out=np.zeros(40, complex)), rows),
        ("folded_into_float32", lambda a: np.subtract.reduce(a, out=np.zeros((), np.float32)), x32 * 1.0),
        # NB: an out= of another type is cast back after each buffer of 8192: the total rounds between pieces
        ("long_into_float32", lambda a: np.add.reduce(a, out=np.zeros((), np.float32)), data((100000,), np.float64)),
        ("long_rows_into_float32", lambda a: np.sum(a.reshape(5, 20000), axis=1, out=np.zeros(5, np.float32)),
         data((100000,), np.float64, seed=1)),
    ]:
        check(f, a, what=name)


@pytest.mark.parametrize("dtype", slow_beyond([np.complex128, np.float32, np.float64], 1))
def test_products_are_numpys(dtype):
    # NB: NumPy's product loop multiplies one term after another, in the iterator's order; of
    # complex numbers, in its reduction and accumulation loops, with the four products rounded
    # apart (no FMA). XLA's product associated otherwise: 98% of the products of rows of 1,000
    # float64 differed.
    rng = np.random.default_rng(15)
    a = 1 + rng.normal(size=(200, 1000)) * 1e-2
    a = (a + 1j * rng.normal(size=a.shape) * 1e-2 if dtype == np.complex128 else a).astype(dtype)
    forms = {
        "rows": lambda a: np.prod(a, axis=1),
        "whole": lambda a: a[:3].prod(),
        "long": lambda a: np.prod(a.ravel()[:100003]),
        "reversed_strided": lambda a: np.prod(a[:, ::-3], axis=1),
        "buffered": lambda a: np.prod(a[:, 1:]),
        "split_by_a_kept_axis": lambda a: a.reshape(20, 10, 1000).prod(axis=(0, 2)),
        "initial": lambda a: np.multiply.reduce(a, axis=1, initial=-2.0),
        "keepdims_transposed": lambda a: np.prod(a.T, axis=0, keepdims=True),
        "cumprod": lambda a: np.cumprod(a[:, :300], axis=1),
        "cumprod_columns": lambda a: np.cumprod(a[:50], axis=0),
        "nanprod": lambda a: np.nanprod(np.where(a.real > 1.01, np.nan, a), axis=1),
    }
    if dtype != np.complex128:
        forms["where"] = lambda a: np.prod(a, axis=1, where=a > 1)
        forms["in_float64"] = lambda a: np.prod(a.astype(np.float32), axis=1, dtype=np.float64)
    check_forms(forms, a)
    # NB: the elementwise loop, a complex one with FMAs
    check(lambda a: np.prod(a, axis=0), a, what="columns", fma=dtype != np.complex128)


def test_products_in_pieces_and_from_the_identity_are_numpys():
    # NB: NumPy's float16 product loop multiplies in float32 within a call and rounds where it ends;
    # an out= of another type gets the running product back after each buffer; the product starts
    # from the identity 1 + 0j, so that of [inf + 0j] is inf + nanj and -1j's real part is +0.0
    rng = np.random.default_rng(21)
    a = 1 + rng.normal(size=(20, 3000)) * 1e-2
    half = a.astype(np.float16)
    forms = [
        ("half_rows", lambda a: np.prod(a, axis=1), half[:, :300]),
        ("half_long", lambda a: a[:4].prod(), half),
        ("half_columns", lambda a: np.prod(a, axis=0), half[:, :300]),
        ("half_buffered", lambda a: np.prod(a[:, 1:]), half),
        ("half_in_float32", lambda a: np.prod(a, axis=1, dtype=np.float32), half),
        ("into_float32", lambda a: np.multiply.reduce(a.ravel(), out=np.zeros((), np.float32)), a),
        ("rows_into_float32", lambda a: np.prod(np.tile(a, 4), axis=1, out=np.zeros(20, np.float32)), a),
    ]
    z = np.array([complex(np.inf, 0), complex(-0.0, -1.0), 2 + 1j])
    forms += [("complex_inf", lambda a: np.multiply.reduce(a[:1]), z), ("complex_zero", lambda a: np.prod(a[1:2]), z),
              ("complex_all", np.prod, z), ("complex_running", lambda a: np.cumprod(a[1:]), z)]
    for name, f, x in forms:
        with np.errstate(invalid="ignore"):
            check(f, x, what=name)


def test_masked_products_that_stay_xlas():
    # NB: NumPy's masked loop runs over each unmasked stretch: a float16 product rounds where each
    # ends, and a complex one skips the masked terms, where multiplying by 1 + 0j is not exact
    a = 1 + np.random.default_rng(16).normal(size=(20, 300)) * 1e-2
    for f, x in [(lambda a: np.prod(a, axis=1, where=a > 1), a.astype(np.float16)),
                 (lambda a: np.prod(a, axis=1, where=a.real > 1), a * (1 + 0.01j))]:
        np.testing.assert_allclose(elena_jax.functionalize(f)(x.copy()), f(x.copy()), rtol=1e-2)


@pytest.mark.parametrize("axis", [1, 0])
def test_a_sum_feeding_a_broadcast_is_computed_once(axis):
    # NB: XLA fuses a sum's additions into each user, so x - x.mean(axis, keepdims=True) summed
    # each row again for every element of it (the std of 15625 x 256 rows took 24 ms against 6.9);
    # the last steps of a sum of 32 terms or more are therefore a loop, which XLA computes once
    # (summation._in_turn), a row's single pairwise piece too
    x = data((500, 256), np.float64, seed=20)
    with jax.enable_x64(True):
        f = jax.jit(elena_jax.functionalize(lambda x: x - x.mean(axis=axis, keepdims=True)))
        assert " while(" in f.lower(jnp.asarray(x)).compile().as_text()
        assert_same_bits(f(jnp.asarray(x)), x - x.mean(axis=axis, keepdims=True))


def test_a_lone_piece_enters_the_loop_once():
    # NB: the loop that keeps a sum computed once takes its last two terms; a row summed in one
    # pairwise piece has one, which went in twice, and XLA computed the whole pairwise sum twice
    # (the mean and std of 15625 x 256 rows: 11-12 ms, 8.7-9.3 once, in one run)
    from elena_jax.lower import summation

    jaxpr = jax.make_jaxpr(lambda x: summation.pairwise_sum(x, 0.0))(jnp.ones((5, 256)))
    joins = [e.invars for e in jaxpr.eqns if e.primitive.name == "concatenate"]
    assert joins and all(len(set(map(id, invars))) == len(invars) for invars in joins)


@pytest.mark.parametrize("shape, sliced", [((1808,), False), ((3, 4096), False), ((100, 4096), False),
                                           ((256, 1000), True), ((10, 1000), False)])
def test_long_runs_and_small_sums_are_not_sliced_one_by_one(shape, sliced):
    """An acceptance campaign's find, session 24: a run's leaves sliced one by one compile as one block
    of straight-line code, in a time growing faster than the run: the first call of a sum of 1,808
    floats took 5-10 s (354 slices), of rows of 4,096 18-25 s (768). Only runs of at most 8 leaves in
    sums of 65,536 terms or more are sliced; the rest read row t of every leaf at a time (bit for bit
    the same)."""
    from elena_jax.lower import summation

    x = data(shape, np.float64, seed=3)
    jaxpr = jax.make_jaxpr(lambda x: summation.pairwise_sum(x, 0.0))(jnp.asarray(x, np.float32))
    slices = sum(e.primitive.name == "slice" for e in jaxpr.eqns)
    assert (slices > 100) == sliced, slices
    check(lambda a: a.sum(axis=-1), x, what="rows", fma=False)


@pytest.mark.parametrize("dtype", slow_beyond([np.float64, np.float32, np.complex128, np.float16], 1))
@pytest.mark.parametrize("axis", [0, 1])
def test_reduceat_sums_as_numpys(dtype, axis):
    """NumPy's reduceat adds a segment's first element to the pairwise sum of the rest, as one
    run along any axis: not the pairwise sum of the whole segment (np.add.reduce's), nor, along
    an outer axis, one row after another (5 of 9 sums an ulp off before)."""
    a = data((700, 3) if axis == 0 else (3, 700), dtype)
    starts = [0, 300, 310, 311, 200, 500]
    check(lambda a: np.add.reduceat(a, starts, axis=axis), a, what="sums")
    wide = np.complex128 if dtype == np.complex128 else np.float64
    check(lambda a: np.add.reduceat(a, starts, axis=axis, dtype=wide), a, what="in float64")
