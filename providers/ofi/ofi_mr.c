/*
 * libfabric transport: memory registration.  The symmetric segments of
 * init (registered in ofi.c's key exchange through ofi_mr_reg), the
 * run-time segments of shmemx_buffer_register_symmetric, the local buffers
 * of shmemx_buffer_register and the library's own local buffers; the
 * lookups of a remote (pe, seg, off) and of a local descriptor.
 */
#include "ofi.h"
#include "ofi_mr.h"
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/random.h>

int ofi_getrandom(shmemt_ofi_t *o, void *buf, size_t len, const char *what)
{
    ssize_t n;

    do
        n = getrandom(buf, len, 0);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)len) {
        ofi_err(o, "getrandom of %s: %s", what, n < 0 ? strerror(errno) : "short read");
        return n < 0 ? -errno : -EIO;
    }
    return 0;
}

/* A requested key nobody can guess (docs/design/trust.md): random
 * bits from the kernel, as many as the provider's keys hold.  0 or a
 * negative errno. */
static int ofi_rand_key(shmemt_ofi_t *o, uint64_t *key_p)
{
    size_t key_size = o->info->domain_attr->mr_key_size;
    uint64_t key = 0;
    int ret = ofi_getrandom(o, &key, sizeof(key), "a memory registration key");

    if (ret)
        return ret;
    if (key_size && key_size < sizeof(key))
        key &= ((uint64_t)1 << (8 * key_size)) - 1;
    *key_p = key;
    return 0;
}

/* How many random keys a registration tries before it gives up, when the
 * provider says a key is in use (FI_ENOKEY: two equal random keys). */
#define OFI_KEY_TRIES 8

int ofi_mr_regattr(shmemt_ofi_t *o, struct fi_mr_attr *attr, struct fid_mr **mr_p,
                   int *logged_p)
{
    struct fid_mr *mr;
    int ret = -FI_ENOKEY, i;

    *logged_p = 1;
    for (i = 0; i < OFI_KEY_TRIES && ret == -FI_ENOKEY; i++) {
        /* With FI_MR_PROV_KEY the provider chooses and ignores ours. */
        if ((ret = ofi_rand_key(o, &attr->requested_key)))
            return ret;
        ret = fi_mr_regattr(o->domain, attr, 0, &mr);
    }
    if (ret) {
        *logged_p = 0;
        return ret;
    }
    return ofi_mr_ready(o, mr, mr_p);
}

int ofi_mr_reg(shmemt_ofi_t *o, void *buf, size_t len, uint64_t access, struct fid_mr **mr_p)
{
    struct iovec iov = { buf, len };
    struct fi_mr_attr attr;
    int ret, logged;

    memset(&attr, 0, sizeof(attr));
    attr.mr_iov = &iov;
    attr.iov_count = 1;
    attr.access = access;
    ret = ofi_mr_regattr(o, &attr, mr_p, &logged);
    if (ret && !logged)
        ofi_err(o, "fi_mr_reg of %zu bytes at %p: %s", len, buf, fi_strerror(-ret));
    return ret ? -EIO : 0;
}

int ofi_mr_ready(shmemt_ofi_t *o, struct fid_mr *mr, struct fid_mr **mr_p)
{
    int ret;

    if (o->mr_mode & FI_MR_ENDPOINT) {
        ret = fi_mr_bind(mr, &o->ep->fid, 0);
        if (ret) {
            ofi_err(o, "fi_mr_bind: %s", fi_strerror(-ret));
            goto err_close;
        }
        ret = fi_mr_enable(mr);
        if (ret) {
            ofi_err(o, "fi_mr_enable: %s", fi_strerror(-ret));
            goto err_close;
        }
    }
    *mr_p = mr;
    return 0;

err_close:
    fi_close(&mr->fid);
    return -EIO;
}

