/*
 * The MPI bootstrap: an MPI program splits MPI_COMM_WORLD into two halves
 * (even and odd ranks) and each half boots fabshmem over its own
 * communicator with SHMEMX_INIT_WITH_MPI_COMM, so one mpirun holds two
 * independent fabshmem jobs.  Every PE checks that its PE number and the
 * job size are its rank and size in the half, the thread level its half
 * asked for in attr->thread_level (even: SINGLE, odd: MULTIPLE), a ring of
 * puts carrying the half's colour (data of the other half would show), a
 * fetch-add total, and the status after finalize (IS_BOOTSTRAPPED).
 */
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(int wrank, const char *what, long want, long got)
{
    fprintf(stderr, "FAIL mpi_boot: world rank %d: %s: expected %ld, got %ld\n", wrank, what, want,
            got);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void run(MPI_Comm comm, int color, int wrank)
{
    shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
    int crank, csize, me, n, level = -1;
    long *buf, *ctr, v;
    const char *prov = getenv("FABSHMEM_PROVIDER"), *d = getenv("FABSHMEM_DIRECT");
    const char *ppn = getenv("FABSHMEM_PES_PER_NODE");
    int all_mapped = !(d && !strcmp(d, "0")) && !(ppn && *ppn && strcmp(ppn, "0"));

    MPI_Comm_rank(comm, &crank);
    MPI_Comm_size(comm, &csize);
    attr.thread_level = color ? SHMEM_THREAD_MULTIPLE : SHMEM_THREAD_SINGLE;
    if (shmemx_set_attr_mpi_comm_args(&comm, &attr) ||
        shmemx_init_attr(SHMEMX_INIT_WITH_MPI_COMM, &attr))
        fail(wrank, "shmemx_init_attr", 0, 1);
    if (shmemx_init_status() != SHMEMX_STATUS_IS_INITIALIZED)
        fail(wrank, "init status", SHMEMX_STATUS_IS_INITIALIZED, shmemx_init_status());
    shmem_query_thread(&level);
    if (level != attr.thread_level)
        fail(wrank, "thread level of attr->thread_level", attr.thread_level, level);
    me = shmem_my_pe();
    n = shmem_n_pes();
    if (me != crank || n != csize)
        fail(wrank, "PE number / job size", crank * 1000L + csize, me * 1000L + n);
    buf = shmem_calloc(n, sizeof(long));
    ctr = shmem_calloc(1, sizeof(long));
    v = color * 100000L + me;
    shmem_long_put(&buf[me], &v, 1, (me + 1) % n);
    shmem_barrier_all();
    if (buf[(me - 1 + n) % n] != color * 100000L + (me - 1 + n) % n)
        fail(wrank, "ring put", color * 100000L + (me - 1 + n) % n, buf[(me - 1 + n) % n]);
    if (all_mapped || n == 1 || !prov || strcmp(prov, "shm")) {
        for (int k = 0; k < 20; k++)
            shmem_long_atomic_add(ctr, me + 1, 0);
        shmem_barrier_all();
        if (me == 0 && *ctr != 20L * n * (n + 1) / 2)
            fail(wrank, "fetch-add total", 20L * n * (n + 1) / 2, *ctr);
    }
    shmem_barrier_all();
    shmem_free(ctr);
    shmem_free(buf);
    shmem_finalize();
    if (shmemx_init_status() != SHMEMX_STATUS_IS_BOOTSTRAPPED)
        fail(wrank, "status after finalize", SHMEMX_STATUS_IS_BOOTSTRAPPED, shmemx_init_status());
}

int main(int argc, char **argv)
{
    int wrank, wsize;
    MPI_Comm half;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half);
    run(half, wrank % 2, wrank);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("mpi_boot: %d ranks in two halves passed\n", wsize);
    MPI_Finalize();
    return 0;
}
