"""Differential fuzzing of whole programs: random views, reads and writes.

A program is data: a list of steps, each a tuple ``(kind, *fields)`` over two
input arrays ``a`` and ``b`` (random small shapes; dtypes float64, float32,
int64, int32, uint8, bool). Steps create views (basic indices with ints,
steps, negative steps, None and ``...``; transposes, swapaxes, reshapes and
ravels -- views or copies exactly as NumPy decides; diagonals and
broadcast_to, which are read-only; views of views), read arrays into ufuncs
and reductions (mixed dtypes and Python scalars: NumPy's promotion), and
write (setitem with broadcasting and casts, every augmented assignment,
ufunc ``out=`` with and without ``where=``, ``np.copyto(where=)``, ``fill``,
``np.clip(out=)``, in-place ``sort``, fancy writes with unique indices,
boolean-mask writes of scalars, ``np.add.at``). `render` turns a program into
runnable NumPy source; `compile_program` execs that source into a function.

Generation runs each step on NumPy as it goes and keeps only steps NumPy
accepts, with defined results: no NaN or inf anywhere (so no undefined
float -> int casts), float -> integer casts only of values in range, shift
counts below the width, no negative integer powers. A step NumPy refuses may
end a program instead: then elena_jax must raise the same exception type and
leave the caller's arrays untouched. Draws go through hypothesis, so a
failure shrinks to a minimal program.

Run a campaign: ``python -m elena_jax.fuzz --n 100000 --seed 0``.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from .testing import check_against_numpy

DTYPES = ["float64", "float32", "int64", "int32", "uint8", "bool"]

# Binary operators by the kind of the left operand (NumPy accepts them for that kind).
OPS = {
    "f": ["+", "-", "*", "/", "//", "%", "**"],
    "i": ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "**"],
    "u": ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"],
    "b": ["&", "|", "^", "+", "*"],
}
COMPARE = ["<", "<=", ">", ">=", "==", "!="]
UFUNCS = {
    "f": ["add", "subtract", "multiply", "maximum", "minimum", "fmax", "hypot", "arctan2", "copysign"],
    "i": ["add", "subtract", "multiply", "maximum", "minimum", "bitwise_xor", "floor_divide", "remainder"],
    "u": ["add", "multiply", "minimum", "bitwise_or", "floor_divide"],
    "b": ["logical_and", "logical_or", "logical_xor", "maximum"],
}
UNARY = {"f": ["negative", "abs", "floor", "sqrt", "exp", "tanh", "square", "sign", "rint"],
         "i": ["negative", "abs", "square", "sign", "invert"],
         "u": ["invert", "square"], "b": ["logical_not", "invert"]}
REDUCTIONS = ["sum", "max", "min", "argmax", "argmin", "mean", "prod", "any", "all", "cumsum"]


@dataclass
class Program:
    """Steps over inputs ``a`` and ``b``; ``error`` is NumPy's exception type when the last step fails."""

    steps: list[tuple]
    inputs: list[np.ndarray]
    error: type[BaseException] | None = None

    def __repr__(self) -> str:
        return f"{render(self.steps)}inputs: {self.inputs!r}" + (f"\nexpects {self.error.__name__}"
                                                                 if self.error else "")


# --- rendering ------------------------------------------------------------------------------------

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
    if kind == "clip_out":  # (target, lo, hi)
        return f"np.clip({f[0]}, {f[1]}, {f[2]}, out={f[0]})"
    if kind == "add_at":  # (target, indices, value)
        return f"np.add.at({f[0]}, {f[1]}, {f[2]})"
    raise ValueError(f"unknown step {step!r}")


def render(steps: list[tuple], returns: list[str] | None = None) -> str:
    """The program as runnable NumPy source (returns its results and the last views)."""
    lines = [render_step(s) for s in steps]
    if returns is None:
        returns = _returns(steps)
    lines.append(f"return ({', '.join(returns)},)" if returns else "return None")
    return "import numpy as np\n\n\ndef program(a, b):\n" + "".join(f"    {line}\n" for line in lines)


def _returns(steps: list[tuple]) -> list[str]:
    names = [s[1] for s in steps if s[0] in ("view", "call", "binary", "ufunc", "reduce")]
    return names[-4:]


