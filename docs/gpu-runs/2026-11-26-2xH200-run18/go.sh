#!/bin/bash
# GPU run 18: gpu_stream (and gpu_reduce) where PEs do not map each other,
# with the collectives on device buffers held for the stream's host thread.
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=/tmp/gpu-out
mkdir -p "$O"
cd "$T" || exit 1
GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$T/tests/uid_launch.sh GPU_TEST_SUMMARY=$O/summary.txt \
    GPU_TEST_TIMEOUT=60 GPU_TEST_PROGS="gpu_stream" \
    GPU_TEST_CONFIGS="one mapped shm-nodirect tcp-nodirect tcp-vnode tcp-staged shm-staged four-vnode" \
    sh tests/gpu/run.sh >"$O/matrix.log" 2>&1
echo "matrix: exit $?" >>"$O/matrix.log"
tar -czf "$OUT/run.tgz" -C "$O" .
grep -E "^(PASS|FAIL|SKIP)" "$O/summary.txt" | cut -c1-80; tail -n 1 "$O/summary.txt"
