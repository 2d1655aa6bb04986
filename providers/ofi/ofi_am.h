/*
 * libfabric transport: the active messages' wire format and their
 * authentication, shared by ofi_am.c (what the messages do) and
 * ofi_am_auth.c (who may send them).  docs/design/trust.md says why.
 */
#ifndef SHMEMT_OFI_AM_H
#define SHMEMT_OFI_AM_H

#include "ofi.h"

enum { OFI_AM_REQ_AMO = 1, OFI_AM_REQ_PUTSIG, OFI_AM_REPLY };

/* One message: a header, then len bytes of data (put with signal).  56
 * bytes, so that a put with signal of up to 8 bytes fits the 64 bytes
 * that tcp;ofi_rxm injects (sent without waiting for anything). */
typedef struct ofi_am_hdr {
    uint8_t type;     /* OFI_AM_* */
    uint8_t op;       /* SHMEMT_AOP_* (the signal's for a put with signal) */
    uint8_t size;     /* 4 or 8: the word of the AMO or signal */
    uint8_t seg;      /* the data's (or AMO word's) segment */
    uint8_t sig_seg;  /* the signal word's segment */
    uint8_t pad;      /* 0 */
    uint16_t stream;  /* the sender's stream (see below) */
    uint32_t src_pe;  /* the sender, where the reply goes */
    int32_t len;      /* bytes of data after the header; reply: 0 or -errno */
    uint32_t seq;     /* low half of the stream's sequence number to this PE */
    uint32_t token;   /* a request's (OFI_AM_TOK_*), echoed in its reply; 0: no reply */
    uint64_t off;     /* offset of the data or AMO word in seg */
    uint64_t aux;     /* compare-swap's comparand, or the signal's offset */
    uint64_t operand; /* AMO operand, or the signal value; reply: old value */
    uint64_t mac;     /* SipHash-2-4 of the whole message under the receiver's key */
} ofi_am_hdr_t;

_Static_assert(sizeof(ofi_am_hdr_t) == 56, "active-message header layout");
_Static_assert(SHMEMT_MAX_SEGS <= 256, "segment numbers travel in one byte");

/*
 * Authentication.  Every PE draws a 128-bit key at init (getrandom) and
 * publishes it on its card, through the bootstrap, as it publishes its
 * memory keys; every message to a PE carries a SipHash-2-4 MAC under that
 * PE's key over the whole message and the high half of its sequence
 * number (not on providers that only our own user can reach, shm:
 * q.same_user).  A message that fails is dropped and counted (the first one is
 * reported), and nothing of it is read but its length.
 *
 * Replays: each transport that sends (the default one and each context)
 * sends on a stream, a number the receiver sees in the header; a stream
 * numbers its messages to each PE 1, 2, 3, ... (64 bits: the MAC covers
 * the high half, the header carries the low one).  The receiver keeps,
 * per sender and stream, the highest number it accepted and which of the
 * 64 before it it has seen; a number seen already or older than that
 * window is a replay.  The number is taken and the message posted under
 * the stream's lock, so one endpoint sends them in order (providers keep
 * the order of the messages of one endpoint to another, FI_ORDER_SAS; the
 * window forgives a little reordering anyway).  A destroyed context's
 * stream goes back to a pool with its numbers, and the next context takes
 * it: receivers keep a window per stream that ever lived at once, not per
 * context ever made.
 *
 * Tokens name what a reply answers, by index and generation, never by
 * address: a blocking fetching AMO's slot in the requester's table, or
 * the stream whose acknowledgement counter counts it.
 */
#define OFI_AM_TOK_ACK 1u
#define OFI_AM_TOK(ack, idx, gen) \
    ((uint32_t)(ack) | ((uint32_t)(idx) << 1) | ((uint32_t)(gen) << 16))
#define OFI_AM_TOK_IDX(tok) (((tok) >> 1) & 0x7fffu)
#define OFI_AM_TOK_GEN(tok) ((uint16_t)((tok) >> 16))
/* Streams and request slots are numbered in 15 bits. */
#define OFI_AM_MAX_STREAMS 32767
#define OFI_AM_NSLOTS 4096

/* A blocking fetching AMO waiting for its reply (ofi_req_wait). */
typedef struct ofi_am_req {
    ofi_req_t req;
    uint64_t value;
} ofi_am_req_t;

/* What a transport sends on (o->am_st). */
struct ofi_am_stream {
    pthread_mutex_t lock;       /* sealing and posting: number order is post order */
    uint64_t *seq;              /* [n_pes]: the last number posted to each PE */
    struct shmemt_ofi *owner;   /* NULL while in the pool (root's am_tab_lock) */
    uint16_t idx, gen;          /* gen: bumped each time it goes back to the pool */
};

/* SipHash-2-4 of len bytes of buf under the 128-bit key k. */
uint64_t ofi_siphash(const uint64_t k[2], const void *buf, size_t len);

/* The default transport's keys, streams, request slots and windows; the
 * key goes out on the card (ofi.c).  0 or a negative errno. */
int ofi_am_auth_open(shmemt_ofi_t *o);
void ofi_am_auth_close(shmemt_ofi_t *o);
/* A context takes a stream from its root's pool, and gives it back. */
int ofi_am_stream_get(shmemt_ofi_t *c);
void ofi_am_stream_put(shmemt_ofi_t *c);

/* Seals h (len bytes, header and data) for pe as the next message of o's
 * stream and posts it: injected (msg NULL) or sent with msg.  The number
 * is used up only when the provider took the message. */
ssize_t ofi_am_post_sealed(shmemt_ofi_t *o, int pe, ofi_am_hdr_t *h, size_t len,
                           const struct fi_msg *msg);
/* The same for a reply (injected) from the default transport o, on its
 * stream of replies. */
ssize_t ofi_am_post_reply(shmemt_ofi_t *o, int pe, ofi_am_hdr_t *h);
/* Checks a received message of len bytes at the default transport o:
 * shape, MAC, replay (and records its number).  NULL when it may be
 * applied, else why not; h->mac is left changed either way. */
const char *ofi_am_verify(shmemt_ofi_t *o, ofi_am_hdr_t *h, size_t len);
/* Counts a dropped message and reports the first one. */
void ofi_am_dropped(shmemt_ofi_t *o, const ofi_am_hdr_t *h, size_t len, const char *why);

/* A slot for a blocking fetching AMO: its token, or 0 when the table is
 * full for now. */
uint32_t ofi_am_slot_get(shmemt_ofi_t *root, ofi_am_req_t *r);
/* Frees the slot (the reply came, or the wait gave up: a late reply is
 * then stale). */
void ofi_am_slot_put(shmemt_ofi_t *root, uint32_t token);
/* Hands a reply to the request that token names: 0, or -1 when no such
 * request waits (unknown or stale). */
int ofi_am_slot_answer(shmemt_ofi_t *root, uint32_t token, uint64_t value, int err);
/* Adds n acknowledgements to the counter of the stream that token names:
 * 0, or -1 when there is no such stream. */
int ofi_am_acked(shmemt_ofi_t *root, uint32_t token, uint64_t n);
/* The token of o's acknowledgements. */
uint32_t ofi_am_ack_token(const shmemt_ofi_t *o);

#endif