def compile_program(steps: list[tuple]):
    scope: dict = {"np": np}
    exec(render(steps), scope)
    return scope["program"]


def _run_numpy(steps: list[tuple], inputs: list[np.ndarray]) -> dict:
    """The NumPy environment after running ``steps`` on copies of ``inputs``."""
    env = {"a": inputs[0].copy(), "b": inputs[1].copy(), "np": np}
    with np.errstate(all="ignore"):
        for s in steps:
            exec(render_step(s), env)
    return env


# --- drawing --------------------------------------------------------------------------------------

def _literal(draw, kind: str, positive: bool = False) -> str:
    if kind == "b":
        return draw(st.sampled_from(["True", "False"]))
    if kind == "u" or positive and kind == "i":
        return str(draw(st.integers(0 if kind == "u" else 1, 9)))
    if kind == "i":
        return str(draw(st.integers(-9, 9)))
    return draw(st.sampled_from(["0.5", "-1.25", "2.0", "3", "-2"]))


def _slice(draw, n: int) -> str:
    step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
    lo = draw(st.integers(0, max(n - 1, 0)))
    hi = draw(st.integers(lo, n))
    if step < 0:
        start, stop = hi - 1, lo - 1
        text = f"{start if start >= 0 else ''}:{'' if stop < 0 else stop}:{step}"
        return text if start >= 0 or stop < 0 else f"{n}:{stop}:{step}"
    if draw(st.booleans()):
        return ":" if (lo, hi, step) == (0, n, 1) else f"{lo}:{hi}" + ("" if step == 1 else f":{step}")
    return f"{lo - n}:{hi}" + ("" if step == 1 else f":{step}")  # negative start


def _basic_index(draw, shape: tuple[int, ...], allow_int: bool = True) -> str:
    parts = []
    for n in shape:
        if allow_int and n and draw(st.integers(0, 4)) == 0:
            parts.append(str(draw(st.integers(-n, n - 1))))
        else:
            parts.append(_slice(draw, n))
    if parts and draw(st.integers(0, 3)) == 0:
        parts = parts[: draw(st.integers(0, len(parts) - 1))] + ["..."]
    if draw(st.integers(0, 4)) == 0:
        parts.insert(draw(st.integers(0, len(parts))), "None")
    return ", ".join(parts) if parts else "..."


def _factor_shape(draw, size: int) -> tuple[int, ...]:
    dims, rest = [], size
    while rest > 1 and len(dims) < 2 and draw(st.booleans()):
        divisors = [d for d in range(2, rest + 1) if rest % d == 0]
        d = draw(st.sampled_from(divisors))
        dims.append(d)
        rest //= d
    dims.append(rest)
    if draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    return tuple(draw(st.permutations(dims)))


def _view_step(draw, name: str, src: str, x: np.ndarray) -> tuple:
    kind = draw(st.sampled_from(["index", "index", "index", "T", "transpose", "swapaxes", "reshape", "ravel",
                                 "squeeze", "diagonal", "broadcast_to", "expand_dims", "moveaxis"]))
    nd = x.ndim
    if kind == "T":
        return ("view", name, src, ".T")
    if kind == "transpose" and nd >= 2:
        return ("view", name, src, f".transpose{tuple(draw(st.permutations(range(nd))))}")
    if kind == "swapaxes" and nd >= 2:
        return ("call", name, "np.swapaxes", src, f", {draw(st.integers(0, nd - 1))}, {draw(st.integers(-nd, -1))}")
    if kind == "moveaxis" and nd >= 2:
        return ("call", name, "np.moveaxis", src, f", {draw(st.integers(0, nd - 1))}, {draw(st.integers(-nd, -1))}")
    if kind == "reshape" and x.size:
        shape = _factor_shape(draw, x.size)
        return ("view", name, src, f".reshape{shape}" if len(shape) > 1 else f".reshape({shape[0]})")
    if kind == "ravel":
        return ("view", name, src, ".ravel()")
    if kind == "squeeze" and 1 in x.shape:
        return ("view", name, src, f".squeeze({x.shape.index(1)})")
    if kind == "diagonal" and nd >= 2:
        return ("view", name, src, f".diagonal({draw(st.integers(-1, 1))})")
    if kind == "broadcast_to":
        return ("call", name, "np.broadcast_to", src, f", {(draw(st.integers(1, 3)), *x.shape)}")
    if kind == "expand_dims":
        return ("call", name, "np.expand_dims", src, f", {draw(st.integers(0, nd))}")
    return ("view", name, src, f"[{_basic_index(draw, x.shape)}]")


