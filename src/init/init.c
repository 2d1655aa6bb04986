/*
 * Setup and query: init, finalize, the predefined teams and contexts.
 */
#define _GNU_SOURCE
#include <sched.h>
#include "init/init.h"
#include "mem/mem.h"
#include "stream/stream.h"
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

int shmemi_forked(void)
{
    return shmemi_g.boot && getpid() != boot_pid;
}

/* The bootstrap of FABSHMEM_BOOTSTRAP (checked by env_check). */
static int boot_start(void)
{
    const char *how = shmemi_g.env.bootstrap;
    int ret;

    if (!strcmp(how, "singleton"))
        return shmemb_singleton_init(&shmemi_g.boot);
    if (!strcmp(how, "uid"))
        return shmemi_boot_uid_env(NULL, &shmemi_g.boot);
    ret = shmemb_pmix_init(&shmemi_g.boot);
    if (ret == -ENOENT && !strcmp(how, "auto"))
        return shmemb_singleton_init(&shmemi_g.boot);
    if (ret)
        shmemi_log(SHMEMI_LOG_ERR, "PMIx bootstrap failed: %s", strerror(-ret));
    return ret;
}

/* Set by start_pes: programs of the pre-1.2 API never call shmem_finalize,
 * which then happens at exit (every PE gets there at the end of the job). */
static int finalize_at_exit;

static void at_exit(void)
{
    /* A child of fork() leaves the parent's job to the parent. */
    if (shmemi_forked())
        return;
    /* shmem_init must be matched by shmem_finalize.  A PE that leaves with
     * the library still initialized (exit() in the middle of the job, a
     * forgotten finalize) would leave its peers waiting for it forever in
     * their next collective: end the whole job with a message instead. */
    if (atomic_load(&shmemi_g.state) == SHMEMI_STATE_INITIALIZED) {
        if (shmemi_g.n_pes > 1 && !finalize_at_exit) {
            shmemi_log(SHMEMI_LOG_ERR, "PE %d exited without calling shmem_finalize; ending the "
                       "job so that the other PEs do not wait for it", shmemi_g.my_pe);
            shmemi_g.boot->abort(shmemi_g.boot, 250, "a PE exited without shmem_finalize");
        }
        pshmem_finalize();
    }
    if (shmemi_g.boot) {
        shmemi_g.boot->fini(shmemi_g.boot);
        shmemi_g.boot = NULL;
    }
}

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
        if (shmemi_g.env.pes_per_node)
            printf("node map: from %s, cut into virtual nodes of %ld PEs\n",
                   shmemi_g.nodemap_src, shmemi_g.env.pes_per_node);
        else
            printf("node map: from %s\n", shmemi_g.nodemap_src);
        printf("streams: %s\n", shmemi_stream_path());
        shmemi_env_print_doc(stdout, &shmemi_g.env, 0, shmemi_coll_env_doc);
    }
    fflush(stdout);
}

/* Names, from PE 0, the first pair of PEs that PMIx and the host names
 * place differently (host_of and pmix_of: both maps numbered by first
 * appearance, so the first entry that differs has a partner before it). */
static void nodemap_warn_mismatch(const char *hosts, size_t idlen, const int *host_of,
                                  const int *pmix_of, int n)
{
    int pe, q;

    for (pe = 0; pe < n && host_of[pe] == pmix_of[pe]; pe++)
        ;
    if (pe == n)
        return;
    for (q = 0; q < pe && host_of[q] != host_of[pe] && pmix_of[q] != pmix_of[pe]; q++)
        ;
    if (q == pe)
        return;
    shmemi_warn("node map: PMIX_LOCAL_PEERS puts PEs %d and %d on %s but their host names (%s, "
                "%s) are %s; the host names decide", q, pe,
                pmix_of[q] == pmix_of[pe] ? "one node" : "different nodes", hosts + q * idlen,
                hosts + pe * idlen, host_of[q] == host_of[pe] ? "the same" : "different");
}

