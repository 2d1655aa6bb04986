/*
 * Per-provider differences of the libfabric transport, and the provider
 * preference order.  Everything a provider does differently from the
 * libfabric specification's "ideal" provider is decided here, so that the
 * base (ofi.c, ofi_rma.c, ofi_atomic.c) stays generic.
 */
#include "ofi.h"
#include <stdlib.h>
#include <strings.h>

/* Short names users may give in FABSHMEM_PROVIDER. */
static const struct {
    const char *alias;
    const char *full;
} ofi_aliases[] = {
    { "tcp", "tcp;ofi_rxm" },
    { "verbs", "verbs;ofi_rxm" },
    { "rxm", "tcp;ofi_rxm" },
};

/* Automatic choice, best first. */
static const char *const ofi_auto_order[] = {
    "verbs;ofi_rxm", "tcp;ofi_rxm", "sockets", "shm",
};

const char *ofi_quirks_full_name(const char *requested)
{
    size_t i;

    for (i = 0; i < sizeof(ofi_aliases) / sizeof(ofi_aliases[0]); i++)
        if (!strcasecmp(requested, ofi_aliases[i].alias))
            return ofi_aliases[i].full;
    return requested;
}

int shmemt_ofi_rank_provider(const char *requested, const char *prov_name)
{
    size_t i;

    if (!prov_name || !*prov_name)
        return -1;
    if (requested && *requested)
        return strcasecmp(ofi_quirks_full_name(requested), prov_name) ? -1 : 0;
    for (i = 0; i < sizeof(ofi_auto_order) / sizeof(ofi_auto_order[0]); i++)
        if (!strcasecmp(prov_name, ofi_auto_order[i]))
            return (int)i;
    return -1;
}

/*
 * What is known per provider (libfabric 1.17, checked by experiment where
 * the provider exists on the development machine):
 *
 * - tcp;ofi_rxm: software RMA; the target applies writes only when it drives
 *   progress (data_progress MANUAL), and a write completes locally once the
 *   bytes are in the socket.  FI_DELIVERY_COMPLETE is honored (the target
 *   acknowledges after applying), so quiet gets remote completion from it.
 * - shm: the target process applies small (inline) writes from its command
 *   queue when it progresses; completion is reported at the sender before
 *   that.  The tx side offers no RMA read-after-write ordering, so a flush
 *   read is not a sound substitute; FI_DELIVERY_COMPLETE is used.
 *   Non-fetching atomics: with FI_INJECT alone the provider crashes, and
 *   with FI_INJECT | FI_DELIVERY_COMPLETE it reads the operand (and the
 *   caller's iov) after the call returned (found by experiment: wrong sums
 *   and stale operands).  So they are posted with a completion and waited
 *   for, which keeps the operand alive until the target has it.  Even
 *   then, with 4 PEs adding concurrently to the same words the sums come
 *   out corrupted (2 PEs pass), so SHMEMT_CAP_ATOMIC stays clear on shm
 *   unless FABSHMEM_OFI_SHM_ATOMICS=1 (for whoever investigates).
 * - sockets: auto progress (its own threads); FI_DELIVERY_COMPLETE is used
 *   for the same reason as tcp.
 * - verbs;ofi_rxm: RMA is done by the NIC (completion of an RC write means
 *   the data was placed), but atomics are emulated by rxm with messages,
 *   so the target still needs progress.
 */
void ofi_quirks_apply(shmemt_ofi_t *o)
{
    const struct fi_info *info = o->info;

    o->q.rc_mode = OFI_RC_DELIVERY;
    o->q.needs_progress = info->domain_attr->data_progress != FI_PROGRESS_AUTO;
    o->q.max_inject = 0;
    o->q.base_atomic_wait = 0;
    o->q.no_atomics = 0;

    if (!strcmp(o->prov_name, "verbs;ofi_rxm")) {
        o->q.rc_mode = OFI_RC_NATIVE;
        o->q.needs_progress = 1;
    } else if (!strcmp(o->prov_name, "tcp;ofi_rxm")) {
        o->q.rc_mode = OFI_RC_DELIVERY;
        o->q.needs_progress = 1;
    } else if (!strcmp(o->prov_name, "shm")) {
        o->q.rc_mode = OFI_RC_DELIVERY;
        o->q.needs_progress = 1;
        o->q.base_atomic_wait = 1;
        o->q.no_atomics = !(getenv("FABSHMEM_OFI_SHM_ATOMICS") &&
                            !strcmp(getenv("FABSHMEM_OFI_SHM_ATOMICS"), "1"));
    } else if (!strcmp(o->prov_name, "sockets")) {
        o->q.rc_mode = OFI_RC_DELIVERY;
        o->q.needs_progress = 0;
    }
    /* FABSHMEM developers can force a remote-completion method to compare. */
    {
        const char *e = getenv("FABSHMEM_OFI_RC_MODE");
        if (e && !strcmp(e, "native"))
            o->q.rc_mode = OFI_RC_NATIVE;
        else if (e && !strcmp(e, "delivery"))
            o->q.rc_mode = OFI_RC_DELIVERY;
        else if (e && !strcmp(e, "flush"))
            o->q.rc_mode = OFI_RC_FLUSH;
    }
}
