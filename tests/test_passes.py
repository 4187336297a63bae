"""Each pass preserves results (the program is lowered before and after it)
and does what it says to the program's structure."""

from unittest import mock

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marks import rotated, slow_beyond

import elena_jax
from elena_jax.lower import lower
from elena_jax.passes import (
    PIPELINE,
    coalesce_writes,
    eliminate_dead_writes,
    exact_reciprocals,
    forward_reads,
    join_reductions,
    materialize,
    materialize_chains,
    merge_assembles,
    optimize,
    reassociate_chains,
    rename_whole_writes,
    split_lanes,
    vectorize_lanes,
)
from elena_jax.passes.vectorize import COLUMNS
from elena_jax.testing import check_against_numpy
from elena_jax.view import contiguous, overlap


def traced(f, *args):
    fz = elena_jax.functionalize(f, optimize=False)
    t = fz.trace(args, {})[0]
    return t.program


def unvectorized(program):
    """The pipeline without lane vectorization: the assembles the earlier passes build."""
    for p in PIPELINE:
        program = program if p is vectorize_lanes else p(program)
    return program


def run(program, *args):
    """The program's results and final arguments, compiled (one compile, where op by op compiled each
    op) with every float product rounded on its own (fma=False), so that programs compare bit for bit."""
    with jax.enable_x64(True):
        lowered = lower(program, fma=False)
        outs, finals = jax.jit(lowered)(*args)
    outs = [finals[lowered.aliases[k]] if o is None else o for k, o in enumerate(outs)]  # NB: see lower
    return [np.asarray(o) for o in outs] + [np.asarray(f) for f in finals]


def assert_preserves(p, program, *args):
    """Pass ``p`` on ``program``: a valid program with the same results; returns it."""
    after = p(program)
    after.verify()
    for x, y in zip(run(program, *args), run(after, *args)):
        np.testing.assert_array_equal(x, y)
    return after


def decode(boxes, deltas):
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    out = np.empty_like(deltas)
    out[:, 0::4] = boxes[:, 0:1] + deltas[:, 0::4] * w[:, None]
    out[:, 1::4] = boxes[:, 1:2] + deltas[:, 1::4] * h[:, None]
    out[:, 2::4] = boxes[:, 2:3] + deltas[:, 2::4] * w[:, None]
    out[:, 3::4] = boxes[:, 3:4] + deltas[:, 3::4] * h[:, None]
    return out


def partial_rows(a):
    a[0] = 1.0  # dead: overwritten below before any read
    a[0] = 2.0
    b = a[1] * 3  # reads exactly what the next line does not touch
    a[1] = 5.0
    c = a[1] + 1  # forwarding: reads exactly the value just written
    return b + c


def inplace_columns(x):
    x[:, 0] *= 2
    x[:, 1] += x[:, 0]  # reads column 0 after it was written
    x[:, 2:] = 0
    return x.sum(axis=0)


def clip_columns(b):
    np.clip(b[:, 0::2], 0, 5, out=b[:, 0::2])
    np.clip(b[:, 1::2], 0, 3, out=b[:, 1::2])
    return b


def alternating_columns(a, steps=2, square=lambda e: e * e):
    """Even and odd columns of an argument update each other in turn."""
    for _ in range(steps):
        a[:, ::2] += 0.1 * a[:, 1::2]
        a[:, 1::2] -= 0.2 * square(a[:, ::2])
    return a


def shift_columns_right(a):
    np.add(a[:, 0:2], 1, out=a[:, 1:3])  # lane 1 reads what lane 0 writes: must not be split
    return a


def decode_clamped(rois, deltas):
    """mmdet's decode: fill d by lanes, clamp two of them in place, read all four back."""
    d = np.empty_like(deltas)
    for k in range(4):
        d[:, k::4] = deltas[:, k::4] * (k + 1)
    np.clip(d[:, 2::4], -1, 1, out=d[:, 2::4])  # passes lanes 0 and 1 through unchanged
    w = (rois[:, 2] - rois[:, 0])[:, None]
    boxes = np.empty_like(deltas)
    boxes[:, 0::4] = rois[:, 0:1] + w * d[:, 0::4]
    boxes[:, 1::4] = rois[:, 1:2] + w * d[:, 1::4]
    boxes[:, 2::4] = boxes[:, 0::4] + w * np.exp(d[:, 2::4])
    boxes[:, 3::4] = boxes[:, 1::4] + w * np.exp(d[:, 3::4])
    np.clip(boxes[:, 0::2], 0, 9, out=boxes[:, 0::2])  # reads (N,) lanes of (N, 1) writes
    return boxes


def decode_classes(rois, deltas):
    """delta2bbox with class-specific deltas: 5 classes x 4 coordinates, clipped through
    stride-2 views of all 20 columns (wider than a lane axis)."""
    w = (rois[:, 2] - rois[:, 0])[:, None]
    boxes = np.empty_like(deltas)
    for k in range(4):
        boxes[:, k::4] = rois[:, k : k + 1] + w * deltas[:, k::4]
    np.clip(boxes[:, 0::2], 0, 9, out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, 7, out=boxes[:, 1::2])
    return boxes


def stencil_steps(u):
    """Two smoothing steps: the second reads the first's interior exactly (u[1:-1]) and shifted."""
    for _ in range(2):
        new = u.copy()
        new[1:-1] = 0.5 * u[1:-1] + 0.25 * (u[:-2] + u[2:])
        u[...] = new
    return u


def convert_formats(b):
    """xyxy -> xywh in place on the argument, then back on a copy (YOLO/DETR box formats)."""
    b[:, 2:] -= b[:, :2]
    b[:, :2] += b[:, 2:] * 0.5
    c = b.copy()
    c[:, :2] -= c[:, 2:] * 0.5
    c[:, 2:] += c[:, :2]
    return c


def normalize(img):
    for k, (m, s) in enumerate(((1.0, 3.0), (3.0, 6.0), (5.0, 7.0))):  # NB: no power of two: divisions
        img[..., k] -= m  # each channel rewritten in place: one run, the later value wins
        img[..., k] /= s
    return img


def log_deltas(p, g):
    out = np.empty_like(p)
    out[:, 0] = np.log(g[:, 0] / p[:, 0])
    out[:, 1] = np.log(g[:, 1] / p[:, 1])
    out[:, 2] = np.log(g[:, 2] / p[:, 2])
    out[:, 3] = np.log(g[:, 3] / p[:, 3])
    return out


def cartpole(state, forces, dt=0.02):
    """Cart-pole Euler steps (tests/test_corpus_accept3.py): the state unpacked, updated entry by
    entry in place, copied to a history at every step."""
    hist = np.empty((forces.shape[0] + 1, 4))
    hist[0] = state
    for t in range(forces.shape[0]):
        x, xd, th, thd = state
        ct, st = np.cos(th), np.sin(th)
        temp = (forces[t] + 0.05 * thd * thd * st) / 1.1
        thacc = (9.8 * st - ct * temp) / (0.5 * (4.0 / 3.0 - 0.1 * ct * ct / 1.1))
        xacc = temp - 0.05 * thacc * ct / 1.1
        state[0] += dt * xd
        state[1] += dt * xacc
        state[2] += dt * thd
        state[3] += dt * thacc
        hist[t + 1] = state
    return hist


PROGRAMS = [
    (convert_formats, lambda rng: (rng.uniform(1, 9, (6, 4)),)),
    (normalize, lambda rng: (rng.uniform(0, 255, (4, 5, 3)),)),
    (log_deltas, lambda rng: (rng.uniform(1, 9, (6, 4)), rng.uniform(1, 9, (6, 4)))),
    (decode_clamped, lambda rng: (rng.uniform(0, 9, (6, 4)), rng.normal(size=(6, 4)))),
    (decode, lambda rng: (rng.uniform(0, 9, (6, 4)), rng.normal(size=(6, 8)))),
    (decode_classes, lambda rng: (rng.uniform(0, 9, (6, 4)), rng.normal(scale=4, size=(6, 20)))),
    (partial_rows, lambda rng: (rng.normal(size=(3, 4)),)),
    (stencil_steps, lambda rng: (rng.normal(size=9),)),
    (inplace_columns, lambda rng: (rng.normal(size=(5, 4)),)),
    (clip_columns, lambda rng: (rng.normal(scale=4, size=(5, 4)),)),
    (alternating_columns, lambda rng: (rng.normal(size=(5, 8)),)),
    (shift_columns_right, lambda rng: (rng.normal(size=(3, 4)),)),
    (cartpole, lambda rng: (rng.normal(0, 0.1, 4), rng.choice([-10.0, 10.0], 12))),
]


# NB: every program with all passes, and the single passes in turn (one per program) in the default run
@pytest.mark.parametrize("program, p", rotated(PROGRAMS, [optimize, rename_whole_writes, exact_reciprocals, split_lanes,
                                                          coalesce_writes,
                                                          forward_reads, merge_assembles, eliminate_dead_writes,
                                                          reassociate_chains, materialize_chains],
                                               always_first=True, name=lambda program: program[0].__name__))
def test_pass_preserves_results(program, p):
    f, make = program
    args = make(np.random.default_rng(0))
    assert_preserves(p, traced(f, *args), *args)


@pytest.mark.parametrize("shape, strides, start", [((3, 3), (1, 1), 0), ((3, 3), (1, -1), 3), ((4, 2), (1, 1), 0),
                                                   ((2, 3), (2, 1), 0), ((3, 4), (2, -1), 4)])
def test_writes_through_a_view_that_overlaps_itself_keep_numpys_meaning(shape, strides, start):
    """``as_strided(x, (3, 3), (8, 8)) += 1`` puts one element of x in up to three places of the
    view. With the passes on: split into lanes, a later lane read what an earlier one wrote (x[1]
    added twice); coalesced, its 12 places counted as 12 elements, the write "covered" x and zeroed
    the 3 it misses; forwarded, a read back took each place's own value where NumPy's elements at
    one place read the last one written (a review's find, session 24, and what its repro led to)."""
    def f(x, y):
        v = np.lib.stride_tricks.as_strided(x[start:], shape=shape, strides=[s * 8 for s in strides])
        v += 1.0
        np.multiply(v, 2.0, out=v)
        w = v * 1.0
        v[...] = y
        return w, v.sum(axis=-1), v * 1.0, x

    check_against_numpy(f, np.arange(12.0), np.arange(10.0, 10.0 + np.prod(shape)).reshape(shape), rtol=0, atol=0)
    program = traced(f, np.arange(12.0), np.zeros(shape))
    assert split_lanes(program) is program and coalesce_writes(program) is program


