/*
 * status: the init status as it moves (shmemx_init_status, NVSHMEM's
 * states), the versioned structures of shmemx_init_attr, and the
 * SHMEMX_ERROR_* codes (shmemx_error.h) that routines return on bad input,
 * checked by exact value on every PE, and shmemx_strerror.
 *
 *  - Before init: shmemx_strerror names every code (distinct texts, an
 *    unknown code gets "unknown status code"); shmemx_init_attr with unknown
 *    or conflicting flags, an attr not filled in, an attr, uid_args or uid
 *    whose version word is 0, garbage, newer than the library or of the
 *    wrong size, or an unknown attr->thread_level, the shmemx_set_attr_*
 *    helpers and shmemx_get_uniqueid with bad arguments, and
 *    shmem_init_thread with an unknown thread level return
 *    SHMEMX_ERROR_INVALID_VALUE and leave NOT_INITIALIZED; the helpers keep
 *    a version-1 attr's version and stamp a zeroed one as version 1, and
 *    an attr of the version-1 layout is read no further than its end (it
 *    sits against a page that may not be read); without MPI support
 *    SHMEMX_INIT_WITH_MPI_COMM is NOT_SUPPORTED.
 *  - Before init in SHMEMX_ERRORS_RETURN mode: shmem_my_pe and shmem_n_pes
 *    return -1, shmem_malloc and shmem_ptr NULL, shmem_free and
 *    shmem_query_thread return, shmemx_buffer_register returns
 *    INVALID_STATE, each with INVALID_STATE and a message naming it ("...
 *    called before shmem_init"); shmem_init with a bad environment value
 *    returns (INVALID_VALUE).  After the last finalize shmem_my_pe says
 *    "after shmem_finalize".  (In the default mode each ends the job:
 *    tests/init/errors.sh.)
 *  - Failed inits: SHMEM_SYMMETRIC_SIZE=12Q, FABSHMEM_TEAMS_MAX=1,
 *    FABSHMEM_BOOTSTRAP=carrier-pigeon, FABSHMEM_PROXY=maybe,
 *    FABSHMEM_PROXY_SLOTS=3 (not a power of two) and an unknown collective algorithm
 *    (FABSHMEM_BARRIER_ALGO=foo, FABSHMEM_REDUCE_ALGO=rsag2) fail with
 *    INVALID_VALUE before the bootstrap (NOT_INITIALIZED, twice in a row);
 *    a symmetric heap that cannot be created (RLIMIT_FSIZE below its size)
 *    fails past the bootstrap with OUT_OF_MEMORY and leaves every PE
 *    IS_BOOTSTRAPPED, also when only PE 0 cannot create it; so does
 *    FABSHMEM_PROVIDER=nonsense (a provider that cannot be opened) with
 *    TRANSPORT, on every PE or PE 0 alone; each time the next init works.
 *    The states: NOT_INITIALIZED, IS_BOOTSTRAPPED after a
 *    failure past the bootstrap, IS_INITIALIZED, IS_BOOTSTRAPPED after
 *    finalize, IS_INITIALIZED again; INVALID in a child made by fork(),
 *    where init is INVALID_STATE and exit() leaves the parent's job alone.
 *  - Thread levels by attr: a version-1 attr gives SHMEM_THREAD_SINGLE,
 *    attr->thread_level = SHMEM_THREAD_MULTIPLE gives MULTIPLE.
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
 *    In SHMEMX_ERRORS_RETURN mode: the stream routines before init are
 *    INVALID_STATE; a handle that is not a stream is INVALID_VALUE at the
 *    call, naming the routine; refused work of every kind (PE, overflowing
 *    stride, sig_op, cmp, a non-symmetric ivar, a team, overlapping
 *    reduction buffers, a NULL kernel) leaves the caller's record clear
 *    and is returned and recorded by the next sync (the first, and the
 *    count of the rest), once, and by destroy.
 */
#include "common.h"
#include <shmemx.h>
#include "config.h"
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* The layout of shmemx_init_attr_t version 1 (before thread_level), as a
 * program built against that shmemx.h has it. */
typedef struct {
    int version;
    void *mpi_comm;
    shmemx_uniqueid_args_t uid_args;
} attr_v1_t;
#define ATTR_V1_VERSION SHMEMX_STRUCT_VERSION(1, attr_v1_t)

