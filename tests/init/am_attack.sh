#!/bin/sh
# Nothing outside the job may send it active messages
# (docs/design/trust.md): a 2-PE job on tcp with the direct path off
# (tests/init/am_victim), whose AMOs are fabshmem's own active messages,
# is attacked by tests/init/am_attack, a plain libfabric process that
# knows the wire format and the canaries' offsets but not the PEs' keys:
#   - forged AMOs, a forged put with signal, forged replies naming every
#     slot and stream in their first generations, the old format's
#     replies whose token was an address, malformed messages, to every
#     port each PE listens on;
#   - where it may capture loopback traffic (CAP_NET_RAW), the job's own
#     message (PE 1's add to PE 0) captured and replayed to both PEs.
# Passes when the PEs' memory holds exactly what the job itself wrote
# (am_victim checks), the job goes on and ends well, each PE reported a
# dropped message once, and PE 0 named the replay as one.
#
# Environment: FABSHMEM_TEST_LAUNCHER as for tests/run.sh.  Skipped
# (status 77) without ss (iproute2) or the tcp provider.
here=$(dirname "$0")
# Sanitizer builds: libpmix's known leak is not ours.
tests_dir=$here/..
. "$tests_dir/lsan_default.sh"
launcher=${FABSHMEM_TEST_LAUNCHER:-"mpirun --allow-run-as-root --oversubscribe --bind-to none -n"}
if ! command -v ss >/dev/null 2>&1; then
    echo "SKIP am_attack: no ss (iproute2) to find the PEs' ports"
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-am.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL am_attack: $*"; rc=1; }
rc=0
SHMEM_DEBUG=1 FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=0 timeout 200 $launcher 2 \
    "$here/am_victim" "$dir" >"$dir/job.out" 2>&1 &
job=$!
n=0
while [ ! -f "$dir/pe0.info" ] || [ ! -f "$dir/pe1.info" ]; do
    n=$((n + 1))
    if [ $n -gt 600 ] || ! kill -0 $job 2>/dev/null; then
        echo "FAIL am_attack: the job did not start:"
        tail -20 "$dir/job.out"
        touch "$dir/go1" "$dir/go2"
        wait $job
        exit 1
    fi
    sleep 0.1
done
# Every port each PE listens on.
ports() {
    read -r pid rest <"$dir/pe$1.info"
    ss -Hltnp 2>/dev/null | grep "pid=$pid," | awk '{print $4}' | sed 's/^0\.0\.0\.0:/127.0.0.1:/'
}
attacked=0
for pe in 0 1; do
    for ep in $(ports $pe); do
        "$here/am_attack" forge "$dir" $pe "${ep%:*}" "${ep##*:}" >"$dir/attack.out" 2>&1
        st=$?
        grep -v '^libfabric:' "$dir/attack.out"
        if [ $st -eq 77 ]; then
            touch "$dir/go1" "$dir/go2"; wait $job; exit 77
        fi
        [ $st -eq 0 ] || fail "am_attack forge failed (status $st)"
        attacked=$((attacked + 1))
    done
done
[ $attacked -gt 0 ] || fail "found no port of the PEs to attack"
# Capture the job's own message, then replay it.
"$here/am_attack" capture "$dir" >"$dir/capture.out" 2>&1 &
cap=$!
n=0
while [ ! -f "$dir/capturing" ] && kill -0 $cap 2>/dev/null && [ $n -lt 100 ]; do
    n=$((n + 1))
    sleep 0.1
done
touch "$dir/go1"
wait $cap
capst=$?
cat "$dir/capture.out"
replayed=0
if [ $capst -eq 0 ]; then
    for pe in 0 1; do
        for ep in $(ports $pe); do
            "$here/am_attack" replay "$dir" "${ep%:*}" "${ep##*:}" 2>&1 | grep -v '^libfabric:'
        done
    done
    replayed=1
elif [ $capst -ne 77 ]; then
    fail "the capture of the job's own message failed (status $capst)"
fi
touch "$dir/go2"
wait $job
st=$?
if [ $st -ne 0 ]; then
    fail "the job's memory changed or it failed (status $st):"
    grep -v 'debug' "$dir/job.out" | tail -20
fi
n=$(grep -c "ofi: dropped an active message.*further ones are dropped" "$dir/job.out")
[ "$n" = 2 ] || fail "$n PEs reported their first dropped message, not 2 (once each)"
grep -q "failed authentication" "$dir/job.out" || fail "no forgery was refused as such"
if [ $replayed = 1 ]; then
    grep -q "a replay (number seen before)" "$dir/job.out" ||
        fail "PE 0 did not refuse the replayed message as a replay"
fi
if [ $rc = 0 ]; then
    echo "PASS am_attack: $attacked endpoints attacked$([ $replayed = 1 ] && echo ", the job's own message replayed"), memory intact, the job went on"
fi
exit $rc