def overlapping_program(seed: int):
    """A random program of in-place writes, fills and reads through 1-3 ``as_strided`` views of one
    array of 16 floats, with strides from -2 to 3 elements (zero too): views that overlap themselves
    and each other. Every write's value is the same at each of its places, so NumPy's result does
    not depend on the order it writes them in."""
    rng = np.random.default_rng(seed)
    views, count = [], rng.integers(1, 4)
    while len(views) < count:
        shape = tuple(int(n) for n in rng.integers(1, 5, rng.choice([1, 2, 2, 3])))
        drawn = rng.choice([-2, -1, 0, 1, 1, 2, 3], len(shape))
        strides = tuple(int(s) if s or n == 1 else 1 for s, n in zip(drawn, shape))
        lo = sum(min(0, s * (n - 1)) for s, n in zip(strides, shape))
        hi = sum(max(0, s * (n - 1)) for s, n in zip(strides, shape))
        if hi - lo < 16:
            views.append((shape, strides, int(rng.integers(-lo, 16 - hi))))
    steps = [(int(rng.integers(len(views))), str(rng.choice(["+=", "*=", "fill", "read", "sum"])),
              float(rng.choice([0.5, 2.0, -1.0]))) for _ in range(rng.integers(2, 6))]

    def f(x):
        vs = [np.lib.stride_tricks.as_strided(x[start:], shape, [s * x.itemsize for s in strides])
              for shape, strides, start in views]
        out = []
        for k, what, c in steps:
            if what == "+=":
                vs[k] += c
            elif what == "*=":
                np.multiply(vs[k], c, out=vs[k])
            elif what == "fill":
                vs[k][...] = c
            else:
                out.append(vs[k] * 1.0 if what == "read" else vs[k].sum(axis=-1))
        return out, x

    return f


@pytest.mark.parametrize("seed", slow_beyond(range(48), 12))
def test_random_writes_through_views_that_overlap_themselves_keep_numpys_meaning(seed):
    """The test above's bugs, drawn: 17 of 60 such programs were wrong with the passes on before
    session 25's fix (none with the passes off)."""
    check_against_numpy(overlapping_program(seed), np.arange(16.0), rtol=0, atol=0)


def test_coalescing_tiles_a_fresh_storage_without_initialising_it():
    rng = np.random.default_rng(0)
    program = unvectorized(traced(decode, rng.uniform(size=(6, 4)), rng.normal(size=(6, 8))))
    prims = [op.prim for op in program.ops]
    assert prims.count("assemble") == 1
    assert "full" not in prims  # np.empty_like's fill is dead: the writes tile it
    assemble = next(op for op in program.ops if op.prim == "assemble")
    # four strided writes of 2 columns each, split into their 8 single-column lanes
    assert assemble.params["covering"] and len(assemble.params["views"]) == 8
    assert all(v.shape == (6,) for v in assemble.params["views"])


def test_forwarding_reads_the_written_value_directly():
    program = traced(partial_rows, np.zeros((3, 4)))
    forwarded = forward_reads(program)
    reader = [op for op in forwarded.ops if op.prim == "ufunc" and op.params["name"] == "add"][0]
    assert reader.ins[0].storage.origin.startswith("forwarded write")


def test_a_write_that_shifted_reads_need_anyway_is_not_forwarded():
    """u[:-2] and u[2:] read the written interior in part, so u is built either way; handing
    u[1:-1] the written value as well would make XLA compute it twice (wave_1d)."""
    program = traced(stencil_steps, np.zeros(9))
    assert forward_reads(program) is program


def test_forwarding_looks_past_assembles_of_other_lanes_and_unit_axes():
    """Every read of d and of boxes takes a written value: neither is ever materialized."""
    rng = np.random.default_rng(0)
    program = unvectorized(traced(decode_clamped, rng.uniform(size=(6, 4)), rng.normal(size=(6, 4))))
    d, boxes = (s for s in program.storages if s.origin.startswith("full"))
    assert not any(a.storage in (d, boxes) for op in program.ops for a in op.reads())
    assert [op.prim for op in program.ops].count("assemble") == 1  # the output, once: clip merged in


def test_forwarding_stops_at_an_assemble_that_wrote_part_of_the_read():
    def f(a):
        a[:, 0::2] = 1.0
        a[:, 1::2] = 2.0
        return a[:, 1:3] * 1  # straddles two lanes: read from the assembled storage
    program = optimize(traced(f, np.zeros((3, 4))))
    mul = next(op for op in program.ops if op.prim == "ufunc")
    assert mul.ins[0].storage is program.inputs[0]


def test_lanes_flow_through_fresh_arrays_and_whole_copies():
    """b[:, 2:] * 0.5 is split into lanes because b was written by lanes; c = b.copy() is read
    lane by lane from the values written into b: only the two results are assembled."""
    program = unvectorized(traced(convert_formats, np.ones((6, 4))))
    b = program.inputs[0]
    assembles = [op for op in program.ops if op.prim == "assemble"]
    assert len(assembles) == 2 and all(op.params["covering"] for op in assembles)
    first = program.ops.index(assembles[0])
    assert not any(a.storage is b for op in program.ops[first + 1 :] for a in op.reads())


def test_rewriting_the_same_view_stays_in_one_run():
    program = unvectorized(traced(normalize, np.ones((4, 5, 3))))
    assert [op.prim for op in program.ops].count("assemble") == 1
    assert not any(op.prim == "copy" for op in program.ops)


def fill_table_cell_by_cell(a, b):
    h = np.zeros((a.shape[0] + 1, b.shape[0] + 1))
    for i in range(1, a.shape[0] + 1):
        for j in range(1, b.shape[0] + 1):
            h[i, j] = np.maximum(h[i - 1, j - 1] + (a[i - 1] == b[j - 1]), h[i - 1, j] - 1)
    return h


def test_coalescing_compares_a_write_only_with_the_writes_it_may_meet():
    """A dynamic-programming table filled cell by cell: each write was compared exactly with every
    earlier one of its run and each storage's runs were sought over all ops (30,888 exact overlap
    tests for 12 x 12 cells, a 24 x 24 table compiled in 121 s); now those whose spans meet."""
    a, b = np.arange(12) % 4, np.arange(12) % 3
    calls = []
    with mock.patch("elena_jax.passes.coalesce.overlap", side_effect=lambda x, y: calls.append(1) or overlap(x, y)):
        check_against_numpy(fill_table_cell_by_cell, a, b, optimize=(True,), rtol=0, atol=0)
    assert 0 < len(calls) <= 3 * a.size * b.size


def red_black_sweeps(phi, rho):
    for _ in range(2):
        for oi, oj in ((1, 1), (2, 2), (1, 2), (2, 1)):
            c = phi[oi:-1:2, oj:-1:2]
            gs = 0.25 * (phi[oi - 1:-2:2, oj:-1:2] + phi[oi + 1::2, oj:-1:2][:c.shape[0]] + phi[oi:-1:2, oj - 1:-2:2]
                         + phi[oi:-1:2, oj + 1::2][:, :c.shape[1]] + rho[oi:-1:2, oj:-1:2])
            c += 1.5 * (gs - c)
    return phi


def test_the_points_of_a_grid_are_not_lanes():
    """Every other column of every other row of a 17 x 17 grid is (7, 7), a last axis as short as a
    box's; split into lanes, 10 red-black sweeps took XLA 52 s to compile. Lanes lie in short rows."""
    phi, rho = np.zeros((17, 17)), np.random.default_rng(0).normal(size=(17, 17))
    program = traced(red_black_sweeps, phi, rho)
    assert split_lanes(program) is program
    check_against_numpy(red_black_sweeps, phi, rho)


def test_expensive_pieces_are_placed_by_update_slices_and_cheap_ones_by_select():
    rng = np.random.default_rng(0)
    logs = unvectorized(traced(log_deltas, rng.uniform(1, 2, (6, 4)), rng.uniform(1, 2, (6, 4))))
    decoded = unvectorized(traced(decode, rng.uniform(size=(6, 4)), rng.normal(size=(6, 8))))
    (a,), (d,) = ([op for op in p.ops if op.prim == "assemble"] for p in (logs, decoded))
    assert a.params["slices"] and not d.params["slices"]


def test_dead_write_is_removed():
    program = traced(partial_rows, np.zeros((3, 4)))
    kept = eliminate_dead_writes(program)
    values = [op.ins[0].value for op in kept.ops if op.prim == "copy" and hasattr(op.ins[0], "value")]
    assert 1.0 not in values and 2.0 in values


def test_no_scatter_or_gather_in_compiled_decode():
    rng = np.random.default_rng(0)
    args = (rng.uniform(size=(64, 4)), rng.normal(size=(64, 8)))
    g = elena_jax.pure(decode)
    with jax.enable_x64(True):
        hlo = jax.jit(g).lower(*args).compile().as_text()
    assert "scatter(" not in hlo and "gather(" not in hlo


def test_explain_reports_the_passes_that_fired():
    rng = np.random.default_rng(0)
    text = str(elena_jax.explain(decode, optimize=True)(rng.uniform(size=(6, 4)), rng.normal(size=(6, 8))))
    assert "passes fired: coalesce_writes" in text
    assert "== program after optimization" in text


def test_lane_splitting_splits_interleaved_columns_but_not_overlapping_shifts():
    split = split_lanes(traced(clip_columns, np.zeros((5, 4))))
    clips = [op for op in split.ops if op.prim == "ufunc"]
    assert len(clips) == 4 and all(op.outs[0].view.shape == (5,) for op in clips)
    kept = split_lanes(traced(shift_columns_right, np.zeros((3, 4))))
    assert [op.outs[0].view.shape for op in kept.ops if op.prim == "ufunc"] == [(3, 2)]


def shoelace(poly):
    """Polygon areas (campaign H's p40): the vertices of each polygon along the last axis."""
    x, y = poly[..., 0], poly[..., 1]
    a = x * np.roll(y, -1, axis=1)
    a -= np.roll(x, -1, axis=1) * y
    return 0.5 * np.abs(a.sum(axis=1))


def test_a_whole_array_rewritten_in_place_is_split_only_after_writes_by_lanes():
    """Session 27: ``a -= ...`` over all of an (N, 8) array was split into 8 column ops, assembled
    back and vectorized: XLA's compiled program accessed 85 MB against 33 unsplit at 62,500
    polygons (6.1 against 2.4 ms). Nothing wrote a by lanes: it stays one op. After ops split
    into lanes wrote b, a whole rewrite of b is split too."""
    poly = np.random.default_rng(0).normal(size=(6, 8, 2))
    program = split_lanes(traced(shoelace, poly))
    assert [op.outs[0].view.shape for op in ufuncs(program, "subtract")] == [(6, 8)]
    check_against_numpy(shoelace, poly)
    b = np.random.default_rng(0).uniform(1, 9, (6, 4))
    lanes = split_lanes(traced(halves_then_scale, b))
    assert [op.outs[0].view.shape for op in ufuncs(lanes, "multiply")] == [(6,)] * 4
    check_against_numpy(halves_then_scale, b)


