/*
 * The executable's symmetric data: which bytes of its writable segment are
 * its .data and .bss (src/mem/data_seg.c).
 */
#ifndef SHMEMI_DATA_SEG_H
#define SHMEMI_DATA_SEG_H

#include <link.h>
#include <stdint.h>

/* What the program headers say about the executable's writable data. */
typedef struct shmemi_data_range {
    /* The symmetric data: .data and .bss, byte for byte; what the
     * transport registers and what addresses translate into (lo == hi:
     * none). */
    uintptr_t lo, hi;
    /* The whole pages around it that node peers map (map_lo == map_hi:
     * none); they never hold a RELRO page. */
    uintptr_t map_lo, map_hi;
    /* What is left out: the part made read-only after relocation
     * (PT_GNU_RELRO) and the table of library function addresses that the
     * dynamic linker fills in lazily (.got.plt, DT_PLTGOT); 0, 0 where
     * there is none. */
    uintptr_t relro_lo, relro_hi;
    uintptr_t gotplt_lo, gotplt_hi;
} shmemi_data_range_t;

/* Computes *r from the program headers ph[0 .. phnum) of an object loaded
 * at bias (dl_iterate_phdr's dlpi_addr), with pages of page bytes.  The
 * dynamic section (PT_DYNAMIC) is read where the headers say it is. */
void shmemi_data_range_compute(const ElfW(Phdr) *ph, int phnum, uintptr_t bias, uintptr_t page,
                               shmemi_data_range_t *r);

#endif
