#!/bin/bash
# A launcher without a launcher: starts NP copies of a program with a plain
# shell loop, each booting by unique id from its environment
# (FABSHMEM_BOOTSTRAP=uid: rank 0 writes the id to a file in a private
# directory, the others read it there).  It takes the arguments of
# `mpirun -n`, so that tests/run.sh can use it:
#
#   tests/uid_launch.sh NP PROG [ARGS...]
#   FABSHMEM_TEST_LAUNCHER=tests/uid_launch.sh tests/run.sh tests/coll/coll
#
# As a launcher does, it ends the others when one process fails (they would
# end by themselves, but only once the bootstrap notices), and exits with
# the first failing status, 77 when every process skipped, 0 otherwise.
# The processes inherit the caller's environment (FABSHMEM_PROVIDER, ...).

if [ $# -lt 2 ]; then
    echo "usage: $0 NP PROG [ARGS...]" >&2
    exit 2
fi
np=$1
shift
case $np in '' | *[!0-9]*) echo "$0: NP must be a number, not '$np'" >&2; exit 2 ;; esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-uid.XXXXXX") || exit 1
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' INT TERM

export FABSHMEM_BOOTSTRAP=uid FABSHMEM_BOOTSTRAP_NRANKS=$np
export FABSHMEM_BOOTSTRAP_UID_FILE=$dir/id
for ((r = 0; r < np; r++)); do
    FABSHMEM_BOOTSTRAP_RANK=$r "$@" &
    pids+=("$!")
done

rc=0
nskip=0
# A process that is gone is waited for by its pid, which gives its status
# even when bash reaped it already (wait -n loses all but one of processes
# that end together: a host that dies takes several).
while [ ${#pids[@]} -gt 0 ]; do
    sleep 0.05
    for i in "${!pids[@]}"; do
        kill -0 "${pids[$i]}" 2>/dev/null && continue
        wait "${pids[$i]}"
        st=$?
        # Forget the finished one, so that cleanup leaves its pid alone.
        unset 'pids[i]'
        if [ "$st" -eq 77 ]; then
            nskip=$((nskip + 1))
        elif [ "$st" -ne 0 ] && [ "$rc" -eq 0 ]; then
            rc=$st
            for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
        fi
    done
done
if [ "$rc" -eq 0 ] && [ "$nskip" -eq "$np" ]; then
    rc=77
fi
exit "$rc"
