/*
 * The executable's symmetric data: globals and statics are its .data and
 * .bss, which follow, in its writable PT_LOAD segment, what the program
 * must not let anyone else write: the part made read-only after relocation
 * (PT_GNU_RELRO: .got, .dynamic, .data.rel.ro) and, when the program is
 * linked without -z now (partial RELRO), the lazily bound .got.plt, whose
 * entries are the addresses the program's calls into shared libraries
 * jump to.  Only .data and .bss are symmetric: the transport registers
 * exactly those bytes for remote access (docs/design.md, "Trust model").
 *
 * The bounds come from the program headers and the dynamic section, which
 * are in memory whatever was stripped: the writable PT_LOAD segment, the
 * end of PT_GNU_RELRO, and DT_PLTGOT with the count of its slots
 * (DT_PLTRELSZ over the size of one relocation, DT_PLTREL, plus the three
 * slots the dynamic linker reserves).
 */
#include "mem/data_seg.h"
#include <stddef.h>

/* The slots at the start of .got.plt that the dynamic linker reserves
 * (the dynamic section's address, the link map, the resolver), on x86-64
 * and AArch64 alike. */
#define GOTPLT_RESERVED 3

/* An address from the dynamic section inside [lo, hi), or 0: the dynamic
 * linker relocates some entries of the executable's dynamic section in
 * place (glibc on x86-64), others leave them as linked. */
static uintptr_t dyn_addr(uintptr_t v, uintptr_t bias, uintptr_t lo, uintptr_t hi)
{
    if (v >= lo && v < hi)
        return v;
    if (bias && v + bias >= lo && v + bias < hi)
        return v + bias;
    return 0;
}

/* Fills r->gotplt_lo/hi from the dynamic section dyn, for a writable
 * segment [lo, hi). */
static void gotplt_find(const ElfW(Dyn) *dyn, uintptr_t bias, uintptr_t lo, uintptr_t hi,
                        shmemi_data_range_t *r)
{
    uintptr_t pltgot = 0, relsz = 0, relent = sizeof(ElfW(Rela));

    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_PLTGOT)
            pltgot = dyn->d_un.d_ptr;
        else if (dyn->d_tag == DT_PLTRELSZ)
            relsz = dyn->d_un.d_val;
        else if (dyn->d_tag == DT_PLTREL)
            relent = dyn->d_un.d_val == DT_REL ? sizeof(ElfW(Rel)) : sizeof(ElfW(Rela));
    }
    pltgot = pltgot ? dyn_addr(pltgot, bias, lo, hi) : 0;
    if (!pltgot)
        return;
    r->gotplt_lo = pltgot;
    r->gotplt_hi = pltgot + (GOTPLT_RESERVED + relsz / relent) * sizeof(void *);
}

void shmemi_data_range_compute(const ElfW(Phdr) *ph, int phnum, uintptr_t bias, uintptr_t page,
                               shmemi_data_range_t *r)
{
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t lo = 0, hi = 0;
    int i;

    *r = (shmemi_data_range_t){ 0 };
    for (i = 0; i < phnum; i++) {
        uintptr_t start = bias + ph[i].p_vaddr, end = start + ph[i].p_memsz;

        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W) && ph[i].p_memsz) {
            if (!lo || start < lo)
                lo = start;
            if (end > hi)
                hi = end;
        } else if (ph[i].p_type == PT_GNU_RELRO) {
            r->relro_lo = start;
            r->relro_hi = end;
        } else if (ph[i].p_type == PT_DYNAMIC) {
            dyn = (const ElfW(Dyn) *)start;
        }
    }
    if (hi <= lo)
        return;
    if (dyn)
        gotplt_find(dyn, bias, lo, hi, r);
    /* .data and .bss: after RELRO and after .got.plt. */
    if (r->relro_hi > lo && r->relro_lo < hi)
        lo = r->relro_hi > lo ? r->relro_hi : lo;
    if (r->gotplt_hi > lo)
        lo = r->gotplt_hi;
    /* The pages node peers map: none of RELRO (the dynamic linker makes
     * the pages below its end read-only), so a page shared with RELRO's
     * end is left out, and the data on it with it (linkers end RELRO on a
     * page boundary). */
    r->map_lo = lo & ~(page - 1);
    if (r->relro_hi > r->map_lo && r->relro_lo < hi)
        r->map_lo = (r->relro_hi + page - 1) & ~(page - 1);
    if (lo < r->map_lo)
        lo = r->map_lo;
    r->map_hi = (hi + page - 1) & ~(page - 1);
    if (hi <= lo) {
        r->map_lo = r->map_hi = 0;
        return;
    }
    r->lo = lo;
    r->hi = hi;
}
