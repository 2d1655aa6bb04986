/*
 * signal: put with signal.  A ring (each PE puts to the next and waits for
 * its own signal with shmem_signal_wait_until, checking the data the moment
 * the signal shows) over several types and sizes (1 element to 1 MiB), SET
 * and ADD, blocking and nbi, typed, ctx, SIZE and mem forms, into the heap
 * and into a global (data segment) array; all-to-one with ADD (PE 0 waits
 * until its signal is (npes-1)*k); shmem_signal_fetch/add/set and their ctx
 * forms; shmemx_signal_op.
 *
 * When the atomics must go through a provider that has none (shm with the
 * direct path off or with virtual nodes), the SET parts run and the test
 * ends as skipped, since SHMEM_SIGNAL_ADD cannot work there.
 */
#include "common.h"
#include <shmemx.h>

#define MAX_BYTES (1 << 20)
#define GLOBAL_ELEMS 4096

static uint64_t sig_ring;            /* data segment: reached by the transport */
static long global_dest[GLOBAL_ELEMS];
static unsigned char src_buf[MAX_BYTES + 64];
static int no_add;                   /* SHMEM_SIGNAL_ADD cannot work here */
static int small_run;                /* sockets: few and small rounds */
static uint64_t round_no;
static uint64_t sig_cur;             /* the value the ring signal reaches */

enum { V_TYPED, V_CTX, V_SIZED, V_MEM, V_NVAR };
static const char *vname[] = { "typed", "ctx", "sized", "mem" };

/* One ring round of type T: variant var, nbi or not, sig_op op, n elements,
 * into dest (heap or global).  The signal word is in the heap (*sig). */
#define DEFINE_RING(T, N, BITS)                                                            \
    static void ring_##N(T *dest, uint64_t *sig, size_t n, int var, int nbi, int op)      \
    {                                                                                      \
        T *src = (T *)(void *)src_buf;                                                     \
        int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes; \
        uint64_t sv, got;                                                                  \
        size_t i;                                                                          \
        char what[160];                                                                    \
        int salt = (int)(++round_no % 1000);                                               \
                                                                                           \
        for (i = 0; i < n; i++)                                                            \
            src[i] = (T)test_val(test_me, i, salt);                                        \
        /* The signal only grows: SET to one more, or ADD 3; every PE runs the     \
         * same rounds, so each knows the value its signal will reach. */          \
        sv = op == SHMEM_SIGNAL_SET ? sig_cur + 1 : 3;                                     \
        sig_cur = op == SHMEM_SIGNAL_SET ? sv : sig_cur + 3;                               \
        switch (var) {                                                                     \
        case V_TYPED:                                                                      \
            if (nbi) shmem_##N##_put_signal_nbi(dest, src, n, sig, sv, op, next);          \
            else shmem_##N##_put_signal(dest, src, n, sig, sv, op, next);                  \
            break;                                                                         \
        case V_CTX:                                                                        \
            if (nbi) shmem_ctx_##N##_put_signal_nbi(SHMEM_CTX_DEFAULT, dest, src, n, sig, sv, \
                                                    op, next);                             \
            else shmem_ctx_##N##_put_signal(SHMEM_CTX_DEFAULT, dest, src, n, sig, sv, op, next); \
            break;                                                                         \
        case V_SIZED:                                                                      \
            if (nbi) shmem_put##BITS##_signal_nbi(dest, src, n, sig, sv, op, next);        \
            else shmem_ctx_put##BITS##_signal(SHMEM_CTX_DEFAULT, dest, src, n, sig, sv, op, next); \
            break;                                                                         \
        default:                                                                           \
            if (nbi) shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, dest, src, n * sizeof(T), \
                                                 sig, sv, op, next);                       \
            else shmem_putmem_signal(dest, src, n * sizeof(T), sig, sv, op, next);         \
            break;                                                                         \
        }                                                                                  \
        got = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, sig_cur);                              \
        snprintf(what, sizeof(what), "shmem_%s%s_put_signal%s (%s, %s), %zu elements of %s " \
                 "from PE %d", var == V_CTX ? "ctx_" : "", vname[var], nbi ? "_nbi" : "",   \
                 op == SHMEM_SIGNAL_SET ? "SET" : "ADD",                                   \
                 (void *)dest == (void *)global_dest ? "global" : "heap", n, #T, prev);    \
        TEST_CHECK(what, 0, sig_cur, got);                                                      \
        for (i = 0; i < n; i++)                                                            \
            if (dest[i] != (T)test_val(prev, i, salt))                                     \
                TEST_CHECK(what, i, (T)test_val(prev, i, salt), dest[i]);                  \
        TEST_CHECK(what, 0, sig_cur, shmem_signal_fetch(sig));                                  \
        if (nbi)                                                                           \
            shmem_quiet();                                                                 \
        shmem_barrier_all();                                                               \
    }

