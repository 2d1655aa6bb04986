/*
 * fault: a job that keeps every PE talking to PEs of other hosts until
 * tests/cluster/run.sh cuts a host's link or kills a host under it.
 *
 *   fault [SECONDS]      (default 120)
 *
 * Every PE says "fault: PE n on HOST ready" once the job is up, then
 * loops: a put to the next PE, an AMO to the PE half the job away, a
 * barrier.  A job that is not disturbed ends after SECONDS with status 0
 * and "fault: PE n finished"; the fault tests expect it never to get
 * there: the job must end, every surviving PE within a bound, with a
 * non-zero status.
 */
#include "common.h"
#include <unistd.h>

static long ring[2];
static long hits;

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 120;
    char host[64] = "";
    long it = 0;

    test_init("fault");
    gethostname(host, sizeof(host) - 1);
    shmem_barrier_all();
    printf("fault: PE %d on %s ready\n", test_me, host);
    fflush(stdout);
    double t0 = test_now();
    while (test_now() - t0 < secs) {
        shmem_long_p(&ring[it & 1], it, (test_me + 1) % test_npes);
        shmem_long_atomic_add(&hits, 1, (test_me + test_npes / 2) % test_npes);
        shmem_barrier_all();
        it++;
    }
    printf("fault: PE %d finished %ld rounds\n", test_me, it);
    fflush(stdout);
    shmem_finalize();
    return 0;
}
