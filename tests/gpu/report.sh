#!/bin/sh
# The GPU run report (bench/gpu/report.py, docs/gpu.md "Results") on
# real output lines of earlier runs, kept in tests/gpu/report/: a (the
# summaries of tests/gpu/run.sh with a failure and a forced algorithm's
# summary, gpu_put_bw beside NVSHMEM's anchor, a build log to skip) and b
# (gpu_stream_bench, NVSHMEM, NCCL, the forced algorithms and the
# host-buffer runs) and c (the device API: gpu_device's summaries with and
# without MPS and the killed peer, gpu_device_bench) and d (two GPUs: the
# device API beside the same program built against NVSHMEM, and FI_HMEM
# runs that failed).  The tables must be a.md to d.md exactly, so a
# change of the formats that the scripts print, or of the parsing, fails
# here; then its --doc mode and its refusals.  Runs on any machine
# (python3, the standard library only).
srcdir=${srcdir:-.}
py=${PYTHON:-python3}
command -v "$py" >/dev/null 2>&1 || { echo "SKIP: no $py"; exit 77; }
rep="$py $srcdir/bench/gpu/report.py"
fix=$srcdir/tests/gpu/report
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-gpu-report.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
check() { # NAME ARGS...: the table of the fixture NAME must be NAME.md
    n=$1; shift
    if ! $rep "$@" "$fix/$n" >"$tmp/$n.md"; then
        echo "FAIL report.py on $n exited $?"; fail=1
    elif ! diff -u "$fix/$n.md" "$tmp/$n.md"; then
        echo "FAIL report.py on $n: the table differs from $n.md (above)"; fail=1
    else
        echo "PASS report.py on $n"
    fi
}
check a --title "Fixture a"
check b --title "Fixture b" --date 2026-11-26
check c --title "Fixture c" --date 2026-11-29
check d --title "Fixture d" --date 2026-11-29
grep -q '^| p + wait_until ping-pong, half round trip | 4 B | 0.836 | 1.238 (1.238, 1.238) | 0.68 | 1.00: met | 0.732 / 0.726 |' "$tmp/d.md" &&
    grep -q '^| putmem_block, 132 blocks | 4 KiB | 5.263 | 5.243 (5.076, 5.410) | 1.00 |  |' "$tmp/d.md" &&
    grep -q '^| fetch_add (uint64) latency | | 0.960 | 0.881 | 1.09 | 1.20: met | |' "$tmp/d.md" &&
    grep -q '^| gpu_rma | pass 0.9 s | \*\*FAIL\*\* 0.8 s | \*\*FAIL\*\* 0.7 s |' "$tmp/d.md" &&
    ! grep -q 'host buffers' "$tmp/d.md" ||
    { echo "FAIL report.py: a cell of the NVSHMEM comparison's fixture is not as expected"; fail=1; }
grep -q '^| float sum_reduce_block, 1 block | 1 MiB | 99.638 | 93.388 | 1.07 | plain kernel, 1 block |' "$tmp/c.md" &&
    grep -q '^| mps | 4 | 7.30 |' "$tmp/c.md" &&
    grep -q '^| gpu_device | pass 2.6 s | pass 3.0 s | pass 14.9 s | pass 0.9 s | pass 3.7 s | pass 6.0 s |' "$tmp/c.md" ||
    { echo "FAIL report.py: a cell of the device API's fixture is not as expected"; fail=1; }
# Cells read from the lines, not only the whole: the failure, the ratios.
grep -q '^| gpu_stream | \*\*FAIL\*\* 1.2 s |' "$tmp/a.md" &&
    grep -q '^tests/gpu/run.sh: 3 passed, 1 failed, 0 skipped' "$tmp/a.md" &&
    grep -q '^| 256 MiB | 391.1 | 387.8 | 394.5 | 395.43 (395.44, 395.42) | 1.01 | 0.99 |' "$tmp/a.md" &&
    grep -q '^| put with signal + wait, half round trip | 8 B | 8.37 us | 10.50 (10.20, 10.80) | 0.80 |' "$tmp/b.md" &&
    grep -q '^| put with signal, a stream of them | 8 B | 92.2 | 75.5 | 58.7 | 1.22 |' "$tmp/b.md" ||
    { echo "FAIL report.py: a cell checked by name is not as expected"; fail=1; }
# --doc: only the text between the markers is replaced.
printf 'before\n<!-- BEGIN generated: gpu-a -->\nold\n<!-- END generated: gpu-a -->\nafter\n' >"$tmp/page.md"
$rep --title "Fixture a" --doc "$tmp/page.md" --name gpu-a "$fix/a" &&
    { echo before; echo '<!-- BEGIN generated: gpu-a -->'; cat "$fix/a.md"; echo '<!-- END generated: gpu-a -->'; echo after; } |
    diff -u - "$tmp/page.md" && echo "PASS report.py --doc" ||
    { echo "FAIL report.py --doc"; fail=1; }
# Refusals: a folder without output, a page without the markers.
mkdir "$tmp/empty"
if $rep "$tmp/empty" >"$tmp/out" 2>&1 || ! grep -q "no .txt output" "$tmp/out"; then
    echo "FAIL report.py on an empty folder:"; cat "$tmp/out"; fail=1
fi
if $rep --doc "$tmp/empty/none.md" --name x "$fix/a" >"$tmp/out" 2>&1; then
    echo "FAIL report.py --doc on a missing page succeeded"; fail=1
fi
echo "x" >"$tmp/nomark.md"
if $rep --doc "$tmp/nomark.md" --name x "$fix/a" >"$tmp/out" 2>&1 || ! grep -q "has no" "$tmp/out"; then
    echo "FAIL report.py --doc without markers:"; cat "$tmp/out"; fail=1
fi
exit $fail
