"""Boolean-mask selections with a traced mask (elena_jax/numpy/masked.py)."""

import numpy as np
import pytest

import elena_jax
from elena_jax.testing import check_against_numpy


def run_both(f, *args):
    np_args = [a.copy() for a in args]
    ej_args = [a.copy() for a in args]
    want = f(*np_args)
    got = elena_jax.functionalize(f)(*ej_args)
    for w, g in zip(np.atleast_1d(want) if not isinstance(want, tuple) else want,
                    np.atleast_1d(got) if not isinstance(got, tuple) else got):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)
        assert np.asarray(g).dtype == np.asarray(w).dtype
    for n, e in zip(np_args, ej_args):
        np.testing.assert_array_equal(e, n)


def scale_selected(a):
    m = a > 0.5
    a[m] *= 2
    a[m] += 1
    return a


def copy_selected(a, b):
    m = a > b
    a[m] = b[m]
    return a


def rows_by_first_column(a):
    m = a[:, 0] > 0.5
    a[m] = -1
    a[m] *= 3
    return a


def selected_statistics(a):
    m = (a > 0.2) & (a < 0.9)
    return a[m].sum(), a[m].mean(), np.count_nonzero(a[m]), np.sum(a[m] * 2)


def integer_selection(a):
    m = a % 3 == 0
    a[m] //= 3
    a[m] -= 1
    return a


@pytest.mark.parametrize("f,args", [
    (scale_selected, (np.random.default_rng(0).uniform(size=(6, 3)),)),
    (copy_selected, tuple(np.random.default_rng(1).uniform(size=(2, 5, 4)))),
    (rows_by_first_column, (np.random.default_rng(2).uniform(size=(7, 3)),)),
    (selected_statistics, (np.random.default_rng(3).uniform(size=(40,)),)),
    (integer_selection, (np.arange(-7, 13, dtype=np.int32).reshape(4, 5),)),
], ids=lambda x: getattr(x, "__name__", ""))
def test_masked_selection_matches_numpy(f, args):
    run_both(f, *args)


def test_shape_of_a_traced_selection_is_refused_with_the_line():
    def f(a):
        return a[a > 0].reshape(-1, 2)

    with pytest.raises(elena_jax.ConcretizationError, match=r"data-dependent shape[\s\S]*test_masked.py"):
        elena_jax.functionalize(f)(np.arange(4.0))


# --- a traced mask beside basic indices ----------------------------------------------------------
# NumPy turns the mask into index arrays and places them, with the key's integers, as advanced
# indices; the rest of the key is basic. These were wrong until session 18: the entries after the
# mask were ignored (``p[m, 3] *= 0.5`` scaled whole rows; an acceptance campaign's find).
def scale_one_column_of_selected_rows(p):
    p[p[:, 0] > 0, 3] *= 0.5
    return p, p[p[:, 1] > 0, 2].sum(), p[p[:, 2] < 0, 1:].mean()


def write_column_ranges_of_selected_rows(a):
    m = a[:, 0] > 0
    a[m, 1:3] = 0
    a[m, ::2] += 1
    a[m, 0] = a[m, 1]
    return a


def zero_one_channel_where_bright(img):
    img[img.sum(axis=2) > 1.5, 1] = 0
    return img


def mask_after_an_integer_and_a_slice(a):
    a[0, a[0] > 0.5] = 9  # NB: mask on a later axis: its selection stands where the mask stands
    a[:, a[1, :, 0] > 0.5] = -1
    a[1, :, a[1, 0] < 0.5] *= 2  # NB: integer and mask apart: NumPy puts the selection first
    return a


def causal_scores_masked(s):
    causal = np.triu(np.ones(s.shape[-2:], bool), 1) & (s[0] > 0.2)
    s[:, causal] = -np.inf
    return s


def value_broadcast_around_the_selection(a):
    a[:, a[0, :, 0] > 0.5] = np.arange(3.0)[:, None, None]  # NB: (3, 1, 1) fits a[:, m]: (3, k, 2)
    a[a[:, 0, 0] > 0.5, ..., 1] = np.arange(4.0)
    return a


