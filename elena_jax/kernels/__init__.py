"""Custom kernels written with Numba, called from functionalized code or JAX.

``@elena_jax.kernel(outputs=("keep",))`` marks a plain Python function that
fills some of its array arguments in place (a loop Numba compiles with
``njit``). Called on JAX arrays -- inside or outside ``jax.jit`` -- it returns
the new values of its output arguments; called on NumPy arrays it writes them
in place, as Numba would; called inside a functionalized
function on traced arrays, it is recorded as one operation that reads every
array argument and writes its outputs, so the dependency table, the passes and
the write-back of caller arrays treat it like any other write.

Mechanism (this version): ``jax.experimental.buffer_callback`` on CPU, with
every output aliased to its input buffer (so elements the kernel leaves alone
keep their values, and nothing is copied), calling the njit-compiled kernel on
NumPy views of XLA's buffers. A typed XLA FFI handler compiled by Numba (no
Python at run time) and the Numba CUDA path are not written yet.

Invariant: a kernel never writes its non-output arguments (they are read-only
views), and its outputs alias their inputs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.buffer_callback import buffer_callback

from ..tracer import Tracer


class Kernel:
    """A Numba kernel with declared output arguments (see the module docstring)."""

    def __init__(self, fn: Callable, outputs: Sequence[int | str]) -> None:
        self.fn = fn
        params = list(inspect.signature(fn).parameters)
        self.outputs = tuple(params.index(o) if isinstance(o, str) else int(o) for o in outputs)
        self._compiled = None
        self.__name__ = getattr(fn, "__name__", "kernel")

    @property
    def compiled(self) -> Callable:
        if self._compiled is None:
            import numba

            self._compiled = numba.njit(self.fn)
        return self._compiled

    def __call__(self, *args):
        if any(isinstance(a, Tracer) for a in args):
            return _record(self, args)
        if all(isinstance(a, np.ndarray) for a in args if _is_array(a)):
            # Eager NumPy: the kernel writes its outputs in place, as under Numba,
            # so the same user function runs with NumPy and through elena_jax.
            self.compiled(*args)
            out = [args[o] for o in self.outputs]
            return out[0] if len(out) == 1 else tuple(out)
        out = self.apply(*args)
        return out[0] if len(out) == 1 else tuple(out)

    def apply(self, *args) -> list:
        """New values of the output arguments, as a pure JAX computation."""
        arrays = [k for k, a in enumerate(args) if _is_array(a)]
        if any(o not in arrays for o in self.outputs):
            raise TypeError(f"{self.__name__}: every output argument must be an array")
        values = [jnp.asarray(args[k]) for k in arrays]
        position = {k: n for n, k in enumerate(arrays)}
        result_types = [jax.ShapeDtypeStruct(values[position[o]].shape, values[position[o]].dtype)
                        for o in self.outputs]
        aliases = {position[o]: n for n, o in enumerate(self.outputs)}
        compiled = self.compiled

        def callback(ctx, outs, *ins):
            call = [a for a in args]
            for k, buf in zip(arrays, ins):
                view = np.asarray(buf)
                view.flags.writeable = False
                call[k] = view
            for o, buf in zip(self.outputs, outs):
                call[o] = np.asarray(buf)  # aliased to the input: holds its values
            compiled(*call)

        run = buffer_callback(callback, result_types, input_output_aliases=aliases, vmap_method="sequential")
        return list(run(*values))


def _is_array(x) -> bool:
    return isinstance(x, (np.ndarray, jax.Array, Tracer)) or isinstance(x, jax.core.Tracer)


def _record(k: Kernel, args):
    trace = next(a.trace for a in args if isinstance(a, Tracer))
    arrays, template = [], []
    for a in args:  # arrays become operands; everything else stays a static argument
        template.append(("arr", len(arrays)) if _is_array(a) else ("static", a))
        if _is_array(a):
            arrays.append(a)
    dsts = [args[o] for o in k.outputs]
    if not all(isinstance(d, Tracer) for d in dsts):
        raise TypeError(f"{k.__name__}: output arguments must be traced arrays")
    trace.write("kernel", arrays, dsts, kernel=k, template=tuple(template))
    return dsts[0] if len(dsts) == 1 else tuple(dsts)


def kernel(fn: Callable | None = None, *, outputs: Sequence[int | str]) -> Kernel | Callable:
    """Decorate a Numba-compilable function that writes its ``outputs`` arguments in place."""
    if fn is None:
        return lambda f: Kernel(f, outputs)
    return Kernel(fn, outputs)
