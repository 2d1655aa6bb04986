/*
 * soak: a randomized mix of puts, AMOs, signals and collectives, checked
 * against a model on every PE, for a bounded time.  Made for a slow and
 * lossy network (tests/cluster/run.sh runs it with 50 ms of delay and 1 %
 * loss on a host's link), where nothing may be lost or done twice.
 *
 *   soak [SECONDS [SEED]]     (default 20 s, seed 1; at least 3 rounds)
 *
 * Every round, every PE draws the same plan from a generator seeded by
 * (SEED, round), so each knows what every PE does and what its own memory
 * must hold afterwards:
 *
 * - puts: PE s writes a block of data[s] at a target (blocking, non-
 *   blocking or element by element), and sometimes, after shmem_fence, a
 *   shorter second block over its start: the target must see the second
 *   over the first (ordering), the rest of the first, and the blocks of
 *   earlier rounds beyond;
 * - AMOs: adds, fetch-adds, increments and fetch-increments on acc[] at
 *   random PEs (the sums must come out exact, each fetched value within
 *   the round's bounds), and two fetch-increments of each PE on one
 *   ticket counter, whose results, gathered, must be exactly the next
 *   2 x npes tickets (nothing lost, nothing done twice);
 * - signals: a put with signal (SIGNAL_ADD) of PE s to a target, which
 *   waits for the count that the plan says and then finds the payload;
 * - a collective: broadcast from a random root, fcollect, sum reduction
 *   or alltoall, its values checked.
 *
 * PE 0 decides after each round whether time is up and broadcasts it.
 */
#include "common.h"
#include <stdint.h>

enum { MAXPE = 256, W = 64, NACC = 8, NAMO = 6, NTICKET = 2 };

static long data[MAXPE][W];              /* data[s]: written by PE s only */
static long acc[NACC];                   /* AMO targets */
static long ticket;                      /* the fetch-increment ticket */
static long tickets[MAXPE * NTICKET];    /* gathered ticket results */
static long my_tickets[NTICKET];
static uint64_t sigs[MAXPE];             /* sigs[s]: PE s's signals to me */
static long sigdata[MAXPE][2];           /* the payload of PE s's signal */
static long cin[MAXPE], cout[MAXPE];     /* collectives */
static long go;                          /* PE 0's verdict: another round */
static long go_src;

static int n, me;
static long model_data[MAXPE][W];        /* what my data[][] must hold */
static long model_acc[NACC];             /* what my acc[] must hold */
static long model_ticket[MAXPE];         /* every PE's ticket counter */
static uint64_t model_sigs[MAXPE];       /* my sigs[] */

/* The plan's generator: xorshift64*, the same on every PE. */
static uint64_t rng;
static void rng_seed(uint64_t seed, uint64_t round)
{
    rng = (seed * 0x9E3779B97F4A7C15ull) ^ (round + 1) * 0xD1B54A32D192ED03ull;
    if (!rng)
        rng = 1;
}
static uint64_t rnd(uint64_t mod)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (rng * 0x2545F4914F6CDD1Dull) % mod;
}

static long val(long round, int s, int i, int second)
{
    return round * 100003L + s * 1009L + i * 7L + (second ? 500000000L : 1L);
}

struct put_plan { int target, len, how, second_len; };
struct amo_plan { int target, idx, kind; long amount; };
struct sig_plan { int target; };

static struct put_plan pp[MAXPE];
static struct amo_plan ap[MAXPE][NAMO];
static struct sig_plan sp[MAXPE];
static int coll_kind, coll_root;

static void draw_plan(uint64_t seed, long round)
{
    rng_seed(seed, (uint64_t)round);
    for (int s = 0; s < n; s++) {
        pp[s].target = (int)rnd(n);
        pp[s].len = 1 + (int)rnd(W);
        pp[s].how = (int)rnd(3);
        pp[s].second_len = rnd(2) ? (int)rnd(pp[s].len) + 1 : 0;
        for (int a = 0; a < NAMO; a++) {
            ap[s][a].target = (int)rnd(n);
            ap[s][a].idx = (int)rnd(NACC);
            ap[s][a].kind = (int)rnd(4);
            ap[s][a].amount = ap[s][a].kind >= 2 ? 1 : 1 + (long)rnd(1000);
        }
        sp[s].target = (int)rnd(n);
    }
    coll_kind = (int)rnd(4);
    coll_root = (int)rnd(n);
}

