"""put, get, put_signal, signal_op, signal_wait, quiet, fence."""
import numpy as np
import pytest

import fabshmem.core as nvshmem
from fabshmem.core import SignalOp, ComparisonType
from fabtest import me, npes, needs_return_mode, job_still_works, ALL_DTYPES


def nxt():
    return (me() + 1) % npes()


def prv():
    return (me() - 1) % npes()


def values(pe, n, dtype):
    return (np.arange(n) % 7 + 3 * pe + 1).astype(dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES + ["bool"])
def test_put_get_ring(dtype):
    n = 5
    dst = nvshmem.array((n,), dtype)
    dst[:] = 0
    nvshmem.barrier_all()
    nvshmem.put(dst, values(me(), n, dtype), remote_pe=nxt())
    nvshmem.barrier_all()
    assert (dst == values(prv(), n, dtype)).all()
    # get reads the next PE's copy, which holds what I put there.
    got = np.zeros(n, dtype)
    nvshmem.get(got, dst, remote_pe=nxt())
    assert (got == values(me(), n, dtype)).all()
    nvshmem.barrier_all()
    nvshmem.free_array(dst)


def test_count_and_pe_keyword():
    dst = nvshmem.array((6,), "int32")
    dst[:] = -1
    nvshmem.barrier_all()
    nvshmem.put(dst, np.arange(6, dtype=np.int32), count=3, pe=nxt())
    nvshmem.quiet()
    nvshmem.barrier_all()
    assert list(dst) == [0, 1, 2, -1, -1, -1]
    got = np.full(6, 9, dtype=np.int32)
    nvshmem.get(got, dst, 2, nxt())
    assert list(got) == [0, 1, 9, 9, 9, 9]
    nvshmem.barrier_all()
    nvshmem.free_array(dst)


def test_views_and_buffers():
    dst = nvshmem.array((4, 4), "float64")
    dst[:] = 0
    nvshmem.barrier_all()
    # A row of the array (an address inside the object), and a Buffer.
    nvshmem.put(dst[2], np.full(4, me(), np.float64), remote_pe=nxt())
    buf, size, _ = nvshmem.array_get_buffer(dst)
    nvshmem.barrier_all()
    assert (dst[2] == prv()).all() and (dst[:2] == 0).all()
    raw = np.zeros(size, np.uint8)
    nvshmem.get(raw, buf, remote_pe=me())
    assert (raw.view(np.float64).reshape(4, 4) == dst).all()
    nvshmem.barrier_all()
    nvshmem.free_array(dst)


def test_large_put():
    n = 1 << 18  # 1 MiB of float32 (the path that releases the GIL)
    dst = nvshmem.array((n,), "float32")
    src = np.arange(n, dtype=np.float32) + me()
    nvshmem.put(dst, src, remote_pe=nxt())
    nvshmem.barrier_all()
    assert dst[0] == prv() and dst[-1] == n - 1 + prv()
    got = np.empty(n, np.float32)
    nvshmem.get(got, dst, remote_pe=nxt())
    assert (got == src).all()
    nvshmem.barrier_all()
    nvshmem.free_array(dst)


def test_put_signal_set():
    dst = nvshmem.array((4, 4), "float32")
    src = nvshmem.array((4, 4), "float32")
    sig = nvshmem.array((1,), "uint64")
    dst[:] = 0
    src[:] = me() + 1
    sig[:] = 0
    buf_sig, sz, name = nvshmem.array_get_buffer(sig)
    assert sz == 8 and name == "uint64"
    nvshmem.barrier_all()
    nvshmem.put_signal(dst, src, buf_sig, 1, SignalOp.SIGNAL_SET, remote_pe=nxt())
    assert nvshmem.signal_wait(buf_sig, 1, ComparisonType.CMP_EQ) == 1
    assert (dst == prv() + 1).all()
    assert nvshmem.signal_fetch(sig) == 1
    nvshmem.barrier_all()
    for a in (dst, src, sig):
        nvshmem.free_array(a)


def test_signal_add_and_op():
    sig = nvshmem.array((2,), "uint64")
    sig[:] = 0
    nvshmem.barrier_all()
    # Everyone adds to PE 0's first word; everyone sets its neighbour's second.
    nvshmem.signal_op(sig, me() + 1, SignalOp.SIGNAL_ADD, remote_pe=0)
    nvshmem.signal_op(sig[1:], 7, SignalOp.SIGNAL_SET, remote_pe=nxt())
    if me() == 0:
        total = npes() * (npes() + 1) // 2
        assert nvshmem.signal_wait(sig, total, ComparisonType.CMP_GE) == total
    nvshmem.signal_wait(sig[1:], 7, ComparisonType.CMP_EQ)
    nvshmem.barrier_all()
    nvshmem.free_array(sig)


def test_quiet_fence():
    dst = nvshmem.array((2,), "int64")
    dst[:] = 0
    nvshmem.barrier_all()
    nvshmem.put(dst, np.array([me() + 1], np.int64), remote_pe=nxt())
    nvshmem.fence()
    nvshmem.put(dst[1:], np.array([me() + 2], np.int64), remote_pe=nxt())
    nvshmem.quiet()
    nvshmem.sync_all()
    assert list(dst) == [prv() + 1, prv() + 2]
    nvshmem.barrier_all()
    nvshmem.free_array(dst)


