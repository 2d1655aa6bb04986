/*
 * Synchronization primitives (the atomics-and-signals issue's benchmarks):
 *
 *   signal_oneway  one-way latency of an 8-byte put with signal: PE 0 and
 *                  PE 1 bounce a put with signal (SHMEM_SIGNAL_SET of the
 *                  round number) back and forth, each waiting for the
 *                  other's signal; half a round trip.  Libraries older
 *                  than OpenSHMEM 1.5 have no put-with-signal: there it is
 *                  what their users write, a put, a fence and an atomic set.
 *   amo_add_rate   non-fetching shmem_long_atomic_add from every PE to one
 *                  counter on PE 0, windows of -w adds then a quiet;
 *                  millions of adds per second over all PEs.
 *   lock_cycle     every PE takes a lock, increments a counter on PE 0
 *                  with a get and a put, and releases the lock; time of
 *                  one acquire-update-release over all PEs in us.
 *   wake_wait_until  the wake-up of a PE asleep in a wait: PE 0 sleeps
 *                  20 ms (so that PE 1, waiting in shmem_long_wait_until,
 *                  has gone to sleep), then shmem_long_p's the round number
 *                  to PE 1 and times until PE 1's answer (a shmem_long_p
 *                  that PE 0 awaits spinning) arrives; the median of 21
 *                  rounds.  What a waiter asleep costs its writer: with
 *                  nobody to wake it, about the nap it is in (up to 1 ms).
 *   wake_signal    the same with shmem_putmem_signal and
 *                  shmem_signal_wait_until (a put, a fence and an atomic
 *                  set before OpenSHMEM 1.5).
 *   answer_Dus     a peer that computes before it answers: PE 0
 *                  shmem_long_p's the round number to PE 1 and waits in
 *                  shmem_long_wait_until for the answer; PE 1 waits for
 *                  the number, computes (spins) for D us (5, 30, 80, 150)
 *                  and answers with a shmem_long_p; the median over 200
 *                  rounds of the round trip less D.  What waits of that
 *                  length cost on top (docs/design/core.md, Waiting): over
 *                  the provider a sleep ends only at its time-out.
 *
 * Every value is checked: the signals carry the round number and the data
 * the sender's, the final counters must be exact (the lock's counter
 * checks mutual exclusion).
 */
#include "common.h"

#if defined(SHMEM_MAJOR_VERSION) && defined(SHMEM_MINOR_VERSION) && \
    (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105)
#define HAVE_PUT_SIGNAL 1
#endif

static long *pp_data;
static uint64_t *pp_sig;
static long lock;

static void send_signal(long v, uint64_t round, int pe)
{
#ifdef HAVE_PUT_SIGNAL
    shmem_putmem_signal(pp_data, &v, sizeof(v), pp_sig, round, SHMEM_SIGNAL_SET, pe);
#else
    shmem_putmem(pp_data, &v, sizeof(v), pe);
    shmem_fence();
    shmem_ulonglong_atomic_set((unsigned long long *)pp_sig, round, pe);
#endif
}

static void wait_signal(uint64_t round)
{
#ifdef HAVE_PUT_SIGNAL
    shmem_signal_wait_until(pp_sig, SHMEM_CMP_GE, round);
#else
    shmem_ulonglong_wait_until((unsigned long long *)pp_sig, SHMEM_CMP_GE, round);
#endif
}

/* Times k bounces (PE 0 sends round r, PE 1 answers with round r); the
 * caller's rounds continue from *round_p.  Returns seconds, on PE 0. */
static double bounce(long k, uint64_t *round_p, long *bad_p)
{
    int me = shmem_my_pe();
    double t0;
    uint64_t r = *round_p;

    shmem_barrier_all();
    t0 = bench_now();
    for (long i = 0; i < k; i++) {
        r++;
        if (me == 0) {
            send_signal((long)r, r, 1);
            wait_signal(r);
            *bad_p += *pp_data != -(long)r;
        } else if (me == 1) {
            wait_signal(r);
            *bad_p += *pp_data != (long)r;
            send_signal(-(long)r, r, 0);
        }
    }
    t0 = bench_now() - t0;
    *round_p = r;
    return t0;
}

/* The wake rows: rounds of PE 0 sleeping delay_ms, then signalling PE 1
 * (asleep in its wait by then) and timing until its answer.  The median
 * round trip in seconds, on PE 0; every value is checked. */
