/*
 * The reduction algorithms: allreduce (team-based and active-set), the sum
 * scans and reduce-scatter, over the put/signal/barrier primitives of
 * coll.h and the kernels of coll_reduce_kern.c.
 *
 * Allreduce (FABSHMEM_REDUCE_ALGO, checked at every call):
 * - direct: every member maps every member's heap and dest and source are
 *   in the heap.  Sync; member i reduces slice i of nreduce (n near-equal
 *   slices, cache-line multiples) straight out of every member's source and
 *   stores the result into slice i of every member's dest; sync.  Slice i
 *   of any source is read and slice i of any dest written by member i only,
 *   so dest == source is safe.  The slice goes in blocks that stay in the
 *   cache between the reduction and the copies.
 * - rd: recursive doubling of the dest arrays through the team's scratch,
 *   in chunks (one collective epoch each, so the halves of the scratch
 *   alternate by the parity rule of coll.h).  A team that is not a power
 *   of two first folds its extra members into the power-of-two set and
 *   sends them the result at the end, straight into their dest.
 * - rsag: ring reduce-scatter, then ring allgather, over put with signal
 *   (the partials through the receivers' scratch, one epoch per piece;
 *   the reduced slices straight into the dests): each member sends and
 *   receives 2 (n - 1) / n of the array, for any n up to 512 (beyond, a
 *   piece would be less than a cache line: rd).
 * - hier: the team spans nodes and some node holds several members.  Each
 *   node's first member (its leader) reduces its node's sources (mapped),
 *   the leaders allreduce among themselves (rd or rsag by size), and each
 *   node's members copy the result out of their leader's dest.
 * - ll (every member maps every member): up to SHMEMI_COLL_LL_BYTES, each
 *   member's source and the epoch in one cache line of its own (coll.h);
 *   every member reduces the members' lines.
 * - small (the same teams): one sync: each member copies its source into
 *   its scratch (up to a scratch half), syncs and reduces every member's
 *   copy.
 * - auto: ll where it applies, small up to shmemi_coll_small_max bytes
 *   (coll.h; divided by the team size when direct applies), else direct
 *   when it applies, else hier when it applies, else rd up to
 *   FABSHMEM_COLL_SMALL bytes and rsag above.  A forced algorithm that
 *   cannot apply is auto (shmemx_team_coll_count says what ran).
 * Every member of a team makes the same choice: all_mapped, the node map,
 * the host's oversubscription, the segment of the buffers and the size are
 * the same on every member.
 *
 * Scans and reduce-scatter: member i reduces what it needs (the sources of
 * members 0..i or 0..i-1; block i of every source) straight out of the
 * mapped sources and through gets from the others (gets only when
 * FABSHMEM_REDUCE_ALGO is rd or rsag), between two barriers.  When dest
 * overlaps memory that other members read, the result is built in a
 * temporary and copied after the second barrier.
 *
 * Every path combines a given element in one fixed order on one member, or
 * (rd) in pairs whose two members compute the same commutative a op b, so
 * all members receive the same bits, floating point included.
 */
#include "coll/coll_reduce.h"
#include <stdlib.h>

enum { ALGO_AUTO, ALGO_DIRECT, ALGO_SMALL, ALGO_LL, ALGO_RD, ALGO_RSAG, ALGO_HIER };

/* Bytes of one block of the direct path (reduced, then copied to every
 * member while it is in the cache). */
#define DIRECT_BLOCK (16 * 1024)
/* Bytes fetched per member and piece by the get-based paths (at most
 * GET_BUDGET bytes of buffers in all). */
#define GET_PIECE  (64 * 1024)
#define GET_BUDGET (1024 * 1024)

static int reduce_algo(const char *rtn)
{
    static const char *const names[] = { "auto", "direct", "small", "ll", "rd", "rsag", "hier" };
    const char *s = shmemi_g.env.reduce_algo;
    int i;

    if (!s || !*s)
        return ALGO_AUTO;
    for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
        if (!strcmp(s, names[i]))
            return i;
    shmemi_user_error(rtn, "FABSHMEM_REDUCE_ALGO=%s is not a reduction algorithm (auto, direct, "
                      "small, ll, rd, rsag or hier)", s);
}

