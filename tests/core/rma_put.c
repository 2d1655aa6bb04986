/*
 * rma_put: the blocking put family (typed put, ctx put, p, putmem, the SIZE
 * forms) for the 24 standard RMA types, sizes 0, 1, 7, 13, 4096 elements
 * and 1 MiB, unaligned putmem, targets self, next PE and all PEs, into the
 * symmetric heap and into static (data segment) arrays.  Every PE checks
 * the data that landed in its own memory and the untouched bytes around it.
 */
#include "common.h"

#define BIG_BYTES ((size_t)1 << 20)
#define HEAP_BYTES (2 * BIG_BYTES + 256)
#define STATIC_ELEMS 4200
#define STATIC_BYTES (64 * 1024 + 256)

enum { MODE_SELF, MODE_NEXT, MODE_ALL, MODE_COUNT };
enum { VAR_PUT, VAR_CTX, VAR_P, VAR_MEM, VAR_COUNT };

static const char *mode_name[] = { "self", "next", "all" };

static int salt_counter;
static void *scratch;
static uint8_t static_bytes[STATIC_BYTES];

/* The target PEs of a mode: *first .. *first + *count - 1 (mod npes). */
static void mode_targets(int mode, int *first, int *count)
{
    *first = mode == MODE_NEXT ? (test_me + 1) % test_npes : mode == MODE_SELF ? test_me : 0;
    *count = mode == MODE_ALL ? test_npes : 1;
}

/* The PE that put into my memory in mode (for MODE_ALL every PE does). */
static int mode_source(int mode)
{
    return mode == MODE_NEXT ? (test_me + test_npes - 1) % test_npes : test_me;
}

#define DEFINE_PUT_CASE(T, N)                                                      \
    static T static_##N[STATIC_ELEMS];                                             \
    static void put_case_##N(T *area, size_t cap, const char *where, size_t n,     \
                             int mode, int var)                                    \
    {                                                                              \
        size_t stride = n + 1, need = mode == MODE_ALL ? stride * test_npes : stride; \
        T *src = scratch;                                                          \
        int salt = ++salt_counter, first, count, k, s;                             \
        size_t i;                                                                  \
                                                                                   \
        if (need > cap || (var == VAR_P && n > 13))                                \
            return;                                                                \
        memset(area, 0, need * sizeof(T));                                         \
        for (i = 0; i < n; i++)                                                    \
            src[i] = (T)test_val(test_me, i, salt);                                \
        shmem_barrier_all();                                                       \
        mode_targets(mode, &first, &count);                                        \
        for (k = 0; k < count; k++) {                                              \
            int t = (first + k) % test_npes;                                       \
            T *d = area + (mode == MODE_ALL ? (size_t)test_me * stride : 0);       \
            switch (var) {                                                         \
            case VAR_PUT: shmem_##N##_put(d, src, n, t); break;                    \
            case VAR_CTX: shmem_ctx_##N##_put(SHMEM_CTX_DEFAULT, d, src, n, t); break; \
            case VAR_P:                                                            \
                for (i = 0; i < n; i++)                                            \
                    shmem_##N##_p(d + i, src[i], t);                               \
                break;                                                             \
            default: shmem_putmem(d, src, n * sizeof(T), t); break;                \
            }                                                                      \
        }                                                                          \
        shmem_barrier_all();                                                       \
        for (s = 0; s < test_npes; s++) {                                          \
            T *r;                                                                  \
            if (mode != MODE_ALL && s != mode_source(mode))                        \
                continue;                                                          \
            r = area + (mode == MODE_ALL ? (size_t)s * stride : 0);                \
            for (i = 0; i <= n; i++) {                                             \
                long double e = i < n ? (long double)(T)test_val(s, i, salt) : 0;  \
                if ((long double)r[i] != e)                                        \
                    test_fail("shmem_%s %s (%s) n=%zu target=%s from PE %d: index %zu: " \
                              "expected %.0Lf, got %.0Lf%s",                       \
                              var == VAR_MEM ? "putmem" : var == VAR_P ? #N "_p" : \
                              var == VAR_CTX ? "ctx_" #N "_put" : #N "_put",       \
                              where, #T, n, mode_name[mode], s, i, e,              \
                              (long double)r[i], i == n ? " (past the end)" : ""); \
            }                                                                      \
        }                                                                          \
    }                                                                              \
    static void put_type_##N(void *heap)                                           \
    {                                                                              \
        size_t sizes[] = { 0, 1, 7, 13, 4096, BIG_BYTES / sizeof(T) };             \
        size_t z;                                                                  \
        int mode, var;                                                             \
                                                                                   \
        for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)                    \
            for (mode = 0; mode < MODE_COUNT; mode++)                              \
                for (var = 0; var < VAR_COUNT; var++) {                            \
                    put_case_##N(heap, HEAP_BYTES / sizeof(T), "heap", sizes[z], mode, var); \
                    put_case_##N(static_##N, STATIC_ELEMS, "static", sizes[z], mode, var); \
                }                                                                  \
    }
