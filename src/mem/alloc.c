/*
 * The symmetric heap allocator.
 *
 * Every PE makes the same sequence of calls, and the allocator is a pure
 * function of that sequence (first fit over blocks sorted by offset, no
 * randomness, no dependence on addresses), so every PE gets the same offsets
 * and a heap address is symmetric by construction.
 *
 * The bookkeeping lives outside the managed range, in an ordinary malloc'd
 * array of blocks sorted by offset that covers the range without gaps: a
 * remote PE that writes past the end of its block corrupts user data at
 * worst, never the allocator.  Adjacent free blocks are merged on free.
 * Every operation is O(number of blocks); lookups by offset are a binary
 * search.
 */
#include "mem/mem.h"
#include <stdlib.h>

/* Block sizes are rounded up to this, so that offsets stay aligned to it. */
#define ALLOC_GRAIN 16
#define ALLOC_DEFAULT_ALIGN 64

typedef struct alloc_block {
    size_t off;     /* first byte of the block */
    size_t len;     /* bytes the block covers */
    size_t req;     /* bytes the user asked for; 0 when the block is free */
} alloc_block_t;

struct shmemi_alloc {
    size_t base;          /* first usable offset */
    size_t size;          /* usable bytes */
    alloc_block_t *blk;   /* sorted by off, covering [base, base + size) */
    size_t n, cap;
};

int shmemi_alloc_create(size_t base_off, size_t size, shmemi_alloc_t **a_p)
{
    shmemi_alloc_t *a;
    size_t end;

    if (__builtin_add_overflow(base_off, size, &end))
        return -EINVAL;
    a = calloc(1, sizeof(*a));
    if (!a)
        return -ENOMEM;
    a->cap = 16;
    a->blk = malloc(a->cap * sizeof(*a->blk));
    if (!a->blk)
        goto err_free_a;
    a->base = base_off;
    a->size = size;
    if (size) {
        a->blk[0] = (alloc_block_t){ .off = base_off, .len = size, .req = 0 };
        a->n = 1;
    }
    *a_p = a;
    return 0;

err_free_a:
    free(a);
    return -ENOMEM;
}

void shmemi_alloc_destroy(shmemi_alloc_t *a)
{
    if (!a)
        return;
    free(a->blk);
    free(a);
}

/* Makes room for count more blocks at index i (shifting the rest up). */
static int alloc_insert(shmemi_alloc_t *a, size_t i, size_t count)
{
    if (a->n + count > a->cap) {
        size_t cap = a->cap * 2;
        alloc_block_t *blk = realloc(a->blk, cap * sizeof(*blk));

        if (!blk)
            return -ENOMEM;
        a->blk = blk;
        a->cap = cap;
    }
    memmove(&a->blk[i + count], &a->blk[i], (a->n - i) * sizeof(*a->blk));
    a->n += count;
    return 0;
}

static void alloc_remove(shmemi_alloc_t *a, size_t i, size_t count)
{
    memmove(&a->blk[i], &a->blk[i + count], (a->n - i - count) * sizeof(*a->blk));
    a->n -= count;
}

/* Index of the block that starts at off, or -1. */
static long alloc_find(const shmemi_alloc_t *a, size_t off)
{
    size_t lo = 0, hi = a->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (a->blk[mid].off == off)
            return (long)mid;
        if (a->blk[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

int shmemi_alloc_get(shmemi_alloc_t *a, size_t size, size_t align, size_t *off_p)
{
    size_t need, i;

    if (size == 0)
        return -EINVAL;
    if (align == 0)
        align = ALLOC_DEFAULT_ALIGN;
    if (align & (align - 1))
        return -EINVAL;
    if (align < ALLOC_GRAIN)
        align = ALLOC_GRAIN;
    if (size > a->size || __builtin_add_overflow(size, (size_t)ALLOC_GRAIN - 1, &need))
        return -ENOMEM;
    need &= ~((size_t)ALLOC_GRAIN - 1);

    for (i = 0; i < a->n; i++) {
        alloc_block_t b = a->blk[i];
        size_t start, lead, tail;

        if (b.req)
            continue;
        if (__builtin_add_overflow(b.off, align - 1, &start))
            continue;
        start &= ~(align - 1);
        lead = start - b.off;
        if (lead >= b.len || b.len - lead < need)
            continue;
        tail = b.len - lead - need;
        /* Split into [lead free] [used] [tail free], skipping empty parts. */
        if (alloc_insert(a, i + 1, (lead != 0) + (tail != 0)))
            return -ENOMEM;
        if (lead) {
            a->blk[i] = (alloc_block_t){ .off = b.off, .len = lead, .req = 0 };
            i++;
        }
        a->blk[i] = (alloc_block_t){ .off = start, .len = need, .req = size };
        if (tail)
            a->blk[i + 1] = (alloc_block_t){ .off = start + need, .len = tail, .req = 0 };
        *off_p = start;
        return 0;
    }
    return -ENOMEM;
}

int shmemi_alloc_put(shmemi_alloc_t *a, size_t off)
{
    long found = alloc_find(a, off);
    size_t i;

    if (found < 0 || a->blk[found].req == 0)
        return -EINVAL;
    i = (size_t)found;
    a->blk[i].req = 0;
    /* Merge with the free neighbours. */
    if (i + 1 < a->n && a->blk[i + 1].req == 0) {
        a->blk[i].len += a->blk[i + 1].len;
        alloc_remove(a, i + 1, 1);
    }
    if (i > 0 && a->blk[i - 1].req == 0) {
        a->blk[i - 1].len += a->blk[i].len;
        alloc_remove(a, i, 1);
    }
    return 0;
}

size_t shmemi_alloc_size(shmemi_alloc_t *a, size_t off)
{
    long i = alloc_find(a, off);

    return i < 0 ? 0 : a->blk[i].req;
}

size_t shmemi_alloc_largest(shmemi_alloc_t *a)
{
    size_t i, best = 0;

    for (i = 0; i < a->n; i++)
        if (a->blk[i].req == 0 && a->blk[i].len > best)
            best = a->blk[i].len;
    return best;
}
