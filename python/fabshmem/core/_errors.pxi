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


def strerror(code):
    """A short description of an ErrorCode (shmemx_strerror)."""
    return shmemx_strerror(_int_arg(code, "strerror", "code")).decode()


def global_exit(status=0):
    """Ends every PE of the job with this exit status (shmem_global_exit)."""
    cdef int st = _int_arg(status, "global_exit", "status")
    sys.stdout.flush()
    sys.stderr.flush()
    with nogil:
        shmem_global_exit(st)


# Integer arguments: a value that is no int, or one outside the C type the
# routine passes on, is refused naming the routine and the argument (the
# conversion's own message would name neither).

cdef object _int_fail(object value, str rtn, str what, str rng):
    """The NvshmemInvalid to raise for value, which did not convert to a C
    integer: not an int at all, or out of range (rng says which values are
    taken)."""
    try:
        value.__index__()
    except (AttributeError, TypeError):
        return NvshmemInvalid(f"{rtn}: {what} must be an int, not {type(value).__name__} "
                              f"({value!r})")
    return NvshmemInvalid(f"{rtn}: {what} {value!r} is out of range ({rng})")


cdef object _as_int(object value, str rtn, str what):
    """value as a Python int: an int, or an object with __index__ (a NumPy
    integer); not a float, which the C conversion would truncate."""
    try:
        return value.__index__()
    except (AttributeError, TypeError):
        raise NvshmemInvalid(f"{rtn}: {what} must be an int, not {type(value).__name__} "
                             f"({value!r})") from None


cdef inline int _int_arg(object value, str rtn, str what) except? -1:
    """value as a C int."""
    cdef int r
    if not isinstance(value, int):
        value = _as_int(value, rtn, what)
    try:
        r = value
    except (TypeError, OverflowError):
        raise _int_fail(value, rtn, what, "a C int: -2**31 to 2**31-1") from None
    return r


cdef inline long _long_arg(object value, str rtn, str what) except? -1:
    """value as a C long."""
    cdef long r
    if not isinstance(value, int):
        value = _as_int(value, rtn, what)
    try:
        r = value
    except (TypeError, OverflowError):
        raise _int_fail(value, rtn, what, "a C long: -2**63 to 2**63-1") from None
    return r


cdef object _pe_fail(object value, str rtn, str what):
    """The error for a PE number that is no C int."""
    cdef int npes = shmem_n_pes()
    shmemx_error_clear()
    return _int_fail(value, rtn, what, f"PEs are 0 to {npes - 1}" if npes > 0 else "a PE")
