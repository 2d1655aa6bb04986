#!/bin/sh
# Side-by-side comparison of fabshmem and Open MPI's OpenSHMEM (OSHMEM).
#
# Builds the bench/*.c microbenchmarks twice from the same sources, once with
# fabshmem's oshcc wrapper and once with Open MPI's oshcc, runs each on 2 PEs
# with both libraries, interleaved (A, B, A, B, ...) to spread machine noise
# over both, and prints the medians side by side with
#
#   speedup = how many times faster fabshmem is than Open MPI
#             (Open MPI time / fabshmem time for latencies,
#              fabshmem rate / Open MPI rate for bandwidth and message rate)
#
# so a speedup above 1 is better for fabshmem in every row.
#
# Run bench/compare.sh --help for the options. Exit status: 0 when every
# build and run succeeded, 1 otherwise (the table is printed either way).

set -u

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/.." && pwd)

usage() {
    cat <<EOF
usage: $0 [options]

  --builddir DIR      fabshmem build tree (default: \$FABSHMEM_BUILDDIR or the
                      source tree $srcdir); its scripts/oshcc and
                      scripts/oshrun are used unless given below
  --fab-oshcc PATH    fabshmem compiler wrapper (env FABSHMEM_OSHCC)
  --fab-oshrun PATH   fabshmem launcher (env FABSHMEM_OSHRUN)
  --ompi-oshcc PATH   Open MPI compiler wrapper (env OMPI_OSHCC, default oshcc)
  --ompi-oshrun PATH  Open MPI launcher (env OMPI_OSHRUN, default oshrun)
  --fab-env 'V=x ...' extra environment for the fabshmem runs only, e.g.
                      --fab-env 'FABSHMEM_DIRECT=0 FABSHMEM_PROVIDER=tcp'
                      (repeatable; env FABSHMEM_BENCH_ENV)
  --ompi-env 'V=x'    extra environment for the Open MPI runs only, e.g.
                      --ompi-env 'UCX_TLS=tcp,self' for its network path
  --label TEXT        label printed with the table (e.g. "network path, tcp")
  --bench 'a b ...'   benchmarks to run (default: put_lat get_lat put_bw
                      msg_rate amo_lat sync_lat barrier_lat)
  --reps N            runs per library and benchmark, medians taken (default 3)
  --args 'ARGS'       extra arguments for every benchmark (e.g. '-s 64K')
  --np N              number of PEs (default 2)
  --bind POLICY       --bind-to POLICY for both launchers (default: core when
                      the PEs fit the cores, one PE per core as the peers'
                      figures were measured, else numa; fabshmem's oshrun
                      alone binds to numa)
  --timeout SEC       limit of every build and run (default 300)
  --workdir DIR       where binaries and raw outputs go (default: a new
                      directory under \${TMPDIR:-/tmp})
  --only fab|ompi     build and run one library only
  --quick             smoke pass: 1 run each, short repetitions, sizes up to 1 MiB
  --markdown          print the table as Markdown
  -h, --help          this text
EOF
}

die() {
    echo "compare.sh: error: $*" >&2
    exit 1
}

builddir=${FABSHMEM_BUILDDIR:-$srcdir}
fab_oshcc=${FABSHMEM_OSHCC:-}
fab_oshrun=${FABSHMEM_OSHRUN:-}
ompi_oshcc=${OMPI_OSHCC:-oshcc}
ompi_oshrun=${OMPI_OSHRUN:-oshrun}
fab_env=${FABSHMEM_BENCH_ENV:-}
ompi_env=""
label=""
benches="put_lat get_lat put_bw msg_rate amo_lat sync_lat barrier_lat"
reps=3
bargs=""
np=2
bind=
tlimit=300
workdir=""
only=""
quick=0
markdown=0

while [ $# -gt 0 ]; do
    case "$1" in
    --builddir) builddir=$2; shift 2 ;;
    --fab-oshcc) fab_oshcc=$2; shift 2 ;;
    --fab-oshrun) fab_oshrun=$2; shift 2 ;;
    --ompi-oshcc) ompi_oshcc=$2; shift 2 ;;
    --ompi-oshrun) ompi_oshrun=$2; shift 2 ;;
    --fab-env) fab_env="$fab_env $2"; shift 2 ;;
    --ompi-env) ompi_env="$ompi_env $2"; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --bench) benches=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --args) bargs="$bargs $2"; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --bind) bind=$2; shift 2 ;;
    --timeout) tlimit=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --markdown) markdown=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
    esac
done

case "$only" in ""|fab|ompi) ;; *) die "--only takes fab or ompi" ;; esac
case "$reps" in ''|*[!0-9]*|0) die "--reps takes a positive number" ;; esac
if [ $quick -eq 1 ]; then
    reps=1
    bargs="-t 2 -r 3 -s 1M $bargs"   # -s is ignored by the single-size benchmarks
fi

impls=""
[ "$only" != ompi ] && impls="$impls fab"
[ "$only" != fab ] && impls="$impls ompi"

