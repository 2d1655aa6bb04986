/*
 * Collectives other than the reductions: team_sync, broadcast, collect,
 * fcollect, alltoall, alltoalls (typed, mem, and the deprecated active-set
 * forms), built from the primitives of coll.h.
 *
 * Two families of algorithms:
 *   - direct (node path): when every member maps every member's heap and
 *     the buffers are in the heap, a sync, then every member copies what it
 *     needs straight out of its peers' buffers (both cores work at once),
 *     then a sync so that nobody returns while a peer still reads its
 *     source;
 *   - over the transport: put with signal straight into the members'
 *     symmetric dest (binomial tree or linear broadcast, ring collect,
 *     pairwise alltoall).  A member only writes into a peer's dest after
 *     that peer has entered the same collective (an "entered" signal), so
 *     a fast member never overwrites a result that a slow member has not
 *     returned yet.
 *   - hierarchical (coll_hier.c) on teams that span nodes with several
 *     members on some node.
 * Signals follow coll.h: sig[j] is written only by member j, with
 * shmemi_coll_sigval(epoch, step); step 0 is "entered", steps from 1 carry
 * data.  auto picks the node paths when they apply (the low-latency lines,
 * the one-sync small paths, direct), else hier where it applies (fcollect:
 * up to SHMEMI_COLL_HIER_FCOLLECT_MAX bytes in all), else the
 * tree (up to FABSHMEM_COLL_SMALL bytes) or the linear broadcast, recursive
 * doubling (Bruck's on team sizes that are not powers of two: up to
 * FABSHMEM_COLL_SMALL bytes in all) or the ring collect, and the pairwise
 * alltoall.  A forced algorithm that cannot apply falls back to auto's
 * choice; shmemx_team_coll_count says which one ran.
 */
#include "coll/coll.h"

/* Bytes in all (n times each member's) up to which auto takes the
 * hierarchical fcollect on teams that span nodes.  Measured with 4 PEs in
 * virtual nodes of 2 over tcp (bench/fcollect_lat, medians of 3): hier
 * 65-115 us up to 512 bytes per PE against rd's 100-130, but from 1 KiB
 * per PE on 490-520 us against rd's 126-139 (the leaders' exchange of
 * whole node blocks leaves the one-message put with signal, and each
 * leader then waits a round trip), and 3.3 ms at 1 MiB against rd's 1.9.
 * collect, whose total is known only after its counts, keeps hier. */
#define SHMEMI_COLL_HIER_FCOLLECT_MAX 2048
#include <stdlib.h>

enum { ALG_AUTO, ALG_DIRECT, ALG_SMALL, ALG_LL, ALG_TREE, ALG_LINEAR, ALG_RING, ALG_RD,
       ALG_PAIRWISE, ALG_HIER };

/* Bytes per pipelined chunk of the tree broadcast. */
#define BCAST_CHUNK (64 * 1024)

static int parse_algo(const char *v, const char *var, const char *rtn, const char *const *names,
                      const int *ids, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v, names[i]))
            return ids[i];
    shmemi_user_error(rtn, "%s: unknown value '%s'", var, v);
}

/* 1 when [addr, addr+len) is in the heap, so every member maps it. */
static inline int in_heap(const void *addr, size_t len)
{
    uintptr_t off = (uintptr_t)addr - (uintptr_t)shmemi_g.heap_base;
    return off < shmemi_g.heap_size && len <= shmemi_g.heap_size - off;
}

static inline int direct_ok(const struct shmemi_team *t, const void *a, size_t alen, const void *b,
                            size_t blen)
{
    return t->all_mapped && in_heap(a, alen) && in_heap(b, blen);
}

/* Checks a team argument; 0 when this PE may go on. */
static int team_arg(shmem_team_t team, const char *rtn)
{
    SHMEMI_CHECK_INIT(rtn);
    return shmemi_team_ok(team) ? 0 : -1;
}

/* Signals "entered epoch e" to the members in list (team indices). */
static void announce(struct shmemi_team *t, shmemi_team_slot_t *s, uint64_t e, int idx)
{
    shmemi_coll_signal(&s->sig[t->my_pe], shmemi_coll_sigval(e, 0), t->pes[idx]);
}

/* ---- team_sync ---- */

SHMEM_API int pshmem_team_sync(shmem_team_t team)
{
    if (team_arg(team, "shmem_team_sync"))
        return SHMEMX_ERROR_INVALID_VALUE;
    shmemi_team_sync(team);
    return 0;
}
SHMEMI_ALIAS(shmem_team_sync)

/* ---- algorithm counts ---- */

static const char *const coll_kind_names[SHMEMI_CK_COUNT] = {
    "barrier", "broadcast", "collect", "alltoall", "reduce",
};
static const char *const coll_algo_names[SHMEMI_CA_COUNT] = {
    "direct", "small", "ll", "central", "dissemination", "tree", "linear", "ring", "rd", "bruck",
    "pairwise", "rsag", "hier",
};

