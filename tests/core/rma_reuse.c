/*
 * rma_reuse: a blocking put leaves its source reusable at return, and the
 * puts that return before they complete (buffered through the provider's
 * registered memory, providers/ofi/ofi_bounce.c) are completed and ordered
 * by quiet, fence and barrier.  Sizes around the inject sizes (64 B over
 * tcp, 4 KiB on shm) and FABSHMEM_OFI_PUT_BUFFERED (64 KiB), and enough of
 * them to fill the endpoint's ring (1 MiB) without a quiet:
 *
 *  1. every PE puts to every PE, overwriting the source right after each
 *     put; after a barrier every PE checks what each PE put into it;
 *  2. the same to the next PE, then shmem_quiet and a get of it all back;
 *  3. put, fence, put of other bytes to the same address: the second wins;
 *     put, fence, flag (a shmem_p, and an atomic add where there are
 *     atomics): the target waits for the flag and then checks the data;
 *  4. case 1 on a context of its own, completed by shmem_ctx_quiet;
 *  5. case 1 from two threads at once (SHMEM_THREAD_MULTIPLE), one on the
 *     default context and one on a private context.
 *
 * A put that returned before its source was copied shows on shm (which
 * reads the source when the target progresses): case 1 then reads the
 * garbage written after the put.  tcp;ofi_rxm over loopback happens to
 * consume the source inside its post, so there it would pass anyway.
 */
#include "common.h"
#include <pthread.h>

#define SPAN ((size_t)2 << 20) /* bytes each PE puts into each PE per size */
#define MAXK 200               /* puts per size and target at most */
#define GARBAGE 0xEE

