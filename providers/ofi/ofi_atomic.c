/*
 * libfabric transport: atomics on 4- and 8-byte integers.
 *
 * Non-fetching operations (set, add, and, or, xor) are injected and counted
 * by put_cntr: they complete at quiet like a put (they carry
 * FI_DELIVERY_COMPLETE unless the provider's completion is remote anyway,
 * also in flush mode, where the flush read would cover them too).  Fetching operations
 * (fetch, swap, compare-swap, fetch-add, ...) wait for their result.  All
 * operations use unsigned types: two's complement addition and the bitwise
 * operations give the same bits for signed integers.
 */
#include "ofi.h"
#include "ofi_mr.h"
#include "ofi_post.h"
#include <string.h>

int ofi_aop_map(int op, int fetching, enum fi_op *fop_p, int *kind_p)
{
    switch (op) {
    case SHMEMT_AOP_SET:   *fop_p = FI_ATOMIC_WRITE; break;
    case SHMEMT_AOP_FETCH: *fop_p = FI_ATOMIC_READ; fetching = 1; break;
    case SHMEMT_AOP_SWAP:  *fop_p = FI_ATOMIC_WRITE; fetching = 1; break;
    case SHMEMT_AOP_CSWAP: *fop_p = FI_CSWAP; *kind_p = OFI_AK_COMPARE; return 0;
    case SHMEMT_AOP_ADD:   *fop_p = FI_SUM; break;
    case SHMEMT_AOP_AND:   *fop_p = FI_BAND; break;
    case SHMEMT_AOP_OR:    *fop_p = FI_BOR; break;
    case SHMEMT_AOP_XOR:   *fop_p = FI_BXOR; break;
    default: return -EINVAL;
    }
    *kind_p = fetching ? OFI_AK_FETCH : OFI_AK_BASE;
    return 0;
}

int ofi_atomic_check(shmemt_ofi_t *o)
{
    static const struct { int op, fetching; } need[] = {
        { SHMEMT_AOP_SET, 0 }, { SHMEMT_AOP_ADD, 0 }, { SHMEMT_AOP_AND, 0 },
        { SHMEMT_AOP_OR, 0 }, { SHMEMT_AOP_XOR, 0 },
        { SHMEMT_AOP_FETCH, 1 }, { SHMEMT_AOP_SWAP, 1 }, { SHMEMT_AOP_CSWAP, 1 },
        { SHMEMT_AOP_ADD, 1 }, { SHMEMT_AOP_AND, 1 }, { SHMEMT_AOP_OR, 1 },
        { SHMEMT_AOP_XOR, 1 },
    };
    static const enum fi_datatype dts[] = { FI_UINT32, FI_UINT64 };
    struct fi_atomic_attr attr;
    size_t i, d;
    enum fi_op fop;
    int kind, ret;

    for (d = 0; d < 2; d++) {
        for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
            uint64_t flags;
            ofi_aop_map(need[i].op, need[i].fetching, &fop, &kind);
            flags = kind == OFI_AK_FETCH ? FI_FETCH_ATOMIC :
                    kind == OFI_AK_COMPARE ? FI_COMPARE_ATOMIC : 0;
            memset(&attr, 0, sizeof(attr));
            ret = fi_query_atomic(o->domain, dts[d], fop, &attr, flags);
            if (ret || attr.count < 1) {
                ofi_info_log(o, "ofi: provider %s lacks atomic op %d (%s) on %d-bit integers: "
                             "no transport atomics", o->prov_name, (int)fop,
                             kind == OFI_AK_BASE ? "base" : kind == OFI_AK_FETCH ? "fetch" :
                             "compare", d ? 64 : 32);
                return -ENOSYS;
            }
        }
    }
    return 0;
}

/* CPU atomics on this PE's own memory: the case pe == my_pe, and the
 * requests of active messages (ofi_am.c). */
