# What a routine sees of an argument that names memory: its address, its
# size, its element type, and whether it is GPU memory.  A NumPy array, a
# Buffer, a torch tensor, an object with __cuda_array_interface__ (a CuPy
# array, a Numba device array), or any object with the buffer protocol
# (taken as bytes).  GPU memory is taken only where the library brought up
# a GPU (init(device=...), or a CUDA program under FABSHMEM_CUDA=auto).

_KIND_NAMES = {ord("i"): "int", ord("u"): "uint", ord("f"): "float", ord("c"): "complex",
               ord("b"): "bool"}
cdef dict _torch_kinds = {}


cdef str _dtname(_View *v):
    if v.kind == 0:
        return "bytes"
    if v.kind == ord("V") and v.itemsize == 2:
        return "bfloat16"
    name = _KIND_NAMES.get(v.kind)
    if name is None:
        return f"{chr(v.kind)}{v.itemsize}"
    if v.kind == ord("b"):
        return name
    return f"{name}{v.itemsize * 8}"


cdef inline int _view(object obj, str rtn, str what, _View *v, bint writable) except -1:
    cdef cnp.ndarray a
    cdef Buffer b
    if cnp.PyArray_Check(obj):
        a = <cnp.ndarray>obj
        if not cnp.PyArray_IS_C_CONTIGUOUS(a):
            raise NvshmemInvalid(f"{rtn}: {what} is not a C-contiguous array")
        if writable and not cnp.PyArray_ISWRITEABLE(a):
            raise NvshmemInvalid(f"{rtn}: {what} is a read-only array")
        if cnp.PyArray_BASE(a) != NULL:
            _np_alive(a, rtn, what)
        v.ptr = <char *>cnp.PyArray_DATA(a)
        v.itemsize = cnp.PyArray_ITEMSIZE(a)
        v.nbytes = cnp.PyArray_NBYTES(a)
        v.kind = (<cnp.dtype><object>cnp.PyArray_DESCR(a)).kind
        v.tidx = fabpy_type_index(v.kind, <int>v.itemsize)
        v.dev = -1
        return 0
    if type(obj) is Buffer:
        b = <Buffer>obj
        if b.state != _ALIVE or b.epoch != _epoch or not _live:
            raise NvshmemInvalid(f"{rtn}: {what} is a Buffer that was freed (or released by "
                                 f"finalize)")
        if b._kind == _VIEW and b.owner is not None:
            _owner_alive(b.owner, rtn, what)
        v.ptr = b.ptr
        v.nbytes = b._size
        v.itemsize = 1
        v.kind = 0
        v.tidx = FABPY_UINT8
        v.dev = b._dev
        return 0
    return _view_other(obj, rtn, what, v, writable)


cdef int _dead(Buffer b, str rtn, str what, str desc) except -1:
    """Raises for an object (desc) on the symmetric Buffer b, if b is freed."""
    if b.state != _ALIVE or b.epoch != _epoch or not _live:
        how = "released by finalize" if b.state == _ALIVE else "freed"
        raise NvshmemInvalid(f"{rtn}: {what} is {desc} on a symmetric object of {b._size} bytes "
                             f"(allocated at {b.site}) that was {how}")
    if b._kind == _VIEW and b.owner is not None:
        _owner_alive(b.owner, rtn, what)
    return 0


cdef int _np_alive(cnp.ndarray a, str rtn, str what) except -1:
    """Raises when the NumPy array a lies on a freed Buffer: the chain of its
    bases (views of views) ends at the Buffer it was made on.  A few
    pointer loads: every routine runs it."""
    cdef PyObject *o = cnp.PyArray_BASE(a)
    while o != NULL:
        if type(<object>o) is Buffer:
            b = <Buffer>o
            if b.state != _ALIVE or b.epoch != _epoch or not _live or b._kind == _VIEW:
                _dead(b, rtn, what, "an array")
            return 0
        if not cnp.PyArray_Check(<object>o):
            return 0
        o = cnp.PyArray_BASE(<cnp.ndarray>o)
    return 0


cdef int _owner_alive(object owner, str rtn, str what) except -1:
    """The object a view Buffer was made of (an array, a tensor, a Buffer)
    must be alive."""
    cdef _View v
    _view(owner, rtn, what, &v, False)
    return 0


