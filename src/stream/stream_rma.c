/*
 * RMA, signals and waits on streams: every shmemx_*_on_stream routine of
 * that kind (typed, sized and mem forms; put, get, their _nbi forms, p, g,
 * iput, iget, put with signal, signal op, signal and typed waits, quiet),
 * and the argument checks that every *_on_stream routine uses.
 *
 * Each routine checks all of its arguments before it enqueues anything, so
 * that bad input is refused and reported by the next shmemx_stream_sync
 * (naming the routine and the argument) instead of failing on the worker,
 * where it could only end the job.  The _nbi forms enqueue the same work
 * as the blocking ones: a stream's puts are already non-blocking among
 * themselves (the next item that is not a put completes them), and its
 * gets complete before the next item runs, which the _nbi forms allow.
 */
#include "stream/stream.h"
#include <shmemx.h>

/* ---- argument checks ---- */

int shmemi_stream_check_pe(struct shmemx_stream *s, int pe, const char *rtn)
{
    if (pe < 0 || pe >= shmemi_g.n_pes) {
        shmemi_stream_refuse(s, rtn, "pe %d is out of range (the job has %d PEs: 0 to %d)", pe,
                             shmemi_g.n_pes, shmemi_g.n_pes - 1);
        return -1;
    }
    return 0;
}

int shmemi_stream_check_sym(struct shmemx_stream *s, const void *addr, size_t len,
                            const char *what, const char *rtn)
{
    int seg;
    uint64_t off;

    if (len && shmemi_addr_seg(addr, len, &seg, &off)) {
        shmemi_stream_refuse(s, rtn, "%s %p (%zu bytes) is not inside a symmetric object", what,
                             addr, len);
        return -1;
    }
    return 0;
}

int shmemi_stream_check_bytes(struct shmemx_stream *s, size_t count, size_t size,
                              const char *what, size_t *bytes_p, const char *rtn)
{
    if (__builtin_mul_overflow(count, size, bytes_p)) {
        shmemi_stream_refuse(s, rtn, "%s %zu times %zu bytes overflows size_t", what, count,
                             size);
        return -1;
    }
    return 0;
}

int shmemi_stream_check_team(struct shmemx_stream *s, shmem_team_t team, const char *rtn)
{
    if (!shmemi_team_ok(team)) {
        shmemi_stream_refuse(s, rtn, "team is SHMEM_TEAM_INVALID or this PE is not a member of "
                             "it");
        return -1;
    }
    return 0;
}

/* An aligned 8-byte signal word of a symmetric object. */
static int check_sig_addr(struct shmemx_stream *s, const uint64_t *sig, const char *rtn)
{
    if ((uintptr_t)sig % sizeof(uint64_t)) {
        shmemi_stream_refuse(s, rtn, "sig_addr %p is not aligned to 8 bytes", (const void *)sig);
        return -1;
    }
    return shmemi_stream_check_sym(s, sig, sizeof(uint64_t), "sig_addr", rtn);
}

static int check_sig_op(struct shmemx_stream *s, int sig_op, const char *rtn)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) {
        shmemi_stream_refuse(s, rtn, "sig_op %d is neither SHMEM_SIGNAL_SET (%d) nor "
                             "SHMEM_SIGNAL_ADD (%d)", sig_op, SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
        return -1;
    }
    return 0;
}

static int check_cmp(struct shmemx_stream *s, int cmp, const char *rtn)
{
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) {
        shmemi_stream_refuse(s, rtn, "cmp %d is not one of SHMEM_CMP_EQ .. SHMEM_CMP_LE", cmp);
        return -1;
    }
    return 0;
}

/* ---- the cores ---- */

/* put, put_nbi (W_PUT) and get, get_nbi (W_GET) of nelems elements. */
static void rw_on_stream(enum shmemi_wkind kind, void *dest, const void *src, size_t nelems,
                         size_t elsize, int pe, shmemx_stream_t stream, const char *rtn)
{
    struct shmemx_stream *s = shmemi_stream_get(stream, rtn);
    struct shmemi_work w = { .kind = kind, .rtn = rtn, .dest = dest, .src = src, .pe = pe };

    if (shmemi_stream_check_bytes(s, nelems, elsize, "nelems", &w.len, rtn) ||
        shmemi_stream_check_pe(s, pe, rtn) ||
        shmemi_stream_check_sym(s, kind == SHMEMI_W_GET ? src : dest, w.len,
                                kind == SHMEMI_W_GET ? "source" : "dest", rtn))
        return;
    shmemi_stream_submit(s, &w);
}

