/*
 * Memory the application allocated itself (include/fabshmem/shmemx_mem.h):
 * local buffers registered for zero-copy RMA, and symmetric buffers, which
 * become transport segments SHMEMT_NSEGS and up (shmemi_addr_seg finds
 * them through shmemi_g.ext) and, where the memory can be shared, are
 * mapped by node peers (src/mem/mem_share.c) for the direct path.
 *
 * Each routine returns 0 or the class of its failure, recorded
 * (base/error.h); the public routines are in src/api/shmem_mem_reg.c.
 * (long: host and GPU registration share their checks, their slots and
 * their collective agreement.)
 */
#include "mem/mem.h"
#include "mem/mem_share.h"
#include "cuda/cuda.h"
#include "core/amo.h"
#include "core/sync.h"
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
    if (shmemi_g.dheap_size && shmemi_dheap_ext_overlaps(a, len)) {
        *what = "the device heap or GPU memory registered as symmetric";
        return 1;
    }
    return 0;
}

/* 0 when [addr, addr+length) is a range of memory, else the error. */
static int range_check(const char *rtn, void *addr, size_t length)
{
    if (!addr)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "addr is NULL");
    if (!length)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "length is 0");
    if ((uintptr_t)addr + length < (uintptr_t)addr)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "addr %p + length %zu overflows",
                          addr, length);
    return 0;
}

/* 0 when flags of a symmetric registration are known, else the error. */
static int flags_check(int flags, const char *rtn)
{
    if (flags & ~SHMEMX_BUFFER_LOAD_STORE)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "flags %d has bits other than "
                          "SHMEMX_BUFFER_LOAD_STORE (%d)", flags, SHMEMX_BUFFER_LOAD_STORE);
    return 0;
}

/* ---- local buffers ---- */

/* 0 when a local buffer may be registered at [addr, addr+length): it
 * touches neither symmetric memory nor another local buffer (reg_lock
 * held). */
static int local_check(void *addr, size_t length, const char *rtn)
{
    const char *what;
    struct local_buf *b;

    if (touches_symmetric((uintptr_t)addr, length, &what))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "addr %p, length %zu overlaps %s",
                          addr, length, what);
    for (b = local_bufs; b; b = b->next)
        if (overlaps((uintptr_t)addr, length, b->base, b->len))
            return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "addr %p, length %zu overlaps "
                              "the registered buffer at %p (%zu bytes)", addr, length,
                              (void *)b->base, b->len);
    return 0;
}

int shmemi_buffer_register(void *addr, size_t length, const char *rtn)
{
    struct local_buf *b;
    int rc, ret;

    if ((rc = range_check(rtn, addr, length)))
        return rc;
    pthread_mutex_lock(&reg_lock);
    if ((rc = local_check(addr, length, rtn)))
        goto out;
    b = calloc(1, sizeof(*b));
    if (!b) {
        rc = shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "out of memory");
        goto out;
    }
    b->base = (uintptr_t)addr;
    b->len = length;
    if (shmemi_g.tp && shmemi_g.tp->ops->buf_reg &&
        (ret = shmemi_g.tp->ops->buf_reg(shmemi_g.tp, addr, length, &b->handle)) != 0) {
        free(b);
        rc = shmemi_err(ret == -ENOMEM ? SHMEMX_ERROR_OUT_OF_MEMORY : SHMEMX_ERROR_TRANSPORT,
                        rtn, "the %s provider cannot register addr %p, length %zu: %s",
                        shmemi_g.tp->prov_name, addr, length, strerror(-ret));
        goto out;
    }
    b->next = local_bufs;
    local_bufs = b;
out:
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

/* Called with reg_lock held. */
static void local_release(struct local_buf *b)
{
    if (b->handle && shmemi_g.tp)
        shmemi_g.tp->ops->buf_dereg(shmemi_g.tp, b->handle);
    free(b);
}

int shmemi_buffer_unregister(void *addr, const char *rtn)
{
    struct local_buf **pp, *b;
    int rc;

    pthread_mutex_lock(&reg_lock);
    for (pp = &local_bufs; *pp; pp = &(*pp)->next)
        if ((*pp)->base == (uintptr_t)addr) {
            /* Operations that use it as a source or destination are
             * complete at their return or at quiet; after a failed quiet
             * it stays registered (the provider may still read it). */
            if ((rc = shmemi_quiet_all(rtn))) {
                pthread_mutex_unlock(&reg_lock);
                return rc;
            }
            b = *pp;
            *pp = b->next;
            local_release(b);
            pthread_mutex_unlock(&reg_lock);
            return 0;
        }
    pthread_mutex_unlock(&reg_lock);
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "addr %p is not the address of a "
                      "registered buffer", addr);
}

