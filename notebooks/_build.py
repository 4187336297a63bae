"""Build the notebooks from the cells below and execute them (outputs saved).

Run: ``python notebooks/_build.py`` (size from ELENA_NB_SIZE, default 200000).
The test suite executes the committed notebooks at a small size.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).parent



def setup(imports: str, timing: bool = False) -> str:
    """A notebook's first code cell: its own imports (so ruff finds none unused), the size N, and
    with ``timing`` the ``median_ms`` helper."""
    cell = "%matplotlib inline\n" + imports + '\nN = int(os.environ.get("ELENA_NB_SIZE", "200000"))\n'
    if timing:
        cell += '''

def median_ms(f, *args, repeats=20):
    jax.block_until_ready(f(*args))
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        jax.block_until_ready(f(*args))
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times))
'''
    return cell


TOUR = [
    ("md", "# A tour of elena_jax\n\nImperative NumPy with views and in-place writes, turned into one pure, "
           "compiled JAX program. We take a box decoder written the way detection code is written: strided "
           "column views, a fresh output filled view by view, and in-place clamps."),
    ("code", setup("""\
import os
import time

import jax
import matplotlib.pyplot as plt
import numpy as np

import elena_jax
""", timing=True)),
    ("code", '''def decode(rois, deltas, max_h=800, max_w=1333):
    px = (rois[:, 0] + rois[:, 2]) * 0.5
    py = (rois[:, 1] + rois[:, 3]) * 0.5
    pw = rois[:, 2] - rois[:, 0]
    ph = rois[:, 3] - rois[:, 1]
    gw = pw[:, None] * np.exp(np.clip(deltas[:, 2::4], -4, 4))
    gh = ph[:, None] * np.exp(np.clip(deltas[:, 3::4], -4, 4))
    gx = px[:, None] + pw[:, None] * deltas[:, 0::4]
    gy = py[:, None] + ph[:, None] * deltas[:, 1::4]
    out = np.empty_like(deltas)
    out[:, 0::4] = gx - gw * 0.5
    out[:, 1::4] = gy - gh * 0.5
    out[:, 2::4] = gx + gw * 0.5
    out[:, 3::4] = gy + gh * 0.5
    np.clip(out[:, 0::2], 0, max_w, out=out[:, 0::2])
    np.clip(out[:, 1::2], 0, max_h, out=out[:, 1::2])
    return out

rng = np.random.default_rng(0)
rois = rng.uniform(0, 600, (N, 4))
rois[:, 2:] += rois[:, :2]
deltas = rng.normal(scale=0.5, size=(N, 4))
fast = elena_jax.functionalize(decode)
got = fast(rois, deltas)
print(type(got).__name__, got.dtype, got.shape)
print("equal to NumPy:", np.allclose(got, decode(rois, deltas), rtol=1e-12, atol=1e-9))'''),
    ("md", "## The jaxpr\n\nThe pure program is made of ordinary `lax` operations: slices for the reads, "
           "and, after the optimization passes, one select per column lane for the strided writes — no "
           "scatter, no gather."),
    ("code", '''jaxpr = elena_jax.make_jaxpr(decode)(rois[:3], deltas[:3])
text = str(jaxpr)
print({p: text.count(p) for p in ("scatter", "gather", "select_n", "dynamic_update_slice")})
print(text)
'''),
    ("md", "## The side-table\n\n`explain` shows what the interpreter recorded: the storages, every view "
           "(shape, strides in elements, offset), every operation with the views it read and wrote and the "
           "line of code that did it, the dependence edges, which passes fired, and the program after them."),
    ("code", '''e = elena_jax.explain(decode)(rois[:3], deltas[:3])
print(str(e)[:6000])'''),
    ("md", "## The operation DAG\n\nNodes are the recorded operations in program order; edges are the "
           "dependences from the side-table: RAW (read after write), WAR and WAW. The four strided writes into "
           "`out` do not depend on each other: their views are disjoint."),
    ("code", '''ops, edges = e.before.ops, e.edges
colors = {"RAW": "tab:blue", "WAR": "tab:orange", "WAW": "tab:red"}
fig, ax = plt.subplots(figsize=(12, 4))
xs = np.arange(len(ops))
ax.scatter(xs, np.zeros_like(xs), s=60, color="k", zorder=3)
for i, op in enumerate(ops):
    label = op.params.get("name", op.prim)
    ax.annotate(label, (i, 0), xytext=(0, -14), textcoords="offset points", rotation=60, ha="right", fontsize=7)
for edge in edges:
    mid, h = (edge.src + edge.dst) / 2, (edge.dst - edge.src) / 2
    t = np.linspace(0, np.pi, 30)
    ax.plot(mid - h * np.cos(t), 0.15 * h * np.sin(t), color=colors[edge.kind], lw=1)
for kind, c in colors.items():
    ax.plot([], [], color=c, label=kind)
ax.legend()
ax.set_yticks([])
ax.set_title("operation DAG of decode (arcs: dependences)")
plt.show()'''),
    ("md", "## The effect of the passes\n\n`optimize=False` is the unoptimized baseline: every write is a "
           "`dynamic_update_slice` (or masked select) on the storage. The passes coalesce the strided writes "
           "into one update, forward values to the reads that follow, and drop the dead initialisation."),
    ("code", '''before, after = len(e.before.ops), len(e.program.ops)
print(f"ops before: {before}, after: {after}; passes fired: {e.program.fired}")


def jitted(optimize):
    pure = elena_jax.pure(decode, optimize=optimize)
    return jax.jit(lambda a, b: pure(a, b)[0])


with jax.enable_x64(True):
    r, d = jax.device_put(rois), jax.device_put(deltas)
    times = {name: median_ms(jitted(o), r, d) for name, o in (("optimize=False", False), ("optimize=True", True))}
times["NumPy"] = median_ms(decode, rois, deltas)
plt.bar(list(times), list(times.values()))
plt.ylabel("ms per call")
plt.title(f"decode, N={N}")
plt.show()
times'''),
]

COMPARISON = [
    ("md", "# elena_jax against its peers\n\nResults of `python -m bench` (the committed run under "
           "`bench/results/`): for every case and size, the speed-up over NumPy eager of elena_jax with and "
           "without the passes, idiomatic JAX with `.at[].set()`, the best hand-restructured JAX and "
           "`numba.njit`."),
    ("code", setup("""\
