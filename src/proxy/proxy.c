/*
 * The proxy thread (docs/device.md, "The proxy"): it takes the tickets of
 * the ring in order, carries each request out (proxy_exec.c), and lets
 * ctl[SHMEMD_PX_FREED] pass the slots their producers are done with.
 *
 * Sleeping: a GPU cannot wake a thread that sleeps in the kernel (no
 * futex from a kernel, and a host callback would need the CUDA stream),
 * so the idle proxy looks at the ring less and less often: it polls for
 * PX_SPIN_NS after the last request, yields its core until PX_YIELD_NS,
 * then sleeps for 1 us, 2 us, 4 us ... up to FABSHMEM_PROXY_SLEEP (1 ms
 * by default) between two looks.  After PX_DEEP_NS (10 s) without a
 * request it sleeps deeper, up to PX_DEEP_TIMES that (16 ms): a wake-up
 * costs about 10 us of a core (bench/proxy_lat on the 2-core development
 * VM), so 1000 a second are about a percent of a core, 60 a tenth of
 * that.  A request that finds it asleep waits for the end of the sleep:
 * at most FABSHMEM_PROXY_SLEEP more latency, or 16 times that after 10 s
 * without requests (under 0.2 % of the idle time), and only for the first
 * request after an idle time.  The host's checks
 * (shmemi_proxy_drain: shmem_barrier_all, shmemx_stream_sync, ...) wake
 * a deep sleeper at once and put it back to short naps, since kernels
 * often follow them.  shmemi_proxy_stop wakes it at once too (the sleep
 * is a timed wait on a condition variable).
 */
#define _GNU_SOURCE
#include "proxy/proxy_int.h"
#include "core/ctx.h"
#include "core/dev.h"
#include "core/sync.h"
#include "cuda/cuda.h"
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PX_SPIN_NS 50000ull    /* polls after the last request */
#define PX_YIELD_NS 1000000ull /* then yields, then sleeps */
#define PX_DEEP_NS 10000000000ull /* then sleeps deeper: */
#define PX_DEEP_TIMES 16u        /* up to this many times FABSHMEM_PROXY_SLEEP */

static shmemi_proxy_t *px; /* the running proxy, or NULL */

static uint64_t px_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Lets freed pass the done tickets below head whose slots their
 * producers are done with: any done request but a fetching one whose
 * producer has not released it (ready still ticket + 1). */
static void px_free(shmemi_proxy_t *x, uint64_t head)
{
    unsigned long long *ctl = x->pub.ctl;
    uint64_t f = __atomic_load_n(&ctl[SHMEMD_PX_FREED], __ATOMIC_RELAXED), f0 = f;
    uint64_t mask = x->pub.nslots - 1;

    while (f < head) {
        shmemd_proxy_req_t *s = &x->pub.slots[f & mask];

        if (SHMEMD_PX_FETCHING(s->op, s->amo) &&
            __atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) != SHMEMD_PX_RELEASED)
            break;
        f++;
    }
    if (f != f0)
        __atomic_store_n(&ctl[SHMEMD_PX_FREED], f, __ATOMIC_RELEASE);
}

/* One step of the idle proxy, idle_ns after its last request (or the
 * last kick); *nap_ns: the length of the next sleep.  0, or 1 when asked
 * to stop. */
