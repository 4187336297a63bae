"""column_loops: a table's columns transformed in Python loops, one column at a time.

Tabular NumPy code written column by column: each asset's returns from its
prices (``col[1:] = col[1:] / col[:-1] - 1``, the first row zero), then each
column scaled to [0, 1] by its own minimum and maximum, in place, through the
column views ``prices[:, j]`` of the caller's table. Every step of every
column is a strided pass over the table; the case measures what elena_jax
makes of such loops (acceptance campaign N, sessions 32-34): the column
reductions joined into one reduction along the rows (passes/reductions.py)
and the column writes vectorized over all columns, group by group
(passes/vectorize.py).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

META = {
    "origin": "per-column returns and min-max scaling of a table (tabular post-processing)",
    "views": "column views prices[:, j]; col[1:], col[:-1], col[0] of each",
    "inplace": "col[1:] = ...; col[0] = 0.0; col -= col.min(); col /= col.max() on the caller's table",
}

COLUMNS = 20


def numpy_fn(prices):
    for j in range(prices.shape[1]):
        col = prices[:, j]
        col[1:] = col[1:] / col[:-1] - 1
        col[0] = 0.0
    for j in range(prices.shape[1]):
        col = prices[:, j]
        col -= col.min()
        col /= col.max()
    return prices


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    rows = max(2, 4 * n // COLUMNS)  # NB: as many values as n boxes of the detection cases
    return (rng.uniform(0.5, 1.5, (rows, COLUMNS)),)


def jax_at(prices):
    for j in range(prices.shape[1]):
        col = prices[:, j]
        prices = prices.at[1:, j].set(col[1:] / col[:-1] - 1).at[0, j].set(0.0)
    for j in range(prices.shape[1]):
        col = prices[:, j] - prices[:, j].min()
        prices = prices.at[:, j].set(col / col.max())
    return prices


def all_columns(prices):
    """The loops as whole-table operations: each reduction along the rows, every column at once."""
    r = jnp.concatenate([jnp.zeros_like(prices[:1]), prices[1:] / prices[:-1] - 1])
    r = r - r.min(axis=0)
    return r / r.max(axis=0)


jax_restructured = {"whole": all_columns}


torch_fn = numpy_fn  # NB: the NumPy code runs on tensors as it is written (views, in-place ops)
