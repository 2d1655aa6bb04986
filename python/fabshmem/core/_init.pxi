# Init, finalize, status, versions, unique ids, my_pe and n_pes.

# Incremented by every successful init: an object made in an earlier job
# (before a finalize) is dead in this one.
cdef long _epoch = 0
# Between a successful init and finalize.
cdef bint _live = False
# The GPU that init(device=...) bound this PE to (its device heap then
# holds what buffer(), array() and the interop helpers allocate), or -1.
cdef int _gpu_dev = -1
# The library brought up a GPU (shmemx_cuda_device() >= 0): GPU memory of
# the program (CuPy arrays, CUDA tensors) may be a routine's local side.
cdef bint _cuda_on = False

_METHODS = ("", "pmix", "mpi", "uid", "emulated_mpi")


cdef int _init_attr(unsigned int flags, shmemx_init_attr_t *attr) except -1:
    cdef int rc
    # init on an initialized library does nothing (OpenSHMEM): the objects
    # of the job stay alive.
    cdef bint was = shmemx_init_status() == 2  # SHMEMX_STATUS_IS_INITIALIZED
    global _epoch, _live
    # Python programs use threads, and a stream runs launched Python
    # functions on its own thread.
    attr.thread_level = SHMEM_THREAD_MULTIPLE
    with nogil:
        rc = shmemx_init_attr(flags, attr)
    _chk_rc(rc, "init")
    if not was:
        _epoch += 1
    _live = True
    global _cuda_on
    _cuda_on = shmemx_cuda_device() >= 0
    return 0


cdef int _device_ordinal(object device) except -2:
    """The ordinal of a cuda.core Device (or an int), after making its
    primary context current on this thread."""
    if isinstance(device, int):
        try:
            from cuda.core import Device
        except ImportError:
            try:
                from cuda.core.experimental import Device
            except ImportError as e:
                raise NvshmemNotSupported(f"init: device={device}: an ordinal needs cuda.core "
                                          f"(cuda-core) to bind the device: {e}") from None
        device = Device(device)
    if not hasattr(device, "device_id") or not hasattr(device, "set_current"):
        raise NvshmemInvalid(f"init: device must be a cuda.core Device (or a device ordinal), "
                             f"not {type(device).__name__}")
    device.set_current()
    return device.device_id


cdef int _bind_device(object device, object init_fn) except -1:
    """init_fn() with this PE bound to device: its context current, so
    that shmem_init brings the device heap up on it (FABSHMEM_CUDA=1 unless
    the environment says otherwise: a PE without a GPU fails init on every
    PE)."""
    global _gpu_dev
    cdef int want = _device_ordinal(device)
    cdef int got
    set_mode = "FABSHMEM_CUDA" not in os.environ
    if set_mode:
        os.environ["FABSHMEM_CUDA"] = "1"
    try:
        init_fn()
    finally:
        if set_mode:
            del os.environ["FABSHMEM_CUDA"]
    got = shmemx_cuda_device()
    if got != want:
        raise NvshmemNotSupported(
            f"init: device={want}: the library's device heap is on device {got} (-1: none; "
            f"SHMEM_INFO=1 prints why, e.g. FABSHMEM_CUDA=0 or FABSHMEM_DEVICE_HEAP_SIZE=0)")
    _gpu_dev = want
    return 0


cdef int _gpu_sync(str rtn) except -1:
    """Waits for the work queued on this PE's GPU (see fabpy_gpu_sync)."""
    cdef int rc
    with nogil:
        rc = fabpy_gpu_sync()
    if rc != 0:
        raise NvshmemError(f"{rtn}: waiting for the GPU's queued work failed (cuCtxSynchronize "
                           f"returned {rc})", ErrorCode.INTERNAL)
    return 0


