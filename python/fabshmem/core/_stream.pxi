# Streams: shmemx_stream_t, an ordered queue of work that a worker thread of
# the library runs asynchronously to the caller (Stream()), or that a CUDA
# stream of the program's orders with its kernels and copies
# (Stream.from_cuda, or any CUDA stream given as stream=).

# The open streams (finalize closes them first).
_open_streams = weakref.WeakSet()

# The streams over CUDA streams, by CUDA stream handle (an int): made once
# per handle (shmemx_stream_create_cuda) by the first routine given that
# CUDA stream, and kept, with the program's stream object (so that its
# handle stays valid), until finalize or the Stream's close().
cdef dict _cuda_streams = {}

# A stream's list of kept objects is pruned (when the stream has run
# everything) each time it grows by this many.
cdef Py_ssize_t _KEEP_PRUNE = 64


cdef void _launch_trampoline(void *arg) noexcept with gil:
    # Runs on the stream's worker thread, in stream order.  arg is the
    # (stream, fn, args) tuple that launch() gave a reference to.
    cdef object item = <object>arg
    global _kernels_pending
    Py_DECREF(item)
    stream, fn, args = item
    try:
        fn(*args)
    except BaseException as e:
        (<Stream>stream)._errors.append(e)
    finally:
        _kernels_pending -= 1


