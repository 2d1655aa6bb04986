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
#include "common_x.h"
#include "reduce_common.h"
#include <complex.h>

/* An on-stream routine with a team returns 0 when it enqueued the work. */
#define OK0(CALL) \
    do { \
        int rc_ = (CALL); \
        TEST_ASSERT(rc_ == 0, "%s returned %d", #CALL, rc_); \
    } while (0)

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
                OK0(shmemx_barrier_on_stream(tt->team, tt->st));
            else
                shmemx_quiet_on_stream(tt->st);
            if (k == 1 && t == 0)
                shmemx_sync_all_on_stream(tt->st);
            else if (k == 1)
                OK0(shmemx_team_sync_on_stream(tt->team, tt->st));
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
            OK0(shmemx_##TN##_broadcast_on_stream(tt->team, bc[t], src[t], NE, tt->n - 1, \
                                                  tt->st)); \
            OK0(shmemx_##TN##_fcollect_on_stream(tt->team, fc[t], src[t], NE, tt->st)); \
            OK0(shmemx_##TN##_alltoall_on_stream(tt->team, aa[t], src[t], NE, tt->st)); \
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
        OK0(shmemx_broadcastmem_on_stream(tt->team, bc[t], src[t], nb, tt->n - 1, tt->st));
        OK0(shmemx_fcollectmem_on_stream(tt->team, fc[t], src[t], nb, tt->st));
        OK0(shmemx_alltoallmem_on_stream(tt->team, aa[t], src[t], nb, tt->st));
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

#define NR 3

/* The input of world PE pe at index i of a real type (RT is T) and of a
 * complex one (a real and an imaginary part of the same kind of input, RT
 * the type of a part), and the check of one result. */
#define VAL_R(T, RT, OPC, pe, i, salt) IN_R(T, OPC, pe, i, salt)
#define VAL_C(T, RT, OPC, pe, i, salt) \
    ((T)((RT)in_val(OPC, 1, pe, i, salt) + (RT)in_imag(OPC, pe, i, salt) * I))
#define CHECK_R(what, i, e, got) \
    do { \
        TEST_CHECK(what, i, e, got); \
        n_checked++; \
    } while (0)
#define CHECK_C(what, i, e, got) \
    do { \
        TEST_CHECK(what " (real)", i, creal(e), creal(got)); \
        TEST_CHECK(what " (imaginary)", i, cimag(e), cimag(got)); \
        n_checked += 2; \
    } while (0)

/* reduce (NR elements) and reducescatter (NR per member) of one (type,
 * operation) pair on team t; check: 0 enqueues, 1 checks.  K is R for a
 * real type, C for a complex one (VAL_K, CHECK_K). */
#define RED_FN(T, TN, RT, OP, OPC, K) \
    static void red_##TN##_##OP(int t, int check, int salt) \
    { \
        static T *rd[NTEAMS], *rs[NTEAMS], *sd[NTEAMS], *ss[NTEAMS]; \
        tteam_t *tt = &teams[t]; \
        size_t i, b; \
        int k; \
        if (!check) { \
            rd[t] = slot(sizeof(T) * NR); \
            rs[t] = slot(sizeof(T) * NR); \
            sd[t] = slot(sizeof(T) * NR); \
            ss[t] = slot(sizeof(T) * NR * (size_t)npes); \
            if (!tt->member) \
                return; \
            for (i = 0; i < NR; i++) \
                rs[t][i] = VAL_##K(T, RT, OPC, me, i, salt); \
            for (i = 0; i < NR * (size_t)tt->n; i++) \
                ss[t][i] = VAL_##K(T, RT, OPC, me, i, salt); \
            OK0(shmemx_##TN##_##OP##_reduce_on_stream(tt->team, rd[t], rs[t], NR, tt->st)); \
            OK0(shmemx_##TN##_##OP##_reducescatter_on_stream(tt->team, sd[t], ss[t], NR, \
                                                             tt->st)); \
            return; \
        } \
        if (!tt->member) \
            return; \
        for (i = 0, b = (size_t)tt->me * NR; i < NR; i++) { \
            T e = VAL_##K(T, RT, OPC, tt->wpe[0], i, salt); \
            T f = VAL_##K(T, RT, OPC, tt->wpe[0], b + i, salt); \
            for (k = 1; k < tt->n; k++) { \
                e = (T)COMB_##OP(e, VAL_##K(T, RT, OPC, tt->wpe[k], i, salt)); \
                f = (T)COMB_##OP(f, VAL_##K(T, RT, OPC, tt->wpe[k], b + i, salt)); \
            } \
            CHECK_##K("shmemx_" #TN "_" #OP "_reduce_on_stream", i, e, rd[t][i]); \
            CHECK_##K("shmemx_" #TN "_" #OP "_reducescatter_on_stream", i, f, sd[t][i]); \
        } \
    }

/* The functions and their table, one per (type, operation) pair. */
#define PAIR_R(T, TN, OP, OPC) RED_FN(T, TN, T, OP, OPC, R)
#define PAIR_C(T, TN, RT, OP, OPC) RED_FN(T, TN, RT, OP, OPC, C)
#define PAIR_FN(TN, OP) red_##TN##_##OP
RED_PAIRS(PAIR, TEST_RED_BITWISE_TYPES, TEST_RED_MINMAX_TYPES)

typedef void (*phase_fn)(int t, int check, int salt);
static const phase_fn red_fns[] = {
    RED_PAIRS(REF, TEST_RED_BITWISE_TYPES, TEST_RED_MINMAX_TYPES)
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
    test_streams_init("stream_coll", &sa, &sb);
    me = test_me;
    npes = test_npes;
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