cdef int _uid_to_c(object uid, shmemx_uniqueid_t *c) except -1:
    if not isinstance(uid, UniqueID):
        raise NvshmemInvalid(f"init: uid must be a UniqueID from get_unique_id(), "
                             f"not {type(uid).__name__}")
    data = bytes(uid._data.tobytes())
    if len(data) != sizeof(shmemx_uniqueid_t):
        raise NvshmemInvalid(f"init: uid holds {len(data)} bytes, not "
                             f"{sizeof(shmemx_uniqueid_t)}")
    memcpy(c, <const char *>data, sizeof(shmemx_uniqueid_t))
    return 0


cdef int _init_uid(object uid, object rank, object nranks) except -1:
    cdef shmemx_init_attr_t attr
    cdef shmemx_uniqueid_t cuid
    missing = [n for n, v in (("uid", uid), ("rank", rank), ("nranks", nranks)) if v is None]
    if missing:
        raise NvshmemInvalid(f"init: initializer_method='uid' needs uid, rank and nranks "
                             f"(missing: {', '.join(missing)})")
    _uid_to_c(uid, &cuid)
    fabpy_attr_init(&attr)
    _chk_rc(shmemx_set_attr_uniqueid_args(_int_arg(rank, "init", "rank"),
                                          _int_arg(nranks, "init", "nranks"), &cuid, &attr),
            "init")
    return _init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr)


cdef object _mpi_comm(object mpi_comm, str method):
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise NvshmemNotSupported(f"init: initializer_method={method!r} needs mpi4py "
                                  f"(Debian: python3-mpi4py): {e}") from None
    comm = MPI.COMM_WORLD if mpi_comm is None else mpi_comm
    if not isinstance(comm, MPI.Comm):
        raise NvshmemInvalid(f"init: mpi_comm must be an mpi4py communicator, "
                             f"not {type(comm).__name__}")
    return MPI, comm


cdef int _init_mpi(object mpi_comm) except -1:
    cdef shmemx_init_attr_t attr
    cdef uintptr_t addr
    MPI, comm = _mpi_comm(mpi_comm, "mpi")
    # The address of the MPI_Comm handle; the library duplicates the
    # communicator during init.
    addr = MPI._addressof(comm)
    fabpy_attr_init(&attr)
    _chk_rc(shmemx_set_attr_mpi_comm_args(<void *>addr, &attr), "init")
    try:
        return _init_attr(SHMEMX_INIT_WITH_MPI_COMM, &attr)
    except NvshmemError as e:
        from fabshmem import _preload
        if _preload.PRELOADED_MPI is None and "mpi4py.MPI" not in _preload.MODULES_AT_LOAD:
            # The library was loaded before libmpi: its weak references to
            # MPI are NULL (fabshmem/_preload.py).
            raise type(e)(f"{e.message} (libfabshmem was loaded before MPI: import "
                          f"mpi4py.MPI before fabshmem.core, or leave FABPY_PRELOAD_MPI "
                          f"unset)", e.code) from None
        raise


cdef int _init_emulated_mpi(object mpi_comm) except -1:
    MPI, comm = _mpi_comm(mpi_comm, "emulated_mpi")
    rank = comm.Get_rank()
    data = None
    failure = None
    if rank == 0:
        try:
            data = bytes(get_unique_id(empty=False))
        except NvshmemError as e:
            failure = e
    # Rank 0 sends the id, or None when it could not make one, so that no
    # rank is left waiting.
    data = comm.bcast(data, root=0)
    if failure is not None:
        raise failure
    if data is None:
        raise NvshmemError("init: initializer_method='emulated_mpi': rank 0 could not make "
                           "a unique id (see its error)", ErrorCode.BOOTSTRAP)
    return _init_uid(UniqueID(data), rank, comm.Get_size())


cdef int _init_launcher(bint pmix) except -1:
    cdef shmemx_init_attr_t attr
    fabpy_attr_init(&attr)
    if not pmix or "FABSHMEM_BOOTSTRAP" in os.environ:
        return _init_attr(0, &attr)
    # "pmix": the PMIx bootstrap and nothing else (no single-PE fallback).
    os.environ["FABSHMEM_BOOTSTRAP"] = "pmix"
    try:
        return _init_attr(0, &attr)
    finally:
        del os.environ["FABSHMEM_BOOTSTRAP"]


