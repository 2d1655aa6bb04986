/*
 * Unit tests of the communication schedules of src/team/team_sched.h, which
 * the barriers, the small allreduce and the collectives follow: each is
 * simulated for every member of teams of 1 to NMAX members (every root for
 * the trees), without a PE, and must deliver everything to everybody with
 * one writer per word and round.
 *
 *  - dissemination: to and from agree, each round is a permutation, and
 *    after ceil(log2 n) rounds every member has heard from every member;
 *  - recursive doubling (powers of two): partners pair up, each holds its
 *    aligned group before a round, all hold all after;
 *  - Bruck's: a member holds the cyclic run of blocks from itself before
 *    each round, sends the first min(d, n - d), which continue the
 *    receiver's run; all hold all after;
 *  - the ring: the allgather forwards only what a member holds; rsag's
 *    reduce-scatter gives member i the block i + 1 reduced over all, each
 *    contribution once, and its allgather then gives everybody every block;
 *  - the binomial tree and the linear broadcast: one root, one parent per
 *    other member, parent and children agree, every member reached, at
 *    most 64 children;
 *  - pairwise: every ordered pair exactly once.
 */
#include "team/team_sched.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define NMAX 130

/* have[i * n + j]: member i holds (knows of) j. */
static unsigned char *have, *next;

static void sets_reset(int n)
{
    memset(have, 0, (size_t)n * (size_t)n);
    for (int i = 0; i < n; i++)
        have[(size_t)i * n + i] = 1;
}

static void expect_all(int n, const char *what)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (!have[(size_t)i * n + j])
                fail_msg("%s, n = %d: member %d lacks %d", what, n, i, j);
}

static int setup(void **state)
{
    have = calloc((size_t)NMAX * NMAX, 1);
    next = calloc((size_t)NMAX * NMAX, 1);
    return have && next ? 0 : -1;
}

static int teardown(void **state)
{
    free(have);
    free(next);
    return 0;
}

static void test_rounds(void **state)
{
    assert_int_equal(shmemi_sched_rounds(1), 0);
    assert_int_equal(shmemi_sched_rounds(2), 1);
    assert_int_equal(shmemi_sched_rounds(3), 2);
    assert_int_equal(shmemi_sched_rounds(4), 2);
    assert_int_equal(shmemi_sched_rounds(5), 3);
    assert_int_equal(shmemi_sched_rounds(1 << 20), 20);
    assert_int_equal(shmemi_sched_rounds((1 << 20) + 1), 21);
}

static void test_dissemination(void **state)
{
    for (int n = 1; n <= NMAX; n++) {
        sets_reset(n);
        for (int k = 0; k < shmemi_sched_rounds(n); k++) {
            unsigned char *seen = calloc((size_t)n, 1);
            memcpy(next, have, (size_t)n * n);
            for (int i = 0; i < n; i++) {
                int to = shmemi_sched_diss_to(n, i, k), from = shmemi_sched_diss_from(n, i, k);
                /* One writer per member and round: the rounds' words. */
                if (seen[to]++)
                    fail_msg("dissemination n = %d round %d: member %d signalled twice", n, k, to);
                assert_int_equal(shmemi_sched_diss_from(n, to, k), i);
                assert_int_equal(shmemi_sched_diss_to(n, from, k), i);
                for (int j = 0; j < n; j++)
                    next[(size_t)i * n + j] |= have[(size_t)from * n + j];
            }
            free(seen);
            memcpy(have, next, (size_t)n * n);
        }
        expect_all(n, "dissemination");
    }
}

static void test_recursive_doubling(void **state)
{
    for (int n = 1; n <= NMAX; n *= 2) {
        sets_reset(n);
        for (int k = 0; k < shmemi_sched_rounds(n); k++) {
            int d = 1 << k;
            memcpy(next, have, (size_t)n * n);
            for (int i = 0; i < n; i++) {
                int g0, g0p, p = shmemi_sched_rd_partner(i, k, &g0);
                assert_int_equal(shmemi_sched_rd_partner(p, k, &g0p), i);
                /* I hold exactly my aligned group of d members. */
                for (int j = 0; j < n; j++)
                    if (have[(size_t)i * n + j] != (j >= g0 && j < g0 + d))
                        fail_msg("rd n = %d round %d: member %d %s block %d", n, k, i,
                                 have[(size_t)i * n + j] ? "holds" : "lacks", j);
                for (int j = g0p; j < g0p + d; j++)
                    next[(size_t)i * n + j] = 1;
            }
            memcpy(have, next, (size_t)n * n);
        }
        expect_all(n, "recursive doubling");
    }
}

static void test_bruck(void **state)
{
    for (int n = 1; n <= NMAX; n++) {
        sets_reset(n);
        for (int k = 0; k < shmemi_sched_rounds(n); k++) {
            int d = 1 << k;
            unsigned char *seen = calloc((size_t)n, 1);
            memcpy(next, have, (size_t)n * n);
            for (int i = 0; i < n; i++) {
                int from, cnt, from2, cnt2, to = shmemi_sched_bruck(n, i, k, &from, &cnt);
                /* Before round k, member i holds blocks i .. i + d - 1. */
                for (int j = 0; j < n; j++) {
                    int held = ((j - i) % n + n) % n < d;
                    if (have[(size_t)i * n + j] != held)
                        fail_msg("bruck n = %d round %d: member %d %s block %d", n, k, i,
                                 held ? "lacks" : "holds", j);
                }
                if (seen[to]++)
                    fail_msg("bruck n = %d round %d: member %d receives twice", n, k, to);
                assert_int_equal(shmemi_sched_bruck(n, to, k, &from2, &cnt2), (to - d + n) % n);
                assert_int_equal(from2, i);
                assert_int_equal(cnt2, cnt);
                /* The cnt blocks from i continue the receiver's run. */
                assert_int_equal((i - to + n) % n, d % n);
                for (int c = 0; c < cnt; c++)
                    next[(size_t)to * n + (i + c) % n] = 1;
            }
            free(seen);
            memcpy(have, next, (size_t)n * n);
        }
        expect_all(n, "bruck");
    }
}

