"""What NumPy's rounding costs a compiled program on this machine's default backend.

elena_jax hides the operands of float arithmetic from XLA's simplifier (lower/opaque.py),
so that XLA cannot fold steps NumPy rounds one by one. Per case at size n, this measures
the compiled program's kernels (the instructions of its entry computation: fusions,
custom calls, copies), its temporary memory, its median time (the benchmark's interleaved
rounds, bench/harness.py) and its pipelined time (calls issued back to back and waited for
once: on a GPU the device's time per call, without the wait for each result), for:

- ``elena_jax``: the program as elena_jax lowers it for this backend;
- ``unhidden``: the same without `opaque.unfolded`'s hiding of arithmetic operands and without
  the CPU-only barriers (the divisors' opaque 1.0, ``fma=False``'s rounded products and the sums'
  barriers stay): what XLA makes of the program where it may fold, not NumPy's bit for bit;
- ``selects``: the program with every lane selected, none stacked (`rules.STACKED_OFF_CPU`
  emptied: the same program as ``elena_jax`` on the CPU); ``lane_selects``: only select_lanes'
  lanes selected, assembles' stacked; ``columns_stacked`` / ``values_stacked``: select_lanes' lanes
  stacked only where its inputs are computed columns / where one is as wide as the result: what
  each stacking off the CPU gains on this backend (lanes read from arguments stay selected);
- ``jax_at`` and each hand restructuring ``jax:<form>`` of the case.

Run: ``python -m bench.hiding [--sizes 1e6] [--cases delta2bbox,xyxy_xywh] [--hlo DIR]``; on a GPU
machine it measures the GPU (bench/gpu_check.sh runs the benchmark and the GPU tests).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
from collections.abc import Callable

import jax

import elena_jax
from elena_jax.lower import rules

from .cases import CASES
from .harness import prepare, split_args, time_interleaved, time_pipelined

_NOT_KERNELS = {"parameter", "tuple", "get-tuple-element", "bitcast", "constant"}
_UNHIDDEN = {"unfolded": tuple, "apart_on_cpu": lambda x: x}
# Variant -> the lowering rules' names it replaces while elena_jax's program is traced.
_PATCHES = {"elena_jax": {}, "unhidden": _UNHIDDEN, "selects": {"STACKED_OFF_CPU": set()},
            "lane_selects": {"STACKED_OFF_CPU": {"assemble"}},
            "columns_stacked": {"STACKED_OFF_CPU": {"assemble", "computed_columns"}},
            "values_stacked": {"STACKED_OFF_CPU": {"assemble", "lanes_of_values"}}}
REPEATS = 60


def kernels(hlo: str) -> list[str]:
    """The opcodes of the entry computation's instructions that run as kernels."""
    entry = hlo[hlo.index("ENTRY"):]
    entry = entry[:entry.index("\n}")]
    ops = []
    for line in entry.splitlines()[1:]:
        _, eq, rest = line.partition(" = ")
        if eq:
            ops.append(_after_shape(rest).split("(", 1)[0])
    return [op for op in ops if op and op not in _NOT_KERNELS]


def _after_shape(text: str) -> str:
    """``text`` past the shape it begins with. NB: a multi-output fusion's or a loop's shape is a
    tuple, nested and with spaces in it: ``(s32[], (f32[4]{0}, f32[4]{0})) while(``."""
    if not text.startswith("("):
        return text.split(" ", 1)[-1]
    depth = 0
    for i, c in enumerate(text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0:
            return text[i + 1:].lstrip()
    return ""


def _compiled(fn: Callable, args: list, patches: dict):
    real = {name: getattr(rules, name) for name in patches}
    for name, f in patches.items():  # NB: the lowering rules look these up when elena_jax's program is traced
        setattr(rules, name, f)
    try:
        return jax.jit(fn).lower(*args).compile()
    finally:
        for name, f in real.items():
            setattr(rules, name, f)


def measure(name: str, n: int, hlo_dir: str | None = None) -> list[dict]:
    """One row per variant of case ``name`` at size ``n``; with ``hlo_dir``, each variant's
    compiled program is written there as ``<case>_<n>_<variant>.txt``."""
    case = CASES[name]
    arrays, bind = split_args(case.inputs(n))
    args = [jax.device_put(a, jax.devices()[0]) for a in arrays]
    variants = {v: (case.numpy_fn, True) for v in _PATCHES}
    if case.jax_at is not None:
        variants["jax_at"] = (case.jax_at, False)
    variants.update({f"jax:{k}": (f, False) for k, f in case.jax_restructured.items()})
    rows, timed, programs = [], {}, {}
    for variant, (fn, elena) in variants.items():
        if elena:  # NB: a function of its own per variant: elena_jax keeps a function's programs, lowered
            pure = elena_jax.pure(lambda *a, fn=fn: fn(*a))
            fn = lambda *a, pure=pure: pure(*a)[0]  # noqa: E731
        compiled = _compiled(bind(fn), args, _PATCHES.get(variant, {}))
        text = compiled.as_text()
        if hlo_dir is not None:
            with open(os.path.join(hlo_dir, f"{name}_{n}_{variant.replace(':', '_')}.txt"), "w") as f:
                f.write(text)
        ops = kernels(text)
        rows.append({"case": name, "n": n, "variant": variant, "kernels": len(ops),
                     "kinds": {k: ops.count(k) for k in sorted(set(ops))},
                     "temp_mib": compiled.memory_analysis().temp_size_in_bytes / 2**20})
        programs[variant] = compiled
        timed[variant] = prepare(compiled, lambda: args, lambda out, args: {}, jax.block_until_ready)
    time_interleaved(timed, REPEATS)  # NB: the benchmark's own rounds, so that ratios hold within one run
    pipelined = time_pipelined({v: functools.partial(c, *args) for v, c in programs.items()})
    for row in rows:
        row["median_ms"] = 1e3 * timed[row["variant"]]["median_s"]
        row["pipelined_ms"] = 1e3 * pipelined[row["variant"]]
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(prog="python -m bench.hiding", description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1e6")
    p.add_argument("--cases", default="delta2bbox,tblr2bbox,bbox2delta,xyxy_xywh,gen_base_anchors,jacobi,wave_1d")
    p.add_argument("--json", default=None, help="also write the rows to this file")
    p.add_argument("--hlo", default=None, help="write each compiled program's text into this folder")
    args = p.parse_args(argv)
    if args.hlo:
        os.makedirs(args.hlo, exist_ok=True)
    rows = []
    print(f"backend {jax.default_backend()}: {jax.devices()[0].device_kind}")
    print("| case | n | variant | median ms | pipelined ms | kernels | temporaries MiB |\n"
          "|---|---:|---|---:|---:|---:|---:|")
    with jax.enable_x64(True):
        for n in (int(float(s)) for s in args.sizes.split(",")):
            for name in args.cases.split(","):
                for r in measure(name, n, args.hlo):
                    rows.append(r)
                    print(f"| {r['case']} | {n} | {r['variant']} | {r['median_ms']:.3f} | {r['pipelined_ms']:.3f} | "
                          f"{r['kernels']} | "
                          f"{r['temp_mib']:.1f} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
