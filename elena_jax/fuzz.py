"""Differential fuzzing of whole programs: random views, reads and writes.

A program is data: a list of steps, each a tuple ``(kind, *fields)`` over two
input arrays ``a`` and ``b`` (random small shapes; dtypes float64, float32,
int64, int32, uint8, bool). Steps create views (basic indices with ints,
steps, negative steps, None and ``...``; transposes, swapaxes, reshapes and
ravels -- views or copies exactly as NumPy decides; diagonals and
broadcast_to, which are read-only; views of views), copy arrays to other
dtypes (``astype``, narrowing and widening), read arrays into ufuncs
and reductions (mixed dtypes and Python scalars: NumPy's promotion), and
write (setitem with broadcasting and casts, every augmented assignment,
ufunc ``out=`` with and without ``where=``, ``np.copyto(where=)``, ``fill``,
``np.clip(out=)``, in-place ``sort``, fancy writes with unique indices,
boolean-mask writes of scalars, ``np.add.at``). `render` turns a program into
runnable NumPy source; `compile_program` execs that source into a function.

Generation runs each step on NumPy as it goes and keeps only steps NumPy
accepts, with defined results: no NaN or inf anywhere (so no undefined
float -> int casts), float -> integer casts only of values in range, shift
counts below the width, no negative integer powers, no boolean mask that
overlaps the array it selects writes into at other elements. A step NumPy refuses may
end a program instead: then elena_jax must raise the same exception type and
leave the caller's arrays untouched.

Styles of programs (`STYLES`, ``--style``): ``general`` draws every
construct above over arrays of up to three small axes; ``lanes`` draws the
code the lane passes rewrite -- (N, L) arrays, column and strided-column views,
in-place arithmetic between lanes of several arrays, lanes written into fresh
arrays, ``&=`` chains on boolean flags, loops over columns writing each in two
pieces, loops over rows each centred and scaled by its own reductions (one
program in 20 has 65-72 rows, more than the vectorizer selects one by one) --
where ``general`` rarely meets it;
``stencil`` draws 1-D and 2-D grids whose windows shifted by one element are
read and written in place (overlapping operands, which NumPy buffers);
``dtypes`` draws general programs over float16, narrow and unsigned integers
and complex numbers; ``aliased`` draws general programs whose ``b`` is a view of ``a`` (arguments
sharing memory: equal, overlapping, transposed, read-only), checked through
`functionalize` since JAX parameters never share memory; ``overlap`` draws views that
overlap themselves -- ``as_strided`` views of 1-D and 2-D arrays with zero, repeated and
negative strides (inside the buffer), ``sliding_window_view`` windows (read-only or
writeable), views of them -- read, copied and written through, where NumPy defines the
result (`_order_free`: a value uniform per element of memory); ``library`` calls
NumPy's library functions (`FUNCTIONS`: joins, sorts, pads, scans and
``ufunc.reduce``/``accumulate`` of every binary ufunc, statistics, interpolation,
convolution, insert/delete/put...) with drawn arguments, some of which NumPy
refuses, between views and writes; ``reductions`` draws sums, products and means into an
``out=`` of another type, laid out as C or transposed, with ``dtype=``, ``initial=`` and
``keepdims``, over arrays now and then as long as NumPy's buffer (8,192 elements), where its
iterator stores the running total in ``out`` between buffers (view.summation).

Choices go through a small interface with two sources: `RandomDraw`
(campaigns: program ``i`` of seed ``S`` is drawn from ``Random("S:i")``, so it
replays alone with ``--replay i``) and `HypothesisDraw` (the `programs`
strategy of the tests, where failures shrink). A failing program is reduced
by `minimize` (drops steps) and printed as runnable NumPy code.

Checking modes (`batch_failures`), each with passes on and off, comparing
values (NaN positions), dtypes, shapes, the caller's arrays after the call,
and NumPy's exception type for programs NumPy refuses:

- jit (default): a batch of programs (``--batch``, 25) is one ``jax.jit``
  function calling `elena_jax.pure` of every program twice (passes on, off),
  each on its own parameters: one XLA compile for 50 traced programs instead
  of one per program and setting. The traces, passes and lowering are the
  ones `functionalize` uses; a disagreeing batch is re-checked program by
  program through `functionalize` and the culprit minimized.
- under ``jax.vmap``: every ``--vmap-every``-th program (50) is also run as
  ``jax.jit(jax.vmap(elena_jax.pure(f)))`` over a batch of three input pairs
  (its own, and its inputs' elements shuffled where the program stays defined
  on them), each member compared with NumPy run on it alone (`check_vmap`).
- under ``jax.grad``: every ``--grad-every``-th program (50) with a float
  input is differentiated, passes on and off, and the gradients compared
  (`check_grad`: NumPy has no derivative to compare with, but the passes must
  preserve derivatives as they preserve values).
- op by op: `functionalize(jit=False)`, the lowering executed eagerly by JAX.
  Every ``--eager-every``-th program (50) of a jit campaign is also checked
  this way, through `functionalize`'s write-back into the caller's arrays;
  ``--no-jit`` checks every program this way (slower: each new primitive
  shape is its own small XLA compile).

``--workers W`` spreads chunks of 500 programs over W spawned processes
(recycled every 10 chunks, so JAX's caches stay bounded); the default runs in
this process. ``--start`` resumes a campaign at a program index;
``--keep-going`` reports every mismatch instead of stopping at the first.

Run a campaign: ``python -m elena_jax.fuzz --n 100000 --seed 0 --workers 1``.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import jax
import numpy as np
from hypothesis import strategies as st

from ._aliases import copy_tree
from .lower import opaque
from .numpy.ufuncs import numpy_folds
from .testing import NO_AVX512_LOOPS, RTOL, assert_same, check_against_numpy, numpy_avx512_loops, rounding_chains

DTYPES = ["float64", "float32", "int64", "int32", "uint8", "bool"]

# Binary operators by the kind of the left operand (NumPy accepts them for that kind).
OPS = {
    "f": ["+", "-", "*", "/", "//", "%", "**"],
    "i": ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "**"],
    "u": ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"],
    "b": ["&", "|", "^", "+", "*"],
    "c": ["+", "-", "*", "/", "**"],
}
COMPARE = ["<", "<=", ">", ">=", "==", "!="]
UFUNCS = {
    "f": ["add", "subtract", "multiply", "maximum", "minimum", "fmax", "hypot", "arctan2", "copysign"],
    "i": ["add", "subtract", "multiply", "maximum", "minimum", "bitwise_xor", "floor_divide", "remainder"],
    "u": ["add", "multiply", "minimum", "bitwise_or", "floor_divide"],
    "b": ["logical_and", "logical_or", "logical_xor", "maximum"],
    "c": ["add", "subtract", "multiply", "maximum", "minimum"],
}
UNARY = {"f": ["negative", "abs", "floor", "sqrt", "exp", "tanh", "square", "sign", "rint"],
         "i": ["negative", "abs", "square", "sign", "invert"],
         "u": ["invert", "square"], "b": ["logical_not", "invert"],
         "c": ["negative", "abs", "conjugate", "square", "sqrt", "exp", "sign"]}
# NumPy library functions the ``library`` style calls (`_function_step` draws their arguments)
FUNCTIONS = ("where", "concatenate", "stack", "roll", "diff", "flip", "sort", "cumprod", "cumsum", "ptp",
             "count_nonzero", "median", "argsort", "take_along_axis", "take", "repeat", "tile", "pad", "clip",
             "accumulate", "reduce", "tril", "triu", "outer", "matmul", "dot", "isclose", "kron", "cross",
             "einsum", "mean", "std", "var", "percentile", "quantile", "round", "searchsorted", "digitize",
             "interp", "trace", "diag", "select", "histogram", "array_split", "convolve", "polyval", "gradient",
             "norm", "average", "insert", "delete", "put", "put_along_axis", "fill_diagonal", "nanmax", "nanmean",
             "nanstd", "nancumsum", "nanargmin", "nanmedian", "cumulative_sum", "trapezoid", "ediff1d", "vander",
             "cov", "corrcoef", "isin", "append", "compress", "resize", "rot90", "lexsort", "choose", "out_reduce",
             "out_scan", "out_round", "out_matmul", "reduceat", "ufunc_at", "hstack", "vstack", "dstack",
             "column_stack", "block", "r_", "split", "nan_to_num", "fix", "sinc", "unwrap", "known_mask",
             "unique", "atleast_3d", "unstack", "trace_method", "nanvar", "nanprod")
# Forms elena_jax refuses on complex values: np.histogram (NumPy's binning mixes real-part arithmetic
# with complex order), np.nanmedian (jax.numpy's quantile refuses complex)
REFUSED_FOR_COMPLEX = {"histogram", "nanmedian"}
REDUCTIONS = ["sum", "max", "min", "argmax", "argmin", "mean", "prod", "any", "all", "cumsum"]


@dataclass
class Program:
    """Steps over inputs ``a`` and ``b``; ``error`` is NumPy's exception type when the last step fails.

    With ``alias`` (an expression of ``a``, e.g. ``"a[::-1]"``), ``b`` is that view of ``a``: the
    arguments share memory, and every copy of them (`copy_inputs`) shares it alike."""

    steps: list[tuple]
    inputs: list[np.ndarray]
    error: type[BaseException] | None = None
    alias: str | None = None

    def __post_init__(self) -> None:
        if self.alias is not None:
            self.inputs = [self.inputs[0], eval(self.alias, {"a": self.inputs[0], "np": np})]

    def __repr__(self) -> str:
        inputs = f"a = {self.inputs[0]!r}; b = {self.alias}" if self.alias else f"{self.inputs!r}"
        return f"{render(self.steps)}inputs: {inputs}" + (f"\nexpects {self.error.__name__}" if self.error else "")

    def copy_inputs(self) -> list[np.ndarray]:
        """Fresh copies of the inputs, sharing memory as the inputs do."""
        return copy_tree(list(self.inputs))


# --- rendering ------------------------------------------------------------------------------------

COUNTER = "j"  # NB: a column loop's counter, the one name a step binds to no array

def render_step(step: tuple) -> str:
    """One step as one line of NumPy code."""
    kind, *f = step
    if kind == "view":  # (name, source, view expression)
        return f"{f[0]} = {f[1]}{f[2]}"
    if kind == "call":  # (name, function expression, source, arguments)
        return f"{f[0]} = {f[1]}({f[2]}{f[3]})"
    if kind == "binary":  # (name, x, operator, y)
        return f"{f[0]} = {f[1]} {f[2]} {f[3]}"
    if kind == "ufunc":  # (name, ufunc, x, y or None)
        return f"{f[0]} = np.{f[1]}({f[2]}{'' if f[3] is None else ', ' + f[3]})"
    if kind == "reduce":  # (name, x, method, axis, keepdims)
        keep = ", keepdims=True" if f[4] else ""
        return f"{f[0]} = {f[1]}.{f[2]}(axis={f[3]}{keep})"
    if kind == "reduce_into":  # (name, x, function, as a method, arguments, out's dtype)
        return f"{f[0]} = {f[1]}.{f[2]}({f[4]})" if f[3] else f"{f[0]} = np.{f[2]}({f[1]}, {f[4]})"
    if kind == "setitem":  # (target, index, value)
        return f"{f[0]}[{f[1]}] = {f[2]}"
    if kind == "augment":  # (target, index or None, operator, value)
        return f"{f[0]}{'' if f[1] is None else '[' + f[1] + ']'} {f[2]}= {f[3]}"
    if kind == "ufunc_out":  # (ufunc, x, y, out, where or None)
        where = "" if f[4] is None else f", where={f[4]}"
        return f"np.{f[0]}({f[1]}, {f[2]}, out={f[3]}{where})"
    if kind == "copyto":  # (dst, src, where or None)
        return f"np.copyto({f[0]}, {f[1]}" + ("" if f[2] is None else f", where={f[2]}") + ")"
    if kind == "method":  # (target, method call)
        return f"{f[0]}.{f[1]}"
    if kind == "inplace":  # (function, target, arguments): a function that writes its first argument
        return f"{f[0]}({f[1]}{f[2]})"
    if kind == "clip_out":  # (target, lo, hi)
        return f"np.clip({f[0]}, {f[1]}, {f[2]}, out={f[0]})"
    if kind == "add_at":  # (target, indices, value)
        return f"np.add.at({f[0]}, {f[1]}, {f[2]})"
    if kind == "column_loop":  # (target, first, stop, cut, operator, head value, tail first): each column in 2 pieces
        t, lo, hi, cut, op, value, tail_first = f
        tail = f"{t}[{cut}:, {COUNTER}] = {t}[{cut}:, {COUNTER}] {op} {t}[:-{cut}, {COUNTER}]"
        head = f"{t}[:{cut}, {COUNTER}] = {value}"
        return f"for {COUNTER} in range({lo}, {hi}): " + (f"{tail}; {head}" if tail_first else f"{head}; {tail}")
    if kind == "column_reduce":  # (target, first, stop, reduction, operator, reduction): each column from its own
        t, lo, hi, first, op, second = f
        col = f"{t}[:, {COUNTER}]"
        return f"for {COUNTER} in range({lo}, {hi}): {col} -= {col}.{first}(); {col} {op}= {col}.{second}()"
    if kind == "row_reduce":  # (target, first, stop, step, reduction, operator, reduction): each row from its own
        t, lo, hi, by, first, op, second = f
        row = f"{t}[{COUNTER}]"
        return f"for {COUNTER} in range({lo}, {hi}, {by}): {row} -= {row}.{first}(); {row} {op}= {row}.{second}()"
    raise ValueError(f"unknown step {step!r}")


def render(steps: list[tuple], returns: list[str] | None = None) -> str:
    """The program as runnable NumPy source (returns its results and the last views)."""
    lines = [render_step(s) for s in steps]
    if returns is None:
        returns = _returns(steps)
    lines.append(f"return ({', '.join(returns)},)" if returns else "return None")
    return "import numpy as np\n\n\ndef program(a, b):\n" + "".join(f"    {line}\n" for line in lines)


def _returns(steps: list[tuple]) -> list[str]:
    names = [s[1] for s in steps if s[0] in ("view", "call", "binary", "ufunc", "reduce", "reduce_into")]
    return names[-4:]


def compile_program(steps: list[tuple]):
    scope: dict = {"np": np}
    exec(render(steps), scope)
    return scope["program"]


@contextlib.contextmanager
def _quiet():
    """NumPy's floating-point errors and runtime warnings off: a mean of an empty slice is NaN, a
    complex value cast to a real type drops its imaginary part, and both are compared, not warned."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _run_numpy(steps: list[tuple], inputs: list[np.ndarray]) -> dict:
    """The NumPy environment after running ``steps`` on copies of ``inputs`` (sharing memory as they do)."""
    a, b = copy_tree(list(inputs))
    env = {"a": a, "b": b, "np": np}
    with _quiet():
        for s in steps:
            exec(render_step(s), env)
    return env


