/*
 * Atomics on GPU memory of the device heap (docs/gpu.md, "Atomics on
 * device memory"): the host API's AMOs and signals on a device word, and
 * through them the proxy's requests of kernels for PEs their GPU does not
 * map.  The CPU cannot touch GPU memory, and the provider's atomics on it
 * (FI_HMEM) would be read-modify-write copies, not atomic against the
 * kernels' atomics on the same word; so every such AMO is the GPU's own
 * system-scope atomic: the library's one-thread kernel (shmemi_cuda_amo)
 * on this PE's GPU where the word is mapped here, else on the target's
 * GPU, asked for by its staging thread (src/core/dev_stage.c).  All of
 * them, and the kernels' atomics, are one kind of instruction on the one
 * word: the atomicity rule of core/amo.h holds.
 */
#include "core/amo.h"
#include "core/dev.h"
#include "fabshmem/device/proxy.h"

/* The kernel's operation (SHMEMD_AMO_*) of a core AMO (SHMEMT_AOP_*):
 * the kernel returns the old value of every one; fetching or not only
 * names it. */
static int dev_amo_code(int op, int fetching)
{
    switch (op) {
    case SHMEMT_AOP_SET: return SHMEMD_AMO_SET;
    case SHMEMT_AOP_FETCH: return SHMEMD_AMO_FETCH;
    case SHMEMT_AOP_SWAP: return SHMEMD_AMO_SWAP;
    case SHMEMT_AOP_CSWAP: return SHMEMD_AMO_CSWAP;
    case SHMEMT_AOP_ADD: return fetching ? SHMEMD_AMO_FETCH_ADD : SHMEMD_AMO_ADD;
    case SHMEMT_AOP_AND: return fetching ? SHMEMD_AMO_FETCH_AND : SHMEMD_AMO_AND;
    case SHMEMT_AOP_OR: return fetching ? SHMEMD_AMO_FETCH_OR : SHMEMD_AMO_OR;
    case SHMEMT_AOP_XOR: return fetching ? SHMEMD_AMO_FETCH_XOR : SHMEMD_AMO_XOR;
    default: return 0;
    }
}

/* The size-byte value at p as 64 bits (zero-extended), 0 for NULL. */
static uint64_t dev_amo_bits(const void *p, size_t size)
{
    uint64_t v = 0;
    uint32_t w;

    if (!p)
        return 0;
    if (size == 8) {
        memcpy(&v, p, 8);
    } else {
        memcpy(&w, p, 4);
        v = w;
    }
    return v;
}

int shmemi_dev_amo(uint64_t off, int op, const void *operand, const void *compare, void *fetch,
                   size_t size, int pe, const char *rtn)
{
    int amo = dev_amo_code(op, fetch != NULL), rc;
    uint64_t v = dev_amo_bits(operand, size), c = 0, old = 0, *want;
    uint32_t w;
    char *peer;

    if (!amo || (size != 4 && size != 8))
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: internal: AMO %d of %zu bytes on "
                                "GPU memory", rtn, op, size);
    if (op == SHMEMT_AOP_CSWAP)
        c = dev_amo_bits(compare, size);
    peer = pe == shmemi_g.my_pe ? shmemi_g.dheap_base : shmemi_g.peer_dheap[pe];
    /* A SET returns nothing (0 in fetch, as the CPU's path leaves). */
    want = fetch && op != SHMEMT_AOP_SET ? &old : NULL;
    if (peer)
        rc = shmemi_cuda_amo(peer + off, amo, size, v, c, want, rtn);
    else
        rc = shmemi_dev_staged_amo(off, amo, size, v, c, want, pe, rtn);
    if (rc || !fetch)
        return rc;
    if (size == 8) {
        memcpy(fetch, &old, 8);
    } else {
        w = (uint32_t)old;
        memcpy(fetch, &w, 4);
    }
    return 0;
}