/* [p, p+len) lies in the symmetric heap. */
static inline int in_heap(const void *p, size_t len)
{
    uintptr_t off = (uintptr_t)p - (uintptr_t)shmemi_g.heap_base;
    return off < shmemi_g.heap_size && len <= shmemi_g.heap_size - off;
}

/* The mapped address of symmetric heap address p on world PE pe (the
 * caller checked that pe is mapped and p in the heap). */
static inline char *peer_ptr(const void *p, int pe)
{
    return shmemi_g.peer_heap[pe] + ((uintptr_t)p - (uintptr_t)shmemi_g.heap_base);
}

static void check_sym(const void *p, size_t len, const char *what, const char *rtn)
{
    int seg;
    uint64_t off;

    if (shmemi_addr_seg(p, len, &seg, &off))
        shmemi_user_error(rtn, "argument %s (%p, %zu bytes) is not a symmetric address", what, p,
                          len);
}

static inline int overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    return (uintptr_t)a < (uintptr_t)b + blen && (uintptr_t)b < (uintptr_t)a + alen;
}

/* dest and source must be the same address or disjoint. */
static void check_inplace(const void *dest, const void *source, size_t len, const char *rtn)
{
    if (dest != source && overlap(dest, len, source, len))
        shmemi_user_error(rtn, "arguments dest (%p) and source (%p) overlap in part (%zu bytes "
                          "each): they must be the same address or disjoint", dest, source, len);
}

static const shmemi_rkern_t *kernel(int tc, int op, const char *rtn)
{
    const shmemi_rkern_t *k = shmemi_reduce_kernel(tc, op);

    if (!k)
        shmemi_fatal("%s: internal: no reduction kernel for type %d and operation %d", rtn, tc,
                     op);
    return k;
}

/* Elements per slice when nelems are split over n members in multiples of
 * a cache line. */
static size_t slice_elems(size_t nelems, int n, size_t esize)
{
    size_t line = esize < 64 ? 64 / esize : 1;
    size_t per = (nelems + (size_t)n - 1) / (size_t)n;

    return (per + line - 1) / line * line;
}

/* ---- direct ---- */

static void allreduce_direct(struct shmemi_team *t, const shmemi_rkern_t *k, size_t esize,
                             char *dest, const char *source, size_t nelems)
{
    int n = t->n_pes, me = t->my_pe, j;
    size_t per = slice_elems(nelems, n, esize);
    size_t lo = (size_t)me * per < nelems ? (size_t)me * per : nelems;
    size_t hi = nelems - lo < per ? nelems : lo + per;
    size_t blk = DIRECT_BLOCK / esize, off, len;

    shmemi_team_sync(t);
    for (off = lo; off < hi; off += len) {
        size_t boff;
        char *out;
        const char *mine;

        len = hi - off < blk ? hi - off : blk;
        boff = off * esize;
        out = dest + boff;
        mine = source + boff;
        /* Mine first: in place, out is my source block, read only here. */
        if (out == mine)
            k->k2(out, peer_ptr(source, t->pes[(me + 1) % n]) + boff, len);
        else
            k->k3(out, mine, peer_ptr(source, t->pes[(me + 1) % n]) + boff, len);
        for (j = 2; j < n; j++)
            k->k2(out, peer_ptr(source, t->pes[(me + j) % n]) + boff, len);
        for (j = 1; j < n; j++)
            memcpy(peer_ptr(dest, t->pes[(me + j) % n]) + boff, out, len * esize);
    }
    shmemi_team_sync(t);
}

/* ---- small, node teams: one sync ----
 * Every member copies its source into its scratch of the epoch, syncs,
 * and reduces all the members' copies in member order (so every member
 * computes the same bits). */
static void allreduce_small(struct shmemi_team *t, const shmemi_rkern_t *k, char *dest,
                            const char *source, size_t nelems, size_t nbytes)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    uint64_t e = shmemi_coll_begin(t);
    int n = t->n_pes, j;

    memcpy(s->scratch[e & 1], source, nbytes);
    shmemi_coll_ready(t, e);
    k->k3(dest, peer_ptr(s->scratch[e & 1], t->pes[0]), peer_ptr(s->scratch[e & 1], t->pes[1]),
          nelems);
    for (j = 2; j < n; j++)
        k->k2(dest, peer_ptr(s->scratch[e & 1], t->pes[j]), nelems);
}

