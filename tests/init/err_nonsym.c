/*
 * err_nonsym: shmem_putmem to a stack (non-symmetric) address of a peer.
 * The library must end the job with a non-zero status and a message naming
 * shmem_putmem and dest.
 */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    char dest[16], src[16] = "not symmetric";

    shmem_init();
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        shmem_putmem(dest, src, sizeof(src), (shmem_my_pe() + 1) % shmem_n_pes());
    shmem_barrier_all();
    printf("err_nonsym: PE %d: the bad put returned (%s)\n", shmem_my_pe(), dest);
    shmem_finalize();
    return 0;
}
