/*
 * err_env: run with an invalid SHMEM_SYMMETRIC_SIZE (errors.sh sets 12Q).
 * Initialization must fail with a message naming the variable and the
 * value; getting past shmem_init is an error.
 */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    printf("err_env: PE %d: shmem_init accepted the configuration\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
