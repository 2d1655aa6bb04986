/*
 * Teams, every value checked on every PE: the predefined teams (WORLD,
 * SHARED, NODE, SAME_MYPE_NODE, SAME_NUMA, NUMA_LEADERS, and SAME_GPU and
 * GPU_LEADERS as they are without a GPU) and translation
 * between them; split_strided with positive, negative and zero strides and
 * bad arguments (nonzero return, SHMEM_TEAM_INVALID); split_2d with several
 * x ranges; a split of a split; get_config; a data exchange plus
 * shmem_team_sync on every new team (its slot works); 1000 create/destroy
 * cycles; 100 live teams at once; a team from any set of PEs made from a
 * unique id (shmemx_team_init); destroying a predefined team is refused.
 * The node map is checked against the host names and the launcher: NODE
 * and SHARED have the sizes that the host, FABSHMEM_PES_PER_NODE and
 * FABSHMEM_DIRECT call for.
 */
#include "common.h"
#include <shmemx.h>
#include <strings.h>
#include <unistd.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
#endif

static long *xbuf;

/* Bytes of the malloc heap in use (0 when unknown). */
static size_t malloc_in_use(void)
{
#ifdef HAVE_MALLINFO2
    return mallinfo2().uordblks;
#else
    return 0;
#endif
}

/* Each member puts its world PE into the next member's xbuf[0], syncs the
 * team, and checks what the previous member sent. */
static void exchange(shmem_team_t t, const char *what, int salt)
{
    int n = shmem_team_n_pes(t), me = shmem_team_my_pe(t);
    int next = shmem_team_translate_pe(t, (me + 1) % n, SHMEM_TEAM_WORLD);
    int prev = shmem_team_translate_pe(t, (me - 1 + n) % n, SHMEM_TEAM_WORLD);
    long v = test_me * 1000L + salt;

    shmem_team_sync(t);
    shmem_long_put(&xbuf[0], &v, 1, next);
    shmem_quiet();
    shmem_team_sync(t);
    TEST_CHECK(what, 0, prev * 1000L + salt, xbuf[0]);
    shmem_team_sync(t);
}

static void check_members(shmem_team_t t, const int *world, int n, const char *what)
{
    TEST_CHECK(what, 0, n, shmem_team_n_pes(t));
    int mine = -1;
    for (int i = 0; i < n; i++) {
        TEST_CHECK(what, i, world[i], shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD));
        TEST_CHECK(what, i, i, shmem_team_translate_pe(SHMEM_TEAM_WORLD, world[i], t));
        if (world[i] == test_me)
            mine = i;
    }
    TEST_CHECK(what, 0, mine, shmem_team_my_pe(t));
}

/* A boolean variable of the library's, as it parses them (unset: dflt). */
static int env_bool(const char *name, int dflt)
{
    const char *v = getenv(name);

    if (!v || !*v)
        return dflt;
    return !(!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "off") ||
             !strcasecmp(v, "false"));
}

/* The node map as the library must build it, from every PE's host name:
 * NODE holds the PEs of my host, cut in PE order into virtual nodes of
 * FABSHMEM_PES_PER_NODE; SHARED is NODE with the direct path and me alone
 * without.  Where Open MPI's launcher says how many ranks share my host
 * (the placement that PMIx reports as PMIX_LOCAL_PEERS), the host names
 * must agree with it. */
