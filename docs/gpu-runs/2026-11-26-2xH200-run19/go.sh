#!/bin/bash
# GPU run 19: gpu_stream where PEs do not map each other (collectives on
# device buffers held for the stream's host thread), after the kernels
# load at init and the scratch is stream-ordered; each configuration
# packed as it ends.
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=/tmp/gpu-out
mkdir -p "$O"
cd "$T" || exit 1
for c in shm-nodirect mapped tcp-vnode four-vnode; do
    FABSHMEM_WATCHDOG=8 GPU_TEST_BIN=$C/bin GPU_TEST_LAUNCHER=$T/tests/uid_launch.sh \
        GPU_TEST_SUMMARY=$O/summary_$c.txt GPU_TEST_TIMEOUT=25 GPU_TEST_PROGS="gpu_stream" \
        GPU_TEST_CONFIGS="$c" sh tests/gpu/run.sh >"$O/matrix_$c.log" 2>&1
    grep -E "^(PASS|FAIL|SKIP)" "$O/summary_$c.txt" | cut -c1-80
    tar -czf "$OUT/run.tgz" -C "$O" .
done
