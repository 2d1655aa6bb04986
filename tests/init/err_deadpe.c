/*
 * err_deadpe: PE 1 leaves without shmem_finalize (exit(3), or abort() with
 * the argument "abort") while PE 0 waits in shmem_barrier_all.  The job
 * must end with a non-zero status, never hang.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int use_abort = argc > 1 && strcmp(argv[1], "abort") == 0;

    shmem_init();
    shmem_barrier_all();
    if (shmem_my_pe() == 1) {
        usleep(200000);
        fprintf(stderr, "err_deadpe: PE 1 leaves with %s\n", use_abort ? "abort()" : "exit(3)");
        fflush(stderr);
        if (use_abort)
            abort();
        exit(3);
    }
    shmem_barrier_all();
    printf("err_deadpe: PE %d: the barrier returned without PE 1\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
