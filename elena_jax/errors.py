"""The errors elena_jax raises, and where in the user's code they point.

Every error about the user's program names the user's source line: the
innermost stack frame that is neither elena_jax's nor NumPy's nor JAX's, nor
an installed package's (SciPy called on a traced array names the user's call).
The refusal of an operation NumPy's error state (np.errstate, np.seterr) would let
raise FloatingPointError from the values (`refuse_raising`) is here too, for the
ufuncs, the operators and the casts alike.
"""

from __future__ import annotations

import contextlib
import functools
import linecache
import os
import sys
import sysconfig
import threading
from collections.abc import Callable, Iterator

import numpy as np

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SKIPPED = (
    _PACKAGE_DIR + os.sep,
    os.path.dirname(os.path.abspath(np.__file__)) + os.sep,
    sysconfig.get_paths()["stdlib"] + os.sep,
)
_INSTALLED = tuple({sysconfig.get_paths()[k] + os.sep for k in ("purelib", "platlib")})
_INSTALLED_DIRS = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


_local = threading.local()


class UnsupportedError(NotImplementedError):
    """A construct elena_jax cannot trace: it refuses instead of guessing.

    While a call is traced (`noting_refusals`), each one made is noted: a refusal the user's own
    ``try``/``except`` catches would make the function take a path NumPy's run does not take.
    """

    numpy_raises = False  # NB: set where NumPy raises too (float() of an array of 3 values)

    def __init__(self, *args) -> None:
        super().__init__(*args)
        noted = getattr(_local, "refusals", None)
        if noted is not None:
            noted.append(self)


class ConcretizationError(UnsupportedError, TypeError):
    """Python needed a concrete value of a traced array (data-dependent control flow).

    As JAX's ``ConcretizationTypeError``: ``if``, ``while``, ``int()``,
    ``float()`` or ``bool()`` on a traced value cannot be decided at trace time.
    """


@functools.lru_cache(maxsize=4096)  # NB: asked for every frame of every traced operation's stack
def is_user_file(name: str) -> bool:
    """Whether code of file ``name`` is the user's: neither elena_jax's nor NumPy's nor JAX's
    nor Python's own."""
    return not name.startswith(_SKIPPED) and "/jax/" not in name and not name.startswith("<frozen")


@functools.lru_cache(maxsize=4096)
def is_user_line(name: str) -> bool:
    """Whether an error may name a line of file ``name``: the user's code, not an installed
    package's either (whose code the user only called; traced as the user's all the same)."""
    return is_user_file(name) and not name.startswith(_INSTALLED) and not any(d in name for d in _INSTALLED_DIRS)


def user_location() -> str:
    """``file:line`` and source text of the innermost user frame."""
    frame = sys._getframe(1)
    while frame is not None:
        if is_user_line(frame.f_code.co_filename):
            return _described(frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return "<unknown location>"


def raised_at(e: BaseException) -> str:
    """``file:line`` and source text of the innermost user frame ``e`` passed through."""
    where, tb = "<unknown location>", e.__traceback__
    while tb is not None:
        if is_user_line(tb.tb_frame.f_code.co_filename):
            where = _described(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return where


@contextlib.contextmanager
def noting_refusals() -> Iterator[list[UnsupportedError]]:
    """The refusals made within (see UnsupportedError)."""
    outer, _local.refusals = getattr(_local, "refusals", None), []
    try:
        yield _local.refusals
    finally:
        _local.refusals = outer


def caught_by_user(refusals: list[UnsupportedError]) -> UnsupportedError | None:
    """The first of ``refusals`` that the user's code caught and went on from (where NumPy does
    not raise), with a note saying so; None if there is none. A caught exception's traceback
    starts at the frame that caught it."""
    for e in refusals:
        tb = e.__traceback__
        if tb is not None and not e.numpy_raises and is_user_line(tb.tb_frame.f_code.co_filename):
            where = _described(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
            return type(e)(f"{e}\n  the function caught it (a try/except around {where}) and went on: NumPy "
                           "does not raise there, so its answer would differ; elena_jax refuses instead")
    return None


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


def raising_fp_errors() -> tuple[str, ...]:
    """The categories for which NumPy's error state (np.errstate, np.seterr) raises
    FloatingPointError (or calls np.seterrcall's function)."""
    return tuple(k for k, v in np.geterr().items() if v in ("raise", "call"))


def refuse_raising(what: str, flags, check: str = "check the result instead (np.isfinite)") -> None:
    """Compiled code cannot raise FloatingPointError: where NumPy's error state raises for one of
    ``flags`` that ``what`` may set, refuse rather than answer inf, nan or a wrapped value silently,
    saying what to ``check`` instead."""
    if flags:
        settings = ", ".join(f"{k}={np.geterr()[k]!r}" for k in flags)
        raise located(UnsupportedError, f"{what} under NumPy's error state {settings} (np.errstate, np.seterr): "
                      f"elena_jax cannot raise FloatingPointError from compiled code; {check}, or run this part "
                      "with NumPy")
