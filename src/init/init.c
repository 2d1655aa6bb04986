/*
 * Setup: init and finalize.  Init is a sequence of steps of one job each
 * (init_steps), and one teardown (teardown) undoes whatever steps were
 * made, in reverse: after a failed init and at finalize.  This is the one
 * layer that calls into every layer below it (the bootstrap, the heap, the
 * node map, the transport, the allocator, the teams, the streams).
 *
 * Every step returns 0 or the class of its failure, recorded
 * (base/error.h); a step whose layer below reports a negative errno value
 * with its own messages records what failed (init_below).
 */
#include "init/init.h"
#include "mem/mem.h"
#include "stream/stream.h"
#include "proxy/proxy.h"
#include "core/amo.h"
#include "cuda/cuda.h"
#include <net/if.h>
#include <stdlib.h>
#include <unistd.h>
#include <pthread.h>

/* The default context: the default transport (tp NULL: shmemi_g.tp),
 * whose dirty flag is shmemi_g.tp_dirty (shmemi_tp_issued). */
static struct shmemi_ctx ctx_default = { .options = 0, .team = NULL, .tp = NULL,
                                         .shared = 1, .dirty = &shmemi_g.tp_dirty };
SHMEM_API shmem_ctx_t SHMEM_CTX_DEFAULT = &ctx_default;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int atexit_registered;

/* The process that made shmemi_g.boot: a child made by fork() has the
 * bootstrap's sockets and the heap's mappings but not the threads that
 * serve them, so it must leave them alone. */
static pid_t boot_pid;

/* Set by start_pes: programs of the pre-1.2 API never call shmem_finalize,
 * which then happens at exit (every PE gets there at the end of the job). */
static int finalize_at_exit;

/* How far init got: what teardown undoes, from the last stage down. */
enum init_stage {
    STAGE_NONE = 0,  /* nothing past the bootstrap (which stays) */
    STAGE_TABLES,    /* the tables of every PE: peer_heap, peer_data, node_of */
    STAGE_HEAP,      /* this PE's heap; node peers' heaps and data mapped */
    STAGE_DEVICE,    /* the GPU and the device heap (init_dev.c), and once the
                      * transport is up their mapping and staging */
    STAGE_TRANSPORT, /* the provider (shmemi_g.tp) */
    STAGE_ALLOC,     /* the allocator of the heap's user part */
    STAGE_TEAMS,     /* the predefined teams */
    STAGE_READY      /* initialized: contexts and registered buffers may exist */
};
static enum init_stage stage;

int shmemi_forked(void)
{
    return shmemi_g.boot && getpid() != boot_pid;
}

/* Records a failure that the layer below reported as a negative errno (or
 * already as a class) with messages of its own, unless something was
 * recorded since init began: rtn, what failed.  Returns the class. */
static int init_below(int ret, int dflt, const char *rtn, const char *what)
{
    int cls = ret < 0 ? shmemi_status_from_errno(ret, dflt) : ret;

    if (shmemi_err_last()->code != SHMEMX_SUCCESS)
        return ret > 0 ? ret : shmemi_err_last()->code;
    if (ret < 0)
        return shmemi_err_fatal(cls, "%s: %s: %s", rtn, what, strerror(-ret));
    return shmemi_err_fatal(cls, "%s: %s (see the messages above)", rtn, what);
}

int shmemi_boot_class(int ret)
{
    return ret == -ENOMEM ? SHMEMX_ERROR_OUT_OF_MEMORY
           : ret == -EINVAL ? SHMEMX_ERROR_INVALID_VALUE
                            : SHMEMX_ERROR_BOOTSTRAP;
}

int shmemi_boot_fail(int ret, const char *what, const char *rtn)
{
    int cls = shmemi_boot_class(ret);
    /* The bootstrap's own reason, when it gave one (it is on stderr too). */
    const char *why = shmemb_error_last();

    if (why[0] && rtn && !strncmp(why, rtn, strlen(rtn)))
        return shmemi_err_fatal(cls, "%s", why);
    if (why[0])
        return shmemi_err_fatal(cls, "%s%s%s", rtn ? rtn : "", rtn ? ": " : "", why);
    if (rtn)
        return shmemi_err_fatal(cls, "%s: the %s bootstrap failed: %s", rtn, what,
                                strerror(-ret));
    return shmemi_err_fatal(cls, "%s bootstrap failed: %s", what, strerror(-ret));
}

