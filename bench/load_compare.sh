#!/bin/sh
# The small collectives beside Open MPI's OpenSHMEM (OSHMEM), quiet and with
# busy processes on the cores (issue 31 item 1).
#
# For each PE count, bench/compare.sh runs bench/coll_small_lat (every
# small-collective row: barriers, 8-byte broadcast, collect, fcollect,
# alltoall and sum, active-set and team forms) with both libraries,
# alternated run by run, REPS runs each: once on the machine as it is
# ("quiet"), once with LOAD busy processes that this script starts before
# and stops after ("loaded": `sh -c 'while :; do :; done'`, unbound, at
# normal priority, as a user's other job or a build would run).  Each run
# gives the benchmark's own median of 5 repetitions per row; over the runs
# it prints per row the median and the maximum of each library and
#
#   q       fabshmem median / OSHMEM median, quiet     (<= 1: fabshmem as fast)
#   l       fabshmem median / OSHMEM median, loaded
#   fab x   fabshmem's loaded maximum / its quiet median (erratic rows: large)
#   ompi x  the same for OSHMEM
#
# with the load average (1 min) before each pass: the machine is shared,
# and "quiet" is only as quiet as it says.
#
# In each pass it also runs bench/sched_floor (built here with cc, no
# library): the same number of processes doing nothing but a central
# barrier that sleeps on a futex (also pinned one to a core) or yields,
# REPS runs.  Its table gives the scheduler's floor, quiet and loaded, and
# its loaded maximum over fabshmem's quiet barrier_all median (x): what no
# wait policy of a library can go below on this machine.
#
#   bench/load_compare.sh [--nps '2 4'] [--reps 5] [--load 2] [--bench B]
#                         [--workdir DIR] [--markdown] [--from DIR]
#                         [compare.sh options, e.g. --builddir DIR]
#
#   --from DIR   measure nothing: print the table again from an earlier
#                run's work directory
#
# Exit status 0 when every build and run succeeded.

set -u
here=$(cd "$(dirname "$0")" && pwd)
nps="2 4"
reps=5
nload=2
bench=coll_small_lat
workdir=
markdown=0
from=
pass=

while [ $# -gt 0 ]; do
    case $1 in
    --nps) nps=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --load) nload=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --markdown) markdown=1; shift ;;
    --from) from=$2; shift 2 ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) pass="$pass $1"; shift ;;
    esac
done

if [ -n "$from" ]; then
    workdir=$from
elif [ -z "$workdir" ]; then
    workdir=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-load.XXXXXX") || exit 1
fi
mkdir -p "$workdir" || exit 1

loaders=
stop_load() {
    for p in $loaders; do
        kill "$p" 2>/dev/null
    done
    for p in $loaders; do
        wait "$p" 2>/dev/null
    done
    loaders=
}
trap 'stop_load' EXIT
trap 'stop_load; exit 130' INT TERM

start_load() {
    i=0
    while [ $i -lt "$nload" ]; do
        sh -c 'while :; do :; done' &
        loaders="$loaders $!"
        i=$((i + 1))
    done
    sleep 1 # let the scheduler spread them
}

status=0
if [ -z "$from" ]; then
    ${CC:-cc} -O2 -o "$workdir/sched_floor" "$here/sched_floor.c" || status=1
    for np in $nps; do
        for cond in quiet loaded; do
            d=$workdir/np$np.$cond
            [ $cond = loaded ] && start_load
            cut -d' ' -f1 /proc/loadavg >"$d.load"
            echo "load_compare.sh: $np PEs, $cond (load average $(cat "$d.load"))" >&2
            # shellcheck disable=SC2086
            "$here/compare.sh" --np "$np" --reps "$reps" --bench "$bench" --workdir "$d" $pass \
                >"$d.out" 2>"$d.err" || { status=1; sed -n '/error/p' "$d.err" >&2; }
            "$workdir/sched_floor" --np "$np" --runs "$reps" >"$d.floor" 2>>"$d.err" || status=1
            [ $cond = loaded ] && stop_load
        done
    done
    date '+%Y-%m-%d %H:%M %Z' >"$workdir/date"
    git -C "$here/.." rev-parse --short HEAD >"$workdir/commit" 2>/dev/null
fi

# The awk functions of both tables: the values of key are v[key, 1..c[key]];
# med and mx sort them in place; f prints a value in us.
stats_awk='
function sortv(key, n,    i, j, t) {
    for (i = 2; i <= n; i++) {
        t = v[key, i];
        for (j = i - 1; j >= 1 && v[key, j] > t; j--) v[key, j + 1] = v[key, j];
        v[key, j + 1] = t;
    }
}
function med(key,    n) {
    n = c[key];
    if (!n) return "";
    sortv(key, n);
    return (n % 2) ? v[key, (n + 1) / 2] : (v[key, n / 2] + v[key, n / 2 + 1]) / 2;
}
function mx(key) { if (!c[key]) return ""; sortv(key, c[key]); return v[key, c[key]]; }
function f(x) {
    if (x == "") return "-";
    if (x >= 100) return sprintf("%.0f", x);
    if (x >= 10) return sprintf("%.1f", x);
    return sprintf("%.2f", x);
}
'

