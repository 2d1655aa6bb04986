/*
 * err_heap: shmem_malloc larger than the symmetric heap.  The library
 * prints a message that mentions SHMEM_SYMMETRIC_SIZE and either ends the
 * job or returns NULL, in which case this program ends it with status 2.
 */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    void *p;

    shmem_init();
    p = shmem_malloc((size_t)1 << 40);
    if (p == NULL) {
        fprintf(stderr, "err_heap: PE %d: shmem_malloc(1 TiB) returned NULL\n", shmem_my_pe());
        fflush(stderr);
        shmem_global_exit(2);
    }
    printf("err_heap: PE %d: shmem_malloc(1 TiB) succeeded\n", shmem_my_pe());
    shmem_free(p);
    shmem_finalize();
    return 0;
}