/* How the steps of init that each PE takes alone went (heap creation):
 * carried in the node map's allgather, so that when one PE fails them
 * every PE learns it, undoes its own steps and returns the same error, and
 * the job stays bootstrapped and able to try again. */
struct init_status {
    int err; /* 0 or a negative errno */
    int cls; /* its SHMEMX_ERROR_* class */
    int pe;  /* the PE that failed */
};

/* Builds the node map (shmemi_g.node_of, n_nodes, nodemap_src) and counts
 * the PEs of this host and the cores they may run on together (the union
 * of their affinities: a launcher that binds each PE to one core still
 * gives the host's PEs a core each).  Collective.
 *
 * One allgather carries each PE's host name and, where the bootstrap knows
 * (PMIX_LOCAL_PEERS), the lowest PE of its node and how many PEs share it.
 * Every PE then holds the same table and makes the same choice: the PMIx
 * nodes when every PE has them, they agree with each other and they group
 * the PEs exactly as the host names do; the host names otherwise (with a
 * warning when the two disagree: a wrong map would map memory that is not
 * shared).  Virtual nodes cut either the same way.  *st: in, this PE's
 * init status; out, the first PE's that failed (then nothing is built). */
static int nodemap_init(struct init_status *st, int *host_pes_p, int *host_ncpu_p)
{
    const size_t idlen = sizeof(shmemi_g.hostname);
    struct nodemap_ent {
        char host[sizeof(shmemi_g.hostname)];
        int id;   /* lowest PE of this PE's node per the bootstrap, or -1 */
        int size; /* PEs on that node per the bootstrap */
        cpu_set_t cpus; /* the cores this PE may run on */
        struct init_status st; /* how this PE's steps before went */
    } mine, *all = NULL;
    cpu_set_t host_cpus;
    int n = shmemi_g.n_pes, me = shmemi_g.my_pe, npeers, pe, use_pmix = 0, ret;
    int *peers = NULL, *ids = NULL, *sizes = NULL, *host_of = NULL, *pmix_of = NULL;
    char *hosts = NULL;

    memset(&mine, 0, sizeof(mine));
    memcpy(mine.host, shmemi_g.hostname, idlen);
    mine.id = -1;
    mine.st = *st;
    if (sched_getaffinity(0, sizeof(mine.cpus), &mine.cpus) != 0)
        CPU_ZERO(&mine.cpus);
    all = calloc((size_t)n, sizeof(*all));
    peers = calloc((size_t)n, sizeof(int));
    ids = calloc((size_t)n, sizeof(int));
    sizes = calloc((size_t)n, sizeof(int));
    host_of = calloc((size_t)n, sizeof(int));
    pmix_of = calloc((size_t)n, sizeof(int));
    hosts = calloc((size_t)n, idlen);
    if (!all || !peers || !ids || !sizes || !host_of || !pmix_of || !hosts) {
        ret = -ENOMEM;
        goto out_free;
    }
    if (shmemi_g.boot->node_peers) {
        ret = shmemi_g.boot->node_peers(shmemi_g.boot, peers, n, &npeers);
        if (!ret)
            ret = shmemi_nodemap_local_id(peers, npeers, me, n, &mine.id);
        if (!ret)
            mine.size = npeers;
        else if (ret == -ENOENT)
            shmemi_debug("%s bootstrap: no PMIX_LOCAL_PEERS; the node map comes from host names",
                         shmemi_g.boot->name);
        else
            shmemi_warn("%s bootstrap: PMIX_LOCAL_PEERS: %s; the node map comes from host names",
                        shmemi_g.boot->name, strerror(-ret));
    }

    ret = shmemi_g.boot->allgather(shmemi_g.boot, &mine, all, sizeof(mine));
    if (ret)
        goto out_free;
    /* A PE whose steps before failed: every PE gives up with its error. */
    for (pe = 0; pe < n; pe++) {
        if (all[pe].st.err) {
            *st = all[pe].st;
            goto out_free;
        }
    }
    CPU_ZERO(&host_cpus);
    *host_pes_p = 0;
    for (pe = 0; pe < n; pe++) {
        memcpy(hosts + (size_t)pe * idlen, all[pe].host, idlen);
        ids[pe] = all[pe].id;
        sizes[pe] = all[pe].size;
        if (!memcmp(all[pe].host, shmemi_g.hostname, idlen)) {
            (*host_pes_p)++;
            CPU_OR(&host_cpus, &host_cpus, &all[pe].cpus);
        }
    }
    *host_ncpu_p = CPU_COUNT(&host_cpus);
    ret = shmemi_nodemap_build(hosts, idlen, n, 0, host_of);
    if (ret < 0)
        goto out_free;
    ret = shmemi_nodemap_ids_check(ids, sizes, n);
    if (!ret) {
        ret = shmemi_nodemap_build((const char *)ids, sizeof(int), n, 0, pmix_of);
        if (ret < 0)
            goto out_free;
        if (!memcmp(pmix_of, host_of, (size_t)n * sizeof(int)))
            use_pmix = 1;
        else if (me == 0)
            nodemap_warn_mismatch(hosts, idlen, host_of, pmix_of, n);
    } else if (ret == -EPROTO) {
        if (me == 0)
            shmemi_warn("node map: the PEs' PMIX_LOCAL_PEERS contradict each other; the host "
                        "names decide");
    } else if (ret == -ENOENT) {
        if (mine.id >= 0)
            shmemi_debug("node map: not every PE has PMIX_LOCAL_PEERS; the host names decide");
    } else {
        goto out_free;
    }

    if (use_pmix)
        ret = shmemi_nodemap_build((const char *)ids, sizeof(int), n, shmemi_g.env.pes_per_node,
                                   shmemi_g.node_of);
    else
        ret = shmemi_nodemap_build(hosts, idlen, n, shmemi_g.env.pes_per_node, shmemi_g.node_of);
    if (ret < 0)
        goto out_free;
    shmemi_g.n_nodes = ret;
    shmemi_g.nodemap_src = use_pmix ? "pmix local peers" : "host names";
    shmemi_debug("node map from %s: %d node%s%s", shmemi_g.nodemap_src, ret, ret == 1 ? "" : "s",
                 shmemi_g.env.pes_per_node ? " (virtual nodes, FABSHMEM_PES_PER_NODE)" : "");
    ret = 0;

out_free:
    free(all);
    free(peers);
    free(ids);
    free(sizes);
    free(host_of);
    free(pmix_of);
    free(hosts);
    return ret;
}