static void check_node_map(void)
{
    enum { HOSTLEN = 64 };
    char *all = shmem_malloc((size_t)test_npes * HOSTLEN), *mine = shmem_malloc(HOSTLEN);
    const char *ppn_s = getenv("FABSHMEM_PES_PER_NODE"), *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    long ppn = ppn_s && *ppn_s ? strtol(ppn_s, NULL, 10) : 0;
    int host_pes = 0, my_idx = -1, want_node, i;

    TEST_ASSERT(all && mine, "shmem_malloc of %d host names", test_npes);
    memset(mine, 0, HOSTLEN);
    gethostname(mine, HOSTLEN - 1);
    shmem_barrier_all();
    TEST_ASSERT(shmem_fcollectmem(SHMEM_TEAM_WORLD, all, mine, HOSTLEN) == 0, "fcollectmem");
    for (i = 0; i < test_npes; i++) {
        if (strncmp(all + (size_t)i * HOSTLEN, mine, HOSTLEN))
            continue;
        if (i == test_me)
            my_idx = host_pes;
        host_pes++;
    }
    if (local)
        TEST_CHECK("PEs on my host vs OMPI_COMM_WORLD_LOCAL_SIZE", 0, atoi(local), host_pes);
    want_node = host_pes;
    if (ppn > 0) {
        long first = my_idx / ppn * ppn;
        want_node = (int)(host_pes - first < ppn ? host_pes - first : ppn);
    }
    TEST_CHECK("NODE team size", 0, want_node, shmem_team_n_pes(SHMEMX_TEAM_NODE));
    for (i = 0; i < shmem_team_n_pes(SHMEMX_TEAM_NODE); i++) {
        int w = shmem_team_translate_pe(SHMEMX_TEAM_NODE, i, SHMEM_TEAM_WORLD), widx = 0, q;

        TEST_ASSERT(w >= 0 && !strncmp(all + (size_t)w * HOSTLEN, mine, HOSTLEN),
                    "NODE member %d (PE %d) is on another host", i, w);
        for (q = 0; q < w; q++)
            widx += !strncmp(all + (size_t)q * HOSTLEN, mine, HOSTLEN);
        TEST_ASSERT(ppn <= 0 || widx / ppn == my_idx / ppn,
                    "NODE member %d (PE %d) is on another virtual node", i, w);
    }
    TEST_CHECK("SHARED team size", 0, env_bool("FABSHMEM_DIRECT", 1) ? want_node : 1,
               shmem_team_n_pes(SHMEM_TEAM_SHARED));
    shmem_barrier_all();
    shmem_free(mine);
    shmem_free(all);
}

/* Active sets (the deprecated pSync collectives): pairs that shared an
 * internal slot under the old hash of (PE_start, logPE_stride, PE_size),
 * e.g. (1,0,3) and (3,0,3) at 6 PEs, and more at 8.  Phase 1 uses each set
 * in turn (a barrier_all between), phase 2 makes the first use of more
 * sets back to back with no global barrier (each with its own pSync and
 * buffers, so that the agreements of overlapping sets run at the same
 * time), phase 3 uses the sets of phase 1 again in reverse order.  Every
 * use checks a broadcast, an fcollect and a sum on every member. */
