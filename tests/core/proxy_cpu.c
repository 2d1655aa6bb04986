/*
 * proxy_cpu: the device API's proxy (src/proxy) with CPU threads in the
 * place of kernels (FABSHMEM_PROXY=1, the ring in host memory; a ring of
 * 4 slots unless FABSHMEM_PROXY_SLOTS says otherwise, so that producers
 * find it full).  Per PE, NT producer threads post to the next PE's
 * host-heap objects while the main thread uses the library itself
 * (shmem_init is SHMEM_THREAD_SINGLE: the proxy must be safe beside it):
 *   - P of 1, 2, 4 and 8 bytes and PUT, read back by the target; G and GET
 *     of values the target set;
 *   - every SHMEMD_AMO_* on 4 and 8 bytes, the fetched values and the final
 *     word checked;
 *   - fetch_add by every thread of every PE on one word of PE 0: the final
 *     sum exact, every fetched value unique (all PEs check all of them);
 *   - ordering: a PUT then a signal (AMO add) posted back to back: the
 *     target sees the data once it sees the signal;
 *   - quiet (done >= tail) after requests posted without waiting;
 *   - bad requests (a size of 3, a PE out of range) reported by
 *     shmemx_device_check naming the routine and the PE, the proxy going on;
 *     a producer's bad requests while the main thread checks: each report
 *     names the routine and says why, and the reports' counts add up.
 * With the argument "dead": PE 1 leaves with _exit while the other PEs'
 * producers wait for G requests from it: the job must end, not hang.
 */
#define _GNU_SOURCE
#include "common.h"
#include "proxy_producer.h"
#include "proxy/proxy.h"
#include <shmemx.h>
#include <pthread.h>
#include <time.h>

#define NT 6        /* producers per PE */
#define NADD 150    /* fetch_adds per producer */
#define BLK 96      /* bytes of a PUT */

static shmemd_proxy_t px;
static int me, npes, next, prev;

/* Symmetric objects: [source PE][thread] of what PE source's thread t
 * writes here. */
static uint8_t *p8;
static uint16_t *p16;
static uint32_t *p32;
static uint64_t *p64, *amo64, *sig, *counter, *fetched, *mainw, *drainw;
static uint32_t *amo32, *counter32;
static char *blk, *gsrc;

#define IDX(pe, t) ((size_t)(pe) * NT + (size_t)(t))

static uint64_t pattern(int pe, int t, int k)
{
    return 0x0102030405060708ull * (uint64_t)(pe + 1) + (uint64_t)t * 0x1111 + (uint64_t)k;
}

static void die(const char *what, int t, uint64_t want, uint64_t got)
{
    fprintf(stderr, "proxy_cpu: PE %d thread %d: %s: expected %llu (0x%llx), got %llu (0x%llx)\n",
            me, t, what, (unsigned long long)want, (unsigned long long)want,
            (unsigned long long)got, (unsigned long long)got);
    shmem_global_exit(1);
}

#define CALL(...) do { if (px_call(&px, __VA_ARGS__)) die("the proxy stopped", t, 0, 1); } while (0)
#define EXPECT(what, want, got)                                                             \
    do {                                                                                    \
        if ((uint64_t)(want) != (uint64_t)(got))                                            \
            die(what, t, want, got);                                                        \
    } while (0)

/* The AMO sequence on one word of size sz (4 or 8) on PE pe; returns the
 * final value it leaves. */
