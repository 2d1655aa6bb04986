#!/bin/sh
# Nothing outside the job may write into a PE's memory (docs/design.md,
# "Trust model"): a 2-PE job on tcp (tests/init/mr_victim) fills canaries
# in its heap, .data and .bss; then tests/init/mr_attack, a plain libfabric
# process outside the job, connects to every TCP port each PE listens on
# and writes at each canary (as an offset from every start a registration
# could have, and as a virtual address) under the keys it would guess.
# Passes when every canary of every PE is intact.
#
# Environment: FABSHMEM_TEST_LAUNCHER as for tests/run.sh.  Skipped
# (status 77) without ss (iproute2) or the tcp provider.
here=$(dirname "$0")
launcher=${FABSHMEM_TEST_LAUNCHER:-"mpirun --allow-run-as-root --oversubscribe --bind-to none -n"}
if ! command -v ss >/dev/null 2>&1; then
    echo "SKIP mr_attack: no ss (iproute2) to find the PEs' ports"
    exit 77
fi
rc=0
for direct in 1; do
    dir=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-mr.XXXXXX")
    FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=$direct timeout 200 $launcher 2 \
        tests/init/mr_victim "$dir" >"$dir/job.out" 2>&1 &
    job=$!
    n=0
    while [ ! -f "$dir/pe0.info" ] || [ ! -f "$dir/pe1.info" ]; do
        n=$((n + 1))
        if [ $n -gt 600 ] || ! kill -0 $job 2>/dev/null; then
            echo "FAIL mr_attack: direct=$direct: the job did not start:"
            cat "$dir/job.out"
            rc=1
            break
        fi
        sleep 0.1
    done
    attacked=0
    for pe in 0 1; do
        [ -f "$dir/pe$pe.info" ] || continue
        read -r pid targets <"$dir/pe$pe.info"
        # Every IPv4 port the PE listens on (0.0.0.0 is reached at 127.0.0.1).
        for ep in $(ss -Hltnp 2>/dev/null | grep "pid=$pid," | awk '{print $4}' |
                    grep -E '^[0-9.]+:[0-9]+$' | sed 's/^0\.0\.0\.0:/127.0.0.1:/'); do
            ip=${ep%:*}
            port=${ep##*:}
            echo "mr_attack: direct=$direct: PE $pe (pid $pid) listens on $ip:$port"
            tests/init/mr_attack "$ip" "$port" $targets >"$dir/attack.out" 2>&1
            st=$?
            grep -v '^libfabric:' "$dir/attack.out"
            [ $st -eq 77 ] && { touch "$dir/done"; wait $job; rm -rf "$dir"; exit 77; }
            [ $st -eq 0 ] || rc=1
            attacked=$((attacked + 1))
        done
    done
    if [ $attacked -eq 0 ] && [ $rc -eq 0 ]; then
        echo "FAIL mr_attack: direct=$direct: found no port of the PEs to attack"
        rc=1
    fi
    touch "$dir/done"
    wait $job
    st=$?
    if [ $st -ne 0 ]; then
        echo "FAIL mr_attack: direct=$direct: the job's memory changed or it failed (status $st):"
        tail -20 "$dir/job.out"
        rc=1
    elif [ $attacked -gt 0 ]; then
        echo "PASS mr_attack: direct=$direct: $attacked endpoints attacked, every canary intact"
    fi
    rm -rf "$dir"
done
exit $rc
