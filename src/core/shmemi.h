/*
 * fabshmem core: state shared by the core files and the inline direct path.
 */
#ifndef SHMEMI_H
#define SHMEMI_H

#include "config.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#include <errno.h>
#include <stdatomic.h>
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>
#include "pmix/shmemb.h"
#include "providers/shmemt.h"

#define SHMEMI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SHMEMI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SHMEMI_HIDDEN      __attribute__((visibility("hidden")))

/* Weak shmem_* alias of a pshmem_* implementation (profiling interface). */
#define SHMEMI_ALIAS(name) \
    extern __typeof__(p##name) name __attribute__((weak, alias("p" #name), visibility("default")));

/* ---- configuration (src/core/env.def) ---- */
#define SHMEMI_ENV_T_SIZE size_t
#define SHMEMI_ENV_T_BOOL int
#define SHMEMI_ENV_T_INT  long
#define SHMEMI_ENV_T_STR  const char *
typedef struct shmemi_env {
#define X(field, var, type, def, doc) SHMEMI_ENV_T_##type field;
#include "env.def"
#undef X
} shmemi_env_t;

/* Parses every variable of the table from envp (NULL: environ) into *env_p.
 * A bad value is reported (naming the variable and the value) and returns
 * -EINVAL; an unknown FABSHMEM_* name gets a "did you mean" warning. */
int shmemi_env_parse(char **envp, shmemi_env_t *env_p);
/* "256M", "3.1M", "1g", "4096" -> bytes.  0 or -EINVAL (garbage, overflow). */
int shmemi_env_parse_size(const char *s, size_t *out_p);
/* "1/0/yes/no/on/off/true/false" (any case) -> 1/0.  0 or -EINVAL. */
int shmemi_env_parse_bool(const char *s, int *out_p);
/* Prints the table with current values (SHMEM_INFO, fabshmem_info -c). */
void shmemi_env_print(FILE *fp, const shmemi_env_t *env, int markdown);

/* ---- logging and errors ---- */
enum { SHMEMI_LOG_ERR = 0, SHMEMI_LOG_WARN = 1, SHMEMI_LOG_INFO = 2, SHMEMI_LOG_DEBUG = 3 };
extern int shmemi_log_level;
void shmemi_log_emit(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define shmemi_log(level, ...) \
    do { if ((level) <= shmemi_log_level) shmemi_log_emit((level), __VA_ARGS__); } while (0)
#define shmemi_debug(...) shmemi_log(SHMEMI_LOG_DEBUG, __VA_ARGS__)
#define shmemi_warn(...)  shmemi_log(SHMEMI_LOG_WARN, __VA_ARGS__)
/* The SHMEMX_ERROR_* class of an errno value (either sign; 0 gives
 * SHMEMX_SUCCESS); dflt for the values no class claims. */
int shmemi_status_from_errno(int err, int dflt);
/* A user error: prints "rtn: message" with the PE and ends the job with a
 * non-zero status (global abort through the bootstrap).  Never returns. */
void shmemi_user_error(const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn, cold));
/* An internal failure (a provider call failed): same exit. */
void shmemi_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn, cold));
/* What the calling thread is doing on the application's behalf (a stream's
 * worker: the *_on_stream routine of the item it executes), appended to
 * every message the thread logs; NULL clears it. */
void shmemi_log_context(const char *what);

/* ---- state ---- */
enum { SHMEMI_STATE_NONE = 0, SHMEMI_STATE_BOOTSTRAPPED = 1,
       SHMEMI_STATE_INITIALIZED = 2, SHMEMI_STATE_FINALIZED = 3 };

/* The first SHMEMI_RESERVED bytes of every heap belong to the library
 * (barrier and sync words); user allocations start after them. */
#define SHMEMI_RESERVED (64 * 1024)
/* Every heap starts at an address aligned to this: the largest alignment
 * shmem_align can honour on every PE. */
#define SHMEMI_HEAP_ALIGN ((size_t)1 << 30)

/* Polls before a wait yields when the PEs of a host outnumber its cores
 * (and FABSHMEM_WAIT_SPIN is not set).  4 PEs on 2 cores, 6 interleaved
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

/* struct shmemi_team is in coll.h. */

