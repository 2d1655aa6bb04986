/*
 * libfabric transport, private state shared by the ofi_*.c files: the
 * transport object, its inline helpers and the routines of each file.
 * Three objects have headers of their own: ofi_quirks.h (what differs by
 * provider), ofi_mr.h (registrations) and ofi_post.h (waits, retries and
 * posts).
 */
#ifndef SHMEMT_OFI_H
#define SHMEMT_OFI_H

#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>
#include "providers/shmemt.h"
#include "ofi_quirks.h"

/* Logging through the core's function (shmemt_init_args_t.log; fn NULL:
 * silent, for the calls that need no init), gated by level before anything
 * is formatted. */
typedef struct ofi_log {
    shmemt_log_fn fn;
    int level;
} ofi_log_t;
#define ofi_log(l, lvl, ...) \
    do { \
        if ((l)->fn && (lvl) <= (l)->level) \
            (l)->fn((lvl), __VA_ARGS__); \
    } while (0)
#define ofi_err(o, ...) ofi_log(&(o)->log, SHMEMT_LOG_ERR, __VA_ARGS__)
#define ofi_info_log(o, ...) ofi_log(&(o)->log, SHMEMT_LOG_INFO, __VA_ARGS__)

/* The libfabric API version asked for (FI_HMEM, for GPU memory, is 1.10's). */
#define OFI_API_VERSION FI_VERSION(1, 10)

/* How quiet obtains remote completion. */
enum {
    OFI_RC_NATIVE = 0,   /* local completion already means remote */
    OFI_RC_DELIVERY,     /* FI_DELIVERY_COMPLETE on every write and atomic */
    OFI_RC_FLUSH,        /* a small read to each written PE after the writes */
};

/* Size of the registered scratch area (bounce buffer for FI_MR_LOCAL,
 * flush reads, atomic operands and results). */
#define OFI_SCRATCH_SIZE (256 * 1024)
/* Queue sizes of a context's endpoint (ofi_ctx_create). */
#define OFI_CHILD_TX_SIZE 256
#define OFI_CHILD_RX_SIZE 64
/* The part of it that bounce copies and atomic operands use (under
 * scratch_lock); the last bytes are the sink of the flush reads, which
 * need no lock because nobody looks at what they bring. */
#define OFI_SCRATCH_BOUNCE (OFI_SCRATCH_SIZE - 4096)
#define OFI_FLUSH_SINK_OFF (OFI_SCRATCH_SIZE - 64)
/* Flush reads in flight at once in one quiet. */
#define OFI_FLUSH_BATCH 32
/* Active messages (ofi_am.c): receive buffers posted on the default
 * endpoint and the size of each. */
#define OFI_AM_NRECV 64
#define OFI_AM_BUF 1024
/* Give up when a wait makes no progress for this long, unless the
 * configuration says otherwise (FABSHMEM_OFI_TIMEOUT: o->cfg.timeout_s,
 * which init sets to this when it is not given). */
#define OFI_TIMEOUT_S 60

/* Context of an operation whose caller waits for it (blocking get, fetching
 * atomic, large blocking put).  Whoever reads the CQ marks it done. */
typedef struct ofi_req {
    struct fi_context2 fictx;  /* first: libfabric may use it */
    _Atomic int done;
    int err;                   /* 0 or a negative errno */
} ofi_req_t;

/* What one peer sent at init: where its segments are and their keys. */
typedef struct ofi_peer_seg {
    uint64_t key;
    uint64_t addr;   /* remote address of offset 0 (base, or 0 for offset mode) */
    uint64_t len;
} ofi_peer_seg_t;

