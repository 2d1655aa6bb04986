#!/bin/bash
# GPU run 15: why FI_HMEM is not taken with the carried libfabric 2.1
# (shm-hmem), with libfabric's warnings; everything in $OUT/run.tgz.
C=$(cd "$(dirname "$0")" && pwd)
T=$C/tree
export LD_LIBRARY_PATH=$C/ofi/lib:$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=/tmp/gpu-out
mkdir -p "$O"
cd "$T" || exit 1
L=$T/tests/uid_launch.sh
for r in hmem auto; do
    FI_LOG_LEVEL=warn FABSHMEM_PROVIDER=shm FABSHMEM_DIRECT=0 FABSHMEM_CUDA_REMOTE=$r SHMEM_INFO=1 \
        timeout 60 $L 2 $C/bin/gpu_heap >"$O/heap_$r.txt" 2>&1
    echo "exit $?" >>"$O/heap_$r.txt"
done
FI_LOG_LEVEL=info $C/ofi/bin/fi_info -p shm -c FI_HMEM -v >"$O/fi_info.txt" 2>&1
tar -czf "$OUT/run.tgz" -C "$O" .
grep -hi "GPU:\|hmem\|cuda\|exit\|error" "$O"/heap_*.txt | grep -v "^    \|^  " | sort | uniq -c | sort -rn | head -40
