/*
 * Unit tests of the team layer and the collectives below the PE level: one
 * process plays each member of an N-PE job in turn, over the mock
 * transport of tests/unit/mock_tp.c (it records every operation and
 * delivers it into in-memory copies of the other PEs' heaps).  Nothing is
 * mapped, so every signal and put goes through the mock; the member's own
 * signal words are
 * filled in advance so that no wait waits.  What a member sends is then
 * its schedule: the tests check the targets, offsets, lengths, values and
 * the data that lands in the peers' heaps against src/team/team_sched.h
 * and the layout of the team slot.
 *
 *  - the dissemination barrier and the small allreduce (the slot
 *    agreement of splits: the AND of the masks, the lowest common slot);
 *  - the collectives forced by the registry: the ring, recursive doubling
 *    and Bruck's fcollect, the tree and linear broadcast, the pairwise
 *    alltoall, the rd and rsag reductions, with what ran counted;
 *  - the team arithmetic: strided and 2-D splits, translate, members,
 *    strides, the common free slot of masks, the node groups of the
 *    hierarchical collectives;
 *  - the registry: parsing (a bad name refused naming the valid ones), the
 *    documentation, auto's choices and the fallbacks of forced choices.
 */
#include "coll/coll_reduce.h"
#include "tests/unit/mock_tp.h"
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#define NMAX 8
#define TEAMS_MAX (SHMEMI_SLOT_FIRST_FREE + SHMEMI_SLOT_ACTIVE_SETS + 8)
#define USER (256 * 1024) /* the user's part of each heap */
#define TSLOT SHMEMI_SLOT_FIRST_FREE

static size_t area_len;
static char *peer_none[NMAX];
static int node_of[NMAX];

/* ---- the fake job ---- */

static int setup(void **state)
{
    char *no_env[] = { NULL };

    if (shmemi_env_parse(no_env, &shmemi_g.env))
        return -1;
    shmemi_g.env.teams_max = TEAMS_MAX;
    area_len = shmemi_team_area_size(TEAMS_MAX, NMAX);
    mock_heap_len = area_len + USER;
    for (int i = 0; i < NMAX; i++) {
        mock_heap[i] = aligned_alloc(4096, mock_heap_len);
        if (!mock_heap[i])
            return -1;
        memset(mock_heap[i], 0, mock_heap_len);
    }
    shmemi_g.heap_size = mock_heap_len;
    shmemi_g.peer_heap = peer_none;
    shmemi_g.node_of = node_of;
    shmemi_g.tp = &mock_tp;
    /* The collectives' traffic: completions and reads are not part of a
     * member's schedule. */
    mock_tp.caps = SHMEMT_CAP_RMA | SHMEMT_CAP_AMO_CPU | SHMEMT_CAP_THREADS;
    mock_ignore = 1u << MOCK_GET | 1u << MOCK_GET_NBI | 1u << MOCK_QUIET |
                  1u << MOCK_PE_QUIET | 1u << MOCK_FENCE;
    shmemi_g.wait_spin = 4;
    atomic_store(&shmemi_g.state, SHMEMI_STATE_INITIALIZED);
    return shmemi_team_slots_init(TEAMS_MAX) ? -1 : 0;
}

static int teardown(void **state)
{
    shmemi_team_slots_fini();
    for (int i = 0; i < NMAX; i++)
        free(mock_heap[i]);
    shmemi_g.tp = NULL;
    return 0;
}

/* Makes this process member me of an n-PE job (every PE its own node,
 * nothing mapped) and *t the team of all of them in slot TSLOT, whose
 * signal and barrier words in my heap are full (no wait waits). */
static void become(int me, int n, struct shmemi_team *t)
{
    int pes[NMAX];
    shmemi_team_slot_t *s;

    shmemi_g.n_pes = n;
    shmemi_g.n_nodes = n;
    shmemi_g.my_pe = me;
    shmemi_g.heap_base = mock_heap[me];
    shmemi_team_area = mock_heap[me];
    for (int i = 0; i < n; i++) {
        pes[i] = i;
        node_of[i] = i;
    }
    if (t->pes)
        shmemi_team_free_members(t);
    memset(t, 0, sizeof(*t));
    assert_int_equal(shmemi_team_set_members(t, pes, n), 0);
    t->slot = TSLOT;
    s = shmemi_team_slot(t);
    for (int i = 0; i < SHMEMI_TEAM_BAR_ROUNDS; i++)
        s->bar[i] = UINT64_MAX / 2;
    for (int i = 0; i < n; i++)
        s->sig[i] = UINT64_MAX / 2;
    mock_nrec = 0;
}

