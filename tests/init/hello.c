/*
 * hello: initialization, the PE queries, the version and name queries,
 * barrier_all and finalize; under FABSHMEM_TESTS_16 also query_initialized
 * and a second init/finalize pair (OpenSHMEM 1.6 allows it).
 */
#include "common.h"

static int counter_sym;

/* One init..finalize round; round counts from 0. */
static void hello_round(int round)
{
    int major = -1, minor = -1, me, npes, i;
    char name[SHMEM_MAX_NAME_LEN + 1];

#ifdef FABSHMEM_TESTS_16
    int initialized = -1;

    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "FAIL hello: round %d: shmem_query_initialized before shmem_init: expected 0, got %d\n",
                round, initialized);
        exit(1);
    }
#endif
    test_init("hello");
    me = test_me;
    npes = test_npes;
    TEST_ASSERT(npes >= 1, "round %d: shmem_n_pes: expected >= 1, got %d", round, npes);
    TEST_ASSERT(me >= 0 && me < npes, "round %d: shmem_my_pe: expected 0..%d, got %d",
                round, npes - 1, me);
#ifdef FABSHMEM_TESTS_16
    shmem_query_initialized(&initialized);
    TEST_ASSERT(initialized == 1, "round %d: shmem_query_initialized after shmem_init: expected 1, got %d",
                round, initialized);
#endif

    shmem_info_get_version(&major, &minor);
    TEST_ASSERT(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
                "shmem_info_get_version: expected %d.%d, got %d.%d",
                SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, major, minor);
#ifdef FABSHMEM_TESTS_16
    TEST_ASSERT(major == 1 && minor >= 6, "shmem_info_get_version: expected >= 1.6, got %d.%d",
                major, minor);
#endif
    memset(name, 'x', sizeof(name));
    shmem_info_get_name(name);
    TEST_ASSERT(memchr(name, '\0', SHMEM_MAX_NAME_LEN) != NULL,
                "shmem_info_get_name: name not NUL-terminated within SHMEM_MAX_NAME_LEN");
    TEST_ASSERT(strlen(name) > 0, "shmem_info_get_name: empty name");
#ifdef FABSHMEM_TESTS_16
    TEST_ASSERT(strcmp(name, SHMEM_VENDOR_STRING) == 0,
                "shmem_info_get_name: expected \"%s\", got \"%s\"", SHMEM_VENDOR_STRING, name);
#endif

    /* Every PE adds its rank into PE 0's counter one after the other. */
    counter_sym = 0;
    shmem_barrier_all();
    for (i = 0; i < npes; i++) {
        if (i == me) {
            int v = shmem_int_g(&counter_sym, 0);
            shmem_int_p(&counter_sym, v + me + 1, 0);
            shmem_quiet();
        }
        shmem_barrier_all();
    }
    shmem_sync_all();
    if (me == 0)
        TEST_CHECK("counter on PE 0 after ordered increments", 0,
                   (long long)npes * (npes + 1) / 2, counter_sym);
    test_note("round %d: %d PEs, OpenSHMEM %d.%d, \"%s\"", round, npes, major, minor, name);
    shmem_barrier_all();
    shmem_finalize();
#ifdef FABSHMEM_TESTS_16
    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "FAIL hello: PE %d: round %d: shmem_query_initialized after shmem_finalize: expected 0, got %d\n",
                me, round, initialized);
        exit(1);
    }
#endif
}

int main(void)
{
    hello_round(0);
#ifdef FABSHMEM_TESTS_16
    hello_round(1);
#endif
    if (test_me == 0)
        printf("hello: PASS\n");
    return 0;
}