/* The SHMEMX_ERROR_* class of the last init_all failure, where the errno
 * value alone does not tell it (a bootstrap or a provider failed), and
 * whether every PE failed alike (then each returns the error; otherwise
 * the job must end, since other PEs may wait in a collective). */
static int init_fail_class;
static int init_fail_agreed;

/* Checks the environment values that init uses, before anything is made,
 * so that a bad one fails init on every PE alike before the bootstrap. */
static int env_check(void)
{
    const char *how = shmemi_g.env.bootstrap;
    int over;

    if (shmemi_g.env.pes_per_node < 0) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_PES_PER_NODE: invalid value %ld (expected 0 or more)",
                   shmemi_g.env.pes_per_node);
        return -EINVAL;
    }
    if (shmemi_g.env.teams_max < SHMEMI_SLOT_FIRST_FREE + SHMEMI_SLOT_ACTIVE_SETS + 1 ||
        shmemi_g.env.teams_max > 4096) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_TEAMS_MAX: invalid value %ld (expected %d to 4096)",
                   shmemi_g.env.teams_max, SHMEMI_SLOT_FIRST_FREE + SHMEMI_SLOT_ACTIVE_SETS + 1);
        return -EINVAL;
    }
    if (shmemi_g.env.ctx_endpoints < 0 || shmemi_g.env.ctx_endpoints > 4096) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_CTX_ENDPOINTS: invalid value %ld (expected 0 to 4096)",
                   shmemi_g.env.ctx_endpoints);
        return -EINVAL;
    }
    if (strcmp(shmemi_g.env.oversubscribed, "auto") &&
        shmemi_env_parse_bool(shmemi_g.env.oversubscribed, &over)) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_OVERSUBSCRIBED: unknown value '%s' (expected auto "
                   "or a boolean: 0/1, yes/no, on/off, true/false)", shmemi_g.env.oversubscribed);
        return -EINVAL;
    }
    if (strcmp(how, "auto") && strcmp(how, "pmix") && strcmp(how, "singleton") &&
        strcmp(how, "uid")) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_BOOTSTRAP: unknown value '%s' (expected auto, pmix, "
                   "singleton or uid)", how);
        return -EINVAL;
    }
    if (shmemi_g.env.bootstrap_timeout < 1) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_BOOTSTRAP_TIMEOUT: invalid value %ld (expected 1 or "
                   "more seconds)", shmemi_g.env.bootstrap_timeout);
        return -EINVAL;
    }
    return 0;
}

