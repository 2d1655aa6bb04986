"""fabshmem.core: nvshmem4py's host API (``nvshmem.core``) on fabshmem.

    import fabshmem.core as nvshmem

    nvshmem.init()                      # under oshrun/mpirun: PMIx
    a = nvshmem.array((10,), "float32") # a NumPy array on the symmetric heap
    a[:] = nvshmem.my_pe()
    nvshmem.put(a, a, remote_pe=(nvshmem.my_pe() + 1) % nvshmem.n_pes())
    nvshmem.barrier_all()
    nvshmem.free_array(a)
    nvshmem.finalize()

Routines raise NvshmemInvalid (a bad argument, a call before init) or
NvshmemError (a failure) with the library's message instead of ending the
job.  See docs/python.md for the API and how it maps to nvshmem4py.
"""
import sys as _sys
import warnings as _warnings

from fabshmem import _preload  # noqa: F401  (before the library is loaded)
from fabshmem.core._types import (  # noqa: F401
    ErrorCode, NvshmemError, NvshmemInvalid, NvshmemNotSupported, NvshmemLeakWarning,
    FabshmemError, FabshmemInvalid, FabshmemNotSupported, FabshmemLeakWarning,
    Teams, InitStatus, SignalOp, ComparisonType, Version, TeamConfig, UniqueID,
    TeamUniqueID)
from fabshmem.core._lib import (  # noqa: F401
    # init and queries
    init, finalize, init_status, get_version, get_unique_id, my_pe, n_pes, global_exit,
    strerror,
    # teams
    team_my_pe, team_n_pes, team_translate_pe, team_get_config, team_split_strided,
    team_split_2d, team_get_uniqueid, team_init, team_destroy, FIRST_USER_TEAM,
    # memory
    Buffer, buffer, free, array, free_array, array_get_buffer, get_peer_buffer,
    get_peer_array, register_external_buffer, register_external_array,
    unregister_external_buffer, unregister_external_array, leak_report,
    # RMA, signals, ordering
    put, get, put_signal, signal_op, signal_wait, signal_fetch, quiet, fence,
    # atomics
    atomic_fetch, atomic_set, atomic_swap, atomic_compare_swap, atomic_fetch_inc,
    atomic_inc, atomic_fetch_add, atomic_add, atomic_fetch_and, atomic_and,
    atomic_fetch_or, atomic_or, atomic_fetch_xor, atomic_xor,
    # collectives
    reduce, reducescatter, fcollect, alltoall, broadcast, barrier, sync, barrier_all,
    sync_all,
    # streams
    Stream)
from fabshmem.core import interop  # noqa: F401,E402

# An unfreed symmetric object is reported every time the garbage collector
# finds one (ResourceWarnings are ignored by default).  A filter the
# program installs later takes precedence.
_warnings.filterwarnings("always", category=NvshmemLeakWarning)


# The tutorial's later cells (nvshmem4py docs) write nvshmem.core.array(...)
# after `import nvshmem.core as nvshmem`: the module answers to that name
# too, so those lines run with only the import line changed.
core = _sys.modules[__name__]


def free_tensor(tensor):
    """Frees a torch tensor from interop.torch.tensor() (collective)."""
    free(tensor)


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("interop",)] + ["interop"]