static uint64_t slot_off(void) { return (uint64_t)TSLOT * shmemi_team_slot_size; }
static uint64_t bar_off(int k) { return slot_off() + offsetof(shmemi_team_slot_t, bar) + 8u * k; }
static uint64_t sig_off(int j)
{
    return slot_off() + offsetof(shmemi_team_slot_t, sig) + 8u * (unsigned)j;
}
static uint64_t scratch_off(uint64_t e)
{
    return slot_off() + offsetof(shmemi_team_slot_t, scratch) + (e & 1) * SHMEMI_TEAM_HALF;
}
/* The user's part of every heap. */
static uint64_t user_off(size_t off) { return area_len + off; }
static char *user(int pe, size_t off) { return mock_heap[pe] + user_off(off); }

static void expect_rec(int i, int op, int pe, uint64_t off, uint64_t len, uint64_t soff,
                       uint64_t value)
{
    const mock_rec_t *r = &mock_recs[i];

    if (i >= mock_nrec)
        fail_msg("operation %d expected, only %d recorded", i, mock_nrec);
    if (r->op != op || r->pe != pe || r->sig_off != soff || r->value != value ||
        (op != MOCK_SIGNAL && (r->off != off || r->len != len)))
        fail_msg("operation %d: op %d to PE %d, data %llu+%llu, signal at %llu = %llx; expected "
                 "op %d to PE %d, data %llu+%llu, signal at %llu = %llx", i, r->op, r->pe,
                 (unsigned long long)r->off, (unsigned long long)r->len,
                 (unsigned long long)r->sig_off, (unsigned long long)r->value, op, pe,
                 (unsigned long long)off, (unsigned long long)len, (unsigned long long)soff,
                 (unsigned long long)value);
}

/* Forces the algorithms of the registry (NULL: auto). */
static void force(const char *barrier, const char *bcast, const char *collect,
                  const char *alltoall, const char *reduce)
{
    shmemi_g.env.barrier_algo = barrier ? barrier : "auto";
    shmemi_g.env.bcast_algo = bcast ? bcast : "auto";
    shmemi_g.env.collect_algo = collect ? collect : "auto";
    shmemi_g.env.alltoall_algo = alltoall ? alltoall : "auto";
    shmemi_g.env.reduce_algo = reduce ? reduce : "auto";
    assert_int_equal(shmemi_coll_algo_init(&shmemi_g.env), 0);
}

static long count(struct shmemi_team *t, const char *coll, const char *algo)
{
    long c = -1;

    assert_int_equal(shmemi_coll_count_get(t, coll, algo, &c, "test"), 0);
    return c;
}

/* ---- the team layer ---- */

static void test_dissemination_barrier(void **state)
{
    struct shmemi_team t = { 0 };

    for (int n = 2; n <= NMAX; n++)
        for (int me = 0; me < n; me++) {
            become(me, n, &t);
            assert_int_equal(shmemi_team_barrier_dissemination(&t), 0);
            assert_int_equal(mock_nrec, shmemi_sched_rounds(n));
            for (int k = 0; k < mock_nrec; k++)
                expect_rec(k, MOCK_SIGNAL, shmemi_sched_diss_to(n, me, k), 0, 0, bar_off(k),
                           t.bar_epoch);
        }
    shmemi_team_free_members(&t);
}

