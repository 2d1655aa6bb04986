/*
 * pmix_time: an LD_PRELOAD library that times the PMIx calls of a process,
 * so that bench/scale.sh can tell how much of shmem_init is the bootstrap
 * (PMIx_Init, PMIx_Put/Commit, PMIx_Fence, PMIx_Get) and how much the rest
 * (node map, heap, provider, teams).
 *
 * bench/scale.sh builds it (cc -shared -fPIC, PMIx's flags from
 * pkg-config) and preloads it; bench/scale.c, when it finds
 * bench_pmix_time_get (dlsym), calls it right after shmem_init and reports
 * the slowest PE's time in PMIx, and PE 0's counts of calls.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pmix.h>
#include <stdio.h>
#include <time.h>

static double t_init, t_fence, t_get, t_put;
static long n_fence, n_get, n_put;

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

typedef pmix_status_t (*init_fn)(pmix_proc_t *, pmix_info_t *, size_t);
typedef pmix_status_t (*fence_fn)(const pmix_proc_t *, size_t, const pmix_info_t *, size_t);
typedef pmix_status_t (*get_fn)(const pmix_proc_t *, const char *, const pmix_info_t *, size_t,
                                pmix_value_t **);
typedef pmix_status_t (*put_fn)(pmix_scope_t, const char *, pmix_value_t *);
typedef pmix_status_t (*commit_fn)(void);

/* The library's own routine of that name. */
#define REAL(name, type) \
    static type real_##name; \
    if (!real_##name) \
        real_##name = (type)dlsym(RTLD_NEXT, #name)

pmix_status_t PMIx_Init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo)
{
    REAL(PMIx_Init, init_fn);
    double t = now_ms();
    pmix_status_t rc = real_PMIx_Init(proc, info, ninfo);
    t_init += now_ms() - t;
    return rc;
}

pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                         size_t ninfo)
{
    REAL(PMIx_Fence, fence_fn);
    double t = now_ms();
    pmix_status_t rc = real_PMIx_Fence(procs, nprocs, info, ninfo);
    t_fence += now_ms() - t;
    n_fence++;
    return rc;
}

pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[], const pmix_info_t info[],
                       size_t ninfo, pmix_value_t **val)
{
    REAL(PMIx_Get, get_fn);
    double t = now_ms();
    pmix_status_t rc = real_PMIx_Get(proc, key, info, ninfo, val);
    t_get += now_ms() - t;
    n_get++;
    return rc;
}

pmix_status_t PMIx_Put(pmix_scope_t scope, const char key[], pmix_value_t *val)
{
    REAL(PMIx_Put, put_fn);
    double t = now_ms();
    pmix_status_t rc = real_PMIx_Put(scope, key, val);
    t_put += now_ms() - t;
    n_put++;
    return rc;
}

pmix_status_t PMIx_Commit(void)
{
    REAL(PMIx_Commit, commit_fn);
    double t = now_ms();
    pmix_status_t rc = real_PMIx_Commit();
    t_put += now_ms() - t;
    return rc;
}

/* The time spent in PMIx so far (ms), and how it splits: ms[0] all of it,
 * ms[1] PMIx_Init, ms[2] fences, ms[3] gets, ms[4] puts and commits; n[0..2]
 * the numbers of fences, gets and puts. */
void bench_pmix_time_get(double ms[5], long n[3])
{
    ms[0] = t_init + t_fence + t_get + t_put;
    ms[1] = t_init;
    ms[2] = t_fence;
    ms[3] = t_get;
    ms[4] = t_put;
    n[0] = n_fence;
    n[1] = n_get;
    n[2] = n_put;
}
