#!/usr/bin/env bash
# The GPU part of the benchmark and the Numba CUDA tests, in one run on a machine with an NVIDIA
# GPU, a CUDA jaxlib and numba-cuda (nothing is installed: the machine's python3 is used with this
# checkout on PYTHONPATH). Writes into $OUT (default /tmp/elena_jax_gpu): env.txt (GPU, driver,
# versions, CPU), pytest_gpu.txt, bench.log and the report gpu.json/.md/_speedup.png/_time_vs_size.png.
# Each stage has its own time limit; the benchmark keeps the rows it finished if stopped.
#   bash bench/gpu_check.sh            # about 7 minutes on one H100
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/elena_jax_gpu}
PY=${PY:-python3}
BENCH_S=${BENCH_S:-270}
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
mkdir -p "$OUT"
{
  date -u; nvidia-smi; lscpu | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-200
  $PY -c "import jax, jaxlib, numpy, numba; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, \
'numpy', numpy.__version__, 'numba', numba.__version__); print([(d, d.device_kind) for d in jax.devices()])"
  $PY -m pip list 2>/dev/null | grep -i -E "^(jax|numba|numpy|torch|pytest|hypothesis|cuda)"
} >"$OUT/env.txt" 2>&1
# The detection cases of the issue first: a run stopped at its limit loses the last cases only.
CASES=valid_flags,delta2bbox,delta2bbox_cls84,tblr2bbox,gen_base_anchors,bbox2delta,clip_boxes,bbox_flip
CASES=$CASES,xyxy_xywh,grid_anchors,standardize,box_blur,jacobi,normalize_channels,wave_1d,nms
PEERS=numpy,elena_jax,elena_jax_noopt,elena_jax_numpy_io,jax_at,jax,elena_jax_kernel,torch
timeout "$BENCH_S" $PY -m bench --device gpu --cases "$CASES" --peers "$PEERS" --repeats 20 \
  --json "$OUT/gpu.json" >"$OUT/bench.log" 2>&1
echo "bench rc $?" >>"$OUT/bench.log"
[ -f "$OUT/gpu.md" ] || $PY -m bench --report "$OUT/gpu.json" >>"$OUT/bench.log" 2>&1
timeout 120 $PY -m pytest -q -rs -p no:cacheprovider -o filterwarnings=default \
  tests/test_kernels_gpu.py >"$OUT/pytest_gpu.txt" 2>&1
echo "pytest rc $?" >>"$OUT/pytest_gpu.txt"
tail -n 3 "$OUT/bench.log" "$OUT/pytest_gpu.txt"
