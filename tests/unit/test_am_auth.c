/*
 * Unit test of the active messages' authentication (providers/ofi/
 * ofi_am_auth.c): SipHash-2-4 against the reference vectors, the
 * receiver's checks (MAC, shape, replays, the window, a wrapping number),
 * and the tables that replies name (request slots, streams) with their
 * generations.  A default transport of 3 PEs with no fabric.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include "providers/ofi/ofi_am.h"

static void no_fatal(const char *fmt, ...)
{
    (void)fmt;
    fail_msg("fatal called");
}

static shmemt_ofi_t *root_new(void)
{
    shmemt_ofi_t *o = calloc(1, sizeof(*o));

    assert_non_null(o);
    o->n_pes = 3;
    o->my_pe = 0;
    o->am = 1;
    o->fatal = no_fatal;
    assert_int_equal(ofi_am_auth_open(o), 0);
    return o;
}

static void root_free(shmemt_ofi_t *o)
{
    ofi_am_auth_close(o);
    free(o);
}

/* The reference implementation's vectors: key 00 01 .. 0f, message 00 01
 * .. (len - 1). */
static void test_siphash_vectors(void **state)
{
    uint64_t k[2] = { 0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull };
    unsigned char m[64];
    int i;

    (void)state;
    for (i = 0; i < 64; i++)
        m[i] = (unsigned char)i;
    assert_true(ofi_siphash(k, m, 0) == 0x726fdb47dd0e0e31ull);
    assert_true(ofi_siphash(k, m, 1) == 0x74f839c593dc67fdull);
    assert_true(ofi_siphash(k, m, 8) == 0x93f5f5799a932462ull);
    assert_true(ofi_siphash(k, m, 15) == 0xa129ca6149be45e5ull);
    assert_true(ofi_siphash(k, m, 63) == 0x958a324ceb064572ull);
}

/* What a sender with key k would send: a 56-byte AMO from pe on stream
 * st numbered seq. */
static ofi_am_hdr_t sealed(const uint64_t k[2], int pe, int st, uint64_t seq)
{
    ofi_am_hdr_t h;

    memset(&h, 0, sizeof(h));
    h.type = OFI_AM_REQ_AMO;
    h.op = SHMEMT_AOP_ADD;
    h.size = 8;
    h.src_pe = (uint32_t)pe;
    h.stream = (uint16_t)st;
    h.seq = (uint32_t)seq;
    h.operand = 5;
    h.mac = seq >> 32;
    h.mac = ofi_siphash(k, &h, sizeof(h));
    return h;
}

static const char *verify(shmemt_ofi_t *o, ofi_am_hdr_t h)
{
    return ofi_am_verify(o, &h, sizeof(h));
}

static void test_verify(void **state)
{
    shmemt_ofi_t *o = root_new();
    uint64_t wrong[2] = { o->am_key[0] ^ 1, o->am_key[1] };
    ofi_am_hdr_t h;

    (void)state;
    assert_null(verify(o, sealed(o->am_key, 1, 0, 1)));
    /* The same message again, and numbers already seen. */
    assert_non_null(strstr(verify(o, sealed(o->am_key, 1, 0, 1)), "replay"));
    assert_null(verify(o, sealed(o->am_key, 1, 0, 3)));
    assert_null(verify(o, sealed(o->am_key, 1, 0, 2)));  /* a little late: forgiven */
    assert_non_null(strstr(verify(o, sealed(o->am_key, 1, 0, 2)), "replay"));
    assert_non_null(strstr(verify(o, sealed(o->am_key, 1, 0, 0)), "replay"));
    /* Other senders and streams have numbers of their own. */
    assert_null(verify(o, sealed(o->am_key, 2, 0, 1)));
    assert_null(verify(o, sealed(o->am_key, 1, 5, 1)));
    /* Older than the window. */
    assert_null(verify(o, sealed(o->am_key, 1, 0, 100)));
    assert_non_null(strstr(verify(o, sealed(o->am_key, 1, 0, 4)), "older"));
    /* Another key, a changed byte, a number whose high half was not the
     * sealer's. */
    assert_non_null(strstr(verify(o, sealed(wrong, 1, 0, 101)), "authentication"));
    h = sealed(o->am_key, 1, 0, 101);
    h.operand ^= 1;
    assert_non_null(strstr(ofi_am_verify(o, &h, sizeof(h)), "authentication"));
    assert_non_null(strstr(verify(o, sealed(o->am_key, 1, 0, 101 + (1ull << 32))),
                           "authentication"));
    /* Shape: sender, stream, type, length. */
    assert_non_null(strstr(verify(o, sealed(o->am_key, 3, 0, 200)), "no PE"));
    h = sealed(o->am_key, 1, 0, 200);
    assert_non_null(strstr(ofi_am_verify(o, &h, 8), "shorter"));
    assert_non_null(strstr(ofi_am_verify(o, &h, sizeof(h) + 8), "length"));
    h.type = 9;
    assert_non_null(strstr(ofi_am_verify(o, &h, sizeof(h)), "type"));
    root_free(o);
}

/* The number goes past 2^32: the header carries its low half, the MAC
 * covers the high one, the receiver follows. */
