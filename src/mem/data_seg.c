/*
 * The executable's symmetric data: globals and statics are its .data and
 * .bss, which follow, in its writable PT_LOAD segment, what the program
 * must not let anyone else write: the tables of the dynamic linker and of
 * the C runtime (.init_array, .fini_array, .data.rel.ro, .dynamic) and the
 * global offset table (.got: the addresses of the program's data and
 * functions in shared libraries, GLOB_DAT; .got.plt: those its calls jump
 * to, JUMP_SLOT).  With full or partial RELRO most of it is made
 * read-only after relocation (PT_GNU_RELRO) and only .got.plt may follow
 * (lazy binding); linked with -z norelro, all of it is writable and lies
 * below .data, and with -z norelro -z now the GLOB_DAT slots come after
 * the jump slots in one .got.  Only .data and .bss are symmetric: the
 * transport registers exactly those bytes for remote access
 * (docs/design/trust.md), and no byte of those tables.
 *
 * The start of the data is the highest end of what is left out, each
 * found in a way that needs nothing but what is in memory, and the
 * section headers where the file can be read:
 *   - PT_GNU_RELRO;
 *   - PT_DYNAMIC (the dynamic section itself);
 *   - .got.plt: DT_PLTGOT with the count of its slots (DT_PLTRELSZ over
 *     the size of one relocation, DT_PLTREL, plus the three slots the
 *     dynamic linker reserves);
 *   - every slot of the GOT that a dynamic relocation fills (the tables of
 *     DT_RELA / DT_REL and DT_JMPREL: the relocation types that only ever
 *     target GOT slots, GLOB_DAT, JUMP_SLOT and the TLS ones);
 *   - the section headers of the executable (/proc/self/exe, when its
 *     program headers are the ones in memory): the end of .got, .got.plt,
 *     .igot.plt, .dynamic, .init_array, .fini_array, .preinit_array,
 *     .ctors, .dtors, .jcr, .data.rel.ro, .tdata, which covers the GOT's
 *     slots that no relocation names (a non-PIE program's own addresses).
 */
#include "mem/data_seg.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* An address from the dynamic section inside one of the loaded segments
 * of ph (relocated in place or as linked), or 0. */
static uintptr_t image_addr(const ElfW(Phdr) *ph, int phnum, uintptr_t bias, uintptr_t v)
{
    int i, pass;

    for (pass = 0; pass < 2; pass++) {
        uintptr_t a = pass ? v + bias : v;

        for (i = 0; i < phnum; i++)
            if (ph[i].p_type == PT_LOAD && a >= bias + ph[i].p_vaddr &&
                a < bias + ph[i].p_vaddr + ph[i].p_memsz)
                return a;
        if (!bias)
            break;
    }
    return 0;
}

/* 1 when a dynamic relocation of type type only ever fills a slot of the
 * GOT (.got or .got.plt). */
static int got_reloc(unsigned long type)
{
#if defined(__x86_64__)
    return type == R_X86_64_GLOB_DAT || type == R_X86_64_JUMP_SLOT ||
           type == R_X86_64_TPOFF64 || type == R_X86_64_DTPMOD64 || type == R_X86_64_DTPOFF64;
#elif defined(__aarch64__)
    return type == R_AARCH64_GLOB_DAT || type == R_AARCH64_JUMP_SLOT ||
           type == R_AARCH64_TLS_DTPMOD64 || type == R_AARCH64_TLS_DTPREL64 ||
           type == R_AARCH64_TLS_TPREL64 || type == R_AARCH64_TLSDESC;
#elif defined(__i386__)
    return type == R_386_GLOB_DAT || type == R_386_JMP_SLOT || type == R_386_TLS_TPOFF ||
           type == R_386_TLS_DTPMOD32 || type == R_386_TLS_DTPOFF32;
#else
    (void)type;
    return 0;
#endif
}

#if __ELF_NATIVE_CLASS == 64
#define R_TYPE(info) ELF64_R_TYPE(info)
#else
#define R_TYPE(info) ELF32_R_TYPE(info)
#endif

/* Raises *end_p to the end of every GOT slot in [lo, hi) that one of the
 * size bytes of relocations at table (entries of ent bytes, REL or RELA:
 * r_offset and r_info lead both) fills. */
static void got_slots(const char *table, uintptr_t size, uintptr_t ent, uintptr_t bias,
                      uintptr_t lo, uintptr_t hi, uintptr_t *end_p)
{
    uintptr_t off;

    if (!table || ent < sizeof(ElfW(Rel)))
        return;
    for (off = 0; off + ent <= size; off += ent) {
        const ElfW(Rel) *r = (const ElfW(Rel) *)(const void *)(table + off);
        uintptr_t a = bias + r->r_offset;

        if (got_reloc((unsigned long)R_TYPE(r->r_info)) && a >= lo && a < hi &&
            a + sizeof(void *) > *end_p)
            *end_p = a + sizeof(void *);
    }
}

/* Reads the dynamic section dyn of a writable segment [lo, hi): fills
 * r->gotplt_lo/hi and r->got_hi. */
