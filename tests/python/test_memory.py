"""Symmetric memory: Buffer, arrays, peers, external registration, DLPack,
freeing rules and the leak report."""
import gc
import mmap
import os
import warnings

import numpy as np
import pytest

import fabshmem.core as nvshmem
from fabshmem.core import Teams
from fabtest import me, npes, needs_return_mode, job_still_works, ALL_DTYPES


def test_buffer():
    buf = nvshmem.buffer(4096)
    assert isinstance(buf, nvshmem.Buffer)
    assert buf.size == 4096 and len(buf) == 4096 and buf.handle != 0
    assert buf.origin == "heap" and not buf.freed and buf.is_host_accessible
    m = memoryview(buf)
    assert m.nbytes == 4096 and not m.readonly and m.format == "B"
    m[:4] = bytes([me(), 1, 2, 3])
    assert bytes(memoryview(buf)[:4]) == bytes([me(), 1, 2, 3])
    del m
    nvshmem.free(buf)
    assert buf.freed
    with pytest.raises(nvshmem.NvshmemInvalid, match="freed already"):
        nvshmem.free(buf)
    with pytest.raises(BufferError):
        memoryview(buf)


@pytest.mark.parametrize("dtype", ALL_DTYPES + ["bool"])
def test_array(dtype):
    a = nvshmem.array((3, 4), dtype)
    assert a.shape == (3, 4) and a.dtype == np.dtype(dtype)
    assert a.flags.c_contiguous and a.flags.writeable
    assert a.ctypes.data % 64 == 0
    a[:] = 1
    buf, size, name = nvshmem.array_get_buffer(a)
    assert isinstance(buf, nvshmem.Buffer) and buf.handle == a.ctypes.data
    assert size == a.nbytes and name == str(np.dtype(dtype))
    nvshmem.free_array(a)
    assert buf.freed


def test_array_shapes():
    for shape in [5, (0,), (2, 0, 3), (1, 2, 3, 4, 5)]:
        a = nvshmem.array(shape, "float32")
        assert a.shape == ((shape,) if isinstance(shape, int) else shape)
        nvshmem.free_array(a)


def test_array_view_buffer():
    a = nvshmem.array((10,), "int32")
    b, size, name = nvshmem.array_get_buffer(a[2:6])
    assert b.origin == "view" and size == 16 and b.handle == a[2:].ctypes.data
    # Freeing any view frees the object it lies in.
    nvshmem.free_array(a[3:])
    with pytest.raises(nvshmem.NvshmemInvalid, match="freed already"):
        nvshmem.free_array(a)


def _shared(pe):
    return nvshmem.team_translate_pe(Teams.TEAM_WORLD, pe, Teams.TEAM_SHARED) >= 0


def test_get_peer_array():
    a = nvshmem.array((4,), "int64")
    a[:] = me()
    nvshmem.barrier_all()
    for pe in range(npes()):
        if _shared(pe):
            p = nvshmem.get_peer_array(a, pe)
            assert p.shape == a.shape and p.dtype == a.dtype
            assert list(p) == [pe] * 4
        else:
            with pytest.raises(nvshmem.NvshmemInvalid, match=f"PE {pe} is not in the load/store"):
                nvshmem.get_peer_array(a, pe)
    nvshmem.barrier_all()
    # Stores through a peer view land in the peer's copy.
    nxt = (me() + 1) % npes()
    if _shared(nxt):
        nvshmem.get_peer_array(a, nxt)[1] = 100 + me()
    nvshmem.barrier_all()
    prev = (me() - 1) % npes()
    if _shared(prev):
        # prev wrote to my copy: the load/store domain is symmetric.
        assert a[1] == 100 + prev
    with pytest.raises(nvshmem.NvshmemInvalid, match="out of range"):
        nvshmem.get_peer_array(a, npes())
    with pytest.raises(nvshmem.NvshmemInvalid, match="not symmetric"):
        nvshmem.get_peer_array(np.zeros(4), 0)
    nvshmem.barrier_all()
    nvshmem.free_array(a)


