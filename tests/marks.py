"""Marks shared by the test files: which parameters run in the default run and which only with
``pytest -m slow`` (the default run aims at 10 minutes on a 2-core machine), and the decorator of the corpora."""

import numpy as np
import pytest


def slow_beyond(values, keep: int) -> list:
    """``values`` as parameters, the first ``keep`` in the default run, the rest marked slow."""
    return [v if i < keep else pytest.param(v, marks=pytest.mark.slow) for i, v in enumerate(values)]


def every_other(values, start: int = 0, name=str) -> list:
    """``values`` as parameters, those at ``start``, ``start + 2``, ... in the default run, the rest
    marked slow (two tests of one feature can keep the two halves)."""
    return [pytest.param(v, id=name(v), marks=() if i % 2 == start else pytest.mark.slow) for i, v in enumerate(values)]


def _dtype_name(dt) -> str:
    try:
        return np.dtype(dt).name if isinstance(dt, (str, type, np.dtype)) else dt.__name__
    except (TypeError, AttributeError):  # NB: a variant's name (``"row"``) or value (``True``)
        return str(dt)


def rotated(keys, dtypes, extra: int = 0, valid=lambda key, dt: True, name=str, dtype_first: bool = True,
            always_first: bool = False) -> list:
    """The cross product of ``keys`` (functions, names) and ``dtypes`` (or other variants) as ``(key, dtype)``
    parameters: in the default run each key with one valid variant -- the first at every other key (at every key
    with ``always_first``), the others in turn at the keys between, more per key where the keys are too few for
    the turn to go round -- and ``extra`` more of the others, continuing the turn; the whole product with
    ``pytest -m slow``. Every variant runs in the default run with some key (checked here)."""
    rows = [(key, [dt for dt in dtypes if valid(key, dt)]) for key in keys]
    firsts = [always_first or i % 2 == 0 or len(ds) == 1 for i, (_, ds) in enumerate(rows)]
    counts = [extra + (not first) if len(ds) > 1 else 0 for first, (_, ds) in zip(firsts, rows)]
    short = max((len(ds) - 1 for _, ds in rows), default=0) - sum(counts)  # NB: the turn's shortfall
    takers = [i for i, (_, ds) in enumerate(rows) if len(ds) > 1]
    for k in range(max(short, 0)):  # NB: one more variant at each key in turn, until the turn goes round
        counts[takers[k % len(takers)]] += 1
    params, handed, run = [], 0, set()  # NB: how many of the other variants went to the keys so far
    for (key, ds), first, count in zip(rows, firsts, counts):
        others = ds[1:]
        kept = (set(ds[:1]) if first else set()) | {others[(handed + j) % len(others)] for j in range(count)}
        handed += count
        run |= {_dtype_name(dt) for dt in kept}
        for dt in ds:
            ident = f"{_dtype_name(dt)}-{name(key)}" if dtype_first else f"{name(key)}-{_dtype_name(dt)}"
            params.append(pytest.param(key, dt, id=ident, marks=() if dt in kept else pytest.mark.slow))
    missed = {_dtype_name(dt) for _, ds in rows for dt in ds} - run
    assert not missed, f"rotated: variants {sorted(missed)} would run with no key in the default run"
    return params


def registrar(corpus: list, default_sizes: tuple):
    """The ``case(make, sizes=..., xfail=None)`` decorator of a corpus of programs: it registers ``f``
    with its input maker in ``corpus`` at every size, as ``(f, make, n, optimize)`` parameters: the
    passes off at the first size, on at the others (each run is one XLA compile). In the default run
    each program runs at one of its sizes, the first and the second in turn from program to program
    (so that both run, with some of the programs); every size with ``pytest -m slow``. ``xfail`` names
    what elena_jax lacks (a strict xfail)."""
    def case(make, sizes=default_sizes, xfail=None):
        def register(f):
            marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
            kept = sizes[len({p.values[0] for p in corpus}) % min(2, len(sizes))]
            for n in sizes:
                slow = [] if n == kept else [pytest.mark.slow]
                corpus.append(pytest.param(f, make, n, (n != sizes[0],), marks=marks + slow,
                                           id=f"{f.__name__}-{n}"))
            return f

        return register

    return case
