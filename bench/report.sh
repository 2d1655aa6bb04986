#!/bin/bash
# Regenerates docs/performance.md's measurements: the side-by-side
# comparisons with Open MPI's OpenSHMEM (bench/compare.sh) on the node path
# and the network path, the collectives at 2 and 4 PEs, and the cost
# against the number of PEs (bench/scale.sh), as Markdown tables and PNG
# plots (gnuplot) stamped with the machine, the date and the commit.
#
#   bench/report.sh [--quick] [--only SECTIONS] [--doc FILE] [--no-doc]
#   make bench-report            (the same, from the build tree)
#
#   --quick       short runs (compare.sh --quick, scale up to 16 PEs): a
#                 smoke pass, or a first look
#   --only 'node net coll2 coll4 scale'   regenerate these sections only
#                 (the others keep their text)
#   --from DIR    measure nothing: make the tables and plots again from the
#                 raw outputs of an earlier run (its work directory)
#   --scale-from DIR   take the scale section from an earlier
#                 bench/scale.sh --out DIR instead of measuring again
#   --doc FILE    the page to update (default docs/performance.md of the
#                 source tree); its plots go to the folder perf/ beside it
#   --no-doc      leave the page and its plots alone: the tables and plots
#                 stay in the work directory
#
# Run it from a build tree (it builds nothing: `make` first) on a quiet
# machine; it takes about 40 minutes (--quick: 10).  The page's prose is
# kept: only the text between <!-- BEGIN generated: NAME --> and
# <!-- END generated: NAME --> is replaced.  The raw outputs stay in the
# work directory it prints.  Exit status 0 when every run succeeded.

set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/.." && pwd)
builddir=${FABSHMEM_BUILDDIR:-$PWD}
doc=$srcdir/docs/performance.md
quick=0
only="node net coll2 coll4 scale"
write_doc=1
scale_from=
from=

while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1; shift ;;
    --only) only=$2; shift 2 ;;
    --doc) doc=$2; shift 2 ;;
    --scale-from) scale_from=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    --no-doc) write_doc=0; shift ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "report.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

die() {
    echo "report.sh: $*" >&2
    exit 1
}

[ -x "$builddir/scripts/oshrun" ] || die "no $builddir/scripts/oshrun: run it from a build tree (or set FABSHMEM_BUILDDIR)"
command -v gnuplot >/dev/null 2>&1 || die "no gnuplot (apt-get install gnuplot-nox, or bash scripts/setup-debian.sh)"
work=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-report.XXXXXX") || die "no work directory"
if [ $write_doc = 1 ]; then plotdir=$(dirname "$doc")/perf; else plotdir=$work/perf; fi
mkdir -p "$plotdir" || die "cannot make $plotdir"
status=0

# ---- the stamp ----
commit=$(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo unknown)
# (Changes of the page and its plots themselves do not count.)
dirty=$(git -C "$srcdir" status --porcelain --untracked-files=no -- . ':!docs' 2>/dev/null | grep -q . &&
    echo ", with local changes")
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
stamp_short="$(hostname), $(nproc) cores, $(date +%Y-%m-%d), commit $commit"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
libfabric=$(fi_info --version 2>/dev/null | sed -n 's/^libfabric: //p' | head -n 1)
ompi=$(mpirun --version 2>/dev/null | head -n 1)

