# RMA, signals and ordering.  With stream=None a routine is the blocking C
# routine on the calling thread; with a Stream it is enqueued (the
# *_on_stream routine) and the stream keeps the objects it names alive
# until it has run it.

# Transfers from this size on release the GIL (a large put takes long; a
# small one costs less than releasing it).
cdef Py_ssize_t _NOGIL_BYTES = 65536


def put(dst, src, count=None, remote_pe=None, stream=None, pe=None):
    """Copies count elements (all of src when None) of the local src into
    the symmetric dst on remote_pe (pe= is accepted too).  Complete at the
    target after quiet(), a barrier, or the stream's sync."""
    cdef _View d, s
    cdef Py_ssize_t n
    cdef int rpe
    cdef shmemx_stream_t st
    cdef Stream sm
    _view(dst, "put", "dst", &d, False)
    _view(src, "put", "src", &s, False)
    n = _rma_bytes("put", &d, &s, count, False)
    rpe = _pe_arg("put", remote_pe, pe)
    if stream is None:
        if d.dev >= 0 or s.dev >= 0:
            _gpu_sync("put")
        if n < _NOGIL_BYTES:
            shmem_putmem(d.ptr, s.ptr, n, rpe)
        else:
            with nogil:
                shmem_putmem(d.ptr, s.ptr, n, rpe)
        _chk()
        return
    sm = _as_stream(stream, "put")
    st = sm.st
    with nogil:
        shmemx_putmem_on_stream(d.ptr, s.ptr, n, rpe, st)
    _chk()
    sm._keep((dst, src))


def get(dst, src, count=None, remote_pe=None, stream=None, pe=None):
    """Copies count elements (all of dst when None) of the symmetric src on
    remote_pe into the local dst; done when it returns (on a stream: when
    the stream has run it)."""
    cdef _View d, s
    cdef Py_ssize_t n
    cdef int rpe
    cdef shmemx_stream_t st
    cdef Stream sm
    _view(dst, "get", "dst", &d, True)
    _view(src, "get", "src", &s, False)
    n = _rma_bytes("get", &d, &s, count, True)
    rpe = _pe_arg("get", remote_pe, pe)
    if stream is None:
        if d.dev >= 0 or s.dev >= 0:
            _gpu_sync("get")
        if n < _NOGIL_BYTES:
            shmem_getmem(d.ptr, s.ptr, n, rpe)
        else:
            with nogil:
                shmem_getmem(d.ptr, s.ptr, n, rpe)
        _chk()
        return
    sm = _as_stream(stream, "get")
    st = sm.st
    with nogil:
        shmemx_getmem_on_stream(d.ptr, s.ptr, n, rpe, st)
    _chk()
    sm._keep((dst, src))


def put_signal(dst, src, signal_var, signal_val, signal_op, remote_pe=None, stream=None,
               pe=None):
    """put of all of src into dst on remote_pe, then signal_var (a uint64
    word on the heap) on remote_pe updated with signal_val by signal_op
    (SignalOp): a PE that sees the signal sees the data."""
    cdef _View d, s
    cdef Py_ssize_t n
    cdef int rpe, op = _int_arg(signal_op, "put_signal", "signal_op")
    cdef uint64_t val
    cdef uint64_t *sig
    cdef shmemx_stream_t st
    cdef Stream sm
    _view(dst, "put_signal", "dst", &d, False)
    _view(src, "put_signal", "src", &s, False)
    n = _rma_bytes("put_signal", &d, &s, None, False)
    sig = _signal_ptr(signal_var, "put_signal", "signal_var")
    val = _u64(signal_val, "put_signal", "signal_val")
    rpe = _pe_arg("put_signal", remote_pe, pe)
    if stream is None:
        if d.dev >= 0 or s.dev >= 0:
            _gpu_sync("put_signal")
        with nogil:
            shmem_putmem_signal(d.ptr, s.ptr, n, sig, val, op, rpe)
        _chk()
        return
    sm = _as_stream(stream, "put_signal")
    st = sm.st
    with nogil:
        shmemx_putmem_signal_on_stream(d.ptr, s.ptr, n, sig, val, op, rpe, st)
    _chk()
    sm._keep((dst, src, signal_var))


def signal_op(signal_var, signal_val, signal_op, remote_pe=None, stream=None, pe=None):
    """Updates signal_var on remote_pe with signal_val by signal_op
    (SignalOp), without data."""
    cdef int rpe, op = _int_arg(signal_op, "signal_op", "signal_op")
    cdef uint64_t val
    cdef uint64_t *sig
    cdef shmemx_stream_t st
    cdef Stream sm
    sig = _signal_ptr(signal_var, "signal_op", "signal_var")
    val = _u64(signal_val, "signal_op", "signal_val")
    rpe = _pe_arg("signal_op", remote_pe, pe)
    if stream is None:
        with nogil:
            shmemx_signal_op(sig, val, op, rpe)
        _chk()
        return
    sm = _as_stream(stream, "signal_op")
    st = sm.st
    with nogil:
        shmemx_signal_op_on_stream(sig, val, op, rpe, st)
    _chk()
    sm._keep((signal_var,))


def signal_wait(signal_var, signal_val, cmp, stream=None):
    """Waits until the local signal_var compares true with signal_val by cmp
    (ComparisonType).  Returns the word's value (None on a stream, where the
    stream waits and what follows on it runs after)."""
    cdef int c = _int_arg(cmp, "signal_wait", "cmp")
    cdef uint64_t val, r
    cdef uint64_t *sig
    cdef shmemx_stream_t st
    cdef Stream sm
    sig = _signal_ptr(signal_var, "signal_wait", "signal_var")
    _local_symmetric(sig, "signal_wait", "signal_var")
    val = _u64(signal_val, "signal_wait", "signal_val")
    if stream is None:
        if _gil_wanted():
            with nogil:
                r = shmem_signal_wait_until(sig, c, val)
        else:
            r = shmem_signal_wait_until(sig, c, val)
        _chk()
        return r
    sm = _as_stream(stream, "signal_wait")
    st = sm.st
    with nogil:
        shmemx_signal_wait_until_on_stream(sig, c, val, st)
    _chk()
    sm._keep((signal_var,))


def signal_fetch(signal_var):
    """The value of the local signal word signal_var."""
    cdef uint64_t *sig = _signal_ptr(signal_var, "signal_fetch", "signal_var")
    cdef uint64_t r = shmem_signal_fetch(sig)
    _chk()
    return r


def quiet(stream=None):
    """Completes this PE's puts, signals and atomics at their targets (on a
    stream: the stream's, in stream order)."""
    cdef shmemx_stream_t st
    cdef Stream sm
    if stream is None:
        if _gpu_dev >= 0:
            _gpu_sync("quiet")
        if _gil_wanted():
            with nogil:
                shmem_quiet()
        else:
            shmem_quiet()
        _chk()
        return
    sm = _as_stream(stream, "quiet")
    st = sm.st
    with nogil:
        shmemx_quiet_on_stream(st)
    _chk()


def fence():
    """Orders this PE's puts, signals and atomics to each PE."""
    shmem_fence()
    _chk()


cdef inline uint64_t _u64(object value, str rtn, str what) except? 0xFFFFFFFFFFFFFFFF:
    try:
        return value
    except (TypeError, OverflowError):
        raise NvshmemInvalid(f"{rtn}: {what} must be an int from 0 to 2**64-1, "
                             f"not {value!r}") from None
