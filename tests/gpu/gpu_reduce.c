/*
 * gpu_reduce: the reductions and the reduce-scatter on device buffers
 * (docs/gpu.md, "Collectives on device buffers"), checked on every PE.
 *
 * Every (type, operation) pair of the specification's reduction tables
 * but long double's (tests/reduce_common.h: its inputs keep every type
 * exact, the products small, and max and min decided by the PE) runs as
 * shmem_TYPE_OP_reduce into another block and in place, and as
 * shmemx_TYPE_OP_reducescatter into another block and in place (dest the
 * caller's own block of the source), over SHMEM_TEAM_SHARED (every PE
 * maps every member's device heap) and over split teams of it (the even
 * PEs, stride 2: one PE at two PEs; PEs 1 to n - 1).  Each PE fills its
 * source from the host (cudaMemcpy), and after the collective copies its
 * dest back and compares every element with the reduction of what the
 * members put in, an element past dest being left alone and the source
 * unchanged (out of place).  One large sum crosses the kernel's grid
 * (more elements than threads).  Refused, naming the routine: long
 * double (NOT_SUPPORTED, "long double") for reduce and reduce-scatter.
 * The same pairs and the large sum run over SHMEM_TEAM_WORLD when its PEs
 * do not all map each other (the algorithm rma: the core's RMA moves the
 * slices).  The algorithms that ran are counted (shmemx_team_coll_count)
 * and checked against FABSHMEM_GPU_REDUCE_ALGO.
 *
 * Without a device heap (no GPU, a build without CUDA) it exits 77.
 */
#include "common.h"
#include <shmemx.h>
#include "gpu/gpu_kern.h"
#include "reduce_common.h"

/* The min/max types without long double, which the GPU does not take. */
#define GR_MINMAX_TYPES(X) \
    TEST_RED_BITWISE_TYPES(X) \
    TEST_SIGNED_INT_TYPES(X) \
    X(ptrdiff_t, ptrdiff) \
    X(float, float) \
    X(double, double)

/* The elements of a reduction (and of each block of a reduce-scatter). */
enum { NRED = 1037, BIGN = (1 << 21) + 5 };

/* A team of the tests: its handle, name, size, my index, world PEs. */
typedef struct gteam {
    shmem_team_t team;
    char name[48];
    int n, me, wpe[64];
} gteam_t;

/* The device blocks (source and dest) and a host buffer of BUF bytes. */
#define BUF ((size_t)NRED * 16 * 8 + 64)
static char *dsrc, *ddst;
static unsigned char *hbuf, *hchk;
static long n_checked;

enum { M_REDUCE, M_REDUCE_INPLACE, M_RS, M_RS_INPLACE, M_COUNT };
static const char *const mode_names[M_COUNT] = { "into another block", "in place",
                                                 "into another block", "in place" };

/* The input element of a complex type, as tests/coll/reduce.c makes it. */
#define IN_C(T, RT, OPC, pe, i, salt, out) \
    do { \
        RT p_[2] = { (RT)in_val(OPC, 1, pe, i, salt), (RT)in_imag(OPC, pe, i, salt) }; \
        memcpy(&(out), p_, sizeof(out)); \
    } while (0)

/* Copies between host and device memory, or fails. */
static void copy(void *dst, const void *src, size_t n)
{
    int rc = gpu_copy(dst, src, n);

    TEST_ASSERT(rc == 0, "cudaMemcpy of %zu bytes: %s", n, gpu_error(rc));
}

/* Fills this PE's source of cnt elements of T (from the host buffer, which
 * holds them) and zeroes dest's n + 1 elements (out of place); returns
 * dest for mode. */
static void *setup(const gteam_t *tt, int mode, size_t esize, size_t cnt, size_t n)
{
    copy(dsrc, hbuf, cnt * esize);
    switch (mode) {
    case M_REDUCE:
    case M_RS:
        memset(hchk, 0, (n + 1) * esize);
        copy(ddst, hchk, (n + 1) * esize);
        return ddst;
    case M_REDUCE_INPLACE:
        return dsrc;
    default:
        return dsrc + (size_t)tt->me * n * esize;
    }
}