@pytest.mark.parametrize("f,args", [
    (scale_one_column_of_selected_rows, (np.arange(20.0).reshape(5, 4) - 8,)),
    (write_column_ranges_of_selected_rows, (np.random.default_rng(4).normal(size=(9, 5)),)),
    (zero_one_channel_where_bright, (np.random.default_rng(5).uniform(size=(4, 5, 3)),)),
    (mask_after_an_integer_and_a_slice, (np.random.default_rng(6).uniform(size=(3, 4, 5)),)),
    (causal_scores_masked, (np.random.default_rng(7).uniform(size=(2, 5, 5)),)),
    (value_broadcast_around_the_selection, (np.random.default_rng(8).uniform(size=(3, 4, 2)),)),
], ids=lambda x: getattr(x, "__name__", ""))
def test_mask_beside_basic_indices_matches_numpy(f, args):
    run_both(f, *args)


@pytest.mark.parametrize("f,exc,match", [
    (lambda a: a[:, a[0] > 0], elena_jax.ConcretizationError, "data-dependent shape"),
    (lambda a: a.__setitem__((a[:, 0] > 0, 1), np.ones(3)), elena_jax.ConcretizationError,
     "one count of selected elements"),
    (lambda a: a.__setitem__((a[:, 0] > 0, slice(0, 2)), np.ones(3)), ValueError,
     r"could not be broadcast to indexing result of shape \(k,2\)"),
    (lambda a: a[a[:2, 0] > 0, 1], IndexError, "boolean index did not match indexed array along axis 0"),
    (lambda a: a.__setitem__((a[:, 0] > 0, [0, 1]), 0.0), elena_jax.ConcretizationError, "other index arrays"),
])
def test_mask_beside_basic_indices_refusals(f, exc, match):
    """NumPy's errors where every count of True values fails; a value that fits one count only,
    a selection not in front, or a mask beside index arrays: data-dependent, refused."""
    a = np.random.default_rng(9).normal(size=(6, 4))
    if exc is not elena_jax.ConcretizationError:
        with pytest.raises(exc):
            f(a.copy())
    with pytest.raises(exc, match=match):
        elena_jax.functionalize(f)(a)


# --- one mask spelled twice ----------------------------------------------------------------------
def bisection_step_with_inverted_masks(lo, hi, mid):
    big = mid > 0.5
    lo[~big] = mid[~big]  # NB: two ~big: equal masks, computed alike from the same unchanged big
    hi[mid > 0.5] = mid[mid > 0.5] * 2
    lo[~(mid > 0.5)] += hi[~(mid > 0.5)]
    return lo, hi


def test_masks_computed_alike_from_the_same_operands_are_one_mask():
    """``a[~m] = b[~m]``: the two selections are of equal masks (one op each, the same operands,
    nothing written between); refused until session 18 as different mask objects."""
    rng = np.random.default_rng(10)
    run_both(bisection_step_with_inverted_masks, *rng.uniform(size=(3, 9)))


def test_a_mask_recomputed_after_a_write_is_another_mask():
    def f(a, b):
        m = a > 0.5
        a[0] = 0.9
        b[m] = a[a > 0.5]  # NB: a changed between the two masks: they may differ
        return b

    with pytest.raises(elena_jax.ConcretizationError, match="needs the same mask"):
        elena_jax.functionalize(f)(np.linspace(0, 1, 6), np.zeros(6))


def selection_reductions(a):
    m = a[:, 0] > 0
    return a[m, 1].max(initial=-9.0), np.min(a[m], initial=5.0), a[m].prod(), (a[m] > 0.5).any(), np.all(a[m, 2] < 2)


def test_reductions_of_a_selection_match_numpy():
    run_both(selection_reductions, np.random.default_rng(13).normal(size=(7, 3)))
    run_both(selection_reductions, -np.ones((4, 3)))  # NB: nothing selected: initial=, identities