def test_get_peer_buffer():
    buf = nvshmem.buffer(64)
    memoryview(buf)[0] = me()
    nvshmem.barrier_all()
    for pe in range(npes()):
        if _shared(pe):
            p = nvshmem.get_peer_buffer(buf, pe)
            assert p.origin == "view" and p.size == 64
            assert memoryview(p)[0] == pe
            with pytest.raises(nvshmem.NvshmemInvalid, match="not allocated by buffer"):
                nvshmem.free(p)
    nvshmem.barrier_all()
    nvshmem.free(buf)


def test_dlpack_numpy():
    buf = nvshmem.buffer(64)
    assert buf.__dlpack_device__() == (1, 0)
    x = np.from_dlpack(buf)
    assert x.dtype == np.uint8 and x.shape == (64,)
    assert x.ctypes.data == buf.handle
    memoryview(buf)[5] = 42
    assert x[5] == 42
    del x
    nvshmem.free(buf)
    with pytest.raises(BufferError):
        buf.__dlpack__()


def test_register_external_array():
    arr = np.full(8, -1, dtype=np.int64)
    reg = nvshmem.register_external_array(arr)
    assert reg is arr
    nxt = (me() + 1) % npes()
    nvshmem.put(arr, np.arange(8, dtype=np.int64) + 10 * me(), remote_pe=nxt)
    nvshmem.barrier_all()
    prev = (me() - 1) % npes()
    assert list(arr) == list(np.arange(8) + 10 * prev)
    b, size, name = nvshmem.array_get_buffer(arr)
    assert size == 64 and name == "int64"
    nvshmem.barrier_all()
    assert nvshmem.unregister_external_array(arr) is arr


def test_register_external_buffer_shared_file():
    # A MAP_SHARED mapping of a memfd: node peers map each other's copies.
    fd = os.memfd_create("fabshmem-test")
    os.ftruncate(fd, 4096)
    mm = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    buf = nvshmem.register_external_buffer(mm)
    assert buf.origin == "external" and buf.size == 4096
    with pytest.raises(BufferError):
        mm.close()  # the registration holds the mapping
    arr = np.frombuffer(buf, dtype=np.int32)
    arr[:] = me()
    nvshmem.barrier_all()
    got = np.zeros(1024, dtype=np.int32)
    nvshmem.get(got, buf, remote_pe=(me() + 1) % npes())
    assert (got == (me() + 1) % npes()).all()
    # Node peers map each other's copies of shareable memory.
    for pe in range(npes()):
        if _shared(pe):
            peer = np.frombuffer(nvshmem.get_peer_buffer(buf, pe), dtype=np.int32)
            assert (peer == pe).all()
            del peer
    nvshmem.barrier_all()
    del arr
    nvshmem.unregister_external_buffer(buf)
    assert buf.freed
    mm.close()
    os.close(fd)


def test_free_errors():
    with pytest.raises(nvshmem.NvshmemInvalid, match="not on a symmetric object"):
        nvshmem.free_array(np.zeros(4))
    with pytest.raises(nvshmem.NvshmemInvalid, match="size -1 is negative"):
        nvshmem.buffer(-1)
    with pytest.raises(nvshmem.NvshmemInvalid, match="size must be an int"):
        nvshmem.buffer(1.5)
    with pytest.raises(nvshmem.NvshmemInvalid, match="Python objects"):
        nvshmem.array((2,), object)
    with pytest.raises(TypeError):
        nvshmem.Buffer()
    a = nvshmem.array((4,), "int32")
    nvshmem.free_array(a)
    with pytest.raises(nvshmem.NvshmemInvalid, match="freed already"):
        nvshmem.free_array(a)
    job_still_works()


def test_use_after_free():
    buf = nvshmem.buffer(8)
    nvshmem.free(buf)
    with pytest.raises(nvshmem.NvshmemInvalid, match="dst is a Buffer that was freed"):
        nvshmem.put(buf, np.zeros(1), remote_pe=me())
    job_still_works()