/* 1 when choice i of c is listed in a message: it has a name, and no
 * choice before it has its value (older spellings are not listed). */
static int tp_choice_listed(const shmemt_choice_t *c, size_t i)
{
    size_t j;

    for (j = 0; j < i; j++)
        if (c[j].value == c[i].value)
            return 0;
    return c[i].name[0] != '\0';
}

/* The value of a choice of the transport (shmemt_choice_t) that variable
 * var of env.def names; SHMEMX_ERROR_INVALID_VALUE, naming the variable and
 * the values there are ("a, b or c"), for any other. */
static int tp_choice(const char *var, const char *value, const shmemt_choice_t *c, int *v_p)
{
    char names[256] = "";
    size_t i, n = 0, k = 0, shown = 0;
    int empty = 0;

    for (i = 0; c[i].name; i++) {
        if (!strcmp(value, c[i].name)) {
            *v_p = c[i].value;
            return 0;
        }
        k += (size_t)tp_choice_listed(c, i);
        empty |= !c[i].name[0];
    }
    for (i = 0; c[i].name && n < sizeof(names); i++) {
        if (!tp_choice_listed(c, i))
            continue;
        n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
                              !shown ? "" : shown + 1 == k ? " or " : ", ", c[i].name);
        shown++;
    }
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, var, "unknown value '%s' (expected %s%s)", value,
                      names, empty ? ", or empty for the default" : "");
}

/* The transport's part of the configuration, checked with the rest of the
 * environment before the bootstrap, so that a bad value fails init on
 * every PE alike; *rc_mode_p and *amo_p: the values for its arguments. */
static int tp_env_check(int *rc_mode_p, int *amo_p)
{
    const shmemi_env_t *env = &shmemi_g.env;
    int rc;

    if (env->iface[0] && !if_nametoindex(env->iface))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, "FABSHMEM_IFACE", "invalid value \"%s\" "
                          "(no network interface of host %s has that name)", env->iface,
                          shmemi_g.hostname);
    if ((rc = tp_choice("FABSHMEM_OFI_RC_MODE", env->ofi_rc_mode, shmemt_ofi_rc_modes,
                        rc_mode_p)))
        return rc;
    return tp_choice("FABSHMEM_OFI_AMO", env->ofi_amo, shmemt_ofi_amo_modes, amo_p);
}

/* ---- the steps of init, in order ---- */

/* Checks the environment values that init uses, before anything is made,
 * so that a bad one fails init on every PE alike before the bootstrap. */
static int env_check(void)
{
    long slots = shmemi_g.env.proxy_slots;
    int v;

    if (slots & (slots - 1))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, "FABSHMEM_PROXY_SLOTS", "%ld is not a "
                          "power of two (2, 4, 8, ... 1048576)", slots);
    return tp_env_check(&v, &v);
}

/* The environment: the host name, the configuration table, the log level
 * and the values init uses. */
static int init_env(void)
{
    int ret;

    gethostname(shmemi_g.hostname, sizeof(shmemi_g.hostname) - 1);
    /* A bad value is printed by the parser, which records the first
     * (naming the variable) as this failure. */
    if (shmemi_env_parse(NULL, &shmemi_g.env))
        return SHMEMX_ERROR_INVALID_VALUE;
    shmemi_log_level = shmemi_g.env.debug ? SHMEMI_LOG_DEBUG : SHMEMI_LOG_WARN;
    ret = env_check();
    /* The collectives' algorithms (FABSHMEM_*_ALGO), named in their
     * registry. */
    return ret ? ret : shmemi_coll_algo_init(&shmemi_g.env);
}

