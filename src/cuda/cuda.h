/*
 * The GPU of this PE: the CUDA driver, loaded at run time (src/cuda/cuda.c),
 * the device the PE uses and the library's context and stream on it.  No
 * CUDA type appears here: the files that call the driver include
 * cuda/cuda_drv.h as well.  In a build without CUDA every routine exists
 * and says that there is no GPU.
 */
#ifndef SHMEMI_CUDA_H
#define SHMEMI_CUDA_H

#include "base/error.h"

typedef struct shmemi_cuda {
    int loaded;         /* libcuda.so.1 is loaded and cuInit succeeded */
    int on;             /* a device is chosen and the library's context held */
    int device;         /* its ordinal in this process (CUDA_VISIBLE_DEVICES applies) */
    int ctx_retained;   /* the context is the device's primary context, retained
                         * by the library (no context was current at init) */
    int driver_version; /* cuDriverGetVersion: 13000 for CUDA 13.0 */
    int n_devices;      /* GPUs this process sees */
    int mps;            /* 1: the context is a client of the MPS daemon (contexts of
                         * other processes on the GPU run at the same time rather
                         * than in turns of time slices); 0 not; -1 unknown */
    int lazy;           /* 1: CUDA loads kernels lazily (CUDA_MODULE_LOADING=LAZY, the
                         * default since CUDA 12.2), whose loading of a kernel of the
                         * program waits for the kernels running; 0 eager; -1 unknown */
    char name[96];      /* the device's name */
    char pci[32];       /* its PCI bus id, "0000:1b:00.0" */
    unsigned char uuid[16];
    char why[256];      /* with on 0: why there is no GPU (the build, the mode,
                         * no driver, no device) */
} shmemi_cuda_t;

extern shmemi_cuda_t shmemi_cuda SHMEMI_HIDDEN;

/* Brings up the GPU of this PE as FABSHMEM_CUDA says (want: -1 auto, -2
 * auto loading the driver, 1, 0): auto uses the driver only when the
 * process loaded it before shmem_init (a CUDA program: it called the CUDA
 * runtime or driver), -2 (auto in a program linked with the device
 * library) loads it but fails nothing without a GPU, 1 loads it and
 * requires a GPU, 0 never.  The device is the one of the context
 * current on the calling thread, as NVSHMEM takes it; without one, device
 * local_rank % (GPUs seen), whose primary context the library retains and
 * makes current on the calling thread (the runtime then uses it too).
 * Returns 0 with shmemi_cuda.on set, or 0 with on clear and the reason in
 * shmemi_cuda.why (auto, or false), or the class of the failure, recorded
 * naming rtn: SHMEMX_ERROR_NOT_SUPPORTED when the mode requires a GPU
 * and there is none (or the build has no CUDA), SHMEMX_ERROR_INTERNAL when
 * a driver call fails. */
int shmemi_cuda_open(int want, int local_rank, const char *rtn) SHMEMI_WUR;
/* Releases the stream and, if retained, the primary context. */
void shmemi_cuda_close(void);
/* Copies n bytes from src to dst, each host or GPU memory (this PE's
 * device, or a node peer's device memory mapped here), on the library's
 * stream, and waits until the copy is done.  0 or the class, recorded. */
int shmemi_cuda_copy(void *dst, const void *src, size_t n, const char *rtn) SHMEMI_WUR;
/* n copies (dst[i] <- src[i], len[i] bytes; len 0 is skipped) queued on
 * the library's stream in order, then one wait for all of them: the
 * collectives on mapped device heaps.  0 or the class, recorded. */
int shmemi_cuda_copyv(void *const *dst, const void *const *src, const size_t *len, int n,
                      const char *rtn) SHMEMI_WUR;
/* ---- the library's kernels (cuda_kern.c) ---- */
/* The most sources shmemi_cuda_reduce combines. */
#define SHMEMI_CUDA_RED_MAXSRC 32
/* 1 when the library has a GPU kernel for the reduction of type tc with
 * operation op (base/rtype.h's codes, as the host reductions take them):
 * every pair the host reductions have but long double's; else 0 (in a
 * build without CUDA too, so that callers can refuse with a clear message
 * before anything else). */
