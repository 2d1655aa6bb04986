"""Streams: routines with stream=, launched Python functions, lifetimes."""
import gc
import time
import weakref

import numpy as np
import pytest

import fabshmem.core as nvshmem
from fabshmem.core import Teams, SignalOp, ComparisonType
from fabtest import me, npes, job_still_works

WORLD = Teams.TEAM_WORLD


def nxt():
    return (me() + 1) % npes()


def prv():
    return (me() - 1) % npes()


def test_put_get_on_stream():
    dst = nvshmem.array((8,), "float32")
    got = np.zeros(8, np.float32)
    dst[:] = 0
    nvshmem.barrier_all()
    with nvshmem.Stream() as s:
        nvshmem.put(dst, np.full(8, me(), np.float32), 8, nxt(), stream=s)
        nvshmem.quiet(stream=s)
        nvshmem.barrier_all(stream=s)
        nvshmem.get(got, dst, remote_pe=prv(), stream=s)
        s.sync()
        assert (dst == prv()).all()
        assert (got == (prv() - 1) % npes()).all()
        assert s.query()
    nvshmem.barrier_all()
    nvshmem.free_array(dst)


def test_stream_keeps_objects_alive():
    dst = nvshmem.array((1024,), "int64")
    dst[:] = 0
    nvshmem.barrier_all()
    s = nvshmem.Stream()
    # Hold the stream behind a kernel so the put is still pending.
    s.launch(time.sleep, 0.05)
    src = np.arange(1024, dtype=np.int64) + me()
    ref = weakref.ref(src) if hasattr(src, "__weakref__") else None
    nvshmem.put(dst, src, remote_pe=nxt(), stream=s)
    del src
    gc.collect()
    # The stream still holds the source.
    assert ref is None or ref() is not None
    nvshmem.barrier_all(stream=s)
    s.sync()
    gc.collect()
    assert ref is None or ref() is None
    assert dst[0] == prv() and dst[-1] == 1023 + prv()
    s.close()
    nvshmem.free_array(dst)


def test_launch_order_and_query():
    out = []
    s = nvshmem.Stream()
    s.launch(time.sleep, 0.2)
    s.launch(out.append, 1)
    s.launch(lambda: out.append(2))
    assert not s.query()
    s.synchronize()
    assert out == [1, 2] and s.query()
    s.close()
    s.close()  # closing twice is fine


def test_launch_error():
    s = nvshmem.Stream()
    s.launch(lambda: 1 / 0)
    with pytest.raises(nvshmem.NvshmemError, match="ZeroDivisionError") as e:
        s.sync()
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    out = []
    s.launch(out.append, "after")
    s.sync()
    assert out == ["after"]
    s.close()


def test_signals_on_stream():
    dst = nvshmem.array((4,), "int32")
    sig = nvshmem.array((1,), "uint64")
    dst[:] = 0
    sig[:] = 0
    nvshmem.barrier_all()
    with nvshmem.Stream() as s:
        nvshmem.put_signal(dst, np.full(4, me(), np.int32), sig, 1, SignalOp.SIGNAL_SET,
                           nxt(), stream=s)
        # The previous PE's add may come right after its put: GE, not EQ.
        nvshmem.signal_wait(sig, 1, ComparisonType.CMP_GE, stream=s)
        nvshmem.signal_op(sig, 5, SignalOp.SIGNAL_ADD, nxt(), stream=s)
        nvshmem.signal_wait(sig, 6, ComparisonType.CMP_GE, stream=s)
        s.sync()
    assert (dst == prv()).all() and sig[0] == 6
    nvshmem.barrier_all()
    nvshmem.free_array(dst)
    nvshmem.free_array(sig)


def test_collectives_on_stream():
    src = nvshmem.array((4,), "float64")
    red = nvshmem.array((4,), "float64")
    rs = nvshmem.array((1,), "float64")
    rsrc = nvshmem.array((npes(),), "float64")
    col = nvshmem.array((4 * npes(),), "float64")
    a2a = nvshmem.array((npes(),), "float64")
    bc = nvshmem.array((4,), "float64")
    src[:] = me() + 1
    rsrc[:] = np.arange(npes()) + me()
    with nvshmem.Stream() as s:
        nvshmem.reduce(WORLD, red, src, "sum", stream=s)
        nvshmem.reducescatter(WORLD, rs, rsrc, "max", stream=s)
        nvshmem.fcollect(WORLD, col, src, stream=s)
        nvshmem.alltoall(WORLD, a2a, rsrc, stream=s)
        nvshmem.broadcast(WORLD, bc, src, 0, stream=s)
        nvshmem.barrier(WORLD, stream=s)
        nvshmem.sync(WORLD, stream=s)
        nvshmem.sync_all(stream=s)
        s.sync()
    n = npes()
    assert (red == n * (n + 1) / 2).all()
    assert rs[0] == me() + n - 1
    assert list(col[::4]) == [p + 1 for p in range(n)]
    assert list(a2a) == [me() + p for p in range(n)]
    assert (bc == 1).all()
    for a in (src, red, rs, rsrc, col, a2a, bc):
        nvshmem.free_array(a)