/* The bootstrap of FABSHMEM_BOOTSTRAP (checked by env_check). */
static int boot_start(void)
{
    int how = shmemi_g.env.bootstrap, ret;

    if (how == SHMEMI_ENV_BOOTSTRAP_SINGLETON) {
        ret = shmemb_singleton_init(&shmemi_g.boot);
        return ret ? shmemi_boot_fail(ret, "singleton", NULL) : 0;
    }
    if (how == SHMEMI_ENV_BOOTSTRAP_UID)
        return shmemi_boot_uid_env(NULL, &shmemi_g.boot);
    ret = shmemb_pmix_init(&shmemi_g.boot);
    if (ret == -ENOENT && how == SHMEMI_ENV_BOOTSTRAP_AUTO) {
        ret = shmemb_singleton_init(&shmemi_g.boot);
        return ret ? shmemi_boot_fail(ret, "singleton", NULL) : 0;
    }
    return ret ? shmemi_boot_fail(ret, "PMIx", NULL) : 0;
}

/* The bootstrap, with boot(arg) (NULL: by FABSHMEM_BOOTSTRAP) when none is
 * up yet; it stays for the life of the process (init may come again after
 * finalize, or after a failed init). */
static int init_boot(shmemi_boot_fn boot, void *arg)
{
    int rc;

    if (!shmemi_g.boot) {
        rc = boot ? boot(arg, &shmemi_g.boot) : boot_start();
        if (rc) {
            shmemi_g.boot = NULL;
            return rc;
        }
        boot_pid = getpid();
        shmemi_debug("bootstrap %s: rank %d of %d, job id %s", shmemi_g.boot->name,
                     shmemi_g.boot->rank, shmemi_g.boot->nranks, shmemi_g.boot->job_id);
    }
    shmemi_g.my_pe = shmemi_g.boot->rank;
    shmemi_g.n_pes = shmemi_g.boot->nranks;
    if (atomic_load(&shmemi_g.state) == SHMEMI_STATE_NONE)
        atomic_store(&shmemi_g.state, SHMEMI_STATE_BOOTSTRAPPED);
    return 0;
}

/* The tables of every PE. */
static int init_tables(const char *rtn)
{
    stage = STAGE_TABLES;
    shmemi_g.peer_heap = calloc(shmemi_g.n_pes, sizeof(char *));
    shmemi_g.peer_data = calloc(shmemi_g.n_pes, sizeof(char *));
    shmemi_g.node_of = calloc(shmemi_g.n_pes, sizeof(int));
    if (!shmemi_g.peer_heap || !shmemi_g.peer_data || !shmemi_g.node_of)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    return 0;
}

/* This PE's heap: the team area, then the user's SHMEM_SYMMETRIC_SIZE
 * bytes.  How it went goes into *st, for every PE to learn in the node
 * map's exchange. */
static void init_heap(shmemi_init_status_t *st)
{
    size_t heap_size, page = (size_t)sysconf(_SC_PAGESIZE);
    int rc, err = 0;

    shmemi_g.reserved_size = shmemi_team_area_size(shmemi_g.env.teams_max, shmemi_g.n_pes);
    if (__builtin_add_overflow(shmemi_g.env.symmetric_size, shmemi_g.reserved_size + page - 1,
                               &heap_size)) {
        rc = shmemi_err(SHMEMX_ERROR_INVALID_VALUE, "SHMEM_SYMMETRIC_SIZE", "%zu bytes is too "
                        "large", shmemi_g.env.symmetric_size);
        *st = (shmemi_init_status_t){ EINVAL, rc, shmemi_g.my_pe };
        return;
    }
    heap_size &= ~(page - 1);
    rc = shmemi_heap_create(heap_size, &err);
    if (rc) {
        *st = (shmemi_init_status_t){ err, rc, shmemi_g.my_pe };
        return;
    }
    stage = STAGE_HEAP;
}

/* The node map, whose exchange also tells every PE how the others' heaps
 * went: a PE that could not create its heap fails init on every PE alike
 * (*agreed_p). */