static void test_allreduce_and_slot_agreement(void **state)
{
    struct shmemi_team t = { 0 };

    for (int n = 2; n <= NMAX; n++)
        for (int me = 0; me < n; me++) {
            uint64_t vals[2] = { ~0ull << me, ~0ull }, want0 = vals[0];
            int rounds = shmemi_sched_rounds(n), slot = -2;
            char *buf;

            become(me, n, &t);
            /* What each round's peer sends: a mask without bit 40 + k. */
            buf = mock_heap[me] + scratch_off(t.epoch + 1);
            for (int k = 0; k < rounds; k++) {
                uint64_t m[2] = { ~(1ull << (40 + k)), ~(1ull << k) };
                memcpy(buf + (size_t)k * 512, m, sizeof(m));
                want0 &= m[0];
            }
            assert_int_equal(shmemi_team_allreduce_u64(&t, vals, 2, SHMEMI_IOP_AND), 0);
            assert_true(vals[0] == want0);
            assert_int_equal(mock_nrec, rounds);
            for (int k = 0; k < rounds; k++)
                expect_rec(k, MOCK_PUT_SIGNAL, shmemi_sched_diss_to(n, me, k),
                           scratch_off(t.epoch) + (uint64_t)k * 512, 16, sig_off(me),
                           shmemi_team_sigval(t.epoch, (unsigned)k + 1));
            /* The slot agreement: the lowest slot free in every mask. */
            buf = mock_heap[me] + scratch_off(t.epoch + 1);
            for (int k = 0; k < rounds; k++) {
                uint64_t m[2];
                shmemi_team_slot_mask(m);
                /* Slot TSLOT is taken on every peer, TSLOT + 1 + k on
                 * the peer of round k. */
                m[0] &= ~(1ull << TSLOT) & ~(1ull << (TSLOT + 1 + k));
                memcpy(buf + (size_t)k * 512, m, sizeof(m));
            }
            assert_int_equal(shmemi_team_slot_agree(&t, 0, &slot), 0);
            assert_int_equal(slot, TSLOT + 1 + rounds);
        }
    shmemi_team_free_members(&t);
}

static void test_team_arithmetic(void **state)
{
    struct shmemi_team p = { 0 }, a = { 0 }, b = { 0 };
    int pes[NMAX], n, world[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, odd[3] = { 1, 3, 5 };
    uint64_t masks[3][2] = { { 0xf0, 0 }, { 0xe0, 0 }, { 0xc0, 1 } };

    become(3, 8, &p);
    assert_int_equal(p.my_pe, 3);
    assert_int_equal(p.start, 0);
    assert_int_equal(p.stride, 1);
    /* Strided splits: members 1, 3, 5 hold me (3) at index 1. */
    assert_int_equal(shmemi_team_strided_pes(&p, 3, 1, 2, 3, pes), 3);
    assert_memory_equal(pes, odd, sizeof(odd));
    assert_int_equal(shmemi_team_strided_pes(&p, 3, 0, 2, 4, pes), 0);
    assert_int_equal(shmemi_team_strided_pes(&p, 3, 7, -2, 4, pes), 4);
    assert_int_equal(pes[3], 1);
    /* 2-D: 8 members in rows of 3: member 3 is row 1 (3, 4, 5), column 0
     * (0, 3, 6). */
    n = shmemi_team_2d_pes(&p, 3, 3, 0, pes);
    assert_int_equal(n, 3);
    assert_memory_equal(pes, world + 3, 3 * sizeof(int));
    n = shmemi_team_2d_pes(&p, 3, 3, 1, pes);
    assert_int_equal(n, 3);
    assert_true(pes[0] == 0 && pes[1] == 3 && pes[2] == 6);
    n = shmemi_team_2d_pes(&p, 7, 3, 0, pes);
    assert_true(n == 2 && pes[0] == 6 && pes[1] == 7);
    /* Members, translate. */
    assert_int_equal(shmemi_team_set_members(&a, odd, 3), 0);
    assert_true(a.my_pe == 1 && a.start == 1 && a.stride == 2 && !a.all_mapped);
    assert_int_equal(shmemi_team_translate(&a, 2, &p), 5);
    assert_int_equal(shmemi_team_translate(&p, 5, &a), 2);
    assert_int_equal(shmemi_team_translate(&p, 4, &a), -1);
    assert_int_equal(shmemi_team_translate(&p, 8, &a), -1);
    assert_int_equal(shmemi_team_translate(SHMEM_TEAM_INVALID, 0, &a), -1);
    pes[0] = 6, pes[1] = 2, pes[2] = 3;
    assert_int_equal(shmemi_team_set_members(&b, pes, 3), 0);
    assert_true(b.my_pe == 2 && b.start == -1 && b.stride == -1);
    /* The lowest slot free in every mask. */
    assert_int_equal(shmemi_team_slot_common(&masks[0][0], 3, 2, 2), 6);
    masks[2][0] = 0;
    assert_int_equal(shmemi_team_slot_common(&masks[0][0], 3, 2, 2), -1);
    masks[0][1] = masks[1][1] = 3;
    assert_int_equal(shmemi_team_slot_common(&masks[0][0], 3, 2, 2), 64);
    shmemi_team_free_members(&a);
    shmemi_team_free_members(&b);
    shmemi_team_free_members(&p);
}

static void test_node_groups(void **state)
{
    struct shmemi_coll_hier *h = shmemi_coll_hier_alloc(6);
    int node[6] = { 1, 0, 1, 0, 2, 2 }, work[3 + 7];

    assert_non_null(h);
    /* Groups in the order of their first members: node 1 (members 0, 2),
     * node 0 (1, 3), node 2 (4, 5). */
    shmemi_coll_hier_group(h, node, 6, 3, 3, work);
    assert_int_equal(h->ng, 3);
    assert_true(h->ok);
    assert_int_equal(h->my_group, 1);
    assert_true(h->lead[0] == 0 && h->lead[1] == 1 && h->lead[2] == 4);
    assert_true(h->gfirst[0] == 0 && h->gfirst[1] == 2 && h->gfirst[2] == 4 && h->gfirst[3] == 6);
    assert_true(h->mem[0] == 0 && h->mem[1] == 2 && h->mem[2] == 1 && h->mem[3] == 3);
    /* Runs: group 0 is 0 and 2 (two runs), group 2 is 4..5 (one). */
    assert_int_equal(h->rfirst[1] - h->rfirst[0], 2);
    assert_int_equal(h->rfirst[3] - h->rfirst[2], 1);
    assert_true(h->rs[h->rfirst[2]] == 4 && h->re[h->rfirst[2]] == 6);
    /* One member per node, or one node: no hierarchy. */
    for (int i = 0; i < 6; i++)
        node[i] = i % 3 == 0 ? 0 : 0;
    shmemi_coll_hier_group(h, node, 6, 3, 0, work);
    assert_false(h->ok);
    for (int i = 0; i < 6; i++)
        node[i] = i % 3;
    shmemi_coll_hier_group(h, node, 3, 3, 0, work);
    assert_false(h->ok);
    shmemi_coll_hier_free(h);
}

/* ---- the collectives over the mock ---- */

/* Member me's fcollect of blk bytes per member with algorithm algo: its
 * dest holds the whole result (as if it had received it), and the blocks
 * it sends must land at their offsets in the peers' dests. */
static void run_fcollect(int me, int n, size_t blk, struct shmemi_team *t)
{
    char *src = user(me, 0), *dest = user(me, 4096);

    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < blk; i++)
            dest[(size_t)j * blk + i] = (char)(j * 16 + (int)i + 1);
    memcpy(src, dest + (size_t)me * blk, blk);
    for (int j = 0; j < n; j++)
        if (j != me)
            memset(user(j, 4096), 0, (size_t)n * blk);
    assert_int_equal(shmemi_coll_collect(t, dest, src, blk, 1, 1, "test"), 0);
}

