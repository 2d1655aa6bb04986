/*
 * Team synchronization and collectives on streams, by value on every PE,
 * on SHMEM_TEAM_WORLD (stream sa) and on a split team of the even PEs
 * (stream sb, so that the two teams' collectives run at the same time):
 *   - barrier_all_on_stream and barrier_on_stream: a put to the team
 *     neighbour before the barrier is visible to a kernel after it;
 *     sync_all_on_stream and team_sync_on_stream the same after
 *     quiet_on_stream;
 *   - broadcast (from the last member), fcollect and alltoall of every
 *     standard RMA type (X-macros over the type list) and the mem forms;
 *   - every (type, operation) pair of the team reductions and of
 *     reducescatter, complex types included, with inputs that keep every
 *     type exact (small sums that may wrap the narrow integers as the
 *     library must, 1..3 for products, signed values for max and min,
 *     pseudo-random bits for and, or, xor).
 * A phase enqueues all of its collectives before one sync, and each PE
 * checks every element it got against what it computes from every
 * member's inputs.  run.sh runs it on the worker path (shm, tcp) and on
 * offloading streams (sockets), where collectives are worker items
 * between triggered operations.
 */
#include "common.h"
#include <shmemx.h>
#include <complex.h>

#define NE 3
#define ARENA (4 << 20)
#define NTEAMS 2

static shmemx_stream_t sa, sb;
static int me, npes;
static char *arena;
static size_t arena_used;
static long n_checked;

typedef struct tteam {
    shmem_team_t team;
    int member, n, me;
    int wpe[256];
    const char *name;
    shmemx_stream_t st;
} tteam_t;
static tteam_t teams[NTEAMS];

/* The next bytes of the symmetric arena: every PE takes the same slots in
 * the same order, members of a team or not. */
static void *slot(size_t bytes)
{
    void *p = arena + arena_used;

    arena_used += (bytes + 63) & ~(size_t)63;
    TEST_ASSERT(arena_used <= ARENA, "the arena is too small");
    return p;
}

static void teams_make(void)
{
    shmem_team_t even = SHMEM_TEAM_INVALID;

    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0,
                                         &even) == 0, "split of the even PEs failed");
    teams[0] = (tteam_t){ .team = SHMEM_TEAM_WORLD, .name = "world", .st = sa };
    teams[1] = (tteam_t){ .team = even, .name = "even PEs", .st = sb };
    for (int t = 0; t < NTEAMS; t++) {
        tteam_t *tt = &teams[t];
        tt->member = tt->team != SHMEM_TEAM_INVALID;
        TEST_ASSERT(tt->member == (t == 0 || me % 2 == 0), "membership of team %s", tt->name);
        if (!tt->member)
            continue;
        tt->n = shmem_team_n_pes(tt->team);
        tt->me = shmem_team_my_pe(tt->team);
        for (int k = 0; k < tt->n; k++)
            tt->wpe[k] = shmem_team_translate_pe(tt->team, k, SHMEM_TEAM_WORLD);
    }
}

static void sync_both(const char *what)
{
    TEST_ASSERT(shmemx_stream_sync(sa) == 0, "%s: sync of the world team's stream failed", what);
    TEST_ASSERT(shmemx_stream_sync(sb) == 0, "%s: sync of the split team's stream failed", what);
    shmem_barrier_all();
}

/* ---- barriers and syncs ---- */

struct copy_arg { const long *from; long got; };
static void copy_kernel(void *p)
{
    struct copy_arg *c = p;
    c->got = *(volatile const long *)c->from;
}

/* A put to the next member, then the synchronization on the stream, then a
 * kernel that reads what the previous member put: with barrier the put is
 * complete at the barrier; with sync, after quiet_on_stream. */