static uint64_t amo_seq(int t, int sz, void *w, int pe, uint64_t v)
{
    uint64_t m = sz == 4 ? 0xffffffffull : ~0ull, r, cur = v & m;

    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_SET, pe, w, NULL, sz, v, 0, NULL);
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_FETCH, pe, w, NULL, sz, 0, 0, &r);
    EXPECT("fetch", cur, r);
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_ADD, pe, w, NULL, sz, 5, 0, NULL);
    cur = (cur + 5) & m;
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_FETCH_ADD, pe, w, NULL, sz, m, 0, &r); /* add -1 */
    EXPECT("fetch_add", cur, r);
    cur = (cur + m) & m;
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_AND, pe, w, NULL, sz, 0xf0f0f0f0f0f0f0f0ull, 0, NULL);
    cur &= 0xf0f0f0f0f0f0f0f0ull & m;
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_OR, pe, w, NULL, sz, 0x0303, 0, NULL);
    cur |= 0x0303;
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_XOR, pe, w, NULL, sz, 0x5555aaaa5555aaaaull, 0, NULL);
    cur = (cur ^ 0x5555aaaa5555aaaaull) & m;
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_FETCH_AND, pe, w, NULL, sz, 0xffff00ffffff00ffull, 0, &r);
    EXPECT("fetch_and", cur, r);
    cur &= 0xffff00ffffff00ffull & m;
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_FETCH_OR, pe, w, NULL, sz, 0x10000, 0, &r);
    EXPECT("fetch_or", cur, r);
    cur |= 0x10000;
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_FETCH_XOR, pe, w, NULL, sz, 0x1234567890abcdefull, 0, &r);
    EXPECT("fetch_xor", cur, r);
    cur = (cur ^ 0x1234567890abcdefull) & m;
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_SWAP, pe, w, NULL, sz, v + 77, 0, &r);
    EXPECT("swap", cur, r);
    cur = (v + 77) & m;
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_CSWAP, pe, w, NULL, sz, 1, cur + 1, &r); /* fails */
    EXPECT("cswap (no match)", cur, r);
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_CSWAP, pe, w, NULL, sz, v + 99, cur, &r);
    EXPECT("cswap (match)", cur, r);
    return (v + 99) & m;
}

static uint64_t amo_final(int src, int t, int sz)
{
    uint64_t m = sz == 4 ? 0xffffffffull : ~0ull;
    return (pattern(src, t, 40 + sz) + 99) & m;
}

static void *producer(void *arg)
{
    int t = (int)(intptr_t)arg, k;
    uint64_t r, tk;
    char buf[BLK], got[BLK];
    size_t i = IDX(me, t);
    shmemd_proxy_req_t q = { 0 };

    /* P of every size and PUT to the next PE. */
    CALL(SHMEMD_PX_P, 0, next, &p8[i], NULL, 1, pattern(me, t, 1), 0, NULL);
    CALL(SHMEMD_PX_P, 0, next, &p16[i], NULL, 2, pattern(me, t, 2), 0, NULL);
    CALL(SHMEMD_PX_P, 0, next, &p32[i], NULL, 4, pattern(me, t, 4), 0, NULL);
    CALL(SHMEMD_PX_P, 0, next, &p64[i], NULL, 8, pattern(me, t, 8), 0, NULL);
    for (k = 0; k < BLK; k++)
        buf[k] = (char)(pattern(me, t, k) >> 3);
    CALL(SHMEMD_PX_PUT, 0, next, blk + i * BLK, buf, BLK, 0, 0, NULL);
    /* G of every size and GET of what the next PE set before the start. */
    for (k = 1; k <= 8; k *= 2) {
        uint64_t want = pattern(next, t, 100), m = k == 8 ? ~0ull : (1ull << (8 * k)) - 1;
        CALL(SHMEMD_PX_G, 0, next, NULL, gsrc + (size_t)t * 8, (uint64_t)k, 0, 0, &r);
        EXPECT("g", want & m, r);
    }
    CALL(SHMEMD_PX_GET, 0, next, got, gsrc, NT * 8, 0, 0, NULL);
    for (k = 0; k < NT; k++) {
        uint64_t v;
        memcpy(&v, got + k * 8, 8);
        EXPECT("get", pattern(next, k, 100), v);
    }
    /* Every atomic on 4 and 8 bytes. */
    amo_seq(t, 4, &amo32[i], next, pattern(me, t, 44));
    amo_seq(t, 8, &amo64[i], next, pattern(me, t, 48));
    /* Contention on PE 0's counters. */
    for (k = 0; k < NADD; k++) {
        CALL(SHMEMD_PX_AMO, SHMEMD_AMO_FETCH_ADD, 0, counter, NULL, 8, 1, 0, &r);
        fetched[(size_t)(t * NADD + k)] = r;
        CALL(SHMEMD_PX_AMO, SHMEMD_AMO_ADD, 0, counter32, NULL, 4, 1, 0, NULL);
    }
    /* Quiet: requests posted without waiting, then done >= tail. */
    for (k = 0; k < 8; k++) {
        q.op = SHMEMD_PX_P;
        q.pe = next;
        q.dst = (uint64_t)(uintptr_t)&p64[IDX(me, t)];
        q.len = 8;
        q.value = pattern(me, t, 200 + k);
        if (px_post(&px, &q, &tk))
            die("post", t, 0, 1);
    }
    if (px_quiet(&px))
        die("quiet", t, 0, 1);
    CALL(SHMEMD_PX_G, 0, next, NULL, &p64[IDX(me, t)], 8, 0, 0, &r);
    EXPECT("p after quiet", pattern(me, t, 207), r);
    /* Ordering: the data, then the signal, back to back; the G of it
     * afterwards waits for both. */
    for (k = 0; k < BLK; k++)
        buf[k] = (char)(pattern(me, t, k + 300) >> 5);
    q.op = SHMEMD_PX_PUT;
    q.pe = next;
    q.dst = (uint64_t)(uintptr_t)(blk + (IDX(npes, 0) + i) * BLK);
    q.src = (uint64_t)(uintptr_t)buf;
    q.len = BLK;
    if (px_post(&px, &q, &tk))
        die("post", t, 0, 1);
    CALL(SHMEMD_PX_AMO, SHMEMD_AMO_ADD, next, &sig[me], NULL, 8, 1, 0, NULL);
    return NULL;
}

