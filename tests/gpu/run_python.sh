#!/bin/sh
# The Python binding's GPU check (tests/python/gpu_check.py, with the device
# API's kernels from CuPy) on a GPU host at 1, 2 and 4 PEs sharing one GPU,
# from a carried build: builds the binding there for that host's Python
# against the carried libfabshmem, then runs the check under
# tests/uid_launch.sh (no launcher needed) on shm with the direct path
# (PEs of one GPU map each other: TEAM_SHARED is every PE), and at 2 PEs
# with FABSHMEM_DIRECT=0 (nothing mapped: the kernels' requests go through
# the device API's proxy; FABPY_NPS lists the PE counts of the first runs).  Run from the repository's root:
#
#   tests/gpu/run_python.sh [CARRY] [PYTHON]
#
# CARRY (default gpu-carry) holds lib/libfabshmem.so.0 and libx/ (the
# libraries the host lacks: libfabric, libpmix, ...); PYTHON (default
# /opt/torch/.venv/bin/python3) needs Cython, NumPy, CuPy, cuda.core and a
# C compiler.  The binding is built into /tmp/fabpy (or FABPY_OUT).  Prints
# one PASS/FAIL/SKIP line per run and exits 1 when one failed.  With
# FABPY_BUILD_ONLY=1 it only builds the binding (bench/gpu/run_multi.sh
# then runs gpu_check in tests/gpu/run.sh's configurations).
carry=${1:-gpu-carry}
py=${2:-/opt/torch/.venv/bin/python3}
top=$(pwd)
out=${FABPY_OUT:-/tmp/fabpy}
carry=$(cd "$carry" && pwd) || exit 1
[ -e "$carry/lib/libfabshmem.so" ] || ln -sf libfabshmem.so.0 "$carry/lib/libfabshmem.so"
mkdir -p "$out"
echo "== building the binding for $py ($("$py" -c 'import sys; print(sys.version.split()[0])'))"
(cd python && FABPY_INCLUDE_DIRS=$top/include FABPY_LIB_DIR=$carry/lib \
    FABPY_CYTHON_BUILD_DIR=$out/cython "$py" setup.py -q build --build-base "$out/build" \
    --build-lib "$out/lib" --build-temp "$out/temp") >"$out/build.log" 2>&1 || {
    tail -n 30 "$out/build.log"; echo "FAIL building the binding ($out/build.log)"; exit 1; }
[ "$FABPY_BUILD_ONLY" = 1 ] && { echo "built into $out/lib"; exit 0; }
PYTHONPATH=$out/lib${PYTHONPATH:+:$PYTHONPATH}
LD_LIBRARY_PATH=$carry/lib:$carry/libx${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
# Eager loading: without the direct path the kernels' requests go through
# the proxy, which lazy loading can stall (docs/device.md, The proxy).
CUDA_MODULE_LOADING=EAGER
export PYTHONPATH LD_LIBRARY_PATH NVSHMEM_DISABLE_NVLS NCCL_NVLS_ENABLE PYTHONUNBUFFERED \
    CUDA_MODULE_LOADING
rc=0
run() {  # NP DIRECT
    echo "== gpu_check.py np=$1 FABSHMEM_DIRECT=$2"
    FABSHMEM_PROVIDER=shm FABSHMEM_DIRECT=$2 SHMEM_INFO=1 timeout -k 10 300 \
        tests/uid_launch.sh "$1" "$py" tests/python/gpu_check.py >"$out/np$1-d$2.log" 2>&1 </dev/null
    r=$?
    grep -E "^GPU:|gpu_check|Error|error" "$out/np$1-d$2.log" | sort -u | head -n 40
    case $r in
    0) echo "PASS gpu_check np=$1 direct=$2" ;;
    77) echo "SKIP gpu_check np=$1 direct=$2" ;;
    *) tail -n 40 "$out/np$1-d$2.log"; echo "FAIL gpu_check np=$1 direct=$2 (exit $r)"; rc=1 ;;
    esac
}
for np in ${FABPY_NPS:-1 2 4}; do run "$np" 1; done
run 2 0
exit $rc