def test_leak_report():
    before = nvshmem.leak_report()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", nvshmem.NvshmemLeakWarning)
        a = nvshmem.array((16,), "float64"); line = _lineno()  # noqa: E702
        del a
        gc.collect()
    leaks = [w for w in caught if issubclass(w.category, nvshmem.NvshmemLeakWarning)]
    assert len(leaks) == 1, [str(w.message) for w in caught]
    text = str(leaks[0].message)
    assert "128 bytes" in text and f"test_memory.py:{line}" in text
    assert issubclass(nvshmem.NvshmemLeakWarning, ResourceWarning)
    after = nvshmem.leak_report()
    assert after[0] == before[0] + 1 and after[1] == before[1] + 128
    # A freed object is not reported; nothing is freed twice.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", nvshmem.NvshmemLeakWarning)
        b = nvshmem.array((16,), "float64")
        nvshmem.free_array(b)
        del b
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, nvshmem.NvshmemLeakWarning)]
    job_still_works()


def _lineno():
    import inspect
    return inspect.currentframe().f_back.f_lineno


@needs_return_mode("mem")
def test_memory_errors_in_the_library():
    # Registering heap memory as external memory: every PE is refused.
    a = nvshmem.array((8,), "int64")
    with pytest.raises(nvshmem.NvshmemError):
        nvshmem.register_external_array(a)
    # Unregistering what was never registered.
    with pytest.raises(nvshmem.NvshmemInvalid):
        nvshmem.unregister_external_array(np.zeros(8))
    nvshmem.free_array(a)
    # A block the heap cannot hold: every PE gets the error.
    with pytest.raises(nvshmem.NvshmemError, match="cannot allocate") as e:
        nvshmem.array((1 << 47,), "uint8")
    assert e.value.code == nvshmem.ErrorCode.OUT_OF_MEMORY
    job_still_works()


# ---- a freed object, reached through an array, a view or a tensor ----
# (issue 27: a freed array was still accepted, and a put through it wrote
# into the object allocated next at the same address on the peer)

def _refused(fn, what):
    with pytest.raises(nvshmem.NvshmemInvalid, match=f"{what} is an? (array|tensor) on a "
                       f"symmetric object of .* that was freed"):
        fn()


def test_freed_array_refused_everywhere():
    w = Teams.TEAM_WORLD
    nxt = (me() + 1) % npes()
    a = nvshmem.array((4,), "float32")
    sig = nvshmem.array((1,), "uint64")
    ai = nvshmem.array((4,), "int64")
    views = (a[1:], a.view("int32"), a.reshape(2, 2)[1])
    nvshmem.free_array(a)
    nvshmem.free_array(sig)
    nvshmem.free_array(ai)
    # The next objects lie where the freed ones were.
    b = nvshmem.array((4,), "float32")
    bs = nvshmem.array((1,), "uint64")
    bi = nvshmem.array((4,), "int64")
    b[:] = 7
    bs[:] = 5
    bi[:] = 9
    nvshmem.barrier_all()
    f32 = np.zeros(4, np.float32)
    for v in (a,) + views:
        _refused(lambda: nvshmem.put(v, np.zeros(v.size, v.dtype), remote_pe=nxt), "dst")
        if v.dtype == b.dtype:
            _refused(lambda: nvshmem.put(b[:v.size], v, remote_pe=nxt), "src")
        _refused(lambda: nvshmem.get(np.zeros(v.size, v.dtype), v, remote_pe=nxt), "src")
        _refused(lambda: nvshmem.get_peer_array(v, me()), "arr")
        _refused(lambda: nvshmem.array_get_buffer(v), "arr")
    _refused(lambda: nvshmem.put_signal(b, f32, sig, 1, nvshmem.SignalOp.SIGNAL_SET,
                                        remote_pe=nxt), "signal_var")
    _refused(lambda: nvshmem.signal_op(sig, 1, nvshmem.SignalOp.SIGNAL_SET, remote_pe=nxt),
             "signal_var")
    _refused(lambda: nvshmem.signal_wait(sig, 0, nvshmem.ComparisonType.CMP_EQ), "signal_var")
    _refused(lambda: nvshmem.signal_fetch(sig), "signal_var")
    _refused(lambda: nvshmem.atomic_add(ai, 1, remote_pe=nxt), "dst")
    _refused(lambda: nvshmem.atomic_fetch(ai, remote_pe=nxt), "dst")
    _refused(lambda: nvshmem.reduce(w, a, f32, "sum"), "dst")
    _refused(lambda: nvshmem.reduce(w, b, a, "sum"), "src")
    _refused(lambda: nvshmem.broadcast(w, b, a), "src")
    _refused(lambda: nvshmem.fcollect(w, np.zeros(4 * npes(), np.float32), a), "src")
    _refused(lambda: nvshmem.alltoall(w, np.zeros(4 * npes(), np.float32), a), "src")
    with pytest.raises(nvshmem.NvshmemInvalid, match="freed already"):
        nvshmem.free_array(a)
    # A Buffer view of a freed array (array_get_buffer of a part) is refused too.
    c = nvshmem.array((4,), "float32")
    part = nvshmem.array_get_buffer(c[1:])[0]
    nvshmem.free_array(c)
    with pytest.raises(nvshmem.NvshmemInvalid, match="was freed"):
        nvshmem.put(part, np.zeros(12, np.uint8), remote_pe=nxt)
    nvshmem.barrier_all()
    # Nothing reached the objects now at those addresses, on any PE.
    assert (b == 7).all() and bs[0] == 5 and (bi == 9).all()
    for x in (b, bs, bi):
        nvshmem.free_array(x)
    job_still_works()