/* p: the value travels in the work item; the worker puts it. */
static void p_on_stream(void *dest, const void *value, size_t size, int pe,
                        shmemx_stream_t stream, const char *rtn)
{
    struct shmemx_stream *s = shmemi_stream_get(stream, rtn);
    struct shmemi_work w = { .kind = SHMEMI_W_PUT, .rtn = rtn, .dest = dest, .len = size,
                             .pe = pe };

    if (shmemi_stream_check_pe(s, pe, rtn) || shmemi_stream_check_sym(s, dest, size, "dest", rtn))
        return;
    memcpy(w.imm.b, value, size);
    shmemi_stream_enqueue(s, &w);
}

/* g: a get into *value in stream order, waited for.  0, or -1 when the
 * get was refused (*value is left alone). */
static int g_on_stream(void *value, const void *src, size_t size, int pe,
                       shmemx_stream_t stream, const char *rtn)
{
    struct shmemx_stream *s = shmemi_stream_get(stream, rtn);
    struct shmemi_work w = { .kind = SHMEMI_W_GET, .rtn = rtn, .dest = value, .src = src,
                             .len = size, .pe = pe };

    if (shmemi_stream_check_pe(s, pe, rtn) ||
        shmemi_stream_check_sym(s, src, size, "source", rtn))
        return -1;
    shmemi_stream_enqueue(s, &w);
    shmemi_stream_drain(s);
    return 0;
}

/* iput and iget: element i at element i * dst of dest and i * sst of src;
 * the remote side (dest of a put, src of a get) must lie in one symmetric
 * object from its lowest to its highest element. */
static void strided_on_stream(enum shmemi_wkind kind, void *dest, const void *src, ptrdiff_t dst,
                              ptrdiff_t sst, size_t nelems, size_t elsize, int pe,
                              shmemx_stream_t stream, const char *rtn)
{
    struct shmemx_stream *s = shmemi_stream_get(stream, rtn);
    struct shmemi_work w = { .kind = kind, .rtn = rtn, .dest = dest, .src = src, .len = elsize,
                             .nelems = nelems, .dst = dst, .sst = sst, .pe = pe };
    int is_put = kind == SHMEMI_W_IPUT;
    const char *remote = is_put ? (const char *)dest : (const char *)src;
    ptrdiff_t rst = is_put ? dst : sst;
    size_t step, span, total;

    if (shmemi_stream_check_pe(s, pe, rtn) || nelems == 0)
        return;
    if (shmemi_stream_check_bytes(s, (size_t)(rst < 0 ? -rst : rst), elsize,
                                  is_put ? "dst" : "sst", &step, rtn) ||
        shmemi_stream_check_bytes(s, nelems - 1, step, "nelems - 1 strides of", &span, rtn))
        return;
    if (__builtin_add_overflow(span, elsize, &total) ||
        (rst < 0 && (uintptr_t)remote < span)) {
        shmemi_stream_refuse(s, rtn, "%zu elements %s %td apart do not fit in the address space",
                             nelems, is_put ? "dst" : "sst", rst);
        return;
    }
    if (shmemi_stream_check_sym(s, rst < 0 ? remote - span : remote, total,
                                is_put ? "dest" : "source", rtn))
        return;
    shmemi_stream_enqueue(s, &w);
}

static void put_signal_on_stream(void *dest, const void *src, size_t nelems, size_t elsize,
                                 uint64_t *sig, uint64_t signal, int sig_op, int pe,
                                 shmemx_stream_t stream, const char *rtn)
{
    struct shmemx_stream *s = shmemi_stream_get(stream, rtn);
    struct shmemi_work w = { .kind = SHMEMI_W_PUT_SIGNAL, .rtn = rtn, .dest = dest, .src = src,
                             .sig = sig, .value = signal, .op = sig_op, .pe = pe };

    if (shmemi_stream_check_bytes(s, nelems, elsize, "nelems", &w.len, rtn) ||
        shmemi_stream_check_pe(s, pe, rtn) ||
        shmemi_stream_check_sym(s, dest, w.len, "dest", rtn) || check_sig_addr(s, sig, rtn) ||
        check_sig_op(s, sig_op, rtn))
        return;
    shmemi_stream_submit(s, &w);
}

