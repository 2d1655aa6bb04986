#!/bin/bash
# The closing GPU run of the session (docs/gpu.md, "Runs"): gpu_stream,
# gpu_reduce and the binding's GPU check in the mapped and unmapped
# configurations, then NVSHMEM's anchor once and the on-stream benchmarks
# (bench/gpu/run_stream.sh) in the same call.  Everything lands in one
# tarball, $OUT/run.tgz.  NVLink multicast stays off.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=/tmp/gpu-out
mkdir -p "$O/bench"
pack() { tar -czf "$OUT/run.tgz" -C "$O" . ; }
(cd "$T/python" && FABPY_INCLUDE_DIRS=$T/include FABPY_LIB_DIR=$C/lib FABPY_RPATH=$C/lib \
    FABPY_CYTHON_BUILD_DIR=/tmp/pycy python3 setup.py -q build --build-base /tmp/pyb \
    --build-lib /tmp/pylib --build-temp /tmp/pyt >"$O/pybuild.txt" 2>&1; echo "pybuild exit $?" >>"$O/pybuild.txt") &
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
nvidia-smi -L >"$O/env.txt" 2>&1
wait
export PYTHONPATH=/tmp/pylib
GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary.txt GPU_TEST_TIMEOUT=40 \
    GPU_TEST_PYTHON=python3 GPU_TEST_CONFIGS="mapped tcp-nodirect" \
    sh tests/gpu/run.sh >"$O/matrix.log" 2>&1
echo "matrix: exit $?" >>"$O/matrix.log"
pack
grep -E "^(PASS|FAIL|SKIP)" "$O/summary.txt"; tail -n 1 "$O/summary.txt"
timeout 100 bash "$C/anchor/run.sh" "$O/bench" >"$O/bench/nvshmem_build.txt" 2>&1
pack
timeout 120 bash bench/gpu/run_stream.sh "$O/bench" "$C/bin" "$L" >/dev/null 2>&1
pack
cat "$O/bench/stream_table.md"