# ---- the comparisons ----
# compare NAME TITLE ARGS...: bench/compare.sh --markdown into NAME.md.
compare() {
    local name=$1 title=$2
    shift 2
    echo "report.sh: $title" >&2
    local q=
    [ $quick = 1 ] && q=--quick
    if [ -n "$from" ]; then
        cp "$from/$name.out" "$work/$name.out" || status=1
    else
        # shellcheck disable=SC2086
        "$here/compare.sh" --builddir "$builddir" --markdown --workdir "$work/$name" $q "$@" \
            >"$work/$name.out" 2>"$work/$name.err" || status=1
    fi
    # The whole table (docs/perf/NAME.md, for the plots' numbers), and
    # for the page its header and the rows of a few sizes.
    {
        sed -n '/^fabshmem vs/,/^$/p' "$work/$name.out" |
            sed '/^$/d; /^speedup = /d; s/, raw outputs in .*//; s| (/[^()]*)||g; s/^/    /'
        echo
        sed -n '/^| benchmark/,$p' "$work/$name.out"
    } >"$work/$name.full.md"
    {
        sed -n '1,/^$/p' "$work/$name.full.md"
        awk -F'|' 'NR <= 2 { print; next }
            { s = $3; gsub(/ /, "", s) }
            s == "8" || s == "64" || s == "1K" || s == "8K" || s == "64K" || s == "1M" || s == "2" || s == "4" || s == "" || s == "-" { print }' \
            <(sed -n '/^| benchmark/,$p' "$work/$name.full.md")
        echo
        echo "(8 B, 64 B, 1 KiB, 8 KiB, 64 KiB and 1 MiB; every size: [perf/$name.md](perf/$name.md).)"
    } >"$work/$name.md"
    [ $write_doc = 1 ] && cp "$work/$name.full.md" "$plotdir/$name.md"
}

# plot_sizes NAME FILE TITLE YLABEL BENCH...: fabshmem against Open MPI
# for each benchmark over its sizes (log-log), from NAME's table.
plot_sizes() {
    local name=$1 file=$2 title=$3 ylabel=$4 cmds= b impl col k=0 style
    shift 4
    for b in "$@"; do
        k=$((k + 1))
        for impl in fab ompi; do
            if [ $impl = fab ]; then col=4; else col=5; fi
            awk -F'|' -v b="$b" -v c="$col" '
                function bytes(s) {
                    if (s ~ /K$/) return substr(s, 1, length(s) - 1) * 1024;
                    if (s ~ /M$/) return substr(s, 1, length(s) - 1) * 1048576;
                    return s + 0;
                }
                { gsub(/ /, ""); } $2 == b && $c ~ /^[0-9.]+$/ { print bytes($3), $c }' \
                "$work/$name.full.md" >"$work/$name.$b.$impl.dat"
            [ -s "$work/$name.$b.$impl.dat" ] || continue
            # One colour per benchmark: fabshmem solid, Open MPI dashed.
            local label
            if [ $impl = fab ]; then
                label="fabshmem $b" style="lc $k lw 2 dt 1 pt 7 ps 0.6"
            else
                label="Open MPI $b" style="lc $k lw 1 dt 2 pt 6 ps 0.6"
            fi
            cmds="${cmds:+$cmds, }'$work/$name.$b.$impl.dat' using 1:2 with linespoints $style title '$label' noenhanced"
        done
    done
    [ -n "$cmds" ] || return 0
    gnuplot <<EOF || status=1
set terminal pngcairo size 900,560 font "sans,10"
set output '$plotdir/$file'
set title "$title\n{/*0.8 $stamp_short}"
set xlabel 'message size (bytes)'
set ylabel '$ylabel'
set logscale xy 2
set xtics 4
set format x '%.0b%B'

set grid
set key top left
plot $cmds
EOF
}

