"""The Python binding on GPU memory (docs/python.md, "GPUs"), every value
checked on every PE.  Run by tests/python/run.sh (make check) and by
tests/gpu/run.sh on the GPU host, under any launcher (tests/uid_launch.sh).

Without a GPU (no cuda.core, no CuPy, or no device): init(device=...) with
a device whose context can be set but on which no device heap can come up
fails on every PE naming FABSHMEM_CUDA (NvshmemNotSupported on a PE without
a GPU, NvshmemError naming that PE on the others), and the program exits
77 (skipped).

With GPUs, each PE binds device (its rank on the host) % (GPUs) with
init(device=cuda.core Device) and checks: buffer() is GPU memory of that
device (DLPack on CUDA, no buffer protocol), array() a CuPy array, put and
get between CuPy arrays, NumPy arrays and CuPy memory off the heap,
get_peer_array for each PE of TEAM_SHARED written by a CuPy kernel and by
the docs' simple_shift Numba kernel (when numba-cuda is there) and read by
its owner, interop.cupy and interop.torch (CUDA tensors) the same way,
TEAM_SAME_GPU and TEAM_GPU_LEADERS against every PE's (node, device), the
refusal of a collective on GPU memory naming the routine, and stream= with
CUDA streams: put_signal and signal_wait on a CuPy stream followed by a
CuPy kernel on it, then the program's synchronize; Stream.from_cuda's one
Stream per CUDA stream; a sum over TEAM_SHARED on a torch stream.  The device API
from CuPy kernels (fabshmem.core.device.RawModule over device_kernels.cu):
with every PE mapped, a ring of shmemd_int_p, a 1 MiB block put,
fetch_add contention on PE 0, barrier_all in a kernel, put_signal with
signal_wait_until and a float sum over SHMEMD_TEAM_WORLD, each checked on
every PE; else a p to an unmapped PE raised by device.check(); and a p
outside the device heap raised by device.check().  The same kinds of
kernels from Numba (fabshmem.core.device.numba), where numba-cuda is.
"""
import os
import sys

import numpy as np

import fabshmem.core as nvshmem
from fabshmem.core import Teams

SKIP = 77
# Failures reported after the other checks ran.
LATE = []


def rank_on_host():
    for v in ("FABSHMEM_BOOTSTRAP_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_LOCAL_RANK",
              "SLURM_LOCALID"):
        if v in os.environ:
            return int(os.environ[v])
    return 0


class NoDevice:
    """A device whose context 'set_current' sets nothing: the library finds
    no GPU to bring up."""
    device_id = 0

    def set_current(self):
        pass


def no_gpu(why):
    try:
        nvshmem.init(device=NoDevice())
    except nvshmem.NvshmemError as e:
        # NvshmemNotSupported on a PE without a GPU; the other PEs of the
        # job are told which PE could not set its GPU up.
        assert "FABSHMEM_CUDA" in e.message or "device heap" in e.message, e.message
        say(f"SKIP gpu_check: {why}; init(device=...) without a GPU raised "
            f"{type(e).__name__}: {e.message}")
        return SKIP
    say(f"FAIL gpu_check: {why}, but init(device=...) did not fail")
    return 1


def say(msg):
    """One line in one write: the PEs share the output."""
    os.write(1, (msg + "\n").encode())


def check(cond, what):
    if not cond:
        raise AssertionError(what)


_DEV = []


def main():
    try:
        try:
            from cuda.core import Device
        except ImportError:
            from cuda.core.experimental import Device
        import cupy as cp
        ndev = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # ImportError, or CUDA's own error without a driver
        return no_gpu(f"no GPU stack ({type(e).__name__}: {e})")
    if ndev == 0:
        return no_gpu("no GPU")
    devno = rank_on_host() % ndev
    dev = Device(devno)
    _DEV.append(dev)
    nvshmem.init(device=dev)
    cp.cuda.Device(devno).use()
    try:
        checks(cp, devno)
    except BaseException as e:
        import traceback
        traceback.print_exc()
        say(f"FAIL gpu_check on PE {nvshmem.my_pe()}: {e}")
        sys.stdout.flush()
        nvshmem.global_exit(1)
    nvshmem.barrier_all()
    nvshmem.finalize()
    return 0


