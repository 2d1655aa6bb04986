/*
 * The hang diagnostic (FABSHMEM_WATCHDOG, core/sync.h): a wait that lasts
 * longer than FABSHMEM_WATCHDOG seconds is reported, once, with what it
 * waits for; then it goes on (or, with FABSHMEM_WATCHDOG_ABORT=1, the job
 * ends).
 *
 * Two kinds of waits.  A wait that polls (shmemi_wait_backoff) times
 * itself: its thread reads the clock now and then (shmemi_wd_tick) and
 * reports.  A wait that blocks (the transport's quiet, inside the
 * provider; a stream sync, on a condition variable) cannot: it registers
 * itself (shmemi_wait_block_begin/end), and a watchdog thread, started by
 * the first such wait, looks at the registered waits four times a second.
 */
#define _GNU_SOURCE
#include "core/sync.h"
#include <signal.h>
#include <time.h>

__thread const shmemi_wait_site_t *shmemi_wait_site;
__thread shmemi_wait_what_t shmemi_wait_what;

const char *shmemi_cmp_name(int cmp)
{
    static const char *const names[] = { "==", "!=", ">", ">=", "<", "<=" };

    return cmp >= 0 && cmp < 6 ? names[cmp] : "?";
}

static double wd_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The report of a wait that lasted secs, into buf: in site's routine (or
 * rtn, or "a wait"), what w says it waits for (w may be NULL), and what
 * site's describe adds. */
static void __attribute__((noinline, cold)) wd_format(char *buf, size_t len, double secs,
                                                      const shmemi_wait_site_t *site,
                                                      const shmemi_wait_what_t *w, const char *rtn)
{
    char word[200] = "", more[1536] = "";
    uint64_t now = 0;

    if (w && w->addr) {
        switch (w->size) {
        case 1: now = __atomic_load_n((const volatile uint8_t *)w->addr, __ATOMIC_RELAXED); break;
        case 2: now = __atomic_load_n((const volatile uint16_t *)w->addr, __ATOMIC_RELAXED); break;
        case 4: now = __atomic_load_n((const volatile uint32_t *)w->addr, __ATOMIC_RELAXED); break;
        default: now = __atomic_load_n((const volatile uint64_t *)w->addr, __ATOMIC_RELAXED);
        }
        if (w->nelems)
            snprintf(word, sizeof(word), "; it waits for %s %zu words at %p to compare %s "
                     "%llu (the first holds %llu)", w->nelems == 1 ? "the" : "some of the",
                     w->nelems, (const void *)w->addr, w->cmp, (unsigned long long)w->value,
                     (unsigned long long)now);
        else
            snprintf(word, sizeof(word), "; it waits until the word at %p is %s %llu (0x%llx); "
                     "it holds %llu (0x%llx)", (const void *)w->addr, w->cmp,
                     (unsigned long long)w->value, (unsigned long long)w->value,
                     (unsigned long long)now, (unsigned long long)now);
    }
    if (site && site->describe)
        site->describe(site, w ? w->addr : NULL, w ? w->value : 0, more, sizeof(more));
    snprintf(buf, len, "watchdog: PE %d has waited %.1f s in %s%s%s%s", shmemi_g.my_pe, secs,
             site ? site->rtn : rtn ? rtn : "a wait", word, more[0] ? "; " : "",  more);
}

/* Prints a report, then ends the job with FABSHMEM_WATCHDOG_ABORT=1. */
static void __attribute__((noinline, cold)) wd_emit(const char *report)
{
    shmemi_log_emit(shmemi_g.env.watchdog_abort ? SHMEMI_LOG_ERR : SHMEMI_LOG_WARN, "%s",
                    report);
    if (shmemi_g.env.watchdog_abort)
        shmemi_fatal("watchdog: PE %d waited more than FABSHMEM_WATCHDOG=%ld s "
                     "(FABSHMEM_WATCHDOG_ABORT=1 ends the job)", shmemi_g.my_pe,
                     shmemi_g.env.watchdog);
}

