# Collectives over a team (every member calls them in the same order with
# the same sizes).  Sizes come from the arrays: the element count of dst
# for reduce, reducescatter and broadcast, of src for fcollect, of dst
# divided by the team size for alltoall.

_OPS = {"sum": FABPY_OP_SUM, "prod": FABPY_OP_PROD, "min": FABPY_OP_MIN,
        "max": FABPY_OP_MAX, "and": FABPY_OP_AND, "or": FABPY_OP_OR, "xor": FABPY_OP_XOR}


cdef int _op_index(object op, str rtn) except -1:
    # The common spelling ("sum") is one dict look-up.
    r = _OPS.get(op) if type(op) is str else None
    if r is not None:
        return r
    r = _OPS.get(op.lower() if isinstance(op, str) else getattr(op, "name", op))
    if r is None and hasattr(op, "name"):
        r = _OPS.get(str(op.name).lower())
    if r is None:
        raise NvshmemInvalid(f"{rtn}: unknown op {op!r} (sum, prod, min, max, and, or, xor)")
    return r


cdef int _team_size(shmem_team_t t) except -2:
    cdef int n = shmem_team_n_pes(t)
    _chk()
    return n


cdef object _reduce(str rtn, object team, object dst, object src, object op, object stream,
                    int scatter):
    cdef shmem_team_t t
    cdef _View d, s
    cdef int o, rc, npes
    cdef Py_ssize_t n, need
    cdef fabpy_red_fn fn
    cdef fabpy_red_stream_fn sfn
    cdef shmemx_stream_t st
    cdef Stream sm
    _team(team, rtn, &t)
    _view(dst, rtn, "dst", &d, True)
    _view(src, rtn, "src", &s, False)
    if d.kind == 0 or s.kind == 0:
        raise NvshmemInvalid(f"{rtn}: dst and src must be arrays or tensors (their dtype "
                             f"chooses the reduction), not Buffers")
    _same_type(rtn, &d, &s)
    o = _op_index(op, rtn)
    if d.itemsize == 2 and (d.kind == ord("f") or d.kind == ord("V")):
        return _reduce_half(rtn, t, dst, src, &d, &s, o, op, stream, scatter)
    fn = fabpy_reduce_fn(o, d.tidx, scatter) if d.tidx >= 0 else NULL
    if fn == NULL:
        raise NvshmemInvalid(f"{rtn}: op {op!r} is not defined for {_dtname(&d)} (sum, prod, "
                             f"min, max: integers and reals, sum and prod also complex; and, "
                             f"or, xor: integers)")
    n = d.nbytes // d.itemsize
    need = n
    if scatter:
        npes = _team_size(t)
        need = n * npes if npes > 0 else n
    if s.nbytes // s.itemsize < need:
        raise NvshmemInvalid(f"{rtn}: src holds {s.nbytes // s.itemsize} elements, fewer than "
                             f"the {need} that dst's {n} need")
    if stream is None:
        if d.dev >= 0 or s.dev >= 0:
            _gpu_sync(rtn)
        # A small reduction keeps the GIL unless another thread may want
        # it (releasing and taking it back is a good part of the call).
        if d.nbytes < _NOGIL_BYTES and not _gil_wanted():
            rc = fn(t, d.ptr, s.ptr, n)
        else:
            with nogil:
                rc = fn(t, d.ptr, s.ptr, n)
        _chk_rc(rc, rtn)
        return
    sm = _as_stream(stream, rtn)
    st = sm.st
    sfn = fabpy_reduce_stream_fn(o, d.tidx, scatter)
    with nogil:
        rc = sfn(t, d.ptr, s.ptr, n, st)
    sm._keep((dst, src))
    _chk_rc(rc, rtn)


cdef object _half_flat(object x):
    """A flat view of a contiguous float16 array or bfloat16 tensor."""
    return x.reshape(-1)


