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

static unsigned char gdst[4 * 1024 + 64], gsrc[4 * 1024 + 64]; /* globals */
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
}

static void run_all(void)
{
    unsigned char *dstb = shmem_malloc(BIG * 4 + 64), *srcb = shmem_malloc(BIG + 64);
    int me = test_me, n = test_npes;
    shmem_team_t odd = SHMEM_TEAM_INVALID;

    memset(dstb, 0, BIG * 4 + 64);
    shmem_barrier_all();
    test_bcast(SHMEM_TEAM_WORLD, dstb, srcb, "broadcast world");
    test_bcast(SHMEM_TEAM_WORLD, gdst, gsrc, "broadcast world globals");
    test_bcast(SHMEM_TEAM_SHARED, dstb, srcb, "broadcast shared");
    for (int root = 0; root < n; root++) {
        TEST_RMA_TYPES(BCAST_TYPE)
    }
    /* Generic form. */
    {
        long *d = (long *)dstb, *s = (long *)srcb;
        s[0] = 77 + me;
        shmem_barrier_all();
        shmem_broadcast(SHMEM_TEAM_WORLD, d, s, 1, n - 1);
        TEST_CHECK("generic broadcast", 0, 77 + n - 1, d[0]);
        shmem_barrier_all();
    }
    test_collect(SHMEM_TEAM_WORLD, dstb, srcb, 4096, "collect world");
    test_collect(SHMEM_TEAM_WORLD, gdst, gsrc, 1024 / n, "collect world globals");
    test_collect(SHMEM_TEAM_SHARED, dstb, srcb, 512, "collect shared");
    test_alltoall(SHMEM_TEAM_WORLD, (long *)dstb, (long *)srcb, 1024, "world");
    /* A split team: the odd PEs. */
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID) {
        test_bcast(odd, dstb, srcb, "broadcast odd");
        test_collect(odd, dstb, srcb, 512, "collect odd");
        test_alltoall(odd, (long *)dstb, (long *)srcb, 64, "odd");
        shmem_team_destroy(odd);
    }
    shmem_barrier_all();

    /* The deprecated active-set forms: the world set, then PEs 1..n-1. */
    for (int set = 0; set < 2; set++) {
        int start = set ? 1 : 0, size = set ? n - 1 : n;
        if (size < 1 || me < start) {
            shmem_barrier_all();
            continue;
        }
        int idx = me - start;
        long *d = (long *)dstb, *s = (long *)srcb;
        for (int root = 0; root < size; root++) {
            for (int i = 0; i < 16; i++)
                s[i] = root * 100 + i, d[i] = -5;
            shmem_broadcast64(d, s, 16, root, start, 0, size, psync);
            for (int i = 0; i < 16; i++)
                TEST_CHECK("broadcast64", i, idx == root ? -5 : root * 100 + i, d[i]);
            shmem_barrier(start, 0, size, psync);
        }
        int *d32 = (int *)dstb, *s32 = (int *)srcb;
        for (int i = 0; i < 3; i++)
            s32[i] = idx * 10 + i;
        shmem_fcollect32(d32, s32, 3, start, 0, size, psync);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 3; i++)
                TEST_CHECK("fcollect32", j * 3 + i, j * 10 + i, d32[j * 3 + i]);
        shmem_sync(start, 0, size, psync);
        for (int i = 0; i < idx; i++)
            s[i] = idx * 10 + i;
        shmem_collect64(d, s, idx, start, 0, size, psync);
        for (int j = 0, o = 0; j < size; o += j, j++)
            for (int i = 0; i < j; i++)
                TEST_CHECK("collect64", o + i, j * 10 + i, d[o + i]);
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
            s32[j * 2] = idx * 100 + j;
        shmem_alltoalls32(d32, s32, 1, 2, 1, start, 0, size, psync);
        for (int j = 0; j < size; j++)
            TEST_CHECK("alltoalls32", j, j * 100 + idx, d32[j]);
        shmem_barrier(start, 0, size, psync);
        shmem_barrier_all();
    }
    shmem_free(srcb);
    shmem_free(dstb);
}

int main(void)
{
    static const char *const algos[][2] = {
        { "FABSHMEM_BCAST_ALGO", "auto" },   { "FABSHMEM_BCAST_ALGO", "tree" },
        { "FABSHMEM_BCAST_ALGO", "linear" }, { "FABSHMEM_COLLECT_ALGO", "ring" },
        { "FABSHMEM_COLLECT_ALGO", "rd" },   { "FABSHMEM_ALLTOALL_ALGO", "pairwise" },
    };
    for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++) {
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            psync[i] = SHMEM_SYNC_VALUE;
        setenv(algos[a][0], algos[a][1], 1);
        test_init("coll");
        run_all();
        if (a + 1 < sizeof(algos) / sizeof(algos[0]))
            shmem_finalize();
        unsetenv(algos[a][0]);
    }
    return test_finish();
}
