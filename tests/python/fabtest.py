"""Helpers of the Python binding's tests."""
import os

import numpy as np
import pytest

import fabshmem.core as nvshmem

METHOD = os.environ.get("FABPY_INIT", "")


def init_job(method=METHOD):
    """Initializes the job by method, as the docs' examples do."""
    if method in ("", "pmix"):
        nvshmem.init(initializer_method=method)
        return
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    if method == "uid":
        rank, nranks = comm.Get_rank(), comm.Get_size()
        uid = nvshmem.get_unique_id(empty=(rank != 0))
        comm.Bcast(uid._data.view(np.int8), root=0)
        nvshmem.init(uid=uid, rank=rank, nranks=nranks, initializer_method="uid")
    else:
        nvshmem.init(mpi_comm=comm, initializer_method=method)


def me():
    return nvshmem.my_pe()


def npes():
    return nvshmem.n_pes()


# The areas of the C library that return errors to the binding (its
# SHMEMX_ERRORS_RETURN mode) rather than ending the job: tests/python/run.sh
# probes each once (tests/python/probe.py) and lists them in
# FABPY_CONVERTED; "all" (the default when the variable is unset)
# assumes every area.  A test of bad input in an area not listed is skipped,
# since the library would end the job instead of raising.
_CONVERTED = os.environ.get("FABPY_CONVERTED", "all").split()
AREAS = {
    "rma": "shmem_putmem/shmem_getmem",
    "signal": "shmem_putmem_signal/shmemx_signal_op",
    "wait": "shmem_signal_wait_until",
    "amo": "the shmem_*_atomic_* routines",
    "team": "the shmem_team_* routines",
    "coll": "the team collectives (shmem_*_reduce, shmem_broadcastmem, ...)",
    "mem": "shmem_malloc/shmem_free/shmemx_buffer_register_symmetric",
    "init": "the routines called before shmem_init (shmem_my_pe, ...)",
}


def converted(area):
    return "all" in _CONVERTED or area in _CONVERTED


def needs_return_mode(area):
    """Marks a test of bad input in area: skipped while the library ends the
    job for it instead of returning the error."""
    return pytest.mark.skipif(
        not converted(area),
        reason=f"{AREAS[area]} still end the job on bad input (not yet converted to the "
               f"error-return mode of issue 16)")


def job_still_works():
    """After an error: a put to the next PE and a barrier still work."""
    a = nvshmem.array((1,), "int64")
    a[0] = -1
    nvshmem.barrier_all()
    src = np.array([me()], dtype=np.int64)
    nvshmem.put(a, src, remote_pe=(me() + 1) % npes())
    nvshmem.barrier_all()
    assert a[0] == (me() - 1) % npes()
    nvshmem.free_array(a)


# The dtypes of the typed dispatch (reductions, atomics).
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
REAL_DTYPES = ["float32", "float64", "longdouble"]
COMPLEX_DTYPES = ["complex64", "complex128"]
ALL_DTYPES = INT_DTYPES + REAL_DTYPES + COMPLEX_DTYPES
