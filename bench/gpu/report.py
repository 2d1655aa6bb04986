#!/usr/bin/python3
"""A GPU run's result as dated Markdown tables, from the run's output.

    bench/gpu/report.py [--title TEXT] [--date DATE] [--doc FILE --name NAME] DIR...

DIR is what a run on the GPU host left: the summaries of tests/gpu/run.sh
(summary.txt, or summary_CONFIG.txt when the configurations ran one at a
time; summary_LABEL.txt of another LABEL, e.g. a forced algorithm, gives
columns "CONFIG (LABEL)") and the outputs of the benchmarks (in DIR or DIR/bench), read by
their lines, whatever the file's name (build logs, *build*.txt, are
skipped: they repeat what they ran):

  tests/gpu/run.sh       PASS|FAIL|SKIP PROG CONFIG (np=...) (...)
  gpu_put_bw             fabshmem_put SIZE VALUE GB/s, cuda_memcpy_peer ...,
                         fabshmem_sum_reduce SIZE VALUE us
  gpu_stream_bench       fabshmem_METRIC_on_stream SIZE VALUE UNIT,
                         ALGO_sum_reduce_on_stream ... (bench/gpu/run_stream.sh)
  gpu_stream_bench -h    fabshmem_host_METRIC_on_stream SIZE VALUE UNIT
                         [(US us a put)], in files host_LABEL_N.txt: one
                         column per LABEL (sockets_off1, sockets_off0, tcp)
  NVSHMEM's anchor       nvshmem_put_on_stream_GBps_SIZE VALUE, ...
  nvshmem_barrier.cu     nvshmem_barrier_on_stream_us VALUE
  NCCL (torch)           nccl_allreduce_us_SIZE VALUE

It prints (a) the pass/fail matrix of the tests, program by
configuration, and (b) the benchmarks beside NVSHMEM and NCCL where the
run has them: medians of the runs, and the ratios fabshmem / peer (for
times below 1 is faster, for GB/s above 1 is faster).  The date is the
first summary's unless --date gives it (without a summary: the time of
the newest file read; give --date for files out of git's history).  With --doc FILE --name NAME the
tables replace the text between <!-- BEGIN generated: NAME --> and
<!-- END generated: NAME --> in FILE instead of going to the output (as
bench/report.sh does for docs/performance.md).  Debian's python3 is
enough: the standard library only.
"""

import argparse
import collections
import os
import re
import statistics
import sys
import time

RESULT = re.compile(r"^(PASS|FAIL|SKIP) (\S+) (\S+) \(np=(\d+)[^)]*\) \((?:exit (\d+), )?([\d.]+) s\)")
HEAD = re.compile(r"^fabshmem GPU tests, (\d{4}-\d\d-\d\d) (\d\d:\d\d) UTC, host (\S+)")
GPU = re.compile(r"^  GPU (\d+), ([^,]+), ([^,]+), ")
# name size value unit [(US us a put)]
MEASURE = re.compile(r"^([a-z][a-z0-9_]*) (\d+) ([\d.]+) (GB/s|us)(?: \(([\d.]+) us a put\))?\s*$")
# NVSHMEM's anchor, nvshmem_barrier.cu, NCCL through torch: key value
PEER = re.compile(r"^(nvshmem_[a-z_]+?|cuda_memcpy_peer|nccl_allreduce)_(GBps|us)(?:_(\d+))?\s+([\d.]+)")
# tests/gpu/run.sh's configurations, in its order
CONFIGS = ("one mapped shm-nodirect tcp-nodirect tcp-vnode tcp-staged shm-staged four-mapped "
           "four-vnode sockets-vnode four-sockets shm-hmem four-hmem shm-proxy tcp-proxy "
           "sockets-proxy four-shm-proxy four-tcp-proxy four-sockets-proxy tcp-noproxy").split()
