/*
 * proxy_lat: the device API's proxy (src/proxy) measured with a CPU
 * producer in the place of a kernel (tests/proxy_producer.h), beside the
 * host's own operations in the same run.  PE 0 drives, PE 1 is the target.
 * Result lines "name size value unit":
 *   host_put_lat / proxy_put_lat SIZE us   a blocking put (host: putmem +
 *       quiet; proxy: a PUT request, posted and waited for: complete at
 *       the target), medians of 5 repetitions; proxy_put_ratio SIZE x
 *   host_fadd_lat / proxy_fadd_lat 8 us     fetch_add of 8 bytes; ratio
 *   proxy_idle_lat 8 us                     an 8-byte P after 1 s without
 *       requests (the proxy asleep: at most FABSHMEM_PROXY_SLEEP more), the
 *       median and the worst of 5; host_idle_lat: the host's p + quiet after
 *       1 s without traffic, for comparison
 *   proxy_idle_wakeups 0 per_s, proxy_idle_cpu 0 percent   the idle
 *       proxy thread over 2 s: wake-ups per second and CPU time (its
 *       CLOCK_THREAD_CPUTIME) as a percentage of one core, 1 s after its
 *       last request (naps up to FABSHMEM_PROXY_SLEEP);
 *   proxy_deep_wakeups 0 per_s, proxy_deep_cpu 0 percent   the same
 *       12 s after it (deep sleep: naps up to 16 times that);
 *   proxy_deep_lat 8 us     an 8-byte P after 14 s without requests;
 *   proxy_kick_lat 8 us     the same after 14 s, with the host's
 *       shmemx_device_check just before it (which wakes a deep sleeper).
 * Run with FABSHMEM_PROXY=1 (set here unless given); the argument "idle"
 * measures the idle proxy only.
 */
#define _GNU_SOURCE
#include "common.h"
#include "proxy_producer.h"
#include "proxy/proxy.h"

#define REPS 5
#define MAXSZ (1u << 20)

static shmemd_proxy_t px;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_d);
    return v[n / 2];
}

static void check(int rc)
{
    if (rc) {
        fprintf(stderr, "proxy_lat: the proxy stopped\n");
        shmem_global_exit(1);
    }
}

/* Microseconds per blocking put of size bytes to PE 1: the host's
 * (proxy 0) or the proxy's. */
static double put_lat(char *dst, char *src, size_t size, int iters, int proxy)
{
    double t0 = bench_now();

    for (int i = 0; i < iters; i++) {
        if (proxy) {
            check(px_call(&px, SHMEMD_PX_PUT, 0, 1, dst, src, size, 0, 0, NULL));
        } else {
            shmem_putmem(dst, src, size, 1);
            shmem_quiet();
        }
    }
    return (bench_now() - t0) * 1e6 / iters;
}

static double fadd_lat(uint64_t *w, int iters, int proxy)
{
    double t0 = bench_now();
    uint64_t r;

    for (int i = 0; i < iters; i++) {
        if (proxy)
            check(px_call(&px, SHMEMD_PX_AMO, SHMEMD_AMO_FETCH_ADD, 1, w, NULL, 8, 1, 0, &r));
        else
            r = shmem_uint64_atomic_fetch_add(w, 1, 1);
    }
    (void)r;
    return (bench_now() - t0) * 1e6 / iters;
}

static void latencies(char *dst, char *src, uint64_t *w)
{
    double h[REPS], p[REPS];

    for (size_t size = 8; size <= MAXSZ; size *= 8) {
        int iters = size >= 65536 ? 200 : 2000;
        put_lat(dst, src, size, iters / 10, 0);
        put_lat(dst, src, size, iters / 10, 1);
        for (int r = 0; r < REPS; r++) {
            h[r] = put_lat(dst, src, size, iters, 0);
            p[r] = put_lat(dst, src, size, iters, 1);
        }
        double hm = median(h, REPS), pm = median(p, REPS);
        printf("host_put_lat %zu %.3f us\nproxy_put_lat %zu %.3f us\nproxy_put_ratio %zu %.2f x\n",
               size, hm, size, pm, size, pm / hm);
    }
    for (int r = 0; r < REPS; r++) {
        h[r] = fadd_lat(w, 2000, 0);
        p[r] = fadd_lat(w, 2000, 1);
    }
    double hm = median(h, REPS), pm = median(p, REPS);
    printf("host_fadd_lat 8 %.3f us\nproxy_fadd_lat 8 %.3f us\nproxy_fadd_ratio 8 %.2f x\n", hm,
           pm, pm / hm);
}