/* Types of the ring: T, name, bits of the SIZE form with the same bytes. */
#define RING_TYPES(X)                                                                     \
    X(char, char, 8) X(short, short, 16) X(int, int, 32) X(long, long, 64)                \
    X(double, double, 64) X(float, float, 32) X(uint64_t, uint64, 64)                     \
    X(long double, longdouble, 128) X(int16_t, int16, 16) X(size_t, size, 64)
RING_TYPES(DEFINE_RING)

static void ring_all(void *heap_dest, uint64_t *sig)
{
    static const size_t bytes[] = { 1, 8, 100, 4096, 65536, MAX_BYTES };
    size_t nb = small_run ? 4 : 6, b;
    int var, nbi, op, combo = 0, t;

    __atomic_store_n(sig, 0, __ATOMIC_SEQ_CST);
    sig_cur = 0;
    shmem_barrier_all();
    for (op = SHMEM_SIGNAL_SET; op <= SHMEM_SIGNAL_ADD; op++) {
        if (op == SHMEM_SIGNAL_ADD && no_add)
            break;
        for (nbi = 0; nbi < 2; nbi++)
            for (var = 0; var < V_NVAR; var++, combo++) {
                /* Every type (one per combination on sockets) at a rotating small
                 * size and into the global array; a rotating type at every size. */
                t = 0;
#define RUN_RING(T, N, BITS)                                                              \
                if (!small_run || t == combo % 10) {                                      \
                    size_t n_ = bytes[(size_t)(t + combo) % 4] / sizeof(T);               \
                    ring_##N((T *)heap_dest, sig, n_ ? n_ : 1, var, nbi, op);             \
                    ring_##N((T *)(void *)global_dest, sig, 7, var, nbi, op);             \
                }                                                                         \
                if (t == combo % 10)                                                      \
                    for (b = 0; b < nb; b++) {                                            \
                        size_t n_ = bytes[b] / sizeof(T);                                 \
                        ring_##N((T *)heap_dest, sig, n_ ? n_ : 1, var, nbi, op);         \
                    }                                                                     \
                t++;
                RING_TYPES(RUN_RING)
#undef RUN_RING
            }
    }
}

/* All-to-one: each PE but 0 puts k slices into its own slots on PE 0 with
 * ADD 1; PE 0 waits until the signal is (npes-1)*k, then checks all. */
static void all_to_one(long *slots, uint64_t *sig, int k, int nbi)
{
    long v[16];
    int j, pe;
    size_t i;

    __atomic_store_n(sig, 0, __ATOMIC_SEQ_CST);
    memset(slots, 0, (size_t)test_npes * (size_t)k * 16 * sizeof(long));
    shmem_barrier_all();
    if (test_me != 0)
        for (j = 0; j < k; j++) {
            for (i = 0; i < 16; i++)
                v[i] = test_val(test_me, i, j);
            if (nbi)
                shmem_long_put_signal_nbi(slots + ((size_t)test_me * k + j) * 16, v, 16, sig, 1,
                                          SHMEM_SIGNAL_ADD, 0);
            else
                shmem_long_put_signal(slots + ((size_t)test_me * k + j) * 16, v, 16, sig, 1,
                                      SHMEM_SIGNAL_ADD, 0);
            if (nbi)
                shmem_quiet();
        }
    else {
        uint64_t want = (uint64_t)(test_npes - 1) * (uint64_t)k;
        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_GE, want);
        TEST_CHECK(nbi ? "all-to-one shmem_long_put_signal_nbi ADD: signal"
                       : "all-to-one shmem_long_put_signal ADD: signal", 0, want, got);
        for (pe = 1; pe < test_npes; pe++)
            for (j = 0; j < k; j++)
                for (i = 0; i < 16; i++) {
                    long e = test_val(pe, i, j), g = slots[((size_t)pe * k + j) * 16 + i];
                    if (e != g)
                        test_fail("all-to-one shmem_long_put_signal%s ADD: slice %d of PE %d: "
                                  "index %zu: expected %ld, got %ld", nbi ? "_nbi" : "", j, pe,
                                  i, e, g);
                }
    }
    shmem_barrier_all();
}

