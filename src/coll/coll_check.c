/*
 * The argument checks of the collectives (coll.h, "the entry points"):
 * local, without communication, so that the API and a stream enqueueing
 * the work make the same ones.
 */
#include "coll/coll_reduce.h"
#include "core/dev.h"
#include "core/rma.h"

int shmemi_coll_check_team(shmem_team_t team, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(shmemi_team_destroyed(team)))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "team %s", shmemi_team_bad_msg(team));
    if (SHMEMI_UNLIKELY(!shmemi_team_ok(team)))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "team is SHMEM_TEAM_INVALID or this "
                          "PE is not a member of it");
    return 0;
}

int shmemi_coll_check_sym(const void *p, size_t len, const char *what, const char *rtn)
{
    int seg;
    uint64_t off;

    /* GPU memory of the device heap is not one of the segments: the
     * message says so (docs/gpu.md). */
    if (len && shmemi_addr_seg(p, len, &seg, &off))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "argument %s (%p, %zu bytes) is not "
                          "a symmetric address%s", what, p, len, shmemi_dev_note(p, rtn));
    return 0;
}

/* The bytes of nelems elements of elsize (*bytes_p) and of one such block
 * per member of team (*all_p, when all_p is not NULL), checked for
 * overflow. */
static int check_sizes(shmem_team_t team, size_t nelems, size_t elsize, size_t *bytes_p,
                       size_t *all_p, const char *rtn)
{
    int rc = shmemi_nbytes(nelems, elsize, bytes_p, rtn);

    if (rc)
        return rc;
    if (all_p && __builtin_mul_overflow(*bytes_p, (size_t)team->n_pes, all_p))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "nelems %zu times element size %zu "
                          "times the team's %d PEs overflows size_t", nelems, elsize,
                          team->n_pes);
    return 0;
}

int shmemi_coll_bcast_check(shmem_team_t team, const void *dest, const void *src,
                            size_t nelems, size_t elsize, int root, const char *rtn)
{
    size_t bytes;
    int rc;

    if ((rc = shmemi_coll_check_team(team, rtn)) ||
        (rc = check_sizes(team, nelems, elsize, &bytes, NULL, rtn)))
        return rc;
    if (root < 0 || root >= team->n_pes)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "PE_root %d is out of range (the "
                          "team has %d PEs)", root, team->n_pes);
    if ((rc = shmemi_coll_check_sym(dest, bytes, "dest", rtn)))
        return rc;
    return shmemi_coll_check_sym(src, bytes, "source", rtn);
}

int shmemi_coll_collect_check(shmem_team_t team, const void *dest, const void *src,
                              size_t nelems, size_t elsize, int fixed, const char *rtn)
{
    size_t bytes, all;
    int rc;

    if ((rc = shmemi_coll_check_team(team, rtn)) ||
        (rc = check_sizes(team, nelems, elsize, &bytes, fixed ? &all : NULL, rtn)) ||
        (rc = shmemi_coll_check_sym(dest, fixed ? all : bytes, "dest", rtn)))
        return rc;
    return shmemi_coll_check_sym(src, bytes, "source", rtn);
}

/* The bytes from the first to the last element of n blocks of nelems
 * elements of elsize bytes, stride st elements apart (block k starts
 * k * nelems * st elements in): ((n * nelems - 1) * st + 1) * elsize, or
 * 0; 1 on overflow. */
static int strided_extent(size_t n, size_t nelems, size_t st, size_t elsize, size_t *len_p)
{
    size_t cnt, e;

    *len_p = 0;
    if (!n || !nelems)
        return 0;
    return __builtin_mul_overflow(n, nelems, &cnt) ||
           __builtin_mul_overflow(cnt - 1, st, &e) || __builtin_add_overflow(e, 1, &e) ||
           __builtin_mul_overflow(e, elsize, len_p);
}

