/*
 * A walk through fabshmem's model, each step printed and checked:
 *   init and query (version, my_pe, n_pes, init status);
 *   team splits: strided (even PEs), 2-D (rows and columns), arbitrary
 *     (any set of PEs, from a unique id);
 *   symmetric allocation;
 *   a ring of puts on a stream, then a barrier on the stream;
 *   a sum reduction on a stream;
 *   a put with signal on one PE and a signal wait on another;
 *   a host kernel on a stream that stores into the right-hand neighbour
 *     through shmem_ptr, followed by a barrier on SHMEMX_TEAM_NODE;
 *   registering external buffers: a malloc'd array made symmetric, and a
 *     local source buffer;
 *   free and finalize.
 *
 * Three ways to start it, one per bootstrap (any PE count works):
 *   oshrun -n 4 examples/walkthrough
 *       a PMIx launcher (prterun, mpirun, srun --mpi=pmix); alone, one PE;
 *   examples/walkthrough --uid RANK NRANKS IDFILE   (NRANKS times)
 *       no launcher: rank 0 makes a unique id and hands it over in IDFILE,
 *       every process joins with it (tests/examples.sh starts them from a
 *       plain shell loop);
 *   mpirun -n 4 examples/walkthrough_mpi
 *       the same source built with MPI (configure found it): the PEs are
 *       the ranks of MPI_COMM_WORLD.
 * Exit status: 0 when every check passed, 1 when one failed, 77 (the
 * "skipped" of test harnesses) when streams are not available in this
 * configuration (FABSHMEM_STREAM_OFFLOAD=1 on a provider without triggered
 * operations) and the other steps passed.
 */
#ifdef WALKTHROUGH_MPI
#include <mpi.h>
#endif
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me, npes, failures;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("PE %d: WRONG: ", me);                                 \
            printf(__VA_ARGS__);                                          \
            printf("\n");                                                 \
            failures++;                                                   \
        }                                                                 \
    } while (0)

#define SAY(...)                                                          \
    do {                                                                  \
        if (me == 0) {                                                    \
            printf(__VA_ARGS__);                                          \
            printf("\n");                                                 \
            fflush(stdout);                                               \
        }                                                                 \
    } while (0)

struct kernel_arg { long *slot; long value; int right; };

/* A host kernel: stores into the right-hand neighbour's slot when it is
 * mapped (node peers), else puts. */
static void store_right(void *p)
{
    struct kernel_arg *a = p;
    long *remote = shmem_ptr(a->slot, a->right);

    if (remote)
        *remote = a->value;
    else
        shmem_long_p(a->slot, a->value, a->right);
}

/* Rank 0 of a --uid start: makes the id and writes it to path (through a
 * rename, so that a reader never sees half of it). */
static int uid_publish(const char *path, shmemx_uniqueid_t *uid)
{
    char tmp[4096];
    FILE *f;

    if (shmemx_get_uniqueid(uid))
        return -1;
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "wb");
    if (!f || fwrite(uid, sizeof(*uid), 1, f) != 1) {
        if (f)
            fclose(f);
        return -1;
    }
    return fclose(f) || rename(tmp, path) ? -1 : 0;
}

/* The other ranks: wait for the file (up to 60 s) and read the id. */
static int uid_fetch(const char *path, shmemx_uniqueid_t *uid)
{
    FILE *f;
    size_t got;

    for (int tries = 0; !(f = fopen(path, "rb")); tries++) {
        if (tries == 6000)
            return -1;
        usleep(10000);
    }
    got = fread(uid, sizeof(*uid), 1, f);
    fclose(f);
    return got == 1 ? 0 : -1;
}