@cython.final
cdef class Stream:
    """A stream (shmemx_stream_t): routines given stream= are enqueued on it
    and run in order by the stream's worker, asynchronously to the caller.
    The objects they name are kept alive until the stream has run them
    (until sync(), or query() returns True).  Use it as a context manager,
    or close() it; finalize closes the streams still open.

    Stream.from_cuda(obj) is the stream over a CUDA stream of the
    program's (what every routine makes of a CUDA stream given as
    stream=): its work is ordered on that CUDA stream."""
    cdef shmemx_stream_t st
    cdef list _pending
    cdef list _errors
    cdef bint _closed
    cdef long epoch
    # Over a CUDA stream: the program's stream object and its handle (an
    # int); None for a stream of the library's worker.
    cdef object _cuda
    cdef object _handle
    cdef object __weakref__

    def __cinit__(self):
        self.st = NULL
        self._closed = True
        self._pending = []
        self._errors = []
        self._cuda = None
        self._handle = None

    def __init__(self):
        cdef int rc
        cdef shmemx_stream_t s = NULL
        if not _live:
            raise NvshmemInvalid("Stream: fabshmem is not initialized (call init first)",
                                 ErrorCode.INVALID_STATE)
        with nogil:
            rc = shmemx_stream_create(&s)
        _chk_rc(rc, "Stream")
        self.st = s
        self._closed = False
        self.epoch = _epoch
        _open_streams.add(self)

    cdef _keep(self, tuple objs):
        # A program that synchronizes with its CUDA stream itself (or never
        # calls sync) does not let the list grow without bound: once the
        # stream has run everything, what it kept can go.
        cdef int r
        self._pending.append(objs)
        if len(self._pending) % _KEEP_PRUNE == 0:
            with nogil:
                r = shmemx_stream_query(self.st)
            if r == 0:
                self._pending = []

    @staticmethod
    def from_cuda(obj):
        """The Stream over the CUDA stream obj of this PE's GPU (a cuda.core
        Stream, a CuPy stream, a torch.cuda.Stream, or an object with
        __cuda_stream__): the one every routine given obj as stream= uses,
        made once per CUDA stream (shmemx_stream_create_cuda) and kept,
        with obj, until finalize or its close().  Its sync() waits for the
        CUDA stream and raises the errors of the work on it; close()
        leaves the CUDA stream to the program.  NvshmemNotSupported
        without a GPU (init without device=)."""
        if type(obj) is Stream and (<Stream>obj)._cuda is not None:
            return _as_stream(obj, "Stream.from_cuda")
        h = _cuda_handle(obj, "Stream.from_cuda")
        if h is None:
            raise NvshmemInvalid(f"Stream.from_cuda: obj must be a CUDA stream (a cuda.core "
                                 f"Stream, a CuPy or torch stream, or an object with "
                                 f"__cuda_stream__), not {type(obj).__name__}")
        return _cuda_stream(obj, h, "Stream.from_cuda")

    @property
    def cuda_stream(self):
        """The handle (an int) of the CUDA stream this stream is over, or
        None for a stream of the library's worker."""
        return self._handle

    cdef int _check(self, str rtn) except -1:
        if self._closed or self.epoch != _epoch or not _live:
            raise NvshmemInvalid(f"Stream.{rtn}: the stream is closed")
        return 0

    cdef _raise_kernel_error(self):
        errs = self._errors
        if errs:
            self._errors = []
            e = errs[0]
            more = f" (and {len(errs) - 1} more after it)" if len(errs) > 1 else ""
            raise NvshmemError(f"Stream: a function launched on the stream raised "
                               f"{type(e).__name__}: {e}{more}", ErrorCode.INTERNAL) from e

    def sync(self):
        """Waits until everything enqueued so far has run and is complete
        (quiet).  Raises the stream's first error since the last sync, or
        what a launched function raised."""
        cdef int rc
        self._check("sync")
        with nogil:
            rc = shmemx_stream_sync(self.st)
        self._pending = []
        _chk_rc(rc, "Stream.sync")
        self._raise_kernel_error()

    def synchronize(self):
        """sync() (cuda.core's spelling)."""
        self.sync()

    def query(self):
        """True when everything enqueued has run (never blocks)."""
        cdef int r
        self._check("query")
        with nogil:
            r = shmemx_stream_query(self.st)
        if r < 0:
            _chk()
            raise NvshmemInvalid("Stream.query: invalid stream")
        if r == 0:
            self._pending = []
            return True
        return False

    @property
    def offloaded(self):
        """True when the stream posts its RMA and signals to the provider as
        triggered operations, False when its worker runs all of its work."""
        self._check("offloaded")
        return shmemx_stream_offloaded(self.st) == 1

    def launch(self, fn, *args):
        """Runs fn(*args) on the stream's worker in stream order (a host
        "kernel").  What it raises is raised by the next sync()."""
        cdef int rc
        cdef void *arg
        self._check("launch")
        if not callable(fn):
            raise NvshmemInvalid(f"Stream.launch: fn must be callable, not {type(fn).__name__}")
        global _kernels_pending
        item = (self, fn, args)
        Py_INCREF(item)
        arg = <void *>item
        _kernels_pending += 1
        with nogil:
            rc = shmemx_launch_on_stream(self.st, _launch_trampoline, arg)
        if rc != 0:
            _kernels_pending -= 1
            Py_DECREF(item)
            _chk_rc(rc, "Stream.launch")

    def close(self):
        """Waits for the stream's work, then frees the stream."""
        cdef int rc
        if self._closed:
            return
        self._closed = True
        _open_streams.discard(self)
        if self._handle is not None and _cuda_streams.get(self._handle) is self:
            del _cuda_streams[self._handle]
        if self.epoch != _epoch or not _live:
            self._cuda = None
            return
        with nogil:
            rc = shmemx_stream_destroy(self.st)
        self.st = NULL
        # Only now: the program's stream object may destroy its CUDA stream
        # when this was the last reference, and destroy synchronized it.
        self._cuda = None
        self._pending = []
        _chk_rc(rc, "Stream.close")
        self._raise_kernel_error()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        over = "" if self._handle is None else f" over CUDA stream {self._handle:#x}"
        return f"<fabshmem.core.Stream{over}{' closed' if self._closed else ''}>"

    def __dealloc__(self):
        # A stream nobody closed: its work runs out, then it goes.  (A
        # stream with launched functions pending is kept alive by them.)
        if self._closed or self.epoch != _epoch or not _live:
            return
        with nogil:
            shmemx_stream_destroy(self.st)
        shmemx_error_clear()


