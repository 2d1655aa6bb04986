/*
 * Address translation: which symmetric segment an address lies in, and
 * the local address of a mapped peer's copy (the direct path).
 */
#ifndef SHMEMI_ADDR_H
#define SHMEMI_ADDR_H

#include "base/state.h"

/* ---- address translation ---- */
/* 1 when [addr, addr+len) lies inside [base, base+size), with the offset
 * of addr from base in *off_p (set only then); 0 otherwise.  One
 * subtraction and two comparisons, none of which overflows: an address
 * below base wraps to an offset no smaller than size.  Every test of an
 * address against a symmetric segment is this one. */
SHMEMI_INLINE int shmemi_range_off(const void *addr, size_t len, uintptr_t base, size_t size,
                                   uintptr_t *off_p)
{
    uintptr_t off = (uintptr_t)addr - base;
    if (off < size && len <= size - off) {
        *off_p = off;
        return 1;
    }
    return 0;
}

/* The same for this PE's symmetric heap: 1 when [addr, addr+len) lies in
 * it, with the offset of addr (the same on every PE) in *off_p. */
SHMEMI_INLINE int shmemi_heap_off(const void *addr, size_t len, uintptr_t *off_p)
{
    return shmemi_range_off(addr, len, (uintptr_t)shmemi_g.heap_base, shmemi_g.heap_size, off_p);
}

/* Where a symmetric address lives: segment and offset.  Returns 0, or
 * -EFAULT when [addr, addr+len) is not inside one symmetric segment. */
static inline int shmemi_addr_seg(const void *addr, size_t len, int *seg_p, uint64_t *off_p)
{
    uintptr_t off;

    if (shmemi_heap_off(addr, len, &off)) {
        *seg_p = SHMEMT_SEG_HEAP;
        *off_p = off;
        return 0;
    }
    if (shmemi_range_off(addr, len, (uintptr_t)shmemi_g.data_base, shmemi_g.data_size, &off)) {
        *seg_p = SHMEMT_SEG_DATA;
        *off_p = off;
        return 0;
    }
    if (SHMEMI_UNLIKELY(shmemi_g.n_ext)) {
        for (int i = 0; i < SHMEMT_EXT_MAX; i++) {
            if (shmemi_range_off(addr, len, shmemi_g.ext[i].base, shmemi_g.ext[i].len, &off)) {
                *seg_p = SHMEMT_NSEGS + i;
                *off_p = off;
                return 0;
            }
        }
    }
    return -EFAULT;
}

/* The mapped address of [addr, addr+nbytes) in the executable's data on pe,
 * or NULL. */
static inline char *shmemi_data_direct(const void *addr, size_t nbytes, int pe)
{
    uintptr_t off;
    if (shmemi_range_off(addr, nbytes, (uintptr_t)shmemi_g.data_base, shmemi_g.data_size, &off) &&
        shmemi_g.peer_data && (unsigned)pe < (unsigned)shmemi_g.n_pes && shmemi_g.peer_data[pe])
        return shmemi_g.peer_data[pe] + off;
    return NULL;
}

/* src/mem/mem_reg.c: the mapped address of [addr, addr+nbytes) on pe when it
 * lies in a registered symmetric buffer that node peers map, else NULL;
 * with amo set, only where AMOs on it are CPU atomics (the atomicity
 * rule).  Called only while some buffer is mapped (n_ext_mapped). */
char *shmemi_ext_direct(const void *addr, size_t nbytes, int pe, int amo);

/* The mapped address of [addr, addr+nbytes) outside the heap (globals,
 * registered symmetric buffers) on pe, or NULL: one more predictable
 * branch while no registered buffer is mapped. */
static inline char *shmemi_other_direct(const void *addr, size_t nbytes, int pe)
{
    char *p = shmemi_data_direct(addr, nbytes, pe);
    if (SHMEMI_UNLIKELY(!p && shmemi_g.n_ext_mapped))
        p = shmemi_ext_direct(addr, nbytes, pe, 0);
    return p;
}

/* Local address of symmetric addr on pe when it is mapped, else NULL. */
static inline void *shmemi_peer_addr(const void *addr, int pe)
{
    uintptr_t off;
    /* A heap address is in no other segment: no search beyond the heap. */
    if (shmemi_heap_off(addr, 1, &off))
        return shmemi_g.peer_heap[pe] ? shmemi_g.peer_heap[pe] + off : NULL;
    return shmemi_other_direct(addr, 1, pe);
}

/* shmem_ptr of world PE pe: the local address of symmetric dest on pe
 * where this PE reaches it by load/store (dest itself on this PE), else
 * NULL (pe out of range included). */
void *shmemi_ptr_world(const void *dest, int pe);

/* The mapped address of [addr, addr+nbytes) on pe when the range lies in
 * pe's heap, data or a registered buffer and that is mapped; NULL
 * otherwise (the slow path then checks the arguments and takes the
 * transport). */
SHMEMI_INLINE char *shmemi_direct(const void *addr, size_t nbytes, int pe)
{
    uintptr_t off;
    /* A heap range is in no other segment: an unmapped peer's heap (another
     * node's) goes to the transport without searching the data segment and
     * the registered buffers. */
    if (SHMEMI_LIKELY(shmemi_heap_off(addr, nbytes, &off)))
        return (unsigned)pe < (unsigned)shmemi_g.n_pes && shmemi_g.peer_heap[pe]
                   ? shmemi_g.peer_heap[pe] + off
                   : NULL;
    return shmemi_other_direct(addr, nbytes, pe);
}

#endif
