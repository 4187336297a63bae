"""The public API: functionalize, pure, make_jaxpr, explain.

A call flattens its arguments (JAX pytrees), splits array leaves (traced)
from everything else (static, part of the cache key), and looks up a compiled
program for that signature (in a cache shared by the function's wrappers of
the same options); on a miss the interpreter traces the user's function on
tracers, the program is lowered to a JAX function and jitted.
Mutated NumPy arguments are written back only after the whole call
succeeded, so a failing call leaves every caller array as it was. NumPy
arguments that share memory are traced as views of one storage (_aliases.py);
the aliasing pattern is part of the cache key.
"""

from __future__ import annotations

import contextlib
import dataclasses
import dis
import functools
import inspect
import itertools
import threading
import types
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from . import _aliases, deps
from .errors import (
    UnsupportedError,
    caught_by_user,
    is_user_file,
    is_user_line,
    located,
    names_a_location,
    noting_refusals,
    raised_at,
    raising_fp_errors,
)
from .ir import Access, Program
from .lower import lower
from .lower.memory import read
from .numpy import intercepting
from .numpy._core import check_dtype_supported
from .numpy.masked import Masked
from .passes import optimize
from .storage import Storage
from .tracer import Trace, Tracer, current_trace, same_bits
from .view import View, contiguous, covers

_SCALARS = (bool, int, float, complex)


@dataclasses.dataclass(frozen=True)
class Options:
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    jit: bool = True
    optimize: bool = True
    trace_scalars: bool = False
    cache_size: int = 256
    checked: bool = False
    fma: bool = True


@dataclasses.dataclass
class Traced:
    """One input signature's traced program and its compiled function."""

    program: Program
    run: Callable  # jitted: (*inputs) -> (outputs, finals); inputs are the array leaves unless `inputs`;
    # an output that is one of the finals is None there (see `aliases`)
    out_tree: Any
    mutated: list[int]  # indices, among array leaves, of the arguments whose value changed: one final each
    checked_ops: list = ()  # with checked=True: (op, NumPy's error) of each flag
    paths: list[str] = ()  # a readable name per array leaf
    # With arguments that share memory: the program's inputs, each an array-leaf index or
    # ("memory", g) for group g's common memory; and the leaves copied back (writable, and
    # not covered by another one copied back).
    inputs: list | None = None
    write_back: list[int] | None = None
    aliases: dict[int, int] = dataclasses.field(default_factory=dict)  # result index -> final index: the same array
    borrowed: tuple = ()  # (array, its value when traced) of the NumPy arrays read from outside f
    reshaped: dict[int, tuple] = dataclasses.field(default_factory=dict)  # array-leaf index -> shape set by f

    def stale(self) -> bool:
        """Whether a NumPy array read from outside f holds another value than when traced."""
        return any(not same_bits(a, then) for a, then in self.borrowed)


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


def _jax_literal(leaf: Any) -> bool:
    """Whether ``leaf`` is of JAX's own literal types: JAX passes NumPy arrays and Python numbers into
    ``jax.custom_vjp``/``custom_jvp`` functions and ``jax.grad(allow_int=True)`` as its subclasses
    (``TypedNdArray``, ``TypedFloat``), its own values, not the caller's (campaign K)."""
    return type(leaf).__module__ == "jax._src.literals"


def _plain(leaf: Any) -> Any:
    """A JAX literal as the plain array or number it stands for (refused or crashing as such)."""
    if not _jax_literal(leaf):
        return leaf
    if isinstance(leaf, np.ndarray):
        return leaf.view(np.ndarray)
    return next((t(leaf) for t in (int, float, complex) if isinstance(leaf, t)), leaf)


def _weak_jax_scalar(x: Any) -> bool:
    """A weakly typed JAX scalar (a Python number given to ``jax.jit``, ``jnp.asarray(0.5)``):
    promoted as JAX promotes it, as NumPy 2 promotes a Python number (float32 stays float32)."""
    return not np.shape(x) and bool(getattr(getattr(x, "aval", None), "weak_type", False))


def _zero_signs(value: Any) -> tuple[bool, ...]:
    """The signs of a static number's parts, which its == does not tell apart (0.0 == -0.0):
    part of its cache key, else f(a, -0.0) after f(a, 0.0) reused the program made for 0.0."""
    if isinstance(value, (float, np.floating)):
        return (bool(np.signbit(value)),)
    if isinstance(value, (complex, np.complexfloating)):
        return bool(np.signbit(value.real)), bool(np.signbit(value.imag))
    if isinstance(value, (tuple, list)):  # NB: static_argnums=(1,) of (0.0,) then (-0.0,)
        return tuple(sign for v in value for sign in _zero_signs(v))
    return ()


def _is_array(x: Any) -> bool:
    """NB: a NumPy float or complex scalar is data (``ref.mean()``), traced as jax.jit traces it; a
    NumPy integer or bool is a number as Python's (``np.tile(a, n)``, ``axis=n``), static."""
    return isinstance(x, (np.ndarray, np.inexact, jax.Array)) or isinstance(x, jax.core.Tracer)


# The traced programs of each function, by options: shared by all its wrappers, as jax.jit's
# cache is, so that ``functionalize(f)(x)`` written inline (a loop, a notebook cell run again,
# ``pure(f)`` inside a jitted function) traces and compiles f once per signature, not at each call.
# By f's identity (two callable objects equal by their __eq__ are two functions), while f's code and
# defaults are the ones traced (IPython's autoreload replaces them in place): id(f) -> (a weak
# reference to f, {options: ((code, defaults, keyword defaults), programs)}).
_PROGRAMS: dict[int, tuple[weakref.ref, dict]] = {}
_LOCK = threading.RLock()  # NB: a weak reference's callback may run while it is held


