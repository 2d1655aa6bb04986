/*
 * topo: a job across the hosts of tests/cluster/cluster.sh, checked against
 * where the launcher put each PE.
 *
 * The truth comes from outside the library: each PE's host name, and where
 * the cluster's launchers place PEs (PE p on host (p / CLUSTER_SLOTS) %
 * CLUSTER_HOSTS, named "node<k>", when the job fits the slots).  The
 * program checks, on every PE:
 *
 * - that each PE runs on the host it was placed on, and that the hosts'
 *   names differ (the cluster works);
 * - the predefined teams: NODE holds exactly the PEs of my host (cut into
 *   virtual nodes with FABSHMEM_PES_PER_NODE), SHARED the same with the
 *   direct path on and me alone with it off, SAME_MYPE_NODE one PE of
 *   each node, the one with my index in its node, in node order;
 * - the direct path only inside a host: shmem_ptr gives a pointer exactly
 *   to the SHARED members, and what it reads is what the peer wrote (a
 *   node map that took two hosts for one would fail at init, since each
 *   host has its own /dev/shm);
 * - puts, gets, AMOs and signals between every pair of PEs;
 * - the collectives on WORLD, NODE and SAME_MYPE_NODE (barrier, broadcast
 *   from every root, fcollect, sum and max reductions, alltoall), and that
 *   WORLD's barrier, broadcast and fcollect ran the hierarchical algorithms
 *   where the job has several nodes and a node with several mapped PEs.
 */
#include "common.h"
#include <shmemx.h>
#include <unistd.h>

enum { HOSTLEN = 64, MAXPE = 1024 };

static long slot[MAXPE];        /* slot[q]: written by PE q's put */
static long mine_val;           /* what shmem_ptr readers find */
static long counter;            /* AMO target */
static uint64_t sig[MAXPE];     /* sig[q]: PE q's signal */
static long payload[MAXPE];     /* the data of PE q's put with signal */
static long bsrc[MAXPE], bdst[MAXPE];
static long red_src[2], red_dst[2];
static long a2a_src[MAXPE], a2a_dst[MAXPE];

static int n, me;
static int *host_of;            /* host number, in the order of first PEs */
static int *node_of;            /* node number, in the order of first PEs */
static int *node_idx;           /* index of the PE in its node */
static int n_hosts, n_nodes;

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtol(s, NULL, 10) : dflt;
}

/* Numbers the distinct keys of key[0..n) in the order they first appear:
 * id[p] is the number of key[p], idx[p] how many PEs before p have it.
 * Returns the number of keys. */
static int number_keys(const long *key, int *id, int *idx)
{
    int ids = 0;

    for (int p = 0; p < n; p++) {
        int q;
        idx[p] = 0;
        for (q = 0; q < p && key[q] != key[p]; q++)
            ;
        id[p] = q < p ? id[q] : ids++;
        for (q = 0; q < p; q++)
            idx[p] += key[q] == key[p];
    }
    return ids;
}

/* The host names of every PE, and the node map they make. */
static void build_truth(void)
{
    char *names = shmem_malloc((size_t)n * HOSTLEN), *mine = shmem_malloc(HOSTLEN);
    long ppn = env_long("FABSHMEM_PES_PER_NODE", 0);
    long slots = env_long("CLUSTER_SLOTS", 0), hosts = env_long("CLUSTER_HOSTS", 0);
    long *key = calloc((size_t)n, sizeof(long));
    int *host_idx = calloc((size_t)n, sizeof(int));

    host_of = calloc((size_t)n, sizeof(int));
    node_of = calloc((size_t)n, sizeof(int));
    node_idx = calloc((size_t)n, sizeof(int));
    TEST_ASSERT(names && mine && key && host_idx && host_of && node_of && node_idx,
                "out of memory");
    memset(mine, 0, HOSTLEN);
    gethostname(mine, HOSTLEN - 1);
    shmem_barrier_all();
    TEST_ASSERT(shmem_fcollectmem(SHMEM_TEAM_WORLD, names, mine, HOSTLEN) == 0, "fcollectmem");
    for (int p = 0; p < n; p++) {
        int q;
        for (q = 0; q < p && strncmp(names + (size_t)q * HOSTLEN, names + (size_t)p * HOSTLEN,
                                     HOSTLEN); q++)
            ;
        key[p] = q;
    }
    n_hosts = number_keys(key, host_of, host_idx);
    /* Where the launcher was asked to put each PE. */
    if (slots > 0 && hosts > 0 && n <= slots * hosts) {
        char want[HOSTLEN];
        for (int p = 0; p < n; p++) {
            snprintf(want, sizeof(want), "node%ld", (p / slots) % hosts);
            TEST_ASSERT(!strcmp(names + (size_t)p * HOSTLEN, want),
                        "PE %d runs on host '%s', not on %s where it was placed", p,
                        names + (size_t)p * HOSTLEN, want);
        }
        TEST_CHECK("hosts of the job", 0, (n + slots - 1) / slots, n_hosts);
    }
    /* Nodes: the hosts, each cut into blocks of ppn of its PEs. */
    for (int p = 0; p < n; p++)
        key[p] = (long)host_of[p] * (n + 1) + (ppn > 0 ? host_idx[p] / ppn : 0);
    n_nodes = number_keys(key, node_of, node_idx);
    if (me == 0) {
        printf("topo: %d PEs on %d hosts, %d nodes:", n, n_hosts, n_nodes);
        for (int p = 0; p < n; p++)
            printf(" %d@%s", p, names + (size_t)p * HOSTLEN);
        printf("\n");
        fflush(stdout);
    }
    shmem_barrier_all();
    free(key);
    free(host_idx);
    shmem_free(mine);
    shmem_free(names);
}