SHMEM_API long shmemx_team_coll_count(shmem_team_t team, const char *coll, const char *algo)
{
    static const char rtn[] = "shmemx_team_coll_count";
    int k, a;

    SHMEMI_CHECK_INIT(rtn);
    if (!shmemi_team_ok(team))
        return -1;
    for (k = 0; k < SHMEMI_CK_COUNT && (!coll || strcmp(coll, coll_kind_names[k])); k++)
        ;
    for (a = 0; a < SHMEMI_CA_COUNT && (!algo || strcmp(algo, coll_algo_names[a])); a++)
        ;
    if (k == SHMEMI_CK_COUNT) {
        shmemi_warn("%s: argument coll '%s' is not a collective (barrier, broadcast, collect, "
                    "alltoall or reduce)", rtn, coll ? coll : "(null)");
        return -1;
    }
    if (a == SHMEMI_CA_COUNT) {
        shmemi_warn("%s: argument algo '%s' is not an algorithm (direct, small, ll, central, "
                    "dissemination, tree, linear, ring, rd, bruck, pairwise, rsag or hier)", rtn,
                    algo ? algo : "(null)");
        return -1;
    }
    return (long)team->coll_count[k][a];
}

/* ---- broadcast ---- */

static void bcast_tree(struct shmemi_team *t, char *dest, const char *src, size_t len, int root,
                       int linear, int write_root)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, r = (t->my_pe - root + n) % n, mask, parent = -1;
    int kids[64], nk = 0;
    uint64_t e = shmemi_coll_begin_rooted(t);
    size_t nchunks = len ? (len + BCAST_CHUNK - 1) / BCAST_CHUNK : 0, c;

    if (linear) {
        if (r != 0)
            parent = root;
        else
            for (int k = 1; k < n; k++)
                kids[nk++] = (root + k) % n;
    } else {
        for (mask = 1; mask < n; mask <<= 1)
            if (r & mask) {
                parent = (r - mask + root) % n;
                break;
            }
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (r + mask < n)
                kids[nk++] = (r + mask + root) % n;
    }
    if (parent >= 0)
        announce(t, s, e, parent);
    else if (write_root && dest != src)
        memmove(dest, src, len);
    for (int k = 0; k < nk; k++)
        shmemi_coll_wait(&s->sig[kids[k]], shmemi_coll_sigval(e, 0));
    for (c = 0; c < nchunks || (c == 0 && nchunks == 0); c++) {
        size_t off = c * BCAST_CHUNK, clen = len - off < BCAST_CHUNK ? len - off : BCAST_CHUNK;
        if (!len)
            clen = 0;
        if (parent >= 0)
            shmemi_coll_wait(&s->sig[parent], shmemi_coll_sigval(e, (unsigned)c + 1));
        for (int k = 0; k < nk; k++)
            shmemi_coll_put_signal(dest + off, (parent >= 0 ? dest : src) + off, clen,
                                   &s->sig[t->my_pe], shmemi_coll_sigval(e, (unsigned)c + 1),
                                   t->pes[kids[k]]);
        if (!len)
            break;
    }
}

/* Direct broadcast: every non-root copies out of the root's source.  From
 * BCAST_SPLIT bytes on, the root (otherwise idle) writes the last 1/n of
 * every member's dest itself, so the root and the members copy about the
 * same amount at once. */
#define BCAST_SPLIT (64 * 1024)

/* Below BCAST_SPLIT: one wait each.  The root publishes "src ready" (the
 * broadcast's epoch) in its slot and waits until the n - 1 members have
 * counted themselves done on its counter; each member waits for the
 * root's word, copies, and counts itself.  The words are the root's, so
 * successive broadcasts with other roots do not interfere, and the root
 * clears its counter before it publishes (the members of its previous
 * broadcast are all counted by then). */
#define BCAST_READY (SHMEMI_TEAM_BAR_ROUNDS - 3)
#define BCAST_DONE (SHMEMI_TEAM_BAR_ROUNDS - 4)

static void bcast_flag(struct shmemi_team *t, void *dest, const void *src, size_t len, int root,
                       int write_root)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int rpe = t->pes[root];
    uint64_t e = shmemi_coll_begin_rooted(t);
    uint64_t *ready = (uint64_t *)shmemi_direct((const void *)&s->bar[BCAST_READY],
                                                sizeof(uint64_t), rpe);
    uint64_t *done = (uint64_t *)shmemi_direct((const void *)&s->bar[BCAST_DONE],
                                               sizeof(uint64_t), rpe);

    if (t->my_pe == root) {
        if (write_root && dest != src)
            memmove(dest, src, len);
        __atomic_store_n(done, 0, __ATOMIC_RELAXED);
        __atomic_store_n(ready, e, __ATOMIC_RELEASE);
        shmemi_coll_wait(done, (uint64_t)t->n_pes - 1);
    } else {
        shmemi_coll_wait(ready, e);
        memcpy(dest, shmemi_direct(src, len, rpe), len);
        __atomic_fetch_add(done, 1, __ATOMIC_RELEASE);
    }
}

