/*
 * Unit tests of the configuration table (src/base/env.c): every type, suffixes,
 * fractions, garbage, overflow, booleans in every spelling, the error
 * messages and the "did you mean" suggestion for unknown FABSHMEM_* names.
 */
#include "core/shmemi.h"
#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

/* ---- capture of what the library writes to stderr ---- */
static FILE *cap_file;
static int cap_saved_fd = -1;
static char cap_buf[8192];

static void capture_start(void)
{
    fflush(stderr);
    cap_file = tmpfile();
    assert_non_null(cap_file);
    cap_saved_fd = dup(STDERR_FILENO);
    assert_true(cap_saved_fd >= 0);
    assert_true(dup2(fileno(cap_file), STDERR_FILENO) >= 0);
}

/* Restores stderr and returns what was written meanwhile. */
static const char *capture_end(void)
{
    size_t n;

    fflush(stderr);
    dup2(cap_saved_fd, STDERR_FILENO);
    close(cap_saved_fd);
    rewind(cap_file);
    n = fread(cap_buf, 1, sizeof(cap_buf) - 1, cap_file);
    cap_buf[n] = '\0';
    fclose(cap_file);
    return cap_buf;
}

/* Parses a NULL-terminated list of NAME=VALUE strings, capturing stderr. */
static int parse_list(char **envp, shmemi_env_t *env, const char **log_p)
{
    int ret;

    capture_start();
    ret = shmemi_env_parse(envp, env);
    *log_p = capture_end();
    return ret;
}

static int parse_one(const char *kv, shmemi_env_t *env, const char **log_p)
{
    char *envp[2] = { (char *)kv, NULL };

    return parse_list(envp, env, log_p);
}

/* ---- sizes ---- */
static void expect_size(const char *s, size_t want)
{
    size_t v = 12345;
    int ret = shmemi_env_parse_size(s, &v);

    if (ret != 0 || v != want)
        fail_msg("size '%s': ret %d value %zu, expected %zu", s, ret, v, want);
}

static void expect_bad_size(const char *s)
{
    size_t v = 12345;
    int ret = shmemi_env_parse_size(s, &v);

    if (ret != -EINVAL || v != 12345)
        fail_msg("size '%s': ret %d value %zu, expected -EINVAL and no change", s, ret, v);
}

static void test_size_plain(void **state)
{
    expect_size("0", 0);
    expect_size("1", 1);
    expect_size("4096", 4096);
    expect_size("  4096  ", 4096);
    expect_size("\t77\n", 77);
    expect_size("1B", 1);
    expect_size("100b", 100);
    expect_size("007", 7);
    expect_size("18446744073709551615", (size_t)18446744073709551615ull);
}

static void test_size_suffixes(void **state)
{
    expect_size("1k", 1024);
    expect_size("1K", 1024);
    expect_size("64kB", 64 * 1024);
    expect_size("64KiB", 64 * 1024);
    expect_size("1m", 1 << 20);
    expect_size("256M", 256ul << 20);
    expect_size("256MB", 256ul << 20);
    expect_size("1g", 1ul << 30);
    expect_size("1G", 1ul << 30);
    expect_size("3GiB", 3ul << 30);
    expect_size("2T", 2ul << 40);
    expect_size("2t", 2ul << 40);
    expect_size(" 8M ", 8ul << 20);
    expect_size("16777215T", 16777215ul << 40);
}

static void test_size_fractions(void **state)
{
    expect_size("3.1M", 3250585);               /* floor(3.1 * 2^20) */
    expect_size("1.5k", 1536);
    expect_size("0.5k", 512);
    expect_size(".5k", 512);
    expect_size("2.", 2);
    expect_size("1.5", 1);
    expect_size("0.001k", 1);                   /* floor(1.024) */
    expect_size("0.0001k", 0);
    expect_size("1.25G", (1ul << 30) + (1ul << 28));
    expect_size("0.1T", 109951162777);          /* floor(0.1 * 2^40) */
    expect_size("1.0000000000000000000000001M", 1 << 20);
    expect_size("16777215.5T", (16777215ul << 40) + (1ul << 39));
}

static void test_size_garbage(void **state)
{
    expect_bad_size("");
    expect_bad_size("   ");
    expect_bad_size("12Q");
    expect_bad_size("M");
    expect_bad_size("k1");
    expect_bad_size("-1");
    expect_bad_size("+1");
    expect_bad_size("1 M");
    expect_bad_size("1.2.3");
    expect_bad_size(".");
    expect_bad_size(".k");
    expect_bad_size("0x10");
    expect_bad_size("1MM");
    expect_bad_size("1BB");
    expect_bad_size("1Mi");
    expect_bad_size("1e6");
    expect_bad_size("12 34");
    expect_bad_size(NULL);
}