static void team_syncs(int round)
{
    static struct copy_arg ca[NTEAMS][2];
    static long val[NTEAMS][2];
    long *box[NTEAMS][2];

    for (int t = 0; t < NTEAMS; t++)
        for (int k = 0; k < 2; k++)
            box[t][k] = slot(sizeof(long));
    shmem_barrier_all();
    for (int t = 0; t < NTEAMS; t++) {
        tteam_t *tt = &teams[t];
        if (!tt->member)
            continue;
        int next = tt->wpe[(tt->me + 1) % tt->n];
        for (int k = 0; k < 2; k++) {
            val[t][k] = 1000L * round + 100L * t + 10L * k + me;
            shmemx_long_put_on_stream(box[t][k], &val[t][k], 1, next, tt->st);
            if (k == 0 && t == 0)
                shmemx_barrier_all_on_stream(tt->st);
            else if (k == 0)
                shmemx_barrier_on_stream(tt->team, tt->st);
            else
                shmemx_quiet_on_stream(tt->st);
            if (k == 1 && t == 0)
                shmemx_sync_all_on_stream(tt->st);
            else if (k == 1)
                shmemx_team_sync_on_stream(tt->team, tt->st);
            ca[t][k] = (struct copy_arg){ box[t][k], -1 };
            shmemx_launch_on_stream(tt->st, copy_kernel, &ca[t][k]);
        }
    }
    sync_both("barriers and syncs");
    for (int t = 0; t < NTEAMS; t++) {
        tteam_t *tt = &teams[t];
        if (!tt->member)
            continue;
        int prev = tt->wpe[(tt->me - 1 + tt->n) % tt->n];
        TEST_CHECK(t == 0 ? "put, barrier_all_on_stream, kernel" : "put, barrier_on_stream, kernel",
                   round, 1000L * round + 100L * t + prev, ca[t][0].got);
        TEST_CHECK(t == 0 ? "put, quiet, sync_all_on_stream, kernel"
                          : "put, quiet, team_sync_on_stream, kernel",
                   round, 1000L * round + 100L * t + 10 + prev, ca[t][1].got);
        n_checked += 2;
    }
}

/* ---- broadcast, fcollect, alltoall ---- */

/* Slots of type T on team t: source (NE per member), broadcast, fcollect
 * and alltoall dests; check: 0 enqueues, 1 checks. */
#define COLL_TYPED(T, TN) \
    static void coll_##TN(int t, int check, int salt) \
    { \
        static T *src[NTEAMS], *bc[NTEAMS], *fc[NTEAMS], *aa[NTEAMS]; \
        tteam_t *tt = &teams[t]; \
        int root, k, i; \
        if (!check) { \
            src[t] = slot(sizeof(T) * NE * (size_t)npes); \
            bc[t] = slot(sizeof(T) * NE); \
            fc[t] = slot(sizeof(T) * NE * (size_t)npes); \
            aa[t] = slot(sizeof(T) * NE * (size_t)npes); \
            if (!tt->member) \
                return; \
            for (i = 0; i < NE * tt->n; i++) \
                src[t][i] = (T)test_val(me, (size_t)i, salt); \
            shmemx_##TN##_broadcast_on_stream(tt->team, bc[t], src[t], NE, tt->n - 1, tt->st); \
            shmemx_##TN##_fcollect_on_stream(tt->team, fc[t], src[t], NE, tt->st); \
            shmemx_##TN##_alltoall_on_stream(tt->team, aa[t], src[t], NE, tt->st); \
            return; \
        } \
        if (!tt->member) \
            return; \
        root = tt->wpe[tt->n - 1]; \
        for (i = 0; i < NE; i++) \
            TEST_CHECK("shmemx_" #TN "_broadcast_on_stream", i, \
                       test_val(root, (size_t)i, salt), bc[t][i]); \
        for (k = 0; k < tt->n; k++) \
            for (i = 0; i < NE; i++) { \
                TEST_CHECK("shmemx_" #TN "_fcollect_on_stream", k * NE + i, \
                           test_val(tt->wpe[k], (size_t)i, salt), fc[t][k * NE + i]); \
                TEST_CHECK("shmemx_" #TN "_alltoall_on_stream", k * NE + i, \
                           test_val(tt->wpe[k], (size_t)(tt->me * NE + i), salt), \
                           aa[t][k * NE + i]); \
            } \
        n_checked += NE + 2L * NE * tt->n; \
    }
TEST_RMA_TYPES(COLL_TYPED)