def _operand(draw, env: dict, kind: str | None = None) -> str:
    """An array of the environment (or a Python scalar): mixed dtypes are NumPy's promotion at work."""
    names = [n for n in _arrays(env) if kind is None or env[n].dtype.kind == kind]
    if names and draw(st.integers(0, 3)):
        return draw(st.sampled_from(names))
    return _literal(draw, kind or draw(st.sampled_from("fiub")))


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
    if fitting and draw(st.integers(0, 2)):
        return draw(st.sampled_from(fitting))
    return _literal(draw, dtype.kind if draw(st.integers(0, 3)) else draw(st.sampled_from("fiub")))


def _step(draw, k: int, env: dict) -> tuple:
    names = _arrays(env)
    target = draw(st.sampled_from(names))
    t = env[target]
    kind = t.dtype.kind
    action = draw(st.sampled_from(["view", "view", "view", "binary", "ufunc", "reduce", "compare",
                                   "setitem", "setitem", "augment", "augment", "ufunc_out", "copyto",
                                   "fill", "clip", "sort", "fancy_set", "fancy_get", "mask_set", "add_at"]))
    if action == "view":
        return _view_step(draw, f"v{k}", target, t)
    if action == "binary":
        op = draw(st.sampled_from(OPS[kind]))
        y = draw(st.sampled_from(["2", "3"])) if op == "**" else _operand(draw, env)
        if op in ("<<", ">>"):
            y = str(draw(st.integers(0, 3)))
        return ("binary", f"r{k}", target, op, y)
    if action == "compare":
        return ("binary", f"r{k}", target, draw(st.sampled_from(COMPARE)), _operand(draw, env))
    if action == "ufunc":
        if draw(st.booleans()):
            return ("ufunc", f"r{k}", draw(st.sampled_from(UNARY[kind])), target, None)
        return ("ufunc", f"r{k}", draw(st.sampled_from(UFUNCS[kind])), target, _operand(draw, env))
    if action == "reduce":
        method = draw(st.sampled_from(REDUCTIONS))
        axis = draw(st.sampled_from([None, *range(-t.ndim, t.ndim)]))
        keep = method not in ("cumsum", "argmax", "argmin") and draw(st.booleans())
        return ("reduce", f"r{k}", target, method, axis, keep)
    if action == "fancy_get" and t.ndim and t.shape[0]:
        idx = draw(st.lists(st.integers(-t.shape[0], t.shape[0] - 1), min_size=1, max_size=4))
        return ("view", f"r{k}", target, f"[{idx}]")
    # writes
    if action == "setitem":
        index = _basic_index(draw, t.shape)
        shape = t[eval(f"np.s_[{index}]")].shape
        return ("setitem", target, index, _write_value(draw, env, t.dtype, shape))
    if action == "augment":
        op = draw(st.sampled_from(OPS[kind]))
        index = None if draw(st.booleans()) else _basic_index(draw, t.shape)
        shape = t.shape if index is None else t[eval(f"np.s_[{index}]")].shape
        if op == "**":
            value = draw(st.sampled_from(["2", "3"]))
        elif op in ("<<", ">>"):
            value = str(draw(st.integers(0, 3)))
        else:
            value = _write_value(draw, env, t.dtype, shape)
        return ("augment", target, index, op, value)
    if action == "ufunc_out":
        ufunc = draw(st.sampled_from(UFUNCS[kind]))
        fitting = [n for n in names if _fits(env, n, t.shape)]
        x = draw(st.sampled_from(fitting)) if fitting else target
        where = None
        if draw(st.booleans()):
            masks = [n for n in fitting if env[n].dtype.kind == "b"]
            where = draw(st.sampled_from(masks)) if masks and draw(st.booleans()) else f"{x} > 0"
        return ("ufunc_out", ufunc, x, _operand(draw, env, kind), target, where)
    if action == "copyto":
        src = _write_value(draw, env, t.dtype, t.shape)
        where = None
        if draw(st.booleans()):
            masks = [n for n in names if env[n].dtype.kind == "b" and _fits(env, n, t.shape)]
            where = draw(st.sampled_from(masks)) if masks and draw(st.booleans()) else f"{target} != 1"
        return ("copyto", target, src, where)
    if action == "fill":
        return ("method", target, f"fill({_literal(draw, kind)})")
    if action == "clip" and kind in "fiu":
        lo = _literal(draw, kind, positive=True)
        return ("clip_out", target, lo, str(int(float(lo)) + draw(st.integers(0, 5))))
    if action == "sort" and t.ndim:
        return ("method", target, f"sort(axis={draw(st.integers(-t.ndim, t.ndim - 1))})")
    if action == "fancy_set" and t.size > 1:
        axis = draw(st.sampled_from([i for i, n in enumerate(t.shape) if n > 0]))
        n = t.shape[axis]
        idx = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=n,
                            unique_by=lambda i: i % n))  # NB: repeated indices with '=' are undefined
        index = ", ".join([":"] * axis + [str(idx)])
        return ("setitem", target, index, _literal(draw, kind))
    if action == "add_at" and t.size and kind in "fiu":
        idx = draw(st.lists(st.integers(0, t.shape[0] - 1), min_size=1, max_size=6))
        return ("add_at", target, str(idx), _literal(draw, kind, positive=True))
    masks = [n for n in names if env[n].dtype.kind == "b" and env[n].shape == t.shape]
    mask = draw(st.sampled_from(masks)) if masks and draw(st.booleans()) else \
        f"{target} {'!=' if kind == 'b' else '>'} {_literal(draw, kind)}"
    return ("setitem", target, mask, _literal(draw, kind))


