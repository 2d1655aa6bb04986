#!/bin/sh
# The GPU tests of make check (docs/gpu.md).
#
# Without a device heap (a build without CUDA, no GPU or no driver) it
# checks on one and on two PEs that shmem_malloc_with_hints with
# SHMEMX_MALLOC_DEVICE gives host memory as shmem_malloc does (gpu_heap
# exits 77 once that passed), that FABSHMEM_CUDA=1 makes shmem_init fail
# naming the variable, and that gpu_reduce, gpu_stream, gpu_reg, gpu_amo
# and (in a CUDA build) gpu_types skip; then it exits 77 (skipped: the GPU
# paths did not run).  With a GPU it checks that a
# FABSHMEM_CUDA=1 job without a device heap refuses SHMEMX_MALLOC_DEVICE
# (gpu_heap --cuda-required-noheap, two PEs), then runs the matrix of
# tests/gpu/run.sh at 1 and 2 PEs.
#
# Run from the build directory (make check does): the programs are
# tests/gpu/gpu_heap, tests/gpu/gpu_rma and tests/gpu/gpu_reduce there.

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$(mktemp "${TMPDIR:-/tmp}/fabshmem-gpu.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT INT TERM

# run WANT DESCRIPTION COMMAND...: the command's status must be WANT.
run() {
    want=$1 what=$2
    shift 2
    timeout -k 10 300 "$@" >"$out" 2>&1 </dev/null
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL gpu: $what: exit $rc, expected $want"
        sed 's/^/    | /' "$out" | tail -n 30
        exit 1
    fi
    echo "PASS gpu: $what (exit $rc)"
}

timeout -k 10 300 tests/gpu/gpu_heap >"$out" 2>&1 </dev/null
rc=$?
if [ "$rc" -eq 0 ]; then
    echo "PASS gpu: gpu_heap on one PE: a GPU is here; the matrix follows"
    run 0 "FABSHMEM_CUDA=1 without a device heap refuses SHMEMX_MALLOC_DEVICE, two PEs" \
        "$top/tests/uid_launch.sh" 2 tests/gpu/gpu_heap --cuda-required-noheap
    exec sh "$here/run.sh"
fi
if [ "$rc" -ne 77 ]; then
    echo "FAIL gpu: gpu_heap on one PE: exit $rc"
    sed 's/^/    | /' "$out" | tail -n 30
    exit 1
fi
echo "PASS gpu: SHMEMX_MALLOC_DEVICE is host memory without a device heap, one PE"
run 77 "SHMEMX_MALLOC_DEVICE is host memory without a device heap, two PEs" \
    "$top/tests/uid_launch.sh" 2 tests/gpu/gpu_heap
run 77 "gpu_reduce skips without a device heap, one PE" tests/gpu/gpu_reduce
run 77 "gpu_reduce skips without a device heap, two PEs" \
    "$top/tests/uid_launch.sh" 2 tests/gpu/gpu_reduce
run 77 "shmemx_stream_create_cuda refused without a GPU, two PEs" \
    "$top/tests/uid_launch.sh" 2 tests/gpu/gpu_stream
run 77 "gpu_reg skips without a device heap, two PEs" \
    "$top/tests/uid_launch.sh" 2 tests/gpu/gpu_reg
run 77 "gpu_amo skips without a device heap, two PEs" \
    "$top/tests/uid_launch.sh" 2 tests/gpu/gpu_amo
if [ -x tests/gpu/gpu_types ]; then # CUDA builds (nvcc)
    run 77 "gpu_types skips without a device heap, two PEs" \
        "$top/tests/uid_launch.sh" 2 tests/gpu/gpu_types
fi
FABSHMEM_CUDA=1; export FABSHMEM_CUDA
run 0 "FABSHMEM_CUDA=1 refused without a GPU" tests/gpu/gpu_heap --cuda-required
unset FABSHMEM_CUDA
echo "SKIP gpu: no device heap here (no GPU, no CUDA driver, or a build without CUDA)"
exit 77
