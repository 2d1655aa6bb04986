#!/bin/sh
# The examples as tests.  examples/walkthrough checks every step and exits
# non-zero on a wrong value; it runs here once per bootstrap:
#   - PMIx: under the launcher, over the usual matrix at 1 to 4 PEs;
#   - unique id: NP processes started by a plain shell loop (no launcher,
#     no PMIx), rank 0 handing the id to the others in a file, over the
#     providers and modes of TEST_PROVIDERS and TEST_MODES (direct,
#     nodirect, vnode);
#   - MPI: examples/walkthrough_mpi (built when configure found MPI) boots
#     over MPI_COMM_WORLD, under the launcher at 1 to 4 PEs.
# Prints "N passed, N failed" last; exit status 0 when all passed.
here=$(dirname "$0")
nplist=${NPROCS_LIST-"1 2 3 4"}
provs=${TEST_PROVIDERS-"shm tcp"}
modes=${TEST_MODES-"direct nodirect vnode"}
rc=0

NPROCS_LIST=$nplist TEST_SMOKE=${TEST_SMOKE-""} sh "$here/run.sh" examples/walkthrough || rc=1

# The unique-id runs.
tmo=${TEST_TIMEOUT:-120}
work=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-ex.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
npass=0
nfail=0
for np in $nplist; do
    for prov in $provs; do
        for mode in $modes; do
            case $mode in
            direct) e="FABSHMEM_DIRECT=1" ;;
            nodirect) e="FABSHMEM_DIRECT=0" ;;
            vnode) e="FABSHMEM_PES_PER_NODE=2" ;;
            *) continue ;;
            esac
            rm -f "$work/id" "$work"/out.*
            pids=""
            r=0
            while [ "$r" -lt "$np" ]; do
                # shellcheck disable=SC2086
                env FABSHMEM_PROVIDER="$prov" $e timeout -k 5 "$tmo" examples/walkthrough \
                    --uid "$r" "$np" "$work/id" >"$work/out.$r" 2>&1 </dev/null &
                pids="$pids $!"
                r=$((r + 1))
            done
            bad=""
            for p in $pids; do
                wait "$p" || bad="$bad $?"
            done
            cfg="np=$np prov=$prov mode=$mode"
            if [ -z "$bad" ] && grep -q "^1. init by a unique id" "$work/out.0" &&
                grep -q "all checks passed" "$work/out.0"; then
                echo "PASS walkthrough --uid $cfg"
                npass=$((npass + 1))
            else
                echo "FAIL walkthrough --uid $cfg: exit statuses$bad"
                tail -n "${TEST_TAIL:-20}" "$work"/out.*
                nfail=$((nfail + 1))
            fi
        done
    done
done
echo "walkthrough --uid: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ] || rc=1

if [ -x examples/walkthrough_mpi ]; then
    NPROCS_LIST=$nplist TEST_SMOKE="" sh "$here/run.sh" examples/walkthrough_mpi || rc=1
else
    echo "SKIP walkthrough_mpi: configure found no MPI"
fi
[ "$rc" -eq 0 ] && echo "examples: all passed" || echo "examples: some failed"
exit "$rc"
