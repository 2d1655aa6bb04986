#!/bin/sh
# The GPU tests over the ways GPU memory moves, at 1 and 2 PEs
# (docs/gpu.md), with a summary: make check-gpu, or make check on a
# machine with a GPU (tests/gpu/gpu.sh).  One line per program and
# configuration, and under it the GPU line of SHMEM_INFO (device, device
# heap, mapped peers, the way to PEs that are not mapped) and what the
# program reported (gpu_rma: the path and the time of a 64 MiB put).
#
# The configurations (name: PEs, FABSHMEM_PROVIDER, FABSHMEM_DIRECT,
# FABSHMEM_PES_PER_NODE, FABSHMEM_CUDA_REMOTE):
#   one:          1 PE, shm
#   mapped:       2 PEs on shm, node peers map each other's device heaps
#                 (copies of the GPU, over NVLink between two GPUs)
#   shm-nodirect: 2 PEs, nothing mapped, shm (FI_HMEM where libfabric has
#                 CUDA, else staging through host memory)
#   tcp-nodirect: the same on tcp
#   tcp-vnode:    2 PEs on virtual nodes of one PE, tcp
#   tcp-staged:   nothing mapped, tcp, staging forced
#   shm-staged:   virtual nodes of one PE, shm, staging forced
# and, when GPU_TEST_CONFIGS names them, with 4 PEs on the GPUs there are:
#   four-mapped:  4 PEs on shm, all mapped (two PEs a GPU on a 2-GPU host)
#   four-vnode:   4 PEs on tcp, virtual nodes of two (mapped within a
#                 virtual node, staged between them)
#   sockets-vnode: 2 PEs on virtual nodes of one PE, sockets (triggered
#                 operations: CUDA streams must offload their work between
#                 host buffers, GPU_TEST_OFFLOAD=1)
#   four-sockets: 4 PEs on sockets, virtual nodes of two (the same)
# and, when named and libfabric has CUDA (LD_LIBRARY_PATH to such a build):
#   shm-hmem:     2 PEs on shm, nothing mapped, FI_HMEM required
#   four-hmem:    4 PEs on shm, virtual nodes of two, FI_HMEM between them
# and, when named, the device API's proxy (docs/device.md, "The proxy"):
# virtual nodes of one PE (FABSHMEM_PES_PER_NODE=1), so that no peer is
# mapped and every kernel request to a peer goes through the proxy
# (FABSHMEM_PROXY=1), at 2 and 4 PEs on shm, tcp and sockets:
#   shm-proxy, tcp-proxy, sockets-proxy,
#   four-shm-proxy, four-tcp-proxy, four-sockets-proxy
# and the proxy turned off (FABSHMEM_PROXY=0): a kernel's request to an
# unmapped peer is refused with the unmapped-peer error (gpu_device checks):
#   tcp-noproxy:  2 PEs on tcp, virtual nodes of one PE
# (GPU_TEST_CONFIGS=proxy names the seven of them; the proxy rows of the
# benchmark are bench/gpu/run_proxy.sh).
#
# Every run has CUDA_MODULE_LOADING=EAGER: where a PE is not mapped the
# device API's proxy carries kernels' requests, and under lazy loading the
# loading of a kernel launched while another waits for the proxy waits for
# that kernel, and with it the proxy's GPU work (docs/device.md, The proxy;
# the library warns).
#
# The environment:
#   GPU_TEST_BIN       folder of gpu_heap, gpu_rma and gpu_reduce (default tests/gpu)
#   GPU_TEST_LAUNCHER  a launcher taking NP PROG (default: tests/uid_launch.sh,
#                      the unique-id bootstrap, no launcher needed)
#   GPU_TEST_SUMMARY   the summary file (default tests/gpu/summary.txt)
#   GPU_TEST_CONFIGS   the configurations to run (default: the first seven above;
#                      "proxy": the proxy's seven)
#   GPU_TEST_TIMEOUT   seconds per run (default 300)
#   GPU_TEST_PROGS     the C programs to run (default: gpu_heap gpu_rma
#                      gpu_reduce gpu_stream gpu_reg gpu_amo gpu_device
#                      gpu_types; gpu_types checks every type of the device
#                      API's typed families by value, and skips (77) where
#                      kernels do not reach every PE, as in tcp-noproxy)
#   GPU_TEST_PYTHON    a Python that imports fabshmem.core: the binding's GPU
#                      check (tests/python/gpu_check.py) runs in each
#                      configuration too (default: the build tree's binding,
#                      when configure built it)
#   GPU_TEST_FABRIC_HMEM  a folder with lib/libfabric.so.1 built with CUDA
#                      (make gpu-carry-fabric: gpu-carry/fabric-hmem): after
#                      the configurations above, run GPU_TEST_HMEM_CONFIGS
#                      again with its lib first on LD_LIBRARY_PATH and
#                      FABSHMEM_OFI_SHM_HMEM=1, their lines named CONFIG@hmem
#                      (and libfabric=DIR); the "libfabric:" and "GPU:" lines
#                      under each say which libfabric ran and how GPU memory
#                      went (docs/gpu.md, "FI_HMEM")
#   GPU_TEST_HMEM_CONFIGS  those configurations (default: shm-nodirect shm-hmem
#                      tcp-nodirect)
# The exit status is 0 when every run passed or was skipped (and one
# passed), 77 when all were skipped, 1 otherwise.