/* After the collective: dest's n elements into hchk, and for the out of
 * place modes the element past dest still zero and the source as it was
 * (hbuf holds it). */
static void fetch(int mode, const char *what, const gteam_t *tt, void *dst, size_t esize,
                  size_t cnt, size_t n)
{
    static const unsigned char zero[16];
    static unsigned char *sbuf;

    copy(hchk, dst, (n + 1) * esize);
    if (mode != M_REDUCE && mode != M_RS)
        return;
    TEST_ASSERT(!memcmp(hchk + n * esize, zero, esize), "%s %s on %s: the element past dest "
                "was written", what, mode_names[mode], tt->name);
    if (!sbuf)
        TEST_ASSERT((sbuf = malloc(BUF)) != NULL, "malloc");
    copy(sbuf, dsrc, cnt * esize);
    TEST_ASSERT(!memcmp(sbuf, hbuf, cnt * esize), "%s %s on %s: the source changed", what,
                mode_names[mode], tt->name);
}

/* One collective of a (real or integer type, operation) pair: n elements
 * (n per member's block for reduce-scatter) on team tt in mode. */
#define GR_R(T, TN, OP, OPC) \
    static void gr_##TN##_##OP(const gteam_t *tt, size_t n, int mode, int salt) \
    { \
        int rs = mode >= M_RS, k, rc; \
        const char *what = rs ? "shmemx_" #TN "_" #OP "_reducescatter" \
                              : "shmem_" #TN "_" #OP "_reduce"; \
        size_t cnt = rs ? n * (size_t)tt->n : n, base = rs ? (size_t)tt->me * n : 0, i; \
        T *h = (T *)hbuf, *g = (T *)hchk, *dst; \
        for (i = 0; i < cnt; i++) \
            h[i] = IN_R(T, OPC, test_me, i, salt); \
        dst = setup(tt, mode, sizeof(T), cnt, n); \
        rc = rs ? shmemx_##TN##_##OP##_reducescatter(tt->team, dst, (T *)dsrc, n) \
                : shmem_##TN##_##OP##_reduce(tt->team, dst, (T *)dsrc, n); \
        TEST_ASSERT(rc == 0, "%s %s on %s returned %d", what, mode_names[mode], tt->name, rc); \
        fetch(mode, what, tt, dst, sizeof(T), cnt, n); \
        for (i = 0; i < n; i++) { \
            T e = IN_R(T, OPC, tt->wpe[0], base + i, salt); \
            for (k = 1; k < tt->n; k++) \
                e = (T)COMB_##OP(e, IN_R(T, OPC, tt->wpe[k], base + i, salt)); \
            if (g[i] != e) \
                test_fail("%s %s on %s: element %zu is %.17g, expected %.17g", what, \
                          mode_names[mode], tt->name, i, (double)g[i], (double)e); \
        } \
        n_checked += (long)n; \
    }

