/*
 * Shared loop of the collective benchmarks (bcast_lat, fcollect_lat,
 * alltoall_lat, reduce_lat): an OSU-style size sweep where every iteration
 * is one collective over all PEs followed by shmem_barrier_all (the
 * deprecated active-set forms with a pSync may be reused only once every
 * PE has left the previous call, and these forms are the ones that both
 * fabshmem and Open MPI's OpenSHMEM 1.4 provide).  barrier_lat gives the
 * barrier alone.
 *
 * All PEs must run the same number of collectives, so PE 0 times the
 * warm-up, chooses the count and sends it to everybody before each size.
 * Reports PE 0's median time of one iteration in microseconds, then checks
 * the data of the last iteration on every PE.
 */
#ifndef BENCH_COLL_COMMON_H
#define BENCH_COLL_COMMON_H

#include "common.h"

/* Agrees on an iteration count for the time budget from PE 0's warm-up
 * time (seconds for warm iterations); ctl is a symmetric long. */
static inline long coll_agree_iters(const bench_opts_t *o, long *ctl, double warm, long nwarm)
{
    long iters = 0;

    if (shmem_my_pe() == 0) {
        iters = bench_calibrate(o, warm / (double)nwarm);
        for (int pe = 0; pe < shmem_n_pes(); pe++)
            shmem_putmem(ctl, &iters, sizeof(long), pe);
        shmem_quiet();
    }
    shmem_barrier_all();
    iters = *ctl;
    shmem_barrier_all();
    if (iters < 1 || iters > o->iters)
        BENCH_FAIL("received iteration count %ld", iters);
    return iters;
}

/*
 * Sweeps the sizes: for each size (bytes, doubling from min_size), runs
 * PREP once, then times ITER (the collective) followed by a barrier, then
 * runs CHECK (which may use BENCH_FAIL).  The macro sees `size`.
 */
#define COLL_SWEEP(o_, ctl_, name_, PREP, ITER, CHECK)                   \
    do {                                                                 \
        for (size_t size = (o_)->min_size; size <= (o_)->max_size; size *= 2) { \
            double times_[BENCH_MAX_REPS];                               \
            int reps_ = (o_)->reps < BENCH_MAX_REPS ? (o_)->reps : BENCH_MAX_REPS; \
            long nwarm_ = size >= 65536 ? 5 : 50, iters_;                \
            PREP;                                                        \
            shmem_barrier_all();                                         \
            double warm_ = BENCH_TIME(nwarm_, ITER; shmem_barrier_all()); \
            iters_ = coll_agree_iters((o_), (ctl_), warm_, nwarm_);      \
            for (int r_ = 0; r_ < reps_; r_++)                           \
                times_[r_] = BENCH_TIME(iters_, ITER; shmem_barrier_all()) / \
                             (double)iters_;                             \
            if (shmem_my_pe() == 0)                                      \
                bench_result((name_), size, bench_median(times_, reps_) * 1e6, "us"); \
            CHECK;                                                       \
            shmem_barrier_all();                                         \
        }                                                                \
    } while (0)

#endif
