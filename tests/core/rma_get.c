/*
 * rma_get: the blocking get family (typed get, ctx get, g, getmem, the SIZE
 * forms) for the 24 standard RMA types, sizes 0, 1, 7, 13, 4096 elements
 * and 1 MiB, unaligned getmem, sources on self, the next PE and all PEs, in
 * the symmetric heap and in static (data segment) arrays.  Every PE checks
 * what it fetched and that nothing past the end of its buffer changed.
 */
#include "common.h"

#define BIG_BYTES ((size_t)1 << 20)
#define HEAP_BYTES (BIG_BYTES + 256)
#define STATIC_ELEMS 4200
#define STATIC_BYTES (64 * 1024 + 256)

enum { MODE_SELF, MODE_NEXT, MODE_ALL, MODE_COUNT };
enum { VAR_GET, VAR_CTX, VAR_G, VAR_MEM, VAR_COUNT };

static const char *mode_name[] = { "self", "next", "all" };

static int salt_counter;
static void *local;
static uint8_t static_bytes[STATIC_BYTES];

static void mode_targets(int mode, int *first, int *count)
{
    *first = mode == MODE_NEXT ? (test_me + 1) % test_npes : mode == MODE_SELF ? test_me : 0;
    *count = mode == MODE_ALL ? test_npes : 1;
}

#define DEFINE_GET_CASE(T, N)                                                      \
    static T static_##N[STATIC_ELEMS];                                             \
    static void get_case_##N(T *area, size_t cap, const char *where, size_t n,     \
                             int mode, int var)                                    \
    {                                                                              \
        T *dst = local;                                                            \
        int salt = ++salt_counter, first, count, k;                                \
        size_t i;                                                                  \
                                                                                   \
        if (n + 1 > cap || (var == VAR_G && n > 13))                               \
            return;                                                                \
        shmem_barrier_all();                                                       \
        for (i = 0; i < n; i++)                                                    \
            area[i] = (T)test_val(test_me, i, salt);                               \
        area[n] = (T)0;                                                            \
        shmem_barrier_all();                                                       \
        mode_targets(mode, &first, &count);                                        \
        for (k = 0; k < count; k++) {                                              \
            int t = (first + k) % test_npes;                                       \
            memset(dst, 0, (n + 1) * sizeof(T));                                   \
            switch (var) {                                                         \
            case VAR_GET: shmem_##N##_get(dst, area, n, t); break;                 \
            case VAR_CTX: shmem_ctx_##N##_get(SHMEM_CTX_DEFAULT, dst, area, n, t); break; \
            case VAR_G:                                                            \
                for (i = 0; i < n; i++)                                            \
                    dst[i] = shmem_##N##_g(area + i, t);                           \
                break;                                                             \
            default: shmem_getmem(dst, area, n * sizeof(T), t); break;             \
            }                                                                      \
            for (i = 0; i <= n; i++) {                                             \
                long double e = i < n ? (long double)(T)test_val(t, i, salt) : 0;  \
                if ((long double)dst[i] != e)                                      \
                    test_fail("shmem_%s %s (%s) n=%zu source=%s PE %d: index %zu: " \
                              "expected %.0Lf, got %.0Lf%s",                       \
                              var == VAR_MEM ? "getmem" : var == VAR_G ? #N "_g" : \
                              var == VAR_CTX ? "ctx_" #N "_get" : #N "_get",       \
                              where, #T, n, mode_name[mode], t, i, e,              \
                              (long double)dst[i], i == n ? " (past the end)" : ""); \
            }                                                                      \
        }                                                                          \
    }                                                                              \
    static void get_type_##N(void *heap)                                           \
    {                                                                              \
        size_t sizes[] = { 0, 1, 7, 13, 4096, BIG_BYTES / sizeof(T) };             \
        size_t z;                                                                  \
        int mode, var;                                                             \
                                                                                   \
        for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)                    \
            for (mode = 0; mode < MODE_COUNT; mode++)                              \
                for (var = 0; var < VAR_COUNT; var++) {                            \
                    get_case_##N(heap, HEAP_BYTES / sizeof(T), "heap", sizes[z], mode, var); \
                    get_case_##N(static_##N, STATIC_ELEMS, "static", sizes[z], mode, var); \
                }                                                                  \
    }