#define STATUS_IS(want, what)                                                        \
    TEST_ASSERT(shmemx_init_status() == (want), "status %s is %d, expected %s", what, \
                shmemx_init_status(), #want)

#define EXPECT(call, code)                                                           \
    do {                                                                             \
        int got_ = (call);                                                           \
        if (got_ != (code))                                                          \
            test_fail("%s returned %d (%s), expected %s", #call, got_,               \
                      shmemx_strerror(got_), #code);                                 \
    } while (0)

/* The calling thread's last error is want, with rtn and part in the
 * message. */
static void last_error_is(int want, const char *rtn, const char *part)
{
    char msg[1024];
    int got = shmemx_error_get(msg, sizeof(msg));

    TEST_ASSERT(got == want && strstr(msg, rtn) == msg && strstr(msg, part),
                "after %s: class %d (%s), message \"%s\"; expected %d and \"%s: ...%s...\"", rtn,
                got, shmemx_strerror(got), msg, want, rtn, part);
    shmemx_error_clear();
}

/* Before init, in SHMEMX_ERRORS_RETURN mode: every routine returns,
 * naming itself; the status stays NOT_INITIALIZED. */
static void before_init_returns(void)
{
    const char *early = "called before shmem_init", *ppn = getenv("FABSHMEM_PES_PER_NODE");
    char local[64], *keep = ppn ? strdup(ppn) : NULL;
    int level = -7;

    TEST_ASSERT(shmemx_set_error_mode(SHMEMX_ERRORS_RETURN) == SHMEMX_ERRORS_ABORT,
                "the error mode was not SHMEMX_ERRORS_ABORT");
    TEST_ASSERT(shmem_my_pe() == -1, "shmem_my_pe before init did not return -1");
    last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmem_my_pe", early);
    TEST_ASSERT(shmem_n_pes() == -1, "shmem_n_pes before init did not return -1");
    last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmem_n_pes", early);
    TEST_ASSERT(shmem_malloc(64) == NULL, "shmem_malloc before init did not return NULL");
    last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmem_malloc", early);
    shmem_free(local);
    last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmem_free", early);
    TEST_ASSERT(shmem_ptr(local, 0) == NULL, "shmem_ptr before init did not return NULL");
    last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmem_ptr", early);
    shmem_query_thread(&level);
    TEST_ASSERT(level == -7, "shmem_query_thread before init set the level");
    last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmem_query_thread", early);
    EXPECT(shmemx_buffer_register(local, sizeof(local)), SHMEMX_ERROR_INVALID_STATE);
    last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmemx_buffer_register", early);
    {
        shmemx_stream_t st = (shmemx_stream_t)local;
        EXPECT(shmemx_stream_create(&st), SHMEMX_ERROR_INVALID_STATE);
        last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmemx_stream_create", early);
        shmemx_putmem_on_stream(local, local, 8, 0, st);
        last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmemx_putmem_on_stream", early);
        EXPECT(shmemx_stream_sync(st), SHMEMX_ERROR_INVALID_STATE);
        last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmemx_stream_sync", early);
    }
    /* A bad environment value: shmem_init returns too. */
    setenv("FABSHMEM_PES_PER_NODE", "-3", 1);
    shmem_init();
    if (keep)
        setenv("FABSHMEM_PES_PER_NODE", keep, 1);
    else
        unsetenv("FABSHMEM_PES_PER_NODE");
    free(keep);
    last_error_is(SHMEMX_ERROR_INVALID_VALUE, "FABSHMEM_PES_PER_NODE", "invalid value -3");
    STATUS_IS(SHMEMX_STATUS_NOT_INITIALIZED, "after the refused calls before init");
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
}

/* Version words: refused when 0, garbage, newer or of the wrong size, in
 * attr, attr->uid_args and the id; the status stays NOT_INITIALIZED. */
static void versions(void)
{
    shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER, ok;
    shmemx_uniqueid_t uid = SHMEMX_UNIQUEID_INITIALIZER;
    const int bad[] = { 0, -5, 7, SHMEMX_STRUCT_VERSION(3, shmemx_init_attr_t),
                        SHMEMX_STRUCT_VERSION(2, shmemx_init_attr_t) - 8,
                        SHMEMX_STRUCT_VERSION(1, shmemx_init_attr_t) };
    const unsigned flags[] = { 0, SHMEMX_INIT_WITH_UNIQUEID, SHMEMX_INIT_WITH_MPI_COMM };
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *pages;
    attr_v1_t *v1;
    int i, j;

    TEST_ASSERT(attr.version == (2 << 16) + (int)sizeof(shmemx_init_attr_t) &&
                attr.uid_args.version == (1 << 16) + (int)sizeof(shmemx_uniqueid_args_t) &&
                attr.uid_args.uid.version == (1 << 16) + (int)sizeof(shmemx_uniqueid_t) &&
                attr.thread_level == SHMEM_THREAD_SINGLE,
                "SHMEMX_INIT_ATTR_INITIALIZER: versions 0x%x 0x%x 0x%x, thread level %d",
                attr.version, attr.uid_args.version, attr.uid_args.uid.version,
                attr.thread_level);
    EXPECT(shmemx_set_attr_uniqueid_args(0, 1, &uid, &attr), SHMEMX_SUCCESS);
    ok = attr;
    /* attr->version: with any flags (attr is read whenever it is given). */
    for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
        for (j = 0; j < 3; j++) {
            attr = ok;
            attr.version = bad[i];
            EXPECT(shmemx_init_attr(flags[j], &attr), SHMEMX_ERROR_INVALID_VALUE);
        }
        /* The helpers refuse what they cannot place, except a zeroed attr. */
        attr = ok;
        attr.version = bad[i];
        if (bad[i] != 0)
            EXPECT(shmemx_set_attr_uniqueid_args(0, 1, &uid, &attr), SHMEMX_ERROR_INVALID_VALUE);
    }
    /* attr->uid_args.version and attr->uid_args.uid.version. */
    attr = ok;
    attr.uid_args.version = 0;
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr), SHMEMX_ERROR_INVALID_VALUE);
    attr.uid_args.version = SHMEMX_STRUCT_VERSION(2, shmemx_uniqueid_args_t);
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr), SHMEMX_ERROR_INVALID_VALUE);
    attr.uid_args.version = SHMEMX_UNIQUEID_ARGS_VERSION + 4;
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr), SHMEMX_ERROR_INVALID_VALUE);
    attr = ok;
    attr.uid_args.uid.version = SHMEMX_STRUCT_VERSION(2, shmemx_uniqueid_t);
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr), SHMEMX_ERROR_INVALID_VALUE);
    uid.version = 0;
    EXPECT(shmemx_set_attr_uniqueid_args(0, 1, &uid, &attr), SHMEMX_ERROR_INVALID_VALUE);
    uid.version = SHMEMX_UNIQUEID_VERSION;
    /* attr->thread_level. */
    attr = ok;
    attr.thread_level = SHMEM_THREAD_MULTIPLE + 1;
    EXPECT(shmemx_init_attr(0, &attr), SHMEMX_ERROR_INVALID_VALUE);
    attr.thread_level = -1;
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr), SHMEMX_ERROR_INVALID_VALUE);
    /* A zeroed attr becomes version 1 in the helpers. */
    memset(&attr, 0, sizeof(attr));
    EXPECT(shmemx_set_attr_uniqueid_args(0, 1, &uid, &attr), SHMEMX_SUCCESS);
    TEST_ASSERT(attr.version == ATTR_V1_VERSION, "a zeroed attr stamped 0x%x, expected 0x%x",
                attr.version, ATTR_V1_VERSION);
    /* A version-1 attr against a page that may not be read: the helpers
     * and init read and write nothing past it (a fault would end the
     * test); its id (never made) is refused, so init fails. */
    pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    TEST_ASSERT(pages != MAP_FAILED && mprotect(pages + page, page, PROT_NONE) == 0,
                "mmap/mprotect of a guard page failed");
    v1 = (attr_v1_t *)(void *)(pages + page - sizeof(attr_v1_t));
    memset(v1, 0, sizeof(*v1));
    v1->version = ATTR_V1_VERSION;
    EXPECT(shmemx_set_attr_uniqueid_args(0, 1, &uid, (shmemx_init_attr_t *)v1), SHMEMX_SUCCESS);
    TEST_ASSERT(v1->version == ATTR_V1_VERSION && v1->uid_args.nranks == 1,
                "the helper changed a version-1 attr's version (0x%x) or missed its fields",
                v1->version);
    EXPECT(shmemx_set_attr_mpi_comm_args(&uid, (shmemx_init_attr_t *)v1), SHMEMX_SUCCESS);
    v1->mpi_comm = NULL;
    EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, (shmemx_init_attr_t *)v1),
           SHMEMX_ERROR_INVALID_VALUE);
    munmap(pages, 2 * page);
    STATUS_IS(SHMEMX_STATUS_NOT_INITIALIZED, "after refused versions");
}

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
    versions();
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
    before_init_returns();
}

