"""Init and finalize on every PE: what may be called before init, what
raises before init and after finalize, and init again after finalize
(OpenSHMEM 1.6 allows it).  Exits 0 when every check passed."""
import os
import sys

import numpy as np

import fabshmem.core as nvshmem

CONVERTED = os.environ.get("FABPY_CONVERTED", "all").split()
checks = 0


def check(cond, what):
    global checks
    if not cond:
        print(f"FAIL: {what}", file=sys.stderr)
        sys.exit(1)
    checks += 1


def raises(cls, fn, *args, match=""):
    try:
        fn(*args)
    except cls as e:
        check(match in str(e), f"{fn.__name__}: message {str(e)!r} lacks {match!r}")
        return
    check(False, f"{fn.__name__}{args} did not raise {cls.__name__}")


def converted(area):
    return "all" in CONVERTED or area in CONVERTED


S = nvshmem.InitStatus
check(nvshmem.init_status() == S.STATUS_NOT_INITIALIZED, "status before init")
check(nvshmem.get_version().openshmem_spec_version == "1.6", "version before init")
check(len(bytes(nvshmem.get_unique_id(empty=True))) == 124, "an empty id before init")
raises(nvshmem.NvshmemInvalid, nvshmem.Stream, match="not initialized")
local = np.zeros(4, np.int64)
if converted("init"):
    raises(nvshmem.NvshmemInvalid, nvshmem.my_pe, match="before shmem_init")
    raises(nvshmem.NvshmemInvalid, nvshmem.n_pes, match="before shmem_init")
    raises(nvshmem.NvshmemInvalid, nvshmem.buffer, 8, match="before shmem_init")
    raises(nvshmem.NvshmemInvalid, nvshmem.array, (2,), match="before shmem_init")
else:
    print("preinit_check: skipped the calls before init: shmem_my_pe, shmem_n_pes and "
          "shmem_malloc still end the job before init (not yet converted to the "
          "error-return mode)")
if converted("coll"):
    raises(nvshmem.NvshmemInvalid, nvshmem.barrier_all)
else:
    print("preinit_check: skipped shmem_barrier_all before init: it still ends the job "
          "(not yet converted to the error-return mode)")
if converted("rma"):
    raises(nvshmem.NvshmemInvalid, nvshmem.put, local, local, None, 0)
if "PMIX_RANK" not in os.environ and "FABSHMEM_BOOTSTRAP" not in os.environ:
    # No launcher: "pmix" fails (no single-PE fallback), and leaves the
    # process as it was.
    raises(nvshmem.NvshmemError, nvshmem.init, None, None, None, None, None, "pmix")
    check(nvshmem.init_status() == S.STATUS_NOT_INITIALIZED, "status after a failed init")

nvshmem.init()
check(nvshmem.init_status() == S.STATUS_IS_INITIALIZED, "status after init")
me, n = nvshmem.my_pe(), nvshmem.n_pes()
kept = nvshmem.buffer(64)
arr = nvshmem.array((4,), "int64")
nvshmem.finalize()
check(nvshmem.init_status() == S.STATUS_IS_BOOTSTRAPPED, "status after finalize")
check(kept.freed, "a Buffer after finalize")
raises(nvshmem.NvshmemInvalid, nvshmem.free, kept, match="released by finalize")
raises(nvshmem.NvshmemInvalid, nvshmem.free_array, arr, match="released by finalize")
raises(nvshmem.NvshmemInvalid, nvshmem.put, kept, local, None, 0, match="freed")
if converted("rma"):
    raises(nvshmem.NvshmemInvalid, nvshmem.put, local, local, None, 0)
if converted("init"):
    raises(nvshmem.NvshmemInvalid, nvshmem.my_pe)
    raises(nvshmem.NvshmemInvalid, nvshmem.buffer, 8)

# Init again: a new job of the same PEs.
nvshmem.init()
check(nvshmem.my_pe() == me and nvshmem.n_pes() == n, "the same PE after init again")
ring = nvshmem.array((1,), "int64")
ring[0] = -1
nvshmem.barrier_all()
nvshmem.put(ring, np.array([me], np.int64), remote_pe=(me + 1) % n)
nvshmem.barrier_all()
check(ring[0] == (me - 1) % n, "a ring after init again")
nvshmem.free_array(ring)
nvshmem.finalize()
print(f"preinit_check: PE {me}: {checks} checks passed")