def test_max_of_a_selection_without_initial_is_refused():
    """NumPy raises for the maximum of an empty selection: whether it does depends on the data."""
    with pytest.raises(elena_jax.ConcretizationError, match="without initial="):
        elena_jax.functionalize(lambda a: a[a > 0].max())(np.ones(3))


# --- review findings (session 18) ------------------------------------------------------------------
def test_masks_from_constants_of_other_signs_are_other_masks():
    """0.0 and -0.0 are equal numbers but make other masks (np.signbit): not one mask."""
    def f(a):
        m1 = np.signbit(a[:, 0] * 0.0)
        m2 = np.signbit(a[:, 0] * -0.0)
        a[m1, 1] = a[m2, 2]
        return a

    with pytest.raises(elena_jax.ConcretizationError, match="needs the same mask"):
        elena_jax.functionalize(f)(np.array([[1.0, 10, 20], [-1.0, 30, 40]]))


def selection_reductions_keepdims(x, y):
    s, t = x[x > 0], y[y[:, 0] > 0]
    return (s.any(keepdims=True), s.max(initial=0.0, keepdims=True), s.sum(keepdims=True), s.mean(keepdims=True),
            t.prod(keepdims=True), np.sum(t, keepdims=True), (~(t > 0.5)).sum(), t.astype(np.float16).mean())


def test_reductions_of_a_selection_keep_numpys_dims_and_dtypes():
    """a[m] has the mask's axes as one: keepdims gives (1,) of a full mask, (1, 1) of a row mask;
    the mean of a float16 selection is float16 (it was float64)."""
    rng = np.random.default_rng(14)
    run_both(selection_reductions_keepdims, rng.normal(size=(3, 4)), rng.normal(size=(5, 3)))


def test_a_mask_written_after_its_selection_is_refused():
    """The selection holds the mask's values when it was taken; NumPy's later a[m] uses the new."""
    def f(a, m):
        s = a[m, 1]
        m[:] = ~m
        a[m, 2] = s
        return a

    def g(a, m):
        s = a[m, 1]
        m[0] = True
        return s.sum()

    args = (np.arange(12.0).reshape(4, 3), np.array([True, False, True, False]))
    with pytest.raises(elena_jax.ConcretizationError, match="needs the same mask"):
        elena_jax.functionalize(f)(*[x.copy() for x in args])
    with pytest.raises(elena_jax.UnsupportedError, match="written after the selection"):
        elena_jax.functionalize(g)(*[x.copy() for x in args])


def test_an_in_place_operator_on_a_selection_casts_as_numpy():
    def f(a):
        a[a > 2] += 1.5  # NB: int += float: NumPy's UFuncTypeError (same_kind)
        return a

    with pytest.raises(np._core._exceptions._UFuncOutputCastingError):
        f(np.arange(5))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        elena_jax.functionalize(f)(np.arange(5))


def test_a_mask_beside_empty_axes_writes_nothing():
    def f(x, m):
        x[:, :, :, m] = np.array([[5.0], [6.0]])
        return x

    run_both(f, np.zeros((0, 1, 2, 2)), np.array([True, False]))


def test_shift_operators_on_a_selection():
    """``k[m] <<= 1`` raised Python's TypeError (Masked had no shift operators; an acceptance
    campaign's find)."""
    def f(k):
        k[k > 5] <<= 1
        k[k > 20] >>= 2
        return k, (k[k > 3] << 1).sum()

    run_both(f, np.arange(10, dtype=np.int16))


def selection_reductions_along_axes(vel, pos, v3):
    s, t = vel[pos[:, 0] > 0.5], v3[v3[..., 0] > 0]
    return (s.mean(axis=0), s.sum(axis=0), s.max(axis=0, initial=-1.0), np.sum(s, axis=(0, 1)),
            s.min(axis=-2, initial=5.0, keepdims=True), np.count_nonzero(s > 0, axis=0), s.prod(axis=0),
            np.any(s > 3, axis=0), s.sum(0, keepdims=True), np.mean(s, axis=0, dtype=np.float32),
            t.sum(axis=0), t.mean(axis=0, keepdims=True), t.max(axis=(0, 1), initial=0))


