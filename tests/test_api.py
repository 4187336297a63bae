"""The public API: signatures and caching, write-back, and JAX composition."""

import copy
import gc
import re
import threading
import weakref

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import elena_jax
from elena_jax.testing import assert_same, check_against_numpy


def scale_columns(b, h):
    b[:, :2] *= h
    return b.sum(axis=1)


def test_mutated_numpy_argument_is_written_back():
    b = np.arange(12.0).reshape(3, 4)
    expected_b = b.copy()
    expected = scale_columns(expected_b, 2.0)
    got = elena_jax.functionalize(scale_columns)(b, 2.0)
    assert isinstance(got, jax.Array)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(b, expected_b)


def test_one_compiled_program_per_signature():
    calls = []

    def f(x, k):
        calls.append(1)
        return x * k

    g = elena_jax.functionalize(f)
    g(np.ones(3), 2)
    g(np.zeros(3), 2)  # same signature: cached
    assert len(calls) == 1
    g(np.ones(4), 2)  # new shape
    g(np.ones(3, np.float32), 2)  # new dtype
    g(np.ones(3), 3)  # new static value
    assert len(calls) == 4


def test_cache_is_bounded():
    g = elena_jax.functionalize(lambda x: x + 1, cache_size=3)
    for n in range(1, 8):
        g(np.ones(n))
    assert len(g._cache) == 3


TRACED_SHAPES = []


def doubled_after_writing(x):
    TRACED_SHAPES.append(x.shape)
    x[0] = 2.0
    return x * 2


class Named:
    """A callable equal to another of the same name, whatever its weights."""

    def __init__(self, name, w):
        self.name, self.w = name, w

    def __eq__(self, other):
        return isinstance(other, Named) and self.name == other.name

    def __hash__(self):
        return hash(self.name)

    def __call__(self, x):
        return x @ self.w


def test_callables_equal_by_their_eq_have_programs_of_their_own():
    """The shared cache goes by identity: a second layer equal to the first by its __eq__ ran
    the first one's program (the review's find, session 30)."""
    x = np.ones(2)
    layers = [Named("dense", k * np.eye(2)) for k in (1.0, 3.0)]  # NB: both alive
    for k, layer in zip((1.0, 3.0), layers):
        np.testing.assert_array_equal(elena_jax.functionalize(layer)(x), [k, k])


def test_wrappers_of_one_function_share_its_programs():
    """As jax.jit's cache: ``functionalize(f)(x)`` written inline (in a loop, a notebook cell run
    again) traces f once per signature and options, the caller's array written back each time; a
    function no longer referenced is not kept alive by the cache."""
    for _ in range(3):
        a = np.ones(3)
        np.testing.assert_array_equal(elena_jax.functionalize(doubled_after_writing)(a), [4.0, 2.0, 2.0])
        assert a[0] == 2.0
    np.testing.assert_array_equal(elena_jax.pure(doubled_after_writing)(np.ones(3))[1][0], [2.0, 1.0, 1.0])
    assert TRACED_SHAPES == [(3,)]
    elena_jax.functionalize(doubled_after_writing, optimize=False)(np.ones(3))
    elena_jax.functionalize(doubled_after_writing)(np.ones(4))
    assert TRACED_SHAPES == [(3,), (3,), (4,)]

    def local(x):
        return x + 1

    kept = elena_jax.functionalize(local)
    np.testing.assert_array_equal(kept(np.ones(2)), [2.0, 2.0])
    local.__code__ = (lambda x: x * 10).__code__  # NB: as IPython's autoreload does: traced anew
    np.testing.assert_array_equal(elena_jax.functionalize(local)(np.ones(2)), [10.0, 10.0])
    # NB: by a wrapper made before too (it ran the old code: campaign M, session 32)
    np.testing.assert_array_equal(kept(np.ones(2)), [10.0, 10.0])
    gone = weakref.ref(local)
    elena_jax.functionalize(local)(np.ones(2))
    del local, kept
    gc.collect()
    assert gone() is None

def test_decorator_forms_and_static_argnames():
    @elena_jax.functionalize(static_argnames=("axis",))
    def total(x, axis):
        return x.sum(axis=axis)

    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(total(x, axis=1), x.sum(axis=1))


class Scaler:
    @elena_jax.functionalize
    @staticmethod
    def doubled(a):
        return a * 2

    @elena_jax.functionalize(static_argnames="n")
    @classmethod
    def first(cls, a, n):
        return a[: int(n)]


def test_static_and_class_methods_static_argnames_by_position_and_the_cache_size():
    """@functionalize above @staticmethod / @classmethod failed (an AttributeError, "'classmethod' object
    is not callable"); static_argnames did not make a parameter passed by position static (jax.jit's
    does); cache_size=-1 failed at the first call with a KeyError (campaign M, session 32)."""
    a = np.arange(4.0)
    np.testing.assert_array_equal(Scaler.doubled(a), a * 2)
    np.testing.assert_array_equal(Scaler().doubled(a), a * 2)
    np.testing.assert_array_equal(Scaler.first(a, np.float64(2.0)), a[:2])
    g = elena_jax.functionalize(lambda a, n: a[: int(n)], static_argnames="n")
    np.testing.assert_array_equal(g(a, np.float64(3.0)), a[:3])
    np.testing.assert_array_equal(g(a, n=np.float64(3.0)), a[:3])
    for bad in (-1, 0, 2.5):
        with pytest.raises(ValueError, match=r"cache_size must be a positive number of programs"):
            elena_jax.functionalize(lambda a: a, cache_size=bad)


def test_comparisons_with_strings_and_none_jax_functions_and_keys():
    """``a == "x"`` and ``a != None`` are NumPy's arrays of no element equal (refused: no such ufunc
    loop); a JAX function functionalized (jax.jit's, jnp.cumsum) and a PRNG key argument raised JAX's
    TypeError or an AttributeError at no line (campaign M, session 32)."""
    check_against_numpy(lambda a: (a == "x", a != "x", a == None, a != None, a != b"x"),  # noqa: E711
                        np.arange(4.0))
    for f in (jax.jit(lambda a: a * 2), jnp.cumsum):
        with pytest.raises(elena_jax.UnsupportedError, match=r"the function given is JAX's own: call it as it is"):
            elena_jax.functionalize(f)(np.arange(4.0))
    with pytest.raises(elena_jax.UnsupportedError, match=r"argument key, an array of dtype key<fry>: not supported"
                                                         r" by elena_jax \(JAX's own type"):
        elena_jax.functionalize(lambda a, key: a * 2)(np.arange(3.0), jax.random.key(0))


def test_pytree_arguments_and_results():
    @elena_jax.functionalize
    def f(d):
        d["a"][0] = 7
        return {"sum": d["a"] + d["b"], "pair": (d["b"], 1)}

    d = {"a": np.zeros(2, np.int32), "b": np.ones(2, np.int32)}
    out = f(d)
    np.testing.assert_array_equal(d["a"], [7, 0])
    np.testing.assert_array_equal(out["sum"], [8, 1])
    assert out["sum"].dtype == np.int32 and int(out["pair"][1]) == 1


def test_pure_returns_updated_arguments_and_composes_with_jit():
    g = jax.jit(elena_jax.pure(scale_columns))
    b = jnp.arange(12.0).reshape(3, 4)
    result, (new_b, h) = g(b, 3.0)
    expected_b = np.arange(12.0).reshape(3, 4)
    expected = scale_columns(expected_b, 3.0)
    np.testing.assert_array_equal(new_b, expected_b)
    np.testing.assert_array_equal(result, expected)


