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
# Exit statuses that the next expect_failure accepts (empty: any but 0).
want_rc=

# expect_failure LABEL NP "TEXT1|TEXT2..." ENV-ASSIGNMENTS -- PROG ARGS...
# Every TEXT (separated by |) must appear in the output as a word (fixed
# strings); a TEXT written !TEXT must not appear.  A line with "returned
# without" (a barrier that completed without a dead PE) fails the case too.
# With want_rc set, the launcher's exit status must be one of its words
# (want_rc is then cleared).
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
    elif [ -n "$want_rc" ] && ! echo " $want_rc " | grep -qF " $rc "; then
        problem="exit status $rc, expected ${want_rc% }"
    fi
    if [ -z "$problem" ] && [ "$check_text" = 1 ]; then
        rest=$texts
        while [ -n "$rest" ]; do
            t=${rest%%|*}
            case $rest in *"|"*) rest=${rest#*|} ;; *) rest= ;; esac
            case $t in
            !*)
                if grep -qF -- "${t#!}" "$out"; then
                    problem="${problem:+$problem, }\"${t#!}\" in the output"
                fi ;;
            *)
                if ! grep -qwF -- "$t" "$out"; then
                    problem="${problem:+$problem, }no \"$t\" in the output"
                fi ;;
            esac
        done
    fi
    if grep -qF "returned without" "$out"; then
        problem="${problem:+$problem, }a collective completed without the dead PE"
    fi
    want_rc=
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
# The device API's proxy (tests/core/proxy_cpu): CPU producers wait for G
# requests from a PE that left with _exit; the job must end (the proxy
# fails with the transport's error, or the launcher ends the job), never
# hang (proxy_cpu exits 0 after 60 s if nothing ended it).
expect_failure "dead PE while the proxy gets from it" 2 "" "FABSHMEM_PROXY=1" -- ../core/proxy_cpu dead
expect_failure "dead PE while the proxy gets from it (tcp, no direct path)" 2 "" "FABSHMEM_PROXY=1 FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=0" -- ../core/proxy_cpu dead
expect_failure "broadcast PE_root = team size" 2 "shmem_broadcastmem|PE_root" "" -- err_coll root
expect_failure "FABSHMEM_BCAST_ALGO=bogus" 2 "FABSHMEM_BCAST_ALGO|bogus|shmem_init" "FABSHMEM_BCAST_ALGO=bogus" -- err_coll algo
expect_failure "reduce to a stack dest" 2 "shmem_long_sum_reduce|dest" "" -- err_coll redsym
expect_failure "team context put outside the team" 2 "shmem_ctx_putmem|pe" "" -- err_coll teampe
expect_failure "alltoalls with stride 0" 2 "shmem_alltoallsmem|dst" "" -- err_coll alltoalls
# A destroyed team's handle (tests/team/team_stale): every team routine
# refuses it as it refuses SHMEM_TEAM_INVALID, with a message saying that
# the team was destroyed, and the job goes on (exit 0).
expect_warning "destroyed team handle" 2 "shmem_team_my_pe|shmem_team_sync|shmem_long_sum_reduce|shmem_team_destroy|was destroyed" "" -- ../team/team_stale
# A handle that is no team (tests/team/team_garbage) under FABSHMEM_CHECKS=1
# (the program sets it): refused with a warning naming the routine and the
# argument, and the job goes on.
expect_warning "garbage team handle" 2 "shmem_team_my_pe: team (0xdeadbeef) is not a team handle|shmem_long_sum_reduce|shmem_team_destroy" "" -- ../team/team_garbage default
# Collectives whose arguments differ between the PEs (tests/coll/coll_mismatch):
# with FABSHMEM_CHECKS=1 the job ends naming the routine, the argument and
# the PEs, where it hung or went on silently.
expect_failure "sum_reduce of 10 and 1000 elements, FABSHMEM_CHECKS=1" 2 "shmem_long_sum_reduce|nelems|FABSHMEM_CHECKS=1|1000 on PE 1|(down to 10) on PE 0" "FABSHMEM_CHECKS=1" -- ../coll/coll_mismatch reduce abort
expect_failure "broadcast with every PE its own root, FABSHMEM_CHECKS=1" 2 "shmem_long_broadcast|PE_root|1 on PE 1|(down to 0) on PE 0" "FABSHMEM_CHECKS=1" -- ../coll/coll_mismatch bcast_root abort
expect_failure "broadcast of 10 and 1000 elements, FABSHMEM_CHECKS=1" 2 "shmem_long_broadcast|nelems|1000 on PE 1" "FABSHMEM_CHECKS=1" -- ../coll/coll_mismatch bcast_n abort
# The hang diagnostic: the mismatched reduce with the checks off hangs (on
# mapped peers); FABSHMEM_WATCHDOG=2 reports the wait (the routine, the
# word and value, the team, the algorithm, what each member last sent) and
# FABSHMEM_WATCHDOG_ABORT=1 ends the job (254) within seconds.  Without
# the abort the report is printed and the wait goes on (late: a flag set
# 3 s late).
want_rc=254
expect_failure "FABSHMEM_WATCHDOG=2 on a mismatched reduce" 2 "watchdog|shmem_long_sum_reduce|waits until the word|last signal from each member|FABSHMEM_WATCHDOG_ABORT=1" "FABSHMEM_CHECKS=0 FABSHMEM_DIRECT=1 FABSHMEM_WATCHDOG=2 FABSHMEM_WATCHDOG_ABORT=1" -- ../coll/coll_mismatch reduce hang
# A barrier that the last of 3 PEs never reaches: the report names it as
# the member that has not arrived (mapped peers: their arrival words; tcp
# without the direct path: the dissemination round and whom it awaits).
want_rc=254
expect_failure "FABSHMEM_WATCHDOG=1 on a barrier that PE 2 never reaches" 3 "watchdog|shmem_barrier_all|members that have not arrived at the barrier: 2 (PE 2)|!(PE 2): none" "FABSHMEM_WATCHDOG=1 FABSHMEM_WATCHDOG_ABORT=1" -- ../coll/coll_mismatch barrier hang
want_rc=254
expect_failure "FABSHMEM_WATCHDOG=1 on a barrier that PE 2 never reaches, tcp, no direct path" 3 "watchdog|shmem_barrier_all|members that have not arrived at the barrier: 2 (PE 2)|waits in dissemination round|for member 2 (PE 2)" "FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=0 FABSHMEM_WATCHDOG=1 FABSHMEM_WATCHDOG_ABORT=1" -- ../coll/coll_mismatch barrier hang
expect_warning "FABSHMEM_WATCHDOG=1 on a late flag" 2 "watchdog|shmem_int_wait_until|is == 1" "FABSHMEM_WATCHDOG=1" -- ../coll/coll_mismatch late hang
# The transport's own quiet (tcp with the direct path and the progress
# thread off: the target sleeps 4 s outside the library, nothing completes
# a 1 MiB put meanwhile), and a stream sync whose executor waits 3 s for a
# signal: each is named as such.
want_rc=254
expect_failure "FABSHMEM_WATCHDOG=1 on a quiet that the target holds" 2 "watchdog|PE 1 has waited|in shmem_quiet|the transport's quiet|FABSHMEM_WATCHDOG_ABORT=1" "FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=0 FABSHMEM_PROGRESS_THREAD=0 FABSHMEM_WATCHDOG=1 FABSHMEM_WATCHDOG_ABORT=1" -- ../coll/coll_mismatch quiet hang
expect_warning "FABSHMEM_WATCHDOG=1 on a stream sync" 2 "watchdog|in shmemx_stream_sync|its executor has executed|work items enqueued" "FABSHMEM_WATCHDOG=1" -- ../coll/coll_mismatch stream hang
expect_warning "FABSHMEM_WATCHDOG=1 on a signal wait" 2 "watchdog|in shmem_signal_wait_until|it waits until the word at|is == 1 (0x1); it holds 0" "FABSHMEM_WATCHDOG=1" -- ../coll/coll_mismatch signal hang
expect_warning "FABSHMEM_WATCHDOG=1 on a stream sync after a refusal" 2 "watchdog|in shmemx_stream_sync|the stream holds an error since its last sync|shmemx_signal_op_on_stream|out of range" "FABSHMEM_WATCHDOG=1" -- ../coll/coll_mismatch refused hang
expect_failure "FABSHMEM_WATCHDOG=-1" 2 "FABSHMEM_WATCHDOG|-1" "FABSHMEM_WATCHDOG=-1" -- err_env
# The transport's limit on a wait without progress (FABSHMEM_OFI_TIMEOUT,
# default 60 s): the same held quiet ends the job after 1 s, naming the
# limit and the variable; 0 is refused at init.
expect_failure "FABSHMEM_OFI_TIMEOUT=1 on a quiet that the target holds" 2 "no progress for 1 s|FABSHMEM_OFI_TIMEOUT" "FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=0 FABSHMEM_PROGRESS_THREAD=0 FABSHMEM_OFI_TIMEOUT=1" -- ../coll/coll_mismatch quiet hang
expect_failure "FABSHMEM_OFI_TIMEOUT=0" 2 "FABSHMEM_OFI_TIMEOUT: invalid value 0 (expected 1 to 86400)" "FABSHMEM_OFI_TIMEOUT=0" -- err_env
# Integers out of the range of their row in src/core/env.def fail init at
# the parse, before anything is made, with the variable's line alone (these
# three were caught only when the teams were made, with two more lines).
expect_failure "FABSHMEM_TEAM_UIDS=0" 2 "FABSHMEM_TEAM_UIDS: invalid value 0 (expected 1 to 4096)|initialization failed|!teams could not be made|!invalid environment|!invalid value: an argument" "FABSHMEM_TEAM_UIDS=0" -- err_env
expect_failure "FABSHMEM_COLL_DELAY=-1" 2 "FABSHMEM_COLL_DELAY: invalid value -1 (expected 0 to 1000000)|!teams could not be made|!invalid environment|!invalid value: an argument" "FABSHMEM_COLL_DELAY=-1" -- err_env
expect_failure "FABSHMEM_NUMA_DOMAINS=-3" 2 "FABSHMEM_NUMA_DOMAINS: invalid value -3 (expected 0 to 4096)|!teams could not be made|!invalid environment|!invalid value: an argument" "FABSHMEM_NUMA_DOMAINS=-3" -- err_env
expect_failure "FABSHMEM_OFI_PUT_BUFFERED=2000000" 2 "FABSHMEM_OFI_PUT_BUFFERED: invalid value 2000000 (expected 0 to 1048576)|initialization failed" "FABSHMEM_OFI_PUT_BUFFERED=2000000 FABSHMEM_PROVIDER=tcp" -- err_env
expect_failure "FABSHMEM_CTX_ENDPOINTS=-1" 2 "FABSHMEM_CTX_ENDPOINTS" "FABSHMEM_CTX_ENDPOINTS=-1" -- err_coll ctxenv
expect_failure "FABSHMEM_STREAM_OFFLOAD=maybe" 2 "FABSHMEM_STREAM_OFFLOAD|maybe" "FABSHMEM_STREAM_OFFLOAD=maybe" -- err_env
expect_failure "FABSHMEM_PROXY=maybe" 2 "FABSHMEM_PROXY|maybe" "FABSHMEM_PROXY=maybe" -- err_env
expect_failure "FABSHMEM_PROXY_SLOTS=3" 2 "FABSHMEM_PROXY_SLOTS|3 is not a power of two|initialization failed" "FABSHMEM_PROXY_SLOTS=3" -- err_env
expect_failure "FABSHMEM_PROXY_SLOTS=1" 2 "FABSHMEM_PROXY_SLOTS: invalid value 1 (expected 2 to 1048576)" "FABSHMEM_PROXY_SLOTS=1" -- err_env
expect_failure "FABSHMEM_PROXY_SLEEP=0" 2 "FABSHMEM_PROXY_SLEEP: invalid value 0 (expected 1 to 1000000)" "FABSHMEM_PROXY_SLEEP=0" -- err_env
expect_failure "FABSHMEM_OFI_AMO=fast" 2 "FABSHMEM_OFI_AMO|fast" "FABSHMEM_OFI_AMO=fast FABSHMEM_PROVIDER=tcp" -- err_env
# The transport's variables are checked by the core at init (src/base/env.def),
# also where the provider would not read them; a provider that no PE can
# open fails init on every PE with the providers there are.
expect_failure "FABSHMEM_OFI_RC_MODE=zzz" 2 "FABSHMEM_OFI_RC_MODE|zzz|delivery" "FABSHMEM_OFI_RC_MODE=zzz FABSHMEM_PROVIDER=tcp" -- err_env
expect_failure "FABSHMEM_OFI_RC_MODE=zzz (1 PE)" 1 "FABSHMEM_OFI_RC_MODE|zzz" "FABSHMEM_OFI_RC_MODE=zzz" -- err_env
expect_failure "FABSHMEM_PROGRESS_INTERVAL=-1" 2 "FABSHMEM_PROGRESS_INTERVAL|-1" "FABSHMEM_PROGRESS_INTERVAL=-1" -- err_env
expect_failure "FABSHMEM_PROVIDER=nonsense" 2 "nonsense|the providers there are|tcp;ofi_rxm|!No such file or directory" "FABSHMEM_PROVIDER=nonsense" -- err_env
expect_failure "FABSHMEM_IFACE=nonsense" 2 "FABSHMEM_IFACE|nonsense|no network interface" "FABSHMEM_IFACE=nonsense FABSHMEM_PROVIDER=tcp" -- err_env
expect_failure "FABSHMEM_OVERSUBSCRIBED=maybe" 2 "FABSHMEM_OVERSUBSCRIBED|maybe" "FABSHMEM_OVERSUBSCRIBED=maybe" -- err_env
# An AMO through shm's own atomics (off: libfabric 1.17's are wrong) ends
# the job with a message naming the routine, never a wrong sum.
expect_failure "AMO over shm with FABSHMEM_OFI_AMO=native" 2 "shmem_long_atomic_fetch_add|atomics" "FABSHMEM_OFI_AMO=native FABSHMEM_PROVIDER=shm FABSHMEM_DIRECT=0" -- err_env amo