def _forget(key: int, ref: weakref.ref) -> None:
    with _LOCK:
        if _PROGRAMS.get(key, (None,))[0] is ref:
            del _PROGRAMS[key]


def _programs_of(f: Callable, options: Options) -> OrderedDict:
    """The cache of ``f``'s programs under ``options`` (a wrapper's own where f cannot be
    referenced weakly, a callable object with ``__slots__`` say)."""
    state = _code_of(f)
    with _LOCK:
        entry = _PROGRAMS.get(id(f))
        if entry is None or entry[0]() is not f:
            try:
                ref = weakref.ref(f, functools.partial(_forget, id(f)))
            except TypeError:
                return OrderedDict()
            entry = _PROGRAMS[id(f)] = (ref, {})
        kept = entry[1].get(options)
        if kept is None or any(a is not b for a, b in zip(kept[0], state)):
            kept = entry[1][options] = (state, OrderedDict())
        return kept[1]


def _code_of(f: Callable) -> tuple:
    """What of ``f`` IPython's autoreload replaces in place: its code and defaults."""
    return tuple(getattr(f, name, None) for name in ("__code__", "__defaults__", "__kwdefaults__"))


class Functionalized:
    """A user function turned into a compiled, pure JAX program per signature."""

    def __init__(self, f: Callable, options: Options) -> None:
        functools.update_wrapper(self, f)
        self.f = f
        self.options = options
        self._reloaded()
        self._warned: set[str] = set()

    def _reloaded(self) -> None:
        """Take ``f``'s code and defaults as they are now: its programs and parameters."""
        self._code = _code_of(self.f)
        self._cache = _programs_of(self.f, self.options)
        try:
            params = list(inspect.signature(self.f).parameters.values())
        except (TypeError, ValueError):
            params = []
        self._params = [p.name for p in params]
        self._positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]

    def __get__(self, instance, owner=None):
        """A method: the instance is bound as the first argument (static, like any non-array)."""
        return self if instance is None else types.MethodType(self, instance)

    # -- signature --------------------------------------------------------------

    def _split(self, args, kwargs):
        """(treedef, array leaves, cache key, group memories): array leaves traced, the rest static.

        NumPy leaves that share memory carry their group in their key entry
        (see `_alias`); the group memories are the inputs of those groups.
        """
        flat, treedef = jax.tree_util.tree_flatten(self._mark_static(args, kwargs))
        leaves, key, numpy_at = [], [], []
        for position, given in enumerate(flat):
            leaf = _plain(given)
            kind = _KINDS.get(type(leaf)) or _kind(leaf)
            if kind == "numpy":
                if type(leaf) is not np.ndarray and not isinstance(leaf, np.memmap):
                    raise located(UnsupportedError, f"an argument of type {type(leaf).__module__}."
                                  f"{type(leaf).__name__}: a subclass of ndarray has arithmetic and indexing of "
                                  "its own (np.matrix's * is a matrix product, a masked array skips masked "
                                  "values); pass np.asarray(...) of it")
                numpy_at.append((len(leaves), len(key)))
                key.append((leaf.shape, leaf.dtype, leaf.flags.writeable, "array"))
                leaves.append(given)  # NB: the caller's own object (pure finds its arguments by it)
            elif kind == "jax":
                key.append((leaf.shape, leaf.dtype, True, "weak" if _weak_jax_scalar(leaf) else "array"))
                leaves.append(leaf)
            elif self._traced(leaf):
                # NB: np.float64 subclasses float and np.complex128 complex, but a NumPy scalar is
                # strongly typed in NumPy 2's promotion (NEP 50): a 0-d array of its dtype, not weak
                python = isinstance(leaf, _SCALARS) and not isinstance(leaf, np.generic)
                dtype = np.asarray(leaf).dtype if python else np.dtype(leaf.dtype)
                if not all(isinstance(n, int) for n in np.shape(leaf)):  # NB: only a JAX tracer's can be symbolic
                    raise located(UnsupportedError, f"argument {self._paths(args, kwargs)[len(leaves)]} has "
                                  f"symbolic dimensions, {np.shape(leaf)} (jax.export's shape polymorphism): "
                                  "elena_jax traces the views and writes of concrete shapes; export it with "
                                  "concrete ones")
                nature = "weak" if python or _weak_jax_scalar(leaf) else "scalar" if isinstance(leaf, np.generic) \
                    else "array"
                key.append((tuple(np.shape(leaf)), dtype, True, nature))
                leaves.append(leaf)
            else:
                value = leaf.value if isinstance(leaf, _Static) else leaf
                static_type = type(value)
                if static_type is slice:  # NB: not hashable before Python 3.12; _Arguments rebuilds it
                    value = (value.start, value.stop, value.step)
                try:
                    hash(value)
                except TypeError:
                    path, _ = jax.tree_util.tree_flatten_with_path(self._mark_static(args, kwargs))[0][position]
                    what = f"argument {self._describe(path)}"
                    if isinstance(value, jax.core.Tracer):  # NB: marked static here, traced by an outer transformation
                        raise located(TypeError, f"{what} is marked static (static_argnums/static_argnames) but "
                                      "is traced by an outer JAX transformation: mark it static there too "
                                      "(jax.jit's static_argnums), or bind it first, functools.partial(g, ...), "
                                      "under jax.vmap or jax.grad") from None
                    if isinstance(value, np.ndarray):  # NB: an array marked static (static_argnums)
                        raise located(TypeError, f"{what} is a NumPy array marked static, and a static argument "
                                      "must be hashable: pass it as a tuple (tuple(a.tolist())), or trace it "
                                      "(leave it out of static_argnums)") from None
                    raise located(TypeError, f"{what} of type {type(value).__name__} "
                                  "is neither an array nor hashable; make it an array or a static argument "
                                  "(a tuple, number or string)") from None
                key.append(("static", static_type, value, _zero_signs(value)))
        strided = any(not leaves[i].flags.c_contiguous for i, _ in numpy_at)
        memories = _alias(leaves, key, numpy_at) if len(numpy_at) > 1 or strided else None
        first: dict[int, int] = {}
        for i, k in numpy_at:
            j = first.setdefault(id(leaves[i]), i)
            if j != i:  # NB: the same array passed again is the same object inside, as NumPy's `x is y`
                key[k] += (("same", j),)
        return treedef, leaves, tuple(key), memories

    def _mark_static(self, args, kwargs):
        """Wrap the static arguments so that each flattens to one static leaf."""
        o = self.options
        if o.static_argnums or o.static_argnames:
            static_pos = {_call_index(i, len(args)) for i in o.static_argnums if i < len(args)}
            args = tuple(_Static(a) if i in static_pos else a for i, a in enumerate(args))
            kwargs = {k: _Static(v) if k in o.static_argnames else v for k, v in kwargs.items()}
        return args, kwargs

    def _refuse_changed_containers(self, args, kwargs, treedef, inputs: list, out) -> None:
        """Refuse a change to the containers of an argument that ``f`` does not return: a new array
        or number in a list or dict (``state["t"] += 1`` of an int, ``log.append(y)``), an item removed,
        an attribute of a pytree object rebound (``self.s = ...``). NumPy's caller would see it, but
        an argument's pytree is rebuilt for the call (as by jax.jit), so it would be lost, and a later
        call, replaying this one's program, would compute from the old state. An array written in
        place (``state["x"] += 1``) is the argument's own, written back."""
        before = self._mark_static(*jax.tree_util.tree_unflatten(treedef, inputs))
        after = self._mark_static(args, kwargs)
        params = self._positional
        names = [params[i] if i < len(params) else f"{i}" for i in range(len(args))] + list(kwargs)
        pairs = [*zip(before[0], after[0], args), *((before[1][k], after[1][k], kwargs[k]) for k in kwargs)]
        for name, (old, new, given) in zip(names, pairs):
            (was, was_tree), (now, now_tree) = jax.tree_util.tree_flatten(old), jax.tree_util.tree_flatten(new)
            if now_tree == was_tree and all((a.value is b.value) if isinstance(a, _Static) else a is b
                                            for a, b in zip(now, was)) or _returned(given, out):
                continue
            raise UnsupportedError(
                f"the function changes what argument {name} holds (a new array or number in it, an item added or "
                "removed, an attribute rebound): an argument's containers are rebuilt for the call (as by "
                "jax.jit), so the caller would not see the change; return the container (an array written in "
                f"place reaches the caller)\n  in {_described(self.f)}")

    def _traced(self, leaf) -> bool:
        """Whether a leaf of the (marked) arguments is traced: an array or a NumPy float, or with
        ``trace_scalars`` a Python number or NumPy integer (not a bool). NB: a NumPy integer traced
        was refused where NumPy needs an int (np.tile(a, np.int64(2)), axis=np.int64(1))."""
        return not isinstance(leaf, _Static) and (_is_array(leaf) or self.options.trace_scalars and isinstance(
            leaf, (*_SCALARS, np.integer)) and not isinstance(leaf, bool))

    def _paths(self, args, kwargs) -> list[str]:
        """A readable name for each traced leaf (for errors, warnings, explain)."""
        flat, _ = jax.tree_util.tree_flatten_with_path(self._mark_static(args, kwargs))
        return [self._describe(p) for p, leaf in flat if self._traced(leaf)]

    def _describe(self, path) -> str:
        first, rest = path[1], path[2:]
        if path[0].idx == 0 and self._params and first.idx < len(self._params):
            name = self._params[first.idx]
        else:
            name = getattr(first, "key", getattr(first, "idx", "?"))
        return f"{name!s}{jax.tree_util.keystr(tuple(rest))}"

    # -- tracing --------------------------------------------------------------------

    def trace(self, args, kwargs) -> tuple[Traced, list, list]:
        """(the traced program, the array leaves, the program's inputs for this call)."""
        if any(a is not b for a, b in zip(_code_of(self.f), self._code)):  # NB: autoreload replaced them
            self._reloaded()
        treedef, leaves, key, memories = self._split(args, kwargs)
        full_key = (treedef, key, raising_fp_errors())  # NB: traced under np.seterr(all="raise"), f refuses
        with _LOCK:
            traced = self._cache.get(full_key)
            if traced is not None:
                self._cache.move_to_end(full_key)
        if traced is not None and traced.stale():
            self._warn_stale(traced)
            traced = None
        if traced is None:
            traced = self._trace(treedef, key, self._paths(args, kwargs))
            with _LOCK:
                self._cache[full_key] = traced
                while len(self._cache) > self.options.cache_size:
                    self._cache.popitem(last=False)
        if traced.inputs is None:
            return traced, leaves, leaves
        return traced, leaves, [leaves[x] if isinstance(x, int) else memories[x[1]] for x in traced.inputs]

    def _trace(self, treedef, key, paths) -> Traced:
        trace = Trace()
        program = trace.program
        with trace.active(), intercepting(), noting_refusals() as refusals:
            arguments = _Arguments(trace, key, paths)
            args, kwargs = jax.tree_util.tree_unflatten(treedef, arguments.tracers)
            try:
                out = self.f(*args, **kwargs)
            except Exception as e:
                if isinstance(e, TypeError):
                    _refuse_jax_on_tracers(e, self.f)
                    _refuse_outer_tracers(e)
                if not names_a_location(e):  # NB: NumPy's own errors (np.sum(a, axiz=0), np.sin.reduce) name no line
                    e.add_note(f"  at {raised_at(e)}")
                raise
            caught = caught_by_user(refusals)
            if caught is not None:  # NB: float(x.max()) in a try whose except takes another path
                raise caught
            _refuse_escaped(self.f, trace, [v for v in arguments.tracers if not isinstance(v, Tracer)])
            self._refuse_changed_containers(args, kwargs, treedef, arguments.tracers, out)
            out_leaves, out_tree = jax.tree_util.tree_flatten(out)
            by = _described(self.f)
            for x in out_leaves:
                if isinstance(x, Masked):  # NB: its message names the line of the selection
                    x.returned(by)
            try:
                program.outputs = [trace.operand(x) for x in out_leaves]
            except UnsupportedError as e:  # NB: the line it names is the caller's, the function has returned
                raise type(e)(f"{e}\n  returned by {by}: "
                              "results are arrays and numbers, or pytrees of them") from None
        program.verify()
        borrowed = tuple(trace.borrowed.values())
        # NB: ``a.shape = (2, 8)`` of an argument reshapes the caller's array, as NumPy's
        reshaped = {i: t.shape for i, (t, v) in enumerate(zip(arguments.array_tracers(), arguments.views))
                    if t.shape != v.shape}
        arguments.refuse_unshareable_writes()
        if self.options.optimize:
            program = optimize(program)
        run = lower(program, checked=self.options.checked, fma=self.options.fma)
        if not arguments.shared:
            fn = jax.jit(run) if self.options.jit else run
            return Traced(program, fn, out_tree, run.mutated, run.checked_ops, paths, aliases=run.aliases,
                          borrowed=borrowed, reshaped=reshaped)
        by_leaf, mutated, write_back, aliases = arguments.finals_by_leaf(run, program)
        fn = jax.jit(by_leaf) if self.options.jit else by_leaf
        return Traced(program, fn, out_tree, mutated, run.checked_ops, paths, arguments.inputs, write_back, aliases,
                      borrowed, reshaped)

    def _warn_stale(self, traced: Traced) -> None:
        """Once per function: a NumPy array read from outside it changed, so it is traced and
        compiled again (NumPy reads it anew at each call)."""
        if "<borrowed>" in self._warned:
            return
        self._warned.add("<borrowed>")
        shapes = ", ".join(f"{a.shape}:{a.dtype}" for a, then in traced.borrowed if not same_bits(a, then))
        warnings.warn(f"{self.__name__} reads NumPy arrays from outside it ({shapes}) whose values changed since "
                      "it was traced: traced and compiled again at each change; pass them as arguments instead",
                      stacklevel=5)

    # -- calling ---------------------------------------------------------------------

    def call_pure(self, args, kwargs):
        """(outputs pytree, finals by array-leaf index, leaves)."""
        traced, leaves, inputs = self.trace(args, kwargs)
        inputs = [_as_traced(x) for x in inputs]
        with jax.enable_x64(True):
            outputs, finals, *flags = traced.run(*inputs)
        for k, i in traced.aliases.items():
            outputs[k] = finals[i]
        if flags:
            _raise_checked(flags[0], traced.checked_ops)
        result = jax.tree_util.tree_unflatten(traced.out_tree, outputs)
        return result, dict(zip(traced.mutated, finals)), leaves, traced

    def __call__(self, *args, **kwargs):
        if current_trace() is not None:  # NB: called by a function being traced: its ops join that trace
            return self.f(*args, **kwargs)
        result, finals, leaves, traced = self.call_pure(args, kwargs)
        if finals or traced.reshaped:
            self._write_back(finals, leaves, traced)
        return result

    def _write_back(self, finals, leaves, traced) -> None:
        targets = []
        for i in dict.fromkeys([*(finals if traced.write_back is None else traced.write_back), *traced.reshaped]):
            leaf, path = leaves[i], traced.paths[i]
            if isinstance(leaf, np.ndarray) and not _jax_literal(leaf):
                if i in finals:
                    targets.append((leaf, finals[i]))
            elif path not in self._warned:
                self._warned.add(path)
                warnings.warn(
                    f"{self.__name__} writes into argument {path} (or sets its shape), which is immutable "
                    f"({type(leaf).__name__}); the caller will not see the change. Use "
                    "elena_jax.pure to get the updated value.", stacklevel=3)
        host = [np.asarray(v) for _, v in targets]  # all transfers first: all or nothing
        for (target, _), value in zip(targets, host):
            np.copyto(target, value, casting="unsafe")
        for i, shape in traced.reshaped.items():
            if isinstance(leaves[i], np.ndarray) and not _jax_literal(leaves[i]):
                leaves[i].shape = shape