def test_immutable_argument_write_warns_once_naming_it():
    g = elena_jax.functionalize(scale_columns)
    b = jnp.ones((2, 4))
    with pytest.warns(UserWarning, match=r"argument b.*elena_jax.pure"):
        g(b, 2.0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g(b, 2.0)  # once only


def reshaped_in_place(a, big):
    a.shape = (2, 8)
    a[0, 0] = 99
    big.shape = (32,)
    return a.sum(axis=1)


def test_setting_an_arguments_shape_reshapes_the_callers_array():
    """``a.shape = (2, 8)`` of an argument reshapes the caller's array in NumPy; elena_jax wrote the
    values back and left the old shape (campaign L, session 32). A strided argument too (its View
    reshapes as NumPy's), and pure's new arguments have the new shape."""
    big = np.arange(64.0).reshape(8, 8)
    for a, b in [(np.arange(16.0).reshape(4, 4), np.arange(32.0).reshape(4, 8)), (big[:4, ::2], big[4:])]:
        want_args = copy.deepcopy((a, b))
        want = reshaped_in_place(*want_args)
        got = elena_jax.functionalize(reshaped_in_place)(a, b)
        np.testing.assert_array_equal(got, want)
        for x, w in zip((a, b), want_args):
            assert x.shape == w.shape
            np.testing.assert_array_equal(x, w)
    copies = []
    real_copyto = np.copyto
    np.copyto = lambda *args, **kwargs: (copies.append(1), real_copyto(*args, **kwargs))[1]
    try:  # NB: written and reshaped, an argument is copied back once (session 32's review)
        elena_jax.functionalize(reshaped_in_place)(np.arange(16.0).reshape(4, 4), np.arange(32.0).reshape(4, 8))
    finally:
        np.copyto = real_copyto
    assert len(copies) == 1
    _, (a, b) = elena_jax.pure(reshaped_in_place)(np.arange(16.0).reshape(4, 4), np.arange(32.0).reshape(4, 8))
    assert (a.shape, b.shape) == ((2, 8), (32,)) and np.asarray(a)[0, 0] == 99
    with pytest.warns(UserWarning, match=r"argument big \(or sets its shape\), which is immutable"):
        elena_jax.functionalize(reshaped_in_place)(np.ones((4, 4)), jnp.ones((4, 8)))


def rotate_half(x):
    d = x.shape[-1] // 2
    out = np.empty_like(x)
    out[..., :d] = -x[..., d:]
    out[..., d:] = x[..., :d]
    return out


def test_jax_literal_types_are_the_arrays_and_numbers_they_stand_for():
    """JAX 0.10 passes NumPy arrays and Python numbers into custom_vjp/custom_jvp functions and
    jax.grad(allow_int=True) as its TypedNdArray / TypedFloat: refused as an ndarray subclass, or a
    crash in NumPy's dtype resolution (campaign K, session 32)."""
    x = np.arange(12, dtype=np.float32).reshape(2, 6)

    @jax.custom_vjp
    def rotated(x):
        return elena_jax.functionalize(rotate_half)(x)

    rotated.defvjp(lambda x: (rotated(x), None), lambda _, g: (-elena_jax.functionalize(rotate_half)(g),))

    @jax.custom_jvp
    def scaled(x, a):
        return elena_jax.functionalize(lambda x, a: x * a)(x, a)

    scaled.defjvp(lambda p, t: (scaled(*p), t[0] * p[1]))
    np.testing.assert_array_equal(rotated(x), rotate_half(x))
    np.testing.assert_array_equal(jax.grad(lambda v: (rotated(v) * np.arange(12.0).reshape(2, 6)).sum())(x),
                                  -rotate_half(np.arange(12.0, dtype=np.float32).reshape(2, 6)))
    np.testing.assert_array_equal(scaled(jnp.asarray(x), 2.0), x * 2.0)
    g = jax.grad(elena_jax.functionalize(lambda x, k: (x[k] ** 2).sum()), argnums=(0, 1), allow_int=True)
    np.testing.assert_array_equal(g(x[0], np.array([1, 1, 3]))[0], np.array([0, 4, 0, 6, 0, 0], np.float32))

    @jax.custom_jvp
    def bumped(x):  # NB: pure finds the argument JAX passed by its identity (session 32's review)
        return elena_jax.pure(lambda x: (x.__setitem__(0, x[0] + 100), x * 2)[1])(x)[1][0]

    bumped.defjvp(lambda p, t: (bumped(*p), t[0]))
    np.testing.assert_array_equal(bumped(np.arange(3, dtype=np.float32)), [100, 1, 2])
    k = np.array([1, 1, 3])  # NB: JAX passes its own copy: a write cannot reach k, and says so
    with pytest.warns(UserWarning, match=r"writes into argument k .*which is immutable \(TypedNdArray\)"):
        jax.grad(elena_jax.functionalize(lambda x, k: (k.__setitem__(2, 0), (x[k] ** 2).sum())[1]),
                 argnums=(0, 1), allow_int=True)(x[0], k)
    np.testing.assert_array_equal(k, [1, 1, 3])


def test_outer_transformations_messages_name_what_to_do():
    """A static argument an outer jax.jit traces said "neither an array nor hashable; make it a
    static argument" (it is one); an export of symbolic dimensions failed inside the View algebra
    with JAX's InconclusiveDimensionOperation; bfloat16 (no NumPy type) is refused, saying what to
    do (campaign K, session 32)."""
    x = np.arange(4.0)
    g = elena_jax.functionalize(lambda x, k: x * k, static_argnums=1)
    for transform in (jax.jit, jax.grad):
        with pytest.raises(TypeError, match=r"argument k is marked static .* mark it static there too .*"
                                            r"functools\.partial\(g, \.\.\.\), under jax\.vmap or jax\.grad"):
            transform(lambda x, k: g(x, k).sum(), argnums=1)(x, 2.0) if transform is jax.grad else transform(g)(x, 2)
    with pytest.raises(elena_jax.UnsupportedError, match=r"dtype bfloat16: not supported .*JAX's own type"):
        elena_jax.functionalize(lambda x: x * 2)(jnp.ones(3, jnp.bfloat16))
    (b,) = jax.export.symbolic_shape("b")
    with pytest.raises(elena_jax.UnsupportedError, match=r"argument x has symbolic dimensions, \(b, 6\) .*export it "
                                                         r"with concrete ones"):
        jax.export.export(jax.jit(lambda x: elena_jax.pure(rotate_half)(x)[0]))(
            jax.ShapeDtypeStruct((b, 6), jnp.float32))


@pytest.mark.parametrize("use, data_dependent", [(lambda b, A: A @ b, False),
                                                 (lambda b, A: np.linalg.solve(A, b), False),
                                                 (lambda b, A: np.sort(A, axis=0)[0] + b, False),
                                                 (lambda b, A: b if A.sum() > 0 else -b, True)])
def test_a_value_of_an_outer_transformation_taken_from_outside_is_refused_saying_what_to_do(use, data_dependent):
    """A JAX tracer of an outer jax.jit that the function closes over: NumPy's conversion of it
    raised JAX's TracerArrayConversionError (TracerBoolConversionError for ``if``), which names the
    conversion, not the fix; elena_jax's refusal says to pass it as an argument, at the user's line
    (session 39), as where elena_jax meets such a value itself. Passed as an argument, the same code
    runs (but for the data-dependent ``if``, refused as such)."""
    a = jnp.array([[2.0, 1.0], [1.0, 3.0]])
    with pytest.raises(elena_jax.UnsupportedError, match=r"outer JAX transformation .* pass it as an argument "
                                                         r"instead\n  at .*test_api.py"):
        jax.jit(lambda a, b: elena_jax.functionalize(lambda b: use(b, a))(b))(a, jnp.ones(2))
    as_argument = jax.jit(elena_jax.functionalize(use))
    if data_dependent:
        with pytest.raises(elena_jax.ConcretizationError, match="data-dependent Python control flow"):
            as_argument(jnp.ones(2), a)
    else:
        np.testing.assert_allclose(as_argument(jnp.ones(2), a), use(np.ones(2), np.asarray(a)), rtol=1e-6)


def decode(boxes, deltas):
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    out = np.empty_like(boxes)
    out[:, 0::4] = (boxes[:, 0] + deltas[:, 0] * w)[:, None]
    out[:, 1::4] = (boxes[:, 1] + deltas[:, 1] * h)[:, None]
    out[:, 2::4] = (boxes[:, 2] + deltas[:, 2] * w)[:, None]
    out[:, 3::4] = (boxes[:, 3] + deltas[:, 3] * h)[:, None]
    return out


def decode_at(boxes, deltas):
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    out = jnp.empty_like(boxes)
    out = out.at[:, 0].set(boxes[:, 0] + deltas[:, 0] * w)
    out = out.at[:, 1].set(boxes[:, 1] + deltas[:, 1] * h)
    out = out.at[:, 2].set(boxes[:, 2] + deltas[:, 2] * w)
    return out.at[:, 3].set(boxes[:, 3] + deltas[:, 3] * h)


def _boxes(n, seed=0):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0, 10, (n, 4))
    b[:, 2:] += b[:, :2]
    return b, rng.normal(size=(n, 4))


