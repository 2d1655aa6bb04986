#!/bin/sh
# The unique-id bootstrap: processes started by this plain shell script (no
# launcher, no PMIx) join with the id passed in a file, over the provider
# and direct-path matrix; then a process with a wrong secret is refused
# at once and told why while the real job completes, and a process with
# the id of a job that has formed fails at once; then a process that exits
# without shmem_finalize ends the job with an error instead of a hang.
# With tests/init/uid_boot, also (tests/init/uid_attack plays the clients
# that break the protocol):
#   - attacks: while the hub of a real job waits, 8 silent connections and
#     a slow one (dropped after 5 s) and, meanwhile, a malformed header, an
#     oversized hello, a wrong magic and a wrong job size are each refused
#     with their reason, at once (served beside the silent ones: a hub that
#     served them in turn would pass FABSHMEM_BOOTSTRAP_TIMEOUT=20), and
#     the hub reports them in one line; then the real job completes; a
#     flood of 300 silent connections does not lock the real ranks out
#     (the oldest are pushed out) and makes one line at the hub;
#   - how a job ends (tests/init/err_exit): shmem_global_exit(5) from the
#     hub or another PE makes every PE exit 5 (tests/uid_launch.sh too);
#     exit(7) without shmem_finalize: that PE exits 7, the others 250; the
#     hub killed, or another PE killed, while the others wait: they end
#     with 251 and a message naming it;
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
nskip=0

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
            *) nskip=$((nskip + 1)); continue ;;
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
    # started first; the hub refuses it at once and tells it why (20 s
    # allowed on a loaded machine, against FABSHMEM_BOOTSTRAP_TIMEOUT's
    # 120), reports the refusal in its one summary line, and the real job
    # completes.
    rm -f "$work/id" "$work"/out.*
    timeout -k 5 "$tmo" "$prog" 0 3 "$work/id" >"$work/out.0" 2>&1 &
    p0=$!
    t0=$(date +%s)
    timeout -k 5 "$tmo" "$prog" 2 3 "$work/id" badsecret >"$work/out.bad" 2>&1 &
    pb=$!
    wait $pb
    rb=$?
    tb=$(($(date +%s) - t0))
    join_rest
    if [ $rb -ne 0 ] && [ $rb -ne 124 ] && [ $tb -le 20 ] && [ $r0 -eq 0 ] && [ $r1 -eq 0 ] &&
        [ $r2 -eq 0 ] && grep -qF "refused rank 2 of 3: wrong secret" "$work/out.bad" &&
        grep -qF "refused 1 connection while the PEs joined: 1 x (wrong secret" "$work/out.0"; then
        report ok "wrong secret refused at once with the reason (${tb} s)"
    else
        report "impostor $rb after ${tb} s, ranks $r0 $r1 $r2" "wrong secret refused at once"
    fi

    # The same id once its job has formed: nobody listens for it any more,
    # and a process that presents it fails at once saying so (it used to
    # wait out FABSHMEM_BOOTSTRAP_TIMEOUT).
    t0=$(date +%s)
    timeout -k 5 "$tmo" "$prog" 1 3 "$work/id" >"$work/out.late" 2>&1
    rl=$?
    tl=$(($(date +%s) - t0))
    if [ $rl -ne 0 ] && [ $rl -ne 124 ] && [ $tl -le 20 ] &&
        grep -qF "nobody listens at the hub's address" "$work/out.late"; then
        report ok "the id of a job already formed is refused at once (${tl} s)"
    else
        report "exit $rl after ${tl} s" "the id of a job already formed is refused at once"
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
    : >"$work/out.attack"
    for m in garbage bighello badmagic "badsize 1 5"; do
        # shellcheck disable=SC2086
        timeout 60 "$attack" "$work/id" $m >>"$work/out.attack" 2>&1 || ok=0
    done
    for p in $apids; do wait "$p" || ok=0; done
    join_rest
    # One summary line, a count and the first reason of each kind.
    missing=
    for t in "(malformed hello: message type" "(oversized hello: 1073741824 bytes" \
        "(wrong magic 0x12345678" "(another job size: 5 PEs, this job has 3)"; do
        grep -qF "1 x $t" "$work/out.0" || missing="$missing [$t]"
    done
    nslow=$(grep -o "[0-9]* x (no hello within 5 s)" "$work/out.0" | cut -d' ' -f1)
    nlines=$(grep -c "refused" "$work/out.0")
    if [ $ok -eq 1 ] && [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -z "$missing" ] &&
        [ "${nslow:-0}" -eq 9 ] && [ "$nlines" -eq 1 ] &&
        grep -qF "refused 13 connections while the PEs joined" "$work/out.0" &&
        grep -qF "uid_attack: refused: wrong magic 0x12345678" "$work/out.attack"; then
        report ok "attacks refused and told why, one summary line, the job completes"
    else
        report "attackers closed by the hub: $ok, ranks $r0 $r1 $r2, missing:$missing, \
${nslow:-0} of 9 slow ones dropped, $nlines lines of refusals" \
            "attacks refused and told why, one summary line, the job completes"
    fi

    # A flood of 300 silent connections (the hub serves 256 at once and
    # pushes out the oldest): the real ranks that come after get in, and
    # the hub reports the 300 refusals in one line.
    rm -f "$work/id" "$work"/out.*
    timeout -k 5 "$tmo" "$prog" 0 3 "$work/id" >"$work/out.0" 2>&1 &
    p0=$!
    wait_file "$work/id"
    timeout 60 "$attack" "$work/id" flood 300 >"$work/out.attack" 2>&1 &
    pa=$!
    n=0
    while ! grep -q "the hub closed one" "$work/out.attack" && [ $n -lt 300 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    join_rest
    wait $pa; ra=$?
    nold=$(grep -o "[0-9]* x (the oldest of 256" "$work/out.0" | cut -d' ' -f1)
    nlines=$(grep -c "refused" "$work/out.0")
    if [ $ra -eq 0 ] && [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] &&
        [ "${nold:-0}" -ge 44 ] && [ "$nlines" -eq 1 ] &&
        grep -qF "refused 300 connections while the PEs joined" "$work/out.0"; then
        report ok "a flood of silent connections does not lock the real ranks out, one line"
    else
        report "flooder $ra, ranks $r0 $r1 $r2, ${nold:-0} pushed out, $nlines lines" \
            "a flood of silent connections does not lock the real ranks out, one line"
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

    # How a job ends (tests/init/err_exit, booting with
    # FABSHMEM_BOOTSTRAP=uid): uid_env_job NP ENVS ARGS... starts NP ranks
    # of err_exit ARGS...; uid_env_wait sets rcs to their statuses.
    ex=$dir/err_exit
    uid_env_job() {
        np=$1 envs=$2
        shift 2
        rm -f "$work/id" "$work"/out.*
        pids=""
        r=0
        while [ $r -lt "$np" ]; do
            # shellcheck disable=SC2086
            env $envs FABSHMEM_BOOTSTRAP=uid FABSHMEM_BOOTSTRAP_NRANKS="$np" \
                FABSHMEM_BOOTSTRAP_RANK=$r FABSHMEM_BOOTSTRAP_UID_FILE="$work/id" \
                timeout -k 5 "$tmo" "$ex" "$@" >"$work/out.$r" 2>&1 </dev/null &
            pids="$pids $!"
            r=$((r + 1))
        done
    }
    uid_env_wait() {
        rcs=""
        for p in $pids; do
            wait "$p"
            rcs="$rcs $?"
        done
    }
    # shmem_global_exit(5) from the hub (PE 0) and from another PE: every
    # PE exits 5, and none takes the closing connections for a death.
    for pe in 0 2; do
        uid_env_job 3 "FABSHMEM_PROVIDER=tcp" global_exit $pe 5
        uid_env_wait
        if [ "$rcs" = " 5 5 5" ] && ! grep -q "is gone" "$work"/out.*; then
            report ok "shmem_global_exit(5) from PE $pe: every PE exits 5"
        else
            report "exit statuses$rcs" "shmem_global_exit(5) from PE $pe: every PE exits 5"
        fi
    done
    # ... and the loop of tests/uid_launch.sh exits 5 too.
    FABSHMEM_PROVIDER=tcp timeout -k 5 "$tmo" bash "$(dirname "$0")/../uid_launch.sh" 3 "$ex" \
        global_exit 1 5 >"$work/out.0" 2>&1
    rc=$?
    if [ $rc -eq 5 ]; then
        report ok "shmem_global_exit(5): tests/uid_launch.sh exits 5"
    else
        report "exit $rc" "shmem_global_exit(5): tests/uid_launch.sh exits 5"
    fi
    # exit(7) without shmem_finalize, from the hub and from another PE: that
    # PE exits 7, the others 250 (docs/design/memory.md, "Lifetime").
    for pe in 0 1; do
        uid_env_job 3 "FABSHMEM_PROVIDER=tcp" exit $pe 7
        uid_env_wait
        want=" 250 250 250"
        [ $pe -eq 0 ] && want=" 7 250 250"
        [ $pe -eq 1 ] && want=" 250 7 250"
        if [ "$rcs" = "$want" ] && grep -q "PE $pe exited without calling shmem_finalize" \
            "$work/out.$pe" && ! grep -q "is gone" "$work"/out.*; then
            report ok "exit(7) without shmem_finalize on PE $pe: statuses$rcs"
        else
            report "exit statuses$rcs, expected$want" \
                "exit(7) without shmem_finalize on PE $pe"
        fi
    done
    # A process of the job killed while the others wait (in wait_until, or
    # a loop on test_any): the hub killed, the others notice its connection
    # closing; another PE killed, the hub notices and ends the job naming
    # it.  Every survivor exits 251 with the message, within 20 s (the
    # test bound on a loaded machine; it takes milliseconds).
    for victim in 0 2; do
        if [ $victim -eq 0 ]; then
            uid_env_job 3 "FABSHMEM_PROVIDER=shm" test_any
            text="the hub (PE 0) is gone"
        else
            uid_env_job 3 "FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=0" wait_until
            text="PE 2 is gone"
        fi
        n=0
        while [ "$(cat "$work"/out.* | grep -c waiting)" -lt 3 ] && [ $n -lt 600 ]; do
            sleep 0.1
            n=$((n + 1))
        done
        vpid=$(sed -n 's/.*pid \([0-9]*\) waiting/\1/p' "$work/out.$victim")
        [ -n "$vpid" ] && kill -9 "$vpid"
        t0=$(date +%s)
        uid_env_wait
        tk=$(($(date +%s) - t0))
        ok=1
        r=0
        for rc in $rcs; do
            if [ $r -ne $victim ]; then
                [ "$rc" -eq 251 ] && grep -qF "$text" "$work/out.$r" || ok=0
            fi
            r=$((r + 1))
        done
        if [ -n "$vpid" ] && [ $ok -eq 1 ] && [ $tk -le 20 ]; then
            report ok "PE $victim killed: the others end with \"$text\" (${tk} s)"
        else
            report "victim pid ${vpid:-none}, exit statuses$rcs after ${tk} s" \
                "PE $victim killed: the others end with \"$text\""
        fi
    done

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

echo "$name (unique id): $npass passed, $nfail failed, $nskip skipped (modes it does not run)"
# Nothing run is a failure, but where TEST_MODES named only modes this
# boot has no form of (worker, nomapdata: make check-full's others).
[ $nfail -eq 0 ] && { [ $npass -gt 0 ] || [ $nskip -gt 0 ]; }