def _refuse_escaped(f: Callable, trace: Trace, statics: list) -> None:
    """Refuse a traced array that ``f`` stored outside itself: an attribute of the object whose
    method it is (``self.s = self.s * 0.5 + x``, its slots, its class's attributes), of an object it
    was passed (``statics``, the call's static arguments, ``self`` of a decorated method), a global (f's
    module's, or a module of the user's that f uses), a variable of an enclosing function, a
    default argument (``def f(x, seen=[])``), an argument bound by functools.partial. NumPy's next
    call would read the stored value; the program, cached, repeats this one, and the caller would
    hold a tracer (an acceptance campaign's find, session 30). Looked for two levels into lists,
    tuples, sets, dicts and objects' attributes there (`_holds`)."""
    target, bound = _unbound(f)
    places = [("an argument bound by functools.partial", v) for v in bound]
    # NB: attribute by attribute, as a bound method's instance (self.layers[i].x of a decorated method)
    places += [(f".{k} of an object it was passed (self of a method, an argument)", w)
               for v in statics if not isinstance(v, type) for k, w in _attributes(v)]
    places += [("an object it was passed (a static argument)", v) for v in statics
               if isinstance(v, (list, tuple, dict, set, frozenset))]  # NB: an object's attributes are above
    places += _class_attributes(v for v in statics if isinstance(v, type))  # NB: cls of a classmethod
    if hasattr(target, "__func__"):  # NB: a bound method (partial's too): its instance
        owner = target.__self__
    elif inspect.isfunction(target):
        owner = None
    else:  # NB: a callable object: itself
        owner = target
    places += [(f"self.{k}", v) for k, v in _attributes(owner)]
    places += _class_attributes(type(owner).__mro__ if owner is not None else ())
    fn = _code_owner(f)
    defaults = (*(getattr(fn, "__defaults__", None) or ()), *(getattr(fn, "__kwdefaults__", None) or {}).values())
    places += [(f"a default argument of {fn.__name__}", v) for v in defaults]
    scope = getattr(fn, "__globals__", {})
    places += [(f"the global {k}", v) for k, v in scope.items()]
    places += [(f"the global {v.__name__}.{k}", w) for v in scope.values()
               if isinstance(v, types.ModuleType) and is_user_line(getattr(v, "__file__", None) or "<frozen>")
               and v.__dict__ is not scope for k, w in vars(v).items()]
    code = getattr(fn, "__code__", None)
    for name, cell in zip(code.co_freevars if code else (), getattr(fn, "__closure__", None) or ()):
        with contextlib.suppress(ValueError):  # NB: a cell not yet bound
            places.append((f"the variable {name} of an enclosing function", cell.cell_contents))
    for where, value in places:
        if _holds(value, trace):
            raise UnsupportedError(
                f"the function stores a traced array in {where}: a side effect the compiled program cannot "
                "repeat (a later call would reuse this call's program, and the caller now holds a traced value "
                f"there); return the value instead (with elena_jax.pure, the new state)\n  in {_described(f)}")


