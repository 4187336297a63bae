"""Test-session setup: one XLA compilation cache for the whole run, and shared fixtures.

Most tests compile small programs, and many compile the same one twice (a
function with passes on and off often lowers to the same HLO; tests share
shapes). JAX's persistent cache, kept in a temporary folder for this run only
and shared by the pytest-xdist workers, compiles each distinct program once:
the executables are the ones XLA would build again, so no result changes.

Hypothesis draws the same examples at every run (derandomized: a gate that passes passes again);
``HYPOTHESIS_PROFILE=explore`` draws new ones, for a campaign (docs/fuzzing.md).
"""

from __future__ import annotations

import os
import shutil
import tempfile

import jax
import pytest
from hypothesis import settings

from elena_jax.lower import opaque

_FOLDER = "ELENA_JAX_TEST_XLA_CACHE"

settings.register_profile("gate", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "gate"))


def pytest_configure(config) -> None:
    if _FOLDER not in os.environ:  # NB: the controlling process; its xdist workers inherit the folder
        os.environ[_FOLDER] = tempfile.mkdtemp(prefix="elena_jax_xla_cache_")
        config._elena_jax_cache_owner = True
    jax.config.update("jax_compilation_cache_dir", os.environ[_FOLDER])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def pytest_unconfigure(config) -> None:
    if getattr(config, "_elena_jax_cache_owner", False):
        shutil.rmtree(os.environ.pop(_FOLDER), ignore_errors=True)


@pytest.fixture(params=["native", "as_gpu"])
def lowered_for(request):
    """The test twice: lowered for the backend that runs it, and as for a GPU (lower/opaque.py's
    hiding in place of the CPU's barriers). On the CPU, the second checks the hiding on XLA:CPU,
    whose simplifier is XLA:GPU's; on a GPU both are the GPU's lowering."""
    if request.param == "native":
        yield request.param
        return
    with opaque.lowered_as_gpu():
        yield request.param