static void bcast_direct(struct shmemi_team *t, void *dest, const void *src, size_t len, int root,
                         int write_root)
{
    int n = t->n_pes;
    size_t share = len >= BCAST_SPLIT ? (len / (size_t)n) & ~(size_t)63 : 0, head = len - share;

    if (len < BCAST_SPLIT) {
        bcast_flag(t, dest, src, len, root, write_root);
        return;
    }
    shmemi_team_sync(t);
    if (t->my_pe != root) {
        if (head)
            memcpy(dest, shmemi_direct(src, head, t->pes[root]), head);
    } else {
        if (write_root && dest != src)
            memmove(dest, src, len);
        for (int k = 1; share && k < n; k++)
            memcpy(shmemi_direct((char *)dest + head, share, t->pes[(root + k) % n]),
                   (const char *)src + head, share);
    }
    shmemi_team_sync(t);
}

/* The engine; write_root: the root's dest gets the data too (team forms). */
static void bcast(struct shmemi_team *t, void *dest, const void *src, size_t len, int root,
                  int write_root, const char *rtn)
{
    static const char *const names[] = { "auto", "direct", "tree", "linear", "hier" };
    static const int ids[] = { ALG_AUTO, ALG_DIRECT, ALG_TREE, ALG_LINEAR, ALG_HIER };
    int alg = parse_algo(shmemi_g.env.bcast_algo, "FABSHMEM_BCAST_ALGO", rtn, names, ids, 5);
    int dok;

    if (root < 0 || root >= t->n_pes)
        shmemi_user_error(rtn, "PE_root %d is out of range (the team has %d PEs)", root,
                          t->n_pes);
    if (t->n_pes == 1) {
        if (write_root && dest != src)
            memmove(dest, src, len);
        return;
    }
    dok = direct_ok(t, dest, len, src, len);
    if ((alg == ALG_DIRECT && !dok) || (alg == ALG_HIER && !shmemi_coll_hier_ok(t)))
        alg = ALG_AUTO;
    if (alg == ALG_AUTO)
        alg = dok ? ALG_DIRECT : shmemi_coll_hier_ok(t) ? ALG_HIER :
              len <= shmemi_g.env.coll_small || t->n_pes > 8 ? ALG_TREE : ALG_LINEAR;
    if (alg == ALG_LINEAR && t->n_pes - 1 > 64)
        alg = ALG_TREE; /* a linear broadcast to many takes the tree */
    switch (alg) {
    case ALG_DIRECT:
        shmemi_coll_count(t, SHMEMI_CK_BCAST, SHMEMI_CA_DIRECT);
        bcast_direct(t, dest, src, len, root, write_root);
        break;
    case ALG_HIER:
        shmemi_coll_bcast_hier(t, dest, src, len, root, write_root, rtn);
        break;
    default:
        shmemi_coll_count(t, SHMEMI_CK_BCAST, alg == ALG_LINEAR ? SHMEMI_CA_LINEAR
                                                                : SHMEMI_CA_TREE);
        bcast_tree(t, dest, src, len, root, alg == ALG_LINEAR, write_root);
        break;
    }
}

/* ---- collect, fcollect ---- */

/* Ring allgather of variable blocks straight into every member's dest:
 * in step k member i forwards block (i - k) to member i + 1. */
static void collect_ring(struct shmemi_team *t, char *dest, const char *src, const size_t *off,
                         const size_t *len, uint64_t e, unsigned step0)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, me = t->my_pe, right = (me + 1) % n, left = (me - 1 + n) % n, k;

    if (dest + off[me] != src)
        memmove(dest + off[me], src, len[me]);
    shmemi_coll_wait(&s->sig[right], shmemi_coll_sigval(e, 0));
    for (k = 0; k < n - 1; k++) {
        int b = (me - k + n) % n;
        if (k > 0)
            shmemi_coll_wait(&s->sig[left], shmemi_coll_sigval(e, step0 + k - 1));
        shmemi_coll_put_signal(dest + off[b], dest + off[b], len[b], &s->sig[me],
                               shmemi_coll_sigval(e, step0 + k), t->pes[right]);
    }
    shmemi_coll_wait(&s->sig[left], shmemi_coll_sigval(e, step0 + n - 2));
}

/* Recursive doubling (power-of-two teams): in round k member i sends the
 * blocks of its aligned group of 2^k members to member i ^ 2^k. */
static void collect_rd(struct shmemi_team *t, char *dest, const char *src, const size_t *off,
                       const size_t *len, uint64_t e, unsigned step0)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, me = t->my_pe, k = 0, dist;

    if (dest + off[me] != src)
        memmove(dest + off[me], src, len[me]);
    for (dist = 1; dist < n; dist <<= 1)
        shmemi_coll_wait(&s->sig[me ^ dist], shmemi_coll_sigval(e, 0));
    for (dist = 1; dist < n; dist <<= 1, k++) {
        /* I hold the blocks of my aligned group of dist members; the
         * partner holds the next (or previous) group. */
        int partner = me ^ dist, g0 = me - (me % dist);
        size_t goff = off[g0], glen = off[g0 + dist] - goff;
        shmemi_coll_put_signal(dest + goff, dest + goff, glen, &s->sig[me],
                               shmemi_coll_sigval(e, step0 + k), t->pes[partner]);
        shmemi_coll_wait(&s->sig[partner], shmemi_coll_sigval(e, step0 + k));
    }
}