/* ---- tiny, node teams: low-latency lines (coll.h) ----
 * Every member publishes its source in its line and combines the members'
 * lines in member order (so every member computes the same bits). */
static void allreduce_ll(struct shmemi_team *t, const shmemi_rkern_t *k, char *dest,
                         const char *source, size_t nelems, size_t nbytes)
{
    uint64_t e = shmemi_coll_begin(t);
    int n = t->n_pes, j;
    /* A line's data sits 8 bytes into the line, and long double (and its
     * complex) must be 16-byte aligned: the kernels read aligned copies
     * (at most 56 bytes each; found by UBSan). */
    char a[SHMEMI_COLL_LL_BYTES] __attribute__((aligned(16)));
    char b[SHMEMI_COLL_LL_BYTES] __attribute__((aligned(16)));

    shmemi_coll_ll_publish(t, e, source, nbytes);
    memcpy(a, shmemi_coll_ll_wait(t, e, 0), nbytes);
    memcpy(b, shmemi_coll_ll_wait(t, e, 1), nbytes);
    k->k3(dest, a, b, nelems);
    for (j = 2; j < n; j++) {
        memcpy(b, shmemi_coll_ll_wait(t, e, j), nbytes);
        k->k2(dest, b, nelems);
    }
    shmemi_coll_synced(t, e);
}

/* ---- the members that run an algorithm ----
 * The whole team, or a subset of it (the node leaders of hier): np of
 * them, participant j being team index idx[j] (idx NULL: j itself), me my
 * number among them.  Signals go to sig[my team index] as everywhere. */
typedef struct parts {
    int np, me;
    const int *idx;
} parts_t;

static inline int part_tidx(const parts_t *p, int j)
{
    return p->idx ? p->idx[j] : j;
}

static inline int part_pe(const struct shmemi_team *t, const parts_t *p, int j)
{
    return t->pes[part_tidx(p, j)];
}

/* ---- recursive doubling through the scratch ---- */

/* Elements per epoch of rd over np participants: region 0 of the scratch
 * half takes the fold, region 1 + step the partial of doubling step step. */
static size_t rd_chunk(int np, size_t esize)
{
    int p = 1, L = 0;

    while (p * 2 <= np) {
        p *= 2;
        L++;
    }
    return ((SHMEMI_COLL_HALF / (size_t)(L + 1)) & ~(size_t)63) / esize;
}

/* Epochs that rd takes for nelems (the members that do not take part in
 * an algorithm of the leaders count them too). */
static uint64_t rd_epochs(size_t nelems, int np, size_t esize)
{
    size_t chunk = rd_chunk(np, esize);

    return (nelems + chunk - 1) / chunk;
}

static void allreduce_rd(struct shmemi_team *t, const parts_t *pp, const shmemi_rkern_t *k,
                         size_t esize, char *dest, const char *source, size_t nelems)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = pp->np, me = pp->me, p = 1, L = 0, r, step, mt = t->my_pe;
    size_t chunk = rd_chunk(n, esize), off, len;

    while (p * 2 <= n) {
        p *= 2;
        L++;
    }
    r = n - p;
    for (off = 0; off < nelems; off += len) {
        uint64_t e = shmemi_coll_begin(t);
        char *buf = s->scratch[e & 1];
        char *acc;
        size_t nb;

        len = nelems - off < chunk ? nelems - off : chunk;
        nb = len * esize;
        acc = dest + off * esize;
        if (acc != source + off * esize)
            memcpy(acc, source + off * esize, nb);
        if (me >= p) {
            /* An extra member: hand my data to member me - p, which sends
             * the result straight into my dest. */
            shmemi_coll_put_signal(buf, acc, nb, &s->sig[mt], shmemi_coll_sigval(e, 1),
                                   part_pe(t, pp, me - p));
            shmemi_coll_wait(&s->sig[part_tidx(pp, me - p)],
                             shmemi_coll_sigval(e, (unsigned)L + 2));
            continue;
        }
        if (me < r) {
            shmemi_coll_wait(&s->sig[part_tidx(pp, me + p)], shmemi_coll_sigval(e, 1));
            k->k2(acc, buf, len);
        }
        for (step = 0; step < L; step++) {
            int partner = me ^ (1 << step);
            char *region = buf + (size_t)(step + 1) * chunk * esize;

            shmemi_coll_put_signal(region, acc, nb, &s->sig[mt],
                                   shmemi_coll_sigval(e, (unsigned)step + 2),
                                   part_pe(t, pp, partner));
            shmemi_coll_wait(&s->sig[part_tidx(pp, partner)],
                             shmemi_coll_sigval(e, (unsigned)step + 2));
            k->k2(acc, region, len);
        }
        if (me < r)
            shmemi_coll_put_signal(acc, acc, nb, &s->sig[mt],
                                   shmemi_coll_sigval(e, (unsigned)L + 2),
                                   part_pe(t, pp, me + p));
    }
}

