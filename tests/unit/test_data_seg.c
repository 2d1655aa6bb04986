/*
 * Unit tests of the bounds of the symmetric data (src/mem/data_seg.c):
 * over made-up program headers, a partial-RELRO layout (.got.plt after
 * RELRO, left out byte for byte, with the dynamic section's address
 * relocated or as linked), a full-RELRO one (.got.plt inside RELRO), a
 * static one (no RELRO, no dynamic section), a RELRO that ends inside a
 * page (that page is neither mapped nor registered) and one that leaves
 * no data, a -z norelro -z now layout (the GLOB_DAT slots after the jump
 * slots in one .got, found from the relocation table, with its address
 * relocated or as linked; a RELATIVE relocation in .data keeps its data),
 * the section headers' end of the dynamic linker's sections; and over this
 * very program, checked against its section headers read from
 * /proc/self/exe: the range starts at or before .data, ends where .bss
 * ends, and holds no byte of RELRO, .got, .got.plt, .dynamic,
 * .init_array or .fini_array, nor any slot that a GOT relocation fills.
 */
#define _GNU_SOURCE
#include "mem/data_seg.h"
#include <elf.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define PAGE 0x1000u
#define BIAS 0x555500000000ul

static ElfW(Dyn) dyn[4];

/* A writable segment [0x2de0, end), RELRO [0x2de0, relro_end) (none when
 * relro_end is 0), a dynamic section with DT_PLTGOT at pltgot (none when
 * 0) and nslots jump slots. */
static int layout(ElfW(Phdr) ph[3], uintptr_t bias, uintptr_t end, uintptr_t relro_end,
                  uintptr_t pltgot, int nslots)
{
    int n = 0;

    memset(ph, 0, 3 * sizeof(*ph));
    ph[n].p_type = PT_LOAD;
    ph[n].p_flags = PF_R | PF_W;
    ph[n].p_vaddr = 0x2de0;
    ph[n++].p_memsz = end - 0x2de0;
    if (relro_end) {
        ph[n].p_type = PT_GNU_RELRO;
        ph[n].p_vaddr = 0x2de0;
        ph[n++].p_memsz = relro_end - 0x2de0;
    }
    if (pltgot) {
        dyn[0].d_tag = DT_PLTGOT;
        dyn[0].d_un.d_ptr = pltgot;
        dyn[1].d_tag = DT_PLTRELSZ;
        dyn[1].d_un.d_val = (ElfW(Xword))nslots * sizeof(ElfW(Rela));
        dyn[2].d_tag = DT_PLTREL;
        dyn[2].d_un.d_val = DT_RELA;
        dyn[3].d_tag = DT_NULL;
        ph[n].p_type = PT_DYNAMIC;
        ph[n++].p_vaddr = (uintptr_t)dyn - bias;
    }
    return n;
}

/* Partial RELRO: .got.plt (3 reserved slots and 2 jump slots) right after
 * RELRO's page-aligned end, then .data and .bss; the dynamic section's
 * DT_PLTGOT relocated (glibc) or as linked. */
static void test_partial_relro(void **state)
{
    ElfW(Phdr) ph[3];
    shmemi_data_range_t r;
    int relocated;

    (void)state;
    for (relocated = 0; relocated < 2; relocated++) {
        int n = layout(ph, BIAS, 0x31e0, 0x3000, (relocated ? BIAS : 0) + 0x3000, 2);
        shmemi_data_range_compute(ph, n, BIAS, PAGE, 0, &r);
        assert_int_equal(r.relro_hi, BIAS + 0x3000);
        assert_int_equal(r.gotplt_lo, BIAS + 0x3000);
        assert_int_equal(r.gotplt_hi, BIAS + 0x3000 + 5 * sizeof(void *));
        assert_int_equal(r.lo, BIAS + 0x3000 + 5 * sizeof(void *));
        assert_int_equal(r.hi, BIAS + 0x31e0);
        assert_int_equal(r.map_lo, BIAS + 0x3000);
        assert_int_equal(r.map_hi, BIAS + 0x4000);
    }
}

