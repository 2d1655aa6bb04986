/*
 * The proxy's request ring (docs/device.md, "The proxy"): how a kernel
 * (or, in the tests, a CPU thread in its place) asks the host's proxy
 * thread to carry an operation to a PE whose device heap this GPU does
 * not map (another node, a virtual node, a GPU without peer access).
 * Plain C, shared by the host library (src/proxy), the device API
 * (include/fabshmem/device/proxy.cuh) and the CPU producer of the tests;
 * no system header, so that NVRTC compiles it.
 *
 * The protocol, one ring of nslots requests (a power of two):
 *   - a producer takes a ticket t with an atomic add on *tail (GPU memory;
 *     host memory when a CPU thread produces);
 *   - it waits until t - *freed < nslots (the slot's last user is done
 *     with it), fills slots[t % nslots] but its ready word, fences (system
 *     scope) and stores ready = t + 1;
 *   - the proxy takes the tickets in order: it waits for
 *     slots[head % nslots].ready == head + 1, carries the request out
 *     completely (a put is complete at its target, a get has landed, an
 *     AMO is done and its old value in ret), then stores ret and
 *     done = head + 1 (release).  So every ticket below *done is complete,
 *     and the proxy's requests are complete in ticket order;
 *   - a fetching request (G, a fetching AMO) keeps its slot until its
 *     producer has read ret: the producer stores ready = 0 when it has
 *     (SHMEMD_PX_RELEASED); the proxy then lets *freed pass it.  Any other
 *     slot is free once done;
 *   - *status is not 0 when the proxy stopped (finalize, an error, a dead
 *     peer): producers and waiters give up and record the error.
 * Ordering: requests are carried out one at a time in ticket order, so a
 * kernel's requests reach every PE in the order of their tickets, and a
 * quiet is a wait for done >= the tail it read.
 */
#ifndef FABSHMEM_DEVICE_PROXY_H
#define FABSHMEM_DEVICE_PROXY_H

/* Operations of a request (op). */
enum {
    SHMEMD_PX_NONE = 0,
    SHMEMD_PX_PUT = 1, /* len bytes from src (an address of this PE: GPU global
                          memory or host memory) to dst (symmetric) on pe */
    SHMEMD_PX_GET = 2, /* len bytes from src (symmetric) on pe to dst (this
                          PE's GPU global memory or host memory) */
    SHMEMD_PX_P = 3,   /* len (1, 2, 4 or 8) bytes of value to dst on pe */
    SHMEMD_PX_G = 4,   /* len (1, 2, 4 or 8) bytes from src on pe into ret (fetching) */
    SHMEMD_PX_AMO = 5, /* amo (SHMEMD_AMO_*) on the len-byte (4 or 8) word dst on
                          pe with value (and cmp); fetching ones leave the old
                          value in ret */
    SHMEMD_PX_OPS_ = 6
};

/* Atomic operations of SHMEMD_PX_AMO (amo).  Signed and unsigned types,
 * and the floating types of fetch/set/swap, travel as their bits. */
enum {
    SHMEMD_AMO_SET = 1,       /* non-fetching */
    SHMEMD_AMO_ADD = 2,       /* inc is add 1; signal add */
    SHMEMD_AMO_AND = 3,
    SHMEMD_AMO_OR = 4,
    SHMEMD_AMO_XOR = 5,
    SHMEMD_AMO_FETCH = 6,     /* fetching from here on */
    SHMEMD_AMO_SWAP = 7,
    SHMEMD_AMO_CSWAP = 8,     /* cmp is the compared value */
    SHMEMD_AMO_FETCH_ADD = 9,
    SHMEMD_AMO_FETCH_AND = 10,
    SHMEMD_AMO_FETCH_OR = 11,
    SHMEMD_AMO_FETCH_XOR = 12,
    SHMEMD_AMO_OPS_ = 13
};
#define SHMEMD_AMO_FETCHING(a) ((a) >= SHMEMD_AMO_FETCH)
#define SHMEMD_PX_FETCHING(op, a) ((op) == SHMEMD_PX_G || ((op) == SHMEMD_PX_AMO && \
                                                           SHMEMD_AMO_FETCHING(a)))

/* The ready word of a fetching request whose producer has read ret. */
#define SHMEMD_PX_RELEASED 0ull

/* One request: 64 bytes, one line. */
typedef struct shmemd_proxy_req {
    unsigned long long ready; /* ticket + 1, stored last; SHMEMD_PX_RELEASED (see above) */
    unsigned short op;        /* SHMEMD_PX_* */
    unsigned char amo;        /* SHMEMD_AMO_* (SHMEMD_PX_AMO) */
    unsigned char routine;    /* SHMEMD_RTN_* of the caller, for error reports */
    int pe;                   /* the world PE */
    unsigned long long dst;
    unsigned long long src;
    unsigned long long len;
    unsigned long long value;
    unsigned long long cmp;
    unsigned long long ret;   /* written by the proxy (fetching requests) */
} shmemd_proxy_req_t;

/* Words of the control block (pinned host memory, each on its own line). */
#define SHMEMD_PX_DONE 0    /* tickets below it are complete (proxy writes) */
#define SHMEMD_PX_FREED 8   /* slots of tickets below it may be reused (proxy writes) */
#define SHMEMD_PX_STATUS 16 /* 0: running; else SHMEMD_PX_STOPPED_* (proxy writes) */
#define SHMEMD_PX_CTL_WORDS 24

enum { SHMEMD_PX_RUNNING = 0, SHMEMD_PX_STOPPED = 1, SHMEMD_PX_FAILED = 2 };

/* What kernels read of the proxy (a member of shmemd_state_t); slots 0:
 * no proxy (every peer is mapped, or the proxy is off). */
typedef struct shmemd_proxy {
    shmemd_proxy_req_t *slots;  /* [nslots], pinned host memory mapped for the GPU */
    unsigned long long *tail;   /* the next ticket: GPU memory (atomicAdd) */
    unsigned long long *ctl;    /* [SHMEMD_PX_CTL_WORDS], pinned host memory */
    unsigned int nslots;        /* a power of two */
    unsigned int flags;         /* SHMEMD_PXF_* */
} shmemd_proxy_t;

/* flags: how the proxy moves GPU memory (for information; kernels do not
 * need it). */
enum { SHMEMD_PXF_HMEM = 1 /* the provider moves GPU memory (FI_HMEM) */,
       SHMEMD_PXF_STAGED = 2 /* through host memory and the target's service thread */ };

#endif