typedef struct shmemt_ofi {
    shmemt_t pub;
    char prov_name[64];
    int my_pe, n_pes;
    /* From the init arguments (children copy them). */
    ofi_log_t log;
    shmemt_fatal_fn fatal;
    void (*thread_start)(void); /* shmemt_init_args_t.thread_start */
    shmemt_ofi_cfg_t cfg;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_cq *cq;
    struct fid_cntr *put_cntr;   /* writes and non-fetching atomics */
    struct fid_cntr *get_cntr;   /* reads and fetching atomics */
    uint64_t mr_mode;
    size_t inject_size;
    size_t max_msg_size;
    uint64_t dc_flag;            /* FI_DELIVERY_COMPLETE or 0, for writes */
    uint64_t atomic_dc_flag;     /* the same for non-fetching atomics */
    ofi_quirks_t q;

    /* Segments: 0 .. SHMEMT_NSEGS - 1 from init (children copy them), the
     * run-time ones after them (kept by the default transport only: see
     * OFI_ROOT). */
    shmemt_seg_t segs[SHMEMT_MAX_SEGS];
    struct fid_mr *mr[SHMEMT_MAX_SEGS];
    void *desc[SHMEMT_MAX_SEGS];
    fi_addr_t *addr;             /* [n_pes] */
    ofi_peer_seg_t *peer;        /* [n_pes * SHMEMT_MAX_SEGS], shared with the children */
    /* Local buffers registered by shmemx_buffer_register (default
     * transport only), under buf_lock. */
    struct ofi_buf *bufs;
    _Atomic int n_bufs;
    pthread_rwlock_t buf_lock;

    /* Registered scratch memory, used under scratch_lock. */
    char *scratch;
    struct fid_mr *scratch_mr;
    void *scratch_desc;
    pthread_mutex_t scratch_lock;
    /* The registered ring of the buffered blocking puts (ofi_bounce.c),
     * made at the first one; bounce_off: it could not be made. */
    _Atomic(struct ofi_bounce *) bounce;
    _Atomic int bounce_off;

    /* Operations issued (counted by put_cntr and get_cntr when done).
     * They are bumped before the operation is posted and quiet reads the
     * counters before them, so that a quiet that sees the counters reach
     * the issued counts knows that every operation posted before it, by
     * any thread, is complete (see ofi_rma_quiet).  Posts that failed are
     * counted in *_failed, which quiet adds to the completions. */
    _Atomic uint64_t put_issued;
    _Atomic uint64_t get_issued;
    _Atomic uint64_t put_failed;
    _Atomic uint64_t get_failed;
    /* Counter error counts already reported. */
    uint64_t put_err_seen, get_err_seen;
    /* Issued counts that a quiet found complete (ofi_drain): a side whose
     * issued count has not moved since needs no counter read. */
    _Atomic uint64_t put_done_upto, get_done_upto;
    /* An error from an operation nobody waits for, reported at quiet. */
    _Atomic int async_err;
    /* For OFI_RC_FLUSH: writes posted to each PE ([n_pes], bumped after
     * the write was posted) and how many of them a completed flush read
     * is known to cover; the totals let a quiet with nothing written skip
     * the scan. */
    _Atomic uint64_t *wposted;
    _Atomic uint64_t *wflushed;
    _Atomic uint64_t wposted_total;
    _Atomic uint64_t wflushed_total;

    /* Active messages (ofi_am.c).  am: AMOs and small puts with signal
     * are messages applied by the target's CPU (children copy it).  The
     * default transport owns the receive buffers and the replies that wait
     * for the provider (under am_lock; am_npend_hint: their number, read
     * without the lock).  Every transport counts its non-fetching requests
     * and their acknowledgements, for quiet. */
    int am;
    int am_opened;               /* ofi_am_open made the locks (default only) */
    size_t am_max_data;          /* most data bytes of one put with signal */
    struct ofi_am_rbuf *am_rbufs;
    struct fid_mr *am_rmr;
    void *am_rdesc;
    pthread_mutex_t am_lock;
    /* Held while a thread reads the default CQ and applies the messages it
     * brought, so that messages are applied in the order they arrived
     * (another poller skips: someone is polling). */
    pthread_mutex_t am_poll_lock;
    struct ofi_am_pend *am_pend;
    int am_npend, am_cap;
    _Atomic int am_npend_hint;
    _Atomic uint64_t n_cqe;      /* CQ entries read (traffic: for waits and the progress thread) */
    _Atomic uint64_t am_issued;
    _Atomic uint64_t am_acked;
    /* Their authentication (ofi_am.h, ofi_am_auth.c).  Every transport
     * sends on a stream of the root's (am_st); the root holds this PE's
     * key, the peers' keys from their cards ([n_pes], shared with the
     * children), the windows of what each sender sent ([n_pes], under
     * am_poll_lock), and, under am_tab_lock, the streams and the slots of
     * the fetching AMOs that wait for replies. */
    struct ofi_am_stream *am_st;
    struct ofi_am_stream *am_reply_st;  /* the root's replies */
    uint64_t am_key[2];
    uint64_t (*am_peer_key)[2];
    struct ofi_am_rx **am_rx;
    pthread_mutex_t am_tab_lock;
    int am_tab_opened;
    struct ofi_am_stream **am_streams;
    int am_nstreams;
    struct ofi_am_slot *am_slots;
    uint16_t *am_free;
    int am_nfree;
    _Atomic uint64_t am_dropped;  /* messages dropped by ofi_am_verify */
    /* The lock offered as pub.serial when the provider is not thread safe
     * (q.no_threads); the default transport's only. */
    pthread_mutex_t serial_lock;

    /* Passive-target progress thread. */
    pthread_t prog_thread;
    int prog_running;
    int oversubscribed;          /* args->oversubscribed */
    _Atomic int prog_stop;
    int prog_interval_us;
    int wait_fd;                 /* CQ wait fd, or -1 */
    /* When an application thread last drove progress (ofi_now_us, set
     * only while the progress thread runs); while the application polls,
     * the progress thread stays out of the way (see ofi_prog_main). */
    _Atomic uint64_t app_poll_us;
    /* Until when the application sleeps between two polls (ofi_app_naps):
     * a napping application does not count as polling. */
    _Atomic uint64_t app_nap_until_us;
    /* Application threads blocked on wait_fd in ofi_idle: they wake on
     * traffic by themselves, so the progress thread leaves it to them. */
    _Atomic int app_fd_waiting;
    /* The progress thread's own wake-up (an eventfd, or -1): written by
     * ofi_prog_kick when an operation is posted while the thread sleeps
     * for long (prog_deep), and by ofi_prog_stop. */
    int prog_wake_fd;
    _Atomic int prog_deep;

    /* Contexts (ofi_ctx_create): a child shares everything of its parent
     * but the endpoint, CQ, counters, scratch area and the accounting
     * above.  The parent lists its children under child_lock, so that its
     * progress (and the progress thread) drives them too. */
    struct shmemt_ofi *parent;   /* NULL for the default transport */
    struct shmemt_ofi *next_child;
    struct shmemt_ofi *children;
    _Atomic int n_children;
    pthread_mutex_t child_lock;
    /* A triggered queue (ofi_trig_create): the contexts of the operations
     * in flight, [SHMEMT_TRIG_DEPTH], indexed by threshold; NULL for other
     * transports.  Its put_cntr counts writes, reads and atomics. */
    struct ofi_trig_slot *trig;
} shmemt_ofi_t;