PROGS = "gpu_heap gpu_rma gpu_reduce gpu_stream gpu_reg gpu_check".split()
SUMMARY = re.compile(r"^summary_(.+)\.txt$")
# The device API (gpu_device_bench, gpu_device's barrier loop).
DEVBENCH = re.compile(r"^gpu_device_bench: (\w+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+[\d.]+")
DEVFADD = re.compile(r"^gpu_device_bench: fetch_add latency ([\d.]+) us, throughput ([\d.]+) M/s")
# NVSHMEM's side: the same program built against NVSHMEM (-DDEVBENCH_NVSHMEM)
NVDEVBENCH = re.compile(r"^nvshmem_device_bench: (\w+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+[\d.]+")
NVDEVFADD = re.compile(r"^nvshmem_device_bench: fetch_add latency ([\d.]+) us, throughput ([\d.]+) M/s")
DEVBAR = re.compile(r"^\s*gpu_device: \d+ device barriers at (\d+) PEs: ([\d.]+) us each")
HOSTFILE = re.compile(r"^host_(.+?)(?:_\d+)?\.txt$")
# The device API through the proxy (gpu_proxy_bench_PROV.txt).
PXBENCH = re.compile(r"^gpu_proxy_bench: (\w+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+[\d.]+")
PXFILE = re.compile(r"^gpu_proxy_bench_(\w+)\.txt$")


class Run:
    def __init__(self):
        self.results = collections.OrderedDict()  # (prog, config) -> (status, secs, np)
        self.configs = []
        self.progs = []
        self.dates = []
        self.gpus = {}
        self.host = None
        self.mtime = 0
        self.v = collections.defaultdict(list)  # (group, name, size) -> values

    def read(self, path):
        self.mtime = max(self.mtime, os.path.getmtime(path))
        m = HOSTFILE.match(os.path.basename(path)) or PXFILE.match(os.path.basename(path))
        group = m.group(1) if m else ""
        m = SUMMARY.match(os.path.basename(path))
        label = m.group(1) if m else None
        with open(path, errors="replace") as f:
            for line in f:
                self.line(line.rstrip("\n"), group, label)

    def line(self, line, group, label=None):
        m = HEAD.match(line)
        if m:
            self.dates.append(m.group(1) + " " + m.group(2))
            self.host = m.group(3)
            return
        m = GPU.match(line)
        if m:
            self.gpus[int(m.group(1))] = (m.group(2), m.group(3))
            return
        m = RESULT.match(line)
        if m:
            status, prog, config, np = m.group(1), m.group(2), m.group(3), int(m.group(4))
            if label and label != config:  # summary_LABEL.txt of another setting (oneshot)
                config = f"{config} ({label})"
            if config not in self.configs:
                self.configs.append(config)
                order = {c: i for i, c in enumerate(CONFIGS)}
                self.configs.sort(key=lambda c: (order.get(c.split()[0], len(CONFIGS)), c))
            if prog not in self.progs:
                self.progs.append(prog)
                self.progs.sort(key=lambda p: (PROGS.index(p) if p in PROGS else len(PROGS), p))
            self.results[(prog, config)] = (status, float(m.group(6)), np)
            return
        m = DEVBENCH.match(line)
        if m:
            name, size, fab, floor = m.groups()
            self.v[("device", name, int(size))].append(float(fab))
            self.v[("device", name + "_floor", int(size))].append(float(floor))
            return
        m = DEVFADD.match(line)
        if m:
            self.v[("device", "fetch_add_us", 0)].append(float(m.group(1)))
            self.v[("device", "fetch_add_mops", 0)].append(float(m.group(2)))
            return
        m = NVDEVBENCH.match(line)
        if m:
            name, size, nv, floor = m.groups()
            self.v[("nvdevice", name, int(size))].append(float(nv))
            self.v[("nvdevice", name + "_floor", int(size))].append(float(floor))
            return
        m = NVDEVFADD.match(line)
        if m:
            self.v[("nvdevice", "fetch_add_us", 0)].append(float(m.group(1)))
            self.v[("nvdevice", "fetch_add_mops", 0)].append(float(m.group(2)))
            return
        m = PXBENCH.match(line)
        if m:
            name, size, k, h = m.groups()
            self.v[("proxy " + group, name, int(size))].append(float(k))
            self.v[("proxy " + group, name + "_host", int(size))].append(float(h))
            return
        m = DEVBAR.match(line)
        if m:
            self.v[("device_barrier", label or "", int(m.group(1)))].append(float(m.group(2)))
            return
        m = MEASURE.match(line)
        if m:
            name, size, value, unit, us = m.groups()
            self.v[(group, name, int(size))].append(float(value))
            if us is not None:
                self.v[(group, name + "_us", int(size))].append(float(us))
            return
        m = PEER.match(line)
        if m:
            name, unit, size, value = m.groups()
            if name == "cuda_memcpy_peer":  # the anchor's cudaMemcpyPeerAsync floor
                name = "anchor_memcpy_peer_async"
            self.v[("", name, int(size) if size else 0)].append(float(value))

    def med(self, name, size, group=""):
        x = self.v.get((group, name, size))
        return statistics.median(x) if x else None

    def runs(self, name, size, group=""):
        return self.v.get((group, name, size), [])

    def sizes(self, name, group=""):
        return sorted(s for (g, n, s) in self.v if g == group and n == name)


