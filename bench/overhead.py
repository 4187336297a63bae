"""Core overheads of elena_jax (issue 2's speed targets), measured in one run.

- trace + lower time for one input signature of a detection case (the user's
  NumPy code run on tracers, the passes, and JAX tracing the lowered program
  to a jaxpr; XLA compilation is reported separately);
- a cached call of a functionalized function vs calling the equivalent
  ``jax.jit`` function directly on the same (device) inputs.

Run: ``python -m bench.overhead``
"""

from __future__ import annotations

import platform
import time

import jax
import numpy as np

import elena_jax
from elena_jax.demo import delta2bbox


def _paired(f, g, repeats: int = 3000) -> tuple[float, float]:
    f(), g()
    tf, tg = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        tf.append(time.perf_counter() - t)
        t = time.perf_counter()
        g()
        tg.append(time.perf_counter() - t)
    return float(np.median(tf)), float(np.median(tg))


def main() -> None:
    rng = np.random.default_rng(0)
    rois = rng.uniform(0, 600, (1000, 4))
    rois[:, 2:] += rois[:, :2]
    deltas = rng.normal(size=(1000, 4))
    with jax.enable_x64(True):
        ra, da = jax.device_put(rois), jax.device_put(deltas)

    trace_ms, lower_ms, compile_ms = [], [], []
    for _ in range(5):
        fz = elena_jax.functionalize(delta2bbox, jit=False)
        t0 = time.perf_counter()
        traced = fz.trace((rois, deltas), {})[0]
        t1 = time.perf_counter()
        with jax.enable_x64(True):
            jax.make_jaxpr(traced.run)(rois, deltas)
            t2 = time.perf_counter()
            jax.jit(traced.run).lower(rois, deltas).compile()
        t3 = time.perf_counter()
        trace_ms.append((t1 - t0) * 1e3)
        lower_ms.append((t2 - t1) * 1e3)
        compile_ms.append((t3 - t2) * 1e3)

    g = elena_jax.functionalize(delta2bbox)
    pure_jit = jax.jit(lambda a, b: elena_jax.pure(delta2bbox)(a, b)[0])

    def direct():
        with jax.enable_x64(True):
            return pure_jit(ra, da).block_until_ready()

    # Interleaved, so that load on the machine hits both alike.
    t_direct, t_func = _paired(direct, lambda: g(ra, da).block_until_ready())

    print(f"machine: {platform.processor() or platform.machine()}, {platform.system()}, "
          f"jax {jax.__version__}, numpy {np.__version__}")
    print(f"delta2bbox (1000 boxes): trace+passes {np.median(trace_ms):.1f} ms, "
          f"JAX tracing to jaxpr {np.median(lower_ms):.1f} ms "
          f"(sum {np.median(trace_ms) + np.median(lower_ms):.1f} ms; target < 50 ms), "
          f"then StableHLO lowering + XLA compile {np.median(compile_ms):.1f} ms")
    print(f"cached call: functionalized {t_func * 1e6:.1f} us, "
          f"direct jax.jit {t_direct * 1e6:.1f} us, "
          f"overhead {(t_func - t_direct) * 1e6:.1f} us (target < 20 us)")


if __name__ == "__main__":
    main()