def test_stream_errors():
    s = nvshmem.Stream()
    a = nvshmem.array((4,), "int32")
    with pytest.raises(nvshmem.NvshmemInvalid, match="must be a fabshmem.core.Stream"):
        nvshmem.put(a, a, remote_pe=0, stream=object())
    with pytest.raises(nvshmem.NvshmemInvalid, match="fn must be callable"):
        s.launch(3)
    # A PE out of range is refused when enqueued and reported by sync.
    nvshmem.put(a, np.zeros(4, np.int32), remote_pe=npes(), stream=s)
    with pytest.raises(nvshmem.NvshmemInvalid):
        s.sync()
    s.sync()  # the error was reported once
    s.close()
    with pytest.raises(nvshmem.NvshmemInvalid, match="closed"):
        s.sync()
    with pytest.raises(nvshmem.NvshmemInvalid, match="closed"):
        nvshmem.quiet(stream=s)
    assert "closed" in repr(s)
    nvshmem.barrier_all()
    nvshmem.free_array(a)
    job_still_works()


class FakeProtocolStream:
    """A CUDA stream by the CUDA stream protocol (handle 1234)."""

    def __cuda_stream__(self):
        return (0, 1234)


class FakeCupyStream:
    """A CUDA stream as CuPy's streams name theirs."""
    ptr = 1234


def test_cuda_stream_without_gpu():
    if nvshmem._lib._gpu_up():
        pytest.skip("the PE has a GPU: a fake CUDA stream would reach the driver "
                    "(gpu_check.py runs the real ones)")
    a = nvshmem.array((4,), "int32")
    sig = nvshmem.array((1,), "uint64")
    a[:] = -1
    sig[:] = 0
    nvshmem.barrier_all()
    for fake in (FakeProtocolStream(), FakeCupyStream()):
        name = type(fake).__name__
        # Each routine names itself, then the C routine that refused.
        for rtn, call in (
                ("put", lambda: nvshmem.put(a, np.zeros(4, np.int32), remote_pe=nxt(),
                                            stream=fake)),
                ("signal_wait", lambda: nvshmem.signal_wait(sig, 1, ComparisonType.CMP_EQ,
                                                            stream=fake)),
                ("reduce", lambda: nvshmem.reduce(WORLD, a, a, "sum", stream=fake)),
                ("barrier_all", lambda: nvshmem.barrier_all(stream=fake)),
                ("Stream.from_cuda", lambda: nvshmem.Stream.from_cuda(fake))):
            with pytest.raises(nvshmem.NvshmemNotSupported,
                               match=rf"^{rtn}: stream={name}: shmemx_stream_create_cuda: "
                                     rf"a CUDA stream needs the PE's GPU"):
                call()

    class Version1:
        def __cuda_stream__(self):
            return (1, 1234)

    class NotAPair:
        __cuda_stream__ = (0, 1, 2)

    with pytest.raises(nvshmem.NvshmemInvalid, match="^put: .*version 1 of the CUDA stream"):
        nvshmem.put(a, a, remote_pe=0, stream=Version1())
    with pytest.raises(nvshmem.NvshmemInvalid, match="^quiet: .*not a \\(version, handle\\)"):
        nvshmem.quiet(stream=NotAPair())
    # A bare handle is no stream (nor in nvshmem4py).
    with pytest.raises(nvshmem.NvshmemInvalid, match="^sync_all: stream must be a "
                       "fabshmem.core.Stream or a CUDA stream"):
        nvshmem.sync_all(stream=1234)
    with pytest.raises(nvshmem.NvshmemInvalid, match="^Stream.from_cuda: obj must be a CUDA"):
        nvshmem.Stream.from_cuda(nvshmem.Stream())

    class ArrayWithPtr:  # as a CuPy array: its data pointer is no stream
        shape = (4,)
        ptr = 0x1234

    with pytest.raises(nvshmem.NvshmemInvalid, match="^barrier_all: stream must be a "
                       "fabshmem.core.Stream or a CUDA stream"):
        nvshmem.barrier_all(stream=ArrayWithPtr())
    # Nothing was enqueued anywhere, and a CPU stream still works.
    with nvshmem.Stream() as s:
        assert s.cuda_stream is None
        nvshmem.put(a, np.full(4, me(), np.int32), remote_pe=nxt(), stream=s)
        nvshmem.barrier_all(stream=s)
        s.sync()
        assert (a == prv()).all()
        assert int(sig[0]) == 0
    nvshmem.barrier_all()
    nvshmem.free_array(sig)
    nvshmem.free_array(a)
    job_still_works()


def test_offloaded_property():
    with nvshmem.Stream() as s:
        assert s.offloaded in (True, False)


def test_wait_while_a_launched_function_signals():
    # Every PE's stream runs a Python function that signals the next PE
    # while the main thread waits for the previous PE's signal: the wait
    # must let the worker take the GIL.
    sig = nvshmem.array((1,), "uint64")
    sig[:] = 0
    nvshmem.barrier_all()
    with nvshmem.Stream() as s:
        s.launch(time.sleep, 0.05)
        s.launch(nvshmem.signal_op, sig, 1, SignalOp.SIGNAL_SET, nxt())
        assert nvshmem.signal_wait(sig, 1, ComparisonType.CMP_EQ) == 1
        s.sync()
    nvshmem.barrier_all()
    nvshmem.free_array(sig)


def test_wait_while_a_thread_signals():
    import threading
    sig = nvshmem.array((1,), "uint64")
    sig[:] = 0
    nvshmem.barrier_all()
    t = threading.Thread(target=lambda: (time.sleep(0.05), nvshmem.signal_op(
        sig, 1, SignalOp.SIGNAL_SET, nxt())))
    t.start()
    nvshmem.signal_wait(sig, 1, ComparisonType.CMP_EQ)
    t.join()
    nvshmem.barrier_all()
    nvshmem.free_array(sig)