def _class_attributes(classes) -> list[tuple[str, object]]:
    """(``Class.name``, value) for each class's own attributes, dunders aside."""
    return [(f"{c.__name__}.{k}", v) for c in classes for k, v in vars(c).items() if not k.startswith("__")]


def _returned(value, out) -> bool:
    """Whether ``value`` (a container) is ``out`` or in its pytree."""
    return any(x is value for x in jax.tree_util.tree_leaves(out, is_leaf=lambda x: x is value))


def _unbound(f: Callable) -> tuple[Callable, list]:
    """``f`` without its functools.partial layers, and the arguments they bind."""
    bound = []
    while isinstance(f, functools.partial):
        bound += [*f.args, *f.keywords.values()]
        f = f.func
    return f, bound


def _code_owner(f: Callable) -> Callable:
    """The function whose code runs when ``f`` is called: a partial's, a method's, a decorated
    function's (``__wrapped__``), a callable object's ``__call__``."""
    fn, _ = _unbound(f)
    fn = inspect.unwrap(getattr(fn, "__func__", fn))
    return fn if hasattr(fn, "__code__") else type(fn).__call__


def _described(f: Callable) -> str:
    """``f`` as errors name it: its name and where its code is (``step (model.py:12)``)."""
    fn = _code_owner(f)
    code = getattr(fn, "__code__", None)
    name = getattr(f, "__name__", None) or getattr(fn, "__qualname__", type(f).__name__)
    return name + (f" ({code.co_filename}:{code.co_firstlineno})" if code else "")