#define AS_MAX 32
static const int as_sets[][3] = {
    { 1, 0, 3 }, { 3, 0, 3 }, { 1, 1, 2 }, { 3, 1, 2 }, { 1, 0, 4 }, { 3, 0, 4 },
    { 1, 1, 3 }, { 3, 1, 3 }, { 1, 0, 5 }, { 3, 0, 5 }, { 2, 0, 3 }, { 4, 0, 3 },
    { 2, 0, 4 }, { 4, 0, 4 }, { 5, 0, 3 }, { 2, 1, 2 }, { 4, 1, 2 }, { 5, 1, 2 },
    { 0, 0, 2 }, { 1, 0, 2 },
    /* Phase 2: first used back to back. */
    { 0, 2, 2 }, { 1, 2, 2 }, { 0, 1, 3 }, { 2, 1, 3 }, { 1, 1, 4 }, { 4, 0, 2 },
    { 0, 0, 3 }, { 2, 0, 2 }, { 0, 1, 2 }, { 1, 0, 6 },
};
#define AS_PHASE2 20
static long as_psync[AS_MAX][4][SHMEM_REDUCE_SYNC_SIZE];
static long as_pwrk[AS_MAX][SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long as_bsrc[AS_MAX][2], as_bdst[AS_MAX][2], as_fsrc[AS_MAX], as_fdst[AS_MAX][64];
static long as_rsrc[AS_MAX], as_rdst[AS_MAX];

static int as_fits(int k)
{
    int start = as_sets[k][0], ls = as_sets[k][1], size = as_sets[k][2];

    return start + (size - 1) * (1 << ls) < test_npes &&
           !(start == 0 && ls == 0 && size == test_npes);
}

static void as_use(int k, int round)
{
    int start = as_sets[k][0], ls = as_sets[k][1], size = as_sets[k][2], me = test_me;
    int idx = (me - start) >> ls, root = round % size, i;
    long sum = 0;

    if (me < start || (me - start) % (1 << ls) || idx >= size)
        return;
    as_bsrc[k][0] = 1000L * k + 10L * round + idx;
    as_bsrc[k][1] = -as_bsrc[k][0];
    as_bdst[k][0] = as_bdst[k][1] = -1;
    as_fsrc[k] = 100L * me + round;
    as_rsrc[k] = me + 1 + round;
    shmem_broadcast64(as_bdst[k], as_bsrc[k], 2, root, start, ls, size, as_psync[k][0]);
    shmem_fcollect64(as_fdst[k], &as_fsrc[k], 1, start, ls, size, as_psync[k][1]);
    shmem_long_sum_to_all(&as_rdst[k], &as_rsrc[k], 1, start, ls, size, as_pwrk[k],
                          as_psync[k][2]);
    shmem_barrier(start, ls, size, as_psync[k][3]);
    if (idx != root) {
        TEST_CHECK("active set broadcast64", k, 1000L * k + 10L * round + root, as_bdst[k][0]);
        TEST_CHECK("active set broadcast64", k, -(1000L * k + 10L * round + root),
                   as_bdst[k][1]);
    }
    for (i = 0; i < size; i++) {
        int pe = start + (i << ls);
        TEST_CHECK("active set fcollect64", k * 100 + i, 100L * pe + round, as_fdst[k][i]);
        sum += pe + 1 + round;
    }
    TEST_CHECK("active set sum_to_all", k, sum, as_rdst[k]);
}

static void active_sets(void)
{
    int nsets = (int)(sizeof(as_sets) / sizeof(as_sets[0])), k;

    for (k = 0; k < AS_PHASE2; k++) {
        if (as_fits(k))
            as_use(k, 1);
        shmem_barrier_all();
    }
    for (k = AS_PHASE2; k < nsets; k++)
        if (as_fits(k))
            as_use(k, 2);
    shmem_barrier_all();
    for (k = AS_PHASE2 - 1; k >= 0; k--) {
        if (as_fits(k))
            as_use(k, 3 + k);
        shmem_barrier_all();
    }
}

/* The team slots run out between the two axes of a 2-D split: with every
 * free slot taken by world teams neither axis is made; with one slot free
 * (the same one on every PE) the x-axis team is made and works, the y-axis
 * team is SHMEM_TEAM_INVALID and the return is OUT_OF_MEMORY on every PE. */
static void split_2d_no_slot(void)
{
    static shmem_team_t fill[4096];
    int n = test_npes, me = test_me, X = n > 1 ? 2 : 1, nf, ret = 0, k, list[64];
    shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;

    for (nf = 0; nf < (int)(sizeof(fill) / sizeof(fill[0])); nf++)
        if ((ret = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &fill[nf])))
            break;
    TEST_CHECK("filling the team slots ends in OUT_OF_MEMORY", 0, SHMEMX_ERROR_OUT_OF_MEMORY,
               ret);
    TEST_ASSERT(nf > 0, "no world team could be made before the slots ran out");
    ret = shmem_team_split_2d(SHMEM_TEAM_WORLD, X, NULL, 0, &x, NULL, 0, &y);
    TEST_CHECK("split_2d without a free slot", 0, SHMEMX_ERROR_OUT_OF_MEMORY, ret);
    TEST_ASSERT(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID,
                "split_2d without a free slot made a team");
    shmem_team_destroy(fill[--nf]);
    x = y = SHMEM_TEAM_WORLD;
    ret = shmem_team_split_2d(SHMEM_TEAM_WORLD, X, NULL, 0, &x, NULL, 0, &y);
    TEST_CHECK("split_2d with one free slot", 0, SHMEMX_ERROR_OUT_OF_MEMORY, ret);
    TEST_ASSERT(y == SHMEM_TEAM_INVALID, "split_2d with one free slot made a y-axis team");
    TEST_ASSERT(x != SHMEM_TEAM_INVALID, "split_2d threw away the x-axis team it could make");
    for (k = 0; (me / X) * X + k < n && k < X; k++)
        list[k] = (me / X) * X + k;
    check_members(x, list, k, "2-D x axis made before the slots ran out");
    exchange(x, "exchange x (y failed)", 10);
    shmem_team_destroy(x);
    while (nf > 0)
        shmem_team_destroy(fill[--nf]);
}

