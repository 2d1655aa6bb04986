/*
 * The unique-id bootstrap without a launcher: tests/init/uid_boot.sh starts the
 * processes with a plain shell loop as
 *   uid_boot RANK NRANKS IDFILE [MODE]
 * Rank 0 makes the id with shmemx_get_uniqueid and writes it to IDFILE
 * (through a rename, so a reader never sees half an id); the others wait
 * for the file.  Every process then joins with shmemx_init_attr and checks
 * its rank, the job size, the status values (NOT_INITIALIZED before,
 * IS_INITIALIZED, IS_BOOTSTRAPPED after finalize), the thread level of
 * attr->thread_level (SINGLE in round 0, MULTIPLE in round 1), a ring of
 * puts, gets, a fetch-add on one counter, the node map (shmem_ptr to every
 * peer when all run on this host with the direct path on) and re-init.
 *
 * MODE "badsecret": this process flips a bit of the secret; the hub must
 * refuse it (it exits non-zero, the real job is unaffected).
 * MODE "die": rank NRANKS-1 exits without shmem_finalize after init; the
 * others must end with an error instead of waiting for it.
 */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fail(int rank, const char *what, long long want, long long got)
{
    fprintf(stderr, "FAIL uid_boot: rank %d: %s: expected %lld, got %lld\n", rank, what, want,
            got);
    exit(1);
}

int main(int argc, char **argv)
{
    shmemx_uniqueid_t uid = SHMEMX_UNIQUEID_INITIALIZER;
    shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
    const char *mode = argc > 4 ? argv[4] : "";
    int rank, nranks, me, n, round;

    if (argc < 4) {
        fprintf(stderr, "usage: %s RANK NRANKS IDFILE [badsecret|die]\n", argv[0]);
        return 2;
    }
    rank = atoi(argv[1]);
    nranks = atoi(argv[2]);
    if (shmemx_init_status() != SHMEMX_STATUS_NOT_INITIALIZED)
        fail(rank, "status before init", SHMEMX_STATUS_NOT_INITIALIZED, shmemx_init_status());
    if (rank == 0 && strcmp(mode, "badsecret")) {
        char tmp[4096];
        FILE *f;

        if (shmemx_get_uniqueid(&uid))
            fail(rank, "shmemx_get_uniqueid", 0, 1);
        snprintf(tmp, sizeof(tmp), "%s.tmp", argv[3]);
        f = fopen(tmp, "wb");
        if (!f || fwrite(&uid, sizeof(uid), 1, f) != 1 || fclose(f) || rename(tmp, argv[3]))
            fail(rank, "writing the id file", 0, 1);
    } else {
        FILE *f;
        int tries = 0;

        while (!(f = fopen(argv[3], "rb"))) {
            if (++tries > 3000)
                fail(rank, "the id file never appeared", 0, 1);
            usleep(10000);
        }
        if (fread(&uid, sizeof(uid), 1, f) != 1)
            fail(rank, "reading the id file", 0, 1);
        fclose(f);
        if (!strcmp(mode, "badsecret"))
            uid.internal[8] ^= 1; /* inside the secret */
    }
    if (shmemx_set_attr_uniqueid_args(rank, nranks, &uid, &attr))
        fail(rank, "shmemx_set_attr_uniqueid_args", 0, 1);
    /* Bad arguments are refused without harm. */
    if (shmemx_set_attr_uniqueid_args(nranks, nranks, &uid, &attr) == 0)
        fail(rank, "set_attr with rank == nranks", 1, 0);
    if (shmemx_set_attr_uniqueid_args(rank, nranks, &uid, &attr))
        fail(rank, "shmemx_set_attr_uniqueid_args", 0, 1);

    for (round = 0; round < 2; round++) {
        long *buf, *ctr, got;
        int pe, level = -1;

        attr.thread_level = round ? SHMEM_THREAD_MULTIPLE : SHMEM_THREAD_SINGLE;
        if (shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr))
            fail(rank, "shmemx_init_attr", 0, 1);
        if (shmemx_init_status() != SHMEMX_STATUS_IS_INITIALIZED)
            fail(rank, "status after init", SHMEMX_STATUS_IS_INITIALIZED, shmemx_init_status());
        shmem_query_thread(&level);
        if (level != attr.thread_level)
            fail(rank, "thread level of attr->thread_level", attr.thread_level, level);
        me = shmem_my_pe();
        n = shmem_n_pes();
        if (me != rank)
            fail(rank, "shmem_my_pe", rank, me);
        if (n != nranks)
            fail(rank, "shmem_n_pes", nranks, n);
        if (!strcmp(mode, "die") && me == n - 1 && n > 1) {
            fprintf(stderr, "uid_boot: rank %d leaves without shmem_finalize\n", me);
            exit(3);
        }
        buf = shmem_calloc(n, sizeof(long));
        ctr = shmem_calloc(1, sizeof(long));
        /* Ring: everybody puts its rank + 1000 * round into slot me of the next. */
        long v = me + 1000L * round;
        shmem_long_put(&buf[me], &v, 1, (me + 1) % n);
        shmem_barrier_all();
        int from = (me - 1 + n) % n;
        if (buf[from] != from + 1000L * round)
            fail(rank, "ring put", from + 1000L * round, buf[from]);
        for (pe = 0; pe < n; pe++) {
            shmem_long_get(&got, &buf[(pe - 1 + n) % n], 1, pe);
            if (got != (pe - 1 + n) % n + 1000L * round)
                fail(rank, "get", (pe - 1 + n) % n + 1000L * round, got);
        }
        const char *d = getenv("FABSHMEM_DIRECT"), *prov = getenv("FABSHMEM_PROVIDER");
        const char *ppn = getenv("FABSHMEM_PES_PER_NODE");
        int direct = !(d && !strcmp(d, "0")) && !(ppn && *ppn && strcmp(ppn, "0"));
        /* The shm provider has no atomics: AMOs need every PE mapped there. */
        if (direct || n == 1 || !prov || strcmp(prov, "shm") ||
            !(getenv("FABSHMEM_OFI_AMO") && !strcmp(getenv("FABSHMEM_OFI_AMO"), "native"))) {
            for (int k = 0; k < 50; k++)
                shmem_long_atomic_fetch_add(ctr, me + 1, 0);
            shmem_barrier_all();
            if (me == 0 && *ctr != 50L * n * (n + 1) / 2)
                fail(rank, "fetch-add total", 50L * n * (n + 1) / 2, *ctr);
        }
        {
            for (pe = 0; pe < n; pe++)
                if (direct && !shmem_ptr(buf, pe))
                    fail(rank, "shmem_ptr to a PE of this host (node map by host identity)", 1, 0);
        }
        shmem_barrier_all();
        shmem_free(ctr);
        shmem_free(buf);
        shmem_finalize();
        /* Still in the job (the bootstrap stays for the next init). */
        if (shmemx_init_status() != SHMEMX_STATUS_IS_BOOTSTRAPPED)
            fail(rank, "status after finalize", SHMEMX_STATUS_IS_BOOTSTRAPPED,
                 shmemx_init_status());
    }
    if (rank == 0)
        printf("uid_boot: %d processes passed\n", nranks);
    return 0;
}