/* Bounds of acc[idx] at PE t during the round: before it, and after it. */
static void acc_bounds(int t, int idx, long *lo, long *hi)
{
    long add = 0;
    for (int s = 0; s < n; s++)
        for (int a = 0; a < NAMO; a++)
            if (ap[s][a].target == t && ap[s][a].idx == idx)
                add += ap[s][a].amount;
    *lo = model_acc[idx];
    *hi = model_acc[idx] + add;
}

/* The sources of the round's non-blocking puts: they must stay as they
 * are until the quiet at the end of the round. */
static long put_buf[W], put_buf2[W];

static void do_puts(long round)
{
    struct put_plan *p = &pp[me];
    long *buf = put_buf;

    for (int i = 0; i < p->len; i++)
        buf[i] = val(round, me, i, 0);
    switch (p->how) {
    case 0:
        shmem_long_put(data[me], buf, (size_t)p->len, p->target);
        break;
    case 1:
        shmem_long_put_nbi(data[me], buf, (size_t)p->len, p->target);
        break;
    default:
        for (int i = 0; i < p->len; i++)
            shmem_long_p(&data[me][i], buf[i], p->target);
    }
    if (p->second_len) {
        long *buf2 = put_buf2;
        shmem_fence();
        for (int i = 0; i < p->second_len; i++)
            buf2[i] = val(round, me, i, 1);
        shmem_long_put_nbi(data[me], buf2, (size_t)p->second_len, p->target);
    }
}

static void do_amos(long round, long *fetched)
{
    (void)round;
    for (int a = 0; a < NAMO; a++) {
        struct amo_plan *x = &ap[me][a];
        switch (x->kind) {
        case 0: shmem_long_atomic_add(&acc[x->idx], x->amount, x->target); fetched[a] = 0; break;
        case 1: fetched[a] = shmem_long_atomic_fetch_add(&acc[x->idx], x->amount, x->target); break;
        case 2: shmem_long_atomic_inc(&acc[x->idx], x->target); fetched[a] = 0; break;
        default: fetched[a] = shmem_long_atomic_fetch_inc(&acc[x->idx], x->target);
        }
    }
    for (int k = 0; k < NTICKET; k++)
        my_tickets[k] = shmem_long_atomic_fetch_inc(&ticket, (int)(round % n));
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* The round's collective, its values checked. */
static void do_coll(long round)
{
    switch (coll_kind) {
    case 0:
        cin[0] = val(round, me, 0, 0);
        TEST_ASSERT(shmem_long_broadcast(SHMEM_TEAM_WORLD, cout, cin, 1, coll_root) == 0,
                    "broadcast");
        TEST_CHECK("broadcast", round, val(round, coll_root, 0, 0), cout[0]);
        break;
    case 1:
        cin[0] = val(round, me, 1, 0);
        TEST_ASSERT(shmem_long_fcollect(SHMEM_TEAM_WORLD, cout, cin, 1) == 0, "fcollect");
        for (int s = 0; s < n; s++)
            TEST_CHECK("fcollect", s, val(round, s, 1, 0), cout[s]);
        break;
    case 2: {
        long want = 0;
        cin[0] = val(round, me, 2, 0);
        TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, cout, cin, 1) == 0, "sum_reduce");
        for (int s = 0; s < n; s++)
            want += val(round, s, 2, 0);
        TEST_CHECK("sum reduction", round, want, cout[0]);
        break;
    }
    default:
        for (int s = 0; s < n; s++)
            cin[s] = val(round, me, s, 0);
        TEST_ASSERT(shmem_long_alltoall(SHMEM_TEAM_WORLD, cout, cin, 1) == 0, "alltoall");
        for (int s = 0; s < n; s++)
            TEST_CHECK("alltoall", s, val(round, s, me, 0), cout[s]);
    }
}

