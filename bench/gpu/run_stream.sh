#!/bin/bash
# The on-stream benchmarks on CUDA streams on a host with 2 GPUs, side by
# side with NVSHMEM in the same run (docs/gpu.md, "Benchmarks"):
#   bench/gpu/run_stream.sh OUTDIR [BINDIR] [LAUNCHER]
# runs gpu_stream_bench at 2 PEs twice (BINDIR, default bench/gpu;
# LAUNCHER, default tests/uid_launch.sh), and its ping-pong twice more
# with FABSHMEM_CUDA_PUT_SIGNAL_KERNEL=0 (fabshmem_pingpong_on_stream_copy:
# the copy and the stream write instead of the fused kernel), builds nvshmem_barrier.cu against
# the Python environment's NVSHMEM and runs it twice (mpirun), and writes
# OUTDIR/gpu_stream_bench.txt, OUTDIR/nvshmem_barrier.txt and
# OUTDIR/stream_table.md (the reduction alone under each algorithm of
# FABSHMEM_GPU_REDUCE_ALGO too, OUTDIR/gpu_reduce_algos.txt; and NCCL's
# all-reduce through torch.distributed,
# the anchor's nccl_allreduce.py, OUTDIR/nccl_allreduce.txt), which also
# takes NVSHMEM's put, ping-pong and
# reduction figures from OUTDIR/nvshmem_bench.txt when bench/gpu/run.sh
# wrote it there before (the medians of the runs).  NVLink multicast
# stays off.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:?usage: run_stream.sh OUTDIR [BINDIR] [LAUNCHER]}" && cd "$1" && pwd)
bin=${2:-$here}
launch=${3:-$here/../../tests/uid_launch.sh}
: >"$out/gpu_stream_bench.txt"
for r in 1 2; do
    echo "# run $r" >>"$out/gpu_stream_bench.txt"
    FABSHMEM_PROVIDER=${FABSHMEM_PROVIDER:-shm} timeout 300 "$launch" 2 "$bin/gpu_stream_bench" \
        >>"$out/gpu_stream_bench.txt" 2>&1
    echo "# exit $?" >>"$out/gpu_stream_bench.txt"
done
# The ping-pong with the put with signal as a copy and a stream operation
# (FABSHMEM_CUDA_PUT_SIGNAL_KERNEL=0) instead of the library's fused
# kernel, twice (-s 4096: the other parts at their smallest size), as
# fabshmem_pingpong_on_stream_copy.
for r in 1 2; do
    echo "# copy run $r" >>"$out/gpu_stream_bench.txt"
    FABSHMEM_CUDA_PUT_SIGNAL_KERNEL=0 FABSHMEM_PROVIDER=${FABSHMEM_PROVIDER:-shm} timeout 200 \
        "$launch" 2 "$bin/gpu_stream_bench" -s 4096 2>&1 |
        sed -n "s/^fabshmem_pingpong_on_stream /fabshmem_pingpong_on_stream_copy /p" \
        >>"$out/gpu_stream_bench.txt"
done
# The reduction under each algorithm of FABSHMEM_GPU_REDUCE_ALGO, twice.
: >"$out/gpu_reduce_algos.txt"
for a in oneshot rsag; do
    for r in 1 2; do
        echo "# $a run $r" >>"$out/gpu_reduce_algos.txt"
        FABSHMEM_GPU_REDUCE_ALGO=$a FABSHMEM_PROVIDER=${FABSHMEM_PROVIDER:-shm} timeout 200 \
            "$launch" 2 "$bin/gpu_stream_bench" -r 2>&1 |
            sed "s/^fabshmem_sum_reduce_on_stream/${a}_sum_reduce_on_stream/" \
            >>"$out/gpu_reduce_algos.txt"
    done
done
: >"$out/nvshmem_barrier.txt"
NV=$(python3 -c 'import nvidia.nvshmem as m; print(m.__path__[0])' 2>/dev/null)
if [ -n "$NV" ] && command -v nvcc >/dev/null; then
    d=$(mktemp -d)
    nvcc -O2 -arch=sm_90 -rdc=true -I"$NV/include" "$here/nvshmem_barrier.cu" -o "$d/nvb" \
        -L"$NV/lib" -l:libnvshmem_host.so.3 -lnvshmem_device -lcuda >>"$out/nvshmem_barrier.txt" 2>&1
    for r in 1 2; do
        rm -f "$d/id"
        LD_LIBRARY_PATH="$NV/lib:$LD_LIBRARY_PATH" NVSHMEM_REMOTE_TRANSPORT=none \
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 -x LD_LIBRARY_PATH \
            -x NVSHMEM_DISABLE_NVLS -x NVSHMEM_REMOTE_TRANSPORT "$d/nvb" "$d/id" \
            >>"$out/nvshmem_barrier.txt" 2>&1
    done
else
    echo "no NVSHMEM (nvidia.nvshmem) or no nvcc here" >>"$out/nvshmem_barrier.txt"
