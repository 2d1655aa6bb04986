/*
 * The reductions: every (type, operation) pair of the team-based table and
 * of the active-set (*_to_all) table, the sum scans and NVSHMEM's
 * reduce-scatter (shmemx), over TEAM_WORLD, TEAM_SHARED and split teams,
 * with each reduction algorithm forced in turn (FABSHMEM_REDUCE_ALGO, read
 * again by every shmem_init).
 *
 * The file builds four programs (REDUCE_PART): tests/coll/reduce (1: the team
 * reductions, 1 MiB of long, buffers in the data segment, the C11 generic
 * forms, a few reductions on SHMEMX_TEAM_NODE, SHMEMX_TEAM_SAME_MYPE_NODE,
 * the world reversed and interleaved and a 2-D split), tests/reduce_toall
 * (2: the *_to_all forms over active sets), tests/reduce_scan (3: the
 * scans) and tests/reduce_rs (4: reduce-scatter); each reaches 1 MiB once.
 * Each PE computes every expected element from the same seeded inputs of
 * every member and checks every element it got.  The values keep every type
 * exact: small integers for the sums (which may wrap the narrow integers,
 * as the library must), 1..3 for the products, signed values for max/min of
 * the signed types and pseudo-random bit patterns for the bitwise
 * operations.
 *
 * The first pass (auto) runs every (type, operation) pair; the pass of a
 * forced algorithm every type and every operation at least once
 * (pass_select).  Parts 1 and 2 check with shmemx_team_coll_count that the
 * forced algorithm ran on TEAM_WORLD where it applies and fell back where
 * it does not.  The scans and the reduce-scatter follow the algorithm only
 * in how they read the other members' sources (gets under rd and rsag,
 * mapped memory otherwise), so they run auto and rd by default.
 *
 *   tests/coll/reduce [--quick] [ALGO...]
 *       default ALGO: auto direct small ll rd rsag hier (parts 3 and 4:
 *       auto rd); --quick: small sizes, each type and operation once,
 *       TEAM_WORLD only, auto and rsag (rd) by default (slow providers)
 */
#include "common_x.h"
#include "reduce_common.h"
#include <complex.h>

#ifndef REDUCE_PART
#define REDUCE_PART 1
#endif

/* Split teams, when the library has them (weak: the program links without). */
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team) __attribute__((weak));
void shmem_team_destroy(shmem_team_t team) __attribute__((weak));

/* ---- the type lists of the active-set (*_to_all) table ---- */

/* (The team-based lists, the operations and the inputs are in
 * reduce_common.h.) */
#define TEST_TOALL_BITWISE_TYPES(X) \
    X(short, short) \
    X(int, int) \
    X(long, long) \
    X(long long, longlong)
#define TEST_TOALL_MINMAX_TYPES(X) \
    TEST_TOALL_BITWISE_TYPES(X) \
    X(float, float) \
    X(double, double) \
    X(long double, longdouble)

/* ---- teams ---- */

#define MAX_TEAMS 5
typedef struct tteam {
    shmem_team_t team;
    int n, me;
    int wpe[256];
    char name[48];
    int split;
    int id;           /* 0 world, 1 shared, 2 and 3 the splits */
} tteam_t;
static tteam_t teams[MAX_TEAMS];
static int n_teams;
static int have_split;

static void add_team(shmem_team_t t, const char *name, int split, int id)
{
    tteam_t *tt;
    int k;

    if (t == SHMEM_TEAM_INVALID)
        return;
    tt = &teams[n_teams++];
    tt->team = t;
    tt->n = shmem_team_n_pes(t);
    tt->me = shmem_team_my_pe(t);
    tt->split = split;
    tt->id = id;
    TEST_ASSERT(tt->n >= 1 && tt->n <= 256 && tt->me >= 0, "team %s: n %d me %d", name, tt->n,
                tt->me);
    for (k = 0; k < tt->n; k++)
        tt->wpe[k] = shmem_team_translate_pe(t, k, SHMEM_TEAM_WORLD);
    snprintf(tt->name, sizeof(tt->name), "%s", name);
}

static void teams_make(void)
{
    shmem_team_t t;

    n_teams = 0;
    add_team(SHMEM_TEAM_WORLD, "world", 0, 0);
    add_team(SHMEM_TEAM_SHARED, "shared", 0, 1);
    have_split = shmem_team_split_strided != NULL && shmem_team_destroy != NULL;
    if (!have_split)
        return;
    /* PEs 1..n-1, then the even PEs. */
    if (test_npes >= 2) {
        t = SHMEM_TEAM_INVALID;
        TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, test_npes - 1, NULL, 0,
                                             &t) == 0, "split 1/1/%d failed", test_npes - 1);
        add_team(t, "split(1,1,n-1)", 1, 2);
    }
    t = SHMEM_TEAM_INVALID;
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (test_npes + 1) / 2, NULL, 0,
                                         &t) == 0, "split 0/2/%d failed", (test_npes + 1) / 2);
    add_team(t, "split(0,2,n/2)", 1, 3);
}

static void teams_free(void)
{
    int i;
    for (i = 0; i < n_teams; i++)
        if (teams[i].split)
            shmem_team_destroy(teams[i].team);
    n_teams = 0;
}

/* ---- buffers ---- */

#define MIB_LONGS ((size_t)1 << 17) /* 1 MiB of long */
#define BUF_BYTES (((size_t)1 << 20) + 4096)
static char *buf_src, *buf_dst, *buf_wrk;
static const char *cur_algo = "auto";
static long n_checked;

