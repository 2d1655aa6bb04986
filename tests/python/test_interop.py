"""interop.numpy and interop.torch (CPU tensors through DLPack)."""
import numpy as np
import pytest

import fabshmem.core as nvshmem
from fabshmem.core import Teams
from fabtest import me, npes, job_still_works


def nxt():
    return (me() + 1) % npes()


def prv():
    return (me() - 1) % npes()


def _shared(pe):
    return nvshmem.team_translate_pe(Teams.TEAM_WORLD, pe, Teams.TEAM_SHARED) >= 0


def test_numpy_interop():
    inp = nvshmem.interop.numpy
    a = inp.array((3, 3), "int32")
    a[:] = me()
    raw = inp.bytearray((3, 3), "int32")
    assert raw.dtype == np.uint8 and raw.size == 36
    v = raw.view(np.int32).reshape(3, 3)
    v[:] = -1
    nvshmem.barrier_all()
    nvshmem.put(v, a, remote_pe=nxt())
    nvshmem.barrier_all()
    assert (v == prv()).all()
    buf, size, name = inp.array_get_buffer(a)
    assert size == 36 and name == "int32"
    if _shared(nxt()):
        assert (inp.get_peer_array(a, nxt()) == nxt()).all()
    nvshmem.barrier_all()
    inp.free_array(a)
    inp.free_array(raw)


torch = pytest.importorskip("torch")


def test_torch_tensor():
    tt = nvshmem.interop.torch
    t = tt.tensor((4, 5), dtype=torch.float32)
    assert isinstance(t, torch.Tensor) and t.shape == (4, 5) and t.dtype == torch.float32
    t.fill_(me())
    t = t + 0  # a new tensor off the heap; keep the heap one apart
    h = tt.tensor((4, 5))
    h.copy_(t)
    nvshmem.barrier_all()
    # Tensors in every routine: put into the next PE's copy.
    dst = tt.tensor((4, 5))
    dst.zero_()
    nvshmem.barrier_all()
    nvshmem.put(dst, h, count=h.numel(), pe=nxt())
    nvshmem.barrier_all()
    assert bool((dst == prv()).all())
    # A reduction over tensors.
    out = tt.tensor((4, 5))
    nvshmem.reduce(Teams.TEAM_WORLD, out, h, "sum")
    assert bool((out == sum(range(npes()))).all())
    buf, size, name = tt.tensor_get_buffer(h)
    assert size == 80 and name == "float32" and buf.handle == h.data_ptr()
    if _shared(nxt()):
        p = tt.get_peer_tensor(h, nxt())
        assert p.shape == h.shape and bool((p == nxt()).all())
        del p
    nvshmem.barrier_all()
    for x in (h, dst, out):
        tt.free_tensor(x)
    with pytest.raises(nvshmem.NvshmemInvalid):
        tt.free_tensor(h)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "float32",
                                   "float64", "complex64", "complex128"])
def test_torch_dtypes(dtype):
    tt = nvshmem.interop.torch
    tdt = getattr(torch, dtype)
    t = tt.tensor((6,), dtype=tdt)
    assert t.dtype == tdt
    t.copy_(torch.arange(6).to(tdt) + me())
    out = tt.tensor((6,), dtype=tdt)
    nvshmem.reduce(Teams.TEAM_WORLD, out, t, "sum")
    exp = torch.arange(6).to(tdt) * npes() + sum(range(npes()))
    assert bool((out == exp).all())
    nvshmem.free_tensor(t)
    nvshmem.free_tensor(out)


def test_torch_bytetensor_and_dlpack():
    tt = nvshmem.interop.torch
    b = tt.bytetensor((2, 3), dtype=torch.float64)
    assert b.dtype == torch.uint8 and b.numel() == 48
    f = b.view(torch.float64)
    f.fill_(1.5)
    buf = nvshmem.buffer(32)
    x = torch.from_dlpack(buf)
    assert x.dtype == torch.uint8 and x.numel() == 32 and x.data_ptr() == buf.handle
    x.fill_(3)
    assert bytes(memoryview(buf)) == b"\x03" * 32
    del x
    nvshmem.free(buf)
    tt.free_tensor(b)


def test_torch_errors():
    tt = nvshmem.interop.torch
    t = tt.tensor((4,))
    with pytest.raises(nvshmem.NvshmemInvalid, match="contiguous"):
        nvshmem.put(t, torch.zeros(8)[::2], remote_pe=me())
    with pytest.raises(nvshmem.NvshmemInvalid, match="differ in dtype"):
        nvshmem.put(t, torch.zeros(4, dtype=torch.float64), remote_pe=me())
    with pytest.raises(nvshmem.NvshmemInvalid, match="not on a symmetric object"):
        tt.free_tensor(torch.zeros(4))
    nvshmem.barrier_all()
    tt.free_tensor(t)
    job_still_works()