static int px_idle(shmemi_proxy_t *x, uint64_t idle_ns, uint64_t *nap_ns)
{
    uint64_t cap = (uint64_t)shmemi_g.env.proxy_sleep * 1000u;
    int deep = idle_ns >= PX_DEEP_NS;
    struct timespec ts;
    int stop;

    if (idle_ns < PX_SPIN_NS) {
        for (int i = 0; i < 64; i++)
            shmemi_cpu_relax();
        return __atomic_load_n(&x->stop, __ATOMIC_ACQUIRE);
    }
    if (idle_ns < PX_YIELD_NS) {
        sched_yield();
        return __atomic_load_n(&x->stop, __ATOMIC_ACQUIRE);
    }
    if (deep)
        cap *= PX_DEEP_TIMES;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += (long)*nap_ns;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&x->lock);
    __atomic_store_n(&x->deep, deep, __ATOMIC_RELAXED);
    while (!x->stop && !__atomic_load_n(&x->kicked, __ATOMIC_RELAXED) &&
           pthread_cond_timedwait(&x->wake, &x->lock, &ts) != ETIMEDOUT)
        ;
    stop = x->stop;
    __atomic_store_n(&x->deep, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&x->lock);
    __atomic_store_n(&x->wakeups, x->wakeups + 1, __ATOMIC_RELAXED);
    *nap_ns = *nap_ns * 2 < cap ? *nap_ns * 2 : cap;
    return stop;
}

/* The private context, made by the thread at its first request (a
 * context needs the library initialized, and the proxy starts inside
 * init); without one (no memory) the default context, as streams do. */
static void px_ctx(shmemi_proxy_t *x)
{
    if (shmemi_ctx_create(SHMEM_CTX_PRIVATE, NULL, shmemi_g.n_pes, SHMEM_TEAM_WORLD, &x->ctx,
                          "shmem_ctx_create")) {
        shmemi_debug("the proxy shares the default context: %s", shmemi_err_last()->msg);
        shmemi_err_clear();
        x->ctx = SHMEM_CTX_DEFAULT;
    }
}

static void *px_main(void *arg)
{
    shmemi_proxy_t *x = arg;
    uint64_t head = 0, last = 0, nap = 1000, mask = x->pub.nslots - 1;
    int stop = 0;

    shmemi_log_thread("in the device API's proxy thread");
    /* The PE's GPU current for the thread's life, as in the staging
     * thread (core/dev_stage.c): the provider may copy GPU memory on it. */
    (void)shmemi_cuda_push();
    /* A provider that moves GPU memory with CUDA copies of its own would
     * wait in them while the program waits for the device (measured with
     * libfabric 1.17.1's shm on an H200: the proxy's put stayed in
     * cudaMemcpy behind the program's cudaDeviceSynchronize, for the
     * kernel waiting for that put): the proxy stages instead, through the
     * target's staging thread, whose copies are asynchronous on the
     * library's own stream. */
    shmemi_dev_thread_stages(1);
    while (!x->failed) {
        shmemd_proxy_req_t *s = &x->pub.slots[head & mask];

        if (__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) == head + 1) {
            if (x->ctx == SHMEM_CTX_INVALID)
                px_ctx(x);
            shmemi_proxy_exec(x, s, head);
            head++;
            __atomic_store_n(&x->requests, head, __ATOMIC_RELAXED);
            px_free(x, head);
            last = 0;
            nap = 1000;
            continue;
        }
        px_free(x, head);
        /* Stopping: every request whose ready word was set is done. */
        if (stop)
            break;
        if (!last)
            last = px_now();
        if (__atomic_load_n(&x->kicked, __ATOMIC_ACQUIRE)) {
            /* The host's check woke it: short naps again, deep after
             * another PX_DEEP_NS. */
            pthread_mutex_lock(&x->lock);
            __atomic_store_n(&x->kicked, 0, __ATOMIC_RELAXED);
            pthread_mutex_unlock(&x->lock);
            last = px_now() - PX_YIELD_NS;
            nap = 1000;
        }
        stop = px_idle(x, px_now() - last, &nap);
    }
    __atomic_store_n(&x->pub.ctl[SHMEMD_PX_STATUS],
                     (unsigned long long)(x->failed ? SHMEMD_PX_FAILED : SHMEMD_PX_STOPPED),
                     __ATOMIC_RELEASE);
    shmemi_log_thread(NULL);
    return NULL;
}

/* Whether this PE needs the proxy: FABSHMEM_PROXY=1, or auto with a
 * device heap and a peer whose device heap is not mapped here. */
