"""The exception classes, and the job working after each kind of error."""
import numpy as np
import pytest

import fabshmem.core as nvshmem
from fabtest import me, npes, converted, job_still_works


def test_classes():
    assert nvshmem.FabshmemError is nvshmem.NvshmemError
    assert nvshmem.FabshmemInvalid is nvshmem.NvshmemInvalid
    assert issubclass(nvshmem.NvshmemInvalid, nvshmem.NvshmemError)
    assert issubclass(nvshmem.NvshmemInvalid, ValueError)
    assert issubclass(nvshmem.NvshmemNotSupported, nvshmem.NvshmemError)
    assert issubclass(nvshmem.NvshmemNotSupported, NotImplementedError)
    e = nvshmem.NvshmemError("x: y", nvshmem.ErrorCode.TRANSPORT)
    assert e.message == "x: y" and e.code == 7 and str(e) == "x: y"
    assert nvshmem.strerror(1)


def test_repeated_errors_leave_the_job_working():
    a = nvshmem.array((4,), "int64")
    for _ in range(50):
        with pytest.raises(nvshmem.NvshmemInvalid):
            nvshmem.put(a, np.zeros(8, np.int64), remote_pe=0)
        if converted("rma"):
            with pytest.raises(nvshmem.NvshmemInvalid):
                nvshmem.get(np.zeros(4, np.int64), a, remote_pe=npes() + 3)
    nvshmem.free_array(a)
    job_still_works()


@pytest.mark.skipif(not converted("rma"), reason="shmem_putmem ends the job on bad input")
def test_error_is_per_call():
    # An error does not stick to the calls after it.
    a = nvshmem.array((1,), "int64")
    with pytest.raises(nvshmem.NvshmemInvalid):
        nvshmem.put(a, np.zeros(1, np.int64), remote_pe=-5)
    nvshmem.put(a, np.full(1, me(), np.int64), remote_pe=me())
    nvshmem.quiet()
    assert a[0] == me()
    nvshmem.barrier_all()
    nvshmem.free_array(a)
