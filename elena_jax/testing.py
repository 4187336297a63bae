"""Differential testing against NumPy, the oracle.

`check_against_numpy(f, *args)` runs ``f`` eagerly with NumPy on copies of the
arguments and through elena_jax on other copies (passes on and off), and
compares the results (values and dtypes) and every argument after the call.
The copies share memory as the arguments do (``f(x, x[1:])`` stays aliased).
`rounding_chains(hlo)` finds, in a lowered program, the rounding a GPU would drop.
`numpy_avx512_loops()` says whether NumPy runs its AVX-512 loops here, whose transcendentals
differ from its loops on other CPUs in the last bits (set ``NPY_DISABLE_CPU_FEATURES`` to compare
with the portable ones; tests/conftest.py does).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import jax
import numpy as np

from ._aliases import copy_tree
from ._api import functionalize

#: Default relative tolerance by float width: XLA may fuse, reassociate reductions and use FMAs.
RTOL = {16: 1e-3, 32: 1e-5, 64: 1e-12}


def assert_same(got, want, rtol: float | None = None, atol: float | None = None, what: str = "result") -> None:
    """``got`` equals NumPy's ``want``: dtype, shape and values (NaNs where NumPy has them)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != NumPy's {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != NumPy's {want.shape}"
    if want.dtype.kind in "fc":
        rtol = RTOL.get(np.finfo(want.dtype).bits, 1e-12) if rtol is None else rtol
        # XLA may contract a*b+c into one rounding (FMA): allow that much absolute error.
        finite = np.abs(want[np.isfinite(want)])
        scale = float(finite.max(initial=1.0))
        atol = (rtol * scale) if atol is None else atol
        if rtol == 0 and atol == 0:  # NB: exactly NumPy's, part by part: signed zeros too (allclose takes them equal)
            for g, w in ((got.real, want.real), (got.imag, want.imag)) if want.dtype.kind == "c" else ((got, want),):
                np.testing.assert_array_equal(g, w, err_msg=what)
                np.testing.assert_array_equal(np.signbit(g) & ~np.isnan(g), np.signbit(w) & ~np.isnan(w),
                                              err_msg=f"{what}: the signs of zeros")
        else:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check_against_numpy(f: Callable, *args, optimize: Sequence[bool] = (True, False), jit: bool = True,
                        rtol: float | None = None, atol: float | None = None, **kwargs):
    """Run ``f`` with NumPy and with elena_jax; assert results and arguments agree."""
    np_args, np_kwargs = copy_tree((args, kwargs))
    with np.errstate(all="ignore"):
        want = f(*np_args, **np_kwargs)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    for opt in optimize:
        ej_args, ej_kwargs = copy_tree((args, kwargs))
        got = functionalize(f, optimize=opt, jit=jit)(*ej_args, **ej_kwargs)
        got_leaves, got_tree = jax.tree_util.tree_flatten(got)
        assert got_tree == want_tree, f"result structure {got_tree} != NumPy's {want_tree}"
        for k, (g, w) in enumerate(zip(got_leaves, want_leaves)):
            assert_same(g, w, rtol, atol, f"result leaf {k} (optimize={opt})")
        # NB: the caller's arrays (positional and keyword) after the call, as NumPy left them
        after = jax.tree_util.tree_leaves((ej_args, ej_kwargs))
        for k, (g, w) in enumerate(zip(after, jax.tree_util.tree_leaves((np_args, np_kwargs)))):
            if isinstance(w, np.ndarray):
                assert isinstance(g, np.ndarray), f"argument leaf {k} is no longer a NumPy array"
                assert_same(g, w, rtol, atol, f"argument leaf {k} after the call (optimize={opt})")
    return want


#: What ``NPY_DISABLE_CPU_FEATURES`` names to turn NumPy's AVX-512 loops off (NumPy >= 2.4's groups).
NO_AVX512_LOOPS = "X86_V4 AVX512_ICL AVX512_SPR"


def numpy_avx512_loops() -> bool:
    """Whether NumPy dispatches to its AVX-512 loops (``X86_V4`` and up; ``AVX512_SKX`` and up before 2.4):
    on such a CPU its float32 and float64 transcendentals (exp2, log10, tan, arcsin, cbrt, power, ...) are
    SVML's, 1-3 units in the last place from its loops on every other CPU, whose bits elena_jax gives."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return any(__cpu_features__.get(f) for f in __cpu_dispatch__ if f.startswith(("X86_V4", "AVX512")))


_FLOATS = ("f16", "bf16", "f32", "f64")
_SIGNIFICAND = {"f16": 11, "bf16": 8, "f32": 24, "f64": 53, "s8": 7, "s16": 15, "s32": 31, "s64": 63,
                "u8": 8, "u16": 16, "u32": 32, "u64": 64, "pred": 1}
_INSTRUCTION = re.compile(r"^\s*(?:ROOT )?%?([\w.\-]+) = (\w+)\[[^\]]*\](?:\{[^}]*\})? ([\w-]+)\(%?([\w.\-]*)")


def rounding_chains(hlo: str) -> list[str]:
    """The ``convert(convert(x))`` of a program's HLO text (``lowered.as_text(dialect="hlo")``) whose
    inner convert rounds to a float type and whose outer one widens it again, as ``"f64 -> f16 -> f32"``:
    XLA:GPU's excess precision (on by default) drops the inner rounding of such a chain
    (lower/memory.converted keeps them apart)."""
    found = []
    for computation in hlo.split("\n\n"):
        defs = {m[1]: (m[2], m[3], m[4]) for m in map(_INSTRUCTION.match, computation.splitlines()) if m}
        for ty, op, arg in defs.values():
            inner = defs.get(arg) if op == "convert" else None
            if inner and inner[1] == "convert" and inner[2] in defs and ty in _FLOATS and inner[0] in _FLOATS:
                src, mid = _SIGNIFICAND.get(defs[inner[2]][0], 0), _SIGNIFICAND[inner[0]]
                if src > mid < _SIGNIFICAND[ty]:
                    found.append(f"{defs[inner[2]][0]} -> {inner[0]} -> {ty}")
    return found
