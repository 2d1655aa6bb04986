/*
 * GPU memory in the symmetric address space (docs/gpu.md): the device
 * heap's range, RMA on it (src/core/dev_rma.c) and its staging through
 * host memory for the PEs that neither map it nor reach it through a
 * provider that moves GPU memory (src/core/dev_stage.c).  The heap itself
 * is made by src/mem/dheap.c.
 */
#ifndef SHMEMI_DEV_H
#define SHMEMI_DEV_H

#include "core/addr.h"
#include "core/ctx.h"
#include "cuda/cuda.h"

/* How device memory reaches the PEs that do not map it
 * (shmemi_g.dheap_remote); the same on every PE. */
enum {
    SHMEMI_DEV_REMOTE_NONE = 0, /* no device heap, or every PE maps every one */
    SHMEMI_DEV_REMOTE_HMEM,     /* the provider moves GPU memory (FI_HMEM) */
    SHMEMI_DEV_REMOTE_STAGED    /* staged through host memory: the target's staging
                                 * thread copies between it and its GPU */
};

/* The most members of a team whose synchronizations on a CUDA stream
 * are the GPU's own (shmemi_g.dheap_sync); larger teams synchronize on
 * the host. */
#define SHMEMI_DSYNC_MEMBERS 32

/* The words of team slot's synchronizations on CUDA streams on this PE
 * (SHMEMI_DSYNC_MEMBERS of them, word j written by member j). */
static inline uint64_t *shmemi_dev_sync_row(int slot)
{
    return shmemi_g.dheap_sync + (size_t)slot * SHMEMI_DSYNC_MEMBERS;
}

/* Clears slot's synchronization words and fused-reduction counter on this
 * PE (zero at init; shmem_team_destroy clears them again after its sync
 * of the team, so that the next team in the slot starts from zero):
 * 0 or the class. */
static inline int shmemi_dev_sync_clear(int slot, const char *rtn)
{
    int rc;

    if (!shmemi_g.dheap_sync || slot < 0 || slot >= shmemi_g.env.teams_max)
        return 0;
    if ((rc = shmemi_cuda_zero(shmemi_dev_sync_row(slot),
                               SHMEMI_DSYNC_MEMBERS * sizeof(uint64_t), rtn)))
        return rc;
    return shmemi_cuda_zero(shmemi_g.dheap_ctr + slot, sizeof(unsigned), rtn);
}

/* The alignment of the device heap's blocks (cudaMalloc's). */
#define SHMEMI_DEV_ALIGN 256

/* core/addr.c: shmemi_dev_range's search of the registered GPU buffers
 * (called only while there are some). */
int shmemi_dev_ext_range(const void *addr, size_t len, uint64_t *off_p);

/* 1 when [addr, addr + len) lies in this PE's device heap, or in GPU
 * memory it registered as symmetric (which has device-heap offsets too:
 * shmemi_g.dext), with its offset in *off_p; 0 otherwise (always, when
 * the PE has no device heap).  Every path on GPU memory goes from the
 * offset: peer_dheap[pe] + off is PE pe's copy where it is mapped. */
static inline int shmemi_dev_range(const void *addr, size_t len, uint64_t *off_p)
{
    uintptr_t off = (uintptr_t)addr - (uintptr_t)shmemi_g.dheap_base;

    if (SHMEMI_LIKELY(off >= shmemi_g.dheap_size) || len > shmemi_g.dheap_size - off)
        return SHMEMI_UNLIKELY(shmemi_g.n_dext) ? shmemi_dev_ext_range(addr, len, off_p) : 0;
    *off_p = off;
    return 1;
}

/* 1 when [off, off + len) is device-heap offsets that hold memory on
 * every PE: the heap's, or a registered buffer's (a staging request
 * names nothing else). */
int shmemi_dev_off_valid(uint64_t off, uint64_t len);

/* shmem_ptr of GPU memory addr (the device heap or a registered buffer)
 * on world PE pe: where this PE maps pe's copy (addr itself on this PE),
 * or NULL.  Only the GPU can load and store through it. */
static inline void *shmemi_dev_ptr(const void *addr, int pe)
{
    uint64_t off;

    if (!shmemi_dev_range(addr, 1, &off) || pe < 0 || pe >= shmemi_g.n_pes ||
        !shmemi_g.peer_dheap[pe])
        return NULL;
    return pe == shmemi_g.my_pe ? (void *)addr : shmemi_g.peer_dheap[pe] + off;
}

/* 1 when len bytes at p are GPU memory: the device heap or a registered
 * GPU buffer (a comparison), else what the driver says of p. */
static inline int shmemi_dev_is_gpu(const void *p, size_t len)
{
    uint64_t off;

    return shmemi_dev_range(p, len ? len : 1, &off) || shmemi_cuda_is_device(p);
}

/* Whether a transfer's local buffer may lie in GPU memory that the
 * library knows, which the CPU's memcpy of the direct path cannot touch:
 * this PE has a device heap, and p lies in it or GPU memory is registered
 * as symmetric (shmemi_g.n_dext).  Then the slow path decides
 * (shmemi_dev_rma_case) and moves it with the GPU, or with the CPU's
 * memcpy after all.  Without a device heap one load of a word beside the
 * heap's fields; and no call, so that the direct path keeps its
 * registers. */
static inline int shmemi_dev_maybe(const void *p)
{
    return SHMEMI_UNLIKELY(shmemi_g.dheap_any) &&
           ((uintptr_t)p - (uintptr_t)shmemi_g.dheap_base < shmemi_g.dheap_size ||
            shmemi_g.n_dext);
}