def num(x, digits=2):
    if x is None:
        return ""
    if x >= 1000:
        return f"{x:.0f}"
    return f"{x:.{digits}f}"


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else ""


def spread(run, name, size):
    """The median, and the runs in brackets where there are several."""
    x = run.runs(name, size)
    if not x:
        return ""
    m = num(statistics.median(x))
    if len(x) > 1:
        m += " (" + ", ".join(num(y) for y in x) + ")"
    return m


def size_name(s):
    for unit, n in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if s >= n and s % n == 0:
            return f"{s // n} {unit}"
    return f"{s} B"


def header(run, title, date):
    if date:
        when = date
    elif run.dates:
        when = min(run.dates) + " UTC"
    else:  # no summary: the time of the newest output file
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(run.mtime))
    gpus = collections.Counter(name for name, _ in run.gpus.values())
    on = ", ".join(f"{n} {name}" for name, n in gpus.items())
    drivers = sorted({d for _, d in run.gpus.values()})
    out = [f"{title}, {when}" + (f", {on} (driver {', '.join(drivers)})" if on else "") + ":", ""]
    return out


def tests_table(run):
    if not run.results:
        return []
    out = ["| program | " + " | ".join(run.configs) + " |",
           "|---|" + "---|" * len(run.configs)]
    for prog in run.progs:
        cells = []
        for c in run.configs:
            r = run.results.get((prog, c))
            cells.append("" if r is None else
                         (r[0].lower() if r[0] != "FAIL" else "**FAIL**") + f" {r[1]:.1f} s")
        out.append(f"| {prog} | " + " | ".join(cells) + " |")
    n = collections.Counter(r[0] for r in run.results.values())
    nps = {c: {r[2] for (p, cc), r in run.results.items() if cc == c} for c in run.configs}
    pes = ", ".join(f"{c} {'/'.join(str(x) for x in sorted(nps[c]))}" for c in run.configs)
    out += ["", f"tests/gpu/run.sh: {n['PASS']} passed, {n['FAIL']} failed, {n['SKIP']} skipped "
            f"(PEs: {pes}; seconds per run).", ""]
    return out