def halves_then_scale(b):
    """Boxes' second half rewritten (split into lanes), then the whole array scaled in place."""
    b[:, 2:] -= b[:, :2]
    b *= 0.5
    return b


def test_a_wide_strided_op_splits_into_the_lanes_written_before():
    """The clips through stride-2 views of 20 columns written as stride-4 lanes become one clip
    per lane (5 elements per row each), which merging folds into the lane values."""
    rng = np.random.default_rng(0)
    program = traced(decode_classes, rng.uniform(size=(6, 4)), rng.normal(size=(6, 20)))
    clips = ufuncs(split_lanes(program), "clip")
    assert [op.outs[0].view.strides for op in clips] == [(20, 4)] * 4
    assert sorted(op.outs[0].view.offset for op in clips) == [0, 1, 2, 3]
    rewritten = split_lanes(traced(rewrite_then_clip, np.zeros((3, 36))))
    assert [op.outs[0].view.shape for op in ufuncs(rewritten, "clip")] == [(3, 18)]
    kept = split_lanes(traced(shift_wide_lanes, np.zeros((3, 18))))
    assert [op.outs[0].view.shape for op in ufuncs(kept, "add")] == [(3, 8)]
    check_against_numpy(shift_wide_lanes, np.zeros((3, 18)))


def rewrite_then_clip(b):
    for k in range(4):
        b[:, k::4] = k
    b[:, :] = b[:, ::-1]  # the lanes are gone: the clip is left whole
    np.clip(b[:, 0::2], 0, 2, out=b[:, 0::2])
    return b


def shift_wide_lanes(a):
    for k in range(4):
        a[:, k::4] = k
    np.add(a[:, 0:16:2], 1, out=a[:, 2::2])  # a lane's write changes what another reads: kept whole
    return a


def class_corners(c, wh):
    """Corners of 9 class boxes per row from (cx, cy) and (w, h) pairs: lanes 0, 1 subtract
    and lanes 2, 3 add, so a vectorized form would select by lane."""
    boxes = np.empty((c.shape[0], 2 * c.shape[1]))
    boxes[:, 0::4] = c[:, 0::2] - wh[:, 0::2] / 2
    boxes[:, 1::4] = c[:, 1::2] - wh[:, 1::2] / 2
    boxes[:, 2::4] = c[:, 0::2] + wh[:, 0::2] / 2
    boxes[:, 3::4] = c[:, 1::2] + wh[:, 1::2] / 2
    np.clip(boxes[:, 0::2], 0, 9, out=boxes[:, 0::2])
    np.clip(boxes[:, 1::2], 0, 7, out=boxes[:, 1::2])
    return boxes


def test_wide_lanes_computed_differently_are_stacked_not_vectorized():
    """(R, 9, 4) lanes: one assemble, stacked by the lowering, and nothing reads it back (on
    XLA:CPU the per-lane-select form of wide lanes was 2.7x slower than the stack)."""
    rng = np.random.default_rng(0)
    args = rng.uniform(0, 9, (6, 18)), rng.uniform(0, 4, (6, 18))
    program = optimize(traced(class_corners, *args))
    assert "vectorize_lanes" not in program.fired
    (a,) = [op for op in program.ops if op.prim == "assemble"]
    assert a.params["stack"] and not a.params["materialize"]
    assert program.ops[-1] is a
    check_against_numpy(class_corners, *args)


def normalize_to_bgr(img):
    img = normalize(img)
    img[...] = img[..., ::-1]  # every element read once more, in another order
    return img


def normalize_then_sum_two_channels(img):
    img = normalize(img)
    return img, img[..., :2].sum()  # a read of part of the assembled value


def test_an_assemble_read_whole_in_another_order_is_not_materialized():
    """A reversed (or transposed) read of all of an assembled storage reads every element once:
    the assemble is not materialized, so its lanes are still vectorized (the bench's
    normalize_channels); a read of part of it still materializes it."""
    rng = np.random.default_rng(0)
    img = rng.uniform(0, 255, (4, 9, 3))
    program = optimize(traced(normalize_to_bgr, img))
    assert "vectorize_lanes" in program.fired and not any(op.prim == "assemble" for op in program.ops)
    check_against_numpy(normalize_to_bgr, img)
    partial = optimize(traced(normalize_then_sum_two_channels, img))
    (a,) = [op for op in partial.ops if op.prim == "assemble"]
    assert a.params["materialize"] and "vectorize_lanes" not in partial.fired
    check_against_numpy(normalize_then_sum_two_channels, img)


def test_wide_lanes_computed_alike_are_still_vectorized():
    """Colour channels of an (H, W, 3) image normalized alike need no select by lane: one
    subtract and one divide over the whole image, as the hand-written per-channel vectors."""
    rng = np.random.default_rng(0)
    program = optimize(traced(normalize, rng.uniform(0, 255, (4, 9, 3))))
    assert "vectorize_lanes" in program.fired and not any(op.prim == "assemble" for op in program.ops)
    (sub,), (div,) = ufuncs(program, "subtract"), ufuncs(program, "divide")
    assert sub.outs[0].view.shape == div.outs[0].view.shape == (4, 9, 3)
    decoded = optimize(traced(decode_classes, rng.uniform(size=(6, 4)), rng.normal(size=(6, 36))))
    assert not any(op.prim in ("assemble", "select_lanes") for op in decoded.ops)


def classes_in_place(boxes, scale):
    """Wide lanes of an argument, clipped in place through a stride-2 view after lane writes."""
    for k in range(4):
        boxes[:, k::4] *= scale[k]
    np.clip(boxes[:, 1::2], -1, 1, out=boxes[:, 1::2])
    np.minimum(boxes[:, 0::2], boxes[:, 1::2], out=boxes[:, 0::2])
    return boxes


@pytest.mark.parametrize("classes", [1, 2, 3, 9])
@pytest.mark.parametrize("f", [decode_classes, classes_in_place])
def test_wide_lane_programs_agree_with_numpy(f, classes):
    rng = np.random.default_rng(classes)
    second = rng.normal(size=(9, 4 * classes)) if f is decode_classes else np.array([0.5, -2.0, 3.0, 1.5])
    check_against_numpy(f, rng.normal(size=(9, 4 * classes)) if f is classes_in_place else rng.uniform(size=(9, 4)),
                        second)


# --- lane vectorization --------------------------------------------------------------------


def late_write(a):
    """Lanes 0 and 1 read ``a`` before it is written, lanes 2 and 3 after."""
    out = np.empty_like(a)
    out[:, 0] = a[:, 0] * 2
    out[:, 1] = a[:, 1] * 2
    a[:, :2] = -1.0
    out[:, 3] = a[:, 3] * 2
    out[:, 2] = a[:, 2] * 2
    return out


def per_lane_constants(a):
    out = np.empty((a.shape[0], 3), np.float32)
    out[:, 2] = a[:, 0] + 2
    out[:, 0] = a[:, 0] + 1
    out[:, 1] = a[:, 0] + 0.1  # rounded to float32 in every lane, as NumPy's float32 loop does
    return out


VECTORIZED = [
    (decode, lambda rng: (rng.uniform(0, 9, (6, 4)), rng.normal(size=(6, 8)))),
    (log_deltas, lambda rng: (rng.uniform(1, 9, (6, 4)), rng.uniform(1, 9, (6, 4)))),
    (convert_formats, lambda rng: (rng.uniform(1, 9, (6, 4)),)),
    (late_write, lambda rng: (rng.normal(size=(5, 4)),)),
    (per_lane_constants, lambda rng: (rng.uniform(0, 9, (5, 2)).astype(np.float32),)),
]


@pytest.mark.parametrize("f,make", VECTORIZED, ids=lambda x: getattr(x, "__name__", ""))
def test_vectorizing_preserves_results(f, make):
    args = make(np.random.default_rng(0))
    assert_preserves(vectorize_lanes, unvectorized(traced(f, *args)), *args)
    check_against_numpy(f, *make(np.random.default_rng(1)))


def ufuncs(program, name):
    return [op for op in program.ops if op.prim == "ufunc" and op.params["name"] == name]


def test_lanes_computed_alike_are_one_op_over_all_lanes():
    """decode's eight column expressions are one multiply and one add over (N, 8), and the
    deltas are read as one interleaved (N, 8) view: no assemble is left."""
    rng = np.random.default_rng(0)
    program = optimize(traced(decode, rng.uniform(size=(6, 4)), rng.normal(size=(6, 8))))
    assert "vectorize_lanes" in program.fired
    assert not any(op.prim == "assemble" for op in program.ops)
    (mul,), (add,) = ufuncs(program, "multiply"), ufuncs(program, "add")
    assert mul.outs[0].view.shape == add.outs[0].view.shape == (6, 8)
    deltas = program.inputs[1]
    assert any(a.storage is deltas and a.view.shape == (6, 8) for a in mul.reads())


def test_expensive_lanes_are_computed_once_per_element():
    rng = np.random.default_rng(0)
    program = optimize(traced(log_deltas, rng.uniform(1, 2, (6, 4)), rng.uniform(1, 2, (6, 4))))
    (log,) = ufuncs(program, "log")
    assert log.outs[0].view.shape == (6, 4)


def xywh_to_xyxy(b):
    out = np.empty_like(b)
    out[:, :2] = b[:, :2] - b[:, 2:] * 0.5
    out[:, 2:] = b[:, :2] + b[:, 2:] * 0.5
    return out


def test_different_cheap_ufuncs_are_selected_by_lane():
    """xywh -> xyxy: lanes 0, 1 subtract and lanes 2, 3 add the same operands. (convert_formats'
    copy, whose lanes 2, 3 read the new lanes 0, 1, is not vectorized since session 27: the new
    lanes 0, 1 were computed in both groups.)"""
    b = np.random.default_rng(0).uniform(1, 9, (6, 4))
    program = optimize(traced(xywh_to_xyxy, b))
    selects = [op for op in program.ops if op.prim == "select_lanes"]
    assert any(op.params["lanes"] == (0, 0, 1, 1) for op in selects)
    check_against_numpy(xywh_to_xyxy, b)


def test_lanes_read_from_an_argument_are_marked_stored():
    """How a select of lanes is lowered off the CPU (lower/rules.STACKED_OFF_CPU): an argument's
    columns are selected there too, computed lanes stacked."""
    b = np.random.default_rng(0).uniform(1, 9, (6, 4))
    selects = [op.params for op in optimize(traced(xywh_to_xyxy, b)).ops if op.prim == "select_lanes"]
    assert {(p["lanes"], p["stored"]) for p in selects} == {((0, 1, 0, 1), True), ((0, 0, 1, 1), False)}


def computed(program) -> int:
    """The elements the program's ufuncs compute."""
    return sum(op.outs[0].view.size for op in program.ops if op.prim == "ufunc")