def checks(cp, devno):
    me, n = nvshmem.my_pe(), nvshmem.n_pes()
    nxt, prv = (me + 1) % n, (me - 1 + n) % n

    # Buffer: GPU memory of the bound device.
    b = nvshmem.buffer(4096)
    check(b.device_id == devno and b.is_device_accessible and not b.is_host_accessible,
          f"buffer on device {b.device_id}, expected {devno}")
    check(b.__dlpack_device__() == (2, devno), f"__dlpack_device__ {b.__dlpack_device__()}")
    try:
        memoryview(b)
        check(False, "memoryview of GPU memory")
    except BufferError as e:
        check("GPU memory" in str(e), str(e))
    bc = cp.from_dlpack(b)
    check(bc.device.id == devno and bc.size == 4096 and bc.dtype == cp.uint8, "from_dlpack")
    bc[:] = (cp.arange(4096) % 251).astype(cp.uint8)
    cp.cuda.Device(devno).synchronize()
    check(bool((cp.asnumpy(bc) == (np.arange(4096) % 251).astype(np.uint8)).all()),
          "DLPack contents")

    # array: a CuPy array on the heap; put and get to the next PE.
    src = nvshmem.array((1000,), "float32")
    dst = nvshmem.array((1000,), "float32")
    check(isinstance(src, cp.ndarray) and src.device.id == devno, f"array is {type(src)}")
    src[:] = me + 1
    dst[:] = -1
    nvshmem.barrier_all()
    nvshmem.put(dst, src, remote_pe=nxt)
    nvshmem.barrier_all()
    check(bool((cp.asnumpy(dst) == prv + 1).all()), f"put: dst holds {cp.asnumpy(dst)[:4]}")
    loc = cp.zeros(1000, dtype=cp.float32)  # CuPy's own memory, off the heap
    nvshmem.get(loc, src, remote_pe=nxt)
    check(bool((cp.asnumpy(loc) == nxt + 1).all()), "get into CuPy memory off the heap")
    host = np.full(500, 100.0 + me, dtype=np.float32)
    nvshmem.put(dst, host, count=500, remote_pe=nxt)
    nvshmem.barrier_all()
    got = cp.asnumpy(dst)
    check(bool((got[:500] == 100.0 + prv).all() and (got[500:] == prv + 1).all()),
          "put from NumPy into the GPU array")
    hget = np.zeros(1000, dtype=np.float32)
    nvshmem.get(hget, src, remote_pe=prv)
    check(bool((hget == prv + 1).all()), "get into NumPy")

    # get_peer_array: each PE's kernels store into every peer copy it maps.
    shared = [nvshmem.team_translate_pe(Teams.TEAM_SHARED, i, Teams.TEAM_WORLD)
              for i in range(nvshmem.team_n_pes(Teams.TEAM_SHARED))]
    slots = nvshmem.array((n,), "int64")
    slots[:] = -1
    nvshmem.barrier_all()
    for pe in shared:
        peer = nvshmem.get_peer_array(slots, pe)
        check(isinstance(peer, cp.ndarray) and peer.shape == (n,), "peer array")
        peer[me:me + 1].fill(1000 + me)  # a CuPy kernel's store over NVLink
    nvshmem.barrier_all()
    got = cp.asnumpy(slots)
    for pe in range(n):
        # TEAM_SHARED's members map each other: each one stored its slot.
        want = 1000 + pe if pe in shared else -1
        check(got[pe] == want, f"slot of PE {pe}: {got[pe]}, expected {want}")
    if nxt in shared and prv in shared:
        # simple_shift as a CuPy kernel of the program's own (NVRTC): it
        # stores into the next PE's copy through get_peer_array.
        shift = cp.RawKernel(r'extern "C" __global__ void shift(int *a, int v) { a[0] = v; }',
                             "shift")
        arr = nvshmem.array((1,), dtype="int32")
        arr[:] = -1
        nvshmem.barrier_all()
        shift((1,), (1,), (nvshmem.get_peer_array(arr, nxt), cp.int32(me)))
        nvshmem.barrier(Teams.TEAM_NODE)
        check(int(arr.get()[0]) == prv, f"CuPy simple_shift: {arr.get()[0]}, expected {prv}")
        nvshmem.free_array(arr)
        say(f"gpu_check PE {me}: simple_shift (CuPy RawKernel) stored into PE {nxt}")
    try:
        from numba import cuda as ncuda
    except ImportError:
        ncuda = None
    if ncuda is not None and nxt in shared and prv in shared:
        # The docs' simple_shift: a Numba kernel stores into the next PE's
        # copy.  A failure is reported at the end, after the other checks.
        arr = nvshmem.array((1,), dtype="int32")
        arr[:] = -1
        nvshmem.barrier_all()
        @ncuda.jit
        def simple_shift(arr, dst_pe):
            arr[0] = dst_pe

        try:
            ncuda.select_device(devno)
            simple_shift[1, 1](nvshmem.get_peer_array(arr, nxt), me)
            numba_ok = True
        except Exception as e:
            numba_ok = False
            why = f"{type(e).__name__}: {e}"
            # The same kernel on CuPy memory off the heap: if Numba cannot
            # compile or launch it there either, Numba is unusable on this
            # host (its version against NumPy's), which is no failure of
            # the binding's.
            try:
                simple_shift[1, 1](cp.zeros(1, dtype=cp.int32), me)
                LATE.append(f"simple_shift (Numba) on the peer array: {why}")
            except Exception as e2:
                say(f"SKIP gpu_check PE {me}: simple_shift: Numba cannot run a kernel on this "
                      f"host, on any array ({type(e2).__name__}: {e2})")
        nvshmem.barrier(Teams.TEAM_NODE)
        if numba_ok:
            check(int(arr.get()[0]) == prv, f"simple_shift: {arr.get()[0]}, expected {prv}")
            say(f"gpu_check PE {me}: simple_shift (Numba) stored into PE {nxt}")
        nvshmem.free_array(arr)

    # interop.cupy.
    ic = nvshmem.interop.cupy
    a = ic.array((4, 5), "float64")
    ba = ic.bytearray((2, 3), "float32")
    check(a.shape == (4, 5) and ba.dtype == cp.uint8 and ba.size == 24, "interop.cupy shapes")
    a[:] = me
    nvshmem.barrier_all()
    buf, size, name = ic.array_get_buffer(a)
    check(size == 160 and name == "float64" and buf.device_id == devno, "array_get_buffer")
    if nxt in shared:
        ic.get_peer_array(a, nxt)[1, :] = 7.0 + me
    nvshmem.barrier_all()
    if prv in shared:
        check(bool((a.get()[1] == 7.0 + prv).all()), "interop.cupy.get_peer_array store")
    ic.free_array(ba)
    ic.free_array(a)

    # interop.torch: CUDA tensors.
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch.cuda.set_device(devno)
        tt = nvshmem.interop.torch
        t = tt.tensor((4, 5), dtype=torch.float32)
        u = tt.tensor((4, 5), dtype=torch.float32)
        check(t.device.type == "cuda" and t.device.index == devno, f"tensor on {t.device}")
        t.fill_(me + 0.5)
        u.zero_()
        nvshmem.barrier_all()
        nvshmem.put(u, t, remote_pe=nxt)
        nvshmem.barrier_all()
        check(bool((u == prv + 0.5).all().item()), "put between CUDA tensors")
        if nxt in shared:
            tt.get_peer_tensor(u, nxt)[0].fill_(-3.0 - me)
        nvshmem.barrier_all()
        if prv in shared:
            check(bool((u[0] == -3.0 - prv).all().item()), "get_peer_tensor store")
        tb = tt.bytetensor((8,), dtype=torch.float64)
        check(tb.dtype == torch.uint8 and tb.numel() == 64 and tb.is_cuda, "bytetensor")
        tt.free_tensor(tb)
        tt.free_tensor(u)
        tt.free_tensor(t)

    # The GPU teams against every PE's (node, device).
    mine = nvshmem.array((2,), "int64")
    every = nvshmem.array((n, 2), "int64")
    mine[:] = cp.asarray([nvshmem.team_translate_pe(Teams.TEAM_NODE, 0, Teams.TEAM_WORLD),
                          devno])
    nvshmem.barrier_all()
    for pe in range(n):
        nvshmem.put(every[me], mine, remote_pe=pe)
    nvshmem.barrier_all()
    ev = [tuple(r) for r in cp.asnumpy(every)]
    same = [pe for pe in range(n) if ev[pe] == ev[me]]
    leaders = [pe for pe in range(n) if ev.index(ev[pe]) == pe]
    check(nvshmem.team_n_pes(Teams.TEAM_SAME_GPU) == len(same), "TEAM_SAME_GPU size")
    check([nvshmem.team_translate_pe(Teams.TEAM_SAME_GPU, i, Teams.TEAM_WORLD)
           for i in range(len(same))] == same, "TEAM_SAME_GPU members")
    check(nvshmem.team_n_pes(Teams.TEAM_GPU_LEADERS) == len(leaders), "TEAM_GPU_LEADERS size")
    check(nvshmem.team_my_pe(Teams.TEAM_GPU_LEADERS) == (leaders.index(me) if me in leaders
                                                          else -1), "TEAM_GPU_LEADERS my_pe")

    # Collectives on GPU arrays over TEAM_SHARED (its PEs map each other's
    # device heaps) and TEAM_WORLD.
    ns, ms = len(shared), nvshmem.team_my_pe(Teams.TEAM_SHARED)
    cs = nvshmem.array((4,), "float32")
    cb = nvshmem.array((4,), "float32")
    cd = nvshmem.array((4 * ns,), "float32")
    xs = nvshmem.array((ns,), "int64")
    xd = nvshmem.array((ns,), "int64")
    cs[:] = me
    xs[:] = cp.arange(ns) + 100 * me
    nvshmem.fcollect(Teams.TEAM_SHARED, cd, cs)
    check(bool((cd.get() == np.repeat(np.array(shared, dtype=np.float32), 4)).all()),
          f"fcollect over TEAM_SHARED: {cd.get()}")
    nvshmem.broadcast(Teams.TEAM_SHARED, cb, cs, root=ns - 1)
    check(bool((cb.get() == shared[-1]).all()), f"broadcast over TEAM_SHARED: {cb.get()}")
    nvshmem.alltoall(Teams.TEAM_SHARED, xd, xs)
    check(list(xd.get()) == [100 * pe + ms for pe in shared], f"alltoall: {xd.get()}")
    # Over TEAM_WORLD too, whose PEs may not all map each other (the core's
    # RMA on GPU memory then moves the data).
    cw = nvshmem.array((4 * n,), "float32")
    nvshmem.fcollect(Teams.TEAM_WORLD, cw, cs)
    check(bool((cw.get() == np.repeat(np.arange(n, dtype=np.float32), 4)).all()),
          f"fcollect over TEAM_WORLD: {cw.get()}")
    nvshmem.reduce(Teams.TEAM_WORLD, cb, cs, "sum")
    check(bool((cb.get() == sum(range(n))).all()), f"sum over TEAM_WORLD: {cb.get()}")
    nvshmem.free_array(cw)
    nvshmem.barrier_all()
    for x in (xd, xs, cd, cb, cs):
        nvshmem.free_array(x)

    # The sum and the product over TEAM_SHARED (the library's kernels read
    # every member's source).
    src[:] = cp.arange(1000, dtype=cp.float32) + me + 1
    nvshmem.reduce(Teams.TEAM_SHARED, dst, src, "sum")
    want = np.arange(1000, dtype=np.float32) * ns + sum(pe + 1 for pe in shared)
    check(bool((cp.asnumpy(dst) == want).all()), f"sum over TEAM_SHARED: {cp.asnumpy(dst)[:4]}")
    src[:] = cp.float32(me + 1)
    nvshmem.reduce(Teams.TEAM_SHARED, dst, src, "prod")
    want = np.float32(np.prod([pe + 1 for pe in shared], dtype=np.float64))
    check(bool((cp.asnumpy(dst) == want).all()), f"prod over TEAM_SHARED: {cp.asnumpy(dst)[:4]}")
    nvshmem.barrier_all()

    host_atomics(cp, me, n, nxt, prv)

    device_api(cp, me, n, nxt, prv, shared)
    device_api_numba(cp, me, n, nxt, prv, shared)

    registered_vmm(cp, devno, me, n, nxt, prv, shared)

    # CUDA streams, also where PEs share a GPU (run 27: 4 PEs on 2 GPUs).
    cuda_streams(cp, devno, me, n, nxt, prv, shared)

    for x in (every, mine, slots, dst, src):
        nvshmem.free_array(x)
    nvshmem.free(b)
    check(not LATE, "; ".join(LATE))
    say(f"PASS gpu_check PE {me} of {n}: device {devno}, TEAM_SHARED {shared}, "
          f"SAME_GPU {same}, GPU_LEADERS {leaders}")