static void test_fcollect_ring(void **state)
{
    struct shmemi_team t = { 0 };
    size_t blk = 24;

    force(NULL, NULL, "ring", NULL, NULL);
    for (int n = 2; n <= NMAX; n++)
        for (int me = 0; me < n; me++) {
            int right = (me + 1) % n, left = (me - 1 + n) % n;
            uint64_t e;

            become(me, n, &t);
            run_fcollect(me, n, blk, &t);
            e = t.epoch;
            /* "Entered" to the left neighbour, then n - 1 blocks right. */
            assert_int_equal(mock_nrec, n);
            expect_rec(0, MOCK_SIGNAL, left, 0, 0, sig_off(me), shmemi_team_sigval(e, 0));
            for (int k = 0; k < n - 1; k++) {
                int b = shmemi_sched_ring_block(n, me, k);
                expect_rec(k + 1, MOCK_PUT_SIGNAL, right, user_off(4096 + (size_t)b * blk), blk,
                           sig_off(me), shmemi_team_sigval(e, 1 + (unsigned)k));
                assert_memory_equal(user(right, 4096 + (size_t)b * blk),
                                    user(me, 4096 + (size_t)b * blk), blk);
            }
            assert_int_equal(count(&t, "collect", "ring"), 1);
        }
    shmemi_team_free_members(&t);
}

