"""The recorded program: its invariant, and its text (a golden example)."""

import numpy as np
import pytest

import elena_jax
from elena_jax.ir import Access, Op, Program
from elena_jax.storage import Storage
from elena_jax.view import View


def scale_first_column(a):
    a[:, 0] *= 2
    return a


def test_pretty_printed_program():
    t = elena_jax.functionalize(scale_first_column, optimize=False, jit=False).trace((np.ones((2, 3)),), {})[0]
    lines = [line for line in str(t.program).splitlines() if not line.strip().startswith("at ")]
    assert lines == [
        "storages:",
        "  S0: float64[6] shape=(2, 3) (argument a)",
        "ops:",
        "  #0 S0[shape=(2, 3) strides=(3, 1) offset=0] <- arg() index=0",
        "  #1 S0[shape=(2,) strides=(3,) offset=0] <- ufunc(S0[shape=(2,) strides=(3,) offset=0], 2.0:float64) "
        "name=multiply loop=(dtype('float64'), dtype('float64'))",
        "outputs: S0[shape=(2, 3) strides=(3, 1) offset=0]",
    ]


def test_an_optimized_programs_listing_names_the_storages_it_uses():
    """The passes replace ops and leave the storages of those they replace behind (a loop's row
    temporaries, vectorized into one op over all rows): the listing leaves them out."""
    def centre_rows(x):
        for i in range(x.shape[0]):
            r = x[i]
            r -= r.mean()
        return x

    t = elena_jax.functionalize(centre_rows, jit=False).trace((np.ones((6, 16)),), {})[0]
    listed = {int(line.split(":")[0].strip()[1:]) for line in str(t.program).split("ops:")[0].splitlines()[1:]}
    used = {a.storage.id for op in t.program.ops for a in (*op.reads(), *op.outs)}
    assert listed == used and len(t.program.storages) > len(used)


def test_verify_rejects_a_read_before_definition():
    s = Storage(0, (3,), np.dtype("f8"), "test")
    p = Program([s], [Op("copy", (Access.whole(s),), (Access.whole(s),))])
    with pytest.raises(AssertionError, match="before it is defined"):
        p.verify()


def test_verify_rejects_a_partial_first_write():
    s = Storage(0, (3,), np.dtype("f8"), "test")
    p = Program([s], [Op("full", (), (Access(s, View.make((2,), (1,), 0)),), {"value": 0})])
    with pytest.raises(AssertionError, match="partial"):
        p.verify()


def test_written_is_the_set_of_mutated_storages():
    t = elena_jax.functionalize(scale_first_column, optimize=False, jit=False).trace((np.ones((2, 3)),), {})[0]
    assert t.program.written() == {t.program.inputs[0]}
