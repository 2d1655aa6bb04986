"""The leak report: an object the garbage collector finds unfreed is
reported (NvshmemLeakWarning, a ResourceWarning, naming its size and where
it was allocated) and stays on the heap until finalize releases it; an
object alive at finalize is released with the heap and never freed twice,
not even when it dies in a later job.  Exits 0 when every check passed."""
import gc
import sys
import warnings

import numpy as np

import fabshmem.core as nvshmem

checks = 0


def check(cond, what):
    global checks
    if not cond:
        print(f"FAIL: {what}", file=sys.stderr)
        sys.exit(1)
    checks += 1


def leaks(caught):
    return [str(w.message) for w in caught if issubclass(w.category, nvshmem.NvshmemLeakWarning)]


nvshmem.init()
me, n = nvshmem.my_pe(), nvshmem.n_pes()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", nvshmem.NvshmemLeakWarning)
    lost = nvshmem.array((1000,), "float64"); LINE = sys._getframe().f_lineno  # noqa: E702
    del lost
    gc.collect()
found = leaks(caught)
check(len(found) == 1, f"one report, not {found}")
check("8000 bytes" in found[0] and f"leak_check.py:{LINE}" in found[0], found[0])
check(nvshmem.leak_report() == (1, 8000), f"leak_report {nvshmem.leak_report()}")
# The leaked block stays allocated: the next allocation is elsewhere, and
# the heap still serves collective allocations in step on every PE.
kept = nvshmem.array((10,), "int32")
kept[:] = me
freed = nvshmem.buffer(64)
nvshmem.free(freed)
nvshmem.barrier_all()
nvshmem.finalize()

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", nvshmem.NvshmemLeakWarning)
    nvshmem.init()
    fresh = nvshmem.array((10,), "int32")
    fresh[:] = 100 + me
    nvshmem.barrier_all()
    # An object of the first job dies in the second: nothing is reported,
    # nothing freed (its address may be fresh's).
    del kept
    gc.collect()
    nvshmem.barrier_all()
check(not leaks(caught), f"reports after finalize: {leaks(caught)}")
check(nvshmem.leak_report() == (0, 0), "the report starts again with the job")
check((fresh == 100 + me).all(), "the new job's object untouched")
got = np.zeros(10, np.int32)
nvshmem.get(got, fresh, remote_pe=(me + 1) % n)
check((got == 100 + (me + 1) % n).all(), "a get in the new job")
nvshmem.barrier_all()
nvshmem.free_array(fresh)
nvshmem.finalize()
print(f"leak_check: PE {me}: {checks} checks passed")
