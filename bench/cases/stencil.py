"""Stencils and PDE updates: in-place Jacobi iterations and a wave equation."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from . import Case, register


def jacobi(u, steps=4):
    """Laplace smoothing: the interior rewritten from shifted views, in place."""
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def jacobi_at(u, steps=4):
    for _ in range(steps):
        u = u.at[1:-1, 1:-1].set(0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]))
    return u


def jacobi_pad(u, steps=4):
    for _ in range(steps):
        inner = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u = jnp.pad(inner, 1).at[0].set(u[0]).at[-1].set(u[-1]).at[:, 0].set(u[:, 0]).at[:, -1].set(u[:, -1])
    return u


def _grid(n, rng):
    side = max(4, int(np.sqrt(n)))
    return (rng.normal(size=(side, side)),)


register(Case("jacobi", jacobi, _grid, jacobi_at, {"pad": jacobi_pad}, "PDE solvers (Laplace/Poisson smoothing)",
              "interior view u[1:-1, 1:-1] written from four shifted overlapping views, in a loop"))


def wave_step(u, u_prev, c2=0.2, steps=3):
    """Leapfrog steps of the 1-D wave equation, updating both buffers in place."""
    for _ in range(steps):
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        new = u.copy()
        new[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c2 * lap
        u_prev[...] = u
        u[...] = new
    return u


def wave_step_at(u, u_prev, c2=0.2, steps=3):
    for _ in range(steps):
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        new = u.at[1:-1].set(2 * u[1:-1] - u_prev[1:-1] + c2 * lap)
        u_prev, u = u, new
    return u


register(Case("wave_1d", wave_step, lambda n, rng: (rng.normal(size=n), rng.normal(size=n)), wave_step_at, {},
              "physics: finite-difference wave equation (another domain)",
              "shifted views u[:-2], u[2:]; interior write new[1:-1]; whole-buffer write-back u_prev[...] = u"))
