/*
 * gpu_types: every type of every typed family of the device API
 * (docs/device.md), value-checked from kernels at any number of PEs, on
 * every PE, in a ring (next = me + 1, prev = me - 1).  The kernels and the
 * tables are generated from the lists of include/fabshmem/types.def, so a
 * type added there is checked here without an edit:
 *
 *  rma     SHMEMI_RMA_DEVICE_TYPES: p, g, put, put_nbi, get, get_nbi (by a
 *          thread, a warp and a block), iput and iget with strides; the
 *          sized forms (SHMEMI_RMA_SIZES: put8 .. put128 and the rest, the
 *          same routines but p and g) and putmem/getmem.  Each into its
 *          own region from its own offset in the source, with values that
 *          differ by PE, element and type (exact for the floating types,
 *          in range for the small ones); after a device barrier each PE
 *          checks what it got from prev, element by element, and that
 *          nothing else was written (the rest keeps its 0xa5 bytes);
 *  amo     every thread of 2 blocks of every PE hits one word of every PE
 *          per operation: the extended types (fetch, set, swap and their
 *          _nbi forms: each fetch reads its owner's known value; the
 *          values swap returned over the job and the word's last value
 *          sum to the initial value plus the values swapped in), the
 *          standard types (fetch_add, fetch_inc and their _nbi forms,
 *          add, inc, a loop of compare_swap / compare_swap_nbi adding 1:
 *          exact totals, and the values fetch_add and fetch_inc returned
 *          over the job sum to 0 + 1 + ... + M-1, their squares too), the
 *          bitwise types (and, or, xor of bits: the exact words; of the
 *          fetching forms on single bits, exactly one fetch_or of a bit
 *          finds it clear, one fetch_and finds it set, and k fetch_xors of
 *          a bit find it clear ceil(k/2) times);
 *  signal  put_signal and put_signal_nbi of every type, size and putmem by
 *          a thread, a warp and a block, SHMEM_SIGNAL_SET and _ADD: the
 *          receiver waits with signal_wait_until, checks the value it
 *          returned and signal_fetch's, then every element of the data;
 *  p2p     SHMEMI_P2P_TYPES: wait_until with every comparison, test, and
 *          the _all, _any, _some and _vector forms of wait_until and test,
 *          with and without status, on values p'd by prev.
 * One line per family (types, routines, values checked) and a PASS or FAIL
 * line per PE; a mismatch names the routine, the type, the PE, the index,
 * the expected and the value found (the first few), and the exit status
 * is 1.  Where a peer is not mapped the same runs through the proxy
 * (fewer AMO threads and rounds, one compare_swap loop a warp); without a
 * proxy (FABSHMEM_PROXY=0), or without a device heap, it exits 77.
 * GPU_TYPES_TRACE: each step on stderr before it runs.
 */
#include <shmem.h>
#include <shmemx.h>
#include <fabshmem/shmem_device.cuh>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

static int me, npes, next_pe, prev_pe;
static int proxy; /* some peer is not mapped: the routines go through the proxy */
static int trace; /* GPU_TYPES_TRACE */
static long nbad; /* mismatches on this PE */
static int nshown;
#define SHOW_MAX 12 /* mismatches printed */

#define DEVTEST_NAME "gpu_types"
#include "gpu_devtest.h"
/* A wrong value: counted, the first SHOW_MAX printed. */
#define BAD(...) \
    do { \
        nbad++; \
        if (nshown++ < SHOW_MAX) { \
            fprintf(stderr, "gpu_types: PE %d: FAIL: ", me); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
        } \
    } while (0)

/* ---- values ---- */

/* 16 bytes: the elements of the 128-bit sized routines. */
struct b128 {
    unsigned long long w[2];
};
template <int B> struct sized;
template <> struct sized<8> { typedef uint8_t t; };
template <> struct sized<16> { typedef uint16_t t; };
template <> struct sized<32> { typedef uint32_t t; };
template <> struct sized<64> { typedef uint64_t t; };
template <> struct sized<128> { typedef b128 t; };

/* Element i of PE pe's data of the type of index ti: different by PE,
 * element and type; for the floating types a multiple of 1/4 below 2^20
 * in magnitude (exact in float), for the signed ones negative at odd i,
 * always in range. */
template <typename T> __host__ __device__ T val(int pe, long i, int ti)
{
    unsigned long long k = (unsigned long long)pe * 7919u + (unsigned long long)i * 31u +
                           (unsigned long long)ti * 1009u + 1u;
    if (std::is_floating_point<T>::value)
        return (T)(int)(k & 0x3fffff) * (T)0.25 - (T)100000;
    unsigned long long u = k * 0x9e3779b97f4a7c15ull;
    u ^= u >> 29;
    u &= ~0ull >> (64 - 8 * sizeof(T));
    if (std::is_signed<T>::value) {
        u >>= 1;
        if (i & 1)
            return (T)(-(long long)u);
    }
    return (T)u;
}
template <> __host__ __device__ b128 val<b128>(int pe, long i, int ti)
{
    b128 r;
    r.w[0] = val<unsigned long long>(pe, 2 * i, ti);
    r.w[1] = val<unsigned long long>(pe, 2 * i + 1, ti);
    return r;
}

/* The bits of a value of 4 or 8 bytes (AMO words), and back. */
template <typename T> __host__ __device__ unsigned long long bits(T v)
{
    typedef typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type U;
    U u;
    memcpy(&u, &v, sizeof(T));
    return (unsigned long long)u;
}
template <typename T> __host__ __device__ T from_bits(unsigned long long b)
{
    typedef typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type U;
    U u = (U)b;
    T v;
    memcpy(&v, &u, sizeof(T));
    return v;
}
static unsigned long long width_mask(size_t size)
{
    return ~0ull >> (64 - 8 * size);
}

/* A value for messages. */
template <typename T> static void show(char *buf, size_t len, const void *p)
{
    T v;
    memcpy(&v, p, sizeof(T));
    if (std::is_floating_point<T>::value)
        snprintf(buf, len, "%.17g", (double)v);
    else if (std::is_signed<T>::value)
        snprintf(buf, len, "%lld", (long long)v);
    else
        snprintf(buf, len, "%llu", (unsigned long long)v);
}
template <> void show<b128>(char *buf, size_t len, const void *p)
{
    b128 v;
    memcpy(&v, p, sizeof(v));
    snprintf(buf, len, "%#llx:%#llx", v.w[1], v.w[0]);
}
typedef void (*show_fn)(char *, size_t, const void *);

/* ---- what kernels found ---- */

#define NREC 8
struct rec_t {
    int slot, what, pe, kind; /* kind 0: want and got are of the slot's type; 1: long long */
    long long idx;
    unsigned char want[16], got[16];
};
struct bad_t {
    unsigned long long n, checks;
    rec_t r[NREC];
};
__device__ void note(bad_t *b, int slot, int what, int pe, long long idx, int kind,
                     const void *want, const void *got, int size)
{
    unsigned long long k = atomicAdd(&b->n, 1ull);
    if (k < NREC) {
        rec_t *r = &b->r[k];
        r->slot = slot;
        r->what = what;
        r->pe = pe;
        r->kind = kind;
        r->idx = idx;
        memcpy(r->want, want, size);
        memcpy(r->got, got, size);
    }
}
__device__ void note_ll(bad_t *b, int slot, int what, int pe, long long idx, long long want,
                        long long got)
{
    note(b, slot, what, pe, idx, 1, &want, &got, 8);
}
/* p holds want (loads that bypass the SM's cache: data another PE put). */
template <typename T> __device__ bool same_v(const T *p, T want)
{
    const volatile unsigned char *q = (const volatile unsigned char *)p;
    unsigned char w[sizeof(T)];
    memcpy(w, &want, sizeof(T));
    for (size_t i = 0; i < sizeof(T); i++)
        if (q[i] != w[i])
            return false;
    return true;
}
template <typename T> __device__ T load_v(const T *p)
{
    const volatile unsigned char *q = (const volatile unsigned char *)p;
    unsigned char w[sizeof(T)];
    for (size_t i = 0; i < sizeof(T); i++)
        w[i] = q[i];
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
}

static bad_t *bad_d;
/* Prints what the kernels of a family found (name: the routine of a
 * record) and adds it up; the number of checks they made. */
static unsigned long long take_bad(void (*name)(char *, size_t, const rec_t &), show_fn (*shw)(int))
{
    bad_t b;
    CK(cudaMemcpy(&b, bad_d, sizeof(b), cudaMemcpyDeviceToHost));
    for (unsigned long long k = 0; k < b.n && k < NREC; k++) {
        const rec_t &r = b.r[k];
        char rn[160], w[64], g[64];
        name(rn, sizeof(rn), r);
        if (r.kind == 1) {
            long long a, c;
            memcpy(&a, r.want, 8);
            memcpy(&c, r.got, 8);
            snprintf(w, sizeof(w), "%lld", a);
            snprintf(g, sizeof(g), "%lld", c);
        } else {
            shw(r.slot)(w, sizeof(w), r.want);
            shw(r.slot)(g, sizeof(g), r.got);
        }
        BAD("%s, PE %d, index %lld: expected %s, got %s", rn, r.pe, r.idx, w, g);
    }
    if (b.n > NREC) {
        nbad += (long)(b.n - NREC);
        nshown += (int)(b.n - NREC);
    }
    CK(cudaMemset(bad_d, 0, sizeof(bad_t)));
    return b.checks;
}

