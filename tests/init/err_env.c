/*
 * err_env: run with an invalid environment value (errors.sh sets
 * SHMEM_SYMMETRIC_SIZE=12Q, FABSHMEM_OFI_AMO=fast, ...).  Initialization
 * must fail with a message naming the variable and the value; getting
 * past shmem_init is an error.
 *
 * err_env amo: the configuration is valid but gives no atomics to the PEs
 * that are not mapped (FABSHMEM_OFI_AMO=native on shm): a fetch-add to the
 * next PE must end the job with a message naming the routine, not return.
 */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    shmem_init();
    if (argc > 1 && !strcmp(argv[1], "amo")) {
        long *w = shmem_calloc(1, sizeof(long));
        int next = (shmem_my_pe() + 1) % shmem_n_pes();

        shmem_barrier_all();
        shmem_long_atomic_fetch_add(w, 1, next);
        printf("err_env: PE %d: a fetch-add without atomics returned\n", shmem_my_pe());
        shmem_finalize();
        return 0;
    }
    printf("err_env: PE %d: shmem_init accepted the configuration\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