static void test_fcollect_rd_and_bruck(void **state)
{
    struct shmemi_team t = { 0 };
    size_t blk = 8;

    force(NULL, NULL, "rd", NULL, NULL);
    for (int n = 2; n <= NMAX; n++)
        for (int me = 0; me < n; me++) {
            int pow2 = (n & (n - 1)) == 0, rounds = shmemi_sched_rounds(n), i = rounds;
            uint64_t e;

            become(me, n, &t);
            run_fcollect(me, n, blk, &t);
            e = t.epoch;
            /* "Entered" to those that write into my dest, then the data. */
            for (int k = 0; k < rounds; k++) {
                int g0, to = pow2 ? shmemi_sched_rd_partner(me, k, &g0)
                                  : (me + (1 << k)) % n;
                expect_rec(k, MOCK_SIGNAL, to, 0, 0, sig_off(me), shmemi_team_sigval(e, 0));
            }
            for (int k = 0; k < rounds; k++) {
                if (pow2) {
                    int g0, p = shmemi_sched_rd_partner(me, k, &g0);
                    expect_rec(i++, MOCK_PUT_SIGNAL, p, user_off(4096 + (size_t)g0 * blk),
                               (size_t)(1 << k) * blk, sig_off(me),
                               shmemi_team_sigval(e, 1 + (unsigned)k));
                    continue;
                }
                int from, cnt, to = shmemi_sched_bruck(n, me, k, &from, &cnt);
                unsigned last = 1 + 2 * (unsigned)k + 1;
                if (me + cnt <= n) {
                    expect_rec(i++, MOCK_PUT_SIGNAL, to, user_off(4096 + (size_t)me * blk),
                               (size_t)cnt * blk, sig_off(me), shmemi_team_sigval(e, last));
                } else {
                    expect_rec(i++, MOCK_PUT_SIGNAL, to, user_off(4096 + (size_t)me * blk),
                               (size_t)(n - me) * blk, sig_off(me),
                               shmemi_team_sigval(e, last - 1));
                    expect_rec(i++, MOCK_PUT_SIGNAL, to, user_off(4096),
                               (size_t)(me + cnt - n) * blk, sig_off(me),
                               shmemi_team_sigval(e, last));
                }
                for (int c = 0; c < cnt; c++) {
                    size_t o = 4096 + (size_t)((me + c) % n) * blk;
                    assert_memory_equal(user(to, o), user(me, o), blk);
                }
            }
            assert_int_equal(mock_nrec, i);
            assert_int_equal(count(&t, "collect", pow2 ? "rd" : "bruck"), 1);
        }
    shmemi_team_free_members(&t);
}

static void test_bcast_trees(void **state)
{
    struct shmemi_team t = { 0 };
    size_t len = 100;

    for (int linear = 0; linear < 2; linear++) {
        force(NULL, linear ? "linear" : "tree", NULL, NULL, NULL);
        for (int n = 2; n <= NMAX; n++)
            for (int root = 0; root < n; root++)
                for (int me = 0; me < n; me++) {
                    int kids[NMAX], nk, parent = shmemi_sched_tree(n, root, me, linear, kids, &nk);
                    char *src = user(me, 0), *dest = user(me, 4096);
                    uint64_t e;
                    int i = 0;

                    become(me, n, &t);
                    for (size_t j = 0; j < len; j++)
                        src[j] = dest[j] = (char)(root + j);
                    assert_int_equal(shmemi_coll_bcast(&t, dest, src, len, 1, root, 1, "test"),
                                     0);
                    e = t.epoch;
                    if (parent >= 0)
                        expect_rec(i++, MOCK_SIGNAL, parent, 0, 0, sig_off(me),
                                   shmemi_team_sigval(e, 0));
                    for (int k = 0; k < nk; k++) {
                        expect_rec(i++, MOCK_PUT_SIGNAL, kids[k], user_off(4096), len, sig_off(me),
                                   shmemi_team_sigval(e, 1));
                        assert_memory_equal(user(kids[k], 4096), src, len);
                    }
                    assert_int_equal(mock_nrec, i);
                    /* Off node teams a broadcast takes two epochs. */
                    assert_int_equal(t.epoch, 2);
                    assert_int_equal(count(&t, "broadcast", linear ? "linear" : "tree"), 1);
                }
    }
    shmemi_team_free_members(&t);
}