#define GR_C(T, TN, RT, OP, OPC) \
    static void gr_##TN##_##OP(const gteam_t *tt, size_t n, int mode, int salt) \
    { \
        int rs = mode >= M_RS, k, rc; \
        const char *what = rs ? "shmemx_" #TN "_" #OP "_reducescatter" \
                              : "shmem_" #TN "_" #OP "_reduce"; \
        size_t cnt = rs ? n * (size_t)tt->n : n, base = rs ? (size_t)tt->me * n : 0, i; \
        T *h = (T *)hbuf, *g = (T *)hchk, *dst, e, x; \
        for (i = 0; i < cnt; i++) \
            IN_C(T, RT, OPC, test_me, i, salt, h[i]); \
        dst = setup(tt, mode, sizeof(T), cnt, n); \
        rc = rs ? shmemx_##TN##_##OP##_reducescatter(tt->team, dst, (T *)dsrc, n) \
                : shmem_##TN##_##OP##_reduce(tt->team, dst, (T *)dsrc, n); \
        TEST_ASSERT(rc == 0, "%s %s on %s returned %d", what, mode_names[mode], tt->name, rc); \
        fetch(mode, what, tt, dst, sizeof(T), cnt, n); \
        for (i = 0; i < n; i++) { \
            IN_C(T, RT, OPC, tt->wpe[0], base + i, salt, e); \
            for (k = 1; k < tt->n; k++) { \
                IN_C(T, RT, OPC, tt->wpe[k], base + i, salt, x); \
                e = COMB_##OP(e, x); \
            } \
            if (g[i] != e) { \
                RT ge[2], ee[2]; \
                memcpy(ge, &g[i], sizeof(ge)); \
                memcpy(ee, &e, sizeof(ee)); \
                test_fail("%s %s on %s: element %zu is (%g, %g), expected (%g, %g)", what, \
                          mode_names[mode], tt->name, i, (double)ge[0], (double)ge[1], \
                          (double)ee[0], (double)ee[1]); \
            } \
        } \
        n_checked += (long)n; \
    }

#define PAIR_R GR_R
#define PAIR_C GR_C
#define PAIR_FN(TN, OP) gr_##TN##_##OP
RED_PAIRS(PAIR, TEST_RED_BITWISE_TYPES, GR_MINMAX_TYPES)

typedef void (*gr_fn)(const gteam_t *tt, size_t n, int mode, int salt);
static const gr_fn gr_fns[] = { RED_PAIRS(REF, TEST_RED_BITWISE_TYPES, GR_MINMAX_TYPES) };
#define N_GR_FNS (sizeof(gr_fns) / sizeof(gr_fns[0]))

static void team_fill(gteam_t *tt, shmem_team_t team, const char *name)
{
    int i;

    tt->team = team;
    snprintf(tt->name, sizeof(tt->name), "%s", name);
    tt->n = shmem_team_n_pes(team);
    tt->me = shmem_team_my_pe(team);
    TEST_ASSERT(tt->n >= 1 && tt->n <= 64 && tt->me >= 0, "team %s: %d PEs, me %d", name,
                tt->n, tt->me);
    for (i = 0; i < tt->n; i++)
        tt->wpe[i] = shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
}

/* Every pair in every mode on tt (a team this PE belongs to). */
static void all_pairs(const gteam_t *tt, int salt)
{
    size_t f;
    int mode;

    for (f = 0; f < N_GR_FNS; f++)
        for (mode = 0; mode < M_COUNT; mode++)
            gr_fns[f](tt, NRED, mode, salt + (int)f);
}

/* A sum of more elements than the kernel has threads (4096 blocks of
 * 256): the grid-stride loop goes round. */
static void big_sum(const gteam_t *tt)
{
    unsigned *h = malloc((size_t)BIGN * sizeof(unsigned));
    unsigned *s = shmem_malloc_with_hints((size_t)BIGN * sizeof(unsigned), SHMEMX_MALLOC_DEVICE);
    unsigned *d = shmem_malloc_with_hints((size_t)BIGN * sizeof(unsigned), SHMEMX_MALLOC_DEVICE);
    size_t i;
    int k;

    TEST_ASSERT(h && s && d, "the blocks of the large sum");
    for (i = 0; i < BIGN; i++)
        h[i] = (unsigned)test_val(test_me, i, 9) * 1000u + (unsigned)(i >> 10);
    copy(s, h, (size_t)BIGN * sizeof(unsigned));
    TEST_ASSERT(shmem_uint_sum_reduce(tt->team, d, s, BIGN) == 0, "shmem_uint_sum_reduce of "
                "%d elements on %s", BIGN, tt->name);
    copy(h, d, (size_t)BIGN * sizeof(unsigned));
    for (i = 0; i < BIGN; i++) {
        unsigned e = 0;
        for (k = 0; k < tt->n; k++)
            e += (unsigned)test_val(tt->wpe[k], i, 9) * 1000u + (unsigned)(i >> 10);
        if (h[i] != e)
            test_fail("shmem_uint_sum_reduce of %d elements on %s: element %zu is %u, "
                      "expected %u", BIGN, tt->name, i, h[i], e);
    }
    shmem_barrier_all();
    shmem_free(d);
    shmem_free(s);
    free(h);
}

