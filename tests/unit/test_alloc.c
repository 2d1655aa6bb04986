/*
 * Unit tests of the symmetric heap allocator (src/mem/alloc.c): alignment,
 * exhaustion, coalescing, bad frees, determinism, and long random
 * sequences checked against a reference first-fit model.  And one choice
 * of src/mem/mem.c that a job cannot reach without a GPU: with
 * FABSHMEM_CUDA=1 and no device heap, shmem_malloc_with_hints refuses
 * SHMEMX_MALLOC_DEVICE (a job with FABSHMEM_CUDA=1 fails init without a
 * GPU; tests/gpu/gpu_heap --cuda-required-noheap checks it on one).
 */
#include "mem/mem.h"
#include "base/state.h"
#include <shmemx.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#define BASE  (64 * 1024)
#define SIZE  (1024 * 1024)

static shmemi_alloc_t *make(size_t base, size_t size)
{
    shmemi_alloc_t *a = NULL;

    assert_int_equal(shmemi_alloc_create(base, size, &a), 0);
    assert_non_null(a);
    return a;
}

static size_t get(shmemi_alloc_t *a, size_t size, size_t align)
{
    size_t off = (size_t)-1;
    int ret = shmemi_alloc_get(a, size, align, &off);

    if (ret)
        fail_msg("alloc of %zu aligned %zu failed: %d", size, align, ret);
    return off;
}

static void test_basic(void **state)
{
    shmemi_alloc_t *a = make(BASE, SIZE);
    size_t o1, o2, o3;

    assert_int_equal(shmemi_alloc_largest(a), SIZE);
    o1 = get(a, 100, 64);
    assert_int_equal(o1, BASE);
    assert_int_equal(shmemi_alloc_size(a, o1), 100);
    o2 = get(a, 1, 64);
    assert_int_equal(o2, BASE + 128);
    /* The 16 bytes between o1 (rounded to 112) and o2 fit a small block. */
    o3 = get(a, 1, 16);
    assert_int_equal(o3, BASE + 112);
    assert_int_equal(shmemi_alloc_size(a, o2), 1);
    assert_int_equal(shmemi_alloc_size(a, o1 + 16), 0);
    assert_int_equal(shmemi_alloc_size(a, 0), 0);
    assert_int_equal(shmemi_alloc_size(a, BASE + SIZE), 0);
    assert_int_equal(shmemi_alloc_put(a, o2), 0);
    assert_int_equal(shmemi_alloc_size(a, o2), 0);
    /* The hole left by o2 is reused first. */
    assert_int_equal(get(a, 16, 16), BASE + 128);
    shmemi_alloc_destroy(a);
    shmemi_alloc_destroy(NULL);
}

static void test_alignment(void **state)
{
    shmemi_alloc_t *a = make(BASE + 16, 64 * SIZE);
    size_t align, off;

    for (align = 16; align <= 1024 * 1024; align *= 2) {
        off = get(a, 24, align);
        if (off % align)
            fail_msg("offset %zu is not aligned to %zu", off, align);
        assert_int_equal(shmemi_alloc_size(a, off), 24);
    }
    /* 0 means the default of 64; smaller powers of two give 16. */
    assert_int_equal(get(a, 8, 0) % 64, 0);
    assert_int_equal(get(a, 8, 1) % 16, 0);
    assert_int_equal(get(a, 8, 8) % 16, 0);
    /* Not a power of two, or size 0. */
    assert_int_equal(shmemi_alloc_get(a, 8, 24, &off), -EINVAL);
    assert_int_equal(shmemi_alloc_get(a, 8, 3, &off), -EINVAL);
    assert_int_equal(shmemi_alloc_get(a, 0, 64, &off), -EINVAL);
    shmemi_alloc_destroy(a);

    /* A base that is not aligned is skipped over. */
    a = make(100, 10000);
    assert_int_equal(get(a, 1, 64), 128);
    assert_int_equal(get(a, 1, 4096), 4096);
    shmemi_alloc_destroy(a);
}

