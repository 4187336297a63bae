"""elena_jax: imperative NumPy with views and in-place writes, as one pure JAX program.

The public surface: `functionalize`, `pure`, `make_jaxpr`, `explain`,
`supported`, and the errors `UnsupportedError` and `ConcretizationError`.
Layering: view, storage <- ir, deps <- tracer <- numpy/, passes/, lower/ <- _api.
"""

from ._api import explain, functionalize, make_jaxpr, pure
from .errors import ConcretizationError, UnsupportedError
from .kernels import kernel
from .numpy import supported

__all__ = [
    "ConcretizationError",
    "UnsupportedError",
    "explain",
    "functionalize",
    "kernel",
    "make_jaxpr",
    "pure",
    "supported",
]
