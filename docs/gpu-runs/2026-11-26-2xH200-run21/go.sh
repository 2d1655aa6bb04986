#!/bin/bash
# GPU run 21 (session 5): the whole matrix with gpu_reg (registered GPU
# memory) and gpu_check's tutorial cell, and gpu_stream with the fused
# put-with-signal kernel.  Everything lands in $OUT/run.tgz.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=/tmp/gpu-out
mkdir -p "$O"
pack() { tar -czf "$OUT/run.tgz" -C "$O" . ; }
(cd "$T/python" && FABPY_INCLUDE_DIRS=$T/include FABPY_LIB_DIR=$C/lib FABPY_RPATH=$C/lib \
    FABPY_CYTHON_BUILD_DIR=/tmp/pycy python3 setup.py -q build --build-base /tmp/pyb \
    --build-lib /tmp/pylib --build-temp /tmp/pyt >"$O/pybuild.txt" 2>&1; echo "pybuild exit $?" >>"$O/pybuild.txt") &
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
nvidia-smi -L >"$O/env.txt" 2>&1
python3 -c 'import cuda.core, cupy; print("cuda.core", cuda.core.__version__, "cupy", cupy.__version__)' >>"$O/env.txt" 2>&1
wait
export PYTHONPATH=/tmp/pylib
# gpu_reg first, alone, with the library's debug lines, so a failure is seen early.
FABSHMEM_PROVIDER=shm SHMEM_DEBUG=1 timeout 60 $L 2 $C/bin/gpu_reg >"$O/gpu_reg_mapped.txt" 2>&1
echo "exit $?" >>"$O/gpu_reg_mapped.txt"
tail -n 5 "$O/gpu_reg_mapped.txt"
pack
GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary.txt GPU_TEST_TIMEOUT=60 \
    GPU_TEST_PYTHON=python3 \
    GPU_TEST_CONFIGS="one mapped shm-nodirect tcp-nodirect tcp-vnode tcp-staged shm-staged four-mapped four-vnode" \
    sh tests/gpu/run.sh >"$O/matrix.log" 2>&1
echo "matrix: exit $?" >>"$O/matrix.log"
pack
grep -E "^(PASS|FAIL|SKIP)" "$O/summary.txt" | cut -c1-60; tail -n 1 "$O/summary.txt"