def test_lanes_are_not_vectorized_beside_lane_ops_that_stay_live():
    """Session 27: in alternating_columns each odd lane reads the new even lanes. Vectorized,
    both lane groups were computed over all 8 lanes and selected, while the even lanes' ops
    stayed live for the odd lanes' reads: 2.6x the elements computed, and XLA:CPU's compiled
    program read and wrote 4.4x the bytes of the unoptimized one at (1e5, 8) (its cost analysis;
    ten steps 15 against 3.4 ms). Now each lane is computed once."""
    for f, width in [(alternating_columns, 8), (alternating_columns, 4), (alternating_squares, 4)]:
        a = np.random.default_rng(0).normal(size=(64, width))
        program = traced(f, a)
        assert computed(optimize(program)) <= computed(program), (f.__name__, width)
        check_against_numpy(f, a)


def alternating_squares(a):
    """alternating_columns with ``** 2``: at 4 lanes the odd lanes' square was vectorized too, the
    new even lanes computed inside it and again for themselves (a review's find, session 27)."""
    return alternating_columns(a, square=lambda e: e ** 2)


def test_per_lane_scalars_become_one_constant_vector():
    program = optimize(traced(per_lane_constants, np.ones((5, 2), np.float32)))
    (add,) = ufuncs(program, "add")
    vector = next(x.value for x in add.ins if not hasattr(x, "storage"))
    np.testing.assert_array_equal(vector, np.array([1, 0.1, 2], np.float32))


def returns_by_column(prices):
    """A loop over columns, each written in two pieces (campaign N's returns_loop_cols)."""
    for j in range(prices.shape[1]):
        col = prices[:, j]
        col[1:] = col[1:] / col[:-1] - 1
        col[0] = 0.0
    return prices


def test_a_loops_column_pieces_are_vectorized_group_by_group():
    """The lanes of ``prices[1:, :]`` and those of ``prices[0, :]``: one divide over all columns
    and one constant, placed by an assemble of two pieces (there were 40 pieces, and 20 divides
    of strided columns: 1.6-2x the hand form ``zeros.at[1:].set(p[1:] / p[:-1] - 1)``, equal now)."""
    prices = np.random.default_rng(0).uniform(1, 2, (30, 20))
    program = optimize(traced(returns_by_column, prices))
    assert "vectorize_lanes" in program.fired
    (divide,) = ufuncs(program, "divide")
    assert divide.outs[0].view.shape == (29, 20)
    (assemble,) = [op for op in program.ops if op.prim == "assemble"]
    assert sorted(v.shape for v in assemble.params["views"]) == [(20,), (29, 20)]
    assert assemble.params["slices"] is False  # NB: re-marked: 40 pieces were update slices
    check_against_numpy(returns_by_column, prices, rtol=0, atol=0)


def returns_then_scaled(p):
    returns_by_column(p)
    for j in range(p.shape[1]):
        col = p[:, j]  # NB: each column of the returns read on its own: their assemble is materialized
        col -= col.min()
        col /= col.max()
    return p


def test_the_groups_of_a_materialized_assemble_are_vectorized_and_it_stays_materialized():
    """bench/cases/column_loops: the returns' assemble is read column by column after it, so it is
    computed into memory once; its two groups are still vectorized (100,000 values: 2.5 -> 2.0 ms)."""
    p = np.random.default_rng(0).uniform(1, 2, (30, 20))
    program = optimize(traced(returns_then_scaled, p))
    first = next(op for op in program.ops if op.prim == "assemble")
    assert first.params["materialize"] and sorted(v.shape for v in first.params["views"]) == [(20,), (29, 20)]
    check_against_numpy(returns_then_scaled, p, rtol=0, atol=0)


def smoothed_with_fixed_ends(p):
    for j in range(p.shape[1]):
        col = p[:, j]
        col[1:-1] = 0.5 * (col[2:] + col[:-2])
        col[0] = 0.0
        col[-1] = -1.0 - j
    return p


def test_lanes_of_the_first_and_the_last_row_are_two_groups():
    """The pieces ``col[0]`` and ``col[-1]`` of every column have one shape: grouped by it alone
    they were no lane view (12 pieces placed one by one); as runs of adjacent offsets, the lanes
    of row 0 and of the last row."""
    p = np.random.default_rng(0).normal(size=(9, 6))
    (assemble,) = [op for op in optimize(traced(smoothed_with_fixed_ends, p)).ops if op.prim == "assemble"]
    assert sorted(v.shape for v in assemble.params["views"]) == [(6,), (6,), (7, 6)]
    check_against_numpy(smoothed_with_fixed_ends, p, rtol=0, atol=0)


@given(data=st.data(), rows=st.integers(2, 12), k=st.integers(2, 9))
@settings(max_examples=25, deadline=None)
def test_random_column_loops_written_in_pieces_equal_numpys(data, rows, k):
    """Loops writing some columns in a head piece and a tail piece, in either order, from the
    column's own shifted values, another column or a constant: to NumPy's bits."""
    cut = data.draw(st.integers(1, rows - 1))
    columns = data.draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=k, unique=True))
    head = data.draw(st.sampled_from(["zero", "per_column", "shifted", "other"]))
    tail_first = data.draw(st.booleans())

    def write_tail(col):
        col[cut:] = col[cut:] - col[:-cut] * 0.5

    def f(x):
        for j in columns:
            col = x[:, j]
            if tail_first:
                write_tail(col)
            if head == "zero":
                col[:cut] = 0.0
            elif head == "per_column":
                col[:cut] = j
            elif head == "shifted":
                col[:cut] = col[-cut:] + 1
            else:
                col[:cut] = x[:cut, (j + 1) % k]
            if not tail_first:
                write_tail(col)
        return x

    x = np.random.default_rng(rows * k + cut).normal(size=(rows, k))
    check_against_numpy(f, x, rtol=0, atol=0)


def zeros_of_both_signs(b):
    b[:, 0] = 0.0
    b[:, 1] = -0.0
    return b


def signed_zero_heads(p):
    for j in range(p.shape[1]):
        col = p[:, j]
        col[1:] = col[1:] * (0.0 if j == 0 else -0.0)
        col[0] = -0.0 if j == 1 else 0.0
    return p


def products_by_signed_zeros(x):
    out = np.empty((x.size, 2))
    out[:, 0] = x * 0.0
    out[:, 1] = x * -0.0
    return out


def complex_zeros(c):
    c[:, 0] = 0j
    c[:, 1] = complex(0.0, -0.0)
    return c


@pytest.mark.parametrize("f, x", [(zeros_of_both_signs, np.ones((2, 3))), (signed_zero_heads, np.ones((3, 3)) + 1),
                                  (products_by_signed_zeros, np.arange(4.0)),
                                  (complex_zeros, np.ones((2, 3), complex))], ids=lambda x: getattr(x, "__name__", ""))
def test_per_lane_zeros_keep_their_signs(f, x):
    """A review's find (session 34): lanes of 0.0 and -0.0 compared equal and all took lane 0's
    constant (a vectorized product's operand, or a group's head constant)."""
    check_against_numpy(f, x, rtol=0, atol=0)


def lanes_read_before_and_after_a_write(x, y, z):
    z += x[:, :1]
    z += y  # y's lanes read before the write below ...
    y -= x[:1]
    y += z  # ... and after it: one lane view of y may not stand for both
    return y


def test_a_view_read_before_and_after_a_write_is_two_different_leaves():
    """Review finding: the vectorizer's memo keyed lanes by view alone and reused the lanes of y
    read after ``y -= x[:1]`` for those read before it (wrong y, passes on only)."""
    x = np.array([[1.0, 2, 3], [4, 5, 6]])
    check_against_numpy(lanes_read_before_and_after_a_write, x, x * 10, x * 100)


def test_reads_of_a_storage_written_since_are_not_moved():
    """late_write's lanes 0 and 1 read ``a`` before ``a[:, :2] = -1``: they cannot be read from
    ``a`` where the assemble was, so the assemble stays."""
    program = optimize(traced(late_write, np.ones((5, 4))))
    assert "vectorize_lanes" not in program.fired


def state_in_place(y, steps):
    """A state vector updated lane by lane and copied out at every step of a loop."""
    hist = np.zeros((steps + 1, 2))
    for t in range(steps):
        flow = 0.3 * y[0] * y[1]
        y[0] -= flow
        y[1] += flow
        hist[t + 1] = y
    return hist


def state_in_fresh_arrays(y, steps):
    """The same loop building each step's state as a new array."""
    hist = np.zeros((steps + 1, 2))
    for t in range(steps):
        flow = 0.3 * y[0] * y[1]
        new = np.empty(2)
        new[0] = y[0] - flow
        new[1] = y[1] + flow
        y = new
        hist[t + 1] = y
    return hist


@pytest.mark.parametrize("f", [state_in_place, state_in_fresh_arrays])
def test_a_state_vector_updated_in_a_loop_is_vectorized_once_per_step(f):
    """Acceptance finding: each step's assemble of the state was vectorized from the scalar ops
    back to the loop's start, a program quadratic in the steps (40 steps: 2,900 ops where the
    traced program has 442). Each step reuses the previous step's vectorized lanes now."""
    y, steps = np.array([0.9, 0.1]), 40
    program = traced(f, y, steps)
    after = optimize(program)
    assert "vectorize_lanes" in after.fired
    assert len(after.ops) < 1.25 * len(program.ops)
    assert sum(op.prim == "select_lanes" for op in after.ops) <= steps + 1
    check_against_numpy(f, y, steps)


def compiled_instructions(f, *args, optimize: bool) -> int:
    """The instructions of ``f``'s program as XLA compiled it."""
    with jax.enable_x64(True):
        run = elena_jax.functionalize(f, optimize=optimize).trace(args, {})[0].run
        return sum(" = " in line for line in run.lower(*args).compile().as_text().splitlines())


def test_a_loop_state_compiles_to_no_more_than_the_unoptimized_program():
    """Acceptance finding: forwarding hands each step's state to the next as values, and XLA:CPU
    computes a cheap value again in every fusion that reads it, so each step recomputed the
    state from the loop's start (cart-pole, 100 steps: 109,000 HLO lines against 21,500, 19 s
    first call against 5.4). Values deep in a chain and read twice are materialized now."""
    rng = np.random.default_rng(0)
    state, forces = np.array([0.0, 0.1, 0.05, -0.1]), rng.choice([-10.0, 10.0], 30)
    program = optimize(traced(cartpole, state, forces))
    assert "materialize_chains" in program.fired
    on, off = (compiled_instructions(cartpole, state, forces, optimize=opt) for opt in (True, False))
    assert on <= 1.2 * off  # NB: 2.4x without materialization
    check_against_numpy(cartpole, state, forces, optimize=(True,))  # NB: off: test_pass_preserves_results


def minmod(a, b):
    return np.where(a * b > 0, np.sign(a) * np.minimum(np.abs(a), np.abs(b)), 0.0)


