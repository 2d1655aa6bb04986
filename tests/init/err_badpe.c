/*
 * err_badpe: shmem_putmem to pe = n_pes.  The library must end the job
 * with a non-zero status and a message naming shmem_putmem and pe.
 */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    static char dest[16];
    char src[16] = "bad pe";

    shmem_init();
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        shmem_putmem(dest, src, sizeof(src), shmem_n_pes());
    shmem_barrier_all();
    printf("err_badpe: PE %d: the bad put returned\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
