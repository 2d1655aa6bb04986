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
    /* What is left out (0, 0 or 0 where there is none): the part made
     * read-only after relocation (PT_GNU_RELRO), the table of library
     * function addresses that the dynamic linker fills in lazily (.got.plt,
     * DT_PLTGOT), the end of the last GOT slot that a dynamic relocation
     * fills (got_hi), and the end of the sections of the dynamic linker
     * and the C runtime that the section headers name (owned_hi). */
    uintptr_t relro_lo, relro_hi;
    uintptr_t gotplt_lo, gotplt_hi;
    uintptr_t got_hi, owned_hi;
} shmemi_data_range_t;

/* Computes *r from the program headers ph[0 .. phnum) of an object loaded
 * at bias (dl_iterate_phdr's dlpi_addr), with pages of page bytes, and
 * owned_end (shmemi_data_owned_end; 0: unknown).  The dynamic section
 * (PT_DYNAMIC) and the relocation tables it names are read where they are
 * in memory. */
void shmemi_data_range_compute(const ElfW(Phdr) *ph, int phnum, uintptr_t bias, uintptr_t page,
                               uintptr_t owned_end, shmemi_data_range_t *r);

/* The end, as linked (before the load bias), of the writable sections of
 * the executable file path that the dynamic linker and the C runtime own
 * (.got, .got.plt, .dynamic, .init_array, .fini_array, .data.rel.ro, ...),
 * from its section headers; 0 when the file cannot be read, has no
 * section headers, or its program headers are not ph[0 .. phnum) (not the
 * program in memory). */
uintptr_t shmemi_data_owned_end(const char *path, const ElfW(Phdr) *ph, int phnum);

#endif
