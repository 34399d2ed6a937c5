/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peers.h — the peers a client's RC and UC QPs are connected to (QP_PEER
 * messages), so that the switch lets the client's RC/UC frames out only to
 * them: a frame of RC or UC carries no source QPN, but its destination
 * (address, QPN) must be the peer of one of the client's QPs.
 *
 * Per client: each of its 4096 QPs' peer, and an open-addressing set of
 * the peers with a count each, looked up per frame in O(1).
 */
#ifndef SR_SROCED_PEERS_H
#define SR_SROCED_PEERS_H

#include <stdbool.h>
#include <stdint.h>

#include "sroced/proto.h"

#define SRD_PEER_SLOTS (4 * SRD_QPN_BLOCK)   /* power of two; live <= 1/4 */

struct srd_peer_key {
	uint8_t gid[16];
	uint32_t dqpn;
};

struct srd_peers {
	struct {
		struct srd_peer_key key;
		bool on;
	} qp[SRD_QPN_BLOCK];                     /* by QPN - qpn_base */
	struct {
		struct srd_peer_key key;
		uint32_t count;                  /* 0: a tombstone when used */
		bool used;
	} slot[SRD_PEER_SLOTS];
	uint32_t used;                           /* slots used, tombstones too */
};

/* QP index idx (QPN - qpn_base) is now connected to (gid, dqpn) (on), or
 * no longer connected (off).  0, or -EINVAL for an index out of range. */
int srd_peers_set(struct srd_peers *p, uint32_t idx, const uint8_t gid[16],
		  uint32_t dqpn, bool on);

/* Is (gid, dqpn) the peer of one of the client's QPs? */
bool srd_peers_has(const struct srd_peers *p, const uint8_t gid[16],
		   uint32_t dqpn);

#endif /* SR_SROCED_PEERS_H */
