#!/usr/bin/env bash
# The GPU part of the benchmark and the Numba CUDA tests, in one run on a machine with an NVIDIA
# GPU, a CUDA jaxlib and numba-cuda (nothing is installed: the machine's python3 is used with this
# checkout on PYTHONPATH). Writes into $OUT (default /tmp/elena_jax_gpu): env.txt (GPU, driver,
# versions, CPU), pytest_gpu.txt, bench.log, the report gpu.json/.md (--pipelined: device times too),
# hiding.txt/.json (python -m bench.hiding) and hlo.tgz (the compiled programs): eight files.
# Stages in order: bench.hiding, the GPU-side tests, the benchmark.
# Each stage has its own time limit (BENCH_S, TEST_S, HIDING_S seconds); the benchmark keeps the rows
# it finished if stopped. CASES=a,b runs only those cases (HIDING_CASES, bench.hiding's).
#   bash bench/gpu_check.sh            # about 6 minutes on one H200 (2026-11-28: bench 125 s, tests 82 s)
#   BENCH_S=220 TEST_S=150 HIDING_S=190 bash bench/gpu_check.sh   # within one 10-minute device call
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/elena_jax_gpu}
PY=${PY:-python3}
BENCH_S=${BENCH_S:-270}
TEST_S=${TEST_S:-240}
HIDING_S=${HIDING_S:-120}
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
mkdir -p "$OUT"
# Wheels in .wheels/ (if any) go first on the path: the image seen on 2026-11-26 had numba-cuda
# 0.30.4, which fails to import with its NumPy 2.5.2 (np.row_stack is gone), so NumPy 2.4.6 was
# carried there (see bench/results/20261126_gpu_tests.txt).
if compgen -G ".wheels/*.whl" >/dev/null; then
  $PY -m pip install -q --no-index --no-deps --no-compile --target /tmp/elena_jax_wheels .wheels/*.whl
  export PYTHONPATH=/tmp/elena_jax_wheels:$PYTHONPATH
fi
{
  date -u; nvidia-smi; lscpu | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-200
  $PY -c "import jax, jaxlib, numpy, numba; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, \
'numpy', numpy.__version__, 'numba', numba.__version__); print([(d, d.device_kind) for d in jax.devices()])"
  $PY -m pip list 2>/dev/null | grep -i -E "^(jax|numba|numpy|torch|pytest|hypothesis|cuda)"
} >"$OUT/env.txt" 2>&1
DEFAULT_CASES=valid_flags,delta2bbox,delta2bbox_cls84,tblr2bbox,gen_base_anchors,bbox2delta,clip_boxes,bbox_flip
DEFAULT_CASES=$DEFAULT_CASES,xyxy_xywh,grid_anchors,standardize,box_blur,jacobi,normalize_channels,wave_1d,nms
CASES=${CASES:-$DEFAULT_CASES}
HIDING_CASES=${HIDING_CASES:-valid_flags,delta2bbox,delta2bbox_cls84,tblr2bbox,gen_base_anchors,bbox2delta,clip_boxes,bbox_flip,xyxy_xywh,jacobi,wave_1d}
PEERS=numpy,elena_jax,elena_jax_noopt,elena_jax_numpy_io,jax_at,jax,elena_jax_kernel,torch
# First (a call stopped at its limit keeps it): the kernels, temporaries and device times of
# elena_jax's programs (its variants: bench/hiding.py) against the hand forms at 1e6, and the
# compiled programs themselves (hlo.tgz), for reading after the machine is gone.
timeout "$HIDING_S" $PY -m bench.hiding --sizes 1e6 --cases "$HIDING_CASES" --json "$OUT/hiding.json" \
  --hlo /tmp/elena_jax_hlo >"$OUT/hiding.txt" 2>&1
echo "hiding rc $?" >>"$OUT/hiding.txt"
tar czf "$OUT/hlo.tgz" -C /tmp elena_jax_hlo
# The tests that need a GPU, and the differential tests of the bench cases and of NumPy's
# rounding, run on it, against NumPy's portable loops (tests/conftest.py; a plugin of the image's
# pytest imports NumPy before conftest.py can set it: the first run of 2026-11-28c ran no test).
NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" timeout "$TEST_S" $PY -m pytest -q -rfsxX -n 8 -p no:cacheprovider -o filterwarnings=default \
  tests/test_kernels_gpu.py tests/test_opaque.py tests/test_bench_cases.py tests/test_lower.py \
  >"$OUT/pytest_gpu.txt" 2>&1
echo "pytest rc $?" >>"$OUT/pytest_gpu.txt"
# The benchmark, the detection cases of the issue first: stopped at its limit, it loses the last cases only.
timeout "$BENCH_S" $PY -m bench --device gpu --cases "$CASES" --peers "$PEERS" --repeats 20 --pipelined \
  --json "$OUT/gpu.json" >"$OUT/bench.log" 2>&1
echo "bench rc $?" >>"$OUT/bench.log"
[ -f "$OUT/gpu.md" ] || $PY -m bench --report "$OUT/gpu.json" >>"$OUT/bench.log" 2>&1
# NB: eight files at most come back from a lent machine: the plots are made again from gpu.json here
# (python -m bench --report gpu.json)
rm -f "$OUT"/*.png
tail -n 3 "$OUT/bench.log" "$OUT/pytest_gpu.txt" "$OUT/hiding.txt"