static void dyn_scan(const ElfW(Dyn) *dyn, const ElfW(Phdr) *ph, int phnum, uintptr_t bias,
                     uintptr_t lo, uintptr_t hi, shmemi_data_range_t *r)
{
    uintptr_t pltgot = 0, relsz = 0, relent = sizeof(ElfW(Rela)), got_end = 0;
    uintptr_t rela = 0, relasz = 0, relaent = sizeof(ElfW(Rela));
    uintptr_t rel = 0, relsz2 = 0, relent2 = sizeof(ElfW(Rel)), jmprel = 0;

    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_PLTGOT: pltgot = dyn->d_un.d_ptr; break;
        case DT_PLTRELSZ: relsz = dyn->d_un.d_val; break;
        case DT_PLTREL:
            relent = dyn->d_un.d_val == DT_REL ? sizeof(ElfW(Rel)) : sizeof(ElfW(Rela));
            break;
        case DT_JMPREL: jmprel = dyn->d_un.d_ptr; break;
        case DT_RELA: rela = dyn->d_un.d_ptr; break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        case DT_RELAENT: relaent = dyn->d_un.d_val; break;
        case DT_REL: rel = dyn->d_un.d_ptr; break;
        case DT_RELSZ: relsz2 = dyn->d_un.d_val; break;
        case DT_RELENT: relent2 = dyn->d_un.d_val; break;
        default: break;
        }
    }
    if (rela)
        got_slots((const char *)image_addr(ph, phnum, bias, rela), relasz, relaent, bias, lo, hi,
                  &got_end);
    if (rel)
        got_slots((const char *)image_addr(ph, phnum, bias, rel), relsz2, relent2, bias, lo, hi,
                  &got_end);
    if (jmprel)
        got_slots((const char *)image_addr(ph, phnum, bias, jmprel), relsz, relent, bias, lo, hi,
                  &got_end);
    r->got_hi = got_end;
    pltgot = pltgot ? dyn_addr(pltgot, bias, lo, hi) : 0;
    if (!pltgot)
        return;
    r->gotplt_lo = pltgot;
    r->gotplt_hi = pltgot + (GOTPLT_RESERVED + relsz / relent) * sizeof(void *);
}

/* The sections that the dynamic linker and the C runtime own (prefixes:
 * ".got" is also .got.plt). */
static int owned_section(const char *name)
{
    static const char *const owned[] = { ".got", ".igot", ".dynamic", ".init_array",
                                         ".fini_array", ".preinit_array", ".ctors", ".dtors",
                                         ".jcr", ".data.rel.ro", ".tdata" };
    size_t i;

    for (i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        if (!strncmp(name, owned[i], strlen(owned[i])))
            return 1;
    return 0;
}

uintptr_t shmemi_data_owned_end(const char *path, const ElfW(Phdr) *ph, int phnum)
{
    FILE *f = fopen(path, "rb");
    ElfW(Ehdr) eh;
    ElfW(Phdr) *fph = NULL;
    ElfW(Shdr) *sh = NULL;
    char *strs = NULL;
    uintptr_t end = 0;
    int i;

    if (!f)
        return 0;
    if (fread(&eh, sizeof(eh), 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum != phnum ||
        eh.e_shentsize != sizeof(ElfW(Shdr)) || !eh.e_shnum || eh.e_shstrndx >= eh.e_shnum)
        goto out;
    /* The file must be the program in memory: the same program headers. */
    fph = malloc(sizeof(*fph) * (size_t)phnum);
    sh = malloc(sizeof(*sh) * eh.e_shnum);
    if (!fph || !sh || fseek(f, (long)eh.e_phoff, SEEK_SET) ||
        fread(fph, sizeof(*fph), (size_t)phnum, f) != (size_t)phnum ||
        memcmp(fph, ph, sizeof(*fph) * (size_t)phnum) || fseek(f, (long)eh.e_shoff, SEEK_SET) ||
        fread(sh, sizeof(*sh), eh.e_shnum, f) != eh.e_shnum ||
        sh[eh.e_shstrndx].sh_size > (1u << 20))
        goto out;
    strs = calloc(1, sh[eh.e_shstrndx].sh_size + 1);
    if (!strs || fseek(f, (long)sh[eh.e_shstrndx].sh_offset, SEEK_SET) ||
        fread(strs, 1, sh[eh.e_shstrndx].sh_size, f) != sh[eh.e_shstrndx].sh_size)
        goto out;
    for (i = 0; i < eh.e_shnum; i++)
        if ((sh[i].sh_flags & SHF_ALLOC) && (sh[i].sh_flags & SHF_WRITE) &&
            sh[i].sh_name < sh[eh.e_shstrndx].sh_size && owned_section(strs + sh[i].sh_name) &&
            !((sh[i].sh_flags & SHF_TLS) && sh[i].sh_type == SHT_NOBITS) &&
            sh[i].sh_addr + sh[i].sh_size > end)
            end = sh[i].sh_addr + sh[i].sh_size;
out:
    free(strs);
    free(sh);
    free(fph);
    fclose(f);
    return end;
}

void shmemi_data_range_compute(const ElfW(Phdr) *ph, int phnum, uintptr_t bias, uintptr_t page,
                               uintptr_t owned_end, shmemi_data_range_t *r)
{
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t lo = 0, hi = 0, dyn_hi = 0;
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
            dyn_hi = end;
        }
    }
    if (hi <= lo)
        return;
    if (dyn)
        dyn_scan(dyn, ph, phnum, bias, lo, hi, r);
    if (owned_end && bias + owned_end > lo && bias + owned_end <= hi)
        r->owned_hi = bias + owned_end;
    /* .data and .bss: after RELRO and after everything else left out. */
    if (r->relro_hi > lo && r->relro_lo < hi)
        lo = r->relro_hi > lo ? r->relro_hi : lo;
    if (dyn_hi > lo && dyn_hi <= hi)
        lo = dyn_hi;
    if (r->gotplt_hi > lo)
        lo = r->gotplt_hi;
    if (r->got_hi > lo)
        lo = r->got_hi;
    if (r->owned_hi > lo)
        lo = r->owned_hi;
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