/* ---- rsag: ring reduce-scatter, then ring allgather ----
 * The array is cut into np slices (slice_elems).  The reduce-scatter runs
 * in pieces, one epoch each: in epoch c every participant i sends piece c
 * of slice i of its source to its right neighbour (step 0); in step
 * s = 1 .. np - 2 it combines the partial that arrived from the left
 * (piece c of slice i - s) with its own source and sends it on; the
 * partial of step np - 2, combined with its source, is piece c of slice
 * i + 1 reduced over everybody, which it stores into its dest.  The
 * partials travel through the receivers' scratch, region s for step s, so
 * that np - 1 pieces fill a scratch half.  Then one more epoch for the
 * allgather: each participant announces to its left neighbour that it
 * entered (it has read its source for the last time, so an in-place dest
 * may now be written), and in np - 1 steps forwards whole slices straight
 * into its right neighbour's dest (step 0: its own reduced slice).
 * Bandwidth: every participant sends and receives 2 (np - 1) / np of the
 * array, in messages of a scratch region (reduce-scatter) and of a slice
 * (allgather).  Each element is combined once, on one participant, so all
 * receive the same bits. */

/* Elements per piece: np - 1 pieces fill a scratch half; 0 when a piece
 * would hold less than a cache line (teams of more than 512 participants
 * take rd). */
static size_t ring_piece(int np, size_t esize)
{
    size_t bytes = np > 1 ? (SHMEMI_COLL_HALF / (size_t)(np - 1)) & ~(size_t)63 : 0;

    return bytes < 64 || bytes < esize ? 0 : bytes / esize;
}

static uint64_t ring_epochs(size_t nelems, int np, size_t esize)
{
    size_t per = slice_elems(nelems, np, esize), piece = ring_piece(np, esize);

    return (per + piece - 1) / piece + 1;
}

static void allreduce_ring(struct shmemi_team *t, const parts_t *pp, const shmemi_rkern_t *k,
                           size_t esize, char *dest, const char *source, size_t nelems)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = pp->np, me = pp->me, step, mt = t->my_pe;
    int rpe = part_pe(t, pp, (me + 1) % n), ltidx = part_tidx(pp, (me - 1 + n) % n);
    int rtidx = part_tidx(pp, (me + 1) % n);
    size_t per = slice_elems(nelems, n, esize), piece = ring_piece(n, esize);
    size_t npieces = (per + piece - 1) / piece, c, pb = piece * esize;
    uint64_t e;

