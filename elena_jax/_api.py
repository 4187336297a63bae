"""The public API: functionalize, pure, make_jaxpr, explain.

A call flattens its arguments (JAX pytrees), splits array leaves (traced)
from everything else (static, part of the cache key), and looks up a compiled
program for that signature; on a miss the interpreter traces the user's
function on tracers, the program is lowered to a JAX function and jitted.
Mutated NumPy arguments are written back only after the whole call
succeeded, so a failing call leaves every caller array as it was.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from . import deps
from .errors import UnsupportedError
from .ir import Access, Program
from .lower import lower
from .numpy import intercepting
from .numpy._core import check_dtype_supported
from .passes import optimize
from .tracer import Trace, Tracer
from .view import contiguous

_SCALARS = (bool, int, float, complex)


@dataclass(frozen=True)
class Options:
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    jit: bool = True
    optimize: bool = True
    trace_scalars: bool = False
    cache_size: int = 256
    checked: bool = False


@dataclass
class Traced:
    """One input signature's traced program and its compiled function."""

    program: Program
    run: Callable  # jitted: (*array_leaves) -> (outputs, finals)
    out_tree: Any
    mutated: list[int]  # indices, among array leaves, of mutated arguments
    checked_ops: list = ()  # with checked=True: the indexing ops, one flag each


_KINDS: dict[type, str] = {}  # leaf type -> "numpy", "jax" or "other" (memoized: isinstance on ABCs is slow)


def _kind(leaf: Any) -> str:
    if isinstance(leaf, np.ndarray):
        kind = "numpy"
    elif isinstance(leaf, jax.Array) and not isinstance(leaf, jax.core.Tracer):
        kind = "jax"
    else:
        kind = "other"
    _KINDS[type(leaf)] = kind
    return kind


def _is_array(x: Any) -> bool:
    return isinstance(x, (np.ndarray, np.generic, jax.Array)) or isinstance(x, jax.core.Tracer)