/* A context.  tp is its own transport, a child of the default one with an
 * endpoint of its own, made when the context first hands an operation to
 * the provider (src/core/ctx.c); NULL before that and for contexts that share
 * the default transport (shared: the default context, contexts beyond
 * FABSHMEM_CTX_ENDPOINTS, providers that cannot make another endpoint).
 * dirty points to the flag that operations handed to the transport on
 * this context set and quiet clears: &shmemi_g.tp_dirty for the default
 * context, &own_dirty for the others.  A team context
 * (shmem_team_create_ctx) numbers PEs in its team: pes[team index] is the
 * world PE (NULL: world numbering). */
struct shmemi_ctx {
    long options;
    shmem_team_t team;
    shmemt_t *tp;       /* read and set with __atomic builtins */
    int shared;
    _Atomic int *dirty;
    int *pes;
    int n_pes;
    _Atomic int own_dirty;
    _Atomic int quieting; /* quiets in progress (src/core/sync.c) */
    struct shmemi_ctx *prev, *next; /* the live contexts (src/core/ctx.c) */
};

/* Quiets and releases every context that is still alive: those of team
 * (shmem_team_destroy), or all of them (team NULL, shmem_finalize). */
void shmemi_ctxs_release(shmem_team_t team);
/* Releases the buffers registered by shmemx_buffer_register* (finalize). */
void shmemi_mem_reg_fini(void);
/* Synchronizes and destroys the streams still alive (shmem_finalize). */
void shmemi_streams_fini(void);
/* FABSHMEM_STREAM_OFFLOAD: 0 (off), 1 (on), 2 (auto); ends the job naming
 * rtn and the variable for an unknown value. */
int shmemi_stream_offload_mode(const char *rtn);
/* Which way streams run in this job, for SHMEM_INFO: found by making (and
 * closing) a triggered queue as shmemx_stream_create would. */
const char *shmemi_stream_path(void);
/* Quiets every live context (shmem_finalize, before its barrier). */
void shmemi_ctxs_quiet(void);
/* Hands wrap the transports of the contexts that have an endpoint of their
 * own (live or kept for reuse), n of them in tps, under the contexts'
 * lock; wrap replaces all of them in tps and returns 0, or changes none
 * and returns a negative errno.  The contexts then use the replacements. */
int shmemi_ctxs_wrap(int (*wrap)(shmemt_t **tps, int n, void *arg), void *arg);
/* src/core/tp_serial.c: when the default transport lacks SHMEMT_CAP_THREADS,
 * wraps it and every child made from it, before or after, so that one
 * process-wide lock serializes all calls into the provider (the wrapper
 * has the capability).  For shmem_init_thread(SHMEM_THREAD_MULTIPLE) and
 * the first stream; called while no other thread uses the transport.
 * 0 or a negative errno (nothing changed). */
int shmemi_tp_serialize(void);

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

    int *node_of;        /* [n_pes]: node index (virtual nodes included) */
    int n_nodes;
    /* Where the node map came from: "pmix local peers" or "host names". */
    const char *nodemap_src;
    int oversubscribed; /* more PEs on this host than cores */
    long wait_spin; /* polls before a wait yields (env.wait_spin, or
                     * SHMEMI_WAIT_SPIN_OVERSUBSCRIBED) */
    /* Bytes at the start of the heap that belong to the library: the
     * SHMEMI_RESERVED words, then the team area (coll.h). */
    size_t reserved_size;
    /* Set (after the call) by every operation handed to the transport, and
     * cleared by quiet: quiet on a PE whose traffic all went the direct way
     * costs a fence, not a transport call. */
    _Atomic int tp_dirty;
    char hostname[64];
} shmemi_state_t;

extern shmemi_state_t shmemi_g SHMEMI_HIDDEN;

/* ---- init (src/init/init.c, src/init/init_attr.c) ---- */
/* Makes the bootstrap *b_p (0 or a negative errno, with a message). */
typedef int (*shmemi_boot_fn)(void *arg, shmemb_t **b_p);
/* Initializes at thread level requested (checked by the caller), booting
 * with boot(arg) when no bootstrap is up (NULL: by FABSHMEM_BOOTSTRAP);
 * rtn names the routine in messages.  SHMEMX_SUCCESS or SHMEMX_ERROR_*. */
