/*
 * The node map's exchange at init: one allgather carries each PE's host
 * name, what the bootstrap knows of its node (PMIX_LOCAL_PEERS: the lowest
 * PE of its node and how many PEs share it), the cores it may run on and
 * how its steps of init went so far.  Every PE then holds the same table
 * and makes the same choice (src/core/nodemap.c builds the map from it).
 */
#define _GNU_SOURCE
#include <sched.h>
#include "init/init.h"
#include "base/state.h"
#include "core/nodemap.h"
#include <stdlib.h>

/* One PE's entry of the exchange. */
struct nodemap_ent {
    char host[sizeof(shmemi_g.hostname)];
    int id;                    /* lowest PE of this PE's node per the bootstrap, or -1 */
    int size;                  /* PEs on that node per the bootstrap */
    cpu_set_t cpus;            /* the cores this PE may run on */
    shmemi_init_status_t st;   /* how this PE's steps before went */
};

/* The tables the choice is made from, [n_pes] each. */
struct nodemap_tables {
    struct nodemap_ent *all;
    int *ids, *sizes, *host_of, *pmix_of;
    char *hosts; /* [n_pes][sizeof hostname] */
};

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

/* This PE's entry: host name, the bootstrap's view of its node, cores. */
static void nodemap_mine(struct nodemap_ent *mine, const shmemi_init_status_t *st)
{
    int n = shmemi_g.n_pes, npeers, ret;
    int *peers;

    memset(mine, 0, sizeof(*mine));
    memcpy(mine->host, shmemi_g.hostname, sizeof(mine->host));
    mine->id = -1;
    mine->st = *st;
    if (sched_getaffinity(0, sizeof(mine->cpus), &mine->cpus) != 0)
        CPU_ZERO(&mine->cpus);
    if (!shmemi_g.boot->node_peers || !(peers = calloc((size_t)n, sizeof(int))))
        return;
    ret = shmemi_g.boot->node_peers(shmemi_g.boot, peers, n, &npeers);
    if (!ret)
        ret = shmemi_nodemap_local_id(peers, npeers, shmemi_g.my_pe, n, &mine->id);
    if (!ret)
        mine->size = npeers;
    else if (ret == -ENOENT)
        shmemi_debug("%s bootstrap: no PMIX_LOCAL_PEERS; the node map comes from host names",
                     shmemi_g.boot->name);
    else
        shmemi_warn("%s bootstrap: PMIX_LOCAL_PEERS: %s; the node map comes from host names",
                    shmemi_g.boot->name, strerror(-ret));
    free(peers);
}

/* Whether the PMIx nodes decide (1) or the host names (0), from the
 * tables; a negative errno when a table cannot be built. */
static int nodemap_use_pmix(struct nodemap_tables *t, int n, int have_id)
{
    const size_t idlen = sizeof(shmemi_g.hostname);
    int ret;

    ret = shmemi_nodemap_build(t->hosts, idlen, n, 0, t->host_of);
    if (ret < 0)
        return ret;
    ret = shmemi_nodemap_ids_check(t->ids, t->sizes, n);
    if (!ret) {
        ret = shmemi_nodemap_build((const char *)t->ids, sizeof(int), n, 0, t->pmix_of);
        if (ret < 0)
            return ret;
        if (!memcmp(t->pmix_of, t->host_of, (size_t)n * sizeof(int)))
            return 1;
        if (shmemi_g.my_pe == 0)
            nodemap_warn_mismatch(t->hosts, idlen, t->host_of, t->pmix_of, n);
    } else if (ret == -EPROTO) {
        if (shmemi_g.my_pe == 0)
            shmemi_warn("node map: the PEs' PMIX_LOCAL_PEERS contradict each other; the host "
                        "names decide");
    } else if (ret == -ENOENT) {
        if (have_id)
            shmemi_debug("node map: not every PE has PMIX_LOCAL_PEERS; the host names decide");
    } else {
        return ret;
    }
    return 0;
}

/* Builds shmemi_g.node_of from the exchanged entries; counts this host's
 * PEs and cores.  0 or a negative errno. */
