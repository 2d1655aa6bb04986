/*
 * Collectives other than reductions, every value checked on every PE:
 * broadcast (every root, sizes 0 to 1 MiB, every RMA type), collect with
 * different counts per PE (some 0; up to about 1 MiB each), fcollect (up
 * to 1 MiB per PE), alltoall (up to 1 MiB in all), alltoalls with
 * strides, the mem forms, the C11 generic forms, the deprecated
 * active-set forms (world and a strided set), shmem_barrier/shmem_sync
 * and shmem_team_sync; on TEAM_WORLD, TEAM_SHARED and a strided split
 * team, with heap buffers and with globals (data segment: the transport
 * path), and at small sizes on SHMEMX_TEAM_NODE, SHMEMX_TEAM_SAME_MYPE_NODE,
 * the world in reverse order (a negative stride) and both teams of a 2-D
 * split.  Each algorithm is forced in turn: init and finalize pair once
 * per configuration, the algorithms set in the environment before each
 * init.  shmemx_team_coll_count then says on every PE whether the forced
 * algorithm ran on TEAM_WORLD where it applies (and that it did not where
 * it does not: the fallback).
 *
 *   tests/coll/coll [--quick]     (--quick: small sizes and the first three
 *                             configurations only, for slow providers)
 */
#include "common_x.h"

#define BIG (1u << 20)
#define SMALL 64

/* Globals (data segment: the transport path). */
static unsigned char gdst[4 * 1024 + 64] __attribute__((aligned(64)));
static unsigned char gsrc[4 * 1024 + 64] __attribute__((aligned(64)));
static long psync[SHMEM_BCAST_SYNC_SIZE];
/* --quick: small sizes only. */
static int quick;

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

static void test_bcast(shmem_team_t team, unsigned char *dst, unsigned char *src, size_t maxn,
                       const char *tag)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    static const size_t sizes[] = { 0, 1, 7, 4096, BIG };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si];
        if (n > maxn || (n > 4096 && (src == gsrc || quick)))
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

/* One collect and one fcollect of about big bytes per member (dst holds
 * BIG * 4 bytes). */
static void test_collect_big(shmem_team_t team, unsigned char *dst, unsigned char *src, size_t big,
                             const char *tag)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    size_t mine = big - (size_t)tme * 4093, off = 0;

    for (size_t i = 0; i < mine; i++)
        src[i] = bval(tme, i, 11);
    TEST_ASSERT(shmem_collectmem(team, dst, src, mine) == 0, "%s collectmem", tag);
    for (int j = 0; j < tn; j++) {
        check_bytes(tag, dst + off, j, big - (size_t)j * 4093, 11);
        off += big - (size_t)j * 4093;
    }
    shmem_team_sync(team);
    for (size_t i = 0; i < big; i++)
        src[i] = bval(tme, i, 12);
    TEST_ASSERT(shmem_fcollectmem(team, dst, src, big) == 0, "%s fcollectmem", tag);
    for (int j = 0; j < tn; j++)
        check_bytes(tag, dst + (size_t)j * big, j, big, 12);
    shmem_team_sync(team);
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

/* One alltoall of n longs per pair. */
static void alltoall_once(shmem_team_t team, long *dst, long *src, size_t n, const char *tag)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);

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

/* alltoall up to maxn longs per pair (big: then 1 MiB in all) and the
 * strided and mem forms. */