import glob
import json
import os

import matplotlib.pyplot as plt
import numpy as np
""")),
    ("code", '''results = os.environ.get("ELENA_BENCH_DIR", "../bench/results")
paths = sorted(glob.glob(os.path.join(results, "*_cpu.json")))
report = json.load(open(paths[-1])) if paths else None
print(paths[-1] if paths else "no results: run python -m bench")'''),
    ("code", '''peers = ["elena_jax", "elena_jax_noopt", "jax_at", "jax_best", "numba"]
def speedup(row, p):
    r, b = row["results"].get(p, {}), row["results"]["numpy"]
    return b["median_s"] / r["median_s"] if r.get("status") == "ok" and b.get("status") == "ok" else np.nan
rows = report["rows"] if report else []
n_max = max((r["n"] for r in rows), default=0)
big = [r for r in rows if r["n"] == n_max]
cases = [r["case"] for r in big]
fig, ax = plt.subplots(figsize=(12, 4))
for k, p in enumerate(peers):
    ax.bar(np.arange(len(cases)) + 0.16 * k, [speedup(r, p) for r in big], 0.16, label=p)
ax.axhline(1, color="k", lw=0.8)
ax.set_yscale("log")
ax.set_ylabel("speed-up over NumPy")
ax.set_xticks(np.arange(len(cases)) + 0.32, cases, rotation=30, ha="right")
ax.legend(fontsize=8)
ax.set_title(f"n = {n_max}")
plt.tight_layout()
plt.show()'''),
    ("code", '''def ok(res, p):
    return res.get(p, {}).get("status") == "ok"


print(f"{'case':20s} {'ej/numpy':>9s} {'ej/at':>7s} {'ej/best':>8s}")
for r in big:
    res = r["results"]
    ej = res["elena_jax"]["median_s"] if ok(res, "elena_jax") else np.nan
    at = ej / res["jax_at"]["median_s"] if ok(res, "jax_at") else np.nan
    best = ej / res["jax_best"]["median_s"] if ok(res, "jax_best") else np.nan
    print(f"{r['case']:20s} {speedup(r, 'elena_jax'):9.2f} {at:7.2f} {best:8.2f}")'''),
    ("md", "## Where elena_jax wins and where it loses\n\nRead the table above (ratios below 1 mean elena_jax "
           "is faster). The pattern in the committed run: elena_jax beats idiomatic `.at[].set()` code wherever "
           "that code keeps scatters or chains of updates (the strided box decoders), because the passes "
           "forward every column read to the value that wrote it and place all columns with one select or "
           "one fused set of update slices, never a scatter. It still loses to the best hand restructuring "
           "where the person computes differently, not just lays the writes out differently: one "
           "vectorized expression over all four lanes of an (N, 4) array (`delta2bbox`, `tblr2bbox`, "
           "`normalize_channels`), a padded array instead of shifted views (`box_blur`), a mask over the "
           "whole grid instead of an interior write (`jacobi`); and on tiny inputs, where the call overhead "
           "of any JAX program exceeds NumPy's time. "
           "Code with data-dependent Python control flow (greedy NMS) "
           "is refused with a clear error; its place is the Numba kernel path."),
]

PIPELINES = [
    ("md", "# Imperative NumPy inside JAX pipelines\n\n`elena_jax.pure(f)` is a pure JAX function "
           "`g(*args) -> (result, new_args)`: `jax.grad`, `jax.vmap` and `jax.jit` apply to it. Here we fit "
           "box-regression deltas by gradient descent *through an in-place box decoder*."),
    ("code", setup("""\
