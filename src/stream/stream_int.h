/*
 * Streams inside their layer: the work item, the stream object and the
 * interface of each of the layer's files, one job each:
 *
 *   stream_queue.c    the queue: items in, batches out, the stream's error
 *   stream_exec.c     the executor: runs one batch through the core's
 *                     routines (the same the API calls)
 *   stream_worker.c   the worker thread, the kind of stream that runs the
 *                     queue on a thread of the library
 *   stream_offload.c  offload: RMA and signals posted to the provider as
 *                     triggered operations chained on a counter
 *   stream_life.c     create, destroy, sync, queries, the live streams
 *   stream_rma.c      the enqueue of RMA, signals, waits, quiet
 *   stream_coll.c     the enqueue of team synchronizations and collectives
 *   stream_cpu.c      the placement of the workers on CPUs
 *
 * A kind of stream (struct shmemi_stream_kind) is what releases the queued
 * work to the executor: today the worker thread; a CUDA stream (work
 * ordered on a cudaStream_t, released by stream memory operations or host
 * functions) is another kind over the same queue and executor.
 */
#ifndef SHMEMI_STREAM_INT_H
#define SHMEMI_STREAM_INT_H

#include "stream/stream.h"
#include <pthread.h>
#include <sched.h>

/* ---- the work item ---- */

enum shmemi_wkind {
    SHMEMI_W_PUT,         /* len bytes src -> dest on pe (src NULL: imm) */
    SHMEMI_W_GET,         /* len bytes src on pe -> dest */
    SHMEMI_W_IPUT,        /* nelems elements of len bytes, strides dst and sst */
    SHMEMI_W_IGET,
    SHMEMI_W_PUT_SIGNAL,  /* a put, then sig on pe updated with op by value */
    SHMEMI_W_SIGNAL_OP,
    SHMEMI_W_SIGNAL_WAIT, /* until sig op(cmp) value, on this PE */
    SHMEMI_W_QUIET,
    SHMEMI_W_BARRIER,     /* of team */
    SHMEMI_W_SYNC,
    SHMEMI_W_COLL,        /* the collective coll of team */
    SHMEMI_W_LAUNCH,      /* fn(arg) */
    SHMEMI_W_CALL         /* call(work): typed waits */
};

/* The collectives of SHMEMI_W_COLL. */
enum shmemi_wcoll {
    SHMEMI_WC_BCAST,        /* from member pe */
    SHMEMI_WC_FCOLLECT,
    SHMEMI_WC_ALLTOALL,
    SHMEMI_WC_REDUCE,       /* type code tc, operation op */
    SHMEMI_WC_REDUCESCATTER
};

/* One work item.  The queue holds copies, so nothing may point into it. */
struct shmemi_work {
    enum shmemi_wkind kind;
    const char *rtn;   /* the routine that enqueued it, for messages */
    void *dest;
    const void *src;
    size_t len;        /* bytes; strided transfers and collectives: of one element */
    size_t nelems;     /* strided transfers and collectives */
    ptrdiff_t dst, sst;
    uint64_t *sig;
    uint64_t value;
    int op;            /* sig_op, cmp or the reduction's operation */
    int pe;            /* the target; broadcast: PE_root */
    int coll;          /* SHMEMI_WC_* */
    int tc;            /* the reduction's type code */
    shmem_team_t team;
    void (*fn)(void *);
    void *arg;
    int (*call)(const struct shmemi_work *w);
    uint64_t thr;      /* offload: the counter value at which it may start */
    /* A value carried by the item (p: the source; typed waits: the value
     * compared with). */
    union {
        unsigned char b[16];
        long double ld;
        uint64_t u;
    } imm;
};
typedef struct shmemi_work shmemi_work_t;

/* ---- kinds of stream ----
 * What releases a stream's queued work to the executor, in order.  The
 * queue (stream_queue.c) calls wake under the stream's lock when it
 * appends an item; the kind takes batches (shmemi_stream_take), runs them
 * (shmemi_stream_run) and retires them (shmemi_stream_retire), from
 * whatever thread it runs work on.  start is called once the stream is
 * complete but for the kind, stop after its last item ran (the queue
 * holds nothing more). */
