"""The command line: ``python -m bench [--quick] [--cases a,b] [--sizes 1e4,1e5,1e6]
[--device cpu|gpu] [--json PATH] [--repeats N] [--peers p,q]``.

Runs every requested case at every size with every peer, then writes the JSON
report, a markdown table next to it (same stem, ``.md``) and the PNG plots
(``_speedup.png``, ``_time_vs_size.png``). Default output:
``bench/results/<date>_<device>[_quick].json``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from .cases import CASES
from .harness import PEERS, run_case
from .report import machine, render, save_json, write

RESULTS = Path(__file__).parent / "results"
QUICK_SKIP = {"torch_compile": "not run under --quick (Inductor compiles take 5-50 s per case)"}


def _sizes(text: str) -> list[int]:
    return [int(float(s)) for s in text.split(",") if s]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench",
                                description="elena_jax against NumPy, hand-written JAX, Numba "
                                "and PyTorch on view-heavy imperative NumPy code.")
    p.add_argument("--quick", action="store_true",
                   help="n = 1e4 only (unless --sizes is given) and no torch.compile")
    p.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    p.add_argument("--sizes", default=None, help="problem sizes (default 1e4,1e5,1e6)")
    p.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    p.add_argument("--json", default=None, help="output path of the JSON report")
    p.add_argument("--repeats", type=int, default=20, help="timed calls after warm-up (>= 20)")
    p.add_argument("--peers", default=",".join(PEERS), help="comma-separated peers to run")
    p.add_argument("--pipelined", action="store_true",
                   help="also time the JAX peers' calls issued back to back (device time per call)")
    p.add_argument("--report", default=None, metavar="JSON",
                   help="only rewrite the markdown report and plots of an existing JSON report")
    return p


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark as the command line does; returns the report written."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = parser()
    args = ap.parse_args(argv)
    if args.report:
        report = json.loads(Path(args.report).read_text())
        report["outputs"] = render(report, Path(args.report))
        print("wrote " + ", ".join(report["outputs"]), file=sys.stderr)
        return report
    import jax

    if args.device == "gpu" and not any(d.platform == "gpu" for d in jax.devices()):
        ap.error("--device gpu: JAX sees no GPU on this machine")
    names = [c for c in args.cases.split(",") if c]
    unknown = [c for c in names if c not in CASES]
    if unknown:
        ap.error(f"unknown cases {unknown}; known: {', '.join(CASES)}")
    sizes = _sizes(args.sizes) if args.sizes else ([10_000] if args.quick else [10_000, 100_000,
                                                                                1_000_000])
    peers = [p for p in args.peers.split(",") if p]
    skip = dict(QUICK_SKIP) if args.quick else {}

    from tqdm import tqdm

    rows: list[dict] = []
    report = {
        "command": "python -m bench " + shlex.join(argv),
        "machine": machine(),
        "device": args.device,
        "sizes": sizes,
        "repeats": args.repeats,
        "cases": {c: {k: str(v) for k, v in CASES[c].meta.items()} for c in names},
        "rows": rows,
    }
    stamp = report["machine"]["date"][:10].replace("-", "")
    default = RESULTS / f"{stamp}_{args.device}{'_quick' if args.quick else ''}.json"
    out = Path(args.json) if args.json else default
    bar = tqdm([(c, n) for c in names for n in sizes], desc="bench", file=sys.stderr,
               dynamic_ncols=True)
    for name, n in bar:
        bar.set_description(f"{name} n={n:g}")
        rows.append(run_case(CASES[name], n, args.repeats, peers, args.device, skip,
                             progress=lambda peer: bar.set_postfix_str(peer), pipelined=args.pipelined))
        # NB: the rows so far, so that a run stopped midway keeps them (`--report` renders them)
        save_json(report, out)
    report["machine"] = machine()  # the load average and date at the end of the run
    report["outputs"] = write(report, out)
    print("wrote " + ", ".join(report["outputs"]), file=sys.stderr)
    return report
