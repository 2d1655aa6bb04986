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


# ---- integer arguments out of range (issue 27: "must be an int, not
# 2147483648") ----

def test_int_arguments_out_of_range():
    a = nvshmem.array((4,), "int64")
    sig = nvshmem.array((1,), "uint64")
    w = nvshmem.Teams.TEAM_WORLD
    big = 2 ** 31
    cases = [
        (lambda: nvshmem.put(a, a, remote_pe=big), f"put: remote_pe {big} is out of range "
                                                   f"\\(PEs are 0 to {npes() - 1}\\)"),
        (lambda: nvshmem.get(a, a, pe=-big - 1), f"get: remote_pe {-big - 1} is out of range"),
        (lambda: nvshmem.put(a, a, count=2 ** 64, remote_pe=0), "put: count 18446744073709551616 "
                                                               "is out of range"),
        (lambda: nvshmem.atomic_add(a, 1, remote_pe=big), f"atomic_add: remote_pe {big} is out "
                                                          f"of range"),
        (lambda: nvshmem.atomic_fetch(a, remote_pe=0, index=2 ** 63), "atomic_fetch: index "
                                                                      "9223372036854775808 is "
                                                                      "out of range"),
        (lambda: nvshmem.broadcast(w, a, a, root=big), f"broadcast: root {big} is out of range"),
        (lambda: nvshmem.signal_op(sig, 1, big, remote_pe=0), f"signal_op: signal_op {big} is "
                                                              f"out of range"),
        (lambda: nvshmem.signal_wait(sig, 0, big), f"signal_wait: cmp {big} is out of range"),
        (lambda: nvshmem.team_translate_pe(w, big, w), f"team_translate_pe: src_pe {big} is out "
                                                       f"of range"),
        (lambda: nvshmem.team_split_strided(w, 0, big, 1), f"team_split_strided: stride {big} is "
                                                           f"out of range"),
        (lambda: nvshmem.team_split_2d(w, big), f"team_split_2d: xrange {big} is out of range"),
        (lambda: nvshmem.team_n_pes(2 ** 70), "team_n_pes: .* is not a team \\(out of range\\)"),
        (lambda: nvshmem.strerror(big), f"strerror: code {big} is out of range"),
        (lambda: nvshmem.put(a, a, remote_pe=1.5), "put: remote_pe must be an int, not float"),
        (lambda: nvshmem.buffer(2 ** 64), "buffer: size 18446744073709551616 is out of range"),
    ]
    for fn, msg in cases:
        with pytest.raises(nvshmem.NvshmemInvalid, match=msg):
            fn()
    nvshmem.barrier_all()
    nvshmem.free_array(a)
    nvshmem.free_array(sig)
    job_still_works()


# ---- introspection (issue 27: inspect.signature failed on every routine) ----

def test_every_routine_has_a_signature():
    import inspect
    names = [n for n in nvshmem.__all__ if n != "interop"]
    checked = 0
    for n in names:
        obj = getattr(nvshmem, n)
        if inspect.isclass(obj) or not callable(obj):
            continue
        sig = inspect.signature(obj)  # raised ValueError before
        assert sig.parameters is not None
        checked += 1
    assert checked >= 60, checked
    p = inspect.signature(nvshmem.put).parameters
    assert list(p) == ["dst", "src", "count", "remote_pe", "stream", "pe"]
    assert p["count"].default is None
    assert list(inspect.signature(nvshmem.reduce).parameters) == ["team", "dst", "src", "op",
                                                                  "stream"]
    assert str(inspect.signature(nvshmem.init)).startswith("(device=None, uid=None")


# ---- a unique-id mistake (issue 27): the exception carries the library's
# reason, not only stderr ----

_UID_CHILD = r"""
import sys
import fabshmem.core as nv
rank = int(sys.argv[1])
uid = nv.get_unique_id(empty=(rank != 0))  # the id is never handed over
try:
    nv.init(uid=uid, rank=rank, nranks=2, initializer_method="uid")
except nv.NvshmemError as e:
    print(f"{rank} {type(e).__name__}: {e}", flush=True)
    sys.exit(3)
"""


def test_uid_never_handed_over():
    import os
    import subprocess
    import sys
    import time
    if me() != 0:
        return
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PMIX_", "OMPI_", "PRTE_", "FABSHMEM_BOOTSTRAP"))}
    env["FABSHMEM_BOOTSTRAP_TIMEOUT"] = "2"
    t0 = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-c", _UID_CHILD, str(r)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in (0, 1)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert time.monotonic() - t0 < 30
    assert [p.returncode for p in procs] == [3, 3], outs
    assert outs[1][0].startswith("1 NvshmemInvalid: shmemx_init_attr: the unique id is empty "
                                 "(all zero): the id that shmemx_get_uniqueid made on one "
                                 "process must be handed to every other one"), outs
    assert outs[0][0].startswith("0 NvshmemError: shmemx_init_attr: unique-id bootstrap: only "
                                 "1 of 2 PEs joined within the time limit "
                                 "(FABSHMEM_BOOTSTRAP_TIMEOUT)"), outs
