"""The ``@kernel`` decorator: a Numba function that writes some arguments in place, as a JAX op.

A :class:`Kernel` wraps a plain Python function written for ``numba.njit``
whose *output* arguments it fills in place. How a call runs depends on what
it is called with:

- NumPy arrays only: eagerly under Numba, writing the outputs in place (as
  calling the njit function would) -- so the same user code runs unchanged
  with NumPy and under ``elena_jax.functionalize``;
- elena_jax tracers (inside a functionalized function): recorded as one op
  that reads every array argument and writes the outputs (see ``_trace``);
- JAX arrays or JAX tracers (inside or outside ``jax.jit``, ``vmap``,
  ``scan``, ...): a pure JAX computation returning the outputs' new values.
  Each output is aliased to its operand (``input_output_aliases``), so what
  the kernel does not write keeps its previous value and nothing is copied.

Arguments that are Python scalars (``bool``, ``int``, ``float``, NumPy
scalars) are *static*: compiled into the kernel as constants, like
``static_argnums`` in ``jax.jit`` (one compilation per distinct value). An
array of shape ``()`` that is not an output is passed *to the kernel* as a
scalar, in every mode, so a threshold can also be a traced value.

Invariant: the value returned for an output always starts from that output
argument's value before the call; non-output arguments are never written
(read-only views in the debug mode; by contract in the FFI mode).
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from ..tracer import Tracer

MODES = ("auto", "ffi", "callback")
_keys = itertools.count()
_STATIC = (bool, int, float, np.bool_, np.number)


def is_array(x: Any) -> bool:
    """Whether ``x`` is an array operand (anything else must be a static scalar)."""
    return isinstance(x, (np.ndarray, jax.Array, Tracer, jax.core.Tracer))


class Kernel:
    """A Numba kernel with declared output arguments (see the module docstring).

    Attributes: ``fn`` the Python function, ``outputs`` the positional indices
    of the output arguments, ``mode`` the CPU mechanism, ``boundscheck``.
    """

    def __init__(self, fn: Callable, outputs: Sequence[int | str], *, mode: str = "auto",
                 boundscheck: bool | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = fn.__doc__
        params = list(inspect.signature(fn).parameters)
        try:
            self.outputs = tuple(params.index(o) if isinstance(o, str) else int(o) for o in outputs)
        except ValueError:
            raise ValueError(f"{self.__name__}: outputs {tuple(outputs)} are not all parameters of "
                             f"{self.__name__}{inspect.signature(fn)}") from None
        if not self.outputs:
            raise ValueError(f"{self.__name__}: a kernel needs at least one output argument")
        if any(not 0 <= o < len(params) for o in self.outputs) or len(set(self.outputs)) != len(self.outputs):
            raise ValueError(f"{self.__name__}: bad output indices {self.outputs}")
        self.mode = mode
        self.boundscheck = boundscheck
        self.key = next(_keys)  # identity for the handler caches
        self._compiled: dict[bool | None, Callable] = {}
        self._vjp: Callable | None = None
        self._cuda: tuple[Callable, Any] | None = None

    def __repr__(self) -> str:
        return f"<elena_jax kernel {self.__name__} outputs={self.outputs} mode={self.mode!r}>"

    # --- compiled forms ------------------------------------------------------------------------

    def njit(self, boundscheck: bool | None = None) -> Callable:
        """The ``numba.njit`` dispatcher of the body (one per boundscheck setting)."""
        if boundscheck not in self._compiled:
            import numba

            self._compiled[boundscheck] = numba.njit(boundscheck=boundscheck)(self.fn)
        return self._compiled[boundscheck]

    @property
    def compiled(self) -> Callable:
        """The dispatcher the FFI handler and the eager NumPy path call."""
        return self.njit(self.boundscheck)

    # --- extension points ----------------------------------------------------------------------

    def defvjp(self, bwd: Callable) -> Callable:
        """Make the kernel differentiable with a user VJP (as ``jax.custom_vjp.defvjp``).

        ``bwd(args, outputs, cotangents)`` gets the call's arguments (JAX
        arrays, and the static scalars as they were), the tuple of output
        values and the tuple of their cotangents; it returns one cotangent
        per kernel argument (``None`` for static scalars and for arguments
        without a gradient). Usable as a decorator; returns ``bwd``.
        """
        self._vjp = bwd
        return bwd

    def cuda(self, launch: Callable[..., tuple] | tuple) -> Callable:
        """Decorator: a Numba CUDA body used on the GPU for this kernel.

        The body has the same parameters as the CPU body and is compiled with
        ``numba.cuda.jit``. ``launch`` is ``(griddim, blockdim)``, or a
        function of the call's arguments (arrays as shapes-bearing objects)
        that returns it. Needs the optional ``numba-cuda`` package.
        """
        def register(body: Callable) -> Callable:
            self._cuda = (body, launch)
            return body
        return register

    # --- calls ---------------------------------------------------------------------------------

    def __call__(self, *args):
        if len(args) != len(inspect.signature(self.fn).parameters):
            raise TypeError(f"{self.__name__} takes {len(inspect.signature(self.fn).parameters)} arguments, "
                            f"got {len(args)}")
        for o in self.outputs:
            if not is_array(args[o]) or np.ndim(args[o]) == 0:
                raise TypeError(f"{self.__name__}: output argument {o} must be an array of rank >= 1, "
                                f"got {type(args[o]).__name__}")
        for k, a in enumerate(args):
            if not is_array(a) and not isinstance(a, _STATIC):
                raise TypeError(f"{self.__name__}: argument {k} must be an array or a Python/NumPy scalar, "
                                f"got {type(a).__name__}")
        if any(isinstance(a, Tracer) for a in args):
            from ._trace import record

            return record(self, args)
        if all(isinstance(a, np.ndarray) for a in args if is_array(a)):
            # Eager NumPy: the kernel writes its outputs in place, as under Numba.
            call = [a[()] if isinstance(a, np.ndarray) and a.ndim == 0 else a for a in args]
            self.compiled(*call)
            out = [args[o] for o in self.outputs]
        else:
            out = self.apply(*args)
        return out[0] if len(out) == 1 else tuple(out)

    def apply(self, *args) -> list:
        """The outputs' new values as a pure JAX computation (the lowering of the traced op)."""
        from ._jax import apply

        return apply(self, args)


def kernel(fn: Callable | None = None, *, outputs: Sequence[int | str], mode: str = "auto",
           boundscheck: bool | None = None) -> Kernel | Callable[[Callable], Kernel]:
    """Decorate a ``numba.njit``-compilable function that writes its ``outputs`` in place.

    As ``numba.njit``, but the result is also a JAX operation: called on JAX
    arrays it returns the new values of the output arguments (one array, or a
    tuple in the order of ``outputs``). ``outputs`` names the written
    parameters, by name or position. ``mode``: ``"auto"`` (a Numba-compiled
    XLA FFI handler on CPU, the ``.cuda`` body on GPU), ``"ffi"``, or
    ``"callback"`` (debug: ``jax.experimental.buffer_callback`` calling the
    kernel from Python on zero-copy NumPy views, read-only inputs, bounds
    checks on, and the kernel's own exception messages). ``boundscheck`` is
    passed to ``numba.njit``.
    """
    def make(f: Callable) -> Kernel:
        return Kernel(f, outputs, mode=mode, boundscheck=boundscheck)

    return make if fn is None else make(fn)
