"""Lowering: a recorded Program becomes a pure JAX function.

``lower(program)`` returns ``run(*inputs) -> (outputs, finals)``: ``inputs``
are the values of the program's argument storages, ``outputs`` the result
leaves, ``finals`` the final value of every storage the program mutated. A
result that is a mutated argument itself, whole (``return x`` after ``x[...]
= ...``), is None among ``outputs`` and ``run.aliases`` maps it to its final:
returned twice, XLA would copy it into a second buffer (docs/design.md, "Calls,
caching, write-back"). The
storages' values are threaded through the ops in program order; every read is
memory.read of the storage's current value, every write replaces the value by
memory.write; an elementwise update of a view it reads is computed over the
whole storage instead (`_update_in_place`). This is the only package, with
_api, that imports JAX.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import jax.numpy as jnp
import numpy as np

from ..ir import Const, Program
from ..view import contiguous
from . import abstract, memory, opaque  # noqa: F401 (abstract registers a hook)
from .lazy import UFUNCS, recipe
from .rules import RULES, products_rounded, to_value, value_check


def lower(program: Program, checked: bool = False, fma: bool = True) -> Callable:
    """``run(*inputs) -> (outputs, finals)``; with ``checked``, also one flag per op
    whose values can make NumPy raise: whether they do (``run.checked_ops``: those ops
    and NumPy's errors, see rules.value_check). With ``fma=False`` every float product is
    rounded on its own, as NumPy's, which XLA would contract with the sum it feeds."""
    mutated = [s for s in program.inputs if s in program.written()]
    aliases = {k: mutated.index(x.storage) for k, x in enumerate(program.outputs)
               if not isinstance(x, Const) and x.storage in mutated and x.view == contiguous(x.storage.shape)}
    checks = {id(op): check for op in program.ops if checked and (check := value_check(op)) is not None}

    def run(*inputs):
        with products_rounded(not fma):
            return _run(*inputs)

    def _run(*inputs):
        env, arguments = {}, {}  # storage id -> current value; argument storage id -> its value
        recipes = {}  # storage id -> (its value, that value as lazy.Lazy) where an elementwise op wrote it whole
        constants = set()  # ids of the storages whose values depend on no argument
        flags = []

        def value(x):
            if isinstance(x, Const):
                return to_value(x.value)
            return memory.read(env[x.storage.id], x.view, x.storage.shape)

        def lazy(x):
            """x's value as a lazy.Lazy where it is a whole storage that has one, else None."""
            if isinstance(x, Const) or x.storage.id not in recipes:
                return None
            flat, known = recipes[x.storage.id]
            return known if flat is env[x.storage.id] and x.view == contiguous(x.storage.shape) else None

        for op in program.ops:
            if op.prim == "arg":
                (out,) = op.outs
                env[out.storage.id] = arguments[out.storage.id] = jnp.asarray(inputs[op.params["index"]]).reshape(-1)
                continue
            constant = all(isinstance(x, Const) or x.storage.id in constants for x in op.ins)
            for acc in op.outs:  # NB: a storage stays constant while only constants are written to it
                if constant and (acc.storage.id not in env or acc.storage.id in constants):
                    constants.add(acc.storage.id)
                else:
                    constants.discard(acc.storage.id)
            with opaque.constant_operands() if constant else contextlib.nullcontext():
                if op.prim == "ufunc" and _update_in_place(op, env, value, arguments):
                    continue
                ins = [value(x) for x in op.ins]
                lazies = [lazy(x) for x in op.ins]
                outs = [(a.view.shape, a.storage.dtype) for a in op.outs]
                # NB: a sum computes a Lazy operand slice by slice (see lazy.py)
                given = [lazies[0] or ins[0], *ins[1:]] if op.prim == "reduce" else ins
                results = RULES[op.prim](given, outs, **op.params)
            if id(op) in checks:
                flags.append(checks[id(op)][1](ins, results))
            for acc, val in zip(op.outs, results):
                sid = acc.storage.id
                if sid not in env:
                    env[sid] = memory.fit_value(val, acc.storage.dtype, acc.view.shape).reshape(-1)
                else:
                    env[sid] = memory.write(env[sid], acc.view, acc.storage.shape, val)
            if _recomputable(op, results):
                known = recipe(_ufunc_of(outs, op.params), tuple(k or v for k, v in zip(lazies, ins)), results[0])
                if known is not None:
                    recipes[op.outs[0].storage.id] = (env[op.outs[0].storage.id], known)
        outputs = [None if k in aliases else value(x) for k, x in enumerate(program.outputs)]
        finals = [env[s.id].reshape(s.shape) for s in mutated]
        return (outputs, finals, flags) if checked else (outputs, finals)

    run.mutated = [program.inputs.index(s) for s in mutated]
    run.aliases = aliases  # NB: result index -> index among finals
    run.checked_ops = [(op, checks[id(op)][0]) for op in program.ops if id(op) in checks]
    return run


def _recomputable(op, results: list) -> bool:
    """Whether ``op`` is a cheap elementwise op that wrote ``results`` to a whole storage."""
    if op.prim != "ufunc" or op.params["name"] not in UFUNCS or op.params.get("masked") or len(op.outs) != 1:
        return False
    (out,) = op.outs
    return out.view == contiguous(out.storage.shape) and results[0].shape == out.view.shape


def _ufunc_of(outs: list, params: dict) -> Callable:
    return lambda *xs: RULES["ufunc"](list(xs), outs, **params)[0]


def _update_in_place(op, env: dict, value: Callable, arguments: dict) -> bool:
    """Lower an elementwise op that updates a view it reads over the whole storage (see
    memory.update_box); False, and nothing done, where that does not apply."""
    (out,) = op.outs if len(op.outs) == 1 else (None,)
    if out is None or out.storage.id not in env or out not in op.ins:
        return False
    b = memory.update_box(out.view, out.storage.shape)
    if b is None:
        return False
    whole = env[out.storage.id].reshape(b.dims)

    def operand(x):
        if x == out:
            return whole
        if isinstance(x, Const):
            return value(x) if np.ndim(x.value) == 0 else memory.spread(b, out.view, value(x))
        src = memory.plain_box(x.view, x.storage.shape)
        if src is None or not memory.alignable(src, b) or x.view.shape != out.view.shape:
            return memory.spread(b, out.view, value(x))
        flat = env[x.storage.id]
        return memory.align(flat, src, b, argument=flat is arguments.get(x.storage.id))

    (res,) = RULES["ufunc"]([operand(x) for x in op.ins], [(b.dims, out.storage.dtype)], **op.params)
    env[out.storage.id] = memory.select_box(whole, b, res)
    return True