static void test_size_overflow(void **state)
{
    expect_bad_size("18446744073709551616");
    expect_bad_size("99999999999999999999999");
    expect_bad_size("16777216T");
    expect_bad_size("17179869184G");
    expect_bad_size("16777215.99999999999T9");
    expect_bad_size("18014398509481984k");
}

/* ---- booleans ---- */
static void test_bool_spellings(void **state)
{
    static const char *yes[] = { "1", "yes", "YES", "Yes", "yEs", "on", "ON", "On", "true",
                                 "TRUE", "True", " 1", "1 ", "  on  ", "\ttrue\n", "y", "Y" };
    static const char *no[] = { "0", "no", "NO", "No", "off", "OFF", "Off", "false", "FALSE",
                                "False", " 0 ", "  off", "no  ", "n", "N" };
    static const char *bad[] = { "", " ", "2", "-1", "01", "yess", "maybe", "o", "of", "tru",
                                 "on1", "1 0", "enable", "nope", NULL };
    size_t i;
    int v;

    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        v = -7;
        if (shmemi_env_parse_bool(yes[i], &v) != 0 || v != 1)
            fail_msg("bool '%s' should be 1 (got %d)", yes[i], v);
    }
    for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        v = -7;
        if (shmemi_env_parse_bool(no[i], &v) != 0 || v != 0)
            fail_msg("bool '%s' should be 0 (got %d)", no[i], v);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = -7;
        if (shmemi_env_parse_bool(bad[i], &v) != -EINVAL || v != -7)
            fail_msg("bool '%s' should be rejected", bad[i] ? bad[i] : "(null)");
    }
}

/* ---- the whole table ---- */
static void test_defaults(void **state)
{
    char *envp[] = { "PATH=/bin", "HOME=/root", "NOEQUALS", "SHMEM_UNKNOWN_OTHER=1", NULL };
    shmemi_env_t env;
    const char *log;

    assert_int_equal(parse_list(envp, &env, &log), 0);
    assert_string_equal(log, "");
    assert_int_equal(env.symmetric_size, 256ul << 20);
    assert_int_equal(env.info, 0);
    assert_int_equal(env.debug, 0);
    assert_int_equal(env.version, 0);
    assert_string_equal(env.provider, "");
    assert_int_equal(env.direct, 1);
    assert_int_equal(env.pes_per_node, 0);
    assert_int_equal(env.progress_thread, 1);
    assert_int_equal(env.progress_interval, 1000);
    assert_int_equal(env.wait_spin, 2000);
    assert_int_equal(env.checks, 0);
    assert_int_equal(env.bootstrap, SHMEMI_ENV_BOOTSTRAP_AUTO);
    /* Nothing was set. */
    assert_false(shmemi_env_is_set(&env, wait_spin));
    assert_false(shmemi_env_is_set(&env, bootstrap));
}

static void test_every_type(void **state)
{
    char *envp[] = { "SHMEM_SYMMETRIC_SIZE=1.5G", "SHMEM_INFO=yes", "SHMEM_DEBUG=On",
                     "FABSHMEM_PROVIDER=tcp", "FABSHMEM_DIRECT=off", "FABSHMEM_PES_PER_NODE= 2 ",
                     "FABSHMEM_WAIT_SPIN=-5", "FABSHMEM_CHECKS=TRUE", "FABSHMEM_BOOTSTRAP=pmix",
                     "FABSHMEM_PROGRESS_INTERVAL=1000000", NULL };
    shmemi_env_t env;
    const char *log;

    assert_int_equal(parse_list(envp, &env, &log), 0);
    assert_string_equal(log, "");
    assert_int_equal(env.symmetric_size, 3ul << 29);
    assert_int_equal(env.info, 1);
    assert_int_equal(env.debug, 1);
    assert_string_equal(env.provider, "tcp");
    assert_int_equal(env.direct, 0);
    assert_int_equal(env.pes_per_node, 2);
    assert_int_equal(env.wait_spin, -5);
    assert_int_equal(env.checks, 1);
    assert_int_equal(env.bootstrap, SHMEMI_ENV_BOOTSTRAP_PMIX);
    assert_true(env.progress_interval == 1000000);
}