static int px_wanted(void)
{
    int pe;

    if (shmemi_g.env.proxy != SHMEMI_ENV_PROXY_AUTO)
        return shmemi_g.env.proxy == SHMEMI_ENV_PROXY_ON;
    if (!shmemi_g.dheap_size || !shmemi_g.peer_dheap)
        return 0;
    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        if (pe != shmemi_g.my_pe && !shmemi_g.peer_dheap[pe])
            return 1;
    return 0;
}

static void px_free_all(shmemi_proxy_t *x)
{
    if (x->ctx != SHMEM_CTX_DEFAULT && x->ctx != SHMEM_CTX_INVALID &&
        shmemi_ctx_destroy(x->ctx, "shmem_finalize"))
        shmemi_err_clear();
    shmemi_proxy_ring_free(x);
    pthread_cond_destroy(&x->wake);
    pthread_mutex_destroy(&x->lock);
    free(x);
}

/* The transport, made safe for the application's threads beside the
 * proxy's (the library may have been initialized for SHMEM_THREAD_SINGLE:
 * the calls into a provider that is not thread safe are then serialized,
 * as for streams); at init, while no other thread uses it. */
static int px_transport(const char *rtn)
{
    int ret;

    if (shmemi_g.tp && !(shmemi_g.tp->caps & SHMEMT_CAP_THREADS) &&
        (ret = shmemi_tp_serialize()))
        return shmemi_err(shmemi_status_from_errno(ret, SHMEMX_ERROR_INTERNAL), rtn,
                          "the proxy cannot serialize the calls into the %s provider: %s",
                          shmemi_g.tp->prov_name, strerror(-ret));
    return 0;
}

int shmemi_proxy_start(shmemd_proxy_t *pub, const char *rtn)
{
    long n = shmemi_g.env.proxy_slots;
    shmemi_proxy_t *x;
    pthread_condattr_t ca;
    int rc;

    memset(pub, 0, sizeof(*pub));
    if (px || !px_wanted())
        return 0;
    if (!(x = calloc(1, sizeof(*x))))
        return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "out of memory");
    pthread_mutex_init(&x->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&x->wake, &ca);
    pthread_condattr_destroy(&ca);
    x->ctx = SHMEM_CTX_INVALID;
    if ((rc = shmemi_proxy_ring_alloc(x, (unsigned)n, shmemi_g.dheap_size != 0, rtn)) ||
        (rc = px_transport(rtn))) {
        px_free_all(x);
        return rc;
    }
    if ((rc = pthread_create(&x->thread, NULL, px_main, x))) {
        px_free_all(x);
        return shmemi_err_fatal(shmemi_status_from_errno(rc, SHMEMX_ERROR_INTERNAL),
                                "%s: cannot start the proxy thread: %s", rtn, strerror(rc));
    }
    px = x;
    *pub = x->pub;
    shmemi_debug("%s: the proxy runs, %u slots (%s), for kernels' requests to PEs whose device "
                 "heap is not mapped here: %s", rtn, x->pub.nslots, x->pinned ? "pinned host "
                 "memory, the tail in GPU memory" : "host memory", shmemi_proxy_path());
    /* Measured on an H200 (CUDA 13): under lazy loading the staging
     * thread's stream write waited, with gpu_device's kernels, until the
     * kernel that waited for it ended: a deadlock that EAGER removes. */
    if (x->pinned && shmemi_cuda.lazy == 1 && shmemi_g.my_pe == 0)
        shmemi_warn("%s: CUDA loads kernels lazily (CUDA_MODULE_LOADING is LAZY, the default "
                    "since CUDA 12.2): the loading of a kernel launched while another waits for "
                    "the device API's proxy waits for that kernel, and so can stop the proxy's "
                    "GPU work for good; set CUDA_MODULE_LOADING=EAGER before the program starts "
                    "CUDA (docs/device.md, The proxy)", rtn);
    return 0;
}

void shmemi_proxy_stop(void)
{
    shmemi_proxy_t *x = px;

    if (!x)
        return;
    pthread_mutex_lock(&x->lock);
    __atomic_store_n(&x->stop, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&x->wake);
    pthread_mutex_unlock(&x->lock);
    pthread_join(x->thread, NULL);
    px = NULL;
    px_free_all(x);
}

