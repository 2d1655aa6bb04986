/*
 * Memory the application allocated itself (include/fabshmem/shmemx_mem.h):
 * local buffers registered for zero-copy RMA, and symmetric buffers, which
 * become transport segments SHMEMT_NSEGS and up (shmemi_addr_seg finds
 * them through shmemi_g.ext) and, where the memory can be shared, are
 * mapped by node peers (src/mem/mem_share.c) for the direct path.
 */
#include "mem/mem.h"
#include "mem/mem_share.h"
#include <pthread.h>
#include <stdlib.h>

struct local_buf {
    struct local_buf *next;
    uintptr_t base;
    size_t len;
    void *handle; /* the transport's, NULL without one */
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct local_buf *local_bufs;

static int overlaps(uintptr_t a, size_t len, uintptr_t b, size_t blen)
{
    return a < b + blen && b < a + len;
}

/* Whether [a, a+len) touches symmetric memory; what it touches in *what. */
static int touches_symmetric(uintptr_t a, size_t len, const char **what)
{
    int i;

    if (overlaps(a, len, (uintptr_t)shmemi_g.heap_base, shmemi_g.heap_size)) {
        *what = "the symmetric heap";
        return 1;
    }
    if (overlaps(a, len, (uintptr_t)shmemi_g.data_base, shmemi_g.data_size)) {
        *what = "the data segment (global and static variables, symmetric already)";
        return 1;
    }
    for (i = 0; i < SHMEMT_EXT_MAX; i++)
        if (shmemi_g.ext[i].len && overlaps(a, len, shmemi_g.ext[i].base, shmemi_g.ext[i].len)) {
            *what = "a buffer registered with shmemx_buffer_register_symmetric";
            return 1;
        }
    return 0;
}

static int range_ok(const char *rtn, void *addr, size_t length)
{
    if (!addr) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: addr is NULL", rtn);
        return 0;
    }
    if (!length) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: length is 0", rtn);
        return 0;
    }
    if ((uintptr_t)addr + length < (uintptr_t)addr) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: addr %p + length %zu overflows", rtn, addr, length);
        return 0;
    }
    return 1;
}

/* ---- local buffers ---- */