int shmemi_buffer_unregister_all(const char *rtn)
{
    struct local_buf *b;
    int rc = shmemi_quiet_all(rtn);

    if (rc)
        return rc; /* nothing unregistered, as for one buffer */
    pthread_mutex_lock(&reg_lock);
    while ((b = local_bufs) != NULL) {
        local_bufs = b->next;
        local_release(b);
    }
    pthread_mutex_unlock(&reg_lock);
    return 0;
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

/* Maps the copies of this PE's node peers (cards all[]) into maps[] and
 * peer[]; what went wrong, if anything, in *rep. */
static void ext_map_mine(const struct sym_card *all, size_t length, shmemi_share_map_t *maps,
                         char **peer, struct map_report *rep)
{
    int n = shmemi_g.n_pes, me = shmemi_g.my_pe, node = shmemi_g.node_of[me], pe;

    for (pe = 0; pe < n && !rep->why; pe++) {
        int why, err = 0;

        if (pe == me || shmemi_g.node_of[pe] != node)
            continue;
        if (!shmemi_g.env.direct) {
            rep->why = SHMEMI_SHARE_WHY_DIRECT_OFF;
            break;
        }
        why = shmemi_share_map(&all[pe].share, length, &maps[pe], &peer[pe], &err);
        if (why) {
            rep->why = why;
            rep->kind = all[pe].share.kind;
            rep->err = err;
            rep->owner = pe;
        }
    }
}

/* The failure of a registration that requires load/store access (flags
 * SHMEMX_BUFFER_LOAD_STORE) when PE fail_pe could not map its node peers'
 * copies (this PE when mine->why is set). */
static int ext_map_refuse(const struct map_report *mine, int fail_pe, void *addr, size_t length,
                          const char *rtn)
{
    char reason[640];

    if (mine->why) {
        struct ext_state me_st = { NULL, mine->why, mine->kind, mine->err, mine->owner,
                                   shmemi_g.my_pe };
        ext_reason(&me_st, reason, sizeof(reason));
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "flags SHMEMX_BUFFER_LOAD_STORE: node "
                          "peers cannot reach the buffer (addr %p, length %zu) by load/store: %s; "
                          "nothing was registered", addr, length, reason);
    }
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "flags SHMEMX_BUFFER_LOAD_STORE: PE %d "
                      "cannot map its node peers' copies of the buffer (see its message); "
                      "nothing was registered", fail_pe);
}

/* Maps node peers' copies of the buffer of slot (cards all[]) and agrees
 * with every PE on the outcome: node peers map all of each other's copies
 * or none.  Returns 0 (peer table in *peer_p, NULL when this PE's node
 * does not map the buffer), or the class of the failure, recorded: when
 * flags require load/store access and some node cannot have it, every PE
 * returns SHMEMX_ERROR_NOT_SUPPORTED. */
static int ext_map(int slot, const struct sym_card *all, void *addr, size_t length, int flags,
                   char ***peer_p, const char *rtn)
{
    int n = shmemi_g.n_pes, me = shmemi_g.my_pe, node = shmemi_g.node_of[me], pe, ret, rc = 0;
    int node_ok = 1, fail_pe = -1;
    struct map_report mine = { 0, 0, 0, -1 }, *reps;
    struct ext_state *st = &ext_state[slot];
    shmemi_share_map_t *maps = calloc((size_t)n, sizeof(*maps));
    char **peer = calloc((size_t)n, sizeof(*peer));

    reps = calloc((size_t)n, sizeof(*reps));
    if (!maps || !peer || !reps) {
        rc = shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
        goto out_release;
    }
    ext_map_mine(all, length, maps, peer, &mine);
    reps[0] = mine;
    if (n > 1 && (ret = shmemi_g.boot->allgather(shmemi_g.boot, &mine, reps, sizeof(mine)))) {
        rc = shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_BOOTSTRAP), "%s: "
                              "exchanging the mappings failed: %s", rtn, strerror(-ret));
        goto out_release;
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
    if ((flags & SHMEMX_BUFFER_LOAD_STORE) && fail_pe >= 0) {
        rc = ext_map_refuse(&mine, fail_pe, addr, length, rtn);
        memset(st, 0, sizeof(*st));
        goto out_release;
    }
    if (!node_ok) {
        char reason[640];

        ext_reason(st, reason, sizeof(reason));
        shmemi_debug("%s: node peers reach the buffer at %p (%zu bytes) through the provider: %s",
                     rtn, addr, length, reason);
        *peer_p = NULL;
        goto out_release;
    }
    free(reps);
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