int shmemi_proxy_drain(void)
{
    shmemi_proxy_t *x = px;
    uint64_t mask, d;
    unsigned long it = 0;

    if (!x)
        return 0;
    /* A deep sleeper is woken (kernels often follow the host's checks);
     * one that naps short is left to its nap. */
    if (__atomic_load_n(&x->deep, __ATOMIC_RELAXED)) {
        pthread_mutex_lock(&x->lock);
        if (__atomic_load_n(&x->deep, __ATOMIC_RELAXED)) {
            __atomic_store_n(&x->kicked, 1, __ATOMIC_RELAXED);
            pthread_cond_signal(&x->wake);
        }
        pthread_mutex_unlock(&x->lock);
    }
    mask = x->pub.nslots - 1;
    /* Wait while the slot of the next ticket is posted (its ready word is
     * that ticket + 1); the proxy, which may nap, is woken once, and only
     * when something is posted (a barrier with nothing posted takes no
     * lock). */
    for (int woken = 0;; woken = 1) {
        d = __atomic_load_n(&x->pub.ctl[SHMEMD_PX_DONE], __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&x->pub.slots[d & mask].ready, __ATOMIC_ACQUIRE) != d + 1 ||
            __atomic_load_n(&x->pub.ctl[SHMEMD_PX_STATUS], __ATOMIC_ACQUIRE) != SHMEMD_PX_RUNNING)
            return 0;
        if (!woken) {
            pthread_mutex_lock(&x->lock);
            pthread_cond_signal(&x->wake);
            pthread_mutex_unlock(&x->lock);
        }
        shmemi_wait_backoff(&it);
    }
}

int shmemi_proxy_running(void)
{
    return px != NULL;
}

shmemd_err_t *shmemi_proxy_err(void)
{
    return px ? &px->err : NULL;
}

int shmemi_proxy_why(char *buf, size_t len)
{
    int cls;

    buf[0] = 0;
    if (!px)
        return 0;
    pthread_mutex_lock(&px->lock);
    snprintf(buf, len, "%s", px->why);
    cls = px->why[0] ? px->why_class : 0;
    px->why[0] = 0;
    pthread_mutex_unlock(&px->lock);
    return cls;
}

const char *shmemi_proxy_path(void)
{
    if (shmemi_g.env.proxy == SHMEMI_ENV_PROXY_OFF)
        return "none (FABSHMEM_PROXY=0: refused)";
    if (!px)
        return "none (no proxy)";
    if (!px->pinned)
        return "the proxy, from host memory (no GPU)";
    return shmemi_dev_hmem_copies()
               ? "the proxy, GPU memory staged through pinned host memory (the provider's "
                 "FI_HMEM copies it with CUDA calls that would wait for the kernels)"
           : shmemi_g.dheap_remote == SHMEMI_DEV_REMOTE_HMEM
               ? "the proxy, the provider moving GPU memory (FI_HMEM)"
           : shmemi_g.dheap_remote == SHMEMI_DEV_REMOTE_STAGED
               ? "the proxy, GPU memory staged through pinned host memory"
               : "the proxy, GPU memory through the peers' mappings";
}

int shmemi_proxy_ring(shmemd_proxy_t *out)
{
    if (!px)
        return -1;
    *out = px->pub;
    return 0;
}

int shmemi_proxy_stats(shmemi_proxy_stats_t *st)
{
    clockid_t cid;
    struct timespec ts;

    if (!px)
        return -1;
    st->requests = __atomic_load_n(&px->requests, __ATOMIC_RELAXED);
    st->wakeups = __atomic_load_n(&px->wakeups, __ATOMIC_RELAXED);
    st->cpu_s = 0;
    if (!pthread_getcpuclockid(px->thread, &cid) && !clock_gettime(cid, &ts))
        st->cpu_s = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    return 0;
}
