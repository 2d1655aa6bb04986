/*
 * The atomic memory operations: every family over its whole type list, the
 * plain and ctx_ forms (SHMEM_CTX_DEFAULT and a created context), the
 * fetching _nbi forms after shmem_quiet, the C11 generic forms, the
 * deprecated pre-1.4 names, and targets in the symmetric heap and in global
 * variables (the data segment).
 *
 * Each PE works on the words of its right neighbour, which no other PE
 * touches, so every fetched value is known; the bitwise ops also run with
 * per-PE bit patterns on one word of PE 0 that all PEs hit.
 */
#include "common.h"

/* The standard AMO types (extended = these plus float, double; bitwise: the
 * types marked B). */
#define T_STANDARD(X) \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) \
    X(ptrdiff_t, ptrdiff)
#define T_EXTENDED_ONLY(X) X(float, float) X(double, double)
#define T_BITWISE(X) \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

#define NW 8 /* words per type and PE */

static int peer;            /* the right neighbour */
static int global_ok;       /* AMOs on the data segment are possible */
static shmem_ctx_t ctxs[2]; /* SHMEM_CTX_DEFAULT and a created context */
static int n_ctx;

/* Check a value of type TYPE; the message names routine, type, PE. */
#define CHK(rtn, TN, where, exp, got)                                                   \
    do {                                                                                \
        __typeof__(got) g_ = (got), e_ = (__typeof__(got))(exp);                         \
        if (memcmp(&g_, &e_, sizeof(g_)) != 0)                                          \
            test_fail("%s (%s, %s, target PE %d): expected %.17Lg, got %.17Lg", rtn, #TN,  \
                      where, peer, (long double)e_, (long double)g_);                     \
    } while (0)

