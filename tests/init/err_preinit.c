/*
 * err_preinit: shmem_putmem before shmem_init.  The library must end the
 * process with a non-zero status and a message naming shmem_putmem.
 */
#include <shmem.h>
#include <stdio.h>

static char dest[16];

int main(void)
{
    char src[16] = "too early";

    shmem_putmem(dest, src, sizeof(src), 0);
    printf("err_preinit: shmem_putmem before shmem_init returned\n");
    fflush(stdout);
    shmem_init();
    shmem_finalize();
    return 0;
}