static void test_ring(void **state)
{
    /* contrib[i * n + b]: the contributions to member i's partial of block
     * b (a count of each member's, which must end at 1 each). */
    int *contrib = calloc((size_t)NMAX * NMAX * NMAX, sizeof(int));

    assert_non_null(contrib);
    for (int n = 1; n <= 40; n++) {
        /* The allgather. */
        sets_reset(n);
        for (int k = 0; k < n - 1; k++) {
            memcpy(next, have, (size_t)n * n);
            for (int i = 0; i < n; i++) {
                int b = shmemi_sched_ring_block(n, i, k);
                if (!have[(size_t)i * n + b])
                    fail_msg("ring n = %d step %d: member %d forwards block %d it lacks", n, k, i,
                             b);
                next[(size_t)((i + 1) % n) * n + b] = 1;
            }
            memcpy(have, next, (size_t)n * n);
        }
        expect_all(n, "ring allgather");
        /* rsag's reduce-scatter: partial[i][b] is a set of members. */
        memset(contrib, 0, (size_t)n * n * n * sizeof(int));
        for (int s = 0; s < n - 1; s++) {
            for (int i = 0; i < n; i++) {
                int b = shmemi_sched_ring_block(n, i, s), r = (i + 1) % n;
                int rb = shmemi_sched_ring_block(n, r, s + 1);
                int *mine = contrib + ((size_t)i * n + b) * n, *theirs;
                if (s == 0)
                    mine[i] = 1; /* my source's block */
                assert_int_equal(rb, b);
                theirs = contrib + ((size_t)r * n + rb) * n;
                for (int j = 0; j < n; j++)
                    theirs[j] += mine[j];
                theirs[r] += 1; /* combined with the receiver's source */
            }
        }
        for (int i = 0; i < n && n > 1; i++) {
            int b = (i + 1) % n, *c = contrib + ((size_t)i * n + b) * n;
            for (int j = 0; j < n; j++)
                if (c[j] != 1)
                    fail_msg("rsag n = %d: member %d's block %d holds member %d's source %d "
                             "times", n, i, b, j, c[j]);
        }
        /* rsag's allgather: step s forwards block (i + 1 - s). */
        memset(have, 0, (size_t)n * n);
        for (int i = 0; i < n; i++)
            have[(size_t)i * n + (i + 1) % n] = 1;
        for (int s = 0; s < n - 1; s++) {
            memcpy(next, have, (size_t)n * n);
            for (int i = 0; i < n; i++) {
                int b = shmemi_sched_ring_block(n, (i + 1) % n, s);
                if (!have[(size_t)i * n + b])
                    fail_msg("rsag allgather n = %d step %d: member %d lacks block %d", n, s, i,
                             b);
                next[(size_t)((i + 1) % n) * n + b] = 1;
            }
            memcpy(have, next, (size_t)n * n);
        }
        expect_all(n, "rsag allgather");
    }
    free(contrib);
}

static void check_tree(int n, int root, int linear)
{
    int parent[NMAX], kids[NMAX], nk, depth;

    for (int i = 0; i < n; i++) {
        parent[i] = shmemi_sched_tree(n, root, i, linear, kids, &nk);
        if ((parent[i] < 0) != (i == root))
            fail_msg("tree n = %d root %d: member %d has parent %d", n, root, i, parent[i]);
        if (nk > 64)
            fail_msg("tree n = %d root %d: member %d has %d children", n, root, i, nk);
        for (int c = 0; c < nk; c++) {
            int kk[NMAX], nkk;
            if (shmemi_sched_tree(n, root, kids[c], linear, kk, &nkk) != i)
                fail_msg("tree n = %d root %d: %d is a child of %d but not the reverse", n, root,
                         kids[c], i);
        }
    }
    /* Every member reaches the root, within log2 n steps (the tree). */
    for (int i = 0; i < n; i++) {
        int p = i;
        for (depth = 0; p != root && depth <= n; depth++)
            p = parent[p];
        if (p != root || (!linear && depth > shmemi_sched_rounds(n)))
            fail_msg("tree n = %d root %d: member %d is %d steps from the root", n, root, i,
                     depth);
    }
}

static void test_trees(void **state)
{
    for (int n = 1; n <= NMAX; n++)
        for (int root = 0; root < n; root += n > 20 ? 7 : 1) {
            check_tree(n, root, 0);
            if (n <= 65)
                check_tree(n, root, 1);
        }
}

static void test_pairwise(void **state)
{
    for (int n = 1; n <= NMAX; n++) {
        memset(have, 0, (size_t)n * n);
        for (int k = 1; k < n; k++)
            for (int i = 0; i < n; i++) {
                int to = shmemi_sched_pairwise_to(n, i, k);
                if (to == i || have[(size_t)i * n + to]++)
                    fail_msg("pairwise n = %d step %d: %d to %d again", n, k, i, to);
            }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j && !have[(size_t)i * n + j])
                    fail_msg("pairwise n = %d: %d never sends to %d", n, i, j);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounds),
        cmocka_unit_test(test_dissemination),
        cmocka_unit_test(test_recursive_doubling),
        cmocka_unit_test(test_bruck),
        cmocka_unit_test(test_ring),
        cmocka_unit_test(test_trees),
        cmocka_unit_test(test_pairwise),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