#define OFI_T(t) ((shmemt_ofi_t *)(t))
/* The default transport of o (itself, or the parent of a child). */
#define OFI_ROOT(o) ((o)->parent ? (o)->parent : (o))

static inline uint64_t ofi_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/* An application thread drives progress: tells the progress thread. */
static inline void ofi_app_polled(shmemt_ofi_t *o)
{
    if (o->prog_running)
        atomic_store_explicit(&o->app_poll_us, ofi_now_us(), memory_order_relaxed);
}
/* An application thread is about to sleep us microseconds before it polls
 * again: the progress thread takes over meanwhile. */
static inline void ofi_app_naps(shmemt_ofi_t *o, uint64_t us)
{
    if (o->prog_running)
        atomic_store_explicit(&o->app_nap_until_us, ofi_now_us() + us, memory_order_relaxed);
}

void ofi_prog_wake(shmemt_ofi_t *root);
/* An operation of o was just counted as issued (after the seq_cst bump of
 * its issued count): a progress thread that sleeps for long because
 * nothing was outstanding must drive it (tcp's queued sends, shm's
 * requests), so it is woken.  One load while the thread is not in a long
 * sleep. */
static inline void ofi_prog_kick(shmemt_ofi_t *o)
{
    shmemt_ofi_t *r = o->parent ? o->parent : o;

    if (atomic_load_explicit(&r->prog_deep, memory_order_seq_cst))
        ofi_prog_wake(r);
}

/* Keeps err (a negative errno) for the next quiet of o, unless an error is
 * kept already: a failure that no caller can be told of now (a thread of
 * the transport met it: see providers/shmemt.h). */
static inline void ofi_keep_err(shmemt_ofi_t *o, int err)
{
    int none = 0;

    atomic_compare_exchange_strong(&o->async_err, &none, err);
}

/* The lock of a provider that is not thread safe (shmemt_t.serial), or
 * NULL. */
static inline pthread_mutex_t *ofi_serial(shmemt_ofi_t *o)
{
    return OFI_ROOT(o)->pub.serial;
}

/* The local address of [off, off + len) of this PE's segment seg (o the
 * default transport), or NULL when that is not registered memory. */
static inline char *ofi_local_addr(const shmemt_ofi_t *o, unsigned seg, uint64_t off,
                                   uint64_t len)
{
    if (seg >= SHMEMT_MAX_SEGS || !o->segs[seg].base || off > o->segs[seg].len ||
        len > o->segs[seg].len - off)
        return NULL;
    return (char *)o->segs[seg].base + off;
}

