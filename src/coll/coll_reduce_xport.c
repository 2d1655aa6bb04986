/*
 * The allreduces over the transport: recursive doubling through the team's
 * scratch (rd) and the ring reduce-scatter plus ring allgather (rsag), over
 * the whole team or the node leaders of hier (coll_reduce.h).
 */
#include "coll/coll_reduce.h"

/* ---- recursive doubling through the scratch ----
 * In chunks, one collective epoch each (the halves of the scratch alternate
 * by the parity rule of team.h).  A team that is not a power of two first
 * folds its extra members into the power-of-two set and sends them the
 * result at the end, straight into their dest. */

/* The largest power of two p <= np and its log2 (*L_p). */
static int rd_pow2(int np, int *L_p)
{
    int p = 1, L = 0;

    while (p * 2 <= np) {
        p *= 2;
        L++;
    }
    *L_p = L;
    return p;
}

/* Elements per epoch of rd over np participants: region 0 of the scratch
 * half takes the fold, region 1 + step the partial of doubling step step. */
static size_t rd_chunk(int np, size_t esize)
{
    int L;

    rd_pow2(np, &L);
    return ((SHMEMI_TEAM_HALF / (size_t)(L + 1)) & ~(size_t)63) / esize;
}

uint64_t shmemi_reduce_rd_epochs(size_t nelems, int np, size_t esize)
{
    size_t chunk = rd_chunk(np, esize);

    return (nelems + chunk - 1) / chunk;
}

/* One chunk (epoch e, len elements in acc, my dest) of rd. */
static int rd_chunk_run(struct shmemi_team *t, const shmemi_parts_t *pp, const shmemi_rkern_t *k,
                        size_t esize, char *acc, size_t len, size_t chunk, uint64_t e)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = pp->np, me = pp->me, L, p = rd_pow2(n, &L), r = n - p, step, mt = t->my_pe, rc;
    char *buf = s->scratch[e & 1];
    size_t nb = len * esize;

    if (me >= p) {
        /* An extra member: hand my data to member me - p, which sends the
         * result straight into my dest. */
        if ((rc = shmemi_team_put_signal(buf, acc, nb, &s->sig[mt], shmemi_team_sigval(e, 1),
                                         shmemi_part_pe(t, pp, me - p))))
            return rc;
        shmemi_team_wait(&s->sig[shmemi_part_tidx(pp, me - p)],
                         shmemi_team_sigval(e, (unsigned)L + 2));
        return 0;
    }
    if (me < r) {
        shmemi_team_wait(&s->sig[shmemi_part_tidx(pp, me + p)], shmemi_team_sigval(e, 1));
        k->k2(acc, buf, len);
    }
    for (step = 0; step < L; step++) {
        int g0, partner = shmemi_sched_rd_partner(me, step, &g0);
        char *region = buf + (size_t)(step + 1) * chunk * esize;

        if ((rc = shmemi_team_put_signal(region, acc, nb, &s->sig[mt],
                                         shmemi_team_sigval(e, (unsigned)step + 2),
                                         shmemi_part_pe(t, pp, partner))))
            return rc;
        shmemi_team_wait(&s->sig[shmemi_part_tidx(pp, partner)],
                         shmemi_team_sigval(e, (unsigned)step + 2));
        k->k2(acc, region, len);
    }
    if (me < r)
        return shmemi_team_put_signal(acc, acc, nb, &s->sig[mt],
                                      shmemi_team_sigval(e, (unsigned)L + 2),
                                      shmemi_part_pe(t, pp, me + p));
    return 0;
}

int shmemi_allreduce_rd(struct shmemi_team *t, const shmemi_parts_t *pp, const shmemi_rkern_t *k,
                        size_t esize, char *dest, const char *source, size_t nelems)
{
    size_t chunk = rd_chunk(pp->np, esize), off, len;
    int rc;

    for (off = 0; off < nelems; off += len) {
        uint64_t e = shmemi_team_begin(t);
        char *acc = dest + off * esize;

        len = nelems - off < chunk ? nelems - off : chunk;
        if (acc != source + off * esize)
            memcpy(acc, source + off * esize, len * esize);
        if ((rc = rd_chunk_run(t, pp, k, esize, acc, len, chunk, e)))
            return rc;
    }
    return 0;
}

/* ---- rsag: ring reduce-scatter, then ring allgather ----
 * The array is cut into np slices (shmemi_reduce_slice).  The
 * reduce-scatter runs in pieces, one epoch each: in epoch c every
 * participant i sends piece c of slice i of its source to its right
 * neighbour (step 0); in step s = 1 .. np - 2 it combines the partial that
 * arrived from the left (piece c of slice i - s) with its own source and
 * sends it on; the partial of step np - 2, combined with its source, is
 * piece c of slice i + 1 reduced over everybody, which it stores into its
 * dest.  The partials travel through the receivers' scratch, region s for
 * step s, so that np - 1 pieces fill a scratch half.  Then one more epoch
 * for the allgather: each participant announces to its left neighbour that
 * it entered (it has read its source for the last time, so an in-place
 * dest may now be written), and in np - 1 steps forwards whole slices
 * straight into its right neighbour's dest (step 0: its own reduced
 * slice).  Bandwidth: every participant sends and receives 2 (np - 1) / np
 * of the array, in messages of a scratch region (reduce-scatter) and of a
 * slice (allgather).  Each element is combined once, on one participant,
 * so all receive the same bits. */