int ofi_remote(shmemt_ofi_t *o, int pe, int seg, uint64_t off, size_t len,
               uint64_t *raddr_p, uint64_t *key_p)
{
    const ofi_peer_seg_t *ps;

    if ((unsigned)pe >= (unsigned)o->n_pes || (unsigned)seg >= SHMEMT_MAX_SEGS)
        return -EINVAL;
    ps = &o->peer[(size_t)pe * SHMEMT_MAX_SEGS + seg];
    if (off > ps->len || len > ps->len - off)
        return -EINVAL;
    *raddr_p = ps->addr + off;
    *key_p = ps->key;
    return 0;
}

void *ofi_local_desc(shmemt_ofi_t *o, const void *buf, size_t len)
{
    shmemt_ofi_t *r = OFI_ROOT(o);
    uintptr_t a = (uintptr_t)buf;
    struct ofi_buf *b;
    void *desc = NULL;
    int s;

    for (s = 0; s < SHMEMT_MAX_SEGS; s++) {
        uintptr_t base = (uintptr_t)r->segs[s].base;
        if (r->mr[s] && a - base < r->segs[s].len && len <= r->segs[s].len - (a - base))
            return r->desc[s];
    }
    if (o->scratch && a - (uintptr_t)o->scratch < OFI_SCRATCH_SIZE &&
        len <= OFI_SCRATCH_SIZE - (a - (uintptr_t)o->scratch))
        return o->scratch_desc;
    if (!atomic_load_explicit(&r->n_bufs, memory_order_acquire))
        return NULL;
    pthread_rwlock_rdlock(&r->buf_lock);
    for (b = r->bufs; b; b = b->next)
        if (a - b->base < b->len && len <= b->len - (a - b->base)) {
            desc = b->desc;
            break;
        }
    pthread_rwlock_unlock(&r->buf_lock);
    return desc;
}

static uint64_t ofi_rt_access(void)
{
    return FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE;
}

/* Records the registration o->mr[seg] of [base, base + len) as segment
 * seg and its card (key, address, length); 0, or -ENOTSUP (then closed)
 * when the provider gives no key to send. */
static int ofi_seg_card(shmemt_ofi_t *o, int seg, void *base, size_t len, uint64_t card[3])
{
    card[0] = fi_mr_key(o->mr[seg]);
    if (card[0] == FI_KEY_NOTAVAIL) {
        fi_close(&o->mr[seg]->fid);
        o->mr[seg] = NULL;
        return -ENOTSUP;
    }
    o->desc[seg] = fi_mr_desc(o->mr[seg]);
    card[1] = (o->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)base : 0;
    card[2] = len;
    o->segs[seg].base = base;
    o->segs[seg].len = len;
    return 0;
}

int ofi_seg_reg(shmemt_t *t, int seg, void *base, size_t len, uint64_t card[3])
{
    shmemt_ofi_t *o = OFI_ROOT(OFI_T(t));
    int ret;

    if (seg < SHMEMT_NSEGS || seg >= SHMEMT_MAX_SEGS || o->mr[seg])
        return -EINVAL;
    ret = ofi_mr_reg(o, base, len, ofi_rt_access(), &o->mr[seg]);
    if (ret)
        return ret;
    return ofi_seg_card(o, seg, base, len, card);
}

int ofi_seg_reg_dev(shmemt_t *t, int seg, void *base, size_t len, int cuda_device,
                    uint64_t card[3])
{
    shmemt_ofi_t *o = OFI_ROOT(OFI_T(t));
    struct iovec iov = { base, len };
    struct fi_mr_attr attr;
    int ret, logged;

    if (seg < SHMEMT_NSEGS || seg >= SHMEMT_MAX_SEGS || o->mr[seg])
        return -EINVAL;
    if (!(o->info->caps & FI_HMEM))
        return -ENOTSUP;
    memset(&attr, 0, sizeof(attr));
    attr.mr_iov = &iov;
    attr.iov_count = 1;
    attr.access = ofi_rt_access();
    attr.iface = FI_HMEM_CUDA;
    attr.device.cuda = cuda_device;
    ret = ofi_mr_regattr(o, &attr, &o->mr[seg], &logged);
    if (ret && logged) {
        snprintf(o->pub.hmem_why, sizeof(o->pub.hmem_why), "the registration of the device "
                 "heap could not be made ready (see the provider's message)");
        return -EIO;
    }
    if (ret) {
        /* A libfabric built without CUDA offers FI_HMEM and refuses here. */
        snprintf(o->pub.hmem_why, sizeof(o->pub.hmem_why), "fi_mr_regattr of the device heap "
                 "(%zu bytes of CUDA device %d memory, FI_HMEM_CUDA) failed: %s", len,
                 cuda_device, fi_strerror(-ret));
        ofi_info_log(o, "ofi: %s", o->pub.hmem_why);
        return -ENOTSUP;
    }
    return ofi_seg_card(o, seg, base, len, card);
}

