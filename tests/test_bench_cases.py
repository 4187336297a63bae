"""The benchmark's cases and harness.

Every hand-written peer of every case (``jax_at``, each hand restructuring,
extra JAX peers, the torch version) equals the case's NumPy function at a
small size; elena_jax equals it too (or refuses it clearly, for NMS); and the
command line runs end to end, writing JSON, markdown and plots.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re

import jax
import numpy as np
import pytest

import bench
from bench.cases import CASES
from bench.harness import check, split_args, torch

try:
    import elena_jax
except Exception:  # noqa: BLE001 - the hand-written peers are tested without the core
    elena_jax = None

N = 400
needs_elena = pytest.mark.skipif(elena_jax is None, reason="elena_jax is not importable")


def reference(case) -> tuple[tuple, object, tuple]:
    """(the inputs, NumPy's result, the inputs as NumPy leaves them)."""
    args = case.inputs(N, seed=1)
    after = copy.deepcopy(args)
    return args, case.numpy_fn(*after), after


def jax_forms(case) -> dict:
    forms = {f"jax:{k}": fn for k, fn in case.jax_restructured.items()}
    if case.jax_at is not None:
        forms["jax_at"] = case.jax_at
    return {**forms, **case.extra_jax}


@pytest.mark.parametrize("name", list(CASES))
def test_case_module_exports(name):
    case = CASES[name]
    assert callable(case.numpy_fn) and callable(case.make_inputs)
    assert case.jax_restructured, "at least one hand restructuring"
    assert {"origin", "views", "inplace"} <= set(case.meta)


@pytest.mark.parametrize("name", list(CASES))
def test_hand_written_jax_equals_numpy(name):
    case = CASES[name]
    args, want, _ = reference(case)
    arrays, bind = split_args(args)
    with jax.enable_x64(True):
        for form, fn in jax_forms(case).items():
            check(jax.jit(bind(fn))(*arrays), want, f"{name} {form}")


@pytest.mark.skipif(torch is None, reason="torch is not importable")
@pytest.mark.parametrize("name", [c for c in CASES if CASES[c].torch_fn is not None])
def test_torch_version_equals_numpy(name):
    case = CASES[name]
    args, want, after = reference(case)
    arrays, bind = split_args(args)
    tensors = [torch.from_numpy(a.copy()) for a in arrays]
    check(bind(case.torch_fn)(*tensors), want, f"{name} torch")
    check(tensors, [a for a in after if isinstance(a, np.ndarray)], f"{name} torch inputs")


@needs_elena
@pytest.mark.parametrize("lowering", ["native", "as_gpu"])
@pytest.mark.parametrize("name", [c for c in CASES if c != "nms"])
def test_elena_jax_equals_numpy(name, lowering):
    # NB: as_gpu: as off the CPU, the values hidden another way and lanes stacked, not selected
    # (lower/opaque.py, rules.STACKED_OFF_CPU); XLA:CPU runs that lowering here
    from elena_jax.lower import opaque

    case = CASES[name]
    args, want, after = reference(case)
    arrays, bind = split_args(args)
    copies = [a.copy() for a in arrays]
    with contextlib.nullcontext() if lowering == "native" else opaque.lowered_as_gpu():
        check(bind(elena_jax.functionalize(case.numpy_fn))(*copies), want, name, strict_dtype=True)
    check(copies, [a for a in after if isinstance(a, np.ndarray)], f"{name} inputs after the call")


def exported(name: str) -> dict[str, str]:
    """Case ``name``'s elena_jax program as lowered for the CPU and for a GPU (jax.export: no GPU needed)."""
    case = CASES[name]
    arrays, bind = split_args(case.inputs(N, seed=1))
    pure = elena_jax.pure(case.numpy_fn)
    with jax.enable_x64(True):
        return {p: jax.export.export(jax.jit(bind(lambda *a: pure(*a)[0])), platforms=[p])(*arrays).mlir_module()
                for p in ("cpu", "cuda")}


@needs_elena
@pytest.mark.parametrize("name, stacks", [("delta2bbox", 1), ("tblr2bbox", 1), ("gen_base_anchors", 2),
                                           ("bbox2delta", 1), ("xyxy_xywh", 2)])
def test_elena_jax_gpu_programs_stack_computed_lanes(name, stacks):
    # NB: off the CPU a select of computed lanes is a stack (rules.STACKED_OFF_CPU: measured on an
    # H200, bench/results/20261128c_gpu_hiding.md); an argument's columns stay selected there
    text = exported(name)
    assert text["cuda"].count("stablehlo.concatenate") == stacks
    assert "stablehlo.concatenate" not in text["cpu"]


@needs_elena
@pytest.mark.parametrize("name", [c for c in CASES if c not in ("nms", "standardize", "row_loops")])
def test_elena_jax_gpu_programs_have_no_barriers(name):
    # NB: XLA:GPU ends a kernel at each optimization barrier (lower/opaque.py); jax.export lowers
    # for a GPU without one. standardize's and row_loops' sums keep theirs (a chain's start), nms is
    # refused.
    text = exported(name)
    assert "optimization_barrier" not in text["cuda"]
    assert "optimization_barrier" in text["cpu"] or name in ("valid_flags", "grid_anchors", "clip_boxes")


@needs_elena
def test_nms_loop_is_refused_with_the_source_line():
    args, _, _ = reference(CASES["nms"])
    with pytest.raises(elena_jax.ConcretizationError, match="if suppressed"):
        elena_jax.functionalize(CASES["nms"].numpy_fn)(*args)


def test_check_reports_mismatches():
    want = np.array([1.0, 2.0, np.nan])
    assert check(want * (1 + 1e-12), want, "close") == (2, 3)  # NB: within tolerance, not NumPy's bits
    assert check(want.copy(), want, "same") == (0, 3)
    with pytest.raises(AssertionError, match="result 0"):
        check(want + 1e-6, want, "off")
    with pytest.raises(AssertionError, match="dtype"):
        check(want.astype(np.float32), want, "dtype", strict_dtype=True)
    with pytest.raises(AssertionError, match="2 results"):
        check((want, want), want, "count")


def test_as_exact_compares_with_the_fastest_form_no_further_from_numpy():
    from bench.report import _as_exact

    def row(**results):
        return {"results": {k: {"status": "ok", "median_s": t, "off_numpy": off} for k, (t, off) in results.items()}}

    # NB: the faster form rounds differently from NumPy in 40% of its results; the slower is exact
    assert _as_exact(row(elena_jax=(2.0, 0.0), jax_at=(4.0, 0.0), **{"jax:fast": (1.0, 0.4)})) == 0.5
    assert _as_exact(row(elena_jax=(2.0, 0.4), jax_at=(4.0, 0.0), **{"jax:fast": (1.0, 0.4)})) == 2.0
    assert _as_exact(row(elena_jax=(2.0, 0.0), **{"jax:fast": (1.0, 0.4)})) is None
    assert _as_exact(row(elena_jax=(2.0, None), **{"jax:bool": (1.0, None)})) == 2.0  # no float results


def test_command_line_writes_json_table_and_plots(tmp_path):
    out = tmp_path / "r.json"
    peers = "numpy,elena_jax,jax_at,jax,numba,torch,tensorflow"
    report = bench.main(["--quick", "--cases", "clip_boxes", "--sizes", "1000", "--repeats", "20",
                         "--peers", peers, "--json", str(out), "--pipelined"])
    data = json.loads(out.read_text())
    assert data["machine"]["cores"] and data["machine"]["versions"]["jax"]
    res = data["rows"][0]["results"]
    assert res["numpy"]["status"] == "ok" and res["numpy"]["repeats"] == 20
    assert res["jax_at"]["status"] == "ok" and res["jax_at"]["scatter"] >= 1
    assert res["jax_best"]["variant"].startswith("jax:")
    assert res["tensorflow"]["status"] == "skipped"
    # NB: --pipelined: the JAX peers' device time per call, not NumPy's (it has no device)
    assert res["jax_at"]["pipelined_s"] > 0 and "pipelined_s" not in res["numpy"]
    if elena_jax is not None:
        assert res["elena_jax"]["status"] == "ok", res["elena_jax"]
        assert res["elena_jax"]["scatter"] == 0 and res["elena_jax"]["gather"] == 0
    else:
        assert res["elena_jax"]["status"] == "failed"
    table = (tmp_path / "r.md").read_text()
    assert table.count("| clip_boxes | 1000 |") >= 3  # times, targets, memory
    assert "## Against the targets" in table and "time / jax_best <= 1.1:" in table
    assert "time / as exact <= 1.1:" in table
    if elena_jax is not None:
        assert res["elena_jax"]["pipelined_s"] > 0
        assert "## Device time per call" in table and "| clip_boxes | 1000 | " in table.split("## Device time")[1]
    assert [p[-4:] for p in report["outputs"][2:]] == [".png", ".png"]
    (tmp_path / "r.md").unlink()
    bench.main(["--report", str(out)])  # the markdown report again, from the JSON alone
    assert (tmp_path / "r.md").read_text() == table


def test_failing_peer_is_recorded_not_raised(tmp_path, monkeypatch):
    import bench.harness as harness

    monkeypatch.setattr(harness, "elena_jax", None)
    monkeypatch.setattr(harness, "ELENA_IMPORT_ERROR", "import elena_jax failed: test")
    row = harness.run_case(CASES["bbox_flip"], 100, repeats=20, peers=["numpy", "elena_jax"])
    assert row["results"]["numpy"]["status"] == "ok"
    failed = row["results"]["elena_jax"]
    assert failed["status"] == "failed"
    assert failed["error"] == "RuntimeError: import elena_jax failed: test"
    assert "RuntimeError" in failed["traceback"][-1]


def test_optional_torch_peers_not_installed_are_skipped(monkeypatch):
    """Without torch (the '.[dev]' install has none) its peers were recorded as failed (campaign M)."""
    import bench.harness as harness

    monkeypatch.setattr(harness, "torch", None)
    row = harness.run_case(CASES["bbox_flip"], 100, repeats=3, peers=["numpy", "torch", "torch_compile"])
    for name in ("torch", "torch_compile"):
        assert row["results"][name] == {"status": "skipped", "error": "not installed"}


@needs_elena
def test_hiding_counts_kernels_of_every_variant(capsys, tmp_path):
    from bench import hiding

    rows = hiding.main(["--sizes", "2e3", "--cases", "delta2bbox", "--hlo", str(tmp_path)])
    # NB: each variant's own program (elena_jax keeps a function's programs: all were the first's),
    # its instructions without their source locations
    def instructions(v):
        text = (tmp_path / f"delta2bbox_2000_{v}.txt").read_text()
        lines = [ln for ln in text.splitlines() if ln.lstrip().startswith(("%", "ROOT"))]
        return [re.sub(r", metadata=\{[^}]*\}", "", ln) for ln in lines]

    assert instructions("elena_jax") != instructions("unhidden")
    assert [r["variant"] for r in rows] == ["elena_jax", "unhidden", "selects", "lane_selects", "columns_stacked",
                                            "values_stacked", "jax_at", "jax:stack", "jax:lanes"]
    assert all(r["kernels"] >= 1 and r["median_ms"] > 0 for r in rows)
    # NB: the lanes are stacked off the CPU only: on the CPU the selects are elena_jax's own program
    same = [(r["kernels"], r["kinds"], r["temp_mib"]) for r in rows if r["variant"] in ("elena_jax", "selects")]
    assert same[0] == same[1] or jax.default_backend() != "cpu"
    assert "| delta2bbox | 2000 | unhidden |" in capsys.readouterr().out
    hlo = "HloModule m\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n" \
          "  %f = f32[4] fusion(f32[4] %p), kind=kLoop\n  ROOT %c = f32[4] copy(f32[4] %f)\n}\n"
    assert hiding.kernels(hlo) == ["fusion", "copy"]
    # NB: a multi-output fusion (a tuple shape, with spaces in it) is a kernel too
    two = hlo.replace("%f = f32[4] fusion", "%f = (f32[4]{0}, f32[4]{0}) fusion")
    assert hiding.kernels(two) == ["fusion", "copy"]
    loop = hlo.replace("%f = f32[4] fusion", "%f = (s32[], (f32[4]{0}, f32[4]{0})) while")
    assert hiding.kernels(loop) == ["while", "copy"]
