/*
 * The state that kernels calling the device API read (docs/device.md):
 * one struct, filled by the host library at shmem_init and copied into
 * the constant memory of every module that uses the device API
 * (shmemd_state_c).  Plain C, so that the host library (C) and device code
 * (CUDA C++, NVRTC) read the same layout; no system header, so that NVRTC
 * compiles it without the C library's headers.
 */
#ifndef FABSHMEM_DEVICE_STATE_H
#define FABSHMEM_DEVICE_STATE_H

#include <fabshmem/device/proxy.h>

/* Raised when the layout changes: the host refuses to load a state into
 * a module built against another version. */
#define SHMEMD_STATE_VERSION 7
/* Rounds of the dissemination barrier: enough for 2^32 PEs. */
#define SHMEMD_BAR_ROUNDS 32
/* PEs whose mapping is kept in the state itself (peer_c). */
#define SHMEMD_PEERS_C 128
/* Bytes of the per-PE scratch of in-place reductions. */
#define SHMEMD_SCRATCH_BYTES (256u * 1024u)
/* Small reductions push each member's elements into every other member's
 * push area of the team (docs/device.md): team slots below
 * SHMEMD_PUSH_TEAMS have an area of two halves (the parity of the team's
 * sequence of small reductions, coll_seq) of SHMEMD_PUSH_BYTES, whose
 * first half holds the flagged words of the smallest (a slot of 16 bytes
 * per 8 data bytes per member), the second the plain slots (the bytes
 * rounded up to 16 per member) of those that synchronize once: flagged
 * words are never read where plain data was.  256 KiB: the plain slots of
 * 2 PEs reach 64 KiB a member (on an H200 a 64 KiB float sum of 2 PEs took
 * 9.0 us through the general path, 5.95 the pushes and the barrier
 * alone), the flagged words SHMEMD_LL_BYTES for up to 4 members. */
#define SHMEMD_PUSH_TEAMS 16
#define SHMEMD_PUSH_BYTES (256u * 1024u)
/* Bytes of each member's elements up to which a reduction uses the
 * flagged words: on an H200, 2 PEs, a one-block kernel of each way in a
 * loop of launches (the plain kernel adding two buffers 3.8 us a launch,
 * as an empty one): 16 KiB 4.3 us with 16-byte flagged words, 4.5 with
 * the pushes and one barrier; 32 KiB 5.2 against 5.1; 64 KiB 7.7 against
 * 6.0. */
#define SHMEMD_LL_BYTES 16384u
/* Rounds of the world team's barrier whose partner's word the state
 * holds (bar_world): teams of up to 2^SHMEMD_BAR_WORLD PEs. */
#define SHMEMD_BAR_WORLD 8

/* A team as kernels see it (slot s of shmemd_state_t.teams; the team's
 * slot in the host library, which is the same on every member). */
typedef struct shmemd_team {
    int n_pes;  /* 0: nothing published in this slot */
    int my_pe;  /* -1: this PE is not a member */
    int *pes;   /* [n_pes] in GPU memory: team index -> world PE */
} shmemd_team_t_;

/* The first error a kernel met (a peer the GPU does not map, an address
 * outside the device heap), in pinned host memory: count is the number of
 * errors, routine/pe/addr those of the first.  The host reports it at its
 * next check (shmemx_device_check, barrier_all, quiet, stream sync,
 * finalize) and clears it.  Kernels only store into it: which error is the
 * first is decided by an atomic add on a word of GPU memory
 * (shmemd_state_t.err_claim), because a GPU's atomics on host memory are
 * not allowed where the host has no native atomics with the GPU (PCIe). */
typedef struct shmemd_err {
    unsigned int count;
    int routine;             /* SHMEMD_RTN_* */
    int pe;                  /* world PE, or -1 */
    int what;                /* SHMEMD_ERR_* */
    unsigned long long addr; /* the address concerned, or 0 */
} shmemd_err_t;

enum { SHMEMD_ERR_UNMAPPED = 1, SHMEMD_ERR_NOT_SYMMETRIC = 2, SHMEMD_ERR_BAD_PE = 3,
       SHMEMD_ERR_BAD_TEAM = 4, SHMEMD_ERR_TOO_LARGE = 5,
       SHMEMD_ERR_PROXY = 6,      /* the proxy stopped (finalize, an error, a dead peer) while
                                     a request of the kernel was posted or awaited */
       SHMEMD_ERR_NOT_GLOBAL = 7  /* a proxy put's source or get's destination is not in
                                     global memory (shared or local memory) */ };

