#!/bin/bash
# Work between host buffers on a CUDA stream to a PE that is not mapped
# (docs/gpu.md, "Results"): gpu_stream_bench -h at 2 PEs on virtual nodes
# of one PE, on sockets with the stream's work offloaded to triggered
# operations (FABSHMEM_STREAM_OFFLOAD=1) and held for the stream's worker
# (0), alternated, and on tcp (no triggered operations: the worker), two
# runs each:
#   bench/gpu/run_host.sh OUTDIR [BINDIR] [LAUNCHER]
# BINDIR defaults to bench/gpu, LAUNCHER to tests/uid_launch.sh.  Writes
# OUTDIR/host_sockets_off1_N.txt, host_sockets_off0_N.txt, host_tcp_N.txt
# and OUTDIR/host_table.md (bench/gpu/report.py: medians, and triggered /
# worker).
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:?usage: run_host.sh OUTDIR [BINDIR] [LAUNCHER]}" && cd "$1" && pwd)
bin=${2:-$here}
launch=${3:-$here/../../tests/uid_launch.sh}
for r in 1 2; do
    for off in 1 0; do
        FABSHMEM_PROVIDER=sockets FABSHMEM_PES_PER_NODE=1 FABSHMEM_STREAM_OFFLOAD=$off \
            timeout 120 "$launch" 2 "$bin/gpu_stream_bench" -h >"$out/host_sockets_off${off}_$r.txt" 2>&1
        echo "exit $?" >>"$out/host_sockets_off${off}_$r.txt"
    done
    FABSHMEM_PROVIDER=tcp FABSHMEM_PES_PER_NODE=1 \
        timeout 120 "$launch" 2 "$bin/gpu_stream_bench" -h >"$out/host_tcp_$r.txt" 2>&1
    echo "exit $?" >>"$out/host_tcp_$r.txt"
done
python3 "$here/report.py" --title "Host buffers on CUDA streams (bench/gpu/run_host.sh)" "$out" \
    >"$out/host_table.md"
cat "$out/host_table.md"