/* A guard after the last element: the library must not write past it. */
static void guard_set(void *p, size_t off)
{
    memset((char *)p + off, 0x5a, 32);
}

static void guard_check(const void *p, size_t off, const char *what)
{
    const unsigned char *c = (const unsigned char *)p + off;
    int i;
    for (i = 0; i < 32; i++)
        if (c[i] != 0x5a)
            test_fail("%s (algo %s): byte %zu past the end was overwritten", what, cur_algo,
                      off + (size_t)i);
}

#define FAIL_AT(what, tt, i, e, g) \
    test_fail("%s on team %s (%d PEs, algo %s): index %zu: expected %.0Lf, got %.0Lf", what, \
              (tt)->name, (tt)->n, cur_algo, (size_t)(i), (long double)(e), (long double)(g))

#define CFAIL_AT(what, tt, i, RT, e, g) \
    do { \
        RT pe_[2], pg_[2]; \
        memcpy(pe_, &(e), sizeof(pe_)); \
        memcpy(pg_, &(g), sizeof(pg_)); \
        test_fail("%s on team %s (%d PEs, algo %s): index %zu: expected %.0Lf%+.0Lfi, got " \
                  "%.0Lf%+.0Lfi", what, (tt)->name, (tt)->n, cur_algo, (size_t)(i), \
                  (long double)pe_[0], (long double)pe_[1], (long double)pg_[0], \
                  (long double)pg_[1]); \
    } while (0)

/* The pairs of a table that a pass runs (pass_sel[f]).  The first pass
 * (auto) runs every pair; the pass of a forced algorithm (and --quick)
 * runs each type once, the operation turning with the pass, then for each
 * operation that no type took one of its types (turning too): every type
 * and every operation at least once, in a third of the time. */
static int pass_no, quick;
static unsigned char pass_sel[256];

static __attribute__((unused)) void pass_select(const char *const *types, const int *ops,
                                                size_t nf)
{
    size_t f, g, ti = 0, k, cnt, pick;
    int op, seen;

    TEST_ASSERT(nf <= sizeof(pass_sel), "table of %zu pairs", nf);
    memset(pass_sel, pass_no == 0 && !quick, sizeof(pass_sel));
    if (pass_no == 0 && !quick)
        return;
    for (f = 0; f < nf; f++) {
        for (g = 0; g < f && strcmp(types[g], types[f]); g++)
            ;
        if (g < f)
            continue; /* not the first pair of its type */
        for (cnt = 0, g = f; g < nf; g++)
            cnt += !strcmp(types[g], types[f]);
        pick = ((size_t)pass_no + ti++) % cnt;
        for (k = 0, g = f; g < nf; g++)
            if (!strcmp(types[g], types[f]) && k++ == pick)
                pass_sel[g] = 1;
    }
    for (op = OP_AND; op <= OP_PROD; op++) {
        for (cnt = 0, seen = 0, g = 0; g < nf; g++)
            if (ops[g] == op) {
                cnt++;
                seen |= pass_sel[g];
            }
        if (seen || !cnt)
            continue;
        pick = (size_t)pass_no % cnt;
        for (k = 0, g = 0; g < nf; g++)
            if (ops[g] == op && k++ == pick)
                pass_sel[g] = 1;
    }
    /* Every type and every operation of the table is in. */
    for (f = 0; f < nf; f++) {
        int type_in = 0, op_in = 0;
        for (g = 0; g < nf; g++) {
            type_in |= pass_sel[g] && !strcmp(types[g], types[f]);
            op_in |= pass_sel[g] && ops[g] == ops[f];
        }
        TEST_ASSERT(type_in && op_in, "pass %d leaves out %s or operation %d", pass_no, types[f],
                    ops[f]);
    }
}

/* The type name and the operation of every entry of a part's table
 * NAME##_fns of (type, operation) pairs, for pass_select: NAME##_types
 * and NAME##_ops, in the order of RED_PAIRS. */