/* Slice b: elements [SLO(b), SHI(b)); piece c of it: [PLO(b), PHI(b)). */
#define SLO(b) ((size_t)(b) * per < nelems ? (size_t)(b) * per : nelems)
#define SHI(b) (nelems - SLO(b) < per ? nelems : SLO(b) + per)
#define PLO(b) (SLO(b) + c * piece < SHI(b) ? SLO(b) + c * piece : SHI(b))
#define PHI(b) (SHI(b) - PLO(b) < piece ? SHI(b) : PLO(b) + piece)
    for (c = 0; c < npieces; c++) {
        char *buf;

        e = shmemi_coll_begin(t);
        buf = s->scratch[e & 1];
        for (step = 0; step < n - 1; step++) {
            int b = (me - step + n) % n, rb = (me - step - 1 + n) % n;
            const char *from = step ? buf + (size_t)(step - 1) * pb : source + PLO(b) * esize;
            char *region = buf + (size_t)step * pb;
            size_t rlo = PLO(rb), rlen = PHI(rb) - rlo;

            shmemi_coll_put_signal(region, from, (PHI(b) - PLO(b)) * esize, &s->sig[mt],
                                   shmemi_coll_sigval(e, (unsigned)step + 1), rpe);
            shmemi_coll_wait(&s->sig[ltidx], shmemi_coll_sigval(e, (unsigned)step + 1));
            if (step < n - 2)
                k->k2(region, source + rlo * esize, rlen);
            else if (dest == source)
                k->k2(dest + rlo * esize, region, rlen);
            else
                k->k3(dest + rlo * esize, region, source + rlo * esize, rlen);
        }
    }
    e = shmemi_coll_begin(t);
    shmemi_coll_signal(&s->sig[mt], shmemi_coll_sigval(e, 0), part_pe(t, pp, (me - 1 + n) % n));
    shmemi_coll_wait(&s->sig[rtidx], shmemi_coll_sigval(e, 0));
    for (step = 0; step < n - 1; step++) {
        int b = (me + 1 - step + n) % n;
        if (step)
            shmemi_coll_wait(&s->sig[ltidx], shmemi_coll_sigval(e, (unsigned)step));
        shmemi_coll_put_signal(dest + SLO(b) * esize, dest + SLO(b) * esize,
                               (SHI(b) - SLO(b)) * esize, &s->sig[mt],
                               shmemi_coll_sigval(e, (unsigned)step + 1), rpe);
    }
    shmemi_coll_wait(&s->sig[ltidx], shmemi_coll_sigval(e, (unsigned)n - 1));
#undef SLO
#undef SHI
#undef PLO
#undef PHI
}

/* ---- pulling pieces of other members' arrays (rsag, hier, scans, reduce-scatter) ---- */

/* One member reduces cnt members' arrays (team indices list[0..cnt), in
 * that order) at byte offset soff of the symmetric array source into out
 * (local, len elements), piece by piece.  With direct, a member whose
 * array is mapped is read in place; the others are fetched with gets into
 * buffers (allocated at the first need). */
typedef struct gather {
    struct shmemi_team *t;
    const shmemi_rkern_t *k;
    size_t esize;
    int direct;
    char *bufs;       /* cnt pieces of piece bytes, or NULL */
    size_t piece;     /* bytes per member and piece */
    int cnt;
    const char *rtn;
} gather_t;

static void gather_init(gather_t *g, struct shmemi_team *t, const shmemi_rkern_t *k,
                        size_t esize, int direct, int cnt, const char *rtn)
{
    size_t piece, unit = esize < 64 ? 64 : esize;

    g->t = t;
    g->k = k;
    g->esize = esize;
    g->direct = direct;
    g->bufs = NULL;
    g->cnt = cnt;
    g->rtn = rtn;
    piece = GET_BUDGET / (size_t)(cnt > 0 ? cnt : 1);
    if (piece > GET_PIECE)
        piece = GET_PIECE;
    piece = piece / unit * unit;
    g->piece = piece < unit ? unit : piece;
}

static void gather_fini(gather_t *g)
{
    free(g->bufs);
    g->bufs = NULL;
}