/* Does all of init, booting with boot(arg) when no bootstrap is up yet
 * (NULL: by FABSHMEM_BOOTSTRAP); returns 0 or a negative errno with the
 * reason logged, and everything made after the bootstrap undone. */
static int init_all(shmemi_boot_fn boot, void *arg)
{
    size_t heap_size, page = (size_t)sysconf(_SC_PAGESIZE);
    struct init_status st = { 0, 0, -1 };
    int host_pes = 0, host_ncpu = 0;
    int ret;

    init_fail_class = SHMEMX_ERROR_INTERNAL;
    init_fail_agreed = 0;
    gethostname(shmemi_g.hostname, sizeof(shmemi_g.hostname) - 1);
    ret = shmemi_env_parse(NULL, &shmemi_g.env);
    if (ret)
        return ret;
    shmemi_log_level = shmemi_g.env.debug ? SHMEMI_LOG_DEBUG : SHMEMI_LOG_WARN;
    ret = env_check();
    if (ret)
        return ret;
    if (shmemi_coll_algo_init(&shmemi_g.env)) {
        shmemi_log(SHMEMI_LOG_ERR, "%s", shmemi_err_last()->msg);
        return -EINVAL;
    }

    /* The bootstrap stays for the life of the process (init may come
     * again after finalize, or after a failed init). */
    if (!shmemi_g.boot) {
        ret = boot ? boot(arg, &shmemi_g.boot) : boot_start();
        if (ret) {
            shmemi_g.boot = NULL;
            init_fail_class = ret == -ENOMEM ? SHMEMX_ERROR_OUT_OF_MEMORY
                              : ret == -EINVAL ? SHMEMX_ERROR_INVALID_VALUE
                                               : SHMEMX_ERROR_BOOTSTRAP;
            return ret;
        }
        boot_pid = getpid();
        shmemi_debug("bootstrap %s: rank %d of %d, job id %s", shmemi_g.boot->name,
                     shmemi_g.boot->rank, shmemi_g.boot->nranks, shmemi_g.boot->job_id);
    }
    shmemi_g.my_pe = shmemi_g.boot->rank;
    shmemi_g.n_pes = shmemi_g.boot->nranks;
    if (atomic_load(&shmemi_g.state) == SHMEMI_STATE_NONE)
        atomic_store(&shmemi_g.state, SHMEMI_STATE_BOOTSTRAPPED);

    shmemi_g.peer_heap = calloc(shmemi_g.n_pes, sizeof(char *));
    shmemi_g.peer_data = calloc(shmemi_g.n_pes, sizeof(char *));
    shmemi_g.node_of = calloc(shmemi_g.n_pes, sizeof(int));
    if (!shmemi_g.peer_heap || !shmemi_g.peer_data || !shmemi_g.node_of) {
        ret = -ENOMEM;
        goto err_free;
    }
    /* Heap layout: the library's words, the team area, the user's heap. */
    shmemi_g.reserved_size = SHMEMI_RESERVED +
                             shmemi_team_area_size(shmemi_g.env.teams_max, shmemi_g.n_pes);
    if (__builtin_add_overflow(shmemi_g.env.symmetric_size, shmemi_g.reserved_size + page - 1,
                               &heap_size)) {
        shmemi_log(SHMEMI_LOG_ERR, "SHMEM_SYMMETRIC_SIZE: %zu bytes is too large",
                   shmemi_g.env.symmetric_size);
        st = (struct init_status){ -EINVAL, SHMEMX_ERROR_INVALID_VALUE, shmemi_g.my_pe };
    } else {
        heap_size &= ~(page - 1);
        ret = shmemi_heap_create(heap_size);
        if (ret) {
            shmemi_log(SHMEMI_LOG_ERR, "cannot create a symmetric heap of %zu bytes "
                       "(SHMEM_SYMMETRIC_SIZE=%zu): %s", heap_size, shmemi_g.env.symmetric_size,
                       strerror(-ret));
            st = (struct init_status){ ret, shmemi_status_from_errno(ret,
                                       SHMEMX_ERROR_OUT_OF_MEMORY), shmemi_g.my_pe };
        }
    }
    /* The node map's allgather also tells every PE how the others fared. */
    ret = nodemap_init(&st, &host_pes, &host_ncpu);
    if (ret)
        goto err_heap;
    if (st.err) {
        if (st.pe != shmemi_g.my_pe)
            shmemi_log(SHMEMI_LOG_ERR, "shmem_init: PE %d could not create its symmetric heap "
                       "(%s); initialization is undone on every PE", st.pe, strerror(-st.err));
        ret = st.err;
        init_fail_class = st.cls;
        init_fail_agreed = 1;
        goto err_heap;
    }
    /* Waiting PEs spin before they yield, unless the PEs of this host
     * outnumber its cores (those they may run on, together): a spinning PE
     * then holds the core that the PE it waits for needs. */
    shmemi_g.wait_spin = shmemi_g.env.wait_spin;
    shmemi_g.oversubscribed = host_ncpu > 0 && host_pes > host_ncpu;
    if (strcmp(shmemi_g.env.oversubscribed, "auto"))
        shmemi_env_parse_bool(shmemi_g.env.oversubscribed, &shmemi_g.oversubscribed);
    if (shmemi_g.oversubscribed && !getenv("FABSHMEM_WAIT_SPIN"))
        shmemi_g.wait_spin = SHMEMI_WAIT_SPIN_OVERSUBSCRIBED;
    shmemi_debug("%d PEs on this host, %d cores: waits poll %ld times before yielding",
                 host_pes, host_ncpu, shmemi_g.wait_spin);

    shmemi_data_segment_find();
    ret = shmemi_heap_map_peers(shmemi_g.env.direct, shmemi_g.env.map_data);
    if (ret)
        goto err_heap;
    shmemi_team_area = shmemi_g.heap_base + SHMEMI_RESERVED;
    /* The atomicity rule (shmemi.h): CPU atomics only if every PE maps every
     * other PE's heap (and, for globals, data). */
    shmemi_amo_direct = 1;
    shmemi_g.data_all_mapped = shmemi_g.data_size > 0;
    for (int pe = 0; pe < shmemi_g.n_pes; pe++) {
        if (!shmemi_g.peer_heap[pe])
            shmemi_amo_direct = 0;
        if (!shmemi_g.peer_data[pe])
            shmemi_g.data_all_mapped = 0;
    }
    /* Every PE must agree (a PE that could not share its data makes all
     * of them use the provider for globals): one more allgather. */
    if (shmemi_g.n_pes > 1) {
        int *all = calloc((size_t)shmemi_g.n_pes, sizeof(int)), mine = shmemi_g.data_all_mapped;
        if (!all || shmemi_g.boot->allgather(shmemi_g.boot, &mine, all, sizeof(int)))
            shmemi_g.data_all_mapped = 0;
        for (int pe = 0; all && pe < shmemi_g.n_pes; pe++)
            if (!all[pe])
                shmemi_g.data_all_mapped = 0;
        free(all);
    }
    shmemi_debug("globals (%zu bytes of data segment): %s", shmemi_g.data_size,
                 shmemi_g.data_all_mapped ? "mapped by every PE, CPU atomics"
                 : shmemi_g.peer_data[shmemi_g.my_pe] ? "mapped by node peers, atomics through the provider"
                                                     : "through the provider");

    if (shmemi_g.n_pes > 1) {
        shmemi_shm_cleanup_stale();
        shmemt_init_args_t args = {
            .boot = shmemi_g.boot,
            .my_pe = shmemi_g.my_pe,
            .n_pes = shmemi_g.n_pes,
            .segs = { { shmemi_g.heap_base, shmemi_g.heap_size },
                      { shmemi_g.data_base, shmemi_g.data_size } },
            .provider = shmemi_g.env.provider,
            .progress_thread = shmemi_g.env.progress_thread,
            .oversubscribed = shmemi_g.oversubscribed,
            .progress_interval_us = (int)shmemi_g.env.progress_interval,
            .trigger = shmemi_stream_offload_mode("shmem_init") != 0,
        };
        ret = shmemt_ofi_init(&args, &shmemi_g.tp);
        if (ret) {
            init_fail_class = SHMEMX_ERROR_TRANSPORT;
            goto err_heap;
        }
    }
    /* Every PE opened the same provider in the same mode, so they agree. */
    shmemi_amo_cpu_tp = shmemi_g.tp && (shmemi_g.tp->caps & SHMEMT_CAP_AMO_CPU);
    shmemi_amo_cpu = shmemi_amo_direct || shmemi_amo_cpu_tp;
    shmemi_debug("atomics: %s", shmemi_amo_direct ? "CPU atomics (every PE maps every heap)" :
                 shmemi_amo_cpu_tp ? "CPU atomics on mapped peers, the target's CPU for the others "
                                     "(active messages)" : "through the provider");
    ret = shmemi_mem_init();
    if (ret)
        goto err_tp;
    ret = shmemi_teams_init();
    if (ret)
        goto err_mem;
    ctx_default.team = SHMEM_TEAM_WORLD;
    ret = shmemi_g.boot->barrier(shmemi_g.boot);
    if (ret) {
        init_fail_class = SHMEMX_ERROR_BOOTSTRAP;
        goto err_teams;
    }
    return 0;

err_teams:
    shmemi_teams_fini();
err_mem:
    shmemi_mem_fini();
err_tp:
    if (shmemi_g.tp)
        shmemi_g.tp->ops->fini(shmemi_g.tp);
    shmemi_g.tp = NULL;
err_heap:
    shmemi_heap_destroy();
err_free:
    free(shmemi_g.peer_heap);
    free(shmemi_g.peer_data);
    free(shmemi_g.node_of);
    shmemi_g.peer_heap = NULL;
    shmemi_g.peer_data = NULL;
    shmemi_g.node_of = NULL;
    return ret;
}

