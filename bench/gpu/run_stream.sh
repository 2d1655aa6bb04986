#!/bin/bash
# The on-stream benchmarks on CUDA streams on a host with 2 GPUs, side by
# side with NVSHMEM in the same run (docs/gpu.md, "Running on a GPU host"):
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
# stays off.  GPU_BENCH_REDUCE_NP=N (4 on a host of 4 GPUs) runs the
# reduction alone instead, at N PEs: each algorithm forced and auto, and
# NCCL's all-reduce on N GPUs.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:?usage: run_stream.sh OUTDIR [BINDIR] [LAUNCHER]}" && cd "$1" && pwd)
bin=${2:-$here}
launch=${3:-$here/../../tests/uid_launch.sh}
np=${GPU_BENCH_REDUCE_NP:-2}
algos="oneshot rsag"
if [ -n "$GPU_BENCH_REDUCE_NP" ]; then
    algos="oneshot rsag auto"
else
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
fi
# The reduction under each algorithm of FABSHMEM_GPU_REDUCE_ALGO, twice.
: >"$out/gpu_reduce_algos.txt"
for a in $algos; do
    for r in 1 2; do
        echo "# $a run $r" >>"$out/gpu_reduce_algos.txt"
        FABSHMEM_GPU_REDUCE_ALGO=$a FABSHMEM_PROVIDER=${FABSHMEM_PROVIDER:-shm} timeout 200 \
            "$launch" "$np" "$bin/gpu_stream_bench" -r 2>&1 |
            sed "s/^fabshmem_sum_reduce_on_stream/${a}_sum_reduce_on_stream/" \
            >>"$out/gpu_reduce_algos.txt"
    done
done
: >"$out/nvshmem_barrier.txt"
[ -z "$GPU_BENCH_REDUCE_NP" ] && NV=$(python3 -c 'import nvidia.nvshmem as m; print(m.__path__[0])' 2>/dev/null)
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
elif [ -z "$GPU_BENCH_REDUCE_NP" ]; then
    echo "no NVSHMEM (nvidia.nvshmem) or no nvcc here" >>"$out/nvshmem_barrier.txt"
fi
# NCCL's all-reduce through torch.distributed (the anchor's script), twice.
anchor=${GPU_ANCHOR:-$here/../../../shared/gpu-anchor}
: >"$out/nccl_allreduce.txt"
if [ -f "$anchor/nccl_allreduce.py" ]; then
    for r in 1 2; do
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 \
            mpirun --allow-run-as-root --oversubscribe -n "$np" -x NCCL_NVLS_ENABLE \
            python3 "$anchor/nccl_allreduce.py" >>"$out/nccl_allreduce.txt" 2>&1
    done
fi
# The tables: bench/gpu/report.py, medians of the runs and the ratios.
python3 "$here/report.py" --title "GPU benchmarks on CUDA streams (bench/gpu/run_stream.sh)" "$out" >"$out/stream_table.md"
cat "$out/stream_table.md"