int ofi_cpu_atomic(shmemt_ofi_t *o, int seg, uint64_t off, int op, const void *operand,
                   const void *compare, void *fetch, size_t size)
{
    char *p;
    uint64_t v = 0, c = 0, old = 0;

    p = ofi_local_addr(OFI_ROOT(o), (unsigned)seg, off, size);
    if (!p || off % size)
        return -EINVAL;
    if (operand)
        memcpy(&v, operand, size);
    if (compare)
        memcpy(&c, compare, size);
#define OFI_SELF_OPS(T)                                                                      \
    do {                                                                                     \
        T *a = (T *)p, tv = (T)v, tc = (T)c, to = 0;                                         \
        switch (op) {                                                                        \
        case SHMEMT_AOP_SET:   to = __atomic_exchange_n(a, tv, __ATOMIC_SEQ_CST); break;     \
        case SHMEMT_AOP_FETCH: to = __atomic_load_n(a, __ATOMIC_SEQ_CST); break;             \
        case SHMEMT_AOP_SWAP:  to = __atomic_exchange_n(a, tv, __ATOMIC_SEQ_CST); break;     \
        case SHMEMT_AOP_CSWAP:                                                               \
            to = tc;                                                                         \
            __atomic_compare_exchange_n(a, &to, tv, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);  \
            break;                                                                           \
        case SHMEMT_AOP_ADD:   to = __atomic_fetch_add(a, tv, __ATOMIC_SEQ_CST); break;      \
        case SHMEMT_AOP_AND:   to = __atomic_fetch_and(a, tv, __ATOMIC_SEQ_CST); break;      \
        case SHMEMT_AOP_OR:    to = __atomic_fetch_or(a, tv, __ATOMIC_SEQ_CST); break;       \
        case SHMEMT_AOP_XOR:   to = __atomic_fetch_xor(a, tv, __ATOMIC_SEQ_CST); break;      \
        default: return -EINVAL;                                                             \
        }                                                                                    \
        old = to;                                                                            \
    } while (0)
    if (size == 4)
        OFI_SELF_OPS(uint32_t);
    else
        OFI_SELF_OPS(uint64_t);
#undef OFI_SELF_OPS
    if (fetch)
        memcpy(fetch, &old, size);
    return 0;
}

int ofi_remote_seg_ok(shmemt_ofi_t *o, int pe, int seg, uint64_t off, size_t len)
{
    uint64_t raddr, key;

    return ofi_remote(o, pe, seg, off, len, &raddr, &key) == 0;
}

/* The provider's call for an atomic of this kind (OFI_AK_*). */
static ssize_t ofi_atomic_call(shmemt_ofi_t *o, int kind, const struct fi_msg_atomic *msg,
                               struct fi_ioc *resv, void **rdesc, struct fi_ioc *cmpv,
                               void **cdesc)
{
    if (kind == OFI_AK_BASE)
        return fi_atomicmsg(o->ep, msg, o->q.base_atomic_wait ?
                            FI_COMPLETION | o->atomic_dc_flag : FI_INJECT | o->atomic_dc_flag);
    if (kind == OFI_AK_FETCH)
        return fi_fetch_atomicmsg(o->ep, msg, resv, rdesc, 1, FI_COMPLETION);
    return fi_compare_atomicmsg(o->ep, msg, cmpv, cdesc, 1, resv, rdesc, 1, FI_COMPLETION);
}

/* An atomic by the provider's fi_atomic (not active messages) on the word
 * at raddr of PE pe: fop and kind from ofi_aop_map, the rest as for
 * ofi_atomic. */