/* Teams from unique ids (shmemx_team_init), every value checked on every
 * PE: the odd PEs in reverse order from PE 0's id, six times; the whole
 * job in reverse order (run.sh also runs "team uid", this part alone, at
 * 32 PEs with FABSHMEM_TEAMS_MAX=4096, where the old registry held 30
 * members); then PE 0 makes ids until they run out (OUT_OF_MEMORY after
 * FABSHMEM_TEAM_UIDS, where the old registry allowed 4 in use), every PE
 * joins a team from each of them, all alive at once, and once those are
 * complete PE 0 can make ids again. */
#define UID_MAX 4096
static shmemx_team_uniqueid_t uids[UID_MAX + 1];
static int uids_n;

static void uid_teams(void)
{
    static shmem_team_t ut[UID_MAX];
    const char *env = getenv("FABSHMEM_TEAM_UIDS");
    int n = test_npes, me = test_me, nodd = n / 2, k, j, ret = 0, list[64];
    shmem_team_t t;

    /* (An id that no PE uses stays held: no rounds without odd PEs.) */
    for (int round = 0; round < 6 && nodd > 0; round++) {
        if (me == 0)
            TEST_ASSERT(shmemx_team_get_uniqueid(&uids[0]) == 0, "get_uniqueid");
        shmem_barrier_all();
        if (me != 0)
            shmem_getmem(&uids[0], &uids[0], sizeof(uids[0]), 0);
        shmem_barrier_all();
        if (me % 2 == 1) {
            int idx = nodd - 1 - me / 2;
            TEST_ASSERT(shmemx_team_init(&t, NULL, 0, nodd, idx, &uids[0]) == 0, "team_init");
            for (k = 0; k < nodd; k++)
                list[k] = 2 * (nodd - 1 - k) + 1;
            check_members(t, list, nodd, "team from a unique id");
            exchange(t, "exchange uid team", round);
            shmem_team_destroy(t);
        }
        shmem_barrier_all();
    }

    /* The whole job, in reverse order, from the last PE's id. */
    if (me == n - 1)
        TEST_ASSERT(shmemx_team_get_uniqueid(&uids[0]) == 0, "get_uniqueid");
    shmem_barrier_all();
    if (me != n - 1)
        shmem_getmem(&uids[0], &uids[0], sizeof(uids[0]), n - 1);
    TEST_ASSERT(shmemx_team_init(&t, NULL, 0, n, n - 1 - me, &uids[0]) == 0,
                "team_init of all %d PEs", n);
    for (k = 0; k < n && k < 64; k++)
        list[k] = n - 1 - k;
    if (n <= 64)
        check_members(t, list, n, "team of the whole job from a unique id");
    TEST_CHECK("team of the whole job: my_pe", 0, n - 1 - me, shmem_team_my_pe(t));
    exchange(t, "exchange whole-job uid team", 11);
    shmem_team_destroy(t);
    shmem_barrier_all();

    /* Ids until they run out, all in use at once. */
    if (me == 0) {
        for (uids_n = 0; uids_n <= UID_MAX; uids_n++)
            if ((ret = shmemx_team_get_uniqueid(&uids[uids_n])))
                break;
        TEST_CHECK("making ids until they run out", 0, SHMEMX_ERROR_OUT_OF_MEMORY, ret);
    }
    shmem_barrier_all();
    if (me != 0) {
        uids_n = shmem_int_g(&uids_n, 0);
        shmem_getmem(uids, uids, sizeof(uids[0]) * (size_t)uids_n, 0);
    }
    TEST_CHECK("ids in use at once", 0, env && *env ? atoi(env) : 64, uids_n);
    for (j = 0; j < uids_n; j++) {
        int idx = (me + j) % n;
        TEST_ASSERT(shmemx_team_init(&ut[j], NULL, 0, n, idx, &uids[j]) == 0,
                    "team_init of id %d of %d in use", j, uids_n);
        TEST_CHECK("team from one of many ids: my_pe", j, idx, shmem_team_my_pe(ut[j]));
        TEST_CHECK("team from one of many ids: PE of index 0", j, (n - j % n) % n,
                   shmem_team_translate_pe(ut[j], 0, SHMEM_TEAM_WORLD));
    }
    exchange(ut[0], "exchange first of many uid teams", 12);
    exchange(ut[uids_n - 1], "exchange last of many uid teams", 13);
    for (j = 0; j < uids_n; j++)
        shmem_team_destroy(ut[j]);
    shmem_barrier_all();
    if (me == 0) {
        TEST_ASSERT(shmemx_team_get_uniqueid(&uids[0]) == 0,
                    "no id could be made after the teams of all ids were complete");
        /* Used, so that it does not stay held. */
    }
    shmem_barrier_all();
    if (me != 0)
        shmem_getmem(&uids[0], &uids[0], sizeof(uids[0]), 0);
    TEST_ASSERT(shmemx_team_init(&t, NULL, 0, n, me, &uids[0]) == 0, "team_init after reuse");
    exchange(t, "exchange uid team after reuse", 14);
    shmem_team_destroy(t);
    shmem_barrier_all();
}