# Every result line as "np cond impl row value".
for np in $nps; do
    for cond in quiet loaded; do
        for f in "$workdir/np$np.$cond/$bench".*.[0-9]*; do
            [ -f "$f" ] || continue
            case $f in *.err | *.log) continue ;; esac
            impl=${f#"$workdir/np$np.$cond/$bench".}
            impl=${impl%%.*}
            awk -v np=$np -v c=$cond -v i=$impl '!/^#/ && NF == 4 { print np, c, i, $1, $3 }' "$f"
        done
    done
done >"$workdir/all.txt"

loads=
for np in $nps; do
    loads="$loads${loads:+; }$np PEs quiet $(cat "$workdir/np$np.quiet.load" 2>/dev/null || echo ?), loaded $(cat "$workdir/np$np.loaded.load" 2>/dev/null || echo ?)"
done
echo "Small collectives beside Open MPI's OSHMEM, $(cat "$workdir/date" 2>/dev/null), $(hostname), $(nproc) cores, commit $(cat "$workdir/commit" 2>/dev/null); $reps runs per library and condition, alternated; loaded = $nload busy processes (\`sh -c 'while :; do :; done'\`) started and stopped by \`bench/load_compare.sh\`; load average (1 min) before each pass: $loads."
echo
echo "Medians and maxima (max) of the runs in us; q and l: fabshmem's median over OSHMEM's, quiet and loaded (at most 1: as fast); fab x and ompi x: the loaded maximum over the quiet median of each library."
echo
awk -v md=$markdown -v nps="$nps" "$stats_awk"'
function r(a, b) { return (a == "" || b == "" || b <= 0) ? "-" : sprintf("%.2f", a / b); }
{
    k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4;
    v[k, ++c[k]] = $5 + 0;
    row = $1 SUBSEP $4;
    if (!(row in seen)) { seen[row] = 1; order[++n] = row; }
}
END {
    hdr = "PEs|row|fab quiet|ompi quiet|q|fab loaded (max)|ompi loaded (max)|l|fab x|ompi x";
    if (md) {
        gsub(/\|/, " | ", hdr); print "| " hdr " |";
        print "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|";
    } else {
        printf "%-3s %-16s %9s %9s %5s %17s %17s %5s %7s %7s\n", "PEs", "row", "fab q", "ompi q", "q",
               "fab loaded (max)", "ompi loaded (max)", "l", "fab x", "ompi x";
    }
    for (i = 1; i <= n; i++) {
        split(order[i], p, SUBSEP);
        np = p[1]; name = p[2];
        fq = med(np SUBSEP "quiet" SUBSEP "fab" SUBSEP name);
        oq = med(np SUBSEP "quiet" SUBSEP "ompi" SUBSEP name);
        fl = med(np SUBSEP "loaded" SUBSEP "fab" SUBSEP name);
        ol = med(np SUBSEP "loaded" SUBSEP "ompi" SUBSEP name);
        fm = mx(np SUBSEP "loaded" SUBSEP "fab" SUBSEP name);
        om = mx(np SUBSEP "loaded" SUBSEP "ompi" SUBSEP name);
        a = f(fl) " (" f(fm) ")"; b = f(ol) " (" f(om) ")";
        if (md)
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", np, name, f(fq), f(oq),
                   r(fq, oq), a, b, r(fl, ol), r(fm, fq), r(om, oq);
        else
            printf "%-3s %-16s %9s %9s %5s %17s %17s %5s %7s %7s\n", np, name, f(fq), f(oq),
                   r(fq, oq), a, b, r(fl, ol), r(fm, fq), r(om, oq);
    }
}' "$workdir/all.txt"

# The scheduler's floor: "np cond mode us" per run.
for np in $nps; do
    for cond in quiet loaded; do
        [ -f "$workdir/np$np.$cond.floor" ] &&
            awk -v np=$np -v c=$cond '!/^#/ && NF == 3 { print np, c, $1, $3 }' \
                "$workdir/np$np.$cond.floor"
    done
done >"$workdir/floor.txt"
if [ -s "$workdir/floor.txt" ]; then
    echo
    echo "The scheduler's floor (\`bench/sched_floor\`, the same runs: as many processes doing nothing but a central barrier in shared memory, no library; futex: the others sleep until the last wakes them; pinned: the same, one process to a core; yield: the others yield until it ends). Medians and maxima (max) of the runs' mean barrier time in us; x: the loaded maximum over fabshmem's quiet barrier_all median."
    echo
    awk -v md=$markdown "$stats_awk"'
    # fabshmem quiet barrier_all runs under the key "np fab", the floor runs under "np cond mode".
    FILENAME == ARGV[1] { if ($2 == "quiet" && $3 == "fab" && $4 == "barrier_all") { k = $1 SUBSEP "fab"; v[k, ++c[k]] = $5 + 0 } next }
    {
        k = $1 SUBSEP $2 SUBSEP $3; v[k, ++c[k]] = $4 + 0;
        row = $1 SUBSEP $3; if (!(row in seen)) { seen[row] = 1; order[++n] = row; }
    }
    END {
        if (md) { print "| PEs | mode | quiet | loaded (max) | x |"; print "|---:|---|---:|---:|---:|"; }
        else printf "%-3s %-7s %9s %17s %7s\n", "PEs", "mode", "quiet", "loaded (max)", "x";
        for (i = 1; i <= n; i++) {
            split(order[i], p, SUBSEP); np = p[1]; m = p[2];
            q = med(np SUBSEP "quiet" SUBSEP m); l = med(np SUBSEP "loaded" SUBSEP m); lm = mx(np SUBSEP "loaded" SUBSEP m);
            fq = med(np SUBSEP "fab"); x = (fq == "" || fq <= 0 || lm == "") ? "-" : sprintf("%.1f", lm / fq);
            if (md) printf "| %s | %s | %s | %s (%s) | %s |\n", np, m, f(q), f(l), f(lm), x;
            else printf "%-3s %-7s %9s %17s %7s\n", np, m, f(q), f(l) " (" f(lm) ")", x;
        }
    }' "$workdir/all.txt" "$workdir/floor.txt"
fi
echo
echo "(raw outputs: $workdir)" >&2
exit $status
