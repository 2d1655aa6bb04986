/*
 * A job that is killed: every PE initializes (so the heap objects and the
 * provider's shared-memory regions exist), says so, and sleeps until
 * tests/init/errors.sh kills it with SIGKILL.  The script then checks that
 * nothing of it stays in /dev/shm once the next job has started.
 */
#include <shmem.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    shmem_init();
    shmem_barrier_all();
    printf("err_killed: PE %d pid %d ready\n", shmem_my_pe(), (int)getpid());
    fflush(stdout);
    sleep(60);
    shmem_finalize();
    return 1;
}
