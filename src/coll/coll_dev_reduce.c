/*
 * The reductions and reduce-scatter on GPU memory of the device heap
 * (docs/gpu.md, "Collectives on device buffers"), blocking and on CUDA
 * streams: the checks and sources of both forms (shmemi_coll_dev_red_prep)
 * and the algorithms of the kind "gpu_reduce" of the registry
 * (FABSHMEM_GPU_REDUCE_ALGO), each the library's kernel (cuda/cuda.h)
 * between two synchronizations of the team, which are syncs on the host
 * for the blocking forms and the GPU's own on a stream (gpu_sync of
 * coll_dev_stream.c):
 *
 *  - rsag: reduce-scatter + all-gather in one kernel: each PE reduces its
 *    slice of every member's source and stores it into every member's
 *    dest, through the mappings.  Each element is read and written by one
 *    PE only, so a reduction in place needs no scratch.  Reductions, not
 *    reduce-scatter.
 *  - rma (any team, blocking; the others need every member mapped): each
 *    PE gets its slice of every member's source through the core's RMA,
 *    reduces it and puts it into every member's dest.
 *  - oneshot: each PE's kernel reads every member's whole source (for
 *    reduce-scatter the member's block for this PE) and writes its own
 *    dest; in place through a scratch block copied into dest after the
 *    second synchronization.  On a stream, a result of at most
 *    SHMEMI_DSTREAM_FUSED_MAX bytes not in place is one kernel that makes
 *    both synchronizations itself (shmemi_coll_dev_fused_on).
 */
#include "coll/coll_reduce.h"
#include "core/dev.h"
#include "core/rma.h"

/* rsag (auto) where the one-shot's reads from the peers, (n - 1) times
 * the result, reach this many bytes.  Measured on 2 H200 on a stream
 * (2026-11-26): the one-shot ahead up to 1 MiB (12.6 us
 * against 16.9 at 1 MiB), rsag 2 to 4 % ahead from 4 MiB. */
#define SHMEMI_DRED_RSAG_MIN ((size_t)4 << 20)

/* The checks of the reductions beyond dev_check's: a GPU kernel for the
 * type and operation, and a team small enough for it. */
static int dev_red_check(struct shmemi_team *t, int tc, int op, const char *rtn)
{
    if (tc == SHMEMI_RT_LD)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "dest and source are GPU memory, "
                          "and long double cannot be reduced on the GPU (it has no such "
                          "type): reduce long double in host memory");
    if (!shmemi_cuda_reduce_ok(tc, op))
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: internal: no GPU reduction kernel "
                                "for type %d and operation %d", rtn, tc, op);
    if (t->n_pes > SHMEMI_CUDA_RED_MAXSRC)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "dest and source are GPU memory: "
                          "the reductions on GPU memory take teams of up to %d PEs yet (this "
                          "one has %d)", SHMEMI_CUDA_RED_MAXSRC, t->n_pes);
    return 0;
}

int shmemi_coll_dev_red_prep(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                             const void *source, size_t nreduce, int scatter,
                             const void **srcs, size_t *len_p, int *via_scratch_p,
                             int *mapped_p, const char *rtn)
{
    struct shmemi_team *t = team;
    uint64_t doff, soff;
    size_t len, all;
    int rc, i, overlap;

    if ((rc = shmemi_nbytes(nreduce, esize, &len, rtn)))
        return rc;
    if (__builtin_mul_overflow(len, (size_t)(t && shmemi_team_ok(t) ? t->n_pes : 1), &all))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "nelems %zu times element size %zu "
                          "times the team's PEs overflows size_t", nreduce, esize);
    if (!scatter)
        all = len;
    if ((rc = shmemi_coll_dev_check(t, dest, len, source, all, &doff, &soff, rtn)) ||
        (rc = dev_red_check(t, tc, op, rtn)))
        return rc;
    overlap = (uintptr_t)dest < (uintptr_t)source + all &&
              (uintptr_t)source < (uintptr_t)dest + len;
    /* A reduction takes dest == source (in place), not a partial overlap;
     * a reduce-scatter's dest may lie anywhere in its source. */
    if (!scatter && overlap && dest != source)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "arguments dest (%p) and source "
                          "(%p) overlap", dest, source);
    *mapped_p = shmemi_coll_dev_mapped(t);
    for (i = 0; i < t->n_pes; i++)
        srcs[i] = *mapped_p ? shmemi_g.peer_dheap[t->pes[i]] + soff +
                                  (scatter ? (size_t)t->my_pe * len : 0)
                            : NULL;
    *len_p = len;
    *via_scratch_p = overlap;
    return 0;
}

