# Symmetric memory: Buffer, buffer/free, array/free_array, peer views,
# registered external memory, the leak report and DLPack.

cdef enum:
    _OWNED = 0     # allocated on the heap by buffer(); free() gives it back
    _EXTERNAL = 1  # application memory registered as symmetric
    _VIEW = 2      # a peer's copy (get_peer_*), or part of another object

cdef enum:
    _ALIVE = 0
    _FREED = 1     # by free, free_array, free_tensor or unregister_external_*

# The live heap objects by address (weak references), and their addresses
# sorted, to find the object that holds any address (a torch tensor, a
# view).  Entries leave at free, when the garbage collector finds an unfreed
# object, and at finalize.
cdef dict _owned = {}
cdef list _owned_addrs = []
# Registered external memory by address: (length, the object or an export
# of it).  The registration keeps the object alive and its memory in place.
cdef dict _registered = {}
# What the garbage collector found unfreed in this job (count, bytes).
cdef Py_ssize_t _leaked_count = 0
cdef Py_ssize_t _leaked_bytes = 0
# Set when the interpreter exits (_stream.pxi's _at_exit).
cdef bint _exiting = False

_ORIGINS = {_OWNED: "heap", _EXTERNAL: "external", _VIEW: "view"}


@cython.no_gc_clear
@cython.final
cdef class Buffer:
    """A typeless block of symmetric memory: ``handle`` (its address) and
    ``size`` (bytes).  Host memory exports the buffer protocol (bytes,
    writable) and DLPack on the CPU device; GPU memory (a PE bound to a
    device by init(device=...)) exports DLPack on that CUDA device only.
    NumPy, CuPy, PyTorch and any DLPack consumer take it without a copy."""
    cdef char *ptr
    cdef Py_ssize_t _size
    cdef Py_ssize_t _one
    cdef int _kind
    cdef int _dev
    cdef int state
    cdef long epoch
    cdef object site
    cdef object owner
    cdef object __weakref__

    def __init__(self, *args, **kwargs):
        raise TypeError("a Buffer is made by fabshmem.core.buffer(), array_get_buffer(), "
                        "get_peer_buffer() or register_external_buffer()")

    @property
    def handle(self):
        """The address of the memory (an int)."""
        return <uintptr_t>self.ptr

    @property
    def size(self):
        """The size in bytes."""
        return self._size

    @property
    def origin(self):
        """"heap" (buffer()), "external" (register_external_buffer) or "view"
        (a peer's copy or part of another object)."""
        return _ORIGINS[self._kind]

    @property
    def freed(self):
        """True once freed, unregistered, or released by finalize."""
        return self.state != _ALIVE or self.epoch != _epoch or not _live

    @property
    def is_host_accessible(self):
        """False for GPU memory: the CPU cannot load or store it."""
        return self._dev < 0

    @property
    def is_device_accessible(self):
        """True for GPU memory (of device device_id)."""
        return self._dev >= 0

    @property
    def device_id(self):
        """The GPU whose memory it is, -1 for host memory."""
        return self._dev

    def __len__(self):
        return self._size

    def __repr__(self):
        state = " freed" if self.freed else ""
        where = f" cuda:{self._dev}" if self._dev >= 0 else ""
        return (f"<fabshmem.core.Buffer {self.origin}{where}{state} "
                f"handle=0x{<uintptr_t>self.ptr:x} size={self._size}>")

    def __getbuffer__(self, Py_buffer *view, int flags):
        if self.state != _ALIVE or self.epoch != _epoch or not _live:
            raise BufferError("the fabshmem Buffer was freed")
        if self._dev >= 0:
            raise BufferError(f"the fabshmem Buffer is GPU memory (cuda:{self._dev}), which the "
                              f"CPU cannot read: use DLPack (cupy.from_dlpack, "
                              f"torch.from_dlpack)")
        view.buf = self.ptr
        view.obj = self
        view.len = self._size
        view.readonly = 0
        view.itemsize = 1
        view.format = "B"
        view.ndim = 1
        view.shape = &self._size
        view.strides = &self._one
        view.suboffsets = NULL
        view.internal = NULL

    def __releasebuffer__(self, Py_buffer *view):
        pass

    def __dlpack_device__(self):
        """(kDLCPU, 0) for host memory, (kDLCUDA, device) for GPU memory."""
        if self._dev >= 0:
            return (FABPY_DLCUDA, self._dev)
        return (FABPY_DLCPU, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of the memory as a 1-D uint8 tensor (zero copy);
        the tensor keeps the Buffer alive.  The capsule is the unversioned
        one ("dltensor"), which consumers that ask for max_version accept;
        dl_device must be the Buffer's device and copy not True.  GPU
        memory is ready for any stream: the routines that write it are
        done when they return."""
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"__dlpack__: the Buffer is on {self.__dlpack_device__()}, not "
                              f"{dl_device}")
        if copy:
            raise BufferError("__dlpack__: the Buffer is exported without a copy")
        return _dlpack_capsule(self, stream)

    def __dealloc__(self):
        if self._kind != _OWNED or self.state != _ALIVE:
            return
        _forget_owned(<uintptr_t>self.ptr)
        if self.epoch == _epoch and _live and not _exiting:
            _report_leak(self._size, self.site)


cdef Buffer _new_buffer(void *ptr, Py_ssize_t size, int kind, object owner, object site,
                        int dev=-1):
    cdef Buffer b = Buffer.__new__(Buffer)
    b._dev = dev
    b.ptr = <char *>ptr
    b._size = size
    b._one = 1
    b._kind = kind
    b.state = _ALIVE
    b.epoch = _epoch
    b.owner = owner
    b.site = site
    return b


cdef object _site():
    """file:line of the nearest caller outside the fabshmem package."""
    f = sys._getframe(0)
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        f = f.f_back
    if f is None:
        return "<unknown>"
    return f"{f.f_code.co_filename}:{f.f_lineno}"


cdef _report_leak(Py_ssize_t size, object site):
    global _leaked_count, _leaked_bytes
    _leaked_count += 1
    _leaked_bytes += size
    try:
        warnings.warn(
            f"fabshmem: a symmetric Buffer of {size} bytes allocated at {site} was not freed "
            f"(free, free_array, free_tensor) when the garbage collector found it; its memory "
            f"stays on the symmetric heap until finalize", NvshmemLeakWarning, stacklevel=2)
    except BaseException:
        # A filter that turns the warning into an error, or an interpreter
        # that is shutting down: nothing more can be said from a destructor.
        pass


def leak_report():
    """(count, bytes) of the unfreed objects the garbage collector found in
    this job; their memory is released by finalize."""
    return _leaked_count, _leaked_bytes


cdef _remember_owned(Buffer b):
    cdef uintptr_t a = <uintptr_t>b.ptr
    _owned[a] = weakref.ref(b)
    bisect.insort(_owned_addrs, a)


cdef _forget_owned(uintptr_t a):
    if _owned.pop(a, None) is None:
        return
    i = bisect.bisect_left(_owned_addrs, a)
    if i < len(_owned_addrs) and _owned_addrs[i] == a:
        del _owned_addrs[i]


cdef object _owner_at(uintptr_t p):
    """The live heap Buffer that holds address p, or None."""
    i = bisect.bisect_right(_owned_addrs, p) - 1
    if i < 0:
        return None
    a = _owned_addrs[i]
    b = _owned[a]()
    if b is None or p >= a + max((<Buffer>b)._size, 1):
        return None
    return b


cdef _release_objects():
    """After finalize: the heap and the registrations are gone."""
    global _leaked_count, _leaked_bytes, _agree
    _agree = NULL
    _owned.clear()
    del _owned_addrs[:]
    _registered.clear()
    _leaked_count = 0
    _leaked_bytes = 0


cdef Py_ssize_t _nbytes_arg(object size, str rtn) except -1:
    try:
        n = size.__index__()
    except (AttributeError, TypeError):
        raise NvshmemInvalid(f"{rtn}: size must be an int, not {type(size).__name__}") from None
    if n < 0:
        raise NvshmemInvalid(f"{rtn}: size {n} is negative")
    if n > sys.maxsize:
        raise NvshmemInvalid(f"{rtn}: size {n} is out of range (0 to 2**63-1 bytes)")
    return n


# The binding's own symmetric memory, allocated by the first allocation of
# each job (the same size on every PE): 8 words through which the PEs
# compare the arguments of a collective allocation before the heap is
# touched, then two float32 blocks of _HALF_CHUNK elements through which
# float16 and bfloat16 reductions go (_coll.pxi), since the C library
# reduces no 16-bit reals.
cdef Py_ssize_t _HALF_CHUNK = 4096
cdef int64_t *_agree = NULL
cdef long _agree_epoch = -1


cdef int _same_on_every_pe(Py_ssize_t n, int dev, str rtn) except -1:
    """Raises on every PE, before anything is allocated, when the PEs asked
    for different sizes (or some for GPU memory and some not): the heap
    would no longer be symmetric.  One max-reduction of 4 words over
    TEAM_WORLD."""
    global _agree, _agree_epoch
    cdef fabpy_red_fn mx = fabpy_reduce_fn(FABPY_OP_MAX, FABPY_INT64, 0)
    cdef shmem_team_t world = fabpy_predefined_team(0)
    cdef int64_t *a
    cdef int rc
    if _agree == NULL or _agree_epoch != _epoch or not _live:
        # (Before init and after finalize the library refuses the call.)
        with nogil:
            a = <int64_t *>shmem_malloc(8 * sizeof(int64_t) + 2 * _HALF_CHUNK * sizeof(float))
        _chk()
        if a == NULL:
            raise NvshmemError(f"{rtn}: no room on the symmetric heap for the binding's "
                               f"{8 * 8 + 2 * _HALF_CHUNK * 4} bytes (the allocations' "
                               f"comparison across PEs, 16-bit reductions)",
                               ErrorCode.OUT_OF_MEMORY)
        _agree = a
        _agree_epoch = _epoch
    a = _agree
    a[0] = n
    a[1] = -n
    a[2] = dev >= 0
    a[3] = -(dev >= 0)
    with nogil:
        rc = mx(world, a + 4, a, 4)
    _chk_rc(rc, rtn)
    if a[4] != -a[5]:
        raise NvshmemInvalid(f"{rtn}: the PEs asked for different sizes ({-a[5]} to {a[4]} "
                             f"bytes; this PE {n}): a symmetric allocation is collective and "
                             f"takes the same size on every PE; nothing was allocated")
    if a[6] != -a[7]:
        raise NvshmemInvalid(f"{rtn}: some PEs are bound to a GPU (init(device=...)) and others "
                             f"not: a symmetric allocation is GPU memory on every PE or on none; "
                             f"nothing was allocated")
    return 0


def buffer(size):
    """A Buffer of size bytes on the symmetric heap (collective over
    TEAM_WORLD: every PE asks for the same size, else every PE raises
    NvshmemInvalid).  Free it with free().
    On a PE bound to a GPU (init(device=...)) it is GPU memory of the
    device heap (shmem_malloc_with_hints with SHMEMX_MALLOC_DEVICE)."""
    return _alloc(_nbytes_arg(size, "buffer"), "buffer")


def _buffer(size, rtn):
    """buffer() for the interop helpers, whose errors name rtn."""
    return _alloc(_nbytes_arg(size, rtn), rtn)


cdef Buffer _alloc(Py_ssize_t n, str rtn):
    cdef size_t alloc = n if n > 0 else 1
    cdef void *p
    cdef int dev = _gpu_dev
    site = _site()
    _same_on_every_pe(n, dev, rtn)
    with nogil:
        if dev >= 0:
            p = shmem_malloc_with_hints(alloc, SHMEMX_MALLOC_DEVICE)
        else:
            p = shmem_malloc(alloc)
    _chk()
    if p == NULL:
        heap = ("device heap (its size is FABSHMEM_DEVICE_HEAP_SIZE)" if dev >= 0 else
                "symmetric heap (its size is FABSHMEM_SYMMETRIC_SIZE / SHMEM_SYMMETRIC_SIZE)")
        raise NvshmemError(f"{rtn}: no room for {n} bytes on the {heap}",
                           ErrorCode.OUT_OF_MEMORY)
    b = _new_buffer(p, n, _OWNED, None, site, dev)
    _remember_owned(b)
    return b


cdef Buffer _owner_of(object obj, str rtn):
    """The heap Buffer that obj (a Buffer, an array or tensor on one) lies in."""
    cdef _View v
    if isinstance(obj, Buffer):
        return obj
    o = obj
    while isinstance(o, np.ndarray):
        o = o.base
    if isinstance(o, memoryview):
        o = o.obj
    if isinstance(o, Buffer) and (<Buffer>o)._kind == _OWNED:
        return o
    _view(obj, rtn, "the object", &v, False)
    b = _owner_at(<uintptr_t>v.ptr)
    if b is None:
        raise NvshmemInvalid(f"{rtn}: the {type(obj).__name__} is not on a symmetric object made "
                             f"by buffer(), array() or tensor() (or that object was freed)")
    return b


cdef _free(Buffer b, str rtn):
    if b._kind != _OWNED:
        raise NvshmemInvalid(f"{rtn}: {b!r} was not allocated by buffer() or array() (a "
                             f"registered buffer is unregistered, a view needs nothing)")
    if b.state == _FREED:
        raise NvshmemInvalid(f"{rtn}: the Buffer of {b._size} bytes allocated at {b.site} "
                             f"was freed already")
    if b.epoch != _epoch or not _live:
        raise NvshmemInvalid(f"{rtn}: the Buffer of {b._size} bytes allocated at {b.site} "
                             f"was released by finalize")
    with nogil:
        shmem_free(b.ptr)
    _chk()
    b.state = _FREED
    _forget_owned(<uintptr_t>b.ptr)


def free(buf):
    """Frees a Buffer from buffer() (collective over TEAM_WORLD).  An array
    or tensor on the heap frees the object it lies in."""
    _free(_owner_of(buf, "free"), "free")


cdef tuple _shape_dtype(object shape, object dtype, str rtn):
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise NvshmemInvalid(f"{rtn}: dtype {dtype!r}: {e}") from None
    if dt.hasobject:
        raise NvshmemInvalid(f"{rtn}: dtype {dt} holds Python objects, which cannot live "
                             f"on the symmetric heap")
    try:
        shp = (shape.__index__(),) if hasattr(shape, "__index__") else \
            tuple(d.__index__() for d in shape)
    except (AttributeError, TypeError):
        raise NvshmemInvalid(f"{rtn}: shape must be an int or a sequence of ints, "
                             f"not {shape!r}") from None
    n = dt.itemsize
    for d in shp:
        if d < 0:
            raise NvshmemInvalid(f"{rtn}: shape {shp} has a negative dimension")
        n *= d
    return dt, shp, n


def array(shape, dtype="float32"):
    """A numpy.ndarray of shape and dtype on the symmetric heap (collective
    over TEAM_WORLD); on a PE bound to a GPU a cupy.ndarray on the device
    heap.  Free it with free_array()."""
    cdef Buffer b
    dt, shp, n = _shape_dtype(shape, dtype, "array")
    if _gpu_dev >= 0:
        _cupy("array")
    b = _alloc(_nbytes_arg(n, "array"), "array")
    if b._dev >= 0:
        return _cupy_array(b, shp, dt)
    return np.ndarray(shp, dt, buffer=b)


cdef object _cupy(str rtn):
    """The cupy module, or NvshmemNotSupported naming rtn."""
    try:
        import cupy
    except ImportError as e:
        raise NvshmemNotSupported(f"{rtn}: GPU arrays are CuPy arrays, and CuPy cannot be "
                                  f"imported ({e}); use buffer() with DLPack, or "
                                  f"interop.torch") from None
    return cupy


cdef object _cupy_array(Buffer b, object shape, object dt):
    """A CuPy array of shape and dt over the GPU memory of b (kept alive by
    the array).  The device is given, so CuPy asks the driver nothing
    about the pointer (a peer's mapping included)."""
    cp = _cupy("array")
    mem = cp.cuda.UnownedMemory(<uintptr_t>b.ptr, max(b._size, 1), b, b._dev)
    return cp.ndarray(shape, dt, cp.cuda.MemoryPointer(mem, 0))


def free_array(arr):
    """Frees an array from array() (collective over TEAM_WORLD)."""
    _free(_owner_of(arr, "free_array"), "free_array")


def array_get_buffer(arr):
    """(Buffer, size in bytes, dtype name) of an array or tensor on the heap
    or on registered external memory.  The Buffer is the heap object when
    arr covers all of it, otherwise a view of arr's bytes."""
    cdef _View v
    _view(arr, "array_get_buffer", "arr", &v, False)
    dtype = str(arr.dtype).replace("torch.", "") if hasattr(arr, "dtype") else "uint8"
    b = None
    if not isinstance(arr, Buffer):
        b = _owner_at(<uintptr_t>v.ptr)
    else:
        b = arr
    if b is None and not _registered_at(<uintptr_t>v.ptr):
        raise NvshmemInvalid("array_get_buffer: the array is not on the symmetric heap nor on "
                             "registered external memory")
    if b is not None and (<Buffer>b).ptr == v.ptr and (<Buffer>b)._size == v.nbytes:
        return b, v.nbytes, dtype
    return _new_buffer(v.ptr, v.nbytes, _VIEW, arr, None, v.dev), v.nbytes, dtype


cdef bint _registered_at(uintptr_t p):
    for a, (n, _) in _registered.items():
        if a <= p < a + n:
            return True
    return False


cdef char *_peer_ptr(char *ptr, object pe, str rtn) except NULL:
    cdef int npes = shmem_n_pes()
    cdef int me
    cdef int p
    cdef char *q
    _chk()
    if not isinstance(pe, int):
        pe = _as_int(pe, rtn, "pe")
    try:
        p = pe
    except (TypeError, OverflowError):
        raise _pe_fail(pe, rtn, "pe") from None
    if p < 0 or p >= npes:
        raise NvshmemInvalid(f"{rtn}: PE {p} is out of range (0 to {npes - 1})")
    me = shmem_my_pe()
    if shmem_ptr(ptr, me) == NULL:
        _chk()
        raise NvshmemInvalid(f"{rtn}: the object is not symmetric (not on the heap nor on "
                             f"registered memory)")
    q = <char *>shmem_ptr(ptr, p)
    _chk()
    if q == NULL:
        raise NvshmemInvalid(
            f"{rtn}: PE {p} is not in the load/store domain (TEAM_SHARED) of PE {me}: its copy "
            f"is not mapped here (another node, FABSHMEM_DIRECT=0, or registered memory that "
            f"cannot be shared)")
    return q


def get_peer_buffer(buf, pe):
    """A Buffer of PE pe's copy of buf, for loads and stores (shmem_ptr):
    pe must share this PE's load/store domain (TEAM_SHARED)."""
    cdef _View v
    _view(buf, "get_peer_buffer", "buf", &v, False)
    q = _peer_ptr(v.ptr, pe, "get_peer_buffer")
    return _new_buffer(q, v.nbytes, _VIEW, buf, None, v.dev)


def get_peer_array(arr, pe):
    """An array on PE pe's copy of arr (same shape and dtype), for loads and
    stores: pe must share this PE's load/store domain.  A NumPy array for
    host memory; for GPU memory a CuPy array that kernels (CuPy, Numba)
    load from and store to, over NVLink between two GPUs."""
    cdef _View v
    _view(arr, "get_peer_array", "arr", &v, False)
    q = _peer_ptr(v.ptr, pe, "get_peer_array")
    peer = _new_buffer(q, v.nbytes, _VIEW, arr, None, v.dev)
    if v.dev >= 0:
        return _cupy_array(peer, arr.shape, np.dtype(str(arr.dtype).replace("torch.", "")))
    return np.ndarray(arr.shape, arr.dtype, buffer=peer)


cdef object _register(object obj, str rtn):
    cdef _View v
    cdef void *p
    _view(obj, rtn, "the object", &v, True)
    # GPU memory must come from the CUDA VMM API (cuda.core's
    # VirtualMemoryResource); the library says why when it does not.
    with nogil:
        p = shmemx_buffer_register_symmetric(v.ptr, v.nbytes, 0)
    _chk()
    if p == NULL:
        raise NvshmemError(f"{rtn}: the library refused the registration", ErrorCode.INTERNAL)
    # Hold an export of the object while it is registered, so that it can
    # be neither resized nor unmapped (an mmap refuses close() meanwhile);
    # GPU objects are held themselves.
    try:
        hold = memoryview(obj) if v.dev < 0 else obj
    except TypeError:
        hold = obj
    _registered[<uintptr_t>v.ptr] = (v.nbytes, hold)
    return _new_buffer(v.ptr, v.nbytes, _EXTERNAL, obj, _site(), v.dev)


def register_external_buffer(obj):
    """Makes memory the program allocated itself (any contiguous writable
    buffer: a NumPy array, a torch tensor, an mmap; on a PE with a GPU also
    GPU memory of the CUDA VMM API, such as a buffer of cuda.core's
    VirtualMemoryResource or a CuPy array over one) a symmetric object
    (collective over TEAM_WORLD, the same size on every PE); returns a
    Buffer over it.  Node peers reach host memory by load/store only when
    it is memory another process can open (a MAP_SHARED mapping of a file
    or memfd); otherwise through the provider.  GPU memory is mapped by
    the node peers that map each other's device heaps (its allocation
    exportable as a POSIX file descriptor) and reached like the device
    heap by the others."""
    return _register(obj, "register_external_buffer")


def register_external_array(arr):
    """register_external_buffer for an array or tensor; returns arr."""
    _register(arr, "register_external_array")
    return arr


cdef _unregister(object obj, str rtn):
    cdef _View v
    cdef int rc
    cdef Py_ssize_t n
    if isinstance(obj, Buffer) and (<Buffer>obj)._kind == _EXTERNAL and \
            (<Buffer>obj).state == _ALIVE:
        v.ptr = (<Buffer>obj).ptr
        v.nbytes = (<Buffer>obj)._size
    else:
        _view(obj, rtn, "the object", &v, False)
    entry = _registered.get(<uintptr_t>v.ptr)
    n = entry[0] if entry is not None else v.nbytes
    # The library checks the arguments on every PE together, so that all
    # fail alike: call it even for memory it does not know.
    with nogil:
        rc = shmemx_buffer_unregister_symmetric(v.ptr, n)
    _chk_rc(rc, rtn)
    _registered.pop(<uintptr_t>v.ptr, None)
    if isinstance(obj, Buffer) and (<Buffer>obj)._kind == _EXTERNAL:
        (<Buffer>obj).state = _FREED


def unregister_external_buffer(buf):
    """Ends a registration (collective over TEAM_WORLD)."""
    _unregister(buf, "unregister_external_buffer")


def unregister_external_array(arr):
    """Ends the registration of an array (collective); returns arr."""
    _unregister(arr, "unregister_external_array")
    return arr


# ---- DLPack ----

cdef void _dl_deleter(fabpy_DLManagedTensor *m) noexcept with gil:
    Py_DECREF(<object>m.manager_ctx)
    c_free(m)


cdef void _dl_capsule_destructor(object capsule) noexcept:
    cdef fabpy_DLManagedTensor *m
    # A capsule that no consumer took (a consumer renames it).
    if PyCapsule_IsValid(capsule, "dltensor"):
        m = <fabpy_DLManagedTensor *>PyCapsule_GetPointer(capsule, "dltensor")
        m.deleter(m)


cdef object _dlpack_capsule(Buffer b, object stream):
    cdef fabpy_DLManagedTensor *m
    if b.state != _ALIVE or b.epoch != _epoch or not _live:
        raise BufferError("__dlpack__: the fabshmem Buffer was freed")
    if b._dev < 0 and stream is not None and stream != -1:
        raise BufferError("__dlpack__: a CPU buffer takes no stream")
    m = <fabpy_DLManagedTensor *>malloc(sizeof(fabpy_DLManagedTensor) + sizeof(int64_t))
    if m == NULL:
        raise MemoryError()
    memset(m, 0, sizeof(fabpy_DLManagedTensor))
    m.dl_tensor.data = b.ptr
    m.dl_tensor.device.device_type = FABPY_DLCUDA if b._dev >= 0 else FABPY_DLCPU
    m.dl_tensor.device.device_id = b._dev if b._dev >= 0 else 0
    m.dl_tensor.ndim = 1
    m.dl_tensor.dtype.code = FABPY_DLUINT
    m.dl_tensor.dtype.bits = 8
    m.dl_tensor.dtype.lanes = 1
    m.dl_tensor.shape = <int64_t *>(m + 1)
    m.dl_tensor.shape[0] = b._size
    m.dl_tensor.strides = NULL
    m.dl_tensor.byte_offset = 0
    Py_INCREF(b)
    m.manager_ctx = <void *>b
    m.deleter = _dl_deleter
    return PyCapsule_New(m, "dltensor", _dl_capsule_destructor)


def _gpu_bound():
    """True when init(device=...) bound this PE to a GPU."""
    return _gpu_dev >= 0


def _gpu_bound_device():
    """The device init(device=...) bound this PE to, or -1."""
    return _gpu_dev


def _gpu_up():
    """True when the library brought up a GPU for this PE (with or without
    init(device=...)): CUDA streams and GPU memory of the program work."""
    return _cuda_on