static void test_exhaustion(void **state)
{
    shmemi_alloc_t *a = make(BASE, SIZE);
    size_t off = 777, o;

    assert_int_equal(shmemi_alloc_get(a, SIZE + 1, 64, &off), -ENOMEM);
    assert_int_equal(shmemi_alloc_get(a, (size_t)-1, 64, &off), -ENOMEM);
    assert_int_equal(shmemi_alloc_get(a, (size_t)-20, 16, &off), -ENOMEM);
    assert_int_equal(off, 777);
    o = get(a, SIZE, 64);
    assert_int_equal(o, BASE);
    assert_int_equal(shmemi_alloc_largest(a), 0);
    assert_int_equal(shmemi_alloc_get(a, 1, 16, &off), -ENOMEM);
    assert_int_equal(shmemi_alloc_put(a, o), 0);
    assert_int_equal(shmemi_alloc_largest(a), SIZE);

    /* A hole that is big enough but not once aligned does not fit. */
    o = get(a, SIZE - 32, 16);
    assert_int_equal(o, BASE);
    assert_int_equal(shmemi_alloc_largest(a), 32);
    assert_int_equal(shmemi_alloc_get(a, 32, 64, &off), -ENOMEM);
    assert_int_equal(get(a, 32, 16), BASE + SIZE - 32);
    assert_int_equal(shmemi_alloc_largest(a), 0);
    shmemi_alloc_destroy(a);

    /* An empty allocator. */
    a = make(BASE, 0);
    assert_int_equal(shmemi_alloc_get(a, 1, 16, &off), -ENOMEM);
    assert_int_equal(shmemi_alloc_largest(a), 0);
    shmemi_alloc_destroy(a);
    assert_int_equal(shmemi_alloc_create((size_t)-16, 32, &a), -EINVAL);
}

static void test_coalescing(void **state)
{
    shmemi_alloc_t *a = make(BASE, 4096);
    size_t o[4], off;
    int i;

    for (i = 0; i < 4; i++)
        o[i] = get(a, 1024, 64);
    assert_int_equal(shmemi_alloc_largest(a), 0);
    /* Free 0 and 2: two holes of 1k, nothing of 2k fits. */
    assert_int_equal(shmemi_alloc_put(a, o[0]), 0);
    assert_int_equal(shmemi_alloc_put(a, o[2]), 0);
    assert_int_equal(shmemi_alloc_largest(a), 1024);
    assert_int_equal(shmemi_alloc_get(a, 2048, 64, &off), -ENOMEM);
    /* Freeing 1 merges 0, 1 and 2 (both sides). */
    assert_int_equal(shmemi_alloc_put(a, o[1]), 0);
    assert_int_equal(shmemi_alloc_largest(a), 3072);
    /* Freeing 3 merges with the left neighbour. */
    assert_int_equal(shmemi_alloc_put(a, o[3]), 0);
    assert_int_equal(shmemi_alloc_largest(a), 4096);
    assert_int_equal(get(a, 4096, 64), BASE);
    assert_int_equal(shmemi_alloc_put(a, BASE), 0);
    /* Reverse order frees merge with the right neighbour. */
    for (i = 0; i < 4; i++)
        o[i] = get(a, 1024, 64);
    for (i = 3; i >= 0; i--)
        assert_int_equal(shmemi_alloc_put(a, o[i]), 0);
    assert_int_equal(shmemi_alloc_largest(a), 4096);
    shmemi_alloc_destroy(a);
}

static void test_bad_free(void **state)
{
    shmemi_alloc_t *a = make(BASE, SIZE);
    size_t o1 = get(a, 256, 64), o2 = get(a, 256, 64);

    assert_int_equal(shmemi_alloc_put(a, o1 + 16), -EINVAL);
    assert_int_equal(shmemi_alloc_put(a, o1 + 1), -EINVAL);
    assert_int_equal(shmemi_alloc_put(a, 0), -EINVAL);
    assert_int_equal(shmemi_alloc_put(a, BASE + SIZE), -EINVAL);
    assert_int_equal(shmemi_alloc_put(a, (size_t)-1), -EINVAL);
    /* The free tail block starts at a valid offset but is not allocated. */
    assert_int_equal(shmemi_alloc_put(a, o2 + 256), -EINVAL);
    assert_int_equal(shmemi_alloc_put(a, o1), 0);
    assert_int_equal(shmemi_alloc_put(a, o1), -EINVAL);
    assert_int_equal(shmemi_alloc_put(a, o2), 0);
    assert_int_equal(shmemi_alloc_put(a, o2), -EINVAL);
    assert_int_equal(shmemi_alloc_largest(a), SIZE);
    shmemi_alloc_destroy(a);
}

