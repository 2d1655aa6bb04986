#!/bin/sh
# The unique-id bootstrap's joining, late and damaged ranks, and what its
# receive paths refuse (tests/init/uid_boot.sh has the rest):
#   - a rank that starts 6 s after the hub joins (the hub used to give a
#     new connection the 5 s of its hello from before its poll() slept);
#   - an id whose hub address is damaged is refused at once, naming the
#     problem; a valid id of a hub that does not answer makes the rank say
#     every few seconds that it still tries, and where, then fail;
#   - under load (busy loops on every core, for a bounded time): a damaged
#     id and a wrong secret that come while the job forms are refused
#     within seconds, with their reasons, and the job completes;
#   - the process that ends the job prints its abort text with the same
#     prefix as the others (FABSHMEM_BOOTSTRAP=uid, err_exit);
#   - a joined peer that breaks the protocol (a frame that only the hub
#     sends, two collective frames at once) ends the job naming it;
#   - a flood of connections at a hub out of file descriptors does not
#     lock the real ranks out.
#
# Environment: TEST_TIMEOUT (default 60 s).

dir=$(dirname "$0")
bin=tests/init
[ -x "$bin/uid_boot" ] || bin=$dir
prog=$bin/uid_boot
attack=$bin/uid_attack
tmo=${TEST_TIMEOUT:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-uidj.XXXXXX") || exit 1
busy=""
cleanup() {
    for p in $busy; do kill "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' INT TERM
export FABSHMEM_PROVIDER="${FABSHMEM_PROVIDER:-tcp}"
npass=0
nfail=0

report() {
    if [ "$1" = ok ]; then
        echo "PASS uid_join $2"
        npass=$((npass + 1))
    else
        echo "FAIL uid_join $2: $1"
        for f in "$work"/out.*; do
            [ -f "$f" ] && sed "s|^|    $(basename "$f"): |" "$f" | tail -n 8
        done
        nfail=$((nfail + 1))
    fi
}

# wait_file FILE: until rank 0 has written it (at most 30 s).
wait_file() {
    n=0
    while [ ! -s "$1" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
}

# start R NP [MODE] [ID]: rank R of NP in the background, its pid in $pid.
start() {
    # shellcheck disable=SC2086
    timeout -k 5 "$tmo" "$prog" "$1" "$2" "${4:-$work/id}" $3 >"$work/out.$1$3" 2>&1 </dev/null &
    pid=$!
}

# 1. A late rank: rank 0 waits alone for 6 s (longer than the 5 s a
#    connection has for its hello), then rank 1 comes.
rm -f "$work"/id "$work"/out.*
start 0 2
p0=$pid
wait_file "$work/id"
sleep 6
start 1 2
wait $p0; r0=$?
wait $pid; r1=$?
if [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && grep -q "uid_boot: 2 processes passed" "$work/out.0"; then
    report ok "a rank that starts 6 s after the hub joins"
else
    report "ranks $r0 $r1" "a rank that starts 6 s after the hub joins"
fi

# 2. A damaged address: refused at once (no connection tried), naming the
#    problem.  (The hub of the id is rank 0 of the first case, gone: a
#    damaged port would otherwise end in "nobody listens".)
"$attack" "$work/id" corrupt "$work/bad" || report "uid_attack corrupt failed" "damaged id"
t0=$(date +%s)
timeout -k 5 "$tmo" "$prog" 1 2 "$work/bad" >"$work/out.bad" 2>&1
rb=$?
tb=$(($(date +%s) - t0))
if [ $rb -ne 0 ] && [ $rb -ne 124 ] && [ $tb -le 10 ] &&
    grep -qF "the unique id is damaged: its check value does not match its hub address" \
        "$work/out.bad"; then
    report ok "a damaged id is refused at once naming the problem (${tb} s)"
else
    report "exit $rb after ${tb} s" "a damaged id is refused at once naming the problem"
fi

# A valid id of a hub that does not answer (a socket that listens but
# never accepts, its backlog full: connections time out): the rank says
# every 3 s that it still tries and where, and fails at
# FABSHMEM_BOOTSTRAP_TIMEOUT.
rm -f "$work"/out.* "$work/away"
timeout 30 "$attack" "$work/id" deaf 15 "$work/away" &
pd=$!
wait_file "$work/away"
port=$("$attack" "$work/away" show | sed -n 's/^addr=127\.0\.0\.1:\([0-9]*\) .*/\1/p')
t0=$(date +%s)
FABSHMEM_BOOTSTRAP_TIMEOUT=7 timeout -k 5 "$tmo" "$prog" 1 2 "$work/away" >"$work/out.away" 2>&1
ra=$?
ta=$(($(date +%s) - t0))
kill $pd 2>/dev/null
wait $pd 2>/dev/null
ntries=$(grep -c "still trying to reach the hub at 127.0.0.1:$port" "$work/out.away")
if [ $ra -ne 0 ] && [ $ra -ne 124 ] && [ -n "$port" ] && [ "$ntries" -ge 1 ] &&
    [ $ta -le 20 ] && grep -qF "cannot reach the hub at 127.0.0.1:$port" "$work/out.away"; then
    report ok "a hub that does not answer: $ntries x \"still trying to reach the hub at \
127.0.0.1:$port\", then the time limit (${ta} s)"
else
    report "exit $ra after ${ta} s, $ntries lines" "a hub that does not answer"
fi

# 3. Under load: two busy loops per core (ended after 40 s at the latest).
#    Rank 0 of 3 waits alone past the hello's 5 s; then a damaged id and a
#    wrong secret come (each refused within 10 s with its reason), then the
#    real ranks, and the job completes.
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
i=0
while [ $i -lt $((2 * ncpu)) ]; do
    timeout 40 sh -c 'while :; do :; done' &
    busy="$busy $!"
    i=$((i + 1))
done
rm -f "$work"/id "$work"/out.*
start 0 3
p0=$pid
wait_file "$work/id"
sleep 6
"$attack" "$work/id" corrupt "$work/bad"
t0=$(date +%s)
start 2 3 "" "$work/bad"
pbad=$pid
start 2 3 badsecret
psec=$pid
wait $pbad; rbad=$?
tbad=$(($(date +%s) - t0))
mv "$work/out.2" "$work/out.damaged"
wait $psec; rsec=$?
tsec=$(($(date +%s) - t0))
start 1 3
p1=$pid
start 2 3
p2=$pid
wait $p0; r0=$?
wait $p1; r1=$?
wait $p2; r2=$?
for p in $busy; do kill "$p" 2>/dev/null; done
busy=""
if [ $rbad -ne 0 ] && [ $rbad -ne 124 ] && [ $tbad -le 10 ] && [ $rsec -ne 0 ] &&
    [ $rsec -ne 124 ] && [ $tsec -le 10 ] && [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] &&
    grep -qF "the unique id is damaged" "$work/out.damaged" &&
    grep -qF "refused rank 2 of 3: wrong secret" "$work/out.2badsecret" &&
    grep -qF "uid_boot: 3 processes passed" "$work/out.0"; then
    report ok "under load: a damaged id (${tbad} s) and a wrong secret (${tsec} s) refused, \
the job completes"
else
    report "damaged $rbad after ${tbad} s, wrong secret $rsec after ${tsec} s, ranks $r0 $r1 $r2" \
        "under load: damaged id and wrong secret refused, the job completes"
fi

# 4. The abort's text, on the process that ends the job as on the others:
#    shmem_global_exit(5) on the hub (PE 0) and on PE 1.
for pe in 0 1; do
    rm -f "$work"/id "$work"/out.*
    pids=""
    for r in 0 1; do
        env FABSHMEM_BOOTSTRAP=uid FABSHMEM_BOOTSTRAP_NRANKS=2 FABSHMEM_BOOTSTRAP_RANK=$r \
            FABSHMEM_BOOTSTRAP_UID_FILE="$work/id" timeout -k 5 "$tmo" "$bin/err_exit" \
            global_exit $pe 5 >"$work/out.$r" 2>&1 </dev/null &
        pids="$pids $!"
    done
    rcs=""
    for p in $pids; do wait "$p"; rcs="$rcs $?"; done
    other=$((1 - pe))
    if [ "$rcs" = " 5 5" ] &&
        grep -qxF "fabshmem: [PE $pe] job aborted by this PE (status 5): shmem_global_exit" \
            "$work/out.$pe" &&
        grep -q "^fabshmem: \[PE $other\] job aborted .*(status 5): shmem_global_exit$" \
            "$work/out.$other"; then
        report ok "shmem_global_exit(5) on PE $pe: the abort's text has its prefix on every PE"
    else
        report "exit statuses$rcs" "shmem_global_exit(5) on PE $pe: the prefix on every PE"
    fi
done

# 5. A joined peer (it holds the id) that breaks the protocol: the job
#    ends with a message naming it and what it sent.  (A stranger's bogus
#    hello is refused with its reason while the job goes on:
#    tests/init/uid_boot.sh.)
for m in result twogather; do
    rm -f "$work"/id "$work"/out.*
    start 0 3
    p0=$pid
    wait_file "$work/id"
    # twogather plays PE 1 too (silent: the hub's collective waits).
    r1=1
    [ $m = result ] && start 1 3 && p1=$pid
    timeout 60 "$attack" "$work/id" $m 2 3 >"$work/out.attack" 2>&1
    ra=$?
    wait $p0; r0=$?
    [ $m = result ] && { wait $p1; r1=$?; }
    case $m in
    result) text="PE 2 sent a bootstrap message of unexpected type 4" ;;
    *) text="PE 2 sent a second bootstrap collective message" ;;
    esac
    if [ $ra -eq 0 ] && [ $r0 -ne 0 ] && [ $r0 -ne 124 ] && [ $r1 -ne 0 ] && [ $r1 -ne 124 ] &&
        grep -qF "$text" "$work/out.0"; then
        report ok "a joined peer's $m frame ends the job: \"$text\""
    else
        report "attacker $ra, ranks $r0 $r1" "a joined peer's $m frame ends the job"
    fi
done

# 6. A flood of silent connections at a hub short of file descriptors
#    (ulimit -n 48): when accept() finds none, the oldest waiting connection
#    makes room (the hub used to spin on the listener until the waiting ones
#    timed out, 5 s a batch), so the real ranks get in, and the hub's one
#    line names the reason.
rm -f "$work"/id "$work"/out.*
# shellcheck disable=SC3045 # dash and bash have ulimit -n
(ulimit -n 48 && FABSHMEM_BOOTSTRAP_TIMEOUT=30 exec timeout -k 5 "$tmo" "$prog" 0 3 "$work/id") \
    >"$work/out.0" 2>&1 </dev/null &
p0=$!
wait_file "$work/id"
timeout 60 "$attack" "$work/id" flood 100 >"$work/out.attack" 2>&1 &
pa=$!
n=0
while ! grep -q "the hub closed one" "$work/out.attack" 2>/dev/null && [ $n -lt 300 ]; do
    sleep 0.1
    n=$((n + 1))
done
t0=$(date +%s)
start 1 3
p1=$pid
start 2 3
p2=$pid
wait $p0; r0=$?
wait $p1; r1=$?
wait $p2; r2=$?
tj=$(($(date +%s) - t0))
wait $pa; ra=$?
if [ $ra -eq 0 ] && [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] &&
    grep -q "x (the oldest of [0-9]* connections waiting for their hello, out of file \
descriptors)" "$work/out.0"; then
    report ok "a flood at a hub out of file descriptors: the oldest make room (${tj} s)"
else
    report "flooder $ra, ranks $r0 $r1 $r2 after ${tj} s" \
        "a flood at a hub out of file descriptors: the oldest make room"
fi

echo "uid_join: $npass passed, $nfail failed"
[ $nfail -eq 0 ] && [ $npass -gt 0 ]
