"""Running one case at one size: every peer checked against NumPy, then timed.

Peers (names as they appear in the results):

- ``numpy``: the case's NumPy function, eagerly (the reference);
- ``elena_jax`` / ``elena_jax_noopt``: ``elena_jax.pure(numpy_fn)`` with the
  passes on / off, jitted, on device arrays (what a JAX pipeline calls);
- ``elena_jax_numpy_io``: ``elena_jax.functionalize(numpy_fn)`` called on NumPy
  arrays (transfers and the write-back of mutated inputs included);
- ``jax_at``, ``jax:<form>`` (each hand restructuring), extra JAX peers of a
  case, and ``jax_best`` (the fastest restructuring), jitted on device arrays;
- ``numba``: ``numba.njit`` of the same NumPy function;
- ``torch`` / ``torch_compile``: the case's PyTorch version, eager and compiled;
- ``tensorflow``, ``tvm``, ``cupy``: recorded as skipped with the reason.

Timing: each peer's first call is timed alone (trace and compile included);
the later calls are timed in rounds, one call of every peer per round, so
that a shared machine's load falls on all peers alike.

Invariant: a peer is timed only after its first result equals NumPy's
(``np.testing.assert_allclose`` with a tight ``rtol`` for floats, exact for
integers and booleans; for peers that mutate NumPy inputs, the inputs after
the call too). A mismatch or an exception is recorded with its message, and
the run goes on.
"""

from __future__ import annotations

import copy
import importlib.util
import random
import re
import time
import traceback
import tracemalloc
from collections.abc import Callable, Iterable
from typing import Any

import jax
import numpy as np

from .cases import Case

try:  # the core may be broken or absent while it is being written
    import elena_jax

    ELENA_IMPORT_ERROR: str | None = None
except Exception as exc:  # noqa: BLE001 - any import failure is recorded, not raised
    elena_jax = None
    ELENA_IMPORT_ERROR = f"import elena_jax failed: {type(exc).__name__}: {exc}"

try:
    import torch
except ImportError:
    torch = None

#: Every peer the harness knows, in report order.
PEERS = (
    "numpy",
    "elena_jax",
    "elena_jax_noopt",
    "elena_jax_numpy_io",
    "jax_at",
    "jax",
    "numba",
    "torch",
    "torch_compile",
    "tensorflow",
    "tvm",
    "cupy",
)
WARMUP = 2
#: Intra-op threads of the torch peers. NumPy and Numba run on one thread; on a small shared
#: machine torch's second OpenMP thread also made calls bimodal (0.1 ms or 8 ms, the wake-up of a
#: descheduled worker), so torch runs on one thread too. JAX keeps XLA's default thread pool.
TORCH_THREADS = 1
_HLO_OP = re.compile(r"\s(scatter|gather)\(")


class Mismatch(AssertionError):
    """A peer's result differs from NumPy's."""


def reason(exc: BaseException, limit: int = 400) -> str:
    """A one-paragraph account of an exception: its type and first meaningful lines."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    text = f"{type(exc).__name__}: " + " | ".join(lines[:4])
    return text if len(text) <= limit else text[: limit - 3] + "..."


def to_numpy(x: Any) -> np.ndarray:
    """A NumPy copy of a NumPy, JAX or torch array."""
    if torch is not None and isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def leaves(x: Any) -> list:
    """The arrays of a result: tuples and lists are flattened, anything else is one leaf."""
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in leaves(item)]
    return [x]


def check(got: Any, want: Any, what: str, strict_dtype: bool = False) -> tuple[int, int]:
    """Raise `Mismatch` unless ``got`` equals ``want`` (NumPy's result); returns how many float
    elements differ from NumPy's in their bits (within the tolerance) and how many there are."""
    off = total = 0
    got_l, want_l = leaves(got), leaves(want)
    if len(got_l) != len(want_l):
        raise Mismatch(f"{what}: {len(got_l)} results, NumPy gives {len(want_l)}")
    for i, (g, w) in enumerate(zip(got_l, want_l)):
        g, w = to_numpy(g), np.asarray(w)
        where = f"{what} result {i}"
        if g.shape != w.shape:
            raise Mismatch(f"{where}: shape {g.shape}, NumPy {w.shape}")
        if strict_dtype and g.dtype != w.dtype:
            raise Mismatch(f"{where}: dtype {g.dtype}, NumPy {w.dtype}")
        try:
            if np.issubdtype(w.dtype, np.inexact):
                rtol = 1e-9 if w.dtype.itemsize >= 8 else 1e-5
                scale = float(np.nanmax(np.abs(w))) if w.size else 1.0
                np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * 1e-3 * max(scale, 1.0))
                off += int(np.count_nonzero((g != w) & ~(np.isnan(g) & np.isnan(w))))
                total += w.size
            else:
                np.testing.assert_array_equal(g.astype(w.dtype), w)
        except AssertionError as e:
            detail = [ln.strip() for ln in str(e).splitlines() if ln.strip()][:3]
            raise Mismatch(f"{where}: " + " | ".join(detail)) from None
    return off, total


