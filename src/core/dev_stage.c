/*
 * Staging of GPU memory through host memory (docs/gpu.md, "Staging"):
 * how a PE reaches the device heap of a PE that it does not map when the
 * provider cannot move GPU memory itself (no FI_HMEM, or a libfabric built
 * without CUDA).  A provider writes only host memory, and a GPU's memory
 * can only be copied by its own process, so the target takes part: every
 * PE has a staging area of host memory, registered with the transport as
 * segment SHMEMT_SEG_STAGE, with one slot per PE (a request and a chunk of
 * data) and a thread that serves the requests.
 *
 * A staged put of a chunk: the sender puts the request (sequence number,
 * operation, offset, length) and the data into its slot at the target,
 * quiets, and signals the slot's request word with the sequence number;
 * the target's thread sees it, copies the data into its GPU and signals
 * the sender's acknowledgement word for that target; the sender waits for
 * it.  A get: the request alone, the target copies from its GPU into the
 * slot and acknowledges, the sender gets the slot's data.  So every staged
 * transfer is complete at its target when the call returns, and quiet has
 * nothing to wait for.  One transfer at a time per PE (a lock), one chunk
 * in flight per pair of PEs.
 *
 * An atomic on a word of the target's GPU memory (src/core/dev_amo.c):
 * the request alone, with the operation, the width and the operands; the
 * target's thread runs it as the GPU's own atomic (shmemi_cuda_amo),
 * puts the old value into the word after the sender's acknowledgement
 * word, quiets, and acknowledges.  This service exists whenever some PE
 * is not mapped, with FI_HMEM too: the provider's atomics on GPU memory
 * would not be atomic against the kernels' atomics on the same word.
 *
 * The serving thread waits as every wait of the library does
 * (shmemi_wait_backoff: it polls, then yields, then sleeps on the
 * provider's wait object until traffic comes), so an idle PE costs nothing
 * but its naps.
 */
#include "core/sync.h"
#include "core/dev.h"
#include "fabshmem/device/proxy.h"
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

/* The request of a slot, written with its data. */
typedef struct stage_req {
    uint64_t seq;   /* the sender's sequence number for this PE (1, 2, ...) */
    uint64_t op;    /* STAGE_PUT, STAGE_GET or STAGE_AMO */
    uint64_t off;   /* offset in the target's device heap */
    uint64_t len;   /* bytes (at most a chunk; an AMO's width, 4 or 8) */
    uint64_t amo;   /* STAGE_AMO: SHMEMD_AMO_* */
    uint64_t value; /* STAGE_AMO: the operand's bits */
    uint64_t cmp;   /* STAGE_AMO: the compared value's (CSWAP) */
    uint64_t pad;
} stage_req_t;

enum { STAGE_PUT = 1, STAGE_GET = 2, STAGE_AMO = 3 };
#define STAGE_LINE 64

/* The area, the same layout on every PE (n PEs, chunk bytes per slot):
 *   ack[t]:  n lines, written by PE t: 2 * seq (+ 1 if it failed) of this
 *            PE's last request to t that t served, and in word 1 the old
 *            value of an AMO request, put there before the acknowledgement;
 *   req[s]:  n lines, written by PE s: the sequence number of its request;
 *   slot[s]: n slots of a request line and chunk bytes, written and read by PE s;
 *   out:     a request line and chunk bytes, this PE's own bounce buffer.
 * Without slots (no PE is staged) only out exists. */