/* The rows of type INT_IN(lo, hi): lo and hi pass, one beyond either end
 * fails with a message naming the variable, the value and the range (the
 * three that were caught only when the teams were made, issue 27, among
 * them), and the field keeps its value. */
static void test_int_ranges(void **state)
{
    static const struct { const char *var; long lo, hi; const char *range; } rows[] = {
        { "FABSHMEM_TEAM_UIDS", 1, 4096, "1 to 4096" },
        { "FABSHMEM_COLL_DELAY", 0, 1000000, "0 to 1000000" },
        { "FABSHMEM_NUMA_DOMAINS", 0, 4096, "0 to 4096" },
        { "FABSHMEM_WATCHDOG", 0, 86400, "0 to 86400" },
        { "FABSHMEM_PROGRESS_INTERVAL", 1, 1000000, "1 to 1000000" },
        { "FABSHMEM_CTX_ENDPOINTS", 0, 4096, "0 to 4096" },
        { "FABSHMEM_TEAMS_MAX", SHMEMI_ENV_TEAMS_MAX_MIN, 4096, "73 to 4096" },
        { "FABSHMEM_PES_PER_NODE", 0, LONG_MAX, "0 or more" },
        { "FABSHMEM_BOOTSTRAP_TIMEOUT", 1, LONG_MAX, "1 or more" },
    };
    char kv[128], want[160];
    shmemi_env_t env;
    const char *log;
    size_t i;
    int k;

    (void)state;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        for (k = 0; k < 4; k++) {
            long v;
            int ok = k < 2;

            /* Past the ends only where there is a past (hi + 1 of LONG_MAX
             * would overflow: UBSan ends the test). */
            if ((k == 2 && rows[i].lo == LONG_MIN) || (k == 3 && rows[i].hi == LONG_MAX))
                continue;
            v = k == 0 ? rows[i].lo : k == 1 ? rows[i].hi : k == 2 ? rows[i].lo - 1 : rows[i].hi + 1;
            snprintf(kv, sizeof(kv), "%s=%ld", rows[i].var, v);
            if (ok) {
                assert_int_equal(parse_one(kv, &env, &log), 0);
                assert_string_equal(log, "");
                continue;
            }
            if (parse_one(kv, &env, &log) != -EINVAL)
                fail_msg("'%s' should be rejected", kv);
            snprintf(want, sizeof(want), "%s: invalid value %ld (expected %s)", rows[i].var, v,
                     rows[i].range);
            if (!strstr(log, want))
                fail_msg("'%s': the message \"%s\" lacks \"%s\"", kv, log, want);
        }
    }
}

static void test_int_values(void **state)
{
    static const struct { const char *kv; long v; } good[] = {
        { "FABSHMEM_WAIT_SPIN=0", 0 }, { "FABSHMEM_WAIT_SPIN=123", 123 },
        { "FABSHMEM_WAIT_SPIN=+7", 7 }, { "FABSHMEM_WAIT_SPIN=  42  ", 42 },
        { "FABSHMEM_WAIT_SPIN=-9223372036854775808", LONG_MIN },
    };
    static const char *bad[] = {
        "FABSHMEM_WAIT_SPIN=", "FABSHMEM_WAIT_SPIN=  ", "FABSHMEM_WAIT_SPIN=12abc",
        "FABSHMEM_WAIT_SPIN=0x10", "FABSHMEM_WAIT_SPIN=1.5", "FABSHMEM_WAIT_SPIN=1k",
        "FABSHMEM_WAIT_SPIN=9223372036854775808", "FABSHMEM_WAIT_SPIN=-9223372036854775809",
        "FABSHMEM_WAIT_SPIN=1 2", "FABSHMEM_WAIT_SPIN=ten",
    };
    shmemi_env_t env;
    const char *log;
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        assert_int_equal(parse_one(good[i].kv, &env, &log), 0);
        assert_true(env.wait_spin == good[i].v);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        env.wait_spin = 31337;
        if (parse_one(bad[i], &env, &log) != -EINVAL)
            fail_msg("'%s' should be rejected", bad[i]);
        assert_true(env.wait_spin == 31337);
        assert_non_null(strstr(log, "FABSHMEM_WAIT_SPIN: invalid integer '"));
    }
}