/* Bruck's allgather, any team size: in round k (distance d = 2^k) member i
 * holds the blocks i .. i + d - 1 (mod n) and sends the first min(d, n - d)
 * of them to member i - d, which holds the d blocks before them; after
 * ceil(log2 n) rounds every member holds all.  The blocks go straight to
 * their place in the receiver's dest: one put with signal, or two where
 * the range wraps past the last member (steps step0 + 2k and
 * step0 + 2k + 1; the receiver waits for the second).  off[] has n + 1
 * entries (off[n]: the total).  counts: dest and off are the counts in the
 * scratch (nobody needs to have entered), else the user's dest, which
 * member i - d must have entered before it receives. */
static void bruck_rounds(struct shmemi_team *t, char *dest, const size_t *off, uint64_t e,
                         unsigned step0, int counts)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, me = t->my_pe, k, dist;

    for (k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        int to = (me - dist + n) % n, from = (me + dist) % n;
        int end = me + (dist < n - dist ? dist : n - dist);
        unsigned last = step0 + 2 * (unsigned)k + 1;
        int pe = t->pes[to];

        if (!counts)
            shmemi_coll_wait(&s->sig[to], shmemi_coll_sigval(e, 0));
        if (end <= n) {
            shmemi_coll_put_signal(dest + off[me], dest + off[me], off[end] - off[me],
                                   &s->sig[t->my_pe], shmemi_coll_sigval(e, last), pe);
        } else {
            shmemi_coll_put_signal(dest + off[me], dest + off[me], off[n] - off[me],
                                   &s->sig[t->my_pe], shmemi_coll_sigval(e, last - 1), pe);
            shmemi_coll_put_signal(dest, dest, off[end - n], &s->sig[t->my_pe],
                                   shmemi_coll_sigval(e, last), pe);
        }
        shmemi_coll_wait(&s->sig[from], shmemi_coll_sigval(e, last));
    }
}

/* Rounds of recursive doubling (and of Bruck's variant) for n members. */
static unsigned rd_rounds(int n)
{
    unsigned L = 0;

    while ((1 << L) < n)
        L++;
    return L;
}

/* The one-sync small path of node teams (taken only where the direct
 * path applies): whether bytes (the same on every member) fit, and the
 * scratch buffer of epoch e on world PE pe. */
static inline int small_ok(const struct shmemi_team *t, size_t bytes)
{
    return bytes <= shmemi_coll_small_max(t, 1);
}
static inline char *small_buf(struct shmemi_team *t, uint64_t e, int pe)
{
    return shmemi_direct(shmemi_team_slot(t)->scratch[e & 1], SHMEMI_COLL_HALF, pe);
}

/* The counts of a collect over the transport: every member's mylen in
 * len[], by Bruck's rounds over the counts in the scratch of epoch e
 * (steps 1 .. 2 * rd_rounds(n)); coff (n + 1 entries, the caller's block
 * offsets, not yet in use) holds the offsets of the counts meanwhile. */
static void collect_counts(struct shmemi_team *t, uint64_t e, size_t mylen, size_t *len,
                           size_t *coff)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, j;
    uint64_t *cnt = (uint64_t *)s->scratch[e & 1];

    for (j = 0; j <= n; j++)
        coff[j] = (size_t)j * sizeof(uint64_t);
    cnt[t->my_pe] = mylen;
    bruck_rounds(t, (char *)cnt, coff, e, 1, 1);
    /* Copied out at once: a member two epochs ahead may write here as soon
     * as my data has reached it. */
    for (j = 0; j < n; j++)
        len[j] = (size_t)cnt[j];
}