static struct {
    char *area;
    size_t size, chunk;
    int nslots;
    int registered;  /* the transport knows the area (SHMEMT_SEG_STAGE) */
    int pinned;
    uint64_t *sent;  /* [n]: the last sequence number sent to each PE */
    uint64_t *done;  /* [n]: the last one served for each PE (the thread's) */
    pthread_mutex_t lock;
    pthread_t thread;
    int running;
    _Atomic int stop;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t off_ack(int pe) { return (size_t)pe * STAGE_LINE; }
static size_t off_req(int pe) { return (size_t)(st.nslots + pe) * STAGE_LINE; }
static size_t off_slot(int pe)
{
    return (size_t)2 * st.nslots * STAGE_LINE + (size_t)pe * (STAGE_LINE + st.chunk);
}
static size_t off_out(void) { return off_slot(st.nslots); }

static _Atomic uint64_t *word(size_t off)
{
    return (_Atomic uint64_t *)(void *)(st.area + off);
}

/* Chunk bytes: 64 MiB of slots in all, from 64 KiB to 1 MiB each. */
static size_t stage_chunk(int n_pes)
{
    size_t c = ((size_t)64 << 20) / (size_t)n_pes;

    c = c < ((size_t)64 << 10) ? ((size_t)64 << 10) : c > ((size_t)1 << 20) ? ((size_t)1 << 20) : c;
    return c & ~(size_t)4095;
}

/* ---- the serving side ---- */

/* Whether request r (of sequence number seq) is well formed. */
static int stage_req_ok(const stage_req_t *r, uint64_t seq)
{
    if (r->seq != seq || r->len > st.chunk || !shmemi_dev_off_valid(r->off, r->len))
        return 0;
    if (r->op == STAGE_AMO)
        return (r->len == 4 || r->len == 8) && r->off % r->len == 0 &&
               r->amo >= SHMEMD_AMO_SET && r->amo < SHMEMD_AMO_OPS_;
    return r->op == STAGE_PUT || r->op == STAGE_GET;
}

/* AMO request r of PE s: the GPU's atomic on this PE's word, and its old
 * value put into word 1 of s's acknowledgement line for this PE (from the
 * request's pad, which s does not touch until the acknowledgement), and
 * quieted so that it lands before the acknowledgement.  0 or the class:
 * a failed AMO (recorded), or -errno of the transport. */
static int stage_amo(int s, stage_req_t *r)
{
    shmemt_t *tp = shmemi_g.tp;
    int rc, ret;

    if ((rc = shmemi_cuda_amo(shmemi_g.dheap_base + r->off, (int)r->amo, r->len, r->value,
                              r->cmp, r->amo == SHMEMD_AMO_SET ? NULL : &r->pad, "staging")))
        return rc;
    if (r->amo == SHMEMD_AMO_SET) /* no old value to return */
        return 0;
    ret = tp->ops->put(tp, s, SHMEMT_SEG_STAGE, off_ack(shmemi_g.my_pe) + sizeof(uint64_t),
                       &r->pad, sizeof(uint64_t));
    if (!ret)
        ret = tp->ops->quiet(tp);
    if (ret)
        shmemi_fatal("staging: returning the old value of an atomic to PE %d failed: %s", s,
                     strerror(-ret));
    return 0;
}

/* Serves request seq of PE s: copies between its slot and the GPU (or
 * runs its atomic) and acknowledges.  A failure is logged here and
 * reported to the sender through the acknowledgement. */
static void stage_serve(int s, uint64_t seq)
{
    stage_req_t *r = (stage_req_t *)(void *)(st.area + off_slot(s));
    char *data = st.area + off_slot(s) + STAGE_LINE;
    uint64_t off = r->off, len = r->len;
    int bad = !stage_req_ok(r, seq);
    int rc = 1, ret;

    shmemi_debug("staging: request %llu of PE %d: op %llu, %llu bytes at offset %llu",
                 (unsigned long long)seq, s, (unsigned long long)r->op, (unsigned long long)len,
                 (unsigned long long)off);

    if (bad)
        shmemi_log(SHMEMI_LOG_ERR, "staging: a malformed request %llu from PE %d (op %llu, "
                   "offset %llu, %llu bytes) is refused", (unsigned long long)seq, s,
                   (unsigned long long)r->op, (unsigned long long)off, (unsigned long long)len);
    else if (r->op == STAGE_AMO)
        rc = stage_amo(s, r);
    else if (r->op == STAGE_PUT)
        rc = shmemi_cuda_copy(shmemi_g.dheap_base + off, data, len, "staging");
    else
        rc = shmemi_cuda_copy(data, shmemi_g.dheap_base + off, len, "staging");
    if (rc && !bad)
        shmemi_log_emit(SHMEMI_LOG_ERR, "%s", shmemi_err_last()->msg);
    shmemi_debug("staging: request %llu of PE %d carried out (%d), acknowledging",
                 (unsigned long long)seq, s, rc);
    ret = shmemi_g.tp->ops->signal(shmemi_g.tp, s, SHMEMT_SEG_STAGE, off_ack(shmemi_g.my_pe),
                                   2 * seq + (rc != 0));
    if (ret)
        shmemi_fatal("staging: acknowledging request %llu of PE %d failed: %s",
                     (unsigned long long)seq, s, strerror(-ret));
}

static void *stage_main(void *arg)
{
    unsigned long it = 0;
    int s, served;

    (void)arg;
    shmemi_log_thread("in the staging thread of GPU memory for PEs that do not map it");
    /* The PE's GPU current for the thread's life: it drives the provider,
     * and a provider with FI_HMEM copies GPU memory with the CUDA runtime
     * on whichever thread drives it; without a current context the
     * runtime takes device 0, which cannot read another GPU's device heap
     * (libfabric 1.17.1's shm on two H200: cudaErrorInvalidValue, and the
     * PE read wrong data). */
    (void)shmemi_cuda_push();
    while (!atomic_load_explicit(&st.stop, memory_order_acquire)) {
        served = 0;
        for (s = 0; s < shmemi_g.n_pes; s++) {
            uint64_t seq = atomic_load_explicit(word(off_req(s)), memory_order_acquire);
            if (seq != st.done[s]) {
                stage_serve(s, seq);
                st.done[s] = seq;
                served = 1;
            }
        }
        if (served)
            it = 0;
        else
            shmemi_wait_backoff(&it);
    }
    shmemi_log_thread(NULL);
    return NULL;
}

/* ---- the sending side ---- */

/* Sends request req (and with a put len bytes of data, already in out)
 * to pe and waits for its acknowledgement.  0 or the class, recorded. */
static int stage_request(int pe, stage_req_t *req, size_t len, const char *rtn)
{
    shmemt_t *tp = shmemi_g.tp;
    unsigned long it = 0;
    uint64_t ack;
    int ret;

    shmemi_debug("staging: request %llu to PE %d: op %llu, %llu bytes",
                 (unsigned long long)req->seq, pe, (unsigned long long)req->op,
                 (unsigned long long)req->len);
    memcpy(st.area + off_out(), req, sizeof(*req));
    ret = tp->ops->put(tp, pe, SHMEMT_SEG_STAGE, off_slot(shmemi_g.my_pe), st.area + off_out(),
                       STAGE_LINE + len);
    if (!ret)
        ret = tp->ops->quiet(tp);
    if (!ret)
        ret = tp->ops->signal(tp, pe, SHMEMT_SEG_STAGE, off_req(shmemi_g.my_pe), req->seq);
    if (ret)
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "%s: staging %s%zu bytes of GPU memory %s PE %d failed: %s",
                                rtn, req->op == STAGE_AMO ? "an atomic on " : "", (size_t)req->len,
                                req->op == STAGE_PUT ? "to" : "of", pe, strerror(-ret));
    while ((ack = atomic_load_explicit(word(off_ack(pe)), memory_order_acquire)) < 2 * req->seq)
        shmemi_wait_backoff(&it);
    if (ack != 2 * req->seq)
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: PE %d could not %s %zu bytes of its "
                                "GPU memory at offset %llu (see its message)", rtn, pe,
                                req->op == STAGE_PUT   ? "store"
                                : req->op == STAGE_GET ? "load"
                                                       : "apply an atomic to",
                                (size_t)req->len, (unsigned long long)req->off);
    return 0;
}

