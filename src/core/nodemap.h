/*
 * The node map (pure logic, unit tested): which PEs share a node.
 */
#ifndef SHMEMI_NODEMAP_H
#define SHMEMI_NODEMAP_H

#include <stddef.h>

/* ---- node map (pure logic, unit tested) ---- */
/* From each PE's host identity (n_pes strings of idlen bytes) and
 * pes_per_node (0: real hosts), fills node_of[n_pes]; returns the node count. */
int shmemi_nodemap_build(const char *host_ids, size_t idlen, int n_pes, long pes_per_node,
                         int *node_of);
/* A node id from a PE's local peers (as the bootstrap's node_peers gives
 * them): the lowest of them.  peers[n] must be distinct PEs below n_pes,
 * my_pe among them; -EINVAL otherwise, -ENOMEM. */
int shmemi_nodemap_local_id(const int *peers, int n, int my_pe, int n_pes, int *id_p);
/* Checks the node ids of all PEs (node_id[pe]: pe's node id from
 * shmemi_nodemap_local_id, -1 for none; node_size[pe]: how many local peers
 * pe had).  Returns 0 when they describe one set of nodes (then node_id,
 * as sizeof(int)-byte identities, can take the place of the host names in
 * shmemi_nodemap_build), -ENOENT when some PE has no id, -EPROTO when the
 * PEs' answers contradict each other, -EINVAL or -ENOMEM. */
int shmemi_nodemap_ids_check(const int *node_id, const int *node_size, int n_pes);

#endif
