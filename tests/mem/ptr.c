/*
 * ptr: shmem_ptr to self is the local address; for peers, a non-NULL
 * pointer must reach the peer's object (store through it, check with a get
 * on the owner); shmem_team_ptr on SHMEM_TEAM_SHARED (1.6) is non-NULL for
 * every member; pe_accessible and addr_accessible are true for every valid
 * PE and symmetric address and false for a stack address and an
 * out-of-range PE.
 */
#include "common.h"

static long static_arr[64];

/* Store through shmem_ptr into every mapped peer's copy of obj. */
static int ptr_stores(const char *where, long *obj)
{
    int pe, mapped = 0;
    long *self = shmem_ptr(obj, test_me);

    TEST_ASSERT(self == obj, "shmem_ptr(%s, my PE): expected %p, got %p", where, (void *)obj,
                (void *)self);
    obj[test_me] = 0;
    for (pe = 0; pe < test_npes; pe++)
        obj[pe] = -1;
    shmem_barrier_all();
    for (pe = 0; pe < test_npes; pe++) {
        long *q = shmem_ptr(obj, pe);

        if (q == NULL)
            continue;
        mapped++;
        /* Slot test_me of PE pe's copy: only this PE writes it. */
        *(volatile long *)&q[test_me] = 1000 + test_me * 10 + pe;
    }
    shmem_barrier_all();
    for (pe = 0; pe < test_npes; pe++) {
        long *q = shmem_ptr(obj, pe);
        long got = shmem_long_g(&obj[test_me], pe);

        if (q != NULL && got != 1000 + test_me * 10 + pe)
            test_fail("store through shmem_ptr(%s, %d), then shmem_long_g on PE %d: expected %d, got %ld",
                      where, pe, pe, 1000 + test_me * 10 + pe, got);
        if (q == NULL && got != -1)
            test_fail("%s on PE %d (not mapped): expected -1, got %ld", where, pe, got);
    }
    shmem_barrier_all();
    return mapped;
}

int main(void)
{
    long *sym, stackvar = 0;
    int pe, mapped, mapped_static;

    test_init("ptr");
    sym = shmem_malloc(64 * sizeof(long));
    TEST_ASSERT(sym != NULL, "shmem_malloc returned NULL");
    TEST_ASSERT(test_npes <= 64, "this test handles at most 64 PEs");

    mapped = ptr_stores("heap", sym);
    mapped_static = ptr_stores("static", static_arr);
    printf("ptr: PE %d: shmem_ptr maps %d of %d PEs (heap), %d (static)\n", test_me, mapped,
           test_npes, mapped_static);
    fflush(stdout);

#ifdef FABSHMEM_TESTS_16
    {
        int n = shmem_team_n_pes(SHMEM_TEAM_SHARED), i;

        TEST_ASSERT(n >= 1 && n <= test_npes, "shmem_team_n_pes(SHMEM_TEAM_SHARED): got %d", n);
        TEST_ASSERT(shmem_team_my_pe(SHMEM_TEAM_SHARED) >= 0,
                    "shmem_team_my_pe(SHMEM_TEAM_SHARED): got %d", shmem_team_my_pe(SHMEM_TEAM_SHARED));
        for (i = 0; i < n; i++) {
            int wpe = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
            long *q = shmem_team_ptr(SHMEM_TEAM_SHARED, sym, i);

            TEST_ASSERT(wpe >= 0 && wpe < test_npes,
                        "shmem_team_translate_pe(SHARED, %d, WORLD): got %d", i, wpe);
            TEST_ASSERT(q != NULL, "shmem_team_ptr(SHMEM_TEAM_SHARED, heap, %d) (world PE %d): NULL",
                        i, wpe);
            TEST_ASSERT(q == shmem_ptr(sym, wpe),
                        "shmem_team_ptr(SHMEM_TEAM_SHARED, heap, %d) != shmem_ptr(heap, %d)", i, wpe);
            TEST_ASSERT(shmem_team_ptr(SHMEM_TEAM_WORLD, sym, wpe) == q,
                        "shmem_team_ptr(SHMEM_TEAM_WORLD, heap, %d) != the SHARED one", wpe);
        }
        TEST_ASSERT(mapped >= n, "shmem_ptr maps %d PEs but SHMEM_TEAM_SHARED has %d", mapped, n);
        test_note("team_ptr on SHMEM_TEAM_SHARED (%d PEs) checked", n);
    }
#endif

    for (pe = 0; pe < test_npes; pe++) {
        TEST_ASSERT(shmem_pe_accessible(pe) == 1, "shmem_pe_accessible(%d): expected 1, got %d",
                    pe, shmem_pe_accessible(pe));
        TEST_ASSERT(shmem_addr_accessible(sym, pe) == 1,
                    "shmem_addr_accessible(heap, %d): expected 1, got %d", pe,
                    shmem_addr_accessible(sym, pe));
        TEST_ASSERT(shmem_addr_accessible(&static_arr[3], pe) == 1,
                    "shmem_addr_accessible(static, %d): expected 1, got %d", pe,
                    shmem_addr_accessible(&static_arr[3], pe));
        TEST_ASSERT(shmem_addr_accessible(&stackvar, pe) == 0,
                    "shmem_addr_accessible(stack address, %d): expected 0, got %d", pe,
                    shmem_addr_accessible(&stackvar, pe));
    }
#ifdef FABSHMEM_TESTS_16
    /* Out-of-range PEs are not accessible; the calls must not abort. */
    TEST_ASSERT(shmem_pe_accessible(test_npes) == 0, "shmem_pe_accessible(n_pes): expected 0");
    TEST_ASSERT(shmem_pe_accessible(-1) == 0, "shmem_pe_accessible(-1): expected 0");
    TEST_ASSERT(shmem_addr_accessible(sym, test_npes) == 0,
                "shmem_addr_accessible(heap, n_pes): expected 0");
    TEST_ASSERT(shmem_ptr(sym, test_npes) == NULL, "shmem_ptr(heap, n_pes): expected NULL");
#endif
    test_note("pe_accessible, addr_accessible checked");

    shmem_barrier_all();
    shmem_free(sym);
    return test_finish();
}
