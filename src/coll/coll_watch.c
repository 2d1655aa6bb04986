/*
 * The collectives' part of the hang diagnostic (FABSHMEM_WATCHDOG, core/sync.h):
 * a collective names itself around its run (shmemi_coll_watch_begin/end),
 * and when one of its waits lasts too long the report says which team,
 * which algorithm and step it waits in, and what each member last sent;
 * for a barrier, which members have not arrived.
 */
#include "coll/coll.h"

/* Appends to buf[used ..] (len bytes in all) the members of t that have
 * not arrived at the barrier this PE waits in (always for a barrier; for
 * another collective, when there are some: a barrier inside it); returns
 * the new length. */
static size_t barrier_absent(const struct shmemi_team *t, int barrier, char *buf, size_t len,
                             size_t used)
{
    int absent[16], unseen, round, from, na, i;

    na = shmemi_team_barrier_absent(t, absent, 16, &unseen, &round, &from);
    if (!barrier && na == 0)
        return used;
    if (used < len)
        used += (size_t)snprintf(buf + used, len - used, "; members that have not arrived at "
                                 "the barrier:");
    for (i = 0; i < na && i < 16 && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s %d (PE %d)", i ? "," : "",
                                 absent[i], t->pes[absent[i]]);
    if (na > 16 && used < len)
        used += (size_t)snprintf(buf + used, len - used, " and %d more", na - 16);
    if (na == 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, unseen ? " none that this PE can "
                                 "see" : " none (every member has arrived; the release is on "
                                 "its way)");
    if (round >= 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, "; this PE waits in dissemination "
                                 "round %d for member %d (PE %d)", round, from, t->pes[from]);
    if (unseen && used < len)
        used += (size_t)snprintf(buf + used, len - used, "; %d member%s this PE does not map "
                                 "(their arrival is not seen from here)", unseen,
                                 unseen == 1 ? "" : "s");
    return used;
}

/* Appends to buf what the collective of site (a shmemi_coll_watch_t) is
 * doing: the team, the algorithm, the epoch, the word awaited (a member's
 * signal: its epoch and step), the members that have not arrived at a
 * barrier, and (not for a barrier) the last signal of each member (up to
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
    used = barrier_absent(t, w->algo < 0, buf, len, used);
    if (w->algo < 0)
        return;
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
