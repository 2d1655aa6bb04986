#!/bin/bash
# The test suite across hosts: jobs on the hosts of tests/cluster/cluster.sh
# (network namespaces on one machine), through tests/run.sh with the
# cluster's launchers, plus a lossy, slow network and host faults.
#
#   tests/cluster/run.sh            the short form, which `make check` runs
#                                   (tests/cluster/check.sh): 2 hosts x 2
#                                   PEs over tcp, the core tests, one cut link
#   tests/cluster/run.sh --full     everything below (about an hour on a
#                                   loaded 2-core machine)
#   tests/cluster/run.sh [--full] SECTION...   only those sections
#   tests/cluster/run.sh --list     the sections and what they run
#
# Run it from the build tree after `make check TESTS=` (which builds the
# test programs).  Every run prints one PASS, FAIL or SKIP line per check
# (tests/run.sh's, for the programs) and a summary; the exit status is 0
# when everything passed, 1 when something failed, 77 when namespaces
# cannot be made here (the reason is printed).
#
# Environment: CLUSTER_TIMEOUT (seconds per program run, default 300),
# CLUSTER_OFI_TIMEOUT (the PEs' FABSHMEM_OFI_TIMEOUT in the test matrices,
# default 180), CLUSTER_SOAK_SECONDS (default 30: how long each soak runs), and the
# TEST_* variables of tests/run.sh (TEST_VERBOSE, TEST_TAIL).

set -u
self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
here=$(dirname "$self")
srcdir=$(cd "$here/../.." && pwd)
cluster=$here/cluster.sh
bindir=${CLUSTER_BUILDDIR:-$PWD}
tmo=${CLUSTER_TIMEOUT:-300}
soak_secs=${CLUSTER_SOAK_SECONDS:-30}

# The multi-PE programs (the .pe tests of tests/*/Makefile.include).
core_progs="core/rma_put core/amo core/signal core/wait core/lock init/hello"
all_progs="core/rma_put core/rma_get core/rma_nbi core/rma_strided core/generic core/globals
    core/progress core/threads core/amo core/amo_contention core/signal core/wait core/lock
    core/ctx init/hello init/status init/legacy init/mpi_boot mem/mem mem/ptr mem/mem_reg
    team/team coll/coll coll/coll_race coll/reduce coll/reduce_toall coll/reduce_scan
    coll/reduce_rs stream/stream stream/stream_rma stream/stream_coll"

sections_short="short"
sections_full="tcp22 tcp41 sockets22 sockets41 uid soak22 soak41 soak_sockets faults"

usage() {
    sed -n '2,/^$/s/^# \{0,1\}//p' "$self"
}

list_sections() {
    cat <<EOF
short         2 hosts x 2 PEs, tcp: topo with the direct path on and off;
              $core_progs and coll --quick with it on; a cut link under mpirun
tcp22         2 hosts x 2 PEs, tcp: every multi-PE program at 4 PEs (3 for the
              teams, collectives and streams too), direct path on and off, and
              topo under virtual nodes
tcp41         4 hosts x 1 PE, tcp: every multi-PE program at 4 PEs
sockets22     2 hosts x 2 PEs, sockets: topo, hello, signal, coll --quick, and
              the streams with the triggered offload (and the worker)
sockets41     4 hosts x 1 PE, sockets: topo, signal, stream with the offload
uid           the unique-id bootstrap across hosts, without a launcher: topo,
              amo, team and coll --quick at 2 x 2 and topo at 4 x 1 (the id
              naming eth0 with FABSHMEM_BOOTSTRAP_IFNAME, and by default); an
              id naming lo must fail with a message
soak22        randomized puts, AMOs, signals and collectives checked against a
              model for CLUSTER_SOAK_SECONDS, 2 x 2 on tcp, host 1's link with
              50 ms delay and 1 % loss both ways (tc netem, or netem.py)
soak41        the same, 4 x 1, host 2's link
soak_sockets  the same, 2 x 2 on sockets
faults        a cut link and a killed host, under mpirun and without a launcher
EOF
}

