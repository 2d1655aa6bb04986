"""The plain Python types of fabshmem.core: exceptions, enums, versions,
team configurations and unique ids (nvshmem4py's names)."""

from enum import IntEnum

import numpy as np


class ErrorCode(IntEnum):
    """The classes of error of the C library (shmemx_error.h)."""
    SUCCESS = 0
    INVALID_VALUE = 1
    OUT_OF_MEMORY = 2
    NOT_SUPPORTED = 3
    SYMMETRY = 4
    INVALID_STATE = 5
    BOOTSTRAP = 6
    TRANSPORT = 7
    INTERNAL = 8


class NvshmemError(Exception):
    """An operation failed.  ``message`` is the library's message (it names
    the routine and the argument), ``code`` its class (an ErrorCode)."""

    def __init__(self, message="", code=ErrorCode.INTERNAL):
        super().__init__(message)
        self.message = message
        try:
            self.code = ErrorCode(code)
        except ValueError:
            self.code = code


class NvshmemInvalid(NvshmemError, ValueError):
    """A bad argument, or a call the library's state does not allow (before
    init, after finalize): the caller's mistake."""

    def __init__(self, message="", code=ErrorCode.INVALID_VALUE):
        super().__init__(message, code)


class NvshmemNotSupported(NvshmemError, NotImplementedError):
    """What this build or machine cannot do (a GPU device, a GPU team, an MPI
    bootstrap in a build without MPI)."""

    def __init__(self, message="", code=ErrorCode.NOT_SUPPORTED):
        super().__init__(message, code)


class NvshmemLeakWarning(ResourceWarning):
    """A symmetric object was found by the garbage collector before it was
    freed.  Shown always (unlike other ResourceWarnings), unless the program
    installs a filter of its own for it."""


# fabshmem's own names for the same classes.
FabshmemError = NvshmemError
FabshmemInvalid = NvshmemInvalid
FabshmemNotSupported = NvshmemNotSupported
FabshmemLeakWarning = NvshmemLeakWarning


class Teams(IntEnum):
    """The predefined teams.  TEAM_SAME_GPU holds the PEs of my node on my
    GPU and TEAM_GPU_LEADERS the lowest PE of each GPU; a PE without a GPU
    is alone in its TEAM_SAME_GPU and leads it.  TEAM_SAME_NUMA and
    TEAM_NUMA_LEADERS are fabshmem's CPU counterparts of them (the PEs of
    my node in my NUMA domain; one leader per node and domain)."""
    TEAM_INVALID = -1
    TEAM_WORLD = 0
    TEAM_SHARED = 1
    TEAM_NODE = 2
    TEAM_SAME_MYPE_NODE = 3
    TEAM_SAME_GPU = 4
    TEAM_GPU_LEADERS = 5
    TEAM_SAME_NUMA = 6
    TEAM_NUMA_LEADERS = 7


class InitStatus(IntEnum):
    """What init_status() returns (NVSHMEM's values)."""
    STATUS_NOT_INITIALIZED = 0
    STATUS_IS_BOOTSTRAPPED = 1
    STATUS_IS_INITIALIZED = 2
    STATUS_LIMITED_MPG = 3
    STATUS_FULL_MPG = 4
    STATUS_INVALID = 0x7FFFFFFF


class SignalOp(IntEnum):
    """How put_signal and signal_op update the signal word (SHMEM_SIGNAL_*)."""
    SIGNAL_SET = 0
    SIGNAL_ADD = 1


class ComparisonType(IntEnum):
    """The comparisons of signal_wait (SHMEM_CMP_*)."""
    CMP_EQ = 0
    CMP_NE = 1
    CMP_GT = 2
    CMP_GE = 3
    CMP_LT = 4
    CMP_LE = 5


class Version:
    """The versions get_version() reports.  The nvshmem4py names are kept:
    ``libnvshmem_version`` is fabshmem's library version and
    ``nvshmem4py_version`` this binding's (also as ``libfabshmem_version``
    and ``fabshmem_py_version``)."""

    def __init__(self, openshmem_spec_version, libfabshmem_version, fabshmem_py_version):
        self.openshmem_spec_version = openshmem_spec_version
        self.libfabshmem_version = libfabshmem_version
        self.fabshmem_py_version = fabshmem_py_version

    @property
    def libnvshmem_version(self):
        return self.libfabshmem_version

    @property
    def nvshmem4py_version(self):
        return self.fabshmem_py_version

    def __repr__(self):
        return (f"Version(openshmem_spec_version={self.openshmem_spec_version!r}, "
                f"libfabshmem_version={self.libfabshmem_version!r}, "
                f"fabshmem_py_version={self.fabshmem_py_version!r})")

    __str__ = __repr__


class TeamConfig:
    """A team configuration (shmem_team_config_t).  ``num_contexts`` is the
    one field of the C structure; ``version`` is accepted for NVSHMEM's
    sake and ignored; ``uniqueid`` is the TeamUniqueID that team_init uses
    (NVSHMEM's is a number the application picks; fabshmem's carries the
    rendezvous address of the PE that made it, see team_get_uniqueid)."""

    def __init__(self, version=1, num_contexts=0, uniqueid=None):
        self.version = version
        self.num_contexts = num_contexts
        self.uniqueid = uniqueid

    def __repr__(self):
        return f"TeamConfig(num_contexts={self.num_contexts}, uniqueid={self.uniqueid!r})"


class _OpaqueId:
    """Bytes of a C id, held in a NumPy array ``_data`` that the application
    may fill in place (comm.Bcast(uid._data.view(np.int8), root=0))."""
    _SIZE = 0

    def __init__(self, data=None):
        self._data = np.zeros(self._SIZE, dtype=np.uint8)
        if data is not None:
            self._data[:] = np.frombuffer(bytes(data), dtype=np.uint8)

    def __bytes__(self):
        return self._data.tobytes()

    def __eq__(self, other):
        return type(other) is type(self) and bytes(self) == bytes(other)

    def __hash__(self):
        return hash(bytes(self))

    def __repr__(self):
        return f"{type(self).__name__}({bytes(self)[:8].hex()}...)"


class UniqueID(_OpaqueId):
    """The unique id of the "uid" initializer method (shmemx_uniqueid_t,
    124 bytes).  It is the key to the job: hand it only to its processes."""


class TeamUniqueID(_OpaqueId):
    """The id of team_init (shmemx_team_uniqueid_t, 32 bytes)."""