#define META_BITWISE(T, TN) #TN, #TN, #TN,
#define META_MINMAX(T, TN) #TN, #TN,
#define META_ARITH(T, TN) #TN, #TN,
#define META_COMPLEX(T, TN, RT) #TN, #TN,
#define OPS_BITWISE(T, TN) OP_AND, OP_OR, OP_XOR,
#define OPS_MINMAX(T, TN) OP_MAX, OP_MIN,
#define OPS_ARITH(T, TN) OP_SUM, OP_PROD,
#define OPS_COMPLEX(T, TN, RT) OP_SUM, OP_PROD,
#define RED_PAIR_META(NAME, BITWISE_TYPES, MINMAX_TYPES) \
    static const char *const NAME##_types[] = { RED_PAIRS(META, BITWISE_TYPES, MINMAX_TYPES) }; \
    static const int NAME##_ops[] = { RED_PAIRS(OPS, BITWISE_TYPES, MINMAX_TYPES) }; \
    _Static_assert(sizeof(NAME##_types) / sizeof(NAME##_types[0]) == \
                           sizeof(NAME##_fns) / sizeof(NAME##_fns[0]) && \
                       sizeof(NAME##_ops) / sizeof(NAME##_ops[0]) == \
                           sizeof(NAME##_fns) / sizeof(NAME##_fns[0]), \
                   #NAME " table metadata")

/* The shape of TEAM_WORLD (test_world_shape). */
static int world_mapped, world_hier;

/* What ran on TEAM_WORLD in a pass of algorithm algo: itself where it
 * applies, a fallback where it does not (hier under auto too). */
static const char *const red_algos[] = { "direct", "small", "ll", "rd", "rsag", "hier" };
#define N_RED_ALGOS (sizeof(red_algos) / sizeof(red_algos[0]))

static void counts_get(long *c)
{
    for (size_t a = 0; a < N_RED_ALGOS; a++) {
        c[a] = shmemx_team_coll_count(SHMEM_TEAM_WORLD, "reduce", red_algos[a]);
        TEST_ASSERT(c[a] >= 0, "shmemx_team_coll_count(world, reduce, %s)", red_algos[a]);
    }
}

static void counts_check(const long *before, const long *after, const char *algo)
{
    for (size_t a = 0; a < N_RED_ALGOS; a++) {
        const char *x = red_algos[a];
        long d = after[a] - before[a];
        int want;
        if (!strcmp(x, "hier") && (!strcmp(algo, "auto") || !strcmp(algo, "hier")))
            want = world_hier;
        else if (!strcmp(x, "ll") && !strcmp(algo, "small"))
            want = 0; /* small applies wherever auto would take ll */
        else if (strcmp(x, algo))
            continue;
        else if (!strcmp(x, "rd") || !strcmp(x, "rsag"))
            want = 1;
        else
            want = world_mapped; /* direct, small, ll */
        if (test_npes > 1 && (want ? d <= 0 : d != 0))
            test_fail("algo %s: reduce with %s ran %ld times on TEAM_WORLD (expected %s)", algo,
                      x, d, want ? "some" : "none");
    }
}

/* The input element of a complex type (IN_R: of a real or integer type). */
#define IN_C(T, RT, OPC, pe, i, salt, out) \
    do { \
        RT p_[2] = { (RT)in_val(OPC, 1, pe, i, salt), (RT)in_imag(OPC, pe, i, salt) }; \
        memcpy(&(out), p_, sizeof(out)); \
    } while (0)

#if REDUCE_PART == 1


/* ---- team-based reductions ---- */

/* One reduction of n elements on team tt; in place when inplace. */
#define RED_R(T, TN, OP, OPC) \
    static void red_##TN##_##OP(const tteam_t *tt, size_t n, int inplace, int salt) \
    { \
        static const char what[] = "shmem_" #TN "_" #OP "_reduce"; \
        T *src = (T *)buf_src, *dst = inplace ? src : (T *)buf_dst; \
        size_t i; \
        int k; \
        for (i = 0; i < n; i++) \
            src[i] = IN_R(T, OPC, test_me, i, salt); \
        guard_set(src, n * sizeof(T)); \
        guard_set(dst, n * sizeof(T)); \
        if (!inplace) \
            memset(dst, 0, n * sizeof(T)); \
        TEST_ASSERT(shmem_##TN##_##OP##_reduce(tt->team, dst, src, n) == 0, \
                    "%s on team %s returned nonzero", what, tt->name); \
        for (i = 0; i < n; i++) { \
            T e = IN_R(T, OPC, tt->wpe[0], i, salt); \
            for (k = 1; k < tt->n; k++) \
                e = (T)COMB_##OP(e, IN_R(T, OPC, tt->wpe[k], i, salt)); \
            if (dst[i] != e) \
                FAIL_AT(what, tt, i, e, dst[i]); \
            if (!inplace && src[i] != IN_R(T, OPC, test_me, i, salt)) \
                test_fail("%s: source changed at %zu", what, i); \
        } \
        guard_check(dst, n * sizeof(T), what); \
        guard_check(src, n * sizeof(T), what); \
        n_checked += (long)n; \
    }

#define RED_C(T, TN, RT, OP, OPC) \
    static void red_##TN##_##OP(const tteam_t *tt, size_t n, int inplace, int salt) \
    { \
        static const char what[] = "shmem_" #TN "_" #OP "_reduce"; \
        T *src = (T *)buf_src, *dst = inplace ? src : (T *)buf_dst, e, x; \
        size_t i; \
        int k; \
        for (i = 0; i < n; i++) \
            IN_C(T, RT, OPC, test_me, i, salt, src[i]); \
        guard_set(src, n * sizeof(T)); \
        guard_set(dst, n * sizeof(T)); \
        if (!inplace) \
            memset(dst, 0, n * sizeof(T)); \
        TEST_ASSERT(shmem_##TN##_##OP##_reduce(tt->team, dst, src, n) == 0, \
                    "%s on team %s returned nonzero", what, tt->name); \
        for (i = 0; i < n; i++) { \
            IN_C(T, RT, OPC, tt->wpe[0], i, salt, e); \
            for (k = 1; k < tt->n; k++) { \
                IN_C(T, RT, OPC, tt->wpe[k], i, salt, x); \
                e = COMB_##OP(e, x); \
            } \
            if (dst[i] != e) \
                CFAIL_AT(what, tt, i, RT, e, dst[i]); \
        } \
        guard_check(dst, n * sizeof(T), what); \
        n_checked += (long)n; \
    }

/* The functions and their table, one per (type, operation) pair. */
#define PAIR_R RED_R
#define PAIR_C RED_C
#define PAIR_FN(TN, OP) red_##TN##_##OP
RED_PAIRS(PAIR, TEST_RED_BITWISE_TYPES, TEST_RED_MINMAX_TYPES)

typedef void (*red_fn)(const tteam_t *tt, size_t n, int inplace, int salt);
static const red_fn red_fns[] = {
    RED_PAIRS(REF, TEST_RED_BITWISE_TYPES, TEST_RED_MINMAX_TYPES)
};
#define N_RED_FNS (sizeof(red_fns) / sizeof(red_fns[0]))
RED_PAIR_META(red, TEST_RED_BITWISE_TYPES, TEST_RED_MINMAX_TYPES);

/* ---- the data segment and the generic forms ---- */

static long gsrc[1100], gdst[1100];
static double gdsrc[1100], gddst[1100];

static void data_segment(int salt)
{
    const tteam_t *tt = &teams[0];
    size_t n = 1000, i;
    int k;

    for (i = 0; i < n; i++) {
        gsrc[i] = (long)in_val(OP_SUM, 1, test_me, i, salt);
        gdsrc[i] = (double)in_val(OP_MAX, 1, test_me, i, salt);
    }
    TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, gdst, gsrc, n) == 0, "data sum");
    TEST_ASSERT(shmem_double_max_reduce(SHMEM_TEAM_WORLD, gddst, gdsrc, n) == 0, "data max");
    for (i = 0; i < n; i++) {
        long e = 0;
        double m = (double)in_val(OP_MAX, 1, 0, i, salt);
        for (k = 0; k < tt->n; k++) {
            e += (long)in_val(OP_SUM, 1, k, i, salt);
            m = COMB_max(m, (double)in_val(OP_MAX, 1, k, i, salt));
        }
        if (gdst[i] != e)
            FAIL_AT("shmem_long_sum_reduce (data segment)", tt, i, e, gdst[i]);
        if (gddst[i] != m)
            FAIL_AT("shmem_double_max_reduce (data segment)", tt, i, m, gddst[i]);
    }
    /* In place, 7 elements (rd on every algorithm but direct's fallback). */
    for (i = 0; i < 7; i++)
        gsrc[i] = (long)in_val(OP_SUM, 1, test_me, i, salt + 1);
    TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, gsrc, gsrc, 7) == 0, "data in place");
    for (i = 0; i < 7; i++) {
        long e = 0;
        for (k = 0; k < tt->n; k++)
            e += (long)in_val(OP_SUM, 1, k, i, salt + 1);
        if (gsrc[i] != e)
            FAIL_AT("shmem_long_sum_reduce (data segment, in place)", tt, i, e, gsrc[i]);
    }
    n_checked += 2 * (long)n + 7;
}

static void generic_forms(const tteam_t *tt, int salt)
{
    int *isrc = (int *)buf_src, *idst = (int *)buf_dst;
    double _Complex *csrc = (double _Complex *)buf_src, *cdst = (double _Complex *)buf_dst;
    size_t n = 10, i;
    int k;

    for (i = 0; i < n; i++)
        isrc[i] = (int)in_val(OP_MIN, 1, test_me, i, salt);
    TEST_ASSERT(shmem_min_reduce(tt->team, idst, isrc, n) == 0, "generic min");
    for (i = 0; i < n; i++) {
        int e = (int)in_val(OP_MIN, 1, tt->wpe[0], i, salt);
        for (k = 1; k < tt->n; k++)
            e = COMB_min(e, (int)in_val(OP_MIN, 1, tt->wpe[k], i, salt));
        if (idst[i] != e)
            FAIL_AT("shmem_min_reduce (generic, int)", tt, i, e, idst[i]);
    }
    for (i = 0; i < n; i++)
        IN_C(double _Complex, double, OP_SUM, test_me, i, salt, csrc[i]);
    TEST_ASSERT(shmem_sum_reduce(tt->team, cdst, csrc, n) == 0, "generic sum");
    for (i = 0; i < n; i++) {
        double _Complex e, x;
        IN_C(double _Complex, double, OP_SUM, tt->wpe[0], i, salt, e);
        for (k = 1; k < tt->n; k++) {
            IN_C(double _Complex, double, OP_SUM, tt->wpe[k], i, salt, x);
            e += x;
        }
        if (cdst[i] != e)
            CFAIL_AT("shmem_sum_reduce (generic, complexd)", tt, i, double, e, cdst[i]);
    }
}

/* 1 MiB of long summed over the world, in place or not. */
static void big_sum(int inplace, int salt)
{
    const tteam_t *tt = &teams[0];
    long *src = (long *)buf_src, *dst = inplace ? src : (long *)buf_dst;
    size_t n = MIB_LONGS, i;
    int k;

    for (i = 0; i < n; i++)
        src[i] = (long)in_val(OP_SUM, 1, test_me, i, salt);
    guard_set(dst, n * sizeof(long));
    TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n) == 0, "1 MiB sum");
    for (i = 0; i < n; i++) {
        long e = 0;
        for (k = 0; k < tt->n; k++)
            e += (long)in_val(OP_SUM, 1, k, i, salt);
        if (dst[i] != e)
            FAIL_AT("shmem_long_sum_reduce (1 MiB)", tt, i, e, dst[i]);
    }
    guard_check(dst, n * sizeof(long), "shmem_long_sum_reduce (1 MiB)");
    n_checked += (long)n;
}

