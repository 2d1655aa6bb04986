/*
 * Streams, inside the library: the engine (stream.c: the queue, the
 * worker, the offload, sync) runs work items; stream_rma.c defines the RMA
 * and signal routines and the argument checks, stream_coll.c the team
 * synchronizations and collectives.  Every *_on_stream routine checks all
 * of its arguments before it enqueues anything: bad work is refused (not
 * enqueued) and the refusal is what the next shmemx_stream_sync reports.
 */
#ifndef SHMEMI_STREAM_H
#define SHMEMI_STREAM_H

#include "coll/coll.h"

/* Synchronizes and destroys the streams still alive (shmem_finalize). */
void shmemi_streams_fini(void);
/* FABSHMEM_STREAM_OFFLOAD: 0 (off), 1 (on), 2 (auto); ends the job naming
 * rtn and the variable for an unknown value. */
int shmemi_stream_offload_mode(const char *rtn);
/* Which way streams run in this job, for SHMEM_INFO: found by making (and
 * closing) a triggered queue as shmemx_stream_create would. */
const char *shmemi_stream_path(void);

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
    SHMEMI_W_LAUNCH,      /* fn(arg) */
    SHMEMI_W_CALL,        /* call(work): collectives, typed waits */
    SHMEMI_W_EXIT
};

/* One work item.  The queue holds copies, so nothing may point into it. */
struct shmemi_work {
    enum shmemi_wkind kind;
    const char *rtn;   /* the routine that enqueued it, for messages */
    void *dest;
    const void *src;
    size_t len;        /* bytes; strided transfers: of one element */
    size_t nelems;     /* strided transfers and collectives */
    ptrdiff_t dst, sst;
    uint64_t *sig;
    uint64_t value;
    int op;            /* sig_op or cmp */
    int pe;            /* the target; collectives: PE_root */
    shmem_team_t team;
    void (*fn)(void *);
    void *arg;
    void (*call)(const struct shmemi_work *w);
    uint64_t thr;      /* offload: the counter value at which it may start */
    /* A value carried by the item (p: the source; typed waits: the value
     * compared with). */
    union {
        unsigned char b[16];
        long double ld;
        uint64_t u;
    } imm;
};

/* The stream behind a handle; ends the job naming rtn for a handle that is
 * not a live stream (there is no stream to report to). */
struct shmemx_stream *shmemi_stream_get(shmemx_stream_t stream, const char *rtn);

/* Records a refusal (SHMEMX_ERROR_INVALID_VALUE): the first since the last
 * sync is what sync reports; never ends the job. */
void shmemi_stream_refuse(struct shmemx_stream *s, const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends w to the stream for its worker. */
void shmemi_stream_enqueue(struct shmemx_stream *s, const struct shmemi_work *w);

/* A put, get, put with signal or signal op (src set): to the provider as
 * triggered operations when the stream offloads and the target is not
 * mapped, else to the worker. */
void shmemi_stream_submit(struct shmemx_stream *s, const struct shmemi_work *w);

/* Waits until all work enqueued so far has executed; reports nothing (the
 * stream keeps its error for sync).  Not from the stream's own kernels. */
void shmemi_stream_drain(struct shmemx_stream *s);

/* Argument checks (stream_rma.c): 0, or -1 after refusing the work. */
int shmemi_stream_check_pe(struct shmemx_stream *s, int pe, const char *rtn);
/* [addr, addr + len) inside one symmetric object (len 0: anything). */
/* stream_cpu.c: workers that run at the same time on different CPUs.  A
 * worker's affinity as it started (init, on the worker), narrowed to the
 * CPUs where no worker is busy by the thread that wakes it (steer, under
 * the stream's lock), put back and checked when it starts a batch (enter:
 * returns the CPU to hand to leave after the batch). */
#include <sched.h>
#include <pthread.h>
struct shmemi_stream_cpu {
    cpu_set_t allowed;
    int n;        /* CPUs in allowed (0: unknown) */
    int narrowed; /* steer narrowed the worker's affinity */
};
void shmemi_stream_cpu_init(struct shmemi_stream_cpu *sc);
void shmemi_stream_cpu_steer(struct shmemi_stream_cpu *sc, pthread_t worker);
int shmemi_stream_cpu_enter(struct shmemi_stream_cpu *sc);
void shmemi_stream_cpu_leave(int cpu);
int shmemi_stream_check_sym(struct shmemx_stream *s, const void *addr, size_t len,
                            const char *what, const char *rtn);
/* count * size into *bytes_p without overflow; what names count. */
int shmemi_stream_check_bytes(struct shmemx_stream *s, size_t count, size_t size,
                              const char *what, size_t *bytes_p, const char *rtn);
/* A valid team of which this PE is a member. */
int shmemi_stream_check_team(struct shmemx_stream *s, shmem_team_t team, const char *rtn);

#endif
