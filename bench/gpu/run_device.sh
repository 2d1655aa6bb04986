#!/bin/sh
# The device API on a GPU host (docs/device.md): gpu_device over the
# configurations of tests/gpu/run.sh (the proxy's too) and gpu_device_bench
# at 2 PEs, first
# with the GPU in turns of time slices, then under an MPS daemon of our own
# (started here in a temporary folder when nvidia-cuda-mps-control exists,
# stopped at the end), each into OUT; then the report.
#   bench/gpu/run_device.sh OUT
# The environment: GPU_TEST_BIN / DEVICE_BENCH_BIN (folders of gpu_device and
# gpu_device_bench, default tests/gpu and bench/gpu), GPU_DEVICE_ITERS (the
# barrier loop: default 2000 without MPS, 100000 under it).
out=${1:?usage: run_device.sh OUT}
# Kernels loaded eagerly: under lazy loading the proxy can stall (docs/device.md).
export CUDA_MODULE_LOADING=EAGER
here=$(cd "$(dirname "$0")" && pwd)
tbin=${GPU_TEST_BIN:-tests/gpu}
bbin=${DEVICE_BENCH_BIN:-bench/gpu}
launch=$here/../../tests/uid_launch.sh
mkdir -p "$out/bench"
rc=0
# The benchmark only where the two PEs' kernels run at once (MPS, or two
# GPUs): in turns of time slices each exchange takes milliseconds.
run_all() { # TAG ITERS CONFIGS BENCH
    GPU_TEST_BIN=$tbin GPU_TEST_PROGS=gpu_device GPU_DEVICE_ITERS=$2 GPU_TEST_CONFIGS="$3" \
        GPU_TEST_SUMMARY=$out/summary_$1.txt sh "$here/../../tests/gpu/run.sh" || rc=1
    [ "$4" = bench ] || return
    FABSHMEM_PROVIDER=shm timeout 300 "$launch" 2 "$bbin/gpu_device_bench" \
        >"$out/bench/gpu_device_bench_$1.txt" 2>&1 || rc=1
    cat "$out/bench/gpu_device_bench_$1.txt"
}
# A PE killed while the other's kernel waits for it: the job ends, with a
# message naming it, within a minute (not at the timeout); mapped (shm),
# and through the proxy (virtual nodes of one PE on tcp, the kernel
# getting the dead PE's word with the proxy).
kill_case() { # NAME KILL PROV PPN PROXY
    t0=$(date +%s)
    GPU_DEVICE_KILL=$2 FABSHMEM_PROVIDER=$3 FABSHMEM_PES_PER_NODE=$4 FABSHMEM_PROXY=$5 \
        timeout -k 5 120 "$launch" 2 "$tbin/gpu_device" >"$out/$1.txt" 2>&1
    krc=$? secs=$(($(date +%s) - t0))
    cfg="gpu_device $1 (np=2 prov=$3 direct=1 pes_per_node=$4 remote=auto proxy=$5)"
    if [ $krc -ne 0 ] && [ $krc -ne 124 ] && [ $secs -lt 60 ] && grep -q "PE 1" "$out/$1.txt" &&
       ! grep -q "kernel's wait .* returned" "$out/$1.txt"; then
        echo "PASS $cfg ($secs s)"
        grep -v 'kills itself' "$out/$1.txt" | grep 'PE 1' | head -n 1 | sed 's/^/    /'
    else
        echo "FAIL $cfg (exit $krc, $secs s)"; cat "$out/$1.txt"; rc=1
    fi
}
{ kill_case kill 1 shm 0 1; kill_case kill-proxy proxy tcp 1 1; } >"$out/summary_kill.txt"
cat "$out/summary_kill.txt"
run_all slices "${GPU_DEVICE_ITERS:-2000}" "one mapped tcp-vnode four-mapped" "${DEVICE_BENCH_SLICES:-}"
if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
    mps=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-mps.XXXXXX")
    CUDA_MPS_PIPE_DIRECTORY=$mps/pipe CUDA_MPS_LOG_DIRECTORY=$mps/log
    export CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    mkdir -p "$mps/pipe" "$mps/log"
    if nvidia-cuda-mps-control -d; then
        run_all mps "${GPU_DEVICE_ITERS:-100000}" "mapped four-mapped" bench
        # the proxy: its configurations' tests and its benchmark
        run_all mps-proxy "${GPU_DEVICE_ITERS:-100000}" "tcp-proxy four-shm-proxy tcp-noproxy"
        [ -x "$bbin/gpu_proxy_bench" ] && { sh "$here/run_proxy.sh" "$out" || rc=1; }
        echo quit | nvidia-cuda-mps-control
    else
        echo "SKIP MPS: nvidia-cuda-mps-control -d failed"
    fi
    rm -rf "$mps"
fi
exit $rc