static void collect_engine(struct shmemi_team *t, void *dest, const void *src, size_t mylen,
                           size_t elsize, int fixed, const char *rtn)
{
    static const char *const names[] = { "auto", "direct", "small", "ll", "ring", "rd", "hier" };
    static const int ids[] = { ALG_AUTO, ALG_DIRECT, ALG_SMALL, ALG_LL, ALG_RING, ALG_RD,
                               ALG_HIER };
    int alg = parse_algo(shmemi_g.env.collect_algo, "FABSHMEM_COLLECT_ALGO", rtn, names, ids, 7);
    int n = t->n_pes, me = t->my_pe, j, pow2 = (n & (n - 1)) == 0, dok, ll, small, hier;
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    size_t *off, *len, total;
    uint64_t e;
    unsigned step0 = 1;

    if (n == 1) {
        if (dest != src)
            memmove(dest, src, mylen);
        return;
    }
    /* The direct path needs the whole dest in the heap: the total is only
     * known after the counts, so decide on the segment of dest. */
    dok = direct_ok(t, dest, 1, src, mylen ? mylen : 1);
    ll = fixed && shmemi_coll_ll_ok(t, mylen);
    small = fixed && t->all_mapped && mylen <= SHMEMI_COLL_HALF;
    hier = !t->all_mapped && shmemi_coll_hier_ok(t);
    if ((alg == ALG_LL && !ll) || (alg == ALG_SMALL && !small) || (alg == ALG_DIRECT && !dok) ||
        (alg == ALG_HIER && !hier))
        alg = ALG_AUTO;
    if (alg == ALG_AUTO) {
        if (ll)
            alg = ALG_LL;
        else if (dok && small && small_ok(t, mylen))
            alg = ALG_SMALL;
        else if (dok)
            alg = ALG_DIRECT;
        else if (hier && (!fixed || (size_t)n * mylen <= SHMEMI_COLL_HIER_FCOLLECT_MAX))
            alg = ALG_HIER;
        else if (fixed)
            alg = (size_t)n * mylen <= shmemi_g.env.coll_small ? ALG_RD : ALG_RING;
    }
    if (alg == ALG_LL) {
        /* Tiny: my block in my low-latency line, everybody's from theirs. */
        shmemi_coll_count(t, SHMEMI_CK_COLLECT, SHMEMI_CA_LL);
        e = shmemi_coll_begin(t);
        shmemi_coll_ll_publish(t, e, src, mylen);
        for (j = 0; j < n; j++)
            memcpy((char *)dest + (size_t)j * mylen, shmemi_coll_ll_wait(t, e, j), mylen);
        shmemi_coll_synced(t, e);
        return;
    }
    if (alg == ALG_SMALL) {
        /* One sync: my block into my scratch, then everybody reads. */
        shmemi_coll_count(t, SHMEMI_CK_COLLECT, SHMEMI_CA_SMALL);
        e = shmemi_coll_begin(t);
        memcpy(small_buf(t, e, t->pes[me]), src, mylen);
        shmemi_coll_ready(t, e);
        for (j = 0; j < n; j++)
            memcpy((char *)dest + (size_t)j * mylen, small_buf(t, e, t->pes[j]), mylen);
        return;
    }
    /* Beyond the node paths collect's counts go through a scratch half. */
    if (!fixed && alg != ALG_DIRECT && (size_t)n * sizeof(uint64_t) > SHMEMI_COLL_HALF)
        shmemi_user_error(rtn, "a collect over the transport takes teams of up to %zu PEs (this "
                          "one has %d); fcollect has no limit", SHMEMI_COLL_HALF / sizeof(uint64_t),
                          n);
    if (alg == ALG_HIER) {
        shmemi_coll_collect_hier(t, dest, src, mylen, fixed, rtn);
        return;
    }
    off = malloc(sizeof(size_t) * ((size_t)n + 1));
    len = malloc(sizeof(size_t) * (size_t)n);
    if (!off || !len)
        shmemi_fatal("%s: out of memory", rtn);
    if (alg == ALG_DIRECT) {
        shmemi_coll_count(t, SHMEMI_CK_COLLECT, SHMEMI_CA_DIRECT);
        s->aux[0] = mylen;
        shmemi_team_sync(t);
        for (j = 0; j < n; j++)
            len[j] = fixed ? mylen : *(volatile uint64_t *)shmemi_direct((const void *)&s->aux[0],
                                                                        8, t->pes[j]);
        for (total = 0, j = 0; j < n; j++) {
            off[j] = total;
            total += len[j];
        }
        for (j = 0; j < n; j++) {
            int p = (me + j) % n;
            if (p == me) {
                if ((char *)dest + off[me] != src)
                    memmove((char *)dest + off[me], src, len[me]);
            } else if (len[p]) {
                memcpy((char *)dest + off[p], shmemi_direct(src, len[p], t->pes[p]), len[p]);
            }
        }
        shmemi_team_sync(t);
        free(off);
        free(len);
        return;
    }
    /* Over the transport.  "Entered" goes first, to the members that will
     * write into my dest (collect under auto: to those of either
     * algorithm, chosen only once the counts give the total); then the
     * counts (collect), then the data. */
    e = shmemi_coll_begin(t);
    if (alg != ALG_RD)
        announce(t, s, e, (me - 1 + n) % n);
    if (alg != ALG_RING)
        for (int dist = 1; dist < n; dist <<= 1)
            announce(t, s, e, pow2 ? me ^ dist : (me + dist) % n);
    if (fixed) {
        for (j = 0; j < n; j++)
            len[j] = mylen;
    } else {
        collect_counts(t, e, mylen, len, off);
        step0 = 2 * rd_rounds(n) + 1;
    }
    for (total = 0, j = 0; j < n; j++) {
        off[j] = total;
        total += len[j];
    }
    off[n] = total;
    if (alg == ALG_AUTO)
        alg = total <= shmemi_g.env.coll_small ? ALG_RD : ALG_RING;
    if (alg == ALG_RD && pow2) {
        shmemi_coll_count(t, SHMEMI_CK_COLLECT, SHMEMI_CA_RD);
        collect_rd(t, dest, src, off, len, e, step0);
    } else if (alg == ALG_RD) {
        shmemi_coll_count(t, SHMEMI_CK_COLLECT, SHMEMI_CA_BRUCK);
        if ((char *)dest + off[me] != src)
            memmove((char *)dest + off[me], src, len[me]);
        bruck_rounds(t, dest, off, e, step0, 0);
    } else {
        shmemi_coll_count(t, SHMEMI_CK_COLLECT, SHMEMI_CA_RING);
        collect_ring(t, dest, src, off, len, e, step0);
    }
    free(off);
    free(len);
}

