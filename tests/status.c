/*
 * status: the SHMEMX_ERROR_* codes (shmemx_error.h) that routines return on
 * bad input, checked by exact value on every PE, and shmemx_strerror.
 *
 *  - Before init: shmemx_strerror names every code (distinct texts, an
 *    unknown code gets "unknown status code"); shmemx_init_attr with unknown
 *    or conflicting flags or an attr not filled in, the shmemx_set_attr_*
 *    helpers and shmemx_get_uniqueid with bad arguments, and
 *    shmem_init_thread with an unknown thread level return
 *    SHMEMX_ERROR_INVALID_VALUE; shmem_init_thread with an invalid
 *    SHMEM_SYMMETRIC_SIZE returns it too and leaves the library
 *    uninitialized, so that the next init (with a valid value) works;
 *    without MPI support SHMEMX_INIT_WITH_MPI_COMM is NOT_SUPPORTED.
 *  - After init: asking an initialized (PMIx) process to boot by unique id
 *    is INVALID_STATE; contexts, team queries, splits and the team-based
 *    collectives and reductions on SHMEM_TEAM_INVALID are INVALID_VALUE;
 *    splitting until the team slots run out is OUT_OF_MEMORY on every PE
 *    (and the teams made before still work); local and symmetric buffer
 *    registration refusals are INVALID_VALUE, and a symmetric unregister
 *    where one PE passes a wrong length is INVALID_VALUE on that PE and
 *    SYMMETRY on the others (nothing is unregistered); a stream reports a
 *    refused put and a NULL host kernel as INVALID_VALUE from
 *    shmemx_stream_sync, once; with FABSHMEM_STREAM_OFFLOAD=1 on a provider
 *    without triggered operations, shmemx_stream_create is NOT_SUPPORTED.
 */
#include "common.h"
#include <shmemx.h>
#include "config.h"

#define EXPECT(call, code)                                                           \
    do {                                                                             \
        int got_ = (call);                                                           \
        if (got_ != (code))                                                          \
            test_fail("%s returned %d (%s), expected %s", #call, got_,               \
                      shmemx_strerror(got_), #code);                                 \
    } while (0)

static void before_init(void)
{
    static const int codes[] = { SHMEMX_SUCCESS, SHMEMX_ERROR_INVALID_VALUE,
                                 SHMEMX_ERROR_OUT_OF_MEMORY, SHMEMX_ERROR_NOT_SUPPORTED,
                                 SHMEMX_ERROR_SYMMETRY, SHMEMX_ERROR_INVALID_STATE,
                                 SHMEMX_ERROR_BOOTSTRAP, SHMEMX_ERROR_TRANSPORT,
                                 SHMEMX_ERROR_INTERNAL };
    const int n = (int)(sizeof(codes) / sizeof(codes[0]));
    shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER, blank;
    shmemx_uniqueid_t uid = SHMEMX_UNIQUEID_INITIALIZER;
    const char *unknown = shmemx_strerror(-1);
    int provided, i, j;

    TEST_ASSERT(unknown && !strcmp(unknown, "unknown status code"),
                "shmemx_strerror(-1) is \"%s\"", unknown ? unknown : "(null)");
    TEST_ASSERT(!strcmp(shmemx_strerror(n), unknown) && !strcmp(shmemx_strerror(1000), unknown),
                "codes past the last have a description");
    for (i = 0; i < n; i++) {
        const char *d = shmemx_strerror(codes[i]);
        TEST_ASSERT(codes[i] == i, "status codes are not 0 .. %d in order", n - 1);
        TEST_ASSERT(d && d[0] && strcmp(d, unknown), "code %d has no description", codes[i]);
        for (j = 0; j < i; j++)
            TEST_ASSERT(strcmp(d, shmemx_strerror(codes[j])), "codes %d and %d read the same",
                        codes[j], codes[i]);
    }
    TEST_ASSERT(shmemx_init_status() == SHMEMX_STATUS_NOT_INITIALIZED, "status before init");

    EXPECT(shmemx_init_attr(1u << 9, &attr), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_MPI_COMM | SHMEMX_INIT_WITH_UNIQUEID, &attr),
           SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, NULL), SHMEMX_ERROR_INVALID_VALUE);
    memset(&blank, 0, sizeof(blank));
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &blank), SHMEMX_ERROR_INVALID_VALUE);
    /* A valid attr whose id was never made (a malformed id). */
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_set_attr_uniqueid_args(2, 2, &uid, &attr), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_set_attr_uniqueid_args(0, 0, &uid, &attr), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_set_attr_uniqueid_args(0, 1, NULL, &attr), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_set_attr_uniqueid_args(0, 1, &uid, NULL), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_set_attr_mpi_comm_args(NULL, &attr), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_get_uniqueid(NULL), SHMEMX_ERROR_INVALID_VALUE);
#ifndef HAVE_MPI
    {
        int dummy = 0;
        EXPECT(shmemx_set_attr_mpi_comm_args(&dummy, &attr), SHMEMX_SUCCESS);
        EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_MPI_COMM, &attr), SHMEMX_ERROR_NOT_SUPPORTED);
    }
