"""Values hidden from XLA's simplifier keep every bit and derivative (elena_jax/lower/opaque.py)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from elena_jax.lower import opaque

SPECIAL = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 1e-310, -2.5, 3.0])


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()


def payload_nan(dt):
    """A NaN with a payload and its sign bit set: its bits must come through too."""
    bits = np.dtype(f"u{np.dtype(dt).itemsize}")
    top = np.array(np.nan, dt).view(bits)
    return (top | bits.type(1) | bits.type(1) << bits.type(8 * np.dtype(dt).itemsize - 1)).view(dt)


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.float16, jnp.bfloat16, np.complex128])
def test_unfolded_values_keep_their_bits_broadcast_together(lowered_for, dt):
    real = np.dtype(dt).kind != "c"
    a = np.append(SPECIAL, 0.0).astype(dt if real else np.float64)
    a[-1] = payload_nan(a.dtype)
    a = a.astype(dt) * (1 if real else 1 - 1j)
    values = (a[None, :], np.asarray(0.7, dt), a[:, None], np.arange(9) % 2 == 0)
    with jax.enable_x64(True):
        got = jax.jit(opaque.unfolded)(values)
    for g, w in zip(got, values):
        same_bits(g, np.broadcast_to(w, (9, 9)))


@pytest.mark.parametrize("shapes", [[(), ()], [(0, 3), (3,)], [(2, 0), ()]])
def test_unfolded_scalars_and_empty_operands(lowered_for, shapes):
    values = tuple(np.full(s, -0.0) for s in shapes)
    with jax.enable_x64(True):
        got = jax.jit(opaque.unfolded)(values)
    for g, w in zip(got, np.broadcast_arrays(*values)):
        same_bits(g, w)


def test_a_power_of_a_hidden_constant_stays_a_power(lowered_for):
    # NB: XLA makes x ** 3.0 the product x * x * x; a zero from the constant alone is folded with it
    x = np.random.default_rng(0).normal(size=1000)
    cube = jax.jit(lambda x: jnp.power(*opaque.unfolded((x, jnp.float64(3.0)))))
    with jax.enable_x64(True):
        hlo = cube.lower(x).compile().as_text()
        got = cube(x)
    assert " power(" in hlo
    np.testing.assert_allclose(got, x**3, rtol=1e-15)


def test_derivatives_pass_through_unchanged(lowered_for):
    f = lambda a, b: jnp.sum(jnp.multiply(*opaque.unfolded((a, b))) + opaque.rounded(a) ** 2)  # noqa: E731
    a, b = np.linspace(-2, 2, 5), np.linspace(1, 3, 5)
    with jax.enable_x64(True):
        da, db = jax.grad(f, argnums=(0, 1))(a, b)
        batched = jax.vmap(lambda a, b: jnp.multiply(*opaque.unfolded((a, b))))(a[:, None], b[:, None])
    np.testing.assert_allclose(da, b + 2 * a, rtol=1e-15)
    np.testing.assert_allclose(db, a, rtol=1e-15)
    same_bits(batched, (a * b)[:, None])


@pytest.mark.parametrize("hide", [opaque.apart_on_cpu, opaque.unfolded])
def test_barriers_are_in_cpu_programs_only(hide):
    # NB: XLA:GPU ends a kernel at each barrier; jax.export lowers for a GPU without one
    x = np.arange(4.0, dtype=np.float32)
    text = {p: jax.export.export(jax.jit(hide), platforms=[p])((x, x)).mlir_module() for p in ("cpu", "cuda")}
    assert "optimization_barrier" in text["cpu"] and "optimization_barrier" not in text["cuda"]
    same_bits(jax.jit(hide)((x, x))[0], x)
