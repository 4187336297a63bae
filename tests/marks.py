"""Marks shared by the test files: which parameters run in the default run and which only with
``pytest -m slow`` (the default run stays under 10 minutes on a 2-core machine)."""

import pytest


def slow_beyond(values, keep: int) -> list:
    """``values`` as parameters, the first ``keep`` in the default run, the rest marked slow."""
    return [v if i < keep else pytest.param(v, marks=pytest.mark.slow) for i, v in enumerate(values)]
