/*
 * Address translation outside the heap: the registered symmetric buffers
 * that node peers map (the heap and the data segment are inline in
 * core/addr.h), their twins for GPU memory (the device heap is inline in
 * core/dev.h; the buffers registered into its window, src/mem/dheap_ext.c,
 * are searched here), and shmem_ptr's answer.
 */
#include "core/addr.h"
#include "core/dev.h"

char *shmemi_ext_direct(const void *addr, size_t nbytes, int pe, int amo)
{
    uintptr_t off;
    int i;

    if ((unsigned)pe >= (unsigned)shmemi_g.n_pes)
        return NULL;
    for (i = 0; i < SHMEMT_EXT_MAX; i++) {
        char **peer = __atomic_load_n(&shmemi_g.ext[i].peer, __ATOMIC_ACQUIRE);

        if (peer && shmemi_range_off(addr, nbytes, shmemi_g.ext[i].base, shmemi_g.ext[i].len, &off))
            return peer[pe] && (!amo || shmemi_g.ext[i].amo_cpu) ? peer[pe] + off : NULL;
    }
    return NULL;
}

int shmemi_dev_ext_range(const void *addr, size_t len, uint64_t *off_p)
{
    uintptr_t off;
    int i;

    for (i = 0; i < SHMEMI_DEXT_MAX; i++) {
        size_t n = __atomic_load_n(&shmemi_g.dext[i].len, __ATOMIC_ACQUIRE);

        /* The program's address: the library hands its own second mapping
         * (peer_dheap[my_pe] + off) only to copies and kernels. */
        if (n && shmemi_range_off(addr, len, shmemi_g.dext[i].base, n, &off)) {
            *off_p = shmemi_g.dext[i].off + off;
            return 1;
        }
    }
    return 0;
}

int shmemi_dev_off_valid(uint64_t off, uint64_t len)
{
    int i;

    if (off <= shmemi_g.dheap_size && len <= shmemi_g.dheap_size - off)
        return 1;
    for (i = 0; i < SHMEMI_DEXT_MAX; i++) {
        uint64_t o = shmemi_g.dext[i].off, n = __atomic_load_n(&shmemi_g.dext[i].len,
                                                                 __ATOMIC_ACQUIRE);
        if (n && off >= o && off - o <= n && len <= n - (off - o))
            return 1;
    }
    return 0;
}

void *shmemi_ptr_world(const void *dest, int pe)
{
    int seg;
    uint64_t off;

    if (pe < 0 || pe >= shmemi_g.n_pes)
        return NULL;
    /* GPU memory: the peer's device heap where it is mapped here. */
    if (SHMEMI_UNLIKELY(shmemi_g.dheap_size) && shmemi_dev_range(dest, 1, &off))
        return shmemi_dev_ptr(dest, pe);
    if (pe == shmemi_g.my_pe)
        return shmemi_addr_seg(dest, 1, &seg, &off) == 0 ? (void *)dest : NULL;
    return shmemi_peer_addr(dest, pe);
}
