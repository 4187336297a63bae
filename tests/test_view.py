"""The View algebra against NumPy on np.arange bases: values are flat indices."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from elena_jax import view as V


def realize(v: V.View, size: int) -> np.ndarray:
    """The elements of ``v`` over ``np.arange(size)``: each one its flat index."""
    return V.flat_indices(v) if v.size else np.zeros(v.shape, np.int64)


def view_of(arr: np.ndarray, base: np.ndarray) -> V.View:
    item = base.itemsize
    offset = (arr.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    return V.View.make(arr.shape, [s // item for s in arr.strides], offset)


def check(arr: np.ndarray, v: V.View, base: np.ndarray) -> None:
    assert v.shape == arr.shape
    np.testing.assert_array_equal(realize(v, base.size), arr)
    if arr.size and isinstance(arr, np.ndarray):  # NB: a[i] of a 1-d array is a scalar copy
        assert view_of(arr, base) == v


shapes = hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_basic_index_matches_numpy(data):
    shape = data.draw(shapes)
    base = np.arange(int(np.prod(shape)))
    a = base.reshape(shape)
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    check(a[key], V.index(V.contiguous(shape), key), base)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_reshape_is_a_view_exactly_when_numpy_says(data):
    shape = data.draw(shapes)
    base = np.arange(int(np.prod(shape)))
    key = data.draw(hnp.basic_indices(shape))
    a = base.reshape(shape)[key]
    v = V.index(V.contiguous(shape), key)
    if not isinstance(a, np.ndarray):
        return
    perm = data.draw(st.permutations(range(a.ndim)))
    a, v = a.transpose(perm), V.transpose(v, perm)
    target = data.draw(st.sampled_from([(-1,), (a.size, 1), (1, -1)] + [
        s for s in itertools.permutations([x for x in a.shape if x != 1]) if s]))
    new = V.reshape(v, target)
    expected = np.reshape(a, target)
    if new is None:
        assert not np.shares_memory(expected, base)
    else:
        assert np.shares_memory(expected, base) or expected.size == 0
        check(expected, new, base)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_overlap_agrees_with_shares_memory(data):
    shape = data.draw(shapes)
    base = np.arange(int(np.prod(shape)))
    a = base.reshape(shape)
    k1 = data.draw(hnp.basic_indices(shape))
    k2 = data.draw(hnp.basic_indices(shape))
    v1 = V.index(V.contiguous(shape), k1)
    v2 = V.index(V.contiguous(shape), k2)
    a1, a2 = a[k1], a[k2]
    if isinstance(a1, np.ndarray) and isinstance(a2, np.ndarray):
        assert V.overlap(v1, v2) == np.shares_memory(a1, a2)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_dense_views_are_exactly_a_range_of_elements(data):
    shape = data.draw(shapes)
    k = data.draw(hnp.basic_indices(shape, allow_newaxis=True))
    v = V.index(V.contiguous(shape), k)
    if data.draw(st.booleans()) and v.shape:
        v = V.transpose(v, data.draw(st.permutations(range(len(v.shape)))))
    elements = np.sort(V.flat_indices(v), axis=None)
    lo, hi = v.span()
    assert V.dense(v) == (v.size == 0 or np.array_equal(elements, np.arange(lo, hi)))


def test_dense_views():
    assert V.dense(V.index(V.contiguous((4, 3)), (slice(None), slice(None, None, -1))))  # img[..., ::-1]
    assert V.dense(V.transpose(V.contiguous((4, 3))))
    assert not V.dense(V.index(V.contiguous((4, 3)), (slice(None), slice(0, 2))))  # a gap in every row
    assert not V.dense(V.View.make((2, 2), (1, 1), 0))  # elements 0, 1, 1, 2
    assert not V.dense(V.broadcast_to(V.contiguous((3,)), (2, 3)))


@st.composite
def permuted_views(draw, shape):
    """A NumPy array of ``shape`` laid out in a random axis order, with random reversals, sliced
    from a bigger array with random steps, as (array, its View): operands of an elementwise op."""
    order = draw(st.permutations(range(len(shape))))
    steps = draw(st.lists(st.sampled_from([1, 2, -1, -2]), min_size=len(shape), max_size=len(shape)))
    stored = [shape[i] * abs(steps[i]) for i in order]
    base = np.arange(int(np.prod(stored)))
    a = base.reshape(stored).transpose(np.argsort(order))
    a = a[tuple(slice(None, None, s) for s in steps)]
    return a, view_of(a, base)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_keep_order_is_the_layout_numpy_gives_a_ufunc_result(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3))
    operands = []
    for _ in range(data.draw(st.integers(1, 3))):
        # each operand has the full shape or a broadcastable one (leading axes dropped, some of size 1)
        sub = shape[data.draw(st.integers(0, len(shape))):]
        sub = tuple(1 if data.draw(st.booleans()) and data.draw(st.booleans()) else n for n in sub)
        operands.append(data.draw(permuted_views(sub)))
    arrays = [a for a, _ in operands]
    result = arrays[0] + 0 if len(arrays) == 1 else np.add(*arrays) if len(arrays) == 2 else np.clip(*arrays)
    order = V.keep_order(result.shape, [v for _, v in operands])
    laid_out = V.transpose(V.contiguous([result.shape[i] for i in order]), np.argsort(order))
    assert laid_out == V.View.make(result.shape, [s // result.itemsize for s in result.strides])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_box_of_every_basic_view_reads_its_elements(data):
    shape = data.draw(shapes)
    size = int(np.prod(shape))
    base = np.arange(size)
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True))
    v = V.index(V.contiguous(shape), key)
    perm = data.draw(st.permutations(range(v.ndim)))
    v = V.transpose(v, perm)
    expected = realize(v, size)
    b = V.box(v, size, V.contiguous(shape).strides)
    if v.size == 0:
        assert b is None
        return
    assert b is not None  # a basic view is always a strided box
    box_slices = tuple(slice(lo, hi, st) for lo, hi, st in zip(b.starts, b.limits, b.steps))
    x = base[b.window : b.window + b.length].reshape(b.dims)[box_slices]
    x = x.reshape([v.shape[i] for i in b.kept]).transpose(b.perm)
    order = [i for i in range(v.ndim) if i in b.kept]
    for i in b.flipped:
        x = np.flip(x, order.index(i))
    x = np.broadcast_to(x.reshape([v.shape[i] if i in b.kept else 1 for i in range(v.ndim)]), v.shape)
    np.testing.assert_array_equal(x, expected)


def test_strided_column_is_a_unit_step_box_of_the_reshaped_storage():
    # out[:, 0::4] on an (N, 8) buffer is the box [:, :, 0] of its (N, 2, 4) reshape
    v = V.index(V.contiguous((10, 8)), (slice(None), slice(0, None, 4)))
    b = V.box(v, 80)
    assert b.unit_steps and b.dims == (10, 2, 4) and b.starts == (0, 0, 0)


def test_strided_rows_have_a_box_in_the_storages_own_dims():
    """An acceptance campaign's find, session 24: `box` lays the odd rows of a 2x upsample,
    ``out[1::2, :]`` of (2H - 1, 2W - 1), over the (H - 1, 2, 2W - 1) reshape of a flat window;
    memory.place wants them as rows in steps of 2 of the storage itself (`own_box`)."""
    v = V.index(V.contiguous((9, 9)), (slice(1, None, 2), slice(None)))
    assert V.box(v, 81, (9, 1)).dims == (4, 2, 9)
    b = V.own_box(v, (9, 9))
    assert (b.window, b.dims, b.starts, b.limits, b.steps) == (0, (9, 9), (1, 0), (8, 9), (2, 1))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_own_box_of_every_basic_view_is_in_the_storages_dims_and_reads_its_elements(data):
    shape = data.draw(shapes)
    size = int(np.prod(shape))
    v = V.index(V.contiguous(shape), data.draw(hnp.basic_indices(shape, allow_newaxis=True)))
    v = V.transpose(v, data.draw(st.permutations(range(v.ndim))))
    b = V.own_box(v, shape)
    if v.size == 0:
        assert b is None
        return
    assert b.window == 0 and b.dims == (tuple(n for n in shape if n > 1) or (1,))  # NB: every basic view has one
    box_slices = tuple(slice(lo, hi, st) for lo, hi, st in zip(b.starts, b.limits, b.steps))
    x = np.arange(size).reshape(b.dims)[box_slices]
    x = x.reshape([v.shape[i] for i in b.kept]).transpose(b.perm)
    order = [i for i in range(v.ndim) if i in b.kept]
    for i in b.flipped:
        x = np.flip(x, order.index(i))
    x = np.broadcast_to(x.reshape([v.shape[i] if i in b.kept else 1 for i in range(v.ndim)]), v.shape)
    np.testing.assert_array_equal(x, realize(v, size))


def test_disjoint_strided_columns_do_not_overlap():
    c = V.contiguous((100, 84))
    cols = [V.index(c, (slice(None), slice(k, None, 4))) for k in range(4)]
    assert not any(V.overlap(a, b) for a, b in itertools.combinations(cols, 2))
    assert V.overlap(cols[1], V.index(c, (slice(None), slice(1, 2))))


def test_transpose_swapaxes_moveaxis_squeeze_expand_diagonal_broadcast():
    base = np.arange(24)
    a = base.reshape(2, 3, 4)
    c = V.contiguous((2, 3, 4))
    check(a.T, V.transpose(c), base)
    check(a.swapaxes(0, 2), V.swapaxes(c, 0, 2), base)
    check(np.moveaxis(a, 0, -1), V.moveaxis(c, 0, -1), base)
    check(a[:, :1].squeeze(1), V.squeeze(V.index(c, (slice(None), slice(None, 1))), 1), base)
    check(np.expand_dims(a, (0, 2)), V.expand_dims(c, (0, 2)), base)
    check(a.diagonal(1, 1, 2), V.diagonal(c, 1, 1, 2), base)
    check(a.diagonal(-1, 2, 1), V.diagonal(c, -1, 2, 1), base)
    got = realize(V.broadcast_to(V.index(c, (0, 1)), (5, 4)), 24)
    np.testing.assert_array_equal(got, np.broadcast_to(a[0, 1], (5, 4)))


def test_ravel_contiguity_follows_numpy():
    c = V.contiguous((4, 6))
    assert V.is_c_contiguous(V.index(c, (slice(1, 3),)))
    assert not V.is_c_contiguous(V.index(c, (slice(None), slice(None, None, 2))))
    a = np.arange(24).reshape(4, 6)
    for key in [(slice(None), slice(2, 3)), (slice(1, 2), slice(None)), (slice(None), slice(2, 4)), (0, None)]:
        assert V.is_c_contiguous(V.index(c, key)) == a[key].flags.c_contiguous, key


def test_errors_are_numpys():
    c = V.contiguous((3, 4))
    with pytest.raises(IndexError, match="out of bounds"):
        V.index(c, (3,))
    with pytest.raises(IndexError, match="too many indices"):
        V.index(c, (0, 0, 0))
    with pytest.raises(ValueError, match="cannot reshape"):
        V.reshape(c, (5, -1))
    with pytest.raises(np.exceptions.AxisError):
        V.transpose(c, (0, 2))


def test_summation_is_the_order_of_numpys_reduction_loop():
    c = V.contiguous((4, 5, 6))
    assert V.summation(c, (1, 2)) == ("pairwise", (1, 2), 30, 30, 30)  # rows of 30: one run each
    assert V.summation(c, (0, 1, 2)) == ("pairwise", (0, 1, 2), 120, 120, 120)  # the whole array
    assert V.summation(c, (0,)) == ("sequential", (0,), 4)  # an outer axis: row after row
    assert V.summation(c, (0, 1)) == ("sequential", (0, 1), 20)
    # a reduced axis innermost, another beyond a kept one: each row of 6 a block, the rows in turn
    assert V.summation(c, (0, 2)) == ("pairwise", (0, 2), 6, 6, 24)
    assert V.summation(V.transpose(c), (0, 1)) == ("pairwise", (1, 0), 30, 30, 30)  # memory order, outermost first
    assert V.summation(V.transpose(c), (2,)) == ("sequential", (2,), 4)
    every_other = V.index(c, (slice(None), slice(None), slice(None, None, -2)))
    assert V.summation(every_other, (2,)) == ("pairwise", (2,), 3, 3, 3)
    assert V.summation(V.index(c, (slice(None), slice(None, 3))), (1, 2)) == ("pairwise", (1, 2), 18, 18, 18)
    # a cast: through NumPy's buffer, 8192 elements at a time
    assert V.summation(V.contiguous((20000,)), (0,), (True, False)) == ("pairwise", (0,), 20000, 8192, 20000)
    # axes that do not coalesce: through the buffer, as many runs of the inner ones (cores) as it holds
    assert V.summation(V.index(c, (slice(None), slice(None, None, 2))), (1, 2)) == ("pairwise", (1, 2), 18, 18, 18)
    rows = V.index(V.contiguous((40, 20, 300)), (slice(None), slice(None), slice(1, None)))
    assert V.summation(rows, (0, 1, 2)) == ("pairwise", (0, 1, 2), 239200, 27 * 299, 239200)
    assert V.summation(rows, (1, 2)) == ("pairwise", (1, 2), 5980, 5980, 5980)  # a result's terms fit in one buffer
    # NumPy's cost estimate makes a reversed middle axis a core of its own: 20 x 299 per buffer
    flipped = V.index(V.contiguous((40, 20, 300)), (slice(None), slice(None, None, -1), slice(1, None)))
    assert V.summation(flipped, (0, 1, 2)) == ("pairwise", (0, 1, 2), 239200, 5980, 239200)
    # a core longer than the buffer: not buffered, each run summed whole
    long_rows = V.index(V.contiguous((10, 10000)), (slice(None), slice(1, None)))
    assert V.summation(long_rows, (0, 1)) == ("pairwise", (0, 1), 9999, 9999, 99990)
    # a broadcast axis: zero strides have no say in the iterator's order, which stays C order here
    assert V.summation(V.broadcast_to(V.contiguous((6,)), (4, 6)), (0,)) == ("sequential", (0,), 4)
    assert V.summation(V.broadcast_to(V.contiguous((4, 1)), (4, 6)), (1,)) == ("pairwise", (1,), 6, 6, 6)
    # equal strides (sliding_window_view) keep their C order, the later axis inner: each window a run
    windows = V.View.make((981, 20), (1, 1))
    assert V.summation(windows, (1,)) == ("pairwise", (1,), 20, 20, 20)
    assert V.summation(windows, (0,)) == ("sequential", (0,), 981)
    assert V.summation(V.transpose(windows), (1,)) == ("pairwise", (1,), 981, 981, 981)  # the windows as rows
    # single terms: NumPy's loop still adds each to the identity (a sum of [-0.0] is 0.0)
    assert V.summation(V.contiguous((4, 1, 6)), (1,)) == ("pairwise", (), 1, 1, 1)
    assert V.summation(V.contiguous((4, 0, 6)), (1,)) is None  # nothing at all


def test_a_cast_output_holds_the_total_between_the_buffers_numpy_does_not_reuse():
    """NumPy's iterator writes a cast output's buffer back after each fill and reads it again,
    unless in its reduce mode the next fill starts at the same place of the output: the terms
    a result adds in between (view.summation's last entry; all of them uncast)."""
    cast = (False, True)
    # a kept axis innermost: once where the buffer holds the kept axes, else after every term
    assert V.summation(V.contiguous((5, 8191)), (0,), cast) == ("sequential", (0,), 5)
    assert V.summation(V.contiguous((5, 8192)), (0,), cast) == ("sequential", (0,), 1)
    assert V.summation(V.contiguous((5, 8192)), (0,)) == ("sequential", (0,), 5)  # NB: not cast: unbuffered
    assert V.summation(V.contiguous((5, 100, 100)), (0,), cast) == ("sequential", (0,), 1)  # 10,000 kept
    assert V.summation(V.contiguous((5, 10, 1000)), (0, 1), cast) == ("sequential", (0, 1), 50)
    # the kept axes need not join: x[:, :, 1:] of 5 x 3 x 3000 keeps 8,997 elements
    assert V.summation(V.index(V.contiguous((5, 3, 3000)), (slice(None),) * 2 + (slice(1, None),)), (0,),
                       cast) == ("sequential", (0,), 1)
    # reversed, the rows no longer join: the input is buffered too, and reduce mode costs more
    assert V.summation(V.index(V.contiguous((40, 6000)), (slice(None, None, -1),)), (0,), cast) == \
        ("sequential", (0,), 1)
    # a kept axis between reduced ones: the inner reduced axis is a visit, the outer one repeats it
    assert V.summation(V.contiguous((4, 3, 5, 30)), (0, 2), cast) == ("sequential", (0, 2), 5)
    assert V.summation(V.contiguous((3, 5, 4000)), (1,), cast) == ("sequential", (1,), 5)
    # a reduced axis innermost, another beyond a kept one: once where one fill holds the kept axis
    assert V.summation(V.contiguous((5, 2048, 4)), (0, 2), cast) == ("pairwise", (0, 2), 4, 4, 20)
    assert V.summation(V.contiguous((5, 3000, 4)), (0, 2), cast) == ("pairwise", (0, 2), 4, 4, 4)
    assert V.summation(V.contiguous((3, 20003)), (1,), cast) == ("pairwise", (1,), 20003, 8192, 8192)


def test_numpys_iterator_orders_axes_by_every_operands_strides():
    """A reduction into a given ``out=`` orders its axes by the output's strides too, C order
    winning a conflict: the sum of a.transpose(2, 0, 1) (strides 1, 24, 3) over its last axis
    into a C-contiguous output runs along that axis, pairwise (into its own output, allocated
    after the order is chosen, one term after another)."""
    view = V.View.make((3, 2, 8), (1, 24, 3))
    assert V.summation(view, (2,))[0] == "sequential"
    assert V.summation(view, (2,), out=(2, 1, 0))[:2] == ("pairwise", (2,))
    assert V._iterator_order([0, 1, 2], (1, 24, 3), (2, 1, 0)) == [2, 1, 0]
    assert V._iterator_order([0, 1, 2], (1, 24, 3), (1, 3, 0)) == [0, 2, 1]  # NB: no conflict: memory order
    assert V._iterator_order([0, 1], (5, 5)) == [1, 0]  # NB: equal strides keep C order


def test_numpys_own_output_has_no_say_in_the_order_of_the_axes():
    """NumPy allocates a reduction's output after ordering the axes (its strides are zero until
    then), C-contiguous in that order: a view of strides (-1, 0, 1600, 40) summed over its last
    axis runs along axis 0 innermost, each result adding its 40 terms one after another (an output
    laid out beforehand by the kept axes' strides would have put the reduced axis innermost)."""
    view = V.View.make((40, 3, 2, 40), (-1, 0, 1600, 40), 39)
    assert V.summation(view, (3,)) == ("sequential", (3,), 40)
    assert V._iterator_order([0, 1, 2, 3], view.strides) == [0, 3, 2, 1]
    x = np.random.default_rng(0).normal(size=3200)
    a = np.broadcast_to(x.reshape(2, 40, 40).transpose(2, 0, 1)[::-1, None], (40, 3, 2, 40))
    assert a.strides == tuple(8 * s for s in view.strides)
    one_by_one = np.zeros((40, 3, 2))
    for k in range(40):
        one_by_one += a[..., k]
    assert a.sum(axis=3).tobytes() == one_by_one.tobytes()


def test_diagonal_names_the_first_row_column_and_step_of_a_view_down_the_rows():
    square = V.contiguous((4, 4))
    main = V.View.make((4,), (5,), 0)  # np.fill_diagonal's view of a 4 x 4 array
    assert V.diagonal_of_rows(main, square.shape) == (0, 0, 1)
    assert V.diagonal_of_rows(V.View.make((4,), (-5,), 15), square.shape) == (0, 0, 1)  # backwards: same elements
    assert V.diagonal_of_rows(V.View.make((4,), (3,), 3), square.shape) == (0, 3, -1)  # the anti-diagonal
    assert V.diagonal_of_rows(V.View.make((2,), (6,), 4), square.shape) == (1, 0, 2)  # two columns across
    assert V.diagonal_of_rows(V.View.make((4,), (4,), 1), square.shape) is None  # a column: a box of its own
    assert V.diagonal_of_rows(V.View.make((3,), (5,), 1), square.shape) == (0, 1, 1)  # above the main one
    assert V.diagonal_of_rows(V.View.make((3,), (5,), 2), square.shape) is None  # leaves row 1 at its end: wraps
    assert V.diagonal_of_rows(V.View.make((2,), (9,), 0), square.shape) is None  # two rows down
    assert V.diagonal_of_rows(main, (16,)) is None  # no rows


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_lanes_first_addresses_the_same_elements_with_the_last_axis_moved_first(data):
    """A view of a storage of k lanes (last axis) read in the storage with the lanes moved first
    (vectorize computing a loop's rows as rows): the same elements, or None where no one view
    is (an axis stepping across values and lanes at once)."""
    shape = data.draw(shapes)
    old = np.arange(int(np.prod(shape))).reshape(shape)
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    v = V.index(V.contiguous(shape), key)
    moved = V.lanes_first(v, shape)
    k = shape[-1]
    places = np.argsort(np.moveaxis(old, -1, 0).reshape(-1))[realize(v, old.size)]  # NB: each element's new place
    if moved is None:
        start = places[(0,) * v.ndim] if v.size else 0
        steps = [places[tuple(int(a == n) for a in range(v.ndim))] - start if m > 1 else 0
                 for n, m in enumerate(v.shape)]
        one_view = v.size == 0 or (places == start + sum(
            np.arange(m).reshape([-1 if a == n else 1 for a in range(v.ndim)]) * t
            for n, (m, t) in enumerate(zip(v.shape, steps)))).all()
        # NB: only an axis across values and lanes at once (a diagonal's k + 1) is refused though one view exists
        assert not one_view or any(m > 1 and t % k and abs(t) > k for m, t in zip(v.shape, v.strides))
        return
    assert moved.shape == v.shape
    np.testing.assert_array_equal(realize(moved, old.size), places)


def test_lanes_first_of_a_whole_storage_and_of_a_flat_run_across_lanes():
    assert V.lanes_first(V.contiguous((8, 6)), (8, 6)) == V.View.make((8, 6), (1, 8))
    assert V.lanes_first(V.View.make((24,), (1,)), (4, 6)) is None  # NB: rows of 6 run into each other
    assert V.lanes_first(V.View.make((4, 2), (6, 1), 1), (4, 6)) == V.View.make((4, 2), (1, 4), 4)


def test_outer_lanes_are_a_loops_rows():
    rows = V.lane_view([V.index(V.contiguous((5, 7)), (i,)) for i in range(5)])  # NB: x[i]: x.T
    cols = V.lane_view([V.index(V.contiguous((5, 7)), (slice(None), j)) for j in range(7)])
    assert V.outer_lanes(rows) and not V.outer_lanes(cols)
    assert not V.outer_lanes(V.contiguous((1, 5)))  # NB: one value per lane: nothing to move