static int init_nodemap(int *host_pes_p, int *host_rank_p, int *host_ncpu_p,
                        shmemi_init_status_t *st, int *agreed_p, const char *rtn)
{
    int rc = shmemi_init_nodemap(st, host_pes_p, host_rank_p, host_ncpu_p);

    if (rc)
        return rc;
    if (!st->cls)
        return 0;
    *agreed_p = 1;
    if (st->pe != shmemi_g.my_pe)
        return shmemi_err_fatal(st->cls, "%s: PE %d could not create its symmetric heap (%s); "
                                "initialization is undone on every PE", rtn, st->pe,
                                strerror(st->err));
    return st->cls;
}

/* The wait policy: waiting PEs spin for a time that follows how long
 * their recent waits lasted (core/sync.c), shorter when the PEs of this
 * host outnumber its cores (those they may run on, together): a spinning
 * PE then holds the core that the PE it waits for needs.  FABSHMEM_WAIT_SPIN
 * set fixes the count of polls instead. */
static void init_wait_policy(int host_pes, int host_ncpu)
{
    shmemi_g.wait_spin = shmemi_env_is_set(&shmemi_g.env, wait_spin) ? shmemi_g.env.wait_spin
                                                                     : -1;
    shmemi_g.host_pes = host_pes;
    shmemi_g.oversubscribed = host_ncpu > 0 && host_pes > host_ncpu;
    if (shmemi_g.env.oversubscribed != SHMEMI_ENV_OVERSUBSCRIBED_AUTO)
        shmemi_g.oversubscribed = shmemi_g.env.oversubscribed == SHMEMI_ENV_OVERSUBSCRIBED_ON;
    shmemi_debug("%d PEs on this host, %d cores: %s; waits poll %s before yielding", host_pes,
                 host_ncpu, shmemi_g.oversubscribed ? "oversubscribed" : "not oversubscribed",
                 shmemi_g.wait_spin >= 0 ? "a fixed count of times (FABSHMEM_WAIT_SPIN)" :
                 "for a time that follows recent waits");
}

/* Node peers map each other's heaps and data; the team area is the start
 * of the heap.  The atomicity rule (core/amo.h): CPU atomics only if every
 * PE maps every other PE's heap (and, for globals, data), which every PE
 * must agree on (a PE that could not share its data makes all of them use
 * the provider for globals): one more allgather. */
static int init_map(void)
{
    int rc, pe;

    shmemi_data_segment_find();
    rc = shmemi_heap_map_peers(shmemi_g.env.direct, shmemi_g.env.map_data);
    if (rc)
        return rc;
    shmemi_team_area = shmemi_g.heap_base;
    for (pe = 0; pe < shmemi_g.n_pes && !shmemi_g.sleepers; pe++)
        shmemi_g.sleepers = (uint32_t *)shmemi_direct(shmemi_team_wake_area(), sizeof(uint32_t), pe);
    shmemi_g.bell_off = (size_t)((char *)shmemi_team_wake_area() + 64 - shmemi_g.heap_base);
    if (shmemi_g.sleepers)
        shmemi_g.bell_sleepers = (uint32_t *)((char *)shmemi_g.sleepers + 128);
    shmemi_amo_direct = 1;
    shmemi_g.data_all_mapped = shmemi_g.data_size > 0;
    for (pe = 0; pe < shmemi_g.n_pes; pe++) {
        if (!shmemi_g.peer_heap[pe])
            shmemi_amo_direct = 0;
        if (!shmemi_g.peer_data[pe])
            shmemi_g.data_all_mapped = 0;
    }
    if (shmemi_g.n_pes > 1) {
        int *all = calloc((size_t)shmemi_g.n_pes, sizeof(int)), mine = shmemi_g.data_all_mapped;
        if (!all || shmemi_g.boot->allgather(shmemi_g.boot, &mine, all, sizeof(int)))
            shmemi_g.data_all_mapped = 0;
        for (pe = 0; all && pe < shmemi_g.n_pes; pe++)
            if (!all[pe])
                shmemi_g.data_all_mapped = 0;
        free(all);
    }
    shmemi_debug("globals (%zu bytes of data segment): %s", shmemi_g.data_size,
                 shmemi_g.data_all_mapped ? "mapped by every PE, CPU atomics"
                 : shmemi_g.peer_data[shmemi_g.my_pe] ? "mapped by node peers, atomics through "
                                                        "the provider"
                                                      : "through the provider");
    return 0;
}