int shmemi_coll_alltoall_check(shmem_team_t team, const void *dest, const void *src,
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elsize,
                               const char *rtn)
{
    size_t bytes, all, dlen, slen;
    int rc;

    if ((rc = shmemi_coll_check_team(team, rtn)))
        return rc;
    if (dst < 1 || sst < 1)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "strides dst %td and sst %td must be "
                          "positive", dst, sst);
    if ((rc = check_sizes(team, nelems, elsize, &bytes, &all, rtn)))
        return rc;
    if (strided_extent((size_t)team->n_pes, nelems, (size_t)dst, elsize, &dlen) ||
        strided_extent((size_t)team->n_pes, nelems, (size_t)sst, elsize, &slen))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "the extent of nelems %zu elements "
                          "of %zu bytes per PE with strides dst %td and sst %td over %d PEs "
                          "overflows size_t", nelems, elsize, dst, sst, team->n_pes);
    if ((rc = shmemi_coll_check_sym(dest, dlen, "dest", rtn)))
        return rc;
    return shmemi_coll_check_sym(src, slen, "source", rtn);
}

/* ---- reductions ---- */

/* The kernels of (tc, op) into *k_p: a combination that has none is a bug
 * of the typed layer. */
static int check_kernel(int tc, int op, const shmemi_rkern_t **k_p, const char *rtn)
{
    if (!(*k_p = shmemi_reduce_kernel(tc, op)))
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: internal: no reduction kernel for "
                                "type %d and operation %d", rtn, tc, op);
    return 0;
}

static inline int overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    return (uintptr_t)a < (uintptr_t)b + blen && (uintptr_t)b < (uintptr_t)a + alen;
}

int shmemi_reduce_check(shmem_team_t team, int tc, int op, size_t esize, const void *dest,
                        const void *source, size_t nreduce, const char *rtn)
{
    const shmemi_rkern_t *k;
    size_t nbytes;
    int rc;

    if ((rc = shmemi_coll_check_team(team, rtn)) ||
        (rc = check_sizes(team, nreduce, esize, &nbytes, NULL, rtn)) ||
        (rc = check_kernel(tc, op, &k, rtn)) ||
        (rc = shmemi_coll_check_sym(dest, nbytes, "dest", rtn)) ||
        (rc = shmemi_coll_check_sym(source, nbytes, "source", rtn)))
        return rc;
    /* dest and source must be the same address or disjoint. */
    if (dest != source && overlap(dest, nbytes, source, nbytes))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "arguments dest (%p) and source (%p) "
                          "overlap in part (%zu bytes each): they must be the same address or "
                          "disjoint", dest, source, nbytes);
    return 0;
}

int shmemi_scan_check(shmem_team_t team, int tc, size_t esize, const void *dest,
                      const void *source, size_t nelems, const char *rtn)
{
    return shmemi_reduce_check(team, tc, SHMEMI_ROP_SUM, esize, dest, source, nelems, rtn);
}

int shmemi_reducescatter_check(shmem_team_t team, int tc, int op, size_t esize,
                               const void *dest, const void *source, size_t nreduce,
                               const char *rtn)
{
    const shmemi_rkern_t *k;
    size_t nbytes, srcbytes;
    int rc;

    if ((rc = shmemi_coll_check_team(team, rtn)) ||
        (rc = check_sizes(team, nreduce, esize, &nbytes, &srcbytes, rtn)) ||
        (rc = check_kernel(tc, op, &k, rtn)) ||
        (rc = shmemi_coll_check_sym(dest, nbytes, "dest", rtn)))
        return rc;
    return shmemi_coll_check_sym(source, srcbytes, "source", rtn);
}

/* ---- agreement (FABSHMEM_CHECKS=1) ---- */

/* The names of the words that the members compare, in the messages. */
static const char *const agree_names[SHMEMI_COLL_AGREE_WORDS] = {
    "the collective routine", "nelems", "PE_root", "dst", "sst", "the argument check"
};

/* FNV-1a of the routine's name: members that call different routines
 * (another type, another operation) differ in it. */
static uint64_t rtn_hash(const char *rtn)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *rtn; rtn++)
        h = (h ^ (unsigned char)*rtn) * 1099511628211ULL;
    return h;
}

/* Appends the world PEs of the members whose bit is set in mask (n
 * members) to buf, as "0, 2, 5" (at most about 16 of them). */