int shmemi_init(const char *rtn, int requested, int *provided, shmemi_boot_fn boot, void *arg);
/* 1 in a child made by fork() of a process that had joined a job. */
int shmemi_forked(void);
/* FABSHMEM_BOOTSTRAP=uid: joins the job that FABSHMEM_BOOTSTRAP_RANK,
 * _NRANKS and _UID_FILE describe (arg unused). */
int shmemi_boot_uid_env(void *arg, shmemb_t **b_p);

/* ---- init checks ---- */
void shmemi_not_initialized(const char *rtn) __attribute__((noreturn, cold));
#define SHMEMI_CHECK_INIT(rtn) \
    do { if (SHMEMI_UNLIKELY(atomic_load_explicit(&shmemi_g.state, memory_order_relaxed) \
                             != SHMEMI_STATE_INITIALIZED)) shmemi_not_initialized(rtn); } while (0)

/* ---- address translation ---- */
/* Where a symmetric address lives: segment and offset.  Returns 0, or
 * -EFAULT when [addr, addr+len) is not inside one symmetric segment. */
static inline int shmemi_addr_seg(const void *addr, size_t len, int *seg_p, uint64_t *off_p)
{
    uintptr_t a = (uintptr_t)addr;
    uintptr_t h = (uintptr_t)shmemi_g.heap_base;
    if (a - h < shmemi_g.heap_size && len <= shmemi_g.heap_size - (a - h)) {
        *seg_p = SHMEMT_SEG_HEAP;
        *off_p = a - h;
        return 0;
    }
    uintptr_t d = (uintptr_t)shmemi_g.data_base;
    if (a - d < shmemi_g.data_size && len <= shmemi_g.data_size - (a - d)) {
        *seg_p = SHMEMT_SEG_DATA;
        *off_p = a - d;
        return 0;
    }
    if (SHMEMI_UNLIKELY(shmemi_g.n_ext)) {
        for (int i = 0; i < SHMEMT_EXT_MAX; i++) {
            uintptr_t e = shmemi_g.ext[i].base;
            if (a - e < shmemi_g.ext[i].len && len <= shmemi_g.ext[i].len - (a - e)) {
                *seg_p = SHMEMT_NSEGS + i;
                *off_p = a - e;
                return 0;
            }
        }
    }
    return -EFAULT;
}

/* The mapped address of [addr, addr+nbytes) in the executable's data on pe,
 * or NULL. */
static inline char *shmemi_data_direct(const void *addr, size_t nbytes, int pe)
{
    uintptr_t off = (uintptr_t)addr - (uintptr_t)shmemi_g.data_base;
    if (off < shmemi_g.data_size && nbytes <= shmemi_g.data_size - off && shmemi_g.peer_data &&
        (unsigned)pe < (unsigned)shmemi_g.n_pes && shmemi_g.peer_data[pe])
        return shmemi_g.peer_data[pe] + off;
    return NULL;
}

/* src/mem/mem_reg.c: the mapped address of [addr, addr+nbytes) on pe when it
 * lies in a registered symmetric buffer that node peers map, else NULL;
 * with amo set, only where AMOs on it are CPU atomics (the atomicity
 * rule).  Called only while some buffer is mapped (n_ext_mapped). */
char *shmemi_ext_direct(const void *addr, size_t nbytes, int pe, int amo);

/* The mapped address of [addr, addr+nbytes) outside the heap (globals,
 * registered symmetric buffers) on pe, or NULL: one more predictable
 * branch while no registered buffer is mapped. */
static inline char *shmemi_other_direct(const void *addr, size_t nbytes, int pe)
{
    char *p = shmemi_data_direct(addr, nbytes, pe);
    if (SHMEMI_UNLIKELY(!p && shmemi_g.n_ext_mapped))
        p = shmemi_ext_direct(addr, nbytes, pe, 0);
    return p;
}

/* Local address of symmetric addr on pe when it is mapped, else NULL. */
static inline void *shmemi_peer_addr(const void *addr, int pe)
{
    uintptr_t off = (uintptr_t)addr - (uintptr_t)shmemi_g.heap_base;
    /* A heap address is in no other segment: no search beyond the heap. */
    if (off < shmemi_g.heap_size)
        return shmemi_g.peer_heap[pe] ? shmemi_g.peer_heap[pe] + off : NULL;
    return shmemi_other_direct(addr, 1, pe);
}