static void test_alltoall_pairwise(void **state)
{
    struct shmemi_team t = { 0 };

    force(NULL, NULL, NULL, "pairwise", NULL);
    for (int n = 2; n <= NMAX; n++)
        for (int me = 0; me < n; me++) {
            long *src = (long *)user(me, 0), *dest = (long *)user(me, 4096);
            uint64_t e;
            int i = 0;

            become(me, n, &t);
            for (int j = 0; j < n; j++)
                src[j] = me * 100 + j;
            assert_int_equal(shmemi_coll_alltoall(&t, dest, src, 1, 1, 1, sizeof(long), "test"),
                             0);
            e = t.epoch;
            for (int k = 1; k < n; k++)
                expect_rec(i++, MOCK_SIGNAL, shmemi_sched_pairwise_to(n, me, k), 0, 0, sig_off(me),
                           shmemi_team_sigval(e, 0));
            for (int k = 1; k < n; k++) {
                int p = shmemi_sched_pairwise_to(n, me, k);
                expect_rec(i++, MOCK_PUT_SIGNAL, p, user_off(4096 + (size_t)me * sizeof(long)),
                           sizeof(long), sig_off(me), shmemi_team_sigval(e, 1));
                assert_int_equal(((long *)user(p, 4096))[me], me * 100 + p);
            }
            assert_int_equal(dest[me], me * 100 + me);
            assert_int_equal(mock_nrec, i);
        }
    shmemi_team_free_members(&t);
}

static void test_reduce_rd_and_rsag(void **state)
{
    struct shmemi_team t = { 0 };

    for (int rsag = 0; rsag < 2; rsag++) {
        force(NULL, NULL, NULL, NULL, rsag ? "rsag" : "rd");
        for (int n = 2; n <= NMAX; n++)
            for (int me = 0; me < n; me++) {
                long *src = (long *)user(me, 0), *dest = (long *)user(me, 4096);
                size_t nel = 64, per = shmemi_reduce_slice(nel, n, sizeof(long));

                become(me, n, &t);
                for (size_t j = 0; j < nel; j++)
                    src[j] = (long)j;
                assert_int_equal(shmemi_reduce(&t, SHMEMI_RT_I64, SHMEMI_ROP_SUM, sizeof(long),
                                               dest, src, nel, "test"), 0);
                assert_int_equal(count(&t, "reduce", rsag ? "rsag" : "rd"), 1);
                if (!rsag) {
                    /* Every operation goes to a partner of the doubling or
                     * of the fold. */
                    int p = 1, L = 0;
                    while (p * 2 <= n)
                        p *= 2, L++;
                    for (int i = 0; i < mock_nrec; i++) {
                        int to = mock_recs[i].pe, ok = 0;
                        for (int k = 0; k < L; k++) {
                            int g0;
                            ok |= me < p && to == shmemi_sched_rd_partner(me, k, &g0);
                        }
                        ok |= (me >= p && to == me - p) || (me < n - p && to == me + p);
                        if (!ok)
                            fail_msg("rd n = %d: member %d sent to %d", n, me, to);
                    }
                    continue;
                }
                /* rsag: n - 1 partials and n - 1 slices to the right, after
                 * "entered" to the left. */
                assert_int_equal(mock_nrec, 2 * (n - 1) + 1);
                for (int s = 0; s < n - 1; s++) {
                    int b = shmemi_sched_ring_block(n, me, s);
                    size_t lo = (size_t)b * per < nel ? (size_t)b * per : nel;
                    size_t hi = nel - lo < per ? nel : lo + per;
                    assert_int_equal(mock_recs[s].pe, (me + 1) % n);
                    /* An empty slice (64 elements over 5 members, in
                     * cache lines of 8) goes as the signal alone. */
                    assert_int_equal(mock_recs[s].op, hi > lo ? MOCK_PUT_SIGNAL : MOCK_SIGNAL);
                    if (hi > lo)
                        assert_int_equal(mock_recs[s].len, (hi - lo) * sizeof(long));
                }
                assert_int_equal(mock_recs[n - 1].op, MOCK_SIGNAL);
                assert_int_equal(mock_recs[n - 1].pe, (me - 1 + n) % n);
                for (int s = 0; s < n - 1; s++) {
                    int b = shmemi_sched_ring_block(n, (me + 1) % n, s);
                    size_t lo = (size_t)b * per < nel ? (size_t)b * per : nel;
                    size_t hi = nel - lo < per ? nel : lo + per;
                    assert_int_equal(mock_recs[n + s].pe, (me + 1) % n);
                    assert_int_equal(mock_recs[n + s].op, hi > lo ? MOCK_PUT_SIGNAL : MOCK_SIGNAL);
                    if (hi > lo)
                        assert_int_equal(mock_recs[n + s].off, user_off(4096 + lo * sizeof(long)));
                }
            }
    }
    shmemi_team_free_members(&t);
}

