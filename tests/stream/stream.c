/*
 * Streams: ordered asynchronous work (puts, gets, put with signal, signal
 * ops, signal waits, quiet, barriers, host kernels) on two streams per PE,
 * with every value checked on every PE, the order of execution checked
 * through kernels that log, query while a kernel is held back, refusal of
 * bad work reported by sync (every kind of argument of every kind of
 * routine, with the message sync logs read back from this PE's stderr: it
 * names the first refused routine and its argument), a queue that grows,
 * a PE whose main thread communicates while its streams run, and a put
 * whose target buffer is unregistered before the stream executes it
 * (reported by sync on both paths), and two streams' workers busy at the
 * same time on different CPUs.  tests/stream/stream_rma.c and
 * tests/stream/stream_coll.c check every routine of the family by value.
 */
#define _GNU_SOURCE
#include "common.h"
#include <shmemx.h>
#include <unistd.h>
#include <stdint.h>
#include <sched.h>

#define N 64
#define MANY 5000

static long *ring_buf, *get_buf, *many_buf;
static uint64_t *sig;
static int log_order[16], log_n;
static volatile int release_kernel;

static void log_kernel(void *arg) { log_order[log_n++] = (int)(intptr_t)arg; }

static void hold_kernel(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&release_kernel, __ATOMIC_ACQUIRE))
        usleep(100);
}

struct check_arg { long *buf; int from, round; int *ok; };

static void check_kernel(void *p)
{
    struct check_arg *a = p;
    for (int i = 0; i < N; i++)
        if (a->buf[i] != a->from * 1000L + i + a->round * 7)
            return;
    *a->ok = 1;
}

/* Reads n longs of dst back from pe through the default context and
 * records the first that differs from src (-1: none). */
struct getback_arg { long *dst; const long *src; int n, pe, bad; };

static void getback_kernel(void *p)
{
    struct getback_arg *a = p;
    static long back[32768];

    shmem_getmem(back, a->dst, (size_t)a->n * sizeof(long), a->pe);
    a->bad = -1;
    for (int i = 0; i < a->n; i++)
        if (back[i] != a->src[i]) {
            a->bad = i;
            break;
        }
}

/* shmemx_stream_sync(st) with this PE's stderr going to a file: its
 * status, and what it logged in text. */
static int sync_capture(shmemx_stream_t st, char *text, size_t len)
{
    FILE *f = tmpfile();
    int saved, rc;
    size_t got;

    TEST_ASSERT(f != NULL, "tmpfile failed");
    fflush(stderr);
    saved = dup(2);
    TEST_ASSERT(saved >= 0 && dup2(fileno(f), 2) == 2, "cannot redirect stderr");
    rc = shmemx_stream_sync(st);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    got = fread(text, 1, len - 1, f);
    text[got] = '\0';
    fclose(f);
    return rc;
}

/* Syncs st and checks that it reports code with a message holding each
 * of the texts (NULL-terminated) and not the text no (NULL: any). */
static void expect_report(shmemx_stream_t st, int code, const char *what, const char *no, ...)
{
    char text[4096];
    int rc = sync_capture(st, text, sizeof(text));
    va_list ap;
    const char *t;

    TEST_ASSERT(rc == code, "%s: sync returned %d, expected %d (message: %s)", what, rc, code,
                text);
    va_start(ap, no);
    while ((t = va_arg(ap, const char *)) != NULL)
        TEST_ASSERT(strstr(text, t), "%s: the message of sync lacks \"%s\": %s", what, t, text);
    va_end(ap);
    TEST_ASSERT(!no || !strstr(text, no), "%s: the message of sync names \"%s\": %s", what, no,
                text);
    TEST_ASSERT(shmemx_stream_sync(st) == 0, "%s: the error was reported twice", what);
}

static void int_kernel(void *arg) { (void)arg; }

static void nap_kernel(void *arg)
{
    (void)arg;
    usleep(200000);
}

/* Every kind of bad argument of every kind of routine is refused at
 * enqueue (nothing runs: every PE refuses the same collective) and
 * reported by sync naming the routine and the argument. */