# The fabshmem wrappers: explicit paths, else the build tree's scripts.
[ -n "$fab_oshcc" ] || fab_oshcc=$builddir/scripts/oshcc
[ -n "$fab_oshrun" ] || fab_oshrun=$builddir/scripts/oshrun

if [ -z "$workdir" ]; then
    workdir=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-compare.XXXXXX") || die "cannot make a work directory"
fi
mkdir -p "$workdir" || die "cannot create $workdir"

root_opt=""
[ "$(id -u)" = 0 ] && root_opt="--allow-run-as-root"

resolve() {
    # Prints the command path if it is runnable, nothing otherwise.
    case "$1" in
    */*) [ -x "$1" ] && echo "$1" ;;
    *) command -v "$1" 2>/dev/null ;;
    esac
}

for impl in $impls; do
    if [ $impl = fab ]; then
        p=$(resolve "$fab_oshcc") || true
        [ -n "$p" ] || die "fabshmem compiler wrapper '$fab_oshcc' not found or not executable (build the tree, or pass --builddir, --fab-oshcc or FABSHMEM_OSHCC; --only ompi skips fabshmem)"
        fab_oshcc=$p
        p=$(resolve "$fab_oshrun") || true
        [ -n "$p" ] || die "fabshmem launcher '$fab_oshrun' not found or not executable (pass --fab-oshrun or FABSHMEM_OSHRUN)"
        fab_oshrun=$p
    else
        p=$(resolve "$ompi_oshcc") || true
        [ -n "$p" ] || die "Open MPI oshcc '$ompi_oshcc' not found (apt-get install openmpi-bin libopenmpi-dev, or --only fab)"
        ompi_oshcc=$p
        p=$(resolve "$ompi_oshrun") || true
        [ -n "$p" ] || die "Open MPI oshrun '$ompi_oshrun' not found"
        ompi_oshrun=$p
    fi
done

status=0

# Build every benchmark with every library; a failed build is reported with
# its compiler output and its rows are marked, the others still run.
for impl in $impls; do
    if [ $impl = fab ]; then cc=$fab_oshcc; else cc=$ompi_oshcc; fi
    for b in $benches; do
        [ -f "$here/$b.c" ] || die "no benchmark source $here/$b.c"
        exe=$workdir/$b.$impl
        log=$workdir/$b.$impl.build.log
        if ! timeout -k 10 "$tlimit" "$cc" -O2 -I"$here" "$here/$b.c" -o "$exe" >"$log" 2>&1; then
            echo "compare.sh: error: building $b with $cc failed (log: $log):" >&2
            sed -n '1,15p' "$log" | sed 's/^/    /' >&2
            rm -f "$exe"
            status=1
        fi
    done
done

if [ -z "$bind" ]; then
    if [ "$np" -le "$(nproc 2>/dev/null || echo 1)" ]; then bind=core; else bind=numa:overload-allowed; fi
fi

# Runs one benchmark once; the raw output goes to $workdir/$b.$impl.$rep.
run_one() {
    impl=$1 b=$2 rep=$3
    exe=$workdir/$b.$impl
    out=$workdir/$b.$impl.$rep
    [ -x "$exe" ] || return 0
    if [ $impl = fab ]; then
        # shellcheck disable=SC2086
        env $fab_env timeout -k 10 "$tlimit" "$fab_oshrun" --bind-to "$bind" -n "$np" "$exe" $bargs \
            >"$out" 2>"$out.err"
    else
        # shellcheck disable=SC2086
        env $ompi_env timeout -k 10 "$tlimit" "$ompi_oshrun" $root_opt --oversubscribe --mca osc ^rdma \
            --bind-to "$bind" -n "$np" "$exe" $bargs >"$out" 2>"$out.err"
    fi
    rc=$?
    if [ $rc -ne 0 ]; then
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            echo "compare.sh: error: $b ($impl, run $rep) timed out after ${tlimit}s (output: $out, $out.err)" >&2
        else
            echo "compare.sh: error: $b ($impl, run $rep) exited with $rc (output: $out, $out.err)" >&2
            sed -n '1,10p' "$out.err" | sed 's/^/    /' >&2
        fi
        echo "# FAILED rc=$rc" >>"$out"
        status=1
    fi
}

for b in $benches; do
    rep=1
    while [ $rep -le "$reps" ]; do
        for impl in $impls; do
            [ -x "$workdir/$b.$impl" ] || continue
            echo "compare.sh: $b $impl run $rep/$reps" >&2
            run_one $impl $b $rep
        done
        rep=$((rep + 1))
    done
done

# Gathers every result line as "impl bench name size value unit" and
# reduces it to medians, side by side.
{
    for b in $benches; do
        for impl in $impls; do
            rep=1
            while [ $rep -le "$reps" ]; do
                f=$workdir/$b.$impl.$rep
                if [ -f "$f" ]; then
                    awk -v impl=$impl -v b=$b '!/^#/ && NF == 4 { print impl, b, $1, $2, $3, $4 }' "$f"
                    grep -q '^# FAILED' "$f" && echo "$impl $b FAILED 0 0 -"
                elif [ ! -x "$workdir/$b.$impl" ]; then
                    echo "$impl $b BUILD 0 0 -"
                fi
                rep=$((rep + 1))
            done
        done
    done
} >"$workdir/results.txt"

libname() {
    grep -h '^# library:' "$workdir"/*."$1".1 2>/dev/null | head -n 1 |
        sed 's/^# library: //; s/, [0-9]* PEs.*//'
}
fab_name=$(libname fab)
ompi_name=$(libname ompi)

