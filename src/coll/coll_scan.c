/*
 * Pulling pieces of other members' arrays and reducing them (the gather of
 * coll_reduce.h, used by the hierarchical reduction), and the sum scans and
 * reduce-scatter built on it.
 *
 * Scans and reduce-scatter: member i reduces what it needs (the sources of
 * members 0..i or 0..i-1; block i of every source) straight out of the
 * mapped sources and through gets from the others (gets only when
 * FABSHMEM_REDUCE_ALGO is rd or rsag), between two barriers.  When dest
 * overlaps memory that other members read, the result is built in a
 * temporary and copied after the second barrier.
 */
#include "coll/coll_reduce.h"
#include "core/rma.h"
#include <stdlib.h>

/* Bytes fetched per member and piece by the get-based paths (at most
 * GET_BUDGET bytes of buffers in all). */
#define GET_PIECE  (64 * 1024)
#define GET_BUDGET (1024 * 1024)

void shmemi_gather_init(shmemi_gather_t *g, struct shmemi_team *t, const shmemi_rkern_t *k,
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

void shmemi_gather_fini(shmemi_gather_t *g)
{
    free(g->bufs);
    g->bufs = NULL;
}

/* The inputs in[0..cnt) of the piece at byte offset boff, l elements: my
 * source, a mapped peer's, or a get into the buffers. */
static int gather_inputs(shmemi_gather_t *g, const char **in, const char *source, size_t boff,
                         size_t l, const int *list, int cnt)
{
    struct shmemi_team *t = g->t;
    int i, rc, fetched = 0;

    for (i = 0; i < cnt; i++) {
        int pe = t->pes[list[i]];

        if (list[i] == t->my_pe) {
            in[i] = source + boff;
        } else if (g->direct && (in[i] = shmemi_direct(source + boff, l * g->esize, pe))) {
            continue;
        } else {
            if (!g->bufs && !(g->bufs = malloc(g->piece * (size_t)g->cnt)))
                return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu "
                                        "bytes of reduction buffers", g->rtn,
                                        g->piece * (size_t)g->cnt);
            in[i] = g->bufs + (size_t)i * g->piece;
            if ((rc = shmemi_get_nbi(SHMEM_CTX_DEFAULT, (void *)in[i], source + boff,
                                     l * g->esize, pe, g->rtn)))
                return rc;
            fetched = 1;
        }
    }
    return fetched ? shmemi_team_quiet() : 0;
}