/* ThreadSanitizer cannot see the ordering that libfabric gives (it is
 * not instrumented): the thread that completes a request (whoever reads
 * the CQ, the progress thread's handler of a reply) writes into memory
 * that the posting thread wrote before it posted.  The request (the
 * operation's context, an active message's token) is released when it is
 * handed to the provider and acquired where it completes; without TSan
 * these are nothing. */
#if defined(__SANITIZE_THREAD__)
#define OFI_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OFI_TSAN 1
#endif
#endif
#ifdef OFI_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define OFI_HB_RELEASE(p) __tsan_release((void *)(p))
#define OFI_HB_ACQUIRE(p) __tsan_acquire((void *)(p))
#else
#define OFI_HB_RELEASE(p) ((void)0)
#define OFI_HB_ACQUIRE(p) ((void)0)
#endif
/* The same for completions that counters report (a quiet, the triggered
 * queue's counter): the data of a get lands in whichever of our threads
 * drives the provider (inside fi_cq_read), so every poll releases the
 * transport (OFI_HB_POLLED) and a wait that counted its operations
 * complete acquires it (OFI_HB_COUNTED). */
#define OFI_HB_POLLED(o)  OFI_HB_RELEASE(OFI_ROOT(o))
#define OFI_HB_COUNTED(o) OFI_HB_ACQUIRE(OFI_ROOT(o))

/* An RMA message of one local buffer (iov, desc) and one remote range
 * (riov) at PE pe; they live with the caller (ctx, the request, is
 * complete as it is: see OFI_HB_RELEASE). */
static inline void ofi_rma_msg(const shmemt_ofi_t *o, struct fi_msg_rma *msg, struct iovec *iov,
                               void **desc, struct fi_rma_iov *riov, int pe, void *ctx)
{
    memset(msg, 0, sizeof(*msg));
    msg->msg_iov = iov;
    msg->desc = desc;
    msg->iov_count = 1;
    msg->addr = o->addr[pe];
    msg->rma_iov = riov;
    msg->rma_iov_count = 1;
    msg->context = ctx;
    if (ctx)
        OFI_HB_RELEASE(ctx);
}

/* An atomic message of one operand (ioc, desc) on one remote word (rioc)
 * at PE pe; they live with the caller. */
static inline void ofi_atomic_msg(const shmemt_ofi_t *o, struct fi_msg_atomic *msg,
                                  struct fi_ioc *ioc, void **desc, struct fi_rma_ioc *rioc,
                                  int pe, enum fi_datatype dt, enum fi_op op, void *ctx)
{
    memset(msg, 0, sizeof(*msg));
    msg->msg_iov = ioc;
    msg->desc = desc;
    msg->iov_count = 1;
    msg->addr = o->addr[pe];
    msg->rma_iov = rioc;
    msg->rma_iov_count = 1;
    msg->datatype = dt;
    msg->op = op;
    msg->context = ctx;
    if (ctx)
        OFI_HB_RELEASE(ctx);
}

/* ofi_prog.c */
/* The calling application thread waits up to us microseconds for traffic:
 * in ppoll on the CQ's wait fd where there is one (woken by the first
 * message), in nanosleep otherwise.  Returns 1 when it may have been woken
 * by traffic, 0 when the time ran out (the idle op). */
int ofi_idle(shmemt_ofi_t *o, uint64_t us);
/* The progress thread's body (arg: the default transport). */
void *ofi_prog_main(void *arg);

/* ofi_select.c */
/* Picks the provider (requested: FABSHMEM_PROVIDER, NULL or "" for any)
 * into o->info and o->prov_name, asking for FI_TRIGGER too when trigger;
 * 0, or <0 with a message naming what was found. */
int ofi_select(shmemt_ofi_t *o, const char *requested, int trigger);

/* ofi_ep.c */
/* Reads the CQ once (drives progress); completes waiting requests and
 * records errors.  Returns 0 or a negative errno. */
int ofi_cq_poll(shmemt_ofi_t *o);
/* Opens fabric, domain and AV, then o's endpoint with its CQ (with a wait
 * fd when want_fd) and counters: 0 or <0. */
int ofi_open_ep(shmemt_ofi_t *o, int want_fd);
/* Registers o's scratch area (bounce buffer, flush sink, atomic operands). */
int ofi_scratch_open(shmemt_ofi_t *o);
/* Closes a child (no longer in its parent's list) or the default
 * transport with everything it owns, its children included, and frees it. */
