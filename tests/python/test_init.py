"""Init, status, versions, queries, and init's argument errors."""
import numpy as np
import pytest

import fabshmem
import fabshmem.core as nvshmem
from fabtest import me, npes, job_still_works


def test_status():
    assert nvshmem.init_status() == nvshmem.InitStatus.STATUS_IS_INITIALIZED


def test_queries_agree_on_every_pe():
    assert 0 <= me() < npes()
    src = nvshmem.array((2,), "int32")
    dst = nvshmem.array((2 * npes(),), "int32")
    src[:] = [me(), npes()]
    nvshmem.fcollect(nvshmem.Teams.TEAM_WORLD, dst, src)
    assert list(dst[0::2]) == list(range(npes()))
    assert list(dst[1::2]) == [npes()] * npes()
    nvshmem.free_array(src)
    nvshmem.free_array(dst)


def test_version():
    v = nvshmem.get_version()
    assert v.openshmem_spec_version == "1.6"
    assert v.libfabshmem_version == fabshmem.__version__
    assert v.fabshmem_py_version == fabshmem.__version__
    # nvshmem4py's names.
    assert v.libnvshmem_version == v.libfabshmem_version
    assert v.nvshmem4py_version == v.fabshmem_py_version
    assert "1.6" in str(v)


def test_empty_unique_id():
    uid = nvshmem.get_unique_id(empty=True)
    assert isinstance(uid, nvshmem.UniqueID)
    assert uid._data.dtype == np.uint8 and uid._data.size == 124
    # The docs' Bcast target: an int8 view of the same bytes.
    v = uid._data.view(np.int8)
    v[:] = 7
    assert bytes(uid) == b"\x07" * 124


def test_enums():
    assert nvshmem.Teams.TEAM_WORLD == 0 and nvshmem.Teams.TEAM_GPU_LEADERS == 5
    assert nvshmem.InitStatus.STATUS_IS_BOOTSTRAPPED == 1
    assert nvshmem.SignalOp.SIGNAL_ADD == 1
    assert nvshmem.ComparisonType.CMP_LE == 5


def test_core_alias():
    # The tutorial's `nvshmem.core.array(...)` after `import ... as nvshmem`.
    assert nvshmem.core is nvshmem
    assert nvshmem.core.my_pe() == nvshmem.my_pe()
    assert nvshmem.core.SignalOp.SIGNAL_SET == nvshmem.SignalOp.SIGNAL_SET


def test_init_argument_errors():
    with pytest.raises(nvshmem.NvshmemInvalid, match="unknown initializer_method 'foo'"):
        nvshmem.init(initializer_method="foo")
    with pytest.raises(nvshmem.NvshmemInvalid, match="missing: uid, rank, nranks"):
        nvshmem.init(initializer_method="uid")
    with pytest.raises(nvshmem.NvshmemInvalid, match="missing: rank"):
        nvshmem.init(uid=nvshmem.get_unique_id(empty=True), nranks=1,
                     initializer_method="uid")
    with pytest.raises(nvshmem.NvshmemInvalid, match="must be a UniqueID"):
        nvshmem.init(uid="abc", rank=0, nranks=1, initializer_method="uid")
    with pytest.raises(nvshmem.NvshmemInvalid, match="must be a cuda.core Device"):
        nvshmem.init(device=object())
    with pytest.raises(nvshmem.NvshmemInvalid, match="must be a cuda.core Device"):
        nvshmem.init(device="cuda:0")
    # A device whose context is set (here: a stand-in that does nothing)
    # but on which the library has no device heap: this job's PEs are CPU
    # PEs (tests/python/gpu_check.py binds real GPUs).
    with pytest.raises(NotImplementedError, match="device heap is on device -1"):
        nvshmem.init(device=_FakeDevice())
    # The fabshmem names are the same classes.
    with pytest.raises(nvshmem.FabshmemInvalid):
        nvshmem.init(initializer_method=3)
    assert nvshmem.init_status() == nvshmem.InitStatus.STATUS_IS_INITIALIZED
    job_still_works()


class _FakeDevice:
    device_id = 0

    def set_current(self):
        pass


def test_init_again_keeps_the_job():
    # init on an initialized library does nothing: objects stay alive.
    a = nvshmem.array((2,), "int64")
    a[:] = me()
    nvshmem.init()
    assert nvshmem.init_status() == nvshmem.InitStatus.STATUS_IS_INITIALIZED
    assert not nvshmem.array_get_buffer(a)[0].freed
    nvshmem.barrier_all()
    nvshmem.free_array(a)
