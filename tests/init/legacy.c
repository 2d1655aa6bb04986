/*
 * legacy: a program of the pre-1.2 API runs unchanged.  start_pes(0)
 * initializes; _my_pe and _num_pes agree with shmem_my_pe and shmem_n_pes;
 * the deprecated cache routines (no-ops) can be called; a ring of puts
 * into memory from shmalloc is checked on every PE; and the program ends
 * without shmem_finalize, which the library then does at exit (run.sh
 * fails the run if the job does not exit with status 0).
 */
#include "common.h"

static long flag_sym;

int main(void)
{
    long *ring;
    int me, npes, next, prev, i;

    test_name = "legacy";
    start_pes(0);
    me = test_me = _my_pe();
    npes = test_npes = _num_pes();
    TEST_ASSERT(me == shmem_my_pe() && npes == shmem_n_pes(),
                "_my_pe %d / _num_pes %d differ from shmem_my_pe %d / shmem_n_pes %d", me, npes,
                shmem_my_pe(), shmem_n_pes());
    ring = shmalloc(64 * sizeof(long));
    TEST_ASSERT(ring, "shmalloc failed");
    shmem_set_cache_inv();
    shmem_set_cache_line_inv(ring);
    next = (me + 1) % npes;
    prev = (me + npes - 1) % npes;
    for (i = 0; i < 64; i++)
        ring[i] = -1;
    shmem_barrier_all();
    for (i = 0; i < 64; i++)
        shmem_long_p(&ring[i], test_val(me, (size_t)i, 9), next);
    shmem_long_p(&flag_sym, me + 1, next);
    shmem_barrier_all();
    shmem_udcflush();
    shmem_udcflush_line(ring);
    shmem_clear_cache_line_inv(ring);
    shmem_clear_cache_inv();
    TEST_CHECK("flag from the left neighbour", 0, prev + 1, flag_sym);
    for (i = 0; i < 64; i++)
        TEST_CHECK("ring of puts", i, test_val(prev, (size_t)i, 9), ring[i]);
    shmem_barrier_all();
    test_note("PASS (%d PEs)", npes);
    /* No shmem_finalize: pre-1.2 programs end like this. */
    return 0;
}