def test_threads():
    # SHMEM_THREAD_MULTIPLE: threads of a PE put at once (the GIL is
    # released by the large puts and the quiets).
    import threading
    nthreads, n = 4, 1 << 15
    dst = nvshmem.array((nthreads, n), "int32")
    dst[:] = -1
    nvshmem.barrier_all()

    def work(t):
        for _ in range(20):
            nvshmem.put(dst[t], np.full(n, 100 * me() + t, np.int32), remote_pe=nxt())
            nvshmem.quiet()

    threads = [threading.Thread(target=work, args=(t,)) for t in range(nthreads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    nvshmem.barrier_all()
    for t in range(nthreads):
        assert (dst[t] == 100 * prv() + t).all()
    nvshmem.barrier_all()
    nvshmem.free_array(dst)


def test_rma_errors_in_the_binding():
    dst = nvshmem.array((4,), "int32")
    with pytest.raises(nvshmem.NvshmemInvalid, match="count 5 is beyond dst"):
        nvshmem.put(dst, np.zeros(8, np.int32), count=5, remote_pe=nxt())
    with pytest.raises(nvshmem.NvshmemInvalid, match="src .* is larger than dst"):
        nvshmem.put(dst, np.zeros(8, np.int32), remote_pe=nxt())
    with pytest.raises(nvshmem.NvshmemInvalid, match="differ in dtype \\(int32 and float32\\)"):
        nvshmem.put(dst, np.zeros(4, np.float32), remote_pe=nxt())
    with pytest.raises(nvshmem.NvshmemInvalid, match="remote_pe is required"):
        nvshmem.put(dst, np.zeros(4, np.int32))
    with pytest.raises(nvshmem.NvshmemInvalid, match="read-only"):
        ro = np.zeros(4, np.int32)
        ro.flags.writeable = False
        nvshmem.get(ro, dst, remote_pe=nxt())
    with pytest.raises(nvshmem.NvshmemInvalid, match="C-contiguous"):
        nvshmem.put(dst, np.zeros(8, np.int32)[::2], remote_pe=nxt())
    with pytest.raises(nvshmem.NvshmemInvalid, match="must be a NumPy array"):
        nvshmem.put(dst, [1, 2, 3, 4], remote_pe=nxt())
    with pytest.raises(nvshmem.NvshmemInvalid, match="signal word"):
        nvshmem.signal_op(dst, 1, SignalOp.SIGNAL_SET, remote_pe=nxt())
    nvshmem.barrier_all()
    nvshmem.free_array(dst)
    job_still_works()


@needs_return_mode("rma")
def test_rma_errors_in_the_library():
    dst = nvshmem.array((4,), "int32")
    src = np.arange(4, dtype=np.int32)
    with pytest.raises(nvshmem.NvshmemInvalid, match=f"pe {npes()} is out of range") as e:
        nvshmem.put(dst, src, remote_pe=npes())
    assert e.value.code == nvshmem.ErrorCode.INVALID_VALUE
    assert "shmem_putmem" in e.value.message
    with pytest.raises(nvshmem.NvshmemInvalid, match="pe -1"):
        nvshmem.get(src, dst, remote_pe=-1)
    # A destination that is neither on the heap nor registered.
    with pytest.raises(nvshmem.NvshmemInvalid, match="shmem_putmem"):
        nvshmem.put(np.zeros(4, np.int32), src, remote_pe=nxt())
    nvshmem.barrier_all()
    nvshmem.free_array(dst)
    job_still_works()


@needs_return_mode("signal")
def test_signal_errors_in_the_library():
    sig = nvshmem.array((1,), "uint64")
    with pytest.raises(nvshmem.NvshmemInvalid):
        nvshmem.signal_op(sig, 1, SignalOp.SIGNAL_SET, remote_pe=npes())
    with pytest.raises(nvshmem.NvshmemInvalid):
        nvshmem.signal_op(sig, 1, 77, remote_pe=me())
    with pytest.raises(nvshmem.NvshmemInvalid):
        nvshmem.put_signal(sig, np.zeros(1, np.uint64), sig, 1, SignalOp.SIGNAL_SET,
                           remote_pe=npes())
    nvshmem.barrier_all()
    nvshmem.free_array(sig)
    job_still_works()


@needs_return_mode("wait")
def test_wait_errors_in_the_library():
    sig = nvshmem.array((1,), "uint64")
    sig[:] = 0
    with pytest.raises(nvshmem.NvshmemInvalid):
        nvshmem.signal_wait(sig, 0, 99)
    nvshmem.barrier_all()
    nvshmem.free_array(sig)
    job_still_works()


def test_wait_on_a_word_that_is_not_symmetric():
    # No PE could ever update it: signal_wait raised nothing and waited
    # forever (issue 27).  Every wait of the binding refuses it, on a
    # stream too.
    local = np.zeros(1, np.uint64)
    with pytest.raises(nvshmem.NvshmemInvalid, match="signal_wait: signal_var is not "
                       "symmetric"):
        nvshmem.signal_wait(local, 1, ComparisonType.CMP_EQ)
    with pytest.raises(nvshmem.NvshmemInvalid, match="signal_wait: signal_var is not "
                       "symmetric"):
        nvshmem.signal_wait(np.zeros(4, np.uint64)[2:], 0, ComparisonType.CMP_GE)
    with nvshmem.Stream() as s:
        with pytest.raises(nvshmem.NvshmemInvalid, match="signal_wait: signal_var is not "
                           "symmetric"):
            nvshmem.signal_wait(local, 1, ComparisonType.CMP_EQ, stream=s)
    # A symmetric word is waited on as before.
    sig = nvshmem.array((1,), "uint64")
    sig[:] = 0
    nvshmem.barrier_all()
    nvshmem.signal_op(sig, 1, SignalOp.SIGNAL_SET, remote_pe=nxt())
    assert nvshmem.signal_wait(sig, 1, ComparisonType.CMP_EQ) == 1
    nvshmem.barrier_all()
    nvshmem.free_array(sig)
    job_still_works()
