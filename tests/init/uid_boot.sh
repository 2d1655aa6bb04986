#!/bin/sh
# The unique-id bootstrap: processes started by this plain shell script (no
# launcher, no PMIx) join with the id passed in a file, over the provider
# and direct-path matrix; then a process with a wrong secret is refused
# while the real job completes; then a process that exits without
# shmem_finalize ends the job with an error instead of a hang.  With
# tests/init/uid_boot, also (tests/init/uid_attack plays the clients that break the
# protocol):
#   - attacks: while the hub of a real job waits, 8 silent connections and
#     a slow one (dropped after 5 s) and, meanwhile, a malformed header, an
#     oversized hello, a wrong magic and a wrong job size are each refused
#     with their reason, at once (served beside the silent ones: a hub that
#     served them in turn would pass FABSHMEM_BOOTSTRAP_TIMEOUT=20); then
#     the real job completes; a flood of 300 silent connections does not
#     lock the real ranks out (the oldest are pushed out);
#   - a joined peer that sends a 2 GiB frame ends the job with a message
#     saying so (not that a PE left);
#   - FABSHMEM_BOOTSTRAP_IFNAME=lo puts 127.0.0.1 in the id and the job
#     runs; a name that is no interface fails shmemx_get_uniqueid with a
#     message naming the variable;
#   - the job id (SHMEM_DEBUG) is the id's own random one, not the secret;
#   - tests/uid_launch.sh makes one job of 3 processes (tests/init/hello);
#     FABSHMEM_BOOTSTRAP=uid with a bad rank, no id file or a file that
#     holds no id fails with a message naming the variable.
#
# Environment: NPROCS_LIST (default "1 2 3 4"), TEST_PROVIDERS ("shm tcp"),
# TEST_MODES ("direct nodirect vnode"), TEST_TIMEOUT (default 60 s).
#
#   tests/init/uid_boot.sh [PROG [ARGS...]]
# Each rank runs PROG ARGS... RANK NRANKS IDFILE [MODE] (default PROG:
# tests/init/uid_boot; tests/examples.sh passes examples/walkthrough --uid).  The
# wrong-secret and dead-rank checks need tests/init/uid_boot's modes.

