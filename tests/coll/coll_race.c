/*
 * Races between successive collectives of one team: loops of
 *   reduction / broadcast / reduction / broadcast / collect / broadcast /
 *   reduction / broadcast / fcollect / broadcast
 * on TEAM_WORLD (and, every 16 iterations, a team split, whose slot
 * agreement is an allreduce through the world's scratch, a reduction on
 * the new team and its end), with the broadcasts' roots going round the
 * team and every value checked on every PE in every iteration (the values
 * change from one call to the next, so a stale or early one shows).
 *
 * The collectives that go through a team's scratch (rd and the
 * reduce-scatter of rsag, collect's counts, the hierarchical collect, the
 * slot agreement) let a member leave while a peer still has to read that
 * member's last contribution out of the peer's scratch half, and a
 * broadcast lets members leave before others have even entered it (the
 * root of a tree waits only for its children).  With one epoch per
 * broadcast, a reduction, a broadcast and a reduction in a row put the
 * second reduction's partial into the half where a slow member still read
 * the first's (coll.h).  The library's FABSHMEM_COLL_DELAY (developers;
 * the test sets it to 300 us unless the environment sets it) makes one
 * signal wait in eight sleep before its caller reads, which opens that
 * window wide.
 *
 * Three passes, an init and a finalize each: every algorithm auto;
 * reductions rd, collect rd (Bruck's where the team size is not a power of
 * two), broadcast tree; reductions rd, collect and broadcast hier (auto
 * where hier does not apply).  The second and third passes also check
 * that a predefined team starts its epochs over at a new init (node
 * teams' guard).  shmemx_team_coll_count checks that the forced
 * algorithms ran on TEAM_WORLD.
 *
 *   tests/coll/coll_race [ITERS]     (default 200 iterations per pass)
 */
#include "common.h"
#include <shmemx.h>

/* Elements of the small and the large reductions (the large one takes
 * several epochs of rd and rsag). */
#define RED_SMALL 8
#define RED_BIG   3000
#define BC_N      4
#define FC_N      3
/* A collect's block is at most 2 elements. */
#define CO_MAX    2

static long *rsrc, *rdst, *bsrc, *bdst, *csrc, *cdst, *fsrc, *fdst;

static long red_val(int pe, size_t i, int it)
{
    return (long)it * 1000003L + (long)pe * 1009L + (long)i;
}

/* Reduction k of iteration it (k 3: on the split team); its values are
 * those of call 4 it + k. */
static void reduce_step(shmem_team_t team, int it, int k, const char *tag)
{
    int n = shmem_team_n_pes(team), me = shmem_team_my_pe(team), call = 4 * it + k;
    size_t nr = call % 8 == 7 ? RED_BIG : RED_SMALL - (size_t)(call % 4);

    for (size_t i = 0; i < nr; i++)
        rsrc[i] = red_val(me, i, call);
    TEST_ASSERT(shmem_long_sum_reduce(team, rdst, rsrc, nr) == 0, "%s: sum_reduce", tag);
    for (size_t i = 0; i < nr; i++) {
        long want = (long)n * ((long)call * 1000003L + (long)i) + 1009L * n * (n - 1) / 2;
        if (rdst[i] != want)
            test_fail("%s: iteration %d: reduction %d (sum of %zu): index %zu: expected %ld, "
                      "got %ld", tag, it, k, nr, i, want, rdst[i]);
    }
}

static void bcast_step(shmem_team_t team, int it, int root, const char *tag)
{
    int me = shmem_team_my_pe(team);

    for (int i = 0; i < BC_N; i++) {
        bsrc[i] = me == root ? (long)it * 31 + root * 7 + i : -1;
        bdst[i] = -2;
    }
    TEST_ASSERT(shmem_long_broadcast(team, bdst, bsrc, BC_N, root) == 0, "%s: broadcast", tag);
    for (int i = 0; i < BC_N; i++)
        if (bdst[i] != (long)it * 31 + root * 7 + i)
            test_fail("%s: iteration %d: broadcast from %d: index %d: expected %ld, got %ld",
                      tag, it, root, i, (long)it * 31 + root * 7 + i, bdst[i]);
}

/* Member pe's block of collect in iteration it: 0 to CO_MAX elements. */
static int co_len(int pe, int it)
{
    return (pe + it) % (CO_MAX + 1);
}