/* The NUMA teams.  SAME_NUMA lies within NODE and holds me; NUMA_LEADERS
 * holds PE 0.  With FABSHMEM_NUMA_DOMAINS=k the domains are known
 * (node-local rank r of s PEs is in domain r * k / s): SAME_NUMA must hold
 * exactly the PEs of my node and domain, NUMA_LEADERS exactly the first PE
 * of each (node, domain), in PE order, and a sum over each checks that
 * their collectives work. */
static void check_numa(void)
{
    const char *e = getenv("FABSHMEM_NUMA_DOMAINS");
    long k = e && *e ? atol(e) : 0;
    int n = test_npes, me = test_me, nn = shmem_team_n_pes(SHMEMX_TEAM_NODE);
    int r = shmem_team_my_pe(SHMEMX_TEAM_NODE), sn = shmem_team_n_pes(SHMEMX_TEAM_SAME_NUMA);
    int list[64], c = 0, i, *lead = shmem_malloc(sizeof(int) * (size_t)n),
        *mine = shmem_malloc(sizeof(int));
    long *src = shmem_malloc(sizeof(long)), *dst = shmem_malloc(sizeof(long)), sum = 0;

    TEST_ASSERT(lead && mine && src && dst, "shmem_malloc");
    TEST_ASSERT(sn >= 1 && sn <= nn && shmem_team_my_pe(SHMEMX_TEAM_SAME_NUMA) >= 0,
                "same-NUMA team of %d on a node of %d", sn, nn);
    for (i = 0; i < sn; i++)
        TEST_ASSERT(shmem_team_translate_pe(SHMEMX_TEAM_SAME_NUMA, i, SHMEMX_TEAM_NODE) >= 0,
                    "same-NUMA member %d is not on my node", i);
    TEST_CHECK("PE 0 leads", 0, 0, shmem_team_translate_pe(SHMEMX_TEAM_NUMA_LEADERS, 0,
                                                             SHMEM_TEAM_WORLD));
    if (k <= 0 || n > 64)
        goto out;
    /* My domain's PEs, in PE order; am I the first of my domain? */
    for (i = 0; i < nn; i++)
        if ((long)i * k / nn == (long)r * k / nn)
            list[c++] = shmem_team_translate_pe(SHMEMX_TEAM_NODE, i, SHMEM_TEAM_WORLD);
    check_members(SHMEMX_TEAM_SAME_NUMA, list, c, "SAME_NUMA with FABSHMEM_NUMA_DOMAINS");
    *mine = r == 0 || (long)(r - 1) * k / nn != (long)r * k / nn;
    shmem_barrier_all();
    TEST_ASSERT(shmem_fcollectmem(SHMEM_TEAM_WORLD, lead, mine, sizeof(int)) == 0, "fcollect");
    for (c = 0, i = 0; i < n; i++)
        if (lead[i])
            list[c++] = i;
    TEST_CHECK("NUMA_LEADERS size with FABSHMEM_NUMA_DOMAINS", 0, c,
               shmem_team_n_pes(SHMEMX_TEAM_NUMA_LEADERS));
    if (*mine) {
        check_members(SHMEMX_TEAM_NUMA_LEADERS, list, c, "NUMA_LEADERS with FABSHMEM_NUMA_DOMAINS");
        *src = me + 1;
        for (sum = 0, i = 0; i < c; i++)
            sum += list[i] + 1;
        TEST_ASSERT(shmem_long_sum_reduce(SHMEMX_TEAM_NUMA_LEADERS, dst, src, 1) == 0, "sum");
        TEST_CHECK("sum over NUMA_LEADERS", 0, sum, *dst);
    } else {
        TEST_CHECK("NUMA_LEADERS my_pe of a PE that does not lead", 0, -1,
                   shmem_team_my_pe(SHMEMX_TEAM_NUMA_LEADERS));
        TEST_CHECK("NUMA_LEADERS translation of a PE that does not lead", 0, -1,
                   shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, SHMEMX_TEAM_NUMA_LEADERS));
    }
    *src = 10L * (me + 1);
    for (sum = 0, i = 0; i < sn; i++)
        sum += 10L * (shmem_team_translate_pe(SHMEMX_TEAM_SAME_NUMA, i, SHMEM_TEAM_WORLD) + 1);
    TEST_ASSERT(shmem_long_sum_reduce(SHMEMX_TEAM_SAME_NUMA, dst, src, 1) == 0, "sum");
    TEST_CHECK("sum over SAME_NUMA", 0, sum, *dst);
