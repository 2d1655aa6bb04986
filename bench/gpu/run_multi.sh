#!/bin/bash
# The run on a host of several GPUs (docs/gpu.md, "Running on a GPU host"):
# the GPU tests in every configuration, the device API beside NVSHMEM's
# device API, the host and on-stream benchmarks beside NVSHMEM and NCCL,
# and the Python binding's GPU check, from a carried build, in phases that
# fit the GPU host's calls:
#
#   bench/gpu/run_multi.sh OUT PHASE...
#
# PHASE is one of
#   device   gpu_device_bench (the device API: p ping-pong, barrier,
#            fetch_add, block put 4 KiB to 256 MiB, block all-reduce 4 KiB to
#            64 MiB) and the same source built against the host's NVSHMEM
#            (nvidia-nvshmem-cu13: nvshmem_device_bench), alternated, twice
#            each, one PE a GPU, into OUT/bench
#   quick    gpu_device, gpu_types and gpu_check, mapped at 2 and 4 PEs
#            (after a change of the device code), OUT/summary_quick.txt
#   tests2   tests/gpu/run.sh in every configuration of one or two PEs
#            (mapped: over NVLink between the two GPUs; virtual nodes: the
#            proxy), one PE a GPU, no MPS: OUT/summary_x2.txt
#   tests4   the configurations of four PEs (two a GPU on a host of two or
#            three GPUs: under an MPS daemon started here, so that kernels
#            that wait for each other run at once), OUT/summary_mps.txt, and
#            then the hmem phase
#   hmem     the FI_HMEM configurations (HMEM_CONFIGS, default shm-hmem
#            shm-proxy four-hmem) with the CUDA libfabric
#            (GPU_TEST_FABRIC_HMEM, CARRY/fabric-hmem), OUT/summary_hmem.txt
#   proxy    bench/gpu/run_proxy.sh: the device API through the proxy
#            beside the host's own path, one PE a GPU on virtual nodes,
#            into OUT/bench
#   python   the binding's GPU check (tests/gpu/run_python.sh) at 1, 2 and 4
#            PEs and at 2 through the proxy, OUT/python.txt, then examples
#   examples the Python examples (examples/python) at 2 PEs, OUT/examples.txt
#   sanitize compute-sanitizer's memcheck, racecheck and synccheck on
#            gpu_device and gpu_types at 2 PEs (mapped: one a GPU, or both
#            on one in turns; SANITIZE_RUNS, TOOL:PROG words, picks
#            some), OUT/sanitize_TOOL_PROG.log and OUT/summary_sanitize.txt
#   stream   bench/gpu/run.sh and bench/gpu/run_stream.sh (blocking and
#            on-stream benchmarks beside NVSHMEM's anchor, NVSHMEM's barrier
#            and NCCL's all-reduce) into OUT/bench
# and the report of what is in OUT comes last (OUT/table.md,
# bench/gpu/report.py).
#
# The environment: CARRY (default gpu-carry: lib/, libx/, bin/ with the
# programs, fabric-hmem/, anchor/ with ../shared/gpu-anchor), PY (the
# host's Python with CuPy, default /opt/torch/.venv/bin/python3),
# GPU_TEST_TIMEOUT (default 120).  NVLink multicast stays off.
out=${1:?usage: run_multi.sh OUT PHASE...}
shift
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
carry=$(cd "${CARRY:-$top/gpu-carry}" && pwd) || exit 1
py=${PY:-/opt/torch/.venv/bin/python3}
mkdir -p "$out/bench"
out=$(cd "$out" && pwd)
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export CUDA_MODULE_LOADING=EAGER PYTHONUNBUFFERED=1
# Of the carried libraries that the build needs (libx: libfabric, PMIx,
# hwloc, ...), only those the host lacks: a carried libpmix in the
# processes of the host's Open MPI (mpirun for NVSHMEM's and NCCL's
# programs, mpi4py in the examples) breaks them.
libx=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-libx.XXXXXX")
for f in "$carry"/libx/*; do
    [ -e "$f" ] || continue
    ldconfig -p | grep -q "^[[:space:]]*$(basename "$f") " || ln -s "$f" "$libx/"
done
echo "carried libraries the host lacks: $(ls "$libx" | tr '\n' ' ')"
export LD_LIBRARY_PATH=$carry/lib:$libx${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GPU_TEST_BIN=$carry/bin DEVICE_BENCH_BIN=$carry/bin GPU_TEST_TIMEOUT=${GPU_TEST_TIMEOUT:-120}
[ -d "$carry/anchor" ] && export GPU_ANCHOR=$carry/anchor
launch=$top/tests/uid_launch.sh
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
cd "$top" || exit 1
rc=0
say() { echo "== $(date -u +%H:%M:%S) $*"; }

# The NVSHMEM of the host's Python environment, for nvshmem_device_bench.
nvshmem_dir() {
    "$py" -c 'import nvidia.nvshmem as m; print(m.__path__[0])' 2>/dev/null
}

# The binding built for the host's Python (tests/gpu/run_python.sh builds it
# into /tmp/fabpy): tests/gpu/run.sh's gpu_check then runs in every
# configuration.
python_binding() {
    [ -f /tmp/fabpy/lib/fabshmem/__init__.py ] && return 0
    FABPY_BUILD_ONLY=1 sh tests/gpu/run_python.sh "$carry" "$py" >"$out/pybuild.txt" 2>&1
    [ -f /tmp/fabpy/lib/fabshmem/__init__.py ]
}
with_python() {
    if python_binding; then
        GPU_TEST_PYTHON=$py PYTHONPATH=/tmp/fabpy/lib${PYTHONPATH:+:$PYTHONPATH} "$@"
    else
        echo "the binding did not build (pybuild.txt): the configurations run without gpu_check"
        "$@"
    fi
}
matrix() { # LABEL CONFIGS [MORE ENV]: tests/gpu/run.sh into OUT/summary_LABEL.txt
    label=$1 configs=$2
    shift 2
    say "tests/gpu/run.sh ($label): $configs"
    env GPU_TEST_CONFIGS="$configs" GPU_TEST_SUMMARY="$out/summary_$label.txt" "$@" \
        sh tests/gpu/run.sh | grep -E '^(PASS|FAIL|SKIP)' || true
    grep -q '^FAIL' "$out/summary_$label.txt" && rc=1
}

phase_device() {
    nv=$(nvshmem_dir) nvb=
    if [ -n "$nv" ] && command -v nvcc >/dev/null; then
        nvb=$out/nvshmem_device_bench
        say "building nvshmem_device_bench against $nv"
        nvcc -O2 -std=c++17 -arch=sm_90 -rdc=true -DDEVBENCH_NVSHMEM -I"$nv/include" \
            bench/gpu/gpu_device_bench.cu -o "$nvb" -L"$nv/lib" -l:libnvshmem_host.so.3 \
            -lnvshmem_device -lcuda >"$out/nvshmem_device_build.txt" 2>&1 || nvb=
        [ -n "$nvb" ] || { tail -n 20 "$out/nvshmem_device_build.txt"; rc=1; }
    else
        echo "no NVSHMEM (nvidia.nvshmem in $py) or no nvcc: the device API alone"
    fi
    show='pingpong|barrier|fetch_add|put_block_bw +(1048576|268435456)' # the headline rows
    for r in 1 2; do
        say "gpu_device_bench run $r"
        FABSHMEM_PROVIDER=shm timeout 200 "$launch" 2 "$carry/bin/gpu_device_bench" \
            >"$out/bench/gpu_device_bench_$r.txt" 2>&1 || { rc=1; tail -n 5 "$out/bench/gpu_device_bench_$r.txt"; }
        grep -E "$show" "$out/bench/gpu_device_bench_$r.txt"
        [ -n "$nvb" ] || continue
        say "nvshmem_device_bench run $r"
        LD_LIBRARY_PATH=$nv/lib:$LD_LIBRARY_PATH NVSHMEM_REMOTE_TRANSPORT=none \
            NVSHMEM_SYMMETRIC_SIZE=2147483648 timeout 200 "$launch" 2 "$nvb" \
            >"$out/bench/nvshmem_device_bench_$r.txt" 2>&1 || { rc=1; tail -n 5 "$out/bench/nvshmem_device_bench_$r.txt"; }
        grep -E "$show" "$out/bench/nvshmem_device_bench_$r.txt"
    done
}

phase_quick() {
    with_python matrix quick "mapped four-mapped" GPU_TEST_PROGS="gpu_device gpu_types" GPU_DEVICE_ITERS=2000
}

phase_tests2() {
    with_python matrix x2 "one mapped shm-nodirect tcp-nodirect tcp-vnode tcp-staged shm-staged \
sockets-vnode shm-proxy tcp-proxy sockets-proxy tcp-noproxy" GPU_DEVICE_ITERS=100000
}

phase_tests4() {
    four="four-mapped four-vnode four-sockets four-shm-proxy four-tcp-proxy four-sockets-proxy"
    mps=
    if [ "$ngpu" -lt 4 ] && command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
        mps=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-mps.XXXXXX")
        export CUDA_MPS_PIPE_DIRECTORY=$mps/pipe CUDA_MPS_LOG_DIRECTORY=$mps/log
        mkdir -p "$mps/pipe" "$mps/log"
        nvidia-cuda-mps-control -d || { echo "nvidia-cuda-mps-control -d failed"; mps=; }
    fi
    label=x$ngpu
    [ -n "$mps" ] && label=mps
    with_python matrix "$label" "$four" GPU_DEVICE_ITERS=100000
    if [ -n "$mps" ]; then
        echo quit | nvidia-cuda-mps-control
        rm -rf "$mps"
        unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    fi
    phase_hmem
}

# FI_HMEM: the programs that move GPU memory through the provider (the
# binding's check runs in the other phases; libfabric 1.17.1's shm gave
# wrong data between two GPUs on 2026-11-29 until the library's threads
# made the device current, docs/gpu.md, FI_HMEM)
phase_hmem() {
    [ -d "$carry/fabric-hmem" ] || { echo "no $carry/fabric-hmem: no FI_HMEM run"; return; }
    matrix hmem one GPU_TEST_FABRIC_HMEM="$carry/fabric-hmem" GPU_TEST_TIMEOUT=40 \
        GPU_TEST_PROGS="gpu_rma gpu_reduce gpu_stream gpu_device gpu_types" \
        GPU_TEST_HMEM_CONFIGS="${HMEM_CONFIGS:-shm-hmem shm-proxy four-hmem}" GPU_DEVICE_ITERS=100000
}

phase_proxy() {
    say "bench/gpu/run_proxy.sh"
    DEVICE_BENCH_BIN=$carry/bin sh bench/gpu/run_proxy.sh "$out" || rc=1
}

phase_python() {
    say "the binding's GPU check (tests/gpu/run_python.sh)"
    sh tests/gpu/run_python.sh "$carry" "$py" >"$out/python.txt" 2>&1 || rc=1
    grep -E '^(PASS|FAIL|SKIP)' "$out/python.txt"
    phase_examples
}

phase_examples() {
    python_binding || return
    for ex in ring overview interop tutorial; do
        if [ $ex = tutorial ]; then # initializes over mpi4py's MPI.COMM_WORLD: mpirun
            PYTHONPATH=/tmp/fabpy/lib FABSHMEM_PROVIDER=shm OMPI_ALLOW_RUN_AS_ROOT=1 \
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpirun --allow-run-as-root \
                --oversubscribe -n 2 -x PYTHONPATH -x LD_LIBRARY_PATH -x FABSHMEM_PROVIDER \
                "$py" examples/python/$ex.py >"$out/example_$ex.log" 2>&1
        else
            PYTHONPATH=/tmp/fabpy/lib FABSHMEM_PROVIDER=shm timeout 120 "$launch" 2 "$py" \
                examples/python/$ex.py >"$out/example_$ex.log" 2>&1
        fi
        r=$?
        echo "$([ $r = 0 ] && echo PASS || echo FAIL) example $ex.py np=2 (exit $r)" | tee -a "$out/examples.txt"
        [ $r = 0 ] || { rc=1; tail -n 10 "$out/example_$ex.log"; }
    done
}

# The device API's tests under compute-sanitizer (issue 29: memcheck and
# racecheck clean).  Each PE runs under its own sanitizer; the loops are
# short (the instrumented kernels are 5x to 10x slower).
phase_sanitize() {
    san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
    [ -n "$san" ] || { echo "no compute-sanitizer: no sanitize phase"; return; }
    say "compute-sanitizer ($("$san" --version | tail -n 1))"
    : >"$out/summary_sanitize.txt"
    for t in ${SANITIZE_RUNS:-memcheck:gpu_types memcheck:gpu_device racecheck:gpu_types \
             racecheck:gpu_device synccheck:gpu_device}; do
        tool=${t%%:*} prog=${t#*:} f=$out/sanitize_${tool}_$prog.log t0=$(date +%s)
        GPU_DEVICE_TRACE=1 GPU_DEVICE_ITERS=300 FABSHMEM_PROVIDER=shm timeout -k 5 300 "$launch" 2 "$san" \
            --tool "$tool" --error-exitcode 99 --print-limit 30 "$carry/bin/$prog" >"$f" 2>&1
        r=$? secs=$(($(date +%s) - t0))
        # Both PEs passed and both sanitizers found nothing (.log: the
        # report does not take the instrumented run's barrier times).
        if [ $r = 0 ] && [ "$(grep -c ': PASS (' "$f")" = 2 ] &&
           [ "$(grep -cE 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards' "$f")" = 2 ]; then
            echo "PASS $prog $tool (np=2 compute-sanitizer) ($secs s)" >>"$out/summary_sanitize.txt"
        else
            echo "FAIL $prog $tool (np=2 compute-sanitizer) (exit $r, $secs s)" >>"$out/summary_sanitize.txt"
            # Where each PE was (GPU_DEVICE_TRACE: gpu_device's steps).
            for pe in 0 1; do grep ": PE $pe: step: " "$f" | tail -n 1; done
            grep -E 'SUMMARY|Invalid|Race|rror' "$f" | head -n 10
            rc=1
        fi
    done
    cat "$out/summary_sanitize.txt"
}

phase_stream() {
    say "bench/gpu/run.sh"
    bash bench/gpu/run.sh "$out/bench" "$carry/bin" >"$out/run_sh.log" 2>&1 || rc=1
    say "bench/gpu/run_stream.sh"
    bash bench/gpu/run_stream.sh "$out/bench" "$carry/bin" >"$out/run_stream_sh.log" 2>&1 || rc=1
    grep -E '^\| (put|barrier|float32 sum|put with signal)' "$out/bench/stream_table.md" | head -n 30
}

for p in "$@"; do
    case $p in
    device | quick | tests2 | tests4 | hmem | proxy | python | examples | sanitize | stream) "phase_$p" ;;
    *) echo "run_multi.sh: unknown phase '$p'"; rc=2 ;;
    esac
done
python3 "$here/report.py" --title "Run on $ngpu GPUs (bench/gpu/run_multi.sh $*)" "$out" \
    >"$out/table.md" 2>&1
exit $rc