prog=${1:-tests/init/uid_boot}
[ $# -gt 0 ] && shift
pre="$*"
case $prog in *.pe) prog=${prog%.pe} ;; esac
case $prog in */*) ;; *) prog=./$prog ;; esac
name=$(basename "$prog")
tmo=${TEST_TIMEOUT:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-uid.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
npass=0
nfail=0

# run_job NP ENV MODE-OF-LAST: starts NP ranks; prints nothing; sets rcs.
run_job() {
    np=$1 envs=$2 lastmode=$3
    rm -f "$work/id" "$work"/out.*
    pids=""
    r=0
    while [ $r -lt "$np" ]; do
        m=""
        [ $r -eq $((np - 1)) ] && m=$lastmode
        # shellcheck disable=SC2086
        env $envs timeout -k 5 "$tmo" "$prog" $pre $r "$np" "$work/id" $m >"$work/out.$r" 2>&1 \
            </dev/null &
        pids="$pids $!"
        r=$((r + 1))
    done
    rcs=""
    for p in $pids; do
        wait "$p"
        rcs="$rcs $?"
    done
}

# join_rest: ranks 1 and 2 join the job of 3 whose rank 0 runs as $p0;
# waits for the three and sets r0, r1, r2.
join_rest() {
    timeout -k 5 "$tmo" "$prog" 1 3 "$work/id" >"$work/out.1" 2>&1 &
    p1=$!
    timeout -k 5 "$tmo" "$prog" 2 3 "$work/id" >"$work/out.2" 2>&1 &
    p2=$!
    wait $p0; r0=$?
    wait $p1; r1=$?
    wait $p2; r2=$?
}

report() {
    if [ "$1" = ok ]; then
        echo "PASS $name $2"
        npass=$((npass + 1))
    else
        echo "FAIL $name $2: $1"
        cat "$work"/out.* | tail -n 20
        nfail=$((nfail + 1))
    fi
}

nplist=${NPROCS_LIST-"1 2 3 4"}
provs=${TEST_PROVIDERS-"shm tcp"}
modes=${TEST_MODES-"direct nodirect vnode"}
for np in $nplist; do
    for prov in $provs; do
        for mode in $modes; do
            case $mode in
            direct) e="FABSHMEM_DIRECT=1" ;;
            nodirect) e="FABSHMEM_DIRECT=0" ;;
            vnode) e="FABSHMEM_PES_PER_NODE=2" ;;
            *) continue ;;
            esac
            run_job "$np" "FABSHMEM_PROVIDER=$prov $e" ""
            bad=0
            for rc in $rcs; do [ "$rc" -ne 0 ] && bad=1; done
            if [ $bad -eq 0 ]; then report ok "np=$np prov=$prov mode=$mode"
            else report "exit statuses$rcs" "np=$np prov=$prov mode=$mode"; fi
        done
    done
done

if [ "$name" = uid_boot ]; then
    # A wrong secret: 3 real ranks (0, 1, 2) plus an impostor claiming rank 2
    # started first; the hub refuses it and the real job completes.
    rm -f "$work/id" "$work"/out.*
    timeout -k 5 "$tmo" "$prog" 0 3 "$work/id" >"$work/out.0" 2>&1 &
    p0=$!
    timeout -k 5 "$tmo" "$prog" 2 3 "$work/id" badsecret >"$work/out.bad" 2>&1 &
    pb=$!
    wait $pb
    rb=$?
    join_rest
    if [ $rb -ne 0 ] && [ $rb -ne 124 ] && [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] &&
        grep -q "refused a connection (wrong secret)" "$work/out.0"; then
        report ok "wrong secret refused"
    else
        report "impostor $rb, ranks $r0 $r1 $r2" "wrong secret refused"
    fi

    # A rank that leaves without finalize: the others end with an error, in time.
    run_job 3 "FABSHMEM_PROVIDER=tcp" die
    ok=1
    for rc in $rcs; do
        { [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && ok=0
    done
    if [ $ok -eq 1 ] && grep -q "without shmem_finalize" "$work"/out.*; then
        report ok "dead rank ends the job"
    else
        report "exit statuses$rcs (0 = missed the death, 124 = hung)" "dead rank ends the job"
    fi
fi

if [ "$name" = uid_boot ]; then
    dir=$(dirname "$prog")
    attack=$dir/uid_attack
    # wait_file FILE: until rank 0 has written it (at most 30 s).
    wait_file() {
        n=0
        while [ ! -s "$1" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
    }

    # Attacks on a hub that waits for its ranks.
    rm -f "$work/id" "$work"/out.*
    FABSHMEM_BOOTSTRAP_TIMEOUT=20 timeout -k 5 "$tmo" "$prog" 0 3 "$work/id" \
        >"$work/out.0" 2>&1 &
    p0=$!
    wait_file "$work/id"
    apids=""
    for i in 1 2 3 4 5 6 7 8; do
        timeout 60 "$attack" "$work/id" silent >"$work/out.silent$i" 2>&1 &
        apids="$apids $!"
    done
    timeout 60 "$attack" "$work/id" slow >"$work/out.slow" 2>&1 &
    apids="$apids $!"
    ok=1
    for m in garbage bighello badmagic "badsize 1 5"; do
        # shellcheck disable=SC2086
        timeout 60 "$attack" "$work/id" $m >"$work/out.attack" 2>&1 || ok=0
    done
    for p in $apids; do wait "$p" || ok=0; done
    join_rest
    missing=
    for t in "(malformed hello: message type" "(oversized hello: 1073741824 bytes" \
        "(wrong magic 0x12345678" "(another job size: 5 PEs, this job has 3)"; do
        grep -qF "refused a connection $t" "$work/out.0" || missing="$missing [$t]"
    done
    nslow=$(grep -c "refused a connection (no hello within 5 s)" "$work/out.0")
    if [ $ok -eq 1 ] && [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -z "$missing" ] &&
        [ "$nslow" -eq 9 ]; then
        report ok "attacks refused, the job completes"
    else
        report "attackers closed by the hub: $ok, ranks $r0 $r1 $r2, missing:$missing, \
$nslow of 9 slow ones dropped" "attacks refused, the job completes"
    fi

    # A flood of 300 silent connections (the hub serves 256 at once and
    # pushes out the oldest): the real ranks that come after get in.
    rm -f "$work/id" "$work"/out.*
    timeout -k 5 "$tmo" "$prog" 0 3 "$work/id" >"$work/out.0" 2>&1 &
    p0=$!
    wait_file "$work/id"
    timeout 60 "$attack" "$work/id" flood 300 >"$work/out.attack" 2>&1 &
    pa=$!
    n=0
    while ! grep -q "the oldest of 256" "$work/out.0" && [ $n -lt 300 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    join_rest
    wait $pa; ra=$?
    nold=$(grep -c "refused a connection (the oldest of 256" "$work/out.0")
    if [ $ra -eq 0 ] && [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ "$nold" -ge 44 ]; then
        report ok "a flood of silent connections does not lock the real ranks out"
    else
        report "flooder $ra, ranks $r0 $r1 $r2, $nold pushed out" \
            "a flood of silent connections does not lock the real ranks out"
    fi

    # A joined peer sends a frame over the limit.
    rm -f "$work/id" "$work"/out.*
    timeout -k 5 "$tmo" "$prog" 0 3 "$work/id" >"$work/out.0" 2>&1 &
    p0=$!
    wait_file "$work/id"
    timeout -k 5 "$tmo" "$prog" 1 3 "$work/id" >"$work/out.1" 2>&1 &
    p1=$!
    timeout 60 "$attack" "$work/id" bigframe 2 3 >"$work/out.attack" 2>&1
    ra=$?
    wait $p0; r0=$?
    wait $p1; r1=$?
    if [ $ra -eq 0 ] && [ $r0 -ne 0 ] && [ $r0 -ne 124 ] && [ $r1 -ne 0 ] && [ $r1 -ne 124 ] &&
        grep -q "PE 2 sent a bootstrap message of 2147483648 bytes, more than the limit" \
            "$work/out.0" && ! grep -q "left the job" "$work"/out.*; then
        report ok "oversized frame of a joined PE named"
    else
        report "attacker $ra, ranks $r0 $r1" "oversized frame of a joined PE named"
    fi

    # FABSHMEM_BOOTSTRAP_IFNAME=lo, then a name that is no interface.
    run_job 2 "FABSHMEM_PROVIDER=tcp FABSHMEM_BOOTSTRAP_IFNAME=lo" ""
    addr=$("$attack" "$work/id" show | sed -n 's/^addr=\([^:]*\):.*/\1/p')
    if [ "$rcs" = " 0 0" ] && [ "$addr" = 127.0.0.1 ]; then
        report ok "FABSHMEM_BOOTSTRAP_IFNAME=lo"
    else
        report "exit statuses$rcs, id address '$addr'" "FABSHMEM_BOOTSTRAP_IFNAME=lo"
    fi
    rm -f "$work/id"
    FABSHMEM_BOOTSTRAP_IFNAME=bogus0 timeout 60 "$prog" 0 2 "$work/id" >"$work/out.0" 2>&1
    rb=$?
    if [ $rb -ne 0 ] && [ $rb -ne 124 ] && [ ! -e "$work/id" ] &&
        grep -q "FABSHMEM_BOOTSTRAP_IFNAME: no interface 'bogus0'" "$work/out.0"; then
        report ok "FABSHMEM_BOOTSTRAP_IFNAME=bogus0 refused"
    else
        report "exit $rb" "FABSHMEM_BOOTSTRAP_IFNAME=bogus0 refused"
    fi

    # The job id names shared objects in /dev/shm: the id's own, not the
    # secret.
    run_job 2 "FABSHMEM_PROVIDER=shm SHMEM_DEBUG=1" ""
    show=$("$attack" "$work/id" show)
    secret=$(echo "$show" | sed -n 's/.* secret=\([0-9a-f]*\) .*/\1/p')
    job=$(echo "$show" | sed -n 's/.* job=\([0-9a-f]*\)$/\1/p')
    used=$(sed -n 's/.*job id u\([0-9a-f]*\).*/\1/p' "$work/out.0" | head -n 1)
    case $secret in *"$used"*) leak=1 ;; *) leak=0 ;; esac
    if [ "$rcs" = " 0 0" ] && [ -n "$used" ] && [ "$used" = "$job" ] && [ $leak -eq 0 ]; then
        report ok "the job id is not the secret"
    else
        report "exit statuses$rcs, job id '$used', id's job '$job', secret '$secret'" \
            "the job id is not the secret"
    fi

    # FABSHMEM_BOOTSTRAP=uid refuses what it cannot use, naming it.
    h=$dir/hello
    uid_env_fails() { # LABEL TEXT ENV...
        label=$1 text=$2
        shift 2
        env FABSHMEM_BOOTSTRAP=uid FABSHMEM_BOOTSTRAP_TIMEOUT=2 "$@" timeout 60 "$h" \
            >"$work/out.0" 2>&1
        rc=$?
        if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -qF "$text" "$work/out.0"; then
            report ok "FABSHMEM_BOOTSTRAP=uid: $label"
        else
            report "exit $rc, no \"$text\"" "FABSHMEM_BOOTSTRAP=uid: $label"
        fi
    }
    if [ -x "$h" ]; then
        # tests/uid_launch.sh: 3 processes of a shell loop form one job.
        FABSHMEM_PROVIDER=tcp timeout 120 bash "$(dirname "$0")/../uid_launch.sh" 3 "$h" >"$work/out.0" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -q "hello: round 1: 3 PEs" "$work/out.0"; then
            report ok "tests/uid_launch.sh: one job of 3 PEs"
        else
            report "exit $rc" "tests/uid_launch.sh: one job of 3 PEs"
        fi
        uid_env_fails "rank out of range" "FABSHMEM_BOOTSTRAP_RANK is 5" \
            FABSHMEM_BOOTSTRAP_NRANKS=2 FABSHMEM_BOOTSTRAP_RANK=5 \
            FABSHMEM_BOOTSTRAP_UID_FILE="$work/id"
        uid_env_fails "no file" "FABSHMEM_BOOTSTRAP_UID_FILE is not set" \
            FABSHMEM_BOOTSTRAP_NRANKS=2 FABSHMEM_BOOTSTRAP_RANK=0
        rm -f "$work/id"
        uid_env_fails "id file never written" "did not appear within 2 s" \
            FABSHMEM_BOOTSTRAP_NRANKS=2 FABSHMEM_BOOTSTRAP_RANK=1 \
            FABSHMEM_BOOTSTRAP_UID_FILE="$work/id"
        echo "not an id" >"$work/id"
        uid_env_fails "a file without an id" "does not hold a unique id" \
            FABSHMEM_BOOTSTRAP_NRANKS=2 FABSHMEM_BOOTSTRAP_RANK=1 \
            FABSHMEM_BOOTSTRAP_UID_FILE="$work/id"
    fi
fi

echo "$name (unique id): $npass passed, $nfail failed"
[ $nfail -eq 0 ] && [ $npass -gt 0 ]
