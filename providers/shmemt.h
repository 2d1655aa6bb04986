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
 *
 * The transport is a layer below the core: it includes no header of the
 * core and reads no environment variable of ours.  Its configuration comes
 * in shmemt_init_args_t (the core parses and checks the variables of
 * src/base/env.def and fills it), and so do the two ways it reaches the
 * core's logging:
 *
 *   - log: every message (errors, and at SHMEMT_LOG_INFO what init chose)
 *     goes through it, with its level; the transport formats nothing above
 *     log_level.
 *   - A failure met by a thread of the transport itself (the progress
 *     thread, or a handler of incoming messages run inside whichever
 *     thread reads the completion queue) has no caller to return to.  The
 *     transport logs it and keeps the first such error: the next quiet of
 *     the default transport returns it.  A failure after which the job
 *     cannot go on correctly (a reply that a peer waits for could not be
 *     queued: the peer would wait forever) is handed to fatal, which
 *     decides (the core ends the job); when fatal returns, the error is
 *     kept as above.
 */
#ifndef SHMEMT_H
#define SHMEMT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "pmix/shmemb.h"

#define SHMEMT_SEG_HEAP 0
#define SHMEMT_SEG_DATA 1
#define SHMEMT_NSEGS    2
/* Segments added at run time (shmemx_buffer_register_symmetric) take the
 * numbers SHMEMT_NSEGS .. SHMEMT_NSEGS + SHMEMT_EXT_MAX - 1. */
#define SHMEMT_EXT_MAX  16
/* Run-time segments of the device heap (docs/gpu.md): the GPU memory
 * itself (seg_reg_dev, where the provider moves GPU memory) and the host
 * memory that stages it where the provider cannot (seg_reg). */
#define SHMEMT_SEG_DEV   (SHMEMT_NSEGS + SHMEMT_EXT_MAX)
#define SHMEMT_SEG_STAGE (SHMEMT_SEG_DEV + 1)
/* Words of this PE that only its own triggered operations write (the
 * completion words of CUDA streams, src/stream/stream_cuda_trig.c): only
 * this PE's card is recorded (seg_peer for itself), no exchange. */
#define SHMEMT_SEG_SELF  (SHMEMT_SEG_STAGE + 1)
#define SHMEMT_MAX_SEGS  (SHMEMT_SEG_SELF + 1)

typedef struct shmemt_seg {
    void *base;
    size_t len;
} shmemt_seg_t;

/* Capability bits. */
#define SHMEMT_CAP_RMA      (1u << 0)
#define SHMEMT_CAP_ATOMIC   (1u << 1)   /* fi_atomic for 32/64-bit ints */
#define SHMEMT_CAP_FENCE    (1u << 2)   /* FI_FENCE ordering */
#define SHMEMT_CAP_TRIGGER  (1u << 3)   /* FI_TRIGGER */
#define SHMEMT_CAP_THREADS  (1u << 4)   /* several threads may call at once (without
                                         * it the core serializes: see serial) */
/* Atomics are applied by the target's CPU with atomic instructions on the
 * target's memory (active messages), so they are atomic with the CPU
 * atomics that node peers do on the mapped word. */
#define SHMEMT_CAP_AMO_CPU  (1u << 5)
/* The domain was opened with FI_HMEM (init args hmem): seg_reg_dev may
 * register CUDA device memory, and a local buffer inside such a segment
 * is moved with its descriptor.  The registration itself can still fail
 * (a libfabric built without CUDA). */
#define SHMEMT_CAP_HMEM     (1u << 6)
/* With SHMEMT_CAP_HMEM: the provider moves GPU memory with CUDA copies of
 * its own (a provider over host memory or sockets, not a NIC that reads
 * GPU memory): synchronous cudaMemcpy calls, which wait while another
 * thread of the process waits for the device (cudaDeviceSynchronize).  A
 * thread whose transfers a kernel waits for (the device API's proxy) must
 * not hand it GPU memory. */
#define SHMEMT_CAP_HMEM_COPY (1u << 7)