int shmemi_init(const char *rtn, int requested, int *provided, shmemi_boot_fn boot, void *arg)
{
    int ret = 0;

    pthread_mutex_lock(&init_lock);
    if (shmemi_forked()) {
        pthread_mutex_unlock(&init_lock);
        shmemi_log(SHMEMI_LOG_ERR, "%s: this process is a child (fork) of process %d, which "
                   "joined a fabshmem job; that job's state cannot be used here (exec or exit "
                   "instead)", rtn, (int)boot_pid);
        return SHMEMX_ERROR_INVALID_STATE;
    }
    if (atomic_load(&shmemi_g.state) != SHMEMI_STATE_INITIALIZED) {
        ret = init_all(boot, arg);
        if (shmemi_g.boot && !atexit_registered) {
            /* From the bootstrap on: at exit it is closed in order. */
            atexit(at_exit);
            atexit_registered = 1;
        }
        /* SHMEM_THREAD_MULTIPLE over a transport that is not safe for
         * concurrent threads: one lock serializes the calls into it. */
        if (ret == 0 && requested == SHMEM_THREAD_MULTIPLE) {
            ret = shmemi_tp_serialize();
            if (ret) {
                shmemi_log(SHMEMI_LOG_ERR, "%s: cannot serialize the calls into the %s "
                           "provider: %s", rtn, shmemi_g.tp->prov_name, strerror(-ret));
            }
        }
        if (ret == 0) {
            shmemi_g.thread_level = requested;
            atomic_store(&shmemi_g.state, SHMEMI_STATE_INITIALIZED);
            print_info();
        } else if (shmemi_g.boot && shmemi_g.n_pes > 1 && !init_fail_agreed) {
            /* Other PEs may already wait in a collective: end the job. */
            pthread_mutex_unlock(&init_lock);
            shmemi_fatal("%s: initialization failed: %s", rtn, strerror(-ret));
        }
        /* Otherwise everything after the bootstrap is undone: the status
         * is IS_BOOTSTRAPPED (NOT_INITIALIZED when the bootstrap itself
         * failed), and init may be tried again. */
    }
    pthread_mutex_unlock(&init_lock);
    if (ret == 0 && provided)
        *provided = shmemi_g.thread_level;
    if (ret && (init_fail_class != SHMEMX_ERROR_INTERNAL || init_fail_agreed) && ret != -ENOMEM)
        return init_fail_class;
    return shmemi_status_from_errno(ret, SHMEMX_ERROR_INTERNAL);
}