/* ---- the registry ---- */

static void test_registry_names(void **state)
{
    char buf[4096], msg[1024];
    shmemi_env_t env = shmemi_g.env;

    assert_int_equal(shmemi_coll_algo_parse(SHMEMI_CK_BCAST, "auto"), SHMEMI_CA_AUTO);
    assert_int_equal(shmemi_coll_algo_parse(SHMEMI_CK_BCAST, ""), SHMEMI_CA_AUTO);
    assert_int_equal(shmemi_coll_algo_parse(SHMEMI_CK_BCAST, "linear"), SHMEMI_CA_LINEAR);
    assert_int_equal(shmemi_coll_algo_parse(SHMEMI_CK_BCAST, "ring"), SHMEMI_CA_COUNT);
    assert_int_equal(shmemi_coll_algo_parse(SHMEMI_CK_REDUCE, "rsag"), SHMEMI_CA_RSAG);
    assert_int_equal(shmemi_coll_algo_parse(SHMEMI_CK_BARRIER, "central"), SHMEMI_CA_CENTRAL);
    /* A bad name: refused, naming the variable, the value and the names. */
    env.bcast_algo = "bogus";
    assert_int_equal(shmemi_coll_algo_init(&env), SHMEMX_ERROR_INVALID_VALUE);
    shmemx_error_get(msg, sizeof(msg));
    assert_string_equal(msg, "FABSHMEM_BCAST_ALGO: unknown value 'bogus' (auto, direct, hier, "
                             "tree or linear)");
    env.bcast_algo = "auto";
    env.barrier_algo = "foo";
    assert_int_equal(shmemi_coll_algo_init(&env), SHMEMX_ERROR_INVALID_VALUE);
    shmemx_error_get(msg, sizeof(msg));
    assert_string_equal(msg, "FABSHMEM_BARRIER_ALGO: unknown value 'foo' (auto, hier, central "
                             "or dissemination)");
    /* The documentation names every row of the table. */
    assert_int_equal(shmemi_coll_env_doc("FABSHMEM_COLLECT_ALGO", buf, sizeof(buf)), 1);
    for (const shmemi_coll_row_t *r = shmemi_coll_kind(SHMEMI_CK_COLLECT)->rows; r->run; r++) {
        char name[32];
        snprintf(name, sizeof(name), ", %s (", shmemi_coll_algo_name(r->algo));
        if (!strstr(buf, name) && !strstr(buf, name + 2))
            fail_msg("the doc of FABSHMEM_COLLECT_ALGO lacks %s: %s", name, buf);
    }
    assert_int_equal(shmemi_coll_env_doc("FABSHMEM_DIRECT", buf, sizeof(buf)), 0);
    assert_string_equal(shmemi_coll_kind_name(SHMEMI_CK_ALLTOALL), "alltoall");
    shmemx_error_clear();
}

/* The row chosen for kind k on a team shaped by the arguments. */
static int chosen(int k, int n, int mapped, int dok, size_t len, int fixed)
{
    struct shmemi_team t = { 0 };
    struct shmemi_coll_team c = { 0 };
    shmemi_coll_args_t a = { .t = &t, .len = len, .fixed = fixed, .dok = dok, .heap = dok,
                             .elsize = 8, .nelems = len / 8 };

    t.n_pes = n;
    t.all_mapped = mapped;
    t.coll = &c;
    return shmemi_coll_choose(k, &a)->algo;
}