/* The algorithms of the registry's kind "gpu_reduce" that ran on tt:
 * the forced one (FABSHMEM_GPU_REDUCE_ALGO) for every reduction; under
 * auto, oneshot (the pairs' 1037 elements, the reduce-scatters) and, when
 * tt has several PEs, rsag (the large sum). */
static void algos_ran(const gteam_t *tt, int mapped)
{
    const char *forced = getenv("FABSHMEM_GPU_REDUCE_ALGO");
    long one = shmemx_team_coll_count(tt->team, "gpu_reduce", "oneshot");
    long rsag = shmemx_team_coll_count(tt->team, "gpu_reduce", "rsag");
    long rma = shmemx_team_coll_count(tt->team, "gpu_reduce", "rma");

    TEST_ASSERT(one >= 0 && rsag >= 0 && rma >= 0, "shmemx_team_coll_count of gpu_reduce: %ld, "
                "%ld, %ld", one, rsag, rma);
    if (test_me == 0)
        test_note("on %s: gpu_reduce oneshot %ld, rsag %ld, rma %ld", tt->name, one, rsag, rma);
    if (!mapped || (forced && !strcmp(forced, "rma"))) {
        /* rma is the one algorithm of teams that do not map each other. */
        TEST_ASSERT(one == 0 && rsag == 0 && rma >= (long)(N_GR_FNS * M_COUNT), "on %s: "
                    "oneshot %ld, rsag %ld, rma %ld", tt->name, one, rsag, rma);
    } else if (forced && !strcmp(forced, "rsag")) {
        /* Reduce-scatter is oneshot's; every reduction is rsag's. */
        TEST_ASSERT(rsag >= (long)(N_GR_FNS * 2) && rma == 0, "forced rsag: rsag %ld, rma %ld",
                    rsag, rma);
    } else if (forced && !strcmp(forced, "oneshot")) {
        TEST_ASSERT(rsag == 0 && rma == 0 && one > 0, "forced oneshot: oneshot %ld, rsag %ld, "
                    "rma %ld", one, rsag, rma);
    } else {
        TEST_ASSERT(one > 0 && rma == 0, "auto: oneshot %ld, rma %ld", one, rma);
        TEST_ASSERT(tt->n == 1 || rsag > 0, "auto never ran rsag (the sum of %d elements)", BIGN);
    }
}

static void expect_error(const char *what, int want, const char *m1, const char *m2)
{
    char msg[1024];
    int got = shmemx_error_get(msg, sizeof(msg));

    TEST_ASSERT(got == want, "%s: error code %d (%s), expected %d (%s); message: %s", what, got,
                shmemx_strerror(got), want, shmemx_strerror(want), msg);
    TEST_ASSERT(strstr(msg, m1) && (!m2 || strstr(msg, m2)), "%s: the message does not name "
                "%s%s%s: %s", what, m1, m2 ? " and " : "", m2 ? m2 : "", msg);
    shmemx_error_clear();
}

/* The refusals, on every PE alike (the checks are local): long double. */
static void refusals(void)
{
    long double *ls = (long double *)dsrc, *ld = (long double *)ddst;
    int rc;

    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    shmemx_error_clear();
    rc = shmem_longdouble_sum_reduce(SHMEM_TEAM_SHARED, ld, ls, 16);
    TEST_ASSERT(rc != 0, "shmem_longdouble_sum_reduce on device buffers returned 0");
    expect_error("long double reduction on device buffers", SHMEMX_ERROR_NOT_SUPPORTED,
                 "shmem_longdouble_sum_reduce", "long double");
    rc = shmem_longdouble_max_reduce(SHMEM_TEAM_SHARED, ls, ls, 16);
    TEST_ASSERT(rc != 0, "shmem_longdouble_max_reduce in place on device buffers returned 0");
    expect_error("long double max in place on device buffers", SHMEMX_ERROR_NOT_SUPPORTED,
                 "shmem_longdouble_max_reduce", "long double");
    rc = shmemx_longdouble_prod_reducescatter(SHMEM_TEAM_SHARED, ld, ls, 16);
    TEST_ASSERT(rc != 0, "shmemx_longdouble_prod_reducescatter on device buffers returned 0");
    expect_error("long double reduce-scatter on device buffers", SHMEMX_ERROR_NOT_SUPPORTED,
                 "shmemx_longdouble_prod_reducescatter", "long double");
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    shmem_barrier_all();
}

