#!/bin/sh
# Before and after: the same benchmarks of two fabshmem build trees, run
# alternately (A, B, A, B, ...) so that the machine's noise falls on both,
# and printed as one Markdown table of medians with the ratio B/A (for
# latencies, below 1 is faster; for rates, above 1 is faster).
#
#   bench/ab.sh [-n PAIRS] [-p NP] [-b 'amo_lat sync_lat'] [-a 'ARGS'] A_BUILDDIR B_BUILDDIR
#
# Each build tree's own bench/ programs and scripts/oshrun are used;
# the environment (FABSHMEM_PROVIDER, FABSHMEM_DIRECT, ...) is passed
# through to both.  A line of a benchmark's output "NAME SIZE VALUE UNIT"
# is one row.  Exit status 0, or 1 when a run failed.
pairs=5
np=2
benches="amo_lat sync_lat"
args=""
while getopts n:p:b:a: o; do
    case $o in
    n) pairs=$OPTARG ;;
    p) np=$OPTARG ;;
    b) benches=$OPTARG ;;
    a) args=$OPTARG ;;
    *) echo "usage: $0 [-n PAIRS] [-p NP] [-b BENCHES] [-a ARGS] A_BUILDDIR B_BUILDDIR" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: $0 [-n PAIRS] [-p NP] [-b BENCHES] [-a ARGS] A B" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
i=0
while [ $i -lt "$pairs" ]; do
    for side in A B; do
        [ $side = A ] && dir=$1 || dir=$2
        for b in $benches; do
            # shellcheck disable=SC2086
            timeout 300 "$dir/scripts/oshrun" -n "$np" "$dir/bench/$b" $args 2>/dev/null |
                awk -v s=$side 'NF == 4 && $3 ~ /^[0-9.]+$/ && $1 !~ /^#/ { print s, $1, $2, $3, $4 }' \
                >>"$out" || rc=1
        done
    done
    i=$((i + 1))
done
/usr/bin/python3 - "$out" "$1" "$2" "$pairs" <<'EOF'
import collections, statistics, sys
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    side, name, size, value, unit = line.split()
    rows.setdefault((name, size, unit), {"A": [], "B": []})[side].append(float(value))
print(f"A: {sys.argv[2]}, B: {sys.argv[3]}; {sys.argv[4]} runs of each, alternated; medians.\n")
print("| benchmark | size | A | B | B/A |")
print("|---|---|---:|---:|---:|")
for (name, size, unit), v in rows.items():
    if not v["A"] or not v["B"]:
        continue
    a, b = statistics.median(v["A"]), statistics.median(v["B"])
    print(f"| {name} | {size} | {a:.3g} {unit} | {b:.3g} {unit} | {b / a:.2f} |")
EOF
exit $rc
