/*
 * scale: what a job costs as it grows, measured at one PE count per run
 * (bench/scale.sh runs it over PE counts and host layouts, fits how each
 * cost grows and writes the tables of docs/performance.md).
 *
 *   scale [-r REPS] [-t MS]      (default 3 repetitions of about 200 ms)
 *
 * Every PE measures; the result lines (bench/common.h's format, the size
 * column being the number of PEs) give the slowest PE's value, or the
 * mean where marked:
 *
 *   scale_init        NPES ms   shmem_init (bootstrap, node map, heap,
 *                               provider, teams), slowest PE
 *   scale_init_cpu    NPES ms   the CPU time of shmem_init (every thread
 *                               of the process), mean over the PEs: what
 *                               init costs whatever the PEs share cores with
 *   scale_init_pmix   NPES ms   the part of it spent in PMIx calls,
 *                               slowest PE (only with bench/pmix_time.c
 *                               preloaded, as bench/scale.sh does; its
 *                               counts of calls on PE 0 in a comment)
 *   scale_first_contact NPES ms a put of 8 bytes to every other PE and a
 *                               quiet, the first time (connections are
 *                               made on first use), slowest PE
 *   scale_second_contact NPES ms the same again (connections made)
 *   scale_malloc      NPES us   shmem_malloc of 1 MiB (collective),
 *                               median of 20, slowest PE
 *   scale_barrier     NPES us   shmem_barrier_all, median of the
 *                               repetitions' means
 *   scale_fcollect    NPES us   fcollect of 8 bytes per PE on TEAM_WORLD
 *   scale_rss_init    NPES MB   resident memory after init, largest PE
 *   scale_rss         NPES MB   resident memory after every PE talked to
 *                               every other, largest PE
 *   scale_rss_mean    NPES MB   the same, mean over the PEs
 *
 * and a comment line with the number of hosts the PEs ran on.  Only the
 * standard OpenSHMEM 1.5 API is used.
 */
#include "common.h"
#include <dlfcn.h>
#include <sys/resource.h>

enum { HOSTLEN = 64, MALLOCS = 20, MAXREPS = 32 };

static double dsrc[1], ddst[1];
static long lsrc;
static long go_n;
static long contact_target;
static uint64_t fc_src;

static double now_ms(void)
{
    return bench_now() * 1e3;
}

/* CPU time of the process so far (every thread), ms. */
static double cpu_ms(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
}

/* The largest value of x over the PEs, and their sum in *sum. */
static double max_over_pes(double x, double *sum)
{
    dsrc[0] = x;
    shmem_barrier_all();
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 1);
    double mx = ddst[0];
    if (sum) {
        dsrc[0] = x;
        shmem_barrier_all();
        shmem_double_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 1);
        *sum = ddst[0];
    }
    return mx;
}

/* Resident memory of this process in MB (VmRSS), or -1. */
static double rss_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1;

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "VmRSS:", 6)) {
            kb = atof(line + 6);
            break;
        }
    fclose(f);
    return kb / 1024.0;
}

/* PE 0's iteration count for about budget_ms per repetition, from a
 * timed trial, made the same on every PE. */
static long calibrate(double per_op_ms, double budget_ms)
{
    lsrc = per_op_ms > 0 ? (long)(budget_ms / per_op_ms) : 1000;
    if (lsrc < 5)
        lsrc = 5;
    if (lsrc > 100000)
        lsrc = 100000;
    shmem_barrier_all();
    shmem_long_broadcast(SHMEM_TEAM_WORLD, &go_n, &lsrc, 1, 0);
    return go_n;
}

static void contact_all(int me, int n)
{
    for (int i = 1; i < n; i++)
        shmem_long_p(&contact_target, me, (me + i) % n);
    shmem_quiet();
}

/* (long: one measurement after the other, each a few lines, reads best
 * as the sequence the header describes) */
