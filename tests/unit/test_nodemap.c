/*
 * Unit tests of the node map (src/core/nodemap.c): real hosts in any PE order,
 * virtual nodes of 1, 2 and 3 PEs, and virtual nodes larger than a host;
 * the PMIX_LOCAL_PEERS string (pmix/peers.c), the node id a PE derives
 * from it, the check of every PE's id, and that PMIx node ids cut into
 * virtual nodes exactly as the host names do.
 */
#include "core/shmemi.h"
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#define IDLEN 16

/* Builds the host identities of hosts[] the way init does: fixed-size,
 * zero-padded buffers. */
static char *make_ids(const char *const *hosts, int n)
{
    char *ids = calloc((size_t)n, IDLEN);
    int i;

    assert_non_null(ids);
    for (i = 0; i < n; i++)
        strncpy(ids + (size_t)i * IDLEN, hosts[i], IDLEN - 1);
    return ids;
}

static void check_map(const char *const *hosts, int n, long k, int want_nodes, const int *want)
{
    char *ids = make_ids(hosts, n);
    int *node_of = malloc((size_t)n * sizeof(int)), i, got;

    assert_non_null(node_of);
    got = shmemi_nodemap_build(ids, IDLEN, n, k, node_of);
    assert_int_equal(got, want_nodes);
    for (i = 0; i < n; i++)
        if (node_of[i] != want[i])
            fail_msg("k=%ld: PE %d is on node %d, expected %d", k, i, node_of[i], want[i]);
    free(ids);
    free(node_of);
}

static void test_one_host(void **state)
{
    static const char *const h[] = { "a", "a", "a", "a", "a" };
    static const int w0[] = { 0, 0, 0, 0, 0 };
    static const int w1[] = { 0, 1, 2, 3, 4 };
    static const int w2[] = { 0, 0, 1, 1, 2 };
    static const int w3[] = { 0, 0, 0, 1, 1 };

    check_map(h, 5, 0, 1, w0);
    check_map(h, 5, 1, 5, w1);
    check_map(h, 5, 2, 3, w2);
    check_map(h, 5, 3, 2, w3);
    check_map(h, 5, 5, 1, w0);
    check_map(h, 5, 100, 1, w0);
    check_map(h, 1, 0, 1, w0);
    check_map(h, 1, 4, 1, w0);
}

