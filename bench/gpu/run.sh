#!/bin/bash
# The GPU benchmarks on a host with 2 GPUs, side by side with NVSHMEM in
# the same run (docs/gpu.md, "Running on a GPU host"):
#   bench/gpu/run.sh OUTDIR [BINDIR] [LAUNCHER]
# runs gpu_put_bw at 2 PEs (BINDIR, default bench/gpu; LAUNCHER, default
# tests/uid_launch.sh) twice, then NVSHMEM's anchor
# (../shared/gpu-anchor/run.sh, when it is there: it builds nvshmem_bench.cu
# against the Python environment's NVSHMEM and runs it twice), and writes
# OUTDIR/gpu_put_bw.txt, OUTDIR/nvshmem_bench.txt and OUTDIR/table.md
# (the medians of the runs, by size).  NVLink multicast stays off.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:?usage: run.sh OUTDIR [BINDIR] [LAUNCHER]}" && cd "$1" && pwd)
bin=${2:-$here}
launch=${3:-$here/../../tests/uid_launch.sh}
anchor=${GPU_ANCHOR:-$here/../../../shared/gpu-anchor}
: >"$out/gpu_put_bw.txt"
for r in 1 2; do
    echo "# run $r" >>"$out/gpu_put_bw.txt"
    FABSHMEM_PROVIDER=${FABSHMEM_PROVIDER:-shm} timeout 300 "$launch" 2 "$bin/gpu_put_bw" \
        >>"$out/gpu_put_bw.txt" 2>&1
    echo "# exit $?" >>"$out/gpu_put_bw.txt"
done
if [ -x "$anchor/run.sh" ] || [ -f "$anchor/run.sh" ]; then
    bash "$anchor/run.sh" "$out" >"$out/nvshmem_build.txt" 2>&1
else
    echo "no NVSHMEM anchor at $anchor" >"$out/nvshmem_bench.txt"
fi
# The table: the median of the runs' values for each (name, size).
# The tables: bench/gpu/report.py, medians of the runs and the ratios.
python3 "$here/report.py" --title "GPU benchmarks (bench/gpu/run.sh)" "$out" >"$out/table.md"
cat "$out/table.md"