SHMEM_API int pshmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        shmemi_log(SHMEMI_LOG_ERR, "shmem_init_thread: requested thread level %d is not one of "
                   "SHMEM_THREAD_SINGLE, FUNNELED, SERIALIZED, MULTIPLE", requested);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    return shmemi_init("shmem_init_thread", requested, provided, NULL, NULL);
}
SHMEMI_ALIAS(shmem_init_thread)

SHMEM_API void pshmem_init(void)
{
    if (pshmem_init_thread(SHMEM_THREAD_SINGLE, NULL) != 0)
        shmemi_fatal("shmem_init: initialization failed (see the messages above)");
}
SHMEMI_ALIAS(shmem_init)

SHMEM_API void pshmem_query_thread(int *provided)
{
    SHMEMI_CHECK_INIT("shmem_query_thread");
    *provided = shmemi_g.thread_level;
}
SHMEMI_ALIAS(shmem_query_thread)

SHMEM_API void pshmem_query_initialized(int *initialized)
{
    *initialized = atomic_load(&shmemi_g.state) == SHMEMI_STATE_INITIALIZED;
}
SHMEMI_ALIAS(shmem_query_initialized)

SHMEM_API void pshmem_finalize(void)
{
    pthread_mutex_lock(&init_lock);
    if (atomic_load(&shmemi_g.state) != SHMEMI_STATE_INITIALIZED) {
        pthread_mutex_unlock(&init_lock);
        return;
    }
    shmemi_streams_fini();
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    shmemi_ctxs_quiet();
    shmemi_must(shmemi_team_barrier_world());
    atomic_store(&shmemi_g.state, SHMEMI_STATE_FINALIZED);
    shmemi_ctxs_release(NULL);
    shmemi_mem_reg_fini();
    shmemi_teams_fini();
    shmemi_mem_fini();
    if (shmemi_g.tp) {
        /* Nobody may still read or write our heap through the provider. */
        shmemi_g.boot->barrier(shmemi_g.boot);
        shmemi_g.tp->ops->fini(shmemi_g.tp);
        shmemi_g.tp = NULL;
    }
    shmemi_heap_destroy();
    free(shmemi_g.peer_heap);
    free(shmemi_g.peer_data);
    free(shmemi_g.node_of);
    shmemi_g.peer_heap = NULL;
    shmemi_g.peer_data = NULL;
    shmemi_g.node_of = NULL;
    shmemi_g.n_pes = 0;
    pthread_mutex_unlock(&init_lock);
}
SHMEMI_ALIAS(shmem_finalize)

