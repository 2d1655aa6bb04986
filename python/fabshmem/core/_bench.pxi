# For bench/python: the same operations as the Python routines, looped in C
# inside this module, so that the binding's cost per call is measured
# against the C routine in the same process, on the same arrays.

from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef double _now() nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


_C_LOOPS = {"put_quiet": 0, "put": 1, "barrier_all": 2, "reduce_sum_float32": 3, "quiet": 4,
            "get": 5}


def _c_loop(str what, dst, src, int pe, long iters):
    """Seconds that iters repetitions of what take from C:
    put_quiet (shmem_putmem + shmem_quiet of all of src into dst on pe),
    put, get, quiet, barrier_all, reduce_sum_float32 (over TEAM_WORLD, all
    of dst)."""
    cdef _View d, s
    cdef int kind = _C_LOOPS[what]
    cdef long i
    cdef double t0, t1
    cdef size_t n
    cdef fabpy_red_fn red = fabpy_reduce_fn(FABPY_OP_SUM, FABPY_FLOAT, 0)
    cdef shmem_team_t world = fabpy_predefined_team(0)
    _view(dst, "_c_loop", "dst", &d, True)
    _view(src, "_c_loop", "src", &s, False)
    n = s.nbytes
    with nogil:
        t0 = _now()
        if kind == 0:
            for i in range(iters):
                shmem_putmem(d.ptr, s.ptr, n, pe)
                shmem_quiet()
        elif kind == 1:
            for i in range(iters):
                shmem_putmem(d.ptr, s.ptr, n, pe)
        elif kind == 2:
            for i in range(iters):
                shmem_barrier_all()
        elif kind == 3:
            for i in range(iters):
                red(world, d.ptr, s.ptr, d.nbytes // 4)
        elif kind == 4:
            for i in range(iters):
                shmem_quiet()
        else:
            for i in range(iters):
                shmem_getmem(d.ptr, s.ptr, d.nbytes, pe)
        t1 = _now()
    _chk()
    return t1 - t0