/* A small deterministic generator, so that failures reproduce. */
static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t rand_size(void)
{
    switch (rng() % 4) {
    case 0: return 1 + rng() % 64;
    case 1: return 1 + rng() % 4096;
    case 2: return 1 + rng() % 65536;
    default: return (size_t)1 << (rng() % 18);
    }
}

static size_t rand_align(void)
{
    static const size_t aligns[] = { 0, 16, 16, 64, 64, 64, 128, 4096, 65536 };
    return aligns[rng() % (sizeof(aligns) / sizeof(aligns[0]))];
}

static void test_determinism(void **state)
{
    shmemi_alloc_t *a = make(BASE, 8 * SIZE), *b = make(BASE, 8 * SIZE);
    size_t live[256], n = 0, i, oa, ob;
    int ra, rb;

    rng_state = 0x1234567;
    for (i = 0; i < 20000; i++) {
        if (n < 256 && (n == 0 || rng() % 3)) {
            size_t sz = rand_size(), al = rand_align();

            ra = shmemi_alloc_get(a, sz, al, &oa);
            rb = shmemi_alloc_get(b, sz, al, &ob);
            assert_int_equal(ra, rb);
            if (ra == 0) {
                assert_int_equal(oa, ob);
                live[n++] = oa;
            }
        } else {
            size_t k = rng() % n;

            assert_int_equal(shmemi_alloc_put(a, live[k]), 0);
            assert_int_equal(shmemi_alloc_put(b, live[k]), 0);
            live[k] = live[--n];
        }
        assert_int_equal(shmemi_alloc_largest(a), shmemi_alloc_largest(b));
    }
    shmemi_alloc_destroy(a);
    shmemi_alloc_destroy(b);
}

/* ---- the reference model: live blocks sorted by offset ---- */
typedef struct ref_block { size_t off, len, req; } ref_block_t;
static ref_block_t ref[4096];
static size_t ref_n;

/* First fit over the gaps between the live blocks, as the allocator must do:
 * blocks take the request rounded up to 16 bytes. */
static int ref_get(size_t base, size_t size, size_t req, size_t align, size_t *off_p, size_t *at_p)
{
    size_t need = (req + 15) & ~(size_t)15, start = base, i;

    if (align == 0)
        align = 64;
    if (align < 16)
        align = 16;
    for (i = 0; i <= ref_n; i++) {
        size_t end = i < ref_n ? ref[i].off : base + size;
        size_t s = (start + align - 1) & ~(align - 1);

        if (s < end && end - s >= need) {
            *off_p = s;
            *at_p = i;
            return 0;
        }
        if (i < ref_n)
            start = ref[i].off + ref[i].len;
    }
    return -ENOMEM;
}

static size_t ref_largest(size_t base, size_t size)
{
    size_t start = base, best = 0, i;

    for (i = 0; i <= ref_n; i++) {
        size_t end = i < ref_n ? ref[i].off : base + size;

        if (end - start > best)
            best = end - start;
        if (i < ref_n)
            start = ref[i].off + ref[i].len;
    }
    return best;
}

