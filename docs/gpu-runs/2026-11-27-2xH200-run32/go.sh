#!/bin/bash
# GPU run 32: the final tree (after the ThreadSanitizer annotations of the provider):
# the GPU tests in the two sockets configurations, gpu_stream where the
# held path is unchanged (mapped, tcp-vnode), then the host-buffer
# benchmark with the offload on and off, alternated.  Packed after each
# step into $OUT/run.tgz.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=/tmp/gpu-out32
mkdir -p "$O/bench"
pack() { tar -czf "$OUT/run.tgz" -C "$O" . ; }
(cd "$T/python" && FABPY_INCLUDE_DIRS=$T/include FABPY_LIB_DIR=$C/lib FABPY_RPATH=$C/lib \
    FABPY_CYTHON_BUILD_DIR=/tmp/pycy python3 setup.py -q build --build-base /tmp/pyb \
    --build-lib /tmp/pylib --build-temp /tmp/pyt >"$O/pybuild.txt" 2>&1; echo "pybuild exit $?" >>"$O/pybuild.txt")
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
export PYTHONPATH=/tmp/pylib
matrix() { # CONFIG PROGS
    GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary_$1.txt GPU_TEST_TIMEOUT=${TMO:-60} \
        GPU_TEST_PYTHON=${GPY-python3} GPU_TEST_CONFIGS="$1" GPU_TEST_PROGS="$2" \
        sh tests/gpu/run.sh >"$O/matrix_$1.log" 2>&1
    echo "matrix $1: exit $?" >>"$O/matrix_$1.log"
    grep -E "^(PASS|FAIL|SKIP)" "$O/summary_$1.txt" | cut -c1-60
    pack
}
ALL="gpu_heap gpu_rma gpu_reduce gpu_stream gpu_reg"
for c in ${CONFIGS:-sockets-vnode four-sockets}; do matrix "$c" "${PROGS:-$ALL}"; done
if [ -z "$NOREG" ]; then
    GPY= matrix mapped gpu_stream
    GPY= matrix tcp-vnode gpu_stream
fi
if [ -z "$NOBENCH" ]; then
    for rep in 1 2; do
        for off in 1 0; do
            FABSHMEM_PROVIDER=sockets FABSHMEM_PES_PER_NODE=1 FABSHMEM_STREAM_OFFLOAD=$off \
                timeout 120 $L 2 $C/bin/gpu_stream_bench -h >"$O/bench/host_sockets_off${off}_$rep.txt" 2>&1
            echo "exit $?" >>"$O/bench/host_sockets_off${off}_$rep.txt"
            pack
        done
        FABSHMEM_PROVIDER=tcp FABSHMEM_PES_PER_NODE=1 \
            timeout 120 $L 2 $C/bin/gpu_stream_bench -h >"$O/bench/host_tcp_$rep.txt" 2>&1
        echo "exit $?" >>"$O/bench/host_tcp_$rep.txt"
        pack
    done
    grep -h "fabshmem_host\|^#\|exit" "$O"/bench/*.txt | head -80
fi
pack
