/*
 * Unit tests of the maps parser of src/mem/mem_share.c (shmemi_share_parse):
 * which kind of memory a range is, whether node peers can map it, and
 * where in its object it lies, from a made-up maps file.
 */
#define _GNU_SOURCE
#include "mem/mem_share.h"
#include <setjmp.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

static const char maps[] =
    "00400000-00401000 r-xp 00000000 fe:00 123                  /bin/prog\n"
    /* One memfd in two adjacent mappings at consecutive offsets. */
    "7f0000000000-7f0000002000 rw-s 00000000 00:01 1411         /memfd:a (deleted)\n"
    "7f0000002000-7f0000004000 rw-s 00002000 00:01 1411         /memfd:a (deleted)\n"
    /* Another object right after it, then private memory. */
    "7f0000004000-7f0000005000 rw-s 00000000 00:1b 6797         /dev/shm/x\n"
    "7f0000005000-7f0000006000 rw-p 00000000 00:00 0 \n"
    /* A hole, then MAP_SHARED|MAP_ANONYMOUS, System V, a read-only file. */
    "7f0000008000-7f0000009000 rw-s 00000000 00:01 1412         /dev/zero (deleted)\n"
    "7f0000009000-7f000000a000 rw-s 00000000 00:01 393257       /SYSV00000000 (deleted)\n"
    "7f000000a000-7f000000b000 r--s 00000000 fe:00 55           /tmp/ro\n"
    /* A file with a space in its name, mapped from offset 0x3000, then
     * the same file again at an offset that does not follow on. */
    "7f000000c000-7f000000e000 rw-s 00003000 fe:00 56           /tmp/file with space\n"
    "7f000000e000-7f000000f000 rw-s 00000000 fe:00 56           /tmp/file with space\n";

static shmemi_share_t d;
static char path[256];

static int parse(uintptr_t addr, size_t len)
{
    FILE *f = fmemopen((void *)maps, sizeof(maps) - 1, "r");

    assert_non_null(f);
    memset(&d, 0, sizeof(d));
    d.kind = -1;
    shmemi_share_parse(f, addr, len, &d, path, sizeof(path));
    fclose(f);
    return d.why;
}

static void test_merged_memfd(void **state)
{
    assert_int_equal(parse(0x7f0000000100, 0x3000), SHMEMI_SHARE_OK);
    assert_int_equal(d.kind, SHMEMI_SHARE_DELETED);
    assert_true(d.dev == makedev(0, 1));
    assert_int_equal(d.ino, 1411);
    assert_int_equal(d.foff, 0x100);
    assert_int_equal(d.vma_lo, 0x7f0000000000);
    assert_int_equal(d.vma_hi, 0x7f0000002000);
    assert_string_equal(path, "/memfd:a (deleted)");
    /* Starting in the second mapping: its offset counts. */
    assert_int_equal(parse(0x7f0000002010, 0x100), SHMEMI_SHARE_OK);
    assert_int_equal(d.foff, 0x2010);
}

static void test_kinds(void **state)
{
    assert_int_equal(parse(0x7f0000004000, 0x1000), SHMEMI_SHARE_OK);
    assert_int_equal(d.kind, SHMEMI_SHARE_FILE);
    assert_true(d.dev == makedev(0, 0x1b));
    assert_string_equal(path, "/dev/shm/x");
    assert_int_equal(parse(0x7f0000008000, 0x1000), SHMEMI_SHARE_OK);
    assert_int_equal(d.kind, SHMEMI_SHARE_ANON);
    assert_int_equal(parse(0x7f0000009000, 16), SHMEMI_SHARE_OK);
    assert_int_equal(d.kind, SHMEMI_SHARE_SYSV);
    assert_int_equal(d.ino, 393257);
    assert_int_equal(parse(0x7f000000c010, 0x100), SHMEMI_SHARE_OK);
    assert_int_equal(d.kind, SHMEMI_SHARE_FILE);
    assert_int_equal(d.foff, 0x3010);
    assert_string_equal(path, "/tmp/file with space");
}

static void test_refusals(void **state)
{
    /* Private memory; a range that starts private. */
    assert_int_equal(parse(0x7f0000005000, 8), SHMEMI_SHARE_WHY_PRIVATE);
    assert_int_equal(d.kind, SHMEMI_SHARE_PRIVATE);
    assert_int_equal(parse(0x00400010, 8), SHMEMI_SHARE_WHY_PRIVATE);
    /* From one object into the next, from shared into private. */
    assert_int_equal(parse(0x7f0000003000, 0x1800), SHMEMI_SHARE_WHY_SPANS);
    assert_int_equal(parse(0x7f0000004800, 0x1000), SHMEMI_SHARE_WHY_SPANS);
    /* The same file, but the next mapping's offset does not follow on. */
    assert_int_equal(parse(0x7f000000d000, 0x1800), SHMEMI_SHARE_WHY_SPANS);
    /* Holes: inside, at the start, past the last mapping. */
    assert_int_equal(parse(0x7f0000006000, 8), SHMEMI_SHARE_WHY_UNMAPPED);
    assert_int_equal(parse(0x7f000000b000, 0x10), SHMEMI_SHARE_WHY_UNMAPPED);
    assert_int_equal(parse(0x7f000000e800, 0x1000), SHMEMI_SHARE_WHY_UNMAPPED);
    assert_int_equal(parse(0x7f000000a000, 8), SHMEMI_SHARE_WHY_READONLY);
}

static void test_why_text(void **state)
{
    char buf[512];

    shmemi_share_why(SHMEMI_SHARE_WHY_PRIVATE, SHMEMI_SHARE_PRIVATE, 0, buf, sizeof(buf));
    assert_non_null(strstr(buf, "private memory"));
    shmemi_share_why(SHMEMI_SHARE_WHY_OPEN, SHMEMI_SHARE_ANON, EPERM, buf, sizeof(buf));
    assert_non_null(strstr(buf, "map_files"));
    assert_non_null(strstr(buf, strerror(EPERM)));
    shmemi_share_why(SHMEMI_SHARE_WHY_DIRECT_OFF, 0, 0, buf, sizeof(buf));
    assert_non_null(strstr(buf, "FABSHMEM_DIRECT=0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merged_memfd),
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_why_text),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
