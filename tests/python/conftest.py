"""pytest set-up of the Python binding's tests: every PE of the job runs the
same tests in the same order (the collectives need it), each checking the
values it holds.

The job is initialized once, by the method FABPY_INIT names ("",
"pmix", "mpi", "uid", "emulated_mpi"), and finalized at the end.  A failed
test on one PE of a job of several ends the whole job (shmem_global_exit)
once its report is printed: the other PEs would otherwise wait in the next
collective until the timeout."""
import sys

import pytest

import fabshmem.core as nvshmem
import fabtest


@pytest.fixture(scope="session", autouse=True)
def job():
    fabtest.init_job()
    yield
    nvshmem.barrier_all()
    nvshmem.finalize()


def pytest_runtest_logreport(report):
    if not report.failed:
        return
    if nvshmem.init_status() != nvshmem.InitStatus.STATUS_IS_INITIALIZED:
        return
    if nvshmem.n_pes() > 1:
        sys.stderr.write(f"\nFAIL on PE {nvshmem.my_pe()} of {nvshmem.n_pes()}: "
                         f"{report.nodeid} ({report.when})\n{report.longreprtext}\n"
                         f"(ending the job: the other PEs would wait for this one)\n")
        nvshmem.global_exit(1)
