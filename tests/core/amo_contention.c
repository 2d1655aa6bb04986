/*
 * The atomic memory operations under contention: all PEs on the same words
 * of PE 0.  fetch_add counters (32- and 64-bit, heap and global) end exact,
 * fetch_inc tickets are all distinct, a compare_swap spin lock guarding a
 * non-atomic get-increment-put counter gives an exact count, and a swap
 * chain loses and duplicates no value; the last part mixes fetch_add,
 * compare_swap and inc increments on one word.  In the vnode mode of
 * run.sh (FABSHMEM_PES_PER_NODE=2, 4 PEs) some PEs share a node with PE 0
 * and others do not, which checks the atomicity rule of shmemi.h: every
 * AMO on a word takes one path.
 */
#include "common.h"

static long g_counter; /* a global (data segment) counter */


/* Check that vals[0..n) holds every value of lo..lo+n-1 once. */
static void check_permutation(const char *what, const uint64_t *vals, size_t n, uint64_t lo)
{
    unsigned char *seen = calloc(n, 1);

    TEST_ASSERT(seen != NULL, "calloc failed");
    for (size_t i = 0; i < n; i++) {
        uint64_t v = vals[i] - lo;
        if (vals[i] < lo || v >= n)
            test_fail("%s: value %llu at index %zu is out of range [%llu, %llu)", what,
                      (unsigned long long)vals[i], i, (unsigned long long)lo,
                      (unsigned long long)(lo + n));
        if (seen[v])
            test_fail("%s: value %llu appears twice (index %zu)", what,
                      (unsigned long long)vals[i], i);
        seen[v] = 1;
    }
    free(seen);
}

struct words {
    long c64;           /* fetch_add counter */
    int c32;            /* fetch_add counter, 32-bit */
    int lock;           /* compare_swap spin lock */
    long guarded;       /* counter under the lock (get, +1, put) */
    uint64_t t64;       /* fetch_inc tickets */
    unsigned int t32;   /* fetch_inc tickets, 32-bit */
    unsigned int s32;   /* swap chain, 32-bit */
    uint64_t s64;       /* swap chain, 64-bit */
    unsigned long long mixed; /* fetch_add, compare_swap and swap increments */
};