/* The transport's threads drive the provider, which copies GPU memory
 * (FI_HMEM) with the CUDA runtime on the calling thread: with no context
 * current there, into the first GPU's, where another GPU's device heap is
 * an invalid address (libfabric 1.17.1's shm between two GPUs delivered
 * wrong data and hung so).  Nothing to do without a GPU. */
static void tp_thread_start(void)
{
    (void)shmemi_cuda_push();
}

/* The provider's init arguments: what the transport gets from the layers
 * above it (it reads no configuration of its own), its variables checked
 * by env_check before, and the core's logging; host_pes: the PEs on this
 * host (all of them: the endpoints listen on loopback). */
static shmemt_init_args_t tp_init_args(int host_pes)
{
    const shmemi_env_t *env = &shmemi_g.env;
    shmemt_init_args_t args = {
        .boot = shmemi_g.boot,
        .my_pe = shmemi_g.my_pe,
        .n_pes = shmemi_g.n_pes,
        .segs = { { shmemi_g.heap_base, shmemi_g.heap_size },
                  { shmemi_g.data_base, shmemi_g.data_size } },
        .provider = env->provider,
        .progress_thread = env->progress_thread,
        .oversubscribed = shmemi_g.oversubscribed,
        .progress_interval_us = (int)env->progress_interval,
        .trigger = shmemi_stream_offload_mode() != 0,
        .log = shmemi_log_emit,
        .log_level = shmemi_log_level,
        .fatal = shmemi_fatal,
        .hmem = shmemi_init_dev_hmem_wanted(),
        .thread_start = tp_thread_start,
        .iface = env->iface,
        .single_host = host_pes == shmemi_g.n_pes,
    };

    /* The transport's levels are the core's. */
    _Static_assert((int)SHMEMT_LOG_ERR == (int)SHMEMI_LOG_ERR &&
                   (int)SHMEMT_LOG_DEBUG == (int)SHMEMI_LOG_DEBUG, "log levels");
    args.ofi.mr_local = env->ofi_mr_local;
    args.ofi.shm_atomics = env->ofi_shm_atomics;
    args.ofi.shm_hmem = env->ofi_shm_hmem;
    args.ofi.put_buffered = (size_t)env->ofi_put_buffered;
    args.ofi.timeout_s = (int)env->ofi_timeout;
    shmemi_must(tp_env_check(&args.ofi.rc_mode, &args.ofi.amo));
    return args;
}

/* The transport, when there is more than one PE, and the atomics it
 * allows: every PE opened the same provider in the same mode, so they
 * agree. */
static int init_transport(int host_pes, int *agreed_p, const char *rtn)
{
    int ret, shared = 0;

    if (shmemi_g.n_pes > 1) {
        shmemt_init_args_t args;

        shmemi_shm_cleanup_stale();
        args = tp_init_args(host_pes);
        ret = shmemt_ofi_init(&args, &shmemi_g.tp, &shared);
        if (ret) {
            /* shared: every PE failed alike (no provider fits), and init
             * can be undone everywhere instead of ending the job. */
            *agreed_p = shared;
            shmemi_g.tp = NULL;
            /* The provider logged why through args.log: no errno text. */
            return init_below(ret < 0 ? shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT)
                                      : ret, SHMEMX_ERROR_TRANSPORT, rtn,
                              "the transport could not be opened");
        }
        stage = STAGE_TRANSPORT;
    }
    shmemi_amo_cpu_tp = shmemi_g.tp && (shmemi_g.tp->caps & SHMEMT_CAP_AMO_CPU);
    shmemi_amo_cpu = shmemi_amo_direct || shmemi_amo_cpu_tp;
    shmemi_progress_poll = shmemi_g.tp && !shmemi_g.env.progress_thread;
    shmemi_debug("atomics: %s", shmemi_amo_direct ? "CPU atomics (every PE maps every heap)" :
                 shmemi_amo_cpu_tp ? "CPU atomics on mapped peers, the target's CPU for the others "
                                     "(active messages)" : "through the provider");
    return 0;
}