/* Sets variable to value (NULL: unsets it); returns the old value (to
 * free). */
static char *env_swap(const char *variable, const char *value)
{
    const char *old = getenv(variable);
    char *keep = old ? strdup(old) : NULL;

    if (value)
        setenv(variable, value, 1);
    else
        unsetenv(variable);
    return keep;
}

/* Invalid environment values: init fails with INVALID_VALUE before it
 * boots, again when tried again, and changes nothing. */
static void init_with_bad_env(void)
{
    static const char *const cases[][2] = { { "SHMEM_SYMMETRIC_SIZE", "12Q" },
                                            { "FABSHMEM_TEAMS_MAX", "1" },
                                            { "FABSHMEM_BOOTSTRAP", "carrier-pigeon" },
                                            { "FABSHMEM_BARRIER_ALGO", "foo" },
                                            { "FABSHMEM_REDUCE_ALGO", "rsag2" },
                                            { "FABSHMEM_PROXY", "maybe" },
                                            { "FABSHMEM_PROXY_SLOTS", "3" } };
    int provided = -1, i, k;

    for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
        char *keep = env_swap(cases[i][0], cases[i][1]);

        for (k = 0; k < 2; k++) {
            EXPECT(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided),
                   SHMEMX_ERROR_INVALID_VALUE);
            TEST_ASSERT(shmemx_init_status() == SHMEMX_STATUS_NOT_INITIALIZED && provided == -1,
                        "an init with %s=%s (try %d) changed the status (%d) or *provided",
                        cases[i][0], cases[i][1], k + 1, shmemx_init_status());
        }
        free(env_swap(cases[i][0], keep));
        free(keep);
    }
}