static void test_alltoall(shmem_team_t team, long *dst, long *src, size_t maxn, int big,
                          const char *tag)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    for (size_t n = 0; n <= maxn; n = n ? n * 4 : 1)
        alltoall_once(team, dst, src, n, tag);
    if (big && !quick)
        alltoall_once(team, dst, src, BIG / sizeof(long) / (size_t)tn, tag);
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

    /* The deprecated active-set forms: the world set, PEs 1..n-1 (PE 0
     * does not call), the even PEs (stride 2) and the odd ones (start 1,
     * stride 2). */
    static const int sets[][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 } };
    for (int set = 0; set < 4; set++) {
        int start = sets[set][0], lg = sets[set][1];
        int size = n > start ? (n - start + (1 << lg) - 1) >> lg : 0;
        if (size < 1 || me < start || (me - start) % (1 << lg)) {
            shmem_barrier_all();
            continue;
        }
        int idx = (me - start) >> lg;
        long *d = (long *)dstb, *s = (long *)srcb;
        int *d32 = (int *)dstb, *s32 = (int *)srcb;
        for (int root = 0; root < size; root++) {
            for (int i = 0; i < 16; i++)
                s[i] = root * 100 + i, d[i] = -5;
            shmem_broadcast64(d, s, 16, root, start, lg, size, psync);
            for (int i = 0; i < 16; i++)
                TEST_CHECK("broadcast64", i, idx == root ? -5 : root * 100 + i, d[i]);
            shmem_barrier(start, lg, size, psync);
            for (int i = 0; i < 5; i++)
                s32[i] = root * 10 + i + 1, d32[i] = -7;
            shmem_broadcast32(d32, s32, 5, root, start, lg, size, psync);
            for (int i = 0; i < 5; i++)
                TEST_CHECK("broadcast32", i, idx == root ? -7 : root * 10 + i + 1, d32[i]);
            shmem_sync(start, lg, size, psync);
        }
        for (int i = 0; i < 3; i++)
            s32[i] = idx * 10 + i;
        shmem_fcollect32(d32, s32, 3, start, lg, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 3; i++)
                TEST_CHECK("fcollect32", j * 3 + i, j * 10 + i, d32[j * 3 + i]);
        shmem_sync(start, lg, size, psync);
        for (int i = 0; i < 2; i++)
            s[i] = idx * 10 + i + 1;
        shmem_fcollect64(d, s, 2, start, lg, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 2; i++)
                TEST_CHECK("fcollect64", j * 2 + i, j * 10 + i + 1, d[j * 2 + i]);
        shmem_barrier(start, lg, size, psync);
        for (int i = 0; i < idx; i++)
            s[i] = idx * 10 + i;
        shmem_collect64(d, s, idx, start, lg, size, psync);
        for (int j = 0, o = 0; j < size; o += j, j++)
            for (int i = 0; i < j; i++)
                TEST_CHECK("collect64", o + i, j * 10 + i, d[o + i]);
        shmem_barrier(start, lg, size, psync);
        for (int i = 0; i < size - idx; i++)
            s32[i] = idx * 10 + i + 2;
        shmem_collect32(d32, s32, (size_t)(size - idx), start, lg, size, psync);
        for (int j = 0, o = 0; j < size; o += size - j, j++)
            for (int i = 0; i < size - j; i++)
                TEST_CHECK("collect32", o + i, j * 10 + i + 2, d32[o + i]);
        shmem_barrier(start, lg, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 2; i++)
                s[j * 2 + i] = idx * 100 + j * 10 + i;
        shmem_alltoall64(d, s, 2, start, lg, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 2; i++)
                TEST_CHECK("alltoall64", j * 2 + i, j * 100 + idx * 10 + i, d[j * 2 + i]);
        shmem_barrier(start, lg, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 3; i++)
                s32[j * 3 + i] = idx * 100 + j * 10 + i;
        shmem_alltoall32(d32, s32, 3, start, lg, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 3; i++)
                TEST_CHECK("alltoall32", j * 3 + i, j * 100 + idx * 10 + i, d32[j * 3 + i]);
        shmem_barrier(start, lg, size, psync);
        for (int j = 0; j < size; j++)
            s32[j * 2] = idx * 100 + j;
        shmem_alltoalls32(d32, s32, 1, 2, 1, start, lg, size, psync);
        for (int j = 0; j < size; j++)
            TEST_CHECK("alltoalls32", j, j * 100 + idx, d32[j]);
        shmem_barrier(start, lg, size, psync);
        for (int j = 0; j < size; j++)
            s[j] = idx * 100 + j + 3, d[2 * j] = d[2 * j + 1] = -1;
        shmem_alltoalls64(d, s, 2, 1, 1, start, lg, size, psync);
        for (int j = 0; j < size; j++) {
            TEST_CHECK("alltoalls64", j, j * 100 + idx + 3, d[2 * j]);
            TEST_CHECK("alltoalls64 gap", j, -1, d[2 * j + 1]);
        }
        shmem_barrier(start, lg, size, psync);
        shmem_barrier_all();
    }
}