/* What the previous PE's producers wrote here. */
static void check_target(void)
{
    int t, k;

    for (t = 0; t < NT; t++) {
        size_t i = IDX(prev, t);
        EXPECT("p8", (uint8_t)pattern(prev, t, 1), p8[i]);
        EXPECT("p16", (uint16_t)pattern(prev, t, 2), p16[i]);
        EXPECT("p32", (uint32_t)pattern(prev, t, 4), p32[i]);
        EXPECT("p64 (the last of the quiet's)", pattern(prev, t, 207), p64[i]);
        for (k = 0; k < BLK; k++)
            EXPECT("put", (uint8_t)(pattern(prev, t, k) >> 3), (uint8_t)blk[i * BLK + k]);
        EXPECT("amo32", amo_final(prev, t, 4), amo32[i]);
        EXPECT("amo64", amo_final(prev, t, 8), amo64[i]);
    }
}

/* The signal of the previous PE's producers: then their data is here. */
static void check_ordering(void)
{
    int t = -1, k;

    shmem_uint64_wait_until(&sig[prev], SHMEM_CMP_EQ, NT);
    for (t = 0; t < NT; t++)
        for (k = 0; k < BLK; k++)
            EXPECT("put before the signal", (uint8_t)(pattern(prev, t, k + 300) >> 5),
                   (uint8_t)blk[(IDX(npes, 0) + IDX(prev, t)) * BLK + k]);
}

/* Every PE's fetched values together are 0 .. total-1, once each. */
static void check_counter(void)
{
    size_t n = (size_t)NT * NADD, total = n * (size_t)npes, i;
    uint64_t *all = malloc(total * sizeof(uint64_t));
    char *seen = calloc(total, 1);
    int pe, t = -1;

    if (!all || !seen)
        die("malloc", -1, 1, 0);
    for (pe = 0; pe < npes; pe++)
        shmem_getmem(all + (size_t)pe * n, fetched, n * sizeof(uint64_t), pe);
    for (i = 0; i < total; i++) {
        if (all[i] >= total || seen[all[i]])
            die("fetch_add values unique below the total", (int)(i / NADD), total, all[i]);
        seen[all[i]] = 1;
    }
    uint64_t c = shmem_uint64_atomic_fetch(counter, 0);
    EXPECT("the counter's sum", total, c);
    uint32_t c32 = shmem_uint32_atomic_fetch(counter32, 0);
    EXPECT("the 4-byte counter's sum", total, c32);
    free(all);
    free(seen);
}

/* Bad requests: reported at the next check, naming the routine and PE;
 * the proxy goes on. */