# How a job ends (docs/design/memory.md, "Lifetime"): shmem_global_exit(5) ends
# it with 5; exit(7) without shmem_finalize ends it with 250 under a PMIx
# launcher (with 7 or 250 under tests/uid_launch.sh, which exits with the
# first failing status: the leaving PE's 7 or another's 250).
want_rc=5
expect_failure "shmem_global_exit(5) on PE 1" 2 "" "" -- err_exit global_exit 1 5
case $launcher in *uid_launch*) want_rc="7 250" ;; *) want_rc=250 ;; esac
expect_failure "exit(7) without shmem_finalize on PE 1" 2 "shmem_finalize" "" -- err_exit exit 1 7

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
    # The killed PEs' names only: libfabric's regions start with the pid,
    # ours end with -p<pid> (another test running meanwhile may hold names
    # of its own for a moment).
    left=""
    for p in $pids; do
        left="$left$(ls /dev/shm 2>/dev/null | grep -E "^$p:|^fabshmem-.*-p$p(-|\$)")"
    done
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

# alive PIDS: whether one of the processes PIDS still runs (a zombie does
# not count).
alive() {
    for p in "$@"; do
        if [ -d /proc/$p ] && ! grep -q '^[0-9]* ([^)]*) Z' /proc/$p/stat 2>/dev/null; then
            return 0
        fi
    done
    return 1
}