static void test_empty_string_keeps_default(void **state)
{
    char *envp[] = { "FABSHMEM_BOOTSTRAP=", "FABSHMEM_PROVIDER=", NULL };
    shmemi_env_t env;
    const char *log;

    assert_int_equal(parse_list(envp, &env, &log), 0);
    assert_int_equal(env.bootstrap, SHMEMI_ENV_BOOTSTRAP_AUTO);
    assert_string_equal(env.provider, "");
    /* Set, if empty. */
    assert_true(shmemi_env_is_set(&env, bootstrap));
    assert_true(shmemi_env_is_set(&env, provider));
}

/* CHOICE: every value of the rows, any case and blanks around; the
 * boolean spellings where the values are 0 and 1; a bad value fails
 * naming the variable, the value and the values there are, and leaves the
 * out-argument alone. */
static void test_choice(void **state)
{
    static const struct { const char *kv; int v; } good[] = {
        { "FABSHMEM_BOOTSTRAP=auto", SHMEMI_ENV_BOOTSTRAP_AUTO },
        { "FABSHMEM_BOOTSTRAP=pmix", SHMEMI_ENV_BOOTSTRAP_PMIX },
        { "FABSHMEM_BOOTSTRAP=singleton", SHMEMI_ENV_BOOTSTRAP_SINGLETON },
        { "FABSHMEM_BOOTSTRAP= UID ", SHMEMI_ENV_BOOTSTRAP_UID },
        { "FABSHMEM_CUDA_REMOTE=staged", SHMEMI_ENV_CUDA_REMOTE_STAGED },
        { "FABSHMEM_CUDA_REMOTE=Hmem", SHMEMI_ENV_CUDA_REMOTE_HMEM },
        { "FABSHMEM_CUDA=1", SHMEMI_ENV_CUDA_ON },
        { "FABSHMEM_CUDA=yes", SHMEMI_ENV_CUDA_ON },
        { "FABSHMEM_CUDA=off", SHMEMI_ENV_CUDA_OFF },
        { "FABSHMEM_CUDA=AUTO", SHMEMI_ENV_CUDA_AUTO },
        { "FABSHMEM_OVERSUBSCRIBED=true", SHMEMI_ENV_OVERSUBSCRIBED_ON },
        { "FABSHMEM_OVERSUBSCRIBED=0", SHMEMI_ENV_OVERSUBSCRIBED_OFF },
        { "FABSHMEM_STREAM_OFFLOAD=no", SHMEMI_ENV_STREAM_OFFLOAD_OFF },
    };
    shmemi_env_t env;
    const char *log;
    int v;
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        if (parse_one(good[i].kv, &env, &log))
            fail_msg("'%s' should be taken: %s", good[i].kv, log);
        if (!strncmp(good[i].kv, "FABSHMEM_BOOTSTRAP=", 19))
            v = env.bootstrap;
        else if (!strncmp(good[i].kv, "FABSHMEM_CUDA_REMOTE=", 21))
            v = env.cuda_remote;
        else if (!strncmp(good[i].kv, "FABSHMEM_CUDA=", 14))
            v = env.cuda;
        else if (!strncmp(good[i].kv, "FABSHMEM_OVERSUBSCRIBED=", 24))
            v = env.oversubscribed;
        else
            v = env.stream_offload;
        if (v != good[i].v)
            fail_msg("'%s' parsed as %s", good[i].kv, shmemi_env_choice_name(v));
    }
    assert_string_equal(shmemi_env_choice_name(SHMEMI_ENV_CUDA_REMOTE_HMEM), "hmem");

    memset(&env, 0x5a, sizeof(env));
    assert_int_equal(parse_one("FABSHMEM_BOOTSTRAP=mpi", &env, &log), -EINVAL);
    assert_non_null(strstr(log, "FABSHMEM_BOOTSTRAP: unknown value 'mpi' (expected one of: "
                                "auto, pmix, singleton, uid)"));
    assert_int_equal(env.bootstrap, 0x5a5a5a5a);
    /* A choice without 0 and 1 takes no boolean. */
    assert_int_equal(parse_one("FABSHMEM_CUDA_REMOTE=1", &env, &log), -EINVAL);
    assert_non_null(strstr(log, "FABSHMEM_CUDA_REMOTE: unknown value '1' (expected one of: "
                                "auto, hmem, staged)"));
    assert_int_equal(parse_one("FABSHMEM_CUDA=maybe", &env, &log), -EINVAL);
    assert_non_null(strstr(log, "FABSHMEM_CUDA: unknown value 'maybe' (expected one of: "
                                "auto, 1, 0)"));
}

