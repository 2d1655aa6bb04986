/*
 * Unit test of the libfabric provider preference (shmemt_ofi_rank_provider):
 * pure logic, no fabric needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "providers/shmemt.h"

static void test_auto_order(void **state)
{
    (void)state;
    assert_int_equal(shmemt_ofi_rank_provider(NULL, "verbs;ofi_rxm"), 0);
    assert_int_equal(shmemt_ofi_rank_provider(NULL, "tcp;ofi_rxm"), 1);
    assert_int_equal(shmemt_ofi_rank_provider(NULL, "sockets"), 2);
    assert_int_equal(shmemt_ofi_rank_provider(NULL, "shm"), 3);
    assert_int_equal(shmemt_ofi_rank_provider("", "tcp;ofi_rxm"), 1);
    assert_true(shmemt_ofi_rank_provider(NULL, "verbs;ofi_rxm") <
                shmemt_ofi_rank_provider(NULL, "tcp;ofi_rxm"));
}

static void test_auto_rejects(void **state)
{
    (void)state;
    /* Bare message providers and unknown ones are not chosen automatically. */
    assert_int_equal(shmemt_ofi_rank_provider(NULL, "tcp"), -1);
    assert_int_equal(shmemt_ofi_rank_provider(NULL, "udp;ofi_rxd"), -1);
    assert_int_equal(shmemt_ofi_rank_provider(NULL, "psm2"), -1);
    assert_int_equal(shmemt_ofi_rank_provider(NULL, ""), -1);
    assert_int_equal(shmemt_ofi_rank_provider(NULL, NULL), -1);
}

static void test_aliases(void **state)
{
    (void)state;
    assert_int_equal(shmemt_ofi_rank_provider("tcp", "tcp;ofi_rxm"), 0);
    assert_int_equal(shmemt_ofi_rank_provider("tcp", "tcp"), -1);
    assert_int_equal(shmemt_ofi_rank_provider("tcp", "sockets"), -1);
    assert_int_equal(shmemt_ofi_rank_provider("TCP", "tcp;ofi_rxm"), 0);
    assert_int_equal(shmemt_ofi_rank_provider("verbs", "verbs;ofi_rxm"), 0);
    assert_int_equal(shmemt_ofi_rank_provider("verbs", "tcp;ofi_rxm"), -1);
    assert_int_equal(shmemt_ofi_rank_provider("rxm", "tcp;ofi_rxm"), 0);
    assert_int_equal(shmemt_ofi_rank_provider("Verbs", "verbs;ofi_rxm"), 0);
}

static void test_named(void **state)
{
    (void)state;
    assert_int_equal(shmemt_ofi_rank_provider("shm", "shm"), 0);
    assert_int_equal(shmemt_ofi_rank_provider("shm", "sockets"), -1);
    assert_int_equal(shmemt_ofi_rank_provider("sockets", "sockets"), 0);
    assert_int_equal(shmemt_ofi_rank_provider("tcp;ofi_rxm", "tcp;ofi_rxm"), 0);
    assert_int_equal(shmemt_ofi_rank_provider("udp;ofi_rxd", "udp;ofi_rxd"), 0);
    assert_int_equal(shmemt_ofi_rank_provider("udp;ofi_rxd", "tcp;ofi_rxm"), -1);
    assert_int_equal(shmemt_ofi_rank_provider("shm", NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_order),
        cmocka_unit_test(test_auto_rejects),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