static void gather_reduce(gather_t *g, char *out, const char *source, size_t soff, size_t len,
                          const int *list, int cnt)
{
    struct shmemi_team *t = g->t;
    size_t esize = g->esize, pe_elems = g->piece / esize, o, l;
    const char **in = NULL, *inline_in[8];
    int me = t->my_pe, i, fetched;

    in = cnt <= 8 ? inline_in : malloc(sizeof(*in) * (size_t)cnt);
    if (!in)
        shmemi_fatal("%s: out of memory", g->rtn);
    for (o = 0; o < len; o += l) {
        size_t boff = soff + o * esize;
        char *dst = out + o * esize;

        l = len - o < pe_elems ? len - o : pe_elems;
        /* Find every input; fetch the unmapped ones. */
        fetched = 0;
        for (i = 0; i < cnt; i++) {
            int pe = t->pes[list[i]];

            if (list[i] == me)
                in[i] = source + boff;
            else if (g->direct && (in[i] = shmemi_direct(source + boff, l * esize, pe)))
                continue;
            else {
                if (!g->bufs && !(g->bufs = malloc(g->piece * (size_t)g->cnt)))
                    shmemi_fatal("%s: out of memory for %zu bytes of reduction buffers",
                                 g->rtn, g->piece * (size_t)g->cnt);
                in[i] = g->bufs + (size_t)i * g->piece;
                shmemi_must(shmemi_get_nbi(SHMEM_CTX_DEFAULT, (void *)in[i], source + boff, l * esize, pe,
                               g->rtn));
                fetched = 1;
            }
        }
        if (fetched)
            shmemi_must(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
        /* Reduce in list order; the first two inputs initialize dst. */
        if (cnt == 1) {
            if (dst != in[0])
                memcpy(dst, in[0], l * esize);
        } else if (cnt > 1) {
            if (dst == in[0])
                g->k->k2(dst, in[1], l);
            else
                g->k->k3(dst, in[0], in[1], l);
            for (i = 2; i < cnt; i++)
                g->k->k2(dst, in[i], l);
        }
    }
    if (in != inline_in)
        free((void *)in);
}

/* Team indices first, first + 1, ... (mod n), cnt of them. */
static int *rotation(int n, int first, int cnt, const char *rtn)
{
    int *list = malloc(sizeof(int) * (size_t)(cnt > 0 ? cnt : 1)), i;

    if (!list)
        shmemi_fatal("%s: out of memory", rtn);
    for (i = 0; i < cnt; i++)
        list[i] = (first + i) % n;
    return list;
}

/* ---- hier: node groups, then their leaders ----
 * The members of each node (a group of coll.h's struct shmemi_coll_hier)
 * signal its first member, the leader, that they entered; the leader
 * reduces the group's sources (mapped, in team order) into its dest.  The
 * leaders then allreduce their dests in place among themselves (rd up to
 * FABSHMEM_COLL_SMALL bytes, else rsag; the other members count those
 * epochs without taking part).  Each leader finally releases its members,
 * which copy the result out of its mapped dest and signal that they are
 * done; the leader returns when all are.  The node phases take no epoch of
 * their own: their signals carry the leaders' first epoch e (member to
 * leader: step 1 entered, 2 done; leader to member: 1), on words that the
 * leaders' algorithm does not use.  An epoch of their own would put two
 * leaders' epochs of the same parity one after the other without an
 * exchange between them, and a leader could then write into the scratch
 * half that another still reads (coll.h). */
static void allreduce_hier(struct shmemi_team *t, const shmemi_rkern_t *k, size_t esize,
                           char *dest, const char *source, size_t nelems, const char *rtn)
{
    const struct shmemi_coll_hier *h = t->hier;
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int me = t->my_pe, g = h->my_group, lead = SHMEMI_HIER_LEADER(h, g), i;
    int first = h->gfirst[g], cnt = h->gfirst[g + 1] - first;
    size_t nbytes = nelems * esize;
    int ring = nbytes > shmemi_g.env.coll_small && ring_piece(h->ng, esize) > 0;
    uint64_t e = t->epoch + 1;
    parts_t lp = { h->ng, g, h->lead };
    gather_t gr;

    if (me != lead) {
        shmemi_coll_signal(&s->sig[me], shmemi_coll_sigval(e, 1), t->pes[lead]);
        t->epoch += ring ? ring_epochs(nelems, h->ng, esize) : rd_epochs(nelems, h->ng, esize);
        shmemi_coll_wait(&s->sig[lead], shmemi_coll_sigval(e, 1));
        shmemi_must(shmemi_get_w(SHMEM_CTX_DEFAULT, dest, dest, nbytes, t->pes[lead], 0, rtn));
        shmemi_coll_signal(&s->sig[me], shmemi_coll_sigval(e, 2), t->pes[lead]);
        return;
    }
    for (i = 1; i < cnt; i++)
        shmemi_coll_wait(&s->sig[h->mem[first + i]], shmemi_coll_sigval(e, 1));
    gather_init(&gr, t, k, esize, 1, cnt, rtn);
    gather_reduce(&gr, dest, source, 0, nelems, &h->mem[first], cnt);
    gather_fini(&gr);
    if (ring)
        allreduce_ring(t, &lp, k, esize, dest, dest, nelems);
    else
        allreduce_rd(t, &lp, k, esize, dest, dest, nelems);
    for (i = 1; i < cnt; i++)
        shmemi_coll_signal(&s->sig[me], shmemi_coll_sigval(e, 1), t->pes[h->mem[first + i]]);
    for (i = 1; i < cnt; i++)
        shmemi_coll_wait(&s->sig[h->mem[first + i]], shmemi_coll_sigval(e, 2));
}

/* ---- allreduce entry points ---- */

static void reduce_team(struct shmemi_team *t, int tc, int op, size_t esize, void *dest,
                        const void *source, size_t nreduce, const char *rtn)
{
    static const int count_of[] = { -1, SHMEMI_CA_DIRECT, SHMEMI_CA_SMALL, SHMEMI_CA_LL,
                                    SHMEMI_CA_RD, SHMEMI_CA_RSAG, SHMEMI_CA_HIER };
    int algo = reduce_algo(rtn), heap, dok, ll, small, hier;
    size_t nbytes = shmemi_nbytes_must(nreduce, esize, rtn), small_auto;
    const shmemi_rkern_t *k = kernel(tc, op, rtn);
    parts_t all = { t->n_pes, t->my_pe, NULL };

    if (nbytes == 0)
        return;
    check_sym(dest, nbytes, "dest", rtn);
    check_sym(source, nbytes, "source", rtn);
    check_inplace(dest, source, nbytes, rtn);
    if (t->n_pes == 1) {
        if (dest != source)
            memcpy(dest, source, nbytes);
        return;
    }
    heap = in_heap(dest, nbytes) && in_heap(source, nbytes);
    dok = heap && t->all_mapped;
    ll = shmemi_coll_ll_ok(t, nbytes);
    small = t->all_mapped && nbytes <= SHMEMI_COLL_HALF;
    hier = shmemi_coll_hier_ok(t);
    if ((algo == ALGO_LL && !ll) || (algo == ALGO_SMALL && !small) ||
        (algo == ALGO_DIRECT && !dok) || (algo == ALGO_HIER && !hier) ||
        (algo == ALGO_RSAG && !ring_piece(t->n_pes, esize)))
        algo = ALGO_AUTO;
    if (algo == ALGO_AUTO) {
        /* The small path reduces every member's whole copy: with the
         * direct path at hand (each member reduces 1/n) it pays while the
         * n copies together stay within the limit (4 PEs on 2 cores: 2 KiB
         * 5.8 against 6.3 us, 8 KiB 9.2 against 7.3 us). */
        small_auto = shmemi_coll_small_max(t, heap);
        if (heap && t->n_pes > 2)
            small_auto /= (size_t)t->n_pes;
        if (ll)
            algo = ALGO_LL;
        else if (t->all_mapped && nbytes <= small_auto)
            algo = ALGO_SMALL;
        else if (dok)
            algo = ALGO_DIRECT;
        else if (hier)
            algo = ALGO_HIER;
        else
            algo = nbytes <= shmemi_g.env.coll_small || !ring_piece(t->n_pes, esize) ? ALGO_RD
                                                                                    : ALGO_RSAG;
    }
    shmemi_coll_count(t, SHMEMI_CK_REDUCE, count_of[algo]);
    switch (algo) {
    case ALGO_LL:
        allreduce_ll(t, k, dest, source, nreduce, nbytes);
        break;
    case ALGO_SMALL:
        allreduce_small(t, k, dest, source, nreduce, nbytes);
        break;
    case ALGO_DIRECT:
        allreduce_direct(t, k, esize, dest, source, nreduce);
        break;
    case ALGO_HIER:
        allreduce_hier(t, k, esize, dest, source, nreduce, rtn);
        break;
    case ALGO_RD:
        allreduce_rd(t, &all, k, esize, dest, source, nreduce);
        break;
    default:
        allreduce_ring(t, &all, k, esize, dest, source, nreduce);
        break;
    }
}

int shmemi_reduce(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                  const void *source, size_t nreduce, const char *rtn)
{
    SHMEMI_CHECK_INIT(rtn);
    if (!shmemi_team_ok(team))
        return SHMEMX_ERROR_INVALID_VALUE;
    reduce_team(team, tc, op, esize, dest, source, nreduce, rtn);
    return 0;
}

void shmemi_reduce_to_all(int tc, int op, size_t esize, void *dest, const void *source,
                          int nreduce, int PE_start, int logPE_stride, int PE_size,
                          const char *rtn)
{
    struct shmemi_team *t;

    SHMEMI_CHECK_INIT(rtn);
    if (nreduce < 0)
        shmemi_user_error(rtn, "argument nreduce (%d) is negative", nreduce);
    t = shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn);
    reduce_team(t, tc, op, esize, dest, source, (size_t)nreduce, rtn);
}