/* ---- RMA core (size based; typed wrappers sit on top) ---- */
/* Each checks its arguments (pe range, symmetric range, size overflow) and
 * ends the job naming rtn on bad input. */
void shmemi_put_slow(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe,
                     int nbi, const char *rtn);
void shmemi_get_slow(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe,
                     int nbi, const char *rtn);

/* The mapped address of [addr, addr+nbytes) on pe when the range lies in
 * pe's heap, data or a registered buffer and that is mapped; NULL
 * otherwise (the slow path then checks the arguments and takes the
 * transport). */
static inline char *shmemi_direct(const void *addr, size_t nbytes, int pe)
{
    uintptr_t off = (uintptr_t)addr - (uintptr_t)shmemi_g.heap_base;
    /* A heap range is in no other segment: an unmapped peer's heap (another
     * node's) goes to the transport without searching the data segment and
     * the registered buffers. */
    if (SHMEMI_LIKELY(off < shmemi_g.heap_size && nbytes <= shmemi_g.heap_size - off))
        return (unsigned)pe < (unsigned)shmemi_g.n_pes && shmemi_g.peer_heap[pe]
                   ? shmemi_g.peer_heap[pe] + off
                   : NULL;
    return shmemi_other_direct(addr, nbytes, pe);
}

/* ---- contexts ---- */
/* The transport that ctx's operations went to (NULL in a one-PE job):
 * for quiet and fence. */
static inline shmemt_t *shmemi_ctx_tp(shmem_ctx_t ctx)
{
    shmemt_t *tp = __atomic_load_n(&ctx->tp, __ATOMIC_ACQUIRE);
    return tp ? tp : shmemi_g.tp;
}

/* The transport that an operation on ctx goes to: the context's own
 * endpoint, made at the first call (src/core/ctx.c), or the default one. */
shmemt_t *shmemi_ctx_tp_make(shmem_ctx_t ctx);
static inline shmemt_t *shmemi_ctx_tp_issue(shmem_ctx_t ctx)
{
    shmemt_t *tp = __atomic_load_n(&ctx->tp, __ATOMIC_ACQUIRE);
    if (SHMEMI_LIKELY(tp != NULL))
        return tp;
    return ctx->shared ? shmemi_g.tp : shmemi_ctx_tp_make(ctx);
}

/* The world PE of PE number pe of ctx: ends the job naming rtn when ctx is
 * SHMEM_CTX_INVALID or pe is not in the context's team. */
int shmemi_ctx_pe_slow(shmem_ctx_t ctx, int pe, const char *rtn);
static inline int shmemi_ctx_pe(shmem_ctx_t ctx, int pe, const char *rtn)
{
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID || ctx->pes != NULL))
        return shmemi_ctx_pe_slow(ctx, pe, rtn);
    return pe;
}

/* The put and get cores: pe is a world PE (shmemi_put_w ...) or a PE of
 * the context (shmemi_put ...: the user's number, translated first). */
static inline void shmemi_put_w(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                                int pe, int nbi, const char *rtn)
{
    char *p = shmemi_direct(dest, nbytes, pe);
    if (SHMEMI_LIKELY(p != NULL))
        memcpy(p, src, nbytes);
    else
        shmemi_put_slow(ctx, dest, src, nbytes, pe, nbi, rtn);
}

static inline void shmemi_get_w(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                                int pe, int nbi, const char *rtn)
{
    char *p = shmemi_direct(src, nbytes, pe);
    if (SHMEMI_LIKELY(p != NULL))
        memcpy(dest, p, nbytes);
    else
        shmemi_get_slow(ctx, dest, src, nbytes, pe, nbi, rtn);
}

static inline void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                              int pe, const char *rtn)
{
    shmemi_put_w(ctx, dest, src, nbytes, shmemi_ctx_pe(ctx, pe, rtn), 0, rtn);
}

static inline void shmemi_put_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                                  int pe, const char *rtn)
{
    shmemi_put_w(ctx, dest, src, nbytes, shmemi_ctx_pe(ctx, pe, rtn), 1, rtn);
}

static inline void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                              int pe, const char *rtn)
{
    shmemi_get_w(ctx, dest, src, nbytes, shmemi_ctx_pe(ctx, pe, rtn), 0, rtn);
}