TEST_RMA_TYPES(DEFINE_GET_CASE)

/*
 * Byte-level cases: getmem from source offset soff into local offset doff,
 * or a SIZE form (bits != 0) with nbytes / (bits / 8) elements.
 */
static void get_bytes_case(uint8_t *area, size_t cap, const char *where, size_t nbytes,
                           size_t doff, size_t soff, int mode, int bits)
{
    size_t nelems = bits ? nbytes / (bits / 8) : nbytes, i;
    uint8_t *dst = local;
    int salt = ++salt_counter, first, count, k;

    if (nbytes + soff + 1 > cap)
        return;
    shmem_barrier_all();
    memset(area, 0, soff);
    for (i = 0; i < nbytes; i++)
        area[soff + i] = (uint8_t)test_val(test_me, i, salt);
    area[soff + nbytes] = 0;
    shmem_barrier_all();
    mode_targets(mode, &first, &count);
    for (k = 0; k < count; k++) {
        int t = (first + k) % test_npes;
        memset(dst, 0, doff + nbytes + 1);
        switch (bits) {
        case 8: shmem_get8(dst + doff, area + soff, nelems, t); break;
        case 16: shmem_get16(dst + doff, area + soff, nelems, t); break;
        case 32: shmem_get32(dst + doff, area + soff, nelems, t); break;
        case 64: shmem_get64(dst + doff, area + soff, nelems, t); break;
        case 128: shmem_get128(dst + doff, area + soff, nelems, t); break;
        default:
            if (k & 1)
                shmem_ctx_getmem(SHMEM_CTX_DEFAULT, dst + doff, area + soff, nbytes, t);
            else
                shmem_getmem(dst + doff, area + soff, nbytes, t);
            break;
        }
        for (i = 0; i < doff + nbytes + 1; i++) {
            long long e = i < doff ? 0 : i < doff + nbytes ? test_val(t, i - doff, salt) : 0;
            if (dst[i] != e)
                test_fail("shmem_get%s %s nbytes=%zu doff=%zu soff=%zu source=%s PE %d: "
                          "byte %zu: expected %lld, got %d", bits == 0 ? "mem" :
                          bits == 8 ? "8" : bits == 16 ? "16" : bits == 32 ? "32" :
                          bits == 64 ? "64" : "128", where, nbytes, doff, soff,
                          mode_name[mode], t, i, e, dst[i]);
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

    test_init("rma_get");
    heap = shmem_malloc(HEAP_BYTES);
    local = malloc(HEAP_BYTES + 64);
    TEST_ASSERT(heap != NULL && local != NULL, "shmem_malloc(%zu) returned NULL", (size_t)HEAP_BYTES);

#define RUN_GET_TYPE(T, N) get_type_##N(heap);
    TEST_RMA_TYPES(RUN_GET_TYPE)
    test_note("typed get, ctx get, g, getmem: 24 types checked");

    for (z = 0; z < sizeof(nbytes) / sizeof(nbytes[0]); z++)
        for (mode = 0; mode < MODE_COUNT; mode++) {
            for (o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
                get_bytes_case(heap, HEAP_BYTES, "heap", nbytes[z], offs[o][0], offs[o][1], mode, 0);
                get_bytes_case(static_bytes, STATIC_BYTES, "static", nbytes[z], offs[o][0],
                               offs[o][1], mode, 0);
            }
            for (b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
                get_bytes_case(heap, HEAP_BYTES, "heap", nbytes[z] * (bits[b] / 8), 0, 0, mode, bits[b]);
                get_bytes_case(static_bytes, STATIC_BYTES, "static", nbytes[z] * (bits[b] / 8), 0, 0,
                               mode, bits[b]);
            }
        }
    test_note("unaligned getmem and get8..get128 checked");

    shmem_barrier_all();
    shmem_free(heap);
    free(local);
    return test_finish();
}