static void test_registry_choices(void **state)
{
    int over = shmemi_g.oversubscribed;

    force(NULL, NULL, NULL, NULL, NULL);
    shmemi_g.oversubscribed = 0;
    /* auto */
    assert_int_equal(chosen(SHMEMI_CK_BARRIER, 2, 1, 1, 0, 0), SHMEMI_CA_CENTRAL);
    assert_int_equal(chosen(SHMEMI_CK_BARRIER, 4, 1, 1, 0, 0), SHMEMI_CA_DISSEMINATION);
    assert_int_equal(chosen(SHMEMI_CK_BARRIER, 4, 0, 0, 0, 0), SHMEMI_CA_DISSEMINATION);
    assert_int_equal(chosen(SHMEMI_CK_BCAST, 4, 1, 1, 100, 0), SHMEMI_CA_DIRECT);
    assert_int_equal(chosen(SHMEMI_CK_BCAST, 4, 0, 0, 100, 0), SHMEMI_CA_TREE);
    assert_int_equal(chosen(SHMEMI_CK_BCAST, 4, 0, 0, 1 << 20, 0), SHMEMI_CA_LINEAR);
    assert_int_equal(chosen(SHMEMI_CK_BCAST, 9, 0, 0, 1 << 20, 0), SHMEMI_CA_TREE);
    assert_int_equal(chosen(SHMEMI_CK_COLLECT, 4, 1, 1, 8, 1), SHMEMI_CA_LL);
    assert_int_equal(chosen(SHMEMI_CK_COLLECT, 4, 1, 1, 1024, 1), SHMEMI_CA_SMALL);
    assert_int_equal(chosen(SHMEMI_CK_COLLECT, 2, 1, 1, 1024, 1), SHMEMI_CA_DIRECT);
    assert_int_equal(chosen(SHMEMI_CK_COLLECT, 4, 0, 0, 64, 1), SHMEMI_CA_RD);
    assert_int_equal(chosen(SHMEMI_CK_COLLECT, 4, 0, 0, 1 << 16, 1), SHMEMI_CA_RING);
    assert_int_equal(chosen(SHMEMI_CK_ALLTOALL, 4, 0, 0, 8, 0), SHMEMI_CA_PAIRWISE);
    assert_int_equal(chosen(SHMEMI_CK_ALLTOALL, 4, 1, 1, 8, 0), SHMEMI_CA_LL);
    assert_int_equal(chosen(SHMEMI_CK_REDUCE, 4, 0, 0, 64, 0), SHMEMI_CA_RD);
    assert_int_equal(chosen(SHMEMI_CK_REDUCE, 4, 0, 0, 1 << 16, 0), SHMEMI_CA_RSAG);
    assert_int_equal(chosen(SHMEMI_CK_REDUCE, 4, 1, 1, 1 << 16, 0), SHMEMI_CA_DIRECT);
    /* Forced, and where it cannot run: its fallback, or auto's choice. */
    force("central", "linear", "small", "ll", "rsag");
    assert_int_equal(chosen(SHMEMI_CK_BARRIER, 4, 1, 1, 0, 0), SHMEMI_CA_CENTRAL);
    assert_int_equal(chosen(SHMEMI_CK_BARRIER, 4, 0, 0, 0, 0), SHMEMI_CA_DISSEMINATION);
    assert_int_equal(chosen(SHMEMI_CK_BCAST, 4, 1, 1, 8, 0), SHMEMI_CA_LINEAR);
    assert_int_equal(chosen(SHMEMI_CK_BCAST, 66, 1, 1, 8, 0), SHMEMI_CA_TREE);
    assert_int_equal(chosen(SHMEMI_CK_COLLECT, 4, 1, 1, 8, 1), SHMEMI_CA_SMALL);
    assert_int_equal(chosen(SHMEMI_CK_COLLECT, 4, 0, 0, 8, 1), SHMEMI_CA_RD);
    assert_int_equal(chosen(SHMEMI_CK_ALLTOALL, 4, 1, 1, 1024, 0), SHMEMI_CA_SMALL);
    assert_int_equal(chosen(SHMEMI_CK_REDUCE, 600, 0, 0, 1 << 16, 0), SHMEMI_CA_RD);
    assert_int_equal(chosen(SHMEMI_CK_REDUCE, 4, 0, 0, 8, 0), SHMEMI_CA_RSAG);
    force(NULL, NULL, NULL, NULL, NULL);
    shmemi_g.oversubscribed = over;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dissemination_barrier),
        cmocka_unit_test(test_allreduce_and_slot_agreement),
        cmocka_unit_test(test_team_arithmetic),
        cmocka_unit_test(test_node_groups),
        cmocka_unit_test(test_fcollect_ring),
        cmocka_unit_test(test_fcollect_rd_and_bruck),
        cmocka_unit_test(test_bcast_trees),
        cmocka_unit_test(test_alltoall_pairwise),
        cmocka_unit_test(test_reduce_rd_and_rsag),
        cmocka_unit_test(test_registry_names),
        cmocka_unit_test(test_registry_choices),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