/* Levels of the log function (the core's own numbers). */
enum { SHMEMT_LOG_ERR = 0, SHMEMT_LOG_WARN = 1, SHMEMT_LOG_INFO = 2, SHMEMT_LOG_DEBUG = 3 };
/* Prints one message (printf format, no newline) at level. */
typedef void (*shmemt_log_fn)(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Told of a failure after which the job cannot go on (see the top). */
typedef void (*shmemt_fatal_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* How quiet learns that writes reached their target (FABSHMEM_OFI_RC_MODE):
 * the provider's own choice (ofi_quirks.c), FI_DELIVERY_COMPLETE on every
 * write and atomic, a read after the writes, or local completion alone. */
enum { SHMEMT_RC_DEFAULT = 0, SHMEMT_RC_DELIVERY, SHMEMT_RC_FLUSH, SHMEMT_RC_NATIVE };
/* How atomics reach PEs that are not mapped (FABSHMEM_OFI_AMO): active
 * messages except on sockets, always active messages (applied by the
 * target's CPU), or the provider's fi_atomic. */
enum { SHMEMT_AMO_AUTO = 0, SHMEMT_AMO_AM, SHMEMT_AMO_NATIVE };

/* A value of a configuration choice and its name as the environment
 * spells it; a table of them ends with a NULL name. */
typedef struct shmemt_choice {
    const char *name;
    int value;
} shmemt_choice_t;
/* The names of SHMEMT_RC_* and SHMEMT_AMO_* ("" is SHMEMT_RC_DEFAULT; "1"
 * and "0" are older spellings of am and native), for the core's parser. */
extern const shmemt_choice_t shmemt_ofi_rc_modes[];
extern const shmemt_choice_t shmemt_ofi_amo_modes[];

/* The libfabric transport's switches. */
typedef struct shmemt_ofi_cfg {
    int rc_mode;      /* SHMEMT_RC_* */
    int amo;          /* SHMEMT_AMO_* */
    int mr_local;     /* 1: act as for a provider that wants registered local
                       * buffers (FI_MR_LOCAL), so that those paths run anywhere */
    int shm_atomics;  /* 1: use the shm provider's atomics (known wrong) */
    int shm_hmem;     /* 1: let the shm provider move GPU memory (FI_HMEM;
                       * wrong with libfabric 2.1) */
    size_t put_buffered; /* blocking puts above the inject size and up to this
                          * many bytes are copied and complete at quiet (0: none) */
    int timeout_s;    /* a wait that sees no progress this long fails (0: 60 s) */
} shmemt_ofi_cfg_t;

typedef struct shmemt_init_args {
    shmemb_t *boot;
    int my_pe, n_pes;
    shmemt_seg_t segs[SHMEMT_NSEGS];
    const char *provider;      /* NULL or "" = choose the best available */
    int progress_thread;       /* 1: start a helper thread that sleeps when idle */
    int progress_interval_us;  /* how often that thread wakes at the most */
    int trigger;               /* 1: open the domain with triggered operations
                                * (FI_TRIGGER) when the provider has them */
    int oversubscribed;        /* 1: more PEs on this host than cores */
    shmemt_log_fn log;         /* never NULL */
    int log_level;             /* SHMEMT_LOG_*: the most detailed level printed */
    shmemt_fatal_fn fatal;     /* never NULL */
    shmemt_ofi_cfg_t ofi;
    int hmem;                  /* 1: open the domain with FI_HMEM (GPU memory)
                                * when the provider has it */
    void (*thread_start)(void); /* NULL, or called first by each thread that
                                * the transport starts: the core makes the
                                * PE's GPU current there, since the provider
                                * copies GPU memory (FI_HMEM) on the thread
                                * that drives it */
    /* Where the endpoint listens (docs/design/trust.md), for
     * providers whose domains are network interfaces: */
    const char *iface;         /* NULL or "": no interface asked for
                                * (FABSHMEM_IFACE), else its name */
    int single_host;           /* 1: every PE of the job runs on this host:
                                * loopback, unless iface names another */
} shmemt_init_args_t;

/* Triggered operations in flight on one queue at the most (see trig_create). */
#define SHMEMT_TRIG_DEPTH 1024

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
    /* progress: drives the provider once, without blocking; > 0 when it
     * took in traffic (completions, messages), 0 when none, < 0 on error. */
    int (*progress)(shmemt_t *t);
    /* idle: the calling thread, which drives progress while it waits, has
     * nothing to do for up to us microseconds.  The transport blocks it in
     * the kernel until traffic for this PE arrives or the time is up (a
     * helper thread does not count on it meanwhile).  Returns 1 when
     * traffic may have arrived, so that the caller polls again at once and
     * stays awake while messages keep coming, 0 when the time ran out.
     * May be NULL: the caller then sleeps by itself. */
    int (*idle)(shmemt_t *t, unsigned long us);
    /* Atomic on a 4- or 8-byte integer (the atomics issue fills these in).
     * op is one of SHMEMT_AOP_*; fetch may be NULL for non-fetching ops. */
    int (*atomic)(shmemt_t *t, int pe, int seg, uint64_t off, int op,
                  const void *operand, const void *compare, void *fetch, size_t size);
    /* put_signal: len bytes from src to (pe, seg, off), then the 8-byte
     * signal word at (pe, sig_seg, sig_off) updated with sig_op
     * (SHMEMT_AOP_SET or SHMEMT_AOP_ADD) by signal: whoever sees the signal
     * sees the data.  src may be reused at return; both are complete at
     * quiet.  -ENOTSUP when the transport cannot do better than a put, a
     * fence and an atomic (the caller then does those). */
    int (*put_signal)(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len,
                      int sig_seg, uint64_t sig_off, uint64_t signal, int sig_op);
    /* signal: sets the 8-byte word (pe, seg, off) to value, for a target
     * that waits for it (collectives' signals: every one of them is
     * awaited by its receiver).  Quiet need not cover it; signals from one
     * sender to one word are applied in the order they were sent. */
    int (*signal)(shmemt_t *t, int pe, int seg, uint64_t off, uint64_t value);
    /* Releases everything; called once at finalize after a final quiet.
     * Closes the children that were not destroyed. */
    void (*fini)(shmemt_t *t);
    /* A child transport for an OpenSHMEM context (options: SHMEM_CTX_*):
     * the same ops and caps, sharing the parent's domain, address vector,
     * memory registrations and remote keys, with an endpoint and completion
     * counters of its own, so that quiet on the child waits only for the
     * child's operations and the reverse.  progress on the parent also
     * drives its children.  -ENOSYS when the provider cannot make another
     * endpoint (the caller then shares the parent).  Thread safe. */
    int (*ctx_create)(shmemt_t *t, long options, shmemt_t **child_p);
    /* Closes a child made by ctx_create (the caller quieted it first). */
    void (*ctx_destroy)(shmemt_t *child);
    /* Run-time segments (seg in SHMEMT_NSEGS .. SHMEMT_MAX_SEGS - 1):
     * seg_reg registers [base, base+len) for remote access as segment seg
     * and returns in *card the 24 bytes (key, address, length) that the
     * peers pass to seg_peer; seg_peer records PE pe's card (card NULL:
     * pe has no such segment); seg_dereg closes the registration and
     * forgets every peer's card (callers quiet and synchronize first).
     * Children (contexts) see the segments of their parent. */
    int (*seg_reg)(shmemt_t *t, int seg, void *base, size_t len, uint64_t card[3]);
    int (*seg_peer)(shmemt_t *t, int seg, int pe, const uint64_t card[3]);
    void (*seg_dereg)(shmemt_t *t, int seg);
    /* seg_reg for GPU memory: [base, base+len) is memory of CUDA device
     * cuda_device (libfabric FI_HMEM_CUDA), closed by seg_dereg.
     * -ENOTSUP when the provider cannot move GPU memory (no
     * SHMEMT_CAP_HMEM, or the registration was refused). */
    int (*seg_reg_dev)(shmemt_t *t, int seg, void *base, size_t len, int cuda_device,
                       uint64_t card[3]);
    /* Local buffers (shmemx_buffer_register): registered for local access
     * so that providers that need registered local buffers (FI_MR_LOCAL)
     * move them without a bounce copy.  *handle_p is for buf_dereg. */
    int (*buf_reg)(shmemt_t *t, void *base, size_t len, void **handle_p);
    void (*buf_dereg)(shmemt_t *t, void *handle);
    /* Triggered queues (caps SHMEMT_CAP_TRIGGER; -ENOSYS otherwise), the
     * offload of streams.  trig_create makes a child (closed by
     * ctx_destroy) with one completion counter that counts every
     * operation posted on it when it completes at its target.  trig_put,
     * trig_get and trig_atomic post operation number seq (0, 1, 2, ... on
     * the queue) that the provider starts by itself, with no thread of
     * ours in the loop, when that counter reaches threshold: posting each
     * with the threshold of the count of everything before it makes a
     * chain executed in order.  Operation seq may be posted only once
     * every operation before seq - SHMEMT_TRIG_DEPTH + 1 is complete (its
     * context is reused).  src and dst stay in use until it completes;
     * operand (a non-fetching SHMEMT_AOP_* on 8 bytes) is copied.
     * -ENOTSUP: this operation cannot be triggered (say a local buffer that
     * the provider needs registered): the caller does it otherwise.
     * trig_status drives the queue and reads the counter and the number
     * of operations that failed (they do not count: a failure stops the
     * chain until the caller adds to the counter); trig_add adds n to the
     * counter, which starts what waits for it (work done by the host). */
    int (*trig_create)(shmemt_t *t, shmemt_t **q_p);
    int (*trig_put)(shmemt_t *q, uint64_t seq, uint64_t threshold, int pe, int seg,
                    uint64_t off, const void *src, size_t len);
    int (*trig_get)(shmemt_t *q, uint64_t seq, uint64_t threshold, int pe, int seg,
                    uint64_t off, void *dst, size_t len);
    int (*trig_atomic)(shmemt_t *q, uint64_t seq, uint64_t threshold, int pe, int seg,
                       uint64_t off, int op, uint64_t operand);
    int (*trig_status)(shmemt_t *q, uint64_t *done_p, uint64_t *failed_p);
    int (*trig_add)(shmemt_t *q, uint64_t n);
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
    /* A transport without SHMEMT_CAP_THREADS may offer a lock here (NULL
     * otherwise), the same for its children, made before any thread of
     * its own starts: those threads (progress) hold it whenever they
     * drive the provider, and never block on it (trylock: whoever holds
     * it is inside the provider).  The core holds it around every call
     * when several threads use the transport (src/core/tp_serial.c); a thread
     * that waits inside an operation then drives all of the provider
     * (every endpoint), since nobody else can meanwhile. */
    pthread_mutex_t *serial;
    /* Why the provider cannot move GPU memory (FI_HMEM), when it was asked
     * to and cannot: "" otherwise (the root transport's). */
    char hmem_why[256];
};

/* Opens the libfabric transport: picks the provider (args->provider or the
 * best available: verbs;ofi_rxm, tcp;ofi_rxm, sockets, shm), registers the
 * segments and exchanges keys (collective over the bootstrap).  A PE that
 * fails before the exchange still takes part in it, so that every PE
 * learns of the failure: then every PE fails and *shared_p is 1 (the job
 * may go on and try again).  *shared_p 0: the failure is this PE's alone,
 * and the others may be waiting for it. */
int shmemt_ofi_init(const shmemt_init_args_t *args, shmemt_t **t_p, int *shared_p);

/* Lists the providers libfabric can see, one line each with capabilities,
 * into fp (for fabshmem_info).  Not collective, needs no init. */
int shmemt_ofi_list(FILE *fp);
/* Provider preference, pure logic (unit tested): the rank of libfabric
 * provider prov_name ("tcp;ofi_rxm", "shm", ...) for the user's request
 * (NULL/"" = automatic: verbs;ofi_rxm 0, tcp;ofi_rxm 1, sockets 2, shm 3;
 * a named request such as "tcp" matches only that provider, rank 0).
 * Lower is better; -1 means not acceptable. */
int shmemt_ofi_rank_provider(const char *requested, const char *prov_name);
/* The version of the libfabric loaded (not of the headers built with),
 * e.g. "1.17.1", and the file it was loaded from ("" if unknown). */
const char *shmemt_ofi_version(void);
const char *shmemt_ofi_library(void);
/* The provider that init would pick for requested (NULL/"": automatic),
 * its name into name, and whether it has triggered operations (the
 * offload of streams): 0, -ENOENT when none fits, or a negative errno.
 * Not collective, needs no init (fabshmem_info). */
int shmemt_ofi_choice(const char *requested, char *name, size_t len, int *trigger_p);
/* Whether provider prov_name (as shmemt_ofi_choice names it) offers
 * FI_HMEM, the transfers of GPU memory, that the transport would use with
 * the switches cfg: NULL when it does, else why not.  Not collective,
 * needs no init (fabshmem_info). */
const char *shmemt_ofi_hmem(const char *prov_name, const shmemt_ofi_cfg_t *cfg);

#endif