/* Call routine R of type TN in the plain form or the ctx_ form. */
#define CALL(TN, R, ...) \
    (ctx ? shmem_ctx_##TN##_atomic_##R(ctx, __VA_ARGS__) : shmem_##TN##_atomic_##R(__VA_ARGS__))

/* fetch, set, swap and their _nbi forms on w[0..2] of peer. */
#define DEF_EXTENDED(TYPE, TN)                                                          \
    static void ext_##TN(TYPE *w, const char *where, shmem_ctx_t ctx)                   \
    {                                                                                   \
        TYPE base = (TYPE)(10 + test_me), f[2];                                         \
        CALL(TN, set, &w[0], base, peer);                                               \
        CALL(TN, set, &w[1], (TYPE)(base + 1), peer);                                   \
        shmem_quiet();                                                                  \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        CHK("atomic_fetch", TN, where, base, CALL(TN, fetch, &w[0], peer));             \
        CHK("atomic_swap", TN, where, base, CALL(TN, swap, &w[0], (TYPE)(base + 5), peer)); \
        CHK("atomic_fetch", TN, where, base + 5, CALL(TN, fetch, &w[0], peer));         \
        CALL(TN, fetch_nbi, &f[0], &w[0], peer);                                        \
        CALL(TN, swap_nbi, &f[1], &w[1], (TYPE)(base + 2.5), peer);                     \
        shmem_quiet();                                                                  \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        CHK("atomic_fetch_nbi", TN, where, base + 5, f[0]);                             \
        CHK("atomic_swap_nbi", TN, where, base + 1, f[1]);                              \
        CHK("atomic_fetch", TN, where, (TYPE)(base + 2.5), CALL(TN, fetch, &w[1], peer)); \
    }
T_STANDARD(DEF_EXTENDED)
T_EXTENDED_ONLY(DEF_EXTENDED)

/* compare_swap, fetch_inc, inc, fetch_add, add and the _nbi forms on
 * w[2..7] of peer. */
#define DEF_STANDARD(TYPE, TN)                                                          \
    static void std_##TN(TYPE *w, const char *where, shmem_ctx_t ctx)                   \
    {                                                                                   \
        TYPE base = (TYPE)(20 + test_me), f[3];                                         \
        CALL(TN, set, &w[2], base, peer);                                               \
        for (int i = 3; i < NW; i++)                                                    \
            CALL(TN, set, &w[i], (TYPE)i, peer);                                        \
        shmem_quiet();                                                                  \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        CHK("atomic_compare_swap (miss)", TN, where, base,                              \
            CALL(TN, compare_swap, &w[2], (TYPE)(base + 1), (TYPE)99, peer));           \
        CHK("atomic_fetch after a compare_swap miss", TN, where, base,                  \
            CALL(TN, fetch, &w[2], peer));                                              \
        CHK("atomic_compare_swap (hit)", TN, where, base,                               \
            CALL(TN, compare_swap, &w[2], base, (TYPE)(base + 1), peer));               \
        CHK("atomic_fetch_inc", TN, where, base + 1, CALL(TN, fetch_inc, &w[2], peer)); \
        CALL(TN, inc, &w[2], peer);                                                     \
        shmem_quiet();                                                                  \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        CHK("atomic_fetch_add", TN, where, base + 3,                                    \
            CALL(TN, fetch_add, &w[2], (TYPE)10, peer));                                \
        CALL(TN, add, &w[2], (TYPE)4, peer);                                            \
        shmem_quiet();                                                                  \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        CHK("atomic_add", TN, where, base + 17, CALL(TN, fetch, &w[2], peer));          \
        /* A negative addend wraps like the hardware for every type. */                 \
        CHK("atomic_fetch_add", TN, where, base + 17,                                   \
            CALL(TN, fetch_add, &w[2], (TYPE)-20, peer));                               \
        CHK("atomic_fetch_add (wrap)", TN, where, (TYPE)(base - 3),                     \
            CALL(TN, fetch, &w[2], peer));                                              \
        CALL(TN, compare_swap_nbi, &f[0], &w[3], (TYPE)3, (TYPE)30, peer);              \
        CALL(TN, fetch_inc_nbi, &f[1], &w[4], peer);                                    \
        CALL(TN, fetch_add_nbi, &f[2], &w[5], (TYPE)50, peer);                          \
        shmem_quiet();                                                                  \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        CHK("atomic_compare_swap_nbi", TN, where, 3, f[0]);                             \
        CHK("atomic_fetch_inc_nbi", TN, where, 4, f[1]);                                \
        CHK("atomic_fetch_add_nbi", TN, where, 5, f[2]);                                \
        CALL(TN, compare_swap_nbi, &f[0], &w[3], (TYPE)3, (TYPE)31, peer);              \
        shmem_quiet();                                                                  \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        CHK("atomic_compare_swap_nbi (miss)", TN, where, 30, f[0]);                     \
        CHK("atomic_compare_swap_nbi", TN, where, 30, CALL(TN, fetch, &w[3], peer));    \
        CHK("atomic_fetch_inc_nbi", TN, where, 5, CALL(TN, fetch, &w[4], peer));        \
        CHK("atomic_fetch_add_nbi", TN, where, 55, CALL(TN, fetch, &w[5], peer));       \
    }
T_STANDARD(DEF_STANDARD)

/* and, or, xor on w[0..5] of peer, with bit patterns of this PE. */
#define DEF_BITWISE(TYPE, TN)                                                           \
    static void bit_##TN(TYPE *w, const char *where, shmem_ctx_t ctx)                   \
    {                                                                                   \
        TYPE init = (TYPE)0xF0F0F0F0F0F0F0F0ULL, m = (TYPE)(0x3C5A96A5C3A55AC3ULL >> test_me); \
        TYPE f[3];                                                                      \
        for (int i = 0; i < 6; i++)                                                     \
            CALL(TN, set, &w[i], init, peer);                                           \
        shmem_quiet();                                                                  \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        CHK("atomic_fetch_and", TN, where, init, CALL(TN, fetch_and, &w[0], m, peer));  \
        CHK("atomic_fetch_or", TN, where, init, CALL(TN, fetch_or, &w[1], m, peer));    \
        CHK("atomic_fetch_xor", TN, where, init, CALL(TN, fetch_xor, &w[2], m, peer));  \
        CHK("atomic_fetch_and", TN, where, init & m, CALL(TN, fetch, &w[0], peer));     \
        CHK("atomic_fetch_or", TN, where, init | m, CALL(TN, fetch, &w[1], peer));      \
        CHK("atomic_fetch_xor", TN, where, init ^ m, CALL(TN, fetch, &w[2], peer));     \
        CALL(TN, and, &w[3], m, peer);                                                  \
        CALL(TN, or, &w[4], m, peer);                                                   \
        CALL(TN, xor, &w[5], m, peer);                                                  \
        shmem_quiet();                                                                  \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        CHK("atomic_and", TN, where, init & m, CALL(TN, fetch, &w[3], peer));           \
        CHK("atomic_or", TN, where, init | m, CALL(TN, fetch, &w[4], peer));            \
        CHK("atomic_xor", TN, where, init ^ m, CALL(TN, fetch, &w[5], peer));           \
        CALL(TN, fetch_and_nbi, &f[0], &w[3], (TYPE)~m, peer);                          \
        CALL(TN, fetch_or_nbi, &f[1], &w[4], (TYPE)~m, peer);                           \
        CALL(TN, fetch_xor_nbi, &f[2], &w[5], m, peer);                                 \
        shmem_quiet();                                                                  \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        CHK("atomic_fetch_and_nbi", TN, where, init & m, f[0]);                         \
        CHK("atomic_fetch_or_nbi", TN, where, init | m, f[1]);                          \
        CHK("atomic_fetch_xor_nbi", TN, where, init ^ m, f[2]);                         \
        CHK("atomic_fetch_and_nbi", TN, where, 0, CALL(TN, fetch, &w[3], peer));        \
        CHK("atomic_fetch_or_nbi", TN, where, (TYPE)~(TYPE)0, CALL(TN, fetch, &w[4], peer)); \
        CHK("atomic_fetch_xor_nbi", TN, where, init, CALL(TN, fetch, &w[5], peer));     \
    }
T_BITWISE(DEF_BITWISE)

/*
 * All PEs on two words of PE 0 with per-PE bits: or sets bit me, xor
 * flips bit me + 16 (once per PE, so the bits do not depend on the order),
 * and clears bit me of an all-ones word.
 */
#define DEF_SHARED_BITS(TYPE, TN)                                                       \
    static void shbit_##TN(TYPE *w, const char *where, shmem_ctx_t ctx)                 \
    {                                                                                   \
        TYPE all = 0, got, my = (TYPE)1 << test_me;                                     \
        for (int pe = 0; pe < test_npes; pe++)                                          \
            all |= (TYPE)1 << pe;                                                       \
        if (test_me == 0) {                                                             \
            w[6] = 0;                                                                   \
            w[7] = (TYPE)~(TYPE)0;                                                      \
        }                                                                               \
        shmem_barrier_all();                                                            \
        got = CALL(TN, fetch_or, &w[6], my, 0);                                         \
        if (got & my)                                                                   \
            test_fail("atomic_fetch_or (%s, %s): bit %d already set in %#llx", #TN,      \
                      where, test_me, (unsigned long long)got);                          \
        CALL(TN, xor, &w[6], (TYPE)(my << 16), 0);                                       \
        CALL(TN, and, &w[7], (TYPE)~my, 0);                                             \
        if (ctx) shmem_ctx_quiet(ctx);                                                  \
        shmem_barrier_all();                                                            \
        CHK("atomic_fetch_or/xor from all PEs", TN, where,                              \
            (TYPE)(all | (TYPE)(all << 16)), CALL(TN, fetch, &w[6], 0));                 \
        CHK("atomic_and from all PEs", TN, where, (TYPE)~all, CALL(TN, fetch, &w[7], 0)); \
        shmem_barrier_all();                                                            \
    }
T_BITWISE(DEF_SHARED_BITS)

/* Global (data segment) targets. */
#define DEF_GLOBAL(TYPE, TN) static TYPE g_##TN[NW];
T_STANDARD(DEF_GLOBAL)
T_EXTENDED_ONLY(DEF_GLOBAL)

/* Run every family of every type on w (heap) or the globals. */
static void run_all(int heap, shmem_ctx_t ctx)
{
    const char *where = heap ? (ctx ? "heap, ctx" : "heap") : (ctx ? "global, ctx" : "global");
    static void *heap_w;

    if (!heap_w) {
        heap_w = shmem_malloc(NW * 8 * 32);
        TEST_ASSERT(heap_w != NULL, "shmem_malloc failed");
    }
    shmem_barrier_all();
#define RUN_EXT(TYPE, TN) ext_##TN(heap ? (TYPE *)heap_w : g_##TN, where, ctx);
#define RUN_STD(TYPE, TN) std_##TN(heap ? (TYPE *)heap_w : g_##TN, where, ctx);
#define RUN_BIT(TYPE, TN) bit_##TN(heap ? (TYPE *)heap_w : g_##TN, where, ctx); \
    shmem_barrier_all(); \
    shbit_##TN(heap ? (TYPE *)heap_w : g_##TN, where, ctx);
    T_STANDARD(RUN_EXT)
    T_EXTENDED_ONLY(RUN_EXT)
    shmem_barrier_all();
    T_STANDARD(RUN_STD)
    shmem_barrier_all();
    T_BITWISE(RUN_BIT)
    shmem_barrier_all();
}

static long g_dep[4];

/* The deprecated pre-1.4 names. */
static void run_deprecated(long *hw)
{
    int *wi = (int *)hw;
    long long *wl = (long long *)(hw + 1);
    float *wf = (float *)(hw + 2);
    double *wd = (double *)(hw + 3);
    long *wlo = global_ok ? g_dep : hw + 4;
    const char *where = "deprecated";

#define DEP_INT(TN, w)                                                                   \
    shmem_##TN##_set(w, 5, peer);                                                        \
    shmem_quiet();                                                                       \
    CHK(#TN "_fetch", TN, where, 5, shmem_##TN##_fetch(w, peer));                        \
    CHK(#TN "_swap", TN, where, 5, shmem_##TN##_swap(w, 6, peer));                       \
    CHK(#TN "_cswap", TN, where, 6, shmem_##TN##_cswap(w, 6, 7, peer));                  \
    CHK(#TN "_cswap (miss)", TN, where, 7, shmem_##TN##_cswap(w, 6, 9, peer));           \
    CHK(#TN "_finc", TN, where, 7, shmem_##TN##_finc(w, peer));                          \
    CHK(#TN "_fadd", TN, where, 8, shmem_##TN##_fadd(w, 10, peer));                      \
    shmem_##TN##_inc(w, peer);                                                           \
    shmem_##TN##_add(w, 100, peer);                                                      \
    shmem_quiet();                                                                       \
    CHK(#TN "_add", TN, where, 119, shmem_##TN##_fetch(w, peer));
    DEP_INT(int, wi)
    DEP_INT(long, wlo)
    DEP_INT(longlong, wl)
    shmem_float_set(wf, 1.25f, peer);
    shmem_double_set(wd, -2.5, peer);
    shmem_quiet();
    CHK("float_fetch", float, where, 1.25f, shmem_float_fetch(wf, peer));
    CHK("double_fetch", double, where, -2.5, shmem_double_fetch(wd, peer));
    CHK("float_swap", float, where, 1.25f, shmem_float_swap(wf, 3.5f, peer));
    CHK("double_swap", double, where, -2.5, shmem_double_swap(wd, 4.75, peer));
    CHK("float_fetch", float, where, 3.5f, shmem_float_fetch(wf, peer));
    CHK("double_fetch", double, where, 4.75, shmem_double_fetch(wd, peer));
    CHK("shmem_swap", long, where, 119, shmem_swap(wlo, 42L, peer));
    CHK("shmem_swap", long, where, 42, shmem_long_fetch(wlo, peer));
}

/* The C11 generic forms, plain and ctx-first, for several types. */
static void run_generic(void *hw, shmem_ctx_t ctx)
{
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
    const char *where = "generic";
    int *wi = (int *)hw;
    unsigned long long *wu = (unsigned long long *)hw + 2;
    double *wd = (double *)hw + 4;
    int64_t *w64 = (int64_t *)hw + 5;
    const long *cl = (const long *)((long *)hw + 6);
    long *wl = (long *)hw + 6;
    int fi;
    unsigned long long fu;
    double fd;

    shmem_atomic_set(wi, 3, peer);
    shmem_atomic_set(ctx, wu, 0xF0ULL, peer);
    shmem_atomic_set(wd, 0.5, peer);
    shmem_atomic_set(ctx, w64, (int64_t)-1, peer);
    shmem_atomic_set(wl, 77L, peer);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHK("shmem_atomic_fetch", int, where, 3, shmem_atomic_fetch(wi, peer));
    CHK("shmem_atomic_fetch (const)", long, where, 77, shmem_atomic_fetch(cl, peer));
    CHK("shmem_atomic_fetch (ctx, const)", long, where, 77, shmem_atomic_fetch(ctx, cl, peer));
    CHK("shmem_atomic_fetch_inc", int, where, 3, shmem_atomic_fetch_inc(wi, peer));
    CHK("shmem_atomic_fetch_add (ctx)", int, where, 4, shmem_atomic_fetch_add(ctx, wi, 5, peer));
    shmem_atomic_inc(ctx, wi, peer);
    shmem_atomic_add(wi, 10, peer);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHK("shmem_atomic_compare_swap", int, where, 20, shmem_atomic_compare_swap(wi, 20, 1, peer));
    CHK("shmem_atomic_swap (ctx)", int, where, 1, shmem_atomic_swap(ctx, wi, 2, peer));
    CHK("shmem_atomic_swap", double, where, 0.5, shmem_atomic_swap(wd, 1.5, peer));
    CHK("shmem_atomic_fetch (ctx)", double, where, 1.5, shmem_atomic_fetch(ctx, wd, peer));
    CHK("shmem_atomic_fetch_and", ulonglong, where, 0xF0, shmem_atomic_fetch_and(wu, 0x3CULL, peer));
    CHK("shmem_atomic_fetch_or (ctx)", ulonglong, where, 0x30,
        shmem_atomic_fetch_or(ctx, wu, 0x101ULL, peer));
    CHK("shmem_atomic_fetch_xor", ulonglong, where, 0x131, shmem_atomic_fetch_xor(wu, 0x1ULL, peer));
    shmem_atomic_and(wu, 0x1F0ULL, peer);
    shmem_quiet();
    shmem_atomic_or(ctx, wu, 0x2ULL, peer);
    shmem_ctx_quiet(ctx);
    shmem_atomic_xor(wu, 0x100ULL, peer);
    CHK("shmem_atomic_fetch_xor (int64_t)", int64, where, -1,
        shmem_atomic_fetch_xor(ctx, w64, (int64_t)0xFF, peer));
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHK("shmem_atomic_and/or/xor", ulonglong, where, 0x32, shmem_atomic_fetch(wu, peer));
    CHK("shmem_atomic_fetch_xor (int64_t)", int64, where, (int64_t)~0xFFLL,
        shmem_atomic_fetch(w64, peer));
    shmem_atomic_fetch_nbi(&fi, wi, peer);
    shmem_atomic_fetch_add_nbi(ctx, &fu, wu, 0x10ULL, peer);
    shmem_atomic_swap_nbi(&fd, wd, 9.0, peer);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHK("shmem_atomic_fetch_nbi", int, where, 2, fi);
    CHK("shmem_atomic_fetch_add_nbi (ctx)", ulonglong, where, 0x32, fu);
    CHK("shmem_atomic_swap_nbi", double, where, 1.5, fd);
    shmem_atomic_compare_swap_nbi(&fi, wi, 2, 8, peer);
    shmem_atomic_fetch_inc_nbi(ctx, &fu, wu, peer);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHK("shmem_atomic_compare_swap_nbi", int, where, 2, fi);
    CHK("shmem_atomic_fetch_inc_nbi (ctx)", ulonglong, where, 0x42, fu);
    shmem_atomic_fetch_and_nbi(&fu, wu, 0x3ULL, peer);
    shmem_quiet();
    CHK("shmem_atomic_fetch_and_nbi", ulonglong, where, 0x43, fu);
    shmem_atomic_fetch_or_nbi(ctx, &fu, wu, 0x10ULL, peer);
    shmem_ctx_quiet(ctx);
    CHK("shmem_atomic_fetch_or_nbi (ctx)", ulonglong, where, 0x3, fu);
    shmem_atomic_fetch_xor_nbi(&fu, wu, 0x1ULL, peer);
    shmem_quiet();
    CHK("shmem_atomic_fetch_xor_nbi", ulonglong, where, 0x13, fu);
    CHK("shmem_atomic_fetch_xor_nbi", ulonglong, where, 0x12, shmem_atomic_fetch(wu, peer));
    CHK("shmem_atomic_compare_swap_nbi", int, where, 8, shmem_atomic_fetch(wi, peer));
#else
    (void)hw;
    (void)ctx;
#endif
}


int main(void)
{
    const char *prov = getenv("FABSHMEM_PROVIDER");
    int slow = prov && strcmp(prov, "sockets") == 0;
    long *hw;

    test_init("amo");
    if (test_amo_unavailable()) {
        if (test_me == 0)
            printf("amo: SKIP: provider %s has no atomics with FABSHMEM_OFI_AMO=native (direct path off or vnode mode)\n", getenv("FABSHMEM_PROVIDER"));
        fflush(stdout);
        shmem_finalize();
        return TEST_SKIP;
    }
    /* Data-segment words always go through the provider (shmemi.h). */
    global_ok = !(test_npes > 1 && test_prov_no_amo());
    if (!global_ok)
        test_note("note: global targets skipped (provider %s has no atomics)", getenv("FABSHMEM_PROVIDER"));
    peer = (test_me + 1) % test_npes;
    ctxs[0] = NULL;
    n_ctx = 1;
    if (shmem_ctx_create(0, &ctxs[1]) == 0)
        n_ctx = 2;
    else
        test_note("note: shmem_ctx_create failed, testing SHMEM_CTX_DEFAULT only");

    for (int c = 0; c < 2; c++) {
        /* c = 0: plain forms; c = 1: ctx_ forms with SHMEM_CTX_DEFAULT,
         * then with the created context. */
        shmem_ctx_t list[2] = { NULL, NULL };
        int nl = 1;
        if (c == 1) {
            list[0] = SHMEM_CTX_DEFAULT;
            if (n_ctx == 2)
                list[nl++] = ctxs[1];
        }
        for (int k = 0; k < nl; k++) {
            /* sockets takes milliseconds per AMO: the ctx_ forms run once
             * there (created context, heap targets). */
            if (slow && c == 1 && (nl == 2 ? k == 0 : 0))
                continue;
            run_all(1, list[k]);
            if (global_ok && !(slow && c == 1))
                run_all(0, list[k]);
        }
    }
    hw = shmem_malloc(16 * sizeof(long));
    TEST_ASSERT(hw != NULL, "shmem_malloc failed");
    shmem_barrier_all();
    run_deprecated(hw);
    shmem_barrier_all();
    run_generic(hw, n_ctx == 2 ? ctxs[1] : SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    if (n_ctx == 2)
        shmem_ctx_destroy(ctxs[1]);
    shmem_free(hw);
    return test_finish();
}