static const size_t sizes[] = { 1,    63,   64,   65,    128,   1000,  4095,  4096,
                                4097, 8191, 8192, 8193,  65535, 65536, 65537, 200000 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static int with_amo;

/* Puts of size bytes per target in one round. */
static size_t puts_of(size_t size)
{
    size_t k = SPAN / size;

    return k > MAXK ? MAXK : k < 8 ? 8 : k;
}

/* The byte that PE pe puts at byte i of put k of round salt (never the
 * zero fill nor GARBAGE). */
static unsigned char val(int pe, size_t k, size_t i, int salt)
{
    return (unsigned char)test_val(pe, i + k * 7, salt);
}

static void fill(unsigned char *src, size_t size, int pe, size_t k, int salt)
{
    size_t i;

    for (i = 0; i < size; i++)
        src[i] = val(pe, k, i, salt);
}

/* Puts puts_of(size) pieces of size bytes from source PE me into its
 * slot of area (SPAN bytes at me * SPAN, whatever the size, so that PEs
 * at different sizes never share bytes) on each target of [first, first
 * + count), each from the same buffer src overwritten right after the
 * put. */
static void put_all(shmem_ctx_t ctx, unsigned char *area, unsigned char *src, size_t size,
                    int first, int count, int salt)
{
    size_t k, n = puts_of(size);
    int j;

    for (j = 0; j < count; j++) {
        int t = (first + j) % test_npes;
        unsigned char *d = area + (size_t)test_me * SPAN;
        for (k = 0; k < n; k++) {
            fill(src, size, test_me, k, salt);
            shmem_ctx_putmem(ctx, d + k * size, src, size, t);
            memset(src, GARBAGE, size);
        }
    }
}

/* Checks r, the slot of PE s: what it put (what: the case, for the
 * message). */
static void check_slot(const unsigned char *r, size_t size, int s, int salt, const char *what)
{
    size_t k, i, n = puts_of(size);

    for (k = 0; k < n; k++)
        for (i = 0; i < size; i++)
            if (r[k * size + i] != val(s, k, i, salt))
                test_fail("%s: %zu-byte put %zu of %zu from PE %d: byte %zu: expected %u, got "
                          "%u%s", what, size, k, n, s, i, val(s, k, i, salt), r[k * size + i],
                          r[k * size + i] == GARBAGE ? " (the source after the put returned)"
                                                      : "");
}

/* Cases 1 and 4: every PE to every PE on ctx, completed by quiet on ctx
 * and a barrier; every PE checks every slot. */
static void case_all(shmem_ctx_t ctx, unsigned char *area, unsigned char *src, int salt,
                     const char *what)
{
    size_t z;
    int s;

    for (z = 0; z < NSIZES; z++, salt++) {
        memset(area, 0, SPAN * (size_t)test_npes);
        shmem_barrier_all();
        put_all(ctx, area, src, sizes[z], 0, test_npes, salt);
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
        for (s = 0; s < test_npes; s++)
            check_slot(area + (size_t)s * SPAN, sizes[z], s, salt, what);
    }
}

/* Case 2: to the next PE, shmem_quiet, then read it all back. */
static void case_quiet_get(unsigned char *area, unsigned char *src, unsigned char *back, int salt)
{
    int next = (test_me + 1) % test_npes;
    size_t z, n;

    for (z = 0; z < NSIZES; z++, salt++) {
        n = puts_of(sizes[z]);
        shmem_barrier_all();
        put_all(SHMEM_CTX_DEFAULT, area, src, sizes[z], next, 1, salt);
        shmem_quiet();
        memset(back, 0, n * sizes[z]);
        shmem_getmem(back, area + (size_t)test_me * SPAN, n * sizes[z], next);
        check_slot(back, sizes[z], test_me, salt, "put, quiet, get back");
    }
    /* (The next case clears its area: not before every get is done.) */
    shmem_barrier_all();
}

/* Case 3: ordering by fence. */
static void case_fence(unsigned char *area, unsigned char *src, long *flag, int salt)
{
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    size_t z, i, zb;
    long round = 0;

    /* put A, fence, put B (another size class) to the same address. */
    for (z = 0; z < NSIZES; z++, salt++) {
        size_t a = sizes[z], b = sizes[(z * 5 + 3) % NSIZES], len = a > b ? a : b;
        memset(area, 0, len);
        shmem_barrier_all();
        fill(src, len, test_me, 0, salt);
        shmem_putmem(area, src, a, next);
        memset(src, GARBAGE, len);
        shmem_fence();
        fill(src, len, test_me, 1, salt);
        shmem_putmem(area, src, b, next);
        memset(src, GARBAGE, len);
        shmem_barrier_all();
        for (i = 0; i < len; i++) {
            unsigned char e = i < b ? val(prev, 1, i, salt) : i < a ? val(prev, 0, i, salt) : 0;
            if (area[i] != e)
                test_fail("put of %zu bytes, fence, put of %zu bytes to the same address, from "
                          "PE %d: byte %zu: expected %u, got %u", a, b, prev, i, e, area[i]);
        }
    }
    /* Data, fence, flag: the target checks the data as soon as the flag
     * comes (no barrier between).  The flag by shmem_p and, where there
     * are atomics, by an atomic add. */
    for (zb = 0; zb < (with_amo ? 2u : 1u); zb++)
        for (z = 0; z < NSIZES; z++, salt++) {
            size_t n = sizes[z];
            shmem_barrier_all();
            round++;
            for (i = 0; i < 4; i++) {
                fill(src, n, test_me, i, salt);
                shmem_putmem(area + i * n, src, n, next);
                memset(src, GARBAGE, n);
            }
            shmem_fence();
            if (zb)
                shmem_long_atomic_add(flag, 1, next);
            else
                shmem_long_p(flag, round, next);
            shmem_long_wait_until(flag, SHMEM_CMP_GE, round);
            for (i = 0; i < 4 * n; i++)
                if (area[i] != val(prev, i / n, i % n, salt))
                    test_fail("4 puts of %zu bytes, fence, flag by %s, from PE %d: byte %zu: "
                              "expected %u, got %u", n, zb ? "atomic add" : "shmem_p", prev, i,
                              val(prev, i / n, i % n, salt), area[i]);
            /* (The adds count on from the round the last shmem_p set.) */
            shmem_barrier_all();
        }
}

struct worker {
    unsigned char *area;
    int id, salt;
    char error[256];
};

/* Case 5: one thread's puts to every PE (thread 1 on a private context),
 * into the half of the area that is its own. */
#define THREAD_AREA (SPAN * (size_t)test_npes)
static void *worker_main(void *arg)
{
    struct worker *w = arg;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    unsigned char *src = malloc(sizes[NSIZES - 1]);
    size_t z;

    if (!src) {
        snprintf(w->error, sizeof(w->error), "thread %d: malloc failed", w->id);
        return NULL;
    }
    if (w->id == 1 && shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0)
        ctx = SHMEM_CTX_DEFAULT;
    for (z = 0; z < NSIZES; z++) {
        put_all(ctx, w->area + (size_t)w->id * THREAD_AREA, src, sizes[z], 0, test_npes,
                w->salt + (int)z);
        /* Between the sizes the slots are reused: complete them first
         * (the barrier after the threads covers only the default
         * context's last puts). */
        shmem_ctx_quiet(ctx);
        shmem_quiet();
    }
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    free(src);
    return NULL;
}

static void case_threads(unsigned char *area, int salt)
{
    struct worker w[2];
    pthread_t th[2];
    size_t z;
    int t, s;

    memset(area, 0, 2 * THREAD_AREA);
    shmem_barrier_all();
    for (t = 0; t < 2; t++) {
        w[t] = (struct worker){ .area = area, .id = t, .salt = salt + 1000 * t };
        TEST_ASSERT(pthread_create(&th[t], NULL, worker_main, &w[t]) == 0,
                    "pthread_create failed");
    }
    for (t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    for (t = 0; t < 2; t++)
        TEST_ASSERT(!w[t].error[0], "%s", w[t].error);
    shmem_barrier_all();
    /* Each thread's last size is what its slots hold. */
    z = NSIZES - 1;
    for (t = 0; t < 2; t++)
        for (s = 0; s < test_npes; s++)
            check_slot(area + (size_t)t * THREAD_AREA + (size_t)s * SPAN,
                       sizes[z], s, salt + 1000 * t + (int)z,
                       t ? "thread on a private context" : "thread on the default context");
}

int main(void)
{
    unsigned char *area, *src, *back;
    shmem_ctx_t ctx;
    long *flag;
    int provided = -1;

    test_name = "rma_reuse";
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 ||
        provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "FAIL rma_reuse: shmem_init_thread(SHMEM_THREAD_MULTIPLE) gave %d\n",
                provided);
        return 1;
    }
    test_me = shmem_my_pe();
    test_npes = shmem_n_pes();
    with_amo = !test_amo_unavailable();
    /* Room for every PE's slots, twice (case 5: two threads). */
    area = shmem_malloc(2 * SPAN * (size_t)test_npes);
    flag = shmem_calloc(1, sizeof(long));
    src = malloc(SPAN);
    back = malloc(SPAN);
    TEST_ASSERT(area && flag && src && back, "allocation of %zu bytes failed",
                2 * SPAN * (size_t)test_npes);

    case_all(SHMEM_CTX_DEFAULT, area, src, 1, "every PE to every PE, barrier");
    test_note("case 1: puts to every PE with the source overwritten at once, %zu sizes, checked",
              NSIZES);
    case_quiet_get(area, src, back, 100);
    test_note("case 2: put, quiet, get back checked");
    case_fence(area, src, flag, 200);
    test_note("case 3: put-fence-put and put-fence-flag%s checked",
              with_amo ? " (shmem_p and atomic add)" : " (shmem_p)");
    TEST_ASSERT(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
    case_all(ctx, area, src, 300, "every PE to every PE on a context, ctx_quiet, barrier");
    shmem_ctx_destroy(ctx);
    test_note("case 4: the same on a context of its own checked");
    case_threads(area, 400);
    test_note("case 5: two threads (default and private context) checked");

    shmem_barrier_all();
    free(back);
    free(src);
    shmem_free(flag);
    shmem_free(area);
    return test_finish();
}
