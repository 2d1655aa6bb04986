/*
 * Unit test of the libfabric provider's configuration: the switches of the
 * init arguments (shmemt_ofi_cfg_t, from FABSHMEM_OFI_* through the core)
 * reach the per-provider quirks (ofi_quirks_for), the choice tables that
 * the core parses those variables with, and the logging through the
 * function of the init arguments.  Pure logic: a made-up fi_info, no
 * fabric.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "providers/ofi/ofi.h"
#include "providers/ofi/ofi_post.h"

/* A provider as fi_getinfo would describe it. */
static struct fi_info *fake_info(uint64_t caps, enum fi_progress progress, uint64_t msg_order)
{
    struct fi_info *info = fi_allocinfo();

    assert_non_null(info);
    info->caps = caps;
    info->domain_attr->data_progress = progress;
    info->tx_attr->msg_order = msg_order;
    return info;
}

static ofi_quirks_t quirks(const char *prov, uint64_t caps, const shmemt_ofi_cfg_t *cfg)
{
    struct fi_info *info = fake_info(caps, FI_PROGRESS_MANUAL, FI_ORDER_RMA_WAW);
    ofi_quirks_t q;

    ofi_quirks_for(prov, info, cfg, &q);
    fi_freeinfo(info);
    return q;
}

static const uint64_t all_caps = FI_RMA | FI_ATOMIC | FI_MSG;

static void test_defaults(void **state)
{
    shmemt_ofi_cfg_t cfg = { 0 };
    ofi_quirks_t q;

    (void)state;
    q = quirks("tcp;ofi_rxm", all_caps, &cfg);
    assert_int_equal(q.rc_mode, OFI_RC_DELIVERY);
    assert_int_equal(q.needs_progress, 1);
    assert_int_equal(q.ordered_writes, 1);
    assert_int_equal(q.am, 1);
    assert_int_equal(q.force_mr_local, 0);
    assert_int_equal(q.no_threads, 0);
    /* Anyone who reaches the port may send: active messages carry a MAC. */
    assert_int_equal(q.same_user, 0);
    /* Its FI_HMEM (where a libfabric has one) would copy with CUDA calls:
     * the device API's proxy stages instead. */
    assert_int_equal(q.hmem_copies, 1);
    q = quirks("verbs;ofi_rxm", all_caps, &cfg);
    assert_int_equal(q.rc_mode, OFI_RC_NATIVE);
    assert_int_equal(q.same_user, 0);
    /* The NIC reads GPU memory itself (GPUDirect RDMA). */
    assert_int_equal(q.hmem_copies, 0);
    q = quirks("shm", all_caps, &cfg);
    assert_int_equal(q.rc_mode, OFI_RC_DELIVERY);
    assert_int_equal(q.no_atomics, 1);
    assert_int_equal(q.no_threads, 1);
    assert_int_equal(q.fd_blind, 1);
    assert_int_equal(q.base_atomic_wait, 1);
    assert_int_equal(q.same_user, 1);
    assert_int_equal(q.hmem_copies, 1);
    /* sockets keeps its own atomics, applied by its own threads. */
    q = quirks("sockets", all_caps, &cfg);
    assert_int_equal(q.am, 0);
    assert_int_equal(q.hmem_copies, 1);
    assert_int_equal(q.needs_progress, 0);
    q = quirks("sockets", FI_RMA | FI_MSG, &cfg);
    assert_int_equal(q.am, 1);
}

static void test_rc_mode_reaches_quirks(void **state)
{
    shmemt_ofi_cfg_t cfg = { 0 };

    (void)state;
    cfg.rc_mode = SHMEMT_RC_FLUSH;
    assert_int_equal(quirks("tcp;ofi_rxm", all_caps, &cfg).rc_mode, OFI_RC_FLUSH);
    cfg.rc_mode = SHMEMT_RC_NATIVE;
    assert_int_equal(quirks("tcp;ofi_rxm", all_caps, &cfg).rc_mode, OFI_RC_NATIVE);
    assert_int_equal(quirks("shm", all_caps, &cfg).rc_mode, OFI_RC_NATIVE);
    cfg.rc_mode = SHMEMT_RC_DELIVERY;
    assert_int_equal(quirks("verbs;ofi_rxm", all_caps, &cfg).rc_mode, OFI_RC_DELIVERY);
}

static void test_amo_reaches_quirks(void **state)
{
    shmemt_ofi_cfg_t cfg = { 0 };

    (void)state;
    cfg.amo = SHMEMT_AMO_NATIVE;
    assert_int_equal(quirks("tcp;ofi_rxm", all_caps, &cfg).am, 0);
    cfg.amo = SHMEMT_AMO_AM;
    assert_int_equal(quirks("sockets", all_caps, &cfg).am, 1);
    /* Active messages need messages. */
    assert_int_equal(quirks("sockets", FI_RMA | FI_ATOMIC, &cfg).am, 0);
    cfg.amo = SHMEMT_AMO_AUTO;
    assert_int_equal(quirks("shm", all_caps, &cfg).am, 1);
}

