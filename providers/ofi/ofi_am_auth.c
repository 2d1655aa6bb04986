/*
 * libfabric transport: who may send an active message (ofi_am.h says how).
 *
 * Keys and MACs, the streams that number what a transport sends, the
 * windows that refuse a number seen before, and the tables that replies
 * name their requests in.  Everything here belongs to the default
 * transport (the root); contexts borrow a stream from it.
 */
#include "ofi_am.h"
#include "ofi_mr.h"
#include <endian.h>
#include <stdlib.h>
#include <string.h>

/* ---- SipHash-2-4 (Aumasson and Bernstein, 2012) ---- */

#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                      \
    do {                                                                              \
        v0 += v1; v1 = ROTL64(v1, 13); v1 ^= v0; v0 = ROTL64(v0, 32);                 \
        v2 += v3; v3 = ROTL64(v3, 16); v3 ^= v2;                                      \
        v0 += v3; v3 = ROTL64(v3, 21); v3 ^= v0;                                      \
        v2 += v1; v1 = ROTL64(v1, 17); v1 ^= v2; v2 = ROTL64(v2, 32);                 \
    } while (0)

uint64_t ofi_siphash(const uint64_t k[2], const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t v0 = 0x736f6d6570736575ull ^ k[0], v1 = 0x646f72616e646f6dull ^ k[1];
    uint64_t v2 = 0x6c7967656e657261ull ^ k[0], v3 = 0x7465646279746573ull ^ k[1];
    uint64_t m, b = (uint64_t)len << 56;
    size_t i, end = len & ~(size_t)7;

    for (i = 0; i < end; i += 8) {
        memcpy(&m, p + i, 8);
        m = le64toh(m);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    switch (len & 7) {
    case 7: b |= (uint64_t)p[i + 6] << 48; /* fall through */
    case 6: b |= (uint64_t)p[i + 5] << 40; /* fall through */
    case 5: b |= (uint64_t)p[i + 4] << 32; /* fall through */
    case 4: b |= (uint64_t)p[i + 3] << 24; /* fall through */
    case 3: b |= (uint64_t)p[i + 2] << 16; /* fall through */
    case 2: b |= (uint64_t)p[i + 1] << 8;  /* fall through */
    case 1: b |= (uint64_t)p[i]; break;
    default: break;
    }
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* The MAC of a message whose number is seq: over the message with the
 * high half of seq in the MAC's place (h->mac is overwritten). */
static uint64_t am_mac(const uint64_t key[2], ofi_am_hdr_t *h, size_t len, uint64_t seq)
{
    h->mac = seq >> 32;
    return ofi_siphash(key, h, len);
}

/* ---- Windows: the numbers a receiver has seen ---- */

#define OFI_AM_WINDOW 64

/* Of one sender's stream: the highest number accepted, and bit i set when
 * top - i was seen (bit 0: top itself).  Numbers start at 1. */
struct ofi_am_win {
    uint64_t top;
    uint64_t seen;
};

/* Of one sender: a window per stream it has used, [n]. */
struct ofi_am_rx {
    int n;
    struct ofi_am_win w[];
};

/* The full number that low, the header's half, stands for: the one
 * nearest to top. */
static uint64_t am_seq_full(uint64_t top, uint32_t low)
{
    uint64_t s = (top & ~0xffffffffull) | low;

    if (s > top && s - top > 0x80000000ull && s >= 0x100000000ull)
        s -= 0x100000000ull;
    else if (s < top && top - s > 0x80000000ull)
        s += 0x100000000ull;
    return s;
}

/* The window of (pe, stream), made when the sender first uses the stream;
 * NULL when out of memory. */
static struct ofi_am_win *am_win(shmemt_ofi_t *o, uint32_t pe, unsigned stream)
{
    struct ofi_am_rx *rx = o->am_rx[pe], *nrx;
    int n;

    if (rx && (int)stream < rx->n)
        return &rx->w[stream];
    n = rx ? rx->n : 0;
    nrx = realloc(rx, sizeof(*nrx) + (stream + 1) * sizeof(nrx->w[0]));
    if (!nrx)
        return NULL;
    memset(&nrx->w[n], 0, (stream + 1 - (unsigned)n) * sizeof(nrx->w[0]));
    nrx->n = (int)stream + 1;
    o->am_rx[pe] = nrx;
    return &nrx->w[stream];
}

/* ---- Sending ---- */

/* Seals h for pe as the next message of st and posts it from o's endpoint. */
static ssize_t am_post(shmemt_ofi_t *o, struct ofi_am_stream *st, int pe, ofi_am_hdr_t *h,
                       size_t len, const struct fi_msg *msg)
{
    uint64_t seq;
    ssize_t rc;

    pthread_mutex_lock(&st->lock);
    seq = st->seq[pe] + 1;
    h->stream = st->idx;
    h->seq = (uint32_t)seq;
    h->mac = o->q.same_user ? 0 : am_mac(o->am_peer_key[pe], h, len, seq);
    rc = msg ? fi_sendmsg(o->ep, msg, FI_COMPLETION) : fi_inject(o->ep, h, len, o->addr[pe]);
    if (rc == 0)
        st->seq[pe] = seq;
    pthread_mutex_unlock(&st->lock);
    return rc;
}

ssize_t ofi_am_post_sealed(shmemt_ofi_t *o, int pe, ofi_am_hdr_t *h, size_t len,
                           const struct fi_msg *msg)
{
    return am_post(o, o->am_st, pe, h, len, msg);
}

ssize_t ofi_am_post_reply(shmemt_ofi_t *o, int pe, ofi_am_hdr_t *h)
{
    return am_post(o, o->am_reply_st, pe, h, sizeof(*h), NULL);
}

/* ---- Receiving ---- */

const char *ofi_am_verify(shmemt_ofi_t *o, ofi_am_hdr_t *h, size_t len)
{
    struct ofi_am_win *w;
    uint64_t mac, seq, d;
    size_t want;

    if (len < sizeof(*h))
        return "shorter than a header";
    if (h->src_pe >= (uint32_t)o->n_pes)
        return "names no PE of the job";
    if (h->stream >= OFI_AM_MAX_STREAMS)
        return "names no stream";
    if (h->type == OFI_AM_REPLY)
        want = sizeof(*h);
    else if (h->type == OFI_AM_REQ_AMO || h->type == OFI_AM_REQ_PUTSIG)
        want = h->len >= 0 && h->len <= OFI_AM_BUF ? sizeof(*h) + (size_t)h->len : 0;
    else
        return "of no known type";
    if (len != want)
        return "of a length its header does not give";
    /* The number first, for the MAC covers its high half. */
    w = o->am_rx[h->src_pe] && h->stream < o->am_rx[h->src_pe]->n ?
        &o->am_rx[h->src_pe]->w[h->stream] : NULL;
    seq = am_seq_full(w ? w->top : 0, h->seq);
    mac = h->mac;
    if (!o->q.same_user && am_mac(o->am_key, h, len, seq) != mac)
        return "failed authentication (a process outside the job, or a message altered)";
    /* Authentic: only now may it cost memory. */
    if (!w && !(w = am_win(o, h->src_pe, h->stream))) {
        o->fatal("ofi: out of memory for the window of an active-message stream");
        return "out of memory";
    }
    if (seq == 0)
        return "a replay (number 0)";
    if (seq > w->top) {
        d = seq - w->top;
        w->seen = d >= OFI_AM_WINDOW ? 0 : w->seen << d;
        w->seen |= 1;
        w->top = seq;
        return NULL;
    }
    d = w->top - seq;
    if (d >= OFI_AM_WINDOW)
        return "a replay (older than the window)";
    if (w->seen & (1ull << d))
        return "a replay (number seen before)";
    w->seen |= 1ull << d;
    return NULL;
}

void ofi_am_dropped(shmemt_ofi_t *o, const ofi_am_hdr_t *h, size_t len, const char *why)
{
    uint64_t n = atomic_fetch_add(&o->am_dropped, 1);
    int whole = len >= sizeof(*h);

    /* The first one is reported, the others only counted (and shown with
     * SHMEM_DEBUG), so that a flood does not flood the output too. */
    ofi_log(&o->log, n ? SHMEMT_LOG_DEBUG : SHMEMT_LOG_WARN,
            "ofi: dropped an active message (%zu bytes, type %u, claims PE %u stream %u "
            "number %u): %s%s", len, whole ? h->type : 0, whole ? h->src_pe : 0,
            whole ? h->stream : 0, whole ? h->seq : 0, why,
            n ? "" : "; further ones are dropped and counted, and the count is printed at "
                     "finalize");
}

/* ---- Streams ---- */

static struct ofi_am_stream *am_stream_new(shmemt_ofi_t *root, int idx)
{
    struct ofi_am_stream *st = calloc(1, sizeof(*st));

    if (!st)
        return NULL;
    st->seq = calloc((size_t)root->n_pes, sizeof(*st->seq));
    if (!st->seq) {
        free(st);
        return NULL;
    }
    pthread_mutex_init(&st->lock, NULL);
    st->idx = (uint16_t)idx;
    st->gen = 1;
    return st;
}

static void am_stream_free(struct ofi_am_stream *st)
{
    pthread_mutex_destroy(&st->lock);
    free(st->seq);
    free(st);
}

/* A stream of root's pool for owner, into *st_p. */
static int am_stream_take(shmemt_ofi_t *root, shmemt_ofi_t *c, struct ofi_am_stream **st_p)
{
    struct ofi_am_stream *st = NULL, **ns;
    int i, ret = 0;

    pthread_mutex_lock(&root->am_tab_lock);
    for (i = 0; i < root->am_nstreams && !st; i++)
        if (!root->am_streams[i]->owner)
            st = root->am_streams[i];
    if (!st) {
        if (root->am_nstreams == OFI_AM_MAX_STREAMS) {
            ofi_err(c, "ofi: %d contexts already send active messages, the most there can be",
                    OFI_AM_MAX_STREAMS);
            ret = -ENOSPC;
            goto out;
        }
        ns = realloc(root->am_streams, (size_t)(root->am_nstreams + 1) * sizeof(*ns));
        if (ns)
            root->am_streams = ns;
        if (!ns || !(st = am_stream_new(root, root->am_nstreams))) {
            ret = -ENOMEM;
            goto out;
        }
        root->am_streams[root->am_nstreams++] = st;
    }
    st->owner = c;
    *st_p = st;
out:
    pthread_mutex_unlock(&root->am_tab_lock);
    return ret;
}

int ofi_am_stream_get(shmemt_ofi_t *c)
{
    return am_stream_take(OFI_ROOT(c), c, &c->am_st);
}

void ofi_am_stream_put(shmemt_ofi_t *c)
{
    shmemt_ofi_t *root = OFI_ROOT(c);
    struct ofi_am_stream *st = c->am_st;

    if (!st)
        return;
    pthread_mutex_lock(&root->am_tab_lock);
    st->owner = NULL;
    /* Acknowledgements still on their way for c are stale from now on. */
    if (++st->gen == 0)
        st->gen = 1;
    pthread_mutex_unlock(&root->am_tab_lock);
    c->am_st = NULL;
}

uint32_t ofi_am_ack_token(const shmemt_ofi_t *o)
{
    return OFI_AM_TOK(OFI_AM_TOK_ACK, o->am_st->idx, o->am_st->gen);
}

int ofi_am_acked(shmemt_ofi_t *root, uint32_t token, uint64_t n)
{
    unsigned idx = OFI_AM_TOK_IDX(token);
    struct ofi_am_stream *st = root->am_st;
    int ret = -1;

    /* The default transport's stream is its own until finalize: no lock
     * (most acknowledgements are for it). */
    if (idx == st->idx && OFI_AM_TOK_GEN(token) == st->gen) {
        atomic_fetch_add_explicit(&root->am_acked, n, memory_order_release);
        return 0;
    }
    pthread_mutex_lock(&root->am_tab_lock);
    if ((int)idx < root->am_nstreams) {
        st = root->am_streams[idx];
        if (st->owner && st->gen == OFI_AM_TOK_GEN(token)) {
            atomic_fetch_add_explicit(&st->owner->am_acked, n, memory_order_release);
            ret = 0;
        }
    }
    pthread_mutex_unlock(&root->am_tab_lock);
    return ret;
}

/* ---- Request slots ---- */

struct ofi_am_slot {
    ofi_am_req_t *req; /* NULL: free, or answered */
    uint16_t gen;
};

uint32_t ofi_am_slot_get(shmemt_ofi_t *root, ofi_am_req_t *r)
{
    struct ofi_am_slot *s;
    uint32_t tok = 0;
    int idx;

    pthread_mutex_lock(&root->am_tab_lock);
    if (root->am_nfree > 0) {
        idx = root->am_free[--root->am_nfree];
        s = &root->am_slots[idx];
        s->req = r;
        tok = OFI_AM_TOK(0, idx, s->gen);
    }
    pthread_mutex_unlock(&root->am_tab_lock);
    return tok;
}

void ofi_am_slot_put(shmemt_ofi_t *root, uint32_t token)
{
    unsigned idx = OFI_AM_TOK_IDX(token);
    struct ofi_am_slot *s = &root->am_slots[idx];

    pthread_mutex_lock(&root->am_tab_lock);
    s->req = NULL;
    if (++s->gen == 0)
        s->gen = 1;
    root->am_free[root->am_nfree++] = (uint16_t)idx;
    pthread_mutex_unlock(&root->am_tab_lock);
}

int ofi_am_slot_answer(shmemt_ofi_t *root, uint32_t token, uint64_t value, int err)
{
    unsigned idx = OFI_AM_TOK_IDX(token);
    struct ofi_am_slot *s;
    ofi_am_req_t *r;
    int ret = -1;

    if (idx >= OFI_AM_NSLOTS)
        return -1;
    pthread_mutex_lock(&root->am_tab_lock);
    s = &root->am_slots[idx];
    r = s->req;
    if (r && s->gen == OFI_AM_TOK_GEN(token)) {
        OFI_HB_ACQUIRE(r);
        r->value = value;
        r->req.err = err;
        /* Answered: a second reply finds nothing to answer. */
        s->req = NULL;
        atomic_store_explicit(&r->req.done, 1, memory_order_release);
        ret = 0;
    }
    pthread_mutex_unlock(&root->am_tab_lock);
    return ret;
}

/* ---- The root's tables ---- */

int ofi_am_auth_open(shmemt_ofi_t *o)
{
    int i, ret;

    pthread_mutex_init(&o->am_tab_lock, NULL);
    o->am_tab_opened = 1;
    ret = ofi_getrandom(o, o->am_key, sizeof(o->am_key), "the active messages' key");
    if (ret)
        return ret;
    o->am_rx = calloc((size_t)o->n_pes, sizeof(*o->am_rx));
    o->am_slots = calloc(OFI_AM_NSLOTS, sizeof(*o->am_slots));
    o->am_free = malloc(OFI_AM_NSLOTS * sizeof(*o->am_free));
    if (!o->am_rx || !o->am_slots || !o->am_free)
        return -ENOMEM;
    /* Handed out from index 0 up; generations start at 1, so that no
     * token of a fetching AMO is 0 (no reply wanted). */
    for (i = 0; i < OFI_AM_NSLOTS; i++) {
        o->am_slots[i].gen = 1;
        o->am_free[i] = (uint16_t)(OFI_AM_NSLOTS - 1 - i);
    }
    o->am_nfree = OFI_AM_NSLOTS;
    /* Requests on one stream, replies on another: the thread that applies
     * messages does not contend with the application's for a lock. */
    ret = ofi_am_stream_get(o);
    return ret ? ret : am_stream_take(o, o, &o->am_reply_st);
}

void ofi_am_auth_close(shmemt_ofi_t *o)
{
    uint64_t n = atomic_load(&o->am_dropped);
    int i;

    if (n)
        ofi_log(&o->log, SHMEMT_LOG_WARN, "ofi: %llu active message%s dropped in all (see the "
                "first one's report)", (unsigned long long)n, n == 1 ? " was" : "s were");
    if (o->am_rx)
        for (i = 0; i < o->n_pes; i++)
            free(o->am_rx[i]);
    for (i = 0; i < o->am_nstreams; i++)
        am_stream_free(o->am_streams[i]);
    free(o->am_rx);
    free(o->am_streams);
    free(o->am_slots);
    free(o->am_free);
    free(o->am_peer_key);
    o->am_rx = NULL;
    o->am_streams = NULL;
    o->am_nstreams = 0;
    o->am_slots = NULL;
    o->am_free = NULL;
    o->am_peer_key = NULL;
    o->am_st = NULL;
    o->am_reply_st = NULL;
    if (o->am_tab_opened) {
        pthread_mutex_destroy(&o->am_tab_lock);
        o->am_tab_opened = 0;
    }
    memset(o->am_key, 0, sizeof(o->am_key));
}