__global__ void k_barrier(void) { shmemd_barrier_all(); }
/* After a family's kernels: every PE's done and its puts visible. */
static void family_end(const char *fam)
{
    k_barrier<<<1, 1>>>();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    char msg[512];
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    int rc = shmemx_device_check();
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    if (rc != 0) {
        shmemx_error_get(msg, sizeof(msg));
        DIE("%s: a kernel recorded an error (%d): %s", fam, rc, msg);
    }
}
/* One family's run: each of its nslots slots of slot_bytes prepared on
 * the host (prep(image, slot)) and copied into area_d, then each slot's
 * kernels launched (go(slot's area, slot)) after a barrier, then
 * family_end. */
template <typename PREP, typename GO>
static void family_run(const char *fam, char *area_d, size_t slot_bytes, int nslots, PREP prep,
                       GO go)
{
    size_t bytes = (size_t)nslots * slot_bytes;
    unsigned char *img = (unsigned char *)malloc(bytes);
    if (!img)
        DIE("%s: out of host memory", fam);
    for (int s = 0; s < nslots; s++)
        prep(img + s * slot_bytes, s);
    CK(cudaMemcpy(area_d, img, bytes, cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
    free(img);
    shmem_barrier_all();
    for (int s = 0; s < nslots; s++) {
        go(area_d + s * slot_bytes, s);
        CK(cudaGetLastError());
        if (trace)
            CK(cudaDeviceSynchronize());
    }
    family_end(fam);
}

/* Families of the type tables. */
enum { F_TYPED, F_SIZED, F_MEM };
#define COUNT(...) +1

/* ======== rma ======== */

#define NE 131 /* elements each routine moves */
#define NI 40  /* elements of iput and iget */
#define RS 160 /* elements of a region */
enum {
    R_SRC, R_P, R_PUT, R_PUT_W, R_PUT_B, R_PUTNBI, R_PUTNBI_W, R_PUTNBI_B, R_IPUT,
    R_G, R_GET, R_GET_W, R_GET_B, R_GETNBI, R_GETNBI_W, R_GETNBI_B, R_IGET, R_N
};
enum { K_SRC, K_CONT, K_IPUT, K_IGET };
/* Region r: what it holds after the kernels, from which offset of prev's
 * source, written by which routine (of a type's family: %s the type; of
 * the sized ones and putmem: %s the size or "mem"; 0: not written). */
static const struct {
    int kind, off;
    const char *tfmt, *sfmt, *mfmt;
} regions[R_N] = {
    { K_SRC, 0, "the source of shmemd_%s_*", "the source of shmemd_*%s", "the source of shmemd_*%s" },
    { K_CONT, 0, "shmemd_%s_p", 0, 0 },
    { K_CONT, 1, "shmemd_%s_put", "shmemd_put%s", "shmemd_put%s" },
    { K_CONT, 2, "shmemd_%s_put_warp", "shmemd_put%s_warp", "shmemd_put%s_warp" },
    { K_CONT, 3, "shmemd_%s_put_block", "shmemd_put%s_block", "shmemd_put%s_block" },
    { K_CONT, 4, "shmemd_%s_put_nbi", "shmemd_put%s_nbi", "shmemd_put%s_nbi" },
    { K_CONT, 5, "shmemd_%s_put_nbi_warp", "shmemd_put%s_nbi_warp", "shmemd_put%s_nbi_warp" },
    { K_CONT, 6, "shmemd_%s_put_nbi_block", "shmemd_put%s_nbi_block", "shmemd_put%s_nbi_block" },
    { K_IPUT, 0, "shmemd_%s_iput", "shmemd_iput%s", 0 },
    { K_CONT, 7, "shmemd_%s_g", 0, 0 },
    { K_CONT, 8, "shmemd_%s_get", "shmemd_get%s", "shmemd_get%s" },
    { K_CONT, 9, "shmemd_%s_get_warp", "shmemd_get%s_warp", "shmemd_get%s_warp" },
    { K_CONT, 10, "shmemd_%s_get_block", "shmemd_get%s_block", "shmemd_get%s_block" },
    { K_CONT, 11, "shmemd_%s_get_nbi", "shmemd_get%s_nbi", "shmemd_get%s_nbi" },
    { K_CONT, 12, "shmemd_%s_get_nbi_warp", "shmemd_get%s_nbi_warp", "shmemd_get%s_nbi_warp" },
    { K_CONT, 13, "shmemd_%s_get_nbi_block", "shmemd_get%s_nbi_block", "shmemd_get%s_nbi_block" },
    { K_IGET, 0, "shmemd_%s_iget", "shmemd_iget%s", 0 },
};
static const char *region_fmt(int fam, int r)
{
    return fam == F_TYPED ? regions[r].tfmt : fam == F_SIZED ? regions[r].sfmt : regions[r].mfmt;
}
#define RMA_SLOT_BYTES ((size_t)R_N * RS * 16)
#define RG(r) (area + (size_t)(r) * RS)

/* Routine FN by one thread, a warp and the block, into regions RT, RW, RB
 * from the source's elements OFF, OFF + 1 and OFF + 2 on, with PE pe. */
#define THREE_SCOPES(FN, RT, RW, RB, OFF, PE) \
    if (t == 0) \
        FN(RG(RT), src + (OFF), NE, PE); \
    if (t < 32) \
        FN##_warp(RG(RW), src + (OFF) + 1, NE, PE); \
    FN##_block(RG(RB), src + (OFF) + 2, NE, PE);
/* One kernel a type (or size): every routine once, each into its region
 * of next (puts) or of this PE (gets from prev), from its offset in the
 * source.  EXTRA(ARG): the family's own routines (p, g, iput, iget). */
#define MOVES_KERNEL(KN, T, PUT, PUTNBI, GET, GETNBI, EXTRA, ARG) \
    __global__ void __launch_bounds__(128) KN(T *area, int next, int prev) \
    { \
        const T *src = RG(R_SRC); \
        int t = threadIdx.x; \
        THREE_SCOPES(PUT, R_PUT, R_PUT_W, R_PUT_B, 1, next) \
        THREE_SCOPES(PUTNBI, R_PUTNBI, R_PUTNBI_W, R_PUTNBI_B, 4, next) \
        THREE_SCOPES(GET, R_GET, R_GET_W, R_GET_B, 8, prev) \
        THREE_SCOPES(GETNBI, R_GETNBI, R_GETNBI_W, R_GETNBI_B, 11, prev) \
        EXTRA(ARG) \
        shmemd_quiet(); \
    }
#define TYPED_EXTRA(N) \
    for (int i = t; i < NE; i += blockDim.x) \
        shmemd_##N##_p(RG(R_P) + i, src[i], next); \
    for (int i = t; i < NE; i += blockDim.x) \
        RG(R_G)[i] = shmemd_##N##_g(src + 7 + i, prev); \
    if (t == 0) { \
        shmemd_##N##_iput(RG(R_IPUT), src, 3, 2, NI, next); \
        shmemd_##N##_iget(RG(R_IGET), src, 2, 3, NI, prev); \
    }
#define SIZED_EXTRA(B) \
    if (t == 0) { \
        shmemd_iput##B(RG(R_IPUT), src, 3, 2, NI, next); \
        shmemd_iget##B(RG(R_IGET), src, 2, 3, NI, prev); \
    }
#define NO_EXTRA(X)

#define RMA_TYPED(T, N) \
    MOVES_KERNEL(k_rma_##N, T, shmemd_##N##_put, shmemd_##N##_put_nbi, shmemd_##N##_get, \
                 shmemd_##N##_get_nbi, TYPED_EXTRA, N) \
    static void launch_rma_##N(char *a) { k_rma_##N<<<1, 128>>>((T *)a, next_pe, prev_pe); }
SHMEMI_RMA_DEVICE_TYPES(RMA_TYPED)
#define RMA_SIZED(B) \
    MOVES_KERNEL(k_rma_##B, sized<B>::t, shmemd_put##B, shmemd_put##B##_nbi, shmemd_get##B, \
                 shmemd_get##B##_nbi, SIZED_EXTRA, B) \
    static void launch_rma_##B(char *a) \
    { \
        k_rma_##B<<<1, 128>>>((sized<B>::t *)a, next_pe, prev_pe); \
    }
SHMEMI_RMA_SIZES(RMA_SIZED)
MOVES_KERNEL(k_rma_mem, unsigned char, shmemd_putmem, shmemd_putmem_nbi, shmemd_getmem,
             shmemd_getmem_nbi, NO_EXTRA, x)
static void launch_rma_mem(char *a) { k_rma_mem<<<1, 128>>>((unsigned char *)a, next_pe, prev_pe); }

/* This PE's slot before the kernels: its source, the rest 0xa5. */
template <typename T> static void fill_rma(unsigned char *slot, int ti)
{
    memset(slot, 0xa5, RMA_SLOT_BYTES);
    for (int i = 0; i < RS; i++) {
        T v = val<T>(me, i, ti);
        memcpy(slot + (size_t)i * sizeof(T), &v, sizeof(T));
    }
}
/* Checks this PE's slot after the kernels; the number of elements checked. */
template <typename T>
static long check_rma(const unsigned char *slot, int fam, const char *name, int ti)
{
    long n = 0;
    T sentinel;
    memset(&sentinel, 0xa5, sizeof(T));
    for (int r = 0; r < R_N; r++) {
        const char *fmt = region_fmt(fam, r);
        int shown = 0;
        for (int i = 0; i < RS; i++) {
            T want = sentinel, got;
            int from = -1; /* the element of the sender's source */
            memcpy(&got, slot + ((size_t)r * RS + i) * sizeof(T), sizeof(T));
            if (regions[r].kind == K_SRC)
                from = i;
            else if (!fmt)
                ;
            else if (regions[r].kind == K_CONT && i < NE)
                from = i + regions[r].off;
            else if (regions[r].kind == K_IPUT && i % 3 == 0 && i / 3 < NI)
                from = 2 * (i / 3);
            else if (regions[r].kind == K_IGET && i % 2 == 0 && i / 2 < NI)
                from = 3 * (i / 2);
            if (from >= 0)
                want = val<T>(regions[r].kind == K_SRC ? me : prev_pe, from, ti);
            n++;
            if (!memcmp(&want, &got, sizeof(T)))
                continue;
            if (shown++ >= 3) {
                nbad++;
                continue;
            }
            char rn[96], w[64], g[64];
            snprintf(rn, sizeof(rn), fmt ? fmt : "a routine of %s (no routine writes here)", name);
            show<T>(w, sizeof(w), &want);
            show<T>(g, sizeof(g), &got);
            if (from >= 0 && regions[r].kind != K_SRC)
                BAD("%s (%s): from PE %d, element %d: expected %s (its source's element %d), got %s",
                    rn, name, prev_pe, i, w, from, g);
            else if (from >= 0)
                BAD("%s (%s): element %d changed: expected %s, got %s", rn, name, i, w, g);
            else
                BAD("%s (%s): element %d, past what it moves (from PE %d), was written: got %s",
                    rn, name, i, prev_pe, g);
        }
    }
    return n;
}

struct rma_slot {
    const char *name;
    int fam;
    void (*launch)(char *);
    void (*fill)(unsigned char *, int);
    long (*check)(const unsigned char *, int, const char *, int);
};
#define RMA_ENT_T(T, N) { #N, F_TYPED, launch_rma_##N, fill_rma<T>, check_rma<T> },
#define RMA_ENT_S(B) { #B, F_SIZED, launch_rma_##B, fill_rma<sized<B>::t>, check_rma<sized<B>::t> },
static const rma_slot rma_slots[] = {
    SHMEMI_RMA_DEVICE_TYPES(RMA_ENT_T) SHMEMI_RMA_SIZES(RMA_ENT_S)
    { "mem", F_MEM, launch_rma_mem, fill_rma<unsigned char>, check_rma<unsigned char> },
};
#define N_RMA_SLOTS ((int)(sizeof(rma_slots) / sizeof(rma_slots[0])))
enum { N_RMA_TYPES = 0 SHMEMI_RMA_DEVICE_TYPES(COUNT), N_SIZES = 0 SHMEMI_RMA_SIZES(COUNT) };

static int n_routines(int fam)
{
    int k = 0;
    for (int r = 0; r < R_N; r++)
        k += regions[r].kind != K_SRC && region_fmt(fam, r) != 0;
    return k;
}

static void test_rma(char *area_d)
{
    size_t bytes = (size_t)N_RMA_SLOTS * RMA_SLOT_BYTES;
    long nchecks = 0, bad0 = nbad;
    family_run("rma", area_d, RMA_SLOT_BYTES, N_RMA_SLOTS,
               [](unsigned char *img, int s) { rma_slots[s].fill(img, s); },
               [](char *a, int s) {
                   STEP("rma: %s", rma_slots[s].name);
                   rma_slots[s].launch(a);
               });
    unsigned char *img = (unsigned char *)malloc(bytes);
    if (!img)
        DIE("rma: out of host memory");
    CK(cudaMemcpy(img, area_d, bytes, cudaMemcpyDeviceToHost));
    for (int s = 0; s < N_RMA_SLOTS; s++)
        nchecks += rma_slots[s].check(img + s * RMA_SLOT_BYTES, rma_slots[s].fam,
                                      rma_slots[s].name, s);
    free(img);
    printf("gpu_types: PE %d: rma: %d types x %d routines (p, g, put, put_nbi, get, get_nbi by a "
           "thread, a warp and a block, iput, iget), %d sizes x %d, putmem/getmem x %d: %ld "
           "values checked: %s\n",
           me, N_RMA_TYPES, n_routines(F_TYPED), N_SIZES, n_routines(F_SIZED), n_routines(F_MEM),
           nchecks, nbad == bad0 ? "PASS" : "FAIL");
}

/* ======== signal ======== */

/* A slot: the source and 6 data regions (RS elements each), then the 6
 * signal words.  Variant v: scope v % 3 (thread, warp, block), _nbi from
 * v = 3, SHMEM_SIGNAL_ADD when v is odd (the word starts at SIG_BASE),
 * else SET (the word starts at 0). */
#define SIG_VARIANTS 6
#define SIG_WORDS_AT ((size_t)7 * RS * 16)
#define SIG_SLOT_BYTES (SIG_WORDS_AT + 64)
#define SIG_BASE 7ull
__host__ __device__ uint64_t sig_value(int pe, int ti, int v)
{
    return (uint64_t)(pe + 1) * 1000003ull + (uint64_t)ti * 101u + (uint64_t)v +
           ((uint64_t)(v + 1) << 40);
}
__host__ __device__ uint64_t sig_want(int pe, int ti, int v)
{
    return (v & 1) ? SIG_BASE + sig_value(pe, ti, v) : sig_value(pe, ti, v);
}
#define SIGNAL_KERNEL(KN, T, PS, PSNBI) \
    __global__ void __launch_bounds__(64) \
        KN(T *area, int me, int next, int prev, int ti, bad_t *bad) \
    { \
        const T *src = area; \
        uint64_t *sig = (uint64_t *)((char *)area + SIG_WORDS_AT); \
        int t = threadIdx.x; \
        unsigned long long nck = 0; \
        if (t == 0) \
            PS(area + 1 * RS, src + 1, NE, sig + 0, sig_value(me, ti, 0), SHMEM_SIGNAL_SET, next); \
        if (t < 32) \
            PS##_warp(area + 2 * RS, src + 2, NE, sig + 1, sig_value(me, ti, 1), \
                      SHMEM_SIGNAL_ADD, next); \
        PS##_block(area + 3 * RS, src + 3, NE, sig + 2, sig_value(me, ti, 2), SHMEM_SIGNAL_SET, \
                   next); \
        if (t == 0) \
            PSNBI(area + 4 * RS, src + 4, NE, sig + 3, sig_value(me, ti, 3), SHMEM_SIGNAL_ADD, \
                  next); \
        if (t < 32) \
            PSNBI##_warp(area + 5 * RS, src + 5, NE, sig + 4, sig_value(me, ti, 4), \
                         SHMEM_SIGNAL_SET, next); \
        PSNBI##_block(area + 6 * RS, src + 6, NE, sig + 5, sig_value(me, ti, 5), \
                      SHMEM_SIGNAL_ADD, next); \
        signal_check(area, sig, prev, ti, bad, &nck); \
        shmemd_quiet(); \
        atomicAdd(&bad->checks, nck); \
    }