out:
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    shmem_free(mine);
    shmem_free(lead);
}

/* The GPU teams of a PE without a device heap (a CPU program: no GPU
 * brought up): SAME_GPU is the PE alone and every PE leads its own
 * (docs/gpu.md); tests/gpu/gpu_heap checks them with GPUs. */
static void check_gpu_teams(void)
{
    int i;

    if (shmemx_cuda_device() >= 0)
        return;
    TEST_CHECK("SAME_GPU size without a GPU", 0, 1, shmem_team_n_pes(SHMEMX_TEAM_SAME_GPU));
    TEST_CHECK("SAME_GPU my_pe without a GPU", 0, 0, shmem_team_my_pe(SHMEMX_TEAM_SAME_GPU));
    TEST_CHECK("SAME_GPU member without a GPU", 0, test_me,
               shmem_team_translate_pe(SHMEMX_TEAM_SAME_GPU, 0, SHMEM_TEAM_WORLD));
    TEST_CHECK("GPU_LEADERS size without a GPU", 0, test_npes,
               shmem_team_n_pes(SHMEMX_TEAM_GPU_LEADERS));
    for (i = 0; i < test_npes; i++)
        TEST_CHECK("GPU_LEADERS member without a GPU", i, i,
                   shmem_team_translate_pe(SHMEMX_TEAM_GPU_LEADERS, i, SHMEM_TEAM_WORLD));
    exchange(SHMEMX_TEAM_GPU_LEADERS, "exchange gpu-leaders", 6);
}

