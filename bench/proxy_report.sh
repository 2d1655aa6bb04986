#!/bin/sh
# The proxy's table of docs/device.md ("The proxy"): bench/proxy_lat on 2
# PEs for each provider with the direct path off (every request crosses the
# provider, as for another node) and shm with it on, then the idle cost for
# three values of FABSHMEM_PROXY_SLEEP.  Prints markdown; run from the build
# tree: sh bench/proxy_report.sh > out.md
launcher=${FABSHMEM_TEST_LAUNCHER:-"mpirun --allow-run-as-root --oversubscribe --bind-to none -n"}
bin=${PROXY_LAT:-bench/proxy_lat}
tmp=$(mktemp "${TMPDIR:-/tmp}/proxy_report.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT INT TERM

val() { awk -v n="$1" -v s="$2" '$1 == n && $2 == s { print $3 }' "$tmp"; }

echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores."
echo
echo "| provider, direct path | put 8 B: host / proxy (us) | ratio | put 256 KiB: host / proxy (us) | ratio | fetch_add: host / proxy (us) | P after 1 s idle: host / proxy (us, median of 5) |"
echo "|---|---|---|---|---|---|---|"
for cfg in "shm 0" "tcp 0" "shm 1"; do
    set -- $cfg
    FABSHMEM_PROVIDER=$1 FABSHMEM_DIRECT=$2 $launcher 2 "$bin" >"$tmp" 2>&1 || { cat "$tmp"; exit 1; }
    echo "| $1, $([ "$2" = 1 ] && echo on || echo off) | $(val host_put_lat 8) / $(val proxy_put_lat 8) | $(val proxy_put_ratio 8) | $(val host_put_lat 262144) / $(val proxy_put_lat 262144) | $(val proxy_put_ratio 262144) | $(val host_fadd_lat 8) / $(val proxy_fadd_lat 8) | $(val host_idle_lat 8) / $(val proxy_idle_lat 8) |"
done
echo
echo "| FABSHMEM_PROXY_SLEEP (us) | idle wake-ups per second | idle CPU (% of a core) | P after 1 s idle (us, median / worst of 5) | after 10 s idle: wake-ups per second | CPU (%) | P after 14 s idle (us) | the same after shmemx_device_check (us) |"
echo "|---|---|---|---|---|---|---|---|"
for cap in 100 1000 10000; do
    FABSHMEM_PROXY_SLEEP=$cap FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=0 $launcher 2 "$bin" idle >"$tmp" 2>&1 ||
        { cat "$tmp"; exit 1; }
    echo "| $cap | $(val proxy_idle_wakeups 0) | $(val proxy_idle_cpu 0) | $(val proxy_idle_lat 8) / $(val proxy_idle_lat_max 8) | $(val proxy_deep_wakeups 0) | $(val proxy_deep_cpu 0) | $(val proxy_deep_lat 8) | $(val proxy_kick_lat 8) |"
done