static void test_wrap(void **state)
{
    shmemt_ofi_t *o = root_new();
    uint64_t base = (1ull << 32) - 2, s;

    (void)state;
    assert_null(verify(o, sealed(o->am_key, 1, 0, 1)));
    /* A sender far along (the window jumps: numbers only grow). */
    for (s = base; s < base + 5; s++)
        assert_null(verify(o, sealed(o->am_key, 1, 0, s)));
    assert_non_null(strstr(verify(o, sealed(o->am_key, 1, 0, base + 1)), "replay"));
    /* The message numbered like base + 1 four billion earlier. */
    assert_non_null(verify(o, sealed(o->am_key, 1, 0, base + 1 - (1ull << 32))));
    root_free(o);
}

/* A provider that only our own user reaches (shm): no MAC, numbers still
 * checked. */
static void test_same_user(void **state)
{
    shmemt_ofi_t *o = root_new();
    uint64_t none[2] = { 0, 0 };
    ofi_am_hdr_t h;

    (void)state;
    o->q.same_user = 1;
    h = sealed(none, 1, 0, 1);
    h.mac = 0;
    assert_null(ofi_am_verify(o, &h, sizeof(h)));
    h = sealed(none, 1, 0, 1);
    h.mac = 0;
    assert_non_null(strstr(ofi_am_verify(o, &h, sizeof(h)), "replay"));
    h = sealed(none, 1, 0, 2);
    h.mac = 0;
    assert_non_null(strstr(ofi_am_verify(o, &h, 8), "shorter"));
    root_free(o);
}

static void test_slots(void **state)
{
    shmemt_ofi_t *o = root_new();
    ofi_am_req_t a, b;
    uint32_t ta, tb;

    (void)state;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    ta = ofi_am_slot_get(o, &a);
    tb = ofi_am_slot_get(o, &b);
    assert_true(ta && tb && ta != tb);
    assert_false(ta & OFI_AM_TOK_ACK);
    assert_int_equal(ofi_am_slot_answer(o, ta, 42, 0), 0);
    assert_int_equal(atomic_load(&a.req.done), 1);
    assert_true(a.value == 42);
    /* Answered once: a second reply is dropped. */
    assert_int_equal(ofi_am_slot_answer(o, ta, 43, 0), -1);
    assert_true(a.value == 42);
    /* A wait that gives up: a late reply is stale, also after reuse. */
    ofi_am_slot_put(o, tb);
    assert_int_equal(ofi_am_slot_answer(o, tb, 7, 0), -1);
    assert_int_equal(atomic_load(&b.req.done), 0);
    ofi_am_slot_put(o, ta);
    tb = ofi_am_slot_get(o, &b);
    assert_int_equal(ofi_am_slot_answer(o, ta, 7, 0), -1);
    assert_int_equal(ofi_am_slot_answer(o, OFI_AM_TOK(0, 5000, 1), 7, 0), -1);
    assert_int_equal(ofi_am_slot_answer(o, tb, 9, -5), 0);
    assert_int_equal(b.req.err, -5);
    ofi_am_slot_put(o, tb);
    root_free(o);
}

static void test_streams(void **state)
{
    shmemt_ofi_t *o = root_new();
    shmemt_ofi_t *c1 = calloc(1, sizeof(*c1)), *c2 = calloc(1, sizeof(*c2));
    uint32_t t0, t1, old;

    (void)state;
    c1->parent = c2->parent = o;
    t0 = ofi_am_ack_token(o);
    assert_true(t0 & OFI_AM_TOK_ACK);
    assert_int_equal(ofi_am_acked(o, t0, 3), 0);
    assert_true(atomic_load(&o->am_acked) == 3);
    assert_int_equal(ofi_am_stream_get(c1), 0);
    t1 = ofi_am_ack_token(c1);
    assert_true(t1 != t0);
    assert_int_equal(ofi_am_acked(o, t1, 2), 0);
    assert_true(atomic_load(&c1->am_acked) == 2);
    /* A destroyed context's stream goes to the next one, numbers and all,
     * under a new generation: the old acknowledgements are stale. */
    c1->am_st->seq[2] = 77;
    old = t1;
    ofi_am_stream_put(c1);
    assert_int_equal(ofi_am_acked(o, old, 1), -1);
    assert_int_equal(ofi_am_stream_get(c2), 0);
    assert_true(c2->am_st->seq[2] == 77);
    assert_int_equal(OFI_AM_TOK_IDX(ofi_am_ack_token(c2)), OFI_AM_TOK_IDX(old));
    assert_int_equal(ofi_am_acked(o, old, 1), -1);
    assert_int_equal(ofi_am_acked(o, ofi_am_ack_token(c2), 4), 0);
    assert_true(atomic_load(&c2->am_acked) == 4);
    assert_int_equal(ofi_am_acked(o, OFI_AM_TOK(1, 300, 1), 1), -1);
    ofi_am_stream_put(c2);
    free(c1);
    free(c2);
    root_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_siphash_vectors),
        cmocka_unit_test(test_verify),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_same_user),
        cmocka_unit_test(test_slots),
        cmocka_unit_test(test_streams),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
