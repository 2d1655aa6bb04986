/*
 * Unit test of the transport's request for FI_HMEM (ofi_want_hmem,
 * providers/ofi/ofi_hmem.c) against the libfabric loaded: fi_getinfo only,
 * no endpoint, no GPU.  libfabric 1.17's shm lists an FI_HMEM variant
 * whether or not it was built with CUDA (inject size 0, no atomics), so
 * the choices about it are checked on any machine: the quirk that keeps
 * shm's FI_HMEM off unless FABSHMEM_OFI_SHM_HMEM=1, the capabilities left
 * out to get it (FI_ATOMIC, where AMOs are active messages), and the
 * refusal of an answer that would leave AMOs no way.  Run it with
 * LD_LIBRARY_PATH to a libfabric built by scripts/build-libfabric.sh to
 * check that one too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "providers/ofi/ofi.h"
#include "providers/ofi/ofi_mr.h"

static char logged[2048];

static void log_capture(int level, const char *fmt, ...)
{
    size_t n = strlen(logged);
    va_list ap;

    (void)level;
    va_start(ap, fmt);
    vsnprintf(logged + n, sizeof(logged) - n, fmt, ap);
    va_end(ap);
    n = strlen(logged);
    if (n + 1 < sizeof(logged))
        strcat(logged, "\n");
}

/* 1 when this libfabric's shm answers FI_HMEM for RMA at all. */
static int shm_lists_hmem(void)
{
    struct fi_info *h = fi_allocinfo(), *list = NULL;
    int has;

    assert_non_null(h);
    h->caps = FI_RMA | FI_HMEM;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_HMEM;
    h->fabric_attr->prov_name = strdup("shm");
    has = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &list) == 0 && list;
    if (list)
        fi_freeinfo(list);
    fi_freeinfo(h);
    return has;
}

/* o opened as init would pick shm, with the switches cfg; skips the test
 * where this libfabric has no shm or its shm no FI_HMEM. */
static void open_shm(shmemt_ofi_t *o, const shmemt_ofi_cfg_t *cfg)
{
    memset(o, 0, sizeof(*o));
    o->log.fn = log_capture;
    o->log.level = SHMEMT_LOG_DEBUG;
    o->cfg = *cfg;
    logged[0] = '\0';
    if (ofi_select(o, "shm", 0) || !shm_lists_hmem()) {
        if (o->info)
            fi_freeinfo(o->info);
        skip();
    }
}

static void test_quirk(void **state)
{
    shmemt_ofi_cfg_t cfg = { 0 };
    const char *why;

    (void)state;
    why = ofi_quirk_no_hmem("shm", &cfg);
    assert_non_null(why);
    assert_non_null(strstr(why, "libfabric 2.1"));
    assert_non_null(strstr(why, "FABSHMEM_OFI_SHM_HMEM=1"));
    assert_null(ofi_quirk_no_hmem("tcp;ofi_rxm", &cfg));
    assert_null(ofi_quirk_no_hmem("verbs;ofi_rxm", &cfg));
    cfg.shm_hmem = 1;
    assert_null(ofi_quirk_no_hmem("shm", &cfg));
    /* fabshmem_info's question goes through the same quirk. */
    why = shmemt_ofi_hmem("shm", &cfg);
    assert_true(!why || !strstr(why, "libfabric 2.1"));
    cfg.shm_hmem = 0;
    assert_non_null(strstr(shmemt_ofi_hmem("shm", &cfg), "FABSHMEM_OFI_SHM_HMEM"));
}

/* Without the switch: the transport keeps its answer (atomics, inject),
 * and says why there is no FI_HMEM. */
static void test_shm_default(void **state)
{
    shmemt_ofi_cfg_t cfg = { 0 };
    shmemt_ofi_t o;
    uint64_t caps;
    size_t inject;

    (void)state;
    open_shm(&o, &cfg);
    caps = o.info->caps;
    inject = o.info->tx_attr->inject_size;
    ofi_want_hmem(&o);
    assert_false(o.info->caps & FI_HMEM);
    assert_int_equal(o.info->caps, caps);
    assert_int_equal(o.info->tx_attr->inject_size, inject);
    assert_non_null(strstr(o.pub.hmem_why, "FABSHMEM_OFI_SHM_HMEM=1"));
    fi_freeinfo(o.info);
}

/* With FABSHMEM_OFI_SHM_HMEM=1: FI_HMEM is had, leaving FI_ATOMIC out
 * where shm lists FI_HMEM only without it (1.17), and the log says that
 * AMOs to unmapped PEs then fail when the answer has no inject. */