def host_atomics(cp, me, n, nxt, prv):
    """The host atomics on elements of CuPy arrays of the device heap
    (docs/gpu.md, "Atomics on device memory"): every PE fetch_adds 1 on PE
    0's int64 element 20 times (the fetched values distinct, the total
    exact); set, fetch, compare_swap and swap on this PE's uint32 element
    of the next PE; a float64 swap there."""
    k = 20
    ctr = nvshmem.array((1,), "int64")
    w = nvshmem.array((n,), "uint32")
    f = nvshmem.array((1,), "float64")
    ctr[:] = 0
    w[:] = 0
    f[:] = 0
    cp.cuda.runtime.deviceSynchronize()
    nvshmem.barrier_all()
    got = [int(nvshmem.atomic_fetch_add(ctr, 1, 0)) for _ in range(k)]
    check(len(set(got)) == k and min(got) >= 0 and max(got) < n * k,
          f"atomic_fetch_add on PE 0's GPU element fetched {got}")
    nvshmem.atomic_set(w, me + 7, nxt, index=me)
    check(int(nvshmem.atomic_fetch(w, nxt, index=me)) == me + 7, "atomic_fetch of a GPU element")
    check(int(nvshmem.atomic_compare_swap(w, me + 7, me + 9, nxt, index=me)) == me + 7,
          "atomic_compare_swap of a GPU element")
    check(int(nvshmem.atomic_swap(w, 3 + me, nxt, index=me)) == me + 9,
          "atomic_swap of a GPU element")
    check(float(nvshmem.atomic_swap(f, 1.5 + me, nxt)) == 0.0, "float64 atomic_swap")
    nvshmem.barrier_all()
    if me == 0:
        check(int(ctr.get()[0]) == n * k, f"PE 0's counter is {int(ctr.get()[0])}, not {n * k}")
    check(int(w.get()[prv]) == 3 + prv and float(f.get()[0]) == 1.5 + prv,
          f"the previous PE's atomics left {int(w.get()[prv])} and {float(f.get()[0])}")
    nvshmem.barrier_all()
    for x in (f, w, ctr):
        nvshmem.free_array(x)


