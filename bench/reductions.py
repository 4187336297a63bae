"""What NumPy's summation order costs: float64 sums, running sums and products in elena_jax
(and the mean of uint8 values, summed in float64)
(NumPy's order, bit for bit; design.md "Sums in NumPy's order") against NumPy and ``jax.numpy``
(XLA's order), each result checked equal to NumPy's first.

Run: ``python -m bench.reductions`` (best of 5 rounds of 20 calls; jitted on device arrays; the std
with ``fma=False``, bit for bit: with FMAs, XLA contracts its squares into its sum).
"""

from __future__ import annotations

import platform
import time

import jax
import jax.numpy as jnp
import numpy as np

import elena_jax


def center(x, axis):
    """A sum whose result feeds a broadcast: XLA would repeat it for every element (summation._in_turn)."""
    return x - x.mean(axis=axis, keepdims=True)


def jnp_center(x, axis):
    return x - jnp.mean(x, axis=axis, keepdims=True)


def cut_sum(x, axis):
    """A sum over axes that do not coalesce, which NumPy hands to its loop through its buffer."""
    return x[..., 1:].sum(axis=axis)


def jnp_cut_sum(x, axis):
    return jnp.sum(x[..., 1:], axis=axis)


OPS = {"sum": (np.sum, jnp.sum), "cumsum": (np.cumsum, jnp.cumsum), "center": (center, jnp_center),
       "std": (np.std, jnp.std), "cut_sum": (cut_sum, jnp_cut_sum), "prod": (np.prod, jnp.prod),
       "mean_u8": (np.mean, jnp.mean)}  # NB: of uint8 values, which the sum casts to float64 a part at a time

# (operation, shape, axis): pairwise runs, sums over outer axes, running sums, sums that feed more
ROWS = [
    ("sum", (10**6,), None), ("sum", (10**7,), None), ("sum", (1000, 1000), 1), ("sum", (4096, 256), 1),
    ("sum", (10**6, 4), 1), ("sum", (1000, 256), 0), ("sum", (10**6, 4), 0), ("sum", (100, 10000), 0),
    ("sum", (10000, 100), 0), ("cumsum", (10**6,), None), ("cumsum", (1000, 1000), 1),
    ("cumsum", (1000, 1000), 0), ("center", (15625, 256), 1), ("center", (256, 15625), 0),
    ("std", (15625, 256), 1), ("cut_sum", (1000, 1001), None), ("cut_sum", (40, 200, 301), (1, 2)),
    ("sum", (100, 100, 100), (0, 2)), ("prod", (10**6,), None), ("prod", (1000, 1000), 1),
    ("prod", (1000, 1000), 0), ("sum", (1333, 1500), 1), ("sum", (32, 125000), 1), ("mean_u8", (2000, 2000), 1),
    ("mean_u8", (2000, 2000), None),
]


def best_ms(f, *args) -> float:
    jax.block_until_ready(f(*args))
    rounds = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(20):
            jax.block_until_ready(f(*args))
        rounds.append((time.perf_counter() - t) / 20 * 1e3)
    return min(rounds)


def main() -> None:
    print(f"# {platform.processor() or platform.machine()}, jax {jax.__version__}, numpy {np.__version__}\n")
    print("| operation | shape | axis | NumPy (ms) | elena_jax | jax.numpy |")
    print("|---|---|---:|---:|---:|---:|")
    with jax.enable_x64(True):
        for op, shape, axis in ROWS:
            a = np.random.default_rng(0).standard_normal(shape)
            a = 1 + a / 1000 if op == "prod" else a  # NB: a product of a million normals is 0 or inf
            a = np.random.default_rng(0).integers(0, 256, shape).astype(np.uint8) if op.endswith("_u8") else a
            numpy_fn, jnp_fn = OPS[op]

            def f(x, numpy_fn=numpy_fn, axis=axis):
                return numpy_fn(x, axis=axis)

            # NB: with FMAs, XLA contracts a std's squares into its sum (design.md, "Products")
            ours = jax.jit(elena_jax.functionalize(f, fma=op != "std"))
            device = jnp.asarray(a)
            if not np.array_equal(np.asarray(ours(device)), f(a)):
                raise AssertionError(f"{op} {shape} axis={axis}: not NumPy's bit for bit")
            theirs = jax.jit(lambda x, jnp_fn=jnp_fn, axis=axis: jnp_fn(x, axis=axis))
            print(f"| {op} | {shape} | {axis} | {best_ms(f, a):.3f} | {best_ms(ours, device):.3f} | "
                  f"{best_ms(theirs, device):.3f} |")


if __name__ == "__main__":
    main()