def _holds(value: Any, trace: Trace, depth: int = 2) -> bool:
    """Whether ``value`` is a tracer of ``trace``, or holds one within ``depth`` levels of lists,
    tuples, sets, dict values and objects' attributes (a callable object's too: a model, a layer;
    not a module's, class's, function's or array's). Of a long list or tuple only the ends are looked
    at, where ``append`` puts a value (a notebook's list of a million numbers would cost a second per
    trace), of a long set or dict the first items."""
    if isinstance(value, Tracer):
        return value._trace is trace
    if depth == 0 or isinstance(value, _OPAQUE):
        return False
    if isinstance(value, (list, tuple)):
        inner = value if len(value) <= 2 * _ENDS else [*value[:_ENDS], *value[-_ENDS:]]
    elif isinstance(value, dict):  # NB: its ends too: a new key goes last
        inner = [*itertools.islice(value.values(), _ENDS), *itertools.islice(reversed(value.values()), _ENDS)]
    elif isinstance(value, (set, frozenset)):
        inner = itertools.islice(value, 2 * _ENDS)
    else:
        inner = (v for _, v in _attributes(value))
    return any(_holds(x, trace, depth - 1) for x in inner)


_ENDS = 128
_OPAQUE = (str, bytes, np.ndarray, jax.Array, type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
           types.MethodType, functools.partial)


def _attributes(obj: Any) -> list[tuple[str, Any]]:
    """An object's attributes in its ``__dict__`` and ``__slots__``; none that raise when read (a
    config object's ``__getattr__``, a property)."""
    if obj is None:
        return []
    try:
        found = list(vars(obj).items())
    except Exception:  # noqa: BLE001 (no __dict__, or one that raises)
        found = []
    for cls in type(obj).__mro__:
        slots = vars(cls).get("__slots__", ())
        for k in [slots] if isinstance(slots, str) else slots:
            with contextlib.suppress(Exception):
                found.append((k, getattr(obj, k)))
    return found


def _refuse_jax_on_tracers(e: TypeError, f: Callable) -> None:
    """JAX's TypeError for a traced value handed to a JAX function (``jnp.tanh(y)``, ``jax.nn.relu``,
    ``lax.exp``, a ``jax.jit`` or ``custom_vjp`` function, or ``f`` itself: ``functionalize(jnp.cumsum)``)
    as elena_jax's refusal, which says why and what to write."""
    if f"{Tracer.__module__}.{Tracer.__name__}" in str(e) and _raised_by_jax(e) and not names_a_location(e):
        where = raised_at(e)
        tail = f"\n  at {where}" if where != "<unknown location>" else \
            f" (the function given is JAX's own: call it as it is)\n  in {_described(f)}"
        raise UnsupportedError(
            "a JAX function called on an array elena_jax traces as NumPy's: inside a functionalized "
            "function, write it with NumPy (np.tanh, np.maximum(x, 0)), or call the JAX function on its "
            "results outside it" + tail) from e