cdef object _reduce_half(str rtn, shmem_team_t t, object dst, object src, _View *d, _View *s,
                         int o, object op, object stream, int scatter):
    """float16 and bfloat16 (NumPy's, torch's) reduced as float32: the C
    library has no 16-bit real reductions, so the elements go through the
    binding's symmetric float32 blocks (_HALF_CHUNK at a time), are reduced
    there by the float32 routine and rounded back into dst.  Host memory,
    off streams; sum, prod, min, max."""
    cdef Py_ssize_t n, npes = 1, j, k, chunk
    cdef int rc
    cdef fabpy_red_fn fn = NULL
    cdef float *s32p
    cdef float *d32p
    name = _dtname(d)
    if o != FABPY_OP_SUM and o != FABPY_OP_PROD and o != FABPY_OP_MIN and o != FABPY_OP_MAX:
        raise NvshmemInvalid(f"{rtn}: op {op!r} is not defined for {name} (sum, prod, min, "
                             f"max)")
    if stream is not None:
        raise NvshmemNotSupported(f"{rtn}: {name} is reduced through float32 by the binding, "
                                  f"off streams only (the C library has no {name} reduction)")
    if d.dev >= 0 or s.dev >= 0:
        raise NvshmemNotSupported(f"{rtn}: {name} reductions of GPU memory are not supported "
                                  f"(the C library has no {name} reduction)")
    n = d.nbytes // 2
    if scatter:
        npes = _team_size(t)
        if npes < 1:
            npes = 1
    if s.nbytes // 2 < n * npes:
        raise NvshmemInvalid(f"{rtn}: src holds {s.nbytes // 2} elements, fewer than the "
                             f"{n * npes} that dst's {n} need")
    if _agree == NULL or _agree_epoch != _epoch or not _live:
        raise NvshmemInvalid(f"{rtn}: dst and src must be symmetric objects (array(), "
                             f"tensor()); none was allocated in this job")
    fn = fabpy_reduce_fn(o, FABPY_FLOAT, scatter)
    s32p = <float *>(_agree + 8)
    d32p = s32p + _HALF_CHUNK
    s32 = np.asarray(<float[:_HALF_CHUNK]>s32p)
    d32 = np.asarray(<float[:_HALF_CHUNK]>d32p)
    torch = sys.modules.get("torch")
    is_torch = torch is not None and isinstance(dst, torch.Tensor)
    if is_torch:
        s32t = torch.from_numpy(s32)
        d32t = torch.from_numpy(d32)
    sf = _half_flat(src)
    df = _half_flat(dst)
    chunk = _HALF_CHUNK // npes
    j = 0
    while j < n or (n == 0 and j == 0):
        k = min(chunk, n - j)
        if scatter:
            # Block b of the chunk: elements j..j+k of src's block b.
            blocks = sf[:n * npes].reshape(npes, n)[:, j:j + k]
            if is_torch:
                s32t[:npes * k].view(npes, k).copy_(blocks)
            else:
                s32[:npes * k].reshape(npes, k)[:] = blocks
        elif is_torch:
            s32t[:k].copy_(sf[j:j + k])
        else:
            s32[:k] = sf[j:j + k]
        with nogil:
            rc = fn(t, d32p, s32p, k)
        _chk_rc(rc, rtn)
        if is_torch:
            df[j:j + k].copy_(d32t[:k])
        else:
            df[j:j + k] = d32[:k]
        if n == 0:
            break
        j += k


def reduce(team, dst, src, op, stream=None):
    """dst[i] = op over the team's members of src[i], for every element of
    dst (op: "sum", "prod", "min", "max", "and", "or", "xor" as the dtype
    allows)."""
    _reduce("reduce", team, dst, src, op, stream, 0)


def reducescatter(team, dst, src, op, stream=None):
    """Member i of the team gets in dst block i (dst.size elements) of src
    (team size times dst.size elements) reduced by op over the team."""
    _reduce("reducescatter", team, dst, src, op, stream, 1)


cdef int _coll_views(str rtn, object team, object dst, object src, shmem_team_t *t,
                     _View *d, _View *s) except -1:
    _team(team, rtn, t)
    _view(dst, rtn, "dst", d, True)
    _view(src, rtn, "src", s, False)
    _same_type(rtn, d, s)
    return 0


def fcollect(team, dst, src, stream=None):
    """dst holds the src of every member of the team, in team order
    (dst.size >= team size times src.size)."""
    cdef shmem_team_t t
    cdef _View d, s
    cdef int rc, npes
    cdef shmemx_stream_t st
    cdef Stream sm
    _coll_views("fcollect", team, dst, src, &t, &d, &s)
    npes = _team_size(t)
    if npes > 0 and d.nbytes < s.nbytes * npes:
        raise NvshmemInvalid(f"fcollect: dst holds {d.nbytes} bytes, fewer than the {npes} "
                             f"members' {s.nbytes} bytes of src")
    if stream is None:
        if d.dev >= 0 or s.dev >= 0:
            _gpu_sync("fcollect")
        with nogil:
            rc = shmem_fcollectmem(t, d.ptr, s.ptr, s.nbytes)
        _chk_rc(rc, "fcollect")
        return
    sm = _as_stream(stream, "fcollect")
    st = sm.st
    with nogil:
        rc = shmemx_fcollectmem_on_stream(t, d.ptr, s.ptr, s.nbytes, st)
    sm._keep((dst, src))
    _chk_rc(rc, "fcollect")


