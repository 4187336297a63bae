"""Sums of elementwise chains, computed slice by slice (elena_jax/lower/lazy.py).

A sum in NumPy's pairwise order reads its run in slices of 8; the elementwise chain it sums
(``x - mean``, its square) is recomputed per slice from the chain's inputs instead of being
written to memory and read back. Every result here is NumPy's bit for bit (``fma=False``:
otherwise XLA contracts the squares into the sum, as everywhere), including where the
chain's storage is written again between the op and the sum.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from marks import rotated
from test_summation import assert_same_bits, check, data

import elena_jax
from elena_jax.lower.lazy import MAX_OPS, Lazy, recipe


def standardize(x, eps=1e-6):
    x -= x.mean(axis=1, keepdims=True)
    x /= x.std(axis=1, keepdims=True) + eps
    return x


CHAINS = {
    "standardize": standardize,
    "deviations": lambda x: (x - x.mean(axis=1, keepdims=True)).sum(axis=1),
    "squares": lambda x: (x * x).sum(axis=-1),
    "row_vector": lambda x: np.add.reduce(np.abs(x - x[0]) * x[1], axis=1),
    "scalar_and_negative": lambda x: (-(x * 0.1) + 0.7).sum(axis=1, keepdims=True),
    "maximum": lambda x: np.maximum(x, 0.5).mean(axis=1),
    "in_place_chain": lambda x: (np.multiply(x, x, out=x), np.subtract(x, 1.0, out=x), x.sum(axis=1))[2],
}


@pytest.mark.parametrize("name, n", rotated(list(CHAINS), [3, 9, 136, 300, 8, 127, 256, 1001], extra=1))
def test_sums_of_chains_are_numpys(name, n):
    check(CHAINS[name], data((37, n), np.float64, seed=n), what=name, fma=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex128, np.int32])
def test_chains_of_other_types_are_numpys(dtype):
    # NB: float16 sums in float32 and complex ones by parts: those sum the chain's value as it is
    x = data((20, 300), dtype, seed=4)
    for name in ("deviations", "squares", "standardize"):
        if name == "standardize" and dtype == np.int32:
            continue  # NB: NumPy refuses to subtract a float mean from integers in place
        check(CHAINS[name], x, what=name, fma=False)


def test_a_chain_written_again_before_its_sum_is_summed_as_written():
    def f(x):
        y = x - 1.0
        y[:, ::3] = 2.0  # NB: the storage's value is no longer the chain's
        z = x * 2.0
        x[:, 0] = 5.0  # NB: nor an operand's: z's recipe holds the values it read
        return y.sum(axis=1), z.sum(axis=1), x.sum(axis=1)

    x = data((9, 256), np.float64, seed=7)
    got = elena_jax.functionalize(f, fma=False)(x.copy())
    for g, w in zip(got, f(x.copy())):
        assert_same_bits(g, w)


def test_sums_of_chains_under_jit_vmap_and_grad():
    x = data((6, 256), np.float32, seed=8)
    f = elena_jax.functionalize(CHAINS["deviations"], fma=False)
    assert_same_bits(jax.jit(f)(x), CHAINS["deviations"](x.copy()))
    assert_same_bits(jax.vmap(f)(np.stack([x, x[::-1]])),
                     np.stack([CHAINS["deviations"](x.copy()), CHAINS["deviations"](x[::-1].copy())]))
    g = jax.grad(lambda v: jnp.sum(elena_jax.functionalize(CHAINS["squares"])(v)))(x)
    np.testing.assert_allclose(g, 2 * x, rtol=1e-6)


def test_standardize_computes_no_intermediate_of_its_size():
    # NB: the deviations and their squares were each written to memory (32 MB at 15625 x 256)
    # and read back by the sums; recomputed per slice, the result is the only such value
    with jax.enable_x64(True):
        x = data((500, 256), np.float64, seed=9)
        pure = elena_jax.pure(standardize)
        text = jax.jit(lambda x: pure(x)[0]).lower(jnp.asarray(x)).compile().as_text()
        entry = text[text.index("\nENTRY"):]
        assert entry.count("= f64[500,256]") == 2  # NB: the argument and the result
        check(standardize, x, fma=False)


def test_a_slice_of_a_lazy_value_is_that_slice_of_its_value():
    a, m = jnp.arange(24.0).reshape(2, 12), jnp.array([[1.5], [2.5]])
    d = recipe(jnp.subtract, (a, m), a - m)
    sq = recipe(jnp.multiply, (d, d), (a - m) * (a - m))
    assert isinstance(sq, Lazy) and sq.ops == 3
    for key in [(..., slice(0, 8)), (..., slice(8, 12)), (..., 5)]:
        np.testing.assert_array_equal(sq[key], sq.value[key])
    assert recipe(jnp.add, (a[0, 0], 1.0), a[0, 0] + 1) is None  # NB: a 0-d value has no slices
    long = d
    for _ in range(MAX_OPS - 1):
        long = recipe(jnp.negative, (long,), -long.value)
    assert long.ops == MAX_OPS and recipe(jnp.negative, (long,), -long.value) is None


def _chain_differences(f, x) -> int:
    """The chain's differences computed on parts of a run (arrays ending in 8 lanes) in the traced
    program of ``f(x)``, sub-programs included."""
    def count(jaxpr) -> int:
        n = 0
        for e in jaxpr.eqns:
            n += e.primitive.name == "sub" and e.outvars[0].aval.shape[-1:] == (8,)
            for p in e.params.values():
                for sub in p if isinstance(p, (tuple, list)) else [p]:
                    inner = getattr(sub, "jaxpr", None)
                    n += count(getattr(inner, "jaxpr", inner)) if inner is not None else 0
        return n

    pure = elena_jax.pure(f, fma=False)
    return count(jax.make_jaxpr(lambda x: pure(x)[0])(x).jaxpr)


def test_long_rows_read_the_chain_as_computed():
    # NB: each part of a recipe is traced and compiled; unlimited, the first call of standardize
    # of rows of 4096 took 11 s instead of 2.9 when it was computed in slices of 8 (lazy.MAX_SLICED)
    # NB: where the rows are many (summation._MANY), a difference per part: rows of 256 and 4096
    # are read a slab of every leaf's row at a time, 16 slabs (leaves of 128), rows of 200 (a leaf
    # of 96 and one of 104) in 25 slices of 8 and one element
    assert _chain_differences(CHAINS["row_vector"], jnp.ones((256, 256))) == 16
    assert _chain_differences(CHAINS["row_vector"], jnp.ones((256, 4096))) == 16
    assert _chain_differences(CHAINS["row_vector"], jnp.ones((512, 200))) == 25
    assert _chain_differences(CHAINS["row_vector"], jnp.ones((2, 256))) == 0
    check(CHAINS["row_vector"], data((3, 4096), np.float64, seed=10), fma=False)
    check(CHAINS["row_vector"], data((40, 4096), np.float64, seed=11), fma=False)


def test_the_lanes_of_every_leaf_are_summed_at_once_and_kept():
    # NB: rows of 256 are two leaves of 128, each 16 rows of 8 lanes: their lanes are one
    # (rows, 2, 8) array in memory on the CPU (summation._slab); fused into the meet, each sum
    # read its leaves' rows apart, 1.4x slower (session 29)
    with jax.enable_x64(True):
        x = data((500, 256), np.float64, seed=12)
        for f in (lambda x: x.sum(axis=1), CHAINS["squares"]):
            text = jax.jit(lambda x, f=f: elena_jax.pure(f)(x)[0]).lower(jnp.asarray(x)).compile().as_text()
            entry = text[text.index("\nENTRY"):]
            if jax.default_backend() == "cpu":
                assert "= f64[500,2,8]" in entry
            check(f, x, fma=False)


def standardize_columns(x, eps=1e-6):
    x -= x.mean(axis=0)
    x /= x.std(axis=0) + eps
    return x


COLUMN_CHAINS = {
    "standardize_columns": standardize_columns,
    "squares": lambda x: (x * x).sum(axis=0),
    "deviations_3d": lambda x: (x - x[0]).sum(axis=0),
    "absolute_keepdims": lambda x: np.abs(x - 1.5).mean(axis=0, keepdims=True),
}


@pytest.mark.parametrize("name, n", rotated(list(COLUMN_CHAINS), [1, 9, 33, 64, 1003, 2, 3, 32, 65, 70], extra=2))
def test_sums_of_chains_down_columns_are_numpys(name, n):
    # NB: a kept axis innermost: NumPy adds the rows one after another, here in a loop over
    # blocks of 8 rows, each block's chain computed from the operands' rows
    shape = (n, 5, 3) if name == "deviations_3d" else (n, 7)
    check(COLUMN_CHAINS[name], data(shape, np.float64, seed=n), what=name, fma=False)


def test_column_standardize_loops_over_its_input():
    # NB: the loop over blocks of rows took the deviations and their squares as its input, each
    # written to memory first (32 MB at 1e6 x 4); now its blocks are the argument's
    with jax.enable_x64(True):
        pure = elena_jax.pure(standardize_columns)
        text = jax.jit(lambda x: pure(x)[0]).lower(jnp.ones((1000, 40))).compile().as_text()
        entry = text[text.index("\nENTRY"):]
        assert entry.count("= f64[125,8,40]") == 1  # NB: the argument, seen as blocks


def test_sums_down_columns_under_jit_vmap_and_grad():
    x = data((70, 6), np.float32, seed=11)
    f = elena_jax.functionalize(COLUMN_CHAINS["absolute_keepdims"], fma=False)
    want = COLUMN_CHAINS["absolute_keepdims"]
    assert_same_bits(jax.jit(f)(x), want(x.copy()))
    assert_same_bits(jax.vmap(f)(np.stack([x, x[::-1]])), np.stack([want(x.copy()), want(x[::-1].copy())]))
    g = jax.grad(lambda v: jnp.sum(elena_jax.functionalize(COLUMN_CHAINS["squares"])(v)))(x)
    np.testing.assert_allclose(g, 2 * x, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex128, np.int32])
def test_chains_down_columns_of_other_types_are_numpys(dtype):
    x = data((70, 6), dtype, seed=12)
    for name in ("squares", "absolute_keepdims"):
        check(COLUMN_CHAINS[name], x, what=name, fma=False)
