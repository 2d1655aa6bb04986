#!/bin/sh
# Run one multi-PE test program over the test matrix and print one line per
# configuration.
#
#   tests/run.sh PROG [ARGS...]      (PROG may carry the .pe suffix that
#                                     the automake harness passes)
#
# The matrix, all settable from the environment:
#   NPROCS_LIST      PE counts                       default "1 2 4"
#   TEST_PROVIDERS   values of FABSHMEM_PROVIDER     default "shm tcp"
#   TEST_MODES       direct (FABSHMEM_DIRECT=1), nodirect (FABSHMEM_DIRECT=0),
#                    vnode (FABSHMEM_PES_PER_NODE=2) default "direct nodirect vnode";
#                    also offload and worker (nodirect with
#                    FABSHMEM_STREAM_OFFLOAD=1 or 0) and offload-vnode;
#                    nomapdata (FABSHMEM_MAP_DATA=0; globals also get it);
#                    native (vnode with FABSHMEM_OFI_AMO=native: the
#                    provider's atomics instead of active messages; the
#                    atomics tests also get it on tcp, the collectives at
#                    3 and 4 PEs); native-direct (direct with
#                    FABSHMEM_OFI_AMO=native; mem_reg gets it on shm, whose
#                    own atomics are off, so that an AMO the atomicity rule
#                    sends to the provider ends the job);
#                    mrlocal (nodirect with FABSHMEM_OFI_MR_LOCAL=1: the
#                    paths of providers that want registered local buffers;
#                    the RMA, atomics and stream tests also get it on tcp);
#                    nothread (nodirect with FABSHMEM_PROGRESS_THREAD=0:
#                    waits alone drive the provider; the atomics, waits and
#                    collectives also get it on tcp);
#                    cores (direct with FABSHMEM_OVERSUBSCRIBED=0: the paths
#                    of PEs with a core each, whatever the machine; the
#                    collectives also get it on shm at 3 and 4 PEs)
#   TEST_SMOKE       providers of one extra run each with 2 PEs and the
#                    direct path off (the stream programs: offload, worker
#                    and offload-vnode on sockets; nodirect and vnode on the
#                    others)                         default "sockets net" ("" = none;
#                    one that fi_info does not list is left out)
#   TEST_SMOKE_PROGS programs that get the smoke runs (sockets moves about
#                    one operation per 10 ms here, so the long sweeps such as
#                    rma_get stay off it, and the collectives run with
#                    --quick: small sizes only; team, with 160 team slots,
#                    and ctx take 11-17 and 22 s on sockets, 1 and 3 s on
#                    net)                        default: see below
#   TEST_TIMEOUT     seconds per run                 default 300 (a loaded 2-core machine runs
#                    the 4-PE network sweeps slowly)
#   FABSHMEM_TEST_LAUNCHER  launcher up to the PE count
#                    default "mpirun --allow-run-as-root --oversubscribe --bind-to none -n";
#                    tests/uid_launch.sh runs the whole matrix without a
#                    launcher (a shell loop, unique-id bootstrap)
#   TEST_UID_PROGS   programs that also run under tests/uid_launch.sh at 2
#                    PEs (shm, direct) and 4 PEs (tcp, vnode), marked
#                    launcher=uid; default: every multi-PE program but
#                    status (which boots by unique id itself and checks
#                    what a second boot returns)
#   TEST_EXTRA       0: only the matrix above, none of the extra runs that
#                    particular programs get (native, mrlocal, nothread,
#                    cores, 5 PEs, the team's and globals' own runs);
#                    default 1 (tests/cluster/run.sh sets 0)
#   TEST_TAIL        lines of output shown for a failure, default 20
#   TEST_VERBOSE     1: print the whole output of every run
#
# The exit status is 0 when every configuration passed or was skipped (and
# at least one passed), 77 when all were skipped, 1 otherwise.