def put_table(run):
    """gpu_put_bw: the blocking put beside the CUDA runtime's copies and NVSHMEM."""
    sizes = run.sizes("fabshmem_put")
    if not sizes:
        return []
    out = ["| put, bytes | fabshmem (blocking) GB/s | cudaMemcpyPeer, each waited | "
           "cudaMemcpyPeerAsync, one wait | NVSHMEM on stream | put / cudaMemcpyPeer | put / NVSHMEM |",
           "|---:|---:|---:|---:|---:|---:|---:|"]
    for s in sizes:
        a, p, q, n = (run.med(k, s) for k in ("fabshmem_put", "cuda_memcpy_peer",
                                                "cuda_memcpy_peer_async", "nvshmem_put_on_stream"))
        out.append(f"| {size_name(s)} | {num(a, 1)} | {num(p, 1)} | {num(q, 1)} | "
                   f"{spread(run, 'nvshmem_put_on_stream', s)} | {ratio(a, p)} | {ratio(a, n)} |")
    out.append("")
    sizes = run.sizes("fabshmem_sum_reduce")
    if sizes:
        out += ["| float32 sum, bytes | fabshmem (blocking) us | NVSHMEM on stream us | fabshmem / NVSHMEM |",
                "|---:|---:|---:|---:|"]
        for s in sizes:
            a, b = run.med("fabshmem_sum_reduce", s), run.med("nvshmem_sum_reduce_on_stream", s)
            out.append(f"| {size_name(s)} | {num(a)} | {spread(run, 'nvshmem_sum_reduce_on_stream', s)} | "
                       f"{ratio(a, b)} |")
        out.append("")
    return out


def stream_table(run):
    """gpu_stream_bench on device memory beside NVSHMEM (and NCCL for the sum)."""
    rows = [("put_on_stream", "put", "GB/s", "nvshmem_put_on_stream", None),
            ("pingpong_on_stream", "put with signal + wait, half round trip", "us",
             "nvshmem_stream_pingpong_half_rtt", 0),
            ("pingpong_on_stream_copy", "the same, copy and stream write (no fused kernel)", "us",
             "nvshmem_stream_pingpong_half_rtt", 0),
            ("barrier_on_stream", "barrier_all", "us", "nvshmem_barrier_on_stream", 0),
            ("sum_reduce_on_stream", "float32 sum", "us", "nvshmem_sum_reduce_on_stream", None)]
    if not any(run.sizes("fabshmem_" + m) for m, *_ in rows):
        return []
    nccl = bool(run.sizes("nccl_allreduce"))
    out = ["| on a CUDA stream | size | fabshmem | NVSHMEM (its runs) | fabshmem / NVSHMEM |"
           + (" NCCL all-reduce | fabshmem / NCCL |" if nccl else ""),
           "|---|---:|---:|---:|---:|" + ("---:|---:|" if nccl else "")]
    for m, label, unit, peer, psize in rows:
        for s in run.sizes("fabshmem_" + m):
            a = run.med("fabshmem_" + m, s)
            ps = s if psize is None else psize
            b = run.med(peer, ps)
            line = f"| {label} | {size_name(s) if s else ''} | {num(a)} {unit} | {spread(run, peer, ps)} | {ratio(a, b)} |"
            if nccl:
                c = run.med("nccl_allreduce", s) if m == "sum_reduce_on_stream" else None
                line += f" {spread(run, 'nccl_allreduce', s) if c else ''} | {ratio(a, c)} |"
            out.append(line)
    fl, pa = run.med("anchor_memcpy_peer_async", 268435456), run.med("fabshmem_put_on_stream", 268435456)
    out.append("")
    if fl and pa:
        out += [f"Put on a stream at 256 MiB / `cudaMemcpyPeerAsync` (NVSHMEM's anchor): "
                f"{pa:.1f} / {fl:.1f} GB/s = {pa / fl:.2f}.", ""]
    return out