int shmemi_cuda_reduce_ok(int tc, int op);
/* dst[0][i] = ... = dst[nd - 1][i] = src[0][i] op ... op src[n - 1][i]
 * for lo <= i < hi, elements of type tc (op and tc as
 * shmemi_cuda_reduce_ok takes them; n and nd from 1 to
 * SHMEMI_CUDA_RED_MAXSRC; the sources and destinations GPU memory this
 * PE's device reads and writes: its own and its mapped peers' device
 * heaps), by the library's kernel: the one-shot reduction is nd 1 and
 * every element, the reduce-scatter + all-gather this PE's slice into
 * every member's dest.  stream is a CUstream: NULL runs the kernel on the
 * library's stream and waits for it; another is the caller's stream, on
 * which the kernel is launched and not waited for.  The kernels are
 * loaded at the first call.  0 or the class, recorded naming rtn
 * (NOT_SUPPORTED for a pair without a kernel, long double's). */
int shmemi_cuda_reduce(int tc, int op, void *const *dst, int nd, const void *const *src, int n,
                       size_t lo, size_t hi, void *stream, const char *rtn) SHMEMI_WUR;
/* The same reduction with the two synchronizations of a team around it
 * done by the kernel itself (src/coll/coll_dev_stream.c), launched on the
 * CUstream stream as given (0, 1 and 2 being the default streams, never
 * the library's) and not waited for.  me is this PE's index in
 * the team of n members; mine its n words of the team (word j written by
 * member j); peer[j] the address, mapped here, of this PE's word among
 * member j's words (peer[me] unused); k1 and k2 the epochs of the
 * synchronizations before and after (the kernel stores k1 into every
 * peer[j] and waits until every other mine[j] is at least k1 before it
 * reads, then the same with k2 when every read is done); counter a word
 * of this PE's device memory that is 0 between these kernels (the kernel
 * counts its blocks on it and leaves it 0).  0 or the class, recorded. */
int shmemi_cuda_reduce_fused(int tc, int op, void *dst, const void *const *src, int n,
                             size_t count, uint64_t *mine, void *const *peer, int me, uint64_t k1,
                             uint64_t k2, unsigned *counter, void *stream,
                             const char *rtn) SHMEMI_WUR;
/* A put with signal in one launch of the library's kernel (one block) on
 * the CUstream cs, not waited for: n bytes (n > 0) from src (GPU memory
 * this device reads) to dst (this PE's or a mapped peer's device heap),
 * then, after a system-scope fence, *sig = v (add 0, SHMEM_SIGNAL_SET) or
 * *sig += v as one atomic (add 1, SHMEM_SIGNAL_ADD), sig GPU memory
 * mapped here: whoever sees the signal sees the data.  For small puts
 * (src/stream/stream_cuda.c): one block copies at the speed of one SM.
 * 0 or the class, recorded naming rtn. */
int shmemi_cuda_put_signal_on(void *cs, void *dst, const void *src, size_t n, uint64_t *sig,
                              uint64_t v, int add, const char *rtn) SHMEMI_WUR;
/* An atomic on the width-byte word at word (4 or 8, aligned; GPU memory
 * of this device or a peer's device heap mapped here) by the library's
 * one-thread kernel on the library's stream, waited for: amo is
 * SHMEMD_AMO_* (include/fabshmem/device/proxy.h; value and, for CSWAP,
 * cmp hold the operand's bits), a system-scope atomic of the GPU (FETCH
 * an atomic load), so that it is atomic against the kernels' atomics on
 * the word.  The old value (zero-extended from 4 bytes) goes to *old
 * when old is not NULL, whatever the operation; a SET with old NULL is
 * the stream's own write (cuStreamWriteValue: no SM needed).  Complete at
 * return; one call at a time (a lock).  0 or the class, recorded naming rtn
 * (NOT_SUPPORTED without a GPU). */
int shmemi_cuda_amo(void *word, int amo, size_t width, uint64_t value, uint64_t cmp,
                    uint64_t *old, const char *rtn) SHMEMI_WUR;
/* GPU memory of this PE's device of at least n bytes, kept (and grown) by
 * the library until shmemi_cuda_close; NULL with the failure recorded. */
void *shmemi_cuda_scratch(size_t n, const char *rtn);
/* Unloads the kernels and frees the scratch (shmemi_cuda_close). */
void shmemi_cuda_kern_fini(void);
/* Loads the library's kernels, every one of them whole (cuFuncLoad where
 * the driver has it), at init: loading a module or a lazily loaded kernel
 * waits for every stream of the context, so a first use while a CUDA
 * stream waits for the stream's host thread (held work) would deadlock
 * (run 18: the held collectives on device buffers).  0 or the class,
 * recorded. */
int shmemi_cuda_kern_preload(const char *rtn) SHMEMI_WUR;
/* 1 when p is GPU memory (that the CPU cannot load or store), else 0. */
int shmemi_cuda_is_device(const void *p);
/* 1 when p is GPU memory of this PE's device (that its kernels may read
 * without peer access: not another GPU's of the process), else 0. */