# ---- inside a cluster: the sections ----

n_fail=0

# Prints a result line.
result() {
    echo "$1 $2"
    [ "$1" = FAIL ] && n_fail=$((n_fail + 1))
    return 0
}

# prog_path NAME: the built test program tests/NAME.
prog_path() {
    echo "$bindir/tests/$1"
}

# matrix PROVIDERS MODES NPS PROGS... [-- ARGS]: tests/run.sh on each
# program with the cluster's launcher (mpirun across the hosts), nothing
# else of its matrix (no smoke, unique-id or extra runs).
matrix() {
    local provs=$1 modes=$2 nps=$3 p args=
    shift 3
    local progs=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do progs="$progs $1"; shift; done
    [ "${1:-}" = -- ] && { shift; args="$*"; }
    for p in $progs; do
        local nl=$nps
        case $p in
        team/* | coll/* | stream/*) case " $nps " in *" 4 "*) nl="3 $nps" ;; esac ;;
        esac
        # The transport's limit on a wait without progress, 180 s instead
        # of 60 (FABSHMEM_OFI_TIMEOUT): on a loaded 2-core VM the kernel
        # stalled the traffic between the namespaces for 48 to 61 s
        # ("workqueue lockup" in dmesg; outside programs froze as long),
        # and a PE's quiet then gave up, the others following (sockets
        # across 2 hosts at 4 PEs, 10 of 30 runs of stream_coll with two
        # busy loops beside it).  The cut-link cases (fault_case) keep 60.
        # shellcheck disable=SC2086
        FABSHMEM_OFI_TIMEOUT=${CLUSTER_OFI_TIMEOUT:-180} \
        NPROCS_LIST="$nl" TEST_PROVIDERS="$provs" TEST_MODES="$modes" TEST_SMOKE="" \
            TEST_UID_PROGS="" TEST_EXTRA=0 TEST_TIMEOUT=$tmo \
            sh "$srcdir/tests/run.sh" "$(prog_path "$p")" $args |
            grep -v '^[a-z_]*: [0-9]* passed, [0-9]* failed, [0-9]* skipped$'
    done
}

# The PEs that the cluster's launchers place on host h (np PEs).
pes_of_host() {
    local h=$1 np=$2 p out=
    for ((p = 0; p < np; p++)); do
        [ $(((p / CLUSTER_SLOTS) % CLUSTER_HOSTS)) -eq "$h" ] && out="$out $p"
    done
    echo $out
}

# Waits up to $2 s until host $1 runs nothing but its holder (and a
# netem.py); prints what is left otherwise.
host_idle() {
    local h=$1 t=0 prefix pids holder
    prefix=$(cat "$CLUSTER_DIR/prefix")
    holder=$(cat "$CLUSTER_DIR/h$h.pid")
    while :; do
        pids=$(ip netns pids "$prefix-h$h" | grep -vx "$holder")
        if [ -f "$CLUSTER_DIR/netem$h.pid" ]; then
            pids=$(echo "$pids" | grep -vx "$(cat "$CLUSTER_DIR/netem$h.pid")")
        fi
        [ -z "$pids" ] && return 0
        [ "$t" -ge "$(($2 * 10))" ] && break
        sleep 0.1
        t=$((t + 1))
    done
    for p in $pids; do
        echo "$(cat /proc/$p/comm 2>/dev/null || echo '?')[$p]"
    done | tr '\n' ' '
    return 1
}

# fault_case LAUNCH ACTION BOUND: runs tests/cluster/fault on every slot
# of the cluster with LAUNCH (mpirun or uid), does ACTION (cut or kill) to
# the last host once every PE is up, and checks that the job ends within
# BOUND seconds with a non-zero status, every PE gone from every host, a
# message naming the lost host (mpirun's) or the lost PEs (the library's,
# where it is the launcher), and nothing in any host's /dev/shm.
fault_case() {
    local how=$1 what=$2 bound=$3 np=$((CLUSTER_HOSTS * CLUSTER_SLOTS))
    local victim=$((CLUSTER_HOSTS - 1)) launcher job rc t0 t1 secs problems= notes= i
    local name out vname lost re left h
    vname=$("$cluster" name $victim)
    lost=$(pes_of_host $victim $np)
    name="fault $what $vname np=$np prov=tcp launcher=$how"
    out=$CLUSTER_DIR/fault.$how.$what.out
    case $how in
    mpirun) launcher="$cluster launch" ;;
    uid) launcher="$cluster uid-launch" ;;
    esac
    : >"$out"
    # shellcheck disable=SC2086
    FABSHMEM_PROVIDER=tcp timeout -k 5 $((bound + 120)) $launcher $np "$(prog_path cluster/fault)" 600 \
        >"$out" 2>&1 </dev/null &
    job=$!
    for ((i = 0; i < 1200; i++)); do
        [ "$(grep -c ' ready$' "$out")" -ge "$np" ] && break
        kill -0 $job 2>/dev/null || break
        sleep 0.1
    done
    if [ "$(grep -c ' ready$' "$out")" -lt "$np" ]; then
        kill -TERM $job 2>/dev/null
        wait $job
        result FAIL "$name (the job did not start: $(grep -c ' ready$' "$out") of $np PEs ready)"
        tail -n "${TEST_TAIL:-20}" "$out" | sed 's/^/    | /'
        return
    fi
    t0=$(date +%s.%N)
    "$cluster" "$what" $victim
    wait $job
    rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    [ "$what" = cut ] && "$cluster" heal $victim
    # (137 is also what a launcher reports for its PEs killed with the
    # host; only the time tells a hung job.)
    if { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } &&
        [ "$(awk -v s="$secs" -v b="$((bound + 110))" 'BEGIN { print (s >= b) }')" = 1 ]; then
        problems="the job hung: killed after $secs s"
    elif [ $rc -eq 0 ]; then
        problems="exit status 0"
    fi
    if [ "$(awk -v s="$secs" -v b="$bound" 'BEGIN { print (s > b) }')" = 1 ]; then
        problems="${problems:+$problems, }it ended after $secs s, more than $bound"
    fi
    if grep -q ' finished ' "$out"; then
        problems="${problems:+$problems, }a PE finished as if nothing happened"
    fi
    # Who names what: mpirun names the host whose daemon it lost; where
    # the library is the launcher (unique id), it must name the PEs.
    # (The program's own lines, "fault: PE n on HOST ready", do not count.)
    re="PE ($(echo $lost | tr ' ' '|'))([^0-9]|$)"
    grep -v '^fault: ' "$out" >"$out.msgs"
    if [ "$how" = mpirun ]; then
        grep -qw "$vname" "$out.msgs" ||
            problems="${problems:+$problems, }no message names the lost host $vname"
        grep -Eq "$re" "$out.msgs" || notes="no message names the lost PEs ($lost)"
    else
        grep -Eq "$re" "$out.msgs" ||
            problems="${problems:+$problems, }no message names the lost PEs ($lost)"
        grep -qw "$vname" "$out.msgs" || notes="no message names the lost host $vname"
    fi
    for ((h = 0; h < CLUSTER_HOSTS; h++)); do
        left=$(host_idle $h 30) ||
            problems="${problems:+$problems, }$("$cluster" name $h) still runs ${left}30 s after the job ended"
    done
    left=$("$cluster" shm)
    [ -n "$left" ] && problems="${problems:+$problems, }left in /dev/shm: $left"
    if [ -n "$problems" ]; then
        result FAIL "$name (exit $rc after $secs s: $problems)"
        tail -n "${TEST_TAIL:-20}" "$out" | sed 's/^/    | /'
    else
        result PASS "$name (exit $rc after $secs s${notes:+; note: $notes})"
    fi
    [ "${TEST_VERBOSE:-0}" = 1 ] && sed 's/^/    /' "$out"
    return 0
}

# soak_case PROV HOST: 50 ms and 1 % loss on HOST's link, the soak on
# every slot, the verdict of the program (and of the clock).
soak_case() {
    local prov=$1 h=$2 np=$((CLUSTER_HOSTS * CLUSTER_SLOTS)) out rc t0 secs how
    out=$CLUSTER_DIR/soak.$prov.out
    if ! "$cluster" netem $h delay 50ms loss 1% >"$out.netem" 2>&1; then
        result FAIL "soak np=$np prov=$prov (cannot slow the link: $(tail -n 1 "$out.netem"))"
        return
    fi
    how=$(cat "$CLUSTER_DIR/netem$h")
    t0=$(date +%s)
    FABSHMEM_PROVIDER=$prov timeout -k 5 $((soak_secs * 4 + 120)) "$cluster" launch $np \
        "$(prog_path cluster/soak)" "$soak_secs" "$((RANDOM + 1))" >"$out" 2>&1 </dev/null
    rc=$?
    secs=$(($(date +%s) - t0))
    "$cluster" netem-off $h
    local stats
    stats=$(grep -h 'packets:' "$CLUSTER_DIR/netem$h.log" 2>/dev/null | tail -n 1 | sed 's/^netem.py: //')
    local rounds
    rounds=$(sed -n 's/^soak: \([0-9]* rounds, about [0-9]* operations\).*/\1/p' "$out" | head -n 1)
    local cfg="soak np=$np prov=$prov delay=50ms loss=1% on $("$cluster" name $h) by $how"
    if [ $rc -eq 0 ] && grep -q 'soak: PASS' "$out"; then
        result PASS "$cfg ($rounds in $secs s; $stats)"
    else
        result FAIL "$cfg (exit $rc after $secs s)"
        grep -v '^ ' "$out" | tail -n "${TEST_TAIL:-20}" | sed 's/^/    | /'
    fi
}