#: JAX's errors for a value of an outer transformation made concrete (np.asarray, bool, int): elena_jax
#: itself converts none while tracing (its own tracers stand for the arguments)
_OUTER_TRACER_ERRORS = (jax.errors.TracerArrayConversionError, jax.errors.TracerBoolConversionError,
                        jax.errors.TracerIntegerConversionError)


def _refuse_outer_tracers(e: TypeError) -> None:
    """JAX's error for a value traced by an outer transformation that ``f`` takes from outside
    (a closure under jax.jit): as elena_jax's refusal where an argument is expected, as where
    elena_jax itself meets one (tracer.constant_value), not the conversion JAX's error names."""
    if isinstance(e, _OUTER_TRACER_ERRORS):
        raise UnsupportedError(
            "cannot use a value traced by an outer JAX transformation (jax.jit, jax.grad, jax.vmap) "
            "that a functionalized function takes from outside it; pass it as an argument instead"
            f"\n  at {raised_at(e)}") from e


def _raised_by_jax(e: BaseException) -> bool:
    """Whether JAX raised ``e``, not the user's own ``raise``: its innermost frame is JAX's, or a
    call from the user's code into JAX's compiled dispatch (``jnp.tanh(y)`` has no frame of its own),
    or from elena_jax's call of the function itself (a jitted one, with no Python frame)."""
    tb = e.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    if code is Functionalized._trace.__code__:
        return True
    if not is_user_file(code.co_filename):
        return "/jax/" in code.co_filename or "/jaxlib/" in code.co_filename
    return dis.opname[code.co_code[tb.tb_lasti]] not in ("RAISE_VARARGS", "RERAISE")


def _raise_checked(flags, checks) -> None:
    """Checked mode: NumPy's error for the first op whose values make NumPy raise (a traced
    index out of range, a singular matrix, a negative integer power, weights summing to zero)."""
    for flag, (op, error) in zip(flags, checks):
        if isinstance(flag, jax.core.Tracer):
            return  # inside an outer transformation nothing is concrete to check
        if bool(flag):
            raise type(error)(f"{error} (checked mode)\n  at {op.where}")


def _alias(leaves: list, key: list, numpy_at: list[tuple[int, int]]) -> dict[int, np.ndarray] | None:
    """Mark the key entries of NumPy leaves that share memory; each group's memory.

    ``numpy_at`` holds (leaf index, key index) of every NumPy leaf. A member of
    group ``g`` gets ``("memory", g, shape, view)`` appended to its key entry
    (its View of the group's storage of that shape), or ``("refused", g,
    reason)`` where the group cannot be one storage. So the aliasing pattern
    is part of the cache key, and a call's group memories (no copies) are the
    inputs of its group storages.
    """
    found = _aliases.groups([leaves[i] for i, _ in numpy_at])
    # NB: an argument that is not C-contiguous (a.T, x[:, ::2]) is its View of its own memory, so
    # that ravel/reshape of it is a view exactly where NumPy's is (a group of one)
    grouped = {m for g in found for m in g}
    found += [[m] for m, (i, _) in enumerate(numpy_at) if m not in grouped and not leaves[i].flags.c_contiguous]
    if not found:
        return None
    memories = {}
    for g, group in enumerate(found):
        at = [numpy_at[m] for m in group]
        arrays = [leaves[i] for i, _ in at]
        layout = _aliases.layout(arrays)
        if isinstance(layout, str) and len(arrays) == 1:
            continue  # NB: misaligned strides: traced as a C-ordered copy, as before
        if isinstance(layout, str):
            for _, k in at:
                key[k] += (("refused", g, layout),)
            continue
        memories[g] = layout.value(arrays)
        for (_, k), view in zip(at, layout.views):
            key[k] += (("memory", g, layout.shape, view),)
    return memories