/* Keeps this process from making files larger than 1 MiB (on) or gives
 * the limit back (off): its symmetric heap cannot be created then. */
static void heap_limit(int on)
{
    static struct rlimit saved;
    struct rlimit r;

    if (on) {
        TEST_ASSERT(getrlimit(RLIMIT_FSIZE, &saved) == 0, "getrlimit");
        signal(SIGXFSZ, SIG_IGN);
        r = saved;
        r.rlim_cur = 1 << 20;
        TEST_ASSERT(setrlimit(RLIMIT_FSIZE, &r) == 0, "setrlimit");
    } else {
        TEST_ASSERT(setrlimit(RLIMIT_FSIZE, &saved) == 0, "setrlimit back");
        signal(SIGXFSZ, SIG_DFL);
    }
}

/* Inits that fail past the bootstrap are undone on every PE, which stays
 * bootstrapped and can init again; the states between. */
static void failed_inits(void)
{
    shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
    attr_v1_t v1 = { ATTR_V1_VERSION, NULL, SHMEMX_UNIQUEID_ARGS_INITIALIZER };
    int provided = -1, level = -1, init = -1, me, npes, k;

    /* Every PE fails to create its heap. */
    heap_limit(1);
    EXPECT(shmem_init_thread(SHMEM_THREAD_SERIALIZED, &provided), SHMEMX_ERROR_OUT_OF_MEMORY);
    heap_limit(0);
    STATUS_IS(SHMEMX_STATUS_IS_BOOTSTRAPPED, "after an init that failed past the bootstrap");
    shmem_query_initialized(&init);
    TEST_ASSERT(init == 0 && provided == -1, "after a failed init: initialized %d, provided %d",
                init, provided);

    /* Then it works, here by an attr of the version-1 layout (no
     * thread_level: SHMEM_THREAD_SINGLE). */
    EXPECT(shmemx_init_attr(0, (shmemx_init_attr_t *)&v1), SHMEMX_SUCCESS);
    STATUS_IS(SHMEMX_STATUS_IS_INITIALIZED, "after init");
    shmem_query_thread(&level);
    TEST_ASSERT(level == SHMEM_THREAD_SINGLE, "a version-1 attr gave thread level %d", level);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_finalize();
    STATUS_IS(SHMEMX_STATUS_IS_BOOTSTRAPPED, "after finalize");
    shmem_query_initialized(&init);
    TEST_ASSERT(init == 0, "initialized after finalize");

    /* Only PE 0 fails to create its heap: every PE is told, the same way. */
    if (me == 0)
        heap_limit(1);
    EXPECT(shmem_init_thread(SHMEM_THREAD_SINGLE, &provided), SHMEMX_ERROR_OUT_OF_MEMORY);
    if (me == 0)
        heap_limit(0);
    STATUS_IS(SHMEMX_STATUS_IS_BOOTSTRAPPED, "after PE 0 alone failed to create its heap");

    /* A provider that no PE can open fails on every PE alike, past the
     * bootstrap, with TRANSPORT (not the end of the job); also when only
     * PE 0 asks for it (the others learn it in the key exchange).  Only
     * where there is a transport: 2 PEs or more. */
    for (k = 0; npes > 1 && k < 2; k++) {
        char *keep = NULL;

        if (k == 0 || me == 0)
            keep = env_swap("FABSHMEM_PROVIDER", "nonsense");
        EXPECT(shmem_init_thread(SHMEM_THREAD_SINGLE, &provided), SHMEMX_ERROR_TRANSPORT);
        if (k == 0 || me == 0)
            free(env_swap("FABSHMEM_PROVIDER", keep));
        free(keep);
        STATUS_IS(SHMEMX_STATUS_IS_BOOTSTRAPPED, k ? "after PE 0 alone asked for no provider"
                                                   : "after every PE asked for no provider");
    }

    /* And init again, at the thread level attr asks for. */
    attr.thread_level = SHMEM_THREAD_MULTIPLE;
    EXPECT(shmemx_init_attr(0, &attr), SHMEMX_SUCCESS);
    STATUS_IS(SHMEMX_STATUS_IS_INITIALIZED, "after init again");
    shmem_query_thread(&level);
    TEST_ASSERT(level == SHMEM_THREAD_MULTIPLE, "attr->thread_level MULTIPLE gave %d", level);
    TEST_ASSERT(shmem_my_pe() == me, "PE %d became PE %d", me, shmem_my_pe());
}