def test_inside_jax_jit_and_grad_matches_handwritten_at():
    b, d = _boxes(6)
    g = elena_jax.functionalize(decode)
    loss = lambda d: jnp.sum(g(b, d) ** 2)
    ref = lambda d: jnp.sum(decode_at(b, d) ** 2)
    with jax.enable_x64(True):
        np.testing.assert_allclose(jax.jit(loss)(d), ref(d), rtol=1e-12)
        np.testing.assert_allclose(jax.grad(loss)(d), jax.grad(ref)(d), rtol=1e-12)


def test_vmap_matches_a_python_loop_over_numpy():
    b, _ = _boxes(5)
    ds = np.stack([_boxes(5, seed)[1] for seed in range(3)])
    g = elena_jax.functionalize(decode)
    with jax.enable_x64(True):
        got = jax.vmap(lambda d: g(b, d))(ds)
    np.testing.assert_allclose(got, np.stack([decode(b, d) for d in ds]), rtol=1e-12)


def test_vmap_of_numpy_float64_with_64_bit_types_off_is_jaxs_float32():
    # NB: jax.vmap converts a NumPy float64 argument to float32 only as JAX's types say; elena_jax
    # runs its program with 64-bit types on, and must still receive what the trace saw
    assert not jax.config.jax_enable_x64
    x = np.linspace(0, 1, 8).reshape(2, 4)
    got = jax.vmap(elena_jax.functionalize(lambda r: np.cumsum(r[::-1]) * 2))(x)
    want = jax.vmap(lambda r: jnp.cumsum(r[::-1]) * 2)(x)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, np.cumsum(x[:, ::-1], axis=1) * 2, rtol=1e-6)
    counts, edges = jax.vmap(elena_jax.pure(lambda r: np.histogram(r, bins=3)))(x)[0]
    assert counts.shape == (2, 3) and edges.dtype == np.float32


def test_argmax_inside_a_32_bit_jit():
    """lax's argmax lowered its index type by the caller's 32-bit mode inside this 64-bit program:
    XLA's verifier refused ``jax.jit(elena_jax.pure(f))`` of any argmax (an acceptance campaign's
    find: partial pivoting, ``a[[0, p]] = a[[p, 0]]`` with ``p = np.argmax(...)``)."""
    assert not jax.config.jax_enable_x64

    def pivot(a):
        p = np.argmax(np.abs(a[:, 0]))
        a[[0, p]] = a[[p, 0]]
        return a, np.argmin(a, axis=1), np.nanargmax(a, axis=0), np.argmax(a + 1j)

    def pivot_augmented(a):  # NB: float64 inside (np.eye), whose float32 start value JAX's argmax made
        aug = np.hstack([a, np.eye(3, 2)])
        p = np.argmax(np.abs(aug[:, 0]))
        return aug[p], np.argmin(aug > 0, axis=0)

    a = np.array([[1.0, 2.0], [-5.0, 0.5], [3.0, -1.0]], np.float32)
    for f in (pivot, pivot_augmented):
        got = jax.jit(elena_jax.pure(f))(a)[0]
        want = f(a.copy())
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), w)


def test_make_jaxpr_has_plain_lax_and_no_scatter_for_basic_views():
    b, d = _boxes(4)
    jaxpr = elena_jax.make_jaxpr(decode)(b, d)
    text = str(jaxpr)
    assert type(jaxpr).__name__ == "ClosedJaxpr"
    assert "scatter" not in text and "gather" not in text
    assert "dynamic_update_slice" in text or "select" in text


class Model:
    k = 2.0

    @elena_jax.functionalize
    def step(self, a):
        b = a.copy()
        b[:, ::2] *= self.k
        return b


def test_explain_of_a_decorated_method_and_of_a_wrapper_with_static_arguments():
    """explain(m.step) lost the instance ("missing 1 required positional argument") and explain of a
    wrapper its static_argnums (a ConcretizationError where the call runs): campaign M, session 32."""
    x = np.arange(12.0).reshape(3, 4)
    assert "ufunc(name=multiply)" in str(elena_jax.explain(Model().step)(x))
    g = elena_jax.functionalize(lambda a, n: a[:, : int(n)], static_argnums=1)
    assert "== operations" in str(elena_jax.explain(g)(x, np.float64(2.0)))


class Column:
    """A stand-in for a pandas Series: its ``__array__`` makes its array with NumPy's functions."""

    def __init__(self, values):
        self._values = values

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._values, dtype=dtype) * np.ones(len(self._values))


class Frame(Column):
    def __array__(self, dtype=None, copy=None):
        return self._stacked(dtype)  # NB: through a helper method (session 32's second review)

    def _stacked(self, dtype):
        return np.stack([np.asarray(self._values, dtype=dtype), np.zeros(len(self._values))])


def test_an_objects_array_made_by_numpy_functions_is_numpys():
    """``np.asarray(column)`` inside f: the object's own ``__array__`` called np.asarray and np.ones,
    which elena_jax traced, so NumPy got no array ("__array__ method not producing an array": campaign M)."""
    column, frame = Column(np.arange(4.0)), Frame(np.arange(4.0))
    check_against_numpy(lambda a: (a * np.asarray(column), a * np.asarray(frame)), np.ones(4))


def test_explain_shows_storages_views_ops_and_edges():
    def f(a):
        a[1:] += a[:-1]
        return a

    text = str(elena_jax.explain(f)(np.arange(5.0)))
    for part in ("== storages", "== views", "== operations", "== dependences", "RAW", "shape=(4,)"):
        assert part in text
    assert "a[1:] += a[:-1]" in text  # the user's source line


def test_threads_with_different_signatures():
    g = elena_jax.functionalize(scale_columns)
    errors = []

    def work(k):
        try:
            dtype = [np.float64, np.float32][k % 2]
            b = np.arange(4.0 * (k + 2), dtype=dtype).reshape(-1, 4)
            want_b = b.copy()
            want = scale_columns(want_b, 2.0)
            got = g(b, 2.0)
            np.testing.assert_allclose(got, want, rtol=1e-6)
            np.testing.assert_array_equal(b, want_b)
            assert got.dtype == want.dtype
        except Exception as e:  # surfaced below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_tracing_does_not_change_numpy_in_another_thread():
    started, release = threading.Event(), threading.Event()
    seen = []

    def f(x):
        started.set()
        release.wait(10)
        return x + np.zeros(3)

    t = threading.Thread(target=lambda: elena_jax.functionalize(f)(np.ones(3)))
    t.start()
    started.wait(10)
    seen.append(type(np.zeros(3)))  # traced in the other thread right now
    release.set()
    t.join()
    assert seen == [np.ndarray]


def test_supported_lists_rules_from_the_tables():
    names = elena_jax.supported()
    assert "numpy.add" in names and "numpy.concatenate" in names and "numpy.zeros" in names
    assert "numpy.partition" not in names


def gather_rows(x, idx):
    x[idx] = -1.0
    return x[idx + 1]


def test_traced_out_of_range_index_clamps_by_default_and_raises_when_checked():
    x = np.arange(5.0)
    idx = np.array([1, 7])  # NumPy raises IndexError for 7
    with pytest.raises(IndexError):
        gather_rows(x.copy(), idx)
    elena_jax.functionalize(gather_rows)(x.copy(), idx)  # documented: XLA clamps / drops
    caller = x.copy()
    with pytest.raises(IndexError, match=r"checked mode[\s\S]*test_api.py"):
        elena_jax.functionalize(gather_rows, checked=True)(caller, idx)
    np.testing.assert_array_equal(caller, x)  # nothing written back
    ok = x.copy()
    got = elena_jax.functionalize(gather_rows, checked=True)(ok, np.array([0, 2]))
    want_x = x.copy()
    np.testing.assert_array_equal(got, gather_rows(want_x, np.array([0, 2])))
    np.testing.assert_array_equal(ok, want_x)


@pytest.mark.slow
def test_many_signatures_keep_the_cache_bounded_and_memory_flat():
    import gc
    import tracemalloc

    g = elena_jax.functionalize(lambda x, k: x * k, jit=False, cache_size=16)
    for k in range(200):  # warm-up: fills and cycles the cache
        g(np.ones(3), k)
    gc.collect()
    objects = len(gc.get_objects())
    for k in range(200, 9_000):  # 10,000 calls with varying signatures in all
        g(np.ones(3), k)
    # NB: tracemalloc slows every allocation 3x: it watches the last 1,000 calls only
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for k in range(9_000, 10_000):
        g(np.ones(3), k)
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    gc.collect()
    assert len(g._cache) == 16
    assert grown < 2_000_000, grown
    assert len(gc.get_objects()) - objects < 2_000


