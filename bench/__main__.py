"""elena-bench: view-heavy NumPy workloads, elena_jax against its peers.

Usage: ``python -m bench [--quick] [--cases a,b] [--sizes 1e4,1e5,1e6]
[--device cpu|gpu] [--json PATH] [--repeats N]``. Writes JSON, a markdown
table and PNG plots under bench/results/ (or next to ``--json``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np

from .cases import CASES
from .harness import run_case

PEERS = ["numpy", "elena_jax", "elena_jax_noopt", "elena_jax_numpy_io", "jax_at", "jax", "numba"]
SKIPPED = {
    "torch": "skipped: torch versions of the cases are not written yet",
    "tensorflow": "skipped: not installed (optional peer)",
    "tvm": "skipped: not installed (optional peer)",
    "cupy": "skipped: no GPU on this machine",
}


def machine() -> dict:
    cpu = platform.processor()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = {"python": platform.python_version(), "numpy": np.__version__, "jax": jax.__version__}
    for mod in ("jaxlib", "numba", "torch"):
        try:
            versions[mod] = __import__(mod).__version__
        except ImportError:
            versions[mod] = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                check=False).stdout.strip()
    except OSError:
        commit = ""
    return {"cpu": cpu, "cores": os.cpu_count(), "os": platform.platform(), "devices": [str(d) for d in jax.devices()],
            "versions": versions, "commit": commit}


def speedup(row: dict, peer: str) -> float | None:
    r, base = row["results"].get(peer, {}), row["results"].get("numpy", {})
    if r.get("status") != "ok" or base.get("status") != "ok":
        return None
    return base["median_s"] / r["median_s"]


def _ratio(res: dict, a: str, b: str) -> str:
    ok = res.get(a, {}).get("status") == "ok" and res.get(b, {}).get("status") == "ok"
    return f"{res[a]['median_s'] / res[b]['median_s']:.2f}" if ok else "-"


def markdown(report: dict) -> str:
    peers = ["numpy", "elena_jax", "elena_jax_noopt", "elena_jax_numpy_io", "jax_at", "jax_best", "numba"]
    m = report["machine"]
    lines = [f"# elena-bench results ({report['date']})", "",
             f"Command: `{report['command']}`  ", f"Machine: {m['cpu']}, {m['cores']} cores, {m['os']}  ",
             f"Versions: {m['versions']}  ", f"Commit: {m['commit']}", "",
             "Median time per call (ms) and speed-up over NumPy eager (x). elena_jax and the JAX peers run "
             "jitted on device arrays; `elena_jax_numpy_io` is the functionalized call on NumPy arrays "
             "(transfers and write-back included). `sc/ga`: scatter/gather ops in the compiled HLO.", "",
             "| case | n | " + " | ".join(peers) + " | ej vs jax_at | ej vs jax_best | sc/ga (ej, noopt, at) |",
             "|---|---|" + "---|" * (len(peers) + 3)]
    for row in report["rows"]:
        res = row["results"]
        cells = []
        for p in peers:
            r = res.get(p, {})
            if r.get("status") == "ok":
                s = speedup(row, p)
                cells.append(f"{r['median_s'] * 1e3:.3g} ({s:.2g}x)" if s else f"{r['median_s'] * 1e3:.3g}")
            else:
                cells.append(r.get("status", "-"))
        counts = "/".join(f"{res.get(p, {}).get('scatter', '-')},{res.get(p, {}).get('gather', '-')}"
                          for p in ("elena_jax", "elena_jax_noopt", "jax_at"))
        lines.append(f"| {row['case']} | {row['n']} | " + " | ".join(cells)
                     + f" | {_ratio(res, 'elena_jax', 'jax_at')} | {_ratio(res, 'elena_jax', 'jax_best')} | {counts} |")
    lines += ["", "Ratios are elena_jax time / peer time (<= 1.0: elena_jax at least as fast).", "",
              "Failures and skips:", ""]
    for row in report["rows"]:
        for p, r in row["results"].items():
            if r.get("status") != "ok":
                lines.append(f"- {row['case']} n={row['n']} {p}: {r.get('status')}: {r.get('error', '')}")
    lines += [f"- {peer}: {why}" for peer, why in report["skipped"].items()]
    return "\n".join(lines) + "\n"


def plots(report: dict, stem: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = report["rows"]
    cases = sorted({r["case"] for r in rows})
    peers = ["elena_jax", "elena_jax_noopt", "jax_at", "jax_best", "numba"]
    written = []
    sizes = sorted({r["n"] for r in rows})
    fig, axes = plt.subplots(len(sizes), 1, figsize=(max(8, len(cases) * 0.9), 3.2 * len(sizes)), squeeze=False)
    for ax, n in zip(axes[:, 0], sizes):
        width = 0.8 / len(peers)
        for k, p in enumerate(peers):
            vals = [next((speedup(r, p) or 0 for r in rows if r["case"] == c and r["n"] == n), 0) for c in cases]
            ax.bar(np.arange(len(cases)) + k * width, vals, width, label=p)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_yscale("log")
        ax.set_xticks(np.arange(len(cases)) + 0.4, cases, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("speed-up over NumPy")
        ax.set_title(f"n = {n}")
    axes[0, 0].legend(fontsize=7, ncol=len(peers))
    fig.tight_layout()
    path = stem.with_name(stem.name + "_speedup.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(str(path))
    if len(sizes) > 1:
        cols = 4
        fig, axes = plt.subplots(-(-len(cases) // cols), cols, figsize=(14, 3 * -(-len(cases) // cols)),
                                 squeeze=False)
        for ax, c in zip(axes.flat, cases):
            for p in ["numpy"] + peers:
                pts = [(r["n"], r["results"][p]["median_s"]) for r in rows
                       if r["case"] == c and r["results"].get(p, {}).get("status") == "ok"]
                if pts:
                    ax.loglog(*zip(*pts), marker="o", label=p)
            ax.set_title(c, fontsize=9)
            ax.set_xlabel("n")
            ax.set_ylabel("s")
        axes.flat[0].legend(fontsize=6)
        for ax in list(axes.flat)[len(cases):]:
            ax.axis("off")
        fig.tight_layout()
        path = stem.with_name(stem.name + "_time_vs_size.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(str(path))
    return written


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1e4 only, 20 repeats (under 3 minutes)")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    parser.add_argument("--sizes", default="1e4,1e5,1e6")
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--json", default=None, help="output path (default bench/results/<date>_<device>.json)")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--peers", default=",".join(PEERS))
    args = parser.parse_args(argv)
    if args.device == "gpu" and not any(d.platform == "gpu" for d in jax.devices()):
        parser.error("--device gpu: JAX sees no GPU on this machine")
    sizes = [10_000] if args.quick else [int(float(s)) for s in args.sizes.split(",")]
    names = [c for c in args.cases.split(",") if c]
    unknown = [c for c in names if c not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}; known: {', '.join(CASES)}")
    peers = set(args.peers.split(","))
    from tqdm import tqdm

    rows = []
    for name, n in tqdm([(c, n) for c in names for n in sizes], desc="elena-bench", file=sys.stderr):
        rows.append(run_case(CASES[name], n, args.repeats, peers))
    stamp = datetime.datetime.now(datetime.timezone.utc)
    command = "python -m bench " + " ".join(argv or sys.argv[1:])
    report = {"date": stamp.isoformat(timespec="seconds"), "command": command,
              "device": args.device, "machine": machine(), "skipped": SKIPPED,
              "cases": {c: {"origin": CASES[c].origin, "view_ops": CASES[c].view_ops} for c in names},
              "rows": rows}
    out = Path(args.json) if args.json else Path(__file__).parent / "results" / f"{stamp:%Y%m%d}_{args.device}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    stem = out.with_suffix("")
    stem.with_suffix(".md").write_text(markdown(report))
    report["plots"] = plots(report, stem)
    print(f"wrote {out}, {stem.with_suffix('.md')}, {', '.join(report['plots'])}", file=sys.stderr)
    return report


if __name__ == "__main__":
    main()
