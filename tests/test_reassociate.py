"""Reassociation of in-place logical chains (elena_jax/passes/reassociate.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_passes import assert_preserves, traced, ufuncs

from elena_jax.passes import PIPELINE, optimize, reassociate_chains
from elena_jax.testing import check_against_numpy


def inside_flags(anchors, grid):
    flags = np.broadcast_to(grid[:, None], (grid.size, 3)).reshape(-1)
    flags &= anchors[:, 0] >= 0
    flags &= anchors[:, 1] >= 0
    flags &= anchors[:, 2] < 10
    return flags


def rewritten_operand(a, m):
    flags = a > 0
    flags |= m[:, 0]
    m[:, 0] = ~m[:, 1]  # the link above read m[:, 0] before this write: it stays before it
    flags |= m[:, 1]
    flags |= m[:, 0]
    return flags


def kept_intermediate(a, b):
    flags = a > 0
    flags &= b > 0
    half = flags.copy()  # the chain's intermediate is read: it cannot regroup through it
    flags &= a < 2
    return flags, half


def read_after_link(a, b):
    flags = a > 0
    flags &= b > 0
    both = flags & (a < 2)  # a link into another array: flags keeps its value, read below
    return both, flags


def int_bits(a, b):
    bits = a & 0x0F
    bits |= b
    bits |= b >> 2
    bits |= 0x30
    return bits


def narrowed(a, b):
    acc = a.astype(np.int8)
    acc &= b  # int64 computed, stored as int8: links of one dtype only
    acc |= b >> 1
    return acc


PROGRAMS = [
    (inside_flags, lambda rng: (rng.uniform(-2, 12, (12, 4)), rng.random(4) > 0.3)),
    (rewritten_operand, lambda rng: (rng.normal(size=6), rng.random((6, 2)) > 0.5)),
    (kept_intermediate, lambda rng: (rng.uniform(-1, 3, 7), rng.normal(size=7))),
    (read_after_link, lambda rng: (rng.uniform(-1, 3, 7), rng.normal(size=7))),
    (int_bits, lambda rng: (rng.integers(0, 256, 9), rng.integers(0, 256, 9))),
    (narrowed, lambda rng: (rng.integers(-100, 100, 9), rng.integers(-300, 300, 9))),
]


@pytest.mark.parametrize("f,make", PROGRAMS, ids=lambda x: getattr(x, "__name__", ""))
def test_reassociation_preserves_results(f, make):
    args = make(np.random.default_rng(0))
    program = traced(f, *args)
    for p in PIPELINE[:PIPELINE.index(reassociate_chains)]:  # NB: as the pipeline hands it over
        program = p(program)
    assert_preserves(reassociate_chains, program, *args)
    check_against_numpy(f, *args)


def test_a_chain_of_flag_updates_combines_the_comparisons_before_the_flags():
    """flags & ((c0 & c1) & c2): the last link reads the broadcast grid and the combined
    comparisons; each earlier link combines comparisons only."""
    rng = np.random.default_rng(0)
    program = optimize(traced(inside_flags, rng.uniform(size=(12, 4)), rng.random(4) > 0.5))
    assert "reassociate_chains" in program.fired
    *firsts, last = ufuncs(program, "bitwise_and")
    made_by = {a.storage.id: op.params.get("name", op.prim) for op in program.ops for a in op.outs}
    assert all(made_by[x.storage.id] in ("greater_equal", "less", "bitwise_and") for op in firsts for x in op.ins)
    assert made_by[last.ins[0].storage.id] not in ("greater_equal", "less", "bitwise_and")


@pytest.mark.parametrize("f,make", PROGRAMS[2:], ids=lambda x: getattr(x, "__name__", ""))
def test_chains_through_read_or_narrowed_intermediates_are_left_alone(f, make):
    args = make(np.random.default_rng(0))
    program = optimize(traced(f, *args))
    if f is int_bits:  # NB: each link is the next one's accumulator: the chain does regroup
        assert "reassociate_chains" in program.fired
    else:
        assert "reassociate_chains" not in program.fired


def test_a_link_does_not_move_past_a_write_of_its_operand():
    """The first ``|=`` reads m[:, 0] before it is rewritten: it stays before the write; the
    later links regroup."""
    rng = np.random.default_rng(0)
    args = (rng.normal(size=6), rng.random((6, 2)) > 0.5)
    program = optimize(traced(rewritten_operand, *args))
    assert "reassociate_chains" in program.fired
    m = program.inputs[1]
    (write,) = [i for i, op in enumerate(program.ops) if op.prim != "arg" and any(a.storage is m for a in op.outs)]
    (first,) = [i for i, op in enumerate(program.ops) if op.prim == "ufunc" and op.params["name"] == "bitwise_or"
                and any(x.storage is m and x.view.offset == 0 for x in op.reads())]
    assert first < write


OPS = ["&=", "|=", "^="]
OPERANDS = st.sampled_from(["cmp", "arg", "const", "shifted"])
STEP = st.one_of(st.tuples(st.sampled_from(OPS), OPERANDS), st.just(("write", None)), st.just(("keep", None)))


def apply(acc, step, a, b, kept):
    op, kind = step
    if op == "write":
        b[::2] = b[::2] + 1
        return acc
    if op == "keep":
        kept.append(acc.copy())
        return acc
    if kind == "cmp":
        x = b > 3
    elif kind == "arg":
        x = b.astype(acc.dtype)
    elif kind == "const":
        x = acc.dtype.type(True if acc.dtype == bool else 5)
    else:
        x = a[::-1] > 2
    if acc.dtype != bool and x.dtype == bool:
        x = x.astype(acc.dtype)
    if op == "&=":
        acc &= x
    elif op == "|=":
        acc |= x
    else:
        acc ^= x
    return acc


@settings(max_examples=35, deadline=None)
@given(steps=st.lists(STEP, min_size=2, max_size=7), dtype=st.sampled_from([bool, np.uint8, np.int32, np.int64]),
       start=st.sampled_from(["cmp", "copy"]))
def test_random_chains_agree_with_numpy(steps, dtype, start):
    """Chains of &=, |=, ^= on flags or integers, with operands from comparisons, arguments,
    constants and reversed views, writes of an operand's source and reads of the chain between."""

    def f(a, b):
        acc = (a > 1).astype(dtype) if start == "cmp" else a.astype(dtype)
        kept = []
        for step in steps:
            acc = apply(acc, step, a, b, kept)
        return acc, kept

    rng = np.random.default_rng(0)
    check_against_numpy(f, rng.integers(0, 6, 10), rng.integers(0, 8, 10))