def split_args(args: tuple) -> tuple[list[np.ndarray], Callable[[Callable], Callable]]:
    """(the NumPy array arguments, a binder that calls a function with the others put back)."""
    static = {i: a for i, a in enumerate(args) if not isinstance(a, np.ndarray)}
    arrays = [a for a in args if isinstance(a, np.ndarray)]

    def bind(fn: Callable) -> Callable:
        def call(*arrs):
            it = iter(arrs)
            return fn(*[static[i] if i in static else next(it) for i in range(len(args))])

        return call

    return arrays, bind


def stats(times: Iterable[float]) -> dict:
    t = np.asarray(list(times))
    q1, med, q3 = np.percentile(t, [25, 50, 75])
    return {"median_s": float(med), "q1_s": float(q1), "q3_s": float(q3),
            "min_s": float(t.min()), "max_s": float(t.max()), "repeats": int(t.size)}


def prepare(call: Callable, make_args: Callable[[], list], verify: Callable[[Any, list], None],
            sync: Callable[[Any], Any] = lambda x: x) -> dict:
    """Time the first call (trace and compile included) and verify its result; returns the
    record with a ``step`` that times one more call. ``make_args`` runs outside the timed
    region (fresh copies for code that mutates its inputs)."""
    args = make_args()
    t0 = time.perf_counter()
    out = sync(call(*args))
    first = time.perf_counter() - t0
    extra = verify(out, args)

    def step() -> float:
        args = make_args()
        t0 = time.perf_counter()
        sync(call(*args))
        return time.perf_counter() - t0

    return {"status": "ok", "first_call_s": first, "step": step, **extra}


def time_interleaved(records: dict[str, dict], repeats: int) -> None:
    """Replace each record's ``step`` by the statistics of ``repeats`` timed calls.

    The peers take turns, one call each per round, so that the load of a shared machine
    falls on all of them alike and their ratios stay meaningful. The order is shuffled in every
    round (seeded): the peer right after NumPy or torch finds XLA's worker threads asleep
    (delta2bbox's lanes form at n = 1e4: 0.33 ms right after NumPy, 0.24 ms after another JAX
    call), and in a fixed order that peer was always elena_jax."""
    live = {k: r for k, r in records.items() if "step" in r}
    times: dict[str, list[float]] = {k: [] for k in live}
    shuffle = random.Random(0).shuffle
    for round_ in range(WARMUP + repeats):
        names = list(live)
        shuffle(names)
        for name in names:
            rec = live[name]
            try:
                t = rec["step"]()
            except Exception as e:  # noqa: BLE001 - a later call failed: record it
                records[name] = {"status": "failed", "error": reason(e)}
                del live[name]
                continue
            if round_ >= WARMUP:
                times[name].append(t)
    for name, rec in live.items():
        del rec["step"]
        rec.update(stats(times[name]))


PIPELINED_CALLS, PIPELINED_ROUNDS = 50, 5


def time_pipelined(issue: dict[str, Callable[[], Any]], rounds: int = PIPELINED_ROUNDS,
                   calls: int = PIPELINED_CALLS) -> dict[str, float]:
    """Per peer, the best over ``rounds`` (the peers taking turns) of the mean time of ``calls``
    calls issued back to back and waited for once: the device's own time per call wherever it
    exceeds a call's dispatch, without the wait for each result that the median includes (on a
    GPU, rows of 0.07-0.2 ms are mostly that wait: two H200 machines of one hour gave the same
    programs median ratios of 1.31 and 1.08, bench/results/20261128_gpu.md and 20261128b_gpu.md).
    A peer whose calls fail here is left out of the result."""
    best = dict.fromkeys(issue, float("inf"))
    for _ in range(rounds):
        for name in list(best):
            try:
                jax.block_until_ready(issue[name]())
                t0 = time.perf_counter()
                for _ in range(calls):
                    out = issue[name]()
                jax.block_until_ready(out)
            except Exception:  # noqa: BLE001 - a peer that fails now (out of memory, say) is left out
                del best[name]
                continue
            best[name] = min(best[name], (time.perf_counter() - t0) / calls)
    return best