/* The receiver's side: each signal from prev, then its data. */
template <typename T>
__device__ void signal_check(T *area, uint64_t *sig, int prev, int ti, bad_t *bad,
                             unsigned long long *nck)
{
    int t = threadIdx.x;
    for (int v = 0; v < SIG_VARIANTS; v++) {
        if (t == 0) {
            uint64_t want = sig_want(prev, ti, v);
            uint64_t got = shmemd_signal_wait_until(sig + v, SHMEM_CMP_EQ, want);
            if (got != want)
                note_ll(bad, ti, v * 3 + 0, prev, 0, (long long)want, (long long)got);
            got = shmemd_signal_fetch(sig + v);
            if (got != want)
                note_ll(bad, ti, v * 3 + 1, prev, 0, (long long)want, (long long)got);
            *nck += 2;
        }
        __syncthreads();
        const T *d = area + (size_t)(1 + v) * RS;
        for (int i = t; i < RS; i += blockDim.x) {
            T want;
            if (i < NE)
                want = val<T>(prev, i + 1 + v, ti);
            else
                memset(&want, 0xa5, sizeof(T));
            if (!same_v(d + i, want)) {
                T got = load_v(d + i);
                note(bad, ti, v * 3 + 2, prev, i, 0, &want, &got, sizeof(T));
            }
            (*nck)++;
        }
        __syncthreads();
    }
}
#define SIG_TYPED(T, N) \
    SIGNAL_KERNEL(k_sig_##N, T, shmemd_##N##_put_signal, shmemd_##N##_put_signal_nbi) \
    static void launch_sig_##N(char *a, int ti) \
    { \
        k_sig_##N<<<1, 64>>>((T *)a, me, next_pe, prev_pe, ti, bad_d); \
    }
SHMEMI_RMA_DEVICE_TYPES(SIG_TYPED)
#define SIG_SIZED(B) \
    SIGNAL_KERNEL(k_sig_##B, sized<B>::t, shmemd_put##B##_signal, shmemd_put##B##_signal_nbi) \
    static void launch_sig_##B(char *a, int ti) \
    { \
        k_sig_##B<<<1, 64>>>((sized<B>::t *)a, me, next_pe, prev_pe, ti, bad_d); \
    }
SHMEMI_RMA_SIZES(SIG_SIZED)
SIGNAL_KERNEL(k_sig_mem, unsigned char, shmemd_putmem_signal, shmemd_putmem_signal_nbi)
static void launch_sig_mem(char *a, int ti)
{
    k_sig_mem<<<1, 64>>>((unsigned char *)a, me, next_pe, prev_pe, ti, bad_d);
}

template <typename T> static void fill_sig(unsigned char *slot, int ti)
{
    memset(slot, 0xa5, SIG_SLOT_BYTES);
    for (int i = 0; i < RS; i++) {
        T v = val<T>(me, i, ti);
        memcpy(slot + (size_t)i * sizeof(T), &v, sizeof(T));
    }
    uint64_t w[SIG_VARIANTS];
    for (int v = 0; v < SIG_VARIANTS; v++)
        w[v] = (v & 1) ? SIG_BASE : 0;
    memcpy(slot + SIG_WORDS_AT, w, sizeof(w));
}
struct sig_slot {
    const char *name;
    int fam;
    void (*launch)(char *, int);
    void (*fill)(unsigned char *, int);
    show_fn show;
};
#define SIG_ENT_T(T, N) { #N, F_TYPED, launch_sig_##N, fill_sig<T>, show<T> },
#define SIG_ENT_S(B) { #B, F_SIZED, launch_sig_##B, fill_sig<sized<B>::t>, show<sized<B>::t> },
static const sig_slot sig_slots[] = {
    SHMEMI_RMA_DEVICE_TYPES(SIG_ENT_T) SHMEMI_RMA_SIZES(SIG_ENT_S)
    { "mem", F_MEM, launch_sig_mem, fill_sig<unsigned char>, show<unsigned char> },
};
#define N_SIG_SLOTS ((int)(sizeof(sig_slots) / sizeof(sig_slots[0])))
static show_fn sig_show(int slot) { return sig_slots[slot].show; }
static void sig_name(char *buf, size_t len, const rec_t &r)
{
    static const char *scope[] = { "", "_warp", "_block" };
    static const char *what[] = { "the value signal_wait_until returned",
                                  "shmemd_signal_fetch after the wait",
                                  "the data once the signal was seen" };
    const sig_slot &s = sig_slots[r.slot];
    int v = r.what / 3;
    char rn[64];
    if (s.fam == F_TYPED)
        snprintf(rn, sizeof(rn), "shmemd_%s_put_signal%s%s", s.name, v >= 3 ? "_nbi" : "",
                 scope[v % 3]);
    else
        snprintf(rn, sizeof(rn), "shmemd_put%s_signal%s%s", s.name, v >= 3 ? "_nbi" : "",
                 scope[v % 3]);
    snprintf(buf, len, "%s (%s) with SHMEM_SIGNAL_%s: %s", rn, s.name, (v & 1) ? "ADD" : "SET",
             what[r.what % 3]);
}

static void test_signal(char *area_d)
{
    long bad0 = nbad;
    family_run("signal", area_d, SIG_SLOT_BYTES, N_SIG_SLOTS,
               [](unsigned char *img, int s) { sig_slots[s].fill(img, s); },
               [](char *a, int s) {
                   STEP("signal: %s", sig_slots[s].name);
                   sig_slots[s].launch(a, s);
               });
    unsigned long long nchecks = take_bad(sig_name, sig_show);
    printf("gpu_types: PE %d: signal: %d types, %d sizes and putmem x put_signal, put_signal_nbi "
           "by a thread, a warp and a block, SET and ADD, signal_wait_until, signal_fetch: %llu "
           "values checked: %s\n",
           me, N_RMA_TYPES, N_SIZES, nchecks, nbad == bad0 ? "PASS" : "FAIL");
}

/* ======== amo ======== */

/* The words of a slot (8 bytes apart) and the sums kept for each target
 * PE (acc[a * npes + pe], over the job after the host's reduction). */
enum { W_FETCH, W_SWAP, W_SET, W_FADD, W_ADD, W_FINC, W_INC, W_CAS,
       W_OR, W_FOR, W_AND, W_FAND, W_XOR, W_FXOR, W_N };
enum { A_SWAP, A_FADD, A_FADDSQ, A_FINC, A_FOR, A_FAND, A_FXOR, A_N };
#define AMO_SLOT_BYTES 128
#define AMO_BLOCKS 2
struct amo_par {
    int me, npes, iters, cas_all, ti;
};
#define W(k) ((decltype(w))((char *)w + (k) * 8))
#define ACC(a, pe) (acc + (size_t)(a) * p.npes + (pe))
/* Thread g's value of round it: 1 .. M, each once (exact in float). */
template <typename T> __host__ __device__ T uval(long g, int it, int iters)
{
    return (T)(g * iters + it + 1);
}
/* Thread g's addend of round it: 1 .. 5, negative for odd g + it (which
 * wraps in the unsigned types). */
__host__ __device__ long long addv(long g, int it)
{
    long long v = (g * 7 + it) % 5 + 1;
    return ((g + it) & 1) ? -v : v;
}
__host__ __device__ int bit_of(long g, int it, int nbits)
{
    return (int)((g * 3 + it * 5) % nbits);
}
__host__ __device__ unsigned long long xmask(long g, int it)
{
    return val<unsigned long long>((int)g, it, 77);
}

/* The parts every AMO kernel shares: AMO_THREAD, the thread's number in
 * the job; AMO_ROUNDS { ... }, p.iters rounds over every PE (pe), from
 * this block's own on; FETCH_NBI_OR_NOT, a fetching AMO FN into F, by its
 * _nbi form and a quiet in odd rounds, blocking in even ones. */
#define AMO_THREAD (((long)p.me * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x)
#define AMO_ROUNDS \
    for (int it = 0; it < p.iters; it++) \
        for (int k = 0, pe = (p.me + (int)blockIdx.x) % p.npes; k < p.npes; \
             k++, pe = (pe + 1) % p.npes)
#define FETCH_NBI_OR_NOT(it, F, FN, ...) \
    do { \
        if ((it) & 1) { \
            FN##_nbi(&(F), __VA_ARGS__); \
            shmemd_quiet(); \
        } else { \
            (F) = FN(__VA_ARGS__); \
        } \
    } while (0)

/* fetch, set, swap (the extended types), on every PE's words. */
#define AMO_EXT_KERNEL(T, N) \
    __global__ void k_amo_ext_##N(T *w, unsigned long long *acc, bad_t *bad, amo_par p) \
    { \
        long g = AMO_THREAD; \
        unsigned long long nck = 0; \
        AMO_ROUNDS { \
                T f, want = val<T>(pe, 0, p.ti), u = uval<T>(g, it, p.iters); \
                FETCH_NBI_OR_NOT(it, f, shmemd_##N##_atomic_fetch, W(W_FETCH), pe); \
                if (bits(f) != bits(want)) \
                    note(bad, p.ti, it & 1, pe, g, 0, &want, &f, sizeof(T)); \
                nck++; \
                FETCH_NBI_OR_NOT(it, f, shmemd_##N##_atomic_swap, W(W_SWAP), u, pe); \
                atomicAdd(ACC(A_SWAP, pe), bits(f)); \
                shmemd_##N##_atomic_set(W(W_SET), u, pe); \
            } \
        atomicAdd(&bad->checks, nck); \
    }
SHMEMI_AMO_EXTENDED_TYPES(AMO_EXT_KERNEL)

/* compare_swap, fetch_inc, inc, fetch_add, add (the standard types). */
#define AMO_STD_KERNEL(T, N) \
    __global__ void k_amo_std_##N(T *w, unsigned long long *acc, bad_t *bad, amo_par p) \
    { \
        long g = AMO_THREAD; \
        (void)bad; \
        AMO_ROUNDS { \
                T f; \
                FETCH_NBI_OR_NOT(it, f, shmemd_##N##_atomic_fetch_add, W(W_FADD), (T)1, pe); \
                atomicAdd(ACC(A_FADD, pe), (unsigned long long)f); \
                atomicAdd(ACC(A_FADDSQ, pe), (unsigned long long)f * (unsigned long long)f); \
                shmemd_##N##_atomic_add(W(W_ADD), (T)addv(g, it), pe); \
                FETCH_NBI_OR_NOT(it, f, shmemd_##N##_atomic_fetch_inc, W(W_FINC), pe); \
                atomicAdd(ACC(A_FINC, pe), (unsigned long long)f); \
                shmemd_##N##_atomic_inc(W(W_INC), pe); \
                if (p.cas_all || threadIdx.x % 32 == 0) { \
                    T old = shmemd_##N##_atomic_fetch(W(W_CAS), pe), seen; \
                    for (;;) { \
                        FETCH_NBI_OR_NOT(it, seen, shmemd_##N##_atomic_compare_swap, W(W_CAS), \
                                         old, (T)(old + 1), pe); \
                        if (seen == old) \
                            break; \
                        old = seen; \
                    } \
                } \
            } \
    }
SHMEMI_AMO_STANDARD_TYPES(AMO_STD_KERNEL)

/* and, or, xor and their fetching forms (the bitwise types). */
#define AMO_BIT_KERNEL(T, N) \
    __global__ void k_amo_bit_##N(T *w, unsigned long long *acc, bad_t *bad, amo_par p) \
    { \
        long g = AMO_THREAD; \
        (void)bad; \
        AMO_ROUNDS { \
                int b = bit_of(g, it, 8 * (int)sizeof(T)); \
                T m = from_bits<T>(1ull << b), nm = from_bits<T>(~(1ull << b)), f; \
                shmemd_##N##_atomic_or(W(W_OR), m, pe); \
                FETCH_NBI_OR_NOT(it, f, shmemd_##N##_atomic_fetch_or, W(W_FOR), m, pe); \
                if (!(bits(f) >> b & 1)) \
                    atomicAdd(ACC(A_FOR, pe), 1ull); \
                shmemd_##N##_atomic_and(W(W_AND), nm, pe); \
                FETCH_NBI_OR_NOT(it, f, shmemd_##N##_atomic_fetch_and, W(W_FAND), nm, pe); \
                if (bits(f) >> b & 1) \
                    atomicAdd(ACC(A_FAND, pe), 1ull); \
                shmemd_##N##_atomic_xor(W(W_XOR), from_bits<T>(xmask(g, it)), pe); \
                FETCH_NBI_OR_NOT(it, f, shmemd_##N##_atomic_fetch_xor, W(W_FXOR), m, pe); \
                if (!(bits(f) >> b & 1)) \
                    atomicAdd(ACC(A_FXOR, pe), 1ull); \
            } \
    }
SHMEMI_AMO_BITWISE_TYPES(AMO_BIT_KERNEL)
#undef W
#undef ACC

/* The threads and rounds of the AMO kernels. */
static int amo_threads, amo_iters, amo_cas_all;
enum { AF_EXT, AF_STD, AF_BIT };
static const char *amo_fam_name[] = { "extended", "standard", "bitwise" };
typedef void (*amo_launch_fn)(char *, unsigned long long *, amo_par);
#define AMO_LAUNCH(F, T, N) \
    static void launch_amo_##F##_##N(char *w, unsigned long long *acc, amo_par p) \
    { \
        k_amo_##F##_##N<<<AMO_BLOCKS, amo_threads>>>((T *)w, acc, bad_d, p); \
    }
#define AMO_LAUNCH_EXT(T, N) AMO_LAUNCH(ext, T, N)
#define AMO_LAUNCH_STD(T, N) AMO_LAUNCH(std, T, N)
#define AMO_LAUNCH_BIT(T, N) AMO_LAUNCH(bit, T, N)
SHMEMI_AMO_EXTENDED_TYPES(AMO_LAUNCH_EXT)
SHMEMI_AMO_STANDARD_TYPES(AMO_LAUNCH_STD)
SHMEMI_AMO_BITWISE_TYPES(AMO_LAUNCH_BIT)

/* The words' values before the kernels. */
template <typename T> static void init_amo(unsigned char *slot, int fam, int ti)
{
    memset(slot, 0, AMO_SLOT_BYTES);
    T v = val<T>(me, 0, ti);
    if (fam == AF_EXT)
        memcpy(slot + W_FETCH * 8, &v, sizeof(T));
    unsigned long long ones = ~0ull;
    memcpy(slot + W_AND * 8, &ones, sizeof(T));
    memcpy(slot + W_FAND * 8, &ones, sizeof(T));
}

/* Thread g's value (uval) that v is, or -1. */
template <typename T> static long long uval_index(T v, long long m)
{
    double d = (double)v;
    if (d != (double)(long long)d || d < 1 || d > (double)m)
        return -1;
    return (long long)d;
}

/* The checks of this PE's words and of the sums over the job for them;
 * the number of checks. */
template <typename T>
static long check_amo(const unsigned char *slot, const unsigned long long *tot, int fam,
                      const char *name, int ti)
{
    long n = 0;
    long nt = (long)npes * AMO_BLOCKS * amo_threads; /* threads of the job */
    long long m = (long long)nt * amo_iters;         /* updates of each word */
    char w[64], g[64];
    T word[W_N];
    for (int k = 0; k < W_N; k++)
        memcpy(&word[k], slot + k * 8, sizeof(T));
#define EXPECT(rtn, wn, wantv) \
    do { \
        T want_ = (wantv); \
        n++; \
        if (bits(word[wn]) != bits(want_)) { \
            show<T>(w, sizeof(w), &want_); \
            show<T>(g, sizeof(g), &word[wn]); \
            BAD("shmemd_%s_atomic_%s (%s) under contention (%lld updates): PE %d's word is %s, " \
                "expected %s", name, rtn, name, m, me, g, w); \
        } \
    } while (0)
#define EXPECT_SUM(rtn, a, want) \
    do { \
        unsigned long long want_ = (want); \
        n++; \
        if (tot[(size_t)(a) * npes + me] != want_) \
            BAD("shmemd_%s_atomic_%s (%s): over the job, on PE %d's word, the values fetched " \
                "give %llu, expected %llu (%s)", name, rtn, name, me, \
                tot[(size_t)(a) * npes + me], want_, #want); \
    } while (0)
    if (fam == AF_EXT) {
        /* swap: what was fetched and the last value = 0 and what was swapped in. */
        unsigned long long in = 0;
        for (long t = 0; t < nt; t++)
            for (int it = 0; it < amo_iters; it++)
                in += bits(uval<T>(t, it, amo_iters));
        n++;
        if (tot[(size_t)A_SWAP * npes + me] + bits(word[W_SWAP]) != in) {
            show<T>(g, sizeof(g), &word[W_SWAP]);
            BAD("shmemd_%s_atomic_swap (%s): on PE %d's word, the bits of the values fetched "
                "over the job and of the last (%s) sum to %llu, not to those swapped in, %llu",
                name, name, me, g, tot[(size_t)A_SWAP * npes + me] + bits(word[W_SWAP]), in);
        }
        n += 2;
        if (uval_index(word[W_SWAP], m) < 0) {
            show<T>(g, sizeof(g), &word[W_SWAP]);
            BAD("shmemd_%s_atomic_swap (%s): PE %d's word is %s, not a value swapped in (1 .. "
                "%lld)", name, name, me, g, m);
        }
        if (uval_index(word[W_SET], m) < 0) {
            show<T>(g, sizeof(g), &word[W_SET]);
            BAD("shmemd_%s_atomic_set (%s): PE %d's word is %s, not a value set (1 .. %lld)",
                name, name, me, g, m);
        }
        EXPECT("fetch", W_FETCH, val<T>(me, 0, ti)); /* only fetched */
    } else if (fam == AF_STD) {
        unsigned long long add = 0, sq = 0;
        long ncas = amo_cas_all ? nt : (long)npes * AMO_BLOCKS * ((amo_threads + 31) / 32);
        for (long t = 0; t < nt; t++)
            for (int it = 0; it < amo_iters; it++)
                add += (unsigned long long)(T)addv(t, it);
        for (long long k = 0; k < m; k++)
            sq += (unsigned long long)k * (unsigned long long)k;
        EXPECT("fetch_add", W_FADD, (T)m);
        EXPECT("add", W_ADD, (T)add);
        EXPECT("fetch_inc", W_FINC, (T)m);
        EXPECT("inc", W_INC, (T)m);
        EXPECT("compare_swap", W_CAS, (T)((long long)ncas * amo_iters));
        EXPECT_SUM("fetch_add", A_FADD, (unsigned long long)(m * (m - 1) / 2));
        EXPECT_SUM("fetch_add", A_FADDSQ, sq);
        EXPECT_SUM("fetch_inc", A_FINC, (unsigned long long)(m * (m - 1) / 2));
    } else {
        int nb = 8 * (int)sizeof(T);
        unsigned long long any = 0, x = 0, odd = 0, xors_clear = 0;
        long kb[64] = { 0 };
        for (long t = 0; t < nt; t++)
            for (int it = 0; it < amo_iters; it++) {
                int b = bit_of(t, it, nb);
                any |= 1ull << b;
                odd ^= 1ull << b;
                kb[b]++;
                x ^= xmask(t, it);
            }
        for (int b = 0; b < nb; b++)
            xors_clear += (unsigned long long)(kb[b] + 1) / 2;
        unsigned long long wm = width_mask(sizeof(T)), nset = (unsigned long long)__builtin_popcountll(any);
        EXPECT("or", W_OR, from_bits<T>(any));
        EXPECT("fetch_or", W_FOR, from_bits<T>(any));
        EXPECT("and", W_AND, from_bits<T>(~any & wm));
        EXPECT("fetch_and", W_FAND, from_bits<T>(~any & wm));
        EXPECT("xor", W_XOR, from_bits<T>(x & wm));
        EXPECT("fetch_xor", W_FXOR, from_bits<T>(odd));
        EXPECT_SUM("fetch_or", A_FOR, nset);
        EXPECT_SUM("fetch_and", A_FAND, nset);
        EXPECT_SUM("fetch_xor", A_FXOR, xors_clear);
    }
#undef EXPECT
#undef EXPECT_SUM
    return n;
}

struct amo_slot {
    const char *name;
    int fam;
    amo_launch_fn launch;
    void (*init)(unsigned char *, int, int);
    long (*check)(const unsigned char *, const unsigned long long *, int, const char *, int);
    show_fn show;
};
#define AMO_ENT(F, AF, T, N) { #N, AF, launch_amo_##F##_##N, init_amo<T>, check_amo<T>, show<T> },
#define AMO_ENT_EXT(T, N) AMO_ENT(ext, AF_EXT, T, N)
#define AMO_ENT_STD(T, N) AMO_ENT(std, AF_STD, T, N)
#define AMO_ENT_BIT(T, N) AMO_ENT(bit, AF_BIT, T, N)
static const amo_slot amo_slots[] = {
    SHMEMI_AMO_EXTENDED_TYPES(AMO_ENT_EXT) SHMEMI_AMO_STANDARD_TYPES(AMO_ENT_STD)
    SHMEMI_AMO_BITWISE_TYPES(AMO_ENT_BIT)
};
#define N_AMO_SLOTS ((int)(sizeof(amo_slots) / sizeof(amo_slots[0])))
enum {
    N_AMO_EXT = 0 SHMEMI_AMO_EXTENDED_TYPES(COUNT),
    N_AMO_STD = 0 SHMEMI_AMO_STANDARD_TYPES(COUNT),
    N_AMO_BIT = 0 SHMEMI_AMO_BITWISE_TYPES(COUNT)
};
static show_fn amo_show(int slot) { return amo_slots[slot].show; }
static void amo_name(char *buf, size_t len, const rec_t &r)
{
    snprintf(buf, len, "shmemd_%s_atomic_fetch%s (%s) of the word its PE set before, by thread "
             "(index) of the job", amo_slots[r.slot].name, r.what ? "_nbi" : "",
             amo_slots[r.slot].name);
}

static unsigned long long *acc_src, *acc_dst; /* symmetric (host): the sums to reduce */
static void test_amo(char *area_d)
{
    size_t bytes = (size_t)N_AMO_SLOTS * AMO_SLOT_BYTES, nacc = (size_t)N_AMO_SLOTS * A_N * npes;
    unsigned long long *acc_d;
    long nchecks = 0, bad0 = nbad;
    CK(cudaMalloc(&acc_d, nacc * 8));
    CK(cudaMemset(acc_d, 0, nacc * 8));
    family_run("amo", area_d, AMO_SLOT_BYTES, N_AMO_SLOTS,
               [](unsigned char *img, int s) { amo_slots[s].init(img, amo_slots[s].fam, s); },
               [acc_d](char *a, int s) {
                   amo_par p = { me, npes, amo_iters, amo_cas_all, s };
                   STEP("amo: %s %s", amo_fam_name[amo_slots[s].fam], amo_slots[s].name);
                   amo_slots[s].launch(a, acc_d + (size_t)s * A_N * npes, p);
               });
    unsigned char *img = (unsigned char *)malloc(bytes);
    if (!img)
        DIE("amo: out of host memory");
    CK(cudaMemcpy(acc_src, acc_d, nacc * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(img, area_d, bytes, cudaMemcpyDeviceToHost));
    shmem_barrier_all();
    if (shmem_ulonglong_sum_reduce(SHMEM_TEAM_WORLD, acc_dst, acc_src, nacc))
        DIE("shmem_ulonglong_sum_reduce of the AMO sums failed");
    for (int s = 0; s < N_AMO_SLOTS; s++)
        nchecks += amo_slots[s].check(img + s * AMO_SLOT_BYTES, acc_dst + (size_t)s * A_N * npes,
                                      amo_slots[s].fam, amo_slots[s].name, s);
    nchecks += (long)take_bad(amo_name, amo_show);
    free(img);
    CK(cudaFree(acc_d));
    printf("gpu_types: PE %d: amo: %d extended types x fetch, set, swap (and _nbi), %d standard "
           "x compare_swap, fetch_inc, inc, fetch_add, add (and _nbi), %d bitwise x and, or, xor "
           "(and fetching, _nbi), by %d blocks x %d threads x %d rounds of every PE on every PE's "
           "words: %ld values checked: %s\n",
           me, N_AMO_EXT, N_AMO_STD, N_AMO_BIT, AMO_BLOCKS, amo_threads, amo_iters, nchecks,
           nbad == bad0 ? "PASS" : "FAIL");
}

/* ======== p2p ======== */

/* The routines of a point-to-point type, for the kernel template. */
#define P2P_OPS(T, N) \
    struct p2p_##N { \
        typedef T t; \
        static __device__ void p(T *d, T v, int pe) { shmemd_##N##_p(d, v, pe); } \
        static __device__ void wait_until(T *i, int c, T v) { shmemd_##N##_wait_until(i, c, v); } \
        static __device__ void wait_until_all(T *i, size_t n, const int *s, int c, T v) \
        { shmemd_##N##_wait_until_all(i, n, s, c, v); } \
        static __device__ size_t wait_until_any(T *i, size_t n, const int *s, int c, T v) \
        { return shmemd_##N##_wait_until_any(i, n, s, c, v); } \
        static __device__ size_t wait_until_some(T *i, size_t n, size_t *x, const int *s, int c, \
                                                 T v) \
        { return shmemd_##N##_wait_until_some(i, n, x, s, c, v); } \
        static __device__ void wait_until_all_vector(T *i, size_t n, const int *s, int c, T *v) \
        { shmemd_##N##_wait_until_all_vector(i, n, s, c, v); } \
        static __device__ size_t wait_until_any_vector(T *i, size_t n, const int *s, int c, T *v) \
        { return shmemd_##N##_wait_until_any_vector(i, n, s, c, v); } \
        static __device__ size_t wait_until_some_vector(T *i, size_t n, size_t *x, const int *s, \
                                                        int c, T *v) \
        { return shmemd_##N##_wait_until_some_vector(i, n, x, s, c, v); } \
        static __device__ int test(T *i, int c, T v) { return shmemd_##N##_test(i, c, v); } \
        static __device__ int test_all(T *i, size_t n, const int *s, int c, T v) \
        { return shmemd_##N##_test_all(i, n, s, c, v); } \
        static __device__ size_t test_any(T *i, size_t n, const int *s, int c, T v) \
        { return shmemd_##N##_test_any(i, n, s, c, v); } \
        static __device__ size_t test_some(T *i, size_t n, size_t *x, const int *s, int c, T v) \
        { return shmemd_##N##_test_some(i, n, x, s, c, v); } \
        static __device__ int test_all_vector(T *i, size_t n, const int *s, int c, T *v) \
        { return shmemd_##N##_test_all_vector(i, n, s, c, v); } \
        static __device__ size_t test_any_vector(T *i, size_t n, const int *s, int c, T *v) \
        { return shmemd_##N##_test_any_vector(i, n, s, c, v); } \
        static __device__ size_t test_some_vector(T *i, size_t n, size_t *x, const int *s, int c, \
                                                  T *v) \
        { return shmemd_##N##_test_some_vector(i, n, x, s, c, v); } \
    };
SHMEMI_P2P_TYPES(P2P_OPS)

/* The checks of the p2p kernel, in its order: name and what it expects. */
#define P2P_CHECKS(X) \
    X(A_EQ, "wait_until(ivars[0], SHMEM_CMP_EQ, 1), then ivars[0]") \
    X(A_GE, "wait_until(ivars[1], SHMEM_CMP_GE, 2), then ivars[1]") \
    X(A_GT, "wait_until(ivars[2], SHMEM_CMP_GT, 2), then ivars[2]") \
    X(A_NE, "wait_until(ivars[3], SHMEM_CMP_NE, 0), then ivars[3]") \
    X(A_LT, "wait_until(ivars[4], SHMEM_CMP_LT, 6) (from 100), then ivars[4]") \
    X(A_LE, "wait_until(ivars[5], SHMEM_CMP_LE, 6) (from 100), then ivars[5]") \
    X(A_TEST, "test(ivars[6], SHMEM_CMP_EQ, 7) polled until true, then ivars[6]") \
    X(A_ALL, "wait_until_all(ivars, 8, NULL, SHMEM_CMP_GE, 1), then ivars[7]") \
    X(T_EQ, "test(ivars[0] = 1, SHMEM_CMP_EQ, 1; 2) (index: which)") \
    X(T_NE, "test(ivars[1] = 2, SHMEM_CMP_NE, 1; 2) (index: which)") \
    X(T_GT, "test(ivars[2] = 3, SHMEM_CMP_GT, 2; 3) (index: which)") \
    X(T_GE, "test(ivars[3] = 4, SHMEM_CMP_GE, 4; 5) (index: which)") \
    X(T_LT, "test(ivars[4] = 5, SHMEM_CMP_LT, 6; 5) (index: which)") \
    X(T_LE, "test(ivars[5] = 6, SHMEM_CMP_LE, 6; 5) (index: which)") \
    X(T_ALL, "test_all(ivars = 1 .. 8, 8, NULL, SHMEM_CMP_GE, 1; 2) (index: which)") \
    X(B_WANY, "wait_until_any(ivars, 8, NULL, SHMEM_CMP_EQ, 20) once ivars[3] is 20") \
    X(B_TANY, "test_any(ivars, 8, NULL, SHMEM_CMP_EQ, 20)") \
    X(B_TANY_ST, "test_any(ivars, 8, status excluding 3, SHMEM_CMP_EQ, 20)") \
    X(B_WANY_NONE, "wait_until_any(ivars, 8, status excluding all, SHMEM_CMP_EQ, 20)") \
    X(C_WSOME, "wait_until_some(ivars, 8, idx, status excluding 3 and 5, SHMEM_CMP_EQ, 20)") \
    X(C_WSOME_IDX, "idx[0] of wait_until_some(status excluding 3 and 5)") \
    X(C_W5, "wait_until(ivars[5], SHMEM_CMP_EQ, 20), then ivars[5]") \
    X(C_TSOME, "test_some(ivars, 8, idx, NULL, SHMEM_CMP_EQ, 20)") \
    X(C_TSOME_IDX, "idx of test_some(NULL, SHMEM_CMP_EQ, 20) (index: its position)") \
    X(C_TANY_ST, "test_any(ivars, 8, status excluding 3, SHMEM_CMP_EQ, 20) (5 or 6)") \
    X(C_TALL_ST, "test_all(ivars, 8, status excluding all but 3, 5, 6, SHMEM_CMP_EQ, 20)") \
    X(C_TALL, "test_all(ivars, 8, NULL, SHMEM_CMP_EQ, 20)") \
    X(C_WSOME_NONE, "wait_until_some(ivars, 8, idx, status excluding all, SHMEM_CMP_EQ, 20)") \
    X(D_WALLV, "wait_until_all_vector(ivars, 8, NULL, SHMEM_CMP_EQ, 30 + i), then ivars[i]") \
    X(D_WANYV, "wait_until_any_vector(ivars, 8, NULL, SHMEM_CMP_EQ, 30 + i) (0 .. 7)") \
    X(D_WANYV_ST, "wait_until_any_vector(ivars, 8, status excluding 0 and 1, SHMEM_CMP_EQ, 30 + i) (2 .. 7)") \
    X(D_WSOMEV, "wait_until_some_vector(ivars, 8, idx, NULL, SHMEM_CMP_GE, 30 + i)") \
    X(D_WSOMEV_IDX, "idx of wait_until_some_vector(NULL, SHMEM_CMP_GE) (index: its position)") \
    X(D_WSOMEV_ST, "wait_until_some_vector(ivars, 8, idx, status excluding 0 and 1, SHMEM_CMP_EQ, 30 + i)") \
    X(D_WSOMEV_ST_IDX, "idx[0] of wait_until_some_vector(status excluding 0 and 1)") \
    X(D_TALLV, "test_all_vector(ivars, 8, NULL, SHMEM_CMP_EQ; NE, 30 + i) (index: which)") \
    X(D_TANYV, "test_any_vector(ivars, 8, NULL, SHMEM_CMP_GT, 30 + i)") \
    X(D_TANYV_ST, "test_any_vector(ivars, 8, status excluding 0 and 1, SHMEM_CMP_LE, 30 + i) (2 .. 7)") \
    X(D_TSOMEV, "test_some_vector(ivars, 8, idx, NULL, SHMEM_CMP_LE; NE, 30 + i) (index: which)") \
    X(D_TSOMEV_LT, "test_some_vector(ivars, 8, idx, NULL, SHMEM_CMP_LT, 30 + i + i % 2)") \
    X(D_TSOMEV_LT_IDX, "idx of test_some_vector(SHMEM_CMP_LT, 30 + i + i % 2) (index: its position)")
#define P2P_ENUM(ID, TEXT) P2P_##ID,
enum { P2P_CHECKS(P2P_ENUM) P2P_NCHECKS };
#define P2P_TEXT(ID, TEXT) TEXT,
static const char *p2p_text[] = { P2P_CHECKS(P2P_TEXT) };

/* ivars[8] of this PE, which prev writes with p; one thread. */
template <class O>
__global__ void k_p2p(typename O::t *iv, int me, int next, int ti, bad_t *bad)
{
    typedef typename O::t T;
    int st[8];
    size_t idx[8], r;
    T vals[8];
    unsigned long long nck = 0;
#define CHECK(id, pos, want, got) \
    do { \
        long long w_ = (long long)(want), g_ = (long long)(got); \
        nck++; \
        if (w_ != g_) \
            note_ll(bad, ti, P2P_##id, me, (pos), w_, g_); \
    } while (0)
/* An index an _any form returned: any in [lo, hi) satisfies (the first, lo, expected). */
#define CHECK_ANY(id, got, lo, hi) \
    do { \
        size_t r_ = (got); \
        CHECK(id, 0, r_ - (size_t)(lo) < (size_t)(hi) - (size_t)(lo) ? (long long)r_ : (long long)(lo), \
              (long long)r_); \
    } while (0)
#define STATUS(...) \
    do { \
        const int s_[8] = { __VA_ARGS__ }; \
        for (int i_ = 0; i_ < 8; i_++) \
            st[i_] = s_[i_]; \
    } while (0)
    /* A: ivars[i] = i + 1 (ivars[4] and [5] start at 100, the others at 0) */
    for (int i = 0; i < 8; i++)
        O::p(iv + i, (T)(i + 1), next);
    O::wait_until(iv + 0, SHMEM_CMP_EQ, (T)1);
    CHECK(A_EQ, 0, 1, load_v(iv + 0));
    O::wait_until(iv + 1, SHMEM_CMP_GE, (T)2);
    CHECK(A_GE, 1, 2, load_v(iv + 1));
    O::wait_until(iv + 2, SHMEM_CMP_GT, (T)2);
    CHECK(A_GT, 2, 3, load_v(iv + 2));
    O::wait_until(iv + 3, SHMEM_CMP_NE, (T)0);
    CHECK(A_NE, 3, 4, load_v(iv + 3));
    O::wait_until(iv + 4, SHMEM_CMP_LT, (T)6);
    CHECK(A_LT, 4, 5, load_v(iv + 4));
    O::wait_until(iv + 5, SHMEM_CMP_LE, (T)6);
    CHECK(A_LE, 5, 6, load_v(iv + 5));
    while (!O::test(iv + 6, SHMEM_CMP_EQ, (T)7))
        __nanosleep(100);
    CHECK(A_TEST, 6, 7, load_v(iv + 6));
    O::wait_until_all(iv, 8, 0, SHMEM_CMP_GE, (T)1);
    CHECK(A_ALL, 7, 8, load_v(iv + 7));
    CHECK(T_EQ, 0, 1, O::test(iv + 0, SHMEM_CMP_EQ, (T)1));
    CHECK(T_EQ, 1, 0, O::test(iv + 0, SHMEM_CMP_EQ, (T)2));
    CHECK(T_NE, 0, 1, O::test(iv + 1, SHMEM_CMP_NE, (T)1));
    CHECK(T_NE, 1, 0, O::test(iv + 1, SHMEM_CMP_NE, (T)2));
    CHECK(T_GT, 0, 1, O::test(iv + 2, SHMEM_CMP_GT, (T)2));
    CHECK(T_GT, 1, 0, O::test(iv + 2, SHMEM_CMP_GT, (T)3));
    CHECK(T_GE, 0, 1, O::test(iv + 3, SHMEM_CMP_GE, (T)4));
    CHECK(T_GE, 1, 0, O::test(iv + 3, SHMEM_CMP_GE, (T)5));
    CHECK(T_LT, 0, 1, O::test(iv + 4, SHMEM_CMP_LT, (T)6));
    CHECK(T_LT, 1, 0, O::test(iv + 4, SHMEM_CMP_LT, (T)5));
    CHECK(T_LE, 0, 1, O::test(iv + 5, SHMEM_CMP_LE, (T)6));
    CHECK(T_LE, 1, 0, O::test(iv + 5, SHMEM_CMP_LE, (T)5));
    CHECK(T_ALL, 0, 1, O::test_all(iv, 8, 0, SHMEM_CMP_GE, (T)1));
    CHECK(T_ALL, 1, 0, O::test_all(iv, 8, 0, SHMEM_CMP_GE, (T)2));
    shmemd_barrier_all();
    /* B: ivars[3] = 20 */
    O::p(iv + 3, (T)20, next);
    CHECK(B_WANY, 0, 3, O::wait_until_any(iv, 8, 0, SHMEM_CMP_EQ, (T)20));
    CHECK(B_TANY, 0, 3, O::test_any(iv, 8, 0, SHMEM_CMP_EQ, (T)20));
    STATUS(0, 0, 0, 1, 0, 0, 0, 0);
    CHECK(B_TANY_ST, 0, (long long)SIZE_MAX, O::test_any(iv, 8, st, SHMEM_CMP_EQ, (T)20));
    STATUS(1, 1, 1, 1, 1, 1, 1, 1);
    CHECK(B_WANY_NONE, 0, (long long)SIZE_MAX, O::wait_until_any(iv, 8, st, SHMEM_CMP_EQ, (T)20));
    shmemd_barrier_all();
    /* C: ivars[5] and [6] = 20 (and [3] still is) */
    O::p(iv + 5, (T)20, next);
    O::p(iv + 6, (T)20, next);
    STATUS(0, 0, 0, 1, 0, 1, 0, 0);
    r = O::wait_until_some(iv, 8, idx, st, SHMEM_CMP_EQ, (T)20);
    CHECK(C_WSOME, 0, 1, r);
    CHECK(C_WSOME_IDX, 0, 6, r >= 1 ? (long long)idx[0] : -1);
    O::wait_until(iv + 5, SHMEM_CMP_EQ, (T)20);
    CHECK(C_W5, 5, 20, load_v(iv + 5));
    r = O::test_some(iv, 8, idx, 0, SHMEM_CMP_EQ, (T)20);
    CHECK(C_TSOME, 0, 3, r);
    for (int i = 0; i < 3; i++)
        CHECK(C_TSOME_IDX, i, i == 0 ? 3 : i == 1 ? 5 : 6, r == 3 ? (long long)idx[i] : -1);
    STATUS(0, 0, 0, 1, 0, 0, 0, 0);
    CHECK_ANY(C_TANY_ST, O::test_any(iv, 8, st, SHMEM_CMP_EQ, (T)20), 5, 7);
    STATUS(1, 1, 1, 0, 1, 0, 0, 1);
    CHECK(C_TALL_ST, 0, 1, O::test_all(iv, 8, st, SHMEM_CMP_EQ, (T)20));
    O::wait_until_all(iv, 8, st, SHMEM_CMP_EQ, (T)20);
    CHECK(C_TALL, 0, 0, O::test_all(iv, 8, 0, SHMEM_CMP_EQ, (T)20));
    STATUS(1, 1, 1, 1, 1, 1, 1, 1);
    CHECK(C_WSOME_NONE, 0, 0, O::wait_until_some(iv, 8, idx, st, SHMEM_CMP_EQ, (T)20));
    shmemd_barrier_all();
    /* D: ivars[i] = 30 + i */
    for (int i = 0; i < 8; i++) {
        vals[i] = (T)(30 + i);
        O::p(iv + i, (T)(30 + i), next);
    }
    O::wait_until_all_vector(iv, 8, 0, SHMEM_CMP_EQ, vals);
    for (int i = 0; i < 8; i++)
        CHECK(D_WALLV, i, 30 + i, load_v(iv + i));
    CHECK_ANY(D_WANYV, O::wait_until_any_vector(iv, 8, 0, SHMEM_CMP_EQ, vals), 0, 8);
    STATUS(1, 1, 0, 0, 0, 0, 0, 0);
    CHECK_ANY(D_WANYV_ST, O::wait_until_any_vector(iv, 8, st, SHMEM_CMP_EQ, vals), 2, 8);
    r = O::wait_until_some_vector(iv, 8, idx, 0, SHMEM_CMP_GE, vals);
    CHECK(D_WSOMEV, 0, 8, r);
    for (int i = 0; i < 8; i++)
        CHECK(D_WSOMEV_IDX, i, i, r == 8 ? (long long)idx[i] : -1);
    r = O::wait_until_some_vector(iv, 8, idx, st, SHMEM_CMP_EQ, vals);
    CHECK(D_WSOMEV_ST, 0, 6, r);
    CHECK(D_WSOMEV_ST_IDX, 0, 2, r >= 1 ? (long long)idx[0] : -1);
    CHECK(D_TALLV, 0, 1, O::test_all_vector(iv, 8, 0, SHMEM_CMP_EQ, vals));
    CHECK(D_TALLV, 1, 0, O::test_all_vector(iv, 8, 0, SHMEM_CMP_NE, vals));
    CHECK(D_TANYV, 0, (long long)SIZE_MAX, O::test_any_vector(iv, 8, 0, SHMEM_CMP_GT, vals));
    CHECK_ANY(D_TANYV_ST, O::test_any_vector(iv, 8, st, SHMEM_CMP_LE, vals), 2, 8);
    CHECK(D_TSOMEV, 0, 8, O::test_some_vector(iv, 8, idx, 0, SHMEM_CMP_LE, vals));
    CHECK(D_TSOMEV, 1, 0, O::test_some_vector(iv, 8, idx, 0, SHMEM_CMP_NE, vals));
    for (int i = 0; i < 8; i++)
        vals[i] = (T)(30 + i + i % 2);
    r = O::test_some_vector(iv, 8, idx, 0, SHMEM_CMP_LT, vals);
    CHECK(D_TSOMEV_LT, 0, 4, r);
    for (int i = 0; i < 4; i++)
        CHECK(D_TSOMEV_LT_IDX, i, 2 * i + 1, r == 4 ? (long long)idx[i] : -1);
#undef CHECK
#undef CHECK_ANY
#undef STATUS
    atomicAdd(&bad->checks, nck);
}

#define P2P_SLOT_BYTES 128
template <typename T> static void init_p2p(unsigned char *slot)
{
    T v[8] = { 0, 0, 0, 0, 100, 100, 0, 0 };
    memset(slot, 0, P2P_SLOT_BYTES);
    memcpy(slot, v, sizeof(v));
}
struct p2p_slot {
    const char *name;
    void (*launch)(char *, int);
    void (*init)(unsigned char *);
};
#define P2P_LAUNCH(T, N) \
    static void launch_p2p_##N(char *a, int ti) \
    { \
        k_p2p<p2p_##N><<<1, 1>>>((T *)a, me, next_pe, ti, bad_d); \
    }
SHMEMI_P2P_TYPES(P2P_LAUNCH)
#define P2P_ENT(T, N) { #N, launch_p2p_##N, init_p2p<T> },
static const p2p_slot p2p_slots[] = { SHMEMI_P2P_TYPES(P2P_ENT) };
#define N_P2P_SLOTS ((int)(sizeof(p2p_slots) / sizeof(p2p_slots[0])))
static show_fn p2p_show(int slot)
{
    (void)slot;
    return show<long long>;
}
static void p2p_name(char *buf, size_t len, const rec_t &r)
{
    snprintf(buf, len, "shmemd_%s_%s (%s)", p2p_slots[r.slot].name, p2p_text[r.what],
             p2p_slots[r.slot].name);
}

static void test_p2p(char *area_d)
{
    long bad0 = nbad;
    family_run("p2p", area_d, P2P_SLOT_BYTES, N_P2P_SLOTS,
               [](unsigned char *img, int s) { p2p_slots[s].init(img); },
               [](char *a, int s) {
                   STEP("p2p: %s", p2p_slots[s].name);
                   p2p_slots[s].launch(a, s);
               });
    unsigned long long nchecks = take_bad(p2p_name, p2p_show);
    printf("gpu_types: PE %d: p2p: %d types x wait_until (every comparison), test, and the "
           "_all, _any, _some, _vector forms of both (%d kinds of check): %llu values checked: "
           "%s\n",
           me, N_P2P_SLOTS, P2P_NCHECKS, nchecks, nbad == bad0 ? "PASS" : "FAIL");
}

/* ======== main ======== */

#define ROUND(x) (((x) + 4095) & ~(size_t)4095)

int main(void)
{
    /* No CUDA call before shmem_init: a program linked with the device
     * library has its GPU brought up under FABSHMEM_CUDA=auto all the same
     * (docs/gpu.md), which this checks (gpu_device loads the driver
     * first). */
    shmem_init();
    trace = getenv("GPU_TYPES_TRACE") != NULL;
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next_pe = (me + 1) % npes;
    prev_pe = (me + npes - 1) % npes;
    size_t rma_at = 0, sig_at = rma_at + ROUND((size_t)N_RMA_SLOTS * RMA_SLOT_BYTES),
           amo_at = sig_at + ROUND((size_t)N_SIG_SLOTS * SIG_SLOT_BYTES),
           p2p_at = amo_at + ROUND((size_t)N_AMO_SLOTS * AMO_SLOT_BYTES),
           total = p2p_at + ROUND((size_t)N_P2P_SLOTS * P2P_SLOT_BYTES);
    char *heap = shmemx_cuda_device() < 0 ? NULL
                 : (char *)shmem_malloc_with_hints(total, SHMEMX_MALLOC_DEVICE);
    if (!heap) {
        if (me == 0)
            printf("SKIP gpu_types: no device heap\n");
        shmem_finalize();
        return 77;
    }
    int unmapped;
    shmemd_state_t st;
    proxy = devtest_proxy(heap, &unmapped, &st);
    /* Kernels reach every PE (mapped, or through the proxy) on every PE, or
     * the program skips on every PE. */
    int *flag = (int *)shmem_malloc(2 * sizeof(int));
    flag[0] = unmapped >= 0 && !proxy;
    shmem_barrier_all();
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, flag + 1, flag, 1);
    if (flag[1]) {
        if (me == 0)
            printf("SKIP gpu_types: kernels do not reach every PE (a PE is not mapped and no "
                   "proxy runs: FABSHMEM_PROXY=0)\n");
        shmem_free(flag);
        shmem_free(heap);
        shmem_finalize();
        return 77;
    }
    if (me == 0 && proxy)
        printf("gpu_types: PE %d is not mapped: through the proxy (%u slots)\n", unmapped,
               st.proxy.nslots);
    amo_threads = proxy ? 32 : 64;
    amo_iters = proxy ? 2 : 8;
    amo_cas_all = !proxy; /* through the proxy, each retry is a round trip: a loop a warp */
    acc_src = (unsigned long long *)shmem_malloc((size_t)N_AMO_SLOTS * A_N * npes * 8);
    acc_dst = (unsigned long long *)shmem_malloc((size_t)N_AMO_SLOTS * A_N * npes * 8);
    if (!acc_src || !acc_dst)
        DIE("shmem_malloc of the AMO sums failed");
    CK(cudaMalloc(&bad_d, sizeof(bad_t)));
    CK(cudaMemset(bad_d, 0, sizeof(bad_t)));

    STEP("rma");
    test_rma(heap + rma_at);
    STEP("signal");
    test_signal(heap + sig_at);
    STEP("amo");
    test_amo(heap + amo_at);
    STEP("p2p");
    test_p2p(heap + p2p_at);

    shmem_barrier_all();
    if (nbad)
        printf("gpu_types: PE %d: FAIL: %ld values wrong (%d PEs%s)\n", me, nbad, npes,
               proxy ? ", through the proxy" : "");
    else
        printf("gpu_types: PE %d: PASS (%d PEs%s)\n", me, npes,
               proxy ? ", through the proxy" : "");
    CK(cudaFree(bad_d));
    shmem_free(acc_src);
    shmem_free(acc_dst);
    shmem_free(flag);
    shmem_free(heap);
    shmem_finalize();
    return nbad ? 1 : 0;
}