# --- drawing --------------------------------------------------------------------------------------

def _literal(draw, kind: str, positive: bool = False) -> str:
    if kind == "b":
        return draw.choice(["True", "False"])
    if kind == "u" or positive and kind == "i":
        return str(draw.integers(0 if kind == "u" else 1, 9))
    if kind == "i":
        return str(draw.integers(-9, 9))
    if kind == "c":
        return draw.choice(["1j", "(0.5-2j)", "-1.25j", "(2+1j)", "2.0"])
    return draw.choice(["0.5", "-1.25", "2.0", "3", "-2"])


def _slice(draw, n: int) -> str:
    step = draw.choice([1, 1, 2, 3, -1, -2])
    lo = draw.integers(0, max(n - 1, 0))
    hi = draw.integers(lo, n)
    if step < 0:
        start, stop = hi - 1, lo - 1
        text = f"{start if start >= 0 else ''}:{'' if stop < 0 else stop}:{step}"
        return text if start >= 0 or stop < 0 else f"{n}:{stop}:{step}"
    if draw.boolean():
        return ":" if (lo, hi, step) == (0, n, 1) else f"{lo}:{hi}" + ("" if step == 1 else f":{step}")
    return f"{lo - n}:{hi}" + ("" if step == 1 else f":{step}")  # negative start


def _basic_index(draw, shape: tuple[int, ...], allow_int: bool = True) -> str:
    parts = []
    for n in shape:
        if allow_int and n and draw.integers(0, 4) == 0:
            parts.append(str(draw.integers(-n, n - 1)))
        else:
            parts.append(_slice(draw, n))
    if parts and draw.integers(0, 3) == 0:
        parts = parts[: draw.integers(0, len(parts) - 1)] + ["..."]
    if draw.integers(0, 4) == 0:
        parts.insert(draw.integers(0, len(parts)), "None")
    return ", ".join(parts) if parts else "..."


def _lane_index(draw, shape: tuple[int, ...], allow_int: bool = True) -> str:
    """An index of an (N, L) array that picks lanes: a column, a strided or contiguous run of
    columns (kept 2-D or not), sometimes rows; other shapes get `_basic_index`."""
    if len(shape) != 2 or shape[1] < 2:
        return _basic_index(draw, shape, allow_int)
    n, lanes = shape
    j = draw.integers(0, lanes - 1)
    rows = ":" if draw.integers(0, 4) else _slice(draw, n)
    form = draw.choice(["col", "col", "stride", "stride", "run", "keep", "ellipsis", "neg"])
    if form == "col" and allow_int:
        return f"{rows}, {j}"
    if form == "stride":
        return f"{rows}, {j}::{draw.integers(2, lanes)}"
    if form == "run":
        return f"{rows}, {j}:{draw.integers(j + 1, lanes)}"
    if form == "ellipsis" and allow_int:
        return f"..., {j}"
    if form == "neg":
        return f"{rows}, {j - lanes}::-{draw.integers(1, 2)}"
    return f"{rows}, {j}:{j + 1}"


def _window_index(draw, shape: tuple[int, ...], allow_int: bool = True) -> str:
    """An index of shifted windows, as stencils read and write them: on every axis of length
    n >= 3 one of the windows of length n - 2 at offsets 0, 1, 2 (``:-2``, ``1:-1``, ``2:``);
    sometimes `_basic_index` instead."""
    if not shape or draw.integers(0, 5) == 0:
        return _basic_index(draw, shape, allow_int)
    parts = []
    for n in shape:
        lo = draw.integers(0, 2)
        parts.append(":" if n < 3 else f"{lo or ''}:{lo - 2 or ''}")
    return ", ".join(parts)


def _factor_shape(draw, size: int) -> tuple[int, ...]:
    dims, rest = [], size
    while rest > 1 and len(dims) < 2 and draw.boolean():
        divisors = [d for d in range(2, rest + 1) if rest % d == 0]
        d = draw.choice(divisors)
        dims.append(d)
        rest //= d
    dims.append(rest)
    if draw.boolean():
        dims[draw.integers(0, len(dims) - 1)] = -1
    return tuple(draw.permutation(dims))


def _view_step(draw, name: str, src: str, x: np.ndarray, index=_basic_index) -> tuple:
    kind = draw.choice(["index", "index", "index", "T", "transpose", "swapaxes", "reshape", "ravel",
                        "squeeze", "diagonal", "broadcast_to", "expand_dims", "moveaxis", "retyped"])
    nd = x.ndim
    if kind == "retyped" and x.dtype.kind == "c":  # NB: views sharing memory in another type
        return ("view", name, src, draw.choice([".real", ".imag"]))
    if kind == "retyped" and x.dtype.kind in "iu":  # NB: not floats' bits: XLA:CPU flushes subnormals
        other = np.dtype(f"{'u' if x.dtype.kind == 'i' else 'i'}{x.dtype.itemsize}")
        return ("view", name, src, f".view(np.{draw.choice([other.name, 'uint8'])})")  # NB: uint8: the bytes
    if kind == "T":
        return ("view", name, src, ".T")
    if kind == "transpose" and nd >= 2:
        return ("view", name, src, f".transpose{tuple(draw.permutation(range(nd)))}")
    if kind == "swapaxes" and nd >= 2:
        return ("call", name, "np.swapaxes", src, f", {draw.integers(0, nd - 1)}, {draw.integers(-nd, -1)}")
    if kind == "moveaxis" and nd >= 2:
        return ("call", name, "np.moveaxis", src, f", {draw.integers(0, nd - 1)}, {draw.integers(-nd, -1)}")
    if kind == "reshape" and x.size:
        shape = _factor_shape(draw, x.size)
        return ("view", name, src, f".reshape{shape}" if len(shape) > 1 else f".reshape({shape[0]})")
    if kind == "ravel":
        return ("view", name, src, ".ravel()")
    if kind == "squeeze" and 1 in x.shape:
        return ("view", name, src, f".squeeze({x.shape.index(1)})")
    if kind == "diagonal" and nd >= 2:
        return ("view", name, src, f".diagonal({draw.integers(-1, 1)})")
    if kind == "broadcast_to":
        return ("call", name, "np.broadcast_to", src, f", {(draw.integers(1, 3), *x.shape)}")
    if kind == "expand_dims":
        return ("call", name, "np.expand_dims", src, f", {draw.integers(0, nd)}")
    return ("view", name, src, f"[{index(draw, x.shape)}]")


def _operand(draw, env: dict, kind: str | None = None) -> str:
    """An array of the environment (or a Python scalar): mixed dtypes are NumPy's promotion at work."""
    names = [n for n in _arrays(env) if kind is None or env[n].dtype.kind == kind]
    if names and draw.integers(0, 3):
        return draw.choice(names)
    return _literal(draw, kind or draw.choice("fiub"))


def _arrays(env: dict) -> list[str]:
    return sorted(n for n, v in env.items() if isinstance(v, np.ndarray) and not n.startswith("__"))


def _fits(env: dict, value: str, shape: tuple[int, ...]) -> bool:
    v = env.get(value)
    if v is None:
        return True
    try:
        return np.broadcast_shapes(v.shape, shape) == shape
    except ValueError:
        return False


def _write_value(draw, env: dict, dtype: np.dtype, shape: tuple[int, ...]) -> str:
    """A value for a write into ``dtype``/``shape``: broadcastable arrays preferred, else a literal."""
    fitting = [n for n in _arrays(env) if _fits(env, n, shape)]
    if fitting and draw.integers(0, 2):
        return draw.choice(fitting)
    return _literal(draw, dtype.kind if draw.integers(0, 3) else draw.choice("fiub"))