fi
# NCCL's all-reduce through torch.distributed (the anchor's script), twice.
anchor=${GPU_ANCHOR:-$here/../../../shared/gpu-anchor}
: >"$out/nccl_allreduce.txt"
if [ -f "$anchor/nccl_allreduce.py" ]; then
    for r in 1 2; do
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 \
            mpirun --allow-run-as-root --oversubscribe -n 2 -x NCCL_NVLS_ENABLE \
            python3 "$anchor/nccl_allreduce.py" >>"$out/nccl_allreduce.txt" 2>&1
    done
fi
python3 - "$out" <<'PY' >"$out/stream_table.md"
import collections, os, statistics, sys
out = sys.argv[1]
f_ = collections.defaultdict(list)  # fabshmem (metric, size) -> values
n_ = collections.defaultdict(list)  # NVSHMEM
for line in open(f"{out}/gpu_stream_bench.txt"):
    f = line.split()
    if len(f) == 4 and f[0].startswith("fabshmem_"):
        f_[(f[0][len("fabshmem_"):], int(f[1]))].append(float(f[2]))
def scan(path, keys):
    if not os.path.exists(path):
        return
    for line in open(path):
        f = line.split()
        if len(f) < 2:
            continue
        for prefix, metric in keys:
            if f[0].startswith(prefix):
                rest = f[0][len(prefix):]
                size = int(rest) if rest else 0
                n_[(metric, size)].append(float(f[1]))
scan(f"{out}/nvshmem_bench.txt", [("nvshmem_put_on_stream_GBps_", "put_on_stream"),
                                   ("nvshmem_sum_reduce_on_stream_us_", "sum_reduce_on_stream"),
                                   ("nvshmem_stream_pingpong_half_rtt_us", "pingpong_on_stream"),
                                   ("cuda_memcpy_peer_GBps_", "memcpy_peer_async")])
scan(f"{out}/nvshmem_barrier.txt", [("nvshmem_barrier_on_stream_us", "barrier_on_stream")])
c_ = collections.defaultdict(list)  # NCCL's all-reduce, us by size
if os.path.exists(f"{out}/nccl_allreduce.txt"):
    for line in open(f"{out}/nccl_allreduce.txt"):
        f = line.split()
        if len(f) == 2 and f[0].startswith("nccl_allreduce_us_"):
            c_[int(f[0].rsplit("_", 1)[1])].append(float(f[1]))
med = lambda d, k: statistics.median(d[k]) if d.get(k) else None
fmt = lambda x: "" if x is None else f"{x:.2f}"
print("| metric | size (bytes) | fabshmem | NVSHMEM | fabshmem / NVSHMEM | unit |")
print("|---|---:|---:|---:|---:|---|")
for (m, s) in sorted(f_, key=lambda k: (k[0], k[1])):
    # NVSHMEM's ping-pong and barrier lines carry no size.
    a = med(f_, (m, s))
    if m == "pingpong_on_stream_copy":  # the same ping-pong without the fused kernel
        b = med(n_, ("pingpong_on_stream", 0))
    else:
        b = med(n_, (m, 0 if m in ("pingpong_on_stream", "barrier_on_stream") else s))
    unit = "GB/s" if m == "put_on_stream" else "us"
    r = a / b if a and b else None
    print(f"| {m} | {s} | {fmt(a)} | {fmt(b)} | {fmt(r)} | {unit} |")
if c_:
    print("\n| float32 sum, bytes | fabshmem reduce on stream us | NCCL all-reduce us | fabshmem / NCCL |")
    print("|---:|---:|---:|---:|")
    for s in sorted(c_):
        a, b = med(f_, ("sum_reduce_on_stream", s)), statistics.median(c_[s])
        print(f"| {s} | {fmt(a)} | {fmt(b)} | {fmt(a / b if a and b else None)} |")
a_ = collections.defaultdict(list)  # (algo, size) -> us
if os.path.exists(f"{out}/gpu_reduce_algos.txt"):
    for line in open(f"{out}/gpu_reduce_algos.txt"):
        f = line.split()
        if len(f) == 4 and f[0].endswith("_sum_reduce_on_stream"):
            a_[(f[0].split("_")[0], int(f[1]))].append(float(f[2]))
if a_:
    print("\n| float32 sum on stream, bytes | oneshot us | rsag us | auto us | NVSHMEM us | rsag / oneshot |")
    print("|---:|---:|---:|---:|---:|---:|")
    for s in sorted({s for (_, s) in a_}):
        o, r = med(a_, ("oneshot", s)), med(a_, ("rsag", s))
        print(f"| {s} | {fmt(o)} | {fmt(r)} | {fmt(med(f_, ('sum_reduce_on_stream', s)))} | "
              f"{fmt(med(n_, ('sum_reduce_on_stream', s)))} | {fmt(r / o if o and r else None)} |")
fl = med(n_, ("memcpy_peer_async", 268435456))
pa = med(f_, ("put_on_stream", 268435456))
if fl and pa:
    print(f"\nput on stream at 256 MiB / cudaMemcpyPeerAsync (anchor): {pa:.1f} / {fl:.1f} = {pa / fl:.2f}")
print("\nMedians of 2 runs each; GB/s higher is better, us lower is better.")
PY
cat "$out/stream_table.md"