/* Step 1: boots by the method the command line names; returns its name. */
static const char *init_by(int argc, char **argv)
{
    int status = shmemx_init_status(), provided, rc = 0;

    if (status != SHMEMX_STATUS_NOT_INITIALIZED) {
        fprintf(stderr, "walkthrough: status before init is %d, not NOT_INITIALIZED\n", status);
        exit(1);
    }
#ifdef WALKTHROUGH_MPI
    shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
    MPI_Comm comm = MPI_COMM_WORLD;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    attr.thread_level = SHMEM_THREAD_MULTIPLE;
    if ((rc = shmemx_set_attr_mpi_comm_args(&comm, &attr)) ||
        (rc = shmemx_init_attr(SHMEMX_INIT_WITH_MPI_COMM, &attr))) {
        fprintf(stderr, "walkthrough: shmemx_init_attr over MPI_COMM_WORLD failed: %s\n",
                shmemx_strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return "an MPI communicator (MPI_COMM_WORLD)";
#else
    if (argc == 5 && !strcmp(argv[1], "--uid")) {
        shmemx_uniqueid_t uid = SHMEMX_UNIQUEID_INITIALIZER;
        shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
        int rank = atoi(argv[2]), nranks = atoi(argv[3]);

        attr.thread_level = SHMEM_THREAD_MULTIPLE; /* as shmem_init_thread below */
        if ((rank == 0 ? uid_publish(argv[4], &uid) : uid_fetch(argv[4], &uid)) ||
            (rc = shmemx_set_attr_uniqueid_args(rank, nranks, &uid, &attr)) ||
            (rc = shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr))) {
            fprintf(stderr, "walkthrough: rank %d of %d: joining with the unique id of %s "
                    "failed: %s\n", rank, nranks, argv[4],
                    rc ? shmemx_strerror(rc) : "the id file could not be written or read");
            exit(1);
        }
        return "a unique id handed over in a file";
    }
    if (argc != 1) {
        fprintf(stderr, "usage: %s                            (under a PMIx launcher, or alone)\n"
                "       %s --uid RANK NRANKS IDFILE   (each of NRANKS processes)\n",
                argv[0], argv[0]);
        exit(2);
    }
    rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    if (rc) {
        fprintf(stderr, "walkthrough: shmem_init_thread failed: %s\n", shmemx_strerror(rc));
        exit(1);
    }
    return "PMIx (or alone)";
#endif
}

int main(int argc, char **argv)
{
    int major, minor, vmaj, vmin, vpatch;
    char name[SHMEM_MAX_NAME_LEN];
    const char *method = init_by(argc, argv);

    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    shmemx_vendor_get_version_info(&vmaj, &vmin, &vpatch);
    SAY("1. init by %s: %s, OpenSHMEM %d.%d, fabshmem %d.%d.%d, %d PEs, status %s", method, name,
        major, minor, vmaj, vmin, vpatch, npes,
        shmemx_init_status() == SHMEMX_STATUS_IS_INITIALIZED ? "initialized" : "WRONG");
    CHECK(shmemx_init_status() == SHMEMX_STATUS_IS_INITIALIZED, "init status");
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
          "shmem_info_get_version gave %d.%d, shmem.h says %d.%d", major, minor,
          SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    {
        char v[48];

        /* The vendor version is the one the library names itself by. */
        snprintf(v, sizeof(v), " %d.%d.%d", vmaj, vmin, vpatch);
        CHECK(strstr(name, v) != NULL, "vendor version%s is not in the name \"%s\"", v, name);
    }
    {
        int level = -1;

        /* Every way of booting asked for SHMEM_THREAD_MULTIPLE. */
        shmem_query_thread(&level);
        CHECK(level == SHMEM_THREAD_MULTIPLE, "thread level");
    }
#ifdef WALKTHROUGH_MPI
    {
        int rank, size;

        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        CHECK(me == rank && npes == size, "PE %d of %d is MPI rank %d of %d", me, npes, rank,
              size);
    }
#else
    if (argc == 5)
        CHECK(me == atoi(argv[2]) && npes == atoi(argv[3]), "PE %d of %d joined as rank %s of %s",
              me, npes, argv[2], argv[3]);
#endif

    /* 2. Teams. */
    shmem_team_t even, rows, cols, odd_uid = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    CHECK((me % 2 == 0) == (even != SHMEM_TEAM_INVALID), "even team membership");
    if (even != SHMEM_TEAM_INVALID)
        CHECK(shmem_team_my_pe(even) == me / 2, "even team index");
    shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &rows, NULL, 0, &cols);
    CHECK(shmem_team_my_pe(rows) == me % 2 && shmem_team_my_pe(cols) == me / 2, "2-D indices");
    shmemx_team_uniqueid_t *uid = shmem_malloc(sizeof(*uid));
    if (me == 0)
        shmemx_team_get_uniqueid(uid);
    shmem_barrier_all();
    if (me != 0)
        shmem_getmem(uid, uid, sizeof(*uid), 0);
    shmem_barrier_all();
    if (me % 2 == 1) {
        int n_odd = npes / 2, idx = n_odd - 1 - me / 2; /* odd PEs, in reverse order */
        shmemx_team_init(&odd_uid, NULL, 0, n_odd, idx, uid);
        CHECK(shmem_team_my_pe(odd_uid) == idx, "arbitrary team index");
    }
    SAY("2. teams: even PEs (strided), %d x %d grid (2-D), odd PEs in reverse order (unique id)",
        2, (npes + 1) / 2);

    /* 3. Symmetric memory. */
    long *ring = shmem_calloc(4, sizeof(long));
    long *src = shmem_malloc(1024 * sizeof(long)), *sum = shmem_malloc(1024 * sizeof(long));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    long *slot = shmem_calloc(1, sizeof(long));
    CHECK(ring && src && sum && sig && slot, "symmetric allocation failed");
    SAY("3. symmetric allocation: %zu bytes on every PE", 4 * sizeof(long) + 2048 * sizeof(long) +
        sizeof(uint64_t) + sizeof(long));

    /* 4. A ring of puts on a stream.  Without streams (the configuration
     * asks for what the provider lacks, FABSHMEM_STREAM_OFFLOAD=1 without
     * triggered operations: SHMEMX_ERROR_NOT_SUPPORTED) the steps on
     * streams are skipped and the walkthrough ends with 77, "skipped",
     * not 0; any other failure to make one is wrong. */
    shmemx_stream_t s = NULL;
    int rc = shmemx_stream_create(&s), streams = rc == SHMEMX_SUCCESS, skipped = 0;
    if (!streams) {
        SAY("4., 5., 7. streams are not available here (%s): skipping the steps on streams",
            shmemx_strerror(rc));
        CHECK(rc == SHMEMX_ERROR_NOT_SUPPORTED, "shmemx_stream_create failed: %s",
              shmemx_strerror(rc));
        skipped = 1;
    }
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    if (streams) {
        long mine[4] = { me, 10L * me, 100L * me, -me };
        shmemx_long_put_on_stream(ring, mine, 4, right, s);
        shmemx_barrier_all_on_stream(s);
        rc = shmemx_stream_sync(s);
        CHECK(rc == SHMEMX_SUCCESS, "stream_sync after the ring: %s", shmemx_strerror(rc));
        CHECK(ring[0] == left && ring[1] == 10L * left && ring[2] == 100L * left &&
              ring[3] == -left, "ring on a stream");
        SAY("4. ring of puts on a stream (%s): PE 0 got {%ld, %ld, %ld, %ld} from PE %d",
            shmemx_stream_offloaded(s) ? "triggered operations" : "worker thread", ring[0],
            ring[1], ring[2], ring[3], left);
        {
            const char *off = getenv("FABSHMEM_STREAM_OFFLOAD");

            /* Offload forced and the stream made: it is triggered work. */
            CHECK(!off || strcmp(off, "1") || shmemx_stream_offloaded(s),
                  "FABSHMEM_STREAM_OFFLOAD=1 but the stream runs on a worker");
        }

        /* 5. A sum reduction on a stream. */
        for (int i = 0; i < 1024; i++)
            src[i] = i + me;
        shmemx_long_sum_reduce_on_stream(SHMEM_TEAM_WORLD, sum, src, 1024, s);
        rc = shmemx_stream_sync(s);
        CHECK(rc == SHMEMX_SUCCESS, "stream_sync after the reduction: %s", shmemx_strerror(rc));
        for (int i = 0; i < 1024; i++)
            CHECK(sum[i] == (long)i * npes + (long)npes * (npes - 1) / 2, "sum[%d] = %ld", i,
                  sum[i]);
        SAY("5. sum reduction on a stream: sum[1] = %ld", sum[1]);
    }

    /* 6. put_signal on one PE, signal_wait on another. */
    long word = 4242 + me;
    shmem_long_put_signal(&ring[2], &word, 1, sig, 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
    CHECK(ring[2] == 4242 + left, "data with the signal");
    SAY("6. put_signal: PE 0 saw the signal and the data %ld from PE %d", ring[2], left);

    /* 7. A host kernel storing into the neighbour, then a barrier on the node team. */
    shmem_barrier_all();
    if (streams) {
        int nn = shmem_team_n_pes(SHMEMX_TEAM_NODE), nme = shmem_team_my_pe(SHMEMX_TEAM_NODE);
        struct kernel_arg ka = { slot, 7000 + me,
                                 shmem_team_translate_pe(SHMEMX_TEAM_NODE, (nme + 1) % nn,
                                                         SHMEM_TEAM_WORLD) };
        rc = shmemx_launch_on_stream(s, store_right, &ka);
        CHECK(rc == SHMEMX_SUCCESS, "launch_on_stream: %s", shmemx_strerror(rc));
        shmemx_barrier_on_stream(SHMEMX_TEAM_NODE, s);
        rc = shmemx_stream_sync(s);
        CHECK(rc == SHMEMX_SUCCESS, "stream_sync after the kernel: %s", shmemx_strerror(rc));
        CHECK(*slot == 7000 + shmem_team_translate_pe(SHMEMX_TEAM_NODE, (nme - 1 + nn) % nn,
                                                      SHMEM_TEAM_WORLD),
              "kernel store from the node neighbour");
        SAY("7. host kernel + barrier on TEAM_NODE: PE 0 holds %ld", *slot);
    }

    /* 8. External buffers: an array this program allocated becomes
     * symmetric; a local buffer is registered as a zero-copy source. */
    long *ext = calloc(64, sizeof(long)), *out = malloc(64 * sizeof(long));
    CHECK(ext && out && shmemx_buffer_register_symmetric(ext, 64 * sizeof(long), 0) == ext,
          "register_symmetric");
    CHECK(shmemx_buffer_register(out, 64 * sizeof(long)) == 0, "buffer_register");
    for (int i = 0; i < 64; i++)
        out[i] = 100L * me + i;
    shmem_long_put(ext, out, 64, right);
    shmem_barrier_all();
    for (int i = 0; i < 64; i++)
        CHECK(ext[i] == 100L * left + i, "ext[%d] = %ld", i, ext[i]);
    SAY("8. external buffers: PE 0's malloc'd array got ext[63] = %ld from PE %d", ext[63], left);
    shmemx_buffer_unregister(out);
    shmemx_buffer_unregister_symmetric(ext, 64 * sizeof(long));
    free(out);
    free(ext);

    /* 9. Free and finalize. */
    if (streams) {
        rc = shmemx_stream_destroy(s);
        CHECK(rc == SHMEMX_SUCCESS, "stream_destroy: %s", shmemx_strerror(rc));
    }
    if (odd_uid != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odd_uid);
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    shmem_team_destroy(rows);
    shmem_team_destroy(cols);
    shmem_free(slot);
    shmem_free(sig);
    shmem_free(sum);
    shmem_free(src);
    shmem_free(ring);
    shmem_free(uid);
    int bad = failures;
    shmem_finalize();
    /* The process stays in its job (init may come again), as with NVSHMEM. */
    if (shmemx_init_status() != SHMEMX_STATUS_IS_BOOTSTRAPPED) {
        printf("PE %d: WRONG: status after finalize %d\n", me, shmemx_init_status());
        bad++;
    }
#ifdef WALKTHROUGH_MPI
    MPI_Finalize();
#endif
    if (me == 0)
        printf("9. finalized: %s\n", bad ? "SOME CHECKS FAILED"
                                         : skipped ? "all checks passed, but the steps on "
                                                     "streams were skipped (exit 77)"
                                                   : "all checks passed");
    return bad ? 1 : skipped ? 77 : 0;
}
