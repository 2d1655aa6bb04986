# Streams: shmemx_stream_t, an ordered queue of work that a worker thread of
# the library runs asynchronously to the caller.

# The open streams (finalize closes them first).
_open_streams = weakref.WeakSet()


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
    or close() it; finalize closes the streams still open."""
    cdef shmemx_stream_t st
    cdef list _pending
    cdef list _errors
    cdef bint _closed
    cdef long epoch
    cdef object __weakref__

    def __cinit__(self):
        self.st = NULL
        self._closed = True
        self._pending = []
        self._errors = []

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
        self._pending.append(objs)

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
        if self.epoch != _epoch or not _live:
            return
        with nogil:
            rc = shmemx_stream_destroy(self.st)
        self.st = NULL
        self._pending = []
        _chk_rc(rc, "Stream.close")
        self._raise_kernel_error()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"<fabshmem.core.Stream{' closed' if self._closed else ''}>"

    def __dealloc__(self):
        # A stream nobody closed: its work runs out, then it goes.  (A
        # stream with launched functions pending is kept alive by them.)
        if self._closed or self.epoch != _epoch or not _live:
            return
        with nogil:
            shmemx_stream_destroy(self.st)
        shmemx_error_clear()


cdef shmemx_stream_t _stream_of(object stream, str rtn) except NULL:
    cdef Stream s
    if type(stream) is not Stream:
        raise NvshmemInvalid(f"{rtn}: stream must be a fabshmem.core.Stream, "
                             f"not {type(stream).__name__}")
    s = <Stream>stream
    if s._closed or s.epoch != _epoch or not _live:
        raise NvshmemInvalid(f"{rtn}: the stream is closed")
    return s.st


cdef _close_streams():
    for s in list(_open_streams):
        s.close()


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
