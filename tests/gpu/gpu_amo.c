/*
 * gpu_amo: the host API's atomics and signals on GPU memory of the device
 * heap (docs/gpu.md, "Atomics on device memory"), from every PE to every
 * PE, checked on every PE: mapped peers (the GPU's atomic through the
 * mapping) and unmapped ones (the target's staging thread runs it on its
 * GPU) alike.
 *
 *  - Every standard AMO type: set, fetch, add, fetch_add, inc, fetch_inc,
 *    swap, compare_swap (failing and succeeding), fetch_add_nbi and
 *    fetch_nbi with a quiet, and the ctx_ forms on a created context; each
 *    fetched value checked by the caller, the final word by its owner.
 *  - Every bitwise type: and, or, xor and their fetch_ forms, the results
 *    against the same operations on the CPU.
 *  - float and double: set, fetch, swap, swap_nbi (as bits).
 *  - Contention: every PE fetch_adds 1 a hundred times on one 64-bit word
 *    of PE 0 and fetch_incs one 32-bit word of the last PE: the words hold
 *    the exact counts, and the fetched values, gathered, are each of
 *    0 .. count - 1 once.
 *  - Signals in GPU memory: put with signal (device data, SHMEM_SIGNAL_ADD;
 *    host data, SHMEM_SIGNAL_SET) and shmem_signal_add to every PE; the
 *    target polls with shmem_signal_fetch (a GPU load) and, once it sees
 *    the signal, checks the data.
 *  - Host waits and tests on device words (the GPU copies them for the
 *    CPU): every PE sets its word and its int on every PE by AMOs (PE 0
 *    late), and every PE waits with wait_until, the all, any and some
 *    forms and the all vector form, tests each form, and waits with
 *    signal_wait_until for the sum of every PE's signal add.
 *  - Refusals naming the routine: a misaligned device word, a PE out of
 *    range, a misaligned device signal word.
 *
 * Without a device heap it exits 77.
 */
#include "common.h"
#include <shmemx.h>
#include "gpu/gpu_kern.h"

/* The 64-bit slots of one source PE in the block of every target. */
enum { S_STD = 0, S_BIT = 12, S_FLT = 19, S_DBL = 20, S_N = 24 };
#define NCONT 100
#define DLEN 64

static int me, npes;
static shmem_ctx_t ctx;

static void must(int rc, const char *what)
{
    if (rc)
        test_fail("%s: %s", what, gpu_error(rc));
}

/* The slot of source s in a block of 64-bit slots. */
static void *slot(uint64_t *blk, int s, int k)
{
    return blk + (size_t)s * S_N + k;
}

/* The standard types: the sequence of the header on the word w of PE t;
 * the final value is std_final(a). */
