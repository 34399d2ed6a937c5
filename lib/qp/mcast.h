/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mcast.h — UD multicast groups of a device (IBA 10.5 and 9.8.1; RoCE
 * maps a group's GID to an IP multicast address, Annex A17).
 *
 * A UD QP attaches to a group's GID; a datagram whose BTH names the
 * multicast QPN (0xFFFFFF) and whose IP destination is a group's address
 * reaches every QP attached to that group, each with its own receive WQE
 * and Q_Key check.  Sending needs nothing here: a UD send to the
 * multicast QPN with an address vector whose GID is the group's.
 */
#ifndef SR_QP_MCAST_H
#define SR_QP_MCAST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct sr_qp;

#define SR_MCAST_QPN          0xffffffu  /* BTH DestQP of a multicast datagram */
#define SR_MAX_MCAST_GRP      256u       /* groups per device */
#define SR_MAX_MCAST_QP_ATTACH 56u       /* QPs per group (as rxe) */

/*
 * Is a GID a multicast address: ff00::/8, or IPv4-mapped 224.0.0.0/4
 * (as the kernel's rdma_is_multicast_addr)?
 */
static inline bool sr_gid_is_mcast(const uint8_t gid[16])
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

	if (gid[0] == 0xff)
		return true;
	return memcmp(gid, v4, sizeof(v4)) == 0 && (gid[12] & 0xf0) == 0xe0;
}

/* The Ethernet address of a multicast GID: 01:00:5e and the group's low
 * 23 bits for IPv4 (RFC 1112), 33:33 and its low 32 bits (RFC 2464). */
static inline void sr_mcast_mac(const uint8_t gid[16], uint8_t mac[6])
{
	if (gid[0] != 0xff) {
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = gid[13] & 0x7f;
		mac[4] = gid[14];
		mac[5] = gid[15];
		return;
	}
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, gid + 12, 4);
}

/*
 * Attach a UD QP to a group (ibv_attach_mcast).  1 when the device joined
 * the group with it (its first QP: the port reports the membership), 0
 * when the group was joined already (also when this QP is attached),
 * -EINVAL (not a UD QP, not a multicast GID), -ENOMEM (the device's
 * groups or the group's QPs are all taken).
 */
int sr_mcast_attach(struct sr_qp *qp, const uint8_t gid[16]);

/*
 * Detach (ibv_detach_mcast).  1 when the device left the group with it
 * (its last QP), 0 when others stay, -EINVAL when it is not attached.
 */
int sr_mcast_detach(struct sr_qp *qp, const uint8_t gid[16]);

/*
 * Detach a QP from all its groups (before destroying it); the GIDs of the
 * groups the device left with it go to left[] (room for SR_MAX_MCAST_GRP).
 * Returns their number.
 */
unsigned int sr_mcast_detach_all(struct sr_qp *qp,
				 uint8_t left[][16]);

/* ---- inside lib, with every lane lock held ---- */
struct sr_dev;
struct sr_pkt;

/* A parsed datagram to the multicast QPN: to every QP of its group. */
void sr_mcast_rx(struct sr_dev *dev, const struct sr_pkt *pkt);
/* A QP being destroyed leaves its groups (as the kernel's uverbs does). */
void sr_mcast_qp_gone(struct sr_qp *qp);
/* The device goes: its groups with it. */
void sr_mcast_fini(struct sr_dev *dev);

#endif /* SR_QP_MCAST_H */
