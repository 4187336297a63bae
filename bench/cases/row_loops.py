"""row_loops: a multichannel signal standardized channel by channel in a Python loop.

Signal code written row by row: each channel (a row of the caller's array)
centred on its mean, divided by its standard deviation, and its outliers
beyond three deviations zeroed through a mask, in place, through the row views
``signals[c]``. NumPy's ``std`` squares the deviations in place and the mask
write sets each row's own elements; the case measures what elena_jax makes of
such loops (session 36): temporaries written whole renamed (passes/rename.py),
the rows vectorized lane axis first, each row's sums in its own NumPy order,
and the masked writes one (passes/vectorize.py).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

META = {
    "origin": "per-channel standardization and outlier removal of a multichannel signal (EEG/sensor preprocessing)",
    "views": "row views signals[c]",
    "inplace": "s -= s.mean(); s /= s.std() + eps; s[np.abs(s) > 3] = 0.0 on the caller's array",
}

CHANNELS = 32
EPS = 1e-12


def numpy_fn(signals):
    for c in range(signals.shape[0]):
        s = signals[c]
        s -= s.mean()
        s /= s.std() + EPS
        s[np.abs(s) > 3.0] = 0.0
    return signals


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    samples = max(2, 4 * n // CHANNELS)  # NB: as many values as n boxes of the detection cases
    return (rng.standard_t(3, (CHANNELS, samples)) * rng.uniform(0.5, 20, (CHANNELS, 1)),)


def jax_at(signals):
    for c in range(signals.shape[0]):
        s = signals[c] - signals[c].mean()
        s = s / (s.std() + EPS)
        signals = signals.at[c].set(jnp.where(jnp.abs(s) > 3.0, 0.0, s))
    return signals


def all_rows(signals):
    """The loop as whole-array operations: each reduction along the rows, every channel at once."""
    s = signals - signals.mean(axis=1, keepdims=True)
    s = s / (s.std(axis=1, keepdims=True) + EPS)
    return jnp.where(jnp.abs(s) > 3.0, 0.0, s)


jax_restructured = {"whole": all_rows}


torch_fn = numpy_fn  # NB: the NumPy code runs on tensors as it is written (views, in-place ops)