static int ofi_atomic_native(shmemt_ofi_t *o, int pe, uint64_t raddr, uint64_t key,
                             enum fi_op fop, int kind, const void *operand, const void *compare,
                             void *fetch, size_t size)
{
    static const char *const calls[] = { "fi_atomic", "fi_fetch_atomic", "fi_compare_atomic" };
    uint64_t dummy = 0;
    struct fi_ioc iov, cmpv, resv;
    struct fi_rma_ioc rioc = { .addr = raddr, .count = 1, .key = key };
    struct fi_msg_atomic msg;
    void *desc = NULL, *cdesc = NULL, *rdesc = NULL;
    /* FI_ATOMIC_READ ignores the operand but wants a buffer. */
    const void *opnd = operand ? operand : &dummy, *cmp = compare;
    void *res = fetch;
    ofi_req_t req = { .done = 0, .err = 0 };
    ofi_retry_t r;
    ssize_t rc;
    int ret, base = kind == OFI_AK_BASE, locked = !base && (o->mr_mode & FI_MR_LOCAL);

    if (locked) {
        /* Operands and result must be registered: use the scratch area. */
        pthread_mutex_lock(&o->scratch_lock);
        memcpy(o->scratch, opnd, size);
        if (cmp)
            memcpy(o->scratch + 8, cmp, size);
        opnd = o->scratch;
        cmp = cmp ? o->scratch + 8 : NULL;
        res = o->scratch + 16;
        desc = cdesc = rdesc = o->scratch_desc;
    }
    iov.addr = (void *)opnd;
    iov.count = 1;
    resv.addr = res;
    resv.count = 1;
    cmpv.addr = (void *)cmp;
    cmpv.count = 1;
    ofi_atomic_msg(o, &msg, &iov, &desc, &rioc, pe, size == 4 ? FI_UINT32 : FI_UINT64, fop,
                   base && !o->q.base_atomic_wait ? NULL : &req);
    /* Issued before posted: see the accounting note in ofi_rma.c. */
    atomic_fetch_add_explicit(base ? &o->put_issued : &o->get_issued, 1, memory_order_seq_cst);
    ofi_prog_kick(o);
    ofi_retry_init(&r, 0);
    do
        rc = ofi_atomic_call(o, kind, &msg, &resv, &rdesc, &cmpv, &cdesc);
    while (ofi_retry(o, &r, &rc, calls[kind]));
    if (rc) {
        atomic_fetch_add_explicit(base ? &o->put_failed : &o->get_failed, 1,
                                  memory_order_seq_cst);
        ret = ofi_post_failed(o, &r, rc, "%s on PE %d", calls[kind], pe);
    } else if (base) {
        ofi_note_written(o, pe);
        ret = o->q.base_atomic_wait ? ofi_req_wait(o, &req, calls[kind]) : 0;
    } else {
        ret = ofi_req_wait(o, &req, calls[kind]);
        if (!ret && res != fetch)
            memcpy(fetch, res, size);
    }
    if (locked)
        pthread_mutex_unlock(&o->scratch_lock);
    return ret;
}

int ofi_atomic(shmemt_t *t, int pe, int seg, uint64_t off, int op, const void *operand,
               const void *compare, void *fetch, size_t size)
{
    shmemt_ofi_t *o = OFI_T(t);
    uint64_t raddr, key;
    enum fi_op fop;
    int kind;

    if (!(o->pub.caps & SHMEMT_CAP_ATOMIC))
        return -ENOSYS;
    if (size != 4 && size != 8)
        return -EINVAL;
    if (ofi_aop_map(op, fetch != NULL, &fop, &kind))
        return -EINVAL;
    if (kind != OFI_AK_BASE && !fetch)
        return -EINVAL;
    if (kind == OFI_AK_COMPARE && !compare)
        return -EINVAL;
    if (pe == o->my_pe)
        return ofi_cpu_atomic(o, seg, off, op, operand, compare, fetch, size);
    if (ofi_remote(o, pe, seg, off, size, &raddr, &key)) {
        ofi_err(o, "atomic: PE %d segment %d offset %llu is outside the registered memory",
                pe, seg, (unsigned long long)off);
        return -EINVAL;
    }
    if (o->am)
        return ofi_am_atomic(o, pe, seg, off, op, operand, compare, fetch, size);
    return ofi_atomic_native(o, pe, raddr, key, fop, kind, operand, compare, fetch, size);
}