static void refusals(shmemx_stream_t a, int n, int right, long *sym, uint64_t *sig)
{
    long loc[8] = { 0 };
    long *heap_only = malloc(64 * sizeof(long));
    int ival = 0;
    shmem_team_t bad = SHMEM_TEAM_INVALID;

    TEST_ASSERT(heap_only != NULL, "malloc failed");
    /* The first of several is the one named, with the count of the rest. */
    shmemx_long_broadcast_on_stream(SHMEM_TEAM_WORLD, sym, sym + 8, 4, 99, a);
    shmemx_long_sum_reduce_on_stream(SHMEM_TEAM_WORLD, heap_only, sym, 4, a);
    expect_report(a, SHMEMX_ERROR_INVALID_VALUE, "first of two", "sum_reduce",
                  "shmemx_long_broadcast_on_stream", "PE_root 99", "(and 1 more after it)",
                  (char *)NULL);

#define REFUSED(CALL, ...) \
    do { \
        CALL; \
        expect_report(a, SHMEMX_ERROR_INVALID_VALUE, #CALL, NULL, __VA_ARGS__, (char *)NULL); \
    } while (0)
    /* RMA and signals. */
    REFUSED(shmemx_putmem_on_stream(sym, loc, 8, n + 5, a), "shmemx_putmem_on_stream", "pe ");
    REFUSED(shmemx_putmem_nbi_on_stream(sym, loc, 8, -1, a), "shmemx_putmem_nbi_on_stream",
            "pe -1");
    REFUSED(shmemx_long_put_on_stream(loc, loc, 1, right, a), "shmemx_long_put_on_stream",
            "dest");
    REFUSED(shmemx_long_put_on_stream(sym, loc, SIZE_MAX / 4, right, a),
            "shmemx_long_put_on_stream", "overflows");
    REFUSED(shmemx_getmem_on_stream(loc, loc, 8, right, a), "shmemx_getmem_on_stream", "source");
    REFUSED(shmemx_int_get_nbi_on_stream((int *)loc, (int *)heap_only, 2, right, a),
            "shmemx_int_get_nbi_on_stream", "source");
    REFUSED(shmemx_put64_on_stream(sym, loc, 1, n, a), "shmemx_put64_on_stream", "pe ");
    REFUSED(shmemx_long_p_on_stream(loc, 1, right, a), "shmemx_long_p_on_stream", "dest");
    {
        long g = shmemx_long_g_on_stream(sym, n, a);
        TEST_ASSERT(g == 0, "a refused g_on_stream returned %ld", g);
        expect_report(a, SHMEMX_ERROR_INVALID_VALUE, "g", NULL, "shmemx_long_g_on_stream",
                      "pe ", (char *)NULL);
    }
    REFUSED(shmemx_long_iput_on_stream(sym, loc, PTRDIFF_MAX / 2, 1, 3, right, a),
            "shmemx_long_iput_on_stream", "dst");
    REFUSED(shmemx_long_iput_on_stream(sym, loc, 1 << 30, 1, 3, right, a),
            "shmemx_long_iput_on_stream", "dest");
    REFUSED(shmemx_iget32_on_stream(loc, heap_only, 1, 2, 3, right, a),
            "shmemx_iget32_on_stream", "source");
    REFUSED(shmemx_putmem_signal_on_stream(sym, loc, 8, sig, 1, 7, right, a),
            "shmemx_putmem_signal_on_stream", "sig_op 7");
    REFUSED(shmemx_long_put_signal_nbi_on_stream(sym, loc, 1, (uint64_t *)loc, 1,
                                                 SHMEM_SIGNAL_SET, right, a),
            "shmemx_long_put_signal_nbi_on_stream", "sig_addr");
    REFUSED(shmemx_signal_op_on_stream((uint64_t *)((char *)sig + 4), 1, SHMEM_SIGNAL_ADD,
                                       right, a), "shmemx_signal_op_on_stream", "aligned");
    REFUSED(shmemx_signal_wait_until_on_stream(sig, 99, 0, a),
            "shmemx_signal_wait_until_on_stream", "cmp 99");
    REFUSED(shmemx_int_wait_until_on_stream(&ival, SHMEM_CMP_EQ, 0, a),
            "shmemx_int_wait_until_on_stream", "ivar");
    TEST_ASSERT(shmemx_launch_on_stream(a, NULL, NULL) == SHMEMX_ERROR_INVALID_VALUE,
                "launch of NULL was not refused");
    expect_report(a, SHMEMX_ERROR_INVALID_VALUE, "launch", NULL, "shmemx_launch_on_stream",
                  "fn is NULL", (char *)NULL);
    /* Teams and collectives: the routines with a team also return the
     * refusal (NVSHMEM's return int). */
#undef REFUSED
#define REFUSED(CALL, ...) \
    do { \
        int rc_ = CALL; \
        TEST_ASSERT(rc_ == SHMEMX_ERROR_INVALID_VALUE, "%s returned %d, not " \
                    "SHMEMX_ERROR_INVALID_VALUE", #CALL, rc_); \
        expect_report(a, SHMEMX_ERROR_INVALID_VALUE, #CALL, NULL, __VA_ARGS__, (char *)NULL); \
    } while (0)
    REFUSED(shmemx_barrier_on_stream(bad, a), "shmemx_barrier_on_stream", "team");
    REFUSED(shmemx_team_sync_on_stream(bad, a), "shmemx_team_sync_on_stream", "team");
    REFUSED(shmemx_broadcastmem_on_stream(bad, sym, sym + 8, 8, 0, a),
            "shmemx_broadcastmem_on_stream", "team");
    REFUSED(shmemx_int_broadcast_on_stream(SHMEM_TEAM_WORLD, (int *)sym, (int *)sym, 2, n, a),
            "shmemx_int_broadcast_on_stream", "PE_root");
    REFUSED(shmemx_long_fcollect_on_stream(SHMEM_TEAM_WORLD, heap_only, sym, 2, a),
            "shmemx_long_fcollect_on_stream", "dest");
    REFUSED(shmemx_fcollectmem_on_stream(SHMEM_TEAM_WORLD, sym, loc, 8, a),
            "shmemx_fcollectmem_on_stream", "source");
    /* With several PEs the bytes fit, and times the team's size do not. */
    REFUSED(shmemx_long_alltoall_on_stream(SHMEM_TEAM_WORLD, sym, sym,
                                           n > 1 ? SIZE_MAX / 16 + 1 : SIZE_MAX / 4, a),
            "shmemx_long_alltoall_on_stream", "overflows");
    REFUSED(shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, loc, sym, 8, a),
            "shmemx_alltoallmem_on_stream", "dest");
    REFUSED(shmemx_long_sum_reduce_on_stream(SHMEM_TEAM_WORLD, heap_only, sym, 4, a),
            "shmemx_long_sum_reduce_on_stream", "dest");
    REFUSED(shmemx_double_max_reduce_on_stream(SHMEM_TEAM_WORLD, (double *)sym + 1,
                                               (double *)sym, 4, a),
            "shmemx_double_max_reduce_on_stream", "overlap");
    REFUSED(shmemx_uint_xor_reducescatter_on_stream(SHMEM_TEAM_WORLD, (unsigned *)sym,
                                                    (unsigned *)heap_only, 2, a),
            "shmemx_uint_xor_reducescatter_on_stream", "source");
    REFUSED(shmemx_long_prod_reducescatter_on_stream(SHMEM_TEAM_WORLD, sym, sym,
                                                     SIZE_MAX / 4, a),
            "shmemx_long_prod_reducescatter_on_stream", "overflows");
#undef REFUSED
    /* The stream goes on: a collective and a kernel after the refusals. */
    for (int i = 0; i < 4; i++)
        sym[8 + i] = shmem_my_pe() * 10L + i;
    TEST_ASSERT(shmemx_long_broadcast_on_stream(SHMEM_TEAM_WORLD, sym, sym + 8, 4, n - 1, a) == 0,
                "a good broadcast_on_stream after the refusals did not return 0");
    TEST_ASSERT(shmemx_launch_on_stream(a, int_kernel, NULL) == 0, "launch after refusals");
    TEST_ASSERT(shmemx_stream_sync(a) == 0, "sync after the refusals");
    for (int i = 0; i < 4; i++)
        TEST_CHECK("broadcast after refusals", i, (n - 1) * 10L + i, sym[i]);
    shmem_barrier_all();
    free(heap_only);
}


/* Workers on different CPUs (src/stream/stream_cpu.c): a kernel on stream a
 * spins until a kernel on stream b has run; each records the CPU it
 * started on. */
static volatile int spread_a_started, spread_b_done;
static int spread_cpu_a, spread_cpu_b;
static void spread_kernel_a(void *arg)
{
    double t0 = test_now();
    (void)arg;
    spread_cpu_a = sched_getcpu();
    __atomic_store_n(&spread_a_started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&spread_b_done, __ATOMIC_ACQUIRE) && test_now() - t0 < 20)
        ;
}
static void spread_kernel_b(void *arg)
{
    (void)arg;
    spread_cpu_b = sched_getcpu();
    __atomic_store_n(&spread_b_done, 1, __ATOMIC_RELEASE);
}

/* The tasks of the whole machine that are runnable now (/proc/stat's
 * procs_running), or -1. */
static int procs_running(void)
{
    char line[256];
    int n = -1;
    FILE *f = fopen("/proc/stat", "r");

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "procs_running %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

/* Ten rounds, half of them with stream b's worker asleep when its kernel
 * comes (the waker steers it) and half with it just back from work (it
 * moves itself): the two kernels must start on different CPUs whenever
 * this PE may run on several.  Without the spreading they shared one in
 * about a third of the launches of bench/stream_overlap.  The library
 * steers; the scheduler has the last word: with more tasks runnable than
 * a CPU each and one spinning kernel a PE (make -j check runs other tests
 * beside this one), a round whose kernels shared a CPU is not counted
 * (noted), and the check stands only where 5 rounds were counted. */
static void spread_check(shmemx_stream_t a, shmemx_stream_t b)
{
    cpu_set_t mine;
    int counted = 0;

    if (sched_getaffinity(0, sizeof(mine), &mine) != 0 || CPU_COUNT(&mine) < 2) {
        test_note("workers on different CPUs: not checked (this PE may run on one CPU)");
        return;
    }
    for (int r = 0; r < 10; r++) {
        int running;
        double t0;

        spread_a_started = spread_b_done = 0;
        spread_cpu_a = spread_cpu_b = -1;
        if (r % 2)
            TEST_ASSERT(shmemx_launch_on_stream(b, int_kernel, NULL) == 0 &&
                            shmemx_stream_sync(b) == 0, "spread: warm-up kernel on b");
        else
            usleep(20000);
        TEST_ASSERT(shmemx_launch_on_stream(a, spread_kernel_a, NULL) == 0, "spread: launch a");
        t0 = test_now();
        while (!__atomic_load_n(&spread_a_started, __ATOMIC_ACQUIRE))
            TEST_ASSERT(test_now() - t0 < 20, "spread: the kernel on stream a did not start");
        TEST_ASSERT(shmemx_launch_on_stream(b, spread_kernel_b, NULL) == 0, "spread: launch b");
        TEST_ASSERT(shmemx_stream_sync(b) == 0 && shmemx_stream_sync(a) == 0, "spread: sync");
        TEST_ASSERT(spread_b_done, "spread: the kernel on stream b did not run within 20 s");
        /* More runnable than a CPU each and one spinning kernel a PE. */
        running = spread_cpu_a == spread_cpu_b ? procs_running() : 0;
        if (running > CPU_COUNT(&mine) + test_npes) {
            test_note("round %d: the kernels of streams a and b both started on CPU %d with %d "
                      "tasks runnable on the machine: not counted", r, spread_cpu_a, running);
            continue;
        }
        counted++;
        TEST_ASSERT(spread_cpu_a != spread_cpu_b,
                    "round %d: the kernels of streams a and b both started on CPU %d while "
                    "another was allowed", r, spread_cpu_a);
    }
    if (counted < 5)
        test_note("workers on different CPUs: not checked (%d of 10 rounds on a machine with "
                  "more tasks runnable than CPUs)", 10 - counted);
}

int main(void)
{
    shmemx_stream_t a, b;
    int provided, me, n, right, left, round;

    test_name = "stream";
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = test_me = shmem_my_pe();
    n = test_npes = shmem_n_pes();
    right = (me + 1) % n;
    left = (me - 1 + n) % n;
    if (shmemx_stream_create(&a)) {
        test_note("SKIP: streams are not available in this configuration (see the message)");
        shmem_finalize();
        return TEST_SKIP;
    }
    TEST_ASSERT(shmemx_stream_create(&b) == 0, "second stream_create failed");
    {
        /* The path the stream takes is the one asked for. */
        const char *off = getenv("FABSHMEM_STREAM_OFFLOAD");
        if (off && !strcmp(off, "1") && n > 1)
            TEST_ASSERT(shmemx_stream_offloaded(a) == 1 && shmemx_stream_offloaded(b) == 1,
                        "FABSHMEM_STREAM_OFFLOAD=1 but the streams do not offload");
        if (off && !strcmp(off, "0"))
            TEST_ASSERT(shmemx_stream_offloaded(a) == 0, "FABSHMEM_STREAM_OFFLOAD=0 but the "
                        "stream offloads");
        if (me == 0)
            test_note("streams %s", shmemx_stream_offloaded(a) ? "offload (triggered operations)"
                                                               : "run on worker threads");
    }
    ring_buf = shmem_calloc(N, sizeof(long));
    get_buf = shmem_calloc(N, sizeof(long));
    many_buf = shmem_calloc(MANY, sizeof(long));
    sig = shmem_calloc(2, sizeof(uint64_t));
    static long src[4][N];

    /* Ring with put + signal on stream a, wait + check on stream b. */
    for (round = 1; round <= 3; round++) {
        int ok = 0;
        struct check_arg ca = { ring_buf, left, round, &ok };
        long *s = src[round];

        for (int i = 0; i < N; i++)
            s[i] = me * 1000L + i + round * 7;
        shmemx_signal_wait_until_on_stream(&sig[0], SHMEM_CMP_GE, (uint64_t)round, b);
        shmemx_launch_on_stream(b, check_kernel, &ca);
        shmemx_long_put_signal_on_stream(ring_buf, s, N, &sig[0], (uint64_t)round,
                                         SHMEM_SIGNAL_SET, right, a);
        TEST_ASSERT(shmemx_stream_sync(a) == 0, "sync of stream a reported an error");
        TEST_ASSERT(shmemx_stream_sync(b) == 0, "sync of stream b reported an error");
        TEST_ASSERT(ok, "round %d: the kernel on stream b saw wrong data from PE %d", round, left);
        /* Nobody may overwrite ring_buf before everyone checked it. */
        shmemx_barrier_all_on_stream(a);
        TEST_ASSERT(shmemx_stream_sync(a) == 0, "barrier on stream a failed");
    }

    /* Put then barrier on the stream: visible at the right neighbour. */
    for (int i = 0; i < N; i++)
        src[0][i] = me * 1000L + i;
    shmemx_long_put_on_stream(ring_buf, src[0], N, right, a);
    shmemx_barrier_all_on_stream(a);
    shmemx_stream_sync(a);
    for (int i = 0; i < N; i++)
        TEST_CHECK("put + barrier_all_on_stream", i, left * 1000L + i, ring_buf[i]);

    /* Get on a stream, signal_op on a stream. */
    shmemx_long_get_on_stream(get_buf, ring_buf, N, right, b);
    shmemx_signal_op_on_stream(&sig[1], 1, SHMEM_SIGNAL_SET, right, b);
    shmemx_stream_sync(b);
    for (int i = 0; i < N; i++)
        TEST_CHECK("get_on_stream", i, me * 1000L + i, get_buf[i]);
    shmemx_signal_wait_until_on_stream(&sig[1], SHMEM_CMP_EQ, 1, a);
    TEST_ASSERT(shmemx_stream_sync(a) == 0, "signal_wait on stream a failed");
    TEST_ASSERT(shmem_signal_fetch(&sig[1]) == 1, "signal_op_on_stream did not arrive");

    /* Order and query: a held kernel blocks the ones behind it. */
    log_n = 0;
    release_kernel = 0;
    shmemx_launch_on_stream(b, hold_kernel, NULL);
    for (int k = 0; k < 8; k++)
        shmemx_launch_on_stream(b, log_kernel, (void *)(intptr_t)k);
    usleep(2000);
    TEST_ASSERT(shmemx_stream_query(b) == 1, "query of a stream with held work says done");
    TEST_ASSERT(__atomic_load_n(&log_n, __ATOMIC_ACQUIRE) == 0, "work ran past a held kernel");
    __atomic_store_n(&release_kernel, 1, __ATOMIC_RELEASE);
    TEST_ASSERT(shmemx_stream_sync(b) == 0, "sync after the held kernel failed");
    TEST_ASSERT(shmemx_stream_query(b) == 0, "query after sync says busy");
    TEST_CHECK("kernels executed", 0, 8, log_n);
    for (int k = 0; k < 8; k++)
        TEST_CHECK("kernel order", k, k, log_order[k]);

    spread_check(a, b);

    /* A put behind a held kernel waits for it (on the triggered path the
     * provider must not start it before the kernel is done), and a get
     * behind the put on the same stream sees what the put wrote. */
    {
        static long one[2];

        get_buf[0] = 0;
        shmem_barrier_all();
        one[0] = me + 1;
        release_kernel = 0;
        shmemx_launch_on_stream(a, hold_kernel, NULL);
        shmemx_long_put_on_stream(&get_buf[0], &one[0], 1, right, a);
        shmemx_long_get_on_stream(&one[1], &get_buf[0], 1, right, a);
        usleep(20000);
        shmem_barrier_all();
        TEST_CHECK("put behind a held kernel has not landed", 0, 0, get_buf[0]);
        shmem_barrier_all();
        __atomic_store_n(&release_kernel, 1, __ATOMIC_RELEASE);
        TEST_ASSERT(shmemx_stream_sync(a) == 0, "sync after the held put");
        shmem_barrier_all();
        TEST_CHECK("put behind a held kernel, after it", 0, left + 1, get_buf[0]);
        TEST_CHECK("get behind the put on the same stream", 0, me + 1, one[1]);
        shmem_barrier_all();
    }

    /* Bad work is refused, reported once, and the stream goes on. */
    {
        long *sym = shmem_calloc(16, sizeof(long));
        refusals(a, n, right, sym, &sig[0]);
        shmem_free(sym);
    }

    /* Many small puts (the queue grows) while the main thread works too.
     * The barrier keeps the main-thread puts below from reaching a PE
     * before its get_on_stream above has filled get_buf. */
    shmem_barrier_all();
    static long vals[MANY];
    for (int i = 0; i < MANY; i++) {
        vals[i] = me * 100000L + i;
        shmemx_long_put_on_stream(&many_buf[i], &vals[i], 1, right, a);
    }
    for (int i = 0; i < N; i++)
        shmem_long_p(&get_buf[i], me + i, right);
    shmemx_barrier_all_on_stream(a);
    shmemx_stream_sync(a);
    shmem_barrier_all();
    for (int i = 0; i < MANY; i++)
        TEST_CHECK("many puts on a stream", i, left * 100000L + i, many_buf[i]);
    for (int i = 0; i < N; i++)
        TEST_CHECK("main-thread puts beside a stream", i, left + i, get_buf[i]);

    /* Order across separate operations: a large put and then a signal_op
     * on one stream; the signal's arrival means that the data is there.
     * Then work left on a stream that is destroyed without a sync. */
    {
        enum { BIG = 32768 };
        long *big = shmem_calloc(BIG, sizeof(long));
        static long bsrc[BIG], fin[N];
        shmemx_stream_t c;

        for (round = 1; round <= 2; round++) {
            for (int i = 0; i < BIG; i++)
                bsrc[i] = me * 1000000L + i + round;
            shmemx_long_put_on_stream(big, bsrc, BIG, right, a);
            shmemx_signal_op_on_stream(&sig[1], 1 + (uint64_t)round, SHMEM_SIGNAL_SET, right, a);
            shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, 1 + (uint64_t)round);
            for (int i = 0; i < BIG; i++)
                if (big[i] != left * 1000000L + i + round) {
                    TEST_CHECK("put then signal_op on one stream: data before the signal", i,
                               left * 1000000L + i + round, big[i]);
                    break;
                }
            TEST_ASSERT(shmemx_stream_sync(a) == 0, "sync after put and signal_op");
            shmem_barrier_all();
        }
        /* Puts and then a host kernel on one stream: the kernel reads the
         * target back through the default context (another endpoint, not
         * ordered with the stream's) and must find every put complete. */
        for (round = 1; round <= 3; round++) {
            static struct getback_arg ga;
            for (int i = 0; i < BIG; i++)
                bsrc[i] = me * 1000000L + i + 10 * round;
            for (int c0 = 0; c0 < BIG; c0 += BIG / 8)
                shmemx_long_put_on_stream(big + c0, bsrc + c0, BIG / 8, right, a);
            ga = (struct getback_arg){ big, bsrc, BIG, right, -2 };
            shmemx_launch_on_stream(a, getback_kernel, &ga);
            TEST_ASSERT(shmemx_stream_sync(a) == 0, "sync after puts and a kernel");
            TEST_ASSERT(ga.bad == -1, "round %d: a kernel behind puts on its stream read element "
                        "%d of PE %d before the put had landed (-2: the kernel did not run)",
                        round, ga.bad, right);
            shmem_barrier_all();
        }
        /* Destroy with work pending: a kernel that naps 200 ms, then puts;
         * the stream is not done when destroy is called, and destroy
         * waits for all of it. */
        TEST_ASSERT(shmemx_stream_create(&c) == 0, "stream_create for destroy-with-work");
        TEST_ASSERT(shmemx_launch_on_stream(c, nap_kernel, NULL) == 0, "launch of a nap");
        for (int i = 0; i < N; i++) {
            fin[i] = me * 10L + i;
            shmemx_long_put_on_stream(&big[i], &fin[i], 1, right, c);
        }
        TEST_ASSERT(shmemx_stream_query(c) == 1, "a stream behind a 200 ms kernel was done at "
                    "once (query %d), so destroy would not meet pending work",
                    shmemx_stream_query(c));
        TEST_ASSERT(shmemx_stream_destroy(c) == 0, "destroy with work pending");
        shmem_barrier_all();
        for (int i = 0; i < N; i++)
            TEST_CHECK("puts left on a destroyed stream", i, left * 10L + i, big[i]);
        shmem_barrier_all();
        /* Destroy of a stream that holds a refused operation returns the
         * error, as its sync would. */
        TEST_ASSERT(shmemx_stream_create(&c) == 0, "stream_create for destroy-with-error");
        shmemx_long_put_on_stream(&big[0], &fin[0], 1, n + 3, c);
        TEST_ASSERT(shmemx_stream_destroy(c) == SHMEMX_ERROR_INVALID_VALUE,
                    "destroy of a stream holding a refused put did not return "
                    "SHMEMX_ERROR_INVALID_VALUE");
        shmem_barrier_all();
        shmem_free(big);
    }

    /* A put and a get whose target buffer was unregistered while they
     * waited behind a held kernel are reported by the next sync, naming the
     * routine, once; the stream goes on.  Offloaded streams: the provider
     * fails the triggered put (SHMEMX_ERROR_TRANSPORT); the worker finds
     * the buffer gone before it reaches the transport (INVALID_VALUE). */
    {
        long *xb = aligned_alloc(4096, 4096);
        static long xs[8], xg[8];
        int off = shmemx_stream_offloaded(a) == 1;

        TEST_ASSERT(xb && shmemx_buffer_register_symmetric(xb, 4096, 0) == xb,
                    "shmemx_buffer_register_symmetric failed");
        release_kernel = 0;
        shmemx_launch_on_stream(a, hold_kernel, NULL);
        shmemx_long_put_on_stream(xb, xs, 8, right, a);
        if (!off)
            shmemx_long_get_on_stream(xg, xb + 8, 8, right, a);
        shmemx_buffer_unregister_symmetric(xb, 4096);
        /* unregister synchronizes before it deregisters, not after: wait
         * until every PE has, so that the put cannot land anywhere. */
        shmem_barrier_all();
        __atomic_store_n(&release_kernel, 1, __ATOMIC_RELEASE);
        if (off)
            expect_report(a, SHMEMX_ERROR_TRANSPORT, "failed triggered put", NULL,
                          "shmemx_long_put_on_stream", "triggered put", (char *)NULL);
        else
            expect_report(a, SHMEMX_ERROR_INVALID_VALUE, "put to an unregistered buffer",
                          "get_on_stream: ", "shmemx_long_put_on_stream", "no longer inside",
                          "(and 1 more after it)", (char *)NULL);
        shmemx_long_put_on_stream(&ring_buf[0], &xs[0], 1, right, a);
        TEST_ASSERT(shmemx_stream_sync(a) == 0, "the stream did not go on after a failure");
        shmem_barrier_all();
        free(xb);
    }

    /* Collectives on a stream: broadcast, fcollect, alltoall, a sum and a
     * max reduction and a reduce-scatter, each checked by value. */
    {
        long *cd = shmem_calloc(4 * N * n, sizeof(long)), *cs = shmem_calloc(N * n, sizeof(long));
        for (int i = 0; i < N * n; i++)
            cs[i] = me * 1000L + i;
        shmemx_long_broadcast_on_stream(SHMEM_TEAM_WORLD, cd, cs, N, n - 1, b);
        shmemx_stream_sync(b);
        for (int i = 0; i < N; i++)
            TEST_CHECK("broadcast_on_stream", i, (n - 1) * 1000L + i, cd[i]);
        shmemx_long_fcollect_on_stream(SHMEM_TEAM_WORLD, cd, cs, N, b);
        shmemx_stream_sync(b);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < N; i++)
                TEST_CHECK("fcollect_on_stream", j * N + i, j * 1000L + i, cd[j * N + i]);
        shmemx_long_alltoall_on_stream(SHMEM_TEAM_WORLD, cd, cs, 2, b);
        shmemx_stream_sync(b);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < 2; i++)
                TEST_CHECK("alltoall_on_stream", j * 2 + i, j * 1000L + me * 2 + i, cd[j * 2 + i]);
        shmemx_long_sum_reduce_on_stream(SHMEM_TEAM_WORLD, cd, cs, N, b);
        shmemx_long_max_reduce_on_stream(SHMEM_TEAM_WORLD, cd + N, cs, N, b);
        shmemx_stream_sync(b);
        for (int i = 0; i < N; i++) {
            TEST_CHECK("sum_reduce_on_stream", i, 1000L * n * (n - 1) / 2 + (long)i * n, cd[i]);
            TEST_CHECK("max_reduce_on_stream", i, (n - 1) * 1000L + i, cd[N + i]);
        }
        shmemx_long_sum_reducescatter_on_stream(SHMEM_TEAM_WORLD, cd, cs, N, b);
        shmemx_stream_sync(b);
        for (int i = 0; i < N; i++)
            TEST_CHECK("sum_reducescatter_on_stream", i,
                       1000L * n * (n - 1) / 2 + (long)(me * N + i) * n, cd[i]);
        shmemx_long_broadcast_on_stream(SHMEM_TEAM_INVALID, cd, cs, N, 0, b);
        TEST_ASSERT(shmemx_stream_sync(b) == SHMEMX_ERROR_INVALID_VALUE,
                    "a collective on an invalid team was not refused");
        shmem_barrier_all();
        shmem_free(cs);
        shmem_free(cd);
    }

    TEST_ASSERT(shmemx_stream_destroy(a) == 0, "destroy a");
    TEST_ASSERT(shmemx_stream_destroy(b) == 0, "destroy b");
    shmem_free(sig);
    shmem_free(many_buf);
    shmem_free(get_buf);
    shmem_free(ring_buf);
    return test_finish();
}
