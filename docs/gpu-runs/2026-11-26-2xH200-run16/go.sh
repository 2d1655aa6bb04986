#!/bin/bash
# GPU run 16: FI_HMEM through the carried libfabric 2.1 (shm-hmem,
# four-hmem), then put bandwidth with FI_HMEM against staging, between GPUs
# that are not mapped.  Everything in $OUT/run.tgz.
export NVSHMEM_DISABLE_NVLS=1
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OFI=$C/ofi/lib:$LD_LIBRARY_PATH
O=/tmp/gpu-out
mkdir -p "$O/bench"
pack() { tar -czf "$OUT/run.tgz" -C "$O" . ; }
(cd "$T/python" && FABPY_INCLUDE_DIRS=$T/include FABPY_LIB_DIR=$C/lib FABPY_RPATH=$C/lib \
    FABPY_CYTHON_BUILD_DIR=/tmp/pycy python3 setup.py -q build --build-base /tmp/pyb \
    --build-lib /tmp/pylib --build-temp /tmp/pyt >"$O/pybuild.txt" 2>&1; echo "pybuild exit $?" >>"$O/pybuild.txt") &
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
wait
export PYTHONPATH=/tmp/pylib
LD_LIBRARY_PATH=$OFI GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary_hmem.txt \
    GPU_TEST_TIMEOUT=60 GPU_TEST_PYTHON=python3 GPU_TEST_CONFIGS="shm-hmem four-hmem" \
    sh tests/gpu/run.sh >"$O/matrix_hmem.log" 2>&1
echo "== hmem: exit $?"; grep -E "^(PASS|FAIL|SKIP)" "$O/summary_hmem.txt"
pack
for m in hmem staged; do
    lp=$LD_LIBRARY_PATH; [ $m = hmem ] && lp=$OFI
    LD_LIBRARY_PATH=$lp FABSHMEM_PROVIDER=shm FABSHMEM_DIRECT=0 FABSHMEM_CUDA_REMOTE=$m SHMEM_INFO=1 \
        timeout 90 $L 2 $C/bin/gpu_put_bw -s 64M >"$O/bench/put_bw_$m.txt" 2>&1
    echo "put_bw $m: exit $?" >>"$O/bench/put_bw_$m.txt"
    grep -h "^GPU:\|fabshmem_put \|exit" "$O/bench/put_bw_$m.txt" | sort -u
done
pack
