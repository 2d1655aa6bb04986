#!/bin/sh
# Nothing outside the job may write into a PE's memory
# (docs/design/trust.md): a 2-PE job on tcp (tests/init/mr_victim) fills canaries
# in its heap, .data and .bss; then tests/init/mr_attack, a plain libfabric
# process outside the job, connects to every TCP port each PE listens on
# and writes at each canary (as an offset from every start a registration
# could have, and as a virtual address) under the keys it would guess.
# Passes when every canary of every PE is intact, and when every port the
# PEs listen on is on loopback (all PEs run on this host); then once more
# with FABSHMEM_IFACE naming the first other interface with an IPv4
# address, if there is one: every port on that address.
#
# Environment: FABSHMEM_TEST_LAUNCHER as for tests/run.sh.  Skipped
# (status 77) without ss (iproute2) or the tcp provider.
here=$(dirname "$0")
# Sanitizer builds: libpmix's known leak is not ours.
tests_dir=$here/..
. "$tests_dir/lsan_default.sh"
launcher=${FABSHMEM_TEST_LAUNCHER:-"mpirun --allow-run-as-root --oversubscribe --bind-to none -n"}
if ! command -v ss >/dev/null 2>&1; then
    echo "SKIP mr_attack: no ss (iproute2) to find the PEs' ports"
    exit 77
fi
rc=0
# The first interface but loopback with an IPv4 address, and that address.
ext=$(ip -o -4 addr show 2>/dev/null | awk '$2 != "lo" { sub(/\/.*/, "", $4); print $2, $4; exit }')
for iface in "" ${ext%% *}; do
    if [ -n "$iface" ]; then
        want=${ext#* }
        what="FABSHMEM_IFACE=$iface"
    else
        want=127.0.0.1
        what="one host"
    fi
    dir=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-mr.XXXXXX")
    FABSHMEM_IFACE=$iface FABSHMEM_PROVIDER=tcp timeout 200 $launcher 2 \
        tests/init/mr_victim "$dir" >"$dir/job.out" 2>&1 &
    job=$!
    n=0
    while [ ! -f "$dir/pe0.info" ] || [ ! -f "$dir/pe1.info" ]; do
        n=$((n + 1))
        if [ $n -gt 600 ] || ! kill -0 $job 2>/dev/null; then
            echo "FAIL mr_attack: $what: the job did not start:"
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
        # Every port the PE listens on: on the address wanted, and attacked
        # (0.0.0.0 is reached at 127.0.0.1).
        for ep in $(ss -Hltnp 2>/dev/null | grep "pid=$pid," | awk '{print $4}'); do
            ip=${ep%:*}
            port=${ep##*:}
            echo "mr_attack: $what: PE $pe (pid $pid) listens on $ip:$port"
            if [ "$ip" != "$want" ]; then
                echo "FAIL mr_attack: $what: PE $pe listens on $ip, not on $want"
                rc=1
            fi
            case $ip in
            0.0.0.0) ip=127.0.0.1 ;;
            *[!0-9.]*) continue ;;
            esac
            tests/init/mr_attack "$ip" "$port" $targets >"$dir/attack.out" 2>&1
            st=$?
            grep -v '^libfabric:' "$dir/attack.out"
            [ $st -eq 77 ] && { touch "$dir/done"; wait $job; rm -rf "$dir"; exit 77; }
            [ $st -eq 0 ] || rc=1
            attacked=$((attacked + 1))
        done
    done
    if [ $attacked -eq 0 ] && [ $rc -eq 0 ]; then
        echo "FAIL mr_attack: $what: found no port of the PEs to attack"
        rc=1
    fi
    touch "$dir/done"
    wait $job
    st=$?
    if [ $st -ne 0 ]; then
        echo "FAIL mr_attack: $what: the job's memory changed or it failed (status $st):"
        tail -20 "$dir/job.out"
        rc=1
    elif [ $attacked -gt 0 ]; then
        echo "PASS mr_attack: $what: $attacked endpoints attacked, every canary intact"
    fi
    rm -rf "$dir"
done
exit $rc