static int nodemap_build(struct nodemap_tables *t, int have_id, int *host_pes_p,
                         int *host_rank_p, int *host_ncpu_p)
{
    const size_t idlen = sizeof(shmemi_g.hostname);
    int n = shmemi_g.n_pes, pe, use_pmix, ret;
    cpu_set_t host_cpus;

    CPU_ZERO(&host_cpus);
    *host_pes_p = *host_rank_p = 0;
    for (pe = 0; pe < n; pe++) {
        memcpy(t->hosts + (size_t)pe * idlen, t->all[pe].host, idlen);
        t->ids[pe] = t->all[pe].id;
        t->sizes[pe] = t->all[pe].size;
        if (!memcmp(t->all[pe].host, shmemi_g.hostname, idlen)) {
            (*host_pes_p)++;
            *host_rank_p += pe < shmemi_g.my_pe;
            CPU_OR(&host_cpus, &host_cpus, &t->all[pe].cpus);
        }
    }
    *host_ncpu_p = CPU_COUNT(&host_cpus);
    use_pmix = nodemap_use_pmix(t, n, have_id);
    if (use_pmix < 0)
        return use_pmix;
    if (use_pmix)
        ret = shmemi_nodemap_build((const char *)t->ids, sizeof(int), n,
                                   shmemi_g.env.pes_per_node, shmemi_g.node_of);
    else
        ret = shmemi_nodemap_build(t->hosts, idlen, n, shmemi_g.env.pes_per_node,
                                   shmemi_g.node_of);
    if (ret < 0)
        return ret;
    shmemi_g.n_nodes = ret;
    shmemi_g.nodemap_src = use_pmix ? "pmix local peers" : "host names";
    shmemi_debug("node map from %s: %d node%s%s", shmemi_g.nodemap_src, ret, ret == 1 ? "" : "s",
                 shmemi_g.env.pes_per_node ? " (virtual nodes, FABSHMEM_PES_PER_NODE)" : "");
    return 0;
}

/* The node map: one allgather, then every PE makes the same choice: the
 * PMIx nodes when every PE has them, they agree with each other and they
 * group the PEs exactly as the host names do; the host names otherwise
 * (with a warning when the two disagree: a wrong map would map memory that
 * is not shared).  Virtual nodes cut either the same way. */
int shmemi_init_nodemap(shmemi_init_status_t *st, int *host_pes_p, int *host_rank_p,
                        int *host_ncpu_p)
{
    const size_t n = (size_t)shmemi_g.n_pes;
    struct nodemap_ent mine;
    struct nodemap_tables t;
    int pe, ret = 0, rc = 0;

    nodemap_mine(&mine, st);
    t.all = calloc(n, sizeof(*t.all));
    t.ids = calloc(n, sizeof(int));
    t.sizes = calloc(n, sizeof(int));
    t.host_of = calloc(n, sizeof(int));
    t.pmix_of = calloc(n, sizeof(int));
    t.hosts = calloc(n, sizeof(shmemi_g.hostname));
    if (!t.all || !t.ids || !t.sizes || !t.host_of || !t.pmix_of || !t.hosts)
        ret = -ENOMEM;
    if (!ret && (ret = shmemi_g.boot->allgather(shmemi_g.boot, &mine, t.all, sizeof(mine))))
        rc = shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_BOOTSTRAP), "node map: "
                              "the bootstrap's allgather failed: %s", strerror(-ret));
    /* A PE whose steps before failed: every PE gives up with its error. */
    for (pe = 0; !ret && pe < (int)n; pe++) {
        if (t.all[pe].st.cls) {
            *st = t.all[pe].st;
            goto out_free;
        }
    }
    if (!ret)
        ret = nodemap_build(&t, mine.id >= 0, host_pes_p, host_rank_p, host_ncpu_p);
    if (ret && !rc)
        rc = shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_INTERNAL), "node map: "
                              "%s", strerror(-ret));
out_free:
    free(t.all);
    free(t.ids);
    free(t.sizes);
    free(t.host_of);
    free(t.pmix_of);
    free(t.hosts);
    return rc;
}