static void signal_ops(uint64_t *sig)
{
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    uint64_t got, sum = 0;
    int pe;

    /* set to the next PE (plain and ctx), fetch it back. */
    __atomic_store_n(&sig[0], 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&sig[1], 0, __ATOMIC_SEQ_CST);
    shmem_barrier_all();
    shmem_signal_set(&sig[0], 1000 + (uint64_t)test_me, next);
    shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, &sig[1], 2000 + (uint64_t)test_me, next);
    got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_NE, 0);
    TEST_CHECK("shmem_signal_set then shmem_signal_wait_until", 0, 1000 + prev, got);
    shmem_signal_wait_until(&sig[1], SHMEM_CMP_GT, 1999);
    TEST_CHECK("shmem_ctx_signal_set then shmem_signal_fetch", 1, 2000 + prev,
               shmem_signal_fetch(&sig[1]));
    shmem_barrier_all();
    shmemx_signal_op(&sig[0], 7, SHMEM_SIGNAL_SET, next);
    shmem_signal_wait_until(&sig[0], SHMEM_CMP_LE, 7);
    TEST_CHECK("shmemx_signal_op SET", 0, 7, shmem_signal_fetch(&sig[0]));
    shmem_barrier_all();
    if (no_add)
        return;

    /* add from every PE to PE 0 (plain, ctx and shmemx forms). */
    __atomic_store_n(&sig[2], 0, __ATOMIC_SEQ_CST);
    shmem_barrier_all();
    shmem_signal_add(&sig[2], (uint64_t)test_me + 1, 0);
    shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, &sig[2], 100, 0);
    shmemx_signal_op(&sig[2], 10000, SHMEM_SIGNAL_ADD, 0);
    for (pe = 0; pe < test_npes; pe++)
        sum += (uint64_t)pe + 1 + 100 + 10000;
    if (test_me == 0) {
        got = shmem_signal_wait_until(&sig[2], SHMEM_CMP_GE, sum);
        TEST_CHECK("shmem_signal_add/shmem_ctx_signal_add/shmemx_signal_op ADD sum on PE 0", 2,
                   sum, got);
    }
    shmem_barrier_all();
    if (test_me == 0)
        TEST_CHECK("shmem_signal_fetch after the adds", 2, sum, shmem_signal_fetch(&sig[2]));
    shmem_barrier_all();
}

/* A global signal word (data segment) with heap data. */
static void global_signal(long *dest)
{
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    long v[32];
    size_t i;

    sig_ring = 0;
    shmem_barrier_all();
    for (i = 0; i < 32; i++)
        v[i] = test_val(test_me, i, 77);
    shmem_long_put_signal(dest, v, 32, &sig_ring, 55, SHMEM_SIGNAL_SET, next);
    shmem_signal_wait_until(&sig_ring, SHMEM_CMP_EQ, 55);
    for (i = 0; i < 32; i++)
        if (dest[i] != test_val(prev, i, 77))
            TEST_CHECK("shmem_long_put_signal with a global signal word", i,
                       test_val(prev, i, 77), dest[i]);
    shmem_barrier_all();
}

int main(void)
{
    const char *prov = getenv("FABSHMEM_PROVIDER");
    void *heap_dest;
    uint64_t *sig;
    long *slots;
    int pe, k;

    test_init("signal");
    small_run = prov && !strcmp(prov, "sockets");
    heap_dest = shmem_malloc(MAX_BYTES + 64);
    sig = shmem_calloc(8, sizeof(uint64_t));
    k = small_run ? 4 : 50;
    slots = shmem_calloc((size_t)test_npes * (size_t)k * 16, sizeof(long));
    TEST_ASSERT(heap_dest && sig && slots, "allocation failed");
    /* Atomics go through the provider when some peer is not mapped. */
    if (test_prov_no_amo())
        for (pe = 0; pe < test_npes; pe++)
            if (pe != test_me && !shmem_ptr(sig, pe))
                no_add = 1;
    shmem_barrier_all();
    no_add = shmem_int_g(&no_add, 0) | no_add;   /* PE 0 decides for all (same job config) */
    shmem_barrier_all();

    ring_all(heap_dest, sig);
    test_note("ring: SET%s, blocking and nbi, typed/ctx/sized/mem, heap and global: ok",
              no_add ? "" : " and ADD");
    global_signal((long *)heap_dest);
    signal_ops(sig);
    test_note("signal_set/add/fetch/wait_until, ctx forms, shmemx_signal_op: ok");
    if (!no_add) {
        all_to_one(slots, sig + 4, k, 0);
        all_to_one(slots, sig + 4, k, 1);
        test_note("all-to-one with ADD (%d rounds): ok", k);
    }
    if (no_add) {
        shmem_barrier_all();
        test_note("SKIP: provider %s has no atomics: SHMEM_SIGNAL_ADD parts skipped "
                  "(SET parts passed)", prov);
        shmem_finalize();
        return TEST_SKIP;
    }
    return test_finish();
}