/* Elements per piece: np - 1 pieces fill a scratch half; 0 when a piece
 * would hold less than a cache line (teams of more than 512 participants
 * take rd). */
size_t shmemi_reduce_ring_piece(int np, size_t esize)
{
    size_t bytes = np > 1 ? (SHMEMI_TEAM_HALF / (size_t)(np - 1)) & ~(size_t)63 : 0;

    return bytes < 64 || bytes < esize ? 0 : bytes / esize;
}

uint64_t shmemi_reduce_ring_epochs(size_t nelems, int np, size_t esize)
{
    size_t per = shmemi_reduce_slice(nelems, np, esize), piece = shmemi_reduce_ring_piece(np, esize);

    return (per + piece - 1) / piece + 1;
}

/* The ring's geometry: slice b is elements [slo(b), shi(b)); piece c of
 * it [plo(b, c), phi(b, c)). */
typedef struct ring {
    size_t nelems, per, piece;
} ring_t;

static inline size_t slo(const ring_t *g, int b)
{
    return (size_t)b * g->per < g->nelems ? (size_t)b * g->per : g->nelems;
}
static inline size_t shi(const ring_t *g, int b)
{
    return g->nelems - slo(g, b) < g->per ? g->nelems : slo(g, b) + g->per;
}
static inline size_t plo(const ring_t *g, int b, size_t c)
{
    return slo(g, b) + c * g->piece < shi(g, b) ? slo(g, b) + c * g->piece : shi(g, b);
}
static inline size_t phi(const ring_t *g, int b, size_t c)
{
    return shi(g, b) - plo(g, b, c) < g->piece ? shi(g, b) : plo(g, b, c) + g->piece;
}

/* The reduce-scatter of piece c (one epoch). */
static int ring_rs_piece(struct shmemi_team *t, const shmemi_parts_t *pp, const shmemi_rkern_t *k,
                         size_t esize, char *dest, const char *source, const ring_t *g, size_t c)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = pp->np, me = pp->me, step, mt = t->my_pe, rc;
    int rpe = shmemi_part_pe(t, pp, (me + 1) % n), ltidx = shmemi_part_tidx(pp, (me - 1 + n) % n);
    size_t pb = g->piece * esize;
    uint64_t e = shmemi_team_begin(t);
    char *buf = s->scratch[e & 1];

    for (step = 0; step < n - 1; step++) {
        int b = shmemi_sched_ring_block(n, me, step), rb = shmemi_sched_ring_block(n, me, step + 1);
        const char *from = step ? buf + (size_t)(step - 1) * pb : source + plo(g, b, c) * esize;
        char *region = buf + (size_t)step * pb;
        size_t rlo = plo(g, rb, c), rlen = phi(g, rb, c) - rlo;

        if ((rc = shmemi_team_put_signal(region, from, (phi(g, b, c) - plo(g, b, c)) * esize,
                                         &s->sig[mt], shmemi_team_sigval(e, (unsigned)step + 1),
                                         rpe)))
            return rc;
        shmemi_team_wait(&s->sig[ltidx], shmemi_team_sigval(e, (unsigned)step + 1));
        if (step < n - 2)
            k->k2(region, source + rlo * esize, rlen);
        else if (dest == source)
            k->k2(dest + rlo * esize, region, rlen);
        else
            k->k3(dest + rlo * esize, region, source + rlo * esize, rlen);
    }
    return 0;
}

int shmemi_allreduce_ring(struct shmemi_team *t, const shmemi_parts_t *pp,
                          const shmemi_rkern_t *k, size_t esize, char *dest, const char *source,
                          size_t nelems)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = pp->np, me = pp->me, step, mt = t->my_pe, rc;
    int rpe = shmemi_part_pe(t, pp, (me + 1) % n), ltidx = shmemi_part_tidx(pp, (me - 1 + n) % n);
    int rtidx = shmemi_part_tidx(pp, (me + 1) % n);
    ring_t g = { nelems, shmemi_reduce_slice(nelems, n, esize),
                 shmemi_reduce_ring_piece(n, esize) };
    size_t npieces = (g.per + g.piece - 1) / g.piece, c;
    uint64_t e;

    for (c = 0; c < npieces; c++)
        if ((rc = ring_rs_piece(t, pp, k, esize, dest, source, &g, c)))
            return rc;
    e = shmemi_team_begin(t);
    if ((rc = shmemi_team_signal(&s->sig[mt], shmemi_team_sigval(e, 0),
                                 shmemi_part_pe(t, pp, (me - 1 + n) % n))))
        return rc;
    shmemi_team_wait(&s->sig[rtidx], shmemi_team_sigval(e, 0));
    for (step = 0; step < n - 1; step++) {
        int b = shmemi_sched_ring_block(n, (me + 1) % n, step);
        if (step)
            shmemi_team_wait(&s->sig[ltidx], shmemi_team_sigval(e, (unsigned)step));
        if ((rc = shmemi_team_put_signal(dest + slo(&g, b) * esize, dest + slo(&g, b) * esize,
                                         (shi(&g, b) - slo(&g, b)) * esize, &s->sig[mt],
                                         shmemi_team_sigval(e, (unsigned)step + 1), rpe)))
            return rc;
    }
    shmemi_team_wait(&s->sig[ltidx], shmemi_team_sigval(e, (unsigned)n - 1));
    return 0;
}