/* The allocator, the predefined teams and the default context's team; a
 * barrier ends init.  SHMEM_THREAD_MULTIPLE over a transport that is not
 * safe for concurrent threads: one lock serializes the calls into it. */
static int init_upper(int requested, const char *rtn)
{
    int rc;

    if ((rc = shmemi_mem_init()))
        return rc;
    stage = STAGE_ALLOC;
    if ((rc = shmemi_teams_init()))
        return init_below(rc, SHMEMX_ERROR_INTERNAL, rtn, "the predefined teams could not be "
                          "made");
    stage = STAGE_TEAMS;
    if ((rc = shmemi_devapi_proxy(rtn)) || (rc = shmemi_devapi_ready(rtn)))
        return rc;
    ctx_default.team = SHMEM_TEAM_WORLD;
    if ((rc = shmemi_g.boot->barrier(shmemi_g.boot)))
        return init_below(rc, SHMEMX_ERROR_BOOTSTRAP, rtn, "the bootstrap's barrier failed");
    if (requested == SHMEM_THREAD_MULTIPLE && (rc = shmemi_tp_serialize()))
        return shmemi_err_fatal(shmemi_status_from_errno(rc, SHMEMX_ERROR_INTERNAL), "%s: "
                                "cannot serialize the calls into the %s provider: %s", rtn,
                                shmemi_g.tp->prov_name, strerror(-rc));
    return 0;
}

/* Does all of init, step by step; *agreed_p: the failure is every PE's
 * (then each returns it; otherwise the job must end, since other PEs may
 * wait in a collective). */
static int init_steps(const char *rtn, int requested, shmemi_boot_fn boot, void *arg,
                      int *agreed_p)
{
    shmemi_init_status_t st = { 0, 0, -1 };
    int host_pes = 0, host_rank = 0, host_ncpu = 0, rc;

    *agreed_p = 1;
    if ((rc = init_env()) || (rc = init_boot(boot, arg)))
        return rc;
    *agreed_p = 0;
    if ((rc = init_tables(rtn)))
        return rc;
    init_heap(&st);
    if ((rc = init_nodemap(&host_pes, &host_rank, &host_ncpu, &st, agreed_p, rtn)))
        return rc;
    init_wait_policy(host_pes, host_ncpu);
    if ((rc = init_map()))
        return rc;
    shmemi_init_dev_open(host_rank, rtn);
    stage = STAGE_DEVICE;
    if ((rc = init_transport(host_pes, agreed_p, rtn)) || (rc = shmemi_init_device(agreed_p, rtn)))
        return rc;
    return init_upper(requested, rtn);
}

/* ---- the teardown of init, and finalize ---- */

/* Undoes whatever init made, from the last stage down (the bootstrap
 * stays).  collective: every PE is here together (finalize), so a barrier
 * may keep the transport until nobody uses it. */
static void teardown(int collective)
{
    /* The proxy writes into the device API's error record and uses a
     * context and the transport. */
    shmemi_proxy_stop();
    if (stage >= STAGE_READY) {
        shmemi_must(shmemi_ctxs_release(NULL, "shmem_finalize"));
        shmemi_mem_reg_fini();
    }
    if (stage >= STAGE_TEAMS)
        shmemi_teams_fini();
    if (stage >= STAGE_ALLOC)
        shmemi_mem_fini();
    /* The device heap's staging uses the transport: before it goes. */
    if (stage >= STAGE_DEVICE)
        shmemi_fini_device();
    if (stage >= STAGE_TRANSPORT && shmemi_g.tp) {
        /* Nobody may still read or write our heap through the provider. */
        if (collective)
            shmemi_g.boot->barrier(shmemi_g.boot);
        shmemi_g.tp->ops->fini(shmemi_g.tp);
    }
    shmemi_g.tp = NULL;
    shmemi_g.sleepers = NULL;
    shmemi_g.bell_sleepers = NULL;
    if (stage >= STAGE_HEAP)
        shmemi_heap_destroy();
    free(shmemi_g.peer_heap);
    free(shmemi_g.peer_data);
    free(shmemi_g.node_of);
    shmemi_g.peer_heap = NULL;
    shmemi_g.peer_data = NULL;
    shmemi_g.node_of = NULL;
    shmemi_g.n_pes = 0;
    stage = STAGE_NONE;
}