echo
echo "fabshmem vs Open MPI OpenSHMEM${label:+: $label}"
echo "date $(date '+%Y-%m-%d %H:%M'), host $(hostname), $(nproc 2>/dev/null || echo '?') cores, $np PEs, medians of $reps run(s) per library"
[ -n "$fab_env" ] && echo "fabshmem environment:$fab_env"
[ -n "$ompi_env" ] && echo "Open MPI environment:$ompi_env"
[ -n "$bargs" ] && echo "benchmark arguments:$bargs"
echo "fabshmem: ${fab_name:-n/a} ($fab_oshcc)"
echo "Open MPI: ${ompi_name:-n/a} ($ompi_oshcc, --mca osc ^rdma)"
echo "speedup = how many times faster fabshmem is (>1 is better for fabshmem); raw outputs in $workdir"
echo

awk -v md=$markdown -v impls="$impls" '
function human(s) {
    if (s >= 1048576 && s % 1048576 == 0) return (s / 1048576) "M";
    if (s >= 1024 && s % 1024 == 0) return (s / 1024) "K";
    return s;
}
function median(key,    n, i, j, t, a) {
    n = cnt[key];
    for (i = 1; i <= n; i++) a[i] = val[key, i];
    for (i = 2; i <= n; i++) {
        t = a[i];
        for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j];
        a[j + 1] = t;
    }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2;
}
function fmt(x) {
    if (x == "") return "-";
    if (x >= 100) return sprintf("%.1f", x);
    if (x >= 10) return sprintf("%.2f", x);
    if (x >= 1) return sprintf("%.3f", x);
    return sprintf("%.4f", x);
}
{
    impl = $1; b = $2; name = $3; size = $4;
    if (name == "FAILED" || name == "BUILD") { bad[b, impl] = (name == "BUILD") ? "build failed" : "run failed"; next; }
    row = name SUBSEP size;
    if (!(row in seen)) { seen[row] = 1; order[++nrows] = row; rbench[row] = b; rname[row] = name; rsize[row] = size; runit[row] = $6; }
    key = row SUBSEP impl;
    val[key, ++cnt[key]] = $5 + 0;
}
END {
    if (md) {
        print "| benchmark | size | fabshmem | Open MPI | unit | speedup |";
        print "|---|---:|---:|---:|---|---:|";
    } else {
        printf "%-14s %6s %12s %12s %-7s %8s\n", "benchmark", "size", "fabshmem", "Open MPI", "unit", "speedup";
    }
    for (i = 1; i <= nrows; i++) {
        row = order[i];
        f = (cnt[row, "fab"] > 0) ? median(row SUBSEP "fab") : "";
        o = (cnt[row, "ompi"] > 0) ? median(row SUBSEP "ompi") : "";
        sp = "-";
        if (f != "" && o != "" && f > 0 && o > 0)
            sp = sprintf("%.2f", (runit[row] == "us") ? o / f : f / o);
        fs = fmt(f); os = fmt(o);
        if ((rbench[row], "fab") in bad) { fs = (f == "") ? bad[rbench[row], "fab"] : fs "!"; nbad++; }
        if ((rbench[row], "ompi") in bad) { os = (o == "") ? bad[rbench[row], "ompi"] : os "!"; nbad++; }
        if (md)
            printf "| %s | %s | %s | %s | %s | %s |\n", rname[row], human(rsize[row]), fs, os, runit[row], sp;
        else
            printf "%-14s %6s %12s %12s %-7s %8s\n", rname[row], human(rsize[row]), fs, os, runit[row], sp;
        done[rbench[row]] = 1;
    }
    if (nbad) print "(! = from runs of which at least one failed: partial data)";
    # Benchmarks without any result line (failed everywhere).
    for (k in bad) {
        split(k, p, SUBSEP);
        if (!(p[1] in done)) {
            done[p[1]] = 1;
            if (md) printf "| %s | - | %s | %s | - | - |\n", p[1], ((p[1], "fab") in bad) ? bad[p[1], "fab"] : "-", ((p[1], "ompi") in bad) ? bad[p[1], "ompi"] : "-";
            else printf "%-14s %6s %12s %12s %-7s %8s\n", p[1], "-", ((p[1], "fab") in bad) ? bad[p[1], "fab"] : "-", ((p[1], "ompi") in bad) ? bad[p[1], "ompi"] : "-", "-", "-";
        }
    }
}' "$workdir/results.txt"

[ $status -eq 0 ] || echo "compare.sh: some builds or runs failed, see the messages above and $workdir" >&2
exit $status
