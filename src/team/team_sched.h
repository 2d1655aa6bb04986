/*
 * The communication schedules of the team's and the collectives'
 * algorithms: who sends to whom in round k, and which blocks.  Pure
 * functions of the team size n, the member me and the round, used by the
 * algorithms themselves (src/team/team_barrier.c, src/coll) and by the
 * unit tests (tests/unit/test_sched.c), which check every schedule for
 * every n up to a few hundred without launching a PE.
 */
#ifndef SHMEMI_TEAM_SCHED_H
#define SHMEMI_TEAM_SCHED_H

/* Rounds of dissemination, recursive doubling and Bruck's for n members:
 * ceil(log2 n) (0 for n <= 1). */
static inline int shmemi_sched_rounds(int n)
{
    int k = 0;

    while (k < 31 && (1 << k) < n)
        k++;
    return k;
}

/* Dissemination, round k (distance 2^k < n): member me signals
 * (me + 2^k) mod n and hears from (me - 2^k) mod n.  After all rounds
 * every member has heard, through others, from every member. */
static inline int shmemi_sched_diss_to(int n, int me, int k)
{
    return (int)(((long long)me + (1LL << k)) % n);
}
static inline int shmemi_sched_diss_from(int n, int me, int k)
{
    return (int)((((long long)me - (1LL << k)) % n + n) % n);
}

/* Recursive doubling (n a power of two), round k: member me exchanges with
 * me ^ 2^k the blocks of its aligned group of 2^k members, which begins
 * at member *g0_p. */
static inline int shmemi_sched_rd_partner(int me, int k, int *g0_p)
{
    int dist = 1 << k;

    *g0_p = me - me % dist;
    return me ^ dist;
}

/* Bruck's allgather, round k (d = 2^k < n): member me holds blocks
 * me .. me + d - 1 (mod n), sends the first min(d, n - d) of them (*cnt_p)
 * to member (me - d) mod n (the result) and receives as many from
 * (me + d) mod n (*from_p), which it places after its own. */
static inline int shmemi_sched_bruck(int n, int me, int k, int *from_p, int *cnt_p)
{
    int d = 1 << k;

    *from_p = (me + d) % n;
    *cnt_p = d < n - d ? d : n - d;
    return (me - d + n) % n;
}

/* The ring: in step k (0 .. n - 2) of an allgather member me forwards
 * block (me - k) mod n to member me + 1; in step s (0 .. n - 2) of the
 * reduce-scatter of rsag it sends its partial of block (me - s) mod n and
 * combines the one of block (me - s - 1) mod n from member me - 1; in step
 * s of rsag's allgather it forwards block (me + 1 - s) mod n. */
static inline int shmemi_sched_ring_block(int n, int me, int k)
{
    return ((me - k) % n + n) % n;
}

/* The binomial tree rooted at member root (relative rank r = me - root
 * mod n: the parent clears r's lowest set bit, the children add the lower
 * powers of two that stay below n), or linear (the root's children are all
 * the others).  Returns the parent (-1 at the root) and fills kids
 * (room for 64 in the tree, n - 1 in the linear form), *nk_p of them, in
 * the order in which the data goes to them (farthest first). */
static inline int shmemi_sched_tree(int n, int root, int me, int linear, int *kids, int *nk_p)
{
    int r = (me - root + n) % n, mask, parent = -1, nk = 0;

    if (linear) {
        if (r != 0)
            parent = root;
        else
            for (int k = 1; k < n; k++)
                kids[nk++] = (root + k) % n;
        *nk_p = nk;
        return parent;
    }
    for (mask = 1; mask < n; mask <<= 1)
        if (r & mask) {
            parent = (r - mask + root) % n;
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (r + mask < n)
            kids[nk++] = (r + mask + root) % n;
    *nk_p = nk;
    return parent;
}

/* Pairwise exchange, step k (1 .. n - 1): member me puts its block for
 * member (me + k) mod n there, and that member's block for it comes from
 * member (me - k) mod n. */
static inline int shmemi_sched_pairwise_to(int n, int me, int k)
{
    return (me + k) % n;
}

#endif
