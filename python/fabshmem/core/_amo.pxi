# Atomics on one element of a symmetric array or tensor (beyond nvshmem4py,
# which has none on the host).  The element type chooses the C routine:
# int32, int64, uint32, uint64 for all of them; float32 and float64 for
# fetch, set and swap.

cdef union _Scalar:
    int32_t i32
    int64_t i64
    uint32_t u32
    uint64_t u64
    float f32
    double f64

_AMO_NAMES = ["atomic_fetch", "atomic_set", "atomic_swap", "atomic_compare_swap",
              "atomic_fetch_inc", "atomic_inc", "atomic_fetch_add", "atomic_add",
              "atomic_fetch_and", "atomic_and", "atomic_fetch_or", "atomic_or",
              "atomic_fetch_xor", "atomic_xor"]


cdef int _pack(int t, object value, _Scalar *out, str rtn, str what) except -1:
    try:
        if t == FABPY_INT32:
            out.i32 = value
        elif t == FABPY_INT64:
            out.i64 = value
        elif t == FABPY_UINT32:
            out.u32 = value
        elif t == FABPY_UINT64:
            out.u64 = value
        elif t == FABPY_FLOAT:
            out.f32 = value
        else:
            out.f64 = value
    except (TypeError, OverflowError) as e:
        raise NvshmemInvalid(f"{rtn}: {what} {value!r} does not fit the element type ({e})") \
            from None
    return 0


cdef object _unpack(int t, _Scalar *s):
    if t == FABPY_INT32:
        return s.i32
    if t == FABPY_INT64:
        return s.i64
    if t == FABPY_UINT32:
        return s.u32
    if t == FABPY_UINT64:
        return s.u64
    if t == FABPY_FLOAT:
        return s.f32
    return s.f64


cdef object _amo(int op, object dst, object value, object cond, object remote_pe,
                 object index, object pe):
    cdef _View v
    cdef _Scalar val, cnd, out
    cdef fabpy_amo_fn fn = NULL
    cdef Py_ssize_t i, n
    cdef int rpe
    rtn = _AMO_NAMES[op]
    _view(dst, rtn, "dst", &v, False)
    if v.kind == 0:
        raise NvshmemInvalid(f"{rtn}: dst must be an array or tensor (its dtype chooses the "
                             f"atomic), not a Buffer")
    if v.tidx >= 0:
        fn = fabpy_amo_fn_of(op, v.tidx)
    if fn == NULL:
        raise NvshmemInvalid(f"{rtn}: no atomic for dtype {_dtname(&v)} (int32, int64, uint32, "
                             f"uint64; fetch, set and swap also float32 and float64)")
    n = v.nbytes // v.itemsize
    if not isinstance(index, int):
        index = _as_int(index, rtn, "index")
    try:
        i = index
    except (TypeError, OverflowError):
        raise _int_fail(index, rtn, "index", "0 to dst's element count - 1") from None
    if i < 0 or i >= n:
        raise NvshmemInvalid(f"{rtn}: index {i} is beyond dst ({n} elements)")
    if (<uintptr_t>v.ptr) % v.itemsize:
        raise NvshmemInvalid(f"{rtn}: dst is not aligned to its element size ({v.itemsize})")
    if value is not None:
        _pack(v.tidx, value, &val, rtn, "value")
    if cond is not None:
        _pack(v.tidx, cond, &cnd, rtn, "cond")
    rpe = _pe_arg(rtn, remote_pe, pe)
    fn(v.ptr + i * v.itemsize, &val, &cnd, &out, rpe)
    _chk()
    return _unpack(v.tidx, &out)


def atomic_fetch(dst, remote_pe=None, index=0, pe=None):
    """The value of dst[index] on remote_pe, read atomically."""
    return _amo(FABPY_AMO_FETCH, dst, None, None, remote_pe, index, pe)


def atomic_set(dst, value, remote_pe=None, index=0, pe=None):
    """Sets dst[index] on remote_pe to value atomically."""
    _amo(FABPY_AMO_SET, dst, value, None, remote_pe, index, pe)


def atomic_swap(dst, value, remote_pe=None, index=0, pe=None):
    """Sets dst[index] on remote_pe to value; returns the old value."""
    return _amo(FABPY_AMO_SWAP, dst, value, None, remote_pe, index, pe)


def atomic_compare_swap(dst, cond, value, remote_pe=None, index=0, pe=None):
    """Sets dst[index] on remote_pe to value if it equals cond; returns the
    old value."""
    return _amo(FABPY_AMO_COMPARE_SWAP, dst, value, cond, remote_pe, index, pe)


def atomic_fetch_inc(dst, remote_pe=None, index=0, pe=None):
    """Adds 1 to dst[index] on remote_pe; returns the old value."""
    return _amo(FABPY_AMO_FETCH_INC, dst, None, None, remote_pe, index, pe)


def atomic_inc(dst, remote_pe=None, index=0, pe=None):
    """Adds 1 to dst[index] on remote_pe."""
    _amo(FABPY_AMO_INC, dst, None, None, remote_pe, index, pe)


def atomic_fetch_add(dst, value, remote_pe=None, index=0, pe=None):
    """Adds value to dst[index] on remote_pe; returns the old value."""
    return _amo(FABPY_AMO_FETCH_ADD, dst, value, None, remote_pe, index, pe)


def atomic_add(dst, value, remote_pe=None, index=0, pe=None):
    """Adds value to dst[index] on remote_pe."""
    _amo(FABPY_AMO_ADD, dst, value, None, remote_pe, index, pe)


def atomic_fetch_and(dst, value, remote_pe=None, index=0, pe=None):
    """dst[index] &= value on remote_pe; returns the old value."""
    return _amo(FABPY_AMO_FETCH_AND, dst, value, None, remote_pe, index, pe)


def atomic_and(dst, value, remote_pe=None, index=0, pe=None):
    """dst[index] &= value on remote_pe."""
    _amo(FABPY_AMO_AND, dst, value, None, remote_pe, index, pe)


def atomic_fetch_or(dst, value, remote_pe=None, index=0, pe=None):
    """dst[index] |= value on remote_pe; returns the old value."""
    return _amo(FABPY_AMO_FETCH_OR, dst, value, None, remote_pe, index, pe)


def atomic_or(dst, value, remote_pe=None, index=0, pe=None):
    """dst[index] |= value on remote_pe."""
    _amo(FABPY_AMO_OR, dst, value, None, remote_pe, index, pe)


def atomic_fetch_xor(dst, value, remote_pe=None, index=0, pe=None):
    """dst[index] ^= value on remote_pe; returns the old value."""
    return _amo(FABPY_AMO_FETCH_XOR, dst, value, None, remote_pe, index, pe)


def atomic_xor(dst, value, remote_pe=None, index=0, pe=None):
    """dst[index] ^= value on remote_pe."""
    _amo(FABPY_AMO_XOR, dst, value, None, remote_pe, index, pe)