static long *wk_data, *wk_ack;
static uint64_t *wk_sig;
#define WAKE_ROUNDS 21
static double wake_rtt(int use_signal, double delay_ms, long *bad_p)
{
    struct timespec d = { 0, (long)(delay_ms * 1e6) };
    double ts[WAKE_ROUNDS];
    int me = shmem_my_pe();
    static long r;

    shmem_barrier_all();
    for (int i = 0; i < WAKE_ROUNDS; i++) {
        r++;
        if (me == 0) {
            nanosleep(&d, NULL);
            ts[i] = bench_now();
            if (use_signal) {
#ifdef HAVE_PUT_SIGNAL
                shmem_putmem_signal(wk_data, &r, sizeof(r), wk_sig, (uint64_t)r,
                                    SHMEM_SIGNAL_SET, 1);
#else
                shmem_putmem(wk_data, &r, sizeof(r), 1);
                shmem_fence();
                shmem_ulonglong_atomic_set((unsigned long long *)wk_sig, (unsigned long long)r,
                                           1);
#endif
            } else {
                shmem_long_p(wk_data, r, 1);
            }
            shmem_long_wait_until(wk_ack, SHMEM_CMP_GE, r);
            ts[i] = bench_now() - ts[i];
            *bad_p += *wk_ack != r;
        } else if (me == 1) {
            if (use_signal) {
#ifdef HAVE_PUT_SIGNAL
                shmem_signal_wait_until(wk_sig, SHMEM_CMP_GE, (uint64_t)r);
#else
                shmem_ulonglong_wait_until((unsigned long long *)wk_sig, SHMEM_CMP_GE,
                                           (unsigned long long)r);
#endif
            } else {
                shmem_long_wait_until(wk_data, SHMEM_CMP_GE, r);
            }
            *bad_p += *wk_data != r;
            shmem_long_p(wk_ack, r, 0);
        }
    }
    shmem_barrier_all();
    return bench_median(ts, WAKE_ROUNDS);
}

/* answer_Dus: the median round trip less delay_us, in seconds, on PE 0;
 * every value is checked. */
#define ANSWER_ROUNDS 200
static double answer_rtt(double delay_us, long *bad_p)
{
    static double ts[ANSWER_ROUNDS];
    int me = shmem_my_pe();
    long r = 0;

    *wk_data = *wk_ack = 0; /* the words of wake_rtt and of the last delay */
    shmem_barrier_all();
    for (int i = 0; i < ANSWER_ROUNDS; i++) {
        r++;
        if (me == 0) {
            double t0 = bench_now();
            shmem_long_p(wk_data, r, 1);
            shmem_long_wait_until(wk_ack, SHMEM_CMP_GE, r);
            ts[i] = bench_now() - t0 - delay_us * 1e-6;
            *bad_p += *wk_ack != r;
        } else if (me == 1) {
            shmem_long_wait_until(wk_data, SHMEM_CMP_GE, r);
            *bad_p += *wk_data != r;
            for (double t0 = bench_now(); bench_now() - t0 < delay_us * 1e-6;)
                ;
            shmem_long_p(wk_ack, r, 0);
        }
    }
    shmem_barrier_all();
    return bench_median(ts, ANSWER_ROUNDS);
}

/* Runs body on every PE k times per repetition between barriers; the
 * median over the repetitions of the time on PE 0 (which waits in the
 * closing barrier for the slowest PE). */
