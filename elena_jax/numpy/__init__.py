"""The NumPy namespace on tracers: importing it registers every rule.

Each module maps part of NumPy's API onto recorded ops (ufuncs, indexing,
creation, functions, methods). The set of covered names is `supported()`,
read from the rule tables themselves so it cannot go stale.
"""

from __future__ import annotations

from ..tracer import FUNCTIONS, UFUNCS
from . import creation, extras, functions, indexing, methods, random, ufuncs  # noqa: F401 (registration)
from .creation import intercepting

_SUBMODULES = ("numpy.linalg", "numpy.lib.stride_tricks", "numpy.fft")


def supported() -> list[str]:
    """Every NumPy function, ufunc and ufunc method elena_jax traces, sorted (docs/supported.md lists
    them, with the ndarray methods). Not the functions whose output shape depends on the data
    (np.nonzero, np.unique): their rules give NumPy's answer of known values and refuse traced ones."""
    ufunc_methods = ("reduce", "accumulate", "outer", "at", "reduceat")
    names = {f"numpy.{n}" for n in UFUNCS if n not in ufunc_methods}
    names |= {f"numpy.ufunc.{m}" for m in ufunc_methods if m in UFUNCS}
    for f, rule in FUNCTIONS.items():
        if getattr(rule, "refused", None) or getattr(rule, "data_dependent", False):
            continue
        module = getattr(f, "__module__", "numpy") or "numpy"
        prefix = next((p for p in _SUBMODULES if p.rsplit(".", 1)[-1] in module), "numpy")
        names.add(f"{prefix}.{f.__name__}")
    names |= {f"numpy.{n}" for n in creation.CREATION} | set(creation.INTERCEPTED)
    return sorted(names)


__all__ = ["intercepting", "supported"]