out_release:
    maps_release(maps);
    free(peer);
    free(reps);
    return rc;
}

/* The checks of this PE's own arguments, with reg_lock held: 0 with the
 * free slot the buffer takes in *slot_p (-1 when there is none and the
 * check failed), or the error. */
static int sym_check(void *addr, size_t length, int flags, int *slot_p, const char *rtn)
{
    const char *what;
    struct local_buf *b;
    int i, rc = 0;

    *slot_p = -1;
    for (i = 0; i < SHMEMT_EXT_MAX && *slot_p < 0; i++)
        if (!shmemi_g.ext[i].len)
            *slot_p = i;
    if ((rc = flags_check(flags, rtn)) || (rc = range_check(rtn, addr, length)))
        return rc;
    if (touches_symmetric((uintptr_t)addr, length, &what))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "addr %p, length %zu overlaps %s",
                          addr, length, what);
    for (b = local_bufs; b; b = b->next)
        if (overlaps((uintptr_t)addr, length, b->base, b->len))
            return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "addr %p, length %zu overlaps "
                              "the buffer at %p registered with shmemx_buffer_register", addr,
                              length, (void *)b->base);
    if (*slot_p < 0)
        return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "%d symmetric buffers are registered "
                          "already (the most there can be)", SHMEMX_BUFFER_SYMMETRIC_MAX);
    return 0;
}

/* Compares this PE's registration (length, slot, flags; ok: it failed
 * nothing so far) with every PE's card: 0 when every PE can go on, else
 * SHMEMX_ERROR_SYMMETRY, recorded (a PE that failed already keeps its own
 * error: rc). */
static int sym_agree(const struct sym_card *all, size_t length, int slot, int flags, int rc,
                     const char *rtn)
{
    int pe;

    for (pe = 0; pe < shmemi_g.n_pes; pe++) {
        if (!all[pe].ok)
            return rc ? rc : shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "PE %d could not register "
                                        "its buffer", pe);
        if (rc)
            continue;
        if (all[pe].len != length || all[pe].slot != slot)
            return shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "PE %d passed length %llu, this PE "
                              "%zu (every PE must pass the same length)", pe,
                              (unsigned long long)all[pe].len, length);
        if (all[pe].flags != flags)
            return shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "PE %d passed flags %d, this PE %d "
                              "(every PE must pass the same flags)", pe, (int)all[pe].flags,
                              flags);
    }
    return rc;
}

/* Makes the buffer of slot a transport segment and a symmetric object
 * (cards all[], node peers' copies peer[] or NULL); reg_lock held. */
static void ext_publish(int slot, void *addr, size_t length, const struct sym_card *all,
                        char **peer)
{
    shmemt_t *tp = shmemi_g.tp;
    int pe;

    if (tp)
        for (pe = 0; pe < shmemi_g.n_pes; pe++)
            tp->ops->seg_peer(tp, SHMEMT_NSEGS + slot, pe, all[pe].card);
    shmemi_g.ext[slot].base = (uintptr_t)addr;
    __atomic_store_n(&shmemi_g.ext[slot].len, length, __ATOMIC_RELEASE);
    __atomic_fetch_add(&shmemi_g.n_ext, 1, __ATOMIC_RELEASE);
    if (peer) {
        __atomic_store_n(&shmemi_g.ext[slot].peer, peer, __ATOMIC_RELEASE);
        __atomic_fetch_add(&shmemi_g.n_ext_mapped, 1, __ATOMIC_RELEASE);
    }
}

/* Which kind of memory each PE registers (or unregisters): 0 when they
 * all name the same (kind: SYM_HOST or SYM_GPU), or SHMEMX_ERROR_SYMMETRY,
 * recorded; a PE whose own arguments are wrong (kind SYM_BAD) or whose
 * quiet failed before unregistering (SYM_FAILED), its error recorded as
 * rc, keeps its error, and the others name it. */
enum { SYM_BAD = 0, SYM_HOST = 1, SYM_GPU = 2, SYM_FAILED = 3 };

static int reg_allgather(const void *mine, size_t size, void **all_p, const char *what,
                         const char *rtn);