struct shmemx_stream;
struct shmemi_stream_kind {
    const char *name;
    int (*start)(struct shmemx_stream *s, const char *rtn);
    void (*wake)(struct shmemx_stream *s);
    void (*stop)(struct shmemx_stream *s);
    /* NULL for a kind that runs the queue as it is.  A kind with issue
     * takes every item that shmemi_stream_enqueue is given, from the
     * enqueuing thread without s->lock held (the CUDA kind: onto its CUDA
     * stream, or into the queue held until the CUDA stream releases it),
     * returning 0 or the class, recorded on the calling thread; its sync
     * waits for the stream's work (the common part of shmemi_stream_sync
     * then reports the error) and busy says whether some is left. */
    int (*issue)(struct shmemx_stream *s, const shmemi_work_t *w);
    int (*sync)(struct shmemx_stream *s, const char *rtn);
    int (*busy)(struct shmemx_stream *s);
};

/* ---- the stream ---- */

/* CPU placement of a worker (stream_cpu.c). */
struct shmemi_stream_cpu {
    cpu_set_t allowed;
    int n;        /* CPUs in allowed (0: unknown) */
    int narrowed; /* steer narrowed the worker's affinity */
};

/* What the triggered operation of a threshold is, to name it if it fails. */
struct shmemi_trig_desc {
    const char *rtn;
    const char *what;
    int pe;
};

#define SHMEMI_STREAM_MAGIC 0x5354524du
/* The stream's error text: the core's message and what the stream adds. */
#define SHMEMI_STREAM_ERRLEN 1280

struct shmemx_stream {
    uint32_t magic;
    const struct shmemi_stream_kind *kind;
    pthread_mutex_t lock;
    pthread_cond_t done;     /* work was executed */
    shmemi_work_t *ring;
    size_t cap, head, count; /* items at ring[head .. head+count) mod cap */
    uint64_t enqueued, executed; /* written under lock, with atomic stores: the
                                  * watchdog's thread reads them without it */
    int syncers;             /* threads waiting on done */
    uint64_t wake_at;        /* the smallest target of those threads */
    shmem_ctx_t ctx;         /* the executor's context */
    char error[SHMEMI_STREAM_ERRLEN]; /* the first error since the last sync */
    int error_code;          /* and its SHMEMX_ERROR_* class */
    int errors_after;        /* errors since then that sync does not print */
    /* Executor only: the first put (or strided put) issued through the
     * transport since the last quiet of ctx, to name it when the quiet
     * fails (NULL: none open). */
    const char *open_rtn;
    int open_pe;
    int tp_noted;            /* the executor saw ctx take an endpoint or share one */
    struct shmemx_stream *next_live; /* streams not yet destroyed */
    /* The worker thread (stream_worker.c). */
    pthread_t worker;
    pthread_cond_t more;     /* work was enqueued */
    int worker_sleeps;       /* the worker waits on more */
    int stopping;            /* the worker is to end once the queue is empty */
    struct shmemi_stream_cpu cpu; /* where the worker may run (stream_cpu.c) */
    /* Offload (stream_offload.c): the triggered queue (NULL: the
     * executor runs everything). */
    shmemt_t *trig;
    uint64_t thr;            /* under lock: the number of the next item */
    uint64_t grp_thr;        /* under lock: the threshold of the open group of puts */
    int grp_n;               /* its puts so far (0: no group open) */
    pthread_mutex_t trig_lock;
    uint64_t trig_failed;    /* under trig_lock: failures seen and passed over */
    struct shmemi_trig_desc *desc; /* [SHMEMT_TRIG_DEPTH], by threshold, under lock */
    /* The CUDA kind (stream_cuda.c): the CUDA stream (a CUstream), the
     * count of queued items it has released (under lock), the count of
     * items executed as the GPU reads it (pinned host memory, written
     * by the worker), and the lock that keeps one enqueuer at a time
     * issuing onto the CUDA stream. */
    void *cu;
    uint64_t cu_gate;
    volatile uint64_t *cu_done;
    pthread_mutex_t cu_issue;
    /* Offloaded CUDA streams (stream_cuda_trig.c): the completion word
     * that the chains of triggered operations write (pinned host memory
     * in SHMEMT_SEG_SELF at offset cu_word_off; NULL: none). */
    volatile uint64_t *cu_word;
    uint64_t cu_word_off;
};

