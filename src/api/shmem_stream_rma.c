/*
 * RMA, signals and waits on streams: every shmemx_*_on_stream routine of
 * that kind (typed, sized and mem forms; put, get, their _nbi forms, p, g,
 * iput, iget, put with signal, signal op, signal and typed waits, quiet),
 * thin wrappers over src/stream (stream.h).  Work a stream refuses is
 * reported by its next shmemx_stream_sync (shmemi_api_stream).  The _nbi
 * forms enqueue the same work as the blocking ones: a stream's puts are
 * already non-blocking among themselves (the next item that is not a put
 * completes them), and its gets complete before the next item runs, which
 * the _nbi forms allow.
 */
#include "api/api.h"
#include "stream/stream.h"

/* ---- the mem forms and the signal routines ---- */

#define MEM_RW(NAME, IS_PUT) \
    SHMEM_API void shmemx_##NAME##_on_stream(void *dest, const void *source, size_t nelems, \
                                             int pe, shmemx_stream_t stream) \
    { \
        shmemi_api_stream(shmemi_stream_rma(stream, IS_PUT, dest, source, nelems, 1, pe, \
                                            "shmemx_" #NAME "_on_stream")); \
    }
MEM_RW(putmem, 1)
MEM_RW(putmem_nbi, 1)
MEM_RW(getmem, 0)
MEM_RW(getmem_nbi, 0)

#define MEM_PUT_SIGNAL(NAME) \
    SHMEM_API void shmemx_##NAME##_on_stream(void *dest, const void *source, size_t nelems, \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                             int pe, shmemx_stream_t stream) \
    { \
        shmemi_api_stream(shmemi_stream_put_signal(stream, dest, source, nelems, 1, sig_addr, \
                                                   signal, sig_op, pe, \
                                                   "shmemx_" #NAME "_on_stream")); \
    }
MEM_PUT_SIGNAL(putmem_signal)
MEM_PUT_SIGNAL(putmem_signal_nbi)

SHMEM_API void shmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                          shmemx_stream_t stream)
{
    shmemi_api_stream(shmemi_stream_signal_op(stream, sig_addr, signal, sig_op, pe,
                                              "shmemx_signal_op_on_stream"));
}

SHMEM_API void shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                                  shmemx_stream_t stream)
{
    shmemi_api_stream(shmemi_stream_signal_wait(stream, sig_addr, cmp, cmp_value,
                                                "shmemx_signal_wait_until_on_stream"));
}

SHMEM_API void shmemx_quiet_on_stream(shmemx_stream_t stream)
{
    shmemi_api_stream(shmemi_stream_quiet(stream, "shmemx_quiet_on_stream"));
}

/* ---- the typed and sized forms ---- */

/* One routine NAME of each parameter list: a contiguous put or get
 * (IS_PUT), a strided one, a put with signal; T is the element type (void
 * for the sized forms) of ES bytes.  The routine passes its own name on,
 * so that an error names the routine the user called. */
#define RW_FORM(T, ES, NAME, IS_PUT) \
    SHMEM_API void NAME(T *dest, const T *source, size_t nelems, int pe, \
                        shmemx_stream_t stream) \
    { \
        shmemi_api_stream(shmemi_stream_rma(stream, IS_PUT, dest, source, nelems, ES, pe, \
                                            #NAME)); \
    }
#define STRIDED_FORM(T, ES, NAME, IS_PUT) \
    SHMEM_API void NAME(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                        int pe, shmemx_stream_t stream) \
    { \
        shmemi_api_stream(shmemi_stream_strided(stream, IS_PUT, dest, source, dst, sst, \
                                                nelems, ES, pe, #NAME)); \
    }
#define SIGNAL_FORM(T, ES, NAME) \
    SHMEM_API void NAME(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                        uint64_t signal, int sig_op, int pe, shmemx_stream_t stream) \
    { \
        shmemi_api_stream(shmemi_stream_put_signal(stream, dest, source, nelems, ES, sig_addr, \
                                                   signal, sig_op, pe, #NAME)); \
    }

/* put, put_nbi, get, get_nbi, iput, iget, put_signal, put_signal_nbi of
 * one element type T (void for the sized forms) of ES bytes; PRE names
 * "shmemx_<type>_" or "shmemx_", SUF "" or the size. */
#define RMA_FAMILY(T, ES, PRE, SUF) \
    RW_FORM(T, ES, PRE##put##SUF##_on_stream, 1) \
    RW_FORM(T, ES, PRE##put##SUF##_nbi_on_stream, 1) \
    RW_FORM(T, ES, PRE##get##SUF##_on_stream, 0) \
    RW_FORM(T, ES, PRE##get##SUF##_nbi_on_stream, 0) \
    STRIDED_FORM(T, ES, PRE##iput##SUF##_on_stream, 1) \
    STRIDED_FORM(T, ES, PRE##iget##SUF##_on_stream, 0) \
    SIGNAL_FORM(T, ES, PRE##put##SUF##_signal_on_stream) \
    SIGNAL_FORM(T, ES, PRE##put##SUF##_signal_nbi_on_stream)

/* The typed forms add p and g (0 when the get is refused). */
#define RMA_TYPED(TYPE, TN) \
    RMA_FAMILY(TYPE, sizeof(TYPE), shmemx_##TN##_, ) \
    SHMEM_API void shmemx_##TN##_p_on_stream(TYPE *dest, TYPE value, int pe, \
                                             shmemx_stream_t stream) \
    { \
        shmemi_api_stream(shmemi_stream_p(stream, dest, &value, sizeof(TYPE), pe, \
                                          "shmemx_" #TN "_p_on_stream")); \
    } \
    SHMEM_API TYPE shmemx_##TN##_g_on_stream(const TYPE *source, int pe, \
                                             shmemx_stream_t stream) \
    { \
        TYPE v; \
        memset(&v, 0, sizeof(v)); \
        shmemi_api_stream(shmemi_stream_g(stream, &v, source, sizeof(TYPE), pe, \
                                          "shmemx_" #TN "_g_on_stream")); \
        return v; \
    }
SHMEMI_RMA_TYPES(RMA_TYPED)

#define RMA_SIZED(SIZE) RMA_FAMILY(void, (SIZE) / 8, shmemx_, SIZE)
SHMEMI_RMA_SIZES(RMA_SIZED)

/* ---- typed waits ---- */

#define WAIT_TYPED(TYPE, TN) \
    SHMEM_API void shmemx_##TN##_wait_until_on_stream(TYPE *ivar, int cmp, TYPE cmp_value, \
                                                      shmemx_stream_t stream) \
    { \
        shmemi_api_stream(shmemi_stream_##TN##_wait_until(stream, ivar, cmp, cmp_value, \
                                                          "shmemx_" #TN \
                                                          "_wait_until_on_stream")); \
    }
SHMEMI_P2P_TYPES(WAIT_TYPED)