int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 100000, .min_size = 1, .max_size = 1, .reps = 3,
                       .budget_ms = 200, .window = 1 };
    double t0, t_init, t1, sum, c0, c_init;
    int me, n;

    if (bench_parse(argc, argv, &o, NULL))
        return 2;
    int reps = o.reps < MAXREPS ? o.reps : MAXREPS;
    double budget = o.budget_ms;
    c0 = cpu_ms();
    t0 = now_ms();
    shmem_init();
    t_init = now_ms() - t0;
    c_init = cpu_ms() - c0;
    me = shmem_my_pe();
    n = shmem_n_pes();

    /* How many hosts: distinct host names. */
    char *names = shmem_malloc((size_t)n * HOSTLEN), *mine = shmem_malloc(HOSTLEN);
    if (!names || !mine) {
        fprintf(stderr, "scale: shmem_malloc of the host names failed\n");
        shmem_global_exit(1);
    }
    memset(mine, 0, HOSTLEN);
    gethostname(mine, HOSTLEN - 1);
    shmem_barrier_all();
    shmem_fcollectmem(SHMEM_TEAM_WORLD, names, mine, HOSTLEN);
    int hosts = 0;
    for (int p = 0; p < n; p++) {
        int q;
        for (q = 0; q < p && strncmp(names + (size_t)q * HOSTLEN, names + (size_t)p * HOSTLEN,
                                     HOSTLEN); q++)
            ;
        hosts += q == p;
    }
    shmem_free(mine);
    shmem_free(names);
    double rss_init = rss_mb();

    /* The PMIx share, where bench/pmix_time.c is preloaded (every PE
     * finds it or none does). */
    void (*pmix_time)(double *, long *) =
        (void (*)(double *, long *))dlsym(RTLD_DEFAULT, "bench_pmix_time_get");
    double pm[5] = { 0 }, pm_max = 0;
    long pn[3] = { 0 };
    if (pmix_time) {
        pmix_time(pm, pn);
        pm_max = max_over_pes(pm[0], NULL);
    }
    double init_max = max_over_pes(t_init, &sum), cpu_sum = 0;
    max_over_pes(c_init, &cpu_sum);
    if (me == 0) {
        printf("# scale: %d PEs on %d host%s, %d repetitions of about %.0f ms\n", n, hosts,
               hosts == 1 ? "" : "s", reps, budget);
        printf("# hosts %d\n", hosts);
        bench_result("scale_init", (size_t)n, init_max, "ms");
        printf("# scale_init_mean %d %.3f ms\n", n, sum / n);
        bench_result("scale_init_cpu", (size_t)n, cpu_sum / n, "ms");
        if (pmix_time) {
            bench_result("scale_init_pmix", (size_t)n, pm_max, "ms");
            printf("# pmix on PE 0: PMIx_Init %.1f ms, %ld fences %.1f ms, %ld gets %.1f ms, "
                   "%ld puts %.1f ms\n", pm[1], pn[0], pm[2], pn[1], pm[3], pn[2], pm[4]);
        }
    }

    /* First and second contact with every PE. */
    shmem_barrier_all();
    t1 = now_ms();
    contact_all(me, n);
    double first = now_ms() - t1;
    shmem_barrier_all();
    t1 = now_ms();
    contact_all(me, n);
    double second = now_ms() - t1;
    double first_max = max_over_pes(first, NULL);
    double second_max = max_over_pes(second, NULL);
    double rss = rss_mb(), rss_sum = 0;
    double rss_init_max = max_over_pes(rss_init, NULL);
    double rss_max = max_over_pes(rss, &rss_sum);
    if (me == 0) {
        bench_result("scale_first_contact", (size_t)n, first_max, "ms");
        bench_result("scale_second_contact", (size_t)n, second_max, "ms");
        bench_result("scale_rss_init", (size_t)n, rss_init_max, "MB");
        bench_result("scale_rss", (size_t)n, rss_max, "MB");
        bench_result("scale_rss_mean", (size_t)n, rss_sum / n, "MB");
    }

    /* shmem_malloc of 1 MiB: each one timed alone (after a barrier). */
    double mt[MALLOCS];
    for (int i = 0; i < MALLOCS; i++) {
        shmem_barrier_all();
        t1 = now_ms();
        void *p = shmem_malloc(1 << 20);
        mt[i] = (now_ms() - t1) * 1e3;
        if (!p) {
            fprintf(stderr, "scale: PE %d: shmem_malloc(1 MiB) failed\n", me);
            shmem_global_exit(1);
        }
        shmem_free(p);
    }
    double malloc_max = max_over_pes(bench_median(mt, MALLOCS), NULL);
    if (me == 0)
        bench_result("scale_malloc", (size_t)n, malloc_max, "us");

    /* Barrier: calibrated, then reps timed repetitions. */
    double v[MAXREPS];
    shmem_barrier_all();
    t1 = now_ms();
    for (int i = 0; i < 10; i++)
        shmem_barrier_all();
    long iters = calibrate((now_ms() - t1) / 10, budget);
    for (int r = 0; r < reps; r++) {
        shmem_barrier_all();
        t1 = now_ms();
        for (long i = 0; i < iters; i++)
            shmem_barrier_all();
        v[r] = (now_ms() - t1) * 1e3 / (double)iters;
    }
    double bar = max_over_pes(bench_median(v, reps), NULL);
    if (me == 0)
        bench_result("scale_barrier", (size_t)n, bar, "us");

    /* fcollect of 8 bytes per PE. */
    uint64_t *dst = shmem_malloc(sizeof(uint64_t) * (size_t)n);
    if (!dst) {
        fprintf(stderr, "scale: shmem_malloc of the fcollect buffer failed\n");
        shmem_global_exit(1);
    }
    fc_src = (uint64_t)me * 3 + 1;
    shmem_barrier_all();
    t1 = now_ms();
    for (int i = 0; i < 10; i++)
        shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, &fc_src, sizeof(fc_src));
    iters = calibrate((now_ms() - t1) / 10, budget);
    for (int r = 0; r < reps; r++) {
        shmem_barrier_all();
        t1 = now_ms();
        for (long i = 0; i < iters; i++)
            shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, &fc_src, sizeof(fc_src));
        v[r] = (now_ms() - t1) * 1e3 / (double)iters;
    }
    for (int p = 0; p < n; p++)
        if (dst[p] != (uint64_t)p * 3 + 1) {
            fprintf(stderr, "FAIL (PE %d): fcollect: element %d is %llu, expected %llu\n", me, p,
                    (unsigned long long)dst[p], (unsigned long long)p * 3 + 1);
            shmem_global_exit(2);
        }
    double fc = max_over_pes(bench_median(v, reps), NULL);
    if (me == 0)
        bench_result("scale_fcollect", (size_t)n, fc, "us");
    shmem_free(dst);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