/* ---- the queue (stream_queue.c) ---- */

/* The live stream behind a handle into *s_p: 0, or the class recorded on
 * the calling thread (not initialized; not a stream), as a record of
 * shmemi_err_ends: the default mode ends the job for it, as it always
 * did, also in the routines that return a status. */
int shmemi_stream_lookup(shmemx_stream_t stream, struct shmemx_stream **s_p, const char *rtn)
    SHMEMI_WUR;
/* 1 when s is a live stream. */
static inline int shmemi_stream_ok(const struct shmemx_stream *s)
{
    return s && s->magic == SHMEMI_STREAM_MAGIC;
}
/* Work refused by the core's checks (class rc, recorded on this thread):
 * the record becomes the stream's error (stream.h), the thread's record
 * is cleared; returns rc. */
int shmemi_stream_refused(struct shmemx_stream *s, int rc);
/* Records an error of the stream (the first since the last sync is what
 * sync reports; the others are counted): the message fmt names the
 * routine itself. */
void shmemi_stream_fail(struct shmemx_stream *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends w (the caller holds s->lock, or not for shmemi_stream_enqueue);
 * the queue grows as needed: 0, or SHMEMX_ERROR_OUT_OF_MEMORY recorded
 * as rtn's (nothing appended). */
int shmemi_stream_enqueue_locked(struct shmemx_stream *s, const shmemi_work_t *w) SHMEMI_WUR;
int shmemi_stream_enqueue(struct shmemx_stream *s, const shmemi_work_t *w) SHMEMI_WUR;
/* Waits until the work enqueued so far has executed (the caller holds
 * s->lock, or not for drain); reports nothing. */
void shmemi_stream_wait_executed_locked(struct shmemx_stream *s);
void shmemi_stream_drain(struct shmemx_stream *s);
/* Copies up to max items from the head of the queue into w (the caller
 * holds s->lock): their number. */
size_t shmemi_stream_take(struct shmemx_stream *s, shmemi_work_t *w, size_t max);
/* Removes the n items taken and wakes the threads that wait for them
 * (the caller holds s->lock). */
void shmemi_stream_retire(struct shmemx_stream *s, size_t n);

/* ---- the executor (stream_exec.c) ---- */

/* Runs the n items of w in order (the calling thread is the only one
 * running s's work), completing their puts before it returns. */
void shmemi_stream_run(struct shmemx_stream *s, shmemi_work_t *w, size_t n);
/* Says once per process that a stream shares the default endpoint. */
void shmemi_stream_note_shared(const char *rtn, const char *why);

/* ---- the worker thread (stream_worker.c) ---- */

extern const struct shmemi_stream_kind shmemi_stream_worker_kind;

/* ---- the CUDA kind (stream_cuda.c) ---- */

extern const struct shmemi_stream_kind shmemi_stream_cuda_kind;

/* 1 when s is a CUDA stream. */
static inline int shmemi_stream_is_cuda(const struct shmemx_stream *s)
{
    return s->cu != NULL;
}
/* The checks of a word in the device heap that work on a CUDA stream
 * takes: a signal (is_signal: op is sig_op, pe the target) or a wait
 * (op is cmp, pe -1: this PE's word), size bytes; 0 when addr is not in
 * the device heap or s is not a CUDA stream (*dev_p 0: the caller makes
 * its usual checks), else 0 with *dev_p 1 or the class, recorded. */
int shmemi_stream_cuda_word(const struct shmemx_stream *s, const void *addr, size_t size,
                            int is_signal, int op, int pe, int *dev_p, const char *rtn)
    SHMEMI_WUR;

/* ---- the CUDA kind's offload (stream_cuda_trig.c) ---- */

/* Gives an offloaded CUDA stream its completion word: 0, or -1 when none
 * can be had (the stream then runs its held work on its worker; said
 * once per process). */
int shmemi_stream_cuda_trig_open(struct shmemx_stream *s);
void shmemi_stream_cuda_trig_close(struct shmemx_stream *s);
/* Issues w as triggered operations released by the CUDA stream when it
 * can be (see stream_cuda_trig.c): 0 or the class; 1 when it cannot (the
 * caller holds it for the worker). */
int shmemi_stream_cuda_trig(struct shmemx_stream *s, const shmemi_work_t *w);
/* Holds w for the worker (stream_cuda.c): the CUDA stream releases it
 * and waits until it has executed (the caller holds s->cu_issue). */
int shmemi_stream_cuda_hold(struct shmemx_stream *s, const shmemi_work_t *w);
/* A chain was posted: the worker, asleep with none in flight, wakes to
 * watch it for failures (stream_cuda.c). */
void shmemi_stream_cuda_chain_posted(struct shmemx_stream *s);

/* ---- offload (stream_offload.c) ---- */

/* Makes the stream's triggered queue when the mode and the provider say
 * so: 0 (s->trig set, or NULL for the worker path), or the class recorded
 * as rtn's (mode 1 and none could be made). */
int shmemi_stream_offload_open(struct shmemx_stream *s, int mode, const char *rtn) SHMEMI_WUR;
void shmemi_stream_offload_close(struct shmemx_stream *s);
/* A put, get, put with signal or signal op: to the provider as triggered
 * operations when the stream offloads and the target is not mapped, else
 * to the queue: 0, or the class recorded as the stream's error. */
int shmemi_stream_submit(struct shmemx_stream *s, const shmemi_work_t *w) SHMEMI_WUR;
/* The number the queue gives the next item (caller holds s->lock). */
void shmemi_stream_offload_number(struct shmemx_stream *s, shmemi_work_t *slot);
/* Waits until everything before threshold thr is complete. */
void shmemi_stream_trig_wait(struct shmemx_stream *s, uint64_t thr);
/* Counts one item the executor ran, starting what waits for it. */
void shmemi_stream_trig_done(struct shmemx_stream *s);
/* 1 while triggered work is outstanding (caller holds s->lock). */
int shmemi_stream_trig_busy(struct shmemx_stream *s);
/* Reads the counter: a triggered operation that failed becomes the
 * stream's error and is passed over. */
void shmemi_stream_trig_check(struct shmemx_stream *s);
/* The chain of a CUDA stream's item w (a put, get, put with signal or
 * signal op to a PE that is not mapped, stream_cuda_trig.c): number
 * s->thr is the CUDA stream's release (its host function adds 1 to the
 * counter), w's operations follow it, then a triggered SET of the
 * stream's completion word (off in this PE's SHMEMT_SEG_SELF) to
 * *value_p.  0 when w's first operation was posted: *rest_p 1 when the
 * signal of a put with signal could not be (the worker must do it after
 * the put), *value_p 0 when the word could not be written (an item of
 * the queue must say when the chain is complete); a negative errno when
 * nothing was posted (-ENOTSUP: the worker must do w). */
int shmemi_stream_trig_released(struct shmemx_stream *s, const shmemi_work_t *w, uint64_t off,
                                uint64_t *value_p, int *rest_p) SHMEMI_WUR;

/* ---- CPU placement (stream_cpu.c) ----
 * A worker's affinity as it started (init, on the worker), narrowed to the
 * CPUs where no worker is busy by the thread that wakes it (steer, under
 * the stream's lock), put back and checked when it starts a batch (enter:
 * returns the CPU to hand to leave after the batch). */
void shmemi_stream_cpu_init(struct shmemi_stream_cpu *sc);
void shmemi_stream_cpu_steer(struct shmemi_stream_cpu *sc, pthread_t worker);
int shmemi_stream_cpu_enter(struct shmemi_stream_cpu *sc);
void shmemi_stream_cpu_leave(int cpu);

#endif