/* Full RELRO (-z now): .got.plt is inside RELRO; the data starts at its end. */
static void test_full_relro(void **state)
{
    ElfW(Phdr) ph[3];
    shmemi_data_range_t r;
    int n = layout(ph, BIAS, 0x3100, 0x3000, BIAS + 0x2fd8, 0);

    (void)state;
    shmemi_data_range_compute(ph, n, BIAS, PAGE, 0, &r);
    assert_true(r.gotplt_hi <= r.relro_hi);
    assert_int_equal(r.lo, BIAS + 0x3000);
    assert_int_equal(r.hi, BIAS + 0x3100);
    assert_int_equal(r.map_lo, BIAS + 0x3000);
    assert_int_equal(r.map_hi, BIAS + 0x4000);
}

/* A static program, not relocated: the whole writable segment. */
static void test_static(void **state)
{
    ElfW(Phdr) ph[3];
    shmemi_data_range_t r;
    int n = layout(ph, 0, 0x5000, 0, 0, 0);

    (void)state;
    shmemi_data_range_compute(ph, n, 0, PAGE, 0, &r);
    assert_int_equal(r.lo, 0x2de0);
    assert_int_equal(r.hi, 0x5000);
    assert_int_equal(r.map_lo, 0x2000);
    assert_int_equal(r.map_hi, 0x5000);
    assert_int_equal(r.relro_hi, 0);
    assert_int_equal(r.gotplt_hi, 0);
}

/* RELRO ending inside a page: that page is left out; when nothing is left,
 * there is no data at all. */
static void test_relro_mid_page(void **state)
{
    ElfW(Phdr) ph[3];
    shmemi_data_range_t r;
    int n = layout(ph, BIAS, 0x4800, 0x3010, 0, 0);

    (void)state;
    shmemi_data_range_compute(ph, n, BIAS, PAGE, 0, &r);
    assert_int_equal(r.lo, BIAS + 0x4000);
    assert_int_equal(r.hi, BIAS + 0x4800);
    assert_int_equal(r.map_lo, BIAS + 0x4000);
    n = layout(ph, BIAS, 0x3800, 0x3010, 0, 0);
    shmemi_data_range_compute(ph, n, BIAS, PAGE, 0, &r);
    assert_int_equal(r.hi - r.lo, 0);
    assert_int_equal(r.map_hi - r.map_lo, 0);
}

/* -z norelro -z now: no RELRO; .dynamic, then one .got at 0x32f0 with
 * the 3 reserved slots, 3 jump slots, 6 GLOB_DAT slots (0x3320 to 0x3350),
 * then .data (with a pointer that a RELATIVE relocation fills) and .bss
 * up to 0x3370.  The relocation table lies in a read-only segment of its
 * own; DT_RELA is given relocated or as linked. */
static ElfW(Rela) relocs[8];
#if defined(__aarch64__)
#define T_GLOB_DAT R_AARCH64_GLOB_DAT
#define T_RELATIVE R_AARCH64_RELATIVE
#define T_ABS64    R_AARCH64_ABS64
#else
#define T_GLOB_DAT R_X86_64_GLOB_DAT
#define T_RELATIVE R_X86_64_RELATIVE
#define T_ABS64    R_X86_64_64
#endif

