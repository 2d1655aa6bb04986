/*
 * Unit tests of the node map (src/nodemap.c): real hosts in any PE order,
 * virtual nodes of 1, 2 and 3 PEs, and virtual nodes larger than a host.
 */
#include "shmemi.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_host),
        cmocka_unit_test(test_hosts_interleaved),
        cmocka_unit_test(test_blocked_hosts),
        cmocka_unit_test(test_similar_names),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_many_pes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
