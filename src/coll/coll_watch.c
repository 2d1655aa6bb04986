/*
 * The collectives' part of the hang diagnostic (FABSHMEM_WATCHDOG, core/sync.h):
 * a collective names itself around its run (shmemi_coll_watch_begin/end),
 * and when one of its waits lasts too long the report says which team,
 * which algorithm and step it waits in, and what each member last sent.
 */
#include "coll/coll.h"

/* Appends to buf what the collective of site (a shmemi_coll_watch_t) is
 * doing: the team, the algorithm, the epoch, the word awaited (a member's
 * signal: its epoch and step), and the last signal of each member (up to
 * 16 of them). */
static void describe(const shmemi_wait_site_t *site, const volatile void *addr, uint64_t value,
                     char *buf, size_t len)
{
    const shmemi_coll_watch_t *w = site->arg;
    const struct shmemi_team *t = w->t;
    const shmemi_team_slot_t *s = shmemi_team_slot(t);
    const char *a = (const char *)addr, *sig = (const char *)s->sig;
    size_t used;
    int j;

    used = (size_t)snprintf(buf, len, "team %p of %d PEs (this PE is its member %d), %s%s, "
                            "collective epoch %llu", (const void *)t, t->n_pes, t->my_pe,
                            w->algo >= 0 ? "algorithm " : "", w->algo >= 0 ?
                            shmemi_coll_algo_name(w->algo) : "the team's barrier",
                            (unsigned long long)t->epoch);
    if (a >= sig && a < sig + (size_t)shmemi_g.n_pes * sizeof(uint64_t) && used < len)
        used += (size_t)snprintf(buf + used, len - used, "; the word is member %d's signal, "
                                 "awaited: epoch %llu step %llu",
                                 (int)((a - sig) / (ptrdiff_t)sizeof(uint64_t)),
                                 (unsigned long long)(value >> 20),
                                 (unsigned long long)(value & 0xfffff));
    else if (a >= (const char *)s->bar && a < (const char *)s->aux && used < len)
        used += (size_t)snprintf(buf + used, len - used, "; the word is barrier word %d, "
                                 "awaited: count %llu",
                                 (int)((a - (const char *)s->bar) / (ptrdiff_t)sizeof(uint64_t)),
                                 (unsigned long long)value);
    if (used < len)
        used += (size_t)snprintf(buf + used, len - used, "; last signal from each member:");
    for (j = 0; j < t->n_pes && j < 16 && used < len; j++) {
        uint64_t v = __atomic_load_n(&s->sig[j], __ATOMIC_RELAXED);
        used += (size_t)snprintf(buf + used, len - used, " %d (PE %d): %s", j, t->pes[j],
                                 j == t->my_pe ? "this PE;" : "");
        if (j != t->my_pe && used < len)
            used += (size_t)snprintf(buf + used, len - used, v ? "epoch %llu step %llu;" :
                                     "none;", (unsigned long long)(v >> 20),
                                     (unsigned long long)(v & 0xfffff));
    }
    if (j < t->n_pes && used < len)
        snprintf(buf + used, len - used, " ...");
}

void shmemi_coll_watch_begin(shmemi_coll_watch_t *w, struct shmemi_team *t, int algo,
                             const char *rtn)
{
    w->t = t;
    w->algo = algo;
    w->site.rtn = rtn ? rtn : "a collective";
    w->site.describe = describe;
    w->site.arg = w;
    w->prev = shmemi_wait_site;
    shmemi_wait_site = &w->site;
}

void shmemi_coll_watch_end(shmemi_coll_watch_t *w)
{
    shmemi_wait_site = w->prev;
}