static int sym_kinds(int kind, int rc, const char *what, const char *rtn)
{
    int *all, pe, ret;

    if ((ret = reg_allgather(&kind, sizeof(kind), (void **)&all, "arguments", rtn)))
        return ret;
    for (pe = 0; pe < shmemi_g.n_pes && !rc; pe++)
        if (all[pe] == SYM_BAD)
            rc = shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "PE %d passed an address or length that "
                            "%s: nothing was %s", pe, what, strstr(what, "not") ? "unregistered"
                            : "registered");
        else if (all[pe] == SYM_FAILED)
            rc = shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "PE %d could not complete its "
                            "operations (its quiet failed): nothing was unregistered", pe);
        else if (all[pe] != kind)
            rc = shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "PE %d passed %s memory, this PE %s "
                            "memory (every PE must pass the same kind)", pe,
                            all[pe] == SYM_GPU ? "GPU" : "host", kind == SYM_GPU ? "GPU" : "host");
    free(all);
    return rc;
}

/* GPU memory of the program's (of the CUDA VMM API) registered as
 * symmetric: the device heap's window (src/mem/dheap_ext.c). */
static int sym_register_gpu(void *addr, size_t length, int flags, const char *rtn)
{
    int rc = range_check(rtn, addr, length);

    if (!rc)
        rc = flags_check(flags, rtn);
    /* A GPU buffer is for the GPU's loads and stores (shmem_ptr) and its
     * copies; the flag asks for the CPU's. */
    if (!rc && (flags & SHMEMX_BUFFER_LOAD_STORE))
        rc = shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "flags SHMEMX_BUFFER_LOAD_STORE: addr "
                        "%p is GPU memory, which the CPU cannot load from or store to", addr);
    if ((rc = sym_kinds(rc ? SYM_BAD : SYM_GPU, rc, "the PE could not register", rtn)))
        return rc;
    pthread_mutex_lock(&reg_lock);
    rc = shmemi_dheap_register(addr, length, rtn);
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

int shmemi_buffer_register_symmetric(void *addr, size_t length, int flags, const char *rtn)
{
    struct sym_card me, *all;
    shmemt_t *tp = shmemi_g.tp;
    char **peer = NULL;
    int slot, rc, ret, registered = 0;

    if (addr && length && shmemi_cuda_is_device(addr))
        return sym_register_gpu(addr, length, flags, rtn);
    if ((rc = sym_kinds(SYM_HOST, 0, "", rtn)))
        return rc;
    memset(&me, 0, sizeof(me));
    all = calloc((size_t)shmemi_g.n_pes, sizeof(*all));
    if (!all)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    pthread_mutex_lock(&reg_lock);
    rc = sym_check(addr, length, flags, &slot, rtn);
    if (!rc && tp) {
        ret = tp->ops->seg_reg ? tp->ops->seg_reg(tp, SHMEMT_NSEGS + slot, addr, length, me.card)
                               : -ENOSYS;
        if (ret)
            rc = shmemi_err(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT), rtn, "the %s "
                            "provider cannot register addr %p, length %zu for remote access: %s",
                            tp->prov_name, addr, length, strerror(-ret));
        else
            registered = 1;
    }
    /* How node peers can map this PE's copy (read by them only). */
    if (!rc && shmemi_g.env.direct && node_peers())
        shmemi_share_describe(addr, length, &me.share);
    me.ok = !rc;
    me.slot = slot;
    me.len = length;
    me.flags = flags;
    me.addr = (uintptr_t)addr;
    ret = shmemi_g.boot->allgather(shmemi_g.boot, &me, all, sizeof(me));
    if (ret)
        rc = shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_BOOTSTRAP), "%s: "
                              "exchanging the registrations failed: %s", rtn, strerror(-ret));
    else
        rc = sym_agree(all, length, slot, flags, rc, rtn);
    /* Every PE took the same decision so far; the mapping agrees too. */
    if (!rc)
        rc = ext_map(slot, all, addr, length, flags, &peer, rtn);
    if (rc) {
        if (registered)
            tp->ops->seg_dereg(tp, SHMEMT_NSEGS + slot);
    } else {
        ext_publish(slot, addr, length, all, peer);
        shmemi_debug("%s: %p, %zu bytes: segment %d", rtn, addr, length, SHMEMT_NSEGS + slot);
    }
    pthread_mutex_unlock(&reg_lock);
    free(all);
    return rc;
}

int shmemi_buffer_load_store(const void *addr, const char *rtn)
{
    int i, slot = -1;
    struct ext_state st;
    char reason[640];

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
    if (slot < 0)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "addr %p is not inside a buffer "
                          "registered with shmemx_buffer_register_symmetric", addr);
    ext_reason(&st, reason, sizeof(reason));
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "addr %p: node peers reach this symmetric "
                      "buffer through the provider, not by load/store: %s", addr, reason);
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

