/*
 * Memory the application allocated itself (include/fabshmem/shmemx_mem.h):
 * local buffers registered for zero-copy RMA, and symmetric buffers, which
 * become transport segments SHMEMT_NSEGS and up (shmemi_addr_seg finds
 * them through shmemi_g.ext).
 */
#include "shmemi.h"
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
            shmemi_quiet(SHMEM_CTX_DEFAULT);
            shmemi_ctxs_quiet();
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
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    shmemi_ctxs_quiet();
    pthread_mutex_lock(&reg_lock);
    while ((b = local_bufs) != NULL) {
        local_bufs = b->next;
        local_release(b);
    }
    pthread_mutex_unlock(&reg_lock);
}

/* ---- symmetric buffers ---- */

struct sym_card {
    int32_t ok;
    int32_t slot;
    uint64_t len;
    uint64_t card[3];
};

SHMEM_API void *shmemx_buffer_register_symmetric(void *addr, size_t length, int flags)
{
    const char *rtn = "shmemx_buffer_register_symmetric", *what;
    struct sym_card me, *all;
    shmemt_t *tp = shmemi_g.tp;
    struct local_buf *b;
    int i, slot = -1, ok = 1, pe, ret, registered = 0;

    SHMEMI_CHECK_INIT(rtn);
    memset(&me, 0, sizeof(me));
    if (flags != 0) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: flags %d is not 0", rtn, flags);
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
    me.ok = ok;
    me.slot = slot;
    me.len = length;
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
    }
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
    pthread_mutex_unlock(&reg_lock);
    shmemi_debug("%s: %p, %zu bytes: segment %d", rtn, addr, length, SHMEMT_NSEGS + slot);
    return addr;
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
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    shmemi_ctxs_quiet();
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
    /* The allgather was also the barrier: no PE uses the buffer any more. */
    pthread_mutex_lock(&reg_lock);
    __atomic_fetch_sub(&shmemi_g.n_ext, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&shmemi_g.ext[slot].len, 0, __ATOMIC_RELEASE);
    shmemi_g.ext[slot].base = 0;
    if (shmemi_g.tp)
        shmemi_g.tp->ops->seg_dereg(shmemi_g.tp, SHMEMT_NSEGS + slot);
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
        if (shmemi_g.ext[i].len && shmemi_g.tp)
            shmemi_g.tp->ops->seg_dereg(shmemi_g.tp, SHMEMT_NSEGS + i);
        shmemi_g.ext[i].len = 0;
        shmemi_g.ext[i].base = 0;
    }
    shmemi_g.n_ext = 0;
    pthread_mutex_unlock(&reg_lock);
}