int main(void)
{
    const char *prov = getenv("FABSHMEM_PROVIDER");
    int K, L, n, me, global_ok;
    struct words *w;
    uint64_t *tick64, *tick32, *sw32, *sw64, *mytick;
    double t0;

    test_init("amo_contention");
    if (test_amo_unavailable()) {
        if (test_me == 0)
            printf("amo_contention: SKIP: provider %s has no atomics with FABSHMEM_OFI_AMO=native "
                   "(direct path off or vnode mode)\n", getenv("FABSHMEM_PROVIDER"));
        fflush(stdout);
        shmem_finalize();
        return TEST_SKIP;
    }
    n = test_npes;
    me = test_me;
    K = (prov && strcmp(prov, "sockets") == 0) ? 50 : 2000;
    L = K / 10 > 0 ? K / 10 : 1;
    global_ok = !(n > 1 && test_prov_no_amo());
    t0 = test_now();

    w = shmem_calloc(1, sizeof(*w));
    tick64 = shmem_calloc((size_t)n * K, sizeof(uint64_t));
    tick32 = shmem_calloc((size_t)n * K, sizeof(uint64_t));
    sw32 = shmem_calloc((size_t)n * K + 1, sizeof(uint64_t));
    sw64 = shmem_calloc((size_t)n * K + 1, sizeof(uint64_t));
    mytick = malloc((size_t)K * sizeof(uint64_t));
    TEST_ASSERT(w && tick64 && tick32 && sw32 && sw64 && mytick, "allocation failed");
    shmem_barrier_all();

    /* fetch_add: exact totals; each PE's fetched values increase. */
    {
        long prev64 = -1;
        int prev32 = -1;
        for (int i = 0; i < K; i++) {
            long v = shmem_long_atomic_fetch_add(&w->c64, 1, 0);
            int v32 = shmem_int_atomic_fetch_add(&w->c32, me + 1, 0);
            if (v <= prev64 || v32 <= prev32)
                test_fail("atomic_fetch_add: iteration %d fetched %ld/%d after %ld/%d", i, v,
                          v32, prev64, prev32);
            prev64 = v;
            prev32 = v32;
            if (global_ok)
                shmem_long_atomic_add(&g_counter, 2, 0);
        }
        shmem_quiet();
        shmem_barrier_all();
        TEST_CHECK("shmem_long_atomic_fetch_add total on PE 0", 0, (long)n * K,
                   shmem_long_atomic_fetch(&w->c64, 0));
        TEST_CHECK("shmem_int_atomic_fetch_add total on PE 0", 0, K * n * (n + 1) / 2,
                   shmem_int_atomic_fetch(&w->c32, 0));
        if (global_ok)
            TEST_CHECK("shmem_long_atomic_add total on a global of PE 0", 0, 2L * n * K,
                       shmem_long_atomic_fetch(&g_counter, 0));
    }

    /* fetch_inc tickets, gathered on PE 0 with puts: all distinct. */
    for (int i = 0; i < K; i++)
        mytick[i] = shmem_uint64_atomic_fetch_inc(&w->t64, 0);
    shmem_uint64_put(tick64 + (size_t)me * K, mytick, K, 0);
    for (int i = 0; i < K; i++)
        mytick[i] = shmem_uint_atomic_fetch_inc(&w->t32, 0);
    shmem_uint64_put(tick32 + (size_t)me * K, mytick, K, 0);
    shmem_barrier_all();
    if (me == 0) {
        check_permutation("shmem_uint64_atomic_fetch_inc tickets", tick64, (size_t)n * K, 0);
        check_permutation("shmem_uint_atomic_fetch_inc tickets", tick32, (size_t)n * K, 0);
    }

    /* A compare_swap spin lock around get, +1, put. */
    for (int i = 0; i < L; i++) {
        long v;
        while (shmem_int_atomic_compare_swap(&w->lock, 0, me + 1, 0) != 0)
            ;
        v = shmem_long_g(&w->guarded, 0);
        shmem_long_p(&w->guarded, v + 1, 0);
        shmem_quiet();
        TEST_CHECK("spin lock: shmem_int_atomic_swap release", i, me + 1,
                   shmem_int_atomic_swap(&w->lock, 0, 0));
    }
    shmem_barrier_all();
    TEST_CHECK("counter under a compare_swap spin lock", 0, (long)n * L,
               shmem_long_g(&w->guarded, 0));

    /* Swap chains: the fetched values plus the last one are exactly the
     * initial 0 and every value swapped in. */
    for (int i = 0; i < K; i++) {
        unsigned int v = (unsigned int)(me * K + i + 1);
        mytick[i] = shmem_uint_atomic_swap(&w->s32, v, 0);
    }
    shmem_uint64_put(sw32 + (size_t)me * K, mytick, K, 0);
    for (int i = 0; i < K; i++) {
        uint64_t v = (uint64_t)(me * K + i + 1);
        mytick[i] = shmem_uint64_atomic_swap(&w->s64, (v << 32) | v, 0);
        if (mytick[i] != 0 && (mytick[i] >> 32) != (mytick[i] & 0xffffffffu))
            test_fail("shmem_uint64_atomic_swap: torn value %#llx",
                      (unsigned long long)mytick[i]);
        mytick[i] &= 0xffffffffu;
    }
    shmem_uint64_put(sw64 + (size_t)me * K, mytick, K, 0);
    shmem_barrier_all();
    if (me == 0) {
        sw32[(size_t)n * K] = shmem_uint_atomic_fetch(&w->s32, 0);
        sw64[(size_t)n * K] = shmem_uint64_atomic_fetch(&w->s64, 0) & 0xffffffffu;
        check_permutation("shmem_uint_atomic_swap chain", sw32, (size_t)n * K + 1, 0);
        check_permutation("shmem_uint64_atomic_swap chain", sw64, (size_t)n * K + 1, 0);
    }

    /* Mixed ops on one word: fetch_add, compare_swap-loop and inc
     * increments (swap mixes with compare_swap on the lock word above). */
    for (int i = 0; i < L; i++) {
        unsigned long long old, seen;
        shmem_ulonglong_atomic_fetch_add(&w->mixed, 1, 0);
        old = shmem_ulonglong_atomic_fetch(&w->mixed, 0);
        while ((seen = shmem_ulonglong_atomic_compare_swap(&w->mixed, old, old + 1, 0)) != old)
            old = seen;
        shmem_ulonglong_atomic_inc(&w->mixed, 0);
    }
    shmem_quiet();
    shmem_barrier_all();
    TEST_CHECK("mixed fetch_add/compare_swap/inc total", 0, 3ULL * n * L,
               shmem_ulonglong_atomic_fetch(&w->mixed, 0));
    test_note("K=%d, %.2f s", K, test_now() - t0);

    shmem_barrier_all();
    free(mytick);
    shmem_free(sw64);
    shmem_free(sw32);
    shmem_free(tick32);
    shmem_free(tick64);
    shmem_free(w);
    return test_finish();
}