def device_api(cp, me, n, nxt, prv, shared):
    """The device API from CuPy kernels (fabshmem.core.device.RawModule over
    tests/python/device_kernels.cu): with every PE mapped, a ring of p, a
    1 MiB block put, fetch_add contention on PE 0, barrier_all in a kernel,
    put_signal with signal_wait_until, a float sum over SHMEMD_TEAM_WORLD;
    the same where some PE is not mapped and the proxy carries the kernels'
    requests to it (dev.proxy()); else a p to a PE this GPU does not map,
    raised by check().  In all, a p to an address outside the device heap,
    raised by check()."""
    import fabshmem.core.device as dev

    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "device_kernels.cu")) as f:
        mod = dev.RawModule(code=f.read())
    k = mod.get_function
    check(len(dev.state_bytes()) == nvshmem._lib._device_state_size(), "state_bytes size")
    check(dev.team_device(Teams.TEAM_WORLD) == dev.TEAM_WORLD, "team_device(TEAM_WORLD)")
    check(dev.team_device(Teams.TEAM_SHARED) == dev.TEAM_SHARED, "team_device(TEAM_SHARED)")

    def sync_barrier():
        cp.cuda.Device().synchronize()
        dev.check()
        nvshmem.barrier_all()

    # A p to CuPy memory off the device heap: check() names the routine and
    # the reason, and clears it.
    off = cp.zeros(1, dtype=cp.int32)
    k("p_at")((1,), (1,), (off, cp.int32(me)))
    cp.cuda.Device().synchronize()
    try:
        dev.check()
        check(False, "check() after a p outside the device heap raised nothing")
    except nvshmem.NvshmemInvalid as e:
        check("not inside the device heap" in e.message and "shmemd_TYPE_p" in e.message,
              f"check() after a p outside the device heap: {e.message}")
    dev.check()
    check(int(off.get()[0]) == 0, "the refused p stored")
    nvshmem.barrier_all()

    via = "through the proxy" if len(shared) < n else "mapped"
    if len(shared) < n and not dev.proxy():
        # A p to a PE this GPU does not map, no proxy: refused, reported by
        # check().
        far = [pe for pe in range(n) if pe not in shared][0]
        w = nvshmem.array((1,), "int32")
        w[:] = 0
        sync_barrier()
        k("p_at")((1,), (1,), (w, cp.int32(far)))
        cp.cuda.Device().synchronize()
        try:
            dev.check()
            check(False, f"check() after a p to unmapped PE {far} raised nothing")
        except nvshmem.NvshmemNotSupported as e:
            check(f"does not map PE {far}" in e.message and "shmemd_TYPE_p" in e.message,
                  f"check() after a p to unmapped PE {far}: {e.message}")
        sync_barrier()
        check(int(w.get()[0]) == 0, "the refused p to an unmapped PE stored")
        nvshmem.free_array(w)
        say(f"gpu_check PE {me}: device API: p outside the heap and to unmapped PE {far} "
            "raised by check()")
        return

    # A ring of p.
    r = nvshmem.array((1,), "int32")
    r[:] = -1
    sync_barrier()
    k("ring_p")((1,), (1,), (r,))
    sync_barrier()
    check(int(r.get()[0]) == prv + 1000, f"ring of shmemd_int_p: {r.get()[0]}")

    # A block put of 1 MiB to the next PE.
    nb = 1 << 20
    bs = nvshmem.array((nb,), "uint8")
    bd = nvshmem.array((nb,), "uint8")
    bs[:] = ((cp.arange(nb) + me) % 251).astype(cp.uint8)
    bd[:] = 0
    sync_barrier()
    k("put_block")((1,), (512,), (bd, bs, cp.uint64(nb), cp.int32(nxt)))
    sync_barrier()
    want = ((np.arange(nb) + prv) % 251).astype(np.uint8)
    check(bool((cp.asnumpy(bd) == want).all()), "shmemd_putmem_block of 1 MiB")

    # fetch_add from every thread of every PE on PE 0's counter.
    nthr = 8 * 256
    ctr = nvshmem.array((1,), "int32")
    ctr[:] = 0
    fetched = cp.full(nthr, -1, dtype=cp.int32)
    sync_barrier()
    k("fetch_add")((8,), (256,), (ctr, fetched))
    sync_barrier()
    fv = cp.asnumpy(fetched)
    check(len(set(fv.tolist())) == nthr and fv.min() >= 0 and fv.max() < n * nthr,
          f"fetch_add: fetched values not distinct or out of range ({fv.min()}..{fv.max()})")
    if me == 0:
        check(int(ctr.get()[0]) == n * nthr, f"fetch_add total {ctr.get()[0]}, "
              f"expected {n * nthr}")

    # barrier_all inside a kernel, each round's p seen after it.
    iters = 50
    slot = nvshmem.array((iters,), "int32")
    slot[:] = 0
    bad = cp.zeros(1, dtype=cp.int32)
    sync_barrier()
    k("barrier_loop")((1,), (64,), (slot, cp.int32(iters), bad))
    sync_barrier()
    check(int(bad.get()[0]) == 0, f"barrier_all in a kernel: {bad.get()[0]} rounds missed")
    check(bool((cp.asnumpy(slot) == np.arange(1, iters + 1)).all()), "barrier_loop slots")

    # put_signal, then signal_wait_until on the receiving side.
    m = 4096
    ps = nvshmem.array((m,), "int32")
    pd = nvshmem.array((m,), "int32")
    sig = nvshmem.array((1,), "uint64")
    ps[:] = cp.arange(m, dtype=cp.int32) + 10 * me
    pd[:] = -1
    sig[:] = 0
    out = cp.zeros(m, dtype=cp.int32)
    sync_barrier()
    k("put_signal_ring")((1,), (256,), (pd, ps, cp.uint64(m), sig, out))
    sync_barrier()
    check(bool((cp.asnumpy(out) == np.arange(m) + 10 * prv).all()),
          "put_signal: the data seen after the signal")
    check(int(sig.get()[0]) == 1, f"signal {sig.get()[0]}")

    # A float sum over SHMEMD_TEAM_WORLD against the host's answer.
    cnt = 1000
    fs = nvshmem.array((cnt,), "float32")
    fd = nvshmem.array((cnt,), "float32")
    fs[:] = cp.arange(cnt, dtype=cp.float32) + me
    fd[:] = -1
    rc = cp.full(1, -7, dtype=cp.int32)
    sync_barrier()
    k("sum_reduce")((1,), (256,), (cp.int32(dev.TEAM_WORLD), fd, fs, cp.uint64(cnt), rc))
    sync_barrier()
    want = np.arange(cnt, dtype=np.float32) * n + sum(range(n))
    check(int(rc.get()[0]) == 0, f"shmemd_float_sum_reduce_block returned {rc.get()[0]}")
    check(bool((cp.asnumpy(fd) == want).all()), f"device sum over TEAM_WORLD: {fd.get()[:4]}")
    nvshmem.reduce(Teams.TEAM_WORLD, fs, fd, "sum")  # the host's own, on the device's result
    check(bool((cp.asnumpy(fs) == want * n).all()), "host sum of the device sum")

    for x in (fd, fs, sig, pd, ps, slot, ctr, bd, bs, r):
        nvshmem.free_array(x)
    say(f"gpu_check PE {me}: device API (CuPy, NVRTC) {via}: ring p, 1 MiB block put, "
        f"fetch_add {n * nthr}, {iters} kernel barriers, put_signal, float sum over TEAM_WORLD; "
        "errors raised by check()")


