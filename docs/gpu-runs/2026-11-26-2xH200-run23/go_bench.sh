#!/bin/bash
# GPU run 21, second call: NVSHMEM's anchor, then the on-stream benchmarks
# beside it (bench/gpu/run_stream.sh, with the ping-pong through the
# fused kernel and through the copy).  Everything lands in $OUT/run.tgz.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=/tmp/gpu-out-bench
mkdir -p "$O/bench"
pack() { tar -czf "$OUT/run.tgz" -C "$O" . ; }
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
timeout 200 bash "$C/anchor/run.sh" "$O/bench" >"$O/bench/nvshmem_build.txt" 2>&1
pack
GPU_ANCHOR=$C/anchor timeout 380 bash bench/gpu/run_stream.sh "$O/bench" "$C/bin" "$L" >/dev/null 2>&1
pack
cat "$O/bench/stream_table.md"
