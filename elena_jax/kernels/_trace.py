"""Kernels inside functionalized code: a call on elena_jax tracers as one recorded write.

A kernel called on elena_jax tracers is entered in the trace as the op
``kernel`` that reads every array argument (tracers and NumPy constants) and
writes the output arguments' views; static scalars travel in the op's
``template`` parameter (per argument ``("arr", operand index)`` or
``("static", value)``). The dependency table, the passes and the write-back
of the caller's arrays then treat it like any other in-place write. The
lowering rule for ``kernel``, registered here into the core's rule table
(``elena_jax.lower.rules.RULES``) when the core is present, puts the
operands' JAX values back into the argument list and calls ``Kernel.apply``.

Invariant: the op's outputs are exactly the output arguments' views, in the
order of ``Kernel.output_indices``; importing this package registers the rule.
"""

from __future__ import annotations

from ._kernel import Kernel, is_array, is_tracer


def record(kernel: Kernel, args):
    """Record ``kernel(*args)`` on the trace of its tracer arguments; returns the output tracers."""
    trace = next(a._trace for a in args if is_tracer(a))
    arrays, template = [], []
    for a in args:
        if is_array(a):
            template.append(("arr", len(arrays)))
            arrays.append(a)
        else:
            template.append(("static", a))
    dsts = [args[o] for o in kernel.output_indices]
    if not all(is_tracer(d) and d._trace is trace for d in dsts):
        raise TypeError(f"{kernel.__name__}: inside a functionalized function, every output argument must be "
                        "an array of that function (an argument, or made by NumPy code in it)")
    trace.write("kernel", arrays, dsts, kernel=kernel, template=tuple(template))
    return dsts[0] if len(dsts) == 1 else tuple(dsts)


def kernel_rule(ins, outs, kernel: Kernel, template: tuple) -> list:
    """Lowering of a recorded kernel call: the outputs' new values, one per written view."""
    return list(kernel.apply(*[ins[x] if kind == "arr" else x for kind, x in template]))


def register() -> None:
    """Enter :func:`kernel_rule` in the core's lowering table (nothing to do without the core)."""
    try:
        from ..lower.rules import RULES
    except ImportError:
        return
    RULES["kernel"] = kernel_rule


register()