#endif
    EXPECT(shmem_init_thread(SHMEM_THREAD_MULTIPLE + 7, &provided), SHMEMX_ERROR_INVALID_VALUE);
    TEST_ASSERT(shmemx_init_status() == SHMEMX_STATUS_NOT_INITIALIZED,
                "a refused init changed the status");
}

/* An invalid environment value: init fails with INVALID_VALUE before it
 * boots, and the next init (with the caller's value back) works. */
static void init_with_bad_env(void)
{
    const char *old = getenv("SHMEM_SYMMETRIC_SIZE");
    char *keep = old ? strdup(old) : NULL;
    int provided = -1;

    setenv("SHMEM_SYMMETRIC_SIZE", "12Q", 1);
    EXPECT(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), SHMEMX_ERROR_INVALID_VALUE);
    TEST_ASSERT(shmemx_init_status() == SHMEMX_STATUS_NOT_INITIALIZED && provided == -1,
                "an init with SHMEM_SYMMETRIC_SIZE=12Q changed the status or *provided");
    if (keep) {
        setenv("SHMEM_SYMMETRIC_SIZE", keep, 1);
        free(keep);
    } else {
        unsetenv("SHMEM_SYMMETRIC_SIZE");
    }
    EXPECT(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), SHMEMX_SUCCESS);
    TEST_ASSERT(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
}

static void teams_and_contexts(long *sym)
{
    shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
    shmemx_uniqueid_t uid = SHMEMX_UNIQUEID_INITIALIZER;
    shmem_team_config_t conf;
    shmem_team_t t = SHMEM_TEAM_WORLD, x, y, teams[4096];
    shmem_ctx_t ctx;
    int nt = 0, ret = 0, i;
    long *src = sym, *dst = sym + 64;

    EXPECT(shmemx_set_attr_uniqueid_args(0, 1, &uid, &attr), SHMEMX_SUCCESS);
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr), SHMEMX_ERROR_INVALID_STATE);

    EXPECT(shmem_ctx_create(1L << 20, &ctx), SHMEMX_ERROR_INVALID_VALUE);
    TEST_ASSERT(ctx == SHMEM_CTX_INVALID, "a refused context is not SHMEM_CTX_INVALID");
    EXPECT(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 1L << 20, &ctx), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t), SHMEMX_ERROR_INVALID_VALUE);
    TEST_ASSERT(t == SHMEM_TEAM_INVALID, "shmem_ctx_get_team of an invalid context");
    EXPECT(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &conf),
           SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &x),
           SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, test_npes + 1, NULL, 0, &x),
           SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &x),
           SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y),
           SHMEMX_ERROR_INVALID_VALUE);
    TEST_ASSERT(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "refused 2-D split teams");

    EXPECT(shmem_team_sync(SHMEM_TEAM_INVALID), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_long_broadcast(SHMEM_TEAM_INVALID, dst, src, 1, 0), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_long_collect(SHMEM_TEAM_INVALID, dst, src, 1), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_long_fcollect(SHMEM_TEAM_INVALID, dst, src, 1), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_long_alltoall(SHMEM_TEAM_INVALID, dst, src, 1), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_long_alltoalls(SHMEM_TEAM_INVALID, dst, src, 1, 1, 1),
           SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_broadcastmem(SHMEM_TEAM_INVALID, dst, src, 8, 0), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_fcollectmem(SHMEM_TEAM_INVALID, dst, src, 8), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_alltoallmem(SHMEM_TEAM_INVALID, dst, src, 8), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_long_sum_reduce(SHMEM_TEAM_INVALID, dst, src, 1), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_long_max_reduce(SHMEM_TEAM_INVALID, dst, src, 1), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmem_long_sum_inscan(SHMEM_TEAM_INVALID, dst, src, 1), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_long_sum_reducescatter(SHMEM_TEAM_INVALID, dst, src, 1),
           SHMEMX_ERROR_INVALID_VALUE);

    /* Team slots run out: OUT_OF_MEMORY on every PE, the same number of
     * teams made on each, and those teams work. */
    for (nt = 0; nt < (int)(sizeof(teams) / sizeof(teams[0])); nt++) {
        ret = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, test_npes, NULL, 0, &teams[nt]);
        if (ret)
            break;
    }
    EXPECT(ret, SHMEMX_ERROR_OUT_OF_MEMORY);
    TEST_ASSERT(nt > 0 && teams[nt] == SHMEM_TEAM_INVALID, "%d teams before the slots ran out",
                nt);
    src[0] = test_me + 1;
    EXPECT(shmem_long_sum_reduce(teams[nt - 1], dst, src, 1), SHMEMX_SUCCESS);
    TEST_CHECK("sum over the last team made", 0, (long)test_npes * (test_npes + 1) / 2, dst[0]);
    dst[1] = nt;
    EXPECT(shmem_long_max_reduce(SHMEM_TEAM_WORLD, dst + 2, dst + 1, 1), SHMEMX_SUCCESS);
    TEST_CHECK("teams made before the slots ran out, the most on any PE", 0, nt, dst[2]);
    for (i = 0; i < nt; i++)
        shmem_team_destroy(teams[i]);
    EXPECT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, test_npes, NULL, 0, &x),
           SHMEMX_SUCCESS);
    shmem_team_destroy(x);
}