def muscl(u, steps=12):
    """MUSCL/minmod Burgers steps (the acceptance campaign's p20): the state written in place
    through a view of all but one element, then read through five shifted views."""
    for _ in range(steps):
        d = np.zeros_like(u)
        d[1:-1] = minmod(u[1:-1] - u[:-2], u[2:] - u[1:-1])
        ul = u + 0.5 * d
        flux = 0.5 * ul * ul
        u[1:] -= 0.1 * (flux[1:] - flux[:-1])
    return u


def test_a_loop_state_written_through_a_large_view_is_materialized():
    """An acceptance campaign's find, session 24: ``u[1:] -= ...`` is lowered as a select over the
    whole storage (view.placed), which XLA fuses into the next step's five shifted reads of u,
    but the depth model put every partial write in memory, so nothing was materialized and each
    step recomputed the ones before (12 steps: 1,107 HLO instructions, 169 selects, as many as
    unoptimized; 1e6 elements, 3 steps: 1.9-2.3x the hand-written jax.numpy). Such a write
    continues the chain now (12 steps: 725 instructions, 65 selects; 3 steps: 1.1-1.5x)."""
    u = np.random.default_rng(0).random(1000)
    program = optimize(traced(muscl, u))
    assert "materialize_chains" in program.fired
    on, off = (compiled_instructions(muscl, u, optimize=opt) for opt in (True, False))
    assert on <= 0.8 * off  # NB: 1.0x before
    check_against_numpy(muscl, u)


def erosion(h, steps=2):
    """Thermal erosion of a heightmap (acceptance campaign E): neighbour updates along both axes."""
    for _ in range(steps):
        d = np.zeros_like(h)
        move = np.float32(0.1) * np.clip(h[:, :-1] - h[:, 1:] - np.float32(0.05), 0, None)
        d[:, :-1] -= move
        d[:, 1:] += move
        move = np.float32(0.1) * np.clip(h[:-1] - h[1:] - np.float32(0.05), 0, None)
        d[:-1] -= move
        d[1:] += move
        h += d
    return h


def compiled_flops(f, *args, optimize: bool) -> float:
    """XLA's count of the floating-point operations of ``f``'s compiled program."""
    with jax.enable_x64(True):
        run = elena_jax.functionalize(f, optimize=optimize).trace(args, {})[0].run
        cost = run.lower(*args).compile().cost_analysis()
    return (cost[0] if isinstance(cost, list) else cost)["flops"]


def test_a_grid_updated_along_both_axes_is_not_split_into_lanes():
    """Acceptance campaign E's find (session 29): the column updates of a (20000, 7) heightmap
    (``d[:, :-1] -= m``) were split into lanes, and so were its row updates (``d[:-1] -= m``: 7
    lanes of cells shifted by a row) and ``h += d``: 11x the flops of the unoptimized program, 6x
    its time, 4x its compile. Lanes are split only over views of all their storage's rows, and an
    array written since by an op not split is no longer read by lanes: 1.3e7 flops, 2.8e7
    unoptimized."""
    h = np.random.default_rng(0).uniform(0, 1, (500, 7)).astype(np.float32)
    program = optimize(traced(erosion, h))
    assert not any(op.prim == "ufunc" and op.outs[0].view.shape == (499,) for op in program.ops)
    # NB: 25x at two steps of (500, 7) before
    assert compiled_flops(erosion, h, optimize=True) <= 1.2 * compiled_flops(erosion, h, optimize=False)
    check_against_numpy(erosion, h)


def reflect(x, v, steps):
    """Particles reflected at the walls of the unit box through boolean masks (campaign H's p19)."""
    for _ in range(steps):
        x += 0.05 * v
        lo = x < 0.0
        x[lo] = -x[lo]
        v[lo] = -v[lo]
        hi = x > 1.0
        x[hi] = 2.0 - x[hi]
        v[hi] = -v[hi]
    return x, v


def reflect_with_mean(x, v, steps):
    """As reflect, and a reduction of v at every step: its fusion is one of its own."""
    for _ in range(steps):
        x += 0.05 * v
        v[x > 1.0] *= -1.0
        v -= 0.001 * v.mean()
    return x, v


def sines(x, steps):
    for _ in range(steps):
        x = np.sin(x) * 1.01 + 0.001
    return x, np.exp(x) * 2  # NB: x is read by the caller and by exp: two fusions


def tanh_steps(x, steps):
    for _ in range(steps):
        x = np.tanh(x) * 0.5 + x * 0.5 + 0.01  # NB: XLA ends a fusion at tanh: x is computed twice
    return x


def materialized(program) -> int:
    return sum(op.prim == "materialize" for op in program.ops)


def materialized_at_depth(program) -> int:
    """As `materialized` after the pipeline, with fused values materialized at DEPTH too."""
    with mock.patch("elena_jax.passes.materialize.FUSED_DEPTH", materialize.DEPTH):
        return materialized(optimize(program))


def test_values_xla_computes_once_are_materialized_deeper():
    """Campaign H's p19 (session 26, 27): every read of x and v is elementwise and through the
    whole array, and XLA fuses them into one loop computing each element once; materialized 16
    ops deep, four steps of 500,000 particles accessed 104 MB against the unoptimized 48 (16 ms
    against 6). Such values are materialized only FUSED_DEPTH ops deep; a value a reduction or
    the caller also reads stays at DEPTH (there XLA computes it in two fusions). Alternating
    column updates of (20,000, 8), 4 steps: 21 -> 4 MB, 0.9 -> 0.3 ms."""
    rng = np.random.default_rng(0)
    x, v = rng.random((50, 2)), rng.standard_normal((50, 2))
    assert materialized(optimize(traced(reflect, x, v, 4))) == 0
    deep = traced(reflect, x, v, 40)
    assert 0 < materialized(optimize(deep)) < materialized_at_depth(deep) / 2
    a = rng.normal(size=(64, 8))  # NB: the lanes' assemble is one more elementwise reader
    assert materialized(optimize(traced(alternating_columns, a, 4))) == 0
    assert materialized(optimize(traced(reflect_with_mean, x, v, 10))) > 0
    assert materialized(optimize(traced(sines, x, 10))) > 0
    # a review's find (session 27): read by tanh, x was left 64 ops deep; 64 steps of 500,000 ran
    # 82 ms against 60 materialized at DEPTH, and exp/sin oscillators 3x
    steps = traced(tanh_steps, x, 20)
    assert materialized(optimize(steps)) == materialized_at_depth(steps) > 0
    for f, args in [(reflect, (x, v, 40)), (reflect_with_mean, (x, v, 10)), (sines, (x, 10)),
                    (alternating_columns, (a, 4)), (tanh_steps, (x, 20))]:
        check_against_numpy(f, *args)


@pytest.mark.parametrize("f,make", PROGRAMS[:-1], ids=lambda x: getattr(x, "__name__", ""))
def test_programs_without_long_chains_are_not_materialized(f, make):
    """Values of straight-line programs lie a few ops deep (the benchmark cases': 12 at most)."""
    program = traced(f, *make(np.random.default_rng(0)))
    for p in PIPELINE[:-1]:
        program = p(program)
    assert PIPELINE[-1] is materialize_chains
    assert materialize_chains(program) is program


LEAVES = st.one_of(
    st.tuples(st.just("col"), st.integers(0, 1), st.integers(0, 3)),
    st.tuples(st.just("const"), st.sampled_from([0.5, 2, -3.0, 7, 0.1])),
)
NAMES = ["add", "subtract", "multiply", "maximum", "minimum"]
TREES = st.recursive(
    LEAVES,
    lambda t: st.one_of(st.tuples(st.just("op"), st.sampled_from(NAMES), t, t), st.tuples(st.just("exp"), t)),
    max_leaves=6,
)


@st.composite
def variant(draw, tree, root=True):
    """``tree`` with some leaves, ufuncs or subtrees below the root changed: lanes computed
    almost alike."""
    change = draw(st.integers(0, 9))
    if change == 0 and not root:
        return draw(TREES)
    if tree[0] == "col":
        return ("col", tree[1], draw(st.integers(0, 3))) if change < 5 else tree
    if tree[0] == "const":
        return ("const", draw(st.sampled_from([0.5, 2, -3.0, 7, 0.1]))) if change < 4 else tree
    if tree[0] == "exp":
        return ("exp", draw(variant(tree[1], False)))
    name = draw(st.sampled_from(NAMES)) if change < 2 else tree[1]
    return ("op", name, draw(variant(tree[2], False)), draw(variant(tree[3], False)))


def column(x, i):
    return x[:, i % x.shape[1]]


def wide_column(x, i):
    """Column i of lanes of 9 elements per row: the strided view [:, i::w]."""
    width = x.shape[1] // 9
    return x[:, i % width :: width]


def evaluate(tree, args, column=column):
    if tree[0] == "col":
        return column(args[tree[1]], tree[2])
    if tree[0] == "const":
        return tree[1]
    if tree[0] == "exp":
        return np.exp(np.minimum(evaluate(tree[1], args, column), 5))
    return getattr(np, tree[1])(evaluate(tree[2], args, column), evaluate(tree[3], args, column))


@settings(max_examples=12, deadline=None)
@given(data=st.data(), k=st.integers(2, 6), inplace=st.booleans(), dtype=st.sampled_from([np.float64, np.float32]))
def test_random_lane_programs_agree_with_numpy(data, k, inplace, dtype):
    """Each lane j of a fresh (N, k) array, or of the argument itself, is written with a
    variant of one random expression of columns of the arguments: vectorized, selected by
    lane, or left alone, the result is NumPy's."""
    template = data.draw(TREES.filter(lambda t: t[0] not in ("col", "const")))
    lanes = [data.draw(variant(template)) for _ in range(k)]
    order = data.draw(st.permutations(range(k)))

    def f(a, b):
        out = a if inplace else np.empty((a.shape[0], k), a.dtype)
        for j in order:
            out[:, j] = evaluate(lanes[j], (a, b))
        return out

    rng = np.random.default_rng(0)
    a = rng.uniform(-2, 2, (7, k)).astype(dtype)
    check_against_numpy(f, a, rng.uniform(-2, 2, (7, 4)).astype(dtype))


@settings(max_examples=10, deadline=None)
@given(data=st.data(), k=st.sampled_from([2, 4]), inplace=st.booleans(), clip=st.booleans())
def test_random_wide_lane_programs_agree_with_numpy(data, k, inplace, clip):
    """Lanes j::k of 9 elements per row, written with variants of one expression (stacked or
    vectorized), then optionally clipped in place through a stride-2 view (split into lanes)."""
    template = data.draw(TREES.filter(lambda t: t[0] not in ("col", "const")))
    lanes = [data.draw(variant(template)) for _ in range(k)]
    order = data.draw(st.permutations(range(k)))

    def f(a, b):
        out = a if inplace else np.empty_like(a)
        for j in order:
            out[:, j::k] = evaluate(lanes[j], (a, b), wide_column)
        if clip:
            np.clip(out[:, 1::2], -1, 1, out=out[:, 1::2])
        return out

    rng = np.random.default_rng(0)
    check_against_numpy(f, rng.uniform(-2, 2, (7, 9 * k)), rng.uniform(-2, 2, (7, 36)))


