#!/bin/bash
# The binding's GPU check alone, in two configurations, with whole logs.
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib
O=${OUT:-/tmp/gpu-out}
mkdir -p "$O"
cd "$T/python" && FABPY_INCLUDE_DIRS=$T/include FABPY_LIB_DIR=$C/lib FABPY_RPATH=$C/lib \
    FABPY_CYTHON_BUILD_DIR=/tmp/pycy python3 setup.py -q build --build-base /tmp/pyb \
    --build-lib /tmp/pylib --build-temp /tmp/pyt >"$O/pybuild.txt" 2>&1 || { tail -30 "$O/pybuild.txt"; exit 1; }
cd "$T"
export PYTHONPATH=/tmp/pylib
L=$T/tests/uid_launch.sh
for cfg in "2 shm 0 0 nodirect" "2 shm 1 0 mapped" "1 shm 1 0 one"; do
    set -- $cfg
    FABSHMEM_PROVIDER=$2 FABSHMEM_DIRECT=$3 FABSHMEM_PES_PER_NODE=$4 FABSHMEM_WATCHDOG=20 \
        timeout -k 5 45 $L $1 python3 tests/python/gpu_check.py >"$O/check_$5.txt" 2>&1
    echo "== $5: exit $?"
    grep -v "^  \|NumbaPerf\|warn(" "$O/check_$5.txt" | grep -v "python3\|libc.so\|site-packages" | head -30
done