def _step(draw, k: int, env: dict, style: Style) -> tuple:
    names = _arrays(env)
    target = draw.choice(names)
    t = env[target]
    kind = t.dtype.kind
    action = draw.choice(style.actions)
    index = style.index
    if action == "view":
        return _view_step(draw, f"v{k}", target, t, index)
    if action == "strided":
        return _strided_step(draw, f"v{k}", env)
    if action == "window" and t.ndim:
        axis = draw.integers(0, t.ndim - 1)
        return ("call", f"v{k}", "np.lib.stride_tricks.sliding_window_view", target,
                f", {draw.integers(1, max(t.shape[axis], 1))}, axis={axis}, writeable={draw.boolean()}")
    if action == "copy":
        return ("call", f"r{k}", "np.array", target, "")
    if action == "overlap_write":
        return _overlap_write(draw, env)
    if action == "function":
        return _function_step(draw, f"r{k}", env, target)
    if action == "lane":
        return ("view", f"v{k}", target, f"[{index(draw, t.shape)}]")
    if action == "fresh":  # NB: the decode-boxes pattern: lanes written into a new array
        maker, dtype = draw.choice([("np.zeros_like", ""), ("np.ones_like", ""), ("np.copy", ""),
                                    ("np.ones_like", ", dtype=bool")])  # NB: bool: valid_flags' &= chains
        return ("call", f"o{k}", maker, target, dtype)
    if action == "binary":
        op = draw.choice(OPS[kind])
        y = draw.choice(["2", "3"]) if op == "**" else _operand(draw, env)
        if op in ("<<", ">>"):
            y = str(draw.integers(0, 3))
        return ("binary", f"r{k}", target, op, y)
    if action == "compare":
        return ("binary", f"r{k}", target, draw.choice(COMPARE), _operand(draw, env))
    if action == "ufunc":
        if draw.boolean():
            return ("ufunc", f"r{k}", draw.choice(UNARY[kind]), target, None)
        return ("ufunc", f"r{k}", draw.choice(UFUNCS[kind]), target, _operand(draw, env))
    if action == "reduce":
        method = draw.choice(REDUCTIONS)
        axis = draw.choice([None, *range(-t.ndim, t.ndim)])
        keep = method not in ("cumsum", "argmax", "argmin") and draw.boolean()
        return ("reduce", f"r{k}", target, method, axis, keep)
    if action == "reduce_into":
        return _reduce_into(draw, f"r{k}", target, t)
    if action == "broadcast":  # NB: zero strides, which have no say in the order of NumPy's iterator
        copies = draw.choice([2, 7, 300] if t.size < 100 else [2, 3])
        return ("call", f"v{k}", "np.broadcast_to", target, f", {(copies, *t.shape)}")
    if action == "astype":  # NB: float sources stay float: a float -> int cast is defined only in range
        dtype = draw.choice([d for d in DTYPES if kind not in "fc" or d.startswith("float")])
        return ("view", f"r{k}", target, f".astype(np.{dtype})")
    if action == "fancy_get" and t.ndim and t.shape[0]:
        idx = draw.int_list(-t.shape[0], t.shape[0] - 1, 1, 4)
        return ("view", f"r{k}", target, f"[{idx}]")
    # writes
    if action == "setitem":
        where = index(draw, t.shape)
        shape = t[eval(f"np.s_[{where}]")].shape
        return ("setitem", target, where, _write_value(draw, env, t.dtype, shape))
    if action == "augment":
        op = draw.choice(OPS[kind])
        where = None if draw.boolean() else index(draw, t.shape)
        shape = t.shape if where is None else t[eval(f"np.s_[{where}]")].shape
        if op == "**":
            value = draw.choice(["2", "3"])
        elif op in ("<<", ">>"):
            value = str(draw.integers(0, 3))
        else:
            value = _write_value(draw, env, t.dtype, shape)
        return ("augment", target, where, op, value)
    if action == "ufunc_out":
        ufunc = draw.choice(UFUNCS[kind])
        fitting = [n for n in names if _fits(env, n, t.shape)]
        x = draw.choice(fitting) if fitting else target
        where = None
        if draw.boolean():
            masks = [n for n in fitting if env[n].dtype.kind == "b"]
            where = draw.choice(masks) if masks and draw.boolean() else f"{x} > 0"
        return ("ufunc_out", ufunc, x, _operand(draw, env, kind), target, where)
    if action == "copyto":
        src = _write_value(draw, env, t.dtype, t.shape)
        where = None
        if draw.boolean():
            masks = [n for n in names if env[n].dtype.kind == "b" and _fits(env, n, t.shape)]
            where = draw.choice(masks) if masks and draw.boolean() else f"{target} != 1"
        return ("copyto", target, src, where)
    if action == "fill":
        return ("method", target, f"fill({_literal(draw, kind)})")
    if action == "clip" and kind in "fiu":
        lo = _literal(draw, kind, positive=True)
        return ("clip_out", target, lo, str(int(float(lo)) + draw.integers(0, 5)))
    if action == "sort" and t.ndim:
        return ("method", target, f"sort(axis={draw.integers(-t.ndim, t.ndim - 1)})")
    if action == "fancy_set" and t.size > 1:
        axis = draw.choice([i for i, n in enumerate(t.shape) if n > 0])
        n = t.shape[axis]
        idx = draw.int_list(-n, n - 1, 1, n, unique_mod=n)  # NB: repeated indices with '=' are undefined
        key = ", ".join([":"] * axis + [str(idx)])
        return ("setitem", target, key, _literal(draw, kind))
    if action == "add_at" and t.ndim and t.size and kind in "fiu":
        idx = draw.int_list(0, t.shape[0] - 1, 1, 6)
        return ("add_at", target, str(idx), _literal(draw, kind, positive=True))
    if action == "column_loop" and t.ndim == 2 and t.shape[0] > 1 and t.shape[1] and kind in "fiu":
        lo = draw.integers(0, t.shape[1] - 1)
        return ("column_loop", target, lo, draw.integers(lo + 1, t.shape[1]), draw.integers(1, t.shape[0] - 1),
                draw.choice(["+", "-", "*"]), _literal(draw, kind), draw.boolean())
    if action == "column_reduce" and t.ndim == 2 and t.shape[0] and t.shape[1] and kind in "fiu":
        lo = draw.integers(0, t.shape[1] - 1)
        names = ["min", "max", "sum", "argmax", "argmin"] + (["mean"] if kind == "f" else [])
        return ("column_reduce", target, lo, draw.integers(lo + 1, t.shape[1]), draw.choice(names),
                draw.choice(["+", "-", "*"]), draw.choice(names))
    if action == "row_reduce" and t.ndim == 2 and t.shape[0] and t.shape[1] and kind in "fiu":
        lo = draw.integers(0, t.shape[0] - 1)
        names = ["min", "max", "sum", "argmax", "argmin"] + (["mean", "std", "var"] if kind == "f" else [])
        return ("row_reduce", target, lo, draw.integers(lo + 1, t.shape[0]), draw.integers(1, 2), draw.choice(names),
                draw.choice(["+", "-", "*"]), draw.choice(names))
    if action == "mask_key" and t.ndim and t.size:
        return _mask_key_step(draw, f"r{k}", target, t)
    masks = [n for n in names if env[n].dtype.kind == "b" and env[n].shape == t.shape]
    mask = draw.choice(masks) if masks and draw.boolean() else \
        f"{target} {'!=' if kind == 'b' else '>'} {_literal(draw, kind)}"
    return ("setitem", target, mask, _literal(draw, kind))


def _strided_step(draw, name: str, env: dict) -> tuple:
    """An ``as_strided`` view of a C-contiguous array's elements from a drawn start: 1-3 axes of
    drawn lengths and strides (zero and negative ones too), inside the buffer (its extent computed)."""
    names = [n for n in _arrays(env) if env[n].flags.c_contiguous and env[n].size]
    src = draw.choice(names)
    size, itemsize = env[src].size, env[src].itemsize
    while True:
        shape = tuple(draw.int_list(1, 4, 1, 3))
        strides = tuple(draw.choice([-2, -1, 0, 1, 1, 2, 3]) for _ in shape)
        lo = sum(min(0, s * (n - 1)) for s, n in zip(strides, shape))
        hi = sum(max(0, s * (n - 1)) for s, n in zip(strides, shape))
        if hi - lo < size:
            break
    start = draw.integers(-lo, size - 1 - hi)
    return ("call", name, "np.lib.stride_tricks.as_strided", f"{src}.reshape(-1)[{start}:]",
            f", {shape}, {tuple(s * itemsize for s in strides)}")


def _overlap_write(draw, env: dict) -> tuple:
    """A write through a view (of a view) that overlaps itself, where the program has one, or through
    an index of it: a literal assigned or filled, an augmented assignment, a ufunc with the identical
    operand in and out (`_order_free` keeps those NumPy defines)."""
    names = [n for n in _arrays(env) if env[n].flags.writeable and _self_overlapping(env[n])] or _arrays(env)
    target = draw.choice(names)
    t = env[target]
    kind = t.dtype.kind
    form = draw.choice(["set", "set", "augment", "augment", "ufunc", "fill"])
    if form == "set":
        return ("setitem", target, draw.choice(["...", _basic_index(draw, t.shape)]), _literal(draw, kind))
    if form == "augment":
        op = draw.choice(["+", "-", "*"] if kind in "fc" else ["+", "-", "*", "&", "|"])
        value = _literal(draw, kind) if draw.integers(0, 3) else _operand(draw, env, kind)
        return ("augment", target, None if draw.boolean() else _basic_index(draw, t.shape), op, value)
    if form == "ufunc":
        return ("ufunc_out", draw.choice(UFUNCS[kind][:3]), target, _operand(draw, env, kind), target, None)
    return ("method", target, f"fill({_literal(draw, kind)})")


def _mask_key_step(draw, name: str, target: str, t: np.ndarray) -> tuple:
    """A traced mask over one axis beside basic indices (``t[t[:, 0] > 0, 1:]``): a scalar
    written through it, or, where NumPy's selection comes first (integers before the mask), an
    in-place operator or a sum of the selection."""
    axis = draw.integers(0, t.ndim - 1)
    kind = t.dtype.kind
    probe = ", ".join(":" if i == axis else "0" for i in range(t.ndim))
    mask = f"({target}[{probe}] {'!=' if kind == 'b' else '>'} {_literal(draw, kind)})"
    head = [str(draw.integers(-n, n - 1)) if draw.boolean() else ":" for n in t.shape[:axis]]
    tail = [draw.choice([":", str(draw.integers(-n, n - 1)), _slice(draw, n)]) for n in t.shape[axis + 1:]]
    key = ", ".join([*head, mask, *tail])
    action = draw.choice(["set", "augment", "sum"]) if ":" not in head else "set"
    if action == "augment" and kind in "fiu":
        return ("augment", target, key, draw.choice(["+", "*", "-"]), _literal(draw, kind, positive=True))
    if action == "sum" and kind in "fiu":
        return ("view", name, target, f"[{key}].sum()")
    return ("setitem", target, key, _literal(draw, kind))


def _axis(draw, nd: int, none: bool = True) -> int | None:
    """An axis of an ``nd``-dimensional array (negative ones too), or None where allowed."""
    axes = list(range(-nd, nd))
    return draw.choice([None, *axes] if none or not axes else axes)