def algo_table(run):
    """The reduction with each algorithm forced (FABSHMEM_GPU_REDUCE_ALGO)."""
    algos = [a for a in ("oneshot", "rsag", "auto") if run.sizes(a + "_sum_reduce_on_stream")]
    if not algos:
        return []
    nccl = bool(run.sizes("nccl_allreduce"))
    nv = bool(run.sizes("nvshmem_sum_reduce_on_stream"))
    auto = "auto" if "auto" in algos else "fabshmem"
    out = ["| float32 sum on a stream | " + " | ".join(f"{a} us" for a in algos)
           + (" | auto us" if auto == "fabshmem" else "")
           + (" | rsag / oneshot" if "rsag" in algos and "oneshot" in algos else "")
           + (" | NVSHMEM us | auto / NVSHMEM" if nv else "")
           + (" | NCCL all-reduce us | auto / NCCL" if nccl else "") + " |"]
    ncol = out[0].count("|") - 1
    out.append("|" + "---:|" * ncol)
    sizes = sorted({s for a in algos for s in run.sizes(a + "_sum_reduce_on_stream")})
    for s in sizes:
        cells = [num(run.med(a + "_sum_reduce_on_stream", s)) for a in algos]
        au = run.med(auto + "_sum_reduce_on_stream", s)
        if auto == "fabshmem":
            cells.append(num(au))
        if "rsag" in algos and "oneshot" in algos:
            cells.append(ratio(run.med("rsag_sum_reduce_on_stream", s), run.med("oneshot_sum_reduce_on_stream", s)))
        if nv:
            b = run.med("nvshmem_sum_reduce_on_stream", s)
            cells += [num(b), ratio(au, b)]
        if nccl:
            c = run.med("nccl_allreduce", s)
            cells += [num(c), ratio(au, c)]
        out.append(f"| {size_name(s)} | " + " | ".join(cells) + " |")
    out.append("")
    return out


HOST_LABELS = {"sockets_off1": "sockets, triggered", "sockets_off0": "sockets, worker",
               "tcp": "tcp, worker"}


def host_table(run):
    """gpu_stream_bench -h: host buffers on a CUDA stream, by file label."""
    groups = sorted({g for (g, _, _) in run.v if g and not g.startswith(("device", "nvdevice", "proxy "))},
                    key=lambda g: (g != "sockets_off1", g != "sockets_off0", g))
    if not groups:
        return []
    trig = "sockets_off1" in groups and "sockets_off0" in groups
    out = ["| host buffers on a CUDA stream, us | size | "
           + " | ".join(HOST_LABELS.get(g, g) for g in groups)
           + (" | triggered / worker" if trig else "") + " |"]
    out.append("|---|---:|" + "---:|" * (len(groups) + trig))
    rows = [("fabshmem_host_put_on_stream_us", "put"),
            ("fabshmem_host_pingpong_on_stream", "put with signal + wait, half round trip"),
            ("fabshmem_host_put_signal_on_stream", "put with signal, a stream of them")]
    for name, label in rows:
        sizes = sorted({s for g in groups for s in run.sizes(name, g)})
        for s in sizes:
            vals = [run.med(name, s, g) for g in groups]
            line = f"| {label} | {size_name(s)} | " + " | ".join(num(x, 1) for x in vals)
            if trig:
                line += " | " + ratio(run.med(name, s, "sockets_off1"), run.med(name, s, "sockets_off0"))
            out.append(line + " |")
    out.append("")
    return out


def device_table(run):
    """The device API: gpu_device_bench beside its floors, the barrier loop."""
    out = []
    rows = [("p_pingpong", "p + wait_until ping-pong, half round trip", "plain flag ping-pong"),
            ("p_plainwait", "p + a plain wait, half round trip", "plain flag ping-pong"),
            ("fence_pingpong", "plain ping-pong with a system fence before each store",
             "plain flag ping-pong"),
            ("barrier", "barrier_all (one thread)", "plain ping-pong round trip"),
            ("sync_all", "sync_all (one thread, no quiet)", "plain ping-pong round trip"),
            ("put_block_bw", "putmem_block, 132 blocks", "plain copy kernel, 132 blocks"),
            ("allreduce_blk", "float sum_reduce_block, 1 block", "plain kernel, 1 block"),
            ("allreduce_graph", "the same, 100 launches replayed from a CUDA graph",
             "plain kernel, 1 block, from a graph")]
    if any(run.sizes(n, "device") for n, _, _ in rows):
        out += ["| device API | size | fabshmem us | floor us | ratio | floor |",
                "|---|---:|---:|---:|---:|---|"]
        for name, label, floor in rows:
            for s in run.sizes(name, "device"):
                a, b = run.med(name, s, "device"), run.med(name + "_floor", s, "device")
                out.append(f"| {label} | {size_name(s) if s else ''} | {num(a, 3)} | {num(b, 3)} "
                           f"| {ratio(a, b)} | {floor} |")
        lat, rate = run.med("fetch_add_us", 0, "device"), run.med("fetch_add_mops", 0, "device")
        if lat is not None:
            out.append(f"| fetch_add (uint64) | | {num(lat, 3)} | | | "
                       f"{num(rate, 0)} M/s from 132x256 threads |")
        out.append("")
    bars = sorted((n, s) for (g, n, s) in run.v if g == "device_barrier")
    if bars:
        out += ["| device barrier loop (gpu_device) | PEs | us per barrier |", "|---|---:|---:|"]
        for label, pes in bars:
            out.append(f"| {label or 'run'} | {pes} | {num(run.med(label, pes, 'device_barrier'), 2)} |")
        out.append("")
    return out


