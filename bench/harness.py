"""Running one case at one size: every peer checked against NumPy, then timed.

Peers: NumPy eager; elena_jax (passes on, passes off) as a jitted pure
function on device arrays, and as a functionalized call on NumPy arrays
(transfers and write-back included); idiomatic hand-written JAX with
``.at[].set()``; each hand restructuring; ``numba.njit`` of the same NumPy
code. A peer whose result differs from NumPy's is recorded as a mismatch
and not timed.
"""

from __future__ import annotations

import copy
import functools
import time
import tracemalloc
from collections.abc import Callable

import jax
import numpy as np

import elena_jax
from elena_jax.testing import assert_same

from .cases import Case


def split_args(case: Case, args: tuple):
    """(array arguments, a binder that puts the static ones back)."""
    arrays = [a for i, a in enumerate(args) if i not in case.static]

    def bind(fn: Callable) -> Callable:
        def call(*arrs):
            it = iter(arrs)
            return fn(*[a if i in case.static else next(it) for i, a in enumerate(args)])

        return call

    return arrays, bind


def _block(x):
    return jax.block_until_ready(x)


def timed(fn: Callable, make_args: Callable, repeats: int) -> dict:
    """First call (compile included) and the median/IQR of ``repeats`` later calls."""
    args = make_args()
    t = time.perf_counter()
    _block(fn(*args))
    first = time.perf_counter() - t
    for _ in range(2):
        _block(fn(*make_args()))
    times = []
    for _ in range(repeats):
        args = make_args()
        t = time.perf_counter()
        _block(fn(*args))
        times.append(time.perf_counter() - t)
    q1, med, q3 = np.percentile(times, [25, 50, 75])
    return {"median_s": float(med), "q1_s": float(q1), "q3_s": float(q3), "first_call_s": float(first),
            "repeats": repeats}


def hlo_stats(jitted, args) -> dict:
    compiled = jitted.lower(*args).compile()
    text = compiled.as_text()
    stats = {"scatter": text.count(" scatter("), "gather": text.count(" gather(")}
    try:
        mem = compiled.memory_analysis()
        stats["peak_bytes"] = int(mem.temp_size_in_bytes + mem.output_size_in_bytes + mem.argument_size_in_bytes)
    except Exception:  # not every backend reports it
        pass
    return stats


def _check(got, want, name: str) -> None:
    got_leaves = jax.tree_util.tree_leaves(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves), f"{name}: {len(got_leaves)} results, NumPy {len(want_leaves)}"
    for g, w in zip(got_leaves, want_leaves):
        assert_same(np.asarray(g).astype(np.asarray(w).dtype, copy=False) if name.startswith(("jax", "numba"))
                    else g, w, rtol=1e-9 if np.asarray(w).dtype == np.float64 else None, what=name)


def run_case(case: Case, n: int, repeats: int, peers: set[str]) -> dict:
    rng = np.random.default_rng(0)
    args = case.make_inputs(n, rng)
    arrays, bind = split_args(case, args)
    with np.errstate(all="ignore"):
        want = case.numpy_fn(*copy.deepcopy(args))
    fresh_np = lambda: copy.deepcopy(arrays)  # noqa: E731  (in-place code mutates its inputs)
    out: dict[str, dict] = {}

    def record(name: str, thunk: Callable[[], dict]) -> None:
        if name.split(":")[0] not in peers and name not in peers:
            return
        try:
            out[name] = thunk()
        except AssertionError as e:
            out[name] = {"status": "mismatch", "error": str(e).splitlines()[0][:300]}
        except Exception as e:  # a peer that cannot run this case: say why
            out[name] = {"status": "failed", "error": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"}

    def numpy_peer():
        np_call = bind(case.numpy_fn)
        tracemalloc.start()
        with np.errstate(all="ignore"):
            np_call(*fresh_np())
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        with np.errstate(all="ignore"):
            res = timed(np_call, fresh_np, repeats)
        return {"status": "ok", **res, "peak_bytes": int(peak)}

    record("numpy", numpy_peer)

    with jax.enable_x64(True):
        device = lambda: [jax.device_put(a) for a in arrays]  # noqa: E731
        dev_args = device()
        same_args = lambda: dev_args  # noqa: E731

        def jax_peer(fn: Callable, name: str) -> dict:
            jitted = jax.jit(bind(fn))
            _check(jitted(*dev_args), want, name)
            return {"status": "ok", **timed(jax.jit(bind(fn)), same_args, repeats), **hlo_stats(jitted, dev_args)}

        for optimize, name in ((True, "elena_jax"), (False, "elena_jax_noopt")):
            pure = elena_jax.pure(case.numpy_fn, optimize=optimize)
            record(name, functools.partial(jax_peer, lambda *a, _p=pure: _p(*a)[0], name))

        def numpy_io_peer():
            g = elena_jax.functionalize(case.numpy_fn)
            ej = lambda *arrs: g(*arrs)  # noqa: E731
            call = bind(ej)
            _check(call(*fresh_np()), want, "elena_jax_numpy_io")
            return {"status": "ok", **timed(call, fresh_np, repeats)}

        record("elena_jax_numpy_io", numpy_io_peer)
        if case.jax_at is not None:
            record("jax_at", functools.partial(jax_peer, case.jax_at, "jax_at"))
        for key, fn in case.jax_restructured.items():
            record(f"jax:{key}", functools.partial(jax_peer, fn, f"jax:{key}"))

    def numba_peer():
        import numba

        jitted = numba.njit(cache=False)(case.numpy_fn)
        t = time.perf_counter()
        _check(jitted(*copy.deepcopy(args)), want, "numba")
        first = time.perf_counter() - t
        res = timed(bind(jitted), fresh_np, repeats)
        return {"status": "ok", **res, "first_call_s": first}

    record("numba", numba_peer)
    restructured = [k for k in out if k.startswith("jax:") and out[k].get("status") == "ok"]
    if restructured:
        best = min(restructured, key=lambda k: out[k]["median_s"])
        out["jax_best"] = {**out[best], "variant": best}
    return {"case": case.name, "n": n, "results": out}
