"""Boolean-mask selections with a traced mask (elena_jax/numpy/masked.py)."""

import numpy as np
import pytest

import elena_jax


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