/* ---- waits that poll ---- */

/* The watchdog's state of the calling thread: the wait it times (by its
 * counter's address), since when, whether it reported it, and whether
 * shmemi_wait_what describes it (noted just before it began). */
static __thread struct {
    unsigned long *iter_p;
    double since;
    int reported, own;
    unsigned calls;
} wd;

/* The clock is read once per 256 iterations of the thread's waits.  A
 * wait begins when the counter is another one or at 0: a wait that
 * restarts its counter (traffic came in) is timed anew. */
void shmemi_wd_tick(unsigned long *iter_p, unsigned long it)
{
    double t;

    if (wd.iter_p != iter_p || it == 0) {
        if (shmemi_wait_what.fresh)
            wd.own = 1;
        else if (wd.iter_p != iter_p)
            wd.own = 0;
        shmemi_wait_what.fresh = 0;
        wd.iter_p = iter_p;
        wd.since = wd_now();
        wd.reported = 0;
        wd.calls = 0;
        return;
    }
    if (wd.reported || (++wd.calls & 255))
        return;
    t = wd_now() - wd.since;
    if (t >= (double)shmemi_g.env.watchdog) {
        char report[2048];

        wd.reported = 1;
        wd_format(report, sizeof(report), t, shmemi_wait_site, wd.own ? &shmemi_wait_what : NULL,
                  wd.own ? shmemi_wait_what.rtn : NULL);
        wd_emit(report);
    }
}

/* ---- waits that block ---- */

/* The registered blocking waits of every thread, under wb_lock; a wait's
 * end takes the lock, so a report (made under it) reads a waiter's site
 * while the waiter cannot have left. */
static pthread_mutex_t wb_lock = PTHREAD_MUTEX_INITIALIZER;
static shmemi_wait_block_t *wb_list;
static pthread_once_t wb_once = PTHREAD_ONCE_INIT;

/* The watchdog thread: a report is made under the lock and printed after
 * it (ending the job may quiet, which registers a wait). */
static void *wb_main(void *arg)
{
    struct timespec ts = { 0, 250000000L };
    shmemi_wait_block_t *b;
    static char report[2048];
    double now;
    int due;

    (void)arg;
    for (;;) {
        nanosleep(&ts, NULL);
        now = wd_now();
        due = 0;
        pthread_mutex_lock(&wb_lock);
        for (b = wb_list; b && !due; b = b->next)
            if (!b->reported && now - b->since >= (double)shmemi_g.env.watchdog) {
                b->reported = due = 1;
                wd_format(report, sizeof(report), now - b->since, b->site, NULL, NULL);
            }
        pthread_mutex_unlock(&wb_lock);
        if (due)
            wd_emit(report);
    }
    return NULL;
}

static void wb_start(void)
{
    pthread_t t;
    pthread_attr_t a;
    sigset_t all, old;

    /* The thread takes no signal of the application's. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, wb_main, NULL))
        shmemi_log(SHMEMI_LOG_WARN, "watchdog: cannot start its thread: blocking waits (a "
                   "transport's quiet, a stream sync) are not watched");
    else
        pthread_setname_np(t, "shmem-watchdog");
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void shmemi_wait_block_begin_wd(shmemi_wait_block_t *b, const shmemi_wait_site_t *site)
{
    pthread_once(&wb_once, wb_start);
    b->site = site;
    b->since = wd_now();
    b->reported = 0;
    pthread_mutex_lock(&wb_lock);
    b->next = wb_list;
    wb_list = b;
    pthread_mutex_unlock(&wb_lock);
}

void shmemi_wait_block_end_wd(shmemi_wait_block_t *b)
{
    shmemi_wait_block_t **pp;

    pthread_mutex_lock(&wb_lock);
    for (pp = &wb_list; *pp; pp = &(*pp)->next)
        if (*pp == b) {
            *pp = b->next;
            break;
        }
    pthread_mutex_unlock(&wb_lock);
}
