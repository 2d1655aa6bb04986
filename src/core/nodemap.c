/*
 * The node map: which PEs share a node (and so map each other's heaps).
 *
 * PEs with the same host identity are on the same host.  Hosts are numbered
 * in the order in which their first PE appears.  With virtual nodes
 * (FABSHMEM_PES_PER_NODE=k) the PEs of each host, in PE order, are cut into
 * nodes of k PEs; a host's PEs need not be consecutive PE numbers, so the
 * cutting goes through each host's own list.  Virtual nodes are numbered in
 * the order in which their first PE appears.
 *
 * A host identity is a host name, or under PMIx a node id: the lowest of a
 * PE's PMIX_LOCAL_PEERS (shmemi_nodemap_local_id), used once every PE's id
 * has been checked (shmemi_nodemap_ids_check) and found to group the PEs as
 * the host names do (src/init/init.c).
 */
#include "base/base.h"
#include "core/nodemap.h"
#include <stdlib.h>

/* FNV-1a over the idlen bytes of one host identity. */
static uint64_t nodemap_hash(const char *id, size_t idlen)
{
    uint64_t h = 1469598103934665603ull;
    size_t i;

    for (i = 0; i < idlen; i++) {
        h ^= (unsigned char)id[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Returns the node count, -EINVAL for bad arguments or -ENOMEM. */
int shmemi_nodemap_build(const char *host_ids, size_t idlen, int n_pes, long pes_per_node,
                         int *node_of)
{
    size_t nslots = 2, mask, s;
    int *slot_pe = NULL;     /* hash slot -> first PE of that host, or -1 */
    int *host_cur = NULL;    /* host -> node of its current chunk */
    int *host_cnt = NULL;    /* host -> PEs of the host seen so far */
    int pe, n_hosts = 0, n_nodes = 0, ret;

    if (n_pes <= 0 || pes_per_node < 0 || (n_pes > 1 && (!host_ids || idlen == 0)))
        return -EINVAL;
    while (nslots < 2 * (size_t)n_pes)
        nslots *= 2;
    mask = nslots - 1;
    slot_pe = malloc(nslots * sizeof(int));
    host_cur = malloc((size_t)n_pes * sizeof(int));
    host_cnt = calloc((size_t)n_pes, sizeof(int));
    if (!slot_pe || !host_cur || !host_cnt) {
        ret = -ENOMEM;
        goto out_free;
    }
    for (s = 0; s < nslots; s++)
        slot_pe[s] = -1;

    for (pe = 0; pe < n_pes; pe++) {
        const char *id = host_ids ? host_ids + (size_t)pe * idlen : "";
        int host;

        /* Find the host by open addressing; the slot keeps the host's
         * first PE, whose node_of entry holds the host index for now. */
        for (s = nodemap_hash(id, idlen) & mask;; s = (s + 1) & mask) {
            if (slot_pe[s] < 0) {
                slot_pe[s] = pe;
                host = n_hosts++;
                break;
            }
            if (memcmp(host_ids + (size_t)slot_pe[s] * idlen, id, idlen) == 0) {
                host = node_of[slot_pe[s]];
                break;
            }
        }
        node_of[pe] = host;
    }

    if (pes_per_node == 0) {
        ret = n_hosts;
        goto out_free;
    }
    /* Cut each host's PEs into chunks of pes_per_node. */
    for (pe = 0; pe < n_pes; pe++) {
        int host = node_of[pe];

        if (host_cnt[host] % pes_per_node == 0)
            host_cur[host] = n_nodes++;
        host_cnt[host]++;
        node_of[pe] = host_cur[host];
    }
    ret = n_nodes;

out_free:
    free(slot_pe);
    free(host_cur);
    free(host_cnt);
    return ret;
}

/* The lowest of this PE's local peers names its node. */
int shmemi_nodemap_local_id(const int *peers, int n, int my_pe, int n_pes, int *id_p)
{
    unsigned char *seen;
    int i, id = n_pes, self = 0, ret = 0;

    if (!peers || n <= 0 || n_pes <= 0 || my_pe < 0 || my_pe >= n_pes)
        return -EINVAL;
    seen = calloc((size_t)n_pes, 1);
    if (!seen)
        return -ENOMEM;
    for (i = 0; i < n; i++) {
        int r = peers[i];

        if (r < 0 || r >= n_pes || seen[r]) {
            ret = -EINVAL;
            goto out_free;
        }
        seen[r] = 1;
        self |= r == my_pe;
        if (r < id)
            id = r;
    }
    if (!self) {
        ret = -EINVAL;
        goto out_free;
    }
    *id_p = id;

out_free:
    free(seen);
    return ret;
}

/* Every PE's answer must describe the same nodes: a node's lowest PE names
 * itself, no PE names a higher one, and every PE counted the PEs that name
 * the same node. */
int shmemi_nodemap_ids_check(const int *node_id, const int *node_size, int n_pes)
{
    int *count, pe, ret = 0;

    if (!node_id || !node_size || n_pes <= 0)
        return -EINVAL;
    for (pe = 0; pe < n_pes; pe++)
        if (node_id[pe] < 0)
            return -ENOENT;
    count = calloc((size_t)n_pes, sizeof(int));
    if (!count)
        return -ENOMEM;
    for (pe = 0; pe < n_pes; pe++) {
        int id = node_id[pe];

        if (id > pe || node_id[id] != id) {
            ret = -EPROTO;
            goto out_free;
        }
        count[id]++;
    }
    for (pe = 0; pe < n_pes; pe++) {
        if (node_size[pe] != count[node_id[pe]]) {
            ret = -EPROTO;
            goto out_free;
        }
    }

out_free:
    free(count);
    return ret;
}
