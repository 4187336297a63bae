"""The benchmark's outputs: machine description, markdown tables and PNG plots.

Everything here reads the report dictionary that ``bench.main`` writes as
JSON (``rows``: one per case and size, each with a result per peer), so the
tables and plots can be regenerated from a committed JSON file alone.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path

import numpy as np

#: Peers in the main table and the plots, in column order.
TABLE_PEERS = ("numpy", "elena_jax", "elena_jax_noopt", "elena_jax_numpy_io", "jax_at", "jax_best",
               "numba", "torch", "torch_compile")
PLOT_PEERS = ("elena_jax", "elena_jax_noopt", "jax_at", "jax_best", "numba", "torch",
              "torch_compile")
HLO_PEERS = ("elena_jax", "elena_jax_noopt", "jax_at", "jax_best")
MEMORY_PEERS = ("numpy", "elena_jax", "elena_jax_noopt", "jax_at", "jax_best")


def _version(module: str) -> str | None:
    try:
        return __import__(module).__version__
    except Exception:  # noqa: BLE001 - an optional package that is absent or broken
        return None


def _cpu() -> str:
    """The CPU's model name, family/model numbers and widest vector extension: machines of one
    name differ (an "AMD EPYC" was a Zen 4 with AVX-512 one day and an AVX2 one the next, and
    the fastest hand-written JAX form with it)."""
    cpu = platform.processor() or platform.machine()
    try:
        info = dict(line.split(":", 1) for line in Path("/proc/cpuinfo").read_text().split("\n\n")[0]
                    .splitlines() if ":" in line)
    except OSError:
        return cpu
    info = {k.strip(): v.strip() for k, v in info.items()}
    flags = set(info.get("flags", "").split())
    vector = next((v for v, f in (("AVX-512", "avx512f"), ("AVX2", "avx2"), ("AVX", "avx")) if f in flags), "no AVX")
    name, family, model = info.get("model name", cpu), info.get("cpu family", "?"), info.get("model", "?")
    return f"{name} (family {family}, model {model}; {vector})"


def machine() -> dict:
    """CPU model, cores, OS, library versions and the git commit of this run."""
    cpu = _cpu()
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=False, cwd=Path(__file__).parent).stdout.strip()
    except OSError:
        commit = ""
    import jax

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "devices": [f"{d} ({d.device_kind})" for d in jax.devices()],
        "versions": {m: _version(m) for m in ("numpy", "jax", "jaxlib", "numba", "torch",
                                              "elena_jax", "tensorflow", "tvm", "cupy")},
        "commit": commit,
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def _ratio(row: dict, a: str, b: str, key: str = "median_s") -> float | None:
    ra, rb = row["results"].get(a, {}), row["results"].get(b, {})
    if ra.get("status") != "ok" or rb.get("status") != "ok" or not ra.get(key) or not rb.get(key):
        return None
    return ra[key] / rb[key]


def speedup(row: dict, peer: str) -> float | None:
    """NumPy's median time over the peer's, or None when either did not run."""
    return _ratio(row, "numpy", peer)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g}"


def _bytes(n: int | None) -> str:
    if n is None:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return "-"


def _cell(row: dict, peer: str) -> str:
    r = row["results"].get(peer)
    if r is None:
        return ""
    if r.get("status") != "ok":
        return r.get("status", "-")
    s = speedup(row, peer)
    return _ms(r["median_s"]) + (f" ({s:.2g}x)" if s is not None and peer != "numpy" else "")


def targets(rows: list[dict], device: str = "cpu") -> list[str]:
    """elena_jax against the optimization targets: time over jax_at (<= 1.0) and over jax_best
    (<= 1.1), speed-up over NumPy at the largest size (>= 2 on the CPU; >= 20 on a GPU, against
    NumPy on the CPU), peak memory over jax_best (<= 1.2). Beside them, not a target of its own:
    time over the fastest hand form whose results are as close to NumPy's as elena_jax's (see
    `_as_exact`), which tells a miss that is the price of NumPy's rounding from one that is not."""
    largest = max(r["n"] for r in rows)
    goal = 20 if device == "gpu" else 2
    checks = {"time / jax_at <= 1.0": [], "time / jax_best <= 1.1": [],
              f"speed-up over NumPy >= {goal} at n = {largest}": [], "memory / jax_best <= 1.2": []}
    out = ["", "## Against the targets", "",
           "Ratios of elena_jax (passes on) to its peers in this run: time over idiomatic `.at[]` "
           "JAX and over the best hand restructuring, the speed-up over NumPy, and peak memory "
           "over the best restructuring's; then the share of float results that are not NumPy's "
           "bit for bit (within the check's tolerance), of elena_jax and of the best restructuring, "
           "and time over the fastest hand form (`.at[]` or a restructuring) with no larger share "
           "than elena_jax's (`as exact`: `-` where none is, or where elena_jax failed).", "",
           "| case | n | time / jax_at | time / jax_best | speed-up | memory / jax_best "
           "| elena_jax ≠ NumPy | jax_best ≠ NumPy | time / as exact |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    as_exact = []
    for row in rows:
        at, best = _ratio(row, "elena_jax", "jax_at"), _ratio(row, "elena_jax", "jax_best")
        up, mem = speedup(row, "elena_jax"), _ratio(row, "elena_jax", "jax_best", "peak_bytes")
        for key, value, ok in zip(checks, (at, best, up, mem),
                                  (lambda x: x <= 1.0, lambda x: x <= 1.1, lambda x: x >= goal,
                                   lambda x: x <= 1.2)):
            if value is not None and (row["n"] == largest or "NumPy" not in key):
                checks[key].append(ok(value))
        cells = ["-" if x is None else f"{x:.2f}" for x in (at, best, up, mem)]
        cells += [_share(row["results"].get(p, {}).get("off_numpy")) for p in ("elena_jax", "jax_best")]
        exact = _as_exact(row)
        if exact is not None:
            as_exact.append(exact <= 1.1)
        cells.append("-" if exact is None else f"{exact:.2f}")
        out.append(f"| {row['case']} | {row['n']} | " + " | ".join(cells) + " |")
    out += ["", "Met: " + "; ".join(f"{key}: {sum(v)} of {len(v)}" for key, v in checks.items()) + ".",
            "", f"Beside the targets: time / as exact <= 1.1: {sum(as_exact)} of {len(as_exact)}."]
    return out


def device_times(rows: list[dict]) -> list[str]:
    """The rows timed with ``--pipelined``: each JAX peer's device time per call (calls issued
    back to back, waited for once), and elena_jax's over jax_at's and over the fastest
    restructuring's by that time (the same targets, 1.0 and 1.1)."""
    rows = [r for r in rows if "pipelined_s" in r["results"].get("elena_jax", {})]
    if not rows:
        return []
    out = ["", "## Device time per call", "",
           "Calls issued back to back and waited for once (`--pipelined`: the best of 5 rounds of 50, "
           "the peers taking turns), in ms: the device's own time per call where it exceeds a call's "
           "dispatch, without the wait for each result that the medians above include.", "",
           "| case | n | elena_jax | elena_jax_noopt | jax_at | fastest form | time / jax_at | "
           "time / fastest form |", "|---|---:|---:|---:|---:|---|---:|---:|"]
    met = {"time / jax_at <= 1.0": [], "time / fastest form <= 1.1": []}
    for row in rows:
        res = row["results"]
        t = {k: r["pipelined_s"] for k, r in res.items() if "pipelined_s" in r and k != "jax_best"}
        forms = [k for k in t if k.startswith("jax:")]
        best = min(forms, key=t.get) if forms else None
        at = t["elena_jax"] / t["jax_at"] if "jax_at" in t else None
        fastest = t["elena_jax"] / t[best] if best else None
        for key, value, limit in zip(met, (at, fastest), (1.0, 1.1)):
            if value is not None:
                met[key].append(value <= limit)
        cells = [_ms(t[p]) if p in t else "-" for p in ("elena_jax", "elena_jax_noopt", "jax_at")]
        cells += [f"{_ms(t[best])} ({best})" if best else "-"]
        cells += ["-" if x is None else f"{x:.2f}" for x in (at, fastest)]
        out.append(f"| {row['case']} | {row['n']} | " + " | ".join(cells) + " |")
    out += ["", "Met by device time: " + "; ".join(f"{k}: {sum(v)} of {len(v)}" for k, v in met.items()) + "."]
    return out


def _as_exact(row: dict) -> float | None:
    """elena_jax's time over the fastest hand-written JAX form (``jax_at`` or a ``jax:``
    restructuring) whose share of results off NumPy's is at most elena_jax's (no share: no float
    results, each compared exactly)."""
    results = row["results"]
    own = results.get("elena_jax", {})
    if own.get("status") != "ok":
        return None
    times = [r["median_s"] for name, r in results.items()
             if (name == "jax_at" or name.startswith("jax:")) and r.get("status") == "ok"
             and (r.get("off_numpy") or 0) <= (own.get("off_numpy") or 0)]
    return own["median_s"] / min(times) if times else None


def _share(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%" if x >= 0.005 or x == 0 else f"{100 * x:.1f}%"


def markdown(report: dict) -> str:
    """The report as markdown: times and speed-ups, HLO and memory, all forms, failures."""
    m = report["machine"]
    v = ", ".join(f"{k} {ver}" for k, ver in m["versions"].items() if ver)
    out = [f"# elena_jax benchmark ({m['date']})", "",
           f"- Command: `{report['command']}`",
           f"- Machine: {m['cpu']}, {m['cores']} cores, {m['os']}, Python {m['python']}",
           f"- Devices: {', '.join(m['devices'])}; versions: {v}; commit {m['commit']}"
           # NB: a note added to a result file by hand (a device whose copy of .git was stale)
           + (f" ({m['commit_note']})" if m.get("commit_note") else ""),
           f"- Load average (1, 5, 15 min) when the run ended: {m.get('load_average')}", "",
           "## Time per call", "",
           "Median of the timed calls in ms, and the speed-up over NumPy eager in parentheses. "
           "`elena_jax`, `elena_jax_noopt` (passes off) and the JAX peers run jitted on device "
           "arrays; `elena_jax_numpy_io` is the functionalized call on NumPy arrays (transfers "
           "and write-back included); `jax_best` is the fastest hand restructuring.", "",
           "| case | n | " + " | ".join(TABLE_PEERS) + " |",
           "|---|---:|" + "---:|" * len(TABLE_PEERS)]
    rows = report["rows"]
    for row in rows:
        out.append(f"| {row['case']} | {row['n']} | "
                   + " | ".join(_cell(row, p) for p in TABLE_PEERS) + " |")
    out += targets(rows, report.get("device", "cpu"))
    out += device_times(rows)
    out += ["", "## Compiled programs and memory", "",
            "Scatter/gather instructions in the compiled HLO, and peak memory: XLA's memory "
            "analysis (arguments + outputs + temporaries) for JAX peers; for NumPy the inputs "
            "plus tracemalloc's peak during the call. First call: trace and compile included.", "",
            "| case | n | sc/ga elena_jax | sc/ga noopt | sc/ga jax_at | sc/ga jax_best | "
            + " | ".join(f"mem {p}" for p in MEMORY_PEERS)
            + " | first call elena_jax (ms) | first call jax_at (ms) |",
            "|---|---:|" + "---:|" * (6 + len(MEMORY_PEERS))]
    for row in rows:
        res = row["results"]

        def hlo(p: str, res: dict = res) -> str:
            r = res.get(p, {})
            return f"{r['scatter']}/{r['gather']}" if "scatter" in r else "-"

        def first(p: str, res: dict = res) -> str:
            r = res.get(p, {})
            return _ms(r["first_call_s"]) if r.get("status") == "ok" else "-"

        mems = [_bytes(res.get(p, {}).get("peak_bytes")) for p in MEMORY_PEERS]
        out.append(f"| {row['case']} | {row['n']} | "
                   + " | ".join(hlo(p) for p in HLO_PEERS)
                   + " | " + " | ".join(mems) + f" | {first('elena_jax')} | {first('jax_at')} |")
    out += ["", "## Every JAX form", "",
            "Median ms (q1-q3) of each hand restructuring and extra peer; the fastest "
            "restructuring is `jax_best`.",
            "", "| case | n | form | median | q1-q3 | sc/ga |", "|---|---:|---|---:|---|---:|"]
    for row in rows:
        for name, r in row["results"].items():
            if (name.startswith("jax:") or name not in TABLE_PEERS) and r.get("status") == "ok" \
                    and "scatter" in r and name != "jax_best":
                out.append(f"| {row['case']} | {row['n']} | {name} | {_ms(r['median_s'])} | "
                           f"{_ms(r['q1_s'])}-{_ms(r['q3_s'])} | {r['scatter']}/{r['gather']} |")
    out += ["", "## Failures and skips", "",
            "Grouped by peer and message; the cases (and sizes, where not all) it applies to.", ""]
    groups: dict[tuple[str, str, str], dict[str, list[int]]] = {}
    for row in rows:
        for name, r in row["results"].items():
            if r.get("status") != "ok":
                key = (name, r.get("status", ""), r.get("error", ""))
                groups.setdefault(key, {}).setdefault(row["case"], []).append(row["n"])
    all_sizes = sorted({r["n"] for r in rows})
    for (name, status, error), cases in groups.items():
        where = ", ".join(c if sorted(ns) == all_sizes else f"{c} (n = {', '.join(map(str, ns))})"
                          for c, ns in cases.items())
        out.append(f"- `{name}` {status} on {where}: {error}")
    return "\n".join(out) + "\n"


def plots(report: dict, stem: Path) -> list[str]:
    """Speed-up bars per case and size, and time against size (log-log) per case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = report["rows"]
    cases = list(dict.fromkeys(r["case"] for r in rows))
    sizes = sorted({r["n"] for r in rows})
    peers = [p for p in PLOT_PEERS if any(p in r["results"] for r in rows)]
    written = []

    fig, axes = plt.subplots(len(sizes), 1, figsize=(max(9, len(cases) * 0.9), 3.4 * len(sizes)),
                             squeeze=False)
    width = 0.8 / max(1, len(peers))
    for ax, n in zip(axes[:, 0], sizes):
        for k, p in enumerate(peers):
            vals = [next((speedup(r, p) or 0.0 for r in rows
                          if r["case"] == c and r["n"] == n), 0.0) for c in cases]
            ax.bar(np.arange(len(cases)) + k * width, vals, width, label=p)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_yscale("log")
        ax.set_xticks(np.arange(len(cases)) + 0.4 - width / 2, cases, rotation=30, ha="right",
                      fontsize=8)
        ax.set_ylabel("speed-up over NumPy")
        ax.set_title(f"n = {n:g} (bars missing: peer failed or skipped)", fontsize=9)
    axes[0, 0].legend(fontsize=7, ncol=len(peers))
    fig.tight_layout()
    path = stem.with_name(stem.name + "_speedup.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    written.append(str(path))

    cols = 4
    nrows = -(-len(cases) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(15, 3.1 * nrows), squeeze=False)
    for ax, c in zip(axes.flat, cases):
        for p in ("numpy", *peers):
            pts = [(r["n"], r["results"][p]["median_s"]) for r in rows
                   if r["case"] == c and r["results"].get(p, {}).get("status") == "ok"]
            if pts:
                ax.loglog(*zip(*pts), marker="o", ms=3, label=p)
        ax.set_title(c, fontsize=9)
        ax.set_xlabel("n")
        ax.set_ylabel("median time (s)")
    axes.flat[0].legend(fontsize=6)
    for ax in list(axes.flat)[len(cases):]:
        ax.axis("off")
    fig.tight_layout()
    path = stem.with_name(stem.name + "_time_vs_size.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    written.append(str(path))
    return written



def save_json(report: dict, out: Path) -> str:
    """The JSON report written at ``out``; its text."""
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(report, indent=1) + "\n"
    out.write_text(text)
    return text


def write(report: dict, out: Path) -> list[str]:
    """The JSON report at ``out``, with its markdown report and plots beside it; their paths."""
    return render(json.loads(save_json(report, out)), out)  # NB: rendered as `--report` renders the file


def render(report: dict, out: Path) -> list[str]:
    """The markdown report and plots of the JSON report at ``out``, (re)written; all paths."""
    stem = out.with_suffix("")
    stem.with_suffix(".md").write_text(markdown(report))
    return [str(out), str(stem.with_suffix(".md")), *plots(report, stem)]