static void collect_step(int it, const char *tag)
{
    int n = test_npes, me = test_me, k = 0;

    for (int j = 0; j < co_len(me, it); j++)
        csrc[j] = (long)it * 100 + me * 10 + j;
    for (int j = 0; j < n * CO_MAX + 1; j++)
        cdst[j] = -3;
    TEST_ASSERT(shmem_long_collect(SHMEM_TEAM_WORLD, cdst, csrc, (size_t)co_len(me, it)) == 0,
                "%s: collect", tag);
    for (int pe = 0; pe < n; pe++)
        for (int j = 0; j < co_len(pe, it); j++, k++)
            if (cdst[k] != (long)it * 100 + pe * 10 + j)
                test_fail("%s: iteration %d: collect: element %d (PE %d's %d): expected %ld, "
                          "got %ld", tag, it, k, pe, j, (long)it * 100 + pe * 10 + j, cdst[k]);
    if (cdst[k] != -3)
        test_fail("%s: iteration %d: collect wrote past its %d elements", tag, it, k);
}

static void fcollect_step(int it, const char *tag)
{
    int n = test_npes, me = test_me;

    for (int j = 0; j < FC_N; j++)
        fsrc[j] = (long)it * 1000 + me * 10 + j;
    TEST_ASSERT(shmem_long_fcollect(SHMEM_TEAM_WORLD, fdst, fsrc, FC_N) == 0, "%s: fcollect",
                tag);
    for (int pe = 0; pe < n; pe++)
        for (int j = 0; j < FC_N; j++)
            if (fdst[pe * FC_N + j] != (long)it * 1000 + pe * 10 + j)
                test_fail("%s: iteration %d: fcollect: PE %d's %d: expected %ld, got %ld", tag,
                          it, pe, j, (long)it * 1000 + pe * 10 + j, fdst[pe * FC_N + j]);
}

/* A split of the world into all of it (its slot agreement runs through
 * the world's scratch), one reduction on the new team, and its end. */
static void split_step(int it, const char *tag)
{
    shmem_team_t t = SHMEM_TEAM_INVALID;

    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, test_npes, NULL, 0, &t) == 0,
                "%s: iteration %d: team_split_strided", tag, it);
    TEST_ASSERT(t != SHMEM_TEAM_INVALID && shmem_team_n_pes(t) == test_npes,
                "%s: iteration %d: the split team", tag, it);
    reduce_step(t, it, 3, tag);
    shmem_team_destroy(t);
}

/* 1 when the world spans (virtual) nodes and some node holds several of
 * its PEs, so that the hierarchical algorithms apply to it. */
static int world_hier(void)
{
    int *v = shmem_malloc(2 * sizeof(int)), mapped = 0, hier;

    TEST_ASSERT(v, "shmem_malloc");
    for (int pe = 0; pe < test_npes; pe++)
        mapped += shmem_ptr(v, pe) != NULL;
    v[0] = mapped;
    TEST_ASSERT(shmem_int_max_reduce(SHMEM_TEAM_WORLD, v + 1, v, 1) == 0, "max_reduce");
    hier = mapped < test_npes && v[1] >= 2;
    shmem_free(v);
    return hier;
}

