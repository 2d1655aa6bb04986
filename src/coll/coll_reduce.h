/*
 * Reductions, scans and reduce-scatter: the size-based engine under the
 * typed routines of coll_reduce_typed.c.
 *
 * A reduction is described by an element type code (SHMEMI_RT_*: the
 * arithmetic of the element, not its C name: int64_t and long long share
 * SHMEMI_RT_I64), an operation (SHMEMI_ROP_*; both codes are in
 * base/rtype.h) and the element size.  The kernels of coll_reduce_kern.c
 * combine arrays element by element; the algorithms of coll_reduce.c move
 * the bytes (no provider atomics), so long double and the complex types
 * work on every path.
 */
#ifndef SHMEMI_COLL_REDUCE_H
#define SHMEMI_COLL_REDUCE_H

#include "coll/coll.h"
#include "base/rtype.h"

/* The code of a C type (the typed routines of the API and of the
 * streams): the real types by name, the integers by signedness and size
 * (so char follows the platform's signedness); SHMEMI_RT_CODE_C for the
 * complex types. */
#define SHMEMI_RT_LOG2(T) (sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3)
#define SHMEMI_RT_INT(T) \
    (((T)-1 < (T)1 ? SHMEMI_RT_I8 : SHMEMI_RT_U8) + SHMEMI_RT_LOG2(T))
/* The code of a real or integer type. */
#define SHMEMI_RT_CODE(T) \
    (__builtin_types_compatible_p(T, float) ? SHMEMI_RT_F32 : \
     __builtin_types_compatible_p(T, double) ? SHMEMI_RT_F64 : \
     __builtin_types_compatible_p(T, long double) ? SHMEMI_RT_LD : SHMEMI_RT_INT(T))
/* The code of a complex type. */
#define SHMEMI_RT_CODE_C(T) \
    (__builtin_types_compatible_p(T, float _Complex) ? SHMEMI_RT_C32 : SHMEMI_RT_C64)

/* The kernels of one (type, op) pair over n elements:
 * k3: d[i] = a[i] op b[i] (d, a, b pairwise disjoint);
 * k2: d[i] = d[i] op b[i] (d, b disjoint). */
typedef void (*shmemi_rk3_t)(void *restrict d, const void *restrict a, const void *restrict b,
                             size_t n);
typedef void (*shmemi_rk2_t)(void *restrict d, const void *restrict b, size_t n);
typedef struct shmemi_rkern {
    shmemi_rk3_t k3;
    shmemi_rk2_t k2;
} shmemi_rkern_t;

/* The kernels of (tc, op), or NULL when the pair has none (bitwise
 * operations on real or complex types, max/min on complex types). */
const shmemi_rkern_t *shmemi_reduce_kernel(int tc, int op);

/* ---- the entry points ----
 * As for the other collectives (coll.h): a check without communication
 * (coll_check.c) and a run that makes the same check first; 0 or the class
 * of the failure, recorded.  The checks: the team, the byte counts (for
 * reduce-scatter, the source's block per member too), a kernel for the
 * type and operation, dest and source symmetric over their extent, and
 * for the reductions and scans dest and source one array or disjoint. */

/* The team-based reduction (allreduce) of nreduce elements of esize bytes
 * of type tc with operation op. */
int shmemi_reduce_check(shmem_team_t team, int tc, int op, size_t esize, const void *dest,
                        const void *source, size_t nreduce, const char *rtn) SHMEMI_WUR;
int shmemi_reduce(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                  const void *source, size_t nreduce, const char *rtn) SHMEMI_WUR;
/* The deprecated active-set form (*_to_all): the set's team, then the
 * reduction; nreduce must not be negative. */
int shmemi_reduce_to_all(int tc, int op, size_t esize, void *dest, const void *source,
                         int nreduce, int PE_start, int logPE_stride, int PE_size,
                         const char *rtn) SHMEMI_WUR;
/* The sum scans: inclusive (exclusive == 0) or exclusive. */
int shmemi_scan_check(shmem_team_t team, int tc, size_t esize, const void *dest,
                      const void *source, size_t nelems, const char *rtn) SHMEMI_WUR;
