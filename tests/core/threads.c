/*
 * threads: shmem_init_thread(SHMEM_THREAD_MULTIPLE).  The library must
 * provide MULTIPLE on every provider (where the provider is not safe for
 * concurrent threads the library serializes its calls into it), so a lower
 * level is a failure.  Two pthreads per PE put and get their own ranges of
 * the next PE's block concurrently (on the default context and on a
 * private context of their own) and fetch-add a counter of the next PE
 * that both share, and every value is checked.  The atomics are left out
 * where the provider has none (shm with FABSHMEM_OFI_AMO=native and the
 * direct path off or virtual nodes, as in tests/core/amo.c).
 */
#include "common.h"
#include <pthread.h>

#define NTHREADS 2
#define RANGE 2048
#define ROUNDS 200
#define AMO_ROUNDS 300

static long *sym;
static long *counter;
static int with_amo;

struct worker {
    int id;
    int use_ctx;
    char error[256];
};


static void *worker_main(void *arg)
{
    struct worker *w = arg;
    int next = (test_me + 1) % test_npes, round;
    long *range = sym + (size_t)w->id * RANGE;
    long *src = malloc(RANGE * sizeof(long)), *dst = malloc(RANGE * sizeof(long));
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    long last = -1;
    size_t i, n;

    if (!src || !dst) {
        snprintf(w->error, sizeof(w->error), "thread %d: malloc failed", w->id);
        goto out;
    }
    if (w->use_ctx && shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0)
        ctx = SHMEM_CTX_DEFAULT;
    for (round = 0; round < ROUNDS; round++) {
        int salt = w->id * 100000 + round;

        n = 1 + (size_t)(round * 37) % RANGE;
        for (i = 0; i < n; i++)
            src[i] = test_val(test_me, i, salt);
        if (round & 1)
            shmem_ctx_long_put_nbi(ctx, range, src, n, next);
        else
            shmem_ctx_long_put(ctx, range, src, n, next);
        shmem_ctx_quiet(ctx);
        memset(dst, 0, n * sizeof(long));
        if (round & 2)
            shmem_ctx_long_get(ctx, dst, range, n, next);
        else {
            shmem_ctx_long_get_nbi(ctx, dst, range, n, next);
            shmem_ctx_quiet(ctx);
        }
        for (i = 0; i < n; i++)
            if (dst[i] != src[i]) {
                snprintf(w->error, sizeof(w->error),
                         "thread %d round %d: put then get of %zu longs with PE %d: index %zu: "
                         "expected %ld, got %ld", w->id, round, n, next, i, src[i], dst[i]);
                goto out_ctx;
            }
    }
    /* Both threads add to the same counter of the next PE, interleaved
     * with puts: each sees its own fetched values grow. */
    for (round = 0; with_amo && round < AMO_ROUNDS; round++) {
        long v = shmem_ctx_long_atomic_fetch_add(ctx, counter, 1, next);

        if (v <= last || v >= (long)NTHREADS * AMO_ROUNDS) {
            snprintf(w->error, sizeof(w->error), "thread %d round %d: fetch-add on PE %d "
                     "returned %ld (expected more than %ld and less than %d)", w->id, round,
                     next, v, last, NTHREADS * AMO_ROUNDS);
            goto out_ctx;
        }
        last = v;
        if ((round & 15) == 0)
            shmem_ctx_long_put(ctx, range, src, 1 + (size_t)round % RANGE, next);
    }
    shmem_ctx_quiet(ctx);
    /* Leave the last full range for the owner to check. */
    for (i = 0; i < RANGE; i++)
        src[i] = test_val(test_me, i, w->id);
    shmem_ctx_long_put(ctx, range, src, RANGE, next);
    shmem_ctx_quiet(ctx);
out_ctx:
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
out:
    free(src);
    free(dst);
    return NULL;
}

int main(void)
{
    struct worker w[NTHREADS];
    pthread_t th[NTHREADS];
    int provided = -1, t, pass, prev;
    size_t i;

    test_name = "threads";
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) {
        fprintf(stderr, "FAIL threads: shmem_init_thread(SHMEM_THREAD_MULTIPLE) failed\n");
        return 1;
    }
    test_me = shmem_my_pe();
    test_npes = shmem_n_pes();
    {
        int q = -1;
        shmem_query_thread(&q);
        TEST_ASSERT(q == provided, "shmem_query_thread: expected %d, got %d", provided, q);
    }
    /* No downgrade: a provider that is not thread safe gets its calls
     * serialized by the library. */
    TEST_ASSERT(provided == SHMEM_THREAD_MULTIPLE,
                "shmem_init_thread(SHMEM_THREAD_MULTIPLE): provided %d, expected "
                "SHMEM_THREAD_MULTIPLE (%d)", provided, SHMEM_THREAD_MULTIPLE);
    with_amo = !test_amo_unavailable();
    sym = shmem_calloc((size_t)NTHREADS * RANGE, sizeof(long));
    counter = shmem_calloc(1, sizeof(long));
    TEST_ASSERT(sym != NULL && counter != NULL, "shmem_calloc returned NULL");
    prev = (test_me + test_npes - 1) % test_npes;

    for (pass = 0; pass < 2; pass++) {
        shmem_barrier_all();
        for (t = 0; t < NTHREADS; t++) {
            w[t].id = t;
            w[t].use_ctx = pass;
            w[t].error[0] = '\0';
            TEST_ASSERT(pthread_create(&th[t], NULL, worker_main, &w[t]) == 0, "pthread_create failed");
        }
        for (t = 0; t < NTHREADS; t++)
            pthread_join(th[t], NULL);
        for (t = 0; t < NTHREADS; t++)
            if (w[t].error[0])
                test_fail("%s (%s)", w[t].error, pass ? "private contexts" : "default context");
        shmem_barrier_all();
        for (t = 0; t < NTHREADS; t++)
            for (i = 0; i < RANGE; i++)
                if (sym[(size_t)t * RANGE + i] != test_val(prev, i, t))
                    test_fail("range of thread %d from PE %d (%s): index %zu: expected %lld, got %ld",
                              t, prev, pass ? "private contexts" : "default context", i,
                              test_val(prev, i, t), sym[(size_t)t * RANGE + i]);
        if (with_amo)
            TEST_ASSERT(*counter == (long)NTHREADS * AMO_ROUNDS,
                        "counter from PE %d (%s): expected %ld after %d threads x %d fetch-adds, "
                        "got %ld", prev, pass ? "private contexts" : "default context",
                        (long)NTHREADS * AMO_ROUNDS, NTHREADS, AMO_ROUNDS, *counter);
        shmem_barrier_all();
        memset(sym, 0, (size_t)NTHREADS * RANGE * sizeof(long));
        *counter = 0;
    }
    test_note("%d threads x %d rounds of put/get%s, default and private contexts checked",
              NTHREADS, ROUNDS, with_amo ? " and fetch-adds" : " (no atomics: shm provider)");
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(sym);
    return test_finish();
}