/* The "is set" bit: set for exactly the variables of the environment
 * (even empty, even when the value equals the default), whatever their
 * type; clear for the others. */
static void test_is_set(void **state)
{
    char *envp[] = { "FABSHMEM_WAIT_SPIN=2000", "FABSHMEM_CUDA=auto", "FABSHMEM_DIRECT=1",
                     "FABSHMEM_PROVIDER=", "SHMEM_SYMMETRIC_SIZE=1M", NULL };
    shmemi_env_t env;
    const char *log;

    assert_int_equal(parse_list(envp, &env, &log), 0);
    assert_int_equal(env.wait_spin, 2000);
    assert_true(shmemi_env_is_set(&env, wait_spin));
    assert_true(shmemi_env_is_set(&env, cuda));
    assert_true(shmemi_env_is_set(&env, direct));
    assert_true(shmemi_env_is_set(&env, provider));
    assert_true(shmemi_env_is_set(&env, symmetric_size));
    assert_false(shmemi_env_is_set(&env, bootstrap));
    assert_false(shmemi_env_is_set(&env, checks));
    assert_false(shmemi_env_is_set(&env, oversubscribed));
}

static void test_error_messages(void **state)
{
    shmemi_env_t env;
    const char *log;

    memset(&env, 0x5a, sizeof(env));
    assert_int_equal(parse_one("SHMEM_SYMMETRIC_SIZE=12Q", &env, &log), -EINVAL);
    assert_non_null(strstr(log, "SHMEM_SYMMETRIC_SIZE: invalid size '12Q' (expected a number "
                                "with an optional k/M/G/T suffix)"));
    /* The out-argument is set only on success. */
    assert_int_equal(env.info, 0x5a5a5a5a);

    assert_int_equal(parse_one("FABSHMEM_DIRECT=maybe", &env, &log), -EINVAL);
    assert_non_null(strstr(log, "FABSHMEM_DIRECT"));
    assert_non_null(strstr(log, "'maybe'"));

    assert_int_equal(parse_one("SHMEM_SYMMETRIC_SIZE=99999999999T", &env, &log), -EINVAL);
    assert_non_null(strstr(log, "'99999999999T'"));

    assert_int_equal(parse_one("SHMEM_SYMMETRIC_SIZE=0", &env, &log), -EINVAL);
    assert_non_null(strstr(log, "SHMEM_SYMMETRIC_SIZE"));
    assert_int_equal(parse_one("SHMEM_SYMMETRIC_SIZE=0.0000001k", &env, &log), -EINVAL);

    /* Every bad value is reported, not only the first. */
    {
        char *envp[] = { "SHMEM_INFO=2", "FABSHMEM_WAIT_SPIN=x", NULL };

        assert_int_equal(parse_list(envp, &env, &log), -EINVAL);
        assert_non_null(strstr(log, "SHMEM_INFO"));
        assert_non_null(strstr(log, "FABSHMEM_WAIT_SPIN"));
    }
}

static void test_unknown_suggestion(void **state)
{
    static const struct { const char *kv, *near; } typos[] = {
        { "FABSHMEM_DIRCT=0", "FABSHMEM_DIRECT" },
        { "FABSHMEM_DIRECTT=0", "FABSHMEM_DIRECT" },
        { "FABSHMEM_PES_PER_NOD=2", "FABSHMEM_PES_PER_NODE" },
        { "FABSHMEM_PE_PER_NODE=2", "FABSHMEM_PES_PER_NODE" },
        { "FABSHMEM_provider=tcp", "FABSHMEM_PROVIDER" },
        { "FABSHMEM_PROVDIER=tcp", "FABSHMEM_PROVIDER" },
        { "FABSHMEM_CHECK=1", "FABSHMEM_CHECKS" },
        { "FABSHMEM_SYMMETRIC_SIZE=1M", "SHMEM_SYMMETRIC_SIZE" },
        { "FABSHMEM_WAITSPIN=3", "FABSHMEM_WAIT_SPIN" },
    };
    shmemi_env_t env;
    char want[128];
    const char *log;
    size_t i;

    for (i = 0; i < sizeof(typos) / sizeof(typos[0]); i++) {
        assert_int_equal(parse_one(typos[i].kv, &env, &log), 0);
        snprintf(want, sizeof(want), "did you mean %s?", typos[i].near);
        if (!strstr(log, want))
            fail_msg("%s: expected '%s' in: %s", typos[i].kv, want, log);
    }
    /* The misspelled variable has no effect. */
    assert_int_equal(parse_one("FABSHMEM_DIRCT=0", &env, &log), 0);
    assert_int_equal(env.direct, 1);

    /* A name far from every variable gets a warning without a suggestion. */
    assert_int_equal(parse_one("FABSHMEM_XYZZY_FROBNICATE=1", &env, &log), 0);
    assert_non_null(strstr(log, "FABSHMEM_XYZZY_FROBNICATE"));
    assert_null(strstr(log, "did you mean"));

    /* Names of other libraries and unknown SHMEM_* names stay quiet. */
    assert_int_equal(parse_one("SHMEM_FOO=1", &env, &log), 0);
    assert_string_equal(log, "");
    assert_int_equal(parse_one("FI_PROVIDER=tcp", &env, &log), 0);
    assert_string_equal(log, "");
}

