"""jacobi: Jacobi iterations of the Laplace equation, the interior rewritten in place.

The textbook NumPy form of a PDE smoother (Laplace/Poisson solvers,
heat diffusion): each sweep writes the interior ``u[1:-1, 1:-1]`` from four
shifted, overlapping views of the same array. NumPy evaluates the right-hand
side before it writes, so a sweep is a Jacobi (not Gauss-Seidel) step.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import side

META = {
    "origin": "PDE solvers: Jacobi sweeps of the Laplace/Poisson equation (4 sweeps)",
    "views": "interior view u[1:-1, 1:-1] and four shifted views u[:-2, 1:-1], u[2:, 1:-1], ...",
    "inplace": "u[1:-1, 1:-1] = 0.25 * (...) on the caller's array, "
    "reading overlapping views, in a loop",
}


def numpy_fn(u, steps=4):
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    s = side(n, least=4)
    return (rng.normal(size=(s, s)),)


def _interior(u):
    return 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])


def jax_at(u, steps=4):
    for _ in range(steps):
        u = u.at[1:-1, 1:-1].set(_interior(u))
    return u


def jacobi_mask(u, steps=4):
    edge = jnp.pad(jnp.zeros((u.shape[0] - 2, u.shape[1] - 2), bool), 1, constant_values=True)
    for _ in range(steps):
        u = jnp.where(edge, u, jnp.pad(_interior(u), 1))
    return u


def jacobi_concat(u, steps=4):
    for _ in range(steps):
        middle = jnp.concatenate([u[1:-1, :1], _interior(u), u[1:-1, -1:]], axis=1)
        u = jnp.concatenate([u[:1], middle, u[-1:]], axis=0)
    return u


jax_restructured = {"mask": jacobi_mask, "concat": jacobi_concat}


def torch_fn(u, steps=4):
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u