/* A synchronization of the team: on the host (blocking), or on the
 * stream. */
static int dev_sync(shmemi_coll_args_t *a)
{
    return a->cs ? shmemi_coll_dev_gpu_sync(a->t, a->cs, a->rtn) : shmemi_coll_sync_team(a->t);
}

/* The kernel into nd destinations of [lo, hi) between two
 * synchronizations.  Blocking, the second is taken after a failure too
 * (the peers wait for it); on a stream a failure to enqueue ends there. */
static int dev_red_between(shmemi_coll_args_t *a, void *const *dst, int nd, size_t lo,
                           size_t hi)
{
    int rc = dev_sync(a), rc2;

    if (rc)
        return rc;
    rc = shmemi_cuda_reduce(a->tc, a->op, dst, nd, a->srcs, a->t->n_pes, lo, hi, a->cs, a->rtn);
    if (rc && a->cs)
        return rc;
    rc2 = dev_sync(a);
    return rc ? rc : rc2;
}

static int oneshot(shmemi_coll_args_t *a)
{
    void *out = a->dest;
    int rc, rc2;

    if (a->cs && !a->overlap && a->len <= SHMEMI_DSTREAM_FUSED_MAX)
        return shmemi_coll_dev_fused_on(a->t, a->tc, a->op, a->dest, a->srcs, a->nelems, a->cs,
                                        a->rtn);
    if (!a->overlap)
        return dev_red_between(a, &out, 1, 0, a->nelems);
    /* In place: the result goes to scratch until the peers have read this
     * PE's source (the second synchronization). */
    out = a->cs ? shmemi_cuda_alloc_on(a->cs, a->len, a->rtn) : shmemi_cuda_scratch(a->len, a->rtn);
    if (!out) {
        rc = shmemi_err_last()->code;
        /* Blocking, the peers still take their three syncs. */
        for (int i = 0; !a->cs && i < 3; i++)
            (void)dev_sync(a);
        return rc;
    }
    rc = dev_red_between(a, &out, 1, 0, a->nelems);
    if (a->cs)
        return rc ? rc : (rc = shmemi_cuda_copy_on(a->cs, a->dest, out, a->len, a->rtn)) ? rc :
                                  shmemi_cuda_free_on(a->cs, out, a->rtn);
    if (!rc)
        rc = shmemi_cuda_copy(a->dest, out, a->len, a->rtn);
    /* A third sync keeps the peers from writing dest (a put after their
     * reduction returned) before the copy is done. */
    rc2 = dev_sync(a);
    return rc ? rc : rc2;
}

/* This PE's slice [*lo_p, *hi_p) of count elements among n members: equal
 * slices of whole 128-byte lines (the last ones shorter or empty). */
static void slice(size_t count, size_t esize, int n, int me, size_t *lo_p, size_t *hi_p)
{
    size_t line = esize < 128 ? 128 / esize : 1;
    size_t per = (count + (size_t)n - 1) / (size_t)n;

    per = (per + line - 1) / line * line;
    *lo_p = (size_t)me * per < count ? (size_t)me * per : count;
    *hi_p = count - *lo_p > per ? *lo_p + per : count;
}

static int rsag_can(const shmemi_coll_args_t *a)
{
    return a->dok && !a->scatter;
}

static int rsag_pick(const shmemi_coll_args_t *a)
{
    return rsag_can(a) && a->len * (size_t)(a->t->n_pes - 1) >= SHMEMI_DRED_RSAG_MIN;
}

static int oneshot_can(const shmemi_coll_args_t *a)
{
    return a->dok;
}

static int rsag(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    void *dst[SHMEMI_CUDA_RED_MAXSRC];
    uint64_t off;
    size_t lo, hi;
    int j;

    if (!shmemi_dev_range(a->dest, a->len ? a->len : 1, &off)) /* checked by the caller */
        return shmemi_err(SHMEMX_ERROR_INTERNAL, a->rtn, "dest %p is not GPU memory", a->dest);
    for (j = 0; j < t->n_pes; j++)
        dst[j] = shmemi_g.peer_dheap[t->pes[j]] + off;
    slice(a->nelems, a->elsize, t->n_pes, t->my_pe, &lo, &hi);
    return dev_red_between(a, dst, t->n_pes, lo, hi);
}