class Functionalized:
    """A user function turned into a compiled, pure JAX program per signature."""

    def __init__(self, f: Callable, options: Options) -> None:
        functools.update_wrapper(self, f)
        self.f = f
        self.options = options
        self._cache: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._warned: set[str] = set()
        try:
            self._params = list(inspect.signature(f).parameters)
        except (TypeError, ValueError):
            self._params = []

    # -- signature --------------------------------------------------------------

    def _split(self, args, kwargs):
        """(treedef, array leaves, cache key): array leaves traced, the rest static."""
        o = self.options
        flat, treedef = jax.tree_util.tree_flatten(self._mark_static(args, kwargs))
        leaves, key = [], []
        for leaf in flat:
            kind = _KINDS.get(type(leaf)) or _kind(leaf)
            if kind == "numpy":
                key.append((leaf.shape, leaf.dtype, leaf.flags.writeable, False))
                leaves.append(leaf)
            elif kind == "jax":
                key.append((leaf.shape, leaf.dtype, True, False))
                leaves.append(leaf)
            elif _is_array(leaf) or o.trace_scalars and isinstance(leaf, _SCALARS) and not isinstance(leaf, bool):
                weak = isinstance(leaf, _SCALARS)
                dtype = np.asarray(leaf).dtype if weak else np.dtype(leaf.dtype)
                key.append((tuple(np.shape(leaf)), dtype, True, weak))
                leaves.append(leaf)
            else:
                value = leaf.value if isinstance(leaf, _Static) else leaf
                try:
                    hash(value)
                except TypeError:
                    raise TypeError(
                        f"an argument of type {type(value).__name__} is neither an array nor hashable; "
                        "make it an array or a static argument (a tuple, number or string)") from None
                key.append(("static", type(value), value))
        return treedef, leaves, tuple(key)

    def _mark_static(self, args, kwargs):
        """Wrap the static arguments so that each flattens to one static leaf."""
        o = self.options
        if o.static_argnums or o.static_argnames:
            static_pos = {i % len(args) for i in o.static_argnums} if args else set()
            args = tuple(_Static(a) if i in static_pos else a for i, a in enumerate(args))
            kwargs = {k: _Static(v) if k in o.static_argnames else v for k, v in kwargs.items()}
        return args, kwargs

    def _paths(self, args, kwargs) -> list[str]:
        """A readable name for each array leaf (for errors, warnings, explain)."""
        flat, _ = jax.tree_util.tree_flatten_with_path(self._mark_static(args, kwargs))
        return [self._describe(p) for p, leaf in flat if not isinstance(leaf, _Static) and (
            _is_array(leaf) or self.options.trace_scalars and isinstance(leaf, _SCALARS))]

    def _describe(self, path) -> str:
        first, rest = path[1], path[2:]
        if path[0].idx == 0 and self._params and first.idx < len(self._params):
            name = self._params[first.idx]
        else:
            name = getattr(first, "key", getattr(first, "idx", "?"))
        return f"{name!s}{jax.tree_util.keystr(tuple(rest))}"

    # -- tracing --------------------------------------------------------------------

    def trace(self, args, kwargs) -> tuple[Traced, list]:
        treedef, leaves, key = self._split(args, kwargs)
        full_key = (treedef, key)
        with self._lock:
            hit = self._cache.get(full_key)
            if hit is not None:
                self._cache.move_to_end(full_key)
                return hit, leaves
        traced = self._trace(treedef, key, self._paths(args, kwargs))
        with self._lock:
            self._cache[full_key] = traced
            while len(self._cache) > self.options.cache_size:
                self._cache.popitem(last=False)
        return traced, leaves

    def _trace(self, treedef, key, paths) -> Traced:
        trace = Trace()
        program = trace.program
        with trace.active(), intercepting():
            tracers, it = [], iter(paths)
            for k in key:
                if k[0] == "static":
                    tracers.append(k[2])
                    continue
                shape, dtype, writeable, weak = k
                check_dtype_supported(dtype)
                s = trace.new_storage(shape, dtype, f"argument {next(it)}", writeable)
                program.inputs.append(s)
                trace.record("arg", [], [Access.whole(s)], {"index": len(program.inputs) - 1})
                t = Tracer(trace, s, contiguous(shape))
                t.weak = weak
                tracers.append(t)
            args, kwargs = jax.tree_util.tree_unflatten(treedef, tracers)
            out = self.f(*args, **kwargs)
            out_leaves, out_tree = jax.tree_util.tree_flatten(out)
            program.outputs = [trace.operand(x) for x in out_leaves]
        program.verify()
        if self.options.optimize:
            program = optimize(program)
        run = lower(program, checked=self.options.checked)
        fn = jax.jit(run) if self.options.jit else run
        return Traced(program, fn, out_tree, run.mutated, run.checked_ops)

    # -- calling ---------------------------------------------------------------------

    def call_pure(self, args, kwargs):
        """(outputs pytree, finals by array-leaf index, leaves)."""
        traced, leaves = self.trace(args, kwargs)
        with jax.enable_x64(True):
            outputs, finals, *flags = traced.run(*leaves)
        if flags:
            _raise_out_of_bounds(flags[0], traced.checked_ops)
        result = jax.tree_util.tree_unflatten(traced.out_tree, outputs)
        return result, dict(zip(traced.mutated, finals)), leaves, traced

    def __call__(self, *args, **kwargs):
        result, finals, leaves, traced = self.call_pure(args, kwargs)
        if finals:
            self._write_back(finals, leaves, traced)
        return result

    def _write_back(self, finals, leaves, traced) -> None:
        paths = [s.origin.removeprefix("argument ") for s in traced.program.inputs]
        targets = []
        for i, value in finals.items():
            leaf = leaves[i]
            if isinstance(leaf, np.ndarray):
                targets.append((leaf, value))
            elif paths[i] not in self._warned:
                self._warned.add(paths[i])
                warnings.warn(
                    f"{self.__name__} writes into argument {paths[i]}, which is immutable "
                    f"({type(leaf).__name__}); the caller will not see the write. Use "
                    "elena_jax.pure to get the updated value.", stacklevel=3)
        _check_no_aliasing([t for t, _ in targets], [x for x in leaves if isinstance(x, np.ndarray)])
        host = [np.asarray(v) for _, v in targets]  # all transfers first: all or nothing
        for (target, _), value in zip(targets, host):
            np.copyto(target, value, casting="unsafe")


def _raise_out_of_bounds(flags, ops) -> None:
    """Checked mode: NumPy's IndexError for a traced index out of range."""
    for flag, op in zip(flags, ops):
        if isinstance(flag, jax.core.Tracer):
            return  # inside an outer transformation nothing is concrete to check
        if bool(flag):
            raise IndexError(f"index out of bounds in a traced index array (checked mode)\n  at {op.where}")


def _check_no_aliasing(written: list, arrays: list) -> None:
    for w in written:
        for a in arrays:
            if a is not w and np.may_share_memory(w, a) and np.shares_memory(w, a):
                raise UnsupportedError(
                    "two arguments share memory and one of them is written; elena_jax traces "
                    "arguments as separate buffers, so pass one array and take views inside")


class _Static:
    """A static argument: one pytree leaf, whatever its structure."""

    def __init__(self, value):
        self.value = value