def device_api_numba(cp, me, n, nxt, prv, shared):
    """The device API from Numba-CUDA kernels (fabshmem.core.device.numba),
    where numba-cuda is installed: with every PE mapped, a ring of int_p
    with barrier_all_block, a 64 KiB put_block, int_atomic_fetch_add on
    PE 0, put_signal_block with signal_wait_until, and a float sum over
    TEAM_WORLD, each checked on every PE, through the proxy too where some
    PE is not mapped and the proxy runs; else int_p to an unmapped PE
    raised by check()."""
    import fabshmem.core.device as dev
    try:
        import fabshmem.core.device.numba as fnb
        from numba import cuda as ncuda
    except ImportError as e:
        say(f"SKIP gpu_check PE {me}: device API from Numba: {e}")
        return

    def sync_barrier():
        cp.cuda.Device().synchronize()
        dev.check()
        nvshmem.barrier_all()

    if len(shared) < n and not dev.proxy():
        far = [pe for pe in range(n) if pe not in shared][0]

        @fnb.jit
        def nb_p_at(a, pe):
            fnb.int_p(a, 7, pe)
        w = nvshmem.array((1,), "int32")
        w[:] = 0
        sync_barrier()
        nb_p_at[1, 1](w, far)
        cp.cuda.Device().synchronize()
        try:
            dev.check()
            check(False, f"Numba: check() after int_p to unmapped PE {far} raised nothing")
        except nvshmem.NvshmemNotSupported as e:
            check(f"does not map PE {far}" in e.message, f"Numba int_p to PE {far}: {e.message}")
        sync_barrier()
        nvshmem.free_array(w)
        say(f"gpu_check PE {me}: device API from Numba: int_p to unmapped PE {far} raised by "
            "check()")
        return

    @fnb.jit
    def nb_ring(dst, out):
        me_, n_ = fnb.my_pe(), fnb.n_pes()
        if ncuda.threadIdx.x == 0:
            fnb.int_p(dst, me_ + 2000, (me_ + 1) % n_)
        fnb.barrier_all_block()
        if ncuda.threadIdx.x == 0:
            out[0] = dst[0]
            out[1] = n_

    @fnb.jit
    def nb_put(dst, src, pe):
        fnb.put_block(dst, src, pe)
        fnb.quiet()

    @fnb.jit
    def nb_fadd(ctr, fetched):
        i = ncuda.grid(1)
        fetched[i] = fnb.int_atomic_fetch_add(ctr, 1, 0)

    @fnb.jit
    def nb_signal(dst, src, sig, out, pe):
        fnb.put_signal_block(dst, src, sig, 1, fnb.SIGNAL_ADD, pe)
        if ncuda.threadIdx.x == 0:
            fnb.signal_wait_until(sig, fnb.CMP_GE, 1)
        ncuda.syncthreads()
        i = ncuda.threadIdx.x
        while i < dst.size:
            out[i] = dst[i]
            i += ncuda.blockDim.x

    @fnb.jit
    def nb_sum(team, dst, src, rc):
        r = fnb.float_sum_reduce_block(team, dst, src)
        if ncuda.threadIdx.x == 0:
            rc[0] = r

    r = nvshmem.array((1,), "int32")
    r[:] = -1
    out = cp.zeros(2, dtype=cp.int32)
    sync_barrier()
    nb_ring[1, 64](r, out)
    sync_barrier()
    check(int(r.get()[0]) == prv + 2000 and list(out.get()) == [prv + 2000, n],
          f"Numba ring of int_p: {r.get()[0]}, kernel saw {out.get()}")

    nb = 1 << 16
    bs = nvshmem.array((nb // 4,), "int32")
    bd = nvshmem.array((nb // 4,), "int32")
    bs[:] = cp.arange(nb // 4, dtype=cp.int32) * 3 + me
    bd[:] = -1
    sync_barrier()
    nb_put[1, 256](bd, bs, nxt)
    sync_barrier()
    check(bool((cp.asnumpy(bd) == np.arange(nb // 4) * 3 + prv).all()), "Numba put_block")

    nthr = 4 * 128
    ctr = nvshmem.array((1,), "int32")
    ctr[:] = 0
    fetched = cp.full(nthr, -1, dtype=cp.int32)
    sync_barrier()
    nb_fadd[4, 128](ctr, fetched)
    sync_barrier()
    fv = cp.asnumpy(fetched)
    check(len(set(fv.tolist())) == nthr and fv.min() >= 0 and fv.max() < n * nthr,
          "Numba int_atomic_fetch_add: fetched values not distinct or out of range")
    if me == 0:
        check(int(ctr.get()[0]) == n * nthr, f"Numba fetch_add total {ctr.get()[0]}")

    sig = nvshmem.array((1,), "uint64")
    sig[:] = 0
    bd[:] = -1
    sout = cp.zeros(nb // 4, dtype=cp.int32)
    sync_barrier()
    nb_signal[1, 256](bd, bs, sig, sout, nxt)
    sync_barrier()
    check(bool((cp.asnumpy(sout) == np.arange(nb // 4) * 3 + prv).all()),
          "Numba put_signal_block: the data seen after the signal")

    cnt = 1000
    fs = nvshmem.array((cnt,), "float32")
    fd = nvshmem.array((cnt,), "float32")
    fs[:] = cp.arange(cnt, dtype=cp.float32) + me
    rc = cp.full(1, -7, dtype=cp.int32)
    sync_barrier()
    nb_sum[1, 256](dev.team_device(Teams.TEAM_WORLD), fd, fs, rc)
    sync_barrier()
    want = np.arange(cnt, dtype=np.float32) * n + sum(range(n))
    check(int(rc.get()[0]) == 0 and bool((cp.asnumpy(fd) == want).all()),
          f"Numba float_sum_reduce_block over TEAM_WORLD: rc {rc.get()[0]}, {fd.get()[:4]}")
    for x in (fd, fs, sig, ctr, bd, bs, r):
        nvshmem.free_array(x)
    say(f"gpu_check PE {me}: device API from Numba (fabshmem.core.device.numba): ring int_p "
        f"with barrier_all_block, 64 KiB put_block, fetch_add {n * nthr}, put_signal_block, "
        "float sum over TEAM_WORLD")


def registered_vmm(cp, devno, me, n, nxt, prv, shared):
    """The tutorial's cell on external memory, as written there: a buffer of
    cuda.core's VirtualMemoryResource, a CuPy array over it, registered
    (collective); then a put into the next PE's copy, a CuPy kernel's
    store into a node peer's copy through get_peer_array, a sum over
    TEAM_WORLD on it, and the unregistration."""
    try:
        from cuda.core.experimental._memory import VirtualMemoryResource
    except ImportError:
        try:
            from cuda.core import VirtualMemoryResource
        except ImportError:
            try:
                from cuda.core.experimental import VirtualMemoryResource
            except ImportError as e:
                say(f"SKIP gpu_check PE {me}: registered GPU memory: no VirtualMemoryResource "
                    f"in this cuda.core ({e})")
                return
    dev = _DEV[0]
    resource = VirtualMemoryResource(dev)
    buffer = resource.allocate(536870912)
    arr = cp.from_dlpack(buffer, copy=False).view("float32")
    try:
        arr_reg = nvshmem.register_external_array(arr)
    except nvshmem.NvshmemNotSupported as e:
        # This cuda.core makes allocations that cannot be exported: the
        # node peers cannot map them (the reason names the option).
        check("posix_fd" in str(e), f"the refusal names the handle type: {e}")
        try:
            from cuda.core import VirtualMemoryResourceOptions as VMO
        except ImportError:
            from cuda.core.experimental import VirtualMemoryResourceOptions as VMO
        resource = VirtualMemoryResource(dev, VMO(handle_type="posix_fd"))
        buffer = resource.allocate(536870912)
        arr = cp.from_dlpack(buffer, copy=False).view("float32")
        arr_reg = nvshmem.register_external_array(arr)
        say(f"gpu_check PE {me}: registered GPU memory needed handle_type='posix_fd' here")
    check(arr_reg is arr, "register_external_array returns the array")
    part = arr[:1 << 20]
    part[:] = me + 0.25
    peer_part = arr[1 << 20:2 << 20]
    peer_part[:] = -1
    cp.cuda.Device(devno).synchronize()
    nvshmem.barrier_all()
    nvshmem.put(peer_part, part, remote_pe=nxt)
    nvshmem.barrier_all()
    check(bool((peer_part.get() == prv + 0.25).all()), "put into registered GPU memory")
    if nxt in shared:
        nvshmem.get_peer_array(arr, nxt)[3 << 20:(3 << 20) + 16].fill(9.0 + me)
        cp.cuda.Device(devno).synchronize()
    nvshmem.barrier_all()
    if prv in shared:
        check(bool((arr[3 << 20:(3 << 20) + 16].get() == 9.0 + prv).all()),
              "a CuPy store through get_peer_array into registered GPU memory")
    out = arr[4 << 20:(4 << 20) + 4096]
    nvshmem.reduce(Teams.TEAM_WORLD, out, arr[:4096], "sum")
    check(bool((out.get() == sum(pe + 0.25 for pe in range(n))).all()),
          f"sum over TEAM_WORLD on registered GPU memory: {out.get()[:4]}")
    nvshmem.barrier_all()
    arr_reg = nvshmem.unregister_external_array(arr)
    check(arr_reg is arr, "unregister_external_array returns the array")
    buffer.close()
    say(f"gpu_check PE {me}: registered GPU memory (VirtualMemoryResource, 512 MiB) passed")


def cuda_streams(cp, devno, me, n, nxt, prv, shared):
    """stream= with CUDA streams: put_signal and signal_wait on a CuPy stream
    ordered with a CuPy kernel on it, then the program's own synchronize;
    a sum reduction on a torch stream; the cache (one Stream per CUDA
    stream) and Stream.from_cuda."""
    from fabshmem.core import SignalOp, ComparisonType
    cs = cp.cuda.Stream(non_blocking=True)
    recv = nvshmem.array((4096,), "float32")
    send = nvshmem.array((4096,), "float32")
    sig = nvshmem.array((1,), "uint64")
    recv[:] = -1
    send[:] = cp.arange(4096, dtype=cp.float32) + 1000 * me
    sig[:] = 0
    # CuPy loads the module of `recv *= 2` at its first use, and loading a
    # module waits for every stream of the device: with the CUDA stream
    # waiting for held work of the library's host thread (PEs that are not
    # mapped), which needs the driver too, that first use would deadlock
    # (run 12). Load it first, as docs/gpu.md says to.
    warm = cp.ones(4, dtype=cp.float32)
    warm *= 2
    cp.cuda.Device(devno).synchronize()
    nvshmem.barrier_all()
    # The put and its signal go to the next PE; this PE's CUDA stream waits
    # for the previous PE's signal, then a CuPy kernel on the same stream
    # doubles what arrived.
    if len(shared) == n:
        nvshmem.put_signal(recv, send, sig, 1, SignalOp.SIGNAL_SET, remote_pe=nxt, stream=cs)
        nvshmem.signal_wait(sig, 1, ComparisonType.CMP_EQ, stream=cs)
    else:
        # Signal words in GPU memory take mapped PEs: the put and a barrier
        # on the stream (its host thread does both).
        nvshmem.put(recv, send, remote_pe=nxt, stream=cs)
        nvshmem.barrier_all(stream=cs)
    with cs:
        recv *= 2
    cs.synchronize()
    want = (np.arange(4096, dtype=np.float32) + 1000 * prv) * 2
    got = cp.asnumpy(recv)
    check(bool((got == want).all()), f"put_signal + signal_wait on a CuPy stream, then a "
          f"kernel on it: {got[:4]}, expected {want[:4]}")
    st = nvshmem.Stream.from_cuda(cs)
    check(st.cuda_stream == cs.ptr and nvshmem.Stream.from_cuda(cs) is st,
          f"Stream.from_cuda: one Stream per CUDA stream ({st!r}, handle {cs.ptr:#x})")
    st.sync()  # nothing left to do; raises what the stream recorded
    # A cuda.core Stream (the __cuda_stream__ protocol) of the PE's device.
    ds = _DEV[0].create_stream()
    nvshmem.barrier_all(stream=ds)
    nvshmem.Stream.from_cuda(ds).sync()
    nvshmem.barrier_all()
    say(f"gpu_check PE {me}: put_signal/signal_wait on a CuPy stream, kernel after it")

    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        # A sum over TEAM_SHARED of CUDA tensors on a torch stream.
        torch.cuda.set_device(devno)
        tt = nvshmem.interop.torch
        ts = torch.cuda.Stream()
        tsrc = tt.tensor((1024,), dtype=torch.float32)
        tdst = tt.tensor((1024,), dtype=torch.float32)
        with torch.cuda.stream(ts):
            tsrc.copy_(torch.arange(1024, dtype=torch.float32, device=f"cuda:{devno}") + me)
            tdst.fill_(-1)
        nvshmem.barrier(Teams.TEAM_SHARED, stream=ts)
        nvshmem.reduce(Teams.TEAM_SHARED, tdst, tsrc, "sum", stream=ts)
        ts.synchronize()
        want = np.arange(1024, dtype=np.float32) * len(shared) + sum(shared)
        got = tdst.cpu().numpy()
        check(bool((got == want).all()), f"sum on a torch stream: {got[:4]}, expected "
              f"{want[:4]}")
        nvshmem.barrier_all()
        tt.free_tensor(tdst)
        tt.free_tensor(tsrc)
        say(f"gpu_check PE {me}: sum over TEAM_SHARED on a torch stream")
    nvshmem.barrier_all()
    for x in (sig, send, recv):
        nvshmem.free_array(x)
    # finalize destroys the cached Streams (CuPy's stream stays the program's).
    del cs


if __name__ == "__main__":
    sys.exit(main())
