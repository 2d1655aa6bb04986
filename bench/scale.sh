#!/bin/bash
# How fabshmem's costs grow with the number of PEs: runs bench/scale (init
# time and its PMIx part, first contact, shmem_malloc of 1 MiB, barrier and
# 8-byte fcollect latency, resident memory per PE) at each PE count, on one
# host and spread over the hosts of tests/cluster/cluster.sh, fits how each
# grows and predicts 1,024 and 16,384 PEs.
#
#   bench/scale.sh [options]
#     --nps "2 4 8 16 32 64"   PE counts (default)
#     --hosts "1 4"            host layouts: PEs on 1 host, or in blocks on N
#                              hosts of the cluster (a layout N > 1 needs
#                              network namespaces: root and iproute2;
#                              without them it is left out, with a note)
#     --prov tcp               FABSHMEM_PROVIDER (default tcp)
#     --reps N                 repetitions per measurement (default 3)
#     --out DIR                where scale.dat, scale.md and the plots go
#                              (default: a new directory under $TMPDIR)
#     --timeout SEC            limit of each run (default 900)
#     --refit DIR              measure nothing: fit and plot DIR/scale.dat
#                              again (DIR/scale.md, the plots)
#
# Run from a build tree (bench/scale is built by `make`).  scale.dat holds
# "HOSTS NPES METRIC VALUE UNIT" lines; scale.md the tables and fits (what
# docs/performance.md shows; bench/report.sh copies them there); the plots
# are scale_time.png and scale_memory.png (gnuplot, when installed).

set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/.." && pwd)
builddir=${FABSHMEM_BUILDDIR:-$PWD}
nps="2 4 8 16 32 64"
layouts="1 4"
prov=tcp
reps=3
out=
tlimit=900
refit=

while [ $# -gt 0 ]; do
    case $1 in
    --nps) nps=$2; shift 2 ;;
    --hosts) layouts=$2; shift 2 ;;
    --prov) prov=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --timeout) tlimit=$2; shift 2 ;;
    --refit) refit=$2; shift 2 ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "scale.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

die() {
    echo "scale.sh: $*" >&2
    exit 1
}

if [ -n "$refit" ]; then
    out=$refit
    [ -f "$out/scale.dat" ] || die "--refit: no $out/scale.dat"
    layouts=
    nps=
fi
prog=$builddir/bench/scale
[ -n "$refit" ] || [ -x "$prog" ] || die "no $prog (run make in the build tree, or set FABSHMEM_BUILDDIR)"
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-scale.XXXXXX") || die "no work directory"
mkdir -p "$out" || die "cannot make $out"
dat=$out/scale.dat
[ -n "$refit" ] || : >"$dat"

# The PMIx timing shim (bench/pmix_time.c), where PMIx's headers are.
shim=$out/pmix_time.so
if ! cc -O2 -shared -fPIC $(pkg-config --cflags pmix 2>/dev/null) -o "$shim" "$here/pmix_time.c" \
    -ldl >"$out/shim.log" 2>&1; then
    echo "scale.sh: note: bench/pmix_time.c did not build (see $out/shim.log): no PMIx share of init" >&2
    shim=
fi

can_cluster=1
if ! "$srcdir/tests/cluster/cluster.sh" check 2>"$out/cluster_check.log"; then
    can_cluster=0
fi

# run_one HOSTS NP: one run, its result lines appended to scale.dat.
run_one() {
    local h=$1 np=$2 raw=$out/raw.$1.$2 rc slots
    slots=$(((np + h - 1) / h))
    echo "scale.sh: $np PEs on $h host(s)" >&2
    if [ "$h" = 1 ]; then
        # shellcheck disable=SC2086
        env FABSHMEM_PROVIDER="$prov" ${shim:+LD_PRELOAD=$shim} timeout -k 10 "$tlimit" \
            "$builddir/scripts/oshrun" ${shim:+-x LD_PRELOAD} -n "$np" "$prog" -r "$reps" \
            >"$raw" 2>"$raw.err"
    else
        # shellcheck disable=SC2086
        env FABSHMEM_PROVIDER="$prov" ${shim:+LD_PRELOAD=$shim} timeout -k 10 "$tlimit" \
            "$srcdir/tests/cluster/cluster.sh" -n "$h" -s "$slots" -- \
            bash -c '$CLUSTER_SELF launch "$@"' launch "$np" ${shim:+-x LD_PRELOAD} "$prog" -r "$reps" \
            >"$raw" 2>"$raw.err"
    fi
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "scale.sh: $np PEs on $h host(s) failed (exit $rc; $raw.err):" >&2
        tail -n 5 "$raw.err" | sed 's/^/    /' >&2
        return 1
    fi
    awk -v h="$h" '/^scale_/ && NF == 4 { print h, $2, $1, $3, $4 }' "$raw" >>"$dat"
    sed -n 's/^# pmix on PE 0: /# pmix '"$h $np"' /p' "$raw" >>"$out/pmix_counts.txt"
}

status=0
if [ -z "$refit" ]; then
    cut -d' ' -f1-3 /proc/loadavg >"$out/load_start"
    echo "$(hostname) ($(nproc) cores), $(date '+%Y-%m-%d %H:%M %Z'), commit $(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo unknown), provider $prov, $reps repetitions" >"$out/stamp"
fi
for h in $layouts; do
    if [ "$h" != 1 ] && [ $can_cluster = 0 ]; then
        echo "scale.sh: note: no layout of $h hosts here ($(sed 's/^cluster.sh: //' "$out/cluster_check.log"))" >&2
        continue
    fi
    for np in $nps; do
        [ "$np" -lt "$h" ] && continue
        run_one "$h" "$np" || status=1
    done
done

[ -n "$refit" ] || cut -d' ' -f1-3 /proc/loadavg >"$out/load_end"
{
    echo "Measured by \`bench/scale.sh\` on $(cat "$out/stamp" 2>/dev/null); load average"
    echo "(1, 5, 15 min) $(cat "$out/load_start" 2>/dev/null) at the start, $(cat "$out/load_end" 2>/dev/null) at the end."
    echo
    python3 "$here/scale_fit.py" --cores "$(nproc)" "$dat" || status=1
    if [ -s "$out/pmix_counts.txt" ]; then
        echo
        echo "PMIx calls of PE 0 during init (bench/pmix_time.c):"
        echo
        echo "| hosts | PEs | PMIx_Init | fences | gets | puts |"
        echo "|---:|---:|---:|---:|---:|---:|"
        sed -n 's/^# pmix \([0-9]*\) \([0-9]*\) PMIx_Init \([0-9.]*\) ms, \([0-9]*\) fences \([0-9.]*\) ms, \([0-9]*\) gets \([0-9.]*\) ms, \([0-9]*\) puts \([0-9.]*\) ms/| \1 | \2 | \3 ms | \4: \5 ms | \6: \7 ms | \8: \9 ms |/p' \
            "$out/pmix_counts.txt"
    fi
} >"$out/scale.md"
if command -v gnuplot >/dev/null 2>&1; then
    caption=$(sed 's/, [0-9]* repetitions$//; s/ [0-9][0-9]:[0-9][0-9] [A-Z]*,/,/' "$out/stamp" 2>/dev/null)
    sh "$here/scale_plot.sh" "$dat" "$out" "$caption" || status=1
else
    echo "scale.sh: note: no gnuplot, no plots (apt-get install gnuplot-nox)" >&2
fi
echo "scale.sh: results in $out (scale.dat, scale.md$(ls "$out"/*.png >/dev/null 2>&1 && echo ', *.png'))" >&2
exit $status