def _defined(before: dict, env: dict, step: tuple) -> bool:
    """The step's result is defined by NumPy: finite floats, in-range float -> int casts, no int ** negative."""
    for name, v in env.items():
        if name.startswith("__") or name == "np":
            continue
        if not isinstance(v, (np.ndarray, np.generic)):
            return False
        if v.dtype.kind in "fc" and not np.isfinite(v).all():
            return False
    if step[0] == "setitem":  # NB: setitem casts unsafely; float -> int is defined only in range
        target, src = before[step[1]], before.get(step[3], None)
        value = src if isinstance(src, (np.ndarray, np.generic)) else np.asarray(eval(step[3]))
        if target.dtype.kind in "iu" and value.dtype.kind == "f":
            info = np.iinfo(target.dtype)
            if not ((value > info.min - 1) & (value < info.max + 1)).all():
                return False
    return True


@st.composite
def programs(draw, max_steps: int = 8, errors: bool = True):
    """A random `Program` NumPy runs (or, with ``errors``, one whose last step NumPy refuses)."""
    inputs = []
    for _ in range(2):
        dtype = np.dtype(draw(st.sampled_from(DTYPES)))
        shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
        rng = np.random.default_rng(draw(st.integers(0, 2**16)))
        if dtype.kind == "b":
            x = rng.random(shape) > 0.5
        elif dtype.kind in "iu":
            x = rng.integers(0 if dtype.kind == "u" else -20, 20, shape).astype(dtype)
        else:
            x = rng.normal(size=shape).astype(dtype)
        inputs.append(x)
    steps: list[tuple] = []
    env = _run_numpy(steps, inputs)
    for k in range(draw(st.integers(1, max_steps))):
        step = _step(draw, k, env)
        trial = _run_numpy(steps, inputs)
        before = {n: v.copy() if isinstance(v, np.ndarray) else v for n, v in trial.items()}
        try:
            with np.errstate(all="ignore"):
                exec(render_step(step), trial)
        except Exception as e:
            if errors and isinstance(e, (TypeError, ValueError, IndexError, OverflowError)) and _static_error(e) \
                    and draw(st.integers(0, 9)) == 0:
                return Program(steps + [step], inputs, type(e))
            continue
        if _defined(before, trial, step):
            steps.append(step)
            env = trial
    return Program(steps, inputs)