static inline void shmemi_get_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                                  int pe, const char *rtn)
{
    shmemi_get_w(ctx, dest, src, nbytes, shmemi_ctx_pe(ctx, pe, rtn), 1, rtn);
}

/* Strided forms: element size elsize, blocks of bsize elements, strides in
 * elements (tst for the target, sst for the source), nblocks blocks.
 * iput/iget are the bsize == 1 case.  pe is a PE of ctx. */
void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                 size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn);
void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                 size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn);

/* Multiplies count by elsize, ending the job naming rtn on overflow. */
static inline size_t shmemi_nbytes(size_t count, size_t elsize, const char *rtn)
{
    size_t n;
    if (SHMEMI_UNLIKELY(__builtin_mul_overflow(count, elsize, &n)))
        shmemi_user_error(rtn, "nelems %zu times element size %zu overflows size_t", count, elsize);
    return n;
}

/* ---- ordering and waiting ---- */
/* Marks that an operation was handed to the transport (call it after the
 * operation was issued: a concurrent quiet that clears the mark then
 * covers the operation). */
static inline void shmemi_tp_issued(void)
{
    if (!atomic_load_explicit(&shmemi_g.tp_dirty, memory_order_relaxed))
        atomic_store_explicit(&shmemi_g.tp_dirty, 1, memory_order_release);
}
/* The same for an operation on ctx. */
static inline void shmemi_ctx_issued(shmem_ctx_t ctx)
{
    if (!atomic_load_explicit(ctx->dirty, memory_order_relaxed))
        atomic_store_explicit(ctx->dirty, 1, memory_order_release);
}
void shmemi_quiet(shmem_ctx_t ctx);
/* The same, returning 0 or the transport's negative errno instead of
 * ending the job (the streams' worker reports it to shmemx_stream_sync). */
int shmemi_quiet_status(shmem_ctx_t ctx);
/* Drives the provider once (cheap when nothing is outstanding); > 0 when
 * it took in traffic, 0 when none or nothing can come through it. */
int shmemi_progress(void);
/* Called in every iteration of a wait loop: progress, then after
 * env.wait_spin polls yield, then sleep with growing pauses (up to 1 ms). */
void shmemi_wait_backoff(unsigned long *iter_p);
void shmemi_barrier_world(void);

/* ---- heap allocator (pure logic, unit tested) ---- */
typedef struct shmemi_alloc shmemi_alloc_t;
int shmemi_alloc_create(size_t base_off, size_t size, shmemi_alloc_t **a_p);
void shmemi_alloc_destroy(shmemi_alloc_t *a);
/* Offset of a new block of size bytes aligned to align (a power of two), or
 * -ENOMEM.  Same sequence of calls -> same offsets on every PE. */
int shmemi_alloc_get(shmemi_alloc_t *a, size_t size, size_t align, size_t *off_p);
/* Frees the block at off; -EINVAL if no block starts there. */
int shmemi_alloc_put(shmemi_alloc_t *a, size_t off);
/* Size of the block at off, or 0. */
size_t shmemi_alloc_size(shmemi_alloc_t *a, size_t off);
/* Bytes free in the largest hole. */
size_t shmemi_alloc_largest(shmemi_alloc_t *a);

/* ---- node map (pure logic, unit tested) ---- */
/* From each PE's host identity (n_pes strings of idlen bytes) and
 * pes_per_node (0: real hosts), fills node_of[n_pes]; returns the node count. */
int shmemi_nodemap_build(const char *host_ids, size_t idlen, int n_pes, long pes_per_node,
                         int *node_of);
/* A node id from a PE's local peers (as the bootstrap's node_peers gives
 * them): the lowest of them.  peers[n] must be distinct PEs below n_pes,
 * my_pe among them; -EINVAL otherwise, -ENOMEM. */
int shmemi_nodemap_local_id(const int *peers, int n, int my_pe, int n_pes, int *id_p);
/* Checks the node ids of all PEs (node_id[pe]: pe's node id from
 * shmemi_nodemap_local_id, -1 for none; node_size[pe]: how many local peers
 * pe had).  Returns 0 when they describe one set of nodes (then node_id,
 * as sizeof(int)-byte identities, can take the place of the host names in
 * shmemi_nodemap_build), -ENOENT when some PE has no id, -EPROTO when the
 * PEs' answers contradict each other, -EINVAL or -ENOMEM. */