cdef object _cuda_handle(object obj, str rtn):
    """The handle (an int) of the CUDA stream obj names, or None when obj
    is no CUDA stream: the CUDA stream protocol (__cuda_stream__, a method
    or, in early cuda.core, an attribute, giving (0, handle)), then
    torch.cuda.Stream's cuda_stream, CuPy's ptr, and handle (cuda.core's
    CUstream, Numba's ctypes pointer).  A bare int is no stream (nor is it
    in nvshmem4py, whose stream= is a cuda.core Stream)."""
    if type(obj) is Stream:
        return (<Stream>obj)._handle
    p = getattr(obj, "__cuda_stream__", None)
    if p is not None:
        if callable(p):
            p = p()
        if not isinstance(p, tuple) or len(p) != 2:
            raise NvshmemInvalid(f"{rtn}: stream.__cuda_stream__() gave {p!r}, not a "
                                 f"(version, handle) pair")
        if p[0] != 0:
            raise NvshmemInvalid(f"{rtn}: stream.__cuda_stream__() gave version {p[0]!r} of "
                                 f"the CUDA stream protocol; this binding knows version 0")
        h = p[1]
    elif hasattr(obj, "shape"):
        # An array (CuPy's have ptr too): its data pointer is no stream.
        return None
    elif hasattr(obj, "cuda_stream"):
        h = obj.cuda_stream
    elif hasattr(obj, "ptr"):
        h = obj.ptr
    elif hasattr(obj, "handle"):
        h = obj.handle
        h = getattr(h, "value", h)
        if h is None:
            h = 0
    else:
        return None
    try:
        h = int(h)
    except (TypeError, ValueError):
        raise NvshmemInvalid(f"{rtn}: the CUDA stream handle of the {type(obj).__name__} "
                             f"stream is {h!r}, not an int") from None
    if h < 0 or h > 0xFFFFFFFFFFFFFFFF:
        raise NvshmemInvalid(f"{rtn}: the CUDA stream handle of the {type(obj).__name__} "
                             f"stream is {h}, not a pointer")
    return h


cdef Stream _cuda_stream(object obj, object h, str rtn):
    """The Stream over the CUDA stream of handle h (obj the program's stream
    object): the cached one, or a new one (shmemx_stream_create_cuda)."""
    cdef Stream s = _cuda_streams.get(h)
    cdef shmemx_stream_t st = NULL
    cdef void *cs = <void *><uintptr_t>(<uint64_t>h)
    cdef int rc
    if s is not None and not s._closed and s.epoch == _epoch and _live:
        return s
    if not _live:
        raise NvshmemInvalid(f"{rtn}: fabshmem is not initialized (call init first)",
                             ErrorCode.INVALID_STATE)
    with nogil:
        rc = shmemx_stream_create_cuda(&st, cs)
    try:
        _chk_rc(rc, "shmemx_stream_create_cuda")
    except NvshmemError as e:
        # The library's message names shmemx_stream_create_cuda; the
        # routine that was given the stream goes first.
        raise type(e)(f"{rtn}: stream={type(obj).__name__}: {e.message}", e.code) from None
    s = Stream.__new__(Stream)
    s.st = st
    s._closed = False
    s.epoch = _epoch
    s._cuda = obj
    s._handle = h
    _open_streams.add(s)
    _cuda_streams[h] = s
    return s


cdef Stream _as_stream(object stream, str rtn):
    """The Stream that a routine's stream= names: a Stream, or the Stream
    over a CUDA stream (made the first time, then cached)."""
    cdef Stream s
    if type(stream) is Stream:
        s = <Stream>stream
        if s._closed or s.epoch != _epoch or not _live:
            raise NvshmemInvalid(f"{rtn}: the stream is closed")
        return s
    h = _cuda_handle(stream, rtn)
    if h is None:
        raise NvshmemInvalid(f"{rtn}: stream must be a fabshmem.core.Stream or a CUDA stream "
                             f"(a cuda.core Stream, a CuPy or torch stream, or an object with "
                             f"__cuda_stream__), not {type(stream).__name__}")
    return _cuda_stream(stream, h, rtn)


cdef _close_streams():
    try:
        for s in list(_open_streams):
            s.close()
    finally:
        _cuda_streams.clear()


def _at_exit():
    # Python is about to go: the streams' work (which may call back into
    # Python) runs out now, and objects still alive at exit are not leaks
    # the garbage collector found (the library releases the heap at exit).
    global _exiting
    _exiting = True
    if _live:
        try:
            _close_streams()
        except BaseException:
            pass


atexit.register(_at_exit)
