#!/bin/bash
# A batched run of main on the GPU host (docs/gpu.md, "Runs"): the carried
# CUDA build (bin, lib; tree: the sources) run with LD_LIBRARY_PATH; the
# Python binding built here against the host's Python (CuPy, torch,
# cuda.core there); the GPU test matrix with the binding's GPU check; the
# benchmarks beside NVSHMEM (bench/gpu/run.sh: gpu_put_bw and NVSHMEM's
# anchor; bench/gpu/run_stream.sh: gpu_stream_bench and nvshmem_barrier.cu);
# gpu_stream_bench once more with FABSHMEM_CUDA_SIGNAL_KERNEL=0 (the
# put-with-signal as a copy and a stream write).  NVLink multicast stays off.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-/tmp/gpu-out}
mkdir -p "$O/bench"
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
{
    date -u; nvidia-smi -L
    for m in Cython cupy torch cuda.core; do
        python3 -c "import $m as x; print('$m', getattr(x, '__version__', '?'))" 2>&1 | tail -1
    done
} >"$O/env.txt" 2>&1
pybuild() {
    (cd "$T/python" && FABPY_INCLUDE_DIRS=$T/include FABPY_LIB_DIR=$C/lib FABPY_RPATH=$C/lib \
        FABPY_CYTHON_BUILD_DIR=/tmp/pycy python3 setup.py -q build --build-base /tmp/pyb \
        --build-lib /tmp/pylib --build-temp /tmp/pyt)
}
(
    t0=$(date +%s)
    if ! pybuild >/tmp/pybuild1.txt 2>&1; then
        tail -n 40 /tmp/pybuild1.txt
        echo "== retry with legacy_implicit_noexcept"
        sed -i 's/compiler_directives={"language_level": 3}/compiler_directives={"language_level": 3, "legacy_implicit_noexcept": True}/' "$T/python/setup.py"
        rm -rf /tmp/pycy /tmp/pyb /tmp/pyt
        pybuild >/tmp/pybuild2.txt 2>&1 || { tail -n 60 /tmp/pybuild2.txt; exit 1; }
    fi
    echo "binding built in $(( $(date +%s) - t0 )) s"
) >"$O/pybuild.txt" 2>&1 &
pypid=$!
GPU_ANCHOR=$C/anchor timeout 300 bash bench/gpu/run.sh "$O/bench" "$C/bin" "$L" >/dev/null 2>&1
timeout 200 bash bench/gpu/run_stream.sh "$O/bench" "$C/bin" "$L" >/dev/null 2>&1
FABSHMEM_CUDA_SIGNAL_KERNEL=0 FABSHMEM_PROVIDER=shm timeout 120 $L 2 "$C/bin/gpu_stream_bench" \
    >"$O/bench/gpu_stream_bench_nokernel.txt" 2>&1
wait $pypid; pyrc=$?
echo "pybuild exit $pyrc" >>"$O/pybuild.txt"
[ $pyrc -eq 0 ] && export PYTHONPATH=/tmp/pylib GPU_TEST_PYTHON=python3
GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary.txt GPU_TEST_TIMEOUT=90 \
    GPU_TEST_CONFIGS="${CONFIGS:-one mapped shm-nodirect tcp-nodirect tcp-vnode tcp-staged shm-staged four-mapped four-vnode}" \
    sh tests/gpu/run.sh >"$O/matrix.log" 2>&1
echo "matrix: exit $?" >>"$O/matrix.log"
grep -E "^(PASS|FAIL|SKIP)" "$O/summary.txt"; tail -n 1 "$O/summary.txt"; tail -n 3 "$O/pybuild.txt"
cat "$O/bench/stream_table.md"; grep pingpong "$O/bench/gpu_stream_bench_nokernel.txt"