/* Copies n bytes between host or GPU memory: the GPU's copy when either
 * side is GPU memory, memcpy otherwise. */
static int stage_copy(void *dst, const void *src, size_t n, int dev, const char *rtn)
{
    if (dev)
        return shmemi_cuda_copy(dst, src, n, rtn);
    memcpy(dst, src, n);
    return 0;
}

int shmemi_dev_staged(void *local, uint64_t off, size_t nbytes, int pe, int is_put,
                      const char *rtn)
{
    char *buf = local, *out = st.area + off_out() + STAGE_LINE;
    int dev = shmemi_cuda_is_device(local), rc = 0;
    stage_req_t req = { 0 };
    size_t done, len;

    pthread_mutex_lock(&st.lock);
    for (done = 0; done < nbytes && !rc; done += len) {
        len = nbytes - done < st.chunk ? nbytes - done : st.chunk;
        req = (stage_req_t){ .seq = ++st.sent[pe], .op = is_put ? STAGE_PUT : STAGE_GET,
                             .off = off + done, .len = len };
        if (is_put && (rc = stage_copy(out, buf + done, len, dev, rtn)))
            break;
        if ((rc = stage_request(pe, &req, is_put ? len : 0, rtn)) || is_put)
            continue;
        rc = shmemi_g.tp->ops->get(shmemi_g.tp, pe, SHMEMT_SEG_STAGE, off_slot(shmemi_g.my_pe) +
                                   STAGE_LINE, out, len);
        if (rc)
            rc = shmemi_err_fatal(shmemi_status_from_errno(rc, SHMEMX_ERROR_TRANSPORT), "%s: get "
                                  "of %zu staged bytes from PE %d failed: %s", rtn, len, pe,
                                  strerror(-rc));
        else
            rc = stage_copy(buf + done, out, len, dev, rtn);
    }
    pthread_mutex_unlock(&st.lock);
    return rc;
}

