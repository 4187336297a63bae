"""Test-session setup: one XLA compilation cache for the whole run, and shared fixtures.

Most tests compile small programs, and many compile the same one twice (a
function with passes on and off often lowers to the same HLO; tests share
shapes). JAX's persistent cache, kept in a temporary folder for this run only
and shared by the pytest-xdist workers, compiles each distinct program once:
the executables are the ones XLA would build again, so no result changes.

Hypothesis draws the same examples at every run (derandomized: a gate that passes passes again);
``HYPOTHESIS_PROFILE=explore`` draws new ones, for a campaign (docs/fuzzing.md).

The oracle is NumPy's portable loops: on a CPU with AVX-512, NumPy computes float32 and float64
transcendentals (exp2, log10, tan, arcsin, cbrt, power, ...) with other loops (SVML's), whose
results differ from its loops on every other CPU by 1-3 units in the last place; the run turns
those off (``NPY_DISABLE_CPU_FEATURES``, read when NumPy is imported, before anything here imports
it), so a test that asks for NumPy's bits asks for the same bits on every machine.
"""

from __future__ import annotations

import os

os.environ.setdefault("NPY_DISABLE_CPU_FEATURES", "X86_V4 AVX512_ICL AVX512_SPR")  # NB: testing.NO_AVX512_LOOPS

import shutil
import tempfile

import jax
import pytest
from hypothesis import settings

from elena_jax.lower import opaque
from elena_jax.testing import NO_AVX512_LOOPS, numpy_avx512_loops

_FOLDER = "ELENA_JAX_TEST_XLA_CACHE"

settings.register_profile("gate", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "gate"))


def pytest_configure(config) -> None:
    if numpy_avx512_loops():
        raise pytest.UsageError("NumPy runs its AVX-512 loops (imported before tests/conftest.py set "
                                f"NPY_DISABLE_CPU_FEATURES): set NPY_DISABLE_CPU_FEATURES='{NO_AVX512_LOOPS}'")
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