def test_traced_python_scalars_keep_numpy_weak_promotion():
    def f(x, s):
        return x * s

    g = elena_jax.functionalize(f, trace_scalars=True)
    x = np.ones(3, np.float32)
    out = g(x, 0.5)
    assert out.dtype == (x * 0.5).dtype == np.float32  # a Python float is "weak" in NumPy 2
    g(x, 0.25)
    assert len(g._cache) == 1  # the scalar is traced, not part of the key
    np.testing.assert_array_equal(g(x, 0.25), x * 0.25)


def weak_arithmetic(x, i, eps, k):
    """Python scalars combined stay Python scalars (weak): NumPy 2 keeps x's float32 and i's int32."""
    g = (1 - eps) * x, -eps * x, (eps / 400) * x, eps**2 * x, abs(eps) * x, (eps * eps) * x
    strong = np.sqrt(eps) * x, np.add(k, 1) * i, (eps > 0.05) + x  # NB: NumPy's functions give NumPy scalars
    return (*g, (k + 1) * i, (k * 2) * i, -k * i, np.where(x > eps, eps, x), np.asarray(eps) * x, *strong)


def gae(rew, val, gamma, lam):
    adv = np.zeros_like(rew)
    last = np.float32(0)
    for t in range(rew.shape[0] - 1, -1, -1):
        last = rew[t] + gamma * val[t + 1] - val[t] + gamma * lam * last
        adv[t] = last
    return adv


def test_arithmetic_on_traced_python_scalars_keeps_them_weak():
    """`(1 - eps) * x` was float64 with trace_scalars=True (the difference of a traced Python
    scalar was a float64 array): 8 of 10 advantages of a float32 GAE loop were 1-4 ulps off.
    Found by an acceptance campaign (session 20); under jax.jit, a Python number is a weakly
    typed JAX scalar, weak here too."""
    x, i = np.linspace(-1, 1, 5, dtype=np.float32), np.arange(5, dtype=np.int32)
    want = weak_arithmetic(x, i, 0.1, 3)
    got = elena_jax.functionalize(weak_arithmetic, trace_scalars=True)(x, i, 0.1, 3)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == w.dtype and np.array_equal(np.asarray(g), w)
    rng = np.random.default_rng(0)
    r, v = rng.normal(size=10).astype(np.float32), rng.normal(size=11).astype(np.float32)
    want = gae(r, v, 0.99, 0.95)
    for run in (elena_jax.functionalize(gae, trace_scalars=True, fma=False),
                jax.jit(lambda *a: elena_jax.pure(gae, fma=False)(*a)[0]),
                jax.jit(elena_jax.functionalize(gae, fma=False))):
        got = np.asarray(run(r, v, 0.99, 0.95))
        assert got.dtype == np.float32 and got.tobytes() == want.tobytes()


def normalize(x, mu, sd):
    y = x.copy()
    y -= mu
    y /= sd
    return y


def scaled(x, s):
    return x * s, s - x, x == s


def test_numpy_scalar_arguments_are_strongly_typed():
    """A NumPy scalar argument is a 0-d array of its dtype in NumPy 2's promotion (NEP 50), not a
    weak Python number: np.float64 subclasses float (np.complex128 complex), so it was traced as one,
    and ``x32 * np.float64(0.1)`` was float32 (NumPy: float64); ``y -= ref.mean()`` on float32 y
    rounded 340 of 1000 values otherwise. An acceptance campaign's find, session 22."""
    x = np.random.default_rng(0).normal(size=1000).astype(np.float32)
    ref = np.random.default_rng(1).normal(size=100)
    check_against_numpy(normalize, x, ref.mean(), ref.std(), rtol=0, atol=0)  # NumPy reductions' np.float64
    for scalar in np.float64(0.1), np.complex128(0.5 + 1j), np.float32(0.1), np.int64(3), np.bool_(True):
        want = check_against_numpy(scaled, x, scalar, rtol=0, atol=0)
        for g, w in zip(elena_jax.pure(scaled)(x, scalar)[0], want):
            assert_same(g, w, rtol=0, atol=0)
        assert elena_jax.functionalize(lambda s: s)(scalar).dtype == scalar.dtype


def test_global_jax_config_is_untouched():
    before = jax.config.jax_enable_x64
    out = elena_jax.functionalize(lambda x: x * 2.0)(np.ones(2))
    assert out.dtype == np.float64 and jax.config.jax_enable_x64 == before


def test_static_argnums_and_non_hashable_arguments():
    g = elena_jax.functionalize(lambda x, shape: x.reshape(shape), static_argnums=1)
    assert g(np.arange(6.0), (2, 3)).shape == (2, 3)

    class Opaque:
        __hash__ = None

    with pytest.raises(TypeError, match="neither an array nor hashable"):
        elena_jax.functionalize(lambda x, o: x)(np.ones(2), Opaque())


def test_static_argnums_resolve_through_the_signature_as_jax_jit():
    """An acceptance campaign's find (session 23): static_argnums was taken modulo the call's
    positional arguments, so static_argnums=(2,) with n passed by keyword marked x static ("argument
    x is a NumPy array marked static") and (3,) with 2 arguments marked w. As jax.jit: a static
    parameter passed by keyword is static, an index past the signature's positional parameters is
    a ValueError, a negative one counts from the end of the call's positional arguments."""
    def smooth(x, w, n=2):
        y = x.copy()
        for _ in range(n):
            y[1:-1] = (y[:-2] + y[1:-1] * w[0] + y[2:]) / (2 + w[0])
        return y

    x, w = np.arange(6.0) ** 2, np.array([2.0])
    g = elena_jax.functionalize(smooth, static_argnums=(2,))
    assert_same(g(x, w, n=3), smooth(x.copy(), w, n=3))
    assert_same(g(x, w, 1), smooth(x.copy(), w, 1))
    assert_same(g(x, w), smooth(x.copy(), w))
    assert_same(elena_jax.functionalize(smooth, static_argnums=-1)(x, w, 3), smooth(x.copy(), w, 3))
    for argnums in ((3,), (-4,)):
        with pytest.raises(ValueError, match=r"only accepts 3 positional arguments"):
            elena_jax.functionalize(smooth, static_argnums=argnums)
    with pytest.raises(ValueError, match=r"index -3 is out of range"):
        elena_jax.functionalize(smooth, static_argnums=-3)(x, w)
    assert_same(elena_jax.functionalize(lambda *a: a[0] * 2, static_argnums=3)(x), x * 2)


def test_a_functionalized_helper_called_while_tracing_joins_the_trace():
    """As jit inside jit: the helper's reads and writes (through views of the caller's arrays) are
    recorded in the outer trace, so the result is NumPy's and there is one compiled program."""
    def helper(x):
        x[0] += 1
        return x * 2

    def outer(a):
        b = helper(a[1:])
        a[-1] = b.sum()
        return b

    fast_helper = elena_jax.functionalize(helper)

    def fast_outer(a):
        b = fast_helper(a[1:])
        a[-1] = b.sum()
        return b

    a, b = np.arange(5.0), np.arange(5.0)
    np.testing.assert_array_equal(elena_jax.functionalize(fast_outer)(a), outer(b))
    np.testing.assert_array_equal(a, b)
    assert not fast_helper._cache  # NB: never traced on its own


def solve_and_power(a, b, e):
    b[:] = np.linalg.solve(a, b)
    np.power(e, e - 2, out=e, where=e > 0)  # NB: where= leaves the elements it masks uncomputed
    return np.linalg.cholesky(a @ a.T), np.linalg.inv(a.T), np.nanargmax(np.where(a > 1, a, np.nan), axis=0)