# The unique-id bootstrap across hosts: with the id naming eth0, by
# default, and an id naming lo, which the other hosts cannot reach.
uid_cases() {
    local np=$((CLUSTER_HOSTS * CLUSTER_SLOTS)) p out rc
    for p in $1; do
        FABSHMEM_BOOTSTRAP_IFNAME=eth0 FABSHMEM_TEST_LAUNCHER="$cluster uid-launch" \
            matrix tcp "direct nodirect" "$np" $p
    done
    FABSHMEM_TEST_LAUNCHER="$cluster uid-launch" FABSHMEM_BOOTSTRAP_IFNAME= \
        matrix tcp direct "$np" cluster/topo | sed 's/^\(PASS\|FAIL\|SKIP\) \([^ ]*\)/\1 \2 ifname=default/'
    # An id naming lo: the other hosts connect to their own loopback.
    out=$CLUSTER_DIR/uid_lo.out
    FABSHMEM_BOOTSTRAP_IFNAME=lo FABSHMEM_BOOTSTRAP_TIMEOUT=10 FABSHMEM_PROVIDER=tcp \
        timeout -k 5 120 "$cluster" uid-launch "$np" "$(prog_path init/hello)" >"$out" 2>&1 </dev/null
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'fabshmem' "$out"; then
        result PASS "uid ifname=lo np=$np (exit $rc: $(grep -m1 'fabshmem' "$out" | cut -c1-160))"
    else
        result FAIL "uid ifname=lo np=$np (exit $rc; expected a failure with a message)"
        tail -n "${TEST_TAIL:-20}" "$out" | sed 's/^/    | /'
    fi
}

