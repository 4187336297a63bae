"""Differential fuzzing of whole programs: random views, reads and writes.

A program is data: a list of source lines over two input arrays ``a`` and
``b`` (random shapes, dtypes float64, float32, int64, int32, uint8, bool). It
creates views (basic indices with steps, negative steps and None; transposes;
reshapes where they are views; views of views), reads them into ufuncs, and
writes through them (setitem with broadcasting, augmented assignment, ufunc
``out=``, ``np.copyto(where=)``, fancy writes with unique indices, boolean
mask writes). Generation runs each line on NumPy arrays as it goes, so only
programs NumPy itself accepts are kept, and draws go through hypothesis so a
failure shrinks to a minimal program, printed as runnable NumPy code.

Run a campaign: ``python -m elena_jax.fuzz --n 100000 --seed 0``.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback

import numpy as np
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from .testing import check_against_numpy

DTYPES = ["float64", "float32", "int64", "int32", "uint8", "bool"]
OPS = {
    "f": ["+", "-", "*", "/"],
    "i": ["+", "-", "*", "//", "%", "&", "|", "^"],
    "u": ["+", "-", "*", "&", "|"],
    "b": ["&", "|", "^"],
}
UFUNCS = {"f": ["add", "multiply", "maximum", "minimum", "subtract"], "i": ["add", "maximum", "bitwise_xor"],
          "u": ["add", "minimum"], "b": ["logical_and", "logical_or"]}


def _kind(dtype: np.dtype) -> str:
    return dtype.kind


def _slice(draw, n: int) -> str:
    step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
    lo = draw(st.integers(0, max(n - 1, 0)))
    hi = draw(st.integers(lo, n))
    if step < 0:
        lo, hi = hi - 1, lo - 1
        hi_s = "" if hi < 0 else str(hi)
        return f"{lo if lo >= 0 else ''}:{hi_s}:{step}"
    return f"{lo}:{hi}" + ("" if step == 1 else f":{step}")


def _view_expr(draw, arr: np.ndarray) -> str:
    kind = draw(st.sampled_from(["index", "index", "index", "T", "reshape", "newaxis"]))
    if kind == "T":
        return ".T"
    if kind == "reshape" and arr.ndim >= 1 and arr.size > 0:
        target = draw(st.sampled_from([(-1,), (arr.size, 1), (1, -1)]))
        return f".reshape{target}"
    parts = []
    for n in arr.shape:
        parts.append(str(draw(st.integers(-n, n - 1))) if n and draw(st.integers(0, 5)) == 0
                     else _slice(draw, n))
    if kind == "newaxis":
        parts.insert(draw(st.integers(0, len(parts))), "None")
    return "[" + ", ".join(parts) + "]" if parts else "[...]"


def _literal(draw, dtype: np.dtype) -> str:
    k = _kind(dtype)
    if k == "b":
        return draw(st.sampled_from(["True", "False"]))
    if k == "u":
        return str(draw(st.integers(0, 9)))
    if k == "i":
        return str(draw(st.integers(-9, 9)))
    return draw(st.sampled_from(["0.5", "-1.25", "2.0", "3"]))


@st.composite
def programs(draw, max_steps: int = 8):
    """(source lines, input arrays): a random program NumPy runs without error."""
    env: dict[str, np.ndarray] = {}
    inputs = []
    for name in ("a", "b"):
        dtype = np.dtype(draw(st.sampled_from(DTYPES)))
        shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
        rng = np.random.default_rng(draw(st.integers(0, 2**16)))
        if dtype.kind == "b":
            x = rng.random(shape) > 0.5
        elif dtype.kind in "iu":
            x = rng.integers(0 if dtype.kind == "u" else -20, 20, shape).astype(dtype)
        else:
            x = rng.normal(size=shape).astype(dtype)
        env[name] = x.copy()
        inputs.append(x)
    lines, results = [], []
    for k in range(draw(st.integers(1, max_steps))):
        names = sorted(env)
        target = draw(st.sampled_from(names))
        t = env[target]
        action = draw(st.sampled_from(["view", "view", "write", "write", "write", "read"]))
        if action == "view":
            line = f"v{k} = {target}{_view_expr(draw, t)}"
        elif action == "read":
            src = draw(st.sampled_from(names))
            line = f"r{k} = {target} {draw(st.sampled_from(OPS[_kind(t.dtype)]))} {src}"
        else:
            line = _write(draw, k, target, t, env)
        scope = dict(env, np=np)
        try:
            with np.errstate(all="ignore"):
                exec(line, scope)
        except Exception:
            continue
        new = {n: v for n, v in scope.items() if n not in env and n != "np" and not n.startswith("_")}
        if any(not isinstance(v, np.ndarray) or v.dtype.kind in "fc" and not np.isfinite(v).all()
               for v in new.values()):
            continue
        if any(v.dtype.kind in "fc" and not np.isfinite(v).all() for v in env.values()):
            continue
        env.update(new)
        if action == "read":
            results.append(f"r{k}")
        lines.append(line)
    outs = ", ".join(results + [n for n in sorted(env) if n.startswith("v")][:2])
    lines.append(f"return ({outs},)" if outs else "return a")
    return lines, inputs


def _write(draw, k: int, target: str, t: np.ndarray, env: dict) -> str:
    kind = _kind(t.dtype)
    src = draw(st.sampled_from(sorted(n for n in env if _kind(env[n].dtype) == kind) or [target]))
    form = draw(st.sampled_from(["set_scalar", "set_view", "augment", "ufunc_out", "copyto_where",
                                 "fancy", "mask"]))
    if form == "set_scalar":
        return f"{target}[{draw(st.sampled_from(['...', '::2', '1:', '-1']))}] = {_literal(draw, t.dtype)}"
    if form == "set_view":
        return f"{target}[...] = {src}"
    if form == "augment":
        return f"{target} {draw(st.sampled_from(OPS[kind]))}= {draw(st.sampled_from([src, _literal(draw, t.dtype)]))}"
    if form == "ufunc_out":
        return f"np.{draw(st.sampled_from(UFUNCS[kind]))}({target}, {src}, out={target})"
    if form == "copyto_where":
        return f"np.copyto({target}, {src}, where={src} > 0)"
    if form == "fancy" and t.ndim and t.shape[0] > 1:
        idx = draw(st.lists(st.integers(0, t.shape[0] - 1), min_size=1, max_size=t.shape[0], unique=True))
        return f"{target}[{idx}] = {_literal(draw, t.dtype)}"
    return f"{target}[{target} {'!=' if kind == 'b' else '>'} {_literal(draw, t.dtype)}] = {_literal(draw, t.dtype)}"


def render(lines: list[str]) -> str:
    """The program as runnable NumPy source."""
    return "import numpy as np\n\n\ndef program(a, b):\n" + "".join(f"    {line}\n" for line in lines)


def compile_program(lines: list[str]):
    scope: dict = {"np": np}
    exec(render(lines), scope)
    return scope["program"]


def check(lines: list[str], inputs, jit: bool = False) -> None:
    """The program agrees with NumPy, passes on and off (raises otherwise)."""
    try:
        check_against_numpy(compile_program(lines), *inputs, jit=jit)
    except AssertionError as e:
        raise AssertionError(f"{e}\n--- program ---\n{render(lines)}inputs: {inputs!r}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="programs to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jit", action="store_true", help="compile every program with XLA (slower)")
    args = parser.parse_args(argv)
    counter = {"n": 0}
    start = time.time()

    @settings(max_examples=args.n, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=True)
    @given(programs())
    def campaign(case):
        counter["n"] += 1
        check(*case, jit=args.jit)
        if counter["n"] % 1000 == 0:
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
