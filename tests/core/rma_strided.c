/*
 * rma_strided: iput and iget (typed for the 24 standard RMA types, ctx and
 * SIZE forms) with several stride pairs including 1 and large strides, to
 * self and to the next PE; ibput and ibget (OpenSHMEM 1.6) under
 * FABSHMEM_TESTS_16.  The target checks every element of the strided span:
 * the chosen elements hold the values, the ones between are untouched.
 */
#include "common.h"

#define AREA_BYTES ((size_t)2 << 20)

static int salt_counter;
static void *local;

static const ptrdiff_t strides[][2] = { { 1, 1 }, { 2, 1 }, { 1, 3 }, { 7, 5 }, { 1000, 1 }, { 1, 1000 } };
static const size_t counts[] = { 0, 1, 13, 100 };
#define NSTRIDES (sizeof(strides) / sizeof(strides[0]))
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

/*
 * Check a strided span of n elements at stride st in r (elements of type
 * T): index k*st holds the value of element k*sst of PE pe, the rest is 0.
 */
#define DEFINE_STRIDED(T, N)                                                       \
    static void check_span_##N(const char *what, const T *r, size_t n, ptrdiff_t st, \
                               ptrdiff_t sst, int pe, int salt)                    \
    {                                                                              \
        size_t span = n ? (n - 1) * (size_t)st + 2 : 1, i;                         \
        for (i = 0; i < span; i++) {                                               \
            long double e = (i % (size_t)st == 0 && i / (size_t)st < n)            \
                ? (long double)(T)test_val(pe, i / (size_t)st * (size_t)sst, salt) : 0; \
            if ((long double)r[i] != e)                                            \
                test_fail("%s (%s) nelems=%zu dst=%td sst=%td with PE %d: index %zu: " \
                          "expected %.0Lf, got %.0Lf", what, #T, n, st, sst, pe, i, e, \
                          (long double)r[i]);                                      \
        }                                                                          \
    }                                                                              \
    static void strided_case_##N(T *area, size_t n, ptrdiff_t dst, ptrdiff_t sst,  \
                                 int target, int var)                              \
    {                                                                              \
        T *loc = local;                                                            \
        int salt = ++salt_counter;                                                 \
        int source = target == test_me ? test_me : (test_me + test_npes - 1) % test_npes; \
        size_t sspan = n ? (n - 1) * (size_t)sst + 1 : 0;                          \
        size_t dspan = n ? (n - 1) * (size_t)dst + 2 : 1, i;                       \
                                                                                   \
        if ((dspan > sspan ? dspan : sspan + 1) * sizeof(T) > AREA_BYTES)          \
            return;                                                                \
        /* iput: my source elements to the target's area. */                      \
        memset(area, 0, dspan * sizeof(T));                                        \
        for (i = 0; i < sspan; i++)                                                \
            loc[i] = (T)test_val(test_me, i, salt);                                \
        shmem_barrier_all();                                                       \
        if (var == 0)                                                              \
            shmem_##N##_iput(area, loc, dst, sst, n, target);                      \
        else                                                                       \
            shmem_ctx_##N##_iput(SHMEM_CTX_DEFAULT, area, loc, dst, sst, n, target); \
        shmem_barrier_all();                                                       \
        check_span_##N(var ? "shmem_ctx_" #N "_iput" : "shmem_" #N "_iput", area, n, \
                       dst, sst, source, salt);                                    \
        shmem_barrier_all();                                                       \
        /* iget: the target's area (its values, at stride sst) into mine. */      \
        for (i = 0; i < sspan; i++)                                                \
            area[i] = (T)test_val(test_me, i, salt);                               \
        memset(loc, 0, dspan * sizeof(T));                                         \
        shmem_barrier_all();                                                       \
        if (var == 0)                                                              \
            shmem_##N##_iget(loc, area, dst, sst, n, target);                      \
        else                                                                       \
            shmem_ctx_##N##_iget(SHMEM_CTX_DEFAULT, loc, area, dst, sst, n, target); \
        check_span_##N(var ? "shmem_ctx_" #N "_iget" : "shmem_" #N "_iget", loc, n, \
                       dst, sst, target, salt);                                    \
        shmem_barrier_all();                                                       \
    }                                                                              \
    static void strided_type_##N(void *area)                                       \
    {                                                                              \
        size_t s, c;                                                               \
        int t, var;                                                                \
        for (s = 0; s < NSTRIDES; s++)                                             \
            for (c = 0; c < NCOUNTS; c++)                                          \
                for (t = 0; t < 2; t++)                                            \
                    for (var = 0; var < 2; var++)                                  \
                        strided_case_##N(area, counts[c], strides[s][0], strides[s][1], \
                                         t ? (test_me + 1) % test_npes : test_me, var); \
    }