in_section() {
    case $1 in
    short)
        # (Direct path on: each host's pair maps each other, the other
        # host's PEs go through tcp; so both paths run.)
        matrix tcp "direct nodirect" 4 cluster/topo
        matrix tcp direct 4 $core_progs
        matrix tcp direct 4 coll/coll -- --quick
        fault_case mpirun cut 30 ;;
    tcp22)
        matrix tcp "direct nodirect" 4 cluster/topo $all_progs
        matrix tcp vnode "1 2 3 4" cluster/topo ;;
    tcp41)
        matrix tcp direct 4 cluster/topo $all_progs ;;
    sockets22)
        matrix sockets nodirect 4 cluster/topo init/hello core/signal
        matrix sockets nodirect 4 coll/coll -- --quick
        matrix sockets "offload worker" 4 stream/stream stream/stream_rma stream/stream_coll
        matrix sockets offload-vnode 4 stream/stream ;;
    sockets41)
        matrix sockets direct 4 cluster/topo core/signal
        matrix sockets offload 4 stream/stream ;;
    uid)
        uid_cases "cluster/topo core/amo team/team"
        FABSHMEM_TEST_LAUNCHER="$cluster uid-launch" matrix tcp direct 4 coll/coll -- --quick ;;
    uid41)
        uid_cases "cluster/topo" ;;
    soak22) soak_case tcp 1 ;;
    soak41) soak_case tcp 2 ;;
    soak_sockets) soak_case sockets 1 ;;
    faults)
        fault_case mpirun cut 30
        fault_case mpirun kill 30
        fault_case uid kill 30
        fault_case uid cut 90 ;;
    faults41)
        fault_case mpirun kill 30 ;;
    *) echo "run.sh: unknown section '$1' (see --list)" >&2; return 2 ;;
    esac
}