here=$(cd "$(dirname "$0")" && pwd)
bin=${GPU_TEST_BIN:-tests/gpu}
launch=${GPU_TEST_LAUNCHER:-$here/../uid_launch.sh}
summary=${GPU_TEST_SUMMARY:-tests/gpu/summary.txt}
configs=${GPU_TEST_CONFIGS:-"one mapped shm-nodirect tcp-nodirect tcp-vnode tcp-staged shm-staged"}
proxy_configs="shm-proxy tcp-proxy sockets-proxy four-shm-proxy four-tcp-proxy four-sockets-proxy tcp-noproxy"
[ "$configs" = proxy ] && configs=$proxy_configs
tmo=${GPU_TEST_TIMEOUT:-300}
progs=${GPU_TEST_PROGS:-"gpu_heap gpu_rma gpu_reduce gpu_stream gpu_reg gpu_amo gpu_device gpu_types"}
if [ -z "$GPU_TEST_PYTHON" ] && [ -f python/build/stamp ]; then
    GPU_TEST_PYTHON=$(cat python/build/python)
    PYTHONPATH=$(pwd)/python/build/lib${PYTHONPATH:+:$PYTHONPATH}
    LD_LIBRARY_PATH=$(pwd)/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export PYTHONPATH LD_LIBRARY_PATH
fi
[ -n "$GPU_TEST_PYTHON" ] && progs="$progs gpu_check"
out=$(mktemp "${TMPDIR:-/tmp}/fabshmem-gpu-run.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT INT TERM

npass=0
nfail=0
nskip=0
{
    echo "fabshmem GPU tests, $(date -u '+%Y-%m-%d %H:%M UTC'), host $(hostname)"
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader |
            sed 's/^/  GPU /'
    fi
} >"$summary"

# config NAME: sets np, prov, direct, ppn, remote, offload, proxy (empty:
# the library's default).
config() {
    offload= proxy=
    case $1 in
    one) np=1 prov=shm direct=1 ppn=0 remote=auto ;;
    mapped) np=2 prov=shm direct=1 ppn=0 remote=auto ;;
    shm-nodirect) np=2 prov=shm direct=0 ppn=0 remote=auto ;;
    tcp-nodirect) np=2 prov=tcp direct=0 ppn=0 remote=auto ;;
    tcp-vnode) np=2 prov=tcp direct=1 ppn=1 remote=auto ;;
    tcp-staged) np=2 prov=tcp direct=0 ppn=0 remote=staged ;;
    shm-staged) np=2 prov=shm direct=1 ppn=1 remote=staged ;;
    four-mapped) np=4 prov=shm direct=1 ppn=0 remote=auto ;;
    four-vnode) np=4 prov=tcp direct=1 ppn=2 remote=auto ;;
    sockets-vnode) np=2 prov=sockets direct=1 ppn=1 remote=auto offload=1 ;;
    four-sockets) np=4 prov=sockets direct=1 ppn=2 remote=auto offload=1 ;;
    shm-hmem) np=2 prov=shm direct=0 ppn=0 remote=hmem ;;
    four-hmem) np=4 prov=shm direct=1 ppn=2 remote=hmem ;;
    shm-proxy) np=2 prov=shm direct=1 ppn=1 remote=auto proxy=1 ;;
    tcp-proxy) np=2 prov=tcp direct=1 ppn=1 remote=auto proxy=1 ;;
    sockets-proxy) np=2 prov=sockets direct=1 ppn=1 remote=auto offload=1 proxy=1 ;;
    four-shm-proxy) np=4 prov=shm direct=1 ppn=1 remote=auto proxy=1 ;;
    four-tcp-proxy) np=4 prov=tcp direct=1 ppn=1 remote=auto proxy=1 ;;
    four-sockets-proxy) np=4 prov=sockets direct=1 ppn=1 remote=auto offload=1 proxy=1 ;;
    tcp-noproxy) np=2 prov=tcp direct=1 ppn=1 remote=auto proxy=0 ;;
    *) return 1 ;;
    esac
}

