"""The dependency table: exact RAW/WAR/WAW edges between recorded ops."""

import numpy as np

import elena_jax
from elena_jax import deps


def recorded(f, *args):
    t = elena_jax.functionalize(f, optimize=False, jit=False).trace(args, {})[0]
    return t.program


def kinds(program):
    return {(e.src, e.dst, e.kind) for e in deps.edges(program.ops)}


def test_disjoint_strided_writes_are_independent():
    def f(x):
        out = np.zeros((x.shape[0], 8))
        out[:, 0::4] = x
        out[:, 1::4] = x
        return out

    p = recorded(f, np.ones((3, 2)))
    writes = [i for i, op in enumerate(p.ops) if op.prim == "copy"]
    assert len(writes) == 2
    assert not any(e.src in writes and e.dst in writes for e in deps.edges(p.ops))
    full = next(i for i, op in enumerate(p.ops) if op.prim == "full")
    assert {(full, w, "WAW") for w in writes} <= kinds(p)


def test_overlapping_accumulation_orders_read_after_write():
    def f(a):
        a[1:] += a[:-1]  # reads a[:-1], writes a[1:]: they overlap
        a[0] = 0
        return a

    p = recorded(f, np.arange(4.0))
    add = next(i for i, op in enumerate(p.ops) if op.prim == "ufunc")
    zero = len(p.ops) - 1
    assert (add, zero, "WAR") in kinds(p)  # a[0] was read by the accumulation
    assert (0, add, "RAW") in kinds(p)  # the argument's definition feeds it


def test_reads_never_order_each_other():
    def f(a):
        return a[:2] + a[1:3]

    p = recorded(f, np.arange(4.0))
    assert all(e.kind != "RAR" for e in deps.edges(p.ops))
    assert {e.kind for e in deps.edges(p.ops)} == {"RAW"}


def test_table_lists_accesses_in_program_order():
    def f(a):
        a[0] = a[1]
        return a

    p = recorded(f, np.arange(3.0))
    rows = deps.table(p.ops)[p.inputs[0]]
    assert [mode for _, mode, _ in rows] == ["W", "R", "W"]
    assert [i for i, _, _ in rows] == sorted(i for i, _, _ in rows)