static void list_pes(char *buf, size_t len, const struct shmemi_team *t, const uint64_t *mask,
                     int want)
{
    size_t used = strlen(buf);
    int i, k = 0;

    for (i = 0; i < t->n_pes && used + 16 < len; i++) {
        if (!!(mask[i / 64] >> (i % 64) & 1) != want)
            continue;
        if (k++ == 16) {
            snprintf(buf + used, len - used, ", ...");
            return;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%d", k > 1 ? ", " : "", t->pes[i]);
    }
}

/* (long: one exchange of the words' maxima and minima, then, only when
 * they differ, a second one naming the members, and the message; kept in
 * one piece so that every member takes the same steps.) */
int shmemi_coll_agree_slow(struct shmemi_team *t, int local_rc, uint64_t nelems, int64_t root,
                           int64_t dst, int64_t sst, const char *rtn)
{
    uint64_t w[SHMEMI_COLL_AGREE_WORDS] = { 0, nelems, (uint64_t)(root + 1), (uint64_t)dst,
                                            (uint64_t)sst, 0 };
    uint64_t mm[2 * SHMEMI_COLL_AGREE_WORDS], mask[64] = { 0 };
    char pes_max[400] = "", pes_other[400] = "";
    int i, f = -1, rc, off, mask_words = (t->n_pes + 63) / 64;

    if (t->n_pes <= 1)
        return local_rc;
    w[0] = rtn_hash(rtn);
    w[SHMEMI_COLL_AGREE_WORDS - 1] = local_rc != 0;
    for (i = 0; i < SHMEMI_COLL_AGREE_WORDS; i++) {
        mm[i] = w[i];
        mm[SHMEMI_COLL_AGREE_WORDS + i] = ~w[i];
    }
    if ((rc = shmemi_team_allreduce_u64(t, mm, 2 * SHMEMI_COLL_AGREE_WORDS, SHMEMI_IOP_MAX)))
        return rc;
    for (i = 0; i < SHMEMI_COLL_AGREE_WORDS && f < 0; i++)
        if (mm[i] != ~mm[SHMEMI_COLL_AGREE_WORDS + i])
            f = i;
    if (f < 0)
        return local_rc;
    /* They differ in word f: the members that hold its maximum. */
    if (mask_words <= 64) {
        if (w[f] == mm[f])
            mask[t->my_pe / 64] |= 1ULL << (t->my_pe % 64);
        if ((rc = shmemi_team_allreduce_u64(t, mask, mask_words, SHMEMI_IOP_OR)))
            return rc;
        list_pes(pes_max, sizeof(pes_max), t, mask, 1);
        list_pes(pes_other, sizeof(pes_other), t, mask, 0);
    }
    /* A member whose own check failed keeps its message. */
    if (local_rc)
        return local_rc;
    if (f == SHMEMI_COLL_AGREE_WORDS - 1)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "the arguments were refused on PE %s "
                          "of the team (FABSHMEM_CHECKS=1): no PE runs the collective",
                          pes_max[0] ? pes_max : "(some)");
    if (f == 0)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "the PEs of the team called different "
                          "collectives (FABSHMEM_CHECKS=1): PE %d called %s; the PEs that called "
                          "the same routine as PE%s %s differ from PE%s %s", shmemi_g.my_pe, rtn,
                          strchr(pes_max, ',') ? "s" : "", pes_max,
                          strchr(pes_other, ',') ? "s" : "", pes_other);
    /* PE_root travels as PE_root + 1 (0: none). */
    off = f == 2;
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "argument %s differs between the PEs of "
                      "the team (FABSHMEM_CHECKS=1): %llu on PE%s %s, less (down to %llu) on PE%s "
                      "%s; this PE (%d) passed %llu", agree_names[f],
                      (unsigned long long)(mm[f] - off), strchr(pes_max, ',') ? "s" : "", pes_max,
                      (unsigned long long)(~mm[SHMEMI_COLL_AGREE_WORDS + f] - off),
                      strchr(pes_other, ',') ? "s" : "", pes_other, shmemi_g.my_pe,
                      (unsigned long long)(w[f] - off));
}
