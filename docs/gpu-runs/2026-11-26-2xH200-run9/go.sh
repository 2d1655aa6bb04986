#!/bin/bash
# A batched run of main on the GPU host (docs/gpu.md, "Runs"): the GPU test
# matrix (gpu_heap, gpu_rma, gpu_reduce, gpu_stream) in the configurations
# below, then the benchmarks beside NVSHMEM: gpu_put_bw with NVSHMEM's
# anchor (bench/gpu/run.sh) and the on-stream benchmark with
# nvshmem_barrier.cu (bench/gpu/run_stream.sh).  NVLink multicast stays off.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-/tmp/gpu-out}
mkdir -p "$O/bench"
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
{ date -u; nvidia-smi -L; } >"$O/env.txt" 2>&1
GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary.txt GPU_TEST_TIMEOUT=90 \
    GPU_TEST_CONFIGS="${CONFIGS:-one mapped tcp-nodirect tcp-vnode shm-staged four-mapped}" \
    sh tests/gpu/run.sh >"$O/matrix.log" 2>&1
echo "matrix: exit $?" >>"$O/matrix.log"
GPU_ANCHOR=$C/anchor timeout 300 bash bench/gpu/run.sh "$O/bench" "$C/bin" "$L" >/dev/null 2>&1
timeout 200 bash bench/gpu/run_stream.sh "$O/bench" "$C/bin" "$L" >/dev/null 2>&1
grep -E "^(PASS|FAIL|SKIP)" "$O/summary.txt"; tail -n 1 "$O/summary.txt"
cat "$O/bench/stream_table.md"