static long count(const char *coll, const char *algo)
{
    return shmemx_team_coll_count(SHMEM_TEAM_WORLD, coll, algo);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *reduce, *collect, *bcast;
    } cfg[] = {
        { "auto", "auto", "auto" },
        { "rd", "rd", "tree" },
        { "rd", "hier", "hier" },
    };
    int iters = argc > 1 ? atoi(argv[1]) : 200;

    if (iters < 1) {
        fprintf(stderr, "usage: %s [ITERS >= 1]\n", argv[0]);
        return 2;
    }
    /* The library's delay hook, unless the caller chose a value. */
    setenv("FABSHMEM_COLL_DELAY", "300", 0);
    for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
        char tag[96];
        int n, hier;
        double t0;

        setenv("FABSHMEM_REDUCE_ALGO", cfg[c].reduce, 1);
        setenv("FABSHMEM_COLLECT_ALGO", cfg[c].collect, 1);
        setenv("FABSHMEM_BCAST_ALGO", cfg[c].bcast, 1);
        test_init("coll_race");
        n = test_npes;
        hier = world_hier();
        snprintf(tag, sizeof(tag), "reduce=%s collect=%s bcast=%s", cfg[c].reduce,
                 cfg[c].collect, cfg[c].bcast);
        rsrc = shmem_malloc(RED_BIG * sizeof(long));
        rdst = shmem_malloc(RED_BIG * sizeof(long));
        bsrc = shmem_malloc(BC_N * sizeof(long));
        bdst = shmem_malloc(BC_N * sizeof(long));
        csrc = shmem_malloc(CO_MAX * sizeof(long));
        cdst = shmem_malloc(((size_t)n * CO_MAX + 1) * sizeof(long));
        fsrc = shmem_malloc(FC_N * sizeof(long));
        fdst = shmem_malloc((size_t)n * FC_N * sizeof(long));
        TEST_ASSERT(rsrc && rdst && bsrc && bdst && csrc && cdst && fsrc && fdst,
                    "shmem_malloc");
        long red0 = strcmp(cfg[c].reduce, "auto") ? count("reduce", cfg[c].reduce) : 0;
        long tree0 = count("broadcast", "tree");
        long crd0 = count("collect", "rd") + count("collect", "bruck");
        long hier0 = count("broadcast", "hier"), chier0 = count("collect", "hier");
        t0 = test_now();
        for (int it = 0; it < iters; it++) {
            /* A broadcast between any two of the others, its root going
             * round the team (differently in each position). */
            reduce_step(SHMEM_TEAM_WORLD, it, 0, tag);
            bcast_step(SHMEM_TEAM_WORLD, it, it % n, tag);
            reduce_step(SHMEM_TEAM_WORLD, it, 1, tag);
            bcast_step(SHMEM_TEAM_WORLD, it, (it / n + it + 1) % n, tag);
            collect_step(it, tag);
            bcast_step(SHMEM_TEAM_WORLD, it, (3 * it + 2) % n, tag);
            reduce_step(SHMEM_TEAM_WORLD, it, 2, tag);
            bcast_step(SHMEM_TEAM_WORLD, it, (5 * it + 3) % n, tag);
            fcollect_step(it, tag);
            bcast_step(SHMEM_TEAM_WORLD, it, (it / 2 + 1) % n, tag);
            if (it % 16 == 5) {
                split_step(it, tag);
                bcast_step(SHMEM_TEAM_WORLD, it, (it + 3) % n, tag);
            }
        }
        if (n > 1) {
            /* The forced algorithms ran (rd and tree apply to any team,
             * hier where the world spans virtual nodes with several PEs
             * on one, and only there). */
            if (strcmp(cfg[c].reduce, "auto"))
                TEST_ASSERT(count("reduce", cfg[c].reduce) > red0, "%s: no %s reduction ran",
                            tag, cfg[c].reduce);
            if (!strcmp(cfg[c].bcast, "tree"))
                TEST_ASSERT(count("broadcast", "tree") > tree0, "%s: no tree broadcast ran",
                            tag);
            if (!strcmp(cfg[c].collect, "rd"))
                TEST_ASSERT(count("collect", "rd") + count("collect", "bruck") > crd0,
                            "%s: no rd or Bruck collect ran", tag);
            if (!strcmp(cfg[c].bcast, "hier"))
                TEST_ASSERT((count("broadcast", "hier") > hier0) == hier,
                            "%s: hierarchical broadcasts %s where they %s", tag,
                            hier ? "did not run" : "ran", hier ? "apply" : "do not apply");
            if (!strcmp(cfg[c].collect, "hier"))
                TEST_ASSERT((count("collect", "hier") > chier0) == hier,
                            "%s: hierarchical collects %s where they %s", tag,
                            hier ? "did not run" : "ran", hier ? "apply" : "do not apply");
        }
        test_note("%s: %d iterations, %.2f s", tag, iters, test_now() - t0);
        shmem_free(rsrc);
        shmem_free(rdst);
        shmem_free(bsrc);
        shmem_free(bdst);
        shmem_free(csrc);
        shmem_free(cdst);
        shmem_free(fsrc);
        shmem_free(fdst);
        if (c + 1 < sizeof(cfg) / sizeof(cfg[0]))
            shmem_finalize();
    }
    return test_finish();
}