static void registration(void)
{
    size_t len = 4096;
    char *a = malloc(len), *b = malloc(len);
    int next = (test_me + 1) % test_npes, i;
    long *sym_a;

    TEST_ASSERT(a && b, "malloc failed");
    EXPECT(shmemx_buffer_register(NULL, 64), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_buffer_register(a, 0), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_buffer_register(a, SIZE_MAX), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_buffer_register(a, len), SHMEMX_SUCCESS);
    EXPECT(shmemx_buffer_register(a + 8, 8), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_buffer_unregister(a + 8), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_buffer_unregister(a), SHMEMX_SUCCESS);
    EXPECT(shmemx_buffer_unregister(a), SHMEMX_ERROR_INVALID_VALUE);

    /* Symmetric: an address nobody registered, on every PE. */
    EXPECT(shmemx_buffer_unregister_symmetric(a, len), SHMEMX_ERROR_INVALID_VALUE);
    sym_a = shmemx_buffer_register_symmetric(b, len, 0);
    TEST_ASSERT(sym_a == (long *)b, "shmemx_buffer_register_symmetric failed");
    /* PE 0 passes a wrong length: it is told INVALID_VALUE, the others
     * SYMMETRY, and the buffer stays registered on every PE. */
    EXPECT(shmemx_buffer_unregister_symmetric(b, test_me == 0 ? len / 2 : len),
           test_me == 0 ? SHMEMX_ERROR_INVALID_VALUE
                        : test_npes > 1 ? SHMEMX_ERROR_SYMMETRY : SHMEMX_SUCCESS);
    if (test_npes > 1) {
        for (i = 0; i < 8; i++)
            sym_a[i] = -1;
        shmem_barrier_all();
        for (i = 0; i < 8; i++)
            shmem_long_p(sym_a + i, test_val(test_me, (size_t)i, 3), next);
        shmem_barrier_all();
        for (i = 0; i < 8; i++)
            TEST_CHECK("put into a symmetric buffer kept after a refused unregister", i,
                       test_val((test_me + test_npes - 1) % test_npes, (size_t)i, 3), sym_a[i]);
        EXPECT(shmemx_buffer_unregister_symmetric(b, len), SHMEMX_SUCCESS);
    }
    free(a);
    free(b);
}

static void streams(long *sym)
{
    shmemx_stream_t s;
    int next = (test_me + 1) % test_npes;
    long v[2] = { 5, test_me + 100 };

    const char *offload = getenv("FABSHMEM_STREAM_OFFLOAD");
    int ret;

    EXPECT(shmemx_stream_create(NULL), SHMEMX_ERROR_INVALID_VALUE);
    ret = shmemx_stream_create(&s);
    if (ret && offload && !strcmp(offload, "1")) {
        /* Offload forced on a provider without triggered operations. */
        EXPECT(ret, SHMEMX_ERROR_NOT_SUPPORTED);
        TEST_ASSERT(s == NULL, "a refused stream is not NULL");
        test_note("FABSHMEM_STREAM_OFFLOAD=1 without triggered operations: NOT_SUPPORTED");
        return;
    }
    EXPECT(ret, SHMEMX_SUCCESS);
    sym[0] = 0;
    shmem_barrier_all();
    EXPECT(shmemx_launch_on_stream(s, NULL, NULL), SHMEMX_ERROR_INVALID_VALUE);
    shmemx_long_put_on_stream(sym, &v[0], 1, test_npes + 3, s);
    shmemx_long_put_on_stream(sym, &v[1], 1, next, s);
    EXPECT(shmemx_stream_sync(s), SHMEMX_ERROR_INVALID_VALUE);
    /* Reported once; the valid put ran. */
    EXPECT(shmemx_stream_sync(s), SHMEMX_SUCCESS);
    shmem_barrier_all();
    TEST_CHECK("the valid put beside refused work", 0,
               (test_me + test_npes - 1) % test_npes + 100, sym[0]);
    EXPECT(shmemx_stream_destroy(s), SHMEMX_SUCCESS);
}

int main(void)
{
    long *sym;

    test_name = "status";
    /* Few team slots, so that running out is quick (a caller's value
     * stands). */
    setenv("FABSHMEM_TEAMS_MAX", "80", 0);
    before_init();
    init_with_bad_env();
    test_me = shmem_my_pe();
    test_npes = shmem_n_pes();
    sym = shmem_calloc(256, sizeof(long));
    TEST_ASSERT(sym, "shmem_calloc failed");
    teams_and_contexts(sym);
    registration();
    streams(sym);
    shmem_free(sym);
    return test_finish();
}