def _function_step(draw, name: str, env: dict, x: str) -> tuple:
    """A call of a NumPy library function on ``x`` (and another array of the environment), with drawn
    arguments: most fit, some NumPy refuses (then the program may end there, expecting its error)."""
    t = env[x]
    nd, kind = t.ndim, t.dtype.kind
    other = draw.choice(_arrays(env))
    ax = _axis(draw, nd, none=False)
    opt_ax = _axis(draw, nd)
    form = draw.choice([f for f in FUNCTIONS if not (kind == "c" and f in REFUSED_FOR_COMPLEX)])
    if form == "where":
        return ("call", name, "np.where", f"{x} {'!=' if kind == 'b' else '>'} {_literal(draw, kind)}",
                f", {x}, {_operand(draw, env)}")
    if form in ("concatenate", "stack"):
        axis = opt_ax if form == "concatenate" else draw.integers(-nd - 1, nd)
        return ("call", name, f"np.{form}", f"[{x}, {other}]", f", axis={axis}")
    if form == "roll":
        return ("call", name, "np.roll", x, f", {draw.integers(-3, 3)}, axis={opt_ax}")
    if form == "diff":
        return ("call", name, "np.diff", x, f", n={draw.integers(1, 2)}, axis={ax}")
    if form in ("flip", "sort", "cumprod", "cumsum", "ptp", "count_nonzero", "median"):
        return ("call", name, f"np.{form}", x, f", axis={opt_ax}")
    if form == "argsort":  # NB: kind='stable': NumPy's default sort of ties is its SIMD sort's order
        return ("call", name, "np.argsort", x, f", axis={ax}, kind='stable'")
    if form == "take_along_axis":
        return ("call", name, "np.take_along_axis", x, f", np.argsort({x}, axis={ax}, kind='stable'), axis={ax}")
    if form == "take":
        return ("call", name, "np.take", x, f", {draw.int_list(-6, 5, 0, 4)}, axis={opt_ax}")
    if form == "repeat":
        reps = draw.integers(0, 3) if draw.boolean() else draw.int_list(0, 2, 1, 4)
        return ("call", name, "np.repeat", x, f", {reps}, axis={opt_ax}")
    if form == "tile":
        return ("call", name, "np.tile", x, f", {tuple(draw.int_list(1, 2, 1, 3))}")
    if form == "pad":
        mode = draw.choice(["constant", "edge", "reflect", "symmetric", "wrap"])
        width = draw.integers(0, 2) if draw.boolean() else tuple(
            (draw.integers(0, 2), draw.integers(0, 2)) for _ in range(nd))
        return ("call", name, "np.pad", x, f", {width}, mode='{mode}'")
    if form == "clip":
        lo = _literal(draw, kind, positive=True)
        return ("call", name, "np.clip", x, f", {lo}, {_literal(draw, kind)}")
    if form in ("accumulate", "reduce"):  # NB: not the loops elena_jax refuses (see numpy.ufuncs.numpy_folds)
        ufunc = draw.choice([u for u in UFUNCS[kind] if numpy_folds(getattr(np, u), form, t.dtype, None)])
        return ("call", name, f"np.{ufunc}.{form}", x, f", axis={ax if form == 'accumulate' else opt_ax}")
    if form == "reduceat":
        n = t.shape[ax] if nd else 1
        ufunc = draw.choice([u for u in UFUNCS[kind] if numpy_folds(getattr(np, u), "reduce", t.dtype, None)])
        return ("call", name, f"np.{ufunc}.reduceat", x, f", {draw.int_list(0, n, 1, 4)}, axis={ax}")
    if form == "ufunc_at":  # NB: unbuffered: repeated indices apply again
        n = t.shape[0] if nd and t.shape[0] else 1  # NB: an empty axis: NumPy's IndexError
        return ("inplace", f"np.{draw.choice(UFUNCS[kind])}.at", x,
                f", {draw.int_list(-n, n - 1, 1, 5)}, {_write_value(draw, env, t.dtype, t.shape[1:])}")
    if form in ("tril", "triu"):
        return ("call", name, f"np.{form}", x, f", k={draw.integers(-1, 1)}")
    if form in ("outer", "matmul", "dot", "isclose", "kron", "cross"):
        return ("call", name, f"np.{form}", x, f", {other}")
    if form == "einsum":
        letters = "ijk"[:nd]
        kept = draw.permutation(letters)[: draw.integers(0, nd)]
        return ("call", name, "np.einsum", f"'{letters}->{''.join(kept)}'", f", {x}")
    if form in ("mean", "std", "var"):
        ddof = f", ddof={draw.integers(0, 1)}" if form != "mean" else ""
        return ("call", name, f"np.{form}", x, f", axis={opt_ax}{ddof}")
    if form in ("percentile", "quantile"):
        q = draw.choice([0, 25, 50, 90, 100, [10, 75]])
        q = q if form == "percentile" else (q / 100 if isinstance(q, int) else [v / 100 for v in q])
        return ("call", name, f"np.{form}", x, f", {q}, axis={opt_ax}")
    if form == "round":
        return ("call", name, "np.round", x, f", {draw.integers(-1, 2)}")
    if form == "searchsorted":
        side = draw.choice(["left", "right"])
        return ("call", name, "np.searchsorted", f"np.sort({x}.ravel())", f", {other}, side='{side}'")
    if form == "digitize":
        return ("call", name, "np.digitize", other, f", np.sort({x}.ravel()), right={draw.boolean()}")
    if form == "interp":
        return ("call", name, "np.interp", other, f", np.sort({x}.ravel()), np.arange({t.size}) * 0.5")
    if form in ("trace", "diag"):
        return ("call", name, f"np.{form}", x, f", {draw.integers(-1, 1)}")
    if form == "select":
        return ("call", name, "np.select", f"[{x} > 0, {x} < 0]", f", [{x}, {other}], {_literal(draw, kind)}")
    if form == "histogram":
        return ("view", name, f"np.histogram({x}, bins={draw.integers(1, 4)})", "[0]")
    if form == "array_split":
        return ("view", name, f"np.array_split({x}, {draw.integers(1, 3)}, axis={ax})", f"[{draw.integers(-1, 0)}]")
    if form in ("convolve", "polyval"):
        return ("call", name, f"np.{form}", f"{x}.ravel()", f", {other}" if form == "polyval" else f", {other}.ravel()")
    if form == "gradient":
        return ("call", name, "np.gradient", x, f", axis={ax}")
    if form == "norm":
        return ("call", name, "np.linalg.norm", x, f", axis={ax}")
    if form == "average":
        return ("call", name, "np.average", x, f", axis={ax}, weights=np.abs({other}) + 1")
    if form == "insert":  # NB: positions in range: NumPy's result for others overlaps them (refused)
        n = t.shape[ax] if nd else 1
        return ("call", name, "np.insert", x, f", {draw.int_list(-n, n, 1, 2)}, {_literal(draw, kind)}, axis={ax}")
    if form == "delete":
        return ("call", name, "np.delete", x, f", {draw.int_list(-3, 3, 1, 2)}, axis={ax}")
    if form == "put":
        return ("inplace", "np.put", x, f", {draw.int_list(-5, 4, 1, 3)}, {_write_value(draw, env, t.dtype, ())}")
    if form == "put_along_axis":
        return ("inplace", "np.put_along_axis", x,
                f", np.argsort({x}, axis={ax}, kind='stable')[:1], {_literal(draw, kind)}, axis={ax}")
    if form in ("nanmax", "nanmean", "nanstd", "nancumsum", "nanargmin", "nanmedian", "cumulative_sum", "trapezoid",
                "nanvar", "nanprod"):
        axis = ax if form in ("nancumsum", "cumulative_sum", "trapezoid") else opt_ax
        return ("call", name, f"np.{form}", x, f", axis={axis}")
    if form in ("ediff1d", "vander"):
        return ("call", name, f"np.{form}", f"{x}.ravel()", "")
    if form in ("cov", "corrcoef"):
        return ("call", name, f"np.{form}", x, f", {other}" if draw.boolean() else "")
    if form in ("isin", "append"):
        return ("call", name, f"np.{form}", x, f", {other}")
    if form == "compress":
        return ("call", name, "np.compress", f"{draw.int_list(0, 1, 1, 4)}", f", {x}, axis={opt_ax}")
    if form == "resize":
        return ("call", name, "np.resize", x, f", {tuple(draw.int_list(0, 4, 1, 2))}")
    if form == "rot90":
        return ("call", name, "np.rot90", x, f", {draw.integers(-1, 2)}")
    if form == "lexsort":
        return ("call", name, "np.lexsort", f"({x}, {x} % 2)" if draw.boolean() else x, "")
    if form == "choose":
        return ("call", name, "np.choose", f"({x} > 0).astype(np.int64)", f", [{x}, {other}]")
    if form == "out_reduce" and nd:  # NB: out= a view of the input itself: NumPy buffers the overlap
        method = draw.choice(["sum", "mean", "max", "min", "prod", "any", "std", "argmax"])
        first = draw.boolean()
        return ("inplace", f"np.{method}", x, f", axis={0 if first else -1}, out={x}[{'0' if first else '..., 0'}]")
    if form == "out_scan":
        return ("inplace", f"np.{draw.choice(['cumsum', 'cumprod'])}", x, f", axis={ax}, out={x}")
    if form == "out_round":
        return ("inplace", "np.round", x, f", {draw.integers(-1, 2)}, out={x}")
    if form == "out_matmul":
        return ("inplace", "np.matmul", x, f", {other}, out={x}")
    if form in ("hstack", "vstack", "dstack", "column_stack"):
        return ("call", name, f"np.{form}", f"[{x}, {other}]", "")
    if form == "block":
        return ("call", name, "np.block", f"[[{x}, {other}]]", "")
    if form == "r_":  # NB: np.r_ converts its items with NumPy's internal np.array
        return ("view", name, "np.r_", f"[{x}.ravel(), {_literal(draw, kind)}, {other}.ravel()]")
    if form == "split":  # NB: NumPy refuses sections that do not divide the axis
        how = draw.choice(["split", "hsplit", "vsplit", "dsplit"])
        axis = f", axis={ax}" if how == "split" else ""
        return ("view", name, f"np.{how}({x}, {draw.integers(1, 3)}{axis})", f"[{draw.integers(-1, 0)}]")
    if form in ("nan_to_num", "fix", "sinc", "unwrap"):
        return ("call", name, f"np.{form}", x, "")
    if form == "known_mask":  # NB: a mask made inside f from constants: as static as NumPy's
        n = t.shape[-1] if nd else 1
        return ("view", name, x, f"[..., np.nonzero(np.arange({n}) % {draw.integers(1, 3)} == 0)[0]]" if nd else "[()]")
    if form == "unique":
        return ("view", name, f"np.unique(np.arange({draw.integers(0, 6)}) // 2, return_counts=True)",
                f"[{draw.integers(0, 1)}]")
    if form in ("atleast_3d", "unstack"):
        return ("view", name, f"np.{form}({x})", "" if form == "atleast_3d" else "[0]")
    if form == "trace_method":
        return ("call", name, f"{x}.trace", "", f"offset={draw.integers(-1, 1)}")
    # fill_diagonal: an in-place write of a strided view NumPy builds itself
    return ("inplace", "np.fill_diagonal", x, f", {_literal(draw, kind)}")


def _subnormal(v: np.ndarray) -> bool:
    parts = (v.real, v.imag) if v.dtype.kind == "c" else (v,)
    return any(((p != 0) & (np.abs(p) < np.finfo(p.dtype).tiny)).any() for p in parts)


def _reads_overwritten_mask(mask, dst: np.ndarray) -> bool:
    """Whether boolean array ``mask`` overlaps ``dst`` at other elements than the ones it selects."""
    if not isinstance(mask, np.ndarray) or mask.dtype != bool or not np.shares_memory(mask, dst):
        return False
    mask = np.broadcast_to(mask, dst.shape)
    return (mask.__array_interface__["data"][0], mask.strides) != (dst.__array_interface__["data"][0], dst.strides)


def _defined(before: dict, env: dict, step: tuple) -> bool:
    """The step's result is defined by NumPy: finite floats, in-range float -> int casts, no int ** negative,
    no mask (copyto's where=, a[mask] = v) overlapping the array written at other elements."""
    for name, v in env.items():
        if name.startswith("__") or name in ("np", COUNTER):
            continue
        if not isinstance(v, (np.ndarray, np.generic)):
            return False
        if v.dtype.kind in "fc" and not np.isfinite(v).all():
            return False
        if v.dtype.kind in "fc" and v.dtype != np.float16 and _subnormal(v):
            return False  # NB: XLA:CPU flushes subnormal floats to zero (not float16)
    if not _totals_in_range(before, step):
        return False
    mask = {"copyto": 3, "setitem": 2}.get(step[0])
    if mask is not None and _reads_overwritten_mask(env.get(step[mask]), env[step[1]]):
        return False  # NB: elena_jax refuses these: NumPy's result is its iteration order's
    if step[0] == "setitem":  # NB: setitem casts unsafely; float -> int is defined only in range
        target, src = before[step[1]], before.get(step[3], None)
        value = src if isinstance(src, (np.ndarray, np.generic)) else np.asarray(eval(step[3]))
        if target.dtype.kind in "iu" and value.dtype.kind in "fc":
            info, value = np.iinfo(target.dtype), np.real(value)
            if not ((value > info.min - 1) & (value < info.max + 1)).all():
                return False
    return True