# run_configs CONFIGS TAG: each configuration, named NAME$TAG, with every
# program; FABRIC_ENV: variables before the command (the FI_HMEM pass).
run_configs() {
    for c in $1; do
        if ! config "$c"; then
            echo "FAIL gpu $c: unknown configuration" | tee -a "$summary"
            nfail=$((nfail + 1))
            continue
        fi
        for prog in $progs; do
            if [ "$prog" = gpu_check ]; then
                cmd="$GPU_TEST_PYTHON $here/../python/gpu_check.py"
            else
                cmd="$bin/$prog"
            fi
            cfg="$prog $c$2 (np=$np prov=$prov direct=$direct pes_per_node=$ppn"
            cfg="$cfg remote=$remote${proxy:+ proxy=$proxy}$3)"
            t0=$(date +%s.%N)
            env $FABRIC_ENV ${proxy:+FABSHMEM_PROXY=$proxy} CUDA_MODULE_LOADING=EAGER \
                FABSHMEM_PROVIDER=$prov \
                FABSHMEM_DIRECT=$direct FABSHMEM_PES_PER_NODE=$ppn \
                FABSHMEM_CUDA_REMOTE=$remote SHMEM_INFO=1 GPU_TEST_OFFLOAD=$offload \
                timeout -k 10 "$tmo" $launch "$np" $cmd >"$out" 2>&1 </dev/null
            rc=$?
            secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            if [ $rc -eq 0 ]; then
                line="PASS $cfg ($secs s)"
                npass=$((npass + 1))
            elif [ $rc -eq 77 ]; then
                line="SKIP $cfg ($secs s)"
                nskip=$((nskip + 1))
            else
                line="FAIL $cfg (exit $rc, $secs s)"
                nfail=$((nfail + 1))
            fi
            echo "$line"
            {
                echo "$line"
                grep -E "^GPU:|^libfabric:|^$prog:|^(PASS|SKIP|FAIL) $prog|^$prog PE" "$out" |
                    sort -u | sed 's/^/    /'
                if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
                    tail -n 30 "$out" | sed 's/^/    | /'
                fi
            } >>"$summary"
            if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
                tail -n 30 "$out" | sed 's/^/    | /'
            fi
        done
    done
}

FABRIC_ENV=
run_configs "$configs" "" ""
if [ -n "$GPU_TEST_FABRIC_HMEM" ]; then
    fab=$(cd "$GPU_TEST_FABRIC_HMEM" && pwd)
    if [ ! -f "$fab/lib/libfabric.so.1" ]; then
        echo "FAIL gpu @hmem: no $GPU_TEST_FABRIC_HMEM/lib/libfabric.so.1 (make gpu-carry-fabric)" |
            tee -a "$summary"
        nfail=$((nfail + 1))
    else
        # That libfabric opens libcudart.so and libcuda.so by these names:
        # the first is carried beside it, the second (the driver's) is
        # linked here from libcuda.so.1 where the host has no such name.
        libs=$fab/lib
        if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so '; then
            cuda1=$(ldconfig -p 2>/dev/null | sed -n 's/.*libcuda\.so\.1 .*=> //p' | head -n 1)
            for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64; do
                [ -z "$cuda1" ] && [ -e "$d/libcuda.so.1" ] && cuda1=$d/libcuda.so.1
            done
            if [ -n "$cuda1" ]; then
                shim=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-libcuda.XXXXXX") || exit 1
                trap 'rm -f "$out"; rm -rf "$shim"' EXIT INT TERM
                ln -s "$cuda1" "$shim/libcuda.so"
                libs=$libs:$shim
            fi
        fi
        fv=$(LD_LIBRARY_PATH=$libs "$fab/bin/fi_info" --version 2>/dev/null | sed -n 's/^libfabric: //p')
        fh=$(LD_LIBRARY_PATH=$libs "$fab/bin/fi_info" -c FI_HMEM 2>/dev/null |
            sed -n 's/^provider: //p' | sort -u | tr '\n' ' ')
        echo "libfabric for @hmem: $fab ($fv; FI_HMEM: ${fh:-none})" | tee -a "$summary"
        FABRIC_ENV="LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} FABSHMEM_OFI_SHM_HMEM=1"
        run_configs "${GPU_TEST_HMEM_CONFIGS:-shm-nodirect shm-hmem tcp-nodirect}" "@hmem" \
            " libfabric=$fab"
    fi
fi
echo "gpu: $npass passed, $nfail failed, $nskip skipped" | tee -a "$summary"
echo "(summary in $summary)"
if [ $nfail -gt 0 ]; then
    exit 1
fi
if [ $npass -eq 0 ]; then
    exit 77
fi
exit 0