#define STD_SEQ(T, TN)                                                                           \
    static void std_##TN(T *w, int t)                                                            \
    {                                                                                            \
        T a = (T)(100 * me + t + 1), b = (T)(a + 1000), c = (T)(a + 2000), r;                    \
        const char *what = "shmem_" #TN "_atomic_*";                                             \
        shmem_##TN##_atomic_set(w, a, t);                                                        \
        TEST_CHECK(what, 1, a, shmem_##TN##_atomic_fetch(w, t));                                 \
        shmem_##TN##_atomic_add(w, (T)3, t);                                                     \
        TEST_CHECK(what, 2, (T)(a + 3), shmem_##TN##_atomic_fetch_add(w, (T)5, t));              \
        shmem_##TN##_atomic_inc(w, t);                                                           \
        TEST_CHECK(what, 3, (T)(a + 9), shmem_##TN##_atomic_fetch_inc(w, t));                    \
        TEST_CHECK(what, 4, (T)(a + 10), shmem_##TN##_atomic_swap(w, b, t));                     \
        TEST_CHECK(what, 5, b, shmem_##TN##_atomic_compare_swap(w, (T)(b + 1), c, t));           \
        TEST_CHECK(what, 6, b, shmem_ctx_##TN##_atomic_compare_swap(ctx, w, b, c, t));           \
        r = 0;                                                                                   \
        shmem_##TN##_atomic_fetch_add_nbi(&r, w, (T)7, t);                                       \
        shmem_quiet();                                                                           \
        TEST_CHECK(what, 7, c, r);                                                               \
        TEST_CHECK(what, 8, (T)(c + 7), shmem_ctx_##TN##_atomic_fetch(ctx, w, t));               \
        r = 0;                                                                                   \
        shmem_ctx_##TN##_atomic_fetch_nbi(ctx, &r, w, t);                                        \
        shmem_ctx_quiet(ctx);                                                                    \
        TEST_CHECK(what, 9, (T)(c + 7), r);                                                      \
    }                                                                                            \
    static void std_check_##TN(const uint64_t *host, int k)                                      \
    {                                                                                            \
        T got, want;                                                                             \
        int s;                                                                                   \
        for (s = 0; s < npes; s++) {                                                             \
            memcpy(&got, host + (size_t)s * S_N + k, sizeof(T));                                 \
            want = (T)((T)(100 * s + me + 1) + 2000 + 7);                                        \
            TEST_CHECK("the final " #TN " word of a source PE", s, want, got);                   \
        }                                                                                        \
    }

/* The bitwise types: and, or, xor, fetch_and, fetch_or, fetch_xor on w of
 * PE t, against the same operations on e. */
#define BIT_SEQ(T, TN)                                                                           \
    static T bit_start_##TN(int s, int t)                                                        \
    {                                                                                            \
        return (T)(0xA5A5u ^ ((unsigned)s << 8) ^ (unsigned)t);                                  \
    }                                                                                            \
    static T bit_final_##TN(int s, int t)                                                        \
    {                                                                                            \
        T e = bit_start_##TN(s, t);                                                              \
        e = (T)(e & (T)0xFF0Fu);                                                                 \
        e = (T)(e | (T)0x0030u);                                                                 \
        e = (T)(e ^ (T)0x1101u);                                                                 \
        e = (T)(e & (T)0xF7FFu);                                                                 \
        e = (T)(e | (T)((unsigned)t << 12));                                                     \
        e = (T)(e ^ (T)0x0A0Au);                                                                 \
        return e;                                                                                \
    }                                                                                            \
    static void bit_##TN(T *w, int t)                                                            \
    {                                                                                            \
        T e = bit_start_##TN(me, t);                                                             \
        const char *what = "shmem_" #TN "_atomic_fetch_{and,or,xor}";                            \
        shmem_##TN##_atomic_set(w, e, t);                                                        \
        shmem_##TN##_atomic_and(w, (T)0xFF0Fu, t);                                               \
        e = (T)(e & (T)0xFF0Fu);                                                                 \
        shmem_ctx_##TN##_atomic_or(ctx, w, (T)0x0030u, t);                                       \
        e = (T)(e | (T)0x0030u);                                                                 \
        shmem_##TN##_atomic_xor(w, (T)0x1101u, t);                                               \
        e = (T)(e ^ (T)0x1101u);                                                                 \
        TEST_CHECK(what, 1, e, shmem_##TN##_atomic_fetch_and(w, (T)0xF7FFu, t));                 \
        e = (T)(e & (T)0xF7FFu);                                                                 \
        TEST_CHECK(what, 2, e, shmem_##TN##_atomic_fetch_or(w, (T)((unsigned)t << 12), t));     \
        e = (T)(e | (T)((unsigned)t << 12));                                                     \
        TEST_CHECK(what, 3, e, shmem_ctx_##TN##_atomic_fetch_xor(ctx, w, (T)0x0A0Au, t));        \
        e = (T)(e ^ (T)0x0A0Au);                                                                 \
        TEST_CHECK(what, 4, e, shmem_##TN##_atomic_fetch(w, t));                                 \
        TEST_CHECK(what, 5, bit_final_##TN(me, t), e);                                           \
    }                                                                                            \
    static void bit_check_##TN(const uint64_t *host, int k)                                      \
    {                                                                                            \
        T got;                                                                                   \
        int s;                                                                                   \
        for (s = 0; s < npes; s++) {                                                             \
            memcpy(&got, host + (size_t)s * S_N + k, sizeof(T));                                 \
            TEST_CHECK("the final bitwise " #TN " word of a source PE", s,                       \
                       bit_final_##TN(s, me), got);                                              \
        }                                                                                        \
    }

#define STD_TYPES(X)                                                                             \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                       \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)                   \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)                    \
    X(ptrdiff_t, ptrdiff)
#define BIT_TYPES(X)                                                                             \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)               \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

STD_TYPES(STD_SEQ)
BIT_TYPES(BIT_SEQ)

/* float and double (the extended types): set, fetch, swap, swap_nbi. */
static void ext_seq(uint64_t *blk, int t)
{
    float *f = slot(blk, me, S_FLT), fr = 0;
    double *d = slot(blk, me, S_DBL), dr = 0;
    float f0 = 1.5f + (float)me, f1 = 2.25f + (float)(4 * me + t);
    double d0 = 0.125 + me, d1 = 1e10 + 3 * me + t;

    shmem_float_atomic_set(f, f0, t);
    shmem_ctx_double_atomic_set(ctx, d, d0, t);
    TEST_CHECK("shmem_float_atomic_fetch", t, f0, shmem_float_atomic_fetch(f, t));
    TEST_CHECK("shmem_double_atomic_swap", t, d0, shmem_double_atomic_swap(d, d1, t));
    TEST_CHECK("shmem_float_atomic_swap", t, f0, shmem_float_atomic_swap(f, (float)t, t));
    shmem_float_atomic_swap_nbi(&fr, f, f1, t);
    shmem_double_atomic_fetch_nbi(&dr, d, t);
    shmem_quiet();
    TEST_CHECK("shmem_float_atomic_swap_nbi", t, (float)t, fr);
    TEST_CHECK("shmem_double_atomic_fetch_nbi", t, d1, dr);
}

static void ext_check(const uint64_t *host)
{
    float f;
    double d;
    int s;

    for (s = 0; s < npes; s++) {
        memcpy(&f, host + (size_t)s * S_N + S_FLT, sizeof(f));
        memcpy(&d, host + (size_t)s * S_N + S_DBL, sizeof(d));
        TEST_CHECK("the final float word of a source PE", s, 2.25f + (float)(4 * s + me), f);
        TEST_CHECK("the final double word of a source PE", s, 1e10 + 3 * s + me, d);
    }
}

/* Every type and operation from this PE to every PE, then each owner
 * checks the words of every source in its block. */
static void all_types(uint64_t *blk, uint64_t *host)
{
    int t, k;

    for (t = 0; t < npes; t++) {
        k = S_STD;
#define STD_RUN(T, TN) std_##TN((T *)slot(blk, me, k++), t);
        STD_TYPES(STD_RUN)
        k = S_BIT;
#define BIT_RUN(T, TN) bit_##TN((T *)slot(blk, me, k++), t);
        BIT_TYPES(BIT_RUN)
        ext_seq(blk, t);
    }
    shmem_barrier_all();
    must(gpu_copy(host, blk, sizeof(uint64_t) * S_N * (size_t)npes), "cudaMemcpy of the block");
    k = S_STD;
#define STD_CHK(T, TN) std_check_##TN(host, k++);
    STD_TYPES(STD_CHK)
    k = S_BIT;
#define BIT_CHK(T, TN) bit_check_##TN(host, k++);
    BIT_TYPES(BIT_CHK)
    ext_check(host);
    shmem_barrier_all();
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;

    return x < y ? -1 : x > y;
}

/* Each of 0 .. n - 1 exactly once in v[0 .. n). */
static void check_unique(long long *v, size_t n, const char *what)
{
    size_t i;

    qsort(v, n, sizeof(*v), cmp_ll);
    for (i = 0; i < n; i++)
        TEST_CHECK(what, i, (long long)i, v[i]);
}

/* Every PE fetch_adds on one word of PE 0 and fetch_incs one 32-bit word
 * of the last PE. */
static void contention(uint64_t *cnt)
{
    long long *mine = shmem_malloc(2 * NCONT * sizeof(long long));
    long long *all = shmem_malloc(2 * NCONT * sizeof(long long) * (size_t)npes);
    uint32_t *c32 = (uint32_t *)(cnt + 1);
    size_t total = (size_t)NCONT * (size_t)npes, i;
    uint64_t got[2];
    int last = npes - 1;

    TEST_ASSERT(mine && all, "shmem_malloc of the contention's results");
    for (i = 0; i < NCONT; i++) {
        mine[i] = (long long)shmem_uint64_atomic_fetch_add(cnt, 1, 0);
        mine[NCONT + i] = (long long)shmem_uint32_atomic_fetch_inc(c32, last);
    }
    shmem_barrier_all();
    TEST_ASSERT(shmem_fcollectmem(SHMEM_TEAM_WORLD, all, mine, 2 * NCONT * sizeof(long long)) == 0,
                "fcollect of the fetched values");
    {
        long long *a = malloc(sizeof(long long) * total), *b = malloc(sizeof(long long) * total);
        int p;
        TEST_ASSERT(a && b, "malloc");
        for (p = 0; p < npes; p++)
            for (i = 0; i < NCONT; i++) {
                a[(size_t)p * NCONT + i] = all[(size_t)p * 2 * NCONT + i];
                b[(size_t)p * NCONT + i] = all[(size_t)p * 2 * NCONT + NCONT + i];
            }
        check_unique(a, total, "the values fetch_add fetched on PE 0's word, sorted");
        check_unique(b, total, "the values fetch_inc fetched on the last PE's word, sorted");
        free(a);
        free(b);
    }
    must(gpu_copy(got, cnt, sizeof(got)), "cudaMemcpy of the counters");
    if (me == 0)
        TEST_CHECK("the 64-bit counter of PE 0", 0, total, got[0]);
    if (me == last) /* c32 is the low half of got[1] */
        TEST_CHECK("the 32-bit counter of the last PE", 0, total, (uint32_t)got[1]);
    shmem_barrier_all();
    shmem_free(all);
    shmem_free(mine);
}

/* Signals in GPU memory from every PE to every PE.  sig: 3 words a source
 * (device), ddata/hdata: DLEN bytes a source (device, host). */
static void signals(uint64_t *sig, char *ddata, char *hdata, char *dsrc)
{
    unsigned char hsrc[DLEN], hb[DLEN];
    unsigned long it;
    uint64_t v;
    long long bad;
    int t, s, i;

    must(gpu_fill(dsrc, DLEN, 7000u + (unsigned)me), "gpu_fill");
    for (i = 0; i < DLEN; i++)
        hsrc[i] = (unsigned char)(me * 31 + i);
    for (t = 0; t < npes; t++) {
        shmem_putmem_signal(ddata + (size_t)me * DLEN, dsrc, DLEN, sig + 3 * me, 1,
                            SHMEM_SIGNAL_ADD, t);
        shmem_ctx_putmem_signal_nbi(ctx, hdata + (size_t)me * DLEN, hsrc, DLEN, sig + 3 * me + 1,
                                    (uint64_t)(42 + me), SHMEM_SIGNAL_SET, t);
        shmem_signal_add(sig + 3 * me + 2, (uint64_t)(me + 5), t);
        shmem_signal_add(sig + 3 * me + 2, 1, t);
    }
    shmem_ctx_quiet(ctx);
    for (s = 0; s < npes; s++) {
        for (it = 0; (v = shmem_signal_fetch(sig + 3 * s)) != 1; it++)
            TEST_ASSERT(v == 0 && it < 100000000ul, "signal of PE %d: %llu", s,
                        (unsigned long long)v);
        bad = gpu_find_mismatch(ddata + (size_t)s * DLEN, DLEN, 7000u + (unsigned)s);
        TEST_ASSERT(bad == -1, "put with signal of PE %d (device data): %s at byte %lld", s,
                    bad == -2 ? "a CUDA error" : "wrong data", bad);
        for (it = 0; (v = shmem_signal_fetch(sig + 3 * s + 1)) != (uint64_t)(42 + s); it++)
            TEST_ASSERT(v == 0 && it < 100000000ul, "signal of PE %d (host data): %llu", s,
                        (unsigned long long)v);
        memcpy(hb, hdata + (size_t)s * DLEN, DLEN);
        for (i = 0; i < DLEN; i++)
            TEST_CHECK("put with signal (host data) seen at the signal", i,
                       (unsigned char)(s * 31 + i), hb[i]);
        for (it = 0; (v = shmem_signal_fetch(sig + 3 * s + 2)) != (uint64_t)(s + 6); it++)
            TEST_ASSERT(v <= (uint64_t)(s + 5) && it < 100000000ul, "shmem_signal_add of PE %d: "
                        "%llu", s, (unsigned long long)v);
    }
    shmem_barrier_all();
}

/* Host waits and tests on words of the device heap: w (npes uint64) and
 * iw (npes ints) zeroed, dsig one zeroed uint64. */
static void waits(uint64_t *w, int *iw, uint64_t *dsig)
{
    int want[64], status[64];
    size_t idx[64], r;
    int s, t;

    TEST_ASSERT(npes <= 64, "at most 64 PEs");
    for (s = 0; s < npes; s++) {
        want[s] = 100 + s;
        status[s] = s != npes - 1;
    }
    TEST_ASSERT(!shmem_uint64_test(&w[me], SHMEM_CMP_EQ, (uint64_t)me + 7),
                "shmem_uint64_test on a device word true before its AMO");
    TEST_ASSERT(!shmem_int_test_all(iw, (size_t)npes, NULL, SHMEM_CMP_GE, 100),
                "shmem_int_test_all on device words true before their AMOs");
    shmem_barrier_all();
    if (me == 0)
        usleep(50000); /* the others wait */
    for (t = 0; t < npes; t++) {
        shmem_uint64_atomic_set(&w[me], (uint64_t)me + 7, t);
        shmem_int_atomic_set(&iw[me], 100 + me, t);
        shmem_signal_add(dsig, (uint64_t)me + 1, t);
    }
    for (s = 0; s < npes; s++) {
        shmem_uint64_wait_until(&w[s], SHMEM_CMP_EQ, (uint64_t)s + 7);
        TEST_ASSERT(shmem_uint64_test(&w[s], SHMEM_CMP_EQ, (uint64_t)s + 7),
                    "shmem_uint64_test of PE %d's device word after its wait", s);
    }
    shmem_int_wait_until_all(iw, (size_t)npes, NULL, SHMEM_CMP_GE, 100);
    shmem_int_wait_until_all_vector(iw, (size_t)npes, NULL, SHMEM_CMP_EQ, want);
    r = shmem_int_wait_until_any(iw, (size_t)npes, status, SHMEM_CMP_EQ, 100 + npes - 1);
    TEST_CHECK("shmem_int_wait_until_any on device words (all but the last excluded)", 0,
               npes - 1, r);
    r = shmem_int_wait_until_some(iw, (size_t)npes, idx, NULL, SHMEM_CMP_GE, 100);
    TEST_CHECK("shmem_int_wait_until_some on device words: how many", 0, npes, r);
    for (s = 0; s < npes; s++)
        TEST_CHECK("shmem_int_wait_until_some on device words: the indices", s, s, idx[s]);
    TEST_ASSERT(shmem_int_test_all(iw, (size_t)npes, NULL, SHMEM_CMP_GE, 100),
                "shmem_int_test_all on device words false after their AMOs");
    r = shmem_int_test_any(iw, (size_t)npes, status, SHMEM_CMP_GE, 100);
    TEST_CHECK("shmem_int_test_any on device words", 0, npes - 1, r);
    r = shmem_int_test_some_vector(iw, (size_t)npes, idx, NULL, SHMEM_CMP_EQ, want);
    TEST_CHECK("shmem_int_test_some_vector on device words", 0, npes, r);
    TEST_CHECK("shmem_signal_wait_until on a device signal word", 0,
               (uint64_t)npes * (uint64_t)(npes + 1) / 2,
               shmem_signal_wait_until(dsig, SHMEM_CMP_EQ,
                                       (uint64_t)npes * (uint64_t)(npes + 1) / 2));
    shmem_barrier_all();
}

static void expect_error(const char *what, int want, const char *m1, const char *m2)
{
    char msg[1024];
    int got = shmemx_error_get(msg, sizeof(msg));

    TEST_ASSERT(got == want, "%s: error code %d (%s), expected %d (%s); message: %s", what, got,
                shmemx_strerror(got), want, shmemx_strerror(want), msg);
    TEST_ASSERT(strstr(msg, m1) && strstr(msg, m2), "%s: the message does not name %s and %s: "
                "%s", what, m1, m2, msg);
    shmemx_error_clear();
}

static void refusals(uint64_t *blk)
{
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    shmemx_error_clear();
    shmem_uint64_atomic_add((uint64_t *)(void *)((char *)blk + 4), 1, (me + 1) % npes);
    expect_error("a misaligned device word", SHMEMX_ERROR_INVALID_VALUE,
                 "shmem_uint64_atomic_add", "aligned");
    (void)shmem_int_atomic_fetch((int *)blk, npes);
    expect_error("a PE out of range", SHMEMX_ERROR_INVALID_VALUE, "shmem_int_atomic_fetch",
                 "out of range");
    shmem_signal_add((uint64_t *)(void *)((char *)blk + 4), 1, 0);
    expect_error("a misaligned device signal word", SHMEMX_ERROR_INVALID_VALUE,
                 "shmem_signal_add", "sig_addr");
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    shmem_barrier_all();
}

int main(void)
{
    uint64_t *blk, *host, *cnt, *sig, *wblk;
    char *ddata, *hdata, *dsrc;
    size_t blen;

    (void)gpu_count(); /* loads the CUDA driver before shmem_init */
    test_init("gpu_amo");
    if (shmemx_cuda_device() < 0) {
        test_note("SKIP: no device heap");
        shmem_finalize();
        return TEST_SKIP;
    }
    me = test_me;
    npes = test_npes;
    blen = sizeof(uint64_t) * S_N * (size_t)npes;
    blk = shmem_malloc_with_hints(blen, SHMEMX_MALLOC_DEVICE);
    cnt = shmem_malloc_with_hints(2 * sizeof(uint64_t), SHMEMX_MALLOC_DEVICE);
    sig = shmem_malloc_with_hints(3 * sizeof(uint64_t) * (size_t)npes, SHMEMX_MALLOC_DEVICE);
    ddata = shmem_malloc_with_hints(DLEN * (size_t)npes, SHMEMX_MALLOC_DEVICE);
    dsrc = shmem_malloc_with_hints(DLEN, SHMEMX_MALLOC_DEVICE);
    hdata = shmem_malloc(DLEN * (size_t)npes);
    /* waits: npes uint64, npes ints, a signal word */
    wblk = shmem_malloc_with_hints(sizeof(uint64_t) * (2 * (size_t)npes + 1),
                                   SHMEMX_MALLOC_DEVICE);
    host = malloc(blen);
    TEST_ASSERT(blk && cnt && sig && ddata && dsrc && hdata && wblk && host, "allocation failed");
    TEST_ASSERT(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");
    test_note("next PE %s (%d PEs)", shmem_ptr(blk, (me + 1) % npes) ? "mapped" : "not mapped",
              npes);
    memset(host, 0, blen);
    must(gpu_copy(blk, host, blen), "cudaMemcpy");
    must(gpu_copy(cnt, host, 2 * sizeof(uint64_t)), "cudaMemcpy");
    must(gpu_copy(sig, host, 3 * sizeof(uint64_t) * (size_t)npes), "cudaMemcpy");
    must(gpu_copy(wblk, host, sizeof(uint64_t) * (2 * (size_t)npes + 1)), "cudaMemcpy");
    shmem_barrier_all();
    all_types(blk, host);
    contention(cnt);
    signals(sig, ddata, hdata, dsrc);
    waits(wblk, (int *)(wblk + npes), wblk + 2 * npes);
    refusals(blk);
    shmem_ctx_destroy(ctx);
    free(host);
    shmem_free(wblk);
    shmem_free(hdata);
    shmem_free(dsrc);
    shmem_free(ddata);
    shmem_free(sig);
    shmem_free(cnt);
    shmem_free(blk);
    return test_finish();
}