SHMEM_API int shmemx_buffer_register(void *addr, size_t length)
{
    const char *rtn = "shmemx_buffer_register", *what;
    struct local_buf *b;
    int ret;

    SHMEMI_CHECK_INIT(rtn);
    if (!range_ok(rtn, addr, length))
        return SHMEMX_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&reg_lock);
    if (touches_symmetric((uintptr_t)addr, length, &what)) {
        pthread_mutex_unlock(&reg_lock);
        shmemi_log(SHMEMI_LOG_ERR, "%s: addr %p, length %zu overlaps %s", rtn, addr, length,
                   what);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    for (b = local_bufs; b; b = b->next)
        if (overlaps((uintptr_t)addr, length, b->base, b->len)) {
            pthread_mutex_unlock(&reg_lock);
            shmemi_log(SHMEMI_LOG_ERR, "%s: addr %p, length %zu overlaps the registered "
                       "buffer at %p (%zu bytes)", rtn, addr, length, (void *)b->base, b->len);
            return SHMEMX_ERROR_INVALID_VALUE;
        }
    b = calloc(1, sizeof(*b));
    if (!b) {
        pthread_mutex_unlock(&reg_lock);
        shmemi_log(SHMEMI_LOG_ERR, "%s: out of memory", rtn);
        return SHMEMX_ERROR_OUT_OF_MEMORY;
    }
    b->base = (uintptr_t)addr;
    b->len = length;
    if (shmemi_g.tp && shmemi_g.tp->ops->buf_reg &&
        (ret = shmemi_g.tp->ops->buf_reg(shmemi_g.tp, addr, length, &b->handle)) != 0) {
        pthread_mutex_unlock(&reg_lock);
        free(b);
        shmemi_log(SHMEMI_LOG_ERR, "%s: the %s provider cannot register addr %p, length %zu: %s",
                   rtn, shmemi_g.tp->prov_name, addr, length, strerror(-ret));
        return ret == -ENOMEM ? SHMEMX_ERROR_OUT_OF_MEMORY : SHMEMX_ERROR_TRANSPORT;
    }
    b->next = local_bufs;
    local_bufs = b;
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

/* Called with reg_lock held. */
static void local_release(struct local_buf *b)
{
    if (b->handle && shmemi_g.tp)
        shmemi_g.tp->ops->buf_dereg(shmemi_g.tp, b->handle);
    free(b);
}

SHMEM_API int shmemx_buffer_unregister(void *addr)
{
    const char *rtn = "shmemx_buffer_unregister";
    struct local_buf **pp, *b;

    SHMEMI_CHECK_INIT(rtn);
    pthread_mutex_lock(&reg_lock);
    for (pp = &local_bufs; *pp; pp = &(*pp)->next)
        if ((*pp)->base == (uintptr_t)addr) {
            b = *pp;
            *pp = b->next;
            /* Operations that use it as a source or destination are
             * complete at their return or at quiet. */
            shmemi_must(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
            shmemi_must(shmemi_ctxs_quiet("shmem_quiet"));
            local_release(b);
            pthread_mutex_unlock(&reg_lock);
            return 0;
        }
    pthread_mutex_unlock(&reg_lock);
    shmemi_log(SHMEMI_LOG_ERR, "%s: addr %p is not the address of a registered buffer", rtn,
               addr);
    return SHMEMX_ERROR_INVALID_VALUE;
}

SHMEM_API void shmemx_buffer_unregister_all(void)
{
    struct local_buf *b;

    SHMEMI_CHECK_INIT("shmemx_buffer_unregister_all");
    shmemi_must(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
    shmemi_must(shmemi_ctxs_quiet("shmem_quiet"));
    pthread_mutex_lock(&reg_lock);
    while ((b = local_bufs) != NULL) {
        local_bufs = b->next;
        local_release(b);
    }
    pthread_mutex_unlock(&reg_lock);
}

/* ---- symmetric buffers ---- */

/* What this PE keeps about a symmetric buffer besides shmemi_g.ext: its
 * mappings of node peers' copies, and why node peers do not map it (why
 * is a SHMEMI_SHARE_WHY_* code, 0 when they do: kind of PE owner's copy,
 * found by PE mapper, errno err). */
static struct ext_state {
    shmemi_share_map_t *maps; /* [n_pes], or NULL */
    int why, kind, err, owner, mapper;
} ext_state[SHMEMT_EXT_MAX];

struct sym_card {
    int32_t ok;
    int32_t slot;
    uint64_t len;
    uint64_t card[3];
    int32_t flags;
    int32_t pad;
    uint64_t addr;
    shmemi_share_t share;
};

/* What a PE found when it mapped its node peers' copies. */
struct map_report {
    int32_t why, kind, err, owner;
};

static int node_peers(void)
{
    int pe, n = 0;

    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        n += pe != shmemi_g.my_pe && shmemi_g.node_of[pe] == shmemi_g.node_of[shmemi_g.my_pe];
    return n;
}

static void maps_release(shmemi_share_map_t *maps)
{
    int pe;

    for (pe = 0; maps && pe < shmemi_g.n_pes; pe++)
        shmemi_share_unmap(&maps[pe]);
    free(maps);
}

/* Ends the direct path to slot and unmaps node peers' copies.  Called with
 * reg_lock held, when no PE uses the buffer any more. */
static void ext_unmap(int slot)
{
    char **peer = shmemi_g.ext[slot].peer;

    if (peer) {
        __atomic_fetch_sub(&shmemi_g.n_ext_mapped, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&shmemi_g.ext[slot].peer, NULL, __ATOMIC_RELEASE);
        free(peer);
    }
    shmemi_g.ext[slot].amo_cpu = 0;
    maps_release(ext_state[slot].maps);
    memset(&ext_state[slot], 0, sizeof(ext_state[slot]));
}

/* The reason in st as a sentence ("PE 0 cannot map the copy of PE 1: ..."),
 * in buf. */
static void ext_reason(const struct ext_state *st, char *buf, size_t size)
{
    char why[512];

    shmemi_share_why(st->why, st->kind, st->err, why, sizeof(why));
    if (st->why == SHMEMI_SHARE_WHY_DIRECT_OFF)
        snprintf(buf, size, "%s", why);
    else
        snprintf(buf, size, "PE %d cannot map the copy of PE %d: %s", st->mapper, st->owner, why);
}

/* Maps node peers' copies of the buffer of slot (cards all[]) and agrees
 * with every PE on the outcome: node peers map all of each other's copies
 * or none.  Returns 0 (peer table in *peer_p, NULL when this PE's node
 * does not map the buffer), or -1 when flags require load/store access
 * and some node cannot have it (every PE returns -1, with a message). */
static int ext_map(int slot, const struct sym_card *all, void *addr, size_t length, int flags,
                   char ***peer_p, const char *rtn)
{
    int n = shmemi_g.n_pes, me = shmemi_g.my_pe, node = shmemi_g.node_of[me], pe, ret;
    int node_ok = 1, fail_pe = -1;
    struct map_report mine = { 0, 0, 0, -1 }, *reps;
    struct ext_state *st = &ext_state[slot];
    shmemi_share_map_t *maps = calloc((size_t)n, sizeof(*maps));
    char **peer = calloc((size_t)n, sizeof(*peer));

    reps = calloc((size_t)n, sizeof(*reps));
    if (!maps || !peer || !reps)
        shmemi_fatal("%s: out of memory", rtn);
    for (pe = 0; pe < n && !mine.why; pe++) {
        int why, err = 0;

        if (pe == me || shmemi_g.node_of[pe] != node)
            continue;
        if (!shmemi_g.env.direct) {
            mine.why = SHMEMI_SHARE_WHY_DIRECT_OFF;
            break;
        }
        why = shmemi_share_map(&all[pe].share, length, &maps[pe], &peer[pe], &err);
        if (why) {
            mine.why = why;
            mine.kind = all[pe].share.kind;
            mine.err = err;
            mine.owner = pe;
        }
    }
    if (n > 1) {
        ret = shmemi_g.boot->allgather(shmemi_g.boot, &mine, reps, sizeof(mine));
        if (ret)
            shmemi_fatal("%s: exchanging the mappings failed: %s", rtn, strerror(-ret));
    } else {
        reps[0] = mine;
    }
    for (pe = 0; pe < n; pe++) {
        if (!reps[pe].why)
            continue;
        if (fail_pe < 0)
            fail_pe = pe;
        if (node_ok && shmemi_g.node_of[pe] == node) {
            node_ok = 0;
            st->why = reps[pe].why;
            st->kind = reps[pe].kind;
            st->err = reps[pe].err;
            st->owner = reps[pe].owner;
            st->mapper = pe;
        }
    }
    free(reps);
    if ((flags & SHMEMX_BUFFER_LOAD_STORE) && fail_pe >= 0) {
        char reason[640];

        if (mine.why) {
            struct ext_state me_st = { NULL, mine.why, mine.kind, mine.err, mine.owner, me };
            ext_reason(&me_st, reason, sizeof(reason));
            shmemi_log(SHMEMI_LOG_ERR, "%s: flags SHMEMX_BUFFER_LOAD_STORE: node peers cannot "
                       "reach the buffer (addr %p, length %zu) by load/store: %s; nothing was "
                       "registered", rtn, addr, length, reason);
        } else {
            shmemi_log(SHMEMI_LOG_ERR, "%s: flags SHMEMX_BUFFER_LOAD_STORE: PE %d cannot map "
                       "its node peers' copies of the buffer (see its message); nothing was "
                       "registered", rtn, fail_pe);
        }
        maps_release(maps);
        free(peer);
        memset(st, 0, sizeof(*st));
        return -1;
    }
    if (!node_ok) {
        char reason[640];

        maps_release(maps);
        free(peer);
        ext_reason(st, reason, sizeof(reason));
        shmemi_debug("%s: node peers reach the buffer at %p (%zu bytes) through the provider: %s",
                     rtn, addr, length, reason);
        *peer_p = NULL;
        return 0;
    }
    peer[me] = addr;
    st->maps = maps;
    /* The atomicity rule: CPU atomics when every PE maps every copy, or
     * when the transport's AMOs are CPU atomics too. */
    shmemi_g.ext[slot].amo_cpu = (shmemi_g.n_nodes == 1 && fail_pe < 0) || shmemi_amo_cpu_tp;
    shmemi_debug("%s: node peers map the buffer at %p (%zu bytes, %s): load/store, %s", rtn,
                 addr, length, shmemi_share_kind_name(all[me].share.kind),
                 shmemi_g.ext[slot].amo_cpu ? "CPU atomics" : "atomics through the provider");
    *peer_p = peer;
    return 0;
}

SHMEM_API void *shmemx_buffer_register_symmetric(void *addr, size_t length, int flags)
{
    const char *rtn = "shmemx_buffer_register_symmetric", *what;
    struct sym_card me, *all;
    shmemt_t *tp = shmemi_g.tp;
    struct local_buf *b;
    char **peer = NULL;
    int i, slot = -1, ok = 1, pe, ret, registered = 0;

    SHMEMI_CHECK_INIT(rtn);
    memset(&me, 0, sizeof(me));
    if (flags & ~SHMEMX_BUFFER_LOAD_STORE) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: flags %d has bits other than SHMEMX_BUFFER_LOAD_STORE "
                   "(%d)", rtn, flags, SHMEMX_BUFFER_LOAD_STORE);
        ok = 0;
    }
    if (ok && !range_ok(rtn, addr, length))
        ok = 0;
    pthread_mutex_lock(&reg_lock);
    if (ok && touches_symmetric((uintptr_t)addr, length, &what)) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: addr %p, length %zu overlaps %s", rtn, addr, length,
                   what);
        ok = 0;
    }
    for (b = local_bufs; ok && b; b = b->next)
        if (overlaps((uintptr_t)addr, length, b->base, b->len)) {
            shmemi_log(SHMEMI_LOG_ERR, "%s: addr %p, length %zu overlaps the buffer at %p "
                       "registered with shmemx_buffer_register", rtn, addr, length,
                       (void *)b->base);
            ok = 0;
        }
    for (i = 0; i < SHMEMT_EXT_MAX && slot < 0; i++)
        if (!shmemi_g.ext[i].len)
            slot = i;
    if (ok && slot < 0) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: %d symmetric buffers are registered already (the most "
                   "there can be)", rtn, SHMEMX_BUFFER_SYMMETRIC_MAX);
        ok = 0;
    }
    if (ok && tp) {
        ret = tp->ops->seg_reg ? tp->ops->seg_reg(tp, SHMEMT_NSEGS + slot, addr, length, me.card)
                               : -ENOSYS;
        if (ret) {
            shmemi_log(SHMEMI_LOG_ERR, "%s: the %s provider cannot register addr %p, length "
                       "%zu for remote access: %s", rtn, tp->prov_name, addr, length,
                       strerror(-ret));
            ok = 0;
        } else {
            registered = 1;
        }
    }
    /* How node peers can map this PE's copy (read by them only). */
    if (ok && shmemi_g.env.direct && node_peers())
        shmemi_share_describe(addr, length, &me.share);
    me.ok = ok;
    me.slot = slot;
    me.len = length;
    me.flags = flags;
    me.addr = (uintptr_t)addr;
    all = calloc((size_t)shmemi_g.n_pes, sizeof(*all));
    if (!all)
        shmemi_fatal("%s: out of memory", rtn);
    ret = shmemi_g.boot->allgather(shmemi_g.boot, &me, all, sizeof(me));
    if (ret)
        shmemi_fatal("%s: exchanging the registrations failed: %s", rtn, strerror(-ret));
    for (pe = 0; pe < shmemi_g.n_pes; pe++) {
        if (!all[pe].ok) {
            if (ok && pe != shmemi_g.my_pe)
                shmemi_log(SHMEMI_LOG_ERR, "%s: PE %d could not register its buffer", rtn, pe);
            ok = 0;
            break;
        }
        if (all[pe].len != length || all[pe].slot != slot) {
            if (ok)
                shmemi_log(SHMEMI_LOG_ERR, "%s: PE %d passed length %llu, this PE %zu (every PE "
                           "must pass the same length)", rtn, pe,
                           (unsigned long long)all[pe].len, length);
            ok = 0;
            break;
        }
        if (all[pe].flags != flags) {
            if (ok)
                shmemi_log(SHMEMI_LOG_ERR, "%s: PE %d passed flags %d, this PE %d (every PE "
                           "must pass the same flags)", rtn, pe, (int)all[pe].flags, flags);
            ok = 0;
            break;
        }
    }
    /* Every PE took the same decision so far; the mapping agrees too. */
    if (ok && ext_map(slot, all, addr, length, flags, &peer, rtn))
        ok = 0;
    if (!ok) {
        if (registered)
            tp->ops->seg_dereg(tp, SHMEMT_NSEGS + slot);
        pthread_mutex_unlock(&reg_lock);
        free(all);
        return NULL;
    }
    if (tp)
        for (pe = 0; pe < shmemi_g.n_pes; pe++)
            tp->ops->seg_peer(tp, SHMEMT_NSEGS + slot, pe, all[pe].card);
    free(all);
    shmemi_g.ext[slot].base = (uintptr_t)addr;
    __atomic_store_n(&shmemi_g.ext[slot].len, length, __ATOMIC_RELEASE);
    __atomic_fetch_add(&shmemi_g.n_ext, 1, __ATOMIC_RELEASE);
    if (peer) {
        __atomic_store_n(&shmemi_g.ext[slot].peer, peer, __ATOMIC_RELEASE);
        __atomic_fetch_add(&shmemi_g.n_ext_mapped, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&reg_lock);
    shmemi_debug("%s: %p, %zu bytes: segment %d", rtn, addr, length, SHMEMT_NSEGS + slot);
    return addr;
}

