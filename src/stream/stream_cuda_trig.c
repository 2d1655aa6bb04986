/*
 * The offload of a CUDA stream (docs/gpu.md, "CUDA streams"): where the
 * provider has triggered operations (FABSHMEM_STREAM_OFFLOAD, as for CPU
 * streams), a put, get, put with signal or signal op on a CUDA stream to
 * a PE that is not mapped, between host buffers, is not held for the
 * stream's worker thread.  The enqueuing thread posts it at once as a
 * chain on the stream's triggered queue (stream_offload.c):
 *
 *   release   the CUDA stream's host function adds 1 to the counter when
 *             the stream reaches it (the work before it on the stream is
 *             done: the data a kernel or a copy wrote is there);
 *   the data  the triggered put, get or signal (a put with signal: the
 *             put, then the signal), which the provider starts when the
 *             counter passes the release;
 *   the word  a triggered SET, to this PE itself, of the stream's
 *             completion word to the count after the chain, started when
 *             the data is complete at its target;
 *
 * and the CUDA stream then waits until the word holds that count
 * (cuStreamWaitValue64 on pinned host memory), so that what the program
 * queues after it finds the put delivered, the get's data in place.  No
 * thread of the library is in the loop: the provider moves the data and
 * writes the word by itself.  The words are one pinned page, registered
 * with the provider as SHMEMT_SEG_SELF (only this PE writes it; no
 * exchange), one word a stream.
 *
 * GPU memory (of this PE, or the target's device heap) is not the
 * provider's to move without FI_HMEM, and the staging of GPU memory needs
 * a host thread anyway: that work, a p (its value lives in the item),
 * and whatever the provider cannot trigger is held for the worker as
 * before.  A triggered operation that fails stops its chain until the
 * counter is moved past it: the stream's worker, while chains are in
 * flight, and its sync and query, while the CUDA stream is busy, look for
 * that (shmemi_stream_trig_check), make it the stream's error and let the
 * chain go on, so that the CUDA stream never waits forever.
 */
#include "stream/stream_int.h"
#include "core/dev.h"
#include <errno.h>

/* One page of 8-byte words: the offloaded CUDA streams a process may
 * have at once (more run their held work on their workers; the message
 * of note_no_word says 512). */
#define WORDS 512

static pthread_mutex_t words_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *words;         /* pinned, SHMEMT_SEG_SELF; NULL: not made */
static unsigned char taken[WORDS];
static int users;

/* Says once per process why CUDA streams do not offload. */
static void note_no_word(const char *why)
{
    static int noted;

    if (__atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED))
        return;
    shmemi_log(SHMEMI_LOG_WARN, "shmemx_stream_create_cuda: %s: the CUDA stream's work for PEs "
               "that are not mapped runs on its worker thread (shmemx_stream_offloaded says "
               "which way each stream runs)", why);
}

/* Makes the page and registers it (words_lock held): 0 or -1, said. */
static int words_make(void)
{
    shmemt_t *tp = shmemi_g.tp;
    uint64_t card[3];
    char why[1280];
    int ret;

    if (!(words = shmemi_cuda_host_alloc(WORDS * sizeof(uint64_t), "shmemx_stream_create_cuda"))) {
        snprintf(why, sizeof(why), "no pinned page for the completion words (%s)",
                 shmemi_err_last()->msg);
        shmemi_err_clear();
        note_no_word(why);
        return -1;
    }
    ret = tp->ops->seg_reg ? tp->ops->seg_reg(tp, SHMEMT_SEG_SELF, words, WORDS * sizeof(uint64_t),
                                              card) : -ENOSYS;
    if (!ret && (ret = tp->ops->seg_peer(tp, SHMEMT_SEG_SELF, shmemi_g.my_pe, card)))
        tp->ops->seg_dereg(tp, SHMEMT_SEG_SELF);
    if (ret) {
        shmemi_cuda_host_free(words);
        words = NULL;
        snprintf(why, sizeof(why), "the %s provider did not register the completion words (%s)",
                 tp->prov_name, strerror(-ret));
        note_no_word(why);
        return -1;
    }
    return 0;
}

