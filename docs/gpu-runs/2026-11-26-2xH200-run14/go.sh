#!/bin/bash
# GPU run 14: the fix of run 13 (1 PE, mapped), FI_HMEM through a libfabric
# with CUDA carried in ofi/ (shm-hmem, four-hmem), put bandwidth with
# FI_HMEM against staging, then NVSHMEM's anchor and the on-stream
# benchmarks.  Everything lands in $OUT/run.tgz.
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
run() { # NAME CONFIGS [env...]
    n=$1; cf=$2; shift 2
    env "$@" GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary_$n.txt \
        GPU_TEST_TIMEOUT=60 GPU_TEST_PYTHON=python3 GPU_TEST_CONFIGS="$cf" \
        sh tests/gpu/run.sh >"$O/matrix_$n.log" 2>&1
    echo "== $n: exit $?"; grep -E "^(PASS|FAIL|SKIP)" "$O/summary_$n.txt"
    pack
}
run base "one mapped tcp-nodirect"
OFI="LD_LIBRARY_PATH=$C/ofi/lib:$LD_LIBRARY_PATH"
env "$OFI" FI_LOG_LEVEL=warn $C/ofi/bin/fi_info -p shm -c FI_HMEM >"$O/fi_info_hmem.txt" 2>&1
run hmem "shm-hmem four-hmem" "$OFI"
# Put bandwidth between GPUs that are not mapped: FI_HMEM, then staging.
for m in hmem staged; do
    e=""; [ $m = hmem ] && e="$OFI"
    env $e FABSHMEM_PROVIDER=shm FABSHMEM_DIRECT=0 FABSHMEM_CUDA_REMOTE=$m SHMEM_INFO=1 \
        timeout 90 $L 2 $C/bin/gpu_put_bw -s 64M >"$O/bench/put_bw_$m.txt" 2>&1
    echo "put_bw $m: exit $?" >>"$O/bench/put_bw_$m.txt"
done
grep -h "fabshmem_put \|exit" "$O"/bench/put_bw_*.txt
pack
timeout 200 bash "$C/anchor/run.sh" "$O/bench" >"$O/bench/nvshmem_build.txt" 2>&1
pack
GPU_ANCHOR=$C/anchor timeout 300 bash bench/gpu/run_stream.sh "$O/bench" "$C/bin" "$L" >/dev/null 2>&1
pack
cat "$O/bench/stream_table.md"