class _Arguments:
    """The tracers of one signature's arguments, and the program inputs behind them.

    An array argument is a storage of its own, defined by an "arg" op, unless
    its key entry puts it in a group of arguments that share memory: then it
    is its View of the group's one storage, whose input is the group's memory.
    An array passed twice is one tracer (`x is y`, as NumPy's function sees it).
    """

    def __init__(self, trace: Trace, key: tuple, paths: list[str]) -> None:
        self.trace, self.paths = trace, paths
        self.tracers: list = []  # one per key entry (static values as they are)
        self.storages: list[Storage] = []  # per array leaf
        self.views: list[View] = []  # per array leaf
        self.writeable: list[bool] = []  # per array leaf
        self.inputs: list = []  # per program input: an array-leaf index or ("memory", g)
        self.shared: dict[int, Storage] = {}  # group -> its storage
        self.refused: dict[int, tuple[str, list[int]]] = {}  # group -> (why, its array leaves)
        arrays = [k for k in key if k[0] != "static"]
        members: dict[int, list[str]] = {}
        for path, k in zip(paths, arrays):
            if len(k) > 4:
                members.setdefault(k[4][1], []).append(path)
        for k in key:
            if k[0] == "static":
                self.tracers.append(slice(*k[2]) if k[1] is slice else k[2])
                continue
            shape, dtype, writeable, nature, *alias = k
            same = [a[1] for a in alias if a[0] == "same"]
            alias = [a for a in alias if a[0] != "same"]
            i = len(self.storages)
            check_dtype_supported(dtype, f"argument {paths[i]}, an array")
            if alias and alias[0][0] == "memory":
                _, g, storage_shape, view = alias[0]
                s = self.shared.get(g)
                if s is None:
                    origin = (f"argument {members[g][0]} (its strided memory)" if len(members[g]) == 1
                              else f"arguments {', '.join(members[g])} (shared memory)")
                    s = self.shared[g] = self._input(("memory", g), storage_shape, dtype, origin)
            else:
                s, view = self._input(i, shape, dtype, f"argument {paths[i]}", writeable), contiguous(shape)
                if alias:
                    _, g, why = alias[0]
                    self.refused.setdefault(g, (why, []))[1].append(i)
            self.storages.append(s)
            self.views.append(view)
            self.writeable.append(writeable)
            if same and (not alias or alias[0][0] == "memory"):  # NB: one object, one tracer (read-only, empty:
                # no group, never written; a group: one storage, one view)
                self.tracers.append(self.array_tracers()[same[0]])
                continue
            t = Tracer(trace, s, view, writeable)
            # NB: a Python number's promotion is weak (NumPy 2); it and a NumPy scalar are immutable
            t.weak, t.scalar = nature == "weak", nature != "array"
            self.tracers.append(t)

    def _input(self, ref, shape, dtype, origin: str, writeable: bool = True) -> Storage:
        """A new input storage, defined by an "arg" op reading program input ``ref``."""
        program = self.trace.program
        s = self.trace.new_storage(shape, dtype, origin, writeable)
        program.inputs.append(s)
        self.inputs.append(ref)
        self.trace.record("arg", [], [Access.whole(s)], {"index": len(program.inputs) - 1})
        return s

    def array_tracers(self) -> list[Tracer]:
        """The array leaves' tracers, as f left them (its ``a.shape = ...`` changes their View)."""
        return [t for t in self.tracers if isinstance(t, Tracer)]

    def refuse_unshareable_writes(self) -> None:
        """UnsupportedError where a group traced as separate storages is written (never a wrong answer)."""
        written = self.trace.program.written()
        for why, group in self.refused.values():
            hit = [i for i in group if self.storages[i] in written]
            if hit:
                raise UnsupportedError(
                    f"arguments {', '.join(self.paths[i] for i in group)} share memory {why}, so "
                    f"elena_jax cannot trace them as views of one buffer, and {self.paths[hit[0]]} is "
                    "written; pass one array and take the views inside the function")

    def finals_by_leaf(self, run: Callable, program: Program) -> tuple[Callable, list[int], list[int], dict]:
        """(run with one final per changed argument, those arguments, the ones to copy back, the
        results that are one of those finals: see lower's ``run.aliases``).

        Every member of a written group changed (NumPy sees the writes through
        any of them): its final value is its View of the group's final
        storage. The group's memory is copied back through writable members
        only, leaving out a member that another one covers (``f(a, a)``,
        ``f(x, x[1:])`` copy once); not as the whole span, whose gaps may be
        other arguments' memory (docs/design.md).
        """
        plan, mutated, write_back = [], [], []
        groups = set(self.shared.values())
        for k, j in enumerate(run.mutated):
            s = program.inputs[j]
            leaves = [i for i, t in enumerate(self.storages) if t is s]
            plan += [(k, self.views[i] if s in groups else None) for i in leaves]
            mutated += leaves
            chosen: list[int] = []
            for i in sorted(leaves, key=lambda i: -self.views[i].size):
                if (self.writeable[i] or s not in groups) and not any(
                        covers(self.views[c], self.views[i]) for c in chosen):
                    chosen.append(i)
            write_back += chosen

        # NB: a result that is a whole group storage is no argument's final: taken from the group's
        # final here, an output of the program as any other result
        aliases = {k: plan.index((j, None)) for k, j in run.aliases.items() if (j, None) in plan}

        def by_leaf(*inputs):
            outputs, finals, *flags = run(*inputs)
            outputs = [finals[run.aliases[k]] if o is None and k not in aliases else o for k, o in enumerate(outputs)]
            finals = [finals[k] if v is None else read(finals[k].reshape(-1), v, finals[k].shape) for k, v in plan]
            return (outputs, finals, *flags)

        return by_leaf, mutated, write_back, aliases


class _Static:
    """A static argument: one pytree leaf, whatever its structure."""

    def __init__(self, value):
        self.value = value


def functionalize(f: Callable | None = None, *, static_argnums=(), static_argnames=(),
                  jit: bool = True, optimize: bool = True, trace_scalars: bool = False,
                  cache_size: int = 256, checked: bool = False, fma: bool = True):
    """Run imperative NumPy code ``f`` as one compiled, pure JAX program.

    As ``jax.jit``, but ``f`` is ordinary NumPy code: views, in-place writes
    and NumPy's dtypes. Array arguments (NumPy or JAX arrays, JAX tracers) are
    traced; other arguments are static. Writes into a NumPy argument are
    copied back into the caller's array after the call.

    ``checked=True`` raises the errors NumPy raises from the values: IndexError
    for traced integer indices out of range (by default XLA clamps reads and drops
    such writes), LinAlgError for singular matrices, ValueError for negative
    integer powers, for all-NaN slices of nanargmin/nanargmax, for an automatic
    np.histogram range of data holding NaN or inf and for np.digitize bins that are
    not monotonic, ZeroDivisionError for np.average weights that sum to zero.

    ``fma=False`` rounds every float product on its own, as NumPy does, so that
    ``a * b + c`` is NumPy's bit for bit; by default XLA may contract a product
    and the sum it feeds into one fused multiply-add (one rounding, as in
    hand-written JAX), which is faster where the code is compute-bound.
    """
    given = dict(static_argnums=static_argnums, static_argnames=static_argnames, jit=jit, optimize=optimize,
                 trace_scalars=trace_scalars, cache_size=cache_size, checked=checked, fma=fma)
    if f is None:
        return functools.partial(functionalize, **given)
    if isinstance(f, (staticmethod, classmethod)):  # NB: @functionalize above @staticmethod: of its function
        return type(f)(functionalize(f.__func__, **given))
    if isinstance(cache_size, bool) or not isinstance(cache_size, (int, np.integer)) or cache_size < 1:
        raise located(ValueError, f"cache_size must be a positive number of programs, not {cache_size!r}")
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    static_argnums, static_argnames = _static_by_signature(f, tuple(static_argnums), tuple(static_argnames))
    opts = Options(static_argnums, static_argnames, jit, optimize, trace_scalars, cache_size, checked, fma)
    return Functionalized(f, opts)