/* ---- the mem forms and the signal routines ---- */

#define MEM_RW(NAME, KIND) \
    SHMEM_API void shmemx_##NAME##_on_stream(void *dest, const void *source, size_t nelems, \
                                             int pe, shmemx_stream_t stream) \
    { \
        rw_on_stream(KIND, dest, source, nelems, 1, pe, stream, "shmemx_" #NAME "_on_stream"); \
    }
MEM_RW(putmem, SHMEMI_W_PUT)
MEM_RW(putmem_nbi, SHMEMI_W_PUT)
MEM_RW(getmem, SHMEMI_W_GET)
MEM_RW(getmem_nbi, SHMEMI_W_GET)

#define MEM_PUT_SIGNAL(NAME) \
    SHMEM_API void shmemx_##NAME##_on_stream(void *dest, const void *source, size_t nelems, \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                             int pe, shmemx_stream_t stream) \
    { \
        put_signal_on_stream(dest, source, nelems, 1, sig_addr, signal, sig_op, pe, stream, \
                             "shmemx_" #NAME "_on_stream"); \
    }
MEM_PUT_SIGNAL(putmem_signal)
MEM_PUT_SIGNAL(putmem_signal_nbi)

SHMEM_API void shmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                          shmemx_stream_t stream)
{
    const char *rtn = "shmemx_signal_op_on_stream";
    struct shmemx_stream *s = shmemi_stream_get(stream, rtn);
    struct shmemi_work w = { .kind = SHMEMI_W_SIGNAL_OP, .rtn = rtn, .sig = sig_addr,
                             .value = signal, .op = sig_op, .pe = pe };

    if (shmemi_stream_check_pe(s, pe, rtn) || check_sig_addr(s, sig_addr, rtn) ||
        check_sig_op(s, sig_op, rtn))
        return;
    shmemi_stream_submit(s, &w);
}

SHMEM_API void shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                                  shmemx_stream_t stream)
{
    const char *rtn = "shmemx_signal_wait_until_on_stream";
    struct shmemx_stream *s = shmemi_stream_get(stream, rtn);
    struct shmemi_work w = { .kind = SHMEMI_W_SIGNAL_WAIT, .rtn = rtn, .sig = sig_addr,
                             .value = cmp_value, .op = cmp };

    if (check_sig_addr(s, sig_addr, rtn) || check_cmp(s, cmp, rtn))
        return;
    shmemi_stream_enqueue(s, &w);
}

SHMEM_API void shmemx_quiet_on_stream(shmemx_stream_t stream)
{
    struct shmemx_stream *s = shmemi_stream_get(stream, "shmemx_quiet_on_stream");
    struct shmemi_work w = { .kind = SHMEMI_W_QUIET, .rtn = "shmemx_quiet_on_stream" };

    shmemi_stream_enqueue(s, &w);
}

/* ---- the typed and sized forms ---- */

/* One routine NAME of each parameter list: a contiguous put or get (work
 * item KIND), a strided one, a put with signal; T is the element type
 * (void for the sized forms) of ES bytes.  The routine passes its own name
 * on, so that an error names the routine the user called. */