if [ $# -lt 1 ]; then
    echo "usage: $0 PROG [ARGS...]" >&2
    exit 2
fi
prog=$1
shift
case $prog in
*.pe) prog=${prog%.pe} ;;
esac
case $prog in
*/*) ;;
*) prog=./$prog ;;
esac
name=$(basename "$prog")
if [ ! -x "$prog" ]; then
    echo "FAIL $name: $prog is not an executable" >&2
    exit 1
fi

# Teams and collectives also run on 3 PEs (power-of-two assumptions).
case $name in
team*|coll*|reduce*|ctx*|stream*) nprocs_list=${NPROCS_LIST-"1 2 3 4"} ;;
*) nprocs_list=${NPROCS_LIST-"1 2 4"} ;;
esac
providers=${TEST_PROVIDERS-"shm tcp"}
modes=${TEST_MODES-"direct nodirect vnode"}
smoke=${TEST_SMOKE-"sockets net"}
smoke_progs=${TEST_SMOKE_PROGS-"hello rma_put rma_nbi generic mem ptr threads amo amo_contention signal wait lock stream stream_rma stream_coll team ctx coll coll_errors reduce reduce_toall reduce_scan reduce_rs"}
case " $smoke_progs " in
*" $name "*) ;;
*) smoke= ;;
esac
tmo=${TEST_TIMEOUT:-300}
extra=${TEST_EXTRA:-1}
tail_lines=${TEST_TAIL:-20}
launcher=${FABSHMEM_TEST_LAUNCHER:-"mpirun --allow-run-as-root --oversubscribe --bind-to none -n"}
uid_launcher=$(cd "$(dirname "$0")" && pwd)/uid_launch.sh
uid_progs=${TEST_UID_PROGS-"hello rma_put rma_get rma_nbi rma_strided generic mem ptr globals
    progress threads legacy amo amo_contention signal wait lock team ctx coll coll_race reduce
    reduce_toall reduce_scan reduce_rs stream stream_rma stream_coll mem_reg"}
uid_progs=$(echo $uid_progs)
# The launcher of the run in progress, and its mark in the result line.
cur_launcher=$launcher
cur_tag=

# Launchers of the mpirun family take -x to forward a variable to every
# rank; the variables are also exported, which covers the others (srun, and
# mpirun on the local host).
xflags=
first_word=${launcher%% *}
case $(basename "$first_word") in
mpirun | mpiexec | oshrun | prterun | orterun)
    for v in FABSHMEM_PROVIDER FABSHMEM_DIRECT FABSHMEM_PES_PER_NODE FABSHMEM_STREAM_OFFLOAD \
        FABSHMEM_MAP_DATA FABSHMEM_OFI_AMO FABSHMEM_OFI_MR_LOCAL FABSHMEM_PROGRESS_THREAD \
        FABSHMEM_OVERSUBSCRIBED; do
        xflags="$xflags -x $v"
    done ;;
esac

# Sanitizer builds (--enable-sanitizers): the known libpmix leak is not
# ours, nor are the net provider's (tests/lsan-net.supp, used for its runs)
# or Open MPI's (tests/lsan-mpi.supp, for the programs that link MPI).
tests_dir=$(dirname "$0")
. "$tests_dir/lsan_default.sh"

out=$(mktemp "${TMPDIR:-/tmp}/fabshmem-test.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT INT TERM

npass=0
nfail=0
nskip=0

# The progress thread and the oversubscription count as the caller's
# environment sets them (modes nothread and cores override them).
user_pthread=${FABSHMEM_PROGRESS_THREAD:-1}
user_over=${FABSHMEM_OVERSUBSCRIBED:-auto}

# run_one NP PROVIDER MODE ARGS...
run_one() {
    np=$1 prov=$2 mode=$3
    shift 3
    offload=auto
    mapdata=1
    amo=auto
    mrlocal=0
    pthread=$user_pthread
    over=$user_over
    case $mode in
    direct) direct=1 ppn=0 ;;
    nodirect) direct=0 ppn=0 ;;
    vnode) direct=1 ppn=2 ;;
    offload) direct=0 ppn=0 offload=1 ;;
    worker) direct=0 ppn=0 offload=0 ;;
    offload-vnode) direct=1 ppn=2 offload=1 ;;
    nomapdata) direct=1 ppn=0 mapdata=0 ;;
    native) direct=1 ppn=2 amo=native ;;
    native-direct) direct=1 ppn=0 amo=native ;;
    mrlocal) direct=0 ppn=0 mrlocal=1 ;;
    nothread) direct=0 ppn=0 pthread=0 ;;
    cores) direct=1 ppn=0 over=0 ;;
    *) echo "FAIL $name: unknown mode '$mode' in TEST_MODES" ; nfail=$((nfail + 1)); return ;;
    esac
    if [ -n "$lsan_dir" ]; then
        case $name:$prov in
        *mpi*:*) LSAN_OPTIONS=suppressions=$lsan_dir/lsan-mpi.supp:fast_unwind_on_malloc=0 ;;
        *:net) LSAN_OPTIONS=suppressions=$lsan_dir/lsan-net.supp ;;
        *) LSAN_OPTIONS=suppressions=$lsan_dir/lsan.supp ;;
        esac
    fi
    FABSHMEM_PROVIDER=$prov
    FABSHMEM_DIRECT=$direct
    FABSHMEM_PES_PER_NODE=$ppn
    FABSHMEM_STREAM_OFFLOAD=$offload
    FABSHMEM_MAP_DATA=$mapdata
    FABSHMEM_OFI_AMO=$amo
    FABSHMEM_OFI_MR_LOCAL=$mrlocal
    FABSHMEM_PROGRESS_THREAD=$pthread
    FABSHMEM_OVERSUBSCRIBED=$over
    export FABSHMEM_PROVIDER FABSHMEM_DIRECT FABSHMEM_PES_PER_NODE FABSHMEM_STREAM_OFFLOAD \
        FABSHMEM_MAP_DATA FABSHMEM_OFI_AMO FABSHMEM_OFI_MR_LOCAL FABSHMEM_PROGRESS_THREAD \
        FABSHMEM_OVERSUBSCRIBED
    cfg="$name np=$np prov=$prov mode=$mode${run_extra:+ $run_extra}$cur_tag"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    timeout -k 10 "$tmo" $cur_launcher "$np" $xflags "$prog" "$@" >"$out" 2>&1 </dev/null
    rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if [ "$TEST_VERBOSE" = 1 ]; then
        sed "s/^/    /" "$out"
    fi
    # Open MPI's launcher reports the first non-zero exit status; a skip of
    # every rank shows up as 77 too.
    if [ $rc -eq 0 ]; then
        echo "PASS $cfg (${secs} s)"
        npass=$((npass + 1))
    elif [ $rc -eq 77 ]; then
        reason=$(grep -m1 -i "skip" "$out")
        echo "SKIP $cfg (exit 77${reason:+: $reason})"
        nskip=$((nskip + 1))
    else
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            why="timeout after $tmo s"
        else
            why="exit $rc"
        fi
        echo "FAIL $cfg ($why, ${secs} s)"
        echo "    command: ${run_extra:+$run_extra }FABSHMEM_PROVIDER=$prov FABSHMEM_DIRECT=$direct FABSHMEM_PES_PER_NODE=$ppn FABSHMEM_STREAM_OFFLOAD=$offload FABSHMEM_MAP_DATA=$mapdata FABSHMEM_OFI_AMO=$amo FABSHMEM_OFI_MR_LOCAL=$mrlocal FABSHMEM_PROGRESS_THREAD=$pthread FABSHMEM_OVERSUBSCRIBED=$over $cur_launcher $np $prog $*"
        echo "    last lines of output:"
        tail -n "$tail_lines" "$out" | sed "s/^/    | /"
        nfail=$((nfail + 1))
    fi
}

for np in $nprocs_list; do
    for prov in $providers; do
        for mode in $modes; do
            run_one "$np" "$prov" "$mode" "$@"
        done
    done
done
# extra_on PROV MODE "PROGS" "NPS" ARGS...: runs of MODE on PROV at each
# PE count of NPS for the programs in PROGS, when PROV is in the matrix.
extra_on() {
    xprov=$1 xmode=$2 xprogs=$3 xnps=$4
    shift 4
    [ "$extra" = 0 ] && return
    case " $xprogs " in *" $name "*) ;; *) return ;; esac
    case " $providers " in *" $xprov "*) ;; *) return ;; esac
    for xnp in $xnps; do
        run_one "$xnp" "$xprov" "$xmode" "$@"
    done
}
extra_on_tcp() {
    extra_on tcp "$@"
}
# The provider's own atomics (FABSHMEM_OFI_AMO=native) with virtual nodes:
# every AMO, node peers' too, goes through the provider.
extra_on_tcp native "amo amo_contention signal lock threads globals mem_reg" "2 4" "$@"
# Every PE on one node, mapped, with the provider's own atomics on shm
# (which has none that work): AMOs on mapped registered buffers must be
# CPU atomics.
extra_on shm native-direct "mem_reg" "2 4" "$@"
# As for a provider that wants registered local buffers (verbs, efa, cxi;
# none here): bounce buffers, registered receive buffers, the streams'
# fallback from triggered operations.
extra_on_tcp mrlocal "rma_put rma_reuse rma_get rma_nbi amo signal stream stream_rma mem_reg ctx" "2" "$@"
# The provider's own atomics beside mapped peers for the collectives at 3
# and 4 PEs, where virtual nodes of 2 take the hierarchical algorithms:
# node peers' signals are stores, the leaders' go through fi_atomic, and
# no word may get both (the atomicity rule).
extra_on_tcp native "coll reduce" "3 4" "$@"
# Five PEs: Bruck's allgather sends ranges that wrap past the last member
# (not at 3), and virtual nodes of 2 make three node groups (a leaders'
# dissemination and tree that are not powers of two, rd's fold among the
# leaders).
extra_on_tcp nodirect "coll coll_race" "5" "$@"
extra_on_tcp vnode "coll coll_race reduce" "5" "$@"
# No progress thread: waits alone drive the provider, and sleep on its
# wait fd; an empty quiet drives it once (rma_nbi polls a flag that way);
# gets and fetching AMOs on mapped words drive it now and then
# (amo_contention's PE 0 spins on a compare_swap lock of its own word
# while the holder's get needs its progress: half its runs at 3 and 4 PEs
# ended "no progress" before that).
extra_on_tcp nothread "rma_nbi amo amo_contention signal lock wait coll coll_race threads" "2 4" "$@"
# Quiet on one context does not wait for another's put to a PE that is
# outside the library (which, without the progress thread, cannot complete
# it): tests/core/ctx proves it only here (3 PEs, nothing mapped, tcp).
extra_on_tcp nothread "ctx" "3" "$@"
# PEs with a core each on a machine with fewer: more PEs than cores would
# otherwise always take the oversubscribed paths here (the small
# collectives' one-phase ready words, the dissemination barrier).
extra_on shm cores "coll coll_race reduce team" "3 4" "$@"
# Offload forced on a provider without triggered operations: stream
# creation must fail with SHMEMX_ERROR_NOT_SUPPORTED.
extra_on_tcp offload "status" "2" "$@"
# run_with VAR VALUE NP PROV MODE ARGS...: one run with VAR=VALUE in the
# environment (the caller's value, if any, comes back after it).
run_with() {
    wvar=$1 wval=$2
    shift 2
    wsaved=$(eval "echo \${$wvar-@unset@}")
    eval "$wvar=\$wval; export $wvar"
    run_extra="$wvar=$wval"
    run_one "$@"
    run_extra=
    if [ "$wsaved" = @unset@ ]; then
        unset "$wvar"
    else
        eval "$wvar=\$wsaved"
    fi
}
# in_matrix PROV: whether PROV is one of the matrix's providers.
in_matrix() {
    case " $providers " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}
if [ "$name" = team ] && [ "$extra" != 0 ]; then
    # shmemx_team_init of every PE of a job larger than the old registry
    # held (30 members with FABSHMEM_TEAMS_MAX=4096): the unique-id part of
    # the test alone, at 32 PEs (about 3 s here).
    if in_matrix shm; then
        run_with FABSHMEM_TEAMS_MAX 4096 32 shm direct uid
    fi
    # NUMA teams with several domains (made up: node-local ranks cut in
    # two), their members and collectives checked: on one node, on virtual
    # nodes of 2 (one PE per domain) and without the direct path.
    if in_matrix shm; then
        run_with FABSHMEM_NUMA_DOMAINS 2 3 shm direct "$@"
        run_with FABSHMEM_NUMA_DOMAINS 2 4 shm direct "$@"
        run_with FABSHMEM_NUMA_DOMAINS 2 4 shm vnode "$@"
    fi
    if in_matrix tcp; then
        run_with FABSHMEM_NUMA_DOMAINS 2 4 tcp nodirect "$@"
    fi
fi
# The watchdog's thread beside the streams' workers: a sync that lasts a
# second (FABSHMEM_WATCHDOG=1; shm without the direct path at 4 PEs has
# some under ThreadSanitizer) is described from that thread, which reads
# the stream's counts without its lock (a ThreadSanitizer build checks it).
case $name in
stream*)
    if [ "$extra" != 0 ] && in_matrix shm; then
        run_with FABSHMEM_WATCHDOG 1 4 shm nodirect "$@"
    fi ;;
esac
# The unique-id bootstrap without a launcher: NP processes started by a
# plain shell loop (tests/uid_launch.sh), rank 0 handing the id to the
# others in a file; plain shmem_init boots by FABSHMEM_BOOTSTRAP=uid.
run_uid() {
    case " $uid_progs " in *" $name "*) ;; *) return ;; esac
    case " $providers " in *" $2 "*) ;; *) return ;; esac
    case $(basename "$first_word") in uid_launch.sh) return ;; esac
    save_xflags=$xflags
    cur_launcher=$uid_launcher cur_tag=" launcher=uid" xflags=
    run_one "$@"
    cur_launcher=$launcher cur_tag= xflags=$save_xflags
}
run_uid 2 shm direct "$@"
run_uid 4 tcp vnode "$@"
if [ "$name" = globals ] && [ "$extra" != 0 ]; then
    # Globals kept private (FABSHMEM_MAP_DATA=0): they go through the provider.
    run_one 2 tcp nomapdata "$@"
    run_one 4 tcp nomapdata "$@"
fi
for prov in $smoke; do
    if command -v fi_info >/dev/null 2>&1 && ! fi_info -p "$prov" >/dev/null 2>&1; then
        echo "SKIP $name prov=$prov (fi_info does not list the provider)"
        continue
    fi
    case $name in stream*) is_stream=1 ;; *) is_stream=0 ;; esac
    if [ $is_stream = 1 ] && [ "$prov" != sockets ]; then
        # No triggered operations (FI_TRIGGER is sockets' only here): the
        # worker path, as auto picks it, and beside mapped peers.
        run_one 2 "$prov" nodirect "$@"
        run_one 4 "$prov" vnode "$@"
    elif [ $is_stream = 1 ]; then
        # Streams on a provider with triggered operations (sockets): the
        # offload and the worker path, and offload beside mapped peers.
        run_one 2 "$prov" offload "$@"
        run_one 2 "$prov" worker "$@"
        run_one 4 "$prov" offload-vnode "$@"
    elif [ "$name" = team ] && [ "$prov" = sockets ]; then
        # Fewer slots to fill before they run out (160: the 64 teams from
        # unique ids alive at once still fit).
        run_with FABSHMEM_TEAMS_MAX 160 2 "$prov" nodirect "$@"
    else
        case $name in
        coll | reduce*) run_one 2 "$prov" nodirect --quick "$@" ;;
        *) run_one 2 "$prov" nodirect "$@" ;;
        esac
    fi
done

echo "$name: $npass passed, $nfail failed, $nskip skipped"
if [ $nfail -gt 0 ]; then
    exit 1
fi
if [ $npass -eq 0 ]; then
    exit 77
fi
exit 0