int shmemi_stream_cuda_trig_open(struct shmemx_stream *s)
{
    int i = 0;

    s->cu_word = NULL;
    pthread_mutex_lock(&words_lock);
    if (words || words_make() == 0) {
        for (i = 0; i < WORDS && taken[i]; i++)
            ;
        if (i < WORDS) {
            taken[i] = 1;
            users++;
            words[i] = 0; /* the stream's chains count from 0 */
            s->cu_word = &words[i];
            s->cu_word_off = (uint64_t)i * sizeof(uint64_t);
        } else {
            note_no_word("every completion word is taken (512 offloaded CUDA streams at "
                         "once)");
        }
    }
    pthread_mutex_unlock(&words_lock);
    return s->cu_word ? 0 : -1;
}

void shmemi_stream_cuda_trig_close(struct shmemx_stream *s)
{
    if (!s->cu_word)
        return;
    pthread_mutex_lock(&words_lock);
    taken[s->cu_word_off / sizeof(uint64_t)] = 0;
    s->cu_word = NULL;
    if (--users == 0) {
        shmemi_g.tp->ops->seg_dereg(shmemi_g.tp, SHMEMT_SEG_SELF);
        shmemi_cuda_host_free(words);
        words = NULL;
    }
    pthread_mutex_unlock(&words_lock);
}

/* 1 when the remote range at PE pe is the provider's: not mapped here,
 * not GPU memory. */
static int remote_ok(const void *r, size_t len, int pe)
{
    uint64_t off;

    return !shmemi_direct(r, len, pe) && !shmemi_dev_range(r, len, &off);
}

/* 1 when w can be a chain (see the top). */
static int chain_ok(const shmemi_work_t *w)
{
    switch (w->kind) {
    case SHMEMI_W_PUT:
        return w->src && w->len && remote_ok(w->dest, w->len, w->pe) &&
               !shmemi_dev_is_gpu(w->src, w->len);
    case SHMEMI_W_GET:
        return w->len && remote_ok(w->src, w->len, w->pe) && !shmemi_dev_is_gpu(w->dest, w->len);
    case SHMEMI_W_PUT_SIGNAL:
        return w->len && remote_ok(w->dest, w->len, w->pe) &&
               !shmemi_dev_is_gpu(w->src, w->len) && remote_ok(w->sig, sizeof(uint64_t), w->pe);
    case SHMEMI_W_SIGNAL_OP:
        return remote_ok(w->sig, sizeof(uint64_t), w->pe);
    default:
        return 0;
    }
}

/* The host function of a chain: the CUDA stream reached it. */
static void cu_trig_release(void *arg)
{
    shmemi_stream_trig_done(arg);
}

int shmemi_stream_cuda_trig(struct shmemx_stream *s, const shmemi_work_t *w)
{
    uint64_t v;
    int rest, ret, rc;
    shmemi_work_t more;

    if (!s->cu_word || !chain_ok(w))
        return 1;
    ret = shmemi_stream_trig_released(s, w, s->cu_word_off, &v, &rest);
    if (ret == -ENOTSUP)
        return 1;
    if (ret)
        return shmemi_err(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT), w->rtn,
                          "the provider refused the triggered %s PE %d (%s)",
                          w->kind == SHMEMI_W_GET ? "get from" : w->kind == SHMEMI_W_SIGNAL_OP
                          ? "signal to" : "put to", w->pe, strerror(-ret));
    shmemi_stream_cuda_chain_posted(s);
    if ((rc = shmemi_cuda_host_fn_on(s->cu, cu_trig_release, s, w->rtn))) {
        /* Posted, and nothing will release it: release it now (unordered,
         * and the stream's error says so), so that what follows runs. */
        shmemi_stream_trig_done(s);
        return rc;
    }
    if (rest || !v) {
        /* The signal the provider could not trigger, or an item that says
         * when the chain is complete, is the worker's after the chain. */
        more = *w;
        more.kind = rest ? SHMEMI_W_SIGNAL_OP : SHMEMI_W_QUIET;
        return shmemi_stream_cuda_hold(s, &more);
    }
    return shmemi_cuda_wait_on(s->cu, (const void *)s->cu_word, sizeof(uint64_t), 0, SHMEM_CMP_GE,
                               v, w->rtn);
}