def _reduce_into(draw, name: str, x: str, t: np.ndarray) -> tuple:
    """A sum, product or mean of ``x`` (a function, or the array's method) into a fresh ``out=``
    of a drawn type, C-ordered or transposed, with ``dtype=`` (float16 too), ``keepdims`` and
    ``initial=`` drawn too. Integer outs are signed (a negative float into an unsigned one is
    not defined) and take sums and means only (a product's running total, cut to an integer
    between buffers, leaves the range), never of a float16 loop (which overflows: inf cut to
    an integer); `_defined` keeps those whose totals stay in range all along."""
    func = draw.choice(["sum", "sum", "prod", "mean", "add.reduce", "multiply.reduce"])
    method = func in ("sum", "prod", "mean") and draw.boolean()
    axes = [i for i in range(t.ndim) if draw.boolean()]
    axis = draw.choice([None, tuple(axes), *range(t.ndim)]) if t.ndim else None
    keep = draw.boolean()
    shape = np.sum(np.zeros(t.shape), axis=axis, keepdims=keep).shape  # NB: np.empty's garbage: warnings
    dtype = draw.choice([None, None, "float64", "float32", "float16"]) if t.dtype.kind != "c" else None
    counts = func in ("sum", "mean", "add.reduce") and dtype != "float16"
    out = draw.choice(["float64", "float32", "float16"] + (["int16", "int32", "int64"] if counts else [])
                      + (["complex128", "complex64"] if t.dtype.kind == "c" else []))
    laid = (shape[::-1], ".T") if len(shape) > 1 and draw.boolean() else (shape, "")
    args = f"axis={axis}, out=np.zeros({laid[0]}, np.{out}){laid[1]}" + (", keepdims=True" if keep else "")
    if dtype is not None:
        args += f", dtype=np.{dtype}"
    if func != "mean" and draw.integers(0, 2) == 0:
        args += f", initial={draw.choice(['0.7', '2', '-1.3'])}"
    return ("reduce_into", name, x, func, method, args, out)


def _totals_in_range(before: dict, step: tuple) -> bool:
    """Whether a reduction into an integer ``out=`` (`_reduce_into`) keeps every running total in
    the out's range, which NumPy's iterator cuts it into between buffers (beyond it, the cast is
    not defined): the operand's absolute values sum below it."""
    if step[0] != "reduce_into" or not step[6].startswith("int"):
        return True
    x = before[step[2]]
    bound = np.abs(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)).sum() + 3
    return bool(np.isfinite(bound) and bound < np.iinfo(np.int16).max)


def _reduce_shape(draw, first: tuple[int, ...] | None) -> tuple[int, ...]:
    """Small shapes, and now and then one as long as NumPy's buffer along its kept or reduced
    axes (where its iterator cuts a reduction into buffers, or keeps a total in one)."""
    if draw.integers(0, 5):
        return _any_shape(draw, first)
    return draw.choice([(3, 8192), (2, 8193), (2, 3, 4100), (3, 2100, 4), (9000, 2), (20003,)])