/* Whether [p, p + nbytes) lies in GPU memory that the library knows (the
 * device heap, GPU memory registered as symmetric), which the CPU cannot
 * load: 0 at once where this PE has no device heap. */
static inline int shmemi_dev_local(const void *p, size_t nbytes)
{
    uint64_t off;

    return SHMEMI_UNLIKELY(shmemi_g.dheap_any) && shmemi_dev_range(p, nbytes, &off);
}

/* Whether the RMA slow path hands a transfer between local and the
 * symmetric remote on world PE pe to shmemi_dev_rma: remote lies in the
 * device heap; or local does, and either the provider cannot take it (no
 * FI_HMEM) or remote is host memory that this PE's CPU reaches itself
 * (its own, a mapped peer's), which only a copy of the GPU may fill from
 * GPU memory or read into it. */
static inline int shmemi_dev_rma_case(const void *local, const void *remote, size_t nbytes,
                                      int pe)
{
    uint64_t off;

    return shmemi_dev_range(remote, nbytes, &off) ||
           (shmemi_dev_range(local, nbytes, &off) &&
            (shmemi_g.dheap_remote != SHMEMI_DEV_REMOTE_HMEM || pe == shmemi_g.my_pe ||
             shmemi_direct(remote, nbytes, pe)));
}

/* The RMA slow path's case of GPU memory: a put (is_put) from local to
 * the symmetric remote, or a get from remote to local, of nbytes (> 0) on
 * world PE pe (checked), where remote lies in the device heap, or local
 * does and remote is host memory.  To this PE and mapped peers a copy of
 * the GPU (into or out of their host memory too); to other PEs the
 * transport with the device heap registered, or staging.  Complete at
 * return, nbi or not (the source may be reused, the data is at the
 * target); 0 or the class, recorded, naming rtn. */
int shmemi_dev_rma(shmem_ctx_t ctx, void *local, void *remote, size_t nbytes, int pe, int nbi,
                   int is_put, const char *rtn) SHMEMI_WUR;
/* The calling thread's transfers of GPU memory to PEs that do not map it
 * are staged (on 1) even where the provider moves GPU memory, when it does
 * so with CUDA copies of its own (SHMEMT_CAP_HMEM_COPY): for the device
 * API's proxy, whose transfers kernels wait for, and the CUDA streams'
 * workers, whose items the streams wait for. */
void shmemi_dev_thread_stages(int on);
/* 1 when shmemi_dev_thread_stages(1) would stage this job's transfers that
 * the provider would otherwise move (FI_HMEM by CUDA copies). */
int shmemi_dev_hmem_copies(void);

/* For the messages of the routines that refuse GPU memory: a sentence
 * saying that addr is in the device heap, which rtn does not take yet, or
 * "" when it is not. */
const char *shmemi_dev_note(const void *addr, const char *rtn);

/* ---- atomics (dev_amo.c) ---- */
/* The AMO op (SHMEMT_AOP_*) on the size-byte (4 or 8) word at offset off
 * of PE pe's device heap (checked by the caller: aligned, pe in range):
 * the GPU's system-scope atomic, by this PE's GPU where the word is
 * mapped (this PE's own, a mapped peer's), else by pe's GPU on the
 * request of its staging thread (either way of dheap_remote: the
 * provider's atomics would not be atomic against the kernels').
 * operand, compare (CSWAP) and fetch (NULL for no result) point to size
 * bytes.  Complete at return.  0 or the class, recorded naming rtn. */
int shmemi_dev_amo(uint64_t off, int op, const void *operand, const void *compare, void *fetch,
                   size_t size, int pe, const char *rtn) SHMEMI_WUR;

/* ---- staging (dev_stage.c) ---- */
/* Sets up this PE's staging area: the bounce buffer of its own transfers
 * and, with slots (dheap_remote not NONE: some PE is not mapped), one slot
 * per PE that its peers write their requests into, registered with the
 * transport as segment SHMEMT_SEG_STAGE (its card exchanged: collective),
 * and the thread that serves them (the staged transfers, and the atomics
 * on this PE's GPU memory for PEs that do not map it).  0 or the class,
 * recorded. */
int shmemi_dev_stage_init(int slots, const char *rtn) SHMEMI_WUR;
/* Stops the thread and releases the area (after a barrier: nobody sends
 * requests any more). */
void shmemi_dev_stage_fini(void);
/* A staged transfer of nbytes between local (host or GPU memory) and
 * offset off of PE pe's device heap, through pe's staging thread. */
int shmemi_dev_staged(void *local, uint64_t off, size_t nbytes, int pe, int is_put,
                      const char *rtn) SHMEMI_WUR;
/* The atomic amo (SHMEMD_AMO_*) on the width-byte word at offset off of
 * PE pe's device heap, run by pe's staging thread with its GPU, the old
 * value into *old (when old is not NULL).  0 or the class, recorded. */
int shmemi_dev_staged_amo(uint64_t off, int amo, size_t width, uint64_t value, uint64_t cmp,
                          uint64_t *old, int pe, const char *rtn) SHMEMI_WUR;
/* The bounce buffer (pinned host memory) for local GPU memory that the
 * transport cannot take: take it with shmemi_dev_bounce_get (it holds a
 * lock: one transfer at a time), give it back with _put. */
char *shmemi_dev_bounce_get(size_t *len_p);
void shmemi_dev_bounce_put(void);

#endif