static void test_environ(void **state)
{
    shmemi_env_t env;
    const char *log;
    int ret;

    setenv("FABSHMEM_WAIT_SPIN", "77", 1);
    setenv("SHMEM_SYMMETRIC_SIZE", "3.1M", 1);
    capture_start();
    ret = shmemi_env_parse(NULL, &env);
    log = capture_end();
    unsetenv("FABSHMEM_WAIT_SPIN");
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    assert_int_equal(ret, 0);
    (void)log;
    assert_int_equal(env.wait_spin, 77);
    assert_int_equal(env.symmetric_size, 3250585);
}

/* Prints into a temporary file and returns the text. */
static const char *print_text(const shmemi_env_t *env, int markdown)
{
    static char text[1 << 18];
    FILE *fp = tmpfile();
    size_t n;

    assert_non_null(fp);
    shmemi_env_print(fp, env, markdown);
    rewind(fp);
    n = fread(text, 1, sizeof(text) - 1, fp);
    /* The whole table, or the rows past the buffer would be missed. */
    assert_true(n < sizeof(text) - 1);
    text[n] = '\0';
    fclose(fp);
    return text;
}

static void test_print(void **state)
{
    static const char *names[] = {
#define X(field, var, type, def, doc) #var,
#include "base/env.def"
#undef X
    };
    char *envp[] = { "SHMEM_SYMMETRIC_SIZE=1G", "FABSHMEM_PROVIDER=shm", NULL };
    shmemi_env_t env;
    const char *log, *text;
    size_t i;

    assert_int_equal(parse_list(envp, &env, &log), 0);
    text = print_text(&env, 0);
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        assert_non_null(strstr(text, names[i]));
    assert_non_null(strstr(text, "1073741824 (1G)"));
    assert_non_null(strstr(text, "[256M]"));
    assert_non_null(strstr(text, "\"shm\""));
    assert_non_null(strstr(text, "Bytes of symmetric heap per PE"));

    text = print_text(NULL, 1);
    assert_non_null(strstr(text, "| Variable | Type | Default | Meaning |"));
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char row[64];

        snprintf(row, sizeof(row), "| `%s` |", names[i]);
        assert_non_null(strstr(text, row));
    }
    assert_non_null(strstr(text, "| `SHMEM_SYMMETRIC_SIZE` | SIZE | `256M` |"));
    /* A choice lists its values. */
    assert_non_null(strstr(text, "| `FABSHMEM_BOOTSTRAP` | CHOICE: `auto`, `pmix`, `singleton`, "
                                 "`uid` | `auto` |"));
    assert_non_null(strstr(text, "| `FABSHMEM_TEAM_UIDS` | INT (1 to 4096) | `64` |"));
    assert_non_null(strstr(text, "FABSHMEM_CHECKS=1"));
    assert_non_null(strstr(text, "did you mean"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_plain),
        cmocka_unit_test(test_size_suffixes),
        cmocka_unit_test(test_size_fractions),
        cmocka_unit_test(test_size_garbage),
        cmocka_unit_test(test_size_overflow),
        cmocka_unit_test(test_bool_spellings),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_type),
        cmocka_unit_test(test_int_values),
        cmocka_unit_test(test_int_ranges),
        cmocka_unit_test(test_empty_string_keeps_default),
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_is_set),
        cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_unknown_suggestion),
        cmocka_unit_test(test_environ),
        cmocka_unit_test(test_print),
    };

    /* Other tests of the same run must not change what is parsed here. */
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    unsetenv("FABSHMEM_WAIT_SPIN");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
