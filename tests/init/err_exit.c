/*
 * err_exit: how a job ends, for tests/init/errors.sh and
 * tests/init/uid_boot.sh.  Every PE initializes and passes a barrier;
 * then, by MODE:
 *
 *   err_exit global_exit PE STATUS  PE calls shmem_global_exit(STATUS)
 *                                   while the others wait in
 *                                   shmem_int_wait_until for a flag that
 *                                   nobody sets: every PE must exit STATUS
 *   err_exit exit PE STATUS         PE calls exit(STATUS) without
 *                                   shmem_finalize while the others wait
 *   err_exit wait_until [DIR]       every PE says "err_exit: PE n pid p
 *   err_exit test_any [DIR]         waiting" and waits for ever (in
 *                                   shmem_int_wait_until, or in a loop on
 *                                   shmem_int_test_any) for a flag that
 *                                   nobody sets, until its launcher, the
 *                                   hub or a peer goes away; with DIR,
 *                                   its stderr goes to DIR/err.PID (a
 *                                   launcher that dies takes the PE's
 *                                   stderr with it)
 *
 * A PE that gets past its wait says "returned" and exits 1.
 */
#include <shmem.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int flag[2];

/* Waits for ever for flag[0] to become 1, the way mode says. */
static void wait_forever(const char *mode)
{
    if (!strcmp(mode, "test_any")) {
        while (shmem_int_test_any(flag, 2, NULL, SHMEM_CMP_EQ, 1) == SIZE_MAX)
            ;
    } else {
        shmem_int_wait_until(&flag[0], SHMEM_CMP_EQ, 1);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int pe = argc > 2 ? atoi(argv[2]) : 0, status = argc > 3 ? atoi(argv[3]) : 0, me;

    if (strcmp(mode, "global_exit") && strcmp(mode, "exit") && strcmp(mode, "wait_until") &&
        strcmp(mode, "test_any")) {
        fprintf(stderr, "usage: %s global_exit|exit PE STATUS | wait_until|test_any [DIR]\n",
                argv[0]);
        return 2;
    }
    if (argc > 2 && (!strcmp(mode, "wait_until") || !strcmp(mode, "test_any"))) {
        char path[4096];
        int fd;

        snprintf(path, sizeof(path), "%s/err.%d", argv[2], (int)getpid());
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 2) < 0) {
            perror(path);
            return 2;
        }
        close(fd);
    }
    shmem_init();
    me = shmem_my_pe();
    shmem_barrier_all();
    if (!strcmp(mode, "wait_until") || !strcmp(mode, "test_any")) {
        printf("err_exit: PE %d pid %d waiting\n", me, (int)getpid());
        fflush(stdout);
        wait_forever(mode);
    } else if (me == pe) {
        /* Let the others reach their wait first. */
        usleep(200000);
        fprintf(stderr, "err_exit: PE %d calls %s(%d)\n", me,
                !strcmp(mode, "exit") ? "exit" : "shmem_global_exit", status);
        fflush(stderr);
        if (!strcmp(mode, "exit"))
            exit(status);
        shmem_global_exit(status);
    } else {
        wait_forever("wait_until");
    }
    printf("err_exit: PE %d: the wait returned\n", me);
    return 1;
}