/* ---- rma: any team, blocking ---- */

/* The most bytes of the peers' sources that rma gets into scratch at once. */
#define SHMEMI_DRED_RMA_CHUNK ((size_t)64 << 20)

/* The elements of each member's part that rma gets at once. */
static size_t rma_per(const shmemi_coll_args_t *a)
{
    size_t per = SHMEMI_DRED_RMA_CHUNK /
                 ((size_t)(a->t->n_pes > 1 ? a->t->n_pes - 1 : 1) * a->elsize);

    return per ? per : 1;
}

/* Gets chunk [c, c + k) of member j's source (sym, this PE's address of
 * it) into buf. */
static int rma_get(shmemi_coll_args_t *a, void *buf, size_t c, size_t k, int j)
{
    return shmemi_get_w(SHMEM_CTX_DEFAULT, buf, (const char *)a->src + c * a->elsize,
                        k * a->elsize, a->t->pes[j], 0, a->rtn);
}

/* The reduction of elements [lo, hi) of the members' sources (a->src: the
 * block of this PE for a reduce-scatter) into out, chunk by chunk: the
 * peers' parts got into scratch, this PE's read in place, then the
 * kernel. */
static int rma_reduce_into(shmemi_coll_args_t *a, char *out, size_t lo, size_t hi, char *scr)
{
    struct shmemi_team *t = a->t;
    const void *srcs[SHMEMI_CUDA_RED_MAXSRC];
    size_t per = rma_per(a), c, k;
    int rc = 0, j, at;

    for (c = lo; c < hi && !rc; c += k) {
        void *o = out + (c - lo) * a->elsize;
        k = hi - c < per ? hi - c : per;
        for (j = 0, at = 0; j < t->n_pes && !rc; j++) {
            if (j == t->my_pe) {
                srcs[j] = (const char *)a->src + c * a->elsize;
                continue;
            }
            srcs[j] = scr + (size_t)at++ * k * a->elsize;
            rc = rma_get(a, (void *)srcs[j], c, k, j);
        }
        if (!rc)
            rc = shmemi_cuda_reduce(a->tc, a->op, &o, 1, srcs, t->n_pes, 0, k, NULL, a->rtn);
    }
    return rc;
}

/* Blocking, on any team: each PE gets its slice of every member's source
 * (a reduce-scatter: its block), reduces it with the library's kernel and
 * puts it into every member's dest, between two syncs; the core's RMA
 * moves the data (copies of the GPU for mapped PEs, the provider or
 * staging for the others).  Each element is read and written by one PE,
 * so in place needs no scratch; a reduce-scatter whose dest overlaps its
 * source writes scratch, copied into dest after the second sync, and a
 * third sync follows.  After a failure the syncs are still taken. */
static int rma(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    size_t lo = 0, hi = a->nelems, per = rma_per(a), scr_len, out_len = 0;
    char *scr = NULL, *out;
    int rc = 0, rc2, j;

    if (!a->scatter)
        slice(a->nelems, a->elsize, t->n_pes, t->my_pe, &lo, &hi);
    scr_len = (size_t)(t->n_pes - 1) * (hi - lo < per ? hi - lo : per) * a->elsize;
    if (a->scatter && a->overlap)
        scr_len += (out_len = a->len);
    if (scr_len && !(scr = shmemi_cuda_scratch(scr_len, a->rtn)))
        rc = shmemi_err_last()->code;
    /* The first sync even without scratch: the peers take every sync. */
    rc2 = shmemi_coll_sync_team(t);
    rc = rc ? rc : rc2;
    out = out_len && scr ? scr + scr_len - out_len : (char *)a->dest + lo * a->elsize;
    if (!rc)
        rc = rma_reduce_into(a, out, lo, hi, scr);
    for (j = 0; !rc && !a->scatter && j < t->n_pes; j++)
        if (j != t->my_pe && hi > lo)
            rc = shmemi_put_w(SHMEM_CTX_DEFAULT, out, out, (hi - lo) * a->elsize, t->pes[j], 0,
                              a->rtn);
    rc2 = shmemi_coll_sync_team(t);
    rc = rc ? rc : rc2;
    if (out_len) {
        if (!rc)
            rc = shmemi_cuda_copy(a->dest, out, a->len, a->rtn);
        rc2 = shmemi_coll_sync_team(t);
        rc = rc ? rc : rc2;
    }
    return rc;
}

