/*
 * libfabric transport, buffered blocking puts.  A blocking put needs only
 * its source reusable when it returns, not its completion: one of more
 * than the inject size and at most cfg.put_buffered bytes is copied into
 * registered memory of its endpoint (transport), posted like a
 * non-blocking put, and returns.  The next quiet, fence or barrier
 * completes it as it completes the non-blocking ones: the write is counted
 * as issued before it is posted and put_cntr counts it (ofi_rma.c, the
 * accounting note).  Before, such a put waited for its own completion,
 * which over tcp;ofi_rxm means an acknowledgement from a target that
 * applies writes only when it drives progress: about 8,000 puts a second
 * from 128 bytes up, against 30,000 to 90,000 non-blocking
 * (docs/design/transport.md, "Buffered puts").
 *
 * The memory is a ring of bytes, made and registered the first time a put
 * needs it (a context that never makes a medium blocking put costs
 * nothing), with a ring of entries, one per put in flight.  Each entry's
 * request is the write's context: whoever reads the CQ marks it done, and
 * a put that takes space first frees the entries done at the tail, in
 * order.  When the ring is full the put drives progress until the oldest
 * entry completes (ofi_wait_step: a wait the old code made anyway, for
 * this put or an earlier one, so no new dependency between PEs).  A lock
 * guards the two rings (SHMEM_THREAD_MULTIPLE); the copy and the post run
 * outside it.
 */
#include "ofi.h"
#include "ofi_mr.h"
#include "ofi_post.h"
#include <stdlib.h>
#include <string.h>

/* Puts in flight at once on one endpoint (a power of two; below the
 * queue sizes of a context's endpoint and CQ, OFI_CHILD_TX_SIZE, so that
 * their completions fit the CQ unread). */
#define OFI_BOUNCE_NENT 128
/* The ring holds this many puts of the largest size, and at least
 * OFI_BOUNCE_MIN_BYTES. */
#define OFI_BOUNCE_DEPTH 16
#define OFI_BOUNCE_MIN_BYTES (1024 * 1024)

typedef struct ofi_bounce_ent {
    ofi_req_t req;   /* the write's context */
    size_t end;      /* ring position (monotonic) where its bytes end */
} ofi_bounce_ent_t;

struct ofi_bounce {
    pthread_mutex_t lock;
    char *buf;
    size_t size;
    struct fid_mr *mr;
    void *desc;
    /* Under lock: entries [tail, head) and bytes [btail, bhead) in use
     * (monotonic counts; position = count % size). */
    uint64_t head, tail;
    size_t bhead, btail;
    ofi_bounce_ent_t ent[OFI_BOUNCE_NENT];
};

static void ofi_bounce_free(shmemt_ofi_t *o, struct ofi_bounce *b)
{
    (void)o;
    if (b->mr)
        fi_close(&b->mr->fid);
    free(b->buf);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

/* The ring of o, made and registered at the first call; NULL when it
 * cannot be (no memory, a refused registration: logged once, and the puts
 * then wait for their completion as before). */
static struct ofi_bounce *ofi_bounce_get(shmemt_ofi_t *o)
{
    struct ofi_bounce *b = atomic_load_explicit(&o->bounce, memory_order_acquire), *none = NULL;
    size_t size;

    if (__builtin_expect(b != NULL, 1) || atomic_load_explicit(&o->bounce_off, memory_order_relaxed))
        return b;
    size = o->cfg.put_buffered * OFI_BOUNCE_DEPTH;
    if (size < OFI_BOUNCE_MIN_BYTES)
        size = OFI_BOUNCE_MIN_BYTES;
    size = (size + 4095) & ~(size_t)4095;
    b = calloc(1, sizeof(*b));
    if (b) {
        pthread_mutex_init(&b->lock, NULL);
        b->size = size;
        b->buf = aligned_alloc(4096, size);
    }
    if (!b || !b->buf || ofi_mr_reg(o, b->buf, size, FI_READ | FI_WRITE, &b->mr)) {
        if (b)
            ofi_bounce_free(o, b);
        if (!atomic_exchange(&o->bounce_off, 1))
            ofi_info_log(o, "ofi: no registered buffer of %zu bytes for blocking puts: they "
                            "wait for their completion", size);
        return NULL;
    }
    b->desc = fi_mr_desc(b->mr);
    /* Two threads may make one at once: the first one kept wins. */
    if (!atomic_compare_exchange_strong(&o->bounce, &none, b)) {
        ofi_bounce_free(o, b);
        b = none;
    }
    return b;
}

/* Under b->lock: frees the entries done at the tail, then takes len bytes
 * and an entry; the address (and *req_p) or NULL when the ring is full. */
static char *ofi_bounce_take(shmemt_ofi_t *o, struct ofi_bounce *b, size_t len, ofi_req_t **req_p)
{
    ofi_bounce_ent_t *e;
    size_t pos, pad;

    while (b->tail != b->head) {
        e = &b->ent[b->tail % OFI_BOUNCE_NENT];
        if (!atomic_load_explicit(&e->req.done, memory_order_acquire))
            break;
        /* A failed write also counts on put_cntr's errors, which quiet
         * reports; keep it in case (the CQ entry was logged). */
        if (e->req.err)
            ofi_keep_err(o, e->req.err);
        b->btail = e->end;
        b->tail++;
    }
    if (b->tail == b->head)
        b->bhead = b->btail = 0;
    if (b->head - b->tail == OFI_BOUNCE_NENT)
        return NULL;
    /* Contiguous bytes: a put that would wrap starts at 0 instead. */
    pos = b->bhead % b->size;
    pad = pos + len > b->size ? b->size - pos : 0;
    if (b->bhead + pad + len - b->btail > b->size)
        return NULL;
    e = &b->ent[b->head % OFI_BOUNCE_NENT];
    atomic_store_explicit(&e->req.done, 0, memory_order_relaxed);
    e->req.err = 0;
    b->bhead += pad + len;
    e->end = b->bhead;
    b->head++;
    *req_p = &e->req;
    return b->buf + (pos + pad) % b->size;
}

int ofi_bounce_put(shmemt_ofi_t *o, int pe, const void *src, size_t len, uint64_t raddr,
                   uint64_t key)
{
    struct ofi_bounce *b = ofi_bounce_get(o);
    ofi_req_t *req = NULL;
    ofi_wait_t w;
    uint64_t freed;
    char *p;
    int ret;

    if (!b)
        return 1;
    ofi_wait_init(&w);
    for (;;) {
        pthread_mutex_lock(&b->lock);
        p = ofi_bounce_take(o, b, len, &req);
        freed = b->tail;
        pthread_mutex_unlock(&b->lock);
        if (p)
            break;
        /* Full: drive progress until the oldest put completes. */
        ret = ofi_wait_step(o, &w, freed, "put (waiting for a buffer)");
        if (ret)
            return ret;
    }
    memcpy(p, src, len);
    ret = ofi_post_rma(o, 1, pe, p, len, b->desc, raddr, key, 0, req);
    if (ret)
        atomic_store_explicit(&req->done, 1, memory_order_release);
    return ret;
}

void ofi_bounce_close(shmemt_ofi_t *o)
{
    struct ofi_bounce *b = atomic_exchange(&o->bounce, NULL);

    if (b)
        ofi_bounce_free(o, b);
}
