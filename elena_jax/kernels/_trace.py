"""Kernels inside functionalized code: one recorded write, and its lowering rule.

A kernel called on elena_jax tracers is entered in the trace as the op
``kernel`` that reads every array argument (tracers and NumPy constants) and
writes the output arguments' views; static scalars travel in the op's
``template`` parameter. The dependency table, the passes and the write-back
of the caller's arrays then treat it like any other in-place write. The
lowering rule (registered in ``elena_jax.lower.rules.RULES`` on import)
places the operands' JAX values back into the argument list and calls the
kernel's JAX path.

Invariant: the op's outputs are exactly the output arguments' views, in the
order of ``Kernel.outputs``.
"""

from __future__ import annotations

from ..lower.rules import RULES
from ..tracer import Tracer
from ._kernel import Kernel, is_array


def record(kernel: Kernel, args):
    """Record ``kernel(*args)`` on the trace of its tracer arguments; returns the output tracers."""
    trace = next(a.trace for a in args if isinstance(a, Tracer))
    arrays, template = [], []
    for a in args:
        if is_array(a):
            template.append(("arr", len(arrays)))
            arrays.append(a)
        else:
            template.append(("static", a))
    dsts = [args[o] for o in kernel.outputs]
    if not all(isinstance(d, Tracer) and d.trace is trace for d in dsts):
        raise TypeError(f"{kernel.__name__}: inside a functionalized function, every output argument must be "
                        "an array of that function (an argument, or made by NumPy code in it)")
    trace.write("kernel", arrays, dsts, kernel=kernel, template=tuple(template))
    return dsts[0] if len(dsts) == 1 else tuple(dsts)


def kernel_rule(ins, outs, kernel: Kernel, template: tuple) -> list:
    """Lowering of a recorded kernel call: the outputs' new values."""
    from ._jax import apply_template

    return apply_template(kernel, template, list(ins))


RULES["kernel"] = kernel_rule
