"""Random view-and-write programs against NumPy (elena_jax/fuzz.py).

The default run checks 520 programs, passes on and off, most executed op by
op (``jit=False``: the same lowering without XLA compilation) and a sample
compiled with XLA. Long campaigns: ``python -m elena_jax.fuzz --n N --seed S``.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings

from elena_jax.fuzz import check, compile_program, programs, render

FAST = settings(max_examples=500, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
COMPILED = settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


@FAST
@given(programs())
def test_random_programs_match_numpy(case):
    check(*case)


@COMPILED
@given(programs(max_steps=5))
def test_random_programs_match_numpy_compiled(case):
    check(*case, jit=True)


def test_rendered_program_is_runnable_numpy():
    lines = ["v0 = a[::-1, None]", "v0 += 1", "b[...] = 2", "return (v0,)"]
    src = render(lines)
    assert src.startswith("import numpy as np") and "def program(a, b):" in src
    a, b = np.arange(3.0), np.zeros(2)
    (v0,) = compile_program(lines)(a, b)
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(b, [2.0, 2.0])


# Regressions found by the fuzzer: each one a program that once disagreed with NumPy.
REGRESSIONS = [
    (["v0 = a[None, ::-1]", "v0[...] = 3", "return (v0,)"], [np.arange(4.0), np.zeros(1)]),
    # campaign seed 7: a coalesced copy reused its source storage as the placed value,
    # and forwarding then read that storage after the assemble had overwritten it.
    (["v0 = a[::-1]", "v0[...] = a", "v2 = a[3:3:3, None]", "np.multiply(v2, v2, out=v2)",
      "np.multiply(v0, v0, out=v0)", "return (v0, v2,)"],
     [np.array([0.38508148, -0.93936029, 0.58627899, -0.15241283]), np.zeros(4, bool)]),
]


def test_regressions():
    for lines, inputs in REGRESSIONS:
        check(lines, inputs)
        check(lines, inputs, jit=True)
