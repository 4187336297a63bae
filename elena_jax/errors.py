"""The errors elena_jax raises, and where in the user's code they point.

Every error about the user's program names the user's source line: the
innermost stack frame that is neither elena_jax's nor NumPy's nor JAX's, nor
an installed package's (SciPy called on a traced array names the user's call).
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import sysconfig
from collections.abc import Callable

import numpy as np

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SKIPPED = (
    _PACKAGE_DIR + os.sep,
    os.path.dirname(os.path.abspath(np.__file__)) + os.sep,
    sysconfig.get_paths()["stdlib"] + os.sep,
)
_INSTALLED = tuple({sysconfig.get_paths()[k] + os.sep for k in ("purelib", "platlib")})
_INSTALLED_DIRS = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


class UnsupportedError(NotImplementedError):
    """A construct elena_jax cannot trace: it refuses instead of guessing."""


class ConcretizationError(UnsupportedError, TypeError):
    """Python needed a concrete value of a traced array (data-dependent control flow).

    As JAX's ``ConcretizationTypeError``: ``if``, ``while``, ``int()``,
    ``float()`` or ``bool()`` on a traced value cannot be decided at trace time.
    """


def is_user_file(name: str) -> bool:
    """Whether code of file ``name`` is the user's: neither elena_jax's nor NumPy's nor JAX's
    nor Python's own."""
    return not name.startswith(_SKIPPED) and "/jax/" not in name and not name.startswith("<frozen")


def _is_user_line(name: str) -> bool:
    """Whether an error may name a line of file ``name``: the user's code, not an installed
    package's either (whose code the user only called; traced as the user's all the same)."""
    return is_user_file(name) and not name.startswith(_INSTALLED) and not any(d in name for d in _INSTALLED_DIRS)


def user_location() -> str:
    """``file:line`` and source text of the innermost user frame."""
    frame = sys._getframe(1)
    while frame is not None:
        if _is_user_line(frame.f_code.co_filename):
            return _described(frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return "<unknown location>"


def raised_at(e: BaseException) -> str:
    """``file:line`` and source text of the innermost user frame ``e`` passed through."""
    where, tb = "<unknown location>", e.__traceback__
    while tb is not None:
        if _is_user_line(tb.tb_frame.f_code.co_filename):
            where = _described(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return where


def _described(name: str, line: int) -> str:
    text = linecache.getline(name, line).strip()
    return f"{name}:{line}: {text}" if text else f"{name}:{line}"


def located(exc_type: type[BaseException], message: str) -> BaseException:
    """An exception of NumPy's type whose message ends with the user's line."""
    return exc_type(f"{message}\n  at {user_location()}")


def names_a_location(e: BaseException) -> bool:
    return "\n  at " in str(e) or any(n.startswith("  at ") for n in getattr(e, "__notes__", ()))


def locating(fn: Callable) -> Callable:
    """``fn`` whose errors name the user's line: NumPy's own and the View algebra's (an
    AxisError, a reshape that cannot be) get it as a note, keeping their type and message.
    The doors into elena_jax are so wrapped (``Tracer.__array_ufunc__`` / ``__array_function__``,
    the Tracer's methods, the intercepted functions), so rules let NumPy raise."""

    @functools.wraps(fn)
    def located_fn(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            if not names_a_location(e):
                e.add_note(f"  at {user_location()}")
            raise

    return located_fn