static void test_norelro_now(void **state)
{
    ElfW(Phdr) ph[3];
    ElfW(Dyn) d[8];
    shmemi_data_range_t r;
    int relocated, i;

    (void)state;
    for (i = 0; i < 6; i++) {
        relocs[i].r_offset = 0x3320 + 8 * (uintptr_t)i;
        relocs[i].r_info = ELF64_R_INFO(i + 1, T_GLOB_DAT);
    }
    relocs[6].r_offset = 0x3358;
    relocs[6].r_info = ELF64_R_INFO(0, T_RELATIVE);
    relocs[7].r_offset = 0x3360;
    relocs[7].r_info = ELF64_R_INFO(9, T_ABS64);
    for (relocated = 0; relocated < 2; relocated++) {
        memset(ph, 0, sizeof(ph));
        ph[0].p_type = PT_LOAD;
        ph[0].p_flags = PF_R | PF_W;
        ph[0].p_vaddr = 0x30f0;
        ph[0].p_memsz = 0x3370 - 0x30f0;
        ph[1].p_type = PT_LOAD;
        ph[1].p_flags = PF_R;
        ph[1].p_vaddr = (uintptr_t)relocs - BIAS;
        ph[1].p_memsz = sizeof(relocs);
        ph[2].p_type = PT_DYNAMIC;
        ph[2].p_vaddr = (uintptr_t)d - BIAS;
        d[0].d_tag = DT_PLTGOT;
        d[0].d_un.d_ptr = 0x32f0;
        d[1].d_tag = DT_PLTRELSZ;
        d[1].d_un.d_val = 3 * sizeof(ElfW(Rela));
        d[2].d_tag = DT_PLTREL;
        d[2].d_un.d_val = DT_RELA;
        d[3].d_tag = DT_RELA;
        d[3].d_un.d_ptr = (uintptr_t)relocs - (relocated ? 0 : BIAS);
        d[4].d_tag = DT_RELASZ;
        d[4].d_un.d_val = sizeof(relocs);
        d[5].d_tag = DT_RELAENT;
        d[5].d_un.d_val = sizeof(ElfW(Rela));
        d[6].d_tag = DT_NULL;
        shmemi_data_range_compute(ph, 3, BIAS, PAGE, 0, &r);
        assert_int_equal(r.relro_hi, 0);
        assert_int_equal(r.gotplt_hi, BIAS + 0x32f0 + 6 * sizeof(void *));
        assert_int_equal(r.got_hi, BIAS + 0x3350);
        assert_int_equal(r.lo, BIAS + 0x3350);
        assert_int_equal(r.hi, BIAS + 0x3370);
        assert_int_equal(r.map_lo, BIAS + 0x3000);
    }
}

/* The section headers' end of the dynamic linker's sections, where no
 * relocation names the last GOT slots. */
static void test_owned_end(void **state)
{
    ElfW(Phdr) ph[3];
    shmemi_data_range_t r;
    int n = layout(ph, BIAS, 0x3400, 0, 0, 0);

    (void)state;
    shmemi_data_range_compute(ph, n, BIAS, PAGE, 0x3100, &r);
    assert_int_equal(r.owned_hi, BIAS + 0x3100);
    assert_int_equal(r.lo, BIAS + 0x3100);
    assert_int_equal(r.hi, BIAS + 0x3400);
    /* An end outside the segment (headers of another file) is ignored. */
    shmemi_data_range_compute(ph, n, BIAS, PAGE, 0x9000, &r);
    assert_int_equal(r.owned_hi, 0);
    assert_int_equal(r.lo, BIAS + 0x2de0);
}

/* ---- this program, against its section headers ---- */

struct self {
    const ElfW(Phdr) *ph;
    int phnum;
    uintptr_t bias;
};

static int self_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct self *s = arg;

    (void)size;
    s->ph = info->dlpi_phdr;
    s->phnum = info->dlpi_phnum;
    s->bias = info->dlpi_addr;
    return 1;
}