/* The mem forms, in bytes. */
static void coll_mem(int t, int check, int salt)
{
    static unsigned char *src[NTEAMS], *bc[NTEAMS], *fc[NTEAMS], *aa[NTEAMS];
    tteam_t *tt = &teams[t];
    const size_t nb = 7;
    int k;
    size_t i;

    if (!check) {
        src[t] = slot(nb * (size_t)npes);
        bc[t] = slot(nb);
        fc[t] = slot(nb * (size_t)npes);
        aa[t] = slot(nb * (size_t)npes);
        if (!tt->member)
            return;
        for (i = 0; i < nb * (size_t)tt->n; i++)
            src[t][i] = (unsigned char)test_val(me, i, salt);
        shmemx_broadcastmem_on_stream(tt->team, bc[t], src[t], nb, tt->n - 1, tt->st);
        shmemx_fcollectmem_on_stream(tt->team, fc[t], src[t], nb, tt->st);
        shmemx_alltoallmem_on_stream(tt->team, aa[t], src[t], nb, tt->st);
        return;
    }
    if (!tt->member)
        return;
    for (i = 0; i < nb; i++)
        TEST_CHECK("shmemx_broadcastmem_on_stream", i, test_val(tt->wpe[tt->n - 1], i, salt),
                   bc[t][i]);
    for (k = 0; k < tt->n; k++)
        for (i = 0; i < nb; i++) {
            TEST_CHECK("shmemx_fcollectmem_on_stream", k * nb + i,
                       test_val(tt->wpe[k], i, salt), fc[t][k * nb + i]);
            TEST_CHECK("shmemx_alltoallmem_on_stream", k * nb + i,
                       test_val(tt->wpe[k], (size_t)tt->me * nb + i, salt), aa[t][k * nb + i]);
        }
    n_checked += (long)(nb + 2 * nb * (size_t)tt->n);
}

/* ---- reductions ---- */

#define TEST_RED_BITWISE_TYPES(X) \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define TEST_RED_MINMAX_TYPES(X) \
    TEST_RED_BITWISE_TYPES(X) \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(float, float) X(double, double) \
    X(long double, longdouble)
/* X(TYPE, TYPENAME, REAL TYPE) */
#define TEST_RED_COMPLEX_TYPES(X) \
    X(double _Complex, complexd, double) X(float _Complex, complexf, float)

enum { OP_AND, OP_OR, OP_XOR, OP_MAX, OP_MIN, OP_SUM, OP_PROD };
#define COMB_and(a, b) ((a) & (b))
#define COMB_or(a, b) ((a) | (b))
#define COMB_xor(a, b) ((a) ^ (b))
#define COMB_max(a, b) ((a) > (b) ? (a) : (b))
#define COMB_min(a, b) ((a) < (b) ? (a) : (b))
#define COMB_sum(a, b) ((a) + (b))
#define COMB_prod(a, b) ((a) * (b))
#define IS_SIGNED(T) ((T)-1 < (T)1)

/* The input of world PE pe at index i for operation op. */
static long long in_val(int op, int sgn, int pe, size_t i, int salt)
{
    long long v = test_val(pe, i, salt);

    switch (op) {
    case OP_AND:
    case OP_OR:
    case OP_XOR:
        return (long long)((unsigned long long)v * 0x9E3779B97F4A7C15ull ^
                           ((unsigned long long)v << 7));
    case OP_MAX:
    case OP_MIN:
        return sgn ? v - 50 : v;
    case OP_PROD:
        return 1 + v % 3;
    default:
        return v;
    }
}

#define NR 3
#define IN_R(T, OPC, pe, i, salt) ((T)in_val(OPC, IS_SIGNED(T), pe, i, salt))

/* reduce (NR elements) and reducescatter (NR per member) of one (type,
 * operation) pair on team t; check: 0 enqueues, 1 checks. */