def divisions_by_constants(a):
    return (a / 2, a / 0.25, np.divide(a, -8.0), a / np.array([2.0, 4.0, 0.5]), a / 3, a / 0.0,
            a.astype(np.float16) / 4, 2 / a)


def test_divisions_by_powers_of_two_become_exact_multiplications():
    # NB: no subnormal values (XLA:CPU flushes them, divided or multiplied alike)
    a = np.array([1.0, -3.3, 3e-300, np.inf, np.nan, -0.0, 1e300, 5.5, 0.1])[:, None] * np.ones(3)
    program = traced(divisions_by_constants, a)
    names = [op.params["name"] for op in exact_reciprocals(program).ops if op.prim == "ufunc"]
    # NB: a / 3 is inexact as a product, 1 / 0.0 is infinite; an array made inside is a storage,
    # not a constant operand, and 2 / a divides by data
    assert names == ["multiply"] * 3 + ["divide"] * 3 + ["multiply", "divide"]
    with np.errstate(all="ignore"):
        want = divisions_by_constants(a)
    got = elena_jax.functionalize(divisions_by_constants)(a)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g) & ~np.isnan(g), np.signbit(w) & ~np.isnan(w))
    # NB: reciprocals that overflow (of subnormal divisors) stay divisions
    tiny = traced(lambda a: (a / 2.0**-1074, a.astype(np.float32) / 2.0**-130), a)
    assert all(op.params["name"] == "divide" for op in exact_reciprocals(tiny).ops if op.prim == "ufunc")


def upsample_rows(img):
    out = np.empty((2 * img.shape[0] - 1, 2 * img.shape[1]))
    out[0::2, 0::2] = img
    out[0::2, 1::2] = img * 0.5
    out[1::2, :] = 0.5 * (out[0:-1:2, :] + out[2::2, :])
    return out


def test_wide_lanes_of_every_other_row_are_stacked_and_placed_once():
    """Interleaved lanes that cover part of their storage (the even rows of a 2x upsample) are
    stacked and placed as one view: each lane padded into place apart and the rows read back
    recomputed both selects per element (500 x 500 at 4.5-4.9 ms, now 3.0-3.4; hand 1.8-2.3;
    an acceptance campaign's find, session 22)."""
    img = np.random.default_rng(0).random((12, 10))
    program = optimize(traced(upsample_rows, img))
    (a,) = [op for op in program.ops if op.prim == "assemble"]
    assert a.params["stack"] and not a.params["covering"]
    check_against_numpy(upsample_rows, img, rtol=0, atol=0)


def minmax_columns(x):
    for j in range(x.shape[1]):
        lo = x[:, j].min()
        hi = x[:, j].max()
        x[:, j] = (x[:, j] - lo) / (hi - lo)
    return x


def reduces(program):
    return [op for op in program.ops if op.prim == "reduce"]


def test_reductions_of_columns_after_their_own_write_are_vectorized():
    """bench/cases/column_loops' second loop: each column's max reads the column after its own
    ``col -= col.min()``, so it cannot be joined with the others before the loop; vectorized with
    the writes, the loop is the whole-table form: the maxima one reduction along the rows of
    ``p - mins`` (20 strided reductions and divides, 1.1-2.1x the hand form; 0.8x now)."""
    p = np.random.default_rng(0).uniform(1, 2, (30, 20))
    program = optimize(traced(returns_then_scaled, p))
    maxima = [op for op in reduces(program) if op.params["name"] == "maximum"]
    assert [op.ins[0].view.shape for op in maxima] == [(30, 20)]
    assert [op.outs[0].view.shape for op in ufuncs(program, "divide")] == [(29, 20), (30, 20)]
    assert [op.prim for op in program.ops].count("assemble") == 1  # NB: the returns' only
    check_against_numpy(returns_then_scaled, p, rtol=0, atol=0)


def scaled_rows(x):
    for i in range(x.shape[0]):
        r = x[i]
        r -= r.mean()
        r *= 1.0 / (np.abs(r).max() + 1.0)
    return x


def test_a_loops_rows_are_vectorized_as_lanes_one_row_apart():
    """The rows x[i] of a loop are the lanes of x.T (one row apart, not adjacent): the loop is the
    whole-table form (a (rows, 256) table of 50 rows: 453 ops -> 10, first call 1.1 -> 0.16 s),
    each row's sum in its own NumPy order."""
    x = np.random.default_rng(6).normal(size=(12, 40))
    program = optimize(traced(scaled_rows, x))
    assert len(program.ops) <= 12
    assert [len(op.params["views"]) for op in program.ops if op.prim == "assemble"] == [1]  # NB: x.T's lanes
    # NB: rows computed as rows (vectorize._lanes_first): x.T's lanes were read transposed, 2.8x the
    # whole-array form's time at 1000 rows of 256
    assert {op.ins[0].view.shape for op in program.ops if op.prim == "reduce"} == {(12, 40)}
    assert {op.ins[0].view for op in program.ops if op.prim == "reduce" and op.ins[0].storage.id == 0} \
        == {contiguous((12, 40))}
    assert {op.outs[0].view.shape for op in program.ops if op.prim == "ufunc"} == {(12,), (12, 40)}
    check_against_numpy(scaled_rows, x, rtol=0, atol=0)


def test_more_rows_than_columns_vectorized_when_no_lane_is_selected():
    """More rows than vectorize.COLUMNS (the most lanes selected one by one): vectorized all the
    same where no lane is selected (1000 rows of 256: 9,003 ops and a 29 s first call, now 10 ops
    and 0.17 s). NB: 80 rows, whose unoptimized program, checked too, compiles in seconds (300:
    19 s)."""
    assert COLUMNS < 80
    x = np.random.default_rng(7).normal(size=(80, 8))
    program = optimize(traced(scaled_rows, x))
    assert len(program.ops) <= 12
    check_against_numpy(scaled_rows, x, rtol=0, atol=0)


def reversed_planes(x):
    for i in range(x.shape[0] - 1, -1, -2):
        p = x[i]
        p -= p.max(axis=1, keepdims=True)
        p *= p.min() - 1
    return x


def row_argmaxes(x):
    best, top = np.zeros(x.shape[0], np.int64), np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        best[i] = x[i].argmax()
        top[i] = x[i].max()
    return best, top


@pytest.mark.parametrize("f, shape", [(reversed_planes, (9, 4, 30)), (row_argmaxes, (30, 11))])
def test_rows_are_computed_and_reduced_as_they_lie(f, shape):
    """Every other plane of a 3-d array, backwards, and rows' argmaxes joined: the vectorized and
    joined ops read the rows in memory order, lanes first (no op reads or writes a view whose
    last axis is not the storage's innermost), to NumPy's bits."""
    x = np.random.default_rng(9).normal(size=shape)
    program = optimize(traced(f, x))
    assert {"vectorize_lanes", "join_reductions"} & set(program.fired)
    for op in program.ops:
        if op.prim in ("ufunc", "reduce", "argreduce"):
            for a in (*op.reads(), *op.outs):
                assert a.view.ndim < 2 or a.view.shape[-1] == 1 or abs(a.view.strides[-1]) == 1, str(op)
    check_against_numpy(f, x, rtol=0, atol=0)


def temporaries_updated(x):
    t = x * 2.0
    t += 1.0  # NB: all of t again: a storage of its own
    t[0] = -1.0  # NB: part of it: the same storage
    u = t.mean(axis=0)
    np.multiply(t, u, out=t)  # NB: all of t again
    return t, u, x


def test_a_whole_write_of_a_temporary_starts_a_storage():
    """Each write of all of a temporary defines a new storage (the arguments keep theirs): every
    storage but the argument written whole once, partial writes into the storage they update."""
    x = np.random.default_rng(10).normal(size=(5, 4))
    program = traced(temporaries_updated, x)
    renamed = assert_preserves(rename_whole_writes, program, x)
    assert len(renamed.storages) == len(program.storages) + 2  # NB: t's two whole writes after its definition
    whole = {}
    for op in renamed.ops:
        for a in op.outs:
            if a.view == contiguous(a.storage.shape):
                whole[a.storage.id] = whole.get(a.storage.id, 0) + 1
    assert set(whole.values()) == {1}
    assert renamed.outputs[0].storage is renamed.ops[-1].outs[0].storage
    assert rename_whole_writes(renamed) is renamed
    check_against_numpy(temporaries_updated, x, rtol=0, atol=0)


def standardized_rows(x):
    for i in range(x.shape[0]):
        r = x[i]
        r -= r.mean()
        r /= r.std() + 1e-6
    return x


def standardized_columns(x):
    for j in range(x.shape[1]):
        col = x[:, j]
        col -= col.mean()
        col /= col.std() + 1e-9
    return x


