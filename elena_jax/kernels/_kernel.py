"""The ``@kernel`` decorator: a Numba function that writes some arguments in place, as a JAX op.

A :class:`Kernel` wraps a plain Python function written for ``numba.njit``
whose *output* arguments it fills in place. How a call runs depends on what
it is called with:

- NumPy arrays only: eagerly under Numba, writing the outputs in place (as
  calling the njit function would) -- so the same user code runs unchanged
  with NumPy and under ``elena_jax.functionalize``;
- elena_jax tracers (inside a functionalized function): recorded as one op
  that reads every array argument and writes the outputs (see the tracer
  contract below);
- JAX arrays or JAX tracers (inside or outside ``jax.jit``, ``vmap``,
  ``scan``, ...): a pure JAX computation returning the outputs' new values.
  Each output is aliased to its operand (``input_output_aliases``), so what
  the kernel does not write keeps its previous value and nothing is copied.

Arguments that are Python scalars (``bool``, ``int``, ``float``, NumPy
scalars) are *static*: compiled into the kernel as constants, like
``static_argnums`` in ``jax.jit`` (one compilation per distinct value). An
array of shape ``()`` that is not an output is passed *to the kernel* as a
scalar, in every mode, so a threshold can also be a traced value.

Tracer contract (for the core): an argument is an elena_jax tracer when it
has a true ``__elena_tracer__`` attribute. A call with any tracer argument
is handed to ``elena_jax.tracer.call_kernel(kernel, args)`` when the core
defines that function, else to :func:`elena_jax.kernels._trace.record`, which
enters the op ``kernel`` (params ``kernel``, ``template``) through
``Trace.write``; either returns the output tracers (one, or a tuple). The
lowering of that op calls :meth:`Kernel.apply` with the operands' JAX values
put back into the argument list; ``Kernel.output_indices`` says which
arguments it writes. This module imports nothing from the core.

Invariant: the value returned for an output always starts from that output
argument's value before the call; non-output arguments are never written
(read-only views in the debug mode; by contract in the FFI mode).
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import jax
import numpy as np

MODES = ("auto", "ffi", "callback")
_keys = itertools.count()
_STATIC = (bool, int, float, np.bool_, np.number)
# The global debug switch (``debug()``): forces mode="callback" for "auto" kernels while set.
_DEBUG = contextvars.ContextVar("elena_jax_kernels_debug", default=False)


def is_tracer(x: Any) -> bool:
    """Whether ``x`` is an elena_jax tracer (duck-typed, so the core need not be imported)."""
    return bool(getattr(type(x), "__elena_tracer__", False))


def is_array(x: Any) -> bool:
    """Whether ``x`` is an array operand (anything else must be a static scalar)."""
    return isinstance(x, (np.ndarray, jax.Array, jax.core.Tracer)) or is_tracer(x)


@contextlib.contextmanager
def debug(enabled: bool = True) -> Iterator[None]:
    """Run kernels of ``mode="auto"`` in the debug mode (``"callback"``) inside the block.

    As ``jax.disable_jit`` is for jit, a global switch for debugging: the
    kernel's own exception messages and bounds checks. It is read when a
    call is *traced*: eager calls, and ``jax.jit`` functions traced for the
    first time inside the block (a jit cache hit keeps the traced mode).
    """
    token = _DEBUG.set(enabled)
    try:
        yield
    finally:
        _DEBUG.reset(token)


class Kernel:
    """A Numba kernel with declared output arguments (see the module docstring).

    Attributes: ``fn`` the Python function, ``outputs`` (also
    ``output_indices``) the positional indices of the output arguments,
    ``mode`` the CPU mechanism, ``boundscheck``. With ``grid``, ``fn`` is a
    Numba CUDA kernel (GPU only) launched with that grid.
    """

    def __init__(self, fn: Callable, outputs: Sequence[int | str], *, mode: str = "auto",
                 boundscheck: bool | None = None, grid: Callable[..., tuple] | tuple | None = None,
                 vjp: Callable | None = None) -> None:
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
        self._vjp: Callable | None = vjp
        self._cuda: tuple[Callable, Any] | None = None  # (body, grid), see ``cuda``
        self._cuda_compiled: Callable | None = None  # numba.cuda.jit of the body, made on first GPU call
        self._nparams = len(params)
        self._eager: dict[tuple, Callable] = {}  # jitted forms for eager calls on JAX arrays (``_jax.apply``)
        self.cpu = grid is None  # False: ``fn`` is a CUDA-style body, there is no CPU body
        if grid is not None:
            self._cuda = (fn, grid)

    @property
    def output_indices(self) -> tuple[int, ...]:
        """The positional indices of the arguments the kernel writes (the order of its results)."""
        return self.outputs

    def __repr__(self) -> str:
        return f"<elena_jax kernel {self.__name__} outputs={self.outputs} mode={self.mode!r}>"

    # --- compiled forms ------------------------------------------------------------------------

    def njit(self, boundscheck: bool | None = None) -> Callable:
        """The ``numba.njit`` dispatcher of the body (one per boundscheck setting)."""
        if not self.cpu:
            raise NotImplementedError(
                f"kernel {self.__name__!r} is a Numba CUDA kernel (made with grid=...) and has no CPU body: "
                "run it on a GPU backend, or write a CPU body and attach this one with .cuda(grid)")
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

    def cuda(self, grid: Callable[..., tuple] | tuple | None = None, *,
             launch: Callable[..., tuple] | tuple | None = None) -> Callable:
        """Decorator: a Numba CUDA body used on the GPU for this kernel.

        The body has the same parameters as the CPU body and is compiled with
        ``numba.cuda.jit``. ``grid`` (``launch`` is an alias) is
        ``(blocks, threads_per_block)``, or a function of the call's
        arguments (device arrays and static scalars) that returns it. Needs
        the optional ``numba-cuda`` package.
        """
        grid = launch if grid is None else grid
        if grid is None:
            raise TypeError(f"{self.__name__}.cuda needs a grid: (blocks, threads_per_block) or a function "
                            "of the kernel's arguments returning it")

        def register(body: Callable) -> Callable:
            self._cuda = (body, grid)
            self._cuda_compiled = None
            return body
        return register

    # --- calls ---------------------------------------------------------------------------------

    def __call__(self, *args):
        if len(args) != self._nparams:
            raise TypeError(f"{self.__name__} takes {self._nparams} arguments, got {len(args)}")
        for o in self.outputs:
            if not is_array(args[o]) or np.ndim(args[o]) == 0:
                raise TypeError(f"{self.__name__}: output argument {o} must be an array of rank >= 1, "
                                f"got {type(args[o]).__name__}")
        for k, a in enumerate(args):
            if not is_array(a) and not isinstance(a, _STATIC):
                raise TypeError(f"{self.__name__}: argument {k} must be an array or a Python/NumPy scalar, "
                                f"got {type(a).__name__}")
        if any(is_tracer(a) for a in args):
            return _tracer_hook()(self, args)
        if all(isinstance(a, np.ndarray) for a in args if is_array(a)):
            # Eager NumPy: the kernel writes its outputs in place, as under Numba.
            call = [a[()] if isinstance(a, np.ndarray) and a.ndim == 0 else a for a in args]
            self.compiled(*call)
            out = [args[o] for o in self.outputs]
        else:
            out = self.apply(*args)
        return out[0] if len(out) == 1 else tuple(out)

    def apply(self, *args) -> tuple:
        """The outputs' new values (a tuple, in the order of ``output_indices``) as a pure JAX computation.

        Works on JAX arrays and JAX tracers (NumPy arrays are taken as
        constants); this is what the lowering of a recorded kernel op calls.
        """
        from ._jax import apply

        return tuple(apply(self, args))

    def effective_mode(self) -> str:
        """The CPU mechanism a call traced now uses: ``"ffi"`` or ``"callback"``."""
        if self.mode == "callback" or (self.mode == "auto" and _DEBUG.get()):
            return "callback"
        return "ffi"


def _tracer_hook() -> Callable:
    """The core's ``call_kernel`` if it defines one, else this package's recorder (see the docstring)."""
    try:
        from elena_jax.tracer import call_kernel
    except ImportError:
        from ._trace import record as call_kernel
    return call_kernel


def kernel(fn: Callable | None = None, *, outputs: Sequence[int | str],
           grid: Callable[..., tuple] | tuple | None = None, mode: str = "auto", boundscheck: bool | None = None,
           vjp: Callable | None = None) -> Kernel | Callable[[Callable], Kernel]:
    """Decorate a ``numba.njit``-compilable function that writes its ``outputs`` in place.

    As ``numba.njit``, but the result is also a JAX operation: called on JAX
    arrays it returns the new values of the output arguments (one array, or a
    tuple in the order of ``outputs``). ``outputs`` names the written
    parameters, by name or position. ``mode``: ``"auto"`` (a Numba-compiled
    XLA FFI handler on CPU, the ``.cuda`` body on GPU), ``"ffi"``, or
    ``"callback"`` (debug: ``jax.experimental.buffer_callback`` calling the
    kernel from Python on zero-copy NumPy views, read-only inputs, bounds
    checks on, and the kernel's own exception messages). ``boundscheck`` is
    passed to ``numba.njit``. ``grid``: the body is instead a Numba CUDA
    kernel (``i = cuda.grid(1)``), GPU only, launched with ``grid`` (see
    :meth:`Kernel.cuda`). ``vjp``: as :meth:`Kernel.defvjp`.
    """
    def make(f: Callable) -> Kernel:
        return Kernel(f, outputs, mode=mode, boundscheck=boundscheck, grid=grid, vjp=vjp)

    return make if fn is None else make(fn)
