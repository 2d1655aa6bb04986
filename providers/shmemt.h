/*
 * Transport interface: how data moves to PEs that are not mapped.
 *
 * The core hands the transport the memory segments that make up the
 * symmetric address space (segment 0 is the symmetric heap, segment 1 the
 * executable's writable data: globals and statics).  The transport registers
 * them, exchanges keys and addresses through the bootstrap, and from then on
 * addresses a remote location as (pe, segment, offset into the segment).
 *
 * Every operation returns 0 or a negative errno.  A provider fills every
 * slot; what it cannot do returns -ENOSYS and its caps bit stays clear.
 * Providers never see traffic to mapped (direct path) peers.
 */
#ifndef SHMEMT_H
#define SHMEMT_H

#include <stddef.h>
#include <stdint.h>
#include "shmemb.h"

#define SHMEMT_SEG_HEAP 0
#define SHMEMT_SEG_DATA 1
#define SHMEMT_NSEGS    2

typedef struct shmemt_seg {
    void *base;
    size_t len;
} shmemt_seg_t;

/* Capability bits. */
#define SHMEMT_CAP_RMA      (1u << 0)
#define SHMEMT_CAP_ATOMIC   (1u << 1)   /* fi_atomic for 32/64-bit ints */
#define SHMEMT_CAP_FENCE    (1u << 2)   /* FI_FENCE ordering */
#define SHMEMT_CAP_TRIGGER  (1u << 3)   /* FI_TRIGGER */
#define SHMEMT_CAP_THREADS  (1u << 4)   /* several threads may call at once */

typedef struct shmemt_init_args {
    shmemb_t *boot;
    int my_pe, n_pes;
    shmemt_seg_t segs[SHMEMT_NSEGS];
    const char *provider;      /* NULL or "" = choose the best available */
    int progress_thread;       /* 1: start a helper thread that sleeps when idle */
    int progress_interval_us;  /* how often that thread wakes at the most */
} shmemt_init_args_t;

typedef struct shmemt shmemt_t;

typedef struct shmemt_ops {
    /* put: src may be reused as soon as the call returns; the data is visible
     * at the target after quiet (remote completion). */
    int (*put)(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len);
    /* put_nbi: src must not be changed until quiet. */
    int (*put_nbi)(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len);
    /* get: dst holds the data when the call returns. */
    int (*get)(shmemt_t *t, int pe, int seg, uint64_t off, void *dst, size_t len);
    /* get_nbi: dst holds the data after quiet. */
    int (*get_nbi)(shmemt_t *t, int pe, int seg, uint64_t off, void *dst, size_t len);
    /* quiet: every put, get and atomic issued before it is complete at its
     * target (remote completion, not local). */
    int (*quiet)(shmemt_t *t);
    /* pe_quiet: as quiet but only for the listed PEs (may do a full quiet). */
    int (*pe_quiet)(shmemt_t *t, const int *pes, int npes);
    /* fence: operations to one PE issued before the fence are delivered
     * before those issued after it. */
    int (*fence)(shmemt_t *t);
    /* progress: drives the provider once, without blocking. */
    int (*progress)(shmemt_t *t);
    /* Atomic on a 4- or 8-byte integer (the atomics issue fills these in).
     * op is one of SHMEMT_AOP_*; fetch may be NULL for non-fetching ops. */
    int (*atomic)(shmemt_t *t, int pe, int seg, uint64_t off, int op,
                  const void *operand, const void *compare, void *fetch, size_t size);
    /* Releases everything; called once at finalize after a final quiet. */
    void (*fini)(shmemt_t *t);
} shmemt_ops_t;

enum {
    SHMEMT_AOP_SET, SHMEMT_AOP_FETCH, SHMEMT_AOP_SWAP, SHMEMT_AOP_CSWAP,
    SHMEMT_AOP_ADD, SHMEMT_AOP_AND, SHMEMT_AOP_OR, SHMEMT_AOP_XOR,
};

struct shmemt {
    const shmemt_ops_t *ops;
    const char *prov_name;   /* e.g. "tcp;ofi_rxm" */
    uint32_t caps;           /* SHMEMT_CAP_* */
    void *priv;
};

/* Opens the libfabric transport: picks the provider (args->provider or the
 * best available: verbs;ofi_rxm, tcp;ofi_rxm, sockets, shm), registers the
 * segments and exchanges keys (collective over the bootstrap). */
int shmemt_ofi_init(const shmemt_init_args_t *args, shmemt_t **t_p);

/* Lists the providers libfabric can see, one line each with capabilities,
 * into fp (for fabshmem_info).  Not collective, needs no init. */
struct _IO_FILE;
int shmemt_ofi_list(struct _IO_FILE *fp);
/* Provider preference, pure logic (unit tested): the rank of libfabric
 * provider prov_name ("tcp;ofi_rxm", "shm", ...) for the user's request
 * (NULL/"" = automatic: verbs;ofi_rxm 0, tcp;ofi_rxm 1, sockets 2, shm 3;
 * a named request such as "tcp" matches only that provider, rank 0).
 * Lower is better; -1 means not acceptable. */
int shmemt_ofi_rank_provider(const char *requested, const char *prov_name);
/* The libfabric version string, e.g. "1.17.0". */
const char *shmemt_ofi_version(void);

#endif