int main(void)
{
    gteam_t shared, split;
    shmem_team_t t;
    int ns;

    /* Loads the CUDA driver: FABSHMEM_CUDA=auto brings the GPU up at init. */
    int ngpu = gpu_count();

    test_init("gpu_reduce");
    if (shmemx_cuda_device() < 0) {
        TEST_ASSERT(ngpu == 0, "the CUDA runtime sees %d GPU(s), but the PE has no device heap",
                    ngpu);
        test_note("SKIP: no device heap");
        shmem_finalize();
        return TEST_SKIP;
    }
    dsrc = shmem_malloc_with_hints(BUF, SHMEMX_MALLOC_DEVICE);
    ddst = shmem_malloc_with_hints(BUF, SHMEMX_MALLOC_DEVICE);
    hbuf = malloc(BUF);
    hchk = malloc(BUF);
    TEST_ASSERT(dsrc && ddst && hbuf && hchk, "the device blocks and host buffers");
    team_fill(&shared, SHMEM_TEAM_SHARED, "SHMEM_TEAM_SHARED");
    ns = shared.n;
    TEST_ASSERT(ns <= 32, "SHMEM_TEAM_SHARED has %d PEs; the test takes up to 32", ns);
    all_pairs(&shared, 0);
    big_sum(&shared);
    algos_ran(&shared, 1);
    /* SHMEM_TEAM_WORLD whose PEs do not all map each other: rma. */
    if (ns < test_npes) {
        gteam_t world;
        team_fill(&world, SHMEM_TEAM_WORLD, "SHMEM_TEAM_WORLD");
        all_pairs(&world, 300);
        big_sum(&world);
        algos_ran(&world, 0);
    }
    /* The even PEs of SHMEM_TEAM_SHARED (stride 2: one PE at two). */
    t = SHMEM_TEAM_INVALID;
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_SHARED, 0, 2, (ns + 1) / 2, NULL, 0,
                                         &t) == 0, "split 0/2/%d of SHMEM_TEAM_SHARED failed",
                (ns + 1) / 2);
    if (t != SHMEM_TEAM_INVALID) {
        team_fill(&split, t, "split(0,2) of SHMEM_TEAM_SHARED");
        all_pairs(&split, 100);
        shmem_team_destroy(t);
    }
    /* PEs 1 to n - 1 of it. */
    if (ns >= 2) {
        t = SHMEM_TEAM_INVALID;
        TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_SHARED, 1, 1, ns - 1, NULL, 0, &t) == 0,
                    "split 1/1/%d of SHMEM_TEAM_SHARED failed", ns - 1);
        if (t != SHMEM_TEAM_INVALID) {
            team_fill(&split, t, "split(1,1) of SHMEM_TEAM_SHARED");
            all_pairs(&split, 200);
            shmem_team_destroy(t);
        }
    }
    shmem_barrier_all();
    refusals();
    test_note("%zu pairs x %d forms on %d team(s) of SHMEM_TEAM_SHARED (%d PEs)%s: %ld elements "
              "checked", N_GR_FNS, M_COUNT, ns >= 2 ? 3 : 2, ns,
              ns < test_npes ? " and on SHMEM_TEAM_WORLD" : "", n_checked);
    shmem_free(ddst);
    shmem_free(dsrc);
    free(hchk);
    free(hbuf);
    return test_finish();
}