@pytest.mark.parametrize("a, e, error", [  # NB: NumPy raises the first op's error, and so does checked mode
    (np.ones((3, 3)), np.array([3, 2, 0]), np.linalg.LinAlgError),  # NB: a singular matrix
    (np.eye(3), np.array([3, 1, 0]), ValueError),  # NB: 1 ** -1: NumPy refuses negative integer powers
    (np.array([[0.5, 0, 0], [0, 3, 0], [0.2, 0, 3]]), np.array([3, 2, -1]), ValueError),  # NB: an all-NaN column
    (np.eye(3) * 2 + 2.5, np.array([3, 2, -1]), None),
])
def test_checked_mode_raises_numpys_errors_that_depend_on_the_values(a, e, error):
    """By default XLA's infinities are returned; checked=True raises NumPy's error, naming the line,
    with the caller's arrays untouched."""
    b, b0, e0 = np.arange(3.0), np.arange(3.0), e.copy()
    g = elena_jax.functionalize(solve_and_power, checked=True)
    if error is None:
        want = solve_and_power(a, b0, e0)
        for x, y in zip(g(a, b, e), want):
            np.testing.assert_allclose(x, y)
        np.testing.assert_allclose(b, b0)
        np.testing.assert_array_equal(e, e0)
        return
    with pytest.raises(error) as numpys:
        solve_and_power(a, b0.copy(), e0.copy())
    with pytest.raises(error, match=re.escape(str(numpys.value)) + r" \(checked mode\)[\s\S]*test_api.py"):
        g(a, b, e)
    np.testing.assert_array_equal(b, b0)
    np.testing.assert_array_equal(e, e0)
    elena_jax.functionalize(solve_and_power)(a, b, e)  # NB: unchecked: no error (documented)


@pytest.mark.parametrize("func, q, message", [
    (np.percentile, np.array([50.0, 150.0]), "Percentiles must be in the range [0, 100]"),
    (np.quantile, np.array([np.nan]), "Quantiles must be in the range [0, 1]"),
    (np.nanquantile, np.array([-0.5]), "Quantiles must be in the range [0, 1]"),
])
def test_checked_mode_raises_for_a_traced_q_out_of_range(func, q, message):
    """NumPy raises ValueError for a q out of range; of a traced q elena_jax clamped it, also in
    checked mode (campaign J, session 31)."""
    with pytest.raises(ValueError, match=re.escape(message)):
        func(np.arange(5.0), q)
    with pytest.raises(ValueError, match=re.escape(message) + r" \(checked mode\)"):
        elena_jax.functionalize(func, checked=True)(np.arange(5.0), q)
    ok = elena_jax.functionalize(func, checked=True)(np.arange(5.0), np.array([0.0, 1.0]))
    np.testing.assert_allclose(ok, func(np.arange(5.0), np.array([0.0, 1.0])))


def element_divided(b, x):
    b[0] /= x  # NB: b[0] is a NumPy scalar; its quotient a float scalar written back into integers
    b[1:] = b[0] * x  # NB: a float scalar into a slice: converted once, as Python's int()
    b[2] = np.asarray(x / 0.0)  # NB: a 0-d array: cast, no error
    return b


@pytest.mark.parametrize("first, x, error", [(0, np.float64(0.0), ValueError), (1, np.float64(0.0), OverflowError),
                                             (1, np.float64(2.0), None)])
def test_checked_mode_raises_for_a_float_scalar_nan_or_inf_written_into_integers(first, x, error):
    """NumPy converts a float scalar written into an integer array as Python's int(): NaN is a
    ValueError, an infinity an OverflowError (a review's find, session 34: elena_jax wrote the
    integer its cast gave, in checked mode too)."""
    b = np.array([first, 2, 3], np.int32)
    g = elena_jax.functionalize(element_divided, checked=True)
    if error is None:
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(g(b.copy(), x), element_divided(b.copy(), x))
        return
    with pytest.raises(error) as numpys, np.errstate(all="ignore"):
        element_divided(b.copy(), x)
    with pytest.raises(error, match=re.escape(str(numpys.value)) + r" \(checked mode\)[\s\S]*test_api.py"):
        g(b, x)
    np.testing.assert_array_equal(b, [first, 2, 3])


def float_scalars_cast(u, i, x):
    u[0] = x[0]  # NB: into unsigned integers NumPy casts a NumPy float scalar (warning), as
    i[[0, 1]] = x[0]  # through index arrays into signed ones
    return u, i


def test_checked_mode_casts_float_scalars_where_numpy_casts_them():
    """A review's find: checked mode raised for NaN written into unsigned integers, or through
    index arrays, where NumPy only warns that the cast is invalid."""
    args = np.zeros(3, np.uint8), np.zeros(3, np.int64), np.array([np.nan, 1.0])
    with np.errstate(all="ignore"):
        want = float_scalars_cast(*copy.deepcopy(args))
        got = elena_jax.functionalize(float_scalars_cast, checked=True)(*args)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == w.dtype and np.asarray(g)[2] == w[2] == 0


def weighted_rows(a, w, out):
    out[:] = np.average(a, axis=1, weights=w)
    return out


@pytest.mark.parametrize("w", [np.array([1.0, -1.0, 0.0]), np.array([0.5, 0.25, 0.25])])
def test_checked_mode_raises_when_weights_sum_to_zero(w):
    """NumPy's np.average raises ZeroDivisionError where the weights sum to zero: checked mode
    too, before the caller's array is written; unchecked, the quotient is XLA's (-inf here)."""
    a, out = np.arange(6.0).reshape(2, 3), np.zeros(2)
    g = elena_jax.functionalize(weighted_rows, checked=True)
    if w.sum() != 0:
        np.testing.assert_array_equal(g(a, w, out), weighted_rows(a, w, np.zeros(2)))
        return
    with pytest.raises(ZeroDivisionError) as numpys:
        weighted_rows(a, w, np.zeros(2))
    with pytest.raises(ZeroDivisionError, match=re.escape(str(numpys.value)) + r" \(checked mode\)[\s\S]*test_api.py"):
        g(a, w, out)
    np.testing.assert_array_equal(out, np.zeros(2))
    with pytest.raises(ZeroDivisionError):  # NB: with the passes off too
        elena_jax.functionalize(weighted_rows, optimize=False, checked=True)(a, w, out)
    unchecked = elena_jax.functionalize(weighted_rows)(a, w, out)
    np.testing.assert_array_equal(unchecked, [-np.inf, -np.inf])  # NB: -1 / 0 in each row


def binned(x, out):
    counts, edges = np.histogram(x, bins=4)
    out[:] = counts
    return edges, np.histogramdd(np.stack([x, -x], 1), bins=3)[0]


@pytest.mark.parametrize("bad", [np.nan, np.inf, None])
def test_checked_mode_raises_for_an_automatic_histogram_range_that_is_not_finite(bad):
    """NumPy's np.histogram/histogramdd raise ValueError where they take the range from data
    holding NaN or inf: checked mode too, before the caller's array is written; unchecked, the
    edges are NaN or infinite."""
    x, out = np.array([1.0, 3.0, 2.0, 0.5]), np.zeros(4, np.int64)
    g = elena_jax.functionalize(binned, checked=True)
    if bad is None:
        want = binned(x.copy(), np.zeros(4, np.int64))
        for got, w in zip(g(x, out), want):
            np.testing.assert_array_equal(got, w)
        return
    x[1] = bad
    with pytest.raises(ValueError, match="autodetected range"):
        binned(x.copy(), np.zeros(4, np.int64))
    with pytest.raises(ValueError, match=r"autodetected range of the data.*not finite \(checked mode\)[\s\S]*test_api"):
        g(x, out)
    np.testing.assert_array_equal(out, np.zeros(4))
    edges, _ = elena_jax.functionalize(binned)(x, out)
    assert not np.isfinite(edges).all()


W = np.array([[1, -1, 3, 1], [1e16, -1e16, -1, 1], [1e16, -1, -3, -3], [1e16, 3, -1e16, 1e16], [-1, -1, -1e16, -1e16]])


@pytest.mark.parametrize("f", [
    lambda a: np.average(a[:2, :3], axis=1, weights=[1.0, -1.0, 0.0]),
    # NB: NumPy sums these in their memory order, which a C-ordered copy of them changes: nonzero
    lambda a: np.average(a, weights=W.T),
    lambda a: np.average(a.T, axis=(1, 0), weights=W),
])
def test_weights_known_when_tracing_raise_as_numpys(f):
    # NB: a sum of constant weights is known at trace time: NumPy's own sum says it is zero
    with pytest.raises(ZeroDivisionError):
        f(np.ones((4, 5)))
    with pytest.raises(ZeroDivisionError, match=r"Weights sum to zero[\s\S]*test_api.py"):
        elena_jax.functionalize(f)(np.ones((4, 5)))


