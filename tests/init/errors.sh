#!/bin/sh
# Bad input must end the job with a non-zero status and a message that
# names the routine, never hang.  Each case runs under `timeout`; a case
# passes when the status is non-zero, the job ended in time and the output
# holds the expected text.  A few cases are not errors but warnings (the
# standard gives the routine an answer for them, such as NULL): they pass
# when the status is 0 and the output holds the expected text.
#
# Environment: FABSHMEM_TEST_LAUNCHER (as for run.sh), TEST_TIMEOUT
# (default 60 s), TEST_BINDIR (where the err_* programs are; default
# tests/init/ of the current directory, else the directory of this script),
# ERRORS_CHECK_TEXT=0 to check only the exit status (for a library whose
# messages differ, such as Open MPI's).

launcher=${FABSHMEM_TEST_LAUNCHER:-"mpirun --allow-run-as-root --oversubscribe --bind-to none -n"}
tmo=${TEST_TIMEOUT:-60}
check_text=${ERRORS_CHECK_TEXT:-1}
if [ -n "$TEST_BINDIR" ]; then
    bindir=$TEST_BINDIR
elif [ -x tests/init/err_badpe ]; then
    bindir=tests/init
else
    bindir=$(dirname "$0")
fi

out=$(mktemp "${TMPDIR:-/tmp}/fabshmem-errors.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT INT TERM
# Sanitizer builds: libpmix's known leak is not ours, so that the outputs
# show only what the cases are about.
tests_dir=$(dirname "$0")/..
. "$tests_dir/lsan_default.sh"
npass=0
nfail=0

# expect_failure LABEL NP "TEXT1|TEXT2..." ENV-ASSIGNMENTS -- PROG ARGS...
# Every TEXT (separated by |) must appear in the output as a word (fixed
# strings).  A line with "returned without" (a barrier that completed
# without a dead PE) fails the case too.
expect_failure() {
    expect_exit failure "$@"
}

# expect_warning LABEL NP "TEXT1|TEXT2..." ENV-ASSIGNMENTS -- PROG ARGS...
# The same with exit status 0.
expect_warning() {
    expect_exit warning "$@"
}

expect_exit() {
    kind=$1 label=$2 np=$3 texts=$4 envs=$5
    shift 6
    prog=$bindir/$1
    shift
    t0=$(date +%s)
    # shellcheck disable=SC2086
    env $envs timeout -k 10 "$tmo" $launcher "$np" "$prog" "$@" >"$out" 2>&1 </dev/null
    rc=$?
    secs=$(( $(date +%s) - t0 ))
    problem=
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        problem="hung: killed after $tmo s"
    elif [ $kind = failure ] && [ $rc -eq 0 ]; then
        problem="exit status 0"
    elif [ $kind = warning ] && [ $rc -ne 0 ]; then
        problem="exit status $rc"
    elif [ "$check_text" = 1 ]; then
        rest=$texts
        while [ -n "$rest" ]; do
            t=${rest%%|*}
            case $rest in *"|"*) rest=${rest#*|} ;; *) rest= ;; esac
            if ! grep -qwF -- "$t" "$out"; then
                problem="${problem:+$problem, }no \"$t\" in the output"
            fi
        done
    fi
    if grep -qF "returned without" "$out"; then
        problem="${problem:+$problem, }a collective completed without the dead PE"
    fi
    if [ -z "$problem" ]; then
        echo "PASS errors $label (exit $rc, ${secs} s)"
        npass=$((npass + 1))
    else
        echo "FAIL errors $label ($problem; exit $rc, ${secs} s)"
        echo "    command: $envs $launcher $np $prog $*"
        tail -n 15 "$out" | sed "s/^/    | /"
        nfail=$((nfail + 1))
    fi
}

expect_failure "put to pe = n_pes" 2 "shmem_putmem|pe" "" -- err_badpe
expect_failure "put to a stack address" 2 "shmem_putmem|dest" "" -- err_nonsym
expect_failure "put before shmem_init" 1 "shmem_putmem" "" -- err_preinit
expect_failure "shmem_my_pe before shmem_init" 1 "shmem_my_pe|before" "" -- err_preinit mype
expect_failure "shmem_malloc before shmem_init" 1 "shmem_malloc|before" "" -- err_preinit malloc
# A heap that cannot hold the block: NULL on every PE with a warning, and
# the heap still works (err_heap checks both).
expect_warning "malloc larger than the heap" 2 "shmem_malloc|warning|SHMEM_SYMMETRIC_SIZE" "SHMEM_SYMMETRIC_SIZE=16M" -- err_heap
expect_failure "SHMEM_SYMMETRIC_SIZE=12Q" 2 "SHMEM_SYMMETRIC_SIZE|12Q" "SHMEM_SYMMETRIC_SIZE=12Q" -- err_env
expect_failure "dead PE (exit) during barrier" 2 "shmem_finalize" "" -- err_deadpe
expect_failure "dead PE (abort) during barrier" 2 "" "" -- err_deadpe abort
expect_failure "broadcast PE_root = team size" 2 "shmem_broadcastmem|PE_root" "" -- err_coll root
expect_failure "FABSHMEM_BCAST_ALGO=bogus" 2 "FABSHMEM_BCAST_ALGO|bogus" "FABSHMEM_BCAST_ALGO=bogus" -- err_coll algo
expect_failure "reduce to a stack dest" 2 "shmem_long_sum_reduce|dest" "" -- err_coll redsym
expect_failure "team context put outside the team" 2 "shmem_ctx_putmem|pe" "" -- err_coll teampe
expect_failure "alltoalls with stride 0" 2 "shmem_alltoallsmem|dst" "" -- err_coll alltoalls
expect_failure "FABSHMEM_CTX_ENDPOINTS=-1" 2 "FABSHMEM_CTX_ENDPOINTS" "FABSHMEM_CTX_ENDPOINTS=-1" -- err_coll ctxenv
expect_failure "FABSHMEM_STREAM_OFFLOAD=maybe" 2 "FABSHMEM_STREAM_OFFLOAD|maybe" "FABSHMEM_STREAM_OFFLOAD=maybe" -- err_env
expect_failure "FABSHMEM_OFI_AMO=fast" 2 "FABSHMEM_OFI_AMO|fast" "FABSHMEM_OFI_AMO=fast FABSHMEM_PROVIDER=tcp" -- err_env
expect_failure "FABSHMEM_OVERSUBSCRIBED=maybe" 2 "FABSHMEM_OVERSUBSCRIBED|maybe" "FABSHMEM_OVERSUBSCRIBED=maybe" -- err_env
# An AMO through shm's own atomics (off: libfabric 1.17's are wrong) ends
# the job with a message naming the routine, never a wrong sum.
expect_failure "AMO over shm with FABSHMEM_OFI_AMO=native" 2 "shmem_long_atomic_fetch_add|atomics" "FABSHMEM_OFI_AMO=native FABSHMEM_PROVIDER=shm FABSHMEM_DIRECT=0" -- err_env amo

# A killed job leaves nothing in /dev/shm: fabshmem unlinks its heap names
# as soon as the peers mapped them, and the next job removes the regions
# that libfabric's shm provider could not remove.
killed_job() {
    : >"$out"
    FABSHMEM_PROVIDER=shm FABSHMEM_DIRECT=0 $launcher 2 $xflags_shm "$bindir/err_killed" >"$out" 2>&1 &
    job=$!
    i=0
    while [ "$(grep -c ready "$out")" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
    pids=$(sed -n 's/.*pid \([0-9]*\) ready/\1/p' "$out")
    kill -9 $pids 2>/dev/null
    wait $job 2>/dev/null
    # The next job must start after the killed PEs are really gone.
    i=0
    while [ $i -lt 100 ]; do
        alive=0
        for p in $pids; do
            if [ -d /proc/$p ] && ! grep -q '^[0-9]* ([^)]*) Z' /proc/$p/stat 2>/dev/null; then
                alive=1
            fi
        done
        [ $alive = 0 ] && break
        sleep 0.1
        i=$((i + 1))
    done
    FABSHMEM_PROVIDER=shm FABSHMEM_DIRECT=0 timeout "$tmo" $launcher 2 $xflags_shm "$bindir/hello" >/dev/null 2>&1
    left=""
    for p in $pids; do
        left="$left$(ls /dev/shm 2>/dev/null | grep -E "^$p:")"
    done
    left="$left$(ls /dev/shm 2>/dev/null | grep '^fabshmem-')"
    if [ -n "$pids" ] && [ -z "$left" ]; then
        echo "PASS errors killed job leaves nothing in /dev/shm"
        npass=$((npass + 1))
    else
        echo "FAIL errors killed job leaves nothing in /dev/shm (pids: ${pids:-none}; left: ${left:-nothing})"
        sed "s/^/    | /" "$out" | tail -n 10
        nfail=$((nfail + 1))
    fi
}
# Names left by a PE killed inside shmem_init (between creating its heap
# and unlinking it) carry its pid: the next job removes them when that
# process is gone, and leaves those of live processes alone.
stale_names() {
    sh -c 'exit 0' &
    dead=$!
    wait $dead
    for n in "fabshmem-stale-1-0-p$dead" "fabshmem-stale-1-0-p$dead-data" "fabshmem-stale-1-1-p$$"; do
        : > "/dev/shm/$n" || { echo "SKIP errors stale names (cannot write /dev/shm)"; return; }
    done
    timeout "$tmo" $launcher 2 "$bindir/hello" >/dev/null 2>&1
    gone=1
    [ -e "/dev/shm/fabshmem-stale-1-0-p$dead" ] && gone=0
    [ -e "/dev/shm/fabshmem-stale-1-0-p$dead-data" ] && gone=0
    kept=0
    [ -e "/dev/shm/fabshmem-stale-1-1-p$$" ] && kept=1
    rm -f "/dev/shm/fabshmem-stale-1-0-p$dead" "/dev/shm/fabshmem-stale-1-0-p$dead-data" \
        "/dev/shm/fabshmem-stale-1-1-p$$"
    if [ $gone = 1 ] && [ $kept = 1 ]; then
        echo "PASS errors names of a PE killed in shmem_init are removed by the next job"
        npass=$((npass + 1))
    else
        echo "FAIL errors stale names: dead pid's removed $gone, live pid's kept $kept"
        nfail=$((nfail + 1))
    fi
}
stale_names

xflags_shm=""
case $(basename "${launcher%% *}") in
mpirun | mpiexec | oshrun | prterun | orterun) xflags_shm="-x FABSHMEM_PROVIDER -x FABSHMEM_DIRECT" ;;
esac
killed_job

echo "errors: $npass passed, $nfail failed"
[ $nfail -eq 0 ]