SHMEM_API int shmemx_buffer_load_store(const void *addr)
{
    const char *rtn = "shmemx_buffer_load_store";
    int i, slot = -1;
    struct ext_state st;
    char reason[640];

    SHMEMI_CHECK_INIT(rtn);
    pthread_mutex_lock(&reg_lock);
    for (i = 0; i < SHMEMT_EXT_MAX; i++)
        if (shmemi_g.ext[i].len && (uintptr_t)addr - shmemi_g.ext[i].base < shmemi_g.ext[i].len)
            slot = i;
    if (slot >= 0 && shmemi_g.ext[slot].peer) {
        pthread_mutex_unlock(&reg_lock);
        return SHMEMX_SUCCESS;
    }
    if (slot >= 0)
        st = ext_state[slot];
    pthread_mutex_unlock(&reg_lock);
    if (slot < 0) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: addr %p is not inside a buffer registered with "
                   "shmemx_buffer_register_symmetric", rtn, addr);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    ext_reason(&st, reason, sizeof(reason));
    shmemi_log(SHMEMI_LOG_ERR, "%s: addr %p: node peers reach this symmetric buffer through the "
               "provider, not by load/store: %s", rtn, addr, reason);
    return SHMEMX_ERROR_NOT_SUPPORTED;
}

/* Removes the registration of slot (reg_lock held, no PE uses it). */
static void ext_release(int slot)
{
    ext_unmap(slot);
    __atomic_fetch_sub(&shmemi_g.n_ext, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&shmemi_g.ext[slot].len, 0, __ATOMIC_RELEASE);
    shmemi_g.ext[slot].base = 0;
    if (shmemi_g.tp)
        shmemi_g.tp->ops->seg_dereg(shmemi_g.tp, SHMEMT_NSEGS + slot);
}