/* Small collectives on the other kinds of team (test_more_teams_make):
 * SHMEMX_TEAM_NODE, SHMEMX_TEAM_SAME_MYPE_NODE, the world in reverse
 * order, the world interleaved (from 2 PEs: virtual nodes of 2 interleave
 * from 3; at 2 the team is the world in order, and shmemx_team_init beside
 * live split teams and after a new shmem_init is tested there too) and
 * both teams of a 2-D split with rows of 2. */
static void more_teams(unsigned parts, unsigned char *dstb, unsigned char *srcb)
{
    shmem_team_t tl[TEST_MORE_TEAMS];
    const char *names[TEST_MORE_TEAMS];

    test_more_teams_make(2, tl, names);
    for (int i = 0; i < TEST_MORE_TEAMS; i++) {
        char tag[64];
        if (tl[i] == SHMEM_TEAM_INVALID)
            continue;
        if (parts & S_BCAST) {
            snprintf(tag, sizeof(tag), "broadcast %s", names[i]);
            test_bcast(tl[i], dstb, srcb, 4096, tag);
        }
        if (parts & S_COLLECT) {
            snprintf(tag, sizeof(tag), "collect %s", names[i]);
            test_collect(tl[i], dstb, srcb, 512, tag);
        }
        if (parts & S_ALLTOALL) {
            snprintf(tag, sizeof(tag), "alltoall %s", names[i]);
            test_alltoall(tl[i], (long *)dstb, (long *)srcb, 16, 0, tag);
        }
        TEST_ASSERT(shmem_team_sync(tl[i]) == 0, "team_sync %s", names[i]);
    }
    test_more_teams_free(tl);
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
        test_bcast(SHMEM_TEAM_WORLD, dstb, srcb, BIG, "broadcast world");
        test_bcast(SHMEM_TEAM_WORLD, gdst, gsrc, 4096, "broadcast world globals");
        test_bcast(SHMEM_TEAM_SHARED, dstb, srcb, BIG, "broadcast shared");
        /* Every type once, the root going round. */
        int root = 0;
        if (!quick) {
            TEST_RMA_TYPES(BCAST_TYPE)
        }
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
        if (!quick)
            test_collect_big(SHMEM_TEAM_WORLD, dstb, srcb, n <= 4 ? BIG : BIG * 4 / n,
                             "collect world 1 MiB");
        test_collect(SHMEM_TEAM_WORLD, gdst, gsrc, 1024 / n, "collect world globals");
        test_collect(SHMEM_TEAM_SHARED, dstb, srcb, 512, "collect shared");
    }
    if (parts & S_ALLTOALL) {
        test_alltoall(SHMEM_TEAM_WORLD, (long *)dstb, (long *)srcb, 1024, 1, "world");
        test_alltoall(SHMEM_TEAM_WORLD, (long *)gdst, (long *)gsrc, 16, 0, "world globals");
        test_alltoall(SHMEM_TEAM_SHARED, (long *)dstb, (long *)srcb, 64, 0, "shared");
    }
    if (parts == S_ALL) {
        if (!quick) {
            TEST_RMA_TYPES(COLL_TYPE)
        }
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
            test_bcast(odd, dstb, srcb, BIG, "broadcast odd");
        if (parts & S_COLLECT)
            test_collect(odd, dstb, srcb, 512, "collect odd");
        if (parts & S_ALLTOALL)
            test_alltoall(odd, (long *)dstb, (long *)srcb, 64, 0, "odd");
        shmem_team_destroy(odd);
    }
    shmem_barrier_all();
    if (!quick)
        more_teams(parts, dstb, srcb);
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

