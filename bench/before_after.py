#!/usr/bin/env python3
"""Before and after a change: docs/performance.md's node and network
comparisons (bench/compare.sh, the settings of bench/report.sh's sections
node and net) for two or more fabshmem build trees in one sitting,
alternated run by run, and a dated Markdown table of their medians with the
within-build spread as the noise estimate.

    bench/before_after.py --work DIR [--rounds N] [--sections 'node net']
        [--bench 'put_lat ...'] [--quick] LABEL=BUILDDIR LABEL=BUILDDIR ...
    bench/before_after.py --work DIR --table-only [--doc FILE --name NAME]
        [--full FILE [--title TEXT]]

The first build is the reference ("before").  One round runs every
benchmark of every section once with each build, the builds alternated
benchmark by benchmark (before, after, before, after, ...), each run one
`bench/compare.sh --only fab --reps 1` (the benchmark sources beside this
script, compiled with each build's oshcc).  A second call with the same
--work adds rounds (e.g. more rounds of the rows outside noise, with
--bench); the table takes every round there is.

For each result row (section, benchmark, size) and build: the median over
the rounds; the ratio of each later build's median to the reference's
(for latencies below 1 is faster, for rates above 1); the spread, the
larger of the builds' interquartile range over median (the middle half of
its runs: on a shared machine a few runs are slowed many times by other
jobs, and the full range would call anything noise), which is the noise
of that row; and the verdict "within noise" when |ratio - 1| is at most
the spread (with fewer than 4 runs a build's quartiles say little).
--doc FILE --name NAME replaces the text between
<!-- BEGIN generated: NAME --> and <!-- END generated: NAME --> of FILE
with the table of the page's sizes (8 B, 64 B, 1 KiB, 8 KiB, 64 KiB,
1 MiB and the one-size rows), as bench/report.sh does; --full FILE gets
every size.  Exit status 0, or 1 when a run failed.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The settings of bench/report.sh's sections.
SECTIONS = {
    "node": ["--np", "2"],
    "net": ["--np", "2", "--fab-env", "FABSHMEM_DIRECT=0 FABSHMEM_PROVIDER=tcp",
            "--args", "-s 1M"],
}
BENCHES = "put_lat get_lat put_bw msg_rate amo_lat sync_lat barrier_lat".split()
PAGE_SIZES = {"8", "64", "1024", "8192", "65536", "1048576"}
RATES = {"GB/s", "Mmsg/s", "Mops/s"}


def human(size):
    s = int(size)
    if s >= 1048576 and s % 1048576 == 0:
        return f"{s // 1048576}M"
    if s >= 1024 and s % 1024 == 0:
        return f"{s // 1024}K"
    return str(s)


def fmt(x):
    if x >= 100:
        return f"{x:.1f}"
    if x >= 10:
        return f"{x:.2f}"
    if x >= 1:
        return f"{x:.3f}"
    return f"{x:.4f}"


def iqr(v):
    """The interquartile range over the median: the spread of the middle
    half of the runs, which a few runs slowed by other jobs do not set."""
    if len(v) < 2 or statistics.median(v) <= 0:
        return 0.0
    q = statistics.quantiles(v, n=4, method="inclusive")
    return (q[2] - q[0]) / statistics.median(v)


def commit_of(builddir):
    """The commit of a build tree's source (a worktree: its own HEAD)."""
    try:
        return subprocess.run(["git", "-C", builddir, "rev-parse", "--short", "HEAD"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def load_meta(work):
    path = os.path.join(work, "builds.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return None


def measure(args, builds):
    """Runs args.rounds more rounds into args.work; returns 0 or 1."""
    os.makedirs(args.work, exist_ok=True)
    meta = load_meta(args.work)
    if meta is None:
        meta = {"builds": [{"label": lab, "dir": d, "commit": commit_of(d)} for lab, d in builds],
                "host": platform.node(), "cores": os.cpu_count(), "quick": args.quick, "runs": []}
    elif [b["label"] for b in meta["builds"]] != [lab for lab, _ in builds]:
        sys.exit("before_after.py: --work holds runs of other builds: "
                 + ", ".join(b["label"] for b in meta["builds"]))
    status = 0
    for _ in range(args.rounds):
        for sec in args.sections.split():
            if sec not in SECTIONS:
                sys.exit(f"before_after.py: --sections: no section '{sec}' (node, net)")
            for bench in args.bench.split():
                done = [r["round"] for r in meta["runs"]
                        if r["section"] == sec and r["bench"] == bench]
                rnd = max(done, default=0) + 1
                for lab, d in builds:
                    wd = os.path.join(args.work, sec, bench, f"r{rnd:02d}.{lab}")
                    cmd = [os.path.join(HERE, "compare.sh"), "--builddir", d, "--only", "fab",
                           "--reps", "1", "--bench", bench, "--workdir", wd] + SECTIONS[sec]
                    if args.quick:
                        cmd.append("--quick")
                    with open("/proc/loadavg") as f:
                        load = float(f.read().split()[0])
                    print(f"before_after.py: {sec} {bench} round {rnd} {lab} (load {load})",
                          file=sys.stderr)
                    t0 = time.time()
                    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL).returncode
                    if rc != 0:
                        print(f"before_after.py: compare.sh failed (rc {rc}): {' '.join(cmd)}",
                              file=sys.stderr)
                        status = 1
                    meta["runs"].append({"section": sec, "bench": bench, "round": rnd, "label": lab,
                                         "rc": rc, "load": load, "start": t0,
                                         "seconds": round(time.time() - t0, 1)})
                    with open(os.path.join(args.work, "builds.json"), "w") as f:
                        json.dump(meta, f, indent=1)
    return status


def collect(work, meta):
    """{(section, name, size, unit): {label: [values]}} in first-seen order."""
    rows = {}
    for run in meta["runs"]:
        if run["rc"] != 0:
            continue
        out = os.path.join(work, run["section"], run["bench"],
                           f"r{run['round']:02d}.{run['label']}",
                           f"{run['bench']}.fab.1")
        if not os.path.exists(out):
            continue
        with open(out) as f:
            for line in f:
                p = line.split()
                if line.startswith("#") or len(p) != 4:
                    continue
                key = (run["section"], p[0], p[1], p[3])
                rows.setdefault(key, {}).setdefault(run["label"], []).append(float(p[2]))
    return rows


def table(work, meta, page_only):
    labels = [b["label"] for b in meta["builds"]]
    ref = labels[0]
    rows = collect(work, meta)
    runs = [r for r in meta["runs"] if r["rc"] == 0]
    loads = [r["load"] for r in runs]
    t0 = min(r["start"] for r in runs)
    t1 = max(r["start"] + r["seconds"] for r in runs)
    rounds = sorted({r["round"] for r in runs})
    day = time.strftime("%Y-%m-%d", time.gmtime(t0))
    builds = ", ".join(f"{b['label']} = commit {b['commit']}" for b in meta["builds"])
    lines = [
        f"Generated by `bench/before_after.py` from the runs of {day} "
        f"{time.strftime('%H:%M', time.gmtime(t0))} to "
        f"{time.strftime('%H:%M', time.gmtime(t1))} UTC "
        f"({meta['host']}, {meta['cores']} cores; load average (1 min) at the runs' "
        f"starts {min(loads):.2f} to {max(loads):.2f}, median "
        f"{statistics.median(loads):.2f}): {builds}; bench/compare.sh's node and net "
        f"settings{' (--quick)' if meta.get('quick') else ''}, 2 PEs; "
        f"n = runs of each build per benchmark (up to {max(rounds)} rounds), the builds alternated "
        f"run by run; medians. "
        f"Ratio = {'each later build' if len(labels) > 2 else labels[1]}'s median over {ref}'s "
        f"(latencies in us: below 1 is faster; "
        f"rates: above 1 is faster). Spread = the larger of the builds' interquartile range over "
        f"median (the middle half of its runs): the noise of the row; within noise when "
        f"|ratio - 1| is at most the spread.",
        "",
    ]
    head = ["section", "benchmark", "size", "unit", "n"] + [f"{lab} ({b['commit']})" for lab, b in
                                                          zip(labels, meta["builds"])]
    for lab in labels[1:]:
        head += [f"{lab}/{ref}" if len(labels) > 2 else "ratio"]
    head += ["spread"]
    head += [f"verdict {lab}" if len(labels) > 2 else "verdict" for lab in labels[1:]]
    lines.append("| " + " | ".join(head) + " |")
    numeric = ("size", "n", "ratio", "spread")
    lines.append("|" + "|".join("---:" if h in numeric or "(" in h or "/" in h else "---"
                                for h in head) + "|")
    outside = []
    for (sec, name, size, unit), vals in rows.items():
        if page_only and size not in PAGE_SIZES and name != "barrier_all":
            continue
        if any(lab not in vals for lab in labels):
            continue
        med = {lab: statistics.median(vals[lab]) for lab in labels}
        spread = max(iqr(vals[lab]) for lab in labels)
        n = min(len(vals[lab]) for lab in labels)
        cells = [sec, name, human(size), unit, str(n)] + [fmt(med[lab]) for lab in labels]
        verdicts = []
        for lab in labels[1:]:
            ratio = med[lab] / med[ref] if med[ref] > 0 else float("nan")
            cells.append(f"{ratio:.2f}")
            if n < 2:
                verdicts.append("one run: no noise estimate")
            elif abs(ratio - 1) <= spread:
                verdicts.append("within noise")
            else:
                faster = ratio > 1 if unit in RATES else ratio < 1
                verdicts.append(f"**{'faster' if faster else 'slower'}**")
                outside.append((sec, name, human(size), lab, ratio, spread))
        cells.append(f"{spread:.2f}")
        cells += verdicts
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n", outside


def replace(page, name, text):
    begin, end = f"<!-- BEGIN generated: {name} -->", f"<!-- END generated: {name} -->"
    with open(page) as f:
        old = f.read().split("\n")
    if begin not in old or end not in old:
        sys.exit(f"before_after.py: {page} has no section '{name}' ({begin})")
    i, j = old.index(begin), old.index(end)
    new = old[:i + 1] + text.rstrip("\n").split("\n") + old[j:]
    with open(page, "w") as f:
        f.write("\n".join(new))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("builds", nargs="*", help="LABEL=BUILDDIR, the reference first")
    ap.add_argument("--work", required=True, help="raw outputs and builds.json")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--sections", default="node net")
    ap.add_argument("--bench", default=" ".join(BENCHES))
    ap.add_argument("--quick", action="store_true", help="compare.sh --quick")
    ap.add_argument("--table-only", action="store_true", help="measure nothing")
    ap.add_argument("--doc", help="page whose section --name gets the table of the page's sizes")
    ap.add_argument("--name", default="restructure")
    ap.add_argument("--full", help="file that gets the table of every size")
    ap.add_argument("--title", help="the heading of --full's file")
    args = ap.parse_args()
    status = 0
    if not args.table_only:
        builds = []
        for b in args.builds:
            lab, sep, d = b.partition("=")
            if not sep or not os.access(os.path.join(d, "scripts", "oshrun"), os.X_OK):
                sys.exit(f"before_after.py: '{b}': want LABEL=BUILDDIR of a built tree")
            builds.append((lab, os.path.abspath(d)))
        if len(builds) < 2:
            sys.exit("before_after.py: want two or more LABEL=BUILDDIR, the reference first")
        status = measure(args, builds)
    meta = load_meta(args.work)
    if meta is None:
        sys.exit(f"before_after.py: no runs in {args.work}")
    text, outside = table(args.work, meta, page_only=True)
    print(text)
    for sec, name, size, lab, ratio, spread in outside:
        print(f"before_after.py: outside noise: {sec} {name} {size} {lab}: ratio {ratio:.2f}, "
              f"spread {spread:.2f}", file=sys.stderr)
    if args.doc:
        replace(args.doc, args.name, text)
    if args.full:
        with open(args.full, "w") as f:
            f.write(f"# {args.title or f'Before and after ({args.name}): every size'}\n\n"
                    + table(args.work, meta, page_only=False)[0])
    return status


if __name__ == "__main__":
    sys.exit(main())