void shmemi_finalize(void)
{
    pthread_mutex_lock(&init_lock);
    if (atomic_load(&shmemi_g.state) != SHMEMI_STATE_INITIALIZED) {
        pthread_mutex_unlock(&init_lock);
        return;
    }
    shmemi_streams_fini();
    /* The kernels' last requests reach the peers before the barrier. */
    shmemi_proxy_stop();
    /* A quiet that failed ends the job in SHMEMX_ERRORS_ABORT mode; in
     * SHMEMX_ERRORS_RETURN mode it stays the caller's record
     * (shmemx_error_get after shmem_finalize) and this PE finalizes all
     * the same, so that the others are not left waiting in the barrier. */
    shmemi_api_check(shmemi_quiet_all("shmem_finalize"));
    shmemi_must(shmemi_team_barrier_world());
    atomic_store(&shmemi_g.state, SHMEMI_STATE_FINALIZED);
    teardown(1);
    pthread_mutex_unlock(&init_lock);
}

/* Runs at exit (on_exit, which passes the status given to exit()). */
static void at_exit(int status, void *arg)
{
    (void)arg;
    /* A child of fork() leaves the parent's job to the parent. */
    if (shmemi_forked())
        return;
    /* shmem_init must be matched by shmem_finalize.  A PE that leaves with
     * the library still initialized (exit() in the middle of the job, a
     * forgotten finalize) would leave its peers waiting for it forever in
     * their next collective: end the whole job with a message instead.
     * This PE keeps its status; the others exit with SHMEMB_EXIT_LEFT. */
    if (atomic_load(&shmemi_g.state) == SHMEMI_STATE_INITIALIZED) {
        if (shmemi_g.n_pes > 1 && !finalize_at_exit) {
            shmemi_log(SHMEMI_LOG_ERR, "PE %d exited without calling shmem_finalize; ending the "
                       "job so that the other PEs do not wait for it", shmemi_g.my_pe);
            shmemi_g.boot->leave(shmemi_g.boot, status, "a PE exited without shmem_finalize");
        }
        shmemi_finalize();
    }
    if (shmemi_g.boot) {
        shmemi_g.boot->fini(shmemi_g.boot);
        shmemi_g.boot = NULL;
    }
}

/* ---- init ---- */

static void print_info(void)
{
    if (shmemi_g.my_pe != 0)
        return;
    if (shmemi_g.env.version || shmemi_g.env.info)
        printf("fabshmem %s, OpenSHMEM %d.%d, transport %s, %d PEs on %d nodes\n", PACKAGE_VERSION,
               SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION,
               shmemi_g.tp ? shmemi_g.tp->prov_name : "none (all PEs mapped)", shmemi_g.n_pes,
               shmemi_g.n_nodes);
    if (shmemi_g.env.info) {
        /* Which libfabric: its own version and file (a build with CUDA
         * first on LD_LIBRARY_PATH, or the system's: docs/gpu.md). */
        if (shmemi_g.tp)
            printf("libfabric: %s (%s)\n", shmemt_ofi_version(), shmemt_ofi_library());
        if (shmemi_g.env.pes_per_node)
            printf("node map: from %s, cut into virtual nodes of %ld PEs\n",
                   shmemi_g.nodemap_src, shmemi_g.env.pes_per_node);
        else
            printf("node map: from %s\n", shmemi_g.nodemap_src);
        printf("streams: %s\n", shmemi_stream_path());
        shmemi_init_dev_info(stdout);
        shmemi_env_print_doc(stdout, &shmemi_g.env, 0, shmemi_coll_env_doc);
    }
    fflush(stdout);
}

