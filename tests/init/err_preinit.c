/*
 * err_preinit: a routine called before shmem_init: shmem_putmem, or with
 * the argument "mype" shmem_my_pe, or with "malloc" shmem_malloc.  The
 * library must end the process with a non-zero status and a message
 * naming the routine.
 */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static char dest[16];

int main(int argc, char **argv)
{
    char src[16] = "too early";
    const char *what = argc > 1 ? argv[1] : "put";

    if (!strcmp(what, "mype")) {
        int me = shmem_my_pe();
        printf("err_preinit: shmem_my_pe before shmem_init returned %d\n", me);
    } else if (!strcmp(what, "malloc")) {
        void *p = shmem_malloc(64);
        printf("err_preinit: shmem_malloc before shmem_init returned %p\n", p);
    } else {
        shmem_putmem(dest, src, sizeof(src), 0);
        printf("err_preinit: shmem_putmem before shmem_init returned\n");
    }
    fflush(stdout);
    shmem_init();
    shmem_finalize();
    return 0;
}
