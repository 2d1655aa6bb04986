#!/bin/bash
# GPU run 29 (the review commit): the matrix one configuration at a time, packed after each
# (the first call's matrix hung somewhere and came back empty).
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=/tmp/gpu-out2
mkdir -p "$O"
pack() { tar -czf "$OUT/run.tgz" -C "$O" . ; }
(cd "$T/python" && FABPY_INCLUDE_DIRS=$T/include FABPY_LIB_DIR=$C/lib FABPY_RPATH=$C/lib \
    FABPY_CYTHON_BUILD_DIR=/tmp/pycy python3 setup.py -q build --build-base /tmp/pyb \
    --build-lib /tmp/pylib --build-temp /tmp/pyt >"$O/pybuild.txt" 2>&1; echo "pybuild exit $?" >>"$O/pybuild.txt")
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
export PYTHONPATH=/tmp/pylib
for c in ${CONFIGS:-mapped one tcp-nodirect shm-staged four-mapped four-vnode tcp-vnode tcp-staged shm-nodirect}; do
    GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary_$c.txt GPU_TEST_TIMEOUT=${TMO:-40} \
        GPU_TEST_PYTHON=${GPY-python3} GPU_TEST_CONFIGS="$c" \
        sh tests/gpu/run.sh >"$O/matrix_$c.log" 2>&1
    echo "matrix $c: exit $?" >>"$O/matrix_$c.log"
    grep -E "^(PASS|FAIL|SKIP)" "$O/summary_$c.txt" | cut -c1-50
    pack
done