# Issue 32's targets for the device API beside NVSHMEM's: the largest
# fabshmem / NVSHMEM ratio of times that meets each (for bandwidth, at least
# 0.95x NVSHMEM's GB/s from 1 MiB up: a time ratio of at most 1 / 0.95).
NV_TARGETS = {"p_pingpong": 1.0, "barrier": 1.0, "put_block_bw": 1 / 0.95,
              "allreduce_blk": 1.0, "fetch_add_us": 1.2}


def nvdevice_table(run):
    """The device API beside NVSHMEM's device API: gpu_device_bench and the
    same program built against NVSHMEM (nvshmem_device_bench), same run."""
    rows = [("p_pingpong", "p + wait_until ping-pong, half round trip"),
            ("barrier", "barrier_all (one thread)"),
            ("sync_all", "sync_all (one thread)"),
            ("put_block_bw", "putmem_block, 132 blocks"),
            ("allreduce_blk", "float sum_reduce_block, 1 block"),
            ("allreduce_graph", "the same, replayed from a CUDA graph")]
    if not any(run.sizes(n, "nvdevice") for n, _ in rows):
        return []
    out = ["| device API beside NVSHMEM | size | fabshmem us | NVSHMEM us (its runs) | "
           "fabshmem / NVSHMEM | target | floor us, fabshmem's run / NVSHMEM's |",
           "|---|---:|---:|---:|---:|---|---:|"]

    def target(name, s, r):
        t = NV_TARGETS.get(name)
        if t is None or r is None or (name == "put_block_bw" and s < (1 << 20)):
            return ""
        return (f"{t:.2f}: met" if r <= t else f"{t:.2f}: **not met**")

    for name, label in rows:
        for s in sorted(set(run.sizes(name, "device")) | set(run.sizes(name, "nvdevice"))):
            a, b = run.med(name, s, "device"), run.med(name, s, "nvdevice")
            fa, fb = run.med(name + "_floor", s, "device"), run.med(name + "_floor", s, "nvdevice")
            r = a / b if a and b else None
            nv = run.runs(name, s, "nvdevice")
            nvs = num(b, 3) + (" (" + ", ".join(num(y, 3) for y in nv) + ")" if len(nv) > 1 else "")
            out.append(f"| {label} | {size_name(s) if s else ''} | {num(a, 3)} | {nvs} | "
                       f"{ratio(a, b)} | {target(name, s, r)} | {num(fa, 3)} / {num(fb, 3)} |")
    a, b = run.med("fetch_add_us", 0, "device"), run.med("fetch_add_us", 0, "nvdevice")
    if a is not None or b is not None:
        r = a / b if a and b else None
        ra, rb = run.med("fetch_add_mops", 0, "device"), run.med("fetch_add_mops", 0, "nvdevice")
        out.append(f"| fetch_add (uint64) latency | | {num(a, 3)} | {num(b, 3)} | {ratio(a, b)} | "
                   f"{target('fetch_add_us', 0, r)} | |")
        out.append(f"| fetch_add throughput, M/s (132x256 threads; higher is better) | | "
                   f"{num(ra, 0)} | {num(rb, 0)} | {ratio(ra, rb)} | | |")
    out += ["", "Times in us (lower is better); the target column is issue 32's largest "
            "fabshmem / NVSHMEM time ratio (block put: 0.95x NVSHMEM's bandwidth from 1 MiB up). "
            "The floors are the plain kernels of each program's own run (the same kernels in both).",
            ""]
    return out