int shmemi_gather_reduce(shmemi_gather_t *g, char *out, const char *source, size_t soff,
                         size_t len, const int *list, int cnt)
{
    size_t esize = g->esize, pe_elems = g->piece / esize, o, l;
    const char **in, *inline_in[8];
    int i, rc = 0;

    in = cnt <= 8 ? inline_in : malloc(sizeof(*in) * (size_t)cnt);
    if (!in)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", g->rtn);
    for (o = 0; o < len; o += l) {
        char *dst = out + o * esize;

        l = len - o < pe_elems ? len - o : pe_elems;
        if ((rc = gather_inputs(g, in, source, soff + o * esize, l, list, cnt)))
            break;
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
    return rc;
}

/* ---- scans and reduce-scatter ---- */

/* Team indices first, first + 1, ... (mod n), cnt of them, into *list_p. */
static int rotation(int n, int first, int cnt, int **list_p, const char *rtn)
{
    int *list = malloc(sizeof(int) * (size_t)(cnt > 0 ? cnt : 1)), i;

    if (!list)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    for (i = 0; i < cnt; i++)
        list[i] = (first + i) % n;
    *list_p = list;
    return 0;
}

/* Mapped sources are read in place unless a get-based algorithm (rd or
 * rsag) is forced. */
static int pull_direct(void)
{
    int algo = shmemi_coll_forced(SHMEMI_CK_REDUCE);

    return algo != SHMEMI_CA_RD && algo != SHMEMI_CA_RSAG;
}

/* Between a sync and a barrier of t, reduces the cnt members of list at
 * byte offset soff of source (len elements) into out; then copies out to
 * dest if they differ (and frees out). */
static int pull_reduce(struct shmemi_team *t, const shmemi_rkern_t *k, size_t esize, char *dest,
                       char *out, const char *source, size_t soff, size_t len, const int *list,
                       int cnt, const char *rtn)
{
    shmemi_gather_t g;
    int rc;

    shmemi_gather_init(&g, t, k, esize, pull_direct(), cnt, rtn);
    if (!(rc = shmemi_coll_sync_team(t))) {
        if (cnt == 0)
            memset(out, 0, len * esize);
        else
            rc = shmemi_gather_reduce(&g, out, source, soff, len, list, cnt);
    }
    if (!rc)
        rc = shmemi_coll_barrier_team(t);
    if (!rc && out != dest)
        memcpy(dest, out, len * esize);
    if (out != dest)
        free(out);
    shmemi_gather_fini(&g);
    return rc;
}

int shmemi_scan(shmem_team_t team, int tc, size_t esize, void *dest, const void *source,
                size_t nelems, int exclusive, const char *rtn)
{
    struct shmemi_team *t = team;
    size_t nbytes = nelems * esize;
    char *out;
    int cnt, *list = NULL, rc;

    if ((rc = shmemi_coll_agree(team, shmemi_scan_check(team, tc, esize, dest, source, nelems,
                                                        rtn),
                                nelems, -1, 0, 0, rtn)))
        return rc;
    if (nbytes == 0)
        return 0;
    cnt = exclusive ? t->my_pe : t->my_pe + 1;
    if (t->n_pes == 1) {
        if (exclusive)
            memset(dest, 0, nbytes);
        else if (dest != source)
            memcpy(dest, source, nbytes);
        return 0;
    }
    if ((rc = shmemi_coll_ready(t)) || (rc = rotation(t->n_pes, 0, cnt, &list, rtn)))
        return rc;
    /* Other members read my source: in place, build the result aside. */
    out = dest == source ? malloc(nbytes) : dest;
    if (!out) {
        free(list);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory for the scan of "
                                "%zu bytes", rtn, nbytes);
    }
    rc = pull_reduce(t, shmemi_reduce_kernel(tc, SHMEMI_ROP_SUM), esize, dest, out, source, 0,
                     nelems, list, cnt, rtn);
    free(list);
    return rc;
}

static inline int overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    return (uintptr_t)a < (uintptr_t)b + blen && (uintptr_t)b < (uintptr_t)a + alen;
}

int shmemi_reducescatter(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                         const void *source, size_t nreduce, const char *rtn)
{
    struct shmemi_team *t = team;
    size_t nbytes = nreduce * esize, srcbytes, mine;
    char *out;
    int *list = NULL, rc;

    if (shmemi_coll_dev_case(dest, source))
        return shmemi_coll_dev_reducescatter(team, tc, op, esize, dest, source, nreduce, rtn);
    if ((rc = shmemi_coll_agree(team, shmemi_reducescatter_check(team, tc, op, esize, dest,
                                                                 source, nreduce, rtn),
                                nreduce, -1, 0, 0, rtn)))
        return rc;
    if (nbytes == 0)
        return 0;
    srcbytes = nbytes * (size_t)t->n_pes;
    mine = (size_t)t->my_pe * nbytes;
    if (t->n_pes == 1) {
        memmove(dest, source, nbytes);
        return 0;
    }
    if ((rc = shmemi_coll_ready(t)) || (rc = rotation(t->n_pes, t->my_pe, t->n_pes, &list, rtn)))
        return rc;
    /* Only my block of my source may share memory with my dest. */
    out = dest;
    if ((const char *)dest != (const char *)source + mine &&
        overlap(dest, nbytes, source, srcbytes))
        out = malloc(nbytes);
    if (!out) {
        free(list);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory for the "
                                "reduce-scatter of %zu bytes", rtn, nbytes);
    }
    rc = pull_reduce(t, shmemi_reduce_kernel(tc, op), esize, dest, out, source, mine, nreduce,
                     list, t->n_pes, rtn);
    free(list);
    return rc;
}
