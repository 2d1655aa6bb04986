/*
 * Address translation outside the heap: the registered symmetric buffers
 * that node peers map (the heap and the data segment are inline in
 * core/addr.h), and shmem_ptr's answer.
 */
#include "core/shmemi.h"

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
