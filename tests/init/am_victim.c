/*
 * The job that tests/init/am_attack.sh attacks with active messages from
 * outside (2 PEs on tcp with the direct path off, so that AMOs between
 * the PEs are active messages).  Each PE:
 *
 *   1. fills canaries: a heap array, and a private malloc'd word (the
 *      forged replies' old target); writes DIR/pe<N>.info: "pid HEAPOFF
 *      PRIVATE", HEAPOFF the canary's offset in the heap's registration
 *      (from the start of its mapping), PRIVATE the private word's address;
 *   2. waits for DIR/go1 (am_attack has sent its forgeries and is
 *      capturing loopback traffic, where it may);
 *   3. PE 1 adds MAGIC to PE 0's word canary[1] (one active message that
 *      am_attack may capture); both write DIR/pe<N>.legit and wait for
 *      DIR/go2 (am_attack has replayed the captured message);
 *   4. checks that nothing changed but the one legitimate add, then goes
 *      on: fetch-adds and compare-swaps around the ring, checked.
 *
 *   am_victim DIR
 */
#define _GNU_SOURCE
#include "common.h"
#include <unistd.h>

#define CANARY 0x5151515151515151l
#define MAGIC 0x0123456789abcdefl
#define WORDS 64
#define ROUNDS 200

static long *private_word;

static void publish(const char *dir, const char *what, const char *text)
{
    char tmp[4096], path[4096];
    FILE *f;

    snprintf(tmp, sizeof(tmp), "%s/pe%d.tmp", dir, test_me);
    snprintf(path, sizeof(path), "%s/pe%d.%s", dir, test_me, what);
    f = fopen(tmp, "w");
    TEST_ASSERT(f != NULL, "cannot write %s", tmp);
    fputs(text, f);
    fclose(f);
    TEST_ASSERT(rename(tmp, path) == 0, "cannot rename %s", tmp);
}

/* Waits for DIR/name, driving the provider meanwhile (a quiet with
 * nothing outstanding polls once): whatever arrives is handled. */
static void await(const char *dir, const char *name)
{
    char path[4096];
    int waited;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    for (waited = 0; access(path, F_OK) != 0 && waited < 120000; waited += 10) {
        shmem_quiet();
        usleep(10000);
    }
    TEST_ASSERT(waited < 120000, "%s did not appear in 120 s", path);
}

static int intact(const long *canary)
{
    int i, bad = 0;

    for (i = 0; i < WORDS; i++) {
        long want = (i == 1 && test_me == 0) ? CANARY + MAGIC : CANARY;
        if (canary[i] != want) {
            printf("FAIL am_victim: PE %d: canary[%d] is %#lx, not %#lx\n", test_me, i,
                   canary[i], want);
            bad++;
        }
    }
    if (*private_word != CANARY) {
        printf("FAIL am_victim: PE %d: its private word is %#lx, not %#lx\n", test_me,
               *private_word, CANARY);
        bad++;
    }
    return !bad;
}

int main(int argc, char **argv)
{
    char text[256];
    long *canary, *ring;
    int i, next;

    if (argc != 2) {
        fprintf(stderr, "usage: am_victim DIR\n");
        return 2;
    }
    test_init("am_victim");
    TEST_ASSERT(test_npes == 2, "runs on 2 PEs");
    canary = shmem_malloc(WORDS * sizeof(long));
    ring = shmem_calloc(2, sizeof(long));
    private_word = malloc(sizeof(long));
    TEST_ASSERT(canary && ring && private_word, "allocation");
    for (i = 0; i < WORDS; i++)
        canary[i] = CANARY;
    *private_word = CANARY;
    shmem_barrier_all();

    snprintf(text, sizeof(text), "%d %lx %lx\n", (int)getpid(),
             (unsigned long)((uintptr_t)canary - test_mapping_start(canary)),
             (unsigned long)(uintptr_t)private_word);
    publish(argv[1], "info", text);
    await(argv[1], "go1");
    shmem_barrier_all();

    /* The one legitimate message that the attacker may capture. */
    if (test_me == 1) {
        shmem_long_atomic_add(&canary[1], MAGIC, 0);
        shmem_quiet();
    }
    shmem_barrier_all();
    publish(argv[1], "legit", "\n");
    await(argv[1], "go2");
    shmem_quiet();
    shmem_barrier_all();
    TEST_ASSERT(intact(canary), "an active message from outside the job changed memory");

    /* The job goes on: the active messages of its own PEs still work. */
    next = (test_me + 1) % test_npes;
    for (i = 0; i < ROUNDS; i++) {
        long old = shmem_long_atomic_fetch_add(&ring[0], 1, next);
        TEST_ASSERT(old == i, "fetch_add round %d fetched %ld", i, old);
        shmem_long_atomic_compare_swap(&ring[1], i, i + 1, next);
    }
    shmem_barrier_all();
    TEST_ASSERT(ring[0] == ROUNDS, "ring[0] is %ld, not %d", ring[0], ROUNDS);
    TEST_ASSERT(ring[1] == ROUNDS, "ring[1] is %ld, not %d", ring[1], ROUNDS);
    TEST_ASSERT(intact(canary), "memory changed after the attack");
    shmem_barrier_all();
    shmem_free(ring);
    shmem_free(canary);
    free(private_word);
    return test_finish();
}