int ofi_seg_peer(shmemt_t *t, int seg, int pe, const uint64_t card[3])
{
    shmemt_ofi_t *o = OFI_ROOT(OFI_T(t));
    ofi_peer_seg_t *ps;

    if (seg < SHMEMT_NSEGS || seg >= SHMEMT_MAX_SEGS || (unsigned)pe >= (unsigned)o->n_pes)
        return -EINVAL;
    ps = &o->peer[(size_t)pe * SHMEMT_MAX_SEGS + seg];
    if (card) {
        ps->key = card[0];
        ps->addr = card[1];
        ps->len = card[2];
    } else {
        memset(ps, 0, sizeof(*ps));
    }
    return 0;
}

void ofi_seg_dereg(shmemt_t *t, int seg)
{
    shmemt_ofi_t *o = OFI_ROOT(OFI_T(t));
    int pe;

    if (seg < SHMEMT_NSEGS || seg >= SHMEMT_MAX_SEGS)
        return;
    for (pe = 0; pe < o->n_pes; pe++)
        memset(&o->peer[(size_t)pe * SHMEMT_MAX_SEGS + seg], 0, sizeof(*o->peer));
    if (o->mr[seg])
        fi_close(&o->mr[seg]->fid);
    o->mr[seg] = NULL;
    o->desc[seg] = NULL;
    o->segs[seg].base = NULL;
    o->segs[seg].len = 0;
}

int ofi_buf_reg(shmemt_t *t, void *base, size_t len, void **handle_p)
{
    shmemt_ofi_t *o = OFI_ROOT(OFI_T(t));
    struct ofi_buf *b = calloc(1, sizeof(*b));
    int ret;

    if (!b)
        return -ENOMEM;
    ret = ofi_mr_reg(o, base, len, FI_READ | FI_WRITE | FI_SEND | FI_RECV, &b->mr);
    if (ret) {
        free(b);
        return ret;
    }
    b->base = (uintptr_t)base;
    b->len = len;
    b->desc = fi_mr_desc(b->mr);
    pthread_rwlock_wrlock(&o->buf_lock);
    b->next = o->bufs;
    o->bufs = b;
    atomic_fetch_add(&o->n_bufs, 1);
    pthread_rwlock_unlock(&o->buf_lock);
    *handle_p = b;
    return 0;
}

void ofi_buf_dereg(shmemt_t *t, void *handle)
{
    shmemt_ofi_t *o = OFI_ROOT(OFI_T(t));
    struct ofi_buf **pp, *b = handle;

    pthread_rwlock_wrlock(&o->buf_lock);
    for (pp = &o->bufs; *pp; pp = &(*pp)->next)
        if (*pp == b) {
            *pp = b->next;
            atomic_fetch_sub(&o->n_bufs, 1);
            break;
        }
    pthread_rwlock_unlock(&o->buf_lock);
    fi_close(&b->mr->fid);
    free(b);
}

int ofi_mr_local(shmemt_ofi_t *o, void *buf, size_t len, uint64_t access, struct fid_mr **mr_p)
{
    return ofi_mr_reg(o, buf, len, access, mr_p);
}