def assert_numpys_bits_without_fma(f, *args):
    """``f`` through elena_jax within tolerance, and with fma=False NumPy's bits (a std's squares
    feed its sum, which XLA may contract otherwise, depending on the CPU)."""
    check_against_numpy(f, *args)
    want = f(*(np.copy(a) for a in args))
    got = elena_jax.functionalize(f, fma=False)(*(np.copy(a) for a in args))
    assert np.asarray(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("f, shape", [(standardized_rows, (30, 40)), (standardized_columns, (300, 12))])
def test_rows_and_columns_standardized_in_a_loop_are_vectorized(f, shape):
    """NumPy's std squares the deviations in place: a storage written twice, which vectorization
    does not follow; renamed, the loop is the whole-array form (1000 rows of 256: 7,000 ops, a
    220 s first call and 11 ms a call -> 14 ops, 4.6 s and 0.33 ms, the whole-array form's 0.36).
    Columns' sums, each in its own NumPy order, are added down the rows (lower/summation.down;
    100,000 x 20: 15.8 ms before the two, 3.9 now, NumPy's loop 15.3)."""
    x = np.random.default_rng(11).normal(size=shape)
    program = optimize(traced(f, x))
    assert "vectorize_lanes" in program.fired and len(program.ops) <= 16
    assert_numpys_bits_without_fma(f, x)


def thresholded_rows(x):
    for i in range(x.shape[0]):
        r = x[i]
        r[r < 0.1 * r.max()] = 0.0
    return x


def labelled_rows(x):
    for i in range(x.shape[0]):
        r = x[i]
        r[r % 3 == 0] = -i  # NB: a value per lane
        r *= 2
        r[r > 40] = 7
    return x


def filled_columns(x):
    for j in range(x.shape[1]):
        c = x[:, j]
        c[c > c.mean()] = -1.0
    return x


def clipped_planes(x):
    for i in range(x.shape[0]):
        p = x[i]
        p[p > p.max(axis=0)] = 0.5
    return x


@pytest.mark.parametrize("f, x, writes", [
    (thresholded_rows, np.random.default_rng(13).normal(size=(80, 16)), 1),  # NB: more than COLUMNS
    (labelled_rows, np.random.default_rng(14).integers(-50, 50, size=(12, 7)), 2),
    (filled_columns, np.random.default_rng(15).normal(size=(30, 5)), 1),
    (clipped_planes, np.random.default_rng(16).normal(size=(6, 4, 10)), 1)])
def test_writes_through_each_lanes_own_mask_are_vectorized(f, x, writes):
    """``r[r < t] = v`` in a loop over rows or columns: one masked write of the whole table, each
    lane's mask its own elements' (2000 rows of 16 thresholded by their maxima: 8,000 ops and a
    27.6 s first call; now the whole-array form's 6 ops, 1.75 s)."""
    program = optimize(traced(f, x))
    assert "vectorize_lanes" in program.fired
    assert [op.prim for op in program.ops].count("mask_set") == writes and len(program.ops) <= 8
    check_against_numpy(f, x, rtol=0, atol=0)


def float32_rows(x):
    for i in range(x.shape[0]):
        r = x[i]
        r -= r.mean()  # NB: NumPy divides the float32 sum by an intp count in float64, cast back
        r /= r.std() + np.float32(1e-3)
    return x


def scaled_into_ints(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] * 2.5  # NB: float64 rows copied into int32 rows
    return y


@pytest.mark.parametrize("f, args", [
    (float32_rows, (np.random.default_rng(18).normal(size=(COLUMNS + 2, 33)).astype(np.float32),)),
    (scaled_into_ints, (np.random.default_rng(19).normal(size=(70, 9)) * 100, np.zeros((70, 9), np.int32)))])
def test_lanes_each_cast_are_vectorized_as_one_copy(f, args):
    """Lanes each a copy into another type (a float32 row's mean; rows written into an int array):
    one copy of the vectorized values (_cast). A float32 row's mean was a leaf, selected per lane,
    so more than 64 rows were not vectorized (80 rows: 400 ops)."""
    program = optimize(traced(f, *args))
    assert "vectorize_lanes" in program.fired and len(program.ops) <= 16
    assert_numpys_bits_without_fma(f, *args)


def decayed_rows(x):
    for i in range(x.shape[0]):
        r = x[i] * 1.0
        for _ in range(250):
            r *= 0.99  # NB: each update a storage of its own (rename_whole_writes)
        x[i] = r
    return x


def test_a_long_chain_of_updates_is_followed_only_so_far():
    """250 updates of a lane's temporary: a chain of 250 definers, which the vectorizer followed
    depth first past Python's recursion limit (RecursionError; a review's find, session 36): it
    stops MAX_DEPTH operands back, the loop left as it was."""
    x = np.random.default_rng(17).normal(size=(2, 4))
    check_against_numpy(decayed_rows, x, rtol=0, atol=0)


def ewma_rows(x):
    out = np.empty_like(x)
    out[0] = x[0]
    for t in range(1, x.shape[0]):
        out[t] = 0.5 * x[t] + 0.5 * out[t - 1]  # NB: halves: exact, so a contracted FMA is NumPy's too
    return out


@pytest.mark.parametrize("steps", [40, 300])
def test_a_recurrence_over_rows_is_not_vectorized(steps):
    """Each row computed from the row before (an EWMA): its lanes cannot be computed at once; found
    before building them (`vectorize._chained`: 64 steps took 0.3 s of tracing to be refused, 300
    steps exceeded Python's recursion limit). NB: the unoptimized program checked at 40 steps (at
    300, 4 s more of compiling the same recurrence)."""
    x = np.random.default_rng(8).normal(size=(steps, 5))
    program = optimize(traced(ewma_rows, x))
    assert "vectorize_lanes" not in program.fired
    check_against_numpy(ewma_rows, x, optimize=(True, False) if steps < 100 else (True,), rtol=0, atol=0)


@given(data=st.data(), rows=st.integers(2, 12), cols=st.integers(1, 150),
       dtype=st.sampled_from([np.float64, np.float32, np.int64]))
@settings(max_examples=14, deadline=None)
def test_random_loops_over_rows_equal_numpys(data, rows, cols, dtype):
    """A loop over some rows, evenly spaced, writing each from reductions of itself, in pieces, whole
    or through a mask, to NumPy's bits (sums in each row's own order)."""
    names = ["min", "max", "sum", "argmax"] + (["mean"] if dtype is not np.int64 else [])
    first, second = data.draw(st.sampled_from(names)), data.draw(st.sampled_from(names))
    step = data.draw(st.integers(1, 3))
    form = data.draw(st.sampled_from(["head", "masked", "scaled"] if cols > 1 else ["masked", "scaled"]))

    def f(x):
        for i in range(0, x.shape[0], step):
            r = x[i]
            r -= getattr(r, first)()
            if form == "head":
                r[0] = getattr(r[1:], second)()
            elif form == "masked":
                r[r > getattr(r, second)()] = i
            else:
                r *= 2
                r += getattr(r, second)()
        return x

    x = np.random.default_rng(rows * cols).normal(size=(rows, cols)) * 4
    check_against_numpy(f, x.astype(dtype), rtol=0, atol=0)


def ranked_after_centring(x):
    first = np.empty(x.shape[1], np.int64)
    for j in range(x.shape[1]):
        col = x[:, j]
        col -= col.mean()
        col *= col.argmax() + 1
        first[j] = np.argmin(col, keepdims=True)[0]
    return first, x


def test_argmaxes_after_a_columns_own_write_are_vectorized():
    """Argmaxes and argmins of columns read after the column's own write, vectorized as the other
    reductions: one argreduce along the rows each, and the indices written as one copy."""
    x = np.random.default_rng(5).normal(size=(50, 6))
    x[3, 2] = np.nan
    program = optimize(traced(ranked_after_centring, x))
    assert sorted((op.params["name"], op.ins[0].view.shape) for op in program.ops if op.prim == "argreduce") \
        == [("argmax", (50, 6)), ("argmin", (50, 6))]
    assert not any(op.prim == "assemble" for op in program.ops)
    check_against_numpy(ranked_after_centring, x, rtol=0, atol=0)


def scaled_by_kept_sums(x):
    for j in range(x.shape[1]):
        col = x[:, j]
        col -= col.mean(keepdims=True)
        col /= np.abs(col).sum(keepdims=True) + 1
    return x


def test_reductions_that_keep_their_axis_are_vectorized_too():
    """Each column's mean and sum of magnitudes (of one element, keepdims=True: a view of stride 0)
    become reductions of all columns along the rows, each column's sum in NumPy's order."""
    x = np.random.default_rng(1).normal(size=(130, 6))
    program = optimize(traced(scaled_by_kept_sums, x))
    assert [op.ins[0].view.shape for op in reduces(program)] == [(130, 6), (130, 6)]
    check_against_numpy(scaled_by_kept_sums, x, rtol=0, atol=0)


def channels_less_row_maxima(img):
    for c in range(img.shape[2]):
        ch = img[:, :, c]
        ch -= ch.max(axis=1)[:, None]
    return img


def row_sums_by_column(a, out):
    for j in range(a.shape[2]):
        out[:, j] = a[:, :, j].sum(axis=1, keepdims=True)[:, 0] * 2 + a[:, :, j].max(axis=1)
    return out


@pytest.mark.parametrize("shape", [(9, 9, 3), (5, 9, 3), (3, 3, 2)])
def test_lanes_read_through_another_shape_of_a_reduction_get_its_elements(shape):
    """A lane reading a reduction as ``m[:, None]`` or ``s[:, 0]`` (its elements in another shape)
    got the vectorized reduction in the reduction's shape: broadcast along the wrong axis where
    H == W, a shape error elsewhere (a review's find, session 35)."""
    img = np.random.default_rng(0).integers(0, 9, shape).astype(np.float64)
    check_against_numpy(channels_less_row_maxima, img, rtol=0, atol=0)
    check_against_numpy(row_sums_by_column, img, np.zeros((shape[0], shape[2])), rtol=0, atol=0)


@given(data=st.data(), rows=st.integers(1, 300), k=st.integers(2, 9),
       dtype=st.sampled_from([np.float64, np.float32, np.int64]))
@settings(max_examples=16, deadline=None)
def test_random_reductions_of_written_columns_equal_numpys(data, rows, k, dtype):
    """A loop writing each column from a reduction of it, then from a reduction of what it wrote
    (different reductions in even and odd columns, or in all alike; argmax and argmin too), to
    NumPy's bits: sums in each column's own order, the lanes vectorized or left apart."""
    names = ["min", "max", "sum", "argmax", "argmin"] + (["mean", "prod"] if dtype is not np.int64 else [])
    first = data.draw(st.sampled_from(names))
    second = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=2))
    scale = data.draw(st.booleans()) and dtype is not np.int64

    def f(x):
        for j in range(x.shape[1]):
            col = x[:, j]
            col -= getattr(col, first)()
            r = getattr(col, second[j % len(second)])()
            if scale:
                col /= r + 1
            else:
                col *= 2  # NB: exact, so that a multiply-add contracted (fma=True) is NumPy's too
                col += r
        return x

    x = np.random.default_rng(rows * k).normal(size=(rows, k)) * 4
    check_against_numpy(f, x.astype(dtype), rtol=0, atol=0)


def test_reductions_of_a_loops_columns_are_one_reduction_each():
    """A loop that normalizes column after column reduced each column apart, a pass over the whole
    array per reduction (20 columns: 14x the hand form `x.min(0)`; campaign N, session 32): the
    minimums of the columns are one reduction along the rows, the maximums another, though the loop
    writes column j before it reduces column j + 1."""
    x = np.random.default_rng(0).normal(size=(50, 20))
    program = traced(minmax_columns, x)
    after = assert_preserves(join_reductions, program, x)
    assert len(reduces(after)) == 2 and all(op.ins[0].view.shape == (50, 20) for op in reduces(after))
    optimized = optimize(traced(minmax_columns, x))
    assert {"join_reductions", "vectorize_lanes"} <= set(optimized.fired)
    # NB: and the 20 columns' arithmetic is one op each over all of them (more lanes than a split makes)
    assert not any(op.prim == "assemble" for op in optimized.ops)
    assert {op.outs[0].view.shape for op in optimized.ops if op.prim == "ufunc" and op.params["name"] == "divide"} \
        == {(50, 20)}
    check_against_numpy(minmax_columns, x, rtol=0, atol=0)