SHMEM_API int shmemx_buffer_unregister_symmetric(void *addr, size_t length)
{
    const char *rtn = "shmemx_buffer_unregister_symmetric";
    int i, slot = -1, ok, mine, pe, ret, *oks;

    SHMEMI_CHECK_INIT(rtn);
    pthread_mutex_lock(&reg_lock);
    for (i = 0; i < SHMEMT_EXT_MAX; i++)
        if (shmemi_g.ext[i].len && shmemi_g.ext[i].base == (uintptr_t)addr)
            slot = i;
    ok = mine = slot >= 0 && shmemi_g.ext[slot].len == length;
    pthread_mutex_unlock(&reg_lock);
    if (slot < 0)
        shmemi_log(SHMEMI_LOG_ERR, "%s: addr %p is not a buffer registered with "
                   "shmemx_buffer_register_symmetric", rtn, addr);
    else if (!ok)
        shmemi_log(SHMEMI_LOG_ERR, "%s: length %zu is not the registered length %zu", rtn,
                   length, shmemi_g.ext[slot].len);
    /* Everything this PE issued is complete before anyone goes on. */
    shmemi_must(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
    shmemi_must(shmemi_ctxs_quiet("shmem_quiet"));
    oks = calloc((size_t)shmemi_g.n_pes, sizeof(*oks));
    if (!oks)
        shmemi_fatal("%s: out of memory", rtn);
    ret = shmemi_g.boot->allgather(shmemi_g.boot, &ok, oks, sizeof(ok));
    if (ret)
        shmemi_fatal("%s: exchanging the arguments failed: %s", rtn, strerror(-ret));
    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        if (!oks[pe]) {
            if (ok)
                shmemi_log(SHMEMI_LOG_ERR, "%s: PE %d passed an address or length that is not "
                           "one of its symmetric buffers: nothing was unregistered", rtn, pe);
            ok = 0;
        }
    free(oks);
    if (!ok) /* This PE's own arguments, or another PE's. */
        return mine ? SHMEMX_ERROR_SYMMETRY : SHMEMX_ERROR_INVALID_VALUE;
    /* The allgather was also the barrier: no PE uses the buffer any more,
     * loads and stores of node peers included. */
    pthread_mutex_lock(&reg_lock);
    ext_release(slot);
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

/* The registered slots as a bit mask. */
static uint32_t ext_used(void)
{
    uint32_t used = 0;
    int i;

    for (i = 0; i < SHMEMT_EXT_MAX; i++)
        if (shmemi_g.ext[i].len)
            used |= 1u << i;
    return used;
}

SHMEM_API int shmemx_buffer_unregister_symmetric_all(void)
{
    const char *rtn = "shmemx_buffer_unregister_symmetric_all";
    uint32_t used, *all;
    int i, pe, ret, ok = 1;

    SHMEMI_CHECK_INIT(rtn);
    shmemi_must(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
    shmemi_must(shmemi_ctxs_quiet("shmem_quiet"));
    pthread_mutex_lock(&reg_lock);
    used = ext_used();
    pthread_mutex_unlock(&reg_lock);
    all = calloc((size_t)shmemi_g.n_pes, sizeof(*all));
    if (!all)
        shmemi_fatal("%s: out of memory", rtn);
    ret = shmemi_g.boot->allgather(shmemi_g.boot, &used, all, sizeof(used));
    if (ret)
        shmemi_fatal("%s: exchanging the registrations failed: %s", rtn, strerror(-ret));
    for (pe = 0; pe < shmemi_g.n_pes && ok; pe++)
        if (all[pe] != used) {
            shmemi_log(SHMEMI_LOG_ERR, "%s: PE %d has other symmetric buffers registered than "
                       "this PE (slots %#x against %#x): nothing was unregistered", rtn, pe,
                       all[pe], used);
            ok = 0;
        }
    free(all);
    if (!ok)
        return SHMEMX_ERROR_SYMMETRY;
    pthread_mutex_lock(&reg_lock);
    for (i = 0; i < SHMEMT_EXT_MAX; i++)
        if (used & (1u << i))
            ext_release(i);
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

void shmemi_mem_reg_fini(void)
{
    struct local_buf *b;
    int i;

    pthread_mutex_lock(&reg_lock);
    while ((b = local_bufs) != NULL) {
        local_bufs = b->next;
        local_release(b);
    }
    for (i = 0; i < SHMEMT_EXT_MAX; i++) {
        if (shmemi_g.ext[i].len)
            ext_release(i);
        else
            ext_unmap(i);
    }
    shmemi_g.n_ext = 0;
    shmemi_g.n_ext_mapped = 0;
    pthread_mutex_unlock(&reg_lock);
}
