/*
 * Per-provider differences of the libfabric transport, and the provider
 * preference order.  Everything a provider does differently from the
 * libfabric specification's "ideal" provider is decided here, so that the
 * base (ofi.c, ofi_rma.c, ofi_atomic.c) stays generic.
 */
#include "ofi.h"
#include <stdlib.h>
#include <strings.h>

const shmemt_choice_t shmemt_ofi_rc_modes[] = {
    { "", SHMEMT_RC_DEFAULT },
    { "delivery", SHMEMT_RC_DELIVERY },
    { "flush", SHMEMT_RC_FLUSH },
    { "native", SHMEMT_RC_NATIVE },
    { NULL, 0 },
};

const shmemt_choice_t shmemt_ofi_amo_modes[] = {
    { "auto", SHMEMT_AMO_AUTO },
    { "am", SHMEMT_AMO_AM },
    { "native", SHMEMT_AMO_NATIVE },
    { "1", SHMEMT_AMO_AM },
    { "0", SHMEMT_AMO_NATIVE },
    { NULL, 0 },
};

/* Short names users may give in FABSHMEM_PROVIDER. */
static const char *const ofi_aliases[][2] = { /* short name, full name */
    { "tcp", "tcp;ofi_rxm" },
    { "verbs", "verbs;ofi_rxm" },
    { "rxm", "tcp;ofi_rxm" },
};

/* Automatic choice, best first. */
static const char *const ofi_auto_order[] = {
    "verbs;ofi_rxm", "tcp;ofi_rxm", "sockets", "shm",
};

/* The row of ofi_aliases whose short (full 0) or full name is name, or
 * NULL. */
static const char *const *ofi_alias_row(const char *name, int full)
{
    size_t i;

    for (i = 0; i < sizeof(ofi_aliases) / sizeof(ofi_aliases[0]); i++)
        if (!strcasecmp(name, ofi_aliases[i][full]))
            return ofi_aliases[i];
    return NULL;
}

const char *ofi_quirks_full_name(const char *requested)
{
    const char *const *row = ofi_alias_row(requested, 0);

    return row ? row[1] : requested;
}

