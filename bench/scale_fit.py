#!/usr/bin/env python3
"""Fits how each cost of bench/scale grows with the number of PEs and
prints the Markdown of docs/performance.md's scale section.

    scale_fit.py [--cores N] scale.dat > scale.md

scale.dat: "HOSTS NPES METRIC VALUE UNIT" lines (bench/scale.sh).  For each
metric and host layout, four growth laws are fitted by least squares on
relative errors: a + b log2(n), a + b n, a + b n log2(n), a + b n^2; the
lowest one whose error is within 1.5 times the best one's is kept, and
predicts 1,024 and 16,384 PEs.  A fit whose error passes 30 % is marked:
its prediction says little.

Memory and CPU time per PE are fitted a + b n, always: what a PE keeps and
does for each other PE (its address, keys, connection, team tables) is
what such a cost is made of, and over 2 to 64 PEs a per-PE term of a few
kilobytes hides under the constant, which a log fit would take for no
growth at all.  The slope is printed per PE.

The machine has fewer cores than PEs: every PE's work takes turns on the
same cores, so a latency measured with n PEs on c cores carries about n/c
times the work of one PE.  The time metrics are therefore also fitted
after scaling by min(1, c/n) ("per core": what n PEs with a core each
would see if their work were spread evenly; a lower bound), and the
predictions come from that fit.  Memory is per PE and needs no such care.
"""

import math
import sys
from collections import defaultdict

MODELS = [
    ("O(log n)", lambda n: math.log2(n)),
    ("O(n)", lambda n: float(n)),
    ("O(n log n)", lambda n: n * math.log2(n)),
    ("O(n^2)", lambda n: float(n) * n),
]

# metric: (title, unit, kind); kind "time" gets the per-core scaling.
METRICS = [
    ("scale_init", "shmem_init", "ms", "time"),
    ("scale_init_pmix", "of which in PMIx", "ms", "time"),
    ("scale_init_cpu", "shmem_init CPU time, mean", "ms", "linear"),
    ("scale_first_contact", "first put to every PE + quiet", "ms", "time"),
    ("scale_second_contact", "second put to every PE + quiet", "ms", "time"),
    ("scale_malloc", "shmem_malloc 1 MiB", "us", "time"),
    ("scale_barrier", "barrier_all", "us", "time"),
    ("scale_fcollect", "fcollect 8 B", "us", "time"),
    ("scale_rss_init", "RSS after init", "MB", "linear"),
    ("scale_rss", "RSS after contact, largest PE", "MB", "linear"),
    ("scale_rss_mean", "RSS after contact, mean", "MB", "linear"),
]


def fit(points, f):
    """Least squares of v = a + b f(n) weighted by 1/v^2; (a, b, rel. rms)."""
    sw = sx = sy = sxx = sxy = 0.0
    for n, v in points:
        w = 1.0 / max(v, 1e-12) ** 2
        x = f(n)
        sw += w
        sx += w * x
        sy += w * v
        sxx += w * x * x
        sxy += w * x * v
    det = sw * sxx - sx * sx
    if abs(det) < 1e-300:
        return None
    b = (sw * sxy - sx * sy) / det
    a = (sy - b * sx) / sw
    if b < 0:
        # Growth laws only: a cost that falls is fitted by a constant.
        b = 0.0
        a = sy / sw
    err = math.sqrt(sum(((a + b * f(n)) - v) ** 2 / max(v, 1e-12) ** 2 for n, v in points)
                    / len(points))
    return a, b, err


def best_fit(points):
    if len(points) < 3:
        return None
    fits = []
    for name, f in MODELS:
        r = fit(points, f)
        if r:
            fits.append((name, f, r))
    if not fits:
        return None
    best = min(r[2] for _n, _f, r in fits)
    for name, f, r in fits:
        if r[2] <= 1.5 * best + 0.02:
            return name, f, r
    return fits[-1]


def fmt(x):
    if x is None:
        return "-"
    if x >= 1e6:
        return "%.3g" % x
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    if x >= 1:
        return "%.2f" % x
    return "%.3g" % x


def main():
    args = sys.argv[1:]
    cores = 2
    if args and args[0] == "--cores":
        cores = int(args[1])
        args = args[2:]
    if len(args) != 1:
        sys.exit("usage: scale_fit.py [--cores N] scale.dat")
    data = defaultdict(dict)  # (hosts, metric) -> {n: value}
    units = {}
    layouts = set()
    with open(args[0]) as f:
        for line in f:
            p = line.split()
            if len(p) != 5 or line.startswith("#"):
                continue
            h, n, m, v, u = int(p[0]), int(p[1]), p[2], float(p[3]), p[4]
            data[(h, m)][n] = v
            units[m] = u
            layouts.add(h)
    out = []
    for h in sorted(layouts):
        ns = sorted({n for (hh, m), d in data.items() if hh == h for n in d})
        if not ns:
            continue
        out.append("**%s** (%d cores in all; times are the slowest PE's):\n"
                   % ("1 host" if h == 1 else "%d hosts, PEs in blocks" % h, cores))
        cols = [m for m in METRICS if (h, m[0]) in data]
        out.append("| PEs | " + " | ".join("%s (%s)" % (t, u) for _m, t, u, _k in cols) + " |")
        out.append("|---:|" + "---:|" * len(cols))
        for n in ns:
            out.append("| %d | " % n + " | ".join(fmt(data[(h, m)].get(n)) for m, _t, _u, _k in cols)
                       + " |")
        out.append("")
    out.append("**Fits and predictions** (time metrics fitted per core, i.e. scaled by "
               "min(1, %d/n): see above):\n" % cores)
    out.append("| cost | hosts | growth | fit | rel. error | 1,024 PEs | 16,384 PEs |")
    out.append("|---|---:|---|---|---:|---:|---:|")
    for m, title, unit, kind in METRICS:
        for h in sorted(layouts):
            d = data.get((h, m))
            if not d:
                continue
            pts = sorted(d.items())
            if kind == "time":
                pts = [(n, v * min(1.0, cores / n)) for n, v in pts]
            if kind == "linear":
                f = MODELS[1][1]
                fr = fit(pts, f) if len(pts) >= 2 else None
                r = ("O(n)", f, fr) if fr else None
            else:
                r = best_fit(pts)
            if not r:
                continue
            name, f, (a, b, err) = r
            var = name.replace("O(", "").replace(")", "")
            if kind == "linear":
                per = b * (1024.0 if unit == "MB" else 1000.0)
                formula = "%s + %s n (%.3g %s per PE)" % (
                    fmt(a), "%.3g" % b, per, "KB" if unit == "MB" else "us")
            else:
                formula = "%s + %s %s" % (fmt(a), "%.3g" % b, var) if b > 0 else fmt(a)
            noisy = " (noisy)" if err > 0.30 else ""
            out.append("| %s (%s%s) | %d | %s | %s | %.0f %%%s | %s | %s |"
                       % (title, unit, ", per core" if kind == "time" else "", h, name, formula,
                          err * 100, noisy, fmt(a + b * f(1024)), fmt(a + b * f(16384))))
    print("\n".join(out))


if __name__ == "__main__":
    main()
