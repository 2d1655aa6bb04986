/*
 * lock: shmem_set_lock, shmem_test_lock and shmem_clear_lock.  Mutual
 * exclusion with a get-increment-put counter on PE 0 (each PE does K
 * iterations; the final count must be exactly npes*K), test_lock on a held
 * and on a free lock, several locks at once (rotating and nested), and a
 * lock in the data segment (a global).
 *
 * The locks are AMOs: where they go through a provider without atomics
 * (shm with the direct path off or with virtual nodes) the test is skipped;
 * with shm and the direct path, the global lock part is left out.
 */
#include "common.h"

#define NL 3

static long glock;           /* data segment (mapped by node peers unless FABSHMEM_MAP_DATA=0) */
static long gcount;
static int no_amo;             /* the locks would need provider atomics */

/* K rounds of get-increment-put of *counter on PE 0 under *lock. */
static void count_under(long *lock, long *counter, int k, const char *what)
{
    int j;

    for (j = 0; j < k; j++) {
        long v;
        shmem_set_lock(lock);
        v = shmem_long_g(counter, 0);
        shmem_long_p(counter, v + 1, 0);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    if (test_me == 0 && *counter != (long)test_npes * k)
        test_fail("%s: counter on PE 0: expected %ld (npes %d * %d), got %ld", what,
                  (long)test_npes * k, test_npes, k, *counter);
    shmem_barrier_all();
}

int main(void)
{
    const char *prov = getenv("FABSHMEM_PROVIDER");
    int prov_no_amo, small, k, pe, j, r;
    long *locks, *cnt;
    long sum;

    test_init("lock");
    small = prov && !strcmp(prov, "sockets");
    k = small ? 10 : 200;
    prov_no_amo = test_npes > 1 && test_prov_no_amo();
    locks = shmem_calloc(NL + 2, sizeof(long));
    cnt = shmem_calloc(NL + 4, sizeof(long));
    TEST_ASSERT(locks && cnt, "allocation failed");
    if (prov_no_amo)
        for (pe = 0; pe < test_npes; pe++)
            if (pe != test_me && !shmem_ptr(locks, pe))
                no_amo = 1;
    shmem_barrier_all();
    no_amo |= shmem_int_g(&no_amo, 0);
    shmem_barrier_all();
    if (no_amo) {
        test_note("SKIP: provider %s has no atomics: the locks need them", prov);
        shmem_finalize();
        return TEST_SKIP;
    }

    /* Mutual exclusion. */
    count_under(&locks[0], &cnt[0], k, "shmem_set_lock/shmem_clear_lock");
    test_note("mutual exclusion: %d PEs x %d increments: ok", test_npes, k);

    /* test_lock on a held lock fails, on a free one succeeds. */
    if (test_me == 0)
        shmem_set_lock(&locks[1]);
    shmem_barrier_all();
    if (test_me != 0) {
        r = shmem_test_lock(&locks[1]);
        if (r != 1)
            test_fail("shmem_test_lock on a lock held by PE 0: expected 1, got %d", r);
    }
    shmem_barrier_all();
    if (test_me == 0)
        shmem_clear_lock(&locks[1]);
    shmem_barrier_all();
    for (pe = 0; pe < test_npes; pe++) {
        if (pe == test_me) {
            r = shmem_test_lock(&locks[1]);
            if (r != 0)
                test_fail("shmem_test_lock on a free lock: expected 0, got %d", r);
            shmem_clear_lock(&locks[1]);
        }
        shmem_barrier_all();
    }
    /* test_lock under contention: spin on it, then count. */
    for (j = 0; j < k / 4; j++) {
        long v;
        while (shmem_test_lock(&locks[1]))
            ;
        v = shmem_long_g(&cnt[1], 0);
        shmem_long_p(&cnt[1], v + 1, 0);
        shmem_clear_lock(&locks[1]);
    }
    shmem_barrier_all();
    if (test_me == 0 && cnt[1] != (long)test_npes * (k / 4))
        test_fail("shmem_test_lock loop: counter: expected %ld, got %ld",
                  (long)test_npes * (k / 4), cnt[1]);
    test_note("shmem_test_lock: ok");

    /* Several locks: rotating over NL locks, and nested (0 then 1). */
    shmem_barrier_all();
    for (j = 0; j < k; j++) {
        int l = (test_me + j) % NL;
        long v;
        shmem_set_lock(&locks[2 + l]);
        v = shmem_long_g(&cnt[2 + l], 0);
        shmem_long_p(&cnt[2 + l], v + 1, 0);
        shmem_clear_lock(&locks[2 + l]);
        if (j % 4 == 0) {
            shmem_set_lock(&locks[2]);
            shmem_set_lock(&locks[3]);
            v = shmem_long_g(&cnt[2 + NL], 0);
            shmem_long_p(&cnt[2 + NL], v + 1, 0);
            shmem_clear_lock(&locks[3]);
            shmem_clear_lock(&locks[2]);
        }
    }
    shmem_barrier_all();
    if (test_me == 0) {
        for (sum = 0, j = 0; j < NL; j++)
            sum += cnt[2 + j];
        if (sum != (long)test_npes * k)
            test_fail("%d rotating locks: sum of the counters: expected %ld, got %ld", NL,
                      (long)test_npes * k, sum);
        if (cnt[2 + NL] != (long)test_npes * ((k + 3) / 4))
            test_fail("nested locks: counter: expected %ld, got %ld",
                      (long)test_npes * ((k + 3) / 4), cnt[2 + NL]);
    }
    shmem_barrier_all();
    test_note("several locks: ok");

    if (!prov_no_amo) {
        count_under(&glock, &gcount, small ? 5 : k / 2, "global lock (data segment)");
        test_note("lock in the data segment: ok");
    }
    return test_finish();
}
