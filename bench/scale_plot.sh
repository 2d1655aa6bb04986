#!/bin/sh
# Plots bench/scale.sh's scale.dat with gnuplot (PNG):
#   scale_latency.png  barrier, 8-byte fcollect and 1 MiB shmem_malloc (us)
#   scale_init.png     shmem_init, its PMIx part and the first contact (ms)
#   scale_memory.png   resident memory per PE (MB)
# against the number of PEs, one line per host layout.
#
#   bench/scale_plot.sh scale.dat OUTDIR ["caption: machine, date, commit"]
set -u
dat=$1
dir=$2
caption=${3:-}
command -v gnuplot >/dev/null 2>&1 || { echo "scale_plot.sh: no gnuplot" >&2; exit 1; }
layouts=$(awk '{ print $1 }' "$dat" | sort -nu)

# plot FILE TITLE YLABEL METRIC:LABEL...
plot() {
    file=$1 title=$2 ylabel=$3
    shift 3
    cmds=
    for ml in "$@"; do
        m=${ml%%:*} label=${ml#*:}
        for h in $layouts; do
            f=$dir/.plot.$m.$h
            awk -v m="$m" -v h="$h" '$1 == h && $3 == m { print $2, $4 }' "$dat" | sort -n >"$f"
            [ -s "$f" ] || continue
            if [ "$h" = 1 ]; then hl="1 host"; else hl="$h hosts"; fi
            cmds="${cmds:+$cmds, }'$f' using 1:2 with linespoints title '$label, $hl' noenhanced"
        done
    done
    [ -n "$cmds" ] || return 0
    gnuplot <<EOF
set terminal pngcairo size 900,560 font "sans,10"
set output '$dir/$file'
set title "$title\n{/*0.8 $caption}"
set xlabel 'PEs'
set ylabel '$ylabel'
set logscale xy 2
set grid
set key top left
plot $cmds
EOF
}

plot scale_latency.png "Latency against PEs (2 cores: many PEs share each core)" "us" \
    scale_barrier:barrier_all scale_fcollect:"fcollect 8 B" scale_malloc:"shmem_malloc 1 MiB"
plot scale_init.png "Start-up against PEs" "ms" \
    scale_init:shmem_init scale_init_pmix:"in PMIx" scale_first_contact:"first contact"
plot scale_memory.png "Resident memory per PE" "MB" \
    scale_rss_init:"after init" scale_rss:"after contact (largest)"
rm -f "$dir"/.plot.*