/* ---- scans and reduce-scatter ---- */

/* Mapped sources are read in place unless a get-based algorithm (rd or
 * rsag) is forced. */
static int pull_direct(const char *rtn)
{
    int algo = reduce_algo(rtn);

    return algo != ALGO_RD && algo != ALGO_RSAG;
}

int shmemi_scan(shmem_team_t team, int tc, size_t esize, void *dest, const void *source,
                size_t nelems, int exclusive, const char *rtn)
{
    struct shmemi_team *t = team;
    const shmemi_rkern_t *k;
    size_t nbytes;
    char *out;
    int direct, cnt, *list;
    gather_t g;

    SHMEMI_CHECK_INIT(rtn);
    if (!shmemi_team_ok(team))
        return SHMEMX_ERROR_INVALID_VALUE;
    nbytes = shmemi_nbytes_must(nelems, esize, rtn);
    k = kernel(tc, SHMEMI_ROP_SUM, rtn);
    direct = pull_direct(rtn);
    if (nbytes == 0)
        return 0;
    check_sym(dest, nbytes, "dest", rtn);
    check_sym(source, nbytes, "source", rtn);
    check_inplace(dest, source, nbytes, rtn);
    cnt = exclusive ? t->my_pe : t->my_pe + 1;
    if (t->n_pes == 1) {
        if (exclusive)
            memset(dest, 0, nbytes);
        else if (dest != source)
            memcpy(dest, source, nbytes);
        return 0;
    }
    /* Other members read my source: in place, build the result aside. */
    out = dest == source ? malloc(nbytes) : dest;
    list = rotation(t->n_pes, 0, cnt, rtn);
    if (!out)
        shmemi_fatal("%s: out of memory for the scan of %zu bytes", rtn, nbytes);
    gather_init(&g, t, k, esize, direct, cnt, rtn);
    shmemi_team_sync(t);
    if (cnt == 0)
        memset(out, 0, nbytes);
    else
        gather_reduce(&g, out, source, 0, nelems, list, cnt);
    shmemi_team_barrier(t);
    if (out != dest) {
        memcpy(dest, out, nbytes);
        free(out);
    }
    gather_fini(&g);
    free(list);
    return 0;
}

