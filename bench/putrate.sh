#!/bin/sh
# Blocking against non-blocking puts: bench/msg_rate's message rate of
# windows of shmem_putmem (-b) and of shmem_putmem_nbi, each window closed
# by shmem_quiet, at each size, for one build tree or two (before and
# after), run alternately (tree A nbi, A blocking, B nbi, B blocking, ...)
# so that the machine's noise falls on all of them; one Markdown table of
# medians: the rates and blocking / non-blocking per tree, and with two
# trees B / A of the blocking rate.
#
#   bench/putrate.sh [-n RUNS] [-p NP] [-s 'SIZES'] [-a 'ARGS'] [-f PROVIDER] A_BUILDDIR [B_BUILDDIR]
#
# SIZES: bytes, default "64 128 256 512 1024 2048 4096 8192 16384 65536".
# ARGS go to every msg_rate run (say "-r 5 -t 20").  The environment
# (FABSHMEM_PROVIDER, FABSHMEM_DIRECT, ...) is passed through.  Used by
# bench/report.sh (section putrate) and for docs/performance.md's before
# and after.  -f adds libfabric's own figure for the same provider in the
# same run: fi_pingpong -p PROVIDER (say 'tcp;ofi_rxm') over loopback, one
# message at a time, its microseconds per message (one way), the median
# of RUNS runs at each size.  Exit status 0, or 1 when a run failed.
runs=5
np=2
sizes="64 128 256 512 1024 2048 4096 8192 16384 65536"
args=""
fprov=""
while getopts n:p:s:a:f: o; do
    case $o in
    n) runs=$OPTARG ;;
    p) np=$OPTARG ;;
    s) sizes=$OPTARG ;;
    a) args=$OPTARG ;;
    f) fprov=$OPTARG ;;
    *) echo "usage: $0 [-n RUNS] [-p NP] [-s SIZES] [-a ARGS] [-f PROVIDER] A_BUILDDIR [B_BUILDDIR]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: $0 [-n RUNS] [-p NP] [-s SIZES] [-a ARGS] A [B]" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
# pingpong SIZE: fi_pingpong's microseconds per message at SIZE over
# loopback (a server in the background, the client beside it).
pingpong() {
    timeout 60 fi_pingpong -p "$fprov" -e rdm -I 1000 -S "$1" >/dev/null 2>&1 &
    spid=$!
    sleep 0.5
    timeout 60 fi_pingpong -p "$fprov" -e rdm -I 1000 -S "$1" 127.0.0.1 2>/dev/null |
        awk -v s="$1" '$1 != "bytes" && $7 ~ /^[0-9.]+$/ { print "P fi_pingpong", s, $7, "us"; exit }'
    wait $spid
}
i=0
while [ $i -lt "$runs" ]; do
    for size in $sizes; do
        if [ -n "$fprov" ]; then
            pingpong "$size" >>"$out" || rc=1
        fi
        for side in A B; do
            if [ $side = A ]; then dir=$1; else dir=${2:-}; fi
            [ -n "$dir" ] || continue
            for flag in "" -b; do
                # shellcheck disable=SC2086
                timeout 300 "$dir/scripts/oshrun" -n "$np" "$dir/bench/msg_rate" -m "$size" $flag $args \
                    2>/dev/null |
                    awk -v s=$side 'NF == 4 && $3 ~ /^[0-9.]+$/ && $1 !~ /^#/ { print s, $1, $2, $3, $4 }' \
                    >>"$out" || rc=1
            done
        done
    done
    i=$((i + 1))
done
/usr/bin/python3 - "$out" "$runs" "$@" <<'EOF'
import collections, statistics, sys
v = collections.defaultdict(list)
sizes = []
for line in open(sys.argv[1]):
    side, name, size, value, unit = line.split()
    size = int(size)
    if size not in sizes:
        sizes.append(size)
    v[(side, name, size)].append(float(value) * (1e3 if unit == "Mmsg/s" else 1))  # -> kmsg/s
runs, trees = sys.argv[2], sys.argv[3:]
med = lambda side, name, size: statistics.median(v[(side, name, size)]) if v[(side, name, size)] else None
def fmt(x):
    return "-" if x is None else f"{x:.3g}"
def ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.2f}"
label = lambda s: "after" if (s == "B") else ("before" if len(trees) == 2 else "")
print(f"msg_rate, windows of 64 puts + shmem_quiet, kmsg/s (thousands of puts a second); "
      f"medians of {runs} runs" + (", the trees alternated" if len(trees) == 2 else "") + ".")
if len(trees) == 2:
    print(f"A (before): {trees[0]}; B (after): {trees[1]}.")
print()
head = "| size |"
rule = "|---:|"
for s in (["A", "B"] if len(trees) == 2 else ["A"]):
    l = label(s)
    l = f" {l}" if l else ""
    head += f" nbi{l} | blocking{l} | blocking / nbi{l} |"
    rule += "---:|---:|---:|"
if len(trees) == 2:
    head += " blocking after / before |"
    rule += "---:|"
pp = any(k[0] == "P" for k in v)
if pp:
    head += " fi_pingpong, us per message |"
    rule += "---:|"
print(head)
print(rule)
for size in sorted(sizes):
    row = f"| {size} |"
    for s in (["A", "B"] if len(trees) == 2 else ["A"]):
        n, b = med(s, "msg_rate", size), med(s, "msg_rate_put", size)
        row += f" {fmt(n)} | {fmt(b)} | {ratio(b, n)} |"
    if len(trees) == 2:
        row += f" {ratio(med('B', 'msg_rate_put', size), med('A', 'msg_rate_put', size))} |"
    if pp:
        row += f" {fmt(med('P', 'fi_pingpong', size))} |"
    print(row)
EOF
exit $rc