TEST_RMA_TYPES(DEFINE_STRIDED)

/* The SIZE forms, checked through the unsigned integer type of that size. */
#define DEFINE_SIZE_STRIDED(BITS, T, N)                                            \
    static void size_case_##BITS(T *area, size_t n, ptrdiff_t dst, ptrdiff_t sst)  \
    {                                                                              \
        T *loc = local;                                                            \
        int salt = ++salt_counter, next = (test_me + 1) % test_npes;               \
        int prev = (test_me + test_npes - 1) % test_npes;                          \
        size_t sspan = n ? (n - 1) * (size_t)sst + 1 : 0;                          \
        size_t dspan = n ? (n - 1) * (size_t)dst + 2 : 1, i;                       \
        if ((dspan > sspan ? dspan : sspan + 1) * sizeof(T) > AREA_BYTES)          \
            return;                                                                \
        memset(area, 0, dspan * sizeof(T));                                        \
        for (i = 0; i < sspan; i++)                                                \
            loc[i] = (T)test_val(test_me, i, salt);                                \
        shmem_barrier_all();                                                       \
        shmem_iput##BITS(area, loc, dst, sst, n, next);                            \
        shmem_barrier_all();                                                       \
        check_span_##N("shmem_iput" #BITS, area, n, dst, sst, prev, salt);         \
        shmem_barrier_all();                                                       \
        for (i = 0; i < sspan; i++)                                                \
            area[i] = (T)test_val(test_me, i, salt);                               \
        memset(loc, 0, dspan * sizeof(T));                                         \
        shmem_barrier_all();                                                       \
        shmem_ctx_iget##BITS(SHMEM_CTX_DEFAULT, loc, area, dst, sst, n, next);     \
        check_span_##N("shmem_ctx_iget" #BITS, loc, n, dst, sst, next, salt);      \
        shmem_barrier_all();                                                       \
    }
DEFINE_SIZE_STRIDED(8, uint8_t, uint8)
DEFINE_SIZE_STRIDED(16, uint16_t, uint16)
DEFINE_SIZE_STRIDED(32, uint32_t, uint32)
DEFINE_SIZE_STRIDED(64, uint64_t, uint64)
/* 128 bits: long double occupies 16 bytes on the targets we test. */
_Static_assert(sizeof(long double) == 16, "long double must be 16 bytes for iput128");
DEFINE_SIZE_STRIDED(128, long double, longdouble)

#ifdef FABSHMEM_TESTS_16
/*
 * ibput/ibget: nblocks blocks of bsize elements; block b of the source
 * starts at b*sst, block b of the destination at b*dst.
 */