def test_freed_tensor_refused():
    torch = pytest.importorskip("torch")
    tt = nvshmem.interop.torch
    nxt = (me() + 1) % npes()
    t = tt.tensor((4,), dtype=torch.float32)
    views = (t[1:], t.view(torch.int32), t.reshape(2, 2)[1])
    tt.free_tensor(t)
    u = tt.tensor((4,), dtype=torch.float32)
    u[:] = 3
    nvshmem.barrier_all()
    for v in (t,) + views:
        _refused(lambda: nvshmem.put(v, torch.zeros(v.numel(), dtype=v.dtype), remote_pe=nxt),
                 "dst")
        _refused(lambda: nvshmem.get(torch.zeros(v.numel(), dtype=v.dtype), v, remote_pe=nxt),
                 "src")
    _refused(lambda: nvshmem.reduce(Teams.TEAM_WORLD, u, t, "sum"), "src")
    _refused(lambda: tt.get_peer_tensor(t, me()), "buf")
    nvshmem.barrier_all()
    assert (u == 3).all()
    nvshmem.barrier_all()
    # A live tensor and its views still work.
    nvshmem.put(u[2:], torch.full((2,), float(me()), dtype=torch.float32), remote_pe=nxt)
    nvshmem.barrier_all()
    assert u[2:].tolist() == [float((me() - 1) % npes())] * 2
    tt.free_tensor(u)
    job_still_works()


def test_allocation_sizes_differ():
    # Every PE raises, none waits, nothing is allocated: the heap stays
    # symmetric for what follows.
    if npes() > 1:
        with pytest.raises(nvshmem.NvshmemInvalid, match=r"array: the PEs asked for different "
                           r"sizes \(1024 to 1048576 bytes; this PE"):
            nvshmem.array((1024 if me() == 0 else 1 << 20,), "uint8")
        with pytest.raises(nvshmem.NvshmemInvalid, match="buffer: the PEs asked for different "
                           f"sizes \\(8 to {8 + npes() - 1} bytes; this PE {8 + me()}\\)"):
            nvshmem.buffer(8 + me())
    else:
        # One PE agrees with itself.
        nvshmem.free_array(nvshmem.array((1024,), "uint8"))
    a = nvshmem.array((16,), "int64")
    b = nvshmem.array((16,), "int64")
    b[:] = -1
    nvshmem.barrier_all()
    nvshmem.put(b, np.full(16, me(), np.int64), remote_pe=(me() + 1) % npes())
    nvshmem.barrier_all()
    assert (b == (me() - 1) % npes()).all()
    nvshmem.free_array(a)
    nvshmem.free_array(b)
    job_still_works()