static int rma_can(const shmemi_coll_args_t *a)
{
    return !a->cs;
}

const shmemi_coll_row_t shmemi_coll_gpu_reduce_rows[] = {
    { SHMEMI_CA_RSAG, "reduce-scatter + all-gather in one kernel: each PE reduces its slice of "
      "every member's source and stores it into every member's dest, between two "
      "synchronizations; reductions, in place too, teams whose PEs map each other",
      "where the one-shot would read 4 MiB or more from the peers (the result times the "
      "team's PEs but one)", rsag_can, rsag_pick, SHMEMI_CA_AUTO, rsag },
    { SHMEMI_CA_ONESHOT, "each PE's kernel reads every member's source and writes its own dest "
      "between two synchronizations (in place through scratch; on a CUDA stream up to 1 MiB not "
      "in place, one kernel that makes both synchronizations); reductions and reduce-scatter, "
      "teams whose PEs map each other", "elsewhere on such teams", oneshot_can, oneshot_can,
      SHMEMI_CA_AUTO, oneshot },
    { SHMEMI_CA_RMA, "each PE gets its slice of every member's source (reduce-scatter: its "
      "block) through the core's RMA on GPU memory, reduces it with the kernel and puts it into "
      "every member's dest; any team, blocking (on a CUDA stream the stream's host thread runs "
      "it)", "teams whose PEs do not all map each other", rma_can, NULL, SHMEMI_CA_AUTO, rma },
    { .run = NULL },
};

int shmemi_coll_dev_red_run(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                            const void *source, const void *const *srcs, size_t nreduce,
                            size_t len, int scatter, int overlap, int mapped, void *cs,
                            const char *rtn)
{
    struct shmemi_team *t = team;
    /* src: this PE's source as the rma algorithm reads it (a reduce-scatter:
     * its block); dok: the team's PEs map each other's device heaps. */
    shmemi_coll_args_t a = { .t = team, .dest = dest,
                             .src = (const char *)source + (scatter ? (size_t)t->my_pe * len : 0),
                             .len = len, .nelems = nreduce, .elsize = esize, .dok = mapped,
                             .tc = tc, .op = op, .scatter = scatter, .overlap = overlap,
                             .cs = cs, .srcs = srcs, .rtn = rtn };
    int rc;

    /* Nothing to reduce, blocking: no communication, as on the host (on a
     * stream the synchronizations are still queued, as the host thread's
     * form takes them). */
    if (!cs && len == 0)
        return 0;
    /* The team's state (the counts of the algorithms), on a stream too. */
    if ((rc = shmemi_coll_ready(team)))
        return rc;
    return shmemi_coll_dispatch(SHMEMI_CK_GPU_REDUCE, &a);
}

/* The blocking reduction and reduce-scatter: the checks, then the
 * registry's algorithm. */
static int dev_red(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                   const void *source, size_t nreduce, int scatter, const char *rtn)
{
    const void *srcs[SHMEMI_CUDA_RED_MAXSRC];
    size_t len;
    int rc, overlap, mapped;

    if ((rc = shmemi_coll_dev_red_prep(team, tc, op, esize, dest, source, nreduce, scatter, srcs,
                                       &len, &overlap, &mapped, rtn)))
        return rc;
    return shmemi_coll_dev_red_run(team, tc, op, esize, dest, source, srcs, nreduce, len,
                                   scatter, overlap, mapped, NULL, rtn);
}

int shmemi_coll_dev_reduce(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                           const void *source, size_t nreduce, const char *rtn)
{
    return dev_red(team, tc, op, esize, dest, source, nreduce, 0, rtn);
}

int shmemi_coll_dev_reducescatter(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                                  const void *source, size_t nreduce, const char *rtn)
{
    return dev_red(team, tc, op, esize, dest, source, nreduce, 1, rtn);
}
