/*
 * Collectives other than reductions, every value checked on every PE:
 * broadcast (every root, sizes 0 to 1 MiB, every RMA type), collect with
 * different counts per PE (some 0), fcollect, alltoall, alltoalls with
 * strides, the mem forms, the C11 generic forms, the deprecated
 * active-set forms (world and a strided set), shmem_barrier/shmem_sync
 * and shmem_team_sync; on TEAM_WORLD, TEAM_SHARED and a strided split
 * team, with heap buffers and with globals (data segment: the transport
 * path).  Each algorithm is forced in turn: init and finalize pair once
 * per algorithm, the algorithm set in the environment before each init.
 */
#include "common.h"
#include <shmemx.h>

#define BIG (1u << 20)
#define SMALL 64

/* Globals (data segment: the transport path). */
static unsigned char gdst[4 * 1024 + 64] __attribute__((aligned(64)));
static unsigned char gsrc[4 * 1024 + 64] __attribute__((aligned(64)));
static long psync[SHMEM_BCAST_SYNC_SIZE];

static unsigned char bval(int pe, size_t i, int salt)
{
    return (unsigned char)((pe * 29 + i * 7 + salt * 13) % 251 + 1);
}

static void check_bytes(const char *what, const unsigned char *got, int pe, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != bval(pe, i, salt))
            test_fail("%s: byte %zu (from PE %d): expected %d, got %d", what, i, pe,
                      bval(pe, i, salt), got[i]);
}

static void test_bcast(shmem_team_t team, unsigned char *dst, unsigned char *src, const char *tag)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    static const size_t sizes[] = { 0, 1, 7, 4096, BIG };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si];
        if (n > 4096 && (src == gsrc))
            continue;
        for (int root = 0; root < tn; root++) {
            int salt = (int)si * 10 + root;
            for (size_t i = 0; i < n; i++)
                src[i] = bval(root, i, salt);
            memset(dst, 0, n + 1);
            TEST_ASSERT(shmem_broadcastmem(team, dst, src, n, root) == 0, "%s broadcastmem", tag);
            check_bytes(tag, dst, root, n, salt);
            TEST_ASSERT(dst[n] == 0, "%s: broadcast of %zu bytes wrote past the end", tag, n);
            (void)tme;
        }
    }
    shmem_team_sync(team);
}

