/*
 * threads: shmem_init_thread(SHMEM_THREAD_MULTIPLE).  When the library
 * provides MULTIPLE, two pthreads per PE put and get their own ranges of
 * the next PE's block concurrently (on the default context and on a
 * private context of their own), and every value is checked.
 */
#include "common.h"
#include <pthread.h>

#define NTHREADS 2
#define RANGE 2048
#define ROUNDS 200

static long *sym;

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
    if (provided != SHMEM_THREAD_MULTIPLE) {
        test_note("SKIP: provided thread level %d, not SHMEM_THREAD_MULTIPLE", provided);
        shmem_finalize();
        return TEST_SKIP;
    }
    sym = shmem_calloc((size_t)NTHREADS * RANGE, sizeof(long));
    TEST_ASSERT(sym != NULL, "shmem_calloc returned NULL");
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
        shmem_barrier_all();
        memset(sym, 0, (size_t)NTHREADS * RANGE * sizeof(long));
    }
    test_note("%d threads x %d rounds, default and private contexts checked", NTHREADS, ROUNDS);
    shmem_barrier_all();
    shmem_free(sym);
    return test_finish();
}