SHMEM_API void pshmem_global_exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    if (shmemi_g.boot && shmemi_g.boot->nranks > 1)
        shmemi_g.boot->abort(shmemi_g.boot, status, "shmem_global_exit");
    _exit(status);
}
SHMEMI_ALIAS(shmem_global_exit)

SHMEM_API int pshmem_my_pe(void)
{
    SHMEMI_CHECK_INIT("shmem_my_pe");
    return shmemi_g.my_pe;
}
SHMEMI_ALIAS(shmem_my_pe)

SHMEM_API int pshmem_n_pes(void)
{
    SHMEMI_CHECK_INIT("shmem_n_pes");
    return shmemi_g.n_pes;
}
SHMEMI_ALIAS(shmem_n_pes)

SHMEM_API int pshmem_pe_accessible(int pe)
{
    SHMEMI_CHECK_INIT("shmem_pe_accessible");
    return pe >= 0 && pe < shmemi_g.n_pes;
}
SHMEMI_ALIAS(shmem_pe_accessible)

SHMEM_API int pshmem_addr_accessible(const void *addr, int pe)
{
    int seg;
    uint64_t off;

    SHMEMI_CHECK_INIT("shmem_addr_accessible");
    return pe >= 0 && pe < shmemi_g.n_pes && shmemi_addr_seg(addr, 1, &seg, &off) == 0;
}
SHMEMI_ALIAS(shmem_addr_accessible)