# The cluster each section runs on.
section_shape() {
    case $1 in
    short | tcp22 | sockets22 | uid | soak22 | soak_sockets | faults) echo "-n 2 -s 2" ;;
    tcp41 | sockets41 | uid41 | soak41 | faults41) echo "-n 4 -s 1" ;;
    *) echo "" ;;
    esac
}

if [ "${1:-}" = --inside ]; then
    shift
    for s in "$@"; do
        in_section "$s"
    done
    [ $n_fail -eq 0 ]
    exit $?
fi

# ---- outside: one cluster per section ----

full=0
sections=
while [ $# -gt 0 ]; do
    case $1 in
    --full) full=1 ;;
    --list) list_sections; exit 0 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *)
        [ -n "$(section_shape "$1")" ] || { echo "run.sh: unknown section '$1' (see --list)" >&2; exit 2; }
        sections="$sections $1" ;;
    esac
    shift
done
if [ -z "$sections" ]; then
    if [ $full = 1 ]; then
        sections="$sections_full uid41 faults41"
    else
        sections=$sections_short
    fi
fi

"$cluster" check || exit 77
if ! command -v mpirun >/dev/null 2>&1; then
    echo "run.sh: skipped: no mpirun (Open MPI) to launch jobs across the hosts" >&2
    exit 77
fi
for p in cluster/topo cluster/soak cluster/fault init/hello; do
    if [ ! -x "$(prog_path $p)" ]; then
        echo "run.sh: $(prog_path $p) is not built (run 'make check TESTS=' in the build tree first, or set CLUSTER_BUILDDIR)" >&2
        exit 1
    fi
done

log=$(mktemp "${TMPDIR:-/tmp}/fabshmem-cluster-run.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
t_start=$(date +%s)
status=0
for s in $sections; do
    echo "== $s: $(section_shape "$s" | sed 's/-n \([0-9]*\) -s \([0-9]*\)/\1 hosts x \2 slots/')"
    # shellcheck disable=SC2046
    "$cluster" $(section_shape "$s") -- "$self" --inside "$s" 2>&1 | tee -a "$log"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -eq 77 ]; then
        exit 77
    elif [ "$rc" -ne 0 ]; then
        status=1
    fi
done
npass=$(grep -c '^PASS ' "$log")
nfail=$(grep -c '^FAIL ' "$log")
nskip=$(grep -c '^SKIP ' "$log")
echo "cluster: $npass passed, $nfail failed, $nskip skipped in $(($(date +%s) - t_start)) s"
[ "$nfail" -gt 0 ] && status=1
exit $status