static void check_bad(void)
{
    char msg[1024];
    uint64_t r;
    int t = -1, rc;
    shmemd_proxy_req_t q = { 0 };
    uint64_t tk;

    q.op = SHMEMD_PX_P;
    q.routine = SHMEMD_RTN_P;
    q.pe = next;
    q.dst = (uint64_t)(uintptr_t)p64;
    q.len = 3;
    if (px_post(&px, &q, &tk) || px_wait(&px, tk))
        die("post", t, 0, 1);
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    rc = shmemx_device_check();
    shmemx_error_get(msg, sizeof(msg));
    if (rc != SHMEMX_ERROR_INVALID_VALUE || !strstr(msg, "shmemd_TYPE_p") ||
        !strstr(msg, "3 bytes")) {
        fprintf(stderr, "proxy_cpu: PE %d: a P of 3 bytes: status %d, message \"%s\"\n", me, rc,
                msg);
        shmem_global_exit(1);
    }
    q.op = SHMEMD_PX_G;
    q.routine = SHMEMD_RTN_G;
    q.pe = npes + 3;
    q.len = 8;
    if (px_post(&px, &q, &tk) || px_fetch(&px, tk, &r))
        die("post", t, 0, 1);
    rc = shmemx_device_check();
    shmemx_error_get(msg, sizeof(msg));
    snprintf(msg + 900, 100, "PE %d", npes + 3);
    if (rc != SHMEMX_ERROR_INVALID_VALUE || !strstr(msg, "shmemd_TYPE_g") ||
        !strstr(msg, msg + 900)) {
        fprintf(stderr, "proxy_cpu: PE %d: a G from PE %d: status %d, message \"%s\"\n", me,
                npes + 3, rc, msg);
        shmem_global_exit(1);
    }
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    if (shmemx_device_check() != 0)
        die("no error left", t, 0, 1);
}

/* Bad requests from a producer while the host checks: every report
 * names the request's routine and says why, and the counts of the reports
 * add up to the requests (none is reported twice or lost between the
 * host's reading of the record and its clearing). */
#define NBAD 300
static int bad_done;

