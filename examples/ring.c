/*
 * The demo: every PE puts its number into a symmetric array on its
 * right-hand neighbour, then a barrier, then each PE prints what it got
 * and checks it.
 */
#include <shmem.h>
#include <stdio.h>

static long received[4]; /* A global: symmetric, like the heap. */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *slot = shmem_malloc(sizeof(long));
    long msg[4] = { me, me * 10, me * 100, -me };

    *slot = -1;
    shmem_barrier_all();
    shmem_long_p(slot, 1000 + me, right);     /* a single value into the heap */
    shmem_long_put(received, msg, 4, right);  /* an array into a global */
    shmem_barrier_all();

    int ok = *slot == 1000 + left && received[0] == left && received[1] == left * 10 &&
             received[2] == left * 100 && received[3] == -left;
    printf("PE %d of %d received %ld from PE %d and {%ld, %ld, %ld, %ld}: %s\n", me, npes, *slot,
           left, received[0], received[1], received[2], received[3], ok ? "ok" : "WRONG");
    shmem_free(slot);
    shmem_finalize();
    return ok ? 0 : 1;
}