int shmemi_nodemap_ids_check(const int *node_id, const int *node_size, int n_pes);

#endif

/* ---- atomics (src/core/amo.c) ----
 * The atomicity rule: all AMOs on one word take one path.  When every PE
 * maps every other PE's heap (one node, direct path on), heap AMOs are CPU
 * atomics on the mapped word.  When the transport's atomics are CPU
 * atomics too, applied by the target (active messages: the transport
 * reports SHMEMT_CAP_AMO_CPU), AMOs on mapped words are CPU atomics and
 * the others go through the transport: both paths end in the same
 * instructions on the same word.  Otherwise every AMO, to self and node
 * peers included, goes through the provider, whose atomics are then the
 * only writers.  Words of the data segment (globals) follow the same rule
 * with the mapping of the data (FABSHMEM_MAP_DATA): CPU atomics when every
 * PE maps every PE's heap and data, or the transport's AMOs are CPU
 * atomics and the word is mapped, else the provider.  Words of registered
 * symmetric buffers too, with the mapping of the buffer: CPU atomics when
 * every PE maps every PE's copy, or the transport's AMOs are CPU atomics
 * and the word is mapped (ext[].amo_cpu, decided at registration), else
 * the provider.  shmemi_amo_direct
 * holds the first choice made at init (every heap mapped),
 * shmemi_amo_cpu_tp the second (the transport's capability), and
 * shmemi_amo_cpu either of them; shmemi_amo_local applies the rule to one
 * word. */
extern int shmemi_amo_direct SHMEMI_HIDDEN;
extern int shmemi_amo_cpu_tp SHMEMI_HIDDEN;
extern int shmemi_amo_cpu SHMEMI_HIDDEN;

/* The mapped address of the size-byte word dest on (world) pe when AMOs on
 * it are CPU atomics, else NULL. */
static inline char *shmemi_amo_local(const void *dest, size_t size, int pe)
{
    uintptr_t off = (uintptr_t)dest - (uintptr_t)shmemi_g.heap_base;
    char *p = NULL;
    if ((unsigned)pe >= (unsigned)shmemi_g.n_pes)
        return NULL;
    /* A heap word is in no registered buffer. */
    if (off < shmemi_g.heap_size && size <= shmemi_g.heap_size - off)
        return shmemi_amo_cpu && shmemi_g.peer_heap[pe] ? shmemi_g.peer_heap[pe] + off : NULL;
    if (shmemi_amo_cpu) {
        if (shmemi_g.data_all_mapped || shmemi_amo_cpu_tp)
            p = shmemi_data_direct(dest, size, pe);
    }
    /* Registered buffers decide for themselves (ext[].amo_cpu). */
    if (!p && SHMEMI_UNLIKELY(shmemi_g.n_ext_mapped))
        p = shmemi_ext_direct(dest, size, pe, 1);
    return p;
}

/* Puts len bytes from src to dest on (world) pe and updates the 8-byte
 * signal word sig there with aop (SHMEMT_AOP_SET or SHMEMT_AOP_ADD) in one
 * operation of transport tp, when its AMOs are applied by the target
 * (SHMEMT_CAP_AMO_CPU) and it can: 0 when done, -ENOTSUP when the caller
 * must put, fence and signal itself (also for addresses the usual path
 * will name in its error), another negative errno when it failed.  The
 * caller accounts for the issued operation. */
int shmemi_tp_put_signal(shmemt_t *tp, const void *dest, const void *src, size_t len,
                         const volatile uint64_t *sig, uint64_t value, int aop, int pe);

/* op: SHMEMT_AOP_*; size 4 or 8 (integers; float/double as their bits for
 * fetch, set, swap, cswap).  operand/compare/fetch point to size bytes;
 * fetch may be NULL for non-fetching ops.  nbi: fetch valid after quiet.
 * pe is a PE of ctx (shmemi_amo_w: a world PE). */
void shmemi_amo(shmem_ctx_t ctx, void *dest, int op, const void *operand, const void *compare,
                void *fetch, size_t size, int pe, int nbi, const char *rtn);
void shmemi_amo_w(shmem_ctx_t ctx, void *dest, int op, const void *operand,
                  const void *compare, void *fetch, size_t size, int pe, int nbi,
                  const char *rtn);