/* A few reductions (a node-crossing size, a tiny one, a complex product)
 * on the other kinds of team (test_more_teams_make): SHMEMX_TEAM_NODE,
 * SHMEMX_TEAM_SAME_MYPE_NODE, the world reversed (stride -1) and
 * interleaved, and both teams of a 2-D split with rows of 2. */
static void more_teams(int salt)
{
    shmem_team_t tl[TEST_MORE_TEAMS];
    const char *names[TEST_MORE_TEAMS];
    int i, saved = n_teams;

    /* (The interleaved team from 2 PEs: from 3 virtual nodes of 2
     * interleave; at 2 it is the world in order, made by shmemx_team_init.) */
    test_more_teams_make(2, tl, names);
    for (i = 0; i < TEST_MORE_TEAMS; i++) {
        tteam_t *tt;
        if (tl[i] == SHMEM_TEAM_INVALID)
            continue;
        n_teams = saved;
        add_team(tl[i], names[i], 0, 4 + i);
        tt = &teams[n_teams - 1];
        red_long_sum(tt, 1000, 0, salt + i);
        red_double_max(tt, 7, 1, salt + i);
        red_complexd_prod(tt, 3, 0, salt + i);
        red_uint_xor(tt, 1000, 1, salt + i);
    }
    n_teams = saved;
    test_more_teams_free(tl);
}

