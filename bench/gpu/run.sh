#!/bin/bash
# The GPU benchmarks on a host with 2 GPUs, side by side with NVSHMEM in
# the same run (docs/gpu.md, "Benchmarks"):
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
python3 - "$out" <<'PY' >"$out/table.md"
import collections, statistics, sys
out = sys.argv[1]
v = collections.defaultdict(list)
for line in open(f"{out}/gpu_put_bw.txt"):
    f = line.split()
    if len(f) == 4 and f[3] == "GB/s":
        v[(f[0], int(f[1]))].append(float(f[2]))
try:
    for line in open(f"{out}/nvshmem_bench.txt"):
        f = line.split()
        if len(f) >= 2 and f[0].startswith("nvshmem_put_on_stream_GBps_"):
            v[("nvshmem_put_on_stream", int(f[0].rsplit("_", 1)[1]))].append(float(f[1]))
        if len(f) >= 2 and f[0].startswith("cuda_memcpy_peer_GBps_"):
            v[("anchor_memcpy_peer_async", int(f[0].rsplit("_", 1)[1]))].append(float(f[1]))
except OSError:
    pass
cols = ["fabshmem_put", "cuda_memcpy_peer", "cuda_memcpy_peer_async", "nvshmem_put_on_stream",
        "anchor_memcpy_peer_async"]
sizes = sorted({s for (_, s) in v})
print("| bytes | " + " | ".join(cols) + " | put / cudaMemcpyPeer | put / NVSHMEM |")
print("|---:|" + "---:|" * (len(cols) + 2))
def med(c, s):
    x = v.get((c, s))
    return statistics.median(x) if x else None
for s in sizes:
    cells = [med(c, s) for c in cols]
    r1 = cells[0] / cells[1] if cells[0] and cells[1] else None
    r2 = cells[0] / cells[3] if cells[0] and cells[3] else None
    fmt = lambda x: "" if x is None else f"{x:.1f}"
    rat = lambda x: "" if x is None else f"{x:.2f}"
    print(f"| {s} | " + " | ".join(fmt(c) for c in cells) + f" | {rat(r1)} | {rat(r2)} |")
print()
print("GB/s, medians of the runs (gpu_put_bw 2 runs, NVSHMEM's anchor 2 runs).")
r = collections.defaultdict(list)
for line in open(f"{out}/gpu_put_bw.txt"):
    f = line.split()
    if len(f) == 4 and f[0] == "fabshmem_sum_reduce":
        r[("fabshmem", int(f[1]))].append(float(f[2]))
try:
    for line in open(f"{out}/nvshmem_bench.txt"):
        f = line.split()
        if len(f) >= 2 and f[0].startswith("nvshmem_sum_reduce_on_stream_us_"):
            r[("nvshmem", int(f[0].rsplit("_", 1)[1]))].append(float(f[1]))
except OSError:
    pass
if r:
    print()
    print("| float32 sum reduce, bytes | fabshmem (blocking) us | NVSHMEM (on stream) us | ratio |")
    print("|---:|---:|---:|---:|")
    for s in sorted({s for (_, s) in r}):
        a = statistics.median(r[("fabshmem", s)]) if r.get(("fabshmem", s)) else None
        b = statistics.median(r[("nvshmem", s)]) if r.get(("nvshmem", s)) else None
        fmt = lambda x: "" if x is None else f"{x:.2f}"
        print(f"| {s} | {fmt(a)} | {fmt(b)} | {fmt(a / b) if a and b else ''} |")
PY
cat "$out/table.md"