const char *ofi_quirks_short_name(const char *full)
{
    const char *const *row = ofi_alias_row(full, 1);

    return row ? row[0] : NULL;
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
 * ofi_rxm's buffers, unless the user set them: 4 KiB instead of 16 KiB
 * each (our messages are at most 1 KiB: active messages, puts with signal;
 * RMA does not go through them) and 32 receive buffers posted per
 * connection instead of 128.  Measured on tcp;ofi_rxm, 2 PEs: 80 -> 16 MB
 * resident per PE after init, and 443 -> 62 MB with 8 contexts (each has
 * its endpoint and connections); latency and bandwidth unchanged within
 * the noise (docs/performance.md).  Without it a PE would also hold 2 MiB
 * of receive buffers per peer it talks to.
 */
void ofi_quirks_env(void)
{
    setenv("FI_OFI_RXM_BUFFER_SIZE", "4096", 0);
    setenv("FI_OFI_RXM_MSG_RX_SIZE", "32", 0);
}

/*
 * What is known per provider (libfabric 1.17, checked by experiment where
 * the provider exists on the development machine):
 *
 * - tcp;ofi_rxm: software RMA; the target applies writes only when it drives
 *   progress (data_progress MANUAL), and a write completes locally once the
 *   bytes are in the socket.  FI_DELIVERY_COMPLETE is honored (the target
 *   acknowledges after applying) but costs an acknowledgement per write
 *   (8-byte put + quiet 28 us against 14 us).  The connection is one byte
 *   stream that the target handles in order, and the provider reports
 *   FI_ORDER_RMA_RAW: a read posted after writes is answered after they
 *   were applied.  So writes complete locally and quiet sends one 8-byte
 *   flush read to each PE written since the last quiet (OFI_RC_FLUSH,
 *   available with FABSHMEM_OFI_RC_MODE=flush; the default stays
 *   FI_DELIVERY_COMPLETE, see ofi_quirks_for);
 *   checked with a put, quiet, out-of-band flag test (1000 iterations,
 *   sizes 8 B to 512 KiB, blocking and nbi: no stale data; with native
 *   completion the same test sees stale data).  Non-fetching atomics keep
 *   FI_DELIVERY_COMPLETE (rxm emulates them with messages that its own
 *   progress applies, not the tcp layer that answers the read).
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
 * - net: libfabric 1.17's native RDM endpoint over TCP sockets (the
 *   provider that later libfabric versions call tcp, without rxm): auto
 *   progress (its own thread), writes and reads ordered.  It lists
 *   FI_ATOMIC but fi_query_atomic refuses every operation, so AMOs go by
 *   active messages (FABSHMEM_OFI_AMO=native ends the job on an AMO to an
 *   unmapped PE, naming the routine).  The whole test matrix passes on it
 *   (direct, nodirect, vnode, 1-4 PEs).  Measured against tcp;ofi_rxm:
 *   small messages faster (8 B get 13, fetch-add 11 us against 16), large
 *   ones slower (1 MiB put 2.5 GB/s against 5.2), so it is not in the
 *   automatic order; FABSHMEM_PROVIDER=net selects it.
 * - verbs;ofi_rxm: RMA is done by the NIC (completion of an RC write means
 *   the data was placed), but atomics are emulated by rxm with messages,
 *   so the target still needs progress.
 */
const char *ofi_quirk_no_hmem(const char *prov_name, const shmemt_ofi_cfg_t *cfg)
{
    /* libfabric 2.1's shm, built with CUDA, offers FI_HMEM and registers
     * the device heap, but moves it wrongly: a run on 2 H200 (2026-11-26)
     * read wrong sums through 8 MiB gets and hung in gpu_rma's
     * puts of 4 MiB and more, while 1037-element collectives passed (the
     * same programs pass staged, through the same transport code).  Likely
     * its transfers of GPU memory by CUDA IPC, by which the device heap's
     * cuMemCreate memory cannot be exported; not isolated further.  A PE
     * of the same host is better reached by mapping or staging anyway.
     * libfabric 1.17.1's shm copies GPU memory with cudaMemcpy through its
     * bounce buffers instead (CUDA IPC only for a registration made with
     * FI_HMEM_DEVICE_ONLY, which ours is not): FABSHMEM_OFI_SHM_HMEM=1
     * lets whoever investigates try it (tests/gpu/run.sh,
     * GPU_TEST_FABRIC_HMEM). */
    if (!strcmp(prov_name, "shm") && !cfg->shm_hmem)
        return "the shm provider's FI_HMEM moved the device heap (cuMemCreate memory) wrongly "
               "with libfabric 2.1: wrong data and hangs (docs/gpu.md, run 16), so GPU memory "
               "of unmapped PEs on shm is staged (FABSHMEM_OFI_SHM_HMEM=1 tries it)";
    return NULL;
}

void ofi_quirks_for(const char *prov_name, const struct fi_info *info,
                    const shmemt_ofi_cfg_t *cfg, ofi_quirks_t *q)
{
    memset(q, 0, sizeof(*q));
    q->rc_mode = OFI_RC_DELIVERY;
    q->needs_progress = info->domain_attr->data_progress != FI_PROGRESS_AUTO;

    if (!strcmp(prov_name, "verbs;ofi_rxm")) {
        q->rc_mode = OFI_RC_NATIVE;
        q->needs_progress = 1;
    } else if (!strcmp(prov_name, "tcp;ofi_rxm")) {
        /* Flush reads are sound here (FI_ORDER_RMA_RAW) but not yet the
         * default: with 2 application threads at 4 PEs one run in 50 saw
         * stale data, not explained yet; delivery completion passed every
         * run.  FABSHMEM_OFI_RC_MODE=flush selects them. */
        q->rc_mode = OFI_RC_DELIVERY;
        q->ordered_writes = !!(info->tx_attr->msg_order & FI_ORDER_RMA_WAW);
        q->needs_progress = 1;
        q->hmem_copies = 1;
    } else if (!strcmp(prov_name, "shm")) {
        q->rc_mode = OFI_RC_DELIVERY;
        q->needs_progress = 1;
        q->base_atomic_wait = 1;
        /* Two application threads at once now and then get a read served
         * before a write already reported complete (1 run in 50 of
         * tests/core/threads at 4 PEs, cause not found yet).  Without
         * SHMEMT_CAP_THREADS the core serializes the calls into the
         * provider (src/core/tp_serial.c), progress thread included. */
        q->no_threads = 1;
        /* Its CQ takes FI_WAIT_FD, but nothing signals the fd when a peer
         * writes into our queue: only a poll finds the message.  A target
         * asleep in ppoll on it answered a fetch-add in 110 us (the
         * progress thread deferred to the "blocked" application); 1.1 ms
         * without the thread.  So no wait fd, and the thread polls
         * (ofi_prog.c). */
        q->fd_blind = 1;
        q->no_atomics = !cfg->shm_atomics;
        /* Its regions are of mode 0600 and it moves data by cross-memory
         * attach, which the kernel allows only to a process that may
         * ptrace us: nobody outside the trust boundary (our user) reaches
         * it, so active messages skip their MAC (about 10 % of shm's AMO
         * rate); they are still numbered. */
        q->same_user = 1;
        /* libfabric 1.17.1's shm with CUDA: cudaMemcpy through its bounce
         * buffers; on an H200 a proxy thread's put stayed in it, behind the
         * program's cudaDeviceSynchronize for the kernel that waited for
         * that put (eu-stack, 2026-11-29). */
        q->hmem_copies = 1;
    } else if (!strcmp(prov_name, "sockets")) {
        q->rc_mode = OFI_RC_DELIVERY;
        q->needs_progress = 0;
        q->hmem_copies = 1;
    }
    /* FABSHMEM developers can force a remote-completion method to compare. */
    if (cfg->rc_mode == SHMEMT_RC_NATIVE)
        q->rc_mode = OFI_RC_NATIVE;
    else if (cfg->rc_mode == SHMEMT_RC_DELIVERY)
        q->rc_mode = OFI_RC_DELIVERY;
    else if (cfg->rc_mode == SHMEMT_RC_FLUSH)
        q->rc_mode = OFI_RC_FLUSH;
    /* Developers (FABSHMEM_OFI_MR_LOCAL=1): act as for a provider that
     * wants registered local buffers (verbs, efa, cxi), so that those paths
     * (bounce buffers, registered receive buffers, the streams' fallback)
     * run where no such provider is; the others ignore the descriptors. */
    q->force_mr_local = cfg->mr_local;
    /* Active messages (FABSHMEM_OFI_AMO=auto): where the provider's atomics
     * are software run by the target anyway (rxm over tcp or verbs, shm),
     * or missing, our own messages cost the same and agree with the direct
     * path's CPU atomics.  sockets keeps its atomics: its own threads apply
     * them with no help from ours, and streams trigger them.  They need
     * messages (FI_MSG). */
    if (cfg->amo == SHMEMT_AMO_AM)
        q->am = 1;
    else if (cfg->amo == SHMEMT_AMO_NATIVE)
        q->am = 0;
    else
        q->am = strcmp(prov_name, "sockets") != 0 || !(info->caps & FI_ATOMIC);
    q->am = q->am && (info->caps & FI_MSG);
}