static void test_shm_switch(void **state)
{
    shmemt_ofi_cfg_t cfg = { .shm_hmem = 1 };
    shmemt_ofi_t o;
    int had_atomic;

    (void)state;
    open_shm(&o, &cfg);
    had_atomic = !!(o.info->caps & FI_ATOMIC);
    ofi_want_hmem(&o);
    assert_true(o.info->caps & FI_HMEM);
    assert_true(o.info->domain_attr->mr_mode & FI_MR_HMEM);
    assert_true(o.info->caps & FI_RMA);
    assert_string_equal(o.pub.hmem_why, "");
    assert_string_equal(o.info->fabric_attr->prov_name, "shm");
    if (had_atomic && !(o.info->caps & FI_ATOMIC))
        assert_non_null(strstr(logged, "offers FI_HMEM only without FI_ATOMIC"));
    if (o.info->tx_attr->inject_size < 56 && !(o.info->caps & FI_ATOMIC))
        assert_non_null(strstr(logged, "AMOs and signals to PEs that are not mapped fail"));
    fi_freeinfo(o.info);
}

/* AMOs by the provider's atomics (FABSHMEM_OFI_AMO=native): FI_ATOMIC is
 * not left out, so where shm has FI_HMEM only without it there is none,
 * and the transport keeps its answer. */
static void test_shm_native_atomics(void **state)
{
    shmemt_ofi_cfg_t cfg = { .shm_hmem = 1, .amo = SHMEMT_AMO_NATIVE };
    shmemt_ofi_t o;
    uint64_t caps;

    (void)state;
    open_shm(&o, &cfg);
    caps = o.info->caps;
    ofi_want_hmem(&o);
    if (!(caps & FI_ATOMIC) || (o.info->caps & FI_HMEM)) {
        /* This shm has FI_HMEM with atomics (or none at all): nothing to
         * check here. */
        fi_freeinfo(o.info);
        skip();
    }
    assert_int_equal(o.info->caps, caps);
    assert_non_null(strstr(o.pub.hmem_why, "offers no FI_HMEM for the shm provider"));
    fi_freeinfo(o.info);
}

/* Whether AMOs have a way with an answer: the refusal of ofi_want_hmem
 * (made-up answers, as fi_getinfo would give them). */
static int amo_way(const char *prov, uint64_t caps, size_t inject, const shmemt_ofi_cfg_t *cfg)
{
    struct fi_info *info = fi_allocinfo();
    int way;

    assert_non_null(info);
    info->caps = caps;
    info->tx_attr->inject_size = inject;
    info->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    way = ofi_hmem_amo_way(prov, info, cfg);
    fi_freeinfo(info);
    return way;
}

static void test_amo_way(void **state)
{
    shmemt_ofi_cfg_t cfg = { 0 }, native = { .amo = SHMEMT_AMO_NATIVE },
                     shm_native = { .amo = SHMEMT_AMO_NATIVE, .shm_atomics = 1 };

    (void)state;
    /* Active messages: an inject of their 56-byte header. */
    assert_true(amo_way("shm", FI_RMA | FI_MSG | FI_ATOMIC, 4096, &cfg));
    assert_true(amo_way("shm", FI_RMA | FI_MSG, 56, &cfg));
    /* shm's FI_HMEM answer (1.17.1): no inject, no atomics. */
    assert_false(amo_way("shm", FI_RMA | FI_MSG | FI_HMEM, 0, &cfg));
    assert_false(amo_way("shm", FI_RMA | FI_MSG | FI_HMEM, 55, &cfg));
    /* shm's atomics are not used unless FABSHMEM_OFI_SHM_ATOMICS=1. */
    assert_false(amo_way("shm", FI_RMA | FI_ATOMIC | FI_HMEM, 0, &native));
    assert_true(amo_way("shm", FI_RMA | FI_ATOMIC | FI_HMEM, 0, &shm_native));
    /* Where the provider's atomics are used, inject does not matter. */
    assert_true(amo_way("sockets", FI_RMA | FI_MSG | FI_ATOMIC, 0, &cfg));
    assert_true(amo_way("verbs;ofi_rxm", FI_RMA | FI_MSG | FI_ATOMIC, 0, &native));
    assert_false(amo_way("verbs;ofi_rxm", FI_RMA | FI_MSG, 0, &cfg));
    assert_true(amo_way("verbs;ofi_rxm", FI_RMA | FI_MSG | FI_HMEM, 64, &cfg));
}

/* The loaded library's version and file, which SHMEM_INFO and
 * fabshmem_info print to tell one libfabric from another. */
static void test_version(void **state)
{
    const char *v = shmemt_ofi_version(), *lib = shmemt_ofi_library();
    uint32_t api = fi_version();
    char prefix[32];

    (void)state;
    snprintf(prefix, sizeof(prefix), "%u.%u", FI_MAJOR(api), FI_MINOR(api));
    assert_memory_equal(v, prefix, strlen(prefix));
    assert_null(strchr(v, ' '));
    assert_non_null(strstr(lib, "libfabric.so"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quirk),
        cmocka_unit_test(test_shm_default),
        cmocka_unit_test(test_shm_switch),
        cmocka_unit_test(test_shm_native_atomics),
        cmocka_unit_test(test_amo_way),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
