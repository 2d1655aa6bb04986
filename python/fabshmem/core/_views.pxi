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
        v.ptr = b.ptr
        v.nbytes = b._size
        v.itemsize = 1
        v.kind = 0
        v.tidx = FABPY_UINT8
        v.dev = b._dev
        return 0
    return _view_other(obj, rtn, what, v, writable)


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
    try:
        n = count
    except (TypeError, OverflowError):
        raise NvshmemInvalid(f"{rtn}: count must be an int, not {count!r}") from None
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
    try:
        return remote_pe
    except (TypeError, OverflowError):
        raise NvshmemInvalid(f"{rtn}: remote_pe must be an int, not {remote_pe!r}") from None


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
