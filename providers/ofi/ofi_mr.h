/*
 * libfabric transport, registrations (ofi_mr.c, ofi_hmem.c): memory
 * registrations with random keys, the segments and their peers' cards,
 * local buffers.
 */
#ifndef SHMEMT_OFI_MR_H
#define SHMEMT_OFI_MR_H

#include "ofi.h"

/* A local buffer registration (shmemx_buffer_register). */
struct ofi_buf {
    struct ofi_buf *next;
    uintptr_t base;
    size_t len;
    struct fid_mr *mr;
    void *desc;
};

/* ofi_mr.c */
/* Registers [buf, buf + len) under a random requested key (the
 * provider's own with FI_MR_PROV_KEY), bound to o's endpoint and enabled
 * where the provider wants that.  0 or -EIO (logged). */
int ofi_mr_reg(shmemt_ofi_t *o, void *buf, size_t len, uint64_t access, struct fid_mr **mr_p);
/* fi_mr_regattr of attr under a random requested key (attr->requested_key
 * is overwritten; another one where the provider finds it in use), then
 * ofi_mr_ready.  0 or a negative errno; *logged_p 1 when the failure was
 * logged (no random bytes, ofi_mr_ready), 0 when it is the provider's
 * refusal of the registration (the caller says what it registered). */
int ofi_mr_regattr(shmemt_ofi_t *o, struct fi_mr_attr *attr, struct fid_mr **mr_p,
                   int *logged_p);
/* Binds mr to o's endpoint and enables it where the provider wants that,
 * into *mr_p; closes it on failure (-EIO). */
int ofi_mr_ready(shmemt_ofi_t *o, struct fid_mr *mr, struct fid_mr **mr_p);
/* Registers [buf, buf + len) of this process with a key of its own (bound
 * to o's endpoint where the provider wants that): local buffers such as
 * the active messages' receive buffers. */
int ofi_mr_local(shmemt_ofi_t *o, void *buf, size_t len, uint64_t access, struct fid_mr **mr_p);
/* Resolves (pe, seg, off, len) to a remote address and key; -EINVAL when
 * out of range. */
int ofi_remote(shmemt_ofi_t *o, int pe, int seg, uint64_t off, size_t len,
               uint64_t *raddr_p, uint64_t *key_p);
/* The descriptor of a local buffer inside a registered segment, or NULL. */
void *ofi_local_desc(shmemt_ofi_t *o, const void *buf, size_t len);
/* The run-time segment and local buffer ops. */
int ofi_seg_reg(shmemt_t *t, int seg, void *base, size_t len, uint64_t card[3]);
int ofi_seg_peer(shmemt_t *t, int seg, int pe, const uint64_t card[3]);
void ofi_seg_dereg(shmemt_t *t, int seg);
int ofi_seg_reg_dev(shmemt_t *t, int seg, void *base, size_t len, int cuda_device,
                    uint64_t card[3]);
/* ofi_hmem.c: asks for o->info again with FI_HMEM (GPU memory) and keeps
 * the answer of the same provider when there is one (init args hmem). */
void ofi_want_hmem(shmemt_ofi_t *o);
/* 1 when a transport of provider prov_name opened with info and the
 * switches cfg has a way for AMOs: active messages, which need an inject
 * of their header, or the provider's atomics (ofi_hmem.c). */
int ofi_hmem_amo_way(const char *prov_name, const struct fi_info *info,
                     const shmemt_ofi_cfg_t *cfg);
int ofi_buf_reg(shmemt_t *t, void *base, size_t len, void **handle_p);
void ofi_buf_dereg(shmemt_t *t, void *handle);
/* ofi_mr.c: len random bytes from the kernel into buf (what: for the
 * message); 0 or a negative errno. */
int ofi_getrandom(shmemt_ofi_t *o, void *buf, size_t len, const char *what);

#endif