static void run_part(void)
{
    static const size_t sizes[] = { 0, 1, 7, 1000 };
    int t, salt = 1;
    size_t f, z, nz = quick ? 3 : sizeof(sizes) / sizeof(sizes[0]);
    shmem_team_t bad = SHMEM_TEAM_INVALID;

    /* An invalid team: nonzero, no communication. */
    TEST_ASSERT(shmem_long_sum_reduce(bad, (long *)buf_dst, (long *)buf_src, 1) != 0,
                "shmem_long_sum_reduce on SHMEM_TEAM_INVALID returned 0");
    pass_select(red_types, red_ops, N_RED_FNS);
    for (f = 0; f < N_RED_FNS; f++, salt++) {
        if (!pass_sel[f])
            continue;
        for (t = 0; t < (quick ? 1 : n_teams); t++) {
            const tteam_t *tt = &teams[t];
            if (t == 0) {
                /* World: every size out of place, then one in place. */
                for (z = 0; z < nz; z++)
                    red_fns[f](tt, sizes[z], 0, salt);
                red_fns[f](tt, f & 1 || quick ? 7 : 1000, 1, salt);
            } else {
                red_fns[f](tt, f & 1 ? 1000 : 7, (int)(f >> 1) & 1, salt);
            }
        }
    }
    if (quick)
        return;
    big_sum(0, salt++);
    big_sum(1, salt++);
    data_segment(salt++);
    /* The same salt on every member of a team (PEs hold different team lists). */
    for (t = 0; t < n_teams; t++)
        generic_forms(&teams[t], salt + teams[t].id);
    salt += 8;
    if (have_split)
        more_teams(salt);
}

#endif

#if REDUCE_PART == 2

/* ---- the active-set forms ---- */

typedef struct aset {
    int start, log_stride, size;
} aset_t;

/* The active set as a pseudo-team (world PEs of its members). */
static int aset_team(const aset_t *a, tteam_t *tt)
{
    int k, member = 0;

    tt->team = SHMEM_TEAM_INVALID;
    tt->n = a->size;
    tt->me = -1;
    for (k = 0; k < a->size; k++) {
        tt->wpe[k] = a->start + (k << a->log_stride);
        if (tt->wpe[k] == test_me) {
            tt->me = k;
            member = 1;
        }
    }
    snprintf(tt->name, sizeof(tt->name), "aset(%d,%d,%d)", a->start, a->log_stride, a->size);
    return member;
}

static long psync[SHMEM_REDUCE_SYNC_SIZE];

#define TOALL_R(T, TN, OP, OPC) \
    static void toall_##TN##_##OP(const aset_t *a, const tteam_t *tt, size_t n, int inplace, \
                                  int salt) \
    { \
        static const char what[] = "shmem_" #TN "_" #OP "_to_all"; \
        T *src = (T *)buf_src, *dst = inplace ? src : (T *)buf_dst; \
        size_t i; \
        int k; \
        for (i = 0; i < n; i++) \
            src[i] = IN_R(T, OPC, test_me, i, salt); \
        guard_set(dst, n * sizeof(T)); \
        shmem_##TN##_##OP##_to_all(dst, src, (int)n, a->start, a->log_stride, a->size, \
                                   (T *)buf_wrk, psync); \
        for (i = 0; i < n; i++) { \
            T e = IN_R(T, OPC, tt->wpe[0], i, salt); \
            for (k = 1; k < tt->n; k++) \
                e = (T)COMB_##OP(e, IN_R(T, OPC, tt->wpe[k], i, salt)); \
            if (dst[i] != e) \
                FAIL_AT(what, tt, i, e, dst[i]); \
        } \
        guard_check(dst, n * sizeof(T), what); \
        n_checked += (long)n; \
    }

#define TOALL_C(T, TN, RT, OP, OPC) \
    static void toall_##TN##_##OP(const aset_t *a, const tteam_t *tt, size_t n, int inplace, \
                                  int salt) \
    { \
        static const char what[] = "shmem_" #TN "_" #OP "_to_all"; \
        T *src = (T *)buf_src, *dst = inplace ? src : (T *)buf_dst, e, x; \
        size_t i; \
        int k; \
        for (i = 0; i < n; i++) \
            IN_C(T, RT, OPC, test_me, i, salt, src[i]); \
        guard_set(dst, n * sizeof(T)); \
        shmem_##TN##_##OP##_to_all(dst, src, (int)n, a->start, a->log_stride, a->size, \
                                   (T *)buf_wrk, psync); \
        for (i = 0; i < n; i++) { \
            IN_C(T, RT, OPC, tt->wpe[0], i, salt, e); \
            for (k = 1; k < tt->n; k++) { \
                IN_C(T, RT, OPC, tt->wpe[k], i, salt, x); \
                e = COMB_##OP(e, x); \
            } \
            if (dst[i] != e) \
                CFAIL_AT(what, tt, i, RT, e, dst[i]); \
        } \
        guard_check(dst, n * sizeof(T), what); \
        n_checked += (long)n; \
    }