int shmemi_reducescatter(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                         const void *source, size_t nreduce, const char *rtn)
{
    struct shmemi_team *t = team;
    const shmemi_rkern_t *k;
    size_t nbytes, srcbytes, mine;
    char *out;
    int direct, *list;
    gather_t g;

    SHMEMI_CHECK_INIT(rtn);
    if (!shmemi_team_ok(team))
        return SHMEMX_ERROR_INVALID_VALUE;
    nbytes = shmemi_nbytes_must(nreduce, esize, rtn);
    srcbytes = shmemi_nbytes_must(nbytes, (size_t)t->n_pes, rtn);
    k = kernel(tc, op, rtn);
    direct = pull_direct(rtn);
    if (nbytes == 0)
        return 0;
    check_sym(dest, nbytes, "dest", rtn);
    check_sym(source, srcbytes, "source", rtn);
    mine = (size_t)t->my_pe * nbytes;
    if (t->n_pes == 1) {
        memmove(dest, source, nbytes);
        return 0;
    }
    /* Only my block of my source may share memory with my dest. */
    out = dest;
    if ((const char *)dest != (const char *)source + mine &&
        overlap(dest, nbytes, source, srcbytes))
        out = malloc(nbytes);
    if (!out)
        shmemi_fatal("%s: out of memory for the reduce-scatter of %zu bytes", rtn, nbytes);
    list = rotation(t->n_pes, t->my_pe, t->n_pes, rtn);
    gather_init(&g, t, k, esize, direct, t->n_pes, rtn);
    shmemi_team_sync(t);
    gather_reduce(&g, out, source, mine, nreduce, list, t->n_pes);
    shmemi_team_barrier(t);
    if (out != dest) {
        memcpy(dest, out, nbytes);
        free(out);
    }
    gather_fini(&g);
    free(list);
    return 0;
}
