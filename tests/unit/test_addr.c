/*
 * Unit tests of the address translation of src/core/addr.h: the one range
 * test (shmemi_range_off, shmemi_heap_off), shmemi_addr_seg
 * (which symmetric segment holds a range, and where), shmemi_peer_addr
 * (the local address of a mapped peer's copy) and, for a registered
 * symmetric buffer that node peers map, shmemi_direct and
 * shmemi_amo_local.  The state is set by hand.
 */
#include "core/shmemi.h"
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#define HEAP 4096
#define DATA 1024
#define NPES 4

/* One arena, so that the segments are apart by a known gap. */
static char arena[HEAP + 4096 + DATA + 4096] __attribute__((aligned(64)));
static char peer1[HEAP], peer3[HEAP];
static char *peers[NPES];

static int setup(void **state)
{
    shmemi_g.heap_base = arena;
    shmemi_g.heap_size = HEAP;
    shmemi_g.data_base = arena + HEAP + 4096;
    shmemi_g.data_size = DATA;
    shmemi_g.n_pes = NPES;
    shmemi_g.my_pe = 0;
    peers[0] = arena;
    peers[1] = peer1;
    peers[2] = NULL;
    peers[3] = peer3;
    shmemi_g.peer_heap = peers;
    return 0;
}

static void expect_seg(const void *addr, size_t len, int seg, uint64_t off)
{
    int s = -1;
    uint64_t o = 0;
    int ret = shmemi_addr_seg(addr, len, &s, &o);

    if (ret != 0 || s != seg || o != off)
        fail_msg("addr %p len %zu: ret %d seg %d off %llu, expected seg %d off %llu", addr, len,
                 ret, s, (unsigned long long)o, seg, (unsigned long long)off);
}

static void expect_fault(const void *addr, size_t len)
{
    int s = -1;
    uint64_t o = 12345;

    if (shmemi_addr_seg(addr, len, &s, &o) != -EFAULT)
        fail_msg("addr %p len %zu should be outside every segment", addr, len);
}

static void test_heap_range(void **state)
{
    char *h = shmemi_g.heap_base;

    expect_seg(h, 1, SHMEMT_SEG_HEAP, 0);
    expect_seg(h, 0, SHMEMT_SEG_HEAP, 0);
    expect_seg(h, HEAP, SHMEMT_SEG_HEAP, 0);
    expect_seg(h + HEAP - 1, 1, SHMEMT_SEG_HEAP, HEAP - 1);
    expect_seg(h + 100, HEAP - 100, SHMEMT_SEG_HEAP, 100);
    expect_fault(h, HEAP + 1);
    expect_fault(h + HEAP - 1, 2);
    expect_fault(h + 100, HEAP - 99);
    /* One past the end, even with length 0, is not a heap address. */
    expect_fault(h + HEAP, 0);
    expect_fault(h + HEAP, 1);
    expect_fault(h - 1, 1);
    expect_fault(h - 1, 2);
    expect_fault(NULL, 1);
}

static void test_length_overflow(void **state)
{
    char *h = shmemi_g.heap_base, *d = shmemi_g.data_base;

    expect_fault(h, SIZE_MAX);
    expect_fault(h + 10, SIZE_MAX);
    expect_fault(h + 10, SIZE_MAX - 5);
    expect_fault(h + HEAP - 1, SIZE_MAX);
    expect_fault(d + 1, SIZE_MAX);
    expect_fault((char *)UINTPTR_MAX, 2);
}

/* shmemi_heap_off: inside or not as shmemi_addr_seg says for the heap,
 * the offset set only when inside; shmemi_range_off on any segment. */
static void test_heap_off(void **state)
{
    char *h = shmemi_g.heap_base;
    static const struct { long at; size_t len; int in; } cases[] = {
        { 0, 1, 1 }, { 0, 0, 1 }, { 0, HEAP, 1 }, { HEAP - 1, 1, 1 }, { 100, HEAP - 100, 1 },
        { 0, HEAP + 1, 0 }, { HEAP - 1, 2, 0 }, { HEAP, 0, 0 }, { HEAP, 1, 0 }, { -1, 1, 0 },
        { -1, 2, 0 }, { 10, SIZE_MAX, 0 }, { HEAP - 1, SIZE_MAX, 0 },
    };
    uintptr_t off;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        off = 777;
        if (shmemi_heap_off(h + cases[i].at, cases[i].len, &off) != cases[i].in)
            fail_msg("heap + %ld, len %zu: expected %s the heap", cases[i].at, cases[i].len,
                     cases[i].in ? "inside" : "outside");
        if (off != (cases[i].in ? (uintptr_t)cases[i].at : 777))
            fail_msg("heap + %ld, len %zu: offset %lu", cases[i].at, cases[i].len,
                     (unsigned long)off);
    }
    off = 777;
    assert_false(shmemi_heap_off(NULL, 1, &off));
    assert_false(shmemi_heap_off((char *)UINTPTR_MAX, 2, &off));
    assert_int_equal(off, 777);
    assert_true(shmemi_range_off(shmemi_g.data_base + 5, 10, (uintptr_t)shmemi_g.data_base,
                                 DATA, &off));
    assert_int_equal(off, 5);
    assert_false(shmemi_range_off(shmemi_g.data_base + DATA, 0, (uintptr_t)shmemi_g.data_base,
                                  DATA, &off));
    /* A data address is not a heap address. */
    assert_false(shmemi_heap_off(shmemi_g.data_base, 1, &off));
}