/* Every PE's word (words of size bytes each: an int or a uint64_t) in
 * all[], which the caller frees; 0 or the class, recorded. */
static int reg_allgather(const void *mine, size_t size, void **all_p, const char *what,
                         const char *rtn)
{
    void *all = calloc((size_t)shmemi_g.n_pes, size);
    int ret;

    if (!all)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    ret = shmemi_g.boot->allgather(shmemi_g.boot, mine, all, size);
    if (ret) {
        free(all);
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_BOOTSTRAP),
                                "%s: exchanging the %s failed: %s", rtn, what, strerror(-ret));
    }
    *all_p = all;
    return 0;
}

int shmemi_buffer_unregister_symmetric(void *addr, size_t length, const char *rtn)
{
    int i, slot = -1, kind = SYM_HOST, rc = 0, ret;

    pthread_mutex_lock(&reg_lock);
    for (i = 0; i < SHMEMT_EXT_MAX; i++)
        if (shmemi_g.ext[i].len && shmemi_g.ext[i].base == (uintptr_t)addr)
            slot = i;
    if (slot < 0 && (slot = shmemi_dheap_ext_find(addr, length)) != -1) {
        kind = SYM_GPU;
        if (slot == -2)
            rc = shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "length %zu is not the registered "
                            "length of the GPU buffer at %p", length, addr);
    } else if (slot < 0) {
        rc = shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "addr %p is not a buffer registered "
                        "with shmemx_buffer_register_symmetric", addr);
    } else if (shmemi_g.ext[slot].len != length) {
        rc = shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "length %zu is not the registered "
                        "length %zu", length, shmemi_g.ext[slot].len);
    }
    pthread_mutex_unlock(&reg_lock);
    /* Everything this PE issued is complete before anyone goes on.  A
     * failed quiet (SHMEMX_ERRORS_RETURN mode) is this PE's refusal: the
     * others learn it in the exchange and nobody unregisters. */
    if ((ret = shmemi_quiet_all(rtn))) {
        rc = ret;
        kind = SYM_FAILED;
    }
    if ((rc = sym_kinds(rc && kind != SYM_FAILED ? SYM_BAD : kind, rc,
                        "is not one of its symmetric buffers", rtn)))
        return rc; /* This PE's own failure, or another PE's. */
    /* The allgather was also the barrier: no PE uses the buffer any more,
     * loads and stores of node peers included. */
    pthread_mutex_lock(&reg_lock);
    if (kind == SYM_GPU)
        shmemi_dheap_ext_release(slot);
    else
        ext_release(slot);
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

/* What a PE whose quiet failed gives in the exchange of
 * shmemx_buffer_unregister_symmetric_all: a bit no registration sets. */
#define QUIET_FAILED ((uint64_t)1 << 31)

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

int shmemi_buffer_unregister_symmetric_all(const char *rtn)
{
    uint64_t used, *all;
    int i, pe, rc = shmemi_quiet_all(rtn), failed = rc;

    _Static_assert(SHMEMT_EXT_MAX < 32 && SHMEMI_DEXT_MAX < 32, "QUIET_FAILED is a free bit");
    pthread_mutex_lock(&reg_lock);
    /* Host buffers in the low word, GPU buffers in the high one; a failed
     * quiet (SHMEMX_ERRORS_RETURN mode) as the mask no PE holds, so that
     * every PE refuses. */
    used = failed ? QUIET_FAILED : ext_used() | (uint64_t)shmemi_dheap_ext_used() << 32;
    pthread_mutex_unlock(&reg_lock);
    if ((rc = reg_allgather(&used, sizeof(used), (void **)&all, "registrations", rtn)))
        return rc;
    rc = failed;
    for (pe = 0; pe < shmemi_g.n_pes && !rc; pe++)
        if (all[pe] == QUIET_FAILED)
            rc = shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "PE %d could not complete its "
                            "operations (its quiet failed): nothing was unregistered", pe);
        else if (all[pe] != used)
            rc = shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "PE %d has other symmetric buffers "
                            "registered than this PE (slots %#llx against %#llx, GPU buffers "
                            "from bit 32): nothing was unregistered", pe,
                            (unsigned long long)all[pe], (unsigned long long)used);
    free(all);
    if (rc)
        return rc;
    pthread_mutex_lock(&reg_lock);
    for (i = 0; i < SHMEMT_EXT_MAX; i++)
        if (used & (1u << i))
            ext_release(i);
    for (i = 0; i < SHMEMI_DEXT_MAX; i++)
        if (used & ((uint64_t)1 << (32 + i)))
            shmemi_dheap_ext_release(i);
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
