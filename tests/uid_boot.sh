#!/bin/sh
# The unique-id bootstrap: processes started by this plain shell script (no
# launcher, no PMIx) join with the id passed in a file, over the provider
# and direct-path matrix; then a process with a wrong secret is refused
# while the real job completes; then a process that exits without
# shmem_finalize ends the job with an error instead of a hang.
#
# Environment: NPROCS_LIST (default "1 2 3 4"), TEST_PROVIDERS ("shm tcp"),
# TEST_MODES ("direct nodirect vnode"), TEST_TIMEOUT (default 60 s).
#
#   tests/uid_boot.sh [PROG [ARGS...]]
# Each rank runs PROG ARGS... RANK NRANKS IDFILE [MODE] (default PROG:
# tests/uid_boot; tests/examples.sh passes examples/walkthrough --uid).  The
# wrong-secret and dead-rank checks need tests/uid_boot's modes.

prog=${1:-tests/uid_boot}
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
    timeout -k 5 "$tmo" "$prog" 1 3 "$work/id" >"$work/out.1" 2>&1 &
    p1=$!
    timeout -k 5 "$tmo" "$prog" 2 3 "$work/id" >"$work/out.2" 2>&1 &
    p2=$!
    wait $p0; r0=$?
    wait $p1; r1=$?
    wait $p2; r2=$?
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

echo "$name (unique id): $npass passed, $nfail failed"
[ $nfail -eq 0 ] && [ $npass -gt 0 ]