TEST_RMA_TYPES(DEFINE_PUT_CASE)

/*
 * Byte-level cases: putmem at offsets doff (destination) and soff (source),
 * or a SIZE form (bits != 0) with nbytes / (bits / 8) elements.
 */
static void put_bytes_case(uint8_t *area, size_t cap, const char *where, size_t nbytes,
                           size_t doff, size_t soff, int mode, int bits)
{
    size_t stride = nbytes + doff + 16, need = mode == MODE_ALL ? stride * test_npes : stride;
    size_t nelems = bits ? nbytes / (bits / 8) : nbytes, i;
    uint8_t *src = (uint8_t *)scratch + soff;
    int salt = ++salt_counter, first, count, k, s;

    if (need > cap)
        return;
    memset(area, 0, need);
    for (i = 0; i < nbytes; i++)
        src[i] = (uint8_t)test_val(test_me, i, salt);
    shmem_barrier_all();
    mode_targets(mode, &first, &count);
    for (k = 0; k < count; k++) {
        int t = (first + k) % test_npes;
        uint8_t *d = area + (mode == MODE_ALL ? (size_t)test_me * stride : 0) + doff;
        switch (bits) {
        case 8: shmem_put8(d, src, nelems, t); break;
        case 16: shmem_put16(d, src, nelems, t); break;
        case 32: shmem_put32(d, src, nelems, t); break;
        case 64: shmem_put64(d, src, nelems, t); break;
        case 128: shmem_put128(d, src, nelems, t); break;
        default:
            if (k & 1)
                shmem_ctx_putmem(SHMEM_CTX_DEFAULT, d, src, nbytes, t);
            else
                shmem_putmem(d, src, nbytes, t);
            break;
        }
    }
    shmem_barrier_all();
    for (s = 0; s < test_npes; s++) {
        uint8_t *r;
        if (mode != MODE_ALL && s != mode_source(mode))
            continue;
        r = area + (mode == MODE_ALL ? (size_t)s * stride : 0);
        for (i = 0; i < doff + nbytes + 1; i++) {
            long long e = i < doff ? 0 : i < doff + nbytes ? test_val(s, i - doff, salt) : 0;
            if (r[i] != e)
                test_fail("shmem_put%s %s nbytes=%zu doff=%zu soff=%zu target=%s from PE %d: "
                          "byte %zu: expected %lld, got %d", bits == 0 ? "mem" :
                          bits == 8 ? "8" : bits == 16 ? "16" : bits == 32 ? "32" :
                          bits == 64 ? "64" : "128", where, nbytes, doff, soff,
                          mode_name[mode], s, i, e, r[i]);
        }
    }
}

int main(void)
{
    static const size_t nbytes[] = { 0, 1, 7, 13, 4096, BIG_BYTES };
    static const size_t offs[][2] = { { 1, 1 }, { 1, 0 }, { 0, 3 }, { 0, 0 } };
    static const int bits[] = { 8, 16, 32, 64, 128 };
    void *heap;
    size_t z, o, b;
    int mode;

    test_init("rma_put");
    heap = shmem_malloc(HEAP_BYTES);
    scratch = malloc(HEAP_BYTES + 64);
    TEST_ASSERT(heap != NULL && scratch != NULL, "shmem_malloc(%zu) returned NULL", (size_t)HEAP_BYTES);

#define RUN_PUT_TYPE(T, N) put_type_##N(heap);
    TEST_RMA_TYPES(RUN_PUT_TYPE)
    test_note("typed put, ctx put, p, putmem: 24 types checked");

    for (z = 0; z < sizeof(nbytes) / sizeof(nbytes[0]); z++)
        for (mode = 0; mode < MODE_COUNT; mode++) {
            for (o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
                put_bytes_case(heap, HEAP_BYTES, "heap", nbytes[z], offs[o][0], offs[o][1], mode, 0);
                put_bytes_case(static_bytes, STATIC_BYTES, "static", nbytes[z], offs[o][0],
                               offs[o][1], mode, 0);
            }
            for (b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
                put_bytes_case(heap, HEAP_BYTES, "heap", nbytes[z] * (bits[b] / 8), 0, 0, mode, bits[b]);
                put_bytes_case(static_bytes, STATIC_BYTES, "static", nbytes[z] * (bits[b] / 8), 0, 0,
                               mode, bits[b]);
            }
        }
    test_note("unaligned putmem and put8..put128 checked");

    shmem_barrier_all();
    shmem_free(heap);
    free(scratch);
    return test_finish();
}