def clip_in_place(boxes, other=None):
    np.clip(boxes[:, 0::2], 0, 10, out=boxes[:, 0::2])
    if other is not None:
        other[:, 1] += 1
    return boxes


def test_a_returned_argument_is_not_a_second_output():
    """``return boxes`` after writing into it: the result is the argument's final value, the same
    array, not a second output XLA would copy the whole argument into."""
    a = np.random.default_rng(3).normal(size=(50, 4)) * 20
    want = clip_in_place(a.copy())
    f = elena_jax.functionalize(clip_in_place)
    got = f(a)
    assert isinstance(got, jax.Array) and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a, want)
    traced, _, inputs = f.trace((a,), {})
    with jax.enable_x64(True):
        assert len(jax.make_jaxpr(traced.run)(*inputs).jaxpr.outvars) == 1  # NB: two before: result and final
        result, (new,) = jax.jit(elena_jax.pure(clip_in_place))(want)
    np.testing.assert_array_equal(result, want)
    np.testing.assert_array_equal(new, want)


@pytest.mark.parametrize("twice", [False, True])
def test_a_returned_argument_that_shares_memory_is_its_final_value(twice):
    # NB: f(x, x): one storage for both; f(x, x[::-1]): the second a reversed view of it
    a = np.random.default_rng(4).normal(size=(6, 4)) * 20
    b, c = a.copy(), a.copy()
    want = clip_in_place(b, b[::-1] if twice else b)
    got = elena_jax.functionalize(clip_in_place)(c, c[::-1] if twice else c)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(c, b)


def test_slice_arguments_are_static():
    def f(x, where):
        x[where] = 0
        return x

    g = elena_jax.functionalize(f)
    for where in (slice(1, 3), slice(None, None, -2), slice(1, 3)):
        a, b = np.arange(5.0), np.arange(5.0)
        np.testing.assert_array_equal(g(a, where), f(b, where))
        np.testing.assert_array_equal(a, b)
    assert len(g._cache) == 2


def test_a_functionalized_method_binds_its_instance():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @elena_jax.functionalize
        def apply(self, x):
            x[::2] *= self.k
            return x.sum()

    x = np.ones(4)
    assert float(Scaler(3.0).apply(x)) == 8.0 and x.tolist() == [3.0, 1.0, 3.0, 1.0]
    assert isinstance(Scaler.apply, elena_jax._api.Functionalized)


def test_grad_through_pure_sees_the_in_place_update():
    def step(w, g):
        w[:2] -= 0.1 * g[:2]
        return (w ** 2).sum()

    p = elena_jax.pure(step)
    with jax.enable_x64(True):
        w, gr = jnp.arange(4.0), jnp.ones(4)
        loss, (new_w, _) = p(w, gr)
        dloss = jax.grad(lambda w: p(w, gr)[0])(w)
    np.testing.assert_allclose(new_w, [-0.1, 0.9, 2.0, 3.0])
    np.testing.assert_allclose(loss, 0.01 + 0.81 + 4 + 9)
    np.testing.assert_allclose(dloss, 2 * np.asarray(new_w))


def add_then_read(a, b):
    a += 1
    return b * 1


def test_aliasing_pattern_is_part_of_the_cache_key():
    calls = []

    def f(a, b):
        calls.append(1)
        return add_then_read(a, b)

    g = elena_jax.functionalize(f)
    mine, numpys = (np.zeros(4), np.zeros(4)), (np.zeros(4), np.zeros(4))
    patterns = [  # the same shapes each time: only the aliasing tells the programs apart
        lambda x, y: (x, x), lambda x, y: (x, y), lambda x, y: (y, y),
        lambda x, y: (x[1:], x[:-1]), lambda x, y: (x[:-1], x[1:]), lambda x, y: (y[1:], y[:-1]),
    ]
    for pattern in patterns:
        np.testing.assert_array_equal(g(*pattern(*mine)), add_then_read(*pattern(*numpys)))
        for got, want in zip(mine, numpys):
            np.testing.assert_array_equal(got, want)
    assert len(calls) == 4  # (x, x) and (y, y) share one program, so do the two x[1:], x[:-1]


def shift_if_same(x, y):
    if x is y:  # NB: NumPy's function is passed the one object twice
        x += 1
    else:
        x -= 1
    return np.float64(x is y), x + y


@pytest.mark.parametrize("pattern", [lambda a: (a, a), lambda a: (a, a[:]), lambda a: (a, a.copy()),
                                     lambda a: (a.T, a.T), lambda a: (a[:, ::2], a[:, 1::2])])
def test_an_array_passed_twice_is_one_object_inside(pattern):
    """``f(a, a)``: ``x is y`` inside, as in NumPy (an acceptance campaign's find, session 39: two
    tracers of one storage, so a branch on identity took the other way); a view of ``a`` is
    another object (``a[:]``), and so is ``a.T`` made twice. Both are parts of the cache key."""
    a = np.arange(12.0).reshape(3, 4)
    check_against_numpy(lambda x, y: shift_if_same(*pattern(x)) + (y,), a, a.copy(), rtol=0, atol=0)
    t = a.T
    check_against_numpy(shift_if_same, t, t, rtol=0, atol=0)
    g = elena_jax.functionalize(shift_if_same)
    b = np.zeros(3)
    assert [float(g(*args)[0]) for args in ((b, b), (b, b.copy()), (b, b))] == [1.0, 0.0, 1.0]
    frozen, empty = np.arange(3.0), np.zeros(0)
    frozen.flags.writeable = False  # NB: neither is a group of shared memory (IndexError, a review's find)
    for x in (frozen, empty):
        check_against_numpy(lambda x, y: (x + y, np.float64(x is y)), x, x, rtol=0, atol=0)
    c = jnp.zeros(3)  # NB: JAX arrays are traced as jax.jit traces them, each leaf a tracer of its own
    assert not elena_jax.functionalize(lambda x, y: x is y)(c, c)


def test_pure_of_arguments_that_share_memory_returns_each_updated_view():
    x = np.arange(6.0)
    result, (new_a, new_b) = elena_jax.pure(add_then_read)(x, x[::2])
    np.testing.assert_array_equal(new_a, np.arange(6.0) + 1)
    np.testing.assert_array_equal(new_b, np.arange(0.0, 6.0, 2) + 1)
    np.testing.assert_array_equal(result, new_b)
    np.testing.assert_array_equal(x, np.arange(6.0))  # pure: the caller's array is untouched


def test_arguments_that_share_memory_are_one_storage_in_explain():
    x = np.arange(12.0).reshape(3, 4)
    text = str(elena_jax.explain(add_then_read)(x[:, :2], x[:, 1:]))
    assert "arguments a, b (shared memory)" in text
    assert "(argument " not in text  # no storage of its own per argument
    jaxpr = str(elena_jax.make_jaxpr(add_then_read)(x[:, :2], x[:, 1:]))
    assert "scatter" not in jaxpr  # strided views of the shared storage are slices


def test_read_only_argument_aliasing_a_written_one_stays_read_only():
    x = np.arange(6.0)
    r = x[::-1].view()
    r.flags.writeable = False
    got = elena_jax.functionalize(add_then_read)(x, r)
    np.testing.assert_array_equal(got, np.arange(6.0)[::-1] + 1)
    np.testing.assert_array_equal(r, np.arange(6.0)[::-1] + 1)  # it sees the write, as in NumPy
    assert not r.flags.writeable


def test_pure_gives_back_unwritten_arguments_in_their_own_type():
    """With 64-bit types off, a float64 argument pure(f) did not write came back float32, one it
    wrote float64 (an acceptance campaign's find): both are float64, as computed."""
    assert not jax.config.jax_enable_x64

    def bump_first(a, b):
        a += 1
        return a.sum() + b.sum()

    result, (a, b) = elena_jax.pure(bump_first)(np.ones(3), np.full(3, 0.1))
    assert result.dtype == a.dtype == b.dtype == np.float64
    np.testing.assert_array_equal(b, np.full(3, 0.1))


