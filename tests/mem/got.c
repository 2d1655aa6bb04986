/*
 * got: no slot of the program's global offset table, and nothing else
 * that the dynamic linker and the C runtime keep in the writable segment
 * (.dynamic, .init_array, .fini_array), is symmetric (issue 27, item 5: with
 * -z norelro -z now the GLOB_DAT slots at the end of .got were inside the
 * registered data, and a peer's put made a PE run other code at exit).
 * tests/mem/got.sh runs it built three ways: -z norelro -z now (got_nrn),
 * -z norelro -z lazy (got_nrl) and -z lazy (got_lazy, partial RELRO).
 *
 * Each PE reads its own section headers and dynamic relocations from
 * /proc/self/exe and checks, for every PE: shmem_addr_accessible is 0 for
 * every 8-byte word of those sections and every slot a GLOB_DAT or
 * JUMP_SLOT relocation fills, and 1 for a global in .data and one in .bss
 * (the data is symmetric at all).  Then, in SHMEMX_ERRORS_RETURN mode,
 * every PE puts 8 bytes at the address of the last GLOB_DAT slot of its
 * right neighbour: the put must be refused with a message naming
 * shmem_putmem and dest, and every PE's slot must hold what it held.
 */
#define _GNU_SOURCE
#include "common.h"
#include <elf.h>
#include <link.h>
#include <shmemx.h>

long in_data = 42;
long in_bss;

static uintptr_t bias;

static int first_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    bias = info->dlpi_addr;
    return 1;
}

/* The addresses (relocated) that must not be symmetric, into out (up to
 * max); returns their count; *last_glob_p: the last GLOB_DAT slot. */
static size_t forbidden(uintptr_t *out, size_t max, uintptr_t *last_glob_p, int *relro_p)
{
    static const char *const secs[] = { ".got", ".got.plt", ".dynamic", ".init_array",
                                        ".fini_array" };
    FILE *f = fopen("/proc/self/exe", "rb");
    ElfW(Ehdr) eh;
    ElfW(Shdr) *sh;
    ElfW(Phdr) ph;
    char *strs;
    size_t n = 0, i, j, k;

    TEST_ASSERT(f && fread(&eh, sizeof(eh), 1, f) == 1, "cannot read /proc/self/exe");
    *relro_p = 0;
    for (i = 0; i < eh.e_phnum; i++) {
        TEST_ASSERT(!fseek(f, (long)(eh.e_phoff + i * sizeof(ph)), SEEK_SET) &&
                        fread(&ph, sizeof(ph), 1, f) == 1, "program headers");
        *relro_p |= ph.p_type == PT_GNU_RELRO;
    }
    sh = calloc(eh.e_shnum, sizeof(*sh));
    TEST_ASSERT(sh && !fseek(f, (long)eh.e_shoff, SEEK_SET) &&
                    fread(sh, sizeof(*sh), eh.e_shnum, f) == eh.e_shnum, "section headers");
    strs = calloc(1, sh[eh.e_shstrndx].sh_size + 1);
    TEST_ASSERT(strs && !fseek(f, (long)sh[eh.e_shstrndx].sh_offset, SEEK_SET) &&
                    fread(strs, 1, sh[eh.e_shstrndx].sh_size, f) == sh[eh.e_shstrndx].sh_size,
                "section names");
    *last_glob_p = 0;
    for (i = 0; i < eh.e_shnum; i++) {
        const char *name = strs + sh[i].sh_name;

        for (k = 0; k < sizeof(secs) / sizeof(secs[0]); k++)
            if (!strcmp(name, secs[k]))
                for (j = 0; j + 8 <= sh[i].sh_size && n < max; j += 8)
                    out[n++] = bias + sh[i].sh_addr + j;
        if (sh[i].sh_type == SHT_RELA) {
            ElfW(Rela) r;

            for (j = 0; j + sizeof(r) <= sh[i].sh_size; j += sizeof(r)) {
                unsigned long t;

                TEST_ASSERT(!fseek(f, (long)(sh[i].sh_offset + j), SEEK_SET) &&
                                fread(&r, sizeof(r), 1, f) == 1, "relocations");
                t = ELF64_R_TYPE(r.r_info);
#if defined(__aarch64__)
                if (t != R_AARCH64_GLOB_DAT && t != R_AARCH64_JUMP_SLOT)
                    continue;
                if (t == R_AARCH64_GLOB_DAT && bias + r.r_offset > *last_glob_p)
#else
                if (t != R_X86_64_GLOB_DAT && t != R_X86_64_JUMP_SLOT)
                    continue;
                if (t == R_X86_64_GLOB_DAT && bias + r.r_offset > *last_glob_p)
#endif
                    *last_glob_p = bias + r.r_offset;
                if (n < max)
                    out[n++] = bias + r.r_offset;
            }
        }
    }
    free(strs);
    free(sh);
    fclose(f);
    return n;
}

int main(void)
{
    static uintptr_t addrs[4096];
    uintptr_t last_glob, before, after;
    size_t n, i;
    int pe, relro;
    char msg[512];

    test_init("got");
    dl_iterate_phdr(first_cb, NULL);
    n = forbidden(addrs, sizeof(addrs) / sizeof(addrs[0]), &last_glob, &relro);
    TEST_ASSERT(n > 0 && last_glob, "no GOT slot found in /proc/self/exe");
    if (test_me == 0)
        test_note("%zu words of the GOT and the dynamic linker's tables checked (%s)", n,
                  relro ? "with RELRO" : "-z norelro");
    for (pe = 0; pe < test_npes; pe++) {
        for (i = 0; i < n; i++)
            TEST_ASSERT(!shmem_addr_accessible((void *)addrs[i], pe), "%#lx (%s) is symmetric "
                        "on PE %d: a GOT slot or a table of the dynamic linker", (unsigned long)
                        addrs[i], addrs[i] == last_glob ? "the last GLOB_DAT slot" : "", pe);
        TEST_ASSERT(shmem_addr_accessible(&in_data, pe) && shmem_addr_accessible(&in_bss, pe),
                    "a global in .data or .bss is not symmetric on PE %d", pe);
    }
    /* A put into the neighbour's GOT is refused and changes nothing. */
    if (test_npes > 1) {
        memcpy(&before, (void *)last_glob, sizeof(before));
        shmem_barrier_all();
        shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
        shmemx_error_clear();
        shmem_putmem((void *)last_glob, &in_data, sizeof(in_data), (test_me + 1) % test_npes);
        shmem_quiet();
        TEST_ASSERT(shmemx_error_get(msg, sizeof(msg)) != 0 && strstr(msg, "shmem_putmem") &&
                        strstr(msg, "dest"),
                    "a put to a GOT slot was not refused (\"%s\")", msg);
        shmemx_error_clear();
        shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
        shmem_barrier_all();
        memcpy(&after, (void *)last_glob, sizeof(after));
        TEST_ASSERT(before == after, "the last GLOB_DAT slot changed: %#lx -> %#lx",
                    (unsigned long)before, (unsigned long)after);
    }
    /* The data is symmetric: a put to the neighbour's .bss arrives. */
    shmem_long_p(&in_bss, 1000 + test_me, (test_me + 1) % test_npes);
    shmem_barrier_all();
    TEST_CHECK("in_bss from the left neighbour", 0, 1000 + (test_me + test_npes - 1) % test_npes,
               in_bss);
    return test_finish();
}