import os

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np

import elena_jax
""")),
    ("code", '''def decode(rois, deltas):
    w = rois[:, 2] - rois[:, 0]
    h = rois[:, 3] - rois[:, 1]
    boxes = rois.copy()
    boxes[:, 0::2] += deltas[:, 0::2] * w[:, None]   # in-place writes through strided views
    boxes[:, 1::2] += deltas[:, 1::2] * h[:, None]
    return boxes

n = max(8, N // 1000)
rng = np.random.default_rng(0)
rois = rng.uniform(0, 100, (n, 4))
rois[:, 2:] += rois[:, :2] + 10
target = rois + rng.normal(scale=5, size=rois.shape)
g = elena_jax.pure(decode)
# the loss is quadratic in the deltas: scale the step by each coordinate's curvature
sizes = np.stack([rois[:, 2] - rois[:, 0], rois[:, 3] - rois[:, 1]] * 2, axis=1)
step_size = 0.5 * (2 * n) / sizes ** 2  # half a Newton step: 1/2 of (4n / 2) / size^2

with jax.enable_x64(True):
    loss = jax.jit(lambda d: jnp.mean((g(rois, d)[0] - target) ** 2))
    grad = jax.jit(jax.grad(lambda d: jnp.mean((g(rois, d)[0] - target) ** 2)))
    d = jnp.zeros((n, 4))
    history = []
    for _ in range(40):
        history.append(float(loss(d)))
        d = d - step_size * grad(d)
print(f"loss {history[0]:.2f} -> {history[-1]:.4f}")
plt.semilogy(history)
plt.xlabel("step")
plt.ylabel("mean squared error")
plt.title("fitting deltas through an in-place decoder")
plt.show()'''),
    ("md", "## `jax.vmap` over a batch, checked against a Python loop over NumPy"),
    ("code", '''batch = rng.normal(scale=0.1, size=(5, n, 4))
with jax.enable_x64(True):
    batched = jax.vmap(lambda d: g(rois, d)[0])(batch)
loop = np.stack([decode(rois, d) for d in batch])
print("vmap equals the NumPy loop:", np.allclose(batched, loop, rtol=1e-12), batched.shape)'''),
    ("md", "## `jax.jit` of a pipeline stage with the updated arguments\n\n`pure` also returns the "
           "arguments after the call: the in-place update is a value you can keep using."),
    ("code", '''def normalize_(img, mean, std):
    img -= mean
    img /= std
    return img.mean()

stage = jax.jit(elena_jax.pure(normalize_))
with jax.enable_x64(True):
    img = jnp.asarray(rng.uniform(0, 255, (64, 64)))
    m, (img2, _, _) = stage(img, 127.5, 64.0)
    print(float(m), img2.dtype, float(img2.std()))'''),
]

NOTEBOOKS = {"01_tour.ipynb": TOUR, "02_comparison.ipynb": COMPARISON, "03_jax_pipelines.ipynb": PIPELINES}


def build(name: str, cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell(src) if kind == "md" else nbformat.v4.new_code_cell(src)
                for kind, src in cells]
    return nb


def execute(nb: nbformat.NotebookNode, timeout: int = 300) -> nbformat.NotebookNode:
    NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}).execute()
    return nb


def main() -> None:
    names = sys.argv[1:] or list(NOTEBOOKS)
    for name in names:
        nb = execute(build(name, NOTEBOOKS[name]))
        nbformat.write(nb, HERE / name)
        print("wrote", HERE / name)


if __name__ == "__main__":
    os.environ.setdefault("ELENA_NB_SIZE", "200000")
    main()
