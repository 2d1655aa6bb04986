/*
 * libfabric transport, buffered blocking puts.  A blocking put needs only
 * its source reusable when it returns, not its completion: one of more
 * than the inject size and at most cfg.put_buffered bytes is copied into
 * registered memory of its endpoint (transport), posted as a non-blocking
 * put is (no CQ completion: put_cntr counts it), and returns.  The next
 * quiet, fence or barrier completes it as it completes the non-blocking
 * ones: the write is counted as issued before it is posted (ofi_rma.c, the
 * accounting note).  Before, such a put waited for its own completion,
 * which over tcp;ofi_rxm means an acknowledgement from a target that
 * applies writes only when it drives progress: about 8,000 puts a second
 * from 128 bytes up, against 30,000 to 90,000 non-blocking
 * (docs/design/transport.md, "Buffered puts").
 *
 * The memory is a ring of bytes, made and registered the first time a put
 * needs it (a context that never makes a medium blocking put costs
 * nothing), with a ring of entries, one per put: where its bytes end and
 * its number among the writes issued on the endpoint.  A quiet (any drain
 * of the endpoint: ofi_drain) that finds the writes complete up to issued
 * count n (put_done_upto) frees every entry numbered n or less, at the
 * tail, in order, when the next put takes space.  When the ring is full
 * the put drains the endpoint itself (waits, driving progress, until every
 * operation issued so far completed: the old code waited for each of these
 * puts at its own return, so no new dependency between PEs) and an error
 * that drain finds is kept for the next quiet.  A lock guards the two
 * rings (SHMEM_THREAD_MULTIPLE); the copy and the post run outside it, an
 * entry not yet posted holding the tail.
 */
#include "ofi.h"
#include "ofi_mr.h"
#include "ofi_post.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Puts in the ring at once on one endpoint at the most (a power of two):
 * a full ring costs a drain, so this is many; 512 of the smallest (65
 * bytes over tcp) take 32 KiB. */
#define OFI_BOUNCE_NENT 512
/* The ring holds this many puts of the largest size, and at least
 * OFI_BOUNCE_MIN_BYTES. */
#define OFI_BOUNCE_DEPTH 16
#define OFI_BOUNCE_MIN_BYTES (1024 * 1024)
/* The number of an entry whose put is not posted yet (never complete). */
#define OFI_BOUNCE_UNPOSTED UINT64_MAX

typedef struct ofi_bounce_ent {
    _Atomic uint64_t seq; /* the write's issued count, or OFI_BOUNCE_UNPOSTED */
    size_t end;           /* ring position (monotonic) where its bytes end */
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

/* Under b->lock: frees the entries at the tail that a drain found
 * complete, then takes len bytes and an entry; the address (and *ent_p)
 * or NULL when the ring is full. */
static char *ofi_bounce_take(shmemt_ofi_t *o, struct ofi_bounce *b, size_t len,
                             ofi_bounce_ent_t **ent_p)
{
    uint64_t done = atomic_load_explicit(&o->put_done_upto, memory_order_acquire);
    ofi_bounce_ent_t *e;
    size_t pos, pad;

    while (b->tail != b->head) {
        e = &b->ent[b->tail % OFI_BOUNCE_NENT];
        if (atomic_load_explicit(&e->seq, memory_order_acquire) > done)
            break;
        OFI_HB_COUNTED(o);
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
    atomic_store_explicit(&e->seq, OFI_BOUNCE_UNPOSTED, memory_order_relaxed);
    b->bhead += pad + len;
    e->end = b->bhead;
    b->head++;
    *ent_p = e;
    return b->buf + (pos + pad) % b->size;
}

int ofi_bounce_put(shmemt_ofi_t *o, int pe, const void *src, size_t len, uint64_t raddr,
                   uint64_t key)
{
    struct ofi_bounce *b = ofi_bounce_get(o);
    ofi_bounce_ent_t *e = NULL;
    uint64_t seq = 0;
    int ret, err = 0, tries = 0;
    char *p;

    if (!b)
        return 1;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        p = ofi_bounce_take(o, b, len, &e);
        pthread_mutex_unlock(&b->lock);
        if (p)
            break;
        /* A drain that failed and freed nothing (its wait gave up): the
         * put fails with its error. */
        if (err)
            return err;
        /* Full: complete what was issued, as a quiet would.  Entries that
         * other threads took and have not posted yet hold the tail until
         * they do. */
        err = ofi_drain(o);
        if (++tries > 1)
            sched_yield();
    }
    /* What the drain found failed is the next quiet's to report. */
    if (err)
        ofi_keep_err(o, err);
    memcpy(p, src, len);
    ret = ofi_post_rma(o, 1, pe, p, len, b->desc, raddr, key, 0, NULL, &seq);
    /* A post that failed was counted as issued and failed: complete too. */
    atomic_store_explicit(&e->seq, seq, memory_order_release);
    return ret;
}

void ofi_bounce_close(shmemt_ofi_t *o)
{
    struct ofi_bounce *b = atomic_exchange(&o->bounce, NULL);

    if (b)
        ofi_bounce_free(o, b);
}