/* The functions and their table, one per (type, operation) pair. */
#define PAIR_R TOALL_R
#define PAIR_C TOALL_C
#define PAIR_FN(TN, OP) toall_##TN##_##OP
RED_PAIRS(PAIR, TEST_TOALL_BITWISE_TYPES, TEST_TOALL_MINMAX_TYPES)

typedef void (*toall_fn)(const aset_t *a, const tteam_t *tt, size_t n, int inplace, int salt);
static const toall_fn toall_fns[] = {
    RED_PAIRS(REF, TEST_TOALL_BITWISE_TYPES, TEST_TOALL_MINMAX_TYPES)
};
#define N_TOALL_FNS (sizeof(toall_fns) / sizeof(toall_fns[0]))
RED_PAIR_META(toall, TEST_TOALL_BITWISE_TYPES, TEST_TOALL_MINMAX_TYPES);

static void run_part(void)
{
    aset_t sets[3];
    int nsets = 0, s, salt = 1;
    size_t f;
    tteam_t at;

    /* The active sets: the world, PEs 1..n-1, the even PEs. */
    sets[nsets++] = (aset_t){ 0, 0, test_npes };
    if (test_npes >= 2 && !quick)
        sets[nsets++] = (aset_t){ 1, 0, test_npes - 1 };
    if (test_npes >= 3 && !quick)
        sets[nsets++] = (aset_t){ 0, 1, (test_npes + 1) / 2 };
    pass_select(toall_types, toall_ops, N_TOALL_FNS);
    for (s = 0; s < nsets; s++, salt += (int)N_TOALL_FNS) {
        if (!aset_team(&sets[s], &at))
            continue;
        for (f = 0; f < N_TOALL_FNS; f++) {
            if (!pass_sel[f])
                continue;
            toall_fns[f](&sets[s], &at, 1, 0, salt + (int)f);
            toall_fns[f](&sets[s], &at, quick ? 7 : 1000, s == 0, salt + (int)f);
            if (s == 0) {
                toall_fns[f](&sets[s], &at, 7, 0, salt + (int)f);
                /* nreduce 0: nothing written, not even dest[0]. */
                toall_fns[f](&sets[s], &at, 0, 0, salt + (int)f);
            }
        }
    }
    /* 1 MiB of long over the world. */
    if (!quick && aset_team(&sets[0], &at))
        toall_long_sum(&sets[0], &at, (size_t)1 << 17, 0, salt);
}

#endif

#if REDUCE_PART == 3


/* ---- scans ---- */

#define SCAN_R(T, TN) \
    static void scan_##TN(const tteam_t *tt, size_t n, int excl, int inplace, int salt) \
    { \
        const char *what = excl ? "shmem_" #TN "_sum_exscan" : "shmem_" #TN "_sum_inscan"; \
        T *src = (T *)buf_src, *dst = inplace ? src : (T *)buf_dst; \
        size_t i; \
        int k, cnt = excl ? tt->me : tt->me + 1; \
        for (i = 0; i < n; i++) \
            src[i] = IN_R(T, OP_SUM, test_me, i, salt); \
        guard_set(dst, n * sizeof(T)); \
        TEST_ASSERT((excl ? shmem_##TN##_sum_exscan(tt->team, dst, src, n) \
                          : shmem_##TN##_sum_inscan(tt->team, dst, src, n)) == 0, \
                    "%s on team %s returned nonzero", what, tt->name); \
        for (i = 0; i < n; i++) { \
            T e = (T)0; \
            for (k = 0; k < cnt; k++) \
                e = (T)(e + IN_R(T, OP_SUM, tt->wpe[k], i, salt)); \
            if (dst[i] != e) \
                FAIL_AT(what, tt, i, e, dst[i]); \
            if (!inplace && src[i] != IN_R(T, OP_SUM, test_me, i, salt)) \
                test_fail("%s: source changed at %zu", what, i); \
        } \
        guard_check(dst, n * sizeof(T), what); \
        n_checked += (long)n; \
    }

#define SCAN_C(T, TN, RT) \
    static void scan_##TN(const tteam_t *tt, size_t n, int excl, int inplace, int salt) \
    { \
        const char *what = excl ? "shmem_" #TN "_sum_exscan" : "shmem_" #TN "_sum_inscan"; \
        T *src = (T *)buf_src, *dst = inplace ? src : (T *)buf_dst, e, x; \
        size_t i; \
        int k, cnt = excl ? tt->me : tt->me + 1; \
        for (i = 0; i < n; i++) \
            IN_C(T, RT, OP_SUM, test_me, i, salt, src[i]); \
        guard_set(dst, n * sizeof(T)); \
        TEST_ASSERT((excl ? shmem_##TN##_sum_exscan(tt->team, dst, src, n) \
                          : shmem_##TN##_sum_inscan(tt->team, dst, src, n)) == 0, \
                    "%s on team %s returned nonzero", what, tt->name); \
        for (i = 0; i < n; i++) { \
            e = (T)0; \
            for (k = 0; k < cnt; k++) { \
                IN_C(T, RT, OP_SUM, tt->wpe[k], i, salt, x); \
                e += x; \
            } \
            if (dst[i] != e) \
                CFAIL_AT(what, tt, i, RT, e, dst[i]); \
        } \
        guard_check(dst, n * sizeof(T), what); \
        n_checked += (long)n; \
    }

TEST_RED_MINMAX_TYPES(SCAN_R)
TEST_RED_COMPLEX_TYPES(SCAN_C)

typedef void (*scan_fn)(const tteam_t *tt, size_t n, int excl, int inplace, int salt);
static const scan_fn scan_fns[] = {
#define SCAN_REF(T, TN) scan_##TN,
#define SCAN_REF_C(T, TN, RT) scan_##TN,
    TEST_RED_MINMAX_TYPES(SCAN_REF)
    TEST_RED_COMPLEX_TYPES(SCAN_REF_C)
};
#define N_SCAN_FNS (sizeof(scan_fns) / sizeof(scan_fns[0]))

/* An inclusive scan of buffers in the data segment. */
static long gsrc[1064], gdst[1064];

static void data_segment(int salt)
{
    const tteam_t *tt = &teams[0];
    size_t n = 1000, i;
    int k;

    for (i = 0; i < n; i++)
        gsrc[i] = (long)in_val(OP_SUM, 1, test_me, i, salt);
    TEST_ASSERT(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, gdst, gsrc, n) == 0, "data inscan");
    for (i = 0; i < n; i++) {
        long e = 0;
        for (k = 0; k <= test_me; k++)
            e += (long)in_val(OP_SUM, 1, k, i, salt);
        if (gdst[i] != e)
            FAIL_AT("shmem_long_sum_inscan (data segment)", tt, i, e, gdst[i]);
    }
    n_checked += (long)n;
}

static void run_part(void)
{
    static const size_t sizes[] = { 0, 1, 7, 1000 };
    int t, salt = 1;
    size_t f, z;

    /* The first pass: every type at every size on every team; the others
     * (and --quick) every type on the world at two sizes, and a fifth of
     * the types on the other teams. */
    for (f = 0; f < N_SCAN_FNS; f++, salt++) {
        int all = pass_no == 0 && !quick;
        for (t = 0; t < (quick ? 1 : n_teams); t++) {
            const tteam_t *tt = &teams[t];
            if (t == 0 && all) {
                for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
                    scan_fns[f](tt, sizes[z], 0, 0, salt);
                    scan_fns[f](tt, sizes[z], 1, 0, salt);
                }
                scan_fns[f](tt, 7, 0, 1, salt);
                scan_fns[f](tt, 1000, 1, 1, salt);
            } else if (t == 0) {
                scan_fns[f](tt, quick ? 1 : 1000, (int)f & 1, 0, salt);
                scan_fns[f](tt, 7, !(f & 1), 1, salt);
            } else if (all || (int)(f % 5) == pass_no % 5) {
                scan_fns[f](tt, 7, 0, 1, salt);
                scan_fns[f](tt, 1000, 1, 0, salt);
            }
        }
    }
    if (quick)
        return;
    data_segment(salt++);
    /* 1 MiB of long, inclusive. */
    scan_long(&teams[0], MIB_LONGS, 0, 0, salt++);
}

