#!/bin/bash
# Experiment (not committed): CUDA streams with two PEs on one GPU (the
# refusal lifted), gpu_stream at 4 PEs on 2 GPUs, twice, then once with
# CUDA_MODULE_LOADING=EAGER.
export NVSHMEM_DISABLE_NVLS=1
C=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=/tmp/mpg; mkdir -p $O
pack() { tar -czf "$OUT/run.tgz" -C "$O" . ; }
cd "$(pwd)"
for r in 1 2; do
  ( time FABSHMEM_PROVIDER=shm FABSHMEM_WATCHDOG=20 timeout 60 bash tests/uid_launch.sh 4 $C/bin/gpu_stream ) >$O/mpg_$r.txt 2>&1
  echo "exit $?" >>$O/mpg_$r.txt; tail -4 $O/mpg_$r.txt; pack
done