def _static_error(e: BaseException) -> bool:
    """NumPy errors decided by shapes and dtypes alone (not by the data)."""
    text = str(e)
    return "power" not in text and "Integers to negative" not in text


# --- checking -------------------------------------------------------------------------------------

def check(program: Program, jit: bool = False, optimize=(True, False)) -> None:
    """The program agrees with NumPy, passes on and off (raises otherwise)."""
    import elena_jax

    f = compile_program(program.steps)
    try:
        if program.error is None:
            check_against_numpy(f, *program.inputs, jit=jit, optimize=optimize)
            return
        for opt in optimize:
            args = [x.copy() for x in program.inputs]
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


def minimize(program: Program, jit: bool = True) -> Program:
    """Drop steps while the program still fails and NumPy still accepts it (the program is data)."""
    def fails(p: Program) -> bool:
        try:
            _run_numpy(p.steps[:-1] if p.error else p.steps, p.inputs)
        except Exception:
            return False  # no longer a program NumPy runs
        try:
            check(p, jit=jit)
        except AssertionError:
            return True
        return False

    k = len(program.steps) - 1
    while k >= 0:
        smaller = Program(program.steps[:k] + program.steps[k + 1:], program.inputs, program.error)
        if (not program.error or k < len(program.steps) - 1) and fails(smaller):
            program = smaller
        k -= 1
    return program


def check_batch(batch: list[Program], jit: bool = True, optimize=(True, False)) -> None:
    """`check` for many programs at once: one trace and one XLA compile for all the valid ones.

    The programs take separate arguments, so running them in one function is
    the same as running each alone; on a disagreement each is checked alone
    and the first failing one is reported.
    """
    valid = [p for p in batch if p.error is None]
    for p in batch:
        if p.error is not None:
            check(p, jit=jit, optimize=optimize)
    if not valid:
        return
    fs = [compile_program(p.steps) for p in valid]

    def together(*flat):
        return [f(flat[2 * i], flat[2 * i + 1]) for i, f in enumerate(fs)]

    try:
        check_against_numpy(together, *[x for p in valid for x in p.inputs], jit=jit, optimize=optimize)
    except Exception as e:
        for p in valid:
            try:
                check(p, jit=jit, optimize=optimize)
            except AssertionError:
                check(minimize(p, jit=jit), jit=jit, optimize=optimize)
                raise
        raise AssertionError(f"a batch disagrees with NumPy, none of its programs alone does: {e}") from None


def _builtin_base(exc: type[BaseException]) -> type[BaseException]:
    """NumPy's exception type, up to its nearest builtin (UFuncTypeError -> TypeError)."""
    for cls in exc.__mro__:
        if cls.__module__ == "builtins":
            return cls
    return exc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="batches of programs to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=8, help="most steps per program")
    parser.add_argument("--batch", type=int, default=10, help="programs compiled together")
    parser.add_argument("--no-jit", action="store_true", help="run the lowered program op by op")
    args = parser.parse_args(argv)
    counter = {"n": 0}
    start = time.time()

    # NB: no hypothesis shrinking (each try compiles a batch); `minimize` drops steps instead.
    @settings(max_examples=args.n, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=True, phases=[Phase.generate])
    @given(st.lists(programs(max_steps=args.steps), min_size=1, max_size=args.batch))
    def campaign(batch):
        counter["n"] += len(batch)
        check_batch(batch, jit=not args.no_jit)
        if counter["n"] // 500 != (counter["n"] - len(batch)) // 500:
            print(f"{counter['n']} programs checked ({time.time() - start:.0f} s)", flush=True)

    try:
        seed(args.seed)(campaign)()
    except Exception:
        traceback.print_exc()
        print(f"FAILED after {counter['n']} programs ({time.time() - start:.0f} s); "
              "the minimal failing program is printed above", file=sys.stderr)
        return 1
    print(f"{counter['n']} programs, all equal to NumPy (passes on and off), "
          f"seed {args.seed}, {time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