class RandomDraw:
    """The choices a program generator makes, from a seeded `random.Random` (campaigns).

    ``program_at(seed, i)`` draws from ``Random(f"{seed}:{i}")``: program ``i``
    of a campaign is the same whatever the batch size, worker count or the
    programs before it, so a mismatch replays with ``--replay i`` alone.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integers(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def boolean(self) -> bool:
        return self.rng.random() < 0.5

    def choice(self, seq):
        return self.rng.choice(list(seq))

    def permutation(self, seq) -> list:
        out = list(seq)
        self.rng.shuffle(out)
        return out

    def int_list(self, lo: int, hi: int, min_size: int, max_size: int, unique_mod: int | None = None) -> list[int]:
        size = self.rng.randint(min_size, max_size)
        if unique_mod is None:
            return [self.rng.randint(lo, hi) for _ in range(size)]
        out, seen = [], set()
        while len(out) < size:  # NB: size <= unique_mod here (callers ask for at most n of n residues)
            i = self.rng.randint(lo, hi)
            if i % unique_mod not in seen:
                seen.add(i % unique_mod)
                out.append(i)
        return out


class HypothesisDraw:
    """The same choices through hypothesis's ``draw`` (tests: failures shrink)."""

    def __init__(self, draw) -> None:
        self.draw = draw

    def integers(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def boolean(self) -> bool:
        return self.draw(st.booleans())

    def choice(self, seq):
        return self.draw(st.sampled_from(list(seq)))

    def permutation(self, seq) -> list:
        return self.draw(st.permutations(list(seq)))

    def int_list(self, lo: int, hi: int, min_size: int, max_size: int, unique_mod: int | None = None) -> list[int]:
        unique_by = None if unique_mod is None else (lambda i: i % unique_mod)
        return self.draw(st.lists(st.integers(lo, hi), min_size=min_size, max_size=max_size, unique_by=unique_by))


@dataclass(frozen=True)
class Style:
    """What programs a generator draws: the steps' actions (repeats weigh more), the indices
    its views and writes use, and the inputs' shapes and dtypes."""

    actions: tuple[str, ...]
    index: Callable
    shape: Callable  # (draw, the first input's shape or None) -> an input's shape
    dtypes: tuple[str, ...]
    alias: Callable | None = None  # (draw, a) -> an expression of a view of a, drawn as b


def _any_shape(draw, first: tuple[int, ...] | None) -> tuple[int, ...]:
    return tuple(draw.int_list(1, 5, 1, 3))


def _lane_shape(draw, first: tuple[int, ...] | None) -> tuple[int, ...]:
    if first is None:  # NB: now and then more rows than vectorize.COLUMNS, for the loops over rows
        rows = draw.integers(1, 6) if draw.integers(0, 19) else draw.integers(65, 72)
        return (rows, draw.choice([2, 3, 4, 4, 5, 8]))
    n, lanes = first
    return draw.choice([(n, lanes), (n, lanes), (n, draw.choice([2, 4])), (n,), (1, lanes)])


def _view_of(draw, a: np.ndarray) -> str:
    """A view of ``a`` to pass beside it: the same array, windows that overlap it, a transpose,
    a strided view, a read-only broadcast of its first row."""
    forms = ["a", "a[::-1]", "a.reshape(-1)", "np.broadcast_to(a[:1], a.shape)"]
    if a.shape[0] > 1:
        forms += ["a[1:]", "a[:-1]", "a[::2]", "a[1::2]"]
    if a.ndim >= 2:
        forms += ["a.T", "a[0]", "a[:, ::-1]"]
        forms += ["a[..., 1:]", "a[..., :-1]"] if a.shape[-1] > 1 else []
    return draw.choice(forms)


def _grid_shape(draw, first: tuple[int, ...] | None) -> tuple[int, ...]:
    if first is None:
        return tuple(draw.int_list(3, 9, 1, 1) if draw.boolean() else draw.int_list(3, 6, 2, 2))
    return draw.choice([first, first, tuple(n - 2 for n in first)])  # NB: n - 2: a window's shape


def _overlap_shape(draw, first: tuple[int, ...] | None) -> tuple[int, ...]:
    return (draw.integers(4, 16),) if draw.boolean() else tuple(draw.int_list(2, 5, 2, 2))


GENERAL_ACTIONS = ("view", "view", "view", "binary", "ufunc", "reduce", "compare", "setitem", "setitem",
                   "augment", "augment", "ufunc_out", "copyto", "fill", "clip", "sort", "fancy_set",
                   "fancy_get", "mask_set", "add_at", "astype")

LIBRARY_ACTIONS = ("function", "function", "function", "function", "view", "view", "binary", "ufunc", "setitem",
                   "augment", "reduce", "astype", "fancy_get")
OTHER_DTYPES = ("float16", "float32", "int8", "int16", "uint16", "uint32", "complex64", "complex128", "bool")

OVERLAP_ACTIONS = ("strided", "strided", "strided", "window", "window", "view", "view", "binary", "ufunc",
                   "reduce", "copy", "setitem", "augment", "fill", "overlap_write", "overlap_write",
                   "overlap_write", "overlap_write")

STYLES = {
    # every construct the generator knows, over arrays of up to three small axes
    "general": Style(GENERAL_ACTIONS, _basic_index, _any_shape, tuple(DTYPES)),
    # the box-decoding shape of code the lane passes rewrite: (N, L) arrays, column views, in-place
    # arithmetic between lanes of several arrays, lanes written into fresh arrays
    "lanes": Style(("lane", "lane", "lane", "view", "fresh", "binary", "binary", "ufunc", "compare", "setitem",
                    "setitem", "augment", "augment", "augment", "ufunc_out", "clip", "copyto", "astype",
                    "column_loop", "column_reduce", "row_reduce"),
                   _lane_index, _lane_shape, ("float64", "float64", "float32", "int64", "int32")),
    # stencil code: 1-D and 2-D grids, windows shifted by one element read and written in place
    # (`u[1:-1] += u[:-2] - u[2:]`: NumPy buffers overlapping operands), reductions of residuals
    "stencil": Style(("lane", "lane", "lane", "view", "fresh", "binary", "binary", "ufunc", "reduce",
                      "setitem", "setitem", "augment", "augment", "augment", "ufunc_out", "ufunc_out",
                      "copyto", "clip"), _window_index, _grid_shape, ("float64", "float64", "float32", "int64")),
    # the general programs over the other dtypes: float16, narrow and unsigned integers, complex
    "dtypes": Style(GENERAL_ACTIONS, _basic_index, _any_shape, OTHER_DTYPES),
    # NumPy's library functions (`FUNCTIONS`) with drawn arguments, between views and writes
    "library": Style(LIBRARY_ACTIONS, _basic_index, _any_shape, tuple(DTYPES)),
    # the library programs over the dtypes style's types
    "library-dtypes": Style(LIBRARY_ACTIONS, _basic_index, _any_shape, OTHER_DTYPES),
    # traced boolean masks beside basic indices (`a[a[:, 0] > 0, 1:] = 0`, `a[0, m] *= 2`), among
    # the general steps
    "masks": Style(GENERAL_ACTIONS + ("mask_key",) * 6, _basic_index, _any_shape, tuple(DTYPES)),
    # the general programs with b a view of a: arguments that share memory (overlapping, equal,
    # transposed, read-only), traced as views of one storage and written back through each
    "aliased": Style(GENERAL_ACTIONS, _basic_index, _any_shape, tuple(DTYPES), _view_of),
    # reductions into an out= of another type and layout, with dtype= and initial=, over views
    "reductions": Style(("reduce_into",) * 6 + ("view", "view", "broadcast", "binary", "ufunc", "setitem",
                                                 "augment"),
                        _basic_index, _reduce_shape,
                        ("float64", "float32", "float16", "int32", "int64", "uint8", "bool", "complex128")),
    # views that overlap themselves: as_strided (zero, repeated, negative strides) and
    # sliding_window_view windows of 1-D and 2-D arrays, views of them, reads and writes through them
    "overlap": Style(OVERLAP_ACTIONS, _basic_index, _overlap_shape, ("float64", "float64", "int64", "float32")),
}


@st.composite
def programs(draw, max_steps: int = 8, errors: bool = True, style: str = "general") -> Program:
    """A random `Program` NumPy runs (or, with ``errors``, one whose last step NumPy refuses)."""
    return generate(HypothesisDraw(draw), max_steps, errors, style)


def program_at(seed: int, index: int, max_steps: int = 8, style: str = "general") -> Program:
    """Program ``index`` of the campaign with this seed and style (deterministic)."""
    return generate(RandomDraw(random.Random(f"{seed}:{index}")), max_steps, style=style)


def _input(draw, spec: Style, first: tuple[int, ...] | None) -> np.ndarray:
    """A random input array of the style's dtypes and shapes (``first``: the first input's shape)."""
    dtype = np.dtype(draw.choice(spec.dtypes))
    shape = spec.shape(draw, first)
    rng = np.random.default_rng(draw.integers(0, 2**16))
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -20, 20, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def generate(draw: RandomDraw | HypothesisDraw, max_steps: int = 8, errors: bool = True,
             style: str = "general") -> Program:
    """A random `Program` from ``draw``'s choices; see `programs`."""
    spec = STYLES[style]
    first = _input(draw, spec, None)
    alias = None if spec.alias is None else spec.alias(draw, first)
    inputs = Program([], [first, _input(draw, spec, first.shape)] if alias is None else [first], alias=alias).inputs
    steps: list[tuple] = []
    env = _run_numpy(steps, inputs)
    for k in range(draw.integers(1, max_steps)):
        step = _step(draw, k, env, spec)
        trial = _run_numpy(steps, inputs)
        outcome, e = _step_outcome(trial, step)
        if outcome == "error":
            if errors and isinstance(e, (TypeError, ValueError, IndexError, OverflowError)) and _static_error(e) \
                    and draw.integers(0, 9) == 0:
                return Program(steps + [step], inputs, type(e), alias)
        elif outcome == "ok":
            steps.append(step)
            env = trial
    return Program(steps, inputs, alias=alias)


def _step_outcome(env: dict, step: tuple) -> tuple[str, BaseException | None]:
    """Run ``step`` in the NumPy environment ``env``: ("ok", None), ("error", NumPy's exception), or
    ("reject", None) for a step whose result NumPy does not define (see `_defined`) or that hits a
    NumPy quirk not matched; ``env`` is then left in an unspecified state."""
    if step[0] == "setitem" and isinstance(env.get(step[2]), np.ndarray) \
            and np.shares_memory(env[step[2]], env[step[1]]):
        return "reject", None  # NB: NumPy reads a mask while writing through it: the result depends on its order
    before = {n: v.copy() if isinstance(v, np.ndarray) else v for n, v in env.items()}
    overlapping = _overlapping_write(env, step)
    if overlapping == "reject":
        return "reject", None
    shared = _copy_env(env) if overlapping else None
    try:
        with _quiet():
            exec(render_step(step), env)
    except Exception as e:  # noqa: BLE001
        return "error", e
    written = step[1] if step[0] == "add_at" else step[2] if step[0] == "inplace" and step[1].endswith(".at") else None
    if written is not None and not env[written].flags.writeable:
        return "reject", None  # NB: NumPy's ufunc.at writes through read-only diagonal() views (a NumPy quirk)
    if shared is not None and not _order_free(shared, env, step):
        return "reject", None
    with _quiet():  # NB: a float16 value compared with an integer type's bounds overflows, harmlessly
        return ("ok" if _defined(before, env, step) else "reject"), None


# --- writes through views that overlap themselves --------------------------------------------------

# The writes whose result `_order_free` decides place by place: the step's kind -> its operands' fields
PLACEWISE = {"setitem": (3,), "augment": (4,), "ufunc_out": (2, 3), "method": ()}


def _self_overlapping(v: np.ndarray) -> bool:
    """Whether two elements of ``v`` lie at one place of memory (as_strided, sliding_window_view)."""
    if v.size < 2:  # NB: and a 0-d array has no axes to take indices along
        return False
    offsets = sum(i * s for i, s in zip(np.indices(v.shape).reshape(v.ndim, -1), v.strides))
    return len(np.unique(offsets)) < v.size


def _retyped_overlap(env: dict, dst: np.ndarray) -> bool:
    """Whether an array of another type holding an element more than once views memory ``dst``
    holds (a write through ``as_strided(...).view(np.uint64)`` goes back to its base element by
    element: elena_jax refuses it, tracer.Trace._mirror)."""
    return any(isinstance(v, np.ndarray) and v.dtype != dst.dtype and np.shares_memory(v, dst) and _self_overlapping(v)
               for v in env.values())


def _written(env: dict, step: tuple) -> np.ndarray | None:
    """The view a write step writes (None for a step that writes nothing, or a copy's selection)."""
    kind = step[0]
    if kind in ("setitem", "augment"):
        t = env[step[1]]
        return t if step[2] is None else _view_or_none(t, eval(f"{step[1]}[{step[2]}]", dict(env)))
    if kind in ("ufunc_out", "clip_out", "copyto", "add_at", "method", "inplace", "column_loop", "column_reduce",
                "row_reduce"):
        return env[step[{"ufunc_out": 4, "inplace": 2}.get(kind, 1)]]  # NB: a method step has 3 fields
    return None


def _view_or_none(t: np.ndarray, v) -> np.ndarray | None:
    return v if isinstance(v, np.ndarray) and np.shares_memory(t, v) else None


def _operands(env: dict, step: tuple) -> list:
    """The step's operands (arrays or Python values) as written in it."""
    return [eval(step[i], dict(env)) for i in PLACEWISE.get(step[0], ())]


def _overlapping_write(env: dict, step: tuple) -> bool | str:
    """Whether the step writes a view that overlaps itself, or one an operand that overlaps itself
    shares memory with ("reject" for such a write `_order_free` does not decide, and for one
    elena_jax refuses, `_retyped_overlap`)."""
    try:
        dst = _written(env, step)
        if dst is not None and _retyped_overlap(env, dst):
            return "reject"
        if dst is None or not dst.flags.writeable:
            return False  # NB: NumPy refuses a read-only one
        operands = [v for v in _operands(env, step) if isinstance(v, np.ndarray) and np.shares_memory(v, dst)]
    except Exception:  # noqa: BLE001 -- NumPy refuses the step: it says so when run
        return False
    if not _self_overlapping(dst) and not any(_self_overlapping(v) for v in operands):
        return False
    if step[0] not in PLACEWISE or step[0] == "method" and not step[2].startswith("fill("):
        return "reject"
    if step[0] == "ufunc_out" and step[5] is not None:  # NB: where= is not simulated place by place
        return "reject"
    return True


def _copy_env(env: dict) -> dict:
    names = _arrays(env)
    return {**env, **dict(zip(names, copy_tree([env[n] for n in names])))}


def _order_free(shared: dict, after: dict, step: tuple) -> bool:
    """NumPy's result of a write through a view that overlaps itself (or reading an operand that
    does) is defined: writing place by place, in C order and in reverse, each place's operation on
    the operands as they were before the step gives NumPy's result both ways. NumPy computes such a
    write on copies (its iterator copies an output that overlaps itself and writes it back, so
    ``v += 1`` adds 1 once to an element v holds three times), and the copy's write-back order is
    its own: only values uniform per element of memory are defined; a write that reads an element
    it already wrote differs from the copies and is left out too."""
    names = _arrays(after)
    return all(all(np.array_equal(sim[n], after[n]) for n in names)
               for sim in (_placewise(shared, step, order) for order in (1, -1)))


def _placewise(shared: dict, step: tuple, order: int) -> dict:
    """The environment after the step written place by place into a copy of ``shared``, each place
    from the operands as they are in ``shared`` (read, never written)."""
    sim = _copy_env(shared)
    dst = _written(sim, step)
    operands = [np.broadcast_to(v, dst.shape) if isinstance(v, np.ndarray) else v
                for v in _operands(shared, step) + ([_written(shared, step)] if step[0] == "augment" else [])]
    operator = step[3] if step[0] == "augment" else ""
    code = {"setitem": "d[...] = x0", "augment": f"t = x1.copy(); t {operator}= x0; d[...] = t",
            "ufunc_out": f"np.{step[1]}(x0, x1, out=d)", "method": f"d.{step[2]}"}[step[0]]
    with _quiet():
        for place in list(np.ndindex(*dst.shape))[::order]:
            at = tuple(slice(i, i + 1) for i in place)
            scope = {"np": np, "d": dst[at]}
            scope.update((f"x{j}", v[at] if isinstance(v, np.ndarray) else v) for j, v in enumerate(operands))
            exec(code, scope)
    return sim


def _well_formed(program: Program) -> bool:
    """The generator's rules hold: every step runs and is defined, and a program with ``error`` ends
    with a step raising exactly that type (`minimize` keeps only such programs)."""
    a, b = program.copy_inputs()
    env = {"a": a, "b": b, "np": np}
    for k, step in enumerate(program.steps):
        outcome, e = _step_outcome(env, step)
        if outcome == "error":
            return k == len(program.steps) - 1 and type(e) is program.error
        if outcome == "reject":
            return False
    return program.error is None


def _static_error(e: BaseException) -> bool:
    """NumPy errors decided by shapes and dtypes alone (not by the data)."""
    text = str(e)
    return "power" not in text and "Integers to negative" not in text


# --- checking -------------------------------------------------------------------------------------

@_quiet()
def check(program: Program, jit: bool = False, optimize=(True, False)) -> None:
    """The program agrees with NumPy, passes on and off (raises otherwise)."""
    import elena_jax

    f = compile_program(program.steps)
    try:
        if program.error is None:
            check_against_numpy(f, *program.inputs, jit=jit, optimize=optimize, rtol=_rtol(program))
            return
        for opt in optimize:
            args = program.copy_inputs()
            want = _builtin_base(program.error)
            try:
                elena_jax.functionalize(f, jit=jit, optimize=opt)(*args)
            except want:
                pass
            else:
                raise AssertionError(f"NumPy raises {program.error.__name__}, elena_jax did not raise {want.__name__}")
            for x, y in zip(args, program.inputs):
                np.testing.assert_array_equal(x, y, err_msg="a failing call changed a caller's array")
    except Exception as e:
        raise AssertionError(f"{type(e).__name__}: {e}\n--- program ---\n{program!r}") from None


def vmap_inputs(program: Program, size: int = 3) -> list[list[np.ndarray]]:
    """``size`` input pairs for ``program``: its own, then its inputs' elements shuffled (same shapes,
    dtypes and values), where the program runs and is defined on those (else its own inputs again)."""
    rng = np.random.default_rng(len(program.steps))
    batch = [program.inputs]
    for _ in range(size - 1):
        shuffled = [rng.permutation(x.ravel()).reshape(x.shape) for x in program.inputs]
        batch.append(shuffled if _well_formed(Program(program.steps, shuffled)) else program.inputs)
    return batch


def _assert_leaves(got, want, rtol: float | None, what: str) -> None:
    """Every leaf of ``got`` equals the same leaf of NumPy's ``want`` (`assert_same`); ``what``
    names a leaf with its position in ``{}``."""
    mine, numpys = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(mine) == len(numpys), f"{len(mine)} results and arguments, NumPy's {len(numpys)}"
    for i, (g, w) in enumerate(zip(mine, numpys)):
        assert_same(g, w, rtol, what=what.format(i))


def check_rounding_kept(program: Program) -> None:
    """The program, lowered (as for a GPU in a campaign with ``as_gpu``), holds no convert that
    rounds followed by one that widens (`testing.rounding_chains`): XLA:GPU drops such a rounding,
    which XLA:CPU, running the campaign, keeps (an H200's float16 failures, 2026-11-28)."""
    import elena_jax

    f = compile_program(program.steps)
    with jax.enable_x64(True), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hlo = jax.jit(elena_jax.functionalize(f)).lower(*program.copy_inputs()).as_text(dialect="hlo")
    chains = rounding_chains(hlo)
    assert not chains, _message(program, f"a rounding convert that a widening one follows: {chains}")


@_quiet()
def check_vmap(program: Program, optimize=(True, False)) -> None:
    """``jax.vmap`` of the program's `elena_jax.pure` form, jitted, over a batch of inputs
    (`vmap_inputs`) agrees with NumPy run on each member alone: results and final arguments.
    With two inputs or more, again with the last one the same for every member and unbatched
    (``in_axes`` None): JAX batches an operation with an unbatched operand otherwise (a divisor
    left unbatched behind a barrier was broadcast after it, where XLA took its reciprocal)."""
    import elena_jax

    if program.alias is not None:
        raise ValueError("a program whose arguments share memory has no vmapped form: JAX values never share memory")
    f = compile_program(program.steps)
    batch = vmap_inputs(program)
    runs = [(batch, 0)]
    if len(program.inputs) > 1:
        shared = [[*inputs[:-1], program.inputs[-1]] for inputs in batch]
        shared = [m if _well_formed(Program(program.steps, m)) else program.inputs for m in shared]
        runs.append((shared, (0,) * (len(program.inputs) - 1) + (None,)))
    rtol = _rtol(program)
    try:
        for members, in_axes in runs:
            wants = [_reference(Program(program.steps, inputs)) for inputs in members]
            stacked = [np.stack(xs) for xs in zip(*members)]
            if in_axes != 0:
                stacked[-1] = program.inputs[-1]
            for opt in optimize:
                with jax.enable_x64(True):
                    got = jax.jit(jax.vmap(elena_jax.pure(f, optimize=opt, jit=False), in_axes=in_axes))(*stacked)
                for k, want in enumerate(wants):
                    _assert_leaves(jax.tree_util.tree_map(lambda x, k=k: x[k], got), want, rtol,
                                   f"batch member {k}, leaf {{}} (optimize={opt}, in_axes={in_axes})")
    except Exception as e:
        raise AssertionError(f"under jax.vmap: {type(e).__name__}: {e}\n--- program ---\n{program!r}") from None


@_quiet()
def check_grad(program: Program) -> None:
    """``jax.grad`` of the program's `elena_jax.pure` form is the same with passes on and off: the
    gradient, with respect to every float input, of a fixed random weighting of every float
    result and final argument (the passes must preserve derivatives as well as values)."""
    import elena_jax

    if program.alias is not None:
        raise ValueError("a program whose arguments share memory has no pure form: JAX values never share memory")
    floats = [i for i, x in enumerate(program.inputs) if x.dtype.kind == "f"]
    if not floats:
        raise ValueError("no float input to differentiate with respect to")
    f = compile_program(program.steps)

    def weighted(optimize: bool):
        g = elena_jax.pure(f, optimize=optimize, jit=False)

        def loss(*xs):
            args = list(program.inputs)
            for i, x in zip(floats, xs):
                args[i] = x
            rng = np.random.default_rng(0)
            leaves = [x for x in jax.tree_util.tree_leaves(g(*args)) if jax.numpy.issubdtype(x.dtype, np.floating)]
            return sum((jax.numpy.sum(x * rng.normal(size=x.shape)) for x in leaves), jax.numpy.float64(0))

        return jax.jit(jax.grad(loss, argnums=tuple(range(len(floats)))))

    try:
        with jax.enable_x64(True):
            on, off = (weighted(opt)(*[program.inputs[i] for i in floats]) for opt in (True, False))
        _assert_leaves(on, off, _rtol(program), "gradient with respect to input {} (passes on vs off)")
    except Exception as e:
        raise AssertionError(f"under jax.grad: {type(e).__name__}: {e}\n--- program ---\n{program!r}") from None


def minimize(program: Program, jit: bool = True, checker: Callable[[Program], None] | None = None) -> Program:
    """Drop steps while the program still fails ``checker`` (default: `check`, ``jit``) and NumPy
    still accepts it (the program is data)."""
    def fails(p: Program) -> bool:
        if not _well_formed(p):
            return False  # no longer a program the generator could make (NumPy refuses it otherwise, or
            # its result is undefined)
        try:
            (checker or (lambda p: check(p, jit=jit)))(p)
        except AssertionError:
            return True
        return False

    k = len(program.steps) - 1
    while k >= 0:
        smaller = Program(program.steps[:k] + program.steps[k + 1:], program.inputs, program.error, program.alias)
        if (not program.error or k < len(program.steps) - 1) and fails(smaller):
            program = smaller
        k -= 1
    return program


@dataclass
class Failure:
    """A program disagreeing with NumPy: where, the minimized program, why, and a known bug it matches."""

    index: int  # position in the batch (`batch_failures`) or program index (campaigns)
    program: Program  # minimized
    message: str
    known: str | None = None  # the name of the open bug in KNOWN it matches, if any

    def __str__(self) -> str:
        return (f"known bug ({self.known}): " if self.known else "") + self.message


def check_batch(batch: list[Program], jit: bool = True, optimize=(True, False)) -> None:
    """`check` for many programs at once: one XLA compile for all of them, passes on and off.

    Raises AssertionError naming the first failing program, minimized (known bugs included). See
    `batch_failures`.
    """
    failures = batch_failures(batch, jit=jit, optimize=optimize, keep_going=False)
    if failures:
        raise AssertionError(str(failures[0]))


def batch_failures(batch: list[Program], jit: bool = True, optimize=(True, False),
                   keep_going: bool = True) -> list[Failure]:
    """Each program of ``batch`` disagreeing with NumPy, minimized (`Failure.index`: its position).

    With ``jit``, every program that NumPy runs is traced on its own by
    `elena_jax.pure` (the same trace, passes and lowering as `functionalize`),
    once per ``optimize`` setting, and all of these are called from one
    ``jax.jit`` function: one XLA compile for the batch instead of two per
    program. The variants take separate parameters, so XLA can neither share
    work between passes on and off nor between programs. Results and the
    arguments' final values are compared with NumPy's (values, NaN positions,
    dtypes, shapes). A program whose trace raises is found by tracing each
    alone (no compile) and the rest run again. Programs NumPy refuses,
    programs whose arguments share memory (``alias``), and each culprit, are
    checked alone by `check` (`functionalize`, write-back included) and
    minimized. Without ``jit`` every program is checked alone,
    op by op.
    """
    failures: list[Failure] = []

    def stop() -> bool:  # known bugs never stop a check
        return not keep_going and any(f.known is None for f in failures)

    def alone(pos: int, p: Program, jit: bool, batch_message: str | None = None) -> bool:
        try:
            check(p, jit=jit, optimize=optimize)
        except AssertionError:
            small = minimize(p, jit=jit)
            try:
                check(small, jit=jit, optimize=optimize)
            except AssertionError as e:
                failures.append(Failure(pos, small, str(e), known_bug(small, str(e))))
            else:  # NB: never expected (minimize keeps failing programs); report the original then
                failures.append(Failure(pos, p, _message(p, "fails, but its minimized form does not")))
            return False
        if batch_message is not None:  # fails in the batch only: report the batch's finding
            failures.append(Failure(pos, p, "disagrees with NumPy in a batch, not alone: " + batch_message))
            return False
        return True

    for pos, p in enumerate(batch):
        if p.error is not None or not jit or p.alias is not None:  # NB: JAX parameters never share memory
            alone(pos, p, jit)
            if stop():
                return failures
    valid = [(pos, p) for pos, p in enumerate(batch) if p.error is None and p.alias is None]
    if not jit or not valid:
        return failures
    try:
        found = _together_failures([p for _, p in valid], optimize)
    except Exception as e:  # noqa: BLE001 (any error of the batch is a finding; pinned down alone below)
        found = [(k, f"{type(e).__name__}: {e}") for k in range(len(valid))]
        before = len(failures)
        for k, _ in found:
            alone(*valid[k], True)
            if stop():
                return failures
        if len(failures) == before:
            failures.append(Failure(valid[0][0], valid[0][1], "a batch disagrees with NumPy, none of its programs "
                                    f"alone does: {found[0][1]}\n--- batch ---\n"
                                    + "\n".join(repr(p) for _, p in valid)))
        return failures
    for k, message in found:
        alone(*valid[k], True, message)
        if stop():
            return failures
    return failures


def _message(program: Program, what: str) -> str:
    return f"{what}\n--- program ---\n{program!r}"


def _rtol(program: Program) -> float | None:
    """The relative tolerance of the program's float results: that of the narrowest float type
    any of its values has (None: by each result's own type).

    NB: XLA's float32 exp, pow and hypot differ from NumPy's (SIMD loops or libm) in the last bit
    at times, and a float32 value promoted to float64 later keeps that difference (seed 2029:
    #24852 ``a **= 3`` then ``np.maximum(a, int32)``, #27021 ``np.exp(a) + int32``).
    """
    env = _run_numpy(program.steps, program.inputs)
    bits = [np.finfo(v.dtype).bits for v in env.values()
            if isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind in "fc"]
    return RTOL[min(bits)] if bits else None


def _reference(program: Program):
    """NumPy's results and its arguments after the call, on copies of the inputs."""
    args = program.copy_inputs()
    with _quiet():
        out = compile_program(program.steps)(*args)
    return out, args


def _variants(programs: list[Program], optimize):
    """``together(*inputs)``: every program once per ``optimize`` setting, each on its own two parameters."""
    import elena_jax

    # NB: jit=False: the lowered function is inlined in the caller's jit (a nested jit costs a lowering each)
    variants = [elena_jax.pure(compile_program(p.steps), optimize=opt, jit=False) for p in programs for opt in optimize]

    def together(*flat):
        return [g(flat[2 * i], flat[2 * i + 1]) for i, g in enumerate(variants)]

    return together, [x for p in programs for _ in optimize for x in p.inputs]


def _trace_raises(program: Program, optimize) -> bool:
    """Whether tracing the program (no XLA compile) raises."""
    together, args = _variants([program], optimize)
    try:
        with jax.enable_x64(True):
            jax.make_jaxpr(together)(*args)
    except Exception:  # noqa: BLE001
        return True
    return False


@_quiet()
def _together_failures(valid: list[Program], optimize) -> list[tuple[int, str]]:
    """(position, message) of the programs of ``valid`` disagreeing with NumPy when run together."""
    together, args = _variants(valid, optimize)
    try:
        with jax.enable_x64(True):  # as functionalize's own calls: 64-bit stays 64-bit at the jit boundary
            got = jax.device_get(jax.jit(together)(*args))
    except Exception as e:
        raising = [k for k, p in enumerate(valid) if _trace_raises(p, optimize)]
        if not raising:
            raise
        rest = [k for k in range(len(valid)) if k not in raising]
        found = [(k, f"{type(e).__name__} while tracing") for k in raising]
        return found + [(rest[j], m) for j, m in _together_failures([valid[k] for k in rest], optimize)] \
            if rest else found
    found = []
    for k, p in enumerate(valid):
        want, after = _reference(p)
        rtol = _rtol(p)
        want_leaves, want_tree = jax.tree_util.tree_flatten(want)
        for o, opt in enumerate(optimize):
            result, new_args = got[k * len(optimize) + o]
            try:
                got_leaves, got_tree = jax.tree_util.tree_flatten(result)
                assert got_tree == want_tree, f"result structure {got_tree} != NumPy's {want_tree}"
                for j, (g, w) in enumerate(zip(got_leaves, want_leaves)):
                    assert_same(g, w, rtol, what=f"result leaf {j} (optimize={opt})")
                for j, (g, w) in enumerate(zip(new_args, after)):
                    assert_same(g, w, rtol, what=f"argument {'ab'[j]} after the call (optimize={opt})")
            except AssertionError as e:
                found.append((k, _message(p, f"AssertionError: {e}")))
                break
    return found


# --- known open bugs -------------------------------------------------------------------------------
# Each is pinned by a strict-xfail regression in tests/test_fuzz.py. A failure whose minimized program
# matches one (narrowly: the failing step and the error) is counted as known, so that a campaign goes
# on finding new ones; remove the entry when the bug is fixed (its xfail then fails first).

# A matcher takes (minimized program, message) and says whether the failure is that bug.
KNOWN: dict[str, Callable[[Program, str], bool]] = {}
# Fixed since (their entries removed): the empty-view KeyError of dead-write elimination, argmin of
# empty arrays, read-only outputs checked after casts, the sign of float floor division's zero
# quotient, scalar-element augmented assignment (a[-2] |= 9 on bool), np.copyto(x, x) of a read-only
# view, and the known limit "xla-reciprocal-division" (XLA's division by a broadcast value as a
# multiplication by its reciprocal, which the lowering now prevents: lower/rules.py, _divide).


def known_bug(program: Program, message: str) -> str | None:
    """The name of the open bug in `KNOWN` that this minimized failure matches, or None."""
    for name, matches in KNOWN.items():
        if matches(program, message):
            return name
    return None


def _builtin_base(exc: type[BaseException]) -> type[BaseException]:
    """NumPy's exception type, up to its nearest builtin (UFuncTypeError -> TypeError)."""
    for cls in exc.__mro__:
        if cls.__module__ == "builtins":
            return cls
    return exc


# --- campaigns ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Campaign:
    """What a campaign checks; program ``i`` is `program_at` ``(seed, i, steps, style)``."""

    seed: int
    steps: int = 8
    batch: int = 25  # programs per XLA compile
    eager_every: int = 50  # every k-th program is also checked op by op (0: none)
    jit: bool = True  # False: every program op by op only
    keep_going: bool = False
    style: str = "general"  # a key of STYLES
    vmap_every: int = 50  # every k-th program is also checked under jax.vmap (0: none)
    grad_every: int = 50  # every k-th program with a float input is also checked under jax.grad (0: none)
    as_gpu: bool = False  # lower every program as for a GPU (lower/opaque.py's lowered_as_gpu), and check
    # each for rounding a GPU drops (check_rounding_kept)


def check_range(c: Campaign, start: int, stop: int) -> tuple[int, list[Failure]]:
    """Check programs ``start .. stop - 1`` of campaign ``c``: (programs checked, failures by program index).

    Known bugs (`KNOWN`) never stop it; a new failure does unless ``c.keep_going``.
    """
    with opaque.lowered_as_gpu() if c.as_gpu else contextlib.nullcontext():  # NB: in the worker's process
        return _check_range(c, start, stop)


def _check_range(c: Campaign, start: int, stop: int) -> tuple[int, list[Failure]]:
    failures: list[Failure] = []
    done = 0
    for lo in range(start, stop, c.batch):
        indices, batch = [], []
        for i in range(lo, min(lo + c.batch, stop)):
            try:
                batch.append(program_at(c.seed, i, c.steps, c.style))
                indices.append(i)
            except Exception as e:  # noqa: BLE001 (a generator bug: reported, not fatal to a long campaign)
                failures.append(Failure(i, Program([], []), f"the generator raised {type(e).__name__}: {e}"))
        found = batch_failures(batch, jit=c.jit, keep_going=c.keep_going)
        failed = {f.index for f in found}
        if c.jit and c.eager_every:
            # NB: the sample also covers functionalize's write-back (the batch uses elena_jax.pure)
            for pos, (i, p) in enumerate(zip(indices, batch)):
                if i % c.eager_every == 0 and p.error is None and pos not in failed:
                    found += [Failure(pos, f.program, f.message, f.known) for f in batch_failures([p], jit=False)]
        checks = ((c.vmap_every, check_vmap), (c.grad_every, check_grad)) + ((1, check_rounding_kept),) * c.as_gpu
        for every, checker in checks:
            for pos, (i, p) in enumerate(zip(indices, batch)):
                if every and i % every == 0 and p.error is None and p.alias is None and pos not in failed \
                        and (checker is not check_grad or any(x.dtype.kind == "f" for x in p.inputs)):
                    found += _transform_failures(pos, p, checker)
        failures += [Failure(indices[f.index], f.program, f.message, f.known) for f in found]
        done += len(range(lo, min(lo + c.batch, stop)))
        if not c.keep_going and any(f.known is None for f in failures):
            break
    return done, failures


def _transform_failures(pos: int, program: Program, checker: Callable[[Program], None]) -> list[Failure]:
    """``program`` checked by `check_vmap` or `check_grad`: its minimized form if it fails."""
    try:
        checker(program)
    except AssertionError:
        small = minimize(program, checker=checker)
        try:
            checker(small)
        except AssertionError as e:
            return [Failure(pos, small, str(e), known_bug(small, str(e)))]
        return [Failure(pos, program, _message(program, f"fails {checker.__name__}, but its minimized form does not"))]
    return []


def _check_chunk(job: tuple[Campaign, int, int]):
    return check_range(*job)


def run_campaign(c: Campaign, n: int, start: int = 0, workers: int = 0, chunk: int = 500,
                 log=print, check_chunk=_check_chunk, chunks_per_pool: int = 10) -> tuple[int, list[Failure]]:
    """Check programs ``start .. start + n - 1``; progress every ``chunk`` programs.

    ``workers=0`` runs in this process; otherwise in that many spawned worker
    processes (JAX is not fork-safe), replaced by fresh ones every
    ``chunks_per_pool`` chunks per worker so that compilation caches cannot grow
    without bound. A worker killed by a signal (a crash inside XLA) stops the
    campaign with a RuntimeError naming the programs it was checking, instead
    of a hang.
    """
    t0 = time.perf_counter()
    jobs = [(c, lo, min(lo + chunk, start + n)) for lo in range(start, start + n, chunk)]
    done, failures = 0, []
    results = _in_pools(jobs, workers, check_chunk, chunks_per_pool) if workers else map(check_chunk, jobs)
    try:
        for k, found in results:
            done += k
            for f in found:
                failures.append(f)
                log(f"{'KNOWN BUG' if f.known else 'MISMATCH'} at program {f.index} (replay: python -m "
                    f"elena_jax.fuzz --seed {c.seed} --steps {c.steps} --style {c.style} --replay {f.index}"
                    f"{' --as-gpu' if c.as_gpu else ''})\n{f}",
                    flush=True)
            elapsed = time.perf_counter() - t0
            new = sum(f.known is None for f in failures)
            log(f"{done} programs checked ({elapsed:.0f} s, {done / elapsed:.1f} programs/s, "
                f"{new} new mismatches, {len(failures) - new} known bugs)", flush=True)
            if new and not c.keep_going:
                break
    finally:
        if workers:
            results.close()
    return done, failures


def _in_pools(jobs: list, workers: int, check_chunk, chunks_per_pool: int):
    """The results of ``check_chunk`` over ``jobs`` as they complete, on pools of ``workers``
    spawned processes, a fresh pool for every ``workers * chunks_per_pool`` jobs.

    NB: not ``max_tasks_per_child``: on Python 3.11 a ProcessPoolExecutor whose workers all
    retire at once never starts their successors, and the campaign hung (seed 4252 at 10,000)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    step = workers * chunks_per_pool
    for g in range(0, len(jobs), step):
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        try:
            yield from _completed({pool.submit(check_chunk, job): job for job in jobs[g : g + step]})
        finally:
            pool.shutdown(wait=False, cancel_futures=True)


def _completed(futures: dict):
    """The results of ``futures`` (future -> chunk job) as they complete."""
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    for future in as_completed(futures):
        try:
            yield future.result()
        except BrokenProcessPool as e:
            lost = [f"{lo} .. {hi - 1}" for f, (_, lo, hi) in futures.items() if not f.done() or f.exception()]
            raise RuntimeError("a worker process died (a crash, e.g. inside XLA); programs not checked: "
                               f"{', '.join(lost)}; check those ranges with --workers 0 to find the crash") from e


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="programs to check")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="first program index (resume a campaign)")
    parser.add_argument("--steps", type=int, default=8, help="most steps per program")
    parser.add_argument("--batch", type=int, default=25, help="programs compiled together (one XLA compile)")
    parser.add_argument("--eager-every", type=int, default=50,
                        help="also check every k-th program op by op, through functionalize (0: none)")
    parser.add_argument("--vmap-every", type=int, default=50,
                        help="also check every k-th program under jax.vmap over a batch of inputs (0: none)")
    parser.add_argument("--grad-every", type=int, default=50,
                        help="also check every k-th program's jax.grad, passes on against off (0: none)")
    parser.add_argument("--no-jit", action="store_true", help="check every program op by op only")
    parser.add_argument("--workers", type=int, default=0, help="worker processes (0: this process)")
    parser.add_argument("--keep-going", action="store_true", help="report every mismatch instead of stopping")
    parser.add_argument("--style", choices=sorted(STYLES), default="general",
                        help="which programs: every construct (general), box-decoding lane code (lanes), "
                        "shifted windows of grids (stencil), general ones on arguments sharing memory (aliased), "
                        "views that overlap themselves (overlap), general ones "
                        "or on float16, narrow integers and complex numbers (dtypes), NumPy's library "
                        "functions (library, and over the dtypes style's types: library-dtypes)")
    parser.add_argument("--replay", type=int, default=None, help="check program REPLAY alone, jit and op by op")
    parser.add_argument("--as-gpu", action="store_true",
                        help="lower the programs as for a GPU (lower/opaque.py's hiding) while they run here")
    args = parser.parse_args(argv)
    if numpy_avx512_loops():
        print(f"note: NumPy runs its AVX-512 loops here, whose transcendentals are not its portable loops' bits "
              f"(elena_jax's); run with NPY_DISABLE_CPU_FEATURES='{NO_AVX512_LOOPS}' to compare with those",
              file=sys.stderr)
    c = Campaign(args.seed, args.steps, args.batch, args.eager_every, not args.no_jit, args.keep_going, args.style,
                 args.vmap_every, args.grad_every, args.as_gpu)
    if args.replay is not None:
        p = program_at(args.seed, args.replay, args.steps, args.style)
        print(repr(p))
        with opaque.lowered_as_gpu() if args.as_gpu else contextlib.nullcontext():
            found = [f for jit in (True, False) for f in batch_failures([p], jit=jit)]
        print("\n".join(map(str, found)) if found else "agrees with NumPy (jit and op by op, passes on and off)")
        return 1 if found else 0
    start = time.perf_counter()
    done, failures = run_campaign(c, args.n, args.start, args.workers)
    elapsed = time.perf_counter() - start
    new = sum(f.known is None for f in failures)
    mode = "op by op" if args.no_jit else f"jit, batches of {args.batch}, every {args.eager_every}th op by op"
    mode += f", every {args.vmap_every}th under vmap" if args.vmap_every else ""
    mode += f", every {args.grad_every}th under grad" if args.grad_every else ""
    mode += ", lowered as for a GPU" if args.as_gpu else ""
    print(f"{done} {args.style} programs ({args.start} .. {args.start + done - 1}), seed {args.seed}, {mode}: "
          f"{new} new mismatches with NumPy (passes on and off), {len(failures) - new} known bugs, "
          f"{elapsed:.0f} s, {done / elapsed:.1f} programs/s", flush=True)
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
