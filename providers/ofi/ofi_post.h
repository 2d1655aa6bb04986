/*
 * libfabric transport, waits and posts (ofi_rma.c): the backoff of a wait,
 * the one bounded retry of a post that the provider refuses for now, and
 * the waits for requests and quiet.
 */
#ifndef SHMEMT_OFI_POST_H
#define SHMEMT_OFI_POST_H

#include "ofi.h"

/* Backoff state of a retry or wait loop. */
typedef struct ofi_wait {
    unsigned long spins;
    uint64_t start_ns;       /* the wait began (0: not yet timed) */
    uint64_t last_change_ns; /* value last moved, or the wait began */
    uint64_t poll_since_ns;  /* polling (again) since: the wait began, value
                              * moved, or traffic woke it */
    uint64_t last_value;
    int yields;              /* after the budget: 1 yields, -1 does not,
                              * 0 not decided (providers/shmemt_spin.h) */
} ofi_wait_t;
void ofi_wait_init(ofi_wait_t *w);
/* One round of waiting: progress, then, once the wait has lasted longer
 * than the spin budget (a time that follows how long this thread's recent
 * waits lasted, see ofi_rma.c), yield or sleep.  value is something that
 * moves when progress is made.  Returns -ETIMEDOUT (and logs, naming what)
 * after the no-progress limit (cfg.timeout_s) without movement. */
int ofi_wait_step(shmemt_ofi_t *o, ofi_wait_t *w, uint64_t value, const char *what);
/* Tells the spin budget how long a wait that ended lasted (a blocking
 * fetching AMO or get: the waits whose length says how soon answers come). */
void ofi_wait_done(shmemt_ofi_t *o, const ofi_wait_t *w);

/* Posting to the provider, which may refuse a post for now (-FI_EAGAIN:
 * its queues are full until progress drains them).  The one retry loop:
 *
 *     ofi_retry_t r;
 *     ofi_retry_init(&r, 0);
 *     do
 *         rc = fi_writemsg(...);
 *     while (ofi_retry(o, &r, &rc, "fi_write"));
 *     if (rc)
 *         return ofi_post_failed(o, &r, rc, "fi_write of %zu bytes to PE %d", len, pe);
 *
 * ofi_retry returns 1 while the post should be made again: it returned
 * -FI_EAGAIN and the calling thread has driven progress once (ofi_wait_step:
 * spins, then yields, then naps).  It is bounded: after limit tries (0: no
 * limit) *rc_p stays -FI_EAGAIN, and after the no-progress limit (cfg.timeout_s) without progress
 * it becomes the wait's error (-ETIMEDOUT, logged by the wait). */
typedef struct ofi_retry {
    ofi_wait_t w;
    unsigned long tries, limit;
    int wait_err;   /* the wait's error that ended the retries, or 0 */
} ofi_retry_t;
static inline void ofi_retry_init(ofi_retry_t *r, unsigned long limit)
{
    ofi_wait_init(&r->w);
    r->tries = 0;
    r->limit = limit;
    r->wait_err = 0;
}
int ofi_retry_wait(shmemt_ofi_t *o, ofi_retry_t *r, ssize_t *rc_p, const char *what);
static inline int ofi_retry(shmemt_ofi_t *o, ofi_retry_t *r, ssize_t *rc_p, const char *what)
{
    if (__builtin_expect(*rc_p != -FI_EAGAIN, 1))
        return 0;
    return ofi_retry_wait(o, r, rc_p, what);
}
/* The end of a post that failed with rc after its retries: logs the
 * message fmt gives with libfabric's reason after it (unless the wait
 * already logged why it gave up) and returns the errno to return: -EIO,
 * or the wait's error. */
int ofi_post_failed(shmemt_ofi_t *o, const ofi_retry_t *r, ssize_t rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int ofi_req_wait(shmemt_ofi_t *o, ofi_req_t *req, const char *what);
/* Posts one write (write 1) or read of len bytes between buf (descriptor
 * desc) and raddr of pe, retried while the provider refuses it for now
 * and counted as issued first (*seq_p, unless NULL: its issued count,
 * which put_done_upto or get_done_upto reach once it is complete); ctx
 * non-NULL asks for a CQ completion that marks that request done; flags
 * add to a write's. */
int ofi_post_rma(shmemt_ofi_t *o, int write, int pe, void *buf, size_t len, void *desc,
                 uint64_t raddr, uint64_t key, uint64_t flags, void *ctx, uint64_t *seq_p);
/* Waits until every operation of o posted so far, by any thread,
 * completed (the counters; put_done_upto and get_done_upto follow) and
 * returns the errors seen since the last drain (the quiet's first step). */
int ofi_drain(shmemt_ofi_t *o);
/* ofi_bounce.c: a blocking put of len bytes (more than the inject size,
 * at most cfg.put_buffered) copied into o's registered ring and posted
 * without a completion: src may be reused at return, quiet completes it.
 * 0, a negative errno, or 1 when o has no ring (then the caller puts and
 * waits). */
int ofi_bounce_put(shmemt_ofi_t *o, int pe, const void *src, size_t len, uint64_t raddr,
                   uint64_t key);
/* Frees o's ring (its endpoint closed first). */
void ofi_bounce_close(shmemt_ofi_t *o);
int ofi_rma_quiet(shmemt_t *t);
/* Records a write or non-fetching atomic posted to pe, for OFI_RC_FLUSH. */
void ofi_note_written(shmemt_ofi_t *o, int pe);

#endif