def hlo_stats(jitted: Any, args: list) -> dict:
    """Scatter and gather instructions of the compiled program, and XLA's memory estimate."""
    compiled = jitted.lower(*args).compile()
    ops = _HLO_OP.findall(compiled.as_text())
    out: dict = {"scatter": ops.count("scatter"), "gather": ops.count("gather")}
    try:
        mem = compiled.memory_analysis()
        out["peak_bytes"] = int(mem.temp_size_in_bytes + mem.output_size_in_bytes
                                + mem.argument_size_in_bytes)
    except Exception:  # noqa: BLE001 - not every backend reports it
        out["peak_bytes"] = None
    return out


def optional_peer_reason(name: str) -> str:
    """Why an optional framework peer is not run."""
    if importlib.util.find_spec(name) is None:
        return "not installed"
    return "installed, but no versions of the cases are written for it"


class CaseRun:
    """One case at one size: the inputs, NumPy's reference result, and the peers' records."""

    def __init__(self, case: Case, n: int, repeats: int, peers: set[str], device: str = "cpu",
                 skip: dict[str, str] | None = None, progress: Callable[[str], None] | None = None,
                 pipelined: bool = False):
        self.case, self.n, self.repeats, self.peers = case, n, repeats, peers
        self.device, self.pipelined = device, pipelined
        self.skip = dict(skip or {})
        self.progress = progress or (lambda name: None)
        self.args = case.inputs(n)
        self.arrays, self.bind = split_args(self.args)
        with np.errstate(all="ignore"):
            self.after = copy.deepcopy(self.args)
            self.want = case.numpy_fn(*self.after)  # self.after: the inputs as NumPy leaves them
        self.results: dict[str, dict] = {}

    # -- bookkeeping ------------------------------------------------------------------------------
    def fresh(self) -> list[np.ndarray]:
        return [a.copy() for a in self.arrays]

    def verifier(self, what: str, strict_dtype: bool = False, inputs: bool = False) -> Callable:
        def verify(out: Any, args: list) -> dict:
            off, total = check(out, self.want, what, strict_dtype)
            if inputs:  # the peer mutated NumPy inputs: they must end as NumPy leaves them
                want_in = [a for a in self.after if isinstance(a, np.ndarray)]
                for k, (g, w) in enumerate(zip(args, want_in)):
                    check(g, w, f"{what} input {k} after the call", strict_dtype)
            # NB: the share of float results not NumPy's bit for bit (a hand form may divide by
            # a reciprocal or fuse a*b + c: faster, and as close as the tolerance allows)
            return {"off_numpy": off / total} if total else {}

        return verify

    def record(self, name: str, thunk: Callable[[], dict]) -> None:
        family = name.split(":")[0]
        if family not in self.peers and name not in self.peers:
            return
        if family in self.skip or name in self.skip:
            why = self.skip.get(name, self.skip.get(family))
            self.results[name] = {"status": "skipped", "error": why}
            return
        self.progress(name)
        try:
            self.results[name] = thunk()
        except Mismatch as e:
            self.results[name] = {"status": "mismatch", "error": str(e)[:400]}
        except Exception as e:  # noqa: BLE001 - a peer that cannot run this case: say why
            tail = traceback.format_exc().strip().splitlines()[-6:]
            self.results[name] = {"status": "failed", "error": reason(e), "traceback": tail}

    # -- peers ------------------------------------------------------------------------------------
    def numpy_peer(self) -> dict:
        call = self.bind(self.case.numpy_fn)
        with np.errstate(all="ignore"):
            tracemalloc.start()
            try:
                call(*self.fresh())
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            res = prepare(call, self.fresh, self.verifier("numpy"))
        step = res["step"]

        def quiet_step() -> float:
            with np.errstate(all="ignore"):
                return step()

        return {**res, "step": quiet_step,
                "peak_bytes": int(peak) + sum(a.nbytes for a in self.arrays)}

    def jax_peer(self, fn: Callable, what: str, strict_dtype: bool = False) -> dict:
        device = jax.devices("gpu")[0] if self.device == "gpu" else jax.devices("cpu")[0]
        dev_args = [jax.device_put(a, device) for a in self.arrays]
        jitted = jax.jit(self.bind(fn))
        res = prepare(jitted, lambda: dev_args, self.verifier(what, strict_dtype),
                      jax.block_until_ready)
        if self.pipelined:
            res["issue"] = lambda: jitted(*dev_args)
        return {**res, **hlo_stats(jitted, dev_args)}

    def elena_pure(self, optimize: bool) -> Callable:
        if elena_jax is None:
            raise RuntimeError(ELENA_IMPORT_ERROR)
        pure = elena_jax.pure(self.case.numpy_fn, optimize=optimize)
        return lambda *args: pure(*args)[0]

    def elena_numpy_io(self) -> dict:
        if elena_jax is None:
            raise RuntimeError(ELENA_IMPORT_ERROR)
        call = self.bind(elena_jax.functionalize(self.case.numpy_fn))
        return prepare(call, self.fresh,
                       self.verifier("elena_jax_numpy_io", strict_dtype=True, inputs=True),
                       jax.block_until_ready)

    def numba_peer(self) -> dict:
        import numba

        call = self.bind(numba.njit(cache=False)(self.case.numpy_fn))
        return {**prepare(call, self.fresh, self.verifier("numba", inputs=True)),
                "peak_bytes": None}

    def torch_peer(self, compiled: bool) -> dict:
        if torch is None:
            raise RuntimeError("torch is not importable")
        if self.case.torch_fn is None:
            raise RuntimeError("no torch version of this case")
        fn = self.case.torch_fn
        if compiled:
            torch._dynamo.reset()
            fn = torch.compile(fn, dynamic=False)
        dev = "cuda" if self.device == "gpu" else "cpu"
        sync = (lambda x: (torch.cuda.synchronize(), x)[1]) if dev == "cuda" else (lambda x: x)
        make = lambda: [torch.from_numpy(a.copy()).to(dev) for a in self.arrays]  # noqa: E731
        name = "torch_compile" if compiled else "torch"
        res = prepare(self.bind(fn), make, self.verifier(name), sync)
        return {**res, "peak_bytes": None, "threads": TORCH_THREADS}

    # -- the run ----------------------------------------------------------------------------------
    def run(self) -> dict:
        threads = torch.get_num_threads() if torch is not None else None
        if torch is not None:
            torch.set_num_threads(TORCH_THREADS)
        try:
            return self._run()
        finally:
            if torch is not None:
                torch.set_num_threads(threads)

    def _run(self) -> dict:
        case = self.case
        self.record("numpy", self.numpy_peer)
        with jax.enable_x64(True):
            self.record("elena_jax",
                        lambda: self.jax_peer(self.elena_pure(True), "elena_jax", True))
            self.record("elena_jax_noopt",
                        lambda: self.jax_peer(self.elena_pure(False), "elena_jax_noopt", True))
            self.record("elena_jax_numpy_io", self.elena_numpy_io)
            if case.jax_at is not None:
                self.record("jax_at", lambda: self.jax_peer(case.jax_at, "jax_at"))
            for key, fn in case.jax_restructured.items():
                self.record(f"jax:{key}", lambda fn=fn, key=key: self.jax_peer(fn, f"jax:{key}"))
            for key, fn in case.extra_jax.items():
                if "elena_jax" in self.peers:  # a case's extra peers run along with elena_jax
                    self.peers.add(key)
                self.record(key, lambda fn=fn, key=key: self.jax_peer(fn, key))
        self.record("numba", self.numba_peer)
        if torch is None:  # NB: an optional peer, as tensorflow's: skipped, not failed
            self.skip.update({name: "not installed" for name in ("torch", "torch_compile")})
        self.record("torch", lambda: self.torch_peer(compiled=False))
        self.record("torch_compile", lambda: self.torch_peer(compiled=True))
        self.progress("timing")
        with jax.enable_x64(True):
            time_interleaved(self.results, self.repeats)
            issued = {k: r.pop("issue") for k, r in self.results.items() if "issue" in r}
            for name, s in time_pipelined(issued).items():  # NB: nothing to time without --pipelined
                self.results[name]["pipelined_s"] = s
        for name in ("tensorflow", "tvm", "cupy"):
            if name in self.peers:
                self.results[name] = {"status": "skipped", "error": optional_peer_reason(name)}
        forms = [k for k, r in self.results.items() if k.startswith("jax:") and r["status"] == "ok"]
        if forms:
            best = min(forms, key=lambda k: self.results[k]["median_s"])
            self.results["jax_best"] = {**self.results[best], "variant": best}
        return {"case": case.name, "n": self.n,
                "inputs": [list(a.shape) if isinstance(a, np.ndarray) else repr(a)
                           for a in self.args],
                "results": self.results}


def run_case(case: Case, n: int, repeats: int = 20, peers: Iterable[str] = PEERS,
             device: str = "cpu", skip: dict[str, str] | None = None,
             progress: Callable[[str], None] | None = None, pipelined: bool = False) -> dict:
    """Every requested peer of ``case`` at size ``n``: a row of the report; with ``pipelined``,
    the JAX peers' device time per call too (`time_pipelined`)."""
    skip = {**case.skip, **(skip or {})}
    return CaseRun(case, n, repeats, set(peers), device, skip, progress, pipelined).run()
