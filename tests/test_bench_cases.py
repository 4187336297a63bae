"""The benchmark's cases: every hand-written peer and elena_jax equal NumPy,
and the harness runs end to end."""

import copy
import json

import jax
import numpy as np
import pytest

import bench.__main__ as bench_main
from bench.cases import CASES
from bench.harness import split_args
from elena_jax.testing import assert_same, check_against_numpy


def inputs(case, n=64):
    return case.make_inputs(n, np.random.default_rng(1))


@pytest.mark.parametrize("name", [c for c in CASES if c != "nms"])
def test_elena_jax_equals_numpy(name):
    case = CASES[name]
    check_against_numpy(case.numpy_fn, *inputs(case), jit=False)


def test_nms_is_refused_clearly_data_dependent_control_flow():
    import elena_jax

    case = CASES["nms"]
    with pytest.raises(elena_jax.UnsupportedError):
        elena_jax.functionalize(case.numpy_fn)(*inputs(case))


@pytest.mark.parametrize("name", list(CASES))
def test_hand_written_peers_equal_numpy(name):
    case = CASES[name]
    args = inputs(case)
    want = case.numpy_fn(*copy.deepcopy(args))
    arrays, bind = split_args(case, args)
    peers = dict(case.jax_restructured, **({"at": case.jax_at} if case.jax_at else {}))
    with jax.enable_x64(True):
        for key, fn in peers.items():
            got = jax.jit(bind(fn))(*arrays)
            for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
                assert_same(np.asarray(g).astype(np.asarray(w).dtype), w, rtol=1e-9, what=f"{name}:{key}")


def test_harness_writes_json_table_and_plot(tmp_path):
    out = tmp_path / "r.json"
    report = bench_main.main(["--cases", "clip_boxes", "--sizes", "1000", "--repeats", "3",
                              "--peers", "numpy,elena_jax,jax_at", "--json", str(out)])
    data = json.loads(out.read_text())
    row = data["rows"][0]["results"]
    assert row["numpy"]["status"] == "ok" and row["elena_jax"]["status"] == "ok"
    assert row["elena_jax"]["scatter"] == 0 and row["elena_jax"]["gather"] == 0
    assert (tmp_path / "r.md").read_text().count("| clip_boxes |") == 1
    assert all(p.endswith(".png") for p in report["plots"])