#define ALL_PES(o_, k_, ...)                                                 \
    __extension__({                                                          \
        double ts_[BENCH_MAX_REPS];                                          \
        int nr_ = (o_)->reps < BENCH_MAX_REPS ? (o_)->reps : BENCH_MAX_REPS; \
        for (int r_ = 0; r_ < nr_; r_++) {                                   \
            double t0_;                                                      \
            shmem_barrier_all();                                             \
            t0_ = bench_now();                                               \
            for (long i_ = 0; i_ < (k_); i_++) {                             \
                __VA_ARGS__;                                                 \
            }                                                                \
            shmem_barrier_all();                                             \
            ts_[r_] = bench_now() - t0_;                                     \
        }                                                                    \
        bench_median(ts_, nr_);                                              \
    })

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 100000, .min_size = 8, .max_size = 8, .reps = 5,
                       .budget_ms = 20, .window = 64 };
    long *ctr, bad = 0, k, k_add, allbad;
    static long badsum;
    uint64_t round = 0;
    int me, npes;
    double sec;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    bench_start("synchronization: put with signal one-way (us), atomic add rate to one PE "
                "(Madd/s), lock cycle (us), wake-up of a PE asleep in a wait (round trip, us), answer "
                "of a peer that computes D us (round trip less D, us)",
                &o);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    pp_data = shmem_malloc(sizeof(long));
    pp_sig = shmem_malloc(sizeof(uint64_t));
    ctr = shmem_malloc(2 * sizeof(long));
    if (!pp_data || !pp_sig || !ctr)
        BENCH_FAIL("shmem_malloc failed");
    *pp_data = 0;
    *pp_sig = 0;
    ctr[0] = ctr[1] = 0;
    bench_report_mapping(pp_data, 1);
    if (me == 0) {
#ifdef HAVE_PUT_SIGNAL
        printf("# signal: shmem_putmem_signal + shmem_signal_wait_until\n");
#else
        printf("# signal: shmem_putmem + shmem_fence + shmem_uint64_atomic_set + wait_until "
               "(no put-with-signal before OpenSHMEM 1.5)\n");
#endif
        fflush(stdout);
    }

    /* signal_oneway: calibrate on PE 0, tell PE 1 the count. */
    {
        static long kk;
        double warm = bounce(100, &round, &bad);
        if (me == 0) {
            kk = (long)(o.budget_ms * 1e-3 / (warm / 100.0));
            if (kk < 10)
                kk = 10;
            if (kk > o.iters)
                kk = o.iters;
        }
        if (me == 0)
            for (int pe = 1; pe < npes; pe++)
                shmem_long_p(&kk, kk, pe);
        shmem_barrier_all();
        double ts[BENCH_MAX_REPS];
        int nr = o.reps < BENCH_MAX_REPS ? o.reps : BENCH_MAX_REPS;
        for (int r = 0; r < nr; r++)
            ts[r] = bounce(kk, &round, &bad) / (double)kk / 2.0;
        sec = bench_median(ts, nr);
        if (me == 0)
            bench_result("signal_oneway", 8, sec * 1e6, "us");
    }

    /* amo_add_rate: every PE adds to PE 0's counter. */
    k_add = (o.iters / o.window) < 64 ? (o.iters / o.window) : 64;
    if (k_add < 1)
        k_add = 1;
    sec = ALL_PES(&o, k_add,
                  for (int w = 0; w < o.window; w++) shmem_long_atomic_add(&ctr[0], 1, 0);
                  shmem_quiet());
    if (me == 0)
        bench_result("amo_add_rate", 8, (double)npes * (double)k_add * o.window / sec * 1e-6,
                     "Mops/s");

    /* lock_cycle: acquire, get-increment-put on PE 0, release. */
    k = 200;
    sec = ALL_PES(&o, k,
                  shmem_set_lock(&lock);
                  long v = shmem_long_g(&ctr[1], 0);
                  shmem_long_p(&ctr[1], v + 1, 0);
                  shmem_clear_lock(&lock));
    if (me == 0)
        bench_result("lock_cycle", 8, sec / ((double)npes * (double)k) * 1e6, "us");

    /* wake_wait_until, wake_signal: a PE asleep in a wait, woken by a put. */
    wk_data = shmem_calloc(2, sizeof(long));
    wk_sig = shmem_calloc(1, sizeof(uint64_t));
    if (!wk_data || !wk_sig)
        BENCH_FAIL("shmem_calloc failed");
    wk_ack = wk_data + 1;
    if (npes > 1) {
        sec = wake_rtt(0, 20.0, &bad);
        if (me == 0)
            bench_result("wake_wait_until", 8, sec * 1e6, "us");
        sec = wake_rtt(1, 20.0, &bad);
        if (me == 0)
            bench_result("wake_signal", 8, sec * 1e6, "us");
        static const int delays[] = { 5, 30, 80, 150 };
        for (unsigned d = 0; d < sizeof(delays) / sizeof(delays[0]); d++) {
            char name[32];
            sec = answer_rtt(delays[d], &bad);
            snprintf(name, sizeof(name), "answer_%dus", delays[d]);
            if (me == 0)
                bench_result(name, 8, sec * 1e6, "us");
        }
    }

    /* The counters must be exact. */
    shmem_barrier_all();
    if (me == 0) {
        int nr = o.reps < BENCH_MAX_REPS ? o.reps : BENCH_MAX_REPS;
        long want_add = (long)npes * k_add * o.window * nr;
        if (ctr[0] != want_add)
            BENCH_FAIL("atomic add counter is %ld, expected %ld", ctr[0], want_add);
        if (ctr[1] != (long)npes * 200 * nr)
            BENCH_FAIL("lock-protected counter is %ld, expected %ld (mutual exclusion broken)",
                       ctr[1], (long)npes * 200 * nr);
    }
    badsum = bad;
    shmem_barrier_all();
    allbad = shmem_long_g(&badsum, 1) + badsum;
    if (me == 0 && allbad)
        BENCH_FAIL("%ld signals carried the wrong data", allbad);
    shmem_barrier_all();
    shmem_free(wk_sig);
    shmem_free(wk_data);
    shmem_free(ctr);
    shmem_free(pp_sig);
    shmem_free(pp_data);
    return bench_finish();
}
