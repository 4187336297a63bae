"""wave_1d: leapfrog steps of the 1-D wave equation, both time levels updated in place.

A finite-difference physics kernel (strings, acoustics, seismics), from a
domain other than vision: the discrete Laplacian from shifted views, the new
interior written into a copy, and both state buffers of the caller
overwritten for the next step (fixed ends).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

META = {
    "origin": "physics: explicit finite-difference wave equation (3 leapfrog steps)",
    "views": "shifted views u[:-2], u[1:-1], u[2:]",
    "inplace": "new[1:-1] = ...; u_prev[...] = u; u[...] = new (two arguments rewritten per step)",
}


def numpy_fn(u, u_prev, c2=0.2, steps=3):
    for _ in range(steps):
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        new = u.copy()
        new[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c2 * lap
        u_prev[...] = u
        u[...] = new
    return u


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    return rng.normal(size=n), rng.normal(size=n)


def jax_at(u, u_prev, c2=0.2, steps=3):
    for _ in range(steps):
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        u, u_prev = u.at[1:-1].set(2 * u[1:-1] - u_prev[1:-1] + c2 * lap), u
    return u


def wave_concat(u, u_prev, c2=0.2, steps=3):
    for _ in range(steps):
        inner = 2 * u[1:-1] - u_prev[1:-1] + c2 * (u[:-2] - 2 * u[1:-1] + u[2:])
        u, u_prev = jnp.concatenate([u[:1], inner, u[-1:]]), u
    return u


def wave_mask(u, u_prev, c2=0.2, steps=3):
    i = jnp.arange(u.shape[0])
    edge = (i == 0) | (i == u.shape[0] - 1)
    for _ in range(steps):
        lap = jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1)  # wraps at the ends, which the mask keeps
        u, u_prev = jnp.where(edge, u, 2 * u - u_prev + c2 * lap), u
    return u


jax_restructured = {"concat": wave_concat, "mask": wave_mask}


def torch_fn(u, u_prev, c2=0.2, steps=3):
    for _ in range(steps):
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        new = u.clone()
        new[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c2 * lap
        u_prev[...] = u
        u[...] = new
    return u
