#!/bin/bash
# A batched run of merged main on the GPU host (docs/gpu.md, "Runs"): the carried
# CUDA build (build/gpu2/bin, build/gpu2/lib, build/gpu2/tree: this branch's sources) run directly with
# LD_LIBRARY_PATH; the Python binding built there against the host's
# Python, Cython, NumPy (CuPy, torch, cuda.core, numba-cuda are there);
# the GPU benchmark beside NVSHMEM's anchor; then the test matrix with the
# binding's GPU check.  NVLink multicast stays off.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-/tmp/gpu-out}
mkdir -p "$O/bench"
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
{
    date -u; nvidia-smi -L; nvidia-smi topo -m | head -3
    python3 -c "import sys, numpy; print('python', sys.version.split()[0], 'numpy', numpy.__version__)"
    for m in Cython cupy torch numba cuda.core mpi4py; do
        python3 -c "import $m as x; print('$m', getattr(x, '__version__', '?'))" 2>&1 | tail -1
    done
    python3 -c "import sysconfig, os; p = sysconfig.get_paths()['include']; print('Python.h', os.path.exists(p + '/Python.h'), p)"
    gcc --version | head -1
} >"$O/env.txt" 2>&1
# The binding, built here in the background (Cython 3: if the build fails,
# once more with legacy_implicit_noexcept).
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
# The benchmark beside NVSHMEM (two runs each).
GPU_ANCHOR=$C/anchor bash bench/gpu/run.sh "$O/bench" "$C/bin" "$L" >/dev/null 2>&1
wait $pypid; pyrc=$?
echo "pybuild exit $pyrc" >>"$O/pybuild.txt"
if [ $pyrc -eq 0 ]; then
    export PYTHONPATH=/tmp/pylib GPU_TEST_PYTHON=python3
    # The binding's CPU suite's team and init tests at 2 PEs, GPUs not bound.
    FABSHMEM_TEST_LAUNCHER=$L NPROCS_LIST=2 TEST_PROVIDERS=shm TEST_MODES=direct TEST_SMOKE="" \
        TEST_UID_PROGS="" FABPY_PYTHON=python3 TEST_TIMEOUT=120 \
        sh tests/run.sh tests/python/pytest.sh tests/python/test_teams.py tests/python/test_init.py \
        >>"$O/pybuild.txt" 2>&1
    echo "pytest teams+init: exit $?" >>"$O/pybuild.txt"
fi
GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$L GPU_TEST_SUMMARY=$O/summary.txt GPU_TEST_TIMEOUT=120 \
    GPU_TEST_CONFIGS="one mapped shm-nodirect tcp-nodirect tcp-vnode tcp-staged shm-staged four-mapped four-vnode" \
    sh tests/gpu/run.sh >"$O/matrix.log" 2>&1
echo "matrix: exit $?" >>"$O/matrix.log"
tail -n 2 "$O/summary.txt"; tail -n 3 "$O/pybuild.txt"; cat "$O/bench/table.md"
