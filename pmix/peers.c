/*
 * The PMIX_LOCAL_PEERS string ("0,1,2,3": the ranks of the job on this
 * node).  Pure parsing, apart from pmix.c so that it builds, and is unit
 * tested, without PMIx.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include "pmix/shmemb.h"

static int peers_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int shmemb_peers_parse(const char *s, int nranks, int *ranks, int max, int *n_p)
{
    int n = 0;

    if (!s || nranks <= 0 || max < 0 || (max > 0 && !ranks))
        return -EINVAL;
    for (;;) {
        long long r = 0;

        while (peers_space(*s))
            s++;
        /* An entry is decimal digits only: no sign, no range, no name. */
        if (*s < '0' || *s > '9')
            return -EINVAL;
        while (*s >= '0' && *s <= '9') {
            r = r * 10 + (*s++ - '0');
            if (r >= nranks)
                return -EINVAL;
        }
        while (peers_space(*s))
            s++;
        if (n == max)
            return -ENOSPC;
        ranks[n++] = (int)r;
        if (*s == '\0')
            break;
        if (*s++ != ',')
            return -EINVAL;
    }
    *n_p = n;
    return 0;
}
