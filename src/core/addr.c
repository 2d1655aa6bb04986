/*
 * Address translation outside the heap: the registered symmetric buffers
 * that node peers map (the heap and the data segment are inline in
 * core/addr.h).
 */
#include "core/shmemi.h"

char *shmemi_ext_direct(const void *addr, size_t nbytes, int pe, int amo)
{
    uintptr_t a = (uintptr_t)addr;
    int i;

    if ((unsigned)pe >= (unsigned)shmemi_g.n_pes)
        return NULL;
    for (i = 0; i < SHMEMT_EXT_MAX; i++) {
        char **peer = __atomic_load_n(&shmemi_g.ext[i].peer, __ATOMIC_ACQUIRE);
        uintptr_t e = shmemi_g.ext[i].base;
        size_t len = shmemi_g.ext[i].len;

        if (peer && a - e < len && nbytes <= len - (a - e))
            return peer[pe] && (!amo || shmemi_g.ext[i].amo_cpu) ? peer[pe] + (a - e) : NULL;
    }
    return NULL;
}
