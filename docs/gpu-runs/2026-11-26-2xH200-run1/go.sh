#!/bin/bash
# One batched run of the fabshmem GPU tests on the GPU host (docs/gpu.md):
# the carried CUDA build (bin/, lib/), run directly with LD_LIBRARY_PATH.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-/tmp/gpu-out}
mkdir -p "$O"
cd "$C" || exit 1
L=$C/tests/uid_launch.sh
{
    date -u; uname -r; head -2 /etc/os-release
    nvidia-smi; nvidia-smi topo -m
    ldd lib/libfabshmem.so.0; ldd bin/gpu_heap | grep -v "=> /lib"
    bin/fabshmem_info | sed -n 1,20p
    FABSHMEM_PROVIDER=shm bin/fabshmem_info | grep -A1 "^CUDA"
} >"$O/env.txt" 2>&1
# One PE, with the debug lines.
SHMEM_DEBUG=1 SHMEM_INFO=1 timeout 120 bin/gpu_heap >"$O/single.txt" 2>&1
echo "gpu_heap one PE: exit $?" >>"$O/single.txt"
# The matrix at 1 and 2 PEs.
GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary.txt GPU_TEST_TIMEOUT=90 \
    sh tests/gpu/run.sh >"$O/matrix.log" 2>&1
echo "matrix: exit $?" >>"$O/matrix.log"
# Debug output of the two main paths at 2 PEs (mapped; not mapped on tcp).
{
    echo "== mapped, shm"; SHMEM_DEBUG=1 FABSHMEM_PROVIDER=shm timeout 120 $L 2 bin/gpu_rma; echo "exit $?"
    echo "== nodirect, tcp"; SHMEM_DEBUG=1 FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=0 timeout 120 $L 2 bin/gpu_rma; echo "exit $?"
} >"$O/debug.txt" 2>&1
# CPU programs with the CUDA build and the GPU brought up (FABSHMEM_CUDA=1).
for p in rma_put ptr; do
    FABSHMEM_CUDA=1 FABSHMEM_DEVICE_HEAP_SIZE=64M FABSHMEM_TEST_LAUNCHER=$L NPROCS_LIST=2 TEST_PROVIDERS="shm tcp" \
        TEST_MODES="direct nodirect" TEST_SMOKE="" TEST_UID_PROGS="" TEST_TIMEOUT=120 \
        sh tests/run.sh bin/$p
done >"$O/cpu.log" 2>&1
tail -n 3 "$O/summary.txt" "$O/cpu.log"