#endif

#if REDUCE_PART == 4

/* ---- reduce-scatter ---- */

#define RS_R(T, TN, OP, OPC) \
    static void rs_##TN##_##OP(const tteam_t *tt, size_t n, int inplace, int salt) \
    { \
        static const char what[] = "shmemx_" #TN "_" #OP "_reducescatter"; \
        T *src = (T *)buf_src, *dst = inplace ? src : (T *)buf_dst; \
        size_t i, tot = n * (size_t)tt->n, b = (size_t)tt->me * n; \
        int k; \
        for (i = 0; i < tot; i++) \
            src[i] = IN_R(T, OPC, test_me, i, salt); \
        guard_set(dst, inplace ? tot * sizeof(T) : n * sizeof(T)); \
        TEST_ASSERT(shmemx_##TN##_##OP##_reducescatter(tt->team, dst, src, n) == 0, \
                    "%s on team %s returned nonzero", what, tt->name); \
        for (i = 0; i < n; i++) { \
            T e = IN_R(T, OPC, tt->wpe[0], b + i, salt); \
            for (k = 1; k < tt->n; k++) \
                e = (T)COMB_##OP(e, IN_R(T, OPC, tt->wpe[k], b + i, salt)); \
            if (dst[i] != e) \
                FAIL_AT(what, tt, i, e, dst[i]); \
        } \
        guard_check(dst, inplace ? tot * sizeof(T) : n * sizeof(T), what); \
        n_checked += (long)n; \
    }

#define RS_C(T, TN, RT, OP, OPC) \
    static void rs_##TN##_##OP(const tteam_t *tt, size_t n, int inplace, int salt) \
    { \
        static const char what[] = "shmemx_" #TN "_" #OP "_reducescatter"; \
        T *src = (T *)buf_src, *dst = inplace ? src : (T *)buf_dst, e, x; \
        size_t i, tot = n * (size_t)tt->n, b = (size_t)tt->me * n; \
        int k; \
        for (i = 0; i < tot; i++) \
            IN_C(T, RT, OPC, test_me, i, salt, src[i]); \
        guard_set(dst, inplace ? tot * sizeof(T) : n * sizeof(T)); \
        TEST_ASSERT(shmemx_##TN##_##OP##_reducescatter(tt->team, dst, src, n) == 0, \
                    "%s on team %s returned nonzero", what, tt->name); \
        for (i = 0; i < n; i++) { \
            IN_C(T, RT, OPC, tt->wpe[0], b + i, salt, e); \
            for (k = 1; k < tt->n; k++) { \
                IN_C(T, RT, OPC, tt->wpe[k], b + i, salt, x); \
                e = COMB_##OP(e, x); \
            } \
            if (dst[i] != e) \
                CFAIL_AT(what, tt, i, RT, e, dst[i]); \
        } \
        guard_check(dst, inplace ? tot * sizeof(T) : n * sizeof(T), what); \
        n_checked += (long)n; \
    }

