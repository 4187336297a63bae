"""standardize: each row of features to zero mean and unit variance, in place.

The per-sample standardization of NumPy post-processing (embeddings before a
similarity search, spectra, layer-norm-like feature scaling): a row's mean and
standard deviation, each a reduction over the contiguous last axis, then
written back through the argument. The case that measures what NumPy's
summation order costs: elena_jax sums each row pairwise as NumPy does
(design.md, "Sums in NumPy's order"), the JAX peers with XLA's reductions.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

META = {
    "origin": "per-sample feature standardization (embedding and spectrum post-processing)",
    "views": "row reductions x.mean(axis=1, keepdims=True), x.std(axis=1, keepdims=True)",
    "inplace": "x -= mean; x /= std + eps on the caller's array (write-back to the input)",
}

FEATURES = 256


def numpy_fn(x, eps=1e-6):
    x -= x.mean(axis=1, keepdims=True)
    x /= x.std(axis=1, keepdims=True) + eps
    return x


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    rows = max(2, 4 * n // FEATURES)  # NB: as many values as n boxes of the detection cases
    return (rng.normal(3.0, 2.0, (rows, FEATURES)),)


def jax_at(x, eps=1e-6):
    x = x - x.mean(axis=1, keepdims=True)
    return x / (x.std(axis=1, keepdims=True) + eps)


def standardize_centered(x, eps=1e-6):
    """The deviations once: the root mean square of the centered rows is their std."""
    c = x - x.mean(axis=1, keepdims=True)
    return c / (jnp.sqrt(jnp.mean(c * c, axis=1, keepdims=True)) + eps)


jax_restructured = {"centered": standardize_centered}


def torch_fn(x, eps=1e-6):
    x -= x.mean(dim=1, keepdim=True)
    x /= x.std(dim=1, keepdim=True, unbiased=False) + eps
    return x
