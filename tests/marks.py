"""Marks shared by the test files: which parameters run in the default run and which only with
``pytest -m slow`` (the default run stays under 10 minutes on a 2-core machine)."""

import numpy as np
import pytest


def slow_beyond(values, keep: int) -> list:
    """``values`` as parameters, the first ``keep`` in the default run, the rest marked slow."""
    return [v if i < keep else pytest.param(v, marks=pytest.mark.slow) for i, v in enumerate(values)]


def _dtype_name(dt) -> str:
    return np.dtype(dt).name if isinstance(dt, (str, type, np.dtype)) else dt.__name__


def rotated(keys, dtypes, extra: int = 1, valid=lambda key, dt: True, name=str, dtype_first: bool = True) -> list:
    """The cross product of ``keys`` (functions, names) and ``dtypes`` (or other variants) as ``(key, dtype)``
    parameters: in the default run each key with its first valid dtype and ``extra`` more, turning through the
    others from key to key (so every dtype still runs, with some of the keys); the whole product with
    ``pytest -m slow``."""
    params = []
    for i, key in enumerate(keys):
        ds = [dt for dt in dtypes if valid(key, dt)]
        kept = set(ds[:1]) | {ds[1 + (i + j) % (len(ds) - 1)] for j in range(extra) if len(ds) > 1}
        for dt in ds:
            ident = f"{_dtype_name(dt)}-{name(key)}" if dtype_first else f"{name(key)}-{_dtype_name(dt)}"
            params.append(pytest.param(key, dt, id=ident, marks=() if dt in kept else pytest.mark.slow))
    return params