void *shmemi_ptr_world(const void *dest, int pe)
{
    int seg;
    uint64_t off;

    if (pe < 0 || pe >= shmemi_g.n_pes)
        return NULL;
    if (pe == shmemi_g.my_pe)
        return shmemi_addr_seg(dest, 1, &seg, &off) == 0 ? (void *)dest : NULL;
    return shmemi_peer_addr(dest, pe);
}

SHMEM_API void *pshmem_ptr(const void *dest, int pe)
{
    SHMEMI_CHECK_INIT("shmem_ptr");
    return shmemi_ptr_world(dest, pe);
}
SHMEMI_ALIAS(shmem_ptr)


SHMEM_API void pshmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}
SHMEMI_ALIAS(shmem_info_get_version)

SHMEM_API void pshmem_info_get_name(char *name)
{
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}
SHMEMI_ALIAS(shmem_info_get_name)

SHMEM_API void pshmem_pcontrol(const int level, ...)
{
    /* Profiling hook: no built-in profiler, so every level is accepted. */
}
SHMEMI_ALIAS(shmem_pcontrol)

/* ---- the pre-1.2 names, still used by old programs and benchmarks ---- */

SHMEM_API void start_pes(int npes)
{
    (void)npes; /* unused, as the specification says */
    pshmem_init();
    finalize_at_exit = 1;
}

SHMEM_API int _my_pe(void) { return pshmem_my_pe(); }
SHMEM_API int _num_pes(void) { return pshmem_n_pes(); }

/* Cache management (deprecated in OpenSHMEM 1.3): the machines fabshmem
 * runs on keep caches coherent, so there is nothing to do. */
SHMEM_API void shmem_set_cache_inv(void) {}
SHMEM_API void shmem_set_cache_line_inv(void *target) { (void)target; }
SHMEM_API void shmem_clear_cache_inv(void) {}
SHMEM_API void shmem_clear_cache_line_inv(void *target) { (void)target; }
SHMEM_API void shmem_udcflush(void) {}
SHMEM_API void shmem_udcflush_line(void *target) { (void)target; }

SHMEM_API void shmemx_vendor_get_version_info(int *major, int *minor, int *patch)
{
    *major = FABSHMEM_VERSION_MAJOR;
    *minor = FABSHMEM_VERSION_MINOR;
    *patch = FABSHMEM_VERSION_PATCH;
}