def functionalize(f: Callable | None = None, *, static_argnums=(), static_argnames=(),
                  jit: bool = True, optimize: bool = True, trace_scalars: bool = False,
                  cache_size: int = 256, checked: bool = False):
    """Run imperative NumPy code ``f`` as one compiled, pure JAX program.

    As ``jax.jit``, but ``f`` is ordinary NumPy code: views, in-place writes
    and NumPy's dtypes. Array arguments (NumPy or JAX arrays, JAX tracers) are
    traced; other arguments are static. Writes into a NumPy argument are
    copied back into the caller's array after the call.

    ``checked=True`` raises NumPy's IndexError for traced integer indices out
    of range (by default XLA clamps reads and drops such writes).
    """
    if f is None:
        return functools.partial(functionalize, static_argnums=static_argnums,
                                 static_argnames=static_argnames, jit=jit, optimize=optimize,
                                 trace_scalars=trace_scalars, cache_size=cache_size, checked=checked)
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    opts = Options(tuple(static_argnums), tuple(static_argnames), jit, optimize, trace_scalars, cache_size,
                   checked)
    return Functionalized(f, opts)


def _functionalized(f, **options) -> Functionalized:
    return f if isinstance(f, Functionalized) and not options else functionalize(f, **options)


def pure(f: Callable, **options) -> Callable:
    """A pure JAX function ``g(*args) -> (result, new_args)``.

    ``new_args`` is the tuple of the positional arguments' values after ``f``
    ran (as JAX arrays; mutated or not), so ``g`` composes with ``jax.jit``,
    ``jax.grad`` and ``jax.vmap`` like any JAX function.
    """
    fz = _functionalized(f, **options)

    @functools.wraps(fz.f)
    def g(*args, **kwargs):
        result, finals, leaves, traced = fz.call_pure(args, kwargs)
        index = {id(x): i for i, x in enumerate(leaves)}

        def updated(x):
            i = index.get(id(x))
            if i is None:
                return x
            return finals.get(i, jax.numpy.asarray(x))

        new_args = tuple(jax.tree_util.tree_map(updated, a) for a in args)
        return result, new_args

    return g


def make_jaxpr(f: Callable, **options) -> Callable:
    """As ``jax.make_jaxpr``, of the pure form of ``f``."""
    g = pure(f, **options)

    def make(*args, **kwargs):
        with jax.enable_x64(True):
            return jax.make_jaxpr(g)(*args, **kwargs)

    return make


class Explanation:
    """The metadata side-table of one traced call (see ``explain``)."""

    def __init__(self, traced: Traced, before: Program) -> None:
        self.program = traced.program
        self.before = before
        self.edges = deps.edges(before.ops)

    def __str__(self) -> str:
        p = self.before
        lines = ["== storages"]
        lines += [f"  {s.describe()}" for s in p.storages]
        views = {}
        for op in p.ops:
            for a in (*op.reads(), *op.outs):
                views.setdefault((a.storage.id, a.view), len(views))
        lines.append("== views")
        for (sid, v), k in views.items():
            lines.append(f"  V{k}: S{sid} shape={v.shape} strides={v.strides} offset={v.offset}")
        lines.append("== operations")
        for i, op in enumerate(p.ops):
            r = ", ".join(f"V{views[(a.storage.id, a.view)]}" for a in op.reads()) or "-"
            w = ", ".join(f"V{views[(a.storage.id, a.view)]}" for a in op.outs)
            lines.append(f"  #{i} {op.prim}{_params(op.params)} reads {r} writes {w}")
            if op.where:
                lines.append(f"      at {op.where}")
        lines.append("== dependences")
        lines += [f"  #{e.src} -> #{e.dst} {e.kind} on S{e.storage.id}" for e in self.edges]
        if self.program is not self.before:
            lines.append("== passes fired: " + (", ".join(getattr(self.program, "fired", [])) or "none"))
            lines.append("== program after optimization")
            lines += ["  " + line for line in str(self.program).splitlines()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)


def _params(params: dict) -> str:
    shown = {k: v for k, v in params.items() if k in ("name", "index", "axis", "axes", "value")}
    return "" if not shown else "(" + ", ".join(f"{k}={v}" for k, v in shown.items()) + ")"


def explain(f: Callable, **options) -> Callable:
    """The side-table of ``f`` traced on these arguments: storages, views, ops, edges."""
    optimized = options.pop("optimize", True)
    fz = functionalize(getattr(f, "f", f), **{**options, "optimize": False, "jit": False})

    def run(*args, **kwargs):
        traced, _ = fz.trace(args, kwargs)
        before = traced.program
        after = optimize(before) if optimized else before
        return Explanation(Traced(after, traced.run, traced.out_tree, traced.mutated), before)

    return run
