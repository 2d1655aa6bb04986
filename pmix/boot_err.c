/*
 * The bootstraps' error messages: printed on stderr as they always were,
 * and kept, the last one of each thread, so that init can put the reason
 * into the error it records (shmemx_error_get: a binding's exception
 * carries it, not only stderr).
 */
#include "pmix/shmemb.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static __thread char last_error[512];

void shmemb_errorf(const char *fmt, ...)
{
    char buf[sizeof(last_error)];
    va_list ap;
    size_t n;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    n = strlen(buf);
    while (n && buf[n - 1] == '\n')
        buf[--n] = '\0';
    fprintf(stderr, "fabshmem error: %s\n", buf);
    fflush(stderr);
    memcpy(last_error, buf, n + 1);
}

const char *shmemb_error_last(void)
{
    return last_error;
}

void shmemb_error_clear(void)
{
    last_error[0] = '\0';
}
