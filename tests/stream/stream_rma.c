/*
 * Every RMA, signal and wait routine on streams, by value on every PE:
 * put, put_nbi, p, iput, put_signal (SET) and put_signal_nbi (ADD, twice)
 * to the right-hand neighbour on one stream while get, get_nbi, iget and g
 * read the neighbour on another, for every standard RMA type (X-macros over
 * the type list), the sized forms (8 to 128 bits) and the mem forms; then
 * signal_op with SHMEM_SIGNAL_ADD from every PE to every PE and SET to the
 * neighbour, waited for on another stream with signal_wait_until; the
 * typed wait_until of every point-to-point type; and quiet_on_stream,
 * after which a kernel on the stream reads the neighbour back through the
 * default context.  Strided targets keep their gaps untouched; p's value
 * is copied at the call.  run.sh runs it on the worker path (shm, tcp) and
 * on the triggered path (sockets: offload and offload-vnode).
 */
#include "common_x.h"

#define NE 5
#define ARENA (1 << 20)

static shmemx_stream_t sa, sb;
static int me, npes, right, left;
static char *arena;
static size_t arena_used;
static long n_checked;

/* The next bytes of the symmetric arena: the same on every PE, since every
 * PE takes the same slots in the same order. */
static void *slot(size_t bytes)
{
    void *p = arena + arena_used;

    arena_used += (bytes + 63) & ~(size_t)63;
    TEST_ASSERT(arena_used <= ARENA, "the arena is too small");
    return p;
}

static void sync_both(const char *what)
{
    TEST_ASSERT(shmemx_stream_sync(sa) == 0, "%s: sync of the put stream failed", what);
    TEST_ASSERT(shmemx_stream_sync(sb) == 0, "%s: sync of the get stream failed", what);
    shmem_barrier_all();
}

/* ---- the typed forms ---- */

/* Each type has its slots: d holds put (NE), put_nbi (NE), p (NP), iput
 * (2 NE, stride 2), put_signal (NE), put_signal_nbi (NE), then this PE's
 * values that the neighbour gets (3 NE); src holds 3 NE values of this PE.
 * prep_ fills them (before one barrier for all types), enqueue_ enqueues
 * every routine of the type (the puts on stream sa, the gets on sb; all
 * types go in before one sync, so that the triggered chain flows), check_
 * checks what arrived (after the sync and a barrier).  g waits for its
 * value, so there are NP of them per type. */