/* ---- alltoall(s) ---- */

/* Copies nelems elements of elsize bytes from from (every fst-th element)
 * to to (every tst-th): one memcpy when both are contiguous. */
static void copy_strided(char *to, ptrdiff_t tst, const char *from, ptrdiff_t fst, size_t nelems,
                         size_t elsize)
{
    if (tst == 1 && fst == 1) {
        memcpy(to, from, nelems * elsize);
        return;
    }
    for (size_t i = 0; i < nelems; i++)
        memcpy(to + i * (size_t)tst * elsize, from + i * (size_t)fst * elsize, elsize);
}

static void alltoall_engine(struct shmemi_team *t, char *dest, const char *src, ptrdiff_t dst,
                            ptrdiff_t sst, size_t nelems, size_t elsize, const char *rtn)
{
    static const char *const names[] = { "auto", "direct", "small", "ll", "pairwise" };
    static const int ids[] = { ALG_AUTO, ALG_DIRECT, ALG_SMALL, ALG_LL, ALG_PAIRWISE };
    int alg = parse_algo(shmemi_g.env.alltoall_algo, "FABSHMEM_ALLTOALL_ALGO", rtn, names, ids, 5);
    int n = t->n_pes, me = t->my_pe, k, dok, ll, small;
    size_t span_s = (nelems ? (nelems - 1) * (size_t)sst + 1 : 0) * elsize;
    size_t bstride_d = nelems * (size_t)dst * elsize, bstride_s = nelems * (size_t)sst * elsize;
    int strided = dst != 1 || sst != 1;
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    uint64_t e;

    if (dst < 1 || sst < 1)
        shmemi_user_error(rtn, "strides dst %td and sst %td must be positive", dst, sst);
    size_t dspan = (size_t)n * bstride_d, sspan = (size_t)n * bstride_s;
    if (!dspan)
        dspan = 1;
    if (!sspan)
        sspan = 1;
    size_t blk = nelems * elsize;
    dok = n == 1 || direct_ok(t, dest, dspan, src, sspan);
    ll = n > 1 && shmemi_coll_ll_ok(t, (size_t)n * blk);
    small = n > 1 && t->all_mapped && (size_t)n * blk <= SHMEMI_COLL_HALF;
    if ((alg == ALG_LL && !ll) || (alg == ALG_SMALL && !small) || (alg == ALG_DIRECT && !dok))
        alg = ALG_AUTO;
    if (alg == ALG_AUTO)
        alg = ll ? ALG_LL : dok && small && small_ok(t, (size_t)n * blk) ? ALG_SMALL :
              dok ? ALG_DIRECT : ALG_PAIRWISE;
    if (n > 1)
        shmemi_coll_count(t, SHMEMI_CK_ALLTOALL, alg == ALG_LL ? SHMEMI_CA_LL :
                                                 alg == ALG_SMALL ? SHMEMI_CA_SMALL :
                                                 alg == ALG_DIRECT ? SHMEMI_CA_DIRECT :
                                                 SHMEMI_CA_PAIRWISE);
    if (alg == ALG_LL && n > 1) {
        /* Tiny: my n blocks packed in my low-latency line, then my block
         * out of every member's. */
        char mine[SHMEMI_COLL_LL_BYTES];
        e = shmemi_coll_begin(t);
        for (k = 0; k < n; k++)
            copy_strided(mine + (size_t)k * blk, 1, src + (size_t)k * bstride_s, sst, nelems,
                         elsize);
        shmemi_coll_ll_publish(t, e, mine, (size_t)n * blk);
        for (k = 0; k < n; k++)
            copy_strided(dest + (size_t)k * bstride_d, dst,
                         (const char *)shmemi_coll_ll_wait(t, e, k) + (size_t)me * blk, 1,
                         nelems, elsize);
        shmemi_coll_synced(t, e);
        return;
    }
    if (alg == ALG_SMALL) {
        /* One sync: my n blocks packed into my scratch, then everybody
         * takes its block from every member's scratch. */
        char *mine;
        e = shmemi_coll_begin(t);
        mine = small_buf(t, e, t->pes[me]);
        for (k = 0; k < n; k++)
            copy_strided(mine + (size_t)k * blk, 1, src + (size_t)k * bstride_s, sst, nelems,
                         elsize);
        shmemi_coll_ready(t, e);
        for (k = 0; k < n; k++)
            copy_strided(dest + (size_t)k * bstride_d, dst,
                         small_buf(t, e, t->pes[k]) + (size_t)me * blk, 1, nelems, elsize);
        return;
    }
    if (alg == ALG_DIRECT) {
        if (n > 1)
            shmemi_team_sync(t);
        for (k = 0; k < n; k++) {
            int p = (me + k) % n;
            const char *from = p == me ? src + (size_t)me * bstride_s
                                       : shmemi_direct(src + (size_t)me * bstride_s, span_s,
                                                       t->pes[p]);
            char *to = dest + (size_t)p * bstride_d;
            if (!nelems)
                continue;
            if (!strided) {
                memmove(to, from, nelems * elsize);
            } else {
                for (size_t i = 0; i < nelems; i++)
                    memmove(to + i * (size_t)dst * elsize, from + i * (size_t)sst * elsize,
                            elsize);
            }
        }
        if (n > 1)
            shmemi_team_sync(t);
        return;
    }
    /* Pairwise through the transport: everyone announces its entry to all,
     * then in step k puts its block for member me + k into that member's
     * dest (block me) and signals; then waits for every sender. */
    e = shmemi_coll_begin(t);
    for (k = 1; k < n; k++)
        announce(t, s, e, (me + k) % n);
    for (k = 0; k < n; k++) {
        int p = (me + k) % n;
        const char *from = src + (size_t)p * bstride_s;
        char *to = dest + (size_t)me * bstride_d;
        if (p == me) {
            for (size_t i = 0; i < nelems; i++)
                memmove(to + i * (size_t)dst * elsize, from + i * (size_t)sst * elsize, elsize);
            continue;
        }
        shmemi_coll_wait(&s->sig[p], shmemi_coll_sigval(e, 0));
        if (!strided) {
            shmemi_coll_put_signal(to, from, nelems * elsize, &s->sig[me],
                                   shmemi_coll_sigval(e, 1), t->pes[p]);
        } else {
            if (nelems)
                shmemi_must(shmemi_iput(SHMEM_CTX_DEFAULT, to, from, dst, sst, 1, nelems, elsize, t->pes[p],
                            rtn));
            shmemi_must(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
            shmemi_coll_signal(&s->sig[me], shmemi_coll_sigval(e, 1), t->pes[p]);
        }
    }
    for (k = 1; k < n; k++)
        shmemi_coll_wait(&s->sig[(me + k) % n], shmemi_coll_sigval(e, 1));
}

/* ---- the team-based routines ---- */

#define TEAM_COLL_DEFS(TYPE, TN) \
    SHMEM_API int pshmem_##TN##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                          size_t nelems, int PE_root) \
    { \
        const char *rtn = "shmem_" #TN "_broadcast"; \
        if (team_arg(team, rtn)) \
            return SHMEMX_ERROR_INVALID_VALUE; \
        bcast(team, dest, source, shmemi_nbytes_must(nelems, sizeof(TYPE), rtn), PE_root, 1, rtn); \
        return 0; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_broadcast) \
    SHMEM_API int pshmem_##TN##_collect(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                        size_t nelems) \
    { \
        const char *rtn = "shmem_" #TN "_collect"; \
        if (team_arg(team, rtn)) \
            return SHMEMX_ERROR_INVALID_VALUE; \
        collect_engine(team, dest, source, shmemi_nbytes_must(nelems, sizeof(TYPE), rtn), \
                       sizeof(TYPE), 0, rtn); \
        return 0; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_collect) \
    SHMEM_API int pshmem_##TN##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                         size_t nelems) \
    { \
        const char *rtn = "shmem_" #TN "_fcollect"; \
        if (team_arg(team, rtn)) \
            return SHMEMX_ERROR_INVALID_VALUE; \
        collect_engine(team, dest, source, shmemi_nbytes_must(nelems, sizeof(TYPE), rtn), \
                       sizeof(TYPE), 1, rtn); \
        return 0; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_fcollect) \
    SHMEM_API int pshmem_##TN##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                         size_t nelems) \
    { \
        const char *rtn = "shmem_" #TN "_alltoall"; \
        if (team_arg(team, rtn)) \
            return SHMEMX_ERROR_INVALID_VALUE; \
        shmemi_nbytes_must(nelems * (size_t)team->n_pes, sizeof(TYPE), rtn); \
        alltoall_engine(team, (char *)dest, (const char *)source, 1, 1, nelems, sizeof(TYPE), \
                        rtn); \
        return 0; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_alltoall) \
    SHMEM_API int pshmem_##TN##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems) \
    { \
        const char *rtn = "shmem_" #TN "_alltoalls"; \
        if (team_arg(team, rtn)) \
            return SHMEMX_ERROR_INVALID_VALUE; \
        alltoall_engine(team, (char *)dest, (const char *)source, dst, sst, nelems, \
                        sizeof(TYPE), rtn); \
        return 0; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_alltoalls)
SHMEMI_RMA_TYPES(TEAM_COLL_DEFS)

SHMEM_API int pshmem_broadcastmem(shmem_team_t team, void *dest, const void *source,
                                  size_t nelems, int PE_root)
{
    if (team_arg(team, "shmem_broadcastmem"))
        return SHMEMX_ERROR_INVALID_VALUE;
    bcast(team, dest, source, nelems, PE_root, 1, "shmem_broadcastmem");
    return 0;
}
SHMEMI_ALIAS(shmem_broadcastmem)

SHMEM_API int pshmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    if (team_arg(team, "shmem_collectmem"))
        return SHMEMX_ERROR_INVALID_VALUE;
    collect_engine(team, dest, source, nelems, 1, 0, "shmem_collectmem");
    return 0;
}
SHMEMI_ALIAS(shmem_collectmem)

