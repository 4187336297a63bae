"""``numpy.random`` refused while tracing.

A draw made while tracing would happen once, at trace time, and its numbers would be
compiled into the program as constants: every later call would return the same "random"
numbers, which NumPy never does. So while a trace is active, calls from user code raise
`UnsupportedError` naming the line:

- the functions of ``np.random`` (``np.random.rand``, ``np.random.default_rng``, ...);
- the methods of a ``Generator`` or ``RandomState`` made outside the function
  (``rng.normal(size=n)``): they are compiled code, which cannot be intercepted, but they
  reach NumPy through the module global ``np`` of numpy.random's extension modules, and the
  interception binds that to a guard. Without it they would be handed traced arrays by the
  creation dispatchers (their callers look like user code) and crash the process.

Not caught: the few methods that draw without touching NumPy at all (``RandomState.random_sample()``
of one number, ``bit_generator.random_raw()``); their numbers are frozen at trace time, as in
``jax.jit``.
"""

from __future__ import annotations

import sys
import types

import numpy as np

from ..errors import UnsupportedError, located
from .creation import intercept, replace, traced_user_call

_ADVICE = ("draws random numbers: traced, they would be drawn once and compiled in as constants "
           "(every call would return the same numbers). Draw them outside the function and pass them in, "
           "or use jax.random with a key argument")


def _refusal(name: str):
    def impl(*args, **kwargs):
        raise located(UnsupportedError, f"np.random.{name} {_ADVICE}")

    return impl


class _Guard(types.ModuleType):
    """What numpy.random's extension modules see as ``np`` while a trace is active."""

    def __getattr__(self, name: str):
        if traced_user_call():
            raise located(UnsupportedError, f"a numpy.random Generator or RandomState method {_ADVICE}")
        return getattr(np, name)


for _name in np.random.__all__:
    if not isinstance(getattr(np.random, _name), type):  # NB: classes stay: isinstance() needs them
        intercept(np.random, _name, _refusal(_name), traced=False)

_GUARD = _Guard("numpy")
for _module in list(sys.modules.values()):
    if _module.__name__.startswith("numpy.random.") and getattr(_module, "np", None) is np:
        replace(_module, "np", _GUARD)