# The torch tensors on the heap by their storage (the address of its
# StorageImpl, shared by every view of the tensor): the Buffer it was made
# on (weakly).  interop.torch registers each tensor it makes.
cdef dict _torch_storages = {}


cdef object _torch_storage_key(object t):
    if hasattr(t, "untyped_storage"):
        return t.untyped_storage()._cdata
    s = t.storage()
    return getattr(s, "_storage", s)._cdata


def _torch_register(t, Buffer b):
    """interop.torch: t (a tensor on b) is a heap tensor.  The entry goes
    when b does (with the last tensor on it)."""
    key = _torch_storage_key(t)

    def gone(r, key=key):
        if _torch_storages.get(key) is r:
            del _torch_storages[key]
    _torch_storages[key] = weakref.ref(b, gone)


cdef int _torch_alive(object t, str rtn, str what) except -1:
    r = _torch_storages.get(_torch_storage_key(t))
    if r is None:
        return 0
    b = r()
    if b is None:
        return 0
    return _dead(<Buffer>b, rtn, what, "a tensor")


cdef char _torch_kind(object torch, object dtype) except 0:
    k = _torch_kinds.get(dtype)
    if k is None:
        if dtype == torch.bool:
            k = ord("b")
        elif dtype.is_complex:
            k = ord("c")
        elif dtype == torch.bfloat16:
            k = ord("V")
        elif dtype.is_floating_point:
            k = ord("f")
        elif dtype.is_signed:
            k = ord("i")
        else:
            k = ord("u")
        _torch_kinds[dtype] = k
    return k


cdef int _view_other(object obj, str rtn, str what, _View *v, bint writable) except -1:
    cdef Py_buffer pb
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        v.dev = -1
        if obj.device.type == "cuda":
            _gpu_ok(rtn, what, f"a tensor on {obj.device}")
            v.dev = obj.device.index if obj.device.index is not None else 0
        elif obj.device.type != "cpu":
            raise NvshmemNotSupported(f"{rtn}: {what} is a tensor on {obj.device}; fabshmem "
                                      f"takes CPU and CUDA tensors")
        if not obj.is_contiguous():
            raise NvshmemInvalid(f"{rtn}: {what} is not a contiguous tensor")
        if _torch_storages:
            _torch_alive(obj, rtn, what)
        v.ptr = <char *><uintptr_t>obj.data_ptr()
        v.itemsize = obj.element_size()
        v.nbytes = obj.numel() * v.itemsize
        v.kind = _torch_kind(torch, obj.dtype)
        v.tidx = fabpy_type_index(v.kind, <int>v.itemsize)
        return 0
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return _view_cai(obj, cai, rtn, what, v, writable)
    try:
        PyObject_GetBuffer(obj, &pb, PyBUF_ANY_CONTIGUOUS | (PyBUF_WRITABLE if writable else 0))
    except (BufferError, TypeError) as e:
        raise NvshmemInvalid(f"{rtn}: {what} must be a NumPy array, a torch tensor or a "
                             f"Buffer, not {type(obj).__name__} ({e})") from None
    v.ptr = <char *>pb.buf
    v.nbytes = pb.len
    v.itemsize = 1
    v.kind = 0
    v.tidx = FABPY_UINT8
    v.dev = -1
    PyBuffer_Release(&pb)
    return 0


cdef int _gpu_ok(str rtn, str what, str desc) except -1:
    if not _cuda_on:
        raise NvshmemNotSupported(f"{rtn}: {what} is {desc}, GPU memory, but this PE has no "
                                  f"GPU brought up: init(device=...) binds it to one")
    return 0


cdef int _view_cai(object obj, dict cai, str rtn, str what, _View *v,
                   bint writable) except -1:
    """An object with __cuda_array_interface__ (CuPy, Numba): GPU memory of
    this PE's device.  It must be C-contiguous."""
    cdef Py_ssize_t n = 1, st
    _gpu_ok(rtn, what, f"a {type(obj).__name__}")
    ptr, readonly = cai["data"]
    if writable and readonly:
        raise NvshmemInvalid(f"{rtn}: {what} is a read-only array")
    dt = np.dtype(cai["typestr"])
    shape = tuple(cai["shape"])
    strides = cai.get("strides")
    if strides is not None:
        st = dt.itemsize
        for d, s in zip(reversed(shape), reversed(tuple(strides))):
            if d > 1 and s != st:
                raise NvshmemInvalid(f"{rtn}: {what} is not a C-contiguous array")
            st *= d
    for d in shape:
        n *= d
    v.ptr = <char *><uintptr_t>ptr
    v.itemsize = dt.itemsize
    v.nbytes = n * dt.itemsize
    v.kind = ord(dt.kind)
    v.tidx = fabpy_type_index(v.kind, <int>v.itemsize)
    v.dev = _gpu_dev if _gpu_dev >= 0 else shmemx_cuda_device()
    return 0