def test_make_jaxpr_keeps_numbers_static_as_functionalize_does():
    """make_jaxpr traced a number that functionalize keeps static (x[:k] was refused as a slice
    with traced bounds; with static_argnums, a JAX tracer was "neither an array nor hashable").
    An acceptance campaign's find (session 20)."""
    def f(x, k, scale=2.0):
        return x[:k] * scale

    x = np.arange(5.0)
    assert len(elena_jax.make_jaxpr(lambda x, c: x * c[0])(x, [2.0, 3.0]).jaxpr.invars) == 1  # NB: a list too
    for make in (elena_jax.make_jaxpr(f), elena_jax.make_jaxpr(f, static_argnums=1)):
        jaxpr = make(x, 3, scale=3.0)
        assert [v.aval.shape for v in jaxpr.jaxpr.invars] == [(5,)]
        with jax.enable_x64(True):
            np.testing.assert_array_equal(jax.core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, x)[0], f(x, 3, 3.0))


def test_a_numpy_array_marked_static_is_told_to_be_a_tuple():
    """The advice for traced reduceat indices is a static argument; a NumPy array there was told it
    was "neither an array nor hashable" (an acceptance campaign's find, session 20)."""
    g = elena_jax.functionalize(lambda x, s: np.add.reduceat(x, s), static_argnums=1)
    with pytest.raises(TypeError, match=r"NumPy array marked static.*tuple"):
        g(np.arange(6.0), np.array([0, 2]))
    np.testing.assert_array_equal(g(np.arange(6.0), (0, 2)), np.add.reduceat(np.arange(6.0), [0, 2]))
    with pytest.raises(elena_jax.ConcretizationError, match=r"a tuple, with static_argnums"):
        elena_jax.functionalize(lambda x, s: np.add.reduceat(x, s))(np.arange(6.0), np.array([0, 2]))


TABLE = np.ones((3, 2))


def scores(u):
    return TABLE @ u, u[TABLE[:2, 0] > 1].sum(), np.asarray(TABLE)[1]


class Filter:
    def __init__(self):
        self.gain, self.bias = np.ones(2), np.zeros(2)

    def step(self, x):
        x *= self.gain
        x[:] += self.bias
        return x


def test_numpy_arrays_read_from_outside_are_read_anew_when_they_change():
    """A NumPy array of the module or of ``self`` is a constant of the traced program; a call
    after it changed in place traces again (warning once), so that the answer is NumPy's with
    its new value (it was the value at the first call: an acceptance campaign's find). One
    rebound to another array is not seen (README, Known limits)."""
    g = elena_jax.functionalize(scores)
    u = np.array([1.0, 2.0])

    def same_as_numpy():
        for got, want in zip(g(u), scores(u)):
            np.testing.assert_array_equal(got, want)
        return next(iter(g._cache.values()))

    first = same_as_numpy()
    assert same_as_numpy() is first
    with pytest.warns(UserWarning, match=r"scores reads NumPy arrays from outside it \(\(3, 2\):float64\)"):
        TABLE[1:] += 1.0
        second = same_as_numpy()
    TABLE[0, 0] = 0.0
    third = same_as_numpy()
    TABLE[0, 0] = -0.0  # NB: a sign bit is a change, a NaN is no change
    fourth = same_as_numpy()
    assert len({id(first), id(second), id(third), id(fourth)}) == 4 and len(g._cache) == 1
    TABLE[...] = 1.0

    f = Filter()
    h = elena_jax.functionalize(f.step)
    x = np.arange(2.0)
    np.testing.assert_array_equal(h(x.copy()), [0.0, 1.0])
    f.gain[0], f.bias[1] = 3.0, np.nan
    with pytest.warns(UserWarning, match="step reads NumPy arrays from outside it"):
        np.testing.assert_array_equal(h(x.copy()), f.step(x.copy()))
    kept = next(iter(h._cache.values()))
    h(x.copy())
    assert next(iter(h._cache.values())) is kept


def test_numpy_arrays_given_to_array_methods_are_borrowed_too():
    """``x.dot(T)``, ``x.clip(T)``: the ndarray methods forward the user's array (the review's find)."""
    table = np.arange(3.0)
    g = elena_jax.functionalize(lambda x: (x.dot(table), x.clip(table)))
    x = np.ones(3)
    g(x)
    table[:] = 10.0
    with pytest.warns(UserWarning, match="reads NumPy arrays from outside it"):
        dot, clipped = g(x)
    assert float(dot) == 30.0
    np.testing.assert_array_equal(clipped, np.full(3, 10.0))