void ofi_close_all(shmemt_ofi_t *o);
/* The ctx_create and ctx_destroy ops. */
int ofi_ctx_create(shmemt_t *t, long options, shmemt_t **child_p);
/* A child of t; trig: a triggered queue (one counter for everything). */
int ofi_child_create(shmemt_t *t, int trig, shmemt_t **child_p);
void ofi_ctx_destroy(shmemt_t *child);
/* Drives the children of o once; returns the operations they issued so
 * far (for the progress thread's activity check). */
uint64_t ofi_poll_children(shmemt_ofi_t *o);

/* ofi.c */
/* Stops the progress thread and closes everything (the fini op). */
void ofi_close_transport(shmemt_t *t);

/* ofi_bind.c */
/* Moves o->info to the domain of the interface the endpoint should listen
 * on: iface (NULL or "": none asked for) or, when single_host, loopback;
 * for providers whose domains are network interfaces.  0, or -ENODEV
 * (logged) when the provider has no domain on iface. */
int ofi_bind(shmemt_ofi_t *o, const char *iface, int single_host);

/* ofi_atomic.c: maps a SHMEMT_AOP_* to a libfabric op and the kind of call
 * (OFI_AK_*); -EINVAL for an unknown op. */
enum { OFI_AK_BASE, OFI_AK_FETCH, OFI_AK_COMPARE };
int ofi_aop_map(int op, int fetching, enum fi_op *fop_p, int *kind_p);
/* ofi_trig.c: the slots of a triggered queue (free()), and the trig_* ops. */
struct ofi_trig_slot *ofi_trig_slots_alloc(void);
int ofi_trig_create(shmemt_t *t, shmemt_t **q_p);
int ofi_trig_put(shmemt_t *q, uint64_t seq, uint64_t threshold, int pe, int seg, uint64_t off,
                 const void *src, size_t len);
int ofi_trig_get(shmemt_t *q, uint64_t seq, uint64_t threshold, int pe, int seg, uint64_t off,
                 void *dst, size_t len);
int ofi_trig_atomic(shmemt_t *q, uint64_t seq, uint64_t threshold, int pe, int seg, uint64_t off,
                    int op, uint64_t operand);
int ofi_trig_status(shmemt_t *q, uint64_t *done_p, uint64_t *failed_p);
int ofi_trig_add(shmemt_t *q, uint64_t n);

/* ofi_rma.c */
extern const shmemt_ops_t shmemt_ofi_ops;

/* ofi_atomic.c */
/* 0 when the provider can do every SHMEMT_AOP_* on 32- and 64-bit ints. */
int ofi_atomic_check(shmemt_ofi_t *o);
int ofi_atomic(shmemt_t *t, int pe, int seg, uint64_t off, int op, const void *operand,
               const void *compare, void *fetch, size_t size);

/* ofi_atomic.c: a CPU atomic on this PE's own segment seg (operand and
 * compare: size bytes or NULL, fetch NULL or size bytes); -EINVAL when
 * out of range. */
int ofi_cpu_atomic(shmemt_ofi_t *o, int seg, uint64_t off, int op, const void *operand,
                   const void *compare, void *fetch, size_t size);
/* 1 when [off, off + len) of PE pe's segment seg is registered memory. */
int ofi_remote_seg_ok(shmemt_ofi_t *o, int pe, int seg, uint64_t off, size_t len);

/* ofi_am.c */
/* Posts the receive buffers of the default transport (clears o->am when
 * the provider cannot take our messages). */
int ofi_am_open(shmemt_ofi_t *o);
void ofi_am_close(shmemt_ofi_t *o);
/* 1 when a CQ entry's context is one of o's receive buffers. */
int ofi_am_is_rbuf(const shmemt_ofi_t *o, const void *ctx);
/* Handles a message of len bytes received into buffer ctx and posts the
 * buffer again. */
void ofi_am_recv(shmemt_ofi_t *o, void *ctx, size_t len);
/* Sends the replies that waited for the provider. */
void ofi_am_flush_replies(shmemt_ofi_t *o);
int ofi_am_atomic(shmemt_ofi_t *o, int pe, int seg, uint64_t off, int op, const void *operand,
                  const void *compare, void *fetch, size_t size);
int ofi_am_put_signal(shmemt_ofi_t *o, int pe, int seg, uint64_t off, const void *src,
                      size_t len, int sig_seg, uint64_t sig_off, uint64_t signal, int sig_op);
/* An 8-byte SET that is neither acknowledged nor counted (the signal op). */
int ofi_am_signal(shmemt_ofi_t *o, int pe, int seg, uint64_t off, uint64_t value);
/* Waits until every non-fetching request of o was acknowledged. */
int ofi_am_drain(shmemt_ofi_t *o);

#endif
