"""Custom kernels written with Numba, called from functionalized NumPy code or from JAX.

``@kernel(outputs=("keep",))`` marks a function written for ``numba.njit``
that fills some of its array arguments in place; called on JAX arrays it
returns their new values, inside a functionalized function it is one
recorded write. See ``_kernel`` for the semantics and the contract with the
core's tracer, ``_ffi`` for the CPU mechanism (a Numba-compiled XLA FFI
handler), ``_callback`` for the debug and GPU mechanisms, and
docs/kernels.md for the guide.

Invariant: importing this package registers the lowering rule of the
recorded ``kernel`` op in the core's table (``_trace``); otherwise the core is
only reached lazily, so kernels on NumPy and JAX arrays work without it.
"""

from . import _trace  # noqa: F401  (registers the lowering rule)
from ._kernel import Kernel, debug, kernel

__all__ = ["Kernel", "debug", "kernel"]