def column_sums(x):
    return ([x[:, j].sum() for j in range(x.shape[1])], [x[:, j].mean(keepdims=True) for j in range(x.shape[1])],
            [x[::-2, j].sum() for j in range(0, x.shape[1], 2)])


@pytest.mark.parametrize("rows", [1, 2, 7, 8, 9, 127, 128, 129, 1000, 20_000])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_joined_column_sums_keep_numpys_order_for_each_column(rows, dtype):
    """NumPy adds a column's elements pairwise (its own run), where x.sum(axis=0) adds row after
    row: the joined sums take each column's order, bit for bit (float32 too)."""
    x = np.random.default_rng(rows).normal(size=(rows, 5)).astype(dtype) * 1000
    if rows > 2:  # NB: a column of one element (x[::-2] of two rows, or one row) is left as it is
        # NB: a float column's sum and its mean's sum are one lane; an integer's mean sums in float64
        assert len(reduces(optimize(traced(column_sums, x)))) == (3 if dtype is np.int32 else 2)
    check_against_numpy(column_sums, x, rtol=0, atol=0)


def shifted_maxima(x):
    for j in range(1, x.shape[1]):
        x[:, j] += x[:, j - 1].max()
    return x


def test_a_column_written_before_its_reduction_is_not_joined():
    """Column j - 1 is written before its maximum is taken: joined at the first maximum's place, it
    would be the maximum of the old column."""
    x = np.random.default_rng(1).normal(size=(6, 5))
    assert join_reductions(traced(shifted_maxima, x)).ops == traced(shifted_maxima, x).ops
    check_against_numpy(shifted_maxima, x, rtol=0, atol=0)


def reductions_into_the_next_column(x):
    np.sum(x[:, 0], keepdims=True, out=x[0:1, 1])
    np.sum(x[:, 1], keepdims=True, out=x[0:1, 2])
    return x


def test_a_reduction_into_a_later_column_is_seen_by_that_columns_reduction():
    """The first reduction's own out= writes the next column, after the joined reduction placed
    before it would have read it: that column keeps its own reduction (review of session 33)."""
    x = np.arange(12.0).reshape(4, 3)
    assert len(reduces(join_reductions(traced(reductions_into_the_next_column, x)))) == 2
    check_against_numpy(reductions_into_the_next_column, x, rtol=0, atol=0)


def irregular_columns(x):
    return [x[:, 0].max(), x[:, 1].max(), x[:, 3].max(), x[:, 0].min(), x[:, 0].min(), x[:, 2].min(),
            x[:, 1].prod(), x[:, 3].prod(), x[:, 1].any(), x[:, 2].any(), x[:, 0].sum(dtype=np.float32),
            x[:, 2].sum(dtype=np.float32), x[:, 1].sum(initial=1.0), x[:, 2].sum(initial=2.0)]


def test_only_evenly_spaced_columns_reduced_alike_are_joined():
    """Columns 0, 1, 3 are no lane view (left apart); a column reduced twice is one lane; products,
    `any` and sums into another type are joined; sums of other initial values are not."""
    x = np.random.default_rng(2).normal(size=(9, 4))
    program = assert_preserves(join_reductions, traced(irregular_columns, x), x)
    joined = [op for op in reduces(program) if op.ins[0].view.ndim == 2]
    assert sorted(op.params["name"] for op in joined) == ["add", "logical_or", "minimum", "multiply"]
    check_against_numpy(irregular_columns, x, rtol=0, atol=0)


def best_by_column(x):
    best = np.empty(x.shape[1], np.int64)
    worst = np.empty(x.shape[1], np.int64)
    top = np.empty(x.shape[1])
    for j in range(x.shape[1]):
        best[j] = x[:, j].argmax()
        top[j] = x[:, j].max()
        worst[j] = np.argmin(x[:, j], axis=0)
    return best, top, worst


def test_argmaxes_of_a_loops_columns_are_one_argreduce():
    """Each column's argmax (and argmin, axis=0 spelled out) joined along the rows as the other
    reductions are; the argmaxes then with the maxima into one reduction of pairs. NaN columns:
    the first NaN, as NumPy's."""
    x = np.random.default_rng(4).normal(size=(40, 7))
    x[5, 3] = x[9, 3] = np.nan
    program = optimize(traced(best_by_column, x))
    args = [op for op in program.ops if op.prim == "argreduce"]
    assert sorted((op.params["name"], len(op.outs), op.ins[0].view.shape) for op in args) == \
        [("argmax", 2, (40, 7)), ("argmin", 1, (40, 7))]
    assert not reduces(program)
    check_against_numpy(best_by_column, x, rtol=0, atol=0)


def labels_and_confidences(logits):
    """Campaign N's score_threshold: the argmax and the max of the same scores."""
    s = 1 / (1 + np.exp(-logits))
    s[s < 0.3] = 0.0
    best = s.argmax(axis=1)
    conf = s.max(axis=1)
    logits[conf < 0.5] = -np.inf
    return best, conf, logits


def test_an_argmax_and_a_max_of_one_array_are_one_reduction():
    """XLA:CPU computed the max on its own (a library call reading the scores from memory where
    the argmax's loop computed them): 1.3-2x the hand form, whose two reductions XLA merges; one
    argreduce with two results now (100,000 x 10: 4.1 -> 2.7 ms, hand 2.4, session 34)."""
    x = np.random.default_rng(0).normal(size=(50, 10))
    program = optimize(traced(labels_and_confidences, x))
    assert "join_reductions" in program.fired
    (joined,) = [op for op in program.ops if op.prim == "argreduce"]
    assert joined.params["extreme"] and len(joined.outs) == 2
    assert not [op for op in program.ops if op.prim == "reduce"]
    check_against_numpy(labels_and_confidences, x, rtol=0, atol=0)


def extremes(kind):
    """A max (min) and an argmax (argmin) of rows or columns, in either order, in other shapes."""
    def f(a):
        out = []
        for axis, keep in ((1, False), (0, True), (-1, True)):
            if kind == "max":
                out += [a.max(axis=axis), np.argmax(a, axis=axis, keepdims=keep)]
            else:
                out += [np.argmin(a, axis=axis), np.min(a, axis=axis, keepdims=keep)]
        return out
    f.__name__ = f"extremes_{kind}"
    return f


@pytest.mark.parametrize("f", [extremes("max"), extremes("min")], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.uint8])
def test_joined_extremes_are_numpys(f, dtype):
    """Ties (the first index), NaN (the first NaN, a NaN max), infinities, integers' bounds."""
    a = np.random.default_rng(1).integers(0, 4, (6, 5)).astype(dtype)
    if a.dtype.kind == "f":
        a[1, 2] = a[3, 0] = np.nan
        a[2, :] = -np.inf
        a[4, 1] = np.inf
    program = optimize(traced(f, a))
    assert sum(op.prim == "argreduce" and op.params.get("extreme", False) for op in program.ops) == 3
    check_against_numpy(f, a, rtol=0, atol=0)


def extremes_apart(a, b):
    top = a.argmax(axis=1)
    a[0] += 1  # NB: the max reads the new row 0
    return top, a.max(axis=1), np.argmin(b, axis=0), b.min(axis=0, initial=0.5), b.argmax(axis=1), b.max(axis=0)


def test_extremes_of_a_view_written_between_or_not_alike_stay_apart():
    a, b = np.random.default_rng(2).normal(size=(2, 4, 3))
    assert not any(op.params.get("extreme") for op in optimize(traced(extremes_apart, a, b)).ops)
    check_against_numpy(extremes_apart, a, b, rtol=0, atol=0)


def test_joined_extremes_keep_the_max_s_derivative():
    """The max's derivative is jax.numpy's (the joined reduction's value has a rule of its own);
    the index has none."""
    def scores(x):
        return x.argmax(axis=1), x.max(axis=1)

    x = np.random.default_rng(3).normal(size=(5, 4))
    with jax.enable_x64(True):
        got = jax.grad(lambda y: elena_jax.pure(scores)(y)[0][1].sum())(x)
        vmapped = jax.vmap(elena_jax.pure(scores))(np.stack([x, -x]))[0]
    np.testing.assert_array_equal(got, jax.grad(lambda y: y.max(axis=1).sum())(x))
    np.testing.assert_array_equal(vmapped[0], np.stack([scores(x)[0], scores(-x)[0]]))
    np.testing.assert_array_equal(vmapped[1], np.stack([scores(x)[1], scores(-x)[1]]))


@given(data=st.data(), rows=st.integers(1, 40), k=st.integers(2, 6),
       dtype=st.sampled_from([np.float64, np.float32, np.int64, np.bool_]))
@settings(max_examples=25, deadline=None)
def test_random_reductions_of_columns_equal_numpys(data, rows, k, dtype):
    """Reductions of columns among writes to columns, in any order: joined where nothing wrote a
    column between the first reduction and its own, to NumPy's bits."""
    steps = data.draw(st.lists(st.tuples(st.sampled_from(["min", "max", "sum", "prod", "mean", "any", "argmax",
                                                          "argmin", "write", "max_into"]),
                                         st.integers(0, k - 1)), min_size=2, max_size=12))

    def f(x):
        out = []
        for name, j in steps:
            if name == "write":
                x[:, j] = ~x[:, j] if x.dtype == np.bool_ else x[:, j] * 2
            elif name == "max_into":  # NB: a reduction's out= into the first row of the next column
                np.max(x[:, j], keepdims=True, out=x[0:1, (j + 1) % k])
            else:
                out.append(getattr(x[:, j], name)())
        return out, x

    x = np.random.default_rng(rows * k).normal(size=(rows, k)) * 50
    check_against_numpy(f, (x > 0) if dtype is np.bool_ else x.astype(dtype), rtol=0, atol=0)


@given(data=st.data(), rows=st.integers(1, 30), k=st.integers(2, 24),
       dtype=st.sampled_from([np.float64, np.float32, np.int64]))
@settings(max_examples=20, deadline=None)
def test_random_loops_over_columns_equal_numpys(data, rows, k, dtype):
    """A loop's body run on every column: reductions of the column (joined) and the column written
    from them (its lanes vectorized, up to vectorize.COLUMNS of them), to NumPy's bits."""
    reductions = data.draw(st.lists(st.sampled_from(["min", "max", "sum", "prod"]), min_size=1, max_size=2))
    body = data.draw(st.sampled_from([lambda c, r: c - r[0], lambda c, r: c * 2 + r[-1],
                                      lambda c, r: np.maximum(c, r[0]), lambda c, r: c - (r[0] + r[-1])]))
    stride = data.draw(st.sampled_from([1, 1, 2]))

    def f(x):
        for j in range(0, x.shape[1], stride):
            x[:, j] = body(x[:, j], [getattr(x[:, j], name)() for name in reductions])
        return x

    x = np.random.default_rng(rows * k).normal(size=(rows, k)) * 4
    check_against_numpy(f, x.astype(dtype), rtol=0, atol=0)
