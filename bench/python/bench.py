"""fabshmem.core beside mpi4py on the same NumPy arrays, and beside the C
routines it calls, in one run:

    scripts/oshrun -n 2 /usr/bin/python3 bench/python/bench.py [--reps 7] [--budget 0.2]
        [--c-loops bench/python/.libs/libc_loops.so]

(from the build tree: PYTHONPATH=python/build/lib LD_LIBRARY_PATH=.libs).
Every PE runs both libraries (fabshmem booted by the launcher's PMIx,
mpi4py's MPI by the same launcher).  The cases run interleaved, each
repetition measuring every column in turn, and the tables give the median
over the repetitions of the mean time of one operation:

  put latency   8-byte put + quiet, PE 0 to PE 1: fabshmem.core.put + quiet
                against Win.Put + Win.Flush of mpi4py (a passive-target epoch,
                Lock_all) on two windows: MPI.Win.Allocate (memory MPI
                allocates, which Open MPI maps between the processes of a
                node: the faster) and MPI.Win.Create over the same heap
                array (memory the program brings); a row for each window
  put bandwidth put + quiet of 64 KiB and 1 MiB, the same pairs
  reduce        a 1 MiB float32 sum over every PE: reduce(TEAM_WORLD, ...)
                against comm.Allreduce on the same arrays
  barrier       barrier_all against comm.Barrier
and the binding's cost: each routine against the same C routine looped
in C (bench/python/c_loops.c, a module of the build tree that this script
loads with ctypes: --c-loops), on the same arrays.
The targets of issue 17 (2 PEs on the node path): put + quiet and
barrier at most half of mpi4py's time, the reduction at most half of
Allreduce's, at most 1 us added per call over C.
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

import numpy as np
from mpi4py import MPI

import fabshmem.core as nv

comm = MPI.COMM_WORLD

# bench/python/c_loops.c: what of the loop, and the module once loaded.
C_LOOPS = {"put_quiet": 0, "put": 1, "barrier_all": 2, "reduce_sum_float32": 3, "quiet": 4,
           "get": 5}
c_loops = None


def load_c_loops(path):
    """The C loops' module: path, or where the build tree makes it (the
    current directory's bench/python/.libs, then this script's .libs, for a
    build in the source tree)."""
    global c_loops
    here = os.path.dirname(os.path.abspath(__file__))
    for p in [path] if path else [os.path.join("bench", "python", ".libs", "libc_loops.so"),
                                  os.path.join(here, ".libs", "libc_loops.so")]:
        if os.path.exists(p):
            c_loops = ctypes.CDLL(os.path.abspath(p))
            break
    else:
        sys.exit(f"bench.py: no {path or 'bench/python/.libs/libc_loops.so'} (make builds it; "
                 "--c-loops names it)")
    c_loops.fabbench_c_loop.restype = ctypes.c_double
    c_loops.fabbench_c_loop.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                        ctypes.c_size_t, ctypes.c_int, ctypes.c_long]


def c_loop(what, dst, src, pe, iters):
    """Seconds that iters repetitions of what take from C: put_quiet
    (shmem_putmem + shmem_quiet of all of src into dst on pe), put, get (all
    of dst from src on pe), quiet, barrier_all, reduce_sum_float32 (over
    TEAM_WORLD, all of dst)."""
    d, s = np.asarray(dst), np.asarray(src)
    assert d.flags.c_contiguous and s.flags.c_contiguous
    nbytes = s.nbytes if what.startswith("put") else d.nbytes
    t = c_loops.fabbench_c_loop(C_LOOPS[what], d.ctypes.data, s.ctypes.data, nbytes, pe, iters)
    if t < 0:
        raise ValueError(f"c_loop: unknown {what!r}")
    return t


def sample(col, n):
    """Seconds of n iterations of a column on this PE.  The PEs that only
    wait (the targets of puts) wait in the column's own library, so that
    an MPI target is in MPI (its progress) and a fabshmem one in fabshmem."""
    fn, kind = col
    nv.barrier_all()
    comm.Barrier()
    t = fn(n)
    if kind == "mpi":
        comm.Barrier()
    else:
        nv.barrier_all()
    return t


def calibrate(col, budget):
    """Iterations that take about budget seconds on PE 0 (all PEs agree)."""
    n = 1
    while True:
        t = sample(col, n)
        t = comm.bcast(t, root=0)
        if t >= budget / 4 or n >= 1 << 24:
            return comm.bcast(max(1, int(n * budget / max(t, 1e-9))), root=0)
        n *= 4


class Case:
    """One operation, measured by several columns (functions of the number
    of iterations that return seconds)."""

    def __init__(self, name, size, columns):
        self.name, self.size, self.columns = name, size, columns
        self.iters = {}
        self.samples = {c: [] for c in columns}

    def run(self, budget):
        for name, col in self.columns.items():
            if name not in self.iters:
                sample(col, 100)  # warm up
                self.iters[name] = calibrate(col, budget)
            n = self.iters[name]
            self.samples[name].append(sample(col, n) / n)

    def median(self, col):
        return statistics.median(self.samples[col])


def timer(body, kind="fab"):
    def fn(n):
        t0 = time.perf_counter()
        body(n)
        return time.perf_counter() - t0
    return fn, kind


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--budget", type=float, default=0.2, help="seconds per sample")
    ap.add_argument("--c-loops", help="the module of bench/python/c_loops.c "
                    "(default: bench/python/.libs/libc_loops.so)")
    args = ap.parse_args()
    load_c_loops(args.c_loops)

    nv.init()
    me, npes = nv.my_pe(), nv.n_pes()
    if npes < 2:
        if me == 0:
            print("bench.py: needs 2 PEs or more")
        nv.finalize()
        return 0
    peer = 1
    driver = me == 0
    cases = []

    # ---- put + quiet, and MPI's two windows: its own memory, the heap array ----
    sizes = [8, 64 * 1024, 1 << 20]
    dst = nv.array((1 << 20,), "uint8")
    src = nv.array((1 << 20,), "uint8")
    src[:] = 7
    wins = {"Win.Allocate": MPI.Win.Allocate(1 << 20, 1, comm=comm),
            "Win.Create": MPI.Win.Create(dst, comm=comm)}
    for win in wins.values():
        win.Lock_all()
    for size in sizes:
        d, s = dst[:size], src[:size]

        def fab_py(n, d=d, s=s):
            if driver:
                for _ in range(n):
                    nv.put(d, s, None, peer)
                    nv.quiet()

        def fab_c(n, d=d, s=s):
            if driver:
                c_loop("put_quiet", d, s, peer, n)

        def mpi(n, win, s=s, size=size):
            if driver:
                target = (0, size, MPI.BYTE)
                for _ in range(n):
                    win.Put(s, peer, target)
                    win.Flush(peer)

        cols = {"fabshmem.core": timer(fab_py), "C": timer(fab_c)}
        for wname, win in wins.items():
            cols["mpi4py " + wname] = timer(lambda n, win=win, mpi=mpi: mpi(n, win), "mpi")
        cases.append(Case("put + quiet", size, cols))

    # ---- the binding's cost per call, 8 bytes ----
    d8, s8 = dst[:8], src[:8]
    local8 = np.zeros(8, np.uint8)

    def py_put(n):
        if driver:
            for _ in range(n):
                nv.put(d8, s8, None, peer)
            nv.quiet()

    def c_put(n):
        if driver:
            c_loop("put", d8, s8, peer, n)
            nv.quiet()

    def py_get(n):
        if driver:
            for _ in range(n):
                nv.get(local8, d8, None, peer)

    def c_get(n):
        if driver:
            c_loop("get", local8, d8, peer, n)

    def py_quiet(n):
        for _ in range(n):
            nv.quiet()

    def c_quiet(n):
        c_loop("quiet", d8, s8, peer, n)

    # A reduction of 2 float32 elements: its cost is the binding's and the
    # collective's start, not the data's.
    sdst = nv.array((2,), "float32")
    ssrc = nv.array((2,), "float32")
    ssrc[:] = 1

    def py_small_reduce(n):
        for _ in range(n):
            nv.reduce(nv.Teams.TEAM_WORLD, sdst, ssrc, "sum")

    def c_small_reduce(n):
        c_loop("reduce_sum_float32", sdst, ssrc, 0, n)

    overhead = [Case("put (8 B)", 8, {"Python": timer(py_put), "C": timer(c_put)}),
                Case("get (8 B)", 8, {"Python": timer(py_get), "C": timer(c_get)}),
                Case("quiet", 0, {"Python": timer(py_quiet), "C": timer(c_quiet)}),
                Case("sum reduce float32 (8 B)", 8, {"Python": timer(py_small_reduce),
                                                     "C": timer(c_small_reduce)})]

    # ---- reduce 1 MiB float32 ----
    n32 = (1 << 20) // 4
    rsrc = nv.array((n32,), "float32")
    rdst = nv.array((n32,), "float32")
    rsrc[:] = me + 1

    def fab_reduce(n):
        for _ in range(n):
            nv.reduce(nv.Teams.TEAM_WORLD, rdst, rsrc, "sum")

    def c_reduce(n):
        c_loop("reduce_sum_float32", rdst, rsrc, 0, n)

    def mpi_reduce(n):
        for _ in range(n):
            comm.Allreduce(rsrc, rdst, op=MPI.SUM)

    cases.append(Case("sum reduce float32", 1 << 20,
                      {"fabshmem.core": timer(fab_reduce), "mpi4py": timer(mpi_reduce, "mpi"),
                       "C": timer(c_reduce)}))

    # ---- barrier ----
    def fab_barrier(n):
        for _ in range(n):
            nv.barrier_all()

    def c_barrier(n):
        c_loop("barrier_all", d8, s8, 0, n)

    def mpi_barrier(n):
        for _ in range(n):
            comm.Barrier()

    cases.append(Case("barrier", npes, {"fabshmem.core": timer(fab_barrier),
                                        "mpi4py": timer(mpi_barrier, "mpi"), "C": timer(c_barrier)}))

    for _ in range(args.reps):
        for c in cases + overhead:
            c.run(args.budget)
    for win in wins.values():
        win.Unlock_all()
    comm.Barrier()
    allocated = np.frombuffer(wins["Win.Allocate"].tomemory(), np.uint8)
    ok = (rdst == npes * (npes + 1) / 2).all() and \
        (me != peer or ((dst[:8] == 7).all() and (allocated[:8] == 7).all()))
    del allocated
    for win in wins.values():
        win.Free()
    if driver:
        env = {k: v for k, v in os.environ.items() if k.startswith(("FABSHMEM_", "SHMEM_"))}
        print(f"# fabshmem.core beside mpi4py: {npes} PEs, {args.reps} repetitions, "
              f"medians; environment {env or '(defaults)'}")
        print("| operation | size | mpi4py's window | fabshmem.core | mpi4py | fabshmem/mpi4py "
              "| C | target |")
        print("|---|---|---|---|---|---|---|---|")
        for c in cases:
            f, cc = c.median("fabshmem.core"), c.median("C")
            size = c.size if c.name != "barrier" else f"{c.size} PEs"
            # One row per MPI window for the puts; the collectives have none.
            mcols = [k for k in c.columns if k.startswith("mpi4py")]
            for mcol in mcols:
                m = c.median(mcol)
                window = mcol[len("mpi4py "):] or "—"
                if c.name == "put + quiet" and c.size >= 65536:
                    row = (f"{c.size / f / 1e9:.2f} GB/s", f"{c.size / m / 1e9:.2f} GB/s",
                           f"{m / f:.2f}x bandwidth", f"{c.size / cc / 1e9:.2f} GB/s", "")
                else:
                    verdict = "met" if f / m <= 0.5 else "MISSED"
                    row = (f"{f * 1e6:.3f} us", f"{m * 1e6:.3f} us", f"{f / m:.3f}",
                           f"{cc * 1e6:.3f} us", f"<= 0.5 {verdict}")
                print(f"| {c.name} | {size} | {window} | " + " | ".join(row) + " |")
        print()
        print("| call | C | Python | added per call | Python/C | target |")
        print("|---|---|---|---|---|---|")
        for c in overhead:
            p, cc = c.median("Python"), c.median("C")
            add = (p - cc) * 1e6
            print(f"| {c.name} | {cc * 1e6:.3f} us | {p * 1e6:.3f} us | {add:.3f} us | "
                  f"{p / cc:.2f} | <= 1 us {'met' if add <= 1 else 'MISSED'} |")
        for c in cases:
            if c.name == "put + quiet" and c.size == 8:
                add = (c.median("fabshmem.core") - c.median("C")) * 1e6 / 2
                print(f"| put + quiet (8 B), per call | | | {add:.3f} us | | "
                      f"<= 1 us {'met' if add <= 1 else 'MISSED'} |")
        sys.stdout.flush()
    for a in (dst, src, rsrc, rdst, sdst, ssrc):
        nv.free_array(a)
    nv.finalize()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
