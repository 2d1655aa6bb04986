#!/bin/bash
# GPU run 25, 4 GPUs: the 4-PE configurations (one PE a GPU now) with
# every program and the binding's check, then the reduction's algorithms
# at 4 PEs (rsag against the one-shot) and NCCL's all-reduce at 4 GPUs.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=/tmp/gpu-out4
mkdir -p "$O"
pack() { tar -czf "$OUT/run.tgz" -C "$O" . ; }
(cd "$T/python" && FABPY_INCLUDE_DIRS=$T/include FABPY_LIB_DIR=$C/lib FABPY_RPATH=$C/lib \
    FABPY_CYTHON_BUILD_DIR=/tmp/pycy python3 setup.py -q build --build-base /tmp/pyb \
    --build-lib /tmp/pylib --build-temp /tmp/pyt >"$O/pybuild.txt" 2>&1; echo "pybuild exit $?" >>"$O/pybuild.txt") &
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
nvidia-smi -L >"$O/env.txt" 2>&1
nvidia-smi topo -m >>"$O/env.txt" 2>&1
: >"$O/reduce4.txt"
for a in oneshot rsag auto; do
    for r in 1 2; do
        echo "# $a run $r" >>"$O/reduce4.txt"
        FABSHMEM_GPU_REDUCE_ALGO=$a FABSHMEM_PROVIDER=shm timeout 100 $L 4 $C/bin/gpu_stream_bench -r 2>&1 |
            sed "s/^fabshmem_sum_reduce_on_stream/${a}_sum_reduce_on_stream/" >>"$O/reduce4.txt"
    done
    pack
done
grep -v "^#" "$O/reduce4.txt" | sort | head -60
wait
export PYTHONPATH=/tmp/pylib
for c in four-mapped four-vnode; do
    GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary_$c.txt GPU_TEST_TIMEOUT=40 \
        GPU_TEST_PYTHON=python3 GPU_TEST_CONFIGS="$c" \
        sh tests/gpu/run.sh >"$O/matrix_$c.log" 2>&1
    echo "matrix $c: exit $?" >>"$O/matrix_$c.log"
    grep -E "^(PASS|FAIL|SKIP)" "$O/summary_$c.txt" | cut -c1-50
    pack
done
: >"$O/nccl4.txt"
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 \
    mpirun --allow-run-as-root --oversubscribe -n 4 -x NCCL_NVLS_ENABLE \
    python3 "$C/anchor/nccl_allreduce.py" >>"$O/nccl4.txt" 2>&1
cat "$O/nccl4.txt" | tail -5
pack