# killed_launcher PROVIDER DIRECT MODE: the launcher of 2 PEs that wait (in
# shmem_int_wait_until or a loop on shmem_int_test_any, MODE) is killed
# with SIGKILL; each PE must notice that its PMIx server is gone and end
# within 20 s (the bound of a loaded machine; it takes about a second)
# saying so.  The PEs write their stderr to files: the launcher took the
# pipe of their output with it.
killed_launcher() {
    prov=$1 direct=$2 mode=$3
    label="launcher killed while the PEs wait ($mode, $prov, FABSHMEM_DIRECT=$direct)"
    errdir=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-errors.XXXXXX") || return
    : >"$out"
    FABSHMEM_PROVIDER=$prov FABSHMEM_DIRECT=$direct $launcher 2 $xflags_shm \
        "$bindir/err_exit" "$mode" "$errdir" >"$out" 2>&1 </dev/null &
    job=$!
    i=0
    while [ "$(grep -c waiting "$out")" -lt 2 ] && [ $i -lt 600 ] && alive $job; do
        sleep 0.1
        i=$((i + 1))
    done
    pids=$(sed -n 's/.*pid \([0-9]*\) waiting/\1/p' "$out")
    if [ "$(echo $pids | wc -w)" -ne 2 ]; then
        kill -TERM $job 2>/dev/null
        wait $job 2>/dev/null
        echo "FAIL errors $label (the PEs did not start)"
        sed "s/^/    | /" "$out" | tail -n 10
        nfail=$((nfail + 1))
        rm -rf "$errdir"
        return
    fi
    kill -9 $job
    wait $job 2>/dev/null
    t0=$(date +%s)
    i=0
    while alive $pids && [ $i -lt 200 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    secs=$(($(date +%s) - t0))
    problem=
    if alive $pids; then
        problem="PEs still running after $secs s"
        kill -9 $pids 2>/dev/null
    fi
    for p in $pids; do
        grep -qF "PMIx server is gone" "$errdir/err.$p" 2>/dev/null ||
            problem="${problem:+$problem, }no message from pid $p"
    done
    if [ -z "$problem" ]; then
        echo "PASS errors $label (PEs gone in ${secs} s)"
        npass=$((npass + 1))
    else
        echo "FAIL errors $label ($problem)"
        cat "$errdir"/err.* 2>/dev/null | tail -n 10 | sed "s/^/    | /"
        nfail=$((nfail + 1))
    fi
    rm -rf "$errdir"
}

xflags_shm=""
case $(basename "${launcher%% *}") in
mpirun | mpiexec | oshrun | prterun | orterun) xflags_shm="-x FABSHMEM_PROVIDER -x FABSHMEM_DIRECT" ;;
esac
killed_job
# A PMIx launcher only: the unique-id bootstrap's hub is tests/init/uid_boot.sh's.
if [ -n "$xflags_shm" ]; then
    killed_launcher shm 1 test_any
    killed_launcher shm 1 wait_until
    killed_launcher tcp 0 test_any
    killed_launcher tcp 0 wait_until
fi

echo "errors: $npass passed, $nfail failed"
[ $nfail -eq 0 ]
