"""Every way of failing is a clear one: NumPy's exception type (or elena_jax's
own), a message naming the user's file and line and the construct, and the
caller's arrays left exactly as they were."""

import re

import numpy as np
import pytest

import elena_jax

HERE = re.escape(__file__.rsplit("/", 1)[-1])


def fails(f, *args, exc, match=""):
    with pytest.raises(exc, match=match) as info:
        elena_jax.functionalize(f)(*args)
    text = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert re.search(HERE + r":\d+", text), f"no user line in: {text}"
    return info.value


def test_unsupported_numpy_function():
    def f(a):
        return np.lexsort((a, a))

    fails(f, np.ones(3), exc=elena_jax.UnsupportedError, match="lexsort")


def test_string_and_object_arguments():
    def f(a):
        return a

    with pytest.raises(elena_jax.UnsupportedError, match="dtype"):
        elena_jax.functionalize(f)(np.array(["a", "b"]))
    with pytest.raises(elena_jax.UnsupportedError, match="dtype"):
        elena_jax.functionalize(f)(np.array([object(), 1]))


def test_data_dependent_control_flow():
    def f(x):
        if (x > 0).any():
            return x
        return -x

    fails(f, np.ones(3), exc=elena_jax.ConcretizationError, match=r"bool\(\)")


def test_shape_mismatch_is_numpys_valueerror():
    def f(a, b):
        return a + b

    fails(f, np.ones(3), np.ones(4), exc=ValueError, match="could not be broadcast")


def test_static_out_of_range_index():
    def f(a):
        return a[10]

    fails(f, np.ones(5), exc=IndexError, match="out of bounds")


def test_write_into_read_only_views():
    def into_broadcast(a):
        v = np.broadcast_to(a, (3, 3))
        v[0] = 1
        return a

    def into_diagonal(a):
        a.diagonal()[:] = 0
        return a

    fails(into_broadcast, np.ones(3), exc=ValueError, match="read-only")
    fails(into_diagonal, np.ones((3, 3)), exc=ValueError, match="read-only")


def test_forbidden_cast_is_numpys_error():
    def f(a):
        a += 1.5
        return a

    fails(f, np.ones(3, np.int64), exc=TypeError, match="Cannot cast ufunc 'add' output")


def test_data_dependent_output_shape():
    def f(a):
        return np.nonzero(a)

    fails(f, np.ones(3), exc=elena_jax.ConcretizationError, match="depends on the data")


def test_a_failing_call_leaves_every_caller_array_unchanged():
    def f(a, b):
        a[:] = 1.0
        b *= 2
        a[0] = b.sum()
        return a + b[:2]  # b has 3 elements: fails after several writes

    a, b = np.zeros(4), np.arange(3.0)
    before_a, before_b = a.copy(), b.copy()
    with pytest.raises(ValueError):
        elena_jax.functionalize(f)(a, b)
    np.testing.assert_array_equal(a, before_a)
    np.testing.assert_array_equal(b, before_b)


def test_copyto_casts_as_numpy_decides():
    def weak_float_into_bool(a):
        np.copyto(a, 0.5, where=a)
        return a

    def strong_float_scalar_into_int(a):
        np.copyto(a, np.float64(1.0))
        return a

    fails(weak_float_into_bool, np.ones(3, bool), exc=TypeError, match="Cannot cast")
    fails(strong_float_scalar_into_int, np.ones(3, np.int32), exc=TypeError, match="Cannot cast")


def test_out_of_range_python_int_write_is_numpys_overflowerror():
    def f(a):
        a[0] = -7
        return a

    fails(f, np.zeros(3, np.uint8), exc=OverflowError, match="out of bounds")
