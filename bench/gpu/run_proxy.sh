#!/bin/sh
# The device API's proxy on a GPU host (docs/device.md, "The proxy"):
# gpu_proxy_bench at 2 PEs on virtual nodes of one PE
# (FABSHMEM_PES_PER_NODE=1, so that the PEs sharing the GPU reach each other
# only through the provider), with the proxy on, over each provider, into
# OUT/bench/gpu_proxy_bench_PROV.txt.
#   bench/gpu/run_proxy.sh OUT
# The environment: DEVICE_BENCH_BIN (the folder of gpu_proxy_bench, default
# bench/gpu), PROXY_BENCH_PROVIDERS (default "shm tcp sockets"),
# PROXY_BENCH_ITERS (the latency loops, default 2000).  Run it under MPS
# (bench/gpu/run_device.sh says how): without it the two PEs' kernels take
# turns of the GPU's time slices, and the barrier row waits for them.
out=${1:?usage: run_proxy.sh OUT}
# Kernels loaded eagerly: under lazy loading the proxy can stall (docs/device.md).
export CUDA_MODULE_LOADING=EAGER
here=$(cd "$(dirname "$0")" && pwd)
bbin=${DEVICE_BENCH_BIN:-bench/gpu}
launch=$here/../../tests/uid_launch.sh
mkdir -p "$out/bench"
rc=0
for prov in ${PROXY_BENCH_PROVIDERS:-shm tcp sockets}; do
    f=$out/bench/gpu_proxy_bench_$prov.txt
    FABSHMEM_PROVIDER=$prov FABSHMEM_PES_PER_NODE=1 FABSHMEM_PROXY=1 SHMEM_INFO=1 \
        timeout -k 10 600 "$launch" 2 "$bbin/gpu_proxy_bench" >"$f" 2>&1 </dev/null || rc=1
    echo "== $prov"
    grep -E '^gpu_proxy_bench|^GPU:|proxy' "$f"
done
exit $rc