def test_numpy_scalar_arguments_are_static_numbers_of_their_dtype():
    """An acceptance campaign's find (session 23, campaign G): a NumPy scalar argument was traced
    as a 0-d array, so np.tile(a, np.int64(2)) was refused with JAX's own message and axis=,
    np.linspace's num, reshape's shape and np.round's decimals of one raised ConcretizationError.
    Now a NumPy integer is static as a Python int (traced with trace_scalars), a NumPy float traced
    (data: one program for every value, as jax.jit's), each keeping its NumPy dtype."""
    a = np.arange(20.0).reshape(5, 4)
    x32 = np.arange(4, dtype=np.float32)
    uses = [lambda a, r: np.tile(a, r), lambda a, r: np.sum(a, axis=r - 1), lambda a, r: np.linspace(0, 1, r),
            lambda a, r: a.reshape((r + 3, np.int64(4))), lambda a, r: np.round(a / 3, r),
            lambda a, r: np.tile(a, np.int64(a.shape[0] // 2)) * np.float32(0.5) + r]
    for use in uses:
        check_against_numpy(use, a, np.int64(2), rtol=0, atol=0)
    for scalar in np.float64(0.1), np.int8(100), np.float32(0.1), np.uint16(7):
        for trace in False, True:
            got = elena_jax.functionalize(lambda x, s: (x * s, x.astype(np.int8) + s), trace_scalars=trace)(x32, scalar)
            for g, w in zip(got, (x32 * scalar, x32.astype(np.int8) + scalar)):
                assert_same(g, w, rtol=0, atol=0)


def test_a_static_negative_zero_is_not_the_cached_zero():
    """Found beside session 23's NumPy scalar arguments (campaign G): the cache key compared static
    numbers with ==, so f(a, -0.0) after f(a, 0.0) reused the program made for 0.0 ([0., 0.] where
    NumPy's is [-0., -0.]), for Python floats and now NumPy scalars alike."""
    f = elena_jax.functionalize(lambda x, s: x * s)
    a = np.ones(2)
    for zero in 0.0, np.float64(0.0), np.float32(0.0):
        for s in zero, -zero:
            got = f(a, s)
            assert_same(got, a * s, rtol=0, atol=0)
            assert (np.signbit(got) == np.signbit(a * s)).all()  # NB: assert_same takes -0.0 for 0.0

def test_numpy_float_arguments_are_traced_once_for_every_value():
    """A NumPy float is data (a mean computed outside f): one program for every value, as jax.jit's
    (static, it compiled anew for each value)."""
    x32 = np.arange(4, dtype=np.float32)
    traces = []

    def shift(x, s):
        traces.append(s.dtype)  # NB: not s: a traced value kept outside f is refused
        return x + s

    g = elena_jax.functionalize(shift)
    for s in np.float64(0.1), np.float64(0.2), np.float32(0.3):
        assert_same(g(x32, s), x32 + s, rtol=0, atol=0)
    assert len(traces) == 2  # NB: float64 and float32: no program per value


def test_a_static_negative_zero_inside_a_tuple_is_its_own_program():
    """static_argnums of (0.0,) then (-0.0,) reused the program made for 0.0 ([0, 0], NumPy's
    [-0, -0]; the review's find, session 23): the signs of zeros in static tuples are in the key."""
    g = elena_jax.functionalize(lambda x, s: x * s[0], static_argnums=(1,))
    x = np.ones(2)
    assert not np.signbit(g(x, (0.0,))).any()
    assert np.signbit(g(x, (-0.0,))).all()


def pure_inside(x):
    def inner(a):
        a[0] = 5.0
        return a.sum()

    s, (new,) = elena_jax.pure(inner)(x)
    return s, new, x


def pure_inside_by_keyword(x, y):
    def inner(a, b):
        b[0] = 7.0
        return a.sum()

    elena_jax.pure(inner)(x, b=y)
    return y


def test_pure_called_by_a_traced_function_joins_its_trace_on_copies():
    """elena_jax.pure(g) inside a functionalized function refused its tracers as unhashable
    static arguments (acceptance campaign F, session 30); it runs g on copies: x is unchanged."""
    s, new, x = elena_jax.functionalize(pure_inside)(np.ones(3))
    assert float(s) == 7.0
    np.testing.assert_array_equal(new, [5.0, 1.0, 1.0])
    np.testing.assert_array_equal(x, np.ones(3))
    y = np.ones(3)
    np.testing.assert_array_equal(elena_jax.functionalize(pure_inside_by_keyword)(np.ones(3), y), np.ones(3))
    np.testing.assert_array_equal(y, np.ones(3))  # NB: keyword arguments are copied too


def rounded_scalars(a):
    s = a.sum()
    t = s
    s += 1  # NB: a NumPy scalar is immutable: t keeps the sum
    o = np.asarray(a.sum())  # NB: a 0-d array of the scalar's value, writable
    np.add(o, 1, out=o)
    return (round(a.sum(), 2), round(a[1] * 2, 1), round(np.sqrt(a[2]), 3), round(a.max(), 1), t, s, o,
            round(a.mean(), 2), round(a.std(), 3), round(a[1].astype(np.float32), 1))


def test_zero_dimensional_results_of_ufuncs_and_reductions_are_numpy_scalars():
    """NumPy returns them as scalars, and a scalar's astype too: round(a.sum(), 2) raised TypeError
    (an array's round), and ``t = s; s += 1`` changed t too (acceptance campaign F, session 30)."""
    check_against_numpy(rounded_scalars, np.arange(6.0) / 7, rtol=0, atol=0)


def library_scalars(a, m, z):
    rounded = [round(r, 3) for r in (np.median(a), np.percentile(a, 30), np.ptp(a), np.average(a, weights=a),
                                     np.trace(m), np.linalg.norm(a), np.linalg.det(m), np.dot(a, a), a @ a,
                                     np.einsum("i,i", a, a), np.vdot(a, a), np.interp(z, a, a), a.dot(a))]
    s = np.median(a)
    t = s
    s += 1  # NB: a scalar: t keeps the median
    w = np.where(z > 1, z, 0.0)
    v = w
    w += 1  # NB: np.where's 0-d result is an array: v is w
    c = np.copy(z)
    d = c
    c *= 2
    flipped = np.flip(z)  # NB: of a 0-d array, a scalar: a copy, not a view of z
    z[...] = -1.0
    return rounded, s, t, v, d, flipped, np.count_nonzero(a) + 0, z


def test_zero_dimensional_results_of_library_functions_are_scalars_or_arrays_as_numpys():
    """np.median, np.dot of vectors, np.linalg.det, ... return NumPy scalars, np.where and np.copy
    0-d arrays: NumPy's call on stand-ins tells which (`numpy._core.returning_as_numpy`). They were
    all 0-d arrays: round(np.median(a), 2) raised TypeError and ``t = s; s += 1`` changed t (session
    30's review). A scalar of a 0-d array (np.flip's) is a copy: a later write to the array leaves it."""
    check_against_numpy(library_scalars, np.arange(1.0, 6.0) / 7, np.eye(3) * 2, np.array(1.5), rtol=0, atol=0)


def scalar_argument(a, s):
    t = s
    s += 1  # NB: a NumPy scalar argument is immutable: t keeps it
    c = s.copy()  # NB: a scalar's copy and 0-d views are scalars, its reshape(1) an array of its own
    d = c
    c *= 2
    views = [s.squeeze(), s.reshape(()), s.transpose(), s.T, s.view()]
    for v in views:
        v += 1
    r = s.reshape(1)
    r += 10
    s.fill(0.0)  # NB: fills a copy
    np.put(s, 0, 7.0)  # NB: writes a copy too
    s.flat[0] = 9.0
    return round(s, 1) * a, t, c, d, views, r, s


def test_numpy_scalars_passed_in_are_immutable_as_numpys():
    """A NumPy scalar argument was traced as a writable 0-d array (``t = s; s += 1`` changed t,
    round(s, 1) raised TypeError), a scalar's copy() and 0-d views (squeeze, reshape(()), T, view)
    were 0-d arrays over its memory, and np.put and s.flat wrote into it (acceptance campaign I,
    session 31)."""
    check_against_numpy(scalar_argument, np.arange(4.0), np.float64(2.5), rtol=0, atol=0)


def counted_matches(a, b, s, w):
    ok = np.allclose(a, b)  # NB: a Python bool: ok += 1 is 2
    ok += 1
    aliased = np.take(a, 3)
    kept = aliased
    aliased += 1  # NB: np.take of one index is a scalar: kept keeps it
    masked = a[a > 0.5].sum()
    before = masked
    masked += 1
    return ok, kept, aliased, before, masked, np.cov(s, fweights=w), np.cov(s, None, True, False, None, w)


def test_library_results_python_bools_and_masked_sums_are_scalars():
    """np.allclose's result is a Python bool (``ok += 1`` raised UFuncTypeError), np.take of a static
    index beyond the stand-in's one element and a masked sum were 0-d arrays, and np.cov with traced
    integer fweights was refused: they were cast to float for jax.numpy (campaign I, session 31)."""
    check_against_numpy(counted_matches, np.linspace(0, 1, 5), np.linspace(0, 1, 5),
                        np.random.default_rng(0).normal(size=(3, 6)), np.array([1, 2, 1, 3, 1, 2]))


def scalar_reads_and_copies(a, s):
    v = s[...]  # NB: of a scalar, a 0-d array of its own
    w = v
    v += 1
    r = s.view(np.int64)  # NB: a scalar's bytes, copied
    r += 1
    q = np.require(s)  # NB: an array of its own
    q += 2
    x, y = np.broadcast_arrays(a, a * 2)  # NB: of equal shapes, the arrays themselves (writable)
    x += 1
    return v, w, r, q, s, a, x


def test_a_scalars_reads_views_and_requirements_are_numpys():
    """``s[...]`` of a scalar is a 0-d array (it stayed a scalar), ``s.view(np.int64)`` a scalar of its
    own (a writable mirror of s), np.require(s) an array (s itself), and np.broadcast_arrays of equal
    shapes the arrays themselves (read-only views): session 31's review."""
    check_against_numpy(scalar_reads_and_copies, np.arange(3.0), np.float64(2.5), rtol=0, atol=0)


def test_a_users_callback_runs_once_per_trace_and_python_numbers_stand_in_weakly():
    """NumPy's call on stand-ins (which decides a 0-d result's kind and a result's dtype) ran
    np.apply_along_axis's function again, and took a traced Python number as a float64 scalar, so
    np.percentile of float32 data at a traced q was float64 (session 31's review)."""
    calls = []

    def total(row):
        calls.append(row.shape)
        return row.sum()

    def f(a, q):
        return np.apply_along_axis(total, 0, a), np.percentile(a, q)

    check_against_numpy(lambda a: np.apply_along_axis(total, 0, a), np.arange(3.0), optimize=(True,))
    assert calls == [(3,), (3,)]  # NB: NumPy's run, then one trace
    got = elena_jax.functionalize(f, trace_scalars=True)(np.arange(4, dtype=np.float32), 30.0)
    assert np.asarray(got[1]).dtype == np.float32 == np.percentile(np.arange(4, dtype=np.float32), 30.0).dtype


@pytest.mark.parametrize("f, x", [
    (lambda a: np.select([a > 0, a < -0.5], [a, 2 * a], default=-1.0), np.array([0.5, -0.25, 0.75, -2.0], np.float32)),
    (np.sign, np.array([0.5 + 1j, -0.25, 0.75j, 2 - 1j], np.complex64)),
    (lambda z: z ** 3, np.array([0.5 + 1j, -0.25, 0.75j, 2 - 1j], np.complex64)),
    (lambda a: np.piecewise(a, [a < 0, a > 1], [np.sin, lambda v: -v, 0.5]), np.array([-2, 0.5, 3, -1], np.float32)),
    (np.i0, np.array([0, 1, 9, -3], np.int32)),
], ids=["select", "complex-sign", "complex-cube", "piecewise", "i0-of-integers"])
def test_functions_selecting_among_cases_lower_under_an_outer_jit_with_x64_off(f, x):
    """np.select, and the complex sign and integer powers built on it, np.piecewise and np.i0 of
    integers failed to lower under an outer jax.jit with 64-bit mode off (jax.numpy's code, traced
    in elena_jax's 64-bit scope: campaign J, session 31): each is now elena_jax's own steps."""
    assert not jax.config.jax_enable_x64
    got = jax.jit(elena_jax.functionalize(f))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got), f(x.copy()), rtol=1e-6)