/* The address and size of section name of /proc/self/exe; 0 when absent. */
static uintptr_t section(const char *name, uintptr_t *size_p)
{
    FILE *f = fopen("/proc/self/exe", "rb");
    ElfW(Ehdr) eh;
    ElfW(Shdr) *sh;
    char *strs;
    uintptr_t addr = 0;
    int i;

    assert_non_null(f);
    assert_int_equal(fread(&eh, sizeof(eh), 1, f), 1);
    sh = calloc(eh.e_shnum, sizeof(*sh));
    assert_non_null(sh);
    assert_int_equal(fseek(f, (long)eh.e_shoff, SEEK_SET), 0);
    assert_int_equal(fread(sh, sizeof(*sh), eh.e_shnum, f), eh.e_shnum);
    strs = malloc(sh[eh.e_shstrndx].sh_size);
    assert_non_null(strs);
    assert_int_equal(fseek(f, (long)sh[eh.e_shstrndx].sh_offset, SEEK_SET), 0);
    assert_int_equal(fread(strs, 1, sh[eh.e_shstrndx].sh_size, f), sh[eh.e_shstrndx].sh_size);
    *size_p = 0;
    for (i = 0; i < eh.e_shnum; i++)
        if (!strcmp(strs + sh[i].sh_name, name)) {
            addr = sh[i].sh_addr;
            *size_p = sh[i].sh_size;
        }
    free(strs);
    free(sh);
    fclose(f);
    return addr;
}

static int overlaps(uintptr_t a, uintptr_t alen, uintptr_t b, uintptr_t blen)
{
    return a < b + blen && b < a + alen;
}

static void test_self(void **state)
{
    struct self s = { 0 };
    shmemi_data_range_t r;
    uintptr_t data, data_len, bss, bss_len, gotplt, gotplt_len, got, got_len, a, len;
    static const char *const owned[] = { ".dynamic", ".init_array", ".fini_array" };
    size_t i;

    (void)state;
    dl_iterate_phdr(self_cb, &s);
    shmemi_data_range_compute(s.ph, s.phnum, s.bias, PAGE,
                              shmemi_data_owned_end("/proc/self/exe", s.ph, s.phnum), &r);
    /* The section headers were read (the file is this program). */
    assert_true(r.owned_hi != 0);
    assert_int_equal(shmemi_data_owned_end("/nonexistent", s.ph, s.phnum), 0);
    data = section(".data", &data_len) + s.bias;
    bss = section(".bss", &bss_len) + s.bias;
    gotplt = section(".got.plt", &gotplt_len);
    got = section(".got", &got_len);
    print_message("symmetric data [%#lx, %#lx); .data [%#lx, +%#lx), .bss [%#lx, +%#lx); "
                  "RELRO [%#lx, %#lx); .got.plt %#lx +%#lx (headers: [%#lx, %#lx))\n",
                  (unsigned long)r.lo, (unsigned long)r.hi, (unsigned long)data,
                  (unsigned long)data_len, (unsigned long)bss, (unsigned long)bss_len,
                  (unsigned long)r.relro_lo, (unsigned long)r.relro_hi,
                  (unsigned long)(gotplt ? gotplt + s.bias : 0), (unsigned long)gotplt_len,
                  (unsigned long)r.gotplt_lo, (unsigned long)r.gotplt_hi);
    assert_true(r.hi > r.lo);
    assert_true(r.lo <= data);
    assert_int_equal(r.hi, bss + bss_len);
    assert_false(overlaps(r.lo, r.hi - r.lo, r.relro_lo, r.relro_hi - r.relro_lo));
    if (gotplt)
        assert_false(overlaps(r.lo, r.hi - r.lo, gotplt + s.bias, gotplt_len));
    if (got)
        assert_false(overlaps(r.lo, r.hi - r.lo, got + s.bias, got_len));
    for (i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        if ((a = section(owned[i], &len)))
            assert_false(overlaps(r.lo, r.hi - r.lo, a + s.bias, len));
    /* Nothing between .got.plt's end (or RELRO's) and .data is left out
     * but alignment padding. */
    assert_true(data - r.lo < 64);
    assert_true(r.map_lo <= r.lo && r.hi <= r.map_hi);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partial_relro),
        cmocka_unit_test(test_full_relro),
        cmocka_unit_test(test_static),
        cmocka_unit_test(test_relro_mid_page),
        cmocka_unit_test(test_norelro_now),
        cmocka_unit_test(test_owned_end),
        cmocka_unit_test(test_self),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
