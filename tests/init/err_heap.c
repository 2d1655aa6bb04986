/*
 * err_heap: shmem_malloc larger than the symmetric heap.  OpenSHMEM says
 * it returns NULL on every PE (the call is collective); the library prints
 * a warning that names the routine and SHMEM_SYMMETRIC_SIZE and the job
 * goes on: an allocation that fits then works, checked by value on every
 * PE.  Exit status 0 when it did all that, 2 when shmem_malloc returned
 * something else than NULL, 3 when the heap did not work afterwards (the
 * library's end of the job, if it ends it, is non-zero too).
 */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    static long in, out;
    long *q;
    void *p;
    int me, n, next;

    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    next = (me + 1) % n;
    p = shmem_malloc((size_t)1 << 40);
    if (p != NULL) {
        printf("err_heap: PE %d: shmem_malloc(1 TiB) succeeded\n", me);
        fflush(stdout);
        shmem_global_exit(2);
    }
    fprintf(stderr, "err_heap: PE %d: shmem_malloc(1 TiB) returned NULL\n", me);
    /* Every PE got NULL, and the heap still works. */
    q = shmem_malloc(sizeof(long));
    in = q != NULL;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &out, &in, 1);
    if (q == NULL || out != n) {
        fprintf(stderr, "err_heap: PE %d: a block of 8 bytes failed on %ld PEs\n", me,
                n - out);
        shmem_global_exit(3);
    }
    shmem_long_p(q, 1000 + me, next);
    shmem_barrier_all();
    if (*q != 1000 + (me + n - 1) % n) {
        fprintf(stderr, "err_heap: PE %d: the put into the new block gave %ld\n", me, *q);
        shmem_global_exit(3);
    }
    shmem_free(q);
    shmem_finalize();
    return 0;
}