int shmemi_scan(shmem_team_t team, int tc, size_t esize, void *dest, const void *source,
                size_t nelems, int exclusive, const char *rtn) SHMEMI_WUR;
/* Reduce-scatter: source holds nreduce * team size elements, member i gets
 * block i reduced over the team in dest (nreduce elements). */
int shmemi_reducescatter_check(shmem_team_t team, int tc, int op, size_t esize,
                               const void *dest, const void *source, size_t nreduce,
                               const char *rtn) SHMEMI_WUR;
int shmemi_reducescatter(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                         const void *source, size_t nreduce, const char *rtn) SHMEMI_WUR;

/* ---- shared by the reduction files ---- */

/* The mapped address of symmetric heap address p on world PE pe (the
 * caller checked that pe is mapped and p in the heap). */
static inline char *shmemi_reduce_peer(const void *p, int pe)
{
    return shmemi_g.peer_heap[pe] + ((uintptr_t)p - (uintptr_t)shmemi_g.heap_base);
}

/* Elements per slice when nelems are split over n members in multiples of
 * a cache line. */
static inline size_t shmemi_reduce_slice(size_t nelems, int n, size_t esize)
{
    size_t line = esize < 64 ? 64 / esize : 1;
    size_t per = (nelems + (size_t)n - 1) / (size_t)n;

    return (per + line - 1) / line * line;
}

/* The members that run an algorithm: the whole team, or a subset of it
 * (the node leaders of hier): np of them, participant j being team index
 * idx[j] (idx NULL: j itself), me my number among them.  Signals go to
 * sig[my team index] as everywhere. */
typedef struct shmemi_parts {
    int np, me;
    const int *idx;
} shmemi_parts_t;

static inline int shmemi_part_tidx(const shmemi_parts_t *p, int j)
{
    return p->idx ? p->idx[j] : j;
}

static inline int shmemi_part_pe(const struct shmemi_team *t, const shmemi_parts_t *p, int j)
{
    return t->pes[shmemi_part_tidx(p, j)];
}

/* The allreduces over the transport (coll_reduce_xport.c), in place or
 * not: recursive doubling through the scratch, and rsag (ring
 * reduce-scatter and allgather).  ring_piece: the elements of an rsag
 * piece, 0 when rsag cannot run (more than 512 participants); the epochs
 * each takes (the members that do not take part in an algorithm of the
 * leaders count them too). */
int shmemi_allreduce_rd(struct shmemi_team *t, const shmemi_parts_t *pp, const shmemi_rkern_t *k,
                        size_t esize, char *dest, const char *source, size_t nelems) SHMEMI_WUR;
int shmemi_allreduce_ring(struct shmemi_team *t, const shmemi_parts_t *pp,
                          const shmemi_rkern_t *k, size_t esize, char *dest, const char *source,
                          size_t nelems) SHMEMI_WUR;
size_t shmemi_reduce_ring_piece(int np, size_t esize);
uint64_t shmemi_reduce_rd_epochs(size_t nelems, int np, size_t esize);
uint64_t shmemi_reduce_ring_epochs(size_t nelems, int np, size_t esize);

/* Pulling pieces of other members' arrays (coll_scan.c: hier, scans,
 * reduce-scatter).  One member reduces cnt members' arrays (team indices
 * list[0..cnt), in that order) at byte offset soff of the symmetric array
 * source into out (local, len elements), piece by piece.  With direct, a
 * member whose array is mapped is read in place; the others are fetched
 * with gets into buffers (allocated at the first need). */
typedef struct shmemi_gather {
    struct shmemi_team *t;
    const shmemi_rkern_t *k;
    size_t esize;
    int direct;
    char *bufs;       /* cnt pieces of piece bytes, or NULL */
    size_t piece;     /* bytes per member and piece */
    int cnt;
    const char *rtn;
} shmemi_gather_t;

void shmemi_gather_init(shmemi_gather_t *g, struct shmemi_team *t, const shmemi_rkern_t *k,
                        size_t esize, int direct, int cnt, const char *rtn);
void shmemi_gather_fini(shmemi_gather_t *g);
int shmemi_gather_reduce(shmemi_gather_t *g, char *out, const char *source, size_t soff,
                         size_t len, const int *list, int cnt) SHMEMI_WUR;

#endif