static void *bad_producer(void *arg)
{
    shmemd_proxy_req_t q = { 0 };
    uint64_t tk;
    int k, t = (int)(intptr_t)arg;

    q.op = SHMEMD_PX_P;
    q.routine = SHMEMD_RTN_P;
    q.pe = next;
    q.dst = (uint64_t)(uintptr_t)p64;
    q.len = 3;
    for (k = 0; k < NBAD; k++)
        if (px_post(&px, &q, &tk) || px_wait(&px, tk))
            die("post", t, 0, 1);
    __atomic_store_n(&bad_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void check_bad_concurrent(void)
{
    char msg[1024];
    const char *c;
    pthread_t th;
    unsigned long sum = 0;
    int done, rc, t = -1;

    if (pthread_create(&th, NULL, bad_producer, (void *)(intptr_t)NT))
        die("pthread_create", t, 0, 1);
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    do {
        done = __atomic_load_n(&bad_done, __ATOMIC_ACQUIRE);
        if (!(rc = shmemx_device_check()))
            continue;
        shmemx_error_get(msg, sizeof(msg));
        c = strstr(msg, "through the proxy (");
        if (rc != SHMEMX_ERROR_INVALID_VALUE || !strstr(msg, "shmemd_TYPE_p") ||
            !strstr(msg, "3 bytes") || !c) {
            fprintf(stderr, "proxy_cpu: PE %d: a P of 3 bytes beside the host's checks: "
                    "status %d, message \"%s\"\n", me, rc, msg);
            shmem_global_exit(1);
        }
        sum += strtoul(c + strlen("through the proxy ("), NULL, 10);
    } while (!done);
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    pthread_join(th, NULL);
    EXPECT("the errors counted by the checks beside a producer of bad requests", NBAD, sum);
}

/* The producers of the dead case: G from PE 1 until the proxy gives up. */
static void *dead_producer(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint64_t r;
    double t0 = (double)time(NULL);

    while (!px_call(&px, SHMEMD_PX_G, 0, 1, NULL, gsrc, 8, 0, 0, &r)) {
        if ((double)time(NULL) - t0 > 60) {
            /* Status 0, which the test reads as a failure: the job should
             * have ended long ago. */
            fprintf(stderr, "proxy_cpu: PE %d thread %d: the job did not end 60 s after PE 1 "
                    "left\n", me, t);
            _exit(0);
        }
        usleep(1000);
    }
    fprintf(stderr, "proxy_cpu: PE %d thread %d: the proxy stopped (status %llu)\n", me, t,
            (unsigned long long)px.ctl[SHMEMD_PX_STATUS]);
    return NULL;
}

static void dead(void)
{
    pthread_t th[NT];
    int t;

    if (me == 1) {
        usleep(200000);
        fprintf(stderr, "proxy_cpu: PE 1 leaves with _exit(3)\n");
        _exit(3);
    }
    for (t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, dead_producer, (void *)(intptr_t)t);
    for (t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    /* The proxy failed: its error ends the job (and names PE 1). */
    shmemx_device_check();
    fprintf(stderr, "proxy_cpu: PE %d: the proxy stopped without an error\n", me);
    exit(1);
}

/* The host's barrier waits for the requests posted before it: with the
 * proxy asleep (idle long enough to nap up to FABSHMEM_PROXY_SLEEP, set
 * to 200 ms below), P requests posted without a wait are at the target
 * once shmem_barrier_all returns (the barrier wakes the proxy and waits
 * for them), not a nap later. */
static void check_drain(void)
{
    struct timespec idle = { 0, 300 * 1000 * 1000 };
    shmemd_proxy_req_t r = { 0 };
    uint64_t tk;
    int k, t = -1;

    nanosleep(&idle, NULL);
    for (k = 0; k < 3; k++) {
        r.op = SHMEMD_PX_P;
        r.routine = SHMEMD_RTN_P;
        r.pe = next;
        r.dst = (uint64_t)(uintptr_t)&drainw[k];
        r.len = 8;
        r.value = pattern(me, k, 300);
        if (px_post(&px, &r, &tk))
            die("posting a P before the barrier", -1, 0, 1);
    }
    shmem_barrier_all();
    for (k = 0; k < 3; k++)
        EXPECT("a P posted before the host's barrier", pattern(prev, k, 300), drainw[k]);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    pthread_t th[NT];
    int t, k;
    size_t n;

    setenv("FABSHMEM_PROXY", "1", 0);
    setenv("FABSHMEM_PROXY_SLOTS", "4", 0);
    setenv("FABSHMEM_PROXY_SLEEP", "200000", 0);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next = (me + 1) % npes;
    prev = (me + npes - 1) % npes;
    if (shmemi_proxy_ring(&px)) {
        fprintf(stderr, "proxy_cpu: PE %d: no proxy with FABSHMEM_PROXY=1\n", me);
        shmem_global_exit(1);
    }
    n = (size_t)npes * NT;
    p8 = shmem_calloc(n, 1);
    p16 = shmem_calloc(n, 2);
    p32 = shmem_calloc(n, 4);
    p64 = shmem_calloc(n, 8);
    amo32 = shmem_calloc(n, 4);
    amo64 = shmem_calloc(n, 8);
    sig = shmem_calloc((size_t)npes, 8);
    counter = shmem_calloc(1, 8);
    counter32 = shmem_calloc(1, 4);
    fetched = shmem_calloc((size_t)NT * NADD, 8);
    blk = shmem_calloc(2 * n + NT, BLK);
    gsrc = shmem_calloc(NT, 8);
    mainw = shmem_calloc(2, 8);
    drainw = shmem_calloc(3, 8);
    if (!mainw || !drainw || !p8 || !p16 || !p32 || !p64 || !amo32 || !amo64 || !sig || !counter ||
        !counter32 ||
        !fetched || !blk || !gsrc)
        die("shmem_calloc", -1, 1, 0);
    for (t = 0; t < NT; t++) {
        uint64_t v = pattern(me, t, 100);
        memcpy(gsrc + (size_t)t * 8, &v, 8);
    }
    shmem_barrier_all();
    if (argc > 1 && !strcmp(argv[1], "dead"))
        dead();
    for (t = 0; t < NT; t++)
        if (pthread_create(&th[t], NULL, producer, (void *)(intptr_t)t))
            die("pthread_create", t, 0, 1);
    /* The main thread uses the library beside the proxy meanwhile. */
    for (k = 0; k < 200; k++) {
        uint64_t v = (uint64_t)k;
        shmem_putmem(&mainw[0], &v, 8, next);
        shmem_uint64_atomic_add(&mainw[1], 1, next);
        shmem_quiet();
    }
    check_ordering();
    for (t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    t = -1;
    check_target();
    EXPECT("the main thread's put", 199, mainw[0]);
    EXPECT("the main thread's adds", 200, mainw[1]);
    check_counter();
    check_bad();
    check_bad_concurrent();
    shmem_barrier_all();
    check_drain();
    if (me == 0)
        printf("proxy_cpu: %d PEs x %d producers, ring of %u: P, PUT, G, GET, every AMO, "
               "fetch_add contention, ordering, quiet, bad requests (also beside the host's "
               "checks) and the barrier's drain "
               "checked\n", npes, NT,
               px.nslots);
    shmem_finalize();
    return 0;
}