def alltoall(team, dst, src, stream=None):
    """Block j of src on member i goes to block i of dst on member j; dst
    and src hold team size blocks of dst.size / team size elements."""
    cdef shmem_team_t t
    cdef _View d, s
    cdef int rc, npes
    cdef Py_ssize_t block
    cdef shmemx_stream_t st
    cdef Stream sm
    _coll_views("alltoall", team, dst, src, &t, &d, &s)
    npes = _team_size(t)
    block = d.nbytes
    if npes > 0:
        if (d.nbytes // d.itemsize) % npes:
            raise NvshmemInvalid(f"alltoall: dst holds {d.nbytes // d.itemsize} elements, not "
                                 f"a multiple of the team's {npes} PEs")
        block = d.nbytes // npes
        if s.nbytes < d.nbytes:
            raise NvshmemInvalid(f"alltoall: src holds {s.nbytes} bytes, fewer than dst's "
                                 f"{d.nbytes}")
    if stream is None:
        if d.dev >= 0 or s.dev >= 0:
            _gpu_sync("alltoall")
        with nogil:
            rc = shmem_alltoallmem(t, d.ptr, s.ptr, block)
        _chk_rc(rc, "alltoall")
        return
    sm = _as_stream(stream, "alltoall")
    st = sm.st
    with nogil:
        rc = shmemx_alltoallmem_on_stream(t, d.ptr, s.ptr, block, st)
    sm._keep((dst, src))
    _chk_rc(rc, "alltoall")


def broadcast(team, dst, src, root=0, stream=None):
    """dst on every member of the team gets src of member root (dst.size
    elements)."""
    cdef shmem_team_t t
    cdef _View d, s
    cdef int rc, r
    cdef shmemx_stream_t st
    cdef Stream sm
    _coll_views("broadcast", team, dst, src, &t, &d, &s)
    if not isinstance(root, int):
        root = _as_int(root, "broadcast", "root")
    try:
        r = root
    except (TypeError, OverflowError):
        raise _pe_fail(root, "broadcast", "root") from None
    if s.nbytes < d.nbytes:
        raise NvshmemInvalid(f"broadcast: src holds {s.nbytes} bytes, fewer than dst's "
                             f"{d.nbytes}")
    if stream is None:
        if d.dev >= 0 or s.dev >= 0:
            _gpu_sync("broadcast")
        with nogil:
            rc = shmem_broadcastmem(t, d.ptr, s.ptr, d.nbytes, r)
        _chk_rc(rc, "broadcast")
        return
    sm = _as_stream(stream, "broadcast")
    st = sm.st
    with nogil:
        rc = shmemx_broadcastmem_on_stream(t, d.ptr, s.ptr, d.nbytes, r, st)
    sm._keep((dst, src))
    _chk_rc(rc, "broadcast")


def barrier(team, stream=None):
    """Completes this PE's operations (quiet), then waits until every member
    of the team is here (NVSHMEM's barrier)."""
    cdef shmem_team_t t
    cdef int rc
    cdef shmemx_stream_t st
    cdef Stream sm
    _team(team, "barrier", &t)
    if stream is None:
        if _gpu_dev >= 0:
            _gpu_sync("barrier")
        if _gil_wanted():
            with nogil:
                rc = fabpy_team_barrier(t)
        else:
            rc = fabpy_team_barrier(t)
        _chk_rc(rc, "barrier")
        return
    sm = _as_stream(stream, "barrier")
    st = sm.st
    with nogil:
        rc = shmemx_barrier_on_stream(t, st)
    _chk_rc(rc, "barrier")


def sync(team, stream=None):
    """Waits until every member of the team is here (no quiet)."""
    cdef shmem_team_t t
    cdef int rc
    cdef shmemx_stream_t st
    cdef Stream sm
    _team(team, "sync", &t)
    if stream is None:
        if _gpu_dev >= 0:
            _gpu_sync("sync")
        if _gil_wanted():
            with nogil:
                rc = shmem_team_sync(t)
        else:
            rc = shmem_team_sync(t)
        _chk_rc(rc, "sync")
        return
    sm = _as_stream(stream, "sync")
    st = sm.st
    with nogil:
        rc = shmemx_team_sync_on_stream(t, st)
    _chk_rc(rc, "sync")


def barrier_all(stream=None):
    """barrier over TEAM_WORLD (shmem_barrier_all)."""
    cdef shmemx_stream_t st
    cdef Stream sm
    if stream is None:
        if _gpu_dev >= 0:
            _gpu_sync("barrier_all")
        if _gil_wanted():
            with nogil:
                shmem_barrier_all()
        else:
            shmem_barrier_all()
        _chk()
        return
    sm = _as_stream(stream, "barrier_all")
    st = sm.st
    with nogil:
        shmemx_barrier_all_on_stream(st)
    _chk()


def sync_all(stream=None):
    """sync over TEAM_WORLD (shmem_sync_all)."""
    cdef shmemx_stream_t st
    cdef Stream sm
    if stream is None:
        if _gpu_dev >= 0:
            _gpu_sync("sync_all")
        if _gil_wanted():
            with nogil:
                shmem_sync_all()
        else:
            shmem_sync_all()
        _chk()
        return
    sm = _as_stream(stream, "sync_all")
    st = sm.st
    with nogil:
        shmemx_sync_all_on_stream(st)
    _chk()
