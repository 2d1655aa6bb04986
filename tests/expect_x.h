/*
 * Checks of the error-return mode (SHMEMX_ERRORS_RETURN) shared by the
 * programs that test it: the class and the message a refused call leaves
 * in the record (shmemx_error_get).
 */
#ifndef FABSHMEM_TESTS_EXPECT_X_H
#define FABSHMEM_TESTS_EXPECT_X_H

#include "common_x.h"

/* The class and the message of the last failure: class code, a message
 * "rtn: ..." that holds arg. */
static inline void expect_err(int code, const char *rtn, const char *arg, const char *what)
{
    char msg[1024];
    int got = shmemx_error_get(msg, sizeof(msg));
    size_t n = strlen(rtn);

    TEST_ASSERT(got == code, "%s: class %d (%s), expected %d (%s); message \"%s\"", what, got,
                shmemx_strerror(got), code, shmemx_strerror(code), msg);
    TEST_ASSERT(!strncmp(msg, rtn, n) && msg[n] == ':' && strstr(msg + n, arg),
                "%s: the message \"%s\" does not begin with \"%s:\" or does not name %s", what,
                msg, rtn, arg);
}

/* Runs stmt after clearing the record, then checks the record. */
#define EXPECT_ERR(stmt, code, rtn, arg)         \
    do {                                         \
        shmemx_error_clear();                    \
        stmt;                                    \
        expect_err((code), (rtn), (arg), #stmt); \
    } while (0)

/* The same for a routine whose value is checked too. */
#define EXPECT_VAL(expr, want, code, rtn, arg)                                            \
    do {                                                                                  \
        long long v_;                                                                     \
        shmemx_error_clear();                                                             \
        v_ = (long long)(expr);                                                           \
        TEST_ASSERT(v_ == (long long)(want), "%s returned %lld, expected %lld", #expr, v_,  \
                    (long long)(want));                                                   \
        expect_err((code), (rtn), (arg), #expr);                                          \
    } while (0)

/* A status routine that fails with code. */
#define EXPECT_RC(expr, code, rtn, arg) EXPECT_VAL(expr, code, code, rtn, arg)

#endif