/* ---- which algorithms ran ---- */

enum { K_BARRIER, K_BCAST, K_COLLECT, K_ALLTOALL, NK };
static const char *const knames[NK] = { "barrier", "broadcast", "collect", "alltoall" };
static const char *const anames[] = { "direct", "small", "ll", "central", "dissemination",
                                      "tree", "linear", "ring", "rd", "bruck", "pairwise",
                                      "hier" };
#define NA (sizeof(anames) / sizeof(anames[0]))

static void counts_get(long c[NK][NA])
{
    for (int k = 0; k < NK; k++)
        for (size_t a = 0; a < NA; a++) {
            c[k][a] = shmemx_team_coll_count(SHMEM_TEAM_WORLD, knames[k], anames[a]);
            TEST_ASSERT(c[k][a] >= 0, "shmemx_team_coll_count(world, %s, %s) = %ld", knames[k],
                        anames[a], c[k][a]);
        }
}

/* The delta of (kind, algorithm) since before must be nonzero (ran) or
 * zero (did not). */
static unsigned cur_parts;

static void expect(long before[NK][NA], long after[NK][NA], int k, const char *algo, int ran,
                   const char *cfg)
{
    static const unsigned part_of[NK] = { S_ALL, S_BCAST, S_COLLECT, S_ALLTOALL };
    size_t a;

    if (!(cur_parts & part_of[k]))
        return; /* not run in this configuration */

    for (a = 0; a < NA && strcmp(anames[a], algo); a++)
        ;
    TEST_ASSERT(a < NA, "no algorithm %s", algo);
    long d = after[k][a] - before[k][a];
    if (ran ? d <= 0 : d != 0)
        test_fail("configuration %s: %s with %s ran %ld times on TEAM_WORLD (expected %s)", cfg,
                  knames[k], algo, d, ran ? "some" : "none");
}

