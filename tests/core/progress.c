/*
 * progress: passive-target progress.  PE 1 computes for 2 s without
 * calling the library while PE 0 puts, gets and quiets to it; the other
 * PEs sleep.  PE 0 sums the time its calls took and fails above 1.5 s:
 * the peer must not stall (a correctness property, not a performance one).
 */
#include "common.h"
#include <strings.h>

#define BUSY_SECONDS 2.0
#define OPS_WINDOW 1.7
#define LIMIT_SECONDS 1.5
#define SMALL 64
#define LARGE (64 * 1024)

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

int main(void)
{
    long *small, *flag;
    unsigned char *large, *lbuf;
    long sbuf[SMALL];
    int iters = 0;

    test_init("progress");
    if (test_npes < 2) {
        test_note("SKIP: needs at least 2 PEs");
        shmem_finalize();
        return TEST_SKIP;
    }
    {
        /* What this test checks is the progress thread's work. */
        const char *pt = getenv("FABSHMEM_PROGRESS_THREAD");
        if (pt && (!strcmp(pt, "0") || !strcasecmp(pt, "no") || !strcasecmp(pt, "off"))) {
            test_note("SKIP: FABSHMEM_PROGRESS_THREAD=%s turns passive progress off", pt);
            shmem_finalize();
            return TEST_SKIP;
        }
    }
    small = shmem_calloc(SMALL, sizeof(long));
    flag = shmem_calloc(1, sizeof(long));
    large = shmem_calloc(LARGE, 1);
    lbuf = malloc(LARGE);
    TEST_ASSERT(small && flag && large && lbuf, "allocation failed");
    shmem_barrier_all();

    if (test_me == 1) {
        /* Busy compute: no library call at all. */
        volatile double x = 0;
        double t0 = test_now();
        while (test_now() - t0 < BUSY_SECONDS)
            x += 1.0;
        (void)x;
    } else if (test_me == 0) {
        double t_start = test_now(), spent = 0, worst = 0;
        size_t i;

        while (test_now() - t_start < OPS_WINDOW) {
            double t0 = test_now(), dt;
            long v = iters + 1;

            for (i = 0; i < SMALL; i++)
                sbuf[i] = v * 1000 + (long)i;
            memset(lbuf, (int)(v & 0xff), LARGE);
            shmem_long_put(small, sbuf, SMALL, 1);
            shmem_putmem_nbi(large, lbuf, LARGE, 1);
            shmem_quiet();
            memset(sbuf, 0, sizeof(sbuf));
            shmem_long_get(sbuf, small, SMALL, 1);
            for (i = 0; i < SMALL; i++)
                if (sbuf[i] != v * 1000 + (long)i)
                    test_fail("iteration %d: shmem_long_get from busy PE 1: index %zu: "
                              "expected %ld, got %ld", iters, i, v * 1000 + (long)i, sbuf[i]);
            memset(lbuf, 0, LARGE);
            shmem_getmem(lbuf, large, LARGE, 1);
            for (i = 0; i < LARGE; i += 4099)
                if (lbuf[i] != (unsigned char)(v & 0xff))
                    test_fail("iteration %d: shmem_getmem of %d bytes from busy PE 1: byte %zu: "
                              "expected %d, got %d", iters, LARGE, i, (int)(v & 0xff), lbuf[i]);
            shmem_long_p(flag, v, 1);
            shmem_quiet();
            dt = test_now() - t0;
            spent += dt;
            if (dt > worst)
                worst = dt;
            iters++;
            sleep_ms(10);
        }
        printf("progress: PE 0: %d iterations against busy PE 1, %.3f s in calls (worst %.3f s)\n",
               iters, spent, worst);
        fflush(stdout);
        if (spent > LIMIT_SECONDS)
            test_fail("operations to a busy PE took %.3f s in total (limit %.1f s, worst call "
                      "round %.3f s): the target stalled without passive progress", spent,
                      LIMIT_SECONDS, worst);
        TEST_ASSERT(iters > 0, "no iteration ran");
    } else {
        sleep_ms((long)(BUSY_SECONDS * 1000));
    }
    shmem_barrier_all();
    /* PE 1 checks the last values that PE 0 put while it was busy. */
    shmem_barrier_all();
    if (test_me == 1) {
        long v = *flag;
        size_t i;

        TEST_ASSERT(v >= 1, "flag from PE 0: expected >= 1, got %ld", v);
        for (i = 0; i < SMALL; i++)
            if (small[i] != v * 1000 + (long)i)
                test_fail("small buffer from PE 0: index %zu: expected %ld, got %ld", i,
                          v * 1000 + (long)i, small[i]);
        for (i = 0; i < LARGE; i++)
            if (large[i] != (unsigned char)(v & 0xff))
                test_fail("large buffer from PE 0: byte %zu: expected %d, got %d", i,
                          (int)(v & 0xff), large[i]);
    }
    shmem_barrier_all();
    shmem_free(large);
    shmem_free(flag);
    shmem_free(small);
    free(lbuf);
    return test_finish();
}