#define BCAST_TYPE(T, N)                                                         \
    {                                                                            \
        T *d = (T *)dstb, *s = (T *)srcb;                                        \
        for (int i = 0; i < SMALL; i++)                                          \
            s[i] = (T)test_val(root, i, 3);                                      \
        shmem_barrier_all();                                                     \
        TEST_ASSERT(shmem_##N##_broadcast(SHMEM_TEAM_WORLD, d, s, SMALL, root) == 0, \
                    "%s broadcast", #N);                                         \
        for (int i = 0; i < SMALL; i++)                                          \
            TEST_CHECK(#N "_broadcast", i, (T)test_val(root, i, 3), d[i]);       \
        shmem_barrier_all();                                                     \
        root = (root + 1) % n;                                                   \
    }

/* fcollect, collect (member j gives j + 1 elements) and alltoall of every
 * RMA type at a small size, on TEAM_WORLD. */
#define COLL_TYPE(T, N)                                                          \
    {                                                                            \
        T *d = (T *)dstb, *s = (T *)srcb;                                        \
        for (int i = 0; i < 8; i++)                                              \
            s[i] = (T)test_val(me, i, 4);                                        \
        TEST_ASSERT(shmem_##N##_fcollect(SHMEM_TEAM_WORLD, d, s, 8) == 0,        \
                    "%s fcollect", #N);                                          \
        for (int j = 0; j < n; j++)                                              \
            for (int i = 0; i < 8; i++)                                          \
                TEST_CHECK(#N "_fcollect", j * 8 + i, (T)test_val(j, i, 4), d[j * 8 + i]); \
        shmem_barrier_all();                                                     \
        TEST_ASSERT(shmem_##N##_collect(SHMEM_TEAM_WORLD, d, s, (size_t)me + 1) == 0, \
                    "%s collect", #N);                                           \
        for (int j = 0, o = 0; j < n; o += j + 1, j++)                           \
            for (int i = 0; i <= j; i++)                                         \
                TEST_CHECK(#N "_collect", o + i, (T)test_val(j, i, 4), d[o + i]); \
        shmem_barrier_all();                                                     \
        for (int j = 0; j < n; j++)                                              \
            for (int i = 0; i < 3; i++)                                          \
                s[j * 3 + i] = (T)test_val(me, (size_t)(j * 3 + i), 6);          \
        TEST_ASSERT(shmem_##N##_alltoall(SHMEM_TEAM_WORLD, d, s, 3) == 0,        \
                    "%s alltoall", #N);                                          \
        for (int j = 0; j < n; j++)                                              \
            for (int i = 0; i < 3; i++)                                          \
                TEST_CHECK(#N "_alltoall", j * 3 + i,                            \
                           (T)test_val(j, (size_t)(me * 3 + i), 6), d[j * 3 + i]); \
        shmem_barrier_all();                                                     \
        for (int i = 0; i < 2 * n; i++)                                          \
            d[i] = (T)0;                                                         \
        TEST_ASSERT(shmem_##N##_alltoalls(SHMEM_TEAM_WORLD, d, s, 2, 3, 1) == 0, \
                    "%s alltoalls", #N);                                         \
        for (int j = 0; j < n; j++) {                                            \
            TEST_CHECK(#N "_alltoalls", j,                                       \
                       (T)test_val(j, (size_t)(me * 3), 6), d[j * 2]);           \
            TEST_CHECK(#N "_alltoalls gap", j, (T)0, d[j * 2 + 1]);              \
        }                                                                        \
        shmem_barrier_all();                                                     \
    }

static void test_collect(shmem_team_t team, unsigned char *dst, unsigned char *src, size_t maxn,
                         const char *tag)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    /* collect: member j contributes (j * 37 + round) % maxn bytes, 0 for j == 1. */
    for (int round = 0; round < 3; round++) {
        size_t mine = tme == 1 ? 0 : (size_t)(tme * 37 + round * 101) % maxn, off = 0;
        for (size_t i = 0; i < mine; i++)
            src[i] = bval(tme, i, round);
        TEST_ASSERT(shmem_collectmem(team, dst, src, mine) == 0, "%s collectmem", tag);
        for (int j = 0; j < tn; j++) {
            size_t nj = j == 1 ? 0 : (size_t)(j * 37 + round * 101) % maxn;
            check_bytes(tag, dst + off, j, nj, round);
            off += nj;
        }
        shmem_team_sync(team);
    }
    /* fcollect */
    for (size_t n = 0; n <= maxn; n = n ? n * 8 : 1) {
        for (size_t i = 0; i < n; i++)
            src[i] = bval(tme, i, 5);
        TEST_ASSERT(shmem_fcollectmem(team, dst, src, n) == 0, "%s fcollectmem", tag);
        for (int j = 0; j < tn; j++)
            check_bytes(tag, dst + j * n, j, n, 5);
        shmem_team_sync(team);
    }
}

static void test_alltoall(shmem_team_t team, long *dst, long *src, size_t maxn, const char *tag)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    for (size_t n = 0; n <= maxn; n = n ? n * 4 : 1) {
        for (int j = 0; j < tn; j++)
            for (size_t i = 0; i < n; i++)
                src[j * n + i] = tme * 100000L + j * 1000L + (long)i;
        TEST_ASSERT(shmem_long_alltoall(team, dst, src, n) == 0, "%s alltoall", tag);
        for (int j = 0; j < tn; j++)
            for (size_t i = 0; i < n; i++)
                TEST_CHECK("alltoall", j * n + i, j * 100000L + tme * 1000L + (long)i,
                           dst[j * n + i]);
        shmem_team_sync(team);
    }
    /* alltoalls: dst stride 2, sst stride 3. */
    size_t n = 5;
    for (int j = 0; j < tn; j++)
        for (size_t i = 0; i < n; i++)
            src[(j * n + i) * 3] = tme * 100000L + j * 1000L + (long)i;
    for (size_t i = 0; i < n * tn * 2; i++)
        dst[i] = -1;
    TEST_ASSERT(shmem_long_alltoalls(team, dst, src, 2, 3, n) == 0, "%s alltoalls", tag);
    for (int j = 0; j < tn; j++)
        for (size_t i = 0; i < n; i++) {
            TEST_CHECK("alltoalls", j * n + i, j * 100000L + tme * 1000L + (long)i,
                       dst[(j * n + i) * 2]);
            TEST_CHECK("alltoalls gap", j * n + i, -1, dst[(j * n + i) * 2 + 1]);
        }
    shmem_team_sync(team);
    /* The mem forms (bytes): alltoallmem of 13 bytes per pair, then
     * alltoallsmem of 4 bytes per pair with strides 3 (dest) and 2. */
    unsigned char *db = (unsigned char *)dst, *sb = (unsigned char *)src;
    for (int j = 0; j < tn; j++)
        for (size_t i = 0; i < 13; i++)
            sb[j * 13 + i] = bval(tme, (size_t)j * 13 + i, 8);
    TEST_ASSERT(shmem_alltoallmem(team, db, sb, 13) == 0, "%s alltoallmem", tag);
    for (int j = 0; j < tn; j++)
        for (size_t i = 0; i < 13; i++)
            TEST_CHECK("alltoallmem", j * 13 + i, bval(j, (size_t)tme * 13 + i, 8),
                       db[j * 13 + i]);
    shmem_team_sync(team);
    for (int j = 0; j < tn; j++)
        for (size_t i = 0; i < 4; i++)
            sb[(j * 4 + i) * 2] = bval(tme, (size_t)j * 4 + i, 9);
    memset(db, 0, (size_t)tn * 4 * 3);
    TEST_ASSERT(shmem_alltoallsmem(team, db, sb, 3, 2, 4) == 0, "%s alltoallsmem", tag);
    for (int j = 0; j < tn; j++)
        for (size_t i = 0; i < 4; i++) {
            TEST_CHECK("alltoallsmem", j * 4 + i, bval(j, (size_t)tme * 4 + i, 9),
                       db[(j * 4 + i) * 3]);
            TEST_CHECK("alltoallsmem gap", j * 4 + i, 0, db[(j * 4 + i) * 3 + 1]);
        }
    shmem_team_sync(team);
}

/* The parts of run_all, chosen per forced algorithm. */
enum { S_BCAST = 1, S_COLLECT = 2, S_ALLTOALL = 4, S_OTHER = 8, S_ALL = 15 };

static void active_sets(unsigned char *dstb, unsigned char *srcb)
{
    int me = test_me, n = test_npes;

    /* The deprecated active-set forms: the world set, then PEs 1..n-1
     * (PE 0 does not call). */
    for (int set = 0; set < 2; set++) {
        int start = set ? 1 : 0, size = set ? n - 1 : n;
        if (size < 1 || me < start) {
            shmem_barrier_all();
            continue;
        }
        int idx = me - start;
        long *d = (long *)dstb, *s = (long *)srcb;
        int *d32 = (int *)dstb, *s32 = (int *)srcb;
        for (int root = 0; root < size; root++) {
            for (int i = 0; i < 16; i++)
                s[i] = root * 100 + i, d[i] = -5;
            shmem_broadcast64(d, s, 16, root, start, 0, size, psync);
            for (int i = 0; i < 16; i++)
                TEST_CHECK("broadcast64", i, idx == root ? -5 : root * 100 + i, d[i]);
            shmem_barrier(start, 0, size, psync);
            for (int i = 0; i < 5; i++)
                s32[i] = root * 10 + i + 1, d32[i] = -7;
            shmem_broadcast32(d32, s32, 5, root, start, 0, size, psync);
            for (int i = 0; i < 5; i++)
                TEST_CHECK("broadcast32", i, idx == root ? -7 : root * 10 + i + 1, d32[i]);
            shmem_sync(start, 0, size, psync);
        }
        for (int i = 0; i < 3; i++)
            s32[i] = idx * 10 + i;
        shmem_fcollect32(d32, s32, 3, start, 0, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 3; i++)
                TEST_CHECK("fcollect32", j * 3 + i, j * 10 + i, d32[j * 3 + i]);
        shmem_sync(start, 0, size, psync);
        for (int i = 0; i < 2; i++)
            s[i] = idx * 10 + i + 1;
        shmem_fcollect64(d, s, 2, start, 0, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 2; i++)
                TEST_CHECK("fcollect64", j * 2 + i, j * 10 + i + 1, d[j * 2 + i]);
        shmem_barrier(start, 0, size, psync);
        for (int i = 0; i < idx; i++)
            s[i] = idx * 10 + i;
        shmem_collect64(d, s, idx, start, 0, size, psync);
        for (int j = 0, o = 0; j < size; o += j, j++)
            for (int i = 0; i < j; i++)
                TEST_CHECK("collect64", o + i, j * 10 + i, d[o + i]);
        shmem_barrier(start, 0, size, psync);
        for (int i = 0; i < size - idx; i++)
            s32[i] = idx * 10 + i + 2;
        shmem_collect32(d32, s32, (size_t)(size - idx), start, 0, size, psync);
        for (int j = 0, o = 0; j < size; o += size - j, j++)
            for (int i = 0; i < size - j; i++)
                TEST_CHECK("collect32", o + i, j * 10 + i + 2, d32[o + i]);
        shmem_barrier(start, 0, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 2; i++)
                s[j * 2 + i] = idx * 100 + j * 10 + i;
        shmem_alltoall64(d, s, 2, start, 0, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 2; i++)
                TEST_CHECK("alltoall64", j * 2 + i, j * 100 + idx * 10 + i, d[j * 2 + i]);
        shmem_barrier(start, 0, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 3; i++)
                s32[j * 3 + i] = idx * 100 + j * 10 + i;
        shmem_alltoall32(d32, s32, 3, start, 0, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 3; i++)
                TEST_CHECK("alltoall32", j * 3 + i, j * 100 + idx * 10 + i, d32[j * 3 + i]);
        shmem_barrier(start, 0, size, psync);
        for (int j = 0; j < size; j++)
            s32[j * 2] = idx * 100 + j;
        shmem_alltoalls32(d32, s32, 1, 2, 1, start, 0, size, psync);
        for (int j = 0; j < size; j++)
            TEST_CHECK("alltoalls32", j, j * 100 + idx, d32[j]);
        shmem_barrier(start, 0, size, psync);
        for (int j = 0; j < size; j++)
            s[j] = idx * 100 + j + 3, d[2 * j] = d[2 * j + 1] = -1;
        shmem_alltoalls64(d, s, 2, 1, 1, start, 0, size, psync);
        for (int j = 0; j < size; j++) {
            TEST_CHECK("alltoalls64", j, j * 100 + idx + 3, d[2 * j]);
            TEST_CHECK("alltoalls64 gap", j, -1, d[2 * j + 1]);
        }
        shmem_barrier(start, 0, size, psync);
        shmem_barrier_all();
    }
}

static void run_all(unsigned parts)
{
    unsigned char *dstb = shmem_malloc(BIG * 4 + 64), *srcb = shmem_malloc(BIG + 64);
    int me = test_me, n = test_npes;
    shmem_team_t odd = SHMEM_TEAM_INVALID;

    TEST_ASSERT(dstb && srcb, "shmem_malloc failed");
    memset(dstb, 0, BIG * 4 + 64);
    shmem_barrier_all();
    if (parts & S_BCAST) {
        test_bcast(SHMEM_TEAM_WORLD, dstb, srcb, "broadcast world");
        test_bcast(SHMEM_TEAM_WORLD, gdst, gsrc, "broadcast world globals");
        test_bcast(SHMEM_TEAM_SHARED, dstb, srcb, "broadcast shared");
        /* Every type once, the root going round. */
        int root = 0;
        TEST_RMA_TYPES(BCAST_TYPE)
        /* Generic form. */
        long *d = (long *)dstb, *s = (long *)srcb;
        s[0] = 77 + me;
        shmem_barrier_all();
        TEST_ASSERT(shmem_broadcast(SHMEM_TEAM_WORLD, d, s, 1, n - 1) == 0, "generic broadcast");
        TEST_CHECK("generic broadcast", 0, 77 + n - 1, d[0]);
        shmem_barrier_all();
    }
    if (parts & S_COLLECT) {
        test_collect(SHMEM_TEAM_WORLD, dstb, srcb, 4096, "collect world");
        test_collect(SHMEM_TEAM_WORLD, gdst, gsrc, 1024 / n, "collect world globals");
        test_collect(SHMEM_TEAM_SHARED, dstb, srcb, 512, "collect shared");
    }
    if (parts & S_ALLTOALL) {
        test_alltoall(SHMEM_TEAM_WORLD, (long *)dstb, (long *)srcb, 1024, "world");
        test_alltoall(SHMEM_TEAM_WORLD, (long *)gdst, (long *)gsrc, 16, "world globals");
        test_alltoall(SHMEM_TEAM_SHARED, (long *)dstb, (long *)srcb, 64, "shared");
    }
    if (parts == S_ALL) {
        TEST_RMA_TYPES(COLL_TYPE)
        /* Generic forms. */
        long *d = (long *)dstb, *s = (long *)srcb;
        for (int j = 0; j < n; j++)
            s[j] = me * 10 + j;
        TEST_ASSERT(shmem_fcollect(SHMEM_TEAM_WORLD, d, s, 1) == 0, "generic fcollect");
        for (int j = 0; j < n; j++)
            TEST_CHECK("generic fcollect", j, j * 10, d[j]);
        TEST_ASSERT(shmem_collect(SHMEM_TEAM_WORLD, d, s, 1) == 0, "generic collect");
        for (int j = 0; j < n; j++)
            TEST_CHECK("generic collect", j, j * 10, d[j]);
        TEST_ASSERT(shmem_alltoall(SHMEM_TEAM_WORLD, d, s, 1) == 0, "generic alltoall");
        for (int j = 0; j < n; j++)
            TEST_CHECK("generic alltoall", j, j * 10 + me, d[j]);
        TEST_ASSERT(shmem_alltoalls(SHMEM_TEAM_WORLD, d, s, 1, 1, 1) == 0, "generic alltoalls");
        for (int j = 0; j < n; j++)
            TEST_CHECK("generic alltoalls", j, j * 10 + me, d[j]);
        shmem_barrier_all();
    }
    /* A split team: the odd PEs (one PE with 2 or 3 PEs, none with 1). */
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID) {
        if (parts & S_BCAST)
            test_bcast(odd, dstb, srcb, "broadcast odd");
        if (parts & S_COLLECT)
            test_collect(odd, dstb, srcb, 512, "collect odd");
        if (parts & S_ALLTOALL)
            test_alltoall(odd, (long *)dstb, (long *)srcb, 64, "odd");
        shmem_team_destroy(odd);
    }
    shmem_barrier_all();
    if (parts & S_OTHER) {
        /* An invalid team: nonzero, no communication. */
        TEST_ASSERT(shmem_broadcastmem(SHMEM_TEAM_INVALID, dstb, srcb, 8, 0) != 0,
                    "broadcastmem on SHMEM_TEAM_INVALID returned 0");
        TEST_ASSERT(shmem_fcollectmem(SHMEM_TEAM_INVALID, dstb, srcb, 8) != 0,
                    "fcollectmem on SHMEM_TEAM_INVALID returned 0");
        TEST_ASSERT(shmem_alltoallmem(SHMEM_TEAM_INVALID, dstb, srcb, 8) != 0,
                    "alltoallmem on SHMEM_TEAM_INVALID returned 0");
        TEST_ASSERT(shmem_team_sync(SHMEM_TEAM_INVALID) != 0,
                    "team_sync on SHMEM_TEAM_INVALID returned 0");
        /* team_sync orders stores to mapped peers: a ring of puts. */
        long *flag = (long *)dstb;
        for (int round = 1; round <= 3; round++) {
            shmem_long_p(flag, round * 1000 + me, (me + 1) % n);
            shmem_quiet();
            TEST_ASSERT(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "team_sync");
            TEST_CHECK("team_sync", 0, round * 1000 + (me - 1 + n) % n, *flag);
            TEST_ASSERT(shmem_team_sync(SHMEM_TEAM_SHARED) == 0, "team_sync shared");
            TEST_ASSERT(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "team_sync");
        }
        shmem_barrier_all();
        active_sets(dstb, srcb);
    }
    shmem_free(srcb);
    shmem_free(dstb);
}

int main(void)
{
    /* Each configuration: the algorithm of every family (every value is
     * forced once; a forced algorithm that cannot apply falls back), and
     * the parts to run. */
    static const struct {
        const char *bcast, *collect, *alltoall, *barrier;
        unsigned parts;
    } cfg[] = {
        { "auto", "auto", "auto", "auto", S_ALL },
        { "direct", "direct", "direct", "central", S_BCAST | S_COLLECT | S_ALLTOALL },
        { "tree", "ring", "pairwise", "dissemination", S_ALL },
        { "linear", "rd", "pairwise", "auto", S_BCAST | S_COLLECT },
    };
    const size_t ncfg = sizeof(cfg) / sizeof(cfg[0]);

    for (size_t c = 0; c < ncfg; c++) {
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            psync[i] = SHMEM_SYNC_VALUE;
        setenv("FABSHMEM_BCAST_ALGO", cfg[c].bcast, 1);
        setenv("FABSHMEM_COLLECT_ALGO", cfg[c].collect, 1);
        setenv("FABSHMEM_ALLTOALL_ALGO", cfg[c].alltoall, 1);
        setenv("FABSHMEM_BARRIER_ALGO", cfg[c].barrier, 1);
        test_init("coll");
        double t0 = test_now();
        run_all(cfg[c].parts);
        test_note("bcast=%s collect=%s alltoall=%s barrier=%s: %.2f s", cfg[c].bcast,
                  cfg[c].collect, cfg[c].alltoall, cfg[c].barrier, test_now() - t0);
        if (c + 1 < ncfg)
            shmem_finalize();
    }
    return test_finish();
}