int main(int argc, char **argv)
{
    /* Each configuration: the algorithm of every family (every value is
     * forced once; a forced algorithm that cannot apply falls back), and
     * the parts to run. */
    static const struct {
        const char *bcast, *collect, *alltoall, *barrier;
        unsigned parts;
    } cfg[] = {
        { "auto", "auto", "auto", "auto", S_ALL },
        { "tree", "ring", "pairwise", "dissemination", S_ALL },
        { "linear", "rd", "pairwise", "auto", S_BCAST | S_COLLECT },
        { "direct", "direct", "direct", "central", S_BCAST | S_COLLECT | S_ALLTOALL },
        { "hier", "hier", "ll", "hier", S_ALL },
        { "auto", "small", "small", "auto", S_COLLECT | S_ALLTOALL },
        { "auto", "ll", "auto", "auto", S_COLLECT },
    };
    size_t ncfg = sizeof(cfg) / sizeof(cfg[0]);
    static long before[NK][NA], after[NK][NA];

    if (argc > 1 && !strcmp(argv[1], "--quick")) {
        quick = 1;
        ncfg = 3;
    }
    for (size_t c = 0; c < ncfg; c++) {
        char name[96];
        int n, pow2, mapped, hier;

        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            psync[i] = SHMEM_SYNC_VALUE;
        setenv("FABSHMEM_BCAST_ALGO", cfg[c].bcast, 1);
        setenv("FABSHMEM_COLLECT_ALGO", cfg[c].collect, 1);
        setenv("FABSHMEM_ALLTOALL_ALGO", cfg[c].alltoall, 1);
        setenv("FABSHMEM_BARRIER_ALGO", cfg[c].barrier, 1);
        test_init("coll");
        n = test_npes;
        pow2 = (n & (n - 1)) == 0;
        snprintf(name, sizeof(name), "bcast=%s collect=%s alltoall=%s barrier=%s", cfg[c].bcast,
                 cfg[c].collect, cfg[c].alltoall, cfg[c].barrier);
        test_world_shape(&mapped, &hier);
        cur_parts = cfg[c].parts;
        counts_get(before);
        double t0 = test_now();
        run_all(cfg[c].parts);
        counts_get(after);
        test_note("%s: %.2f s", name, test_now() - t0);
        if (n > 1) {
            /* What ran on TEAM_WORLD: the forced algorithm where it
             * applies, a fallback (auto's choice) where it does not. */
            if (!strcmp(cfg[c].bcast, "hier") || !strcmp(cfg[c].bcast, "auto"))
                expect(before, after, K_BCAST, "hier", hier, name);
            if (!strcmp(cfg[c].collect, "hier") || !strcmp(cfg[c].collect, "auto"))
                expect(before, after, K_COLLECT, "hier", hier, name);
            if (!strcmp(cfg[c].barrier, "hier") || !strcmp(cfg[c].barrier, "auto"))
                expect(before, after, K_BARRIER, "hier", hier, name);
            if (!strcmp(cfg[c].bcast, "direct"))
                expect(before, after, K_BCAST, "direct", mapped, name);
            if (!strcmp(cfg[c].bcast, "tree") || !strcmp(cfg[c].bcast, "linear"))
                expect(before, after, K_BCAST, cfg[c].bcast, 1, name);
            if (!strcmp(cfg[c].collect, "ring"))
                expect(before, after, K_COLLECT, "ring", 1, name);
            if (!strcmp(cfg[c].collect, "rd")) {
                /* Bruck's variant where n is not a power of two. */
                expect(before, after, K_COLLECT, "rd", pow2, name);
                expect(before, after, K_COLLECT, "bruck", !pow2, name);
            }
            if (!strcmp(cfg[c].collect, "auto") && !mapped && !hier && !pow2 && !quick)
                expect(before, after, K_COLLECT, "bruck", 1, name); /* small fcollects */
            /* (Forced direct falls back for the globals, which are not
             * in the heap.) */
            if (!strcmp(cfg[c].collect, "direct"))
                expect(before, after, K_COLLECT, "direct", mapped, name);
            if (!strcmp(cfg[c].alltoall, "direct"))
                expect(before, after, K_ALLTOALL, "direct", mapped, name);
            if (!strcmp(cfg[c].collect, "small") || !strcmp(cfg[c].collect, "ll"))
                expect(before, after, K_COLLECT, cfg[c].collect, mapped, name);
            if (!strcmp(cfg[c].alltoall, "small") || !strcmp(cfg[c].alltoall, "ll"))
                expect(before, after, K_ALLTOALL, cfg[c].alltoall, mapped, name);
            /* Forced small applies wherever auto would take ll (any
             * fcollect or alltoall of a node team that fits the scratch). */
            if (!strcmp(cfg[c].collect, "small"))
                expect(before, after, K_COLLECT, "ll", 0, name);
            if (!strcmp(cfg[c].alltoall, "small"))
                expect(before, after, K_ALLTOALL, "ll", 0, name);
            if (!strcmp(cfg[c].alltoall, "pairwise"))
                expect(before, after, K_ALLTOALL, "pairwise", 1, name);
            if (!strcmp(cfg[c].barrier, "dissemination"))
                expect(before, after, K_BARRIER, "dissemination", 1, name);
            if (!strcmp(cfg[c].barrier, "central"))
                expect(before, after, K_BARRIER, "central", mapped, name);
        }
        if (c == 0) {
            /* Unknown names: -1 (and a warning). */
            TEST_ASSERT(shmemx_team_coll_count(SHMEM_TEAM_WORLD, "gather", "ring") == -1,
                        "shmemx_team_coll_count of an unknown collective");
            TEST_ASSERT(shmemx_team_coll_count(SHMEM_TEAM_WORLD, "collect", "pipeline") == -1,
                        "shmemx_team_coll_count of an unknown algorithm");
            TEST_ASSERT(shmemx_team_coll_count(SHMEM_TEAM_INVALID, "collect", "ring") == -1,
                        "shmemx_team_coll_count of SHMEM_TEAM_INVALID");
        }
        if (c + 1 < ncfg)
            shmem_finalize();
    }
    return test_finish();
}
