"""Custom kernels written with Numba, called from functionalized NumPy code or from JAX.

``@kernel(outputs=("keep",))`` marks a function written for ``numba.njit``
that fills some of its array arguments in place; called on JAX arrays it
returns their new values, inside a functionalized function it is one
recorded write. See ``_kernel`` for the semantics and the contract with the
core's tracer, ``_ffi`` for the CPU mechanism (a Numba-compiled XLA FFI
handler), ``_callback`` for the debug and GPU mechanisms, and
docs/kernels.md for the guide.

Invariant: this package imports nothing from the core (tracer, lowering);
the core calls into it (``Kernel.apply``, ``Kernel.output_indices``).
"""

from ._kernel import Kernel, debug, kernel

__all__ = ["Kernel", "debug", "kernel"]