int shmemi_cuda_is_own_device(const void *p);
/* Makes the library's context current on the calling thread for the
 * driver calls that follow; returns what shmemi_cuda_pop needs to put the
 * thread's own context back (1: pushed).  Nothing (0) while no device is
 * chosen.  The library's own threads that drive the provider call it once
 * for their life (a provider with FI_HMEM copies GPU memory on them). */
int shmemi_cuda_push(void);
void shmemi_cuda_pop(int pushed);
/* Pins [p, p + n) of host memory for the GPU's copies (0 or a negative
 * value: not pinned, which only costs speed); shmemi_cuda_unpin undoes it. */
int shmemi_cuda_pin(void *p, size_t n);
void shmemi_cuda_unpin(void *p);
/* ---- work on a CUDA stream of the program's (cuda_stream.c) ----
 * cs is a CUstream (a cudaStream_t: the same handle) of the library's
 * context, given as void *.  Each routine queues its work on cs and
 * returns at once; 0, or the class of a failing driver call, recorded as
 * a fatal error naming rtn. */
/* Whether cs is a stream of the library's context (the GPU that the
 * device heap is on): 0, or SHMEMX_ERROR_INVALID_VALUE recorded. */
int shmemi_cuda_stream_check(void *cs, const char *rtn) SHMEMI_WUR;
/* n bytes from src to dst (GPU memory of this device or mapped from a
 * node peer's, or host memory). */
int shmemi_cuda_copy_on(void *cs, void *dst, const void *src, size_t n, const char *rtn)
    SHMEMI_WUR;
/* *addr = v, size 4 or 8 bytes, after the work before it on cs is done and
 * visible (a stream memory operation, with its fence); addr is GPU memory
 * (this device's or mapped) or pinned host memory. */
int shmemi_cuda_write_on(void *cs, void *addr, uint64_t v, size_t size, const char *rtn)
    SHMEMI_WUR;
/* *addr += v as one atomic of the GPU (the library's kernel). */
int shmemi_cuda_add_on(void *cs, uint64_t *addr, uint64_t v, const char *rtn) SHMEMI_WUR;
/* What follows on cs waits until *addr (size 4 or 8 bytes, signed or not)
 * compares true with v by cmp (SHMEM_CMP_*): the stream's own wait
 * (cuStreamWaitValue64) for EQ, and GE/GT of 64-bit words below 2^62
 * (a cyclic comparison, exact there), else the library's one-thread
 * kernel. */
int shmemi_cuda_wait_on(void *cs, const void *addr, size_t size, int is_signed, int cmp,
                        uint64_t v, const char *rtn) SHMEMI_WUR;
/* fn(arg) on a thread of the driver when cs reaches it; fn must not call
 * CUDA (it may take locks and signal threads). */
int shmemi_cuda_host_fn_on(void *cs, void (*fn)(void *), void *arg, const char *rtn)
    SHMEMI_WUR;
/* n bytes of GPU memory in the order of cs (cuMemAllocAsync), and their
 * release in that order: NULL with the failure recorded / 0 or the class. */
void *shmemi_cuda_alloc_on(void *cs, size_t n, const char *rtn);
int shmemi_cuda_free_on(void *cs, void *p, const char *rtn) SHMEMI_WUR;
/* Waits until the work queued on cs so far is done: 0 or the class. */
int shmemi_cuda_stream_sync(void *cs, const char *rtn) SHMEMI_WUR;
/* 1 while cs has work that is not done, 0 when it has none, -1 when the
 * driver reports an error. */
int shmemi_cuda_stream_busy(void *cs);
/* Pinned host memory of n bytes that the GPU reads and writes (stream
 * waits on it), zeroed: NULL with the failure recorded; and its release. */
void *shmemi_cuda_host_alloc(size_t n, const char *rtn);
void shmemi_cuda_host_free(void *p);
/* GPU memory of n bytes on this device, zeroed (for words that kernels
 * update with atomics and the host seldom reads): NULL with the failure
 * recorded; and its release. */
void *shmemi_cuda_dev_alloc(size_t n, const char *rtn);
void shmemi_cuda_dev_free(void *p);
/* Zeroes n bytes of GPU memory of this device, waited for: 0 or the class. */
int shmemi_cuda_zero(void *dev, size_t n, const char *rtn) SHMEMI_WUR;

/* fabshmem_info: what this build and the driver offer (not collective,
 * needs no init; loads the driver if it can). */
void shmemi_cuda_describe(FILE *fp);

#endif