static void test_data_segment(void **state)
{
    char *d = shmemi_g.data_base;

    expect_seg(d, 1, SHMEMT_SEG_DATA, 0);
    expect_seg(d + 5, 10, SHMEMT_SEG_DATA, 5);
    expect_seg(d, DATA, SHMEMT_SEG_DATA, 0);
    expect_seg(d + DATA - 1, 1, SHMEMT_SEG_DATA, DATA - 1);
    expect_fault(d + DATA - 1, 2);
    expect_fault(d + DATA, 1);
    expect_fault(d - 1, 1);
    /* The gap between the segments, and a range spanning it. */
    expect_fault(shmemi_g.heap_base + HEAP + 100, 1);
    expect_fault(shmemi_g.heap_base + HEAP - 8, 4096 + 16);
}

static void test_peer_addr(void **state)
{
    char *h = shmemi_g.heap_base;

    assert_ptr_equal(shmemi_peer_addr(h, 0), arena);
    assert_ptr_equal(shmemi_peer_addr(h, 1), peer1);
    assert_ptr_equal(shmemi_peer_addr(h + 7, 1), peer1 + 7);
    assert_ptr_equal(shmemi_peer_addr(h + HEAP - 1, 3), peer3 + HEAP - 1);
    assert_null(shmemi_peer_addr(h + 7, 2));
    assert_null(shmemi_peer_addr(h + HEAP, 1));
    assert_null(shmemi_peer_addr(h - 1, 1));
    /* The data segment is never mapped. */
    assert_null(shmemi_peer_addr(shmemi_g.data_base, 1));
    assert_null(shmemi_peer_addr(shmemi_g.data_base + 3, 0));
}

static char ext_own[256] __attribute__((aligned(8))), ext_peer1[256] __attribute__((aligned(8)));
static char *ext_peers[NPES];

static int ext_teardown(void **state)
{
    memset(&shmemi_g.ext[2], 0, sizeof(shmemi_g.ext[2]));
    shmemi_g.n_ext = 0;
    shmemi_g.n_ext_mapped = 0;
    return 0;
}

/* A registered buffer in slot 2, mapped for PE 1 (and this PE 0), not for
 * PEs 2 and 3. */
static void test_ext_direct(void **state)
{
    ext_peers[0] = ext_own;
    ext_peers[1] = ext_peer1;
    ext_peers[2] = ext_peers[3] = NULL;
    shmemi_g.ext[2].base = (uintptr_t)ext_own;
    shmemi_g.ext[2].len = sizeof(ext_own);
    shmemi_g.ext[2].peer = ext_peers;
    shmemi_g.ext[2].amo_cpu = 0;
    shmemi_g.n_ext = 1;
    shmemi_g.n_ext_mapped = 1;

    expect_seg(ext_own + 8, 8, SHMEMT_NSEGS + 2, 8);
    assert_ptr_equal(shmemi_direct(ext_own + 8, 8, 1), ext_peer1 + 8);
    assert_ptr_equal(shmemi_direct(ext_own, sizeof(ext_own), 1), ext_peer1);
    assert_ptr_equal(shmemi_direct(ext_own + 8, 8, 0), ext_own + 8);
    assert_ptr_equal(shmemi_peer_addr(ext_own + 5, 1), ext_peer1 + 5);
    /* Past the end, unmapped peers, PEs out of range. */
    assert_null(shmemi_direct(ext_own + 250, 8, 1));
    assert_null(shmemi_direct(ext_own + 8, 8, 2));
    assert_null(shmemi_direct(ext_own + 8, 8, NPES));
    assert_null(shmemi_direct(ext_own + 8, 8, -1));
    assert_null(shmemi_direct((const void *)((uintptr_t)ext_own - 1), 1, 1));
    /* AMOs follow amo_cpu. */
    assert_null(shmemi_amo_local(ext_own + 8, 8, 1));
    shmemi_g.ext[2].amo_cpu = 1;
    assert_ptr_equal(shmemi_amo_local(ext_own + 8, 8, 1), ext_peer1 + 8);
    assert_null(shmemi_amo_local(ext_own + 8, 8, 3));
    /* Registered but not mapped: through the transport. */
    shmemi_g.ext[2].peer = NULL;
    shmemi_g.n_ext_mapped = 0;
    assert_null(shmemi_direct(ext_own + 8, 8, 1));
    assert_null(shmemi_amo_local(ext_own + 8, 8, 1));
    expect_seg(ext_own + 8, 8, SHMEMT_NSEGS + 2, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_heap_range, setup),
        cmocka_unit_test_setup(test_length_overflow, setup),
        cmocka_unit_test_setup(test_heap_off, setup),
        cmocka_unit_test_setup(test_data_segment, setup),
        cmocka_unit_test_setup(test_peer_addr, setup),
        cmocka_unit_test_setup_teardown(test_ext_direct, setup, ext_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
