/*
 * The job that tests/init/mr_attack.sh attacks from outside: every PE
 * fills canaries in its symmetric heap, in .data and in .bss, writes
 * where they are into DIR/pe<N>.info ("pid ADDR@BASE ..." for mr_attack:
 * each canary's virtual address with every start of a registration it
 * could be an offset from: the start of its mapping, which is where the
 * whole writable segment or the heap starts, and .data's first byte),
 * waits until DIR/done exists (up to 120 s; the progress thread applies
 * whatever arrives meanwhile), and checks that every canary is intact.
 *
 *   mr_victim DIR
 */
#define _GNU_SOURCE
#include "common.h"
#include <unistd.h>

#define CANARY 0x5151515151515151ul
#define WORDS 512

static unsigned long data_canary[WORDS] = { CANARY }; /* .data */
static unsigned long bss_canary[WORDS];               /* .bss */
extern int __data_start;

static int intact(const char *what, const unsigned long *c)
{
    int i, bad = 0;

    for (i = 0; i < WORDS; i++)
        bad += c[i] != CANARY;
    if (bad)
        printf("FAIL mr_victim: PE %d: %d words of its %s canary were overwritten\n", test_me,
               bad, what);
    return !bad;
}

int main(int argc, char **argv)
{
    char path[4096];
    unsigned long *heap;
    FILE *f;
    int i, ok, waited;

    if (argc != 2) {
        fprintf(stderr, "usage: mr_victim DIR\n");
        return 2;
    }
    test_init("mr_victim");
    heap = shmem_malloc(WORDS * sizeof(long));
    TEST_ASSERT(heap != NULL, "shmem_malloc");
    for (i = 0; i < WORDS; i++)
        heap[i] = data_canary[i] = bss_canary[i] = CANARY;
    shmem_barrier_all();
    snprintf(path, sizeof(path), "%s/pe%d.tmp", argv[1], test_me);
    f = fopen(path, "w");
    TEST_ASSERT(f != NULL, "cannot write %s", path);
    fprintf(f, "%d", (int)getpid());
    i = WORDS / 2;
    fprintf(f, " %lx@%lx", (unsigned long)&heap[i], (unsigned long)test_mapping_start(heap));
    fprintf(f, " %lx@%lx %lx@%lx", (unsigned long)&data_canary[i],
            (unsigned long)test_mapping_start(data_canary), (unsigned long)&data_canary[i],
            (unsigned long)&__data_start);
    fprintf(f, " %lx@%lx %lx@%lx", (unsigned long)&bss_canary[i],
            (unsigned long)test_mapping_start(bss_canary), (unsigned long)&bss_canary[i],
            (unsigned long)&__data_start);
    fprintf(f, "\n");
    fclose(f);
    {
        char done[4096];
        snprintf(done, sizeof(done), "%s/pe%d.info", argv[1], test_me);
        TEST_ASSERT(rename(path, done) == 0, "cannot rename %s", path);
    }
    snprintf(path, sizeof(path), "%s/done", argv[1]);
    for (waited = 0; access(path, F_OK) != 0 && waited < 120000; waited += 10)
        usleep(10000);
    TEST_ASSERT(waited < 120000, "%s did not appear in 120 s", path);
    /* Whatever was accepted has been applied by now; a quiet and a barrier
     * drive the provider once more. */
    shmem_quiet();
    shmem_barrier_all();
    ok = intact("heap", heap) & intact(".data", data_canary) & intact(".bss", bss_canary);
    TEST_ASSERT(ok, "memory was written from outside the job");
    shmem_barrier_all();
    shmem_free(heap);
    return test_finish();
}
