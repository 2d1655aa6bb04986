/*
 * The state of this PE: what init set up (the job, the heap and the mapped
 * heaps of node peers, the transport) and the initialization checks.
 */
#ifndef SHMEMI_STATE_H
#define SHMEMI_STATE_H

#include "base/env.h"
#include "base/error.h"

/* ---- state ---- */
enum { SHMEMI_STATE_NONE = 0, SHMEMI_STATE_BOOTSTRAPPED = 1,
       SHMEMI_STATE_INITIALIZED = 2, SHMEMI_STATE_FINALIZED = 3 };

/* Every heap starts at an address aligned to this: the largest alignment
 * shmem_align can honour on every PE. */
#define SHMEMI_HEAP_ALIGN ((size_t)1 << 30)

/* Polls of a collective's wait before it takes the timed path of
 * shmemi_wait_backoff when the PEs of a host outnumber its cores.  4 PEs on 2 cores, 6 interleaved
 * runs each: with 4 rather than 16 the barrier takes 3.0 against 4.0 us,
 * 8-byte to 8 KiB broadcasts 3.7 to 4.8 against 5.0 to 5.9 us, small
 * fcollects and reductions about 1 us less, nothing slower beyond the
 * noise (a peer that is not running answers no sooner for a longer
 * spin). */
#define SHMEMI_WAIT_SPIN_OVERSUBSCRIBED 4
/* Yields of a wait after its polls, before it sleeps.  A yield does not
 * give the core away for long: the scheduler counts a yielding PE as
 * runnable, and over a long yield phase it takes its share of a core that
 * a thread of the PE it waits for (a stream's kernel or worker) needs.
 * Traffic puts a wait back to polling (shmemi_wait_backoff), so only a wait
 * with nothing coming in gets this far. */
#define SHMEMI_WAIT_YIELDS 200

/* The most buffers of GPU memory registered as symmetric at once
 * (shmemi_g.dext); host buffers have their own SHMEMX_BUFFER_SYMMETRIC_MAX. */
#define SHMEMI_DEXT_MAX 16