#define RED_R(T, TN, OP, OPC) \
    static void red_##TN##_##OP(int t, int check, int salt) \
    { \
        static T *rd[NTEAMS], *rs[NTEAMS], *sd[NTEAMS], *ss[NTEAMS]; \
        tteam_t *tt = &teams[t]; \
        size_t i; \
        int k; \
        if (!check) { \
            rd[t] = slot(sizeof(T) * NR); \
            rs[t] = slot(sizeof(T) * NR); \
            sd[t] = slot(sizeof(T) * NR); \
            ss[t] = slot(sizeof(T) * NR * (size_t)npes); \
            if (!tt->member) \
                return; \
            for (i = 0; i < NR; i++) \
                rs[t][i] = IN_R(T, OPC, me, i, salt); \
            for (i = 0; i < NR * (size_t)tt->n; i++) \
                ss[t][i] = IN_R(T, OPC, me, i, salt); \
            shmemx_##TN##_##OP##_reduce_on_stream(tt->team, rd[t], rs[t], NR, tt->st); \
            shmemx_##TN##_##OP##_reducescatter_on_stream(tt->team, sd[t], ss[t], NR, tt->st); \
            return; \
        } \
        if (!tt->member) \
            return; \
        for (i = 0; i < NR; i++) { \
            T e = IN_R(T, OPC, tt->wpe[0], i, salt); \
            T f = IN_R(T, OPC, tt->wpe[0], (size_t)tt->me * NR + i, salt); \
            for (k = 1; k < tt->n; k++) { \
                e = (T)COMB_##OP(e, IN_R(T, OPC, tt->wpe[k], i, salt)); \
                f = (T)COMB_##OP(f, IN_R(T, OPC, tt->wpe[k], (size_t)tt->me * NR + i, salt)); \
            } \
            TEST_CHECK("shmemx_" #TN "_" #OP "_reduce_on_stream", i, e, rd[t][i]); \
            TEST_CHECK("shmemx_" #TN "_" #OP "_reducescatter_on_stream", i, f, sd[t][i]); \
        } \
        n_checked += 2 * NR; \
    }

/* Complex: a real and an imaginary part of the same kind of input. */
#define IN_C(T, RT, OPC, pe, i, salt) \
    ((T)((RT)in_val(OPC, 1, pe, i, salt) + \
         (RT)(OPC == OP_PROD ? test_val(pe, i, salt + 3) % 2 : test_val(pe, i, salt + 3)) * I))
#define RED_C(T, TN, RT, OP, OPC) \
    static void red_##TN##_##OP(int t, int check, int salt) \
    { \
        static T *rd[NTEAMS], *rs[NTEAMS], *sd[NTEAMS], *ss[NTEAMS]; \
        tteam_t *tt = &teams[t]; \
        size_t i; \
        int k; \
        if (!check) { \
            rd[t] = slot(sizeof(T) * NR); \
            rs[t] = slot(sizeof(T) * NR); \
            sd[t] = slot(sizeof(T) * NR); \
            ss[t] = slot(sizeof(T) * NR * (size_t)npes); \
            if (!tt->member) \
                return; \
            for (i = 0; i < NR; i++) \
                rs[t][i] = IN_C(T, RT, OPC, me, i, salt); \
            for (i = 0; i < NR * (size_t)tt->n; i++) \
                ss[t][i] = IN_C(T, RT, OPC, me, i, salt); \
            shmemx_##TN##_##OP##_reduce_on_stream(tt->team, rd[t], rs[t], NR, tt->st); \
            shmemx_##TN##_##OP##_reducescatter_on_stream(tt->team, sd[t], ss[t], NR, tt->st); \
            return; \
        } \
        if (!tt->member) \
            return; \
        for (i = 0; i < NR; i++) { \
            T e = IN_C(T, RT, OPC, tt->wpe[0], i, salt); \
            T f = IN_C(T, RT, OPC, tt->wpe[0], (size_t)tt->me * NR + i, salt); \
            for (k = 1; k < tt->n; k++) { \
                e = COMB_##OP(e, IN_C(T, RT, OPC, tt->wpe[k], i, salt)); \
                f = COMB_##OP(f, IN_C(T, RT, OPC, tt->wpe[k], (size_t)tt->me * NR + i, salt)); \
            } \
            TEST_CHECK("shmemx_" #TN "_" #OP "_reduce_on_stream (real)", i, creal(e), \
                       creal(rd[t][i])); \
            TEST_CHECK("shmemx_" #TN "_" #OP "_reduce_on_stream (imaginary)", i, cimag(e), \
                       cimag(rd[t][i])); \
            TEST_CHECK("shmemx_" #TN "_" #OP "_reducescatter_on_stream (real)", i, creal(f), \
                       creal(sd[t][i])); \
            TEST_CHECK("shmemx_" #TN "_" #OP "_reducescatter_on_stream (imaginary)", i, \
                       cimag(f), cimag(sd[t][i])); \
        } \
        n_checked += 4 * NR; \
    }

#define RED_BITWISE(T, TN) \
    RED_R(T, TN, and, OP_AND) RED_R(T, TN, or, OP_OR) RED_R(T, TN, xor, OP_XOR)
#define RED_MINMAX(T, TN) RED_R(T, TN, max, OP_MAX) RED_R(T, TN, min, OP_MIN)
#define RED_ARITH(T, TN) RED_R(T, TN, sum, OP_SUM) RED_R(T, TN, prod, OP_PROD)
#define RED_COMPLEX(T, TN, RT) RED_C(T, TN, RT, sum, OP_SUM) RED_C(T, TN, RT, prod, OP_PROD)
TEST_RED_BITWISE_TYPES(RED_BITWISE)
TEST_RED_MINMAX_TYPES(RED_MINMAX)
TEST_RED_MINMAX_TYPES(RED_ARITH)
TEST_RED_COMPLEX_TYPES(RED_COMPLEX)

typedef void (*phase_fn)(int t, int check, int salt);
static const phase_fn red_fns[] = {
#define REF_BITWISE(T, TN) red_##TN##_and, red_##TN##_or, red_##TN##_xor,
#define REF_MINMAX(T, TN) red_##TN##_max, red_##TN##_min,
#define REF_ARITH(T, TN) red_##TN##_sum, red_##TN##_prod,
#define REF_COMPLEX(T, TN, RT) red_##TN##_sum, red_##TN##_prod,
    TEST_RED_BITWISE_TYPES(REF_BITWISE)
    TEST_RED_MINMAX_TYPES(REF_MINMAX)
    TEST_RED_MINMAX_TYPES(REF_ARITH)
    TEST_RED_COMPLEX_TYPES(REF_COMPLEX)
};
static const phase_fn coll_fns[] = {
#define REF_COLL(T, TN) coll_##TN,
    TEST_RMA_TYPES(REF_COLL)
    coll_mem,
};

/* Enqueues every function of fns on both teams, one sync, then checks. */
static void phase(const phase_fn *fns, size_t n, const char *what)
{
    size_t f;
    int t;

    shmem_barrier_all();
    for (f = 0; f < n; f++)
        for (t = 0; t < NTEAMS; t++)
            fns[f](t, 0, (int)f);
    sync_both(what);
    for (f = 0; f < n; f++)
        for (t = 0; t < NTEAMS; t++)
            fns[f](t, 1, (int)f);
}

int main(void)
{
    int provided;

    test_name = "stream_coll";
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = test_me = shmem_my_pe();
    npes = test_npes = shmem_n_pes();
    if (shmemx_stream_create(&sa)) {
        test_note("SKIP: streams are not available in this configuration (see the message)");
        shmem_finalize();
        return TEST_SKIP;
    }
    TEST_ASSERT(shmemx_stream_create(&sb) == 0, "second stream_create failed");
    test_note("streams %s", shmemx_stream_offloaded(sa) ? "offload (triggered operations)"
                                                        : "run on worker threads");
    arena = shmem_calloc(ARENA, 1);
    TEST_ASSERT(arena != NULL, "shmem_calloc of the arena failed");
    teams_make();

    team_syncs(1);
    phase(coll_fns, sizeof(coll_fns) / sizeof(coll_fns[0]), "broadcast, fcollect, alltoall");
    phase(red_fns, sizeof(red_fns) / sizeof(red_fns[0]), "reductions");
    team_syncs(2);

    TEST_ASSERT(shmemx_stream_destroy(sa) == 0, "destroy of the world team's stream");
    TEST_ASSERT(shmemx_stream_destroy(sb) == 0, "destroy of the split team's stream");
    if (teams[1].member)
        shmem_team_destroy(teams[1].team);
    shmem_free(arena);
    test_note("%ld values checked", n_checked);
    return test_finish();
}