cdef inline int _same_type(str rtn, _View *d, _View *s) except -1:
    if d.kind != 0 and s.kind != 0 and (d.kind != s.kind or d.itemsize != s.itemsize):
        raise NvshmemInvalid(f"{rtn}: dst and src differ in dtype ({_dtname(d)} and "
                             f"{_dtname(s)})")
    return 0


cdef inline Py_ssize_t _rma_bytes(str rtn, _View *d, _View *s, object count,
                                  bint by_dst) except -1:
    """The bytes a put or get of count elements moves; when count is None,
    all of src (by_dst false: a put) or all of dst (a get).  The element is
    dst's (src's when dst is a Buffer)."""
    cdef Py_ssize_t elem, n
    _same_type(rtn, d, s)
    elem = d.itemsize if d.kind != 0 else s.itemsize
    if count is None:
        if by_dst and d.nbytes > s.nbytes:
            raise NvshmemInvalid(f"{rtn}: dst ({d.nbytes // elem} elements) is larger than src "
                                 f"({s.nbytes // elem} elements); pass count")
        if not by_dst and s.nbytes > d.nbytes:
            raise NvshmemInvalid(f"{rtn}: src ({s.nbytes // elem} elements) is larger than dst "
                                 f"({d.nbytes // elem} elements); pass count")
        return d.nbytes if by_dst else s.nbytes
    if not isinstance(count, int):
        count = _as_int(count, rtn, "count")
    try:
        n = count
    except (TypeError, OverflowError):
        raise _int_fail(count, rtn, "count", "0 to the arrays' element counts") from None
    if n < 0:
        raise NvshmemInvalid(f"{rtn}: count {n} is negative")
    if n > d.nbytes // elem:
        raise NvshmemInvalid(f"{rtn}: count {n} is beyond dst ({d.nbytes // elem} elements)")
    if n > s.nbytes // elem:
        raise NvshmemInvalid(f"{rtn}: count {n} is beyond src ({s.nbytes // elem} elements)")
    return n * elem


cdef inline int _pe_arg(str rtn, object remote_pe, object pe) except? -2:
    if remote_pe is None:
        if pe is None:
            raise NvshmemInvalid(f"{rtn}: remote_pe is required")
        remote_pe = pe
    cdef int r
    if not isinstance(remote_pe, int):
        remote_pe = _as_int(remote_pe, rtn, "remote_pe")
    try:
        r = remote_pe
    except (TypeError, OverflowError):
        raise _pe_fail(remote_pe, rtn, "remote_pe") from None
    return r


cdef int _local_symmetric(void *p, str rtn, str what) except -1:
    """A word this PE waits on must be symmetric: no other PE could change
    it otherwise, and the wait would never end."""
    if shmem_ptr(p, shmem_my_pe()) == NULL:
        _chk()
        raise NvshmemInvalid(f"{rtn}: {what} is not symmetric (not on the symmetric heap nor on "
                             f"registered memory): no other PE can update it, so the wait "
                             f"would never end")
    return 0


cdef inline uint64_t *_signal_ptr(object sig, str rtn, str what) except NULL:
    cdef _View v
    _view(sig, rtn, what, &v, False)
    if v.kind != 0 and (v.kind != ord("u") or v.itemsize != 8):
        raise NvshmemInvalid(f"{rtn}: {what} must be uint64 (a signal word), not {_dtname(&v)}")
    if v.nbytes < 8:
        raise NvshmemInvalid(f"{rtn}: {what} holds {v.nbytes} bytes, fewer than a signal word (8)")
    if (<uintptr_t>v.ptr) & 7:
        raise NvshmemInvalid(f"{rtn}: {what} is not aligned to 8 bytes")
    return <uint64_t *>v.ptr