SHMEM_API int pshmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    if (team_arg(team, "shmem_fcollectmem"))
        return SHMEMX_ERROR_INVALID_VALUE;
    collect_engine(team, dest, source, nelems, 1, 1, "shmem_fcollectmem");
    return 0;
}
SHMEMI_ALIAS(shmem_fcollectmem)

SHMEM_API int pshmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    if (team_arg(team, "shmem_alltoallmem"))
        return SHMEMX_ERROR_INVALID_VALUE;
    alltoall_engine(team, dest, source, 1, 1, nelems, 1, "shmem_alltoallmem");
    return 0;
}
SHMEMI_ALIAS(shmem_alltoallmem)

SHMEM_API int pshmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                                  ptrdiff_t sst, size_t nelems)
{
    if (team_arg(team, "shmem_alltoallsmem"))
        return SHMEMX_ERROR_INVALID_VALUE;
    alltoall_engine(team, dest, source, dst, sst, nelems, 1, "shmem_alltoallsmem");
    return 0;
}
SHMEMI_ALIAS(shmem_alltoallsmem)

/* ---- the deprecated active-set forms ---- */

SHMEM_API void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHMEMI_CHECK_INIT("shmem_barrier");
    shmemi_team_barrier(shmemi_active_set_team(PE_start, logPE_stride, PE_size, "shmem_barrier"));
}
SHMEMI_ALIAS(shmem_barrier)