static void run_random(uint64_t seed, size_t base, size_t size, int steps)
{
    shmemi_alloc_t *a = make(base, size);
    size_t off = 0, roff = 0, at = 0, i;
    int step, ret, rret;

    rng_state = seed;
    ref_n = 0;
    for (step = 0; step < steps; step++) {
        unsigned op = (unsigned)(rng() % 10);

        if (ref_n == 0 || (op < 6 && ref_n < 4096)) {
            size_t sz = rand_size(), al = rand_align();

            ret = shmemi_alloc_get(a, sz, al, &off);
            rret = ref_get(base, size, sz, al, &roff, &at);
            if (ret != rret || (ret == 0 && off != roff))
                fail_msg("seed %llu step %d: alloc(%zu, %zu) gave %d/%zu, model %d/%zu",
                         (unsigned long long)seed, step, sz, al, ret, off, rret, roff);
            if (ret == 0) {
                assert_true(off >= base && off + sz <= base + size);
                memmove(&ref[at + 1], &ref[at], (ref_n - at) * sizeof(ref[0]));
                ref[at] = (ref_block_t){ roff, (sz + 15) & ~(size_t)15, sz };
                ref_n++;
            }
        } else if (op < 9) {
            i = rng() % ref_n;
            assert_int_equal(shmemi_alloc_put(a, ref[i].off), 0);
            memmove(&ref[i], &ref[i + 1], (ref_n - i - 1) * sizeof(ref[0]));
            ref_n--;
        } else {
            /* A bad free: the middle of a live block, or a freed one. */
            size_t bad = ref[rng() % ref_n].off + 16 * (1 + rng() % 4), k;

            for (k = 0; k < ref_n && ref[k].off != bad; k++)
                ;
            if (k == ref_n)
                assert_int_equal(shmemi_alloc_put(a, bad), -EINVAL);
        }
        if (step % 16 == 0) {
            assert_int_equal(shmemi_alloc_largest(a), ref_largest(base, size));
            for (i = 0; i < ref_n; i++)
                assert_int_equal(shmemi_alloc_size(a, ref[i].off), ref[i].req);
        }
    }
    /* Free everything: the whole range is one hole again. */
    while (ref_n) {
        assert_int_equal(shmemi_alloc_put(a, ref[--ref_n].off), 0);
    }
    assert_int_equal(shmemi_alloc_largest(a), size);
    shmemi_alloc_destroy(a);
}

static void test_random_vs_model(void **state)
{
    uint64_t seed;

    for (seed = 1; seed <= 40; seed++)
        run_random(seed * 0x9e3779b97f4a7c15ull, BASE, SIZE, 5000);
    /* A tight heap: exhaustion is frequent. */
    for (seed = 100; seed <= 120; seed++)
        run_random(seed * 0x9e3779b97f4a7c15ull, BASE + 48, 200 * 1024, 5000);
}

/* FABSHMEM_CUDA=1, no device heap: SHMEMX_MALLOC_DEVICE, alone or among
 * other bits, is refused before any communication (there is no transport
 * here) with SHMEMX_ERROR_NOT_SUPPORTED naming the routine, the hint and
 * FABSHMEM_CUDA=1. */
static void test_device_hint_cuda_required(void **state)
{
    static const long words[] = { SHMEMX_MALLOC_DEVICE, ~SHMEM_MALLOC_ATOMICS_REMOTE, ~0L };
    char *no_env[] = { NULL };
    void *p;
    size_t i;

    assert_int_equal(shmemi_env_parse(no_env, &shmemi_g.env), 0);
    shmemi_g.env.cuda = SHMEMI_ENV_CUDA_ON;
    shmemi_g.dheap_size = 0;
    shmemi_g.n_pes = 1;
    atomic_store(&shmemi_g.state, SHMEMI_STATE_INITIALIZED);
    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        const shmemi_errrec_t *r;

        p = &p;
        shmemi_err_clear();
        assert_int_equal(shmemi_mem_malloc_hints(64, words[i], &p, "shmem_malloc_with_hints"),
                         SHMEMX_ERROR_NOT_SUPPORTED);
        assert_ptr_equal(p, &p);
        r = shmemi_err_last();
        assert_int_equal(r->code, SHMEMX_ERROR_NOT_SUPPORTED);
        assert_non_null(strstr(r->msg, "shmem_malloc_with_hints"));
        assert_non_null(strstr(r->msg, "SHMEMX_MALLOC_DEVICE"));
        assert_non_null(strstr(r->msg, "FABSHMEM_CUDA=1"));
    }
    shmemi_err_clear();
    atomic_store(&shmemi_g.state, SHMEMI_STATE_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_hint_cuda_required),
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_exhaustion),
        cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_bad_free),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_random_vs_model),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