def _static_by_signature(f: Callable, argnums: tuple[int, ...],
                         argnames: tuple[str, ...]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """As ``jax.jit``: ``static_argnums`` checked against ``f``'s positional parameters (any index
    with ``*args``), and the two completed with each other over the positional-or-keyword
    parameters, so that such a parameter is static passed either way."""
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return argnums, argnames
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    variadic = any(p.kind is p.VAR_POSITIONAL for p in params)
    if argnums and not variadic and (-min(argnums) > len(positional) or max(argnums) >= len(positional)):
        raise located(ValueError, f"static_argnums={argnums}, but {getattr(f, '__name__', 'the function')} "
                      f"only accepts {len(positional)} positional arguments")
    either = [(i, p.name) for i, p in enumerate(positional) if p.kind is p.POSITIONAL_OR_KEYWORD]
    named = [n for i, n in either if (i in argnums or i - len(positional) in argnums) and n not in argnames]
    numbered = [i for i, n in either if n in argnames and i not in argnums]
    return argnums + tuple(numbered), argnames + tuple(named)


def _call_index(i: int, n_args: int) -> int:
    """A (negative) static_argnums index resolved against a call's ``n_args`` positional
    arguments, as ``jax.jit``: one before the first is an error."""
    if i < -n_args:
        raise located(ValueError, f"static_argnums index {i} is out of range for a call with {n_args} "
                      "positional arguments: it must be at least -len(args)")
    return i % n_args


def _as_traced(x):
    """A JAX tracer's value as the trace saw it. NB: with 64-bit types off, ``jax.vmap`` keeps a
    NumPy float64 argument as it is inside its float32 tracer; under `enable_x64` the program
    would receive it as float64. A copy made here, outside, is float32 (XLA removes the copy)."""
    if isinstance(x, jax.core.Tracer) and not jax.config.jax_enable_x64:
        return jax.numpy.array(x)
    if type(x) is int and x > np.iinfo(np.int64).max:  # NB: traced as uint64; JAX parses an int as int64
        return np.uint64(x)
    return x


def _functionalized(f, **options) -> Functionalized:
    return f if isinstance(f, Functionalized) and not options else functionalize(f, **options)


def pure(f: Callable, **options) -> Callable:
    """A pure JAX function ``g(*args) -> (result, new_args)``.

    ``new_args`` is the tuple of the positional arguments' values after ``f``
    ran (as JAX arrays; mutated or not), so ``g`` composes with ``jax.jit``,
    ``jax.grad`` and ``jax.vmap`` like any JAX function. NB: a jitted function
    that returns an argument copies it: under ``jax.jit`` return the result and
    the written arguments you need (or donate them), not all of ``new_args``.
    """
    fz = _functionalized(f, **options)

    @functools.wraps(fz.f)
    def g(*args, **kwargs):
        if current_trace() is not None:  # NB: called by a function being traced: its ops join that trace, on copies
            copies, kw = jax.tree_util.tree_map(lambda x: x.copy() if isinstance(x, (Tracer, np.ndarray)) else x,
                                                (args, kwargs))
            return fz.f(*copies, **kw), tuple(copies)
        result, finals, leaves, traced = fz.call_pure(args, kwargs)
        index = {id(x): i for i, x in enumerate(leaves)}

        def updated(x):
            i = index.get(id(x))
            if i is None:
                return x
            with jax.enable_x64(True):  # NB: as the written ones: a float64 argument stays float64
                value = finals[i] if i in finals else jax.numpy.asarray(x)
                return value.reshape(traced.reshaped[i]) if i in traced.reshaped else value

        new_args = tuple(jax.tree_util.tree_map(updated, a) for a in args)
        return result, new_args

    return g


def make_jaxpr(f: Callable, **options) -> Callable:
    """As ``jax.make_jaxpr``, of the pure form of ``f``: the leaves ``functionalize`` keeps static
    (numbers, strings, ``static_argnums``) stay static, closed over, and only its traced ones
    are the jaxpr's inputs."""
    fz = _functionalized(f, **options)
    g = pure(fz)

    def make(*args, **kwargs):
        leaves, tree = jax.tree_util.tree_flatten(fz._mark_static(args, kwargs))
        traced = [i for i, leaf in enumerate(leaves) if fz._traced(leaf)]

        def bound(*values):
            given = [leaf.value if isinstance(leaf, _Static) else leaf for leaf in leaves]
            for i, v in zip(traced, values):
                given[i] = v
            args, kwargs = jax.tree_util.tree_unflatten(tree, given)
            return g(*args, **kwargs)

        with jax.enable_x64(True):
            return jax.make_jaxpr(bound)(*[leaves[i] for i in traced])

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
            w = ", ".join(f"V{views[(a.storage.id, a.view)]}" for a in op.outs) or "-"
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
    bound = ()
    if isinstance(f, types.MethodType) and isinstance(f.__func__, Functionalized):  # NB: a decorated method
        bound, f = (f.__self__,), f.__func__
    given = dataclasses.asdict(f.options) if isinstance(f, Functionalized) else {}  # NB: its static_argnums...
    fz = functionalize(getattr(f, "f", f), **{**given, **options, "optimize": False, "jit": False})

    def run(*args, **kwargs):
        traced, _, _ = fz.trace((*bound, *args), kwargs)
        before = traced.program
        after = optimize(before) if optimized else before
        return Explanation(dataclasses.replace(traced, program=after), before)

    return run