SHMEM_API void pshmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHMEMI_CHECK_INIT("shmem_sync");
    shmemi_team_sync(shmemi_active_set_team(PE_start, logPE_stride, PE_size, "shmem_sync"));
}
SHMEMI_ALIAS(shmem_sync)

#define ACTIVE_SET_DEFS(BITS) \
    SHMEM_API void pshmem_broadcast##BITS(void *dest, const void *source, size_t nelems, \
                                          int PE_root, int PE_start, int logPE_stride, \
                                          int PE_size, long *pSync) \
    { \
        const char *rtn = "shmem_broadcast" #BITS; \
        SHMEMI_CHECK_INIT(rtn); \
        bcast(shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn), dest, source, \
              shmemi_nbytes_must(nelems, BITS / 8, rtn), PE_root, 0, rtn); \
    } \
    SHMEMI_ALIAS(shmem_broadcast##BITS) \
    SHMEM_API void pshmem_collect##BITS(void *dest, const void *source, size_t nelems, \
                                        int PE_start, int logPE_stride, int PE_size, \
                                        long *pSync) \
    { \
        const char *rtn = "shmem_collect" #BITS; \
        SHMEMI_CHECK_INIT(rtn); \
        collect_engine(shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn), dest, \
                       source, shmemi_nbytes_must(nelems, BITS / 8, rtn), BITS / 8, 0, rtn); \
    } \
    SHMEMI_ALIAS(shmem_collect##BITS) \
    SHMEM_API void pshmem_fcollect##BITS(void *dest, const void *source, size_t nelems, \
                                         int PE_start, int logPE_stride, int PE_size, \
                                         long *pSync) \
    { \
        const char *rtn = "shmem_fcollect" #BITS; \
        SHMEMI_CHECK_INIT(rtn); \
        collect_engine(shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn), dest, \
                       source, shmemi_nbytes_must(nelems, BITS / 8, rtn), BITS / 8, 1, rtn); \
    } \
    SHMEMI_ALIAS(shmem_fcollect##BITS) \
    SHMEM_API void pshmem_alltoall##BITS(void *dest, const void *source, size_t nelems, \
                                         int PE_start, int logPE_stride, int PE_size, \
                                         long *pSync) \
    { \
        const char *rtn = "shmem_alltoall" #BITS; \
        SHMEMI_CHECK_INIT(rtn); \
        alltoall_engine(shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn), dest, \
                        source, 1, 1, nelems, BITS / 8, rtn); \
    } \
    SHMEMI_ALIAS(shmem_alltoall##BITS) \
    SHMEM_API void pshmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, \
                                          ptrdiff_t sst, size_t nelems, int PE_start, \
                                          int logPE_stride, int PE_size, long *pSync) \
    { \
        const char *rtn = "shmem_alltoalls" #BITS; \
        SHMEMI_CHECK_INIT(rtn); \
        alltoall_engine(shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn), dest, \
                        source, dst, sst, nelems, BITS / 8, rtn); \
    } \
    SHMEMI_ALIAS(shmem_alltoalls##BITS)
ACTIVE_SET_DEFS(32)
ACTIVE_SET_DEFS(64)