/* A failure of init that this PE may have met alone, past the first
 * exchange: the other PEs may already wait for it in a collective, so the
 * job ends, whatever the error mode, with the reason. */
static void __attribute__((noreturn)) init_fail_alone(int rc, const char *rtn)
{
    const shmemi_errrec_t *r = shmemi_err_last();

    if (r->code != SHMEMX_SUCCESS)
        shmemi_log_emit(r->level, "%s", r->msg);
    shmemi_fatal("%s: initialization failed: %s", rtn, shmemi_strerror(rc));
}

int shmemi_init(const char *rtn, int requested, int *provided, shmemi_boot_fn boot, void *arg)
{
    int rc = 0, agreed = 1, n;

    pthread_mutex_lock(&init_lock);
    if (shmemi_forked()) {
        pthread_mutex_unlock(&init_lock);
        return shmemi_err(SHMEMX_ERROR_INVALID_STATE, rtn, "this process is a child (fork) of "
                          "process %d, which joined a fabshmem job; that job's state cannot be "
                          "used here (exec or exit instead)", (int)boot_pid);
    }
    if (atomic_load(&shmemi_g.state) != SHMEMI_STATE_INITIALIZED) {
        shmemi_err_clear();
        rc = init_steps(rtn, requested, boot, arg, &agreed);
        if (shmemi_g.boot && !atexit_registered) {
            /* From the bootstrap on: at exit it is closed in order. */
            on_exit(at_exit, NULL);
            atexit_registered = 1;
        }
        if (rc == 0) {
            shmemi_g.thread_level = requested;
            stage = STAGE_READY;
            atomic_store(&shmemi_g.state, SHMEMI_STATE_INITIALIZED);
            print_info();
        } else {
            /* Everything after the bootstrap is undone: the status is
             * IS_BOOTSTRAPPED (NOT_INITIALIZED when the bootstrap itself
             * failed), and init may be tried again. */
            n = shmemi_g.boot ? shmemi_g.boot->nranks : 1;
            teardown(0);
            if (n > 1 && !agreed) {
                pthread_mutex_unlock(&init_lock);
                init_fail_alone(rc, rtn);
            }
        }
    }
    pthread_mutex_unlock(&init_lock);
    if (rc == 0 && provided)
        *provided = shmemi_g.thread_level;
    return rc;
}

int shmemi_init_thread(int requested, int *provided, const char *rtn)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "requested thread level %d is not "
                          "one of SHMEM_THREAD_SINGLE, FUNNELED, SERIALIZED, MULTIPLE",
                          requested);
    return shmemi_init(rtn, requested, provided, NULL, NULL);
}

int shmemi_start_pes(const char *rtn)
{
    int rc = shmemi_init(rtn, SHMEM_THREAD_SINGLE, NULL, NULL, NULL);

    if (rc == 0)
        finalize_at_exit = 1;
    return rc;
}

void shmemi_global_exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    if (shmemi_g.boot && shmemi_g.boot->nranks > 1)
        shmemi_g.boot->abort(shmemi_g.boot, status, "shmem_global_exit");
    _exit(status);
}

int shmemi_init_status(void)
{
    if (shmemi_forked())
        return SHMEMX_STATUS_INVALID;
    switch (atomic_load(&shmemi_g.state)) {
    case SHMEMI_STATE_INITIALIZED: return SHMEMX_STATUS_IS_INITIALIZED;
    case SHMEMI_STATE_BOOTSTRAPPED: return SHMEMX_STATUS_IS_BOOTSTRAPPED;
    case SHMEMI_STATE_FINALIZED:
        /* The bootstrap stays after finalize, until exit. */
        return shmemi_g.boot ? SHMEMX_STATUS_IS_BOOTSTRAPPED : SHMEMX_STATUS_NOT_INITIALIZED;
    case SHMEMI_STATE_NONE: return SHMEMX_STATUS_NOT_INITIALIZED;
    default: return SHMEMX_STATUS_INVALID;
    }
}
