/*
 * The small collectives, one row each, in one program: the barriers and
 * syncs alone, and 8-byte broadcast, collect, fcollect, alltoall and sum
 * (one long) each followed by shmem_barrier_all (as coll_common.h), in
 * their active-set forms and in their team forms on SHMEM_TEAM_WORLD.  A
 * library of OpenSHMEM 1.4 (Open MPI's OSHMEM 4) has no teams: there the
 * team rows run the active-set forms (shmem_sync_all for shmem_team_sync),
 * the nearest it has, and the header says so.  bench/load_compare.sh runs
 * it beside Open MPI's build, quiet and with busy processes on the cores.
 *
 * Every row is timed as coll_common.h times a size: PE 0 times a warm-up,
 * chooses the count and sends it; PE 0's median of the repetitions, in us
 * per iteration.  The count follows the fastest of three warm-ups: on a
 * loaded machine one slow warm-up would leave a few iterations per
 * repetition, and one descheduling would then make the row.  Each row
 * checks its last result on every PE.
 */
#include "coll_common.h"

#if defined(SHMEM_MAJOR_VERSION) && (SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5)
#define HAVE_TEAMS 1
#else
#define HAVE_TEAMS 0
#endif

static long psync_bar[SHMEM_BARRIER_SYNC_SIZE];
static long psync_bcast[SHMEM_BCAST_SYNC_SIZE];
static long psync_coll[SHMEM_COLLECT_SYNC_SIZE];
static long psync_a2a[SHMEM_ALLTOALL_SYNC_SIZE];
static long psync_red[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

static bench_opts_t o = { .iters = 100000, .min_size = 8, .max_size = 8,
                          .reps = 5, .budget_ms = 20, .window = 64 };
static long *ctl;

/* One row: ITER (then a barrier when BAR) timed as coll_common.h does. */
#define ROW(name_, size_, BAR, ITER)                                          \
    do {                                                                      \
        double times_[BENCH_MAX_REPS];                                        \
        int reps_ = o.reps < BENCH_MAX_REPS ? o.reps : BENCH_MAX_REPS;        \
        long nwarm_ = 50, iters_;                                             \
        double warm_ = 1e9;                                                   \
        for (int w_ = 0; w_ < 3; w_++) {                                      \
            shmem_barrier_all();                                              \
            double t_ = BENCH_TIME(nwarm_, ITER; if (BAR) shmem_barrier_all()); \
            warm_ = t_ < warm_ ? t_ : warm_;                                  \
        }                                                                     \
        iters_ = coll_agree_iters(&o, ctl, warm_, nwarm_);                    \
        for (int r_ = 0; r_ < reps_; r_++)                                    \
            times_[r_] = BENCH_TIME(iters_, ITER; if (BAR) shmem_barrier_all()) / \
                         (double)iters_;                                      \
        if (me == 0)                                                          \
            bench_result((name_), (size_), bench_median(times_, reps_) * 1e6, "us"); \
        shmem_barrier_all();                                                  \
    } while (0)

static long val(int pe, int k)
{
    return 1000L * (pe + 1) + k;
}

int main(int argc, char **argv)
{
    long *src, *dst, *all, *cnt;
    int me, npes;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync_bar[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psync_bcast[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
        psync_coll[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
        psync_a2a[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync_red[i] = SHMEM_SYNC_VALUE;
    bench_start("small collectives: barriers alone, 8-byte collectives then a barrier (us)", &o);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (me == 0) {
        printf("# team rows: %s\n", HAVE_TEAMS ? "team forms on SHMEM_TEAM_WORLD"
                                               : "active-set forms (no teams in this library)");
        fflush(stdout);
    }
    src = shmem_malloc(npes * sizeof(long));
    dst = shmem_malloc(npes * sizeof(long));
    all = shmem_malloc(npes * sizeof(long));
    cnt = shmem_malloc(sizeof(long));
    ctl = shmem_malloc(sizeof(long));
    if (!src || !dst || !all || !cnt || !ctl)
        BENCH_FAIL("shmem_malloc failed");
    bench_report_mapping(dst, 1);

#define FILL(k)                                                               \
    do {                                                                      \
        for (int i_ = 0; i_ < npes; i_++)                                     \
            src[i_] = val(me, (k) + i_);                                      \
        for (int i_ = 0; i_ < npes; i_++)                                     \
            dst[i_] = all[i_] = -1;                                           \
    } while (0)
#define CHECK_BCAST(what)                                                     \
    do {                                                                      \
        if (me != 0 && dst[0] != val(0, 1))                                   \
            BENCH_FAIL("%s: got %ld, expected %ld", what, dst[0], val(0, 1)); \
    } while (0)
#define CHECK_GATHER(what)                                                    \
    do {                                                                      \
        for (int pe_ = 0; pe_ < npes; pe_++)                                  \
            if (all[pe_] != val(pe_, 2))                                      \
                BENCH_FAIL("%s: block of PE %d is %ld, expected %ld", what, pe_, all[pe_], \
                           val(pe_, 2));                                      \
    } while (0)
#define CHECK_A2A(what)                                                       \
    do {                                                                      \
        for (int pe_ = 0; pe_ < npes; pe_++)                                  \
            if (dst[pe_] != val(pe_, 3 + me))                                 \
                BENCH_FAIL("%s: element from PE %d is %ld, expected %ld", what, pe_, dst[pe_], \
                           val(pe_, 3 + me));                                 \
    } while (0)
#define CHECK_SUM(what)                                                       \
    do {                                                                      \
        long want_ = 0;                                                       \
        for (int pe_ = 0; pe_ < npes; pe_++)                                  \
            want_ += val(pe_, 4);                                             \
        if (dst[0] != want_)                                                  \
            BENCH_FAIL("%s: sum is %ld, expected %ld", what, dst[0], want_);  \
    } while (0)

    /* The synchronizations alone. */
    *cnt = 0;
    ROW("barrier_all", 0, 0, shmem_barrier_all());
    ROW("sync_all", 0, 0, shmem_sync_all());
    ROW("barrier", 0, 0, shmem_barrier(0, 0, npes, psync_bar));
#if HAVE_TEAMS
    ROW("team_sync", 0, 0, shmem_team_sync(SHMEM_TEAM_WORLD));
#else
    ROW("team_sync", 0, 0, shmem_sync_all());
#endif
    /* A put before a barrier is visible after it. */
    shmem_long_atomic_add(cnt, 1, (me + 1) % npes);
    shmem_barrier_all();
    if (*cnt != 1)
        BENCH_FAIL("an atomic add before shmem_barrier_all was not seen after it: %ld", *cnt);

    /* The active-set forms (with a pSync), each row named PFX and its
     * collective, the sum's SUM; OSHMEM has no teams, so its team rows are
     * these too. */
#define ACTIVE_SET_ROWS(PFX, SUM)                                             \
    do {                                                                      \
    FILL(1);                                                                  \
    ROW(PFX "broadcast", 8, 1, shmem_broadcast64(dst, src, 1, 0, 0, 0, npes, psync_bcast)); \
    CHECK_BCAST("broadcast64");                                               \
    FILL(2);                                                                  \
    ROW(PFX "collect", 8, 1, shmem_collect64(all, src, 1, 0, 0, npes, psync_coll)); \
    CHECK_GATHER("collect64");                                                \
    FILL(2);                                                                  \
    ROW(PFX "fcollect", 8, 1, shmem_fcollect64(all, src, 1, 0, 0, npes, psync_coll)); \
    CHECK_GATHER("fcollect64");                                               \
    for (int i = 0; i < npes; i++)                                            \
        src[i] = val(me, 3 + i);                                              \
    ROW(PFX "alltoall", 8, 1, shmem_alltoall64(dst, src, 1, 0, 0, npes, psync_a2a)); \
    CHECK_A2A("alltoall64");                                                  \
    FILL(4);                                                                  \
    ROW(SUM, 8, 1, shmem_long_sum_to_all(dst, src, 1, 0, 0, npes, pwrk, psync_red)); \
    CHECK_SUM("long_sum_to_all");                                             \
    } while (0)
    ACTIVE_SET_ROWS("", "sum_to_all");

    /* The team forms on SHMEM_TEAM_WORLD, then a barrier. */
#if HAVE_TEAMS
    FILL(1);
    ROW("team_broadcast", 8, 1, shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, 0));
    CHECK_BCAST("team broadcast");
    FILL(2);
    ROW("team_collect", 8, 1, shmem_long_collect(SHMEM_TEAM_WORLD, all, src, 1));
    CHECK_GATHER("team collect");
    FILL(2);
    ROW("team_fcollect", 8, 1, shmem_long_fcollect(SHMEM_TEAM_WORLD, all, src, 1));
    CHECK_GATHER("team fcollect");
    for (int i = 0; i < npes; i++)
        src[i] = val(me, 3 + i);
    ROW("team_alltoall", 8, 1, shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 1));
    CHECK_A2A("team alltoall");
    FILL(4);
    ROW("team_sum_reduce", 8, 1, shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1));
    CHECK_SUM("team sum_reduce");
#else
    ACTIVE_SET_ROWS("team_", "team_sum_reduce");
#endif

    shmem_free(ctl);
    shmem_free(cnt);
    shmem_free(all);
    shmem_free(dst);
    shmem_free(src);
    return bench_finish();
}