int main(int argc, char **argv)
{
    int me, n, list[64], k;
    shmem_team_t t, t2, x, y;
    shmem_team_config_t cfg = { .num_contexts = 3 }, got = { 0 };

    test_init("team");
    xbuf = shmem_calloc(4, sizeof(long));
    if (argc > 1 && !strcmp(argv[1], "uid")) {
        /* Only the teams from unique ids (run.sh: at 32 PEs). */
        uid_teams();
        shmem_free(xbuf);
        return test_finish();
    }
    me = test_me;
    n = test_npes;

    /* Predefined teams. */
    TEST_CHECK("world my_pe", 0, me, shmem_team_my_pe(SHMEM_TEAM_WORLD));
    TEST_CHECK("world n_pes", 0, n, shmem_team_n_pes(SHMEM_TEAM_WORLD));
    TEST_CHECK("invalid my_pe", 0, -1, shmem_team_my_pe(SHMEM_TEAM_INVALID));
    TEST_CHECK("invalid n_pes", 0, -1, shmem_team_n_pes(SHMEM_TEAM_INVALID));
    TEST_CHECK("translate to invalid", 0, -1,
               shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID));
    TEST_CHECK("translate out of range", 0, -1,
               shmem_team_translate_pe(SHMEM_TEAM_WORLD, n, SHMEM_TEAM_WORLD));
    {
        /* NODE: the PEs whose heap I map when the direct path is on and
         * the nodes are real; in any case consistent with SAME_MYPE_NODE. */
        int nn = shmem_team_n_pes(SHMEMX_TEAM_NODE), nme = shmem_team_my_pe(SHMEMX_TEAM_NODE);
        TEST_ASSERT(nn >= 1 && nme >= 0 && nme < nn, "node team: %d of %d", nme, nn);
        int sm = shmem_team_n_pes(SHMEMX_TEAM_SAME_MYPE_NODE);
        TEST_ASSERT(sm >= 1 && sm <= n, "same-mype team of %d", sm);
        for (int i = 0; i < sm; i++) {
            int w = shmem_team_translate_pe(SHMEMX_TEAM_SAME_MYPE_NODE, i, SHMEM_TEAM_WORLD);
            TEST_ASSERT(w >= 0 && (w == me || shmem_team_translate_pe(SHMEM_TEAM_WORLD, w,
                                                                     SHMEMX_TEAM_NODE) < 0),
                        "same-mype member %d (PE %d) is on my node", i, w);
        }
        for (int i = 0; i < shmem_team_n_pes(SHMEM_TEAM_SHARED); i++) {
            int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
            TEST_ASSERT(shmem_ptr(xbuf, w) != NULL, "SHARED member PE %d is not mapped", w);
        }
        check_numa();
        exchange(SHMEMX_TEAM_NODE, "exchange node", 1);
        exchange(SHMEMX_TEAM_SAME_MYPE_NODE, "exchange same-mype", 2);
        exchange(SHMEMX_TEAM_SAME_NUMA, "exchange same-numa", 3);
        if (shmem_team_my_pe(SHMEMX_TEAM_NUMA_LEADERS) >= 0)
            exchange(SHMEMX_TEAM_NUMA_LEADERS, "exchange numa-leaders", 4);
        check_gpu_teams();
    }
    shmem_barrier_all();
    check_node_map();

    /* split_strided: even PEs, with a configuration. */
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &cfg,
                                         SHMEM_TEAM_NUM_CONTEXTS, &t) == 0, "split even");
    for (k = 0; k < (n + 1) / 2; k++)
        list[k] = 2 * k;
    if (me % 2 == 0) {
        check_members(t, list, k, "even team");
        TEST_ASSERT(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                    got.num_contexts == 3, "get_config: num_contexts %d", got.num_contexts);
        exchange(t, "exchange even", 5);
        /* A split of the split: every other even PE, backwards. */
        int sz = shmem_team_n_pes(t);
        int last = (sz - 1) - (sz - 1) % 2;
        TEST_ASSERT(shmem_team_split_strided(t, last, -2, last / 2 + 1, NULL, 0, &t2) == 0,
                    "split of split");
        if (shmem_team_my_pe(t) % 2 == 0) {
            for (k = 0; k <= last / 2; k++)
                list[k] = 2 * (last - 2 * k);
            check_members(t2, list, k, "split of split (negative stride)");
            exchange(t2, "exchange split of split", 6);
            shmem_team_destroy(t2);
        } else {
            TEST_ASSERT(t2 == SHMEM_TEAM_INVALID, "non-member of the split of split");
        }
        shmem_team_destroy(t);
    } else {
        TEST_ASSERT(t == SHMEM_TEAM_INVALID, "odd PE got a valid even team");
    }
    shmem_barrier_all();

    /* Stride 0 with size 1: a team of PE n-1 alone. */
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 0, 1, NULL, 0, &t) == 0,
                "stride 0 size 1");
    TEST_ASSERT((me == n - 1) == (t != SHMEM_TEAM_INVALID), "stride-0 membership");
    if (t != SHMEM_TEAM_INVALID) {
        TEST_CHECK("single team size", 0, 1, shmem_team_n_pes(t));
        exchange(t, "exchange single", 7);
        shmem_team_destroy(t);
    }
    /* Bad arguments: nonzero on every PE, no team. */
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0, &t) ==
                    SHMEMX_ERROR_INVALID_VALUE &&
                t == SHMEM_TEAM_INVALID, "size past the parent accepted");
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, -1, 1, 1, NULL, 0, &t) ==
                    SHMEMX_ERROR_INVALID_VALUE,
                "negative start accepted");
    if (n > 1)
        TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &t) ==
                        SHMEMX_ERROR_INVALID_VALUE,
                    "stride 0 with size 2 accepted");
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) ==
                    SHMEMX_ERROR_INVALID_VALUE,
                "invalid parent accepted");
    shmem_barrier_all();

    /* split_2d over several x ranges. */
    int xr[] = { 1, 2, 3, n + 2 };
    for (size_t r = 0; r < sizeof(xr) / sizeof(xr[0]); r++) {
        int X = xr[r] > n ? n : xr[r];
        TEST_ASSERT(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr[r], NULL, 0, &x, NULL, 0, &y) == 0,
                    "split_2d xrange %d", xr[r]);
        int row = me / X, col = me % X;
        for (k = 0; row * X + k < n && k < X; k++)
            list[k] = row * X + k;
        check_members(x, list, k, "2-D x axis");
        for (k = 0; col + k * X < n; k++)
            list[k] = col + k * X;
        check_members(y, list, k, "2-D y axis");
        exchange(x, "exchange x", 8);
        exchange(y, "exchange y", 9);
        shmem_team_destroy(x);
        shmem_team_destroy(y);
    }
    shmem_barrier_all();

    /* xrange 0 (nonnegative, as OpenSHMEM 1.6 allows): a grid without
     * columns, so no team and a nonzero return; a negative xrange is a bad
     * argument. */
    x = y = SHMEM_TEAM_WORLD;
    TEST_ASSERT(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0 &&
                    x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID,
                "split_2d with xrange 0 made a team or returned 0");
    x = y = SHMEM_TEAM_WORLD;
    TEST_ASSERT(shmem_team_split_2d(SHMEM_TEAM_WORLD, -1, NULL, 0, &x, NULL, 0, &y) ==
                    SHMEMX_ERROR_INVALID_VALUE && x == SHMEM_TEAM_INVALID &&
                    y == SHMEM_TEAM_INVALID,
                "split_2d with xrange -1 was not refused");
    split_2d_no_slot();
    shmem_barrier_all();
    active_sets();

    /* Create/destroy cycles, then many live teams. */
    const char *prov = getenv("FABSHMEM_PROVIDER");
    int cycles = prov && !strcmp(prov, "sockets") ? 50 : 3000;
    size_t heap_warm = 0;
    for (int c = 0; c < cycles; c++) {
        TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t) == 0,
                    "cycle %d", c);
        if (c % 100 == 0)
            exchange(t, "exchange cycle", c);
        shmem_team_destroy(t);
        if (c == 99)
            heap_warm = malloc_in_use();
    }
    /* No leak per cycle: the malloc heap in use after the last cycle is
     * within 64 KiB of what it was after the first hundred (a leak of 24
     * bytes a cycle would show; 0 where mallinfo2 says nothing, as under
     * ASan, whose LeakSanitizer checks instead). */
    if (cycles > 100 && heap_warm) {
        size_t heap_end = malloc_in_use();
        TEST_ASSERT(heap_end <= heap_warm + 65536,
                    "%d team create/destroy cycles leak: %zu bytes in use after 100, %zu after "
                    "%d", cycles, heap_warm, heap_end, cycles);
    }
    static shmem_team_t live[100];
    int nlive = prov && !strcmp(prov, "sockets") ? 10 : 100;
    for (int c = 0; c < nlive; c++)
        TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, c % n, 1, 1 + (n - 1 - c % n),
                                             NULL, 0, &live[c]) == 0, "live team %d", c);
    for (int c = nlive - 1; c >= 0; c--) {
        if (live[c] != SHMEM_TEAM_INVALID) {
            exchange(live[c], "exchange live", c);
            shmem_team_destroy(live[c]);
        }
    }
    shmem_barrier_all();

    uid_teams();
    shmem_free(xbuf);
    return test_finish();
}
