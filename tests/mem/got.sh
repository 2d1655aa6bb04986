#!/bin/sh
# The GOT is never symmetric, however the program is linked
# (tests/mem/got.c): got_nrn (-z norelro -z now), got_nrl (-z norelro
# -z lazy) and got_lazy (-z lazy, partial RELRO), each at 2 PEs on shm
# with the direct path and on tcp without it (the transport's
# registration).  Environment: FABSHMEM_TEST_LAUNCHER as for tests/run.sh.
# The programs are built in the build tree (the current directory under
# make check), else beside this script.
if [ -x tests/mem/got_nrn ]; then
    here=tests/mem
else
    here=$(dirname "$0")
fi
# Sanitizer builds: libpmix's known leak is not ours.
tests_dir=$(dirname "$0")/..
. "$tests_dir/lsan_default.sh"
launcher=${FABSHMEM_TEST_LAUNCHER:-"mpirun --allow-run-as-root --oversubscribe --bind-to none -n"}
out=$(mktemp "${TMPDIR:-/tmp}/fabshmem-got.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT INT TERM
rc=0
for prog in got_nrn got_nrl got_lazy; do
    for cfg in "shm 1" "tcp 0"; do
        set -- $cfg
        if FABSHMEM_PROVIDER=$1 FABSHMEM_DIRECT=$2 timeout -k 10 120 $launcher 2 \
            "$here/$prog" >"$out" 2>&1 </dev/null && grep -q "PASS" "$out"; then
            echo "PASS $prog (FABSHMEM_PROVIDER=$1 FABSHMEM_DIRECT=$2): $(grep -m1 'checked' "$out")"
        else
            echo "FAIL $prog (FABSHMEM_PROVIDER=$1 FABSHMEM_DIRECT=$2):"
            tail -n 15 "$out" | sed 's/^/    | /'
            rc=1
        fi
    done
done
exit $rc