/* The members of team t are exactly want[0..nwant), in that order. */
static void check_team(shmem_team_t t, const char *name, const int *want, int nwant)
{
    char what[96];

    snprintf(what, sizeof(what), "%s team size", name);
    TEST_CHECK(what, 0, nwant, shmem_team_n_pes(t));
    for (int i = 0; i < nwant; i++) {
        snprintf(what, sizeof(what), "%s team member (world PE)", name);
        TEST_CHECK(what, i, want[i], shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD));
        if (want[i] == me) {
            snprintf(what, sizeof(what), "%s team: my number", name);
            TEST_CHECK(what, i, i, shmem_team_my_pe(t));
        }
    }
    /* The PEs outside it translate to -1. */
    for (int p = 0; p < n; p++) {
        int in = 0;
        for (int i = 0; i < nwant; i++)
            in |= want[i] == p;
        if (!in) {
            snprintf(what, sizeof(what), "%s team: translation of a PE outside it", name);
            TEST_CHECK(what, p, -1, shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, t));
        }
    }
}

static void check_teams(int direct)
{
    int *want = malloc(sizeof(int) * (size_t)n), nw = 0;

    TEST_ASSERT(want, "out of memory");
    for (int p = 0; p < n; p++)
        if (node_of[p] == node_of[me])
            want[nw++] = p;
    check_team(SHMEMX_TEAM_NODE, "NODE", want, nw);
    if (direct) {
        check_team(SHMEM_TEAM_SHARED, "SHARED", want, nw);
    } else {
        want[0] = me;
        check_team(SHMEM_TEAM_SHARED, "SHARED (direct path off)", want, 1);
    }
    /* SAME_MYPE_NODE: in each node, the PE with my index there. */
    nw = 0;
    for (int p = 0; p < n; p++)
        if (node_idx[p] == node_idx[me])
            want[nw++] = p;
    check_team(SHMEMX_TEAM_SAME_MYPE_NODE, "SAME_MYPE_NODE", want, nw);
    free(want);
}

/* shmem_ptr maps exactly my node's PEs (with the direct path on; myself
 * always), and reads
 * what they wrote; every PE is accessible. */
static void check_mapping(int direct)
{
    mine_val = 1000 + me;
    shmem_barrier_all();
    for (int p = 0; p < n; p++) {
        long *ptr = shmem_ptr(&mine_val, p);
        int want = p == me || (direct && node_of[p] == node_of[me]);

        TEST_ASSERT(!ptr == !want, "shmem_ptr to PE %d (host %d, node %d; I am on host %d, node "
                    "%d): %s", p, host_of[p], node_of[p], host_of[me], node_of[me],
                    ptr ? "mapped" : "not mapped");
        if (ptr)
            TEST_CHECK("value read through shmem_ptr", p, 1000 + p, *ptr);
        TEST_CHECK("shmem_addr_accessible", p, 1, shmem_addr_accessible(&mine_val, p));
    }
    shmem_barrier_all();
}

/* Puts, gets, AMOs and signals between every pair. */
static void check_rma(void)
{
    for (int p = 0; p < n; p++)
        shmem_long_p(&slot[me], 7 * me + 3, p);
    shmem_barrier_all();
    for (int q = 0; q < n; q++)
        TEST_CHECK("slot written by a put", q, 7 * q + 3, slot[q]);
    for (int p = 0; p < n; p++) {
        long v = shmem_long_g(&slot[me], p);
        TEST_CHECK("get of my slot at a PE", p, 7 * me + 3, v);
    }
    shmem_barrier_all();
    for (int p = 0; p < n; p++)
        shmem_long_atomic_add(&counter, me + 1, p);
    shmem_barrier_all();
    TEST_CHECK("sum of the AMOs", 0, (long)n * (n + 1) / 2, counter);
    shmem_barrier_all();
    for (int p = 0; p < n; p++) {
        long v = 100 * me + p;
        shmem_long_put_signal(&payload[me], &v, 1, &sig[me], 1, SHMEM_SIGNAL_ADD, p);
    }
    for (int q = 0; q < n; q++) {
        shmem_uint64_wait_until(&sig[q], SHMEM_CMP_EQ, 1);
        TEST_CHECK("payload of a put with signal", q, 100 * q + me, payload[q]);
    }
    shmem_barrier_all();
}