def test_reductions_of_a_selection_along_its_axis_match_numpy():
    """Along the selected elements' axis (vel[m].mean(axis=0)) the result's shape is the other
    axes', whatever the count: refused before (an acceptance campaign's find); along another axis
    the shape is the count's, refused."""
    rng = np.random.default_rng(15)
    vel = rng.normal(size=(40, 3)) * 10.0 ** rng.integers(-3, 3, (40, 3))
    run_both(selection_reductions_along_axes, vel, rng.uniform(size=(40, 2)), rng.normal(size=(5, 6, 4)))
    with pytest.raises(elena_jax.ConcretizationError, match=r"along axes \(1,\)[\s\S]*test_masked.py"):
        elena_jax.functionalize(lambda v: v[v[:, 0] > 0].sum(axis=1))(vel)
    for axis, error in (((0, 0), ValueError), ((0, -2), ValueError), (0.0, TypeError), (2, np.exceptions.AxisError)):
        with pytest.raises(error):  # NB: NumPy's errors of the axis, before the count's question
            vel[vel[:, 0] > 0].sum(axis=axis)
        with pytest.raises(error):
            elena_jax.functionalize(lambda v, axis=axis: v[v[:, 0] > 0].sum(axis=axis))(vel)


def selection_sums(a, b):
    """Sums of whole selections: NumPy's a[m] is a fresh C-ordered array, summed as one run."""
    m, rows, strided = a > 0.3, b[:, 0] > 0, a.reshape(-1, 10)[:, ::3]
    return (a[m].sum(), a[m].mean(), np.sum(b[rows]), b[rows].mean(keepdims=True), b[b < 0.5].sum(initial=-2.5),
            strided[strided > 0].sum(), a.astype(np.float32)[m].sum(), a[a > 9].sum(), a[a > 9].mean())


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
def test_sums_of_a_selection_are_numpys_bit_for_bit():
    """NumPy adds the selected elements pairwise as one run (its recursion depends on their
    count): a masked sum of the full array, with the rest as -0.0, was an ulp off in 111 of 200
    selections (an acceptance campaign's find); the run's recursion is followed at every count."""
    rng = np.random.default_rng(16)
    for n, optimize in ((24, True), (200, False)):  # NB: the passes on and off, one compile each
        a = rng.normal(100, 5, n * 10) * 10.0 ** rng.integers(-4, 4, n * 10)
        check_against_numpy(selection_sums, a, rng.normal(size=(n, 7)), rtol=0, atol=0, optimize=(optimize,))
    check_against_numpy(selection_sums, np.full(30, -1.0), -np.ones((3, 7)), rtol=0, atol=0,  # NB: none selected
                        optimize=(True,))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sums_of_a_selection_are_numpys_bit_for_bit(dtype):
    """A complex run is summed as its interleaved real and imaginary values, each part in its own
    lanes: its masked sum (and mean) were an ulp off in 28 of 30 selections of 300 values."""
    rng = np.random.default_rng(17)
    for n, optimize in ((5, True), (300, False), (3000, True)):
        a = (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(dtype) * 10.0 ** rng.integers(-3, 3, n)
        check_against_numpy(lambda a: (a[a.real > -0.3].sum(), a[a.imag > 0].mean(), a[a.real > 9].sum()), a,
                            rtol=0, atol=0, optimize=(optimize,))


def dirichlet_rows(K, v):
    m = v > 0
    K[m, :] = 0.0
    K[m, m] = 1.0  # NB: NumPy pairs the selected indices with themselves: the diagonal's elements
    return K, K[m, m].sum(), (K[m, m] * 2).max(initial=-1.0)


def test_one_mask_on_two_axes_selects_the_diagonal():
    """K[m, m] with one traced mask on two axes of its length (the finite-element Dirichlet idiom)
    was refused as two masks; it is the diagonal's selection (an acceptance campaign's find,
    session 20). Other pairs of masks stay refused: their pairing depends on the counts."""
    rng = np.random.default_rng(17)
    check_against_numpy(dirichlet_rows, rng.normal(size=(6, 6)), rng.normal(size=6), rtol=0, atol=0)

    def stacked(K, v):
        K[1:, v > 0, v > 0] = -3.0
        return K

    check_against_numpy(stacked, rng.normal(size=(3, 6, 6)), rng.normal(size=6), rtol=0, atol=0)
    with pytest.raises(elena_jax.ConcretizationError, match="beside other index arrays"):
        elena_jax.functionalize(lambda K, v: K[v > 0, v > 1].sum())(rng.normal(size=(6, 6)), rng.normal(size=6))
    with pytest.raises(IndexError, match="along axis 1; size of axis is 4"):  # NB: NumPy's, whatever the data
        elena_jax.functionalize(lambda K, v: K[v > 0, v > 0].sum())(np.zeros((3, 4)), rng.normal(size=3))


def updates_at_a_mask(x, y, i):
    np.add.at(x, x > 0, 1.0)
    np.multiply.at(y, (y[:, 0] > 0, 1), 2.0)
    np.negative.at(x, x < -0.5)
    np.maximum.at(i, i > 2, 4)
    np.add.at(i, i < 2, 1.5)  # NB: computed in float64, cast back into the integers
    return x, y, i


def test_ufunc_at_with_a_traced_mask_updates_each_selected_element_once():
    """np.add.at(x, x > 0, 1.0): a mask selects each element once, a[mask] = op(a[mask], b) (a raw
    JAX error before; found by a review, session 20)."""
    rng = np.random.default_rng(18)
    check_against_numpy(updates_at_a_mask, rng.normal(size=6), rng.normal(size=(4, 3)), np.arange(6), rtol=0, atol=0)


def selection_averages(a, w):
    m = a[:, 0] > 0
    return (np.average(a[m], weights=w[m]), np.average(a[m], axis=0, weights=w[m], returned=True),
            np.average(a[m]), np.average(a[m], axis=0, returned=True), np.average(a[m], returned=True),
            np.average(a.astype(np.float32)[m], weights=w.astype(np.float32)[m], axis=(0, 1), keepdims=True),
            np.average(a[m, 0], weights=w[m, 0]), np.average((a > 0).astype(int)[m], weights=w[m]))


def test_averages_of_a_selection_are_numpys():
    """np.average of a selection, weighted by a selection of the same mask: NumPy's steps on the
    selections' sums (refused before; an acceptance campaign's find). Weights selected by another
    mask are refused; weights summing to zero raise ZeroDivisionError in checked mode."""
    rng = np.random.default_rng(3)
    check_against_numpy(selection_averages, rng.normal(size=(40, 3)), rng.random((40, 3)), rtol=0, atol=0)
    with pytest.raises(elena_jax.ConcretizationError, match="np.average with weights that are not a selection"):
        elena_jax.functionalize(lambda a, w: np.average(a[a > 0], weights=w[w > 0]))(np.ones(3), np.ones(3))
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        elena_jax.functionalize(lambda a, w: np.average(a[a > 0], weights=w[a > 0]), checked=True)(
            np.ones(3), np.array([1.0, -1.0, 0.0]))


def center_positive(x):
    pos = x[x > 0]  # the line of the selection, which the error names
    q = np.sqrt(pos)
    return q - q.mean()


def test_a_returned_selection_names_the_line_where_it_was_made():
    """An acceptance campaign's find (session 23): values computed from a selection a[mask] and
    returned were reported at the line where they were last computed (q - q.mean()), "needed at" the
    caller's line and "returned by ...: results are arrays and numbers, or pytrees of them", blaming
    the return type. The message names the selection's line and the function whose return needed it."""
    code = center_positive.__code__
    with pytest.raises(elena_jax.ConcretizationError) as e:
        elena_jax.functionalize(center_positive)(np.array([1.0, -2.0, 4.0]))
    message = str(e.value)
    assert f"at {code.co_filename}:{code.co_firstlineno + 1}: pos = x[x > 0]" in message
    assert f"(needed at the return of center_positive ({code.co_filename}:{code.co_firstlineno}))" in message
    assert "results are arrays and numbers" not in message