static void idle(uint64_t *w)
{
    double lat[REPS], hlat[REPS];
    shmemi_proxy_stats_t a, b;

    for (int r = 0; r < REPS; r++) {
        usleep(1000000);
        double t0 = bench_now();
        check(px_call(&px, SHMEMD_PX_P, 0, 1, w, NULL, 8, (uint64_t)r, 0, NULL));
        lat[r] = (bench_now() - t0) * 1e6;
        usleep(1000000);
        t0 = bench_now();
        shmem_uint64_p(w, (uint64_t)r, 1);
        shmem_quiet();
        hlat[r] = (bench_now() - t0) * 1e6;
    }
    qsort(lat, REPS, sizeof(double), cmp_d);
    qsort(hlat, REPS, sizeof(double), cmp_d);
    printf("host_idle_lat 8 %.1f us\nhost_idle_lat_max 8 %.1f us\n", hlat[REPS / 2],
           hlat[REPS - 1]);
    printf("proxy_idle_lat 8 %.1f us\nproxy_idle_lat_max 8 %.1f us\n", lat[REPS / 2],
           lat[REPS - 1]);
    usleep(100000);
    shmemi_proxy_stats(&a);
    double t0 = bench_now();
    usleep(2000000);
    shmemi_proxy_stats(&b);
    double secs = bench_now() - t0;
    printf("proxy_idle_wakeups 0 %.0f per_s\nproxy_idle_cpu 0 %.3f percent\n",
           (double)(b.wakeups - a.wakeups) / secs, (b.cpu_s - a.cpu_s) / secs * 100.0);
    usleep(10000000);
    shmemi_proxy_stats(&a);
    t0 = bench_now();
    usleep(2000000);
    shmemi_proxy_stats(&b);
    secs = bench_now() - t0;
    printf("proxy_deep_wakeups 0 %.0f per_s\nproxy_deep_cpu 0 %.3f percent\n",
           (double)(b.wakeups - a.wakeups) / secs, (b.cpu_s - a.cpu_s) / secs * 100.0);
    t0 = bench_now();
    check(px_call(&px, SHMEMD_PX_P, 0, 1, w, NULL, 8, 7, 0, NULL));
    printf("proxy_deep_lat 8 %.1f us\n", (bench_now() - t0) * 1e6);
    usleep(14000000);
    t0 = bench_now();
    (void)shmemx_device_check();
    check(px_call(&px, SHMEMD_PX_P, 0, 1, w, NULL, 8, 8, 0, NULL));
    printf("proxy_kick_lat 8 %.1f us\n", (bench_now() - t0) * 1e6);
}

int main(int argc, char **argv)
{
    char *dst, *src;
    uint64_t *w;

    setenv("FABSHMEM_PROXY", "1", 0);
    shmem_init();
    if (shmem_n_pes() < 2) {
        fprintf(stderr, "proxy_lat: needs 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    dst = shmem_malloc(MAXSZ);
    w = shmem_calloc(1, 8);
    src = malloc(MAXSZ);
    if (!dst || !w || !src || shmemi_proxy_ring(&px)) {
        fprintf(stderr, "proxy_lat: no memory or no proxy\n");
        shmem_global_exit(1);
    }
    memset(src, 7, MAXSZ);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        const char *e = getenv("FABSHMEM_PROXY_SLEEP");
        printf("# proxy_lat: provider %s, direct %s, ring %u, FABSHMEM_PROXY_SLEEP %s us\n",
               getenv("FABSHMEM_PROVIDER") ? getenv("FABSHMEM_PROVIDER") : "(default)",
               getenv("FABSHMEM_DIRECT") ? getenv("FABSHMEM_DIRECT") : "1", px.nslots,
               e ? e : "1000 (default)");
        if (argc < 2 || strcmp(argv[1], "idle"))
            latencies(dst, src, w);
        idle(w);
    }
    shmem_barrier_all();
    shmem_finalize();
    free(src);
    return 0;
}