static void test_switches_reach_quirks(void **state)
{
    shmemt_ofi_cfg_t cfg = { 0 };

    (void)state;
    cfg.mr_local = 1;
    assert_int_equal(quirks("tcp;ofi_rxm", all_caps, &cfg).force_mr_local, 1);
    cfg.shm_atomics = 1;
    assert_int_equal(quirks("shm", all_caps, &cfg).no_atomics, 0);
    assert_int_equal(quirks("tcp;ofi_rxm", all_caps, &cfg).no_atomics, 0);
}

/* The value of name in a choice table, or -1. */
static int choice(const shmemt_choice_t *c, const char *name)
{
    for (; c->name; c++)
        if (!strcmp(c->name, name))
            return c->value;
    return -1;
}

static void test_choice_tables(void **state)
{
    (void)state;
    assert_int_equal(choice(shmemt_ofi_rc_modes, ""), SHMEMT_RC_DEFAULT);
    assert_int_equal(choice(shmemt_ofi_rc_modes, "delivery"), SHMEMT_RC_DELIVERY);
    assert_int_equal(choice(shmemt_ofi_rc_modes, "flush"), SHMEMT_RC_FLUSH);
    assert_int_equal(choice(shmemt_ofi_rc_modes, "native"), SHMEMT_RC_NATIVE);
    assert_int_equal(choice(shmemt_ofi_rc_modes, "zzz"), -1);
    assert_int_equal(choice(shmemt_ofi_amo_modes, "auto"), SHMEMT_AMO_AUTO);
    assert_int_equal(choice(shmemt_ofi_amo_modes, "am"), SHMEMT_AMO_AM);
    assert_int_equal(choice(shmemt_ofi_amo_modes, "native"), SHMEMT_AMO_NATIVE);
    assert_int_equal(choice(shmemt_ofi_amo_modes, "1"), SHMEMT_AMO_AM);
    assert_int_equal(choice(shmemt_ofi_amo_modes, "0"), SHMEMT_AMO_NATIVE);
    assert_int_equal(choice(shmemt_ofi_amo_modes, "fast"), -1);
}

/* What the transport logged through the init arguments' function. */
static char logged[512];
static int logged_level, n_logged;

static void log_capture(int level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(logged, sizeof(logged), fmt, ap);
    va_end(ap);
    logged_level = level;
    n_logged++;
}

static void test_logging(void **state)
{
    shmemt_ofi_t o;
    ofi_retry_t r;

    (void)state;
    memset(&o, 0, sizeof(o));
    o.log.fn = log_capture;
    o.log.level = SHMEMT_LOG_WARN;
    n_logged = 0;
    /* A post that failed: the message, libfabric's reason, -EIO. */
    ofi_retry_init(&r, 0);
    assert_int_equal(ofi_post_failed(&o, &r, -FI_EINVAL, "fi_write of %d bytes to PE %d", 8, 1),
                     -EIO);
    assert_int_equal(n_logged, 1);
    assert_int_equal(logged_level, SHMEMT_LOG_ERR);
    assert_string_equal(logged, "fi_write of 8 bytes to PE 1: Invalid argument");
    /* The retries gave up on a wait, which logged why itself. */
    r.wait_err = -ETIMEDOUT;
    assert_int_equal(ofi_post_failed(&o, &r, -ETIMEDOUT, "fi_read"), -ETIMEDOUT);
    assert_int_equal(n_logged, 1);
    /* Below the level: nothing; at or above: printed. */
    ofi_info_log(&o, "ofi: provider %s", "tcp;ofi_rxm");
    assert_int_equal(n_logged, 1);
    o.log.level = SHMEMT_LOG_DEBUG;
    ofi_info_log(&o, "ofi: provider %s", "tcp;ofi_rxm");
    assert_int_equal(n_logged, 2);
    assert_int_equal(logged_level, SHMEMT_LOG_INFO);
    assert_string_equal(logged, "ofi: provider tcp;ofi_rxm");
    /* No function (the calls that need no init): silent. */
    o.log.fn = NULL;
    ofi_err(&o, "not printed");
    assert_int_equal(n_logged, 2);
}

static void test_retry_bounds(void **state)
{
    shmemt_ofi_t o;
    ofi_retry_t r;
    ssize_t rc = 0;

    (void)state;
    memset(&o, 0, sizeof(o));
    ofi_retry_init(&r, 1);
    /* Anything but -FI_EAGAIN ends the retries at once. */
    assert_int_equal(ofi_retry(&o, &r, &rc, "fi_write"), 0);
    rc = -FI_EIO;
    assert_int_equal(ofi_retry(&o, &r, &rc, "fi_write"), 0);
    assert_int_equal(rc, -FI_EIO);
    /* A limit of one try: -FI_EAGAIN stays, without waiting. */
    rc = -FI_EAGAIN;
    assert_int_equal(ofi_retry(&o, &r, &rc, "fi_write"), 0);
    assert_int_equal(rc, -FI_EAGAIN);
    assert_int_equal(r.wait_err, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_rc_mode_reaches_quirks),
        cmocka_unit_test(test_amo_reaches_quirks),
        cmocka_unit_test(test_switches_reach_quirks),
        cmocka_unit_test(test_choice_tables),
        cmocka_unit_test(test_logging),
        cmocka_unit_test(test_retry_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