int shmemi_dev_staged_amo(uint64_t off, int amo, size_t width, uint64_t value, uint64_t cmp,
                          uint64_t *old, int pe, const char *rtn)
{
    stage_req_t req;
    int rc;

    if (!st.nslots)
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: internal: no staging service for an "
                                "atomic on GPU memory of PE %d", rtn, pe);
    pthread_mutex_lock(&st.lock);
    req = (stage_req_t){ .seq = ++st.sent[pe], .op = STAGE_AMO, .off = off, .len = width,
                         .amo = (uint64_t)amo, .value = value, .cmp = cmp };
    rc = stage_request(pe, &req, 0, rtn);
    /* Put by pe before its acknowledgement, which stage_request loaded
     * with acquire. */
    if (!rc && old)
        *old = atomic_load_explicit(word(off_ack(pe) + sizeof(uint64_t)), memory_order_relaxed);
    pthread_mutex_unlock(&st.lock);
    return rc;
}

char *shmemi_dev_bounce_get(size_t *len_p)
{
    pthread_mutex_lock(&st.lock);
    *len_p = st.chunk;
    return st.area + off_out() + STAGE_LINE;
}

void shmemi_dev_bounce_put(void)
{
    pthread_mutex_unlock(&st.lock);
}

/* ---- setup ---- */

/* Registers the area with the transport and exchanges its card with every
 * PE (collective): 0 or the class, recorded. */
static int stage_register(const char *rtn)
{
    shmemt_t *tp = shmemi_g.tp;
    uint64_t me[3], *all;
    int ret, pe;

    if ((ret = tp->ops->seg_reg(tp, SHMEMT_SEG_STAGE, st.area, st.size, me)))
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT), "%s: "
                                "registering the staging area of GPU memory (%zu bytes) with the "
                                "%s provider failed: %s", rtn, st.size, tp->prov_name,
                                strerror(-ret));
    st.registered = 1;
    all = malloc(sizeof(me) * (size_t)shmemi_g.n_pes);
    if (!all)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    if (shmemi_g.boot->allgather(shmemi_g.boot, me, all, sizeof(me))) {
        free(all);
        return shmemi_err_fatal(SHMEMX_ERROR_BOOTSTRAP, "%s: the exchange of the staging areas "
                                "failed", rtn);
    }
    for (pe = 0; pe < shmemi_g.n_pes && !ret; pe++)
        ret = tp->ops->seg_peer(tp, SHMEMT_SEG_STAGE, pe, &all[3 * pe]);
    free(all);
    if (ret)
        return shmemi_err_fatal(SHMEMX_ERROR_TRANSPORT, "%s: recording the staging areas "
                                "failed: %s", rtn, strerror(-ret));
    return 0;
}

/* The serving thread, over a transport that several threads may call. */
static int stage_start(const char *rtn)
{
    int ret = shmemi_tp_serialize();

    if (ret)
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_INTERNAL), "%s: "
                                "cannot serialize the calls into the %s provider: %s", rtn,
                                shmemi_g.tp->prov_name, strerror(-ret));
    atomic_store(&st.stop, 0);
    ret = pthread_create(&st.thread, NULL, stage_main, NULL);
    if (ret)
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: pthread_create of the staging "
                                "thread: %s", rtn, strerror(ret));
    st.running = 1;
    return 0;
}

int shmemi_dev_stage_init(int slots, const char *rtn)
{
    int n = shmemi_g.n_pes;
    void *p;

    st.chunk = stage_chunk(n);
    st.nslots = slots ? n : 0;
    st.size = off_out() + STAGE_LINE + st.chunk;
    p = mmap(NULL, st.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    st.sent = calloc((size_t)n, sizeof(uint64_t));
    st.done = calloc((size_t)n, sizeof(uint64_t));
    if (p == MAP_FAILED || !st.sent || !st.done) {
        if (p != MAP_FAILED)
            munmap(p, st.size);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the staging "
                                "area of GPU memory (%zu bytes)", rtn, st.size);
    }
    st.area = p;
    st.pinned = shmemi_cuda_pin(st.area, st.size) == 0;
    if (!slots)
        return 0;
    int rc = stage_register(rtn);
    return rc ? rc : stage_start(rtn);
}

void shmemi_dev_stage_fini(void)
{
    if (st.running) {
        atomic_store(&st.stop, 1);
        pthread_join(st.thread, NULL);
        st.running = 0;
    }
    if (st.registered && shmemi_g.tp)
        shmemi_g.tp->ops->seg_dereg(shmemi_g.tp, SHMEMT_SEG_STAGE);
    st.registered = 0;
    if (st.area) {
        if (st.pinned)
            shmemi_cuda_unpin(st.area);
        munmap(st.area, st.size);
    }
    free(st.sent);
    free(st.done);
    st.area = NULL;
    st.sent = st.done = NULL;
    st.pinned = 0;
    st.nslots = 0;
}