/* The functions and their table, one per (type, operation) pair. */
#define PAIR_R RS_R
#define PAIR_C RS_C
#define PAIR_FN(TN, OP) rs_##TN##_##OP
RED_PAIRS(PAIR, TEST_RED_BITWISE_TYPES, TEST_RED_MINMAX_TYPES)

typedef void (*rs_fn)(const tteam_t *tt, size_t n, int inplace, int salt);
static const rs_fn rs_fns[] = {
    RED_PAIRS(REF, TEST_RED_BITWISE_TYPES, TEST_RED_MINMAX_TYPES)
};
#define N_RS_FNS (sizeof(rs_fns) / sizeof(rs_fns[0]))
RED_PAIR_META(rs, TEST_RED_BITWISE_TYPES, TEST_RED_MINMAX_TYPES);

/* Scans and reduce-scatter on buffers in the data segment. */
/* A reduce-scatter of buffers in the data segment (up to 64 PEs). */
#define RS_DATA_N 200
static long gsrc[64 * RS_DATA_N], gdst[RS_DATA_N];

static void data_segment(int salt)
{
    const tteam_t *tt = &teams[0];
    size_t n = RS_DATA_N, i, b = (size_t)test_me * n;
    int k;

    if (test_npes > 64)
        return;
    for (i = 0; i < n * (size_t)test_npes; i++)
        gsrc[i] = (long)in_val(OP_SUM, 1, test_me, i, salt);
    TEST_ASSERT(shmemx_long_sum_reducescatter(SHMEM_TEAM_WORLD, gdst, gsrc, n) == 0,
                "data reducescatter");
    for (i = 0; i < n; i++) {
        long e = 0;
        for (k = 0; k < test_npes; k++)
            e += (long)in_val(OP_SUM, 1, k, b + i, salt);
        if (gdst[i] != e)
            FAIL_AT("shmemx_long_sum_reducescatter (data segment)", tt, i, e, gdst[i]);
    }
    n_checked += (long)n;
}

static void run_part(void)
{
    int t, salt = 1;
    size_t f;

    pass_select(rs_types, rs_ops, N_RS_FNS);
    for (f = 0; f < N_RS_FNS; f++, salt++) {
        if (!pass_sel[f])
            continue;
        for (t = 0; t < (quick ? 1 : n_teams); t++) {
            const tteam_t *tt = &teams[t];
            if (t == 0) {
                /* World: 1000 elements, then 0, 1 or 7 (in place). */
                rs_fns[f](tt, quick ? 3 : 1000, 0, salt);
                if (f % 3 == 2)
                    rs_fns[f](tt, 7, 1, salt);
                else
                    rs_fns[f](tt, f % 3, 0, salt);
            } else {
                rs_fns[f](tt, 100, tt->id & 1, salt);
            }
        }
    }
    if (quick)
        return;
    data_segment(salt++);
    /* 1 MiB of long in the sources. */
    rs_long_sum(&teams[0], MIB_LONGS / (size_t)test_npes, 0, salt++);
}

#endif

int main(int argc, char **argv)
{
    static const char *algos_all[] = { "auto", "direct", "small", "ll", "rd", "rsag", "hier" };
    static const char *algos_pull[] = { "auto", "rd" };
    static const char *part_names[] = { "reduce", "reduce_toall", "reduce_scan", "reduce_rs" };
    const char **algos = REDUCE_PART <= 2 ? algos_all : algos_pull;
    int nalgos = REDUCE_PART <= 2 ? 7 : 2, a, nt;
    long before[N_RED_ALGOS], after[N_RED_ALGOS];
    double t0;

    if (argc > 1 && !strcmp(argv[1], "--quick")) {
        static const char *algos_quick[] = { "auto", REDUCE_PART <= 2 ? "rsag" : "rd" };
        quick = 1;
        argc--;
        argv++;
        algos = algos_quick;
        nalgos = 2;
    }
    if (argc > 1) {
        algos = (const char **)(argv + 1);
        nalgos = argc - 1;
    }
    for (a = 0; a < nalgos; a++) {
        cur_algo = algos[a];
        pass_no = a;
        setenv("FABSHMEM_REDUCE_ALGO", cur_algo, 1);
        test_init(part_names[REDUCE_PART - 1]);
        t0 = test_now();
        buf_src = shmem_malloc(BUF_BYTES);
        buf_dst = shmem_malloc(BUF_BYTES);
        buf_wrk = shmem_malloc(BUF_BYTES);
        TEST_ASSERT(buf_src && buf_dst && buf_wrk, "shmem_malloc of %zu bytes failed", BUF_BYTES);
        test_world_shape(&world_mapped, &world_hier);
        teams_make();
        counts_get(before);
        n_checked = 0;
        run_part();
        counts_get(after);
        /* The scans and the reduce-scatter do not count as reductions. */
        if (REDUCE_PART <= 2)
            counts_check(before, after, cur_algo);
        nt = n_teams;
        teams_free();
        shmem_free(buf_wrk);
        shmem_free(buf_dst);
        shmem_free(buf_src);
        shmem_barrier_all();
        test_note("algo %s: %ld elements checked on PE 0, %d teams%s (%.2f s)", cur_algo,
                  n_checked, nt, have_split ? "" : " (no shmem_team_split_strided)",
                  test_now() - t0);
        if (a < nalgos - 1)
            shmem_finalize();
    }
    return test_finish();
}