#define NP 2
#define RMA_TYPED(T, TN) \
    static struct { \
        T *d; \
        uint64_t *sg; \
        T src[3 * NE], gget[NE], gnbi[NE], giget[NE], gv[NP]; \
        int salt; \
    } t_##TN; \
    static void prep_##TN(int salt) \
    { \
        T *g; \
        t_##TN.d = slot(sizeof(T) * 10 * NE); \
        t_##TN.sg = slot(2 * sizeof(uint64_t)); \
        t_##TN.salt = salt; \
        g = t_##TN.d + 7 * NE; \
        for (int i = 0; i < 3 * NE; i++) { \
            t_##TN.src[i] = (T)test_val(me, (size_t)i, salt); \
            g[i] = (T)test_val(me, (size_t)i, salt + 1); \
        } \
    } \
    static void enqueue_##TN(void) \
    { \
        T *d = t_##TN.d, *g = d + 7 * NE, *src = t_##TN.src, pv; \
        uint64_t *sg = t_##TN.sg; \
        shmemx_##TN##_put_on_stream(d, src, NE, right, sa); \
        shmemx_##TN##_put_nbi_on_stream(d + NE, src + 1, NE, right, sa); \
        for (int i = 0; i < NP; i++) { \
            pv = src[i + 2]; \
            shmemx_##TN##_p_on_stream(d + 2 * NE + i, pv, right, sa); \
            pv = (T)0; /* the stream has its own copy */ \
            (void)pv; \
        } \
        shmemx_##TN##_iput_on_stream(d + 3 * NE, src, 2, 3, NE, right, sa); \
        shmemx_##TN##_put_signal_on_stream(d + 5 * NE, src + 3, NE, &sg[0], \
                                           (uint64_t)t_##TN.salt, SHMEM_SIGNAL_SET, right, sa); \
        shmemx_##TN##_put_signal_nbi_on_stream(d + 6 * NE, src + 4, NE, &sg[1], 5, \
                                               SHMEM_SIGNAL_ADD, right, sa); \
        shmemx_##TN##_put_signal_nbi_on_stream(d + 6 * NE, src + 4, NE, &sg[1], 7, \
                                               SHMEM_SIGNAL_ADD, right, sa); \
        shmemx_##TN##_get_on_stream(t_##TN.gget, g, NE, right, sb); \
        shmemx_##TN##_get_nbi_on_stream(t_##TN.gnbi, g + 1, NE, right, sb); \
        shmemx_##TN##_iget_on_stream(t_##TN.giget, g, 1, 2, NE, right, sb); \
    } \
    static void g_##TN(void) \
    { \
        for (int i = 0; i < NP; i++) \
            t_##TN.gv[i] = shmemx_##TN##_g_on_stream(t_##TN.d + 7 * NE + 2 + i, right, sb); \
    } \
    static void check_##TN(void) \
    { \
        T *d = t_##TN.d; \
        int salt = t_##TN.salt; \
        for (int i = 0; i < NE; i++) { \
            TEST_CHECK("shmemx_" #TN "_put_on_stream", i, test_val(left, (size_t)i, salt), \
                       d[i]); \
            TEST_CHECK("shmemx_" #TN "_put_nbi_on_stream", i, \
                       test_val(left, (size_t)i + 1, salt), d[NE + i]); \
            if (i < NP) { \
                TEST_CHECK("shmemx_" #TN "_p_on_stream", i, \
                           test_val(left, (size_t)i + 2, salt), d[2 * NE + i]); \
                TEST_CHECK("shmemx_" #TN "_g_on_stream", i, \
                           test_val(right, (size_t)i + 2, salt + 1), t_##TN.gv[i]); \
            } \
            TEST_CHECK("shmemx_" #TN "_iput_on_stream", i, \
                       test_val(left, (size_t)(3 * i), salt), d[3 * NE + 2 * i]); \
            TEST_CHECK("shmemx_" #TN "_iput_on_stream: gap", i, 0, d[3 * NE + 2 * i + 1]); \
            TEST_CHECK("shmemx_" #TN "_put_signal_on_stream", i, \
                       test_val(left, (size_t)i + 3, salt), d[5 * NE + i]); \
            TEST_CHECK("shmemx_" #TN "_put_signal_nbi_on_stream", i, \
                       test_val(left, (size_t)i + 4, salt), d[6 * NE + i]); \
            TEST_CHECK("shmemx_" #TN "_get_on_stream", i, \
                       test_val(right, (size_t)i, salt + 1), t_##TN.gget[i]); \
            TEST_CHECK("shmemx_" #TN "_get_nbi_on_stream", i, \
                       test_val(right, (size_t)i + 1, salt + 1), t_##TN.gnbi[i]); \
            TEST_CHECK("shmemx_" #TN "_iget_on_stream", i, \
                       test_val(right, (size_t)(2 * i), salt + 1), t_##TN.giget[i]); \
        } \
        TEST_CHECK("shmemx_" #TN "_put_signal_on_stream: the SET signal", 0, salt, \
                   shmem_signal_fetch(&t_##TN.sg[0])); \
        TEST_CHECK("shmemx_" #TN "_put_signal_nbi_on_stream: two ADD signals", 1, 12, \
                   shmem_signal_fetch(&t_##TN.sg[1])); \
        n_checked += 9 * NE + 2 * NP + 2; \
    }
TEST_RMA_TYPES(RMA_TYPED)

/* ---- the sized and mem forms (bytes) ---- */

static unsigned char byte_val(int pe, size_t i, int salt)
{
    return (unsigned char)test_val(pe, i, salt);
}

/* The same shape in elements of es bytes: d holds put (NE), put_nbi (NE),
 * iput (2 NE), put_signal (NE), put_signal_nbi (NE), then the neighbour's
 * values for the gets (3 NE).  PUT... are the routines or NULL (mem forms
 * have no strided ones). */
typedef void (*rw_fn)(void *, const void *, size_t, int, shmemx_stream_t);
typedef void (*is_fn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int, shmemx_stream_t);
typedef void (*ps_fn)(void *, const void *, size_t, uint64_t *, uint64_t, int, int,
                      shmemx_stream_t);

static void rma_bytes(const char *name, size_t es, rw_fn put, rw_fn put_nbi, rw_fn get,
                      rw_fn get_nbi, is_fn iput, is_fn iget, ps_fn ps, ps_fn ps_nbi, int salt)
{
    unsigned char *d = slot(es * 9 * NE), *g = d + 6 * NE * es;
    uint64_t *sg = slot(2 * sizeof(uint64_t));
    static unsigned char src[3 * NE * 16], gget[NE * 16], gnbi[NE * 16], giget[NE * 16];
    size_t i, b, n = NE * es;

    for (i = 0; i < 3 * n; i++) {
        src[i] = byte_val(me, i, salt);
        g[i] = byte_val(me, i, salt + 1);
    }
    memset(giget, 0, sizeof(giget));
    shmem_barrier_all();
    /* NE elements: bytes for the mem forms (es 1). */
    put(d, src, NE, right, sa);
    put_nbi(d + n, src + es, NE, right, sa);
    if (iput)
        iput(d + 2 * n, src, 2, 3, NE, right, sa);
    ps(d + 4 * n, src + 3 * es, NE, &sg[0], (uint64_t)salt, SHMEM_SIGNAL_SET, right, sa);
    ps_nbi(d + 5 * n, src + 4 * es, NE, &sg[1], 9, SHMEM_SIGNAL_ADD, right, sa);
    get(gget, g, NE, right, sb);
    get_nbi(gnbi, g + es, NE, right, sb);
    if (iget)
        iget(giget, g, 1, 2, NE, right, sb);
    sync_both(name);
    for (i = 0; i < n; i++) {
        TEST_CHECK(name, i, byte_val(left, i, salt), d[i]);
        TEST_CHECK(name, n + i, byte_val(left, i + es, salt), d[n + i]);
        TEST_CHECK(name, 4 * n + i, byte_val(left, i + 3 * es, salt), d[4 * n + i]);
        TEST_CHECK(name, 5 * n + i, byte_val(left, i + 4 * es, salt), d[5 * n + i]);
        TEST_CHECK(name, 6 * n + i, byte_val(right, i, salt + 1), gget[i]);
        TEST_CHECK(name, 7 * n + i, byte_val(right, i + es, salt + 1), gnbi[i]);
    }
    for (i = 0; iput && i < NE; i++)
        for (b = 0; b < es; b++) {
            TEST_CHECK("iput (sized)", i * es + b, byte_val(left, 3 * i * es + b, salt),
                       d[2 * n + 2 * i * es + b]);
            TEST_CHECK("iput gap (sized)", i * es + b, 0, d[2 * n + (2 * i + 1) * es + b]);
            TEST_CHECK("iget (sized)", i * es + b, byte_val(right, 2 * i * es + b, salt + 1),
                       giget[i * es + b]);
        }
    TEST_CHECK("put_signal (sized/mem): SET", 0, salt, shmem_signal_fetch(&sg[0]));
    TEST_CHECK("put_signal_nbi (sized/mem): ADD", 1, 9, shmem_signal_fetch(&sg[1]));
    n_checked += (long)(8 * n + 2);
}

#define RMA_SIZED(BITS, BYTES) \
    static void rma_size##BITS(int salt) \
    { \
        rma_bytes("put" #BITS "/get" #BITS " on streams", BYTES, shmemx_put##BITS##_on_stream, \
                  shmemx_put##BITS##_nbi_on_stream, shmemx_get##BITS##_on_stream, \
                  shmemx_get##BITS##_nbi_on_stream, shmemx_iput##BITS##_on_stream, \
                  shmemx_iget##BITS##_on_stream, shmemx_put##BITS##_signal_on_stream, \
                  shmemx_put##BITS##_signal_nbi_on_stream, salt); \
    }
TEST_RMA_SIZES(RMA_SIZED)

/* ---- signals and waits ---- */

static volatile int seen[64];
static void seen_kernel(void *arg) { seen[(intptr_t)arg] = 1; }

struct read_arg { void *ivar; size_t size; unsigned char got[16]; };
static void read_kernel(void *p)
{
    struct read_arg *r = p;
    memcpy(r->got, r->ivar, r->size);
}

/* signal_op ADD from every PE to every PE, SET to the neighbour; waited
 * for on the other stream before the kernels that see them run. */
static void signals(void)
{
    uint64_t *w = slot(2 * sizeof(uint64_t));
    uint64_t sum = (uint64_t)npes * (npes + 1) / 2;
    int pe;

    shmem_barrier_all();
    seen[0] = seen[1] = 0;
    shmemx_signal_wait_until_on_stream(&w[0], SHMEM_CMP_EQ, sum, sb);
    shmemx_launch_on_stream(sb, seen_kernel, (void *)(intptr_t)0);
    shmemx_signal_wait_until_on_stream(&w[1], SHMEM_CMP_GE, 1000 + (uint64_t)left, sb);
    shmemx_launch_on_stream(sb, seen_kernel, (void *)(intptr_t)1);
    for (pe = 0; pe < npes; pe++)
        shmemx_signal_op_on_stream(&w[0], (uint64_t)me + 1, SHMEM_SIGNAL_ADD, (me + pe) % npes,
                                   sa);
    shmemx_signal_op_on_stream(&w[1], 1000 + (uint64_t)me, SHMEM_SIGNAL_SET, right, sa);
    sync_both("signals");
    TEST_CHECK("signal_op_on_stream ADD from every PE", 0, sum, shmem_signal_fetch(&w[0]));
    TEST_CHECK("signal_op_on_stream SET", 1, 1000 + left, shmem_signal_fetch(&w[1]));
    TEST_ASSERT(seen[0] && seen[1], "a kernel behind signal_wait_until_on_stream did not run");
    n_checked += 2;
}

/* The typed wait_until: the neighbour puts the value the wait waits for. */
#define WAIT_TYPED(T, TN) \
    static void wait_##TN(int k) \
    { \
        T *ivar = slot(sizeof(T)); \
        T want = (T)(left + 3 + k); \
        static struct read_arg r; \
        shmem_barrier_all(); \
        r.ivar = ivar; \
        r.size = sizeof(T); \
        memset(r.got, 0, sizeof(r.got)); \
        shmemx_##TN##_wait_until_on_stream(ivar, SHMEM_CMP_EQ, want, sb); \
        shmemx_launch_on_stream(sb, read_kernel, &r); \
        shmemx_##TN##_p_on_stream(ivar, (T)(me + 3 + k), right, sa); \
        sync_both("wait_until_on_stream"); \
        T got; \
        memcpy(&got, r.got, sizeof(T)); \
        TEST_CHECK("shmemx_" #TN "_wait_until_on_stream: the kernel behind it", k, want, got); \
        n_checked++; \
    }
#define TEST_P2P_TYPES(X) \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
TEST_P2P_TYPES(WAIT_TYPED)

/* quiet_on_stream: the puts before it are complete at their target, which
 * a kernel after it checks through the default context. */
struct back_arg { long *dst; const long *src; int bad; };
static void back_kernel(void *p)
{
    struct back_arg *a = p;
    static long back[4096];

    shmem_getmem(back, a->dst, 4096 * sizeof(long), right);
    a->bad = -1;
    for (int i = 0; i < 4096; i++)
        if (back[i] != a->src[i]) {
            a->bad = i;
            break;
        }
}

static void quiet(void)
{
    long *d = slot(4096 * sizeof(long));
    static long src[4096];
    static struct back_arg ba;

    for (int round = 1; round <= 2; round++) {
        for (int i = 0; i < 4096; i++)
            src[i] = me * 100000L + i + round;
        shmem_barrier_all();
        for (int c = 0; c < 4096; c += 512)
            shmemx_long_put_nbi_on_stream(d + c, src + c, 512, right, sa);
        shmemx_quiet_on_stream(sa);
        ba = (struct back_arg){ d, src, -2 };
        shmemx_launch_on_stream(sa, back_kernel, &ba);
        sync_both("quiet_on_stream");
        TEST_ASSERT(ba.bad == -1, "round %d: after quiet_on_stream a kernel read element %d of "
                    "PE %d before the put had landed (-2: it did not run)", round, ba.bad, right);
        n_checked += 4096;
    }
}

int main(void)
{
    int salt = 1;

    test_streams_init("stream_rma", &sa, &sb);
    me = test_me;
    npes = test_npes;
    right = (me + 1) % npes;
    left = (me - 1 + npes) % npes;
    arena = shmem_calloc(ARENA, 1);
    TEST_ASSERT(arena != NULL, "shmem_calloc of the arena failed");

    /* Every typed routine of every type, in one sync. */
#define PREP_TYPED(T, TN) prep_##TN(salt++);
#define ENQUEUE_TYPED(T, TN) enqueue_##TN();
#define G_TYPED(T, TN) g_##TN();
#define CHECK_TYPED(T, TN) check_##TN();
    TEST_RMA_TYPES(PREP_TYPED)
    shmem_barrier_all();
    TEST_RMA_TYPES(ENQUEUE_TYPED)
    TEST_RMA_TYPES(G_TYPED)
    sync_both("the typed forms");
    TEST_RMA_TYPES(CHECK_TYPED)
#define RUN_SIZED(BITS, BYTES) rma_size##BITS(salt++);
    TEST_RMA_SIZES(RUN_SIZED)
    rma_bytes("putmem/getmem on streams", 1, shmemx_putmem_on_stream,
              shmemx_putmem_nbi_on_stream, shmemx_getmem_on_stream, shmemx_getmem_nbi_on_stream,
              NULL, NULL, shmemx_putmem_signal_on_stream, shmemx_putmem_signal_nbi_on_stream,
              salt++);
    signals();
    {
        int k = 0;
#define RUN_WAIT(T, TN) wait_##TN(k++);
        TEST_P2P_TYPES(RUN_WAIT)
    }
    quiet();

    TEST_ASSERT(shmemx_stream_destroy(sa) == 0, "destroy of the put stream");
    TEST_ASSERT(shmemx_stream_destroy(sb) == 0, "destroy of the get stream");
    shmem_free(arena);
    test_note("%ld values checked", n_checked);
    return test_finish();
}