def proxy_table(run):
    """The device API through the proxy (gpu_proxy_bench) beside the host's
    operations, per provider."""
    out = []
    rows = [("put_lat", "blocking put latency", "shmem_putmem + shmem_quiet"),
            ("put_bw", "putmem_nbi x REPS + quiet", "the same by the host"),
            ("fadd_lat", "fetch_add latency", "shmem_uint64_atomic_fetch_add"),
            ("barrier", "barrier_all (one thread)", "shmem_barrier_all")]
    provs = sorted({g[len("proxy "):] for (g, n, s) in run.v if g.startswith("proxy ")})
    if not provs:
        return out
    out += ["| proxy (2 PEs, virtual nodes) | provider | size | kernel us | host us | ratio | host |",
            "|---|---|---:|---:|---:|---:|---|"]
    for name, label, host in rows:
        for prov in provs:
            for s in run.sizes(name, "proxy " + prov):
                a = run.med(name, s, "proxy " + prov)
                b = run.med(name + "_host", s, "proxy " + prov)
                out.append(f"| {label} | {prov} | {size_name(s) if s else ''} | {num(a, 3)} | "
                           f"{num(b, 3)} | {ratio(a, b)} | {host} |")
    out.append("")
    return out


def report(run, title, date):
    out = header(run, title, date)
    body = (tests_table(run) + put_table(run) + stream_table(run) + algo_table(run) +
            host_table(run) + device_table(run) + nvdevice_table(run) + proxy_table(run))
    if not body:
        raise SystemExit("report.py: no test summary and no benchmark output found in the folders given")
    nruns = sorted({len(x) for (g, n, s), x in run.v.items() if n.startswith(("fabshmem", "oneshot", "rsag", "auto", "nvshmem", "nccl"))})
    if nruns:
        body.append(f"Benchmarks: medians of {' or '.join(str(n) for n in nruns)} runs each; "
                    "us lower and GB/s higher are better. Generated by `bench/gpu/report.py`.")
    else:
        body.append("Generated by `bench/gpu/report.py`.")
    return "\n".join(out + body).rstrip() + "\n"


def files(d):
    if os.path.isfile(d):
        return [d]
    found = []
    for sub in (d, os.path.join(d, "bench")):
        if os.path.isdir(sub):
            # build logs (nvshmem_build.txt, pybuild.txt) repeat what they ran
            found += sorted(os.path.join(sub, f) for f in os.listdir(sub)
                            if f.endswith(".txt") and "build" not in f
                            and os.path.isfile(os.path.join(sub, f)))
    if not found:
        raise SystemExit(f"report.py: {d}: no .txt output there (nor in {d}/bench)")
    return found


def put_in_doc(doc, name, text):
    begin, end = f"<!-- BEGIN generated: {name} -->", f"<!-- END generated: {name} -->"
    try:
        with open(doc) as f:
            page = f.read()
    except OSError as e:
        raise SystemExit(f"report.py: --doc {doc}: {e.strerror}")
    i, j = page.find(begin), page.find(end)
    if i < 0 or j < i:
        raise SystemExit(f"report.py: {doc} has no '{begin}' ... '{end}' pair")
    page = page[:i + len(begin)] + "\n" + text + page[j:]
    with open(doc, "w") as f:
        f.write(page)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dirs", nargs="+", metavar="DIR")
    p.add_argument("--title", default="GPU run")
    p.add_argument("--date", help="the run's date (default: the first summary's)")
    p.add_argument("--doc", help="the page whose generated part NAME to replace")
    p.add_argument("--name", help="the generated part of --doc")
    a = p.parse_args(argv)
    if bool(a.doc) != bool(a.name):
        p.error("--doc and --name go together")
    run = Run()
    for d in a.dirs:
        for path in files(d):
            run.read(path)
    text = report(run, a.title, a.date)
    if a.doc:
        put_in_doc(a.doc, a.name, text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