/* A child made by fork(): INVALID, init refused, and its exit() must not
 * end the parent's job (which then still works). */
static void forked_child(long *sym)
{
    int next = (test_me + 1) % test_npes, st = -1;
    pid_t pid;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    TEST_ASSERT(pid >= 0, "fork failed");
    if (pid == 0) {
        int code = 0;
        if (shmemx_init_status() != SHMEMX_STATUS_INVALID)
            code = 10;
        else if (shmem_init_thread(SHMEM_THREAD_SINGLE, NULL) != SHMEMX_ERROR_INVALID_STATE)
            code = 11;
        else if (shmemx_init_attr(0, NULL) != SHMEMX_ERROR_INVALID_STATE)
            code = 12;
        exit(code);
    }
    TEST_ASSERT(waitpid(pid, &st, 0) == pid, "waitpid");
    TEST_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                "the forked child: status %d (10: not INVALID, 11/12: init not INVALID_STATE)",
                WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    STATUS_IS(SHMEMX_STATUS_IS_INITIALIZED, "in the parent of a fork");
    sym[0] = -1;
    shmem_barrier_all();
    shmem_long_p(sym, test_me + 7, next);
    shmem_barrier_all();
    TEST_CHECK("put after a child exited", 0, (test_me + test_npes - 1) % test_npes + 7, sym[0]);
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

/* Bad stream input in SHMEMX_ERRORS_RETURN mode: a handle that is not a
 * stream fails at the call, with the record naming the routine (in the
 * default mode it ends the job: tests/init/errors.sh); work a stream
 * refuses leaves the caller's record clear (the routines with a team
 * return the class) and is what the next sync returns and records, once,
 * printing nothing; the stream then goes on. */
static void streams_return_mode(long *sym)
{
    shmemx_stream_t s, bad = (shmemx_stream_t)sym;
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    uint64_t *sig = (uint64_t *)(sym + 8);
    long v = test_me + 200, loc[2] = { 0, 0 };
    char msg[1024];

    TEST_ASSERT(shmemx_set_error_mode(SHMEMX_ERRORS_RETURN) == SHMEMX_ERRORS_ABORT,
                "the error mode was not SHMEMX_ERRORS_ABORT");
    EXPECT(shmemx_stream_create(NULL), SHMEMX_ERROR_INVALID_VALUE);
    last_error_is(SHMEMX_ERROR_INVALID_VALUE, "shmemx_stream_create", "stream is NULL");
    if (shmemx_stream_create(&s) != SHMEMX_SUCCESS) {
        shmemx_error_clear();
        shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
        test_note("no stream (FABSHMEM_STREAM_OFFLOAD=1 without triggered operations)");
        return;
    }
    /* Not a stream. */
    shmemx_long_put_on_stream(sym, &v, 1, next, bad);
    last_error_is(SHMEMX_ERROR_INVALID_VALUE, "shmemx_long_put_on_stream", "is not a stream");
    EXPECT(shmemx_barrier_on_stream(SHMEM_TEAM_WORLD, bad), SHMEMX_ERROR_INVALID_VALUE);
    last_error_is(SHMEMX_ERROR_INVALID_VALUE, "shmemx_barrier_on_stream", "is not a stream");
    EXPECT(shmemx_stream_sync(bad), SHMEMX_ERROR_INVALID_VALUE);
    last_error_is(SHMEMX_ERROR_INVALID_VALUE, "shmemx_stream_sync", "is not a stream");
    EXPECT(shmemx_stream_destroy(bad), SHMEMX_ERROR_INVALID_VALUE);
    last_error_is(SHMEMX_ERROR_INVALID_VALUE, "shmemx_stream_destroy", "is not a stream");
    TEST_ASSERT(shmemx_stream_query(bad) == -1, "query of a bad handle did not return -1");
    /* Refused work: the caller's record stays clear; sync reports the
     * first, with the count of the others, once. */
    sym[0] = 0;
    shmem_barrier_all();
    shmemx_long_put_on_stream(sym, &v, 1, test_npes + 2, s);
    EXPECT(shmemx_error_get(NULL, 0), SHMEMX_SUCCESS);
    shmemx_long_get_on_stream(loc, loc + 1, 1, next, s);
    shmemx_putmem_signal_on_stream(sym, &v, 8, sig, 1, 9, next, s);
    shmemx_long_iput_on_stream(sym, &v, PTRDIFF_MAX / 2, 1, 3, next, s);
    shmemx_signal_wait_until_on_stream(sig, 77, 0, s);
    shmemx_long_wait_until_on_stream(loc, SHMEM_CMP_EQ, 0, s);
    EXPECT(shmemx_error_get(NULL, 0), SHMEMX_SUCCESS);
    EXPECT(shmemx_long_broadcast_on_stream(SHMEM_TEAM_INVALID, sym, sym, 1, 0, s),
           SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_long_sum_reduce_on_stream(SHMEM_TEAM_WORLD, sym + 1, sym, 2, s),
           SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_launch_on_stream(s, NULL, NULL), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_error_get(NULL, 0), SHMEMX_SUCCESS);
    shmemx_long_put_on_stream(sym, &v, 1, next, s);
    EXPECT(shmemx_stream_sync(s), SHMEMX_ERROR_INVALID_VALUE);
    EXPECT(shmemx_error_get(msg, sizeof(msg)), SHMEMX_ERROR_INVALID_VALUE);
    TEST_ASSERT(strstr(msg, "shmemx_stream_sync: the stream's first error since the last sync: "
                       "shmemx_long_put_on_stream: pe ") == msg &&
                strstr(msg, "(and 8 more after it)"),
                "the record of sync is \"%s\"", msg);
    shmemx_error_clear();
    EXPECT(shmemx_stream_sync(s), SHMEMX_SUCCESS);
    EXPECT(shmemx_error_get(NULL, 0), SHMEMX_SUCCESS);
    shmem_barrier_all();
    TEST_CHECK("the valid put after refused work (return mode)", 0, prev + 200L, sym[0]);
    /* Refused work is reported by destroy too. */
    shmemx_long_get_on_stream(loc, loc, 1, -1, s);
    EXPECT(shmemx_stream_destroy(s), SHMEMX_ERROR_INVALID_VALUE);
    last_error_is(SHMEMX_ERROR_INVALID_VALUE, "shmemx_stream_sync", "pe -1");
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    shmem_barrier_all();
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
    failed_inits();
    test_me = shmem_my_pe();
    test_npes = shmem_n_pes();
    sym = shmem_calloc(256, sizeof(long));
    TEST_ASSERT(sym, "shmem_calloc failed");
    teams_and_contexts(sym);
    registration();
    streams(sym);
    streams_return_mode(sym);
    forked_child(sym);
    shmem_free(sym);
    test_finish();
    STATUS_IS(SHMEMX_STATUS_IS_BOOTSTRAPPED, "after the last finalize");
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    TEST_ASSERT(shmem_my_pe() == -1, "shmem_my_pe after finalize did not return -1");
    last_error_is(SHMEMX_ERROR_INVALID_STATE, "shmem_my_pe", "after shmem_finalize");
    return 0;
}