typedef struct shmemi_state {
    _Atomic int state;
    int thread_level;
    int my_pe, n_pes;
    shmemi_env_t env;
    shmemb_t *boot;
    shmemt_t *tp;

    /* Symmetric heap of this PE and the mapped heaps of node peers. */
    char *heap_base;
    size_t heap_size;
    char **peer_heap;    /* [n_pes]: local address of PE's heap, or NULL */
    /* 1 while this PE has a device heap (dheap_size below): the local
     * buffer of a direct transfer may then be GPU memory, which the CPU
     * cannot touch (shmemi_dev_maybe); beside the heap's fields, which the
     * direct path loads anyway. */
    int dheap_any;
    /* The executable's writable data (globals, statics): symmetric.  With
     * FABSHMEM_MAP_DATA it is moved into a shared-memory object at init
     * (src/mem/heap.c) and node peers map it like the heap: peer_data[pe] is
     * the local address of PE's data, or NULL (then the transport). */
    char *data_base;
    size_t data_size;
    char **peer_data;    /* [n_pes] */
    int data_all_mapped; /* every PE maps every PE's data (the atomicity rule) */
    /* Symmetric buffers the application registered
     * (shmemx_buffer_register_symmetric): ext[i] is transport segment
     * SHMEMT_NSEGS + i (len 0: free); n_ext counts the used ones.  When
     * node peers map the buffer (src/mem/mem_share.c), peer[pe] is the local
     * address of PE pe's copy (this PE's own included) or NULL, and
     * amo_cpu says that AMOs on mapped words are CPU atomics (the
     * atomicity rule below); peer is NULL otherwise, and n_ext_mapped
     * counts the buffers that have one. */
    int n_ext;
    int n_ext_mapped;
    struct { uintptr_t base; size_t len; char **peer; int amo_cpu; } ext[SHMEMT_EXT_MAX];

    /* The device heap (GPU memory of this PE's device, src/mem/dheap.c,
     * docs/gpu.md): dheap_size is 0 when the PE has none.  peer_dheap[pe]
     * is the local address at which PE pe's device heap is mapped (this
     * PE's own: dheap_base), NULL when it is not mapped (the transport
     * then, as dheap_remote says: SHMEMI_DEV_REMOTE_* of core/dev.h).  The
     * CPU cannot load or store through them: only the GPU's copies and
     * kernels can. */
    char *dheap_base;
    size_t dheap_size;
    char **peer_dheap;   /* [n_pes] */
    /* GPU memory the program registered as symmetric
     * (shmemx_buffer_register_symmetric of memory made with the CUDA VMM
     * API, src/mem/dheap_ext.c): each PE maps its buffer a second time
     * into the window of FABSHMEM_DEVICE_REGISTER_SPACE bytes reserved
     * right after its device heap, at the same offset on every PE, and
     * node peers map it there into their ranges of its heap; so dext[i]'s
     * [base, base + len) (the program's address) is device-heap offset
     * off on every PE, and every path on the device heap takes it (len 0:
     * free).  dheap_span is the heap and the window together. */
    int n_dext;
    struct { uintptr_t base; size_t len; uint64_t off; } dext[SHMEMI_DEXT_MAX];
    size_t dheap_span;
    int dheap_remote;
    /* Why GPU memory is staged rather than moved by the provider ("PE n:
     * reason"), for the messages and SHMEM_INFO. */
    char dheap_hmem_why[288];
    /* The words of the team synchronizations on CUDA streams (src/coll/
     * coll_dev_stream.c), the device heap's first block, the same offset
     * on every PE: [teams_max][SHMEMI_DSYNC_MEMBERS], word [slot][j]
     * written by member j of the team in slot (NULL without a device
     * heap). */
    uint64_t *dheap_sync;
    /* [teams_max]: the block counters of the fused reductions on CUDA
     * streams (src/coll/coll_dev_stream.c, the kernels shmemi_redf_* of
     * src/cuda/cuda_kern.cu), in the device heap right after dheap_sync:
     * the team in slot uses dheap_ctr[slot], which only this PE's kernels
     * touch and which is 0 between them (NULL without a device heap). */
    unsigned *dheap_ctr;
    /* [n_pes]: the GPU each PE uses, named by the lowest PE of its node
     * that uses the same GPU (the same UUID, exchanged at init by
     * src/init/init_dev.c), or by the PE itself when it has brought up no
     * GPU: what SHMEMX_TEAM_SAME_GPU and SHMEMX_TEAM_GPU_LEADERS are made
     * of (src/team/team_gpu.c). */
    int *gpu_of;

    int *node_of;        /* [n_pes]: node index (virtual nodes included) */
    int n_nodes;
    /* Where the node map came from: "pmix local peers" or "host names". */
    const char *nodemap_src;
    int oversubscribed; /* more PEs on this host than cores */
    int host_pes;       /* PEs of the job on this host */
    long wait_spin; /* polls before a wait yields when FABSHMEM_WAIT_SPIN is
                     * set; -1: a time that follows recent waits (core/sync.c) */
    /* The count of threads of this node's PEs asleep on the futex of a
     * heap word (core/sync.c), in the team area of the node's lowest
     * mapped PE; NULL before the heaps are mapped. */
    uint32_t *sleepers;
    /* The count of threads of this node's PEs asleep on their doorbell (the
     * line after the lowest mapped PE's doorbell): writes into a PE's
     * memory read it, and team waits asleep do not make them look. */
    uint32_t *bell_sleepers;
    /* Where in each PE's heap its doorbell lies (a 64-bit word of its team
     * area): a thread of the PE asleep in a wait on the program's words
     * arms it, and the node path's writes into the PE's memory ring it
     * (shmemi_ring, core/sync.h).  Valid while sleepers is not NULL. */
    size_t bell_off;
    /* Bytes at the start of the heap that belong to the library: the team
     * area (src/team), whose size shmemi_team_area_size gives; user
     * allocations start after them. */
    size_t reserved_size;
    /* Set (after the call) by every operation handed to the transport, and
     * cleared by quiet: quiet on a PE whose traffic all went the direct way
     * costs a fence, not a transport call. */
    _Atomic int tp_dirty;
    char hostname[64];
} shmemi_state_t;

extern shmemi_state_t shmemi_g SHMEMI_HIDDEN;

/* ---- init checks ---- */
/* Records that rtn was called before shmem_init or after shmem_finalize
 * and returns SHMEMX_ERROR_INVALID_STATE. */
int shmemi_not_initialized(const char *rtn) __attribute__((cold));
/* 0 when the library is initialized, else the error recorded. */
static inline int shmemi_check_init(const char *rtn)
{
    if (SHMEMI_LIKELY(atomic_load_explicit(&shmemi_g.state, memory_order_relaxed) ==
                      SHMEMI_STATE_INITIALIZED))
        return 0;
    return shmemi_not_initialized(rtn);
}

#endif