/* The collectives of team t (my number tme of tn) with their values. */
static void check_coll(shmem_team_t t, const char *name)
{
    int tn = shmem_team_n_pes(t), tme = shmem_team_my_pe(t);
    char what[96];

    if (tn < 1)
        return;
    TEST_ASSERT(tn <= MAXPE, "team too large");
    for (int root = 0; root < tn; root++) {
        bsrc[0] = 1000 * root + 17;
        bdst[0] = -1;
        shmem_team_sync(t);
        TEST_ASSERT(shmem_long_broadcast(t, bdst, bsrc, 1, root) == 0, "broadcast");
        snprintf(what, sizeof(what), "%s broadcast from root %d", name, root);
        TEST_CHECK(what, 0, 1000 * root + 17, bdst[0]);
    }
    bsrc[0] = 31 * tme + 5;
    shmem_team_sync(t);
    TEST_ASSERT(shmem_long_fcollect(t, bdst, bsrc, 1) == 0, "fcollect");
    snprintf(what, sizeof(what), "%s fcollect", name);
    for (int i = 0; i < tn; i++)
        TEST_CHECK(what, i, 31 * i + 5, bdst[i]);
    red_src[0] = tme + 1;
    red_src[1] = 3 * tme;
    shmem_team_sync(t);
    TEST_ASSERT(shmem_long_sum_reduce(t, red_dst, red_src, 2) == 0, "sum_reduce");
    snprintf(what, sizeof(what), "%s sum reduction", name);
    TEST_CHECK(what, 0, (long)tn * (tn + 1) / 2, red_dst[0]);
    TEST_CHECK(what, 1, 3L * tn * (tn - 1) / 2, red_dst[1]);
    shmem_team_sync(t);
    TEST_ASSERT(shmem_long_max_reduce(t, red_dst, red_src, 2) == 0, "max_reduce");
    snprintf(what, sizeof(what), "%s max reduction", name);
    TEST_CHECK(what, 1, 3L * (tn - 1), red_dst[1]);
    for (int i = 0; i < tn; i++)
        a2a_src[i] = 1000 * tme + i;
    shmem_team_sync(t);
    TEST_ASSERT(shmem_long_alltoall(t, a2a_dst, a2a_src, 1) == 0, "alltoall");
    snprintf(what, sizeof(what), "%s alltoall", name);
    for (int i = 0; i < tn; i++)
        TEST_CHECK(what, i, 1000 * i + tme, a2a_dst[i]);
    shmem_team_sync(t);
}

/* WORLD's barrier, broadcast and fcollect run the hierarchical
 * algorithms where the job has several nodes and a node of several mapped
 * PEs (auto's choice; tests/coll/coll checks the forced ones). */
static void check_hier(int direct)
{
    int big = 0;
    static const char *const kinds[] = { "barrier", "broadcast", "collect" };
    long before[3], after[3];

    for (int p = 0; p < n; p++)
        big |= node_idx[p] > 0;
    int want = direct && n_nodes > 1 && big;
    for (int k = 0; k < 3; k++)
        before[k] = shmemx_team_coll_count(SHMEM_TEAM_WORLD, kinds[k], "hier");
    shmem_barrier_all();
    bsrc[0] = 5;
    TEST_ASSERT(shmem_long_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, 1, 0) == 0, "broadcast");
    TEST_ASSERT(shmem_long_fcollect(SHMEM_TEAM_WORLD, bdst, bsrc, 1) == 0, "fcollect");
    shmem_barrier_all();
    for (int k = 0; k < 3; k++) {
        after[k] = shmemx_team_coll_count(SHMEM_TEAM_WORLD, kinds[k], "hier");
        TEST_ASSERT((after[k] > before[k]) == want, "WORLD %s: the hierarchical algorithm %s "
                    "(%d nodes, a node of several PEs: %s, direct path %s)", kinds[k],
                    after[k] > before[k] ? "ran" : "did not run", n_nodes, big ? "yes" : "no",
                    direct ? "on" : "off");
    }
    test_note("hierarchical collectives on WORLD: %s", want ? "ran" : "not expected, not run");
}

int main(void)
{
    test_init("topo");
    n = test_npes;
    me = test_me;
    if (n > MAXPE) {
        test_note("skipped: more than %d PEs", MAXPE);
        shmem_finalize();
        return TEST_SKIP;
    }
    int direct = env_long("FABSHMEM_DIRECT", 1) != 0;
    build_truth();
    check_teams(direct);
    check_mapping(direct);
    check_rma();
    check_coll(SHMEM_TEAM_WORLD, "WORLD");
    check_coll(SHMEMX_TEAM_NODE, "NODE");
    check_coll(SHMEMX_TEAM_SAME_MYPE_NODE, "SAME_MYPE_NODE");
    check_hier(direct);
    return test_finish();
}
