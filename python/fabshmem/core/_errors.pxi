# Errors: the calling thread's record of the library's last failure
# becomes an exception.

cdef object _error_class(int code):
    # A bad argument, or a call the library's state does not allow (before
    # init, after finalize), is the caller's mistake.
    if code == SHMEMX_ERROR_INVALID_VALUE or code == SHMEMX_ERROR_INVALID_STATE:
        return NvshmemInvalid
    if code == SHMEMX_ERROR_NOT_SUPPORTED:
        return NvshmemNotSupported
    return NvshmemError


cdef int _raise_last() except -1:
    """Raises the calling thread's recorded error and forgets it."""
    cdef char msg[1024]
    cdef int code = shmemx_error_get(msg, sizeof(msg))
    shmemx_error_clear()
    raise _error_class(code)(msg.decode("utf-8", "replace"), code)


cdef inline int _chk() except -1:
    """After a call into the library: raises what it recorded, if anything."""
    if shmemx_error_get(NULL, 0) != 0:
        _raise_last()
    return 0


cdef int _chk_rc(int rc, str rtn) except -1:
    """After a routine that returns a status: raises the recorded error, or
    one made from the status when nothing was recorded."""
    if shmemx_error_get(NULL, 0) != 0:
        _raise_last()
    if rc != 0:
        raise _error_class(rc)(f"{rtn}: {shmemx_strerror(rc).decode()}", rc)
    return 0


def strerror(int code):
    """A short description of an ErrorCode (shmemx_strerror)."""
    return shmemx_strerror(code).decode()


def global_exit(int status=0):
    """Ends every PE of the job with this exit status (shmem_global_exit)."""
    sys.stdout.flush()
    sys.stderr.flush()
    with nogil:
        shmem_global_exit(status)