has() {
    case " $only " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

if has node; then
    compare node "node path, 2 PEs" --np 2
    plot_sizes node node_latency.png "Node path, 2 PEs: latency" us put_lat get_lat
    plot_sizes node node_bandwidth.png "Node path, 2 PEs: put bandwidth" GB/s put_bw
fi
if has net; then
    compare net "network path, 2 PEs" --np 2 --label "network path" \
        --fab-env 'FABSHMEM_DIRECT=0 FABSHMEM_PROVIDER=tcp' --ompi-env 'UCX_TLS=tcp,self' \
        --args '-s 1M'
    plot_sizes net net_latency.png "Network path (tcp), 2 PEs: latency" us put_lat get_lat
    plot_sizes net net_bandwidth.png "Network path (tcp), 2 PEs: put bandwidth" GB/s put_bw
fi
colls="bcast_lat fcollect_lat alltoall_lat reduce_lat barrier_lat"
if has coll2; then
    compare coll2 "collectives, 2 PEs" --np 2 --bench "$colls"
    plot_sizes coll2 coll_2pe.png "Collectives, 2 PEs (node path)" us broadcast fcollect alltoall \
        $(awk -F'|' '{ gsub(/ /, "", $2) } $2 ~ /reduce|sum/ { print $2; exit }' "$work/coll2.full.md")
fi
if has coll4; then
    compare coll4 "collectives, 4 PEs on $(nproc) cores" --np 4 --bench "$colls"
    plot_sizes coll4 coll_4pe.png "Collectives, 4 PEs (node path, $(nproc) cores)" us broadcast \
        fcollect alltoall \
        $(awk -F'|' '{ gsub(/ /, "", $2) } $2 ~ /reduce|sum/ { print $2; exit }' "$work/coll4.full.md")
fi
if has scale; then
    echo "report.sh: cost against PEs" >&2
    [ -n "$from" ] && [ -z "$scale_from" ] && scale_from=$from/scale
    if [ -n "$scale_from" ]; then
        [ -f "$scale_from/scale.md" ] || die "--scale-from: no $scale_from/scale.md"
        cp -r "$scale_from" "$work/scale"
    else
        if [ $quick = 1 ]; then nps="2 4 8 16"; else nps="2 4 8 16 32 64"; fi
        FABSHMEM_BUILDDIR=$builddir "$here/scale.sh" --nps "$nps" --out "$work/scale" \
            >"$work/scale.out" 2>"$work/scale.err" || status=1
    fi
    cp "$work/scale/scale.md" "$work/scale.md" 2>/dev/null || echo "(no results: see $work/scale.err)" >"$work/scale.md"
    for f in "$work"/scale/*.png; do
        [ -f "$f" ] && cp "$f" "$plotdir/"
    done
    cp "$work/scale/scale.dat" "$plotdir/scale.dat" 2>/dev/null
fi

load_end=$(cut -d' ' -f1-3 /proc/loadavg)
if [ -n "$from" ]; then
    cp "$from/machine.md" "$work/machine.md" || status=1
else
{
    echo "Generated by \`bench/report.sh$([ $quick = 1 ] && echo ' --quick')\` on $(date '+%Y-%m-%d %H:%M %Z'):"
    echo
    echo "- machine: $(hostname), ${cpu:-unknown CPU}, $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)"
    echo "- fabshmem commit $commit$dirty; libfabric ${libfabric:-?}; ${ompi:-no Open MPI}"
    echo "- load average (1, 5, 15 min) at the start: $load_start; at the end: $load_end"
    echo "  (other jobs on the machine slow both libraries alike; read the ratios)"
} >"$work/machine.md"
fi

# ---- the page ----
# replace NAME FILE: the text between NAME's markers becomes FILE's.
replace() {
    local name=$1 file=$2
    if ! grep -q "<!-- BEGIN generated: $name -->" "$doc"; then
        echo "report.sh: $doc has no section '$name' (<!-- BEGIN generated: $name -->): left out" >&2
        return
    fi
    awk -v name="$name" -v file="$file" '
        $0 == "<!-- BEGIN generated: " name " -->" { print; while ((getline l < file) > 0) print l; skip = 1; next }
        $0 == "<!-- END generated: " name " -->" { skip = 0 }
        !skip { print }' "$doc" >"$doc.new" && mv "$doc.new" "$doc"
}

if [ $write_doc = 1 ]; then
    [ -f "$doc" ] || die "no $doc"
    replace machine "$work/machine.md"
    for s in $only; do
        [ -f "$work/$s.md" ] && replace "$s" "$work/$s.md"
    done
    echo "report.sh: updated $doc and $plotdir/ (raw outputs in $work)" >&2
else
    echo "report.sh: results in $work (*.md) and plots in $plotdir/" >&2
fi
exit $status
