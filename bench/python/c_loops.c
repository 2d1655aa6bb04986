/*
 * The C side of bench/python/bench.py: the operations that the binding's
 * routines call, looped in C, so that bench.py measures the binding's
 * cost per call against the C routine in the same process, on the same
 * arrays.  Built as a module of the build tree (not installed, not part of
 * the Python package) and loaded by bench.py with ctypes; it calls the
 * same libfabshmem that the binding loaded.
 */
#include <shmem.h>
#include <time.h>

enum { PUT_QUIET, PUT, BARRIER_ALL, REDUCE_SUM_FLOAT32, QUIET, GET };

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Seconds that iters repetitions of what take: PUT_QUIET (shmem_putmem of
 * the nbytes at src to dst on pe, then shmem_quiet), PUT, GET
 * (shmem_getmem of nbytes at src on pe into dst), QUIET, BARRIER_ALL,
 * REDUCE_SUM_FLOAT32 (shmem_float_sum_reduce over SHMEM_TEAM_WORLD of
 * nbytes / 4 elements); -1 for an unknown what. */
double fabbench_c_loop(int what, void *dst, const void *src, size_t nbytes, int pe, long iters)
{
    double t0 = now();
    long i;

    switch (what) {
    case PUT_QUIET:
        for (i = 0; i < iters; i++) {
            shmem_putmem(dst, src, nbytes, pe);
            shmem_quiet();
        }
        break;
    case PUT:
        for (i = 0; i < iters; i++)
            shmem_putmem(dst, src, nbytes, pe);
        break;
    case GET:
        for (i = 0; i < iters; i++)
            shmem_getmem(dst, src, nbytes, pe);
        break;
    case QUIET:
        for (i = 0; i < iters; i++)
            shmem_quiet();
        break;
    case BARRIER_ALL:
        for (i = 0; i < iters; i++)
            shmem_barrier_all();
        break;
    case REDUCE_SUM_FLOAT32:
        for (i = 0; i < iters; i++)
            shmem_float_sum_reduce(SHMEM_TEAM_WORLD, dst, src, nbytes / 4);
        break;
    default:
        return -1;
    }
    return now() - t0;
}