def init(device=None, uid=None, rank=None, nranks=None, mpi_comm=None,
         initializer_method=""):
    """Initializes fabshmem; collective over the PEs of the job.

    initializer_method:
      "mpi"           over mpi_comm (an mpi4py communicator, MPI.COMM_WORLD
                      when None): the library's MPI bootstrap;
      "uid"           with uid (get_unique_id() on one process, handed to the
                      others), this process's rank and nranks;
      "emulated_mpi"  MPI broadcasts a unique id, then "uid";
      "pmix"          the PMIx launcher that started the process (oshrun,
                      mpirun, prterun, srun --mpi=pmix);
      ""              "uid" when uid is given, "mpi" when mpi_comm is given,
                      otherwise as shmem_init: PMIx under a launcher, a single
                      PE without one (FABSHMEM_BOOTSTRAP may choose).
    device: a cuda.core Device (or a device ordinal) binds this PE to that
    GPU: its context is made current before the library starts, so the
    device heap comes up on it, and buffer(), array() and the interop
    helpers then return GPU memory (CuPy arrays, CUDA tensors).  None: a
    CPU PE (NumPy arrays, CPU tensors).
    """
    if device is not None:
        return _bind_device(device, lambda: init(None, uid, rank, nranks, mpi_comm,
                                                   initializer_method))
    method = "" if initializer_method is None else initializer_method
    if not isinstance(method, str) or method.lower() not in _METHODS:
        raise NvshmemInvalid(f"init: unknown initializer_method {initializer_method!r} "
                             f"(mpi, uid, emulated_mpi, pmix, or '')")
    method = method.lower()
    if method == "":
        if uid is not None:
            method = "uid"
        elif mpi_comm is not None:
            method = "mpi"
    if method == "uid":
        _init_uid(uid, rank, nranks)
    elif method == "mpi":
        _init_mpi(mpi_comm)
    elif method == "emulated_mpi":
        _init_emulated_mpi(mpi_comm)
    else:
        _init_launcher(method == "pmix")


def finalize():
    """Finalizes fabshmem (collective).  Streams still open are closed first;
    symmetric objects still allocated are released with the heap, and
    using one afterwards raises NvshmemInvalid."""
    global _live
    _close_streams()
    with nogil:
        shmem_finalize()
    _chk()
    _live = False
    global _gpu_dev, _cuda_on
    _gpu_dev = -1
    _cuda_on = False
    _release_objects()
    _reset_teams()


def init_status():
    """The state of the library (InitStatus)."""
    cdef int s = shmemx_init_status()
    try:
        return InitStatus(s)
    except ValueError:
        return s


def get_version():
    """The versions: the OpenSHMEM specification, libfabshmem, this binding."""
    cdef int major = 0, minor = 0, patch = 0
    shmemx_vendor_get_version_info(&major, &minor, &patch)
    from fabshmem._version import __version__
    return Version(f"{SHMEM_MAJOR_VERSION}.{SHMEM_MINOR_VERSION}",
                   f"{major}.{minor}.{patch}", __version__)


def get_unique_id(empty=False):
    """A UniqueID for initializer_method="uid".  One process calls it with
    empty=False (it becomes the rendezvous point of the job and must take
    part in it); the others make an empty one with empty=True and receive
    the bytes into its ``_data``, e.g. comm.Bcast(uid._data.view(np.int8),
    root=0)."""
    cdef shmemx_uniqueid_t c
    cdef int rc
    fabpy_uniqueid_init(&c)
    if not empty:
        with nogil:
            rc = shmemx_get_uniqueid(&c)
        _chk_rc(rc, "get_unique_id")
    return UniqueID((<char *>&c)[:sizeof(c)])


def my_pe():
    """This PE's number in TEAM_WORLD."""
    cdef int r = shmem_my_pe()
    _chk()
    return r


def n_pes():
    """The number of PEs in TEAM_WORLD."""
    cdef int r = shmem_n_pes()
    _chk()
    return r