#define RW_FORM(T, ES, NAME, KIND) \
    SHMEM_API void NAME(T *dest, const T *source, size_t nelems, int pe, \
                        shmemx_stream_t stream) \
    { \
        rw_on_stream(KIND, dest, source, nelems, ES, pe, stream, #NAME); \
    }
#define STRIDED_FORM(T, ES, NAME, KIND) \
    SHMEM_API void NAME(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                        int pe, shmemx_stream_t stream) \
    { \
        strided_on_stream(KIND, dest, source, dst, sst, nelems, ES, pe, stream, #NAME); \
    }
#define SIGNAL_FORM(T, ES, NAME) \
    SHMEM_API void NAME(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                        uint64_t signal, int sig_op, int pe, shmemx_stream_t stream) \
    { \
        put_signal_on_stream(dest, source, nelems, ES, sig_addr, signal, sig_op, pe, stream, \
                             #NAME); \
    }

/* put, put_nbi, get, get_nbi, iput, iget, put_signal, put_signal_nbi of
 * one element type T (void for the sized forms) of ES bytes; PRE names
 * "shmemx_<type>_" or "shmemx_", SUF "" or the size. */
#define RMA_FAMILY(T, ES, PRE, SUF) \
    RW_FORM(T, ES, PRE##put##SUF##_on_stream, SHMEMI_W_PUT) \
    RW_FORM(T, ES, PRE##put##SUF##_nbi_on_stream, SHMEMI_W_PUT) \
    RW_FORM(T, ES, PRE##get##SUF##_on_stream, SHMEMI_W_GET) \
    RW_FORM(T, ES, PRE##get##SUF##_nbi_on_stream, SHMEMI_W_GET) \
    STRIDED_FORM(T, ES, PRE##iput##SUF##_on_stream, SHMEMI_W_IPUT) \
    STRIDED_FORM(T, ES, PRE##iget##SUF##_on_stream, SHMEMI_W_IGET) \
    SIGNAL_FORM(T, ES, PRE##put##SUF##_signal_on_stream) \
    SIGNAL_FORM(T, ES, PRE##put##SUF##_signal_nbi_on_stream)

/* The typed forms add p and g. */
#define RMA_TYPED(TYPE, TN) \
    RMA_FAMILY(TYPE, sizeof(TYPE), shmemx_##TN##_, ) \
    SHMEM_API void shmemx_##TN##_p_on_stream(TYPE *dest, TYPE value, int pe, \
                                             shmemx_stream_t stream) \
    { \
        p_on_stream(dest, &value, sizeof(TYPE), pe, stream, "shmemx_" #TN "_p_on_stream"); \
    } \
    SHMEM_API TYPE shmemx_##TN##_g_on_stream(const TYPE *source, int pe, \
                                             shmemx_stream_t stream) \
    { \
        TYPE v; \
        memset(&v, 0, sizeof(v)); \
        g_on_stream(&v, source, sizeof(TYPE), pe, stream, "shmemx_" #TN "_g_on_stream"); \
        return v; \
    }
SHMEMI_RMA_TYPES(RMA_TYPED)

#define RMA_SIZED(SIZE) RMA_FAMILY(void, (SIZE) / 8, shmemx_, SIZE)
SHMEMI_RMA_SIZES(RMA_SIZED)

/* ---- typed waits ---- */

/* The wait of a typed wait_until_on_stream, run by the worker. */
#define WAIT_TYPED(TYPE, TN) \
    static void call_##TN##_wait_until(const struct shmemi_work *w) \
    { \
        TYPE v; \
        memcpy(&v, w->imm.b, sizeof(v)); \
        pshmem_##TN##_wait_until((TYPE *)w->dest, w->op, v); \
    } \
    SHMEM_API void shmemx_##TN##_wait_until_on_stream(TYPE *ivar, int cmp, TYPE cmp_value, \
                                                      shmemx_stream_t stream) \
    { \
        const char *rtn = "shmemx_" #TN "_wait_until_on_stream"; \
        struct shmemx_stream *s = shmemi_stream_get(stream, rtn); \
        struct shmemi_work w = { .kind = SHMEMI_W_CALL, .rtn = rtn, .dest = ivar, \
                                 .op = cmp, .call = call_##TN##_wait_until }; \
        if ((uintptr_t)ivar % _Alignof(TYPE)) { \
            shmemi_stream_refuse(s, rtn, "ivar %p is not aligned to %zu bytes", (void *)ivar, \
                                 (size_t)_Alignof(TYPE)); \
            return; \
        } \
        if (shmemi_stream_check_sym(s, ivar, sizeof(TYPE), "ivar", rtn) || \
            check_cmp(s, cmp, rtn)) \
            return; \
        memcpy(w.imm.b, &cmp_value, sizeof(TYPE)); \
        shmemi_stream_enqueue(s, &w); \
    }
SHMEMI_P2P_TYPES(WAIT_TYPED)