static void test_hosts_interleaved(void **state)
{
    static const char *const h[] = { "nodeB", "nodeA", "nodeB", "nodeA", "nodeC", "nodeB",
                                     "nodeA", "nodeB" };
    /* Hosts are numbered by first appearance: nodeB 0, nodeA 1, nodeC 2. */
    static const int w0[] = { 0, 1, 0, 1, 2, 0, 1, 0 };
    static const int w1[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    /* nodeB: PEs 0 2 5 7 -> {0,2} {5,7}; nodeA: 1 3 6 -> {1,3} {6};
     * nodeC: 4 -> {4}.  Numbered by each chunk's first PE. */
    static const int w2[] = { 0, 1, 0, 1, 2, 3, 4, 3 };
    /* nodeB: {0,2,5} {7}; nodeA: {1,3,6}; nodeC: {4}. */
    static const int w3[] = { 0, 1, 0, 1, 2, 0, 1, 3 };

    check_map(h, 8, 0, 3, w0);
    check_map(h, 8, 1, 8, w1);
    check_map(h, 8, 2, 5, w2);
    check_map(h, 8, 3, 4, w3);
    /* k larger than every host: the same as the real hosts. */
    check_map(h, 8, 4, 3, w0);
    check_map(h, 8, 64, 3, w0);
}

static void test_blocked_hosts(void **state)
{
    static const char *const h[] = { "x", "x", "x", "y", "y", "y", "z", "z" };
    static const int w0[] = { 0, 0, 0, 1, 1, 1, 2, 2 };
    static const int w2[] = { 0, 0, 1, 2, 2, 3, 4, 4 };
    static const int w3[] = { 0, 0, 0, 1, 1, 1, 2, 2 };

    check_map(h, 8, 0, 3, w0);
    check_map(h, 8, 2, 5, w2);
    check_map(h, 8, 3, 3, w3);
}

static void test_similar_names(void **state)
{
    /* Prefixes and case differences are different hosts. */
    static const char *const h[] = { "node1", "node10", "node1", "Node1", "node10", "" };
    static const int w0[] = { 0, 1, 0, 2, 1, 3 };

    check_map(h, 6, 0, 4, w0);
}

static void test_bad_args(void **state)
{
    char ids[2 * IDLEN] = "a";
    int node_of[2];

    assert_int_equal(shmemi_nodemap_build(ids, IDLEN, 0, 0, node_of), -EINVAL);
    assert_int_equal(shmemi_nodemap_build(ids, IDLEN, -1, 0, node_of), -EINVAL);
    assert_int_equal(shmemi_nodemap_build(ids, IDLEN, 2, -1, node_of), -EINVAL);
    assert_int_equal(shmemi_nodemap_build(NULL, IDLEN, 2, 0, node_of), -EINVAL);
}

static void test_many_pes(void **state)
{
    enum { N = 20000, HOSTS = 97 };
    char *ids = calloc(N, IDLEN);
    int *node_of = malloc(N * sizeof(int));
    int pe, n, h, chunks = 0;

    assert_non_null(ids);
    assert_non_null(node_of);
    /* Round robin over the hosts: PE pe is on host pe % HOSTS. */
    for (pe = 0; pe < N; pe++)
        snprintf(ids + (size_t)pe * IDLEN, IDLEN, "host%03d", pe % HOSTS);
    n = shmemi_nodemap_build(ids, IDLEN, N, 0, node_of);
    assert_int_equal(n, HOSTS);
    for (pe = 0; pe < N; pe++)
        assert_int_equal(node_of[pe], pe % HOSTS);

    /* Virtual nodes of 8: PE pe is the (pe / HOSTS)-th PE of its host. */
    n = shmemi_nodemap_build(ids, IDLEN, N, 8, node_of);
    for (h = 0; h < HOSTS; h++)
        chunks += (N / HOSTS + (h < N % HOSTS) + 7) / 8;
    assert_int_equal(n, chunks);
    for (pe = 0; pe < N; pe++) {
        int other = pe + 8 * HOSTS;
        /* The PE 8 places further on the same host is on the next chunk. */
        if (other < N)
            assert_true(node_of[other] > node_of[pe]);
        if (pe + HOSTS < N && (pe / HOSTS) % 8 != 7)
            assert_int_equal(node_of[pe + HOSTS], node_of[pe]);
    }
    free(ids);
    free(node_of);
}

/* Parses s with nranks ranks and room for max; returns the parser's status
 * and, on success, checks the ranks against want[nwant]. */
static int parse(const char *s, int nranks, int max, const int *want, int nwant)
{
    int ranks[16], n = -7, ret, i;

    assert_true(max <= 16);
    ret = shmemb_peers_parse(s, nranks, ranks, max, &n);
    if (ret) {
        if (n != -7)
            fail_msg("\"%s\": *n_p written on failure", s);
        return ret;
    }
    if (n != nwant)
        fail_msg("\"%s\": %d ranks, expected %d", s, n, nwant);
    for (i = 0; i < n; i++)
        if (ranks[i] != want[i])
            fail_msg("\"%s\": rank %d is %d, expected %d", s, i, ranks[i], want[i]);
    return 0;
}

static void test_peers_parse(void **state)
{
    static const int w0123[] = { 0, 1, 2, 3 }, w5[] = { 5 }, w312[] = { 3, 1, 2 };
    static const char *const bad[] = { "", " ", ",", "0,", ",0", "0,,1", "0, ,1", "0-3",
                                       "-1", "+1", "a", "0x1", "1 2", "1;2", "1,2,", "0,1\n,x",
                                       "1.0", "99999999999999999999999", "8", "0,8" };
    size_t i;

    assert_int_equal(parse("0,1,2,3", 8, 16, w0123, 4), 0);
    assert_int_equal(parse(" 0 ,1,\t2 , 3\n", 8, 16, w0123, 4), 0);
    assert_int_equal(parse("5", 8, 16, w5, 1), 0);
    assert_int_equal(parse("3,1,2", 4, 3, w312, 3), 0);
    assert_int_equal(parse("007", 8, 16, (const int[]){ 7 }, 1), 0);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (parse(bad[i], 8, 16, NULL, 0) != -EINVAL)
            fail_msg("\"%s\" accepted", bad[i]);
    /* More entries than room (only possible with repeats). */
    assert_int_equal(parse("0,1,2,3", 8, 3, NULL, 0), -ENOSPC);
    assert_int_equal(parse("1,1", 2, 1, NULL, 0), -ENOSPC);
    assert_int_equal(parse(NULL, 8, 16, NULL, 0), -EINVAL);
    assert_int_equal(parse("0", 0, 16, NULL, 0), -EINVAL);
}

static void test_local_id(void **state)
{
    static const int p1[] = { 2, 0, 1 }, p2[] = { 3 }, p3[] = { 4, 6, 5 }, dup[] = { 1, 2, 1 },
                     out[] = { 1, 9 }, neg[] = { -1, 1 };
    int id = -7;

    assert_int_equal(shmemi_nodemap_local_id(p1, 3, 1, 3, &id), 0);
    assert_int_equal(id, 0);
    assert_int_equal(shmemi_nodemap_local_id(p2, 1, 3, 4, &id), 0);
    assert_int_equal(id, 3);
    assert_int_equal(shmemi_nodemap_local_id(p3, 3, 6, 8, &id), 0);
    assert_int_equal(id, 4);
    id = -7;
    /* Without this PE, with a repeat, out of range, empty. */
    assert_int_equal(shmemi_nodemap_local_id(p1, 3, 3, 4, &id), -EINVAL);
    assert_int_equal(shmemi_nodemap_local_id(dup, 3, 1, 4, &id), -EINVAL);
    assert_int_equal(shmemi_nodemap_local_id(out, 2, 1, 4, &id), -EINVAL);
    assert_int_equal(shmemi_nodemap_local_id(neg, 2, 1, 4, &id), -EINVAL);
    assert_int_equal(shmemi_nodemap_local_id(p1, 0, 1, 4, &id), -EINVAL);
    assert_int_equal(shmemi_nodemap_local_id(p1, 3, 4, 4, &id), -EINVAL);
    assert_int_equal(id, -7);
}

static void test_ids_check(void **state)
{
    /* Nodes {0,1,4} and {2,3}. */
    static const int id[] = { 0, 0, 2, 2, 0 }, size[] = { 3, 3, 2, 2, 3 };
    static const int missing[] = { 0, 0, -1, 2, 0 };
    static const int higher[] = { 1, 1, 2, 2, 1 };     /* PE 0 names PE 1 */
    static const int unnamed[] = { 0, 0, 1, 1, 0 };    /* PE 1 does not name itself */
    static const int size_bad[] = { 3, 3, 2, 2, 2 };   /* PE 4 saw 2 local peers */
    static const int one[] = { 0 }, one_size[] = { 1 };

    assert_int_equal(shmemi_nodemap_ids_check(id, size, 5), 0);
    assert_int_equal(shmemi_nodemap_ids_check(one, one_size, 1), 0);
    assert_int_equal(shmemi_nodemap_ids_check(missing, size, 5), -ENOENT);
    assert_int_equal(shmemi_nodemap_ids_check(higher, size, 5), -EPROTO);
    assert_int_equal(shmemi_nodemap_ids_check(unnamed, size, 5), -EPROTO);
    assert_int_equal(shmemi_nodemap_ids_check(id, size_bad, 5), -EPROTO);
    assert_int_equal(shmemi_nodemap_ids_check(NULL, size, 5), -EINVAL);
    assert_int_equal(shmemi_nodemap_ids_check(id, size, 0), -EINVAL);
}

/* The PMIx node ids (lowest PE of each host, as sizeof(int)-byte
 * identities) give the same map as the host names, virtual nodes included,
 * which is what lets init use either. */
static void test_pmix_ids_match_hosts(void **state)
{
    static const char *const h[] = { "nodeB", "nodeA", "nodeB", "nodeA", "nodeC", "nodeB",
                                     "nodeA", "nodeB" };
    enum { N = 8 };
    char *ids = make_ids(h, N);
    int pmix_id[N], size[N], by_host[N], by_pmix[N], pe, q, k;

    for (pe = 0; pe < N; pe++) {
        int peers[N], n = 0;

        for (q = 0; q < N; q++)
            if (!strcmp(h[q], h[pe]))
                peers[n++] = q;
        assert_int_equal(shmemi_nodemap_local_id(peers, n, pe, N, &pmix_id[pe]), 0);
        size[pe] = n;
    }
    assert_int_equal(shmemi_nodemap_ids_check(pmix_id, size, N), 0);
    for (k = 0; k <= 4; k++) {
        int a = shmemi_nodemap_build(ids, IDLEN, N, k, by_host);
        int b = shmemi_nodemap_build((const char *)pmix_id, sizeof(int), N, k, by_pmix);

        assert_int_equal(a, b);
        for (pe = 0; pe < N; pe++)
            if (by_host[pe] != by_pmix[pe])
                fail_msg("k=%d: PE %d on node %d by host, %d by PMIx", k, pe, by_host[pe],
                         by_pmix[pe]);
    }
    free(ids);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_host),
        cmocka_unit_test(test_hosts_interleaved),
        cmocka_unit_test(test_blocked_hosts),
        cmocka_unit_test(test_similar_names),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_many_pes),
        cmocka_unit_test(test_peers_parse),
        cmocka_unit_test(test_local_id),
        cmocka_unit_test(test_ids_check),
        cmocka_unit_test(test_pmix_ids_match_hosts),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
