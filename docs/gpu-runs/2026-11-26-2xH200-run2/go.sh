#!/bin/bash
# The second batched run of the fabshmem GPU tests on the GPU host
# (docs/gpu.md): the carried CUDA build (bin/, lib/), run directly with
# LD_LIBRARY_PATH.  It confirms the fix of the first run's failure and adds
# 4-PE configurations, the refusals and a size sweep of the timings.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-/tmp/gpu-out}
mkdir -p "$O"
cd "$C" || exit 1
L=$C/tests/uid_launch.sh
{
    date -u; nvidia-smi -L; nvidia-smi topo -m | head -3
    echo "== FABSHMEM_CUDA=1, one PE, a GPU present"
    FABSHMEM_CUDA=1 timeout 60 bin/gpu_heap --cuda-required; echo "exit $?"
    echo "== FABSHMEM_CUDA_REMOTE=hmem, 2 PEs not mapped, tcp (no FI_HMEM): init must fail"
    FABSHMEM_CUDA_REMOTE=hmem FABSHMEM_DIRECT=0 FABSHMEM_PROVIDER=tcp timeout 60 $L 2 bin/gpu_heap
    echo "exit $?"
    echo "== an AMO on a device word, 2 PEs: the job ends naming the routine"
    timeout 60 $L 2 bin/gpu_heap --amo; echo "exit $?"
    echo "== a CPU program, FABSHMEM_CUDA=auto (it loads no driver): no device heap"
    SHMEM_INFO=1 timeout 60 bin/rma_put 2>&1 | grep -E "^GPU:|PASS|FAIL"; echo "exit $?"
} >"$O/checks.txt" 2>&1
# The matrix at 1 and 2 PEs, and 4 PEs on the two GPUs.
GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary.txt GPU_TEST_TIMEOUT=90 \
    GPU_TEST_CONFIGS="one mapped shm-nodirect tcp-nodirect tcp-vnode tcp-staged shm-staged four-mapped four-vnode" \
    sh tests/gpu/run.sh >"$O/matrix.log" 2>&1
echo "matrix: exit $?" >>"$O/matrix.log"
# The 1-PE run that failed the first time, with the debug lines.
SHMEM_DEBUG=1 timeout 90 bin/gpu_rma >"$O/single.txt" 2>&1
echo "gpu_rma one PE: exit $?" >>"$O/single.txt"
# CPU programs with the CUDA build and the GPU brought up (FABSHMEM_CUDA=1).
for p in rma_put ptr; do
    FABSHMEM_CUDA=1 FABSHMEM_DEVICE_HEAP_SIZE=64M FABSHMEM_TEST_LAUNCHER=$L NPROCS_LIST="2 4" \
        TEST_PROVIDERS="shm tcp" TEST_MODES="direct vnode" TEST_SMOKE="" TEST_UID_PROGS="" \
        TEST_TIMEOUT=90 sh tests/run.sh bin/$p
done >"$O/cpu.log" 2>&1
tail -n 3 "$O/summary.txt" "$O/cpu.log"