/* The routine families a kernel's error names (X(id, name)). */
#define SHMEMD_ROUTINES(X) \
    X(SHMEMD_RTN_PTR, "shmemd_ptr") X(SHMEMD_RTN_P, "shmemd_TYPE_p") \
    X(SHMEMD_RTN_G, "shmemd_TYPE_g") X(SHMEMD_RTN_PUT, "shmemd_put (TYPE, mem, nbi, warp, block)") \
    X(SHMEMD_RTN_GET, "shmemd_get (TYPE, mem, nbi, warp, block)") \
    X(SHMEMD_RTN_IPUT, "shmemd_TYPE_iput") X(SHMEMD_RTN_IGET, "shmemd_TYPE_iget") \
    X(SHMEMD_RTN_AMO, "shmemd_TYPE_atomic_*") \
    X(SHMEMD_RTN_PUT_SIGNAL, "shmemd_put_signal (TYPE, mem, nbi, warp, block)") \
    X(SHMEMD_RTN_SIGNAL_OP, "shmemd_signal_op") X(SHMEMD_RTN_BARRIER, "shmemd_barrier / sync") \
    X(SHMEMD_RTN_TEAM, "shmemd_team_*") X(SHMEMD_RTN_COLL, "a shmemd_ collective") \
    X(SHMEMD_RTN_QUIET, "shmemd_quiet")
#define SHMEMD_RTN_ENUM_(id, name) id,
enum { SHMEMD_RTN_NONE_ = 0, SHMEMD_ROUTINES(SHMEMD_RTN_ENUM_) SHMEMD_RTN_COUNT_ };
#undef SHMEMD_RTN_ENUM_

/* The fields that the collectives' and barriers' first checks read come
 * first, in one 64-byte line of constant memory, then the world team's
 * barrier words and the first PEs' mappings: each other line a kernel
 * reads before its first store is one more miss of the constant cache,
 * and a branch on it waits (a 16 KiB one-block sum's kernel read four
 * lines before its pushes; on one H200 the gain of one line was within
 * the 0.1-0.2 us that the kernel moves between calls; docs/device.md). */
typedef struct __attribute__((aligned(64))) shmemd_state {
    int version;       /* SHMEMD_STATE_VERSION; 0: not initialized */
    int my_pe;
    int n_pes;
    int teams_max;
    /* 1 when this GPU maps every PE's heap and every PE runs on this GPU
     * (so no proxy runs): a synchronization's release and acquire are at
     * GPU scope (every store it orders goes to this GPU's memory, every
     * thread that sees them runs on it), which on an H200 took a barrier
     * of 2 PEs from 0.94 to 0.60 us (a system fence costs about 0.5 us). */
    int sync_gpu;
    /* 1 when this GPU maps every PE's heap and no proxy runs: a collective
     * on the world team checks its buffer's bounds once instead of each
     * member's mapping (on one H200 that loop took 0.7 us of a 16 KiB
     * one-block sum). */
    int world_mapped;
    char *heap_base;   /* this PE's device heap */
    unsigned long long heap_size; /* with the window of registered GPU memory */
    unsigned long long *coll_seq;     /* this PE's: [teams_max], its small reductions so far */
    char *push;                       /* symmetric: [SHMEMD_PUSH_TEAMS][2][SHMEMD_PUSH_BYTES] */
    unsigned long long *bar_epoch;    /* this PE's: [teams_max], the team's barriers so far */
    /* The world team's round k partner's word k (member my_pe + 2^k mod
     * n_pes), where this GPU maps it; 0 where it does not (or n_pes is
     * over 2^SHMEMD_BAR_WORLD): found without the lookup, which took 0.15
     * us a barrier. */
    unsigned long long *bar_world[SHMEMD_BAR_WORLD];
    /* peer_base of PEs 0 .. SHMEMD_PEERS_C - 1 in the state (constant
     * memory): read without a load of global memory, which after an
     * acquire (the end of every wait) goes to L2 and took 0.15 to 0.3 us
     * a p or a barrier's round on an H200. */
    char *peer_c[SHMEMD_PEERS_C];
    char **peer_base;  /* [n_pes], GPU memory: where PE pe's heap is mapped here, or 0 */
    shmemd_team_t_ *teams;            /* [teams_max], GPU memory */
    unsigned long long *bar;          /* symmetric: [teams_max][SHMEMD_BAR_ROUNDS] */
    char *scratch;                    /* this PE's: SHMEMD_SCRATCH_BYTES */
    shmemd_err_t *err;                /* pinned host memory */
    unsigned int *err_claim;          /* GPU memory: errors since the host's last check */
    shmemd_proxy_t proxy;             /* the proxy to unmapped peers (slots 0: none) */
} shmemd_state_t;

#endif