static void ibput_case(int *area, size_t bsize, size_t nblocks, ptrdiff_t dst, ptrdiff_t sst,
                       int var)
{
    int *loc = local, salt = ++salt_counter, next = (test_me + 1) % test_npes;
    int prev = (test_me + test_npes - 1) % test_npes;
    size_t sspan = nblocks ? (nblocks - 1) * (size_t)sst + bsize : 0;
    size_t dspan = nblocks ? (nblocks - 1) * (size_t)dst + bsize + 1 : 1, i;

    memset(area, 0, (dspan > sspan ? dspan : sspan) * sizeof(int));
    for (i = 0; i < sspan; i++)
        loc[i] = (int)test_val(test_me, i, salt);
    shmem_barrier_all();
    if (var == 0)
        shmem_int_ibput(area, loc, dst, sst, bsize, nblocks, next);
    else if (var == 1)
        shmem_ctx_int_ibput(SHMEM_CTX_DEFAULT, area, loc, dst, sst, bsize, nblocks, next);
    else
        shmem_ibput32(area, loc, dst, sst, bsize, nblocks, next);
    shmem_barrier_all();
    for (i = 0; i < dspan; i++) {
        size_t b = i / (size_t)dst, j = i % (size_t)dst;
        long long e = (b < nblocks && j < bsize) ? test_val(prev, b * (size_t)sst + j, salt) : 0;
        if (area[i] != e)
            test_fail("shmem_%s bsize=%zu nblocks=%zu dst=%td sst=%td from PE %d: index %zu: "
                      "expected %lld, got %d", var == 0 ? "int_ibput" : var == 1 ?
                      "ctx_int_ibput" : "ibput32", bsize, nblocks, dst, sst, prev, i, e, area[i]);
    }
    shmem_barrier_all();
    for (i = 0; i < sspan; i++)
        area[i] = (int)test_val(test_me, i, salt);
    memset(loc, 0, dspan * sizeof(int));
    shmem_barrier_all();
    if (var == 0)
        shmem_int_ibget(loc, area, dst, sst, bsize, nblocks, next);
    else if (var == 1)
        shmem_ctx_int_ibget(SHMEM_CTX_DEFAULT, loc, area, dst, sst, bsize, nblocks, next);
    else
        shmem_ibget32(loc, area, dst, sst, bsize, nblocks, next);
    for (i = 0; i < dspan; i++) {
        size_t b = i / (size_t)dst, j = i % (size_t)dst;
        long long e = (b < nblocks && j < bsize) ? test_val(next, b * (size_t)sst + j, salt) : 0;
        if (loc[i] != e)
            test_fail("shmem_%s bsize=%zu nblocks=%zu dst=%td sst=%td from PE %d: index %zu: "
                      "expected %lld, got %d", var == 0 ? "int_ibget" : var == 1 ?
                      "ctx_int_ibget" : "ibget32", bsize, nblocks, dst, sst, next, i, e, loc[i]);
    }
    shmem_barrier_all();
}
#endif

int main(void)
{
    void *area;
    size_t s, c;

    test_init("rma_strided");
    area = shmem_malloc(AREA_BYTES);
    local = malloc(AREA_BYTES);
    TEST_ASSERT(area != NULL && local != NULL, "shmem_malloc(%zu) returned NULL", AREA_BYTES);

#define RUN_STRIDED(T, N) strided_type_##N(area);
    TEST_RMA_TYPES(RUN_STRIDED)
    test_note("typed and ctx iput/iget: 24 types checked");
    for (s = 0; s < NSTRIDES; s++)
        for (c = 0; c < NCOUNTS; c++) {
            size_case_8(area, counts[c], strides[s][0], strides[s][1]);
            size_case_16(area, counts[c], strides[s][0], strides[s][1]);
            size_case_32(area, counts[c], strides[s][0], strides[s][1]);
            size_case_64(area, counts[c], strides[s][0], strides[s][1]);
            size_case_128(area, counts[c], strides[s][0], strides[s][1]);
        }
    test_note("iput8..128, ctx_iget8..128 checked");
#ifdef FABSHMEM_TESTS_16
    {
        static const size_t blk[][4] = { { 1, 1, 1, 1 }, { 4, 10, 4, 4 }, { 3, 7, 8, 5 },
                                         { 16, 5, 100, 16 }, { 2, 0, 5, 2 } };
        size_t k;
        int var;

        for (k = 0; k < sizeof(blk) / sizeof(blk[0]); k++)
            for (var = 0; var < 3; var++)
                ibput_case(area, blk[k][0], blk[k][1], (ptrdiff_t)blk[k][2], (ptrdiff_t)blk[k][3], var);
        test_note("ibput/ibget (typed, ctx, 32) checked");
    }
#endif

    shmem_barrier_all();
    shmem_free(area);
    free(local);
    return test_finish();
}