static void check_round(long round, const long *fetched)
{
    char what[64];

    /* Fetched AMO values lie within the round's bounds at their target. */
    for (int a = 0; a < NAMO; a++) {
        struct amo_plan *x = &ap[me][a];
        long lo, hi;
        if (x->kind != 1 && x->kind != 3)
            continue;
        /* The model's acc[] is mine; a fetch from another PE can only be
         * bounded below by 0 and above by everything the round added. */
        if (x->target == me) {
            acc_bounds(me, x->idx, &lo, &hi);
            TEST_ASSERT(fetched[a] >= lo && fetched[a] + x->amount <= hi,
                        "round %ld: fetched %ld from acc[%d], outside [%ld, %ld]", round,
                        fetched[a], x->idx, lo, hi - x->amount);
        } else {
            TEST_ASSERT(fetched[a] >= 0, "round %ld: fetched %ld < 0", round, fetched[a]);
        }
    }
    /* The model, then my memory against it. */
    for (int s = 0; s < n; s++) {
        if (pp[s].target == me) {
            for (int i = 0; i < pp[s].len; i++)
                model_data[s][i] = val(round, s, i, i < pp[s].second_len);
        }
        for (int a = 0; a < NAMO; a++)
            if (ap[s][a].target == me)
                model_acc[ap[s][a].idx] += ap[s][a].amount;
        if (sp[s].target == me)
            model_sigs[s]++;
    }
    for (int s = 0; s < n; s++)
        for (int i = 0; i < W; i++) {
            snprintf(what, sizeof(what), "round %ld: data of PE %d", round, s);
            TEST_CHECK(what, i, model_data[s][i], data[s][i]);
        }
    for (int k = 0; k < NACC; k++) {
        snprintf(what, sizeof(what), "round %ld: AMO sum", round);
        TEST_CHECK(what, k, model_acc[k], acc[k]);
    }
    for (int s = 0; s < n; s++) {
        snprintf(what, sizeof(what), "round %ld: signal count of PE %d", round, s);
        TEST_CHECK(what, s, model_sigs[s], sigs[s]);
    }
    /* Tickets: exactly the next n * NTICKET numbers, once each. */
    int tpe = (int)(round % n);
    TEST_ASSERT(shmem_long_fcollect(SHMEM_TEAM_WORLD, tickets, my_tickets, NTICKET) == 0,
                "fcollect of tickets");
    qsort(tickets, (size_t)n * NTICKET, sizeof(long), cmp_long);
    for (int i = 0; i < n * NTICKET; i++) {
        snprintf(what, sizeof(what), "round %ld: tickets of PE %d, sorted", round, tpe);
        TEST_CHECK(what, i, model_ticket[tpe] + i, tickets[i]);
    }
    model_ticket[tpe] += n * NTICKET;
    if (me == tpe)
        TEST_CHECK("ticket counter", round, model_ticket[tpe], ticket);
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 20;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    long fetched[NAMO], round, nops = 0;

    test_init("soak");
    n = test_npes;
    me = test_me;
    if (n > MAXPE) {
        test_note("skipped: more than %d PEs", MAXPE);
        shmem_finalize();
        return TEST_SKIP;
    }
    double t0 = test_now();
    shmem_barrier_all();
    for (round = 0;; round++) {
        draw_plan(seed, round);
        do_puts(round);
        do_amos(round, fetched);
        /* A put with signal; the target waits for the plan's count. */
        {
            long v[2] = { val(round, me, 0, 1), val(round, me, 1, 1) };
            shmem_long_put_signal(sigdata[me], v, 2, &sigs[me], 1, SHMEM_SIGNAL_ADD,
                                  sp[me].target);
        }
        for (int s = 0; s < n; s++) {
            if (sp[s].target != me)
                continue;
            shmem_uint64_wait_until(&sigs[s], SHMEM_CMP_GE, model_sigs[s] + 1);
            TEST_CHECK("payload of a put with signal", s, val(round, s, 0, 1), sigdata[s][0]);
            TEST_CHECK("payload of a put with signal", s, val(round, s, 1, 1), sigdata[s][1]);
        }
        do_coll(round);
        shmem_quiet();
        shmem_barrier_all();
        check_round(round, fetched);
        nops += n * (3 + NAMO + NTICKET);
        /* Every PE checked before anyone writes the next round. */
        go_src = round < 2 || test_now() - t0 < secs;
        shmem_barrier_all();
        TEST_ASSERT(shmem_long_broadcast(SHMEM_TEAM_WORLD, &go, &go_src, 1, 0) == 0,
                    "broadcast of the verdict");
        if (!go)
            break;
    }
    test_note("%ld rounds, about %ld operations, in %.1f s (seed %llu)", round + 1, nops,
              test_now() - t0, (unsigned long long)seed);
    return test_finish();
}
